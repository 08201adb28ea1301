//! The `error` mode (FPGen): inputs that make a routine's result as inaccurate as possible against an MPFR shadow run, confirmed on the executable, with where the accuracy was lost.
//!
//! Every candidate input is measured by the shadow domain (fpscout-walk's `Shadow`): the
//! relative error |r − r₀| / max(|r₀|, smallest normal) of the float result r against its
//! high-precision shadow r₀, the maximum over the elements of float arrays for routines
//! that return nothing. The search follows FPGen: random inputs give a base; the inputs
//! are split into two operand groups, one kept from the best input, a subset of the other
//! searched (halved when a round finds nothing, reshuffled every round). Where FPGen asks
//! a symbolic executor to cover cancellation and precision-loss branches after each
//! add/sub, the searched group here is driven by concrete moves aimed at the same
//! targets: bisection of one input for a sign change of the result (the exact result
//! crosses zero, every leading bit cancels), pairs of inputs made to cancel, extreme
//! exponents (large, tiny), inputs just below where the result overflows. A guided
//! local search (exponent and sign mutations of the best inputs, hill climbing,
//! restarts) shares the best input. The worst input is replayed on the executable; the
//! diagnosis reruns it with each cancelling or precision-losing operation computed
//! exactly and ranks them by the error left.

use crate::config::{self, CommonConfig};
use crate::executable::Executable;
use crate::reference::{as_f64, undecided_reason, FunctionReference, ReferenceSpec};
use crate::search::{after, fit_in_range, is_finite_bits, random_input, InputSpace};
use crate::session::Session;
use crate::InputError;
use fpscout_ir::{FloatTy, FpOpId, Module, Param, ScalarTy, SourceLoc, Type};
use fpscout_native::NativeOutcome;
use fpscout_walk::concrete::ArgBits;
use fpscout_walk::shadow::{
    float_value, AddSubRecord, ShadowEnd, ShadowEvaluation, ShadowRunner, ShadowScalar,
};
use fpscout_walk::WalkConfig;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rug::Float;
use std::time::{Duration, Instant};

mod scan;
use scan::Screen;

/// Options of one `error` run.
#[derive(Clone, Debug)]
pub struct ErrorConfig {
    pub common: CommonConfig,
    /// Bits of the shadow values.
    pub precision: u32,
    /// FPGen's precision-loss target: |exp(a) − exp(b)| above this.
    pub precision_loss_threshold: i32,
    /// FPGen's cancellation target: max(exp(a), exp(b)) − exp(result) above this.
    pub cancellation_threshold: i32,
    /// What the result is measured against: the shadow run (`None`), or the
    /// mathematical function.
    pub reference: Option<ReferenceSpec>,
    /// Relative error above which an input is bug-level (FPCC's 1e-3), both the result
    /// and the exact value finite.
    pub threshold: f64,
    /// What the search maximises.
    pub objective: Objective,
    /// Processes of each native-scan burst (with a reference).
    pub scan_jobs: usize,
}

/// The error the search maximises: relative error (FPGen's, and FPCC's bug level), or
/// error in ulps (libm accuracy tables': a subnormal result's relative error grows
/// as its precision shrinks, its error in ulps does not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Objective {
    #[default]
    Relative,
    Ulps,
}

impl Objective {
    /// The objective as `--objective` and the JSON record name it.
    pub fn name(self) -> &'static str {
        match self {
            Objective::Relative => "relative",
            Objective::Ulps => "ulps",
        }
    }

    /// The measure's size under this objective, the other measure breaking ties.
    fn key(self, m: &ErrorMeasure) -> (f64, f64) {
        match self {
            Objective::Relative => (m.rel_error, m.ulps),
            Objective::Ulps => (m.ulps, m.rel_error),
        }
    }

    /// Errors in order of size (NaNs compare equal).
    fn order(self, a: &ErrorMeasure, b: &ErrorMeasure) -> std::cmp::Ordering {
        self.key(a)
            .partial_cmp(&self.key(b))
            .unwrap_or(std::cmp::Ordering::Equal)
    }

    /// Whether `a` is a larger error than `b`.
    fn beats(self, a: &ErrorMeasure, b: &ErrorMeasure) -> bool {
        self.order(a, b) == std::cmp::Ordering::Greater
    }
}

/// Bug-level inputs kept, the largest errors among distinct inputs.
const BUG_INPUTS_KEPT: usize = 16;

impl ErrorConfig {
    pub fn new(function: &str) -> ErrorConfig {
        ErrorConfig {
            common: CommonConfig::new(function, config::ERROR),
            precision: fpscout_walk::shadow::DEFAULT_PRECISION,
            precision_loss_threshold: 32,
            cancellation_threshold: 40,
            reference: None,
            threshold: 1e-3,
            objective: Objective::Relative,
            scan_jobs: 1,
        }
    }
}

/// Which value of a run the error is measured on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputPlace {
    Returned,
    /// Element `index` of the array passed as parameter `param`.
    Element {
        param: String,
        index: usize,
    },
}

impl std::fmt::Display for OutputPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutputPlace::Returned => write!(f, "the returned value"),
            OutputPlace::Element { param, index } => write!(f, "{param}[{index}]"),
        }
    }
}

/// The error of one output against its shadow.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorMeasure {
    /// |r − r₀| / max(|r₀|, smallest normal); infinite when r is not finite and r₀ is.
    pub rel_error: f64,
    /// |r − r₀| in units of the last place of r₀ in r's format.
    pub ulps: f64,
    /// log2(1 + ulps): bits of the result that are wrong (more than the format has when
    /// the exact value is far below the smallest normal).
    pub bits: f64,
    pub place: OutputPlace,
    /// Position of the output among the run's outputs (return value, or array elements
    /// in parameter order).
    pub output_index: usize,
    pub ty: FloatTy,
    /// The float result's bits.
    pub float_bits: u64,
    /// The shadow value, rounded to binary64 for display.
    pub exact: f64,
}

impl ErrorMeasure {
    /// Whether the result and the exact value are both finite numbers (FPCC counts
    /// only those: an infinite or NaN result hides every finite bug-level input).
    pub fn finite(&self) -> bool {
        self.exact.is_finite() && float_value(self.ty, self.float_bits).is_finite()
    }
}

/// The error of a returned float `bits` against the mathematical function at `args`.
fn against_reference(
    reference: &FunctionReference,
    params: &[Param],
    args: &[ArgBits],
    bits: u64,
) -> Result<ErrorMeasure, String> {
    let value = reference.value(params, args);
    let m = reference
        .measure(bits, &value)
        .ok_or_else(undecided_reason)?;
    Ok(ErrorMeasure {
        rel_error: m.relative,
        ulps: m.ulps,
        bits: m.bits,
        place: OutputPlace::Returned,
        output_index: 0,
        ty: reference.ty(),
        float_bits: bits,
        exact: as_f64(&value),
    })
}

