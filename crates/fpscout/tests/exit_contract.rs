//! The exit-code contract of every mode (0 nothing found, 1 findings, 2 bad input or nothing measured, 3 unknown) and the coverage line behind it, through the binary.

mod common;

use common::cli::{records, run, write, Output};
use std::path::Path;

/// A parameter no domain can take: every mode refuses it before evaluating anything.
const WIDE: &str = "double wide(long double x) { return (double)x; }\n";
/// Nothing to find in any mode: negation raises nothing and compiles alike in P and P'.
const NEGATE: &str = "double negate(double x) { return -x; }\n";
/// Division: exceptions, and P' (fast-math) differs from P.
const DIVIDE: &str = "double divide(double x, double y) { return x / y; }\n";
/// Inline assembly the interpreter cannot run (the executable runs it).
const THROUGH: &str = "double through(double x) {\n\
                       \x20 __asm__ volatile(\"\" ::: \"memory\");\n\
                       \x20 return x;\n\
                       }\n";
/// A failed assertion some input reaches.
const GUARDED: &str = "#include <assert.h>\n\
                       double guarded(double x) { assert(x < 1e300); return x; }\n";

/// Runs `fpscout MODE FILE -f FUNCTION` on `source` written to a fresh directory.
fn mode_on(mode: &str, function: &str, source: &str, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), &format!("{function}.c"), source);
    let mut args = vec![mode, file.as_str(), "-f", function];
    // Enough that compiling under a loaded test run leaves time to evaluate (a run
    // whose budget ends before any evaluation has measured nothing: exit 2).
    if !extra.contains(&"--time-budget") {
        args.extend(["--time-budget", if mode == "error" { "4" } else { "8" }]);
    }
    if mode == "exceptions" {
        args.extend(["--random", "2000"]);
    }
    args.extend_from_slice(extra);
    run(&args)
}

