//! `error --exhaustive`: every binary32 input of a `float f(float)` (or of its `--range`), run natively against the reference, estimated in `double` everywhere and measured in MPFR where the maximum can be.
//!
//! The sweep (`fpscout_native::sweep`) runs in chunks on `jobs` processes. Each keeps the
//! inputs of largest estimated error; they are measured exactly here. An unmeasured
//! input's error is at most its estimate plus how far the `double` reference is from
//! the real value, which is compared against the `long double` reference on every kept
//! input and one in `SWEEP_SAMPLE_EVERY` (an assumption between samples: the gap is
//! smooth). The measured maximum M is called the maximum, to within a margin of four
//! times the largest gap seen (at least [`MIN_MARGIN_ULPS`]), when the whole range was
//! swept, the largest gap is at most [`DECISIVE_ULPS`], and no unmeasured input has an
//! estimate above M plus the margin less the largest gap (so no error above M plus the
//! margin). Otherwise the report says which condition failed, and M is a lower bound.

use crate::modes::error::ErrorConfig;
use crate::records::AnyF64;
use crate::reference::FunctionReference;
use crate::session::Session;
use crate::InputError;
use fpscout_fpcore::Measured;
use fpscout_ir::{FloatTy, ScalarTy, Type};
use fpscout_native::{NativeBuild, SweepCandidate, SweepOutcome};
use fpscout_toolchain::BuildKind;
use fpscout_walk::concrete::ArgBits;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// How close (in ulps) the `double` reference must stay to the `long double` one to
/// decide anything.
pub const DECISIVE_ULPS: f64 = 0.01;
/// The smallest margin claimed for an exact maximum (ulps).
const MIN_MARGIN_ULPS: f64 = 1e-6;
/// Inputs per chunk of the sweep (progress and the budget are checked between chunks).
const CHUNK: u64 = 1 << 24;
/// Bug-level inputs listed.
const BUG_INPUTS_KEPT: usize = 16;

/// One input measured in MPFR.
#[derive(Clone, Debug, Serialize)]
pub struct SweepPoint {
    /// The input, as a decimal that reads back to the same float, and its bits.
    pub input: String,
    pub input_bits: String,
    pub result: String,
    pub result_bits: String,
    /// The correctly rounded reference (as a double; NaN where undefined).
    pub exact: AnyF64,
    pub ulps: AnyF64,
    pub relative: AnyF64,
    pub bits: AnyF64,
}

/// The report of an exhaustive sweep.
#[derive(Clone, Debug, Serialize)]
pub struct ExhaustiveReport {
    pub function: String,
    pub compared_with: String,
    /// Inputs in the ranges swept, and how many were evaluated (fewer when the budget
    /// ran out).
    pub inputs: u64,
    pub evaluated: u64,
    pub wall_s: f64,
    pub worst: Option<SweepPoint>,
    /// The worst input whose result and exact value are both finite.
    pub worst_finite: Option<SweepPoint>,
    /// Whether `worst` is the maximum over every input swept to within `margin_ulps`
    /// (no input's error exceeds it by more; see the module doc), and the same for
    /// `worst_finite`.
    pub margin_ulps: AnyF64,
    pub exact_maximum: bool,
    pub exact_finite_maximum: bool,
    /// Why the maximum is only a lower bound, when it is.
    pub not_exact_because: Option<String>,
    /// Estimated errors of the inputs not measured are at most this (ulps; -1: none).
    pub unmeasured_bound: AnyF64,
    /// Inputs measured in MPFR.
    pub measured: usize,
    /// Inputs above `--threshold` by the `double` estimate, and those measured above it
    /// (largest first, at most 16).
    pub above_threshold_estimated: u64,
    pub bug_inputs: Vec<SweepPoint>,
    /// The `double` reference against the `long double` one: inputs compared, the
    /// largest gap (ulps of binary32) and where.
    pub reference_compared: u64,
    pub reference_largest_gap: AnyF64,
    pub reference_gap_at: String,
}

impl ExhaustiveReport {
    /// A maximum is a measurement (clean); no input measured at all (the budget ended
    /// before the first chunk) is `Unmeasured`, exit 2 as for `error`'s search.
    pub fn verdict(&self) -> crate::verdict::Verdict {
        if self.worst.is_some() {
            crate::verdict::Verdict::Clean
        } else {
            crate::verdict::Verdict::Unmeasured
        }
    }
}

/// The bit intervals `[first, last]` of the binary32 inputs in `[lo, hi]` (all of them
/// without a range: the NaNs and infinities too).
pub fn float_intervals(range: Option<(f64, f64)>) -> Vec<(u32, u32)> {
    let Some((lo, hi)) = range else {
        return vec![(0, u32::MAX)];
    };
    let (lo, hi) = (lo as f32, hi as f32);
    let mut out = Vec::new();
    // Negative floats: bits grow as values fall, from -0 (0x80000000) to -inf.
    if lo < 0.0 || (lo == 0.0 && lo.is_sign_negative()) {
        let top = if hi < 0.0 { hi } else { -0.0f32 };
        out.push((top.to_bits(), lo.to_bits()));
    }
    if hi > 0.0 || (hi == 0.0 && hi.is_sign_positive()) {
        let bottom = if lo > 0.0 { lo } else { 0.0f32 };
        out.push((bottom.to_bits(), hi.to_bits()));
    }
    out
}

