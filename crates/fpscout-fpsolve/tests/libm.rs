//! libm projections never remove an argument whose glibc result lies in the result domain: checked against the process's glibc on every binary32 of ranges, and on dense binary64 samples.
// Arguments next to π and π/2 (and 3.14 below π) are the cases under test.
#![allow(clippy::approx_constant)]

use fpscout_fpsolve::libm::call_glibc;
use fpscout_fpsolve::project::libm::project_libm;
use fpscout_fpsolve::{
    Arith, FcmpPredicate, FloatDomain, FloatValue, Format, Fp, LibmFunction, Network, NetworkError,
    Propagation,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn key(format: Format, x: f64) -> Fp {
    match format.from_f64(x) {
        FloatValue::Num(k) => k,
        FloatValue::NaN => panic!("NaN has no key"),
    }
}

/// Binary32 keys worth covering for a function: where its result changes character.
fn interesting_f32_centres(function: LibmFunction) -> Vec<f64> {
    let mut centres = vec![0.0, 1e-30, -1e-30, 1.0, -1.0, 0.5, 3.0, -3.0, 1e30, -1e30];
    centres.extend(match function {
        LibmFunction::Exp | LibmFunction::Expm1 | LibmFunction::Sinh | LibmFunction::Cosh => {
            vec![88.72, -87.3, -103.97, 89.4, -89.4]
        }
        LibmFunction::Exp2 => vec![128.0, -126.0, -149.0, 127.99],
        LibmFunction::Log | LibmFunction::Log2 | LibmFunction::Log10 => {
            vec![1.0e-40, 3.4e38, 2.0]
        }
        LibmFunction::Log1p => vec![-0.999_999, -1.0, 1e-8],
        LibmFunction::Asin | LibmFunction::Acos => vec![0.999_999, -0.999_999],
        LibmFunction::Sin | LibmFunction::Cos | LibmFunction::Tan => {
            vec![1.5, -1.5, 1.5707964, 3.14, -3.14, 3.1415927, 1e5]
        }
        LibmFunction::Round | LibmFunction::RoundEven => vec![2.5, -2.5, 8388608.0],
        // erfc underflows past 9.19 and tends to 2 below -3.9.
        LibmFunction::Erf | LibmFunction::Erfc => vec![9.19, 10.06, -3.9, 0.4769, 6.0],
        // Γ's minimum, its overflow at 35.04, the zeros of log |Γ| and the poles.
        LibmFunction::Lgamma | LibmFunction::Tgamma => {
            vec![
                1.4616321, 2.0, 35.04, -2.4570825, -2.5, -3.0, -0.5, 4.0e36, -40.0,
            ]
        }
        // Where the fraction turns exact zero, and subnormal significands.
        LibmFunction::ModfFraction | LibmFunction::FrexpSignificand => {
            vec![8388608.0, -8388608.5, 2.0, -4.0, 1.0e-40, -1.0e-45]
        }
        _ => vec![8.0, 10.0],
    });
    centres
}

/// Every binary32 of `width` consecutive keys around each interesting centre, plus a
/// stride over the whole line: the direct projection of each point holds glibc's value.
/// (Sizes keep the test at a few seconds; every float of the windows is checked.)
#[test]
fn direct_projection_holds_glibc_on_every_binary32_of_the_ranges() {
    let format = Format::F32;
    let full = FloatDomain::full(format);
    let width = 1 << 9;
    for function in LibmFunction::ALL {
        let mut keys: Vec<i64> = Vec::new();
        for centre in interesting_f32_centres(function) {
            let k = key(format, centre).0;
            keys.extend(k - width / 2..k + width / 2);
        }
        keys.extend((format.neg_inf().0..=format.pos_inf().0).step_by(1 << 21));
        for k in keys {
            let x = Fp(k.clamp(format.neg_inf().0, format.pos_inf().0));
            let y = call_glibc(function, format, FloatValue::Num(x));
            let point = FloatDomain::point(format, FloatValue::Num(x));
            let (a, r) = project_libm(function, &point, &full).unwrap_or_else(|| {
                panic!("{function:?}: the point {} was refuted", format.to_f64(x))
            });
            assert!(
                r.contains(y) && a.contains(FloatValue::Num(x)),
                "{function:?}({}) = {y:?} outside {r:?}",
                format.to_f64(x)
            );
            // Back from glibc's value alone, the point survives.
            let (a, _) = project_libm(function, &point, &FloatDomain::point(format, y))
                .unwrap_or_else(|| panic!("{function:?}: {x:?} lost from its own value"));
            assert!(a.contains(FloatValue::Num(x)));
        }
    }
}

/// Random argument intervals X (up to 512 binary32 around interesting places, or
/// anywhere) and result intervals Y: every x of X whose glibc result lies in Y survives
/// both projections, and its result stays in the narrowed Y.
#[test]
fn projections_keep_every_binary32_solution_of_random_boxes() {
    let format = Format::F32;
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    for function in LibmFunction::ALL {
        let centres = interesting_f32_centres(function);
        for round in 0..30 {
            let centre = if round % 5 == 4 {
                rng.gen_range(format.neg_inf().0..=format.pos_inf().0)
            } else {
                key(format, centres[rng.gen_range(0..centres.len())]).0
            };
            let width = rng.gen_range(0..512i64);
            let lo = (centre - rng.gen_range(0..=width)).max(format.neg_inf().0);
            let hi = (lo + width).min(format.pos_inf().0);
            let xs: Vec<FloatValue> = (lo..=hi)
                .map(|k| FloatValue::Num(Fp(k)))
                .chain(std::iter::once(FloatValue::NaN))
                .collect();
            let results: Vec<FloatValue> = xs
                .iter()
                .map(|&x| call_glibc(function, format, x))
                .collect();
            let a = FloatDomain::new(format, Fp(lo), Fp(hi), rng.gen_bool(0.3));
            // Y between two results of X, one end moved a little, sometimes with NaN.
            let pick = |rng: &mut ChaCha8Rng| match results[rng.gen_range(0..results.len())] {
                FloatValue::Num(y) => y,
                FloatValue::NaN => format.pos_zero(),
            };
            let (y1, y2) = (pick(&mut rng), pick(&mut rng));
            let nudge = rng.gen_range(-3..=3);
            let y_lo = Fp((y1.min(y2).0 + nudge).clamp(format.neg_inf().0, format.pos_inf().0));
            let y_hi = y1.max(y2).max(y_lo);
            let r = FloatDomain::new(format, y_lo, y_hi, rng.gen_bool(0.3));
            let projected = project_libm(function, &a, &r);
            for (x, y) in xs.iter().zip(&results) {
                if a.contains(*x) && r.contains(*y) {
                    let (pa, pr) = projected.as_ref().unwrap_or_else(|| {
                        panic!("{function:?} refuted {a:?} {r:?}, but {x:?} -> {y:?}")
                    });
                    assert!(
                        pa.contains(*x) && pr.contains(*y),
                        "{function:?} lost {x:?} -> {y:?} from {a:?} {r:?}: {pa:?} {pr:?}"
                    );
                }
            }
        }
    }
}

/// Binary64: dense samples (random bits, random values in ±20 and ±1000, boundaries),
/// each a point through both projections, and random boxes around samples.
#[test]
fn projections_keep_every_sampled_binary64_solution() {
    let format = Format::F64;
    let full = FloatDomain::full(format);
    let mut rng = ChaCha8Rng::seed_from_u64(64);
    let boundaries = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        709.78,
        709.79,
        -745.13,
        -708.4,
        1024.0,
        -1074.0,
        1e-310,
        1e308,
        f64::MAX,
        f64::MIN_POSITIVE,
        1.5,
        1.5707963267948966,
        3.14,
        3.141592653589793,
        0.5,
        2.5,
        -2.5,
        4503599627370496.0,
        1.4616321449683622,
        1.4616321449683625,
        2.0,
        171.62,
        -2.4570247382208,
        -3.5,
        26.55,
        -6.0,
    ];
    for function in LibmFunction::ALL {
        let mut samples: Vec<f64> = boundaries.iter().flat_map(|&b| [b, -b]).collect();
        for _ in 0..600 {
            samples.push(match rng.gen_range(0..3) {
                0 => f64::from_bits(rng.gen()),
                1 => rng.gen_range(-20.0..20.0),
                _ => rng.gen_range(-1000.0..1000.0),
            });
        }
        for &sample in &samples {
            let FloatValue::Num(x) = format.from_f64(sample) else {
                continue;
            };
            let y = call_glibc(function, format, FloatValue::Num(x));
            let point = FloatDomain::point(format, FloatValue::Num(x));
            let (_, r) = project_libm(function, &point, &full)
                .unwrap_or_else(|| panic!("{function:?}: the point {sample} was refuted"));
            assert!(
                r.contains(y),
                "{function:?}({sample}) = {y:?} outside {r:?}"
            );
            let (a, _) = project_libm(function, &point, &FloatDomain::point(format, y))
                .unwrap_or_else(|| panic!("{function:?}: {sample} lost from its own value"));
            assert!(a.contains(FloatValue::Num(x)));
        }
        // Boxes: X a window of keys around a sample, Y around glibc's value of another
        // point of X; every sampled x of X with its result in Y survives.
        for _ in 0..12 {
            let FloatValue::Num(centre) = format.from_f64(samples[rng.gen_range(0..samples.len())])
            else {
                continue;
            };
            let width = 1i64 << rng.gen_range(0..40);
            let lo = Fp((centre.0 - width).max(format.neg_inf().0));
            let hi = Fp((centre.0 + width).min(format.pos_inf().0));
            let a = FloatDomain::new(format, lo, hi, false);
            let inside = |rng: &mut ChaCha8Rng| Fp(rng.gen_range(lo.0..=hi.0));
            let (p, q) = (inside(&mut rng), inside(&mut rng));
            let value = |x: Fp| match call_glibc(function, format, FloatValue::Num(x)) {
                FloatValue::Num(y) => y,
                FloatValue::NaN => format.pos_zero(),
            };
            let (y1, y2) = (value(p), value(q));
            let r = FloatDomain::new(format, y1.min(y2), y1.max(y2), false);
            let projected = project_libm(function, &a, &r);
            let mut points: Vec<Fp> = (0..100).map(|_| inside(&mut rng)).collect();
            points.extend([lo, hi, p, q]);
            for x in points {
                let y = call_glibc(function, format, FloatValue::Num(x));
                if r.contains(y) {
                    let (pa, pr) = projected
                        .as_ref()
                        .unwrap_or_else(|| panic!("{function:?} refuted {a:?} {r:?} ∋ {x:?}"));
                    assert!(
                        pa.contains(FloatValue::Num(x)) && pr.contains(y),
                        "{function:?} lost {x:?} -> {y:?}"
                    );
                }
            }
        }
    }
}

