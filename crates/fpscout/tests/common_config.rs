//! The configuration every mode shares, through the real binary: the same flags mean the same thing in `exceptions`, `diff`, `reach` and `error` (invalid values, integer ranges), `error` stays inside `--range`, and `reach` and `error` interpret with the FP mode the executable really runs with.

mod common;

use common::cli::{json_run, run, write};

const MODES: [&str; 4] = ["exceptions", "diff", "reach", "error"];

#[test]
fn an_invalid_common_value_is_refused_alike_by_every_mode() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = write(
        dir.path(),
        "g.c",
        "double g(double x, int n) { return x * n; }\n",
    );
    for (bad, says) in [
        (
            "--time-budget=-1",
            "fpscout: error: --time-budget must be a number of seconds >= 0, not -1",
        ),
        (
            "--time-budget=nan",
            "fpscout: error: --time-budget must be a number of seconds >= 0, not NaN",
        ),
        (
            "--hang-limit-ms=0",
            "fpscout: error: --hang-limit-ms must be at least 1",
        ),
        (
            "--range=x=2:1",
            "fpscout: error: --range expects NAME=LO:HI with finite LO <= HI, got 'x=2:1'",
        ),
    ] {
        for mode in MODES {
            let out = run(&[mode, &src, "-f", "g", bad]);
            assert_eq!(out.code, 2, "{mode} {bad}: {}", out.stderr);
            assert_eq!(out.stderr.trim_end(), says, "{mode} {bad}");
        }
    }
}

#[test]
fn every_mode_shows_the_one_hang_limit_and_its_own_time_budget() {
    for (mode, budget) in [
        ("exceptions", "30"),
        ("diff", "60"),
        ("reach", "60"),
        ("error", "60"),
    ] {
        let help = run(&[mode, "--help"]).stdout;
        let shown = |flag: &str| {
            let after = &help[help.find(flag).unwrap_or_else(|| panic!("{mode}: {flag}"))..];
            let start = after.find("[default: ").expect("a default") + "[default: ".len();
            after[start..start + after[start..].find(']').expect("]")].to_string()
        };
        assert_eq!(shown("--hang-limit-ms <"), "200", "{mode}");
        assert_eq!(shown("--time-budget <"), budget, "{mode}");
        assert_eq!(shown("--seed <"), "1", "{mode}");
    }
}

/// The witness or worst input's value of `name` in a mode's JSON record.
fn input_of<'a>(data: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    data["inputs"]
        .as_array()
        .and_then(|a| a.iter().find(|i| i["name"] == name))
        .map(|i| &i["value"])
        .unwrap_or_else(|| panic!("no input {name} in {data}"))
}

#[test]
fn a_range_on_an_integer_parameter_is_sampled_by_every_mode() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = write(
        dir.path(),
        "g.c",
        "double g(double x, int n) { return x * n; }\n",
    );
    let common = ["-f", "g", "--range", "x=1:1", "--range", "n=1:4"];
    // reach: the result 4 needs n = 4, the highest value sampled, not the lowest.
    let mut args = vec!["reach", src.as_str()];
    args.extend(common);
    args.extend(["--output-range", "4:4", "--time-budget", "20"]);
    let (recs, code) = json_run(&args);
    assert_eq!(code, Some(1), "{recs:?}");
    let witness = recs
        .iter()
        .find(|r| r["type"] == "witness")
        .expect("a witness");
    assert_eq!(input_of(&witness["data"], "n")["int"], 4);
    assert_eq!(witness["data"]["native"], "returns 4.0");
    // Every value of 10..=40 is not sampled: unreachable for the samples is not a proof.
    let (recs, code) = json_run(&[
        "reach",
        &src,
        "-f",
        "g",
        "--range",
        "x=1:1",
        "--range",
        "n=10:40",
        "--output-range",
        "4:4",
        "--time-budget",
        "20",
    ]);
    assert_eq!(code, Some(3), "{recs:?}");
    let answer = &recs.last().expect("an answer")["data"];
    assert_eq!(answer["answer"], "unknown");
    assert!(
        answer["reason"]
            .as_str()
            .is_some_and(|r| r.contains("n=10; n=20; n=30; n=40")),
        "{answer}"
    );
    // error: x = 1 exactly, so the result is n; every assignment is measured and the
    // input reported is one of them.
    let mut args = vec!["error", src.as_str()];
    args.extend(common);
    args.extend(["--time-budget", "4"]);
    let (recs, _) = json_run(&args);
    let data = &recs[0]["data"];
    let n = input_of(data, "n")["int"].as_i64().expect("an integer n");
    assert!((1..=4).contains(&n), "{data}");
    // exceptions and diff accept the same flags and run.
    for mode in ["exceptions", "diff"] {
        let mut args = vec![mode, src.as_str()];
        args.extend(common);
        args.extend(["--time-budget", "5"]);
        let (recs, code) = json_run(&args);
        assert!(matches!(code, Some(0 | 1)), "{mode}: {recs:?}");
        assert!(
            recs.iter().any(|r| r["type"] == "summary"),
            "{mode}: {recs:?}"
        );
    }
}

