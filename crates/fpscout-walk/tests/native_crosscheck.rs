//! Ground truth: the same IR (hand-written `.ll`) or the same C casts, compiled natively by
//! clang-19 and called from a generated harness that prints result bits and
//! `fetestexcept` flags, must agree with the concrete walk bit for bit and flag for flag.
//! Where a row also carries an expected value, both must equal it.

mod common;

use common::ll::*;
use common::tables::*;
use common::{d, eval_scalar, f, flags, load_ll, run_native, CTy, NativeCall, DAZ, FTZ, FTZ_DAZ};
use fpscout_ir::{CastOp, ExceptionSet, FloatTy, Module, ScalarTy};
use fpscout_walk::concrete::FpMode;

const IEEE: FpMode = FpMode::IEEE;

/// One call checked three ways: concrete walk, native run, and (optionally) a fixed value.
struct Case {
    call: NativeCall,
    want: Option<(u64, &'static str)>,
}

fn case(
    func: &str,
    params: &[CTy],
    ret: CTy,
    args: &[u64],
    mode: FpMode,
    want: Option<(u64, &'static str)>,
) -> Case {
    Case {
        call: NativeCall {
            func: func.to_string(),
            params: params.to_vec(),
            ret,
            args: args.to_vec(),
            mode,
        },
        want,
    }
}

/// Runs every case natively (one harness) and concretely in `module`; reports all
/// disagreements at once.
fn crosscheck(module: &Module, sources: &[(&str, &str)], cases: &[Case]) {
    let dir = tempfile::tempdir().unwrap();
    let calls: Vec<NativeCall> = cases.iter().map(|c| c.call.clone()).collect();
    let native = run_native(dir.path(), sources, &calls);
    let mut errs = vec![];
    for (c, &(nbits, nflags)) in cases.iter().zip(&native) {
        let k = &c.call;
        let (cbits, cflags) = eval_scalar(module, &k.func, k.mode, &k.args);
        let what = format!("{}({:x?}) in {:?}", k.func, k.args, k.mode);
        if (cbits, cflags) != (nbits, nflags) {
            errs.push(format!(
                "{what}: concrete {cbits:#x} [{cflags}] but native {nbits:#x} [{nflags}]"
            ));
        }
        if let Some((w, fl)) = c.want {
            if (nbits, nflags) != (w, flags(fl)) {
                errs.push(format!(
                    "{what}: native {nbits:#x} [{nflags}], expected {w:#x} [{fl}]"
                ));
            }
        }
    }
    assert!(
        errs.is_empty(),
        "{} disagreements:\n{}",
        errs.len(),
        errs.join("\n")
    );
}

/// [`crosscheck`] of C source `src`, written to `file_name`: the walked IR is the P
/// build's (clang -O0 + mem2reg), the native object the P flags'.
fn crosscheck_c(file_name: &str, src: &str, cases: &[Case]) {
    let dir = tempfile::tempdir().unwrap();
    let c_path = dir.path().join(file_name);
    std::fs::write(&c_path, src).unwrap();
    let tc = fpscout_toolchain::Toolchain::discover().expect("clang-19");
    let module = fpscout_llvm::load_build(
        &tc,
        &c_path,
        fpscout_toolchain::BuildKind::P,
        &fpscout_toolchain::BuildFlags::default(),
        dir.path(),
    )
    .unwrap_or_else(|e| panic!("lower {file_name}: {e}"));
    crosscheck(&module, &[(file_name, src)], cases);
}

const EXTRA_LL: &str = r#"
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
define double @red4(double %a0, double %a1, double %a2, double %a3, i1 %re) {
  %v0 = insertelement <4 x double> poison, double %a0, i32 0
  %v1 = insertelement <4 x double> %v0, double %a1, i32 1
  %v2 = insertelement <4 x double> %v1, double %a2, i32 2
  %v3 = insertelement <4 x double> %v2, double %a3, i32 3
  br i1 %re, label %tree, label %ord
tree:
  %t = call reassoc double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %v3)
  ret double %t
ord:
  %o = call double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %v3)
  ret double %o
}
define double @red4_ord(double %a0, double %a1, double %a2, double %a3) {
  %r = call double @red4(double %a0, double %a1, double %a2, double %a3, i1 false)
  ret double %r
}
define double @red4_re(double %a0, double %a1, double %a2, double %a3) {
  %r = call double @red4(double %a0, double %a1, double %a2, double %a3, i1 true)
  ret double %r
}
define i32 @sel_i32(double %a, double %b) {
  %c = fcmp olt double %a, %b
  %r = select i1 %c, i32 1, i32 0
  ret i32 %r
}
define float @sel_f(float %a, float %b) {
  %c = fcmp ole float %a, %b
  %r = select i1 %c, float %a, float %b
  ret float %r
}
define double @vdiv_sum(double %a0, double %a1, double %b0, double %b1) {
  %x0 = insertelement <2 x double> poison, double %a0, i32 0
  %x = insertelement <2 x double> %x0, double %a1, i32 1
  %y0 = insertelement <2 x double> poison, double %b0, i32 0
  %y = insertelement <2 x double> %y0, double %b1, i32 1
  %q = fdiv <2 x double> %x, %y
  %e0 = extractelement <2 x double> %q, i32 0
  %e1 = extractelement <2 x double> %q, i32 1
  %s = fadd double %e0, %e1
  ret double %s
}
"#;

