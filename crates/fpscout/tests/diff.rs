//! End-to-end tests of `fpscout diff` on small functions with known P/P' differences,
//! and on one with none.

mod common;

use common::cli::{json_run, records, run};
use fpscout_ir::ExceptionKind;
use fpscout_search::diff::{run_diff, DiffConfig, DiffKind, DiffReport, ResultClass};
use fpscout_search::origin::{Aim, Origin, Phase};
use fpscout_search::session::{FtzDazChoice, Session};
use fpscout_toolchain::BuildFlags;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

fn source(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Solving forks the calling thread, which is only safe while no other thread is inside Z3
/// (see `fpscout_smt::isolate`): the tests of this binary take turns.
static ONE_Z3_USER: Mutex<()> = Mutex::new(());

fn diff(path: &Path, cfg: &DiffConfig) -> DiffReport {
    let _turn = ONE_Z3_USER.lock().unwrap_or_else(|e| e.into_inner());
    let session = Session::open(path, BuildFlags::default()).expect("session");
    run_diff(&session, cfg, &mut |_, _, _| {}).expect("diff runs")
}

fn quick(function: &str) -> DiffConfig {
    let mut cfg = DiffConfig::new(function);
    cfg.random_inputs = 2000;
    cfg.threads = 2;
    cfg
}

#[test]
fn vectorised_summation_overflow_is_found_by_the_solver_and_confirmed() {
    let sum = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sum.c");
    let mut cfg = quick("sum");
    cfg.common.array_lens.insert("x".into(), 9);
    cfg.common.ints.insert("n".into(), 9);
    // The solver alone must reach it: random inputs almost never align the huge values.
    cfg.random_inputs = 0;
    let r = diff(&sum, &cfg);
    // Z3's models reach it (the float solver's points, tried first, may too).
    let hit = r
        .findings
        .iter()
        .find(|f| {
            f.confirmed
                && f.p.flags.contains(ExceptionKind::Overflow)
                && !f.p_prime.flags.contains(ExceptionKind::Overflow)
                && f.origin.phase == Phase::Z3
        })
        .expect("an input from a Z3 model that overflows in P only");
    assert!(hit.kinds.contains(&DiffKind::Flags));
    assert!(matches!(
        hit.p.class,
        ResultClass::PosInf | ResultClass::NegInf
    ));
    assert_eq!(hit.p_prime.class, ResultClass::Finite);
    assert!(r.summary.constraints_p > 0 && r.summary.constraints_pprime > 0);
    assert_eq!(
        r.summary.diff_confirmed,
        r.findings.iter().filter(|f| f.confirmed).count()
    );
}

#[test]
fn reassociation_turns_an_overflow_into_a_finite_result() {
    let dir = tempfile::tempdir().unwrap();
    // -ffast-math folds (x + C) - C to x.
    let src = source(
        &dir,
        "reassoc.c",
        "double reassoc(double x) { return (x + 1e308) - 1e308; }\n",
    );
    let r = diff(&src, &quick("reassoc"));
    let hit = r
        .findings
        .iter()
        .find(|f| {
            f.confirmed
                && f.p.flags.contains(ExceptionKind::Overflow)
                && f.p_prime.class == ResultClass::Finite
        })
        .expect("P overflows, P' returns x");
    assert_eq!(hit.p.class, ResultClass::PosInf);
    assert!(hit.p_prime.flags.is_empty());
    assert!(!hit.ftz_only);
}

#[test]
fn removed_reciprocal_changes_a_division_by_zero() {
    let dir = tempfile::tempdir().unwrap();
    // 1/(1/x) is x under -ffast-math: at x = 0, P divides by zero and P' does not.
    let src = source(
        &dir,
        "recip.c",
        "double recip(double x) { return 1.0 / (1.0 / x); }\n",
    );
    let r = diff(&src, &quick("recip"));
    let hit = r
        .findings
        .iter()
        .find(|f| f.confirmed && f.p.flags.contains(ExceptionKind::DivByZero))
        .expect("divide-by-zero only in P");
    assert!(!hit.p_prime.flags.contains(ExceptionKind::DivByZero));
    assert!(
        matches!(
            hit.origin,
            Origin {
                phase: Phase::Z3,
                aim: Some(Aim {
                    kind: ExceptionKind::DivByZero,
                    ..
                }),
            }
        ),
        "{:?}",
        hit.origin
    );
    assert_eq!(
        r.summary.constraints_pprime, 0,
        "P' has no floating-point operation left"
    );
}

#[test]
fn ftz_only_differences_are_confirmed_and_marked() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(
        &dir,
        "ftz.c",
        "double ftz(double x) { return x * 0x1p-1000; }\n",
    );
    let r = diff(&src, &quick("ftz"));
    let hit = r
        .findings
        .iter()
        .find(|f| f.confirmed && f.p.flags.contains(ExceptionKind::Underflow))
        .expect("a subnormal product flushed to zero in P'");
    assert!(hit.ftz_only, "the difference disappears without FTZ/DAZ");
    assert!(r
        .findings
        .iter()
        .filter(|f| f.confirmed)
        .all(|f| f.ftz_only));
}

