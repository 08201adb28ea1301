//! The float solver as a refinement step of `exceptions` and `diff`: at each execution of an operation whose exception no candidate raised, float constraints for raising it, solved over floats on the path.

use crate::search::InputSpace;
use crate::InputError;
use fpscout_fpsolve::Answer;
use fpscout_ir::{ExceptionKind, FpOpId, FuncId, Module};
use fpscout_smt::Query;
use fpscout_walk::concrete::FpMode;
use fpscout_walk::raising::{raise_networks, Formulation};
use fpscout_walk::{ExploreLimits, PathEnd, StopReason as WalkStop, WalkConfig};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::{Duration, Instant};

/// Search nodes of the float solver per network (one disjunct of one operation's
/// execution on one path).
const REFINE_NODES: u64 = 50_000;
/// Float-solver solutions per target handed on at most.
const REFINE_CANDIDATES: usize = 3;

/// Exceptions of operations no collected path reached (the real-valued exploration
/// pruned every path to them as infeasible over the reals), by opcode: those floats may
/// still raise there. Comparisons are left out: a quiet one raises invalid only on a
/// signalling NaN, which the float solver can use for proofs only.
fn unqueried_targets(module: &Module, queried: &HashSet<FpOpId>) -> Vec<(FpOpId, ExceptionKind)> {
    use ExceptionKind::*;
    let mut out = Vec::new();
    for (index, info) in module.fp_ops.iter().enumerate() {
        let op = FpOpId(index as u32);
        if queried.contains(&op) {
            continue;
        }
        let kinds: &[ExceptionKind] = match info.opcode.as_str() {
            // A tiny sum or difference is exact: no underflow (FTZ aside).
            "fadd" | "fsub" => &[Overflow, Invalid],
            "fmul" => &[Overflow, Underflow, Invalid],
            "fdiv" => &[Overflow, Underflow, DivByZero, Invalid],
            "llvm.sqrt" | "sqrt" | "sqrtf" => &[Invalid],
            "fptrunc" => &[Overflow, Underflow],
            _ => &[],
        };
        out.extend(kinds.iter().map(|&kind| (op, kind)));
    }
    out
}

/// The targets to hand to the float solver: each (operation, kind) of `queries` and of
/// the operations they do not name ([`unqueried_targets`]) that `raised` does not
/// already count as raised, once each in order; with the operations the queries name
/// (an unqueried target is only a target once a float path reaches it).
pub(crate) fn missed_targets(
    module: &Module,
    queries: &[Query],
    raised: impl Fn(&(FpOpId, ExceptionKind)) -> bool,
) -> (HashSet<FpOpId>, Vec<(FpOpId, ExceptionKind)>) {
    let queried: HashSet<FpOpId> = queries.iter().map(|q| q.op).collect();
    let missed = queries
        .iter()
        .map(|q| (q.op, q.kind))
        .chain(unqueried_targets(module, &queried))
        .filter(|target| !raised(target))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    (queried, missed)
}

/// How far the refinement's walk goes: the collection's own limits, so that a proof
/// covers the paths the other solvers were given.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RefineLimits {
    pub max_paths: usize,
    pub loop_bound: u32,
}

/// What the float solver settled for a target the other solvers' candidates missed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Refinement {
    /// One of its solutions raised the target at its operation on the executable.
    Witnessed,
    /// No float input raises it: every path was explored, and at every execution of the
    /// operation on them the raising conditions are infeasible over floats. With `cut`
    /// paths stopped by the loop bound, the proof holds within that bound; with sampled
    /// integer parameters, for those values.
    Infeasible {
        /// Paths explored, and executions of the operation on them.
        paths: usize,
        executions: usize,
        loop_bound: u32,
        cut: usize,
    },
    Unknown {
        reason: String,
    },
}

