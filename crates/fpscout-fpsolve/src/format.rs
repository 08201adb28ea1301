//! IEEE binary formats, their non-NaN values as positions on the ordered line, and exact rounding.

use crate::error::FormatError;
use rug::{Integer, Rational};
use std::cmp::Ordering;

/// An IEEE 754 binary format: sign bit, `exponent_bits`, `fraction_bits`, with subnormals,
/// signed zeros, infinities and NaN. Runtime-valued so that one network can mix the formats
/// of a program (fpext/fptrunc) and tests can run exhaustively on minifloats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    exponent_bits: u32,
    fraction_bits: u32,
}

/// A non-NaN float of some [`Format`], as its position on the ordered line:
/// `-inf < … < -0 < +0 < … < +inf`, consecutive floats have consecutive keys.
/// `-0` is key -1 and `+0` key 0, so signed zeros stay distinct while `next_up`,
/// `next_down` and midpoints-in-order are integer arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fp(pub i64);

/// A concrete float: NaN (payloads are not modelled) or an ordered value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatValue {
    NaN,
    Num(Fp),
}

/// Direction of rounding a real to a float.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// IEEE round-to-nearest, ties to even (exact zero gives +0).
    NearestEven,
    /// Largest float whose value is ≤ the real (exact zero gives +0).
    Down,
    /// Smallest float whose value is ≥ the real (exact zero gives -0).
    Up,
}

impl Format {
    /// IEEE binary32.
    pub const F32: Format = Format {
        exponent_bits: 8,
        fraction_bits: 23,
    };
    /// IEEE binary64.
    pub const F64: Format = Format {
        exponent_bits: 11,
        fraction_bits: 52,
    };
    /// 8-bit minifloat: 1 sign, 4 exponent, 3 fraction bits (IEEE-style, with inf and NaN).
    pub const MINI8: Format = Format {
        exponent_bits: 4,
        fraction_bits: 3,
    };
    /// 10-bit minifloat: 1 sign, 5 exponent, 4 fraction bits.
    pub const MINI10: Format = Format {
        exponent_bits: 5,
        fraction_bits: 4,
    };

    /// A format with the given field widths; at most 64 bits in all, at least 2 exponent bits.
    pub fn new(exponent_bits: u32, fraction_bits: u32) -> Result<Format, FormatError> {
        if !(2..=11).contains(&exponent_bits)
            || fraction_bits == 0
            || exponent_bits + fraction_bits > 63
        {
            return Err(FormatError::UnsupportedWidths {
                exponent_bits,
                fraction_bits,
            });
        }
        Ok(Format {
            exponent_bits,
            fraction_bits,
        })
    }

    pub fn exponent_bits(self) -> u32 {
        self.exponent_bits
    }

    pub fn fraction_bits(self) -> u32 {
        self.fraction_bits
    }

    /// Significand precision p, hidden bit included.
    pub fn precision(self) -> u32 {
        self.fraction_bits + 1
    }

    pub fn bias(self) -> i64 {
        (1i64 << (self.exponent_bits - 1)) - 1
    }

    /// Exponent of the smallest normal number.
    pub fn emin(self) -> i64 {
        1 - self.bias()
    }

    /// Exponent of the largest finite number.
    pub fn emax(self) -> i64 {
        self.bias()
    }

    fn infinity_magnitude(self) -> i64 {
        ((1i64 << self.exponent_bits) - 1) << self.fraction_bits
    }

    pub fn pos_inf(self) -> Fp {
        Fp(self.infinity_magnitude())
    }

    pub fn neg_inf(self) -> Fp {
        Fp(-self.infinity_magnitude() - 1)
    }

    pub fn pos_zero(self) -> Fp {
        Fp(0)
    }

    pub fn neg_zero(self) -> Fp {
        Fp(-1)
    }

    /// Largest finite value.
    pub fn max_finite(self) -> Fp {
        Fp(self.infinity_magnitude() - 1)
    }

    /// Smallest positive subnormal.
    pub fn min_subnormal(self) -> Fp {
        Fp(1)
    }

    /// Smallest positive normal.
    pub fn min_normal(self) -> Fp {
        Fp(1i64 << self.fraction_bits)
    }

    /// Whether `x` is a valid key of this format.
    pub fn contains(self, x: Fp) -> bool {
        self.neg_inf() <= x && x <= self.pos_inf()
    }

