//! `fpscout error` (FPGen): the shadow measure on FPGen's hand-made summation input, and end-to-end runs of the binary whose worst inputs are replayed natively through `fpscout run`.

mod common;

use common::cli::{json_run, repo, run};
use fpscout_search::error::error_of;
use fpscout_search::session::Session;
use fpscout_toolchain::{BuildFlags, BuildKind};
use fpscout_walk::concrete::{ArgBits, FpMode};
use fpscout_walk::shadow::{ShadowEnd, ShadowRunner, DEFAULT_PRECISION};
use fpscout_walk::WalkConfig;
use serde_json::Value;

fn fixture(name: &str) -> String {
    repo(&format!("tests/error/{name}")).display().to_string()
}

/// The `{"type":"error"}` record of `fpscout error ARGS --json`.
fn error_record(args: &[&str]) -> Value {
    let mut all = vec!["error"];
    all.extend_from_slice(args);
    let (records, code) = json_run(&all);
    assert_eq!(code, Some(0));
    records
        .iter()
        .find(|r| r["type"] == "error")
        .unwrap_or_else(|| panic!("no error record: {records:?}"))["data"]
        .clone()
}

/// A number of the report (infinities are written as strings).
fn number(v: &Value) -> f64 {
    match v {
        Value::String(s) => s.parse().unwrap_or_else(|_| panic!("not a number: {v}")),
        _ => v.as_f64().unwrap_or_else(|| panic!("not a number: {v}")),
    }
}

/// The P record of `fpscout run` on the reported worst input.
fn replay(path: &str, function: &str, report: &Value) -> Value {
    let args = report["run_args"].as_str().expect("run_args");
    let (records, _) = json_run(&["run", path, "-f", function, "--args", args]);
    records[0]["data"].clone()
}

#[test]
fn fpgen_summation_input_large_tiny_cancelling_has_relative_error_one() {
    let path = repo("tests/error/sum.c");
    let session = Session::open(&path, BuildFlags::default()).expect("session");
    let module = session.module(BuildKind::P).unwrap();
    let func = session.function(BuildKind::P, "sum").unwrap();
    let mut runner = ShadowRunner::new(
        module,
        func,
        FpMode::IEEE,
        DEFAULT_PRECISION,
        WalkConfig::default(),
    )
    .unwrap();
    // A large value, a tiny one it absorbs, then the large value cancelled.
    let input = [100.0f64, 1e-20, -100.0];
    let args = vec![
        ArgBits::Array(input.iter().map(|x| x.to_bits()).collect()),
        ArgBits::Scalar(3),
    ];
    let e = runner.eval(&args).unwrap();
    let ShadowEnd::Returned(Some(result)) = &e.end else {
        panic!("sum did not return: {:?}", e.end)
    };
    assert_eq!(f64::from_bits(result.bits), 0.0);
    let high = result.high.as_ref().unwrap();
    assert_eq!(high.to_f64(), 1e-20);
    let (rel, ulps, bits) = error_of(fpscout_ir::FloatTy::F64, result.bits, high).unwrap();
    assert_eq!(rel, 1.0);
    assert!(ulps > 1e15 && bits > 50.0, "{ulps} ulps, {bits} bits");
    // The last addition cancels completely; the first lost the tiny addend.
    let last = e.add_sub.last().unwrap();
    assert!(last.cancellation() > 40);
    assert!(e.add_sub.iter().any(|r| r.precision_loss() > 32));
}

