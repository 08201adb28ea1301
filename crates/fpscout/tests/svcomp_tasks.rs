//! `fpscout reach` on SV-COMP tasks as ReachSafety-Floats ships them: preprocessed `.i` files, integer nondets (also in loops), and deterministic programs decided by one run; every witness replayed natively through `fpscout run`.

mod common;

use common::cli::{json_run as fpscout_json, reach};
use serde_json::Value;
use std::path::Path;

fn task(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/svcomp")
        .join(name)
        .display()
        .to_string()
}

/// The elements of the witness's input array `name`, as `fpscout run --args` reads them
/// (hex floats, decimal integers), and as numbers.
fn witness_array(witness: &Value, name: &str) -> (String, Vec<Value>) {
    let input = witness["inputs"]
        .as_array()
        .expect("inputs")
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no input {name}: {witness}"));
    let values = input["values"].as_array().expect("an array").clone();
    let text = values
        .iter()
        .map(|v| match v.get("hex") {
            Some(hex) => hex.as_str().expect("hex").to_string(),
            None => v["int"].to_string(),
        })
        .collect::<Vec<_>>()
        .join(",");
    (format!("[{text}]"), values)
}

/// The P record of `fpscout run` on `args`: what the executable itself did.
fn replay(path: &str, args: &str) -> Value {
    let (records, _) = fpscout_json(&["run", path, "-f", "main", "--args", args]);
    records[0]["data"].clone()
}

fn integers(values: &[Value]) -> Vec<i64> {
    values
        .iter()
        .map(|v| v["int"].as_i64().expect("an integer"))
        .collect()
}

