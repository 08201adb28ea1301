//! The `reach` mode (CPBPV_FP): can any input reach a failing assertion, or drive a function's float result into an interval? A witness replayed natively, a float-exact refutation within stated bounds, or unknown with the reason.
//!
//! Every feasible path of one build is walked with the float-path domain (fpscout-walk's
//! `FloatPath`): a path's float operations become a constraint network, branches whose
//! direction propagation refutes are pruned. On each path reaching the target, the target
//! becomes constraints too and the float solver searches: a solution is replayed by the
//! concrete interpreter and on the executable before it is reported; "infeasible" is a
//! proof over floats. The answer is `unreachable` only when every path was explored and
//! every target path refuted.

use crate::config::{self, CommonConfig};
use crate::executable::{Executable, Pacer};
use crate::floatsolve::{complete_solve, float_path_walker, quick_solve, sample, solution_bits};
use crate::random::RandomBatches;
use crate::search::{after, InputSpace};
use crate::session::Session;
use crate::InputError;
use fpscout_fpsolve::{
    Answer, FcmpPredicate, FloatValue, Format, Network, Report, Rounding, StopReason as FpStop,
    VarId,
};
use fpscout_ir::{EndFn, ExternalKind, FloatTy, InstKind, ProgramEnd, SourceLoc, Type};
use fpscout_native::NativeOutcome;
use fpscout_smt::FpTheoryAnswer;
use fpscout_walk::concrete::eval::EvalEnd;
use fpscout_walk::concrete::ArgBits;
use fpscout_walk::floatpath::{format_of, FloatPath, PathScalar};
use fpscout_walk::memory::out_of_bounds_object;
use fpscout_walk::{ExploreLimits, PathEnd, StopReason, Val, WalkConfig, WalkError};
use rug::Rational;
use std::time::{Duration, Instant};

/// What counts as reaching.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// A path ending in a failed assertion (`assert`, `reach_error()`, `__VERIFIER_error()`),
    /// or in whatever end (`abort()`, `exit`) the program's own error function calls.
    FailedAssertion,
    /// The function's float result in `[lo, hi]`.
    ResultInside(f64, f64),
    /// The function's float result ordered and below `lo` or above `hi`.
    ResultOutside(f64, f64),
}

impl Target {
    pub fn describe(&self) -> String {
        match self {
            Target::FailedAssertion => "a failed assertion".into(),
            Target::ResultInside(lo, hi) => format!("a result in [{lo:e}, {hi:e}]"),
            Target::ResultOutside(lo, hi) => {
                format!("a result below {lo:e} or above {hi:e}")
            }
        }
    }

    /// Whether a concrete result (of type `ty`) hits an output target.
    fn result_hits(&self, bits: u64, ty: FloatTy) -> bool {
        let x = match ty {
            FloatTy::F64 => f64::from_bits(bits),
            FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
        };
        match *self {
            Target::FailedAssertion => false,
            Target::ResultInside(lo, hi) => lo <= x && x <= hi,
            Target::ResultOutside(lo, hi) => x < lo || x > hi,
        }
    }
}

/// Options of one `reach` run.
#[derive(Clone, Debug)]
pub struct ReachConfig {
    /// Its `random_only`: random generate-and-test on the executable only (the
    /// baseline), same budget.
    pub common: CommonConfig,
    pub target: Target,
    pub loop_bound: u32,
    pub max_paths: usize,
    /// Search nodes of the float solver per target path.
    pub node_budget: u64,
    /// What solves each target path's constraints.
    pub solver: PathSolver,
}

impl ReachConfig {
    pub fn new(function: &str, target: Target) -> ReachConfig {
        ReachConfig {
            common: CommonConfig::new(function, config::REACH),
            target,
            loop_bound: 8,
            max_paths: 1024,
            node_budget: 200_000,
            solver: PathSolver::FloatSolver,
        }
    }
}

/// What solves the constraints of a path reaching the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathSolver {
    /// fpscout-fpsolve (propagation and search), then enumeration of small boxes.
    FloatSolver,
    /// Z3's floating-point theory on the same network (the benchmark's baseline): no
    /// enumeration, no random testing after.
    Z3FloatTheory,
}

/// The verdict.
#[derive(Clone, Debug, PartialEq)]
pub enum ReachAnswer {
    /// A witness reaches the target, confirmed by the interpreter and the executable.
    Reachable,
    /// Every path was explored and every path reaching the target is infeasible over floats.
    Unreachable,
    /// As `Unreachable`, for the paths within the loop bound; `cut` paths went past it.
    UnreachableWithinBound {
        bound: u32,
        cut: usize,
    },
    Unknown {
        reason: String,
    },
}

impl ReachAnswer {
    pub fn name(&self) -> &'static str {
        match self {
            ReachAnswer::Reachable => "reachable",
            ReachAnswer::Unreachable => "unreachable",
            ReachAnswer::UnreachableWithinBound { .. } => "unreachable within loop bound",
            ReachAnswer::Unknown { .. } => "unknown",
        }
    }
}

/// A confirmed witness.
#[derive(Clone, Debug, PartialEq)]
pub struct Witness {
    pub inputs: Vec<ArgBits>,
    /// What the executable did on it ("fails assertion `…`", "returned 0x…").
    pub native: String,
    /// The returned bits (output targets).
    pub result: Option<u64>,
    /// How the run ended the program (assertion targets), and where.
    pub end: Option<ProgramEnd>,
    pub loc: Option<SourceLoc>,
}

/// Totals of the exploration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathCounts {
    /// Paths walked to their end (or to a limit).
    pub explored: usize,
    /// Branch directions propagation refuted (never walked).
    pub pruned: u64,
    /// Target paths whose constraints (with the target's) the solver refuted.
    pub infeasible: usize,
    /// Paths whose outcome stays open (unsupported operation, solver budget, replay).
    pub unknown: usize,
    /// Paths stopped by the loop bound.
    pub cut: usize,
    /// Paths ending where the target is decided: a failed assertion, or a return for a
    /// result target (their constraints are then solved).
    pub target: usize,
}

/// The report of one `reach` run.
#[derive(Clone, Debug)]
pub struct ReachReport {
    pub function: String,
    /// The function's linker symbol.
    pub symbol: String,
    pub ret: Type,
    pub build: fpscout_toolchain::BuildKind,
    pub target: Target,
    pub answer: ReachAnswer,
    pub witness: Option<Witness>,
    pub params: Vec<fpscout_ir::Param>,
    pub paths: PathCounts,
    pub loop_bound: u32,
    pub solver_nodes: u64,
    /// Random inputs run (the baseline, or after an unsettled exploration).
    pub random_inputs: u64,
    /// Inputs interpreted to refute paths by exhaustion (boxes of at most 2^24 inputs
    /// left by the solver's search).
    pub exhausted_inputs: u64,
    /// Why paths stayed unknown, each once, in the order met.
    pub reasons: Vec<String>,
    pub wall_s: f64,
    pub method: &'static str,
}

/// Functions whose calls are the error an SV-COMP program asks about.
const ERROR_FUNCTIONS: [&str; 2] = ["reach_error", "__VERIFIER_error"];

