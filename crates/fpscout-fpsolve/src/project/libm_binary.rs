//! Projections of `r = f(a, b)` for pow, atan2, hypot, fmod and remainder as glibc computes them: the results the arguments' domains may give; the arguments are never narrowed.

// Only the direct projection: each function's image of the two domains, from monotone
// boxes (pow on a positive base, hypot on magnitudes: extremes at the corners, enclosed
// as glibc may round them), ranges (atan2 within ±π, fmod within the smaller magnitude,
// remainder within half the divisor's)
// and glibc's own value where both arguments are one special value. An argument is never
// removed, so no solution is lost; a candidate's values are checked by calling glibc.

use super::split;
use crate::arith::Arith;
use crate::domain::FloatDomain;
use crate::format::{FloatValue, Format, Fp};
use crate::libm_binary::{call_glibc_binary, enclosure, LibmBinary};

/// Narrows `r` for `r = function(a, b)` as glibc computes it (binary32/binary64, IEEE
/// mode); `None` when no result the arguments may give lies in `r`.
pub fn project_libm_binary(
    function: LibmBinary,
    a: &FloatDomain,
    b: &FloatDomain,
    r: &FloatDomain,
) -> Option<(FloatDomain, FloatDomain, FloatDomain)> {
    let reachable = image(function, a, b)?;
    let r = r.intersect(&reachable);
    (!r.is_empty()).then(|| (a.clone(), b.clone(), r))
}

/// Every result `function` may give on `a × b` (a superset); `None` when either is empty.
fn image(function: LibmBinary, a: &FloatDomain, b: &FloatDomain) -> Option<FloatDomain> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let format = a.format();
    // Both arguments one value each: glibc itself.
    if let (Some(x), Some(y)) = (a.as_point(), b.as_point()) {
        return Some(FloatDomain::point(
            format,
            call_glibc_binary(function, format, x, y),
        ));
    }
    Some(match function {
        LibmBinary::Pow => pow_image(format, a, b),
        LibmBinary::Hypot => hypot_image(format, a, b),
        LibmBinary::Atan2 => {
            // |atan2| ≤ π, and the format's nearest float above π bounds glibc's results.
            let pi = format.from_f64(std::f64::consts::PI.next_up());
            let nan = a.may_be_nan() || b.may_be_nan();
            match pi {
                FloatValue::Num(pi) => FloatDomain::new(format, format.negate(pi), pi, nan),
                FloatValue::NaN => FloatDomain::full(format),
            }
        }
        LibmBinary::Fmod => fmod_image(format, a, b),
        LibmBinary::Remainder => remainder_image(format, a, b),
    })
}

/// The least and greatest magnitude of a domain's numbers (NaN aside), as keys of
/// nonnegative values; `None` when it holds only NaN.
fn magnitudes(format: Format, d: &FloatDomain) -> Option<(Fp, Fp)> {
    let (lo, hi) = d.range()?;
    let (abs_lo, abs_hi) = (abs(format, lo), abs(format, hi));
    let crosses_zero = lo <= format.neg_zero() && hi >= format.pos_zero();
    let least = if crosses_zero {
        format.pos_zero()
    } else {
        abs_lo.min(abs_hi)
    };
    Some((least, abs_lo.max(abs_hi)))
}

fn abs(format: Format, x: Fp) -> Fp {
    if x.0 < 0 {
        format.negate(x)
    } else {
        x
    }
}

/// hypot is increasing in both magnitudes: the corners' enclosures bound it; an
/// infinite argument gives +inf (even with a NaN), a NaN with a finite one NaN.
fn hypot_image(format: Format, a: &FloatDomain, b: &FloatDomain) -> FloatDomain {
    let (Some((a_lo, a_hi)), Some((b_lo, b_hi))) = (magnitudes(format, a), magnitudes(format, b))
    else {
        // One argument only NaN: NaN, or +inf if the other may be infinite.
        let inf = FloatDomain::point(format, FloatValue::Num(format.pos_inf()));
        let other_inf = [a, b].iter().any(|d| {
            d.contains(FloatValue::Num(format.pos_inf()))
                || d.contains(FloatValue::Num(format.neg_inf()))
        });
        let nan = FloatDomain::nan_only(format);
        return if other_inf { nan.hull(&inf) } else { nan };
    };
    let low = corner(LibmBinary::Hypot, format, a_lo, b_lo).map(|(lo, _)| lo);
    let high = corner(LibmBinary::Hypot, format, a_hi, b_hi).map(|(_, hi)| hi);
    let (lo, hi) = (
        low.unwrap_or(format.pos_zero()),
        high.unwrap_or(format.pos_inf()),
    );
    FloatDomain::new(
        format,
        lo.max(format.pos_zero()),
        hi.max(lo),
        a.may_be_nan() || b.may_be_nan(),
    )
}

/// The enclosure of `function` at one corner; infinite corners are glibc's own value.
fn corner(function: LibmBinary, format: Format, x: Fp, y: Fp) -> Option<(Fp, Fp)> {
    if format.is_finite(x) && format.is_finite(y) {
        return enclosure(function, format, x, y);
    }
    match call_glibc_binary(function, format, FloatValue::Num(x), FloatValue::Num(y)) {
        FloatValue::Num(v) => Some((v, v)),
        FloatValue::NaN => None,
    }
}

