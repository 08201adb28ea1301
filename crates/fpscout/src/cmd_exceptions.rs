//! The `fpscout exceptions` command: one function, or every exported function with number
//! parameters spread over worker processes, one summary line each and a total.

use crate::cli_inputs::{CommonArgs, EXCEPTIONS};
use crate::outputs::{FindingOutputs, Progress, ShardArg};
use crate::print_exceptions;
use crate::{BuildChoice, Linking};
use fpscout_ir::{Function, ScalarTy, Type};
use fpscout_report::finding::Mode;
use fpscout_report::ledger::Shard;
use fpscout_report::repro::ReproBuilds;
use fpscout_report::InputError;
use fpscout_search::exceptions::{run_exceptions, ExceptionsConfig, Summary};
use fpscout_search::session::Session;
use fpscout_search::sources::{CompileArgs, FpCoreFunction};
use fpscout_toolchain::{BuildKind, SourceKind};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// The record type a worker passes its findings to the parent in (never printed).
const FINDING_MODEL: &str = "finding_model";

#[derive(clap::Args)]
pub struct ExceptionsArgs {
    /// C/C++ sources (.c, .cc, .cpp), LLVM IR (.ll, .bc) or FPCore (.fpcore), linked
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
    /// Witnesses shown per operation and kind
    #[arg(long, default_value_t = 3)]
    witnesses: usize,
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
    /// The functions translated from FPCore files, by C name (their :pre ranges).
    #[arg(skip)]
    fpcore: HashMap<String, FpCoreFunction>,
}

impl ExceptionsArgs {
    fn config(&self, function: &str, started: Instant) -> Result<ExceptionsConfig, InputError> {
        let mut cfg = ExceptionsConfig::new(function);
        cfg.common = self.common.config(function, self.build.kind(), started)?;
        if let Some(f) = self.fpcore.get(function) {
            f.ranges_under(&mut cfg.common.ranges);
        }
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
        Ok(cfg)
    }

    fn build_kind(&self) -> BuildKind {
        self.build.kind()
    }
}

/// Whether a whole-library run analyses `f`: exported, number parameters, at least one
/// of them a float.
fn analysable(f: &Function) -> bool {
    let number = |t: Type| matches!(t, Type::Scalar(ScalarTy::Float(_) | ScalarTy::Int(_)));
    f.external
        && f.params.iter().all(|p| number(p.ty))
        && f.params
            .iter()
            .any(|p| matches!(p.ty, Type::Scalar(ScalarTy::Float(_))))
}

pub fn run(mut args: ExceptionsArgs, started: Instant) -> Result<ExitCode, InputError> {
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
    args.fpcore = fpcore
        .functions
        .iter()
        .map(|f| (f.c_name.clone(), f.clone()))
        .collect();
    // Only the analysed build is compiled; IR is cut down to what the function reaches.
    let open = |focus: Option<&str>| {
        Session::open_focused(
            &sources,
            flags.clone(),
            &args.linking.inputs(),
            &[args.build_kind()],
            focus,
        )
    };
    let shard = args.shard.parse()?;
    if let Some(function) = &args.function {
        args.shard.refuse_single("--function")?;
        let session = open(Some(function))?;
        let builds =
            || session.repro_builds(&sources, args.common.ftz_daz, &fpcore.temporary_dirs());
        return one_function(&args, &session, function, started, builds);
    }
    let session = open(None)?;
    let module = session.module(args.build_kind())?;
    let mut names: Vec<String> = module
        .functions
        .iter()
        .filter(|f| analysable(f))
        .map(|f| f.display_name.clone())
        .collect();
    if fpcore.only_fpcore {
        // The FPCore functions, in file order.
        names = fpcore
            .functions
            .iter()
            .map(|f| f.c_name.clone())
            .filter(|n| names.contains(n))
            .collect();
    } else {
        names.sort();
        names.dedup();
    }
    let whole = names.len();
    if let Some(shard) = shard {
        names = shard.select(&names);
    }
    if let Some(worker) = &args.worker {
        let (i, n) = parse_worker(worker)?;
        // A library given as one IR file: each function gets a session of what it
        // reaches (its executable then compiles that, not the whole library).
        let per_function = sources.files.len() == 1
            && SourceKind::of(&sources.files[0].path).is_ok_and(|k| k.is_ir());
        let session_of = |name: &str| -> Result<Option<Session>, InputError> {
            if per_function {
                open(Some(name)).map(Some)
            } else {
                Ok(None)
            }
        };
        return worker_run(&args, &session, &session_of, &names, i, n);
    }
    if whole == 0 {
        return Err(InputError(format!(
            "{} exports no function whose parameters are numbers (give one with --function)",
            sources.describe()
        )));
    }
    let unsupported: Vec<(String, String)> = fpcore
        .unsupported
        .iter()
        .map(|u| (u.label(), u.reason.clone()))
        .collect();
    // The workers' findings are reproduced as this session builds the program.
    let builds = || session.repro_builds(&sources, args.common.ftz_daz, &fpcore.temporary_dirs());
    whole_library(&args, &names, shard, &unsupported, builds)
}

