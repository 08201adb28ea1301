//! SV-COMP-style programs (`main` reading `__VERIFIER_nondet_*()`) through `run`, `diff`
//! and `exceptions`: the harness's inputs, the program's own definitions winning over the
//! weak ones, failed assumptions, inputs past the arrays.

mod common;

use common::cli::json_run as fpscout_json;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn program(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/svcomp")
        .join(name)
        .display()
        .to_string()
}

/// `run`'s two records, P then P'.
fn run(file: &str, args: &str) -> (Value, Value) {
    let (records, _) = fpscout_json(&["run", file, "-f", "main", "--args", args]);
    assert_eq!(records.len(), 2, "{records:?}");
    (records[0]["data"].clone(), records[1]["data"].clone())
}

#[test]
fn undeclared_nondet_calls_compile_and_the_error_is_reached_in_p_only() {
    // Floats come first, then doubles, whatever order the program calls them in.
    let (p, pp) = run(&program("overflow_guard.c"), "[1e31],[1e301]");
    assert_eq!(p["end"], "ended");
    assert!(
        p["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("fails assertion `__VERIFIER_error()`")),
        "{p}"
    );
    assert_eq!(p["native_end"], "fails assertion `__VERIFIER_error()`");
    assert_eq!(p["flags"], serde_json::json!(["overflow", "inexact"]));
    assert_eq!(p["native_trace"][0]["kind"], "overflow");
    assert!(p["native_trace"][0]["loc"]
        .as_str()
        .is_some_and(|l| l.ends_with("overflow_guard.c:10:18")));
    assert_eq!(p["agrees"], true);
    // -ffast-math assumes no infinities: isinf(c) folds to 0.
    assert_eq!(pp["end"], "returned");
    assert_eq!(pp["result"], "1");
    assert_eq!(pp["native_result"], "1");
    assert_eq!(pp["agrees"], true);
    // Below the guard neither build reaches anything.
    let (p, _) = run(&program("overflow_guard.c"), "[1e31],[1e299]");
    assert_eq!(p["result"], "1");
}

#[test]
fn a_failed_assumption_ends_the_run_and_the_programs_own_reach_error_wins() {
    let (p, pp) = run(&program("absorption.c"), "[-1]");
    for build in [&p, &pp] {
        assert_eq!(build["native_end"], "exits with status 0", "{build}");
        assert!(
            build["detail"]
                .as_str()
                .is_some_and(|d| d.starts_with("exits with status 0")),
            "{build}"
        );
    }
    // Inside the assumption 1e12f absorbs x: the program returns 0.
    let (p, _) = run(&program("absorption.c"), "[9999]");
    assert_eq!(p["result"], "0");

    let dir = tempfile::tempdir().expect("temp dir");
    let own: PathBuf = dir.path().join("own.c");
    std::fs::write(
        &own,
        "extern void __assert_fail(const char *, const char *, unsigned int, const char *);\n\
         void reach_error() { __assert_fail(\"mine\", \"own.c\", 2, \"reach_error\"); }\n\
         extern float __VERIFIER_nondet_float(void);\n\
         int main(void) { if (__VERIFIER_nondet_float() > 2.0f) reach_error(); return 0; }\n",
    )
    .expect("write");
    let (p, pp) = run(&own.display().to_string(), "[3]");
    for build in [&p, &pp] {
        assert_eq!(build["native_end"], "fails assertion `mine`", "{build}");
        assert!(build["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("fails assertion `mine` at ") && d.contains("own.c:2")));
    }
}

#[test]
fn inputs_past_the_array_are_an_out_of_bounds_read_of_floats() {
    let (p, _) = run(&program("loop_sum.c"), "[1,1]");
    assert_eq!(p["end"], "trapped");
    assert!(
        p["detail"]
            .as_str()
            .is_some_and(|d| d.contains("outside 'floats' (8 bytes)")),
        "{p}"
    );
    assert_eq!(p["agrees"], false);
    let (p, pp) = run(&program("loop_sum.c"), "[1,1,1]");
    assert_eq!(p["result"], "0");
    assert_eq!(pp["result"], "0");
}

#[test]
fn diff_and_exceptions_analyse_main_without_being_told() {
    let file = program("overflow_guard.c");
    let (records, code) = fpscout_json(&["diff", &file, "--time-budget", "10"]);
    assert_eq!(code, Some(1), "diff exits 1 on confirmed differences");
    let reached_in_p_only = records.iter().any(|r| {
        let d = &r["data"];
        r["type"] == "finding"
            && d["confirmed"] == true
            && d["kinds"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "end"))
            && d["p"]["end"] == "fails assertion `__VERIFIER_error()`"
            && d["p_prime"]["result"] == "1"
    });
    assert!(reached_in_p_only, "{records:?}");

    let (records, code) = fpscout_json(&["exceptions", &file, "--time-budget", "10"]);
    assert_eq!(code, Some(1), "exceptions exits 1 when it finds some");
    let overflow = records.iter().find(|r| {
        r["type"] == "finding" && r["data"]["kind"] == "overflow" && r["data"]["line"] == 10
    });
    let overflow = overflow.unwrap_or_else(|| panic!("no overflow at line 10: {records:?}"));
    assert_eq!(overflow["data"]["function"], "fpscout_harness");
    assert_eq!(overflow["data"]["in_function"], "main");
}
