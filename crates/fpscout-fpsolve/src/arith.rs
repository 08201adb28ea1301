//! Correctly rounded IEEE arithmetic on any format, from exact rationals (the reference every projection is tested against).

use crate::format::{FloatValue, Format, Fp, Rounding};
use rug::{Integer, Rational};
use std::cmp::Ordering;

/// The floating-point environment of the arithmetic: round-to-nearest-even always, with the
/// x86 MXCSR options FTZ (tiny results, detected after rounding, become ±0) and DAZ
/// (subnormal operands of arithmetic, comparisons and conversions read as ±0; `fneg`/`fabs`
/// are bit operations and see the operand as is). Both off by default (IEEE).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Arith {
    pub flush_to_zero: bool,
    pub denormals_are_zero: bool,
}

/// The arithmetic operations with two float operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    FAdd,
    FSub,
    FMul,
    FDiv,
}

impl Arith {
    pub const IEEE: Arith = Arith {
        flush_to_zero: false,
        denormals_are_zero: false,
    };

    /// The operand as an arithmetic instruction reads it (DAZ applied).
    pub fn read(self, format: Format, x: Fp) -> Fp {
        if self.denormals_are_zero && format.is_subnormal(x) {
            format.with_sign(format.pos_zero(), format.is_negative(x))
        } else {
            x
        }
    }

    /// Rounds an exact nonzero-or-zero result whose sign (for a zero) is `negative_zero`.
    fn round_result(self, format: Format, exact: &Rational, negative_zero: bool) -> Fp {
        if exact.cmp0() == Ordering::Equal {
            return format.with_sign(format.pos_zero(), negative_zero);
        }
        if self.flush_to_zero && format.is_tiny_after_rounding(exact) {
            return format.with_sign(format.pos_zero(), exact.cmp0() == Ordering::Less);
        }
        format.round(exact, Rounding::NearestEven)
    }

    /// `a ⊙ b`. f32/f64 run on the machine (Rust's `f32`/`f64` operations are IEEE
    /// round-to-nearest-even), DAZ applied to the operands and FTZ to the result in software;
    /// the one result FTZ cannot judge from the rounded value (±2^emin, which a slightly
    /// smaller exact result also rounds to) and every other format go through
    /// [`Arith::binary_exact`], the reference the tests hold the machine path to.
    pub fn binary(self, op: BinaryOp, format: Format, a: FloatValue, b: FloatValue) -> FloatValue {
        if let (FloatValue::Num(x), FloatValue::Num(y)) = (a, b) {
            let operands = (
                FloatValue::Num(self.read(format, x)),
                FloatValue::Num(self.read(format, y)),
            );
            match native::binary(op, format, operands.0, operands.1) {
                Some(FloatValue::Num(r)) if self.flush_to_zero && format.is_subnormal(r) => {
                    return FloatValue::Num(
                        format.with_sign(format.pos_zero(), format.is_negative(r)),
                    );
                }
                Some(FloatValue::Num(r))
                    if self.flush_to_zero && format.with_sign(r, false) == format.min_normal() => {}
                Some(result) => return result,
                None => {}
            }
        }
        self.binary_exact(op, format, a, b)
    }

    /// `a ⊙ b` rounded from the exact rational result.
    pub fn binary_exact(
        self,
        op: BinaryOp,
        format: Format,
        a: FloatValue,
        b: FloatValue,
    ) -> FloatValue {
        let (FloatValue::Num(a), FloatValue::Num(b)) = (a, b) else {
            return FloatValue::NaN;
        };
        let (a, b) = (self.read(format, a), self.read(format, b));
        match op {
            BinaryOp::FAdd => self.fadd(format, a, b),
            BinaryOp::FSub => self.fadd(format, a, format.negate(b)),
            BinaryOp::FMul => self.fmul(format, a, b),
            BinaryOp::FDiv => self.fdiv(format, a, b),
        }
    }

    fn fadd(self, format: Format, a: Fp, b: Fp) -> FloatValue {
        match (format.to_rational(a), format.to_rational(b)) {
            (None, None) if a != b => FloatValue::NaN,
            (None, _) => FloatValue::Num(a),
            (_, None) => FloatValue::Num(b),
            (Some(x), Some(y)) => {
                // An exact zero sum is +0 in round-to-nearest unless both addends are -0.
                let both_negative_zero = a == format.neg_zero() && b == format.neg_zero();
                FloatValue::Num(self.round_result(format, &(x + y), both_negative_zero))
            }
        }
    }

