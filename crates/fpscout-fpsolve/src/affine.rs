//! Affine forms with rounding-error terms over a node's box: a relational bound that refutes what intervals cannot.
//!
//! Every float variable whose domain is finite and NaN-free gets a form
//! `c0 + Σ ci·εi` (εi ∈ [-1, 1], exact rational coefficients) over one noise symbol per
//! input (its interval's centre and radius) and one fresh symbol per rounding, whose
//! coefficient bounds that operation's error. Operations that interval facts prove exact
//! (Sterbenz, a common power-of-two grid, scaling by a power of two, widening,
//! `sqrt(RN(x·x)) = |x|`) add no symbol, so two computations of the same value get the same
//! form and their difference is exactly known.
//!
//! The invariant (what the tests check exhaustively on minifloats): for every point of the
//! inputs whose evaluation keeps every variable inside its domain, there is one assignment of
//! the noise symbols in [-1, 1] under which every formed variable's value is its form.
//! Comparisons are not assumed by the forms, only checked against them.

use crate::arith::{Arith, BinaryOp};
use crate::domain::FloatDomain;
use crate::format::{floor_log2, shift_rational, Format, Fp, Rounding};
use crate::network::{Constraint, Domain, Network, VarId};
use crate::order::{order_bound, OrderOutcome, OrderPlan};
use crate::project::minmax::MinMaxOp;
use rug::{Integer, Rational};
use std::cmp::Ordering;
use std::collections::HashMap;

/// `c0 + Σ ci·εi` with exact rational coefficients; noise symbols are indices, kept sorted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffineForm {
    constant: Rational,
    terms: Vec<(usize, Rational)>,
}

impl AffineForm {
    /// The form of one real.
    pub fn constant(value: Rational) -> AffineForm {
        AffineForm {
            constant: value,
            terms: Vec::new(),
        }
    }

    /// `centre + radius·ε_symbol`.
    fn symbol(centre: Rational, radius: Rational, symbol: usize) -> AffineForm {
        let mut form = AffineForm::constant(centre);
        form.push_noise(symbol, radius);
        form
    }

    /// The constant term.
    pub fn centre(&self) -> &Rational {
        &self.constant
    }

    /// Sum of the magnitudes of the noise coefficients.
    pub fn radius(&self) -> Rational {
        let mut sum = Rational::new();
        for (_, c) in &self.terms {
            sum += c.clone().abs();
        }
        sum
    }

    /// The smallest and largest values over every assignment of the noise symbols.
    pub fn range(&self) -> (Rational, Rational) {
        let radius = self.radius();
        (
            Rational::from(&self.constant - &radius),
            Rational::from(&self.constant + &radius),
        )
    }

    /// Number of noise symbols with a nonzero coefficient.
    pub fn noise_count(&self) -> usize {
        self.terms.len()
    }

    /// The form's value at an assignment of noise symbols (missing symbols count as 0).
    pub fn evaluate(&self, noise: &dyn Fn(usize) -> Rational) -> Rational {
        let mut value = self.constant.clone();
        for (symbol, c) in &self.terms {
            value += Rational::from(c * &noise(*symbol));
        }
        value
    }

    /// Adds `magnitude·ε_symbol` for a symbol no other term of this form uses yet.
    fn push_noise(&mut self, symbol: usize, magnitude: Rational) {
        if magnitude.cmp0() == Ordering::Equal {
            return;
        }
        debug_assert!(!matches!(self.terms.last(), Some((s, _)) if *s >= symbol));
        self.terms.push((symbol, magnitude));
    }

    /// `self·k_self + other·k_other`, exactly.
    fn combine(&self, k_self: &Rational, other: &AffineForm, k_other: &Rational) -> AffineForm {
        let mut terms = Vec::with_capacity(self.terms.len() + other.terms.len());
        let (mut i, mut j) = (0, 0);
        while i < self.terms.len() || j < other.terms.len() {
            let take_self = j >= other.terms.len()
                || (i < self.terms.len() && self.terms[i].0 <= other.terms[j].0);
            let take_other = i >= self.terms.len()
                || (j < other.terms.len() && other.terms[j].0 <= self.terms[i].0);
            let symbol = if take_self {
                self.terms[i].0
            } else {
                other.terms[j].0
            };
            let mut c = Rational::new();
            if take_self {
                c += Rational::from(&self.terms[i].1 * k_self);
                i += 1;
            }
            if take_other {
                c += Rational::from(&other.terms[j].1 * k_other);
                j += 1;
            }
            if c.cmp0() != Ordering::Equal {
                terms.push((symbol, c));
            }
        }
        AffineForm {
            constant: Rational::from(&self.constant * k_self)
                + Rational::from(&other.constant * k_other),
            terms,
        }
    }

    pub fn plus(&self, other: &AffineForm) -> AffineForm {
        let one = Rational::from(1);
        self.combine(&one, other, &one)
    }

    pub fn minus(&self, other: &AffineForm) -> AffineForm {
        self.combine(&Rational::from(1), other, &Rational::from(-1))
    }

