//! Traced native execution: the executable's own exception trace, checked instruction by
//! instruction on small C functions (order, flags, mnemonics, source lines, libm call
//! sites, crashes, truncation) and against the untraced runner bit for bit.

use fpscout_ir::{ExceptionKind, ExceptionSet, FloatTy, Type};
use fpscout_native::{
    FtzDaz, NativeArg, NativeArgKind, NativeBuild, NativeEvent, NativeOutcome, NativeSignature,
    ProgramEnd, RunOptions, TracedOutcome,
};
use fpscout_toolchain::{BuildFlags, BuildKind, Toolchain};
use rand::{Rng, SeedableRng};
use tempfile::TempDir;

use ExceptionKind::{DivByZero, Inexact, Invalid, Overflow, Underflow};

const F64: NativeArgKind = NativeArgKind::Float(FloatTy::F64);
const I32: NativeArgKind = NativeArgKind::Int {
    width: 32,
    unsigned: false,
};

fn flags(set: &[ExceptionKind]) -> ExceptionSet {
    let mut s = ExceptionSet::EMPTY;
    for k in set {
        s.insert(*k);
    }
    s
}

/// Compiles `code` (file `t.c`) for `build` with default flags, linked for `symbol`.
fn build(
    dir: &TempDir,
    code: &str,
    build: BuildKind,
    symbol: &str,
    params: Vec<NativeArgKind>,
    ret: Type,
) -> NativeBuild {
    let src = dir.path().join("t.c");
    std::fs::write(&src, code).expect("write source");
    let tc = Toolchain::discover().expect("clang-19 is installed");
    let sig = NativeSignature {
        symbol: symbol.into(),
        params,
        ret,
        setup: None,
    };
    NativeBuild::compile(
        &tc,
        &src,
        build,
        &BuildFlags::default(),
        &sig,
        &dir.path().join("work"),
    )
    .unwrap_or_else(|e| panic!("native build failed: {e}"))
}

fn f64s(v: &[f64]) -> Vec<NativeArg> {
    v.iter().map(|x| NativeArg::Float(x.to_bits())).collect()
}

fn traced(b: &NativeBuild, inputs: &[Vec<NativeArg>], ftz_daz: FtzDaz) -> Vec<TracedOutcome> {
    b.run_traced(
        inputs,
        &RunOptions {
            ftz_daz,
            ..RunOptions::default()
        },
    )
    .expect("traced run")
}

/// (flags, mnemonic with callee, source line) of each event.
fn summary(events: &[NativeEvent]) -> Vec<(ExceptionSet, String, Option<u32>)> {
    events
        .iter()
        .map(|e| (e.flags, e.describe_insn(), e.loc.as_ref().map(|l| l.line)))
        .collect()
}

const ARITH: &str = "double f(double a, double b, double c) {
  double p = a * b;
  double q = p / c;
  return q - p;
}
";

#[test]
fn events_come_in_execution_order_with_instruction_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let b = build(&dir, ARITH, BuildKind::P, "f", vec![F64; 3], Type::F64);
    let out = traced(&b, &[f64s(&[1e300, 1e300, 0.0])], FtzDaz::Off);
    let t = &out[0];
    // p = inf (overflow), q = inf / 0 = inf (no flag: inf / 0 is exact), q - p = inf - inf
    // (invalid).
    assert_eq!(
        summary(&t.trace.events),
        vec![
            (flags(&[Overflow, Inexact]), "mulsd".to_string(), Some(2)),
            (flags(&[Invalid]), "subsd".to_string(), Some(4)),
        ]
    );
    assert!(!t.trace.truncated);
    let file = &t.trace.events[0].loc.as_ref().unwrap().file;
    assert!(file.ends_with("t.c"), "{file}");
    match &t.outcome {
        NativeOutcome::Returned {
            result, flags: f, ..
        } => {
            assert!(f64::from_bits(result.unwrap()).is_nan());
            assert_eq!(*f, flags(&[Overflow, Inexact, Invalid]));
        }
        other => panic!("{other:?}"),
    }
    // A finite quotient divided by zero: divide-by-zero at line 3.
    let out = traced(&b, &[f64s(&[2.0, 3.0, 0.0])], FtzDaz::Off);
    assert_eq!(
        summary(&out[0].trace.events),
        vec![
            (flags(&[DivByZero]), "divsd".to_string(), Some(3)),
            // inf - 6: exact, nothing raised.
        ]
    );
}

