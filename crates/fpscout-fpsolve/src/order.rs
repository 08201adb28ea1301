//! Order facts between variables (x ≤ y from a comparison, carried through monotone operations): refutations and sign narrowings that intervals cannot see.
//!
//! A fact `u ≤ v` holds for every solution of the box: both are non-NaN (their domains say
//! so) and the value of `u` is at most that of `v` (±0 equal). Sources: the comparisons the
//! network requires, and repeated operations (same operation on the same operands: equal
//! values). Each rounded operation is monotone in each operand (rounding to nearest, FTZ's
//! flush and DAZ's read are all non-decreasing), so `x ≤ y` gives `f(x, c) ≤ f(y, c)` for
//! the operations increasing in that operand and the reverse for the decreasing ones, and
//! `a ⊖ b` is ≥ 0 when `b ≤ a` (the exact difference is, and RN(0) = 0).

use crate::affine::worth_narrowing;
use crate::arith::BinaryOp;
use crate::compare::FcmpPredicate;
use crate::network::{Constraint, Domain, Network, VarId};
use crate::project::minmax::MinMaxOp;
use std::collections::HashSet;

/// What the order facts concluded.
pub(crate) enum OrderOutcome {
    Refuted,
    /// Variables whose domains were narrowed.
    Narrowed(Vec<VarId>),
}

/// Rounds of derivation through operations: a path is a chain of a few operations deep.
const DERIVATION_ROUNDS: usize = 8;

fn nan_free(domains: &[Domain], v: VarId) -> bool {
    matches!(domains.get(v.index()), Some(Domain::Float(d)) if !d.may_be_nan() && d.range().is_some())
}

/// Whether the domain's values are all ≥ 0 (`strictly`: > 0), or all ≤ 0 (`positive` false).
fn signed(domains: &[Domain], v: VarId, positive: bool, strictly: bool) -> bool {
    let Some(Domain::Float(d)) = domains.get(v.index()) else {
        return false;
    };
    let format = d.format();
    let Some((lo, hi)) = d.range() else {
        return false;
    };
    match (positive, strictly) {
        (true, false) => lo >= format.neg_zero(),
        (true, true) => lo > format.pos_zero(),
        (false, false) => hi <= format.pos_zero(),
        (false, true) => hi < format.neg_zero(),
    }
}

/// How an operation's result moves with one operand: +1 non-decreasing, -1 non-increasing.
fn monotonicity(op: BinaryOp, first_operand: bool, other: VarId, domains: &[Domain]) -> Option<i8> {
    match (op, first_operand) {
        (BinaryOp::FAdd, _) | (BinaryOp::FSub, true) => Some(1),
        (BinaryOp::FSub, false) => Some(-1),
        (BinaryOp::FMul, _) if signed(domains, other, true, false) => Some(1),
        (BinaryOp::FMul, _) if signed(domains, other, false, false) => Some(-1),
        (BinaryOp::FDiv, true) if signed(domains, other, true, true) => Some(1),
        (BinaryOp::FDiv, true) if signed(domains, other, false, true) => Some(-1),
        _ => None,
    }
}

/// Derives order facts over the box and uses them: a required comparison contradicting a
/// fact refutes the box; a fact `u ≤ v` caps `u` by `v`'s largest value and floors `v` by
/// `u`'s smallest; `a ⊖ b` with `b ≤ a` is non-negative.
/// The pairs of a network's operations that order facts can relate, found once.
pub(crate) struct OrderPlan {
    /// Results of the same operation on the same operands.
    repeats: Vec<(VarId, VarId)>,
    /// Indices of two operations of one shape differing in one operand.
    related: Vec<(usize, usize)>,
}

impl OrderPlan {
    pub(crate) fn new(network: &Network) -> OrderPlan {
        let constraints = network.constraints();
        let (mut repeats, mut related) = (Vec::new(), Vec::new());
        for (i, first) in constraints.iter().enumerate() {
            let Some(r) = first.result() else { continue };
            for (j, second) in constraints.iter().enumerate().skip(i + 1) {
                let Some(s) = second.result() else { continue };
                if crate::affine::same_operation(first, r)
                    == crate::affine::same_operation(second, r)
                {
                    repeats.push((r, s));
                } else if may_relate(first, second) {
                    related.push((i, j));
                }
            }
        }
        OrderPlan { repeats, related }
    }
}

/// Whether two operations have one shape and differ in exactly one operand.
fn may_relate(first: &Constraint, second: &Constraint) -> bool {
    match (first.clone(), second.clone()) {
        (Constraint::Sqrt { .. }, Constraint::Sqrt { .. })
        | (Constraint::Copy { .. }, Constraint::Copy { .. })
        | (Constraint::FloatConvert { .. }, Constraint::FloatConvert { .. })
        | (Constraint::FNeg { .. }, Constraint::FNeg { .. }) => true,
        (
            Constraint::Binary {
                op, a: a1, b: b1, ..
            },
            Constraint::Binary {
                op: op2,
                a: a2,
                b: b2,
                ..
            },
        ) => op == op2 && ((a1 == a2) != (b1 == b2)),
        _ => false,
    }
}

