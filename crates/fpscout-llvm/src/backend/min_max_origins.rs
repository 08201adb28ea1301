//! Reads which operand of each commutable `minss`/`maxss` the register allocator put first, from the allocated machine code.
//!
//! Under no-NaNs and no-signed-zeros, x86 instruction selection turns `select (fcmp olt x,
//! y), x, y` and its relatives into the commutable `X86ISD::FMINC`/`FMAXC` (`MINCSSrr`,
//! `MAXCPDrr`, ...). SSE `min`/`max` are not symmetric: with a NaN operand, or two zeros,
//! they return the second source. Which IR operand lands first is decided by two-address
//! lowering and register coalescing, so only the allocated code says what the executable
//! computes. Here each such instruction is read from clang's dump after the virtual
//! register rewriter: its first source is its tied destination register, and the
//! definition reaching that register (through copies, within the block, or from the
//! argument registers of the entry block) names the IR value it holds by its [`Tag`] in
//! the tagged build; [`super::min_max`] applies what is read here.

use super::dumps::{debug_line, without_slot_index, FunctionDump};
use super::tag::Tag;

impl FunctionDump {
    /// The commutable minimums and maximums of the allocated code.
    pub(crate) fn commuted_min_max(&self) -> Vec<CommutedMinMax> {
        commuted_min_max(&self.allocated)
    }
}

/// Where the value an operand register holds was computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ValueOrigin {
    /// By the machine instruction selected from this IR instruction.
    Instruction(Tag),
    /// Passed in `%xmmN` at entry: the N-th floating-point or vector argument.
    ArgumentRegister(u32),
    /// A constant (`xorps` zero or constant-pool load).
    Constant,
    /// A memory operand folded into the instruction (a load the IR performs).
    FoldedLoad,
    /// Different values on the paths into the machine block of this IR block: a phi there.
    PhiOf(Tag),
    /// Not readable from the code: why.
    Unknown(String),
}

/// One commutable minimum or maximum as allocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CommutedMinMax {
    /// `true` for `maxss`/`maxsd`/`maxps`/`maxpd`.
    pub(crate) is_max: bool,
    /// The target opcode (`MAXCSSrr`).
    pub(crate) opcode: String,
    /// The IR instruction it lowers.
    pub(crate) line: Option<Tag>,
    /// The first source (the tied destination): SSE returns the other one on NaN or zeros.
    pub(crate) first: ValueOrigin,
    /// The second source, returned when either operand is NaN or both are zero.
    pub(crate) second: ValueOrigin,
    /// Which sources hold a lane shuffle's result (through copies, in the block): in a
    /// reduction's halving step, the shuffled operand is the upper half.
    pub(crate) shuffled: [bool; 2],
}

/// Whether `opcode` moves lanes (`UNPCKHPDrr`, `SHUFPSrri`, `VEXTRACTF128rr`, ...).
fn is_lane_shuffle(opcode: &str) -> bool {
    let o = opcode.strip_prefix('V').unwrap_or(opcode);
    [
        "UNPCKH",
        "UNPCKL",
        "SHUFP",
        "MOVHLPS",
        "MOVLHPS",
        "PSHUFD",
        "MOVSHDUP",
        "MOVSLDUP",
        "MOVDDUP",
        "PERMILP",
        "PERMPD",
        "PERM2F128",
        "EXTRACTF",
    ]
    .iter()
    .any(|p| o.starts_with(p))
}

/// Whether `opcode` is a commutable SSE/AVX minimum or maximum (`MINCSSrr`, `VMAXCPDYrr`).
pub(crate) fn is_commuted_min_max(opcode: &str) -> bool {
    let o = opcode.strip_prefix('V').unwrap_or(opcode);
    o.starts_with("MINC") || o.starts_with("MAXC")
}

