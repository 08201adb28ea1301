//! The `fpscout reach` command: its arguments, the run (one function, or every function
//! through the work list), and the report as text or JSON Lines.

use crate::cli_inputs::{CommonArgs, REACH};
use crate::outputs::json_line;
use crate::worklist::{self, Analysed, Counts, DefaultJobs, Item, WholeRun};
use crate::{BuildChoice, Linking};
use fpscout_report::args::inputs_text;
use fpscout_report::finding::Mode;
use fpscout_report::replay::Replay;
use fpscout_report::InputError;
use fpscout_search::reach::{
    run_reach, PathCounts, PathSolver, ReachAnswer, ReachConfig, ReachReport, Target,
};
use fpscout_search::records::{reach_lines, ReachTotal};
use fpscout_search::session::Session;
use fpscout_search::sources::CompileArgs;
use fpscout_search::verdict::{coverage_text, reach_coverage};
use fpscout_toolchain::BuildKind;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct ReachArgs {
    /// C/C++ sources (.c, .cc, .cpp; preprocessed .i, .ii) or LLVM IR (.ll, .bc), linked into one program; an
    /// SV-COMP-style program (main reading __VERIFIER_nondet_*) is analysed as a whole
    #[arg(required = true, value_name = "FILE")]
    source_files: Vec<PathBuf>,
    /// Function to analyse (`main` of an SV-COMP program: its harness); default: an
    /// SV-COMP program's harness, else every exported function whose parameters are
    /// numbers, each with its own --time-budget
    #[arg(long, short = 'f')]
    function: Option<String>,
    /// Build to analyse
    #[arg(long, value_enum, default_value = "p")]
    build: BuildChoice,
    #[command(flatten)]
    common: CommonArgs<REACH>,
    /// Target: the float result in [LO, HI] (default target: a failed assertion)
    #[arg(
        long,
        value_name = "LO:HI",
        allow_hyphen_values = true,
        conflicts_with = "outside"
    )]
    output_range: Option<String>,
    /// Target: the float result below LO or above HI (CPBPV_FP's suspicious values)
    #[arg(long, value_name = "LO:HI", allow_hyphen_values = true)]
    outside: Option<String>,
    /// How often one symbolic branch may fork on a path (loop unrolling bound)
    #[arg(long, default_value_t = 8)]
    loop_bound: u32,
    /// Paths explored at most
    #[arg(long, default_value_t = 1024)]
    max_paths: usize,
    /// Float-solver search nodes per path reaching the target
    #[arg(long, default_value_t = 200_000)]
    node_budget: u64,
    /// What solves each path reaching the target: fpscout's float solver, or Z3's
    /// floating-point theory (QF_FP) on the same path constraints (the baseline)
    #[arg(long, value_enum, default_value = "float")]
    solver: SolverChoice,
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    linking: Linking,
    #[command(flatten)]
    outputs: crate::outputs::FindingOutputs,
    /// For an SV-COMP program: write a reachable answer's witness as a Test-Comp test
    /// case (test-format 1.1 XML: the nondet values in call order) to FILE
    #[arg(long, value_name = "FILE")]
    witness: Option<PathBuf>,
    /// JSON Lines: a {"type":"witness"} record when reachable, then {"type":"answer"}
    /// (per function, then a {"type":"total"} without --function)
    #[arg(long)]
    json: bool,
    /// Without --function: functions analysed at once, in worker processes (default:
    /// all cores)
    #[arg(long)]
    jobs: Option<usize>,
    #[command(flatten)]
    shard: crate::outputs::ShardArg,
    /// Worker process of a whole-file run: analyse the functions I (0-based) of every N,
    /// in JSON Lines
    #[arg(long, hide = true, value_name = "I/N")]
    worker: Option<String>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SolverChoice {
    Float,
    Z3fp,
}

fn parse_interval(text: &str, flag: &str) -> Result<(f64, f64), InputError> {
    let bad = || InputError(format!("{flag} expects LO:HI with LO <= HI, got '{text}'"));
    let (lo, hi) = text.split_once(':').ok_or_else(bad)?;
    let parse = |s: &str| {
        fpscout_report::args::parse_float(s.trim(), fpscout_ir::FloatTy::F64).map(f64::from_bits)
    };
    let (lo, hi) = (parse(lo).map_err(|_| bad())?, parse(hi).map_err(|_| bad())?);
    if lo.is_nan() || hi.is_nan() || lo > hi {
        return Err(bad());
    }
    Ok((lo, hi))
}

