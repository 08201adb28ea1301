//! `fpscout exceptions` through the binary: JSON Lines and exit codes for one function,
//! a whole file analysed over worker processes, and clear errors.

mod common;

use common::cli::{records, run, write};
use std::path::Path;

fn corpus(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn one_function_in_json_lines_exits_1_with_located_findings() {
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("av1.sarif");
    let out = run(&[
        "exceptions",
        "--sarif",
        sarif.to_str().unwrap(),
        &corpus("av1.c"),
        "-f",
        "av1",
        "--json",
        "--time-budget",
        "10",
        "--random",
        "2000",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let recs = records(&out.stdout);
    let overflow = recs
        .iter()
        .find(|r| r["type"] == "finding" && r["data"]["kind"] == "overflow")
        .expect("an overflow finding");
    let d = &overflow["data"];
    assert_eq!(d["mode"], "exceptions");
    assert_eq!(d["operation"], "fadd");
    assert_eq!(d["line"], 2);
    assert!(d["location"].as_str().unwrap().contains("av1.c:2:"));
    assert_eq!(d["class"], "potentially_avoidable");
    // The witness replays through `fpscout run` as printed.
    let args = d["witnesses"][0]["run_args"].as_str().unwrap().to_string();
    let replay = run(&["run", &corpus("av1.c"), "-f", "av1", "--args", &args]);
    assert!(
        replay.stdout.contains("overflow"),
        "{}\n{}",
        replay.stdout,
        replay.stderr
    );
    let summary = recs.last().expect("summary record");
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["data"]["function"], "av1");
    assert!(summary["data"]["locations"].as_u64().unwrap() >= 1);
    assert!(summary["data"]["queries"]["z3_sat"].as_u64().unwrap() >= 1);
    // The same findings as SARIF (validated against the schema in tests/sarif.rs).
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("SARIF written"))
            .expect("SARIF is JSON");
    let results = log["runs"][0]["results"].as_array().expect("results");
    let findings = recs.iter().filter(|r| r["type"] == "finding").count();
    assert_eq!(results.len(), findings);
    assert!(results.iter().any(|r| r["ruleId"] == "overflow"));
}

#[test]
fn a_function_without_exceptions_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "calm.c",
        "double calm(double x) { if (x > 1.0 && x < 2.0) return x * 0.5 + 1.0; return 1.0; }\n",
    );
    let out = run(&[
        "exceptions",
        &src,
        "-f",
        "calm",
        "--time-budget",
        "10",
        "--random",
        "2000",
    ]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("none found within these bounds"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_whole_file_gets_one_line_per_function_and_a_total() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "lib.c",
        "double half_sum(double x, double y) { return (x + y) / 2.0; }\n\
         double inverse(double x) { return 1.0 / x; }\n\
         double calm(double x) { return x > 1.0 && x < 2.0 ? x * 0.5 : 1.0; }\n\
         int count(int n) { return n + 1; }\n\
         double first(const double *a) { return a[0]; }\n\
         static double hidden(double x) { return x * x; }\n\
         double uses_hidden(double x) { return hidden(x) > 4.0 ? 1.0 : 0.0; }\n",
    );
    let out = run(&[
        "exceptions",
        &src,
        "--jobs",
        "2",
        "--time-budget",
        "8",
        "--random",
        "1000",
        "--json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let recs = records(&out.stdout);
    let mut analysed: Vec<String> = recs
        .iter()
        .filter(|r| r["type"] == "summary")
        .map(|r| r["data"]["function"].as_str().unwrap().to_string())
        .collect();
    analysed.sort();
    // Number parameters only, exported only: not `count` (no float), `first` (a
    // pointer) or the static `hidden`.
    assert_eq!(analysed, ["calm", "half_sum", "inverse", "uses_hidden"]);
    let total = recs.last().expect("total");
    assert_eq!(total["type"], "total");
    assert_eq!(total["data"]["functions"], 4);
    assert!(recs.iter().any(|r| r["type"] == "finding"
        && r["data"]["function"] == "inverse"
        && r["data"]["kind"] == "divbyzero"));
    // Calls are followed: the square inside `hidden` overflows under `uses_hidden`.
    assert!(recs.iter().any(|r| r["type"] == "finding"
        && r["data"]["function"] == "uses_hidden"
        && r["data"]["kind"] == "overflow"
        && r["data"]["in_function"] == "hidden"));

    let text = run(&[
        "exceptions",
        &src,
        "--jobs",
        "2",
        "--time-budget",
        "8",
        "--random",
        "1000",
    ]);
    assert_eq!(text.code, 1, "{}", text.stderr);
    assert!(
        text.stdout.lines().any(|l| l.starts_with("inverse ")),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("total: 4 functions analysed"),
        "{}",
        text.stdout
    );
}

#[test]
fn bad_arguments_exit_2_with_a_message() {
    let av1 = corpus("av1.c");
    for (args, says) in [
        (
            vec!["exceptions", &av1, "-f", "nope"],
            "function 'nope' not found",
        ),
        (
            vec!["exceptions", &av1, "-f", "av1", "--range", "z=0:1"],
            "has no parameter 'z'",
        ),
        (
            vec!["exceptions", &av1, "-f", "av1", "--time-budget", "nan"],
            "--time-budget",
        ),
        (
            vec!["exceptions", "/nonexistent.c", "-f", "av1"],
            "no such file",
        ),
    ] {
        let out = run(&args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn an_isfinite_guard_no_longer_stops_the_symbolic_half() {
    // isfinite, isnan (llvm.is.fpclass at -O0) and glibc's isinf (fabs == inf, then a
    // sign test on the bits) before the code: the overflow behind them is Z3's to find,
    // with no random inputs, and the symbolic walk is not stopped.
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "guarded.c",
        "#include <math.h>\n\
         double guarded(double x) {\n\
         \x20 if (!isfinite(x)) return 0;\n\
         \x20 if (isnan(x) || isinf(x)) return 1;\n\
         \x20 if (x / 3.0 > 4e199 && x / 3.0 < 5e199) return x * x;\n\
         \x20 return 1.0;\n\
         }\n",
    );
    let out = solver_only(&src, "guarded");
    assert_eq!(out.code, 1, "{}", out.stderr);
    let recs = records(&out.stdout);
    let overflow = recs
        .iter()
        .find(|r| r["type"] == "finding" && r["data"]["kind"] == "overflow")
        .unwrap_or_else(|| panic!("an overflow finding: {}", out.stdout));
    assert_eq!(overflow["data"]["operation"], "fmul");
    assert_eq!(overflow["data"]["line"], 5);
    assert_eq!(
        overflow["data"]["witnesses"][0]["source"], "z3",
        "{overflow}"
    );
    assert_solver_engaged(&recs, 1);
}

#[test]
fn a_table_lookup_by_the_bits_of_x_pins_its_index() {
    // musl's shape: a table indexed by bits of x (`T[(ix >> 51) & 3]`). The walk used to
    // stop at the load ("an address, index or switch value depends on symbolic input");
    // the index now takes a value of a model of the path, pinned in the path condition,
    // and the overflow of the product behind the lookup is Z3's to find.
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "table.c",
        "#include <stdint.h>\n\
         static const double T[4] = {1.0, 2.0, 1e300, 4.0};\n\
         double f(double x) {\n\
         \x20 union { double f; uint64_t i; } u = {x};\n\
         \x20 int i = (u.i >> 51) & 3;\n\
         \x20 return T[i] * x * 1e10;\n\
         }\n",
    );
    let out = solver_only(&src, "f");
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let recs = records(&out.stdout);
    assert_solver_engaged(&recs, 1);
    let overflow = recs
        .iter()
        .find(|r| {
            r["type"] == "finding"
                && r["data"]["kind"] == "overflow"
                && r["data"]["line"] == 6
                && r["data"]["witnesses"]
                    .as_array()
                    .is_some_and(|w| w.iter().any(|w| w["source"] == "z3"))
        })
        .unwrap_or_else(|| panic!("an overflow on line 6 found by Z3: {}", out.stdout));
    assert_eq!(overflow["data"]["operation"], "fmul", "{overflow}");
}

#[test]
fn a_switch_on_a_symbolic_integer_forks_the_walk() {
    // sin's shape after argument reduction: a switch on n & 3 of an integer converted
    // from x. The walk used to stop at the switch ("an address, index or switch value
    // depends on symbolic input"); now each case is a path, and the division by zero in
    // case 0 (at x = 3/2, where n is 0) is Z3's to find.
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "quadrant.c",
        "double f(double x) {\n\
         \x20 int n = (int)(x * 0.6366197723675814);\n\
         \x20 switch (n & 3) {\n\
         \x20 case 0: return 1.0 / (x * 2.0 - 3.0);\n\
         \x20 case 1: return x * 1e300;\n\
         \x20 default: return x;\n\
         \x20 }\n\
         }\n",
    );
    let division = solver_finding(&src, "f", "divbyzero", 4);
    assert_eq!(
        division["data"]["witnesses"][0]["source"], "z3",
        "{division}"
    );
}

#[test]
fn word_tests_keep_the_solver_engaged() {
    // fdlibm's shape: EXTRACT_WORDS through a union, the magnitude of the high word
    // compared with constants, the words ORed for the zero test. The division by zero
    // at x = 13/4 sits behind 2 <= |x| < 4 written as a high-word test, which Z3 reads
    // as a range of the real (no random inputs; the seeds do not hold 13/4). Reading a
    // symbolic double's words used to stop the walk ("reinterpreting bytes of a
    // symbolic value").
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "words.c",
        "#include <stdint.h>\n\
         typedef union { double value; struct { uint32_t lsw; uint32_t msw; } parts; } shape;\n\
         double f(double x) {\n\
         \x20 shape u; u.value = x;\n\
         \x20 int32_t hx = u.parts.msw; uint32_t lx = u.parts.lsw;\n\
         \x20 int32_t ix = hx & 0x7fffffff;\n\
         \x20 if ((ix | lx) == 0) return 1.0;\n\
         \x20 if (ix >= 0x40000000 && ix < 0x40100000 && hx > 0) return 1.0 / (x * 4.0 - 13.0);\n\
         \x20 return x;\n\
         }\n",
    );
    let division = solver_finding(&src, "f", "divbyzero", 8);
    assert_eq!(
        division["data"]["witnesses"][0]["source"], "z3",
        "{division}"
    );
}

#[test]
fn a_calloc_work_array_keeps_the_solver_engaged() {
    // The shape of R's bessel_j: a work array from calloc, filled by a recurrence in x,
    // summed and freed. The overflow behind the narrow test is Z3's to find (no random
    // inputs), through values that went through heap memory, and nothing stops the
    // symbolic walk (calloc used to be "an external function whose argument or result
    // type is not a C number").
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "work.c",
        "#include <stdlib.h>\n\
         double work(double x) {\n\
         \x20 int n = 6;\n\
         \x20 double *w = calloc(n, sizeof(double));\n\
         \x20 if (!w) return 0;\n\
         \x20 w[0] = x;\n\
         \x20 for (int i = 1; i < n - 1; i++) w[i] = w[i - 1] * 0.5 + 1.0;\n\
         \x20 double s = 0;\n\
         \x20 for (int i = 0; i < n; i++) s += w[i];\n\
         \x20 double *v = realloc(w, 2 * n * sizeof(double));\n\
         \x20 v[n] = s;\n\
         \x20 double t = v[n] / 3.0;\n\
         \x20 free(v);\n\
         \x20 if (t > 4e199 && t < 5e199) return t * t;\n\
         \x20 return t;\n\
         }\n",
    );
    let out = solver_only(&src, "work");
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("unsupported"), "{}", out.stdout);
    let recs = records(&out.stdout);
    let overflow = recs
        .iter()
        .find(|r| {
            r["type"] == "finding" && r["data"]["kind"] == "overflow" && r["data"]["line"] == 14
        })
        .unwrap_or_else(|| panic!("an overflow finding on line 14: {}", out.stdout));
    assert_eq!(overflow["data"]["operation"], "fmul");
    assert_eq!(
        overflow["data"]["witnesses"][0]["source"], "z3",
        "{overflow}"
    );
    assert_solver_engaged(&recs, 1);
}

