//! The native scan in `error`'s search: bursts of inputs scored natively against the reference in `long double` (over the whole ranges, and in windows of neighbouring floats around the best inputs), whose highest scores the evaluator then measures in MPFR.
//!
//! The evaluator measures a few thousand inputs a second (a shadow run and a correctly
//! rounded reference each); the scan scores millions, so the needles of a libm's error
//! (an input whose exact value sits next to a rounding boundary, a narrow stretch where
//! one polynomial is weak) are found by sampling far more of the input space. Nothing is
//! concluded from a score: every input the search keeps was measured by the evaluator.

use super::{ErrorConfig, ErrorMeasure, Evaluator, Objective};
use crate::reference::FunctionReference;
use crate::session::{native_ftz, Session};
use fpscout_ir::{FloatTy, FuncId, ScalarTy, Type};
use fpscout_native::{
    scan_order_key, FtzDaz, NativeBuild, NativeError, ScanCandidate, ScanOutcome, ScanScore,
};
use rand::Rng;
use std::time::{Duration, Instant};

/// The strategy named for inputs the scan found.
pub(super) const STRATEGY: &str = "native scan";
/// Bounds of the scan's share of the search time.
const MIN_SHARE: f64 = 0.25;
const MAX_SHARE: f64 = 0.9;

/// The scan's share of the time when it improved the best input `scan` times and the
/// moves `moves` times: in proportion, one of each assumed, within
/// [`MIN_SHARE`]..[`MAX_SHARE`] (neither side is ever starved).
pub(super) fn share(scan: u32, moves: u32) -> f64 {
    ((1.0 + f64::from(scan)) / (2.0 + f64::from(scan) + f64::from(moves)))
        .clamp(MIN_SHARE, MAX_SHARE)
}

/// Seconds the first burst (over the whole ranges) aims at.
pub(super) const FIRST_BURST_S: f64 = 0.25;
/// Bounds of a burst's length: later bursts take the scan's share of a round.
const MIN_BURST_S: f64 = 0.02;
const MAX_BURST_S: f64 = 5.0;
/// Bursts failing in a row that end the scan.
const MAX_FAILURES: u32 = 3;
/// Candidates of each kept set (overall, finite) measured in MPFR after a burst.
const MEASURED_PER_SET: usize = 8;

/// A build with the scan linked in, and the boxes it draws from.
pub(super) struct Screen {
    build: NativeBuild,
    ftz_daz: FtzDaz,
    /// Scan processes per burst.
    jobs: usize,
    score: ScanScore,
    /// Per input, the order keys of its range's ends.
    boxes: Vec<(i64, i64)>,
    tys: Vec<FloatTy>,
    /// Inputs scored per second, as measured (0 before the first burst).
    rate: f64,
    /// Inputs scored so far.
    pub(super) scanned: u64,
    /// Bursts that failed in a row.
    failures: u32,
    /// Why scanning stopped before the search did (bursts that crashed or ran past
    /// their time, [`MAX_FAILURES`] in a row).
    pub(super) stopped: Option<String>,
}

impl Screen {
    /// The scan of `func` against `reference`, or why there is none: the function must
    /// take only floats (every one searched) and return one, and the reference must have a
    /// C equivalent.
    pub(super) fn open(
        session: &Session,
        cfg: &ErrorConfig,
        func: FuncId,
        reference: &FunctionReference,
        ev: &Evaluator,
    ) -> Result<Screen, String> {
        let tys: Vec<FloatTy> = ev
            .params
            .iter()
            .map(|p| match p.ty {
                Type::Scalar(ScalarTy::Float(t)) => Ok(t),
                _ => Err(format!("parameter {} is not a float", p.name)),
            })
            .collect::<Result<_, _>>()?;
        if tys != ev.space.tys {
            return Err("the searched inputs are not the parameters one for one".into());
        }
        let long_double_c = reference.long_double_c().map_err(|e| e.to_string())?;
        let build = session
            .native_scan(cfg.common.build, func, &long_double_c)
            .map_err(|e| e.to_string())?;
        let mut boxes = Vec::new();
        for (i, &ty) in tys.iter().enumerate() {
            let (lo, hi) = ev.bounds[i];
            let (Some(lo), Some(hi)) = (ev.fit(i, lo), ev.fit(i, hi)) else {
                return Err(format!("input {i}'s range has no finite end"));
            };
            boxes.push((scan_order_key(lo, ty), scan_order_key(hi, ty)));
        }
        Ok(Screen {
            build,
            ftz_daz: native_ftz(cfg.common.ftz_daz),
            jobs: cfg.scan_jobs.max(1),
            score: match ev.objective {
                Objective::Ulps => ScanScore::Ulps,
                Objective::Relative => ScanScore::Relative,
            },
            boxes,
            tys,
            rate: 0.0,
            scanned: 0,
            failures: 0,
            stopped: None,
        })
    }

