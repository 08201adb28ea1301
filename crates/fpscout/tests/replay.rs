//! Every printed replay command runs as printed and reproduces its finding: a function over two files, a header in an `-I` directory with a space in its name and a `-D` macro, under each mode, its commands taken from the text output and from the JSON; and exceptions names the operation the raising instruction computes.

mod common;

use common::cli::{records, write};
use fpscout_report::args::hex_float;
use fpscout_report::finding::{Finding, Rule};
use std::path::Path;
use std::process::Command;

/// With `MAGNIFY`, `stretch` multiplies by 2^900: the findings below exist only when the
/// replay passes `-DMAGNIFY` and finds the header in `my inc`.
const HEADER: &str = "#ifndef MODEL_H\n#define MODEL_H\n\
                      #ifdef MAGNIFY\n#define FACTOR 0x1p900\n#else\n#define FACTOR 1.0\n#endif\n\
                      double stretch(double x);\n#endif\n";
const UTIL: &str = "#include \"model.h\"\ndouble stretch(double x) { return x * FACTOR; }\n";
const MAIN: &str = "#include <assert.h>\n#include \"model.h\"\n\
                    double combine(double a, double b, int n) { return stretch(a) * b * n; }\n\
                    double check(double a) { double s = stretch(a); assert(s < 0x1p901); return s; }\n\
                    double blend(double a, double b) { return (stretch(a) + b) - stretch(a); }\n";

/// The project in a fresh directory, named by relative paths from it.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("my inc")).unwrap();
    write(&dir.path().join("my inc"), "model.h", HEADER);
    write(dir.path(), "main.c", MAIN);
    write(dir.path(), "util.c", UTIL);
    dir
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn fpscout_in(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_fpscout"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("fpscout runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs a printed replay command with `sh -c` from `dir`, the test's binary in place of
/// the leading `fpscout`: its output.
fn replay_in(dir: &Path, command: &str) -> String {
    let rest = command
        .strip_prefix("fpscout ")
        .unwrap_or_else(|| panic!("a replay command starts with fpscout: {command}"));
    let exe = env!("CARGO_BIN_EXE_fpscout").replace('\'', "'\\''");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("'{exe}' {rest}"))
        .current_dir(dir)
        .output()
        .expect("sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{command}: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// What `fpscout run` printed: the P and P' cells of a row whose cells have no spaces
/// (`native result`, `native flags`).
fn row(run: &str, name: &str) -> (String, String) {
    let line = run
        .lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no {name} row in\n{run}"));
    let cells: Vec<&str> = line[name.len()..].split_whitespace().collect();
    assert_eq!(cells.len(), 2, "{line}");
    (cells[0].to_string(), cells[1].to_string())
}

/// The line of a row.
fn row_line<'a>(run: &'a str, name: &str) -> &'a str {
    run.lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no {name} row in\n{run}"))
}

/// A build's cell of a row.
fn cell(run: &str, name: &str, build: &str) -> String {
    let (p, q) = row(run, name);
    if build == "P" {
        p
    } else {
        q
    }
}

/// Flags as `run` prints them, inexact aside (findings never report it).
fn flags_without_inexact(cell: &str) -> String {
    let kept: Vec<&str> = cell
        .split(',')
        .filter(|f| *f != "inexact" && *f != "none")
        .collect();
    if kept.is_empty() {
        "none".into()
    } else {
        kept.join(",")
    }
}

/// Whether `build`'s native exception trace in `run` raises `kind` at `location`.
fn native_trace_raises(run: &str, build: &str, kind: &str, location: &str) -> bool {
    let heading = format!("{build} native exception trace");
    run.split("\n\n")
        .filter(|section| section.starts_with(&heading))
        .flat_map(|section| section.lines().skip(1))
        .any(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.first() == Some(&kind) && words.contains(&location)
        })
}

/// The findings (`--jsonl`) of a run, with the replay each carries.
fn findings_file(path: &Path) -> Vec<Finding> {
    let text = std::fs::read_to_string(path).expect("findings file");
    records(&text)
        .into_iter()
        .filter(|r| r["type"] == "finding")
        .map(|r| serde_json::from_value(r["data"]["finding"].clone()).expect("a finding"))
        .collect()
}

