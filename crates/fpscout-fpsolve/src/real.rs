//! Intervals of extended reals with open or closed ends: the exact relaxation behind indirect projections.

use crate::arith::Arith;
use crate::format::{shift_rational, Format, Fp, Rounding};
use rug::Rational;
use std::cmp::Ordering;

/// An extended real.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Ext {
    NegInf,
    Finite(Rational),
    PosInf,
}

/// An end of a real interval; infinite ends are never closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    pub at: Ext,
    pub closed: bool,
}

/// `{x : lo ≤/< x ≤/< hi}` over the extended reals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RealInterval {
    pub lo: Bound,
    pub hi: Bound,
}

impl Bound {
    pub fn closed(value: Rational) -> Bound {
        Bound {
            at: Ext::Finite(value),
            closed: true,
        }
    }

    pub fn open(value: Rational) -> Bound {
        Bound {
            at: Ext::Finite(value),
            closed: false,
        }
    }

    pub fn infinite(positive: bool) -> Bound {
        Bound {
            at: if positive { Ext::PosInf } else { Ext::NegInf },
            closed: false,
        }
    }
}

fn finite_value(format: Format, x: Fp) -> Rational {
    format.to_rational(x).unwrap_or_default()
}

fn half_way(x: &Rational, y: &Rational) -> Rational {
    let mut sum = Rational::from(x + y);
    sum >>= 1u32;
    sum
}

/// 2^(emax+1): where the float after the largest finite one would be with a wider exponent.
fn beyond_max(format: Format) -> Rational {
    let mut value = Rational::from(1);
    shift_rational(&mut value, format.emax() + 1);
    value
}

/// The reals that round (to nearest, ties to even, an exact zero to +0) into the floats
/// `[lo, hi]`: from mid(lo⁻, lo) to mid(hi, hi⁺), each midpoint included exactly when the
/// tie goes to the bound (its significand is even). Under FTZ the band of tiny reals that
/// flush to a zero of the range is added.
pub(crate) fn rounding_preimage(format: Format, arith: Arith, lo: Fp, hi: Fp) -> RealInterval {
    let overflow_threshold = beyond_max(format) - half_ulp_of_max(format);
    let lower = if lo == format.neg_inf() {
        Bound::infinite(false)
    } else if lo == format.pos_inf() {
        // The largest finite significand is odd: the tie at the threshold overflows.
        Bound::closed(overflow_threshold.clone())
    } else if lo == format.pos_zero() {
        Bound::closed(Rational::new())
    } else {
        let below = if lo == format.negate(format.max_finite()) {
            -beyond_max(format)
        } else {
            finite_value(format, Fp(lo.0 - 1))
        };
        Bound {
            at: Ext::Finite(half_way(&below, &finite_value(format, lo))),
            closed: format.is_even(lo),
        }
    };
    let upper = if hi == format.pos_inf() {
        Bound::infinite(true)
    } else if hi == format.neg_inf() {
        Bound::closed(-overflow_threshold)
    } else if hi == format.neg_zero() {
        Bound::open(Rational::new())
    } else {
        let above = if hi == format.max_finite() {
            beyond_max(format)
        } else {
            finite_value(format, Fp(hi.0 + 1))
        };
        Bound {
            at: Ext::Finite(half_way(&finite_value(format, hi), &above)),
            closed: format.is_even(hi),
        }
    };
    let mut preimage = RealInterval {
        lo: lower,
        hi: upper,
    };
    if arith.flush_to_zero {
        let mut tiny = Rational::from(1);
        shift_rational(&mut tiny, format.emin());
        if lo <= format.pos_zero() && format.pos_zero() <= hi {
            preimage = preimage.hull(&RealInterval {
                lo: Bound::closed(Rational::new()),
                hi: Bound::closed(tiny.clone()),
            });
        }
        if lo <= format.neg_zero() && format.neg_zero() <= hi {
            preimage = preimage.hull(&RealInterval {
                lo: Bound::closed(-tiny),
                hi: Bound::closed(Rational::new()),
            });
        }
    }
    preimage
}