/// Which program ends reach the error. A failed assertion always does. SV-COMP files
/// define `reach_error` as `{ abort(); }` as often as with `__assert_fail`, and the
/// program's definition wins over the harness's: an `abort()` or `exit()` called from
/// the program's own error function reaches the error too, while one elsewhere (the
/// usual `assume_abort_if_not`) only ends the run. The interpreter tells them apart by
/// the call's source position; the executable shows only the kind of end, so a native
/// abort counts where the interpreter saw this input abort in the error function.
#[derive(Debug, Default)]
struct ErrorEnds {
    /// Positions of the end calls (not `__assert_fail`) inside the error functions.
    located: Vec<(ProgramEndKind, SourceLoc)>,
    /// Kinds of end called there without a source position (IR without debug info).
    unlocated: Vec<ProgramEndKind>,
}

/// A program end without its details (status, message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ProgramEndKind {
    Exit,
    Abort,
}

impl ProgramEndKind {
    fn of(end: &ProgramEnd) -> Option<ProgramEndKind> {
        match end {
            ProgramEnd::Exit { .. } => Some(ProgramEndKind::Exit),
            ProgramEnd::Abort => Some(ProgramEndKind::Abort),
            ProgramEnd::AssertFail { .. } => None,
        }
    }
}

/// Whether an interpreted end reached the error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EndVerdict {
    Error,
    NotError,
    /// An end of a kind the error function calls, at no known position.
    Unplaced,
}

impl ErrorEnds {
    fn of(module: &fpscout_ir::Module) -> ErrorEnds {
        let mut ends = ErrorEnds::default();
        let error_functions = module
            .functions
            .iter()
            .filter(|f| ERROR_FUNCTIONS.contains(&f.name.as_str()));
        for inst in error_functions.flat_map(|f| f.blocks.iter().flat_map(|b| &b.insts)) {
            let InstKind::External(call) = &inst.kind else {
                continue;
            };
            let kind = match call.kind {
                ExternalKind::End(EndFn::Abort) => ProgramEndKind::Abort,
                ExternalKind::End(EndFn::Exit) => ProgramEndKind::Exit,
                _ => continue,
            };
            match &call.loc {
                Some(loc) => ends.located.push((kind, loc.clone())),
                None => ends.unlocated.push(kind),
            }
        }
        ends
    }

    fn verdict(&self, end: &ProgramEnd, loc: Option<&SourceLoc>) -> EndVerdict {
        let Some(kind) = ProgramEndKind::of(end) else {
            return EndVerdict::Error;
        };
        let placed =
            loc.is_some_and(|loc| self.located.iter().any(|(k, l)| *k == kind && l == loc));
        if placed {
            EndVerdict::Error
        } else if self.unlocated.contains(&kind) && loc.is_none() {
            EndVerdict::Unplaced
        } else {
            EndVerdict::NotError
        }
    }

    /// Whether the executable's end may be the error (the interpreter decides).
    fn may_be_error(&self, end: &ProgramEnd) -> bool {
        match ProgramEndKind::of(end) {
            None => true,
            Some(kind) => {
                self.located.iter().any(|(k, _)| *k == kind) || self.unlocated.contains(&kind)
            }
        }
    }
}

/// What the executable and the interpreter must both show for a witness.
struct Replayer<'a> {
    session: &'a Session,
    cfg: &'a ReachConfig,
    exe: Executable<'a>,
    /// The function's definition: where an output target's finding is.
    location: Option<SourceLoc>,
    error_ends: ErrorEnds,
}

impl Replayer<'_> {
    fn hits_native(&self, outcome: &NativeOutcome) -> Option<Witness> {
        match (self.cfg.target, outcome) {
            (Target::FailedAssertion, NativeOutcome::Ended { end, .. }) => {
                self.error_ends.may_be_error(end).then(|| Witness {
                    inputs: Vec::new(),
                    native: end.to_string(),
                    result: None,
                    end: Some(end.clone()),
                    loc: None,
                })
            }
            (
                target,
                NativeOutcome::Returned {
                    result: Some(r), ..
                },
            ) => {
                let ty = self.exe.function().ret.float_ty()?;
                target.result_hits(*r, ty).then(|| Witness {
                    inputs: Vec::new(),
                    native: format!("returns {}", fpscout_report::args::decimal(*r, ty)),
                    result: Some(*r),
                    end: None,
                    loc: None,
                })
            }
            _ => None,
        }
    }

    /// The witness when both the interpreter and the executable reach the target.
    fn confirm(&self, inputs: &[ArgBits]) -> Result<Option<Witness>, InputError> {
        let module = self.session.module(self.cfg.common.build)?;
        let mut runner = crate::concrete::concrete_runner(
            module,
            self.exe.func(),
            self.exe.mode(),
            WalkConfig::default(),
        )
        .map_err(|e| InputError(e.to_string()))?;
        let interpreted = match runner.eval(inputs) {
            Ok(e) => e.end,
            Err(_) => return Ok(None),
        };
        if !self.interpreted_hits(&interpreted) {
            return Ok(None);
        }
        let outcome = self.exe.run_one(inputs)?;
        // An abort or exit is the error only where the interpreter placed it, so the
        // executable must end the same way (a failed assertion names itself).
        let same_end = |o: &NativeOutcome| match (o, &interpreted) {
            (NativeOutcome::Ended { end, .. }, EvalEnd::Ended { end: seen, .. })
                if ProgramEndKind::of(end).is_some() =>
            {
                end == seen
            }
            _ => true,
        };
        Ok(outcome
            .as_ref()
            .filter(|o| same_end(o))
            .and_then(|o| self.hits_native(o))
            .map(|w| Witness {
                inputs: inputs.to_vec(),
                loc: match &interpreted {
                    EvalEnd::Ended { loc, .. } => loc.clone(),
                    _ => self.location.clone(),
                },
                ..w
            }))
    }

    /// Whether an interpreted run ended at the target.
    fn interpreted_hits(&self, end: &EvalEnd) -> bool {
        match (self.cfg.target, end) {
            (Target::FailedAssertion, EvalEnd::Ended { end, loc }) => {
                self.error_ends.verdict(end, loc.as_ref()) == EndVerdict::Error
            }
            (target, EvalEnd::Returned(Some(r))) => self
                .exe
                .function()
                .ret
                .float_ty()
                .is_some_and(|ty| target.result_hits(*r, ty)),
            _ => false,
        }
    }
}

/// How a result is compared with a real bound.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Side {
    AtLeast,
    AtMost,
    Below,
    Above,
}

/// Requires `v side x` for a real `x`, as a comparison with the float of `format` that
/// bounds the same set of floats (x itself is rarely a float of the result's format:
/// `v < 1e9 + 0.01` in binary32 is `v <= 1e9`). `false` when no float satisfies it.
fn require_bound(
    net: &mut Network,
    v: VarId,
    format: Format,
    side: Side,
    x: f64,
) -> Result<bool, String> {
    let key = match Rational::from_f64(x) {
        Some(exact) => {
            let (down, up) = (
                format.round(&exact, Rounding::Down),
                format.round(&exact, Rounding::Up),
            );
            let is_float = format.to_rational(down).as_ref() == Some(&exact);
            match side {
                Side::AtLeast => Some(up),
                Side::AtMost => Some(down),
                Side::Below if is_float => format.next_down_value(down),
                Side::Below => Some(down),
                Side::Above if is_float => format.next_up_value(up),
                Side::Above => Some(up),
            }
        }
        // Infinite bounds.
        None => {
            let positive = x > 0.0;
            match (side, positive) {
                (Side::AtLeast, false) | (Side::AtMost, true) => return Ok(true),
                (Side::Below, false) | (Side::Above, true) => None,
                (Side::AtLeast, true) => Some(format.pos_inf()),
                (Side::AtMost, false) => Some(format.neg_inf()),
                (Side::Below, true) => Some(format.max_finite()),
                (Side::Above, false) => Some(format.negate(format.max_finite())),
            }
        }
    };
    let Some(key) = key else {
        return Ok(false);
    };
    let c = net.float_const(format, FloatValue::Num(key));
    let pred = match side {
        Side::AtLeast | Side::Above => FcmpPredicate::Oge,
        Side::AtMost | Side::Below => FcmpPredicate::Ole,
    };
    net.require(pred, v, c, true).map_err(|e| e.to_string())?;
    Ok(true)
}

