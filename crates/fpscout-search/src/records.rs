//! The `--json` records of every command: typed, versioned (`JSON_FORMAT`) and built from the modes' reports, so that the binary only serialises them, one per line.

use crate::attribution::{FileSafeFlags, FunctionSafeSet};
use crate::diff::{DiffConfig, DiffReport};
use crate::error::ErrorReport;
use crate::exceptions::ExceptionsReport;
use crate::observe::{Observation, ResultClass};
use crate::origin::Origin;
use crate::reach::{ReachAnswer, ReachReport};
use crate::run::{format_value, native_trace_records, ExceptionRecord, RunRecord};
use crate::trace::TraceMatch;
use crate::verdict::{self, Coverage, Verdict, Verdicts};
use crate::{diff, exceptions};
use fpscout_ir::{FloatTy, Param, ScalarTy, Type};
use fpscout_report::args::{decimal, hex_float, run_args};
use fpscout_report::replay::Replay;
use fpscout_report::report::{Report, Status};
use fpscout_walk::concrete::ArgBits;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::{BTreeMap, HashMap};

/// The version of these records, in the `format` field of each command's summary
/// records (see [`DiffSummary`], [`ExceptionsSummary`], [`ReachAnswerData`],
/// [`ErrorData`], [`RunData`] and the totals). A change that renames or retypes a field
/// raises it; new fields do not.
pub const JSON_FORMAT: u32 = 2;

// ---------------------------------------------------------------------------------------
// Pieces every command's records share.

/// A number JSON can carry even when infinite or NaN: finite values as numbers, the others
/// as the strings `"inf"`, `"-inf"`, `"nan"` (`null` would read as "not measured").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnyF64(pub f64);

impl Serialize for AnyF64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            x if x.is_finite() => s.serialize_f64(x),
            x if x.is_nan() => s.serialize_str("nan"),
            x if x > 0.0 => s.serialize_str("inf"),
            _ => s.serialize_str("-inf"),
        }
    }
}

impl<'de> Deserialize<'de> for AnyF64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Number(f64),
            Text(String),
        }
        match Written::deserialize(d)? {
            Written::Number(x) => Ok(AnyF64(x)),
            Written::Text(t) => match t.as_str() {
                "inf" => Ok(AnyF64(f64::INFINITY)),
                "-inf" => Ok(AnyF64(f64::NEG_INFINITY)),
                "nan" => Ok(AnyF64(f64::NAN)),
                other => Err(serde::de::Error::custom(format!(
                    "expected a number, \"inf\", \"-inf\" or \"nan\", got \"{other}\""
                ))),
            },
        }
    }
}

/// One parameter's value in an input: `value` for a number, `values` for an array.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Input {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<InputValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<InputValue>>,
}

/// A number of an input: a float in hex and decimal, an integer, or other bits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum InputValue {
    Float { hex: String, decimal: String },
    Int { int: i64 },
    Bits { bits: String },
}

/// An input of a function with parameters `params`, as the records show it.
pub fn inputs(params: &[Param], input: &[ArgBits]) -> Vec<Input> {
    params
        .iter()
        .zip(input)
        .map(|(p, a)| {
            let elem = match (p.ty, p.pointee) {
                (Type::Scalar(s), _) if s != ScalarTy::Ptr => s,
                (_, Some(e)) => e,
                _ => ScalarTy::Float(FloatTy::F64),
            };
            let one = |b: u64| match elem {
                ScalarTy::Float(ft) => InputValue::Float {
                    hex: hex_float(b, ft),
                    decimal: decimal(b, ft),
                },
                ScalarTy::Int(w) => InputValue::Int {
                    int: fpscout_ir::sign_extend(b, w),
                },
                ScalarTy::Ptr => InputValue::Bits {
                    bits: format!("{b:#x}"),
                },
            };
            let (value, values) = match a {
                ArgBits::Scalar(b) => (Some(one(*b)), None),
                ArgBits::Array(v) => (None, Some(v.iter().map(|&b| one(b)).collect())),
            };
            Input {
                name: p.name.clone(),
                value,
                values,
            }
        })
        .collect()
}

/// One step of an executable's own exception trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NativeTraceEvent {
    /// `overflow`, `underflow`, `invalid`, `divbyzero`.
    pub kind: String,
    /// The instruction mnemonic, `call exp` for a flag raised inside libm, `x87`.
    pub insn: String,
    pub addr: Option<String>,
    pub loc: Option<String>,
}

fn native_trace(trace: &fpscout_native::NativeTrace) -> Vec<NativeTraceEvent> {
    native_trace_records(trace)
        .into_iter()
        .map(|e| NativeTraceEvent {
            kind: e.kind.to_string(),
            insn: e.insn,
            addr: e.addr,
            loc: e.loc,
        })
        .collect()
}

/// A function of a whole-file run that was not analysed (an FPCore that could not be
/// translated, a function skipped or failed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unsupported {
    pub function: String,
    pub reason: String,
}

/// The `{"type":"unsupported"}` record, the same in every command's whole-file run.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum UnsupportedLine {
    Unsupported(Unsupported),
}

impl UnsupportedLine {
    pub fn new(function: &str, reason: &str) -> UnsupportedLine {
        UnsupportedLine::Unsupported(Unsupported {
            function: function.to_string(),
            reason: reason.to_string(),
        })
    }
}

/// The verdict against `--baseline`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub known: usize,
    pub new: usize,
    /// Findings of the baseline this run did not see.
    pub gone: usize,
    pub findings: Vec<BaselineFinding>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineFinding {
    pub fingerprint: String,
    pub status: Status,
    pub function: String,
    /// The SARIF rule id (`overflow`, `fast-math-flags-differ`...).
    pub rule: String,
}

/// The `{"type":"baseline"}` record every finding command writes with `--baseline`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum BaselineLine {
    Baseline(Baseline),
}