/// Asserts the output of `finding`'s replay shows what the finding reported.
fn assert_reproduces(run: &str, f: &Finding) {
    for b in &f.runs {
        match f.rule {
            Rule::Overflow | Rule::Underflow | Rule::DivideByZero | Rule::Invalid => {
                let kind = match f.rule {
                    Rule::DivideByZero => "divbyzero",
                    other => other.id(),
                };
                let at = f
                    .location
                    .as_ref()
                    .expect("a located exception")
                    .to_string();
                assert!(
                    native_trace_raises(run, &b.build, kind, &at),
                    "{kind} at {at} not replayed by {:?}:\n{run}",
                    f.replay
                );
            }
            Rule::AssertionReachable => {
                let end = row_line(run, "native result");
                assert!(end.contains("fails assertion"), "no abort: {run}");
            }
            _ => {
                if let Some(bits) = b.result {
                    assert_eq!(
                        cell(run, "native result", &b.build),
                        hex_float(bits, fpscout_ir::FloatTy::F64),
                        "{:?}\n{run}",
                        f.replay
                    );
                }
                if f.mode == fpscout_report::finding::Mode::Diff {
                    assert_eq!(
                        flags_without_inexact(&cell(run, "native flags", &b.build)),
                        b.flags.to_string(),
                        "{run}"
                    );
                }
            }
        }
    }
}

/// Runs `mode ARGS` from the project twice (text with a findings file, then `--json`),
/// and replays every text replay line (checked against the finding it belongs to) and the
/// first JSON `replay` (checked by `json_check`); returns the text replays run.
fn replays_of_mode(
    dir: &Path,
    mode: &str,
    args: &[&str],
    json_check: impl Fn(&serde_json::Value, &str),
) -> usize {
    let jsonl = dir.join(format!("{mode}.jsonl"));
    let jsonl_arg = jsonl.display().to_string();
    let mut text_args = vec![mode];
    text_args.extend_from_slice(args);
    text_args.extend(["--jsonl", &jsonl_arg]);
    let text = fpscout_in(dir, &text_args);
    assert_eq!(
        text.code,
        if mode == "error" { 0 } else { 1 },
        "{text_args:?}\n{}\n{}",
        text.stdout,
        text.stderr
    );
    let findings = findings_file(&jsonl);
    assert!(!findings.is_empty(), "{}", text.stdout);
    assert!(!text.stdout.contains("FILE"), "{}", text.stdout);
    let commands: Vec<&str> = text
        .stdout
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("replay: "))
        .collect();
    assert!(!commands.is_empty(), "{}", text.stdout);
    let mut replayed = 0;
    // A few of them: each replay compiles the program anew.
    for command in commands.iter().take(3) {
        assert!(command.contains("'-Imy inc'"), "{command}");
        assert!(command.contains("-DMAGNIFY"), "{command}");
        assert!(command.contains(" main.c util.c "), "{command}");
        let run = replay_in(dir, command);
        // The largest divergence of a diff is no finding of its own: it replays, and
        // shows what the summary said; the others are findings of the findings file.
        if let Some(f) = findings
            .iter()
            .find(|f| f.replay.as_deref() == Some(command))
        {
            assert_reproduces(&run, f);
            replayed += 1;
        }
    }
    assert!(replayed > 0, "no text replay is a finding's: {commands:?}");
    let mut json_args = vec![mode];
    json_args.extend_from_slice(args);
    json_args.push("--json");
    let json = fpscout_in(dir, &json_args);
    let record = records(&json.stdout)
        .into_iter()
        .find(|r| {
            r["data"]["replay"].as_str().is_some_and(|s| !s.is_empty()) && r["type"] != "summary"
        })
        .unwrap_or_else(|| panic!("no record with a replay: {}", json.stdout));
    let command = record["data"]["replay"].as_str().unwrap_or_default();
    json_check(&record["data"], &replay_in(dir, command));
    replayed
}

#[test]
fn exceptions_replays_reproduce() {
    let dir = project();
    let args = [
        "main.c",
        "util.c",
        "-I",
        "my inc",
        "-DMAGNIFY",
        "-f",
        "combine",
        "--int",
        "n=3",
        "--std",
        "c11",
        "--ftz-daz",
        "off",
        "--time-budget",
        "8",
        "--random",
        "3000",
    ];
    replays_of_mode(dir.path(), "exceptions", &args, |record, run| {
        assert!(record["replay"]
            .as_str()
            .unwrap_or("")
            .contains("--ftz-daz=off"));
        assert!(record["replay"]
            .as_str()
            .unwrap_or("")
            .contains("--std=c11"));
        let kind = record["kind"].as_str().unwrap_or("?");
        let at = record["location"].as_str().unwrap_or("?");
        assert!(
            native_trace_raises(run, "P", kind, at),
            "{kind} at {at}:\n{run}"
        );
    });
}

