//! End-to-end tests of `fpscout reach` on the real binary: SV-COMP programs, FPSE's and CPBPV_FP's examples; every witness is replayed again natively through `fpscout run`.

mod common;

use common::cli::{json_run as fpscout_json, reach};
use serde_json::Value;
use std::path::Path;

fn file(dir: &str, name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests")
        .join(dir)
        .join(name)
        .display()
        .to_string()
}

/// A witness's inputs as `fpscout run --args` reads them (exact hex floats).
fn run_args(witness: &Value) -> String {
    let hex = |v: &Value| v["hex"].as_str().expect("hex").to_string();
    witness["inputs"]
        .as_array()
        .expect("inputs")
        .iter()
        .map(|i| match i.get("values") {
            Some(vals) => format!(
                "[{}]",
                vals.as_array()
                    .expect("values")
                    .iter()
                    .map(hex)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            None => hex(&i["value"]),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The P record of `fpscout run` on the witness: the executable's own verdict.
fn replay(path: &str, function: &str, witness: &Value) -> Value {
    let args = run_args(witness);
    let (records, _) = fpscout_json(&["run", path, "-f", function, "--args", &args]);
    records[0]["data"].clone()
}

fn decimal_of(witness: &Value, k: usize) -> f64 {
    witness["inputs"][k]["value"]["decimal"]
        .as_str()
        .and_then(|d| d.parse().ok())
        .expect("a decimal input")
}

/// Nondet value `k` of an SV-COMP witness, as a double.
fn nondet_double(witness: &Value, k: usize) -> f64 {
    witness["inputs"][0]["values"][k]["decimal"]
        .as_str()
        .and_then(|d| d.parse().ok())
        .expect("a double input")
}

/// A proof: unreachable, exit 0, no witness, and no path left unknown.
fn assert_proved_unreachable(answer: &Value, witness: &Option<Value>, code: Option<i32>) {
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    assert!(witness.is_none(), "{witness:?}");
    assert_eq!(answer["paths"]["unknown"], 0, "{answer}");
}

/// `reach` on an SV-COMP program whose error is reachable: exit 1, and the witness
/// fails the assertion natively. The answer and the witness, for more checks.
fn assert_reached_natively(path: &str) -> (Value, Value) {
    let (answer, witness, code) = reach(&[path]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    let p = replay(path, "main", &witness);
    assert_eq!(
        p["native_end"], "fails assertion `__VERIFIER_error()`",
        "{p}"
    );
    (answer, witness)
}

#[test]
fn absorption_is_unreachable_over_floats() {
    let path = file("svcomp", "absorption.c");
    let (answer, witness, code) = reach(&[&path]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    assert!(witness.is_none());
    // The branch to reach_error is refuted by propagation, never walked.
    assert!(answer["paths"]["pruned"].as_u64() >= Some(1), "{answer}");
    assert_eq!(answer["paths"]["unknown"], 0);
    assert_eq!(answer["paths"]["cut"], 0);
}

#[test]
fn loop_sum_is_unreachable_with_three_inputs() {
    let path = file("svcomp", "loop_sum.c");
    let (answer, _, code) = reach(&[&path, "--array-len", "floats=3"]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    // Without --array-len the harness's stream of one input per call site grows until
    // the walks stop reading past its end.
    let (answer, _, code) = reach(&[&path, "--time-budget", "20"]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    // With one input as the user sized it, the loop reads past the array: that path is
    // unknown, not refuted (and the random testing that then fills the budget finds
    // nothing either). (6 s: compiling counts against the budget, and tests share a
    // loaded machine.)
    let (answer, _, code) = reach(&[&path, "--array-len", "floats=1", "--time-budget", "6"]);
    assert_eq!(answer["answer"], "unknown", "{answer}");
    assert_eq!(code, Some(3));
    let reason = answer["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("floats"), "{reason}");
    assert!(
        reason.contains("random testing found no witness"),
        "{reason}"
    );
}

#[test]
fn overflow_guard_is_reachable_and_its_witness_fails_natively() {
    // glibc's isinf is select(isinf, select(signbit, -1, 1), 0) != 0: the sign drops out.
    let path = file("svcomp", "overflow_guard.c");
    let (answer, witness, code) = reach(&[&path]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    assert_eq!(witness["native"], "fails assertion `__VERIFIER_error()`");
    let p = replay(&path, "main", &witness);
    assert_eq!(
        p["native_end"], "fails assertion `__VERIFIER_error()`",
        "{p}"
    );
}

#[test]
fn overflow_guard_is_unreachable_in_the_fast_math_build() {
    // P' assumes no infinities and folds isinf(c) to 0: no path calls __VERIFIER_error.
    let path = file("svcomp", "overflow_guard.c");
    let (answer, witness, code) = reach(&[&path, "--build", "p'"]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(answer["build"], "P'");
    assert_eq!(code, Some(0));
    assert!(witness.is_none());
}

#[test]
fn fpse_foo_is_unreachable_and_foo_m_reachable_in_its_interval() {
    let path = file("reach", "fpse.c");
    let (answer, _, code) = reach(&[&path, "-f", "foo", "--output-range", "1:1"]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    assert_eq!(answer["paths"]["infeasible"], answer["paths"]["target"]);

    let (answer, witness, code) = reach(&[&path, "-f", "foo_m", "--output-range", "1:1"]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    let x = decimal_of(&witness, 0);
    assert!(x > 0.0 && x <= 32767.998046875, "{x}");
    assert_eq!(replay(&path, "foo_m", &witness)["native_result"], "0x1p+0");
}

#[test]
fn polynomial_goes_below_its_real_minimum() {
    let path = file("reach", "polynomial.c");
    let (answer, witness, code) = reach(&[
        &path,
        "-f",
        "polynomial",
        "--range",
        "a=1e3:1e4",
        "--range",
        "b=0:1",
        "--range",
        "c=1e3:1e4",
        "--outside",
        "1000000000.01:inf",
    ]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    let native = replay(&path, "polynomial", &witness);
    let result = native["native_result"]
        .as_str()
        .and_then(|r| fpscout_report::args::parse_float(r, fpscout_ir::FloatTy::F32).ok())
        .map(|bits| f32::from_bits(bits as u32))
        .unwrap_or_else(|| panic!("{native}"));
    assert_eq!(result, 1e9f32);
    let result = f64::from(result);
    assert!(result < 1000000000.01, "{result}");
}

#[test]
fn random_baseline_finds_the_easy_witness_and_never_claims_unreachable() {
    let path = file("reach", "polynomial.c");
    let common = [
        "-f",
        "polynomial",
        "--range",
        "a=1e3:1e4",
        "--range",
        "b=0:1",
        "--range",
        "c=1e3:1e4",
        "--random-only",
        "--time-budget",
        "3",
    ];
    // Results above 1e11 are common: random testing finds one.
    let mut args = vec![path.as_str()];
    args.extend_from_slice(&common);
    args.extend_from_slice(&["--output-range", "1e11:inf"]);
    let (answer, witness, code) = reach(&args);
    assert_eq!(
        (answer["answer"].as_str(), code),
        (Some("reachable"), Some(1))
    );
    assert_eq!(answer["method"], "random");
    assert!(witness.is_some());
    // Nothing is above 1e9 · 1e12: random testing answers unknown, not unreachable.
    let mut args = vec![path.as_str()];
    args.extend_from_slice(&common);
    args.extend_from_slice(&["--output-range", "1e21:inf"]);
    let (answer, _, code) = reach(&args);
    assert_eq!(
        (answer["answer"].as_str(), code),
        (Some("unknown"), Some(3))
    );
}

#[test]
fn an_input_dependent_loop_is_refuted_within_the_bound_or_completely() {
    let path = file("reach", "halving.c");
    // Bound 4: the paths that loop longer are cut, the answer says so.
    let (answer, _, code) = reach(&[&path, "--loop-bound", "4"]);
    assert_eq!(
        answer["answer"], "unreachable within loop bound",
        "{answer}"
    );
    assert_eq!(code, Some(0));
    assert_eq!(answer["loop_bound"], 4);
    assert!(answer["paths"]["cut"].as_u64() >= Some(1), "{answer}");
    // Bound 24: after 21 halvings propagation proves x <= 1, so no path is cut.
    let (answer, _, code) = reach(&[&path, "--loop-bound", "24"]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    assert_eq!(answer["paths"]["cut"], 0);
    // One path per trip count, 0 to 21 halvings, plus the failed assumption.
    assert!(answer["paths"]["explored"].as_u64() >= Some(21), "{answer}");
}

#[test]
fn heron_is_answered_as_cpbpv_fp_answers_it() {
    // CPBPV_FP finds witnesses below -1e-5 or above 156.25 + 1e-5 and proves none above
    // 156.25 + 1e-3 (bench/reach/heron_high_1e3.c gives the computer-assisted proof).
    // The refutation needs boxes of the triangle path small near the real maximum
    // (b = c = 5, a = 5√2): bisection gets there in a few hundred nodes.
    let path = file("reach", "heron.c");
    let ranges = [
        "-f",
        "heron_squared",
        "--range",
        "a=5:10",
        "--range",
        "b=0:5",
        "--range",
        "c=0:5",
        "--time-budget",
        "30",
    ];
    let run = |target: &str| {
        let mut args = vec![path.as_str()];
        args.extend_from_slice(&ranges);
        args.push(target);
        reach(&args)
    };
    let (answer, witness, code) = run("--outside=-1e-5:156.25001");
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    assert_eq!(replay(&path, "heron_squared", &witness)["agrees"], true);
    let (answer, _, code) = run("--output-range=156.251:inf");
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    assert_eq!(answer["paths"]["unknown"], 0, "{answer}");
    assert!(
        answer["paths"]["infeasible"].as_u64() >= Some(2),
        "{answer}"
    );
}

#[test]
fn a_small_box_the_search_leaves_open_is_refuted_by_enumeration() {
    // [1, 1 + 2^-7] holds 2^16 + 1 floats, one more than a search leaf decides point by
    // point: one search node does not settle it, the interpreter runs every one of them.
    // Every error there is 4.67e-8; the solver's affine bound proves at most 2^-24 =
    // 5.96e-8 (x ⊕ 0.001f rounds once, the rest is exact), so 5e-8 is left open to it.
    let path = file("reach", "cancel.c");
    let (answer, _, code) = reach(&[
        &path,
        "-f",
        "cancel_error",
        "--range",
        "x=1:1.0078125",
        "--output-range",
        "5e-8:inf",
        "--node-budget",
        "1",
    ]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    let enumerated = answer["exhausted_inputs"].as_u64().unwrap_or(0);
    assert!((1..=65537).contains(&enumerated), "{answer}");
    // Over the same box every float has an error above 1e-8 (4.67e-8): a random probe
    // of the search's first node finds one, confirmed natively.
    let (answer, witness, code) = reach(&[
        &path,
        "-f",
        "cancel_error",
        "--range",
        "x=1:1.0078125",
        "--output-range",
        "1e-8:inf",
        "--node-budget",
        "1",
    ]);
    assert_eq!(
        (answer["answer"].as_str(), code),
        (Some("reachable"), Some(1)),
        "{answer}"
    );
    assert_eq!(answer["method"], "float solver", "{answer}");
    assert_eq!(answer["exhausted_inputs"], 0, "{answer}");
    let native = replay(&path, "cancel_error", &witness.expect("a witness"));
    let error = native["native_result"]
        .as_str()
        .and_then(|r| fpscout_report::args::parse_float(r, fpscout_ir::FloatTy::F32).ok())
        .map(|bits| f32::from_bits(bits as u32))
        .unwrap_or_else(|| panic!("{native}"));
    assert!(error >= 1e-8, "{error}");
}

#[test]
fn text_report_states_the_bound_and_bad_input_exits_2() {
    let path = file("reach", "halving.c");
    let out = common::cli::run(&["reach", &path, "--loop-bound", "4"]);
    let text = out.stdout;
    assert_eq!(out.code, 0, "{text}");
    assert!(
        text.contains("unreachable within loop bound 4 (") && text.contains("cut at the bound"),
        "{text}"
    );
    let fpse = file("reach", "fpse.c");
    for bad in [
        vec!["reach", fpse.as_str(), "-f", "foo", "--output-range", "5:1"],
        vec!["reach", fpse.as_str(), "-f", "foo", "--outside", "nan:1"],
        vec!["reach", fpse.as_str(), "-f", "nosuch"],
    ] {
        let out = common::cli::run(&bad);
        let err = out.stderr;
        assert_eq!(out.code, 2, "{bad:?}: {err}");
        assert!(err.contains("error"), "{err}");
    }
}

/// A program of bench/reach (the corpus of scripts/check-reach-corpus.sh).
fn corpus(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../bench/reach")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn witnesses_of_several_inputs_are_found_inside_the_box() {
    // (a + b) + c != a + (b + c) over [1, 2]^3 holds for most triples, none of which the
    // 3-point probe's round numbers are; Heron below -1e-5 needs a flat triangle,
    // a = b + c in float, which a dive meets (b, c drawn, a propagated onto the plane);
    // Kahan's Heron one spacing above 156.25 needs b = c = 5, the box's face, which the
    // corners-first search visits before its interior.
    for name in ["assoc_add_neq.c", "heron_low.c", "heron_kahan_high.c"] {
        let path = corpus(name);
        let (answer, witness, code) = reach(&[&path, "--time-budget", "60"]);
        assert_eq!(answer["answer"], "reachable", "{name}: {answer}");
        assert_eq!(code, Some(1));
        assert_eq!(answer["method"], "float solver", "{name}: {answer}");
        let witness = witness.expect("a witness");
        assert_eq!(
            witness["native"], "fails assertion `0`",
            "{name}: {witness}"
        );
    }
}

#[test]
fn one_input_boxes_of_millions_of_floats_are_refuted_by_the_solver() {
    // 2^23 floats in [1, 2] (five Newton steps of 1/a; (x + 0.001) - x): propagation
    // alone cannot refute them, the search's leaves evaluate every float on the machine.
    for name in ["newton_recip_bound.c", "cancel_err_bound.c"] {
        let path = corpus(name);
        let (answer, witness, code) = reach(&[&path, "--time-budget", "60"]);
        assert_eq!(answer["answer"], "unreachable", "{name}: {answer}");
        assert_eq!(code, Some(0));
        assert!(witness.is_none());
        assert_eq!(answer["paths"]["infeasible"], 1, "{name}: {answer}");
        // The solver's proof, not the interpreter's enumeration.
        assert_eq!(answer["exhausted_inputs"], 0, "{name}: {answer}");
    }
}

#[test]
fn the_programs_own_error_function_is_the_target_whether_it_aborts_or_fails_an_assertion() {
    // Only 0x1.8f9c1ap-6 in [0.01, 0.1] makes x*41 round to 1; inputs outside the range
    // abort too, in assume_abort_if_not, which is not the error.
    for (name, native_end) in [
        ("recip41_abort.c", "aborts"),
        ("recip41_assert_fail.c", "fails assertion `0`"),
    ] {
        let path = file("svcomp", name);
        let (answer, witness, code) = reach(&[&path]);
        assert_eq!(answer["answer"], "reachable", "{name}: {answer}");
        assert_eq!(code, Some(1));
        let witness = witness.expect("a witness");
        assert_eq!(run_args(&witness), "[0x1.8f9c1ap-6]", "{name}");
        assert_eq!(witness["native"], native_end, "{name}");
        assert_eq!(replay(&path, "main", &witness)["native_end"], native_end);
    }
    // No float makes x*55 round to 1: the branch to the error is refuted (pruned, or
    // walked and found infeasible), and assume_abort_if_not's abort is no witness.
    for name in ["recip55_abort.c", "recip55_assert_fail.c"] {
        let path = file("svcomp", name);
        let (answer, witness, code) = reach(&[&path]);
        assert_eq!(answer["answer"], "unreachable", "{name}: {answer}");
        assert_eq!(code, Some(0));
        assert!(witness.is_none());
        let paths = &answer["paths"];
        let refuted =
            paths["pruned"].as_u64().unwrap_or(0) + paths["infeasible"].as_u64().unwrap_or(0);
        assert!(refuted >= 1, "{name}: {answer}");
        assert_eq!(paths["infeasible"], paths["target"], "{name}: {answer}");
    }
}

#[test]
fn z3_qf_fp_baseline_agrees_with_the_float_solver_and_its_witnesses_replay() {
    for (dir, name, expected) in [
        ("../bench/reach", "recip41_model_miss.c", "reachable"),
        ("../bench/reach", "recip55_no_float.c", "unreachable"),
        ("../bench/reach", "fpse_g2_i.c", "reachable"),
        ("../bench/reach", "fpse_foo.c", "unreachable"),
        // Float-to-int-to-float round trips (Z3's integer variables are bit-vectors).
        ("reach", "truncate.c", "unreachable"),
        ("reach", "truncate_hit.c", "reachable"),
    ] {
        let path = file(dir, name);
        let (ours, _, _) = reach(&[&path]);
        let (z3, witness, code) = reach(&[&path, "--solver", "z3fp", "--time-budget", "60"]);
        assert_eq!(ours["answer"], expected, "{name}: {ours}");
        assert_eq!(z3["answer"], expected, "{name}: {z3}");
        assert_eq!(z3["method"], "z3 qf_fp");
        // Z3 decided every branch: none was pruned by the float solver's propagation.
        assert_eq!(z3["paths"]["pruned"], 0, "{name}: {z3}");
        match witness {
            Some(w) => {
                assert_eq!(code, Some(1));
                let native = replay(&path, "main", &w)["native_end"].clone();
                assert!(
                    native
                        .as_str()
                        .is_some_and(|e| e.starts_with("fails assertion")),
                    "{name}: {native}"
                );
            }
            None => {
                assert_eq!(code, Some(0));
                assert!(z3["paths"]["target"].as_u64() >= Some(1), "{name}: {z3}");
                assert_eq!(z3["paths"]["infeasible"], z3["paths"]["target"]);
            }
        }
    }
}

/// The values of a Test-Comp test case, in order, after checking its form.
fn testcase_inputs(xml: &str) -> Vec<String> {
    assert!(
        xml.contains("<!DOCTYPE testcase PUBLIC \"+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN\" \"https://sosy-lab.org/test-format/testcase-1.1.dtd\">"),
        "{xml}"
    );
    let doc = roxmltree::Document::parse_with_options(
        xml,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..roxmltree::ParsingOptions::default()
        },
    )
    .expect("the test case parses");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testcase");
    assert_eq!(root.attribute("coversError"), Some("true"));
    root.children()
        .filter(|n| n.is_element())
        .map(|n| {
            assert_eq!(n.tag_name().name(), "input");
            n.text().unwrap_or_default().to_string()
        })
        .collect()
}

#[test]
fn a_reachable_answer_writes_a_test_comp_test_case_whose_inputs_reach_the_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, inputs) in [
        (file("svcomp", "recip41_abort.c"), 1),
        (file("../bench/reach", "avg_sum_overflow.c"), 2),
    ] {
        let testcase = dir.path().join("testcase.xml");
        let (answer, _, code) = reach(&[&path, "--witness", testcase.to_str().unwrap()]);
        assert_eq!(answer["answer"], "reachable", "{answer}");
        assert_eq!(code, Some(1));
        let values = testcase_inputs(&std::fs::read_to_string(&testcase).expect("written"));
        assert_eq!(values.len(), inputs, "{values:?}");
        // Fed in order to the nondet calls (the harness's array), they reach the error.
        let (records, _) = fpscout_json(&[
            "run",
            &path,
            "-f",
            "main",
            "--args",
            &format!("[{}]", values.join(",")),
        ]);
        let native = records[0]["data"]["native_end"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            native == "aborts" || native.starts_with("fails assertion"),
            "{path}: {native}"
        );
    }
    // Not an SV-COMP program: refused before any work, exit 2.
    let out = common::cli::run(&[
        "reach",
        &file("reach", "fpse.c"),
        "-f",
        "foo",
        "--output-range",
        "1:1",
        "--witness",
        dir.path().join("no.xml").to_str().unwrap(),
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("needs an SV-COMP program"),
        "{}",
        out.stderr
    );
}

#[test]
fn class_tests_are_solved_and_refuted_over_floats() {
    // isnan, isfinite, isnormal (llvm.is.fpclass at -O0) are float-solver constraints:
    // the error behind them is reached with a witness the executable confirms…
    let path = file("svcomp", "fpclass_reachable.c");
    let (answer, witness, code) = reach(&[&path]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    let p = replay(&path, "main", &witness);
    assert_eq!(p["native_end"], "fails assertion `reach_error()`", "{p}");
    let x = nondet_double(&witness, 0);
    assert!(x.abs() > 1.8e19, "{witness}");
    // …and refuted where no float passes them (normals start at 2^-126).
    let path = file("svcomp", "fpclass_unreachable.c");
    let (answer, witness, code) = reach(&[&path]);
    assert_proved_unreachable(&answer, &witness, code);
}

#[test]
fn infinity_guards_keep_reach_exact() {
    // x + INFINITY is NaN only at x = -inf or NaN: the float solver's infinities prove
    // the first error unreachable over every double and reach the second at x near
    // DBL_MAX, which fails natively.
    let path = file("svcomp", "infinity_unreachable.c");
    let (answer, witness, code) = reach(&[&path]);
    assert_eq!(answer["answer"], "unreachable", "{answer}");
    assert_eq!(code, Some(0));
    assert!(witness.is_none());
    let path = file("svcomp", "infinity_reachable.c");
    let (answer, witness, code) = reach(&[&path]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    let p = replay(&path, "main", &witness);
    assert_eq!(
        p["native_end"], "fails assertion `__VERIFIER_error()`",
        "{p}"
    );
}

#[test]
fn libm_constructs_are_decided_exactly_over_floats() {
    // fdlibm's GET_HIGH_WORD/EXTRACT_WORDS through a union and musl's uint64_t view:
    // the float solver turns each test of a word (ix < 0x3e400000, the exponent field
    // below 0x3ff, (ix | lx) == 0) into the floats passing it, so the unreachable
    // errors are proved so over every double and the reachable ones are hit at the
    // boundary float, which fails natively. The exponent read as a number ((double)k)
    // is an integer variable tied to the float by its view; a switch on the exponent
    // field forks one path per case; a comparison widened to long stays a comparison.
    for name in [
        "high_word_unreachable.c",
        "exponent_field_unreachable.c",
        "words_unreachable.c",
        "doubled_high_word_unreachable.c",
        "exponent_number_unreachable.c",
        "switch_exponent_unreachable.c",
        "widened_condition_unreachable.c",
        // A float rebuilt from words is a free variable: the rest is still refuted.
        "rebuilt_float_unreachable.c",
    ] {
        let path = file("svcomp", name);
        let (answer, witness, code) = reach(&[&path]);
        assert_eq!(answer["answer"], "unreachable", "{name}: {answer}");
        assert_eq!(code, Some(0), "{name}");
        assert!(witness.is_none(), "{name}");
    }
    for (name, expected) in [
        ("high_word_reachable.c", 0x3e3f_ffff_ffff_ffffu64),
        ("words_reachable.c", (-1.0f64).to_bits()),
        ("doubled_high_word_reachable.c", (-0.0f64).to_bits()),
        ("exponent_number_reachable.c", 4.01f64.to_bits() - 1),
        ("switch_exponent_reachable.c", (-4.0f64).to_bits()),
        ("widened_condition_reachable.c", 0x3fef_ffff_ffff_ffff),
    ] {
        let path = file("svcomp", name);
        let (answer, witness, code) = reach(&[&path]);
        assert_eq!(answer["answer"], "reachable", "{name}: {answer}");
        assert_eq!(code, Some(1), "{name}");
        let witness = witness.expect("a witness");
        let x = nondet_double(&witness, 0);
        assert_eq!(x.to_bits(), expected, "{name}: {witness}");
        let p = replay(&path, "main", &witness);
        assert_eq!(
            p["native_end"], "fails assertion `__VERIFIER_error()`",
            "{name}: {p}"
        );
    }
}

#[test]
fn two_floats_ordered_by_their_bits_are_decided_by_the_float_solver() {
    // musl's hypot: `if (ux.i < uy.i)` with both signs cleared. Each side is read as a
    // number tied to its float, and the two numbers are ordered.
    let (answer, witness, code) = reach(&[&file("svcomp", "two_floats_bits_unreachable.c")]);
    assert_proved_unreachable(&answer, &witness, code);
    let (answer, witness) = assert_reached_natively(&file("svcomp", "two_floats_bits_reachable.c"));
    assert_eq!(answer["paths"]["unknown"], 0, "{answer}");
    assert_eq!(answer["method"], "float solver", "{answer}");
    let (x, y) = (nondet_double(&witness, 0), nondet_double(&witness, 1));
    let magnitude = |v: f64| v.to_bits() & (u64::MAX >> 1);
    assert!(magnitude(x) < magnitude(y) && x > 1.0 && y < 1.5, "{x} {y}");
    // Its `ex - ey` of the two exponent fields: a sum of the two numbers.
    let (answer, witness, code) = reach(&[&file("svcomp", "exponent_gap_unreachable.c")]);
    assert_proved_unreachable(&answer, &witness, code);
    let (answer, _) = assert_reached_natively(&file("svcomp", "exponent_gap_reachable.c"));
    assert_eq!(answer["method"], "float solver", "{answer}");
}

#[test]
fn a_range_reduction_through_an_integer_keeps_the_table_index_in_bounds() {
    // sin_interpolated's `x - 360*(int)((x+180)/360)`: intervals see the reduced value
    // spanning billions, so `i + 1` could wrap; the affine bound relates it to x
    // ([-180, 180]), the index fits, and the assertion is proved.
    let (answer, witness, code) = reach(&[&file("svcomp", "range_reduced_index_unreachable.c")]);
    assert_proved_unreachable(&answer, &witness, code);
    // One table entry fewer: the reduced value reaches -180 and the index its end.
    assert_reached_natively(&file("svcomp", "range_reduced_index_reachable.c"));
}

#[test]
fn selects_and_joined_conditions_of_optimised_builds_fork_the_walk() {
    // At -O3 `x > 2 ? x - 1 : 3 - x` is a select of floats and `y > 50 && y < 50.5` one
    // `and` of two comparisons: the float solver refused both ("select of floats on a
    // symbolic condition", "And ... of two symbolic conditions"); the walk now forks
    // on them as on branches, and the float solver settles every path.
    // At -O0 newlib's `(hy < 0) ? -pi_o_2 : pi_o_2` is a select of float constants:
    // the path decides it, or the walk forks on it.
    for (name, answer, code, optimised) in [
        ("select_floats_unreachable.c", "unreachable", 0, true),
        ("select_floats_reachable.c", "reachable", 1, true),
        ("select_constants_unreachable.c", "unreachable", 0, false),
        ("select_constants_reachable.c", "reachable", 1, false),
    ] {
        let path = file("svcomp", name);
        let mut args = vec![path.as_str()];
        if optimised {
            args.extend(["--build", "p'", "--opt-flags", "-O3"]);
        }
        let (found, witness, exit) = reach(&args);
        assert_eq!(found["answer"], answer, "{name}: {found}");
        assert_eq!(exit, Some(code), "{name}");
        assert_eq!(found["method"], "float solver", "{name}: {found}");
        assert_eq!(found["paths"]["unknown"], 0, "{name}: {found}");
        if let Some(witness) = witness {
            let args = run_args(&witness);
            let (records, _) = fpscout_json(&[
                "run",
                &path,
                "-f",
                "main",
                "--opt-flags",
                "-O3",
                "--args",
                &args,
            ]);
            let build = if optimised { "P'" } else { "P" };
            let pp = records
                .iter()
                .find(|r| r["data"]["build"] == build)
                .expect("the build");
            assert_eq!(
                pp["data"]["native_end"], "fails assertion `reach_error()`",
                "{name}: {pp}"
            );
        }
    }
}

#[test]
fn an_index_converted_from_a_float_is_compared_as_a_range() {
    // `i = (int)(2 * x); if (i >= 0 && i + 1 < 10)`: the float solver refused the
    // comparison ("Sge comparison of a symbolic integer") and the offset ("Add on
    // symbolic integers"); both are ranges of the converted integer now, exact while
    // `i + 1` cannot wrap on the path. (int) truncates -0.9 to 0: the reachable task's
    // witness is a negative x.
    for (name, answer, code) in [
        ("converted_index_unreachable.c", "unreachable", 0),
        ("converted_index_reachable.c", "reachable", 1),
    ] {
        let path = file("svcomp", name);
        let (found, witness, exit) = reach(&[&path]);
        assert_eq!(found["answer"], answer, "{name}: {found}");
        assert_eq!(exit, Some(code), "{name}");
        assert_eq!(found["method"], "float solver", "{name}: {found}");
        if let Some(witness) = witness {
            let x = nondet_double(&witness, 0);
            assert!(x < 0.0 && x > -0.5, "{name}: {witness}");
            let p = replay(&path, "main", &witness);
            assert_eq!(p["native_end"], "fails assertion `reach_error()`", "{p}");
        }
    }
}

#[test]
fn libm_log_of_a_float_input_is_solved_and_its_witness_fails_natively() {
    // log(x) in (700, 700.001): the float solver, not random testing, finds x.
    let path = file("svcomp", "libm_log_reachable.c");
    let (answer, witness, code) = reach(&[&path, "--time-budget", "60"]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    assert_eq!(answer["method"], "float solver", "{answer}");
    let witness = witness.expect("a witness");
    // The harness's inputs are arrays: some double of them has its log in the window.
    let in_window = run_args(&witness)
        .split([',', '[', ']'])
        .filter_map(|h| fpscout_report::args::parse_float(h, fpscout_ir::FloatTy::F64).ok())
        .map(f64::from_bits)
        .any(|x| x.ln() > 699.999 && x.ln() < 700.002);
    assert!(in_window, "{witness}");
    assert_eq!(witness["native"], "fails assertion `__VERIFIER_error()`");
    let p = replay(&path, "main", &witness);
    assert_eq!(
        p["native_end"], "fails assertion `__VERIFIER_error()`",
        "{p}"
    );
}

#[test]
fn libm_results_out_of_reach_are_unreachable_and_unmodelled_libm_stays_unknown() {
    // log(x) > 710 for finite x and exp(x) < 0: refuted through glibc's enclosures.
    let path = file("svcomp", "libm_log_unreachable.c");
    let (answer, witness, code) = reach(&[&path, "--time-budget", "60"]);
    assert_proved_unreachable(&answer, &witness, code);
    // Bessel functions have no constraint: their paths are unknown, and so is the answer.
    let path = file("svcomp", "libm_bessel_unknown.c");
    let (answer, witness, code) = reach(&[&path, "--time-budget", "6"]);
    assert_eq!(answer["answer"], "unknown", "{answer}");
    assert_eq!(code, Some(3));
    assert!(witness.is_none());
}

#[test]
fn integer_results_of_library_calls_are_fresh_variables_of_the_float_solver() {
    // ilogb's int result was "call to external function 'ilogb'" for every path past it.
    // Now any int: a proof that holds whatever ilogb returns stands, and a solution counts
    // only once the executable (real ilogb) fails the assertion.
    let path = file("svcomp", "ilogb_result_unreachable.c");
    let (answer, witness, code) = reach(&[&path, "--time-budget", "30"]);
    assert_proved_unreachable(&answer, &witness, code);
    let path = file("svcomp", "ilogb_result_reachable.c");
    let (answer, witness, code) = reach(&[&path, "--time-budget", "30"]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    assert_eq!(answer["method"], "float solver", "{answer}");
    let witness = witness.expect("a witness");
    let p = replay(&path, "main", &witness);
    assert_eq!(p["native_end"], "fails assertion `0`", "{p}");
    // fesetround changes what later operations compute: never a fresh variable.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("round.c");
    std::fs::write(
        &src,
        "#include <fenv.h>\nextern double __VERIFIER_nondet_double(void);\n\
         extern void __VERIFIER_error(void);\n\
         int main(void) { double x = __VERIFIER_nondet_double();\n\
         if (!(x >= 1.0 && x <= 2.0)) return 0;\n\
         fesetround(FE_UPWARD);\n\
         if (x + 0x1p-60 > x) __VERIFIER_error();\n return 0; }\n",
    )
    .unwrap();
    let (answer, _, _) = reach(&[src.to_str().unwrap(), "--time-budget", "5"]);
    assert_ne!(answer["answer"], "unreachable", "{answer}");
}

#[test]
fn floats_converted_from_integers_the_solver_does_not_follow_are_new_variables() {
    // `(double)(k + 1)` and `(double)(i + j)` were "SIToFP i32 → double of a symbolic
    // value" (newlib's log10 and tan, musl's pow): now a float over int's range.
    let path = file("svcomp", "converted_int_unreachable.c");
    let (answer, witness, code) = reach(&[&path, "--time-budget", "30"]);
    assert_proved_unreachable(&answer, &witness, code);
}

#[test]
fn a_rounding_direction_set_by_fesetround_is_followed_where_the_path_pins_the_operands() {
    // float-rounding1: assumptions pin both inputs, so each sum is computed exactly as
    // the processor rounds it in the direction in force.
    let (answer, witness, code) = reach(&[&file("svcomp", "rounding_direction_unreachable.c")]);
    assert_proved_unreachable(&answer, &witness, code);
    let (_, witness) = assert_reached_natively(&file("svcomp", "rounding_direction_reachable.c"));
    let values = &witness["inputs"][0]["values"];
    assert_eq!(values[0]["hex"], "0x1p+0", "{witness}");
    assert_eq!(values[1]["hex"], "0x1.8p-24", "{witness}");
    // An operand the path does not pin: the network rounds to nearest, so the path is
    // left open with the reason, never refuted.
    let path = file("svcomp", "rounding_direction_unpinned.c");
    let (answer, witness, code) = reach(&[&path, "--time-budget", "3"]);
    assert_eq!(answer["answer"], "unknown", "{answer}");
    assert_eq!(code, Some(3));
    assert!(witness.is_none());
    let reason = answer["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("rounding upward (fesetround)"), "{answer}");
}

#[test]
fn nan_of_a_nondet_string_is_decided_without_its_bytes() {
    // SV-COMP's esbmc nan task: the string's bytes are defined by no run, and nan() of
    // any string is a NaN; the interpreter's one run cannot read them, the float
    // solver's walk does not need to.
    let (answer, witness, code) = reach(&[&file("svcomp", "nondet_string_nan_unreachable.c")]);
    assert_proved_unreachable(&answer, &witness, code);
    assert_eq!(answer["method"], "float solver", "{answer}");
    // Reached on the executable's one run (the interpreter cannot read the bytes for
    // the payload, so `run` cannot replay it there).
    let (answer, witness, code) = reach(&[&file("svcomp", "nondet_string_nan_reachable.c")]);
    assert_eq!(answer["answer"], "reachable", "{answer}");
    assert_eq!(code, Some(1));
    let witness = witness.expect("a witness");
    assert_eq!(
        witness["native"], "fails assertion `__VERIFIER_error()`",
        "{witness}"
    );
    // Reading the bytes themselves decides nothing: unknown, with the reason.
    let path = file("svcomp", "nondet_string_bytes.c");
    let (answer, witness, code) = reach(&[&path, "--time-budget", "3"]);
    assert_eq!(answer["answer"], "unknown", "{answer}");
    assert_eq!(code, Some(3));
    assert!(witness.is_none());
    let reason = answer["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("read of uninitialized memory"), "{answer}");
}

#[test]
fn an_integer_of_few_values_converted_from_a_float_is_walked_one_value_at_a_time() {
    // GSL's octant reduction: `octant & 1` of an integer converted from a float has no
    // float constraint; the octant's eight values are eight paths, each settled.
    let (answer, witness, code) = reach(&[&file("svcomp", "octant_parity_unreachable.c")]);
    assert_proved_unreachable(&answer, &witness, code);
    assert_eq!(answer["method"], "float solver", "{answer}");
    let (answer, witness) = assert_reached_natively(&file("svcomp", "octant_parity_reachable.c"));
    let x = nondet_double(&witness, 0);
    // Only the third octant, below π, leads there.
    assert!(
        (3.0 * std::f64::consts::FRAC_PI_4..std::f64::consts::PI).contains(&x),
        "{answer} {witness}"
    );
}

#[test]
fn erf_erfc_gamma_and_remainder_are_float_solver_constraints() {
    // Each assertion is refuted by the image of its libm call over the path's box.
    let (answer, witness, code) = reach(&[&file("svcomp", "libm_erf_gamma_unreachable.c")]);
    assert_proved_unreachable(&answer, &witness, code);
    assert_eq!(answer["method"], "float solver", "{answer}");
    // Γ(x) > 1.99 on [1, 3] only above x ≈ 2.9946 (where erfc(x) < 0.0001 too).
    let (answer, witness) = assert_reached_natively(&file("svcomp", "libm_erf_gamma_reachable.c"));
    let x = nondet_double(&witness, 0);
    assert!((2.994..=3.0).contains(&x), "{answer} {witness}");
}

#[test]
fn the_parts_modf_and_frexp_write_are_float_solver_constraints() {
    // The fraction's and significand's images lie strictly inside ±1, the integral part
    // is trunc(x) (exact): every assertion is refuted.
    let (answer, witness, code) = reach(&[&file("svcomp", "libm_parts_unreachable.c")]);
    assert_proved_unreachable(&answer, &witness, code);
    assert_eq!(answer["method"], "float solver", "{answer}");
    // trunc(x) = 3 and a fraction above 0.99: x in (3.99, 4).
    let (answer, witness) = assert_reached_natively(&file("svcomp", "libm_parts_reachable.c"));
    let x = nondet_double(&witness, 0);
    assert!(x > 3.99 && x < 4.0, "{answer} {witness}");
}

#[test]
fn ilogb_and_the_exponent_frexp_writes_are_exact_for_normal_arguments() {
    // Both are x's exponent field once the path keeps x normal and of one sign.
    let (answer, witness, code) = reach(&[&file("svcomp", "libm_exponents_unreachable.c")]);
    assert_proved_unreachable(&answer, &witness, code);
    assert_eq!(answer["method"], "float solver", "{answer}");
    let (answer, witness) = assert_reached_natively(&file("svcomp", "libm_exponents_reachable.c"));
    let x = nondet_double(&witness, 0);
    assert!(
        (2f64.powi(700)..2f64.powi(701)).contains(&x),
        "{answer} {witness}"
    );
}

#[test]
fn pow_atan2_hypot_and_fmod_are_float_solver_constraints() {
    // Each assertion is refuted by the image of its libm call over the path's box.
    let (answer, witness, code) = reach(&[&file("svcomp", "libm_two_arguments_unreachable.c")]);
    assert_proved_unreachable(&answer, &witness, code);
    assert_eq!(answer["method"], "float solver", "{answer}");
    // Only bases within 0.003 of 9 take pow past 242.9 (9^2.5 = 243).
    let (answer, witness) =
        assert_reached_natively(&file("svcomp", "libm_two_arguments_reachable.c"));
    let x = nondet_double(&witness, 0);
    assert!((8.997..=9.0).contains(&x), "{answer} {witness}");
}