impl From<&Report> for BaselineLine {
    fn from(report: &Report) -> BaselineLine {
        BaselineLine::Baseline(Baseline {
            known: report.count(Status::Known),
            new: report.count(Status::New),
            gone: report.gone,
            findings: report
                .findings
                .iter()
                .map(|(m, s)| BaselineFinding {
                    fingerprint: m.keyed.fingerprint.clone(),
                    status: *s,
                    function: m.keyed.finding.function.clone(),
                    rule: m.keyed.finding.rule.id().to_string(),
                })
                .collect(),
        })
    }
}

/// Progress of `diff` and `exceptions` on one function (stderr, at most once a second).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchProgress {
    pub phase: String,
    pub done: u64,
    pub total: u64,
    pub elapsed_s: f64,
    /// Of the time budget.
    pub left_s: f64,
}

/// Progress of `error` (stderr, at most once a second).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorSearchProgress {
    pub evaluations: u64,
    pub best_rel_error: AnyF64,
    pub best_bits: AnyF64,
    pub elapsed_s: f64,
}

/// The `{"type":"progress"}` records on stderr.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum ProgressLine {
    Progress(SearchProgress),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum ErrorProgressLine {
    Progress(ErrorSearchProgress),
}

/// What the functions of a whole-file run add up to: each function's part (passed from
/// the worker processes as JSON), then the `{"type":"total"}` record.
pub trait Total: Default + Serialize + DeserializeOwned {
    /// The command's record type, of which the total is one.
    type Line: Serialize;
    /// Adds one function's part.
    fn add(&mut self, one: Self);
    /// How many functions ended with each verdict (the run's exit code).
    fn verdicts(&self) -> Verdicts;
    /// The total record of a run of `analysed` functions and `not_analysed` others.
    fn line(self, analysed: usize, not_analysed: usize) -> Self::Line;
}

// ---------------------------------------------------------------------------------------
// `run --json`

/// `run --json`: one record per build, P then P'.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum RunLine {
    Run(RunData),
}

/// One build's run of `fpscout run` (see `docs/formats.md`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunData {
    pub format: u32,
    pub build: String,
    pub compiler_flags: String,
    pub function: String,
    pub ftz_daz: bool,
    pub end: String,
    pub detail: Option<String>,
    pub result: Option<String>,
    pub result_decimal: Option<String>,
    pub exceptions: Vec<ExceptionEvent>,
    pub flags: Vec<String>,
    pub native_end: String,
    pub native_result: Option<String>,
    pub native_flags: Vec<String>,
    pub native_trace: Vec<NativeTraceEvent>,
    pub native_trace_truncated: bool,
    pub trace_match: TraceMatch,
    pub arrays: Vec<Vec<String>>,
    pub agrees: bool,
    pub native_note: Option<String>,
    pub fast_math_note: Option<String>,
    pub backend_rewrites: Vec<String>,
}

/// One exception event of the interpreter's trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExceptionEvent {
    pub kind: String,
    /// The stable id of the floating-point operation in that build.
    pub op: u32,
    pub opcode: String,
    pub lane: u32,
    pub function: String,
    pub loc: Option<String>,
}

impl From<&ExceptionRecord> for ExceptionEvent {
    fn from(e: &ExceptionRecord) -> ExceptionEvent {
        ExceptionEvent {
            kind: e.kind.to_string(),
            op: e.op,
            opcode: e.opcode.clone(),
            lane: e.lane,
            function: e.function.clone(),
            loc: e.loc.clone(),
        }
    }
}

fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

impl From<&RunRecord> for RunLine {
    fn from(r: &RunRecord) -> RunLine {
        let native_trace = r
            .native_trace
            .iter()
            .map(|e| NativeTraceEvent {
                kind: e.kind.to_string(),
                insn: e.insn.clone(),
                addr: e.addr.clone(),
                loc: e.loc.clone(),
            })
            .collect();
        RunLine::Run(RunData {
            format: JSON_FORMAT,
            build: r.build.to_string(),
            compiler_flags: r.compiler_flags.clone(),
            function: r.function.clone(),
            ftz_daz: r.ftz_daz,
            end: r.end.to_string(),
            detail: r.detail.clone(),
            result: r.result.clone(),
            result_decimal: r.result_decimal.clone(),
            exceptions: r.exceptions.iter().map(ExceptionEvent::from).collect(),
            flags: names(&r.flags),
            native_end: r.native_end.clone(),
            native_result: r.native_result.clone(),
            native_flags: names(&r.native_flags),
            native_trace,
            native_trace_truncated: r.native_trace_truncated,
            trace_match: r.trace_match,
            arrays: r.arrays.clone(),
            agrees: r.agrees,
            native_note: r.native_note.clone(),
            fast_math_note: r.fast_math_note.clone(),
            backend_rewrites: r.backend_rewrites.clone(),
        })
    }
}

// ---------------------------------------------------------------------------------------
// `exceptions --json`

/// `exceptions --json`: findings then a summary per function; `unsupported` records and
/// a total in a whole-file run; the baseline's verdict with `--baseline`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
// A record lives only until its line is written: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum ExceptionsLine {
    Finding(ExceptionsFinding),
    Summary(ExceptionsSummary),
    Unsupported(Unsupported),
    Total(ExceptionsTotal),
    Baseline(Baseline),
}

/// An operation that raised an exception on the executable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExceptionsFinding {
    /// Always `exceptions`.
    pub mode: String,
    /// The function analysed.
    pub function: String,
    /// `overflow`, `underflow`, `invalid`, `divbyzero`.
    pub kind: String,
    /// `file:line:col`, and its parts.
    pub location: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub col: Option<u32>,
    /// As the IR names it: `fadd`, `llvm.exp.f64`... (the operation at the location
    /// that the raising instruction computes and that can raise the kind).
    pub operation: String,
    /// The machine instruction that raised it, as the executable's trace names it:
    /// `mulsd`, `call exp`.
    #[serde(default)]
    pub instruction: String,
    /// The function the operation is in.
    pub in_function: Option<String>,
    pub class: Avoidability,
    /// Whether a solver target aimed at this operation and kind.
    pub targeted: bool,
    /// Distinct inputs seen raising it.
    pub inputs_seen: usize,
    pub witnesses: Vec<ExceptionsWitness>,
    /// The `fpscout run` command that replays the first witness.
    #[serde(default)]
    pub replay: String,
}

