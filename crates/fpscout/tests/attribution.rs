//! `diff`'s attribution (issue #31): each fast-math sub-option named for the difference it causes (`tests/diff/causes.c`, one function per sub-option), the safe flag set, and FMA contraction found natively and modelled by the interpreter.

mod common;

use common::cli::{json_run, repo};
use serde_json::Value;

/// `fpscout diff causes.c -f FUNCTION ARGS --json`: the confirmed findings and the
/// summary.
fn diff_of(function: &str, args: &[&str]) -> (Vec<Value>, Value) {
    let src = repo("tests/diff/causes.c").display().to_string();
    let mut all = vec!["diff", &src, "-f", function, "--time-budget", "10"];
    all.extend_from_slice(args);
    let (records, _) = json_run(&all);
    let findings: Vec<Value> = records
        .iter()
        .filter(|r| r["type"] == "finding" && r["data"]["confirmed"] == true)
        .map(|r| r["data"].clone())
        .collect();
    let summary = records
        .iter()
        .find(|r| r["type"] == "summary")
        .unwrap_or_else(|| panic!("no summary: {records:?}"))["data"]
        .clone();
    (findings, summary)
}

/// The `data` of a whole-file run's `{"type":"total"}` record.
fn total_of(records: &[Value]) -> &Value {
    &records
        .iter()
        .find(|r| r["type"] == "total")
        .unwrap_or_else(|| panic!("no total: {records:?}"))["data"]
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("a list of names: {v}"))
        .iter()
        .map(|n| n.as_str().unwrap_or_default().to_string())
        .collect()
}

fn has_fma() -> bool {
    std::arch::is_x86_feature_detected!("fma")
}

#[test]
fn each_sub_option_is_named_for_the_difference_it_causes() {
    let cases: [(&str, &str, &[&str]); 7] = [
        ("nan_guard", "finite-math-only", &[]),
        ("tenth", "reciprocal-math", &[]),
        ("scaled", "associative-math", &[]),
        ("reciprocal_of_sum_with_zero", "no-signed-zeros", &[]),
        (
            "multiply_add",
            "fp-contract=fast",
            &["--opt-flags", "-O3 -ffast-math -mfma"],
        ),
        ("cube_by_pow", "approx-func", &[]),
        ("halve", "ftz-daz", &[]),
    ];
    for (function, known, args) in cases {
        if function == "multiply_add" && !has_fma() {
            eprintln!("skipped {function}: this CPU has no FMA, so nothing is contracted");
            continue;
        }
        let (findings, summary) = diff_of(function, args);
        assert!(!findings.is_empty(), "{function}: no confirmed finding");
        // Subnormal inputs reach every one of these functions, and flushing them is a
        // difference of its own: every other attribution must be the known option.
        let expected = [known.to_string(), "ftz-daz".to_string()];
        let mut named_alone = false;
        for x in &findings {
            let a = names(&x["attribution"]);
            assert!(
                !a.is_empty() && a.iter().all(|n| expected.contains(n)),
                "{function}: attribution {a:?} of {x}"
            );
            named_alone |= a == [known];
        }
        assert!(named_alone, "{function}: no finding needs {known} alone");
        for sig in summary["signature_inputs"].as_array().into_iter().flatten() {
            if sig["confirmed"] == true {
                assert!(
                    !sig["attributions"].as_array().is_none_or(Vec::is_empty),
                    "{function}: signature without attribution: {sig}"
                );
            }
        }
        let safe = &summary["safe_flags"];
        assert!(
            names(&safe["disabled"]).contains(&known.to_string()),
            "{function}: {safe}"
        );
        assert_eq!(safe["verified"], true, "{function}: {safe}");
    }
}

#[test]
fn the_safe_set_turns_off_only_the_sub_option_a_function_needs() {
    // Away from subnormals, x / 10 differs only by becoming x * 0.1.
    let (findings, summary) = diff_of("tenth", &["--range", "x=1:1000"]);
    assert!(!findings.is_empty());
    let safe = &summary["safe_flags"];
    assert_eq!(names(&safe["disabled"]), ["reciprocal-math"], "{safe}");
    assert_eq!(safe["command"], "-O3 -ffast-math -g -fno-reciprocal-math");
    assert_eq!(safe["verified"], true);
    assert_eq!(names(&safe["kept"]).len(), 6);
}