/// The networks whose solutions reach the target from this path (one per disjunct of
/// an output target; `result` is the returned value).
fn target_networks(
    domain: &mut FloatPath,
    target: Target,
    ty: FloatTy,
    result: &PathScalar,
) -> Result<Vec<Network>, String> {
    if target == Target::FailedAssertion {
        return Ok(vec![domain.network().clone()]);
    }
    let v = domain.float_var(ty, result).map_err(|e| e.to_string())?;
    let format = format_of(ty);
    let base = domain.network().clone();
    let with = |bounds: &[(Side, f64)]| -> Result<Option<Network>, String> {
        let mut net = base.clone();
        for &(side, x) in bounds {
            if !require_bound(&mut net, v, format, side, x)? {
                return Ok(None);
            }
        }
        Ok(Some(net))
    };
    let disjuncts = match target {
        Target::FailedAssertion => vec![],
        Target::ResultInside(lo, hi) => vec![with(&[(Side::AtLeast, lo), (Side::AtMost, hi)])?],
        Target::ResultOutside(lo, hi) => {
            vec![with(&[(Side::Below, lo)])?, with(&[(Side::Above, hi)])?]
        }
    };
    Ok(disjuncts.into_iter().flatten().collect())
}

/// Share of the time budget for walking paths and solving them.
const SOLVER_SHARE: f64 = 0.9;

/// The first pass gives one target network at most this fraction of the time left,
/// and at most the budget's share for the paths and their searches over this number.
const QUICK_PASS_SHARE: u32 = 4;
const FIRST_PASS_SLICES: f64 = 32.0;

/// Share of a network's second-pass slice spent sampling again (a new seed) before the
/// complete search.
const SECOND_SAMPLING_SHARE: u32 = 3;

/// Nodes of the complete search tried before sampling again in the second pass.
const SHORT_COMPLETE_NODES: u64 = 5_000;

const NO_REPLAY: &str = "a solver solution did not replay on the interpreter and the executable";

const INTEGERS_FIXED: &str = "no path reaches the target with every integer nondet 0 (the float \
     search fixes integer inputs; other values were not all explored)";

/// Decides a function with no input to search (a deterministic SV-COMP program, or one
/// whose integers are all fixed) by its one execution, on the interpreter and on the
/// executable: both reaching the target is reachable (the witness, replayed), both
/// ending elsewhere the same way is unreachable. Anything else is unknown: a trap, a
/// step budget or deadline, the two disagreeing, or an `undef` in the program (an
/// uninitialized variable, which SV-COMP reads as a nondet value and the interpreter as
/// zero, so one run would not be the only execution).
fn decide_by_one_run(
    replayer: &Replayer,
    space: &InputSpace,
    module: &fpscout_ir::Module,
    deadline: Option<Instant>,
    report: &mut ReachReport,
) -> Result<(), InputError> {
    let inputs = space.assemble(&[]);
    // The one run may be long (a simulation loop): the deadline, not a step count,
    // bounds it when there is one.
    let config = WalkConfig {
        deadline,
        step_budget: if deadline.is_some() {
            u64::MAX
        } else {
            WalkConfig::default().step_budget
        },
        ..WalkConfig::default()
    };
    let mut runner =
        crate::concrete::concrete_runner(module, replayer.exe.func(), replayer.exe.mode(), config)
            .map_err(|e| InputError(e.to_string()))?;
    report.paths.explored = 1;
    let unknown = |reason: String| ReachAnswer::Unknown { reason };
    let interpreted = match runner.eval(&inputs) {
        Ok(evaluation) => evaluation.end,
        Err(e) => {
            // The executable is the program: its one run failing an assertion is the
            // target reached, even where the interpreter cannot follow the program (long
            // double). Ending any other way proves nothing without the interpreter: an
            // uninitialized read may go another way in another execution.
            let native = replayer.exe.run_one(&inputs)?;
            let failed_assertion = native.as_ref().filter(|o| {
                matches!(o, NativeOutcome::Ended { end, .. } if ProgramEndKind::of(end).is_none())
            });
            if let Some(witness) = failed_assertion.and_then(|o| replayer.hits_native(o)) {
                report.paths.target = 1;
                report.witness = Some(witness);
                report.answer = ReachAnswer::Reachable;
                report.method = "one run of the executable";
                return Ok(());
            }
            report.answer = unknown(format!("the one run failed on the interpreter: {e}"));
            return Ok(());
        }
    };
    if replayer.interpreted_hits(&interpreted) {
        report.paths.target = 1;
        report.answer = match replayer.confirm(&inputs)? {
            Some(witness) => {
                report.witness = Some(witness);
                ReachAnswer::Reachable
            }
            None => unknown(
                "the interpreter's one run reaches the target, the executable's does not".into(),
            ),
        };
        return Ok(());
    }
    let ended_elsewhere = match &interpreted {
        EvalEnd::Returned(_) => true,
        EvalEnd::Ended { end, loc } => {
            replayer.error_ends.verdict(end, loc.as_ref()) == EndVerdict::NotError
        }
        EvalEnd::Trapped(why) => {
            report.answer = unknown(format!("the one run traps on the interpreter: {why}"));
            return Ok(());
        }
        EvalEnd::Stopped(why) => {
            report.answer = unknown(format!("the one run stopped: {why}"));
            return Ok(());
        }
    };
    if !ended_elsewhere {
        report.answer = unknown(
            "the one run ends where the program's error function does, without debug \
             locations to tell whether this is the error"
                .into(),
        );
        return Ok(());
    }
    let native = replayer.exe.run_one(&inputs)?;
    let agrees = match (&native, &interpreted) {
        (Some(NativeOutcome::Returned { .. }), EvalEnd::Returned(_)) => true,
        (Some(NativeOutcome::Ended { end, .. }), EvalEnd::Ended { end: seen, .. }) => end == seen,
        _ => false,
    };
    // An end of the same kind is not the error where the interpreter placed it (as for
    // witnesses); a returned result must miss an output target natively too.
    let misses = match &native {
        Some(o @ NativeOutcome::Returned { .. }) => replayer.hits_native(o).is_none(),
        Some(NativeOutcome::Ended { .. }) => true,
        _ => false,
    };
    report.answer = if !(agrees && misses) {
        unknown(format!(
            "the one run does not reach the target on the interpreter, and the executable {}",
            match &native {
                Some(NativeOutcome::Returned { .. }) => "returns".to_string(),
                Some(NativeOutcome::Ended { end, .. }) => format!("{end}"),
                Some(NativeOutcome::Crashed { detail, .. }) => format!("crashes: {detail}"),
                Some(NativeOutcome::TimedOut) => "runs past the hang limit".to_string(),
                None => "gave no outcome".to_string(),
            }
        ))
    } else if let Some(where_) = undef_use(module) {
        unknown(format!(
            "the one run does not reach the target, but the program reads an uninitialized \
             value ({where_}), which may differ between executions"
        ))
    } else {
        ReachAnswer::Unreachable
    };
    Ok(())
}

