//! The exit-code contract every search mode answers with (one rule, here), and the coverage line that says how much of a function each phase reached.

use crate::diff::DiffReport;
use crate::error::ErrorReport;
use crate::exceptions::ExceptionsReport;
use crate::reach::{ReachAnswer, ReachReport};
use crate::{diff, exceptions};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a run established about one function, as its exit code says it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The phases ran and found nothing within the stated bounds (exit 0).
    #[default]
    Clean,
    /// Findings (exit 1).
    Found,
    /// No evaluation completed: nothing could be measured (exit 2, as bad input).
    Unmeasured,
    /// Nothing found, but the mode's own search (Z3, the float solver, the shadow run)
    /// could not run on part of what it was asked about, so "none found" would overstate
    /// what was checked (exit 3).
    Unknown,
}

impl Verdict {
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Clean => 0,
            Verdict::Found => 1,
            Verdict::Unmeasured => 2,
            Verdict::Unknown => 3,
        }
    }

    /// What the text reports say after the coverage line.
    pub fn describe(self) -> &'static str {
        match self {
            Verdict::Clean => "nothing found within the stated bounds",
            Verdict::Found => "findings",
            Verdict::Unmeasured => "nothing could be measured",
            Verdict::Unknown => {
                "unknown: nothing found, but the search could not run on all of the function"
            }
        }
    }
}

/// How many functions of a whole-file run ended with each verdict (in its total record).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdicts {
    pub clean: usize,
    pub found: usize,
    pub unmeasured: usize,
    pub unknown: usize,
}

impl Verdicts {
    pub fn of(verdict: Verdict) -> Verdicts {
        let mut v = Verdicts::default();
        match verdict {
            Verdict::Clean => v.clean = 1,
            Verdict::Found => v.found = 1,
            Verdict::Unmeasured => v.unmeasured = 1,
            Verdict::Unknown => v.unknown = 1,
        }
        v
    }

    pub fn add(&mut self, other: Verdicts) {
        self.clean += other.clean;
        self.found += other.found;
        self.unmeasured += other.unmeasured;
        self.unknown += other.unknown;
    }

    /// The verdict of a run of these functions and `not_analysed` others (skipped or
    /// failed): findings anywhere are findings; else, when no function was measured at
    /// all, nothing was; else any function unmeasured, unknown or not analysed leaves the
    /// run unknown (no claim covers it); else clean.
    pub fn overall(&self, not_analysed: usize) -> Verdict {
        if self.found > 0 {
            Verdict::Found
        } else if self.clean == 0 && self.unknown == 0 {
            Verdict::Unmeasured
        } else if self.unknown > 0 || self.unmeasured > 0 || not_analysed > 0 {
            Verdict::Unknown
        } else {
            Verdict::Clean
        }
    }
}

/// How much of the function one phase reached: `reached` of `of` units, and why the
/// rest was not, each reason with how many.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// `symbolic paths`, `solver`, `shadow`, `paths`.
    pub phase: String,
    /// What is counted: `paths`, `targets`, `constraints`, `evaluations`.
    pub unit: String,
    pub reached: u64,
    pub of: u64,
    pub open: Vec<OpenReason>,
}

/// Why some units were not reached.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenReason {
    pub reason: String,
    pub count: u64,
    /// The first unit it kept open (`fmul overflow at f.c:3:12`), where one is named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<String>,
}

impl OpenReason {
    /// `204 open: REASON (the first: fmul overflow at f.c:3:12)`.
    pub fn text(&self, what: &str) -> String {
        match &self.first {
            Some(first) => format!(
                "{} {what}: {} (the first: {first})",
                self.count, self.reason
            ),
            None => format!("{} {what}: {}", self.count, self.reason),
        }
    }
}

impl Coverage {
    /// `solver: 31 of 34 targets (3 open: …, 1 …)`.
    pub fn text(&self) -> String {
        let line = format!(
            "{}: {} of {} {}",
            self.phase, self.reached, self.of, self.unit
        );
        if self.open.is_empty() {
            return line;
        }
        let open: Vec<String> = self
            .open
            .iter()
            .map(|o| format!("{} {}", o.count, o.reason))
            .collect();
        format!("{line} ({})", open.join("; "))
    }
}

/// The coverage line of a text report, phases apart by ` | ` (reasons have commas and
/// semicolons of their own).
pub fn coverage_text(coverage: &[Coverage]) -> String {
    let parts: Vec<String> = coverage.iter().map(Coverage::text).collect();
    format!("coverage: {}", parts.join(" | "))
}

/// Reasons with how often each came, most frequent first (ties by text).
pub fn tally_reasons<S: Into<String>>(reasons: impl IntoIterator<Item = S>) -> Vec<OpenReason> {
    tally_reasons_with_first(reasons.into_iter().map(|r| (r.into(), None)))
}