/// Sweeps every input of `cfg`'s function (a `float f(float)`) in `cfg.common.ranges`
/// with `jobs` processes, within `cfg.common.time_budget_s`, and measures the kept inputs
/// against the reference. `progress` hears (evaluated, total) after each chunk.
pub fn run_exhaustive(
    session: &Session,
    cfg: &ErrorConfig,
    jobs: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ExhaustiveReport, InputError> {
    let started = cfg.common.started.unwrap_or_else(Instant::now);
    let build = BuildKind::P;
    let func = session.function(build, &cfg.common.function)?;
    let f = session.module(build)?.function(func).clone();
    let float = Type::Scalar(ScalarTy::Float(FloatTy::F32));
    if f.ret != float || f.params.len() != 1 || f.params[0].ty != float {
        return Err(InputError(format!(
            "--exhaustive enumerates the inputs of a function of one float returning float; \
             {} is {}({})",
            f.display_name,
            f.ret,
            f.params
                .iter()
                .map(|p| p.ty.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let Some(spec) = &cfg.reference else {
        return Err(InputError(
            "--exhaustive measures against the mathematical function: give --reference EXPR".into(),
        ));
    };
    let reference = FunctionReference::of(spec, &f)?;
    let native = session.native_sweep(build, func, &reference.sweep_reference()?)?;
    let range = cfg.common.ranges.get(&f.params[0].name).copied();
    let chunks = chunks(&float_intervals(range));
    let total: u64 = chunks.iter().map(|c| c.1).sum();
    let swept = sweep_chunks(&native, &chunks, cfg, jobs.max(1), started, total, progress)?;

    let measure = |c: &SweepCandidate| -> Option<(SweepCandidate, Measured, f64)> {
        let value = reference.value(&f.params, &[ArgBits::Scalar(u64::from(c.input))]);
        let m = reference.measure(u64::from(c.result), &value)?;
        Some((*c, m, crate::reference::as_f64(&value)))
    };
    let mut measured: Vec<(SweepCandidate, Measured, f64)> = Vec::new();
    for c in swept.worst.iter().chain(&swept.worst_finite) {
        if measured.iter().all(|(d, _, _)| d.input != c.input) {
            measured.extend(measure(c));
        }
    }
    let point = |(c, m, exact): &(SweepCandidate, Measured, f64)| SweepPoint {
        input: f32::from_bits(c.input).to_string(),
        input_bits: format!("{:#010x}", c.input),
        result: f32::from_bits(c.result).to_string(),
        result_bits: format!("{:#010x}", c.result),
        exact: AnyF64(*exact),
        ulps: AnyF64(m.ulps),
        relative: AnyF64(m.relative),
        bits: AnyF64(m.bits),
    };
    let by_ulps = |a: &&(SweepCandidate, Measured, f64), b: &&(SweepCandidate, Measured, f64)| {
        a.1.ulps
            .total_cmp(&b.1.ulps)
            .then(b.0.input.cmp(&a.0.input))
    };
    let finite = |(c, _, exact): &&(SweepCandidate, Measured, f64)| {
        f32::from_bits(c.result).is_finite() && exact.is_finite() && (*exact as f32).is_finite()
    };
    let worst = measured.iter().max_by(by_ulps);
    let worst_finite = measured.iter().filter(finite).max_by(by_ulps);
    let mut bugs: Vec<&(SweepCandidate, Measured, f64)> = measured
        .iter()
        .filter(finite)
        .filter(|(_, m, _)| m.relative > cfg.threshold)
        .collect();
    bugs.sort_by(|a, b| by_ulps(b, a));
    bugs.truncate(BUG_INPUTS_KEPT);

    // What decides the maximum (module doc).
    let mut doubts = Vec::new();
    if swept.evaluated < total {
        doubts.push(format!(
            "the time budget ended the sweep after {} of {total} inputs",
            swept.evaluated
        ));
    }
    if swept.largest_reference_gap > DECISIVE_ULPS {
        doubts.push(format!(
            "the double reference strays {:.3e} ulps from the long double one at {}",
            swept.largest_reference_gap,
            f32::from_bits(swept.largest_gap_input)
        ));
    }
    // An unmeasured input's error is at most its estimate plus the reference's gap; the
    // gap was measured where compared, and `margin` allows four times the largest seen.
    // So estimates up to M + margin - gap leave no error above M + margin (a correctly
    // rounded function's estimates crowd just below half an ulp, nanoulps apart).
    let margin = (4.0 * swept.largest_reference_gap).max(MIN_MARGIN_ULPS);
    let slack = margin - swept.largest_reference_gap;
    let decided = |best: Option<&(SweepCandidate, Measured, f64)>, bound: f64| match best {
        Some((_, m, _)) => m.ulps.is_infinite() || bound < 0.0 || bound <= m.ulps + slack,
        None => bound < 0.0,
    };
    let overall = decided(worst, swept.unkept_bound);
    let finite_decided = decided(worst_finite, swept.unkept_finite_bound);
    if !overall || !finite_decided {
        doubts.push(format!(
            "inputs not measured in MPFR have estimates up to {:.6} ulps, above the maximum \
             measured and its margin",
            swept.unkept_bound.max(swept.unkept_finite_bound)
        ));
    }
    let exact = doubts.is_empty();
    Ok(ExhaustiveReport {
        function: f.display_name.clone(),
        compared_with: format!("the mathematical function {}", reference.text),
        inputs: total,
        evaluated: swept.evaluated,
        wall_s: started.elapsed().as_secs_f64(),
        worst: worst.map(point),
        worst_finite: worst_finite.map(point),
        margin_ulps: AnyF64(margin),
        exact_maximum: exact && overall,
        exact_finite_maximum: exact && finite_decided,
        not_exact_because: (!doubts.is_empty()).then(|| doubts.join("; ")),
        unmeasured_bound: AnyF64(swept.unkept_bound),
        measured: measured.len(),
        above_threshold_estimated: swept.above_threshold,
        bug_inputs: bugs.into_iter().map(point).collect(),
        reference_compared: swept.sampled,
        reference_largest_gap: AnyF64(swept.largest_reference_gap),
        reference_gap_at: f32::from_bits(swept.largest_gap_input).to_string(),
    })
}

/// The intervals cut into (first, count) chunks of at most [`CHUNK`] inputs (the
/// long-double sample takes bit patterns divisible by `SWEEP_SAMPLE_EVERY`, whatever
/// the cut).
fn chunks(intervals: &[(u32, u32)]) -> Vec<(u32, u64)> {
    let mut out = Vec::new();
    for &(first, last) in intervals {
        let mut at = u64::from(first);
        let end = u64::from(last) + 1;
        while at < end {
            let n = (end - at).min(CHUNK);
            out.push((at as u32, n));
            at += n;
        }
    }
    out
}

fn sweep_chunks(
    native: &NativeBuild,
    chunks: &[(u32, u64)],
    cfg: &ErrorConfig,
    jobs: usize,
    started: Instant,
    total: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<SweepOutcome, InputError> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results: Mutex<Vec<Result<SweepOutcome, String>>> = Mutex::new(Vec::new());
    let (tx, rx) = std::sync::mpsc::channel::<u64>();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(chunks.len()) {
            let tx = tx.clone();
            let (next, stop, results) = (&next, &stop, &results);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed)
                    || started.elapsed().as_secs_f64() >= cfg.common.time_budget_s
                {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(first, count)) = chunks.get(i) else {
                    return;
                };
                let r = native
                    .sweep(first, count, cfg.threshold)
                    .map_err(|e| e.to_string());
                if r.is_err() {
                    stop.store(true, Ordering::Relaxed);
                }
                if let Ok(mut all) = results.lock() {
                    all.push(r);
                }
                let _ = tx.send(count);
            });
        }
        drop(tx);
        let mut done = 0;
        for n in rx {
            done += n;
            progress(done, total);
        }
    });
    let all = results
        .into_inner()
        .map_err(|_| InputError("a sweep thread panicked".into()))?;
    let mut merged: Option<SweepOutcome> = None;
    for r in all {
        let part = r.map_err(InputError)?;
        merged = Some(match merged {
            None => part,
            Some(m) => m.merge(part),
        });
    }
    Ok(merged.unwrap_or(SweepOutcome {
        unkept_bound: -1.0,
        unkept_finite_bound: -1.0,
        ..SweepOutcome::default()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_become_bit_intervals_on_both_sides_of_zero() {
        assert_eq!(float_intervals(None), vec![(0, u32::MAX)]);
        assert_eq!(
            float_intervals(Some((1.0, 2.0))),
            vec![(1.0f32.to_bits(), 2.0f32.to_bits())]
        );
        assert_eq!(
            float_intervals(Some((-2.0, 1.0))),
            vec![
                ((-0.0f32).to_bits(), (-2.0f32).to_bits()),
                (0, 1.0f32.to_bits())
            ]
        );
        assert_eq!(
            float_intervals(Some((-2.0, -1.0))),
            vec![((-1.0f32).to_bits(), (-2.0f32).to_bits())]
        );
        let n: u64 = chunks(&float_intervals(Some((-1.0, 1.0))))
            .iter()
            .map(|c| c.1)
            .sum();
        assert_eq!(n, 2 * (u64::from(1.0f32.to_bits()) + 1));
    }
}
