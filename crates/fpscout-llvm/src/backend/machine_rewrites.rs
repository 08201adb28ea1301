//! Reads what LLVM's MachineCombiner rewrote after instruction selection, which no model of the IR can see.
//!
//! On x86-64 the MachineCombiner reassociates chains of `reassoc` additions and
//! multiplications by their latency in the scheduling model (turbine1's `((w*w)*t)*r²`
//! executes as `((w*w)*r²)*t`). The compiler itself says what it changed: clang prints each
//! function's machine code before and after the pass
//! (`-print-before/-print-after=machine-combiner`); instructions present on one side only
//! are the rewritten ones. Unchanged instructions print identically (the pass renumbers
//! nothing), so the comparison is textual. To model a rewrite, the front end compiles a
//! copy of the IR whose instructions carry their own [`Tag`] as debug line
//! ([`Reassociation`]): the rewritten machine instructions then name the IR instructions
//! they came from, and their virtual registers say how the operands moved.

use super::dumps::{debug_line, FunctionDump};
use super::min_max_origins::is_commuted_min_max;
use super::tag::Tag;
use std::collections::BTreeMap;

/// What the MachineCombiner changed in one function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MachineRewrite {
    /// The function's symbol (linkage name).
    pub(crate) function: String,
    /// Machine instructions removed or created by the pass.
    pub(crate) instructions: usize,
    /// Source locations (`file:line:col`) of those instructions, where LLVM kept one.
    pub(crate) locations: Vec<String>,
}

impl FunctionDump {
    /// The floating-point instructions the pass rewrote (see [`Reassociation`]).
    pub(crate) fn reassociation(&self) -> Reassociation {
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
pub(crate) struct Reassociation {
    pub(crate) removed: Vec<MirInst>,
    pub(crate) added: Vec<MirInst>,
    /// Every register definition before the pass, by register.
    pub(crate) defs: BTreeMap<u32, MirInst>,
}

/// A machine instruction defining one virtual register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MirInst {
    /// The virtual register defined (`%16`).
    pub(crate) dest: u32,
    /// Target opcode (`MULSDrr`, `COPY`, `ADDPSrr`).
    pub(crate) opcode: String,
    /// Virtual-register operands in order (physical registers and immediates omitted).
    pub(crate) sources: Vec<u32>,
    /// The IR instruction its debug line names in a tagged build.
    pub(crate) line: Option<Tag>,
}

impl MirInst {
    /// Parses `%16:fr64 = nnan ... MULSDrr killed %29:fr64(tied-def 0), %12:fr64, implicit
    /// $mxcsr, debug-location !47; file:12:1`.
    pub(crate) fn parse(line: &str) -> Option<MirInst> {
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
        let line = debug_line(line).and_then(Tag::from_debug_line);
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

/// The functions of parsed dumps whose floating-point code the backend rewrote: the
/// MachineCombiner reassociated it, or it holds commutable min/max instructions.
pub(crate) fn rewrites_of(dumps: &BTreeMap<String, FunctionDump>) -> Vec<MachineRewrite> {
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
    use super::super::dumps::parse_dumps;
    use super::*;
    use fpscout_toolchain::{BuildFlags, BuildKind, SourceSet, Toolchain};

    /// Reads clang's before/after dumps (its stderr) into the functions the pass changed.
    fn rewrites_from_dumps(stderr: &str) -> Vec<MachineRewrite> {
        rewrites_of(&parse_dumps(stderr))
    }

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
        assert_eq!(i.line, Some(Tag::Instruction(11)));
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
        assert_eq!(r.removed[0].line, Some(Tag::Instruction(2)));
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
    fn no_dumps_means_no_rewrites() {
        assert!(rewrites_from_dumps("warning: something else\n").is_empty());
    }

    /// The functions whose machine code the backend rewrote when `text` is compiled as
    /// `build` with `flags`, read from real clang-19 dumps.
    fn rewrites(text: &str, flags: &BuildFlags, build: BuildKind) -> Vec<MachineRewrite> {
        let dir = tempfile::tempdir().expect("temporary directory");
        let src = dir.path().join("f.c");
        std::fs::write(&src, text).expect("source written");
        let tc = Toolchain::discover().expect("clang-19");
        let dumps =
            super::super::dumps::executable_dumps(&tc, &SourceSet::single(&src), build, flags)
                .expect("compiles");
        rewrites_of(&dumps)
    }

    const TURBINE1: &str = "double turbine1(double v, double w, double r) {\n  return ((3.0 + (2.0 / (r * r))) - (((0.125 * (3.0 - (2.0 * v))) * (((w * w) * r) * r)) / (1.0 - v))) - 4.5;\n}\n";
    const CHAIN: &str =
        "double chain(double a, double b, double c, double d) {\n  return ((a * b) * c) * d;\n}\n";

    #[test]
    fn fast_math_chains_are_reassociated_after_instruction_selection() {
        let fast = BuildFlags::default();
        let r = rewrites(TURBINE1, &fast, BuildKind::PPrime);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].function, "turbine1");
        // One multiplication pair replaced by another: two instructions out, two in.
        assert_eq!(r[0].instructions, 4, "{r:?}");
        // ((a*b)*c)*d runs as (a*b)*(c*d), with the source line of the chain.
        let r = rewrites(CHAIN, &fast, BuildKind::PPrime);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].function, "chain");
        assert!(
            r[0].locations.iter().all(|l| l.starts_with("f.c:2:")),
            "{r:?}"
        );
    }

    #[test]
    fn builds_without_reassoc_are_left_alone() {
        assert!(rewrites(TURBINE1, &BuildFlags::default(), BuildKind::P).is_empty());
        let strict = BuildFlags::with_p_prime("-O3");
        assert!(rewrites(CHAIN, &strict, BuildKind::PPrime).is_empty());
        let no_chain = "double g(double a, double b) { return a / b; }\n";
        assert!(rewrites(no_chain, &BuildFlags::default(), BuildKind::PPrime).is_empty());
    }
}