/// Where the module reads an `undef` or `poison` operand (in IR from C: an
/// uninitialized variable), if anywhere.
fn undef_use(module: &fpscout_ir::Module) -> Option<String> {
    let is_undef = |op: &fpscout_ir::Operand| matches!(op, fpscout_ir::Operand::Const(c) if const_has_undef(c));
    for f in &module.functions {
        for block in &f.blocks {
            let in_phis = block
                .phis
                .iter()
                .any(|phi| phi.incoming.iter().any(|(_, op)| is_undef(op)));
            // An `undef` vector that an insertelement or shuffle fills is a placeholder,
            // not a read.
            let in_insts = block.insts.iter().any(|inst| match &inst.kind {
                fpscout_ir::InstKind::InsertElement { elt, index, .. } => {
                    is_undef(elt) || is_undef(index)
                }
                fpscout_ir::InstKind::Shuffle { .. } => false,
                kind => kind.operands().into_iter().any(is_undef),
            });
            let in_term = match &block.term {
                fpscout_ir::Terminator::CondBr { cond: op, .. }
                | fpscout_ir::Terminator::Switch { value: op, .. }
                | fpscout_ir::Terminator::Ret(Some(op)) => is_undef(op),
                _ => false,
            };
            if in_phis || in_insts || in_term {
                return Some(format!("in {}", f.display_name));
            }
        }
    }
    None
}

fn const_has_undef(c: &fpscout_ir::Const) -> bool {
    match c {
        fpscout_ir::Const::Undef(_) => true,
        fpscout_ir::Const::Vector(lanes) => lanes.iter().any(const_has_undef),
        _ => false,
    }
}

/// A target path the first pass left open: its networks still to search, and whether
/// the ones it settled were all refuted.
struct OpenPath {
    /// Each with whether its first-pass sampling was cut short.
    networks: Vec<(Network, bool)>,
    refuted_so_far: bool,
}

/// How the second pass ended on one network.
enum Settled {
    Refuted {
        nodes: u64,
        enumerated: u64,
    },
    Witness {
        witness: Witness,
        nodes: u64,
        by_enumeration: bool,
    },
    Open {
        nodes: u64,
        reason: String,
    },
}

/// Sampling again, the complete search on one open network, then the enumeration of
/// its box by the interpreter when the search stops unsettled.
fn settle(
    replayer: &Replayer,
    space: &InputSpace,
    domain: &FloatPath,
    (net, resample): (&Network, bool),
    runner: &mut fpscout_walk::concrete::ConcreteRunner,
    cfg: &ReachConfig,
    deadline: Option<Instant>,
) -> Result<Settled, InputError> {
    // A short complete search first: bisection refutes or solves many networks in
    // hundreds of nodes, which another round of sampling would only delay.
    let short_deadline = deadline.map(|d| {
        let now = Instant::now();
        now + d.saturating_duration_since(now) / SECOND_SAMPLING_SHARE
    });
    let short = complete_solve(
        net,
        SHORT_COMPLETE_NODES.min(cfg.node_budget),
        short_deadline,
    );
    if matches!(short.answer, Answer::Solution(_) | Answer::Infeasible) {
        return settle_answer(replayer, space, domain, net, runner, short, deadline);
    }
    let mut spent_nodes = short.nodes;
    if resample {
        let sampling_deadline = deadline.map(|d| {
            let now = Instant::now();
            now + d.saturating_duration_since(now) / SECOND_SAMPLING_SHARE
        });
        let sampled = sample(net, 2, cfg.node_budget, sampling_deadline);
        if matches!(sampled.answer, Answer::Solution(_)) {
            return settle_answer(replayer, space, domain, net, runner, sampled, deadline);
        }
        spent_nodes += sampled.nodes;
    }
    let complete = complete_solve(net, cfg.node_budget, deadline);
    let solved = Report {
        nodes: complete.nodes + spent_nodes,
        ..complete
    };
    settle_answer(replayer, space, domain, net, runner, solved, deadline)
}

/// What a second-pass search's answer settles: a refutation, a witness once replayed,
/// or (unknown) what enumerating the box adds.
fn settle_answer(
    replayer: &Replayer,
    space: &InputSpace,
    domain: &FloatPath,
    net: &Network,
    runner: &mut fpscout_walk::concrete::ConcreteRunner,
    solved: Report,
    deadline: Option<Instant>,
) -> Result<Settled, InputError> {
    let nodes = solved.nodes;
    Ok(match solved.answer {
        Answer::Infeasible => Settled::Refuted {
            nodes,
            enumerated: 0,
        },
        Answer::Solution(assignment) => {
            let inputs = space.assemble(&solution_bits(domain.inputs(), assignment.values()));
            match replayer.confirm(&inputs)? {
                Some(witness) => Settled::Witness {
                    witness,
                    nodes,
                    by_enumeration: false,
                },
                None => Settled::Open {
                    nodes,
                    reason: NO_REPLAY.into(),
                },
            }
        }
        // The search evaluates small boxes point by point itself; the interpreter's
        // enumeration is for what it leaves open.
        Answer::Unknown(stop) => match exhaust(replayer, space, domain, net, runner, deadline)? {
            Exhaustion::Refuted(enumerated) => Settled::Refuted { nodes, enumerated },
            Exhaustion::Witness(witness) => Settled::Witness {
                witness,
                nodes,
                by_enumeration: true,
            },
            Exhaustion::TooLarge(n) => Settled::Open {
                nodes,
                reason: format!(
                    "float solver stopped: {stop:?} (the path's box of {n} or more inputs is too large to enumerate)"
                ),
            },
            Exhaustion::Stopped => Settled::Open {
                nodes,
                reason: format!("float solver stopped: {stop:?}, and enumerating the path's box too"),
            },
        },
    })
}

/// Projections spent narrowing a path's box before sizing or enumerating it: propagation
/// that creeps one float per projection has no deadline, so it must stay short (sound at
/// any budget: an unfinished propagation only leaves the box larger).
const BOX_PROPAGATION_BUDGET: u64 = 20_000;

/// Inputs of one target path's box enumerated at most when the search is unsettled.
const EXHAUSTIVE_LIMIT: u64 = 1 << 24;

/// Inputs interpreted per batch of an enumeration (the deadline is looked at between).
const EXHAUSTIVE_BATCH: usize = 1 << 14;

/// How the enumeration of a path's box ended.
enum Exhaustion {
    Witness(Witness),
    /// No input of the box reaches the target: the path is refuted (propagation never
    /// removes a solution, so every solution lies in the box), after this many inputs.
    Refuted(u64),
    TooLarge(u64),
    Stopped,
}