#[test]
fn identical_builds_report_no_difference() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(
        &dir,
        "mul.c",
        "double mul(double x, double y) { return x * y; }\n",
    );
    let mut cfg = quick("mul");
    // Without FTZ/DAZ the two builds compute the same single multiplication.
    cfg.common.ftz_daz = FtzDazChoice::Off;
    let r = diff(&src, &cfg);
    assert_eq!(
        r.summary.diff_confirmed,
        0,
        "{:?}",
        r.findings.first().map(|f| (&f.input, &f.kinds))
    );
    assert!(
        r.summary.satisfiable > 0,
        "the overflow/underflow conditions are solved"
    );
    assert_eq!(r.summary.signatures, 0);
}

#[test]
fn every_phase_keeps_its_time_budget_on_a_float_dependent_loop() {
    // Newton's iteration: its branch checks are nonlinear queries that grow with every
    // unrolling, and its exact value doubles in size per step. Each phase must stop on
    // time, say so, and still find the FTZ-only differences.
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/trip.c");
    let mut cfg = quick("trip");
    cfg.explore_budget_s = 1.0;
    cfg.solve_budget_s = Some(1.0);
    let t = std::time::Instant::now();
    let r = diff(&src, &cfg);
    let wall = t.elapsed().as_secs_f64();
    assert!(wall < 20.0, "took {wall} s");
    assert!(r.summary.phases.collect < 2.5, "{:?}", r.summary.phases);
    assert!(r.summary.phases.solve < 1.5, "{:?}", r.summary.phases);
    let stopped = r.summary.stopped.join("; ");
    assert!(
        stopped.contains("exploration time budget exhausted"),
        "{stopped}"
    );
    // P' tests a zero-extended comparison: an integer condition, explored like any other.
    assert!(!stopped.contains("unsupported"), "{stopped}");
    assert!(r.summary.diff_confirmed > 0);
}

#[test]
fn inputs_that_crash_the_executable_cannot_stall_the_random_phase() {
    // With b = 0 every input divides by zero natively; each crash restarts the driver.
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/intmix.c");
    let mut cfg = quick("intmix");
    cfg.random_inputs = 100_000;
    cfg.random_budget_s = 1.0;
    let r = diff(&src, &cfg);
    assert!(
        r.summary.random_inputs < 100_000,
        "{}",
        r.summary.random_inputs
    );
    assert!(r.summary.phases.random < 10.0, "{:?}", r.summary.phases);
    let stopped = r.summary.stopped.join("; ");
    assert!(
        stopped.contains("random phase: its time budget of 1 s ran out"),
        "{stopped}"
    );
}

#[test]
fn ranges_bound_the_search_and_the_worst_divergence_has_an_exact_value() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(
        &dir,
        "poly.c",
        "double poly(double x, double y) { return (x * y + 1.0) * (x - y) + x * x * 0.5 - y / 3.0; }\n",
    );
    let mut cfg = quick("poly");
    cfg.common.ranges.insert("x".into(), (0.25, 2.0));
    cfg.common.ranges.insert("y".into(), (0.5, 1.5));
    let r = diff(&src, &cfg);
    for f in &r.findings {
        for a in &f.input {
            let fpscout_walk::concrete::ArgBits::Scalar(b) = a else {
                panic!("scalar inputs")
            };
            let v = f64::from_bits(*b);
            assert!(
                (0.25..=2.0).contains(&v) || (0.5..=1.5).contains(&v),
                "{v} outside the ranges"
            );
        }
        assert!(
            f.p.flags.is_empty() && f.p_prime.flags.is_empty(),
            "no exception is possible in range"
        );
    }
    if let Some(w) = &r.summary.worst {
        assert!(w.exact.is_some(), "a rational function has an exact value");
        assert!(w.closer.is_some());
    }
}

