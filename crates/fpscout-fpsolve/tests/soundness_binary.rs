//! No binary projection (fadd, fsub, fmul, fdiv, min, max) removes a solution: exhaustive brute force on minifloats, sampled on f32/f64.

mod common;

use common::{all_values, domain_around, index, random_domain, random_value, values, MODES};
use fpscout_fpsolve::project::binary::project_binary;
use fpscout_fpsolve::project::minmax::project_min_max;
use fpscout_fpsolve::{Arith, BinaryOp, FloatDomain, FloatValue, Format, MinMaxOp};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const OPS: [BinaryOp; 4] = [
    BinaryOp::FAdd,
    BinaryOp::FSub,
    BinaryOp::FMul,
    BinaryOp::FDiv,
];

/// A ternary relation `r = f(a, b)` over one format, precomputed for every pair of values.
struct Table {
    format: Format,
    width: usize,
    results: Vec<FloatValue>,
}

impl Table {
    fn new(format: Format, f: impl Fn(FloatValue, FloatValue) -> FloatValue) -> Table {
        let all = all_values(format);
        let results = all
            .iter()
            .flat_map(|&a| all.iter().map(move |&b| (a, b)))
            .map(|(a, b)| f(a, b))
            .collect();
        Table {
            format,
            width: all.len(),
            results,
        }
    }

    fn get(&self, a: FloatValue, b: FloatValue) -> FloatValue {
        self.results[index(self.format, a) * self.width + index(self.format, b)]
    }
}

type Projection<'a> = dyn Fn(&FloatDomain, &FloatDomain, &FloatDomain) -> Option<(FloatDomain, FloatDomain, FloatDomain)>
    + 'a;

/// Brute force: every solution inside the boxes is inside the projected boxes. Returns the
/// number of solutions checked.
fn check_box(
    table: &Table,
    project: &Projection,
    a: &FloatDomain,
    b: &FloatDomain,
    r: &FloatDomain,
    what: &str,
) -> usize {
    let projected = project(a, b, r);
    let mut solutions = 0;
    for x in values(a) {
        for y in values(b) {
            let z = table.get(x, y);
            if !r.contains(z) {
                continue;
            }
            solutions += 1;
            let Some((pa, pb, pr)) = &projected else {
                panic!("{what}: projection emptied {a:?} {b:?} {r:?} but ({x:?}, {y:?}) ↦ {z:?} is a solution");
            };
            assert!(
                pa.contains(x) && pb.contains(y) && pr.contains(z),
                "{what}: solution ({x:?}, {y:?}) ↦ {z:?} lost from {a:?} {b:?} {r:?} → {projected:?}"
            );
        }
    }
    solutions
}

/// Exhaustive over 8-bit minifloat values, random boxes, every op and FTZ/DAZ mode.
#[test]
fn arithmetic_projections_keep_every_solution_mini8() {
    let format = Format::MINI8;
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut total = 0;
    for mode in MODES {
        for op in OPS {
            let table = Table::new(format, |a, b| mode.binary(op, format, a, b));
            let project = |a: &FloatDomain, b: &FloatDomain, r: &FloatDomain| {
                project_binary(op, mode, a, b, r)
            };
            for _ in 0..600 {
                let (a, b, r) = (
                    random_domain(&mut rng, format),
                    random_domain(&mut rng, format),
                    random_domain(&mut rng, format),
                );
                total += check_box(&table, &project, &a, &b, &r, &format!("{op:?} {mode:?}"));
            }
            // Boxes around known solutions, so that most boxes have some.
            for _ in 0..300 {
                let (x, y) = (
                    random_value(&mut rng, format),
                    random_value(&mut rng, format),
                );
                let z = table.get(x, y);
                let (a, b, r) = (
                    domain_around(&mut rng, format, x),
                    domain_around(&mut rng, format, y),
                    domain_around(&mut rng, format, z),
                );
                total += check_box(&table, &project, &a, &b, &r, &format!("{op:?} {mode:?}"));
            }
        }
    }
    assert!(total > 1_000_000, "only {total} solutions checked");
}

/// Direct projection of points is the exact result, for every pair of 8-bit values; with one
/// operand and the result points, the other operand is narrowed to exactly the hull of its
/// solutions (the FPSE indirect projection loses nothing and keeps nothing extra here).
#[test]
fn arithmetic_projections_are_exact_on_points_mini8() {
    let format = Format::MINI8;
    let all = all_values(format);
    let full = FloatDomain::full(format);
    for op in OPS {
        let table = Table::new(format, |a, b| Arith::IEEE.binary(op, format, a, b));
        for &x in &all {
            for &y in &all {
                let (a, b) = (FloatDomain::point(format, x), FloatDomain::point(format, y));
                let projected = project_binary(op, Arith::IEEE, &a, &b, &full).map(|p| p.2);
                assert_eq!(
                    projected,
                    Some(FloatDomain::point(format, table.get(x, y))),
                    "{op:?} {x:?} {y:?}"
                );
            }
        }
        // Results sampled per operand value: half of them results some operand reaches.
        let mut rng = ChaCha8Rng::seed_from_u64(80);
        for &y in &all {
            for sample in 0..24 {
                let z = if sample % 2 == 0 {
                    table.get(all[rng.gen_range(0..all.len())], y)
                } else {
                    all[rng.gen_range(0..all.len())]
                };
                let (b, r) = (FloatDomain::point(format, y), FloatDomain::point(format, z));
                let hull_of = |solutions: Vec<FloatValue>| {
                    solutions
                        .into_iter()
                        .fold(FloatDomain::empty(format), |h, x| {
                            h.hull(&FloatDomain::point(format, x))
                        })
                };
                let hull_a = hull_of(
                    all.iter()
                        .copied()
                        .filter(|&x| table.get(x, y) == z)
                        .collect(),
                );
                let projected_a = project_binary(op, Arith::IEEE, &full, &b, &r).map(|p| p.0);
                assert_eq!(
                    projected_a.unwrap_or(FloatDomain::empty(format)),
                    hull_a,
                    "{op:?} a with b = {y:?}, r = {z:?}"
                );
                let hull_b = hull_of(
                    all.iter()
                        .copied()
                        .filter(|&x| table.get(y, x) == z)
                        .collect(),
                );
                let projected_b = project_binary(op, Arith::IEEE, &b, &full, &r).map(|p| p.1);
                assert_eq!(
                    projected_b.unwrap_or(FloatDomain::empty(format)),
                    hull_b,
                    "{op:?} b with a = {y:?}, r = {z:?}"
                );
            }
        }
    }
}

