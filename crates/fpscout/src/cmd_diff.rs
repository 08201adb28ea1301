//! The `fpscout diff` command: one function, or (through the work list) every function of
//! a file or library, one summary line each and a total.

use crate::cli_inputs::{CommonArgs, DIFF};
use crate::listing::ListingArgs;
use crate::outputs::{json_line, FindingOutputs, Progress, ShardArg};
use crate::print_diff::{self, file_safe_flags_text};
use crate::worklist::{self, Analysed, Counts, DefaultJobs, Item, WholeRun};
use crate::Linking;
use fpscout_report::finding::Mode;
use fpscout_report::InputError;
use fpscout_search::attribution::{FileSafeFlags, FunctionSafeSet};
use fpscout_search::config::check_seconds;
use fpscout_search::diff::{run_diff, witnesses_agree_under, DiffConfig, DiffReport};
use fpscout_search::records::{diff_lines, DiffTotal};
use fpscout_search::reference::ReferenceSpec;
use fpscout_search::session::Session;
use fpscout_search::sources::{CompileArgs, FpCoreFunction, FpCoreInputs};
use fpscout_toolchain::{BuildFlags, BuildKind};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Inputs the oracle samples for functions of several float parameters.
const ORACLE_SAMPLES: usize = 1 << 20;

#[derive(clap::Args)]
pub struct DiffArgs {
    /// C/C++ sources (.c, .cc, .cpp; preprocessed .i, .ii), LLVM IR (.ll, .bc) or FPCore (.fpcore), linked into one program;
    /// optional with --compile-commands (then every entry)
    #[arg(required_unless_present = "compile_commands", value_name = "FILE")]
    pub(crate) source_files: Vec<PathBuf>,
    /// Function to compare (C name; C++ functions by their source name; an FPCore by its
    /// :name or C name); default: every exported function whose parameters are numbers
    /// (each FPCore of an FPCore file)
    #[arg(long, short = 'f')]
    pub(crate) function: Option<String>,
    #[command(flatten)]
    pub(crate) common: CommonArgs<DIFF>,
    /// How often one symbolic branch may fork on a path (loop unrolling bound)
    #[arg(long, default_value_t = 8)]
    pub(crate) loop_bound: u32,
    /// Paths explored per build
    #[arg(long, default_value_t = 256)]
    pub(crate) max_paths: usize,
    /// Longest attempt at one solver query, in milliseconds (first attempts get 25 ms; those
    /// that run out are retried with 4x more while time is left)
    #[arg(long, default_value_t = 200)]
    pub(crate) timeout_ms: u32,
    /// Solver threads (default: all cores); without --function, functions analysed at
    /// once in worker processes (default: one after the other in this process)
    #[arg(long)]
    pub(crate) jobs: Option<usize>,
    /// Seconds the solver phase may take in all (half for the plain exception queries, the
    /// rest for the differential ones); queries left are reported as not attempted.
    /// Default: 3 s plus 5 ms per query beyond 200, at most 45 s, ending early once models
    /// stop giving new candidates
    #[arg(long)]
    pub(crate) solve_budget: Option<f64>,
    /// Seconds the symbolic exploration of both builds may take (half each); paths left
    /// are reported as a stop reason
    #[arg(long, default_value_t = 4.0)]
    pub(crate) explore_budget: f64,
    /// Seconds the random phase may take (inputs that crash the executable cost a
    /// restart each); inputs left are reported as a stop reason
    #[arg(long, default_value_t = 5.0)]
    pub(crate) random_budget: f64,
    /// Results more than this many ulps apart count as different
    #[arg(long, default_value_t = 0)]
    pub(crate) tolerance: u64,
    /// Measure both builds' results against the mathematical function: an FPCore
    /// expression over the parameter names, evaluated in MPFR and correctly rounded
    /// (see `error --reference`); each finding names the closer build, and signatures
    /// where fast-math made the result worse come first. FPCore inputs use their body
    #[arg(long, value_name = "EXPR")]
    pub(crate) reference: Option<String>,
    /// Concrete evaluations around each solver candidate
    #[arg(long, default_value_t = 64)]
    pub(crate) search_budget: usize,
    /// Random inputs replayed natively in the cheap phase
    #[arg(long, default_value_t = 100_000)]
    pub(crate) random: usize,
    /// Do not ask the float solver about the exceptions no Z3 model raised
    #[arg(long)]
    pub(crate) no_float_solver: bool,
    /// Do not rebuild P' with subsets of fast-math's sub-options to name the one each
    /// difference needs, nor look for the safe flag set
    #[arg(long)]
    pub(crate) no_attribution: bool,
    /// Also list differences the native replay did not confirm
    #[arg(long)]
    pub(crate) show_unconfirmed: bool,
    #[command(flatten)]
    listing: ListingArgs,
    /// After the search, run every input of the function (one float parameter: all
    /// 2^32 of a `float`, a 2^32 sample of a `double`) on both executables and report
    /// the recall of the difference signatures that exist (about a minute)
    #[arg(long)]
    pub(crate) oracle: bool,
    #[command(flatten)]
    pub(crate) compile: CompileArgs,
    #[command(flatten)]
    pub(crate) linking: Linking,
    /// JSON Lines: one {"type":"finding"} record per confirmed finding, then a summary
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) outputs: FindingOutputs,
    #[command(flatten)]
    pub(crate) shard: ShardArg,
    /// Worker process of a whole-file run: analyse the functions I (0-based) of every N,
    /// in JSON Lines
    #[arg(long, hide = true, value_name = "I/N")]
    pub(crate) worker: Option<String>,
}

