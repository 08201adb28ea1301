//! `fpscout exceptions` (Ariadne): inputs that make each floating-point operation of one
//! build overflow, underflow, divide by zero or go invalid, each confirmed where the
//! executable's traced run raises it.
//!
//! Targets are the exception conditions of every operation on every explored path; Z3
//! solves them (the fallback solver takes what it cannot), the floats around each model
//! and the seed points run untraced on the executable, the points that raised something
//! run traced, and each (location, kind) the machine reports is a finding. Random inputs
//! over all exponents add theirs.

use crate::config::{self, CommonConfig};
use crate::confirm::confirm_each;
use crate::executable::{Executable, Pacer};
use crate::observe::ResultClass;
use crate::origin::Phase;
use crate::random::RandomBatches;
use crate::reference::{FunctionReference, ReferenceSpec};
pub use crate::refine::Refinement;
use crate::refine::{missed_targets, refine, RefineLimits};
use crate::search::{after, earliest, model_floats, neighbours, InputSpace};
use crate::session::Session;
use crate::InputError;
use fpscout_fpcore::ReferenceValue;
use fpscout_ir::{
    ExceptionKind, ExceptionSet, FloatTy, FpOpId, FuncId, Module, ScalarTy, SourceLoc, Type,
};
use fpscout_native::{NativeOutcome, TracedOutcome};
use fpscout_smt::{
    collect, dedupe, exact_value_within, CollectOptions, Collected, Dependent, FallbackInput,
    FallbackOptions, ParamSpec, Query, QuerySet, Verdict,
};
use fpscout_walk::concrete::{AdaptiveSteps, ArgBits, ConcreteRunner};
use fpscout_walk::WalkConfig;
use rug::Rational;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

/// Settings of an exceptions run.
#[derive(Clone, Debug)]
pub struct ExceptionsConfig {
    pub common: CommonConfig,
    pub collect: CollectOptions,
    /// Timeout of each Z3 query, in milliseconds.
    pub query_timeout_ms: u32,
    pub threads: usize,
    /// Concretizations the fallback solver tries per query.
    pub concretizations: u32,
    /// Time limit of one fallback query; default `FALLBACK_TIME_FACTOR` Z3 timeouts.
    pub fallback_timeout_ms: Option<u32>,
    /// Points tried around each solver model.
    pub search_budget: usize,
    /// Random inputs run on the executable (0: none).
    pub random_inputs: usize,
    /// Targets still missed after Z3 and the fallback solver go to the float solver on
    /// the paths to their operation (a witness, or a proof over floats).
    pub float_solver: bool,
    /// Witnesses kept per (location, kind).
    pub witnesses_per_location: usize,
    /// The mathematical function each exception is classified against (inherent or
    /// spurious): `--reference`, an FPCore input's body.
    pub reference: Option<ReferenceSpec>,
}

impl ExceptionsConfig {
    pub fn new(function: &str) -> ExceptionsConfig {
        ExceptionsConfig {
            common: CommonConfig::new(function, config::EXCEPTIONS),
            collect: CollectOptions::default(),
            query_timeout_ms: 200,
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            concretizations: 16,
            fallback_timeout_ms: None,
            search_budget: 32,
            random_inputs: 100_000,
            float_solver: true,
            witnesses_per_location: 3,
            reference: None,
        }
    }
}

/// Shares of the time budget: exploring the paths at most; random inputs at least
/// (they also get what solving leaves); confirmation and classification at the end; the
/// search around each round's candidates before random inputs start.
const EXPLORE_SHARE: f64 = 0.15;
const RANDOM_SHARE: f64 = 0.25;
const CONFIRM_SHARE: f64 = 0.1;
const SEARCH_SHARE: f64 = 0.05;
/// The float solver's share at most past the solvers' own time (taken from the random
/// inputs' share, of which it leaves half).
const REFINE_SHARE: f64 = 0.15;
/// Neighbours of one candidate replayed traced at most.
const TRACED_PER_CANDIDATE: usize = 4;
/// The share of the budget left after random inputs, for the confirmation replays.
const CONFIRM_RESERVE: f64 = 0.04;
/// The baseline's (`--random-only`) reserve, as its benchmark tables were measured.
const BASELINE_CONFIRM_RESERVE: f64 = 0.05;
/// Time the confirmation replays get past the deadline at most, when it has passed.
const CONFIRM_GRACE: Duration = Duration::from_secs(2);
/// Share of a solving round's time Z3 gets; the fallback solver has the rest.
const Z3_SHARE: f64 = 0.7;
/// The fallback solver's time limit per query, as a multiple of Z3's.
const FALLBACK_TIME_FACTOR: u32 = 5;
/// Time one exact evaluation may take when classifying (long ones are elementary
/// functions' or iterations', whose values are no rational numbers or not worth it).
const EXACT_LIMIT: Duration = Duration::from_millis(500);
/// Exact evaluations that may fail before a function with no success stops classifying.
const EXACT_FAILURES_TOLERATED: usize = 4;
/// Inputs whose exact result is computed to classify one overflow or underflow, at most.
const CLASSIFIED_INPUTS: usize = 8;

/// Whether rewriting the computation could avoid an overflow or underflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Avoidability {
    /// The exact result of the function is a normal float although this operation
    /// overflowed or underflowed (a rewrite such as `hypot` would avoid it).
    PotentiallyAvoidable,
    /// The exact result itself is out of the normal range.
    Inherent,
    /// The exact result could not be computed (elementary functions, time limit).
    Unknown,
    /// Invalid and divide-by-zero are not classified (without a reference).
    NotApplicable,
    /// Against a reference: the mathematical result is an ordinary number at an input
    /// that raised it, so the exception is the algorithm's.
    Spurious,
}

impl Avoidability {
    pub fn describe(self) -> &'static str {
        match self {
            Avoidability::PotentiallyAvoidable => "potentially avoidable",
            Avoidability::Inherent => "inherent",
            Avoidability::Unknown => "unclassified",
            Avoidability::NotApplicable => "",
            Avoidability::Spurious => "spurious",
        }
    }
}

/// One input that raised the exception, and what the function returned on it.
#[derive(Clone, Debug)]
pub struct Witness {
    pub input: Vec<ArgBits>,
    pub source: Phase,
    pub result: Option<u64>,
    pub class: ResultClass,
}

/// An operation that raised an exception on the executable.
#[derive(Clone, Debug)]
pub struct ExceptionFinding {
    pub kind: ExceptionKind,
    /// Where the executable raised it (its DWARF line table); `None`: no line.
    pub location: Option<SourceLoc>,
    /// The IR operation at that location that maps to the instruction and can raise the
    /// kind (`fmul`, `exp`), else the instruction.
    pub operation: String,
    /// The instruction the executable's trace names (`mulsd`, `call exp`).
    pub instruction: String,
    /// The function the operation belongs to.
    pub in_function: Option<String>,
    pub witnesses: Vec<Witness>,
    /// Distinct inputs seen raising it.
    pub inputs_seen: usize,
    /// Whether a solver target aimed at this operation and kind.
    pub targeted: bool,
    pub class: Avoidability,
    /// The first witness raised it again at the same place on a second traced run.
    pub confirmed: bool,
    /// That second run's exception trace (inexact aside).
    pub trace: fpscout_native::NativeTrace,
}

/// What the solvers answered for one target's conditions (one per path), and whether
/// the executable raised it at its operation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Verdicts {
    pub z3_sat: usize,
    pub z3_unsat: usize,
    pub z3_unknown: usize,
    pub fallback_sat: usize,
    pub fallback_unknown: usize,
    /// Executions of the operation on explored paths (one per path prefix reaching it)
    /// where the float solver found a solution, proved none, or could not tell.
    pub float_solver_sat: usize,
    pub float_solver_infeasible: usize,
    pub float_solver_unknown: usize,
}

