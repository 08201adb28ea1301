//! Reads what LLVM's MachineCombiner rewrote after instruction selection, which no model of the IR can see.
//!
//! On x86-64 the MachineCombiner reassociates chains of `reassoc` additions and
//! multiplications by their latency in the scheduling model (turbine1's `((w*w)*t)*r²`
//! executes as `((w*w)*r²)*t`). The compiler itself says what it changed: clang prints each
//! function's machine code before and after the pass
//! (`-print-before/-print-after=machine-combiner`); instructions present on one side only
//! are the rewritten ones. Unchanged instructions print identically (the pass renumbers
//! nothing), so the comparison is textual. To model a rewrite, the front end compiles a
//! copy of the IR whose instructions carry their own index as debug line
//! ([`Reassociation`]): the rewritten machine instructions then name the IR instructions
//! they came from, and their virtual registers say how the operands moved.

use crate::commuted_min_max::{
    debug_line, is_commuted_min_max, without_slot_index, CommutedMinMax,
};
use std::collections::BTreeMap;

/// What the MachineCombiner changed in one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineRewrite {
    /// The function's symbol (linkage name).
    pub function: String,
    /// Machine instructions removed or created by the pass.
    pub instructions: usize,
    /// Source locations (`file:line:col`) of those instructions, where LLVM kept one.
    pub locations: Vec<String>,
}

const BEFORE: &str = "# *** IR Dump Before Machine InstCombiner (machine-combiner) ***:";
const AFTER: &str = "# *** IR Dump After Machine InstCombiner (machine-combiner) ***:";
const ALLOCATED: &str = "# *** IR Dump After Virtual Register Rewriter (virtregrewriter) ***:";

/// One function's machine code before and after the MachineCombiner, and after register
/// allocation, without the debug-value pseudo instructions (they only describe variables).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionDump {
    pub before: Vec<String>,
    pub after: Vec<String>,
    /// After the virtual register rewriter: where commutable operations' operands landed.
    pub allocated: Vec<String>,
}

impl FunctionDump {
    /// Whether `other` is the same machine code, debug annotations aside: the tagged
    /// compilation of the front end must produce exactly the executable's code.
    pub fn same_code(&self, other: &FunctionDump) -> bool {
        let norm = |lines: &[String]| -> Vec<String> {
            lines.iter().filter_map(|l| without_debug_info(l)).collect()
        };
        norm(&self.before) == norm(&other.before)
            && norm(&self.after) == norm(&other.after)
            && norm(&self.allocated) == norm(&other.allocated)
    }

    /// The commutable minimums and maximums of the allocated code (see
    /// [`crate::commuted_min_max`]).
    pub fn commuted_min_max(&self) -> Vec<CommutedMinMax> {
        crate::commuted_min_max::commuted_min_max(&self.allocated)
    }

    /// The floating-point instructions the pass rewrote (see [`Reassociation`]).
    pub fn reassociation(&self) -> Reassociation {
        let before: Vec<&str> = self.before.iter().map(String::as_str).collect();
        let after: Vec<&str> = self.after.iter().map(String::as_str).collect();
        let parse = |lines: Vec<&str>| -> Vec<MirInst> {
            lines
                .into_iter()
                .filter(|l| l.contains(" reassoc "))
                .filter_map(MirInst::parse)
                .collect()
        };
        let mut removed = parse(only_in(&before, &after));
        let mut added = parse(only_in(&after, &before));
        // Lines that differ only in kill flags are the same instruction.
        removed.retain(|r| match added.iter().position(|a| a.same_operation(r)) {
            Some(i) => {
                added.remove(i);
                false
            }
            None => true,
        });
        let defs = before
            .iter()
            .filter_map(|l| MirInst::parse(l))
            .map(|i| (i.dest, i))
            .collect();
        Reassociation {
            removed,
            added,
            defs,
        }
    }
}

/// The instructions a MachineCombiner run replaced in one function, in program order.
/// `B = A op X; C = B op Y` becomes `B' = X op Y; C = A op B'`: each new instruction takes
/// the debug location of the one it replaces, and the root keeps its register.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reassociation {
    pub removed: Vec<MirInst>,
    pub added: Vec<MirInst>,
    /// Every register definition before the pass, by register.
    pub defs: BTreeMap<u32, MirInst>,
}

