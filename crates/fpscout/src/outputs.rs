//! What `diff`, `exceptions`, `reach` and `error` share around a search: the progress
//! display, the findings written as SARIF (`--sarif`), reproducers (`--emit-repro`), a
//! findings file (`--jsonl`), HTML (`--html`), and the baseline gate (`--baseline`).

use fpscout_report::finding::{Finding, Mode};
use fpscout_report::ledger::{Baseline, LedgerFile, LedgerWriter, RunHeader, Shard, SourceLines};
use fpscout_report::report::{Report, Status};
use fpscout_report::repro::ReproBuilds;
use fpscout_report::InputError;
use fpscout_search::records::{BaselineLine, ProgressLine, SearchProgress};
use fpscout_search::verdict::Verdict;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Files the confirmed findings are written to, besides the report.
#[derive(clap::Args)]
pub(crate) struct FindingOutputs {
    /// Write a standalone C reproducer per confirmed finding into DIR, with the clang
    /// command lines of both builds and DIR/build.sh to build and run them all
    #[arg(long, value_name = "DIR")]
    pub(crate) emit_repro: Option<PathBuf>,
    /// Write the findings to FILE as the run goes (JSON Lines of the finding model with
    /// fingerprints, and the functions covered), for `fpscout report`, shards and
    /// baselines
    #[arg(long, value_name = "FILE")]
    pub(crate) jsonl: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) merged: MergedOutputs,
}

/// What both a mode and `report` write from the (merged) findings.
#[derive(clap::Args)]
pub(crate) struct MergedOutputs {
    /// Also write the confirmed findings as SARIF 2.1.0 to FILE (all functions in one
    /// log, fingerprints in partialFingerprints)
    #[arg(long, value_name = "FILE")]
    pub(crate) sarif: Option<PathBuf>,
    /// Write an HTML report (index, a page per function, plots) into DIR
    #[arg(long, value_name = "DIR")]
    pub(crate) html: Option<PathBuf>,
    /// Findings of an earlier run (a --jsonl/--write-baseline file or a SARIF log): its
    /// findings are listed as known, and the exit code is 1 only for new ones
    #[arg(long, value_name = "FILE")]
    pub(crate) baseline: Option<PathBuf>,
    /// Write these findings to FILE, for a later --baseline
    #[arg(long, value_name = "FILE")]
    pub(crate) write_baseline: Option<PathBuf>,
}

impl MergedOutputs {
    pub(crate) fn wanted(&self) -> bool {
        self.sarif.is_some()
            || self.html.is_some()
            || self.baseline.is_some()
            || self.write_baseline.is_some()
    }

    pub(crate) fn baseline(&self) -> Result<Option<Baseline>, InputError> {
        self.baseline.as_deref().map(Baseline::read).transpose()
    }

    /// Writes SARIF, HTML and a baseline from `report`; `header` heads the baseline file.
    pub(crate) fn write(&self, report: &Report, header: &RunHeader) -> Result<(), InputError> {
        if let Some(path) = &self.sarif {
            let keyed: Vec<_> = report
                .findings
                .iter()
                .map(|(m, _)| m.keyed.clone())
                .collect();
            let log = fpscout_report::sarif::log_keyed(&keyed, env!("CARGO_PKG_VERSION"));
            let text = serde_json::to_string_pretty(&log)
                .map_err(|e| InputError(format!("cannot encode SARIF: {e}")))?;
            std::fs::write(path, text + "\n")
                .map_err(|e| InputError(format!("cannot write {}: {e}", path.display())))?;
        }
        if let Some(dir) = &self.html {
            fpscout_report::html::write(dir, report)?;
            eprintln!(
                "fpscout: HTML report in {}",
                dir.join("index.html").display()
            );
        }
        if let Some(path) = &self.write_baseline {
            let mut ledger = LedgerWriter::create(path, header.clone())?;
            for (m, _) in &report.findings {
                ledger.keyed(&m.keyed)?;
            }
            ledger.end()?;
        }
        Ok(())
    }
}

/// Which part of the work list a whole-library run takes.
#[derive(clap::Args)]
pub(crate) struct ShardArg {
    /// Analyse only the I-th (0-based) of N parts of the sorted function list (every
    /// N-th function from the I-th), for cluster array jobs; merge the parts' --jsonl
    /// files with `fpscout report`
    #[arg(long, value_name = "I/N")]
    pub(crate) shard: Option<String>,
}

