//! End-to-end tests: compile small C/C++ snippets with clang-19 and replay them natively.

use fpscout_ir::{ExceptionKind, ExceptionSet, FloatTy, Type};
use fpscout_native::{
    FtzDaz, NativeArg, NativeArgKind, NativeBuild, NativeError, NativeOutcome, NativeSignature,
    ProgramEnd, RunOptions,
};
use fpscout_toolchain::{BuildFlags, BuildKind, Toolchain, ToolchainError};
use std::time::Duration;
use tempfile::TempDir;

const F64: NativeArgKind = NativeArgKind::Float(FloatTy::F64);
const F32: NativeArgKind = NativeArgKind::Float(FloatTy::F32);
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

use ExceptionKind::{DivByZero, Inexact, Invalid, Overflow, Underflow};

/// A source file in a fresh temporary directory, compiled for one build.
struct Fixture {
    dir: TempDir,
    src: std::path::PathBuf,
}

impl Fixture {
    fn new(file_name: &str, code: &str) -> Fixture {
        let dir = tempfile::tempdir().expect("tempdir");
        let src = dir.path().join(file_name);
        std::fs::write(&src, code).expect("write source");
        Fixture { dir, src }
    }

    fn try_build(
        &self,
        build: BuildKind,
        flags: &BuildFlags,
        sig: &NativeSignature,
    ) -> Result<NativeBuild, NativeError> {
        let tc = Toolchain::discover().expect("clang-19 and opt-19 are installed");
        NativeBuild::compile(
            &tc,
            &self.src,
            build,
            flags,
            sig,
            &self.dir.path().join("work"),
        )
    }

    fn build(&self, build: BuildKind, sig: &NativeSignature) -> NativeBuild {
        match self.try_build(build, &BuildFlags::default(), sig) {
            Ok(b) => b,
            Err(e) => panic!("native build failed: {e}"),
        }
    }
}

fn sig(symbol: &str, params: Vec<NativeArgKind>, ret: Type) -> NativeSignature {
    NativeSignature {
        symbol: symbol.into(),
        params,
        ret,
        setup: None,
    }
}

fn f64s(v: &[f64]) -> Vec<NativeArg> {
    v.iter().map(|x| NativeArg::Float(x.to_bits())).collect()
}

fn returned(result: u64, fl: &[ExceptionKind]) -> NativeOutcome {
    NativeOutcome::Returned {
        result: Some(result),
        flags: flags(fl),
        arrays: vec![],
    }
}

fn run(b: &NativeBuild, inputs: &[Vec<NativeArg>]) -> Vec<NativeOutcome> {
    b.run(inputs, &RunOptions::default()).expect("run")
}

fn opts_timeout(ms: u64) -> RunOptions {
    RunOptions {
        per_vector_timeout: Duration::from_millis(ms),
        ..RunOptions::default()
    }
}

const ARITH: &str = r#"
double mul(double a, double b) { return a * b; }
double dvd(double a, double b) { return a / b; }
float fmul(float a, float b) { return a * b; }
float fdiv(float a, float b) { return a / b; }
"#;

#[test]
fn double_results_and_flags_are_exact() {
    let fx = Fixture::new("arith.c", ARITH);
    let mul = fx.build(BuildKind::P, &sig("mul", vec![F64, F64], Type::F64));
    let out = run(
        &mul,
        &[f64s(&[f64::MAX, 2.0]), f64s(&[1.5, 2.0]), f64s(&[0.1, 3.0])],
    );
    assert_eq!(
        out,
        vec![
            returned(0x7ff0_0000_0000_0000, &[Overflow, Inexact]),
            returned(3.0f64.to_bits(), &[]),
            returned((0.1f64 * 3.0).to_bits(), &[Inexact]),
        ]
    );

    let dvd = fx.build(BuildKind::P, &sig("dvd", vec![F64, F64], Type::F64));
    let out = run(
        &dvd,
        &[
            f64s(&[0.0, 0.0]),
            f64s(&[1.0, 0.0]),
            f64s(&[-1.0, 0.0]),
            f64s(&[f64::MIN_POSITIVE, 3.0]),
        ],
    );
    assert_eq!(
        out,
        vec![
            // x86's default NaN is the negative quiet NaN.
            returned(0xfff8_0000_0000_0000, &[Invalid]),
            returned(0x7ff0_0000_0000_0000, &[DivByZero]),
            returned(0xfff0_0000_0000_0000, &[DivByZero]),
            returned(0x0005_5555_5555_5555, &[Underflow, Inexact]),
        ]
    );
}

#[test]
fn float_results_and_flags_are_exact() {
    let fx = Fixture::new("arith.c", ARITH);
    let f32s = |a: f32, b: f32| {
        vec![
            NativeArg::Float(u64::from(a.to_bits())),
            NativeArg::Float(u64::from(b.to_bits())),
        ]
    };
    let fmul = fx.build(BuildKind::P, &sig("fmul", vec![F32, F32], Type::F32));
    let out = run(
        &fmul,
        &[
            f32s(f32::MAX, 2.0),
            f32s(f32::MIN_POSITIVE, 0.5),
            f32s(1.5, 2.0),
        ],
    );
    assert_eq!(
        out,
        vec![
            returned(0x7f80_0000, &[Overflow, Inexact]),
            // Exactly representable subnormal: no underflow without inexact.
            returned(0x0040_0000, &[]),
            returned(u64::from(3.0f32.to_bits()), &[]),
        ]
    );
    let fdiv = fx.build(BuildKind::P, &sig("fdiv", vec![F32, F32], Type::F32));
    let out = run(&fdiv, &[f32s(0.0, 0.0), f32s(1.0, 3.0), f32s(1.0, -0.0)]);
    assert_eq!(
        out,
        vec![
            returned(0xffc0_0000, &[Invalid]),
            returned(u64::from((1.0f32 / 3.0).to_bits()), &[Inexact]),
            returned(0xff80_0000, &[DivByZero]),
        ]
    );
    // An f32 argument must fit in 32 bits.
    let err = fmul.run(
        &[vec![NativeArg::Float(1 << 40), NativeArg::Float(0)]],
        &RunOptions::default(),
    );
    assert!(
        matches!(err, Err(NativeError::BadInput { index: 0, .. })),
        "{err:?}"
    );
}

