//! Findings files (JSON Lines of the finding model with fingerprints), written by every mode's `--jsonl` and shards, read back by `report` and `--baseline`.

use crate::finding::{Finding, Mode, Rule};
use crate::InputError;
use fpscout_ir::SourceLoc;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The version of the records below; a file of another version is refused by name.
pub const FORMAT: u32 = 1;

/// The SARIF `partialFingerprints` key the fingerprint travels under.
pub const SARIF_FINGERPRINT_KEY: &str = "fpscoutFinding/v1";

/// Which part of a sorted work list a run analyses: every `count`-th item from `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Parses `I/N` (0-based `I < N`).
    pub fn parse(text: &str) -> Result<Shard, InputError> {
        let bad = || InputError(format!("--shard expects I/N with 0 <= I < N, got '{text}'"));
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// This shard's items of `work`, in order. Round-robin rather than blocks: neighbours
    /// in a sorted list (`gsl_sf_bessel_*`) tend to cost alike, so each shard gets a mix.
    pub fn select<T: Clone>(&self, work: &[T]) -> Vec<T> {
        work.iter()
            .skip(self.index)
            .step_by(self.count)
            .cloned()
            .collect()
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The first record of a findings file: what ran, on which work list.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunHeader {
    pub format: u32,
    pub tool_version: String,
    /// `None` for a merge of several modes' runs.
    pub mode: Option<Mode>,
    pub shard: Option<Shard>,
    /// The functions this run (or shard) holds.
    pub functions: Vec<String>,
    /// The command line, to re-run a shard that did not finish.
    pub command: Vec<String>,
}

/// A finding with what identifies it across runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Keyed {
    /// Independent of the witness and of line numbers (see [`fingerprint`]).
    pub fingerprint: String,
    /// The source line of the finding's location, as it read when the finding was made.
    pub line_text: Option<String>,
    pub finding: Finding,
}

/// A function of the work list that is done: analysed, or why not.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Covered {
    pub function: String,
    pub reason: Option<String>,
}

/// The last record: the run ended normally.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunEnd {
    pub functions: usize,
    pub findings: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum Record {
    Run(RunHeader),
    Finding(Box<Keyed>),
    Covered(Covered),
    End(RunEnd),
}

/// Source files read once each, for fingerprints and the HTML pages.
#[derive(Default)]
pub struct SourceLines {
    files: HashMap<String, Option<Vec<String>>>,
}

impl SourceLines {
    /// Every line of `file`, if it can be read.
    pub fn file(&mut self, file: &str) -> Option<&[String]> {
        self.files
            .entry(file.to_string())
            .or_insert_with(|| {
                std::fs::read_to_string(file)
                    .ok()
                    .map(|t| t.lines().map(str::to_string).collect())
            })
            .as_deref()
    }

    pub fn line(&mut self, loc: &SourceLoc) -> Option<String> {
        self.file(&loc.file)?
            .get((loc.line as usize).checked_sub(1)?)
            .cloned()
    }

    /// `finding` with its fingerprint and source line, read now.
    pub fn key(&mut self, finding: Finding) -> Keyed {
        let line_text = finding.location.as_ref().and_then(|l| self.line(l));
        Keyed {
            fingerprint: fingerprint(&finding, line_text.as_deref()),
            line_text,
            finding,
        }
    }
}

/// A fingerprint that depends neither on the witness nor on line numbers: the function,
/// the rule (for diff, every rule the input breaks: its signature), and the
/// whitespace-normalised text of the source line with the operation's column within it,
/// so a line inserted above leaves it unchanged. Without the source, the file name
/// stands in for the line's text.
pub fn fingerprint(f: &Finding, line_text: Option<&str>) -> String {
    let place = match (&f.location, line_text) {
        (Some(loc), Some(text)) => {
            let indent = text.len() - text.trim_start().len();
            let normalised = text.split_whitespace().collect::<Vec<_>>().join(" ");
            format!("{normalised}@{}", (loc.col as usize).saturating_sub(indent))
        }
        (Some(loc), None) => format!(
            "{}:{}",
            loc.file.rsplit('/').next().unwrap_or(&loc.file),
            loc.col
        ),
        (None, _) => String::new(),
    };
    let mut rules: Vec<&str> = std::iter::once(f.rule.id())
        .chain(f.also.iter().map(|r| r.id()))
        .collect();
    rules.sort();
    format!(
        "{:016x}",
        fnv1a(&[f.function.as_str(), &rules.join("+"), &place].join("\u{1f}"))
    )
}

