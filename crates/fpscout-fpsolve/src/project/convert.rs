//! Projections of conversions: fpext/fptrunc between formats, sitofp/uitofp, fptosi/fptoui.

use super::{piece_within, project_piecewise_unary, Piece};
use crate::arith::Arith;
use crate::domain::{integer_type_range, FloatDomain, IntDomain};
use crate::format::{FloatValue, Fp};
use crate::real::{floats_within, rounding_preimage, Bound, Ext, RealInterval};
use rug::{Integer, Rational};

/// Narrows `(a, r)` for `r = fpext/fptrunc(a)` from `a`'s format to `r`'s: a finite nonzero
/// `a` lies in the rounding preimage of `r` (exactly `r`'s values when widening).
pub fn project_float_convert(
    arith: Arith,
    a: &FloatDomain,
    r: &FloatDomain,
) -> Option<(FloatDomain, FloatDomain)> {
    let (from, to) = (a.format(), r.format());
    let f = |x: Fp| arith.convert(from, to, FloatValue::Num(x));
    let finite_inverse = |piece: &Piece, preimage: Option<&RealInterval>, _: &FloatDomain| {
        piece_within(from, preimage?, piece)
    };
    project_piecewise_unary(arith, a, r, f, finite_inverse)
}

/// Narrows `(i, r)` for `r = sitofp/uitofp(i)`: rounding is monotone, and the integers
/// left are those inside the rounding preimage of `r`. The integer 0 gives +0.
pub fn project_int_to_float(
    arith: Arith,
    i: &IntDomain,
    r: &FloatDomain,
) -> Option<(IntDomain, FloatDomain)> {
    let format = r.format();
    let (lo, hi) = i.range()?;
    let image = |v: i128| arith.int_to_float(format, v);
    let reachable =
        FloatDomain::point(format, image(lo)).hull(&FloatDomain::point(format, image(hi)));
    let r = r.intersect(&reachable);
    let (rl, rh) = r.range()?;
    let preimage = rounding_preimage(format, arith, rl, rh);
    let lower = match &preimage.lo.at {
        Ext::Finite(value) => integer_at_or_above(value, preimage.lo.closed),
        Ext::NegInf => Some(lo),
        Ext::PosInf => None,
    }?;
    let upper = match &preimage.hi.at {
        Ext::Finite(value) => integer_at_or_below(value, preimage.hi.closed),
        Ext::PosInf => Some(hi),
        Ext::NegInf => None,
    }?;
    let i = i.intersect(&IntDomain::new(lower.max(lo), upper.min(hi)));
    (!i.is_empty()).then_some((i, r))
}

/// Smallest integer ≥ `value` (> when open), saturated to i128.
fn integer_at_or_above(value: &Rational, closed: bool) -> Option<i128> {
    let ceiling = Integer::from(value.ceil_ref());
    let ceiling = if !closed && *value == ceiling {
        ceiling + 1u32
    } else {
        ceiling
    };
    Some(ceiling.to_i128().unwrap_or(if ceiling.cmp0().is_lt() {
        i128::MIN
    } else {
        i128::MAX
    }))
}

/// Largest integer ≤ `value` (< when open), saturated to i128.
fn integer_at_or_below(value: &Rational, closed: bool) -> Option<i128> {
    let floor = Integer::from(value.floor_ref());
    let floor = if !closed && *value == floor {
        floor - 1u32
    } else {
        floor
    };
    Some(floor.to_i128().unwrap_or(if floor.cmp0().is_lt() {
        i128::MIN
    } else {
        i128::MAX
    }))
}

/// Narrows `(a, i)` for `i = fptosi/fptoui(a)` into an integer type of `bits` width:
/// truncation toward zero; NaN and out-of-range operands have no value (see
/// [`Arith::float_to_int`]), so they are removed.
pub fn project_float_to_int(
    arith: Arith,
    a: &FloatDomain,
    i: &IntDomain,
    bits: u32,
    signed: bool,
) -> Option<(FloatDomain, IntDomain)> {
    let format = a.format();
    let (type_lo, type_hi) = integer_type_range(bits, signed);
    let i = i.intersect(&IntDomain::new(type_lo, type_hi));
    let (il, ih) = i.range()?;
    // Operands whose truncation lies in [il, ih]: the reals in (il - 1, ih + 1).
    let operands = RealInterval {
        lo: Bound::open(Rational::from(il - 1)),
        hi: Bound::open(Rational::from(ih + 1)),
    };
    let (lo, hi) = floats_within(format, &operands)?;
    let a = a.without_nan().clamp(lo, hi);
    let (al, ah) = a.range()?;
    let truncate = |x: Fp| arith.float_to_int(format, FloatValue::Num(x), bits, signed);
    let i = match (truncate(al), truncate(ah)) {
        (Some(lo), Some(hi)) => i.intersect(&IntDomain::new(lo, hi)),
        _ => i,
    };
    (!i.is_empty()).then_some((a, i))
}