    /// Number of non-NaN floats in `[lo, hi]` (0 when `lo > hi`).
    pub fn count(self, lo: Fp, hi: Fp) -> u64 {
        if lo > hi {
            0
        } else {
            // The whole binary64 line spans more than i64::MAX keys.
            (i128::from(hi.0) - i128::from(lo.0)) as u64 + 1
        }
    }

    /// Next float up in the order (`-0` → `+0`), or `None` above `+inf`.
    pub fn next_up(self, x: Fp) -> Option<Fp> {
        (x < self.pos_inf()).then_some(Fp(x.0 + 1))
    }

    /// Next float down in the order (`+0` → `-0`), or `None` below `-inf`.
    pub fn next_down(self, x: Fp) -> Option<Fp> {
        (x > self.neg_inf()).then_some(Fp(x.0 - 1))
    }

    /// Next float whose *value* is larger (skips the other zero).
    pub fn next_up_value(self, x: Fp) -> Option<Fp> {
        let next = self.next_up(x)?;
        if next == self.pos_zero() {
            self.next_up(next)
        } else {
            Some(next)
        }
    }

    /// Next float whose *value* is smaller (skips the other zero).
    pub fn next_down_value(self, x: Fp) -> Option<Fp> {
        let next = self.next_down(x)?;
        if next == self.neg_zero() {
            self.next_down(next)
        } else {
            Some(next)
        }
    }

    /// Middle of `[lo, hi]` in the order (rounded down), for splitting domains.
    pub fn midpoint_in_order(self, lo: Fp, hi: Fp) -> Fp {
        Fp(middle_key(lo.0, hi.0))
    }

    pub fn is_negative(self, x: Fp) -> bool {
        x.0 < 0
    }

    pub fn is_zero(self, x: Fp) -> bool {
        x.0 == 0 || x.0 == -1
    }

    pub fn is_infinite(self, x: Fp) -> bool {
        x == self.pos_inf() || x == self.neg_inf()
    }

    pub fn is_finite(self, x: Fp) -> bool {
        !self.is_infinite(x)
    }

    /// Nonzero with magnitude below the smallest normal.
    pub fn is_subnormal(self, x: Fp) -> bool {
        let magnitude = self.magnitude(x);
        magnitude != 0 && magnitude < self.min_normal().0
    }

    /// Sign-less encoding (exponent and fraction fields).
    fn magnitude(self, x: Fp) -> i64 {
        if x.0 < 0 {
            -x.0 - 1
        } else {
            x.0
        }
    }

    /// The float with the same magnitude and the given sign.
    pub fn with_sign(self, x: Fp, negative: bool) -> Fp {
        let magnitude = self.magnitude(x);
        if negative {
            Fp(-magnitude - 1)
        } else {
            Fp(magnitude)
        }
    }

    /// IEEE negation (a sign flip, also of zeros and infinities).
    pub fn negate(self, x: Fp) -> Fp {
        Fp(-x.0 - 1)
    }

    /// Last bit of the encoded significand: ties round to the float where it is 0.
    pub fn is_even(self, x: Fp) -> bool {
        self.magnitude(x) & 1 == 0
    }

    /// IEEE encoding of a value (NaN as the canonical quiet NaN).
    pub fn to_bits(self, value: FloatValue) -> u64 {
        let sign_bit = 1u64 << (self.exponent_bits + self.fraction_bits);
        match value {
            FloatValue::NaN => {
                (self.infinity_magnitude() as u64) | (1u64 << (self.fraction_bits - 1))
            }
            FloatValue::Num(x) if x.0 < 0 => sign_bit | self.magnitude(x) as u64,
            FloatValue::Num(x) => x.0 as u64,
        }
    }

    /// Decodes IEEE bits (higher bits than the format's width are ignored).
    pub fn from_bits(self, bits: u64) -> FloatValue {
        let width = self.exponent_bits + self.fraction_bits;
        let magnitude = (bits & ((1u64 << width) - 1)) as i64;
        if magnitude > self.infinity_magnitude() {
            return FloatValue::NaN;
        }
        let negative = (bits >> width) & 1 == 1;
        FloatValue::Num(if negative {
            Fp(-magnitude - 1)
        } else {
            Fp(magnitude)
        })
    }