#[test]
fn ftz_daz_modes_change_subnormal_results() {
    let fx = Fixture::new(
        "tiny.c",
        "double tiny(double a, double b) { return a * b; }\n",
    );
    let s = sig("tiny", vec![F64, F64], Type::F64);
    let inputs = [
        // 2^-1000 * 2^-30 = 2^-1030: an exact subnormal.
        f64s(&[2f64.powi(-1000), 2f64.powi(-30)]),
        // Smallest subnormal input times one: DAZ reads it as zero.
        f64s(&[f64::from_bits(1), 1.0]),
    ];
    // 2^-1030 = 2^-1074 * 2^44, exact, so IEEE raises no underflow without FTZ.
    let subnormal = returned(1 << 44, &[]);
    let gradual = vec![subnormal, returned(1, &[])];
    // Measured on x86-64: flushing an exact subnormal result still raises
    // underflow|inexact, while DAZ turns the subnormal operand into zero silently.
    let flushed = vec![returned(0, &[Underflow, Inexact]), returned(0, &[])];
    let with = |b: &NativeBuild, ftz_daz| {
        b.run(
            &inputs,
            &RunOptions {
                ftz_daz,
                ..RunOptions::default()
            },
        )
        .expect("run")
    };

    let p = fx.build(BuildKind::P, &s);
    assert_eq!(with(&p, FtzDaz::Off), gradual);
    assert_eq!(with(&p, FtzDaz::AsLinked), gradual);
    assert_eq!(with(&p, FtzDaz::On), flushed);
    assert_eq!(
        p.startup_mxcsr(FtzDaz::AsLinked).expect("mxcsr") & 0x8040,
        0
    );
    assert_eq!(p.startup_mxcsr(FtzDaz::On).expect("mxcsr") & 0x8040, 0x8040);

    // P' is linked with -ffast-math, so crtfastmath.o already set FTZ|DAZ.
    let pp = fx.build(BuildKind::PPrime, &s);
    assert_eq!(
        pp.startup_mxcsr(FtzDaz::AsLinked).expect("mxcsr") & 0x8040,
        0x8040
    );
    assert_eq!(with(&pp, FtzDaz::AsLinked), flushed);
    assert_eq!(with(&pp, FtzDaz::On), flushed);
    assert_eq!(with(&pp, FtzDaz::Off), gradual);
    assert_eq!(pp.startup_mxcsr(FtzDaz::Off).expect("mxcsr") & 0x8040, 0);
}

const INTS: &str = r#"
#include <stdint.h>
#include <stdbool.h>
int64_t mix(int8_t a, uint8_t b, int16_t c, uint32_t d, bool e, int64_t f) {
    return (int64_t)a * 1000000 + (int64_t)b * 10000 + c + (int64_t)d + (e ? 7 : 0) + f;
}
int8_t neg8(int8_t x) { return (int8_t)-x; }
bool is_big(double x) { return x > 1e300; }
double scale(double x, int n) { return x * n; }
_BitInt(24) add24(_BitInt(24) a, _BitInt(24) b) { return a + b; }
"#;

#[test]
fn integer_parameters_and_returns() {
    let fx = Fixture::new("ints.c", INTS);
    let int = |width, unsigned| NativeArgKind::Int { width, unsigned };
    let mix = fx.build(
        BuildKind::P,
        &sig(
            "mix",
            vec![
                int(8, false),
                int(8, true),
                int(16, false),
                int(32, true),
                int(1, true),
                int(64, false),
            ],
            Type::int(64),
        ),
    );
    let args = |a: i64, b: u64, c: i64, d: u64, e: u64, f: i64| {
        vec![
            NativeArg::Int(a as u64),
            NativeArg::Int(b),
            NativeArg::Int(c as u64),
            NativeArg::Int(d),
            NativeArg::Int(e),
            NativeArg::Int(f as u64),
        ]
    };
    let out = run(
        &mix,
        &[
            args(-1, 255, -2, 0xffff_ffff, 1, -5),
            args(0, 0, 0, 0, 0, i64::MIN),
        ],
    );
    let expect0 = -1_000_000i64 + 2_550_000 - 2 + 0xffff_ffff + 7 - 5;
    assert_eq!(
        out,
        vec![
            returned(expect0 as u64, &[]),
            returned(i64::MIN as u64, &[])
        ]
    );

    let neg8 = fx.build(
        BuildKind::P,
        &sig("neg8", vec![int(8, false)], Type::int(8)),
    );
    // Integer results come back zero-extended from their width.
    assert_eq!(
        run(
            &neg8,
            &[vec![NativeArg::Int(1)], vec![NativeArg::Int(0x80)]]
        ),
        vec![returned(0xff, &[]), returned(0x80, &[])]
    );

    let is_big = fx.build(BuildKind::P, &sig("is_big", vec![F64], Type::int(1)));
    assert_eq!(
        run(&is_big, &[f64s(&[1e301]), f64s(&[1.0])]),
        vec![returned(1, &[]), returned(0, &[])]
    );

    let scale = fx.build(BuildKind::P, &sig("scale", vec![F64, I32], Type::F64));
    let out = run(
        &scale,
        &[vec![
            NativeArg::Float(1e308f64.to_bits()),
            NativeArg::Int((-10i64) as u64),
        ]],
    );
    assert_eq!(
        out,
        vec![returned(f64::NEG_INFINITY.to_bits(), &[Overflow, Inexact])]
    );

    let add24 = fx.build(
        BuildKind::P,
        &sig("add24", vec![int(24, false), int(24, false)], Type::int(24)),
    );
    let out = run(
        &add24,
        &[
            vec![NativeArg::Int(u64::MAX), NativeArg::Int(u64::MAX)],
            vec![NativeArg::Int(0x7fffff), NativeArg::Int(1)],
        ],
    );
    assert_eq!(
        out,
        vec![returned(0xff_fffe, &[]), returned(0x80_0000, &[])]
    );
}

