//! The `fpscout error` command: its arguments, the run (one function, or every function
//! through the work list), and the report as text or JSON.

use crate::cli_inputs::{CommonArgs, ERROR};
use crate::outputs::{json_line, FindingOutputs};
use crate::worklist::{self, Analysed, Choice, Counts, DefaultJobs, Item, WholeRun};
use crate::{BuildChoice, Linking, SourceCache};
use fpscout_ir::{Function, Param, ScalarTy, Type};
use fpscout_report::args::inputs_text;
use fpscout_report::finding::Mode;
use fpscout_report::replay::Replay;
use fpscout_report::InputError;
use fpscout_search::error::{run_error, ErrorConfig, ErrorProgress, ErrorReport, Objective};
use fpscout_search::records::{
    AnyF64, ErrorLine, ErrorProgressLine, ErrorSearchProgress, ErrorTotal,
};
use fpscout_search::reference::ReferenceSpec;
use fpscout_search::session::Session;
use fpscout_search::sources::{CompileArgs, FpCoreFunction, FpCoreInputs};
use fpscout_search::verdict::{coverage_text, error_coverage, Verdict, Verdicts};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// `--objective`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ObjectiveChoice {
    Relative,
    Ulps,
}

#[derive(clap::Args)]
pub struct ErrorArgs {
    /// C/C++ sources (.c, .cc, .cpp; preprocessed .i, .ii) or LLVM IR (.ll, .bc), linked into one program; a
    /// harness written with fpscout.h is analysed as its harness function
    #[arg(required = true, value_name = "FILE")]
    source_files: Vec<PathBuf>,
    /// Function whose result is checked: its float return value, or (void functions)
    /// every element of its float array parameters; default: a harness's function, else
    /// every exported function with float parameters or float arrays, each with its own
    /// --time-budget
    #[arg(long, short = 'f')]
    function: Option<String>,
    /// Build to measure
    #[arg(long, value_enum, default_value = "p")]
    build: BuildChoice,
    #[command(flatten)]
    common: CommonArgs<ERROR>,
    /// Bits of precision of the MPFR shadow values
    #[arg(long, default_value_t = fpscout_walk::shadow::DEFAULT_PRECISION)]
    precision: u32,
    /// FPGen's precision-loss target: |exp(a) - exp(b)| above this many bits
    #[arg(long, default_value_t = 32)]
    precision_loss_threshold: i32,
    /// FPGen's cancellation target: max(exp(a), exp(b)) - exp(a±b) above this many bits
    #[arg(long, default_value_t = 40)]
    cancellation_threshold: i32,
    /// Measure against the mathematical function: an FPCore expression over the
    /// function's parameter names, evaluated in MPFR and correctly rounded
    /// ('(lgamma x)', '(- (log1p x) x)', '(jn n x)'; FPCore's operators plus jn, yn, j0,
    /// j1, y0, y1, digamma, zeta, ai, eint, li2, beta). FPCore inputs use their own
    /// body. Without it, the result is compared with the same algorithm run in MPFR
    /// (--precision bits): the diagnosis uses that run either way
    #[arg(long, value_name = "EXPR")]
    reference: Option<String>,
    /// Relative error above which an input is listed as bug-level (result and exact
    /// value finite)
    #[arg(long, default_value_t = 1e-3)]
    threshold: f64,
    /// What the search maximises: relative error (FPGen's), or error in ulps (libm
    /// accuracy tables': a subnormal result's relative error grows as its precision
    /// shrinks, its error in ulps does not)
    #[arg(long, value_enum, default_value = "relative")]
    objective: ObjectiveChoice,
    /// Every input instead of a search: a `float f(float)` run natively on all 2^32
    /// floats (or those in its --range) against --reference (computed in double,
    /// checked in MPFR where the maximum can be), on --jobs processes, within
    /// --time-budget; reports the exact maximum error when the sweep decides it
    #[arg(long)]
    exhaustive: bool,
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    linking: Linking,
    #[command(flatten)]
    outputs: FindingOutputs,
    /// JSON Lines: one {"type":"error"} record with the summary (per function, then a
    /// {"type":"total"} without --function)
    #[arg(long)]
    json: bool,
    /// Without --function: functions analysed at once, in worker processes (default: all
    /// cores); with --exhaustive: sweep processes (default: all cores); otherwise the
    /// native scan's processes with --reference (default 1)
    #[arg(long)]
    jobs: Option<usize>,
    #[command(flatten)]
    shard: crate::outputs::ShardArg,
    /// Worker process of a whole-file run: analyse the functions I (0-based) of every N,
    /// in JSON Lines
    #[arg(long, hide = true, value_name = "I/N")]
    worker: Option<String>,
}