/// Runs every input of the box the target network propagates to, on the interpreter
/// (each hit then confirmed natively): a proof by exhaustion for small boxes.
fn exhaust(
    replayer: &Replayer,
    space: &InputSpace,
    domain: &FloatPath,
    net: &Network,
    runner: &mut fpscout_walk::concrete::ConcreteRunner,
    deadline: Option<Instant>,
) -> Result<Exhaustion, InputError> {
    let mut net = net.clone();
    if net.propagate(BOX_PROPAGATION_BUDGET) == fpscout_fpsolve::Propagation::Infeasible {
        return Ok(Exhaustion::Refuted(0));
    }
    let mut axes: Vec<Vec<u64>> = Vec::new();
    let mut total: u64 = 1;
    for input in domain.inputs() {
        let format = format_of(input.ty);
        let d = net
            .float_domain(input.var)
            .map_err(|e| InputError(e.to_string()))?;
        total = total.saturating_mul(d.size());
        if total > EXHAUSTIVE_LIMIT {
            return Ok(Exhaustion::TooLarge(total));
        }
        let mut values: Vec<u64> = match d.range() {
            Some((lo, hi)) => (lo.0..=hi.0)
                .map(|k| format.to_bits(FloatValue::Num(fpscout_fpsolve::Fp(k))))
                .collect(),
            None => Vec::new(),
        };
        if d.may_be_nan() {
            values.push(format.to_bits(FloatValue::NaN));
        }
        axes.push(values);
    }
    if axes.iter().any(Vec::is_empty) {
        return Ok(Exhaustion::Refuted(0));
    }
    // Mixed-radix counter over the axes.
    let mut index = vec![0usize; axes.len()];
    let mut done = false;
    let mut run: u64 = 0;
    while !done {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Exhaustion::Stopped);
        }
        let mut batch = Vec::with_capacity(EXHAUSTIVE_BATCH);
        while batch.len() < EXHAUSTIVE_BATCH && !done {
            let bits: Vec<u64> = index.iter().zip(&axes).map(|(&i, a)| a[i]).collect();
            batch.push(space.assemble(&bits));
            done = true;
            for (i, axis) in index.iter_mut().zip(&axes) {
                *i += 1;
                if *i < axis.len() {
                    done = false;
                    break;
                }
                *i = 0;
            }
        }
        run += batch.len() as u64;
        for (inputs, outcome) in batch.iter().zip(runner.eval_batch(&batch)) {
            let hits = outcome.is_ok_and(|e| replayer.interpreted_hits(&e.end));
            if hits {
                if let Some(w) = replayer.confirm(inputs)? {
                    return Ok(Exhaustion::Witness(w));
                }
            }
        }
    }
    Ok(Exhaustion::Refuted(run))
}

/// Runs `reach` on one function of a session: once per assignment of the integer
/// parameters a `--range` samples (each with an equal share of the time left), until
/// one reaches the target. Unreachable for every assignment is `unreachable` only when
/// the assignments are every integer of the ranges; otherwise it is unknown, with the
/// values it holds for.
pub fn run_reach(
    session: &Session,
    cfg: &ReachConfig,
    progress: &mut dyn FnMut(&PathCounts),
) -> Result<ReachReport, InputError> {
    cfg.common.validate()?;
    let started = cfg.common.start();
    let build = cfg.common.build;
    let f = session
        .module(build)?
        .function(session.function(build, &cfg.common.function)?);
    let assignments = cfg.common.per_int_assignment(f);
    if assignments.len() == 1 {
        let report = run_reach_once(session, cfg, progress)?;
        return Ok(no_proof_over_undef(session.module(build)?, report));
    }
    let count = assignments.len();
    let mut merged: Option<ReachReport> = None;
    let mut open: Vec<String> = Vec::new();
    let mut refuted: Vec<String> = Vec::new();
    let mut cut = 0;
    for (k, common) in assignments.into_iter().enumerate() {
        let left = (cfg.common.time_budget_s - started.elapsed().as_secs_f64()).max(0.0);
        let values = common.int_values(f);
        let one = ReachConfig {
            common: CommonConfig {
                time_budget_s: left / (count - k) as f64,
                started: Some(Instant::now()),
                ..common
            },
            ..cfg.clone()
        };
        let report = run_reach_once(session, &one, progress)?;
        let answer = report.answer.clone();
        let all = merged.get_or_insert_with(|| ReachReport {
            paths: PathCounts::default(),
            solver_nodes: 0,
            random_inputs: 0,
            exhausted_inputs: 0,
            reasons: Vec::new(),
            ..report.clone()
        });
        let p = &mut all.paths;
        p.explored += report.paths.explored;
        p.pruned += report.paths.pruned;
        p.infeasible += report.paths.infeasible;
        p.unknown += report.paths.unknown;
        p.cut += report.paths.cut;
        p.target += report.paths.target;
        all.solver_nodes += report.solver_nodes;
        all.random_inputs += report.random_inputs;
        all.exhausted_inputs += report.exhausted_inputs;
        for reason in report.reasons {
            note(&mut all.reasons, format!("{values}: {reason}"));
        }
        match answer {
            ReachAnswer::Reachable => {
                all.answer = ReachAnswer::Reachable;
                all.witness = report.witness;
                all.method = report.method;
                break;
            }
            ReachAnswer::Unknown { reason } => open.push(format!("{values}: {reason}")),
            ReachAnswer::UnreachableWithinBound { cut: c, .. } => {
                cut += c;
                refuted.push(values);
            }
            ReachAnswer::Unreachable => refuted.push(values),
        }
    }
    let mut report =
        merged.ok_or_else(|| InputError("no integer assignment was explored".into()))?;
    if report.answer != ReachAnswer::Reachable {
        report.answer = if !open.is_empty() {
            ReachAnswer::Unknown {
                reason: open.join("; "),
            }
        } else if !cfg.common.int_ranges_exhausted(f) {
            ReachAnswer::Unknown {
                reason: format!(
                    "unreachable for each sampled integer assignment ({}); the other \
                     integers of the --range were not explored",
                    refuted.join("; ")
                ),
            }
        } else if cut > 0 {
            ReachAnswer::UnreachableWithinBound {
                bound: cfg.loop_bound,
                cut,
            }
        } else {
            ReachAnswer::Unreachable
        };
    }
    report.wall_s = started.elapsed().as_secs_f64();
    Ok(no_proof_over_undef(session.module(build)?, report))
}

/// An `unreachable` answer (within the loop bound or not) becomes unknown where the
/// program reads an uninitialized value: the walks take it as one value (0), an execution
/// may see any other (an SV-COMP task's own `__VERIFIER_nondet_double` returning an
/// uninitialized local is one).
fn no_proof_over_undef(module: &fpscout_ir::Module, mut report: ReachReport) -> ReachReport {
    if let ReachAnswer::Unreachable | ReachAnswer::UnreachableWithinBound { .. } = report.answer {
        if let Some(where_) = undef_use(module) {
            report.answer = ReachAnswer::Unknown {
                reason: format!(
                    "no path reaches the target, but the program reads an uninitialized \
                     value ({where_}), which the walks took as 0"
                ),
            };
        }
    }
    report
}

/// Elements an input array the search grows may reach: enough for the loops of
/// SV-COMP tasks that read a nondet value per iteration for a few thousand iterations,
/// few enough that every walk and random input stays cheap.
const MAX_GROWN_ARRAY: usize = 4096;