impl DiffArgs {
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

    /// The configuration for `function` (an FPCore's `:pre` ranges under the user's
    /// `--range`s, as in every mode).
    /// The configuration for `function`; an FPCore function's own body is the reference
    /// when no `--reference` is given.
    fn config(
        &self,
        function: &str,
        core: Option<&FpCoreFunction>,
        started: Instant,
    ) -> Result<DiffConfig, InputError> {
        let mut cfg = DiffConfig::new(function);
        // Diff compares both builds: the common configuration's build is not read.
        cfg.common = self.common.config(function, BuildKind::P, started)?;
        cfg.collect.loop_bound = self.loop_bound;
        cfg.collect.max_paths = self.max_paths;
        cfg.query_timeout_ms = self.timeout_ms;
        if let Some(j) = self.jobs {
            cfg.threads = j.max(1);
        }
        cfg.tolerance_ulps = self.tolerance;
        let budgets = [
            ("--solve-budget", self.solve_budget),
            ("--explore-budget", Some(self.explore_budget)),
            ("--random-budget", Some(self.random_budget)),
        ];
        for (flag, seconds) in budgets {
            if let Some(seconds) = seconds {
                check_seconds(flag, seconds)?;
            }
        }
        cfg.solve_budget_s = self.solve_budget;
        cfg.explore_budget_s = self.explore_budget;
        cfg.random_budget_s = self.random_budget;
        cfg.search_budget = self.search_budget;
        cfg.random_inputs = self.random;
        cfg.float_solver = !self.no_float_solver;
        cfg.attribute = !self.no_attribution;
        cfg.reference = ReferenceSpec::chosen(self.reference.as_deref(), core);
        Ok(cfg)
    }
}