/// One target: an operation and an exception kind with a condition on some path.
#[derive(Clone, Debug, Serialize)]
pub struct TargetOutcome {
    pub operation: String,
    pub location: Option<SourceLoc>,
    pub kind: ExceptionKind,
    pub verdicts: Verdicts,
    /// Raised at its operation by the executable, on an input of this source (the first
    /// witness of its finding); `None`: not raised.
    pub raised_by: Option<Phase>,
    /// The float solver's answer, for a target it was asked about.
    pub float_solver: Option<Refinement>,
}

/// What the float solver did with the targets the other solvers missed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RefineCounts {
    /// Targets the other solvers and the walk's own replays left missed, handed to the
    /// float solver (0: it had nothing to do).
    #[serde(default)]
    pub missed: usize,
    /// Targets asked about.
    pub targets: usize,
    pub witnessed: usize,
    pub infeasible: usize,
    pub unknown: usize,
    /// The infeasible targets, as "fmul overflow at f.c:3:12: infeasible over floats (…)".
    pub proofs: Vec<String>,
    /// The unknown ones, as "fmul underflow at f.c:3:12: REASONS".
    pub open: Vec<String>,
    /// The unknown ones by reason, with counts and the first target each kept open.
    #[serde(default)]
    pub open_reasons: Vec<crate::verdict::OpenReason>,
}

/// Queries by outcome and solver.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QueryCounts {
    pub z3_sat: usize,
    pub z3_unsat: usize,
    pub z3_unknown: usize,
    pub fallback_sat: usize,
    pub fallback_unknown: usize,
    /// Left to the fallback solver when the solving time ran out.
    pub fallback_not_attempted: usize,
    /// Skipped: an earlier candidate already raised that exception there (interpreter).
    pub already_witnessed: usize,
    pub not_attempted: usize,
}

/// Seconds spent per phase.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Phases {
    pub compile: f64,
    pub collect: f64,
    pub solve: f64,
    /// The float solver on the targets still missed, with its candidates' replays.
    pub refine: f64,
    pub search: f64,
    pub random: f64,
    pub confirm: f64,
}

/// Totals of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub function: String,
    pub build: String,
    pub loop_bound: u32,
    /// Values each integer parameter took (`n=0,1,2,3`), one assignment per position.
    pub integers: Vec<String>,
    pub paths: usize,
    /// (operation, kind) pairs with a condition on some explored path.
    pub targets: usize,
    /// Targets the executable raised at their operation.
    pub targets_confirmed: usize,
    /// Raised targets by what answered them (`z3`, `fallback`, `seed`, `random`).
    pub targets_raised_by: BTreeMap<String, usize>,
    /// Conditions over all paths, and the distinct ones solved.
    pub conditions: usize,
    pub unique_conditions: usize,
    pub queries: QueryCounts,
    pub float_solver: RefineCounts,
    /// Solver candidates whose neighbourhood did not raise their target, by reason.
    pub failed_candidates: BTreeMap<String, usize>,
    pub candidates: usize,
    /// Ariadne's x/y: distinct operation locations that raised something / distinct
    /// (input, location) pairs.
    pub locations: usize,
    pub pairs: usize,
    pub findings: usize,
    /// Findings an input shows avoidable: an exact rational result that is normal, or
    /// against a reference an ordinary mathematical result (spurious).
    pub avoidable: usize,
    /// The reference exceptions are classified against, when there is one.
    #[serde(default)]
    pub reference: Option<String>,
    pub native_runs: usize,
    pub traced_runs: usize,
    pub random_inputs: usize,
    pub stopped: Vec<String>,
    pub phases: Phases,
    pub wall_seconds: f64,
    /// Seconds this process spent compiling (cache look-ups included), and how many
    /// compile steps the cache served and how many ran (see `fpscout_toolchain::cache`).
    #[serde(default)]
    pub compile_seconds: f64,
    #[serde(default)]
    pub cache_hits: u64,
    #[serde(default)]
    pub cache_misses: u64,
}

/// Everything an exceptions run produced.
pub struct ExceptionsReport {
    pub findings: Vec<ExceptionFinding>,
    /// Every target, with what the solvers answered for it.
    pub targets: Vec<TargetOutcome>,
    pub summary: Summary,
    pub params: Vec<fpscout_ir::Param>,
    pub ret: Type,
    /// The function's linker symbol (mangled for C++), for code that calls it.
    pub symbol: String,
}

/// A progress callback: (phase, done, total).
pub type Progress<'a> = &'a mut dyn FnMut(&str, u64, u64);

/// A source position as both sides name it: the file's last component, line, column
/// (the IR keeps the path as compiled, DWARF may join it to the compile directory).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct LocKey {
    file: String,
    line: u32,
    col: u32,
}

impl LocKey {
    fn of(loc: &SourceLoc) -> LocKey {
        LocKey {
            file: loc.file.rsplit('/').next().unwrap_or(&loc.file).to_string(),
            line: loc.line,
            col: loc.col,
        }
    }
}

/// The module's operations by source position.
fn ops_by_location(m: &Module) -> HashMap<LocKey, Vec<FpOpId>> {
    let mut out: HashMap<LocKey, Vec<FpOpId>> = HashMap::new();
    for (i, op) in m.fp_ops.iter().enumerate() {
        if let Some(loc) = &op.loc {
            out.entry(LocKey::of(loc))
                .or_default()
                .push(FpOpId(i as u32));
        }
    }
    out
}

/// Of the operations at one source position (a line's column, a macro's expansion), the
/// one that raised `kind` as the executable's instruction `insn`: one the instruction can
/// come from and that can raise the kind, else one that can raise it. `None` when none
/// can: the instruction names the finding then (a comparison never underflows).
fn raising_op(module: &Module, ids: &[FpOpId], insn: &str, kind: ExceptionKind) -> Option<FpOpId> {
    let raises = |id: &&FpOpId| can_raise(&module.op(**id).opcode, kind);
    ids.iter()
        .filter(raises)
        .find(|id| insn_computes(insn, &module.op(**id).opcode))
        .or_else(|| ids.iter().find(raises))
        .copied()
}

/// An IR opcode without its `llvm.` prefix and overload suffix (`llvm.exp.f64` → `exp`).
fn op_base(opcode: &str) -> &str {
    let name = opcode.strip_prefix("llvm.").unwrap_or(opcode);
    name.split('.').next().unwrap_or(name)
}

/// Whether the IR operation `opcode` can raise `kind` (IEEE 754 and x86: a conversion to
/// a wider float or a comparison only signals invalid; negation and sign operations
/// signal nothing; calls may raise anything).
fn can_raise(opcode: &str, kind: ExceptionKind) -> bool {
    use ExceptionKind::*;
    match op_base(opcode) {
        "fneg" | "fabs" | "copysign" => false,
        "fpext" | "fcmp" | "fptosi" | "fptoui" | "is" | "minnum" | "maxnum" | "minimum"
        | "maximum" | "rint" | "nearbyint" | "floor" | "ceil" | "trunc" | "round" | "roundeven"
        | "lrint" | "llrint" | "lround" | "llround" => kind == Invalid,
        "fadd" | "fsub" | "sqrt" => kind != DivByZero,
        _ => true,
    }
}

