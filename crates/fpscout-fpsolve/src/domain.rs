//! Domains of variables: float intervals with a NaN state, and integer intervals.

use crate::format::{FloatValue, Format, Fp, Rounding};
use rug::Rational;

/// A set of floats of one format: the non-NaN values in `[lo, hi]` on the ordered line
/// (`-0 < +0`, ±inf allowed) or none, plus whether NaN is possible.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FloatDomain {
    format: Format,
    range: Option<(Fp, Fp)>,
    nan: bool,
}

/// Whether a float variable may, must or cannot be NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NanState {
    Never,
    Maybe,
    Always,
}

impl FloatDomain {
    /// Every value, NaN included.
    pub fn full(format: Format) -> FloatDomain {
        FloatDomain {
            format,
            range: Some((format.neg_inf(), format.pos_inf())),
            nan: true,
        }
    }

    /// Every value but NaN.
    pub fn ordered(format: Format) -> FloatDomain {
        FloatDomain {
            format,
            range: Some((format.neg_inf(), format.pos_inf())),
            nan: false,
        }
    }

    pub fn empty(format: Format) -> FloatDomain {
        FloatDomain {
            format,
            range: None,
            nan: false,
        }
    }

    pub fn nan_only(format: Format) -> FloatDomain {
        FloatDomain {
            format,
            range: None,
            nan: true,
        }
    }

    /// `[lo, hi]` (empty when `lo > hi`; keys outside the format are clamped) and maybe NaN.
    pub fn new(format: Format, lo: Fp, hi: Fp, nan: bool) -> FloatDomain {
        let lo = lo.max(format.neg_inf());
        let hi = hi.min(format.pos_inf());
        FloatDomain {
            format,
            range: (lo <= hi).then_some((lo, hi)),
            nan,
        }
    }

    /// The floats whose values lie in the real interval `[lo, hi]` (so both zeros when it
    /// contains 0), without NaN. `lo`/`hi` may be infinite.
    pub fn between(format: Format, lo: f64, hi: f64) -> FloatDomain {
        let bound = |x: f64, rounding: Rounding| match Rational::from_f64(x) {
            Some(exact) => format.round(&exact, rounding),
            None if x < 0.0 => format.neg_inf(),
            None => format.pos_inf(),
        };
        if lo.is_nan() || hi.is_nan() {
            return FloatDomain::empty(format);
        }
        FloatDomain::new(
            format,
            bound(lo, Rounding::Up),
            bound(hi, Rounding::Down),
            false,
        )
    }

