//! FPCore input through the binary: `run`, `diff` and `exceptions` on `.fpcore` files,
//! `:pre` ranges as default `--range`s, the whole-file `diff`, unsupported operations
//! named with their position, and malformed input always an exit code, never a panic.

use proptest::prelude::*;
mod common;

use common::cli::{records, run, write, Output};

/// Two supported FPCores (one with a `:pre` that is partly not a range) and one using an
/// operation C does not have, at line 5, column 3.
const CORES: &str = "(FPCore (x) :name \"plus one\" :pre (<= 0 x 1) (+ x 1))
(FPCore (x y) :name \"ratio\" :pre (and (<= 1 x 2) (<= -1 y 1) (!= y 0)) (/ (- x 1) y))
(FPCore (x)
  :name \"bad\"
  (foo x))
";

fn cores_file() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "t.fpcore", CORES);
    (dir, path)
}

#[test]
fn run_evaluates_an_fpcore_by_its_name() {
    let (_dir, file) = cores_file();
    let out = run(&["run", &file, "-f", "plus one", "--args", "0.5", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let recs = records(&out.stdout);
    assert_eq!(recs.len(), 2);
    for r in &recs {
        assert_eq!(r["data"]["function"], "plus_one");
        assert_eq!(r["data"]["result"], "0x1.8p+0");
        assert_eq!(r["data"]["agrees"], true);
    }
    // The C name works as well.
    let out = run(&["run", &file, "-f", "plus_one", "--args", "0.5"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn diff_searches_the_pre_ranges_unless_the_user_overrides_them() {
    let (_dir, file) = cores_file();
    let args = ["diff", &file, "-f", "ratio", "--json", "--time-budget", "4"];
    let out = run(&args);
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    let recs = records(&out.stdout);
    let summary = recs
        .iter()
        .find(|r| r["type"] == "summary")
        .expect("summary");
    assert_eq!(
        summary["data"]["ranges"],
        serde_json::json!({"x": [1.0, 2.0], "y": [-1.0, 1.0]})
    );
    assert!(
        out.stderr.contains("`(!= y 0)`") && out.stderr.contains("ignored"),
        "{}",
        out.stderr
    );
    // Every input of a finding lies in the box.
    for f in recs.iter().filter(|r| r["type"] == "finding") {
        let inputs = f["data"]["inputs"].as_array().expect("inputs");
        for i in inputs {
            let v: f64 = i["value"]["decimal"].as_str().unwrap().parse().unwrap();
            let (lo, hi) = if i["name"] == "x" {
                (1.0, 2.0)
            } else {
                (-1.0, 1.0)
            };
            assert!((lo..=hi).contains(&v), "{i}");
        }
    }
    let mut args = args.to_vec();
    args.extend(["--range", "y=0.5:1"]);
    let out = run(&args);
    let recs = records(&out.stdout);
    let summary = recs.iter().find(|r| r["type"] == "summary").unwrap();
    assert_eq!(
        summary["data"]["ranges"],
        serde_json::json!({"x": [1.0, 2.0], "y": [0.5, 1.0]})
    );
}

#[test]
fn reach_and_error_search_the_pre_ranges_unless_the_user_overrides_them() {
    let (_dir, file) = cores_file();
    // Under its :pre (0 <= x <= 1), x + 1 stays in [1, 2]: nothing lands outside.
    let inside = run(&[
        "reach",
        &file,
        "-f",
        "plus one",
        "--outside",
        "1:2",
        "--time-budget",
        "10",
    ]);
    assert_eq!(inside.code, 0, "{}{}", inside.stdout, inside.stderr);
    // The user's --range replaces the :pre: x = 5 gives 6.
    let widened = run(&[
        "reach",
        &file,
        "-f",
        "plus one",
        "--outside",
        "1:2",
        "--range",
        "x=0:10",
        "--time-budget",
        "10",
    ]);
    assert_eq!(widened.code, 1, "{}{}", widened.stdout, widened.stderr);
    // error's worst input stays inside the :pre as well.
    let out = run(&[
        "error",
        &file,
        "-f",
        "ratio",
        "--time-budget",
        "3",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let recs = records(&out.stdout);
    let error = recs
        .iter()
        .find(|r| r["type"] == "error")
        .expect("an error record");
    for input in error["data"]["inputs"].as_array().expect("inputs") {
        let value: f64 = input["value"]["decimal"]
            .as_str()
            .and_then(|d| d.parse().ok())
            .expect("a decimal value");
        let (lo, hi) = match input["name"].as_str() {
            Some("x") => (1.0, 2.0),
            Some("y") => (-1.0, 1.0),
            other => panic!("unexpected parameter {other:?}"),
        };
        assert!((lo..=hi).contains(&value), "{input} outside [{lo}, {hi}]");
    }
}

#[test]
fn exceptions_of_one_fpcore_find_the_division() {
    let (_dir, file) = cores_file();
    let out = run(&[
        "exceptions",
        &file,
        "-f",
        "ratio",
        "--json",
        // Compiling is inside the budget: 4 s ran out once on a loaded machine.
        "--time-budget",
        "15",
        "--random",
        "2000",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let recs = records(&out.stdout);
    let kinds: Vec<&str> = recs
        .iter()
        .filter(|r| r["type"] == "finding")
        .map(|r| r["data"]["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"divbyzero"), "{kinds:?}");
    for r in recs.iter().filter(|r| r["type"] == "finding") {
        assert_eq!(r["data"]["function"], "ratio");
        assert_eq!(r["data"]["operation"], "fdiv");
    }
}

#[test]
fn diff_of_a_whole_file_prints_a_line_per_fpcore_and_a_total() {
    let (_dir, file) = cores_file();
    let out = run(&["diff", &file, "--time-budget", "2"]);
    // `bad` is not analysed, so no run can be clean: findings (1) or unknown (3).
    assert!(out.code == 1 || out.code == 3, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[0].starts_with("function"), "{}", out.stdout);
    assert!(
        lines.iter().any(|l| l.starts_with("bad")
            && l.contains("not supported")
            && l.contains("t.fpcore:5:3")),
        "{}",
        out.stdout
    );
    assert!(lines.iter().any(|l| l.starts_with("plus one ")));
    assert!(lines.iter().any(|l| l.starts_with("ratio ")));
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("total: 2 functions analysed, 1 not;"),
        "{}",
        out.stdout
    );
    let out = run(&["diff", &file, "--time-budget", "2", "--json"]);
    let recs = records(&out.stdout);
    assert_eq!(recs.iter().filter(|r| r["type"] == "summary").count(), 2);
    let total = recs.last().unwrap();
    assert_eq!(total["type"], "total");
    assert_eq!(total["data"]["functions"], 2);
    assert_eq!(total["data"]["unsupported"], 1);
}

#[test]
fn an_unsupported_operation_is_exit_2_with_its_position() {
    let (_dir, file) = cores_file();
    let out = run(&["diff", &file, "-f", "bad"]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr.contains("t.fpcore:5:3") && out.stderr.contains("`foo`"),
        "{}",
        out.stderr
    );
    // A file with nothing supported fails as a whole, for every mode.
    let dir = tempfile::tempdir().unwrap();
    let only_bad = write(dir.path(), "b.fpcore", "\n  (FPCore (x) (foo x))");
    for mode in [
        vec!["diff", &only_bad],
        vec!["exceptions", &only_bad],
        vec!["run", &only_bad, "-f", "#0", "--args", "1"],
    ] {
        let out = run(&mode);
        assert_eq!(out.code, 2, "{mode:?}: {}", out.stdout);
        assert!(out.stderr.contains("b.fpcore:2:15"), "{}", out.stderr);
    }
    // An unknown name lists the supported ones.
    let out = run(&["run", &file, "-f", "nope", "--args", "1"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("plus one") && out.stderr.contains("ratio"),
        "{}",
        out.stderr
    );
}

/// A valid FPCore with some characters replaced, inserted or removed.
fn mutated() -> impl Strategy<Value = String> {
    let base = CORES.lines().nth(1).unwrap().to_string();
    let len = base.len();
    let edits = prop::collection::vec(
        (
            0..len,
            prop::sample::select(vec![
                "", "(", ")", "[", "]", ":", "!", "x", "1e999", "-", "\"", ";", "#", "é", " ",
                ":pre", "(<= x)", "nan", "(and)",
            ]),
        ),
        1..4,
    );
    edits.prop_map(move |edits| {
        let mut s = base.clone();
        for (at, text) in edits {
            let mut at = at.min(s.len());
            while !s.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + 1).min(s.len());
            while !s.is_char_boundary(end) {
                end += 1;
            }
            s.replace_range(at..end, text);
        }
        s
    })
}

fn check_exit(out: &Output, what: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        [0, 1, 2, 3].contains(&out.code),
        "{what}: exit {}\n{}",
        out.code,
        out.stderr
    );
    if out.code == 2 {
        prop_assert!(!out.stderr.trim().is_empty(), "{what}: exit 2, no message");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn malformed_input_is_an_exit_code_never_a_panic(
        text in mutated(),
        range in "[xy]?=?-?[0-9a-z.:]{0,8}",
        args in "[-0-9a-z.,\\[\\]]{0,10}",
    ) {
        let dir = tempfile::tempdir().unwrap();
        let file = write(dir.path(), "m.fpcore", &text);
        let what = format!("{text:?} --range {range:?} --args {args:?}");
        let out = run(&["run", &file, "-f", "#0", "--args", &args, "--time-budget", "2"]);
        check_exit(&out, &what)?;
        let out = run(&[
            "diff", &file, "-f", "#0", "--range", &range, "--time-budget", "0.5",
            "--random-only",
        ]);
        check_exit(&out, &what)?;
    }
}

#[test]
fn error_on_an_fpcore_measures_against_its_body_as_mathematics() {
    // (- (sqrt (+ x 1)) (sqrt x)) cancels for large x: the C translation loses every
    // bit there, which the body evaluated exactly shows (a shadow run of the same
    // algorithm at 256 bits would show it too, but names the comparison otherwise).
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(
        dir.path(),
        "c.fpcore",
        "(FPCore (x) :name \"sqrt diff\" :pre (<= 1e10 x 1e15) (- (sqrt (+ x 1)) (sqrt x)))\n",
    );
    let out = run(&[
        "error",
        &file,
        "-f",
        "sqrt diff",
        "--time-budget",
        "3",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let recs = records(&out.stdout);
    let error = &recs.iter().find(|r| r["type"] == "error").expect("error")["data"];
    assert_eq!(error["reference"], "(- (sqrt (+ x 1)) (sqrt x))", "{error}");
    assert!(
        error["compared_with"]
            .as_str()
            .is_some_and(|c| c.starts_with("the mathematical function")),
        "{error}"
    );
    let rel = error["max_rel_error"].as_f64().expect("finite");
    assert!(rel > 1e-3, "{error}");
    assert!(!error["bug_inputs"].as_array().expect("list").is_empty());
}