#[test]
fn the_files_safe_set_turns_off_what_any_function_needs_and_is_checked_on_every_function() {
    // Two worker processes: each function's set and witnesses reach the parent as JSON.
    let src = repo("tests/diff/two_causes.c").display().to_string();
    let (records, code) = json_run(&[
        "diff",
        &src,
        "--range",
        "x=1:1000",
        "--time-budget",
        "5",
        "--jobs",
        "2",
    ]);
    assert_eq!(code, Some(1), "{records:?}");
    let total = total_of(&records);
    let safe = &total["safe_flags"];
    assert_eq!(
        names(&safe["disabled"]),
        ["reciprocal-math", "associative-math"],
        "{safe}"
    );
    assert_eq!(
        safe["command"],
        "-O3 -ffast-math -g -fno-reciprocal-math -fno-associative-math"
    );
    assert_eq!(safe["functions"], 3, "{safe}");
    // Each function's own set kept more than the file's: both were replayed on it.
    let mut rechecked = names(&safe["rechecked"]);
    rechecked.sort();
    assert_eq!(rechecked, ["scaled", "tenth"], "{safe}");
    assert_eq!(safe["verified"], true, "{safe}");
    assert!(names(&safe["still_differ"]).is_empty(), "{safe}");
    // The carried witnesses stay out of the total record.
    assert!(total.get("function_safe_sets").is_none(), "{total}");

    // A P' that is not a fast-math build has no sub-options to keep: no file set.
    let (records, code) = json_run(&[
        "diff",
        &src,
        "--range",
        "x=1:1000",
        "--time-budget",
        "3",
        "--p-prime-flags",
        "-O3 -freciprocal-math",
    ]);
    assert_eq!(code, Some(1), "{records:?}");
    let total = total_of(&records);
    assert!(total.get("safe_flags").is_none(), "{total}");
}

#[test]
fn a_contracted_multiply_add_is_confirmed_natively_and_modelled() {
    if !has_fma() {
        eprintln!("skipped: this CPU has no FMA, so no executable contracts");
        return;
    }
    let (findings, _) = diff_of(
        "multiply_add",
        &[
            "--opt-flags",
            "-O3 -ffast-math -mfma",
            "--range",
            "a=1:2",
            "--range",
            "b=1:2",
            "--range",
            "c=-4:4",
        ],
    );
    let contracted: Vec<&Value> = findings
        .iter()
        .filter(|x| names(&x["attribution"]) == ["fp-contract=fast"])
        .collect();
    assert!(!contracted.is_empty(), "{findings:?}");
    for x in contracted {
        assert_eq!(x["kinds"], serde_json::json!(["ulps"]), "{x}");
        // The interpreter fuses the same multiply-add: it reproduces both builds.
        assert_eq!(x["model_agrees"], true, "{x}");
    }
}

#[test]
fn a_vectorised_dot_product_fused_register_by_register_is_modelled() {
    if !has_fma() {
        eprintln!("skipped: this CPU has no FMA, so nothing is contracted");
        return;
    }
    let (findings, summary) = diff_of(
        "dot16",
        &[
            "--opt-flags",
            "-O3 -ffast-math -mfma",
            "--array-len",
            "x=16",
            "--array-len",
            "y=16",
            "--range",
            "x=-1:1",
            "--range",
            "y=-1:1",
            "--no-attribution",
        ],
    );
    // Roundings (and flushed subnormal products): the interpreter computes the
    // executables' bits, flags and traces for every one, fused products included.
    assert!(
        findings
            .iter()
            .any(|x| names(&x["kinds"]).contains(&"ulps".to_string())),
        "{summary}"
    );
    for x in &findings {
        assert!(x["model_unchecked"].is_null(), "{x}");
        assert_eq!(x["model_agrees"], true, "{x}");
    }
    assert_eq!(summary["model_disagreements"], 0, "{summary}");
}

#[test]
fn without_attribution_nothing_is_rebuilt() {
    let (findings, summary) = diff_of("tenth", &["--no-attribution"]);
    assert!(!findings.is_empty());
    assert!(findings.iter().all(|x| x["attribution"].is_null()));
    assert!(summary["safe_flags"].is_null());
    assert_eq!(summary["attribution_builds"], 0);
}

#[test]
fn any_two_builds_differ_where_one_contracts_multiply_adds() {
    if !has_fma() {
        eprintln!("skipped: this CPU has no FMA, so -march=native does not contract");
        return;
    }
    let (findings, summary) = diff_of(
        "multiply_add",
        &[
            "--p-flags",
            "-O2",
            "--p-prime-flags",
            "-O2 -march=native -ffp-contract=fast",
        ],
    );
    let ulps: Vec<&Value> = findings
        .iter()
        .filter(|x| x["kinds"] == serde_json::json!(["ulps"]))
        .collect();
    assert!(!ulps.is_empty(), "no contraction difference: {findings:?}");
    for x in &findings {
        assert_eq!(x["model_agrees"], true, "{x}");
        let replay = x["replay"].as_str().unwrap_or_default();
        assert!(
            replay.contains("--p-flags=-O2") && replay.contains("-march=native"),
            "{replay}"
        );
    }
    // Not a fast-math build: there is nothing to attribute to its sub-options.
    assert!(summary["safe_flags"].is_null());
    assert!(findings.iter().all(|x| x["attribution"].is_null()));
}
