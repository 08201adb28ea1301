//! Inputs as every printer shows them: JSON values, text, and the `--args` of `fpscout run`.

use fpscout::args::{decimal, hex_float};
use fpscout_ir::{FloatTy, Param, ScalarTy, Type};
use fpscout_walk::concrete::ArgBits;
use serde_json::{json, Value};

/// Inputs as `[{name, hex, decimal}]` (arrays as lists).
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