fn assert_code(out: &Output, code: i32, what: &str) {
    assert_eq!(
        out.code, code,
        "{what}\nstdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
}

/// The summary record of a one-function `--json` run (`summary`, `answer` or `error`).
fn summary(out: &Output, record: &str) -> serde_json::Value {
    records(&out.stdout)
        .into_iter()
        .find(|r| r["type"] == record)
        .unwrap_or_else(|| panic!("no {record} record in {}", out.stdout))["data"]
        .clone()
}

#[test]
fn exceptions_answers_2_0_1_3() {
    let out = mode_on("exceptions", "wide", WIDE, &[]);
    assert_code(&out, 2, "a long double parameter cannot be evaluated");
    assert!(out.stderr.contains("long double"), "{}", out.stderr);

    let out = mode_on("exceptions", "negate", NEGATE, &[]);
    assert_code(&out, 0, "negation raises nothing");
    assert!(out.stdout.contains("  none found within these bounds\n"));
    assert!(
        out.stdout
            .contains("coverage: symbolic paths: 1 of 1 paths | solver: 0 of 0 targets raised\n"),
        "{}",
        out.stdout
    );

    let out = mode_on("exceptions", "divide", DIVIDE, &[]);
    assert_code(&out, 1, "division raises");

    let out = mode_on("exceptions", "through", THROUGH, &[]);
    assert_code(&out, 3, "the solver could not walk the inline assembly");
    assert!(!out.stdout.contains("none found within these bounds"));
    assert!(out.stdout.contains(
        "  none found, but unknown: the solver could not walk every path (see coverage)\n"
    ));
    assert!(
        out.stdout
            .contains("coverage: symbolic paths: 0 of 1 paths (1 through unsupported: "),
        "{}",
        out.stdout
    );
}

#[test]
fn exceptions_json_summary_carries_the_verdict_and_coverage() {
    let out = mode_on("exceptions", "through", THROUGH, &["--json"]);
    assert_code(&out, 3, "unknown");
    let s = summary(&out, "summary");
    assert_eq!(s["verdict"], "unknown");
    let paths = &s["coverage"][0];
    assert_eq!(paths["phase"], "symbolic paths");
    assert_eq!(paths["reached"], 0);
    assert_eq!(paths["of"], 1);
    assert_eq!(paths["open"][0]["count"], 1);
    assert!(paths["open"][0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("through unsupported: "));
    assert_eq!(s["coverage"][1]["phase"], "solver");

    let out = mode_on("exceptions", "divide", DIVIDE, &["--json"]);
    let s = summary(&out, "summary");
    assert_eq!(s["verdict"], "found");
    assert_eq!(s["coverage"][1]["reached"], s["targets_confirmed"]);
    assert_eq!(s["coverage"][1]["of"], s["targets"]);
}

#[test]
fn diff_answers_2_0_1_3() {
    let out = mode_on("diff", "wide", WIDE, &[]);
    assert_code(&out, 2, "a long double parameter cannot be evaluated");

    let out = mode_on("diff", "negate", NEGATE, &[]);
    assert_code(&out, 0, "P and P' agree on negation");
    assert!(out.stdout.contains(
        "coverage: symbolic paths (P and P'): 2 of 2 paths | solver: 0 of 0 conditions decided\n"
    ));

    let out = mode_on("diff", "divide", DIVIDE, &[]);
    assert_code(&out, 1, "fast-math division differs");

    let out = mode_on("diff", "through", THROUGH, &["--json"]);
    assert_code(&out, 3, "neither build's walk runs the inline assembly");
    let s = summary(&out, "summary");
    assert_eq!(s["verdict"], "unknown");
    assert_eq!(s["coverage"][0]["reached"], 0);
    assert_eq!(s["coverage"][0]["of"], 2);
}

#[test]
fn error_answers_0_when_measured_and_2_when_nothing_was() {
    let out = mode_on("error", "wide", WIDE, &[]);
    assert_code(&out, 2, "a long double parameter cannot be evaluated");

    // A run longer than two seconds prints progress: it must not read as an error.
    let out = mode_on("error", "negate", NEGATE, &["--time-budget", "5"]);
    assert_code(&out, 0, "measured");
    assert!(out.stderr.contains("fpscout: progress: "), "{}", out.stderr);
    assert!(!out.stderr.contains("fpscout: error"), "{}", out.stderr);
    assert!(
        out.stdout.contains("  coverage: shadow: "),
        "{}",
        out.stdout
    );

    // Found errors are a measurement: 0 (1 only against a --baseline).
    let out = mode_on("error", "divide", DIVIDE, &[]);
    assert_code(&out, 0, "measured");

    let out = mode_on("error", "through", THROUGH, &["--json"]);
    assert_code(&out, 2, "the shadow run cannot run the inline assembly");
    let s = summary(&out, "error");
    assert_eq!(s["verdict"], "unmeasured");
    assert_eq!(s["coverage"][0]["reached"], 0);
    assert_eq!(s["coverage"][0]["of"], s["evaluations"]);
}

#[test]
fn reach_answers_2_0_1_3() {
    let out = mode_on("reach", "wide", WIDE, &[]);
    assert_code(&out, 2, "a long double parameter cannot be evaluated");

    let out = mode_on("reach", "negate", NEGATE, &[]);
    assert_code(&out, 0, "no assertion to fail");
    assert!(out
        .stdout
        .contains("  coverage: float solver: 1 of 1 paths settled\n"));

    let out = mode_on("reach", "guarded", GUARDED, &[]);
    assert_code(&out, 1, "x = 1e300 fails the assertion");

    let out = mode_on("reach", "through", THROUGH, &["--json"]);
    assert_code(&out, 3, "unknown");
    let s = summary(&out, "answer");
    assert_eq!(s["verdict"], "unknown");
    assert_eq!(s["coverage"][0]["open"][0]["count"], 1);
}

#[test]
fn a_whole_file_run_is_unknown_when_one_function_is_and_unmeasured_when_all_are() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "two.c", &format!("{NEGATE}{THROUGH}"));
    let out = run(&[
        "exceptions",
        &file,
        "--time-budget",
        "8",
        "--random",
        "2000",
        "--json",
    ]);
    assert_code(&out, 3, "negate is clean, through unknown");
    let total = summary(&out, "total");
    assert_eq!(total["verdicts"]["clean"], 1);
    assert_eq!(total["verdicts"]["unknown"], 1);
    assert_eq!(total["verdicts"]["found"], 0);

    let only = write(dir.path(), "through.c", THROUGH);
    let out = run(&["error", &only, "--time-budget", "2", "--json"]);
    assert_code(&out, 2, "no function could be measured");
    assert_eq!(summary(&out, "total")["verdicts"]["unmeasured"], 1);
}

#[test]
fn a_file_without_floating_point_parameters_is_named_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "ints.c", "int g(int x) { return x + 1; }\n");
    let out = run(&["exceptions", &file]);
    assert_code(&out, 2, "no function to analyse");
    assert!(
        out.stderr
            .contains("exports no function with a floating-point parameter"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_readme_explains_every_class_the_text_report_prints() {
    use fpscout_search::exceptions::Avoidability;
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .expect("README.md");
    for class in [
        Avoidability::PotentiallyAvoidable,
        Avoidability::Inherent,
        Avoidability::Unknown,
    ] {
        let explained = format!("*({})* when", class.describe());
        assert!(readme.contains(&explained), "README lacks {explained}");
    }
}
