//! The float solver as the refinement step of `exceptions` and `diff`: a target only floats reach is witnessed (and replays natively), one no float reaches is proved infeasible, a difference behind a branch only floats take is found, and Z3 alone does none of it.

mod common;

use common::cli::{records, run};
use fpscout_ir::ExceptionKind;
use fpscout_search::diff::{run_diff, DiffConfig, DiffKind, DiffReport};
use fpscout_search::exceptions::{
    run_exceptions, ExceptionsConfig, ExceptionsReport, Refinement, TargetOutcome,
};
use fpscout_search::origin::{Aim, Build, Origin, Phase};
use fpscout_search::session::Session;
use fpscout_toolchain::{BuildFlags, BuildKind};
use fpscout_walk::concrete::ArgBits;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Solving forks the calling thread (see `fpscout_smt::isolate`): tests take turns.
static ONE_Z3_USER: Mutex<()> = Mutex::new(());

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/refine")
        .join(name)
}

/// Solvers only: no random inputs, so what is raised is what the solvers found.
fn solvers_only(function: &str, float_solver: bool) -> ExceptionsConfig {
    let mut cfg = ExceptionsConfig::new(function);
    cfg.threads = 2;
    cfg.random_inputs = 0;
    cfg.common.time_budget_s = 20.0;
    cfg.float_solver = float_solver;
    cfg
}

fn exceptions(path: &Path, cfg: &ExceptionsConfig) -> (Session, ExceptionsReport) {
    let _turn = ONE_Z3_USER.lock().unwrap_or_else(|e| e.into_inner());
    let session = Session::open(path, BuildFlags::default()).expect("session");
    let report = run_exceptions(&session, cfg, &mut |_, _, _| {}).expect("exceptions runs");
    (session, report)
}

/// The target of `kind` at the operation on `line`.
fn target(r: &ExceptionsReport, line: u32, kind: ExceptionKind) -> &TargetOutcome {
    r.targets
        .iter()
        .find(|t| t.kind == kind && t.location.as_ref().is_some_and(|l| l.line == line))
        .unwrap_or_else(|| {
            panic!(
                "no {} target on line {line}: {:?}",
                kind.name(),
                r.targets
                    .iter()
                    .map(|t| (t.kind, t.location.clone()))
                    .collect::<Vec<_>>()
            )
        })
}

#[test]
fn an_overflow_only_floats_reach_is_witnessed_by_the_float_solver() {
    let path = program("absorbed.c");
    // Z3 (with the fallback solver, the seeds and the neighbourhood search) alone: over
    // the reals the branch means x = 0, and the product cannot overflow.
    let (_, alone) = exceptions(&path, &solvers_only("absorbed", false));
    let t = target(&alone, 5, ExceptionKind::Overflow);
    assert_eq!(t.raised_by, None, "{t:?}");
    assert_eq!(t.float_solver, None);

    let (session, refined) = exceptions(&path, &solvers_only("absorbed", true));
    let t = target(&refined, 5, ExceptionKind::Overflow);
    assert_eq!(t.raised_by, Some(Phase::FloatSolver), "{t:?}");
    assert_eq!(t.float_solver, Some(Refinement::Witnessed));
    assert!(t.verdicts.float_solver_sat >= 1, "{:?}", t.verdicts);
    assert_eq!(
        refined.summary.targets_raised_by.get("float_solver"),
        Some(&1)
    );
    let finding = refined
        .findings
        .iter()
        .find(|x| {
            x.kind == ExceptionKind::Overflow && x.location.as_ref().is_some_and(|l| l.line == 5)
        })
        .expect("the overflow of x * 1e308 is a finding");
    let witness = finding
        .witnesses
        .iter()
        .find(|w| w.source == Phase::FloatSolver)
        .expect("a float-solver witness");
    // The witness takes the branch and overflows: 1.8 <= |x| <= 8, exactly as floats do.
    let ArgBits::Scalar(bits) = witness.input[0] else {
        panic!("a scalar input");
    };
    let x = f64::from_bits(bits);
    assert_eq!(x + 1e17, 1e17, "{x:e} takes the branch");
    assert!((x * 1e308).is_infinite(), "{x:e} overflows");
    // Replayed on a fresh executable, traced: overflow at line 5, column of the `*`.
    let fid = session
        .function(BuildKind::P, "absorbed")
        .expect("function");
    let f = session.p().expect("build P").function(fid);
    let native = session.native(BuildKind::P, fid, &[None]).expect("native");
    let traced = native
        .run_traced(
            &[fpscout_search::run::to_native(f, &witness.input)],
            &fpscout_native::RunOptions::default(),
        )
        .expect("traced replay");
    let loc = t.location.clone().expect("a source location");
    assert!(
        traced[0].trace.events.iter().any(|e| {
            e.flags.contains(ExceptionKind::Overflow)
                && e.loc
                    .as_ref()
                    .is_some_and(|l| l.line == loc.line && l.col == loc.col)
        }),
        "{:?}",
        traced[0].trace.events
    );
    // The sum's underflow, which Z3's tiny real sums suggested, is impossible over
    // floats (a sum that small is exact): proved, not left unknown. The sum runs before
    // the branch forks: one execution, shared by both paths.
    let sum = target(&refined, 4, ExceptionKind::Underflow);
    assert_eq!(
        sum.float_solver,
        Some(Refinement::Infeasible {
            paths: 2,
            executions: 1,
            loop_bound: 8,
            cut: 0
        }),
        "{sum:?}"
    );
}

