//! libm functions that write through output pointers (`modf`, `frexp`, `remquo`, `sincos`,
//! `lgamma_r` and their float variants): lowered as `InstKind::MathOut`, run by glibc,
//! outputs stored into the walker's memory; exact bits and flags (values from glibc on
//! x86-64, as a C program calling them prints them).

mod common;

use common::{eval, eval_scalar, flags, load_ll};
use fpscout_ir::{ExceptionKind, InstKind, Module, OutMathFn};
use fpscout_walk::concrete::{ArgBits, FpMode};

const IEEE: FpMode = FpMode::IEEE;

const MODULE: &str = r#"
declare double @modf(double, ptr)
declare float @modff(float, ptr)
declare double @frexp(double, ptr)
declare float @frexpf(float, ptr)
declare double @remquo(double, double, ptr)
declare float @remquof(float, float, ptr)
declare void @sincos(double, ptr, ptr)
declare void @sincosf(float, ptr, ptr)
declare double @lgamma_r(double, ptr)
declare float @lgammaf_r(float, ptr)

define double @modf_frac(double %x) {
  %p = alloca double
  %r = call double @modf(double %x, ptr %p)
  ret double %r
}
define double @modf_ip(double %x) {
  %p = alloca double
  %r = call double @modf(double %x, ptr %p)
  %v = load double, ptr %p
  ret double %v
}
define float @modff_ip(float %x) {
  %p = alloca float
  %r = call float @modff(float %x, ptr %p)
  %v = load float, ptr %p
  ret float %v
}
define double @frexp_m(double %x) {
  %p = alloca i32
  %r = call double @frexp(double %x, ptr %p)
  ret double %r
}
define i32 @frexp_e(double %x) {
  %p = alloca i32
  %r = call double @frexp(double %x, ptr %p)
  %v = load i32, ptr %p
  ret i32 %v
}
define i32 @frexpf_e(float %x) {
  %p = alloca i32
  %r = call float @frexpf(float %x, ptr %p)
  %v = load i32, ptr %p
  ret i32 %v
}
define double @remquo_r(double %x, double %y) {
  %p = alloca i32
  %r = call double @remquo(double %x, double %y, ptr %p)
  ret double %r
}
define i32 @remquo_q(double %x, double %y) {
  %p = alloca i32
  store i32 77, ptr %p
  %r = call double @remquo(double %x, double %y, ptr %p)
  %v = load i32, ptr %p
  ret i32 %v
}
define i32 @remquof_q(float %x, float %y) {
  %p = alloca i32
  store i32 77, ptr %p
  %r = call float @remquof(float %x, float %y, ptr %p)
  %v = load i32, ptr %p
  ret i32 %v
}
define double @sincos_s(double %x) {
  %a = alloca [2 x double]
  %c = getelementptr inbounds i8, ptr %a, i64 8
  call void @sincos(double %x, ptr %a, ptr %c)
  %v = load double, ptr %a
  ret double %v
}
define double @sincos_c(double %x) {
  %a = alloca [2 x double]
  %c = getelementptr inbounds i8, ptr %a, i64 8
  call void @sincos(double %x, ptr %a, ptr %c)
  %v = load double, ptr %c
  ret double %v
}
define float @sincosf_c(float %x) {
  %s = alloca float
  %c = alloca float
  call void @sincosf(float %x, ptr %s, ptr %c)
  %v = load float, ptr %c
  ret float %v
}
define double @lgamma_v(double %x) {
  %p = alloca i32
  %r = call double @lgamma_r(double %x, ptr %p)
  ret double %r
}
define i32 @lgamma_sign(double %x) {
  %p = alloca i32
  %r = call double @lgamma_r(double %x, ptr %p)
  %v = load i32, ptr %p
  ret i32 %v
}
define i32 @lgammaf_sign(float %x) {
  %p = alloca i32
  %r = call float @lgammaf_r(float %x, ptr %p)
  %v = load i32, ptr %p
  ret i32 %v
}
define double @lgammaf_ext(float %x) {
  %p = alloca i32
  %r = call float @lgammaf_r(float %x, ptr %p)
  %e = fpext float %r to double
  ret double %e
}
"#;