#[test]
fn infinity_constants_no_longer_stop_the_symbolic_half() {
    // An infinity returned, compared with, selected on a symbolic condition, passed to
    // fmax and added: the symbolic reals carry them as cases, and the overflows behind
    // them are Z3's to find (no random inputs), with the walk not stopped (it stopped at
    // "non-finite constant in the symbolic real domain" before).
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "infinite.c",
        "#include <math.h>\n\
         double infinite(double x) {\n\
         \x20 if (x < 0) return -INFINITY;\n\
         \x20 if (x == INFINITY) return x;\n\
         \x20 double bound = x > 1 ? INFINITY : -INFINITY;\n\
         \x20 double top = fmax(x, -INFINITY) + bound;\n\
         \x20 if (top != INFINITY) return 0;\n\
         \x20 double y = x * 1e300;\n\
         \x20 return y * 1e10;\n\
         }\n",
    );
    let out = solver_only(&src, "infinite");
    assert_eq!(out.code, 1, "{}", out.stderr);
    let recs = records(&out.stdout);
    for line in [8, 9] {
        let overflow = recs
            .iter()
            .find(|r| {
                r["type"] == "finding"
                    && r["data"]["kind"] == "overflow"
                    && r["data"]["line"] == line
            })
            .unwrap_or_else(|| panic!("an overflow at line {line}: {}", out.stdout));
        assert_eq!(overflow["data"]["operation"], "fmul");
        // Line 8's overflow is also a seed's (DBL_MAX); line 9's is a model's.
        if line == 9 {
            assert!(
                overflow["data"]["witnesses"]
                    .as_array()
                    .is_some_and(|w| w.iter().any(|w| w["source"] == "z3")),
                "{overflow}"
            );
        }
    }
    assert_solver_engaged(&recs, 2);
}

