//! Projection functions (FPSE): each narrows the domains of one constraint's variables without losing any solution.

// Shared machinery: a domain is cut into *pieces* on which every operation is monotone in
// each argument — `-inf`, negative finite, `-0`, `+0`, positive finite, `+inf` — so a direct
// projection is the hull of the operation at the pieces' corners (evaluated by the exact
// arithmetic, FTZ/DAZ included), and an indirect one is computed piece by piece: on special
// singletons by concrete evaluation, on finite pieces by the exact real relaxation
// (`crate::real`) of the rounding preimage. Every projection returns `None` when the
// constraint has no solution left in the domains.

pub mod binary;
pub mod compare;
pub mod convert;
pub mod libm;
pub mod libm_binary;
pub mod minmax;
pub mod unary;

use crate::arith::Arith;
use crate::domain::FloatDomain;
use crate::format::{FloatValue, Format, Fp};
use crate::real::RealInterval;

/// A sub-range of a domain on which operations are monotone. `origin` is the part of the
/// original domain the piece stands for: a zero piece under DAZ also stands for the
/// subnormals of its sign, which every operation reads as that zero.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Piece {
    pub lo: Fp,
    pub hi: Fp,
    /// Finite and nonzero (one sign); otherwise a singleton ±0 or ±inf.
    pub finite: bool,
    pub origin: (Fp, Fp),
}

fn overlap(range: (Fp, Fp), lo: Fp, hi: Fp) -> Option<(Fp, Fp)> {
    let (lo, hi) = (range.0.max(lo), range.1.min(hi));
    (lo <= hi).then_some((lo, hi))
}

/// The floats of `piece` whose values lie in `real`.
pub(crate) fn piece_within(format: Format, real: &RealInterval, piece: &Piece) -> Option<(Fp, Fp)> {
    if real.is_empty() {
        return None;
    }
    overlap(
        crate::real::floats_within(format, real)?,
        piece.lo,
        piece.hi,
    )
}

/// Cuts the non-NaN part of a domain into monotone pieces, as the arithmetic reads them.
pub(crate) fn split(format: Format, arith: Arith, domain: &FloatDomain) -> Vec<Piece> {
    let Some(range) = domain.range() else {
        return Vec::new();
    };
    let mut pieces = Vec::with_capacity(6);
    let min_normal = format.min_normal();
    let negative_min_normal = format.negate(min_normal);
    // Keys of the smallest-magnitude finite values that stay nonzero as operands.
    let (negative_finite_top, positive_finite_bottom) = if arith.denormals_are_zero {
        (negative_min_normal, min_normal)
    } else {
        (Fp(-2), Fp(1))
    };
    let singleton = |x: Fp, origin: Option<(Fp, Fp)>| {
        origin.map(|origin| Piece {
            lo: x,
            hi: x,
            finite: false,
            origin,
        })
    };
    let finite = |lo: Fp, hi: Fp| {
        overlap(range, lo, hi).map(|(lo, hi)| Piece {
            lo,
            hi,
            finite: true,
            origin: (lo, hi),
        })
    };
    let zero_origin = |zero: Fp, subnormals: (Fp, Fp)| {
        let own = overlap(range, zero, zero);
        let read_as_zero = if arith.denormals_are_zero {
            overlap(range, subnormals.0, subnormals.1)
        } else {
            None
        };
        crate::domain::hull_range(own, read_as_zero)
    };
    pieces.extend(singleton(
        format.neg_inf(),
        overlap(range, format.neg_inf(), format.neg_inf()),
    ));
    pieces.extend(finite(Fp(format.neg_inf().0 + 1), negative_finite_top));
    pieces.extend(singleton(
        format.neg_zero(),
        zero_origin(format.neg_zero(), (Fp(negative_min_normal.0 + 1), Fp(-2))),
    ));
    pieces.extend(singleton(
        format.pos_zero(),
        zero_origin(format.pos_zero(), (Fp(1), Fp(min_normal.0 - 1))),
    ));
    pieces.extend(finite(positive_finite_bottom, format.max_finite()));
    pieces.extend(singleton(
        format.pos_inf(),
        overlap(range, format.pos_inf(), format.pos_inf()),
    ));
    pieces
}

