//! Exact numbers between Z3, rug and IEEE floats: floats to exact Z3 reals, model values
//! (huge rationals or algebraic numbers) to exact rationals, and rationals rounded to the
//! nearest float of a format (ties to even, with subnormals).

use fpscout_ir::FloatTy;
use rug::float::Round;
use rug::{Float, Rational};
use std::ffi::CStr;
use z3::ast::{Ast, Real};

/// The exact value of a finite double as a Z3 real.
pub fn float_to_real(x: f64) -> Real {
    let q = Rational::from_f64(x).unwrap_or_default();
    rational_to_real(&q)
}

/// A small rational constant (Debian's Z3 4.8.12 lacks `Z3_mk_real_int64`, which
/// `Real::from_rational` needs, so numerals go through strings).
pub fn small_real(num: i64, den: u64) -> Real {
    Real::from_rational_str(&num.to_string(), &den.to_string()).expect("valid numeral")
}

pub fn rational_to_real(q: &Rational) -> Real {
    let (n, d) = (q.numer().to_string(), q.denom().to_string());
    Real::from_rational_str(&n, &d).expect("decimal numerator and denominator form a Z3 numeral")
}

fn numeral_string(ast: &Real) -> Option<String> {
    raw_numeral_string(ast.get_ctx().get_z3_context(), ast.get_z3_ast())
}

/// The decimal `p/q` text of a numeral AST, read at once from the raw pointer.
fn raw_numeral_string(ctx: z3_sys::Z3_context, ast: z3_sys::Z3_ast) -> Option<String> {
    // SAFETY: `ast` is live in this thread's context; Z3 returns a string it owns until the
    // next call on the context, which we copy at once.
    unsafe {
        if !z3_sys::Z3_is_numeral_ast(ctx, ast) {
            return None;
        }
        let p = z3_sys::Z3_get_numeral_string(ctx, ast);
        if p.is_null() {
            return None;
        }
        Some(CStr::from_ptr(p).to_string_lossy().into_owned())
    }
}

/// The exact value of a model's real (a rational numeral). Algebraic numbers (irrational
/// roots) are approximated by the midpoint of an isolating interval narrower than
/// 10^-`digits`, which is far below any float's resolution at the scale of the bound.
pub fn real_value(ast: &Real, digits: u32) -> Option<Rational> {
    if let Some(s) = numeral_string(ast) {
        return Rational::parse(&s).ok().map(Rational::from);
    }
    let ctx = ast.get_ctx().get_z3_context();
    // SAFETY: as above. The bounds are read immediately, without wrapping them in owned
    // ASTs: with Debian's Z3 4.8.12 dropping such wrappers crashes in Z3_dec_ref.
    let (lo, hi) = unsafe {
        if !z3_sys::Z3_is_algebraic_number(ctx, ast.get_z3_ast()) {
            return None;
        }
        let lo = z3_sys::Z3_get_algebraic_number_lower(ctx, ast.get_z3_ast(), digits)?;
        let lo = raw_numeral_string(ctx, lo)?;
        let hi = z3_sys::Z3_get_algebraic_number_upper(ctx, ast.get_z3_ast(), digits)?;
        let hi = raw_numeral_string(ctx, hi)?;
        (lo, hi)
    };
    let lo = Rational::from(Rational::parse(&lo).ok()?);
    let hi = Rational::from(Rational::parse(&hi).ok()?);
    Some((lo + hi) / 2u32)
}

/// Rounds an exact rational to the nearest float of `ty` (ties to even, subnormals and
/// overflow to infinity as IEEE prescribes); returns the float's bits.
pub fn round_to_float(q: &Rational, ty: FloatTy) -> u64 {
    let prec = ty.precision();
    let (mut f, dir) = Float::with_val_round(prec, q, Round::Nearest);
    f.subnormalize_ieee_round(dir, Round::Nearest);
    match ty {
        FloatTy::F64 => f.to_f64().to_bits(),
        FloatTy::F32 => u64::from(f.to_f32().to_bits()),
    }
}

/// The floats immediately below and above `q` (equal when `q` is a float).
pub fn floats_around(q: &Rational, ty: FloatTy) -> (u64, u64) {
    let prec = ty.precision();
    let down = {
        let (mut f, dir) = Float::with_val_round(prec, q, Round::Down);
        f.subnormalize_ieee_round(dir, Round::Down);
        f
    };
    let up = {
        let (mut f, dir) = Float::with_val_round(prec, q, Round::Up);
        f.subnormalize_ieee_round(dir, Round::Up);
        f
    };
    match ty {
        FloatTy::F64 => (down.to_f64().to_bits(), up.to_f64().to_bits()),
        FloatTy::F32 => (
            u64::from(down.to_f32().to_bits()),
            u64::from(up.to_f32().to_bits()),
        ),
    }
}