    pub fn scaled(&self, k: &Rational) -> AffineForm {
        AffineForm {
            constant: Rational::from(&self.constant * k),
            terms: self
                .terms
                .iter()
                .filter(|_| k.cmp0() != Ordering::Equal)
                .map(|(s, c)| (*s, Rational::from(c * k)))
                .collect(),
        }
    }

    fn negated(&self) -> AffineForm {
        self.scaled(&Rational::from(-1))
    }

    fn is_constant(&self) -> bool {
        self.terms.is_empty()
    }

    /// The product: the bilinear part `(Σ ai εi)(Σ bj εj)` goes to a fresh symbol with
    /// coefficient `rad(a)·rad(b)` (the standard sound remainder).
    fn times(&self, other: &AffineForm, fresh: usize) -> AffineForm {
        let mut product = self.combine(&other.constant, other, &self.constant);
        product.constant -= Rational::from(&self.constant * &other.constant);
        product.push_noise(fresh, self.radius() * other.radius());
        product
    }
}

/// What [`bound`] concluded about a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bounding {
    /// A comparison cannot hold, or a variable's form range misses its domain: no solution.
    Refuted,
    /// These variables' domains were narrowed to their forms' ranges.
    Narrowed(Vec<VarId>),
    Unchanged,
}

/// What bounding needs from a network's structure alone, computed once per search.
pub struct BoundPlan {
    /// Per constraint: the result of an earlier constraint doing the same operation on the
    /// same operands (its value is the same).
    earlier_same: Vec<Option<VarId>>,
    order: OrderPlan,
}

impl BoundPlan {
    pub fn new(network: &Network) -> BoundPlan {
        let mut first: HashMap<Constraint, VarId> = HashMap::new();
        let earlier_same = network
            .constraints()
            .iter()
            .map(|constraint| {
                let result = constraint.result()?;
                let shape = same_operation(constraint, VarId::from_index(usize::MAX));
                let earlier = *first.entry(shape).or_insert(result);
                (earlier != result).then_some(earlier)
            })
            .collect();
        BoundPlan {
            earlier_same,
            order: OrderPlan::new(network),
        }
    }
}

/// The forms of every variable over the box `domains` (`None`: integer, NaN or infinity
/// possible, or out of the model), in [`VarId`] order.
pub fn affine_forms(network: &Network, domains: &[Domain]) -> Vec<Option<AffineForm>> {
    forms_with(network, &BoundPlan::new(network), domains)
        .unwrap_or_else(|| vec![None; domains.len()])
}

/// The forms, or `None` when the box holds no point whose evaluation stays in the domains.
fn forms_with(
    network: &Network,
    plan: &BoundPlan,
    domains: &[Domain],
) -> Option<Vec<Option<AffineForm>>> {
    let mut builder = Builder {
        network,
        domains,
        arith: network.arith(),
        forms: vec![None; domains.len()],
        next_symbol: 0,
        empty: false,
    };
    builder.build(plan);
    (!builder.empty).then_some(builder.forms)
}

/// Refutes the box when a comparison's two sides have an affine difference whose range
/// rules the predicate out, or when order facts ([`crate::order`]) contradict one, and
/// otherwise narrows domains: defined variables to their forms' ranges (rounded outward
/// to floats), ordered variables to each other's bounds.
pub fn bound(network: &Network, domains: &mut [Domain]) -> Bounding {
    bound_with(network, &BoundPlan::new(network), domains)
}

/// [`bound`] with the network's [`BoundPlan`] computed beforehand.
pub fn bound_with(network: &Network, plan: &BoundPlan, domains: &mut [Domain]) -> Bounding {
    let Some(forms) = forms_with(network, plan, domains) else {
        return Bounding::Refuted;
    };
    let arith = network.arith();
    for constraint in network.constraints() {
        let Constraint::Compare { predicate, a, b } = *constraint else {
            continue;
        };
        if a == b {
            continue;
        }
        let (Some(fa), Some(fb)) = (&forms[a.index()], &forms[b.index()]) else {
            continue;
        };
        // DAZ compares the operands as read: a subnormal as zero, not as its form's value.
        if arith.denormals_are_zero
            && (may_be_subnormal(&domains[a.index()]) || may_be_subnormal(&domains[b.index()]))
        {
            continue;
        }
        let (lo, hi) = fa.minus(fb).range();
        let possible = [
            (lo.cmp0() == Ordering::Less).then_some(Ordering::Less),
            (lo.cmp0() != Ordering::Greater && hi.cmp0() != Ordering::Less)
                .then_some(Ordering::Equal),
            (hi.cmp0() == Ordering::Greater).then_some(Ordering::Greater),
        ];
        if !possible
            .into_iter()
            .flatten()
            .any(|ordering| predicate.holds(Some(ordering)))
        {
            return Bounding::Refuted;
        }
    }
    let mut narrowed = match order_bound(network, &plan.order, domains) {
        OrderOutcome::Refuted => return Bounding::Refuted,
        OrderOutcome::Narrowed(variables) => variables,
    };
    for (index, form) in forms.iter().enumerate() {
        let variable = VarId::from_index(index);
        let (Some(form), Some(Domain::Float(domain))) = (form, domains.get(index)) else {
            continue;
        };
        if !network.is_defined(variable) || form.is_constant() && domain.as_point().is_some() {
            continue;
        }
        let format = domain.format();
        let (lo, hi) = form.range();
        let within = FloatDomain::new(
            format,
            format.round(&lo, Rounding::Up),
            format.round(&hi, Rounding::Down),
            false,
        );
        let kept = domain.intersect(&within);
        if kept.is_empty() {
            return Bounding::Refuted;
        }
        if worth_narrowing(domain, &kept) {
            domains[index] = Domain::Float(kept);
            narrowed.push(variable);
        }
    }
    narrowed.sort();
    narrowed.dedup();
    if narrowed.is_empty() {
        Bounding::Unchanged
    } else {
        Bounding::Narrowed(narrowed)
    }
}