/// Special arguments give exactly glibc's value: the projection of the point is a point.
#[test]
fn special_values_are_glibc_exactly() {
    for format in [Format::F32, Format::F64] {
        let full = FloatDomain::full(format);
        for function in LibmFunction::ALL {
            for x in [
                format.pos_zero(),
                format.neg_zero(),
                format.pos_inf(),
                format.neg_inf(),
            ] {
                let y = call_glibc(function, format, FloatValue::Num(x));
                let point = FloatDomain::point(format, FloatValue::Num(x));
                let (_, r) = project_libm(function, &point, &full).expect("a point has a value");
                assert_eq!(r, FloatDomain::point(format, y), "{function:?}({x:?})");
            }
            let nan = FloatDomain::point(format, FloatValue::NaN);
            let (_, r) = project_libm(function, &nan, &full).expect("NaN has a value");
            assert_eq!(r, nan, "{function:?}(NaN)");
        }
        // The values themselves, as glibc documents them.
        let at = |f: LibmFunction, x: f64| {
            format.to_f64(match call_glibc(f, format, format.from_f64(x)) {
                FloatValue::Num(y) => y,
                FloatValue::NaN => return f64::NAN,
            })
        };
        assert_eq!(at(LibmFunction::Log, 0.0), f64::NEG_INFINITY);
        assert_eq!(at(LibmFunction::Log, -0.0), f64::NEG_INFINITY);
        assert!(at(LibmFunction::Log, -1.0).is_nan());
        assert!(at(LibmFunction::Log, f64::NEG_INFINITY).is_nan());
        assert_eq!(at(LibmFunction::Exp, f64::NEG_INFINITY), 0.0);
        assert_eq!(at(LibmFunction::Log1p, -1.0), f64::NEG_INFINITY);
        assert!(at(LibmFunction::Sin, f64::INFINITY).is_nan());
        assert_eq!(at(LibmFunction::Floor, -0.5), -1.0);
        assert_eq!(at(LibmFunction::Round, 2.5), 3.0);
        assert_eq!(at(LibmFunction::RoundEven, 2.5), 2.0);
        assert_eq!(at(LibmFunction::Trunc, -0.5).to_bits(), (-0.0f64).to_bits());
    }
}

