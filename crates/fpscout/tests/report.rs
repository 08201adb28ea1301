//! `fpscout report`: shards of a whole-library run merge to the unsharded run's findings; damaged, foreign and unfinished inputs are named (exit 2) while everything readable is still reported.

mod common;

use common::cli::{records, run, write};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::OnceLock;

const LIB: &str = "double av(double x, double y) { return (x + y) / 2.0; }
double ratio(double a, double b) {
  return a / b;
}
double root(double x) { return __builtin_sqrt(x - 1.0); }
";

/// The findings files of one unsharded run and of its two shards (made once).
struct Runs {
    _dir: tempfile::TempDir,
    all: String,
    shards: [String; 2],
    shard_stderr: [String; 2],
    dir: PathBuf,
}

fn runs() -> &'static Runs {
    static RUNS: OnceLock<Runs> = OnceLock::new();
    RUNS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let src = write(dir.path(), "lib.c", LIB);
        let file = |name: &str| dir.path().join(name).display().to_string();
        let exceptions = |extra: &[&str]| {
            let mut args = vec![
                "exceptions",
                &src,
                "--random",
                "2000",
                "--time-budget",
                "20",
                "--jobs",
                "1",
            ];
            args.extend_from_slice(extra);
            let out = run(&args);
            assert_eq!(out.code, 1, "{}", out.stderr);
            out
        };
        let all = file("all.jsonl");
        exceptions(&["--jsonl", &all]);
        let shards = [file("shard0.jsonl"), file("shard1.jsonl")];
        let shard_stderr = [
            exceptions(&["--shard", "0/2", "--jsonl", &shards[0]]).stderr,
            exceptions(&["--shard", "1/2", "--jsonl", &shards[1]]).stderr,
        ];
        Runs {
            dir: dir.path().to_path_buf(),
            _dir: dir,
            all,
            shards,
            shard_stderr,
        }
    })
}

/// (function, rule, location) of each merged finding of `report --json`.
fn found(stdout: &str) -> BTreeSet<(String, String, String)> {
    records(stdout)
        .iter()
        .filter(|r| r["type"] == "finding")
        .map(|r| {
            let f = &r["data"]["finding"];
            (
                f["function"].as_str().unwrap().to_string(),
                f["rule"].to_string(),
                f["location"].to_string(),
            )
        })
        .collect()
}

fn total(stdout: &str) -> Value {
    records(stdout)
        .into_iter()
        .find(|r| r["type"] == "total")
        .expect("a total record")["data"]
        .clone()
}

#[test]
fn shards_merge_to_the_unsharded_runs_findings() {
    let r = runs();
    // Round-robin over the sorted names av, ratio, root.
    assert!(
        r.shard_stderr[0].contains("shard 0/2: 2 functions (av, root)"),
        "{}",
        r.shard_stderr[0]
    );
    assert!(
        r.shard_stderr[1].contains("shard 1/2: 1 functions (ratio)"),
        "{}",
        r.shard_stderr[1]
    );
    let whole = run(&["report", &r.all, "--json"]);
    assert_eq!(whole.code, 1, "{}", whole.stderr);
    let merged = run(&["report", &r.shards[0], &r.shards[1], "--json"]);
    assert_eq!(merged.code, 1, "{}", merged.stderr);
    let (a, b) = (found(&whole.stdout), found(&merged.stdout));
    assert!(a.len() >= 6, "{a:#?}");
    assert_eq!(a, b);
    assert_eq!(total(&merged.stdout)["functions_covered"], 3);
    // The same files twice merge to the same findings (same function, place and kind is
    // one finding).
    let twice = run(&["report", &r.all, &r.shards[0], &r.shards[1], "--json"]);
    assert_eq!(found(&twice.stdout), a);
    // The merged report as a baseline knows every finding of the unsharded run.
    let base = r.dir.join("merged-base.jsonl").display().to_string();
    let written = run(&[
        "report",
        &r.shards[0],
        &r.shards[1],
        "--write-baseline",
        &base,
    ]);
    assert_eq!(written.code, 1);
    let judged = run(&["report", &r.all, "--baseline", &base, "--json"]);
    assert_eq!(judged.code, 0, "{}", judged.stdout);
    assert_eq!(total(&judged.stdout)["new"], 0);
    assert_eq!(
        total(&judged.stdout)["known"].as_u64(),
        Some(a.len() as u64)
    );
}

