//! Whole networks on f32/f64/minifloats: propagation never removes a known solution, and search never calls a satisfiable network infeasible.

mod common;

use common::{domain_around, random_value, MODES};
use fpscout_fpsolve::{
    solve, Answer, Arith, BinaryOp, BitTest, BitView, Domain, FcmpPredicate, FloatValue, Format,
    IntPredicate, MinMaxOp, Network, Propagation, SearchConfig, Value, VarId,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random network of a few operations over two inputs, with the values one concrete
/// input pair gives every variable: a solution by construction.
fn random_network(
    rng: &mut ChaCha8Rng,
    format: Format,
    arith: Arith,
) -> (Network, Vec<(VarId, FloatValue)>) {
    let mut net = Network::new(arith);
    let mut known: Vec<(VarId, FloatValue)> = Vec::new();
    for name in ["x", "y"] {
        let value = random_value(rng, format);
        let v = net.float_var_in(name, domain_around(rng, format, value));
        known.push((v, value));
    }
    for _ in 0..rng.gen_range(2..6) {
        let (a, va) = known[rng.gen_range(0..known.len())];
        let (b, vb) = known[rng.gen_range(0..known.len())];
        let (result, value) = match rng.gen_range(0..8) {
            0..=3 => {
                let op = [
                    BinaryOp::FAdd,
                    BinaryOp::FSub,
                    BinaryOp::FMul,
                    BinaryOp::FDiv,
                ][rng.gen_range(0..4)];
                (net.binary(op, a, b), arith.binary(op, format, va, vb))
            }
            4 => (net.sqrt(a), arith.fsqrt(format, va)),
            5 => (net.fabs(a), arith.fabs(format, va)),
            6 => (net.min_max(MinMaxOp::Min, a, b), arith.fmin(format, va, vb)),
            _ => (net.min_max(MinMaxOp::Max, a, b), arith.fmax(format, va, vb)),
        };
        known.push((result.expect("same format"), value));
    }
    // The last result compares as it does to a constant near it.
    let (last, value) = known[known.len() - 1];
    let constant_value = random_value(rng, format);
    let constant = net.float_const(format, constant_value);
    let predicate = FcmpPredicate::ALL[rng.gen_range(0..FcmpPredicate::ALL.len())];
    let holds = arith.compare(predicate, format, value, constant_value);
    net.require(predicate, last, constant, holds)
        .expect("same format");
    known.push((constant, constant_value));
    // Pin the result's domain around its value too, as a path condition would.
    let around = domain_around(rng, format, value);
    net.restrict(last, Domain::Float(around))
        .expect("float variable");
    (net, known)
}

#[test]
fn propagation_and_search_respect_a_known_solution() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    let mut solved = 0;
    for round in 0..400 {
        let format = [Format::F32, Format::F64, Format::MINI8, Format::MINI10][round % 4];
        let arith = MODES[(round / 4) % 4];
        let (mut net, known) = random_network(&mut rng, format, arith);
        let search_net = net.clone();
        let outcome = net.propagate(5_000);
        assert_ne!(
            outcome,
            Propagation::Infeasible,
            "round {round}: 2B refuted a network with a solution"
        );
        for &(v, value) in &known {
            assert!(
                net.float_domain(v).unwrap().contains(value),
                "round {round}: lost {value:?} of {}",
                net.name(v)
            );
        }
        let config = SearchConfig {
            node_budget: 300,
            propagation_budget: 2_000,
            ..SearchConfig::default()
        };
        match solve(&search_net, &config).answer {
            Answer::Infeasible => {
                panic!("round {round}: search called a satisfiable network infeasible")
            }
            Answer::Solution(s) => {
                assert_eq!(search_net.check(s.values()), Ok(true));
                solved += 1;
            }
            Answer::Unknown(_) => {}
        }
        let values: Vec<Value> = (0..search_net.variable_count())
            .map(|i| {
                Value::Float(
                    known
                        .iter()
                        .find(|(v, _)| v.index() == i)
                        .map_or(FloatValue::NaN, |&(_, x)| x),
                )
            })
            .collect();
        assert_eq!(
            search_net.check(&values),
            Ok(true),
            "round {round}: the constructed solution checks"
        );
    }
    assert!(solved >= 380, "only {solved} of 400 solved");
}