    /// One burst of about `seconds` (within the evaluator's deadline): over the whole
    /// ranges when `global` or nothing is measured yet, else in a window of 2^k
    /// neighbouring floats (k random) around the best input or the best finite one. The
    /// highest scores are measured by `ev`.
    pub(super) fn burst(
        &mut self,
        ev: &mut Evaluator,
        rng: &mut impl Rng,
        seconds: f64,
        global: bool,
    ) {
        if self.stopped.is_some() || ev.expired() {
            return;
        }
        let left = ev.deadline.map_or(f64::INFINITY, |d| {
            d.saturating_duration_since(Instant::now()).as_secs_f64()
        });
        let seconds = seconds.clamp(MIN_BURST_S, MAX_BURST_S).min(0.9 * left);
        if seconds < 0.005 {
            return;
        }
        let count = if self.rate > 0.0 {
            (self.rate * seconds).max(256.0) as u64
        } else {
            // Before any rate is known: a small first burst measures it.
            4096
        };
        let center = if global || rng.gen_bool(0.25) {
            None
        } else if rng.gen_bool(0.5) {
            ev.best_finite
                .as_ref()
                .map(|(f, _)| f.clone())
                .or_else(|| ev.best_floats())
        } else {
            ev.best_floats()
        };
        let boxes = match center {
            None => self.boxes.clone(),
            Some(c) => self.window(&c, rng),
        };
        // A burst whose inputs are slower than the rate measured so far gets room, but not
        // past the search's deadline.
        let timeout = Duration::from_secs_f64((4.0 * seconds + 0.5).min(left + 0.2));
        let started = Instant::now();
        let seeds: Vec<u64> = (0..self.jobs).map(|_| rng.gen()).collect();
        let (build, ftz_daz, score, boxes) = (&self.build, self.ftz_daz, self.score, &boxes);
        let scans = std::thread::scope(|scope| {
            let running: Vec<_> = seeds
                .iter()
                .map(|&seed| {
                    scope.spawn(move || build.scan(ftz_daz, seed, count, score, boxes, timeout))
                })
                .collect();
            running
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(NativeError::Protocol("a scan thread panicked".into()))
                    })
                })
                .collect::<Vec<_>>()
        });
        let out = match scans.into_iter().collect::<Result<Vec<_>, _>>() {
            Ok(parts) => merge(parts),
            Err(e) => {
                // Inputs slower than the rate measured (a window where the function loops
                // longer), or a rare input that crashes: the next bursts draw others.
                if matches!(e, NativeError::ScanTimeout { .. }) {
                    self.rate /= 8.0;
                }
                self.failures += 1;
                if self.failures >= MAX_FAILURES {
                    self.stopped = Some(format!(
                        "{MAX_FAILURES} bursts in a row failed, the last: {e}"
                    ));
                }
                return;
            }
        };
        self.failures = 0;
        let took = started.elapsed().as_secs_f64().max(1e-6);
        // Per process: each draws `count` inputs.
        self.rate = out.evaluated as f64 / self.jobs as f64 / took;
        self.scanned += out.evaluated;
        // The two sets' highest scores in turn, each only while it may still beat the
        // best measured input of its set (a score is an estimate: a hundredth of slack),
        // and only within the burst's time: measuring is the expensive half (a shadow run
        // and a correctly rounded reference each; milliseconds where the reference needs
        // a large precision, as sin of a huge argument does).
        let key = |m: &ErrorMeasure| ev.objective.key(m).0;
        let beats_best = ev.best.as_ref().map(|(_, m, _)| key(m));
        let beats_finite = ev.best_finite.as_ref().map(|(_, m)| key(m));
        let promising = |c: &ScanCandidate, best: Option<f64>| {
            c.estimate > 0.0 && best.is_none_or(|b| c.estimate >= 0.99 * b)
        };
        let mut measured: Vec<&ScanCandidate> = Vec::new();
        for k in 0..MEASURED_PER_SET {
            let pair = [
                out.worst.get(k).filter(|c| promising(c, beats_best)),
                out.worst_finite
                    .get(k)
                    .filter(|c| promising(c, beats_finite)),
            ];
            for c in pair.into_iter().flatten() {
                if measured.iter().all(|d| d.inputs != c.inputs) {
                    measured.push(c);
                }
            }
        }
        for (k, c) in measured.into_iter().enumerate() {
            if k > 0 && (started.elapsed().as_secs_f64() >= seconds || ev.expired()) {
                break;
            }
            ev.eval(&c.inputs, STRATEGY);
        }
    }

    /// The boxes cut to 2^k floats either side of `center` (the same k for every input).
    fn window(&self, center: &[u64], rng: &mut impl Rng) -> Vec<(i64, i64)> {
        let fraction_bits = |t: FloatTy| match t {
            FloatTy::F64 => 52,
            FloatTy::F32 => 23,
        };
        let widest = self
            .tys
            .iter()
            .map(|&t| fraction_bits(t))
            .max()
            .unwrap_or(23);
        let k = rng.gen_range(0..=widest);
        self.boxes
            .iter()
            .zip(center)
            .zip(&self.tys)
            .map(|((&(lo, hi), &bits), &ty)| {
                let c = scan_order_key(bits, ty).clamp(lo, hi);
                let half = 1i64 << k.min(fraction_bits(ty));
                (
                    c.saturating_sub(half).max(lo),
                    c.saturating_add(half).min(hi),
                )
            })
            .collect()
    }
}