/// FNV-1a, 64 bits: stable across runs and platforms (unlike the standard hasher).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Writes a findings file as the run goes, a line flushed at a time, so a run killed
/// half-way (a shard past its time limit) keeps what it found.
pub struct LedgerWriter {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    sources: SourceLines,
    covered: usize,
    findings: usize,
}

impl LedgerWriter {
    pub fn create(path: &Path, header: RunHeader) -> Result<LedgerWriter, InputError> {
        let file = std::fs::File::create(path)
            .map_err(|e| InputError(format!("cannot write {}: {e}", path.display())))?;
        let mut writer = LedgerWriter {
            path: path.to_path_buf(),
            file: std::io::BufWriter::new(file),
            sources: SourceLines::default(),
            covered: 0,
            findings: 0,
        };
        writer.record(&Record::Run(header))?;
        Ok(writer)
    }

    fn record(&mut self, record: &Record) -> Result<(), InputError> {
        let line = serde_json::to_string(record)
            .map_err(|e| InputError(format!("cannot encode a record: {e}")))?;
        writeln!(self.file, "{line}")
            .and_then(|_| self.file.flush())
            .map_err(|e| InputError(format!("cannot write {}: {e}", self.path.display())))
    }

    pub fn finding(&mut self, finding: &Finding) -> Result<(), InputError> {
        let keyed = self.sources.key(finding.clone());
        self.keyed(&keyed)
    }

    /// A finding fingerprinted earlier (a merge of findings files).
    pub fn keyed(&mut self, keyed: &Keyed) -> Result<(), InputError> {
        self.findings += 1;
        self.record(&Record::Finding(Box::new(keyed.clone())))
    }

    pub fn covered(&mut self, function: &str, reason: Option<String>) -> Result<(), InputError> {
        self.covered += 1;
        self.record(&Record::Covered(Covered {
            function: function.to_string(),
            reason,
        }))
    }

    pub fn end(mut self) -> Result<(), InputError> {
        let end = RunEnd {
            functions: self.covered,
            findings: self.findings,
        };
        self.record(&Record::End(end))
    }
}

/// One findings file as read: its runs' records, and what was wrong with it.
#[derive(Debug, Default)]
pub struct LedgerFile {
    pub path: PathBuf,
    pub header: Option<RunHeader>,
    pub findings: Vec<Keyed>,
    pub covered: Vec<Covered>,
    pub ended: bool,
    /// Lines that could not be read, each with why (the good ones are kept).
    pub problems: Vec<String>,
}

impl LedgerFile {
    /// The functions the run held that it did not finish (all of them without a header).
    pub fn unfinished(&self) -> Vec<String> {
        let done: HashSet<&str> = self.covered.iter().map(|c| c.function.as_str()).collect();
        self.header
            .iter()
            .flat_map(|h| &h.functions)
            .filter(|f| !done.contains(f.as_str()))
            .cloned()
            .collect()
    }
}

/// Reads a findings file; only a file that cannot be opened is an error, damage inside
/// it is listed in `problems`.
pub fn read(path: &Path) -> Result<LedgerFile, InputError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError(format!("cannot read {}: {e}", path.display())))?;
    Ok(parse(path, &text))
}