/// (reason, what it kept open) pairs counted by reason, each with the first unit named,
/// most frequent first (ties by text).
pub fn tally_reasons_with_first(
    reasons: impl IntoIterator<Item = (String, Option<String>)>,
) -> Vec<OpenReason> {
    let mut counts: BTreeMap<String, (u64, Option<String>)> = BTreeMap::new();
    for (reason, first) in reasons {
        let entry = counts.entry(reason).or_insert((0, first));
        entry.0 += 1;
    }
    let mut out: Vec<OpenReason> = counts
        .into_iter()
        .map(|(reason, (count, first))| OpenReason {
            reason,
            count,
            first,
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.reason.cmp(&b.reason)));
    out
}

/// Whether a path the symbolic walk stopped on ended at a construct it cannot model
/// (the collection reports its paths as the walker's error text, `unsupported: …`,
/// optionally behind the build's name, `P: `/`P': `).
pub fn is_unsupported_path(stopped: &str) -> bool {
    let reason = stopped
        .strip_prefix("P': ")
        .or_else(|| stopped.strip_prefix("P: "))
        .unwrap_or(stopped);
    reason.starts_with("unsupported:")
}

fn unsupported_paths(stopped: &[String]) -> Vec<&String> {
    stopped.iter().filter(|s| is_unsupported_path(s)).collect()
}

/// `exceptions`: findings are found; no run of the executable is unmeasured; a path
/// the solver's walk could not take is unknown.
pub fn exceptions_verdict(s: &exceptions::Summary) -> Verdict {
    if s.findings > 0 {
        Verdict::Found
    } else if s.native_runs == 0 {
        Verdict::Unmeasured
    } else if !unsupported_paths(&s.stopped).is_empty() {
        Verdict::Unknown
    } else {
        Verdict::Clean
    }
}

/// `exceptions`: the symbolic paths walked to their end, and the targets raised at
/// their operation (open ones by the float solver's reason, the last solver that looked
/// at them; the others as not raised).
pub fn exceptions_coverage(s: &exceptions::Summary) -> Vec<Coverage> {
    let blocked = unsupported_paths(&s.stopped);
    let mut targets_open: Vec<OpenReason> = s
        .float_solver
        .open_reasons
        .iter()
        .map(|open| OpenReason {
            reason: format!("open: {}", open.reason),
            ..open.clone()
        })
        .collect();
    let explained: u64 = targets_open.iter().map(|o| o.count).sum();
    let open = (s.targets.saturating_sub(s.targets_confirmed)) as u64;
    if open > explained {
        targets_open.push(OpenReason {
            reason: "open: no input raised it at its operation".into(),
            count: open - explained,
            first: None,
        });
    }
    vec![
        Coverage {
            phase: "symbolic paths".into(),
            unit: "paths".into(),
            reached: s.paths.saturating_sub(blocked.len()) as u64,
            of: s.paths as u64,
            open: tally_reasons(blocked.iter().map(|r| format!("through {r}"))),
        },
        Coverage {
            phase: "solver".into(),
            unit: "targets raised".into(),
            reached: s.targets_confirmed as u64,
            of: s.targets as u64,
            open: targets_open,
        },
    ]
}

impl ExceptionsReport {
    pub fn verdict(&self) -> Verdict {
        exceptions_verdict(&self.summary)
    }
}

/// `diff`: a confirmed difference is found; no input run is unmeasured; a path either
/// build's symbolic walk could not take is unknown.
pub fn diff_verdict(s: &diff::Summary) -> Verdict {
    if s.diff_confirmed > 0 {
        Verdict::Found
    } else if s.random_inputs == 0 && s.unique_inputs == 0 {
        Verdict::Unmeasured
    } else if !unsupported_paths(&s.stopped).is_empty() {
        Verdict::Unknown
    } else {
        Verdict::Clean
    }
}

/// `diff`: both builds' symbolic paths, and the exception conditions Z3 decided.
pub fn diff_coverage(s: &diff::Summary) -> Vec<Coverage> {
    let blocked = unsupported_paths(&s.stopped);
    let paths = s.paths_p + s.paths_pprime;
    let mut open = Vec::new();
    if s.unknown > 0 {
        open.push(OpenReason {
            reason: "Z3 unknown".into(),
            count: s.unknown as u64,
            first: None,
        });
    }
    if s.not_attempted > 0 {
        open.push(OpenReason {
            reason: "not attempted (solve budget)".into(),
            count: s.not_attempted as u64,
            first: None,
        });
    }
    vec![
        Coverage {
            phase: "symbolic paths (P and P')".into(),
            unit: "paths".into(),
            reached: paths.saturating_sub(blocked.len()) as u64,
            of: paths as u64,
            open: tally_reasons(blocked.iter().map(|r| format!("through {r}"))),
        },
        Coverage {
            phase: "solver".into(),
            unit: "conditions decided".into(),
            reached: (s.satisfiable + s.unsatisfiable) as u64,
            of: s.unique_constraints as u64,
            open,
        },
    ]
}