#[test]
fn tracing_changes_no_result_and_no_flag() {
    // Random and special inputs through every operation: the traced outcome (result,
    // all five flags as fetestexcept sees them) equals the untraced one bit for bit, and
    // the trace's flags add up to exactly the flags worth an event.
    let dir = tempfile::tempdir().unwrap();
    let code = "#include <math.h>
double g(double a, double b) {
  double s = a + b, d = a - b, m = a * b, q = a / b;
  double r = sqrt(d) + exp(m) + log(q);
  return (s * m) / (d + r) + (double)(int)(q * 0.5) + a * 0x1p-1000 * b;
}
";
    for kind in [BuildKind::P, BuildKind::PPrime] {
        let b = build(&dir, code, kind, "g", vec![F64; 2], Type::F64);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1e308,
            -1e308,
            1e-308,
            5e-324,
            700.0,
            1e10,
            f64::INFINITY,
            f64::NAN,
        ];
        let mut inputs: Vec<Vec<NativeArg>> = Vec::new();
        for &x in &specials {
            for &y in &specials {
                inputs.push(f64s(&[x, y]));
            }
        }
        for _ in 0..300 {
            let v = |rng: &mut rand_chacha::ChaCha8Rng| {
                let e: i32 = rng.gen_range(-1074..1024);
                let s = if rng.gen_bool(0.5) { -1.0 } else { 1.0 };
                s * 2f64.powi(e) * rng.gen_range(1.0..2.0)
            };
            inputs.push(f64s(&[v(&mut rng), v(&mut rng)]));
        }
        for ftz in [FtzDaz::Off, FtzDaz::On] {
            let opts = RunOptions {
                ftz_daz: ftz,
                ..RunOptions::default()
            };
            let plain = b.run(&inputs, &opts).unwrap();
            let with_trace = traced(&b, &inputs, ftz);
            for (i, (p, t)) in plain.iter().zip(&with_trace).enumerate() {
                assert_eq!(p, &t.outcome, "{kind} {ftz:?} input {i}");
                let NativeOutcome::Returned { flags: f, .. } = p else {
                    panic!("{p:?}")
                };
                let union = t
                    .trace
                    .events
                    .iter()
                    .fold(ExceptionSet::EMPTY, |u, e| u.union(e.flags));
                assert_eq!(
                    union.without_inexact(),
                    f.without_inexact(),
                    "{kind} {ftz:?} input {i}: {:?}",
                    t.trace
                );
            }
        }
    }
}

#[test]
fn exact_tiny_results_trap_but_raise_nothing() {
    // With underflow unmasked the processor traps on a tiny result even when it is exact;
    // masked, such a result raises nothing, and neither may the trace or the flags.
    let dir = tempfile::tempdir().unwrap();
    let code = "double h(double a, double b) { return a * b; }\n";
    let b = build(&dir, code, BuildKind::P, "h", vec![F64; 2], Type::F64);
    let out = traced(
        &b,
        &[
            f64s(&[f64::MIN_POSITIVE, 0.5]), // exact subnormal
            f64s(&[f64::MIN_POSITIVE, 0.3]), // inexact subnormal: underflow
        ],
        FtzDaz::Off,
    );
    assert!(out[0].trace.events.is_empty(), "{:?}", out[0].trace);
    assert_eq!(
        out[0].outcome,
        NativeOutcome::Returned {
            result: Some((f64::MIN_POSITIVE * 0.5).to_bits()),
            flags: ExceptionSet::EMPTY,
            arrays: vec![],
        }
    );
    assert_eq!(
        summary(&out[1].trace.events),
        vec![(flags(&[Underflow, Inexact]), "mulsd".to_string(), Some(1))]
    );
    // Flushed to zero (FTZ): the trap still fires, the masked instruction flushes and
    // raises underflow and inexact, and the result is the flushed zero.
    let out = traced(&b, &[f64s(&[f64::MIN_POSITIVE, 0.5])], FtzDaz::On);
    assert_eq!(
        summary(&out[0].trace.events),
        vec![(flags(&[Underflow, Inexact]), "mulsd".to_string(), Some(1))]
    );
    assert_eq!(
        out[0].outcome,
        NativeOutcome::Returned {
            result: Some(0),
            flags: flags(&[Underflow, Inexact]),
            arrays: vec![],
        }
    );
}

#[test]
fn libm_events_are_charged_to_the_call_site() {
    let dir = tempfile::tempdir().unwrap();
    let code = "#include <math.h>
double k(double a, double b) {
  double e = exp(a);
  double l = log(b);
  return e + l;
}
";
    let b = build(&dir, code, BuildKind::P, "k", vec![F64; 2], Type::F64);
    let out = traced(&b, &[f64s(&[1000.0, 0.0]), f64s(&[1.0, -1.0])], FtzDaz::Off);
    let s = summary(&out[0].trace.events);
    // exp(1000) overflows inside glibc, log(0) divides by zero there; inf + -inf is
    // invalid in the function itself.
    assert_eq!(s.len(), 3, "{s:?}");
    assert_eq!(s[0].1, "call exp");
    assert_eq!(s[0].2, Some(3));
    assert!(s[0].0.contains(Overflow));
    assert_eq!(s[1].1, "call log");
    assert_eq!(s[1].2, Some(4));
    assert!(s[1].0.contains(DivByZero));
    assert_eq!(s[2], (flags(&[Invalid]), "addsd".to_string(), Some(5)));
    let s = summary(&out[1].trace.events);
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(s[0].1, "call log");
    assert!(s[0].0.contains(Invalid));
}