/// Whether the x86 instruction `insn` (a mnemonic, or `call NAME`) computes the IR
/// operation `opcode`.
fn insn_computes(insn: &str, opcode: &str) -> bool {
    let base = op_base(opcode);
    if let Some(callee) = insn.strip_prefix("call ") {
        let callee = callee.split('@').next().unwrap_or(callee);
        // `expf` computes `llvm.exp.f32`.
        return base == callee || callee.strip_suffix('f') == Some(base);
    }
    // AVX spells the SSE mnemonics with a leading `v`.
    let m = insn
        .strip_prefix('v')
        .filter(|m| m.len() > 3)
        .unwrap_or(insn);
    let family = |prefixes: &[&str]| prefixes.iter().any(|p| m.starts_with(p));
    match base {
        "fadd" => family(&["add"]),
        "fsub" => family(&["sub"]),
        "fmul" => family(&["mul"]),
        "fdiv" => family(&["div"]),
        "fma" | "fmuladd" => family(&["fmadd", "fmsub", "fnmadd", "fnmsub"]),
        "sqrt" => family(&["sqrt"]),
        "fptrunc" => family(&["cvtsd2ss", "cvtpd2ps"]),
        "fpext" => family(&["cvtss2sd", "cvtps2pd"]),
        "fptosi" | "fptoui" => family(&["cvtt", "cvts"]),
        "fcmp" => family(&["ucomis", "comis", "cmp"]),
        "minnum" | "minimum" => family(&["min"]),
        "maxnum" | "maximum" => family(&["max"]),
        "rint" | "nearbyint" | "floor" | "ceil" | "trunc" | "round" | "roundeven" => {
            family(&["round"])
        }
        _ => false,
    }
}

/// What a traced run raised: (location, kind) per event, inexact aside.
fn raised_at(t: &TracedOutcome) -> Vec<(Option<SourceLoc>, String, ExceptionKind)> {
    let mut out = Vec::new();
    for e in &t.trace.events {
        for kind in e.flags.without_inexact().iter() {
            out.push((e.loc.clone(), e.describe_insn(), kind));
        }
    }
    out
}

fn outcome_flags(o: &NativeOutcome) -> ExceptionSet {
    match o {
        NativeOutcome::Returned { flags, .. } | NativeOutcome::Ended { flags, .. } => {
            flags.without_inexact()
        }
        _ => ExceptionSet::EMPTY,
    }
}

fn outcome_result(o: &NativeOutcome, ret: Type) -> (Option<u64>, ResultClass) {
    match o {
        NativeOutcome::Returned { result, .. } => (*result, ResultClass::of(*result, ret)),
        NativeOutcome::Ended { end, .. } => (None, ResultClass::of_end(end)),
        NativeOutcome::TimedOut => (None, ResultClass::Hang),
        NativeOutcome::Crashed { .. } => (None, ResultClass::Other),
    }
}

/// The findings being gathered, keyed by (location, kind).
struct Findings<'m> {
    module: &'m Module,
    ops: HashMap<LocKey, Vec<FpOpId>>,
    by_key: BTreeMap<(Option<LocKey>, ExceptionKind), ExceptionFinding>,
    /// Distinct inputs per key (for counts and pairs), each as its first witness.
    inputs: HashMap<(Option<LocKey>, ExceptionKind), HashMap<Vec<ArgBits>, Witness>>,
    keep: usize,
    ret: Type,
}

impl Findings<'_> {
    /// Records what one traced run raised; returns the keys it raised.
    fn record(
        &mut self,
        args: &[ArgBits],
        traced: &TracedOutcome,
        source: Phase,
    ) -> Vec<(Option<LocKey>, ExceptionKind)> {
        let (result, class) = outcome_result(&traced.outcome, self.ret);
        let mut keys = Vec::new();
        for (loc, insn, kind) in raised_at(traced) {
            let key = (loc.as_ref().map(LocKey::of), kind);
            if keys.contains(&key) {
                continue;
            }
            keys.push(key.clone());
            let module = self.module;
            let ids = key.0.as_ref().and_then(|k| self.ops.get(k));
            let op = ids.and_then(|ids| raising_op(module, ids, &insn, kind));
            let first = ids.and_then(|ids| ids.first().copied());
            let finding = self.by_key.entry(key.clone()).or_insert_with(|| {
                let info = op.map(|id| module.op(id));
                ExceptionFinding {
                    kind,
                    location: loc.clone(),
                    operation: info.map_or(insn.clone(), |i| i.opcode.clone()),
                    instruction: insn.clone(),
                    in_function: op
                        .or(first)
                        .map(|id| module.function(module.op(id).func).display_name.clone()),
                    witnesses: Vec::new(),
                    inputs_seen: 0,
                    targeted: false,
                    class: Avoidability::NotApplicable,
                    confirmed: false,
                    trace: fpscout_native::NativeTrace::default(),
                }
            });
            let seen = self.inputs.entry(key).or_default();
            if !seen.contains_key(args) {
                let witness = Witness {
                    input: args.to_vec(),
                    source,
                    result,
                    class,
                };
                finding.inputs_seen += 1;
                if finding.witnesses.len() < self.keep {
                    finding.witnesses.push(witness.clone());
                }
                seen.insert(args.to_vec(), witness);
            }
        }
        keys
    }
}

/// A solver candidate: the floats of a model, the floats around each coordinate, the
/// target it was solved for and the solver.
struct Candidate {
    center: Vec<u64>,
    around: Vec<(u64, u64)>,
    target: Option<(FpOpId, ExceptionKind)>,
    source: Phase,
}