/// Exact functions project exactly: floor(x) = 0.5 has no solution, and floor(x) = 2
/// narrows x to [2, 3) exactly.
#[test]
fn rounding_functions_project_exactly() {
    let format = Format::F64;
    let full = FloatDomain::full(format);
    let half = FloatDomain::point(format, format.from_f64(0.5));
    assert!(project_libm(LibmFunction::Floor, &full, &half).is_none());
    let two = FloatDomain::point(format, format.from_f64(2.0));
    let (a, _) = project_libm(LibmFunction::Floor, &full, &two).expect("floor(2.5) = 2");
    let below_three = Fp(key(format, 3.0).0 - 1);
    assert_eq!(
        a,
        FloatDomain::new(format, key(format, 2.0), below_three, false)
    );
}

/// erf, erfc, Γ and the parts of modf and frexp: ranges refuted and arguments narrowed through their monotone
/// stretches, and Γ's minimum (between two stretches) is glibc's own values.
#[test]
fn error_and_gamma_functions_narrow_on_their_monotone_stretches() {
    let format = Format::F64;
    let full = FloatDomain::full(format);
    let between =
        |lo: f64, hi: f64| FloatDomain::new(format, key(format, lo), key(format, hi), false);
    // erf never exceeds 1, erfc is never negative nor above 2.
    assert!(project_libm(LibmFunction::Erf, &full, &between(1.0000001, 5.0)).is_none());
    assert!(project_libm(LibmFunction::Erfc, &full, &between(-5.0, -1e-300)).is_none());
    assert!(project_libm(LibmFunction::Erfc, &full, &between(2.0000001, 5.0)).is_none());
    // erfc(x) ≥ 1.5 only for x ≤ erfc⁻¹(1.5) ≈ -0.4769.
    let (a, _) = project_libm(LibmFunction::Erfc, &full, &between(1.5, 2.0)).expect("x < -0.47");
    let (_, hi) = a.range().unwrap();
    assert!(
        (format.to_f64(hi) + 0.476_936_276_204_47).abs() < 1e-12,
        "{}",
        format.to_f64(hi)
    );
    // Γ on [1, 3] is at least Γ(x₀) = 0.8856031944108887 (below it, refuted) and at
    // most Γ(3) = 2; Γ(x) in [1.5, 1.6] only on the increasing stretch.
    assert!(project_libm(
        LibmFunction::Tgamma,
        &between(1.0, 3.0),
        &between(-1.0, 0.8856)
    )
    .is_none());
    let (_, r) = project_libm(LibmFunction::Tgamma, &between(1.0, 3.0), &full).unwrap();
    let (lo, hi) = r.range().unwrap();
    assert!(
        (0.885_603_194_410_88..=0.885_603_194_410_889).contains(&format.to_f64(lo))
            && (2.0..2.000_001).contains(&format.to_f64(hi)),
        "{r:?}"
    );
    let (a, _) = project_libm(LibmFunction::Tgamma, &between(1.0, 3.0), &between(1.5, 1.6))
        .expect("Γ(x) in [1.5, 1.6] for x in [2.6628, 2.7436]");
    let (lo, hi) = a.range().unwrap();
    assert!(
        (2.6627..2.6628).contains(&format.to_f64(lo))
            && (2.7436..2.7437).contains(&format.to_f64(hi)),
        "{a:?}"
    );
    // modf's fraction and frexp's significand lie strictly within ±1.
    for function in [LibmFunction::ModfFraction, LibmFunction::FrexpSignificand] {
        assert!(project_libm(function, &full, &between(1.0, 2.0)).is_none());
        assert!(project_libm(function, &full, &between(-2.0, -1.0)).is_none());
    }
    // log |Γ| below its minimum -0.1214862905358496 on x > 0 is refuted.
    assert!(project_libm(
        LibmFunction::Lgamma,
        &between(0.5, 10.0),
        &between(-1.0, -0.1215)
    )
    .is_none());
}

