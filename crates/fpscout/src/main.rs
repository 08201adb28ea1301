//! The `fpscout` command line: argument parsing, dispatch, printing and exit codes.

mod cmd_exceptions;
mod print_diff;
mod print_exceptions;
mod print_inputs;

use clap::{Parser, Subcommand};
use fpscout::libraries::LinkInput;
use fpscout::run::{run_both, RunBudget, RunRecord};
use fpscout::session::{FtzDazChoice, Session};
use fpscout::sources::CompileArgs;
use fpscout::InputError;
use fpscout_toolchain::{BuildFlags, BuildKind};
use fpscout_walk::WalkConfig;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "fpscout",
    version,
    about = "Finds inputs that make floating-point C/C++ code misbehave"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Find inputs on which P and the fast-math P' differ in exceptions or results:
    /// solve the exception conditions of both builds over the reals (Z3), search the
    /// neighbouring floats, and confirm every difference natively. Exit code 1 when
    /// differences were found, 0 when none.
    Diff {
        /// C/C++ sources (.c, .cc, .cpp) or LLVM IR (.ll, .bc), linked into one program;
        /// optional with --compile-commands (then every entry)
        #[arg(required_unless_present = "compile_commands", value_name = "FILE")]
        source_files: Vec<PathBuf>,
        /// Function to compare (C name; C++ functions by their source name)
        #[arg(long, short = 'f')]
        function: String,
        /// Restrict a float parameter (every element of an array): NAME=LO:HI
        #[arg(long = "range", value_name = "NAME=LO:HI")]
        ranges: Vec<String>,
        /// Value of an integer parameter: NAME=VALUE (default 0)
        #[arg(long = "int", value_name = "NAME=VALUE", allow_hyphen_values = true)]
        ints: Vec<String>,
        /// Length of an array parameter: NAME=N (default 8)
        #[arg(long = "array-len", value_name = "NAME=N")]
        array_lens: Vec<String>,
        /// Compiler flags of P' (default: "-O3 -ffast-math")
        #[arg(long, allow_hyphen_values = true)]
        opt_flags: Option<String>,
        #[arg(long, value_enum, default_value = "auto")]
        ftz_daz: FtzDazChoice,
        /// How often one symbolic branch may fork on a path (loop unrolling bound)
        #[arg(long, default_value_t = 8)]
        loop_bound: u32,
        /// Paths explored per build
        #[arg(long, default_value_t = 256)]
        max_paths: usize,
        /// Timeout of each solver query, in milliseconds
        #[arg(long, default_value_t = 200)]
        timeout_ms: u32,
        /// Solver threads (default: all cores)
        #[arg(long)]
        jobs: Option<usize>,
        /// Seconds the solver phase may take in all (half for the plain exception queries, the
        /// rest for the differential ones); queries left are reported as not attempted.
        /// Default: 3 s plus 5 ms per query beyond 200, at most 45 s
        #[arg(long)]
        solve_budget: Option<f64>,
        /// Seconds the symbolic exploration of both builds may take (half each); paths left
        /// are reported as a stop reason
        #[arg(long, default_value_t = 4.0)]
        explore_budget: f64,
        /// Seconds the random phase may take (inputs that crash the executable cost a
        /// restart each); inputs left are reported as a stop reason
        #[arg(long, default_value_t = 5.0)]
        random_budget: f64,
        /// Seconds the whole run may take: every phase ends by it (the phase budgets are
        /// finer limits inside it) and what was cut short is listed with a reason
        #[arg(long, default_value_t = fpscout::diff::DEFAULT_TIME_BUDGET_S)]
        time_budget: f64,
        /// Milliseconds an executable may run on one input before it is killed and the
        /// input counts as not terminating (a build that ends where the other does not is
        /// a `termination` difference)
        #[arg(long, default_value_t = 200)]
        hang_limit_ms: u64,
        /// Results more than this many ulps apart count as different
        #[arg(long, default_value_t = 0)]
        tolerance: u64,
        /// Concrete evaluations around each solver candidate
        #[arg(long, default_value_t = 64)]
        search_budget: usize,
        /// Random inputs replayed natively in the cheap phase
        #[arg(long, default_value_t = 100_000)]
        random: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Skip the solver (random phase only)
        #[arg(long)]
        random_only: bool,
        /// Also list differences the native replay did not confirm
        #[arg(long)]
        show_unconfirmed: bool,
        /// After the search, run every input of the function (one float parameter: all
        /// 2^32 of a `float`, a 2^32 sample of a `double`) on both executables and report
        /// the recall of the difference signatures that exist (about a minute)
        #[arg(long)]
        oracle: bool,
        #[command(flatten)]
        compile: CompileArgs,
        #[command(flatten)]
        linking: Linking,
        /// JSON Lines: one {"type":"finding"} record per confirmed finding, then a summary
        #[arg(long)]
        json: bool,
    },
    /// Find inputs that make each floating-point operation of one build overflow,
    /// underflow, divide by zero or go invalid (Ariadne): solve each operation's
    /// exception conditions (Z3, then a fallback solver), search the floats around each
    /// model and random inputs on the executable, and keep what its traced run raises at
    /// each operation. Without --function, every exported function with number
    /// parameters. Exit code 1 when exceptions were found, 0 when none.
    Exceptions(cmd_exceptions::ExceptionsArgs),
    /// Evaluate one input on P (-O0) and P' (optimised): results, exception traces, and a
    /// native replay of each build to confirm them.
    Run {
        /// C/C++ sources (.c, .cc, .cpp) or LLVM IR (.ll, .bc), linked into one program;
        /// optional with --compile-commands (then every entry)
        #[arg(required_unless_present = "compile_commands", value_name = "FILE")]
        source_files: Vec<PathBuf>,
        /// Function to evaluate
        #[arg(long, short = 'f')]
        function: String,
        /// Comma-separated arguments: floats as decimal, hex float (0x1p-1022), inf, -inf,
        /// nan or bits:0x…; integers; arrays for pointer parameters as [v1,v2,...]
        #[arg(long, allow_hyphen_values = true)]
        args: String,
        /// Compiler flags of P' (default: "-O3 -ffast-math")
        #[arg(long, allow_hyphen_values = true)]
        opt_flags: Option<String>,
        /// Flush-to-zero / denormals-are-zero: auto = as each executable really runs
        /// (a -ffast-math P' links crtfastmath.o, which turns both on)
        #[arg(long, value_enum, default_value = "auto")]
        ftz_daz: FtzDazChoice,
        /// Instructions the interpreter may execute before stopping
        #[arg(long, default_value_t = 10_000_000)]
        step_budget: u64,
        /// Seconds the whole run may take: an interpretation still running then stops
        /// with a reason, and each executable gets at most its share of what is left
        #[arg(long, default_value_t = 60.0)]
        time_budget: f64,
        /// Milliseconds an executable may run before it is killed and reported as not
        /// returning
        #[arg(long, default_value_t = 2000)]
        hang_limit_ms: u64,
        /// Also list inexact events in the text report
        #[arg(long)]
        show_inexact: bool,
        #[command(flatten)]
        compile: CompileArgs,
        #[command(flatten)]
        linking: Linking,
        /// JSON Lines output, one {"type":"run","data":{...}} record per build
        #[arg(long)]
        json: bool,
    },
}