/// The exact rational value of a finite float's bits.
pub fn float_value(bits: u64, ty: FloatTy) -> Option<Rational> {
    match ty {
        FloatTy::F64 => Rational::from_f64(f64::from_bits(bits)),
        FloatTy::F32 => Rational::from_f32(f32::from_bits(bits as u32)),
    }
}

#[cfg(test)]
mod tests {
    use super::small_real;
    use super::*;
    use z3::{SatResult, Solver};

    fn q(s: &str) -> Rational {
        Rational::from(Rational::parse(s).unwrap())
    }

    #[test]
    fn rationals_round_to_nearest_even() {
        assert_eq!(
            round_to_float(&q("1/3"), FloatTy::F64),
            (1.0f64 / 3.0).to_bits()
        );
        assert_eq!(
            round_to_float(&q("1/10"), FloatTy::F32),
            u64::from(0.1f32.to_bits())
        );
        // 1 + 2^-53 is exactly halfway between 1 and its successor: ties go to even (1).
        let half_ulp = Rational::from((1u64 << 53) + 1) / Rational::from(1u64 << 53);
        assert_eq!(round_to_float(&half_ulp, FloatTy::F64), 1.0f64.to_bits());
        let three_halves = Rational::from((1u64 << 53) + 3) / Rational::from(1u64 << 53);
        assert_eq!(
            round_to_float(&three_halves, FloatTy::F64),
            1.0f64.to_bits() + 2
        );
    }

    #[test]
    fn huge_integers_and_tiny_rationals() {
        // 10^400 is beyond DBL_MAX: rounds to infinity.
        let big = Rational::from(rug::Integer::from(rug::Integer::u_pow_u(10, 400)));
        assert_eq!(round_to_float(&big, FloatTy::F64), f64::INFINITY.to_bits());
        // 2^-1075 is halfway between 0 and the smallest subnormal: ties to even → 0.
        let half_min = Rational::from((rug::Integer::from(1), rug::Integer::from(1) << 1075u32));
        assert_eq!(round_to_float(&half_min, FloatTy::F64), 0);
        // Slightly more than that rounds up to the smallest subnormal.
        let above = Rational::from((rug::Integer::from(3), rug::Integer::from(1) << 1076u32));
        assert_eq!(round_to_float(&above, FloatTy::F64), 1);
        // A subnormal that is not representable exactly rounds within the subnormal grid.
        let sub =
            q("1/3") * Rational::from((rug::Integer::from(1), rug::Integer::from(1) << 1070u32));
        let bits = round_to_float(&sub, FloatTy::F64);
        assert!(bits > 0 && bits < (1 << 52), "subnormal {bits:#x}");
        assert_eq!(bits, 5); // 2^-1070/3 = 5.33 · 2^-1074
        let (lo, hi) = floats_around(&sub, FloatTy::F64);
        assert_eq!((lo, hi), (5, 6));
        let (lo, hi) = floats_around(&q("2"), FloatTy::F32);
        assert_eq!(lo, hi);
    }

    #[test]
    fn model_values_are_read_exactly() {
        // x * 3 = 1 has the rational model 1/3.
        let x = Real::new_const("x");
        let s = Solver::new();
        s.assert((&x * small_real(3, 1)).eq(small_real(1, 1)));
        assert_eq!(s.check(), SatResult::Sat);
        let v = s.get_model().unwrap().eval(&x, true).unwrap();
        assert_eq!(real_value(&v, 40).unwrap(), q("1/3"));
        // A numerator too big for i64.
        let big = Real::from_rational_str("123456789012345678901234567890", "7").unwrap();
        let s = Solver::new();
        s.assert(x.eq(&big));
        assert_eq!(s.check(), SatResult::Sat);
        let v = s.get_model().unwrap().eval(&x, true).unwrap();
        assert_eq!(
            real_value(&v, 40).unwrap(),
            q("123456789012345678901234567890/7")
        );
    }

    #[test]
    fn algebraic_model_values_are_approximated_tightly() {
        // y² = 2, y > 0: y = √2 is an algebraic number.
        let y = Real::new_const("y");
        let s = Solver::new();
        s.assert((&y * &y).eq(small_real(2, 1)));
        s.assert(y.gt(small_real(0, 1)));
        assert_eq!(s.check(), SatResult::Sat);
        let v = s.get_model().unwrap().eval(&y, true).unwrap();
        let r = real_value(&v, 40).expect("algebraic value");
        assert_eq!(
            round_to_float(&r, FloatTy::F64),
            std::f64::consts::SQRT_2.to_bits()
        );
    }

    #[test]
    fn floats_convert_exactly_to_reals() {
        for v in [0.1f64, f64::MAX, f64::MIN_POSITIVE, 5e-324, -3.5] {
            let r = float_to_real(v);
            let back = real_value(&r, 10).unwrap();
            assert_eq!(round_to_float(&back, FloatTy::F64), v.to_bits());
            assert_eq!(back, Rational::from_f64(v).unwrap());
        }
    }
}
