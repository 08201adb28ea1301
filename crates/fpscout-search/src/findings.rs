//! Each mode's report turned into the one findings model of `fpscout-report`.

use crate::diff::{DiffKind, DiffReport};
use crate::error::ErrorReport;
use crate::exceptions::ExceptionsReport;
use crate::observe::{Observation, ResultClass};
use crate::reach::{ReachReport, Target};
use fpscout_ir::{ExceptionSet, SourceLoc, Type};
use fpscout_report::finding::{
    BuildRun, Detail, DiffDetail, ErrorDetail, ErrorSweep, ExceptionsDetail, Finding, Mode,
    ReachDetail, Reached, Rule, Step,
};
use fpscout_report::replay::Replay;

/// The finding of a reachable `reach` answer.
pub fn from_reach(report: &ReachReport, replay: &Replay) -> Vec<Finding> {
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
        detail: Detail::Reach(ReachDetail {
            target: report.target.describe(),
            method: report.method.to_string(),
            loop_bound: report.loop_bound,
        }),
        reached: Some(reached),
        replay: Some(replay.command(&report.function, &report.params, &w.inputs)),
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
pub fn from_exceptions(report: &ExceptionsReport, replay: &Replay) -> Vec<Finding> {
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
                detail: Detail::Exceptions(ExceptionsDetail {
                    operation: x.operation.clone(),
                    instruction: x.instruction.clone(),
                    class: snake_case_name(&x.class),
                    inputs_seen: x.inputs_seen,
                    source: snake_case_name(&witness.source),
                }),
                reached: None,
                replay: Some(replay.command(
                    &report.summary.function,
                    &report.params,
                    &witness.input,
                )),
            })
        })
        .collect()
}

/// The confirmed findings of a diff run.
pub fn from_diff(report: &DiffReport, replay: &Replay) -> Vec<Finding> {
    report
        .findings
        .iter()
        .filter(|x| x.confirmed)
        .filter_map(|x| {
            let mut rules: Vec<Rule> = x.kinds.iter().map(|k| rule_of_difference(*k)).collect();
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
                    "P and P' differ ({}): P {} raising {}, P' {} raising {}{}",
                    rules.iter().map(|r| r.id()).collect::<Vec<_>>().join(", "),
                    result_text(&x.p, report.ret),
                    x.p.flags,
                    result_text(&x.p_prime, report.ret),
                    x.p_prime.flags,
                    x.attribution
                        .as_ref()
                        .map(|a| format!(
                            "; {}",
                            crate::attribution::needs_text(a, &x.attribution_alone)
                        ))
                        .unwrap_or_default()
                ),
                location: parting,
                input: x.input.clone(),
                params: report.params.clone(),
                ret: report.ret,
                runs: vec![
                    build_run("P", &x.p, report.ret),
                    build_run("P'", &x.p_prime, report.ret),
                ],
                detail: Detail::Diff(DiffDetail {
                    ulps: x.ulps,
                    ftz_only: x.ftz_only,
                    model_agrees: x.model_agrees,
                    fast_math_note: x.fast_math_note.clone(),
                    attribution: x
                        .attribution
                        .as_ref()
                        .map(|a| a.iter().map(|n| n.to_string()).collect()),
                }),
                reached: None,
                replay: Some(replay.command(&report.summary.function, &report.params, &x.input)),
            })
        })
        .collect()
}

/// The worst input of an error run, when there is one with a nonzero error.
pub fn from_error(report: &ErrorReport, replay: &Replay) -> Vec<Finding> {
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
            fpscout_report::args::decimal(m.float_bits, m.ty),
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
            outcome: fpscout_report::args::decimal(m.float_bits, m.ty),
            returned: native.is_some_and(|n| n.bits.is_some()),
            result: result.filter(|_| m.place == crate::error::OutputPlace::Returned),
            flags: ExceptionSet::EMPTY,
            trace: Vec::new(),
        }],
        reached: None,
        replay: Some(replay.command(&report.function, &report.params, input)),
        detail: Detail::Error(ErrorDetail {
            max_rel_error: m.rel_error,
            ulps: m.ulps,
            bits: m.bits,
            output: m.place.to_string(),
            exact: m.exact,
            native_confirmed: native.is_some_and(|n| n.confirmed),
            sweeps: report
                .sweeps
                .iter()
                .map(|s| ErrorSweep {
                    parameter: s.input.clone(),
                    points: s.points.iter().map(|(x, e)| [*x, *e]).collect(),
                })
                .collect(),
        }),
    }]
}

/// The rule of a kind of difference between P and P'.
fn rule_of_difference(kind: DiffKind) -> Rule {
    match kind {
        DiffKind::Flags => Rule::FastMathFlagsDiffer,
        DiffKind::Trace => Rule::FastMathTraceDiffers,
        DiffKind::Class => Rule::FastMathResultClassDiffers,
        DiffKind::End => Rule::FastMathEndDiffers,
        DiffKind::Termination => Rule::FastMathTerminationDiffers,
        DiffKind::Ulps => Rule::FastMathResultDiffers,
    }
}

/// The name serde gives a unit-only enum's value (`snake_case` in this crate's reports).
fn snake_case_name(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        other => format!("{other:?}"),
    }
}
