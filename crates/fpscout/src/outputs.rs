//! What `diff` and `exceptions` share around a search: the progress display and the
//! findings written as SARIF (`--sarif`) and reproducers (`--emit-repro`).

use fpscout::finding::Finding;
use fpscout::repro::ReproBuilds;
use fpscout::InputError;
use std::path::PathBuf;
use std::time::Instant;

/// Files the confirmed findings are written to, besides the report.
#[derive(clap::Args)]
pub(crate) struct FindingOutputs {
    /// Also write the confirmed findings as SARIF 2.1.0 to FILE (all functions of a
    /// whole-file run in one log)
    #[arg(long, value_name = "FILE")]
    pub(crate) sarif: Option<PathBuf>,
    /// Write a standalone C reproducer per confirmed finding into DIR, with the clang
    /// command lines of both builds and DIR/build.sh to build and run them all
    #[arg(long, value_name = "DIR")]
    pub(crate) emit_repro: Option<PathBuf>,
}

impl FindingOutputs {
    /// Whether any file wants the findings.
    pub(crate) fn wanted(&self) -> bool {
        self.sarif.is_some() || self.emit_repro.is_some()
    }

    /// Creates the reproducer directory before the search: a path that cannot be one
    /// costs no search.
    pub(crate) fn prepare(&self) -> Result<(), InputError> {
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

    /// Writes `findings` to the files asked for; `builds` says how the program was built
    /// (only asked when reproducers are written). Notes on what was written go to stderr.
    pub(crate) fn write(
        &self,
        findings: &[Finding],
        builds: impl FnOnce() -> ReproBuilds,
    ) -> Result<(), InputError> {
        if let Some(path) = &self.sarif {
            let log = fpscout::sarif::log(findings, env!("CARGO_PKG_VERSION"));
            let text = serde_json::to_string_pretty(&log)
                .map_err(|e| InputError(format!("cannot encode SARIF: {e}")))?;
            std::fs::write(path, text + "\n")
                .map_err(|e| InputError(format!("cannot write {}: {e}", path.display())))?;
        }
        if let Some(dir) = &self.emit_repro {
            let written = fpscout::repro::write(dir, findings, &builds())?;
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
        Ok(())
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
            let record = serde_json::json!({"type": "progress", "data": {
                "phase": phase, "done": done, "total": total,
                "elapsed_s": self.started.elapsed().as_secs_f64(), "left_s": left,
            }});
            eprintln!("{record}");
        }
    }

    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