/// A machine instruction defining one virtual register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MirInst {
    /// The virtual register defined (`%16`).
    pub dest: u32,
    /// Target opcode (`MULSDrr`, `COPY`, `ADDPSrr`).
    pub opcode: String,
    /// Virtual-register operands in order (physical registers and immediates omitted).
    pub sources: Vec<u32>,
    /// The debug line of the instruction (the IR instruction index in a tagged build).
    pub line: Option<u32>,
}

impl MirInst {
    /// Parses `%16:fr64 = nnan ... MULSDrr killed %29:fr64(tied-def 0), %12:fr64, implicit
    /// $mxcsr, debug-location !47; file:12:1`.
    pub fn parse(line: &str) -> Option<MirInst> {
        let (lhs, rhs) = line.trim().split_once(" = ")?;
        let dest = vreg(lhs)?;
        let body = rhs.split(", debug-location").next().unwrap_or(rhs);
        let body = body.split(" :: ").next().unwrap_or(body);
        let mut words = body.split_whitespace();
        let opcode = words
            .by_ref()
            .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_uppercase()))?
            .to_string();
        let rest: Vec<&str> = words.collect();
        let sources = rest
            .join(" ")
            .split(',')
            .map(str::trim)
            .take_while(|op| !op.starts_with("implicit") && !op.starts_with("debug-"))
            .filter_map(|op| op.split_whitespace().find_map(vreg))
            .collect();
        let line = debug_line(line);
        Some(MirInst {
            dest,
            opcode,
            sources,
            line,
        })
    }

    fn same_operation(&self, other: &MirInst) -> bool {
        self.dest == other.dest
            && self.opcode == other.opcode
            && self.sources == other.sources
            && self.line == other.line
    }
}

