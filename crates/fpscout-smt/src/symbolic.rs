//! The symbolic real domain: floats are Z3 real terms over the function's parameters,
//! every floating-point operation records its exception conditions (DESIGN.md §2) under
//! the current path condition, and branches on symbolic conditions fork.

use crate::isolate::{run_forked, Outcome};
use crate::numeral::{float_to_real, small_real};
use fpscout_fpsolve::{BitView, FloatSet, Format, Fp};
use fpscout_ir::*;
use fpscout_walk::concrete::x86::{call_libm_out, Env, MXCSR_DEFAULT};
use fpscout_walk::concrete::{int_binop, int_cmp, Concrete, FpMode};
use fpscout_walk::{DResult, Decision, Domain, OpSite, WalkError};
use std::time::Duration;
use z3::ast::{Ast, Bool, Int, Real};
use z3::{SatResult, Solver};

/// A scalar in the symbolic domain.
#[derive(Clone, Debug)]
pub enum Sym {
    /// Known bits: constants, loop counters, integer parameters given concretely.
    Bits(ScalarTy, u64),
    /// A finite float as an exact real term.
    Real(Real),
    Bool(Bool),
    /// A symbolic integer of the given width (from a conversion of a symbolic float).
    Int(Int, u32),
    /// An integer read from a float's bits (`signbit`, `GET_HIGH_WORD`, the exponent
    /// field): its comparisons with constants are ranges of the real (the floats it
    /// rounds to; a real 0 is +0). What a view cannot follow becomes a fresh integer.
    FloatBits(Real, BitView),
    /// A float that is one of several values by mutually exclusive conditions on the
    /// inputs (the extended reals' case split): where a real meets an infinite or NaN
    /// constant (`x + INFINITY` is NaN where x stands for -inf, +inf elsewhere), or a
    /// `select` on a symbolic condition has such a constant as an arm. Each case is known
    /// bits (an infinity, a NaN, a signed zero) or a real term; every operation maps over
    /// the cases under their conditions. At most [`MAX_CASES`] cases.
    Cases(Vec<(Bool, Sym)>),
}

/// Most cases one extended value holds; an operation whose result would hold more fails
/// its path (typed).
pub const MAX_CASES: usize = 8;

/// One exception condition: `formula` holds exactly for the inputs that reach the op on
/// this path and satisfy the exception's condition over the reals.
#[derive(Clone, Debug)]
pub struct ExceptionCondition {
    pub site: OpSite,
    pub kind: ExceptionKind,
    pub formula: Bool,
    /// The condition with its thresholds tightened by a relative margin: its models stay
    /// exceptional after the rounding of nearby operations.
    pub robust: Bool,
    /// The condition with its thresholds widened by the margin: outside it, the operation
    /// stays clear of the exception despite rounding.
    pub loose: Bool,
}

/// Relative margin of robust and loose conditions (far above rounding errors of a few
/// operations, far below anything a user would call the same input).
fn margin(scale: i64) -> Real {
    // 1 + scale · 2^-40
    let q = rug::Rational::from(1) + rug::Rational::from((scale, 1u64 << 40));
    crate::numeral::rational_to_real(&q)
}

/// A variable the formulas mention: a parameter (or array element) or a fresh result of
/// an elementary function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarDecl {
    pub name: String,
    pub is_int: bool,
}

/// A fresh variable standing for a value the formulas cannot express: an elementary
/// function's result, an external call's, a remainder's. The fallback solver concretizes
/// these in creation order, which is a topological order (a definition's arguments only
/// mention variables that existed before it).
#[derive(Clone, Debug)]
pub struct Dependent {
    pub name: String,
    /// The function, its arguments (exact real terms) and the format it computes in; None
    /// when the value cannot be recomputed from the inputs (external calls, `frem`).
    pub def: Option<(MathFn, Vec<Real>, FloatTy)>,
}

/// Largest finite and smallest normal magnitudes of a format.
pub fn omega(ty: FloatTy) -> Real {
    match ty {
        FloatTy::F64 => float_to_real(f64::MAX),
        FloatTy::F32 => float_to_real(f64::from(f32::MAX)),
    }
}

/// The smallest magnitude that rounds to infinity: Ω + ½ ulp(Ω) (2^1024 − 2^970 for
/// doubles). Ties go to even, and Ω's significand is odd, so the midpoint itself rounds
/// up. Using this instead of the brief's `> Ω` makes each operation's condition exact over
/// its operands: a model just above Ω would otherwise round back to Ω and not overflow.
pub fn overflow_threshold(ty: FloatTy) -> Real {
    let (hi, lo) = match ty {
        FloatTy::F64 => (1024u32, 970u32),
        FloatTy::F32 => (128, 103),
    };
    let t = (rug::Integer::from(1) << hi) - (rug::Integer::from(1) << lo);
    crate::numeral::rational_to_real(&rug::Rational::from(t))
}

pub fn tiny(ty: FloatTy) -> Real {
    match ty {
        FloatTy::F64 => float_to_real(f64::MIN_POSITIVE),
        FloatTy::F32 => float_to_real(f64::from(f32::MIN_POSITIVE)),
    }
}

/// Whether the float nearest the real `x` (to nearest, ties to even) is in one of `mask`'s
/// classes. A real is never NaN; it stands for an infinity from the overflow threshold on,
/// as the overflow conditions say, and an exact 0 for +0 (an input or `x - x`).
fn class_condition(mask: FpClassMask, ty: FloatTy, x: &Real) -> Bool {
    let min_subnormal = match ty {
        FloatTy::F64 => f64::from_bits(1),
        FloatTy::F32 => f64::from(f32::from_bits(1)),
    };
    let half_subnormal = float_to_real(min_subnormal) * small_real(1, 2);
    // Between the largest subnormal and the smallest normal, the tie rounds to the even
    // smallest normal.
    let normal_from = tiny(ty) - &half_subnormal;
    let magnitude = abs(x);
    let negative = x.lt(zero());
    let zero_class = magnitude.le(&half_subnormal);
    let subnormal = Bool::and(&[magnitude.gt(&half_subnormal), magnitude.lt(&normal_from)]);
    let normal = Bool::and(&[
        magnitude.ge(&normal_from),
        magnitude.lt(overflow_threshold(ty)),
    ]);
    let infinite = magnitude.ge(overflow_threshold(ty));
    let classes = [
        (FpClassMask::NEG_INF, &infinite, true),
        (FpClassMask::NEG_NORMAL, &normal, true),
        (FpClassMask::NEG_SUBNORMAL, &subnormal, true),
        (FpClassMask::NEG_ZERO, &zero_class, true),
        (FpClassMask::POS_ZERO, &zero_class, false),
        (FpClassMask::POS_SUBNORMAL, &subnormal, false),
        (FpClassMask::POS_NORMAL, &normal, false),
        (FpClassMask::POS_INF, &infinite, false),
    ];
    let parts: Vec<Bool> = classes
        .into_iter()
        .filter(|(bit, _, _)| mask.any(*bit))
        .map(|(_, class, sign_negative)| {
            let sign = if sign_negative {
                negative.clone()
            } else {
                negative.not()
            };
            Bool::and(&[class.clone(), sign])
        })
        .collect();
    Bool::or(&parts)
}

/// `fcmp pred x, c` of a real `x` and an infinite or NaN constant `c`, with `x` infinite
/// where [`class_condition`] says so (`isinf` at -O0 is `fabs(x) == inf`).
fn compare_with_non_finite(pred: FCmpPred, ty: FloatTy, x: &Real, c: f64) -> Bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    if c.is_nan() {
        return Bool::from_bool(pred.holds(None));
    }
    let (at_c, elsewhere, beyond) = if c > 0.0 {
        (Equal, Less, x.ge(overflow_threshold(ty)))
    } else {
        (Equal, Greater, x.le(-overflow_threshold(ty)))
    };
    match (pred.holds(Some(at_c)), pred.holds(Some(elsewhere))) {
        (true, true) => Bool::from_bool(true),
        (false, false) => Bool::from_bool(false),
        (true, false) => beyond,
        (false, true) => beyond.not(),
    }
}

fn abs(x: &Real) -> Real {
    x.lt(small_real(0, 1)).ite(&-x, x)
}

fn zero() -> Real {
    small_real(0, 1)
}

/// Symbolic execution over the reals with exception conditions.
pub struct SymReal {
    /// Conjuncts of the current path condition.
    pc: Vec<Bool>,
    /// Constraints on the inputs (finite, inside the user's ranges), asserted in every check.
    inputs: Vec<Bool>,
    /// Conditions recorded so far, across all paths (ops before a fork are walked once).
    pub conditions: Vec<ExceptionCondition>,
    /// Variables the formulas may mention.
    pub vars: Vec<VarDecl>,
    /// The fresh variables among `vars`, with their definitions.
    pub dependents: Vec<Dependent>,
    /// Prefix of fresh variable names, so two builds' fresh results never clash.
    prefix: String,
    fresh: u32,
    solver: Solver,
    check_timeout: Duration,
    /// Past this instant branches are not checked (they count as feasible and unknown).
    pub deadline: Option<std::time::Instant>,
    /// Branch feasibility checks that returned unknown (treated as feasible).
    pub unknown_checks: u32,
    /// Operations on known bits that involve infinities or NaNs, and every known operation
    /// inside a case, run here (x86 semantics, IEEE mode) for their result and flags.
    concrete: Concrete,
    /// How many case conditions the current operation runs under: inside a case, known
    /// operands depend on the inputs through the case's condition, so their flags count.
    case_depth: u32,
}

impl SymReal {
    /// `prefix` distinguishes fresh variables of different builds; `check_timeout_ms`
    /// bounds each branch-feasibility query.
    pub fn new(prefix: &str, check_timeout_ms: u32) -> SymReal {
        SymReal {
            pc: Vec::new(),
            inputs: Vec::new(),
            conditions: Vec::new(),
            vars: Vec::new(),
            dependents: Vec::new(),
            prefix: prefix.to_string(),
            fresh: 0,
            solver: Solver::new(),
            check_timeout: Duration::from_millis(check_timeout_ms.into()),
            deadline: None,
            unknown_checks: 0,
            concrete: Concrete::new(FpMode::IEEE),
            case_depth: 0,
        }
    }

    /// A real parameter, constrained to be finite in its format and inside `range`.
    pub fn real_input(&mut self, name: &str, ty: FloatTy, range: Option<(f64, f64)>) -> Sym {
        let x = Real::new_const(name);
        self.vars.push(VarDecl {
            name: name.to_string(),
            is_int: false,
        });
        let om = omega(ty);
        self.inputs.push(x.le(&om));
        self.inputs.push(x.ge(-&om));
        if let Some((lo, hi)) = range {
            self.inputs.push(x.ge(float_to_real(lo)));
            self.inputs.push(x.le(float_to_real(hi)));
        }
        Sym::Real(x)
    }

    pub fn input_constraints(&self) -> &[Bool] {
        &self.inputs
    }

    fn fresh_real(&mut self, what: &str, def: Option<(MathFn, Vec<Real>, FloatTy)>) -> Real {
        self.fresh += 1;
        let name = format!("{}{}_{}", self.prefix, what, self.fresh);
        self.vars.push(VarDecl {
            name: name.clone(),
            is_int: false,
        });
        let r = Real::new_const(name.as_str());
        self.dependents.push(Dependent { name, def });
        r
    }

