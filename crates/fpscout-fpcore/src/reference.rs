//! The mathematical reference evaluator (issue #32): an FPCore expression's real value at given inputs, correctly rounded to binary64 or binary32, with a heuristic Ziv loop.
//!
//! How a value is computed:
//!
//! * Literals, inputs and `+ - * / fma fabs copysign fmax fmin fdim floor ceil trunc round
//!   nearbyint fmod remainder` on exact operands are computed **exactly** with rationals,
//!   so `(* 0.1 3)` (0.1 read exactly) or `(- (+ x 1e-40) x)` need no precision at all.
//! * Everything else is computed with MPFR at a working precision `p`, each operation
//!   rounded to nearest. Every approximate value carries an estimate of its number of
//!   correct leading bits: for `+`/`-` from the cancellation (exponents of operands
//!   against the result), for `*`/`/` the worse operand's minus one, for functions by
//!   re-evaluating them with each inexact argument moved by its estimated error in both
//!   directions. An approximate zero obtained by cancellation is "nothing known".
//!   Exact dyadic arguments (inputs and their sums and products) reach MPFR exactly, at
//!   their own precision, so `(lgamma (- 1 x))` at x = 1e-310 needs no precision growth.
//! * [`Reference::evaluate`] runs a **heuristic Ziv loop**, not an interval proof: it
//!   evaluates at `p` = [`START_PRECISION`], then doubles `p` up to [`MAX_PRECISION`]. A
//!   precision *decides* when no comparison (or `copysign` sign, or jn/yn order) was
//!   uncertain, and rounding the value moved by its estimated error both ways gives the
//!   same target float. The answer is accepted at once when it is exact, otherwise when
//!   two successive precisions decide the same rounded result (same class: finite with
//!   the same bits, same infinity, or both undefined). Failing that at the cap, it is
//!   [`ReferenceValue::Undecided`].
//! * A comparison is uncertain when its operands' difference is within their estimated
//!   errors (e.g. equal at `p` without being exact): the evaluation continues with the
//!   ordering seen at `p` but that precision cannot decide, so a larger one must.
//! * `(- e e)` with two syntactically identical operands is exactly zero (or undefined if
//!   `e` is infinite or undefined), so `(- (sin x) (sin x))` is an exact 0. Zeros that are
//!   mathematically exact but computed otherwise (`(- (sin x) (sin (+ x 0)))`) stay
//!   `Undecided`.
//! * Signed zeros follow IEEE where it is cheap: exact `x - x` is +0, `-0` inputs and
//!   literals stay -0 through negation, `fabs`, `copysign` and products, and a nonzero
//!   value that underflows rounds to a zero of its own sign.
//! * Rounding to the target is one rounding from the working value (or from the exact
//!   rational) straight into the target's significand width at that exponent, so
//!   subnormals are rounded once and there is no double rounding; a value whose
//!   rounding reaches 2^1024 (2^128 for binary32) is an overflow to infinity.
//! * Values beyond MPFR's exponent range (about 2^±2^30: `(exp 1e10)`) are kept as an
//!   overflowed infinity / underflowed zero while only added, multiplied or rounded;
//!   fed to a function, a division or a comparison they make the result `Undecided`
//!   rather than wrong (`(log (exp 1e10))` is not a pole).
//!
//! What the reference means, where FPCore or C leave room:
//!
//! * It is the real-number meaning: numeric literals are exact rationals (`0.1` is 1/10,
//!   not the double nearest it), `(! :precision ...)` annotations and `cast` are
//!   ignored. Literals beyond about 2^±1200 are clamped by the literal reader
//!   (`number.rs`), which keeps their rounding in both formats but not their exact value.
//! * Undefined results follow C/MPFR: NaN where C returns NaN (`(sqrt -1)`, `(/ 0 0)`,
//!   `(tgamma -3)`, `(- INFINITY INFINITY)`); poles are infinities (`(/ 1 0)`,
//!   `(log 0)`, `(lgamma -3)`). Comparisons with an undefined operand are neither true
//!   nor false: an `if` on one is undefined (C would take the else branch).
//!   `fmax`/`fmin` ignore an undefined operand, as C does.
//! * `jn`/`yn` need an exactly integral order (else undefined); orders beyond ±1000 are
//!   not evaluated (`Undecided`, MPFR takes seconds). `ai` is not evaluated below -256
//!   (MPFR 4.2.0's `mpfr_ai` is very slow there and aborts for huge arguments) and is an
//!   underflowed positive zero above 256: rounded or scaled down it stays +0, but
//!   multiplied by a factor above 1 (or divided by one below) it is `Undecided`, since
//!   the product may be back in range (GSL's scaled Airy functions). `beta` is
//!   `mpfr_beta` (MPFR 4.2), undefined
//!   at its poles as MPFR defines. `gamma_inc` is refused (`Unsupported`): MPFR 4.2.0's
//!   `mpfr_gamma_inc` aborts or does not finish for some arguments.
//! * Costs: exact and well-conditioned expressions take microseconds; each doubling
//!   of precision re-evaluates everything, and an `Undecided` result has gone up to
//!   [`MAX_PRECISION`] bits (tens of milliseconds for `(tan PI_2)`). MPFR's special
//!   functions can be slow for huge arguments or orders (`jn` with a large order and
//!   argument).

use std::cmp::Ordering;

use rug::float::{Constant, Round, Special};
use rug::ops::{AssignRound, Pow};
use rug::{Float, Rational};

use crate::emit::{FUNCTIONS, PREDICATES};
use crate::number::{digits_value, parse_literal, Precision};
use crate::{shorten, FpCore, Pos, Sexp};

/// First working precision of the Ziv loop (bits).
pub const START_PRECISION: u32 = 128;
/// The Ziv loop gives up (`Undecided`) after evaluating at this precision (bits).
pub const MAX_PRECISION: u32 = 1 << 14;
/// Rationals beyond this many bits (numerator plus denominator) become approximations.
const RATIONAL_BITS: u32 = 1 << 16;
/// `jn`/`yn` orders beyond this are not evaluated (`Undecided`): MPFR is too slow.
const MAX_BESSEL_ORDER: u32 = 1000;
/// `ai` beyond this magnitude: an underflowed zero for positive arguments, not
/// evaluated (`Undecided`) for negative ones.
const AI_LIMIT: u32 = 256;
/// Accuracy of an exact value.
const EXACT: i64 = i64::MAX / 4;

/// Why an expression cannot be a reference. Positions are line:col in the text parsed
/// (the expression for [`Reference::parse`], the file for [`Reference::from_core`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReferenceError {
    #[error("{pos}: syntax error: {msg}")]
    Syntax { pos: Pos, msg: String },
    #[error("{pos}: unknown operator `{op}`; known operators: {known}")]
    UnknownOperator { pos: Pos, op: String, known: String },
    #[error("{pos}: unknown variable `{name}`; known variables and constants: {known}")]
    UnknownVariable {
        pos: Pos,
        name: String,
        known: String,
    },
    #[error("{pos}: `{op}` expects {expected} argument(s), got {got}")]
    Arity {
        pos: Pos,
        op: String,
        expected: String,
        got: usize,
    },
    #[error("{pos}: {what} is not supported by the reference evaluator")]
    Unsupported { pos: Pos, what: String },
    #[error("{pos}: malformed {what}: `{text}`")]
    Malformed {
        pos: Pos,
        what: String,
        text: String,
    },
    #[error("{pos}: {msg} in `{text}`")]
    Type { pos: Pos, msg: String, text: String },
}

/// The value of a reference at some inputs, in a target format.
#[derive(Debug, Clone, PartialEq)]
pub enum ReferenceValue {
    /// Rounding to the target is decided. `value` is the correctly rounded result (an f64,
    /// exactly the binary32 value for binary32), `exact` an approximation of the real
    /// value at the working precision `precision` that decided it (exact when the value
    /// was computed exactly and fits), for errors finer than an ulp.
    Finite {
        value: f64,
        exact: Float,
        precision: u32,
    },
    /// The result is ±infinity: an exact infinity or pole (`overflow: false`, e.g.
    /// `(/ 1 0)`, `(log 0)`, `INFINITY`), or a finite real value that rounds to infinity in
    /// the target (`overflow: true`).
    Infinite { negative: bool, overflow: bool },
    /// Undefined at this input (log of a negative, 0/0, sqrt(-1), a comparison with an
    /// undefined operand deciding an `if`, ...): what C returns as NaN.
    Undefined,
    /// Rounding could not be decided up to [`MAX_PRECISION`]; `approx` is the last
    /// rounded approximation, to report, not to trust.
    Undecided { approx: f64 },
}

