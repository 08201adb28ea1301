//! One build's native executable for one function (run options, measured FP mode), its
//! runs and traced runs in paced batches, and the pairwise replay of P and P'.

use crate::config::CommonConfig;
use crate::session::{native_ftz, FtzDazChoice, Session};
use crate::InputError;
use fpscout_ir::{FuncId, Function};
use fpscout_native::{
    FtzDaz, NativeArg, NativeArgKind, NativeBuild, NativeOutcome, RunOptions, TracedOutcome,
};
use fpscout_toolchain::{BuildFlags, BuildKind};
use fpscout_walk::concrete::{ArgBits, FpMode};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Inputs per native batch at most (progress is reported, and the deadline looked at,
/// between batches).
pub const NATIVE_BATCH: usize = 4096;

/// Inputs of the first native batch under a deadline.
const FIRST_BATCH: usize = 16;

/// Sizes native batches under a deadline: the first small, each next one twice the last,
/// at most [`NATIVE_BATCH`] (or the ceiling given) and no more than the last one's pace
/// says fits before the deadline, so that a slow function, or inputs that run until the
/// hang limit, cannot overrun it by a whole batch.
pub struct Pacer {
    batch: usize,
    largest: usize,
    until: Option<Instant>,
    /// What one input may cost at worst (the hang limit), in seconds: a batch paced on
    /// inputs that returned at once may be followed by one whose inputs all hang.
    worst_per_input: f64,
}

impl Pacer {
    pub fn new(until: Option<Instant>) -> Pacer {
        Pacer {
            batch: if until.is_some() {
                FIRST_BATCH
            } else {
                NATIVE_BATCH
            },
            largest: NATIVE_BATCH,
            until,
            worst_per_input: 0.0,
        }
    }

    /// Batches from `first` inputs up to `largest` (deadline or not): a phase of many
    /// cheap inputs pays less per batch with larger ones.
    pub fn batches(mut self, first: usize, largest: usize) -> Pacer {
        self.batch = first;
        self.largest = largest;
        self
    }

    /// Paces as if any input could run until `limit` (the executables' hang limit): near
    /// the deadline, batches shrink to what fits even then.
    pub fn hang_limit(mut self, limit: Duration) -> Pacer {
        self.worst_per_input = limit.as_secs_f64();
        self
    }

    pub fn expired(&self) -> bool {
        self.until.is_some_and(|d| Instant::now() >= d)
    }

    /// Inputs the next batch may take.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// Sizes the next batch after one of `inputs` that began at `started`.
    pub fn ran(&mut self, started: Instant, inputs: usize) {
        let per_input =
            (started.elapsed().as_secs_f64() / inputs.max(1) as f64).max(self.worst_per_input);
        let affordable = self.until.map_or(usize::MAX, |d| {
            (d.saturating_duration_since(Instant::now()).as_secs_f64() / per_input.max(1e-9))
                as usize
        });
        self.batch = (self.batch * 2).min(self.largest).min(affordable.max(1));
    }
}

/// A run of an executable: [`NativeBuild::run`] or [`NativeBuild::run_traced`].
type RunFn<T> = fn(&NativeBuild, &[Vec<NativeArg>], &RunOptions) -> fpscout_native::Result<Vec<T>>;

/// One build's executable of one function, with how it runs (FTZ/DAZ, hang limit) and
/// the floating-point mode it really runs with.
#[derive(Clone)]
pub struct Executable<'s> {
    native: Rc<NativeBuild>,
    function: &'s Function,
    func: FuncId,
    build: BuildKind,
    options: RunOptions,
    mode: FpMode,
}