    /// A fresh integer in [lo, hi]: a real variable constrained to be integral (so the
    /// fallback solver, which substitutes reals, can concretize it), and its integer term.
    fn fresh_int(&mut self, what: &str, lo: i64, hi: i64) -> (Real, Int) {
        let r = self.fresh_real(what, None);
        self.define(Bool::and(&[
            r.is_int(),
            r.ge(float_to_real(lo as f64)),
            r.le(float_to_real(hi as f64)),
        ]));
        let i = r.to_int();
        (r, i)
    }

    /// A fresh integer of `width` bits (signed range): a value the formulas cannot
    /// express, such as a float's low word or a bitwise operation's result.
    fn opaque_int(&mut self, width: u32) -> Sym {
        Sym::Int(self.opaque_int_term(width), width)
    }

    /// A fresh integer for `op` with a constant right operand where one bounds it (`& m`,
    /// `% n`, `>> k`: an index into a table of n stays inside it), else of the width.
    fn bounded_opaque_int(&mut self, op: IBinOp, width: u32, right: &Sym) -> Sym {
        let Sym::Bits(_, k) = right else {
            return self.opaque_int(width);
        };
        let signed_k = sign_extend(*k, width);
        let bound = match op {
            IBinOp::And if signed_k >= 0 => Some(signed_k),
            IBinOp::URem if signed_k > 0 => Some(signed_k - 1),
            IBinOp::LShr if *k >= 1 && *k < u64::from(width) && width <= 64 => {
                Some(((1u128 << (width - *k as u32)) - 1).min(i64::MAX as u128) as i64)
            }
            _ => None,
        };
        match bound {
            Some(hi) => Sym::Int(self.fresh_int("bits", 0, hi).1, width),
            None => self.opaque_int(width),
        }
    }

    fn opaque_int_term(&mut self, width: u32) -> Int {
        let (lo, hi) = if width >= 64 {
            (i64::MIN, i64::MAX)
        } else {
            (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
        };
        self.fresh_int("bits", lo, hi).1
    }

    /// An integer scalar as a term (a view of a float's bits as a fresh integer).
    fn int_term(&mut self, v: &Sym, width: u32) -> DResult<Int> {
        match v {
            Sym::Int(i, _) => Ok(i.clone()),
            Sym::Bits(_, bits) => Ok(Int::from_i64(sign_extend(*bits, width))),
            Sym::FloatBits(..) => Ok(self.opaque_int_term(width)),
            other => Err(WalkError::unsupported(format!(
                "{} used as an integer",
                sym_kind(other)
            ))),
        }
    }

    /// Adds a defining fact of a fresh variable (always satisfiable given the inputs).
    fn define(&mut self, fact: Bool) {
        self.pc.push(fact);
    }

    fn record(&mut self, site: OpSite, kind: ExceptionKind, cond: Bool) {
        self.record_with_margins(site, kind, cond.clone(), cond.clone(), cond);
    }

    fn record_with_margins(
        &mut self,
        site: OpSite,
        kind: ExceptionKind,
        cond: Bool,
        robust: Bool,
        loose: Bool,
    ) {
        // Only constant conditions are dropped: simplifying big shared terms would flatten
        // them (unrolled loops build DAGs whose trees are exponentially large).
        if cond.as_bool() == Some(false) {
            return;
        }
        let with_pc = |c: Bool| {
            let mut parts: Vec<Bool> = self.pc.clone();
            parts.push(c);
            Bool::and(&parts)
        };
        let (formula, robust, loose) = (with_pc(cond), with_pc(robust), with_pc(loose));
        self.conditions.push(ExceptionCondition {
            site,
            kind,
            formula,
            robust,
            loose,
        });
    }

    /// Overflow and underflow of a rounded result `r` (|lhs| against `rhs` · threshold).
    fn overflow_underflow(&mut self, r: &Real, ty: FloatTy, site: OpSite) {
        let a = abs(r);
        let t = overflow_threshold(ty);
        self.record_with_margins(
            site,
            ExceptionKind::Overflow,
            a.ge(&t),
            a.ge(&t * margin(1)),
            a.ge(&t * margin(-1)),
        );
        let w = tiny(ty);
        let pos = a.gt(zero());
        self.record_with_margins(
            site,
            ExceptionKind::Underflow,
            Bool::and(&[pos.clone(), a.lt(&w)]),
            Bool::and(&[pos.clone(), a.lt(&w * margin(-1))]),
            Bool::and(&[pos, a.lt(&w * margin(1))]),
        );
    }

    fn real_of(&self, v: &Sym) -> DResult<Real> {
        match v {
            Sym::Real(r) => Ok(r.clone()),
            Sym::Bits(ScalarTy::Float(ft), bits) => {
                let x = match ft {
                    FloatTy::F64 => f64::from_bits(*bits),
                    FloatTy::F32 => f64::from(f32::from_bits(*bits as u32)),
                };
                if !x.is_finite() {
                    return Err(WalkError::unsupported(
                        "non-finite constant in the symbolic real domain",
                    ));
                }
                Ok(float_to_real(x))
            }
            Sym::Bits(ScalarTy::Int(w), bits) => Ok(float_to_real(sign_extend(*bits, *w) as f64)),
            Sym::Int(i, _) => Ok(Real::from_int(i)),
            Sym::Cases(_) => Err(WalkError::unsupported(
                "a value that may be infinite or NaN used where only real terms are modelled",
            )),
            other => Err(WalkError::unsupported(format!(
                "{} used as a real (a float's bits reinterpreted as a float are not modelled)",
                sym_kind(other)
            ))),
        }
    }

    fn bool_of(&self, v: &Sym) -> DResult<Bool> {
        match v {
            Sym::Bool(b) => Ok(b.clone()),
            Sym::Bits(_, bits) => Ok(Bool::from_bool(bits & 1 != 0)),
            // An i1 that went through integer form (a zext'd comparison, a select of
            // flags): true when its low bit is set.
            Sym::Int(i, _) => Ok(i.modulo(Int::from_i64(2)).eq(Int::from_i64(1))),
            Sym::Real(_) => Err(WalkError::unsupported(
                "a floating-point value used as a branch condition",
            )),
            Sym::FloatBits(..) => Err(WalkError::unsupported(
                "the bits of a symbolic float used as a condition (bit tricks beyond the sign)",
            )),
            Sym::Cases(_) => Err(WalkError::unsupported(
                "a value that may be infinite or NaN used as a branch condition",
            )),
        }
    }

    /// Whether `c` can hold on the current path (unknown or timed out counts as feasible).
    /// The check runs in a forked child, like every solver call (see [`crate::isolate`]).
    fn feasible(&mut self, c: &Bool) -> bool {
        if self
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
        {
            self.unknown_checks += 1;
            return true;
        }
        self.solver.push();
        for f in self.inputs.iter().chain(&self.pc) {
            self.solver.assert(f);
        }
        self.solver.assert(c);
        let solver = &self.solver;
        let answer = run_forked(1, 1, self.check_timeout, None, &|_| {
            match solver.check() {
                SatResult::Sat => "sat",
                SatResult::Unsat => "unsat",
                SatResult::Unknown => "unknown",
            }
            .to_string()
        });
        self.solver.pop(1);
        match answer.first() {
            Some(Outcome::Done(a)) if a == "unsat" => false,
            Some(Outcome::Done(a)) if a == "sat" => true,
            _ => {
                self.unknown_checks += 1;
                true
            }
        }
    }

    /// The value of an integer term in a model of the path (`None`: no model in time).
    fn model_value(&mut self, term: &Int) -> Option<i64> {
        if self
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
        {
            return None;
        }
        self.solver.push();
        for f in self.inputs.iter().chain(&self.pc) {
            self.solver.assert(f);
        }
        let solver = &self.solver;
        let answer = run_forked(1, 1, self.check_timeout, None, &|_| {
            if solver.check() != SatResult::Sat {
                return String::new();
            }
            solver
                .get_model()
                .and_then(|m| m.eval(term, true))
                .and_then(|v| v.as_i64())
                .map(|v| v.to_string())
                .unwrap_or_default()
        });
        self.solver.pop(1);
        match answer.first() {
            Some(Outcome::Done(text)) => text.parse().ok(),
            _ => None,
        }
    }

    fn is_concrete(v: &Sym) -> bool {
        matches!(v, Sym::Bits(..))
    }

    /// Runs an operation on known bits on the x86 domain: its result and the exceptions
    /// it raised (inexact aside).
    fn evaluate(
        &mut self,
        op: impl FnOnce(&mut Concrete) -> DResult<u64>,
    ) -> (DResult<u64>, ExceptionSet) {
        self.concrete.clear();
        let out = op(&mut self.concrete);
        let raised = self.concrete.flags.without_inexact();
        self.concrete.clear();
        (out, raised)
    }

    /// An operation on known bits. Inside a case its operands depend on the inputs through
    /// the case's condition, so its exceptions are recorded under the path condition;
    /// outside, known operands are the function's constants and raise nothing that
    /// depends on the inputs (as in [`concrete_fbin`]).
    fn known(
        &mut self,
        site: OpSite,
        op: impl FnOnce(&mut Concrete) -> DResult<u64>,
    ) -> DResult<u64> {
        let (out, raised) = self.evaluate(op);
        let bits = out?;
        if self.case_depth > 0 {
            for kind in raised.iter() {
                self.record(site, kind, Bool::from_bool(true));
            }
        }
        Ok(bits)
    }

    /// Runs `f` under the case condition `guard`: on the path condition while it runs (so
    /// the exceptions it records carry it); the defining facts of fresh variables it made
    /// are kept as implied by it.
    fn under(
        &mut self,
        guard: &Bool,
        f: impl FnOnce(&mut SymReal) -> DResult<Sym>,
    ) -> DResult<Sym> {
        let base = self.pc.len();
        self.pc.push(guard.clone());
        self.case_depth += 1;
        let out = f(self);
        self.case_depth -= 1;
        let facts: Vec<Bool> = self.pc.drain(base + 1..).collect();
        self.pc.truncate(base);
        if !facts.is_empty() {
            self.pc.push(guard.implies(Bool::and(&facts)));
        }
        out
    }

    /// `op` on every combination of the operands' cases (a value that is not `Cases` is
    /// one case), each under the conjunction of its cases' conditions, joined into one
    /// value.
    fn map_cases(
        &mut self,
        operands: &[&Sym],
        op: &mut dyn FnMut(&mut SymReal, &[Sym]) -> DResult<Sym>,
    ) -> DResult<Sym> {
        let mut combinations: Vec<(Vec<Bool>, Vec<Sym>)> = vec![(Vec::new(), Vec::new())];
        for operand in operands {
            let cases = match operand {
                Sym::Cases(cases) => cases.clone(),
                other => vec![(Bool::from_bool(true), (*other).clone())],
            };
            let mut next = Vec::with_capacity(combinations.len() * cases.len());
            for (guards, values) in &combinations {
                for (guard, value) in &cases {
                    let mut guards = guards.clone();
                    if guard.as_bool() != Some(true) {
                        guards.push(guard.clone());
                    }
                    let mut values = values.clone();
                    values.push(value.clone());
                    next.push((guards, values));
                }
            }
            if next.len() > MAX_CASES * MAX_CASES {
                return Err(too_many_cases());
            }
            combinations = next;
        }
        let mut results = Vec::with_capacity(combinations.len());
        for (guards, values) in combinations {
            let guard = Bool::and(&guards);
            let r = self.under(&guard, |d| op(d, &values))?;
            results.push((guard, r));
        }
        join_cases(results)
    }

    /// `x op c` (or `c op x` when `constant_right` is false) of a real `x` and an infinite
    /// or NaN constant `c`: the result depends only on x's class under the real domain's
    /// reading (infinite from the overflow threshold on, zero up to half the smallest
    /// subnormal, an exact 0 being +0), so each class is evaluated on the processor at a
    /// representative, its exceptions recorded under the class's condition (`0 * inf` and
    /// `inf - inf` invalid, `x / inf` a signed zero, `inf / x` signed by x).
    fn fbin_non_finite(
        &mut self,
        op: FBinOp,
        ty: FloatTy,
        other: &Sym,
        c: u64,
        constant_right: bool,
        site: OpSite,
    ) -> DResult<Sym> {
        if op == FBinOp::FRem {
            // x rem inf is x itself: no class representative stands for it.
            return Err(WalkError::unsupported(
                "frem of a symbolic value and an infinite or NaN constant",
            ));
        }
        let x = self.real_of(other)?;
        let mut cases = Vec::new();
        for (guard, representative) in real_classes(ty, &x) {
            let (l, r) = if constant_right {
                (representative, c)
            } else {
                (c, representative)
            };
            let (out, raised) = self.evaluate(|k| k.fbin(op, ty, &l, &r, site));
            for kind in raised.iter() {
                self.record(site, kind, guard.clone());
            }
            cases.push((guard, Sym::Bits(ScalarTy::Float(ty), out?)));
        }
        join_cases(cases)
    }
}

/// The real domain's classes of a real `x` in format `ty`, each with a representative
/// float (bits): -inf from minus the overflow threshold down, negative, zero (up to half
/// the smallest subnormal, read as +0), positive, +inf from the threshold up.
fn real_classes(ty: FloatTy, x: &Real) -> [(Bool, u64); 5] {
    let t = overflow_threshold(ty);
    let half_subnormal = float_to_real(min_subnormal(ty)) * small_real(1, 2);
    let bits = |v: f64| match ty {
        FloatTy::F64 => v.to_bits(),
        FloatTy::F32 => u64::from((v as f32).to_bits()),
    };
    [
        (x.le(-&t), bits(f64::NEG_INFINITY)),
        (Bool::and(&[x.gt(-&t), x.lt(-&half_subnormal)]), bits(-1.0)),
        (
            Bool::and(&[x.ge(-&half_subnormal), x.le(&half_subnormal)]),
            bits(0.0),
        ),
        (Bool::and(&[x.gt(&half_subnormal), x.lt(&t)]), bits(1.0)),
        (x.ge(&t), bits(f64::INFINITY)),
    ]
}

fn min_subnormal(ty: FloatTy) -> f64 {
    match ty {
        FloatTy::F64 => f64::from_bits(1),
        FloatTy::F32 => f64::from(f32::from_bits(1)),
    }
}

fn float_value(ty: FloatTy, bits: u64) -> f64 {
    match ty {
        FloatTy::F64 => f64::from_bits(bits),
        FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
    }
}

/// What kind of value a scalar is, for messages (its terms can be huge).
fn sym_kind(v: &Sym) -> &'static str {
    match v {
        Sym::Bits(..) => "a constant",
        Sym::Real(_) => "a real term",
        Sym::Bool(_) => "a condition",
        Sym::Int(..) => "a symbolic integer",
        Sym::FloatBits(..) => "a float's bits",
        Sym::Cases(_) => "an infinite, NaN or finite value",
    }
}

