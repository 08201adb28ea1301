//! `reach` and `error` over a whole file without `--function`: every function analysed with a line each and a total, shards that split the functions, exit codes over several answers, and witnesses replayed natively.

mod common;

use common::cli::{records, run, write};
use serde_json::Value;

/// One assertion that holds over every float, one that a division can fail, and a
/// function `reach` does not search (no float parameter).
const REACH_SOURCE: &str = "#include <assert.h>
double bounded(double x) {
  if (!(x >= -2.0 && x <= 2.0)) return 0.0;
  double s = x * x;
  assert(s <= 4.0);
  return s;
}
double ratio(double x, double y) {
  double r = x / y;
  assert(r < 1e300);
  return r;
}
int count(int n) { return n + 1; }
";

/// A function that loses accuracy, one that is exact, and one with no float result.
const ERROR_SOURCE: &str = "double cancel(double a, double b) { return (a + b) - a; }
double negate(double x) { return -x; }
int sign_of(double x) { return x < 0.0 ? -1 : 1; }
";

fn of_type<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records.iter().filter(|r| r["type"] == kind).collect()
}

fn functions_of(records: &[&Value]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            r["data"]["function"]
                .as_str()
                .expect("function")
                .to_string()
        })
        .collect()
}

/// The record of `function` among `records`.
fn record_of<'a>(records: &[&'a Value], function: &str) -> &'a Value {
    records
        .iter()
        .find(|r| r["data"]["function"] == function)
        .unwrap_or_else(|| panic!("no record of {function}: {records:?}"))
}

/// The functions a shard's findings file holds, and those it says are done.
fn shard_file(path: &std::path::Path) -> (Vec<String>, Vec<String>) {
    let records = records(&std::fs::read_to_string(path).expect("a findings file"));
    let header = &records[0]["data"];
    assert_eq!(header["shard"]["count"], 2, "{header}");
    let held = header["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .map(|f| f.as_str().expect("a name").to_string())
        .collect();
    let covered = functions_of(&of_type(&records, "covered"));
    assert_eq!(records.last().expect("records")["type"], "end");
    (held, covered)
}

#[test]
fn reach_answers_every_function_of_a_file_and_exits_1_when_one_is_reachable() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "two.c", REACH_SOURCE);
    let out = run(&["reach", &src, "--jobs", "2", "--time-budget", "5", "--json"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let recs = records(&out.stdout);
    let answers = of_type(&recs, "answer");
    let mut analysed = functions_of(&answers);
    analysed.sort();
    assert_eq!(analysed, ["bounded", "ratio"], "not `count`: no float");
    assert_eq!(
        record_of(&answers, "bounded")["data"]["answer"],
        "unreachable"
    );
    assert_eq!(record_of(&answers, "ratio")["data"]["answer"], "reachable");
    let total = &recs.last().expect("total")["data"];
    assert_eq!(recs.last().unwrap()["type"], "total");
    assert_eq!(total["functions"], 2);
    assert_eq!(total["reachable"], 1);
    assert_eq!(total["unreachable"], 1);
    assert_eq!(total["unknown"], 0);

    // The witness of `ratio` fails its assertion on the executable, run again.
    let witnesses = of_type(&recs, "witness");
    assert_eq!(functions_of(&witnesses), ["ratio"]);
    let args: Vec<String> = witnesses[0]["data"]["inputs"]
        .as_array()
        .expect("inputs")
        .iter()
        .map(|i| i["value"]["hex"].as_str().expect("hex").to_string())
        .collect();
    let replay = run(&[
        "run",
        &src,
        "-f",
        "ratio",
        &format!("--args={}", args.join(",")),
        "--json",
    ]);
    let p = &records(&replay.stdout)[0]["data"];
    assert_eq!(p["native_end"], "fails assertion `r < 1e300`", "{p}");

    let text = run(&["reach", &src, "--jobs", "1", "--time-budget", "5"]);
    assert_eq!(text.code, 1, "{}", text.stderr);
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert!(lines
        .iter()
        .any(|l| l.starts_with("bounded ") && l.contains("unreachable")));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("ratio ") && l.contains("reachable; witness")));
    assert!(
        lines.last().is_some_and(|l| l.starts_with(
            "total: 2 functions analysed, 0 not; 1 reachable, 1 unreachable, 0 unknown"
        )),
        "{}",
        text.stdout
    );
}

#[test]
fn reach_shards_split_the_functions_and_each_exits_by_its_own_answers() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "two.c", REACH_SOURCE);
    let mut held = Vec::new();
    // Sorted work list: bounded, ratio; shard 0 holds the unreachable one (exit 0),
    // shard 1 the reachable one (exit 1).
    for (shard, function, answer, code) in [
        ("0/2", "bounded", "unreachable", 0),
        ("1/2", "ratio", "reachable", 1),
    ] {
        let jsonl = dir.path().join(format!("{}.jsonl", &shard[..1]));
        let out = run(&[
            "reach",
            &src,
            "--shard",
            shard,
            "--jsonl",
            jsonl.to_str().unwrap(),
            "--time-budget",
            "5",
            "--json",
        ]);
        assert_eq!(out.code, code, "{shard}: {}", out.stderr);
        let recs = records(&out.stdout);
        let answers = of_type(&recs, "answer");
        assert_eq!(functions_of(&answers), [function], "{shard}");
        assert_eq!(answers[0]["data"]["answer"], answer, "{shard}");
        let (functions, covered) = shard_file(&jsonl);
        assert_eq!(functions, [function], "{shard}");
        assert_eq!(covered, functions, "{shard}");
        held.extend(functions);
    }
    assert_eq!(held, ["bounded", "ratio"]);
}

