//! The `fpscout` command line: argument parsing, dispatch, printing and exit codes.

mod cli_inputs;
mod cmd_diff;
mod cmd_error;
mod cmd_exceptions;
mod cmd_reach;
mod cmd_report;
mod listing;
mod outputs;
mod print_diff;
mod print_exceptions;
mod replay;
mod worklist;

use clap::{Parser, Subcommand};
use fpscout_report::InputError;
use fpscout_search::libraries::LinkInput;
use fpscout_search::run::{run_both, RunBudget, RunRecord};
use fpscout_search::session::{FtzDazChoice, Session};
use fpscout_search::sources::CompileArgs;
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
    about = "Finds inputs that make floating-point C/C++ code misbehave",
    after_help = "Exit codes of exceptions, diff, reach and error (one function or several): \
                  0 nothing found within the stated bounds; 1 findings; 2 bad input, or \
                  nothing could be measured; 3 unknown: nothing found, but the mode's own \
                  search could not run on all of what it was asked about. Several \
                  functions: 1 if any has findings, else 2 if none was measured, else 3 \
                  if any is unknown, unmeasured or not analysed, else 0."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Compile everything afresh: neither read nor fill the compile cache
    /// ($FPSCOUT_CACHE_DIR, else $XDG_CACHE_HOME/fpscout, else ~/.cache/fpscout; the
    /// environment variable FPSCOUT_NO_CACHE=1 does the same).
    #[arg(long, global = true)]
    no_cache: bool,
}

#[derive(Subcommand)]
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Find inputs on which P and the fast-math P' differ in exceptions or results:
    /// solve the exception conditions of both builds over the reals (Z3), search the
    /// neighbouring floats, and confirm every difference natively. Without --function,
    /// every exported function with number parameters (each FPCore of an FPCore file),
    /// a line each and a total. Exit code (every mode's contract): 0 nothing found
    /// within the stated bounds, 1 confirmed differences, 2 bad input or nothing measured
    /// (no input ran on both builds), 3 unknown (none found, but the solver could not
    /// walk every path: see the coverage line).
    Diff(cmd_diff::DiffArgs),
    /// Find inputs that make each floating-point operation of one build overflow,
    /// underflow, divide by zero or go invalid (Ariadne): solve each operation's
    /// exception conditions (Z3, then a fallback solver), search the floats around each
    /// model and random inputs on the executable, and keep what its traced run raises at
    /// each operation. Without --function, every exported function with number
    /// parameters, a line each and a total. Exit code (every mode's contract): 0
    /// nothing found within the stated bounds, 1 exceptions found, 2 bad input or nothing
    /// measured (no run of the executable completed), 3 unknown (none found, but the
    /// solver could not walk every path: see the coverage line).
    Exceptions(cmd_exceptions::ExceptionsArgs),
    /// Can any input reach a failing assertion (SV-COMP programs: reach_error) or drive
    /// a function's float result into (--output-range) or out of (--outside) an
    /// interval? Walks every path with a float-exact constraint solver (CPBPV_FP):
    /// a witness confirmed on the executable, a refutation over floats within the stated
    /// loop bound, or unknown with the reason. Without --function (and no SV-COMP
    /// harness), every exported function with number parameters, a line each and a
    /// total. Exit code (every mode's contract): 0 unreachable (within the loop bound),
    /// 1 reachable, 2 bad input or nothing measured, 3 unknown.
    Reach(cmd_reach::ReachArgs),
    /// Merge the findings files (--jsonl) of any modes, runs and shards: same function,
    /// location and kind is one finding with the best witnesses. Writes text, --json,
    /// --sarif, --html, and judges against --baseline. Exit code 2 when an input is
    /// damaged or a run did not finish (the rest is still reported), else 1 for
    /// findings (only new ones with --baseline), else 0.
    Report(cmd_report::ReportArgs),
    /// Find inputs that make a function's result as inaccurate as possible (FPGen):
    /// every candidate is measured against an MPFR shadow run of the same code; random
    /// inputs, FPGen's operand groups driven towards cancellation and precision loss,
    /// and a local search on exponents and signs. Reports the worst input confirmed on
    /// the executable and which operations lost the accuracy. Without --function, every
    /// exported function with float parameters or float arrays, a line each and a total
    /// (those with no float result to measure are named and skipped). Exit code (every
    /// mode's contract): 0 measured (the error is a measurement, not a failure), 1 only
    /// for findings new against --baseline, 2 bad input or no input could be measured.
    Error(cmd_error::ErrorArgs),
    /// Evaluate one input on P (-O0) and P' (optimised): results, exception traces, and a
    /// native replay of each build to confirm them.
    Run {
        /// C/C++ sources (.c, .cc, .cpp; preprocessed .i, .ii), LLVM IR (.ll, .bc) or FPCore (.fpcore), linked
        /// into one program; optional with --compile-commands (then every entry)
        #[arg(required_unless_present = "compile_commands", value_name = "FILE")]
        source_files: Vec<PathBuf>,
        /// Function to evaluate (an FPCore by its :name or C name)
        #[arg(long, short = 'f')]
        function: String,
        /// Comma-separated arguments: floats as decimal, hex float (0x1p-1022), inf, -inf,
        /// nan or bits:0x…; integers; arrays for pointer parameters as [v1,v2,...]
        #[arg(long, allow_hyphen_values = true)]
        args: String,
        /// Compiler flags of P' (default: "-O3 -ffast-math"); also --p-prime-flags
        #[arg(long, alias = "p-prime-flags", allow_hyphen_values = true)]
        opt_flags: Option<String>,
        /// Compiler flags of P (default: fpscout's -O0 recipe)
        #[arg(long, allow_hyphen_values = true)]
        p_flags: Option<String>,
        /// A function of the program, taking no arguments, called before the inputs are
        /// run, in the interpreter and in both executables (a library's set-up:
        /// `gsl_set_error_handler_off`, so that GSL's error handler does not abort the
        /// program on the inputs a maintainer most wants to see)
        #[arg(long, value_name = "NAME")]
        setup_call: Option<String>,
        /// Flush-to-zero / denormals-are-zero: auto = as each executable really runs
        /// (a -ffast-math P' links crtfastmath.o, which turns both on)
        #[arg(long, value_enum, default_value = "auto")]
        ftz_daz: FtzDazChoice,
        /// Instructions the interpreter may execute before stopping
        #[arg(long, default_value_t = 10_000_000)]
        step_budget: u64,
        /// Seconds the whole run may take: an interpretation still running then stops
        /// with a reason, and each executable gets at most its share of what is left
        #[arg(long, default_value_t = fpscout_search::config::RUN.time_budget_s)]
        time_budget: f64,
        /// Milliseconds an executable may run before it is killed and reported as not
        /// returning
        #[arg(long, default_value_t = fpscout_search::config::HANG_LIMIT_MS)]
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

/// The build a one-build mode (`exceptions`, `reach`) analyses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum BuildChoice {
    /// Without optimisation (-O0)
    P,
    /// Optimised with --opt-flags (default -O3 -ffast-math)
    #[value(name = "p'", alias = "pprime")]
    PPrime,
}