#[test]
fn diff_replays_reproduce() {
    let dir = project();
    let args = [
        "main.c",
        "util.c",
        "-I",
        "my inc",
        "-DMAGNIFY",
        "-f",
        "combine",
        "--int",
        "n=3",
        "--opt-flags",
        "-O2 -ffast-math",
        "--time-budget",
        "10",
        // Few random inputs, so that confirming the differences has time left.
        "--random",
        "5000",
    ];
    replays_of_mode(dir.path(), "diff", &args, |record, run| {
        assert!(record["replay"]
            .as_str()
            .unwrap_or("")
            .contains("'--opt-flags=-O2 -ffast-math'"));
        for (build, key) in [("P", "p"), ("P'", "p_prime")] {
            if let Some(result) = record[key]["result"].as_str() {
                assert_eq!(cell(run, "native result", build), result, "{run}");
            }
            let flags: Vec<&str> = record[key]["flags"]
                .as_array()
                .map(|a| a.iter().filter_map(|f| f.as_str()).collect())
                .unwrap_or_default();
            let flags = if flags.is_empty() {
                "none".to_string()
            } else {
                flags.join(",")
            };
            assert_eq!(
                flags_without_inexact(&cell(run, "native flags", build)),
                flags,
                "{run}"
            );
        }
    });
}

#[test]
fn reach_replays_reproduce() {
    let dir = project();
    let args = [
        "main.c",
        "util.c",
        "-I",
        "my inc",
        "-DMAGNIFY",
        "-f",
        "check",
        "--range",
        "a=0:4",
        // Settled in a second; the rest is room for compiling on a loaded machine.
        "--time-budget",
        "30",
    ];
    replays_of_mode(dir.path(), "reach", &args, |record, run| {
        assert!(record["native"]
            .as_str()
            .unwrap_or("")
            .contains("assertion"));
        let end = row_line(run, "native result");
        assert!(end.contains("fails assertion"), "no abort: {run}");
    });
    // Without the macro the witness (at most 4) passes the assertion: the replay's -D
    // counts.
    let out = fpscout_in(
        dir.path(),
        &[
            "reach",
            "main.c",
            "util.c",
            "-I",
            "my inc",
            "-DMAGNIFY",
            "-f",
            "check",
            "--range",
            "a=0:4",
            "--json",
            "--sarif",
            "out.sarif",
            "--emit-repro",
            "repro",
        ],
    );
    let witness = records(&out.stdout)
        .into_iter()
        .find(|r| r["type"] == "witness")
        .expect("a witness");
    let printed = witness["data"]["replay"].as_str().unwrap_or_default();
    // SARIF and the reproducers' README give the same command.
    let sarif: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out.sarif")).expect("SARIF written"),
    )
    .expect("SARIF is JSON");
    assert_eq!(
        sarif["runs"][0]["results"][0]["properties"]["replay"],
        printed
    );
    let readme = std::fs::read_to_string(dir.path().join("repro/README")).expect("README");
    assert!(readme.contains(printed), "{readme}");
    let command = printed.replace(" -DMAGNIFY", "");
    let run = replay_in(dir.path(), &command);
    assert!(
        !row_line(&run, "native result").contains("fails assertion"),
        "{run}"
    );
}

#[test]
fn error_replays_reproduce() {
    let dir = project();
    let args = [
        "main.c",
        "util.c",
        "-I",
        "my inc",
        "-DMAGNIFY",
        "-f",
        "blend",
        "--range",
        "a=-1:1",
        "--range",
        "b=-1:1",
        "--ftz-daz",
        "off",
        "--time-budget",
        "8",
    ];
    replays_of_mode(dir.path(), "error", &args, |record, run| {
        let computed = record["computed"].as_str().unwrap_or("?");
        assert_eq!(cell(run, "native result", "P"), computed, "{run}");
    });
}

/// A float product compared in one macro: the multiplication, its operand's widening and
/// the comparison share one source position. The underflow is the multiplication's.
#[test]
fn exceptions_names_the_operation_the_instruction_computes() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "m.c",
        "#define SMALL(a, b) ((double)(a) * (b) < 1e-300)\n\
         double f(float a, double b) { if (SMALL(a, b)) return 1.0; return 0.0; }\n",
    );
    let out = fpscout_in(
        dir.path(),
        &[
            "exceptions",
            "m.c",
            "-f",
            "f",
            "--time-budget",
            "10",
            "--random",
            "3000",
            "--json",
        ],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let findings: Vec<serde_json::Value> = records(&out.stdout)
        .into_iter()
        .filter(|r| r["type"] == "finding")
        .map(|r| r["data"].clone())
        .collect();
    let underflow = findings
        .iter()
        .find(|f| f["kind"] == "underflow")
        .unwrap_or_else(|| panic!("no underflow: {findings:?}"));
    assert_eq!(underflow["operation"], "fmul", "{underflow}");
    assert_eq!(underflow["instruction"], "mulsd", "{underflow}");
    for f in &findings {
        let op = f["operation"].as_str().unwrap_or("");
        assert!(
            !(op == "fcmp" || op == "fpext") || f["kind"] == "invalid",
            "{op} cannot raise {}",
            f["kind"]
        );
    }
}