/// Whether rewriting the computation could avoid an overflow or underflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Avoidability {
    PotentiallyAvoidable,
    Inherent,
    Unknown,
    NotApplicable,
    /// Against a reference: the mathematical result is an ordinary number there.
    Spurious,
}

/// One input that raised the exception.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExceptionsWitness {
    pub inputs: Vec<Input>,
    /// What `fpscout run --args` takes to replay it.
    pub run_args: String,
    /// The whole `fpscout run` command, from the directory fpscout ran in.
    #[serde(default)]
    pub replay: String,
    pub source: crate::origin::Phase,
    pub result: Option<String>,
    pub result_class: ResultClass,
}

/// The counts of the text report of one function: the mode's own summary, versioned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExceptionsSummary {
    pub format: u32,
    #[serde(flatten)]
    pub counts: exceptions::Summary,
    /// The function's part of the exit-code contract.
    #[serde(default)]
    pub verdict: Verdict,
    /// How much of the function each phase reached.
    #[serde(default)]
    pub coverage: Vec<Coverage>,
}

impl std::ops::Deref for ExceptionsSummary {
    type Target = exceptions::Summary;
    fn deref(&self) -> &exceptions::Summary {
        &self.counts
    }
}

/// The records of one function: its findings, then its summary.
pub fn exceptions_lines(report: &ExceptionsReport, replay: &Replay) -> Vec<ExceptionsLine> {
    let mut lines: Vec<ExceptionsLine> = report
        .findings
        .iter()
        .map(|x| ExceptionsLine::Finding(exceptions_finding(report, x, replay)))
        .collect();
    lines.push(ExceptionsLine::Summary(ExceptionsSummary::from(
        &report.summary,
    )));
    lines
}

fn exceptions_finding(
    report: &ExceptionsReport,
    x: &exceptions::ExceptionFinding,
    replay: &Replay,
) -> ExceptionsFinding {
    let function = &report.summary.function;
    let witnesses: Vec<ExceptionsWitness> = x
        .witnesses
        .iter()
        .map(|w| ExceptionsWitness {
            inputs: inputs(&report.params, &w.input),
            run_args: run_args(&report.params, &w.input),
            replay: replay.command(function, &report.params, &w.input),
            source: w.source,
            result: w.result.map(|b| format_value(b, report.ret).0),
            result_class: w.class,
        })
        .collect();
    ExceptionsFinding {
        mode: "exceptions".to_string(),
        function: report.summary.function.clone(),
        kind: x.kind.name().to_string(),
        location: x.location.as_ref().map(|l| l.to_string()),
        file: x.location.as_ref().map(|l| l.file.clone()),
        line: x.location.as_ref().map(|l| l.line),
        col: x.location.as_ref().map(|l| l.col),
        operation: x.operation.clone(),
        instruction: x.instruction.clone(),
        in_function: x.in_function.clone(),
        class: match x.class {
            exceptions::Avoidability::PotentiallyAvoidable => Avoidability::PotentiallyAvoidable,
            exceptions::Avoidability::Inherent => Avoidability::Inherent,
            exceptions::Avoidability::Unknown => Avoidability::Unknown,
            exceptions::Avoidability::NotApplicable => Avoidability::NotApplicable,
            exceptions::Avoidability::Spurious => Avoidability::Spurious,
        },
        targeted: x.targeted,
        inputs_seen: x.inputs_seen,
        replay: witnesses
            .first()
            .map(|w| w.replay.clone())
            .unwrap_or_default(),
        witnesses,
    }
}

impl From<&exceptions::Summary> for ExceptionsSummary {
    fn from(s: &exceptions::Summary) -> ExceptionsSummary {
        ExceptionsSummary {
            format: JSON_FORMAT,
            counts: s.clone(),
            verdict: verdict::exceptions_verdict(s),
            coverage: verdict::exceptions_coverage(s),
        }
    }
}

/// The total of a whole-file `exceptions` run (each function's part before).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExceptionsTotal {
    pub format: u32,
    /// Functions analysed, and not.
    pub functions: usize,
    pub unsupported: usize,
    pub locations: usize,
    pub pairs: usize,
    pub avoidable: usize,
    pub findings: usize,
    pub z3_sat: usize,
    pub z3_unsat: usize,
    pub z3_unknown: usize,
    pub fallback_sat: usize,
    pub fallback_unknown: usize,
    pub wall_seconds: f64,
    /// Functions by verdict.
    #[serde(default)]
    pub verdicts: Verdicts,
}

impl From<&exceptions::Summary> for ExceptionsTotal {
    fn from(s: &exceptions::Summary) -> ExceptionsTotal {
        ExceptionsTotal {
            locations: s.locations,
            pairs: s.pairs,
            avoidable: s.avoidable,
            findings: s.findings,
            z3_sat: s.queries.z3_sat,
            z3_unsat: s.queries.z3_unsat,
            z3_unknown: s.queries.z3_unknown,
            fallback_sat: s.queries.fallback_sat,
            fallback_unknown: s.queries.fallback_unknown,
            wall_seconds: s.wall_seconds,
            verdicts: Verdicts::of(verdict::exceptions_verdict(s)),
            ..ExceptionsTotal::default()
        }
    }
}

impl Total for ExceptionsTotal {
    type Line = ExceptionsLine;

    fn verdicts(&self) -> Verdicts {
        self.verdicts
    }

