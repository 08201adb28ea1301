//! SARIF output of `exceptions`, `diff` and `reach` validated against the SARIF 2.1.0 schema, with
//! its rules, locations, witnesses and code flows, fingerprints that survive an inserted
//! line, and one log for every function of a whole-file run.

mod common;

use common::cli::repo;
use fpscout_report::finding::{Finding, Mode};
use fpscout_search::diff::{run_diff, DiffConfig};
use fpscout_search::exceptions::{run_exceptions, ExceptionsConfig};
use fpscout_search::findings::{from_diff, from_exceptions};
use fpscout_search::session::Session;
use fpscout_toolchain::BuildFlags;
use serde_json::Value;
use std::path::Path;
use std::sync::Mutex;

/// Solving forks the calling thread (see `fpscout_smt::isolate`): tests take turns.
static ONE_Z3_USER: Mutex<()> = Mutex::new(());

fn schema_check(log: &Value) {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo("tests/sarif/sarif-schema-2.1.0.json")).expect("schema"),
    )
    .expect("schema JSON");
    let validator = jsonschema::draft4::new(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{log:#}");
}

fn exceptions_findings(source: &Path, function: &str) -> Vec<Finding> {
    let _turn = ONE_Z3_USER.lock().unwrap_or_else(|e| e.into_inner());
    let session = Session::open(source, BuildFlags::default()).expect("session");
    let mut cfg = ExceptionsConfig::new(function);
    cfg.threads = 2;
    cfg.random_inputs = 2000;
    cfg.common.time_budget_s = 15.0;
    let report = run_exceptions(&session, &cfg, &mut |_, _, _| {}).expect("exceptions");
    from_exceptions(&report, &Default::default())
}

#[test]
fn exceptions_sarif_is_valid_and_points_at_the_operation() {
    let findings = exceptions_findings(&repo("tests/corpus/av1.c"), "av1");
    assert!(findings.iter().all(|f| f.mode == Mode::Exceptions));
    let log = fpscout_report::sarif::log(&findings, "test");
    schema_check(&log);
    let run = &log["runs"][0];
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"overflow") && rules.contains(&"fast-math-flags-differ"));
    let overflow = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "overflow")
        .expect("the overflow of x + y");
    assert_eq!(
        rules[overflow["ruleIndex"].as_u64().unwrap() as usize],
        "overflow"
    );
    let place = &overflow["locations"][0]["physicalLocation"];
    assert!(place["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .ends_with("av1.c"));
    assert_eq!(place["region"]["startLine"], 2);
    // The witness replays with `fpscout run --args`, and the trace reaches the operation.
    assert!(!overflow["properties"]["run_args"]
        .as_str()
        .unwrap()
        .is_empty());
    assert_eq!(overflow["properties"]["class"], "potentially_avoidable");
    let flow = &overflow["codeFlows"][0]["threadFlows"][0]["locations"];
    assert!(flow
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["location"]["physicalLocation"]["region"]["startLine"] == 2));
}

#[test]
fn diff_sarif_is_valid_and_carries_both_builds() {
    let _turn = ONE_Z3_USER.lock().unwrap_or_else(|e| e.into_inner());
    let session = Session::open(&repo("examples/sum.c"), BuildFlags::default()).expect("session");
    let mut cfg = DiffConfig::new("sum");
    cfg.common.array_lens.insert("x".into(), 9);
    cfg.common.ints.insert("n".into(), 9);
    cfg.random_inputs = 2000;
    cfg.threads = 2;
    let report = run_diff(&session, &cfg, &mut |_, _, _| {}).expect("diff");
    let findings = from_diff(&report, &Default::default());
    assert!(!findings.is_empty());
    let log = fpscout_report::sarif::log(&findings, "test");
    schema_check(&log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let flags = results
        .iter()
        .find(|r| r["ruleId"] == "fast-math-flags-differ")
        .expect("a flags difference");
    let builds = flags["properties"]["builds"].as_array().unwrap();
    assert_eq!(builds.len(), 2);
    assert_eq!(builds[0]["build"], "P");
    assert_eq!(builds[1]["build"], "P'");
    assert!(flags["codeFlows"].as_array().is_some_and(|f| !f.is_empty()));
}

#[test]
fn fingerprints_survive_a_line_inserted_above() {
    let dir = tempfile::tempdir().unwrap();
    let original = "double av(double x, double y) { return (x + y) / 2.0; }\n";
    let src = dir.path().join("av.c");
    std::fs::write(&src, original).unwrap();
    let prints = |findings: &[Finding]| {
        let log = fpscout_report::sarif::log(findings, "test");
        let mut out: Vec<(String, String)> = log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["ruleId"].as_str().unwrap().to_string(),
                    r["partialFingerprints"]["fpscoutFinding/v1"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                )
            })
            .collect();
        out.sort();
        out
    };
    // Each run's fingerprints are taken while its source is on disk, as a CI job would.
    let before = exceptions_findings(&src, "av");
    let a = prints(&before);
    std::fs::write(&src, format!("/* a comment */\n\n{original}")).unwrap();
    let after = exceptions_findings(&src, "av");
    let b = prints(&after);
    assert!(!a.is_empty());
    assert_eq!(a, b, "fingerprints changed when the line moved");
    // The lines did move.
    assert_ne!(
        before[0].location.as_ref().map(|l| l.line),
        after[0].location.as_ref().map(|l| l.line)
    );
    // Different rules at one place get different fingerprints.
    let mut ids: Vec<&String> = a.iter().map(|(_, p)| p).collect();
    ids.dedup();
    assert_eq!(ids.len(), a.len());
}

