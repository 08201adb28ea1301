//! LLVM IR sources shared by the end-to-end tests and the native cross-check.

use super::tables::*;
use super::{d, f};
use fpscout_ir::FCmpPred;

/// `fadd_d`, `fsub_d`, ..., `frem_f`, `fneg_d`, `fneg_f`.
pub fn arith_ll() -> String {
    let mut s = String::new();
    for (ty, t) in [("double", "d"), ("float", "f")] {
        for op in ["fadd", "fsub", "fmul", "fdiv", "frem"] {
            s += &format!(
                "define {ty} @{op}_{t}({ty} %a, {ty} %b) {{\n  %r = {op} {ty} %a, %b\n  ret {ty} %r\n}}\n"
            );
        }
        s +=
            &format!("define {ty} @fneg_{t}({ty} %a) {{\n  %r = fneg {ty} %a\n  ret {ty} %r\n}}\n");
    }
    s
}

pub const PREDS: [(&str, FCmpPred); 16] = [
    ("false", FCmpPred::False),
    ("oeq", FCmpPred::Oeq),
    ("ogt", FCmpPred::Ogt),
    ("oge", FCmpPred::Oge),
    ("olt", FCmpPred::Olt),
    ("ole", FCmpPred::Ole),
    ("one", FCmpPred::One),
    ("ord", FCmpPred::Ord),
    ("ueq", FCmpPred::Ueq),
    ("ugt", FCmpPred::Ugt),
    ("uge", FCmpPred::Uge),
    ("ult", FCmpPred::Ult),
    ("ule", FCmpPred::Ule),
    ("une", FCmpPred::Une),
    ("uno", FCmpPred::Uno),
    ("true", FCmpPred::True),
];

/// `q_<pred>` (quiet: zext result), `b_<pred>` (float, i1 result), `m_<pred>` (select
/// between doubles: mask) for all 16 predicates.
pub fn fcmp_ll() -> String {
    let mut s = String::new();
    for (p, _) in PREDS {
        // Result used as a value (setcc after ucomisd): quiet.
        s += &format!(
            "define i32 @q_{p}(double %a, double %b) {{\n  %c = fcmp {p} double %a, %b\n  %r = zext i1 %c to i32\n  ret i32 %r\n}}\n"
        );
        // Returned as i1 directly.
        s += &format!(
            "define i1 @b_{p}(float %a, float %b) {{\n  %c = fcmp {p} float %a, %b\n  ret i1 %c\n}}\n"
        );
        // Selecting between doubles in the same block: cmpsd mask.
        s += &format!(
            "define double @m_{p}(double %a, double %b) {{\n  %c = fcmp {p} double %a, %b\n  %r = select i1 %c, double 1.0, double 0.0\n  ret double %r\n}}\n"
        );
    }
    s
}

pub const INTRINSICS: &str = r#"
declare double @llvm.fabs.f64(double)
declare double @llvm.sqrt.f64(double)
declare float @llvm.sqrt.f32(float)
declare double @llvm.fma.f64(double, double, double)
declare double @llvm.fmuladd.f64(double, double, double)
declare double @llvm.minnum.f64(double, double)
declare double @llvm.maxnum.f64(double, double)
declare float @llvm.minnum.f32(float, float)
declare double @llvm.copysign.f64(double, double)
declare double @llvm.floor.f64(double)
declare double @llvm.ceil.f64(double)
declare double @llvm.trunc.f64(double)
declare double @llvm.round.f64(double)
declare double @llvm.rint.f64(double)
declare double @llvm.nearbyint.f64(double)
declare double @exp(double)
declare double @log(double)
declare double @pow(double, double)
declare double @sqrt(double)
declare double @fmod(double, double)
declare float @expf(float)
declare float @logf(float)

define double @t_fabs(double %a) {
  %r = call double @llvm.fabs.f64(double %a)
  ret double %r
}
define double @t_sqrt_i(double %a) {
  %r = call double @llvm.sqrt.f64(double %a)
  ret double %r
}
define float @t_sqrtf_i(float %a) {
  %r = call float @llvm.sqrt.f32(float %a)
  ret float %r
}
define double @t_fma(double %a, double %b, double %c) {
  %r = call double @llvm.fma.f64(double %a, double %b, double %c)
  ret double %r
}
define double @t_fmuladd(double %a, double %b, double %c) {
  %r = call double @llvm.fmuladd.f64(double %a, double %b, double %c)
  ret double %r
}
define double @t_minnum(double %a, double %b) {
  %r = call double @llvm.minnum.f64(double %a, double %b)
  ret double %r
}
define double @t_maxnum(double %a, double %b) {
  %r = call double @llvm.maxnum.f64(double %a, double %b)
  ret double %r
}
define float @t_minnumf(float %a, float %b) {
  %r = call float @llvm.minnum.f32(float %a, float %b)
  ret float %r
}
define double @t_copysign(double %a, double %b) {
  %r = call double @llvm.copysign.f64(double %a, double %b)
  ret double %r
}
define double @t_floor(double %a) {
  %r = call double @llvm.floor.f64(double %a)
  ret double %r
}
define double @t_ceil(double %a) {
  %r = call double @llvm.ceil.f64(double %a)
  ret double %r
}
define double @t_trunc(double %a) {
  %r = call double @llvm.trunc.f64(double %a)
  ret double %r
}
define double @t_round(double %a) {
  %r = call double @llvm.round.f64(double %a)
  ret double %r
}
define double @t_rint(double %a) {
  %r = call double @llvm.rint.f64(double %a)
  ret double %r
}
define double @t_nearbyint(double %a) {
  %r = call double @llvm.nearbyint.f64(double %a)
  ret double %r
}
define double @t_c_exp(double %a) {
  %r = call double @exp(double %a)
  ret double %r
}
define double @t_c_log(double %a) {
  %r = call double @log(double %a)
  ret double %r
}
define double @t_c_pow(double %a, double %b) {
  %r = call double @pow(double %a, double %b)
  ret double %r
}
define double @t_c_sqrt(double %a) {
  %r = call double @sqrt(double %a)
  ret double %r
}
define double @t_c_fmod(double %a, double %b) {
  %r = call double @fmod(double %a, double %b)
  ret double %r
}
define float @t_c_expf(float %a) {
  %r = call float @expf(float %a)
  ret float %r
}
define float @t_c_logf(float %a) {
  %r = call float @logf(float %a)
  ret float %r
}
"#;

