//! clang's machine-code dumps of a build, by function: before and after the MachineCombiner and after register allocation, for the executable's objects and for the tagged copy.

use crate::Result;
use fpscout_toolchain::{BuildFlags, BuildKind, SourceSet, Toolchain};
use std::collections::BTreeMap;
use std::path::Path;

const BEFORE: &str = "# *** IR Dump Before Machine InstCombiner (machine-combiner) ***:";
const AFTER: &str = "# *** IR Dump After Machine InstCombiner (machine-combiner) ***:";
const ALLOCATED: &str = "# *** IR Dump After Virtual Register Rewriter (virtregrewriter) ***:";

/// The `-mllvm` options that make clang print [`FunctionDump`]'s three dumps.
const PRINT_OPTIONS: [&str; 3] = [
    "-print-before=machine-combiner",
    "-print-after=machine-combiner",
    "-print-after=virtregrewriter",
];

/// One function's machine code before and after the MachineCombiner, and after register
/// allocation, without the debug-value pseudo instructions (they only describe variables).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FunctionDump {
    pub(crate) before: Vec<String>,
    pub(crate) after: Vec<String>,
    /// After the virtual register rewriter: where commutable operations' operands landed.
    pub(crate) allocated: Vec<String>,
}

impl FunctionDump {
    /// Whether `other` is the same machine code, debug annotations aside: the tagged
    /// compilation must produce exactly the executable's code.
    pub(crate) fn same_code(&self, other: &FunctionDump) -> bool {
        let norm = |lines: &[String]| -> Vec<String> {
            lines.iter().filter_map(|l| without_debug_info(l)).collect()
        };
        norm(&self.before) == norm(&other.before)
            && norm(&self.after) == norm(&other.after)
            && norm(&self.allocated) == norm(&other.allocated)
    }
}

/// The dumps of every file of `sources`, each compiled with its own flags in `build`, as
/// the executable's objects are. A function defined in two files (a `static` one) keeps
/// the first file's dump.
pub(crate) fn executable_dumps(
    tc: &Toolchain,
    sources: &SourceSet,
    build: BuildKind,
    flags: &BuildFlags,
) -> Result<BTreeMap<String, FunctionDump>> {
    let mut dumps = BTreeMap::new();
    for file in &sources.files {
        let printed = tc.llvm_printout(
            &file.path,
            &flags.for_file(build, file),
            false,
            &PRINT_OPTIONS,
        )?;
        for (name, dump) in parse_dumps(&printed) {
            dumps.entry(name).or_insert(dump);
        }
    }
    Ok(dumps)
}

/// The dumps of the tagged copy at `tagged`, compiled with the flags of `build` and the IR
/// pipeline off: the copy is already optimised IR.
pub(crate) fn tagged_dumps(
    tc: &Toolchain,
    tagged: &Path,
    build: BuildKind,
    flags: &BuildFlags,
) -> Result<BTreeMap<String, FunctionDump>> {
    let printed = tc.llvm_printout(tagged, &flags.compile_flags(build), true, &PRINT_OPTIONS)?;
    Ok(parse_dumps(&printed))
}

/// Reads clang's dumps (its stderr), by function symbol.
pub(crate) fn parse_dumps(stderr: &str) -> BTreeMap<String, FunctionDump> {
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

/// The line of the `; file:line:col` clang appends after `debug-location` (a
/// [`Tag`](super::tag::Tag) in the tagged build).
pub(crate) fn debug_line(text: &str) -> Option<u32> {
    let (_, loc) = text.split_once(", debug-location")?;
    loc.rsplit("; ")
        .next()?
        .trim()
        .rsplit(':')
        .nth(1)?
        .parse()
        .ok()
}

/// A dump line without its slot index (`64B\t  renamable ...` → `renamable ...`).
pub(crate) fn without_slot_index(text: &str) -> &str {
    let t = text.trim_start();
    match t.split_once('\t') {
        Some((slot, rest))
            if slot
                .strip_suffix('B')
                .is_some_and(|n| n.parse::<u64>().is_ok()) =>
        {
            rest.trim_start()
        }
        _ => t,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn each_function_keeps_its_three_dumps() {
        let printed = "\
# *** IR Dump Before Machine InstCombiner (machine-combiner) ***:
# Machine code for function f: IsSSA, TracksLiveness
  %1:fr64 = COPY $xmm0
  DBG_VALUE %1:fr64, $noreg, !1

# End machine code for function f.
# *** IR Dump After Machine InstCombiner (machine-combiner) ***:
# Machine code for function f: IsSSA, TracksLiveness
  %2:fr64 = COPY $xmm0
# End machine code for function f.
# *** IR Dump After Virtual Register Rewriter (virtregrewriter) ***:
# Machine code for function f: NoPHIs, TracksLiveness
0B\tbb.0 (%ir-block.0):
16B\t  RET 0, $xmm0
# End machine code for function f.
f.c:1:2: warning: something else
";
        let dumps = parse_dumps(printed);
        assert_eq!(dumps.len(), 1);
        assert_eq!(dumps["f"].before, vec!["  %1:fr64 = COPY $xmm0"]);
        assert_eq!(dumps["f"].after, vec!["  %2:fr64 = COPY $xmm0"]);
        assert_eq!(
            dumps["f"].allocated,
            vec!["0B\tbb.0 (%ir-block.0):", "16B\t  RET 0, $xmm0"]
        );
        assert_eq!(
            debug_line("  RET 0, $xmm0, debug-location !12; a.c:2:3"),
            Some(2)
        );
        assert_eq!(debug_line("  RET 0, $xmm0"), None);
        assert_eq!(
            without_slot_index("64B\t  renamable $xmm3 = COPY"),
            "renamable $xmm3 = COPY"
        );
    }
}