    fn fmul(self, format: Format, a: Fp, b: Fp) -> FloatValue {
        let negative = format.is_negative(a) != format.is_negative(b);
        match (format.to_rational(a), format.to_rational(b)) {
            (None, _) | (_, None) => {
                if format.is_zero(a) || format.is_zero(b) {
                    FloatValue::NaN
                } else {
                    FloatValue::Num(format.with_sign(format.pos_inf(), negative))
                }
            }
            (Some(x), Some(y)) => FloatValue::Num(self.round_result(format, &(x * y), negative)),
        }
    }

    fn fdiv(self, format: Format, a: Fp, b: Fp) -> FloatValue {
        let negative = format.is_negative(a) != format.is_negative(b);
        let signed = |x: Fp| FloatValue::Num(format.with_sign(x, negative));
        match (format.to_rational(a), format.to_rational(b)) {
            (None, None) => FloatValue::NaN,
            (None, Some(_)) => signed(format.pos_inf()),
            (Some(_), None) => signed(format.pos_zero()),
            (Some(x), Some(y)) => {
                if y.cmp0() == Ordering::Equal {
                    if x.cmp0() == Ordering::Equal {
                        FloatValue::NaN
                    } else {
                        signed(format.pos_inf())
                    }
                } else {
                    FloatValue::Num(self.round_result(format, &(x / y), negative))
                }
            }
        }
    }

    /// `sqrt(a)`: on the machine for f32/f64 (DAZ applied; a root is never tiny, so FTZ
    /// changes nothing), else [`Arith::fsqrt_exact`].
    pub fn fsqrt(self, format: Format, a: FloatValue) -> FloatValue {
        let read = match a {
            FloatValue::Num(x) => FloatValue::Num(self.read(format, x)),
            FloatValue::NaN => FloatValue::NaN,
        };
        native::sqrt(format, read).unwrap_or_else(|| self.fsqrt_exact(format, a))
    }

    /// `sqrt(a)` correctly rounded from an exact rational proxy.
    pub fn fsqrt_exact(self, format: Format, a: FloatValue) -> FloatValue {
        let FloatValue::Num(a) = a else {
            return FloatValue::NaN;
        };
        let a = self.read(format, a);
        if format.is_zero(a) || a == format.pos_inf() {
            return FloatValue::Num(a);
        }
        if format.is_negative(a) {
            return FloatValue::NaN;
        }
        let Some(x) = format.to_rational(a) else {
            return FloatValue::NaN;
        };
        let proxy = sqrt_rounding_proxy(&x, format);
        FloatValue::Num(self.round_result(format, &proxy, false))
    }

    pub fn fneg(self, format: Format, a: FloatValue) -> FloatValue {
        match a {
            FloatValue::NaN => FloatValue::NaN,
            FloatValue::Num(x) => FloatValue::Num(format.negate(x)),
        }
    }

    pub fn fabs(self, format: Format, a: FloatValue) -> FloatValue {
        match a {
            FloatValue::NaN => FloatValue::NaN,
            FloatValue::Num(x) => FloatValue::Num(format.with_sign(x, false)),
        }
    }

    /// x86 `minss`/`minsd`: `a < b ? a : b`, so the second operand wins on NaN and on
    /// equal values (±0 included). This is what clang emits for `a < b ? a : b`; C's
    /// `fmin` (NaN-ignoring) is a different function.
    pub fn fmin(self, format: Format, a: FloatValue, b: FloatValue) -> FloatValue {
        if self.compare(crate::compare::FcmpPredicate::Olt, format, a, b) {
            a
        } else {
            b
        }
    }

    /// x86 `maxss`/`maxsd`: `a > b ? a : b` (second operand on NaN and on equal values).
    pub fn fmax(self, format: Format, a: FloatValue, b: FloatValue) -> FloatValue {
        if self.compare(crate::compare::FcmpPredicate::Ogt, format, a, b) {
            a
        } else {
            b
        }
    }

    /// LLVM `fcmp` (DAZ applied to the operands, as SSE compares do).
    pub fn compare(
        self,
        predicate: crate::compare::FcmpPredicate,
        format: Format,
        a: FloatValue,
        b: FloatValue,
    ) -> bool {
        let ordering = match (a, b) {
            (FloatValue::Num(x), FloatValue::Num(y)) => {
                Some(format.value_cmp(self.read(format, x), self.read(format, y)))
            }
            _ => None,
        };
        predicate.holds(ordering)
    }

    /// `fpext`/`fptrunc` from `from` to `to`: exact when widening, rounded to nearest when
    /// narrowing (DAZ on the operand, FTZ on a narrowed result).
    pub fn convert(self, from: Format, to: Format, a: FloatValue) -> FloatValue {
        let FloatValue::Num(x) = a else {
            return FloatValue::NaN;
        };
        let x = self.read(from, x);
        match from.to_rational(x) {
            Some(value) if value.cmp0() != Ordering::Equal => {
                FloatValue::Num(self.round_result(to, &value, false))
            }
            _ => FloatValue::Num(from.convert(x, to)),
        }
    }