/// (function, args, result, flags): shared with the native cross-check.
pub const INTRINSIC_ROWS: &[(&str, &[u64], u64, &str)] = &[
    ("t_fabs", &[d::NZ], d::PZ, NONE),
    ("t_fabs", &[0xfff4_0000_0000_0000], d::SNAN, NONE),
    ("t_sqrt_i", &[d::MONE], d::DNAN, INV),
    ("t_sqrt_i", &[d::NZ], d::NZ, NONE),
    ("t_sqrt_i", &[d::TWO], 0x3ff6_a09e_667f_3bcd, IE),
    ("t_sqrt_i", &[d::NINF], d::DNAN, INV),
    ("t_sqrtf_i", &[f::MONE], f::DNAN, INV),
    ("t_sqrtf_i", &[f::NZ], f::NZ, NONE),
    // One rounding: (1+2^-52)(1-2^-52) - 1 = -2^-104 ...
    (
        "t_fma",
        &[0x3ff0_0000_0000_0001, 0x3fef_ffff_ffff_fffe, d::MONE],
        0xb970_0000_0000_0000,
        NONE,
    ),
    (
        "t_fma",
        &[d::MAX, d::TWO, 0xffef_ffff_ffff_ffff],
        d::MAX,
        NONE,
    ),
    // ... while fmuladd is fmul then fadd on baseline x86-64: two roundings.
    (
        "t_fmuladd",
        &[0x3ff0_0000_0000_0001, 0x3fef_ffff_ffff_fffe, d::MONE],
        d::PZ,
        IE,
    ),
    (
        "t_fmuladd",
        &[d::MAX, d::TWO, 0xffef_ffff_ffff_ffff],
        d::INF,
        OF_IE,
    ),
    ("t_minnum", &[d::QNAN, d::ONE], d::ONE, INV),
    ("t_minnum", &[d::ONE, d::QNAN], d::ONE, INV),
    ("t_minnum", &[d::SNAN, d::ONE], d::ONE, INV),
    ("t_minnum", &[d::ONE, d::TWO], d::ONE, NONE),
    ("t_minnum", &[d::PZ, d::NZ], d::PZ, NONE),
    ("t_minnum", &[d::NZ, d::PZ], d::NZ, NONE),
    ("t_maxnum", &[d::QNAN, d::MONE], d::MONE, INV),
    ("t_maxnum", &[d::ONE, d::TWO], d::TWO, NONE),
    ("t_minnumf", &[f::ONE, f::QNAN], f::ONE, INV),
    ("t_copysign", &[d::ONE, d::NZ], d::MONE, NONE),
    (
        "t_copysign",
        &[d::SNAN, d::MONE],
        0xfff4_0000_0000_0000,
        NONE,
    ),
    (
        "t_floor",
        &[0xc004_0000_0000_0000],
        0xc008_0000_0000_0000,
        NONE,
    ),
    ("t_floor", &[d::SNAN], d::SNAN_Q, INV),
    ("t_ceil", &[0xbfe0_0000_0000_0000], d::NZ, NONE),
    (
        "t_trunc",
        &[0xc004_0000_0000_0000],
        0xc000_0000_0000_0000,
        NONE,
    ),
    ("t_round", &[0x4004_0000_0000_0000], d::THREE, NONE),
    ("t_round", &[d::MONE], d::MONE, NONE),
    ("t_rint", &[0x4004_0000_0000_0000], d::TWO, IE),
    (
        "t_rint",
        &[0x400c_0000_0000_0000],
        0x4010_0000_0000_0000,
        IE,
    ),
    ("t_nearbyint", &[0x4004_0000_0000_0000], d::TWO, NONE),
    (
        "t_nearbyint",
        &[0x400c_0000_0000_0000],
        0x4010_0000_0000_0000,
        NONE,
    ),
    ("t_c_exp", &[0x4086_3000_0000_0000], d::INF, OF_IE),
    ("t_c_exp", &[0xc087_5000_0000_0000], d::PZ, UF_IE),
    ("t_c_log", &[d::PZ], d::NINF, DZ),
    ("t_c_log", &[d::MONE], d::DNAN, INV),
    ("t_c_pow", &[d::PZ, d::MONE], d::INF, DZ),
    ("t_c_sqrt", &[d::MONE], d::DNAN, INV),
    ("t_c_sqrt", &[d::NZ], d::NZ, NONE),
    ("t_c_fmod", &[d::ONE, d::PZ], d::DNAN, INV),
    (
        "t_c_fmod",
        &[0x4016_0000_0000_0000, 0xc000_0000_0000_0000],
        0x3ff8_0000_0000_0000,
        NONE,
    ),
    ("t_c_expf", &[0x42b2_0000], f::INF, OF_IE),
    ("t_c_logf", &[f::PZ], f::NINF, DZ),
];