fn parse(path: &Path, text: &str) -> LedgerFile {
    let mut file = LedgerFile {
        path: path.to_path_buf(),
        ..LedgerFile::default()
    };
    let name = path.display();
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                let last = number == text.lines().count() && !text.ends_with('\n');
                file.problems.push(format!(
                    "{name}:{number}: not a JSON record{} ({e})",
                    if last { ", the file is truncated" } else { "" }
                ));
                continue;
            }
        };
        if number == 1 || file.header.is_none() {
            let format = value["data"]["format"].as_u64();
            if value["type"] != "run" {
                file.problems.push(format!(
                    "{name}:{number}: not a findings file (it starts with a {} record, not a run header; write one with --jsonl FILE)",
                    value["type"]
                ));
                return file;
            }
            if format != Some(u64::from(FORMAT)) {
                file.problems.push(format!(
                    "{name}: findings format {} from fpscout {}, this fpscout {} reads format {FORMAT}: re-run it with this version",
                    format.map_or("unknown".to_string(), |f| f.to_string()),
                    value["data"]["tool_version"].as_str().unwrap_or("?"),
                    env!("CARGO_PKG_VERSION"),
                ));
                return file;
            }
        }
        match serde_json::from_value::<Record>(value) {
            Ok(Record::Run(h)) => file.header = Some(h),
            Ok(Record::Finding(k)) => file.findings.push(*k),
            Ok(Record::Covered(c)) => file.covered.push(c),
            Ok(Record::End(_)) => file.ended = true,
            Err(e) => file
                .problems
                .push(format!("{name}:{number}: not a findings record ({e})")),
        }
    }
    if file.header.is_none() && file.problems.is_empty() {
        file.problems.push(format!("{name}: empty, no run header"));
    }
    file
}

/// The fingerprints of an earlier run: a findings file (JSON Lines) or a SARIF log.
#[derive(Debug, Default)]
pub struct Baseline {
    pub fingerprints: HashSet<String>,
}

impl Baseline {
    pub fn read(path: &Path) -> Result<Baseline, InputError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            InputError(format!(
                "--baseline {}: cannot read it: {e}",
                path.display()
            ))
        })?;
        // A SARIF log is one JSON document with `runs`; a findings file is JSON Lines.
        if let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) {
            if let Some(runs) = doc.get("runs").and_then(|r| r.as_array()) {
                let fingerprints = runs
                    .iter()
                    .flat_map(|r| r["results"].as_array().into_iter().flatten())
                    .map(|r| {
                        r["partialFingerprints"][SARIF_FINGERPRINT_KEY]
                            .as_str()
                            .map(str::to_string)
                            .ok_or_else(|| {
                                InputError(format!(
                                    "--baseline {}: a SARIF result without the {SARIF_FINGERPRINT_KEY} fingerprint (not written by this fpscout)",
                                    path.display()
                                ))
                            })
                    })
                    .collect::<Result<_, _>>()?;
                return Ok(Baseline { fingerprints });
            }
        }
        let file = parse(path, &text);
        if file.header.is_none() || !file.problems.is_empty() {
            return Err(InputError(format!(
                "--baseline {}: neither a SARIF log nor a findings file of this fpscout: {}",
                path.display(),
                file.problems.join("; ")
            )));
        }
        Ok(Baseline {
            fingerprints: file.findings.into_iter().map(|k| k.fingerprint).collect(),
        })
    }

    pub fn knows(&self, keyed: &Keyed) -> bool {
        self.fingerprints.contains(&keyed.fingerprint)
    }
}

/// One finding of the merged runs, with the other witnesses seen for it.
#[derive(Clone, Debug)]
pub struct Merged {
    /// The finding with the best witness.
    pub keyed: Keyed,
    /// The same finding on every other input seen (best first, each input once).
    pub others: Vec<Finding>,
}

/// Witnesses a report lists per finding (the plots show them all).
pub const WITNESSES_LISTED: usize = 5;

impl Merged {
    /// The further witness inputs worth listing, best first.
    pub fn more_inputs(&self) -> Vec<Vec<fpscout_walk::concrete::ArgBits>> {
        self.others
            .iter()
            .take(WITNESSES_LISTED - 1)
            .map(|f| f.input.clone())
            .collect()
    }

    /// The finding on each input seen, the best first.
    pub fn all(&self) -> impl Iterator<Item = &Finding> {
        std::iter::once(&self.keyed.finding).chain(&self.others)
    }
}

/// Why one witness is better than another: it breaks more rules, then its inputs are
/// smaller in magnitude (easier to read and to reason about), then its bits are smaller
/// (a deterministic tie-break).
fn witness_rank(f: &Finding) -> (std::cmp::Reverse<usize>, u64, Vec<u64>) {
    let bits: Vec<u64> = f
        .input
        .iter()
        .flat_map(|a| match a {
            fpscout_walk::concrete::ArgBits::Scalar(b) => vec![*b],
            fpscout_walk::concrete::ArgBits::Array(v) => v.clone(),
        })
        .collect();
    // Magnitude of the largest input, sign aside: the exponent and fraction bits order
    // like the magnitude for every float width.
    let magnitude = bits
        .iter()
        .map(|b| b & 0x7fff_ffff_ffff_ffff)
        .max()
        .unwrap_or(0);
    (std::cmp::Reverse(f.also.len()), magnitude, bits)
}

