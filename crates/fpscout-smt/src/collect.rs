//! Step 1 of `diff` ("Solve"): walk every path of a build symbolically, gather the
//! exception conditions of every floating-point operation as self-contained SMT-LIB
//! queries, and solve them in parallel, each in a forked child killed at its deadline.

use crate::isolate::{Outcome, Pool};
use crate::numeral::real_value;
use crate::symbolic::{Dependent, Sym, SymReal};
use fpscout_ir::{ExceptionKind, FloatTy, FpOpId, FuncId, Module, ScalarTy, Type};
use fpscout_walk::{ExploreLimits, PathEnd, Val, WalkConfig, Walker};
use rug::Rational;
use std::collections::HashSet;
use std::time::Duration;
use z3::ast::{Ast, Bool, Real};
use z3::{SatResult, Solver};

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
    /// An array of concrete integers of `width` bits (the integer nondets of an SV-COMP
    /// harness): fixed like [`ParamSpec::Int`], never solved for.
    IntArray {
        name: String,
        width: u32,
        values: Vec<u64>,
    },
}

impl ParamSpec {
    /// The SMT names of the float inputs this parameter introduces, with their types.
    pub fn inputs(&self) -> Vec<(String, FloatTy)> {
        match self {
            ParamSpec::Float { name, ty, .. } => vec![(name.clone(), *ty)],
            ParamSpec::Int { .. } | ParamSpec::IntArray { .. } => vec![],
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
    /// No path starts after this instant, and feasibility checks left on the current path
    /// are skipped (the branch counts as feasible).
    pub deadline: Option<std::time::Instant>,
}

impl Default for CollectOptions {
    fn default() -> Self {
        CollectOptions {
            loop_bound: 8,
            max_paths: 256,
            step_budget: 200_000,
            check_timeout_ms: 200,
            deadline: None,
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
    /// The fresh variables the formulas may mention (elementary-function results, external
    /// calls), in creation order, for the fallback solver.
    pub dependents: Vec<Dependent>,
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
    let mut domain = SymReal::new(prefix, opts.check_timeout_ms);
    domain.deadline = opts.deadline;
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
            (
                Type::Scalar(ScalarTy::Ptr),
                ParamSpec::IntArray {
                    name,
                    width,
                    values,
                },
            ) => {
                let ty = ScalarTy::Int(*width);
                let elems: Vec<Sym> = values.iter().map(|&b| Sym::Bits(ty, b)).collect();
                let ptr = walker
                    .alloc_array(name, ty, elems)
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
        deadline: opts.deadline,
    };
    let mut stopped = Vec::new();
    let summary = walker.explore(func, args, limits, |_, end| match end {
        // A path that ends the program is complete: its conditions stand.
        PathEnd::Returned(_) | PathEnd::Ended { .. } => {}
        PathEnd::Stopped(r) => stopped.push(r.to_string()),
        PathEnd::Failed(e) | PathEnd::CannotFail(e) => stopped.push(e.to_string()),
    });
    if let Some(reason) = summary.stopped {
        stopped.push(reason.to_string());
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
        dependents: domain.dependents.clone(),
    })
}

/// Outcome of one query.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Satisfiable, with the exact value of each requested input.
    Sat(Vec<Rational>),
    Unsat,
    /// Unknown or timed out, with Z3's reason ([`Verdict::TIMEOUT`] when killed at the
    /// query's time limit).
    Unknown(String),
    /// Skipped: the solving budget ran out first.
    NotAttempted,
}

impl Verdict {
    /// The reason of a query killed at its time limit.
    pub const TIMEOUT: &'static str = "timeout";

    /// Whether the query ran out of its own time (a longer attempt may settle it).
    pub fn timed_out(&self) -> bool {
        matches!(self, Verdict::Unknown(why) if why == Verdict::TIMEOUT)
    }
}

/// Solves every formula (see [`QueryPool`]).
pub fn solve_all(
    formulas: &[Bool],
    inputs: &[String],
    timeout_ms: u32,
    jobs: usize,
    deadline: Option<std::time::Instant>,
) -> Vec<Verdict> {
    let all: Vec<usize> = (0..formulas.len()).collect();
    QueryPool::new(formulas, inputs, timeout_ms, jobs).solve(&all, deadline)
}

/// Solver workers for a fixed set of formulas, kept across batches: each query runs in a
/// forked worker (see [`crate::isolate`]) killed at `timeout_ms`, at most `jobs` at a time,
/// in the order given, and a batch stops at its deadline. Verdicts read the exact values
/// of `inputs` from each model. Build every formula before the first batch (a worker sees
/// the terms that existed when it forked), and use the pool from the thread whose Z3
/// context holds them.
pub struct QueryPool<'a> {
    pool: Pool<'a>,
}

impl<'a> QueryPool<'a> {
    pub fn new(formulas: &'a [Bool], inputs: &[String], timeout_ms: u32, jobs: usize) -> Self {
        let consts: Vec<Real> = inputs.iter().map(|n| Real::new_const(n.as_str())).collect();
        let work = move |i: usize| encode(&solve_one(&formulas[i], &consts));
        QueryPool {
            pool: Pool::new(
                jobs,
                Duration::from_millis(timeout_ms.into()),
                Box::new(work),
            ),
        }
    }

    /// Changes the time limit of each query from the next batch on.
    pub fn set_timeout_ms(&mut self, timeout_ms: u32) {
        self.pool
            .set_per_task(Duration::from_millis(timeout_ms.into()));
    }