#[test]
fn error_keeps_its_worst_input_inside_the_ranges() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = write(
        dir.path(),
        "f.c",
        "double f(double a, double b) { return (a - b) / b; }\n",
    );
    let (recs, _) = json_run(&[
        "error",
        &src,
        "-f",
        "f",
        "--range",
        "a=1:2",
        "--range",
        "b=1:1",
        "--time-budget",
        "3",
    ]);
    let data = &recs[0]["data"];
    let value = |name: &str| -> f64 {
        input_of(data, name)["decimal"]
            .as_str()
            .and_then(|d| d.parse().ok())
            .unwrap_or_else(|| panic!("{name} in {data}"))
    };
    let a = value("a");
    assert!((1.0..=2.0).contains(&a), "a = {a}");
    assert_eq!(value("b"), 1.0);
    // (a - 1) / 1 is exact for every a in [1, 2] (Sterbenz): no error to find.
    assert_eq!(data["max_rel_error"], 0.0);
}

/// `-mdaz-ftz` links crtfastmath.o without -ffast-math: the flags' guess of the FP mode
/// is IEEE, the executable runs with FTZ and DAZ. x * 2^-1030 is subnormal for x in
/// [1, 1.5] and flushed to 0 by the executable.
const TINY: &str = "double tiny(double x) { return x * 0x1p-1030; }\n";
const DAZ_FTZ_P_PRIME: [&str; 4] = ["--build", "p'", "--opt-flags", "-O2 -mdaz-ftz"];

#[test]
fn reach_interprets_with_the_fp_mode_the_executable_runs_with() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = write(dir.path(), "tiny.c", TINY);
    let mut args = vec!["reach", src.as_str(), "-f", "tiny"];
    args.extend(DAZ_FTZ_P_PRIME);
    args.extend(["--range", "x=1:1.5", "--output-range", "0:0"]);
    args.extend(["--time-budget", "20"]);
    let (recs, code) = json_run(&args);
    // With the flags' guess (no FTZ) the result is a positive subnormal: unreachable.
    assert_eq!(code, Some(1), "{recs:?}");
    let witness = &recs[0]["data"];
    assert_eq!(recs[0]["type"], "witness");
    assert_eq!(witness["native"], "returns 0.0");
    // The same P' without FTZ/DAZ cannot reach 0.
    args.extend(["--ftz-daz", "off"]);
    let (recs, code) = json_run(&args);
    assert_eq!(code, Some(0), "{recs:?}");
    assert_eq!(
        recs.last().expect("an answer")["data"]["answer"],
        "unreachable"
    );
}

#[test]
fn error_interprets_with_the_fp_mode_the_executable_runs_with() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = write(dir.path(), "tiny.c", TINY);
    let mut args = vec!["error", src.as_str(), "-f", "tiny"];
    args.extend(DAZ_FTZ_P_PRIME);
    args.extend(["--range", "x=1:1.5", "--time-budget", "3"]);
    let (recs, _) = json_run(&args);
    let data = &recs[0]["data"];
    // The interpreter flushes as the executable does, so the executable confirms the
    // flushed 0 (with the flags' guess it would compute the subnormal and disagree).
    assert_eq!(data["computed_bits"], "0x0", "{data}");
    assert_eq!(data["native"]["confirmed"], true, "{data}");
    assert_eq!(data["native"]["bits"], "0x0", "{data}");
}
