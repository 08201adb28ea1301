//! Classes of floats (NaN, ±infinity, ±normal, ±subnormal, ±zero): what `isnan`, `isinf`, `isfinite`, `isnormal` and `fpclassify` test.

use crate::domain::FloatDomain;
use crate::format::{FloatValue, Format, Fp};

/// A set of float classes. NaN is one class: the solver does not model payloads, so a
/// test telling signalling from quiet NaNs is not a `FloatClasses`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatClasses(u16);

impl FloatClasses {
    pub const NAN: FloatClasses = FloatClasses(1 << 0);
    pub const NEG_INF: FloatClasses = FloatClasses(1 << 1);
    pub const NEG_NORMAL: FloatClasses = FloatClasses(1 << 2);
    pub const NEG_SUBNORMAL: FloatClasses = FloatClasses(1 << 3);
    pub const NEG_ZERO: FloatClasses = FloatClasses(1 << 4);
    pub const POS_ZERO: FloatClasses = FloatClasses(1 << 5);
    pub const POS_SUBNORMAL: FloatClasses = FloatClasses(1 << 6);
    pub const POS_NORMAL: FloatClasses = FloatClasses(1 << 7);
    pub const POS_INF: FloatClasses = FloatClasses(1 << 8);
    pub const NONE: FloatClasses = FloatClasses(0);
    pub const ALL: FloatClasses = FloatClasses((1 << 9) - 1);

    /// The ordered classes from -inf to +inf, in the order of the ordered line.
    const ORDERED: [FloatClasses; 8] = [
        Self::NEG_INF,
        Self::NEG_NORMAL,
        Self::NEG_SUBNORMAL,
        Self::NEG_ZERO,
        Self::POS_ZERO,
        Self::POS_SUBNORMAL,
        Self::POS_NORMAL,
        Self::POS_INF,
    ];

    pub fn union(self, other: FloatClasses) -> FloatClasses {
        FloatClasses(self.0 | other.0)
    }

    pub fn complement(self) -> FloatClasses {
        FloatClasses(Self::ALL.0 & !self.0)
    }

    pub fn contains_class(self, class: FloatClasses) -> bool {
        self.0 & class.0 == class.0
    }

    /// The class of a value of `format`.
    pub fn of(format: Format, value: FloatValue) -> FloatClasses {
        let x = match value {
            FloatValue::NaN => return Self::NAN,
            FloatValue::Num(x) => x,
        };
        let negative = format.is_negative(x);
        let (neg, pos) = if format.is_infinite(x) {
            (Self::NEG_INF, Self::POS_INF)
        } else if format.is_zero(x) {
            (Self::NEG_ZERO, Self::POS_ZERO)
        } else if format.is_subnormal(x) {
            (Self::NEG_SUBNORMAL, Self::POS_SUBNORMAL)
        } else {
            (Self::NEG_NORMAL, Self::POS_NORMAL)
        };
        if negative {
            neg
        } else {
            pos
        }
    }

    /// Whether `value` is in one of the classes.
    pub fn holds(self, format: Format, value: FloatValue) -> bool {
        self.contains_class(Self::of(format, value))
    }

    /// The keys of an ordered class on the ordered line.
    fn keys(class: FloatClasses, format: Format) -> (Fp, Fp) {
        let below = |x: Fp| Fp(x.0 - 1);
        let positive = match class {
            c if c == Self::POS_INF || c == Self::NEG_INF => (format.pos_inf(), format.pos_inf()),
            c if c == Self::POS_NORMAL || c == Self::NEG_NORMAL => {
                (format.min_normal(), format.max_finite())
            }
            c if c == Self::POS_SUBNORMAL || c == Self::NEG_SUBNORMAL => {
                (format.min_subnormal(), below(format.min_normal()))
            }
            _ => (format.pos_zero(), format.pos_zero()),
        };
        if Self::NEG_INF
            .union(Self::NEG_NORMAL)
            .union(Self::NEG_SUBNORMAL)
            .union(Self::NEG_ZERO)
            .contains_class(class)
        {
            // The ordered line mirrors the negative half: -x is key -1 - key(x).
            (format.negate(positive.1), format.negate(positive.0))
        } else {
            positive
        }
    }

    /// The smallest domain holding every value of `domain` in one of the classes (the
    /// projection of "the value is in these classes").
    pub fn restrict(self, domain: &FloatDomain) -> FloatDomain {
        let format = domain.format();
        let mut kept = FloatDomain::empty(format);
        for class in Self::ORDERED {
            if self.contains_class(class) {
                let (lo, hi) = Self::keys(class, format);
                kept = kept.hull(&domain.clamp(lo, hi).without_nan());
            }
        }
        kept.with_nan(domain.may_be_nan() && self.contains_class(Self::NAN))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On the 8-bit format, for every class set and many domains, the restriction is the
    /// hull of the domain's values in the classes, found by enumeration.
    #[test]
    fn restrict_is_the_hull_of_the_members() {
        let format = Format::MINI8;
        let (lo, hi) = (format.neg_inf().0, format.pos_inf().0);
        let bounds: Vec<i64> = (lo..=hi).step_by(7).chain([lo, hi, -1, 0, 1, -2]).collect();
        for mask in 0..=FloatClasses::ALL.0 {
            let classes = FloatClasses(mask);
            for &a in &bounds {
                for &b in &bounds {
                    for nan in [false, true] {
                        let domain = FloatDomain::new(format, Fp(a), Fp(b), nan);
                        let members: Vec<i64> = (a..=b)
                            .filter(|&k| classes.holds(format, FloatValue::Num(Fp(k))))
                            .collect();
                        let expected = FloatDomain::new(
                            format,
                            Fp(*members.first().unwrap_or(&1)),
                            Fp(*members.last().unwrap_or(&0)),
                            nan && classes.holds(format, FloatValue::NaN),
                        );
                        assert_eq!(classes.restrict(&domain), expected, "{mask:#b} [{a}, {b}]");
                    }
                }
            }
        }
    }

    #[test]
    fn classes_of_boundary_values() {
        let f = Format::F64;
        let class = |x: f64| FloatClasses::of(f, f.from_f64(x));
        assert_eq!(class(f64::NAN), FloatClasses::NAN);
        assert_eq!(class(-f64::INFINITY), FloatClasses::NEG_INF);
        assert_eq!(class(f64::MIN_POSITIVE), FloatClasses::POS_NORMAL);
        assert_eq!(class(-f64::MIN_POSITIVE / 2.0), FloatClasses::NEG_SUBNORMAL);
        assert_eq!(class(-0.0), FloatClasses::NEG_ZERO);
        assert_eq!(class(0.0), FloatClasses::POS_ZERO);
        assert_eq!(class(f64::MAX), FloatClasses::POS_NORMAL);
    }
}