fn format_of(ty: FloatTy) -> Format {
    match ty {
        FloatTy::F32 => Format::F32,
        FloatTy::F64 => Format::F64,
    }
}

/// The reals that stand for a float of `set` (the ones rounding to it; the overflow
/// threshold on for infinities; a real 0 is +0, so -0 alone is no real). NaNs are no
/// real either.
fn real_in_set(x: &Real, set: &FloatSet) -> Bool {
    let format = set.format();
    let ty = if format == Format::F32 {
        FloatTy::F32
    } else {
        FloatTy::F64
    };
    let value = |k: Fp| format.to_rational(k);
    let midpoint = |a: Fp, b: Fp| -> Option<Real> {
        let (a, b) = (value(a)?, value(b)?);
        Some(crate::numeral::rational_to_real(&((a + b) / 2u32)))
    };
    let ranges: Vec<Bool> = set
        .ranges()
        .iter()
        .map(|&(lo, hi)| {
            let mut bounds = Vec::new();
            let threshold = overflow_threshold(ty);
            // From where `lo` starts to round.
            if lo == format.pos_inf() {
                bounds.push(x.ge(&threshold));
            } else if lo != format.neg_inf() {
                match format.next_down(lo) {
                    Some(below) if below == format.neg_inf() => bounds.push(x.gt(-&threshold)),
                    Some(below) => bounds.extend(midpoint(below, lo).map(|m| x.ge(&m))),
                    None => {}
                }
            }
            // Up to where `hi` stops.
            if hi == format.neg_inf() {
                bounds.push(x.le(-&threshold));
            } else if hi != format.pos_inf() {
                match format.next_up(hi) {
                    Some(above) if above == format.pos_inf() => bounds.push(x.lt(&threshold)),
                    Some(above) => bounds.extend(midpoint(hi, above).map(|m| x.lt(&m))),
                    None => {}
                }
            }
            Bool::and(&bounds)
        })
        .collect();
    Bool::or(&ranges)
}

/// The bits of `v` when it is an infinite or NaN constant (read in format `ty`).
fn non_finite_bits(ty: FloatTy, v: &Sym) -> Option<u64> {
    match v {
        Sym::Bits(ScalarTy::Float(_), bits) if !float_value(ty, *bits).is_finite() => Some(*bits),
        _ => None,
    }
}

/// Whether `v` is a float the real terms cannot carry: cases, or an infinite or NaN
/// constant.
fn is_extended(v: &Sym) -> bool {
    match v {
        Sym::Cases(_) => true,
        Sym::Bits(ScalarTy::Float(ty), bits) => !float_value(*ty, *bits).is_finite(),
        _ => false,
    }
}

fn too_many_cases() -> WalkError {
    WalkError::unsupported(format!(
        "more than {MAX_CASES} cases of infinite, NaN and finite values in one value"
    ))
}

/// The value of a case when it is a finite float: a real term or finite known bits.
fn finite_real(v: &Sym) -> Option<Real> {
    match v {
        Sym::Real(r) => Some(r.clone()),
        Sym::Bits(ScalarTy::Float(ty), bits) => {
            let x = float_value(*ty, *bits);
            x.is_finite().then(|| float_to_real(x))
        }
        _ => None,
    }
}

/// One value from cases with exclusive conditions that cover the path: nested cases
/// flattened, equal known bits merged, conditions as one formula, finite floats as one
/// real term (an `ite` chain), integers as one integer term; `Cases` only where an
/// infinity or NaN remains.
fn join_cases(cases: Vec<(Bool, Sym)>) -> DResult<Sym> {
    let mut flat = Vec::new();
    for (guard, value) in cases {
        if guard.as_bool() == Some(false) {
            continue;
        }
        match value {
            Sym::Cases(inner) => {
                for (g, v) in inner {
                    flat.push((Bool::and(&[guard.clone(), g]), v));
                }
            }
            other => flat.push((guard, other)),
        }
    }
    let mut merged: Vec<(Bool, Sym)> = Vec::new();
    for (guard, value) in flat {
        if let Sym::Bits(ty, bits) = &value {
            let same = |m: &Sym| matches!(m, Sym::Bits(t, b) if t == ty && b == bits);
            if let Some(slot) = merged.iter_mut().find(|(_, m)| same(m)) {
                slot.0 = Bool::or(&[slot.0.clone(), guard]);
                continue;
            }
        }
        merged.push((guard, value));
    }
    if merged.len() <= 1 {
        return merged
            .pop()
            .map(|(_, v)| v)
            .ok_or_else(|| WalkError::unsupported("a value none of whose cases holds"));
    }
    let condition = |v: &Sym| match v {
        Sym::Bool(b) => Some(b.clone()),
        Sym::Bits(ScalarTy::Int(1), bits) => Some(Bool::from_bool(bits & 1 != 0)),
        _ => None,
    };
    if let Some(parts) = merged
        .iter()
        .map(|(g, v)| condition(v).map(|b| Bool::and(&[g.clone(), b])))
        .collect::<Option<Vec<Bool>>>()
    {
        return Ok(Sym::Bool(Bool::or(&parts)));
    }
    let chain = |leaves: Vec<(Bool, Real)>| {
        let mut leaves = leaves.into_iter().rev();
        let (_, last) = leaves.next()?;
        Some(leaves.fold(last, |rest, (g, v)| g.ite(&v, &rest)))
    };
    if let Some(leaves) = merged
        .iter()
        .map(|(g, v)| finite_real(v).map(|r| (g.clone(), r)))
        .collect::<Option<Vec<(Bool, Real)>>>()
    {
        return chain(leaves)
            .map(Sym::Real)
            .ok_or_else(|| WalkError::unsupported("a value none of whose cases holds"));
    }
    let width = merged.iter().find_map(|(_, v)| match v {
        Sym::Int(_, w) | Sym::Bits(ScalarTy::Int(w), _) => Some(*w),
        _ => None,
    });
    if let Some(w) = width {
        let int = |v: &Sym| match v {
            Sym::Int(i, iw) if *iw == w => Some(i.clone()),
            Sym::Bits(ScalarTy::Int(bw), bits) if *bw == w => {
                Some(Int::from_i64(sign_extend(*bits, w)))
            }
            _ => None,
        };
        if let Some(leaves) = merged
            .iter()
            .map(|(g, v)| int(v).map(|i| (g.clone(), i)))
            .collect::<Option<Vec<(Bool, Int)>>>()
        {
            let mut leaves = leaves.into_iter().rev();
            if let Some((_, last)) = leaves.next() {
                return Ok(Sym::Int(
                    leaves.fold(last, |rest, (g, v)| g.ite(&v, &rest)),
                    w,
                ));
            }
        }
    }
    if merged
        .iter()
        .any(|(_, v)| !matches!(v, Sym::Real(_) | Sym::Bits(ScalarTy::Float(_), _)))
    {
        return Err(WalkError::unsupported(
            "cases of a value that are not all floats, conditions or integers (the bits of a value that may be infinite or NaN)",
        ));
    }
    if merged.len() > MAX_CASES {
        return Err(too_many_cases());
    }
    Ok(Sym::Cases(merged))
}

fn relational(pred: FCmpPred, a: &Real, b: &Real) -> Bool {
    use FCmpPred::*;
    // Over the reals nothing is unordered: ordered and unordered predicates coincide.
    match pred {
        False | Uno => Bool::from_bool(false),
        True | Ord => Bool::from_bool(true),
        Oeq | Ueq => a.eq(b),
        One | Une => a.eq(b).not(),
        Ogt | Ugt => a.gt(b),
        Oge | Uge => a.ge(b),
        Olt | Ult => a.lt(b),
        Ole | Ule => a.le(b),
    }
}

impl Domain for SymReal {
    type Scalar = Sym;
    type Snapshot = Vec<Bool>;

