//! Grouped text output: `diff` findings by signature, `exceptions` findings by location and kind, `--max-findings` and `--quiet`, while `--json` and `--jsonl` keep every finding.

mod common;

use common::cli::{records, run, write};

/// Ten operations, most of which raise several kinds, and differ under fast-math.
const MANY: &str = "double many(double a, double b, double c) {\n\
                    \x20 double s = a * b + c;\n\
                    \x20 double t = s / (a - b);\n\
                    \x20 double u = t * t * c;\n\
                    \x20 double v = u / (s + 1.0);\n\
                    \x20 return v - a * c + b / c;\n\
                    }\n";

/// Division: P' (fast-math, FTZ/DAZ) differs from P with about ten signatures.
const DIVIDE: &str = "double divide(double x, double y) { return x / y; }\n";

/// The number before `what` in the line starting with `prefix`.
fn count_in(text: &str, prefix: &str, what: &str) -> usize {
    let line = text
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting {prefix:?} in\n{text}"));
    let before = &line[..line
        .find(what)
        .unwrap_or_else(|| panic!("{what:?} in {line}"))];
    before
        .split_whitespace()
        .last()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a count before {what:?} in {line}"))
}

/// Finding records of a findings file.
fn findings_in(path: &std::path::Path) -> usize {
    let text = std::fs::read_to_string(path).expect("findings file");
    records(&text)
        .iter()
        .filter(|r| r["type"] == "finding")
        .count()
}

#[test]
fn exceptions_lists_at_most_max_findings_with_two_witnesses_each_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "many.c", MANY);
    let jsonl = dir.path().join("many.jsonl");
    let out = run(&[
        "exceptions",
        &src,
        "-f",
        "many",
        "--time-budget",
        "6",
        "--random",
        "3000",
        "--max-findings",
        "3",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let at = format!("  {src}:");
    let shown: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with(&at)).collect();
    assert_eq!(shown.len(), 3, "{}", out.stdout);
    let total = count_in(&out.stdout, "x/y:", "findings,");
    assert!(total > 3, "{}", out.stdout);
    let left = count_in(&out.stdout, "  … ", "more findings at");
    assert_eq!(left, total - 3);
    // Each finding shows at most two witnesses (the findings file keeps them all).
    let blocks: Vec<&str> = out.stdout.split(&format!("\n{at}")).skip(1).collect();
    assert_eq!(blocks.len(), 3);
    for block in blocks.iter().map(|b| b.split("\n  …").next().unwrap_or(b)) {
        let witnesses = block.lines().filter(|l| l.contains("--args '")).count();
        assert!((1..=2).contains(&witnesses), "{block}");
    }
    assert_eq!(findings_in(&jsonl), total);
}

#[test]
fn exceptions_quiet_lists_no_finding_but_json_keeps_every_one() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "many.c", MANY);
    let args = [
        "exceptions",
        &src,
        "-f",
        "many",
        "--time-budget",
        "5",
        "--random",
        "2000",
        "--quiet",
    ];
    let out = run(&args);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(!out.stdout.contains("--args '"), "{}", out.stdout);
    let listed = count_in(&out.stdout, "  ", "findings at");
    assert_eq!(listed, count_in(&out.stdout, "x/y:", "findings,"));
    assert!(out
        .stdout
        .contains("(--quiet: none listed; --json and --jsonl keep every one)"));
    assert!(out.stdout.contains("\ncoverage: "));
    // --quiet is about text: the records still hold every finding.
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let json = run(&with_json);
    let recs = records(&json.stdout);
    let findings = recs.iter().filter(|r| r["type"] == "finding").count();
    let summary = recs
        .iter()
        .find(|r| r["type"] == "summary")
        .expect("summary");
    assert_eq!(
        findings as u64,
        summary["data"]["findings"].as_u64().unwrap()
    );
    assert!(findings > 0);
}

#[test]
fn diff_groups_findings_by_signature_one_in_full_each() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "divide.c", DIVIDE);
    let jsonl = dir.path().join("diff.jsonl");
    let out = run(&[
        "diff",
        &src,
        "-f",
        "divide",
        "--time-budget",
        "6",
        "--max-findings",
        "100",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let groups: Vec<&str> = out.stdout.split("\n== ").skip(1).collect();
    assert!(groups.len() > 1, "{}", out.stdout);
    let mut total = 0;
    for group in &groups {
        let header = group.lines().next().unwrap();
        let n: usize = header.split_whitespace().next().unwrap().parse().unwrap();
        assert!(header.contains(" with signature P "), "{header}");
        let full = group.lines().filter(|l| l.starts_with('#')).count();
        assert_eq!(full, 1, "{group}");
        if n > 1 {
            assert!(group.contains(&format!("   … {} more with this signature\n", n - 1)));
        }
        total += n;
    }
    // The findings file holds every confirmed finding the groups count.
    assert_eq!(findings_in(&jsonl), total);
}

#[test]
fn diff_max_findings_counts_the_signatures_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "divide.c", DIVIDE);
    let jsonl = dir.path().join("diff.jsonl");
    let out = run(&[
        "diff",
        &src,
        "-f",
        "divide",
        "--time-budget",
        "6",
        "--max-findings",
        "1",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout.lines().filter(|l| l.starts_with('#')).count(), 1);
    assert_eq!(out.stdout.matches("\n== ").count(), 1, "{}", out.stdout);
    let first = count_in(&out.stdout, "== ", "finding");
    let more_here = first - 1;
    let left = if findings_in(&jsonl) > first {
        count_in(&out.stdout, "… ", "more findings with")
    } else {
        0
    };
    assert_eq!(1 + more_here + left, findings_in(&jsonl), "{}", out.stdout);
    // Each signature left out is one line with its count.
    let listed: usize = out
        .stdout
        .lines()
        .filter_map(|l| l.trim_start().split_once(" × P "))
        .map(|(n, _)| n.parse::<usize>().expect("a count"))
        .sum();
    assert_eq!(listed, left, "{}", out.stdout);
}

#[test]
fn hundreds_of_diff_findings_read_in_a_screenful() {
    // FPBench's jetEngine gives about a thousand confirmed differences with some twenty
    // signatures in ten seconds: the default text lists one witness of eight signatures
    // and a line for each other one, whatever the count.
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/diff/jetEngine.c");
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("diff.jsonl");
    let out = run(&[
        "diff",
        src.to_str().unwrap(),
        "-f",
        "jetEngine",
        "--time-budget",
        "10",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let lines = out.stdout.lines().count();
    assert!(lines <= 150, "{lines} lines:\n{}", out.stdout);
    let listed = out.stdout.lines().filter(|l| l.starts_with('#')).count();
    assert!(listed <= 8, "{}", out.stdout);
    assert!(findings_in(&jsonl) > listed, "{}", out.stdout);
}
