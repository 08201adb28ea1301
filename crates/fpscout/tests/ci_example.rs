//! examples/ci run locally: the analysis step of its GitHub Actions workflow, as written there, passes on the committed baseline, fails on a function added after it (only that function's findings new), and leaves SARIF with fingerprints for code scanning.

mod common;

use common::cli::repo;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The shell of the workflow step named `name`.
fn workflow_step(name: &str) -> String {
    let text = std::fs::read_to_string(repo("examples/ci/.github/workflows/fpscout.yml"))
        .expect("the workflow");
    let workflow: serde_yaml::Value = serde_yaml::from_str(&text).expect("workflow YAML");
    let jobs = workflow["jobs"].as_mapping().expect("jobs");
    jobs.values()
        .flat_map(|job| job["steps"].as_sequence().cloned().unwrap_or_default())
        .find(|step| step["name"].as_str() == Some(name))
        .and_then(|step| step["run"].as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("no step '{name}' with a run: in the workflow"))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs the step's shell in `dir` with this build's fpscout first on PATH.
fn run_step(script: &str, dir: &Path) -> (i32, String, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_fpscout")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-eo", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        // The tests' own compile cache, never the user's.
        .env(
            "FPSCOUT_CACHE_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("fpscout-test-cache"),
        )
        .output()
        .expect("bash runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `(status, function)` of each line of the text verdict (`  known  FINGERPRINT fn rule: ...`).
fn verdict_lines(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("baseline: "))
        .skip(1)
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let status = words.next()?.to_string();
            let _fingerprint = words.next()?;
            Some((status, words.next()?.to_string()))
        })
        .collect()
}

#[test]
fn the_workflows_gate_passes_on_the_baseline_and_fails_on_a_new_bug() {
    let script = workflow_step("Analyse (fails on new findings only)");
    assert!(
        script.contains("--baseline fpscout-baseline.jsonl"),
        "{script}"
    );
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo("examples/ci"), dir.path());

    let (code, stdout, stderr) = run_step(&script, dir.path());
    assert_eq!(
        code, 0,
        "the committed baseline knows everything:\n{stdout}\n{stderr}"
    );
    let lines = verdict_lines(&stdout);
    assert!(lines.len() >= 10, "{stdout}");
    assert!(lines.iter().all(|(s, _)| s == "known"), "{stdout}");
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("fpscout.sarif")).unwrap())
            .unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), lines.len());
    assert!(results
        .iter()
        .all(|r| r["partialFingerprints"]["fpscoutFinding/v1"].is_string()));
    assert!(dir.path().join("fpscout-html/index.html").is_file());

    // A change that moves every line and adds a function that divides by its argument.
    let src = dir.path().join("src/stats.c");
    let old = std::fs::read_to_string(&src).unwrap();
    std::fs::write(
        &src,
        format!("/* v2 */\n{old}\ndouble inverse(double x) {{ return 1.0 / x; }}\n"),
    )
    .unwrap();
    let (code, stdout, stderr) = run_step(&script, dir.path());
    assert_eq!(code, 1, "a new bug fails the job:\n{stdout}\n{stderr}");
    let lines = verdict_lines(&stdout);
    let new: Vec<&String> = lines
        .iter()
        .filter(|(s, _)| s == "NEW")
        .map(|(_, f)| f)
        .collect();
    assert!(!new.is_empty(), "{stdout}");
    assert!(new.iter().all(|f| *f == "inverse"), "{stdout}");
    assert!(
        lines.iter().filter(|(s, _)| s == "known").count() >= 10,
        "{stdout}"
    );
}