/// Whether narrowing `old` to `new` is worth handing back: it removes at least a quarter
/// of the floats, or halves the width of the real range (floats crowd near zero, so a
/// cut to a thousandth of the width may keep most of them); smaller cuts cost the
/// propagation they wake more than they save.
pub(crate) fn worth_narrowing(old: &FloatDomain, new: &FloatDomain) -> bool {
    if new == old {
        return false;
    }
    if u128::from(new.size()) * 4 <= u128::from(old.size()) * 3 {
        return true;
    }
    let format = old.format();
    let width = |d: &FloatDomain| {
        d.range()
            .map_or(0.0, |(lo, hi)| format.to_f64(hi) - format.to_f64(lo))
    };
    width(new) <= width(old) / 2.0
}

/// Numerator plus denominator bits above which a coefficient is shortened.
const COEFFICIENT_BITS: u32 = 200;

/// A dyadic rational with a 64-bit significand next to `c`: the nearest, or (`upward`)
/// one at least `c` (for a magnitude that must stay a bound).
fn dyadic_near(c: &Rational, upward: bool) -> Rational {
    if c.cmp0() == Ordering::Equal {
        return Rational::new();
    }
    let shift = 64 - floor_log2(&c.clone().abs());
    let mut scaled = c.clone();
    shift_rational(&mut scaled, shift);
    let mut short = if upward {
        scaled.ceil()
    } else {
        scaled.round()
    };
    shift_rational(&mut short, -shift);
    short
}

/// 2^exponent.
fn power_of_two(exponent: i64) -> Rational {
    let mut value = Rational::from(1);
    shift_rational(&mut value, exponent);
    value
}

/// The values of a finite, NaN-free, nonempty float domain as a rational interval.
fn finite_range(domain: &Domain) -> Option<(Rational, Rational)> {
    let Domain::Float(d) = domain else {
        return None;
    };
    if d.may_be_nan() {
        return None;
    }
    let (lo, hi) = d.range()?;
    let format = d.format();
    Some((format.to_rational(lo)?, format.to_rational(hi)?))
}

fn may_be_subnormal(domain: &Domain) -> bool {
    let Domain::Float(d) = domain else {
        return false;
    };
    let format = d.format();
    d.range().is_some_and(|(lo, hi)| {
        let largest = Fp(format.min_normal().0 - 1);
        let (smallest, negative_smallest) = (
            format.min_subnormal(),
            format.negate(format.min_subnormal()),
        );
        // The subnormals are the keys [-largest, -smallest] and [smallest, largest].
        (lo <= negative_smallest && hi >= format.negate(largest))
            || (lo <= largest && hi >= smallest)
    })
}

fn magnitude_max(range: &(Rational, Rational)) -> Rational {
    std::cmp::max(range.0.clone().abs(), range.1.clone().abs())
}

/// The smallest nonzero magnitude of a real interval (`None` when it is `{0}`).
fn magnitude_min_nonzero(range: &(Rational, Rational)) -> Option<Rational> {
    let (lo, hi) = range;
    if lo.cmp0() == Ordering::Greater {
        Some(lo.clone())
    } else if hi.cmp0() == Ordering::Less {
        Some(hi.clone().abs())
    } else if lo.cmp0() == Ordering::Equal && hi.cmp0() == Ordering::Equal {
        None
    } else {
        // Floats close to zero: the smallest subnormal bounds them; the caller takes the
        // format's grid there.
        Some(Rational::new())
    }
}

/// Exponent k such that every float of the domain's range is a multiple of 2^k (the
/// quantum of its smallest nonzero magnitude); `None` when the range is only zeros.
fn quantum_exponent(format: Format, range: &(Rational, Rational)) -> Option<i64> {
    let smallest = magnitude_min_nonzero(range)?;
    let exponent = if smallest.cmp0() == Ordering::Equal {
        format.emin()
    } else {
        floor_log2(&smallest).max(format.emin())
    };
    Some(exponent - format.fraction_bits() as i64)
}

/// Whether a real interval holds a nonzero value of magnitude below 2^emin (what FTZ flushes).
fn may_be_tiny(format: Format, range: &(Rational, Rational)) -> bool {
    let tiny = power_of_two(format.emin());
    let (lo, hi) = range;
    let all_zero = lo.cmp0() == Ordering::Equal && hi.cmp0() == Ordering::Equal;
    !(all_zero || *lo >= tiny || *hi <= -tiny)
}