/// Why a returned value has no error to measure: a NaN exact value, or a float the
/// shadow cannot follow (rebuilt from its bits, or returned by a native call).
fn no_exact_value(returned: Option<&ShadowScalar>) -> String {
    match returned.map(|s| s.high.is_some()) {
        Some(false) => "the result was rebuilt from its bits (copysign, SET_HIGH_WORD) or \
                        returned by a native call: the shadow run has no exact value for it \
                        (--reference gives one)"
            .into(),
        _ => "no float result with an exact value (NaN)".into(),
    }
}

/// The error of a float result `bits` of type `ty` against its shadow value `high`;
/// `None` when the shadow is NaN (no exact value to compare with).
pub fn error_of(ty: FloatTy, bits: u64, high: &Float) -> Option<(f64, f64, f64)> {
    if high.is_nan() {
        return None;
    }
    let r = float_value(ty, bits);
    let (precision, min_exp) = match ty {
        FloatTy::F64 => (53, -1022),
        FloatTy::F32 => (24, -126),
    };
    if !r.is_finite() || high.is_infinite() {
        let same = r.is_infinite() && high.is_infinite() && (r > 0.0) == high.is_sign_positive();
        return Some(if same {
            (0.0, 0.0, 0.0)
        } else {
            (f64::INFINITY, f64::INFINITY, f64::from(precision + 11))
        });
    }
    let prec = high.prec().max(64);
    let diff = Float::with_val(prec, Float::with_val(prec, r) - high).abs();
    let smallest_normal = Float::with_val(prec, 1) << min_exp;
    let magnitude = Float::with_val(prec, high.abs_ref());
    let denom = if magnitude > smallest_normal {
        magnitude
    } else {
        smallest_normal
    };
    let rel = Float::with_val(prec, &diff / &denom).to_f64();
    // ulp of r₀ in r's format: 2^(ilogb(r₀) − (p − 1)), subnormal spacing below.
    let ilogb = if high.is_zero() {
        min_exp
    } else {
        high.get_exp().map_or(min_exp, |e| (e - 1).max(min_exp))
    };
    let ulp = Float::with_val(prec, 1) << (ilogb - (precision - 1));
    let ulps = Float::with_val(prec, &diff / &ulp);
    // In MPFR: a count of subnormal spacings may pass f64's range, its logarithm not.
    let bits = Float::with_val(prec, &ulps + 1u32).log2().to_f64();
    Some((rel, ulps.to_f64(), bits))
}

/// An operation that lost accuracy on the worst input, and what it contributed.
#[derive(Clone, Debug, PartialEq)]
pub struct OpLoss {
    pub op: FpOpId,
    pub opcode: String,
    pub location: Option<SourceLoc>,
    /// Deepest cancellation seen at this operation (leading bits cancelled).
    pub cancellation: i32,
    /// Largest exponent gap of its operands seen (bits of the smaller operand lost).
    pub precision_loss: i32,
    /// Executions of the operation meeting a target.
    pub occurrences: usize,
    /// The relative error of the result when this one operation is computed exactly.
    pub error_left: f64,
}

impl OpLoss {
    /// "cancellation", "precision loss" or both, as met at this operation.
    pub fn kinds(&self, cfg: &ErrorConfig) -> String {
        let mut k = Vec::new();
        if self.cancellation > cfg.cancellation_threshold {
            k.push(format!("cancellation of {} bits", self.cancellation));
        }
        if self.precision_loss > cfg.precision_loss_threshold {
            k.push(format!("precision loss of {} bits", self.precision_loss));
        }
        k.join(", ")
    }
}

/// What the executable returned on the worst input.
#[derive(Clone, Debug, PartialEq)]
pub struct NativeCheck {
    /// The executable's result bits at the measured output equal the interpreter's.
    pub confirmed: bool,
    /// The executable's bits at the measured output.
    pub bits: Option<u64>,
    pub detail: String,
}

/// The report of one `error` run.
#[derive(Clone, Debug)]
pub struct ErrorReport {
    pub function: String,
    pub symbol: String,
    pub build: fpscout_toolchain::BuildKind,
    pub params: Vec<Param>,
    pub ret: Type,
    /// The worst input and its error (`None` when no input could be measured).
    pub worst: Option<(Vec<ArgBits>, ErrorMeasure)>,
    /// Ranked: the operation whose exact computation leaves the least error first.
    pub diagnosis: Vec<OpLoss>,
    /// Comparisons the shadow would have decided otherwise on the worst input.
    pub divergences: Vec<Option<SourceLoc>>,
    pub native: Option<NativeCheck>,
    pub evaluations: u64,
    /// Inputs whose run could not be measured (trap, budget, NaN shadow).
    pub unmeasured: u64,
    /// Why the first unmeasured run could not be measured.
    pub first_failure: Option<String>,
    /// The strategy that found the worst input.
    pub found_by: &'static str,
    pub method: &'static str,
    pub precision: u32,
    pub wall_s: f64,
    /// The relative error along each input through the worst input (the report's plots).
    pub sweeps: Vec<ErrorSweep>,
    /// What the errors are measured against, in words.
    pub compared_with: String,
    /// What "worst" means: the largest relative error, or error in ulps.
    pub objective: Objective,
    /// The reference expression, when there is one.
    pub reference: Option<String>,
    /// The worst input whose result and exact value are both finite.
    pub worst_finite: Option<(Vec<ArgBits>, ErrorMeasure)>,
    /// Distinct bug-level inputs (relative error above `threshold`, finite), largest
    /// error first, at most [`BUG_INPUTS_KEPT`].
    pub bug_inputs: Vec<(Vec<ArgBits>, ErrorMeasure)>,
    /// Evaluations that were bug-level (the same input counted each time).
    pub bug_level_evaluations: u64,
    pub threshold: f64,
    /// Inputs the native scan scored (every one it kept was measured as an evaluation).
    pub scanned: u64,
    /// Whether the native scan ran and how it ended, or why it did not (with a reference
    /// only).
    pub scan_note: Option<String>,
}

/// The relative error along one input, the others held at the worst input.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorSweep {
    pub input: String,
    /// (the input's value, relative error), in increasing value.
    pub points: Vec<(f64, f64)>,
}

/// Points per sweep: evenly spaced in float order over the input's range (so log-like
/// across exponents), plus the worst input itself.
const SWEEP_POINTS: usize = 40;
/// Inputs swept at most, the first ones in parameter order.
const SWEPT_INPUTS: usize = 8;

/// Progress: evaluations so far and the best error.
#[derive(Clone, Copy, Debug)]
pub struct ErrorProgress {
    pub evaluations: u64,
    pub best_rel_error: f64,
    pub best_bits: f64,
}

