//! End-to-end tests of `fpscout exceptions`: Ariadne's averages, the 2-norm loop, a
//! function with log/pow/division, one without exceptions; every witness replayed on the
//! executable raises its exception at its location.

use fpscout_ir::ExceptionKind;
use fpscout_search::exceptions::{
    run_exceptions, Avoidability, ExceptionsConfig, ExceptionsReport,
};
use fpscout_search::origin::Phase;
use fpscout_search::session::Session;
use fpscout_toolchain::{BuildFlags, BuildKind};
use fpscout_walk::concrete::ArgBits;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Solving forks the calling thread (see `fpscout_smt::isolate`): tests take turns.
static ONE_Z3_USER: Mutex<()> = Mutex::new(());

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(name)
}

fn quick(function: &str) -> ExceptionsConfig {
    let mut cfg = ExceptionsConfig::new(function);
    cfg.threads = 2;
    cfg.random_inputs = 2000;
    cfg.common.time_budget_s = 20.0;
    cfg
}

/// Runs the pipeline, then replays every witness traced on a fresh native build and
/// checks that the executable raises the finding's kind at the finding's line.
fn exceptions(path: &Path, cfg: &ExceptionsConfig) -> ExceptionsReport {
    let _turn = ONE_Z3_USER.lock().unwrap_or_else(|e| e.into_inner());
    let session = Session::open(path, BuildFlags::default()).expect("session");
    let report = run_exceptions(&session, cfg, &mut |_, _, _| {}).expect("exceptions runs");
    let fid = session
        .function(BuildKind::P, &cfg.common.function)
        .expect("function");
    let f = session.p().expect("build P").function(fid);
    let lens: Vec<Option<usize>> = report
        .findings
        .first()
        .map(|x| {
            x.witnesses[0]
                .input
                .iter()
                .map(|a| match a {
                    ArgBits::Array(v) => Some(v.len()),
                    ArgBits::Scalar(_) => None,
                })
                .collect()
        })
        .unwrap_or_default();
    if report.findings.is_empty() {
        return report;
    }
    let native = session
        .native(BuildKind::P, fid, &lens)
        .expect("native build");
    for x in &report.findings {
        let inputs: Vec<_> = x
            .witnesses
            .iter()
            .map(|w| fpscout_search::run::to_native(f, &w.input))
            .collect();
        let traced = native
            .run_traced(&inputs, &fpscout_native::RunOptions::default())
            .expect("traced replay");
        let line = x.location.as_ref().map(|l| l.line);
        for t in &traced {
            assert!(
                t.trace
                    .events
                    .iter()
                    .any(|e| e.flags.contains(x.kind) && e.loc.as_ref().map(|l| l.line) == line),
                "{} at {:?} not raised on replay: {:?}",
                x.kind.name(),
                x.location,
                t.trace.events
            );
        }
    }
    report
}

fn find<'a>(
    r: &'a ExceptionsReport,
    line: u32,
    op: &str,
    kind: ExceptionKind,
) -> Option<&'a fpscout_search::exceptions::ExceptionFinding> {
    r.findings.iter().find(|x| {
        x.kind == kind && x.operation == op && x.location.as_ref().is_some_and(|l| l.line == line)
    })
}

fn double(a: &ArgBits) -> f64 {
    match a {
        ArgBits::Scalar(b) => f64::from_bits(*b),
        ArgBits::Array(_) => f64::NAN,
    }
}

#[test]
fn av1_overflows_for_large_same_sign_inputs_and_it_is_avoidable() {
    let r = exceptions(&corpus("av1.c"), &quick("av1"));
    let x = find(&r, 2, "fadd", ExceptionKind::Overflow).expect("overflow of x + y");
    assert_eq!(x.class, Avoidability::PotentiallyAvoidable);
    assert!(x.targeted);
    // The solver's witness: two finite doubles of the same sign whose sum exceeds DBL_MAX.
    let w = x
        .witnesses
        .iter()
        .find(|w| w.source == Phase::Z3)
        .expect("a Z3 witness");
    let (a, b) = (double(&w.input[0]), double(&w.input[1]));
    assert!(a.is_finite() && b.is_finite());
    assert_eq!(a.is_sign_negative(), b.is_sign_negative(), "{a} {b}");
    assert!((a / 2.0 + b / 2.0).abs() > f64::MAX / 2.0, "{a} {b}");
    // The quotient by 2 never overflows.
    assert!(find(&r, 2, "fdiv", ExceptionKind::Overflow).is_none());
    assert!(r.summary.queries.z3_sat > 0);
    assert!(r.summary.locations >= 1 && r.summary.pairs >= r.summary.locations);
}