/// pow on the positive finite base pieces and finite exponent pieces is monotone in each
/// argument once the base is cut at 1 and the exponent at 0: the corners' enclosures
/// bound each box. Any other part (a base that may be ≤ 0, infinite or NaN arguments)
/// may give any result.
fn pow_image(format: Format, a: &FloatDomain, b: &FloatDomain) -> FloatDomain {
    let everything = FloatDomain::full(format);
    let one = match format.from_f64(1.0) {
        FloatValue::Num(k) => k,
        FloatValue::NaN => return everything,
    };
    let a_pieces = split(format, Arith::IEEE, a);
    let b_pieces = split(format, Arith::IEEE, b);
    let mut image = FloatDomain::empty(format).with_nan(a.may_be_nan() || b.may_be_nan());
    // pow(1, NaN) is 1 and pow(NaN, 0) is 1: the NaN cases glibc does not propagate.
    if a.may_be_nan() || b.may_be_nan() {
        image = image.hull(&FloatDomain::point(format, FloatValue::Num(one)));
    }
    for pa in &a_pieces {
        for pb in &b_pieces {
            let positive_finite_base = pa.finite && pa.lo.0 > 0;
            if !positive_finite_base || !pb.finite {
                if !pa.finite && !pb.finite {
                    let v = call_glibc_binary(
                        LibmBinary::Pow,
                        format,
                        FloatValue::Num(pa.lo),
                        FloatValue::Num(pb.lo),
                    );
                    image = image.hull(&FloatDomain::point(format, v));
                    continue;
                }
                return everything;
            }
            // Cut the base at 1 and the exponent at 0 (finite pieces have one sign).
            let bases = [(pa.lo, pa.hi.min(Fp(one.0 - 1))), (pa.lo.max(one), pa.hi)];
            for (lo, hi) in bases.into_iter().filter(|(lo, hi)| lo <= hi) {
                let mut bottom: Option<Fp> = None;
                let mut top: Option<Fp> = None;
                for x in [lo, hi] {
                    for y in [pb.lo, pb.hi] {
                        let Some((l, h)) = enclosure(LibmBinary::Pow, format, x, y) else {
                            return everything;
                        };
                        bottom = Some(bottom.map_or(l, |m| m.min(l)));
                        top = Some(top.map_or(h, |m| m.max(h)));
                    }
                }
                if let (Some(l), Some(h)) = (bottom, top) {
                    image = image.hull(&FloatDomain::new(
                        format,
                        l.max(format.pos_zero()),
                        h,
                        false,
                    ));
                }
            }
        }
    }
    image
}

/// fmod is exact: |fmod(x, y)| < |y| and ≤ |x|, with the sign of x; NaN when x is
/// infinite or y is zero or either is NaN.
/// Whether fmod or remainder may be NaN on `a × b`: a NaN argument, an infinite
/// dividend or a zero divisor.
fn remainder_may_be_nan(format: Format, a: &FloatDomain, b: &FloatDomain) -> bool {
    a.may_be_nan()
        || b.may_be_nan()
        || a.contains(FloatValue::Num(format.pos_inf()))
        || a.contains(FloatValue::Num(format.neg_inf()))
        || b.contains(FloatValue::Num(format.pos_zero()))
        || b.contains(FloatValue::Num(format.neg_zero()))
}

/// remainder(x, y): at most |x| (remainder(x, ±inf) is x) and at most |y|/2 (exact in
/// both formats for a finite |y|), of either sign whatever x's.
fn remainder_image(format: Format, a: &FloatDomain, b: &FloatDomain) -> FloatDomain {
    let (Some((_, a_hi)), Some((_, b_hi))) = (magnitudes(format, a), magnitudes(format, b)) else {
        return FloatDomain::nan_only(format);
    };
    let nan = remainder_may_be_nan(format, a, b);
    let finite_top = |k: Fp| if format.is_finite(k) { k } else { Fp(k.0 - 1) };
    // The result is a float: rounding |y|/2 (inexact only below the smallest normal)
    // to a neighbour keeps every float at most |y|/2 below the bound.
    let half_divisor = match format.from_f64(format.to_f64(b_hi) / 2.0) {
        FloatValue::Num(k) if format.is_finite(b_hi) => k,
        _ => format.max_finite(),
    };
    let bound = finite_top(a_hi).min(half_divisor);
    FloatDomain::new(format, format.negate(bound), bound, nan)
}

fn fmod_image(format: Format, a: &FloatDomain, b: &FloatDomain) -> FloatDomain {
    let (Some((_, a_hi)), Some((_, b_hi))) = (magnitudes(format, a), magnitudes(format, b)) else {
        return FloatDomain::nan_only(format);
    };
    let nan = remainder_may_be_nan(format, a, b);
    // The finite magnitude bound: x's own (fmod(x, ±inf) is x) or below |y|.
    let finite_top = |k: Fp| if format.is_finite(k) { k } else { Fp(k.0 - 1) };
    let bound = finite_top(a_hi).min(if format.is_finite(b_hi) {
        b_hi
    } else {
        format.max_finite()
    });
    let (lo, hi) = a.range().unwrap_or((format.pos_zero(), format.pos_zero()));
    let negative = lo.0 < 0;
    let positive = hi.0 >= 0;
    let bottom = if negative {
        format.negate(bound)
    } else {
        format.pos_zero()
    };
    let top = if positive { bound } else { format.neg_zero() };
    FloatDomain::new(format, bottom, top.max(bottom), nan)
}