    /// Exact value of a finite float (`None` for infinities). Both zeros give 0.
    pub fn to_rational(self, x: Fp) -> Option<Rational> {
        if self.is_infinite(x) {
            return None;
        }
        let magnitude = self.magnitude(x);
        let exponent_field = magnitude >> self.fraction_bits;
        let fraction = magnitude & ((1i64 << self.fraction_bits) - 1);
        let (significand, exponent) = if exponent_field == 0 {
            (fraction, self.emin() - self.fraction_bits as i64)
        } else {
            (
                fraction | (1i64 << self.fraction_bits),
                exponent_field - self.bias() - self.fraction_bits as i64,
            )
        };
        let mut value = Rational::from(significand);
        shift_rational(&mut value, exponent);
        if x.0 < 0 {
            value = -value;
        }
        Some(value)
    }

    /// Compares the values of two floats (zeros equal, infinities at the ends).
    pub fn value_cmp(self, x: Fp, y: Fp) -> Ordering {
        if self.is_zero(x) && self.is_zero(y) {
            Ordering::Equal
        } else {
            x.cmp(&y)
        }
    }

    /// Rounds an exact real to this format. Overflow follows IEEE (nearest: past
    /// MAX + ½ulp is infinity; directed: MAX or infinity by direction).
    pub fn round(self, x: &Rational, rounding: Rounding) -> Fp {
        let negative = x.cmp0() == Ordering::Less;
        if x.cmp0() == Ordering::Equal {
            return match rounding {
                Rounding::Up => self.neg_zero(),
                Rounding::NearestEven | Rounding::Down => self.pos_zero(),
            };
        }
        let mode = match (rounding, negative) {
            (Rounding::NearestEven, _) => MagnitudeRounding::NearestEven,
            (Rounding::Down, false) | (Rounding::Up, true) => MagnitudeRounding::TowardZero,
            (Rounding::Down, true) | (Rounding::Up, false) => MagnitudeRounding::AwayFromZero,
        };
        let magnitude = x.clone().abs();
        let (significand, exponent) = self.round_magnitude(&magnitude, mode, true);
        let encoded = self.encode(significand, exponent, mode);
        self.with_sign(encoded, negative)
    }

    /// IEEE tininess *after rounding* (as x86 detects it): the real, rounded to nearest with
    /// the precision of this format but an unbounded exponent, lies strictly between
    /// ±2^emin. This is the condition under which FTZ flushes a result.
    pub fn is_tiny_after_rounding(self, x: &Rational) -> bool {
        if x.cmp0() == Ordering::Equal {
            return false;
        }
        let magnitude = x.clone().abs();
        let (significand, exponent) =
            self.round_magnitude(&magnitude, MagnitudeRounding::NearestEven, false);
        significand.significant_bits() as i64 + exponent - 1 < self.emin()
    }

    /// Rounds a positive real to `significand · 2^exponent` with `significand < 2^p`,
    /// honouring the subnormal quantum when `bounded`.
    fn round_magnitude(
        self,
        magnitude: &Rational,
        mode: MagnitudeRounding,
        bounded: bool,
    ) -> (Integer, i64) {
        let exponent = floor_log2(magnitude);
        let quantum_exponent = if bounded {
            exponent.max(self.emin())
        } else {
            exponent
        } - self.fraction_bits as i64;
        let mut scaled = magnitude.clone();
        shift_rational(&mut scaled, -quantum_exponent);
        let (numerator, denominator) = scaled.into_numer_denom();
        let (mut quotient, remainder) = numerator.div_rem_floor(denominator.clone());
        let round_up = match mode {
            MagnitudeRounding::TowardZero => false,
            MagnitudeRounding::AwayFromZero => remainder.cmp0() != Ordering::Equal,
            MagnitudeRounding::NearestEven => {
                let twice: Integer = remainder * 2u32;
                match twice.cmp(&denominator) {
                    Ordering::Greater => true,
                    Ordering::Less => false,
                    Ordering::Equal => quotient.is_odd(),
                }
            }
        };
        if round_up {
            quotient += 1u32;
        }
        let mut quantum_exponent = quantum_exponent;
        if quotient.significant_bits() > self.precision() {
            quotient >>= 1u32;
            quantum_exponent += 1;
        }
        (quotient, quantum_exponent)
    }

