//! Detects what LLVM's MachineCombiner rewrote after instruction selection, which no model of the IR can see.
//!
//! On x86-64 the MachineCombiner reassociates chains of `reassoc` additions and
//! multiplications by their latency in the scheduling model (turbine1's `((w*w)*t)*r²`
//! executes as `((w*w)*r²)*t`). fpscout interprets the IR, so for such functions its P'
//! results can differ from the executable in the last bits. The compiler itself says what
//! it changed: clang prints each function's machine code before and after the pass
//! (`-print-before/-print-after=machine-combiner`); instructions present on one side only
//! are the rewritten ones. The comparison is textual on purpose: unchanged instructions
//! print identically (the pass renumbers nothing), so no machine-IR parsing is needed.

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

/// Reads clang's before/after dumps (its stderr) into the functions the pass changed.
pub fn rewrites_from_dumps(stderr: &str) -> Vec<MachineRewrite> {
    let mut before: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut after: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut lines = stderr.lines();
    while let Some(line) = lines.next() {
        let side = match line.trim_end() {
            BEFORE => &mut before,
            AFTER => &mut after,
            _ => continue,
        };
        let Some(name) = lines
            .next()
            .and_then(|l| l.strip_prefix("# Machine code for function "))
            .and_then(|l| l.split(':').next())
        else {
            continue;
        };
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("# End machine code for function"))
            // Debug-value pseudo instructions only describe variables.
            .filter(|l| !l.contains("DBG_VALUE") && !l.trim().is_empty())
            .collect();
        side.insert(name.to_string(), body);
    }
    let mut out = Vec::new();
    for (name, old) in &before {
        let Some(new) = after.get(name) else { continue };
        // Only floating-point instructions carry the `reassoc` flag; reassociated integer
        // arithmetic computes the same bits.
        let changed: Vec<&str> = one_sided(old, new)
            .into_iter()
            .filter(|l| l.contains(" reassoc "))
            .collect();
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
    fn no_dumps_means_no_rewrites() {
        assert!(rewrites_from_dumps("warning: something else\n").is_empty());
    }
}
