//! Projections of `r = sqrt(a)`, `r = -a`, `r = |a|` and `r = a` (bitwise copy).

use super::{piece_within, project_piecewise_unary, Piece};
use crate::arith::Arith;
use crate::domain::{hull_range, FloatDomain};
use crate::format::{FloatValue, Fp};
use crate::real::{Bound, RealInterval};
use rug::Rational;

/// Narrows `(a, r)` for `r = sqrt(a)`: sqrt(-0) = -0, sqrt(x < 0) = NaN, sqrt(+inf) = +inf;
/// a positive finite `a` lies in preimage(r)², computed exactly.
pub fn project_sqrt(
    arith: Arith,
    a: &FloatDomain,
    r: &FloatDomain,
) -> Option<(FloatDomain, FloatDomain)> {
    let format = a.format();
    let f = |x: Fp| arith.fsqrt(format, FloatValue::Num(x));
    let finite_inverse = |piece: &Piece, preimage: Option<&RealInterval>, r: &FloatDomain| {
        if format.is_negative(piece.lo) {
            return r.may_be_nan().then_some((piece.lo, piece.hi));
        }
        let nonnegative = RealInterval {
            lo: Bound::closed(Rational::new()),
            hi: Bound::infinite(true),
        };
        let squares = preimage?.intersect(&nonnegative).squared_nonnegative();
        piece_within(format, &squares, piece)
    };
    project_piecewise_unary(arith, a, r, f, finite_inverse)
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
