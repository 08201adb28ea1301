//! Every command's `--json` output read back into the typed records of `fpscout_search::records`: each line parses, the summary records carry the format version, and their values are the ones the program computes (witnesses replayed with `fpscout run`).

mod common;

use common::cli::{run, write};
use fpscout_report::report::Status;
use fpscout_search::records::{
    DiffLine, ErrorLine, ErrorProgressLine, ExceptionsLine, Input, InputValue, ProgressLine,
    ReachLine, RunLine, JSON_FORMAT,
};
use serde::de::DeserializeOwned;

/// An overflow, an assertion a division can fail, a cancellation, and a function without
/// a float result.
const SOURCE: &str = "#include <assert.h>
/* The sum overflows before the halving. */
double av1(double x, double y) { return (x + y) / 2.0; }
double ratio(double x, double y) {
  double r = x / y;
  assert(r < 1e300);
  return r;
}
double cancel(double a, double b) { return (a + b) - a; }
int sign_of(double x) { return x < 0.0 ? -1 : 1; }
";

/// Every line of `text` as a record of type `T` (the test fails on the first that is not).
fn typed<T: DeserializeOwned>(text: &str) -> Vec<T> {
    text.lines()
        .map(|line| match serde_json::from_str::<T>(line) {
            Ok(record) => record,
            Err(e) => panic!("not a {} record ({e}): {line}", std::any::type_name::<T>()),
        })
        .collect()
}

/// The progress records among the lines of stderr (notes are text).
fn progress<T: DeserializeOwned>(stderr: &str) -> Vec<T> {
    let records: String = stderr
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| format!("{l}\n"))
        .collect();
    typed(&records)
}

fn names(inputs: &[Input]) -> Vec<&str> {
    inputs.iter().map(|i| i.name.as_str()).collect()
}

fn hex(input: &Input) -> &str {
    match &input.value {
        Some(InputValue::Float { hex, .. }) => hex,
        other => panic!("{}: not a float value: {other:?}", input.name),
    }
}

/// `fpscout run` of `function` on `args`: its two records (P, P').
fn replay(src: &str, function: &str, args: &str) -> Vec<RunLine> {
    let out = run(&["run", src, "-f", function, "--args", args, "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    typed(&out.stdout)
}

#[test]
fn run_records_are_typed_and_versioned() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "four.c", SOURCE);
    let max = "0x1.fffffffffffffp+1023";
    let lines = replay(&src, "av1", &format!("{max},{max}"));
    let builds: Vec<String> = lines
        .iter()
        .map(|RunLine::Run(r)| r.build.clone())
        .collect();
    assert_eq!(builds, ["P", "P'"]);
    let RunLine::Run(p) = &lines[0];
    assert_eq!(p.format, JSON_FORMAT);
    assert_eq!(p.function, "av1");
    assert_eq!(p.result.as_deref(), Some("inf"));
    assert_eq!(p.native_result.as_deref(), Some("inf"));
    assert!(p.flags.iter().any(|f| f == "overflow"), "{p:?}");
    assert!(p.agrees, "{p:?}");
}

#[test]
fn exceptions_records_read_back_with_their_witnesses_and_the_baseline_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "four.c", SOURCE);
    let base = dir.path().join("base.jsonl").display().to_string();
    let budget = ["--time-budget", "5", "--random", "2000", "--json"];
    let mut args = vec!["exceptions", &src, "-f", "av1", "--write-baseline", &base];
    args.extend(budget);
    let out = run(&args);
    assert_eq!(out.code, 1, "findings: {}", out.stderr);
    let lines: Vec<ExceptionsLine> = typed(&out.stdout);
    let Some(ExceptionsLine::Summary(summary)) = lines.last() else {
        panic!("the summary last: {}", out.stdout);
    };
    assert_eq!(summary.format, JSON_FORMAT);
    assert_eq!(summary.function, "av1");
    let findings: Vec<_> = lines
        .iter()
        .filter_map(|l| match l {
            ExceptionsLine::Finding(f) => Some(f),
            _ => None,
        })
        .collect();
    assert_eq!(findings.len(), summary.findings);
    let overflow = findings
        .iter()
        .find(|f| f.kind == "overflow" && f.operation == "fadd")
        .unwrap_or_else(|| panic!("the sum's overflow: {}", out.stdout));
    assert_eq!(
        (overflow.line, overflow.function.as_str()),
        (Some(3), "av1")
    );
    let witness = &overflow.witnesses[0];
    assert_eq!(names(&witness.inputs), ["x", "y"]);
    let hexes: Vec<&str> = witness.inputs.iter().map(hex).collect();
    assert_eq!(witness.run_args, hexes.join(","));
    // The witness overflows on the executable, run again.
    let runs = replay(&src, "av1", &witness.run_args);
    let RunLine::Run(p) = &runs[0];
    assert!(p.native_flags.iter().any(|f| f == "overflow"), "{p:?}");
    assert!(!progress::<ProgressLine>(&out.stderr).is_empty());

    // The whole file against that baseline: av1's findings are known, a total closes.
    let mut args = vec!["exceptions", &src, "--jobs", "1", "--baseline", &base];
    args.extend(budget);
    let out = run(&args);
    assert_ne!(out.code, 2, "{}", out.stderr);
    let lines: Vec<ExceptionsLine> = typed(&out.stdout);
    let Some(ExceptionsLine::Baseline(verdict)) = lines.last() else {
        panic!("the baseline's verdict last: {}", out.stdout);
    };
    // Only av1 was in the baseline: what else was found is new.
    assert!(verdict.known >= 1, "{verdict:?}");
    assert_eq!(verdict.known + verdict.new, verdict.findings.len());
    for f in verdict.findings.iter().filter(|f| f.function != "av1") {
        assert_eq!(f.status, Status::New, "{f:?}");
    }
    let Some(ExceptionsLine::Total(total)) = lines.iter().rev().nth(1) else {
        panic!("the total before the verdict: {}", out.stdout);
    };
    assert_eq!(total.format, JSON_FORMAT);
    assert_eq!((total.functions, total.unsupported), (4, 0));
    let summaries = lines
        .iter()
        .filter(|l| matches!(l, ExceptionsLine::Summary(s) if s.format == JSON_FORMAT))
        .count();
    assert_eq!(summaries, 4);
}