/// Networks: propagation refutes what glibc never returns, `evaluate` and `check` use
/// glibc's values, and what is not modelled is refused with a typed error.
#[test]
fn networks_with_libm_constraints() {
    let format = Format::F64;
    // log(x) > 710: log(DBL_MAX) ≈ 709.78, so only log(+inf) = +inf is above it.
    let mut network = Network::new(Arith::IEEE);
    let x = network.float_var("x", format);
    let y = network.libm(LibmFunction::Log, x).unwrap();
    let bound = network.float_const_f64(format, 710.0);
    network.require(FcmpPredicate::Ogt, y, bound, true).unwrap();
    assert_eq!(network.propagate(10_000), Propagation::Fixpoint);
    let only_inf = network.float_domain(x).unwrap();
    assert_eq!(only_inf.range(), Some((format.pos_inf(), format.pos_inf())));
    assert!(!only_inf.may_be_nan());
    // log(x) > 709 holds for x near DBL_MAX only.
    let mut network = Network::new(Arith::IEEE);
    let x = network.float_var("x", format);
    let y = network.libm(LibmFunction::Log, x).unwrap();
    let bound = network.float_const_f64(format, 709.0);
    network.require(FcmpPredicate::Ogt, y, bound, true).unwrap();
    assert_eq!(network.propagate(10_000), Propagation::Fixpoint);
    let (lo, _) = network.float_domain(x).unwrap().range().unwrap();
    assert!(format.to_f64(lo) > 8.0e307 && format.to_f64(lo) < 8.3e307);
    // exp(x) < 0 and sin(x) > 1 are impossible.
    for (function, predicate, value) in [
        (LibmFunction::Exp, FcmpPredicate::Olt, 0.0),
        (LibmFunction::Sin, FcmpPredicate::Ogt, 1.0),
        (LibmFunction::Cosh, FcmpPredicate::Olt, 1.0),
    ] {
        let mut network = Network::new(Arith::IEEE);
        let x = network.float_var("x", Format::F32);
        let y = network.libm(function, x).unwrap();
        let c = network.float_const_f64(Format::F32, value);
        network.require(predicate, y, c, true).unwrap();
        assert_eq!(
            network.propagate(10_000),
            Propagation::Infeasible,
            "{function:?}"
        );
    }
    // evaluate and check compute glibc's values.
    let mut network = Network::new(Arith::IEEE);
    let x = network.float_var("x", Format::F32);
    let y = network.libm(LibmFunction::Exp, x).unwrap();
    let mut values = vec![None; network.variable_count()];
    values[x.index()] = Some(fpscout_fpsolve::Value::Float(Format::F32.from_f64(1.0)));
    assert_eq!(network.evaluate(&mut values), Some(true));
    let e = Format::F32.from_bits(u64::from(std::f32::consts::E.to_bits()));
    assert_eq!(values[y.index()], Some(fpscout_fpsolve::Value::Float(e)));
    let assignment: Vec<_> = values.into_iter().map(Option::unwrap).collect();
    assert_eq!(network.check(&assignment), Ok(true));
    // Refused: a format glibc does not have, and FTZ/DAZ arithmetic.
    let mut network = Network::new(Arith::IEEE);
    let m = network.float_var("m", Format::MINI8);
    assert!(matches!(
        network.libm(LibmFunction::Exp, m),
        Err(NetworkError::LibmUnsupported { .. })
    ));
    let mut network = Network::new(Arith {
        flush_to_zero: true,
        denormals_are_zero: true,
    });
    let x = network.float_var("x", format);
    assert!(matches!(
        network.libm(LibmFunction::Log, x),
        Err(NetworkError::LibmUnsupported { .. })
    ));
}