pub(crate) fn order_bound(
    network: &Network,
    plan: &OrderPlan,
    domains: &mut [Domain],
) -> OrderOutcome {
    let arith = network.arith();
    let constraints = network.constraints();
    let mut facts: HashSet<(VarId, VarId)> = HashSet::new();
    for constraint in constraints {
        let Constraint::Compare { predicate, a, b } = *constraint else {
            continue;
        };
        if a == b || !nan_free(domains, a) || !nan_free(domains, b) {
            continue;
        }
        // DAZ compares the operands as read; a fact is about the values themselves.
        if arith.denormals_are_zero {
            continue;
        }
        use FcmpPredicate::*;
        match predicate {
            Olt | Ole | Ult | Ule => {
                facts.insert((a, b));
            }
            Ogt | Oge | Ugt | Uge => {
                facts.insert((b, a));
            }
            Oeq | Ueq => {
                facts.insert((a, b));
                facts.insert((b, a));
            }
            _ => {}
        }
    }
    for constraint in constraints {
        match *constraint {
            Constraint::Copy { a, result } if nan_free(domains, a) && nan_free(domains, result) => {
                facts.insert((a, result));
                facts.insert((result, a));
            }
            // min is `a < b ? a : b`, max `a > b ? a : b`: on non-NaN operands the result is
            // at most (at least) both (not under DAZ, whose comparison reads a subnormal as 0).
            Constraint::MinMax { op, a, b, result }
                if !arith.denormals_are_zero
                    && nan_free(domains, a)
                    && nan_free(domains, b)
                    && nan_free(domains, result) =>
            {
                for operand in [a, b] {
                    facts.insert(match op {
                        MinMaxOp::Min => (result, operand),
                        MinMaxOp::Max => (operand, result),
                    });
                }
            }
            _ => {}
        }
    }
    for &(r, s) in &plan.repeats {
        if nan_free(domains, r) && nan_free(domains, s) {
            facts.insert((r, s));
            facts.insert((s, r));
        }
    }
    for _ in 0..DERIVATION_ROUNDS {
        let before = facts.len();
        for &(i, j) in &plan.related {
            let (first, second) = (&constraints[i], &constraints[j]);
            {
                for Related {
                    x,
                    y,
                    z,
                    w,
                    increasing,
                } in related_pairs(first, second, domains)
                {
                    if !(nan_free(domains, z) && nan_free(domains, w)) {
                        continue;
                    }
                    if facts.contains(&(x, y)) {
                        facts.insert(if increasing { (z, w) } else { (w, z) });
                    }
                    if facts.contains(&(y, x)) {
                        facts.insert(if increasing { (w, z) } else { (z, w) });
                    }
                }
            }
        }
        if !arith.flush_to_zero && !arith.denormals_are_zero {
            for constraint in constraints {
                average_facts(network, constraint, domains, &mut facts);
            }
        }
        // Transitivity (a repeated `a ⊖ b` equals the one a comparison bounded).
        let known: Vec<(VarId, VarId)> = facts.iter().copied().collect();
        for &(u, v) in &known {
            for &(v2, w) in &known {
                if v == v2 && u != w {
                    facts.insert((u, w));
                }
            }
        }
        if facts.len() == before {
            break;
        }
    }
    for constraint in constraints {
        let Constraint::Compare { predicate, a, b } = *constraint else {
            continue;
        };
        use std::cmp::Ordering::*;
        let only = |o| {
            [Less, Equal, Greater]
                .iter()
                .all(|&p| p == o || !predicate.holds(Some(p)))
        };
        if (only(Greater) && facts.contains(&(a, b))) || (only(Less) && facts.contains(&(b, a))) {
            return OrderOutcome::Refuted;
        }
    }
    let mut narrowed = Vec::new();
    for constraint in constraints {
        let Constraint::Binary {
            op: BinaryOp::FSub,
            a,
            b,
            result,
        } = *constraint
        else {
            continue;
        };
        let Some(Domain::Float(d)) = domains.get(result.index()) else {
            continue;
        };
        let format = d.format();
        let kept = if facts.contains(&(b, a)) {
            d.clamp(format.neg_zero(), format.pos_inf())
        } else if facts.contains(&(a, b)) {
            d.clamp(format.neg_inf(), format.pos_zero())
        } else {
            continue;
        };
        if kept.is_empty() {
            return OrderOutcome::Refuted;
        }
        if worth_narrowing(d, &kept) {
            domains[result.index()] = Domain::Float(kept);
            narrowed.push(result);
        }
    }
    for &(u, v) in &facts {
        let (Some(Domain::Float(du)), Some(Domain::Float(dv))) =
            (domains.get(u.index()), domains.get(v.index()))
        else {
            continue;
        };
        let (Some((u_lo, _)), Some((_, v_hi))) = (du.range(), dv.range()) else {
            continue;
        };
        let format = du.format();
        // Values, not keys: a zero bound admits both zeros.
        let cap = if format.is_zero(v_hi) {
            format.pos_zero()
        } else {
            v_hi
        };
        let floor = if format.is_zero(u_lo) {
            format.neg_zero()
        } else {
            u_lo
        };
        let (new_u, new_v) = (
            du.clamp(format.neg_inf(), cap),
            dv.clamp(floor, format.pos_inf()),
        );
        for (var, old, new) in [(u, du.clone(), new_u), (v, dv.clone(), new_v)] {
            if new.is_empty() {
                return OrderOutcome::Refuted;
            }
            if worth_narrowing(&old, &new) {
                domains[var.index()] = Domain::Float(new);
                narrowed.push(var);
            }
        }
    }
    OrderOutcome::Narrowed(narrowed)
}

