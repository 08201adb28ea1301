//! Parsing of `--args` values (decimal, hex floats, inf/nan, integers, `[a,b,...]` arrays)
//! into exact argument bits for a function's parameters, and formatting of floats back.

use fpscout_ir::{FloatTy, Function, Param, ScalarTy, Type};
use fpscout_walk::concrete::ArgBits;
use serde_json::{json, Value};

/// Splits `a,b,[c,d],e` at top-level commas.
pub fn split_top_level(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '[' => {
                depth += 1;
                cur.push(ch);
            }
            ']' => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("unbalanced ']' in '{s}'"));
                }
                cur.push(ch);
            }
            ',' if depth == 0 => out.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(ch),
        }
    }
    if depth != 0 {
        return Err(format!("unbalanced '[' in '{s}'"));
    }
    if !cur.trim().is_empty() || !out.is_empty() {
        out.push(cur.trim().to_string());
    }
    Ok(out)
}

/// Parses a hexadecimal float literal such as `0x1.8p3` or `-0x1p-1074` exactly into f64
/// bits (`None` when it is not one or does not fit exactly after rounding).
fn parse_hex_float(s: &str, ty: FloatTy) -> Option<u64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let body = body
        .strip_prefix("0x")
        .or_else(|| body.strip_prefix("0X"))?;
    let (mant, exp) = match body.find(['p', 'P']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int_part, frac_part) = match mant.find('.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    // Value = digits · 2^(exp − 4·len(frac)); keep up to 124 significant bits and a
    // sticky bit for the rest, which is enough to round correctly to 53 bits.
    let digits: String = format!("{int_part}{frac_part}");
    let mut mantissa: u128 = 0;
    let mut scale = exp - 4 * frac_part.len() as i64;
    let mut sticky = false;
    for c in digits.chars() {
        let d = c.to_digit(16)? as u128;
        if mantissa >> 120 != 0 {
            // Further digits only shift the value; remember whether any were nonzero.
            sticky |= d != 0;
            scale += 4;
        } else {
            mantissa = (mantissa << 4) | d;
        }
    }
    let bits = round_to_float(mantissa, sticky, scale, ty);
    let sign = if neg {
        match ty {
            FloatTy::F32 => 0x8000_0000,
            FloatTy::F64 => 0x8000_0000_0000_0000,
        }
    } else {
        0
    };
    Some(bits | sign)
}

/// Rounds `mantissa · 2^scale` (+ a sticky remainder) to the nearest float, ties to even.
fn round_to_float(mut mantissa: u128, sticky: bool, mut scale: i64, ty: FloatTy) -> u64 {
    let (prec, emin, emax, frac_bits) = match ty {
        FloatTy::F32 => (24i64, -126i64, 127i64, 23u32),
        FloatTy::F64 => (53, -1022, 1023, 52),
    };
    if mantissa == 0 {
        return 0;
    }
    // Normalise so the value is m · 2^scale with m having exactly `prec` bits (or fewer
    // for subnormals), collecting shifted-out bits for rounding.
    let nbits = 128 - mantissa.leading_zeros() as i64;
    let exponent = nbits - 1 + scale; // value in [2^exponent, 2^(exponent+1))
    let target_lsb = if exponent < emin {
        emin - (prec - 1)
    } else {
        exponent - (prec - 1)
    };
    let shift = target_lsb - scale;
    let (mut half, mut rest_nonzero) = (false, sticky);
    if shift > 0 {
        if shift > 127 {
            rest_nonzero |= mantissa != 0;
            mantissa = 0;
        } else {
            let dropped = mantissa & ((1u128 << shift) - 1);
            half = dropped >> (shift - 1) & 1 == 1;
            rest_nonzero |= dropped & ((1u128 << (shift - 1)) - 1) != 0;
            mantissa >>= shift;
        }
        scale = target_lsb;
    } else if shift < 0 {
        mantissa <<= -shift;
        scale = target_lsb;
    }
    if half && (rest_nonzero || mantissa & 1 == 1) {
        mantissa += 1;
    }
    // Renormalise after a carry.
    if mantissa >> prec != 0 {
        mantissa >>= 1;
        scale += 1;
    }
    let exp_field_bias = match ty {
        FloatTy::F32 => 127i64,
        FloatTy::F64 => 1023,
    };
    let inf = ((2 * exp_field_bias + 1) as u64) << frac_bits;
    if mantissa >> (prec - 1) == 0 {
        // Subnormal (or zero after rounding).
        return mantissa as u64;
    }
    let e = scale + prec - 1;
    if e > emax {
        return inf;
    }
    let field = (e + exp_field_bias) as u64;
    (field << frac_bits) | (mantissa as u64 & ((1u64 << frac_bits) - 1))
}

