//! One model of what a search found — rule, place, witness inputs, the builds' exception
//! traces — which the printers that serve every mode (SARIF, reproducers) read.

use fpscout_ir::{ExceptionKind, ExceptionSet, Param, SourceLoc, Type};
use fpscout_walk::concrete::ArgBits;
use serde::{Deserialize, Serialize};

/// The search that produced a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Exceptions,
    Diff,
    Reach,
    Error,
}

/// What kind of finding it is: one SARIF rule each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Rule {
    Overflow,
    Underflow,
    DivideByZero,
    Invalid,
    FastMathFlagsDiffer,
    FastMathTraceDiffers,
    FastMathResultClassDiffers,
    FastMathEndDiffers,
    FastMathTerminationDiffers,
    FastMathResultDiffers,
    AssertionReachable,
    OutputInRange,
    OutputOutsideRange,
    MaxError,
}

impl Rule {
    pub const ALL: [Rule; 14] = [
        Rule::Overflow,
        Rule::Underflow,
        Rule::DivideByZero,
        Rule::Invalid,
        Rule::FastMathFlagsDiffer,
        Rule::FastMathTraceDiffers,
        Rule::FastMathResultClassDiffers,
        Rule::FastMathEndDiffers,
        Rule::FastMathTerminationDiffers,
        Rule::FastMathResultDiffers,
        Rule::AssertionReachable,
        Rule::OutputInRange,
        Rule::OutputOutsideRange,
        Rule::MaxError,
    ];

    /// The stable identifier (SARIF `ruleId`).
    pub fn id(self) -> &'static str {
        match self {
            Rule::Overflow => "overflow",
            Rule::Underflow => "underflow",
            Rule::DivideByZero => "divide-by-zero",
            Rule::Invalid => "invalid",
            Rule::FastMathFlagsDiffer => "fast-math-flags-differ",
            Rule::FastMathTraceDiffers => "fast-math-trace-differs",
            Rule::FastMathResultClassDiffers => "fast-math-result-class-differs",
            Rule::FastMathEndDiffers => "fast-math-end-differs",
            Rule::FastMathTerminationDiffers => "fast-math-termination-differs",
            Rule::FastMathResultDiffers => "fast-math-result-differs",
            Rule::AssertionReachable => "assertion-reachable",
            Rule::OutputInRange => "output-in-range",
            Rule::OutputOutsideRange => "output-outside-range",
            Rule::MaxError => "max-error",
        }
    }

    /// One sentence on what the rule reports.
    pub fn description(self) -> &'static str {
        match self {
            Rule::Overflow => "A floating-point operation overflows: its exact result is beyond the largest finite float.",
            Rule::Underflow => "A floating-point operation underflows: its result is tiny (subnormal or zero) and inexact.",
            Rule::DivideByZero => "A floating-point operation divides a nonzero number by zero (or takes a pole of a function).",
            Rule::Invalid => "A floating-point operation is invalid (0/0, inf-inf, sqrt or log of a negative number, an out-of-range conversion) and yields NaN.",
            Rule::FastMathFlagsDiffer => "The build without optimisation (P) and the fast-math build (P') raise different floating-point exceptions on the same input.",
            Rule::FastMathTraceDiffers => "P and P' raise exceptions in a different sequence on the same input.",
            Rule::FastMathResultClassDiffers => "P and P' return results of different classes (finite, infinite, NaN) on the same input.",
            Rule::FastMathEndDiffers => "One build ends the program (exit, abort, failed assertion) where the other returns or ends it otherwise.",
            Rule::FastMathTerminationDiffers => "One build does not terminate within the time limit where the other returns.",
            Rule::FastMathResultDiffers => "P and P' return finite results more ulps apart than the tolerance.",
            Rule::AssertionReachable => "An input makes an assertion fail (assert, reach_error, __VERIFIER_error).",
            Rule::OutputInRange => "An input drives the function's float result into the interval asked about.",
            Rule::OutputOutsideRange => "An input drives the function's float result outside the interval asked about (CPBPV_FP's suspicious values).",
            Rule::MaxError => "The most inaccurate result found: its relative error against a high-precision (MPFR) run of the same computation.",
        }
    }

    pub fn of_exception(kind: ExceptionKind) -> Option<Rule> {
        match kind {
            ExceptionKind::Overflow => Some(Rule::Overflow),
            ExceptionKind::Underflow => Some(Rule::Underflow),
            ExceptionKind::DivByZero => Some(Rule::DivideByZero),
            ExceptionKind::Invalid => Some(Rule::Invalid),
            ExceptionKind::Inexact => None,
        }
    }
}

/// One step of an exception trace: where an instruction raised which flags.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub location: Option<SourceLoc>,
    pub message: String,
}

/// One build's run on the witness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BuildRun {
    /// `P` or `P'`.
    pub build: String,
    /// The result as printed, or how the run ended.
    pub outcome: String,
    /// Whether the call returned (rather than ending the program or not terminating).
    pub returned: bool,
    /// The returned bits (f32 in the low 32, integers zero-extended); `None` for `void`
    /// or a call that did not return.
    pub result: Option<u64>,
    /// The flags raised, inexact aside.
    pub flags: ExceptionSet,
    /// The executable's exception trace.
    pub trace: Vec<Step>,
}

/// A confirmed finding of any mode. It travels between processes as JSON (the workers
/// of a whole-file `exceptions`), so every field is (de)serialized.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Finding {
    pub mode: Mode,
    pub rule: Rule,
    /// Other rules the same input breaks (a difference in flags and in class).
    pub also: Vec<Rule>,
    pub function: String,
    /// The function's linker symbol (mangled for C++), for code that calls it.
    pub symbol: String,
    pub message: String,
    /// Where it happens: the operation (exceptions), or the first step where the builds'
    /// traces part (diff).
    pub location: Option<SourceLoc>,
    /// The witness input.
    pub input: Vec<ArgBits>,
    /// The function's parameters and return type, to print the input and result.
    pub params: Vec<Param>,
    pub ret: Type,
    /// What each build did on the witness.
    pub runs: Vec<BuildRun>,
    /// Mode-specific facts (class of an exception, ulps between builds…).
    pub properties: serde_json::Value,
    /// What a `reach` witness does, for reproducers to check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
}

/// What a `reach` witness does on the executable. Bounds are f64 bits (JSON has no
/// infinities).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reached {
    /// The run ends the program by `abort` (a failed assertion aborts too).
    Aborts,
    /// The run ends the program with `exit(status)`.
    Exits { status: i32 },
    /// The result lies in `[lo, hi]`.
    ResultInside { lo: u64, hi: u64 },
    /// The result is ordered and below `lo` or above `hi`.
    ResultOutside { lo: u64, hi: u64 },
}