#[test]
fn vector_instructions_report_the_union_of_their_lanes() {
    let dir = tempfile::tempdir().unwrap();
    let code = "typedef double v2 __attribute__((vector_size(16)));
double v(double a, double b) {
  v2 x = {a, b}, y = {a, -b};
  v2 z = x * y;
  return z[0] + z[1];
}
";
    let b = build(&dir, code, BuildKind::PPrime, "v", vec![F64; 2], Type::F64);
    // Lane 0 overflows, lane 1 underflows, in one mulpd.
    let out = traced(&b, &[f64s(&[1e300, 1e-300])], FtzDaz::Off);
    let events = &out[0].trace.events;
    assert_eq!(events[0].insn, "mulpd", "{events:?}");
    assert_eq!(events[0].flags, flags(&[Overflow, Underflow, Inexact]));
    assert_eq!(events[0].loc.as_ref().map(|l| l.line), Some(4));
}

#[test]
fn conversions_and_integer_division() {
    let dir = tempfile::tempdir().unwrap();
    let code = "int c(double a, int d) {
  int i = (int)a;
  return i / d;
}
";
    let b = build(&dir, code, BuildKind::P, "c", vec![F64, I32], Type::int(32));
    let out = traced(
        &b,
        &[
            vec![NativeArg::Float(1e300f64.to_bits()), NativeArg::Int(1)],
            vec![NativeArg::Float(7f64.to_bits()), NativeArg::Int(0)],
            vec![NativeArg::Float(9f64.to_bits()), NativeArg::Int(2)],
        ],
        FtzDaz::Off,
    );
    assert_eq!(
        summary(&out[0].trace.events),
        vec![(flags(&[Invalid]), "cvttsd2si".to_string(), Some(2))]
    );
    // An integer division by zero is a SIGFPE too, but a crash, not an event.
    match &out[1].outcome {
        NativeOutcome::Crashed { signal, .. } => assert_eq!(*signal, Some(libc::SIGFPE)),
        other => panic!("{other:?}"),
    }
    assert!(out[1].trace.events.is_empty());
    // The driver restarted after the crash traces the next input as usual.
    assert_eq!(
        out[2].outcome,
        NativeOutcome::Returned {
            result: Some(4),
            flags: ExceptionSet::EMPTY,
            arrays: vec![],
        }
    );
}

#[test]
fn long_traces_are_truncated_but_flags_stay_whole() {
    let dir = tempfile::tempdir().unwrap();
    let code = "double loop(double a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a * a;
  return s * 1e-320;
}
";
    let b = build(&dir, code, BuildKind::P, "loop", vec![F64, I32], Type::F64);
    let out = traced(
        &b,
        &[
            vec![NativeArg::Float(1e200f64.to_bits()), NativeArg::Int(5000)],
            vec![NativeArg::Float(1e200f64.to_bits()), NativeArg::Int(1)],
        ],
        FtzDaz::Off,
    );
    // The next input is traced afresh.
    assert!(!out[1].trace.truncated);
    assert_eq!(out[1].trace.events.len(), 1);
    let t = &out[0];
    assert!(t.trace.truncated);
    assert_eq!(t.trace.events.len(), 1024);
    assert!(t.trace.events.iter().all(|e| e.insn == "mulsd"));
    // inf * 1e-320 after the truncation raises nothing new; the overflow is whole.
    assert_eq!(
        t.outcome,
        NativeOutcome::Returned {
            result: Some(f64::INFINITY.to_bits()),
            flags: flags(&[Overflow, Inexact]),
            arrays: vec![],
        }
    );
}

#[test]
fn x87_flags_are_reported_unlocated() {
    let dir = tempfile::tempdir().unwrap();
    let code = "double x(double a, double b) {
  long double q = (long double)a / (long double)b;
  return (double)(q * 0.0L);
}
";
    let b = build(&dir, code, BuildKind::P, "x", vec![F64; 2], Type::F64);
    let out = traced(&b, &[f64s(&[1.0, 0.0])], FtzDaz::Off);
    // 1/0 = inf (divide-by-zero), inf * 0 = NaN (invalid), both in x87 registers.
    let events = &out[0].trace.events;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].insn, "x87");
    assert_eq!(events[0].flags, flags(&[DivByZero, Invalid]));
    assert!(events[0].loc.is_none());
}