/// Parses one float literal for a parameter of type `ty`.
pub fn parse_float(s: &str, ty: FloatTy) -> Result<u64, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let (neg, mag) = match lower.strip_prefix('-') {
        Some(r) => (true, r.to_string()),
        None => (false, lower.strip_prefix('+').unwrap_or(&lower).to_string()),
    };
    let sign = |bits: u64| -> u64 {
        if !neg {
            return bits;
        }
        bits | match ty {
            FloatTy::F32 => 0x8000_0000,
            FloatTy::F64 => 0x8000_0000_0000_0000,
        }
    };
    match mag.as_str() {
        "inf" | "infinity" => {
            return Ok(sign(match ty {
                FloatTy::F32 => u64::from(f32::INFINITY.to_bits()),
                FloatTy::F64 => f64::INFINITY.to_bits(),
            }))
        }
        "nan" => {
            return Ok(sign(match ty {
                FloatTy::F32 => 0x7fc0_0000,
                FloatTy::F64 => 0x7ff8_0000_0000_0000,
            }))
        }
        _ => {}
    }
    if let Some(hex) = lower.strip_prefix("bits:") {
        let h = hex.trim_start_matches("0x");
        let bits = u64::from_str_radix(h, 16)
            .map_err(|_| format!("'{t}' is not valid raw bits (bits:0x...)"))?;
        if ty == FloatTy::F32 && bits > u64::from(u32::MAX) {
            return Err(format!("'{t}' does not fit in 32 bits"));
        }
        return Ok(bits);
    }
    if mag.starts_with("0x") {
        return parse_hex_float(t, ty).ok_or_else(|| format!("'{t}' is not a valid hex float"));
    }
    match ty {
        FloatTy::F64 => t.parse::<f64>().map(f64::to_bits),
        FloatTy::F32 => t.parse::<f32>().map(|v| u64::from(v.to_bits())),
    }
    .map_err(|_| format!("'{t}' is not a number (decimal, hex float like 0x1p-1022, inf, -inf, nan or bits:0x...)"))
}

/// Parses an integer literal (decimal or 0x hex, possibly negative) into `width` bits.
pub fn parse_int(s: &str, width: u32) -> Result<u64, String> {
    let t = s.trim();
    let (neg, mag) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let v = if let Some(h) = mag.strip_prefix("0x").or_else(|| mag.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        mag.parse::<u64>()
    }
    .map_err(|_| format!("'{t}' is not an integer"))?;
    let (min, max): (i128, i128) = (-(1i128 << (width - 1)), (1i128 << width) - 1);
    let signed = if neg { -(v as i128) } else { v as i128 };
    if signed < min || signed > max {
        return Err(format!("'{t}' does not fit in {width} bits"));
    }
    Ok(fpscout_ir::truncate_bits(signed as u64, width))
}