/// Two operations of one shape that differ in one operand: `z = f(x)`, `w = f(y)` with
/// the other operands shared, `f` non-decreasing (`increasing`) or non-increasing.
struct Related {
    x: VarId,
    y: VarId,
    z: VarId,
    w: VarId,
    increasing: bool,
}

fn related(x: VarId, y: VarId, z: VarId, w: VarId, increasing: bool) -> Related {
    Related {
        x,
        y,
        z,
        w,
        increasing,
    }
}

fn related_pairs(first: &Constraint, second: &Constraint, domains: &[Domain]) -> Vec<Related> {
    let mut pairs = Vec::new();
    match (first.clone(), second.clone()) {
        (Constraint::Sqrt { a: x, result: z }, Constraint::Sqrt { a: y, result: w })
        | (Constraint::Copy { a: x, result: z }, Constraint::Copy { a: y, result: w }) => {
            pairs.push(related(x, y, z, w, true));
        }
        (
            Constraint::FloatConvert { a: x, result: z },
            Constraint::FloatConvert { a: y, result: w },
        ) => {
            let same_target = matches!(
                (domains.get(z.index()), domains.get(w.index())),
                (Some(Domain::Float(p)), Some(Domain::Float(q))) if p.format() == q.format()
            );
            if same_target {
                pairs.push(related(x, y, z, w, true));
            }
        }
        (Constraint::FNeg { a: x, result: z }, Constraint::FNeg { a: y, result: w }) => {
            pairs.push(related(x, y, z, w, false));
        }
        (
            Constraint::Binary {
                op,
                a: a1,
                b: b1,
                result: z,
            },
            Constraint::Binary {
                op: op2,
                a: a2,
                b: b2,
                result: w,
            },
        ) if op == op2 => {
            if b1 == b2 && a1 != a2 {
                if let Some(sign) = monotonicity(op, true, b1, domains) {
                    pairs.push(related(a1, a2, z, w, sign > 0));
                }
            }
            if a1 == a2 && b1 != b2 {
                if let Some(sign) = monotonicity(op, false, a1, domains) {
                    pairs.push(related(b1, b2, z, w, sign > 0));
                }
            }
        }
        _ => {}
    }
    pairs
}

/// The midpoint `m = (a ⊕ b) ⊘ 2` (or `⊗ 0.5`) of ordered `a ≤ b` lies between them, in
/// IEEE mode: `a ⊕ b ≥ RN(2a) = 2a` when `2a` does not overflow, so `m ≥ RN(a) = a`;
/// likewise `m ≤ b` when `2b` does not overflow.
fn average_facts(
    network: &Network,
    constraint: &Constraint,
    domains: &[Domain],
    facts: &mut HashSet<(VarId, VarId)>,
) {
    let Constraint::Binary {
        op,
        a: sum,
        b: scale,
        result,
    } = *constraint
    else {
        return;
    };
    let Some(Domain::Float(scale_domain)) = domains.get(scale.index()) else {
        return;
    };
    let format = scale_domain.format();
    let Some(crate::format::FloatValue::Num(scale_value)) = scale_domain.as_point() else {
        return;
    };
    let Some(scale_value) = format.to_rational(scale_value) else {
        return;
    };
    let halving = match op {
        BinaryOp::FDiv => scale_value == 2,
        BinaryOp::FMul => scale_value == (1, 2),
        _ => false,
    };
    if !halving || !nan_free(domains, result) {
        return;
    }
    let Some((a, b)) = network.constraints().iter().find_map(|c| match *c {
        Constraint::Binary {
            op: BinaryOp::FAdd,
            a,
            b,
            result: r,
        } if r == sum => Some((a, b)),
        _ => None,
    }) else {
        return;
    };
    let doubles_finitely = |v: VarId| {
        let Some(Domain::Float(d)) = domains.get(v.index()) else {
            return false;
        };
        let half_max = format.to_rational(format.max_finite()).map(|m| m / 2u32);
        match (d.range(), half_max) {
            (Some((lo, hi)), Some(limit)) => [lo, hi].iter().all(|&x| {
                format
                    .to_rational(x)
                    .is_some_and(|value| value.abs() <= limit)
            }),
            _ => false,
        }
    };
    for (low, high) in [(a, b), (b, a)] {
        if facts.contains(&(low, high)) {
            if doubles_finitely(low) {
                facts.insert((low, result));
            }
            if doubles_finitely(high) {
                facts.insert((result, high));
            }
        }
    }
}