    fn snapshot(&self) -> Vec<Bool> {
        self.pc.clone()
    }

    fn restore(&mut self, snapshot: Vec<Bool>) {
        self.pc = snapshot;
    }

    fn constant(&self, ty: ScalarTy, bits: u64) -> Sym {
        Sym::Bits(ty, bits)
    }

    fn concrete_bits(&self, v: &Sym) -> Option<u64> {
        match v {
            Sym::Bits(_, b) => Some(*b),
            _ => None,
        }
    }

    /// A symbolic index (musl's table lookups `T[i]`, `i` from the bits of x): one value
    /// a model of the path gives it, pinned in the path condition, so the path goes on
    /// for the inputs with that index (the classic concolic concretization: the path
    /// covers fewer inputs, its models stay real ones).
    fn concretize(&mut self, v: &Sym, ty: ScalarTy) -> DResult<u64> {
        if let Some(bits) = self.concrete_bits(v) {
            return Ok(bits);
        }
        let width = match ty {
            ScalarTy::Int(w) => w,
            _ => 64,
        };
        let term = match v {
            Sym::Int(i, _) => i.clone(),
            Sym::Bool(b) => b.ite(&Int::from_i64(1), &Int::from_i64(0)),
            Sym::FloatBits(..) => self.opaque_int_term(width),
            _ => {
                return Err(WalkError::unsupported(
                    "an address, index or switch value depends on symbolic input",
                ))
            }
        };
        let value = self.model_value(&term).ok_or_else(|| {
            WalkError::unsupported(
                "an address or index depends on symbolic input, and no model of the path gave it a value",
            )
        })?;
        self.pc.push(term.eq(Int::from_i64(value)));
        Ok(truncate_bits(value as u64, width))
    }

    fn fbin(&mut self, op: FBinOp, ty: FloatTy, a: &Sym, b: &Sym, site: OpSite) -> DResult<Sym> {
        if let (Sym::Bits(_, x), Sym::Bits(_, y)) = (a, b) {
            if self.case_depth == 0 {
                return concrete_fbin(op, ty, a, b);
            }
            let (x, y) = (*x, *y);
            return self
                .known(site, |k| k.fbin(op, ty, &x, &y, site))
                .map(|r| Sym::Bits(ScalarTy::Float(ty), r));
        }
        if matches!(a, Sym::Cases(_)) || matches!(b, Sym::Cases(_)) {
            return self.map_cases(&[a, b], &mut |d, v| d.fbin(op, ty, &v[0], &v[1], site));
        }
        if let Some(c) = non_finite_bits(ty, b) {
            return self.fbin_non_finite(op, ty, a, c, true, site);
        }
        if let Some(c) = non_finite_bits(ty, a) {
            return self.fbin_non_finite(op, ty, b, c, false, site);
        }
        let (x, y) = (self.real_of(a)?, self.real_of(b)?);
        let r = match op {
            FBinOp::FAdd => &x + &y,
            FBinOp::FSub => &x - &y,
            FBinOp::FMul => &x * &y,
            FBinOp::FDiv => {
                let (ax, ay) = (abs(&x), abs(&y));
                let t = &ay * overflow_threshold(ty);
                // x/0 is a division by zero (or invalid), never an overflow.
                let nonzero = y.eq(zero()).not();
                self.record_with_margins(
                    site,
                    ExceptionKind::Overflow,
                    Bool::and(&[nonzero.clone(), ax.ge(&t)]),
                    Bool::and(&[nonzero.clone(), ax.ge(&t * margin(1))]),
                    Bool::and(&[nonzero, ax.ge(&t * margin(-1))]),
                );
                let w = &ay * tiny(ty);
                let pos = ax.gt(zero());
                self.record_with_margins(
                    site,
                    ExceptionKind::Underflow,
                    Bool::and(&[pos.clone(), ax.lt(&w)]),
                    Bool::and(&[pos.clone(), ax.lt(&w * margin(-1))]),
                    Bool::and(&[pos, ax.lt(&w * margin(1))]),
                );
                self.record(
                    site,
                    ExceptionKind::Invalid,
                    Bool::and(&[x.eq(zero()), y.eq(zero())]),
                );
                self.record(
                    site,
                    ExceptionKind::DivByZero,
                    Bool::and(&[x.eq(zero()).not(), y.eq(zero())]),
                );
                return Ok(Sym::Real(x / y));
            }
            FBinOp::FRem => {
                self.record(site, ExceptionKind::Invalid, y.eq(zero()));
                let r = self.fresh_real("frem", None);
                // |x rem y| < |y| and has x's sign.
                self.define(Bool::and(&[abs(&r).lt(abs(&y)), abs(&r).le(abs(&x))]));
                return Ok(Sym::Real(r));
            }
        };
        self.overflow_underflow(&r, ty, site);
        Ok(Sym::Real(r))
    }

    fn fneg(&mut self, ty: FloatTy, a: &Sym) -> DResult<Sym> {
        match a {
            Sym::Bits(t, bits) => Ok(Sym::Bits(*t, bits ^ sign_bit(ty))),
            Sym::Cases(_) => self.map_cases(&[a], &mut |d, v| d.fneg(ty, &v[0])),
            _ => Ok(Sym::Real(-self.real_of(a)?)),
        }
    }

    fn fcmp(
        &mut self,
        pred: FCmpPred,
        lowering: CmpLowering,
        ty: FloatTy,
        a: &Sym,
        b: &Sym,
        site: OpSite,
    ) -> DResult<Sym> {
        if let (Sym::Bits(_, x), Sym::Bits(_, y), true) = (a, b, self.case_depth > 0) {
            let (x, y) = (*x, *y);
            return self
                .known(site, |k| k.fcmp(pred, lowering, ty, &x, &y, site))
                .map(|r| Sym::Bits(ScalarTy::Int(1), r));
        }
        if matches!(a, Sym::Cases(_)) || matches!(b, Sym::Cases(_)) {
            return self.map_cases(&[a, b], &mut |d, v| {
                d.fcmp(pred, lowering, ty, &v[0], &v[1], site)
            });
        }
        if let (Sym::Bits(_, x), Sym::Bits(_, y)) = (a, b) {
            let ord = match ty {
                FloatTy::F64 => f64::from_bits(*x).partial_cmp(&f64::from_bits(*y)),
                FloatTy::F32 => f32::from_bits(*x as u32).partial_cmp(&f32::from_bits(*y as u32)),
            };
            return Ok(Sym::Bits(ScalarTy::Int(1), u64::from(pred.holds(ord))));
        }
        let non_finite = |v: &Sym| match v {
            Sym::Bits(ScalarTy::Float(_), bits) => {
                let c = match ty {
                    FloatTy::F64 => f64::from_bits(*bits),
                    FloatTy::F32 => f64::from(f32::from_bits(*bits as u32)),
                };
                (!c.is_finite()).then_some(c)
            }
            _ => None,
        };
        if let Some(c) = non_finite_bits(ty, a).or(non_finite_bits(ty, b)) {
            // A NaN constant makes a signalling comparison (or any, when the NaN is
            // signalling) invalid whatever the real is: the processor says which.
            let one = match ty {
                FloatTy::F64 => 1f64.to_bits(),
                FloatTy::F32 => u64::from(1f32.to_bits()),
            };
            let (l, r) = if non_finite_bits(ty, b).is_some() {
                (one, c)
            } else {
                (c, one)
            };
            let (_, raised) = self.evaluate(|k| k.fcmp(pred, lowering, ty, &l, &r, site));
            for kind in raised.iter() {
                self.record(site, kind, Bool::from_bool(true));
            }
        }
        if let Some(c) = non_finite(b) {
            let x = self.real_of(a)?;
            return Ok(Sym::Bool(compare_with_non_finite(pred, ty, &x, c)));
        }
        if let Some(c) = non_finite(a) {
            let y = self.real_of(b)?;
            return Ok(Sym::Bool(compare_with_non_finite(
                pred.swapped(),
                ty,
                &y,
                c,
            )));
        }
        let (x, y) = (self.real_of(a)?, self.real_of(b)?);
        Ok(Sym::Bool(relational(pred, &x, &y)))
    }

    fn fclass(&mut self, mask: FpClassMask, ty: FloatTy, a: &Sym, _site: OpSite) -> DResult<Sym> {
        if let Sym::Bits(_, bits) = a {
            return Ok(Sym::Bits(
                ScalarTy::Int(1),
                u64::from(mask.holds(ty, *bits)),
            ));
        }
        if let Sym::Cases(_) = a {
            return self.map_cases(&[a], &mut |d, v| d.fclass(mask, ty, &v[0], _site));
        }
        let x = self.real_of(a)?;
        Ok(Sym::Bool(class_condition(mask, ty, &x)))
    }

    fn funary(&mut self, op: FUnaryOp, ty: FloatTy, a: &Sym, site: OpSite) -> DResult<Sym> {
        if let Sym::Bits(t, bits) = a {
            if op == FUnaryOp::Fabs {
                return Ok(Sym::Bits(*t, bits & !sign_bit(ty)));
            }
        }
        if let Sym::Cases(_) = a {
            return self.map_cases(&[a], &mut |d, v| d.funary(op, ty, &v[0], site));
        }
        if let Some(x) = non_finite_bits(ty, a) {
            return self
                .known(site, |k| k.funary(op, ty, &x, site))
                .map(|r| Sym::Bits(ScalarTy::Float(ty), r));
        }
        let x = self.real_of(a)?;
        match op {
            FUnaryOp::Fabs => Ok(Sym::Real(abs(&x))),
            FUnaryOp::SqrtInsn => self.sqrt(x, ty, site),
            FUnaryOp::Floor => Ok(Sym::Real(Real::from_int(&x.to_int()))),
            FUnaryOp::Ceil => Ok(Sym::Real(-Real::from_int(&(-&x).to_int()))),
            FUnaryOp::Trunc => {
                let down = Real::from_int(&x.to_int());
                let up = -Real::from_int(&(-&x).to_int());
                Ok(Sym::Real(x.ge(zero()).ite(&down, &up)))
            }
            FUnaryOp::Round | FUnaryOp::Rint | FUnaryOp::NearbyInt | FUnaryOp::RoundEven => {
                // Nearest integer; ties resolved upward (the real model ignores tie rules).
                let half = small_real(1, 2);
                Ok(Sym::Real(Real::from_int(&(&x + &half).to_int())))
            }
            FUnaryOp::RsqrtEstimateNewton => Err(WalkError::unsupported(
                "reciprocal square-root estimate (rsqrtss)",
            )),
        }
    }

    fn fbinary(
        &mut self,
        op: FBinaryOp,
        ty: FloatTy,
        a: &Sym,
        b: &Sym,
        site: OpSite,
    ) -> DResult<Sym> {
        if matches!(a, Sym::Cases(_)) || matches!(b, Sym::Cases(_)) {
            return self.map_cases(&[a, b], &mut |d, v| d.fbinary(op, ty, &v[0], &v[1], site));
        }
        if is_extended(a) || is_extended(b) {
            return self.fbinary_non_finite(op, ty, a, b, site);
        }
        let (x, y) = (self.real_of(a)?, self.real_of(b)?);
        Ok(Sym::Real(match op {
            FBinaryOp::MinNum | FBinaryOp::MinSse => x.lt(&y).ite(&x, &y),
            FBinaryOp::MaxNum | FBinaryOp::MaxSse => x.gt(&y).ite(&x, &y),
            FBinaryOp::CopySign => y.lt(zero()).ite(&-abs(&x), &abs(&x)),
        }))
    }