/// Parses `--args` for `f`'s parameters.
pub fn parse_args(f: &Function, text: &str) -> Result<Vec<ArgBits>, String> {
    let parts = split_top_level(text)?;
    if parts.len() != f.params.len() {
        let sig: Vec<String> = f
            .params
            .iter()
            .map(|p| param_desc(p.ty, p.pointee))
            .collect();
        return Err(format!(
            "{} takes {} argument{} ({}), {} given",
            f.display_name,
            f.params.len(),
            if f.params.len() == 1 { "" } else { "s" },
            sig.join(", "),
            parts.len()
        ));
    }
    let mut out = Vec::with_capacity(parts.len());
    for (i, (p, s)) in f.params.iter().zip(&parts).enumerate() {
        let ctx = |e: String| format!("argument {} ('{}'): {e}", i + 1, p.name);
        let v = match p.ty {
            Type::Scalar(ScalarTy::Float(ft)) => ArgBits::Scalar(parse_float(s, ft).map_err(ctx)?),
            Type::Scalar(ScalarTy::Int(w)) => ArgBits::Scalar(parse_int(s, w).map_err(ctx)?),
            Type::Scalar(ScalarTy::Ptr) => {
                let inner = s
                    .strip_prefix('[')
                    .and_then(|r| r.strip_suffix(']'))
                    .ok_or_else(|| {
                        ctx(format!(
                            "pointer parameter expects an array like [1,2,3], got '{s}'"
                        ))
                    })?;
                let elem = p.pointee.unwrap_or(ScalarTy::Float(FloatTy::F64));
                let mut elems = Vec::new();
                for e in split_top_level(inner).map_err(ctx)? {
                    elems.push(match elem {
                        ScalarTy::Float(ft) => parse_float(&e, ft).map_err(ctx)?,
                        ScalarTy::Int(w) => parse_int(&e, w).map_err(ctx)?,
                        ScalarTy::Ptr => {
                            return Err(ctx("pointers to pointers are not supported".into()))
                        }
                    });
                }
                ArgBits::Array(elems)
            }
            other => return Err(ctx(format!("parameters of type {other} are not supported"))),
        };
        out.push(v);
    }
    Ok(out)
}

/// A short description of a parameter for messages (`double`, `double[]`, `i32`).
pub fn param_desc(ty: Type, pointee: Option<ScalarTy>) -> String {
    match (ty, pointee) {
        (Type::Scalar(ScalarTy::Ptr), Some(p)) => format!("{p}[]"),
        (Type::Scalar(ScalarTy::Ptr), None) => "double[]".into(),
        (t, _) => t.to_string(),
    }
}

/// Formats float bits as a C99 hex float (`0x1.8p+3`, `-0x0.0000000000001p-1022`, `inf`).
pub fn hex_float(bits: u64, ty: FloatTy) -> String {
    let (frac_bits, exp_bits, bias) = match ty {
        FloatTy::F32 => (23u32, 8u32, 127i64),
        FloatTy::F64 => (52, 11, 1023),
    };
    let sign = bits >> (frac_bits + exp_bits) & 1 == 1;
    let exp = ((bits >> frac_bits) & ((1 << exp_bits) - 1)) as i64;
    let frac = bits & ((1u64 << frac_bits) - 1);
    let s = if sign { "-" } else { "" };
    if exp == (1 << exp_bits) - 1 {
        return if frac == 0 {
            format!("{s}inf")
        } else {
            format!("{s}nan(0x{frac:x})")
        };
    }
    // Print the fraction in whole hex digits: pad f32's 23 bits to 24.
    let (digits, frac_val) = match ty {
        FloatTy::F32 => (6usize, frac << 1),
        FloatTy::F64 => (13, frac),
    };
    let mut hex = format!("{frac_val:0digits$x}");
    while hex.ends_with('0') {
        hex.pop();
    }
    let dot = if hex.is_empty() {
        String::new()
    } else {
        format!(".{hex}")
    };
    if exp == 0 {
        if frac == 0 {
            return format!("{s}0x0p+0");
        }
        return format!("{s}0x0{dot}p{}", 1 - bias);
    }
    let e = exp - bias;
    format!("{s}0x1{dot}p{}{e}", if e >= 0 { "+" } else { "" })
}