#[test]
fn cli_exit_codes_and_json_summary() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(
        &dir,
        "reassoc.c",
        "double reassoc(double x) { return (x + 1e308) - 1e308; }\n",
    );
    let out = run(&[
        "diff",
        src.to_str().unwrap(),
        "-f",
        "reassoc",
        "--random",
        "500",
        "--json",
    ]);
    assert_eq!(out.code, 1, "differences found: {}", out.stderr);
    let lines = records(&out.stdout);
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    for key in [
        "constraints_p",
        "constraints_pprime",
        "satisfiable",
        "unique_inputs",
        "diff_confirmed",
        "diff_unconfirmed",
        "unknown",
        "signatures",
        "max_ulps",
        "wall_seconds",
    ] {
        assert!(summary["data"].get(key).is_some(), "summary has {key}");
    }
    let finding = &lines[0];
    assert_eq!(finding["type"], "finding");
    assert!(finding["data"]["inputs"][0]["value"]["hex"].is_string());
    assert_eq!(finding["data"]["confirmed"], true);

    let same = source(
        &dir,
        "mul.c",
        "double mul(double x, double y) { return x * y; }\n",
    );
    let out = run(&[
        "diff",
        same.to_str().unwrap(),
        "-f",
        "mul",
        "--random",
        "500",
        "--ftz-daz",
        "off",
    ]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let out = run(&[
        "diff",
        same.to_str().unwrap(),
        "-f",
        "mul",
        "--range",
        "x=3:1",
    ]);
    assert_eq!(out.code, 2);
}

#[test]
fn differences_the_model_misses_are_confirmed_on_the_executables() {
    // jetEngine's P' computes lane 1 of an `addpd` (line 8) that the IR never reads: on
    // this input it overflows there, which the interpreter does not model. The search
    // runs on the executables, so the difference is found and confirmed all the same,
    // with the executable's own trace and the interpreter's disagreement said.
    let jet = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/diff/jetEngine.c");
    let mut cfg = quick("jetEngine");
    cfg.random_inputs = 20_000;
    let r = diff(&jet, &cfg);
    assert_eq!(r.summary.diff_unconfirmed, 0);
    assert!(r.summary.diff_confirmed > 0);
    let missed = r
        .findings
        .iter()
        .find(|f| {
            f.confirmed
                && !f.model_agrees
                && f.p_prime.trace.events.iter().any(|e| {
                    e.insn == "addpd"
                        && e.flags.contains(ExceptionKind::Overflow)
                        && e.loc.as_ref().map(|l| l.line) == Some(8)
                })
        })
        .expect("a confirmed finding with the unread-lane overflow");
    assert!(missed.p_prime.flags.contains(ExceptionKind::Overflow));
    assert_eq!(
        r.summary.model_disagreements,
        r.findings
            .iter()
            .filter(|f| f.confirmed && !f.model_agrees)
            .count()
    );
    // Every confirmed finding's flags are its trace's.
    for f in r.findings.iter().filter(|f| f.confirmed) {
        for o in [&f.p, &f.p_prime] {
            let union = o
                .trace
                .events
                .iter()
                .fold(fpscout_ir::ExceptionSet::EMPTY, |u, e| u.union(e.flags));
            assert_eq!(union.without_inexact(), o.flags, "{:?}", o.trace);
        }
    }
}

#[test]
fn a_build_that_hangs_where_the_other_ends_is_a_termination_difference() {
    // P loops forever on NaN (`!(x <= 1.0)` stays true); fast-math's P' assumes no NaN,
    // folds the test to `x > 1.0` and returns at once.
    let dir = tempfile::tempdir().unwrap();
    let src = source(
        &dir,
        "halve.c",
        "double halve(double x) {\n  while (!(x <= 1.0)) x = x / 2.0;\n  return x;\n}\n",
    );
    let mut cfg = quick("halve");
    cfg.common.hang_limit_ms = 100;
    let t = std::time::Instant::now();
    let r = diff(&src, &cfg);
    let hit = r
        .findings
        .iter()
        .find(|f| f.confirmed && f.kinds.contains(&DiffKind::Termination))
        .expect("a confirmed termination difference");
    assert_eq!(hit.p.class, ResultClass::Hang);
    assert_eq!(hit.p_prime.class, ResultClass::Nan);
    assert_eq!(hit.origin, Origin::of(Phase::Seed));
    assert!(hit
        .fast_math_note
        .as_deref()
        .is_some_and(|n| n.contains("nnan")));
    assert!(t.elapsed().as_secs() < 60, "{:?}", t.elapsed());
}