    fn fma(&mut self, ty: FloatTy, a: &Sym, b: &Sym, c: &Sym, site: OpSite) -> DResult<Sym> {
        if let (Sym::Bits(_, x), Sym::Bits(_, y), Sym::Bits(_, z)) = (a, b, c) {
            if [a, b, c].into_iter().any(is_extended) {
                let (x, y, z) = (*x, *y, *z);
                return self
                    .known(site, |k| k.fma(ty, &x, &y, &z, site))
                    .map(|r| Sym::Bits(ScalarTy::Float(ty), r));
            }
        }
        if [a, b, c].into_iter().any(is_extended) {
            return Err(WalkError::unsupported(
                "fused multiply-add of a symbolic value and an infinite or NaN value",
            ));
        }
        let r = &self.real_of(a)? * &self.real_of(b)? + &self.real_of(c)?;
        self.overflow_underflow(&r, ty, site);
        Ok(Sym::Real(r))
    }

    fn math(&mut self, func: MathFn, ty: FloatTy, args: &[Sym], site: OpSite) -> DResult<Sym> {
        if args.iter().any(|a| matches!(a, Sym::Cases(_))) {
            let operands: Vec<&Sym> = args.iter().collect();
            return self.map_cases(&operands, &mut |d, v| d.math(func, ty, v, site));
        }
        if args.iter().any(is_extended) {
            let Some(bits) = args
                .iter()
                .map(|a| self.concrete_bits(a))
                .collect::<Option<Vec<u64>>>()
            else {
                return Err(WalkError::unsupported(format!(
                    "libm function '{}' of a symbolic value and an infinite or NaN value",
                    func.c_name()
                )));
            };
            return self
                .known(site, |k| k.math(func, ty, &bits, site))
                .map(|r| Sym::Bits(ScalarTy::Float(ty), r));
        }
        let x = self.real_of(&args[0])?;
        let ln_omega = match ty {
            FloatTy::F64 => float_to_real(f64::MAX.ln()),
            FloatTy::F32 => float_to_real(f64::from(f32::MAX).ln()),
        };
        let ln_tiny = match ty {
            FloatTy::F64 => float_to_real(f64::MIN_POSITIVE.ln()),
            FloatTy::F32 => float_to_real(f64::from(f32::MIN_POSITIVE).ln()),
        };
        match func {
            MathFn::Sqrt => return self.sqrt(x, ty, site),
            MathFn::Exp | MathFn::Expm1 => {
                self.record(site, ExceptionKind::Overflow, x.gt(&ln_omega));
                if func == MathFn::Exp {
                    self.record(site, ExceptionKind::Underflow, x.lt(&ln_tiny));
                }
            }
            MathFn::Exp2 => {
                let two = |v: &Real| v * float_to_real(std::f64::consts::LN_2);
                self.record(site, ExceptionKind::Overflow, two(&x).gt(&ln_omega));
                self.record(site, ExceptionKind::Underflow, two(&x).lt(&ln_tiny));
            }
            MathFn::Log | MathFn::Log2 | MathFn::Log10 => {
                self.record(site, ExceptionKind::Invalid, x.lt(zero()));
                self.record(site, ExceptionKind::DivByZero, x.eq(zero()));
            }
            MathFn::Log1p => {
                let m1 = small_real(-1, 1);
                self.record(site, ExceptionKind::Invalid, x.lt(&m1));
                self.record(site, ExceptionKind::DivByZero, x.eq(&m1));
            }
            MathFn::Pow => {
                let y = self.real_of(&args[1])?;
                self.record(
                    site,
                    ExceptionKind::Invalid,
                    Bool::and(&[x.lt(zero()), y.is_int().not()]),
                );
                self.record(
                    site,
                    ExceptionKind::DivByZero,
                    Bool::and(&[x.eq(zero()), y.lt(zero())]),
                );
            }
            MathFn::Asin | MathFn::Acos => {
                self.record(site, ExceptionKind::Invalid, abs(&x).gt(small_real(1, 1)));
            }
            MathFn::Fmod | MathFn::Remainder => {
                let y = self.real_of(&args[1])?;
                self.record(site, ExceptionKind::Invalid, y.eq(zero()));
            }
            MathFn::Lgamma => {
                // Poles at 0 and the negative integers.
                self.record(
                    site,
                    ExceptionKind::DivByZero,
                    Bool::and(&[x.le(zero()), x.is_int()]),
                );
            }
            MathFn::Tgamma => {
                self.record(site, ExceptionKind::DivByZero, x.eq(zero()));
                self.record(
                    site,
                    ExceptionKind::Invalid,
                    Bool::and(&[x.lt(zero()), x.is_int()]),
                );
            }
            MathFn::Sinh | MathFn::Cosh => {
                let ln2 = float_to_real(std::f64::consts::LN_2);
                self.record(site, ExceptionKind::Overflow, abs(&x).gt(&ln_omega + &ln2));
            }
            MathFn::Sin
            | MathFn::Cos
            | MathFn::Tan
            | MathFn::Atan
            | MathFn::Atan2
            | MathFn::Tanh
            | MathFn::Hypot
            | MathFn::Cbrt
            | MathFn::Erf
            | MathFn::Erfc => {}
        }
        let mut def_args = vec![x];
        for a in &args[1..func.arity().min(args.len())] {
            def_args.push(self.real_of(a)?);
        }
        let r = self.fresh_real(func.c_name(), Some((func, def_args, ty)));
        match func {
            MathFn::Exp | MathFn::Exp2 | MathFn::Cosh => self.define(r.gt(zero())),
            MathFn::Sin | MathFn::Cos | MathFn::Tanh | MathFn::Erf => self.define(Bool::and(&[
                r.ge(small_real(-1, 1)),
                r.le(small_real(1, 1)),
            ])),
            MathFn::Erfc => self.define(Bool::and(&[r.ge(zero()), r.le(small_real(2, 1))])),
            MathFn::Hypot => self.define(r.ge(zero())),
            _ => {}
        }
        if let Some(x) = args.first().map(|a| self.real_of(a)).transpose()? {
            for fact in monotone_envelope(func, ty, &x, &r) {
                self.define(fact);
            }
        }
        Ok(Sym::Real(r))
    }

    /// Concrete arguments are computed by glibc (its flags recorded as conditions that
    /// always hold). Otherwise: `modf` is exact over the reals (integral part `trunc(x)`,
    /// fraction `x − trunc(x)`); the others' results are fresh variables with the facts
    /// that are cheap to state (`frexp`: |m| in [1/2, 1) with x's sign, m = 0 and e = 0 at
    /// x = 0; `remquo`: |r| ≤ |y|/2 and |r| ≤ |x|, |q| ≤ 7, invalid at y = 0; `sincos`:
    /// `sin` and `cos` results the fallback solver can recompute; `lgamma_r`: the sign is
    /// ±1, +1 for x > 0, division by zero at the poles x ∈ {0, −1, −2, …}).
    fn math_out(
        &mut self,
        func: OutMathFn,
        ty: FloatTy,
        args: &[Sym],
        site: OpSite,
    ) -> DResult<(Option<Sym>, Vec<Option<Sym>>)> {
        if args.len() != func.arity() {
            return Err(WalkError::unsupported(format!(
                "{} with {} arguments",
                func.c_name(ty),
                args.len()
            )));
        }
        let fsym = |b: u64| Sym::Bits(ScalarTy::Float(ty), b);
        if args.iter().all(Self::is_concrete) {
            let bits: Vec<u64> = args.iter().filter_map(|a| self.concrete_bits(a)).collect();
            let (r, outs, fl) = call_libm_out(
                func,
                ty == FloatTy::F32,
                &bits,
                Env::Isolated(MXCSR_DEFAULT),
            )
            .ok_or_else(|| WalkError::unsupported(format!("libm function {}", func.c_name(ty))))?;
            for kind in ExceptionSet::from_mxcsr(fl).iter() {
                if kind != ExceptionKind::Inexact {
                    self.record(site, kind, Bool::from_bool(true));
                }
            }
            let outs = outs
                .iter()
                .zip(func.outputs())
                .map(|(b, slot)| {
                    b.map(|b| match slot {
                        OutSlot::Float => fsym(b),
                        OutSlot::I32 => Sym::Bits(ScalarTy::Int(32), b),
                    })
                })
                .collect();
            return Ok((func.returns_value().then(|| fsym(r)), outs));
        }
        let x = self.real_of(&args[0])?;
        let one = small_real(1, 1);
        Ok(match func {
            OutMathFn::Modf => {
                let down = Real::from_int(&x.to_int());
                let up = -Real::from_int(&(-&x).to_int());
                let ip = x.ge(zero()).ite(&down, &up);
                let frac = &x - &ip;
                (Some(Sym::Real(frac)), vec![Some(Sym::Real(ip))])
            }
            OutMathFn::Frexp => {
                let m = self.fresh_real("frexp", None);
                let (emin, emax) = match ty {
                    FloatTy::F64 => (-1073, 1024),
                    FloatTy::F32 => (-148, 128),
                };
                let (e, ei) = self.fresh_int("frexp_exp", emin, emax);
                let is_zero = x.eq(zero());
                let half = small_real(1, 2);
                self.define(Bool::and(&[
                    is_zero.implies(Bool::and(&[m.eq(zero()), e.eq(zero())])),
                    is_zero.not().implies(Bool::and(&[
                        abs(&m).ge(&half),
                        abs(&m).lt(&one),
                        m.gt(zero()).eq(x.gt(zero())),
                    ])),
                ]));
                (Some(Sym::Real(m)), vec![Some(Sym::Int(ei, 32))])
            }
            OutMathFn::Remquo => {
                let y = self.real_of(&args[1])?;
                self.record(site, ExceptionKind::Invalid, y.eq(zero()));
                let r = self.fresh_real("remquo", None);
                let two = small_real(2, 1);
                self.define(Bool::and(&[
                    (&two * abs(&r)).le(abs(&y)),
                    abs(&r).le(abs(&x)),
                ]));
                let (_, q) = self.fresh_int("remquo_quo", -7, 7);
                (Some(Sym::Real(r)), vec![Some(Sym::Int(q, 32))])
            }
            OutMathFn::Sincos => {
                let sn = self.fresh_real("sin", Some((MathFn::Sin, vec![x.clone()], ty)));
                let cs = self.fresh_real("cos", Some((MathFn::Cos, vec![x], ty)));
                let m1 = small_real(-1, 1);
                self.define(Bool::and(&[
                    sn.ge(&m1),
                    sn.le(&one),
                    cs.ge(&m1),
                    cs.le(&one),
                ]));
                (None, vec![Some(Sym::Real(sn)), Some(Sym::Real(cs))])
            }
            OutMathFn::LgammaR => {
                let pole = Bool::and(&[x.le(zero()), x.is_int()]);
                self.record(site, ExceptionKind::DivByZero, pole);
                // lgamma(x) > Ω from about 2.5563e305 (doubles), 4.0850e36 (floats).
                let big = match ty {
                    FloatTy::F64 => float_to_real(2.556_348_163_871_69e305),
                    FloatTy::F32 => float_to_real(4.085_003_7e36),
                };
                self.record(site, ExceptionKind::Overflow, x.gt(&big));
                let r = self.fresh_real("lgamma_r", None);
                let (sg, si) = self.fresh_int("lgamma_sign", -1, 1);
                self.define(Bool::and(&[
                    sg.eq(zero()).not(),
                    x.gt(zero()).implies(sg.eq(&one)),
                ]));
                (Some(Sym::Real(r)), vec![Some(Sym::Int(si, 32))])
            }
        })
    }

