//! FPCore numeric literals read exactly and rounded to the target precision as a C compiler would.

use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

/// The floating-point formats a C function can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Precision {
    Binary64,
    Binary32,
}

impl Precision {
    /// Reads an FPCore precision name; `None` for the ones C has no type for.
    pub fn from_name(name: &str) -> Option<Precision> {
        match name {
            "binary64" | "real" => Some(Precision::Binary64),
            "binary32" => Some(Precision::Binary32),
            _ => None,
        }
    }

    pub fn c_type(self) -> &'static str {
        match self {
            Precision::Binary64 => "double",
            Precision::Binary32 => "float",
        }
    }

    /// Suffix of libm functions and of literals in this precision.
    pub fn suffix(self) -> &'static str {
        match self {
            Precision::Binary64 => "",
            Precision::Binary32 => "f",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Precision::Binary64 => "binary64",
            Precision::Binary32 => "binary32",
        }
    }

    fn bits(self) -> u32 {
        match self {
            Precision::Binary64 => 53,
            Precision::Binary32 => 24,
        }
    }
}

/// A literal's exact value: sign kept apart so that `-0.0` stays a negative zero.
#[derive(Debug, Clone, PartialEq)]
pub struct Exact {
    pub negative: bool,
    pub magnitude: Rational,
    /// The literal was written in decimal, so its text is itself a valid C literal.
    pub decimal: bool,
}

// Values beyond these binary exponents overflow or vanish in both formats;
// clamping exponents to them keeps the rounded result while bounding the work.
const MAX_LOG2: i64 = 1200;

fn split_sign(text: &str) -> (bool, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    }
}

fn parse_exponent(s: &str) -> Option<i64> {
    let (neg, digits) = split_sign(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Saturate: anything this large overflows or underflows anyway.
    let v = digits
        .parse::<i64>()
        .unwrap_or(i64::MAX / 4)
        .min(i64::MAX / 4);
    Some(if neg { -v } else { v })
}

/// Splits `int.frac` into the digit string and the count of fraction digits.
fn mantissa_digits(s: &str, radix: u32) -> Option<(String, i64)> {
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().chain(frac.chars()).all(|c| c.is_digit(radix)) {
        return None;
    }
    let digits = format!("{int}{frac}");
    let trimmed = digits.trim_start_matches('0');
    let digits = if trimmed.is_empty() { "0" } else { trimmed };
    Some((digits.to_string(), frac.len() as i64))
}

/// `m * base^e`, with the exponent clamped so the magnitude stays within what rounding needs.
fn scaled(m: Integer, base: u32, e: i64) -> Rational {
    if m == 0 {
        return Rational::new();
    }
    let log2_base = f64::from(base).log2();
    let bits = m.significant_bits() as i64;
    let hi = ((MAX_LOG2 as f64) / log2_base).ceil() as i64 + 1;
    let lo = -(((MAX_LOG2 + bits) as f64) / log2_base).ceil() as i64 - 1;
    let e = e.clamp(lo, hi);
    let p = Integer::from(base).pow(e.unsigned_abs() as u32);
    if e >= 0 {
        Rational::from(m * p)
    } else {
        Rational::from((m, p))
    }
}

/// Reads a numeric literal (decimal, hexadecimal or rational); `None` if `text` is not one.
pub fn parse_literal(text: &str) -> Option<Exact> {
    let (negative, body) = split_sign(text);
    let lower = body.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        let (mant, exp) = match hex.split_once('p') {
            Some((m, e)) => (m, parse_exponent(e)?),
            None => (hex, 0),
        };
        let (digits, frac) = mantissa_digits(mant, 16)?;
        let m = Integer::from_str_radix(&digits, 16).ok()?;
        let e = exp.saturating_sub(4 * frac);
        return Some(Exact {
            negative,
            magnitude: scaled(m, 2, e),
            decimal: false,
        });
    }
    if let Some((n, d)) = lower.split_once('/') {
        let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !ok(n) || !ok(d) {
            return None;
        }
        let n = Integer::from_str_radix(n, 10).ok()?;
        let d = Integer::from_str_radix(d, 10).ok()?;
        if d == 0 {
            return None;
        }
        return Some(Exact {
            negative,
            magnitude: Rational::from((n, d)),
            decimal: false,
        });
    }
    let (mant, exp) = match lower.split_once('e') {
        Some((m, e)) => (m, parse_exponent(e)?),
        None => (lower.as_str(), 0),
    };
    let (digits, frac) = mantissa_digits(mant, 10)?;
    let m = Integer::from_str_radix(&digits, 10).ok()?;
    Some(Exact {
        negative,
        magnitude: scaled(m, 10, exp.saturating_sub(frac)),
        decimal: true,
    })
}

