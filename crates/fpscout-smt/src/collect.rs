//! Step 1 of `diff` ("Solve"): walk every path of a build symbolically, gather the
//! exception conditions of every floating-point operation as self-contained SMT-LIB
//! queries, and solve them in parallel, each worker with its own Z3 context.

use crate::numeral::real_value;
use crate::symbolic::{Sym, SymReal};
use fpscout_ir::{ExceptionKind, FloatTy, FpOpId, FuncId, Module, ScalarTy, Type};
use fpscout_walk::{ExploreLimits, PathEnd, StopReason, Val, WalkConfig, Walker};
use rug::Rational;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use z3::ast::{Ast, Bool, Real};
use z3::Synchronized;
use z3::{Params, SatResult, Solver};

/// How one parameter enters the symbolic walk.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamSpec {
    /// A symbolic float, finite, optionally inside `[lo, hi]`.
    Float {
        name: String,
        ty: FloatTy,
        range: Option<(f64, f64)>,
    },
    /// A concrete integer (bits).
    Int { bits: u64 },
    /// An array of `len` symbolic floats named `name[i]`, each optionally inside a range.
    FloatArray {
        name: String,
        ty: FloatTy,
        len: usize,
        range: Option<(f64, f64)>,
    },
}

impl ParamSpec {
    /// The SMT names of the float inputs this parameter introduces, with their types.
    pub fn inputs(&self) -> Vec<(String, FloatTy)> {
        match self {
            ParamSpec::Float { name, ty, .. } => vec![(name.clone(), *ty)],
            ParamSpec::Int { .. } => vec![],
            ParamSpec::FloatArray { name, ty, len, .. } => {
                (0..*len).map(|i| (format!("{name}[{i}]"), *ty)).collect()
            }
        }
    }
}

/// Limits of the symbolic phase.
#[derive(Clone, Copy, Debug)]
pub struct CollectOptions {
    pub loop_bound: u32,
    pub max_paths: usize,
    pub step_budget: u64,
    /// Timeout of each branch-feasibility check.
    pub check_timeout_ms: u32,
}

impl Default for CollectOptions {
    fn default() -> Self {
        CollectOptions {
            loop_bound: 8,
            max_paths: 256,
            step_budget: 200_000,
            check_timeout_ms: 500,
        }
    }
}

/// One exception condition of one build.
#[derive(Clone, Debug)]
pub struct Query {
    pub op: FpOpId,
    pub lane: u32,
    pub kind: ExceptionKind,
    /// The condition under its path condition (input constraints not included).
    pub formula: Bool,
    /// Tightened and widened versions (see `ExceptionCondition`).
    pub robust: Bool,
    pub loose: Bool,
}

/// What the symbolic walk of one build produced.
#[derive(Clone, Debug, Default)]
pub struct Collected {
    pub queries: Vec<Query>,
    /// Constraints on the inputs (finite, inside the ranges), to conjoin with every query.
    pub constraints: Vec<Bool>,
    pub paths: usize,
    /// Why exploration stopped early, and paths that ended on a limit or an error.
    pub stopped: Vec<String>,
    pub unknown_checks: u32,
}

/// Walks every path of `func` with symbolic inputs and gathers its exception conditions.
/// `prefix` names the fresh variables of this build (`p.`, `q.`) so builds never clash.
pub fn collect(
    module: &Module,
    func: FuncId,
    params: &[ParamSpec],
    prefix: &str,
    opts: CollectOptions,
) -> Result<Collected, String> {
    let f = module.function(func);
    if let Some(why) = &f.unsupported {
        return Err(why.clone());
    }
    if params.len() != f.params.len() {
        return Err(format!(
            "{} takes {} parameters, {} specified",
            f.display_name,
            f.params.len(),
            params.len()
        ));
    }
    let domain = SymReal::new(prefix, opts.check_timeout_ms);
    let config = WalkConfig {
        step_budget: opts.step_budget,
        ..WalkConfig::default()
    };
    let mut walker = Walker::new(module, domain, config).map_err(|e| e.to_string())?;
    let mut args = Vec::new();
    for (p, spec) in f.params.iter().zip(params) {
        match (p.ty, spec) {
            (Type::Scalar(ScalarTy::Float(ty)), ParamSpec::Float { name, range, .. }) => {
                args.push(Val::Scalar(walker.domain.real_input(name, ty, *range)));
            }
            (Type::Scalar(ScalarTy::Int(w)), ParamSpec::Int { bits }) => {
                args.push(Val::Scalar(Sym::Bits(ScalarTy::Int(w), *bits)));
            }
            (
                Type::Scalar(ScalarTy::Ptr),
                ParamSpec::FloatArray {
                    name,
                    ty,
                    len,
                    range,
                },
            ) => {
                let elems: Vec<Sym> = (0..*len)
                    .map(|i| {
                        walker
                            .domain
                            .real_input(&format!("{name}[{i}]"), *ty, *range)
                    })
                    .collect();
                let ptr = walker
                    .alloc_array(name, ScalarTy::Float(*ty), elems)
                    .map_err(|e| e.to_string())?;
                args.push(Val::Ptr(ptr));
            }
            (ty, spec) => {
                return Err(format!(
                    "parameter '{}' of type {ty} cannot be {spec:?}",
                    p.name
                ))
            }
        }
    }
    let limits = ExploreLimits {
        max_paths: opts.max_paths,
        loop_bound: opts.loop_bound,
    };
    let mut stopped = Vec::new();
    let summary = walker.explore(func, args, limits, |_, end| match end {
        PathEnd::Returned(_) => {}
        PathEnd::Stopped(r) => stopped.push(r.to_string()),
        PathEnd::Failed(e) => stopped.push(e.to_string()),
    });
    if let Some(StopReason::PathBudget { paths }) = summary.stopped {
        stopped.push(format!("path budget of {paths} paths exhausted"));
    }
    let domain = &walker.domain;
    let queries: Vec<Query> = domain
        .conditions
        .iter()
        .map(|c| Query {
            op: c.site.op,
            lane: c.site.lane,
            kind: c.kind,
            formula: c.formula.clone(),
            robust: c.robust.clone(),
            loose: c.loose.clone(),
        })
        .collect();
    let constraints = domain.input_constraints().to_vec();
    Ok(Collected {
        queries,
        constraints,
        paths: summary.paths,
        stopped,
        unknown_checks: domain.unknown_checks,
    })
}