const ENDS: &str = "#include <assert.h>
#include <math.h>
#include <stdlib.h>
double q(double a, double b) {
  double r = a / b;
  if (r < 0) exit(2);
  return r * a;
}
double k(double a) {
  double e = exp(a);
  if (e > 1e300) abort();
  return e;
}
double s(double x) {
  double y = x * x;
  assert(y < 1e300);
  return y;
}
";

#[test]
fn program_ends_keep_the_events_before_them() {
    let dir = tempfile::tempdir().unwrap();
    let b = build(&dir, ENDS, BuildKind::P, "q", vec![F64; 2], Type::F64);
    let inputs = [
        f64s(&[-1.0, 0.0]),
        f64s(&[1e300, 1e-10]),
        f64s(&[-1e300, 1e-300]),
        f64s(&[6.0, 3.0]),
    ];
    let out = traced(&b, &inputs, FtzDaz::Off);
    // -1 / 0 = -inf: divide-by-zero at line 5, then exit(2) at line 6.
    assert_eq!(
        summary(&out[0].trace.events),
        vec![(flags(&[DivByZero]), "divsd".to_string(), Some(5))]
    );
    assert_eq!(
        out[0].outcome,
        NativeOutcome::Ended {
            end: ProgramEnd::Exit { status: 2 },
            flags: flags(&[DivByZero]),
            arrays: vec![],
        }
    );
    // 1e310 overflows to +inf; inf * 1e300 raises nothing more.
    assert_eq!(
        summary(&out[1].trace.events),
        vec![(flags(&[Overflow, Inexact]), "divsd".to_string(), Some(5))]
    );
    assert_eq!(
        out[1].outcome,
        NativeOutcome::Returned {
            result: Some(f64::INFINITY.to_bits()),
            flags: flags(&[Overflow, Inexact]),
            arrays: vec![],
        }
    );
    assert_eq!(
        summary(&out[2].trace.events),
        vec![(flags(&[Overflow, Inexact]), "divsd".to_string(), Some(5))]
    );
    assert_eq!(
        out[2].outcome,
        NativeOutcome::Ended {
            end: ProgramEnd::Exit { status: 2 },
            flags: flags(&[Overflow, Inexact]),
            arrays: vec![],
        }
    );
    // The next vector is traced afresh, with the exceptions unmasked again.
    assert!(out[3].trace.events.is_empty(), "{:?}", out[3].trace);
    assert_eq!(
        out[3].outcome,
        NativeOutcome::Returned {
            result: Some(12f64.to_bits()),
            flags: ExceptionSet::EMPTY,
            arrays: vec![],
        }
    );
    // Tracing changes nothing: the plain run agrees outcome for outcome.
    let plain = b.run(&inputs, &RunOptions::default()).unwrap();
    let outcomes: Vec<NativeOutcome> = out.into_iter().map(|t| t.outcome).collect();
    assert_eq!(plain, outcomes);

    // An abort after an overflow inside libm's exp, charged to the call.
    let b = build(&dir, ENDS, BuildKind::P, "k", vec![F64], Type::F64);
    let out = traced(&b, &[f64s(&[1000.0]), f64s(&[0.0])], FtzDaz::Off);
    let events = summary(&out[0].trace.events);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].1, "call exp");
    assert_eq!(events[0].2, Some(10));
    assert_eq!(
        out[0].outcome,
        NativeOutcome::Ended {
            end: ProgramEnd::Abort,
            flags: flags(&[Overflow, Inexact]),
            arrays: vec![],
        }
    );
    assert_eq!(
        out[1].outcome,
        NativeOutcome::Returned {
            result: Some(1f64.to_bits()),
            flags: ExceptionSet::EMPTY,
            arrays: vec![],
        }
    );

    // A failed assertion after an overflow, in P and in P' (-O3 -ffast-math).
    for kind in [BuildKind::P, BuildKind::PPrime] {
        let b = build(&dir, ENDS, kind, "s", vec![F64], Type::F64);
        let out = traced(&b, &[f64s(&[1e200]), f64s(&[3.0])], FtzDaz::Off);
        assert_eq!(
            summary(&out[0].trace.events),
            vec![(flags(&[Overflow, Inexact]), "mulsd".to_string(), Some(15))],
            "{kind}"
        );
        let message = "y < 1e300".to_string();
        assert_eq!(
            out[0].outcome,
            NativeOutcome::Ended {
                end: ProgramEnd::AssertFail { message },
                flags: flags(&[Overflow, Inexact]),
                arrays: vec![],
            },
            "{kind}"
        );
        assert!(out[1].trace.events.is_empty(), "{kind}");
        assert_eq!(
            out[1].outcome,
            NativeOutcome::Returned {
                result: Some(9f64.to_bits()),
                flags: ExceptionSet::EMPTY,
                arrays: vec![],
            },
            "{kind}"
        );
    }
}
