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
    /// Mode-specific facts (class of an exception, ulps between builds…), under the
    /// JSON key `properties` that SARIF results also use.
    #[serde(rename = "properties", default)]
    pub detail: Detail,
    /// What a `reach` witness does, for reproducers to check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached: Option<Reached>,
    /// The `fpscout run` command that replays the witness from the directory fpscout ran
    /// in (see [`crate::replay`]); `None` in findings files of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
}

/// The facts one mode adds to a finding. In JSON it is a plain object (or `null`):
/// which mode wrote it is the finding's `mode`, and each variant's fields are disjoint
/// enough to be told apart, so old findings files read back unchanged.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Detail {
    Exceptions(ExceptionsDetail),
    Diff(DiffDetail),
    Error(ErrorDetail),
    Reach(ReachDetail),
    #[default]
    None,
}

/// An exception at one operation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExceptionsDetail {
    /// The operation as the IR names it (`fmul`, `llvm.exp.f64`…): the one at the
    /// location that maps to the instruction that raised it and can raise its kind.
    pub operation: String,
    /// The machine instruction the executable's trace names (`mulsd`, `call exp`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub instruction: String,
    /// Whether rewriting could avoid it: `potentially_avoidable`, `inherent`, `unknown`,
    /// `not_applicable`.
    pub class: String,
    /// Distinct inputs seen raising it.
    pub inputs_seen: usize,
    /// What produced the witness: `z3`, `fallback`, `float_solver`, `seed`, `random`.
    pub source: String,
}

/// A difference between P and P'.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffDetail {
    /// Ulps between the two results, when both are numbers.
    pub ulps: Option<u64>,
    /// The difference is only flush-to-zero / denormals-are-zero at work.
    pub ftz_only: bool,
    /// The interpreter's model of both builds agrees with the executables.
    pub model_agrees: bool,
    /// A fast-math assumption (`nnan`, `ninf`) the input breaks, where P' has one.
    pub fast_math_note: Option<String>,
    /// The fast-math sub-options P' needs to show it (`[]`: none), when attributed.
    #[serde(default)]
    pub attribution: Option<Vec<String>>,
}

/// The worst input of an `error` run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorDetail {
    #[serde(deserialize_with = "nan_if_null")]
    pub max_rel_error: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub ulps: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub bits: f64,
    /// Which value was measured: the result, or an element of an array parameter.
    pub output: String,
    /// The exact (MPFR) value.
    #[serde(deserialize_with = "nan_if_null")]
    pub exact: f64,
    pub native_confirmed: bool,
    /// Each parameter swept through the worst input.
    pub sweeps: Vec<ErrorSweep>,
}

/// Relative errors along one parameter, the others fixed at the worst input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorSweep {
    pub parameter: String,
    /// `[x, relative error]` pairs (JSON has no NaN or infinity: those are `null`).
    #[serde(deserialize_with = "points_nan_if_null")]
    pub points: Vec<[f64; 2]>,
}

/// A `reach` witness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReachDetail {
    /// The target as asked (`a failed assertion`, `a result in [lo, hi]`…).
    pub target: String,
    /// What found the witness.
    pub method: String,
    pub loop_bound: u32,
}

/// serde_json writes a NaN or an infinity as `null`; it reads back as NaN.
fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

fn points_nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<[f64; 2]>, D::Error> {
    let points = Vec::<[Option<f64>; 2]>::deserialize(d)?;
    Ok(points
        .into_iter()
        .map(|[x, e]| [x.unwrap_or(f64::NAN), e.unwrap_or(f64::NAN)])
        .collect())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(detail: &Detail) -> Detail {
        let text = serde_json::to_string(detail).expect("a detail serializes");
        serde_json::from_str(&text).expect("a detail reads back")
    }

    #[test]
    fn every_detail_reads_back_as_the_variant_it_was() {
        let details = [
            Detail::Exceptions(ExceptionsDetail {
                operation: "fmul".into(),
                instruction: "mulsd".into(),
                class: "inherent".into(),
                inputs_seen: 3,
                source: "z3".into(),
            }),
            Detail::Diff(DiffDetail {
                ulps: Some(4),
                ftz_only: false,
                model_agrees: true,
                fast_math_note: None,
                attribution: None,
            }),
            Detail::Reach(ReachDetail {
                target: "a failed assertion".into(),
                method: "float solver".into(),
                loop_bound: 8,
            }),
            Detail::Error(ErrorDetail {
                max_rel_error: 0.25,
                ulps: 2.0,
                bits: 1.5,
                output: "the result".into(),
                exact: 3.0,
                native_confirmed: true,
                sweeps: vec![ErrorSweep {
                    parameter: "x".into(),
                    points: vec![[1.0, 0.5], [2.0, 1e-16]],
                }],
            }),
            Detail::None,
        ];
        for d in &details {
            assert_eq!(&round_trip(d), d);
        }
    }

    #[test]
    fn a_non_finite_error_value_is_null_in_json_and_nan_read_back() {
        let detail = Detail::Error(ErrorDetail {
            max_rel_error: f64::INFINITY,
            ulps: f64::NAN,
            bits: 64.0,
            output: "the result".into(),
            exact: 0.0,
            native_confirmed: false,
            sweeps: vec![ErrorSweep {
                parameter: "x".into(),
                points: vec![[f64::NEG_INFINITY, 1.0]],
            }],
        });
        let text = serde_json::to_string(&detail).expect("serializes");
        assert!(text.contains("\"max_rel_error\":null"), "{text}");
        let Detail::Error(back) = serde_json::from_str(&text).expect("reads back") else {
            panic!("not read back as an error detail: {text}");
        };
        assert!(back.max_rel_error.is_nan() && back.ulps.is_nan());
        assert_eq!(back.bits, 64.0);
        assert!(back.sweeps[0].points[0][0].is_nan());
        assert_eq!(back.sweeps[0].points[0][1], 1.0);
    }

    #[test]
    fn findings_of_an_earlier_version_read_back_typed() {
        // As fpscout wrote an exceptions finding's properties before they were typed.
        let old = r#"{"operation":"fdiv","class":"potentially_avoidable","inputs_seen":12,"source":"float_solver"}"#;
        let detail: Detail = serde_json::from_str(old).expect("reads");
        let Detail::Exceptions(x) = detail else {
            panic!("{detail:?}")
        };
        assert_eq!(
            (
                x.operation.as_str(),
                x.class.as_str(),
                x.inputs_seen,
                x.source.as_str()
            ),
            ("fdiv", "potentially_avoidable", 12, "float_solver")
        );
    }
}