pub fn run(mut args: DiffArgs, started: Instant) -> Result<ExitCode, InputError> {
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
    args.common
        .inputs
        .harness_defaults(&fpcore, &mut args.function);
    args.common.know_fpcore(&fpcore);
    let Some(name) = &args.function else {
        if args.worker.is_none() {
            for f in &fpcore.functions {
                for note in f.notes() {
                    eprintln!("fpscout: note: {note}");
                }
            }
        }
        let program = worklist::Program {
            sources: &sources,
            fpcore: &fpcore,
            flags,
            libraries: args.linking.inputs(),
            builds: &BuildKind::BOTH,
            ftz_daz: args.common.ftz_daz,
        };
        let options = worklist::Options {
            outputs: &args.outputs,
            json: args.json,
            jobs: args.jobs,
            default_jobs: DefaultJobs::InProcess,
            shard: &args.shard,
            worker: args.worker.as_deref(),
        };
        let whole = WholeDiff {
            args: &args,
            fpcore: &fpcore,
        };
        return worklist::run_program(&whole, program, worklist::number_parameters, &options);
    };
    args.shard.refuse_single("--function")?;
    let fp = fpcore.resolve(name)?;
    let function = fp.map_or(name.as_str(), |f| f.c_name.as_str()).to_string();
    if let Some(f) = fp {
        for note in f.notes() {
            eprintln!("fpscout: note: {note}");
        }
    }
    let session = Session::open_focused(
        &sources,
        flags,
        &args.linking.inputs(),
        &BuildKind::BOTH,
        Some(&function),
    )?;
    let (report, cfg) = analyse(&args, &session, &function, fp, started, true, false)?;
    let mut sink = args
        .outputs
        .start(Mode::Diff, std::slice::from_ref(&function), None)?;
    let replay = args.replay();
    sink.found(&fpscout_search::findings::from_diff(&report, &replay))?;
    sink.covered(&function, None)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        for record in diff_lines(&report, &cfg, args.show_unconfirmed, &replay) {
            let _ = writeln!(out, "{}", json_line(&record));
        }
    } else {
        print_diff::print_text(
            &mut out,
            &report,
            args.show_unconfirmed,
            args.listing.listing(),
            &replay,
        );
        if !cfg.common.ranges.is_empty() {
            let _ = writeln!(out, "ranges: {}", ranges_text(&cfg.common.ranges));
        }
    }
    drop(out);
    sink.finish(
        || session.repro_builds(&sources, args.common.ftz_daz, &fpcore.temporary_dirs()),
        args.json,
        report.verdict(),
    )
}

/// Runs `diff` on `function` of `session`: the report and the configuration it ran with.
fn analyse(
    args: &DiffArgs,
    session: &Session,
    function: &str,
    core: Option<&FpCoreFunction>,
    started: Instant,
    notes: bool,
    quiet: bool,
) -> Result<(DiffReport, DiffConfig), InputError> {
    let cfg = args.config(function, core, started)?;
    // Integer parameters and array lengths are not searched: say what they default to.
    let fid = session.function(BuildKind::P, function)?;
    for p in &session.p()?.function(fid).params {
        match p.ty {
            fpscout_ir::Type::Scalar(fpscout_ir::ScalarTy::Int(_))
                if notes && !cfg.common.ints.contains_key(&p.name) =>
            {
                eprintln!(
                    "fpscout: note: integer parameter '{}' is 0 (set it with --int {}=V)",
                    p.name, p.name
                );
            }
            fpscout_ir::Type::Scalar(fpscout_ir::ScalarTy::Ptr)
                if notes && !cfg.common.array_lens.contains_key(&p.name) =>
            {
                eprintln!(
                    "fpscout: note: array parameter '{}' has {} elements (set it with --array-len {}=N)",
                    p.name,
                    fpscout_search::search::default_array_len(p),
                    p.name
                );
            }
            _ => {}
        }
    }
    let mut bar = Progress::new(args.json, started, cfg.common.time_budget_s);
    let mut progress = |phase: &str, done: u64, total: u64| {
        if !quiet {
            bar.update(phase, done, total)
        }
    };
    let mut report = run_diff(session, &cfg, &mut progress)?;
    if args.oracle {
        let one_float = session.p()?.function(fid).params.len() == 1;
        let o = if one_float {
            fpscout_search::oracle::enumerate_signatures(
                session,
                function,
                args.common.ftz_daz,
                &mut |done, total| progress("oracle", done, total),
            )?
        } else {
            fpscout_search::oracle::sample_signatures(
                session,
                function,
                args.common.ftz_daz,
                ORACLE_SAMPLES,
                &mut |done, total| progress("oracle", done, total),
            )?
        };
        let r = fpscout_search::oracle::recall(&o, &report.flag_or_class_signatures());
        report.summary.recall_estimate = Some(r.recall);
        report.summary.recall = Some(r);
    }
    bar.finish();
    Ok((report, cfg))
}