impl ReachArgs {
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

    fn config(&self, function: &str, started: Instant) -> Result<ReachConfig, InputError> {
        let target = match (&self.output_range, &self.outside) {
            (Some(r), _) => {
                let (lo, hi) = parse_interval(r, "--output-range")?;
                Target::ResultInside(lo, hi)
            }
            (None, Some(r)) => {
                let (lo, hi) = parse_interval(r, "--outside")?;
                Target::ResultOutside(lo, hi)
            }
            (None, None) => Target::FailedAssertion,
        };
        let mut cfg = ReachConfig::new(function, target);
        cfg.common = self.common.config(function, self.build_kind(), started)?;
        cfg.loop_bound = self.loop_bound;
        cfg.max_paths = self.max_paths.max(1);
        cfg.node_budget = self.node_budget;
        cfg.solver = match self.solver {
            SolverChoice::Float => PathSolver::FloatSolver,
            SolverChoice::Z3fp => PathSolver::Z3FloatTheory,
        };
        Ok(cfg)
    }

    fn build_kind(&self) -> BuildKind {
        self.build.kind()
    }
}

pub fn run(mut args: ReachArgs, started: Instant) -> Result<ExitCode, InputError> {
    let mut flags = args.common.build_flags();
    // Checked before compiling: a typo should not cost a build.
    args.config("", started)?;
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
    let harnessed = fpcore.harness.is_some()
        && args.function.as_deref() == Some(fpscout_search::svcomp::HARNESS_FUNCTION);
    if args.witness.is_some() && !harnessed {
        return Err(InputError(
            "--witness writes a Test-Comp test case: it needs an SV-COMP program (main reading \
             __VERIFIER_nondet_*), analysed as a whole"
                .into(),
        ));
    }
    let Some(name) = &args.function else {
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
        return worklist::run_program(
            &WholeReach { args: &args },
            program,
            worklist::number_parameters,
            &options,
        );
    };
    args.shard.refuse_single("an SV-COMP program's harness")?;
    let function = match fpcore.resolve(name)? {
        Some(f) => f.c_name.clone(),
        None => name.clone(),
    };
    let cfg = args.config(&function, started)?;
    let session = Session::open_focused(
        &sources,
        flags,
        &args.linking.inputs(),
        &[args.build_kind()],
        Some(&function),
    )?;
    // Progress on stderr at most once a second, only for runs long enough to need it.
    let mut pace = crate::outputs::ProgressPace::new(started);
    let mut progress = |counts: &PathCounts| {
        if !pace.due() {
            return;
        }
        eprintln!(
            "fpscout: reach: {} paths, {} ending at the target ({} infeasible), {:.0} s",
            counts.explored,
            counts.target,
            counts.infeasible,
            started.elapsed().as_secs_f64()
        );
    };
    let report = run_reach(&session, &cfg, &mut progress)?;
    let mut sink = args
        .outputs
        .start(Mode::Reach, std::slice::from_ref(&function), None)?;
    let replay = args.replay();
    sink.found(&fpscout_search::findings::from_reach(&report, &replay))?;
    sink.covered(&function, None)?;
    if let Some(path) = &args.witness {
        match &report.witness {
            Some(w) => {
                let xml = fpscout_search::svcomp::testcase_xml(&report.params, &w.inputs)?;
                std::fs::write(path, xml)
                    .map_err(|e| InputError(format!("cannot write {}: {e}", path.display())))?;
            }
            None => eprintln!(
                "fpscout: note: no test case written to {}: the answer is not reachable",
                path.display()
            ),
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        for record in reach_lines(&report, &replay) {
            let _ = writeln!(out, "{}", json_line(&record));
        }
    } else {
        print_text(&mut out, &report, &replay);
    }
    drop(out);
    sink.finish(
        || session.repro_builds(&sources, args.common.ftz_daz, &fpcore.temporary_dirs()),
        args.json,
        report.verdict(),
    )
}

/// `reach` in a whole-file run.
struct WholeReach<'a> {
    args: &'a ReachArgs,
}

