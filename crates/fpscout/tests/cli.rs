//! End-to-end tests of the `fpscout` binary: the summation case, JSON output, and clear
//! errors with exit code 2 for every kind of bad input.

mod common;

use common::cli::{records as json_records, run, write, Output};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Newton's square root, which never ends for a < 0.
const NEWTON: &str = "#include <math.h>\ndouble newton_sqrt(double a) {\n  \
    double x = a > 1.0 ? a : 1.0;\n  while (fabs(x * x - a) > 1e-12 * a) x = 0.5 * (x + a / x);\n  \
    return x;\n}\n";

const SUM_ARGS: &str = "[1e308,1e308,-1e308,-1e308,1,2,3,4,5],9";

#[test]
fn summation_overflows_in_p_but_not_in_fast_math_p_prime() {
    let sum = repo_root().join("examples/sum.c");
    let out = run(&[
        "run",
        sum.to_str().unwrap(),
        "--function",
        "sum",
        "--args",
        SUM_ARGS,
        "--json",
    ]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let records = json_records(&out.stdout);
    assert_eq!(records.len(), 2);
    let (p, pp) = (&records[0]["data"], &records[1]["data"]);
    assert_eq!(records[0]["type"], "run");
    assert_eq!(p["build"], "P");
    assert_eq!(pp["build"], "P'");
    // P adds left to right: 1e308 + 1e308 overflows to +inf at the `s += x[i]` line.
    assert_eq!(p["result"], "inf");
    let kinds: Vec<&str> = p["exceptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"overflow"), "{kinds:?}");
    let overflow = p["exceptions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "overflow")
        .unwrap();
    assert_eq!(overflow["opcode"], "fadd");
    assert!(
        overflow["loc"].as_str().unwrap().ends_with("sum.c:6:7"),
        "{overflow}"
    );
    assert_eq!(
        p["native_flags"],
        serde_json::json!(["overflow", "inexact"])
    );
    assert_eq!(p["agrees"], true);
    // P' vectorises with two <2 x double> accumulators: the huge values cancel pairwise,
    // 1..4 are absorbed by them, and only the scalar tail 5 survives. No overflow.
    assert_eq!(pp["result"], "0x1.4p+2");
    assert!(pp["exceptions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["kind"] != "overflow"));
    assert_eq!(pp["native_flags"], serde_json::json!(["inexact"]));
    assert_eq!(pp["ftz_daz"], true);
    assert_eq!(pp["agrees"], true);
    // The executables' own traces: P's addsd at the same line, nothing in P'.
    assert_eq!(
        p["native_trace"],
        serde_json::json!([{
            "kind": "overflow",
            "insn": "addsd",
            "addr": p["native_trace"][0]["addr"],
            "loc": p["exceptions"].as_array().unwrap().iter()
                .find(|e| e["kind"] == "overflow").unwrap()["loc"],
        }])
    );
    assert_eq!(p["trace_match"], "same");
    assert_eq!(pp["native_trace"], serde_json::json!([]));
    assert_eq!(pp["trace_match"], "same");
}

#[test]
fn parameters_named_on_the_command_line_must_exist() {
    let sum = repo_root().join("examples/sum.c");
    let sum = sum.to_str().expect("utf-8 path");
    for (flag, message) in [
        (
            "--range=y=1:5",
            "sum has no parameter 'y' (its parameters: x, n)",
        ),
        (
            "--int=m=3",
            "sum has no parameter 'm' (its parameters: x, n)",
        ),
        ("--array-len=q=3", "sum has no parameter 'q'"),
        // An integer's --range is sampled (issue #28), so it must hold an integer.
        (
            "--range=n=0.25:0.75",
            "integer parameter 'n' of sum has no value in [0.25, 0.75]",
        ),
        ("--int=x=1", "parameter 'x' of sum is ptr"),
    ] {
        let out = run(&["diff", sum, "-f", "sum", flag]);
        assert_eq!(out.code, 2, "{flag}: {}", out.stderr);
        assert!(out.stderr.contains(message), "{flag}: {}", out.stderr);
    }
}

#[test]
fn out_of_bounds_arguments_make_the_native_result_meaningless() {
    let sum = repo_root().join("examples/sum.c");
    let out = run(&[
        "run",
        sum.to_str().unwrap(),
        "-f",
        "sum",
        "--args",
        "[1,2],9",
    ]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(
        out.stdout
            .contains("n/a (out of bounds, native result meaningless)"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("NO"), "{}", out.stdout);
}

#[test]
fn inputs_outside_fast_math_assumptions_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "sq.c",
        "double sq(double x, double y) {\n  double p = x * x;\n  return p - y;\n}\n",
    );
    let out = run(&["run", &src, "-f", "sq", "--args", "1e300,1", "--json"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let records = json_records(&out.stdout);
    // P makes no assumption; P' assumes no infinity, and x * x overflows at line 2.
    assert_eq!(
        records[0]["data"]["fast_math_note"],
        serde_json::Value::Null
    );
    let note = records[1]["data"]["fast_math_note"].as_str().unwrap();
    assert!(
        note.starts_with("input outside -ffast-math's assumptions at ")
            && note.contains("sq.c:2:")
            && note.contains("(ninf: fmul"),
        "{note}"
    );
    assert_eq!(records[1]["data"]["native_trace"][0]["kind"], "overflow");
    assert_eq!(records[1]["data"]["native_trace"][0]["insn"], "mulsd");
}

#[test]
fn text_report_shows_both_builds_and_source_lines() {
    let sum = repo_root().join("examples/sum.c");
    let out = run(&[
        "run",
        sum.to_str().unwrap(),
        "-f",
        "sum",
        "--args",
        SUM_ARGS,
    ]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(out.stdout.contains("overflow   fadd#0"), "{}", out.stdout);
    assert!(out.stdout.contains("| s += x[i];"), "{}", out.stdout);
    assert!(
        out.stdout.contains("agrees natively   yes"),
        "{}",
        out.stdout
    );
}

#[test]
fn hex_and_special_arguments_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "div.c",
        "double dv(double a, double b) { return a / b; }\n",
    );
    let out = run(&["run", &src, "-f", "dv", "--args", "0x1p-1022,inf", "--json"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let first: serde_json::Value =
        serde_json::from_str(out.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["data"]["result"], "0x0p+0");
    let out = run(&["run", &src, "-f", "dv", "--args", "0,0", "--json"]);
    let first: serde_json::Value =
        serde_json::from_str(out.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["data"]["exceptions"][0]["kind"], "invalid");
    assert_eq!(first["data"]["agrees"], true);
}

#[test]
fn missing_file_is_an_input_error() {
    let out = run(&["run", "/nonexistent/x.c", "-f", "f", "--args", "1"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no such file"), "{}", out.stderr);
}

#[test]
fn compile_errors_show_clang_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "bad.c", "double f(double x) { return x +; }\n");
    let out = run(&["run", &src, "-f", "f", "--args", "1"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("could not compile"), "{}", out.stderr);
    assert!(out.stderr.contains("expected expression"), "{}", out.stderr);
}

#[test]
fn unknown_function_lists_the_defined_ones() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "f.c",
        "double twice(double x) { return 2 * x; }\n",
    );
    let out = run(&["run", &src, "-f", "thrice", "--args", "1"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("function 'thrice' not found"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("twice"), "{}", out.stderr);
}

#[test]
fn unsupported_instruction_names_instruction_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "ld.c",
        "double ok(double x) { return x + 1; }\n\
         double sq(double x) {\n  long double y = x;\n  return (double)(y * y);\n}\n",
    );
    let out = run(&["run", &src, "-f", "sq", "--args", "3"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("unsupported in function 'sq'"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("long double"), "{}", out.stderr);
    assert!(out.stderr.contains("ld.c:3"), "{}", out.stderr);
    assert!(
        out.stderr.contains("x86_fp80"),
        "the instruction is quoted: {}",
        out.stderr
    );
    // The other function of the same file still works.
    let out = run(&["run", &src, "-f", "ok", "--args", "3"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn wrong_argument_count_and_bad_literals_are_input_errors() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "g.c",
        "double g(double a, int n) { return a * n; }\n",
    );
    let out = run(&["run", &src, "-f", "g", "--args", "1"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("takes 2 arguments"), "{}", out.stderr);
    let out = run(&["run", &src, "-f", "g", "--args", "1,2.5"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not an integer"), "{}", out.stderr);
    let out = run(&["run", &src, "-f", "g", "--args", "abc,2"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not a number"), "{}", out.stderr);
}

#[test]
fn unknown_flags_are_usage_errors() {
    let out = run(&["run", "--bogus"]);
    assert_eq!(out.code, 2);
    let out = run(&["--help"]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("run"));
}

#[test]
fn diff_budgets_must_be_seconds() {
    let sum = repo_root().join("examples/sum.c");
    let sum = sum.to_str().expect("utf-8 path");
    for bad in [
        "--solve-budget=nan",
        "--explore-budget=-1",
        "--random-budget=inf",
    ] {
        let out = run(&["diff", sum, "-f", "sum", bad]);
        assert_eq!(out.code, 2, "{bad}: {}", out.stderr);
        let flag = bad.split('=').next().unwrap_or(bad);
        assert!(
            out.stderr
                .contains(&format!("{flag} must be a number of seconds >= 0")),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn endless_loops_stop_at_the_step_budget() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "spin.c",
        "double spin(double x, int n) {\n  for (int i = 0; i != n; i += 2) x = x * 0.5 + 1.0;\n  return x;\n}\n",
    );
    // n odd: i never equals n (until a wrap far beyond the budget).
    let out = run(&[
        "run",
        &src,
        "-f",
        "spin",
        "--args",
        "1,3",
        "--step-budget",
        "5000",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let p: serde_json::Value = serde_json::from_str(out.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(p["data"]["end"], "stopped");
    assert!(
        p["data"]["detail"]
            .as_str()
            .unwrap()
            .contains("step budget of 5000"),
        "{}",
        p["data"]
    );
}

#[test]
fn llvm_ir_input_runs_like_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let c = write(
        dir.path(),
        "m.c",
        "double m(double a, double b) { return a * b; }\n",
    );
    let ll = dir.path().join("m.ll");
    let st = Command::new("clang-19")
        .args([
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
            "-g",
            "-S",
            "-emit-llvm",
            "-o",
        ])
        .arg(&ll)
        .arg(&c)
        .status()
        .expect("clang-19");
    assert!(st.success());
    let out = run(&[
        "run",
        ll.to_str().unwrap(),
        "-f",
        "m",
        "--args",
        "1e300,1e300",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for line in out.stdout.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(r["data"]["result"], "inf");
        assert_eq!(r["data"]["exceptions"][0]["kind"], "overflow");
        assert_eq!(r["data"]["agrees"], true);
    }
}

#[test]
fn machine_combiner_rewrites_are_followed_to_the_last_bit() {
    // turbine1's P' multiply chain is reassociated after instruction selection. On this
    // input the IR's own rounding order gives ...35 in the last place and the executable
    // ...36; fpscout lowers the chain as the machine code computes it.
    let src = repo_root().join("tests/corpus/turbine1.c");
    let src = src.to_str().expect("utf-8 path");
    let args = ["run", src, "-f", "turbine1", "--args", "-0.7,0.61,5.55"];
    let out = run(&[&args[..], &["--json"]].concat());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let records = json_records(&out.stdout);
    let (p, pp) = (&records[0]["data"], &records[1]["data"]);
    assert_eq!(p["backend_rewrites"], serde_json::json!([]));
    assert_eq!(p["agrees"], true);
    assert_eq!(pp["backend_rewrites"], serde_json::json!([]));
    assert_eq!(pp["agrees"], true);
    assert_eq!(pp["result"], "-0x1.492ad0ab8de36p+2");
    assert_eq!(pp["native_result"], "-0x1.492ad0ab8de36p+2");
    let text = run(&args);
    assert!(!text.stdout.contains("MachineCombiner"), "{}", text.stdout);
    // A build nothing rewrote carries no note.
    let sum = repo_root().join("examples/sum.c");
    let sum = sum.to_str().expect("utf-8 path");
    let out = run(&["run", sum, "-f", "sum", "--args", SUM_ARGS]);
    assert!(!out.stdout.contains("MachineCombiner"), "{}", out.stdout);
}

#[test]
fn commuted_min_max_follow_the_allocated_operand_order() {
    // heronf's swaps run as `minss`/`maxss` under -ffast-math; `maxss` returns its second
    // operand on a NaN. The IR's selects would carry the NaN to the result; the executable
    // drops it and signals INVALID at each swap.
    let src = repo_root().join("tests/corpus/heronf.c");
    let src = src.to_str().expect("utf-8 path");
    let out = run(&["run", src, "-f", "heronf", "--args", "nan,1,2", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let records = json_records(&out.stdout);
    let pp = &records[1]["data"];
    assert_eq!(pp["build"], "P'");
    assert_eq!(pp["backend_rewrites"], serde_json::json!([]));
    assert_eq!(pp["result"], "0x1.efbdecp-1");
    assert_eq!(pp["native_result"], "0x1.efbdecp-1");
    assert_eq!(pp["agrees"], true);
    let invalid_lines: Vec<&str> = pp["exceptions"]
        .as_array()
        .expect("exceptions")
        .iter()
        .filter(|e| e["kind"] == "invalid")
        .filter_map(|e| e["loc"].as_str())
        .collect();
    assert_eq!(invalid_lines.len(), 4, "{invalid_lines:?}");
    assert!(
        invalid_lines
            .iter()
            .all(|l| l.ends_with("heronf.c:4:7") || l.ends_with("heronf.c:5:7")),
        "{invalid_lines:?}"
    );
}

#[test]
fn diff_ends_within_its_time_budget_on_code_that_never_ends() {
    // Newton's square root never ends for a < 0: every phase must still stop in time,
    // and with --json progress records go to stderr.
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "newton.c", NEWTON);
    let t = std::time::Instant::now();
    let out = run(&[
        "diff",
        &src,
        "-f",
        "newton_sqrt",
        "--time-budget",
        "5",
        "--json",
    ]);
    assert!(
        t.elapsed() < std::time::Duration::from_secs(30),
        "{:?}",
        t.elapsed()
    );
    let records = json_records(&out.stdout);
    let summary = records.last().expect("a summary record");
    assert_eq!(summary["type"], "summary");
    // On a loaded machine compiling and collecting may spend the whole budget before any
    // input runs: that is "nothing measured" (2), said so in the summary.
    match out.code {
        0 | 1 => {}
        2 => assert_eq!(summary["data"]["verdict"], "unmeasured", "{}", out.stderr),
        code => panic!("exit code {code}: {}", out.stderr),
    }
    assert!(summary["data"]["wall_seconds"].as_f64().unwrap() < 6.0);
    let progress: Vec<serde_json::Value> = out
        .stderr
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v["type"] == "progress")
        .collect();
    assert!(!progress.is_empty(), "{}", out.stderr);
    assert!(progress
        .iter()
        .all(|p| p["data"]["left_s"].as_f64().is_some()));
}

#[test]
fn run_reports_how_each_build_ends_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "ends.c",
        "#include <stdio.h>\n#include <stdlib.h>\n#include <assert.h>\n\
         double checked(double x) {\n  if (x < 0) {\n    fprintf(stderr, \"negative\\n\");\n    \
         abort();\n  }\n  if (x == 0) exit(3);\n  assert(x < 1e300);\n  printf(\"%g\\n\", x);\n  \
         return 1.0 / x;\n}\n",
    );
    let cases = [
        ("-1", "aborts", "ends.c:7"),
        ("0", "exits with status 3", "ends.c:9"),
        ("1e301", "fails assertion `x < 1e300`", "ends.c:10"),
    ];
    for (arg, said, at) in cases {
        let out = run(&["run", &src, "-f", "checked", "--args", arg, "--json"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let records = json_records(&out.stdout);
        assert_eq!(records.len(), 2);
        for r in &records {
            let d = &r["data"];
            assert_eq!(d["end"], "ended", "{d}");
            let detail = d["detail"].as_str().unwrap();
            assert!(detail.starts_with(said), "{detail}");
            assert!(detail.contains(at), "{detail}");
            assert_eq!(d["native_end"], said, "{d}");
            assert_eq!(d["agrees"], true, "{d}");
        }
    }
    // The ordinary path prints (discarded) and returns.
    let out = run(&["run", &src, "-f", "checked", "--args", "4", "--json"]);
    let records = json_records(&out.stdout);
    for r in &records {
        assert_eq!(r["data"]["result"], "0x1p-2");
        assert_eq!(r["data"]["native_end"], "returned");
        assert_eq!(r["data"]["agrees"], true);
    }
}

#[test]
fn run_ends_within_its_time_budget_on_an_input_that_never_ends() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "newton.c", NEWTON);
    let t = std::time::Instant::now();
    let out = run(&[
        "run",
        &src,
        "-f",
        "newton_sqrt",
        "--args",
        "-2",
        "--step-budget",
        "1000000000000",
        "--time-budget",
        "3",
        "--json",
    ]);
    assert!(
        t.elapsed() < std::time::Duration::from_secs(30),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    for r in json_records(&out.stdout) {
        let d = &r["data"];
        assert_eq!(d["end"], "stopped", "{d}");
        assert!(
            d["detail"]
                .as_str()
                .unwrap()
                .starts_with("time budget reached after"),
            "{d}"
        );
        assert!(
            d["native_end"]
                .as_str()
                .unwrap()
                .starts_with("did not return within"),
            "{d}"
        );
        // Both count as not terminating: the interpreter agrees with the executable.
        assert_eq!(d["agrees"], true, "{d}");
    }
}

#[test]
fn functions_of_a_linked_library_are_called_natively_by_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let lib_src = write(
        dir.path(),
        "scale.c",
        "double scale_up(double x) { return x * 1e300; }\n",
    );
    let so = dir.path().join("libscale.so");
    let obj = dir.path().join("scale.o");
    let archive = dir.path().join("libscalestatic.a");
    let clang = |args: &[&str]| {
        let ok = Command::new("clang-19")
            .args(args)
            .status()
            .expect("clang-19");
        assert!(ok.success(), "{args:?}");
    };
    clang(&[
        "-shared",
        "-fPIC",
        "-O2",
        "-o",
        so.to_str().unwrap(),
        &lib_src,
    ]);
    clang(&["-c", "-fPIC", "-O2", "-o", obj.to_str().unwrap(), &lib_src]);
    let ok = Command::new("ar")
        .args(["rcs", archive.to_str().unwrap(), obj.to_str().unwrap()])
        .status()
        .expect("ar");
    assert!(ok.success());
    let src = write(
        dir.path(),
        "user.c",
        "double scale_up(double);\ndouble f(double x) {\n  return scale_up(x) + 1.0;\n}\n",
    );
    let lib_dir = format!("-L{}", dir.path().display());
    let ways: [Vec<&str>; 3] = [
        vec!["--link", so.to_str().unwrap()],
        vec![&lib_dir, "-lscale"],
        vec!["--link", archive.to_str().unwrap()],
    ];
    for way in &ways {
        let mut args = vec!["run", &src, "-f", "f", "--args", "1e10", "--json"];
        args.extend(way.iter().copied());
        let out = run(&args);
        assert_eq!(out.code, 0, "{way:?}: {}", out.stderr);
        for r in json_records(&out.stdout) {
            let d = &r["data"];
            assert_eq!(d["result"], "inf", "{way:?}: {d}");
            assert_eq!(d["native_result"], "inf", "{way:?}: {d}");
            assert_eq!(d["agrees"], true, "{way:?}: {d}");
            // The overflow happens inside the library, charged to the call.
            let overflow: Vec<&serde_json::Value> = d["exceptions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["kind"] == "overflow")
                .collect();
            assert_eq!(overflow.len(), 1, "{way:?}: {d}");
            assert_eq!(overflow[0]["opcode"], "scale_up", "{way:?}: {d}");
            assert!(overflow[0]["loc"]
                .as_str()
                .unwrap()
                .ends_with("user.c:3:10"));
        }
    }
    // Without the library the call cannot run: a clear error, exit code 2.
    let out = run(&["run", &src, "-f", "f", "--args", "1"]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stderr.contains("scale_up"), "{}", out.stderr);
    let missing = run(&["run", &src, "-f", "f", "--args", "1", "-lnosuchlib"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("-lnosuchlib"), "{}", missing.stderr);
}

#[test]
fn diff_finds_every_signature_the_exhaustive_oracle_sees() {
    // All 2^32 floats on both executables (about a minute on 2 cores): the ground truth of
    // which (P flags, P' flags, P class, P' class) differences exist for 1/x. Under
    // FTZ/DAZ, P' flushes subnormal results (underflow where P raises none for the exact
    // 1/2^127) and reads subnormal inputs as zero (divide-by-zero where P overflows).
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "recip.c",
        "float recip(float x) { return 1.0f / x; }\n",
    );
    let out = run(&["diff", &src, "-f", "recip", "--oracle", "--json"]);
    assert!(matches!(out.code, 0 | 1), "{}", out.stderr);
    let records = json_records(&out.stdout);
    let summary = &records.last().expect("summary")["data"];
    let recall = &summary["recall"];
    assert!(recall["existing"].as_u64().unwrap() >= 4, "{recall}");
    assert_eq!(
        recall["spurious"].as_array().map(Vec::len),
        Some(0),
        "{recall}"
    );
    assert_eq!(
        recall["missed"].as_array().map(Vec::len),
        Some(0),
        "{recall}"
    );
    assert_eq!(summary["recall_estimate"].as_f64(), Some(1.0), "{summary}");
}

#[test]
fn the_oracle_samples_functions_of_several_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "ratio.c",
        "float ratio(float x, float y) { return x / y; }\n",
    );
    let out = run(&["diff", &src, "-f", "ratio", "--oracle", "--json"]);
    assert!(matches!(out.code, 0 | 1), "{}", out.stderr);
    let records = json_records(&out.stdout);
    let summary = &records.last().expect("summary")["data"];
    let recall = &summary["recall"];
    assert_eq!(recall["exhaustive"], false, "{recall}");
    // Subnormal divisors read as 0 under DAZ: P' divides by zero where P does not.
    assert!(recall["existing"].as_u64().unwrap() >= 2, "{recall}");
    let estimate = summary["recall_estimate"].as_f64().unwrap();
    assert!((0.5..=1.0).contains(&estimate), "{summary}");
}

/// `tests/multifile`: `f` in a.c calls `scale_round_trip` in b.c, both include
/// `include/scale.h`, whose SCALE (1e300 unless -DSCALE=...) makes P overflow.
fn multifile(name: &str) -> String {
    repo_root()
        .join("tests/multifile")
        .join(name)
        .display()
        .to_string()
}

/// The overflow in b.c, seen by the interpreter and the executable of P; P' folds
/// `(x * SCALE) / SCALE` to `x`.
fn assert_overflows_in_b_c_for_p_only(out: &Output) {
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let records = json_records(&out.stdout);
    assert_eq!(records.len(), 2, "{}", out.stdout);
    let (p, pp) = (&records[0]["data"], &records[1]["data"]);
    for d in [p, pp] {
        assert_eq!(d["agrees"], true, "interpreter and executable: {d}");
    }
    assert_eq!(p["result"], "inf", "{p}");
    assert_eq!(p["native_result"], "inf", "{p}");
    let overflow = p["exceptions"]
        .as_array()
        .expect("exceptions")
        .iter()
        .find(|e| e["kind"] == "overflow")
        .unwrap_or_else(|| panic!("no overflow in P: {p}"));
    assert!(
        overflow["loc"]
            .as_str()
            .is_some_and(|l| l.ends_with("multifile/b.c:5:13")),
        "{overflow}"
    );
    assert_eq!(pp["result"], "0x1.2a05f2008p+33", "1e10 + 1: {pp}");
    assert_eq!(pp["native_result"], "0x1.2a05f2008p+33", "{pp}");
}

#[test]
fn several_sources_with_include_dirs_and_macros_run_in_both_builds() {
    let include = multifile("include");
    let (a, b) = (multifile("a.c"), multifile("b.c"));
    let base = ["run", &a, &b, "-f", "f", "--args", "1e10", "--json"];
    let out = run(&[&base[..], &["-I", &include]].concat());
    assert_overflows_in_b_c_for_p_only(&out);
    let records = json_records(&out.stdout);
    assert!(
        records[0]["data"]["compiler_flags"]
            .as_str()
            .is_some_and(|f| f.ends_with(&format!("-I{include}"))),
        "{}",
        records[0]["data"]
    );

    // A macro changes the constant: x * 2 / 2 overflows in neither build.
    let out = run(&[&base[..], &["-I", &include, "-DSCALE=2.0"]].concat());
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    for r in json_records(&out.stdout) {
        let d = &r["data"];
        assert_eq!(d["result"], "0x1.2a05f2008p+33", "{d}");
        assert_eq!(d["native_result"], "0x1.2a05f2008p+33", "{d}");
        assert_eq!(d["agrees"], true, "{d}");
        assert_eq!(d["flags"], serde_json::json!([]), "{d}");
    }

    // Without the include directory clang's own message says what is missing.
    let out = run(&base);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr.contains("'scale.h' file not found"),
        "{}",
        out.stderr
    );
}

#[test]
fn diff_of_several_sources_finds_what_the_macro_leaves() {
    let include = multifile("include");
    let (a, b) = (multifile("a.c"), multifile("b.c"));
    let base = [
        "diff",
        &a,
        &b,
        "-f",
        "f",
        "-I",
        &include,
        "--time-budget",
        "10",
        "--json",
    ];
    let out = run(&base);
    assert_eq!(out.code, 1, "differences expected: {}", out.stderr);
    let records = json_records(&out.stdout);
    assert!(
        records.iter().any(|r| r["type"] == "finding"
            && r["data"]["p"]["flags"]
                .as_array()
                .is_some_and(|f| f.contains(&serde_json::json!("overflow")))),
        "{}",
        out.stdout
    );
    // x * 1 / 1 is x in both builds.
    let out = run(&[&base[..], &["-DSCALE=1.0"]].concat());
    assert_eq!(out.code, 0, "no difference expected: {}", out.stdout);
}

#[test]
fn a_compilation_database_gives_each_source_its_flags() {
    let dir = tempfile::tempdir().unwrap();
    let program = repo_root().join("tests/multifile");
    let program = program.canonicalize().expect("tests/multifile exists");
    // As CMake writes it (arguments, relative include directory) and as Bear or
    // Make-based generators do (one command string).
    let database = serde_json::json!([
        {"directory": program, "file": "a.c",
         "arguments": ["cc", "-Iinclude", "-O2", "-g", "-Wall", "-o", "a.o", "-c", "a.c"]},
        {"directory": program, "file": program.join("b.c"),
         "command": "cc -I include -ffast-math -MD -MF b.d -c b.c -o b.o"}
    ]);
    let db = write(dir.path(), "compile_commands.json", &database.to_string());
    let all = run(&[
        "run",
        "--compile-commands",
        &db,
        "-f",
        "f",
        "--args",
        "1e10",
        "--json",
    ]);
    // b.c's -ffast-math is dropped: P stays P, so it still overflows.
    assert_overflows_in_b_c_for_p_only(&all);
    let named = run(&[
        "run",
        &multifile("a.c"),
        &multifile("b.c"),
        "--compile-commands",
        &db,
        "-f",
        "f",
        "--args",
        "1e10",
        "--json",
    ]);
    assert_overflows_in_b_c_for_p_only(&named);
    // The command line has the last word over the database.
    let scaled = run(&[
        "run",
        "--compile-commands",
        &db,
        "-DSCALE=2.0",
        "-f",
        "f",
        "--args",
        "1e10",
        "--json",
    ]);
    assert_eq!(scaled.code, 0, "{}", scaled.stderr);
    for r in json_records(&scaled.stdout) {
        assert_eq!(r["data"]["result"], "0x1.2a05f2008p+33", "{}", r["data"]);
    }
    let elsewhere = write(dir.path(), "c.c", "double f(double x) { return x; }\n");
    let out = run(&[
        "run",
        &elsewhere,
        "--compile-commands",
        &db,
        "-f",
        "f",
        "--args",
        "1",
    ]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("not in the compilation database"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_malformed_compilation_database_is_an_input_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = write(
        dir.path(),
        "compile_commands.json",
        "[{\"directory\": \"/\",",
    );
    let out = run(&["run", "--compile-commands", &db, "-f", "f", "--args", "1"]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stderr.contains(&db), "{}", out.stderr);
    assert!(out.stderr.contains("invalid JSON"), "{}", out.stderr);
    let missing = dir.path().join("absent.json").display().to_string();
    let out = run(&[
        "run",
        "--compile-commands",
        &missing,
        "-f",
        "f",
        "--args",
        "1",
    ]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains(&missing), "{}", out.stderr);
    // No source and no database: a usage error.
    let out = run(&["run", "-f", "f", "--args", "1"]);
    assert_eq!(out.code, 2);
}

#[test]
fn constrained_intrinsics_of_rounding_math_builds_run_as_the_machine_runs_them() {
    // musl builds with -frounding-math: every operation is an
    // llvm.experimental.constrained.* call with !"round.dynamic" metadata, which the
    // interpreter used to refuse ("operand !\"round.dynamic\""). P, and P' where an
    // input keeps fast-math's assumptions, on inputs that raise invalid, divide by zero,
    // overflow and convert inexactly, agree with the executables bit for bit, flags
    // included.
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "rm.c",
        "#include <math.h>\n\
         double f(double x, double y) {\n\
         \x20 double r = x * y + 1.0;\n\
         \x20 if (r < y) r = sqrt(r) / (x - 2.0);\n\
         \x20 if (r == x) return floor(r);\n\
         \x20 float t = (float)(x * 1e300);\n\
         \x20 return r + t + (long)y + fmax(x, y) / y;\n\
         }\n",
    );
    for args in [
        "3.5,-2.25",
        "3.5,2.25",
        "2,-3",
        "1e10,1e-300",
        "-0.0,0.0",
        "nan,1",
    ] {
        let (recs, code) = common::cli::json_run(&[
            "run",
            &src,
            "-f",
            "f",
            "--cflag=-frounding-math",
            "--args",
            args,
        ]);
        assert_eq!(code, Some(0), "{args}: {recs:?}");
        for r in &recs {
            let d = &r["data"];
            // P' agrees wherever the input keeps fast-math's assumptions.
            if d["build"] == "P" || d["fast_math_note"].is_null() {
                assert_eq!(d["agrees"], true, "{args}: {d}");
            }
        }
    }
}

#[test]
fn hand_written_square_root_assembly_runs_and_other_assembly_is_named() {
    // musl's x86_64 sqrt and sqrtf are one `sqrtsd`/`sqrtss` in inline assembly, which
    // was refused as an "indirect call", and lrint/llrint one `cvtsd2si`. They run as the
    // instructions, bit for bit and
    // flag for flag with the executables; other assembly is refused by its text.
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "asm.c",
        "double root(double x) {\n\
         \x20 __asm__ (\"sqrtsd %1, %0\" : \"=x\"(x) : \"x\"(x));\n\
         \x20 return x;\n\
         }\n\
         float rootf(float x) {\n\
         \x20 __asm__ (\"sqrtss %1, %0\" : \"=x\"(x) : \"x\"(x));\n\
         \x20 return x;\n\
         }\n\
         long conv(double x) {\n\
         \x20 long r;\n\
         \x20 __asm__ (\"cvtsd2si %1, %0\" : \"=r\"(r) : \"x\"(x));\n\
         \x20 return r;\n\
         }\n\
         int convf(float x) {\n\
         \x20 int r;\n\
         \x20 __asm__ (\"cvtss2si %1, %0\" : \"=r\"(r) : \"x\"(x));\n\
         \x20 return r;\n\
         }\n\
         double ones(double x) {\n\
         \x20 double t;\n\
         \x20 __asm__ (\"pcmpeqd %0, %0\" : \"=x\"(t));\n\
         \x20 return x * t;\n\
         }\n",
    );
    for (function, args, result, flags) in [
        ("root", "2", "0x1.6a09e667f3bcdp+0", &["inexact"][..]),
        ("root", "-1", "-nan(0x8000000000000)", &["invalid"][..]),
        ("rootf", "0x1p-148", "0x1p-74", &[][..]),
        // musl's lrint/llrint: round to nearest-even in the current mode, then convert.
        ("conv", "2.5", "2", &["inexact"][..]),
        ("conv", "-3.5", "-4", &["inexact"][..]),
        ("conv", "3", "3", &[][..]),
        ("conv", "1e300", "-9223372036854775808", &["invalid"][..]),
        ("conv", "nan", "-9223372036854775808", &["invalid"][..]),
        ("convf", "0x1.8p+0", "2", &["inexact"][..]),
        ("convf", "3e9", "-2147483648", &["invalid"][..]),
    ] {
        let (recs, code) = common::cli::json_run(&["run", &src, "-f", function, "--args", args]);
        assert_eq!(code, Some(0), "{function}({args}): {recs:?}");
        let p = recs.iter().find(|r| r["data"]["build"] == "P").expect("P");
        let d = &p["data"];
        assert_eq!(d["agrees"], true, "{d}");
        assert!(
            d["result"].as_str().unwrap_or("").starts_with(result),
            "{function}({args}): {d}"
        );
        assert_eq!(
            d["flags"],
            serde_json::json!(flags),
            "{function}({args}): {d}"
        );
        assert_eq!(d["native_flags"], d["flags"], "{function}({args}): {d}");
    }
    let out = run(&["run", &src, "-f", "ones", "--args", "1"]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr.contains("inline assembly `pcmpeqd $0, $0`"),
        "{}",
        out.stderr
    );
}

#[test]
fn funnel_shifts_of_optimised_builds_run_as_their_shifts() {
    // -O3 turns rotates and `hi << k | lo >> (w - k)` into llvm.fshl, which P' refused
    // ("intrinsic llvm.fshl.i64"). Both builds agree with their executables bit for bit.
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "fsh.c",
        "#include <stdint.h>\n#include <string.h>\n\
         double rotated(double x) {\n\
         \x20 uint64_t u; memcpy(&u, &x, 8);\n\
         \x20 u = (u << 12) | (u >> 52);\n\
         \x20 double r; memcpy(&r, &u, 8); return r * 2.0;\n\
         }\n\
         double joined(double x, double y) {\n\
         \x20 uint64_t hi, lo; memcpy(&hi, &x, 8); memcpy(&lo, &y, 8);\n\
         \x20 uint64_t u = (hi << 7) | (lo >> 57);\n\
         \x20 uint32_t w = (uint32_t)hi; w = (w >> 3) | ((uint32_t)lo << 29);\n\
         \x20 double r; memcpy(&r, &u, 8); return r + (double)w;\n\
         }\n",
    );
    for (function, args) in [
        ("rotated", "1.5"),
        ("rotated", "-3.25e-300"),
        ("rotated", "nan"),
        ("joined", "1.5,-7.125"),
        ("joined", "0x1.fffffffffffffp+1023,0x1p-1074"),
    ] {
        let (recs, code) = common::cli::json_run(&["run", &src, "-f", function, "--args", args]);
        assert_eq!(code, Some(0), "{function}({args}): {recs:?}");
        assert_eq!(recs.len(), 2, "{recs:?}");
        for r in &recs {
            assert_eq!(r["data"]["agrees"], true, "{function}({args}): {r}");
        }
    }
}

#[test]
fn glibc_classification_functions_called_by_name_run_as_glibc_computes_them() {
    // Preprocessed code (SV-COMP's .i tasks) calls glibc's __isnan, __finite, __isinf,
    // __fpclassify by name: they were "call to external function '__isnan'". Each class
    // gives glibc's own value, the same as the executable's, raising no flag.
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "cls.c",
        "extern int __isnan(double), __isnanf(float), finite(double), __finitef(float);\n\
         extern int __isinf(double), __isinff(float), __fpclassify(double), __fpclassifyf(float);\n\
         double classes(double x) {\n\
         \x20 return __isnan(x) + 10 * finite(x) + 100 * __isinf(x) + 1000 * __fpclassify(x);\n\
         }\n\
         float classesf(float x) {\n\
         \x20 return __isnanf(x) + 10 * __finitef(x) + 100 * __isinff(x) + 1000 * __fpclassifyf(x);\n\
         }\n",
    );
    for (args, double, float) in [
        ("-nan", "0x1p+0", "0x1p+0"),
        ("inf", "0x1.13p+10", "0x1.13p+10"),
        ("-inf", "0x1.c2p+9", "0x1.c2p+9"),
        ("-0.0", "0x1.f68p+10", "0x1.f68p+10"),
        ("0x1p-1074", "0x1.784p+11", "0x1.f68p+10"),
        ("0x1p-149", "0x1.f54p+11", "0x1.784p+11"),
        ("-3", "0x1.f54p+11", "0x1.f54p+11"),
    ] {
        for (function, expected) in [("classes", double), ("classesf", float)] {
            let (recs, code) =
                common::cli::json_run(&["run", &src, "-f", function, "--args", args]);
            assert_eq!(code, Some(0), "{function}({args}): {recs:?}");
            for r in &recs {
                let d = &r["data"];
                assert_eq!(d["agrees"], true, "{function}({args}): {d}");
                if d["build"] == "P" {
                    assert_eq!(d["result"], expected, "{function}({args}): {d}");
                    assert_eq!(d["flags"], serde_json::json!([]), "{function}({args}): {d}");
                }
            }
        }
    }
}

#[test]
fn function_pointers_run_and_a_setup_call_runs_first_in_every_build() {
    // A table of function pointers and a global handler: calls through them were
    // "indirect call" for the interpreter. --setup-call runs handler_off first, in the
    // interpreter and in both executables, which all agree bit for bit.
    let src = common::cli::repo("tests/setup/handler.c")
        .display()
        .to_string();
    let result = |args: &str, setup: Option<&str>| {
        let mut all = vec!["run", &src, "-f", "apply", "--args", args];
        if let Some(s) = setup {
            all.extend_from_slice(&["--setup-call", s]);
        }
        let (recs, code) = common::cli::json_run(&all);
        assert_eq!(code, Some(0), "{args}: {recs:?}");
        for r in &recs {
            assert_eq!(r["data"]["agrees"], true, "{args} {setup:?}: {r}");
        }
        recs[0]["data"].clone()
    };
    assert_eq!(result("3,0", None)["result"], "0x1.8p+2");
    assert_eq!(result("3,1", None)["result"], "0x1.2p+3");
    let aborted = result("-1,0", None);
    assert_eq!(aborted["end"], "ended", "{aborted}");
    assert_eq!(aborted["native_end"], "aborts", "{aborted}");
    let handled = result("-1,0", Some("handler_off"));
    assert_eq!(handled["end"], "returned", "{handled}");
    assert!(
        handled["result"]
            .as_str()
            .is_some_and(|r| r.contains("nan")),
        "{handled}"
    );
    // The replay command carries the set-up call.
    let out = run(&[
        "error",
        &src,
        "-f",
        "apply",
        "--range",
        "x=-1:1",
        "--int",
        "which=1",
        "--time-budget",
        "2",
        "--setup-call",
        "handler_off",
    ]);
    assert!(
        out.stdout.contains("--setup-call=handler_off"),
        "{}",
        out.stdout
    );
    for (bad, says) in [
        ("nope", "no such function"),
        ("apply", "takes 2 parameters"),
    ] {
        let out = run(&[
            "run",
            &src,
            "-f",
            "apply",
            "--args",
            "1,0",
            "--setup-call",
            bad,
        ]);
        assert_eq!(out.code, 2, "{bad}");
        assert!(out.stderr.contains(says), "{bad}: {}", out.stderr);
    }
}
