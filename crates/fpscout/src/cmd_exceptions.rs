//! The `fpscout exceptions` command: one function, or (through the work list) every exported
//! function with number parameters, one summary line each and a total.

use crate::cli_inputs::{CommonArgs, EXCEPTIONS};
use crate::listing::ListingArgs;
use crate::outputs::{json_line, FindingOutputs, Progress, ShardArg};
use crate::print_exceptions;
use crate::worklist::{self, Analysed, Counts, DefaultJobs, Item, WholeRun};
use crate::{BuildChoice, Linking};
use fpscout_report::finding::Mode;
use fpscout_report::repro::ReproBuilds;
use fpscout_report::InputError;
use fpscout_search::exceptions::{run_exceptions, ExceptionsConfig};
use fpscout_search::records::{exceptions_lines, ExceptionsTotal};
use fpscout_search::reference::ReferenceSpec;
use fpscout_search::session::Session;
use fpscout_search::sources::{CompileArgs, FpCoreFunction, FpCoreInputs};
use fpscout_toolchain::BuildKind;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct ExceptionsArgs {
    /// C/C++ sources (.c, .cc, .cpp; preprocessed .i, .ii), LLVM IR (.ll, .bc) or FPCore (.fpcore), linked
    /// into one program; optional with --compile-commands (then every entry)
    #[arg(required_unless_present = "compile_commands", value_name = "FILE")]
    source_files: Vec<PathBuf>,
    /// Function to analyse; default: every exported function whose parameters are numbers
    #[arg(long, short = 'f')]
    function: Option<String>,
    /// Build to analyse
    #[arg(long, value_enum, default_value = "p")]
    build: BuildChoice,
    #[command(flatten)]
    common: CommonArgs<EXCEPTIONS>,
    /// How often one symbolic branch may fork on a path (loop unrolling bound)
    #[arg(long, default_value_t = 8)]
    loop_bound: u32,
    /// Paths explored
    #[arg(long, default_value_t = 256)]
    max_paths: usize,
    /// Timeout of each Z3 query, in milliseconds
    #[arg(long, default_value_t = 200)]
    timeout_ms: u32,
    /// Tries of the fallback solver per query Z3 does not decide (each concretizes the
    /// variables of multivariate constraints anew)
    #[arg(long, default_value_t = 16)]
    concretizations: u32,
    /// Solver workers for one function; without --function, functions analysed at once
    /// (default: all cores)
    #[arg(long)]
    jobs: Option<usize>,
    /// Points tried on the executable around each solver model
    #[arg(long, default_value_t = 32)]
    search_budget: usize,
    /// Random inputs (all exponents) run on the executable at most, those that raise
    /// something traced; they stop earlier when the time budget says so
    #[arg(long, default_value_t = 100_000)]
    random: usize,
    /// Do not ask the float solver about the targets Z3 and the fallback solver missed
    #[arg(long)]
    no_float_solver: bool,
    /// Witnesses kept per operation and kind (--json and --jsonl; the text shows two)
    #[arg(long, default_value_t = 3)]
    witnesses: usize,
    /// Classify each exception against the mathematical function (an FPCore expression
    /// over the parameter names, see `error --reference`): inherent where the
    /// mathematical result itself overflows, is tiny, has a pole or is undefined at an
    /// input that raised it, spurious where it is an ordinary number. FPCore inputs use
    /// their body
    #[arg(long, value_name = "EXPR")]
    reference: Option<String>,
    #[command(flatten)]
    listing: ListingArgs,
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    linking: Linking,
    /// JSON Lines: {"type":"finding"} records, then a {"type":"summary"} per function
    /// (and a {"type":"total"} for several)
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    outputs: FindingOutputs,
    #[command(flatten)]
    shard: ShardArg,
    /// Worker process of a whole-library run: analyse the functions I (0-based) of every
    /// N, in JSON Lines
    #[arg(long, hide = true, value_name = "I/N")]
    worker: Option<String>,
}

impl ExceptionsArgs {
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
    ) -> Result<ExceptionsConfig, InputError> {
        let mut cfg = ExceptionsConfig::new(function);
        cfg.common = self.common.config(function, self.build.kind(), started)?;
        cfg.collect.loop_bound = self.loop_bound;
        cfg.collect.max_paths = self.max_paths;
        cfg.query_timeout_ms = self.timeout_ms;
        cfg.concretizations = self.concretizations;
        if let Some(j) = self.jobs {
            cfg.threads = j.max(1);
        }
        cfg.search_budget = self.search_budget;
        cfg.random_inputs = self.random;
        cfg.float_solver = !self.no_float_solver;
        cfg.witnesses_per_location = self.witnesses.max(1);
        cfg.reference = ReferenceSpec::chosen(self.reference.as_deref(), core);
        Ok(cfg)
    }

    fn build_kind(&self) -> BuildKind {
        self.build.kind()
    }
}