/// How a run with given array lengths ended.
enum Sized {
    Done(Box<ReachReport>),
    /// The walks read past the end of these growable input arrays, and no witness was
    /// found: the run should start again with them longer.
    Short(Vec<String>),
}

/// Runs `reach` with the integer parameters as `cfg` fixes them: again, with the
/// growable input arrays four times as long, while walks read past their end (an
/// SV-COMP loop reading a nondet value per iteration), the budget lasts and they stay
/// within [`MAX_GROWN_ARRAY`].
fn run_reach_once(
    session: &Session,
    cfg: &ReachConfig,
    progress: &mut dyn FnMut(&PathCounts),
) -> Result<ReachReport, InputError> {
    let mut sized = cfg.clone();
    sized.common.started = Some(cfg.common.start());
    loop {
        match run_reach_sized(session, &sized, progress)? {
            Sized::Done(mut report) => {
                for name in &sized.common.growable_arrays {
                    let len = sized.common.array_lens.get(name);
                    if let Some(len) =
                        len.filter(|&len| Some(len) != cfg.common.array_lens.get(name))
                    {
                        note(
                            &mut report.reasons,
                            format!("{name} grown to {len} elements: the walks read past its end"),
                        );
                    }
                }
                return Ok(*report);
            }
            Sized::Short(arrays) => {
                for name in arrays {
                    let len = sized.common.array_lens.get(&name).copied().unwrap_or(1);
                    sized
                        .common
                        .array_lens
                        .insert(name, (len * 4).min(MAX_GROWN_ARRAY));
                }
            }
        }
    }
}

/// Whether every array of `short` can grow under `cfg`.
fn can_grow(cfg: &CommonConfig, short: &[String]) -> bool {
    !short.is_empty()
        && short.iter().all(|name| {
            cfg.growable_arrays.contains(name)
                && cfg
                    .array_lens
                    .get(name)
                    .is_some_and(|&len| len < MAX_GROWN_ARRAY)
        })
}

/// Runs `reach` with the integer parameters and array lengths as `cfg` fixes them.
fn run_reach_sized(
    session: &Session,
    cfg: &ReachConfig,
    progress: &mut dyn FnMut(&PathCounts),
) -> Result<Sized, InputError> {
    let started = cfg.common.start();
    let deadline = after(started, cfg.common.time_budget_s);
    let module = session.module(cfg.common.build)?;
    let func = session.function(cfg.common.build, &cfg.common.function)?;
    let f = module.function(func);
    let space = InputSpace::allowing_no_floats(f, &cfg.common.input_options(), "reach")?;
    if cfg.target != Target::FailedAssertion && f.ret.float_ty().is_none() {
        return Err(InputError(format!(
            "--output-range/--outside need a float result; {} returns {}",
            f.display_name, f.ret
        )));
    }
    let exe = Executable::open(session, cfg.common.build, func, &space.lens, &cfg.common)?;
    let replayer = Replayer {
        session,
        cfg,
        exe,
        location: f.loc.clone(),
        error_ends: ErrorEnds::of(module),
    };
    let mut report = ReachReport {
        function: f.display_name.clone(),
        symbol: f.name.clone(),
        ret: f.ret,
        build: cfg.common.build,
        target: cfg.target,
        answer: ReachAnswer::Unknown {
            reason: String::new(),
        },
        witness: None,
        params: f.params.clone(),
        paths: PathCounts::default(),
        loop_bound: cfg.loop_bound,
        solver_nodes: 0,
        random_inputs: 0,
        exhausted_inputs: 0,
        reasons: Vec::new(),
        wall_s: 0.0,
        method: match (cfg.common.random_only, cfg.solver) {
            (true, _) => "random",
            (false, PathSolver::FloatSolver) => "float solver",
            (false, PathSolver::Z3FloatTheory) => "z3 qf_fp",
        },
    };
    let no_inputs = space.inputs.is_empty() && !space.has_integer_arrays();
    let mut decided = false;
    let mut one_run_open = None;
    if no_inputs {
        report.method = "one run";
        decide_by_one_run(&replayer, &space, module, deadline, &mut report)?;
        // A run the interpreter cannot decide (bytes no run defines, as a nondet
        // string's) goes on to the float solver's walk, which may not need them. Not
        // with an `undef` operand, which the walk would read as one value.
        let time_left = deadline.is_none_or(|d| Instant::now() < d);
        decided = !matches!(report.answer, ReachAnswer::Unknown { .. })
            || cfg.common.random_only
            || cfg.solver != PathSolver::FloatSolver
            || !time_left
            || undef_use(module).is_some();
        if let (false, ReachAnswer::Unknown { reason }) = (decided, &report.answer) {
            one_run_open = Some(reason.clone());
            report.method = "float solver";
            report.paths = PathCounts::default();
        }
    }
    if !decided && cfg.common.random_only {
        random_search(&replayer, &space, cfg, deadline, &mut report)?;
    } else if !decided {
        // Paths and their searches stop at 90% of the budget, so that random testing
        // keeps a little when they leave the answer open (a larger share for random
        // testing cost the solver answers at 5 s budgets in scripts/bench-reach.sh).
        let explore_deadline = after(started, cfg.common.time_budget_s * SOLVER_SHARE);
        let short = explore_paths(
            &replayer,
            &space,
            cfg,
            explore_deadline,
            &mut report,
            progress,
        )?;
        let time_left = explore_deadline.is_none_or(|d| Instant::now() < d);
        if report.witness.is_none() && time_left && can_grow(&cfg.common, &short) {
            return Ok(Sized::Short(short));
        }
        // The paths were walked with every integer nondet 0: a refutation holds for those
        // values only, and random testing draws others.
        if space.has_integer_arrays() {
            let refuted = matches!(
                report.answer,
                ReachAnswer::Unreachable | ReachAnswer::UnreachableWithinBound { .. }
            );
            if refuted {
                report.answer = ReachAnswer::Unknown {
                    reason: INTEGERS_FIXED.into(),
                };
            }
        }
        // Unsettled: the time left goes to random testing on the executable, which can
        // still find a witness (the answer is then reachable; it never proves anything).
        // Not for the Z3 baseline, whose column must be Z3's own answer.
        let unsettled = match &report.answer {
            ReachAnswer::Unknown { reason } if cfg.solver == PathSolver::FloatSolver => {
                Some(reason.clone())
            }
            _ => None,
        };
        if let Some(reason) = unsettled {
            random_search(&replayer, &space, cfg, deadline, &mut report)?;
            match &mut report.answer {
                ReachAnswer::Reachable => report.method = "float solver, then random",
                ReachAnswer::Unknown { reason: why } => {
                    *why = format!("{reason}; then {why}");
                }
                _ => {}
            }
        }
    }
    if let (Some(first), ReachAnswer::Unknown { reason }) = (one_run_open, &mut report.answer) {
        *reason = format!("{first}; then the float solver: {reason}");
    }
    if let Some(witness) = report.witness.take() {
        report.witness = Some(trim_integers(&replayer, &space, witness, deadline)?);
    }
    report.wall_s = started.elapsed().as_secs_f64();
    Ok(Sized::Done(Box::new(report)))
}