fn fp(ty: FloatTy) -> CTy {
    match ty {
        FloatTy::F32 => CTy::F32,
        FloatTy::F64 => CTy::F64,
    }
}

#[test]
fn hand_written_ir_matches_native() {
    let text = format!("{}{}{INTRINSICS}{EXTRA_LL}", arith_ll(), fcmp_ll());
    let m = load_ll(&text);
    let mut cases = vec![];
    // Arithmetic (frem is a call to fmod natively too).
    for (suffix, ty, rows) in [
        ("d", FloatTy::F64, F64_ARITH),
        ("f", FloatTy::F32, F32_ARITH),
    ] {
        let t = fp(ty);
        for &(op, a, b, want, fl) in rows {
            let name = format!("{}_{suffix}", format!("{op:?}").to_lowercase());
            cases.push(case(&name, &[t, t], t, &[a, b], IEEE, Some((want, fl))));
        }
    }
    // FTZ / DAZ, natively set in MXCSR around the call.
    #[rustfmt::skip]
    let modes: &[(FpMode, &str, u64, u64, u64, &str)] = &[
        (FTZ, "fmul_d", d::MIN, d::HALF, d::PZ, UF_IE),
        (FTZ, "fmul_d", d::Q3, 0x0015_5555_5555_5555, d::MIN, IE),
        (FTZ, "fmul_d", d::BELOW_ONE, d::MIN, d::PZ, UF_IE),
        (FTZ, "fsub_d", 0x0010_0000_0000_0001, d::MIN, d::PZ, UF_IE),
        (FTZ, "fadd_d", d::MIN_SUB, d::PZ, d::PZ, UF_IE),
        (DAZ, "fdiv_d", d::ONE, d::MIN_SUB, d::INF, DZ),
        (DAZ, "fmul_d", d::MIN_SUB, 0x7e70_0000_0000_0000, d::PZ, NONE),
        (DAZ, "fadd_d", d::MAX_SUB, d::MAX_SUB, d::PZ, NONE),
        (FTZ_DAZ, "fsub_d", d::MIN, d::MAX_SUB, d::MIN, NONE),
        (FTZ_DAZ, "fmul_d", d::MAX, d::TWO, d::INF, OF_IE),
        (FTZ, "fmul_f", 0x3f7f_0040, 0x0080_8060, f::MIN, IE),
        (DAZ, "fdiv_f", f::ONE, f::MIN_SUB, f::INF, DZ),
        (FTZ, "frem_d", d::MIN_SUB, d::ONE, d::MIN_SUB, NONE),
    ];
    for &(mode, name, a, b, want, fl) in modes {
        let t = if name.ends_with("_f") {
            CTy::F32
        } else {
            CTy::F64
        };
        cases.push(case(name, &[t, t], t, &[a, b], mode, Some((want, fl))));
    }
    // fcmp: quiet (setcc) and mask (select of doubles), all predicates.
    let pairs = [
        (d::ONE, d::TWO),
        (d::PZ, d::NZ),
        (d::INF, d::MAX),
        (d::QNAN, d::ONE),
        (d::ONE, d::SNAN),
    ];
    for (p, _) in PREDS {
        for (a, b) in pairs {
            cases.push(case(
                &format!("q_{p}"),
                &[CTy::F64, CTy::F64],
                CTy::I32,
                &[a, b],
                IEEE,
                None,
            ));
            cases.push(case(
                &format!("m_{p}"),
                &[CTy::F64, CTy::F64],
                CTy::F64,
                &[a, b],
                IEEE,
                None,
            ));
        }
    }
    cases.push(case(
        "sel_i32",
        &[CTy::F64, CTy::F64],
        CTy::I32,
        &[d::QNAN, d::ONE],
        IEEE,
        Some((0, NONE)),
    ));
    cases.push(case(
        "sel_i32",
        &[CTy::F64, CTy::F64],
        CTy::I32,
        &[d::ONE, d::SNAN],
        IEEE,
        Some((0, INV)),
    ));
    cases.push(case(
        "sel_f",
        &[CTy::F32, CTy::F32],
        CTy::F32,
        &[f::QNAN, f::ONE],
        IEEE,
        Some((f::ONE, INV)),
    ));
    cases.push(case(
        "sel_f",
        &[CTy::F32, CTy::F32],
        CTy::F32,
        &[f::ONE, f::TWO],
        IEEE,
        Some((f::ONE, NONE)),
    ));
    // Intrinsics and libm calls.
    for &(name, args, want, fl) in INTRINSIC_ROWS {
        let t = if ["t_sqrtf_i", "t_minnumf", "t_c_expf", "t_c_logf"].contains(&name) {
            CTy::F32
        } else {
            CTy::F64
        };
        cases.push(case(
            name,
            &vec![t; args.len()],
            t,
            args,
            IEEE,
            Some((want, fl)),
        ));
    }
    // Intrinsics under FTZ/DAZ (fma is glibc's, which follows MXCSR).
    cases.push(case(
        "t_fma",
        &[CTy::F64; 3],
        CTy::F64,
        &[d::MIN, d::HALF, d::PZ],
        FTZ,
        Some((d::PZ, UF_IE)),
    ));
    cases.push(case(
        "t_sqrt_i",
        &[CTy::F64],
        CTy::F64,
        &[d::MIN_SUB],
        DAZ,
        Some((d::PZ, NONE)),
    ));
    cases.push(case(
        "t_minnum",
        &[CTy::F64; 2],
        CTy::F64,
        &[d::PZ, d::MIN_SUB],
        DAZ,
        None,
    ));
    cases.push(case(
        "t_c_exp",
        &[CTy::F64],
        CTy::F64,
        &[0xc087_2000_0000_0000],
        FTZ,
        None,
    ));
    cases.push(case(
        "t_c_exp",
        &[CTy::F64],
        CTy::F64,
        &[0xc087_2000_0000_0000],
        IEEE,
        Some((0x55, UF_IE)),
    ));
    // Reductions: ordered vs x86's halving tree ((a0+a2) + (a1+a3)).
    let e16 = 0x4341_c379_37e0_8000;
    let me16 = 0xc341_c379_37e0_8000;
    let f4 = [CTy::F64; 4];
    cases.push(case(
        "red4_ord",
        &f4,
        CTy::F64,
        &[e16, d::ONE, me16, d::ONE],
        IEEE,
        Some((d::ONE, IE)),
    ));
    cases.push(case(
        "red4_re",
        &f4,
        CTy::F64,
        &[e16, d::ONE, me16, d::ONE],
        IEEE,
        Some((d::TWO, NONE)),
    ));
    cases.push(case(
        "red4_re",
        &f4,
        CTy::F64,
        &[d::ONE, d::MAX, d::THREE, d::MAX],
        IEEE,
        Some((d::INF, OF_IE)),
    ));
    cases.push(case(
        "red4_ord",
        &f4,
        CTy::F64,
        &[d::MAX, d::MAX, d::NINF, d::ONE],
        IEEE,
        Some((d::DNAN, "invalid,overflow,inexact")),
    ));
    // A vector divide: flags are the union of the lanes.
    cases.push(case(
        "vdiv_sum",
        &f4,
        CTy::F64,
        &[d::ONE, d::PZ, d::PZ, d::PZ],
        IEEE,
        Some((d::DNAN, "invalid,divbyzero")),
    ));
    cases.push(case(
        "vdiv_sum",
        &f4,
        CTy::F64,
        &[d::ONE, d::ONE, d::THREE, d::MAX],
        IEEE,
        Some((0x3fd5_5555_5555_5555, UF_IE)),
    ));
    crosscheck(&m, &[("x.ll", &text)], &cases);
}