    fn add(&mut self, one: Self) {
        self.verdicts.add(one.verdicts);
        self.locations += one.locations;
        self.pairs += one.pairs;
        self.avoidable += one.avoidable;
        self.findings += one.findings;
        self.z3_sat += one.z3_sat;
        self.z3_unsat += one.z3_unsat;
        self.z3_unknown += one.z3_unknown;
        self.fallback_sat += one.fallback_sat;
        self.fallback_unknown += one.fallback_unknown;
        self.wall_seconds += one.wall_seconds;
    }

    fn line(self, analysed: usize, not_analysed: usize) -> ExceptionsLine {
        ExceptionsLine::Total(ExceptionsTotal {
            format: JSON_FORMAT,
            functions: analysed,
            unsupported: not_analysed,
            ..self
        })
    }
}

// ---------------------------------------------------------------------------------------
// `diff --json`

/// `diff --json`: findings, inputs on which neither build terminates, then a summary per
/// function; `unsupported` records and a total in a whole-file run; the baseline's
/// verdict with `--baseline`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum DiffLine {
    Finding(Box<DiffFinding>),
    NonTerminating(NonTerminating),
    Summary(Box<DiffSummary>),
    Unsupported(Unsupported),
    Total(Box<DiffTotal>),
    Baseline(Baseline),
}

/// A difference between P and P' on one input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffFinding {
    pub inputs: Vec<Input>,
    pub kinds: Vec<DiffKind>,
    pub p: BuildObservation,
    pub p_prime: BuildObservation,
    /// Between the two results, when both are numbers.
    pub ulps: Option<u64>,
    pub origin: Origin,
    pub confirmed: bool,
    pub model_agrees: bool,
    /// Why the interpreter did not replay the input (then `model_agrees` is false
    /// without a disagreement).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_unchecked: Option<String>,
    pub fast_math_note: Option<String>,
    pub unconfirmed_reason: Option<String>,
    pub ftz_only: bool,
    /// The `fpscout run` command that replays it, from the directory fpscout ran in.
    #[serde(default)]
    pub replay: String,
    /// Both results against the reference (`--reference`, an FPCore's body): ulps of
    /// each build from the correctly rounded mathematical value, and the closer build.
    #[serde(default)]
    pub reference: Option<DiffAgainstReference>,
    /// The fast-math sub-options P' needs to show it (`[]`: none), as clang spells them
    /// without the dash, `ftz-daz` for the start-up flush; when P' is a fast-math build.
    #[serde(default)]
    pub attribution: Option<Vec<String>>,
    /// Other single sub-options that show it alone (the attribution names the first).
    #[serde(default)]
    pub attribution_alone: Vec<String>,
    /// Why a confirmed finding has no attribution.
    #[serde(default)]
    pub attribution_note: Option<String>,
}

/// Two builds' results against the mathematical function at one input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffAgainstReference {
    pub exact: AnyF64,
    pub p_ulps: AnyF64,
    pub p_prime_ulps: AnyF64,
    /// `P`, `P'` or `tie`.
    pub closer: String,
}

/// The kinds of difference (docs/diff.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffKind {
    Flags,
    Trace,
    Class,
    Termination,
    End,
    Ulps,
}

/// What one build's executable did on the input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BuildObservation {
    pub result: Option<String>,
    pub result_decimal: Option<String>,
    /// `finite`, `+inf`, `nan`, `hang`...
    pub class: String,
    /// How the program ended, when it did not return.
    pub end: Option<String>,
    pub flags: Vec<String>,
    pub native_trace: Vec<NativeTraceEvent>,
    pub native_trace_truncated: bool,
}

/// An input on which neither build terminates within `limit_ms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NonTerminating {
    pub inputs: Vec<Input>,
    pub builds: Vec<String>,
    pub limit_ms: u64,
}

/// The counts of one function's `diff` (see `docs/formats.md`): the mode's own summary,
/// versioned, with its worst input named and the ranges searched.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffSummary {
    pub format: u32,
    #[serde(flatten)]
    pub counts: diff::Summary,
    pub worst: Option<DiffWorst>,
    /// The ranges searched, by parameter: `[lo, hi]`.
    pub ranges: BTreeMap<String, (AnyF64, AnyF64)>,
    /// The function's part of the exit-code contract.
    #[serde(default)]
    pub verdict: Verdict,
    /// How much of the function each phase reached.
    #[serde(default)]
    pub coverage: Vec<Coverage>,
}

impl std::ops::Deref for DiffSummary {
    type Target = diff::Summary;
    fn deref(&self) -> &diff::Summary {
        &self.counts
    }
}

/// The largest |P − P'| found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffWorst {
    pub inputs: Vec<Input>,
    /// Both results, hex floats.
    pub p: String,
    pub p_prime: String,
    pub ulps: u64,
    pub exact: Option<String>,
    /// `P`, `P'` or `tie`.
    pub closer: Option<String>,
    /// The `fpscout run` command that replays it.
    #[serde(default)]
    pub replay: String,
}

/// The records of one function: its findings (confirmed ones only unless
/// `show_unconfirmed`), its non-terminating inputs, its summary.
pub fn diff_lines(
    report: &DiffReport,
    cfg: &DiffConfig,
    show_unconfirmed: bool,
    replay: &Replay,
) -> Vec<DiffLine> {
    let mut lines: Vec<DiffLine> = report
        .findings
        .iter()
        .filter(|x| x.confirmed || show_unconfirmed)
        .map(|x| DiffLine::Finding(Box::new(diff_finding(report, x, replay))))
        .collect();
    lines.extend(report.non_terminating.iter().map(|input| {
        DiffLine::NonTerminating(NonTerminating {
            inputs: inputs(&report.params, input),
            builds: vec!["P".to_string(), "P'".to_string()],
            limit_ms: report.summary.hang_limit_ms,
        })
    }));
    lines.push(DiffLine::Summary(Box::new(diff_summary(
        report,
        &cfg.common.ranges,
        replay,
    ))));
    lines
}