impl ErrorArgs {
    /// What `--exhaustive` does not combine with: it sweeps one function and prints a
    /// measurement, not findings.
    fn refuse_with_exhaustive(&self) -> Result<(), InputError> {
        if self.function.is_none() {
            return Err(InputError(
                "--exhaustive sweeps one function: give it with --function".into(),
            ));
        }
        let o = &self.outputs;
        let findings_output = [
            ("--emit-repro", o.emit_repro.is_some()),
            ("--jsonl", o.jsonl.is_some()),
            ("--sarif", o.merged.sarif.is_some()),
            ("--html", o.merged.html.is_some()),
            ("--baseline", o.merged.baseline.is_some()),
            ("--write-baseline", o.merged.write_baseline.is_some()),
        ];
        if let Some((flag, _)) = findings_output.iter().find(|(_, given)| *given) {
            return Err(InputError(format!(
                "--exhaustive reports a measurement (text or --json), not findings: {flag} \
                 does not apply"
            )));
        }
        Ok(())
    }

    /// The replay command of this invocation's findings.
    fn replay(&self) -> fpscout_report::replay::Replay {
        crate::replay::replay(
            &self.source_files,
            &self.compile,
            &self.linking,
            self.common.p_flags.as_deref(),
            self.common.opt_flags.as_deref(),
            self.common.setup_call.as_deref(),
            self.common.ftz_daz,
        )
    }

    /// The configuration for `function`; an FPCore function's own body is the reference
    /// when no `--reference` is given.
    fn config(
        &self,
        function: &str,
        core: Option<&FpCoreFunction>,
        started: Instant,
    ) -> Result<ErrorConfig, InputError> {
        if !(self.threshold >= 0.0 && self.threshold.is_finite()) {
            return Err(InputError(format!(
                "--threshold must be a finite relative error of at least 0, not {}",
                self.threshold
            )));
        }
        let common = self.common.config(function, self.build.kind(), started)?;
        if !(2..=1_000_000).contains(&self.precision) {
            return Err(InputError(format!(
                "--precision must be between 2 and 1000000 bits, not {}",
                self.precision
            )));
        }
        let mut cfg = ErrorConfig::new(function);
        cfg.common = common;
        cfg.precision = self.precision;
        cfg.precision_loss_threshold = self.precision_loss_threshold;
        cfg.cancellation_threshold = self.cancellation_threshold;
        cfg.threshold = self.threshold;
        cfg.objective = match self.objective {
            ObjectiveChoice::Relative => Objective::Relative,
            ObjectiveChoice::Ulps => Objective::Ulps,
        };
        cfg.reference = ReferenceSpec::chosen(self.reference.as_deref(), core);
        // One function: --jobs scan processes; a whole file runs --jobs functions at once,
        // one scan process each.
        if self.function.is_some() {
            cfg.scan_jobs = self.jobs.unwrap_or(1).max(1);
        }
        Ok(cfg)
    }
}

