//! Projections of `r = min(a, b)` and `r = max(a, b)` with x86 SSE semantics (`minss`/`maxss`).

use super::compare::project_compare;
use crate::arith::Arith;
use crate::compare::FcmpPredicate;
use crate::domain::FloatDomain;

/// Which of the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MinMaxOp {
    /// `a < b ? a : b` (x86 `minss`/`minsd`): `b` on NaN and on equal values, ±0 included.
    Min,
    /// `a > b ? a : b` (x86 `maxss`/`maxsd`).
    Max,
}

/// Narrows `(a, b, r)` for `r = min/max(a, b)` as the union of its two cases: `r = a` when
/// the strict comparison holds, `r = b` otherwise (NaN or equal operands included).
pub fn project_min_max(
    op: MinMaxOp,
    arith: Arith,
    a: &FloatDomain,
    b: &FloatDomain,
    r: &FloatDomain,
) -> Option<(FloatDomain, FloatDomain, FloatDomain)> {
    let picks_a = match op {
        MinMaxOp::Min => FcmpPredicate::Olt,
        MinMaxOp::Max => FcmpPredicate::Ogt,
    };
    let first = project_compare(picks_a, arith, &a.intersect(r), b).map(|(a, b)| (a.clone(), b, a));
    let second = project_compare(picks_a.negated(), arith, a, &b.intersect(r))
        .map(|(a, b)| (a, b.clone(), b));
    let (a, b, r) = match (first, second) {
        (Some(x), Some(y)) => (x.0.hull(&y.0), x.1.hull(&y.1), x.2.hull(&y.2)),
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => return None,
    };
    Some((a, b, r))
}