/// The identity of a finding across shards of one run: function, location, kind (for
/// diff, every rule the input breaks, as the fingerprint has it).
fn merge_key(f: &Finding) -> (String, Option<(String, u32, u32)>, Vec<Rule>) {
    let mut rules: Vec<Rule> = std::iter::once(f.rule)
        .chain(f.also.iter().copied())
        .collect();
    rules.sort();
    (
        f.function.clone(),
        f.location.as_ref().map(|l| (l.file.clone(), l.line, l.col)),
        rules,
    )
}

/// The findings of many files as one: same function, location and kind are one finding,
/// whose witness is the best one seen (see [`witness_rank`]).
pub fn merge(files: &[LedgerFile]) -> Vec<Merged> {
    let mut groups: BTreeMap<_, Vec<&Keyed>> = BTreeMap::new();
    for k in files.iter().flat_map(|f| &f.findings) {
        groups
            .entry((k.finding.mode as u8, merge_key(&k.finding)))
            .or_default()
            .push(k);
    }
    groups
        .into_values()
        .map(|mut group| {
            group.sort_by_key(|k| witness_rank(&k.finding));
            let mut seen = HashSet::new();
            seen.insert(&group[0].finding.input);
            let others = group[1..]
                .iter()
                .filter(|k| seen.insert(&k.finding.input))
                .map(|k| k.finding.clone())
                .collect();
            Merged {
                keyed: group[0].clone(),
                others,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_the_sorted_list_round_robin_and_refuse_nonsense() {
        let work: Vec<u32> = (0..7).collect();
        let parts: Vec<Vec<u32>> = (0..3)
            .map(|i| Shard { index: i, count: 3 }.select(&work))
            .collect();
        assert_eq!(parts, [vec![0, 3, 6], vec![1, 4], vec![2, 5]]);
        assert_eq!(
            Shard::parse(" 2/5 ").ok(),
            Some(Shard { index: 2, count: 5 })
        );
        for bad in ["5/5", "1", "a/3", "-1/3", "1/0"] {
            let e = Shard::parse(bad).expect_err(bad);
            assert!(e.0.contains(bad), "{}", e.0);
        }
    }

    fn finding(line: u32, col: u32, witness: u64) -> Finding {
        Finding {
            mode: Mode::Exceptions,
            rule: Rule::Overflow,
            also: Vec::new(),
            function: "f".into(),
            symbol: "f".into(),
            message: String::new(),
            location: Some(SourceLoc {
                file: "/src/a.c".into(),
                line,
                col,
            }),
            input: vec![fpscout_walk::concrete::ArgBits::Scalar(witness)],
            params: Vec::new(),
            ret: fpscout_ir::Type::Void,
            runs: Vec::new(),
            reached: None,
            replay: None,
            detail: crate::finding::Detail::None,
        }
    }

    #[test]
    fn fingerprints_ignore_line_numbers_witnesses_and_spacing_but_not_the_place() {
        let line = "  return a  *  b;";
        let base = fingerprint(&finding(3, 12, 1), Some(line));
        assert_eq!(base, fingerprint(&finding(40, 12, 2), Some(line)));
        // Re-indented by two more spaces: the column moves with the text.
        assert_eq!(
            base,
            fingerprint(&finding(3, 14, 1), Some("    return a  *  b;"))
        );
        assert_eq!(
            base,
            fingerprint(&finding(3, 12, 1), Some("  return a * b;"))
        );
        assert_ne!(base, fingerprint(&finding(3, 13, 1), Some(line)));
        assert_ne!(
            base,
            fingerprint(&finding(3, 12, 1), Some("  return a  *  c;"))
        );
        let mut other_rule = finding(3, 12, 1);
        other_rule.rule = Rule::Underflow;
        assert_ne!(base, fingerprint(&other_rule, Some(line)));
        let mut signature = finding(3, 12, 1);
        signature.also = vec![Rule::Invalid];
        assert_ne!(base, fingerprint(&signature, Some(line)));
    }
}