fn observation(o: &Observation, ret: Type) -> BuildObservation {
    let (result, result_decimal) = match o.result.map(|b| format_value(b, ret)) {
        Some((hex, dec)) => (Some(hex), dec),
        None => (None, None),
    };
    BuildObservation {
        result,
        result_decimal,
        class: o.class.name(),
        end: o.end.as_ref().map(|e| e.to_string()),
        flags: names(&o.flags.names()),
        native_trace: native_trace(&o.trace),
        native_trace_truncated: o.trace.truncated,
    }
}

fn diff_finding(report: &DiffReport, x: &diff::Finding, replay: &Replay) -> DiffFinding {
    let origin = x.origin;
    let kinds = x
        .kinds
        .iter()
        .map(|k| match k {
            diff::DiffKind::Flags => DiffKind::Flags,
            diff::DiffKind::Trace => DiffKind::Trace,
            diff::DiffKind::Class => DiffKind::Class,
            diff::DiffKind::Termination => DiffKind::Termination,
            diff::DiffKind::End => DiffKind::End,
            diff::DiffKind::Ulps => DiffKind::Ulps,
        })
        .collect();
    DiffFinding {
        inputs: inputs(&report.params, &x.input),
        kinds,
        p: observation(&x.p, report.ret),
        p_prime: observation(&x.p_prime, report.ret),
        ulps: x.ulps,
        origin,
        confirmed: x.confirmed,
        model_agrees: x.model_agrees,
        model_unchecked: x.model_unchecked.clone(),
        fast_math_note: x.fast_math_note.clone(),
        unconfirmed_reason: x.unconfirmed_reason.clone(),
        ftz_only: x.ftz_only,
        replay: replay.command(&report.summary.function, &report.params, &x.input),
        reference: x.reference.as_ref().map(|r| DiffAgainstReference {
            exact: r.exact,
            p_ulps: r.p_ulps,
            p_prime_ulps: r.p_prime_ulps,
            closer: r.closer.to_string(),
        }),
        attribution: x
            .attribution
            .as_ref()
            .map(|a| a.iter().map(|n| n.to_string()).collect()),
        attribution_alone: x.attribution_alone.iter().map(|n| n.to_string()).collect(),
        attribution_note: x.attribution_note.clone(),
    }
}

/// The summary of `report`, with the `ranges` it searched.
pub fn diff_summary(
    report: &DiffReport,
    ranges: &HashMap<String, (f64, f64)>,
    replay: &Replay,
) -> DiffSummary {
    let ft = report.ret.float_ty().unwrap_or(FloatTy::F64);
    DiffSummary {
        format: JSON_FORMAT,
        counts: report.summary.clone(),
        worst: report.summary.worst.as_ref().map(|w| DiffWorst {
            inputs: inputs(&report.params, &w.input),
            p: hex_float(w.p, ft),
            p_prime: hex_float(w.p_prime, ft),
            ulps: w.ulps,
            exact: w.exact.clone(),
            closer: w.closer.map(str::to_string),
            replay: replay.command(&report.summary.function, &report.params, &w.input),
        }),
        ranges: ranges
            .iter()
            .map(|(name, (lo, hi))| (name.clone(), (AnyF64(*lo), AnyF64(*hi))))
            .collect(),
        verdict: report.verdict(),
        coverage: verdict::diff_coverage(&report.summary),
    }
}

/// The total of a whole-file `diff` run (each function's part before).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiffTotal {
    pub format: u32,
    /// Functions analysed, and not.
    pub functions: usize,
    pub unsupported: usize,
    /// Functions with a confirmed finding.
    pub with_findings: usize,
    pub findings: usize,
    pub signatures: usize,
    pub wall_seconds: f64,
    /// Functions by verdict.
    #[serde(default)]
    pub verdicts: Verdicts,
    /// The file's safe flag set, when P' is a fast-math build and the attribution ran
    /// (made at the end of the run from `function_safe_sets`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safe_flags: Option<FileSafeFlags>,
    /// Each function's safe set and witnesses, from its run to the file's set (not in
    /// the total record).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub function_safe_sets: Vec<FunctionSafeSet>,
}

impl DiffTotal {
    /// One function's part: its counts, and its safe set with the witnesses it rests on
    /// when the attribution ran.
    pub fn of(report: &diff::DiffReport, attributed: bool) -> DiffTotal {
        let s = &report.summary;
        let function_safe_sets = match &s.safe_flags {
            _ if !attributed => Vec::new(),
            Some(safe) => vec![FunctionSafeSet {
                function: s.function.clone(),
                kept: Some(safe.kept.clone()),
                verified: safe.verified,
                witnesses: confirmed_witnesses(report),
            }],
            None if s.diff_confirmed > 0 => vec![FunctionSafeSet {
                function: s.function.clone(),
                kept: None,
                verified: false,
                witnesses: Vec::new(),
            }],
            None => Vec::new(),
        };
        DiffTotal {
            with_findings: usize::from(s.diff_confirmed > 0),
            findings: s.diff_confirmed,
            signatures: s.signatures,
            wall_seconds: s.wall_seconds,
            verdicts: Verdicts::of(verdict::diff_verdict(s)),
            function_safe_sets,
            ..DiffTotal::default()
        }
    }
}

fn confirmed_witnesses(report: &diff::DiffReport) -> Vec<Vec<ArgBits>> {
    report
        .findings
        .iter()
        .filter(|x| x.confirmed)
        .map(|x| x.input.clone())
        .collect()
}

impl Total for DiffTotal {
    type Line = DiffLine;

    fn verdicts(&self) -> Verdicts {
        self.verdicts
    }