pub fn run(mut args: ErrorArgs, started: Instant) -> Result<ExitCode, InputError> {
    let mut flags = args.common.build_flags();
    // Checked before compiling: a typo should not cost a build.
    args.config("", None, started)?;
    args.outputs.prepare()?;
    args.shard.parse()?;
    if args.function.is_some() {
        args.shard.refuse_single("--function")?;
    }
    let (sources, fpcore) = args
        .compile
        .apply_translating(&args.source_files, &mut flags)?;
    args.common.know_fpcore(&fpcore);
    args.common
        .inputs
        .harness_defaults(&fpcore, &mut args.function);
    if let Some(harness) = &fpcore.harness {
        let ranges = harness.default_ranges(&args.common.inputs.ranges);
        args.common.inputs.ranges.extend(ranges);
        // The results array is written by the harness, not an input: searching its
        // initial contents would only waste evaluations.
        if harness.inputs.results
            && !args
                .common
                .inputs
                .ranges
                .iter()
                .any(|r| r.starts_with("results="))
        {
            args.common.inputs.ranges.push("results=0:0".into());
        }
    }
    if args.exhaustive {
        args.refuse_with_exhaustive()?;
    }
    let Some(name) = &args.function else {
        let program = worklist::Program {
            sources: &sources,
            fpcore: &fpcore,
            flags,
            libraries: args.linking.inputs(),
            builds: &[args.build.kind()],
            ftz_daz: args.common.ftz_daz,
        };
        let options = worklist::Options {
            outputs: &args.outputs,
            json: args.json,
            jobs: args.jobs,
            default_jobs: DefaultJobs::AllCores,
            shard: &args.shard,
            worker: args.worker.as_deref(),
        };
        let whole = WholeError {
            args: &args,
            fpcore: &fpcore,
        };
        return worklist::run_program(&whole, program, measurable, &options);
    };
    args.shard.refuse_single("a harness")?;
    let core = fpcore.resolve(name)?;
    let function = match core {
        Some(f) => f.c_name.clone(),
        None => name.clone(),
    };
    let cfg = args.config(&function, core, started)?;
    if args.exhaustive {
        return run_exhaustive(&args, &sources, flags, &cfg, started);
    }
    let session = Session::open_focused(
        &sources,
        flags,
        &args.linking.inputs(),
        &[cfg.common.build],
        Some(&function),
    )?;
    let mut pace = crate::outputs::ProgressPace::new(started);
    let json = args.json;
    let mut progress = |p: &ErrorProgress| {
        if !pace.due() {
            return;
        }
        if json {
            let record = ErrorProgressLine::Progress(ErrorSearchProgress {
                evaluations: p.evaluations,
                best_rel_error: AnyF64(p.best_rel_error),
                best_bits: AnyF64(p.best_bits),
                elapsed_s: started.elapsed().as_secs_f64(),
            });
            eprintln!("{}", json_line(&record));
        } else {
            eprintln!(
                "fpscout: progress: {} evaluations, best relative error {:.3e} ({:.1} bits), {:.0} s",
                p.evaluations,
                p.best_rel_error,
                p.best_bits,
                started.elapsed().as_secs_f64()
            );
        }
    };
    let report = run_error(&session, &cfg, &mut progress)?;
    let replay = args.replay();
    let mut out = std::io::stdout().lock();
    if args.json {
        let _ = writeln!(out, "{}", json_line(&ErrorLine::of(&report, &replay)));
    } else {
        print_text(&mut out, &report, &cfg, &replay);
    }
    drop(out);
    let mut sink = args.outputs.start(
        Mode::Error,
        std::slice::from_ref(&cfg.common.function),
        None,
    )?;
    sink.found(&fpscout_search::findings::from_error(&report, &replay))?;
    sink.covered(&cfg.common.function, None)?;
    // The worst error is a measurement, not a failure (0; 2 when nothing was measured):
    // exit 1 only for a finding new against a --baseline.
    sink.finish(
        || session.repro_builds(&sources, args.common.ftz_daz, &fpcore.temporary_dirs()),
        args.json,
        report.verdict(),
    )
}

/// Bug-level inputs the text report lists (JSON has every one kept).
const BUG_INPUTS_SHOWN: usize = 5;

