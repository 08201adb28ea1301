//! The MPFR shadow domain on straight-line code: float bits equal the concrete domain's, shadow values equal exact rationals (to the shadow's precision), add/sub exponents, divergent comparisons and operations computed exactly.

mod common;

use common::{eval, load_ll};
use fpscout_ir::{FloatTy, Module};
use fpscout_walk::concrete::{ArgBits, FpMode};
use fpscout_walk::shadow::{ShadowEnd, ShadowEvaluation, ShadowRunner, DEFAULT_PRECISION};
use fpscout_walk::WalkConfig;
use rug::{Float, Rational};

const MODULE: &str = r#"
define double @absorb(double %x, double %y, double %z) {
  %s = fadd double %x, %y
  %r = fsub double %s, %z
  ret double %r
}
define double @mixed(double %a, double %b, double %c) {
  %p = fmul double %a, %b
  %q = fdiv double %p, %c
  %t = fadd double %q, %a
  %e = fpext float 0x3FB99999A0000000 to double
  %u = fsub double %t, %e
  ret double %u
}
define float @narrow(double %a, double %b) {
  %s = fadd double %a, %b
  %t = fptrunc double %s to float
  ret float %t
}
define double @branchy(double %x) {
  %s = fadd double %x, 1.0e16
  %d = fsub double %s, 1.0e16
  %c = fcmp ogt double %d, 0.0
  br i1 %c, label %pos, label %other
pos:
  ret double 1.0
other:
  ret double -1.0
}
define void @scale(ptr %v, double %k) {
  %p1 = getelementptr double, ptr %v, i64 1
  %a = load double, ptr %v
  %b = load double, ptr %p1
  %sa = fmul double %a, %k
  %sb = fadd double %b, %sa
  store double %sa, ptr %v
  store double %sb, ptr %p1
  ret void
}
"#;

fn f64_bits(xs: &[f64]) -> Vec<ArgBits> {
    xs.iter().map(|x| ArgBits::Scalar(x.to_bits())).collect()
}

fn shadow_eval(m: &Module, name: &str, args: &[ArgBits], precision: u32) -> ShadowEvaluation {
    let fid = m.find_function(name).expect("function");
    let mut r =
        ShadowRunner::new(m, fid, FpMode::IEEE, precision, WalkConfig::default()).expect("runner");
    r.eval(args).expect("shadow evaluation")
}

fn returned(e: &ShadowEvaluation) -> (u64, Float) {
    match &e.end {
        ShadowEnd::Returned(Some(s)) => (s.bits, s.high.clone().expect("float result")),
        other => panic!("did not return a float: {other:?}"),
    }
}

fn q(x: f64) -> Rational {
    Rational::from_f64(x).expect("finite")
}

/// |high − exact| ≤ |exact|·2^(1−precision): the shadow is the exact value rounded once
/// per operation at most, checked loosely (a few operations).
fn close(high: &Float, exact: &Rational, precision: u32) -> bool {
    let h = high.to_rational().expect("finite shadow");
    let diff = Rational::from(&h - exact).abs();
    let bound = exact.clone().abs() >> (precision - 3);
    diff <= bound
}

#[test]
fn absorbed_addend_is_kept_by_the_shadow_and_lost_by_the_float() {
    let m = load_ll(MODULE);
    let args = f64_bits(&[1e16, 1.0, 1e16]);
    let e = shadow_eval(&m, "absorb", &args, DEFAULT_PRECISION);
    let (bits, high) = returned(&e);
    // 1e16 + 1 rounds to 1e16 (ulp 2, tie to even): the float result is exactly 0.
    assert_eq!(bits, 0.0f64.to_bits());
    assert_eq!(high.to_rational().unwrap(), Rational::from(1));
    // Float bits and flags as the concrete domain computes them.
    let concrete = eval(&m, "absorb", FpMode::IEEE, &args);
    assert_eq!(concrete.result_bits(), Some(bits));
    // fadd: exponents 53 and 0 (precision loss 53); fsub: 53, 53 → 0 (complete).
    assert_eq!(e.add_sub.len(), 2);
    assert_eq!(e.add_sub[0].exp_a, Some(53));
    assert_eq!(e.add_sub[0].exp_b, Some(0));
    assert_eq!(e.add_sub[0].precision_loss(), 53);
    assert_eq!(e.add_sub[1].exp_result, Some(-1075));
    assert_eq!(e.add_sub[1].cancellation(), 53 + 1075);
}