const ARRAYS: &str = r#"
#include <stdint.h>
double sum(double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }
void scale_all(float *x, int n, float k) { for (int i = 0; i < n; i++) x[i] *= k; }
int64_t bump(int16_t *v, int n) { int64_t t = 0; for (int i = 0; i < n; i++) { v[i] += 1; t += v[i]; } return t; }
"#;

#[test]
fn arrays_are_passed_and_reported() {
    let fx = Fixture::new("arrays.c", ARRAYS);
    let s = sig(
        "sum",
        vec![
            NativeArgKind::FloatArray {
                ty: FloatTy::F64,
                len: 9,
            },
            I32,
        ],
        Type::F64,
    );
    let data: Vec<u64> = [1e308, 1e308, -1e308, -1e308, 1.0, 2.0, 3.0, 4.0, 5.0]
        .iter()
        .map(|x: &f64| x.to_bits())
        .collect();
    let input = vec![vec![NativeArg::Array(data.clone()), NativeArg::Int(9)]];
    let with_result = |result: u64, fl: &[ExceptionKind]| NativeOutcome::Returned {
        result: Some(result),
        flags: flags(fl),
        arrays: vec![data.clone()],
    };

    // In source order the first two terms overflow and the sum stays +inf.
    let p = fx.build(BuildKind::P, &s);
    assert_eq!(
        run(&p, &input),
        vec![with_result(f64::INFINITY.to_bits(), &[Overflow, Inexact])]
    );

    // -O3 -ffast-math vectorises with two <2 x double> accumulators ([x0,x1]+[x4,x5],
    // [x2,x3]+[x6,x7]): the small terms are absorbed by ±1e308, the big ones cancel and
    // only x8 = 5 survives. No overflow; inexact from the absorption (measured).
    let pp = fx.build(BuildKind::PPrime, &s);
    assert_eq!(
        run(&pp, &input),
        vec![with_result(5.0f64.to_bits(), &[Inexact])]
    );

    // In-place updates come back; void functions report no result.
    let s = sig(
        "scale_all",
        vec![
            NativeArgKind::FloatArray {
                ty: FloatTy::F32,
                len: 3,
            },
            I32,
            F32,
        ],
        Type::Void,
    );
    let b = fx.build(BuildKind::P, &s);
    let fb = |x: f32| u64::from(x.to_bits());
    let out = run(
        &b,
        &[vec![
            NativeArg::Array(vec![fb(1.0), fb(f32::MAX), fb(-0.5)]),
            NativeArg::Int(3),
            NativeArg::Float(fb(4.0)),
        ]],
    );
    assert_eq!(
        out,
        vec![NativeOutcome::Returned {
            result: None,
            flags: flags(&[Overflow, Inexact]),
            arrays: vec![vec![fb(4.0), 0x7f80_0000, fb(-2.0)]]
        }]
    );

    let s = sig(
        "bump",
        vec![NativeArgKind::IntArray { width: 16, len: 2 }, I32],
        Type::int(64),
    );
    let b = fx.build(BuildKind::P, &s);
    let out = run(
        &b,
        &[vec![
            NativeArg::Array(vec![0x7fff, u64::MAX]),
            NativeArg::Int(2),
        ]],
    );
    // 0x7fff + 1 wraps to -32768; -1 + 1 = 0.
    assert_eq!(
        out,
        vec![NativeOutcome::Returned {
            result: Some((-32768i64) as u64),
            flags: ExceptionSet::EMPTY,
            arrays: vec![vec![0x8000, 0]]
        }]
    );

    let err = b.run(
        &[vec![NativeArg::Array(vec![1]), NativeArg::Int(1)]],
        &RunOptions::default(),
    );
    assert!(
        matches!(err, Err(NativeError::BadInput { index: 0, .. })),
        "{err:?}"
    );
}

const CRASHY: &str = r#"
#include <stdlib.h>
#include <limits.h>
double crashy(int i) {
    if (i == 3) { volatile int *p = 0; return *p; }
    if (i == 5) abort();
    return i * 0.5;
}
int idiv(int a, int b) { return a / b; }
double hang(int i) { volatile int spin = 1; if (i == 1) while (spin) {} return i; }
"#;