    fn add(&mut self, one: Self) {
        self.verdicts.add(one.verdicts);
        self.with_findings += one.with_findings;
        self.findings += one.findings;
        self.signatures += one.signatures;
        self.wall_seconds += one.wall_seconds;
        self.function_safe_sets.extend(one.function_safe_sets);
    }

    fn line(self, analysed: usize, not_analysed: usize) -> DiffLine {
        DiffLine::Total(Box::new(DiffTotal {
            format: JSON_FORMAT,
            functions: analysed,
            unsupported: not_analysed,
            function_safe_sets: Vec::new(),
            ..self
        }))
    }
}

// ---------------------------------------------------------------------------------------
// `reach --json`

/// `reach --json`: a witness when reachable, then the answer, per function; `unsupported`
/// records and a total in a whole-file run; the baseline's verdict with `--baseline`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum ReachLine {
    Witness(ReachWitness),
    Answer(ReachAnswerData),
    Unsupported(Unsupported),
    Total(ReachTotal),
    Baseline(Baseline),
}

/// An input reaching the target, confirmed on the executable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReachWitness {
    pub function: String,
    pub inputs: Vec<Input>,
    /// What the executable did on it.
    pub native: String,
    /// The `fpscout run` command that replays it, from the directory fpscout ran in.
    #[serde(default)]
    pub replay: String,
}

/// Whether the target is reachable, and how that was decided.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReachAnswerData {
    pub format: u32,
    pub function: String,
    pub build: String,
    pub target: String,
    /// `reachable`, `unreachable`, `unreachable within loop bound`, `unknown`.
    pub answer: String,
    /// Why the answer is unknown.
    pub reason: Option<String>,
    pub method: String,
    pub loop_bound: u32,
    /// Paths cut at the loop bound, for `unreachable within loop bound`.
    pub paths_cut: Option<usize>,
    pub paths: ReachPaths,
    pub solver_nodes: u64,
    pub random_inputs: u64,
    pub exhausted_inputs: u64,
    pub wall_s: f64,
    /// The function's part of the exit-code contract.
    #[serde(default)]
    pub verdict: Verdict,
    /// How much of the function each phase reached.
    #[serde(default)]
    pub coverage: Vec<Coverage>,
}

/// The paths of the exploration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReachPaths {
    pub explored: usize,
    /// Branch directions pruned.
    pub pruned: u64,
    pub target: usize,
    pub infeasible: usize,
    pub unknown: usize,
    pub cut: usize,
}

/// The records of one function: its witness (when reachable), then its answer.
pub fn reach_lines(report: &ReachReport, replay: &Replay) -> Vec<ReachLine> {
    let mut lines = Vec::new();
    if let Some(w) = &report.witness {
        lines.push(ReachLine::Witness(ReachWitness {
            function: report.function.clone(),
            inputs: inputs(&report.params, &w.inputs),
            native: w.native.clone(),
            replay: replay.command(&report.function, &report.params, &w.inputs),
        }));
    }
    let (paths_cut, reason) = match &report.answer {
        ReachAnswer::UnreachableWithinBound { cut, .. } => (Some(*cut), None),
        ReachAnswer::Unknown { reason } => (None, Some(reason.clone())),
        ReachAnswer::Reachable | ReachAnswer::Unreachable => (None, None),
    };
    let p = &report.paths;
    lines.push(ReachLine::Answer(ReachAnswerData {
        format: JSON_FORMAT,
        function: report.function.clone(),
        build: report.build.to_string(),
        target: report.target.describe(),
        answer: report.answer.name().to_string(),
        reason,
        method: report.method.to_string(),
        loop_bound: report.loop_bound,
        paths_cut,
        paths: ReachPaths {
            explored: p.explored,
            pruned: p.pruned,
            target: p.target,
            infeasible: p.infeasible,
            unknown: p.unknown,
            cut: p.cut,
        },
        solver_nodes: report.solver_nodes,
        random_inputs: report.random_inputs,
        exhausted_inputs: report.exhausted_inputs,
        wall_s: report.wall_s,
        verdict: report.verdict(),
        coverage: verdict::reach_coverage(report),
    }));
    lines
}

/// The answers of a whole-file `reach` run (each function's part before).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReachTotal {
    pub format: u32,
    /// Functions analysed, and not.
    pub functions: usize,
    pub unsupported: usize,
    pub reachable: usize,
    pub unreachable: usize,
    pub unknown: usize,
    pub wall_seconds: f64,
    /// Functions by verdict.
    #[serde(default)]
    pub verdicts: Verdicts,
}

impl From<&ReachReport> for ReachTotal {
    fn from(report: &ReachReport) -> ReachTotal {
        let mut total = ReachTotal {
            wall_seconds: report.wall_s,
            verdicts: Verdicts::of(report.verdict()),
            ..ReachTotal::default()
        };
        match report.answer {
            ReachAnswer::Reachable => total.reachable = 1,
            ReachAnswer::Unreachable | ReachAnswer::UnreachableWithinBound { .. } => {
                total.unreachable = 1
            }
            ReachAnswer::Unknown { .. } => total.unknown = 1,
        }
        total
    }
}

impl Total for ReachTotal {
    type Line = ReachLine;

    fn verdicts(&self) -> Verdicts {
        self.verdicts
    }

    fn add(&mut self, one: Self) {
        self.verdicts.add(one.verdicts);
        self.reachable += one.reachable;
        self.unreachable += one.unreachable;
        self.unknown += one.unknown;
        self.wall_seconds += one.wall_seconds;
    }

    fn line(self, analysed: usize, not_analysed: usize) -> ReachLine {
        ReachLine::Total(ReachTotal {
            format: JSON_FORMAT,
            functions: analysed,
            unsupported: not_analysed,
            ..self
        })
    }
}

// ---------------------------------------------------------------------------------------
// `error --json`