#[test]
fn inputs_that_hang_in_both_builds_are_reported_and_cost_little() {
    // Newton's square root never ends for a < 0 in either build (nor for DBL_MAX).
    let dir = tempfile::tempdir().unwrap();
    let src = source(
        &dir,
        "newton.c",
        "#include <math.h>\ndouble newton_sqrt(double a) {\n  double x = a > 1.0 ? a : 1.0;\n  \
         while (fabs(x * x - a) > 1e-12 * a) x = 0.5 * (x + a / x);\n  return x;\n}\n",
    );
    let mut cfg = quick("newton_sqrt");
    cfg.common.hang_limit_ms = 100;
    cfg.explore_budget_s = 1.0;
    cfg.solve_budget_s = Some(1.0);
    cfg.random_budget_s = 2.0;
    let t = std::time::Instant::now();
    let r = diff(&src, &cfg);
    assert!(!r.non_terminating.is_empty());
    for input in &r.non_terminating {
        let fpscout_walk::concrete::ArgBits::Scalar(a) = input[0] else {
            panic!("{input:?}")
        };
        // a < 0, or a so large that x·x overflows once x nears sqrt(a) (the seed
        // DBL_MAX finds this one): the loop test stays inf > 1e-12·a.
        let a = f64::from_bits(a);
        assert!(!(0.0..=1e300).contains(&a), "{a}");
    }
    assert!(t.elapsed().as_secs() < 60, "{:?}", t.elapsed());
}

/// A library-style routine whose error path prints and aborts (GSL_ERROR's shape).
const ERROR_PATH: &str = "#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n\
static void lib_error(const char *what, double x) {\n\
  fprintf(stderr, \"error: %s (x = %g)\\n\", what, x);\n  abort();\n}\n\
double ratio(double x, double y) {\n\
  if (!(x > 0) || !(y > 0)) lib_error(\"domain error\", x);\n\
  double r = log(x) - log(y);\n  printf(\"ratio %g\\n\", r);\n\
  return r * 1e300 / (x - y);\n}\n";

#[test]
fn a_function_with_output_and_an_abort_path_is_analysed() {
    let dir = tempfile::tempdir().unwrap();
    let src = source(&dir, "ratio.c", ERROR_PATH);
    let mut cfg = quick("ratio");
    cfg.common.time_budget_s = 20.0;
    let r = diff(&src, &cfg);
    // P' runs with DAZ: a subnormal x or y reads as 0, fails `> 0` and aborts where P
    // returns: a difference in how the program ends, confirmed natively.
    let hit = r
        .findings
        .iter()
        .find(|f| f.confirmed && f.kinds.contains(&DiffKind::End))
        .expect("a confirmed end difference");
    assert_eq!(hit.p_prime.class, ResultClass::Abort);
    assert_eq!(hit.p_prime.end, Some(fpscout_ir::ProgramEnd::Abort));
    assert!(!hit.p.class.is_end(), "{:?}", hit.p);
    let value = |i: usize| match hit.input[i] {
        fpscout_walk::concrete::ArgBits::Scalar(b) => f64::from_bits(b),
        _ => panic!("{:?}", hit.input),
    };
    let (x, y) = (value(0), value(1));
    let subnormal = |v: f64| v > 0.0 && v < f64::MIN_POSITIVE;
    assert!(
        (subnormal(x) && y > 0.0) || (subnormal(y) && x > 0.0),
        "x = {x:e}, y = {y:e}"
    );
    assert!(hit.model_agrees, "{hit:?}");
    // The reachable exceptions of the division are found too.
    assert!(r.findings.iter().any(|f| f.confirmed
        && (f.p.flags.contains(ExceptionKind::Overflow)
            || f.p.flags.contains(ExceptionKind::Invalid))));
}