fn ranges_text(ranges: &HashMap<String, (f64, f64)>) -> String {
    let mut names: Vec<&String> = ranges.keys().collect();
    names.sort();
    names
        .into_iter()
        .map(|n| format!("{n} in [{}, {}]", ranges[n].0, ranges[n].1))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `diff` in a whole-file run.
struct WholeDiff<'a> {
    args: &'a DiffArgs,
    fpcore: &'a FpCoreInputs,
}

impl WholeRun for WholeDiff<'_> {
    type Tally = DiffTotal;
    const MODE: Mode = Mode::Diff;
    const NAME_WIDTH: usize = 36;

    fn header(&self) -> String {
        format!(
            "{:<36} {:>9} {:>10} {:>8}",
            "function", "findings", "signatures", "wall s"
        )
    }

    fn analyse(
        &self,
        session: &Session,
        item: &Item,
        quiet: bool,
    ) -> Result<Analysed<DiffTotal>, InputError> {
        let core = self.fpcore.resolve(&item.name).ok().flatten();
        let (report, cfg) = analyse(
            self.args,
            session,
            &item.name,
            core,
            Instant::now(),
            false,
            quiet,
        )?;
        let s = &report.summary;
        let replay = self.args.replay();
        let lines = diff_lines(&report, &cfg, self.args.show_unconfirmed, &replay);
        Ok(Analysed {
            records: lines.iter().map(json_line).collect(),
            line: format!(
                "{:<36} {:>9} {:>10} {:>8.1}",
                item.label, s.diff_confirmed, s.signatures, s.wall_seconds
            ),
            findings: fpscout_search::findings::from_diff(&report, &replay),
            tally: DiffTotal::of(
                &report,
                cfg.attribute && session.flags().p_prime_is_fast_math(),
            ),
        })
    }

    fn total_text(&self, counts: Counts, t: &DiffTotal) -> String {
        // The file's safe flags before the total, which stays the last line.
        let safe = t.safe_flags.as_ref().map(file_safe_flags_text);
        format!(
            "{}total: {} functions analysed, {} not; {} confirmed findings in {} functions, {} signatures; {:.1} s",
            safe.unwrap_or_default(), counts.analysed, counts.not_analysed, t.findings, t.with_findings, t.signatures, t.wall_seconds
        )
    }

    fn finish(
        &self,
        whole: &Session,
        open: &dyn Fn(&str) -> Result<Session, InputError>,
        total: &mut DiffTotal,
    ) {
        let sets = std::mem::take(&mut total.function_safe_sets);
        let recheck = |set: &FunctionSafeSet, flags: &BuildFlags| {
            let core = self.fpcore.resolve(&set.function).ok().flatten();
            let started = Instant::now();
            let cfg = self
                .args
                .config(&set.function, core, started)
                .map_err(|e| e.0)?;
            let session = open(&set.function).map_err(|e| e.0)?;
            let until = started + Duration::from_secs_f64(cfg.common.time_budget_s.max(10.0));
            witnesses_agree_under(&session, &cfg, &set.witnesses, flags, until).map_err(|e| e.0)
        };
        match FileSafeFlags::of(&sets, whole.flags(), recheck) {
            Ok(safe) => total.safe_flags = safe,
            Err(why) => eprintln!("fpscout: no safe flag set for the file: {why}"),
        }
    }
}
