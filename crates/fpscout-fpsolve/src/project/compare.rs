//! Projections of `fcmp` constraints (FPSE: `a < b ⇒ ah := min(ah, bh⁻)`), any predicate, held or negated.

use crate::arith::Arith;
use crate::compare::FcmpPredicate;
use crate::domain::FloatDomain;
use crate::format::{Format, Fp};
use std::cmp::Ordering;

/// Narrows `(a, b)` so that `fcmp pred a, b` holds (negate the predicate for "does not
/// hold"). Comparisons are on values: -0 = +0. An unordered predicate is the union of
/// "a is NaN", "b is NaN" and its ordered relation; the union is taken as a hull. Under DAZ
/// subnormal operands compare as zeros, so the bounds are then widened over subnormals.
pub fn project_compare(
    predicate: FcmpPredicate,
    arith: Arith,
    a: &FloatDomain,
    b: &FloatDomain,
) -> Option<(FloatDomain, FloatDomain)> {
    let format = a.format();
    let mut result: Option<(FloatDomain, FloatDomain)> = None;
    let mut join = |pair: Option<(FloatDomain, FloatDomain)>| {
        if let Some((x, y)) = pair {
            if x.is_empty() || y.is_empty() {
                return;
            }
            result = Some(match result.take() {
                None => (x, y),
                Some((rx, ry)) => (rx.hull(&x), ry.hull(&y)),
            });
        }
    };
    if predicate.is_unordered_true() {
        if a.may_be_nan() {
            join(Some((FloatDomain::nan_only(format), b.clone())));
        }
        if b.may_be_nan() {
            join(Some((a.clone(), FloatDomain::nan_only(format))));
        }
    }
    if predicate != FcmpPredicate::Uno {
        join(ordered_relation(
            predicate,
            arith,
            &a.without_nan(),
            &b.without_nan(),
        ));
    }
    result
}

/// The ordered part: both operands non-NaN and their values in one of the predicate's orders.
fn ordered_relation(
    predicate: FcmpPredicate,
    arith: Arith,
    a: &FloatDomain,
    b: &FloatDomain,
) -> Option<(FloatDomain, FloatDomain)> {
    let format = a.format();
    let (al, ah) = a.range()?;
    let (bl, bh) = b.range()?;
    let less = predicate.accepts(Ordering::Less);
    let equal = predicate.accepts(Ordering::Equal);
    let greater = predicate.accepts(Ordering::Greater);
    // Bounds are computed on values as the comparison reads them, then widened back.
    let read = |x: Fp| arith.read(format, x);
    let (al_v, ah_v, bl_v, bh_v) = (read(al), read(ah), read(bl), read(bh));
    let (mut a_lo, mut a_hi, mut b_lo, mut b_hi) = (al, ah, bl, bh);
    match (less, equal, greater) {
        (true, true, true) => {}
        (false, false, false) => return None,
        (true, false, true) => {
            // a ≠ b prunes only an end equal to a single-valued other side.
            if let Some(v) = single_value(format, bl_v, bh_v) {
                (a_lo, a_hi) = exclude_value(format, arith, a_lo, a_hi, v)?;
            }
            if let Some(v) = single_value(format, al_v, ah_v) {
                (b_lo, b_hi) = exclude_value(format, arith, b_lo, b_hi, v)?;
            }
        }
        _ => {
            // Upper bound of a from b's largest value, lower bound of b from a's smallest, …
            if !greater {
                a_hi = a_hi.min(widen_up(
                    format,
                    arith,
                    if equal {
                        at_most(format, bh_v)
                    } else {
                        below(format, bh_v)?
                    },
                ));
                b_lo = b_lo.max(widen_down(
                    format,
                    arith,
                    if equal {
                        at_least(format, al_v)
                    } else {
                        above(format, al_v)?
                    },
                ));
            }
            if !less {
                a_lo = a_lo.max(widen_down(
                    format,
                    arith,
                    if equal {
                        at_least(format, bl_v)
                    } else {
                        above(format, bl_v)?
                    },
                ));
                b_hi = b_hi.min(widen_up(
                    format,
                    arith,
                    if equal {
                        at_most(format, ah_v)
                    } else {
                        below(format, ah_v)?
                    },
                ));
            }
        }
    }
    let a = a.clamp(a_lo, a_hi);
    let b = b.clamp(b_lo, b_hi);
    (!a.is_empty() && !b.is_empty()).then_some((a, b))
}

/// The value of `[lo, hi]` when it has one (a point, or the two zeros).
fn single_value(format: Format, lo: Fp, hi: Fp) -> Option<Fp> {
    (format.value_cmp(lo, hi) == Ordering::Equal).then_some(lo)
}

/// `[lo, hi]` without the floats whose read value equals `v`, when they sit at an end.
fn exclude_value(format: Format, arith: Arith, lo: Fp, hi: Fp, v: Fp) -> Option<(Fp, Fp)> {
    let equal = |x: Fp| format.value_cmp(arith.read(format, x), v) == Ordering::Equal;
    let (mut lo, mut hi) = (lo, hi);
    // At most the two zeros and, under DAZ, the subnormals share a value: walk past them.
    let mut steps = 0;
    while lo <= hi && equal(lo) && steps < 3 {
        lo = format.next_up(lo)?;
        steps += 1;
    }
    steps = 0;
    while lo <= hi && equal(hi) && steps < 3 {
        hi = format.next_down(hi)?;
        steps += 1;
    }
    (lo <= hi).then_some((lo, hi))
}

/// Largest float with value < v.
fn below(format: Format, v: Fp) -> Option<Fp> {
    if format.is_zero(v) {
        format.next_down(format.neg_zero())
    } else {
        format.next_down(v)
    }
}

/// Smallest float with value > v.
fn above(format: Format, v: Fp) -> Option<Fp> {
    if format.is_zero(v) {
        format.next_up(format.pos_zero())
    } else {
        format.next_up(v)
    }
}

/// Largest float with value ≤ v.
fn at_most(format: Format, v: Fp) -> Fp {
    if format.is_zero(v) {
        format.pos_zero()
    } else {
        v
    }
}

/// Smallest float with value ≥ v.
fn at_least(format: Format, v: Fp) -> Fp {
    if format.is_zero(v) {
        format.neg_zero()
    } else {
        v
    }
}

/// An upper bound valid for the operands as stored: under DAZ, `≤ 0` also admits the
/// positive subnormals (they read as +0). Bounds from other read values need no widening:
/// a read value is never subnormal.
fn widen_up(format: Format, arith: Arith, bound: Fp) -> Fp {
    if arith.denormals_are_zero && format.is_zero(bound) {
        Fp(format.min_normal().0 - 1).max(bound)
    } else {
        bound
    }
}

/// A lower bound valid for the operands as stored (see [`widen_up`]).
fn widen_down(format: Format, arith: Arith, bound: Fp) -> Fp {
    if arith.denormals_are_zero && format.is_zero(bound) {
        Fp(format.negate(format.min_normal()).0 + 1).min(bound)
    } else {
        bound
    }
}