/// The value of `(digits m e b)`: `m * b^e`.
pub fn digits_value(m: &str, e: &str, b: &str) -> Option<Exact> {
    let (negative, m) = split_sign(m);
    fn int(s: &str) -> Option<&str> {
        (!s.is_empty() && s.bytes().all(|c| c.is_ascii_digit())).then_some(s)
    }
    let m = Integer::from_str_radix(int(m)?, 10).ok()?;
    let e = parse_exponent(e)?;
    let b: u32 = int(b)?.parse().ok()?;
    if b < 2 {
        return None;
    }
    Some(Exact {
        negative,
        magnitude: scaled(m, b, e),
        decimal: false,
    })
}

/// Rounds an exact value to nearest-even in `p`, with IEEE subnormals and overflow.
pub fn round_exact(x: &Exact, p: Precision) -> f64 {
    let (mut f, ord) = Float::with_val_round(p.bits(), &x.magnitude, Round::Nearest);
    // One rounding only: subnormalizing takes the first rounding's direction into account.
    f.subnormalize_ieee_round(ord, Round::Nearest);
    let v = match p {
        Precision::Binary64 => f.to_f64(),
        Precision::Binary32 => f64::from(f.to_f32()),
    };
    if x.negative {
        -v
    } else {
        v
    }
}

/// A C literal of type `p` with exactly the value `v` (which must be representable in `p`).
pub fn c_hex_literal(v: f64, p: Precision) -> String {
    let s = p.suffix();
    if v.is_nan() {
        return "NAN".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-INFINITY" } else { "INFINITY" }.into();
    }
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if v == 0.0 {
        return format!("{sign}0.0{s}");
    }
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let mut frac = bits & ((1u64 << 52) - 1);
    let exp = if biased == 0 {
        // Subnormal double: renormalise so the literal reads 0x1.xxxp-N.
        let k = 63 - i64::from(frac.leading_zeros());
        let e = k - 1074;
        frac = (frac << (52 - k)) & ((1u64 << 52) - 1);
        e
    } else {
        biased - 1023
    };
    let mut hex = format!("{frac:013x}");
    while hex.ends_with('0') {
        hex.pop();
    }
    if hex.is_empty() {
        format!("{sign}0x1p{exp}{s}")
    } else {
        format!("{sign}0x1.{hex}p{exp}{s}")
    }
}

/// The C text for a literal in precision `p`: its own decimal text when that is a C
/// literal the compiler rounds to the same normal value, otherwise an exact hex float.
pub fn c_literal(text: &str, x: &Exact, p: Precision) -> String {
    let v = round_exact(x, p);
    let min_normal = match p {
        Precision::Binary64 => f64::MIN_POSITIVE,
        Precision::Binary32 => f64::from(f32::MIN_POSITIVE),
    };
    let exact_zero = x.magnitude == 0;
    // Overflowing, underflowing or subnormal decimals would draw -Wliteral-range warnings.
    if x.decimal && v.is_finite() && (v.abs() >= min_normal || (exact_zero && v == 0.0)) {
        let mut t = text.trim_start_matches('+').to_ascii_lowercase();
        if !t.contains('.') && !t.contains('e') {
            t.push_str(".0");
        }
        return format!("{t}{}", p.suffix());
    }
    c_hex_literal(v, p)
}

