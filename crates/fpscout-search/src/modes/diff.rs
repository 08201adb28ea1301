//! `fpscout diff`: inputs on which P and the fast-math P' differ in exceptions or results.
//! Solve (exception conditions of both builds over the reals, Z3), Search (the float
//! candidates and their neighbours in the concrete domain, plus a cheap random phase on
//! the native builds), Confirm (every difference replayed natively).

use crate::attribution::{self, SafeFlags};
use crate::config::{self, CommonConfig};
use crate::confirm::confirm_each_pair;
use crate::executable::{ExecutablePair, Pacer};
pub use crate::observe::{native_observe, plain_observe, Observation, ResultClass};
use crate::origin::{Aim, Build, Origin, Phase};
use crate::random::RandomBatches;
use crate::records::AnyF64;
use crate::reference::{FunctionReference, ReferenceSpec};
use crate::refine::{missed_targets, refine_both, RefineLimits, RefineState, Refinement};
use crate::search::{after, earliest, is_finite_bits, model_floats, neighbours, InputSpace};
use crate::session::Session;
use crate::trace::{compare_traces, interpreter_steps, native_steps};
use crate::InputError;
use fpscout_ir::{ExceptionKind, ExceptionSet, FloatTy, FuncId, Type};
use fpscout_native::NativeOutcome;
use fpscout_smt::numeral::{float_value, round_to_float};
use fpscout_smt::{
    collect, dedupe, exact_value, CollectOptions, ParamSpec, Query, QueryPool, QuerySet, Verdict,
};
use fpscout_toolchain::{BuildFlags, BuildKind, FastMathOption};
use fpscout_walk::concrete::{AdaptiveSteps, ArgBits, ConcreteRunner, EvalEnd, Evaluation, FpMode};
use fpscout_walk::WalkConfig;
use rug::Rational;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

/// Settings of a diff run.
#[derive(Clone, Debug)]
pub struct DiffConfig {
    /// Its `build` is not read: diff compares both.
    pub common: CommonConfig,
    pub collect: CollectOptions,
    pub query_timeout_ms: u32,
    pub threads: usize,
    /// Results further apart than this many ulps count as a difference.
    pub tolerance_ulps: u64,
    /// Concrete evaluations spent around each candidate.
    pub search_budget: usize,
    /// Random inputs replayed natively in the cheap phase (0 = skip).
    pub random_inputs: usize,
    /// Ask the float solver, on each build's paths, about the exceptions no Z3
    /// candidate raised (`--no-float-solver` turns it off).
    pub float_solver: bool,
    /// Wall-clock budget of the solving phase, in seconds; queries left are reported as
    /// not attempted. `None`: [`automatic_solve_budget`].
    pub solve_budget_s: Option<f64>,
    /// Wall-clock budget of the symbolic exploration of both builds, in seconds.
    pub explore_budget_s: f64,
    /// Wall-clock budget of the random phase, in seconds (checked between native runs of
    /// growing chunks of inputs).
    pub random_budget_s: f64,
    /// The mathematical function both builds are measured against (`--reference`, an
    /// FPCore input's body).
    pub reference: Option<ReferenceSpec>,
    /// Attribute each confirmed difference to fast-math's sub-options and find the safe
    /// set (when P' is a fast-math build; `crate::attribution`).
    pub attribute: bool,
}

/// How long past the budget the interpreter may replay the confirmed findings.
const MODEL_CHECK_GRACE: Duration = Duration::from_millis(500);
/// Share of the time budget kept for the local search and confirmation.
const CONFIRM_SHARE: f64 = 0.1;
/// Share of the time budget the automatic solve budget takes at most.
const AUTOMATIC_SOLVE_SHARE: f64 = 0.6;
/// Share of the time left after solving that the search keeps for the random phase.
const RANDOM_RESERVE_SHARE: f64 = 0.2;
/// Share of the time budget for the float solver at most (taken before the search).
const REFINE_SHARE: f64 = 0.1;
/// The float solver's time at most, per second the solver phase took: it works on what
/// that phase missed, most of which the search finds near the models anyway.
const REFINE_PER_SOLVE: f64 = 0.4;
/// Share of the time budget the float solver gets at least, however quick the solver
/// phase was: walking to a missed exception takes a fraction of a second, and a solver
/// phase of 0.2 s left it none (newlib's lrint: 16 missed, none walked, run over at 1.7 s
/// of 10).
const REFINE_FLOOR_SHARE: f64 = 0.05;
/// Seconds of solving the automatic budget always gives (its base).
const AUTOMATIC_SOLVE_BASE_S: f64 = 3.0;

/// Random inputs of the first native run; each next one doubles, up to the maximum (and
/// to what the time left allows).
const RANDOM_FIRST_CHUNK: usize = 8;
const RANDOM_MAX_CHUNK: usize = 32_768;

/// The default solving budget: 3 s, plus 5 ms per query beyond the first 200, at most 45 s
/// (and at most 60 % of the run's time budget).
/// Small functions (the FPBench kernels) stay near interactive speed; unrolled loops with
/// thousands of conditions get time in proportion.
pub fn automatic_solve_budget(unique_queries: usize) -> f64 {
    (AUTOMATIC_SOLVE_BASE_S + 0.005 * unique_queries.saturating_sub(200) as f64).min(45.0)
}

impl DiffConfig {
    pub fn new(function: &str) -> DiffConfig {
        DiffConfig {
            common: CommonConfig::new(function, config::DIFF),
            collect: CollectOptions::default(),
            query_timeout_ms: 200,
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            tolerance_ulps: 0,
            search_budget: 64,
            random_inputs: 100_000,
            float_solver: true,
            solve_budget_s: None,
            explore_budget_s: 4.0,
            random_budget_s: 5.0,
            reference: None,
            attribute: true,
        }
    }
}

/// Kinds of difference between P and P', reported separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffKind {
    /// The sets of raised flags (inexact excluded) differ.
    Flags,
    /// The sequences of exception kinds differ.
    Trace,
    /// The result classes (finite / ±inf / NaN) differ.
    Class,
    /// One build returns, the other does not terminate within the hang limit.
    Termination,
    /// One build ends the program (`exit`, `abort`, a failed `assert`) where the other
    /// returns or ends it another way.
    End,
    /// Both finite, more than the tolerance apart in ulps.
    Ulps,
}

/// What a solver aimed at: `kind` raised by the build labelled `build` at operation `op`.
fn aim(build: &str, op: u32, kind: ExceptionKind) -> Aim {
    Aim {
        build: if build == "P" {
            Build::P
        } else {
            Build::PPrime
        },
        op,
        kind,
        steps: 0,
    }
}

/// A confirmed (or not) difference.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// Printed by the report with hex and decimal forms per parameter.
    #[serde(skip)]
    pub input: Vec<ArgBits>,
    pub kinds: Vec<DiffKind>,
    pub p: Observation,
    pub p_prime: Observation,
    pub ulps: Option<u64>,
    pub origin: Origin,
    /// The difference held again when both executables replayed the input (traced).
    pub confirmed: bool,
    /// The interpreter reproduces both builds' results, flags and traces on this input.
    pub model_agrees: bool,
    /// Why the interpreter did not replay this input (time ran out, a construct it does
    /// not model): then `model_agrees` is false without a disagreement.
    pub model_unchecked: Option<String>,
    /// Where the input takes P' outside -ffast-math's assumptions (a NaN or infinity
    /// meets an `nnan`/`ninf` operation), which is what a user most needs to know about it.
    pub fast_math_note: Option<String>,
    /// Why a difference was not confirmed.
    pub unconfirmed_reason: Option<String>,
    /// The difference disappears natively when FTZ/DAZ is off in both builds.
    pub ftz_only: bool,
    /// Both results measured against the reference, when there is one and both builds
    /// returned a float.
    pub reference: Option<AgainstReference>,
    /// The fast-math sub-options P' needs to show it (`[]`: none, P' differs without
    /// any), for a confirmed finding when P' is a fast-math build.
    pub attribution: Option<Vec<&'static str>>,
    /// Other single sub-options that show it alone (the attribution is the first).
    pub attribution_alone: Vec<&'static str>,
    /// Why a confirmed finding has no attribution.
    pub attribution_note: Option<String>,
}

/// Two builds' results against the mathematical function at one input.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AgainstReference {
    /// The mathematical value, correctly rounded (±infinity; NaN where undefined).
    pub exact: AnyF64,
    pub p_ulps: AnyF64,
    pub p_prime_ulps: AnyF64,
    /// `P`, `P'` or `tie`.
    pub closer: &'static str,
}

impl AgainstReference {
    /// How many ulps further from the exact value P' is than P (negative: closer).
    pub fn fast_math_loss(&self) -> f64 {
        let loss = self.p_prime_ulps.0 - self.p_ulps.0;
        if loss.is_nan() {
            0.0
        } else {
            loss
        }
    }

    fn of(
        reference: &FunctionReference,
        params: &[fpscout_ir::Param],
        input: &[ArgBits],
        p: u64,
        p_prime: u64,
    ) -> Option<AgainstReference> {
        let value = reference.value(params, input);
        let (a, b) = (
            reference.measure(p, &value)?,
            reference.measure(p_prime, &value)?,
        );
        Some(AgainstReference {
            exact: AnyF64(crate::reference::as_f64(&value)),
            p_ulps: AnyF64(a.ulps),
            p_prime_ulps: AnyF64(b.ulps),
            closer: match a.ulps.partial_cmp(&b.ulps) {
                Some(std::cmp::Ordering::Less) => "P",
                Some(std::cmp::Ordering::Greater) => "P'",
                _ => "tie",
            },
        })
    }
}

impl Finding {
    /// A difference the search found natively, before its confirmation.
    fn found(
        input: Vec<ArgBits>,
        (kinds, ulps): (Vec<DiffKind>, Option<u64>),
        p: Observation,
        p_prime: Observation,
        origin: Origin,
    ) -> Finding {
        Finding {
            input,
            kinds,
            p,
            p_prime,
            ulps,
            origin,
            confirmed: false,
            model_agrees: false,
            model_unchecked: None,
            fast_math_note: None,
            unconfirmed_reason: None,
            ftz_only: false,
            reference: None,
            attribution: None,
            attribution_alone: Vec::new(),
            attribution_note: None,
        }
    }
}

/// The largest |P − P'| found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Worst {
    #[serde(skip)]
    pub input: Vec<ArgBits>,
    pub p: u64,
    pub p_prime: u64,
    pub ulps: u64,
    /// The exact real value, when the function is rational.
    pub exact: Option<String>,
    /// Which build is closer to the exact value (`P`, `P'`, `tie`).
    pub closer: Option<&'static str>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseTimes {
    pub compile: f64,
    pub collect: f64,
    pub solve: f64,
    /// The float solver on the exceptions no Z3 candidate raised.
    pub refine: f64,
    pub search: f64,
    pub random: f64,
    pub sweep: f64,
    pub confirm: f64,
    /// Rebuilding P' with subsets of fast-math and replaying the witnesses.
    #[serde(default)]
    pub attribution: f64,
}