fn intersect(a: &(Rational, Rational), b: &(Rational, Rational)) -> (Rational, Rational) {
    (
        std::cmp::max(a.0.clone(), b.0.clone()),
        std::cmp::min(a.1.clone(), b.1.clone()),
    )
}

/// `q = ±2^k` for a nonzero rational: `Some(k)`.
fn power_of_two_exponent(q: &Rational) -> Option<i64> {
    if q.cmp0() == Ordering::Equal {
        return None;
    }
    let magnitude = q.clone().abs();
    let exponent = floor_log2(&magnitude);
    (magnitude == power_of_two(exponent)).then_some(exponent)
}

/// Rational bounds `(lo, hi)` with `lo ≤ √q ≤ hi` for `q ≥ 0`, about 2^-100 apart relatively.
fn sqrt_bounds(q: &Rational) -> (Rational, Rational) {
    if q.cmp0() != Ordering::Greater {
        return (Rational::new(), Rational::new());
    }
    let shift = 120 - floor_log2(q).div_euclid(2);
    let mut scaled = q.clone();
    shift_rational(&mut scaled, 2 * shift);
    let floor = scaled.clone().floor().numer().clone();
    let root = floor.sqrt();
    let mut lo = Rational::from(root.clone());
    let mut hi = Rational::from(root + Integer::from(1));
    shift_rational(&mut lo, -shift);
    shift_rational(&mut hi, -shift);
    (lo, hi)
}

struct Builder<'a> {
    network: &'a Network,
    domains: &'a [Domain],
    arith: Arith,
    forms: Vec<Option<AffineForm>>,
    next_symbol: usize,
    /// Set when an operation's image misses its result's domain: the box has no point
    /// whose evaluation stays in the domains.
    empty: bool,
}