/// `%29:fr64(tied-def 0)` → 29.
fn vreg(operand: &str) -> Option<u32> {
    let digits: String = operand
        .trim()
        .strip_prefix('%')?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// A machine instruction line without debug annotations, `None` for debug pseudo
/// instructions. Memory-operand notes go too: they name metadata by number.
fn without_debug_info(line: &str) -> Option<String> {
    if line.contains("DBG_VALUE") || line.contains("DBG_INSTR_REF") || line.contains("DBG_PHI") {
        return None;
    }
    let mut l = line.split(" :: ").next().unwrap_or(line).to_string();
    if let Some(i) = l.find(", debug-location") {
        l.truncate(i);
    }
    if let Some(i) = l.find("debug-location") {
        l.truncate(i);
    }
    if let Some(i) = l.find(", debug-instr-number") {
        let tail = &l[i + ", debug-instr-number".len()..];
        let skip = tail
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .count();
        let after = tail.trim_start()[skip..].to_string();
        l.truncate(i);
        l.push_str(&after);
    }
    Some(without_ir_block_numbers(l.trim_end()))
}

/// Block headers name their IR block (`bb.5 (%ir-block.33):`, `bb.5.t4 (align 16):`), by
/// slot numbers that debug intrinsics shift or by the names the tagged copy gives: only
/// the machine block number and its other attributes are code.
fn without_ir_block_numbers(line: &str) -> String {
    let unslotted = without_slot_index(line);
    let head = &line[..line.len() - unslotted.len()];
    let Some(rest) = unslotted.strip_prefix("bb.") else {
        return line.to_string();
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || !line.trim_end().ends_with(':') {
        return line.to_string();
    }
    let attributes: Vec<&str> = rest
        .find('(')
        .and_then(|open| Some((open, rest.rfind(')')?)))
        .map(|(open, close)| {
            rest[open + 1..close]
                .split(',')
                .map(str::trim)
                .filter(|a| !a.starts_with("%ir-block"))
                .collect()
        })
        .unwrap_or_default();
    if attributes.is_empty() {
        format!("{head}bb.{}:", &rest[..digits])
    } else {
        format!("{head}bb.{} ({}):", &rest[..digits], attributes.join(", "))
    }
}

/// Reads clang's dumps (its stderr), by function symbol.
pub fn parse_dumps(stderr: &str) -> BTreeMap<String, FunctionDump> {
    let mut out: BTreeMap<String, FunctionDump> = BTreeMap::new();
    let mut lines = stderr.lines();
    while let Some(line) = lines.next() {
        let which = match line.trim_end() {
            BEFORE => Which::Before,
            AFTER => Which::After,
            ALLOCATED => Which::Allocated,
            _ => continue,
        };
        let Some(name) = lines
            .next()
            .and_then(|l| l.strip_prefix("# Machine code for function "))
            .and_then(|l| l.split(':').next())
        else {
            continue;
        };
        let body: Vec<String> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("# End machine code for function"))
            .filter(|l| !l.contains("DBG_VALUE") && !l.trim().is_empty())
            .map(str::to_string)
            .collect();
        let entry = out.entry(name.to_string()).or_default();
        match which {
            Which::Before => entry.before = body,
            Which::After => entry.after = body,
            Which::Allocated => entry.allocated = body,
        }
    }
    out
}

enum Which {
    Before,
    After,
    Allocated,
}

/// Reads clang's before/after dumps (its stderr) into the functions the pass changed.
pub fn rewrites_from_dumps(stderr: &str) -> Vec<MachineRewrite> {
    rewrites_of(&parse_dumps(stderr))
}

/// The functions of parsed dumps whose floating-point code the backend rewrote: the
/// MachineCombiner reassociated it, or it holds commutable min/max instructions.
pub fn rewrites_of(dumps: &BTreeMap<String, FunctionDump>) -> Vec<MachineRewrite> {
    let mut out = Vec::new();
    for (name, dump) in dumps {
        let old: Vec<&str> = dump.before.iter().map(String::as_str).collect();
        let new: Vec<&str> = dump.after.iter().map(String::as_str).collect();
        // Only floating-point instructions carry the `reassoc` flag; reassociated integer
        // arithmetic computes the same bits.
        let mut changed: Vec<&str> = one_sided(&old, &new)
            .into_iter()
            .filter(|l| l.contains(" reassoc "))
            .collect();
        // Commutable min/max take their operand order from register allocation.
        changed.extend(
            dump.allocated
                .iter()
                .filter(|l| commuted_opcode(l))
                .map(String::as_str),
        );
        if changed.is_empty() {
            continue;
        }
        let mut locations: Vec<String> = changed.iter().filter_map(|l| location(l)).collect();
        locations.sort();
        locations.dedup();
        out.push(MachineRewrite {
            function: name.clone(),
            instructions: changed.len(),
            locations,
        });
    }
    out
}

fn commuted_opcode(line: &str) -> bool {
    line.split_whitespace()
        .any(|w| w.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && is_commuted_min_max(w))
}

/// Lines of `a` and `b` that the other side lacks (as multisets).
fn one_sided<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<&'a str> {
    let mut count: BTreeMap<&str, i64> = BTreeMap::new();
    for l in a {
        *count.entry(l).or_default() += 1;
    }
    for l in b {
        *count.entry(l).or_default() -= 1;
    }
    let mut out = Vec::new();
    for (l, n) in count {
        for _ in 0..n.unsigned_abs() {
            out.push(l);
        }
    }
    out
}