#[test]
fn diff_records_read_back_and_agree_with_a_replay() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "four.c", SOURCE);
    let out = run(&["diff", &src, "-f", "av1", "--time-budget", "5", "--json"]);
    assert_ne!(out.code, 2, "{}", out.stderr);
    let lines: Vec<DiffLine> = typed(&out.stdout);
    let Some(DiffLine::Summary(summary)) = lines.last() else {
        panic!("the summary last: {}", out.stdout);
    };
    assert_eq!(summary.format, JSON_FORMAT);
    assert_eq!(summary.function, "av1");
    assert_eq!(summary.hang_limit_ms, 200);
    let findings: Vec<_> = lines
        .iter()
        .filter_map(|l| match l {
            DiffLine::Finding(f) => Some(f),
            _ => None,
        })
        .collect();
    assert_eq!(findings.len(), summary.diff_confirmed);
    let finding = findings
        .first()
        .unwrap_or_else(|| panic!("av1 differs under -ffast-math: {}", out.stdout));
    assert!(finding.confirmed);
    assert_eq!(names(&finding.inputs), ["x", "y"]);
    // Both builds' executables return what the finding says, run again.
    let args: Vec<&str> = finding.inputs.iter().map(hex).collect();
    let runs = replay(&src, "av1", &args.join(","));
    let native: Vec<Option<String>> = runs
        .iter()
        .map(|RunLine::Run(r)| r.native_result.clone())
        .collect();
    assert_eq!(
        native,
        [finding.p.result.clone(), finding.p_prime.result.clone()],
        "{finding:?}"
    );
    assert!(!progress::<ProgressLine>(&out.stderr).is_empty());
}

#[test]
fn reach_records_of_a_whole_file_read_back_with_a_total() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "four.c", SOURCE);
    let out = run(&["reach", &src, "--jobs", "1", "--time-budget", "5", "--json"]);
    assert_eq!(out.code, 1, "ratio is reachable: {}", out.stderr);
    let lines: Vec<ReachLine> = typed(&out.stdout);
    let mut answers: Vec<(String, String)> = lines
        .iter()
        .filter_map(|l| match l {
            ReachLine::Answer(a) if a.format == JSON_FORMAT => {
                Some((a.function.clone(), a.answer.clone()))
            }
            _ => None,
        })
        .collect();
    answers.sort();
    let expected = [
        ("av1", "unreachable"),
        ("cancel", "unreachable"),
        ("ratio", "reachable"),
        ("sign_of", "unreachable"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(f, a)| (f.to_string(), a.to_string()))
        .collect();
    assert_eq!(answers, expected, "{}", out.stdout);
    let witness = lines
        .iter()
        .find_map(|l| match l {
            ReachLine::Witness(w) => Some(w),
            _ => None,
        })
        .unwrap_or_else(|| panic!("ratio's witness: {}", out.stdout));
    assert_eq!(witness.function, "ratio");
    let args: Vec<&str> = witness.inputs.iter().map(hex).collect();
    let runs = replay(&src, "ratio", &args.join(","));
    let RunLine::Run(p) = &runs[0];
    assert_eq!(p.native_end, "fails assertion `r < 1e300`", "{p:?}");
    let Some(ReachLine::Total(total)) = lines.last() else {
        panic!("the total last: {}", out.stdout);
    };
    assert_eq!(total.format, JSON_FORMAT);
    assert_eq!(
        (total.functions, total.reachable, total.unreachable),
        (4, 1, 3)
    );
}

#[test]
fn error_records_read_back_with_the_worst_input_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "four.c", SOURCE);
    let out = run(&[
        "error",
        &src,
        "-f",
        "cancel",
        "--time-budget",
        "3",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<ErrorLine> = typed(&out.stdout);
    let [ErrorLine::Error(e)] = &lines[..] else {
        panic!("one error record: {}", out.stdout);
    };
    progress::<ErrorProgressLine>(&out.stderr);
    assert_eq!(e.format, JSON_FORMAT);
    assert_eq!(e.function, "cancel");
    assert!(e.bits.is_some_and(|b| b.0 > 40.0), "{e:?}");
    let inputs = e.inputs.as_deref().unwrap_or_default();
    assert_eq!(names(inputs), ["a", "b"]);
    let run_args = e.run_args.as_deref().unwrap_or_default();
    let hexes: Vec<&str> = inputs.iter().map(hex).collect();
    assert_eq!(run_args, hexes.join(","));
    let runs = replay(&src, "cancel", run_args);
    let RunLine::Run(p) = &runs[0];
    assert_eq!(p.native_result, e.computed, "{p:?}");
    let computed = e.computed.as_deref().unwrap_or_default();
    let bits = fpscout_report::args::parse_float(computed, fpscout_ir::FloatTy::F64)
        .unwrap_or_else(|_| panic!("a hex float: {computed}"));
    assert_eq!(e.computed_bits, Some(format!("{bits:#x}")));
}