impl ShardArg {
    pub(crate) fn parse(&self) -> Result<Option<Shard>, InputError> {
        self.shard.as_deref().map(Shard::parse).transpose()
    }

    /// A shard of a run that has no work list is a mistake, not a no-op.
    pub(crate) fn refuse_single(&self, what: &str) -> Result<(), InputError> {
        match &self.shard {
            Some(_) => Err(InputError(format!(
                "--shard splits a whole-library run; not with {what}"
            ))),
            None => Ok(()),
        }
    }
}

impl FindingOutputs {
    /// Whether any file wants the findings.
    pub(crate) fn wanted(&self) -> bool {
        self.emit_repro.is_some() || self.jsonl.is_some() || self.merged.wanted()
    }

    /// Creates the reproducer directory before the search: a path that cannot be one
    /// costs no search.
    pub(crate) fn prepare(&self) -> Result<(), InputError> {
        self.merged.baseline()?;
        if let Some(dir) = &self.emit_repro {
            std::fs::create_dir_all(dir).map_err(|e| {
                InputError(format!(
                    "--emit-repro {}: cannot create it: {e}",
                    dir.display()
                ))
            })?;
        }
        Ok(())
    }

    /// Starts the findings file of a run of `mode` over `functions` (the work list of
    /// this shard, if one).
    pub(crate) fn start(
        &self,
        mode: Mode,
        functions: &[String],
        shard: Option<Shard>,
    ) -> Result<FindingSink<'_>, InputError> {
        let header = RunHeader {
            format: fpscout_report::ledger::FORMAT,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            mode: Some(mode),
            shard,
            functions: functions.to_vec(),
            command: std::env::args().collect(),
        };
        let ledger = match &self.jsonl {
            Some(path) => Some(LedgerWriter::create(path, header.clone())?),
            None => None,
        };
        if let Some(s) = shard {
            eprintln!(
                "fpscout: shard {s}: {} functions{}",
                functions.len(),
                if functions.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", functions.join(", "))
                }
            );
        }
        Ok(FindingSink {
            outputs: self,
            ledger,
            header,
            findings: Vec::new(),
            covered: Vec::new(),
        })
    }
}

/// The findings of a run as they come, function by function: streamed to the findings
/// file, and written to the other outputs at the end.
pub(crate) struct FindingSink<'a> {
    outputs: &'a FindingOutputs,
    ledger: Option<LedgerWriter>,
    header: RunHeader,
    findings: Vec<Finding>,
    covered: Vec<fpscout_report::ledger::Covered>,
}

impl FindingSink<'_> {
    pub(crate) fn found(&mut self, findings: &[Finding]) -> Result<(), InputError> {
        if let Some(ledger) = &mut self.ledger {
            for f in findings {
                ledger.finding(f)?;
            }
        }
        self.findings.extend_from_slice(findings);
        Ok(())
    }

    /// `function` is done: analysed, or not for `reason`.
    pub(crate) fn covered(
        &mut self,
        function: &str,
        reason: Option<String>,
    ) -> Result<(), InputError> {
        if let Some(ledger) = &mut self.ledger {
            ledger.covered(function, reason.clone())?;
        }
        self.covered.push(fpscout_report::ledger::Covered {
            function: function.to_string(),
            reason,
        });
        Ok(())
    }

    /// Writes the findings to the files asked for and prints the baseline's verdict
    /// (text, or a `{"type":"baseline"}` record with `json`); `builds` says how the
    /// program was built (only asked when reproducers are written). The exit code is the
    /// run's `verdict` (`fpscout_search::verdict`), except that with a baseline findings
    /// fail only when new (1), and known ones pass (0).
    pub(crate) fn finish(
        self,
        builds: impl FnOnce() -> ReproBuilds,
        json: bool,
        verdict: Verdict,
    ) -> Result<ExitCode, InputError> {
        let outputs = self.outputs;
        if let Some(ledger) = self.ledger {
            ledger.end()?;
        }
        let mut sources = SourceLines::default();
        let run = LedgerFile {
            path: outputs.jsonl.clone().unwrap_or_default(),
            header: Some(self.header.clone()),
            findings: self
                .findings
                .iter()
                .map(|f| sources.key(f.clone()))
                .collect(),
            covered: self.covered,
            ended: true,
            problems: Vec::new(),
        };
        let baseline = outputs.merged.baseline()?;
        let report = Report::new(std::slice::from_ref(&run), baseline.as_ref());
        outputs.merged.write(&report, &self.header)?;
        if let Some(dir) = &outputs.emit_repro {
            let written = fpscout_report::repro::write(dir, &self.findings, &builds())?;
            for (function, why) in &written.skipped {
                eprintln!("fpscout: note: no reproducer for a finding of {function}: {why}");
            }
            eprintln!(
                "fpscout: {} reproducers in {} (build and run them: sh {})",
                written.programs.len(),
                dir.display(),
                written.script.display()
            );
        }
        let code = match baseline {
            Some(_) => {
                print_baseline(&report, json);
                if report.count(Status::New) > 0 {
                    1
                } else if verdict == Verdict::Found {
                    0
                } else {
                    verdict.exit_code()
                }
            }
            None => verdict.exit_code(),
        };
        Ok(ExitCode::from(code))
    }
}

