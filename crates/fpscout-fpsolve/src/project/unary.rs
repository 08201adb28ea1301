//! Projections of `r = sqrt(a)`, `r = -a`, `r = |a|` and `r = a` (bitwise copy).

use super::{split, unary_direct, unary_inverse, Piece};
use crate::arith::Arith;
use crate::domain::{hull_range, FloatDomain};
use crate::format::{FloatValue, Fp};
use crate::real::{floats_within, rounding_preimage, Bound, RealInterval};
use rug::Rational;

/// Narrows `(a, r)` for `r = sqrt(a)`: sqrt(-0) = -0, sqrt(x < 0) = NaN, sqrt(+inf) = +inf;
/// a positive finite `a` lies in preimage(r)², computed exactly.
pub fn project_sqrt(
    arith: Arith,
    a: &FloatDomain,
    r: &FloatDomain,
) -> Option<(FloatDomain, FloatDomain)> {
    let format = a.format();
    let pieces = split(format, arith, a);
    let f = |x: Fp| arith.fsqrt(format, FloatValue::Num(x));
    let r = r.intersect(&unary_direct(&pieces, a.may_be_nan(), format, &f));
    if r.is_empty() {
        return None;
    }
    let preimage = r
        .range()
        .map(|(lo, hi)| rounding_preimage(format, arith, lo, hi));
    let finite_inverse = |piece: &Piece, preimage: Option<&RealInterval>| -> Option<(Fp, Fp)> {
        if format.is_negative(piece.lo) {
            return r.may_be_nan().then_some((piece.lo, piece.hi));
        }
        let nonnegative = RealInterval {
            lo: Bound::closed(Rational::new()),
            hi: Bound::infinite(true),
        };
        let squares = preimage?.intersect(&nonnegative).squared_nonnegative();
        if squares.is_empty() {
            return None;
        }
        let (lo, hi) = floats_within(format, &squares)?;
        let (lo, hi) = (lo.max(piece.lo), hi.min(piece.hi));
        (lo <= hi).then_some((lo, hi))
    };
    let keep = unary_inverse(&pieces, &r, &f, &finite_inverse, preimage.as_ref());
    let a = a.intersect(
        &FloatDomain::empty(format)
            .with_range(keep)
            .with_nan(r.may_be_nan()),
    );
    (!a.is_empty()).then_some((a, r))
}

/// Narrows `(a, r)` for `r = -a` (a sign flip: exact both ways, NaN to NaN).
pub fn project_fneg(a: &FloatDomain, r: &FloatDomain) -> Option<(FloatDomain, FloatDomain)> {
    let format = a.format();
    let negated = |d: &FloatDomain| {
        d.with_range(
            d.range()
                .map(|(lo, hi)| (format.negate(hi), format.negate(lo))),
        )
    };
    let r = r.intersect(&negated(a));
    let a = a.intersect(&negated(&r));
    (!a.is_empty() && !r.is_empty()).then_some((a, r))
}

/// Narrows `(a, r)` for `r = |a|` (clears the sign bit, so |-0| = +0, NaN to NaN).
pub fn project_fabs(a: &FloatDomain, r: &FloatDomain) -> Option<(FloatDomain, FloatDomain)> {
    let format = a.format();
    let nonnegative = |d: &FloatDomain| d.clamp(format.pos_zero(), format.pos_inf());
    let negative = |d: &FloatDomain| d.clamp(format.neg_inf(), format.neg_zero());
    let flip =
        |range: Option<(Fp, Fp)>| range.map(|(lo, hi)| (format.negate(hi), format.negate(lo)));
    let image = hull_range(nonnegative(a).range(), flip(negative(a).range()));
    let r = r
        .intersect(&a.with_range(image))
        .clamp(format.pos_zero(), format.pos_inf());
    let from_positive = nonnegative(a).intersect(&r).range();
    let from_negative = negative(a)
        .intersect(&r.with_range(flip(r.range())))
        .range();
    let a = a.intersect(
        &a.with_range(hull_range(from_positive, from_negative))
            .with_nan(r.may_be_nan()),
    );
    (!a.is_empty() && !r.is_empty()).then_some((a, r))
}

/// Narrows `(a, r)` for `r = a` as bits (assignment): both become the intersection.
pub fn project_copy(a: &FloatDomain, r: &FloatDomain) -> Option<(FloatDomain, FloatDomain)> {
    let both = a.intersect(r);
    (!both.is_empty()).then(|| (both.clone(), both))
}