/// The functions a SARIF log's results are about, sorted and once each.
fn functions_of(log: &Value) -> Vec<String> {
    let mut names: Vec<String> = log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["properties"]["function"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

fn read_log(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("the SARIF file")).expect("JSON")
}

#[test]
fn whole_file_runs_write_one_log_of_every_function() {
    let dir = tempfile::tempdir().unwrap();
    let fpcore = common::cli::write(
        dir.path(),
        "averages.fpcore",
        "(FPCore (x y) :name \"av1\" (/ (+ x y) 2))\n\
         (FPCore (x y) :name \"av2\" (+ (/ x 2) (/ y 2)))\n",
    );
    let diff_log = dir.path().join("diff.sarif");
    let budget = ["--random", "3000", "--time-budget", "10"];
    let diff_args = ["diff", &fpcore, "--sarif", diff_log.to_str().unwrap()];
    let out = common::cli::run(&[&diff_args[..], &budget].concat());
    assert_eq!(out.code, 1, "{}", out.stderr);
    let log = read_log(&diff_log);
    schema_check(&log);
    assert_eq!(log["runs"].as_array().map(Vec::len), Some(1));
    assert_eq!(functions_of(&log), ["av1", "av2"]);
    // Workers of a whole-file exceptions run pass their findings to the one log, and
    // nothing of that shows in the JSON Lines.
    let exceptions_log = dir.path().join("exceptions.sarif");
    let out = common::cli::run(&[
        "exceptions",
        repo("tests/corpus/av1.c").to_str().unwrap(),
        repo("tests/corpus/av2.c").to_str().unwrap(),
        "--sarif",
        exceptions_log.to_str().unwrap(),
        "--time-budget",
        "5",
        "--json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let records = common::cli::records(&out.stdout);
    let findings = records.iter().filter(|r| r["type"] == "finding").count();
    assert!(records.iter().all(|r| r["type"] != "finding_model"));
    let log = read_log(&exceptions_log);
    schema_check(&log);
    assert_eq!(functions_of(&log), ["av1", "av2"]);
    assert_eq!(
        log["runs"][0]["results"].as_array().map(Vec::len),
        Some(findings)
    );
    let overflow = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "overflow" && r["properties"]["function"] == "av1")
        .expect("the overflow of x + y in av1");
    assert_eq!(
        overflow["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
}

#[test]
fn reach_sarif_is_valid_and_points_at_the_error_functions_abort() {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("reach.sarif");
    let program = repo("tests/svcomp/recip41_abort.c");
    let out = common::cli::run(&[
        "reach",
        program.to_str().unwrap(),
        "--sarif",
        log_path.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let log = read_log(&log_path);
    schema_check(&log);
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 1);
    let result = &results[0];
    assert_eq!(result["ruleId"], "assertion-reachable");
    let rule =
        &log["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"].as_u64().unwrap() as usize];
    assert_eq!(rule["id"], "assertion-reachable");
    assert_eq!(result["properties"]["mode"], "reach");
    assert_eq!(result["properties"]["run_args"], "[0x1.8f9c1ap-6]");
    assert_eq!(result["properties"]["builds"][0]["outcome"], "aborts");
    // The abort inside reach_error (line 6), not assume_abort_if_not's.
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 6, "{result:#}");
    let uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap_or_default();
    assert!(uri.ends_with("recip41_abort.c"), "{uri}");
}