    fn fcast(
        &mut self,
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        a: &Sym,
        site: OpSite,
    ) -> DResult<Sym> {
        if let Sym::Bits(..) = a {
            return concrete_cast(op, from, to, a);
        }
        if let Sym::Cases(_) = a {
            return self.map_cases(&[a], &mut |d, v| d.fcast(op, from, to, &v[0], site));
        }
        match (op, to) {
            (CastOp::FPExt, _) => Ok(a.clone()),
            (CastOp::FPTrunc, ScalarTy::Float(t)) => {
                let x = self.real_of(a)?;
                self.overflow_underflow(&x, t, site);
                Ok(Sym::Real(x))
            }
            (CastOp::SIToFP | CastOp::UIToFP, _) => match (a, from) {
                (Sym::FloatBits(..), ScalarTy::Int(w)) => {
                    let i = self.opaque_int_term(w);
                    Ok(Sym::Real(i.to_real()))
                }
                _ => Ok(Sym::Real(self.real_of(a)?)),
            },
            (CastOp::FPToSI | CastOp::FPToUI, ScalarTy::Int(w)) => {
                let x = self.real_of(a)?;
                // cvttsd2si works on 32 or 64 bits; narrower results truncate the 32-bit one.
                let bits = if w > 32 { 64 } else { 32 };
                let (lo, hi) = if op == CastOp::FPToUI && w == 64 {
                    (0.0, 18_446_744_073_709_551_616.0)
                } else if op == CastOp::FPToUI && w == 32 {
                    (-9_223_372_036_854_775_808.0, 9_223_372_036_854_775_808.0)
                } else {
                    let h = 2f64.powi(bits - 1);
                    (-h, h)
                };
                let out = Bool::or(&[
                    x.ge(float_to_real(hi)),
                    x.le(float_to_real(lo) - small_real(1, 1)),
                ]);
                self.record(site, ExceptionKind::Invalid, out);
                let down = x.to_int();
                let up = -(-&x).to_int();
                Ok(Sym::Int(x.ge(zero()).ite(&down, &up), w))
            }
            _ => Err(WalkError::unsupported(format!(
                "symbolic conversion {op:?} to {to}"
            ))),
        }
    }

    fn icast(&mut self, op: CastOp, from: ScalarTy, to: ScalarTy, a: &Sym) -> DResult<Sym> {
        match a {
            Sym::Bits(..) => concrete_cast(op, from, to, a),
            Sym::Cases(_) => self.map_cases(&[a], &mut |d, v| d.icast(op, from, to, &v[0])),
            Sym::Real(x) if op == CastOp::BitCast => match (from, to) {
                (ScalarTy::Float(ty), ScalarTy::Int(_)) => {
                    Ok(Sym::FloatBits(x.clone(), BitView::of(format_of(ty))))
                }
                _ => Err(WalkError::unsupported(format!(
                    "bitcast {from} → {to} of a symbolic value (bit reinterpretation)"
                ))),
            },
            Sym::FloatBits(x, view) => {
                let ScalarTy::Int(w) = to else {
                    // A float rebuilt from words (SET_HIGH_WORD, INSERT_WORDS): a fresh
                    // variable, as for a function the formulas cannot see into.
                    return Ok(Sym::Real(self.fresh_real("from_bits", None)));
                };
                let narrowed = fpscout_walk::floatpath::view_cast(op, *view, w);
                Ok(match narrowed {
                    Some(view) => Sym::FloatBits(x.clone(), view),
                    None => self.opaque_int(w),
                })
            }
            Sym::Int(_, _) if op == CastOp::BitCast => {
                Ok(Sym::Real(self.fresh_real("from_bits", None)))
            }
            Sym::Int(i, _) => match (op, to) {
                (CastOp::Trunc | CastOp::ZExt | CastOp::SExt, ScalarTy::Int(w)) => {
                    Ok(Sym::Int(i.clone(), w))
                }
                _ => Err(WalkError::unsupported(format!(
                    "{op:?} of a symbolic integer"
                ))),
            },
            Sym::Bool(b) if matches!(op, CastOp::ZExt) => {
                let w = match to {
                    ScalarTy::Int(w) => w,
                    _ => 64,
                };
                Ok(Sym::Int(b.ite(&Int::from_i64(1), &Int::from_i64(0)), w))
            }
            _ => Err(WalkError::unsupported(format!(
                "{op:?} of a symbolic value (bit reinterpretation)"
            ))),
        }
    }

    fn ibin(&mut self, op: IBinOp, width: u32, a: &Sym, b: &Sym) -> DResult<Sym> {
        if let (Sym::Bits(_, x), Sym::Bits(_, y)) = (a, b) {
            return int_binop(op, width, *x, *y).map(|r| Sym::Bits(ScalarTy::Int(width), r));
        }
        if let (Sym::FloatBits(x, v), Sym::FloatBits(y, w), IBinOp::Or) = (a, b, op) {
            // `ix | lx` of one float (the same term).
            if x == y {
                if let Some(view) = v.or(*w) {
                    return Ok(Sym::FloatBits(x.clone(), view));
                }
            }
        }
        let view = match (a, b) {
            (Sym::FloatBits(x, view), Sym::Bits(_, k)) => Some((x, *view, *k, true)),
            (Sym::Bits(_, k), Sym::FloatBits(x, view)) => Some((x, *view, *k, false)),
            _ => None,
        };
        if let Some((x, view, k, view_first)) = view {
            let narrowed = fpscout_walk::floatpath::view_binop_constant(op, view, k, view_first);
            return Ok(match narrowed {
                Some(view) => Sym::FloatBits(x.clone(), view),
                None => self.bounded_opaque_int(op, width, b),
            });
        }
        let (bool_a, bool_b) = (matches!(a, Sym::Bool(_)), matches!(b, Sym::Bool(_)));
        if width == 1 && (bool_a || bool_b) {
            let (x, y) = (self.bool_of(a)?, self.bool_of(b)?);
            return Ok(Sym::Bool(match op {
                IBinOp::And => Bool::and(&[x, y]),
                IBinOp::Or => Bool::or(&[x, y]),
                IBinOp::Xor => x.xor(&y),
                _ => {
                    return Err(WalkError::unsupported(format!(
                        "{op:?} on symbolic booleans"
                    )))
                }
            }));
        }
        let (x, y) = (self.int_term(a, width)?, self.int_term(b, width)?);
        // Mathematical integers: symbolic integers come from float conversions whose
        // out-of-range cases are already reported as INVALID. Bitwise operations, shifts
        // and divisions give a fresh integer of the width (Ariadne's treatment of what
        // the formulas cannot express: models are only candidates, replayed natively).
        Ok(Sym::Int(
            match op {
                IBinOp::Add => &x + &y,
                IBinOp::Sub => &x - &y,
                IBinOp::Mul => &x * &y,
                IBinOp::SMax => x.gt(&y).ite(&x, &y),
                IBinOp::SMin => x.lt(&y).ite(&x, &y),
                _ => return Ok(self.bounded_opaque_int(op, width, b)),
            },
            width,
        ))
    }

    fn icmp(&mut self, pred: ICmpPred, width: u32, a: &Sym, b: &Sym) -> DResult<Sym> {
        if let (Sym::Bits(_, x), Sym::Bits(_, y)) = (a, b) {
            return Ok(Sym::Bits(
                ScalarTy::Int(1),
                u64::from(int_cmp(pred, width, *x, *y)),
            ));
        }
        let view_test = match (a, b) {
            (Sym::FloatBits(x, view), Sym::Bits(_, k)) => {
                Some((x, view, fpscout_walk::floatpath::int_predicate(pred), *k))
            }
            (Sym::Bits(_, k), Sym::FloatBits(x, view)) => Some((
                x,
                view,
                fpscout_walk::floatpath::int_predicate(pred).swapped(),
                *k,
            )),
            _ => None,
        };
        if let Some((x, view, predicate, k)) = view_test {
            // `signbit`'s `bits < 0`, fdlibm's `ix >= 0x7ff00000`, `j0 < 20`: the floats
            // passing the test, as ranges of the real.
            return Ok(Sym::Bool(real_in_set(x, &view.satisfying(predicate, k))));
        }
        let (x, y) = (self.int_term(a, width)?, self.int_term(b, width)?);
        Ok(Sym::Bool(match pred {
            ICmpPred::Eq => x.eq(&y),
            ICmpPred::Ne => x.eq(&y).not(),
            ICmpPred::Sgt | ICmpPred::Ugt => x.gt(&y),
            ICmpPred::Sge | ICmpPred::Uge => x.ge(&y),
            ICmpPred::Slt | ICmpPred::Ult => x.lt(&y),
            ICmpPred::Sle | ICmpPred::Ule => x.le(&y),
        }))
    }

    fn iabs(&mut self, width: u32, a: &Sym) -> DResult<Sym> {
        match a {
            Sym::Bits(t, bits) => Ok(Sym::Bits(
                *t,
                truncate_bits(sign_extend(*bits, width).wrapping_abs() as u64, width),
            )),
            Sym::Int(i, w) => Ok(Sym::Int(i.lt(Int::from_i64(0)).ite(&-i, i), *w)),
            _ => Err(WalkError::unsupported("abs of a non-integer")),
        }
    }

    fn select(&mut self, cond: &Sym, a: &Sym, b: &Sym) -> DResult<Sym> {
        if let Sym::Bits(_, c) = cond {
            return Ok(if c & 1 != 0 { a.clone() } else { b.clone() });
        }
        let c = self.bool_of(cond)?;
        if is_extended(a) || is_extended(b) {
            return join_cases(vec![(c.clone(), a.clone()), (c.not(), b.clone())]);
        }
        match (a, b) {
            (Sym::Bool(_), _) | (_, Sym::Bool(_)) => {
                Ok(Sym::Bool(c.ite(&self.bool_of(a)?, &self.bool_of(b)?)))
            }
            (Sym::Int(..), _)
            | (_, Sym::Int(..))
            | (Sym::Bits(ScalarTy::Int(_), _), Sym::Bits(ScalarTy::Int(_), _)) => {
                let w = match (a, b) {
                    (Sym::Int(_, w), _) | (_, Sym::Int(_, w)) => *w,
                    (Sym::Bits(ScalarTy::Int(w), _), _) => *w,
                    _ => 64,
                };
                let int = |v: &Sym| match v {
                    Sym::Int(i, _) => Ok(i.clone()),
                    Sym::Bits(_, bits) => Ok(Int::from_i64(sign_extend(*bits, w))),
                    _ => Err(WalkError::unsupported(
                        "select between an integer and a float",
                    )),
                };
                Ok(Sym::Int(c.ite(&int(a)?, &int(b)?), w))
            }
            _ => Ok(Sym::Real(c.ite(&self.real_of(a)?, &self.real_of(b)?))),
        }
    }