/// `error --exhaustive`: the sweep, then its report (exit 0; 2 for bad input or when no
/// input could be measured).
fn run_exhaustive(
    args: &ErrorArgs,
    sources: &fpscout_toolchain::SourceSet,
    flags: fpscout_toolchain::BuildFlags,
    cfg: &ErrorConfig,
    started: Instant,
) -> Result<ExitCode, InputError> {
    if args.build.kind() != fpscout_toolchain::BuildKind::P {
        return Err(InputError(
            "--exhaustive sweeps build P (its sweep computes with the default \
             floating-point environment)"
                .into(),
        ));
    }
    let session = Session::open_focused(
        sources,
        flags,
        &args.linking.inputs(),
        &[fpscout_toolchain::BuildKind::P],
        Some(&cfg.common.function),
    )?;
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let mut pace = crate::outputs::ProgressPace::new(started);
    let mut progress = |done: u64, total: u64| {
        if pace.due() {
            eprintln!(
                "fpscout: progress: {done} of {total} inputs swept ({:.1} %), {:.0} s",
                100.0 * done as f64 / total.max(1) as f64,
                started.elapsed().as_secs_f64()
            );
        }
    };
    let report = fpscout_search::exhaustive::run_exhaustive(&session, cfg, jobs, &mut progress)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let record = serde_json::json!({"type": "exhaustive", "data": report});
        let _ = writeln!(out, "{}", json_line(&record));
    } else {
        print_exhaustive(&mut out, &report);
    }
    Ok(ExitCode::from(report.verdict().exit_code()))
}

fn print_exhaustive(out: &mut impl Write, r: &fpscout_search::exhaustive::ExhaustiveReport) {
    let _ = writeln!(
        out,
        "{}: exhaustive, {} of {} inputs in {:.1} s, compared with {}",
        r.function, r.evaluated, r.inputs, r.wall_s, r.compared_with
    );
    let margin = format!("the maximum (within {:.0e} ulps)", r.margin_ulps.0);
    let exactness = |exact: bool| if exact { margin.as_str() } else { "at least" };
    let point = |p: &fpscout_search::exhaustive::SweepPoint| {
        format!(
            "{:.4} ulps (relative {:.3e}) at x = {} ({}): computed {}, exact {:e}",
            p.ulps.0, p.relative.0, p.input, p.input_bits, p.result, p.exact.0
        )
    };
    match &r.worst {
        Some(p) => {
            let _ = writeln!(out, "  worst: {} {}", exactness(r.exact_maximum), point(p));
        }
        None => {
            let _ = writeln!(out, "  no input measured");
        }
    }
    if let Some(p) = &r.worst_finite {
        let _ = writeln!(
            out,
            "  worst finite: {} {}",
            exactness(r.exact_finite_maximum),
            point(p)
        );
    }
    if let Some(why) = &r.not_exact_because {
        let _ = writeln!(out, "  not decided: {why}");
    }
    let _ = writeln!(
        out,
        "  {} inputs measured in MPFR; the others' estimates are at most {:.4} ulps; \
         double reference against long double on {} inputs: largest gap {:.2e} ulps",
        r.measured, r.unmeasured_bound.0, r.reference_compared, r.reference_largest_gap.0
    );
    let _ = writeln!(
        out,
        "  above the threshold: {} inputs by the estimate",
        r.above_threshold_estimated
    );
    for p in r.bug_inputs.iter().take(BUG_INPUTS_SHOWN) {
        let _ = writeln!(out, "    {}", point(p));
    }
}