/// Half an ulp of the largest finite float: 2^(emax - p).
fn half_ulp_of_max(format: Format) -> Rational {
    let mut value = Rational::from(1);
    shift_rational(&mut value, format.emax() - format.precision() as i64);
    value
}

/// The floats (finite or infinite, never NaN) whose values lie in the interval, as a range
/// on the ordered line; both zeros when the interval contains 0.
pub(crate) fn floats_within(format: Format, interval: &RealInterval) -> Option<(Fp, Fp)> {
    let lo = match &interval.lo.at {
        Ext::NegInf => format.neg_inf(),
        Ext::PosInf => return None,
        Ext::Finite(value) => {
            let candidate = format.round(value, Rounding::Up);
            if !interval.lo.closed && format.to_rational(candidate).is_some_and(|x| x == *value) {
                format.next_up_value(candidate)?
            } else {
                candidate
            }
        }
    };
    let hi = match &interval.hi.at {
        Ext::PosInf => format.pos_inf(),
        Ext::NegInf => return None,
        Ext::Finite(value) => {
            let candidate = format.round(value, Rounding::Down);
            if !interval.hi.closed && format.to_rational(candidate).is_some_and(|x| x == *value) {
                format.next_down_value(candidate)?
            } else {
                candidate
            }
        }
    };
    (lo <= hi).then_some((lo, hi))
}

/// Orders lower bounds: the smaller value first, closed before open at equal values.
fn lower_cmp(a: &Bound, b: &Bound) -> Ordering {
    a.at.cmp(&b.at).then_with(|| b.closed.cmp(&a.closed))
}

/// Orders upper bounds: the smaller value first, open before closed at equal values.
fn upper_cmp(a: &Bound, b: &Bound) -> Ordering {
    a.at.cmp(&b.at).then_with(|| a.closed.cmp(&b.closed))
}

impl RealInterval {
    pub fn is_empty(&self) -> bool {
        match self.lo.at.cmp(&self.hi.at) {
            Ordering::Greater => true,
            Ordering::Equal => !(self.lo.closed && self.hi.closed),
            Ordering::Less => false,
        }
    }

    pub fn hull(&self, other: &RealInterval) -> RealInterval {
        if self.is_empty() {
            return other.clone();
        }
        if other.is_empty() {
            return self.clone();
        }
        let lo = std::cmp::min_by(self.lo.clone(), other.lo.clone(), lower_cmp);
        let hi = std::cmp::max_by(self.hi.clone(), other.hi.clone(), upper_cmp);
        RealInterval { lo, hi }
    }

    pub fn intersect(&self, other: &RealInterval) -> RealInterval {
        let lo = std::cmp::max_by(self.lo.clone(), other.lo.clone(), lower_cmp);
        let hi = std::cmp::min_by(self.hi.clone(), other.hi.clone(), upper_cmp);
        RealInterval { lo, hi }
    }

    /// The part strictly on one side of zero.
    pub fn strictly_signed(&self, positive: bool) -> RealInterval {
        let side = if positive {
            RealInterval {
                lo: Bound::open(Rational::new()),
                hi: Bound::infinite(true),
            }
        } else {
            RealInterval {
                lo: Bound::infinite(false),
                hi: Bound::open(Rational::new()),
            }
        };
        self.intersect(&side)
    }

    /// `{x + y : x ∈ self, y ∈ [lo, hi]}`.
    pub fn plus_closed(&self, lo: &Rational, hi: &Rational) -> RealInterval {
        RealInterval {
            lo: shift_bound(&self.lo, lo),
            hi: shift_bound(&self.hi, hi),
        }
    }

    /// `{y - x : x ∈ self, y ∈ [lo, hi]}`.
    pub fn subtracted_from_closed(&self, lo: &Rational, hi: &Rational) -> RealInterval {
        let negated = RealInterval {
            lo: negate_bound(&self.hi),
            hi: negate_bound(&self.lo),
        };
        negated.plus_closed(lo, hi)
    }