impl Refinement {
    /// The answer of two walks (integer assignments) together.
    pub(crate) fn and(self, other: Refinement) -> Refinement {
        use Refinement::*;
        match (self, other) {
            (Witnessed, _) | (_, Witnessed) => Witnessed,
            (Unknown { reason }, _) | (_, Unknown { reason }) => Unknown { reason },
            (
                Infeasible {
                    paths,
                    executions,
                    loop_bound,
                    cut,
                },
                Infeasible {
                    paths: p,
                    executions: e,
                    cut: c,
                    ..
                },
            ) => Infeasible {
                paths: paths + p,
                executions: executions + e,
                loop_bound,
                cut: cut + c,
            },
        }
    }
}

/// What the float solver found for one target on one walk.
#[derive(Clone, Debug, Default)]
pub(crate) struct RefineState {
    /// Executions of the operation (one per path prefix reaching it).
    pub executions: usize,
    /// Executions with a solution, proved infeasible, left open.
    pub sat: usize,
    pub infeasible: usize,
    pub unknown: usize,
    /// Solutions handed on as candidates.
    candidates: usize,
    /// A solution of a superset formulation (it may not raise the exception).
    superset_solution: bool,
    /// Why executions stayed open, each once.
    reasons: Vec<String>,
}

/// One walk of the float solver over the paths of a build.
pub(crate) struct Refined {
    pub states: HashMap<(FpOpId, ExceptionKind), RefineState>,
    /// Float-solver solutions (the inputs' float bits), each with the target it raises.
    pub candidates: Vec<(Vec<u64>, (FpOpId, ExceptionKind))>,
    /// Paths explored, and those cut by the loop bound.
    paths: usize,
    cut: usize,
    loop_bound: u32,
    /// Why the exploration may have missed executions (a failed or stopped path, paths
    /// left unexplored): then nothing is proved.
    pub(crate) incomplete: Vec<String>,
    /// Networks still open when the step's time ran out (executions met after it
    /// included): zero when the step saturated, deciding all it could first.
    pub open_at_deadline: usize,
}

impl Refined {
    /// The answer for one target, given whether a replay raised it.
    pub fn answer(&self, state: &RefineState, raised: bool) -> Refinement {
        if raised {
            return Refinement::Witnessed;
        }
        let mut reasons: Vec<String> = self.incomplete.clone();
        if state.candidates > 0 {
            reasons.push(if state.superset_solution {
                "float-solver solutions did not raise it natively (a solution of a superset \
                 condition without an exact test need not)"
                    .to_string()
            } else {
                "float-solver solutions did not raise it natively".to_string()
            });
        }
        reasons.extend(state.reasons.iter().cloned());
        if reasons.is_empty() && state.unknown == 0 && state.sat == 0 {
            Refinement::Infeasible {
                paths: self.paths,
                executions: state.executions,
                loop_bound: self.loop_bound,
                cut: self.cut,
            }
        } else {
            if reasons.is_empty() {
                reasons.push("the float solver left executions open".into());
            }
            Refinement::Unknown {
                reason: reasons.join("; "),
            }
        }
    }
}

fn note(reasons: &mut Vec<String>, reason: String) {
    if !reasons.contains(&reason) {
        reasons.push(reason);
    }
}

