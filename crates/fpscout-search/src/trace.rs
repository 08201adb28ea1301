//! Exception traces compared across the interpreter and the executable: (source line,
//! kind) steps in execution order, and the named ways in which they may legitimately
//! differ.
//!
//! The two sides do not count alike: the interpreter records one event per IR operation
//! and vector lane, the processor one per instruction, with the union of its lanes'
//! flags, and the backend splits operations (`fptoui` becomes two `cvttsd2si`), merges
//! identical ones, schedules them in another order and leaves some instructions without a
//! source line. Both sides are therefore reduced to steps, one per (line, kind) with
//! consecutive repeats collapsed; line 0 (unknown) matches any line.

use fpscout_ir::{ExceptionKind, Module};
use fpscout_native::NativeTrace;
use fpscout_walk::concrete::Evaluation;
use serde::{Deserialize, Serialize};

/// One step of a reduced trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct TraceStep {
    /// Source line (0 when unknown).
    pub line: u32,
    pub kind: ExceptionKind,
}

impl TraceStep {
    /// Same kind, and the same line unless one of them is unknown.
    fn matches(self, other: TraceStep) -> bool {
        self.kind == other.kind && (self.line == other.line || self.line == 0 || other.line == 0)
    }
}

/// How the interpreter's trace relates to the executable's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceMatch {
    /// The same steps in the same order.
    Same,
    /// The same (line, kind) steps, in another order or number: the backend scheduled
    /// independent operations differently, or split one into several instructions.
    Reordered,
    /// Every step of the executable is one of the interpreter's, which has more: the
    /// machine code does not perform some operations that raise in the IR (the backend
    /// merged or rewrote them; jetEngine's P′ folds `2.0 * x1` into a reassociated
    /// product).
    FewerInMachine,
    /// The native trace was cut short (too many events): only its prefix was compared,
    /// and it matched.
    TruncatedPrefix,
    Different,
}

impl TraceMatch {
    pub fn agrees(self) -> bool {
        !matches!(self, TraceMatch::Different)
    }
    pub fn describe(self) -> &'static str {
        match self {
            TraceMatch::Same => "yes",
            TraceMatch::Reordered => "yes (same events, reordered or split by the backend)",
            TraceMatch::FewerInMachine => {
                "yes (the machine code does not perform some operations that raise in the IR)"
            }
            TraceMatch::TruncatedPrefix => "yes (native trace truncated; its prefix agrees)",
            TraceMatch::Different => "NO",
        }
    }
}

fn push(steps: &mut Vec<TraceStep>, line: u32, kind: ExceptionKind) {
    let step = TraceStep { line, kind };
    if kind != ExceptionKind::Inexact && steps.last() != Some(&step) {
        steps.push(step);
    }
}

/// The interpreter's events, reduced.
pub fn interpreter_steps(m: &Module, eval: &Evaluation) -> Vec<TraceStep> {
    let mut steps = Vec::new();
    for e in &eval.events {
        let line = m.op(e.site.op).loc.as_ref().map_or(0, |l| l.line);
        push(&mut steps, line, e.kind);
    }
    steps
}

/// The executable's events, reduced.
pub fn native_steps(t: &NativeTrace) -> Vec<TraceStep> {
    let mut steps = Vec::new();
    for e in &t.events {
        let line = e.loc.as_ref().map_or(0, |l| l.line);
        for kind in e.flags.iter() {
            push(&mut steps, line, kind);
        }
    }
    steps
}

/// Whether every step of `a` matches some step of `b`.
fn covered(a: &[TraceStep], b: &[TraceStep]) -> bool {
    a.iter().all(|x| b.iter().any(|y| x.matches(*y)))
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
        let prefix_matches = interpreted.len() >= whole
            && interpreted[..whole]
                .iter()
                .zip(&native[..whole])
                .all(|(a, b)| a.matches(*b));
        return if prefix_matches {
            TraceMatch::TruncatedPrefix
        } else {
            TraceMatch::Different
        };
    }
    if interpreted.len() == native.len()
        && interpreted.iter().zip(native).all(|(a, b)| a.matches(*b))
    {
        return TraceMatch::Same;
    }
    match (covered(native, interpreted), covered(interpreted, native)) {
        (true, true) => TraceMatch::Reordered,
        (true, false) => TraceMatch::FewerInMachine,
        _ => TraceMatch::Different,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ExceptionKind::{DivByZero, Inexact, Invalid, Overflow, Underflow};

    fn st(line: u32, kind: ExceptionKind) -> TraceStep {
        TraceStep { line, kind }
    }

    #[test]
    fn repeats_collapse_and_inexact_is_dropped() {
        let mut steps = Vec::new();
        for (line, kind) in [
            (4, Overflow),
            (4, Overflow),
            (4, Inexact),
            (4, Underflow),
            (5, DivByZero),
            (4, Overflow),
        ] {
            push(&mut steps, line, kind);
        }
        assert_eq!(
            steps,
            vec![
                st(4, Overflow),
                st(4, Underflow),
                st(5, DivByZero),
                st(4, Overflow)
            ]
        );
    }

    #[test]
    fn comparison_names_each_way_traces_differ() {
        let a = vec![st(2, Overflow), st(3, DivByZero)];
        let b = vec![st(3, DivByZero), st(2, Overflow)];
        assert_eq!(compare_traces(&a, &a, false), TraceMatch::Same);
        assert_eq!(compare_traces(&a, &b, false), TraceMatch::Reordered);
        // An unknown line matches any line.
        assert_eq!(
            compare_traces(&a, &[st(0, Overflow), st(3, DivByZero)], false),
            TraceMatch::Same
        );
        // A split operation (two instructions for one IR operation) is a reordering.
        let split = vec![st(2, Overflow), st(3, DivByZero), st(2, Overflow)];
        assert_eq!(compare_traces(&a, &split, false), TraceMatch::Reordered);
        assert_eq!(
            compare_traces(&a, &[st(2, Overflow)], false),
            TraceMatch::FewerInMachine
        );
        // The executable raising what the interpreter does not is a disagreement.
        assert_eq!(
            compare_traces(
                &a,
                &[st(2, Overflow), st(3, DivByZero), st(7, Invalid)],
                false
            ),
            TraceMatch::Different
        );
        assert_eq!(compare_traces(&a, &[], false), TraceMatch::FewerInMachine);
        assert_eq!(compare_traces(&[], &a, false), TraceMatch::Different);
        assert_eq!(
            compare_traces(&a, &[st(2, Underflow)], false),
            TraceMatch::Different
        );
        assert_eq!(
            compare_traces(&a, &[st(2, Overflow), st(3, Overflow)], true),
            TraceMatch::TruncatedPrefix
        );
        assert_eq!(
            compare_traces(&a, &[st(2, Underflow), st(3, Overflow)], true),
            TraceMatch::Different
        );
    }
}