#[test]
fn recursive_summation_reaches_relative_error_one_and_replays_natively() {
    let path = fixture("sum.c");
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("error.sarif");
    let sarif_arg = sarif.display().to_string();
    let jsonl = dir.path().join("error.jsonl");
    let jsonl_arg = jsonl.display().to_string();
    let html = dir.path().join("html");
    let html_arg = html.display().to_string();
    let report = error_record(&[
        &path,
        "-f",
        "sum",
        "--array-len",
        "x=8",
        "--int",
        "n=8",
        "--range",
        "x=-100:100",
        "--time-budget",
        "10",
        "--sarif",
        &sarif_arg,
        "--jsonl",
        &jsonl_arg,
        "--html",
        &html_arg,
    ]);
    let rel = number(&report["max_rel_error"]);
    assert!(rel >= 1.0, "{report}");
    assert!(report["evaluations"].as_u64().unwrap() > 100);
    assert_eq!(report["output"], "the returned value");
    assert_eq!(report["native"]["confirmed"], true, "{report}");
    // Every input inside the range.
    for v in report["inputs"][0]["values"].as_array().unwrap() {
        let x: f64 = v["decimal"].as_str().unwrap().parse().unwrap();
        assert!((-100.0..=100.0).contains(&x), "{x}");
    }
    let run = replay(&path, "sum", &report);
    assert_eq!(run["native_result"], report["computed"], "{run}");
    assert_eq!(run["result"], report["computed"]);
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["ruleId"], "max-error");
    // The finding carries the error along each input through the worst input, and the
    // sweep of each input passes through the worst input with the worst error.
    let finding = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["type"] == "finding")
        .expect("a finding record");
    let sweeps = finding["data"]["finding"]["properties"]["sweeps"]
        .as_array()
        .unwrap_or_else(|| panic!("{finding}"))
        .clone();
    assert_eq!(sweeps.len(), 8, "{sweeps:?}");
    let worst: Vec<f64> = report["inputs"][0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["decimal"].as_str().unwrap().parse().unwrap())
        .collect();
    for (sweep, at) in sweeps.iter().zip(&worst) {
        let points = sweep["points"].as_array().unwrap();
        assert!(points.len() > 10, "{sweep}");
        let through = points
            .iter()
            .find(|p| p[0].as_f64() == Some(*at))
            .unwrap_or_else(|| panic!("{at} not in {sweep}"));
        assert_eq!(number(&through[1]), rel, "{sweep}");
    }
    // The HTML report plots them.
    let pages: String = std::fs::read_dir(&html)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(pages.contains("relative error along"), "no error plot");
}

#[test]
fn the_random_baseline_stays_far_below_the_search_on_summation() {
    let path = fixture("sum.c");
    let common = [
        path.as_str(),
        "-f",
        "sum",
        "--array-len",
        "x=8",
        "--int",
        "n=8",
        "--range",
        "x=-100:100",
        // Compiling is inside the budget, and a shared machine may be loaded.
        "--time-budget",
        "20",
    ];
    let mut random_args = common.to_vec();
    random_args.push("--random-only");
    let random = error_record(&random_args);
    assert_eq!(random["method"], "random");
    assert_eq!(random["found_by"], "random");
    let searched = error_record(&common);
    assert_eq!(searched["method"], "search");
    assert!(
        number(&searched["max_rel_error"]) > number(&random["max_rel_error"]),
        "search {searched} vs random {random}"
    );
}

#[test]
fn the_diagnosis_names_the_cancelling_line() {
    let path = fixture("sum.c");
    let report = error_record(&[
        &path,
        "-f",
        "cancel",
        "--range",
        "a=-100:100",
        "--range",
        "b=-100:100",
        "--time-budget",
        "10",
    ]);
    let rel = number(&report["max_rel_error"]);
    assert!(rel > 1e-6, "{report}");
    let first = &report["diagnosis"][0];
    // `double d = s - big;` is line 12: computing it exactly removes the error, while
    // computing the addition on line 11 exactly changes nothing (it rounds the same).
    assert!(
        first["location"].as_str().unwrap().contains("sum.c:12:"),
        "{report}"
    );
    assert_eq!(first["opcode"], "fsub");
    assert!(number(&first["error_left"]) < rel);
    assert!(first["cancellation_bits"].as_i64().unwrap() > 40);
}

#[test]
fn array_results_are_measured_per_element_and_confirmed_natively() {
    let path = fixture("sum.c");
    let report = error_record(&[
        &path,
        "-f",
        "axpy",
        "--array-len",
        "y=4",
        "--array-len",
        "x=4",
        "--range",
        "y=-100:100",
        "--range",
        "x=-100:100",
        "--range",
        "a=-100:100",
        "--time-budget",
        "10",
    ]);
    let output = report["output"].as_str().unwrap();
    assert!(output.starts_with("y["), "{report}");
    assert!(number(&report["max_rel_error"]) > 1e-6, "{report}");
    assert_eq!(report["native"]["confirmed"], true, "{report}");
    let index: usize = output[2..output.len() - 1].parse().unwrap();
    let run = replay(&path, "axpy", &report);
    assert_eq!(run["arrays"][0][index], report["computed"], "{run}");
}