/// An FPCore expression over named parameters, ready to be evaluated exactly.
///
/// ```
/// use fpscout_fpcore::{Precision, Reference, ReferenceValue};
/// let r = Reference::parse("(- (log1p x) x)", &["x"])?;
/// let ReferenceValue::Finite { value, .. } = r.evaluate(&[1e-8], Precision::Binary64) else {
///     panic!()
/// };
/// assert_eq!(value, -4.999999966666667e-17);
/// # Ok::<(), fpscout_fpcore::ReferenceError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    pub(crate) body: Expr,
    params: Vec<String>,
    slots: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    Real,
    Bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    Num(Rational, bool),
    Const(&'static str),
    Bool(bool),
    Var(usize),
    /// Real operations: `+ - * /` (binary), `neg`, and the functions.
    Call(&'static str, Vec<Expr>),
    Cmp(&'static str, Vec<Expr>),
    /// `and`, `or`, `not`.
    Logic(&'static str, Vec<Expr>),
    Pred(&'static str, Box<Expr>),
    If(Box<[Expr; 3]>),
    /// Bindings into fresh slots, evaluated in order (scoping was resolved when parsing).
    Let(Vec<(usize, Expr)>, Box<Expr>),
}

/// Functions the reference knows beyond FPCore's (MPFR special functions), with arity.
/// `jn`/`yn` take an integer order first; `beta` is MPFR's `mpfr_beta`. (`gamma_inc` is
/// refused: MPFR 4.2.0's can abort or not terminate.)
const EXTRA_FUNCTIONS: &[(&str, usize)] = &[
    ("jn", 2),
    ("yn", 2),
    ("j0", 1),
    ("j1", 1),
    ("y0", 1),
    ("y1", 1),
    ("digamma", 1),
    ("zeta", 1),
    ("ai", 1),
    ("eint", 1),
    ("li2", 1),
    ("beta", 2),
];
const COMPARISONS: &[&str] = &["<", ">", "<=", ">=", "==", "!="];
const CONSTANTS: &[&str] = &[
    "E",
    "LOG2E",
    "LOG10E",
    "PI",
    "PI_2",
    "PI_4",
    "M_1_PI",
    "M_2_PI",
    "M_2_SQRTPI",
    "LN2",
    "LN10",
    "SQRT2",
    "SQRT1_2",
    "INFINITY",
    "NAN",
];
const UNSUPPORTED: &[&str] = &[
    "while", "while*", "for", "for*", "tensor", "tensor*", "ref", "dim", "size", "array",
];

fn known_operators() -> String {
    let mut all: Vec<&str> = vec!["+", "-", "*", "/"];
    all.extend(FUNCTIONS.iter().map(|(f, _)| *f));
    all.extend(EXTRA_FUNCTIONS.iter().map(|(f, _)| *f));
    all.extend(COMPARISONS);
    all.extend([
        "and", "or", "not", "if", "let", "let*", "!", "cast", "digits",
    ]);
    all.extend(PREDICATES);
    all.join(" ")
}

struct Parser<'s> {
    src: &'s str,
    scope: Vec<(String, usize)>,
    slots: usize,
}

impl Parser<'_> {
    fn pos(&self, e: &Sexp) -> Pos {
        Pos::at(self.src, e.start)
    }

    fn malformed(&self, e: &Sexp, what: &str) -> ReferenceError {
        ReferenceError::Malformed {
            pos: self.pos(e),
            what: what.to_string(),
            text: shorten(e.text(self.src)),
        }
    }

    fn type_error(&self, e: &Sexp, msg: &str) -> ReferenceError {
        ReferenceError::Type {
            pos: self.pos(e),
            msg: msg.to_string(),
            text: shorten(e.text(self.src)),
        }
    }

    fn real(&mut self, e: &Sexp) -> Result<Expr, ReferenceError> {
        match self.expr(e)? {
            (x, Ty::Real) => Ok(x),
            (_, Ty::Bool) => Err(self.type_error(e, "a boolean where a number is expected")),
        }
    }

    fn boolean(&mut self, e: &Sexp) -> Result<Expr, ReferenceError> {
        match self.expr(e)? {
            (x, Ty::Bool) => Ok(x),
            (_, Ty::Real) => Err(self.type_error(e, "a number where a boolean is expected")),
        }
    }

    fn atom(&mut self, e: &Sexp, a: &str) -> Result<(Expr, Ty), ReferenceError> {
        if let Some(x) = parse_literal(a) {
            return Ok((num_expr(x), Ty::Real));
        }
        if let Some((_, slot)) = self.scope.iter().rev().find(|(n, _)| n == a) {
            return Ok((Expr::Var(*slot), Ty::Real));
        }
        match a {
            "TRUE" => return Ok((Expr::Bool(true), Ty::Bool)),
            "FALSE" => return Ok((Expr::Bool(false), Ty::Bool)),
            _ => {}
        }
        if let Some(c) = CONSTANTS.iter().find(|c| **c == a) {
            return Ok((Expr::Const(c), Ty::Real));
        }
        if a.starts_with('"') {
            return Err(self.malformed(e, "expression, a string"));
        }
        let mut known: Vec<&str> = Vec::new();
        for (n, _) in &self.scope {
            if !known.contains(&n.as_str()) {
                known.push(n);
            }
        }
        known.extend(CONSTANTS);
        known.extend(["TRUE", "FALSE"]);
        Err(ReferenceError::UnknownVariable {
            pos: self.pos(e),
            name: a.to_string(),
            known: known.join(" "),
        })
    }

    fn expr(&mut self, e: &Sexp) -> Result<(Expr, Ty), ReferenceError> {
        if let Some(a) = e.atom() {
            return self.atom(e, a);
        }
        let l = e.list().unwrap_or(&[]);
        let Some(op) = l.first().and_then(Sexp::atom) else {
            return Err(self.malformed(e, "expression, expected (operation args...)"));
        };
        let args = &l[1..];
        let arity = |expected: &str, ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(ReferenceError::Arity {
                    pos: self.pos(e),
                    op: op.to_string(),
                    expected: expected.to_string(),
                    got: args.len(),
                })
            }
        };
        let real = |x: Expr| Ok((x, Ty::Real));
        match op {
            "+" | "*" => {
                arity("2 or more", args.len() >= 2)?;
                let name = if op == "+" { "+" } else { "*" };
                let mut acc = self.real(&args[0])?;
                for a in &args[1..] {
                    let b = self.real(a)?;
                    acc = Expr::Call(name, vec![acc, b]);
                }
                real(acc)
            }
            "-" => {
                arity("1 or 2", matches!(args.len(), 1 | 2))?;
                let xs = args
                    .iter()
                    .map(|a| self.real(a))
                    .collect::<Result<_, _>>()?;
                real(Expr::Call(if args.len() == 1 { "neg" } else { "-" }, xs))
            }
            "/" => {
                arity("2", args.len() == 2)?;
                let xs = args
                    .iter()
                    .map(|a| self.real(a))
                    .collect::<Result<_, _>>()?;
                real(Expr::Call("/", xs))
            }
            "!" => {
                arity("1 or more", !args.is_empty())?;
                // Precision annotations do not change the mathematical value.
                self.expr(&args[args.len() - 1])
            }
            "cast" => {
                arity("1", args.len() == 1)?;
                // The reference is the real value: a cast does not round it.
                real(self.real(&args[0])?)
            }
            "digits" => {
                arity("3", args.len() == 3)?;
                let parts: Option<Vec<&str>> = args.iter().map(Sexp::atom).collect();
                let x = parts
                    .and_then(|p| digits_value(p[0], p[1], p[2]))
                    .ok_or_else(|| {
                        self.malformed(e, "`digits`, expected integers m e b with b >= 2")
                    })?;
                real(num_expr(x))
            }
            "if" => {
                arity("3", args.len() == 3)?;
                let c = self.boolean(&args[0])?;
                let (t, tt) = self.expr(&args[1])?;
                let (f, tf) = self.expr(&args[2])?;
                if tt != tf {
                    return Err(self.type_error(e, "branches of different types"));
                }
                Ok((Expr::If(Box::new([c, t, f])), tt))
            }
            "let" | "let*" => {
                arity("2", args.len() == 2)?;
                let Some(bindings) = args[0].list() else {
                    return Err(self.malformed(&args[0], "`let` bindings"));
                };
                let mut inits = Vec::new();
                let mut names = Vec::new();
                let depth = self.scope.len();
                for b in bindings {
                    let (name, init) = match b.list() {
                        Some([n, init]) if n.atom().is_some() => (n.atom().unwrap_or(""), init),
                        _ => return Err(self.malformed(b, "`let` binding, expected [name expr]")),
                    };
                    let x = self.real(init)?;
                    let slot = self.slots;
                    self.slots += 1;
                    inits.push((slot, x));
                    if op == "let*" {
                        self.scope.push((name.to_string(), slot));
                    } else {
                        names.push((name.to_string(), slot));
                    }
                }
                self.scope.extend(names);
                let body = self.expr(&args[1]);
                self.scope.truncate(depth);
                let (body, ty) = body?;
                Ok((Expr::Let(inits, Box::new(body)), ty))
            }
            "gamma_inc" => Err(ReferenceError::Unsupported {
                pos: self.pos(e),
                what: "`gamma_inc` (MPFR 4.2.0's mpfr_gamma_inc aborts or does not finish \
                       for some arguments, e.g. (gamma_inc 1 1e308))"
                    .into(),
            }),
            _ if UNSUPPORTED.contains(&op) => Err(ReferenceError::Unsupported {
                pos: self.pos(e),
                what: format!("`{op}` (loops and tensors)"),
            }),
            _ => {
                if let Some(c) = COMPARISONS.iter().find(|c| **c == op) {
                    arity("2 or more", args.len() >= 2)?;
                    let xs = args
                        .iter()
                        .map(|a| self.real(a))
                        .collect::<Result<_, _>>()?;
                    return Ok((Expr::Cmp(c, xs), Ty::Bool));
                }
                if let Some(c) = ["and", "or", "not"].iter().find(|c| **c == op) {
                    if op == "not" {
                        arity("1", args.len() == 1)?;
                    }
                    let xs = args
                        .iter()
                        .map(|a| self.boolean(a))
                        .collect::<Result<_, _>>()?;
                    return Ok((Expr::Logic(c, xs), Ty::Bool));
                }
                if let Some(c) = PREDICATES.iter().find(|c| **c == op) {
                    arity("1", args.len() == 1)?;
                    let x = self.real(&args[0])?;
                    return Ok((Expr::Pred(c, Box::new(x)), Ty::Bool));
                }
                let Some(&(name, n)) = FUNCTIONS
                    .iter()
                    .chain(EXTRA_FUNCTIONS)
                    .find(|(f, _)| *f == op)
                else {
                    return Err(ReferenceError::UnknownOperator {
                        pos: self.pos(e),
                        op: op.to_string(),
                        known: known_operators(),
                    });
                };
                arity(&n.to_string(), args.len() == n)?;
                let xs = args
                    .iter()
                    .map(|a| self.real(a))
                    .collect::<Result<_, _>>()?;
                real(Expr::Call(name, xs))
            }
        }
    }
}