#[test]
fn an_overflow_only_the_reals_reach_is_proved_infeasible_over_floats() {
    let path = program("root_two.c");
    let (_, alone) = exceptions(&path, &solvers_only("root_two", false));
    let t = target(&alone, 5, ExceptionKind::Overflow);
    assert_eq!(t.raised_by, None, "{t:?}");
    // Over the reals x = sqrt(2) satisfies it: Z3 says sat (or cannot tell), never unsat.
    assert_eq!(t.verdicts.z3_unsat, 0, "{:?}", t.verdicts);

    let (_, refined) = exceptions(&path, &solvers_only("root_two", true));
    let t = target(&refined, 5, ExceptionKind::Overflow);
    assert_eq!(t.raised_by, None);
    assert_eq!(
        t.float_solver,
        Some(Refinement::Infeasible {
            paths: 2,
            executions: 1,
            loop_bound: 8,
            cut: 0
        }),
        "{t:?}"
    );
    assert_eq!(t.verdicts.float_solver_infeasible, 1);
    assert!(refined
        .summary
        .float_solver
        .proofs
        .iter()
        .any(|p| p.starts_with("fmul overflow at") && p.contains(":5:")));
    // The square itself overflows for large x: found before the float solver is asked.
    let square = target(&refined, 4, ExceptionKind::Overflow);
    assert!(square.raised_by.is_some() && square.float_solver.is_none());
}

