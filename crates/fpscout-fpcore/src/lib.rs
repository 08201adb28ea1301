//! Reads FPBench FPCore 2.0 files and translates each `FPCore` into a C function.
//!
//! This is a front end only (DESIGN §3): it produces C text plus, per function, the
//! argument ranges found in `:pre`, and stops there. Typical use:
//!
//! ```
//! let cores = fpscout_fpcore::parse_file("(FPCore (x) :name \"f\" :pre (<= 0 x 1) (+ x 1))")?;
//! let t = fpscout_fpcore::to_c(&cores)?;
//! assert!(t.c_source.contains("double f(double x)"));
//! assert_eq!(t.functions[0].ranges[0].lo, 0.0);
//! # Ok::<(), fpscout_fpcore::FpCoreError>(())
//! ```
//!
//! It also holds the mathematical reference evaluator ([`Reference`], issue #32): an FPCore
//! expression's real value at given inputs, correctly rounded to binary64 or binary32 with
//! MPFR, and [`measure`] for the error of a computed result against it.

mod emit;
mod number;
mod pre;
mod reference;
mod reference_c;
mod sexp;

use std::fmt;
use std::sync::Arc;

pub use emit::{to_c, to_c_lenient, Arg, CFunction, Range, Translation};
pub use number::Precision;
pub use reference::{
    measure, Measured, Reference, ReferenceError, ReferenceValue, MAX_PRECISION, START_PRECISION,
};
pub use reference_c::{CFloat, NoCEquivalent};
pub use sexp::{Sexp, SexpKind};

/// A line and column (both from 1, column in characters) in the FPCore text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