fn num_expr(x: crate::number::Exact) -> Expr {
    let zero = x.magnitude == 0;
    let q = if x.negative {
        -x.magnitude
    } else {
        x.magnitude
    };
    Expr::Num(q, x.negative && zero)
}

/// A named constant's value at precision `p` bits (every constant but `INFINITY` and
/// `NAN`), rounded to nearest.
pub(crate) fn constant_value(c: &str, p: u32) -> Float {
    let pi = || Float::with_val(p, Constant::Pi);
    match c {
        "E" => Float::with_val(p, 1).exp(),
        "LOG2E" => Float::with_val(p, Constant::Log2).recip(),
        "LOG10E" => Float::with_val(p, 10).ln().recip(),
        "PI" => pi(),
        "PI_2" => pi() / 2u32,
        "PI_4" => pi() / 4u32,
        "M_1_PI" => pi().recip(),
        "M_2_PI" => pi().recip() * 2u32,
        "M_2_SQRTPI" => pi().recip_sqrt() * 2u32,
        "LN2" => Float::with_val(p, Constant::Log2),
        "LN10" => Float::with_val(p, 10).ln(),
        "SQRT2" => Float::with_val(p, 2).sqrt(),
        _ => Float::with_val(p, 2).recip_sqrt(),
    }
}

impl Reference {
    /// Parses an FPCore expression over the given parameter names, e.g.
    /// `"(- (log1p x) x)"`, `"(lgamma x)"`, `"(jn 1 x)"`. Besides FPCore's operators it
    /// knows the MPFR functions `jn yn j0 j1 y0 y1 digamma zeta ai eint li2 gamma_inc
    /// beta`. Loops and tensors are refused ([`ReferenceError::Unsupported`]).
    pub fn parse(expr: &str, params: &[&str]) -> Result<Reference, ReferenceError> {
        let forms = crate::sexp::parse_all(expr).map_err(syntax)?;
        let form = match forms.as_slice() {
            [one] => one,
            _ => {
                return Err(ReferenceError::Syntax {
                    pos: Pos::at(expr, forms.get(1).map_or(0, |f| f.start)),
                    msg: format!("expected one expression, found {}", forms.len()),
                })
            }
        };
        let params: Vec<String> = params.iter().map(|p| p.to_string()).collect();
        Self::build(expr, form, params)
    }

    /// The reference for a whole FPCore: its body over its arguments (`:pre`, `:precision`
    /// and other properties are ignored; the caller picks the target format).
    pub fn from_core(core: &FpCore) -> Result<Reference, ReferenceError> {
        let src: &str = &core.source;
        let mut params = Vec::new();
        for a in &core.args {
            let name = match (a.atom(), a.list()) {
                (Some(n), _) => Some(n),
                (_, Some(l)) if l.first().and_then(Sexp::atom) == Some("!") => {
                    l.last().and_then(Sexp::atom)
                }
                _ => {
                    return Err(ReferenceError::Unsupported {
                        pos: Pos::at(src, a.start),
                        what: format!("array argument `{}`", shorten(a.text(src))),
                    })
                }
            };
            let Some(name) = name else {
                return Err(ReferenceError::Malformed {
                    pos: Pos::at(src, a.start),
                    what: "argument".into(),
                    text: shorten(a.text(src)),
                });
            };
            params.push(name.to_string());
        }
        Self::build(src, &core.body, params)
    }

    fn build(src: &str, form: &Sexp, params: Vec<String>) -> Result<Reference, ReferenceError> {
        let mut p = Parser {
            src,
            scope: params.iter().cloned().zip(0..).collect(),
            slots: params.len(),
        };
        let body = p.real(form)?;
        Ok(Reference {
            body,
            slots: p.slots,
            params,
        })
    }

    /// The parameter names, in the order [`Reference::evaluate`] takes the inputs.
    pub fn params(&self) -> &[String] {
        &self.params
    }