impl Builder<'_> {
    fn fresh(&mut self) -> usize {
        self.next_symbol += 1;
        self.next_symbol - 1
    }

    fn range(&self, v: VarId) -> Option<(Rational, Rational)> {
        finite_range(self.domains.get(v.index())?)
    }

    fn format(&self, v: VarId) -> Option<Format> {
        self.domains
            .get(v.index())?
            .as_float()
            .map(FloatDomain::format)
    }

    /// The form saying only "somewhere in the domain": centre plus radius times a fresh symbol.
    fn interval_form(&mut self, v: VarId) -> Option<AffineForm> {
        let (lo, hi) = self.range(v)?;
        if lo == hi {
            return Some(AffineForm::constant(lo));
        }
        let centre = Rational::from(&lo + &hi) / 2u32;
        let radius = Rational::from(&hi - &lo) / 2u32;
        Some(AffineForm::symbol(centre, radius, self.fresh()))
    }

    /// An operand's form; one not computed yet (defined later, out of path order) gets
    /// its domain's interval form, which its later definition then keeps.
    fn operand(&mut self, v: VarId) -> Option<AffineForm> {
        if self.forms[v.index()].is_none() {
            self.forms[v.index()] = self.interval_form(v);
        }
        self.forms[v.index()].clone()
    }

    fn build(&mut self, plan: &BoundPlan) {
        for index in 0..self.domains.len() {
            let v = VarId::from_index(index);
            if !self.network.is_defined(v) {
                self.forms[index] = self.interval_form(v);
            }
        }
        // An operation repeated on the same operands (a path recomputes `a - b`) gives the
        // same value: its result takes the first one's form, not a new rounding symbol.
        for (constraint, earlier) in self.network.constraints().iter().zip(&plan.earlier_same) {
            let Some(result) = constraint.result() else {
                continue;
            };
            if self.forms[result.index()].is_some() || self.format(result).is_none() {
                continue;
            }
            if let Some(first) = *earlier {
                if self.format(first) == self.format(result) && self.forms[first.index()].is_some()
                {
                    self.forms[result.index()] = self.forms[first.index()].clone();
                    continue;
                }
            }
            let form = match self.range(result) {
                // An operation whose result cannot be NaN or infinite in this box.
                Some(result_range) => self
                    .operation(constraint, &result_range)
                    .map(|form| self.tidied(form))
                    .or_else(|| self.interval_form(result)),
                None => None,
            };
            self.forms[result.index()] = form;
        }
    }

    /// The result's form from the operands', `None` when the operation is not modelled.
    fn operation(
        &mut self,
        constraint: &Constraint,
        result_range: &(Rational, Rational),
    ) -> Option<AffineForm> {
        match *constraint {
            Constraint::Binary { op, a, b, result } => {
                let format = self.format(result)?;
                if self.arith.denormals_are_zero
                    && (may_be_subnormal(&self.domains[a.index()])
                        || may_be_subnormal(&self.domains[b.index()]))
                {
                    return None;
                }
                match op {
                    BinaryOp::FAdd | BinaryOp::FSub => {
                        self.add(op == BinaryOp::FSub, a, b, format, result_range)
                    }
                    BinaryOp::FMul => self.mul(a, b, format, result_range),
                    BinaryOp::FDiv => self.div(a, b, format, result_range),
                }
            }
            Constraint::Sqrt { a, result } => {
                let format = self.format(result)?;
                if self.arith.denormals_are_zero && may_be_subnormal(&self.domains[a.index()]) {
                    return None;
                }
                self.sqrt(a, format, result_range)
            }
            Constraint::FNeg { a, .. } => Some(self.operand(a)?.negated()),
            Constraint::FAbs { a, .. } => {
                let (lo, hi) = self.range(a)?;
                if lo.cmp0() != Ordering::Less {
                    self.operand(a)
                } else if hi.cmp0() != Ordering::Greater {
                    Some(self.operand(a)?.negated())
                } else {
                    // Both signs: a fresh symbol over [0, largest magnitude of the
                    // operand's form range], which may be far below the result's domain.
                    let within = intersect(&(lo, hi), &self.operand(a)?.range());
                    let top = std::cmp::max(-within.0, within.1);
                    let (low, high) = intersect(&(Rational::new(), top), result_range);
                    if low > high {
                        // No point of the box keeps both in their domains.
                        self.empty = true;
                        return None;
                    }
                    let centre = Rational::from(&low + &high) / 2u32;
                    let radius = Rational::from(&high - &low) / 2u32;
                    Some(AffineForm::symbol(centre, radius, self.fresh()))
                }
            }
            Constraint::Copy { a, .. } => self.operand(a),
            Constraint::MinMax { op, a, b, .. } => {
                // DAZ: the choice compares the operands as read, not their values.
                if self.arith.denormals_are_zero
                    && (may_be_subnormal(&self.domains[a.index()])
                        || may_be_subnormal(&self.domains[b.index()]))
                {
                    return None;
                }
                let (ra, rb) = (self.range(a)?, self.range(b)?);
                // min is `a < b ? a : b`: when the order is decided by the domains the
                // result is one operand's value (equal values are the same real).
                let a_below = ra.1 <= rb.0;
                let b_below = rb.1 <= ra.0;
                match (op, a_below, b_below) {
                    (MinMaxOp::Min, true, _) | (MinMaxOp::Max, _, true) => self.operand(a),
                    (MinMaxOp::Min, _, true) | (MinMaxOp::Max, true, _) => self.operand(b),
                    _ => None,
                }
            }
            Constraint::FloatConvert { a, result } => {
                let (from, to) = (self.format(a)?, self.format(result)?);
                if self.arith.denormals_are_zero && may_be_subnormal(&self.domains[a.index()]) {
                    return None;
                }
                let form = self.operand(a)?;
                let widening = to.precision() >= from.precision()
                    && to.emin() <= from.emin()
                    && to.emax() >= from.emax();
                if widening {
                    // Every value of `from` is a value of `to`; FTZ still flushes what is
                    // tiny in `to`.
                    if self.arith.flush_to_zero && may_be_tiny(to, &self.range(a)?) {
                        return None;
                    }
                    return Some(form);
                }
                let exact_range = intersect(&form.range(), &self.range(a)?);
                let error = self.error_bound(to, false, &exact_range, result_range);
                Some(self.rounded(form, error))
            }
            Constraint::IntToFloat { a, result } => self.truncated(a, result, result_range),
            // glibc's libm: the result's interval (no linearisation of its error).
            Constraint::FloatToInt { .. }
            | Constraint::BitsToInt { .. }
            | Constraint::IntSum { .. }
            | Constraint::Libm { .. }
            | Constraint::LibmBinary { .. } => None,
            Constraint::Compare { .. }
            | Constraint::Class { .. }
            | Constraint::InSet { .. }
            | Constraint::IntCompare { .. } => None,
        }
    }

    /// `(double)(int)u` (`result` converted from `k`, `k = fptosi(u)`): u truncated
    /// toward zero, so u minus [0, 1) where u >= 0, plus it where u <= 0, and within 1
    /// either way, with no rounding while every integer it can be is exact in the
    /// result's format. The relation survives what the integer does in between (its
    /// domain only narrows); a conversion of any other integer is not modelled.
    fn truncated(
        &mut self,
        k: VarId,
        result: VarId,
        result_range: &(Rational, Rational),
    ) -> Option<AffineForm> {
        let Some(&Constraint::FloatToInt { a: u, .. }) = self.network.definition(k) else {
            return None;
        };
        let format = self.format(result)?;
        let exact = Rational::from(Integer::from(1) << format.precision());
        // Below 2^p in magnitude the integer is too (a larger one converts to 2^p or
        // beyond), and it converts exactly.
        if result_range.0 <= -exact.clone() || result_range.1 >= exact {
            return None;
        }
        let (lo, hi) = self.range(u)?;
        let form = self.operand(u)?;
        let half = Rational::from((1, 2));
        let (shift, radius) = if lo.cmp0() != Ordering::Less {
            (-half.clone(), half)
        } else if hi.cmp0() != Ordering::Greater {
            (half.clone(), half)
        } else {
            (Rational::new(), Rational::from(1))
        };
        Some(form.plus(&AffineForm::symbol(shift, radius, self.fresh())))
    }

    /// A bound on |result - exact| for one rounding to nearest into `format`: half an ulp
    /// of the result range's largest magnitude (the subnormal spacing at the bottom), zero
    /// for a proven-exact operation; under FTZ at least 2^emin when the exact value may be
    /// tiny (it is then flushed to a zero).
    fn error_bound(
        &self,
        format: Format,
        exact: bool,
        exact_range: &(Rational, Rational),
        result_range: &(Rational, Rational),
    ) -> Rational {
        let mut error = if exact {
            Rational::new()
        } else {
            // Half an ulp of the largest result; or of the largest exact value, where a
            // power of two 2^e at the top counts as below it (2^e itself rounds exactly).
            let half_ulp = |largest: Rational, power_at_top_is_exact: bool| {
                if largest.cmp0() == Ordering::Equal {
                    return power_of_two(format.emin() - format.precision() as i64);
                }
                let mut exponent = floor_log2(&largest);
                if power_at_top_is_exact && largest == power_of_two(exponent) {
                    exponent -= 1;
                }
                power_of_two(exponent.max(format.emin()) - format.precision() as i64)
            };
            std::cmp::min(
                half_ulp(magnitude_max(result_range), false),
                half_ulp(magnitude_max(exact_range), true),
            )
        };
        if self.arith.flush_to_zero && may_be_tiny(format, exact_range) {
            error = std::cmp::max(error, power_of_two(format.emin()));
        }
        error
    }

    /// The form with every coefficient longer than [`COEFFICIENT_BITS`] replaced by a
    /// nearby short dyadic one, the differences' sum (rounded up) going to a fresh symbol:
    /// chains of divisions and square roots would otherwise grow the rationals (and their
    /// gcds) without bound.
    fn tidied(&mut self, mut form: AffineForm) -> AffineForm {
        let mut slack = Rational::new();
        let mut shorten = |c: &mut Rational| {
            if c.numer().significant_bits() + c.denom().significant_bits() > COEFFICIENT_BITS {
                let short = dyadic_near(c, false);
                slack += Rational::from(&*c - &short).abs();
                *c = short;
            }
        };
        shorten(&mut form.constant);
        for (_, c) in form.terms.iter_mut() {
            shorten(c);
        }
        if slack.cmp0() == Ordering::Equal {
            return form;
        }
        form.terms.retain(|(_, c)| c.cmp0() != Ordering::Equal);
        let symbol = self.fresh();
        form.push_noise(symbol, dyadic_near(&slack, true));
        form
    }

    fn rounded(&mut self, mut form: AffineForm, error: Rational) -> AffineForm {
        if error.cmp0() != Ordering::Equal {
            let symbol = self.fresh();
            form.push_noise(symbol, error);
        }
        form
    }

    fn add(
        &mut self,
        subtract: bool,
        a: VarId,
        b: VarId,
        format: Format,
        result_range: &(Rational, Rational),
    ) -> Option<AffineForm> {
        let (fa, fb) = (self.operand(a)?, self.operand(b)?);
        let (ra, rb) = (self.range(a)?, self.range(b)?);
        let (rb_signed, exact_form) = if subtract {
            ((-rb.1.clone(), -rb.0.clone()), fa.minus(&fb))
        } else {
            (rb.clone(), fa.plus(&fb))
        };
        let interval = (
            Rational::from(&ra.0 + &rb_signed.0),
            Rational::from(&ra.1 + &rb_signed.1),
        );
        let exact_range = intersect(&interval, &exact_form.range());
        let exact = sum_is_exact(format, &ra, &rb_signed, &exact_range);
        let error = self.error_bound(format, exact, &exact_range, result_range);
        Some(self.rounded(exact_form, error))
    }

    fn mul(
        &mut self,
        a: VarId,
        b: VarId,
        format: Format,
        result_range: &(Rational, Rational),
    ) -> Option<AffineForm> {
        let (fa, fb) = (self.operand(a)?, self.operand(b)?);
        let (ra, rb) = (self.range(a)?, self.range(b)?);
        let corners = [
            Rational::from(&ra.0 * &rb.0),
            Rational::from(&ra.0 * &rb.1),
            Rational::from(&ra.1 * &rb.0),
            Rational::from(&ra.1 * &rb.1),
        ];
        let interval = (
            corners.iter().min().cloned().unwrap_or_default(),
            corners.iter().max().cloned().unwrap_or_default(),
        );
        // By a constant: the product is an exact scaling, exact in floats for a power of
        // two whose product stays on the grid (the result range is finite: no overflow).
        let (exact_form, exact) = if fb.is_constant() {
            let exact = scaling_is_exact(format, &ra, fb.centre(), false);
            (fa.scaled(fb.centre()), exact)
        } else if fa.is_constant() {
            let exact = scaling_is_exact(format, &rb, fa.centre(), false);
            (fb.scaled(fa.centre()), exact)
        } else {
            let fresh = self.fresh();
            (fa.times(&fb, fresh), false)
        };
        let exact_range = intersect(&interval, &exact_form.range());
        let error = self.error_bound(format, exact, &exact_range, result_range);
        Some(self.rounded(exact_form, error))
    }

    fn div(
        &mut self,
        a: VarId,
        b: VarId,
        format: Format,
        result_range: &(Rational, Rational),
    ) -> Option<AffineForm> {
        let (fa, fb) = (self.operand(a)?, self.operand(b)?);
        let (ra, rb) = (self.range(a)?, self.range(b)?);
        let divisor = intersect(&rb, &fb.range());
        // An empty intersection (a form pinned to 0, as `x - x` is, against a domain
        // narrowed away from 0) holds no value: no form, rather than a reciprocal of 0.
        if divisor.0 > divisor.1
            || (divisor.0.cmp0() != Ordering::Greater && divisor.1.cmp0() != Ordering::Less)
        {
            return None;
        }
        let (exact_form, exact) = if fb.is_constant() {
            let exact = scaling_is_exact(format, &ra, fb.centre(), true);
            (fa.scaled(&Rational::from(fb.centre().recip_ref())), exact)
        } else {
            let reciprocal = self.reciprocal(&fb, &divisor);
            if fa.is_constant() {
                (reciprocal.scaled(fa.centre()), false)
            } else {
                let fresh = self.fresh();
                (fa.times(&reciprocal, fresh), false)
            }
        };
        let corners = [
            Rational::from(&ra.0 / &divisor.0),
            Rational::from(&ra.0 / &divisor.1),
            Rational::from(&ra.1 / &divisor.0),
            Rational::from(&ra.1 / &divisor.1),
        ];
        let interval = (
            corners.iter().min().cloned().unwrap_or_default(),
            corners.iter().max().cloned().unwrap_or_default(),
        );
        let exact_range = intersect(&interval, &exact_form.range());
        let error = self.error_bound(format, exact, &exact_range, result_range);
        Some(self.rounded(exact_form, error))
    }

    /// `1/x` for `x` in `divisor` (one sign, no zero) as `α·x + ζ ± δ`: the chord slope
    /// `α = -1/(l·u)` leaves `1/x - α·x` between `2/√(l·u)` (at √(l·u)) and `1/l + 1/u`
    /// (at both ends), on positive `x`; negative `x` by symmetry.
    fn reciprocal(&mut self, form: &AffineForm, divisor: &(Rational, Rational)) -> AffineForm {
        let negative = divisor.1.cmp0() == Ordering::Less;
        let (l, u) = if negative {
            (-divisor.1.clone(), -divisor.0.clone())
        } else {
            divisor.clone()
        };
        let form = if negative {
            form.negated()
        } else {
            form.clone()
        };
        let reciprocal = if l == u {
            AffineForm::constant(Rational::from(l.recip_ref()))
        } else {
            let lu = Rational::from(&l * &u);
            let slope = -Rational::from(lu.recip_ref());
            let (_, root_hi) = sqrt_bounds(&lu);
            let low = Rational::from(2) / root_hi;
            let high = Rational::from(l.recip_ref()) + Rational::from(u.recip_ref());
            let centre = Rational::from(&low + &high) / 2u32;
            let radius = Rational::from(&high - &low) / 2u32;
            let mut linear = form.scaled(&slope);
            linear.constant += centre;
            let symbol = self.fresh();
            linear.push_noise(symbol, radius);
            linear
        };
        if negative {
            reciprocal.negated()
        } else {
            reciprocal
        }
    }

    fn sqrt(
        &mut self,
        a: VarId,
        format: Format,
        result_range: &(Rational, Rational),
    ) -> Option<AffineForm> {
        if let Some(root) = self.sqrt_of_square(a, format) {
            return Some(root);
        }
        let fa = self.operand(a)?;
        let range = intersect(&self.range(a)?, &fa.range());
        // A non-NaN result needs a non-negative operand (or -0).
        let (l, u) = (std::cmp::max(range.0, Rational::new()), range.1);
        if u.cmp0() != Ordering::Greater {
            return Some(AffineForm::constant(Rational::new()));
        }
        let (l_lo, l_hi) = sqrt_bounds(&l);
        let (u_lo, u_hi) = sqrt_bounds(&u);
        // sqrt(x) - α·x is concave: at least its smaller end value, at most its maximum
        // 1/(4α) (at x = 1/(4α²)) or, when that lies outside [l, u], its larger end value.
        let slope = Rational::from(Rational::from(&l_lo + &u_hi).recip_ref());
        let at = |root: &Rational, x: &Rational| root - Rational::from(&slope * x);
        let low = std::cmp::min(at(&l_lo, &l), at(&u_lo, &u));
        let peak_at = Rational::from((Rational::from(&slope * &slope) * 4u32).recip_ref());
        let high = if l <= peak_at && peak_at <= u {
            Rational::from(Rational::from(&slope * 4u32).recip_ref())
        } else {
            std::cmp::max(at(&l_hi, &l), at(&u_hi, &u))
        };
        let centre = Rational::from(&low + &high) / 2u32;
        let radius = Rational::from(&high - &low) / 2u32;
        let mut form = fa.scaled(&slope);
        form.constant += centre;
        let symbol = self.fresh();
        form.push_noise(symbol, radius);
        let exact_range = (l_lo, u_hi);
        let error = self.error_bound(format, false, &exact_range, result_range);
        Some(self.rounded(form, error))
    }

    /// `sqrt(RN(x·x)) = |x|` when `RN(x·x)` is a finite normal number (checked
    /// exhaustively on small formats by the tests): the root is `x`'s form, signed.
    fn sqrt_of_square(&mut self, square: VarId, format: Format) -> Option<AffineForm> {
        let (lo, hi) = self.range(square)?;
        if lo < power_of_two(format.emin()) || hi.cmp0() != Ordering::Greater {
            return None;
        }
        let x = self.network.constraints().iter().find_map(|c| match *c {
            Constraint::Binary {
                op: BinaryOp::FMul,
                a,
                b,
                result,
            } if result == square && a == b => Some(a),
            _ => None,
        })?;
        let (x_lo, x_hi) = self.range(x)?;
        if x_lo.cmp0() != Ordering::Less {
            self.operand(x)
        } else if x_hi.cmp0() != Ordering::Greater {
            Some(self.operand(x)?.negated())
        } else {
            None
        }
    }
}