#[test]
fn min_max_projections_keep_every_solution_mini8() {
    let format = Format::MINI8;
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for mode in MODES {
        for op in [MinMaxOp::Min, MinMaxOp::Max] {
            let table = Table::new(format, |a, b| match op {
                MinMaxOp::Min => mode.fmin(format, a, b),
                MinMaxOp::Max => mode.fmax(format, a, b),
            });
            let project = |a: &FloatDomain, b: &FloatDomain, r: &FloatDomain| {
                project_min_max(op, mode, a, b, r)
            };
            for _ in 0..800 {
                let (a, b, r) = (
                    random_domain(&mut rng, format),
                    random_domain(&mut rng, format),
                    random_domain(&mut rng, format),
                );
                check_box(&table, &project, &a, &b, &r, &format!("{op:?} {mode:?}"));
            }
        }
    }
}

/// SSE semantics: the second operand on NaN and on equal values.
#[test]
fn min_max_follow_sse() {
    let format = Format::F32;
    let v = |x: f32| format.from_f64(f64::from(x));
    let arith = Arith::IEEE;
    assert_eq!(arith.fmin(format, v(f32::NAN), v(1.0)), v(1.0));
    assert_eq!(arith.fmin(format, v(1.0), v(f32::NAN)), FloatValue::NaN);
    assert_eq!(arith.fmin(format, v(-0.0), v(0.0)), v(0.0));
    assert_eq!(arith.fmax(format, v(0.0), v(-0.0)), v(-0.0));
    assert_eq!(arith.fmax(format, v(2.0), v(1.0)), v(2.0));
}

/// 10-bit minifloat: random boxes, brute force over sampled pairs.
#[test]
fn arithmetic_projections_keep_sampled_solutions_mini10() {
    let format = Format::MINI10;
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    for mode in MODES {
        for op in OPS {
            let project = |a: &FloatDomain, b: &FloatDomain, r: &FloatDomain| {
                project_binary(op, mode, a, b, r)
            };
            for _ in 0..100 {
                let (x, y) = (
                    random_value(&mut rng, format),
                    random_value(&mut rng, format),
                );
                let z = mode.binary(op, format, x, y);
                let (a, b, r) = (
                    domain_around(&mut rng, format, x),
                    domain_around(&mut rng, format, y),
                    domain_around(&mut rng, format, z),
                );
                let projected = project(&a, &b, &r);
                let (va, vb) = (values(&a), values(&b));
                for _ in 0..1500 {
                    let (x, y) = (
                        va[rng.gen_range(0..va.len())],
                        vb[rng.gen_range(0..vb.len())],
                    );
                    let z = mode.binary(op, format, x, y);
                    if r.contains(z) {
                        let (pa, pb, pr) = projected.as_ref().expect("solution exists");
                        assert!(
                            pa.contains(x) && pb.contains(y) && pr.contains(z),
                            "{op:?} {mode:?} ({x:?},{y:?})↦{z:?} lost"
                        );
                    }
                }
            }
        }
    }
}

/// f32 and f64: boxes around a random solution keep it.
#[test]
fn arithmetic_projections_keep_random_solutions_f32_f64() {
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    for format in [Format::F32, Format::F64] {
        for mode in MODES {
            for op in OPS {
                for _ in 0..250 {
                    let (x, y) = (
                        random_value(&mut rng, format),
                        random_value(&mut rng, format),
                    );
                    let z = mode.binary(op, format, x, y);
                    let (a, b, r) = (
                        domain_around(&mut rng, format, x),
                        domain_around(&mut rng, format, y),
                        domain_around(&mut rng, format, z),
                    );
                    let projected = project_binary(op, mode, &a, &b, &r);
                    let Some((pa, pb, pr)) = projected else {
                        panic!("{format:?} {op:?} {mode:?} emptied around ({x:?},{y:?})↦{z:?}")
                    };
                    assert!(
                        pa.contains(x) && pb.contains(y) && pr.contains(z),
                        "{format:?} {op:?} {mode:?} ({x:?},{y:?})↦{z:?} lost"
                    );
                }
            }
        }
    }
}