/// Runs the whole pipeline on one function.
pub fn run_exceptions(
    session: &Session,
    cfg: &ExceptionsConfig,
    progress: Progress,
) -> Result<ExceptionsReport, InputError> {
    cfg.common.validate()?;
    let start = cfg.common.start();
    let run_deadline = after(start, cfg.common.time_budget_s);
    let share = |s: f64| Duration::from_secs_f64((cfg.common.time_budget_s * s).max(0.0));
    let build = cfg.common.build;
    let module = session.module(build)?;
    let fid = session.function(build, &cfg.common.function)?;
    let f = module.function(fid);
    let ret = f.ret;
    let reference = FunctionReference::for_function(cfg.reference.as_ref(), f)?;
    let params = f.params.clone();
    let spaces =
        InputSpace::assignments(f, &cfg.common.input_options(), "exceptions", &INT_SAMPLES)?;
    // What the assignments share (specs but for the integers' values, array lengths).
    let space = spaces
        .first()
        .cloned()
        .ok_or_else(|| InputError(format!("{} has no input space", f.display_name)))?;
    let integers = f
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let Type::Scalar(ScalarTy::Int(w)) = p.ty else {
                return None;
            };
            let values: Vec<String> = spaces
                .iter()
                .filter_map(|s| match s.specs.get(i) {
                    Some(ParamSpec::Int { bits }) => {
                        Some(fpscout_ir::sign_extend(*bits, w).to_string())
                    }
                    _ => None,
                })
                .collect();
            Some(format!("{}={}", p.name, values.join(",")))
        })
        .collect();
    let mut summary = Summary {
        function: cfg.common.function.clone(),
        build: build.to_string(),
        loop_bound: cfg.collect.loop_bound,
        integers,
        ..Summary::default()
    };

    progress("compile", 0, 1);
    let exe = Executable::open(session, build, fid, &space.lens, &cfg.common)?;
    let mode = exe.mode();
    let config = WalkConfig {
        deadline: run_deadline,
        ..WalkConfig::default()
    };
    let mut runner = crate::concrete::concrete_runner(module, fid, mode, config)
        .map_err(|e| InputError(e.to_string()))?;
    runner.adapt_step_budget(AdaptiveSteps::up_to(config.step_budget));
    summary.phases.compile = start.elapsed().as_secs_f64();

    let mut findings = Findings {
        module,
        ops: ops_by_location(module),
        by_key: BTreeMap::new(),
        inputs: HashMap::new(),
        keep: cfg.witnesses_per_location.max(1),
        ret,
    };
    let mut targets: Vec<(FpOpId, ExceptionKind)> = Vec::new();
    // Why each target's candidates did not raise it (the last reason seen).
    let mut failed: HashMap<(FpOpId, ExceptionKind), &'static str> = HashMap::new();
    let mut reached: HashSet<(FpOpId, ExceptionKind)> = HashSet::new();
    let search_deadline = ahead_of(run_deadline, share(RANDOM_SHARE + CONFIRM_SHARE));
    let mut search = |until: Option<Instant>,
                      space: &InputSpace,
                      candidates: &[Candidate],
                      findings: &mut Findings,
                      summary: &mut Summary,
                      progress: Progress,
                      reached: &mut HashSet<(FpOpId, ExceptionKind)>|
     -> Result<(), InputError> {
        let t = Instant::now();
        let round = search_round(
            &exe, space, cfg, candidates, findings, until, summary, progress,
        )?;
        for (target, reason) in round {
            match reason {
                None => {
                    reached.insert(target);
                    failed.remove(&target);
                }
                Some(why) if !reached.contains(&target) => {
                    failed.insert(target, why);
                }
                Some(_) => {}
            }
        }
        summary.phases.search += t.elapsed().as_secs_f64();
        Ok(())
    };
    let mut solving = Solving {
        runner: &mut runner,
        witnessed: HashSet::new(),
        unique_points: HashSet::new(),
        unsat: HashSet::new(),
        verdicts: HashMap::new(),
    };
    let mut seen_targets = HashSet::new();
    // The function's float constants: seed points, and the random phase's structured draws.
    let constants = crate::seeds::float_constants(module, fid);
    let mut refinements: HashMap<(FpOpId, ExceptionKind), Refinement> = HashMap::new();
    // Each assignment of the sampled integer parameters in turn, with an equal share of
    // the time left for solving.
    for (n, space) in spaces
        .iter()
        .enumerate()
        .filter(|_| !cfg.common.random_only)
    {
        let t = Instant::now();
        let left = (spaces.len() - n) as u32;
        let until = search_deadline.map(|d| t + d.saturating_duration_since(t) / left);
        progress("collect", 0, 1);
        let opts = CollectOptions {
            deadline: earliest(Some(t + share(EXPLORE_SHARE) / left), until),
            ..cfg.collect
        };
        let collected = collect(module, fid, &space.specs, "x.", opts).map_err(InputError)?;
        summary.paths += collected.paths;
        summary.stopped.extend(collected.stopped.iter().cloned());
        summary.conditions += collected.queries.len();
        for q in &collected.queries {
            if seen_targets.insert((q.op, q.kind)) {
                targets.push((q.op, q.kind));
            }
        }
        summary.targets = targets.len();
        summary.phases.collect += t.elapsed().as_secs_f64();

        // Round 1: each condition as it is.
        let t = Instant::now();
        let solve_deadline = ahead_of(until, share(SEARCH_SHARE) / left);
        let asked = plain_queries(&collected);
        summary.unique_conditions += asked.len();
        let scripts = QuerySet::plain(&collected.constraints, &asked);
        let mut candidates = solving.solve_set(
            cfg,
            space,
            &collected.dependents,
            &asked,
            &scripts,
            solve_deadline,
            &mut summary,
            progress,
        );
        drop(scripts);
        summary.phases.solve += t.elapsed().as_secs_f64();
        // Seed points first: one run each, and on a slow function the search may not
        // get through every neighbourhood.
        let seeds = crate::seeds::seed_points(&space.tys, &space.ranges, &constants)
            .into_iter()
            .map(|point| Candidate {
                center: point,
                around: Vec::new(),
                target: None,
                source: Phase::Seed,
            });
        candidates.splice(0..0, seeds);
        summary.candidates += candidates.len();
        search(
            search_deadline,
            space,
            &candidates,
            &mut findings,
            &mut summary,
            progress,
            &mut reached,
        )?;

        // Rounds 2 and 3, for the targets still missed: the exception at that operation
        // while no other operation comes near raising any exception (clean witnesses,
        // which also classify best), then none of its kind (an earlier overflow turns
        // the operand into an infinity, and the later operation no longer overflows).
        for any_kind in [true, false] {
            let t = Instant::now();
            let missed: Vec<&Query> = asked
                .iter()
                .copied()
                .filter(|q| !reached.contains(&(q.op, q.kind)))
                .filter(|q| !solving.unsat.contains(&(*q as *const Query)))
                .collect();
            if missed.is_empty() || solve_deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let (scripts, which) = QuerySet::isolated(
                &collected.constraints,
                &missed,
                &collected.queries,
                any_kind,
                solve_deadline,
            );
            let asked: Vec<&Query> = which.iter().map(|&i| missed[i]).collect();
            // The interpreter's verdicts so far do not say the exception was isolated.
            solving.witnessed.clear();
            let candidates = solving.solve_set(
                cfg,
                space,
                &collected.dependents,
                &asked,
                &scripts,
                solve_deadline,
                &mut summary,
                progress,
            );
            summary.phases.solve += t.elapsed().as_secs_f64();
            summary.candidates += candidates.len();
            search(
                search_deadline,
                space,
                &candidates,
                &mut findings,
                &mut summary,
                progress,
                &mut reached,
            )?;
        }

        // The float solver on the paths to each operation whose target is still missed
        // (not raised there by any input yet, seeds included), Z3's unsatisfiable ones
        // too: unsat over the reals proves nothing over floats.
        let raised_at_op = |(op, kind): &(FpOpId, ExceptionKind)| {
            module
                .op(*op)
                .loc
                .as_ref()
                .is_some_and(|l| findings.by_key.contains_key(&(Some(LocKey::of(l)), *kind)))
        };
        // Operations no query names (every path to them is infeasible over the reals)
        // are asked too: floats may still take those paths.
        let (queried, missed) = missed_targets(module, &collected.queries, |t| {
            reached.contains(t) || raised_at_op(t)
        });
        summary.float_solver.missed = missed.len();
        if cfg.float_solver && !missed.is_empty() {
            let t = Instant::now();
            let own = Some(t + share(REFINE_SHARE) / left);
            let refine_until = earliest(
                own.max(until),
                ahead_of(run_deadline, share(CONFIRM_SHARE + RANDOM_SHARE / 2.0)),
            );
            let limits = RefineLimits {
                max_paths: cfg.collect.max_paths,
                loop_bound: cfg.collect.loop_bound,
            };
            let refined = refine(
                (module, fid, mode),
                space,
                limits,
                &missed,
                refine_until,
                progress,
            )?;
            let candidates: Vec<Candidate> = refined
                .candidates
                .iter()
                .map(|(center, target)| Candidate {
                    center: center.clone(),
                    around: Vec::new(),
                    target: Some(*target),
                    source: Phase::FloatSolver,
                })
                .collect();
            summary.candidates += candidates.len();
            search(
                ahead_of(run_deadline, share(CONFIRM_SHARE)),
                space,
                &candidates,
                &mut findings,
                &mut summary,
                progress,
                &mut reached,
            )?;
            for target in &missed {
                // An operation no query named is a target once a float path reaches it
                // (else it is dead code, or in a function this one does not call).
                if !queried.contains(&target.0) {
                    if !refined.states.contains_key(target) {
                        continue;
                    }
                    if seen_targets.insert(*target) {
                        targets.push(*target);
                    }
                }
                let state = refined.states.get(target).cloned().unwrap_or_default();
                let v = solving.verdicts.entry(*target).or_default();
                v.float_solver_sat += state.sat;
                v.float_solver_infeasible += state.infeasible;
                v.float_solver_unknown += state.unknown;
                let answer = refined.answer(&state, reached.contains(target));
                let merged = match refinements.remove(target) {
                    Some(before) => before.and(answer),
                    None => answer,
                };
                refinements.insert(*target, merged);
            }
            summary.targets = targets.len();
            summary.phases.refine += t.elapsed().as_secs_f64();
        }
    }
    let mut verdicts = std::mem::take(&mut solving.verdicts);
    for (_, why) in failed.iter().filter(|(t, _)| !reached.contains(*t)) {
        *summary
            .failed_candidates
            .entry(why.to_string())
            .or_insert(0) += 1;
    }

    // Random inputs over all exponents: untraced, then traced where something was raised.
    let t = Instant::now();
    if cfg.random_inputs > 0 || cfg.common.random_only {
        // Confirmation replays one traced run per finding, mostly well under its share:
        // random inputs run until just before the deadline (confirmation has a grace).
        // The baseline keeps the reserve its benchmark tables were measured with.
        let reserve = if cfg.common.random_only {
            BASELINE_CONFIRM_RESERVE
        } else {
            CONFIRM_RESERVE
        };
        let random_deadline = ahead_of(run_deadline, share(reserve));
        random_phase(
            cfg,
            &spaces,
            &constants,
            &exe,
            &mut findings,
            random_deadline,
            &mut summary,
            progress,
        )?;
    }
    summary.phases.random = t.elapsed().as_secs_f64();

    // Confirmation: the first witness of each finding, traced a second time, raises it at
    // the same place; overflows and underflows are classified against the exact result.
    let t = Instant::now();
    let mut out: Vec<ExceptionFinding> = findings.by_key.into_values().collect();
    progress("confirm", 0, out.len() as u64);
    // Findings deserve their confirmation even when the phases before used the budget up:
    // a little time past it, not a report without them.
    let confirm_until = run_deadline.map(|d| d.max(Instant::now() + CONFIRM_GRACE));
    let location_key = |x: &ExceptionFinding| (x.location.as_ref().map(LocKey::of), x.kind);
    summary.traced_runs += confirm_each(
        &exe,
        &mut out,
        |x| &x.witnesses[0].input,
        confirm_until,
        |x, again| {
            let key = location_key(x);
            x.confirmed = again.is_some_and(|t| {
                raised_at(t)
                    .iter()
                    .any(|(l, _, k)| *k == x.kind && l.as_ref().map(LocKey::of) == key.0)
            });
            if let Some(t) = again.filter(|_| x.confirmed) {
                x.trace = fpscout_native::NativeTrace {
                    events: t
                        .trace
                        .events
                        .iter()
                        .filter(|e| !e.flags.without_inexact().is_empty())
                        .cloned()
                        .collect(),
                    truncated: t.trace.truncated,
                };
            }
        },
    )?;
    let confirm_total = out.len();
    let target_locs: HashSet<(Option<LocKey>, ExceptionKind)> = targets
        .iter()
        .map(|(op, k)| (module.op(*op).loc.as_ref().map(LocKey::of), *k))
        .collect();
    let mut exact_cache: HashMap<Vec<ArgBits>, Option<Rational>> = HashMap::new();
    let (mut exact_successes, mut exact_failures) = (0usize, 0usize);
    for (i, x) in out.iter_mut().enumerate() {
        let key = location_key(x);
        x.targeted = target_locs.contains(&key);
        let raised_by = findings.inputs.get(&key);
        let keep = cfg.witnesses_per_location;
        if let Some(r) = &reference {
            let kind = x.kind;
            classify_finding(x, raised_by, keep, |input| {
                Some(reference_class(kind, &r.value(&params, input), r.ty()))
            });
        } else if matches!(x.kind, ExceptionKind::Overflow | ExceptionKind::Underflow) {
            classify_finding(x, raised_by, keep, |input| {
                // A function whose exact results keep failing (elementary functions,
                // long iterations) is not worth more of the budget.
                let hopeless = exact_failures >= EXACT_FAILURES_TOLERATED && exact_successes == 0;
                if hopeless || run_deadline.is_some_and(|d| Instant::now() >= d) {
                    return None;
                }
                let exact = exact_cache.entry(input.to_vec()).or_insert_with(|| {
                    let q = exact_result(module, fid, &space.specs, input);
                    match q {
                        Some(_) => exact_successes += 1,
                        None => exact_failures += 1,
                    }
                    q
                });
                Some(classify(exact.as_ref(), ret))
            });
        }
        progress("confirm", i as u64 + 1, confirm_total as u64);
    }
    out.retain(|x| x.confirmed);
    summary.phases.confirm = t.elapsed().as_secs_f64();
    summary.findings = out.len();
    summary.avoidable = out
        .iter()
        .filter(|x| {
            matches!(
                x.class,
                Avoidability::PotentiallyAvoidable | Avoidability::Spurious
            )
        })
        .count();
    summary.reference = reference.as_ref().map(|r| r.text.clone());
    summary.locations = out
        .iter()
        .map(|x| x.location.as_ref().map(LocKey::of))
        .collect::<HashSet<_>>()
        .len();
    let mut pairs: HashSet<(Option<LocKey>, Vec<ArgBits>)> = HashSet::new();
    for ((loc, _), inputs) in &findings.inputs {
        if out
            .iter()
            .any(|x| x.location.as_ref().map(LocKey::of) == *loc)
        {
            pairs.extend(inputs.keys().map(|i| (loc.clone(), i.clone())));
        }
    }
    summary.pairs = pairs.len();
    summary.targets_confirmed = targets
        .iter()
        .filter(|(op, k)| {
            reached.contains(&(*op, *k)) || {
                let at = module.op(*op).loc.as_ref().map(LocKey::of);
                at.is_some()
                    && out
                        .iter()
                        .any(|x| x.kind == *k && x.location.as_ref().map(LocKey::of) == at)
            }
        })
        .count();
    let target_outcomes: Vec<TargetOutcome> = targets
        .iter()
        .map(|&(op, kind)| {
            let info = module.op(op);
            let at = info.loc.as_ref().map(LocKey::of);
            let finding = out.iter().find(|x| {
                at.is_some() && x.kind == kind && x.location.as_ref().map(LocKey::of) == at
            });
            TargetOutcome {
                operation: info.opcode.clone(),
                location: info.loc.clone(),
                kind,
                verdicts: verdicts.remove(&(op, kind)).unwrap_or_default(),
                // The solvers before seeds before random inputs: who answered it.
                raised_by: finding.and_then(|x| x.witnesses.iter().map(|w| w.source).min()),
                float_solver: refinements.remove(&(op, kind)),
            }
        })
        .collect();
    let mut open_reasons: Vec<(String, Option<String>)> = Vec::new();
    for t in &target_outcomes {
        let Some(answer) = &t.float_solver else {
            continue;
        };
        let counts = &mut summary.float_solver;
        counts.targets += 1;
        let place = format!(
            "{} {} at {}",
            t.operation,
            t.kind.name(),
            t.location
                .as_ref()
                .map_or("(no source line)".to_string(), |l| l.to_string())
        );
        match answer {
            Refinement::Witnessed => counts.witnessed += 1,
            Refinement::Unknown { reason } => {
                counts.unknown += 1;
                counts.open.push(format!("{place}: {reason}"));
                open_reasons.push((reason.clone(), Some(place)));
            }
            Refinement::Infeasible {
                paths,
                executions,
                loop_bound,
                cut,
            } => {
                counts.infeasible += 1;
                let bound = if *cut > 0 {
                    format!(", {cut} cut by the loop bound {loop_bound}")
                } else {
                    String::new()
                };
                counts.proofs.push(format!(
                    "{place}: infeasible over floats (paths explored {paths}, executions of the operation on them {executions}{bound})"
                ));
            }
        }
    }
    summary.float_solver.open_reasons = crate::verdict::tally_reasons_with_first(open_reasons);
    for t in &target_outcomes {
        if let Some(source) = t.raised_by {
            *summary
                .targets_raised_by
                .entry(source.name().to_string())
                .or_insert(0) += 1;
        }
    }
    summary.wall_seconds = start.elapsed().as_secs_f64();
    summary.record_compile_stats();
    Ok(ExceptionsReport {
        findings: out,
        targets: target_outcomes,
        summary,
        params: f.params.clone(),
        ret,
        symbol: f.name.clone(),
    })
}

