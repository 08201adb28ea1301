//! Exact real value of a function at a float input: the symbolic domain run on rational
//! constants, so every operation is exact and every branch folds (rational functions and
//! square roots; other elementary functions make the value non-numeric and yield `None`).

use crate::isolate::{self, run_forked};
use crate::numeral::{rational_to_real, real_value};
use crate::symbolic::{Sym, SymReal};
use fpscout_ir::{FuncId, Module, ScalarTy, Type};
use fpscout_walk::{Outcome, Val, WalkConfig, Walker};
use rug::Rational;
use std::time::Duration;
use z3::ast::Ast;

/// The value of `r` when every fresh variable it may depend on is a square root: their
/// defining facts (`s ≥ 0 ∧ s² = x` on the path) fix them, so the value is the algebraic
/// number Z3 finds, returned to 30 significant digits. Other fresh variables (results of
/// `exp`, `sin`, external functions) have no defining equation and give `None`.
fn algebraic_value(domain: &SymReal, r: &z3::ast::Real) -> Option<Rational> {
    if !domain.vars.iter().all(|v| v.name.contains("sqrt_")) {
        return None;
    }
    let solver = z3::Solver::new();
    for fact in domain.path_condition() {
        solver.assert(fact);
    }
    let value = z3::ast::Real::new_const("exact.value");
    solver.assert(value.eq(r));
    if solver.check() != z3::SatResult::Sat {
        return None;
    }
    let model = solver.get_model()?;
    real_value(&model.eval(&value, true)?.simplify(), 30)
}

/// An argument for an exact evaluation.
#[derive(Clone, Debug)]
pub enum ExactArg {
    Real(Rational),
    Int(u64),
    Array(Vec<Rational>),
}

/// How long an exact evaluation may take: iterations (Newton steps, say) double the size
/// of their rationals each time, so some functions have no exact value worth computing.
const EXACT_TIME_LIMIT: Duration = Duration::from_secs(2);

/// The exact real result of `func` on `args`, or `None` when it is not a rational number
/// (elementary functions, non-numeric results), the walk fails, or it takes longer than
/// [`EXACT_TIME_LIMIT`] (it runs in a forked child, see [`crate::isolate`]).
pub fn exact_value(module: &Module, func: FuncId, args: &[ExactArg]) -> Option<Rational> {
    exact_value_within(module, func, args, EXACT_TIME_LIMIT)
}

/// As [`exact_value`], given up after `limit`.
pub fn exact_value_within(
    module: &Module,
    func: FuncId,
    args: &[ExactArg],
    limit: Duration,
) -> Option<Rational> {
    let outcome = run_forked(1, 1, limit, None, &|_| {
        exact_value_here(module, func, args)
            .map(|q| q.to_string())
            .unwrap_or_default()
    });
    match outcome.first() {
        Some(isolate::Outcome::Done(text)) if !text.is_empty() => text.parse().ok(),
        _ => None,
    }
}

fn exact_value_here(module: &Module, func: FuncId, args: &[ExactArg]) -> Option<Rational> {
    let f = module.function(func);
    let domain = SymReal::new("exact.", 1000);
    let mut walker = Walker::new(
        module,
        domain,
        WalkConfig {
            step_budget: 1_000_000,
            ..WalkConfig::default()
        },
    )
    .ok()?;
    let mut vals = Vec::new();
    for (p, a) in f.params.iter().zip(args) {
        vals.push(match (p.ty, a) {
            (Type::Scalar(ScalarTy::Float(_)), ExactArg::Real(q)) => {
                Val::Scalar(Sym::Real(rational_to_real(q)))
            }
            (Type::Scalar(ScalarTy::Int(w)), ExactArg::Int(b)) => {
                Val::Scalar(Sym::Bits(ScalarTy::Int(w), *b))
            }
            (Type::Scalar(ScalarTy::Ptr), ExactArg::Array(qs)) => {
                let ty = p
                    .pointee
                    .unwrap_or(ScalarTy::Float(fpscout_ir::FloatTy::F64));
                let elems = qs.iter().map(|q| Sym::Real(rational_to_real(q))).collect();
                Val::Ptr(walker.alloc_array(&p.name, ty, elems).ok()?)
            }
            _ => return None,
        });
    }
    match walker.run(func, vals) {
        Ok(Outcome::Returned(Some(Val::Scalar(Sym::Real(r))))) => {
            real_value(&r.simplify(), 30).or_else(|| algebraic_value(&walker.domain, &r))
        }
        Ok(Outcome::Returned(Some(Val::Scalar(Sym::Bits(ScalarTy::Float(ty), bits))))) => {
            crate::numeral::float_value(bits, ty)
        }
        _ => None,
    }
}