/// The `{"type":"summary"}` record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub function: String,
    /// The reference both builds' results are measured against, when there is one.
    #[serde(default)]
    pub reference: Option<String>,
    pub constraints_p: usize,
    pub constraints_pprime: usize,
    /// Distinct formulas after the union of both builds.
    pub unique_constraints: usize,
    pub satisfiable: usize,
    pub unsatisfiable: usize,
    pub unknown: usize,
    /// Queries skipped because the solving budget ran out (`--solve-budget`).
    pub not_attempted: usize,
    /// Plain queries not solved because an earlier candidate already raises their
    /// exception at their operation.
    pub already_witnessed: usize,
    /// Candidates whose first points do not terminate in either build (their other
    /// neighbours were not tried).
    pub hanging_candidates: usize,
    /// The solving budget used, in seconds (given, or automatic).
    pub solve_budget_s: f64,
    /// An executable still running after this long on one input was killed (`hang`).
    pub hang_limit_ms: u64,
    /// Functions of P' whose floating-point code LLVM's backend rewrote after instruction
    /// selection in a way fpscout could not model (`name (file:line:col, ...): reason`):
    /// there some differences it finds are not confirmed natively.
    pub backend_rewrites_pprime: Vec<String>,
    /// Queries asking for an exception in one build and none of that kind in the other.
    pub differential_queries: usize,
    pub differential_satisfiable: usize,
    /// Exceptions (build, operation, kind) with a condition that no Z3 candidate raised,
    /// handed to the float solver; its solutions (candidates), and the exceptions it
    /// proved no float input raises in their build within the loop bound.
    pub float_solver_targets: usize,
    /// Exceptions with a condition that no Z3 candidate raised, before the walks looked
    /// for them (0: the float solver had nothing to do).
    #[serde(default)]
    pub float_solver_missed: usize,
    pub float_solver_candidates: usize,
    pub float_solver_infeasible: usize,
    /// Distinct float candidates from the solver's models.
    pub unique_inputs: usize,
    pub diff_confirmed: usize,
    pub diff_unconfirmed: usize,
    /// Confirmed findings on which the interpreter disagrees with an executable (the
    /// finding stands: the executables decide).
    pub model_disagreements: usize,
    /// Confirmed findings the interpreter did not replay (time, an unmodelled construct).
    #[serde(default)]
    pub model_unchecked: usize,
    /// Distinct (P flags, P' flags, P class, P' class) among confirmed findings.
    pub signatures: usize,
    pub max_ulps: u64,
    /// Confirmed findings that only the solver phase reached (their signature was not
    /// seen by the random phase).
    pub solver_only_signatures: usize,
    pub paths_p: usize,
    pub paths_pprime: usize,
    pub stopped: Vec<String>,
    pub random_inputs: usize,
    pub wall_seconds: f64,
    /// Seconds this process spent compiling (cache look-ups included), and how many
    /// compile steps the cache served and how many ran (see `fpscout_toolchain::cache`).
    #[serde(default)]
    pub compile_seconds: f64,
    #[serde(default)]
    pub cache_hits: u64,
    #[serde(default)]
    pub cache_misses: u64,
    pub phases: PhaseTimes,
    /// In `--json` as the record's `worst` (inputs named, results as hex floats).
    #[serde(skip)]
    pub worst: Option<Worst>,
    /// Share of the difference signatures that exist which were confirmed, where the
    /// oracle ran (`--oracle`; exhaustive for a `float` parameter, sampled for a `double`).
    pub recall_estimate: Option<f64>,
    /// The oracle's comparison in full, where it ran.
    pub recall: Option<crate::oracle::Recall>,
    /// Every signature of a difference with the number of inputs it was seen on (search,
    /// sweep and random phase, untraced), rarest first.
    pub signature_inputs: Vec<SignatureInputs>,
    /// The largest subset of fast-math's sub-options under which no confirmed witness
    /// differs, when P' is a fast-math build and the attribution ran.
    #[serde(default)]
    pub safe_flags: Option<SafeFlags>,
    /// Builds of P' the attribution compiled (subsets and the safe command line).
    #[serde(default)]
    pub attribution_builds: usize,
    /// The signatures the random phase saw (for `solver_only_signatures`).
    #[serde(skip)]
    pub random_signatures: BTreeSet<Signature>,
}

/// How many of the inputs tried showed one signature.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SignatureInputs {
    pub p_flags: ExceptionSet,
    pub p_prime_flags: ExceptionSet,
    pub p_class: ResultClass,
    pub p_prime_class: ResultClass,
    pub inputs: u64,
    /// Whether a confirmed finding has this signature: inputs seen untraced may not
    /// replay (a hang not repeated, an executable that disagrees with the interpreter).
    #[serde(default)]
    pub confirmed: bool,
    /// The distinct attributions of the confirmed findings with this signature, the
    /// most common first, with how many findings each.
    #[serde(default)]
    pub attributions: Vec<SignatureAttribution>,
}

/// One attribution among a signature's findings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SignatureAttribution {
    pub needs: Vec<String>,
    /// Other single sub-options that show it alone.
    #[serde(default)]
    pub or_alone: Vec<String>,
    pub findings: usize,
}

/// The distinct attributions of `findings`, most common first (ties in first-seen order).
pub fn distinct_attributions<'f>(
    findings: impl Iterator<Item = &'f Finding>,
) -> Vec<SignatureAttribution> {
    let mut out: Vec<SignatureAttribution> = Vec::new();
    for x in findings {
        let Some(a) = &x.attribution else {
            continue;
        };
        let needs: Vec<String> = a.iter().map(|n| n.to_string()).collect();
        let or_alone: Vec<String> = x.attribution_alone.iter().map(|n| n.to_string()).collect();
        match out
            .iter_mut()
            .find(|s| s.needs == needs && s.or_alone == or_alone)
        {
            Some(s) => s.findings += 1,
            None => out.push(SignatureAttribution {
                needs,
                or_alone,
                findings: 1,
            }),
        }
    }
    out.sort_by_key(|a| std::cmp::Reverse(a.findings));
    out
}

/// Everything a diff run produced.
pub struct DiffReport {
    pub findings: Vec<Finding>,
    /// The solver's candidate inputs (the nearest floats of its models), best first.
    pub candidates: Vec<Vec<ArgBits>>,
    /// Inputs on which neither build terminates within the hang limit (twice), a few.
    pub non_terminating: Vec<Vec<ArgBits>>,
    pub summary: Summary,
    pub ret: Type,
    pub params: Vec<fpscout_ir::Param>,
    /// The function's linker symbol (mangled for C++), for code that calls it.
    pub symbol: String,
}

/// A progress callback: (phase, done, total).
pub type Progress<'a> = &'a mut dyn FnMut(&str, u64, u64);