/// `error --json`: one record per function; `unsupported` records and a total in a
/// whole-file run; the baseline's verdict with `--baseline`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
// A record lives only until its line is written: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum ErrorLine {
    Error(ErrorData),
    Unsupported(Unsupported),
    Total(ErrorTotal),
    Baseline(Baseline),
}

/// The worst error found in one function; the measured fields are `null` when no input
/// could be measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorData {
    pub format: u32,
    pub function: String,
    pub build: String,
    pub max_rel_error: Option<AnyF64>,
    pub ulps: Option<AnyF64>,
    pub bits: Option<AnyF64>,
    /// `the returned value`, or an element of an array parameter.
    pub output: Option<String>,
    /// The computed result, hex float and bits.
    pub computed: Option<String>,
    pub computed_bits: Option<String>,
    /// The MPFR value, rounded to binary64.
    pub exact: Option<AnyF64>,
    pub inputs: Option<Vec<Input>>,
    pub run_args: Option<String>,
    /// The `fpscout run` command that replays the worst input, from the directory
    /// fpscout ran in.
    #[serde(default)]
    pub replay: Option<String>,
    pub diagnosis: Vec<ErrorDiagnosis>,
    /// Comparisons the exact computation would decide otherwise.
    pub divergences: Vec<Option<String>>,
    pub native: Option<ErrorNative>,
    pub found_by: String,
    pub method: String,
    pub precision: u32,
    pub evaluations: u64,
    pub unmeasured: u64,
    pub first_failure: Option<String>,
    pub wall_seconds: f64,
    /// The function's part of the exit-code contract.
    #[serde(default)]
    pub verdict: Verdict,
    /// How much of the function each phase reached.
    #[serde(default)]
    pub coverage: Vec<Coverage>,
    /// What the errors are measured against: "the same algorithm at 256 bits", or "the
    /// mathematical function EXPR, correctly rounded".
    #[serde(default)]
    pub compared_with: String,
    /// What the search maximised: "relative" error or error in "ulps".
    #[serde(default = "relative_objective")]
    pub objective: String,
    /// The reference expression (`--reference`, or an FPCore input's body).
    #[serde(default)]
    pub reference: Option<String>,
    /// The worst input whose result and exact value are both finite.
    #[serde(default)]
    pub worst_finite: Option<ErrorPoint>,
    /// Distinct inputs whose relative error is above `threshold` (result and exact value
    /// finite), largest first.
    #[serde(default)]
    pub bug_inputs: Vec<ErrorPoint>,
    /// Evaluations above `threshold` (an input counted each time it was measured).
    #[serde(default)]
    pub bug_level_evaluations: u64,
    #[serde(default)]
    pub threshold: Option<AnyF64>,
    /// Inputs the native scan scored against the reference in `long double` (its
    /// highest scores were measured among `evaluations`).
    #[serde(default)]
    pub scanned: u64,
    /// Whether the native scan ran and how it ended, or why not (with a reference).
    #[serde(default)]
    pub scan: Option<String>,
}

/// One measured input, with the same fields as the top-level record's worst input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorPoint {
    pub max_rel_error: AnyF64,
    pub ulps: AnyF64,
    pub bits: AnyF64,
    pub output: String,
    pub computed: String,
    pub computed_bits: String,
    pub exact: AnyF64,
    pub inputs: Vec<Input>,
    pub run_args: String,
    pub replay: String,
}

impl ErrorPoint {
    fn of(
        report: &ErrorReport,
        replay: &Replay,
        (input, m): &(
            Vec<fpscout_walk::concrete::ArgBits>,
            crate::error::ErrorMeasure,
        ),
    ) -> ErrorPoint {
        ErrorPoint {
            max_rel_error: AnyF64(m.rel_error),
            ulps: AnyF64(m.ulps),
            bits: AnyF64(m.bits),
            output: m.place.to_string(),
            computed: hex_float(m.float_bits, m.ty),
            computed_bits: format!("{:#x}", m.float_bits),
            exact: AnyF64(m.exact),
            inputs: inputs(&report.params, input),
            run_args: run_args(&report.params, input),
            replay: replay.command(&report.function, &report.params, input),
        }
    }
}

/// One addition or subtraction where the error arises.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorDiagnosis {
    pub opcode: String,
    pub location: Option<String>,
    pub cancellation_bits: i32,
    pub precision_loss_bits: i32,
    pub occurrences: usize,
    /// The relative error left when this one operation is computed exactly.
    pub error_left: AnyF64,
}

/// The worst input replayed on the executable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorNative {
    pub confirmed: bool,
    pub bits: Option<String>,
    pub detail: String,
}

/// Records written before `objective` existed maximised relative error.
fn relative_objective() -> String {
    "relative".into()
}

