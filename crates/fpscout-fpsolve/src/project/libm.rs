//! Projections of `r = f(a)` for a glibc libm function: through glibc's exact values on special points and through error-bound enclosures (`crate::libm`) elsewhere.

// The argument's domain is cut into the usual sign pieces (`super::split`). Singletons
// (±0, ±inf) are evaluated by glibc itself. A finite piece is cut further into the part
// outside the function's domain of definition (NaN), the parts where it is monotone (the
// function's stretches), and the rest: a few floats (between the two stretches of Γ
// around its minimum) are evaluated by glibc one by one; more (sin, cos, tan far from 0,
// Γ on the negative axis) map into the function's codomain and are never narrowed. On a
// monotone part the enclosure's ends are monotone in the argument (see
// `crate::libm::enclosure`), so the direct image is the enclosures of the part's ends,
// and the arguments whose enclosure meets `r` form one interval, found by binary search
// on the ordered line. No solution is ever lost: an argument is removed only when
// glibc's result provably lies outside `r`.

use super::split;
use crate::arith::Arith;
use crate::domain::{hull_range, FloatDomain};
use crate::format::{FloatValue, Fp};
use crate::libm::{call_glibc, enclosure, Direction, LibmFunction, Shape};

type Range = Option<(Fp, Fp)>;

/// Floats outside every stretch evaluated one by one rather than mapped to the codomain.
const FEW_FLOATS: i64 = 16;

fn overlap(range: (Fp, Fp), lo: Fp, hi: Fp) -> Range {
    let (lo, hi) = (range.0.max(lo), range.1.min(hi));
    (lo <= hi).then_some((lo, hi))
}

/// Narrows `(a, r)` for `r = function(a)` as glibc computes it (binary32/binary64, IEEE
/// mode); `None` when no argument in `a` has its result in `r`.
pub fn project_libm(
    function: LibmFunction,
    a: &FloatDomain,
    r: &FloatDomain,
) -> Option<(FloatDomain, FloatDomain)> {
    let format = a.format();
    let shape = Shape::of(function, format);
    let pieces = split(format, Arith::IEEE, a);
    // Direct: every result some argument of `a` may give (NaN gives NaN).
    let mut reachable = FloatDomain::empty(format).with_nan(a.may_be_nan());
    // Parts of finite pieces, computed once for both directions.
    let mut parts = Vec::new();
    for piece in &pieces {
        if !piece.finite {
            let image = FloatDomain::point(
                format,
                call_glibc(function, format, FloatValue::Num(piece.lo)),
            );
            reachable = reachable.hull(&image);
            continue;
        }
        let part = FinitePart::of(function, format, &shape, piece.lo, piece.hi);
        if part.undefined.0.is_some() || part.undefined.1.is_some() {
            reachable = reachable.with_nan(true);
        }
        for &(_, y) in &part.evaluated {
            reachable = reachable.hull(&FloatDomain::point(format, y));
        }
        if !part.unmonotone.is_empty() {
            reachable = reachable.hull(
                &FloatDomain::new(format, shape.codomain.0, shape.codomain.1, false)
                    .with_nan(shape.nan_between),
            );
        }
        for &((lo, hi), direction) in &part.monotone {
            let (at_lo, at_hi) = (
                enclosure(function, format, lo),
                enclosure(function, format, hi),
            );
            let (bottom, top) = match direction {
                Direction::Increasing => (at_lo.0, at_hi.1),
                Direction::Decreasing => (at_hi.0, at_lo.1),
            };
            reachable = reachable.hull(&FloatDomain::new(
                format,
                bottom.min(top),
                top.max(bottom),
                false,
            ));
        }
        parts.push(part);
    }
    let r = r.intersect(&reachable);
    if r.is_empty() {
        return None;
    }
    // Indirect: the arguments whose result may lie in the narrowed `r`.
    let mut keep: Range = None;
    let mut finite_parts = parts.iter();
    for piece in &pieces {
        if !piece.finite {
            let y = call_glibc(function, format, FloatValue::Num(piece.lo));
            if r.contains(y) {
                keep = hull_range(keep, Some(piece.origin));
            }
            continue;
        }
        let Some(part) = finite_parts.next() else {
            continue;
        };
        if r.may_be_nan() {
            keep = hull_range(keep, part.undefined.0);
            keep = hull_range(keep, part.undefined.1);
        }
        let meets_codomain = !r
            .intersect(&FloatDomain::new(
                format,
                shape.codomain.0,
                shape.codomain.1,
                false,
            ))
            .is_empty();
        for &(x, y) in &part.evaluated {
            if r.contains(y) {
                keep = hull_range(keep, Some((x, x)));
            }
        }
        if meets_codomain || (r.may_be_nan() && shape.nan_between) {
            for &gap in &part.unmonotone {
                keep = hull_range(keep, Some(gap));
            }
        }
        if let Some(target) = r.range() {
            for &(monotone, direction) in &part.monotone {
                let survivors = monotone_survivors(function, format, direction, monotone, target);
                keep = hull_range(keep, survivors);
            }
        }
    }
    let a = a.intersect(
        &FloatDomain::empty(format)
            .with_range(keep)
            .with_nan(r.may_be_nan()),
    );
    (!a.is_empty()).then_some((a, r))
}