impl Pos {
    /// The position of byte `offset` of `src`.
    pub fn at(src: &str, offset: usize) -> Pos {
        let mut offset = offset.min(src.len());
        while !src.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &src[..offset];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Pos { line, col }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Everything that can go wrong; each names where (line:col), and from the structure
/// on, which FPCore (0-based index in the file) and the offending text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FpCoreError {
    #[error("{pos}: syntax error: {msg}")]
    Syntax { pos: Pos, msg: String },
    #[error("{pos}: FPCore #{core}: malformed {what}: `{text}`")]
    Malformed {
        pos: Pos,
        core: usize,
        what: String,
        text: String,
    },
    #[error("{pos}: FPCore #{core}: unsupported precision `{precision}` (only binary64 and binary32 have C types)")]
    UnsupportedPrecision {
        pos: Pos,
        core: usize,
        precision: String,
    },
    #[error("{pos}: FPCore #{core}: unsupported operation `{op}` in `{text}`")]
    UnsupportedOperation {
        pos: Pos,
        core: usize,
        op: String,
        text: String,
    },
    #[error("{pos}: FPCore #{core}: array arguments are not supported: `{text}`")]
    UnsupportedArray { pos: Pos, core: usize, text: String },
    #[error("{pos}: FPCore #{core}: unsupported property value `{text}`")]
    UnsupportedProperty { pos: Pos, core: usize, text: String },
    #[error("{pos}: FPCore #{core}: unbound variable `{name}`")]
    UnboundVariable { pos: Pos, core: usize, name: String },
    #[error("{pos}: FPCore #{core}: {msg} in `{text}`")]
    Type {
        pos: Pos,
        core: usize,
        msg: String,
        text: String,
    },
}

/// One `(FPCore ...)` form, structurally checked; its meaning is checked by [`to_c`].
#[derive(Debug, Clone, PartialEq)]
pub struct FpCore {
    /// 0-based index among the FPCores of the file.
    pub index: usize,
    /// The optional identifier of FPCore 2.0's `(FPCore name (args) ...)`.
    pub ident: Option<String>,
    /// The `:name` property, unquoted.
    pub name: Option<String>,
    /// Argument forms as written: a symbol, `(! props... x)` or `(x dims...)`.
    pub args: Vec<Sexp>,
    /// Properties in order, keys without the colon.
    pub props: Vec<(String, Sexp)>,
    pub body: Sexp,
    /// The whole form.
    pub form: Sexp,
    /// The file text, for positions and offending text in later errors.
    pub source: Arc<str>,
}

impl FpCore {
    /// The value of property `key` (without colon).
    pub fn prop(&self, key: &str) -> Option<&Sexp> {
        self.props.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub(crate) fn pos(&self, e: &Sexp) -> Pos {
        Pos::at(&self.source, e.start)
    }

    /// Source text of `e`, shortened for messages.
    pub(crate) fn text(&self, e: &Sexp) -> String {
        shorten(e.text(&self.source))
    }

    pub(crate) fn malformed(&self, e: &Sexp, what: &str) -> FpCoreError {
        FpCoreError::Malformed {
            pos: self.pos(e),
            core: self.index,
            what: what.to_string(),
            text: self.text(e),
        }
    }
}

fn shorten(s: &str) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 100 {
        let cut: String = one_line.chars().take(97).collect();
        format!("{cut}...")
    } else {
        one_line
    }
}

/// Reads an FPCore string literal's text, quotes removed and escapes undone.
pub(crate) fn unquote(atom: &str) -> Option<String> {
    let inner = atom.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push(chars.next().unwrap_or('\\'));
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Parses the text of an FPCore file into its FPCores, checking their structure
/// (`(FPCore ident? (args) :prop value ... body)`); operations, precisions and
/// variables are checked later by [`to_c`], so one unsupported core does not hide the others.
pub fn parse_file(text: &str) -> Result<Vec<FpCore>, FpCoreError> {
    let source: Arc<str> = Arc::from(text);
    let forms = sexp::parse_all(text)?;
    let mut cores = Vec::with_capacity(forms.len());
    for (index, form) in forms.into_iter().enumerate() {
        let mut core = FpCore {
            index,
            ident: None,
            name: None,
            args: Vec::new(),
            props: Vec::new(),
            body: form.clone(),
            form: form.clone(),
            source: source.clone(),
        };
        let items = match form.list() {
            Some(items) if items.first().and_then(Sexp::atom) == Some("FPCore") => items,
            _ => return Err(core.malformed(&form, "top-level form, expected (FPCore ...)")),
        };
        let mut i = 1;
        if let Some(id) = items.get(i).and_then(Sexp::atom) {
            core.ident = Some(id.to_string());
            i += 1;
        }
        match items.get(i).and_then(Sexp::list) {
            Some(args) => core.args = args.to_vec(),
            None => return Err(core.malformed(&form, "FPCore, expected an argument list")),
        }
        i += 1;
        // Properties come in `:key value` pairs; the one expression left is the body.
        while items.len() > i + 1 {
            let key = items[i]
                .atom()
                .and_then(|a| a.strip_prefix(':'))
                .filter(|k| !k.is_empty())
                .ok_or_else(|| core.malformed(&items[i], "property, expected :name value"))?;
            core.props.push((key.to_string(), items[i + 1].clone()));
            i += 2;
        }
        match items.get(i) {
            Some(body) if body.atom().is_some_and(|a| a.starts_with(':')) => {
                return Err(core.malformed(body, "property, a :name without value"))
            }
            Some(body) if items.len() == i + 1 => core.body = body.clone(),
            _ => return Err(core.malformed(&form, "FPCore, expected a body expression")),
        }
        if let Some(n) = core.prop("name") {
            let name = n.atom().and_then(unquote);
            if name.is_none() {
                return Err(core.malformed(n, ":name, expected a string"));
            }
            core.name = name;
        }
        cores.push(core);
    }
    Ok(cores)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structure() {
        let src =
            ";; header\n(FPCore f (x [y]) :name \"a \\\"b\\\"\" :cite (k) (+ x y))\n(FPCore () 1)";
        let cores = parse_file(src).unwrap();
        assert_eq!(cores.len(), 2);
        assert_eq!(cores[0].ident.as_deref(), Some("f"));
        assert_eq!(cores[0].name.as_deref(), Some("a \"b\""));
        assert_eq!(cores[0].args.len(), 2);
        assert_eq!(cores[0].props.len(), 2);
        assert_eq!(cores[0].body.text(src), "(+ x y)");
        assert!(cores[1].args.is_empty());
    }

    #[test]
    fn structural_errors_have_positions() {
        let e = parse_file("(FPCore (x)\n  :name \"n\" :pre)").unwrap_err();
        assert!(matches!(e, FpCoreError::Malformed { .. }), "{e}");
        let e = parse_file("(FPCore (x) 1)\n(foo)").unwrap_err();
        assert_eq!(
            e.to_string(),
            "2:1: FPCore #1: malformed top-level form, expected (FPCore ...): `(foo)`"
        );
        let e = parse_file("(FPCore (x) :name x x)").unwrap_err();
        assert!(e.to_string().starts_with("1:19:"), "{e}");
        let e = parse_file("(FPCore (x)\n (+ x 1)").unwrap_err();
        assert!(matches!(e, FpCoreError::Syntax { .. }), "{e}");
    }
}