fn assert_crash(o: &NativeOutcome, sig: i32) {
    match o {
        NativeOutcome::Crashed { signal, detail } => {
            assert_eq!(*signal, Some(sig), "{detail}");
            assert!(!detail.is_empty());
        }
        other => panic!("expected a crash, got {other:?}"),
    }
}

#[test]
fn crashes_are_isolated_to_their_vector() {
    let fx = Fixture::new("crashy.c", CRASHY);
    let b = fx.build(BuildKind::P, &sig("crashy", vec![I32], Type::F64));
    let inputs: Vec<Vec<NativeArg>> = (0..7).map(|i| vec![NativeArg::Int(i)]).collect();
    let out = run(&b, &inputs);
    assert_eq!(out.len(), 7);
    for i in [0usize, 1, 2, 4, 6] {
        assert_eq!(
            out[i],
            returned((i as f64 * 0.5).to_bits(), &[]),
            "vector {i}"
        );
    }
    assert_crash(&out[3], libc::SIGSEGV);
    // abort() is a program end the driver catches, not a crash.
    assert_eq!(
        out[5],
        NativeOutcome::Ended {
            end: ProgramEnd::Abort,
            flags: ExceptionSet::EMPTY,
            arrays: vec![],
        }
    );

    let b = fx.build(BuildKind::P, &sig("idiv", vec![I32, I32], Type::int(32)));
    let pair = |a: i32, b: i32| vec![NativeArg::Int(a as u64), NativeArg::Int(b as u64)];
    let out = run(
        &b,
        &[
            pair(6, 3),
            pair(1, 0),
            pair(8, 2),
            pair(i32::MIN, -1),
            pair(9, 3),
        ],
    );
    assert_eq!(out[0], returned(2, &[]));
    assert_crash(&out[1], libc::SIGFPE);
    assert_eq!(out[2], returned(4, &[]));
    assert_crash(&out[3], libc::SIGFPE);
    assert_eq!(out[4], returned(3, &[]));
}

#[test]
fn hangs_time_out_and_the_batch_goes_on() {
    let fx = Fixture::new("crashy.c", CRASHY);
    let b = fx.build(BuildKind::P, &sig("hang", vec![I32], Type::F64));
    let inputs: Vec<Vec<NativeArg>> = [0, 1, 2, 1]
        .iter()
        .map(|&i| vec![NativeArg::Int(i)])
        .collect();
    let out = b.run(&inputs, &opts_timeout(300)).expect("run");
    assert_eq!(
        out,
        vec![
            returned(0, &[]),
            NativeOutcome::TimedOut,
            returned(2f64.to_bits(), &[]),
            NativeOutcome::TimedOut
        ]
    );
}

#[test]
fn cxx_sources_use_mangled_symbols() {
    let code = r#"
#include <numeric>
#include <vector>
double total(const double *x, int n) {
    std::vector<double> v(x, x + n);
    return std::accumulate(v.begin(), v.end(), 0.0);
}
double total(double x) { return x + x; }
"#;
    let fx = Fixture::new("total.cpp", code);
    let arr = fx.build(
        BuildKind::PPrime,
        &sig(
            "_Z5totalPKdi",
            vec![
                NativeArgKind::FloatArray {
                    ty: FloatTy::F64,
                    len: 3,
                },
                I32,
            ],
            Type::F64,
        ),
    );
    let xs: Vec<u64> = [0.5f64, 0.25, 2.0].iter().map(|x| x.to_bits()).collect();
    let out = run(
        &arr,
        &[vec![NativeArg::Array(xs.clone()), NativeArg::Int(3)]],
    );
    assert_eq!(
        out,
        vec![NativeOutcome::Returned {
            result: Some(2.75f64.to_bits()),
            flags: ExceptionSet::EMPTY,
            arrays: vec![xs]
        }]
    );
    let one = fx.build(BuildKind::P, &sig("_Z5totald", vec![F64], Type::F64));
    assert_eq!(
        run(&one, &[f64s(&[f64::MAX])]),
        vec![returned(f64::INFINITY.to_bits(), &[Overflow, Inexact])]
    );
}

#[test]
fn llvm_ir_sources_are_accepted() {
    let fx = Fixture::new("arith.c", ARITH);
    let ll = fx.dir.path().join("arith.ll");
    let tc = Toolchain::discover().expect("toolchain");
    let status = tc
        .clang_command(&[
            "-O1".into(),
            "-S".into(),
            "-emit-llvm".into(),
            "-o".into(),
            ll.clone().into(),
            fx.src.clone().into(),
        ])
        .status()
        .expect("clang");
    assert!(status.success());
    let b = NativeBuild::compile(
        &tc,
        &ll,
        BuildKind::P,
        &BuildFlags::default(),
        &sig("dvd", vec![F64, F64], Type::F64),
        fx.dir.path(),
    )
    .expect("build from .ll");
    assert_eq!(
        run(&b, &[f64s(&[1.0, 0.0])]),
        vec![returned(f64::INFINITY.to_bits(), &[DivByZero])]
    );
}

#[test]
fn compile_errors_carry_clang_diagnostics() {
    let fx = Fixture::new("broken.c", "double f(double x) { return x + ; }\n");
    let err = fx
        .try_build(
            BuildKind::P,
            &BuildFlags::default(),
            &sig("f", vec![F64], Type::F64),
        )
        .expect_err("must fail");
    match &err {
        NativeError::Toolchain(ToolchainError::CompileFailed { diagnostics, .. }) => {
            assert!(diagnostics.contains("expected expression"), "{diagnostics}");
        }
        other => panic!("expected a compile failure, got {other:?}"),
    }
    assert!(err.to_string().contains("broken.c"));
}