/// Lines of `a` that `b` lacks (as multisets), in the order of `a`.
fn only_in<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<&'a str> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for l in b {
        *count.entry(l).or_default() += 1;
    }
    a.iter()
        .copied()
        .filter(|l| match count.get_mut(l) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

/// The `; file:line:col` clang appends to instructions that carry a debug location.
fn location(line: &str) -> Option<String> {
    if !line.contains("debug-location") {
        return None;
    }
    let loc = line.rsplit("; ").next()?.trim();
    let mut parts = loc.rsplitn(3, ':');
    let (col, row) = (parts.next()?, parts.next()?);
    let file = parts.next()?;
    let ok = col.parse::<u32>().is_ok() && row.parse::<u32>().is_ok();
    let short = std::path::Path::new(file).file_name()?.to_string_lossy();
    ok.then(|| format!("{short}:{row}:{col}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = "\
# *** IR Dump Before Machine InstCombiner (machine-combiner) ***:
# Machine code for function f: IsSSA, TracksLiveness
bb.0 (%ir-block.3):
  %13:fr64 = reassoc MULSDrr %1:fr64(tied-def 0), %1:fr64, implicit $mxcsr
  %14:fr64 = reassoc MULSDrr %13:fr64(tied-def 0), killed %12:fr64, implicit $mxcsr, debug-location !7; /src/t.c:3:40
  %16:fr64 = reassoc MULSDrr %14:fr64(tied-def 0), killed %15:fr64, implicit $mxcsr
  DBG_VALUE %16:fr64, $noreg, !1
  RET 0, $xmm0
# End machine code for function f.

# *** IR Dump After Machine InstCombiner (machine-combiner) ***:
# Machine code for function f: IsSSA, TracksLiveness
bb.0 (%ir-block.3):
  %13:fr64 = reassoc MULSDrr %1:fr64(tied-def 0), %1:fr64, implicit $mxcsr
  %29:fr64 = reassoc MULSDrr %13:fr64(tied-def 0), killed %15:fr64, implicit $mxcsr, debug-location !7; /src/t.c:3:40
  %16:fr64 = reassoc MULSDrr killed %29:fr64(tied-def 0), killed %12:fr64, implicit $mxcsr
  RET 0, $xmm0
# End machine code for function f.

# *** IR Dump Before Machine InstCombiner (machine-combiner) ***:
# Machine code for function g: IsSSA, TracksLiveness
  RET 0, $xmm0
# End machine code for function g.
# *** IR Dump After Machine InstCombiner (machine-combiner) ***:
# Machine code for function g: IsSSA, TracksLiveness
  RET 0, $xmm0
# End machine code for function g.
# *** IR Dump Before Machine InstCombiner (machine-combiner) ***:
# Machine code for function h: IsSSA, TracksLiveness
  %3:gr32 = nsw ADD32rr %1:gr32(tied-def 0), %0:gr32, implicit-def dead $eflags
  %4:gr32 = nsw ADD32rr %3:gr32(tied-def 0), %2:gr32, implicit-def dead $eflags
# End machine code for function h.
# *** IR Dump After Machine InstCombiner (machine-combiner) ***:
# Machine code for function h: IsSSA, TracksLiveness
  %5:gr32 = nsw ADD32rr %0:gr32(tied-def 0), %2:gr32, implicit-def dead $eflags
  %4:gr32 = nsw ADD32rr %5:gr32(tied-def 0), %1:gr32, implicit-def dead $eflags
# End machine code for function h.
";

    #[test]
    fn rewritten_instructions_and_their_locations_are_found_integer_ones_ignored() {
        let r = rewrites_from_dumps(DUMP);
        assert_eq!(
            r,
            vec![MachineRewrite {
                function: "f".into(),
                instructions: 4,
                locations: vec!["t.c:3:40".into()],
            }]
        );
    }

    #[test]
    fn machine_instructions_are_read_with_their_registers_and_line() {
        let i = MirInst::parse(
            "  %16:fr64 = nnan ninf nsz arcp contract afn reassoc nofpexcept MULSDrr killed %29:fr64(tied-def 0), %12:fr64, implicit $mxcsr, debug-instr-number 7, debug-location !47; tags:12:1",
        )
        .expect("an instruction");
        assert_eq!(i.dest, 16);
        assert_eq!(i.opcode, "MULSDrr");
        assert_eq!(i.sources, vec![29, 12]);
        assert_eq!(i.line, Some(12));
        // Memory operands and physical registers are not register operands.
        let i = MirInst::parse(
            "  %12:fr64 = reassoc nofpexcept ADDSDrm %11:fr64(tied-def 0), $rip, 1, $noreg, %const.2, $noreg, implicit $mxcsr :: (load (s64) from constant-pool)",
        )
        .expect("an instruction");
        assert_eq!(
            (i.opcode.as_str(), i.sources, i.line),
            ("ADDSDrm", vec![11], None)
        );
        assert_eq!(MirInst::parse("  RET 0, $xmm0"), None);
        assert_eq!(MirInst::parse("bb.0 (%ir-block.3):"), None);
    }

    #[test]
    fn a_reassociation_lists_replaced_and_new_instructions_in_order() {
        let dumps = parse_dumps(DUMP);
        let r = dumps["f"].reassociation();
        let brief = |v: &[MirInst]| -> Vec<(u32, Vec<u32>)> {
            v.iter().map(|i| (i.dest, i.sources.clone())).collect()
        };
        assert_eq!(
            brief(&r.removed),
            vec![(14, vec![13, 12]), (16, vec![14, 15])]
        );
        assert_eq!(
            brief(&r.added),
            vec![(29, vec![13, 15]), (16, vec![29, 12])]
        );
        assert_eq!(r.removed[0].line, Some(3));
        assert_eq!(r.defs[&13].sources, vec![1, 1]);
        // Integer reassociation computes the same bits: nothing to model.
        let h = dumps["h"].reassociation();
        assert!(h.removed.is_empty() && h.added.is_empty());
        // Kill flags alone do not make an instruction rewritten.
        let kills = FunctionDump {
            before: vec!["  %5:fr64 = reassoc ADDSDrr %1:fr64(tied-def 0), killed %2:fr64".into()],
            after: vec!["  %5:fr64 = reassoc ADDSDrr %1:fr64(tied-def 0), %2:fr64".into()],
            allocated: vec![],
        };
        assert_eq!(kills.reassociation().removed, vec![]);
    }

    #[test]
    fn same_code_ignores_debug_annotations_only() {
        let a = FunctionDump {
            before: vec![
                "  %3:fr64 = MULSDrr %1:fr64(tied-def 0), %2:fr64, debug-instr-number 2, debug-location !9; a.c:1:2".into(),
                "  DBG_INSTR_REF !\"2\", !DIExpression(DW_OP_LLVM_arg, 0), dbg-instr-ref(2, 0)".into(),
                "  %4:fr64 = MOVSDrm $rip, 1, $noreg, %const.0, $noreg :: (load (s64) from constant-pool, !tbaa !7)".into(),
            ],
            after: vec!["  RET 0, $xmm0, debug-location !12; a.c:2:3".into()],
            allocated: vec![],
        };
        let b = FunctionDump {
            before: vec![
                "  %3:fr64 = MULSDrr %1:fr64(tied-def 0), %2:fr64, debug-location !40; tags:7:1".into(),
                "  %4:fr64 = MOVSDrm $rip, 1, $noreg, %const.0, $noreg :: (load (s64) from constant-pool)".into(),
            ],
            after: vec!["  RET 0, $xmm0".into()],
            allocated: vec![],
        };
        assert!(a.same_code(&b));
        // Block headers name IR blocks by slot numbers, which debug intrinsics shift.
        let headers = |n: u32| FunctionDump {
            allocated: vec![format!("864B\tbb.5 (%ir-block.{n}):")],
            ..FunctionDump::default()
        };
        assert!(headers(33).same_code(&headers(27)));
        let named = FunctionDump {
            allocated: vec!["864B\tbb.5.t3:".into()],
            ..FunctionDump::default()
        };
        assert!(headers(33).same_code(&named));
        let aligned = |h: &str| FunctionDump {
            allocated: vec![h.into()],
            ..FunctionDump::default()
        };
        assert!(aligned("bb.2 (%ir-block.9, align 16):").same_code(&aligned("bb.2.t1 (align 16):")));
        assert!(!aligned("bb.2.t1 (align 16):").same_code(&aligned("bb.3.t1 (align 16):")));
        let mut c = b.clone();
        c.before[0] = c.before[0].replace("%2:fr64", "%1:fr64");
        assert!(!a.same_code(&c));
    }

    #[test]
    fn no_dumps_means_no_rewrites() {
        assert!(rewrites_from_dumps("warning: something else\n").is_empty());
    }
}
