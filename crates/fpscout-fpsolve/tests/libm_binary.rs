//! pow, atan2, hypot and fmod projections keep every glibc result the argument boxes give: checked on random binary32 and binary64 boxes of every magnitude against the process's glibc, and in networks whose solutions replay.

use fpscout_fpsolve::libm_binary::call_glibc_binary;
use fpscout_fpsolve::project::libm_binary::project_libm_binary;
use fpscout_fpsolve::{
    Answer, Arith, FcmpPredicate, FloatDomain, FloatValue, Format, Fp, LibmBinary, Network,
    Propagation, Value,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn key(format: Format, x: f64) -> Fp {
    match format.from_f64(x) {
        FloatValue::Num(k) => k,
        FloatValue::NaN => panic!("NaN has no key"),
    }
}

/// A random float of `format` over all magnitudes and signs, specials now and then.
fn random_value(format: Format, rng: &mut ChaCha8Rng) -> f64 {
    match rng.gen_range(0..20) {
        0 => [0.0, -0.0, 1.0, -1.0, 2.0, 0.5][rng.gen_range(0..6)],
        1 => [f64::INFINITY, f64::NEG_INFINITY, f64::NAN][rng.gen_range(0..3)],
        2 => rng.gen_range(0.5..2.0),
        _ => {
            let k = rng.gen_range(format.neg_inf().0..=format.pos_inf().0);
            format.to_f64(Fp(k))
        }
    }
}

/// A box of up to `width` consecutive floats at `x` (a point for NaN), possibly with NaN.
fn random_box(format: Format, x: f64, width: i64, rng: &mut ChaCha8Rng) -> FloatDomain {
    if x.is_nan() {
        return FloatDomain::nan_only(format);
    }
    let k = key(format, x).0;
    let lo = (k - rng.gen_range(0..width)).max(format.neg_inf().0);
    let hi = (k + rng.gen_range(0..width)).min(format.pos_inf().0);
    FloatDomain::new(format, Fp(lo), Fp(hi), rng.gen_range(0..8) == 0)
}

/// Floats of a box to evaluate: its ends, a few inside, NaN when it may be NaN.
fn samples(format: Format, d: &FloatDomain, rng: &mut ChaCha8Rng) -> Vec<FloatValue> {
    let mut out = Vec::new();
    if let Some((lo, hi)) = d.range() {
        out.push(FloatValue::Num(lo));
        out.push(FloatValue::Num(hi));
        for _ in 0..6 {
            out.push(FloatValue::Num(Fp(rng.gen_range(lo.0..=hi.0))));
        }
    }
    if d.may_be_nan() {
        out.push(FloatValue::NaN);
    }
    let _ = format;
    out
}

#[test]
fn the_image_holds_every_glibc_result_of_random_boxes() {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    for format in [Format::F32, Format::F64] {
        let full = FloatDomain::full(format);
        for function in LibmBinary::ALL {
            for round in 0..3000 {
                let width = if round % 2 == 0 { 4 } else { 1 << 20 };
                let (x, y) = (
                    random_value(format, &mut rng),
                    random_value(format, &mut rng),
                );
                let a = random_box(format, x, width, &mut rng);
                let b = random_box(format, y, width, &mut rng);
                let Some((a2, b2, r)) = project_libm_binary(function, &a, &b, &full) else {
                    panic!("{function:?} {format:?}: {a:?} × {b:?} refuted");
                };
                assert_eq!((&a2, &b2), (&a, &b), "the arguments are never narrowed");
                for xv in samples(format, &a, &mut rng) {
                    for yv in samples(format, &b, &mut rng) {
                        let z = call_glibc_binary(function, format, xv, yv);
                        assert!(
                            r.contains(z),
                            "{function:?} {format:?}({xv:?} = {}, {yv:?} = {}) = {z:?} outside {r:?} (boxes {a:?} × {b:?})",
                            match xv { FloatValue::Num(k) => format.to_f64(k), FloatValue::NaN => f64::NAN },
                            match yv { FloatValue::Num(k) => format.to_f64(k), FloatValue::NaN => f64::NAN },
                        );
                        // Required to be glibc's value, the box is still consistent.
                        assert!(
                            project_libm_binary(function, &a, &b, &FloatDomain::point(format, z))
                                .is_some(),
                            "{function:?}: {z:?} refuted though ({xv:?}, {yv:?}) gives it"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn images_refute_what_the_functions_cannot_give() {
    let format = Format::F64;
    let between = |lo: f64, hi: f64| FloatDomain::between(format, lo, hi);
    let negative = between(f64::NEG_INFINITY, -f64::MIN_POSITIVE);
    // hypot is never negative, and at least the larger magnitude.
    assert!(project_libm_binary(
        LibmBinary::Hypot,
        &between(3.0, 4.0),
        &between(-5.0, 5.0),
        &negative
    )
    .is_none());
    assert!(project_libm_binary(
        LibmBinary::Hypot,
        &between(3.0, 4.0),
        &between(1.0, 2.0),
        &between(0.0, 2.9)
    )
    .is_none());
    // atan2 lies within ±π.
    assert!(project_libm_binary(
        LibmBinary::Atan2,
        &FloatDomain::full(format),
        &FloatDomain::full(format),
        &between(3.2, 10.0)
    )
    .is_none());
    // pow of a base above 1 and a positive exponent is above 1; below 1 and negative too.
    assert!(project_libm_binary(
        LibmBinary::Pow,
        &between(2.0, 8.0),
        &between(0.5, 3.0),
        &between(0.0, 1.0)
    )
    .is_none());
    assert!(project_libm_binary(
        LibmBinary::Pow,
        &between(0.1, 0.5),
        &between(-3.0, -0.5),
        &between(0.0, 1.0)
    )
    .is_none());
    // 2^3 = 8 lies in the image of [2, 2] × [3, 3]'s neighbourhood.
    let (_, _, r) = project_libm_binary(
        LibmBinary::Pow,
        &between(2.0, 2.0),
        &between(3.0, 3.0),
        &FloatDomain::full(format),
    )
    .expect("8");
    assert_eq!(r.as_point(), Some(format.from_f64(8.0)));
    // fmod of a nonnegative x is within [+0, |y|).
    let nonnegative = FloatDomain::new(format, format.pos_zero(), key(format, 100.0), false);
    assert!(project_libm_binary(
        LibmBinary::Fmod,
        &nonnegative,
        &between(1.0, 2.0),
        &between(-5.0, -1e-300)
    )
    .is_none());
    assert!(project_libm_binary(
        LibmBinary::Fmod,
        &nonnegative,
        &between(1.0, 2.0),
        &between(2.5, 10.0)
    )
    .is_none());
    // remainder of a nonnegative x by y in [1, 2] is within ±1 of either sign: -1 is
    // possible (remainder(5, 2) = 1, remainder(3, 2) = -1), 1.5 is not.
    let (_, _, r) = project_libm_binary(
        LibmBinary::Remainder,
        &nonnegative,
        &between(1.0, 2.0),
        &between(-5.0, -1e-300),
    )
    .expect("negative remainders");
    assert_eq!(r.range().map(|(lo, _)| lo), Some(key(format, -1.0)));
    assert!(project_libm_binary(
        LibmBinary::Remainder,
        &nonnegative,
        &between(1.0, 2.0),
        &between(1.0000001, 10.0)
    )
    .is_none());
}

#[test]
fn a_network_with_pow_solves_and_refutes_over_floats() {
    // pow(x, 2.5) > 1e10 with x in [1, 1e5]: solutions replay through glibc; with x in
    // [1, 9] propagation alone refutes it (9^2.5 = 243).
    for (hi, solvable) in [(1e5, true), (9.0, false)] {
        let mut net = Network::new(Arith::IEEE);
        let x = net.float_var_in("x", FloatDomain::between(Format::F64, 1.0, hi));
        let e = net.float_const_f64(Format::F64, 2.5);
        let p = net.libm_binary(LibmBinary::Pow, x, e).expect("pow");
        let bound = net.float_const_f64(Format::F64, 1e10);
        net.require(FcmpPredicate::Ogt, p, bound, true)
            .expect("compare");
        let outcome = net.propagate(100_000);
        if !solvable {
            assert_eq!(outcome, Propagation::Infeasible);
            continue;
        }
        assert_ne!(outcome, Propagation::Infeasible);
        let report = fpscout_fpsolve::solve(&net, &Default::default());
        let Answer::Solution(assignment) = report.answer else {
            panic!("no solution: {:?}", report.answer);
        };
        let Some(Value::Float(xv)) = assignment.get(x) else {
            panic!("x has no float value");
        };
        // Checked by the search against glibc; and so it is natively.
        assert!(format_value(xv).powf(2.5) > 1e10, "{xv:?}");
    }
}

fn format_value(v: FloatValue) -> f64 {
    match v {
        FloatValue::Num(k) => Format::F64.to_f64(k),
        FloatValue::NaN => f64::NAN,
    }
}