/// Known and new findings against the baseline, on stdout.
pub(crate) fn print_baseline(report: &Report, json: bool) {
    let mut out = std::io::stdout().lock();
    if json {
        let _ = writeln!(out, "{}", json_line(&BaselineLine::from(report)));
        return;
    }
    let _ = writeln!(
        out,
        "baseline: {} known, {} new, {} of the baseline not seen",
        report.count(Status::Known),
        report.count(Status::New),
        report.gone
    );
    for (m, s) in &report.findings {
        let f = &m.keyed.finding;
        let _ = writeln!(
            out,
            "  {:<6} {} {} {}: {}",
            fpscout_report::report::status_name(*s),
            m.keyed.fingerprint,
            f.function,
            f.rule.id(),
            f.message
        );
    }
}

/// Paces progress lines on stderr: none in a run's first 2 s (short runs need none),
/// then at most one a second.
pub(crate) struct ProgressPace {
    started: Instant,
    last: Option<Instant>,
}

impl ProgressPace {
    pub(crate) fn new(started: Instant) -> ProgressPace {
        ProgressPace {
            started,
            last: None,
        }
    }

    /// Whether a line is due now (it then counts as printed).
    pub(crate) fn due(&mut self) -> bool {
        if self.started.elapsed().as_secs_f64() < 2.0
            || self.last.is_some_and(|t| t.elapsed().as_secs_f64() < 1.0)
        {
            return false;
        }
        self.last = Some(Instant::now());
        true
    }
}

/// Progress of one search: a bar on stderr (drawn only on a terminal) and, for scripts
/// reading `--json`, a `{"type":"progress"}` record on stderr at most once a second.
pub(crate) struct Progress {
    bar: indicatif::ProgressBar,
    json: bool,
    started: Instant,
    budget_s: f64,
    last_record: Option<Instant>,
}

impl Progress {
    pub(crate) fn new(json: bool, started: Instant, budget_s: f64) -> Progress {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} {msg:22} [{bar:30}] {pos}/{len} {elapsed}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Progress {
            bar,
            json,
            started,
            budget_s,
            last_record: None,
        }
    }

    pub(crate) fn update(&mut self, phase: &str, done: u64, total: u64) {
        let left = (self.budget_s - self.started.elapsed().as_secs_f64()).max(0.0);
        self.bar.set_message(format!("{phase} ({left:.0} s left)"));
        self.bar.set_length(total);
        self.bar.set_position(done);
        if self.json
            && self
                .last_record
                .is_none_or(|t| t.elapsed().as_secs_f64() >= 1.0)
        {
            self.last_record = Some(Instant::now());
            let record = ProgressLine::Progress(SearchProgress {
                phase: phase.to_string(),
                done,
                total,
                elapsed_s: self.started.elapsed().as_secs_f64(),
                left_s: left,
            });
            eprintln!("{}", json_line(&record));
        }
    }

    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// A `--json` record (`fpscout_search::records`) as its line.
pub(crate) fn json_line(record: &impl serde::Serialize) -> String {
    // Cannot fail: the records' maps are keyed by strings and their types serialise
    // themselves without errors.
    serde_json::to_string(record).unwrap_or_default()
}