    /// Encodes `significand · 2^exponent` (as produced by `round_magnitude`) as a positive key.
    fn encode(self, significand: Integer, exponent: i64, mode: MagnitudeRounding) -> Fp {
        if significand.cmp0() == Ordering::Equal {
            return self.pos_zero();
        }
        let top_exponent = exponent + significand.significant_bits() as i64 - 1;
        if top_exponent > self.emax() {
            return match mode {
                MagnitudeRounding::TowardZero => self.max_finite(),
                MagnitudeRounding::NearestEven | MagnitudeRounding::AwayFromZero => self.pos_inf(),
            };
        }
        let significand = significand.to_i64().unwrap_or(0);
        let hidden = 1i64 << self.fraction_bits;
        // For subnormals exponent = emin - f, the field formula below then yields the significand itself.
        Fp(
            ((exponent + self.fraction_bits as i64 + self.bias()) << self.fraction_bits)
                + significand
                - hidden,
        )
    }

    /// The float nearest to an `f64` (exact for `F64`, and for `F32` from an f32 widened).
    pub fn from_f64(self, x: f64) -> FloatValue {
        if x.is_nan() {
            return FloatValue::NaN;
        }
        if x.is_infinite() {
            return FloatValue::Num(if x > 0.0 {
                self.pos_inf()
            } else {
                self.neg_inf()
            });
        }
        if x == 0.0 {
            return FloatValue::Num(if x.is_sign_negative() {
                self.neg_zero()
            } else {
                self.pos_zero()
            });
        }
        // The machine rounds to nearest even too (`as f32` included).
        if self == Format::F64 {
            return self.from_bits(x.to_bits());
        }
        if self == Format::F32 {
            return self.from_bits(u64::from((x as f32).to_bits()));
        }
        let exact = Rational::from_f64(x).unwrap_or_default();
        FloatValue::Num(self.round(&exact, Rounding::NearestEven))
    }

    /// The `f64` nearest to a float (exact for every format up to binary64).
    pub fn to_f64(self, x: Fp) -> f64 {
        if x == self.pos_inf() {
            return f64::INFINITY;
        }
        if x == self.neg_inf() {
            return f64::NEG_INFINITY;
        }
        if x == self.neg_zero() {
            return -0.0;
        }
        if self == Format::F64 {
            return f64::from_bits(self.to_bits(FloatValue::Num(x)));
        }
        if self == Format::F32 {
            return f64::from(f32::from_bits(self.to_bits(FloatValue::Num(x)) as u32));
        }
        self.to_rational(x)
            .map(|value| value.to_f64())
            .unwrap_or(f64::NAN)
    }

    /// Converts a float of this format to `target` by rounding to nearest (exact when
    /// `target` is wider), keeping signed zeros and infinities.
    pub fn convert(self, x: Fp, target: Format) -> Fp {
        match self.to_rational(x) {
            None => {
                if x.0 < 0 {
                    target.neg_inf()
                } else {
                    target.pos_inf()
                }
            }
            Some(value) if value.cmp0() == Ordering::Equal => {
                target.with_sign(target.pos_zero(), x.0 < 0)
            }
            Some(value) => target.round(&value, Rounding::NearestEven),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum MagnitudeRounding {
    NearestEven,
    TowardZero,
    AwayFromZero,
}

/// Multiplies by 2^shift in place.
pub(crate) fn shift_rational(value: &mut Rational, shift: i64) {
    let amount = shift.unsigned_abs() as u32;
    if shift >= 0 {
        *value <<= amount;
    } else {
        *value >>= amount;
    }
}

/// floor(log2(x)) of a positive rational.
pub(crate) fn floor_log2(x: &Rational) -> i64 {
    let guess = x.numer().significant_bits() as i64 - x.denom().significant_bits() as i64;
    let mut power = Rational::from(1);
    shift_rational(&mut power, guess);
    if *x < power {
        guess - 1
    } else {
        guess
    }
}

/// `lo + (hi - lo) / 2` without overflow (binary64 keys span more than `i64::MAX`).
pub(crate) fn middle_key(lo: i64, hi: i64) -> i64 {
    ((i128::from(lo) + i128::from(hi)).div_euclid(2)) as i64
}