impl ErrorLine {
    /// The record of `report`, its worst input replayed by `replay`.
    pub fn of(report: &ErrorReport, replay: &Replay) -> ErrorLine {
        let worst = report.worst.as_ref();
        let diagnosis = report
            .diagnosis
            .iter()
            .map(|d| ErrorDiagnosis {
                opcode: d.opcode.clone(),
                location: d.location.as_ref().map(|l| l.to_string()),
                cancellation_bits: d.cancellation,
                precision_loss_bits: d.precision_loss,
                occurrences: d.occurrences,
                error_left: AnyF64(d.error_left),
            })
            .collect();
        ErrorLine::Error(ErrorData {
            format: JSON_FORMAT,
            function: report.function.clone(),
            build: report.build.to_string(),
            max_rel_error: worst.map(|(_, m)| AnyF64(m.rel_error)),
            ulps: worst.map(|(_, m)| AnyF64(m.ulps)),
            bits: worst.map(|(_, m)| AnyF64(m.bits)),
            output: worst.map(|(_, m)| m.place.to_string()),
            computed: worst.map(|(_, m)| hex_float(m.float_bits, m.ty)),
            computed_bits: worst.map(|(_, m)| format!("{:#x}", m.float_bits)),
            exact: worst.map(|(_, m)| AnyF64(m.exact)),
            inputs: worst.map(|(i, _)| inputs(&report.params, i)),
            run_args: worst.map(|(i, _)| run_args(&report.params, i)),
            replay: worst.map(|(i, _)| replay.command(&report.function, &report.params, i)),
            diagnosis,
            divergences: report
                .divergences
                .iter()
                .map(|l| l.as_ref().map(|l| l.to_string()))
                .collect(),
            native: report.native.as_ref().map(|n| ErrorNative {
                confirmed: n.confirmed,
                bits: n.bits.map(|b| format!("{b:#x}")),
                detail: n.detail.clone(),
            }),
            found_by: report.found_by.to_string(),
            method: report.method.to_string(),
            precision: report.precision,
            evaluations: report.evaluations,
            unmeasured: report.unmeasured,
            first_failure: report.first_failure.clone(),
            wall_seconds: report.wall_s,
            verdict: report.verdict(),
            coverage: verdict::error_coverage(report),
            compared_with: report.compared_with.clone(),
            objective: report.objective.name().to_string(),
            reference: report.reference.clone(),
            worst_finite: report
                .worst_finite
                .as_ref()
                .map(|w| ErrorPoint::of(report, replay, w)),
            bug_inputs: report
                .bug_inputs
                .iter()
                .map(|b| ErrorPoint::of(report, replay, b))
                .collect(),
            bug_level_evaluations: report.bug_level_evaluations,
            threshold: Some(AnyF64(report.threshold)),
            scanned: report.scanned,
            scan: report.scan_note.clone(),
        })
    }
}

/// The total of a whole-file `error` run: the worst of its errors (each function's part
/// before).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorTotal {
    pub format: u32,
    /// Functions analysed, and not.
    pub functions: usize,
    pub unsupported: usize,
    /// Functions with a worst input, and those whose worst input the executable confirmed.
    pub measured: usize,
    pub confirmed: usize,
    /// The function of the largest error (as the text lines name it), and its bits.
    pub worst_function: Option<String>,
    pub worst_bits: Option<AnyF64>,
    pub evaluations: u64,
    pub wall_seconds: f64,
    /// Functions by verdict.
    #[serde(default)]
    pub verdicts: Verdicts,
}

impl ErrorTotal {
    /// The part of `report`, a function the text lines call `label`.
    pub fn of(report: &ErrorReport, label: &str) -> ErrorTotal {
        let worst_bits = report.worst.as_ref().map(|(_, m)| AnyF64(m.bits));
        ErrorTotal {
            measured: usize::from(report.worst.is_some()),
            confirmed: usize::from(report.native.as_ref().is_some_and(|n| n.confirmed)),
            worst_function: worst_bits.map(|_| label.to_string()),
            worst_bits,
            evaluations: report.evaluations,
            wall_seconds: report.wall_s,
            verdicts: Verdicts::of(report.verdict()),
            ..ErrorTotal::default()
        }
    }
}

impl Total for ErrorTotal {
    type Line = ErrorLine;

    fn verdicts(&self) -> Verdicts {
        self.verdicts
    }

    fn add(&mut self, one: Self) {
        self.verdicts.add(one.verdicts);
        self.measured += one.measured;
        self.confirmed += one.confirmed;
        self.evaluations += one.evaluations;
        self.wall_seconds += one.wall_seconds;
        // NaN bits lose to any number; ties keep the first function.
        let worse = match (one.worst_bits, self.worst_bits) {
            (Some(AnyF64(b)), Some(AnyF64(t))) => b > t || (t.is_nan() && !b.is_nan()),
            (Some(_), None) => true,
            (None, _) => false,
        };
        if worse {
            self.worst_bits = one.worst_bits;
            self.worst_function = one.worst_function;
        }
    }

    fn line(self, analysed: usize, not_analysed: usize) -> ErrorLine {
        ErrorLine::Total(ErrorTotal {
            format: JSON_FORMAT,
            functions: analysed,
            unsupported: not_analysed,
            ..self
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_f64_reads_back_what_it_writes() {
        for x in [0.5, -3.0e300, f64::INFINITY, f64::NEG_INFINITY] {
            let text = serde_json::to_string(&AnyF64(x)).expect("serialises");
            let back: AnyF64 = serde_json::from_str(&text).expect("reads back");
            assert_eq!(back.0, x, "{text}");
        }
        assert_eq!(
            serde_json::to_string(&AnyF64(f64::NAN)).ok().as_deref(),
            Some("\"nan\"")
        );
        let nan: AnyF64 = serde_json::from_str("\"nan\"").expect("reads nan");
        assert!(nan.0.is_nan());
        assert!(serde_json::from_str::<AnyF64>("\"infinity\"").is_err());
    }

    #[test]
    fn error_total_keeps_the_worst_function() {
        let part = |name: &str, bits: f64| ErrorTotal {
            measured: 1,
            worst_function: Some(name.to_string()),
            worst_bits: Some(AnyF64(bits)),
            ..ErrorTotal::default()
        };
        let mut total = ErrorTotal::default();
        total.add(part("nan", f64::NAN));
        total.add(part("small", 3.0));
        total.add(part("large", f64::INFINITY));
        total.add(part("tie", f64::INFINITY));
        let ErrorLine::Total(t) = total.line(4, 1) else {
            panic!("a total record");
        };
        assert_eq!(t.worst_function.as_deref(), Some("large"));
        assert_eq!(
            (t.format, t.functions, t.unsupported, t.measured),
            (JSON_FORMAT, 4, 1, 4)
        );
        let text = serde_json::to_string(&ErrorLine::Total(t)).expect("serialises");
        let opening = format!(r#"{{"type":"total","data":{{"format":{JSON_FORMAT},"#);
        assert!(text.starts_with(&opening), "{text}");
        assert!(text.contains(r#""worst_bits":"inf""#), "{text}");
    }
}