    /// `{x · y : x ∈ self, y ∈ [lo, hi]}`, `[lo, hi]` finite and not containing 0.
    pub fn times_closed(&self, lo: &Rational, hi: &Rational) -> RealInterval {
        self.corner_hull(lo, hi, ext_times)
    }

    /// `{x / y : x ∈ self, y ∈ [lo, hi]}`, `[lo, hi]` finite and not containing 0.
    pub fn divided_by_closed(&self, lo: &Rational, hi: &Rational) -> RealInterval {
        self.corner_hull(lo, hi, |x, y| ext_times(x, &Rational::from(y.recip_ref())))
    }

    /// `{y / x : x ∈ self, y ∈ [lo, hi]}`, `[lo, hi]` finite without 0, `self` strictly
    /// on one side of zero (0 at most an open end).
    pub fn dividing_closed(&self, lo: &Rational, hi: &Rational) -> RealInterval {
        let positive_side = self.hi.at > Ext::Finite(Rational::new());
        self.corner_hull(lo, hi, |x, y| match x {
            Ext::Finite(value) if value.cmp0() == Ordering::Equal => {
                let positive = (y.cmp0() == Ordering::Greater) == positive_side;
                if positive {
                    Ext::PosInf
                } else {
                    Ext::NegInf
                }
            }
            Ext::Finite(value) => Ext::Finite(Rational::from(y / value)),
            Ext::NegInf | Ext::PosInf => Ext::Finite(Rational::new()),
        })
    }

    /// `{x² : x ∈ self}` for `self` within `[0, +∞]`.
    pub fn squared_nonnegative(&self) -> RealInterval {
        let square = |bound: &Bound| Bound {
            at: match &bound.at {
                Ext::Finite(value) => Ext::Finite(Rational::from(value * value)),
                other => other.clone(),
            },
            closed: bound.closed,
        };
        RealInterval {
            lo: square(&self.lo),
            hi: square(&self.hi),
        }
    }

    /// The hull of `f(end, y)` over both ends of `self` and `y ∈ {lo, hi}`: exact for an `f`
    /// monotone in each argument. An end's openness carries over to its images.
    fn corner_hull(
        &self,
        lo: &Rational,
        hi: &Rational,
        f: impl Fn(&Ext, &Rational) -> Ext,
    ) -> RealInterval {
        if self.is_empty() {
            return self.clone();
        }
        let mut corners = Vec::with_capacity(4);
        for end in [&self.lo, &self.hi] {
            for y in [lo, hi] {
                let at = f(&end.at, y);
                let closed = end.closed && matches!(at, Ext::Finite(_));
                corners.push(Bound { at, closed });
            }
        }
        let lower = corners.iter().cloned().min_by(lower_cmp);
        let upper = corners.iter().cloned().max_by(upper_cmp);
        match (lower, upper) {
            (Some(lo), Some(hi)) => RealInterval { lo, hi },
            _ => self.clone(),
        }
    }
}

fn shift_bound(bound: &Bound, by: &Rational) -> Bound {
    match &bound.at {
        Ext::Finite(value) => Bound {
            at: Ext::Finite(Rational::from(value + by)),
            closed: bound.closed,
        },
        _ => bound.clone(),
    }
}

fn negate_bound(bound: &Bound) -> Bound {
    let at = match &bound.at {
        Ext::NegInf => Ext::PosInf,
        Ext::PosInf => Ext::NegInf,
        Ext::Finite(value) => Ext::Finite(Rational::from(-value)),
    };
    Bound {
        at,
        closed: bound.closed,
    }
}

/// `x · y` for a nonzero finite `y`.
fn ext_times(x: &Ext, y: &Rational) -> Ext {
    let positive = y.cmp0() == Ordering::Greater;
    match x {
        Ext::Finite(value) => Ext::Finite(Rational::from(value * y)),
        Ext::PosInf if positive => Ext::PosInf,
        Ext::NegInf if !positive => Ext::PosInf,
        _ => Ext::NegInf,
    }
}