#[test]
fn mixed_operations_match_exact_rationals() {
    let m = load_ll(MODULE);
    let (a, b, c) = (0.1f64, 3.3f64, 7.0f64);
    let e = shadow_eval(&m, "mixed", &f64_bits(&[a, b, c]), DEFAULT_PRECISION);
    let (bits, high) = returned(&e);
    let tenth_f32 = q(f64::from(0.1f32));
    let exact = q(a) * q(b) / q(c) + q(a) - tenth_f32;
    assert!(close(&high, &exact, DEFAULT_PRECISION), "{high} vs {exact}");
    let concrete = eval(&m, "mixed", FpMode::IEEE, &f64_bits(&[a, b, c]));
    assert_eq!(concrete.result_bits(), Some(bits));
    assert_ne!(
        high.to_rational().unwrap(),
        q(f64::from_bits(bits)),
        "the float result is rounded, its shadow is not"
    );
}

#[test]
fn precision_is_configurable() {
    let m = load_ll(MODULE);
    let args = f64_bits(&[1e16, 1.0, 1e16]);
    // At binary64's precision the shadow rounds as the float does.
    let e = shadow_eval(&m, "absorb", &args, 53);
    let (_, high) = returned(&e);
    assert_eq!(high.prec(), 53);
    assert_eq!(high.to_f64(), 0.0);
}

#[test]
fn fptrunc_keeps_the_exact_value() {
    let m = load_ll(MODULE);
    let e = shadow_eval(&m, "narrow", &f64_bits(&[1.0, 1e-20]), DEFAULT_PRECISION);
    let (bits, high) = returned(&e);
    assert_eq!(bits, u64::from(1.0f32.to_bits()));
    assert_eq!(high.to_rational().unwrap(), q(1.0) + q(1e-20));
    assert_eq!(
        fpscout_walk::shadow::round_to_bits(FloatTy::F32, &high),
        bits
    );
}

#[test]
fn a_comparison_the_shadow_decides_otherwise_is_a_divergence() {
    let m = load_ll(MODULE);
    let e = shadow_eval(&m, "branchy", &f64_bits(&[0.5]), DEFAULT_PRECISION);
    // The float path: 0.5 is absorbed, d = 0, so the branch goes to `other`.
    assert_eq!(returned(&e).0, (-1.0f64).to_bits());
    assert_eq!(e.divergences.len(), 1);
    assert!(!e.divergences[0].float_outcome);
    let none = shadow_eval(&m, "branchy", &f64_bits(&[4.0]), DEFAULT_PRECISION);
    assert!(none.divergences.is_empty());
}

#[test]
fn an_operation_computed_exactly_takes_its_shadow_value() {
    let m = load_ll(MODULE);
    let fid = m.find_function("absorb").unwrap();
    let mut r = ShadowRunner::new(
        &m,
        fid,
        FpMode::IEEE,
        DEFAULT_PRECISION,
        WalkConfig::default(),
    )
    .unwrap();
    let args = f64_bits(&[1e16, 1.0, 1e16]);
    let (plain, _) = returned(&r.eval(&args).unwrap());
    assert_eq!(f64::from_bits(plain), 0.0);
    let fsub = r.eval(&args).unwrap().add_sub[1].site.op;
    r.domain().exact_ops.insert(fsub);
    // The subtraction computed exactly is 1e16 + 1 − 1e16 = 1 (its operand's shadow).
    let (bits, high) = returned(&r.eval(&args).unwrap());
    assert_eq!(f64::from_bits(bits), 1.0);
    assert_eq!(high.to_f64(), 1.0);
}

#[test]
fn array_results_carry_shadows_through_memory() {
    let m = load_ll(MODULE);
    let args = vec![
        ArgBits::Array(vec![3.0f64.to_bits(), 1e17f64.to_bits()]),
        ArgBits::Scalar(0.1f64.to_bits()),
    ];
    let e = shadow_eval(&m, "scale", &args, DEFAULT_PRECISION);
    assert_eq!(e.end, ShadowEnd::Returned(None));
    let out = &e.arrays[0];
    let exact0 = q(3.0) * q(0.1);
    assert!(close(
        out[0].high.as_ref().unwrap(),
        &exact0,
        DEFAULT_PRECISION
    ));
    let exact1 = q(1e17) + exact0;
    assert!(close(
        out[1].high.as_ref().unwrap(),
        &exact1,
        DEFAULT_PRECISION
    ));
    let concrete = eval(&m, "scale", FpMode::IEEE, &args);
    let bits: Vec<u64> = out.iter().map(|s| s.bits).collect();
    assert_eq!(concrete.arrays[0], bits);
}