/// One parsed line of allocated machine code.
struct Line<'a> {
    /// Registers the instruction defines explicitly or implicitly (`xmm`/`ymm`/`zmm` numbers).
    defs: Vec<u32>,
    opcode: &'a str,
    /// Operands after the opcode, up to the implicit ones and debug annotations.
    operands: Vec<&'a str>,
    text: &'a str,
    line: Option<Tag>,
}

/// The number of a vector register operand: `$xmm3`, `renamable $ymm3`, `killed $xmm3(tied-def 0)`.
fn vector_register(operand: &str) -> Option<u32> {
    let word = operand.split_whitespace().find(|w| w.starts_with('$'))?;
    let name = word.trim_start_matches('$');
    let digits = ["xmm", "ymm", "zmm"]
        .iter()
        .find_map(|p| name.strip_prefix(p))?;
    let digits: String = digits.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Parses an instruction line; `None` for block headers, `liveins:` and the like.
fn parse_line(text: &str) -> Option<Line<'_>> {
    // Drop the slot index and the memory-operand notes.
    let body = without_slot_index(text);
    let body = body.split(" :: ").next().unwrap_or(body);
    let body = body.split(", debug-location").next().unwrap_or(body);
    if body.starts_with("bb.") || body.ends_with(':') || body.contains(": ") {
        return None;
    }
    let (lhs, rhs) = match body.split_once(" = ") {
        Some((l, r)) => (Some(l), r),
        None => (None, body),
    };
    let mut defs: Vec<u32> = lhs
        .map(|l| l.split(',').filter_map(vector_register).collect())
        .unwrap_or_default();
    let mut words = rhs.split_whitespace();
    let opcode = words.find(|w| w.chars().next().is_some_and(|c| c.is_ascii_uppercase()))?;
    let start = rhs.find(opcode)? + opcode.len();
    let all: Vec<&str> = rhs[start..]
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .collect();
    for o in &all {
        if let Some(r) = o.strip_prefix("implicit-def") {
            defs.extend(vector_register(r));
        }
    }
    let operands = all
        .into_iter()
        .take_while(|o| !o.starts_with("implicit") && !o.starts_with("debug-"))
        .collect();
    Some(Line {
        defs,
        opcode,
        operands,
        text,
        line: debug_line(text).and_then(Tag::from_debug_line),
    })
}

/// The block a header line starts and the tag of its IR block, if it has one
/// (`0B\tbb.3.t2 (align 16):` → 3, block 2; `bb.3 (%ir-block.9):` → 3, none).
fn block_header(text: &str) -> Option<(u32, Option<Tag>)> {
    let rest = without_slot_index(text).strip_prefix("bb.")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let tag = rest[digits.len()..]
        .strip_prefix('.')
        .and_then(|n| Tag::from_block_name(n.split([' ', ':']).next().unwrap_or(n)));
    Some((digits.parse().ok()?, tag))
}

/// One basic block of the allocated code.
struct Block {
    id: u32,
    ir_block: Option<Tag>,
    /// Its instruction lines, as indices into the function's lines.
    lines: std::ops::Range<usize>,
    predecessors: Vec<u32>,
}

fn blocks_of(allocated: &[String]) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    for (index, text) in allocated.iter().enumerate() {
        if let Some((id, ir_block)) = block_header(text) {
            if let Some(last) = blocks.last_mut() {
                last.lines.end = index;
            }
            blocks.push(Block {
                id,
                ir_block,
                lines: index + 1..allocated.len(),
                predecessors: Vec::new(),
            });
        } else if let Some(list) = text.trim().strip_prefix("; predecessors:") {
            if let Some(last) = blocks.last_mut() {
                last.predecessors = list
                    .split(',')
                    .filter_map(|b| b.trim().strip_prefix("%bb."))
                    .filter_map(|n| n.parse().ok())
                    .collect();
            }
        }
    }
    if blocks.is_empty() {
        // A dump without headers is one block.
        blocks.push(Block {
            id: 0,
            ir_block: None,
            lines: 0..allocated.len(),
            predecessors: Vec::new(),
        });
    }
    blocks
}