#[test]
fn the_sweep_finds_a_signature_only_two_floats_have() {
    // 1/x is an exact subnormal only for x = ±2^127: P raises nothing, P' (FTZ) flushes it
    // and raises underflow. Two inputs of 2^32, which the sweep's power-of-two stride hits.
    let dir = tempfile::tempdir().unwrap();
    let src = source(
        &dir,
        "recip.c",
        "float recip(float x) { return 1.0f / x; }\n",
    );
    let r = diff(&src, &quick("recip"));
    let mut underflow_only = fpscout_ir::ExceptionSet::EMPTY;
    underflow_only.insert(ExceptionKind::Underflow);
    let hit = r
        .findings
        .iter()
        .find(|f| {
            f.confirmed
                && f.p.flags.is_empty()
                && f.p_prime.flags == underflow_only
                && f.p.class == ResultClass::Finite
        })
        .expect("the exact-subnormal signature");
    let fpscout_walk::concrete::ArgBits::Scalar(x) = hit.input[0] else {
        panic!("{:?}", hit.input)
    };
    assert_eq!(f32::from_bits(x as u32).abs(), 2f32.powi(127));
    let seen = r
        .summary
        .signature_inputs
        .iter()
        .find(|c| c.p_flags.is_empty() && c.p_prime_flags == underflow_only)
        .expect("counted");
    assert!(seen.inputs >= 1 && seen.inputs < 100, "{}", seen.inputs);
    // Counted signatures say whether a confirmed finding shows them (the summary once
    // counted "P' none hang: 2" inputs that were in no finding, without saying so).
    for c in &r.summary.signature_inputs {
        let found = r.findings.iter().any(|f| {
            f.confirmed
                && (f.p.flags, f.p_prime.flags, f.p.class, f.p_prime.class)
                    == (c.p_flags, c.p_prime_flags, c.p_class, c.p_prime_class)
        });
        assert_eq!(c.confirmed, found, "{c:?}");
    }
    assert!(seen.confirmed);
    assert!(r.summary.phases.sweep > 0.0);
}

#[test]
fn the_automatic_solve_budget_ends_when_models_stop_giving_new_candidates() {
    // 200 unrolled iterations give thousands of alike queries, most of which time out:
    // once models stop giving new candidates, the automatic budget is not spent to the end.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/budget/pid.c");
    let mut cfg = quick("pid");
    for name in ["m", "c"] {
        cfg.common.ranges.insert(name.into(), (-10.0, 10.0));
    }
    let r = diff(&src, &cfg);
    let stopped = r.summary.stopped.join("; ");
    assert!(stopped.contains("solver saturated"), "{stopped}");
    assert!(
        r.summary.not_attempted > 1000,
        "{}",
        r.summary.not_attempted
    );
    assert!(r.summary.satisfiable > 0);
    assert!(r.summary.diff_confirmed > 0);
    // A budget the user gives is spent as given.
    cfg.solve_budget_s = Some(2.0);
    let r = diff(&src, &cfg);
    let stopped = r.summary.stopped.join("; ");
    assert!(!stopped.contains("solver saturated"), "{stopped}");
}

#[test]
fn a_reference_names_the_build_closer_to_the_mathematical_value() {
    // (x + 1e16) - 1e16 absorbs x in P; fast-math folds it to x, the exact value: every
    // finding with a finite reference names P' closer, by exactly P's ulps.
    let dir = tempfile::tempdir().unwrap();
    let src = source(
        &dir,
        "absorb.c",
        "double absorb(double x) { return (x + 1e16) - 1e16; }\n",
    );
    let (lines, code) = json_run(&[
        "diff",
        src.to_str().unwrap(),
        "-f",
        "absorb",
        "--range",
        "x=-100:100",
        "--time-budget",
        "5",
        "--reference",
        "x",
    ]);
    assert_eq!(code, Some(1));
    let findings: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["type"] == "finding").collect();
    assert!(!findings.is_empty());
    for f in &findings {
        let r = &f["data"]["reference"];
        let x: f64 = f["data"]["inputs"][0]["value"]["decimal"]
            .as_str()
            .and_then(|d| d.parse().ok())
            .expect("input");
        assert_eq!(r["exact"].as_f64(), Some(x), "{f}");
        assert_eq!(r["p_prime_ulps"].as_f64(), Some(0.0), "{f}");
        assert!(r["p_ulps"].as_f64().is_some_and(|u| u > 0.0), "{f}");
        assert_eq!(r["closer"], "P'", "{f}");
    }
    let summary = lines.last().unwrap();
    assert_eq!(summary["data"]["reference"], "x");
    // A reference over a name the function does not have is an input error.
    let out = run(&[
        "diff",
        src.to_str().unwrap(),
        "-f",
        "absorb",
        "--reference",
        "(sin y)",
    ]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--reference"), "{}", out.stderr);
}
