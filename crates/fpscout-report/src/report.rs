//! The merged view of one or many findings files that `report`, every mode's `--html` and the baseline gate print: findings, their status against a baseline, what each run covered and which did not finish.

use crate::finding::Mode;
use crate::ledger::{merge, Baseline, LedgerFile, Merged, Shard};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// A finding against the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// No baseline was given.
    Found,
    Known,
    New,
}

/// A run (or shard) that did not end normally: what it held and did not finish.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Unfinished {
    pub path: PathBuf,
    pub shard: Option<Shard>,
    pub functions: Vec<String>,
    /// The command line that re-runs it alone.
    pub command: Vec<String>,
}

#[derive(Debug)]
pub struct Report {
    pub findings: Vec<(Merged, Status)>,
    /// Functions analysed, over all runs, with why one was not (if it was not).
    pub covered: BTreeMap<String, Option<String>>,
    pub unfinished: Vec<Unfinished>,
    /// Damage in the files read (truncated lines, other versions): the rest was kept.
    pub problems: Vec<String>,
    /// Baseline findings not seen in these runs.
    pub gone: usize,
    pub files: usize,
}

impl Report {
    pub fn new(files: &[LedgerFile], baseline: Option<&Baseline>) -> Report {
        let merged = merge(files);
        let findings: Vec<(Merged, Status)> = merged
            .into_iter()
            .map(|m| {
                let status = match baseline {
                    None => Status::Found,
                    Some(b) if b.knows(&m.keyed) => Status::Known,
                    Some(_) => Status::New,
                };
                (m, status)
            })
            .collect();
        let gone = baseline.map_or(0, |b| {
            let now: std::collections::HashSet<&str> = findings
                .iter()
                .map(|(m, _)| m.keyed.fingerprint.as_str())
                .collect();
            b.fingerprints
                .iter()
                .filter(|f| !now.contains(f.as_str()))
                .count()
        });
        let mut covered = BTreeMap::new();
        for c in files.iter().flat_map(|f| &f.covered) {
            // Analysed in any shard beats "not analysed" in a stale one.
            let entry = covered
                .entry(c.function.clone())
                .or_insert(c.reason.clone());
            if c.reason.is_none() {
                *entry = None;
            }
        }
        let unfinished = files
            .iter()
            .filter(|f| f.header.is_some() && !f.ended)
            .map(|f| {
                let header = f.header.as_ref();
                Unfinished {
                    path: f.path.clone(),
                    shard: header.and_then(|h| h.shard),
                    functions: f.unfinished(),
                    command: header.map(|h| h.command.clone()).unwrap_or_default(),
                }
            })
            .collect();
        Report {
            findings,
            covered,
            unfinished,
            problems: files.iter().flat_map(|f| f.problems.clone()).collect(),
            gone,
            files: files.len(),
        }
    }

    pub fn count(&self, status: Status) -> usize {
        self.findings.iter().filter(|(_, s)| *s == status).count()
    }

    /// 2 when an input was damaged or a run did not finish (the report is incomplete),
    /// else 1 when there are findings the baseline does not know (all of them without
    /// one), else 0.
    pub fn exit_code(&self) -> u8 {
        if !self.problems.is_empty() || !self.unfinished.is_empty() {
            2
        } else if self.count(Status::New) + self.count(Status::Found) > 0 {
            1
        } else {
            0
        }
    }

    /// The modes present, in order.
    pub fn modes(&self) -> Vec<Mode> {
        let mut modes: Vec<Mode> = Vec::new();
        for (m, _) in &self.findings {
            if !modes.contains(&m.keyed.finding.mode) {
                modes.push(m.keyed.finding.mode);
            }
        }
        modes
    }

    pub fn print_text(&self, out: &mut impl Write) {
        let _ = writeln!(
            out,
            "{:<10} {:<28} {:<32} {:<28} {:<6} witness",
            "mode", "function", "kind", "location", "status"
        );
        for (m, status) in &self.findings {
            let f = &m.keyed.finding;
            let _ = writeln!(
                out,
                "{:<10} {:<28} {:<32} {:<28} {:<6} {}",
                mode_name(f.mode),
                f.function,
                f.rule.id(),
                f.location.as_ref().map_or("-".to_string(), |l| format!(
                    "{}:{}:{}",
                    l.file.rsplit('/').next().unwrap_or(&l.file),
                    l.line,
                    l.col
                )),
                status_name(*status),
                crate::args::inputs_text(&f.params, &f.input)
            );
        }
        for u in &self.unfinished {
            let _ = writeln!(out, "{}", unfinished_text(u));
        }
        for p in &self.problems {
            let _ = writeln!(out, "problem: {p}");
        }
        let _ = writeln!(out, "{}", self.total_text());
    }

    pub fn total_text(&self) -> String {
        let functions: std::collections::BTreeSet<&str> = self
            .findings
            .iter()
            .map(|(m, _)| m.keyed.finding.function.as_str())
            .collect();
        let baseline = if self.count(Status::Found) == self.findings.len() {
            String::new()
        } else {
            format!(
                " ({} known, {} new; {} of the baseline not seen)",
                self.count(Status::Known),
                self.count(Status::New),
                self.gone
            )
        };
        format!(
            "total: {} findings{baseline} in {} functions; {} functions covered; {} files, {} unfinished runs, {} problems",
            self.findings.len(),
            functions.len(),
            self.covered.len(),
            self.files,
            self.unfinished.len(),
            self.problems.len()
        )
    }

    /// JSON Lines: a `finding` record per merged finding (the finding model with its
    /// fingerprint, status and further witnesses), `unfinished` and `problem` records,
    /// then a `total`.
    pub fn json_records(&self) -> Vec<Value> {
        let mut records: Vec<Value> = self
            .findings
            .iter()
            .map(|(m, status)| {
                json!({"type": "finding", "data": {
                    "fingerprint": m.keyed.fingerprint,
                    "status": status,
                    "finding": m.keyed.finding,
                    "run_args": crate::args::run_args(&m.keyed.finding.params, &m.keyed.finding.input),
                    "more_inputs": m.more_inputs(),
                    "witnesses": m.others.len() + 1,
                }})
            })
            .collect();
        records.extend(
            self.unfinished
                .iter()
                .map(|u| json!({"type": "unfinished", "data": u})),
        );
        records.extend(
            self.problems
                .iter()
                .map(|p| json!({"type": "problem", "data": {"message": p}})),
        );
        records.push(json!({"type": "total", "data": {
            "findings": self.findings.len(),
            "known": self.count(Status::Known),
            "new": self.count(Status::New),
            "gone": self.gone,
            "functions_covered": self.covered.len(),
            "files": self.files,
            "unfinished": self.unfinished.len(),
            "problems": self.problems.len(),
        }}));
        records
    }
}

pub fn mode_name(mode: Mode) -> String {
    serde_json::to_value(mode)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{mode:?}").to_lowercase())
}

pub fn status_name(status: Status) -> &'static str {
    match status {
        Status::Found => "-",
        Status::Known => "known",
        Status::New => "NEW",
    }
}

pub fn unfinished_text(u: &Unfinished) -> String {
    format!(
        "unfinished: {}{} did not finish; not covered: {}; re-run it alone: {}",
        u.shard.map(|s| format!("shard {s} ")).unwrap_or_default(),
        u.path.display(),
        if u.functions.is_empty() {
            "(none listed)".to_string()
        } else {
            u.functions.join(", ")
        },
        shlex::try_join(u.command.iter().map(String::as_str))
            .unwrap_or_else(|_| u.command.join(" "))
    )
}