#[test]
fn the_float_solvers_witness_and_proofs_are_in_the_json_lines() {
    let absorbed = program("absorbed.c").display().to_string();
    let out = run(&[
        "exceptions",
        &absorbed,
        "-f",
        "absorbed",
        "--json",
        "--random",
        "0",
        "--time-budget",
        "10",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let recs = records(&out.stdout);
    let overflow = recs
        .iter()
        .find(|r| r["type"] == "finding" && r["data"]["kind"] == "overflow")
        .expect("the overflow finding");
    assert_eq!(overflow["data"]["line"], 5);
    assert_eq!(overflow["data"]["witnesses"][0]["source"], "float_solver");
    // Its run_args replay through `fpscout run`, which reports the overflow.
    let args = overflow["data"]["witnesses"][0]["run_args"]
        .as_str()
        .expect("run_args")
        .to_string();
    let replay = run(&["run", &absorbed, "-f", "absorbed", "--args", &args]);
    assert!(replay.stdout.contains("overflow"), "{}", replay.stdout);
    let summary = &recs.last().expect("summary")["data"];
    assert_eq!(summary["targets_raised_by"]["float_solver"], 1);
    let refined = &summary["float_solver"];
    assert_eq!(refined["witnessed"], 1, "{refined}");
    assert_eq!(refined["infeasible"], 3, "{refined}");
    assert_eq!(refined["unknown"], 0, "{refined}");
    let proofs: Vec<&str> = refined["proofs"]
        .as_array()
        .expect("proofs")
        .iter()
        .filter_map(|p| p.as_str())
        .collect();
    assert!(
        proofs
            .iter()
            .any(|p| p.starts_with("fadd underflow at") && p.contains("absorbed.c:4:")),
        "{proofs:?}"
    );
    // Without the float solver the overflow is not found (no random inputs either).
    let alone = run(&[
        "exceptions",
        &absorbed,
        "-f",
        "absorbed",
        "--json",
        "--random",
        "0",
        "--time-budget",
        "10",
        "--no-float-solver",
    ]);
    let recs = records(&alone.stdout);
    assert!(
        !recs
            .iter()
            .any(|r| r["type"] == "finding" && r["data"]["kind"] == "overflow"),
        "{}",
        alone.stdout
    );
    assert_eq!(
        recs.last().expect("summary")["data"]["float_solver"]["targets"],
        0
    );
}

fn diff(path: &Path, function: &str, float_solver: bool) -> DiffReport {
    let _turn = ONE_Z3_USER.lock().unwrap_or_else(|e| e.into_inner());
    let session = Session::open(path, BuildFlags::default()).expect("session");
    let mut cfg = DiffConfig::new(function);
    cfg.threads = 2;
    // The solvers, the seeds and the neighbourhood search only: what they find is theirs.
    cfg.random_inputs = 0;
    cfg.common.time_budget_s = 20.0;
    cfg.float_solver = float_solver;
    run_diff(&session, &cfg, &mut |_, _, _| {}).expect("diff runs")
}

#[test]
fn the_float_solver_step_of_diff_saturates_before_a_generous_share_ends() {
    // Two networks of turbine1 stay open whatever the time (the first try and one
    // longer retry find nothing): the step hands its time on instead of spending a
    // 10 s share on them.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/diff/turbine1.c");
    let _turn = ONE_Z3_USER.lock().unwrap_or_else(|e| e.into_inner());
    let session = Session::open(&path, BuildFlags::default()).expect("session");
    let mut cfg = DiffConfig::new("turbine1");
    cfg.threads = 2;
    cfg.random_inputs = 0;
    cfg.common.time_budget_s = 100.0;
    cfg.solve_budget_s = Some(10.0);
    let r = run_diff(&session, &cfg, &mut |_, _, _| {}).expect("diff runs");
    assert!(r.summary.float_solver_candidates > 0, "{:?}", r.summary);
    assert!(
        !r.summary
            .stopped
            .iter()
            .any(|s| s.starts_with("float solver")),
        "{:?}",
        r.summary.stopped
    );
}

/// The confirmed finding on which P underflows and P' does not.
fn p_underflow_only(r: &DiffReport) -> Option<&fpscout_search::diff::Finding> {
    r.findings.iter().find(|f| {
        f.confirmed
            && f.p.flags.contains(ExceptionKind::Underflow)
            && !f.p_prime.flags.contains(ExceptionKind::Underflow)
    })
}

#[test]
fn a_difference_behind_a_branch_only_floats_take_is_found_from_the_float_solvers_point() {
    let path = program("window.c");
    // Z3 prunes the branch (over the reals x = 16, which the window excludes), so no
    // query names the product, and no seed lies in the window.
    let alone = diff(&path, "window", false);
    assert!(p_underflow_only(&alone).is_none(), "{:?}", alone.findings);
    assert_eq!(alone.summary.float_solver_targets, 0);

    let refined = diff(&path, "window", true);
    let hit = p_underflow_only(&refined).expect("P's subnormal product, P' (DAZ) zero");
    assert!(
        matches!(
            hit.origin,
            Origin {
                phase: Phase::FloatSolver,
                aim: Some(Aim {
                    build: Build::P,
                    kind: ExceptionKind::Underflow,
                    ..
                }),
            }
        ),
        "{:?}",
        hit.origin
    );
    assert!(hit.kinds.contains(&DiffKind::Flags), "{:?}", hit.kinds);
    assert!(refined.summary.float_solver_candidates >= 1);
    // The input takes the branch as doubles do: x + 1e17 rounds to 1e17 + 16, 3x is in
    // the window and is not 48; P returns x * 1e-310, a subnormal, P' zero.
    let fpscout_walk::concrete::ArgBits::Scalar(bits) = hit.input[0] else {
        panic!("a scalar input");
    };
    let x = f64::from_bits(bits);
    assert_eq!(x + 1e17, 1e17 + 16.0, "{x:e}");
    let t = x * 3.0;
    assert!(t != 48.0 && t > 47.9999999 && t < 48.0000001, "{x:e}");
    assert_eq!(hit.p.result, Some((x * 1e-310).to_bits()));
    assert_eq!(hit.p_prime.result, Some(0));
}

/// The finding of an underflow on line 8.
fn underflow_on_line_8(
    r: &ExceptionsReport,
) -> Option<&fpscout_search::exceptions::ExceptionFinding> {
    r.findings.iter().find(|x| {
        x.kind == ExceptionKind::Underflow && x.location.as_ref().is_some_and(|l| l.line == 8)
    })
}

#[test]
fn an_operation_only_floats_reach_is_a_target_of_exceptions_too() {
    // No query names window.c's product on line 8 (Z3 pruned its branch): without the
    // float solver it is no target and nothing raises it.
    let path = program("window.c");
    let (_, alone) = exceptions(&path, &solvers_only("window", false));
    assert!(
        underflow_on_line_8(&alone).is_none(),
        "{:?}",
        alone.findings
    );
    assert!(alone
        .targets
        .iter()
        .all(|t| t.location.as_ref().is_some_and(|l| l.line != 8)));

    let (_, refined) = exceptions(&path, &solvers_only("window", true));
    let t = target(&refined, 8, ExceptionKind::Underflow);
    assert_eq!(t.raised_by, Some(Phase::FloatSolver), "{t:?}");
    assert_eq!(t.float_solver, Some(Refinement::Witnessed));
    let finding = underflow_on_line_8(&refined).expect("the product's underflow");
    let ArgBits::Scalar(bits) = finding.witnesses[0].input[0] else {
        panic!("a scalar input");
    };
    let x = f64::from_bits(bits);
    assert_eq!(x + 1e17, 1e17 + 16.0, "{x:e}");
    assert!((x * 1e-310).abs() < f64::MIN_POSITIVE, "{x:e}");
}

#[test]
fn the_float_solver_on_turbine1s_fast_math_build_completes() {
    // The bound on a box whose form of a divisor (exactly 0) missed its domain once
    // divided by zero here, aborting the whole run.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/diff/turbine1.c");
    let r = diff(&path, "turbine1", true);
    assert!(r.summary.float_solver_targets > 0, "{:?}", r.summary);
    assert!(r.summary.diff_confirmed > 0);
}
