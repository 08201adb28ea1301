//! Interpreter against executable on given inputs, outcome and exception trace, with the
//! disagreements the tests accept sorted into named categories (shared by the random
//! program and solver input checks).

use fpscout_ir::ExceptionSet;
use fpscout_native::{NativeOutcome, NativeTrace, RunOptions};
use fpscout_search::concrete::concrete_runner;
use fpscout_search::run::{agrees_with_some_choice, fast_math_note, outcomes_agree, to_native};
use fpscout_search::session::{FtzDazChoice, Session};
use fpscout_search::trace::{compare_traces, interpreter_steps, native_steps, TraceStep};
use fpscout_toolchain::BuildKind;
use fpscout_walk::concrete::{ArgBits, EvalEnd};
use fpscout_walk::WalkConfig;

/// Counts of one or more comparisons; `failures` holds the unexplained ones (the first
/// few with their details).
#[derive(Default)]
pub struct Tally {
    pub compared: usize,
    pub agree: usize,
    /// P' met a NaN or infinity at an `nnan`/`ninf` operation: poison, the machine code
    /// may compute anything.
    pub poison: usize,
    /// The executable raised more than the interpreter, only in packed instructions whose
    /// extra lanes the IR never reads.
    pub undefined_lanes: usize,
    /// In a function whose backend rewrite fpscout reports it could not model.
    pub unmodelled_rewrites: usize,
    pub failures: Vec<String>,
}

impl Tally {
    pub fn add(&mut self, other: Tally) {
        self.compared += other.compared;
        self.agree += other.agree;
        self.poison += other.poison;
        self.undefined_lanes += other.undefined_lanes;
        self.unmodelled_rewrites += other.unmodelled_rewrites;
        self.failures.extend(other.failures);
    }

    pub fn summary(&self) -> String {
        format!(
            "{} evaluations: {} agree ({:.2}%), {} poison under fast-math, {} in lanes the \
             IR leaves undefined, {} in backend rewrites fpscout reports unmodelled, {} \
             unexplained",
            self.compared,
            self.agree,
            100.0 * self.agree as f64 / self.compared.max(1) as f64,
            self.poison,
            self.undefined_lanes,
            self.unmodelled_rewrites,
            self.failures.len()
        )
    }
}

/// Failures described in full; the rest are counted.
const DESCRIBED: usize = 6;

/// Whether the executable raised more than the interpreter only in packed instructions
/// (`…pd`/`…ps`): every native event the interpreter has no step for (same kind and line)
/// is packed, and there is at least one.
fn only_packed_lanes_differ(interpreted: &[TraceStep], native: &NativeTrace) -> bool {
    let mut extra = 0;
    for e in &native.events {
        let line = e.loc.as_ref().map_or(0, |l| l.line);
        for kind in e.flags.without_inexact().iter() {
            let known = interpreted
                .iter()
                .any(|s| s.kind == kind && (s.line == line || s.line == 0 || line == 0));
            if !known {
                if !(e.insn.ends_with("pd") || e.insn.ends_with("ps")) {
                    return false;
                }
                extra += 1;
            }
        }
    }
    extra > 0
}

/// The native outcome's flags (none when it did not return).
fn native_flags(o: &NativeOutcome) -> ExceptionSet {
    match o {
        NativeOutcome::Returned { flags, .. } => *flags,
        _ => ExceptionSet::EMPTY,
    }
}

/// Compares `build` of `function` in `session` with its executable on `inputs`; `what`
/// names the case in failure texts (with `source` appended when given).
pub fn compare_on_inputs(
    session: &Session,
    build: BuildKind,
    function: &str,
    inputs: &[Vec<ArgBits>],
    what: &str,
    source: &str,
    tally: &mut Tally,
) {
    let module = session
        .module(build)
        .expect("the session compiled both builds");
    let fid = match session.function(build, function) {
        Ok(f) => f,
        Err(e) => {
            tally.failures.push(format!("{what} [{build}]: {e}"));
            return;
        }
    };
    let f = module.function(fid);
    if let Some(why) = &f.unsupported {
        tally
            .failures
            .push(format!("{what} [{build}] unsupported: {why}\n{source}"));
        return;
    }
    let native = match session.native(build, fid, &array_lens(inputs)) {
        Ok(n) => n,
        Err(e) => {
            tally.failures.push(format!("{what} [{build}]: {e}"));
            return;
        }
    };
    let mode = session.fp_mode(build, FtzDazChoice::Auto);
    let unmodelled_rewrite = module
        .backend_rewrites
        .iter()
        .any(|r| r.function == f.name && r.unmodelled.is_some());
    let mut runner = match concrete_runner(module, fid, mode, WalkConfig::default()) {
        Ok(r) => r,
        Err(e) => {
            tally.failures.push(format!("{what} [{build}]: {e}"));
            return;
        }
    };
    let args: Vec<_> = inputs.iter().map(|a| to_native(f, a)).collect();
    let traced = match native.run_traced(&args, &RunOptions::default()) {
        Ok(t) => t,
        Err(e) => {
            tally.failures.push(format!("{what} [{build}]: {e}"));
            return;
        }
    };
    for (a, t) in inputs.iter().zip(&traced) {
        tally.compared += 1;
        let Ok(e) = runner.eval(a) else {
            tally
                .failures
                .push(format!("{what} [{build}]: interpreter error\n{source}"));
            continue;
        };
        let outcome_agrees = outcomes_agree(&e, &t.outcome)
            || (e.choice_points > 0 && agrees_with_some_choice(&mut runner, a, &e, &t.outcome));
        let trace = compare_traces(
            &interpreter_steps(module, &e),
            &native_steps(&t.trace),
            t.trace.truncated,
        );
        if outcome_agrees && trace.agrees() {
            tally.agree += 1;
            continue;
        }
        if build == BuildKind::PPrime && fast_math_note(module, fid, mode, a, None).is_some() {
            tally.poison += 1;
            continue;
        }
        let same_result = matches!(
            (&e.end, &t.outcome),
            (EvalEnd::Returned(r), NativeOutcome::Returned { result, .. }) if r == result
        );
        if build == BuildKind::PPrime
            && same_result
            && e.flags.without_inexact().0 & !native_flags(&t.outcome).0 == 0
            && only_packed_lanes_differ(&interpreter_steps(module, &e), &t.trace)
        {
            tally.undefined_lanes += 1;
            continue;
        }
        if unmodelled_rewrite {
            tally.unmodelled_rewrites += 1;
            continue;
        }
        if tally.failures.len() < DESCRIBED {
            tally.failures.push(format!(
                "{what} [{build}] input {a:?}: interpreter {:?} flags {} trace \
                     {:?}; native {:?} trace {:?} ({trace:?})\n{source}",
                e.end,
                e.flags,
                interpreter_steps(module, &e),
                t.outcome,
                native_steps(&t.trace),
            ));
        } else {
            // Named only, for the count per program.
            tally.failures.push(format!("{what} [{build}]"));
        }
    }
}

/// Array lengths of the parameters, from the first input.
fn array_lens(inputs: &[Vec<ArgBits>]) -> Vec<Option<usize>> {
    inputs.first().map_or_else(Vec::new, |args| {
        args.iter()
            .map(|a| match a {
                ArgBits::Array(v) => Some(v.len()),
                ArgBits::Scalar(_) => None,
            })
            .collect()
    })
}