    /// Verdicts on the formulas `which` (indices), in order.
    pub fn solve(&mut self, which: &[usize], deadline: Option<std::time::Instant>) -> Vec<Verdict> {
        self.pool
            .run(which, deadline)
            .into_iter()
            .map(verdict_of)
            .collect()
    }
}

/// The verdict a forked worker's outcome stands for.
pub(crate) fn verdict_of(outcome: Outcome) -> Verdict {
    match outcome {
        Outcome::Done(text) => decode(&text),
        Outcome::TimedOut => Verdict::Unknown(Verdict::TIMEOUT.into()),
        Outcome::OverBudget { started: true } => {
            Verdict::Unknown("stopped: solve budget exhausted".into())
        }
        Outcome::OverBudget { started: false } => Verdict::NotAttempted,
        Outcome::Failed(why) => Verdict::Unknown(why),
    }
}

/// Runs in the child, without a Z3 timeout: the parent kills it instead.
fn solve_one(formula: &Bool, inputs: &[Real]) -> Verdict {
    let solver = Solver::new();
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
            let values = inputs
                .iter()
                .map(|x| {
                    model
                        .eval(x, true)
                        .and_then(|v| real_value(&v.simplify(), 30))
                        .unwrap_or_default()
                })
                .collect();
            Verdict::Sat(values)
        }
    }
}

/// A verdict as the one-line-per-field text a child sends back.
pub(crate) fn encode(v: &Verdict) -> String {
    match v {
        Verdict::Sat(values) => {
            let mut s = String::from("sat");
            for q in values {
                s.push('\n');
                s.push_str(&q.to_string());
            }
            s
        }
        Verdict::Unsat => "unsat".into(),
        Verdict::Unknown(why) => format!("unknown\n{}", why.replace('\n', " ")),
        Verdict::NotAttempted => "not-attempted".into(),
    }
}

pub(crate) fn decode(text: &str) -> Verdict {
    let mut lines = text.lines();
    match lines.next() {
        Some("sat") => {
            let values: Result<Vec<Rational>, _> = lines.map(str::parse::<Rational>).collect();
            match values {
                Ok(v) => Verdict::Sat(v),
                Err(e) => Verdict::Unknown(format!("unreadable model value: {e}")),
            }
        }
        Some("unsat") => Verdict::Unsat,
        Some("unknown") => Verdict::Unknown(lines.next().unwrap_or("unknown").to_string()),
        Some("not-attempted") => Verdict::NotAttempted,
        _ => Verdict::Unknown(format!("unreadable solver answer {text:?}")),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn turn() -> std::sync::MutexGuard<'static, ()> {
        crate::z3_turn()
    }

    fn rat(s: &str) -> Real {
        let (n, d) = s.split_once('/').unwrap_or((s, "1"));
        Real::from_rational_str(n, d).expect("numeral")
    }

    #[test]
    fn models_cross_the_process_boundary_exactly() {
        let _turn = turn();
        let x = Real::new_const("x");
        let huge = format!("{}/3", "7".repeat(400));
        let formulas = vec![
            x.eq(rat(&huge)),
            x.eq(rat("-1/340282366920938463463374607431768211456")),
            (&x * &x).eq(rat("2")) & x.gt(rat("0")),
            x.gt(rat("1")) & x.lt(rat("0")),
        ];
        let v = solve_all(&formulas, &["x".into()], 10_000, 2, None);
        assert_eq!(v[0], Verdict::Sat(vec![huge.parse().unwrap()]));
        assert_eq!(
            v[1],
            Verdict::Sat(vec!["-1/340282366920938463463374607431768211456"
                .parse()
                .unwrap()])
        );
        // √2 comes back as a rational within 10^-30 of it.
        let Verdict::Sat(r) = &v[2] else {
            panic!("{:?}", v[2])
        };
        let err = Rational::from(&r[0] * &r[0]) - 2u32;
        let tiny: Rational = "1/100000000000000000000000000000".parse().unwrap();
        assert!(err.abs() < tiny, "{r:?}");
        assert_eq!(v[3], Verdict::Unsat);
    }

    #[test]
    fn the_budget_is_kept_even_when_the_solver_would_not_stop() {
        let _turn = turn();
        // A polynomial system nlsat cannot settle quickly; with `timeout_ms` far beyond the
        // budget, only the deadline can end it.
        let (x, y, z) = (
            Real::new_const("x"),
            Real::new_const("y"),
            Real::new_const("z"),
        );
        let one = rat("1");
        let hard = (&x * &x * &y * &y * &z + &x * &y * &z * &z * &z).eq(rat("1/3"))
            & (&x * &x * &x * &z - &y * &y * &y * &x).eq(rat("7"))
            & (&x * &y * &z * &z * &z * &x - &one).eq(&(&y * &z * &z * &y * &x * &x))
            & x.gt(rat("0"));
        let t = Instant::now();
        let v = solve_all(
            &vec![hard; 3],
            &["x".into()],
            600_000,
            1,
            Some(t + Duration::from_millis(300)),
        );
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        assert_eq!(
            v,
            [
                Verdict::Unknown("stopped: solve budget exhausted".into()),
                Verdict::NotAttempted,
                Verdict::NotAttempted
            ]
        );
    }

    #[test]
    fn verdict_text_round_trips() {
        for v in [
            Verdict::Sat(vec!["-5/7".parse().unwrap(), Rational::from(0)]),
            Verdict::Sat(vec![]),
            Verdict::Unsat,
            Verdict::Unknown("canceled".into()),
            Verdict::NotAttempted,
        ] {
            assert_eq!(decode(&encode(&v)), v);
        }
    }
}