    /// [`Arith::convert`] on the machine between f32 and f64 (widening is exact; narrowing
    /// is Rust's round-to-nearest-even `as`, left to the reference when FTZ could flush).
    pub fn convert_on_machine(self, from: Format, to: Format, a: FloatValue) -> FloatValue {
        let FloatValue::Num(x) = a else {
            return FloatValue::NaN;
        };
        let x = self.read(from, x);
        let bits = from.to_bits(FloatValue::Num(x));
        if from == Format::F32 && to == Format::F64 {
            let wide = f64::from(f32::from_bits(bits as u32));
            return to.from_bits(wide.to_bits());
        }
        if from == Format::F64 && to == Format::F32 && !self.flush_to_zero {
            let narrow = f64::from_bits(bits) as f32;
            return to.from_bits(u64::from(narrow.to_bits()));
        }
        self.convert(from, to, FloatValue::Num(x))
    }

    /// `sitofp`/`uitofp` of a mathematical integer (the caller's bounds say which).
    pub fn int_to_float(self, to: Format, value: i128) -> FloatValue {
        FloatValue::Num(self.round_result(to, &Rational::from(value), false))
    }

    /// `fptosi`/`fptoui` into an integer type of `bits` width: truncation toward zero, or
    /// `None` when the result is out of range or the operand NaN (poison in LLVM, the
    /// "integer indefinite" on x86: the solver treats it as no value).
    pub fn float_to_int(
        self,
        from: Format,
        a: FloatValue,
        bits: u32,
        signed: bool,
    ) -> Option<i128> {
        let FloatValue::Num(x) = a else {
            return None;
        };
        let value = from.to_rational(self.read(from, x))?;
        let truncated = value.trunc().numer().to_i128()?;
        let (lo, hi) = crate::domain::integer_type_range(bits, signed);
        (lo..=hi).contains(&truncated).then_some(truncated)
    }
}

/// A rational that rounds (in every direction, in `format`) as √x does: √x truncated to a
/// grid four times finer than the format's finest quantum near √x, plus half a grid step
/// when inexact, so that it lies strictly inside the same rounding cell.
pub(crate) fn sqrt_rounding_proxy(x: &Rational, format: Format) -> Rational {
    let root_exponent = crate::format::floor_log2(x).div_euclid(2);
    let grid_exponent = root_exponent.max(format.emin()) - format.fraction_bits() as i64 - 2;
    let mut scaled = x.clone();
    crate::format::shift_rational(&mut scaled, -2 * grid_exponent);
    let (numerator, denominator) = scaled.into_numer_denom();
    let (floor_square, _) = numerator.div_rem_floor(denominator.clone());
    let root = floor_square.clone().sqrt();
    let exact = denominator == 1u32 && Integer::from(&root * &root) == floor_square;
    let mut proxy = Rational::from(root);
    if !exact {
        proxy += Rational::from((1, 2));
    }
    crate::format::shift_rational(&mut proxy, grid_exponent);
    proxy
}

/// The machine's own f32/f64 operations, for IEEE mode (no FTZ/DAZ).
mod native {
    use super::BinaryOp;
    use crate::format::{FloatValue, Format};

    macro_rules! on_machine {
        ($format:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
            if $format == Format::F32 {
                let $x = f32::from_bits(Format::F32.to_bits($a) as u32);
                let $y = f32::from_bits(Format::F32.to_bits($b) as u32);
                Some(Format::F32.from_bits(u64::from(($body).to_bits())))
            } else if $format == Format::F64 {
                let $x = f64::from_bits(Format::F64.to_bits($a));
                let $y = f64::from_bits(Format::F64.to_bits($b));
                Some(Format::F64.from_bits(($body).to_bits()))
            } else {
                None
            }
        };
    }

    pub(super) fn binary(
        op: BinaryOp,
        format: Format,
        a: FloatValue,
        b: FloatValue,
    ) -> Option<FloatValue> {
        match op {
            BinaryOp::FAdd => on_machine!(format, a, b, |x, y| x + y),
            BinaryOp::FSub => on_machine!(format, a, b, |x, y| x - y),
            BinaryOp::FMul => on_machine!(format, a, b, |x, y| x * y),
            BinaryOp::FDiv => on_machine!(format, a, b, |x, y| x / y),
        }
    }

    pub(super) fn sqrt(format: Format, a: FloatValue) -> Option<FloatValue> {
        on_machine!(format, a, a, |x, _unused| x.sqrt())
    }
}