    /// The real value at these inputs (f64; binary32 inputs are exactly representable),
    /// correctly rounded to `target` when the Ziv loop decides it (see the module doc).
    /// Inputs are exact: -0.0 is a negative zero, NaN an undefined input, ±inf an exact
    /// infinity.
    ///
    /// # Panics
    /// If `inputs` and the parameters differ in number.
    pub fn evaluate(&self, inputs: &[f64], target: Precision) -> ReferenceValue {
        assert_eq!(
            inputs.len(),
            self.params.len(),
            "reference over {:?} evaluated with {} inputs",
            self.params,
            inputs.len()
        );
        let fmt = Fmt::of(target);
        let mut prev: Option<Rounded> = None;
        let mut p = START_PRECISION;
        loop {
            let mut ev = Eval {
                p,
                slots: vec![None; self.slots],
                uncertain: false,
                fmt,
            };
            for (i, &x) in inputs.iter().enumerate() {
                ev.slots[i] = Some(Val::Num(input(x, p)));
            }
            let v = ev.num(&self.body);
            let rounded = round_num(&v, fmt);
            let decided = !ev.uncertain && decided(&v, &rounded, fmt, p);
            let exact = match &v {
                Num::Exact(..) => true,
                Num::Approx { acc, .. } => *acc >= EXACT,
            };
            if decided && (exact || prev.as_ref() == Some(&rounded)) {
                return value(v, rounded, p);
            }
            if p >= MAX_PRECISION {
                return ReferenceValue::Undecided {
                    approx: rounded.to_f64(),
                };
            }
            prev = decided.then_some(rounded);
            p *= 2;
        }
    }
}

fn syntax(e: crate::FpCoreError) -> ReferenceError {
    match e {
        crate::FpCoreError::Syntax { pos, msg } => ReferenceError::Syntax { pos, msg },
        other => ReferenceError::Syntax {
            pos: Pos { line: 1, col: 1 },
            msg: other.to_string(),
        },
    }
}

/// A target format: significand bits, MPFR exponent (x = m·2^e, 0.5 <= m < 1) of the
/// smallest normal, and the largest exponent of a finite value.
#[derive(Debug, Clone, Copy)]
struct Fmt {
    bits: i32,
    emin: i32,
    emax: i32,
    precision: Precision,
}

impl Fmt {
    fn of(p: Precision) -> Fmt {
        match p {
            Precision::Binary64 => Fmt {
                bits: 53,
                emin: -1021,
                emax: 1024,
                precision: p,
            },
            Precision::Binary32 => Fmt {
                bits: 24,
                emin: -125,
                emax: 128,
                precision: p,
            },
        }
    }

    fn min_subnormal(self) -> f64 {
        match self.precision {
            Precision::Binary64 => f64::from_bits(1),
            Precision::Binary32 => f64::from(f32::from_bits(1)),
        }
    }
}

/// A value rounded to the target format.
#[derive(Debug, Clone, Copy)]
enum Rounded {
    Finite(f64),
    Inf { negative: bool, overflow: bool },
    Nan,
}

impl PartialEq for Rounded {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Rounded::Finite(a), Rounded::Finite(b)) => a.to_bits() == b.to_bits(),
            (Rounded::Inf { negative: a, .. }, Rounded::Inf { negative: b, .. }) => a == b,
            (Rounded::Nan, Rounded::Nan) => true,
            _ => false,
        }
    }
}

impl Rounded {
    fn to_f64(self) -> f64 {
        match self {
            Rounded::Finite(v) => v,
            Rounded::Inf { negative: true, .. } => f64::NEG_INFINITY,
            Rounded::Inf { .. } => f64::INFINITY,
            Rounded::Nan => f64::NAN,
        }
    }
}

/// Rounds |x| (sign apart) with exponent `e` to the target in one rounding:
/// `round_bits(n)` rounds |x| to nearest with `n` significant bits, `is_low_power`
/// tells whether |x| is exactly 2^(e-1) (a tie halfway to the smallest subnormal).
fn round_to(
    fmt: Fmt,
    negative: bool,
    e: i32,
    is_low_power: impl FnOnce() -> bool,
    round_bits: impl FnOnce(u32) -> Float,
) -> Rounded {
    let bits = if e >= fmt.emin {
        fmt.bits
    } else {
        fmt.bits - (fmt.emin - e)
    };
    let signed = |v: f64| Rounded::Finite(if negative { -v } else { v });
    if bits >= 1 {
        let r = round_bits(bits as u32);
        if r.get_exp().is_some_and(|re| re > fmt.emax) {
            return Rounded::Inf {
                negative,
                overflow: true,
            };
        }
        signed(r.to_f64())
    } else if bits == 0 && !is_low_power() {
        signed(fmt.min_subnormal())
    } else {
        signed(0.0)
    }
}

fn pow2(e: i32) -> Float {
    let mut h = Float::with_val(8, 1);
    h <<= e;
    h
}

fn round_float(f: &Float, fmt: Fmt) -> Rounded {
    if f.is_nan() {
        return Rounded::Nan;
    }
    let negative = f.is_sign_negative();
    if f.is_infinite() {
        return Rounded::Inf {
            negative,
            overflow: false,
        };
    }
    let Some(e) = f.get_exp() else {
        return Rounded::Finite(if negative { -0.0 } else { 0.0 });
    };
    round_to(
        fmt,
        negative,
        e,
        || f.cmp_abs(&pow2(e - 1)) == Some(Ordering::Equal),
        |bits| Float::with_val_round(bits, f.abs_ref(), Round::Nearest).0,
    )
}

fn round_rational(q: &Rational, neg_zero: bool, fmt: Fmt) -> Rounded {
    if *q == 0 {
        return Rounded::Finite(if neg_zero { -0.0 } else { 0.0 });
    }
    let negative = *q < 0;
    let abs = Rational::from(q.abs_ref());
    // Rounding toward zero never crosses a power of two, so the exponent is exact.
    let (low, _) = Float::with_val_round(64, &abs, Round::Zero);
    let e = low.get_exp().unwrap_or(0);
    round_to(
        fmt,
        negative,
        e,
        || low == pow2(e - 1) && low.to_rational().is_some_and(|r| r == abs),
        |bits| Float::with_val_round(bits, &abs, Round::Nearest).0,
    )
}

fn round_num(v: &Num, fmt: Fmt) -> Rounded {
    match v {
        Num::Exact(q, nz) => round_rational(q, *nz, fmt),
        Num::Approx { f, overflow, .. } => match round_float(f, fmt) {
            Rounded::Inf {
                negative,
                overflow: o,
            } => Rounded::Inf {
                negative,
                overflow: o || *overflow,
            },
            r => r,
        },
    }
}

/// Whether the working value, moved by its estimated error either way, rounds to `r`.
fn decided(v: &Num, r: &Rounded, fmt: Fmt, p: u32) -> bool {
    let Num::Approx { f, acc, .. } = v else {
        return true;
    };
    if *acc >= EXACT || f.is_nan() || f.is_infinite() {
        return true;
    }
    if *acc <= 0 {
        return false;
    }
    if f.is_zero() {
        return true;
    }
    let mut d = f.clone();
    d >>= *acc as u32;
    let prec = p + (*acc as u32).min(p) + 4;
    let lo = Float::with_val(prec, f - &d);
    let hi = Float::with_val(prec, f + &d);
    round_float(&lo, fmt) == *r && round_float(&hi, fmt) == *r
}

fn value(v: Num, r: Rounded, p: u32) -> ReferenceValue {
    match r {
        Rounded::Nan => ReferenceValue::Undefined,
        Rounded::Inf { negative, overflow } => ReferenceValue::Infinite { negative, overflow },
        Rounded::Finite(value) => {
            let exact = match v {
                Num::Exact(q, nz) if q == 0 => {
                    Float::with_val(p, if nz { Special::NegZero } else { Special::Zero })
                }
                Num::Exact(q, _) => Float::with_val(p, &q),
                Num::Approx { f, .. } => f,
            };
            ReferenceValue::Finite {
                value,
                exact,
                precision: p,
            }
        }
    }
}

/// A working value: an exact rational (with the sign of a zero), or an MPFR
/// approximation at the working precision with its estimated correct bits (`acc`,
/// [`EXACT`] for exact infinities and NaN) and whether an infinity is an overflow of
/// a finite value.
#[derive(Debug, Clone)]
enum Num {
    Exact(Rational, bool),
    Approx { f: Float, acc: i64, overflow: bool },
}

#[derive(Debug, Clone)]
enum Val {
    Num(Num),
    /// `None`: a comparison with an undefined operand.
    Bool(Option<bool>),
}