#[test]
fn av2_never_overflows_and_av3_av4_overflow_in_the_difference() {
    let r2 = exceptions(&corpus("av2.c"), &quick("av2"));
    assert!(
        r2.findings
            .iter()
            .all(|x| x.kind != ExceptionKind::Overflow),
        "x/2 + y/2 cannot overflow for finite inputs"
    );
    // Halving a subnormal is inexact and tiny: underflow.
    assert!(r2
        .findings
        .iter()
        .any(|x| x.kind == ExceptionKind::Underflow && x.operation == "fdiv"));
    for (file, function) in [("av3.c", "av3"), ("av4.c", "av4")] {
        let r3 = exceptions(&corpus(file), &quick(function));
        let x = r3
            .findings
            .iter()
            .find(|x| x.kind == ExceptionKind::Overflow && x.operation == "fsub")
            .expect("the difference overflows for large inputs of opposite signs");
        let w = &x.witnesses[0];
        let (a, b) = (double(&w.input[0]), double(&w.input[1]));
        assert_ne!(a.is_sign_negative(), b.is_sign_negative(), "{a} {b}");
        assert_eq!(x.class, Avoidability::PotentiallyAvoidable);
    }
}

#[test]
fn the_squares_of_the_2_norm_overflow_and_underflow_avoidably() {
    let mut cfg = quick("norm2");
    cfg.common.array_lens.insert("x".into(), 4);
    cfg.common.ints.insert("n".into(), 4);
    let r = exceptions(&corpus("norm2.c"), &cfg);
    for (op, kind) in [
        ("fmul", ExceptionKind::Overflow),
        ("fmul", ExceptionKind::Underflow),
        ("fadd", ExceptionKind::Overflow),
    ] {
        let x = find(&r, 6, op, kind).unwrap_or_else(|| panic!("{op} {}", kind.name()));
        assert_eq!(
            x.class,
            Avoidability::PotentiallyAvoidable,
            "{op} {}: sqrt of the exact sum is a normal double",
            kind.name()
        );
        // The first witness is the one whose exact 2-norm is normal.
        let ArgBits::Array(v) = &x.witnesses[0].input[0] else {
            panic!("array input")
        };
        // sqrt(Σ v²) computed without overflow or underflow: scaled by the largest.
        let m = v
            .iter()
            .map(|&b| f64::from_bits(b).abs())
            .fold(0.0, f64::max);
        let norm = m * v
            .iter()
            .map(|&b| f64::from_bits(b) / m)
            .map(|e| e * e)
            .sum::<f64>()
            .sqrt();
        assert!(
            norm.is_normal(),
            "{op} {}: witness {v:?} has 2-norm {norm}",
            kind.name()
        );
    }
    // The fadd overflow needs the squares to stay finite: only the isolated query (no
    // other operation overflowing) reaches it.
    assert!(r.summary.targets_confirmed >= 3);
}

#[test]
fn log_pow_and_division_raise_their_domain_exceptions() {
    let r = exceptions(&corpus("mathfns.c"), &quick("mathfns"));
    for (op, kind) in [
        ("sqrt", ExceptionKind::Invalid),
        ("log", ExceptionKind::Invalid),
        ("log", ExceptionKind::DivByZero),
        ("exp", ExceptionKind::Overflow),
        ("pow", ExceptionKind::Invalid),
        ("pow", ExceptionKind::DivByZero),
    ] {
        assert!(
            r.findings
                .iter()
                .any(|x| x.kind == kind && x.operation.contains(op)),
            "{op} {}: {:?}",
            kind.name(),
            r.findings
                .iter()
                .map(|x| (&x.operation, x.kind))
                .collect::<Vec<_>>()
        );
    }
    // Elementary functions leave no exact value: such overflows stay unclassified.
    let exp = r
        .findings
        .iter()
        .find(|x| x.kind == ExceptionKind::Overflow && x.operation.contains("exp"))
        .expect("exp overflow");
    assert_eq!(exp.class, Avoidability::Unknown);
}