impl DiffReport {
    pub fn verdict(&self) -> Verdict {
        diff_verdict(&self.summary)
    }
}

/// `error` measures: an input measured against the shadow run is clean (the error is a
/// measurement, not a finding: only a `--baseline` turns one into a failure); no input
/// measured is unmeasured. It has no unknown: a shadow that cannot run measures nothing.
pub fn error_verdict(report: &ErrorReport) -> Verdict {
    if report.worst.is_some() {
        Verdict::Clean
    } else {
        Verdict::Unmeasured
    }
}

/// `error`: the evaluations the shadow run measured.
pub fn error_coverage(report: &ErrorReport) -> Vec<Coverage> {
    let open = match (report.unmeasured, &report.first_failure) {
        (0, _) => Vec::new(),
        (n, reason) => vec![OpenReason {
            reason: format!(
                "not measured (the first: {})",
                reason.as_deref().unwrap_or("no reason given")
            ),
            count: n,
            first: None,
        }],
    };
    vec![Coverage {
        phase: "shadow".into(),
        unit: "evaluations measured".into(),
        reached: report.evaluations.saturating_sub(report.unmeasured),
        of: report.evaluations,
        open,
    }]
}

impl ErrorReport {
    pub fn verdict(&self) -> Verdict {
        error_verdict(self)
    }
}

/// `reach`: reachable is found, unreachable clean, unknown unknown.
pub fn reach_verdict(report: &ReachReport) -> Verdict {
    match report.answer {
        ReachAnswer::Reachable => Verdict::Found,
        ReachAnswer::Unreachable | ReachAnswer::UnreachableWithinBound { .. } => Verdict::Clean,
        ReachAnswer::Unknown { .. } => Verdict::Unknown,
    }
}

/// `reach`: the paths whose outcome the float solver settled.
pub fn reach_coverage(report: &ReachReport) -> Vec<Coverage> {
    let p = &report.paths;
    let open = match p.unknown {
        0 => Vec::new(),
        n => vec![OpenReason {
            reason: if report.reasons.is_empty() {
                "unknown".to_string()
            } else {
                format!("unknown: {}", report.reasons.join("; "))
            },
            count: n as u64,
            first: None,
        }],
    };
    vec![Coverage {
        phase: "float solver".into(),
        unit: "paths settled".into(),
        reached: p.explored.saturating_sub(p.unknown) as u64,
        of: p.explored as u64,
        open,
    }]
}

impl ReachReport {
    pub fn verdict(&self) -> Verdict {
        reach_verdict(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_found_before_unknown_before_clean_and_unmeasured_only_when_nothing_was() {
        let of = |found, clean, unmeasured, unknown| Verdicts {
            found,
            clean,
            unmeasured,
            unknown,
        };
        assert_eq!(of(1, 0, 3, 2).overall(4), Verdict::Found);
        assert_eq!(of(0, 0, 2, 0).overall(1), Verdict::Unmeasured);
        assert_eq!(of(0, 0, 0, 0).overall(2), Verdict::Unmeasured);
        assert_eq!(of(0, 3, 1, 0).overall(0), Verdict::Unknown);
        assert_eq!(of(0, 3, 0, 0).overall(1), Verdict::Unknown);
        assert_eq!(of(0, 2, 0, 1).overall(0), Verdict::Unknown);
        assert_eq!(of(0, 2, 0, 0).overall(0), Verdict::Clean);
    }

    #[test]
    fn reasons_are_counted_most_frequent_first() {
        let t = tally_reasons(["b", "a", "b", "c", "b", "a"]);
        let pairs: Vec<(&str, u64)> = t.iter().map(|o| (o.reason.as_str(), o.count)).collect();
        assert_eq!(pairs, vec![("b", 3), ("a", 2), ("c", 1)]);
    }

    #[test]
    fn unsupported_paths_are_recognised_behind_a_build_name() {
        assert!(is_unsupported_path("unsupported: long double"));
        assert!(is_unsupported_path("P': unsupported: long double"));
        assert!(!is_unsupported_path("P: step budget of 10 exhausted"));
    }

    #[test]
    fn a_coverage_line_names_each_phase_and_its_open_reasons() {
        let c = Coverage {
            phase: "solver".into(),
            unit: "targets".into(),
            reached: 31,
            of: 34,
            open: vec![OpenReason {
                reason: "open: through llvm.x86.foo".into(),
                count: 3,
                first: None,
            }],
        };
        assert_eq!(
            coverage_text(&[c]),
            "coverage: solver: 31 of 34 targets (3 open: through llvm.x86.foo)"
        );
    }
}