impl<'s> Executable<'s> {
    /// Compiles `build`'s executable of `func` (array parameters of `array_lens`), run
    /// with the FTZ/DAZ and hang limit of `common`.
    pub fn open(
        session: &'s Session,
        build: BuildKind,
        func: FuncId,
        array_lens: &[Option<usize>],
        common: &CommonConfig,
    ) -> Result<Executable<'s>, InputError> {
        Executable::open_with(
            session,
            build,
            func,
            array_lens,
            common.ftz_daz,
            Duration::from_millis(common.hang_limit_ms.max(1)),
        )
    }

    /// [`Executable::open`] with FTZ/DAZ and the hang limit given one by one.
    pub fn open_with(
        session: &'s Session,
        build: BuildKind,
        func: FuncId,
        array_lens: &[Option<usize>],
        ftz_daz: FtzDazChoice,
        hang_limit: Duration,
    ) -> Result<Executable<'s>, InputError> {
        let function = session.module(build)?.function(func);
        let native = session.native(build, func, array_lens)?;
        // The executable itself says which FTZ/DAZ it runs with (crtfastmath.o or not).
        let mode = session.measured_fp_mode(build, &native, ftz_daz);
        Ok(Executable {
            native: Rc::new(native),
            function,
            func,
            build,
            options: RunOptions {
                ftz_daz: native_ftz(ftz_daz),
                per_vector_timeout: hang_limit,
            },
            mode,
        })
    }

    /// This executable's function compiled with other `flags` (P' with a subset of
    /// fast-math), run with the same FTZ/DAZ choice (by default: as that build links it)
    /// and the same hang limit.
    pub fn variant(
        &self,
        session: &'s Session,
        flags: &BuildFlags,
    ) -> Result<Executable<'s>, InputError> {
        let lens: Vec<Option<usize>> = self
            .native
            .signature()
            .params
            .iter()
            .map(|k| match k {
                NativeArgKind::FloatArray { len, .. } | NativeArgKind::IntArray { len, .. } => {
                    Some(*len)
                }
                _ => None,
            })
            .collect();
        let native = session.native_variant(self.build, self.func, &lens, flags)?;
        // The user's --ftz-daz holds for the variant too; by default it runs as linked.
        let choice = match self.options.ftz_daz {
            FtzDaz::AsLinked => FtzDazChoice::Auto,
            FtzDaz::On => FtzDazChoice::On,
            FtzDaz::Off => FtzDazChoice::Off,
        };
        let mode = session.measured_fp_mode(self.build, &native, choice);
        Ok(Executable {
            native: Rc::new(native),
            mode,
            ..self.clone()
        })
    }

    /// The floating-point mode the executable runs with, as measured from it.
    pub fn mode(&self) -> FpMode {
        self.mode
    }

    pub fn function(&self) -> &'s Function {
        self.function
    }

    pub fn func(&self) -> FuncId {
        self.func
    }

    pub fn build(&self) -> BuildKind {
        self.build
    }

    pub fn native(&self) -> &NativeBuild {
        &self.native
    }

    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// The same executable with FTZ/DAZ forced off (whatever it was linked with).
    pub fn with_ftz_daz_off(&self) -> Executable<'s> {
        Executable {
            options: RunOptions {
                ftz_daz: FtzDaz::Off,
                ..self.options.clone()
            },
            ..self.clone()
        }
    }

    /// The same executable killed after `limit` on one input.
    pub fn with_hang_limit(&self, limit: Duration) -> Executable<'s> {
        Executable {
            options: RunOptions {
                per_vector_timeout: limit,
                ..self.options.clone()
            },
            ..self.clone()
        }
    }

    /// Outcomes of `inputs`, in paced batches, none started after `until`: fewer
    /// outcomes than inputs when the deadline passed.
    pub fn run(
        &self,
        inputs: &[Vec<ArgBits>],
        until: Option<Instant>,
    ) -> Result<Vec<NativeOutcome>, InputError> {
        self.paced(inputs, Pacer::new(until), NativeBuild::run)
    }

    /// [`Executable::run`] with each input's exception trace.
    pub fn traced(
        &self,
        inputs: &[Vec<ArgBits>],
        until: Option<Instant>,
    ) -> Result<Vec<TracedOutcome>, InputError> {
        self.paced(inputs, Pacer::new(until), NativeBuild::run_traced)
    }

    /// Outcomes of all of `inputs`, in one call (a caller that sizes its own batches:
    /// [`crate::random::RandomBatches`]).
    pub fn run_batch(&self, inputs: &[Vec<ArgBits>]) -> Result<Vec<NativeOutcome>, InputError> {
        self.batch(inputs, NativeBuild::run)
    }

    /// Outcomes of the one input `args`; `None` if the executable gave none.
    pub fn run_one(&self, args: &[ArgBits]) -> Result<Option<NativeOutcome>, InputError> {
        Ok(self
            .batch(std::slice::from_ref(&args.to_vec()), NativeBuild::run)?
            .pop())
    }

    fn paced<T>(
        &self,
        inputs: &[Vec<ArgBits>],
        mut pacer: Pacer,
        run: RunFn<T>,
    ) -> Result<Vec<T>, InputError> {
        let mut outs = Vec::new();
        while outs.len() < inputs.len() && !pacer.expired() {
            let started = Instant::now();
            let chunk = &inputs[outs.len()..(outs.len() + pacer.batch()).min(inputs.len())];
            outs.extend(self.batch(chunk, run)?);
            pacer.ran(started, chunk.len());
        }
        Ok(outs)
    }

    /// One call of the executable on all of `inputs`.
    fn batch<T>(&self, inputs: &[Vec<ArgBits>], run: RunFn<T>) -> Result<Vec<T>, InputError> {
        let args: Vec<Vec<NativeArg>> = inputs
            .iter()
            .map(|a| crate::run::to_native(self.function, a))
            .collect();
        run(&self.native, &args, &self.options).map_err(|e| InputError(e.to_string()))
    }
}