/// `exceptions` on `function` with random inputs off, so that what it finds is the
/// solvers' (10 s budget, JSON records).
fn solver_only(src: &str, function: &str) -> common::cli::Output {
    run(&[
        "exceptions",
        src,
        "-f",
        function,
        "--json",
        "--time-budget",
        "10",
        "--random",
        "0",
    ])
}

/// `exceptions` of `function` without random inputs, its exit code 1 and its solver
/// engaged: the finding of `kind` on `line` (the first, in report order).
fn solver_finding(src: &str, function: &str, kind: &str, line: u64) -> serde_json::Value {
    let out = solver_only(src, function);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let recs = records(&out.stdout);
    assert_solver_engaged(&recs, 1);
    recs.into_iter()
        .find(|r| r["type"] == "finding" && r["data"]["kind"] == kind && r["data"]["line"] == line)
        .unwrap_or_else(|| panic!("a finding of {kind} on line {line}: {}", out.stdout))
}

/// The summary says the symbolic walk was not stopped and Z3 answered at least
/// `satisfiable` queries.
fn assert_solver_engaged(recs: &[serde_json::Value], satisfiable: u64) {
    let summary = &recs.last().expect("summary record")["data"];
    assert_eq!(summary["stopped"], serde_json::json!([]), "{summary}");
    assert!(
        summary["queries"]["z3_sat"].as_u64().unwrap() >= satisfiable,
        "{summary}"
    );
}