/// The witness with the tail of each integer array zeroed from the first element on
/// whose zeroing it still reaches the target (replayed again): a random draw fills all
/// the elements, while the program reads a few, and the test case lists them all. Stops
/// at the deadline, keeping the last confirmed witness.
fn trim_integers(
    replayer: &Replayer,
    space: &InputSpace,
    mut witness: Witness,
    deadline: Option<Instant>,
) -> Result<Witness, InputError> {
    let arrays: Vec<usize> = space
        .specs
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, fpscout_smt::ParamSpec::IntArray { .. }))
        .map(|(k, _)| k)
        .collect();
    for k in arrays {
        let Some(ArgBits::Array(values)) = witness.inputs.get(k) else {
            continue;
        };
        for start in 0..values.len() {
            if values[start..].iter().all(|&v| v == 0)
                || deadline.is_some_and(|d| Instant::now() >= d)
            {
                break;
            }
            let mut trial = witness.inputs.clone();
            if let Some(ArgBits::Array(tail)) = trial.get_mut(k) {
                tail[start..].iter_mut().for_each(|v| *v = 0);
            }
            if let Some(trimmed) = replayer.confirm(&trial)? {
                witness = trimmed;
                break;
            }
        }
    }
    Ok(witness)
}

fn note(reasons: &mut Vec<String>, reason: String) {
    if !reasons.contains(&reason) {
        reasons.push(reason);
    }
}

fn explore_paths(
    replayer: &Replayer,
    space: &InputSpace,
    cfg: &ReachConfig,
    deadline: Option<Instant>,
    report: &mut ReachReport,
    progress: &mut dyn FnMut(&PathCounts),
) -> Result<Vec<String>, InputError> {
    let module = replayer.session.module(cfg.common.build)?;
    let mut short_arrays: Vec<String> = Vec::new();
    let config = WalkConfig {
        deadline,
        ..WalkConfig::default()
    };
    // The baseline's answers are Z3's own: no branch is refuted by our propagation.
    let propagate = cfg.solver == PathSolver::FloatSolver;
    let (mut walker, args) =
        float_path_walker(module, replayer.exe.mode(), space, config, propagate)?;
    if cfg.target == Target::FailedAssertion {
        let error_functions: Vec<_> = ERROR_FUNCTIONS
            .iter()
            .filter_map(|name| module.find_function(name))
            .collect();
        walker.skip_quiet_branches(&error_functions);
    }
    let limits = ExploreLimits {
        max_paths: cfg.max_paths,
        loop_bound: cfg.loop_bound,
        deadline,
    };
    let ret_ty = replayer.exe.function().ret.float_ty();
    let mut error: Option<InputError> = None;
    let counts = &mut report.paths;
    let reasons = &mut report.reasons;
    let witness = &mut report.witness;
    let nodes = &mut report.solver_nodes;
    let mut found_by_enumeration = false;
    let mut pending: Vec<OpenPath> = Vec::new();
    // A first-pass slice is a small share of the whole budget, so that a program with
    // many target paths reaches its last paths' witnesses in the first pass.
    // (An unbounded budget, which only the library can be given, caps nothing.)
    let first_pass_cap = Duration::try_from_secs_f64(
        cfg.common.time_budget_s.max(0.0) * SOLVER_SHARE / FIRST_PASS_SLICES,
    )
    .unwrap_or(Duration::MAX);
    let mut runner = crate::concrete::concrete_runner(
        module,
        replayer.exe.func(),
        replayer.exe.mode(),
        WalkConfig::default(),
    )
    .map_err(|e| InputError(e.to_string()))?;
    let summary = walker.explore(replayer.exe.func(), args, limits, |domain, end| {
        counts.explored += 1;
        if witness.is_some() || error.is_some() {
            return;
        }
        let networks = match (&end, cfg.target, ret_ty) {
            (PathEnd::Ended { end, loc }, Target::FailedAssertion, _) => {
                match replayer.error_ends.verdict(end, loc.as_ref()) {
                    EndVerdict::Error => Ok(vec![domain.network().clone()]),
                    EndVerdict::NotError => return,
                    EndVerdict::Unplaced => Err(format!(
                        "the program {end} where its error function does too, without \
                         debug locations to tell whether this is the error"
                    )),
                }
            }
            (PathEnd::Returned(Some(Val::Scalar(r))), Target::ResultInside(..), Some(ty))
            | (PathEnd::Returned(Some(Val::Scalar(r))), Target::ResultOutside(..), Some(ty)) => {
                target_networks(domain, cfg.target, ty, r)
            }
            // Failed where nothing after can fail an assertion: settled like an end.
            (PathEnd::Returned(_) | PathEnd::Ended { .. } | PathEnd::CannotFail(_), _, _) => {
                return
            }
            (PathEnd::Stopped(StopReason::LoopBound { .. }), _, _) => {
                counts.cut += 1;
                return;
            }
            (PathEnd::Stopped(r), _, _) => Err(format!("path stopped: {r}")),
            (PathEnd::Failed(e), _, _) => {
                if let Some(array) = growable_array_read_past_end(e, &cfg.common.growable_arrays) {
                    if !short_arrays.contains(&array) {
                        short_arrays.push(array);
                    }
                }
                Err(e.to_string())
            }
        };
        let networks = match networks {
            Ok(n) => n,
            Err(reason) => {
                counts.unknown += 1;
                note(reasons, reason);
                return;
            }
        };
        counts.target += 1;
        let mut refuted = true;
        let mut open: Vec<(Network, bool)> = Vec::new();
        for net in networks {
            // Half of what is left at most, so later target paths get their turn.
            let solve_deadline = deadline.map(|d| {
                let now = Instant::now();
                now + d.saturating_duration_since(now) / 2
            });
            if cfg.solver == PathSolver::Z3FloatTheory {
                let inputs: Vec<VarId> = domain.inputs().iter().map(|i| i.var).collect();
                let limit = solve_deadline.map_or(Duration::from_secs(3600), |d| {
                    d.saturating_duration_since(Instant::now())
                });
                match fpscout_smt::solve_fp_theory(&net, &inputs, limit, solve_deadline) {
                    FpTheoryAnswer::Infeasible => {}
                    FpTheoryAnswer::Solution(bits) => match replayer.confirm(&space.assemble(&bits)) {
                        Ok(Some(w)) => {
                            *witness = Some(w);
                            return;
                        }
                        Ok(None) => {
                            refuted = false;
                            note(reasons, "a Z3 QF_FP model did not replay on the interpreter and the executable".into());
                        }
                        Err(e) => {
                            error = Some(e);
                            return;
                        }
                    },
                    FpTheoryAnswer::Unknown(why) => {
                        refuted = false;
                        note(reasons, why);
                    }
                }
                continue;
            }
            // First pass only (witnesses on every path before proofs on any); what it
            // leaves open waits for the second pass below.
            let quick_deadline = deadline.map(|d| {
                let now = Instant::now();
                let slice = d.saturating_duration_since(now) / QUICK_PASS_SHARE;
                now + slice.min(first_pass_cap)
            });
            let solved = quick_solve(&net, cfg.node_budget, quick_deadline);
            *nodes += solved.nodes;
            match solved.answer {
                Answer::Infeasible => {}
                Answer::Solution(assignment) => {
                    let inputs = space.assemble(&solution_bits(domain.inputs(), assignment.values()));
                    match replayer.confirm(&inputs) {
                        Ok(Some(w)) => {
                            *witness = Some(w);
                            return;
                        }
                        Ok(None) => {
                            refuted = false;
                            note(reasons, NO_REPLAY.into());
                        }
                        Err(e) => {
                            error = Some(e);
                            return;
                        }
                    }
                }
                // Sampled to its end or not: only a sampling cut short by the slice is
                // worth another in the second pass.
                Answer::Unknown(stop) => open.push((net, stop == FpStop::Deadline)),
            }
        }
        if !open.is_empty() {
            pending.push(OpenPath {
                networks: open,
                refuted_so_far: refuted,
            });
            return;
        }
        if refuted {
            counts.infeasible += 1;
        } else {
            counts.unknown += 1;
        }
        progress(counts);
    });
    if let Some(e) = error {
        return Err(e);
    }
    // Second pass: the complete search (then enumeration) on what the first left open,
    // the time left shared evenly between the open paths.
    let open_paths = pending.len();
    for (k, path) in pending.into_iter().enumerate() {
        if report.witness.is_some() {
            break;
        }
        let path_deadline = deadline.map(|d| {
            let now = Instant::now();
            now + d.saturating_duration_since(now) / (open_paths - k) as u32
        });
        let mut refuted = path.refuted_so_far;
        let count = path.networks.len();
        for (j, (net, resample)) in path.networks.into_iter().enumerate() {
            let net_deadline = path_deadline.map(|d| {
                let now = Instant::now();
                now + d.saturating_duration_since(now) / (count - j) as u32
            });
            let settled = settle(
                replayer,
                space,
                &walker.domain,
                (&net, resample),
                &mut runner,
                cfg,
                net_deadline,
            )?;
            match settled {
                Settled::Refuted { nodes, enumerated } => {
                    report.solver_nodes += nodes;
                    report.exhausted_inputs += enumerated;
                }
                Settled::Witness {
                    witness,
                    nodes,
                    by_enumeration,
                } => {
                    report.solver_nodes += nodes;
                    report.witness = Some(witness);
                    found_by_enumeration = by_enumeration;
                    break;
                }
                Settled::Open { nodes, reason } => {
                    report.solver_nodes += nodes;
                    refuted = false;
                    note(&mut report.reasons, reason);
                }
            }
        }
        if report.witness.is_some() {
            break;
        }
        if refuted {
            report.paths.infeasible += 1;
        } else {
            report.paths.unknown += 1;
        }
        progress(&report.paths);
    }
    report.paths.pruned = walker.domain.pruned;
    if found_by_enumeration {
        report.method = "float solver, then enumeration";
    }
    if let Some(stop) = summary.stopped {
        note(&mut report.reasons, stop.to_string());
    }
    report.answer = if report.witness.is_some() {
        ReachAnswer::Reachable
    } else if report.paths.unknown > 0 || summary.stopped.is_some() {
        ReachAnswer::Unknown {
            reason: report.reasons.join("; "),
        }
    } else if report.paths.cut > 0 {
        ReachAnswer::UnreachableWithinBound {
            bound: cfg.loop_bound,
            cut: report.paths.cut,
        }
    } else {
        ReachAnswer::Unreachable
    };
    Ok(short_arrays)
}

