//! A reference expression as plain C (`double` or `long double` arithmetic with libm): the fast estimate of the exhaustive sweep, which MPFR then checks where it matters.
//!
//! The C function computes the expression as C would, one rounding per operation, so it
//! is an *approximation* of the real value [`Reference::evaluate`] decides: literals and
//! constants are rounded to the C type, comparisons see rounded operands, and libm's
//! own error adds to each function. Callers must treat its value as an estimate and
//! check whatever they conclude from it (the exhaustive sweep measures its candidates
//! with MPFR and compares the `double` version against the `long double` one).

use rug::Float;

use crate::reference::{constant_value, Expr, Reference};

/// The C floating type the expression is computed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CFloat {
    Double,
    /// x87 extended (64-bit significand) on x86-64.
    LongDouble,
}

impl CFloat {
    fn name(self) -> &'static str {
        match self {
            CFloat::Double => "double",
            CFloat::LongDouble => "long double",
        }
    }

    fn significand_bits(self) -> u32 {
        match self {
            CFloat::Double => 53,
            CFloat::LongDouble => 64,
        }
    }

    /// libm's name for `f` in this type (`sin`, `sinl`).
    fn libm(self, f: &str) -> String {
        match self {
            CFloat::Double => f.to_string(),
            CFloat::LongDouble => format!("{f}l"),
        }
    }
}

/// Why an expression has no C version: an operation libm lacks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{op}` has no C library equivalent (only MPFR evaluates it)")]
pub struct NoCEquivalent {
    pub op: String,
}

/// MPFR functions C's libm has under the same name (glibc: also with an `l` suffix).
const C_BESSEL: &[&str] = &["j0", "j1", "y0", "y1", "jn", "yn"];

impl Reference {
    /// A C definition `static TY NAME(TY s0, ...)` of the expression computed in `ty`
    /// (parameters in [`Reference::params`] order). Needs `<math.h>` and GNU C (`let`
    /// becomes a statement expression). MPFR-only functions (`digamma zeta ai eint li2
    /// beta`) are refused.
    pub fn to_c(&self, name: &str, ty: CFloat) -> Result<String, NoCEquivalent> {
        let t = ty.name();
        let params: Vec<String> = (0..self.params().len())
            .map(|i| format!("{t} s{i}"))
            .collect();
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        let body = c_expr(&self.body, ty)?;
        Ok(format!(
            "static {t} {name}({params}) {{\n  return {body};\n}}\n"
        ))
    }
}