/// Outcome of one query.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Satisfiable, with the exact value of each requested input.
    Sat(Vec<Rational>),
    Unsat,
    /// Unknown or timed out, with Z3's reason.
    Unknown(String),
    /// Skipped: the solving budget ran out first.
    NotAttempted,
}

/// Solves formulas in parallel: `threads` workers, each with its own thread-local Z3
/// context. Formulas move between contexts by translation, which keeps their sharing (a
/// textual SMT-LIB form of an unrolled loop's terms is exponentially large). Reads the
/// values of `inputs` from each model.
pub fn solve_all(
    formulas: &[Bool],
    inputs: &[String],
    timeout_ms: u32,
    threads: usize,
    deadline: Option<std::time::Instant>,
) -> Vec<Verdict> {
    if formulas.is_empty() {
        return Vec::new();
    }
    let shared = Synchronized::new(&formulas.to_vec());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Verdict>>> = Mutex::new(vec![None; formulas.len()]);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1).min(formulas.len()) {
            scope.spawn(|| {
                let local: Vec<Bool> = shared.recover();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= local.len() {
                        break;
                    }
                    let verdict = match deadline {
                        Some(d) if std::time::Instant::now() >= d => Verdict::NotAttempted,
                        _ => solve_one(&local[i], inputs, timeout_ms),
                    };
                    if let Ok(mut r) = results.lock() {
                        r[i] = Some(verdict);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .map(|v| v.unwrap_or_else(|| Verdict::Unknown("worker failed".into())))
        .collect()
}

fn solve_one(formula: &Bool, inputs: &[String], timeout_ms: u32) -> Verdict {
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32("timeout", timeout_ms);
    solver.set_params(&params);
    solver.assert(formula);
    match solver.check() {
        SatResult::Unsat => Verdict::Unsat,
        SatResult::Unknown => Verdict::Unknown(
            solver
                .get_reason_unknown()
                .unwrap_or_else(|| "unknown".into()),
        ),
        SatResult::Sat => {
            let Some(model) = solver.get_model() else {
                return Verdict::Unknown("no model".into());
            };
            let mut values = Vec::with_capacity(inputs.len());
            for name in inputs {
                let v = model
                    .eval(&Real::new_const(name.as_str()), true)
                    .and_then(|v| real_value(&v.simplify(), 30))
                    .unwrap_or_default();
                values.push(v);
            }
            Verdict::Sat(values)
        }
    }
}

/// The plain query of a condition: the formula under the input constraints.
pub fn plain_query(constraints: &[Bool], q: &Query) -> Bool {
    let mut parts = constraints.to_vec();
    parts.push(q.formula.clone());
    Bool::and(&parts)
}

/// A differential query: `mine` raises its exception with a margin while no operation of
/// the other build comes near raising one of the same kind (`theirs_any`, from
/// [`any_loose`]). The margins keep models valid once every operation rounds:
/// over the exact reals alone, models sit on thresholds that rounding moves across.
pub fn differential_query(constraints: &[Bool], mine: &Query, theirs_any: &Bool) -> Bool {
    let mut parts = constraints.to_vec();
    parts.push(mine.robust.clone());
    parts.push(theirs_any.not());
    Bool::and(&parts)
}

/// The disjunction of the loose forms of `queries` of `kind` (built once per build and
/// kind: repeating it per differential query would be quadratic in the operation count).
pub fn any_loose(queries: &[Query], kind: ExceptionKind) -> Bool {
    let mut seen = HashSet::new();
    let parts: Vec<Bool> = queries
        .iter()
        .filter(|q| q.kind == kind && seen.insert(q.loose.clone()))
        .map(|q| q.loose.clone())
        .collect();
    Bool::or(&parts)
}

/// Unique formulas across builds: the index of the first query with each formula. Z3
/// hash-conses terms, so identical formulas of P and P' are one and the same node.
pub fn dedupe(queries: &[&Query]) -> Vec<usize> {
    let mut seen: HashSet<Bool> = HashSet::new();
    let mut out = Vec::new();
    for (i, q) in queries.iter().enumerate() {
        if seen.insert(q.formula.clone()) {
            out.push(i);
        }
    }
    out
}