fn cast_fn(op: CastOp, from: ScalarTy, to: ScalarTy) -> (String, CTy, CTy) {
    let ct = |s: ScalarTy, signed: bool| match s {
        ScalarTy::Float(t) => fp(t),
        ScalarTy::Int(8) => {
            if signed {
                CTy::I8
            } else {
                CTy::U8
            }
        }
        ScalarTy::Int(16) => {
            if signed {
                CTy::I16
            } else {
                CTy::U16
            }
        }
        ScalarTy::Int(32) => {
            if signed {
                CTy::I32
            } else {
                CTy::U32
            }
        }
        ScalarTy::Int(64) => {
            if signed {
                CTy::I64
            } else {
                CTy::U64
            }
        }
        other => panic!("no C type for {other}"),
    };
    let (p, r) = match op {
        CastOp::SIToFP => (ct(from, true), ct(to, true)),
        CastOp::UIToFP => (ct(from, false), ct(to, true)),
        CastOp::FPToSI => (ct(from, true), ct(to, true)),
        CastOp::FPToUI => (ct(from, true), ct(to, false)),
        _ => (ct(from, true), ct(to, true)),
    };
    let name = format!("{op:?}_{p:?}_{r:?}").to_lowercase();
    (name, p, r)
}

fn c_type(t: CTy) -> &'static str {
    match t {
        CTy::F32 => "float",
        CTy::F64 => "double",
        CTy::I8 => "int8_t",
        CTy::I16 => "int16_t",
        CTy::I32 => "int32_t",
        CTy::I64 => "int64_t",
        CTy::U8 => "uint8_t",
        CTy::U16 => "uint16_t",
        CTy::U32 => "uint32_t",
        CTy::U64 => "uint64_t",
    }
}

