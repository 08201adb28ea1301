//! The `fpscout report` command: findings files of any modes, runs and shards merged into one text, JSON Lines, SARIF, HTML report and baseline verdict.

use crate::outputs::MergedOutputs;
use fpscout_report::ledger::{LedgerFile, RunHeader};
use fpscout_report::report::Report;
use fpscout_report::InputError;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ReportArgs {
    /// Findings files written by --jsonl (any mode, any number of runs or shards)
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// JSON Lines: a {"type":"finding"} record per merged finding (fingerprint, status,
    /// finding model), {"type":"unfinished"} and {"type":"problem"} records, a total
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    outputs: MergedOutputs,
}

/// Exit code 2 when a file was damaged, from another version, or a run did not finish
/// (what could be read is still reported); else 1 for findings (new ones with a
/// baseline); else 0.
pub fn run(args: ReportArgs) -> Result<ExitCode, InputError> {
    let baseline = args.outputs.baseline()?;
    let files: Vec<LedgerFile> = args
        .files
        .iter()
        .map(|path| {
            fpscout_report::ledger::read(path).unwrap_or_else(|e| LedgerFile {
                path: path.clone(),
                problems: vec![e.to_string()],
                ..LedgerFile::default()
            })
        })
        .collect();
    let report = Report::new(&files, baseline.as_ref());
    let mut functions: Vec<String> = files
        .iter()
        .filter_map(|f| f.header.as_ref())
        .flat_map(|h| h.functions.clone())
        .collect();
    functions.sort();
    functions.dedup();
    let modes: Vec<_> = files
        .iter()
        .filter_map(|f| f.header.as_ref()?.mode)
        .collect();
    let header = RunHeader {
        format: fpscout_report::ledger::FORMAT,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        mode: modes
            .first()
            .copied()
            .filter(|m| modes.iter().all(|x| x == m)),
        shard: None,
        functions,
        command: std::env::args().collect(),
    };
    args.outputs.write(&report, &header)?;
    {
        let mut out = std::io::stdout().lock();
        if args.json {
            for record in report.json_records() {
                let _ = writeln!(out, "{record}");
            }
        } else {
            report.print_text(&mut out);
        }
    }
    for p in &report.problems {
        eprintln!("fpscout: error: {p}");
    }
    for u in &report.unfinished {
        eprintln!(
            "fpscout: error: {}",
            fpscout_report::report::unfinished_text(u)
        );
    }
    Ok(ExitCode::from(report.exit_code()))
}