#[test]
fn programs_with_main_and_stdio_do_not_disturb_the_protocol() {
    let code = r#"
#include <stdio.h>
#include <fenv.h>
double noisy(double x) {
    printf("R 0 0 garbage\n");
    fflush(stdout);
    (void)getchar();
    return x / 3;
}
/* Leaves the rounding mode changed: the driver must restore it for the next vector. */
double upward(double x) { fesetround(FE_UPWARD); return x / 3; }
int main(void) { printf("%f\n", noisy(1.0)); return 0; }
"#;
    let fx = Fixture::new("prog.c", code);
    let b = fx.build(BuildKind::P, &sig("noisy", vec![F64], Type::F64));
    let out = run(&b, &[f64s(&[1.0]), f64s(&[2.0])]);
    assert_eq!(
        out,
        vec![
            returned((1.0f64 / 3.0).to_bits(), &[Inexact]),
            returned((2.0f64 / 3.0).to_bits(), &[Inexact])
        ]
    );

    let b = fx.build(BuildKind::P, &sig("upward", vec![F64], Type::F64));
    let out = run(&b, &[f64s(&[1.0]), f64s(&[1.0])]);
    let up = f64::from_bits((1.0f64 / 3.0).to_bits() + 1);
    assert_eq!(
        out,
        vec![
            returned(up.to_bits(), &[Inexact]),
            returned(up.to_bits(), &[Inexact])
        ]
    );
}

#[test]
fn large_batches_stream_without_deadlock() {
    let fx = Fixture::new("arith.c", ARITH);
    let b = fx.build(BuildKind::PPrime, &sig("mul", vec![F64, F64], Type::F64));
    let inputs: Vec<Vec<NativeArg>> = (0..20_000).map(|i| f64s(&[i as f64, 0.5])).collect();
    let out = run(&b, &inputs);
    assert_eq!(out.len(), inputs.len());
    for (i, o) in out.iter().enumerate() {
        assert_eq!(*o, returned((i as f64 * 0.5).to_bits(), &[]));
    }
}

#[test]
fn throughput_is_measured_in_process() {
    let fx = Fixture::new("arrays.c", ARRAYS);
    let s = sig(
        "sum",
        vec![
            NativeArgKind::FloatArray {
                ty: FloatTy::F64,
                len: 4,
            },
            I32,
        ],
        Type::F64,
    );
    let b = fx.build(BuildKind::PPrime, &s);
    let inputs: Vec<Vec<NativeArg>> = (0..10)
        .map(|i| {
            vec![
                NativeArg::Array(vec![(i as f64).to_bits(); 4]),
                NativeArg::Int(4),
            ]
        })
        .collect();
    let rate = b
        .throughput(&inputs, &RunOptions::default(), 0.2)
        .expect("throughput");
    assert!(rate.is_finite() && rate > 1e5, "{rate} calls/s");

    let fx = Fixture::new("crashy.c", CRASHY);
    let b = fx.build(BuildKind::P, &sig("crashy", vec![I32], Type::F64));
    let err = b.throughput(&[vec![NativeArg::Int(3)]], &RunOptions::default(), 0.1);
    assert!(matches!(err, Err(NativeError::Bench(_))), "{err:?}");
    assert!(matches!(
        b.throughput(&[], &RunOptions::default(), 0.1),
        Err(NativeError::Bench(_))
    ));
}

#[test]
fn signatures_come_from_ir_functions() {
    use fpscout_ir::{Function, Param, ScalarTy};
    let param = |name: &str, ty: Type, pointee: Option<ScalarTy>, unsigned: bool| Param {
        name: name.into(),
        ty,
        pointee,
        min_elements: 0,
        unsigned,
    };
    let mut f = Function {
        name: "_Z1fPdjf".into(),
        display_name: "f(double*, unsigned int, float)".into(),
        params: vec![
            param("x", Type::PTR, Some(ScalarTy::Float(FloatTy::F64)), false),
            param("n", Type::int(32), None, true),
            param("k", Type::F32, None, false),
        ],
        ret: Type::F64,
        blocks: vec![],
        num_values: 3,
        external: true,
        loc: None,
        unsupported: None,
    };
    let s = NativeSignature::from_function(&f, &[Some(4), None, None]).expect("supported");
    assert_eq!(
        s,
        sig(
            "_Z1fPdjf",
            vec![
                NativeArgKind::FloatArray {
                    ty: FloatTy::F64,
                    len: 4
                },
                NativeArgKind::Int {
                    width: 32,
                    unsigned: true
                },
                F32
            ],
            Type::F64
        )
    );
    assert!(matches!(
        NativeSignature::from_function(&f, &[]),
        Err(NativeError::UnsupportedSignature { .. })
    ));
    f.ret = Type::Vector(ScalarTy::Float(FloatTy::F32), 2);
    assert!(matches!(
        NativeSignature::from_function(&f, &[Some(4)]),
        Err(NativeError::UnsupportedSignature { .. })
    ));
    f.ret = Type::F64;
    f.external = false;
    assert!(matches!(
        NativeSignature::from_function(&f, &[Some(4)]),
        Err(NativeError::UnsupportedSignature { .. })
    ));
}

fn ended(end: ProgramEnd, fl: &[ExceptionKind]) -> NativeOutcome {
    NativeOutcome::Ended {
        end,
        flags: flags(fl),
        arrays: vec![],
    }
}