/// The shadow runner of the function, its outputs and the best input found.
struct Evaluator<'m> {
    runner: ShadowRunner<'m>,
    space: InputSpace,
    params: Vec<Param>,
    returns_float: Option<FloatTy>,
    /// Per input (flattened float) index, its range: (lo, hi) finite.
    bounds: Vec<(f64, f64)>,
    deadline: Option<Instant>,
    evaluations: u64,
    unmeasured: u64,
    first_failure: Option<String>,
    /// Signs of the exact values of the last run: its outputs, then its add/subs.
    last_output_signs: Vec<Option<bool>>,
    last_add_sub_signs: Vec<Option<bool>>,
    /// Whether the last run returned a finite float (`None`: no float returned).
    last_result_finite: Option<bool>,
    best: Option<(Vec<u64>, ErrorMeasure, &'static str)>,
    /// The worst input with a finite result and exact value.
    best_finite: Option<(Vec<u64>, ErrorMeasure)>,
    bug_inputs: Vec<(Vec<u64>, ErrorMeasure)>,
    bug_level_evaluations: u64,
    threshold: f64,
    objective: Objective,
    /// The mathematical function, when results are measured against it.
    reference: Option<FunctionReference>,
    progress: &'m mut dyn FnMut(&ErrorProgress),
    last_progress: Option<Instant>,
    /// Improvements of the best input, by the native scan and by everything else.
    improvements: Improvements,
}

/// How often each side of the search improved the best input (what shares the time
/// between the native scan and the moves).
#[derive(Clone, Copy, Debug, Default)]
struct Improvements {
    scan: u32,
    moves: u32,
}

impl Evaluator<'_> {
    fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The worst output of one shadowed run.
    fn measure_run(&self, e: &ShadowEvaluation) -> Option<ErrorMeasure> {
        self.outputs_of(e, &mut Vec::new())
    }

    /// The worst output of one shadowed run; `signs` receives the sign of every
    /// output's exact value (`None`: zero, NaN or no shadow).
    fn outputs_of(
        &self,
        e: &ShadowEvaluation,
        signs: &mut Vec<Option<bool>>,
    ) -> Option<ErrorMeasure> {
        signs.clear();
        let mut worst: Option<ErrorMeasure> = None;
        let mut consider = |ty: FloatTy, s: &ShadowScalar, place: OutputPlace| {
            signs.push(
                s.high
                    .as_ref()
                    .filter(|h| !h.is_zero() && !h.is_nan())
                    .map(|h| h.is_sign_positive()),
            );
            let output_index = signs.len() - 1;
            let Some(high) = &s.high else { return };
            let Some((rel, ulps, bits)) = error_of(ty, s.bits, high) else {
                return;
            };
            let m = ErrorMeasure {
                rel_error: rel,
                ulps,
                bits,
                place,
                output_index,
                ty,
                float_bits: s.bits,
                exact: high.to_f64(),
            };
            if worst.as_ref().is_none_or(|w| self.objective.beats(&m, w)) {
                worst = Some(m);
            }
        };
        match (&e.end, self.returns_float) {
            (ShadowEnd::Returned(Some(s)), Some(ty)) => consider(ty, s, OutputPlace::Returned),
            (ShadowEnd::Returned(_), None) => {
                let arrays = self.params.iter().filter(|p| p.ty == Type::PTR);
                for (p, values) in arrays.zip(&e.arrays) {
                    let Some(ScalarTy::Float(ty)) = p.pointee else {
                        continue;
                    };
                    for (index, s) in values.iter().enumerate() {
                        let place = OutputPlace::Element {
                            param: p.name.clone(),
                            index,
                        };
                        consider(ty, s, place);
                    }
                }
            }
            _ => {}
        }
        worst
    }

    /// Measures one input (flattened float bits); keeps it when it is the worst so far.
    /// An input outside the ranges is not measured.
    fn eval(&mut self, floats: &[u64], strategy: &'static str) -> Option<ErrorMeasure> {
        if !self.inside(floats) {
            return None;
        }
        self.evaluations += 1;
        let args = self.space.assemble(floats);
        let mut signs = std::mem::take(&mut self.last_output_signs);
        self.last_result_finite = None;
        let measured = match self.runner.eval(&args) {
            Ok(e) => {
                if let (ShadowEnd::Returned(Some(s)), Some(ty)) = (&e.end, self.returns_float) {
                    self.last_result_finite = Some(float_value(ty, s.bits).is_finite());
                }
                self.last_add_sub_signs.clear();
                self.last_add_sub_signs
                    .extend(e.add_sub.iter().map(|r| r.exact_positive));
                let against_shadow = self.outputs_of(&e, &mut signs);
                match (&self.reference, &e.end) {
                    (Some(reference), ShadowEnd::Returned(Some(s))) => {
                        let m = against_reference(reference, &self.params, &args, s.bits);
                        // Bisections follow the mathematical function's sign: its zeros
                        // are where the error is, and the algorithm's may lie elsewhere.
                        if let Ok(m) = &m {
                            signs.clear();
                            signs.push(
                                (m.exact != 0.0 && !m.exact.is_nan()).then_some(m.exact > 0.0),
                            );
                        }
                        m
                    }
                    _ => against_shadow.ok_or_else(|| match e.end {
                        ShadowEnd::Failed(why) => why,
                        ShadowEnd::Ended { end, .. } => format!("the program ended ({end})"),
                        ShadowEnd::Returned(ref r) => no_exact_value(r.as_ref()),
                    }),
                }
            }
            Err(e) => {
                signs.clear();
                self.last_add_sub_signs.clear();
                Err(e.to_string())
            }
        };
        self.last_output_signs = signs;
        let m = match measured {
            Ok(m) => m,
            Err(why) => {
                self.unmeasured += 1;
                self.first_failure.get_or_insert(why);
                return None;
            }
        };
        let objective = self.objective;
        if self
            .best
            .as_ref()
            .is_none_or(|(_, b, _)| objective.beats(&m, b))
        {
            self.best = Some((floats.to_vec(), m.clone(), strategy));
            if strategy == scan::STRATEGY {
                self.improvements.scan += 1;
            } else {
                self.improvements.moves += 1;
            }
        }
        if m.finite() {
            if self
                .best_finite
                .as_ref()
                .is_none_or(|(_, b)| objective.beats(&m, b))
            {
                self.best_finite = Some((floats.to_vec(), m.clone()));
            }
            if m.rel_error > self.threshold {
                self.bug_level_evaluations += 1;
                self.keep_bug_input(floats, &m);
            }
        }
        if self
            .last_progress
            .is_none_or(|t| t.elapsed() >= Duration::from_millis(500))
        {
            self.last_progress = Some(Instant::now());
            let (rel, bits) = self
                .best
                .as_ref()
                .map_or((0.0, 0.0), |(_, b, _)| (b.rel_error, b.bits));
            (self.progress)(&ErrorProgress {
                evaluations: self.evaluations,
                best_rel_error: rel,
                best_bits: bits,
            });
        }
        Some(m)
    }

    /// Keeps `floats` among the distinct bug-level inputs when there is room or it beats
    /// the least of them.
    fn keep_bug_input(&mut self, floats: &[u64], m: &ErrorMeasure) {
        if let Some(k) = self.bug_inputs.iter().position(|(f, _)| f == floats) {
            if self.objective.beats(m, &self.bug_inputs[k].1) {
                self.bug_inputs[k].1 = m.clone();
            }
            return;
        }
        if self.bug_inputs.len() < BUG_INPUTS_KEPT {
            self.bug_inputs.push((floats.to_vec(), m.clone()));
            return;
        }
        let least = (0..self.bug_inputs.len())
            .min_by(|&a, &b| {
                self.objective
                    .order(&self.bug_inputs[a].1, &self.bug_inputs[b].1)
            })
            .unwrap_or(0);
        if self.objective.beats(m, &self.bug_inputs[least].1) {
            self.bug_inputs[least] = (floats.to_vec(), m.clone());
        }
    }

    fn best_floats(&self) -> Option<Vec<u64>> {
        self.best.as_ref().map(|(f, _, _)| f.clone())
    }

    /// The best input's error under the objective.
    fn best_error(&self) -> f64 {
        self.best
            .as_ref()
            .map_or(-1.0, |(_, m, _)| self.objective.key(m).0)
    }

    fn ty(&self, i: usize) -> FloatTy {
        self.space.tys[i]
    }

    /// `x` as bits of input `i`'s type, clamped into its range (`None` if not finite).
    fn fit(&self, i: usize, x: f64) -> Option<u64> {
        let (lo, hi) = self.bounds[i];
        // A one-point range is a fixed value, its zero's sign included (clamping -0 into
        // [0, 0] would keep the -0 a move produced).
        let x = if lo == hi { lo } else { x };
        fit_in_range(x, self.ty(i), (lo, hi))
    }

    /// Whether every input lies in its range: moves that step by ulps or order keys can
    /// leave it, and what is measured (and reported) must be an input the user allowed.
    fn inside(&self, floats: &[u64]) -> bool {
        floats.iter().enumerate().all(|(i, &bits)| {
            let (lo, hi) = self.bounds[i];
            let v = self.value(i, bits);
            lo <= v && v <= hi
        })
    }

    fn value(&self, i: usize, bits: u64) -> f64 {
        float_value(self.ty(i), bits)
    }
}