/// Walks every path of the build with the float-path domain (the executable's FTZ/DAZ
/// mode, the same input space), and at each execution of a missed target's operation
/// asks the float solver whether some input raises the target's kind there (see
/// [`fpscout_walk::raising`]): solutions become candidates; infeasible at every
/// execution on a completely explored set of paths is a proof over floats.
pub(crate) fn refine(
    (module, fid, mode): (&Module, FuncId, FpMode),
    space: &InputSpace,
    limits: RefineLimits,
    missed: &[(FpOpId, ExceptionKind)],
    until: Option<Instant>,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<Refined, InputError> {
    let config = WalkConfig {
        deadline: until,
        ..WalkConfig::default()
    };
    let (mut walker, args) =
        crate::floatsolve::float_path_walker(module, mode, space, config, true)?;
    let mut kinds: HashMap<FpOpId, Vec<ExceptionKind>> = HashMap::new();
    for &(op, kind) in missed {
        kinds.entry(op).or_default().push(kind);
    }
    walker.domain.watch(kinds.keys().copied());
    let limits = ExploreLimits {
        max_paths: limits.max_paths,
        loop_bound: limits.loop_bound,
        deadline: until,
    };
    let mut refined = Refined {
        states: HashMap::new(),
        candidates: Vec::new(),
        paths: 0,
        cut: 0,
        loop_bound: limits.loop_bound,
        incomplete: Vec::new(),
        open_at_deadline: 0,
    };
    let total = missed.len() as u64;
    let mut pending: Vec<Pending> = Vec::new();
    let mut open_executions: Vec<OpenExecution> = Vec::new();
    progress("refine", 0, total);
    let summary = walker.explore(fid, args, limits, |domain, end| {
        refined.paths += 1;
        match &end {
            PathEnd::Stopped(WalkStop::LoopBound { .. }) => refined.cut += 1,
            PathEnd::Stopped(why) => {
                note(&mut refined.incomplete, format!("a path stopped: {why}"))
            }
            PathEnd::Failed(e) | PathEnd::CannotFail(e) => note(
                &mut refined.incomplete,
                format!("a path could not be walked with the float solver: {e}"),
            ),
            PathEnd::Returned(_) | PathEnd::Ended { .. } => {}
        }
        for watched in domain.take_watched() {
            let Some(kinds) = kinds.get(&watched.site.op) else {
                continue;
            };
            for &kind in kinds {
                let state = refined.states.entry((watched.site.op, kind)).or_default();
                state.executions += 1;
                if until.is_some_and(|d| Instant::now() >= d) {
                    state.unknown += 1;
                    refined.open_at_deadline += 1;
                    note(
                        &mut state.reasons,
                        "the float solver's time ran out before this execution".into(),
                    );
                    continue;
                }
                if state.candidates >= REFINE_CANDIDATES {
                    // Enough to replay; the rest is not needed unless they all fail.
                    state.unknown += 1;
                    continue;
                }
                let networks = match raise_networks(&watched, kind) {
                    Ok(n) => n,
                    Err(why) => {
                        state.unknown += 1;
                        note(
                            &mut state.reasons,
                            format!("not stated as float constraints: {why}"),
                        );
                        continue;
                    }
                };
                let (mut refuted, mut solved) = (true, false);
                let (first_pending, mut others_refuted) = (pending.len(), true);
                for raise in networks {
                    if state.candidates >= REFINE_CANDIDATES {
                        refuted = false;
                        others_refuted = false;
                        break;
                    }
                    let deadline = attempt_deadline(until, FIRST_ROUND);
                    let answer = solve_raise(&raise, deadline);
                    let target = (watched.site.op, kind);
                    match settle(
                        answer,
                        &raise,
                        domain.inputs(),
                        target,
                        state,
                        &mut refined.candidates,
                    ) {
                        Settled::Refuted => {}
                        Settled::Solved => {
                            refuted = false;
                            solved = true;
                            others_refuted = false;
                        }
                        Settled::Open => {
                            refuted = false;
                            others_refuted = false;
                        }
                        Settled::OutOfTime => {
                            refuted = false;
                            pending.push(Pending {
                                raise,
                                inputs: domain.inputs().to_vec(),
                                target,
                                execution: open_executions.len(),
                            });
                        }
                    }
                }
                if pending.len() > first_pending {
                    open_executions.push(OpenExecution {
                        open: pending.len() - first_pending,
                        unrefuted: !others_refuted,
                    });
                }
                if refuted {
                    state.infeasible += 1;
                } else if solved {
                    state.sat += 1;
                } else {
                    state.unknown += 1;
                }
            }
        }
        let settled = refined.states.len() as u64;
        progress("refine", settled.min(total), total);
    });
    if let Some(stop) = summary.stopped {
        note(
            &mut refined.incomplete,
            format!("paths left unexplored: {stop}"),
        );
    }
    retry_rounds(pending, open_executions, until, &mut refined);
    Ok(refined)
}

/// [`refine`] on two builds at once, the second on a thread of its own (the float
/// solver is single-threaded and both builds share `until`); `None` for a build with
/// nothing missed. Progress is the first build's.
pub(crate) fn refine_both(
    builds: [(&Module, FuncId, FpMode); 2],
    space: &InputSpace,
    limits: RefineLimits,
    missed: [&[(FpOpId, ExceptionKind)]; 2],
    until: Option<Instant>,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<[Option<Refined>; 2], InputError> {
    let [first, second] = builds;
    std::thread::scope(|scope| {
        let other = (!missed[1].is_empty()).then(|| {
            scope.spawn(move || refine(second, space, limits, missed[1], until, &mut |_, _, _| {}))
        });
        let mine = if missed[0].is_empty() {
            None
        } else {
            Some(refine(first, space, limits, missed[0], until, progress)?)
        };
        let theirs = match other {
            None => None,
            Some(handle) => Some(
                handle
                    .join()
                    .map_err(|_| InputError("the float solver's thread panicked".to_string()))??,
            ),
        };
        Ok([mine, theirs])
    })
}

/// What the first, short attempt at one network gives every network: most are decided
/// in milliseconds, and a hard one must not hold up every execution after it.
const FIRST_ROUND: Duration = Duration::from_millis(100);
/// Each retry round gives the networks still open this many times the last round's time.
const ROUND_GROWTH: u32 = 4;

/// A network whose first attempt ran out of time, kept for the retry rounds.
struct Pending {
    raise: fpscout_walk::raising::RaiseNetwork,
    inputs: Vec<fpscout_walk::floatpath::PathInput>,
    target: (FpOpId, ExceptionKind),
    /// Its execution in [`OpenExecution`]s.
    execution: usize,
}

/// An execution of a target's operation some of whose networks the first round left
/// open: it is refuted once all of them are and none of the others was solvable.
struct OpenExecution {
    open: usize,
    unrefuted: bool,
}

/// How one network's answer counted for its target.
enum Settled {
    Refuted,
    Solved,
    /// Unknown for a reason more time would not change (node budget, proof only…).
    Open,
    /// The attempt's time ran out: worth a longer one.
    OutOfTime,
}

/// The end of an attempt of `slice` starting now, within the step's `until`.
fn attempt_deadline(until: Option<Instant>, slice: Duration) -> Option<Instant> {
    let short = Instant::now() + slice;
    Some(until.map_or(short, |d| d.min(short)))
}

/// The float solver's answer on one network; `None` when a superset's solutions do
/// not raise the exception: the first one its exact test rejects (a tiny product that
/// is exact) is replaced by other random points of its box, and none of those passed.
fn solve_raise(
    raise: &fpscout_walk::raising::RaiseNetwork,
    deadline: Option<Instant>,
) -> Option<Answer> {
    let report = crate::floatsolve::solve_path(&raise.network, REFINE_NODES, deadline);
    match report.answer {
        Answer::Solution(first) if raise.raises(first.values()) == Some(false) => {
            resample(raise, deadline).map(Answer::Solution)
        }
        answer => Some(answer),
    }
}

/// Records `answer` for `target`: a solution becomes a candidate.
fn settle(
    answer: Option<Answer>,
    raise: &fpscout_walk::raising::RaiseNetwork,
    inputs: &[fpscout_walk::floatpath::PathInput],
    target: (FpOpId, ExceptionKind),
    state: &mut RefineState,
    candidates: &mut Vec<(Vec<u64>, (FpOpId, ExceptionKind))>,
) -> Settled {
    let Some(answer) = answer else {
        note(
            &mut state.reasons,
            "the solutions found of the superset condition do not raise it (exact, or not tiny after rounding)".into(),
        );
        return Settled::Open;
    };
    match answer {
        Answer::Infeasible => Settled::Refuted,
        Answer::Solution(assignment) => match raise.formulation {
            Formulation::ProofOnly(why) => {
                note(&mut state.reasons, why.to_string());
                Settled::Open
            }
            formulation => {
                state.candidates += 1;
                state.superset_solution |= formulation == Formulation::Superset;
                let center = crate::floatsolve::solution_bits(inputs, assignment.values());
                candidates.push((center, target));
                Settled::Solved
            }
        },
        Answer::Unknown(fpscout_fpsolve::StopReason::Deadline) => Settled::OutOfTime,
        Answer::Unknown(stop) => {
            note(
                &mut state.reasons,
                format!("float solver stopped: {stop:?}"),
            );
            Settled::Open
        }
    }
}

/// Networks that ran out of time get longer attempts, round after round, while a
/// round still finds something (a solution, or the refutation of a whole execution)
/// and time is left: the step saturates instead of
/// spending its whole budget on networks that more time does not settle. Only targets
/// still without any candidate are retried: one witness is what the search after
/// needs, and more of them for a target cost most where they are hardest to find.
fn retry_rounds(
    mut pending: Vec<Pending>,
    mut executions: Vec<OpenExecution>,
    until: Option<Instant>,
    refined: &mut Refined,
) {
    let deadline_passed = || until.is_some_and(|d| Instant::now() >= d);
    let mut slice = FIRST_ROUND * ROUND_GROWTH;
    while !pending.is_empty() && !deadline_passed() {
        let mut found = false;
        let mut still_open = Vec::new();
        for p in pending {
            let done = refined
                .states
                .get(&p.target)
                .is_none_or(|s| s.candidates > 0);
            if done {
                continue;
            }
            if deadline_passed() {
                still_open.push(p);
                continue;
            }
            let answer = solve_raise(&p.raise, attempt_deadline(until, slice));
            let Some(state) = refined.states.get_mut(&p.target) else {
                continue;
            };
            let mut state = std::mem::take(state);
            let settled = settle(
                answer,
                &p.raise,
                &p.inputs,
                p.target,
                &mut state,
                &mut refined.candidates,
            );
            let execution = &mut executions[p.execution];
            match settled {
                Settled::Solved => {
                    found = true;
                    // The execution counted unknown in the first round is now solved.
                    state.unknown = state.unknown.saturating_sub(1);
                    state.sat += 1;
                    execution.unrefuted = true;
                }
                Settled::Refuted => {
                    execution.open -= 1;
                    if execution.open == 0 && !execution.unrefuted {
                        // Its last open network refuted: the execution is, as a whole.
                        found = true;
                        state.unknown = state.unknown.saturating_sub(1);
                        state.infeasible += 1;
                    }
                }
                Settled::Open => execution.unrefuted = true,
                Settled::OutOfTime => {}
            }
            refined.states.insert(p.target, state);
            if matches!(settled, Settled::OutOfTime) {
                still_open.push(p);
            }
        }
        pending = still_open;
        if !found {
            break;
        }
        slice *= ROUND_GROWTH;
    }
    pending.retain(|p| {
        refined
            .states
            .get(&p.target)
            .is_some_and(|s| s.candidates == 0)
    });
    if deadline_passed() {
        refined.open_at_deadline += pending.len();
    }
    for p in pending {
        if let Some(state) = refined.states.get_mut(&p.target) {
            note(
                &mut state.reasons,
                "the float solver did not settle it in the time a round gives (no round found anything more)".into(),
            );
        }
    }
}

/// Random solutions of a superset network tried for one its exact test accepts.
const RESAMPLES: u64 = 16;

/// A solution of `raise` that its exact test does not reject, from random points of
/// its propagated box (seeds other than the search's own).
fn resample(
    raise: &fpscout_walk::raising::RaiseNetwork,
    deadline: Option<Instant>,
) -> Option<fpscout_fpsolve::Assignment> {
    (2..2 + RESAMPLES).find_map(|seed| {
        match crate::floatsolve::sample(&raise.network, seed, 2_000, deadline).answer {
            Answer::Solution(s) if raise.raises(s.values()) != Some(false) => Some(s),
            _ => None,
        }
    })
}