/// The plain queries of `collected`: one per distinct formula, the first condition of
/// each target first, then the other paths' conditions of the same targets.
fn plain_queries(collected: &Collected) -> Vec<&Query> {
    let queries: Vec<&Query> = collected.queries.iter().collect();
    let unique = dedupe(&queries);
    let mut first_of = HashSet::new();
    let (mut firsts, mut others): (Vec<&Query>, Vec<&Query>) = (Vec::new(), Vec::new());
    for &i in &unique {
        if first_of.insert((queries[i].op, queries[i].kind)) {
            firsts.push(queries[i]);
        } else {
            others.push(queries[i]);
        }
    }
    firsts.into_iter().chain(others).collect()
}

/// Values an integer parameter the user did not fix is sampled at: small counts and
/// sizes (Ariadne sampled integer parameters too).
const INT_SAMPLES: [i64; 4] = [0, 1, 2, 3];

/// The queries Z3 left unknown in a set, for the fallback solver.
struct Fallback<'a> {
    asked: &'a [&'a Query],
    scripts: &'a QuerySet,
    dependents: &'a [Dependent],
    unknown: &'a [usize],
}

/// The solver's side of a run: the candidates found so far and the targets they already
/// raise in the interpreter (queries for those are skipped: one model often witnesses
/// the conditions of many iterations).
struct Solving<'r, 'm> {
    runner: &'r mut ConcreteRunner<'m>,
    witnessed: HashSet<(FpOpId, ExceptionKind)>,
    unique_points: HashSet<Vec<u64>>,
    /// Conditions proved unsatisfiable (by address: they live in one `Collected`); their
    /// isolated versions, which are stronger, need not be asked.
    unsat: HashSet<*const Query>,
    verdicts: HashMap<(FpOpId, ExceptionKind), Verdicts>,
}