#[test]
fn a_harness_written_with_the_header_checks_a_struct_routine() {
    let path = fixture("dot_harness.c");
    let out = run(&["error", &path, "--time-budget", "10", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("fpscout.h harness"), "{}", out.stderr);
    let records = common::cli::records(&out.stdout);
    let report = &records[0]["data"];
    assert_eq!(report["function"], "fpscout_harness");
    assert_eq!(report["output"], "results[0]");
    assert_eq!(report["native"]["confirmed"], true, "{report}");
    // The dot product of 4 + 4 inputs in [-100, 100] (the header call's literal bounds
    // became the range) made to cancel: no correct digit left.
    assert!(number(&report["max_rel_error"]) >= 1.0, "{report}");
    let inputs = &report["inputs"];
    assert_eq!(inputs[0]["name"], "doubles");
    for v in inputs[0]["values"].as_array().unwrap() {
        let x: f64 = v["decimal"].as_str().unwrap().parse().unwrap();
        assert!((-100.0..=100.0).contains(&x), "{x}");
    }
    // The results array is written by the harness: its initial contents are not searched.
    assert_eq!(inputs[1]["values"][0]["decimal"], "0.0");
    // The accumulation `s += a->ve[i] * b->ve[i]` (line 12) is where the bits cancel.
    let diagnosis = report["diagnosis"].as_array().unwrap();
    assert!(
        diagnosis.iter().any(|d| d["location"]
            .as_str()
            .is_some_and(|l| l.contains("dot_harness.c:12:"))),
        "{report}"
    );
}

#[test]
fn bad_options_are_input_errors() {
    let path = fixture("sum.c");
    let out = run(&["error", &path, "-f", "cancel", "--precision", "1"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--precision"), "{}", out.stderr);
    let out = run(&["error", &path, "-f", "no_such_function"]);
    assert_eq!(out.code, 2);
}

#[test]
fn a_reference_shows_the_error_of_an_algorithm_that_agrees_with_itself() {
    let path = fixture("reference.c");
    let common = [
        "-f",
        "taylor_sin",
        "--range",
        "x=-1:1",
        "--time-budget",
        "3",
    ];
    // The shadow run is the same algorithm: half an ulp at most.
    let mut args = vec![path.as_str()];
    args.extend_from_slice(&common);
    let shadow = error_record(&args);
    assert!(number(&shadow["max_rel_error"]) < 1e-15, "{shadow}");
    assert_eq!(shadow["compared_with"], "the same algorithm at 256 bits");
    assert!(shadow["reference"].is_null());
    // Against sin(x): 0.97 % near |x| = 1, every bug-level input above the threshold
    // and its exact value sin(x) correctly rounded.
    args.extend_from_slice(&["--reference", "(sin x)"]);
    let measured = error_record(&args);
    assert_eq!(measured["reference"], "(sin x)");
    assert!(
        measured["compared_with"]
            .as_str()
            .is_some_and(|c| c.starts_with("the mathematical function (sin x)")),
        "{measured}"
    );
    let worst = number(&measured["max_rel_error"]);
    assert!(worst > 9.6e-3 && worst < 9.7e-3, "{measured}");
    let bugs = measured["bug_inputs"].as_array().expect("bug inputs");
    assert!(bugs.len() >= 4, "{measured}");
    for b in bugs {
        assert!(number(&b["max_rel_error"]) > 1e-3, "{b}");
        let x = b["inputs"][0]["value"]["hex"].as_str().expect("input");
        let x: f64 = fpscout_report::args::parse_float(x, fpscout_ir::FloatTy::F64)
            .map(f64::from_bits)
            .expect("a float");
        let exact = number(&b["exact"]);
        assert!(
            (exact - x.sin()).abs() <= 2.0 * f64::EPSILON * exact.abs(),
            "{b}"
        );
        // Each one replays: the executable computes what the report says.
        let p = replay(&path, "taylor_sin", b);
        assert_eq!(p["result"], b["computed"], "{b}");
    }
    assert!(number(&measured["bug_level_evaluations"]) >= bugs.len() as f64);
    assert_eq!(measured["native"]["confirmed"], true, "{measured}");
}

#[test]
fn the_search_seeks_the_zeros_where_an_algorithm_loses_every_digit() {
    // 1 - 2 sin^2(x/2) cancels at the zeros of cos; only at the small ones is the
    // error of the order of the result. Inputs drawn over all exponents come within an
    // ulp of pi/2 with probability 2^-60: only seeking sign changes finds them.
    let path = fixture("reference.c");
    let measured = error_record(&[
        path.as_str(),
        "-f",
        "half_angle_cos",
        "--reference",
        "(cos x)",
        "--time-budget",
        "5",
    ]);
    assert!(number(&measured["max_rel_error"]) > 0.1, "{measured}");
    let bugs = measured["bug_inputs"].as_array().expect("bug inputs");
    assert!(!bugs.is_empty(), "{measured}");
    for b in bugs {
        let x = b["inputs"][0]["value"]["hex"].as_str().expect("input");
        let x = fpscout_report::args::parse_float(x, fpscout_ir::FloatTy::F64)
            .map(f64::from_bits)
            .expect("a float");
        // Next to an odd multiple of pi/2, within a few ulps.
        let k = (x / std::f64::consts::FRAC_PI_2).round();
        assert!(k as i64 % 2 != 0, "{b}");
        let zero = k * std::f64::consts::FRAC_PI_2;
        assert!((x - zero).abs() <= 8.0 * f64::EPSILON * zero.abs(), "{b}");
        assert!(x.cos().abs() < 1e-12, "{b}");
        let p = replay(&path, "half_angle_cos", b);
        assert_eq!(p["result"], b["computed"], "{b}");
    }
}

#[test]
fn the_worst_finite_input_is_reported_beside_a_nan_and_a_correct_infinity_is_no_error() {
    let path = fixture("reference.c");
    let r = error_record(&[
        &path,
        "-f",
        "scaled_or_nan",
        "--range",
        "x=-1:1",
        "--time-budget",
        "2",
        "--reference",
        "x",
    ]);
    // NaN against a finite x: the worst overall; the finite worst is the scaling.
    assert!(number(&r["max_rel_error"]).is_infinite(), "{r}");
    let finite = &r["worst_finite"];
    let e = number(&finite["max_rel_error"]);
    // 1e-10 on normal x; a subnormal x rounds the scaling to an ulp, a little more.
    assert!((9.9e-11..1e-9).contains(&e), "{r}");
    assert_eq!(
        r["bug_inputs"],
        serde_json::json!([]),
        "1e-10 is not bug-level"
    );
    // exp(x) overflows where expm1(x) does: the same infinity, no error; the worst is
    // the cancellation near 0, finite.
    let r = error_record(&[
        &path,
        "-f",
        "exp_minus_one",
        "--range",
        "x=-800:800",
        "--time-budget",
        "3",
        "--reference",
        "(expm1 x)",
    ]);
    let worst = number(&r["max_rel_error"]);
    assert!(worst.is_finite() && worst > 1e-3, "{r}");
    assert_eq!(r["worst_finite"]["inputs"], r["inputs"], "{r}");
}

#[test]
fn the_objective_chooses_between_the_largest_relative_error_and_the_most_ulps() {
    let path = fixture("reference.c");
    let search = |objective: &str| {
        error_record(&[
            &path,
            "-f",
            "ulps_or_relative",
            "--range",
            "x=0:2",
            "--time-budget",
            "3",
            "--reference",
            "x",
            "--objective",
            objective,
        ])
    };
    // A subnormal one ulp off: relative error up to 1, one ulp.
    let relative = search("relative");
    assert_eq!(relative["objective"], "relative", "{relative}");
    assert!(number(&relative["max_rel_error"]) > 0.1, "{relative}");
    assert!(number(&relative["ulps"]) <= 1.0, "{relative}");
    // [1, 2] scaled by 1 + 2^-40: 2048 to 4096 ulps, a relative error of 2^-40.
    let ulps = search("ulps");
    assert_eq!(ulps["objective"], "ulps", "{ulps}");
    assert!(number(&ulps["ulps"]) >= 2048.0, "{ulps}");
    assert!(number(&ulps["max_rel_error"]) < 1e-11, "{ulps}");
    let x = number(&ulps["inputs"][0]["value"]["decimal"]);
    assert!((1.0..=2.0).contains(&x), "{ulps}");
    assert_eq!(ulps["worst_finite"]["inputs"], ulps["inputs"], "{ulps}");
}

#[test]
fn a_bad_reference_is_an_input_error_naming_what_is_wrong() {
    let path = fixture("reference.c");
    for (expr, named) in [("(sinn x)", "sinn"), ("(sin y)", "y"), ("(sin x x)", "sin")] {
        let out = run(&["error", &path, "-f", "taylor_sin", "--reference", expr]);
        assert_eq!(out.code, 2, "{expr}: {}", out.stderr);
        assert!(
            out.stderr.contains("--reference") && out.stderr.contains(named),
            "{expr}: {}",
            out.stderr
        );
    }
    let out = run(&["error", &path, "-f", "taylor_sin", "--threshold=-1"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--threshold"), "{}", out.stderr);
}

/// `fpscout error ... --exhaustive --json`: its `{"type":"exhaustive"}` record's data.
fn exhaustive_record(args: &[&str]) -> Value {
    let mut all = vec!["error"];
    all.extend_from_slice(args);
    all.push("--exhaustive");
    let (records, code) = json_run(&all);
    assert_eq!(code, Some(0));
    records
        .iter()
        .find(|r| r["type"] == "exhaustive")
        .unwrap_or_else(|| panic!("no exhaustive record: {records:?}"))["data"]
        .clone()
}

/// A JSON number that may be infinite (written `"inf"`, `"-inf"`, `"nan"`).
fn any_f64(v: &Value) -> Option<f64> {
    match v.as_str() {
        Some("inf") => Some(f64::INFINITY),
        Some("-inf") => Some(f64::NEG_INFINITY),
        Some("nan") => Some(f64::NAN),
        _ => v.as_f64(),
    }
}

/// The worst input of a direct loop over `lo..=hi` measuring `f` against `reference` in
/// MPFR: (bits, ulps, relative) of the first largest, over every input or (`finite`)
/// those whose result and exact value are finite.
fn direct_maximum(
    reference: &str,
    f: impl Fn(f32) -> f32,
    lo: f32,
    hi: f32,
    finite: bool,
) -> (u32, f64, f64) {
    use fpscout_fpcore::{measure, Precision, Reference, ReferenceValue};
    let reference = Reference::parse(reference, &["x"]).expect("reference parses");
    let mut best: Option<(u32, f64, f64)> = None;
    for bits in lo.to_bits()..=hi.to_bits() {
        let x = f32::from_bits(bits);
        let y = f(x);
        let exact = reference.evaluate(&[f64::from(x)], Precision::Binary32);
        if finite && !(y.is_finite() && matches!(exact, ReferenceValue::Finite { .. })) {
            continue;
        }
        let m = measure(f64::from(y), &exact, Precision::Binary32).expect("decided");
        if best.is_none_or(|(_, ulps, _)| m.ulps > ulps) {
            best = Some((bits, m.ulps, m.relative));
        }
    }
    best.expect("a non-empty range")
}

#[test]
fn the_exhaustive_search_finds_the_maximum_a_direct_mpfr_loop_finds() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Cancellation: x² computed as (x + 1)² − 2x − 1, which C and Rust compute alike;
    // and the C library's expf (which Rust's f32::exp calls) up to its overflow.
    let src = common::cli::write(
        dir.path(),
        "square.c",
        "#include <math.h>\n\
         float square(float x) { return (x + 1.0f) * (x + 1.0f) - 2.0f * x - 1.0f; }\n\
         float exponential(float x) { return expf(x); }\n\
         float offset(float x) { return x - 0.5f + 1e-8f; }\n\
         float root(float x) { return sqrtf(x); }\n",
    );
    let square = |x: f32| (x + 1.0) * (x + 1.0) - 2.0 * x - 1.0;
    type Case<'f> = (&'f str, &'f str, &'f dyn Fn(f32) -> f32, f32, f32);
    let offset = |x: f32| x - 0.5 + 1e-8;
    let cases: [Case; 4] = [
        // 2^-10 and 2^-10 (1 + 2^-10): 8193 floats.
        (
            "square",
            "(* x x)",
            &square,
            0.000_976_562_5,
            0.000_977_516_2,
        ),
        // 65537 floats, the largest ones overflowing (the same infinity: no error).
        ("exponential", "(exp x)", &f32::exp, 88.5, 89.0),
        // The exact value is 0 at x = 0.5 (the result is not): an error of ~7e36 ulps
        // of the subnormal binade, the largest by far.
        ("offset", "(- x 0.5)", &offset, 0.499, 0.501),
        // Correctly rounded: every error is below half an ulp of the real value, the
        // largest a few nanoulps short of it, where the estimates crowd.
        ("root", "(sqrt x)", &f32::sqrt, 2.0, 2.01),
    ];
    for (function, reference, f, lo, hi) in cases {
        let range = format!("x={lo}:{hi}");
        let data = exhaustive_record(&[
            &src,
            "-f",
            function,
            "--reference",
            reference,
            "--range",
            &range,
            "--jobs",
            "2",
        ]);
        assert_eq!(data["inputs"], u64::from(hi.to_bits() - lo.to_bits() + 1));
        assert_eq!(data["evaluated"], data["inputs"]);
        for (key, finite) in [("worst", false), ("worst_finite", true)] {
            let (bits, ulps, relative) = direct_maximum(reference, f, lo, hi, finite);
            let worst = &data[key];
            assert_eq!(
                worst["input_bits"],
                format!("{bits:#010x}"),
                "{function} {key}: {data}"
            );
            assert_eq!(any_f64(&worst["ulps"]), Some(ulps), "{function} {key}");
            assert_eq!(
                any_f64(&worst["relative"]),
                Some(relative),
                "{function} {key}"
            );
        }
        assert_eq!(data["exact_maximum"], true, "{data}");
        assert_eq!(data["exact_finite_maximum"], true, "{data}");
    }
}

#[test]
fn the_exhaustive_search_refuses_what_it_cannot_enumerate() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = common::cli::write(
        dir.path(),
        "two.c",
        "double twice(double x) { return 2 * x; }\nfloat half(float x) { return x / 2; }\n",
    );
    for (args, says) in [
        (
            vec!["-f", "twice", "--reference", "(* 2 x)"],
            "one float returning float",
        ),
        (vec!["-f", "half"], "give --reference"),
        (vec!["-f", "half", "--reference", "(digamma x)"], "digamma"),
        (vec!["--reference", "(* 2 x)"], "--function"),
        (
            vec![
                "-f",
                "half",
                "--reference",
                "(/ x 2)",
                "--jsonl",
                "out.jsonl",
            ],
            "--jsonl does not apply",
        ),
    ] {
        let mut all = vec!["error", src.as_str(), "--exhaustive"];
        all.extend(args.iter().copied());
        let out = run(&all);
        assert_eq!(out.code, 2, "{all:?}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{all:?}: {}", out.stderr);
    }
    // A budget spent before the first input is not "a maximum of nothing".
    let out = run(&[
        "error",
        &src,
        "--exhaustive",
        "-f",
        "half",
        "--reference",
        "(/ x 2)",
        "--time-budget",
        "0.01",
    ]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("no input measured"), "{}", out.stdout);
}

#[test]
fn the_native_scan_finds_a_narrow_stretch_the_measured_search_rarely_draws() {
    // The error sits on 2^-20 of [1, 2]: the few thousand inputs a second the evaluator
    // measures in MPFR draw it with probability about 2^-20 each, the millions the scan
    // scores natively against the reference in long double draw it dozens of times.
    let path = fixture("needle.c");
    let common = [
        "-f",
        "needle",
        "--range",
        "x=1:2",
        "--reference",
        "x",
        "--time-budget",
        "4",
        // Two scan processes per burst (--jobs with --function).
        "--jobs",
        "2",
    ];
    let mut args = vec![path.as_str()];
    args.extend_from_slice(&common);
    let measured = error_record(&args);
    assert!(number(&measured["scanned"]) > 1e6, "{measured}");
    assert_eq!(
        measured["scan"],
        "scored against the reference in long double"
    );
    let x = measured["inputs"][0]["value"]["hex"]
        .as_str()
        .expect("input");
    let x = fpscout_report::args::parse_float(x, fpscout_ir::FloatTy::F64)
        .map(f64::from_bits)
        .expect("a float");
    assert!(x > 1.7 && x < 1.7 + 2f64.powi(-20), "{measured}");
    // The error is the one measured in MPFR: the result 2^-40 relative above x.
    let y = x * (1.0 + 2f64.powi(-40));
    assert_eq!(
        number(&measured["max_rel_error"]),
        (y - x) / x,
        "{measured}"
    );
    assert_eq!(number(&measured["exact"]), x);
    let p = replay(&path, "needle", &measured);
    assert_eq!(p["result"], measured["computed"], "{measured}");
    // The random baseline stays plain random testing; without a reference there is
    // nothing to scan against.
    args.push("--random-only");
    let random = error_record(&args);
    assert_eq!(random["scanned"], 0);
    assert_eq!(random["scan"], "not used: --random-only");
    let shadow = error_record(&[path.as_str(), "-f", "needle", "--time-budget", "1"]);
    assert_eq!(shadow["scanned"], 0);
    assert!(shadow["scan"].is_null(), "{shadow}");
}