/// Inputs the oracle samples for functions of several float parameters.
const ORACLE_SAMPLES: usize = 1 << 20;

/// Libraries the code calls into, for both builds' executables and the interpreter.
#[derive(clap::Args)]
pub(crate) struct Linking {
    /// Link with libNAME (.so preferred, else .a), as the compiler's -l
    #[arg(short = 'l', value_name = "NAME")]
    libs: Vec<String>,
    /// Search DIR for -l libraries (and find its .so files at run time)
    #[arg(short = 'L', value_name = "DIR")]
    lib_dirs: Vec<PathBuf>,
    /// Link with this .so, .a or .o file
    #[arg(long = "link", value_name = "FILE")]
    files: Vec<PathBuf>,
}

impl Linking {
    /// Directories first, then files, then names, as a linker wants them.
    pub(crate) fn inputs(&self) -> Vec<LinkInput> {
        self.lib_dirs
            .iter()
            .map(|d| LinkInput::Dir(d.clone()))
            .chain(self.files.iter().map(|f| LinkInput::File(f.clone())))
            .chain(self.libs.iter().map(|n| LinkInput::Name(n.clone())))
            .collect()
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fpscout: error: {e}");
            ExitCode::from(2)
        }
    }
}

pub(crate) fn parse_pairs<T: std::str::FromStr>(
    items: &[String],
    what: &str,
) -> Result<HashMap<String, T>, InputError> {
    let mut out = HashMap::new();
    for it in items {
        let (name, value) = it
            .split_once('=')
            .ok_or_else(|| InputError(format!("--{what} expects NAME=VALUE, got '{it}'")))?;
        let v = value
            .trim()
            .parse::<T>()
            .map_err(|_| InputError(format!("--{what} {it}: '{value}' is not a valid value")))?;
        out.insert(name.trim().to_string(), v);
    }
    Ok(out)
}