fn input(x: f64, p: u32) -> Num {
    match Rational::from_f64(x) {
        Some(q) => Num::Exact(q, x == 0.0 && x.is_sign_negative()),
        None => Num::Approx {
            f: Float::with_val(p, x),
            acc: EXACT,
            overflow: false,
        },
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Nan,
    Inf(bool),
    Finite,
}

fn class(f: &Float) -> Class {
    if f.is_nan() {
        Class::Nan
    } else if f.is_infinite() {
        Class::Inf(f.is_sign_negative())
    } else {
        Class::Finite
    }
}

struct Eval {
    p: u32,
    slots: Vec<Option<Val>>,
    uncertain: bool,
    fmt: Fmt,
}

const INTEGER_VALUED: &[&str] = &["floor", "ceil", "trunc", "round", "nearbyint"];

impl Eval {
    fn nan(&self) -> Num {
        Num::Approx {
            f: Float::with_val(self.p, Special::Nan),
            acc: EXACT,
            overflow: false,
        }
    }

    fn exact(&self, q: Rational, neg_zero: bool) -> Num {
        if q.numer().significant_bits() + q.denom().significant_bits() > RATIONAL_BITS {
            let (f, _) = Float::with_val_round(self.p, &q, Round::Nearest);
            return Num::Approx {
                f,
                acc: i64::from(self.p),
                overflow: false,
            };
        }
        let nz = neg_zero && q == 0;
        Num::Exact(q, nz)
    }

    fn to_float(&self, n: &Num) -> (Float, i64, bool) {
        match n {
            Num::Exact(q, nz) if *q == 0 => (
                Float::with_val(self.p, if *nz { Special::NegZero } else { Special::Zero }),
                EXACT,
                false,
            ),
            Num::Exact(q, _) => {
                // A dyadic rational (every input, sum or product of inputs) is converted
                // exactly, at its own precision, so functions see their exact argument.
                let prec = dyadic_bits(q).map_or(self.p, |b| b.clamp(self.p, RATIONAL_BITS));
                let (f, o) = Float::with_val_round(prec, q, Round::Nearest);
                let acc = if o == Ordering::Equal {
                    EXACT
                } else {
                    i64::from(self.p)
                };
                (f, acc, false)
            }
            Num::Approx { f, acc, overflow } => (f.clone(), *acc, *overflow),
        }
    }

    /// A result rounded with ternary `ord` from operands of accuracy `acc`.
    /// A NaN from an overflowed (really finite) operand is not known to be undefined:
    /// such an evaluation cannot decide.
    fn finish(&mut self, f: Float, ord: Ordering, acc: i64, overflow_in: bool) -> Num {
        if f.is_nan() && overflow_in {
            self.uncertain = true;
        }
        if acc >= EXACT && ord == Ordering::Equal {
            if f.is_finite() {
                let nz = f.is_zero() && f.is_sign_negative();
                return self.exact(f.to_rational().unwrap_or_default(), nz);
            }
            return Num::Approx {
                f,
                acc: EXACT,
                overflow: false,
            };
        }
        let overflow = f.is_infinite() && (ord != Ordering::Equal || overflow_in);
        let acc = if ord == Ordering::Equal {
            acc
        } else {
            acc.min(i64::from(self.p))
        };
        Num::Approx { f, acc, overflow }
    }

    fn num(&mut self, e: &Expr) -> Num {
        match self.eval(e) {
            Val::Num(n) => n,
            Val::Bool(_) => self.nan(),
        }
    }

    fn boolean(&mut self, e: &Expr) -> Option<bool> {
        match self.eval(e) {
            Val::Bool(b) => b,
            Val::Num(_) => None,
        }
    }

    fn eval(&mut self, e: &Expr) -> Val {
        match e {
            Expr::Num(q, nz) => Val::Num(self.exact(q.clone(), *nz)),
            Expr::Const(c) => Val::Num(self.constant(c)),
            Expr::Bool(b) => Val::Bool(Some(*b)),
            Expr::Var(i) => self.slots[*i].clone().unwrap_or(Val::Bool(None)),
            Expr::Call(name, args) => Val::Num(self.call(name, args)),
            Expr::Cmp(op, args) => {
                let xs: Vec<Num> = args.iter().map(|a| self.num(a)).collect();
                let mut result = Some(true);
                for i in 0..xs.len() {
                    for j in i + 1..xs.len() {
                        if *op != "!=" && j != i + 1 {
                            continue;
                        }
                        let holds = self.compare(&xs[i], &xs[j]).map(|o| match *op {
                            "<" => o == Ordering::Less,
                            ">" => o == Ordering::Greater,
                            "<=" => o != Ordering::Greater,
                            ">=" => o != Ordering::Less,
                            "==" => o == Ordering::Equal,
                            _ => o != Ordering::Equal,
                        });
                        result = and(result, holds);
                    }
                }
                Val::Bool(result)
            }
            Expr::Logic(op, args) => {
                let xs: Vec<Option<bool>> = args.iter().map(|a| self.boolean(a)).collect();
                Val::Bool(match *op {
                    "not" => xs.first().copied().flatten().map(|b| !b),
                    "and" => xs.into_iter().fold(Some(true), and),
                    _ if xs.contains(&Some(true)) => Some(true),
                    _ if xs.contains(&None) => None,
                    _ => Some(false),
                })
            }
            Expr::Pred(op, x) => {
                let x = self.num(x);
                Val::Bool(self.predicate(op, &x))
            }
            Expr::If(b) => {
                let [c, t, f] = &**b;
                match self.boolean(c) {
                    Some(true) => self.eval(t),
                    Some(false) => self.eval(f),
                    None => Val::Num(self.nan()),
                }
            }
            Expr::Let(binds, body) => {
                for (slot, init) in binds {
                    let v = self.eval(init);
                    self.slots[*slot] = Some(v);
                }
                self.eval(body)
            }
        }
    }

    fn constant(&self, c: &str) -> Num {
        let p = self.p;
        let f = match c {
            "INFINITY" | "NAN" => {
                return Num::Approx {
                    f: Float::with_val(
                        p,
                        if c == "NAN" {
                            Special::Nan
                        } else {
                            Special::Infinity
                        },
                    ),
                    acc: EXACT,
                    overflow: false,
                }
            }
            _ => constant_value(c, p),
        };
        Num::Approx {
            f,
            acc: i64::from(p) - 2,
            overflow: false,
        }
    }

    fn sign_negative(&self, n: &Num) -> Option<bool> {
        match n {
            Num::Exact(q, nz) => Some(*q < 0 || (*q == 0 && *nz)),
            Num::Approx { f, .. } if f.is_nan() => None,
            Num::Approx { f, .. } => Some(f.is_sign_negative()),
        }
    }

    /// The ordering of two values (`None` if one is undefined); flags the evaluation
    /// uncertain when their difference is within their estimated errors.
    fn compare(&mut self, a: &Num, b: &Num) -> Option<Ordering> {
        if let (Num::Exact(x, _), Num::Exact(y, _)) = (a, b) {
            return Some(x.cmp(y));
        }
        let (fa, acc_a, oa) = self.to_float(a);
        let (fb, acc_b, ob) = self.to_float(b);
        let o = fa.partial_cmp(&fb)?;
        if oa && ob {
            self.uncertain = true;
        }
        if fa.is_finite() && fb.is_finite() {
            if acc_a <= 0 || acc_b <= 0 {
                self.uncertain = true;
            } else {
                let err = |f: &Float, acc: i64| {
                    let mut e = Float::with_val(64, f.abs_ref());
                    if acc < EXACT {
                        e >>= acc as u32;
                        e *= 2u32;
                    } else {
                        e = Float::new(64);
                    }
                    e
                };
                let bound = err(&fa, acc_a) + err(&fb, acc_b);
                let diff = Float::with_val(self.p, &fa - &fb).abs();
                if (acc_a < EXACT || acc_b < EXACT) && diff <= bound {
                    self.uncertain = true;
                }
            }
        }
        Some(o)
    }

    fn predicate(&mut self, op: &str, x: &Num) -> Option<bool> {
        let (f, _, _) = self.to_float(x);
        Some(match op {
            "isnan" => f.is_nan(),
            "isinf" => f.is_infinite(),
            "isfinite" => f.is_finite(),
            "signbit" => return self.sign_negative(x),
            _ => {
                // isnormal: nonzero and at least the target's smallest normal in magnitude.
                f.is_finite()
                    && !f.is_zero()
                    && f.cmp_abs(&pow2(self.fmt.emin - 1)) != Some(Ordering::Less)
            }
        })
    }

    fn call(&mut self, name: &'static str, args: &[Expr]) -> Num {
        if name == "-" && args[0] == args[1] {
            // Identical operands (same expression, same bindings): exactly zero.
            let a = self.num(&args[0]);
            let (f, _, overflow) = self.to_float(&a);
            return if f.is_finite() || overflow {
                Num::Exact(Rational::new(), false)
            } else {
                self.nan()
            };
        }
        let xs: Vec<Num> = args.iter().map(|a| self.num(a)).collect();
        match name {
            "+" => self.add(&xs[0], &xs[1]),
            "-" => {
                let b = self.neg(&xs[1]);
                self.add(&xs[0], &b)
            }
            "neg" => self.neg(&xs[0]),
            "*" => self.mul(&xs[0], &xs[1]),
            "/" => self.div(&xs[0], &xs[1]),
            "fma" => {
                let prod = self.mul_wide(&xs[0], &xs[1]);
                self.add(&prod, &xs[2])
            }
            "fabs" => match &xs[0] {
                Num::Exact(q, _) => Num::Exact(q.clone().abs(), false),
                Num::Approx { f, acc, overflow } => Num::Approx {
                    f: f.clone().abs(),
                    acc: *acc,
                    overflow: *overflow,
                },
            },
            "copysign" => self.copysign(&xs[0], &xs[1]),
            "fmax" | "fmin" => self.minmax(name == "fmax", &xs[0], &xs[1]),
            "fdim" => {
                let (fa, _, _) = self.to_float(&xs[0]);
                let (fb, _, _) = self.to_float(&xs[1]);
                if fa.is_nan() || fb.is_nan() {
                    self.nan()
                } else if fa > fb {
                    let b = self.neg(&xs[1]);
                    self.add(&xs[0], &b)
                } else {
                    Num::Exact(Rational::new(), false)
                }
            }
            _ if INTEGER_VALUED.contains(&name) => {
                if let Num::Exact(q, nz) = &xs[0] {
                    let r = match name {
                        "floor" => q.clone().floor(),
                        "ceil" => q.clone().ceil(),
                        "trunc" => q.clone().trunc(),
                        "round" => q.clone().round(),
                        _ => round_even(q),
                    };
                    let neg_zero = r == 0 && (*q < 0 || *nz);
                    return Num::Exact(r, neg_zero);
                }
                self.function(name, 0, &xs)
            }
            "fmod" | "remainder" => {
                if let (Num::Exact(x, nz), Num::Exact(y, _)) = (&xs[0], &xs[1]) {
                    if *y == 0 {
                        return self.nan();
                    }
                    let q = Rational::from(x / y);
                    let n = if name == "fmod" {
                        q.trunc()
                    } else {
                        round_even(&q)
                    };
                    let r = x - n * y;
                    let neg_zero = r == 0 && (*x < 0 || *nz);
                    return self.exact(r, neg_zero);
                }
                self.function(name, 0, &xs)
            }
            "jn" | "yn" => {
                let order = match &xs[0] {
                    Num::Exact(q, _) if *q.denom() == 1 => q.numer().to_i32(),
                    Num::Exact(..) => None,
                    Num::Approx { f, acc, .. } if *acc < EXACT => {
                        // An inexact order is not known to be an integer or not.
                        self.uncertain = true;
                        f.to_i32_saturating_round(Round::Nearest)
                    }
                    Num::Approx { .. } => None,
                };
                match order {
                    Some(n) if n.unsigned_abs() > MAX_BESSEL_ORDER => {
                        // MPFR takes seconds or more with large orders and arguments.
                        self.uncertain = true;
                        self.nan()
                    }
                    Some(n) => self.function(name, n, &xs[1..]),
                    None => self.nan(),
                }
            }
            "ai" => {
                let (f, _, overflow) = self.to_float(&xs[0]);
                if overflow
                    || f.is_finite()
                        && f.cmp_abs(&Float::with_val(8, AI_LIMIT)) == Some(Ordering::Greater)
                {
                    if f.is_sign_positive() && !overflow {
                        // Ai(x) < 2^-1400 here: an underflow, positive.
                        return Num::Approx {
                            f: Float::with_val(self.p, Special::Zero),
                            acc: i64::from(self.p),
                            overflow: false,
                        };
                    }
                    // MPFR 4.2.0's mpfr_ai takes seconds from |x| ~ 1000 and aborts
                    // (assertion failure) for huge |x|: not evaluated.
                    self.uncertain = true;
                    return self.nan();
                }
                self.function(name, 0, &xs)
            }
            _ => self.function(name, 0, &xs),
        }
    }

    fn neg(&self, a: &Num) -> Num {
        match a {
            Num::Exact(q, nz) => Num::Exact(Rational::from(-q), *q == 0 && !nz),
            Num::Approx { f, acc, overflow } => Num::Approx {
                f: Float::with_val(f.prec(), -f),
                acc: *acc,
                overflow: *overflow,
            },
        }
    }

    fn add(&mut self, a: &Num, b: &Num) -> Num {
        if let (Num::Exact(x, za), Num::Exact(y, zb)) = (a, b) {
            let q = Rational::from(x + y);
            let nz = *x == 0 && *y == 0 && *za && *zb;
            return self.exact(q, nz);
        }
        let (fa, acc_a, oa) = self.to_float(a);
        let (fb, acc_b, ob) = self.to_float(b);
        let (r, ord) = Float::with_val_round(self.p, &fa + &fb, Round::Nearest);
        let acc = if acc_a >= EXACT && acc_b >= EXACT {
            EXACT
        } else if !r.is_finite() {
            acc_a.min(acc_b)
        } else {
            // Cancellation: an operand's absolute error, relative to the result.
            let mut acc = i64::from(self.p);
            for (f, a) in [(&fa, acc_a), (&fb, acc_b)] {
                if a >= EXACT {
                    continue;
                }
                match (f.get_exp(), r.get_exp()) {
                    (None, _) => acc = acc.min(a),
                    (Some(_), None) => acc = 0,
                    (Some(ef), Some(er)) => {
                        acc = acc.min(a - i64::from(ef.saturating_sub(er)).max(0))
                    }
                }
            }
            acc - 1
        };
        self.finish(r, ord, acc, oa || ob)
    }

    fn mul(&mut self, a: &Num, b: &Num) -> Num {
        if let Some(z) = self.zero_product(a, b) {
            return z;
        }
        self.magnified_zero(a, b, |m| m == Ordering::Greater);
        if let (Num::Exact(x, _), Num::Exact(y, _)) = (a, b) {
            return self.exact(Rational::from(x * y), false);
        }
        let (fa, acc_a, oa) = self.to_float(a);
        let (fb, acc_b, ob) = self.to_float(b);
        let (r, ord) = Float::with_val_round(self.p, &fa * &fb, Round::Nearest);
        self.finish(r, ord, product_acc(acc_a, acc_b), oa || ob)
    }

    /// The product at twice the working precision (exact for working-precision operands),
    /// for `fma`'s single rounding.
    fn mul_wide(&mut self, a: &Num, b: &Num) -> Num {
        if let Some(z) = self.zero_product(a, b) {
            return z;
        }
        self.magnified_zero(a, b, |m| m == Ordering::Greater);
        if let (Num::Exact(x, _), Num::Exact(y, _)) = (a, b) {
            return self.exact(Rational::from(x * y), false);
        }
        let (fa, acc_a, oa) = self.to_float(a);
        let (fb, acc_b, ob) = self.to_float(b);
        let (r, ord) = Float::with_val_round(2 * self.p + 2, &fa * &fb, Round::Nearest);
        let acc = product_acc(acc_a, acc_b);
        let overflow = r.is_infinite() && (ord != Ordering::Equal || oa || ob);
        if r.is_nan() && (oa || ob) {
            self.uncertain = true;
        }
        Num::Approx {
            f: r,
            acc,
            overflow,
        }
    }

    /// An approximate zero stands for a value too small to compute (an underflow such
    /// as `ai` far out); scaled up — times a factor above 1 in magnitude, divided by one
    /// below — it may be back in range, so its value is not known (`magnifies` says
    /// which magnitudes of the other operand, against 1, do that).
    fn magnified_zero(&mut self, a: &Num, b: &Num, magnifies: impl Fn(Ordering) -> bool) {
        let approx_zero =
            |n: &Num| matches!(n, Num::Approx { f, acc, .. } if f.is_zero() && *acc < EXACT);
        let other = if approx_zero(a) {
            b
        } else if approx_zero(b) {
            a
        } else {
            return;
        };
        let (f, _, overflow) = self.to_float(other);
        let against_one = f.cmp_abs(&Float::with_val(8, 1));
        if overflow || !matches!(against_one, Some(o) if !magnifies(o)) {
            self.uncertain = true;
        }
    }

    /// An exact zero times a finite value is exactly a (signed) zero.
    fn zero_product(&self, a: &Num, b: &Num) -> Option<Num> {
        // An overflowed infinity is a finite real value.
        let finite = |n: &Num| match n {
            Num::Exact(..) => true,
            Num::Approx { f, overflow, .. } => f.is_finite() || *overflow,
        };
        let zero = |n: &Num| matches!(n, Num::Exact(q, _) if *q == 0);
        if (zero(a) && finite(b)) || (zero(b) && finite(a)) {
            let neg = self.sign_negative(a)? != self.sign_negative(b)?;
            return Some(Num::Exact(Rational::new(), neg));
        }
        None
    }

    fn div(&mut self, a: &Num, b: &Num) -> Num {
        if let (Num::Exact(x, _), Num::Exact(y, _)) = (a, b) {
            if *y != 0 {
                if *x == 0 {
                    let neg = self.sign_negative(a) != self.sign_negative(b);
                    return Num::Exact(Rational::new(), neg);
                }
                return self.exact(Rational::from(x / y), false);
            }
        }
        let (fa, acc_a, oa) = self.to_float(a);
        let (fb, acc_b, ob) = self.to_float(b);
        if matches!(a, Num::Exact(q, _) if *q == 0) && fb.is_finite() && !fb.is_zero() {
            let neg = fa.is_sign_negative() != fb.is_sign_negative();
            return Num::Exact(Rational::new(), neg);
        }
        if fb.is_zero() && acc_b < EXACT {
            // A divisor that underflowed (or cancelled) to zero: the quotient is unknown.
            self.uncertain = true;
        }
        if matches!(a, Num::Approx { f, acc, .. } if f.is_zero() && *acc < EXACT) {
            self.magnified_zero(a, b, |m| m == Ordering::Less);
        }
        let (r, ord) = Float::with_val_round(self.p, &fa / &fb, Round::Nearest);
        self.finish(r, ord, product_acc(acc_a, acc_b), oa || ob)
    }

    fn copysign(&mut self, x: &Num, y: &Num) -> Num {
        let Some(neg) = self.sign_negative(y) else {
            return self.nan();
        };
        if let Num::Approx { f, acc, .. } = y {
            if (f.is_zero() && *acc < EXACT) || *acc <= 0 {
                // The sign of an approximate zero is not known.
                self.uncertain = true;
            }
        }
        match x {
            Num::Exact(q, _) => {
                let a = q.clone().abs();
                let zero = a == 0;
                Num::Exact(if neg { -a } else { a }, neg && zero)
            }
            Num::Approx { f, acc, overflow } => {
                let a = f.clone().abs();
                Num::Approx {
                    f: if neg { -a } else { a },
                    acc: *acc,
                    overflow: *overflow,
                }
            }
        }
    }

    fn minmax(&mut self, max: bool, a: &Num, b: &Num) -> Num {
        let (fa, acc_a, _) = self.to_float(a);
        let (fb, acc_b, _) = self.to_float(b);
        // As C: an undefined operand is ignored.
        if fa.is_nan() {
            return b.clone();
        }
        if fb.is_nan() {
            return a.clone();
        }
        let first = match a.partial_cmp_num(b, &fa, &fb) {
            Ordering::Less => !max,
            Ordering::Greater => max,
            Ordering::Equal => true,
        };
        let chosen = if first { a } else { b };
        match chosen {
            Num::Approx { f, overflow, .. } => Num::Approx {
                f: f.clone(),
                acc: acc_a.min(acc_b),
                overflow: *overflow,
            },
            exact => exact.clone(),
        }
    }

    /// A function computed with MPFR; with inexact arguments, its accuracy comes from
    /// re-evaluating it with each such argument moved by its estimated error both ways.
    fn function(&mut self, name: &str, order: i32, args: &[Num]) -> Num {
        let p = self.p;
        let fl: Vec<(Float, i64, bool)> = args.iter().map(|a| self.to_float(a)).collect();
        let floats: Vec<Float> = fl.iter().map(|x| x.0.clone()).collect();
        let (r, ord) = apply(name, order, &floats, p);
        let overflow_in = fl.iter().any(|x| x.2);
        if fl
            .iter()
            .any(|(f, acc, overflow)| *overflow || (f.is_zero() && *acc < EXACT))
        {
            // Beyond MPFR's exponent range (an overflow, or an underflow to zero), the
            // argument's real value is unknown: log(exp(1e10)) is not infinite.
            self.uncertain = true;
        }
        if fl.iter().all(|x| x.1 >= EXACT) {
            return self.finish(r, ord, EXACT, overflow_in);
        }
        let mut acc = i64::from(p);
        let mut same = true;
        for (i, (x, a, _)) in fl.iter().enumerate() {
            if *a >= EXACT || !x.is_finite() || x.is_zero() && *a > 0 {
                continue;
            }
            if *a <= 0 {
                acc = 0;
                same = false;
                continue;
            }
            let mut d = x.clone();
            d >>= *a as u32;
            for up in [false, true] {
                let prec = p + (*a as u32).min(p) + 4;
                let moved = if up {
                    Float::with_val(prec, x + &d)
                } else {
                    Float::with_val(prec, x - &d)
                };
                let mut pert = floats.clone();
                pert[i] = moved;
                let (r2, _) = apply(name, order, &pert, p);
                if r2 != r {
                    same = false;
                }
                if class(&r2) != class(&r) {
                    self.uncertain = true;
                    acc = 0;
                } else if r.is_finite() {
                    if r.is_zero() {
                        if !r2.is_zero() {
                            acc = 0;
                        }
                    } else {
                        let rel = Float::with_val(64, &r2 - &r) / &r;
                        if let Some(e) = rel.get_exp() {
                            acc = acc.min(-i64::from(e));
                        }
                    }
                }
            }
        }
        if same && r.is_finite() && INTEGER_VALUED.contains(&name) {
            // The same integer at both ends of the argument's error: exact.
            let nz = r.is_zero() && r.is_sign_negative();
            return self.exact(r.to_rational().unwrap_or_default(), nz);
        }
        self.finish(r, ord, acc - 1, overflow_in)
    }
}

trait CmpNum {
    fn partial_cmp_num(&self, other: &Num, fa: &Float, fb: &Float) -> Ordering;
}

impl CmpNum for Num {
    fn partial_cmp_num(&self, other: &Num, fa: &Float, fb: &Float) -> Ordering {
        match (self, other) {
            (Num::Exact(x, _), Num::Exact(y, _)) => x.cmp(y),
            _ => fa.partial_cmp(fb).unwrap_or(Ordering::Equal),
        }
    }
}

/// The significant bits of a rational with a power-of-two denominator.
fn dyadic_bits(q: &Rational) -> Option<u32> {
    if !q.denom().is_power_of_two() {
        return None;
    }
    let n = q.numer();
    let bits = n.significant_bits();
    Some(bits.saturating_sub(n.find_one(0).unwrap_or(0)).max(1))
}

fn product_acc(a: i64, b: i64) -> i64 {
    if a >= EXACT && b >= EXACT {
        EXACT
    } else {
        a.min(b) - 1
    }
}

fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// Round half to even of a rational.
fn round_even(q: &Rational) -> Rational {
    let half = Rational::from((1, 2));
    let shifted = Rational::from(q + &half);
    let mut r = shifted.clone().floor();
    if shifted == r && r.numer().is_odd() {
        r -= 1;
    }
    r
}

/// One MPFR function of arguments at any precision, rounded to nearest at precision `p`;
/// with MPFR's ternary value.
fn apply(name: &str, order: i32, a: &[Float], p: u32) -> (Float, Ordering) {
    let mut r = Float::new(p);
    let n = Round::Nearest;
    let x = &a[0];
    let ord = match name {
        "exp" => r.assign_round(x.exp_ref(), n),
        "exp2" => r.assign_round(x.exp2_ref(), n),
        "expm1" => r.assign_round(x.exp_m1_ref(), n),
        "log" => r.assign_round(x.ln_ref(), n),
        "log10" => r.assign_round(x.log10_ref(), n),
        "log2" => r.assign_round(x.log2_ref(), n),
        "log1p" => r.assign_round(x.ln_1p_ref(), n),
        "pow" => r.assign_round(x.pow(&a[1]), n),
        "sqrt" => r.assign_round(x.sqrt_ref(), n),
        "cbrt" => r.assign_round(x.cbrt_ref(), n),
        "hypot" => r.assign_round(x.hypot_ref(&a[1]), n),
        "sin" => r.assign_round(x.sin_ref(), n),
        "cos" => r.assign_round(x.cos_ref(), n),
        "tan" => r.assign_round(x.tan_ref(), n),
        "asin" => r.assign_round(x.asin_ref(), n),
        "acos" => r.assign_round(x.acos_ref(), n),
        "atan" => r.assign_round(x.atan_ref(), n),
        "atan2" => r.assign_round(x.atan2_ref(&a[1]), n),
        "sinh" => r.assign_round(x.sinh_ref(), n),
        "cosh" => r.assign_round(x.cosh_ref(), n),
        "tanh" => r.assign_round(x.tanh_ref(), n),
        "asinh" => r.assign_round(x.asinh_ref(), n),
        "acosh" => r.assign_round(x.acosh_ref(), n),
        "atanh" => r.assign_round(x.atanh_ref(), n),
        "erf" => r.assign_round(x.erf_ref(), n),
        "erfc" => r.assign_round(x.erfc_ref(), n),
        "tgamma" => r.assign_round(x.gamma_ref(), n),
        "lgamma" => {
            let mut sign = Ordering::Equal;
            (&mut r, &mut sign).assign_round(x.ln_abs_gamma_ref(), n)
        }
        "floor" => r.assign_round(x.floor_ref(), n),
        "ceil" => r.assign_round(x.ceil_ref(), n),
        "trunc" => r.assign_round(x.trunc_ref(), n),
        "round" => r.assign_round(x.round_ref(), n),
        "nearbyint" => r.assign_round(x.round_even_ref(), n),
        "fmod" => r.assign_round(x % &a[1], n),
        "remainder" => r.assign_round(x.remainder_ref(&a[1]), n),
        "jn" => r.assign_round(x.jn_ref(order), n),
        "yn" => r.assign_round(x.yn_ref(order), n),
        "j0" => r.assign_round(x.j0_ref(), n),
        "j1" => r.assign_round(x.j1_ref(), n),
        "y0" => r.assign_round(x.y0_ref(), n),
        "y1" => r.assign_round(x.y1_ref(), n),
        "digamma" => r.assign_round(x.digamma_ref(), n),
        "zeta" => r.assign_round(x.zeta_ref(), n),
        "ai" => r.assign_round(x.ai_ref(), n),
        "eint" => r.assign_round(x.eint_ref(), n),
        "li2" => r.assign_round(x.li2_ref(), n),
        "beta" => {
            // SAFETY: `r`, `a[0]` and `a[1]` are initialized MPFR numbers; `r` is
            // distinct from the inputs and only written by mpfr_beta.
            let t = unsafe {
                gmp_mpfr_sys::mpfr::beta(
                    r.as_raw_mut(),
                    a[0].as_raw(),
                    a[1].as_raw(),
                    gmp_mpfr_sys::mpfr::rnd_t::RNDN,
                )
            };
            t.cmp(&0)
        }
        _ => {
            r = Float::with_val(p, Special::Nan);
            Ordering::Equal
        }
    };
    (r, ord)
}

/// The error of a computed result against a reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// |computed − exact| / ulp(exact), the ulp of the target format at the exact value's
    /// magnitude (subnormal ulp below the normal range). Note that at a power of two the
    /// ulp is the one above it, so the float just below a power of two is 0.5 ulp away.
    pub ulps: f64,
    /// |computed − exact| / |exact| (infinite if the exact value is 0 and computed is not).
    pub relative: f64,
    /// log2(ulps + 1), in the style of FPBench/Herbie's bits of error (not capped at the
    /// format width; callers may cap it).
    pub bits: f64,
}