/// Every commutable min/max in one function's allocated code, with its operands' origins.
pub(crate) fn commuted_min_max(allocated: &[String]) -> Vec<CommutedMinMax> {
    let blocks = blocks_of(allocated);
    let code = Code {
        allocated,
        blocks: &blocks,
    };
    let mut out = Vec::new();
    for (b, block) in blocks.iter().enumerate() {
        for index in block.lines.clone() {
            let Some(inst) = parse_line(&allocated[index]) else {
                continue;
            };
            if !is_commuted_min_max(inst.opcode) {
                continue;
            }
            let origin = |operand: Option<&&str>, which: &str| match operand
                .and_then(|o| vector_register(o))
            {
                Some(r) => code.origin_of(r, b, index, &mut Trace::default()),
                None => {
                    ValueOrigin::Unknown(format!("no {which} register in `{}`", inst.text.trim()))
                }
            };
            let first = origin(inst.operands.first(), "first");
            let second = if inst.opcode.ends_with("rm") {
                if inst.operands.iter().any(|o| o.starts_with("%const.")) {
                    ValueOrigin::Constant
                } else {
                    ValueOrigin::FoldedLoad
                }
            } else {
                origin(inst.operands.get(1), "second")
            };
            out.push(CommutedMinMax {
                is_max: inst
                    .opcode
                    .strip_prefix('V')
                    .unwrap_or(inst.opcode)
                    .starts_with("MAXC"),
                opcode: inst.opcode.to_string(),
                line: inst.line,
                first,
                second,
                shuffled: [0, 1].map(|i| {
                    inst.operands
                        .get(i)
                        .and_then(|o| vector_register(o))
                        .is_some_and(|r| code.shuffled(r, b, index))
                }),
            });
        }
    }
    out
}

/// Block visits one operand's trace may make: paths through chains of branches multiply,
/// and a trace that would follow too many is given up (the min/max stays as the IR says).
const MAX_BLOCK_VISITS: usize = 4096;

/// The blocks whose ends a trace is following, and how many blocks it has visited.
#[derive(Default)]
struct Trace {
    path: Vec<usize>,
    visits: usize,
}

struct Code<'a> {
    allocated: &'a [String],
    blocks: &'a [Block],
}