/// Floats of a format in order: a signed integer key monotone in the value (wide
/// enough that differences of keys never overflow).
fn order_key(bits: u64, ty: FloatTy) -> i128 {
    i128::from(fpscout_native::scan_order_key(bits, ty))
}

fn from_order_key(key: i128, ty: FloatTy) -> u64 {
    let mag = key.unsigned_abs() as u64;
    match (ty, key < 0) {
        (FloatTy::F64, false) => mag,
        (FloatTy::F64, true) => mag | (1 << 63),
        (FloatTy::F32, false) => mag,
        (FloatTy::F32, true) => mag | (1 << 31),
    }
}

/// What a bisection drives through zero: an output, or the k-th add/sub executed
/// (FPGen's cancellation target at that operation).
#[derive(Clone, Copy, Debug)]
enum ZeroTarget {
    Output(usize),
    AddSub(usize),
}

/// Moves the searched inputs can make, aimed at FPGen's targets.
struct Moves<'a, 'm> {
    ev: &'a mut Evaluator<'m>,
    rng: rand_chacha::ChaCha8Rng,
    /// Overflow edges found: (input, the order key of its last value with a finite
    /// result, the direction of the keys toward the edge).
    edges: Vec<(usize, i128, i128)>,
    /// The native scan, when the run has one.
    screen: Option<Screen>,
}

/// Inputs whose overflow edges are sought.
const EDGE_INPUTS: usize = 8;

impl Moves<'_, '_> {
    /// A value of input `i` with a random sign and an exponent anywhere from the
    /// range's largest magnitude down to the subnormals (FPGen's large and tiny values).
    fn extreme(&mut self, i: usize) -> Option<u64> {
        let (lo, hi) = self.ev.bounds[i];
        let top = lo.abs().max(hi.abs());
        let negative = if lo < 0.0 && hi > 0.0 {
            self.rng.gen_bool(0.5)
        } else {
            hi <= 0.0
        };
        let depth = match self.rng.gen_range(0..4) {
            0 => 0,
            1 => self.rng.gen_range(0..64),
            2 => self.rng.gen_range(0..300),
            _ => self.rng.gen_range(0..1100),
        };
        let mag = top * 2f64.powi(-depth) * self.rng.gen_range(0.5..1.0);
        self.ev.fit(i, if negative { -mag } else { mag })
    }

    /// The sign of `target`'s exact value with input `i` of `x` set to `bits`
    /// (`None`: zero, NaN or not measured).
    fn sign_at(&mut self, x: &mut [u64], i: usize, bits: u64, target: ZeroTarget) -> Option<bool> {
        x[i] = bits;
        self.ev.eval(x, "bisection");
        let (signs, k) = match target {
            ZeroTarget::Output(k) => (&self.ev.last_output_signs, k),
            ZeroTarget::AddSub(k) => (&self.ev.last_add_sub_signs, k),
        };
        signs.get(k).copied().flatten()
    }

    /// Bisection on input `i` (others as in `base`) for where the exact value of
    /// `target` changes sign: next to the crossing every leading bit cancels.
    fn bisect_sign(&mut self, base: &[u64], i: usize, target: ZeroTarget) {
        let (lo, hi) = self.ev.bounds[i];
        let mut x = base.to_vec();
        let (Some(lo_bits), Some(hi_bits)) = (self.ev.fit(i, lo), self.ev.fit(i, hi)) else {
            return;
        };
        // Start from the current value and whichever end gives the other sign.
        let s_mid = self.sign_at(&mut x, i, base[i], target);
        let s_lo = self.sign_at(&mut x, i, lo_bits, target);
        let s_hi = self.sign_at(&mut x, i, hi_bits, target);
        let (a, b) = match (s_lo, s_mid, s_hi) {
            (Some(l), Some(m), _) if l != m => (lo_bits, base[i]),
            (_, Some(m), Some(h)) if m != h => (base[i], hi_bits),
            (Some(l), _, Some(h)) if l != h => (lo_bits, hi_bits),
            _ => return,
        };
        self.bisect_between(&mut x, i, a, b, target);
    }

    /// Bisects input `i` of `x` between `a` and `b`, where `target`'s exact value has
    /// opposite signs, down to adjacent floats (or an exact zero and its neighbours).
    fn bisect_between(&mut self, x: &mut [u64], i: usize, a: u64, b: u64, target: ZeroTarget) {
        let ty = self.ev.ty(i);
        let (mut ka, mut kb) = (order_key(a, ty), order_key(b, ty));
        if ka > kb {
            std::mem::swap(&mut ka, &mut kb);
        }
        let Some(sa) = self.sign_at(x, i, from_order_key(ka, ty), target) else {
            return;
        };
        while kb - ka > 1 && !self.ev.expired() {
            // Midpoint of the order keys: between values of both signs it walks down
            // the exponents (tiny values first), within one sign it halves ulps.
            let km = ka + (kb - ka) / 2;
            match self.sign_at(x, i, from_order_key(km, ty), target) {
                Some(s) if s == sa => ka = km,
                Some(_) => kb = km,
                None => {
                    // Exactly zero or NaN: both neighbours are worth a look.
                    for k in [km - 1, km + 1] {
                        self.sign_at(x, i, from_order_key(k, ty), target);
                    }
                    return;
                }
            }
        }
    }