impl Measured {
    const ZERO: Measured = Measured {
        ulps: 0.0,
        relative: 0.0,
        bits: 0.0,
    };
    const INFINITE: Measured = Measured {
        ulps: f64::INFINITY,
        relative: f64::INFINITY,
        bits: f64::INFINITY,
    };
}

/// Error of `computed` (a float of `target`) against `reference`. `None` for an
/// `Undecided` reference.
///
/// * A finite result is measured against the real value (`exact`), as accuracy tables
///   count ulps: the correctly rounded result is up to half an ulp off, and only the
///   real value itself (+0 and -0 alike) is zero error. So a search sees how close to a
///   rounding boundary an input is even where the library rounds correctly.
/// * The same infinity, or NaN for `Undefined`, is zero error.
/// * NaN or an infinity against a finite reference, a number against `Undefined`, the
///   wrong or any finite value against an exact infinity (a pole) is infinite error
///   (all three fields infinite).
/// * A finite value against an **overflow** (a finite real value rounding to ±inf) is
///   measured as Herbie does, by ordinal distance in the target format (the infinity is
///   the float after the largest finite one): `DBL_MAX` against +inf overflow is 1 ulp;
///   `relative` is infinite.
pub fn measure(computed: f64, reference: &ReferenceValue, target: Precision) -> Option<Measured> {
    let fmt = Fmt::of(target);
    match reference {
        ReferenceValue::Undecided { .. } => None,
        ReferenceValue::Undefined => Some(if computed.is_nan() {
            Measured::ZERO
        } else {
            Measured::INFINITE
        }),
        ReferenceValue::Infinite { negative, overflow } => {
            if computed.is_infinite() && (computed < 0.0) == *negative {
                return Some(Measured::ZERO);
            }
            if !*overflow || !computed.is_finite() {
                return Some(Measured::INFINITE);
            }
            let inf = if *negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
            let ulps = ordinal(computed, target).abs_diff(ordinal(inf, target)) as f64;
            Some(Measured {
                ulps,
                relative: f64::INFINITY,
                bits: (ulps + 1.0).log2(),
            })
        }
        ReferenceValue::Finite { exact, .. } => {
            if !computed.is_finite() {
                return Some(Measured::INFINITE);
            }
            let prec = exact.prec().max(256);
            let diff = Float::with_val(prec, computed - exact).abs();
            if diff.is_zero() {
                return Some(Measured::ZERO);
            }
            let e = exact.get_exp().unwrap_or(fmt.emin).max(fmt.emin);
            let ulp = pow2(e - fmt.bits);
            let ulps = Float::with_val(64, &diff / &ulp).to_f64();
            let relative = if exact.is_zero() {
                f64::INFINITY
            } else {
                Float::with_val(64, &diff / exact).abs().to_f64()
            };
            Some(Measured {
                ulps,
                relative,
                bits: (ulps + 1.0).log2(),
            })
        }
    }
}

/// Position of a float among the target format's floats, in order (±0 both at 0).
fn ordinal(x: f64, target: Precision) -> i64 {
    let (neg, mag) = match target {
        Precision::Binary64 => (x.is_sign_negative(), (x.to_bits() & !(1 << 63)) as i64),
        Precision::Binary32 => {
            let f = x as f32;
            (f.is_sign_negative(), i64::from(f.to_bits() & !(1u32 << 31)))
        }
    };
    if neg {
        -mag
    } else {
        mag
    }
}