/// Whether `x + y` (x in `ra`, y in `rb`, the exact sum in `sum`) is a float of `format`:
/// Sterbenz (opposite signs, magnitudes within a factor two), or both operands on the grid
/// 2^k and the sum below 2^(k+p) in magnitude.
fn sum_is_exact(
    format: Format,
    ra: &(Rational, Rational),
    rb: &(Rational, Rational),
    sum: &(Rational, Rational),
) -> bool {
    let is_zero =
        |r: &(Rational, Rational)| r.0.cmp0() == Ordering::Equal && r.1.cmp0() == Ordering::Equal;
    if is_zero(ra) || is_zero(rb) {
        // x ± 0 is x (up to the sign of a zero result, which the value ignores).
        return true;
    }
    let (a_pos, a_neg) = (
        ra.0.cmp0() != Ordering::Less,
        ra.1.cmp0() != Ordering::Greater,
    );
    let (b_pos, b_neg) = (
        rb.0.cmp0() != Ordering::Less,
        rb.1.cmp0() != Ordering::Greater,
    );
    let magnitudes = |r: &(Rational, Rational), positive: bool| {
        if positive {
            (r.0.clone(), r.1.clone())
        } else {
            (-r.1.clone(), -r.0.clone())
        }
    };
    if (a_pos && b_neg) || (a_neg && b_pos) {
        // Sterbenz on magnitudes: x - y is exact when y/2 ≤ x ≤ 2y (x, y ≥ 0).
        let (x, y) = (magnitudes(ra, a_pos), magnitudes(rb, b_pos));
        if Rational::from(&y.1 / 2u32) <= x.0 && x.1 <= Rational::from(&y.0 * 2u32) {
            return true;
        }
    }
    let grid = match (quantum_exponent(format, ra), quantum_exponent(format, rb)) {
        (None, None) => return true,
        (Some(k), None) | (None, Some(k)) => k,
        (Some(k), Some(l)) => k.min(l),
    };
    magnitude_max(sum) < power_of_two(grid + format.precision() as i64)
}

