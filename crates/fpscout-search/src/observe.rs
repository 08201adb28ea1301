//! What one native run of a build showed: the class of its result, how it ended, its
//! flags and its exception trace, as every mode compares them.

use fpscout_ir::{ExceptionSet, FloatTy, ProgramEnd, Type};
use fpscout_native::{NativeOutcome, NativeTrace, TracedOutcome};
use serde::{Deserialize, Serialize};

/// Class of a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultClass {
    Finite,
    PosInf,
    NegInf,
    Nan,
    /// Integer or void result, or a run that did not return.
    Other,
    /// The executable did not return within the hang limit and was killed.
    Hang,
    /// The function called `exit` with this status.
    Exit(i32),
    /// The function called `abort`.
    Abort,
    /// An `assert` failed.
    AssertFail,
}

impl ResultClass {
    pub fn of(bits: Option<u64>, ret: Type) -> ResultClass {
        let (Some(b), Some(ft)) = (bits, ret.float_ty()) else {
            return ResultClass::Other;
        };
        let v = match ft {
            FloatTy::F64 => f64::from_bits(b),
            FloatTy::F32 => f64::from(f32::from_bits(b as u32)),
        };
        if v.is_nan() {
            ResultClass::Nan
        } else if v == f64::INFINITY {
            ResultClass::PosInf
        } else if v == f64::NEG_INFINITY {
            ResultClass::NegInf
        } else {
            ResultClass::Finite
        }
    }
    /// The class of a run that ended the program.
    pub fn of_end(end: &ProgramEnd) -> ResultClass {
        match end {
            ProgramEnd::Exit { status } => ResultClass::Exit(*status),
            ProgramEnd::Abort => ResultClass::Abort,
            ProgramEnd::AssertFail { .. } => ResultClass::AssertFail,
        }
    }

    /// Whether the program ended instead of returning.
    pub fn is_end(self) -> bool {
        matches!(
            self,
            ResultClass::Exit(_) | ResultClass::Abort | ResultClass::AssertFail
        )
    }

    pub fn name(self) -> String {
        match self {
            ResultClass::Finite => "finite".into(),
            ResultClass::PosInf => "+inf".into(),
            ResultClass::NegInf => "-inf".into(),
            ResultClass::Nan => "nan".into(),
            ResultClass::Other => "other".into(),
            ResultClass::Hang => "hang".into(),
            ResultClass::Exit(status) => format!("exit {status}"),
            ResultClass::Abort => "abort".into(),
            ResultClass::AssertFail => "assert".into(),
        }
    }
}

/// What one build's executable did on one input (native, traced).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Observation {
    pub result: Option<u64>,
    pub class: ResultClass,
    /// How the program ended, when it did not return.
    pub end: Option<ProgramEnd>,
    /// Raised flags without inexact.
    pub flags: ExceptionSet,
    /// The executable's own exception trace: the instructions that raised a flag other
    /// than inexact, in execution order.
    pub trace: NativeTrace,
}

/// A build's observation from an untraced native outcome (no trace); `None` when it
/// crashed.
pub fn plain_observe(o: &NativeOutcome, ret: Type) -> Option<Observation> {
    match o {
        NativeOutcome::Returned { result, flags, .. } => Some(Observation {
            result: *result,
            class: ResultClass::of(*result, ret),
            end: None,
            flags: flags.without_inexact(),
            trace: NativeTrace::default(),
        }),
        NativeOutcome::Ended { end, flags, .. } => Some(Observation {
            result: None,
            class: ResultClass::of_end(end),
            end: Some(end.clone()),
            flags: flags.without_inexact(),
            trace: NativeTrace::default(),
        }),
        NativeOutcome::TimedOut => Some(Observation {
            result: None,
            class: ResultClass::Hang,
            end: None,
            flags: ExceptionSet::EMPTY,
            trace: NativeTrace::default(),
        }),
        NativeOutcome::Crashed { .. } => None,
    }
}

/// A build's observation from its traced native outcome; `None` when it crashed.
pub fn native_observe(t: &TracedOutcome, ret: Type) -> Option<Observation> {
    let mut o = plain_observe(&t.outcome, ret)?;
    o.trace = NativeTrace {
        events: t
            .trace
            .events
            .iter()
            .filter(|e| !e.flags.without_inexact().is_empty())
            .cloned()
            .collect(),
        truncated: t.trace.truncated,
    };
    Some(o)
}