/// fdlibm's `(iy == 0x7ff00000) && (ly != 0)` NaN test on y < 0 (newlib's pow,
/// double_req_bl_0882): the low-word test admits every float as a set, but no solution
/// may break it. y < 0 leaves -inf alone in the set of the high word, whose low word is
/// zero: no solution. With `ly == 0` instead, -inf is one.
#[test]
fn a_low_word_test_is_checked_on_solutions() {
    let f = Format::F64;
    let bits = BitView::of(f);
    let low = bits.trunc(32).expect("the low word");
    let iy = bits
        .lshr(32)
        .and_then(|v| v.trunc(32))
        .and_then(|v| v.and(0x7fff_ffff))
        .expect("iy");
    let network = |low_predicate: IntPredicate| {
        let mut net = Network::new(Arith::IEEE);
        let y = net.float_var("y", f);
        let zero = net.float_const_f64(f, 0.0);
        net.require(FcmpPredicate::Olt, y, zero, true)
            .expect("same format");
        for (view, predicate, k) in [(iy, IntPredicate::Eq, 0x7ff0_0000), (low, low_predicate, 0)] {
            let test = BitTest { view, predicate, k };
            net.require_bit_test(y, test).expect("a float");
        }
        net
    };
    let config = SearchConfig::default();
    assert_eq!(
        solve(&network(IntPredicate::Ne), &config).answer,
        Answer::Infeasible
    );
    let Answer::Solution(witness) = solve(&network(IntPredicate::Eq), &config).answer else {
        panic!("-inf has a zero low word");
    };
    assert_eq!(network(IntPredicate::Eq).check(witness.values()), Ok(true));
    let test = BitTest {
        view: low,
        predicate: IntPredicate::Ne,
        k: 0,
    };
    assert!(!test.admits(f.from_f64(f64::NEG_INFINITY)));
    assert!(test.admits(f.from_f64(f64::from_bits(0xbff0_0000_0000_0001))));
    assert!(
        test.set().contains(f.from_f64(f64::NEG_INFINITY)),
        "the set is a superset"
    );
}

/// The network of `random_network(seed)` with a second round of operations on its
/// variables added, and `propagate` called between the rounds when `midway`.
fn grown_network(seed: u64, format: Format, arith: Arith, midway: bool) -> (Network, Propagation) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut net, known) = random_network(&mut rng, format, arith);
    if midway {
        net.propagate(1_000_000);
    }
    let (a, va) = known[rng.gen_range(0..known.len())];
    let (b, vb) = known[rng.gen_range(0..known.len())];
    let op = [BinaryOp::FAdd, BinaryOp::FMul][rng.gen_range(0..2)];
    let c = net.binary(op, a, b).expect("same format");
    let vc = arith.binary(op, format, va, vb);
    let bound_value = random_value(&mut rng, format);
    let bound = net.float_const(format, bound_value);
    let holds = arith.compare(FcmpPredicate::Olt, format, vc, bound_value);
    net.require(FcmpPredicate::Olt, c, bound, holds)
        .expect("same format");
    net.restrict(a, Domain::Float(domain_around(&mut rng, format, va)))
        .expect("float variable");
    let outcome = net.propagate(1_000_000);
    (net, outcome)
}

#[test]
fn propagating_what_was_added_since_the_last_fixpoint_narrows_as_much_as_propagating_everything() {
    for seed in 0..400 {
        let arith = MODES[seed as usize % MODES.len()];
        for format in [Format::F32, Format::F64, Format::MINI8] {
            let (incremental, a) = grown_network(seed, format, arith, true);
            let (whole, b) = grown_network(seed, format, arith, false);
            assert_eq!(a, b, "seed {seed} {format:?}");
            if a == Propagation::Fixpoint {
                assert_eq!(
                    incremental.domains(),
                    whole.domains(),
                    "seed {seed} {format:?}"
                );
            }
        }
    }
}

#[test]
fn a_trial_of_a_comparison_answers_as_a_clone_would_and_leaves_the_network_as_it_was() {
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    for round in 0..600 {
        let format = [Format::F32, Format::F64, Format::MINI8][round % 3];
        let arith = MODES[(round / 3) % MODES.len()];
        let (mut net, known) = random_network(&mut rng, format, arith);
        if round % 2 == 0 {
            // Half the rounds start from a settled network, half with everything pending.
            net.propagate(1_000_000);
        }
        let before = net.clone();
        let (a, _) = known[rng.gen_range(0..known.len())];
        let (b, _) = known[rng.gen_range(0..known.len())];
        let predicate = FcmpPredicate::ALL[rng.gen_range(0..FcmpPredicate::ALL.len())];
        let holds = rng.gen_bool(0.5);
        let centre = random_value(&mut rng, format);
        let bound = Domain::Float(domain_around(&mut rng, format, centre));
        let require = |n: &mut Network| {
            n.require(predicate, a, b, holds)?;
            n.restrict(a, bound.clone())
        };
        let mut cloned = before.clone();
        require(&mut cloned).expect("same format");
        let expected = cloned.propagate(5_000) != Propagation::Infeasible;
        let answer = net.feasible_with(require, 5_000).expect("same format");
        assert_eq!(answer, expected, "round {round}");
        assert_eq!(net.domains(), before.domains(), "round {round}");
        assert_eq!(
            net.constraints().len(),
            before.constraints().len(),
            "round {round}"
        );
        let defined = |n: &Network| {
            (0..n.variable_count())
                .map(|i| n.is_defined(VarId::from_index(i)))
                .collect::<Vec<_>>()
        };
        assert_eq!(defined(&net), defined(&before), "round {round}");
        // What comes next propagates as on the untouched network.
        let mut untouched = before.clone();
        assert_eq!(
            net.propagate(5_000),
            untouched.propagate(5_000),
            "round {round}"
        );
        assert_eq!(net.domains(), untouched.domains(), "round {round}");
    }
}