/// The growable input array `e` read past its end, if it is such a trap.
fn growable_array_read_past_end(e: &WalkError, growable: &[String]) -> Option<String> {
    let WalkError::Trap { what, .. } = e else {
        return None;
    };
    let object = out_of_bounds_object(what)?;
    growable.iter().find(|name| *name == object).cloned()
}

/// Random inputs without a deadline.
const UNTIMED_RANDOM_INPUTS: usize = 16 * crate::executable::NATIVE_BATCH;

/// Random generate-and-test on the executable until the deadline: finds witnesses,
/// never proves anything.
fn random_search(
    replayer: &Replayer,
    space: &InputSpace,
    cfg: &ReachConfig,
    deadline: Option<Instant>,
    report: &mut ReachReport,
) -> Result<(), InputError> {
    // Without a deadline random testing still ends: a fixed number of inputs.
    let wanted = if deadline.is_some() {
        usize::MAX
    } else {
        UNTIMED_RANDOM_INPUTS
    };
    let spaces = std::slice::from_ref(space);
    let mut draws =
        RandomBatches::new(spaces, cfg.common.seed, wanted, Pacer::new(deadline)).integers_too();
    while let Some(inputs) = draws.next_batch() {
        let outs = replayer.exe.run_batch(&inputs)?;
        report.random_inputs += outs.len() as u64;
        for (input, out) in inputs.iter().zip(&outs) {
            if replayer.hits_native(out).is_some() {
                if let Some(w) = replayer.confirm(input)? {
                    report.witness = Some(w);
                    report.answer = ReachAnswer::Reachable;
                    return Ok(());
                }
            }
        }
    }
    report.answer = ReachAnswer::Unknown {
        reason: format!(
            "random testing found no witness in {} inputs (it never proves unreachability)",
            report.random_inputs
        ),
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpscout_fpsolve::{Arith, Propagation};

    /// The range of a fresh binary32 variable after `v side x`, as f32 (None if empty).
    fn bounded(side: Side, x: f64) -> Option<(f32, f32)> {
        let mut net = Network::new(Arith::IEEE);
        let v = net.float_var("v", Format::F32);
        if !require_bound(&mut net, v, Format::F32, side, x).expect("constraint") {
            return None;
        }
        assert_ne!(net.propagate(10_000), Propagation::Infeasible);
        let (lo, hi) = net.float_domain(v).expect("float").range()?;
        Some((Format::F32.to_f64(lo) as f32, Format::F32.to_f64(hi) as f32))
    }

    #[test]
    fn bounds_are_the_floats_that_bound_the_same_set() {
        // 1e9 + 0.01 is no binary32: "below" it is "at most 1e9", "above" it "at least
        // the float after 1e9".
        assert_eq!(
            bounded(Side::Below, 1e9 + 0.01),
            Some((f32::NEG_INFINITY, 1e9))
        );
        assert_eq!(
            bounded(Side::Above, 1e9 + 0.01),
            Some((1e9f32.next_up(), f32::INFINITY))
        );
        // A float bound: strict comparisons step past it, wide ones keep it.
        assert_eq!(
            bounded(Side::Below, 1.0),
            Some((f32::NEG_INFINITY, 1f32.next_down()))
        );
        assert_eq!(bounded(Side::AtMost, 1.0), Some((f32::NEG_INFINITY, 1.0)));
        assert_eq!(bounded(Side::AtLeast, 1.0), Some((1.0, f32::INFINITY)));
        assert_eq!(
            bounded(Side::Above, 1.0),
            Some((1f32.next_up(), f32::INFINITY))
        );
        // Infinite bounds: nothing is above +inf, everything is at most +inf.
        assert_eq!(bounded(Side::Above, f64::INFINITY), None);
        assert_eq!(bounded(Side::Below, f64::NEG_INFINITY), None);
        assert_eq!(
            bounded(Side::AtMost, f64::INFINITY),
            Some((f32::NEG_INFINITY, f32::INFINITY))
        );
        assert_eq!(
            bounded(Side::Below, f64::INFINITY),
            Some((f32::NEG_INFINITY, f32::MAX))
        );
    }
}