fn c_expr(e: &Expr, ty: CFloat) -> Result<String, NoCEquivalent> {
    let t = ty.name();
    Ok(match e {
        Expr::Num(q, negative_zero) => {
            if *negative_zero {
                format!("(({t})-0.0)")
            } else {
                literal(&Float::with_val(ty.significand_bits(), q), ty)
            }
        }
        Expr::Const("INFINITY") => format!("(({t})INFINITY)"),
        Expr::Const("NAN") => format!("(({t})NAN)"),
        Expr::Const(c) => literal(&constant_value(c, ty.significand_bits()), ty),
        Expr::Bool(b) => (if *b { "1" } else { "0" }).to_string(),
        Expr::Var(slot) => format!("s{slot}"),
        Expr::Call(op, xs) => {
            let args = xs
                .iter()
                .map(|x| c_expr(x, ty))
                .collect::<Result<Vec<_>, _>>()?;
            match (*op, args.as_slice()) {
                ("neg", [a]) => format!("(-{a})"),
                ("+" | "-" | "*" | "/", [a, b]) => format!("({a} {op} {b})"),
                // The order must be an exact integer, as in the reference (undefined else).
                ("jn" | "yn", [n, x]) => format!(
                    "({{ {t} fps_n = {n}; fps_n == ({t})(int)fps_n ? {f}((int)fps_n, {x}) : ({t})NAN; }})",
                    f = ty.libm(op)
                ),
                (f, _) if C_BESSEL.contains(&f) || crate::emit::FUNCTIONS.iter().any(|(g, _)| *g == f) => {
                    format!("{}({})", ty.libm(f), args.join(", "))
                }
                (f, _) => return Err(NoCEquivalent { op: f.to_string() }),
            }
        }
        Expr::Cmp(op, xs) => {
            let xs = xs
                .iter()
                .map(|x| c_expr(x, ty))
                .collect::<Result<Vec<_>, _>>()?;
            let mut terms = Vec::new();
            if *op == "!=" {
                for (i, a) in xs.iter().enumerate() {
                    for b in &xs[i + 1..] {
                        terms.push(format!("({a} != {b})"));
                    }
                }
            } else {
                for w in xs.windows(2) {
                    terms.push(format!("({} {op} {})", w[0], w[1]));
                }
            }
            format!("({})", terms.join(" && "))
        }
        Expr::Logic(op, xs) => {
            let xs = xs
                .iter()
                .map(|x| c_expr(x, ty))
                .collect::<Result<Vec<_>, _>>()?;
            match *op {
                "not" => format!("(!{})", xs.join("")),
                "and" if xs.is_empty() => "1".to_string(),
                "or" if xs.is_empty() => "0".to_string(),
                "and" => format!("({})", xs.join(" && ")),
                _ => format!("({})", xs.join(" || ")),
            }
        }
        Expr::Pred(p, x) => format!("({p}({}) != 0)", c_expr(x, ty)?),
        Expr::If(parts) => {
            let [c, a, b] = parts.as_ref();
            format!(
                "({} ? {} : {})",
                c_expr(c, ty)?,
                c_expr(a, ty)?,
                c_expr(b, ty)?
            )
        }
        Expr::Let(binds, body) => {
            let mut s = String::from("({ ");
            for (slot, init) in binds {
                s.push_str(&format!("{t} s{slot} = {}; ", c_expr(init, ty)?));
            }
            s.push_str(&format!("{}; }})", c_expr(body, ty)?));
            s
        }
    })
}

/// A C literal of exactly this value (already rounded to the type): a hexadecimal
/// floating constant, so that no decimal conversion rounds it again.
fn literal(x: &Float, ty: CFloat) -> String {
    let t = ty.name();
    if x.is_nan() {
        return format!("(({t})NAN)");
    }
    if x.is_infinite() {
        let sign = if x.is_sign_negative() { "-" } else { "" };
        return format!("({sign}({t})INFINITY)");
    }
    if x.is_zero() {
        return format!("(({t})0.0)");
    }
    // significand × 2^exp with an integer significand of at most 64 bits.
    let (m, exp) = x.to_integer_exp().unwrap_or((rug::Integer::new(), 0));
    let negative = m < 0;
    let m = m.abs();
    let suffix = match ty {
        CFloat::Double => "",
        CFloat::LongDouble => "L",
    };
    format!(
        "({}0x{}p{}{suffix})",
        if negative { "-" } else { "" },
        m.to_string_radix(16),
        exp
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_constants_are_exact_hexadecimal() {
        let r = Reference::parse("(+ (* 0.1 x) PI)", &["x"]).unwrap();
        let c = r.to_c("f", CFloat::Double).unwrap();
        // 0.1 rounded to double is 0x1999999999999a × 2^-56.
        assert!(c.contains("0x1999999999999ap-56"), "{c}");
        // π rounded to double: 0x1921fb54442d18 × 2^-51.
        assert!(c.contains("0x1921fb54442d18p-51"), "{c}");
        assert!(c.starts_with("static double f(double s0)"), "{c}");
        let l = r.to_c("g", CFloat::LongDouble).unwrap();
        assert!(l.contains("0xc90fdaa22168c235p-62L"), "{l}");
    }

    #[test]
    fn libm_names_take_the_long_double_suffix_and_mpfr_only_functions_are_refused() {
        let r = Reference::parse(
            "(let ([y (sin x)]) (if (< y 0) (jn 2 y) (lgamma y)))",
            &["x"],
        )
        .unwrap();
        let l = r.to_c("g", CFloat::LongDouble).unwrap();
        assert!(
            l.contains("sinl(s0)") && l.contains("lgammal(") && l.contains("jnl("),
            "{l}"
        );
        let z = Reference::parse("(digamma x)", &["x"]).unwrap();
        assert_eq!(
            z.to_c("h", CFloat::Double),
            Err(NoCEquivalent {
                op: "digamma".into()
            })
        );
    }
}