/// (function, parameter types, arguments, expected result and flags)
type LibmRow<'a> = (&'a str, &'a [CTy], &'a [u64], Option<(u64, &'static str)>);

const LIBM_C: &str = r#"
#include <math.h>
double cl_round(double x) { return round(x); }
double cl_floor(double x) { return floor(x); }
double cl_ceil(double x) { return ceil(x); }
double cl_trunc(double x) { return trunc(x); }
double cl_rint(double x) { return rint(x); }
double cl_nearbyint(double x) { return nearbyint(x); }
double cl_fmin(double a, double b) { return fmin(a, b); }
double cl_fmax(double a, double b) { return fmax(a, b); }
double cl_exp(double x) { return exp(x); }
double cl_log(double x) { return log(x); }
double cl_pow(double a, double b) { return pow(a, b); }
double cl_sqrt(double x) { return sqrt(x); }
double cl_fmod(double a, double b) { return fmod(a, b); }
double cl_cbrt(double x) { return cbrt(x); }
double cl_fma(double a, double b, double c) { return fma(a, b, c); }
double cl_sin(double x) { return sin(x); }
double cl_atan2(double a, double b) { return atan2(a, b); }
float cl_sqrtf(float x) { return sqrtf(x); }
float cl_expf(float x) { return expf(x); }
float cl_roundf(float x) { return roundf(x); }
"#;

#[test]
fn c_casts_and_libm_calls_match_native() {
    // One C function per conversion of the table, written as the C cast.
    let mut src = String::from("#include <stdint.h>\n");
    let mut seen = vec![];
    let mut cases = vec![];
    for &(op, from, to, a, want, fl) in CASTS {
        let (name, p, r) = cast_fn(op, from, to);
        if !seen.contains(&name) {
            src += &format!(
                "{} {name}({} x) {{ return ({})x; }}\n",
                c_type(r),
                c_type(p),
                c_type(r)
            );
            seen.push(name.clone());
        }
        cases.push(case(&name, &[p], r, &[a], IEEE, Some((want, fl))));
    }
    // Conversions under FTZ/DAZ.
    let (tr, p, r) = cast_fn(CastOp::FPTrunc, SF64, SF32);
    cases.push(case(
        &tr,
        &[p],
        r,
        &[0x36a0_0000_0000_0000],
        FTZ,
        Some((f::PZ, UF_IE)),
    ));
    let (ex, p, r) = cast_fn(CastOp::FPExt, SF32, SF64);
    cases.push(case(&ex, &[p], r, &[f::MIN_SUB], DAZ, Some((d::PZ, NONE))));
    let (si, p, r) = cast_fn(CastOp::FPToSI, SF64, I32);
    cases.push(case(&si, &[p], r, &[d::MIN_SUB], DAZ, Some((0, NONE))));
    src += LIBM_C;
    const D1: &[CTy] = &[CTy::F64];
    const D2: &[CTy] = &[CTy::F64; 2];
    #[rustfmt::skip]
    let libm: &[LibmRow] = &[
        // glibc's round/floor/rint are integer code: round(-1) raises nothing, an SNaN is
        // quieted with INVALID (Rust's own soft versions differ, see x86.rs).
        ("cl_round", D1, &[d::MONE], Some((d::MONE, NONE))),
        ("cl_round", D1, &[0x4004_0000_0000_0000], Some((d::THREE, NONE))),
        ("cl_round", D1, &[d::SNAN], Some((d::SNAN_Q, INV))),
        ("cl_floor", D1, &[d::SNAN], Some((d::SNAN_Q, INV))),
        ("cl_floor", D1, &[0xc004_0000_0000_0000], Some((0xc008_0000_0000_0000, NONE))),
        ("cl_ceil", D1, &[0xbfe0_0000_0000_0000], Some((d::NZ, NONE))),
        ("cl_trunc", D1, &[d::SNAN], Some((d::SNAN_Q, INV))),
        ("cl_rint", D1, &[d::SNAN], Some((d::SNAN_Q, INV))),
        ("cl_rint", D1, &[0x4004_0000_0000_0000], Some((d::TWO, IE))),
        ("cl_nearbyint", D1, &[0x4004_0000_0000_0000], Some((d::TWO, NONE))),
        // C fmin is llvm.minnum: x86's minsd signals on a quiet NaN (glibc fmin would not).
        ("cl_fmin", D2, &[d::QNAN, d::ONE], Some((d::ONE, INV))),
        ("cl_fmin", D2, &[d::ONE, d::QNAN], Some((d::ONE, INV))),
        ("cl_fmax", D2, &[d::NZ, d::PZ], Some((d::NZ, NONE))),
        ("cl_exp", D1, &[0x4086_3000_0000_0000], Some((d::INF, OF_IE))),
        ("cl_exp", D1, &[0xc087_5000_0000_0000], Some((d::PZ, UF_IE))),
        ("cl_exp", D1, &[d::ONE], Some((0x4005_bf0a_8b14_5769, IE))),
        ("cl_log", D1, &[d::PZ], Some((d::NINF, DZ))),
        ("cl_log", D1, &[d::MONE], Some((d::DNAN, INV))),
        ("cl_pow", D2, &[d::PZ, d::MONE], Some((d::INF, DZ))),
        ("cl_pow", D2, &[d::TWO, d::HALF], Some((0x3ff6_a09e_667f_3bcd, IE))),
        ("cl_sqrt", D1, &[d::MONE], Some((d::DNAN, INV))),
        ("cl_sqrt", D1, &[d::NZ], Some((d::NZ, NONE))),
        ("cl_fmod", D2, &[d::ONE, d::PZ], Some((d::DNAN, INV))),
        ("cl_fmod", D2, &[d::SNAN, d::ONE], Some((d::SNAN_Q, INV))),
        ("cl_cbrt", D1, &[d::TWO], None),
        ("cl_cbrt", D1, &[0x4008_0000_0000_0001], None),
        ("cl_cbrt", D1, &[d::MAX_SUB], None),
        // glibc's cbrt is not correctly rounded: cbrt(-27) = -3 - 1ulp, inexact.
        ("cl_cbrt", D1, &[0xc03b_0000_0000_0000], Some((0xc008_0000_0000_0001, IE))),
        ("cl_fma", &[CTy::F64; 3], &[d::BELOW_ONE, d::MIN, d::PZ], Some((d::MIN, UF_IE))),
        ("cl_fma", &[CTy::F64; 3], &[0x3ff0_0000_0000_0001, 0x3fef_ffff_ffff_fffe, d::MONE], Some((0xb970_0000_0000_0000, NONE))),
        ("cl_sin", D1, &[0x44b5_2d02_c7e1_4af6], None), // 1e23
        // atan2(+0, -0) = π, and glibc raises nothing for it.
        ("cl_atan2", D2, &[d::PZ, d::NZ], Some((0x4009_21fb_5444_2d18, NONE))),
        ("cl_sqrtf", &[CTy::F32], &[f::MONE], Some((f::DNAN, INV))),
        ("cl_expf", &[CTy::F32], &[0x42b2_0000], Some((f::INF, OF_IE))),
        ("cl_roundf", &[CTy::F32], &[f::MONE], Some((f::MONE, NONE))),
    ];
    for &(name, params, args, want) in libm {
        let ret = params[0];
        cases.push(case(name, params, ret, args, IEEE, want));
    }
    cases.push(case(
        "cl_exp",
        D1,
        CTy::F64,
        &[0xc087_2000_0000_0000],
        FTZ,
        None,
    ));
    cases.push(case(
        "cl_floor",
        D1,
        CTy::F64,
        &[0x8000_0000_0000_0001],
        DAZ,
        None,
    ));

    crosscheck_c("casts.c", &src, &cases);
}

/// The native harness above is ours; this checks one conversion against the project's own
/// native runner (fpscout-native), which is the ground truth fpscout reports against.
#[test]
fn fptoui_i64_matches_fpscout_native_runner() {
    use fpscout_native::{
        FtzDaz, NativeArg, NativeBuild, NativeOutcome, NativeSignature, RunOptions,
    };
    let src = "#include <stdint.h>\nuint64_t to_u64(double x) { return (uint64_t)x; }\n";
    let dir = tempfile::tempdir().unwrap();
    let c_path = dir.path().join("u64.c");
    std::fs::write(&c_path, src).unwrap();
    let tc = fpscout_toolchain::Toolchain::discover().expect("clang-19");
    let flags_p = fpscout_toolchain::BuildFlags::default();
    let module = fpscout_llvm::load_build(
        &tc,
        &c_path,
        fpscout_toolchain::BuildKind::P,
        &flags_p,
        dir.path(),
    )
    .expect("lower");
    let fid = module.find_function("to_u64").unwrap();
    let sig = NativeSignature::from_function(module.function(fid), &[]).unwrap();
    let build = NativeBuild::compile(
        &tc,
        &c_path,
        fpscout_toolchain::BuildKind::P,
        &flags_p,
        &sig,
        &dir.path().join("work"),
    )
    .expect("native build");
    let inputs: Vec<u64> = CASTS
        .iter()
        .filter(|r| r.0 == CastOp::FPToUI && r.1 == SF64 && r.2 == I64)
        .map(|r| r.3)
        .chain([
            d::INF,
            d::NINF,
            d::SNAN,
            0x43f0_0000_0000_0000,
            0xc3e0_0000_0000_0000,
        ])
        .collect();
    let opts = RunOptions {
        ftz_daz: FtzDaz::Off,
        ..RunOptions::default()
    };
    let native = build
        .run(
            &inputs
                .iter()
                .map(|&x| vec![NativeArg::Float(x)])
                .collect::<Vec<_>>(),
            &opts,
        )
        .expect("run");
    for (x, out) in inputs.iter().zip(native) {
        let (bits, fl): (u64, ExceptionSet) = eval_scalar(&module, "to_u64", IEEE, &[*x]);
        assert_eq!(
            out,
            NativeOutcome::Returned {
                result: Some(bits),
                flags: fl,
                arrays: vec![]
            },
            "to_u64({x:#x})"
        );
    }
}

/// `llvm.is.fpclass` with every test mask (f64) and a spread of them (f32, and under
/// DAZ, where x86 tests four masks with `ucomisd` against 0 or itself), against the same
/// IR compiled natively: result and flags (invalid for a signalling NaN where the backend
/// compares), on a value of every class, NaN payloads of both signs included.
#[test]
fn is_fpclass_every_mask_matches_native() {
    let compare_masks = [0x003u32, 0x3fc, 0x063, 0x39c];
    let mut text = String::new();
    for (suffix, ty) in [("d", "double"), ("f", "float")] {
        for mask in 0..1024u32 {
            let intrinsic = if ty == "double" { "f64" } else { "f32" };
            text += &format!(
                "define i32 @cls_{suffix}_{mask}({ty} %x) {{\n  \
                 %c = call i1 @llvm.is.fpclass.{intrinsic}({ty} %x, i32 {mask})\n  \
                 %r = zext i1 %c to i32\n  ret i32 %r\n}}\n"
            );
        }
    }
    // Vectors: lane-wise, the result as lane0 + 2 * lane1.
    for mask in [3u32, 99, 264, 924] {
        text += &format!(
            "define i32 @vcls_{mask}(double %a, double %b) {{\n  \
             %v0 = insertelement <2 x double> poison, double %a, i32 0\n  \
             %v = insertelement <2 x double> %v0, double %b, i32 1\n  \
             %c = call <2 x i1> @llvm.is.fpclass.v2f64(<2 x double> %v, i32 {mask})\n  \
             %z = zext <2 x i1> %c to <2 x i32>\n  \
             %l0 = extractelement <2 x i32> %z, i32 0\n  \
             %l1 = extractelement <2 x i32> %z, i32 1\n  \
             %t = shl i32 %l1, 1\n  %r = or i32 %l0, %t\n  ret i32 %r\n}}\n"
        );
    }
    text += "declare i1 @llvm.is.fpclass.f64(double, i32 immarg)\n\
             declare i1 @llvm.is.fpclass.f32(float, i32 immarg)\n\
             declare <2 x i1> @llvm.is.fpclass.v2f64(<2 x double>, i32 immarg)\n";
    let m = load_ll(&text);
    let doubles = [
        d::PZ,
        d::NZ,
        d::MIN_SUB,
        d::MAX_SUB | d::NZ,
        d::MIN,
        d::ONE | d::NZ,
        d::MAX,
        d::INF,
        d::NINF,
        d::QNAN,
        d::QNAN2,
        d::SNAN,
        d::SNAN | d::NZ,
    ];
    let floats = [
        f::PZ,
        f::NZ,
        f::MIN_SUB,
        f::MAX_SUB | f::NZ,
        f::MIN,
        f::ONE | f::NZ,
        f::MAX,
        f::INF,
        f::NINF,
        f::QNAN,
        f::QNAN2,
        f::SNAN,
        f::SNAN | f::NZ,
    ];
    let mut cases = vec![];
    for mask in 0..1024u32 {
        let sampled = mask % 7 == 0 || compare_masks.contains(&mask);
        let under_daz = mask % 37 == 0 || compare_masks.contains(&mask);
        for (suffix, t, values, take) in [
            ("d", CTy::F64, &doubles, true),
            ("f", CTy::F32, &floats, sampled),
        ] {
            if !take {
                continue;
            }
            let name = format!("cls_{suffix}_{mask}");
            for &v in values.iter() {
                cases.push(case(&name, &[t], CTy::I32, &[v], IEEE, None));
                if under_daz {
                    cases.push(case(&name, &[t], CTy::I32, &[v], DAZ, None));
                }
            }
        }
    }
    for mask in [3u32, 99, 264, 924] {
        let name = format!("vcls_{mask}");
        for (&x, &y) in doubles.iter().zip(doubles.iter().rev()) {
            for mode in [IEEE, DAZ] {
                cases.push(case(
                    &name,
                    &[CTy::F64, CTy::F64],
                    CTy::I32,
                    &[x, y],
                    mode,
                    None,
                ));
            }
        }
    }
    crosscheck(&m, &[("cls.ll", &text)], &cases);
}

/// `fesetround` in the concrete domain: every operation that rounds, in each of the four
/// directions (and a refused one, which changes nothing), against the processor, on
/// random operands of every magnitude and on operands whose results round.
#[test]
fn directed_rounding_matches_native() {
    let src = "#include <fenv.h>\n#include <math.h>\n\
        #define ROUNDED(name, type, expr) type name(type a, type b, int mode) { \
          int refused = fesetround(mode); type r = (expr); \
          if (fegetround() != (refused ? FE_TONEAREST : mode)) r = -r; \
          fesetround(FE_TONEAREST); return r; }\n\
        ROUNDED(r_add, double, a + b)\n\
        ROUNDED(r_sub, double, a - b)\n\
        ROUNDED(r_mul, double, a * b)\n\
        ROUNDED(r_div, double, a / b)\n\
        ROUNDED(r_sqrt, double, sqrt(a) + 0.0 * b)\n\
        ROUNDED(r_rint, double, rint(a * b))\n\
        ROUNDED(r_narrow, double, (double)(float)(a * b))\n\
        ROUNDED(r_from_long, double, (double)(long)(a * 1e18) + (double)(float)(long)(b * 1e18))\n\
        ROUNDED(r_fma, double, fma(a, b, a))\n\
        ROUNDED(r_addf, float, a + b)\n\
        ROUNDED(r_divf, float, a / b)\n";
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut cases = vec![];
    let functions = [
        "r_add",
        "r_sub",
        "r_mul",
        "r_div",
        "r_sqrt",
        "r_rint",
        "r_narrow",
        "r_from_long",
        "r_fma",
    ];
    for mode in [0u64, 0x400, 0x800, 0xc00, 0x123] {
        for name in functions {
            for k in 0..24 {
                // Half of every magnitude, half near 1 (where a sum or product rounds).
                let (a, b) = if k % 2 == 0 {
                    (next(), next())
                } else {
                    let near = |r: u64| (1.0 + (r >> 11) as f64 * 2f64.powi(-53)).to_bits();
                    (near(next()), near(next()) ^ ((next() & 1) << 63))
                };
                let fpmode = if k % 6 == 5 { FTZ_DAZ } else { IEEE };
                cases.push(case(
                    name,
                    &[CTy::F64, CTy::F64, CTy::I32],
                    CTy::F64,
                    &[a, b, mode],
                    fpmode,
                    None,
                ));
            }
        }
        for name in ["r_addf", "r_divf"] {
            for _ in 0..24 {
                let (a, b) = (next() & 0xffff_ffff, next() & 0xffff_ffff);
                cases.push(case(
                    name,
                    &[CTy::F32, CTy::F32, CTy::I32],
                    CTy::F32,
                    &[a, b, mode],
                    IEEE,
                    None,
                ));
            }
        }
    }
    // One fixed row: 1 + 1.5 * 2^-24 in binary32 is 1 + 2^-23 to nearest, 1 downward.
    for (mode, want) in [(0u64, 0x3f80_0001u64), (0x400, 0x3f80_0000)] {
        cases.push(case(
            "r_addf",
            &[CTy::F32, CTy::F32, CTy::I32],
            CTy::F32,
            &[0x3f80_0000, 0x33c0_0000, mode],
            IEEE,
            Some((want, IE)),
        ));
    }
    crosscheck_c("rounding.c", src, &cases);
}

/// `nan(tag)` and `nanf(tag)` in the concrete domain: glibc's payloads (a number, hex, an
/// empty tag, text that is no number, a number too large) bit for bit.
#[test]
fn nan_of_a_tag_matches_native() {
    let src = "#include <math.h>\n\
        double tagged(double k) { return k == 0 ? nan(\"1\") : k == 1 ? nan(\"0x7ffff\") \
          : k == 2 ? nan(\"\") : k == 3 ? nan(\"junk\") : k == 4 ? nan(\"0777\") \
          : nan(\"123456789012345678901234567890\"); }\n\
        float tagged_f(float k) { return k == 0 ? nanf(\"1\") : k == 1 ? nanf(\"0x7ffff\") \
          : k == 2 ? nanf(\"\") : k == 3 ? nanf(\"junk\") : k == 4 ? nanf(\"0777\") \
          : nanf(\"123456789012345678901234567890\"); }\n";
    let mut cases = vec![];
    for k in 0..6u32 {
        let want_d = (k == 0).then_some((0x7ff8_0000_0000_0001, NONE));
        let want_f = (k == 0).then_some((0x7fc0_0001, NONE));
        cases.push(case(
            "tagged",
            &[CTy::F64],
            CTy::F64,
            &[f64::from(k).to_bits()],
            IEEE,
            want_d,
        ));
        cases.push(case(
            "tagged_f",
            &[CTy::F32],
            CTy::F32,
            &[u64::from((k as f32).to_bits())],
            IEEE,
            want_f,
        ));
    }
    crosscheck_c("tags.c", src, &cases);
}