fn one_function(
    args: &ExceptionsArgs,
    session: &Session,
    function: &str,
    started: Instant,
    builds: impl FnOnce() -> ReproBuilds,
) -> Result<ExitCode, InputError> {
    let cfg = args.config(function, started)?;
    let mut bar = Progress::new(args.json, started, cfg.common.time_budget_s);
    let mut progress = |phase: &str, done: u64, total: u64| bar.update(phase, done, total);
    let report = run_exceptions(session, &cfg, &mut progress)?;
    bar.finish();
    let mut sink = args
        .outputs
        .start(Mode::Exceptions, &[function.to_string()], None)?;
    sink.found(&fpscout_search::findings::from_exceptions(&report))?;
    sink.covered(function, None)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        for x in &report.findings {
            let _ = writeln!(out, "{}", print_exceptions::finding_json(&report, x));
        }
        let _ = writeln!(out, "{}", print_exceptions::summary_json(&report));
    } else {
        print_exceptions::print_text(&mut out, &report);
    }
    drop(out);
    sink.finish(builds, args.json, !report.findings.is_empty())
}

fn parse_worker(text: &str) -> Result<(usize, usize), InputError> {
    let bad = || InputError(format!("--worker expects I/N with I < N, got '{text}'"));
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n) = (
        i.parse::<usize>().map_err(|_| bad())?,
        n.parse::<usize>().map_err(|_| bad())?,
    );
    if i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// A worker: its share of the functions, one after the other in this process (the
/// session is compiled once), each ending with its summary record; a function that
/// cannot be analysed gets an `{"type":"unsupported"}` record and the run goes on.
fn worker_run(
    args: &ExceptionsArgs,
    session: &Session,
    session_of: &dyn Fn(&str) -> Result<Option<Session>, InputError>,
    names: &[String],
    i: usize,
    n: usize,
) -> Result<ExitCode, InputError> {
    let mut out = std::io::stdout().lock();
    for name in names.iter().skip(i).step_by(n) {
        let cfg = args.config(name, Instant::now())?;
        let analysed = session_of(name).and_then(|own| {
            run_exceptions(own.as_ref().unwrap_or(session), &cfg, &mut |_, _, _| {})
        });
        match analysed {
            Ok(report) => {
                for x in &report.findings {
                    let _ = writeln!(out, "{}", print_exceptions::finding_json(&report, x));
                }
                if args.outputs.wanted() {
                    // For the parent's SARIF log and reproducers, not for the user.
                    for finding in fpscout_search::findings::from_exceptions(&report) {
                        let record = serde_json::json!({"type": FINDING_MODEL, "data": finding});
                        let _ = writeln!(out, "{record}");
                    }
                }
                let _ = writeln!(out, "{}", print_exceptions::summary_json(&report));
            }
            Err(e) => {
                let record = serde_json::json!({"type": "unsupported", "data": {
                    "function": name, "reason": e.to_string(),
                }});
                let _ = writeln!(out, "{record}");
            }
        }
        let _ = out.flush();
    }
    Ok(ExitCode::SUCCESS)
}