/// FPCore's named constants, correctly rounded in binary64 and binary32.
pub(crate) fn named_constant(name: &str) -> Option<(f64, f32)> {
    use std::f32::consts as f;
    use std::f64::consts as d;
    Some(match name {
        "E" => (d::E, f::E),
        "LOG2E" => (d::LOG2_E, f::LOG2_E),
        "LOG10E" => (d::LOG10_E, f::LOG10_E),
        "LN2" => (d::LN_2, f::LN_2),
        "LN10" => (d::LN_10, f::LN_10),
        "PI" => (d::PI, f::PI),
        "PI_2" => (d::FRAC_PI_2, f::FRAC_PI_2),
        "PI_4" => (d::FRAC_PI_4, f::FRAC_PI_4),
        "M_1_PI" => (d::FRAC_1_PI, f::FRAC_1_PI),
        "M_2_PI" => (d::FRAC_2_PI, f::FRAC_2_PI),
        "M_2_SQRTPI" => (d::FRAC_2_SQRT_PI, f::FRAC_2_SQRT_PI),
        "SQRT2" => (d::SQRT_2, f::SQRT_2),
        "SQRT1_2" => (d::FRAC_1_SQRT_2, f::FRAC_1_SQRT_2),
        "INFINITY" => (f64::INFINITY, f32::INFINITY),
        "NAN" => (f64::NAN, f32::NAN),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str, p: Precision) -> f64 {
        round_exact(&parse_literal(text).unwrap(), p)
    }

    #[test]
    fn literals_round_correctly() {
        assert_eq!(r("0.1", Precision::Binary64), 0.1);
        assert_eq!(r("0.1", Precision::Binary32), f64::from(0.1f32));
        assert_eq!(r("1/3", Precision::Binary64), 1.0 / 3.0);
        assert_eq!(r("1/3", Precision::Binary32), f64::from(1.0f32 / 3.0));
        assert_eq!(r("-0x1.8p3", Precision::Binary64), -12.0);
        assert_eq!(r("1e400", Precision::Binary64), f64::INFINITY);
        assert_eq!(r("1e-400", Precision::Binary64), 0.0);
        assert_eq!(r("4.9e-324", Precision::Binary64), 5e-324);
        assert_eq!(r("1e39", Precision::Binary32), f64::INFINITY);
        assert!(r("-0.0", Precision::Binary64).is_sign_negative());
        assert_eq!(
            r("1e99999999999999999999", Precision::Binary64),
            f64::INFINITY
        );
        assert!(parse_literal("1/0").is_none());
        assert!(parse_literal("x").is_none());
        assert!(parse_literal("1.2.3").is_none());
        assert!(parse_literal(".").is_none());
        let d = digits_value("3", "-1", "2").unwrap();
        assert_eq!(round_exact(&d, Precision::Binary64), 1.5);
    }

    #[test]
    fn c_text() {
        let b64 = Precision::Binary64;
        let b32 = Precision::Binary32;
        let lit = |t: &str, p| c_literal(t, &parse_literal(t).unwrap(), p);
        assert_eq!(lit("1", b64), "1.0");
        assert_eq!(lit("0.1", b32), "0.1f");
        assert_eq!(lit("1/3", b64), "0x1.5555555555555p-2");
        assert_eq!(lit("1/3", b32), "0x1.555556p-2f");
        assert_eq!(
            lit("1e-320", b64),
            "0x1.fa00000000000p-1064".replace("00000000000", "")
        );
        assert_eq!(lit("1e400", b64), "INFINITY");
        assert_eq!(c_hex_literal(5e-324, b64), "0x1p-1074");
    }
}