impl Code<'_> {
    /// Whether the value `reg` holds before line `until` of block `b` comes from a lane
    /// shuffle in that block (through copies).
    fn shuffled(&self, mut reg: u32, b: usize, until: usize) -> bool {
        let block = &self.blocks[b];
        for text in self.allocated[block.lines.start..until].iter().rev() {
            let Some(inst) = parse_line(text) else {
                continue;
            };
            if !inst.defs.contains(&reg) {
                continue;
            }
            match inst.operands.first().and_then(|o| vector_register(o)) {
                Some(from) if inst.opcode == "COPY" => reg = from,
                _ => return is_lane_shuffle(inst.opcode),
            }
        }
        false
    }

    /// The origin of the value register `reg` holds just before line `until` of block `b`.
    /// Values entering a block are traced into every predecessor, and must agree; a path
    /// back into a block whose end is already being traced carries that value in
    /// unchanged, so it is left out.
    fn origin_of(&self, mut reg: u32, b: usize, until: usize, trace: &mut Trace) -> ValueOrigin {
        trace.visits += 1;
        if trace.visits > MAX_BLOCK_VISITS {
            return ValueOrigin::Unknown(format!(
                "%xmm{reg} flows through more than {MAX_BLOCK_VISITS} blocks"
            ));
        }
        let block = &self.blocks[b];
        for text in self.allocated[block.lines.start..until].iter().rev() {
            let Some(inst) = parse_line(text) else {
                continue;
            };
            if inst.opcode.starts_with("CALL") {
                // Calls clobber every vector register; only a returned value in %xmm0 is known.
                return match (reg, inst.line) {
                    (0, Some(line)) if inst.defs.contains(&0) => ValueOrigin::Instruction(line),
                    _ => ValueOrigin::Unknown(format!("%xmm{reg} is clobbered by a call")),
                };
            }
            if !inst.defs.contains(&reg) {
                continue;
            }
            if inst.opcode == "COPY" || inst.opcode.trim_start_matches('V').starts_with("MOVAP") {
                match inst.operands.first().and_then(|o| vector_register(o)) {
                    Some(from) if inst.operands.len() == 1 => {
                        reg = from;
                        continue;
                    }
                    _ => {
                        return ValueOrigin::Unknown(format!(
                            "copy from a non-vector register: `{}`",
                            inst.text.trim()
                        ))
                    }
                }
            }
            if inst.opcode.contains("FLD0") || inst.opcode.contains("SET0") {
                return ValueOrigin::Constant;
            }
            if inst.opcode.ends_with("rm") && inst.operands.iter().any(|o| o.starts_with("%const."))
            {
                return ValueOrigin::Constant;
            }
            return match inst.line {
                Some(line) => ValueOrigin::Instruction(line),
                None => ValueOrigin::Unknown(format!(
                    "defined without a debug line: `{}`",
                    inst.text.trim()
                )),
            };
        }
        if b == 0 {
            return ValueOrigin::ArgumentRegister(reg);
        }
        if block.predecessors.is_empty() {
            return ValueOrigin::Unknown(format!("%xmm{reg} enters a block without predecessors"));
        }
        // Only whole blocks go on the path: a loop back into the block of the reader
        // brings the value its tail defines.
        let whole = until == block.lines.end;
        if whole {
            trace.path.push(b);
        }
        let origin = self.entering(reg, block, trace);
        if whole {
            trace.path.pop();
        }
        origin
    }

    /// The origin of the value `reg` holds on entry to `block`, from all its predecessors.
    fn entering(&self, reg: u32, block: &Block, trace: &mut Trace) -> ValueOrigin {
        let mut agreed: Option<ValueOrigin> = None;
        for p in &block.predecessors {
            let Some(pb) = self.blocks.iter().position(|x| x.id == *p) else {
                return ValueOrigin::Unknown(format!("predecessor bb.{p} is not in the dump"));
            };
            if trace.path.contains(&pb) {
                continue;
            }
            let o = self.origin_of(reg, pb, self.blocks[pb].lines.end, trace);
            match &agreed {
                _ if matches!(o, ValueOrigin::Unknown(_)) => return o,
                Some(a) if *a != o => {
                    return match &block.ir_block {
                        Some(tag) => ValueOrigin::PhiOf(*tag),
                        None => ValueOrigin::Unknown(format!(
                            "%xmm{reg} holds different values on the paths into bb.{}, \
                             which has no IR block",
                            block.id
                        )),
                    }
                }
                _ => agreed = Some(o),
            }
        }
        agreed.unwrap_or_else(|| {
            ValueOrigin::Unknown(format!("%xmm{reg} only loops into bb.{}", block.id))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// heronf's first swaps at -O3 -ffast-math, as dumped after the rewriter (tagged lines).
    const HERONF: &str = "\
0B\tbb.0 (%ir-block.3):
\t  liveins: $xmm0, $xmm1, $xmm2
64B\t  renamable $xmm3 = COPY renamable $xmm0, debug-location !9; fpscout-tags:2:1
80B\t  renamable $xmm3 = nofpexcept MINCSSrr killed renamable $xmm3(tied-def 0), renamable $xmm1, implicit $mxcsr, debug-instr-number 5, debug-location !9; fpscout-tags:2:1
112B\t  renamable $xmm1 = nofpexcept MAXCSSrr killed renamable $xmm1(tied-def 0), killed renamable $xmm0, implicit $mxcsr, debug-location !10; fpscout-tags:3:1
176B\t  renamable $xmm1 = nofpexcept MAXCSSrr killed renamable $xmm1(tied-def 0), killed renamable $xmm2, implicit $mxcsr, debug-location !12; fpscout-tags:6:1
208B\t  renamable $xmm2 = nofpexcept MINCSSrm killed renamable $xmm2(tied-def 0), $rip, 1, $noreg, %const.0, $noreg, implicit $mxcsr, debug-location !13 :: (load (s32) from constant-pool); fpscout-tags:7:1
240B\t  CALL64pcrel32 &sqrtf, <regmask $bh $bl>, implicit $rsp, implicit $xmm0, implicit-def $rsp, implicit-def $xmm0, debug-location !14; fpscout-tags:8:1
272B\t  renamable $xmm0 = nofpexcept MAXCSSrr killed renamable $xmm0(tied-def 0), renamable $xmm1, implicit $mxcsr, debug-location !15; fpscout-tags:9:1
288B\tbb.1:
\t; predecessors: %bb.0
304B\t  renamable $xmm0 = nofpexcept MINCSSrr killed renamable $xmm0(tied-def 0), renamable $xmm1, implicit $mxcsr, debug-location !16; fpscout-tags:10:1
312B\t  renamable $xmm2 = nofpexcept SUBSSrr killed renamable $xmm2(tied-def 0), renamable $xmm0, implicit $mxcsr, debug-location !19; fpscout-tags:13:1
320B\tbb.2.t4 (align 16):
\t; predecessors: %bb.1, %bb.2, %bb.3
336B\t  renamable $xmm5 = nofpexcept MINCSSrr killed renamable $xmm0(tied-def 0), renamable $xmm2, implicit $mxcsr, debug-location !17; fpscout-tags:11:1
352B\t  renamable $xmm2 = nofpexcept ADDSSrr killed renamable $xmm2(tied-def 0), renamable $xmm2, implicit $mxcsr, debug-location !18; fpscout-tags:12:1
368B\tbb.3:
\t; predecessors: %bb.1
384B\t  renamable $xmm2 = nofpexcept MULSSrr killed renamable $xmm2(tied-def 0), renamable $xmm2, implicit $mxcsr, debug-location !20; fpscout-tags:14:1
400B\tbb.4:
\t; predecessors: %bb.3, %bb.1
416B\t  renamable $xmm2 = nofpexcept MINCSSrr killed renamable $xmm2(tied-def 0), renamable $xmm0, implicit $mxcsr, debug-location !21; fpscout-tags:15:1
";

    /// The IR instruction the tagged build's debug line `n` names.
    fn line(n: u32) -> Tag {
        Tag::Instruction(n - 1)
    }

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    #[test]
    fn operands_are_traced_through_copies_to_arguments_and_definitions() {
        let found = commuted_min_max(&lines(HERONF));
        let brief: Vec<(bool, Option<Tag>, ValueOrigin, ValueOrigin)> = found
            .into_iter()
            .map(|m| (m.is_max, m.line, m.first, m.second))
            .collect();
        use ValueOrigin::*;
        assert_eq!(
            brief[0],
            (
                false,
                Some(line(2)),
                ArgumentRegister(0),
                ArgumentRegister(1)
            )
        );
        assert_eq!(
            brief[1],
            (
                true,
                Some(line(3)),
                ArgumentRegister(1),
                ArgumentRegister(0)
            )
        );
        // %xmm1 now holds the maximum computed at line 3.
        assert_eq!(
            brief[2],
            (
                true,
                Some(line(6)),
                Instruction(line(3)),
                ArgumentRegister(2)
            )
        );
        assert_eq!(
            brief[3],
            (false, Some(line(7)), ArgumentRegister(2), Constant)
        );
        // After a call only its result register is known.
        assert_eq!(brief[4].2, Instruction(line(8)));
        assert!(matches!(&brief[4].3, Unknown(why) if why.contains("call")));
        // Values entering a block come from its predecessors.
        assert_eq!(brief[5].2, Instruction(line(9)));
        // Through a loop: %xmm0 is the same on every path, %xmm2 is not (the loop adds):
        // a phi of the IR block.
        assert_eq!(brief[6].2, Instruction(line(10)));
        assert_eq!(brief[6].3, PhiOf(Tag::Block(4)));
        assert_eq!(brief.len(), 8);
        // Without an IR block to name, a merge is not readable.
        assert!(matches!(&brief[7].2, Unknown(why) if why.contains("no IR block")));
    }

    #[test]
    fn a_reductions_shuffled_half_is_recognised() {
        // fmaxv's `vector.reduce.fmax` of <4 x float> at -O3 -ffast-math (line 9).
        let dump = "\
896B\t  renamable $xmm0 = nofpexcept MAXCPSrr killed renamable $xmm0(tied-def 0), killed renamable $xmm1, debug-location !4; fpscout-tags:8:1
912B\t  renamable $xmm1 = COPY renamable $xmm0, debug-location !5; fpscout-tags:9:1
928B\t  renamable $xmm1 = UNPCKHPDrr killed renamable $xmm1(tied-def 0), renamable $xmm1, debug-location !5; fpscout-tags:9:1
960B\t  renamable $xmm1 = nofpexcept MAXCPSrr killed renamable $xmm1(tied-def 0), killed renamable $xmm0, debug-location !5; fpscout-tags:9:1
976B\t  renamable $xmm0 = COPY renamable $xmm1, debug-location !5; fpscout-tags:9:1
992B\t  renamable $xmm0 = SHUFPSrri killed renamable $xmm0(tied-def 0), renamable $xmm0, 85, debug-location !5; fpscout-tags:9:1
1024B\t  renamable $xmm0 = nofpexcept MAXCSSrr killed renamable $xmm0(tied-def 0), killed renamable $xmm1, debug-location !5; fpscout-tags:9:1
";
        let found = commuted_min_max(&lines(dump));
        let shuffled: Vec<(Option<Tag>, [bool; 2])> =
            found.iter().map(|m| (m.line, m.shuffled)).collect();
        assert_eq!(
            shuffled,
            [
                (Some(line(8)), [false, false]),
                (Some(line(9)), [true, false]),
                (Some(line(9)), [true, false])
            ]
        );
    }

    /// `diamonds` if/else diamonds in a row, then a minimum of the two argument registers.
    fn diamonds(diamonds: u32) -> Vec<String> {
        let mut out = vec!["bb.0:".to_string()];
        let mut join = 0;
        for i in 1..=diamonds {
            let (left, right, next) = (3 * i - 2, 3 * i - 1, 3 * i);
            out.push(format!("bb.{left}:\n; predecessors: %bb.{join}"));
            out.push(format!("bb.{right}:\n; predecessors: %bb.{join}"));
            out.push(format!(
                "bb.{next}:\n; predecessors: %bb.{left}, %bb.{right}"
            ));
            join = next;
        }
        out.push(
            "  $xmm0 = MINCSSrr $xmm0(tied-def 0), $xmm1, debug-location !3; t:1:1".to_string(),
        );
        out.join("\n").lines().map(str::to_string).collect()
    }

    #[test]
    fn traces_through_many_paths_are_given_up() {
        let few = commuted_min_max(&diamonds(3));
        assert_eq!(few[0].first, ValueOrigin::ArgumentRegister(0));
        // 2^14 paths: the trace stops instead of following each one.
        let many = commuted_min_max(&diamonds(14));
        assert!(
            matches!(&many[0].first, ValueOrigin::Unknown(why) if why.contains("more than")),
            "{:?}",
            many[0].first
        );
    }

    #[test]
    fn only_commutable_min_and_max_count() {
        assert!(is_commuted_min_max("MINCSSrr"));
        assert!(is_commuted_min_max("VMAXCPDYrr"));
        assert!(!is_commuted_min_max("MINSSrr"));
        assert!(!is_commuted_min_max("MAXPDrr"));
        assert!(!is_commuted_min_max("MULSSrr"));
    }
}