fn print_text(out: &mut impl Write, report: &ErrorReport, cfg: &ErrorConfig, replay: &Replay) {
    let _ = writeln!(
        out,
        "{} (build {}): {} evaluations in {:.2} s ({}), shadow precision {} bits",
        report.function,
        report.build,
        report.evaluations,
        report.wall_s,
        report.method,
        report.precision
    );
    let _ = writeln!(out, "  {}", coverage_text(&error_coverage(report)));
    let _ = writeln!(out, "  compared with: {}", report.compared_with);
    if let Some(note) = &report.scan_note {
        let _ = writeln!(out, "  native scan: {} inputs, {note}", report.scanned);
    }
    if report.objective == Objective::Ulps {
        let _ = writeln!(out, "  worst: the largest error in ulps (--objective ulps)");
    }
    let Some((input, m)) = &report.worst else {
        let _ = writeln!(
            out,
            "  no input could be measured ({} runs; the first: {})",
            report.unmeasured,
            report.first_failure.as_deref().unwrap_or("?")
        );
        return;
    };
    let _ = writeln!(
        out,
        "  max relative error: {:.6e} ({:.3e} ulps, {:.1} bits) at {}",
        m.rel_error, m.ulps, m.bits, m.place
    );
    let _ = writeln!(
        out,
        "  computed {} ({}), exact {:e}",
        fpscout_report::args::decimal(m.float_bits, m.ty),
        fpscout_report::args::hex_float(m.float_bits, m.ty),
        m.exact
    );
    let _ = writeln!(
        out,
        "  worst input ({}): {}",
        report.found_by,
        inputs_text(&report.params, input)
    );
    let _ = writeln!(
        out,
        "  replay: {}",
        replay.command(&report.function, &report.params, input)
    );
    if let Some((finite_input, f)) = &report.worst_finite {
        if finite_input != input {
            let _ = writeln!(
                out,
                "  worst with a finite result and exact value: {:.6e} ({:.3e} ulps, {:.1} bits) at {}: computed {}, exact {:e}",
                f.rel_error,
                f.ulps,
                f.bits,
                inputs_text(&report.params, finite_input),
                fpscout_report::args::decimal(f.float_bits, f.ty),
                f.exact
            );
        }
    }
    if !report.bug_inputs.is_empty() {
        let _ = writeln!(
            out,
            "  bug-level inputs (relative error above {:e}, finite): {} evaluations, {} distinct kept; the largest:",
            report.threshold,
            report.bug_level_evaluations,
            report.bug_inputs.len()
        );
        for (bug_input, b) in report.bug_inputs.iter().take(BUG_INPUTS_SHOWN) {
            let _ = writeln!(
                out,
                "    {:.3e} at {}: computed {}, exact {:e}",
                b.rel_error,
                inputs_text(&report.params, bug_input),
                fpscout_report::args::decimal(b.float_bits, b.ty),
                b.exact
            );
        }
    }
    if let Some(n) = &report.native {
        let _ = writeln!(
            out,
            "  executable: {}{}",
            n.detail,
            if n.confirmed {
                " (confirmed)"
            } else {
                " (NOT confirmed)"
            }
        );
    }
    let mut sources = SourceCache::default();
    if report.diagnosis.is_empty() {
        let _ = writeln!(
            out,
            "  diagnosis: no add/sub met a target (cancellation > {} bits, precision loss > {} bits)",
            cfg.cancellation_threshold, cfg.precision_loss_threshold
        );
    } else {
        let _ = writeln!(
            out,
            "  diagnosis (each operation computed exactly in turn; the error left, least first):"
        );
    }
    for (k, d) in report.diagnosis.iter().enumerate() {
        let loc = d.location.as_ref().map(|l| l.to_string());
        let _ = writeln!(
            out,
            "    {}. {} at {}: {} ({}x); error left {:.3e}{}",
            k + 1,
            d.opcode,
            loc.as_deref().unwrap_or("?"),
            d.kinds(cfg),
            d.occurrences,
            d.error_left,
            sources.suffix(loc.as_deref())
        );
    }
    for loc in &report.divergences {
        let loc = loc.as_ref().map(|l| l.to_string());
        let _ = writeln!(
            out,
            "  the exact computation would branch otherwise at {}{}",
            loc.as_deref().unwrap_or("?"),
            sources.suffix(loc.as_deref())
        );
    }
}