    /// Ariadne's treatment of a function it cannot see into: its float or integer result
    /// is a fresh variable (the exceptions it raises inside are the native run's to find).
    fn native_call(
        &mut self,
        call: &ExternalCall,
        _args: &[Sym],
        _site: Option<OpSite>,
    ) -> DResult<Option<Sym>> {
        match call.ret {
            Type::Void => Ok(None),
            Type::Scalar(ScalarTy::Float(_)) => Ok(Some(Sym::Real(self.fresh_real(&call.name, None)))),
            // An integer result (`ilogb`, `fetestexcept`) is any integer of its width: the
            // native run decides which.
            Type::Scalar(ScalarTy::Int(width)) if width > 1 && width <= 64 => {
                Ok(Some(self.opaque_int(width)))
            }
            _ => Err(WalkError::unsupported(format!(
                "symbolic result of external function '{}' (only number results become fresh variables)",
                call.name
            ))),
        }
    }

    fn decide(&mut self, cond: &Sym) -> DResult<Decision> {
        let c = match cond {
            Sym::Bits(_, b) => return Ok(Decision::Known(b & 1 != 0)),
            other => {
                let c = self.bool_of(other)?;
                // Z3's simplify has no time limit, and on the terms of a long loop it can
                // run for minutes: only small conditions are simplified (the solver
                // checks below run forked, under their timeout, either way).
                if at_most_nodes(&c, SIMPLIFY_NODES) {
                    c.simplify()
                } else {
                    c
                }
            }
        };
        if let Some(b) = c.as_bool() {
            return Ok(Decision::Known(b));
        }
        let can_true = self.feasible(&c);
        let can_false = self.feasible(&c.not());
        Ok(match (can_true, can_false) {
            (true, true) => Decision::Both,
            (true, false) => Decision::Known(true),
            (false, true) => Decision::Known(false),
            // The path itself is infeasible (only after an unknown earlier); stop forking.
            (false, false) => Decision::Known(false),
        })
    }

    fn assume(&mut self, cond: &Sym, taken: bool) -> DResult<bool> {
        let c = self.bool_of(cond)?;
        self.pc.push(if taken { c } else { c.not() });
        Ok(true)
    }
}

impl SymReal {
    /// min/max/copysign where an operand is an infinite or NaN constant or has cases
    /// (known bits on both sides run on the processor): SSE min/max are `a < b ? a : b`
    /// (`>` for max; the second operand on a NaN, which raises invalid), C's fmin/fmax
    /// ignore a NaN operand, `copysign` takes a known sign or cases by the real's sign.
    fn fbinary_non_finite(
        &mut self,
        op: FBinaryOp,
        ty: FloatTy,
        a: &Sym,
        b: &Sym,
        site: OpSite,
    ) -> DResult<Sym> {
        if let (Sym::Bits(_, x), Sym::Bits(_, y)) = (a, b) {
            let (x, y) = (*x, *y);
            return self
                .known(site, |k| k.fbinary(op, ty, &x, &y, site))
                .map(|r| Sym::Bits(ScalarTy::Float(ty), r));
        }
        let is_nan = |v: &Sym| non_finite_bits(ty, v).is_some_and(|c| float_value(ty, c).is_nan());
        let flt = |bits: u64| Sym::Bits(ScalarTy::Float(ty), bits);
        match op {
            FBinaryOp::MinNum | FBinaryOp::MaxNum if is_nan(a) => Ok(b.clone()),
            FBinaryOp::MinNum | FBinaryOp::MaxNum if is_nan(b) => Ok(a.clone()),
            FBinaryOp::MinNum | FBinaryOp::MaxNum | FBinaryOp::MinSse | FBinaryOp::MaxSse => {
                if is_nan(a) || is_nan(b) {
                    self.record(site, ExceptionKind::Invalid, Bool::from_bool(true));
                }
                let pred = match op {
                    FBinaryOp::MinNum | FBinaryOp::MinSse => FCmpPred::Olt,
                    _ => FCmpPred::Ogt,
                };
                let first = self.fcmp(pred, CmpLowering::Quiet, ty, a, b, site)?;
                self.select(&first, a, b)
            }
            FBinaryOp::CopySign => match (a, b) {
                (_, Sym::Bits(_, sign)) => {
                    let magnitude = self.funary(FUnaryOp::Fabs, ty, a, site)?;
                    if sign & sign_bit(ty) != 0 {
                        self.fneg(ty, &magnitude)
                    } else {
                        Ok(magnitude)
                    }
                }
                (Sym::Bits(_, magnitude), _) => {
                    let y = self.real_of(b)?;
                    let positive = magnitude & !sign_bit(ty);
                    join_cases(vec![
                        (y.lt(zero()), flt(positive | sign_bit(ty))),
                        (y.lt(zero()).not(), flt(positive)),
                    ])
                }
                _ => Err(WalkError::unsupported(
                    "copysign of two symbolic values, one infinite or NaN",
                )),
            },
        }
    }

    fn sqrt(&mut self, x: Real, ty: FloatTy, site: OpSite) -> DResult<Sym> {
        self.record(site, ExceptionKind::Invalid, x.lt(zero()));
        let s = self.fresh_real("sqrt", Some((MathFn::Sqrt, vec![x.clone()], ty)));
        self.define(
            x.ge(zero())
                .implies(Bool::and(&[s.ge(zero()), (&s * &s).eq(&x)])),
        );
        Ok(Sym::Real(s))
    }

    /// The conjuncts of the current path condition, defining facts of fresh variables
    /// included.
    pub fn path_condition(&self) -> &[Bool] {
        &self.pc
    }
}

/// Result magnitudes at which an envelope pins an increasing elementary function: the
/// ends of the normal and subnormal ranges, where exceptions start, and the decades
/// between.
const ENVELOPE_VALUES_F64: [f64; 21] = [
    5e-324,
    2.2250738585072014e-308,
    1e-300,
    1e-200,
    1e-100,
    1e-30,
    1e-10,
    1e-3,
    0.1,
    0.5,
    1.0,
    2.0,
    10.0,
    1e3,
    1e10,
    1e30,
    1e100,
    1e200,
    1e300,
    1e307,
    f64::MAX,
];
const ENVELOPE_VALUES_F32: [f64; 14] = [
    1.401298464324817e-45,
    1.1754943508222875e-38,
    1e-30,
    1e-10,
    1e-3,
    0.1,
    0.5,
    1.0,
    2.0,
    10.0,
    1e3,
    1e10,
    1e30,
    3.4028234663852886e38,
];

/// Facts tying the fresh result `r` of an increasing elementary function to its argument
/// `x` (Ariadne's range facts for dependent variables, made piecewise): at each of a few
/// points p, x ≤ p implies r ≤ f(p) and x ≥ p implies r ≥ f(p), with f(p) widened by a
/// relative margin above the library's error and the result's rounding. A model then puts
/// `exp(-x*x)` below the smallest normal only for x where it truly is, instead of anywhere.
fn monotone_envelope(func: MathFn, ty: FloatTy, x: &Real, r: &Real) -> Vec<Bool> {
    let values: &[f64] = match ty {
        FloatTy::F64 => &ENVELOPE_VALUES_F64,
        FloatTy::F32 => &ENVELOPE_VALUES_F32,
    };
    let margin = match ty {
        FloatTy::F64 => 1e-14,
        FloatTy::F32 => 1e-6,
    };
    // (argument, value) pairs of the function at the envelope points.
    let points: Vec<(f64, f64)> = match func {
        MathFn::Exp => values
            .iter()
            .map(|v| v.ln())
            .map(|p| (p, p.exp()))
            .collect(),
        MathFn::Exp2 => values
            .iter()
            .map(|v| v.log2())
            .map(|p| (p, p.exp2()))
            .collect(),
        MathFn::Expm1 => values
            .iter()
            .map(|v| v.ln())
            .map(|p| (p, p.exp_m1()))
            .collect(),
        MathFn::Log => values.iter().map(|&v| (v, v.ln())).collect(),
        MathFn::Log2 => values.iter().map(|&v| (v, v.log2())).collect(),
        MathFn::Log10 => values.iter().map(|&v| (v, v.log10())).collect(),
        MathFn::Log1p => values.iter().map(|&v| (v, v.ln_1p())).collect(),
        _ => return Vec::new(),
    };
    let mut facts = Vec::new();
    for (p, value) in points {
        if !(p.is_finite() && value.is_finite()) {
            continue;
        }
        let slack = value.abs() * margin + f64::from_bits(1);
        let (below, above) = (value - slack, value + slack);
        let at = float_to_real(p);
        facts.push(x.le(&at).implies(r.le(float_to_real(above))));
        facts.push(x.ge(&at).implies(r.ge(float_to_real(below))));
    }
    facts
}

fn sign_bit(ty: FloatTy) -> u64 {
    match ty {
        FloatTy::F32 => 0x8000_0000,
        FloatTy::F64 => 0x8000_0000_0000_0000,
    }
}

/// Constant folding for known operands, with IEEE semantics (no events: the constant
/// inputs do not depend on the function's inputs).
fn concrete_fbin(op: FBinOp, ty: FloatTy, a: &Sym, b: &Sym) -> DResult<Sym> {
    let (Sym::Bits(_, x), Sym::Bits(_, y)) = (a, b) else {
        return Err(WalkError::unsupported(
            "constant folding of symbolic values",
        ));
    };
    let bits = match ty {
        FloatTy::F64 => {
            let (x, y) = (f64::from_bits(*x), f64::from_bits(*y));
            match op {
                FBinOp::FAdd => x + y,
                FBinOp::FSub => x - y,
                FBinOp::FMul => x * y,
                FBinOp::FDiv => x / y,
                FBinOp::FRem => x % y,
            }
            .to_bits()
        }
        FloatTy::F32 => {
            let (x, y) = (f32::from_bits(*x as u32), f32::from_bits(*y as u32));
            u64::from(
                match op {
                    FBinOp::FAdd => x + y,
                    FBinOp::FSub => x - y,
                    FBinOp::FMul => x * y,
                    FBinOp::FDiv => x / y,
                    FBinOp::FRem => x % y,
                }
                .to_bits(),
            )
        }
    };
    Ok(Sym::Bits(ScalarTy::Float(ty), bits))
}

fn concrete_cast(op: CastOp, from: ScalarTy, to: ScalarTy, a: &Sym) -> DResult<Sym> {
    let Sym::Bits(_, bits) = a else {
        return Err(WalkError::unsupported("symbolic cast"));
    };
    let bits = *bits;
    let out = match (op, from, to) {
        (CastOp::Trunc | CastOp::BitCast, _, ScalarTy::Int(w)) => truncate_bits(bits, w),
        (CastOp::BitCast, _, _) => bits,
        (CastOp::ZExt, ScalarTy::Int(w), _) => truncate_bits(bits, w),
        (CastOp::SExt, ScalarTy::Int(w), ScalarTy::Int(t)) => {
            truncate_bits(sign_extend(bits, w) as u64, t)
        }
        (CastOp::SIToFP, ScalarTy::Int(w), ScalarTy::Float(FloatTy::F64)) => {
            (sign_extend(bits, w) as f64).to_bits()
        }
        (CastOp::SIToFP, ScalarTy::Int(w), ScalarTy::Float(FloatTy::F32)) => {
            u64::from((sign_extend(bits, w) as f32).to_bits())
        }
        (CastOp::UIToFP, ScalarTy::Int(w), ScalarTy::Float(FloatTy::F64)) => {
            (truncate_bits(bits, w) as f64).to_bits()
        }
        (CastOp::UIToFP, ScalarTy::Int(w), ScalarTy::Float(FloatTy::F32)) => {
            u64::from((truncate_bits(bits, w) as f32).to_bits())
        }
        (CastOp::FPExt, _, _) => f64::from(f32::from_bits(bits as u32)).to_bits(),
        (CastOp::FPTrunc, _, _) => u64::from((f64::from_bits(bits) as f32).to_bits()),
        (CastOp::FPToSI | CastOp::FPToUI, ScalarTy::Float(f), ScalarTy::Int(w)) => {
            let x = match f {
                FloatTy::F64 => f64::from_bits(bits),
                FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
            };
            truncate_bits(x as i64 as u64, w)
        }
        _ => {
            return Err(WalkError::unsupported(format!(
                "constant conversion {op:?} {from} → {to}"
            )))
        }
    };
    Ok(Sym::Bits(to, out))
}