impl Solving<'_, '_> {
    /// Solves `scripts` (one per entry of `asked`, whose target each aims at) until
    /// `until`: Z3 first, Ariadne's fallback solver on what Z3 leaves unknown.
    #[allow(clippy::too_many_arguments)]
    fn solve_set(
        &mut self,
        cfg: &ExceptionsConfig,
        space: &InputSpace,
        dependents: &[Dependent],
        asked: &[&Query],
        scripts: &QuerySet,
        until: Option<Instant>,
        summary: &mut Summary,
        progress: Progress,
    ) -> Vec<Candidate> {
        let names: Vec<String> = space.inputs.iter().map(|(n, _)| n.clone()).collect();
        let mut pool = scripts.pool(&names, cfg.query_timeout_ms, cfg.threads);
        let mut out = Vec::new();
        // Z3 first, the fallback solver on what it leaves unknown in the rest.
        let z3_until = until.map(|d| {
            let now = Instant::now();
            now + d.saturating_duration_since(now).mul_f64(Z3_SHARE)
        });
        let mut pending: VecDeque<usize> = (0..asked.len()).collect();
        let mut unknown: Vec<usize> = Vec::new();
        let round = (8 * cfg.threads).max(8);
        progress("solve", 0, asked.len() as u64);
        while !pending.is_empty() && z3_until.is_none_or(|d| Instant::now() < d) {
            let mut batch = Vec::new();
            while batch.len() < round {
                let Some(k) = pending.pop_front() else { break };
                if self.witnessed.contains(&(asked[k].op, asked[k].kind)) {
                    summary.queries.already_witnessed += 1;
                } else {
                    batch.push(k);
                }
            }
            let verdicts = pool.solve(&batch, z3_until);
            for (&k, v) in batch.iter().zip(verdicts) {
                match v {
                    Verdict::Sat(values) => {
                        summary.queries.z3_sat += 1;
                        self.verdicts_of(asked[k]).z3_sat += 1;
                        self.add(space, &values, asked[k], Phase::Z3, &mut out);
                    }
                    Verdict::Unsat => {
                        summary.queries.z3_unsat += 1;
                        self.verdicts_of(asked[k]).z3_unsat += 1;
                        self.unsat.insert(asked[k]);
                    }
                    Verdict::Unknown(_) => {
                        summary.queries.z3_unknown += 1;
                        self.verdicts_of(asked[k]).z3_unknown += 1;
                        unknown.push(k);
                    }
                    Verdict::NotAttempted => pending.push_back(k),
                }
            }
            progress(
                "solve",
                (asked.len() - pending.len()) as u64,
                asked.len() as u64,
            );
        }
        summary.queries.not_attempted += pending.len();
        drop(pool);
        let fallback = Fallback {
            asked,
            scripts,
            dependents,
            unknown: &unknown,
        };
        self.fallback(cfg, space, fallback, until, summary, &mut out);
        out
    }

    /// Ariadne's own solver on the queries Z3 could not decide.
    #[allow(clippy::too_many_arguments)]
    fn fallback(
        &mut self,
        cfg: &ExceptionsConfig,
        space: &InputSpace,
        Fallback {
            asked,
            scripts,
            dependents,
            unknown,
        }: Fallback,
        until: Option<Instant>,
        summary: &mut Summary,
        out: &mut Vec<Candidate>,
    ) {
        if unknown.is_empty() || cfg.concretizations == 0 {
            return;
        }
        let inputs: Vec<FallbackInput> = space
            .inputs
            .iter()
            .zip(&space.ranges)
            .map(|((name, ty), range)| FallbackInput {
                name: name.clone(),
                ty: *ty,
                range: *range,
            })
            .collect();
        let opts = FallbackOptions {
            concretizations: cfg.concretizations,
            timeout_ms: cfg
                .fallback_timeout_ms
                .unwrap_or(cfg.query_timeout_ms.saturating_mul(FALLBACK_TIME_FACTOR)),
            jobs: cfg.threads,
            seed: cfg.common.seed,
        };
        let mut pool = scripts.fallback_pool(&inputs, dependents, opts);
        let mut pending: VecDeque<usize> = unknown.iter().copied().collect();
        let round = cfg.threads.max(1) * 4;
        while !pending.is_empty() && until.is_none_or(|d| Instant::now() < d) {
            let mut batch = Vec::new();
            while batch.len() < round {
                let Some(k) = pending.pop_front() else { break };
                if !self.witnessed.contains(&(asked[k].op, asked[k].kind)) {
                    batch.push(k);
                }
            }
            for (&k, v) in batch.iter().zip(pool.solve(&batch, until)) {
                match v {
                    Verdict::Sat(values) => {
                        summary.queries.fallback_sat += 1;
                        self.verdicts_of(asked[k]).fallback_sat += 1;
                        self.add(space, &values, asked[k], Phase::Fallback, out);
                    }
                    Verdict::NotAttempted => pending.push_back(k),
                    _ => {
                        summary.queries.fallback_unknown += 1;
                        self.verdicts_of(asked[k]).fallback_unknown += 1;
                    }
                }
            }
        }
        summary.queries.fallback_not_attempted += pending.len();
    }

    fn verdicts_of(&mut self, q: &Query) -> &mut Verdicts {
        self.verdicts.entry((q.op, q.kind)).or_default()
    }

    /// Adds a model's candidate unless its floats were found before.
    fn add(
        &mut self,
        space: &InputSpace,
        values: &[Rational],
        q: &Query,
        source: Phase,
        out: &mut Vec<Candidate>,
    ) {
        let (center, around) = model_floats(values, &space.tys);
        if !self.unique_points.insert(center.clone()) {
            return;
        }
        if let Ok(e) = self.runner.eval(&space.assemble(&center)) {
            self.witnessed
                .extend(e.events.iter().map(|e| (e.site.op, e.kind)));
        }
        out.push(Candidate {
            center,
            around,
            target: Some((q.op, q.kind)),
            source,
        });
    }
}

