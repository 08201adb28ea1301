//! Running the `fpscout` binary from a test: its exit code and output, its JSON Lines,
//! and source files written for it.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `fpscout ARGS` to its end, with a compile cache of the tests' own (under the
/// target directory, never the user's).
pub fn run(args: &[&str]) -> Output {
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fpscout-test-cache");
    run_env(args, &[("FPSCOUT_CACHE_DIR", cache.as_os_str())])
}

/// [`run`] with environment variables set (such as another `FPSCOUT_CACHE_DIR`).
pub fn run_env(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_fpscout"))
        .args(args)
        .env_remove("FPSCOUT_NO_CACHE")
        .envs(env.iter().copied())
        .output()
        .expect("fpscout runs");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The JSON Lines records of `--json` output.
pub fn records(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// `fpscout ARGS --json`: its JSON Lines records and exit code. An input error (exit
/// code 2) fails the test with fpscout's message.
pub fn json_run(args: &[&str]) -> (Vec<serde_json::Value>, Option<i32>) {
    let mut all = args.to_vec();
    all.push("--json");
    let out = run(&all);
    assert!(out.code != 2, "input error: {}", out.stderr);
    (records(&out.stdout), Some(out.code))
}

/// `fpscout reach ARGS --json`: its answer record, its witness record (if any) and its
/// exit code.
pub fn reach(args: &[&str]) -> (serde_json::Value, Option<serde_json::Value>, Option<i32>) {
    let mut all = vec!["reach"];
    all.extend_from_slice(args);
    let (records, code) = json_run(&all);
    let answer = records
        .iter()
        .find(|r| r["type"] == "answer")
        .unwrap_or_else(|| panic!("no answer record: {records:?}"))["data"]
        .clone();
    let witness = records
        .iter()
        .find(|r| r["type"] == "witness")
        .map(|r| r["data"].clone());
    (answer, witness, code)
}

/// Writes `text` to `dir/name`; its path, as an argument.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write source");
    p.display().to_string()
}

/// A file of the repository.
pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}