fn exit_with(status: i32) -> ProgramEnd {
    ProgramEnd::Exit { status }
}

fn ints(v: &[i64]) -> Vec<Vec<NativeArg>> {
    v.iter().map(|&i| vec![NativeArg::Int(i as u64)]).collect()
}

const STATEFUL: &str = r#"
static double acc;                    /* .bss */
static double scale[2] = {1.0, 0.5};  /* .data */
double accum(double x) { acc += x; scale[0] *= 2.0; return acc * scale[0]; }
static int calls;
int count(int x) { calls++; return calls * 100 + x; }
static _Thread_local int tcalls = 7;
int tcount(int x) { tcalls++; return tcalls * 100 + x; }
"#;

#[test]
fn every_vector_starts_from_the_initial_globals() {
    let fx = Fixture::new("stateful.c", STATEFUL);
    let xs = [1.5, 2.25, -3.0, 1e308, 1e308, 0.1];
    let inputs: Vec<Vec<NativeArg>> = xs.iter().map(|&x| f64s(&[x])).collect();
    // Each call sees acc = 0 and scale[0] = 1: it returns (0 + x) * 2, exactly 2x.
    let expected: Vec<NativeOutcome> = xs
        .iter()
        .map(|&x| {
            let fl: &[ExceptionKind] = if x == 1e308 {
                // 2 * 1e308 overflows; with acc left over it would be inf, raising
                // nothing.
                &[Overflow, Inexact]
            } else {
                &[]
            };
            returned((x * 2.0).to_bits(), fl)
        })
        .collect();
    for kind in [BuildKind::P, BuildKind::PPrime] {
        let b = fx.build(kind, &sig("accum", vec![F64], Type::F64));
        assert_eq!(run(&b, &inputs), expected, "{kind}");
        let traced = b
            .run_traced(&inputs, &RunOptions::default())
            .expect("trace");
        let outcomes: Vec<NativeOutcome> = traced.into_iter().map(|t| t.outcome).collect();
        assert_eq!(outcomes, expected, "{kind} traced");
    }
    let count_inputs = ints(&[5, -1, 0, 42]);
    let b = fx.build(BuildKind::P, &sig("count", vec![I32], Type::int(32)));
    let expected: Vec<NativeOutcome> = [105u64, 99, 100, 142]
        .iter()
        .map(|&r| returned(r, &[]))
        .collect();
    assert_eq!(run(&b, &count_inputs), expected);
    let traced = b
        .run_traced(&count_inputs, &RunOptions::default())
        .expect("trace");
    let outcomes: Vec<NativeOutcome> = traced.into_iter().map(|t| t.outcome).collect();
    assert_eq!(outcomes, expected);
    // Thread-locals too: tcalls starts at 7 every time.
    let b = fx.build(BuildKind::PPrime, &sig("tcount", vec![I32], Type::int(32)));
    let expected: Vec<NativeOutcome> = [805u64, 799, 800, 842]
        .iter()
        .map(|&r| returned(r, &[]))
        .collect();
    assert_eq!(run(&b, &count_inputs), expected);
}

const ENDS: &str = r#"
#include <assert.h>
#include <stdlib.h>
#include <unistd.h>
double quit(double x) {
    double y = 1.0 / x;
    if (y < 0) exit(3);
    return y;
}
int ends(int how) {
    switch (how) {
    case 0: exit(10);
    case 1: _Exit(11);
    case 2: _exit(12);
    case 3: quick_exit(13);
    case 4: abort();
    case 5: exit(-1);
    default: return how;
    }
}
double positive(double x) {
    assert(x > 0);
    return x;
}
void fill(double *a, int n) {
    a[0] = 1.0;
    if (n < 0) exit(4);
    a[1] = 2.0;
}
"#;

#[test]
fn exits_are_reported_and_the_batch_goes_on() {
    let fx = Fixture::new("ends.c", ENDS);
    let b = fx.build(BuildKind::P, &sig("quit", vec![F64], Type::F64));
    let out = run(
        &b,
        &[
            f64s(&[2.0]),
            f64s(&[-0.0]),
            f64s(&[4.0]),
            f64s(&[-2.0]),
            f64s(&[3.0]),
            f64s(&[0.0]),
        ],
    );
    assert_eq!(
        out,
        vec![
            returned(0.5f64.to_bits(), &[]),
            // 1 / -0 = -inf raised divide-by-zero before the exit.
            ended(exit_with(3), &[DivByZero]),
            returned(0.25f64.to_bits(), &[]),
            ended(exit_with(3), &[]),
            returned((1.0f64 / 3.0).to_bits(), &[Inexact]),
            returned(f64::INFINITY.to_bits(), &[DivByZero]),
        ]
    );
    // -O3 -ffast-math: the same ends (inputs whose results fast-math cannot change).
    let pp = fx.build(BuildKind::PPrime, &sig("quit", vec![F64], Type::F64));
    assert_eq!(
        run(
            &pp,
            &[f64s(&[-2.0]), f64s(&[2.0]), f64s(&[-4.0]), f64s(&[4.0])]
        ),
        vec![
            ended(exit_with(3), &[]),
            returned(0.5f64.to_bits(), &[]),
            ended(exit_with(3), &[]),
            returned(0.25f64.to_bits(), &[]),
        ]
    );

    // Every way to end the program, in one driver process.
    let b = fx.build(BuildKind::P, &sig("ends", vec![I32], Type::int(32)));
    let out = run(&b, &ints(&[0, 7, 1, 2, 3, 4, 5, 8]));
    assert_eq!(
        out,
        vec![
            ended(exit_with(10), &[]),
            returned(7, &[]),
            ended(exit_with(11), &[]),
            ended(exit_with(12), &[]),
            ended(exit_with(13), &[]),
            ended(ProgramEnd::Abort, &[]),
            ended(exit_with(-1), &[]),
            returned(8, &[]),
        ]
    );
    assert_eq!(exit_with(3).to_string(), "exits with status 3");
    assert_eq!(ProgramEnd::Abort.to_string(), "aborts");
}