/// Shortest decimal that reads back to the same float.
pub fn decimal(bits: u64, ty: FloatTy) -> String {
    match ty {
        FloatTy::F32 => format!("{:?}", f32::from_bits(bits as u32)),
        FloatTy::F64 => format!("{:?}", f64::from_bits(bits)),
    }
}

/// Inputs as `[{name, value: {hex, decimal}}]` (arrays as `values`), as every printer
/// shows them.
pub fn inputs_json(params: &[Param], input: &[ArgBits]) -> Value {
    let items: Vec<Value> = params
        .iter()
        .zip(input)
        .map(|(p, a)| {
            let elem = match (p.ty, p.pointee) {
                (Type::Scalar(s), _) if s != ScalarTy::Ptr => s,
                (_, Some(e)) => e,
                _ => ScalarTy::Float(FloatTy::F64),
            };
            let one = |b: u64| match elem {
                ScalarTy::Float(ft) => json!({"hex": hex_float(b, ft), "decimal": decimal(b, ft)}),
                ScalarTy::Int(w) => json!({"int": fpscout_ir::sign_extend(b, w)}),
                ScalarTy::Ptr => json!({"bits": format!("{b:#x}")}),
            };
            match a {
                ArgBits::Scalar(b) => json!({"name": p.name, "value": one(*b)}),
                ArgBits::Array(v) => {
                    json!({"name": p.name, "values": v.iter().map(|&b| one(b)).collect::<Vec<_>>()})
                }
            }
        })
        .collect();
    Value::Array(items)
}

