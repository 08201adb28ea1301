//! Affine forms are sound (every in-domain point's values and differences lie in the forms' ranges, no refuted box holds a solution), and they refute the relational corpus programs.

mod common;

use common::MODES;
use fpscout_fpsolve::affine::{affine_forms, bound, AffineForm, Bounding};
use fpscout_fpsolve::{
    solve, Answer, Arith, BinaryOp, Domain, FcmpPredicate, FloatDomain, FloatValue, Format, Fp,
    MinMaxOp, Network, Propagation, SearchConfig, Value, VarId,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rug::Rational;

/// A small network over two inputs of `format`, with its inputs.
type Shape = fn(Arith, Format) -> (Network, Vec<VarId>);

fn two_inputs(arith: Arith, format: Format) -> (Network, VarId, VarId) {
    let mut net = Network::new(arith);
    let x = net.float_var("x", format);
    let y = net.float_var("y", format);
    (net, x, y)
}

/// (x ⊕ y) ⊖ x, (x ⊕ y) ⊖ y and the two differences of the results.
fn sums(arith: Arith, format: Format) -> (Network, Vec<VarId>) {
    let (mut net, x, y) = two_inputs(arith, format);
    let s = net.fadd(x, y).expect("same format");
    let u = net.fsub(s, x).expect("same format");
    let w = net.fsub(y, s).expect("same format");
    net.fadd(u, w).expect("same format");
    (net, vec![x, y])
}

/// (x ⊗ y) ⊘ y, x ⊘ (x ⊖ y) and x ⊗ x.
fn products(arith: Arith, format: Format) -> (Network, Vec<VarId>) {
    let (mut net, x, y) = two_inputs(arith, format);
    let p = net.fmul(x, y).expect("same format");
    net.fdiv(p, y).expect("same format");
    let d = net.fsub(x, y).expect("same format");
    net.fdiv(x, d).expect("same format");
    net.fmul(x, x).expect("same format");
    (net, vec![x, y])
}

/// sqrt(x ⊗ x), sqrt(y) ⊗ sqrt(y), 3 ⊘ y.
fn roots(arith: Arith, format: Format) -> (Network, Vec<VarId>) {
    let (mut net, x, y) = two_inputs(arith, format);
    let p = net.fmul(x, x).expect("same format");
    net.sqrt(p).expect("same format");
    let r = net.sqrt(y).expect("same format");
    net.fmul(r, r).expect("same format");
    let three = net.float_const_f64(format, 3.0);
    net.fdiv(three, y).expect("same format");
    (net, vec![x, y])
}

/// Scalings by powers of two and constants, fabs, fneg, min, max of a difference.
fn scalings(arith: Arith, format: Format) -> (Network, Vec<VarId>) {
    let (mut net, x, y) = two_inputs(arith, format);
    let half = net.float_const_f64(format, 0.5);
    let two = net.float_const_f64(format, 2.0);
    let three = net.float_const_f64(format, 3.0);
    let a = net.fmul(x, half).expect("same format");
    let b = net.fdiv(y, two).expect("same format");
    let m = net.fadd(a, b).expect("same format");
    net.fmul(m, three).expect("same format");
    let d = net.fsub(x, y).expect("same format");
    net.fabs(d).expect("same format");
    net.fneg(d).expect("same format");
    net.min_max(MinMaxOp::Min, x, y).expect("same format");
    net.min_max(MinMaxOp::Max, a, y).expect("same format");
    (net, vec![x, y])
}

/// Conversions: (wide)(x ⊖ y) and (wide)x ⊖ (wide)y, then back to `format`.
fn conversions(arith: Arith, format: Format) -> (Network, Vec<VarId>) {
    let wide = wider(format);
    let (mut net, x, y) = two_inputs(arith, format);
    let d = net.fsub(x, y).expect("same format");
    net.float_convert(d, wide).expect("float");
    let wx = net.float_convert(x, wide).expect("float");
    let wy = net.float_convert(y, wide).expect("float");
    let wd = net.fsub(wx, wy).expect("same format");
    let q = net.fmul(wx, wy).expect("same format");
    net.float_convert(q, format).expect("float");
    net.float_convert(wd, format).expect("float");
    (net, vec![x, y])
}

fn wider(format: Format) -> Format {
    if format == Format::MINI8 {
        Format::MINI10
    } else if format == Format::F32 {
        Format::F64
    } else {
        // binary64 has no wider supported format: converting to itself is the exact case.
        Format::F64
    }
}

/// Midpoints, roots, differences and negations of both inputs (order facts carry through these).
fn averages(arith: Arith, format: Format) -> (Network, Vec<VarId>) {
    let (mut net, x, y) = two_inputs(arith, format);
    let s = net.fadd(x, y).expect("same format");
    let two = net.float_const_f64(format, 2.0);
    net.fdiv(s, two).expect("same format");
    net.sqrt(x).expect("same format");
    net.sqrt(y).expect("same format");
    net.fsub(x, y).expect("same format");
    net.fsub(y, x).expect("same format");
    net.fneg(x).expect("same format");
    net.fneg(y).expect("same format");
    (net, vec![x, y])
}

/// Truncations converted back: x ⊖ y ⊗ (float)(int)(x ⊘ y) (a remainder, C's range
/// reduction) and x ⊖ (float)(int)x (a fractional part).
fn truncations(arith: Arith, format: Format) -> (Network, Vec<VarId>) {
    let (mut net, x, y) = two_inputs(arith, format);
    let q = net.fdiv(x, y).expect("same format");
    let k = net.float_to_int(q, 16, true).expect("a conversion");
    let t = net.int_to_float(k, format).expect("a conversion");
    let m = net.fmul(y, t).expect("same format");
    net.fsub(x, m).expect("same format");
    let j = net.float_to_int(x, 16, true).expect("a conversion");
    let u = net.int_to_float(j, format).expect("a conversion");
    net.fsub(x, u).expect("same format");
    (net, vec![x, y])
}

const SHAPES: [(&str, Shape); 7] = [
    ("truncations", truncations),
    ("averages", averages),
    ("sums", sums),
    ("products", products),
    ("roots", roots),
    ("scalings", scalings),
    ("conversions", conversions),
];

/// A random finite, NaN-free range of keys: a point, a few floats, or wide; one sign or both.
fn random_box(rng: &mut ChaCha8Rng, format: Format) -> FloatDomain {
    let max = format.max_finite().0;
    let widths = [0i64, 1, 3, 12, 40, 1 << 10, 1 << 20, 1 << 40, i64::MAX];
    let width = widths[rng.gen_range(0..widths.len())];
    let centre = match rng.gen_range(0..4) {
        0 => rng.gen_range(-1i64..=0),
        1 => format.min_normal().0 * if rng.gen_bool(0.5) { 1 } else { -1 },
        _ => rng.gen_range(-max - 1..=max),
    };
    let lo = centre.saturating_sub(rng.gen_range(0..=width / 2 + 1).min(width));
    let hi = lo.saturating_add(width);
    FloatDomain::new(format, Fp(lo.max(-max - 1)), Fp(hi.min(max)), false)
}

fn rational(value: Option<Value>, domain: &Domain) -> Option<Rational> {
    match (value?, domain) {
        (Value::Float(FloatValue::Num(x)), Domain::Float(d)) => d.format().to_rational(x),
        _ => None,
    }
}

/// The propagated box of a network with the inputs restricted, or `None` when empty.
fn boxed(net: &Network, inputs: &[VarId], boxes: &[FloatDomain]) -> Option<Network> {
    let mut net = net.clone();
    for (&v, d) in inputs.iter().zip(boxes) {
        net.restrict(v, Domain::Float(d.clone()))
            .expect("float input");
    }
    (net.propagate(100_000) != Propagation::Infeasible).then_some(net)
}

/// Checks one point: when its evaluation stays in the domains, every formed variable's
/// value lies in its form's range and every two formed variables' difference in the range
/// of their forms' difference. Returns whether the point was in the domains.
fn check_point(
    net: &Network,
    inputs: &[VarId],
    forms: &[Option<AffineForm>],
    differences: &[(usize, usize, (Rational, Rational))],
    point: &[FloatValue],
    what: &str,
) -> bool {
    let mut values: Vec<Option<Value>> = net
        .domains()
        .iter()
        .enumerate()
        .map(|(i, d)| {
            (!net.is_defined(VarId::from_index(i)))
                .then(|| d.as_point())
                .flatten()
        })
        .collect();
    for (&v, &x) in inputs.iter().zip(point) {
        values[v.index()] = Some(Value::Float(x));
    }
    if net.evaluate(&mut values) != Some(true) {
        return false;
    }
    let reals: Vec<Option<Rational>> = values
        .iter()
        .zip(net.domains())
        .map(|(v, d)| rational(*v, d))
        .collect();
    for (i, form) in forms.iter().enumerate() {
        let Some(form) = form else { continue };
        let value = reals[i]
            .clone()
            .unwrap_or_else(|| panic!("{what}: formed variable {i} has no finite value"));
        let (lo, hi) = form.range();
        assert!(
            lo <= value && value <= hi,
            "{what}: variable {i} = {value} outside its form's range [{lo}, {hi}] at {point:?}"
        );
    }
    for (i, j, (lo, hi)) in differences {
        let (Some(a), Some(b)) = (&reals[*i], &reals[*j]) else {
            continue;
        };
        let d = Rational::from(a - b);
        assert!(
            *lo <= d && d <= *hi,
            "{what}: v{i} - v{j} = {d} outside [{lo}, {hi}] at {point:?}"
        );
    }
    true
}

fn pairwise(forms: &[Option<AffineForm>]) -> Vec<(usize, usize, (Rational, Rational))> {
    let mut out = Vec::new();
    for (i, a) in forms.iter().enumerate() {
        for (j, b) in forms.iter().enumerate().skip(i + 1) {
            if let (Some(a), Some(b)) = (a, b) {
                out.push((i, j, a.minus(b).range()));
            }
        }
    }
    out
}

fn box_points(boxes: &[FloatDomain]) -> Vec<Vec<FloatValue>> {
    let mut points = vec![Vec::new()];
    for d in boxes {
        let (lo, hi) = d.range().expect("nonempty box");
        let mut next = Vec::new();
        for p in &points {
            for k in lo.0..=hi.0 {
                let mut q = p.clone();
                q.push(FloatValue::Num(Fp(k)));
                next.push(q);
            }
        }
        points = next;
    }
    points
}

/// Every point of many boxes of two 8-bit minifloats, in every FTZ/DAZ mode.
#[test]
fn forms_enclose_every_point_mini8() {
    let format = Format::MINI8;
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let (mut formed, mut exact_pairs, mut points_checked) = (0usize, 0usize, 0usize);
    for (name, shape) in SHAPES {
        for arith in MODES {
            let (net, inputs) = shape(arith, format);
            for _ in 0..150 {
                let boxes: Vec<FloatDomain> = inputs
                    .iter()
                    .map(|_| {
                        let mut b = random_box(&mut rng, format);
                        // Keep the exhaustive loop small: at most 64 floats per input.
                        if let Some((lo, hi)) = b.range() {
                            b = b.clamp(lo, Fp(hi.0.min(lo.0 + 63)));
                        }
                        b
                    })
                    .collect();
                let Some(boxed) = boxed(&net, &inputs, &boxes) else {
                    continue;
                };
                let forms = affine_forms(&boxed, boxed.domains());
                formed += forms.iter().flatten().count();
                let differences = pairwise(&forms);
                exact_pairs += differences
                    .iter()
                    .filter(|(_, _, (lo, hi))| lo == hi)
                    .count();
                let what = format!("{name} {arith:?} {boxes:?}");
                for point in box_points(&boxes) {
                    if check_point(&boxed, &inputs, &forms, &differences, &point, &what) {
                        points_checked += 1;
                    }
                }
            }
        }
    }
    // The test must exercise the forms, not skip them.
    assert!(formed > 5_000, "only {formed} forms");
    assert!(
        exact_pairs > 500,
        "only {exact_pairs} exactly known differences"
    );
    assert!(points_checked > 100_000, "only {points_checked} points");
}

/// Random points of random boxes in binary32 and binary64 (IEEE and FTZ+DAZ).
#[test]
fn forms_enclose_sampled_points_f32_f64() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let mut points_checked = 0usize;
    for format in [Format::F32, Format::F64] {
        for (name, shape) in SHAPES {
            for arith in [Arith::IEEE, MODES[3]] {
                let (net, inputs) = shape(arith, format);
                for _ in 0..60 {
                    let boxes: Vec<FloatDomain> = inputs
                        .iter()
                        .map(|_| random_box(&mut rng, format))
                        .collect();
                    let Some(boxed) = boxed(&net, &inputs, &boxes) else {
                        continue;
                    };
                    let forms = affine_forms(&boxed, boxed.domains());
                    let differences = pairwise(&forms);
                    let what = format!("{name} {format:?} {arith:?} {boxes:?}");
                    for _ in 0..200 {
                        let point: Vec<FloatValue> = boxed_inputs(&boxed, &inputs)
                            .iter()
                            .map(|(lo, hi)| FloatValue::Num(Fp(rng.gen_range(lo.0..=hi.0))))
                            .collect();
                        if check_point(&boxed, &inputs, &forms, &differences, &point, &what) {
                            points_checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(points_checked > 50_000, "only {points_checked} points");
}

fn boxed_inputs(net: &Network, inputs: &[VarId]) -> Vec<(Fp, Fp)> {
    inputs
        .iter()
        .map(|&v| {
            net.float_domain(v)
                .expect("float")
                .range()
                .expect("propagated box is not empty")
        })
        .collect()
}

/// No box that `bound` refutes holds a solution, and its narrowing keeps every solution:
/// every shape, under a random first comparison (a source of order facts), with a second
/// comparison of every pair of its variables by every predicate, exhaustively.
#[test]
fn bound_never_removes_a_solution_mini8() {
    let format = Format::MINI8;
    let mut rng = ChaCha8Rng::seed_from_u64(19);
    let (mut refuted, mut narrowed, mut cases) = (0usize, 0usize, 0usize);
    for (name, shape) in SHAPES {
        for arith in MODES {
            for _ in 0..12 {
                let (mut net, inputs) = shape(arith, format);
                let variables: Vec<VarId> = (0..net.variable_count())
                    .map(VarId::from_index)
                    .filter(|&v| {
                        net.float_domain(v)
                            .is_ok_and(|d| d.format() == format && d.as_point().is_none())
                    })
                    .collect();
                let pick = |rng: &mut ChaCha8Rng| variables[rng.gen_range(0..variables.len())];
                let (a, b) = (pick(&mut rng), pick(&mut rng));
                let predicate = FcmpPredicate::ALL[rng.gen_range(0..FcmpPredicate::ALL.len())];
                net.require(predicate, a, b, true).expect("same format");
                let boxes: Vec<FloatDomain> = inputs
                    .iter()
                    .map(|_| {
                        let b = random_box(&mut rng, format);
                        let (lo, hi) = b.range().expect("nonempty");
                        b.clamp(lo, Fp(hi.0.min(lo.0 + 15)))
                    })
                    .collect();
                let Some(boxed) = boxed(&net, &inputs, &boxes) else {
                    continue;
                };
                let solutions: Vec<Vec<Option<Value>>> = box_points(&boxes)
                    .into_iter()
                    .filter_map(|point| {
                        let mut values: Vec<Option<Value>> = boxed
                            .domains()
                            .iter()
                            .enumerate()
                            .map(|(i, d)| {
                                (!boxed.is_defined(VarId::from_index(i)))
                                    .then(|| d.as_point())
                                    .flatten()
                            })
                            .collect();
                        for (&v, &x) in inputs.iter().zip(&point) {
                            values[v.index()] = Some(Value::Float(x));
                        }
                        (boxed.evaluate(&mut values) == Some(true)).then_some(values)
                    })
                    .collect();
                let float = |value: Option<Value>| match value {
                    Some(Value::Float(x)) => x,
                    _ => FloatValue::NaN,
                };
                for &u in &variables {
                    for &v in &variables {
                        if u == v {
                            continue;
                        }
                        for second in FcmpPredicate::ALL {
                            let mut with = boxed.clone();
                            with.require(second, u, v, true).expect("same format");
                            let mut domains = with.domains().to_vec();
                            let outcome = bound(&with, &mut domains);
                            cases += 1;
                            for values in &solutions {
                                let (x, y) = (float(values[u.index()]), float(values[v.index()]));
                                if !arith.compare(second, format, x, y) {
                                    continue;
                                }
                                assert_ne!(
                                    outcome,
                                    Bounding::Refuted,
                                    "{name} {arith:?} {:?}: refuted a box holding {values:?}",
                                    with.constraints()
                                );
                                for (value, domain) in values.iter().zip(&domains) {
                                    let inside = match (value, domain) {
                                        (Some(Value::Float(x)), Domain::Float(d)) => d.contains(*x),
                                        _ => true,
                                    };
                                    assert!(
                                        inside,
                                        "{name} {arith:?} {:?}: narrowing lost {values:?}",
                                        with.constraints()
                                    );
                                }
                            }
                            match outcome {
                                Bounding::Refuted => refuted += 1,
                                Bounding::Narrowed(_) => narrowed += 1,
                                Bounding::Unchanged => {}
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(refuted > 500, "only {refuted} refutations in {cases} cases");
    assert!(
        narrowed > 500,
        "only {narrowed} narrowings in {cases} cases"
    );
}

/// SV-COMP's sin_interpolated: y = x - 360·(double)(int)((x + 180) / 360) lies in
/// [-180, 180] (and a few ulps) for every x in [180, 1e10], which intervals cannot see (y
/// spans billions there); the affine bound narrows y to it, and every sampled x's y stays
/// inside.
#[test]
fn a_range_reduction_through_an_integer_is_bounded_relationally() {
    let format = Format::F64;
    let mut net = Network::new(Arith::IEEE);
    let x = net.float_var("x", format);
    net.restrict(x, Domain::Float(FloatDomain::between(format, 180.0, 1e10)))
        .expect("a float");
    let c180 = net.float_const_f64(format, 180.0);
    let c360 = net.float_const_f64(format, 360.0);
    let s = net.fadd(x, c180).expect("same format");
    let u = net.fdiv(s, c360).expect("same format");
    let k = net.float_to_int(u, 32, true).expect("a conversion");
    let t = net.int_to_float(k, format).expect("a conversion");
    let m = net.fmul(c360, t).expect("same format");
    let y = net.fsub(x, m).expect("same format");
    assert_ne!(net.propagate(100_000), Propagation::Infeasible);
    let wide = net.float_domain(y).expect("a float").clone();
    let mut domains = net.domains().to_vec();
    assert!(matches!(bound(&net, &mut domains), Bounding::Narrowed(_)));
    let Domain::Float(narrow) = &domains[y.index()] else {
        panic!("a float")
    };
    let (lo, hi) = narrow.range().expect("not empty");
    let (lo, hi) = (format.to_f64(lo), format.to_f64(hi));
    assert!(
        -181.0 < lo && hi < 181.0,
        "y in [{lo}, {hi}], from {wide:?}"
    );
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    for _ in 0..100_000 {
        let a: f64 = if rng.gen_bool(0.5) {
            rng.gen_range(180.0..1e10)
        } else {
            // Near the multiples of 360 offset by 180, where the integer changes.
            let n: f64 = rng.gen_range(1.0..2.7e7f64).floor();
            360.0 * n - 180.0 + rng.gen_range(-1e-3..1e-3)
        };
        if !(180.0..=1e10).contains(&a) {
            continue;
        }
        let reduced = a - 360.0 * (((a + 180.0) / 360.0) as i32) as f64;
        assert!(
            lo <= reduced && reduced <= hi,
            "{a}: {reduced} outside [{lo}, {hi}]"
        );
    }
}

/// The theorem the sqrt rule relies on: sqrt(RN(x·x)) = |x| whenever RN(x·x) is a finite
/// normal number, for every x of many small binary formats (precision 2 to 9), every mode.
#[test]
fn sqrt_of_rounded_square_is_the_magnitude_exhaustive() {
    let mut cases = 0usize;
    for exponent_bits in 3..=6 {
        for fraction_bits in 1..=8 {
            let format = Format::new(exponent_bits, fraction_bits).expect("small format");
            let min_normal = format.to_rational(format.min_normal()).expect("finite");
            for arith in MODES {
                for key in format.neg_inf().0..=format.pos_inf().0 {
                    let x = FloatValue::Num(Fp(key));
                    let square = arith.binary_exact(BinaryOp::FMul, format, x, x);
                    let FloatValue::Num(p) = square else { continue };
                    let Some(value) = format.to_rational(p) else {
                        continue;
                    };
                    if value < min_normal {
                        continue;
                    }
                    let root = arith.fsqrt_exact(format, square);
                    assert_eq!(
                        root,
                        arith.fabs(format, x),
                        "{format:?} {arith:?}: sqrt(RN({key:?}²))"
                    );
                    cases += 1;
                }
            }
        }
    }
    assert!(cases > 100_000, "only {cases} cases");
}

fn ranged(net: &mut Network, format: Format, name: &str, lo: f64, hi: f64) -> VarId {
    net.float_var_in(name, FloatDomain::between(format, lo, hi))
}

/// The search with the affine bound, or without it (a budget the unbounded search
/// exhausts on these programs without an answer).
fn config(affine: bool) -> SearchConfig {
    SearchConfig {
        node_budget: if affine { 20_000 } else { 2_000 },
        affine,
        ..SearchConfig::default()
    }
}

/// `(double)(x - y) != (double)x - (double)y` for x, y in [1, 2] (bench/reach/sterbenz_exact.c).
fn sterbenz(x_hi: f64) -> Network {
    let (f, d) = (Format::F32, Format::F64);
    let mut net = Network::new(Arith::IEEE);
    let x = ranged(&mut net, f, "x", 1.0, x_hi);
    let y = ranged(&mut net, f, "y", 1.0, 2.0);
    let diff = net.fsub(x, y).expect("same format");
    let wide_diff = net.float_convert(diff, d).expect("float");
    let (wx, wy) = (
        net.float_convert(x, d).expect("float"),
        net.float_convert(y, d).expect("float"),
    );
    let diff_wide = net.fsub(wx, wy).expect("same format");
    net.require(FcmpPredicate::Une, wide_diff, diff_wide, true)
        .expect("same format");
    net
}

#[test]
fn sterbenz_exact_is_refuted_and_its_control_has_a_witness() {
    let refuted = solve(&sterbenz(2.0), &config(true));
    assert_eq!(refuted.answer, Answer::Infeasible);
    assert_eq!(refuted.nodes, 1, "refuted at the root box");
    assert!(matches!(
        solve(&sterbenz(2.0), &config(false)).answer,
        Answer::Unknown(_)
    ));
    // x up to 4: x - y is no longer exact, and a witness exists.
    let control = solve(&sterbenz(4.0), &config(true));
    let Answer::Solution(witness) = control.answer else {
        panic!("no witness: {:?}", control.answer);
    };
    assert_eq!(sterbenz(4.0).check(witness.values()), Ok(true));
}

/// `sqrt(x*x) != x` for x in [lo, hi] (sqrt_square_exact.c, dbl_sqrt_square.c).
fn sqrt_square(format: Format, lo: f64, hi: f64) -> Network {
    let mut net = Network::new(Arith::IEEE);
    let x = ranged(&mut net, format, "x", lo, hi);
    let square = net.fmul(x, x).expect("same format");
    let root = net.sqrt(square).expect("same format");
    net.require(FcmpPredicate::Une, root, x, true)
        .expect("same format");
    net
}

#[test]
fn sqrt_square_exact_is_refuted_in_binary32_and_binary64() {
    for (format, lo, hi) in [
        (Format::F32, 2f64.powi(-63), 2f64.powi(63)),
        (Format::F64, 2f64.powi(-500), 2f64.powi(500)),
    ] {
        let net = sqrt_square(format, lo, hi);
        assert_eq!(solve(&net, &config(true)).answer, Answer::Infeasible);
        assert!(matches!(
            solve(&net, &config(false)).answer,
            Answer::Unknown(_)
        ));
    }
    // Where x*x underflows the rule does not apply, and the witness is found.
    let underflow = sqrt_square(Format::F32, 2f64.powi(-149), 2f64.powi(-63));
    assert!(matches!(
        solve(&underflow, &config(true)).answer,
        Answer::Solution(_)
    ));
}

/// `0 + x != x` and `x - 0 != x` over every finite double (float-no-simp2.i): adding a zero
/// is exact, so the two forms are equal and the disequality has no solution; `x + 0.5 != x`
/// keeps its witnesses.
#[test]
fn adding_a_zero_is_exact() {
    let f = Format::F64;
    let sum_with = |constant: f64, subtract: bool| {
        let mut net = Network::new(Arith::IEEE);
        let x = ranged(&mut net, f, "x", -f64::MAX, f64::MAX);
        let k = net.float_const_f64(f, constant);
        let sum = if subtract {
            net.fsub(x, k)
        } else {
            net.fadd(k, x)
        }
        .expect("same format");
        net.require(FcmpPredicate::Une, sum, x, true)
            .expect("same format");
        net
    };
    for subtract in [false, true] {
        let report = solve(&sum_with(0.0, subtract), &config(true));
        assert_eq!(report.answer, Answer::Infeasible, "subtract {subtract}");
        assert!(matches!(
            solve(&sum_with(0.0, subtract), &config(false)).answer,
            Answer::Unknown(_)
        ));
    }
    let control = sum_with(0.5, false);
    let Answer::Solution(witness) = solve(&control, &config(true)).answer else {
        panic!("x + 0.5 != x has witnesses");
    };
    assert_eq!(control.check(witness.values()), Ok(true));
}

/// `|((a+b)+c) - (a+(b+c))| > bound` for a, b, c in [1, 2] (assoc_add_bound.c).
fn assoc(bound: f32) -> Network {
    let f = Format::F32;
    let mut net = Network::new(Arith::IEEE);
    let a = ranged(&mut net, f, "a", 1.0, 2.0);
    let b = ranged(&mut net, f, "b", 1.0, 2.0);
    let c = ranged(&mut net, f, "c", 1.0, 2.0);
    let ab = net.fadd(a, b).expect("same format");
    let left = net.fadd(ab, c).expect("same format");
    let bc = net.fadd(b, c).expect("same format");
    let right = net.fadd(a, bc).expect("same format");
    let diff = net.fsub(left, right).expect("same format");
    let magnitude = net.fabs(diff).expect("same format");
    let limit = net.float_const_f64(f, f64::from(bound));
    net.require(FcmpPredicate::Ogt, magnitude, limit, true)
        .expect("same format");
    net
}

#[test]
fn assoc_add_bound_is_refuted_and_the_tight_bound_is_not() {
    let report = solve(&assoc(8e-7), &config(true));
    assert_eq!(report.answer, Answer::Infeasible);
    assert_eq!(report.nodes, 1);
    assert!(matches!(
        solve(&assoc(8e-7), &config(false)).answer,
        Answer::Unknown(_)
    ));
    // 4e-7 < 2^-21: assoc_add_tight.c's witness exists, the bound must not refute it.
    let budget = SearchConfig {
        node_budget: 2_000,
        ..config(true)
    };
    let tight = solve(&assoc(4e-7), &budget);
    assert!(
        !matches!(tight.answer, Answer::Infeasible),
        "{:?}",
        tight.answer
    );
}

/// The stable quadratic root of dbl_quadratic_stable.c: |root·b + 1| > 1e-3.
#[test]
fn dbl_quadratic_stable_is_refuted() {
    let f = Format::F64;
    let mut net = Network::new(Arith::IEEE);
    let b = ranged(&mut net, f, "b", 1e8, 1e9);
    let square = net.fmul(b, b).expect("same format");
    let four = net.float_const_f64(f, 4.0);
    let discriminant = net.fsub(square, four).expect("same format");
    let root_d = net.sqrt(discriminant).expect("same format");
    let sum = net.fadd(b, root_d).expect("same format");
    let minus_two = net.float_const_f64(f, -2.0);
    let root = net.fdiv(minus_two, sum).expect("same format");
    let product = net.fmul(root, b).expect("same format");
    let one = net.float_const_f64(f, 1.0);
    let residual = net.fadd(product, one).expect("same format");
    let magnitude = net.fabs(residual).expect("same format");
    let limit = net.float_const_f64(f, 1e-3);
    net.require(FcmpPredicate::Ogt, magnitude, limit, true)
        .expect("same format");
    assert_eq!(solve(&net, &config(true)).answer, Answer::Infeasible);
    assert!(matches!(
        solve(&net, &config(false)).answer,
        Answer::Unknown(_)
    ));
}

/// `x <= y` (both finite, x >= 0) and `sqrtf(x) > sqrtf(y)` (sqrt_monotone.c).
#[test]
fn sqrt_monotone_is_refuted_by_order_facts() {
    let f = Format::F32;
    let mut net = Network::new(Arith::IEEE);
    let x = net.float_var("x", f);
    let y = net.float_var("y", f);
    let zero = net.float_const_f64(f, 0.0);
    let max = net.float_const_f64(f, f64::from(f32::MAX));
    net.require(FcmpPredicate::Oge, x, zero, true)
        .expect("same format");
    net.require(FcmpPredicate::Ole, y, max, true)
        .expect("same format");
    net.require(FcmpPredicate::Ole, x, y, true)
        .expect("same format");
    let (rx, ry) = (
        net.sqrt(x).expect("same format"),
        net.sqrt(y).expect("same format"),
    );
    net.require(FcmpPredicate::Ogt, rx, ry, true)
        .expect("same format");
    let report = solve(&net, &config(true));
    assert_eq!(report.answer, Answer::Infeasible);
    assert_eq!(report.nodes, 1, "refuted at the root box");
    assert!(matches!(
        solve(&net, &config(false)).answer,
        Answer::Unknown(_)
    ));
}

/// One path of avg_sum_in_range.c / avg_half_sum_underflow.c: `x < y` (or not, when
/// `x_below` is false), the average `m`, and `m < lo` (`below`) or `m > hi`.
fn average_path(halves_first: bool, x_below: bool, below: bool) -> Network {
    let f = Format::F32;
    let mut net = Network::new(Arith::IEEE);
    let x = ranged(&mut net, f, "x", -1e30, 1e30);
    let y = ranged(&mut net, f, "y", -1e30, 1e30);
    net.require(FcmpPredicate::Olt, x, y, x_below)
        .expect("same format");
    let (lo, hi) = if x_below { (x, y) } else { (y, x) };
    let two = net.float_const_f64(f, 2.0);
    let m = if halves_first {
        let (hx, hy) = (
            net.fdiv(x, two).expect("same format"),
            net.fdiv(y, two).expect("same format"),
        );
        net.fadd(hx, hy).expect("same format")
    } else {
        let s = net.fadd(x, y).expect("same format");
        net.fdiv(s, two).expect("same format")
    };
    if below {
        net.require(FcmpPredicate::Olt, m, lo, true)
    } else {
        net.require(FcmpPredicate::Ogt, m, hi, true)
    }
    .expect("same format");
    net
}

#[test]
fn avg_sum_in_range_paths_are_refuted_and_the_underflowing_average_is_not() {
    for x_below in [true, false] {
        for below in [true, false] {
            let report = solve(&average_path(false, x_below, below), &config(true));
            assert_eq!(report.answer, Answer::Infeasible, "{x_below} {below}");
            assert_eq!(report.nodes, 1);
        }
    }
    // x/2 + y/2 at x = y = 2^-149 is 0 < lo (avg_half_sum_underflow.c): the midpoint rule
    // does not apply to it, and its path keeps its solution.
    let underflow = solve(&average_path(true, false, true), &config(true));
    assert!(
        !matches!(underflow.answer, Answer::Infeasible),
        "{:?}",
        underflow.answer
    );
}

/// heron_kahan_low.c's path with `b >= c`: Kahan's ordering of Heron's product below -1e-5.
#[test]
fn heron_kahan_low_is_refuted_by_the_sign_of_ordered_differences() {
    let f = Format::F32;
    let mut net = Network::new(Arith::IEEE);
    let a = ranged(&mut net, f, "a", 5.0, 10.0);
    let b = ranged(&mut net, f, "b", 0.0, 5.0);
    let c = ranged(&mut net, f, "c", 0.0, 5.0);
    net.require(FcmpPredicate::Oge, a, b, true)
        .expect("same format");
    net.require(FcmpPredicate::Oge, a, c, true)
        .expect("same format");
    let a_b = net.fsub(a, b).expect("same format");
    net.require(FcmpPredicate::Ole, a_b, c, true)
        .expect("same format");
    let a_c = net.fsub(a, c).expect("same format");
    net.require(FcmpPredicate::Ole, a_c, b, true)
        .expect("same format");
    net.require(FcmpPredicate::Olt, b, c, false)
        .expect("same format");
    let b_c = net.fadd(b, c).expect("same format");
    let f1 = net.fadd(a, b_c).expect("same format");
    let a_b2 = net.fsub(a, b).expect("same format");
    let f2 = net.fsub(c, a_b2).expect("same format");
    let f3 = net.fadd(c, a_b2).expect("same format");
    let b_minus_c = net.fsub(b, c).expect("same format");
    let f4 = net.fadd(a, b_minus_c).expect("same format");
    let p12 = net.fmul(f1, f2).expect("same format");
    let p123 = net.fmul(p12, f3).expect("same format");
    let p = net.fmul(p123, f4).expect("same format");
    let sixteen = net.float_const_f64(f, 16.0);
    let area2 = net.fdiv(p, sixteen).expect("same format");
    let wide = net.float_convert(area2, Format::F64).expect("float");
    let limit = net.float_const_f64(Format::F64, -1e-5);
    net.require(FcmpPredicate::Olt, wide, limit, true)
        .expect("same format");
    assert_eq!(solve(&net, &config(true)).answer, Answer::Infeasible);
    assert!(matches!(
        solve(&net, &config(false)).answer,
        Answer::Unknown(_)
    ));
}