#[test]
fn reach_exits_3_when_an_answer_is_unknown_and_none_is_reachable() {
    // Random testing never proves a target unreachable: `bounded` stays unknown.
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "two.c", REACH_SOURCE);
    let random = ["--random-only", "--time-budget", "1", "--json"];
    let alone: Vec<&str> = ["reach", src.as_str(), "--shard", "0/2"]
        .into_iter()
        .chain(random)
        .collect();
    let out = run(&alone);
    assert_eq!(out.code, 3, "{}", out.stderr);
    let recs = records(&out.stdout);
    let total = &recs.last().expect("total")["data"];
    assert_eq!(
        (&total["unknown"], &total["reachable"]),
        (&1.into(), &0.into())
    );

    // With `ratio` (its failing division is easy for random inputs) it is 1.
    let both: Vec<&str> = ["reach", src.as_str(), "--jobs", "2"]
        .into_iter()
        .chain(random)
        .collect();
    let out = run(&both);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let recs = records(&out.stdout);
    let total = &recs.last().expect("total")["data"];
    assert_eq!(
        (&total["unknown"], &total["reachable"]),
        (&1.into(), &1.into())
    );
}

#[test]
fn error_measures_every_function_of_a_file_and_names_the_one_without_a_float_result() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "three.c", ERROR_SOURCE);
    let out = run(&["error", &src, "--jobs", "2", "--time-budget", "2", "--json"]);
    assert_eq!(out.code, 0, "a measurement, not a failure: {}", out.stderr);
    let recs = records(&out.stdout);
    let measured = of_type(&recs, "error");
    let mut analysed = functions_of(&measured);
    analysed.sort();
    assert_eq!(analysed, ["cancel", "negate"]);
    let skipped = of_type(&recs, "unsupported");
    assert_eq!(functions_of(&skipped), ["sign_of"]);
    assert_eq!(
        skipped[0]["data"]["reason"],
        "returns i32 and takes no float array: error has no float result to measure"
    );
    // Negation is exact; the cancellation loses everything (or overflows).
    let negate = &record_of(&measured, "negate")["data"];
    assert_eq!(negate["max_rel_error"], 0.0, "{negate}");
    let cancel = &record_of(&measured, "cancel")["data"];
    let rel = match &cancel["max_rel_error"] {
        Value::String(s) => s.parse::<f64>().expect("inf"),
        v => v.as_f64().expect("a number"),
    };
    assert!(rel >= 1.0, "{cancel}");
    // Its worst input gives the same result on the executable, run again.
    let replay = run(&[
        "run",
        &src,
        "-f",
        "cancel",
        &format!("--args={}", cancel["run_args"].as_str().expect("run_args")),
        "--json",
    ]);
    assert_eq!(
        records(&replay.stdout)[0]["data"]["native_result"],
        cancel["computed"],
        "{}",
        replay.stdout
    );
    let total = &recs.last().expect("total");
    assert_eq!(total["type"], "total");
    assert_eq!(total["data"]["functions"], 2);
    assert_eq!(total["data"]["unsupported"], 1);
    assert_eq!(total["data"]["measured"], 2);
    assert_eq!(total["data"]["worst_function"], "cancel");

    let text = run(&["error", &src, "--jobs", "1", "--time-budget", "1"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert!(
        lines.iter().any(|l| l.starts_with("cancel ")),
        "{}",
        text.stdout
    );
    assert!(
        lines.iter().any(|l| l.starts_with("negate ")),
        "{}",
        text.stdout
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("sign_of ") && l.contains("not analysed: returns i32")),
        "{}",
        text.stdout
    );
    assert!(
        lines
            .last()
            .is_some_and(|l| l.starts_with("total: 2 functions analysed, 1 not; 2 measured")),
        "{}",
        text.stdout
    );
}

#[test]
fn error_shards_cover_the_functions_once() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "three.c", ERROR_SOURCE);
    let mut held = Vec::new();
    // Sorted work list: cancel, negate, sign_of.
    for (shard, functions, measured) in [
        ("0/2", vec!["cancel", "sign_of"], vec!["cancel"]),
        ("1/2", vec!["negate"], vec!["negate"]),
    ] {
        let jsonl = dir.path().join(format!("{}.jsonl", &shard[..1]));
        let out = run(&[
            "error",
            &src,
            "--shard",
            shard,
            "--jsonl",
            jsonl.to_str().unwrap(),
            "--time-budget",
            "1",
            "--json",
        ]);
        assert_eq!(out.code, 0, "{shard}: {}", out.stderr);
        let recs = records(&out.stdout);
        assert_eq!(functions_of(&of_type(&recs, "error")), measured, "{shard}");
        let (in_file, covered) = shard_file(&jsonl);
        assert_eq!(in_file, functions, "{shard}");
        let mut covered = covered;
        covered.sort();
        assert_eq!(covered, functions, "{shard}");
        held.extend(in_file);
    }
    held.sort();
    assert_eq!(held, ["cancel", "negate", "sign_of"], "each function once");
}

#[test]
fn a_shard_with_a_function_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "two.c", REACH_SOURCE);
    for mode in ["reach", "error"] {
        let out = run(&[mode, &src, "-f", "ratio", "--shard", "0/2"]);
        assert_eq!(out.code, 2, "{mode}: {}", out.stderr);
        assert!(
            out.stderr
                .contains("--shard splits a whole-library run; not with --function"),
            "{mode}: {}",
            out.stderr
        );
    }
}
