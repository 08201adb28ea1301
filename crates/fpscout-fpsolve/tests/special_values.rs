//! The special-value tables through the projections: ±0, ±∞ and NaN, both directions.

use fpscout_fpsolve::project::binary::project_binary;
use fpscout_fpsolve::{Arith, BinaryOp, FloatDomain, FloatValue, Format};

const F: Format = Format::F32;

fn v(x: f32) -> FloatDomain {
    FloatDomain::point(F, F.from_f64(f64::from(x)))
}

fn result(op: BinaryOp, a: f32, b: f32) -> Option<FloatValue> {
    let (_, _, r) = project_binary(op, Arith::IEEE, &v(a), &v(b), &FloatDomain::full(F))?;
    r.as_point()
}

#[test]
fn invalid_operations_give_nan() {
    let inf = f32::INFINITY;
    assert_eq!(result(BinaryOp::FSub, inf, inf), Some(FloatValue::NaN));
    assert_eq!(result(BinaryOp::FAdd, inf, -inf), Some(FloatValue::NaN));
    assert_eq!(result(BinaryOp::FMul, 0.0, inf), Some(FloatValue::NaN));
    assert_eq!(result(BinaryOp::FMul, -inf, -0.0), Some(FloatValue::NaN));
    assert_eq!(result(BinaryOp::FDiv, 0.0, -0.0), Some(FloatValue::NaN));
    assert_eq!(result(BinaryOp::FDiv, -inf, inf), Some(FloatValue::NaN));
}

#[test]
fn signed_zeros_and_infinities_follow_ieee() {
    let inf = f32::INFINITY;
    let value = |x: f32| Some(F.from_f64(f64::from(x)));
    assert_eq!(result(BinaryOp::FDiv, 1.0, -0.0), value(-inf));
    assert_eq!(result(BinaryOp::FDiv, -1.0, -0.0), value(inf));
    assert_eq!(result(BinaryOp::FDiv, -1.0, inf), value(-0.0));
    assert_eq!(result(BinaryOp::FAdd, -0.0, -0.0), value(-0.0));
    assert_eq!(result(BinaryOp::FAdd, -0.0, 0.0), value(0.0));
    assert_eq!(result(BinaryOp::FSub, 1.0, 1.0), value(0.0));
    assert_eq!(result(BinaryOp::FMul, -0.0, 5.0), value(-0.0));
    assert_eq!(result(BinaryOp::FMul, f32::MAX, 2.0), value(inf));
}

#[test]
fn a_nan_result_pins_the_operands_to_invalid_pairs() {
    // r = a - b must be NaN, a = +inf, neither operand NaN: b = +inf.
    let full = FloatDomain::ordered(F);
    let (_, b, _) = project_binary(
        BinaryOp::FSub,
        Arith::IEEE,
        &v(f32::INFINITY),
        &full,
        &FloatDomain::nan_only(F),
    )
    .unwrap();
    assert_eq!(b, v(f32::INFINITY));
    // r = a × b must be NaN with b finite nonzero: impossible.
    assert_eq!(
        project_binary(
            BinaryOp::FMul,
            Arith::IEEE,
            &full,
            &v(3.0),
            &FloatDomain::nan_only(F)
        ),
        None
    );
    // r = a / b must be NaN with a = 0: b is a zero (NaN operands excluded).
    let (_, b, _) = project_binary(
        BinaryOp::FDiv,
        Arith::IEEE,
        &v(0.0),
        &full,
        &FloatDomain::nan_only(F),
    )
    .unwrap();
    assert_eq!(b.range(), Some((F.neg_zero(), F.pos_zero())));
    // A result that cannot be NaN rules out NaN operands.
    let (a, _, _) = project_binary(
        BinaryOp::FAdd,
        Arith::IEEE,
        &FloatDomain::full(F),
        &v(1.0),
        &FloatDomain::ordered(F),
    )
    .unwrap();
    assert!(!a.may_be_nan());
}