pub fn run(mut args: ExceptionsArgs, started: Instant) -> Result<ExitCode, InputError> {
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
    if let Some(name) = args.function.clone() {
        if let Some(f) = fpcore.resolve(&name)? {
            for note in f.notes() {
                eprintln!("fpscout: note: {note}");
            }
            args.function = Some(f.c_name.clone());
        }
    } else if args.worker.is_none() {
        for f in &fpcore.functions {
            for note in f.notes() {
                eprintln!("fpscout: note: {note}");
            }
        }
    }
    args.common.know_fpcore(&fpcore);
    // Only the analysed build is compiled; IR is cut down to what the function reaches.
    if let Some(function) = &args.function {
        let session = Session::open_focused(
            &sources,
            flags,
            &args.linking.inputs(),
            &[args.build_kind()],
            Some(function),
        )?;
        let builds =
            || session.repro_builds(&sources, args.common.ftz_daz, &fpcore.temporary_dirs());
        return one_function(&args, &fpcore, &session, function, started, builds);
    }
    let program = worklist::Program {
        sources: &sources,
        fpcore: &fpcore,
        flags,
        libraries: args.linking.inputs(),
        builds: &[args.build_kind()],
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
    let whole = WholeExceptions {
        args: &args,
        fpcore: &fpcore,
    };
    worklist::run_program(&whole, program, worklist::number_parameters, &options)
}

fn one_function(
    args: &ExceptionsArgs,
    fpcore: &FpCoreInputs,
    session: &Session,
    function: &str,
    started: Instant,
    builds: impl FnOnce() -> ReproBuilds,
) -> Result<ExitCode, InputError> {
    let core = fpcore.resolve(function).ok().flatten();
    let cfg = args.config(function, core, started)?;
    let mut bar = Progress::new(args.json, started, cfg.common.time_budget_s);
    let mut progress = |phase: &str, done: u64, total: u64| bar.update(phase, done, total);
    let report = run_exceptions(session, &cfg, &mut progress)?;
    bar.finish();
    let mut sink = args
        .outputs
        .start(Mode::Exceptions, &[function.to_string()], None)?;
    let replay = args.replay();
    sink.found(&fpscout_search::findings::from_exceptions(&report, &replay))?;
    sink.covered(function, None)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        for record in exceptions_lines(&report, &replay) {
            let _ = writeln!(out, "{}", json_line(&record));
        }
    } else {
        print_exceptions::print_text(&mut out, &report, args.listing.listing(), &replay);
    }
    drop(out);
    sink.finish(builds, args.json, report.verdict())
}

/// `exceptions` in a whole-file run.
struct WholeExceptions<'a> {
    args: &'a ExceptionsArgs,
    fpcore: &'a FpCoreInputs,
}

impl WholeRun for WholeExceptions<'_> {
    type Tally = ExceptionsTotal;
    const MODE: Mode = Mode::Exceptions;
    const NAME_WIDTH: usize = 32;

    fn header(&self) -> String {
        format!(
            "{:<32} {:>9} {:>13}  {:<15}  {:<11}  {:<12}",
            "function", "loc/pairs", "", "targets", "z3 s/u/?", "fallback s/?"
        )
    }

    fn analyse(
        &self,
        session: &Session,
        item: &Item,
        _quiet: bool,
    ) -> Result<Analysed<ExceptionsTotal>, InputError> {
        let core = self.fpcore.resolve(&item.name).ok().flatten();
        let cfg = self.args.config(&item.name, core, Instant::now())?;
        let report = run_exceptions(session, &cfg, &mut |_, _, _| {})?;
        let s = &report.summary;
        let replay = self.args.replay();
        Ok(Analysed {
            records: exceptions_lines(&report, &replay)
                .iter()
                .map(json_line)
                .collect(),
            line: print_exceptions::summary_line(s),
            findings: fpscout_search::findings::from_exceptions(&report, &replay),
            tally: ExceptionsTotal::from(s),
        })
    }

    fn total_text(&self, counts: Counts, t: &ExceptionsTotal) -> String {
        format!(
            "total: {} functions analysed, {} not; x/y {}/{}; {} findings, {} potentially avoidable; Z3 {} sat, {} unsat, {} unknown; fallback {} sat, {} unknown",
            counts.analysed,
            counts.not_analysed,
            t.locations,
            t.pairs,
            t.findings,
            t.avoidable,
            t.z3_sat,
            t.z3_unsat,
            t.z3_unknown,
            t.fallback_sat,
            t.fallback_unknown
        )
    }
}
