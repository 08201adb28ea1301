//! Exception traces compared across the interpreter and the executable: (kind, source line)
//! steps in execution order.
//!
//! The two sides do not name operations alike: the interpreter records one event per IR
//! operation and vector lane, the processor one per instruction (the union of its lanes'
//! flags). Both are therefore reduced to runs of consecutive events on one source line,
//! each run carrying the union of its kinds, inexact excluded.

use fpscout_ir::{ExceptionKind, ExceptionSet, Module};
use fpscout_native::NativeTrace;
use fpscout_walk::concrete::Evaluation;
use serde::Serialize;

/// One step of a reduced trace: consecutive events on one line, their kinds joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct TraceStep {
    /// Source line (0 when unknown).
    pub line: u32,
    pub kinds: ExceptionSet,
}

/// How two reduced traces relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceMatch {
    /// The same steps in the same order.
    Same,
    /// The same steps in another order (the backend scheduled independent operations
    /// differently from the IR's order).
    Reordered,
    Different,
    /// The native trace was cut short (too many events): only its prefix was compared,
    /// and it matched.
    TruncatedPrefix,
}

impl TraceMatch {
    pub fn agrees(self) -> bool {
        !matches!(self, TraceMatch::Different)
    }
    pub fn describe(self) -> &'static str {
        match self {
            TraceMatch::Same => "yes",
            TraceMatch::Reordered => "yes (same events, reordered by the backend)",
            TraceMatch::Different => "NO",
            TraceMatch::TruncatedPrefix => "yes (native trace truncated; its prefix agrees)",
        }
    }
}

fn push(steps: &mut Vec<TraceStep>, line: u32, kinds: ExceptionSet) {
    if kinds.is_empty() {
        return;
    }
    match steps.last_mut() {
        Some(last) if last.line == line => last.kinds = last.kinds.union(kinds),
        _ => steps.push(TraceStep { line, kinds }),
    }
}

/// The interpreter's events, reduced.
pub fn interpreter_steps(m: &Module, eval: &Evaluation) -> Vec<TraceStep> {
    let mut steps = Vec::new();
    for e in &eval.events {
        if e.kind == ExceptionKind::Inexact {
            continue;
        }
        let line = m.op(e.site.op).loc.as_ref().map_or(0, |l| l.line);
        let mut kinds = ExceptionSet::EMPTY;
        kinds.insert(e.kind);
        push(&mut steps, line, kinds);
    }
    steps
}

/// The executable's events, reduced.
pub fn native_steps(t: &NativeTrace) -> Vec<TraceStep> {
    let mut steps = Vec::new();
    for e in &t.events {
        let line = e.loc.as_ref().map_or(0, |l| l.line);
        push(&mut steps, line, e.flags.without_inexact());
    }
    steps
}

/// Compares the interpreter's reduced trace with the executable's.
pub fn compare_traces(
    interpreted: &[TraceStep],
    native: &[TraceStep],
    truncated: bool,
) -> TraceMatch {
    if truncated {
        // The last native step may be cut in the middle of a run.
        let whole = native.len().saturating_sub(1);
        return if interpreted.len() >= whole && interpreted[..whole] == native[..whole] {
            TraceMatch::TruncatedPrefix
        } else {
            TraceMatch::Different
        };
    }
    if interpreted == native {
        return TraceMatch::Same;
    }
    let (mut a, mut b) = (interpreted.to_vec(), native.to_vec());
    a.sort();
    a.dedup();
    b.sort();
    b.dedup();
    if a == b {
        TraceMatch::Reordered
    } else {
        TraceMatch::Different
    }
}

/// The kinds of a reduced trace in order, for comparing two builds: their lines differ
/// (P′ may evaluate an expression's operations on other lines' behalf), their kinds must
/// not.
pub fn kinds_in_order(steps: &[TraceStep]) -> Vec<ExceptionSet> {
    steps.iter().map(|s| s.kinds).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(line: u32, kinds: &[ExceptionKind]) -> TraceStep {
        let mut s = ExceptionSet::EMPTY;
        for k in kinds {
            s.insert(*k);
        }
        TraceStep { line, kinds: s }
    }

    use ExceptionKind::{DivByZero, Overflow, Underflow};

    #[test]
    fn runs_on_one_line_merge() {
        let mut steps = Vec::new();
        push(&mut steps, 4, step(4, &[Overflow]).kinds);
        push(&mut steps, 4, step(4, &[Underflow]).kinds);
        push(&mut steps, 4, ExceptionSet::EMPTY);
        push(&mut steps, 5, step(5, &[DivByZero]).kinds);
        push(&mut steps, 4, step(4, &[Overflow]).kinds);
        assert_eq!(
            steps,
            vec![
                step(4, &[Overflow, Underflow]),
                step(5, &[DivByZero]),
                step(4, &[Overflow])
            ]
        );
    }

    #[test]
    fn comparison_distinguishes_order_and_content() {
        let a = vec![step(2, &[Overflow]), step(3, &[DivByZero])];
        let b = vec![step(3, &[DivByZero]), step(2, &[Overflow])];
        assert_eq!(compare_traces(&a, &a, false), TraceMatch::Same);
        assert_eq!(compare_traces(&a, &b, false), TraceMatch::Reordered);
        assert_eq!(
            compare_traces(&a, &[step(2, &[Overflow])], false),
            TraceMatch::Different
        );
        assert_eq!(compare_traces(&a, &[], false), TraceMatch::Different);
        assert_eq!(
            compare_traces(&a, &[step(2, &[Overflow]), step(3, &[Overflow])], true),
            TraceMatch::TruncatedPrefix
        );
        assert_eq!(
            compare_traces(&a, &[step(2, &[Underflow]), step(3, &[Overflow])], true),
            TraceMatch::Different
        );
    }
}