impl BuildChoice {
    pub(crate) fn kind(self) -> BuildKind {
        match self {
            BuildChoice::P => BuildKind::P,
            BuildChoice::PPrime => BuildKind::PPrime,
        }
    }
}

fn dispatch(cli: Cli) -> Result<ExitCode, InputError> {
    // Time budgets count from here: compiling the source is part of the run.
    let started = std::time::Instant::now();
    if cli.no_cache {
        // Read by every toolchain this process and its workers discover (still one
        // thread here).
        std::env::set_var("FPSCOUT_NO_CACHE", "1");
    }
    match cli.command {
        Command::Exceptions(args) => cmd_exceptions::run(args, started),
        Command::Diff(args) => cmd_diff::run(args, started),
        Command::Reach(args) => cmd_reach::run(args, started),
        Command::Report(args) => cmd_report::run(args),
        Command::Error(args) => cmd_error::run(args, started),
        Command::Run {
            source_files,
            function,
            args,
            opt_flags,
            p_flags,
            setup_call,
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
            if let Some(p) = &p_flags {
                flags = flags.with_p(p);
            }
            flags.setup_call = setup_call;
            let (sources, fpcore) = compile.apply_translating(&source_files, &mut flags)?;
            let function = match (
                fpcore.harness_entry(Some(&function)),
                fpcore.resolve(&function)?,
            ) {
                (Some(harness), _) => harness,
                (None, Some(f)) => f.c_name.clone(),
                (None, None) => function,
            };
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
                    let line = fpscout_search::records::RunLine::from(r);
                    let _ = writeln!(out, "{}", outputs::json_line(&line));
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