/// Inputs as `x = 0x1p+0 (1), a = [..]`.
pub fn inputs_text(params: &[Param], input: &[ArgBits]) -> String {
    let v = inputs_json(params, input);
    let show = |x: &Value| -> String {
        if let Some(h) = x.get("hex") {
            format!(
                "{} ({})",
                h.as_str().unwrap_or(""),
                x["decimal"].as_str().unwrap_or("")
            )
        } else if let Some(i) = x.get("int") {
            i.to_string()
        } else {
            x.to_string()
        }
    };
    v.as_array()
        .map(|items| {
            items
                .iter()
                .map(|it| {
                    let name = it["name"].as_str().unwrap_or("?");
                    match it.get("values") {
                        Some(vals) => format!(
                            "{name} = [{}]",
                            vals.as_array()
                                .map(|a| a.iter().map(show).collect::<Vec<_>>().join(", "))
                                .unwrap_or_default()
                        ),
                        None => format!("{name} = {}", show(&it["value"])),
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// The inputs as `fpscout run --args` reads them (exact hex floats).
pub fn run_args(params: &[Param], input: &[ArgBits]) -> String {
    params
        .iter()
        .zip(input)
        .map(|(p, a)| {
            let elem = match (p.ty, p.pointee) {
                (Type::Scalar(s), _) if s != ScalarTy::Ptr => s,
                (_, Some(e)) => e,
                _ => ScalarTy::Float(FloatTy::F64),
            };
            let one = |b: u64| match elem {
                // NaNs by their bits: the payload is part of the input.
                ScalarTy::Float(ft) if is_nan(b, ft) => format!("bits:{b:#x}"),
                ScalarTy::Float(ft) => hex_float(b, ft),
                ScalarTy::Int(w) => fpscout_ir::sign_extend(b, w).to_string(),
                ScalarTy::Ptr => format!("bits:{b:#x}"),
            };
            match a {
                ArgBits::Scalar(b) => one(*b),
                ArgBits::Array(v) => format!(
                    "[{}]",
                    v.iter().map(|&b| one(b)).collect::<Vec<_>>().join(",")
                ),
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn is_nan(bits: u64, ty: FloatTy) -> bool {
    match ty {
        FloatTy::F64 => f64::from_bits(bits).is_nan(),
        FloatTy::F32 => f32::from_bits(bits as u32).is_nan(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_floats_parse_exactly() {
        assert_eq!(
            parse_float("0x1p-1022", FloatTy::F64).unwrap(),
            f64::MIN_POSITIVE.to_bits()
        );
        assert_eq!(
            parse_float("0x1.fffffffffffffp+1023", FloatTy::F64).unwrap(),
            f64::MAX.to_bits()
        );
        assert_eq!(parse_float("0x1p-1074", FloatTy::F64).unwrap(), 1);
        assert_eq!(
            parse_float("-0x1.8p3", FloatTy::F64).unwrap(),
            (-12.0f64).to_bits()
        );
        assert_eq!(parse_float("0x1p-149", FloatTy::F32).unwrap(), 1);
        assert_eq!(
            parse_float("0x1.fffffep+127", FloatTy::F32).unwrap(),
            u64::from(f32::MAX.to_bits())
        );
        // Rounds to nearest even: 1 + 2^-53 is a tie → 1.0; one more bit → next float.
        assert_eq!(
            parse_float("0x1.00000000000008p0", FloatTy::F64).unwrap(),
            1.0f64.to_bits()
        );
        assert_eq!(
            parse_float("0x1.00000000000009p0", FloatTy::F64).unwrap(),
            1.0f64.to_bits() + 1
        );
        assert_eq!(
            parse_float("0x1p1024", FloatTy::F64).unwrap(),
            f64::INFINITY.to_bits()
        );
        assert_eq!(
            parse_float("0x.8p1", FloatTy::F64).unwrap(),
            1.0f64.to_bits()
        );
    }

    #[test]
    fn decimal_and_specials_parse() {
        assert_eq!(
            parse_float("1e308", FloatTy::F64).unwrap(),
            1e308f64.to_bits()
        );
        assert_eq!(
            parse_float("-inf", FloatTy::F64).unwrap(),
            f64::NEG_INFINITY.to_bits()
        );
        assert_eq!(parse_float("nan", FloatTy::F32).unwrap(), 0x7fc0_0000);
        assert_eq!(
            parse_float("-0", FloatTy::F64).unwrap(),
            0x8000_0000_0000_0000
        );
        assert_eq!(
            parse_float("0.1", FloatTy::F32).unwrap(),
            u64::from(0.1f32.to_bits())
        );
        assert_eq!(
            parse_float("bits:0x7ff0000000000001", FloatTy::F64).unwrap(),
            0x7ff0_0000_0000_0001
        );
        assert!(parse_float("abc", FloatTy::F64).is_err());
        assert!(parse_float("0x1.g", FloatTy::F64).is_err());
    }

    #[test]
    fn integers_and_lists() {
        assert_eq!(parse_int("-1", 32).unwrap(), 0xffff_ffff);
        assert_eq!(parse_int("0x10", 8).unwrap(), 16);
        assert!(parse_int("300", 8).is_err());
        assert_eq!(
            split_top_level("1,[2,3],4").unwrap(),
            vec!["1", "[2,3]", "4"]
        );
        assert!(split_top_level("[1,2").is_err());
        assert_eq!(split_top_level("").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn hex_float_round_trips() {
        for v in [
            1.0f64,
            -12.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            0.1,
            -0.0,
            0.0,
            f64::INFINITY,
        ] {
            let s = hex_float(v.to_bits(), FloatTy::F64);
            assert_eq!(parse_float(&s, FloatTy::F64).unwrap(), v.to_bits(), "{s}");
        }
        for v in [1.0f32, 0.1, f32::MAX, 1e-45, -3.5] {
            let s = hex_float(u64::from(v.to_bits()), FloatTy::F32);
            assert_eq!(
                parse_float(&s, FloatTy::F32).unwrap(),
                u64::from(v.to_bits()),
                "{s}"
            );
        }
        assert_eq!(hex_float(1.5f64.to_bits(), FloatTy::F64), "0x1.8p+0");
        assert_eq!(
            hex_float(f64::NAN.to_bits(), FloatTy::F64),
            "nan(0x8000000000000)"
        );
    }
}