/// The executables of P and P' for one function, replayed input batch by input batch on
/// both, so that a deadline leaves both with outcomes for the same inputs.
#[derive(Clone)]
pub struct ExecutablePair<'s> {
    pub p: Executable<'s>,
    pub pp: Executable<'s>,
}

impl<'s> ExecutablePair<'s> {
    /// Compiles both builds' executables of the function named in `common`.
    pub fn open(
        session: &'s Session,
        array_lens: &[Option<usize>],
        common: &CommonConfig,
    ) -> Result<ExecutablePair<'s>, InputError> {
        let fp = session.function(BuildKind::P, &common.function)?;
        let fpp = session.function(BuildKind::PPrime, &common.function)?;
        Ok(ExecutablePair {
            p: Executable::open(session, BuildKind::P, fp, array_lens, common)?,
            pp: Executable::open(session, BuildKind::PPrime, fpp, array_lens, common)?,
        })
    }

    /// Both with FTZ/DAZ forced off.
    pub fn with_ftz_daz_off(&self) -> ExecutablePair<'s> {
        ExecutablePair {
            p: self.p.with_ftz_daz_off(),
            pp: self.pp.with_ftz_daz_off(),
        }
    }

    /// Pacing for both under `until`: each input runs on two executables, each of which
    /// may hang.
    fn pacer(&self, until: Option<Instant>) -> Pacer {
        Pacer::new(until).hang_limit(2 * self.p.options.per_vector_timeout)
    }

    /// Both executables' outcomes on `inputs`, none started after `until`; `progress`
    /// hears (inputs done, inputs) after each batch.
    #[allow(clippy::type_complexity)]
    pub fn run(
        &self,
        inputs: &[Vec<ArgBits>],
        until: Option<Instant>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(Vec<NativeOutcome>, Vec<NativeOutcome>), InputError> {
        self.paced(inputs, self.pacer(until), NativeBuild::run, progress)
    }

    /// [`ExecutablePair::run`] with each input's exception trace.
    #[allow(clippy::type_complexity)]
    pub fn traced(
        &self,
        inputs: &[Vec<ArgBits>],
        until: Option<Instant>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(Vec<TracedOutcome>, Vec<TracedOutcome>), InputError> {
        self.paced(inputs, self.pacer(until), NativeBuild::run_traced, progress)
    }

    /// Both executables' outcomes on all of `inputs`, in one call each (a caller that
    /// sizes its own batches: [`crate::random::RandomBatches`]).
    #[allow(clippy::type_complexity)]
    pub fn run_batch(
        &self,
        inputs: &[Vec<ArgBits>],
    ) -> Result<(Vec<NativeOutcome>, Vec<NativeOutcome>), InputError> {
        Ok((self.p.run_batch(inputs)?, self.pp.run_batch(inputs)?))
    }

    #[allow(clippy::type_complexity)]
    fn paced<T>(
        &self,
        inputs: &[Vec<ArgBits>],
        mut pacer: Pacer,
        run: RunFn<T>,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(Vec<T>, Vec<T>), InputError> {
        let (mut outs_p, mut outs_q) = (Vec::new(), Vec::new());
        let mut done = 0;
        while done < inputs.len() && !pacer.expired() {
            let started = Instant::now();
            let chunk = &inputs[done..(done + pacer.batch()).min(inputs.len())];
            outs_p.extend(self.p.batch(chunk, run)?);
            outs_q.extend(self.pp.batch(chunk, run)?);
            done += chunk.len();
            pacer.ran(started, chunk.len());
            progress(done as u64, inputs.len() as u64);
        }
        Ok((outs_p, outs_q))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_pacer_told_the_hang_limit_sizes_batches_for_inputs_that_all_hang() {
        let until = Some(Instant::now() + Duration::from_secs(2));
        // A batch that returned at once: without the hang limit the next one doubles.
        let mut plain = Pacer::new(until);
        plain.ran(Instant::now(), FIRST_BATCH);
        assert_eq!(plain.batch(), 2 * FIRST_BATCH);
        // With a 1 s hang limit at most two inputs fit in the 2 s left, even if all hang.
        let mut careful = Pacer::new(until).hang_limit(Duration::from_secs(1));
        careful.ran(Instant::now(), FIRST_BATCH);
        assert!((1..=2).contains(&careful.batch()), "{}", careful.batch());
    }

    #[test]
    fn a_pacer_with_its_own_batches_doubles_up_to_its_ceiling() {
        let mut pacer = Pacer::new(Some(Instant::now() + Duration::from_secs(60))).batches(8, 20);
        assert_eq!(pacer.batch(), 8);
        pacer.ran(Instant::now(), 8);
        assert_eq!(pacer.batch(), 16);
        pacer.ran(Instant::now(), 16);
        assert_eq!(pacer.batch(), 20);
    }

    fn session_of(dir: &tempfile::TempDir, name: &str, text: &str) -> Session {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        Session::open(&path, fpscout_toolchain::BuildFlags::default())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn scalar_inputs(values: &[f64]) -> Vec<Vec<ArgBits>> {
        values
            .iter()
            .map(|v| vec![ArgBits::Scalar(v.to_bits())])
            .collect()
    }

    /// Result bits and flags of an outcome that returned.
    fn returned(o: &NativeOutcome) -> (Option<u64>, fpscout_ir::ExceptionSet) {
        match o {
            NativeOutcome::Returned { result, flags, .. } => (*result, *flags),
            other => panic!("did not return: {other:?}"),
        }
    }

    #[test]
    fn traced_and_untraced_runs_agree_on_results_and_flags() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/carbonGas.c");
        let text = std::fs::read_to_string(&corpus).unwrap_or_else(|e| panic!("{e}"));
        let session = session_of(&dir, "carbonGas.c", &text);
        let common = CommonConfig::new("carbonGas", crate::config::DIFF);
        let pair =
            ExecutablePair::open(&session, &[None], &common).unwrap_or_else(|e| panic!("{e}"));
        let values = [1.0, 0.5, 0.0, -0.0, 1e-300, 1e308, f64::NAN, 3.0e-5];
        let inputs = scalar_inputs(&values);
        let (run_p, run_q) = pair
            .run(&inputs, None, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{e}"));
        let (traced_p, traced_q) = pair
            .traced(&inputs, None, &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((run_p.len(), run_q.len()), (values.len(), values.len()));
        for (runs, traced) in [(&run_p, &traced_p), (&run_q, &traced_q)] {
            for (r, t) in runs.iter().zip(traced.iter()) {
                assert_eq!(returned(r), returned(&t.outcome));
            }
        }
        // One executable alone runs the same as in the pair.
        let alone = pair.p.run(&inputs, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(alone, run_p);
        // P at -O0 computes carbonGas as written, in IEEE double.
        let carbon_gas = |v: f64| {
            let (p, a, b, t, n, k) = (3.5e7, 0.401, 42.7e-6, 300.0, 1000.0, 1.3806503e-23);
            ((p + ((a * (n / v)) * (n / v))) * (v - (n * b))) - ((k * n) * t)
        };
        let (result, _) = returned(&run_p[0]);
        assert_eq!(result, Some(carbon_gas(1.0).to_bits()));
        // Dividing by zero raises the flag, traced or not.
        let (_, flags) = returned(&traced_p[2].outcome);
        assert!(
            flags.contains(fpscout_ir::ExceptionKind::DivByZero),
            "{flags}"
        );
        assert!(traced_p[2]
            .trace
            .events
            .iter()
            .any(|e| e.flags.contains(fpscout_ir::ExceptionKind::DivByZero)));
    }

    #[test]
    fn a_deadline_in_the_middle_leaves_both_builds_the_same_inputs() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        // About a millisecond per input at -O0, so 20,000 inputs cannot finish in 300 ms.
        let session = session_of(
            &dir,
            "slow.c",
            "double slow(double x) { volatile double s = 0; \
             for (int i = 0; i < 1000000; i++) s += x; return s; }",
        );
        let common = CommonConfig::new("slow", crate::config::DIFF);
        let pair =
            ExecutablePair::open(&session, &[None], &common).unwrap_or_else(|e| panic!("{e}"));
        let inputs = scalar_inputs(&vec![1.0; 20_000]);
        let started = Instant::now();
        let until = started + Duration::from_millis(300);
        let mut reported = Vec::new();
        let (outs_p, outs_q) = pair
            .run(&inputs, Some(until), &mut |done, total| {
                reported.push((done, total))
            })
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(outs_p.len(), outs_q.len());
        assert!(
            !outs_p.is_empty() && outs_p.len() < inputs.len(),
            "{}",
            outs_p.len()
        );
        assert_eq!(
            reported.last(),
            Some(&(outs_p.len() as u64, inputs.len() as u64))
        );
        // Paced on the hang limit, the last batch ends within two hang limits per input
        // of the deadline, not a whole batch later.
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        // A deadline already past starts nothing on either build.
        let (late_p, late_q) = pair
            .run(&inputs, Some(Instant::now()), &mut |_, _| {})
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(late_p.is_empty() && late_q.is_empty());
    }
}