#[test]
fn failed_assertions_carry_their_expression() {
    let fx = Fixture::new("ends.c", ENDS);
    for kind in [BuildKind::P, BuildKind::PPrime] {
        let b = fx.build(kind, &sig("positive", vec![F64], Type::F64));
        let out = run(&b, &[f64s(&[-1.0]), f64s(&[2.5]), f64s(&[0.0])]);
        let message = "x > 0".to_string();
        let failed = ended(
            ProgramEnd::AssertFail {
                message: message.clone(),
            },
            &[],
        );
        assert_eq!(
            out,
            vec![failed.clone(), returned(2.5f64.to_bits(), &[]), failed],
            "{kind}"
        );
        let NativeOutcome::Ended { end, .. } = &out[0] else {
            unreachable!()
        };
        assert_eq!(end.to_string(), "fails assertion `x > 0`");
    }
}

#[test]
fn program_ends_report_the_arrays_as_they_were() {
    let fx = Fixture::new("ends.c", ENDS);
    let b = fx.build(
        BuildKind::P,
        &sig(
            "fill",
            vec![
                NativeArgKind::FloatArray {
                    ty: FloatTy::F64,
                    len: 2,
                },
                I32,
            ],
            Type::Void,
        ),
    );
    let nine = 9.0f64.to_bits();
    let input = |n: i64| vec![NativeArg::Array(vec![nine, nine]), NativeArg::Int(n as u64)];
    let out = run(&b, &[input(-1), input(1)]);
    assert_eq!(
        out,
        vec![
            NativeOutcome::Ended {
                end: exit_with(4),
                flags: ExceptionSet::EMPTY,
                arrays: vec![vec![1.0f64.to_bits(), nine]],
            },
            NativeOutcome::Returned {
                result: None,
                flags: ExceptionSet::EMPTY,
                arrays: vec![vec![1.0f64.to_bits(), 2.0f64.to_bits()]],
            },
        ]
    );
}

