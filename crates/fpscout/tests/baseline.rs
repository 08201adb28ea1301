//! The CI gate: a baseline written by one run makes a later run fail only on new findings, whether lines moved above them, and whether the baseline is a findings file or SARIF.

mod common;

use common::cli::{records, run, write};
use serde_json::Value;
use std::collections::BTreeSet;

const AV: &str = "double av(double x, double y) { return (x + y) / 2.0; }\n";
const RATIO: &str = "double ratio(double a, double b) {\n  return a / b;\n}\n";

/// `exceptions` over every function of `source`, quick and deterministic.
fn exceptions(source: &str, extra: &[&str]) -> common::cli::Output {
    let mut args = vec![
        "exceptions",
        source,
        "--random",
        "2000",
        "--time-budget",
        "20",
        "--jobs",
        "1",
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// The `{"type":"baseline"}` record of a `--json` run.
fn verdict(stdout: &str) -> Value {
    records(stdout)
        .into_iter()
        .find(|r| r["type"] == "baseline")
        .map(|r| r["data"].clone())
        .expect("a baseline record")
}

fn with_status(verdict: &Value, status: &str) -> BTreeSet<(String, String)> {
    verdict["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["status"] == status)
        .map(|f| {
            (
                f["function"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_moved_line_stays_known_and_a_new_bug_fails_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "lib.c", AV);
    let base = dir.path().join("base.jsonl").display().to_string();
    let sarif = dir.path().join("base.sarif").display().to_string();
    let first = exceptions(&src, &["--write-baseline", &base, "--sarif", &sarif]);
    assert_eq!(
        first.code, 1,
        "findings without a baseline: {}",
        first.stderr
    );
    let written = std::fs::read_to_string(&base).unwrap();
    assert!(written.lines().any(|l| l.contains("\"type\":\"finding\"")));

    // Lines inserted above: every finding is known, the gate passes.
    std::fs::write(&src, format!("/* moved */\n#include <math.h>\n\n{AV}")).unwrap();
    for baseline in [&base, &sarif] {
        let moved = exceptions(&src, &["--baseline", baseline, "--json"]);
        assert_eq!(
            moved.code, 0,
            "{baseline}: {}\n{}",
            moved.stdout, moved.stderr
        );
        let v = verdict(&moved.stdout);
        assert_eq!(v["new"], 0, "{v:#}");
        assert!(v["known"].as_u64().unwrap() >= 2, "{v:#}");
    }

    // A new function with a division after the baseline: its findings are new, the
    // old ones still known, and the gate fails.
    std::fs::write(&src, format!("/* moved */\n{AV}{RATIO}")).unwrap();
    let grown = exceptions(&src, &["--baseline", &base, "--json"]);
    assert_eq!(grown.code, 1, "{}", grown.stderr);
    let v = verdict(&grown.stdout);
    let new = with_status(&v, "new");
    assert!(
        new.contains(&("ratio".to_string(), "divide-by-zero".to_string())),
        "{v:#}"
    );
    assert!(new.iter().all(|(f, _)| f == "ratio"), "{v:#}");
    assert!(with_status(&v, "known").iter().all(|(f, _)| f == "av"));
    assert!(!with_status(&v, "known").is_empty());

    // The text report says the same.
    let text = exceptions(&src, &["--baseline", &base]);
    assert_eq!(text.code, 1);
    assert!(text.stdout.contains("baseline: "), "{}", text.stdout);
    assert!(
        text.stdout
            .lines()
            .any(|l| l.contains("NEW") && l.contains("ratio divide-by-zero")),
        "{}",
        text.stdout
    );
}

#[test]
fn a_baseline_in_an_unknown_format_is_refused_before_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "lib.c", AV);
    for (name, text) in [
        ("junk.txt", "this is not a baseline\n"),
        ("other.json", "{\"findings\": []}\n"),
        ("records.jsonl", "{\"type\":\"summary\",\"data\":{}}\n"),
    ] {
        let path = write(dir.path(), name, text);
        let out = exceptions(&src, &["--baseline", &path]);
        assert_eq!(out.code, 2, "{name}: {}", out.stderr);
        assert!(
            out.stderr.contains("--baseline") && out.stderr.contains(name),
            "{name}: {}",
            out.stderr
        );
        assert!(out.stdout.is_empty(), "no search ran: {}", out.stdout);
    }
    let missing = exceptions(&src, &["--baseline", "/nonexistent/base.jsonl"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("cannot read"), "{}", missing.stderr);
}