const INF: u64 = 0x7ff0_0000_0000_0000;
const NINF: u64 = 0xfff0_0000_0000_0000;
const QNAN: u64 = 0x7ff8_0000_0000_0000;
const SNAN: u64 = 0x7ff4_0000_0000_0000;
const FINF: u64 = 0x7f80_0000;

fn d(x: f64) -> u64 {
    x.to_bits()
}
fn f(x: f32) -> u64 {
    u64::from(x.to_bits())
}
fn i(x: i32) -> u64 {
    u64::from(x as u32)
}

#[test]
fn output_pointer_calls_are_lowered_as_math_out() {
    let m = load_ll(MODULE);
    let funcs: Vec<(OutMathFn, usize, usize)> = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| &b.insts))
        .filter_map(|inst| match &inst.kind {
            InstKind::MathOut {
                func, args, outs, ..
            } => Some((*func, args.len(), outs.len())),
            _ => None,
        })
        .collect();
    assert_eq!(funcs.len(), 16, "{funcs:?}");
    assert!(funcs.contains(&(OutMathFn::Remquo, 2, 1)));
    assert!(funcs.contains(&(OutMathFn::Sincos, 1, 2)));
    assert!(funcs.contains(&(OutMathFn::LgammaR, 1, 1)));
    for f in &m.functions {
        assert!(f.unsupported.is_none(), "{}: {:?}", f.name, f.unsupported);
    }
}