#[test]
fn outside_a_call_exit_really_ends_the_driver() {
    // Bench modes do not catch program ends: the driver's wrappers forward to the real
    // exit, so the measurement fails with the status.
    let fx = Fixture::new("ends.c", ENDS);
    let b = fx.build(BuildKind::P, &sig("ends", vec![I32], Type::int(32)));
    let err = b.throughput(&ints(&[0]), &RunOptions::default(), 0.05);
    match err {
        Err(NativeError::Bench(detail)) => {
            assert!(detail.contains("exited with status 10"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
    let err = b.throughput(&ints(&[4]), &RunOptions::default(), 0.05);
    match err {
        Err(NativeError::Bench(detail)) => assert!(detail.contains("SIGABRT"), "{detail}"),
        other => panic!("{other:?}"),
    }
    // A call that returns is measured as usual.
    let rate = b
        .throughput(&ints(&[7]), &RunOptions::default(), 0.05)
        .expect("throughput");
    assert!(rate > 0.0);
}

#[test]
fn static_executables_are_refused_rather_than_restored_unsafely() {
    let fx = Fixture::new("stateful.c", STATEFUL);
    let mut flags = BuildFlags::default();
    flags.p_prime.push("-static".into());
    let s = sig("accum", vec![F64], Type::F64);
    let b = match fx.try_build(BuildKind::PPrime, &flags, &s) {
        Ok(b) => b,
        Err(e) => panic!("static build failed (is libc.a installed?): {e}"),
    };
    let err = b.run(&[f64s(&[1.0])], &RunOptions::default());
    match err {
        Err(NativeError::Protocol(msg)) => assert!(msg.contains("statically linked"), "{msg}"),
        other => panic!("{other:?}"),
    }
    // Bench modes restore nothing and still measure it.
    let rate = b
        .throughput(&[f64s(&[1.0])], &RunOptions::default(), 0.05)
        .expect("throughput");
    assert!(rate > 0.0);
}

#[test]
fn an_exit_in_another_thread_really_ends_the_driver() {
    let code = r#"
#include <pthread.h>
#include <stdlib.h>
static void *quit(void *arg) { exit(*(int *)arg); }
int threaded(int status) {
    pthread_t t;
    if (status > 0) {
        pthread_create(&t, NULL, quit, &status);
        pthread_join(t, NULL);
    }
    return -status;
}
"#;
    let fx = Fixture::new("threaded.c", code);
    let b = fx.build(BuildKind::P, &sig("threaded", vec![I32], Type::int(32)));
    let out = run(&b, &ints(&[0, 6, -2]));
    assert_eq!(out[0], returned(0, &[]));
    match &out[1] {
        NativeOutcome::Crashed {
            signal: None,
            detail,
        } => {
            assert!(detail.contains("exited with status 6"), "{detail}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(out[2], returned(2, &[]));
}

#[test]
fn megabytes_of_output_neither_block_nor_corrupt_the_protocol() {
    let code = r#"
#include <stdio.h>
#include <stdlib.h>
double loud(double x) {
    for (int i = 0; i < 65536; i++) printf("R %013d\n", i);     /* 1 MiB to stdout */
    for (int i = 0; i < 65536; i++) fprintf(stderr, "X %013d\n", i); /* 1 MiB to stderr */
    if (x < 0) exit(5);
    return x * 2;
}
"#;
    let fx = Fixture::new("loud.c", code);
    let b = fx.build(BuildKind::P, &sig("loud", vec![F64], Type::F64));
    let inputs: Vec<Vec<NativeArg>> = [1.0, -1.0, 2.5, 3.0, -0.5, 4.0]
        .iter()
        .map(|&x| f64s(&[x]))
        .collect();
    let out = run(&b, &inputs);
    assert_eq!(
        out,
        vec![
            returned(2f64.to_bits(), &[]),
            ended(exit_with(5), &[]),
            returned(5f64.to_bits(), &[]),
            returned(6f64.to_bits(), &[]),
            ended(exit_with(5), &[]),
            returned(8f64.to_bits(), &[]),
        ]
    );
    let traced = b
        .run_traced(&inputs, &RunOptions::default())
        .expect("trace");
    let outcomes: Vec<NativeOutcome> = traced.into_iter().map(|t| t.outcome).collect();
    assert_eq!(outcomes, out);
}

/// What one outcome of `run` is as an enumeration code (flags without inexact, class).
fn code_of(o: &NativeOutcome, ret: Type) -> (ExceptionSet, u8) {
    let NativeOutcome::Returned { result, flags, .. } = o else {
        panic!("{o:?}")
    };
    let class = match (ret, result) {
        (Type::F32, Some(b)) => {
            let x = f32::from_bits(*b as u32);
            if x.is_nan() {
                3
            } else if x == f32::INFINITY {
                1
            } else if x == f32::NEG_INFINITY {
                2
            } else {
                0
            }
        }
        (Type::F64, Some(b)) => {
            let x = f64::from_bits(*b);
            if x.is_nan() {
                3
            } else if x == f64::INFINITY {
                1
            } else if x == f64::NEG_INFINITY {
                2
            } else {
                0
            }
        }
        _ => 4,
    };
    (flags.without_inexact(), class)
}

#[test]
fn enumeration_codes_agree_with_replayed_runs() {
    let fx = Fixture::new(
        "enum.c",
        "float recip(float x) { return 1.0f / x; }\n\
         double halfsq(double x) { return x * x * 0.5; }\n\
         int positive(float x) { return x > 0; }\n",
    );
    let cases = [
        sig("recip", vec![F32], Type::F32),
        sig("halfsq", vec![F64], Type::F64),
        sig(
            "positive",
            vec![F32],
            Type::Scalar(fpscout_ir::ScalarTy::Int(32)),
        ),
    ];
    for kind in [BuildKind::P, BuildKind::PPrime] {
        for s in &cases {
            let b = fx.build(kind, s);
            let opts = RunOptions::default();
            // 32 windows of 512 inputs spread over all 2^32 (every sign and exponent).
            let mut picks: Vec<u64> = Vec::new();
            let mut codes = Vec::new();
            for w in 0..32u64 {
                let start = w * (1u64 << 27) + w * 7919;
                picks.extend(start..start + 512);
                b.enumerate(start, 512, 1, &opts, Duration::from_secs(10), &mut |c| {
                    codes.extend_from_slice(c);
                    true
                })
                .expect("enumerate");
            }
            assert_eq!(codes.len(), picks.len());
            // The same inputs through the ordinary protocol.
            let input = |k: u64| match s.params[0] {
                NativeArgKind::Float(FloatTy::F32) => NativeArg::Float(k),
                _ => NativeArg::Float(fpscout_native::enumerated_double(k)),
            };
            let outcomes = run(
                &b,
                &picks.iter().map(|&k| vec![input(k)]).collect::<Vec<_>>(),
            );
            for ((k, code), o) in picks.iter().zip(&codes).zip(&outcomes) {
                assert_eq!(
                    fpscout_native::decode_enumerated(*code),
                    code_of(o, s.ret),
                    "{kind} {} input {k:#x}",
                    s.symbol
                );
            }
        }
    }
}

#[test]
fn a_range_enumerates_in_one_process_in_order() {
    let fx = Fixture::new("enum.c", "float recip(float x) { return 1.0f / x; }\n");
    let b = fx.build(BuildKind::P, &sig("recip", vec![F32], Type::F32));
    // The positive floats from 0 up: +0 divides by zero, the subnormals below 2^-128
    // overflow, the rest are finite.
    let count = 1u64 << 24;
    let mut codes = Vec::with_capacity(count as usize);
    b.enumerate(
        0,
        count,
        1,
        &RunOptions::default(),
        Duration::from_secs(30),
        &mut |c| {
            codes.extend_from_slice(c);
            true
        },
    )
    .expect("enumerate");
    assert_eq!(codes.len() as u64, count);
    assert_eq!(
        fpscout_native::decode_enumerated(codes[0]),
        (flags(&[DivByZero]), 1)
    );
    for (k, &c) in codes.iter().enumerate().skip(1) {
        let x = f32::from_bits(k as u32);
        let expected = if 1.0 / f64::from(x) > f64::from(f32::MAX) {
            (flags(&[Overflow]), 1)
        } else {
            (ExceptionSet::EMPTY, 0)
        };
        assert_eq!(
            fpscout_native::decode_enumerated(c),
            expected,
            "input {k:#x}"
        );
    }
}
