//! Argument ranges read from `:pre`: the box the analysis can search; the rest is reported, not lost.

use crate::number::{digits_value, parse_literal, round_exact, Precision};
use crate::{shorten, Sexp};

/// A constant operand of a comparison, as a double.
fn constant(e: &Sexp) -> Option<f64> {
    if let Some(a) = e.atom() {
        if let Some(x) = parse_literal(a) {
            return Some(round_exact(&x, Precision::Binary64));
        }
        return crate::number::named_constant(a).map(|(d, _)| d);
    }
    let l = e.list()?;
    match (l.first()?.atom()?, l.len()) {
        ("-", 2) => constant(&l[1]).map(|v| -v),
        ("digits", 4) => {
            let x = digits_value(l[1].atom()?, l[2].atom()?, l[3].atom()?)?;
            Some(round_exact(&x, Precision::Binary64))
        }
        // `(! :precision p c)` around a constant: the bound is the constant.
        ("!", n) if n >= 2 => constant(&l[n - 1]),
        _ => None,
    }
}

fn conjuncts<'a>(e: &'a Sexp, out: &mut Vec<&'a Sexp>) {
    if let Some(l) = e.list() {
        if l.first().and_then(Sexp::atom) == Some("and") {
            for c in &l[1..] {
                conjuncts(c, out);
            }
            return;
        }
    }
    out.push(e);
}

enum Operand {
    Const(f64),
    Arg(usize),
}

/// Bounds read from one conjunct: `(arg index, lower, upper)`, or `None` if it is not
/// a chain of `<=`/`<` (or `>=`/`>`) over one argument and constants.
fn chain_bounds(e: &Sexp, args: &[String]) -> Option<(usize, Option<f64>, Option<f64>)> {
    let l = e.list()?;
    let op = l.first()?.atom()?;
    let ascending = match op {
        "<=" | "<" => true,
        ">=" | ">" => false,
        _ => return None,
    };
    if l.len() < 3 {
        return None;
    }
    let mut ops = Vec::new();
    for x in &l[1..] {
        let o = if let Some(i) = x.atom().and_then(|a| args.iter().position(|n| n == a)) {
            Operand::Arg(i)
        } else {
            Operand::Const(constant(x)?)
        };
        ops.push(o);
    }
    if !ascending {
        ops.reverse();
    }
    let vars: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter_map(|(k, o)| matches!(o, Operand::Arg(_)).then_some(k))
        .collect();
    let [k] = vars[..] else { return None };
    let Operand::Arg(arg) = ops[k] else {
        return None;
    };
    let consts = |r: &[Operand]| -> Vec<f64> {
        r.iter()
            .filter_map(|o| match o {
                Operand::Const(c) => Some(*c),
                Operand::Arg(_) => None,
            })
            .collect()
    };
    // A chain is ordered, so the nearest constants on each side are the tightest.
    let lo = consts(&ops[..k]).last().copied();
    let hi = consts(&ops[k + 1..]).first().copied();
    if lo.is_some_and(f64::is_nan) || hi.is_some_and(f64::is_nan) {
        return None;
    }
    Some((arg, lo, hi))
}

/// Reads `pre` for the arguments named `args` (FPCore names). Returns, per argument
/// with both bounds, `(index, lo, hi)` in argument order, and the text of every part
/// that does not become a range (other conjuncts, one-sided bounds). Strict `<` gives
/// the same closed range as `<=`: an over-approximation the caller can search.
pub fn ranges(pre: &Sexp, args: &[String], src: &str) -> (Vec<(usize, f64, f64)>, Vec<String>) {
    let mut parts = Vec::new();
    conjuncts(pre, &mut parts);
    let mut bounds: Vec<(Option<f64>, Option<f64>, Vec<String>)> =
        vec![(None, None, Vec::new()); args.len()];
    let mut ignored = Vec::new();
    for part in parts {
        match chain_bounds(part, args) {
            Some((arg, lo, hi)) => {
                let b = &mut bounds[arg];
                if let Some(lo) = lo {
                    b.0 = Some(b.0.map_or(lo, |x: f64| x.max(lo)));
                }
                if let Some(hi) = hi {
                    b.1 = Some(b.1.map_or(hi, |x: f64| x.min(hi)));
                }
                b.2.push(shorten(part.text(src)));
            }
            None => ignored.push(shorten(part.text(src))),
        }
    }
    let mut out = Vec::new();
    for (i, (lo, hi, texts)) in bounds.into_iter().enumerate() {
        match (lo, hi) {
            (Some(lo), Some(hi)) if lo <= hi => out.push((i, lo, hi)),
            // One-sided or empty: no box to search, so the text goes back to the caller.
            _ => ignored.extend(texts),
        }
    }
    (out, ignored)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pre: &str, args: &[&str]) -> (Vec<(usize, f64, f64)>, Vec<String>) {
        let e = crate::sexp::parse_all(pre).unwrap().remove(0);
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        ranges(&e, &args, pre)
    }

    #[test]
    fn chains_and_conjunctions() {
        let (r, ign) = run("(and (<= -4.5 v -0.3) (<= 0.4 w 0.9))", &["u", "v", "w"]);
        assert_eq!(r, vec![(1, -4.5, -0.3), (2, 0.4, 0.9)]);
        assert!(ign.is_empty());
        let (r, ign) = run("(and (< 0 x) (<= x 1) (>= 5 y) (!= x y))", &["x", "y"]);
        assert_eq!(r, vec![(0, 0.0, 1.0)]);
        assert_eq!(ign, vec!["(!= x y)".to_string(), "(>= 5 y)".to_string()]);
        let (r, ign) = run("(<= (- 1) x 1/2)", &["x"]);
        assert_eq!(r, vec![(0, -1.0, 0.5)]);
        assert!(ign.is_empty());
        let (r, ign) = run("(<= 0 x y 1)", &["x", "y"]);
        assert!(r.is_empty());
        assert_eq!(ign, vec!["(<= 0 x y 1)".to_string()]);
        let (r, _) = run("(and (<= 0 x PI) (<= 2 x 3))", &["x"]);
        assert_eq!(r, vec![(0, 2.0, 3.0)]);
        let (r, ign) = run("(<= 3 x 2)", &["x"]);
        assert!(r.is_empty());
        assert_eq!(ign.len(), 1);
    }
}