/// Every function, over `--jobs` worker processes (each compiles the source once and
/// takes every N-th function): one line per function as it finishes, then the total.
fn whole_library(
    args: &ExceptionsArgs,
    names: &[String],
    shard: Option<Shard>,
    unsupported: &[(String, String)],
    builds: impl FnOnce() -> ReproBuilds,
) -> Result<ExitCode, InputError> {
    let mut sink = args.outputs.start(Mode::Exceptions, names, shard)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
        })
        .clamp(1, names.len().max(1));
    let exe = std::env::current_exe()
        .map_err(|e| InputError(format!("cannot find the fpscout executable: {e}")))?;
    // The worker gets this command line with the worker flag, one solver thread each.
    let own: Vec<String> = std::env::args().skip(1).collect();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let mut children = Vec::new();
    for i in 0..jobs {
        let mut cmd = std::process::Command::new(&exe);
        cmd.args(&own)
            .arg("--worker")
            .arg(format!("{i}/{jobs}"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit());
        if args.jobs.is_none() {
            cmd.arg("--jobs").arg("1");
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| InputError(format!("cannot start a worker: {e}")))?;
        let Some(stdout) = child.stdout.take() else {
            return Err(InputError("a worker has no output pipe".into()));
        };
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        children.push(child);
    }
    drop(tx);
    let mut out = std::io::stdout().lock();
    let mut totals = Total::default();
    let header = format!(
        "{:<32} {:>9} {:>13}  {:<15}  {:<11}  {:<12}",
        "function", "loc/pairs", "", "targets", "z3 s/u/?", "fallback s/?"
    );
    if !args.json {
        let _ = writeln!(out, "{header}");
    }
    // FPCores that could not be translated, before the functions that were.
    for (name, reason) in unsupported {
        totals.unsupported += 1;
        if args.json {
            let record = serde_json::json!({"type": "unsupported", "data": {
                "function": name, "reason": reason,
            }});
            let _ = writeln!(out, "{record}");
        } else {
            let _ = writeln!(out, "{name:<32} not supported: {reason}");
        }
    }
    for line in rx {
        let Ok(record) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if record["type"] == FINDING_MODEL {
            match serde_json::from_value(record["data"].clone()) {
                Ok(finding) => sink.found(&[finding])?,
                Err(e) => eprintln!("fpscout: warning: a worker's finding is unreadable: {e}"),
            }
            continue;
        }
        if args.json {
            let _ = writeln!(out, "{line}");
        }
        match record["type"].as_str() {
            Some("summary") => {
                let Ok(s) = serde_json::from_value::<SummaryLine>(record["data"].clone()) else {
                    continue;
                };
                sink.covered(&s.function, None)?;
                totals.add(&s);
                if !args.json {
                    let _ = writeln!(out, "{}", print_exceptions::summary_line(&s.into_summary()));
                }
            }
            Some("unsupported") => {
                totals.unsupported += 1;
                if let Some(function) = record["data"]["function"].as_str() {
                    let reason = record["data"]["reason"].as_str().unwrap_or("?");
                    sink.covered(function, Some(reason.to_string()))?;
                }
                if !args.json {
                    let _ = writeln!(
                        out,
                        "{:<32} not analysed: {}",
                        record["data"]["function"].as_str().unwrap_or("?"),
                        record["data"]["reason"].as_str().unwrap_or("?")
                    );
                }
            }
            _ => {}
        }
        let _ = out.flush();
    }
    for mut child in children {
        let _ = child.wait();
    }
    let total = serde_json::json!({"type": "total", "data": {
        "functions": totals.functions, "unsupported": totals.unsupported,
        "locations": totals.locations, "pairs": totals.pairs,
        "avoidable": totals.avoidable, "findings": totals.findings,
        "z3_sat": totals.z3_sat, "z3_unsat": totals.z3_unsat, "z3_unknown": totals.z3_unknown,
        "fallback_sat": totals.fallback_sat, "fallback_unknown": totals.fallback_unknown,
        "wall_seconds": totals.wall_seconds,
    }});
    if args.json {
        let _ = writeln!(out, "{total}");
    } else {
        let _ = writeln!(
            out,
            "total: {} functions analysed, {} not; x/y {}/{}; {} findings, {} potentially avoidable; Z3 {} sat, {} unsat, {} unknown; fallback {} sat, {} unknown",
            totals.functions,
            totals.unsupported,
            totals.locations,
            totals.pairs,
            totals.findings,
            totals.avoidable,
            totals.z3_sat,
            totals.z3_unsat,
            totals.z3_unknown,
            totals.fallback_sat,
            totals.fallback_unknown
        );
    }
    drop(out);
    sink.finish(builds, args.json, totals.findings > 0)
}

/// The fields of a worker's summary record the totals read.
#[derive(serde::Deserialize)]
struct SummaryLine {
    function: String,
    locations: usize,
    pairs: usize,
    avoidable: usize,
    findings: usize,
    targets: usize,
    targets_confirmed: usize,
    queries: QueryLine,
    wall_seconds: f64,
}

#[derive(serde::Deserialize)]
struct QueryLine {
    z3_sat: usize,
    z3_unsat: usize,
    z3_unknown: usize,
    fallback_sat: usize,
    fallback_unknown: usize,
}

impl SummaryLine {
    fn into_summary(self) -> Summary {
        let mut s = Summary {
            function: self.function,
            locations: self.locations,
            pairs: self.pairs,
            avoidable: self.avoidable,
            findings: self.findings,
            targets: self.targets,
            targets_confirmed: self.targets_confirmed,
            wall_seconds: self.wall_seconds,
            ..Summary::default()
        };
        s.queries.z3_sat = self.queries.z3_sat;
        s.queries.z3_unsat = self.queries.z3_unsat;
        s.queries.z3_unknown = self.queries.z3_unknown;
        s.queries.fallback_sat = self.queries.fallback_sat;
        s.queries.fallback_unknown = self.queries.fallback_unknown;
        s
    }
}

#[derive(Default)]
struct Total {
    functions: usize,
    unsupported: usize,
    locations: usize,
    pairs: usize,
    avoidable: usize,
    findings: usize,
    z3_sat: usize,
    z3_unsat: usize,
    z3_unknown: usize,
    fallback_sat: usize,
    fallback_unknown: usize,
    wall_seconds: f64,
}

impl Total {
    fn add(&mut self, s: &SummaryLine) {
        self.functions += 1;
        self.locations += s.locations;
        self.pairs += s.pairs;
        self.avoidable += s.avoidable;
        self.findings += s.findings;
        self.z3_sat += s.queries.z3_sat;
        self.z3_unsat += s.queries.z3_unsat;
        self.z3_unknown += s.queries.z3_unknown;
        self.fallback_sat += s.queries.fallback_sat;
        self.fallback_unknown += s.queries.fallback_unknown;
        self.wall_seconds += s.wall_seconds;
    }
}