#[test]
fn preprocessed_tasks_are_compiled_and_decided() {
    let path = task("cubic_bound_reach.i");
    let (answer, witness, code) = reach(&[&path, "--time-budget", "20"]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    let (args, values) = witness_array(&witness, "floats");
    let x = values[0]["decimal"]
        .as_str()
        .and_then(|d| d.parse::<f32>().ok())
        .expect("a float input");
    // The program's arithmetic in binary32: the witness reaches the error.
    assert!(x > -1.0 && x < 1.0, "{x}");
    assert!(x - x * x * x / 6.0 >= 0.8, "{x}");
    let p = replay(&path, &args);
    assert_eq!(p["native_end"], "fails assertion `0`", "{p}");

    let (answer, witness, code) = reach(&[&task("cubic_bound_safe.i"), "--time-budget", "20"]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    assert!(witness.is_none());
}

#[test]
fn an_integer_nondet_reaches_the_error_for_some_values_only() {
    let path = task("scaled_count_int.c");
    let dir = tempfile::tempdir().expect("temp dir");
    let xml = dir.path().join("testcase.xml");
    let xml_arg = xml.display().to_string();
    let (answer, witness, code) = reach(&[&path, "--time-budget", "20", "--witness", &xml_arg]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    let (args, values) = witness_array(&witness, "integers");
    let n = integers(&values)[0] as i32;
    assert!((0..=100).contains(&n), "{n}");
    assert_eq!(n as f32 * 0.1f32, 3.0f32, "n = {n}");
    let p = replay(&path, &args);
    assert_eq!(p["native_end"], "fails assertion `0`", "{p}");
    // The Test-Comp test case gives the nondet values in call order.
    let text = std::fs::read_to_string(&xml).expect("a test case");
    assert!(
        text.contains(&format!(
            "<testcase coversError=\"true\">\n  <input>{n}</input>\n"
        )),
        "{text}"
    );
}

#[test]
fn integer_nondets_of_several_types_are_read_in_a_loop() {
    let path = task("steps_loop_small_ints.c");
    let (answer, witness, code) = reach(&[&path, "--time-budget", "20"]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    let (args, values) = witness_array(&witness, "integers");
    // The program's own reading of the values: uchar, short, then one bool per step.
    let v = integers(&values);
    let steps = v[0] as u8;
    let bias = v[1] as i16;
    assert!(steps <= 20 && (0..=2).contains(&bias), "{steps} {bias}");
    let mut x = 0.0f32;
    for &up in &v[2..2 + usize::from(steps)] {
        x += if up != 0 { 0.5 } else { -0.25 };
    }
    assert!(x + f32::from(bias) > 3.0, "x = {x}, bias = {bias}");
    let p = replay(&path, &args);
    assert_eq!(p["native_end"], "fails assertion `0`", "{p}");
}

#[test]
fn an_unreachable_integer_task_is_unknown_not_wrong() {
    // The float search fixes integers at 0, and random testing proves nothing.
    let (answer, witness, code) = reach(&[&task("square_int_safe.c"), "--time-budget", "3"]);
    assert_eq!(answer["answer"], "unknown", "{answer}");
    assert_eq!(code, Some(3));
    assert!(witness.is_none());
    let reason = answer["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("every integer nondet 0"), "{reason}");
    assert!(
        reason.contains("random testing found no witness"),
        "{reason}"
    );
}

#[test]
fn deterministic_tasks_are_decided_by_their_one_run() {
    let path = task("tenth_sum_det.c");
    let (answer, witness, code) = reach(&[&path]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(answer["method"], "one run");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    assert_eq!(witness["inputs"], serde_json::json!([]));
    assert_eq!(witness["native"], "fails assertion `0`");
    let p = replay(&path, "");
    assert_eq!(p["native_end"], "fails assertion `0`", "{p}");

    let (answer, witness, code) = reach(&[&task("quarter_sum_det.c")]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(answer["method"], "one run");
    assert_eq!(code, Some(0));
    assert!(witness.is_none());

    // An uninitialized variable is a nondet value in SV-COMP: one run decides nothing.
    let (answer, witness, code) = reach(&[&task("uninitialized_det.c")]);
    assert_eq!(answer["answer"], "unknown", "{answer}");
    assert_eq!(code, Some(3));
    assert!(witness.is_none());
    let reason = answer["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("uninitialized value"), "{reason}");
}

#[test]
fn a_deterministic_task_the_interpreter_cannot_run_is_decided_reachable_by_its_executable() {
    let path = task("tenth_sum_long_double_det.c");
    let (answer, witness, code) = reach(&[&path]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(answer["method"], "one run of the executable");
    assert_eq!(code, Some(1));
    // The witness is the executable's own run (`fpscout run` needs the interpreter,
    // which refuses long double, so it cannot replay it).
    let witness = witness.expect("a witness");
    assert_eq!(witness["native"], "fails assertion `0`");
    assert_eq!(witness["inputs"], serde_json::json!([]));

    // Its twin whose assertion holds: the executable returns, which proves nothing.
    let (answer, witness, code) = reach(&[&task("quarter_sum_long_double_det.c")]);
    assert_eq!(answer["answer"], "unknown", "{answer}");
    assert_eq!(code, Some(3));
    assert!(witness.is_none());
    let reason = answer["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("long double"), "{reason}");
}

#[test]
fn modes_whose_proofs_would_hold_for_zeros_only_refuse_integer_nondets() {
    for mode in ["diff", "exceptions"] {
        let out = common::cli::run(&[mode, &task("scaled_count_int.c"), "--time-budget", "2"]);
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(
            out.stderr.contains(&format!(
                "{mode} does not search integer nondets (__VERIFIER_nondet_int()…)"
            )),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn a_tasks_own_nondet_returning_an_uninitialized_value_is_no_proof() {
    // The walks take the uninitialized value as 0, where the error is out of reach; a NaN
    // reaches it natively. Unreachable would be wrong.
    let (answer, witness, code) =
        reach(&[&task("own_nondet_uninitialized.c"), "--time-budget", "5"]);
    assert_ne!(answer["answer"], "unreachable", "{answer}");
    if answer["answer"] == "unknown" {
        assert_eq!(code, Some(3));
        assert!(witness.is_none());
        let reason = answer["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("uninitialized value"), "{reason}");
    }
}

#[test]
fn an_empty_self_loop_meets_the_time_budget() {
    // The task's own __VERIFIER_assume spins on `LOOP: goto LOOP;` for x <= 1: a walk
    // that never counted the empty block ran past any budget.
    let started = std::time::Instant::now();
    let (answer, _, _) = reach(&[&task("empty_self_loop.c"), "--time-budget", "4"]);
    let took = started.elapsed().as_secs_f64();
    assert!(took < 20.0, "{took} s: {answer}");
    assert_ne!(answer["answer"], "reachable", "{answer}");
}

#[test]
fn a_loop_reading_a_guarded_input_per_iteration_is_proved_with_a_grown_stream() {
    // Forty guards fork forty times, past the loop bound of 8, unless the abort side
    // of each is left unwalked; forty inputs are read from a stream of one.
    let (answer, witness, code) =
        reach(&[&task("guarded_stream_unreachable.c"), "--time-budget", "20"]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    assert!(witness.is_none());
    let paths = &answer["paths"];
    assert_eq!(paths["cut"], 0, "{answer}");
    assert_eq!(paths["unknown"], 0, "{answer}");
}

#[test]
fn a_guard_failing_through_a_flag_is_followed_to_its_return_and_not_forked() {
    // The flag's test block is reached by passing inputs too: only following the
    // failing direction through it (the flag is 0 there) shows that it returns.
    let (answer, _, code) = reach(&[
        &task("flag_guard_stream_unreachable.c"),
        "--time-budget",
        "20",
    ]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    assert_eq!(answer["paths"]["cut"], 0, "{answer}");
    assert_eq!(answer["paths"]["explored"], 1, "{answer}");
}

#[test]
fn an_error_function_that_aborts_is_walked_though_the_guards_abort_too() {
    let path = task("guarded_stream_reachable.c");
    let (answer, witness, code) = reach(&[&path, "--time-budget", "20"]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    let (args, values) = witness_array(&witness, "floats");
    assert!(values.len() >= 40, "{witness}");
    let last = values[39]["decimal"]
        .as_str()
        .and_then(|d| d.parse::<f32>().ok())
        .expect("the 40th input");
    assert!(last > 0.99 && last <= 1.0, "{last}");
    // The executable aborts in reach_error on it.
    let p = replay(&path, &args);
    assert_eq!(p["native_end"], "aborts", "{p}");
}

#[test]
fn a_path_the_walk_cannot_follow_after_the_last_assertion_is_settled_not_unknown() {
    let (answer, _, code) = reach(&[
        &task("index_after_assertion_unreachable.c"),
        "--time-budget",
        "20",
    ]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    assert_eq!(answer["paths"]["unknown"], 0, "{answer}");
    // An assertion after a lookup whose index has four possible values: four paths.
    let (answer, _, code) = reach(&[
        &task("index_before_assertion_few_values.c"),
        "--time-budget",
        "20",
    ]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    assert_eq!(answer["paths"]["unknown"], 0, "{answer}");
    // With 32 possible values the lookup is not followed: the path stays unknown.
    let (answer, witness, code) = reach(&[
        &task("index_before_assertion_unknown.c"),
        "--time-budget",
        "5",
    ]);
    assert_eq!(answer["answer"], "unknown", "{answer}");
    assert_eq!(code, Some(3));
    assert!(witness.is_none());
    let reason = answer["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("depends on a float input"), "{reason}");
}
