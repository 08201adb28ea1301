//! The native scan: inputs drawn inside their key boxes, scores that agree with the error computed here exactly, the narrow bad window found, runaway scans stopped.

use fpscout_ir::{FloatTy, ScalarTy, Type};
use fpscout_native::{
    scan_order_key, FtzDaz, NativeArgKind, NativeBuild, NativeSignature, ScanOutcome, ScanScore,
};
use fpscout_toolchain::{BuildFlags, BuildKind, SourceSet, Toolchain};
use std::time::Duration;

const SOURCE: &str = r#"
double window(double x) {
  /* Wrong by 2^-40 relative on a window of 2^-20 in [1, 2]. */
  if (x > 1.5 && x < 1.5 + 0x1p-20) return x * (1.0 + 0x1p-40);
  return x;
}
float sum(float a, float b) { return a + b; }
double forever(double x) { while (x == x) { x = x + 0.0; } return x; }
"#;

fn scan_build(
    dir: &std::path::Path,
    symbol: &str,
    params: Vec<NativeArgKind>,
    ret: FloatTy,
    reference: &str,
) -> NativeBuild {
    let src = dir.join("scan_subject.c");
    std::fs::write(&src, SOURCE).expect("write source");
    let tc = Toolchain::discover().expect("clang-19 is installed");
    let sig = NativeSignature {
        symbol: symbol.into(),
        params,
        ret: Type::Scalar(ScalarTy::Float(ret)),
        setup: None,
    };
    NativeBuild::compile_scan(
        &tc,
        &SourceSet::single(&src),
        BuildKind::P,
        &BuildFlags::default(),
        &sig,
        reference,
        &dir.join(format!("work-{symbol}")),
    )
    .unwrap_or_else(|e| panic!("scan build of {symbol}: {e}"))
}

const F64: NativeArgKind = NativeArgKind::Float(FloatTy::F64);
const F32: NativeArgKind = NativeArgKind::Float(FloatTy::F32);

fn key64(x: f64) -> i64 {
    scan_order_key(x.to_bits(), FloatTy::F64)
}

#[test]
fn the_scan_finds_a_narrow_window_and_scores_it_exactly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let b = scan_build(
        dir.path(),
        "window",
        vec![F64],
        FloatTy::F64,
        "static long double fps_ref_l(long double s0) { return s0; }",
    );
    let count = 1 << 24;
    let out: ScanOutcome = b
        .scan(
            FtzDaz::AsLinked,
            7,
            count,
            ScanScore::Ulps,
            &[(key64(1.0), key64(2.0))],
            Duration::from_secs(60),
        )
        .expect("scan");
    assert_eq!(out.evaluated, count);
    assert_eq!(out.worst.len(), fpscout_native::SCAN_KEEP);
    // About 16 of the 2^24 inputs fall in the window; every one scores its exact error.
    let hits: Vec<_> = out.worst.iter().filter(|c| c.estimate > 0.0).collect();
    assert!(hits.len() >= 4, "{:?}", out.worst);
    for c in &hits {
        let x = f64::from_bits(c.inputs[0]);
        assert!(x > 1.5 && x < 1.5 + 2f64.powi(-20), "{x}");
        let y = x * (1.0 + 2f64.powi(-40));
        assert_eq!(c.result, y.to_bits());
        assert_eq!(c.estimate, (y - x) / 2f64.powi(-52), "at {x}");
    }
    // The rest score 0 and lie in the box.
    for c in out.worst.iter().chain(&out.worst_finite) {
        let x = f64::from_bits(c.inputs[0]);
        assert!((1.0..=2.0).contains(&x), "{x}");
    }
    // The same seed draws the same inputs.
    let again = b
        .scan(
            FtzDaz::AsLinked,
            7,
            count,
            ScanScore::Ulps,
            &[(key64(1.0), key64(2.0))],
            Duration::from_secs(60),
        )
        .expect("scan");
    assert_eq!(again, out);
}

#[test]
fn scores_of_a_two_parameter_float_function_agree_with_the_exact_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let b = scan_build(
        dir.path(),
        "sum",
        vec![F32, F32],
        FloatTy::F32,
        "static long double fps_ref_l(long double s0, long double s1) { return s0 + s1; }",
    );
    let key32 = |x: f32| scan_order_key(u64::from(x.to_bits()), FloatTy::F32);
    // a in a window of a thousand floats above 1, b over every exponent of either sign.
    let boxes = [(key32(1.0), key32(1.0) + 1000), (key32(-1e30), key32(1e30))];
    for score in [ScanScore::Ulps, ScanScore::Relative] {
        let out = b
            .scan(
                FtzDaz::AsLinked,
                3,
                1 << 20,
                score,
                &boxes,
                Duration::from_secs(60),
            )
            .expect("scan");
        assert_eq!(out.worst_finite.len(), fpscout_native::SCAN_KEEP);
        for c in out.worst.iter().chain(&out.worst_finite) {
            let (a, bb) = (
                f32::from_bits(c.inputs[0] as u32),
                f32::from_bits(c.inputs[1] as u32),
            );
            assert!((1.0..=1.0 + 1000.0 * f32::EPSILON).contains(&a), "{a}");
            assert!((-1e30..=1e30).contains(&bb), "{bb}");
            // The sum of two floats is exact in double: the error here is exact.
            let exact = f64::from(a) + f64::from(bb);
            let y = a + bb;
            assert_eq!(c.result, u64::from(y.to_bits()));
            let d = (f64::from(y) - exact).abs();
            let want = if d == 0.0 {
                0.0
            } else if score == ScanScore::Relative {
                d / exact.abs().max(f64::from(f32::MIN_POSITIVE))
            } else {
                // The ulp of binary32 at |exact|'s binade (just below it at a power of two).
                let (_, e) = frexp(exact.abs() * (1.0 - 2f64.powi(-40)));
                d / 2f64.powi(e.max(-125) - 24)
            };
            assert_eq!(c.estimate, want, "{a} + {bb} ({score:?})");
        }
        let best = out.worst_finite[0].estimate;
        match score {
            // Cancellation makes no error in a float sum; rounding makes at most half an ulp.
            ScanScore::Ulps => assert!(best > 0.45 && best <= 0.5, "{best}"),
            ScanScore::Relative => assert!(best > 0.0 && best <= f64::from(f32::EPSILON) / 2.0),
        }
    }
}

fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 {
        return (0.0, 0);
    }
    let e = x.abs().log2().floor() as i32 + 1;
    let m = x / 2f64.powi(e);
    // log2 may be off by one at binade edges.
    if m.abs() >= 1.0 {
        (m / 2.0, e + 1)
    } else if m.abs() < 0.5 {
        (m * 2.0, e - 1)
    } else {
        (m, e)
    }
}

#[test]
fn a_scan_that_does_not_end_is_stopped_and_bad_boxes_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let b = scan_build(
        dir.path(),
        "forever",
        vec![F64],
        FloatTy::F64,
        "static long double fps_ref_l(long double s0) { return s0; }",
    );
    let started = std::time::Instant::now();
    let e = b
        .scan(
            FtzDaz::AsLinked,
            1,
            10,
            ScanScore::Ulps,
            &[(key64(1.0), key64(2.0))],
            Duration::from_millis(300),
        )
        .expect_err("the function never returns");
    assert!(e.to_string().contains("ran past"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let e = b
        .scan(
            FtzDaz::AsLinked,
            1,
            10,
            ScanScore::Ulps,
            &[(key64(2.0), key64(1.0))],
            Duration::from_secs(1),
        )
        .expect_err("an empty interval");
    assert!(e.to_string().contains("nonempty"), "{e}");
}