#[test]
fn a_reference_classifies_exceptions_as_inherent_or_spurious() {
    // x*x overflows in sqrt(x*x + y*y) where hypot(x, y) is an ordinary number (the
    // algorithm's exception: spurious); exp(1000) overflows in the mathematics too.
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "ref.c",
        "#include <math.h>\n\
         double norm(double x, double y) { return sqrt(x * x + y * y); }\n\
         double grow(double x) { return exp(x); }\n",
    );
    let classes = |function: &str, reference: &str| -> Vec<(String, String, String)> {
        let out = run(&[
            "exceptions",
            &src,
            "-f",
            function,
            "--time-budget",
            "5",
            "--reference",
            reference,
            "--json",
        ]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        records(&out.stdout)
            .iter()
            .filter(|r| r["type"] == "finding")
            .map(|r| {
                let d = &r["data"];
                (
                    d["operation"].as_str().unwrap_or("").to_string(),
                    d["kind"].as_str().unwrap_or("").to_string(),
                    d["class"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let norm = classes("norm", "(hypot x y)");
    assert!(
        norm.iter()
            .any(|(op, kind, class)| op == "fmul" && kind == "overflow" && class == "spurious"),
        "{norm:?}"
    );
    let grow = classes("grow", "(exp x)");
    assert!(
        grow.iter()
            .any(|(_, kind, class)| kind == "overflow" && class == "inherent"),
        "{grow:?}"
    );
    assert!(
        grow.iter().all(|(_, _, class)| class == "inherent"),
        "{grow:?}"
    );
    // A reference over a name the function does not have is an input error.
    let out = run(&["exceptions", &src, "-f", "grow", "--reference", "(exp y)"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
}