/// Whether `x·c` (or `x/c` when `divide`) is exact for every float `x` of `range` and the
/// result is finite: `c = ±2^k` and `x`'s grid shifted by `k` stays on the format's grid.
fn scaling_is_exact(
    format: Format,
    range: &(Rational, Rational),
    c: &Rational,
    divide: bool,
) -> bool {
    let Some(k) = power_of_two_exponent(c) else {
        return false;
    };
    let k = if divide { -k } else { k };
    match quantum_exponent(format, range) {
        None => true,
        Some(grid) => grid + k >= format.emin() - format.fraction_bits() as i64,
    }
}

/// The constraint with its result replaced by `result`: two operations of the same shape
/// compute the same value from the same operands.
pub(crate) fn same_operation(constraint: &Constraint, result: VarId) -> Constraint {
    let mut shape = constraint.clone();
    match &mut shape {
        Constraint::Binary { result: r, .. }
        | Constraint::MinMax { result: r, .. }
        | Constraint::Sqrt { result: r, .. }
        | Constraint::Libm { result: r, .. }
        | Constraint::LibmBinary { result: r, .. }
        | Constraint::FNeg { result: r, .. }
        | Constraint::FAbs { result: r, .. }
        | Constraint::Copy { result: r, .. }
        | Constraint::FloatConvert { result: r, .. }
        | Constraint::IntToFloat { result: r, .. }
        | Constraint::FloatToInt { result: r, .. }
        | Constraint::BitsToInt { result: r, .. }
        | Constraint::IntSum { result: r, .. } => *r = result,
        Constraint::Compare { .. }
        | Constraint::Class { .. }
        | Constraint::InSet { .. }
        | Constraint::IntCompare { .. } => {}
    }
    shape
}