/// Terms larger than this (counted as a tree) are not simplified while deciding a branch.
const SIMPLIFY_NODES: usize = 4096;

/// Whether `e` has at most `limit` nodes counted as a tree (a shared subterm counts each
/// time it occurs); the count stops at the limit, so the cost is bounded by it.
fn at_most_nodes(e: &impl Ast, limit: usize) -> bool {
    let mut stack = e.children();
    let mut seen = 1usize;
    while let Some(node) = stack.pop() {
        seen += 1;
        if seen > limit {
            return false;
        }
        stack.extend(node.children());
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elementary_results_and_remainders_are_recorded_as_dependents() {
        let _turn = crate::z3_turn();
        let mut d = SymReal::new("p.", 100);
        let x = d.real_input("x", FloatTy::F64, None);
        let y = d.real_input("y", FloatTy::F64, None);
        let site = OpSite {
            op: FpOpId(0),
            lane: 0,
        };
        let e = d
            .math(MathFn::Exp, FloatTy::F64, std::slice::from_ref(&x), site)
            .unwrap();
        let p = d
            .math(MathFn::Pow, FloatTy::F32, &[e.clone(), y.clone()], site)
            .unwrap();
        d.fbin(FBinOp::FRem, FloatTy::F64, &p, &x, site).unwrap();
        let names: Vec<&str> = d.dependents.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["p.exp_1", "p.pow_2", "p.frem_3"]);
        let Some((f, args, ty)) = &d.dependents[1].def else {
            panic!("pow has a definition")
        };
        assert_eq!((*f, *ty), (MathFn::Pow, FloatTy::F32));
        assert_eq!(args.len(), 2);
        assert_eq!(args[0], Real::new_const("p.exp_1"));
        assert_eq!(args[1], Real::new_const("y"));
        assert!(d.dependents[2].def.is_none());
    }

    #[test]
    fn output_pointer_libm_results() {
        let _turn = crate::z3_turn();
        let mut d = SymReal::new("p.", 100);
        let x = d.real_input("x", FloatTy::F64, None);
        let y = d.real_input("y", FloatTy::F64, None);
        let site = OpSite {
            op: FpOpId(0),
            lane: 0,
        };
        let real = |s: &Sym| match s {
            Sym::Real(r) => r.clone(),
            other => panic!("{other:?} is not a real term"),
        };
        let at = |t: &Real, v: f64| {
            let xv = float_to_real(v);
            t.substitute(&[(&Real::new_const("x"), &xv)]).simplify()
        };
        // modf is exact over the reals: trunc(x) and x − trunc(x), no fresh variables.
        let (frac, outs) = d
            .math_out(
                OutMathFn::Modf,
                FloatTy::F64,
                std::slice::from_ref(&x),
                site,
            )
            .unwrap();
        let (frac, ip) = (real(&frac.unwrap()), real(outs[0].as_ref().unwrap()));
        assert_eq!(at(&ip, 3.75), float_to_real(3.0));
        assert_eq!(at(&frac, 3.75), float_to_real(0.75));
        assert_eq!(at(&ip, -0.5), float_to_real(0.0));
        assert_eq!(at(&frac, -0.5), float_to_real(-0.5));
        assert!(d.dependents.is_empty());
        // remquo: invalid exactly at y = 0; a fresh remainder and quotient.
        let (r, outs) = d
            .math_out(
                OutMathFn::Remquo,
                FloatTy::F64,
                &[x.clone(), y.clone()],
                site,
            )
            .unwrap();
        assert!(matches!(r, Some(Sym::Real(_))));
        assert!(matches!(outs[..], [Some(Sym::Int(_, 32))]));
        assert_eq!(d.conditions.len(), 1);
        assert_eq!(d.conditions[0].kind, ExceptionKind::Invalid);
        // sincos: sin and cos results the fallback solver can recompute.
        let (none, outs) = d
            .math_out(
                OutMathFn::Sincos,
                FloatTy::F64,
                std::slice::from_ref(&x),
                site,
            )
            .unwrap();
        assert!(none.is_none() && outs.len() == 2);
        let defs: Vec<Option<MathFn>> = d
            .dependents
            .iter()
            .map(|v| v.def.as_ref().map(|(f, _, _)| *f))
            .collect();
        assert_eq!(
            defs,
            [None, None, Some(MathFn::Sin), Some(MathFn::Cos)],
            "remquo's remainder and quotient, then sin and cos"
        );
        // lgamma_r: division by zero at the poles, overflow for huge x.
        let n = d.conditions.len();
        d.math_out(OutMathFn::LgammaR, FloatTy::F64, &[y], site)
            .unwrap();
        let kinds: Vec<ExceptionKind> = d.conditions[n..].iter().map(|c| c.kind).collect();
        assert_eq!(kinds, [ExceptionKind::DivByZero, ExceptionKind::Overflow]);
        // Concrete arguments are computed by glibc; remquo by zero leaves the quotient.
        let five = Sym::Bits(ScalarTy::Float(FloatTy::F64), 5f64.to_bits());
        let zero = Sym::Bits(ScalarTy::Float(FloatTy::F64), 0);
        let before = d.conditions.len();
        let (r, outs) = d
            .math_out(OutMathFn::Remquo, FloatTy::F64, &[five, zero], site)
            .unwrap();
        assert!(matches!(r, Some(Sym::Bits(_, b)) if f64::from_bits(b).is_nan()));
        assert!(outs[0].is_none());
        assert_eq!(d.conditions.len(), before + 1);
        assert_eq!(d.conditions[before].kind, ExceptionKind::Invalid);
    }
}

#[cfg(test)]
mod bit_view_tests {
    use super::*;
    use fpscout_fpsolve::IntPredicate;

    /// The reals `real_in_set` admits for fdlibm's tests on the high word are the reals
    /// rounding to doubles that pass the test natively (the overflow threshold on for
    /// infinities, a real 0 as +0).
    #[test]
    fn word_tests_admit_the_reals_rounding_to_passing_doubles() {
        let _turn = crate::z3_turn();
        let hx = BitView::of(Format::F64)
            .lshr(32)
            .and_then(|v| v.trunc(32))
            .expect("high word");
        let ix = hx.and(0x7fff_ffff).expect("ix");
        let tests: [(BitView, IntPredicate, u64); 5] = [
            (ix, IntPredicate::Sge, 0x7ff0_0000),
            (ix, IntPredicate::Slt, 0x7ff0_0000),
            (ix, IntPredicate::Slt, 0x3e40_0000),
            (hx, IntPredicate::Slt, 0),
            (hx, IntPredicate::Sge, 0x3ff0_0000),
        ];
        let x = Real::new_const("x");
        let two_1024 =
            crate::numeral::rational_to_real(&rug::Rational::from(rug::Integer::from(1) << 1024));
        // Each real and the double it rounds to.
        let points: Vec<(Real, f64)> = [
            0.0,
            1.0,
            -1.0,
            1e-9,
            7.0e-9,
            -7.0e-9,
            1.5,
            f64::MAX,
            -f64::MAX,
            1e300,
        ]
        .iter()
        .map(|&v| (float_to_real(v), v))
        .chain([
            (two_1024.clone(), f64::INFINITY),
            (-two_1024, f64::NEG_INFINITY),
        ])
        .collect();
        for (view, predicate, k) in tests {
            let condition = real_in_set(&x, &view.satisfying(predicate, k));
            for (real, double) in &points {
                let high = (double.to_bits() >> 32) as u32;
                let value = if view == ix { high & 0x7fff_ffff } else { high };
                let passes = match predicate {
                    IntPredicate::Sge => value as i32 >= k as i32,
                    IntPredicate::Slt => (value as i32) < k as i32,
                    _ => unreachable!("only the predicates above"),
                };
                let solver = Solver::new();
                solver.assert(x.eq(real));
                solver.assert(&condition);
                let admitted = solver.check() == SatResult::Sat;
                assert_eq!(admitted, passes, "{predicate:?} {k:#x} at {double}");
            }
        }
    }
}

#[cfg(test)]
mod envelope_tests {
    use super::*;

    /// Every fact of an envelope holds at the library's own results, for arguments on both
    /// sides of every point (the facts may only remove models no input has).
    #[test]
    fn envelopes_hold_at_the_library_results() {
        let _turn = crate::z3_turn();
        type Library = fn(f64) -> f64;
        let functions: [(MathFn, Library, FloatTy); 8] = [
            (MathFn::Exp, f64::exp, FloatTy::F64),
            (MathFn::Exp2, f64::exp2, FloatTy::F64),
            (MathFn::Expm1, f64::exp_m1, FloatTy::F64),
            (MathFn::Log, f64::ln, FloatTy::F64),
            (MathFn::Log2, f64::log2, FloatTy::F64),
            (MathFn::Log10, f64::log10, FloatTy::F64),
            (MathFn::Log1p, f64::ln_1p, FloatTy::F64),
            (MathFn::Exp, |x| f64::from((x as f32).exp()), FloatTy::F32),
        ];
        let arguments = [
            -800.0, -745.2, -745.0, -708.5, -708.3, -300.0, -20.0, -1.0, -1e-5, 0.0, 1e-300,
            2.2e-308, 1e-5, 0.5, 1.0, 1.5, 10.0, 88.0, 700.0, 709.7, 709.8, 1e10, 1e300,
        ];
        for (func, f, ty) in functions {
            for &a in &arguments {
                let a = if ty == FloatTy::F32 {
                    f64::from(a as f32)
                } else {
                    a
                };
                let value = f(a);
                if !value.is_finite() {
                    continue;
                }
                let (x, r) = (float_to_real(a), float_to_real(value));
                for fact in monotone_envelope(func, ty, &x, &r) {
                    assert_eq!(
                        fact.simplify().as_bool(),
                        Some(true),
                        "{func:?} at {a:e} = {value:e}: {fact}"
                    );
                }
            }
        }
        // The envelope is tight where it matters: exp(-x²) below the smallest normal
        // forces x² above 708.
        let x = Real::new_const("x");
        let r = Real::new_const("r");
        let facts = monotone_envelope(MathFn::Exp, FloatTy::F64, &x, &r);
        let solver = Solver::new();
        for fact in &facts {
            solver.assert(fact);
        }
        solver.assert(r.lt(float_to_real(f64::MIN_POSITIVE / 2.0)));
        solver.assert(x.gt(float_to_real(-700.0)));
        assert_eq!(solver.check(), SatResult::Unsat);
    }
}
