//! The `fpscout` command line: argument parsing, dispatch, printing and exit codes.

use clap::{Parser, Subcommand};
use fpscout::run::{run_both, RunRecord};
use fpscout::session::{FtzDazChoice, Session};
use fpscout::InputError;
use fpscout_toolchain::BuildFlags;
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
enum Command {
    /// Evaluate one input on P (-O0) and P' (optimised): results, exception traces, and a
    /// native replay of each build to confirm them.
    Run {
        /// C/C++ source (.c, .cc, .cpp) or LLVM IR (.ll, .bc)
        file: PathBuf,
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
        /// Also list inexact events in the text report
        #[arg(long)]
        show_inexact: bool,
        /// JSON Lines output, one {"type":"run","data":{...}} record per build
        #[arg(long)]
        json: bool,
    },
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

fn dispatch(cli: Cli) -> Result<ExitCode, InputError> {
    match cli.command {
        Command::Run {
            file,
            function,
            args,
            opt_flags,
            ftz_daz,
            step_budget,
            show_inexact,
            json,
        } => {
            let flags = match &opt_flags {
                Some(f) => BuildFlags::with_p_prime(f),
                None => BuildFlags::default(),
            };
            let session = Session::open(&file, flags)?;
            let config = WalkConfig {
                step_budget,
                ..WalkConfig::default()
            };
            let records = run_both(&session, &function, &args, ftz_daz, config)?;
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
    let rows: Vec<(&str, Box<dyn Fn(&RunRecord) -> String>)> = vec![
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
            "agrees natively",
            Box::new(|r: &RunRecord| if r.agrees { "yes".into() } else { "NO".into() }),
        ),
    ];
    let Some(first) = records.first() else { return };
    let _ = writeln!(out, "function {}", first.function);
    let _ = writeln!(out, "{:<18}{:<44}{}", "", "P", "P'");
    for (name, f) in &rows {
        let cells: Vec<String> = records.iter().map(|r| col(r, f.as_ref())).collect();
        let _ = writeln!(
            out,
            "{:<18}{:<44}{}",
            name,
            cells.first().cloned().unwrap_or_default(),
            cells.get(1).cloned().unwrap_or_default()
        );
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
            let src = e
                .loc
                .as_deref()
                .and_then(|l| sources.line(l))
                .map(|s| format!("  | {s}"))
                .unwrap_or_default();
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
}

fn join_or_none(v: &[&str]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(",")
    }
}