    /// A start for a zero hunt: every input a moderate value (a random sign times
    /// 2^e, e in [-8, 8]) where its range has one, else a random value. The zeros a
    /// library's users meet (J0's first, Ai's, the dilogarithm's) sit at moderate
    /// arguments, which inputs drawn over all exponents almost never come near.
    fn zero_hunt_start(&mut self) -> Vec<u64> {
        let mut x = random_input(&mut self.rng, &self.ev.space.inputs, &self.ev.space.ranges);
        for (i, xi) in x.iter_mut().enumerate() {
            let (lo, hi) = self.ev.bounds[i];
            let sign = if self.rng.gen_bool(0.5) { 1.0 } else { -1.0 };
            let v = sign * 2f64.powf(self.rng.gen_range(-8.0..8.0));
            if lo <= v && v <= hi {
                if let Some(bits) = self.ev.fit(i, v) {
                    *xi = bits;
                }
            }
        }
        x
    }

    /// A zero of the result along input `i` near `base`: steps of growing size (from
    /// 2^-12 of the input's magnitude up to its magnitude, each way) until the exact
    /// result changes sign, then a bisection to adjacent floats. Next to a zero of
    /// the function every leading bit of the result cancels, so the relative error
    /// peaks there; bisecting from the range's ends instead finds whichever of many
    /// crossings the halving happens to meet.
    fn seek_zero_near(&mut self, base: &[u64], i: usize) {
        let target = ZeroTarget::Output(0);
        let mut x = base.to_vec();
        let Some(s0) = self.sign_at(&mut x, i, base[i], target) else {
            return;
        };
        let v = self.ev.value(i, base[i]);
        let magnitude = if v == 0.0 { 1.0 } else { v.abs() };
        for k in (0..=12).rev() {
            for direction in [1.0, -1.0] {
                if self.ev.expired() {
                    return;
                }
                let Some(bits) = self.ev.fit(i, v + direction * magnitude * 2f64.powi(-k)) else {
                    continue;
                };
                if bits == base[i] {
                    continue;
                }
                if self
                    .sign_at(&mut x, i, bits, target)
                    .is_some_and(|s| s != s0)
                {
                    self.bisect_between(&mut x, i, base[i], bits, target);
                    return;
                }
            }
        }
    }

    /// A zero target for a bisection: the worst output of the best input, another
    /// output, or an add/sub of its run.
    fn zero_target(&mut self) -> ZeroTarget {
        let outputs = self.ev.last_output_signs.len();
        let add_subs = self.ev.last_add_sub_signs.len();
        let worst = self.ev.best.as_ref().map_or(0, |(_, m, _)| m.output_index);
        match self.rng.gen_range(0..4) {
            0 | 1 => ZeroTarget::Output(worst),
            2 if outputs > 1 => ZeroTarget::Output(self.rng.gen_range(0..outputs)),
            _ if add_subs > 0 => ZeroTarget::AddSub(self.rng.gen_range(0..add_subs)),
            _ => ZeroTarget::Output(worst),
        }
    }

    /// Whether the result is finite with input `i` of `x` set to `bits` (false for
    /// infinite, NaN or unmeasured results).
    fn finite_at(&mut self, x: &mut [u64], i: usize, bits: u64) -> bool {
        x[i] = bits;
        self.ev.eval(x, "overflow edge");
        self.ev.last_result_finite == Some(true)
    }

    /// The edges along input `i` (others as in `base`) where a finite result turns
    /// infinite or undefined, toward either end of its range: bisections to adjacent
    /// floats. libm's scaled code paths sit next to such a threshold, and so do some of
    /// its largest errors (cosh and sinh just below ±710.48).
    fn find_edges(&mut self, base: &[u64], i: usize) {
        let ty = self.ev.ty(i);
        let mut x = base.to_vec();
        if !self.finite_at(&mut x, i, base[i]) {
            return;
        }
        let (lo, hi) = self.ev.bounds[i];
        for end in [lo, hi] {
            let Some(end_bits) = self.ev.fit(i, end) else {
                continue;
            };
            if self.ev.expired() || self.finite_at(&mut x, i, end_bits) {
                continue;
            }
            let (mut finite, mut not) = (order_key(base[i], ty), order_key(end_bits, ty));
            while (not - finite).abs() > 1 && !self.ev.expired() {
                let middle = finite + (not - finite) / 2;
                if self.finite_at(&mut x, i, from_order_key(middle, ty)) {
                    finite = middle;
                } else {
                    not = middle;
                }
            }
            self.edges.push((i, finite, (not - finite).signum()));
        }
    }

    /// Input `i` of `x` a random distance below one of the edges found (2^k floats,
    /// k up to the significand's width: from the edge's last floats to binades away).
    fn near_edge(&mut self, x: &[u64]) {
        let (i, key, toward) = self.edges[self.rng.gen_range(0..self.edges.len())];
        let width = match self.ev.ty(i) {
            FloatTy::F64 => 52.0,
            FloatTy::F32 => 23.0,
        };
        let back = 2f64.powf(self.rng.gen_range(0.0..width)) as i128;
        let mut y = x.to_vec();
        y[i] = from_order_key(key - toward * back, self.ev.ty(i));
        if is_finite_bits(y[i], self.ev.ty(i)) {
            self.ev.eval(&y, "overflow edge");
        }
    }

    /// Input `j` set to cancel input `i` (the negated value, or a value one ulp away).
    fn cancel_pair(&mut self, base: &[u64], i: usize, j: usize) {
        let mut x = base.to_vec();
        let v = -self.ev.value(i, base[i]);
        let Some(bits) = self.ev.fit(j, v) else {
            return;
        };
        for delta in [0i128, 1, -1] {
            x[j] = from_order_key(order_key(bits, self.ev.ty(j)) + delta, self.ev.ty(j));
            // One ulp away may leave the range (the range's end is the nearest value).
            if is_finite_bits(x[j], self.ev.ty(j)) && self.ev.inside(&x) {
                self.ev.eval(&x, "cancelling pair");
            }
        }
    }

    /// One mutation of `x` for the local search.
    fn mutate(&mut self, x: &mut [u64]) {
        let n = x.len();
        let count = 1 + usize::from(self.rng.gen_bool(0.3)) + usize::from(self.rng.gen_bool(0.1));
        for _ in 0..count {
            let i = self.rng.gen_range(0..n);
            let ty = self.ev.ty(i);
            let v = self.ev.value(i, x[i]);
            let next = match self.rng.gen_range(0..6) {
                0 => self.ev.fit(i, -v),
                1 => self.ev.fit(i, v * 2f64.powi(self.rng.gen_range(-8..=8))),
                2 => self
                    .ev
                    .fit(i, v * 2f64.powi(self.rng.gen_range(-200..=200))),
                3 => self.extreme(i),
                4 => {
                    let step = 1i128 << self.rng.gen_range(0..40);
                    let k = order_key(x[i], ty) + if self.rng.gen_bool(0.5) { step } else { -step };
                    let b = from_order_key(k, ty);
                    let in_range = {
                        let val = self.ev.value(i, b);
                        let (lo, hi) = self.ev.bounds[i];
                        val >= lo && val <= hi
                    };
                    (is_finite_bits(b, ty) && in_range).then_some(b)
                }
                _ => {
                    let j = self.rng.gen_range(0..n);
                    self.ev.fit(i, -self.ev.value(j, x[j]))
                }
            };
            if let Some(b) = next {
                x[i] = b;
            }
        }
    }
}