/// One finite piece of an argument domain, cut by the function's shape.
struct FinitePart {
    /// Arguments outside the domain of definition (below it, above it): NaN.
    undefined: (Range, Range),
    /// Defined arguments where the function is monotone, with its direction there.
    monotone: Vec<((Fp, Fp), Direction)>,
    /// Wide runs of defined arguments outside every monotone stretch.
    unmonotone: Vec<(Fp, Fp)>,
    /// glibc's values at the arguments of the short runs outside every stretch.
    evaluated: Vec<(Fp, FloatValue)>,
}

impl FinitePart {
    fn of(
        function: LibmFunction,
        format: crate::format::Format,
        shape: &Shape,
        lo: Fp,
        hi: Fp,
    ) -> FinitePart {
        let below = |edge: Fp| overlap((lo, hi), Fp(i64::MIN), Fp(edge.0 - 1));
        let above = |edge: Fp| overlap((lo, hi), Fp(edge.0 + 1), Fp(i64::MAX));
        let mut part = FinitePart {
            undefined: (below(shape.defined.0), above(shape.defined.1)),
            monotone: Vec::new(),
            unmonotone: Vec::new(),
            evaluated: Vec::new(),
        };
        let mut outside = |(gap_lo, gap_hi): (Fp, Fp)| {
            if gap_hi.0 - gap_lo.0 < FEW_FLOATS {
                part.evaluated.extend(
                    (gap_lo.0..=gap_hi.0)
                        .map(|k| (Fp(k), call_glibc(function, format, FloatValue::Num(Fp(k))))),
                );
            } else {
                part.unmonotone.push((gap_lo, gap_hi));
            }
        };
        let mut monotone = Vec::new();
        if let Some((l, h)) = overlap((lo, hi), shape.defined.0, shape.defined.1) {
            // Walk the stretches in order; what lies before each (and after the last) is
            // outside every one of them.
            let mut next = l;
            for &((s_lo, s_hi), direction) in &shape.monotone {
                if let Some(gap) = overlap((next, h), next, Fp(s_lo.0 - 1)) {
                    outside(gap);
                }
                if let Some(stretch) = overlap((l, h), s_lo, s_hi) {
                    monotone.push((stretch, direction));
                }
                next = next.max(Fp(s_hi.0 + 1));
            }
            if next <= h {
                outside((next, h));
            }
        }
        part.monotone = monotone;
        part
    }
}

/// The arguments of `range` (where `function` is monotone in `direction`) whose
/// enclosure meets `target`: one interval, since both enclosure ends are monotone.
fn monotone_survivors(
    function: LibmFunction,
    format: crate::format::Format,
    direction: Direction,
    (lo, hi): (Fp, Fp),
    (target_lo, target_hi): (Fp, Fp),
) -> Range {
    let low_end = |x: Fp| enclosure(function, format, x).0;
    let high_end = |x: Fp| enclosure(function, format, x).1;
    // First key of [lo, hi] where `holds`, for a predicate false then true along the keys.
    let first = |holds: &dyn Fn(Fp) -> bool| -> Option<Fp> {
        if !holds(hi) {
            return None;
        }
        let (mut low, mut high) = (lo.0, hi.0);
        while low < high {
            let middle = crate::format::middle_key(low, high);
            if holds(Fp(middle)) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        Some(Fp(low))
    };
    // Last key before the first one where `fails` holds (false then true), or `hi`.
    let last_before = |fails: &dyn Fn(Fp) -> bool| -> Range {
        match first(fails) {
            None => Some((hi, hi)),
            Some(p) if p > lo => Some((Fp(p.0 - 1), Fp(p.0 - 1))),
            Some(_) => None,
        }
    };
    let (start, end) = match direction {
        Direction::Increasing => (
            first(&|x| high_end(x) >= target_lo)?,
            last_before(&|x| low_end(x) > target_hi)?.0,
        ),
        Direction::Decreasing => (
            first(&|x| low_end(x) <= target_hi)?,
            last_before(&|x| high_end(x) < target_lo)?.0,
        ),
    };
    (start <= end).then_some((start, end))
}