/// The outcomes of one burst's processes as one: every kept input, highest score first.
fn merge(parts: Vec<ScanOutcome>) -> ScanOutcome {
    let mut out = ScanOutcome::default();
    for p in parts {
        out.evaluated += p.evaluated;
        out.worst.extend(p.worst);
        out.worst_finite.extend(p.worst_finite);
    }
    let by_estimate = |x: &ScanCandidate, y: &ScanCandidate| y.estimate.total_cmp(&x.estimate);
    out.worst.sort_by(by_estimate);
    out.worst_finite.sort_by(by_estimate);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_follows_improvements_and_starves_neither_side() {
        assert_eq!(share(0, 0), 0.5);
        assert_eq!(share(2, 0), 0.75);
        assert_eq!(share(1, 5), MIN_SHARE);
        assert_eq!(share(40, 1), MAX_SHARE);
        assert!(share(3, 1) > share(1, 1));
    }

    #[test]
    fn merged_bursts_keep_every_candidate_highest_first() {
        let c = |x: u64, estimate: f64| ScanCandidate {
            inputs: vec![x],
            result: x,
            estimate,
        };
        let a = ScanOutcome {
            evaluated: 10,
            worst: vec![c(1, 3.0), c(2, 1.0)],
            worst_finite: vec![c(2, 1.0)],
        };
        let b = ScanOutcome {
            evaluated: 20,
            worst: vec![c(3, 2.0)],
            worst_finite: vec![c(3, 2.0)],
        };
        let m = merge(vec![a, b]);
        assert_eq!(m.evaluated, 30);
        let order: Vec<u64> = m.worst.iter().map(|c| c.inputs[0]).collect();
        assert_eq!(order, vec![1, 3, 2]);
        assert_eq!(m.worst_finite[0].inputs, vec![3]);
    }
}