pub(crate) fn parse_ranges(items: &[String]) -> Result<HashMap<String, (f64, f64)>, InputError> {
    let mut out = HashMap::new();
    for it in items {
        let bad = || {
            InputError(format!(
                "--range expects NAME=LO:HI with finite LO <= HI, got '{it}'"
            ))
        };
        let (name, r) = it.split_once('=').ok_or_else(bad)?;
        let (lo, hi) = r.split_once(':').ok_or_else(bad)?;
        let parse =
            |s: &str| fpscout::args::parse_float(s, fpscout_ir::FloatTy::F64).map(f64::from_bits);
        let (lo, hi) = (parse(lo).map_err(|_| bad())?, parse(hi).map_err(|_| bad())?);
        if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
            return Err(bad());
        }
        out.insert(name.trim().to_string(), (lo, hi));
    }
    Ok(out)
}

fn dispatch(cli: Cli) -> Result<ExitCode, InputError> {
    // Time budgets count from here: compiling the source is part of the run.
    let started = std::time::Instant::now();
    match cli.command {
        Command::Exceptions(args) => cmd_exceptions::run(args, started),
        Command::Diff {
            source_files,
            function,
            ranges,
            ints,
            array_lens,
            opt_flags,
            ftz_daz,
            loop_bound,
            max_paths,
            timeout_ms,
            jobs,
            solve_budget,
            explore_budget,
            random_budget,
            hang_limit_ms,
            time_budget,
            tolerance,
            search_budget,
            random,
            seed,
            random_only,
            show_unconfirmed,
            oracle,
            compile,
            linking,
            json,
        } => {
            let mut flags = match &opt_flags {
                Some(f) => BuildFlags::with_p_prime(f),
                None => BuildFlags::default(),
            };
            let sources = compile.apply(&source_files, &mut flags)?;
            let mut cfg = fpscout::diff::DiffConfig::new(&function);
            cfg.ranges = parse_ranges(&ranges)?;
            cfg.ints = parse_pairs(&ints, "int")?;
            cfg.array_lens = parse_pairs(&array_lens, "array-len")?;
            cfg.collect.loop_bound = loop_bound;
            cfg.collect.max_paths = max_paths;
            cfg.query_timeout_ms = timeout_ms;
            if let Some(j) = jobs {
                cfg.threads = j.max(1);
            }
            cfg.tolerance_ulps = tolerance;
            let budgets = [
                ("--solve-budget", solve_budget),
                ("--explore-budget", Some(explore_budget)),
                ("--random-budget", Some(random_budget)),
                ("--time-budget", Some(time_budget)),
            ];
            for (flag, seconds) in budgets {
                let Some(seconds) = seconds else { continue };
                if !(seconds.is_finite() && seconds >= 0.0) {
                    return Err(InputError(format!(
                        "{flag} must be a number of seconds >= 0, not {seconds}"
                    )));
                }
            }
            cfg.solve_budget_s = solve_budget;
            cfg.explore_budget_s = explore_budget;
            cfg.random_budget_s = random_budget;
            if hang_limit_ms == 0 {
                return Err(InputError("--hang-limit-ms must be at least 1".into()));
            }
            cfg.hang_limit_ms = hang_limit_ms;
            cfg.time_budget_s = time_budget;
            cfg.search_budget = search_budget;
            cfg.random_inputs = random;
            cfg.seed = seed;
            cfg.ftz_daz = ftz_daz;
            cfg.random_only = random_only;
            cfg.started = Some(started);
            let session = Session::open_focused(
                &sources,
                flags,
                &linking.inputs(),
                &BuildKind::BOTH,
                Some(&function),
            )?;
            // Integer parameters and array lengths are not searched: say what they default to.
            let fid = session.function(BuildKind::P, &function)?;
            for p in &session.p()?.function(fid).params {
                match p.ty {
                    fpscout_ir::Type::Scalar(fpscout_ir::ScalarTy::Int(_))
                        if !cfg.ints.contains_key(&p.name) =>
                    {
                        eprintln!(
                            "fpscout: note: integer parameter '{}' is 0 (set it with --int {}=V)",
                            p.name, p.name
                        );
                    }
                    fpscout_ir::Type::Scalar(fpscout_ir::ScalarTy::Ptr)
                        if !cfg.array_lens.contains_key(&p.name) =>
                    {
                        eprintln!(
                            "fpscout: note: array parameter '{}' has 8 elements (set it with --array-len {}=N)",
                            p.name, p.name
                        );
                    }
                    _ => {}
                }
            }
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} {msg:22} [{bar:30}] {pos}/{len} {elapsed}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            // The bar draws only on a terminal; with --json a progress record goes to
            // stderr at most once a second, for scripts.
            let mut last_record: Option<std::time::Instant> = None;
            let mut progress = |phase: &str, done: u64, total: u64| {
                let left = (cfg.time_budget_s - started.elapsed().as_secs_f64()).max(0.0);
                bar.set_message(format!("{phase} ({left:.0} s left)"));
                bar.set_length(total);
                bar.set_position(done);
                if json && last_record.is_none_or(|t| t.elapsed().as_secs_f64() >= 1.0) {
                    last_record = Some(std::time::Instant::now());
                    let record = serde_json::json!({"type": "progress", "data": {
                        "phase": phase, "done": done, "total": total,
                        "elapsed_s": started.elapsed().as_secs_f64(), "left_s": left,
                    }});
                    eprintln!("{record}");
                }
            };
            let mut report = fpscout::diff::run_diff(&session, &cfg, &mut progress)?;
            if oracle {
                let one_float = session.p()?.function(fid).params.len() == 1;
                let o = if one_float {
                    fpscout::oracle::enumerate_signatures(
                        &session,
                        &function,
                        ftz_daz,
                        &mut |done, total| progress("oracle", done, total),
                    )?
                } else {
                    fpscout::oracle::sample_signatures(
                        &session,
                        &function,
                        ftz_daz,
                        ORACLE_SAMPLES,
                        &mut |done, total| progress("oracle", done, total),
                    )?
                };
                let r = fpscout::oracle::recall(&o, &report.flag_or_class_signatures());
                report.summary.recall_estimate = Some(r.recall);
                report.summary.recall = Some(r);
            }
            bar.finish_and_clear();
            let mut out = std::io::stdout().lock();
            if json {
                for x in report
                    .findings
                    .iter()
                    .filter(|x| x.confirmed || show_unconfirmed)
                {
                    let _ = writeln!(out, "{}", print_diff::finding_json(&report, x));
                }
                for record in print_diff::non_terminating_json(&report) {
                    let _ = writeln!(out, "{record}");
                }
                let _ = writeln!(out, "{}", print_diff::summary_json(&report));
            } else {
                print_diff::print_text(&mut out, &report, show_unconfirmed);
            }
            Ok(if report.summary.diff_confirmed > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Run {
            source_files,
            function,
            args,
            opt_flags,
            ftz_daz,
            step_budget,
            time_budget,
            hang_limit_ms,
            show_inexact,
            compile,
            linking,
            json,
        } => {
            let budget = RunBudget::starting_now(time_budget, hang_limit_ms)?;
            let mut flags = match &opt_flags {
                Some(f) => BuildFlags::with_p_prime(f),
                None => BuildFlags::default(),
            };
            let sources = compile.apply(&source_files, &mut flags)?;
            let session = Session::open_focused(
                &sources,
                flags,
                &linking.inputs(),
                &BuildKind::BOTH,
                Some(&function),
            )?;
            let config = WalkConfig {
                step_budget,
                deadline: Some(budget.deadline),
                ..WalkConfig::default()
            };
            let records = run_both(&session, &function, &args, ftz_daz, config, &budget)?;
            let mut out = std::io::stdout().lock();
            if json {
                for r in &records {
                    let line = serde_json::json!({ "type": "run", "data": r });
                    let _ = writeln!(out, "{line}");
                }
            } else {
                print_run(&mut out, &records, show_inexact);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Source text of `file:line:col` locations, read once per file.
#[derive(Default)]
struct SourceCache {
    files: HashMap<String, Option<Vec<String>>>,
}

impl SourceCache {
    /// `  | <source line>` for a `file:line:col` location, or nothing.
    fn suffix(&mut self, loc: Option<&str>) -> String {
        loc.and_then(|l| self.line(l))
            .map(|s| format!("  | {s}"))
            .unwrap_or_default()
    }

    fn line(&mut self, loc: &str) -> Option<String> {
        let mut parts = loc.rsplitn(3, ':');
        let _col = parts.next()?;
        let line: usize = parts.next()?.parse().ok()?;
        let file = parts.next()?.to_string();
        let lines = self.files.entry(file.clone()).or_insert_with(|| {
            std::fs::read_to_string(&file)
                .ok()
                .map(|s| s.lines().map(str::to_string).collect())
        });
        lines
            .as_ref()?
            .get(line.checked_sub(1)?)
            .map(|l| l.trim().to_string())
    }
}

fn print_run(out: &mut impl Write, records: &[RunRecord], show_inexact: bool) {
    let col = |r: &RunRecord, f: &dyn Fn(&RunRecord) -> String| f(r);
    type Row<'a> = (&'a str, Box<dyn Fn(&RunRecord) -> String>);
    let rows: Vec<Row> = vec![
        (
            "compiler flags",
            Box::new(|r: &RunRecord| r.compiler_flags.clone()),
        ),
        (
            "FTZ/DAZ",
            Box::new(|r: &RunRecord| if r.ftz_daz { "on".into() } else { "off".into() }),
        ),
        (
            "result",
            Box::new(
                |r: &RunRecord| match (&r.result, &r.result_decimal, &r.detail) {
                    (Some(h), Some(d), _) => format!("{d} ({h})"),
                    (Some(h), None, _) => h.clone(),
                    (None, _, Some(detail)) => format!("{} ({detail})", r.end),
                    (None, _, None) => "void".into(),
                },
            ),
        ),
        (
            "flags raised",
            Box::new(|r: &RunRecord| join_or_none(&r.flags)),
        ),
        (
            "native result",
            Box::new(|r: &RunRecord| match &r.native_result {
                Some(v) => v.clone(),
                None => r.native_end.to_string(),
            }),
        ),
        (
            "native flags",
            Box::new(|r: &RunRecord| join_or_none(&r.native_flags)),
        ),
        (
            "native events",
            Box::new(|r: &RunRecord| {
                let n = r.native_trace.len();
                format!(
                    "{n}{}",
                    if r.native_trace_truncated {
                        "+ (truncated)"
                    } else {
                        ""
                    }
                )
            }),
        ),
        (
            "trace agrees",
            Box::new(|r: &RunRecord| r.trace_match.describe().to_string()),
        ),
        (
            "agrees natively",
            Box::new(|r: &RunRecord| match (&r.native_note, r.agrees) {
                (Some(_), _) => "n/a (out of bounds, native result meaningless)".into(),
                (None, true) => "yes".into(),
                (None, false) => "NO".into(),
            }),
        ),
    ];
    let Some(first) = records.first() else { return };
    let _ = writeln!(out, "function {}", first.function);
    let table: Vec<(&str, Vec<String>)> = rows
        .iter()
        .map(|(name, f)| (*name, records.iter().map(|r| col(r, f.as_ref())).collect()))
        .collect();
    let width = table
        .iter()
        .filter_map(|(_, c)| c.first())
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max(8)
        + 3;
    let _ = writeln!(out, "{:<18}{:<width$}P'", "", "P");
    for (name, cells) in &table {
        let first = cells.first().cloned().unwrap_or_default();
        let second = cells.get(1).cloned().unwrap_or_default();
        let _ = writeln!(out, "{name:<18}{first:<width$}{second}");
    }
    let mut sources = SourceCache::default();
    for r in records {
        let shown: Vec<_> = r
            .exceptions
            .iter()
            .filter(|e| show_inexact || e.kind != "inexact")
            .collect();
        let _ = writeln!(
            out,
            "\n{} exception trace{}:",
            r.build,
            if show_inexact {
                ""
            } else {
                " (inexact hidden)"
            }
        );
        if shown.is_empty() {
            let _ = writeln!(out, "  (none)");
        }
        for e in shown {
            let loc = e.loc.clone().unwrap_or_else(|| "?".into());
            let lane = if e.lane > 0 {
                format!(" lane {}", e.lane)
            } else {
                String::new()
            };
            let src = sources.suffix(e.loc.as_deref());
            let _ = writeln!(
                out,
                "  {:<10} {:<14} {}{}{}",
                e.kind,
                format!("{}#{}", e.opcode, e.op),
                loc,
                lane,
                src
            );
        }
    }
    for r in records {
        let _ = writeln!(
            out,
            "\n{} native exception trace (the executable's own; inexact is not trapped):",
            r.build
        );
        if r.native_trace.is_empty() {
            let _ = writeln!(out, "  (none)");
        }
        for e in &r.native_trace {
            let loc = e.loc.clone().unwrap_or_else(|| "?".into());
            let src = sources.suffix(e.loc.as_deref());
            let _ = writeln!(out, "  {:<10} {:<14} {}{}", e.kind, e.insn, loc, src);
        }
        if r.native_trace_truncated {
            let _ = writeln!(out, "  ... (truncated: the rest of the call ran untraced)");
        }
        if let Some(note) = &r.native_note {
            let _ = writeln!(out, "  note: {note}");
        }
        if let Some(note) = &r.fast_math_note {
            let _ = writeln!(out, "  note: {note}");
        }
    }
    for r in records.iter().filter(|r| !r.backend_rewrites.is_empty()) {
        let _ = writeln!(
            out,
            "\n{}",
            print_diff::backend_rewrite_note(
                r.build,
                &r.backend_rewrites,
                "the native columns are the executable's"
            )
        );
    }
}

fn join_or_none(v: &[&str]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        // clap checks argument ids (flattened groups included) only when a command is
        // built, which would otherwise be the user's first run.
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