#[test]
fn a_function_without_exceptions_reports_none_within_its_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("calm.c");
    std::fs::write(
        &src,
        "double calm(double x) { if (x > 1.0 && x < 2.0) return x * 0.5 + 1.0; return 1.0; }\n",
    )
    .unwrap();
    let r = exceptions(&src, &quick("calm"));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(r.summary.locations, 0);
    assert_eq!(r.summary.pairs, 0);
    // Every condition was decided unsatisfiable: the proof is over the reals, the search
    // and random inputs found nothing either.
    assert!(r.summary.targets > 0);
    assert_eq!(r.summary.queries.z3_unsat, r.summary.unique_conditions);
    assert_eq!(r.summary.queries.z3_sat, 0);
    assert!(r.summary.random_inputs >= 2000);
}

/// A cube of a product of three bilinear forms: nlsat does not settle its underflow and
/// overflow conditions in 200 ms, while the fallback solver, with all inputs but one
/// fixed, only needs the real roots of a univariate polynomial.
const HARD_FOR_Z3: &str = "double h1(double x, double y, double z) {\n\
    double a = x * y - z, b = y * z - x, c = z * x - y;\n\
    double p = a * b * c;\n\
    return p * p * p * 1e-300;\n}\n";

#[test]
fn some_exceptions_are_found_only_by_the_fallback_solver() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("h1.c");
    std::fs::write(&src, HARD_FOR_Z3).unwrap();
    let mut cfg = quick("h1");
    // Solvers only: no random inputs to stumble on the same exceptions.
    cfg.random_inputs = 0;
    // Z3 keeps its 200 ms (it must give up); the fallback gets time to spare on a
    // loaded machine, where its default of 1 s ran out.
    cfg.fallback_timeout_ms = Some(10_000);
    cfg.common.time_budget_s = 60.0;
    let r = exceptions(&src, &cfg);
    assert!(r.summary.queries.z3_unknown > 0);
    assert!(r.summary.queries.fallback_sat > 0);
    let only_fallback: Vec<_> = r
        .targets
        .iter()
        .filter(|t| {
            t.verdicts.z3_unknown > 0
                && t.verdicts.z3_sat == 0
                && t.verdicts.fallback_sat > 0
                && t.raised_by == Some(Phase::Fallback)
        })
        .collect();
    assert!(
        !only_fallback.is_empty(),
        "no target Z3 left unknown and the fallback answered: {:#?}",
        r.targets
    );
    // Its finding has fallback witnesses, confirmed on the executable (replayed above).
    for t in only_fallback {
        let x = r
            .findings
            .iter()
            // As the report matches them: the IR names the file as compiled, the
            // executable's DWARF may join it to the compile directory.
            .find(|x| x.kind == t.kind && same_place(&x.location, &t.location))
            .unwrap_or_else(|| panic!("the finding of {t:?} among {:#?}", r.findings));
        assert!(x.witnesses.iter().any(|w| w.source == Phase::Fallback));
    }
}

#[test]
fn integer_parameters_not_fixed_are_sampled() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("scaled.c");
    std::fs::write(
        &src,
        "double scaled(double x, int k) { return k > 2 ? x * 1e300 : x + 1.0; }\n",
    )
    .unwrap();
    let mut cfg = quick("scaled");
    cfg.random_inputs = 0;
    let r = exceptions(&src, &cfg);
    // Only k = 3 of the samples 0..3 takes the branch that can overflow.
    let x = find(&r, 1, "fmul", ExceptionKind::Overflow).expect("the product overflows");
    assert!(x.witnesses.iter().all(|w| w.input[1] == ArgBits::Scalar(3)));
    // Fixed by the user, the branch is never taken.
    let mut fixed = quick("scaled");
    fixed.random_inputs = 0;
    fixed.common.ints.insert("k".into(), 1);
    let r = exceptions(&src, &fixed);
    assert!(find(&r, 1, "fmul", ExceptionKind::Overflow).is_none());
}

/// The same file (last path component), line and column.
fn same_place(a: &Option<fpscout_ir::SourceLoc>, b: &Option<fpscout_ir::SourceLoc>) -> bool {
    let key = |l: &fpscout_ir::SourceLoc| {
        (
            l.file.rsplit('/').next().unwrap_or_default().to_string(),
            l.line,
            l.col,
        )
    };
    matches!((a, b), (Some(a), Some(b)) if key(a) == key(b))
}