/// Evaluations of a searched-group round before it counts as a timeout (FPGen halves
/// its symbolic set when a solver call times out).
const GROUP_ROUND_EVALS: u64 = 400;
/// Evaluations of one local-search climb before a restart.
const CLIMB_EVALS: u64 = 600;
/// Share of the search budget for the random inputs that give the base.
const RANDOM_SHARE: f64 = 0.05;

/// Share of the whole budget kept for what follows the search (diagnosis, native
/// confirmation, sweeps).
const FINISH_SHARE: f64 = 0.1;
const FINISH_MAX_S: f64 = 2.0;

/// The part of a budget of `budget_s` seconds the search may take.
fn search_seconds(budget_s: f64) -> f64 {
    budget_s - (budget_s * FINISH_SHARE).min(FINISH_MAX_S)
}

/// Runs `error` on one function of a session: once per assignment of the integer
/// parameters a `--range` samples (each with an equal share of the time left), the
/// worst input of all.
pub fn run_error(
    session: &Session,
    cfg: &ErrorConfig,
    progress: &mut dyn FnMut(&ErrorProgress),
) -> Result<ErrorReport, InputError> {
    cfg.common.validate()?;
    let started = cfg.common.start();
    let build = cfg.common.build;
    let f = session
        .module(build)?
        .function(session.function(build, &cfg.common.function)?);
    let assignments = cfg.common.per_int_assignment(f);
    if assignments.len() == 1 {
        return run_error_once(session, cfg, progress);
    }
    let count = assignments.len();
    let mut worst: Option<ErrorReport> = None;
    let (mut evaluations, mut unmeasured, mut scanned) = (0, 0, 0);
    for (k, common) in assignments.into_iter().enumerate() {
        let left = (cfg.common.time_budget_s - started.elapsed().as_secs_f64()).max(0.0);
        let one = ErrorConfig {
            common: CommonConfig {
                time_budget_s: left / (count - k) as f64,
                started: Some(Instant::now()),
                ..common
            },
            ..cfg.clone()
        };
        let report = run_error_once(session, &one, progress)?;
        evaluations += report.evaluations;
        unmeasured += report.unmeasured;
        scanned += report.scanned;
        let error = |r: &ErrorReport| r.worst.as_ref().map(|(_, m)| cfg.objective.key(m));
        if worst.as_ref().is_none_or(|w| error(&report) > error(w)) {
            worst = Some(report);
        }
    }
    let mut report =
        worst.ok_or_else(|| InputError("no integer assignment was searched".into()))?;
    report.evaluations = evaluations;
    report.unmeasured = unmeasured;
    report.scanned = scanned;
    report.wall_s = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Runs `error` with the integer parameters as `cfg` fixes them.
fn run_error_once(
    session: &Session,
    cfg: &ErrorConfig,
    progress: &mut dyn FnMut(&ErrorProgress),
) -> Result<ErrorReport, InputError> {
    let started = cfg.common.start();
    let deadline = after(started, cfg.common.time_budget_s);
    // The diagnosis, the native confirmation and the sweeps come after the search and
    // inside the budget: the search leaves them a tenth of it, two seconds at most
    // (they take milliseconds on most functions, and cut sweeps only thin the plots).
    let search_deadline = after(started, search_seconds(cfg.common.time_budget_s));
    let (module, func, space) = cfg.common.searched_function(session, "error")?;
    let f = module.function(func);
    let returns_float = f.ret.float_ty();
    let has_float_arrays = f
        .params
        .iter()
        .any(|p| p.ty == Type::PTR && matches!(p.pointee, Some(ScalarTy::Float(_))));
    if returns_float.is_none() && !has_float_arrays {
        return Err(InputError(format!(
            "{} returns {} and takes no float array: error has no float result to measure",
            f.display_name, f.ret
        )));
    }
    let reference = FunctionReference::for_function(cfg.reference.as_ref(), f)?;
    // Compiled before the search, so that confirming the worst input fits the budget.
    let exe = Executable::open(session, cfg.common.build, func, &space.lens, &cfg.common)?;
    let mode = exe.mode();
    let config = WalkConfig {
        deadline: search_deadline,
        ..WalkConfig::default()
    };
    let runner = ShadowRunner::new(module, func, mode, cfg.precision, config)
        .map_err(|e| InputError(e.to_string()))?;
    let bounds = space
        .ranges
        .iter()
        .zip(&space.tys)
        .map(|(r, ty)| {
            r.unwrap_or(match ty {
                FloatTy::F64 => (-f64::MAX, f64::MAX),
                FloatTy::F32 => (-f64::from(f32::MAX), f64::from(f32::MAX)),
            })
        })
        .collect();
    let mut ev = Evaluator {
        runner,
        space,
        params: f.params.clone(),
        returns_float,
        bounds,
        deadline: search_deadline,
        evaluations: 0,
        unmeasured: 0,
        first_failure: None,
        last_output_signs: Vec::new(),
        last_result_finite: None,
        last_add_sub_signs: Vec::new(),
        best: None,
        best_finite: None,
        bug_inputs: Vec::new(),
        bug_level_evaluations: 0,
        threshold: cfg.threshold,
        objective: cfg.objective,
        reference: reference.clone(),
        progress,
        last_progress: None,
        improvements: Improvements::default(),
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(cfg.common.seed);
    // The native scan: with a reference, for a function of floats (a random-only run is
    // the baseline of plain random testing, and stays so).
    let mut screen = None;
    let mut scan_note = None;
    match (&reference, cfg.common.random_only) {
        (Some(r), false) => match Screen::open(session, cfg, func, r, &ev) {
            Ok(s) => screen = Some(s),
            Err(why) => scan_note = Some(format!("not used: {why}")),
        },
        (Some(_), true) => scan_note = Some("not used: --random-only".into()),
        (None, _) => {}
    }
    let search_started = Instant::now();
    let left = search_deadline.map(|d| d.saturating_duration_since(search_started));
    if cfg.common.random_only {
        random_phase(&mut ev, &mut rng, None);
    } else {
        let random_until = left.map(|l| search_started + l.mul_f64(RANDOM_SHARE));
        random_phase(&mut ev, &mut rng, random_until);
        if let Some(s) = screen.as_mut() {
            s.burst(&mut ev, &mut rng, scan::FIRST_BURST_S, true);
            s.burst(&mut ev, &mut rng, scan::FIRST_BURST_S, true);
        }
        let mut moves = Moves {
            ev: &mut ev,
            rng,
            edges: Vec::new(),
            screen,
        };
        fpgen_and_local_search(&mut moves);
        screen = moves.screen.take();
    }
    let scanned = screen.as_ref().map_or(0, |s| s.scanned);
    if let Some(s) = &screen {
        scan_note = Some(match &s.stopped {
            Some(why) => format!("stopped early: {why}"),
            None => "scored against the reference in long double".into(),
        });
    }
    let mut report = ErrorReport {
        function: f.display_name.clone(),
        symbol: f.name.clone(),
        build: cfg.common.build,
        params: f.params.clone(),
        ret: f.ret,
        worst: None,
        diagnosis: Vec::new(),
        divergences: Vec::new(),
        native: None,
        evaluations: ev.evaluations,
        unmeasured: ev.unmeasured,
        first_failure: ev.first_failure.clone(),
        found_by: "",
        method: if cfg.common.random_only {
            "random"
        } else {
            "search"
        },
        precision: cfg.precision,
        wall_s: 0.0,
        sweeps: Vec::new(),
        compared_with: match &reference {
            Some(r) => format!("the mathematical function {}, correctly rounded", r.text),
            None => format!("the same algorithm at {} bits", cfg.precision),
        },
        reference: reference.as_ref().map(|r| r.text.clone()),
        objective: cfg.objective,
        worst_finite: None,
        bug_inputs: Vec::new(),
        bug_level_evaluations: 0,
        threshold: cfg.threshold,
        scanned,
        scan_note,
    };
    if let Some((floats, measure, found_by)) = ev.best.clone() {
        let input = ev.space.assemble(&floats);
        // The diagnosis may run past the search's deadline: it is a few reruns.
        ev.runner.set_deadline(None);
        let (diagnosis, divergences) = diagnose(&mut ev, module, &input, cfg);
        report.native = Some(confirm_natively(&exe, &input, &measure)?);
        report.diagnosis = diagnosis;
        report.divergences = divergences;
        report.worst = Some((input, measure));
        report.found_by = found_by;
        // What the budget has left (heavy subjects evaluate in tens of milliseconds, and
        // the sweeps only draw the report's plots).
        let sweep_until = deadline.unwrap_or_else(|| {
            Instant::now() + Duration::from_secs_f64((cfg.common.time_budget_s / 10.0).max(1.0))
        });
        ev.runner.set_deadline(deadline);
        report.sweeps = sweeps(&mut ev, &floats, sweep_until);
    }
    // After the sweeps, which measure inputs too.
    report.worst_finite = ev
        .best_finite
        .as_ref()
        .map(|(f, m)| (ev.space.assemble(f), m.clone()));
    let mut bugs = std::mem::take(&mut ev.bug_inputs);
    bugs.sort_by(|(_, a), (_, b)| cfg.objective.order(b, a));
    report.bug_inputs = bugs
        .into_iter()
        .map(|(f, m)| (ev.space.assemble(&f), m))
        .collect();
    report.bug_level_evaluations = ev.bug_level_evaluations;
    report.wall_s = started.elapsed().as_secs_f64();
    Ok(report)
}

/// The relative error along each of the first inputs through `worst`, until `until`.
fn sweeps(ev: &mut Evaluator, worst: &[u64], until: Instant) -> Vec<ErrorSweep> {
    let mut out = Vec::new();
    for i in 0..worst.len().min(SWEPT_INPUTS) {
        let ty = ev.ty(i);
        let (lo, hi) = ev.bounds[i];
        let (Some(lo), Some(hi)) = (ev.fit(i, lo), ev.fit(i, hi)) else {
            continue;
        };
        let (klo, khi) = (order_key(lo, ty), order_key(hi, ty));
        let mut keys: Vec<i128> = (0..=SWEEP_POINTS as i128)
            .map(|k| klo + (khi - klo) * k / SWEEP_POINTS as i128)
            .collect();
        keys.push(order_key(worst[i], ty));
        keys.sort_unstable();
        keys.dedup();
        let mut points = Vec::new();
        let mut x = worst.to_vec();
        for key in keys {
            if Instant::now() >= until {
                break;
            }
            x[i] = from_order_key(key, ty);
            let args = ev.space.assemble(&x);
            if let Some(m) = ev.runner.eval(&args).ok().and_then(|e| ev.measure_run(&e)) {
                points.push((ev.value(i, x[i]), m.rel_error));
            }
        }
        if !points.is_empty() {
            out.push(ErrorSweep {
                input: ev.space.inputs[i].0.clone(),
                points,
            });
        }
    }
    out
}

/// Random inputs (uniform in each range) until `until`, or the whole budget.
fn random_phase(ev: &mut Evaluator, rng: &mut impl Rng, until: Option<Instant>) {
    let mut done = 0u64;
    loop {
        let stop = ev.expired() || until.is_some_and(|u| Instant::now() >= u);
        // At least a few inputs, so that a base exists even on a tight budget.
        if stop && (done >= 16 || ev.expired()) {
            break;
        }
        let x = random_input(rng, &ev.space.inputs, &ev.space.ranges);
        ev.eval(&x, "random");
        done += 1;
    }
}

/// FPGen's operand groups alternated with the local search until the deadline.
fn fpgen_and_local_search(m: &mut Moves) {
    let n = m.ev.space.inputs.len();
    if let Some(base) = m.ev.best_floats() {
        for i in 0..n.min(EDGE_INPUTS) {
            m.find_edges(&base, i);
        }
    }
    let mut group = (n / 4).max(1);
    let at_start = m.ev.improvements;
    while !m.ev.expired() {
        let round_started = Instant::now();
        let Some(base) = m.ev.best_floats() else {
            // Nothing measurable yet: keep trying random inputs.
            let x = random_input(&mut m.rng, &m.ev.space.inputs, &m.ev.space.ranges);
            m.ev.eval(&x, "random");
            continue;
        };
        let improved = group_round(m, &base, group);
        group = if improved {
            group
        } else if group > 1 {
            group / 2
        } else {
            (n / 4).max(1)
        };
        local_climb(m);
        // The scan's share of the time follows which side has been improving the best
        // input since the moves began (half each until one of them does).
        if let Some(screen) = m.screen.as_mut() {
            let took = round_started.elapsed().as_secs_f64();
            let (s, o) = (
                m.ev.improvements.scan - at_start.scan,
                m.ev.improvements.moves - at_start.moves,
            );
            let share = scan::share(s, o);
            screen.burst(m.ev, &mut m.rng, took * share / (1.0 - share), false);
        }
    }
}

/// One round on a searched group: half the inputs kept from the base, `size` of the
/// others searched. Whether it improved the best error.
fn group_round(m: &mut Moves, base: &[u64], size: usize) -> bool {
    let before = m.ev.best_error();
    let start = m.ev.evaluations;
    let n = base.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut m.rng);
    let free = &order[n / 2..];
    let searched: Vec<usize> = free.iter().copied().take(size.max(1)).collect();
    let kept = &order[..n / 2];
    while m.ev.evaluations - start < GROUP_ROUND_EVALS && !m.ev.expired() {
        let current = m.ev.best_floats().unwrap_or_else(|| base.to_vec());
        match m.rng.gen_range(0..6) {
            5 if !m.edges.is_empty() => m.near_edge(&current),
            4 => {
                let start = m.zero_hunt_start();
                let i = m.rng.gen_range(0..n);
                m.seek_zero_near(&start, i);
            }
            0 => {
                let i = searched[m.rng.gen_range(0..searched.len())];
                let target = m.zero_target();
                m.bisect_sign(&current, i, target);
            }
            1 => {
                // A searched input cancelling a kept one (or another searched one).
                let j = searched[m.rng.gen_range(0..searched.len())];
                let i = if !kept.is_empty() && m.rng.gen_bool(0.5) {
                    kept[m.rng.gen_range(0..kept.len())]
                } else {
                    searched[m.rng.gen_range(0..searched.len())]
                };
                if i != j {
                    m.cancel_pair(&current, i, j);
                }
            }
            _ => {
                let mut x = current.clone();
                for &i in &searched {
                    if m.rng.gen_bool(0.5) {
                        if let Some(b) = m.extreme(i) {
                            x[i] = b;
                        }
                    }
                }
                m.ev.eval(&x, "operand groups");
            }
        }
    }
    m.ev.best_error() > before
}

/// Hill climbing from the best input by mutations; a climb that stalls ends.
fn local_climb(m: &mut Moves) {
    let Some(mut x) = m.ev.best_floats() else {
        return;
    };
    let mut current = m.ev.best_error();
    let start = m.ev.evaluations;
    while m.ev.evaluations - start < CLIMB_EVALS && !m.ev.expired() {
        let mut y = x.clone();
        m.mutate(&mut y);
        if let Some(e) = m.ev.eval(&y, "local search") {
            let error = m.ev.objective.key(&e).0;
            if error >= current {
                current = error;
                x = y;
            }
        }
    }
}

/// The add/sub operations meeting a target on the worst input, each rerun computed
/// exactly, ranked by the error left; and the comparisons that diverged.
fn diagnose(
    ev: &mut Evaluator,
    module: &Module,
    input: &[ArgBits],
    cfg: &ErrorConfig,
) -> (Vec<OpLoss>, Vec<Option<SourceLoc>>) {
    let Ok(run) = ev.runner.eval(input) else {
        return (Vec::new(), Vec::new());
    };
    let mut per_op: Vec<(FpOpId, i32, i32, usize)> = Vec::new();
    let meets = |r: &AddSubRecord| {
        r.cancellation() > cfg.cancellation_threshold
            || r.precision_loss() > cfg.precision_loss_threshold
    };
    for r in run.add_sub.iter().filter(|r| meets(r)) {
        match per_op.iter_mut().find(|(op, ..)| *op == r.site.op) {
            Some(entry) => {
                entry.1 = entry.1.max(r.cancellation());
                entry.2 = entry.2.max(r.precision_loss());
                entry.3 += 1;
            }
            None => per_op.push((r.site.op, r.cancellation(), r.precision_loss(), 1)),
        }
    }
    let mut losses = Vec::new();
    for (op, cancellation, precision_loss, occurrences) in per_op {
        ev.runner.domain().exact_ops.insert(op);
        let left = ev
            .runner
            .eval(input)
            .ok()
            .and_then(|e| ev.measure_run(&e))
            .map_or(f64::NAN, |m| m.rel_error);
        ev.runner.domain().exact_ops.clear();
        let info = module.op(op);
        losses.push(OpLoss {
            op,
            opcode: info.opcode.clone(),
            location: info.loc.clone(),
            cancellation,
            precision_loss,
            occurrences,
            error_left: left,
        });
    }
    losses.sort_by(|a, b| a.error_left.total_cmp(&b.error_left));
    let mut divergences: Vec<Option<SourceLoc>> = Vec::new();
    for d in &run.divergences {
        let loc = module.op(d.site.op).loc.clone();
        if !divergences.contains(&loc) {
            divergences.push(loc);
        }
    }
    (losses, divergences)
}

/// Replays the worst input on the executable and compares the measured output's bits.
fn confirm_natively(
    exe: &Executable,
    input: &[ArgBits],
    measure: &ErrorMeasure,
) -> Result<NativeCheck, InputError> {
    let f = exe.function();
    let Some(outcome) = exe.run_one(input)? else {
        return Ok(NativeCheck {
            confirmed: false,
            bits: None,
            detail: "the executable gave no outcome".into(),
        });
    };
    let bits = match (&outcome, &measure.place) {
        (NativeOutcome::Returned { result, .. }, OutputPlace::Returned) => *result,
        (NativeOutcome::Returned { arrays, .. }, OutputPlace::Element { param, index }) => {
            let array_index = f
                .params
                .iter()
                .filter(|p| p.ty == Type::PTR)
                .position(|p| &p.name == param);
            array_index
                .and_then(|k| arrays.get(k))
                .and_then(|a| a.get(*index))
                .copied()
        }
        (other, _) => {
            return Ok(NativeCheck {
                confirmed: false,
                bits: None,
                detail: format!("the executable did not return: {other:?}"),
            })
        }
    };
    let confirmed = bits == Some(measure.float_bits);
    Ok(NativeCheck {
        confirmed,
        bits,
        detail: match bits {
            Some(b) if confirmed => format!(
                "returned {} ({}), as interpreted",
                fpscout_report::args::decimal(b, measure.ty),
                fpscout_report::args::hex_float(b, measure.ty)
            ),
            Some(b) => format!(
                "returned {} where the interpreter computed {}",
                fpscout_report::args::decimal(b, measure.ty),
                fpscout_report::args::decimal(measure.float_bits, measure.ty)
            ),
            None => "no value at the measured output".into(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_leaves_the_finish_inside_the_budget() {
        // `error` ran 33.6 s on --time-budget 30: the sweeps had a tenth of the budget
        // after a search that took all of it.
        for (budget, search) in [(30.0, 28.0), (10.0, 9.0), (2.0, 1.8), (0.5, 0.45)] {
            assert!((search_seconds(budget) - search).abs() < 1e-9, "{budget}");
        }
    }

    #[test]
    fn error_in_ulps_and_bits_of_a_tiny_exact_value() {
        // One ulp of 1.0 is 2^-52: relative error 2^-52, one ulp, one bit.
        let one = Float::with_val(256, 1);
        let next = (1.0f64 + f64::EPSILON).to_bits();
        assert_eq!(
            error_of(FloatTy::F64, next, &one),
            Some((f64::EPSILON, 1.0, 1.0))
        );
        // An exact 2^-1070 computed as 2^-20: 2^-20 / 2^-1074 subnormal spacings pass
        // f64's range, the bits do not: log2(2^1054 + 1) is 1054.
        let tiny = Float::with_val(256, 1) >> 1070;
        let (rel, ulps, bits) =
            error_of(FloatTy::F64, 2f64.powi(-20).to_bits(), &tiny).expect("measured");
        assert_eq!(
            rel,
            2f64.powi(-20) / f64::MIN_POSITIVE - 2f64.powi(-1070 + 1022)
        );
        assert!(ulps.is_infinite());
        assert_eq!(bits, 1054.0);
    }
}