    pub fn point(format: Format, value: FloatValue) -> FloatDomain {
        match value {
            FloatValue::NaN => FloatDomain::nan_only(format),
            FloatValue::Num(x) => FloatDomain::new(format, x, x, false),
        }
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// The non-NaN part as `(lo, hi)`, if any.
    pub fn range(&self) -> Option<(Fp, Fp)> {
        self.range
    }

    pub fn may_be_nan(&self) -> bool {
        self.nan
    }

    pub fn nan_state(&self) -> NanState {
        match (self.nan, self.range) {
            (false, _) => NanState::Never,
            (true, Some(_)) => NanState::Maybe,
            (true, None) => NanState::Always,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.range.is_none() && !self.nan
    }

    /// Number of values, NaN counting as one.
    pub fn size(&self) -> u64 {
        let count = self.range.map_or(0, |(lo, hi)| self.format.count(lo, hi));
        count.saturating_add(u64::from(self.nan))
    }

    /// The single value, when there is exactly one.
    pub fn as_point(&self) -> Option<FloatValue> {
        match (self.range, self.nan) {
            (Some((lo, hi)), false) if lo == hi => Some(FloatValue::Num(lo)),
            (None, true) => Some(FloatValue::NaN),
            _ => None,
        }
    }

    pub fn contains(&self, value: FloatValue) -> bool {
        match value {
            FloatValue::NaN => self.nan,
            FloatValue::Num(x) => self.range.is_some_and(|(lo, hi)| lo <= x && x <= hi),
        }
    }

    pub fn without_nan(&self) -> FloatDomain {
        FloatDomain {
            nan: false,
            ..self.clone()
        }
    }

    pub fn with_nan(&self, nan: bool) -> FloatDomain {
        FloatDomain {
            nan,
            ..self.clone()
        }
    }

    pub fn with_range(&self, range: Option<(Fp, Fp)>) -> FloatDomain {
        FloatDomain {
            range,
            ..self.clone()
        }
    }

    pub fn intersect(&self, other: &FloatDomain) -> FloatDomain {
        let range = match (self.range, other.range) {
            (Some((a, b)), Some((c, d))) => {
                let (lo, hi) = (a.max(c), b.min(d));
                (lo <= hi).then_some((lo, hi))
            }
            _ => None,
        };
        FloatDomain {
            format: self.format,
            range,
            nan: self.nan && other.nan,
        }
    }

    /// Intersection of the non-NaN part with `[lo, hi]`.
    pub fn clamp(&self, lo: Fp, hi: Fp) -> FloatDomain {
        self.intersect(&FloatDomain::new(self.format, lo, hi, true))
    }

    /// Smallest domain containing both.
    pub fn hull(&self, other: &FloatDomain) -> FloatDomain {
        FloatDomain {
            format: self.format,
            range: hull_range(self.range, other.range),
            nan: self.nan || other.nan,
        }
    }
}

pub(crate) fn hull_range(a: Option<(Fp, Fp)>, b: Option<(Fp, Fp)>) -> Option<(Fp, Fp)> {
    match (a, b) {
        (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
        (x, None) | (None, x) => x,
    }
}

/// A set of mathematical integers `[lo, hi]`, or empty. Signedness is the caller's: an
/// unsigned `iN` is the range `[0, 2^N - 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntDomain {
    range: Option<(i128, i128)>,
}

impl IntDomain {
    pub fn new(lo: i128, hi: i128) -> IntDomain {
        IntDomain {
            range: (lo <= hi).then_some((lo, hi)),
        }
    }

    pub fn empty() -> IntDomain {
        IntDomain { range: None }
    }

    pub fn range(&self) -> Option<(i128, i128)> {
        self.range
    }

    pub fn is_empty(&self) -> bool {
        self.range.is_none()
    }

    pub fn size(&self) -> u64 {
        self.range.map_or(0, |(lo, hi)| {
            // Saturating: a full 64-bit range has 2^64 values.
            hi.checked_sub(lo)
                .and_then(|n| u64::try_from(n).ok())
                .map_or(u64::MAX, |n| n.saturating_add(1))
        })
    }

    pub fn as_point(&self) -> Option<i128> {
        self.range.and_then(|(lo, hi)| (lo == hi).then_some(lo))
    }

    pub fn contains(&self, value: i128) -> bool {
        self.range
            .is_some_and(|(lo, hi)| lo <= value && value <= hi)
    }

    pub fn intersect(&self, other: &IntDomain) -> IntDomain {
        match (self.range, other.range) {
            (Some((a, b)), Some((c, d))) => IntDomain::new(a.max(c), b.min(d)),
            _ => IntDomain::empty(),
        }
    }
}

/// Range of an integer type of `bits` (1..=64) width.
pub fn integer_type_range(bits: u32, signed: bool) -> (i128, i128) {
    let bits = bits.clamp(1, 64);
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::IntDomain;

    #[test]
    fn integer_domain_sizes_saturate_at_the_full_64_bit_range() {
        // Every u64 (an unsigned long parameter): 2^64 values, once an overflow.
        assert_eq!(IntDomain::new(0, i128::from(u64::MAX)).size(), u64::MAX);
        assert_eq!(IntDomain::new(i128::MIN, i128::MAX).size(), u64::MAX);
        assert_eq!(IntDomain::new(-3, 4).size(), 8);
        assert_eq!(IntDomain::new(5, 4).size(), 0);
    }
}