impl WholeRun for WholeReach<'_> {
    type Tally = ReachTotal;
    const MODE: Mode = Mode::Reach;
    const NAME_WIDTH: usize = 32;

    fn header(&self) -> String {
        format!("{:<32} answer", "function")
    }

    fn analyse(
        &self,
        session: &Session,
        item: &Item,
        _quiet: bool,
    ) -> Result<Analysed<ReachTotal>, InputError> {
        let cfg = self.args.config(&item.name, Instant::now())?;
        let report = run_reach(session, &cfg, &mut |_| {})?;
        let replay = self.args.replay();
        let mut line = format!("{:<32} {}", item.label, answer_line(&report));
        if let Some(w) = &report.witness {
            line += &format!(
                "; witness ({}): {}",
                report.method,
                inputs_text(&report.params, &w.inputs)
            );
        }
        Ok(Analysed {
            records: reach_lines(&report, &replay)
                .iter()
                .map(json_line)
                .collect(),
            line,
            findings: fpscout_search::findings::from_reach(&report, &replay),
            tally: ReachTotal::from(&report),
        })
    }

    fn total_text(&self, counts: Counts, t: &ReachTotal) -> String {
        format!(
            "total: {} functions analysed, {} not; {} reachable, {} unreachable, {} unknown; {:.1} s",
            counts.analysed, counts.not_analysed, t.reachable, t.unreachable, t.unknown, t.wall_seconds
        )
    }
}

fn answer_line(report: &ReachReport) -> String {
    match &report.answer {
        ReachAnswer::Reachable => "reachable".into(),
        ReachAnswer::Unreachable if report.method == "one run" => {
            "unreachable (no input: the program's one run, on the interpreter and the \
             executable, ends without reaching the target)"
                .into()
        }
        ReachAnswer::Unreachable => format!(
            "unreachable (every path explored: {} paths, {} of them ending at the target, all infeasible over floats{})",
            report.paths.explored,
            report.paths.target,
            if report.exhausted_inputs > 0 {
                format!(", some by enumerating {} inputs", report.exhausted_inputs)
            } else {
                String::new()
            }
        ),
        ReachAnswer::UnreachableWithinBound { bound, cut } => format!(
            "unreachable within loop bound {bound} ({} paths explored, {} of them ending at the \
             target, all infeasible over floats; {cut} paths cut at the bound)",
            report.paths.explored, report.paths.target
        ),
        ReachAnswer::Unknown { reason } => format!("unknown: {reason}"),
    }
}

fn print_text(out: &mut impl Write, report: &ReachReport, replay: &Replay) {
    let _ = writeln!(
        out,
        "{} (build {}), target {}: {}",
        report.function,
        report.build,
        report.target.describe(),
        answer_line(report)
    );
    if let Some(w) = &report.witness {
        let inputs = if w.inputs.is_empty() {
            "no input".to_string()
        } else {
            inputs_text(&report.params, &w.inputs)
        };
        let _ = writeln!(out, "  witness ({}): {inputs}", report.method);
        let _ = writeln!(out, "  executable: {}", w.native);
        let _ = writeln!(
            out,
            "  replay: {}",
            replay.command(&report.function, &report.params, &w.inputs)
        );
    }
    let p = &report.paths;
    if report.method == "random" {
        let _ = writeln!(
            out,
            "  random baseline: {} inputs run, {:.2} s",
            report.random_inputs, report.wall_s
        );
        return;
    }
    let _ = writeln!(out, "  {}", coverage_text(&reach_coverage(report)));
    let _ = writeln!(
        out,
        "  paths: {} explored, {} branch directions pruned, {} ending at the target ({} infeasible), {} unknown, {} cut at loop bound {}; solver nodes {}; inputs enumerated {}; {:.2} s",
        p.explored,
        p.pruned,
        p.target,
        p.infeasible,
        p.unknown,
        p.cut,
        report.loop_bound,
        report.solver_nodes,
        report.exhausted_inputs,
        report.wall_s
    );
}