struct Builds<'s> {
    p: (&'s fpscout_ir::Module, FuncId),
    pp: (&'s fpscout_ir::Module, FuncId),
}

/// The interpreter's exception kinds in order (inexact aside).
fn interpreted_kinds(e: &Evaluation) -> Vec<ExceptionKind> {
    e.events
        .iter()
        .map(|e| e.kind)
        .filter(|k| *k != ExceptionKind::Inexact)
        .collect()
}

/// The exception kinds of a trace in order, one entry per instruction: the machine's own
/// account, so P raising overflow at two divisions and P' at the one it kept differ, as
/// do two scalar operations and the vector instruction standing for both.
fn kind_sequence(o: &Observation) -> Vec<ExceptionSet> {
    o.trace
        .events
        .iter()
        .map(|e| e.flags.without_inexact())
        .collect()
}

/// Whether the interpreter reproduces a build's native observation: result (any NaN for
/// a NaN: which NaN is register allocation's choice), flags and trace.
fn model_agrees(m: &fpscout_ir::Module, eval: &Evaluation, o: &Observation, ret: Type) -> bool {
    if o.class == ResultClass::Hang {
        return matches!(eval.end, EvalEnd::Stopped(_));
    }
    let bits = eval.result_bits();
    let (class, end) = match &eval.end {
        EvalEnd::Returned(_) => (ResultClass::of(bits, ret), None),
        EvalEnd::Ended { end, .. } => (ResultClass::of_end(end), Some(end)),
        _ => (ResultClass::Other, None),
    };
    let same_end = end == o.end.as_ref();
    same_end
        && (bits == o.result || (class == ResultClass::Nan && o.class == ResultClass::Nan))
        && eval.flags.without_inexact() == o.flags
        && compare_traces(
            &interpreter_steps(m, eval),
            &native_steps(&o.trace),
            o.trace.truncated,
        )
        .agrees()
}

/// Result bits of both builds' interpreted evaluations and their distance in ulps.
fn interpreted_ulps(ep: &Evaluation, eq: &Evaluation, ret: Type) -> Option<(u64, u64, u64)> {
    let (a, b, ft) = (ep.result_bits()?, eq.result_bits()?, ret.float_ty()?);
    let finite = |x| ResultClass::of(Some(x), ret) == ResultClass::Finite;
    (finite(a) && finite(b)).then(|| (ulps_between(a, b, ft), a, b))
}

/// Distance in ulps between two finite floats of the same format (0 when equal).
pub fn ulps_between(a: u64, b: u64, ty: FloatTy) -> u64 {
    let key = |x: u64| -> i128 {
        let (sign, mag) = match ty {
            FloatTy::F64 => (x >> 63 != 0, (x & 0x7fff_ffff_ffff_ffff) as i128),
            FloatTy::F32 => (x >> 31 & 1 != 0, (x & 0x7fff_ffff) as i128),
        };
        if sign {
            -mag
        } else {
            mag
        }
    };
    (key(a) - key(b)).unsigned_abs().min(u128::from(u64::MAX)) as u64
}

pub(crate) fn compare(
    p: &Observation,
    q: &Observation,
    ret: Type,
    tol: u64,
) -> (Vec<DiffKind>, Option<u64>) {
    let mut kinds = Vec::new();
    if p.flags != q.flags {
        kinds.push(DiffKind::Flags);
    }
    if kind_sequence(p) != kind_sequence(q) {
        kinds.push(DiffKind::Trace);
    }
    if p.class != q.class {
        kinds.push(
            if p.class == ResultClass::Hang || q.class == ResultClass::Hang {
                DiffKind::Termination
            } else if p.class.is_end() || q.class.is_end() {
                DiffKind::End
            } else {
                DiffKind::Class
            },
        );
    }
    let mut ulps = None;
    if let (ResultClass::Finite, ResultClass::Finite, Some(a), Some(b), Some(ft)) =
        (p.class, q.class, p.result, q.result, ret.float_ty())
    {
        let d = ulps_between(a, b, ft);
        ulps = Some(d);
        if d > tol {
            kinds.push(DiffKind::Ulps);
        }
    }
    (kinds, ulps)
}

/// Runs the whole pipeline with the integer parameters as `cfg` fixes them.
fn run_diff_once(
    session: &Session,
    cfg: &DiffConfig,
    progress: Progress,
) -> Result<DiffReport, InputError> {
    let start = cfg.common.start();
    let mut summary = Summary {
        function: cfg.common.function.clone(),
        hang_limit_ms: cfg.common.hang_limit_ms,
        ..Summary::default()
    };
    // Search phases end by `work_deadline`; the rest of the budget is for the local
    // search and confirmation, which end by `run_deadline`.
    let run_deadline = after(start, cfg.common.time_budget_s);
    let work_deadline = after(start, cfg.common.time_budget_s * (1.0 - CONFIRM_SHARE));
    let fp = session.function(BuildKind::P, &cfg.common.function)?;
    let fpp = session.function(BuildKind::PPrime, &cfg.common.function)?;
    let builds = Builds {
        p: (session.p()?, fp),
        pp: (session.p_prime()?, fpp),
    };
    let f = session.p()?.function(fp);
    let ret = f.ret;
    let space = InputSpace::of(f, &cfg.common.input_options(), "diff")?;
    let (specs, input_ranges, tys) = (&space.specs, &space.ranges, &space.tys);
    let lens = &space.lens;

    // Native builds and the modes they really run with (the compile phase counts from the
    // start: the front end's compilation of both builds is part of it).
    let t = start;
    progress("compile", 0, 2);
    // Every native run of the pipeline: the executables as linked, killed at the hang limit.
    let exes = ExecutablePair::open(session, lens, &cfg.common)?;
    let (mode_p, mode_pp) = (exes.p.mode(), exes.pp.mode());
    summary.backend_rewrites_pprime = session.backend_rewrites(BuildKind::PPrime);

    let mut found = Found::default();

    // The interpreter: the judge of which exceptions candidates already raise, the guide
    // for trace-only differences and the local search, and
    // the model whose agreement with the executables each finding reports.
    // No interpretation outlives the run; one that does not terminate costs a multiple of
    // the longest ordinary evaluation, not the whole step budget.
    let config = WalkConfig {
        deadline: run_deadline,
        ..WalkConfig::default()
    };
    let mut rp = crate::concrete::concrete_runner(builds.p.0, builds.p.1, mode_p, config)
        .map_err(|e| InputError(e.to_string()))?;
    let mut rq = crate::concrete::concrete_runner(builds.pp.0, builds.pp.1, mode_pp, config)
        .map_err(|e| InputError(e.to_string()))?;
    rp.adapt_step_budget(AdaptiveSteps::up_to(config.step_budget));
    rq.adapt_step_budget(AdaptiveSteps::up_to(config.step_budget));
    // Compiling covers the executables and the interpreter's native kernels.
    summary.phases.compile = t.elapsed().as_secs_f64();

    // Step 1: Solve.
    let pool = if cfg.common.random_only {
        CandidatePool::default()
    } else {
        let steps = SolveStep {
            cfg,
            builds: &builds,
            modes: (mode_p, mode_pp),
            space: &space,
            work_deadline,
        };
        let (mut pool, collected) = steps.solve(&mut rp, &mut rq, &mut summary, progress)?;
        if cfg.float_solver {
            steps.float_solver(&collected, &mut pool, &mut summary, progress)?;
        }
        pool
    };

    // Step 2: Search around each candidate on the executables themselves: a difference
    // is what the machine does, so the model cannot lose one. Every neighbour runs
    // untraced on both executables (results and flags, about a microsecond each); traces
    // cost a signal pair per exception, so only the neighbours worth it are replayed
    // traced: those whose results or flags differ, and those whose exception kinds differ
    // in the interpreter (a difference in the trace alone needs the machine's trace to
    // decide).
    let t = Instant::now();
    let mut candidates = pool.candidates;
    // The search leaves the random phase a share of what is left (at most its own budget):
    // where neighbours hang or interpret slowly, random inputs are the cheaper finds.
    let search_deadline = match (work_deadline, cfg.random_inputs) {
        (Some(end), n) if n > 0 => {
            let left = end.saturating_duration_since(t).as_secs_f64();
            let reserve = cfg.random_budget_s.min(RANDOM_RESERVE_SHARE * left);
            Some(end - std::time::Duration::from_secs_f64(reserve))
        }
        (end, _) => end,
    };
    // Seeds are candidates of their own: NaN and the infinities (where loop conditions
    // become unordered and fast-math's assumptions break), zeros, subnormals, the ends of
    // the normal range, and the function's constants and their neighbours.
    let constants = crate::seeds::float_constants(builds.p.0, builds.p.1);
    for point in crate::seeds::seed_points(tys, input_ranges, &constants) {
        candidates.push((point, vec![], Origin::of(Phase::Seed)));
    }
    // A function of one float parameter: a sweep over its whole input space on both
    // executables (one code byte per input, tens of millions per second), each signature
    // in which the builds differ a candidate.
    if let ([ty], [None], 1) = (tys.as_slice(), input_ranges.as_slice(), f.params.len()) {
        let ts = Instant::now();
        match sweep_one_input(&exes, *ty, cfg, work_deadline) {
            Ok(points) => {
                for (bits, sig, count) in points {
                    *found.inputs_seen.entry(sig).or_insert(0) += count;
                    candidates.push((vec![bits], vec![], Origin::of(Phase::Sweep)));
                }
            }
            Err(why) => summary.stopped.push(format!("sweep: {why}")),
        }
        summary.phases.sweep = ts.elapsed().as_secs_f64();
    }
    let neighbourhoods: Vec<Vec<Vec<u64>>> = candidates
        .iter()
        .map(|(center, around, origin)| match origin.aim {
            None => vec![center.clone()],
            Some(_) => neighbours(center, around, tys, cfg.search_budget),
        })
        .collect();
    // First the few nearest points of every candidate, then the rest of those whose
    // first points did not all hang in both builds: an input that does not terminate
    // costs the hang limit, and its neighbours would mostly cost it again.
    let mut probe = |wanted: Vec<(usize, usize, Vec<ArgBits>)>| {
        let inputs: Vec<Vec<ArgBits>> = wanted.iter().map(|w| w.2.clone()).collect();
        let (ps, qs) = exes.run(&inputs, search_deadline, &mut |done, total| {
            progress("search", done, 2 * total)
        })?;
        let asked = wanted.len();
        let done: Vec<Probe> = wanted
            .into_iter()
            .zip(ps.into_iter().zip(qs))
            .map(|((n, steps, args), (p, q))| Probe {
                n,
                steps,
                args,
                p,
                q,
            })
            .collect();
        Ok::<_, InputError>((done, asked))
    };
    let wanted = |from: usize, to: usize, skip: &dyn Fn(usize) -> bool| {
        let mut out = Vec::new();
        for (n, hood) in neighbourhoods.iter().enumerate().filter(|(n, _)| !skip(*n)) {
            for (steps, point) in hood.iter().enumerate().take(to).skip(from) {
                out.push((n, steps, space.assemble(point)));
            }
        }
        out
    };
    let (mut probes, mut asked) = probe(wanted(0, HANG_PROBE, &|_| false))?;
    // Per candidate: whether every point tried so far hung in both builds.
    let mut all_hang: Vec<Option<bool>> = vec![None; candidates.len()];
    for x in &probes {
        let both = hangs(&x.p) && hangs(&x.q);
        all_hang[x.n] = Some(all_hang[x.n].unwrap_or(true) && both);
        if both {
            found.hanging.note(&x.args);
        }
    }
    summary.hanging_candidates = all_hang.iter().filter(|h| **h == Some(true)).count();
    let (rest, rest_asked) = probe(wanted(HANG_PROBE, usize::MAX, &|n| {
        all_hang[n] == Some(true)
    }))?;
    asked += rest_asked;
    probes.extend(rest);
    if probes.len() < asked {
        summary.stopped.push(format!(
            "search: its share of the time budget ran out after {} of {asked} points",
            probes.len()
        ));
    }
    // Each candidate's points in neighbourhood order again.
    probes.sort_by_key(|x| (x.n, x.steps));
    let mut worth: Vec<&Probe> = Vec::new();
    let mut traced_of = vec![0; candidates.len()];
    // Candidates with a neighbour whose results or flags differ: that one is their finding.
    let mut settled = vec![false; candidates.len()];
    let mut interpreted_until = probes.len();
    for (k, x) in probes.iter().enumerate() {
        // Interpreting both builds can take milliseconds per point on long loops: past the
        // search's deadline the remaining points are looked at natively only.
        if interpreted_until == probes.len() && search_deadline.is_some_and(|d| Instant::now() >= d)
        {
            interpreted_until = k;
        }
        let (Some(op), Some(oq)) = (plain_observe(&x.p, ret), plain_observe(&x.q, ret)) else {
            continue;
        };
        let (kinds, ulps) = compare(&op, &oq, ret, cfg.tolerance_ulps);
        track_max(&mut found.max_ulps, ulps, &x.args, &op, &oq);
        if !kinds.is_empty() {
            *found
                .inputs_seen
                .entry((op.flags, oq.flags, op.class, oq.class))
                .or_insert(0) += 1;
        }
        if traced_of[x.n] >= TRACED_PER_CANDIDATE || settled[x.n] {
            continue;
        }
        // Traces can only differ where something was raised.
        let raised = !op.flags.is_empty() || !oq.flags.is_empty();
        let mut interpreted_kinds_differ = || match (rp.eval(&x.args), rq.eval(&x.args)) {
            (Ok(ep), Ok(eq)) => interpreted_kinds(&ep) != interpreted_kinds(&eq),
            _ => false,
        };
        settled[x.n] = !kinds.is_empty();
        if !kinds.is_empty() || (raised && k < interpreted_until && interpreted_kinds_differ()) {
            traced_of[x.n] += 1;
            worth.push(x);
        }
    }
    if interpreted_until < probes.len() {
        summary.stopped.push(format!(
            "search: its share of the time budget ran out while interpreting point {interpreted_until} of \
             {}; the others were compared on their native results and flags only",
            probes.len()
        ));
    }
    let worth_inputs: Vec<Vec<ArgBits>> = worth.iter().map(|x| x.args.clone()).collect();
    let (outs_p, outs_q) = exes.traced(&worth_inputs, search_deadline, &mut |done, total| {
        progress("search", total + done, 2 * total)
    })?;
    let mut found_for = vec![false; candidates.len()];
    for (x, (tp, tq)) in worth.into_iter().zip(outs_p.iter().zip(&outs_q)) {
        let (Some(op), Some(oq)) = (native_observe(tp, ret), native_observe(tq, ret)) else {
            continue;
        };
        let (kinds, ulps) = compare(&op, &oq, ret, cfg.tolerance_ulps);
        if kinds.is_empty() || found_for[x.n] || !found.seen_inputs.insert(x.args.clone()) {
            continue;
        }
        found_for[x.n] = true;
        let origin = candidates[x.n].2.at_steps(x.steps);
        found.findings.push(Finding::found(
            x.args.clone(),
            (kinds, ulps),
            op,
            oq,
            origin,
        ));
    }
    summary.phases.search = t.elapsed().as_secs_f64();

    // The cheap phase: random inputs on the native builds.
    let t = Instant::now();
    let random_signatures = random_phase(
        RandomPhase {
            cfg,
            space: &space,
            exes: &exes,
            ret,
            work_deadline,
            run_deadline,
        },
        &mut found,
        &mut summary,
        progress,
    )?;
    summary.phases.random = t.elapsed().as_secs_f64();
    let mut seen_counts: Vec<SignatureInputs> = found
        .inputs_seen
        .into_iter()
        .map(|(s, inputs)| SignatureInputs {
            p_flags: s.0,
            p_prime_flags: s.1,
            p_class: s.2,
            p_prime_class: s.3,
            inputs,
            confirmed: false,
            attributions: Vec::new(),
        })
        .collect();
    seen_counts.sort_by_key(|c| {
        (
            c.inputs,
            c.p_flags,
            c.p_prime_flags,
            c.p_class,
            c.p_prime_class,
        )
    });
    summary.signature_inputs = seen_counts;

    // Within ranges: local search around the largest divergence seen so far, guided by
    // the interpreter; the best input is then replayed natively.
    if let Some((_, args, _, _)) = found.max_ulps.clone() {
        let before = found.max_ulps.as_ref().map(|m| m.0);
        local_search_max(
            &mut rp,
            &mut rq,
            (&space, ret),
            args,
            &mut found.max_ulps,
            run_deadline,
        );
        if found.max_ulps.as_ref().map(|m| m.0) != before {
            found.max_ulps = native_max(&exes, ret, found.max_ulps)?;
        }
    }

    // Confirm every difference by a second traced replay of both executables (as
    // linked, and with FTZ/DAZ off): the first witness of every signature before the
    // second of any, so that a budget running out leaves duplicates unconfirmed, not
    // the signatures only the last phase saw.
    order_by_rank_in_signature(&mut found.findings);
    let t = Instant::now();
    progress("confirm", 0, found.findings.len() as u64);
    confirm(
        &mut found.findings,
        &exes,
        ret,
        cfg.tolerance_ulps,
        run_deadline,
    )?;
    // Inputs on which neither build terminates, confirmed by a second run.
    let (again_p, again_q) = exes.run(&found.hanging.inputs, run_deadline, &mut |_, _| {})?;
    let non_terminating: Vec<Vec<ArgBits>> = found
        .hanging
        .inputs
        .into_iter()
        .zip(again_p.iter().zip(&again_q))
        .filter(|(_, (a, b))| hangs(a) && hangs(b))
        .map(|(args, _)| args)
        .collect();
    let mut watch = crate::run::FastMathWatch::new(builds.pp.0, builds.pp.1, mode_pp, run_deadline);
    // A search that used the whole budget still gets the confirmed findings replayed by
    // the interpreter (microseconds each): half a second past the budget at most.
    let check_until = run_deadline.map(|d| d.max(Instant::now() + MODEL_CHECK_GRACE));
    rp.set_deadline(check_until);
    rq.set_deadline(check_until);
    for x in found.findings.iter_mut().filter(|x| x.confirmed) {
        x.fast_math_note = watch.as_mut().and_then(|w| w.note(&x.input));
        match (rp.eval(&x.input), rq.eval(&x.input)) {
            (Ok(ep), Ok(eq)) => {
                x.model_agrees = model_agrees(builds.p.0, &ep, &x.p, ret)
                    && model_agrees(builds.pp.0, &eq, &x.p_prime, ret);
            }
            (Err(e), _) | (_, Err(e)) => x.model_unchecked = Some(e.to_string()),
        }
    }
    summary.phases.confirm = t.elapsed().as_secs_f64();

    summary.random_signatures = random_signatures.into_iter().collect();
    count_confirmed(&mut summary, &found.findings);
    if let Some((u, args, a, b)) = found.max_ulps {
        summary.max_ulps = summary.max_ulps.max(u);
        summary.worst = Some(worst_with_exact(builds.p, specs, ret, args, a, b, u));
    }
    summary.wall_seconds = start.elapsed().as_secs_f64();
    summary.record_compile_stats();
    Ok(DiffReport {
        findings: found.findings,
        non_terminating,
        candidates: candidates
            .iter()
            .map(|(center, _, _)| space.assemble(center))
            .collect(),
        summary,
        ret,
        params: f.params.clone(),
        symbol: f.name.clone(),
    })
}

use crate::oracle::Signature;

/// A divergence between the builds: ulps apart, the input, P's and P′'s result bits.
type Divergence = (u64, Vec<ArgBits>, u64, u64);

/// A solver candidate: the nearest floats, the floats around each rational coordinate,
/// and where it came from.
type Candidate = (Vec<u64>, Vec<(u64, u64)>, Origin);

/// Where an exception is raised: build (`P`, `P'`), operation, kind.
type Target = (&'static str, u32, ExceptionKind);

/// The solver's distinct candidates, and the exceptions they already raise (in the
/// interpreter), so that queries asking for one of those need not be solved again: in
/// an unrolled loop most conditions are alike across iterations, and one model
/// witnesses many of them.
#[derive(Default)]
struct CandidatePool {
    candidates: Vec<Candidate>,
    unique: HashSet<Vec<u64>>,
    witnessed: HashSet<Target>,
}

/// A plain query waiting to be solved: its index among the scripts and what it asks for.
type PlainWork = (usize, Target);

/// What the search and random phases gather for the confirmation and the summary.
#[derive(Default)]
struct Found {
    findings: Vec<Finding>,
    /// Inputs already made findings.
    seen_inputs: HashSet<Vec<ArgBits>>,
    max_ulps: Option<Divergence>,
    /// How many inputs each signature of a difference was seen on, in every phase.
    inputs_seen: HashMap<Signature, u64>,
    hanging: HangingInputs,
}

/// The random phase's inputs.
struct RandomPhase<'a> {
    cfg: &'a DiffConfig,
    space: &'a InputSpace,
    exes: &'a ExecutablePair<'a>,
    ret: Type,
    work_deadline: Option<Instant>,
    run_deadline: Option<Instant>,
}

/// Random inputs on both executables, untraced, within the phase's budget; a few of each
/// signature of a difference replayed traced as findings. Returns the signatures seen.
fn random_phase(
    phase: RandomPhase,
    found: &mut Found,
    summary: &mut Summary,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<HashSet<Signature>, InputError> {
    let RandomPhase {
        cfg,
        space,
        exes,
        ret,
        work_deadline,
        run_deadline,
    } = phase;
    let t = Instant::now();
    let mut random_signatures: HashSet<Signature> = HashSet::new();
    if cfg.random_inputs > 0 {
        progress("random", 0, cfg.random_inputs as u64);
        // Within the phase's time budget: inputs that crash the executable (an integer
        // division by zero) cost a driver restart each.
        let deadline = earliest(after(t, cfg.random_budget_s), work_deadline);
        let pacer = Pacer::new(deadline).batches(RANDOM_FIRST_CHUNK, RANDOM_MAX_CHUNK);
        let mut draws = RandomBatches::new(
            std::slice::from_ref(space),
            cfg.common.seed,
            cfg.random_inputs,
            pacer,
        );
        let (mut batch, mut outs_p, mut outs_q) = (Vec::new(), Vec::new(), Vec::new());
        while let Some(inputs) = draws.next_batch() {
            let (p, q) = exes.run_batch(&inputs)?;
            batch.extend(inputs);
            outs_p.extend(p);
            outs_q.extend(q);
            progress("random", outs_p.len() as u64, cfg.random_inputs as u64);
        }
        if outs_p.len() < cfg.random_inputs {
            let whose = if work_deadline.is_some_and(|d| Instant::now() >= d) {
                "the run's time budget (--time-budget)".to_string()
            } else {
                format!("its time budget of {} s", cfg.random_budget_s)
            };
            summary.stopped.push(format!(
                "random phase: {whose} ran out after {} inputs",
                outs_p.len()
            ));
        }
        summary.random_inputs = outs_p.len();
        let mut per_signature: HashMap<Signature, usize> = HashMap::new();
        let mut witnesses: Vec<Vec<ArgBits>> = Vec::new();
        for (i, (a, b)) in outs_p.iter().zip(&outs_q).enumerate() {
            if hangs(a) && hangs(b) {
                found.hanging.note(&batch[i]);
            }
            let (Some(np), Some(nq)) = (plain_observe(a, ret), plain_observe(b, ret)) else {
                continue;
            };
            let (kinds, ulps) = compare(&np, &nq, ret, cfg.tolerance_ulps);
            track_max(&mut found.max_ulps, ulps, &batch[i], &np, &nq);
            if kinds.is_empty() {
                continue;
            }
            let sig = (np.flags, nq.flags, np.class, nq.class);
            random_signatures.insert(sig);
            *found.inputs_seen.entry(sig).or_insert(0) += 1;
            // Keep a few witnesses per signature; the rest only count.
            let count = per_signature.entry(sig).or_insert(0);
            *count += 1;
            if *count > 3 || !found.seen_inputs.insert(batch[i].clone()) {
                continue;
            }
            witnesses.push(batch[i].clone());
        }
        // The witnesses kept, replayed traced for their exception traces.
        let (wp, wq) = exes.traced(&witnesses, run_deadline, &mut |_, _| {})?;
        let replayed = wp.len().min(wq.len());
        for (i, args) in witnesses.into_iter().enumerate().take(replayed) {
            let (Some(op), Some(oq)) = (native_observe(&wp[i], ret), native_observe(&wq[i], ret))
            else {
                continue;
            };
            let (kinds, ulps) = compare(&op, &oq, ret, cfg.tolerance_ulps);
            if kinds.is_empty() {
                continue;
            }
            found.findings.push(Finding::found(
                args,
                (kinds, ulps),
                op,
                oq,
                Origin::of(Phase::Random),
            ));
        }
    }
    Ok(random_signatures)
}

/// The solving steps' common inputs.
struct SolveStep<'a, 's> {
    cfg: &'a DiffConfig,
    builds: &'a Builds<'s>,
    modes: (FpMode, FpMode),
    space: &'a InputSpace,
    work_deadline: Option<Instant>,
}

impl<'s> SolveStep<'_, 's> {
    /// Step 1: the exception conditions of both builds, collected on their paths and
    /// solved over the reals in rounds; the candidates, and the queries of each build.
    fn solve(
        &self,
        rp: &mut ConcreteRunner<'s>,
        rq: &mut ConcreteRunner<'s>,
        summary: &mut Summary,
        progress: &mut dyn FnMut(&str, u64, u64),
    ) -> Result<(CandidatePool, [Vec<Query>; 2]), InputError> {
        let (cfg, builds, space, work_deadline) =
            (self.cfg, self.builds, self.space, self.work_deadline);
        let (specs, inputs) = (&space.specs, &space.inputs);
        let mut pool = CandidatePool::default();
        let t = Instant::now();
        progress("collect", 0, 2);
        // Each build's exploration gets half the budget: loops whose branch checks are
        // hard nonlinear queries would otherwise explore for as long as paths remain.
        let until = |opts: CollectOptions| CollectOptions {
            deadline: earliest(
                after(Instant::now(), cfg.explore_budget_s / 2.0),
                work_deadline,
            ),
            ..opts
        };
        let cp =
            collect(builds.p.0, builds.p.1, specs, "p.", until(cfg.collect)).map_err(InputError)?;
        progress("collect", 1, 2);
        let cq = collect(builds.pp.0, builds.pp.1, specs, "q.", until(cfg.collect))
            .map_err(InputError)?;
        summary.constraints_p = cp.queries.len();
        summary.constraints_pprime = cq.queries.len();
        summary.paths_p = cp.paths;
        summary.paths_pprime = cq.paths;
        summary
            .stopped
            .extend(cp.stopped.iter().map(|s| format!("P: {s}")));
        summary
            .stopped
            .extend(cq.stopped.iter().map(|s| format!("P': {s}")));
        summary.phases.collect = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let all: Vec<(&'static str, &Query)> = cp
            .queries
            .iter()
            .map(|q| ("P", q))
            .chain(cq.queries.iter().map(|q| ("P'", q)))
            .collect();
        let refs: Vec<&Query> = all.iter().map(|(_, q)| *q).collect();
        let uniq = dedupe(&refs);
        summary.unique_constraints = uniq.len();
        let unique_queries: Vec<&Query> = uniq.iter().map(|&i| all[i].1).collect();
        let scripts = QuerySet::plain(&cp.constraints, &unique_queries);
        let names: Vec<String> = inputs.iter().map(|(n, _)| n.clone()).collect();
        progress("solve", 0, scripts.len() as u64);
        // Plain queries get half the budget first; differential ones (which aim at the
        // difference itself) the rest, so neither kind starves the other. Where the
        // differential queries stop paying (none of their first rounds is satisfiable:
        // the odometer's), their time goes back to the plain ones.
        // The automatic budget leaves the search and random phases their share of a
        // short --time-budget.
        summary.solve_budget_s = cfg.solve_budget_s.unwrap_or_else(|| {
            automatic_solve_budget(uniq.len()).min(AUTOMATIC_SOLVE_SHARE * cfg.common.time_budget_s)
        });
        let deadline = earliest(after(t, summary.solve_budget_s), work_deadline);
        let mut pending: VecDeque<PlainWork> = uniq
            .iter()
            .enumerate()
            .map(|(k, &i)| (k, (all[i].0, all[i].1.op.0, all[i].1.kind)))
            .collect();
        let mut rounds = SolveRounds {
            cfg,
            space,
            rp,
            rq,
            saturation: cfg.solve_budget_s.is_none().then_some((t, t)),
            stopped_saturated: false,
            rounds_done: 0,
            saturation_pace: saturation_pace(uniq.len()),
            timeout_ms: FIRST_ATTEMPT_MS.min(cfg.query_timeout_ms),
            retry_plain: Vec::new(),
            retry_differential: Vec::new(),
            differential_given_up: false,
            signatures: HashSet::new(),
        };
        let mut plain_solver = scripts.pool(&names, rounds.timeout_ms, cfg.threads);
        rounds.plain(
            &mut plain_solver,
            &mut pending,
            earliest(after(t, summary.solve_budget_s / 2.0), work_deadline),
            &mut pool,
            summary,
        );
        // Differential queries aim at the difference itself: this build raises the
        // exception while no operation of the other build raises one of that kind.
        let mut diff_scripts = QuerySet::default();
        let mut diff_origins = Vec::new();
        for (mine, theirs, build) in [(&cp, &cq, "P"), (&cq, &cp, "P'")] {
            let (set, origins) =
                QuerySet::differential(&cp.constraints, &mine.queries, &theirs.queries, deadline);
            diff_scripts.extend(set);
            diff_origins.extend(origins.into_iter().map(|i| {
                Origin::aimed(
                    Phase::Z3,
                    aim(build, mine.queries[i].op.0, mine.queries[i].kind),
                )
            }));
        }
        progress(
            "solve",
            uniq.len() as u64,
            (uniq.len() + diff_scripts.len()) as u64,
        );
        let mut diff_solver = diff_scripts.pool(&names, rounds.timeout_ms, cfg.threads);
        let mut diff_pending: VecDeque<usize> = (0..diff_origins.len()).collect();
        let mut solvers = Solvers {
            plain: &mut plain_solver,
            differential: &mut diff_solver,
        };
        rounds.differential(
            solvers.differential,
            &diff_origins,
            &mut diff_pending,
            deadline,
            &mut pool,
            summary,
        );
        rounds.plain(solvers.plain, &mut pending, deadline, &mut pool, summary);
        rounds.retry_longer(
            &mut solvers,
            (&mut pending, &mut diff_pending),
            &diff_origins,
            deadline,
            &mut pool,
            summary,
        );
        summary.unknown += rounds.retry_plain.len();
        summary.not_attempted += pending.len() + diff_pending.len();
        summary.differential_queries = diff_scripts.len();
        summary.unique_inputs = pool.unique.len();
        summary.phases.solve = t.elapsed().as_secs_f64();
        Ok((pool, [cp.queries, cq.queries]))
    }

    /// Step 1b: the float solver on the exceptions no model raised. A real-valued model
    /// need not round to a float that meets its condition (nor does "unsat" over the
    /// reals mean no float does): each such exception is stated over floats at every
    /// execution of its operation on its build's paths.
    fn float_solver(
        &self,
        queries: &[Vec<Query>; 2],
        pool: &mut CandidatePool,
        summary: &mut Summary,
        progress: &mut dyn FnMut(&str, u64, u64),
    ) -> Result<(), InputError> {
        let (cfg, builds, space, work_deadline) =
            (self.cfg, self.builds, self.space, self.work_deadline);
        let (mode_p, mode_pp) = self.modes;
        let t = Instant::now();
        // It is solving too: the solve budget again at most (so that `--solve-budget`
        // bounds it), a tenth of the run, and with the automatic budget
        // `REFINE_PER_SOLVE` of the time the solver phase took.
        let paced = match cfg.solve_budget_s {
            None => (REFINE_PER_SOLVE * summary.phases.solve)
                .max(REFINE_FLOOR_SHARE * cfg.common.time_budget_s),
            Some(_) => f64::INFINITY,
        };
        let share = (REFINE_SHARE * cfg.common.time_budget_s)
            .min(summary.solve_budget_s)
            .min(paced);
        let until = earliest(after(t, share), work_deadline);
        let limits = RefineLimits {
            max_paths: cfg.collect.max_paths,
            loop_bound: cfg.collect.loop_bound,
        };
        let missed = [queries[0].as_slice(), queries[1].as_slice()];
        let missed = [("P", builds.p, missed[0]), ("P'", builds.pp, missed[1])].map(
            |(build, (module, _), queries)| {
                missed_targets(module, queries, |&(op, kind)| {
                    pool.witnessed.contains(&(build, op.0, kind))
                })
                .1
            },
        );
        summary.float_solver_missed = missed.iter().map(Vec::len).sum();
        // Both builds at once, each on its own core: the share is wall time.
        let refined = refine_both(
            [
                (builds.p.0, builds.p.1, mode_p),
                (builds.pp.0, builds.pp.1, mode_pp),
            ],
            space,
            limits,
            [&missed[0], &missed[1]],
            until,
            &mut |_, done, total| progress("refine", done, total),
        )?;
        for ((build, refined), missed) in ["P", "P'"].into_iter().zip(refined).zip(&missed) {
            let Some(refined) = refined else {
                continue;
            };
            // Why its walks missed executions, once each: the paths it could not follow.
            for why in &refined.incomplete {
                let line = format!("float solver on {build}: {why}");
                if !summary.stopped.contains(&line) {
                    summary.stopped.push(line);
                }
            }
            // Operations no path of either walk reached are not counted: they are
            // dead code, or in functions this one does not call.
            let asked: Vec<&RefineState> = missed
                .iter()
                .filter_map(|target| refined.states.get(target))
                .collect();
            if refined.open_at_deadline > 0 {
                summary.stopped.push(format!(
                        "float solver on {build}: its time share ran out with {} executions of missed exceptions still open",
                        refined.open_at_deadline
                    ));
            }
            summary.float_solver_targets += asked.len();
            summary.float_solver_infeasible += asked
                .iter()
                .filter(|state| {
                    matches!(refined.answer(state, false), Refinement::Infeasible { .. })
                })
                .count();
            for (center, (op, kind)) in refined.candidates {
                if !pool.unique.insert(center.clone()) {
                    continue;
                }
                summary.float_solver_candidates += 1;
                let origin = Origin::aimed(Phase::FloatSolver, aim(build, op.0, kind));
                // Solutions meet their condition over floats: likelier witnesses
                // than the models around which the search still has to look.
                pool.candidates.insert(0, (center, vec![], origin));
            }
        }
        summary.phases.refine = t.elapsed().as_secs_f64();
        Ok(())
    }
}

/// Solving in rounds of a few queries per solver thread, between which the pool learns
/// what its new candidates raise. Every query is first tried briefly; those that run out
/// of time are tried again for longer while time is left and solving still pays.
struct SolveRounds<'a, 'm> {
    cfg: &'a DiffConfig,
    space: &'a InputSpace,
    rp: &'a mut ConcreteRunner<'m>,
    rq: &'a mut ConcreteRunner<'m>,
    /// With the automatic budget: when solving began, and when a candidate last raised
    /// something no earlier one did (see `saturated`).
    saturation: Option<(Instant, Instant)>,
    /// Whether saturation ended solving (said once in the stop reasons).
    stopped_saturated: bool,
    /// Rounds whose verdicts came back.
    rounds_done: usize,
    /// Solving before saturation may end it, and the patience: [`saturation_pace`].
    saturation_pace: (Duration, f64),
    /// The time limit of the current attempts, up to the configured query timeout.
    timeout_ms: u32,
    /// Queries whose attempt at `timeout_ms` ran out of time.
    retry_plain: Vec<PlainWork>,
    retry_differential: Vec<usize>,
    /// Whether the differential queries stopped paying (none of the first rounds was
    /// satisfiable): they are not retried.
    differential_given_up: bool,
    /// What the candidates raise in the interpreter: (P's kinds, P''s kinds).
    signatures: HashSet<(ExceptionSet, ExceptionSet)>,
}

/// Both builds' solver pools.
struct Solvers<'s, 'p, 'd> {
    plain: &'s mut QueryPool<'p>,
    differential: &'s mut QueryPool<'d>,
}

/// Differential queries tried before giving up on them when none is satisfiable.
const DIFFERENTIAL_PROBE_ROUNDS: usize = 3;
/// The time limit of a query's first attempt, in milliseconds: most models come within
/// it, and queries that need longer wait until every other query had its turn.
const FIRST_ATTEMPT_MS: u32 = 25;
/// Each retry gives the queries still open this many times the last attempt's time.
const ATTEMPT_GROWTH: u32 = 4;
/// Seconds of solving before saturation may end it, at least.
const SATURATION_BASE_S: f64 = 0.8;

/// Solving saturates once it has gone without progress for this share of the time it
/// took to make the last, in a function of at most `SMALL_FUNCTION_QUERIES` queries
/// (answered in a few rounds: what the last rounds did not find, more time rarely does),
/// and for as long as that took in a larger one (an unrolled loop's candidate covers many
/// operations at once, and the rounds after it may find nothing new for a while).
const SATURATION_PATIENCE: f64 = 0.3;
const SMALL_FUNCTION_QUERIES: usize = 200;

/// Solving before saturation may end it once some candidate made progress (at least
/// `SATURATION_BASE_S`, plus 5 ms per query beyond 200 like the automatic budget, at most
/// the automatic budget's base: thousands of alike queries must not hold solving open to
/// the end of the budget), and the patience.
fn saturation_pace(unique_queries: usize) -> (Duration, f64) {
    let scaled = SATURATION_BASE_S + 0.005 * unique_queries.saturating_sub(200) as f64;
    let patience = if unique_queries <= SMALL_FUNCTION_QUERIES {
        SATURATION_PATIENCE
    } else {
        1.0
    };
    (
        Duration::from_secs_f64(scaled.min(AUTOMATIC_SOLVE_BASE_S)),
        patience,
    )
}

impl SolveRounds<'_, '_> {
    fn round_len(&self) -> usize {
        (8 * self.cfg.threads).max(8)
    }

    /// Adds a model's candidate, unless its floats were found before; `first` puts it
    /// ahead of the others. A candidate that raises an exception no earlier one raised,
    /// or a new pair of the builds' exception kinds, is progress (see `saturated`).
    fn add(&mut self, pool: &mut CandidatePool, values: &[Rational], origin: Origin, first: bool) {
        let (center, around) = model_floats(values, &self.space.tys);
        if !pool.unique.insert(center.clone()) {
            return;
        }
        let args = self.space.assemble(&center);
        let witnessed_before = pool.witnessed.len();
        let mut kinds = [ExceptionSet::default(); 2];
        for (k, (build, runner)) in [("P", &mut *self.rp), ("P'", &mut *self.rq)]
            .into_iter()
            .enumerate()
        {
            if let Ok(e) = runner.eval(&args) {
                pool.witnessed
                    .extend(e.events.iter().map(|e| (build, e.site.op.0, e.kind)));
                kinds[k] = e.events.iter().map(|e| e.kind).collect();
            }
        }
        let new_signature = self.signatures.insert((kinds[0], kinds[1]));
        if pool.witnessed.len() > witnessed_before || new_signature {
            if let Some((_, last_new)) = &mut self.saturation {
                *last_new = Instant::now();
            }
        }
        if first {
            pool.candidates.insert(0, (center, around, origin));
        } else {
            pool.candidates.push((center, around, origin));
        }
    }

    /// Whether solving has stopped paying, so that the automatic budget need not be spent:
    /// past its base, it has gone without progress for its patience's share of the time
    /// it took to make the last ([`saturation_pace`]). In an unrolled loop the thousands
    /// of queries left mostly time out on conditions alike to those already answered.
    fn saturated(&self) -> bool {
        self.saturation_moment()
            .is_some_and(|moment| Instant::now() >= moment)
    }

    /// When solving saturates unless a candidate makes progress first: a round in flight
    /// ends there too.
    fn saturation_moment(&self) -> Option<Instant> {
        // However slow the first round (large queries on a loaded machine), it must end
        // before solving can be judged.
        if self.rounds_done == 0 {
            return None;
        }
        let (began, last_new) = self.saturation?;
        // Where nothing was found yet, there is no pace to judge by: the automatic
        // budget's base (a range may hold its few models behind many unsatisfiable
        // queries).
        if last_new == began {
            return Some(began + Duration::from_secs_f64(AUTOMATIC_SOLVE_BASE_S));
        }
        let (base, patience) = self.saturation_pace;
        Some((began + base).max(last_new + (last_new - began).mul_f64(patience)))
    }

    /// The end of the next round: `until`, or saturation if that comes first.
    fn round_end(&self, until: Option<Instant>) -> Option<Instant> {
        earliest(until, self.saturation_moment())
    }

    /// Says once, among the stop reasons, that saturation ended solving.
    fn note_saturated(&mut self, summary: &mut Summary, left: usize) {
        if std::mem::replace(&mut self.stopped_saturated, true) {
            return;
        }
        let (began, last_new) = self.saturation.unwrap_or((Instant::now(), Instant::now()));
        summary.stopped.push(format!(
            "solver saturated: no candidate raised anything new in the last {:.1} s of {:.1} s \
             of solving; {left} queries of this kind left (the automatic budget ends there; \
             --solve-budget spends it all)",
            last_new.elapsed().as_secs_f64(),
            began.elapsed().as_secs_f64(),
        ));
    }

    /// Whether a query that ran out of time at this attempt deserves a longer one.
    fn retries(&self, verdict: &Verdict) -> bool {
        verdict.timed_out() && self.timeout_ms < self.cfg.query_timeout_ms
    }

    /// Solves pending plain queries until `until` (or saturation), skipping those whose
    /// exception an earlier candidate already raises.
    fn plain(
        &mut self,
        solver: &mut QueryPool,
        pending: &mut VecDeque<PlainWork>,
        until: Option<Instant>,
        pool: &mut CandidatePool,
        summary: &mut Summary,
    ) {
        while !pending.is_empty() && until.is_none_or(|d| Instant::now() < d) {
            if self.saturated() {
                self.note_saturated(summary, pending.len() + self.retry_plain.len());
                break;
            }
            let mut batch = Vec::new();
            while batch.len() < self.round_len() {
                let Some(work) = pending.pop_front() else {
                    break;
                };
                if pool.witnessed.contains(&work.1) {
                    summary.already_witnessed += 1;
                } else {
                    batch.push(work);
                }
            }
            let which: Vec<usize> = batch.iter().map(|w| w.0).collect();
            let verdicts = solver.solve(&which, self.round_end(until));
            self.rounds_done += 1;
            for (work, v) in batch.into_iter().zip(verdicts) {
                let (build, op, kind) = work.1;
                match v {
                    Verdict::Sat(values) => {
                        summary.satisfiable += 1;
                        let origin = Origin::aimed(Phase::Z3, aim(build, op, kind));
                        self.add(pool, &values, origin, false);
                    }
                    Verdict::Unsat => summary.unsatisfiable += 1,
                    ref timed_out if self.retries(timed_out) => self.retry_plain.push(work),
                    Verdict::Unknown(_) => summary.unknown += 1,
                    // Back in line for the next call, with the time it brings.
                    Verdict::NotAttempted => pending.push_back(work),
                }
            }
        }
    }

    /// Solves the differential queries of `pending` (indices of `origins`) in order until
    /// `until`, giving up when none of the first rounds is satisfiable.
    fn differential(
        &mut self,
        solver: &mut QueryPool,
        origins: &[Origin],
        pending: &mut VecDeque<usize>,
        until: Option<Instant>,
        pool: &mut CandidatePool,
        summary: &mut Summary,
    ) {
        let mut rounds = 0;
        let mut tried = 0;
        // Where the plain queries already stopped paying, one round tells whether these do.
        let probe_rounds = if self.saturated() {
            1
        } else {
            DIFFERENTIAL_PROBE_ROUNDS
        };
        while !pending.is_empty() && until.is_none_or(|d| Instant::now() < d) {
            if rounds >= probe_rounds && self.saturated() {
                self.note_saturated(summary, pending.len() + self.retry_differential.len());
                break;
            }
            if rounds == probe_rounds && summary.differential_satisfiable == 0 {
                self.differential_given_up = true;
                self.retry_differential.clear();
                summary.stopped.push(format!(
                    "differential queries: none of the first {tried} was satisfiable; their \
                     time went to the plain queries"
                ));
                break;
            }
            let take = self.round_len().min(pending.len());
            let which: Vec<usize> = pending.drain(..take).collect();
            let verdicts = solver.solve(&which, self.round_end(until));
            self.rounds_done += 1;
            let tried_before = tried;
            for (k, v) in which.into_iter().zip(verdicts) {
                match v {
                    Verdict::Sat(values) => {
                        summary.differential_satisfiable += 1;
                        // Differential candidates go first: they are the likeliest witnesses.
                        self.add(pool, &values, origins[k], true);
                    }
                    // Back in line: the round ended (its deadline or saturation) first.
                    Verdict::NotAttempted => {
                        pending.push_back(k);
                        continue;
                    }
                    ref timed_out if self.retries(timed_out) => self.retry_differential.push(k),
                    _ => {}
                }
                tried += 1;
            }
            if tried == tried_before {
                break;
            }
            rounds += 1;
        }
    }

    /// Tries the queries that ran out of time again, each round with `ATTEMPT_GROWTH`
    /// times more, up to the configured timeout, while time is left and solving pays.
    fn retry_longer(
        &mut self,
        solvers: &mut Solvers<'_, '_, '_>,
        (pending, diff_pending): (&mut VecDeque<PlainWork>, &mut VecDeque<usize>),
        origins: &[Origin],
        until: Option<Instant>,
        pool: &mut CandidatePool,
        summary: &mut Summary,
    ) {
        while self.timeout_ms < self.cfg.query_timeout_ms
            && pending.is_empty()
            && diff_pending.is_empty()
            && !(self.retry_plain.is_empty() && self.retry_differential.is_empty())
            && until.is_none_or(|d| Instant::now() < d)
        {
            if self.saturated() {
                let left = self.retry_plain.len() + self.retry_differential.len();
                self.note_saturated(summary, left);
                break;
            }
            self.timeout_ms = (self.timeout_ms * ATTEMPT_GROWTH).min(self.cfg.query_timeout_ms);
            solvers.plain.set_timeout_ms(self.timeout_ms);
            solvers.differential.set_timeout_ms(self.timeout_ms);
            pending.extend(self.retry_plain.drain(..));
            self.plain(solvers.plain, pending, until, pool, summary);
            if !self.differential_given_up {
                diff_pending.extend(self.retry_differential.drain(..));
                self.differential(
                    solvers.differential,
                    origins,
                    diff_pending,
                    until,
                    pool,
                    summary,
                );
            }
        }
    }
}

/// The summary's counts of the confirmed findings: how many, their signatures, those
/// only the solver reached, the largest ulps.
fn count_confirmed(summary: &mut Summary, findings: &[Finding]) {
    let confirmed: Vec<&Finding> = findings.iter().filter(|x| x.confirmed).collect();
    summary.diff_confirmed = confirmed.len();
    summary.diff_unconfirmed = findings.len() - confirmed.len();
    summary.model_disagreements = confirmed
        .iter()
        .filter(|x| !x.model_agrees && x.model_unchecked.is_none())
        .count();
    summary.model_unchecked = confirmed
        .iter()
        .filter(|x| x.model_unchecked.is_some())
        .count();
    let sigs: BTreeSet<Signature> = confirmed.iter().map(|x| signature(x)).collect();
    summary.signatures = sigs.len();
    for seen in &mut summary.signature_inputs {
        let key = (
            seen.p_flags,
            seen.p_prime_flags,
            seen.p_class,
            seen.p_prime_class,
        );
        seen.confirmed = sigs.contains(&key);
    }
    summary.solver_only_signatures = sigs
        .iter()
        .filter(|s| !summary.random_signatures.contains(*s))
        .filter(|s| {
            confirmed
                .iter()
                .any(|x| signature(x) == **s && x.origin.phase == Phase::Z3)
        })
        .count();
    summary.max_ulps = summary
        .max_ulps
        .max(confirmed.iter().filter_map(|x| x.ulps).max().unwrap_or(0));
}

impl DiffReport {
    /// Adds the report of another assignment of the integer parameters (same function
    /// and builds): its inputs and findings, and its counts to this summary's.
    fn absorb(&mut self, other: DiffReport) {
        self.findings.extend(other.findings);
        self.candidates.extend(other.candidates);
        self.non_terminating.extend(other.non_terminating);
        let (s, o) = (&mut self.summary, other.summary);
        for (total, more) in [
            (&mut s.constraints_p, o.constraints_p),
            (&mut s.constraints_pprime, o.constraints_pprime),
            (&mut s.unique_constraints, o.unique_constraints),
            (&mut s.satisfiable, o.satisfiable),
            (&mut s.unsatisfiable, o.unsatisfiable),
            (&mut s.unknown, o.unknown),
            (&mut s.not_attempted, o.not_attempted),
            (&mut s.already_witnessed, o.already_witnessed),
            (&mut s.hanging_candidates, o.hanging_candidates),
            (&mut s.differential_queries, o.differential_queries),
            (&mut s.differential_satisfiable, o.differential_satisfiable),
            (&mut s.float_solver_targets, o.float_solver_targets),
            (&mut s.float_solver_missed, o.float_solver_missed),
            (&mut s.float_solver_candidates, o.float_solver_candidates),
            (&mut s.float_solver_infeasible, o.float_solver_infeasible),
            (&mut s.unique_inputs, o.unique_inputs),
            (&mut s.paths_p, o.paths_p),
            (&mut s.paths_pprime, o.paths_pprime),
            (&mut s.random_inputs, o.random_inputs),
        ] {
            *total += more;
        }
        s.solve_budget_s += o.solve_budget_s;
        for r in o.backend_rewrites_pprime {
            if !s.backend_rewrites_pprime.contains(&r) {
                s.backend_rewrites_pprime.push(r);
            }
        }
        s.stopped.extend(o.stopped);
        let (p, q) = (&mut s.phases, o.phases);
        p.compile += q.compile;
        p.collect += q.collect;
        p.solve += q.solve;
        p.refine += q.refine;
        p.search += q.search;
        p.random += q.random;
        p.sweep += q.sweep;
        p.confirm += q.confirm;
        if o.worst.as_ref().map(|w| w.ulps) > s.worst.as_ref().map(|w| w.ulps) {
            s.worst = o.worst;
        }
        s.max_ulps = s.max_ulps.max(o.max_ulps);
        for seen in o.signature_inputs {
            let key =
                |c: &SignatureInputs| (c.p_flags, c.p_prime_flags, c.p_class, c.p_prime_class);
            match s.signature_inputs.iter_mut().find(|c| key(c) == key(&seen)) {
                Some(c) => c.inputs += seen.inputs,
                None => s.signature_inputs.push(seen),
            }
        }
        s.signature_inputs.sort_by_key(|c| {
            (
                c.inputs,
                c.p_flags,
                c.p_prime_flags,
                c.p_class,
                c.p_prime_class,
            )
        });
        s.random_signatures.extend(o.random_signatures);
        count_confirmed(s, &self.findings);
    }
}

/// Runs the whole pipeline: once per assignment of the integer parameters a `--range`
/// samples (each with an equal share of the time left), their findings together.
pub fn run_diff(
    session: &Session,
    cfg: &DiffConfig,
    progress: Progress,
) -> Result<DiffReport, InputError> {
    cfg.common.validate()?;
    let started = cfg.common.start();
    let f = session
        .p()?
        .function(session.function(BuildKind::P, &cfg.common.function)?);
    let reference = FunctionReference::for_function(cfg.reference.as_ref(), f)?;
    let assignments = cfg.common.per_int_assignment(f);
    if assignments.len() == 1 {
        let mut report = run_diff_once(session, cfg, progress)?;
        if let Some(r) = &reference {
            report.measure_against(r);
        }
        if cfg.attribute {
            report.attribute(session, cfg, started, progress)?;
        }
        return Ok(report);
    }
    let count = assignments.len();
    let mut merged: Option<DiffReport> = None;
    for (k, common) in assignments.into_iter().enumerate() {
        let left = (cfg.common.time_budget_s - started.elapsed().as_secs_f64()).max(0.0);
        let one = DiffConfig {
            common: CommonConfig {
                time_budget_s: left / (count - k) as f64,
                started: Some(Instant::now()),
                ..common
            },
            ..cfg.clone()
        };
        let report = run_diff_once(session, &one, progress)?;
        match &mut merged {
            Some(all) => all.absorb(report),
            None => merged = Some(report),
        }
    }
    let mut report =
        merged.ok_or_else(|| InputError("no integer assignment was searched".into()))?;
    if let Some(r) = &reference {
        report.measure_against(r);
    }
    if cfg.attribute {
        report.attribute(session, cfg, started, progress)?;
    }
    report.summary.wall_seconds = started.elapsed().as_secs_f64();
    report.summary.record_compile_stats();
    Ok(report)
}

impl DiffReport {
    /// Measures both builds' results of every finding, and of the largest divergence,
    /// against the reference.
    fn measure_against(&mut self, reference: &FunctionReference) {
        for x in &mut self.findings {
            if let (Some(a), Some(b)) = (x.p.result, x.p_prime.result) {
                x.reference = AgainstReference::of(reference, &self.params, &x.input, a, b);
            }
        }
        if let Some(w) = &mut self.summary.worst {
            let against = AgainstReference::of(reference, &self.params, &w.input, w.p, w.p_prime);
            if let Some(r) = against {
                if w.exact.is_none() {
                    w.exact = Some(format!(
                        "{:e} (the reference {}, correctly rounded)",
                        r.exact.0, reference.text
                    ));
                    w.closer = Some(r.closer);
                }
            }
        }
        self.summary.reference = Some(reference.text.clone());
    }
}

/// Whether every one of `witnesses` (confirmed differences of `cfg`'s function) agrees
/// with P when P' is built with `flags`, a whole file's safe command line: each replayed
/// natively, traced, on P and on that build, until `until`. Witnesses P' without any
/// sub-option already shows do not count, as in the function's own check.
pub fn witnesses_agree_under(
    session: &Session,
    cfg: &DiffConfig,
    witnesses: &[Vec<ArgBits>],
    flags: &BuildFlags,
    until: Instant,
) -> Result<bool, InputError> {
    let fp = session.function(BuildKind::P, &cfg.common.function)?;
    let f = session.p()?.function(fp);
    let space = InputSpace::of(f, &cfg.common.input_options(), "diff")?;
    let ExecutablePair { p, pp } = ExecutablePair::open(session, &space.lens, &cfg.common)?;
    let outcomes = p.traced(witnesses, Some(until))?;
    if outcomes.len() < witnesses.len() {
        return Err(InputError(
            "the file's safe set: time ran out replaying P".into(),
        ));
    }
    // A witness P crashes or hangs on has nothing to agree with.
    let (inputs, observed): (Vec<_>, Vec<_>) = witnesses
        .iter()
        .zip(&outcomes)
        .filter_map(|(w, o)| native_observe(o, f.ret).map(|obs| (w.clone(), obs)))
        .unzip();
    let mut a = attribution::Attributor::checking(
        session,
        &pp,
        inputs,
        observed,
        f.ret,
        cfg.tolerance_ulps,
        until,
    );
    a.verify(flags)
        .map_err(|why| InputError(format!("the file's safe set: {why}")))
}

/// The attribution gets at least this long, or as long as the search before it took.
const MIN_ATTRIBUTION_S: f64 = 10.0;

impl DiffReport {
    /// Attributes every confirmed finding to fast-math's sub-options and finds the safe
    /// set (`crate::attribution`), when P' is a fast-math build.
    fn attribute(
        &mut self,
        session: &Session,
        cfg: &DiffConfig,
        started: Instant,
        progress: Progress,
    ) -> Result<(), InputError> {
        if !session.flags().p_prime_is_fast_math() {
            return Ok(());
        }
        let t = Instant::now();
        let confirmed: Vec<usize> = (0..self.findings.len())
            .filter(|&i| self.findings[i].confirmed)
            .collect();
        if confirmed.is_empty() {
            self.summary.safe_flags = Some(SafeFlags::keeping(
                &FastMathOption::ALL,
                session.flags(),
                true,
                "no confirmed difference within the searched bounds: nothing to turn off".into(),
            ));
            return Ok(());
        }
        let fpp = session.function(BuildKind::PPrime, &cfg.common.function)?;
        let f = session
            .p()?
            .function(session.function(BuildKind::P, &cfg.common.function)?);
        let space = InputSpace::of(f, &cfg.common.input_options(), "diff")?;
        let pp = crate::executable::Executable::open(
            session,
            BuildKind::PPrime,
            fpp,
            &space.lens,
            &cfg.common,
        )?;
        let allowance = started.elapsed().as_secs_f64().max(MIN_ATTRIBUTION_S);
        let until = t + Duration::from_secs_f64(allowance);
        let witnesses: Vec<&Finding> = confirmed.iter().map(|&i| &self.findings[i]).collect();
        let mut a = attribution::Attributor::new(
            session,
            &pp,
            &witnesses,
            self.ret,
            cfg.tolerance_ulps,
            until,
        );
        let mut attributed = 0u8;
        let mut stop = None;
        let mut results = Vec::new();
        for k in 0..confirmed.len() {
            progress("attribution", k as u64, confirmed.len() as u64);
            match a.attribute(k) {
                Ok(r) => results.push(r),
                Err(why) => {
                    stop = Some(why);
                    break;
                }
            }
        }
        for (k, r) in results.into_iter().enumerate() {
            let x = &mut self.findings[confirmed[k]];
            match r {
                Ok((mask, alone)) => {
                    attributed |= mask;
                    x.attribution = Some(attribution::names(mask));
                    x.attribution_alone =
                        alone.iter().flat_map(|m| attribution::names(*m)).collect();
                }
                Err(why) => x.attribution_note = Some(why),
            }
        }
        let safe = match &stop {
            Some(_) => None,
            None => match a.safe_set(attributed) {
                Ok(keep) => {
                    let kept = attribution::options_of(keep);
                    let flags = BuildFlags {
                        p_prime: session.flags().fast_math_command(&kept),
                        ..session.flags().clone()
                    };
                    match a.verify(&flags) {
                        Ok(verified) => Some(SafeFlags::keeping(
                            &kept,
                            session.flags(),
                            verified,
                            format!(
                                "the {} confirmed witnesses of this run replayed on each build \
                                 (no difference elsewhere in the input space is ruled out)",
                                a.witnesses()
                            ),
                        )),
                        Err(why) => {
                            stop = Some(why);
                            None
                        }
                    }
                }
                Err(why) => {
                    stop = Some(why);
                    None
                }
            },
        };
        if let Some(why) = stop {
            self.summary.stopped.push(format!("attribution: {why}"));
        }
        self.summary.safe_flags = safe;
        self.summary.attribution_builds = a.builds;
        for sig in &mut self.summary.signature_inputs {
            let key = (
                sig.p_flags,
                sig.p_prime_flags,
                sig.p_class,
                sig.p_prime_class,
            );
            sig.attributions = distinct_attributions(
                self.findings
                    .iter()
                    .filter(|x| x.confirmed && signature(x) == key),
            );
        }
        self.summary.phases.attribution = t.elapsed().as_secs_f64();
        Ok(())
    }
}

fn signature(x: &Finding) -> Signature {
    (x.p.flags, x.p_prime.flags, x.p.class, x.p_prime.class)
}

fn track_max(
    best: &mut Option<Divergence>,
    ulps: Option<u64>,
    args: &[ArgBits],
    p: &Observation,
    q: &Observation,
) {
    if let (Some(u), Some(a), Some(b)) = (ulps, p.result, q.result) {
        if best.as_ref().is_none_or(|m| u > m.0) {
            *best = Some((u, args.to_vec(), a, b));
        }
    }
}

/// Hill-climbs |P − P'| in ulps from the best input, moving one coordinate at a time by
/// geometrically shrinking steps.
fn local_search_max(
    rp: &mut ConcreteRunner,
    rq: &mut ConcreteRunner,
    (space, ret): (&InputSpace, Type),
    start: Vec<ArgBits>,
    best: &mut Option<Divergence>,
    until: Option<Instant>,
) {
    let (ranges, tys) = (&space.ranges, &space.tys);
    let mut point = space.flatten(&start);
    let mut current = best.as_ref().map(|b| b.0).unwrap_or(0);
    for exponent in (0..40).rev().step_by(3) {
        let rel = 2f64.powi(-exponent);
        let mut improved = true;
        let mut rounds = 0;
        while improved && rounds < 20 && until.is_none_or(|d| Instant::now() < d) {
            improved = false;
            rounds += 1;
            for i in 0..point.len() {
                for sign in [1.0, -1.0] {
                    let mut cand = point.clone();
                    let v = match tys[i] {
                        FloatTy::F64 => f64::from_bits(cand[i]),
                        FloatTy::F32 => f64::from(f32::from_bits(cand[i] as u32)),
                    };
                    let mut nv = v + sign * rel * v.abs().max(f64::MIN_POSITIVE);
                    if let Some((lo, hi)) = ranges[i] {
                        nv = nv.clamp(lo, hi);
                    }
                    cand[i] = match tys[i] {
                        FloatTy::F64 => nv.to_bits(),
                        FloatTy::F32 => u64::from((nv as f32).to_bits()),
                    };
                    if cand[i] == point[i] || !is_finite_bits(cand[i], tys[i]) {
                        continue;
                    }
                    let args = space.assemble(&cand);
                    let (Ok(ep), Ok(eq)) = (rp.eval(&args), rq.eval(&args)) else {
                        continue;
                    };
                    if let Some((u, a, b)) = interpreted_ulps(&ep, &eq, ret) {
                        if u > current {
                            current = u;
                            point = cand;
                            *best = Some((u, args, a, b));
                            improved = true;
                        }
                    }
                }
            }
        }
    }
}

fn worst_with_exact(
    p: (&fpscout_ir::Module, FuncId),
    specs: &[ParamSpec],
    ret: Type,
    input: Vec<ArgBits>,
    a: u64,
    b: u64,
    ulps: u64,
) -> Worst {
    let ft = ret.float_ty().unwrap_or(FloatTy::F64);
    let exact_args = crate::search::exact_args(specs, &input);
    let exact = exact_args.and_then(|args| exact_value(p.0, p.1, &args));
    let closer = exact.as_ref().and_then(|q| {
        let (qa, qb) = (float_value(a, ft)?, float_value(b, ft)?);
        let (da, db) = (Rational::from(&qa - q).abs(), Rational::from(&qb - q).abs());
        Some(match da.cmp(&db) {
            std::cmp::Ordering::Less => "P",
            std::cmp::Ordering::Greater => "P'",
            std::cmp::Ordering::Equal => "tie",
        })
    });
    let exact = exact.map(|q| {
        let rounded = round_to_float(&q, ft);
        format!(
            "{} (nearest float {})",
            fpscout_report::args::decimal(rounded, ft),
            fpscout_report::args::hex_float(rounded, ft)
        )
    });
    Worst {
        input,
        p: a,
        p_prime: b,
        ulps,
        exact,
        closer,
    }
}

/// Neighbours of one candidate replayed traced at most (see step 2 of [`run_diff`]).
const TRACED_PER_CANDIDATE: usize = 4;
/// Points of a candidate tried before the rest: when they all hang in both builds, the
/// rest is not tried.
const HANG_PROBE: usize = 4;

/// One point of a candidate's neighbourhood and what both executables did on it.
struct Probe {
    /// The candidate.
    n: usize,
    /// The point's position in the candidate's neighbourhood.
    steps: usize,
    args: Vec<ArgBits>,
    p: NativeOutcome,
    q: NativeOutcome,
}

/// Whether the executable was killed at the hang limit.
fn hangs(o: &NativeOutcome) -> bool {
    matches!(o, NativeOutcome::TimedOut)
}

/// A few distinct inputs on which neither build terminates.
#[derive(Default)]
struct HangingInputs {
    inputs: Vec<Vec<ArgBits>>,
}

impl HangingInputs {
    const KEPT: usize = 3;

    fn note(&mut self, args: &[ArgBits]) {
        if self.inputs.len() < Self::KEPT && !self.inputs.iter().any(|a| a == args) {
            self.inputs.push(args.to_vec());
        }
    }
}

/// Share of the time budget the sweep of a one-parameter function may take.
const SWEEP_SHARE: f64 = 0.05;
/// Most inputs a sweep runs (every 256th `float`).
const SWEEP_MAX_INPUTS: u64 = 1 << 24;

/// The first input of each signature in which the builds differ, over a sweep of the
/// one float input: a pilot of 4096 inputs spread over the whole space times the
/// function, then as many more as [`SWEEP_SHARE`] of the budget allows (a power-of-two
/// stride, so every power of two and every exponent is among them). An input that does
/// not terminate stalls the sweep, which then gives up (that is what the hang limit is
/// for, input by input).
fn sweep_one_input(
    exes: &ExecutablePair,
    ty: FloatTy,
    cfg: &DiffConfig,
    until: Option<Instant>,
) -> Result<Vec<(u64, Signature, u64)>, String> {
    let space: u64 = 1 << 32;
    let budget = Duration::from_secs_f64((cfg.common.time_budget_s * SWEEP_SHARE).max(0.0));
    let budget = match until {
        Some(d) => budget.min(d.saturating_duration_since(Instant::now())),
        None => budget,
    };
    let pilot = 1u64 << 12;
    let t = Instant::now();
    let stalled = |e: String| format!("{e} (an input probably does not terminate)");
    let quiet = &mut |_, _| {};
    // Codes arrive in blocks of 65,536, so a stall limit covers a whole pilot.
    let pilot_codes = crate::oracle::sweep(
        exes.p.native(),
        exes.pp.native(),
        exes.p.options(),
        crate::oracle::Sweep {
            first: 0,
            count: pilot,
            stride: space / pilot,
        },
        budget.max(Duration::from_millis(500)),
        quiet,
    )
    .map_err(stalled)?;
    let per_input = t.elapsed().as_secs_f64() / pilot as f64;
    let affordable = (budget.as_secs_f64() / per_input.max(1e-9)) as u64;
    let wanted = affordable.clamp(1, SWEEP_MAX_INPUTS);
    // The largest power of two not above it, so the stride is one too and the sweep
    // passes through every point of the pilot: its codes replace the pilot's.
    let count = 1u64 << (63 - wanted.leading_zeros());
    let (codes, swept) = if count > pilot {
        let codes = crate::oracle::sweep(
            exes.p.native(),
            exes.pp.native(),
            exes.p.options(),
            crate::oracle::Sweep {
                first: 0,
                count,
                stride: space / count,
            },
            budget * 2 + Duration::from_secs(1),
            quiet,
        )
        .map_err(stalled)?;
        (codes, count)
    } else {
        (pilot_codes, pilot)
    };
    let sweep_oracle = crate::oracle::Oracle::from_codes(&codes, swept, ty, false);
    Ok(sweep_oracle
        .differences()
        .map(|(sig, o)| (o.witness[0], *sig, o.count))
        .collect())
}

/// The largest divergence found by the interpreter-guided local search, as the
/// executables compute it (dropped when they do not return finite results there).
fn native_max(
    exes: &ExecutablePair,
    ret: Type,
    best: Option<Divergence>,
) -> Result<Option<Divergence>, InputError> {
    let Some((_, args, _, _)) = best else {
        return Ok(None);
    };
    let (op, oq) = exes.traced(std::slice::from_ref(&args), None, &mut |_, _| {})?;
    let mut out = None;
    if let (Some(p), Some(q)) = (native_observe(&op[0], ret), native_observe(&oq[0], ret)) {
        let (_, ulps) = compare(&p, &q, ret, u64::MAX);
        track_max(&mut out, ulps, &args, &p, &q);
    }
    Ok(out)
}

/// Replays findings on both executables a second time, traced: confirmed when the same
/// observations come back (and so the difference holds). Each is also replayed with
/// FTZ/DAZ off in both builds, to mark differences that only FTZ/DAZ makes.
/// Stable order: each finding's rank among those of its signature (0 for the first
/// seen), then the order found.
fn order_by_rank_in_signature(findings: &mut Vec<Finding>) {
    let mut seen: HashMap<Signature, usize> = HashMap::new();
    let mut ranked: Vec<(usize, Finding)> = findings
        .drain(..)
        .map(|x| {
            let rank = seen.entry(signature(&x)).or_insert(0);
            *rank += 1;
            (*rank, x)
        })
        .collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    findings.extend(ranked.into_iter().map(|(_, x)| x));
}

fn confirm(
    findings: &mut [Finding],
    exes: &ExecutablePair,
    ret: Type,
    tol: u64,
    until: Option<Instant>,
) -> Result<(), InputError> {
    if findings.is_empty() {
        return Ok(());
    }
    let inputs: Vec<Vec<ArgBits>> = findings.iter().map(|x| x.input.clone()).collect();
    confirm_each_pair(
        exes,
        findings,
        |x| &x.input,
        until,
        |x, again| {
            let Some((a, b)) = again else {
                x.unconfirmed_reason =
                    Some("the run's time budget ran out before its replay".into());
                return;
            };
            let (Some(np), Some(nq)) = (native_observe(a, ret), native_observe(b, ret)) else {
                x.unconfirmed_reason =
                    Some("the native build crashed or timed out on replay".into());
                return;
            };
            if np != x.p || nq != x.p_prime {
                x.unconfirmed_reason = Some(format!(
                    "a second native replay differs from the first (P: {} {}, P': {} {}): the \
                 program is not deterministic on this input",
                    np.result.map(|b| format!("{b:#x}")).unwrap_or_default(),
                    np.flags,
                    nq.result.map(|b| format!("{b:#x}")).unwrap_or_default(),
                    nq.flags
                ));
                return;
            }
            x.confirmed = true;
        },
    )?;
    let off = exes.with_ftz_daz_off();
    // Without FTZ/DAZ: untraced first; only where results and flags agree there does a
    // traced replay decide whether the traces still differ.
    let (plain_p, plain_q) = off.run(&inputs, until, &mut |_, _| {})?;
    // Not replayed in time: counted as still differing (not marked FTZ/DAZ-only).
    let still_differs: Vec<bool> = (0..inputs.len())
        .map(|i| match (plain_p.get(i), plain_q.get(i)) {
            (Some(a), Some(b)) => match (plain_observe(a, ret), plain_observe(b, ret)) {
                (Some(a), Some(b)) => !compare(&a, &b, ret, tol).0.is_empty(),
                _ => false,
            },
            _ => true,
        })
        .collect();
    let trace_only: Vec<usize> = (0..inputs.len()).filter(|&i| !still_differs[i]).collect();
    let trace_only_inputs: Vec<Vec<ArgBits>> =
        trace_only.iter().map(|&i| inputs[i].clone()).collect();
    let (tp, tq) = off.traced(&trace_only_inputs, until, &mut |_, _| {})?;
    let mut ftz_only = vec![false; inputs.len()];
    for (k, &i) in trace_only.iter().enumerate().take(tp.len().min(tq.len())) {
        if let (Some(a), Some(b)) = (native_observe(&tp[k], ret), native_observe(&tq[k], ret)) {
            ftz_only[i] = compare(&a, &b, ret, tol).0.is_empty();
        }
    }
    for (x, ftz_only) in findings.iter_mut().zip(ftz_only) {
        x.ftz_only = x.confirmed && ftz_only;
    }
    Ok(())
}

impl DiffReport {
    /// The signatures of the confirmed findings that differ in flags or class (what the
    /// oracle can see: its codes carry no result bits, so differences in ulps or trace
    /// order alone are not compared), sorted.
    pub fn flag_or_class_signatures(&self) -> Vec<Signature> {
        let mut out: Vec<Signature> = self
            .findings
            .iter()
            .filter(|f| f.confirmed)
            .filter(|f| f.p.flags != f.p_prime.flags || f.p.class != f.p_prime.class)
            .map(signature)
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

impl Summary {
    /// Copies this process's compile statistics into the summary.
    pub fn record_compile_stats(&mut self) {
        let c = fpscout_toolchain::compile_stats();
        self.compile_seconds = c.compile_seconds;
        self.cache_hits = c.hits;
        self.cache_misses = c.misses;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::{Observation, ResultClass};

    fn finding(n: u64, p_flags: ExceptionSet) -> Finding {
        let observed = |flags| Observation {
            result: Some(0),
            class: ResultClass::Finite,
            end: None,
            flags,
            trace: Default::default(),
        };
        Finding::found(
            vec![ArgBits::Scalar(n)],
            (vec![DiffKind::Flags], None),
            observed(p_flags),
            observed(ExceptionSet::EMPTY),
            Origin::of(Phase::Random),
        )
    }

    #[test]
    fn confirmation_takes_the_first_witness_of_every_signature_first() {
        // jetEngine at 10 s: a thousand witnesses of three signatures found early used
        // the confirmation budget, and eight signatures only the random phase saw were
        // left unconfirmed and unreported.
        let mut over = ExceptionSet::EMPTY;
        over.insert(ExceptionKind::Overflow);
        let mut under = ExceptionSet::EMPTY;
        under.insert(ExceptionKind::Underflow);
        let mut findings: Vec<Finding> = [
            (1, over),
            (2, over),
            (3, over),
            (4, under),
            (5, over),
            (6, under),
        ]
        .into_iter()
        .map(|(n, flags)| finding(n, flags))
        .collect();
        order_by_rank_in_signature(&mut findings);
        let order: Vec<ArgBits> = findings.iter().map(|x| x.input[0].clone()).collect();
        let expected: Vec<ArgBits> = [1, 4, 2, 6, 3, 5].map(ArgBits::Scalar).to_vec();
        assert_eq!(order, expected);
    }
}