/// A target, and why a candidate aimed at it did not raise it (`None`: it did).
type TargetVerdict = ((FpOpId, ExceptionKind), Option<&'static str>);

/// Runs every point around every candidate untraced, then traced where it raised
/// something (a few per candidate, a new set of flags or the target's kind first), and
/// records what the traces raised. Returns, per candidate with a target, whether the
/// target was raised at its operation (`None`) or why not.
#[allow(clippy::too_many_arguments)]
fn search_round(
    exe: &Executable,
    space: &InputSpace,
    cfg: &ExceptionsConfig,
    candidates: &[Candidate],
    findings: &mut Findings,
    until: Option<Instant>,
    summary: &mut Summary,
    progress: Progress,
) -> Result<Vec<TargetVerdict>, InputError> {
    let hoods: Vec<Vec<Vec<u64>>> = candidates
        .iter()
        .map(|c| match c.source {
            // A float-solver solution takes its path exactly; its neighbours need not.
            Phase::Seed | Phase::FloatSolver => vec![c.center.clone()],
            _ => neighbours(&c.center, &c.around, &space.tys, cfg.search_budget),
        })
        .collect();
    let owner: Vec<usize> = hoods
        .iter()
        .enumerate()
        .flat_map(|(n, hood)| std::iter::repeat_n(n, hood.len()))
        .collect();
    let inputs: Vec<Vec<ArgBits>> = hoods.iter().flatten().map(|p| space.assemble(p)).collect();
    progress("search", 0, inputs.len() as u64);
    let outs = exe.run(&inputs, until)?;
    summary.native_runs += outs.len();
    if outs.len() < inputs.len() {
        summary.stopped.push(format!(
            "search: the time budget ran out after {} of {} points",
            outs.len(),
            inputs.len()
        ));
    }
    let mut traced_of = vec![0usize; candidates.len()];
    let mut flag_sets: Vec<HashSet<ExceptionSet>> = vec![HashSet::new(); candidates.len()];
    let mut hits_kind = vec![false; candidates.len()];
    let mut worth: Vec<usize> = Vec::new();
    for (i, o) in outs.iter().enumerate() {
        let n = owner[i];
        let flags = outcome_flags(o);
        if flags.is_empty() || traced_of[n] >= TRACED_PER_CANDIDATE {
            continue;
        }
        let aims = candidates[n].target.is_some_and(|(_, k)| flags.contains(k));
        if flag_sets[n].insert(flags) || (aims && !hits_kind[n]) {
            hits_kind[n] |= aims;
            traced_of[n] += 1;
            worth.push(i);
        }
    }
    let traced_inputs: Vec<Vec<ArgBits>> = worth.iter().map(|&i| inputs[i].clone()).collect();
    let traced = exe.traced(&traced_inputs, until)?;
    summary.traced_runs += traced.len();
    let mut raised_by: Vec<HashSet<(Option<LocKey>, ExceptionKind)>> =
        vec![HashSet::new(); candidates.len()];
    for (k, t) in traced.iter().enumerate() {
        let n = owner[worth[k]];
        for key in findings.record(&traced_inputs[k], t, candidates[n].source) {
            raised_by[n].insert(key);
        }
    }
    progress("search", inputs.len() as u64, inputs.len() as u64);
    let module = findings.module;
    Ok(candidates
        .iter()
        .enumerate()
        .filter_map(|(n, c)| {
            let (op, kind) = c.target?;
            let at = module.op(op).loc.as_ref().map(LocKey::of);
            let raised = &raised_by[n];
            let why = if at.is_none() {
                Some("the operation has no source line to confirm it at")
            } else if raised.contains(&(at.clone(), kind)) {
                None
            } else if raised.iter().any(|(_, k)| *k == kind) {
                Some("raised at another operation, not at the target")
            } else if !raised.is_empty() {
                Some("raised other exceptions only")
            } else if hits_kind[n] {
                Some("raised natively but not traced in time")
            } else {
                Some("not raised natively near the model (rounding moved it off the condition)")
            };
            Some(((op, kind), why))
        })
        .collect())
}

/// Random inputs on the executable until `until`, traced where they raised something.
#[allow(clippy::too_many_arguments)]
fn random_phase(
    cfg: &ExceptionsConfig,
    spaces: &[InputSpace],
    constants: &[f64],
    exe: &Executable,
    findings: &mut Findings,
    until: Option<Instant>,
    summary: &mut Summary,
    progress: Progress,
) -> Result<(), InputError> {
    let wanted = if cfg.common.random_only {
        usize::MAX
    } else {
        cfg.random_inputs
    };
    let mut done = 0usize;
    let mut alike: HashMap<NoveltyKey, usize> = HashMap::new();
    let pacer = Pacer::new(until).batches(RANDOM_FIRST_BATCH, RANDOM_LARGEST_BATCH);
    let mut draws = RandomBatches::new(spaces, cfg.common.seed, wanted, pacer);
    // The baseline (`--random-only`) is plain random testing at native speed; the search
    // draws half its coordinates where code changes behaviour (integers, constants).
    if !cfg.common.random_only {
        draws = draws.structured(constants.to_vec());
    }
    while let Some(batch) = draws.next_batch() {
        let outs = exe.run_batch(&batch)?;
        summary.native_runs += outs.len();
        // Those that raised something and look new, traced: the trace says where. An
        // untraced run costs a fraction of a traced one, so tracing only the first few
        // inputs alike in flags, result and input binades explores more in the time.
        let mut worth: Vec<Vec<ArgBits>> = Vec::new();
        for (i, (args, o)) in batch.iter().zip(&outs).enumerate() {
            let flags = outcome_flags(o);
            if flags.is_empty() {
                continue;
            }
            let seen = alike
                .entry(novelty_key(spaces, args, o, exe.function().ret, flags))
                .or_insert(0);
            *seen += 1;
            if *seen == 1 {
                // New behaviour: its neighbourhood is worth exploring.
                draws.adopt(i);
            }
            if *seen <= TRACED_PER_KIND_OF_INPUT {
                worth.push(args.clone());
            }
        }
        let traced = exe.traced(&worth, until)?;
        summary.traced_runs += traced.len();
        for (args, t) in worth.iter().zip(&traced) {
            findings.record(args, t, Phase::Random);
        }
        done += outs.len();
        summary.random_inputs = done;
        progress(
            "random",
            done as u64,
            if cfg.common.random_only {
                0
            } else {
                wanted as u64
            },
        );
    }
    Ok(())
}

/// Random inputs of the first native run; each next one doubles, up to the largest (and to
/// what the time left allows).
const RANDOM_FIRST_BATCH: usize = 64;
const RANDOM_LARGEST_BATCH: usize = 16_384;

/// Random inputs alike (see [`novelty_key`]) traced at most.
const TRACED_PER_KIND_OF_INPUT: usize = 2;

/// What an untraced run shows of where an input went: the flags, the result's class and
/// binade (exponent / 16), and the sign and binade of each float input (exponent; / 4 for
/// three or four inputs; only the smallest and largest of more than four). Branches in
/// numerical code mostly compare magnitudes, so inputs of one binade mostly take one path.
type NoveltyKey = (ExceptionSet, ResultClass, i32, Vec<i32>);

fn novelty_key(
    spaces: &[InputSpace],
    args: &[ArgBits],
    o: &NativeOutcome,
    ret: Type,
    flags: ExceptionSet,
) -> NoveltyKey {
    let binade = |bits: u64, ty: FloatTy, per: i32| -> i32 {
        let (exp, negative) = match ty {
            FloatTy::F64 => (((bits >> 52) & 0x7ff) as i32, bits >> 63 != 0),
            FloatTy::F32 => (((bits >> 23) & 0xff) as i32, bits >> 31 & 1 != 0),
        };
        let bucket = exp / per + 1;
        if negative {
            -bucket
        } else {
            bucket
        }
    };
    let (result, class) = outcome_result(o, ret);
    let result_binade = match (result, ret.float_ty()) {
        (Some(bits), Some(ty)) => binade(bits, ty, 16),
        _ => 0,
    };
    let Some(space) = spaces.first() else {
        return (flags, class, result_binade, Vec::new());
    };
    let floats = space.flatten(args);
    let per = if floats.len() <= 2 { 1 } else { 4 };
    let mut inputs: Vec<i32> = floats
        .into_iter()
        .zip(&space.tys)
        .map(|(bits, ty)| binade(bits, *ty, per))
        .collect();
    if inputs.len() > 4 {
        let (lo, hi) = (
            inputs.iter().copied().min().unwrap_or(0),
            inputs.iter().copied().max().unwrap_or(0),
        );
        inputs = vec![lo, hi];
    }
    (flags, class, result_binade, inputs)
}

/// The instant `room` before `deadline` (the deadline itself when that is in the past of
/// the clock's origin).
fn ahead_of(deadline: Option<Instant>, room: Duration) -> Option<Instant> {
    deadline.map(|d| d.checked_sub(room).unwrap_or(d))
}

/// The exact result of the function on `input`, when it is a rational number (see
/// [`exact_value`]).
fn exact_result(
    module: &Module,
    fid: FuncId,
    specs: &[ParamSpec],
    input: &[ArgBits],
) -> Option<Rational> {
    let args = crate::search::exact_args(specs, input)?;
    exact_value_within(module, fid, &args, EXACT_LIMIT)
}

/// Avoidable when the exact result is a normal number of the return type (zero is not:
/// an underflow to a true zero is no loss).
/// Classifies `x` by `class_at` at its witnesses, then at other inputs that raised it (at
/// most [`CLASSIFIED_INPUTS`] in all, in a stable order): the first input showing the
/// exception avoidable (a normal exact result; an ordinary mathematical one) sets the
/// class and becomes the first witness; else it is inherent when an input showed that,
/// unknown otherwise. `class_at` answers `None` to stop looking.
fn classify_finding(
    x: &mut ExceptionFinding,
    raised_by: Option<&HashMap<Vec<ArgBits>, Witness>>,
    witnesses_kept: usize,
    mut class_at: impl FnMut(&[ArgBits]) -> Option<Avoidability>,
) {
    let mut tried: Vec<Vec<ArgBits>> = x.witnesses.iter().map(|w| w.input.clone()).collect();
    if let Some(more) = raised_by {
        let mut more: Vec<&Vec<ArgBits>> = more.keys().filter(|i| !tried.contains(i)).collect();
        // A stable order: the set's own order changes from run to run.
        more.sort_by_cached_key(|i| format!("{i:?}"));
        tried.extend(
            more.into_iter()
                .take(CLASSIFIED_INPUTS.saturating_sub(tried.len()))
                .cloned(),
        );
    }
    x.class = Avoidability::Unknown;
    for input in tried {
        let Some(class) = class_at(&input) else {
            return;
        };
        match class {
            Avoidability::PotentiallyAvoidable | Avoidability::Spurious => {
                x.class = class;
                match x.witnesses.iter().position(|w| w.input == input) {
                    Some(k) => x.witnesses.swap(0, k),
                    None => {
                        if let Some(w) = raised_by.and_then(|m| m.get(&input)) {
                            x.witnesses.insert(0, w.clone());
                            x.witnesses.truncate(witnesses_kept.max(1));
                        }
                    }
                }
                return;
            }
            Avoidability::Inherent => x.class = Avoidability::Inherent,
            Avoidability::Unknown | Avoidability::NotApplicable => {}
        }
    }
}

/// Whether an exception of `kind` is in the mathematics at an input whose mathematical
/// result is `value` (inherent) or only in the algorithm (spurious): overflow when the
/// result is beyond the format's range or infinite, underflow when it is below the
/// smallest normal, division by zero at a pole, invalid where it is undefined.
fn reference_class(kind: ExceptionKind, value: &ReferenceValue, ty: FloatTy) -> Avoidability {
    let smallest = match ty {
        FloatTy::F64 => f64::MIN_POSITIVE,
        FloatTy::F32 => f64::from(f32::MIN_POSITIVE),
    };
    let inherent = match (kind, value) {
        (_, ReferenceValue::Undecided { .. }) | (ExceptionKind::Inexact, _) => {
            return Avoidability::Unknown
        }
        (ExceptionKind::Overflow, ReferenceValue::Infinite { .. }) => true,
        (ExceptionKind::Underflow, ReferenceValue::Finite { value, .. }) => value.abs() < smallest,
        (ExceptionKind::DivByZero, ReferenceValue::Infinite { overflow, .. }) => !overflow,
        (ExceptionKind::Invalid, ReferenceValue::Undefined) => true,
        _ => false,
    };
    if inherent {
        Avoidability::Inherent
    } else {
        Avoidability::Spurious
    }
}

fn classify(exact: Option<&Rational>, ret: Type) -> Avoidability {
    let (Some(q), Some(ty)) = (exact, ret.float_ty()) else {
        return Avoidability::Unknown;
    };
    let (smallest, largest) = match ty {
        FloatTy::F64 => (f64::MIN_POSITIVE, f64::MAX),
        FloatTy::F32 => (f64::from(f32::MIN_POSITIVE), f64::from(f32::MAX)),
    };
    let (Some(lo), Some(hi)) = (Rational::from_f64(smallest), Rational::from_f64(largest)) else {
        return Avoidability::Unknown;
    };
    let magnitude = Rational::from(q.abs_ref());
    if magnitude >= lo && magnitude <= hi {
        Avoidability::PotentiallyAvoidable
    } else {
        Avoidability::Inherent
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

    #[test]
    fn the_raising_instruction_names_an_operation_that_can_raise_the_kind() {
        use ExceptionKind::*;
        assert!(insn_computes("mulsd", "fmul"));
        assert!(insn_computes("vmulsd", "fmul"));
        assert!(insn_computes("call expf", "llvm.exp.f32"));
        assert!(insn_computes("cvtsd2ss", "fptrunc"));
        assert!(!insn_computes("mulsd", "fpext"));
        assert!(!insn_computes("divsd", "fcmp"));
        assert!(!can_raise("fcmp", Underflow));
        assert!(!can_raise("fpext", Underflow));
        assert!(can_raise("fcmp", Invalid));
        assert!(can_raise("fptrunc", Underflow));
        assert!(can_raise("llvm.exp.f64", Overflow));
        assert!(!can_raise("fneg", Invalid));
    }

    fn q(x: f64) -> Rational {
        Rational::from_f64(x).expect("finite")
    }

    #[test]
    fn avoidable_means_a_normal_exact_result() {
        let f64_ret = Type::Scalar(ScalarTy::Float(FloatTy::F64));
        let f32_ret = Type::Scalar(ScalarTy::Float(FloatTy::F32));
        for (exact, ret, class) in [
            (1.0, f64_ret, Avoidability::PotentiallyAvoidable),
            (-f64::MAX, f64_ret, Avoidability::PotentiallyAvoidable),
            (
                f64::MIN_POSITIVE,
                f64_ret,
                Avoidability::PotentiallyAvoidable,
            ),
            // Subnormal and zero results: the underflow is the function's own.
            (f64::MIN_POSITIVE / 2.0, f64_ret, Avoidability::Inherent),
            (0.0, f64_ret, Avoidability::Inherent),
            // Normal as a double, beyond a float.
            (1e39, f32_ret, Avoidability::Inherent),
            (1e-39, f32_ret, Avoidability::Inherent),
            (1e38, f32_ret, Avoidability::PotentiallyAvoidable),
        ] {
            assert_eq!(classify(Some(&q(exact)), ret), class, "{exact:e}");
        }
        // Beyond the largest double (2^1024), only a rational can say it.
        let beyond = Rational::from(rug::Integer::from(1) << 1024);
        assert_eq!(classify(Some(&beyond), f64_ret), Avoidability::Inherent);
        assert_eq!(classify(None, f64_ret), Avoidability::Unknown);
        assert_eq!(
            classify(Some(&q(1.0)), Type::Scalar(ScalarTy::Int(32))),
            Avoidability::Unknown
        );
    }

    #[test]
    fn locations_match_by_file_name_line_and_column() {
        let ir = SourceLoc {
            file: "specfunc/bessel.c".into(),
            line: 780,
            col: 21,
        };
        let dwarf = SourceLoc {
            file: "/build/gsl/specfunc/bessel.c".into(),
            line: 780,
            col: 21,
        };
        assert_eq!(LocKey::of(&ir), LocKey::of(&dwarf));
        let other_col = SourceLoc {
            col: 22,
            ..dwarf.clone()
        };
        assert_ne!(LocKey::of(&ir), LocKey::of(&other_col));
    }
}