#[test]
fn damaged_and_foreign_files_are_named_and_the_rest_is_kept() {
    let r = runs();
    let good = run(&["report", &r.shards[1], "--json"]);
    let good_findings = found(&good.stdout);
    assert!(!good_findings.is_empty());
    let text = std::fs::read_to_string(&r.shards[0]).unwrap();
    // Cut in the middle of the last finding record, as a killed writer leaves it.
    let last_finding = text.rfind("{\"type\":\"finding\"").unwrap();
    let truncated = write(&r.dir, "truncated.jsonl", &text[..last_finding + 40]);
    let out = run(&["report", &truncated, &r.shards[1], "--json"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("truncated.jsonl") && out.stderr.contains("the file is truncated"),
        "{}",
        out.stderr
    );
    let kept = found(&out.stdout);
    assert!(kept.is_superset(&good_findings));
    assert!(
        kept.len() > good_findings.len(),
        "the truncated file's whole records count"
    );
    // The truncated shard did not end: it is named with what it held.
    let unfinished: Vec<Value> = records(&out.stdout)
        .into_iter()
        .filter(|r| r["type"] == "unfinished")
        .collect();
    assert_eq!(unfinished.len(), 1, "{}", out.stdout);
    assert_eq!(unfinished[0]["data"]["shard"]["index"], 0);

    // A file from another version of the format.
    let foreign = write(
        &r.dir,
        "foreign.jsonl",
        &text.replacen("\"format\":1", "\"format\":99", 1),
    );
    let out = run(&["report", &foreign, &r.shards[1]]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("foreign.jsonl") && out.stderr.contains("format 99"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.contains("ratio"),
        "the good file is reported: {}",
        out.stdout
    );

    // --json output of a mode is not a findings file.
    let not_ours = write(
        &r.dir,
        "json-output.jsonl",
        "{\"type\":\"summary\",\"data\":{}}\n",
    );
    let out = run(&["report", &not_ours, &r.shards[1]]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not a findings file"), "{}", out.stderr);
    let missing = run(&["report", "/nonexistent.jsonl", &r.shards[1]]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("cannot read /nonexistent.jsonl"));
}

#[test]
fn an_unfinished_shard_is_named_with_its_functions_and_how_to_rerun_it() {
    let r = runs();
    let text = std::fs::read_to_string(&r.shards[0]).unwrap();
    // The shard was killed while analysing its last function (root): its records after
    // av's coverage are gone.
    let av_done = text
        .find("{\"type\":\"covered\",\"data\":{\"function\":\"av\"")
        .unwrap();
    let end_of_line = av_done + text[av_done..].find('\n').unwrap() + 1;
    let killed = write(&r.dir, "killed.jsonl", &text[..end_of_line]);
    let out = run(&["report", &killed, &r.shards[1]]);
    assert_eq!(out.code, 2);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("unfinished:"))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(line.contains("shard 0/2"), "{line}");
    assert!(line.contains("not covered: root;"), "{line}");
    assert!(line.contains("--shard 0/2"), "{line}");
    // What the killed shard found before it stopped is still there.
    assert!(out.stdout.contains("exceptions av"), "{}", out.stdout);
}

#[test]
fn diff_shards_of_an_fpcore_file_cover_its_functions_once() {
    let dir = tempfile::tempdir().unwrap();
    let fpcore = write(
        dir.path(),
        "three.fpcore",
        "(FPCore (x y) :name \"average\" (/ (+ x y) 2))\n\
         (FPCore (x) :name \"shift\" (- (+ x 1e308) 1e308))\n\
         (FPCore (a b) :name \"ratio\" (/ a b))\n",
    );
    let mut held: Vec<String> = Vec::new();
    for shard in ["0/2", "1/2"] {
        let jsonl = dir.path().join(format!("{}.jsonl", &shard[..1]));
        let out = run(&[
            "diff",
            &fpcore,
            "--shard",
            shard,
            "--jsonl",
            jsonl.to_str().unwrap(),
            "--time-budget",
            "4",
            "--random",
            "500",
        ]);
        assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
        let records: Vec<Value> = records(&std::fs::read_to_string(&jsonl).unwrap());
        let header = &records[0]["data"];
        assert_eq!(header["shard"]["count"], 2);
        let functions: Vec<String> = header["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect();
        let covered: Vec<String> = records
            .iter()
            .filter(|r| r["type"] == "covered")
            .map(|r| r["data"]["function"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(covered, functions, "each function of the shard is done");
        assert_eq!(records.last().unwrap()["type"], "end");
        held.extend(functions);
    }
    held.sort();
    assert_eq!(held.len(), 3, "{held:?}");
    held.dedup();
    assert_eq!(held.len(), 3, "no function in two shards: {held:?}");
}
