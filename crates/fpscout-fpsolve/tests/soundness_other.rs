//! No comparison, unary or conversion projection removes a solution: brute force on minifloats, sampled on f32/f64.

mod common;

use common::{all_values, domain_around, random_domain, random_value, values, MODES};
use fpscout_fpsolve::project::compare::project_compare;
use fpscout_fpsolve::project::convert::{
    project_float_convert, project_float_to_int, project_int_to_float,
};
use fpscout_fpsolve::project::unary::{project_copy, project_fabs, project_fneg, project_sqrt};
use fpscout_fpsolve::{Arith, FcmpPredicate, FloatDomain, FloatValue, Format, IntDomain};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn compare_projections_keep_every_solution_mini8() {
    let format = Format::MINI8;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for mode in [Arith::IEEE, MODES[2]] {
        for predicate in FcmpPredicate::ALL {
            for _ in 0..400 {
                let (a, b) = (
                    random_domain(&mut rng, format),
                    random_domain(&mut rng, format),
                );
                let projected = project_compare(predicate, mode, &a, &b);
                for x in values(&a) {
                    for y in values(&b) {
                        if mode.compare(predicate, format, x, y) {
                            let (pa, pb) = projected.as_ref().unwrap_or_else(|| {
                                panic!(
                                    "{predicate:?} {mode:?} emptied {a:?} {b:?} with ({x:?},{y:?})"
                                )
                            });
                            assert!(
                                pa.contains(x) && pb.contains(y),
                                "{predicate:?} {mode:?} lost ({x:?},{y:?}) from {a:?} {b:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// On points, a comparison projection is exact: it keeps the pair iff the predicate holds.
#[test]
fn compare_projections_decide_points_mini8() {
    let format = Format::MINI8;
    let all = all_values(format);
    for predicate in FcmpPredicate::ALL {
        assert_eq!(predicate.negated().negated(), predicate);
        for &x in &all {
            for &y in &all {
                let (a, b) = (FloatDomain::point(format, x), FloatDomain::point(format, y));
                let holds = Arith::IEEE.compare(predicate, format, x, y);
                assert_eq!(
                    project_compare(predicate, Arith::IEEE, &a, &b).is_some(),
                    holds,
                    "{predicate:?} {x:?} {y:?}"
                );
                assert_eq!(
                    Arith::IEEE.compare(predicate.negated(), format, x, y),
                    !holds
                );
            }
        }
    }
}

/// The concrete operation of a unary constraint.
type Operation<'a> = &'a dyn Fn(FloatValue) -> FloatValue;

type Unary<'a> = dyn Fn(&FloatDomain, &FloatDomain) -> Option<(FloatDomain, FloatDomain)> + 'a;

/// Brute force for `r = f(a)` over every value of random boxes.
fn check_unary(
    what: &str,
    from: Format,
    to: Format,
    f: &dyn Fn(FloatValue) -> FloatValue,
    project: &Unary,
    rng: &mut ChaCha8Rng,
) {
    for _ in 0..1500 {
        let a = random_domain(rng, from);
        let r = if rng.gen_bool(0.5) {
            random_domain(rng, to)
        } else {
            let image = f(random_value(rng, from));
            domain_around(rng, to, image)
        };
        let projected = project(&a, &r);
        for x in values(&a) {
            let z = f(x);
            if r.contains(z) {
                let (pa, pr) = projected
                    .as_ref()
                    .unwrap_or_else(|| panic!("{what}: emptied {a:?} {r:?} with {x:?} ↦ {z:?}"));
                assert!(
                    pa.contains(x) && pr.contains(z),
                    "{what}: lost {x:?} ↦ {z:?} from {a:?} {r:?} → {projected:?}"
                );
            }
        }
    }
}

#[test]
fn unary_projections_keep_every_solution_mini8() {
    let format = Format::MINI8;
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for mode in MODES {
        check_unary(
            "sqrt",
            format,
            format,
            &|x| mode.fsqrt(format, x),
            &|a, r| project_sqrt(mode, a, r),
            &mut rng,
        );
    }
    let ieee = Arith::IEEE;
    check_unary(
        "fneg",
        format,
        format,
        &|x| ieee.fneg(format, x),
        &project_fneg,
        &mut rng,
    );
    check_unary(
        "fabs",
        format,
        format,
        &|x| ieee.fabs(format, x),
        &project_fabs,
        &mut rng,
    );
    check_unary("copy", format, format, &|x| x, &project_copy, &mut rng);
}

#[test]
fn float_conversion_projections_keep_every_solution() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for mode in MODES {
        for (from, to) in [
            (Format::MINI8, Format::MINI10),
            (Format::MINI10, Format::MINI8),
        ] {
            check_unary(
                &format!("convert {from:?}->{to:?} {mode:?}"),
                from,
                to,
                &|x| mode.convert(from, to, x),
                &|a, r| project_float_convert(mode, a, r),
                &mut rng,
            );
        }
        // f32 ↔ f64 around random solutions.
        for (from, to) in [(Format::F32, Format::F64), (Format::F64, Format::F32)] {
            for _ in 0..300 {
                let x = random_value(&mut rng, from);
                let z = mode.convert(from, to, x);
                let (a, r) = (
                    domain_around(&mut rng, from, x),
                    domain_around(&mut rng, to, z),
                );
                let (pa, pr) = project_float_convert(mode, &a, &r)
                    .unwrap_or_else(|| panic!("{from:?}->{to:?} emptied around {x:?}"));
                assert!(
                    pa.contains(x) && pr.contains(z),
                    "{from:?}->{to:?} {mode:?} lost {x:?} ↦ {z:?}"
                );
            }
        }
    }
}

#[test]
fn integer_conversion_projections_keep_every_solution_mini8() {
    let format = Format::MINI8;
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for mode in MODES {
        for _ in 0..1500 {
            let lo = rng.gen_range(-600i128..600);
            let i = IntDomain::new(lo, lo + rng.gen_range(0..200));
            let r = random_domain(&mut rng, format);
            let projected = project_int_to_float(mode, &i, &r);
            let (il, ih) = i.range().unwrap_or((0, -1));
            for v in il..=ih {
                let z = mode.int_to_float(format, v);
                if r.contains(z) {
                    let (pi, pr) = projected
                        .as_ref()
                        .unwrap_or_else(|| panic!("sitofp emptied {i:?} {r:?} with {v} ↦ {z:?}"));
                    assert!(
                        pi.contains(v) && pr.contains(z),
                        "sitofp lost {v} ↦ {z:?} from {i:?} {r:?}"
                    );
                }
            }
        }
        for signed in [true, false] {
            for _ in 0..1500 {
                let a = random_domain(&mut rng, format);
                let lo = rng.gen_range(-300i128..300);
                let i = IntDomain::new(lo, lo + rng.gen_range(0..100));
                let projected = project_float_to_int(mode, &a, &i, 8, signed);
                for x in values(&a) {
                    if let Some(v) = mode.float_to_int(format, x, 8, signed) {
                        if i.contains(v) {
                            let (pa, pi) = projected.as_ref().unwrap_or_else(|| {
                                panic!("fptoi emptied {a:?} {i:?} with {x:?} ↦ {v}")
                            });
                            assert!(
                                pa.contains(x) && pi.contains(v),
                                "fptoi lost {x:?} ↦ {v} from {a:?} {i:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// sqrt on f32/f64 around random solutions.
#[test]
fn sqrt_projection_keeps_random_solutions_f32_f64() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for format in [Format::F32, Format::F64] {
        for _ in 0..400 {
            let x = random_value(&mut rng, format);
            let z = Arith::IEEE.fsqrt(format, x);
            let (a, r) = (
                domain_around(&mut rng, format, x),
                domain_around(&mut rng, format, z),
            );
            let (pa, pr) = project_sqrt(Arith::IEEE, &a, &r)
                .unwrap_or_else(|| panic!("sqrt emptied around {x:?}"));
            assert!(pa.contains(x) && pr.contains(z), "sqrt lost {x:?} ↦ {z:?}");
        }
    }
}

/// Every operand interval of the 8-bit format (NaN allowed), each against a random result
/// domain: sqrt, fneg, fabs and fpext to the 10-bit format keep every solution.
#[test]
fn unary_projections_keep_every_solution_for_every_operand_interval_mini8() {
    let format = Format::MINI8;
    let wide = Format::MINI10;
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let ieee = Arith::IEEE;
    let keys: Vec<_> = values(&FloatDomain::ordered(format))
        .into_iter()
        .filter_map(|v| {
            if let FloatValue::Num(x) = v {
                Some(x)
            } else {
                None
            }
        })
        .collect();
    let mut intervals = 0;
    for (i, &lo) in keys.iter().enumerate() {
        for &hi in &keys[i..] {
            let a = FloatDomain::new(format, lo, hi, true);
            let checks: [(Operation, &Unary, Format); 4] = [
                (
                    &|x| ieee.fsqrt(format, x),
                    &|a, r| project_sqrt(ieee, a, r),
                    format,
                ),
                (&|x| ieee.fneg(format, x), &project_fneg, format),
                (&|x| ieee.fabs(format, x), &project_fabs, format),
                (
                    &|x| ieee.convert(format, wide, x),
                    &|a, r| project_float_convert(ieee, a, r),
                    wide,
                ),
            ];
            for (f, project, to) in checks {
                let r = if rng.gen_bool(0.5) {
                    random_domain(&mut rng, to)
                } else {
                    FloatDomain::full(to)
                };
                let projected = project(&a, &r);
                for x in values(&a) {
                    let z = f(x);
                    if r.contains(z) {
                        let (pa, pr) = projected
                            .as_ref()
                            .unwrap_or_else(|| panic!("emptied {a:?} {r:?} with {x:?} ↦ {z:?}"));
                        assert!(
                            pa.contains(x) && pr.contains(z),
                            "lost {x:?} ↦ {z:?} from {a:?} {r:?}"
                        );
                    }
                }
            }
            intervals += 1;
        }
    }
    assert_eq!(intervals, 242 * 243 / 2);
}

/// Except for `one`/`une` (a hole in an interval is not an interval), a comparison
/// projection is optimal: each operand becomes exactly the hull of its solutions.
#[test]
fn compare_projections_are_optimal_mini8() {
    let format = Format::MINI8;
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let optimal = FcmpPredicate::ALL
        .into_iter()
        .filter(|p| !matches!(p, FcmpPredicate::One | FcmpPredicate::Une));
    for predicate in optimal {
        for _ in 0..400 {
            let (a, b) = (
                random_domain(&mut rng, format),
                random_domain(&mut rng, format),
            );
            let (mut hull_a, mut hull_b) = (FloatDomain::empty(format), FloatDomain::empty(format));
            for x in values(&a) {
                for y in values(&b) {
                    if Arith::IEEE.compare(predicate, format, x, y) {
                        hull_a = hull_a.hull(&FloatDomain::point(format, x));
                        hull_b = hull_b.hull(&FloatDomain::point(format, y));
                    }
                }
            }
            let projected = project_compare(predicate, Arith::IEEE, &a, &b);
            let expected = (!hull_a.is_empty()).then_some((hull_a, hull_b));
            assert_eq!(projected, expected, "{predicate:?} on {a:?} {b:?}");
        }
    }
}