/// Evaluates each (function, argument bits) and compares (result bits, flags).
fn check(m: &Module, rows: &[(&str, Vec<u64>, u64, &str)]) {
    let mut errs = vec![];
    for (name, args, want, fl) in rows {
        let got = eval_scalar(m, name, IEEE, args);
        if got != (*want, flags(fl)) {
            errs.push(format!(
                "{name}({args:x?}) = {:#x} [{}], want {want:#x} [{fl}]",
                got.0, got.1
            ));
        }
    }
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

#[test]
fn modf_bits_and_flags() {
    let m = load_ll(MODULE);
    check(
        &m,
        &[
            ("modf_frac", vec![INF], d(0.0), "none"),
            ("modf_ip", vec![INF], INF, "none"),
            ("modf_frac", vec![NINF], d(-0.0), "none"),
            ("modf_ip", vec![NINF], NINF, "none"),
            ("modf_frac", vec![QNAN], QNAN, "none"),
            ("modf_ip", vec![QNAN], QNAN, "none"),
            ("modf_frac", vec![SNAN], 0x7ffc_0000_0000_0000, "invalid"),
            ("modf_ip", vec![SNAN], 0x7ffc_0000_0000_0000, "invalid"),
            ("modf_frac", vec![d(-0.5)], d(-0.5), "none"),
            ("modf_ip", vec![d(-0.5)], d(-0.0), "none"),
            ("modf_frac", vec![d(3.75)], d(0.75), "none"),
            ("modf_ip", vec![d(3.75)], d(3.0), "none"),
            ("modff_ip", vec![f(-2.5)], f(-2.0), "none"),
            ("modff_ip", vec![FINF], FINF, "none"),
        ],
    );
}

#[test]
fn frexp_of_subnormals_zero_and_specials() {
    let m = load_ll(MODULE);
    let min_sub = 1u64;
    let max_sub = 0x000f_ffff_ffff_ffff;
    check(
        &m,
        &[
            ("frexp_m", vec![min_sub], d(0.5), "none"),
            ("frexp_e", vec![min_sub], i(-1073), "none"),
            ("frexp_m", vec![max_sub], 0x3fef_ffff_ffff_fffe, "none"),
            ("frexp_e", vec![max_sub], i(-1022), "none"),
            ("frexp_m", vec![d(0.0)], d(0.0), "none"),
            ("frexp_e", vec![d(0.0)], i(0), "none"),
            ("frexp_m", vec![d(-0.0)], d(-0.0), "none"),
            ("frexp_e", vec![d(-0.0)], i(0), "none"),
            ("frexp_m", vec![d(-3.0)], d(-0.75), "none"),
            ("frexp_e", vec![d(-3.0)], i(2), "none"),
            ("frexp_m", vec![INF], INF, "none"),
            ("frexp_e", vec![INF], i(0), "none"),
            ("frexpf_e", vec![1], i(-148), "none"),
            ("frexpf_e", vec![0], i(0), "none"),
        ],
    );
}

#[test]
fn remquo_by_zero_is_invalid_and_leaves_the_quotient() {
    let m = load_ll(MODULE);
    check(
        &m,
        &[
            (
                "remquo_r",
                vec![d(5.0), d(0.0)],
                0xfff8_0000_0000_0000,
                "invalid",
            ),
            // glibc returns before writing the quotient: the 77 stored before stays.
            ("remquo_q", vec![d(5.0), d(0.0)], i(77), "invalid"),
            ("remquo_q", vec![INF, d(1.0)], i(77), "invalid"),
            ("remquo_r", vec![d(5.0), d(3.0)], d(-1.0), "none"),
            ("remquo_q", vec![d(5.0), d(3.0)], i(2), "none"),
            ("remquo_q", vec![d(-29.0), d(3.0)], i(-2), "none"),
            ("remquof_q", vec![f(1.0), f(0.0)], i(77), "invalid"),
            ("remquof_q", vec![f(7.5), f(2.0)], i(4), "none"),
        ],
    );
    // The event is charged to the call.
    let e = eval(
        &m,
        "remquo_r",
        IEEE,
        &[ArgBits::Scalar(d(5.0)), ArgBits::Scalar(d(0.0))],
    );
    let ops: Vec<(ExceptionKind, String)> = e
        .events
        .iter()
        .map(|ev| (ev.kind, m.op(ev.site.op).opcode.clone()))
        .collect();
    assert_eq!(ops, vec![(ExceptionKind::Invalid, "remquo".to_string())]);
}

#[test]
fn sincos_of_infinity_is_invalid() {
    let m = load_ll(MODULE);
    check(
        &m,
        &[
            ("sincos_s", vec![INF], 0xfff8_0000_0000_0000, "invalid"),
            ("sincos_c", vec![INF], 0xfff8_0000_0000_0000, "invalid"),
            ("sincos_s", vec![d(0.5)], 0x3fde_aee8_744b_05f0, "inexact"),
            ("sincos_c", vec![d(0.5)], 0x3fec_1528_065b_7d50, "inexact"),
            ("sincosf_c", vec![0xff80_0000], 0xffc0_0000, "invalid"),
            ("sincosf_c", vec![f(1.0)], 0x3f0a_5140, "inexact"),
        ],
    );
}

#[test]
fn lgamma_r_sign_of_negative_non_integers_and_poles() {
    let m = load_ll(MODULE);
    check(
        &m,
        &[
            ("lgamma_v", vec![d(-0.5)], 0x3ff4_3f89_a3f0_edd6, "inexact"),
            ("lgamma_sign", vec![d(-0.5)], i(-1), "inexact"),
            ("lgamma_sign", vec![d(-1.5)], i(1), "inexact"),
            ("lgamma_v", vec![d(-2.5)], 0xbfac_cbf9_f5ed_0f18, "inexact"),
            ("lgamma_sign", vec![d(-2.5)], i(-1), "inexact"),
            ("lgamma_v", vec![d(0.0)], INF, "divbyzero"),
            ("lgamma_sign", vec![d(0.0)], i(1), "divbyzero"),
            ("lgamma_sign", vec![d(-0.0)], i(-1), "divbyzero"),
            ("lgamma_v", vec![d(-1.0)], INF, "divbyzero"),
            ("lgamma_v", vec![d(1e306)], INF, "overflow,inexact"),
            ("lgamma_sign", vec![d(3.0)], i(1), "inexact"),
            ("lgammaf_sign", vec![f(-0.5)], i(-1), "inexact"),
            ("lgammaf_sign", vec![f(-2.5)], i(-1), "inexact"),
            (
                "lgammaf_ext",
                vec![f(-0.5)],
                d(f64::from(f32::from_bits(0x3fa1_fc4d))),
                "inexact",
            ),
        ],
    );
}