/// `{x ∈ [lo, hi] : f(x) ∈ target}` for an `f` monotone (either way) on `[lo, hi]`, by
/// binary search on the ordered line. NaN images (which monotone pieces never produce)
/// keep the whole range.
pub(crate) fn monotone_survivors(
    lo: Fp,
    hi: Fp,
    f: impl Fn(Fp) -> FloatValue,
    target: &FloatDomain,
) -> Option<(Fp, Fp)> {
    let (FloatValue::Num(at_lo), FloatValue::Num(at_hi)) = (f(lo), f(hi)) else {
        return Some((lo, hi));
    };
    let (target_lo, target_hi) = target.range()?;
    let image = |x: Fp| match f(x) {
        FloatValue::Num(y) => y,
        FloatValue::NaN => target_lo,
    };
    let increasing = at_lo <= at_hi;
    // First key in [lo, hi] where `pred` holds, for a `pred` false-then-true along the keys.
    let first_true = |pred: &dyn Fn(Fp) -> bool| -> Option<Fp> {
        if !pred(hi) {
            return None;
        }
        let (mut low, mut high) = (lo.0, hi.0);
        while low < high {
            let middle = crate::format::middle_key(low, high);
            if pred(Fp(middle)) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        Some(Fp(low))
    };
    let (start, end) = if increasing {
        let start = first_true(&|x| image(x) >= target_lo)?;
        let past = first_true(&|x| image(x) > target_hi);
        (
            start,
            past.map_or(Some(hi), |p| (p > lo).then(|| Fp(p.0 - 1)))?,
        )
    } else {
        let start = first_true(&|x| image(x) <= target_hi)?;
        let past = first_true(&|x| image(x) < target_lo);
        (
            start,
            past.map_or(Some(hi), |p| (p > lo).then(|| Fp(p.0 - 1)))?,
        )
    };
    (start <= end).then_some((start, end))
}

/// Narrows `(a, r)` for `r = f(a)` with an `f` monotone on each piece (sqrt, fpext,
/// fptrunc). Direct: the hull of the pieces' end images (NaN when `a` may be NaN).
/// Indirect: singletons checked concretely, finite pieces narrowed by
/// `finite_inverse(piece, preimage of r, narrowed r)`; NaN operands survive iff `r` may be NaN.
pub(crate) fn project_piecewise_unary(
    arith: Arith,
    a: &FloatDomain,
    r: &FloatDomain,
    f: impl Fn(Fp) -> FloatValue,
    finite_inverse: impl Fn(&Piece, Option<&RealInterval>, &FloatDomain) -> Option<(Fp, Fp)>,
) -> Option<(FloatDomain, FloatDomain)> {
    let (from, to) = (a.format(), r.format());
    let pieces = split(from, arith, a);
    let mut reachable = FloatDomain::empty(to).with_nan(a.may_be_nan());
    for piece in &pieces {
        for x in [piece.lo, piece.hi] {
            reachable = reachable.hull(&FloatDomain::point(to, f(x)));
        }
    }
    let r = r.intersect(&reachable);
    if r.is_empty() {
        return None;
    }
    let preimage = r
        .range()
        .map(|(lo, hi)| crate::real::rounding_preimage(to, arith, lo, hi));
    let mut keep = None;
    for piece in &pieces {
        let survivors = if piece.finite {
            finite_inverse(piece, preimage.as_ref(), &r)
        } else {
            r.contains(f(piece.lo)).then_some(piece.origin)
        };
        keep = crate::domain::hull_range(keep, survivors);
    }
    let a = a.intersect(
        &FloatDomain::empty(from)
            .with_range(keep)
            .with_nan(r.may_be_nan()),
    );
    (!a.is_empty()).then_some((a, r))
}