/// Whether a whole-file run measures `f`: exported, every parameter a number or an
/// array, some of them floats; named and skipped without a float result to measure.
fn measurable(f: &Function) -> Choice {
    let float_array =
        |p: &Param| p.ty == Type::PTR && matches!(p.pointee, Some(ScalarTy::Float(_)));
    let searched = |p: &Param| {
        matches!(p.ty, Type::Scalar(ScalarTy::Float(_) | ScalarTy::Int(_))) || p.ty == Type::PTR
    };
    let floats = |p: &Param| matches!(p.ty, Type::Scalar(ScalarTy::Float(_))) || float_array(p);
    if !(f.external && f.params.iter().all(searched) && f.params.iter().any(floats)) {
        return Choice::Ignore;
    }
    if f.ret.float_ty().is_none() && !f.params.iter().any(float_array) {
        // As `run_error` would refuse it, without compiling its executable first.
        return Choice::Skip(format!(
            "returns {} and takes no float array: error has no float result to measure",
            f.ret
        ));
    }
    Choice::Analyse
}

/// `error` in a whole-file run.
struct WholeError<'a> {
    args: &'a ErrorArgs,
    fpcore: &'a FpCoreInputs,
}

impl WholeRun for WholeError<'_> {
    type Tally = ErrorTotal;
    const MODE: Mode = Mode::Error;
    const NAME_WIDTH: usize = 32;

    fn header(&self) -> String {
        format!(
            "{:<32} {:>13} {:>7} {:>11} {:>7}",
            "function", "max rel error", "bits", "evaluations", "wall s"
        )
    }

    fn analyse(
        &self,
        session: &Session,
        item: &Item,
        _quiet: bool,
    ) -> Result<Analysed<ErrorTotal>, InputError> {
        let core = self.fpcore.resolve(&item.name).ok().flatten();
        let cfg = self.args.config(&item.name, core, Instant::now())?;
        let report = run_error(session, &cfg, &mut |_| {})?;
        let replay = self.args.replay();
        let confirmed = report.native.as_ref().is_some_and(|n| n.confirmed);
        let line = match &report.worst {
            Some((input, m)) => format!(
                "{:<32} {:>13.6e} {:>7.1} {:>11} {:>7.1}  at {}{}: {}",
                item.label,
                m.rel_error,
                m.bits,
                report.evaluations,
                report.wall_s,
                m.place,
                if confirmed { "" } else { " (NOT confirmed)" },
                inputs_text(&report.params, input)
            ),
            None => format!(
                "{:<32} no input could be measured ({} runs; the first: {})",
                item.label,
                report.unmeasured,
                report.first_failure.as_deref().unwrap_or("?")
            ),
        };
        Ok(Analysed {
            records: vec![json_line(&ErrorLine::of(&report, &replay))],
            line,
            findings: fpscout_search::findings::from_error(&report, &replay),
            tally: ErrorTotal::of(&report, &item.label),
        })
    }

    /// A measurement, not a search: functions it could not measure (no float result, a
    /// failed compile) are named in their lines, and the run is clean when any function
    /// was measured, unmeasured (2) when none was. Never unknown.
    fn overall(&self, verdicts: Verdicts, _not_analysed: usize) -> Verdict {
        match verdicts.overall(0) {
            Verdict::Unknown => Verdict::Clean,
            other => other,
        }
    }

    fn total_text(&self, counts: Counts, t: &ErrorTotal) -> String {
        let worst = match (&t.worst_function, t.worst_bits) {
            (Some(f), Some(AnyF64(bits))) => format!("the worst: {f}, {bits:.1} bits"),
            _ => "nothing measured".to_string(),
        };
        format!(
            "total: {} functions analysed, {} not; {} measured ({} confirmed on the executable); {worst}; {} evaluations, {:.1} s",
            counts.analysed, counts.not_analysed, t.measured, t.confirmed, t.evaluations, t.wall_seconds
        )
    }
}
