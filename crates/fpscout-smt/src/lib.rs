//! The only crate that knows Z3: the symbolic real domain, exception formulas, solving in
//! parallel (Z3, and Ariadne's fallback solver by root isolation), and exact model values
//! rounded to floats.

pub mod collect;
pub mod exact;
pub mod fallback;
pub mod fp_theory;
pub mod isolate;
pub mod numeral;
pub mod queries;
pub mod roots;
pub mod symbolic;

pub use collect::{
    any_loose, collect, dedupe, differential_query, plain_query, solve_all, CollectOptions,
    Collected, ParamSpec, Query, QueryPool, Verdict,
};
pub use exact::{exact_value, exact_value_within, ExactArg};
pub use fallback::{fallback_solve, FallbackInput, FallbackOptions, FallbackPool};
pub use fp_theory::{solve_fp_theory, FpTheoryAnswer};
pub use queries::QuerySet;
pub use roots::{Poly, RootError, RootInterval};
pub use symbolic::{Dependent, ExceptionCondition, Sym, SymReal, VarDecl};

/// Solving forks the calling thread, which is only safe while no other thread is inside
/// Z3 (invariant 7): every unit test of this crate that uses Z3 takes its turn here.
#[cfg(test)]
pub(crate) fn z3_turn() -> std::sync::MutexGuard<'static, ()> {
    static ONE_Z3_USER: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE_Z3_USER.lock().unwrap_or_else(|e| e.into_inner())
}
