//! Projections of `r = a ⊙ b` for fadd, fsub, fmul, fdiv.

use super::{monotone_survivors, piece_within, split, Piece};
use crate::arith::{Arith, BinaryOp};
use crate::domain::{hull_range, FloatDomain};
use crate::format::{FloatValue, Format, Fp};
use crate::real::{rounding_preimage, RealInterval};
use rug::Rational;

/// Narrows `(a, b, r)` for `r = a ⊙ b` (one format). Direct: the hull of ⊙ at the corners of
/// each pair of monotone pieces. Indirect (FPSE): on finite nonzero pieces, `a` ranges over
/// the floats of `preimage(r) ⊖ b` computed exactly, where `preimage(r)` runs from
/// mid(rl⁻, rl) to mid(rh, rh⁺) with each midpoint included iff its tie rounds into `r`
/// (e.g. for ⊕: `a ∈ [mid(rl⁻, rl) − bh, mid(rh, rh⁺) − bl]`, inner floats); on the
/// special singletons (±0, ±inf) by concrete evaluation, which is the special-value table
/// (∞ − ∞, 0 × ∞, 0/0, ∞/∞ → NaN, x/±0 → ±∞, …).
pub fn project_binary(
    op: BinaryOp,
    arith: Arith,
    a: &FloatDomain,
    b: &FloatDomain,
    r: &FloatDomain,
) -> Option<(FloatDomain, FloatDomain, FloatDomain)> {
    let format = r.format();
    let a_pieces = split(format, arith, a);
    let b_pieces = split(format, arith, b);
    let eval = |x: Fp, y: Fp| arith.binary(op, format, FloatValue::Num(x), FloatValue::Num(y));

    let mut reachable = FloatDomain::empty(format).with_nan(a.may_be_nan() || b.may_be_nan());
    for pa in &a_pieces {
        for pb in &b_pieces {
            for x in [pa.lo, pa.hi] {
                for y in [pb.lo, pb.hi] {
                    reachable = reachable.hull(&FloatDomain::point(format, eval(x, y)));
                }
            }
        }
    }
    let r = r.intersect(&reachable);
    if r.is_empty() {
        return None;
    }

    let preimage = r
        .range()
        .map(|(lo, hi)| rounding_preimage(format, arith, lo, hi));
    let (mut a_keep, mut b_keep) = (None, None);
    // Any value combined with a NaN gives NaN.
    if r.may_be_nan() {
        if b.may_be_nan() {
            a_keep = a.range();
        }
        if a.may_be_nan() {
            b_keep = b.range();
        }
    }
    for pa in &a_pieces {
        for pb in &b_pieces {
            let survivors = match (pa.finite, pb.finite) {
                (true, true) => preimage
                    .as_ref()
                    .and_then(|pre| finite_survivors(op, format, pa, pb, pre)),
                (false, false) => r
                    .contains(eval(pa.lo, pb.lo))
                    .then_some((pa.origin, pb.origin)),
                (false, true) => monotone_survivors(pb.lo, pb.hi, |y| eval(pa.lo, y), &r)
                    .map(|ys| (pa.origin, ys)),
                (true, false) => monotone_survivors(pa.lo, pa.hi, |x| eval(x, pb.lo), &r)
                    .map(|xs| (xs, pb.origin)),
            };
            if let Some((xs, ys)) = survivors {
                a_keep = hull_range(a_keep, Some(xs));
                b_keep = hull_range(b_keep, Some(ys));
            }
        }
    }
    // A NaN operand makes a NaN result, so NaN operands survive iff r may be NaN.
    let a = a.intersect(
        &FloatDomain::empty(format)
            .with_range(a_keep)
            .with_nan(r.may_be_nan()),
    );
    let b = b.intersect(
        &FloatDomain::empty(format)
            .with_range(b_keep)
            .with_nan(r.may_be_nan()),
    );
    if a.is_empty() || b.is_empty() {
        return None;
    }
    Some((a, b, r))
}

fn value(format: Format, x: Fp) -> Rational {
    format.to_rational(x).unwrap_or_default()
}

/// The floats of two finite nonzero pieces that can combine into a real of `preimage`.
fn finite_survivors(
    op: BinaryOp,
    format: Format,
    pa: &Piece,
    pb: &Piece,
    preimage: &RealInterval,
) -> Option<((Fp, Fp), (Fp, Fp))> {
    let (al, ah) = (value(format, pa.lo), value(format, pa.hi));
    let (bl, bh) = (value(format, pb.lo), value(format, pb.hi));
    // Products and quotients of nonzero reals are nonzero, of the pieces' combined sign.
    let positive_result = format.is_negative(pa.lo) == format.is_negative(pb.lo);
    let (a_real, b_real) = match op {
        BinaryOp::FAdd => (
            preimage.plus_closed(&Rational::from(-&bh), &Rational::from(-&bl)),
            preimage.plus_closed(&Rational::from(-&ah), &Rational::from(-&al)),
        ),
        BinaryOp::FSub => (
            preimage.plus_closed(&bl, &bh),
            preimage.subtracted_from_closed(&al, &ah),
        ),
        BinaryOp::FMul => {
            let signed = preimage.strictly_signed(positive_result);
            (
                signed.divided_by_closed(&bl, &bh),
                signed.divided_by_closed(&al, &ah),
            )
        }
        BinaryOp::FDiv => {
            let signed = preimage.strictly_signed(positive_result);
            (
                signed.times_closed(&bl, &bh),
                signed.dividing_closed(&al, &ah),
            )
        }
    };
    Some((
        piece_within(format, &a_real, pa)?,
        piece_within(format, &b_real, pb)?,
    ))
}
