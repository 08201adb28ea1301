//! One model of what a search found — rule, place, witness inputs, the builds' exception
//! traces — which the printers that serve every mode (SARIF, reproducers) read.

use crate::diff::{DiffKind, DiffReport};
use crate::error::ErrorReport;
use crate::exceptions::ExceptionsReport;
use crate::observe::{Observation, ResultClass};
use crate::reach::{ReachReport, Target};
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

    fn of_exception(kind: ExceptionKind) -> Option<Rule> {
        match kind {
            ExceptionKind::Overflow => Some(Rule::Overflow),
            ExceptionKind::Underflow => Some(Rule::Underflow),
            ExceptionKind::DivByZero => Some(Rule::DivideByZero),
            ExceptionKind::Invalid => Some(Rule::Invalid),
            ExceptionKind::Inexact => None,
        }
    }

    fn of_difference(kind: DiffKind) -> Rule {
        match kind {
            DiffKind::Flags => Rule::FastMathFlagsDiffer,
            DiffKind::Trace => Rule::FastMathTraceDiffers,
            DiffKind::Class => Rule::FastMathResultClassDiffers,
            DiffKind::End => Rule::FastMathEndDiffers,
            DiffKind::Termination => Rule::FastMathTerminationDiffers,
            DiffKind::Ulps => Rule::FastMathResultDiffers,
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

/// The finding of a reachable `reach` answer.
pub fn from_reach(report: &ReachReport) -> Vec<Finding> {
    let Some(w) = &report.witness else {
        return Vec::new();
    };
    let (rule, reached) = match (report.target, &w.end) {
        (Target::FailedAssertion, Some(fpscout_ir::ProgramEnd::Exit { status })) => {
            (Rule::AssertionReachable, Reached::Exits { status: *status })
        }
        (Target::FailedAssertion, _) => (Rule::AssertionReachable, Reached::Aborts),
        (Target::ResultInside(lo, hi), _) => (
            Rule::OutputInRange,
            Reached::ResultInside {
                lo: lo.to_bits(),
                hi: hi.to_bits(),
            },
        ),
        (Target::ResultOutside(lo, hi), _) => (
            Rule::OutputOutsideRange,
            Reached::ResultOutside {
                lo: lo.to_bits(),
                hi: hi.to_bits(),
            },
        ),
    };
    let returned = w.end.is_none();
    vec![Finding {
        mode: Mode::Reach,
        rule,
        also: Vec::new(),
        function: report.function.clone(),
        symbol: report.symbol.clone(),
        message: format!(
            "{} reaches {} in build {}: the executable {}",
            report.function,
            report.target.describe(),
            report.build,
            w.native
        ),
        location: w.loc.clone(),
        input: w.inputs.clone(),
        params: report.params.clone(),
        ret: report.ret,
        runs: vec![BuildRun {
            build: report.build.to_string(),
            outcome: w.native.clone(),
            returned,
            result: w.result.filter(|_| returned),
            flags: ExceptionSet::EMPTY,
            trace: Vec::new(),
        }],
        properties: serde_json::json!({
            "target": report.target.describe(),
            "method": report.method,
            "loop_bound": report.loop_bound,
        }),
        reached: Some(reached),
    }]
}

fn result_text(o: &Observation, ret: Type) -> String {
    match (o.result, o.class) {
        (Some(bits), ResultClass::Finite | ResultClass::PosInf | ResultClass::NegInf) => {
            crate::run::format_value(bits, ret).0
        }
        (_, class) => format!("{class:?}").to_lowercase(),
    }
}

fn steps_of(trace: &fpscout_native::NativeTrace) -> Vec<Step> {
    trace
        .events
        .iter()
        .map(|e| Step {
            location: e.loc.clone(),
            message: format!("{} raises {}", e.describe_insn(), e.flags.without_inexact()),
        })
        .collect()
}

/// Whether a run of this class returned from the call.
fn returned(class: ResultClass) -> bool {
    !class.is_end() && class != ResultClass::Hang
}

fn build_run(build: &str, o: &Observation, ret: Type) -> BuildRun {
    BuildRun {
        build: build.to_string(),
        outcome: result_text(o, ret),
        returned: returned(o.class),
        result: o.result.filter(|_| returned(o.class)),
        flags: o.flags,
        trace: steps_of(&o.trace),
    }
}

/// The findings of an exceptions run (each a confirmed (location, kind)).
pub fn from_exceptions(report: &ExceptionsReport) -> Vec<Finding> {
    report
        .findings
        .iter()
        .filter_map(|x| {
            let rule = Rule::of_exception(x.kind)?;
            let witness = x.witnesses.first()?;
            let place = x
                .location
                .as_ref()
                .map_or("an operation without a source line".to_string(), |l| {
                    l.to_string()
                });
            let class = x.class.describe();
            Some(Finding {
                mode: Mode::Exceptions,
                rule,
                also: Vec::new(),
                function: report.summary.function.clone(),
                symbol: report.symbol.clone(),
                message: format!(
                    "{} {} at {place}{}{}",
                    x.operation,
                    x.kind.name(),
                    x.in_function
                        .as_ref()
                        .filter(|f| **f != report.summary.function)
                        .map(|f| format!(" in {f}"))
                        .unwrap_or_default(),
                    if class.is_empty() {
                        String::new()
                    } else {
                        format!(" ({class})")
                    }
                ),
                location: x.location.clone(),
                input: witness.input.clone(),
                params: report.params.clone(),
                ret: report.ret,
                runs: vec![BuildRun {
                    build: report.summary.build.clone(),
                    outcome: witness
                        .result
                        .map(|b| crate::run::format_value(b, report.ret).0)
                        .unwrap_or_else(|| format!("{:?}", witness.class).to_lowercase()),
                    returned: returned(witness.class),
                    result: witness.result.filter(|_| returned(witness.class)),
                    flags: x.trace.events.iter().fold(ExceptionSet::EMPTY, |all, e| {
                        all.union(e.flags.without_inexact())
                    }),
                    trace: steps_of(&x.trace),
                }],
                properties: serde_json::json!({
                    "operation": x.operation,
                    "class": x.class,
                    "inputs_seen": x.inputs_seen,
                    "source": witness.source,
                }),
                reached: None,
            })
        })
        .collect()
}

/// The confirmed findings of a diff run.
pub fn from_diff(report: &DiffReport) -> Vec<Finding> {
    report
        .findings
        .iter()
        .filter(|x| x.confirmed)
        .filter_map(|x| {
            let mut rules: Vec<Rule> = x.kinds.iter().map(|k| Rule::of_difference(*k)).collect();
            rules.sort();
            let rule = *rules.first()?;
            // Where the traces part: the first step of either that the other lacks.
            let steps = |o: &Observation| -> Vec<(Option<SourceLoc>, ExceptionSet)> {
                o.trace
                    .events
                    .iter()
                    .map(|e| (e.loc.clone(), e.flags.without_inexact()))
                    .collect()
            };
            let (p, q) = (steps(&x.p), steps(&x.p_prime));
            let parting = p
                .iter()
                .zip(&q)
                .find(|(a, b)| a != b)
                .map(|(a, _)| a.0.clone())
                .or_else(|| {
                    p.get(q.len())
                        .or_else(|| q.get(p.len()))
                        .map(|s| s.0.clone())
                })
                .flatten();
            Some(Finding {
                mode: Mode::Diff,
                rule,
                also: rules[1..].to_vec(),
                function: report.summary.function.clone(),
                symbol: report.symbol.clone(),
                message: format!(
                    "P and P' differ ({}): P {} raising {}, P' {} raising {}",
                    rules.iter().map(|r| r.id()).collect::<Vec<_>>().join(", "),
                    result_text(&x.p, report.ret),
                    x.p.flags,
                    result_text(&x.p_prime, report.ret),
                    x.p_prime.flags
                ),
                location: parting,
                input: x.input.clone(),
                params: report.params.clone(),
                ret: report.ret,
                runs: vec![
                    build_run("P", &x.p, report.ret),
                    build_run("P'", &x.p_prime, report.ret),
                ],
                properties: serde_json::json!({
                    "ulps": x.ulps,
                    "ftz_only": x.ftz_only,
                    "model_agrees": x.model_agrees,
                    "fast_math_note": x.fast_math_note,
                }),
                reached: None,
            })
        })
        .collect()
}

/// The worst input of an error run, when there is one with a nonzero error.
pub fn from_error(report: &ErrorReport) -> Vec<Finding> {
    let Some((input, m)) = &report.worst else {
        return Vec::new();
    };
    if m.rel_error <= 0.0 {
        return Vec::new();
    }
    let native = report.native.as_ref();
    let result = native.and_then(|n| n.bits);
    let location = report.diagnosis.first().and_then(|d| d.location.clone());
    vec![Finding {
        mode: Mode::Error,
        rule: Rule::MaxError,
        also: Vec::new(),
        function: report.function.clone(),
        symbol: report.symbol.clone(),
        message: format!(
            "relative error {:.3e} ({:.1} bits, {:.3e} ulps) at {}: computed {}, exact {:e}{}",
            m.rel_error,
            m.bits,
            m.ulps,
            m.place,
            crate::args::decimal(m.float_bits, m.ty),
            m.exact,
            location
                .as_ref()
                .map(|l| format!("; accuracy lost most at {l}"))
                .unwrap_or_default()
        ),
        location,
        input: input.clone(),
        params: report.params.clone(),
        ret: report.ret,
        runs: vec![BuildRun {
            build: report.build.label().to_string(),
            outcome: crate::args::decimal(m.float_bits, m.ty),
            returned: native.is_some_and(|n| n.bits.is_some()),
            result: result.filter(|_| m.place == crate::error::OutputPlace::Returned),
            flags: ExceptionSet::EMPTY,
            trace: Vec::new(),
        }],
        reached: None,
        properties: serde_json::json!({
            "max_rel_error": m.rel_error,
            "ulps": m.ulps,
            "bits": m.bits,
            "output": m.place.to_string(),
            "exact": m.exact,
            "native_confirmed": native.is_some_and(|n| n.confirmed),
            "sweeps": report.sweeps.iter().map(|s| serde_json::json!({
                "parameter": s.input,
                "points": s.points.iter().map(|(x, e)| [*x, *e]).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        }),
    }]
}