/// Ordering two integer variables keeps every pair that satisfies the order and narrows
/// each bound to a value with a partner in the other domain (small domains, every order).
#[test]
fn ordered_integers_keep_every_solution_and_only_supported_bounds() {
    use fpscout_fpsolve::{Constraint, Domain, IntDomain, IntOrder};
    let orders = [
        IntOrder::Less,
        IntOrder::LessOrEqual,
        IntOrder::Equal,
        IntOrder::NotEqual,
    ];
    for order in orders {
        for (alo, ahi, blo, bhi) in (-3i128..=3).flat_map(|alo| {
            (alo..=3).flat_map(move |ahi| {
                (-3i128..=3).flat_map(move |blo| (blo..=3).map(move |bhi| (alo, ahi, blo, bhi)))
            })
        }) {
            let mut network = Network::new(Arith::IEEE);
            let a = network.int_var("a", alo, ahi).expect("a");
            let b = network.int_var("b", blo, bhi).expect("b");
            network
                .add(Constraint::IntCompare { order, a, b })
                .expect("the order");
            let outcome = network.propagate(1_000);
            let pairs: Vec<(i128, i128)> = (alo..=ahi)
                .flat_map(|x| (blo..=bhi).map(move |y| (x, y)))
                .filter(|&(x, y)| order.holds(x, y))
                .collect();
            let case = format!("{order:?} [{alo},{ahi}] [{blo},{bhi}]");
            if pairs.is_empty() {
                assert_eq!(outcome, Propagation::Infeasible, "{case}");
                continue;
            }
            assert_ne!(outcome, Propagation::Infeasible, "{case}");
            let range = |v| match network.domain(v).expect("a domain") {
                Domain::Int(d) => d.range().expect("not empty"),
                Domain::Float(_) => panic!("an integer"),
            };
            let (ra, rb) = (range(a), range(b));
            for &(x, y) in &pairs {
                assert!(IntDomain::new(ra.0, ra.1).contains(x), "{case}: {x} pruned");
                assert!(IntDomain::new(rb.0, rb.1).contains(y), "{case}: {y} pruned");
            }
            if order != IntOrder::NotEqual {
                for bound in [ra.0, ra.1] {
                    assert!(
                        pairs.iter().any(|p| p.0 == bound),
                        "{case}: a bound {bound}"
                    );
                }
                for bound in [rb.0, rb.1] {
                    assert!(
                        pairs.iter().any(|p| p.1 == bound),
                        "{case}: b bound {bound}"
                    );
                }
            }
        }
    }
}

/// A sum or difference of integer variables keeps every solution and narrows each bound
/// to a value some solution has (small domains, every combination).
#[test]
fn integer_sums_keep_every_solution_and_only_supported_bounds() {
    use fpscout_fpsolve::{Domain, IntDomain};
    let ranges: Vec<(i128, i128)> = (-3i128..=3)
        .flat_map(|lo| (lo..=3).map(move |hi| (lo, hi)))
        .collect();
    for subtract in [false, true] {
        for &(alo, ahi) in &ranges {
            for &(blo, bhi) in &ranges {
                for &(rlo, rhi) in ranges.iter().step_by(3) {
                    let mut network = Network::new(Arith::IEEE);
                    let a = network.int_var("a", alo, ahi).expect("a");
                    let b = network.int_var("b", blo, bhi).expect("b");
                    let r = network.int_sum(a, b, subtract).expect("the sum");
                    network
                        .restrict(r, Domain::Int(IntDomain::new(rlo, rhi)))
                        .expect("the result's range");
                    let outcome = network.propagate(1_000);
                    let solutions: Vec<(i128, i128, i128)> = (alo..=ahi)
                        .flat_map(|x| (blo..=bhi).map(move |y| (x, y)))
                        .map(|(x, y)| (x, y, if subtract { x - y } else { x + y }))
                        .filter(|&(_, _, z)| rlo <= z && z <= rhi)
                        .collect();
                    let case = format!(
                        "{} [{alo},{ahi}] [{blo},{bhi}] in [{rlo},{rhi}]",
                        if subtract { "-" } else { "+" }
                    );
                    if solutions.is_empty() {
                        assert_eq!(outcome, Propagation::Infeasible, "{case}");
                        continue;
                    }
                    let range = |v| match network.domain(v).expect("a domain") {
                        Domain::Int(d) => d.range().expect("not empty"),
                        Domain::Float(_) => panic!("an integer"),
                    };
                    for (k, v) in [a, b, r].into_iter().enumerate() {
                        let (lo, hi) = range(v);
                        let values: Vec<i128> =
                            solutions.iter().map(|s| [s.0, s.1, s.2][k]).collect();
                        assert!(values.iter().all(|&x| lo <= x && x <= hi), "{case}: pruned");
                        assert!(
                            values.contains(&lo) && values.contains(&hi),
                            "{case}: loose"
                        );
                    }
                }
            }
        }
    }
}
