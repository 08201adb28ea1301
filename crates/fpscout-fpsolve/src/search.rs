//! Search over a network: propagation at every node, domain splitting, answers that are proofs or checked solutions.

use crate::domain::{FloatDomain, IntDomain};
use crate::format::{middle_key, Fp};
use crate::network::{Domain, Network, Propagation, Value, VarId};
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::time::Instant;

/// How a chosen variable's domain is cut into branches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Split {
    /// `[l, m] | (m, r]`.
    Bisect,
    /// `l | (l, m) | m | (m, r) | r`: the bounds and the middle are tried as points first.
    FiveWay,
}

/// The search strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Splits cover the whole domain: an exhausted search proves infeasibility.
    Complete(Split),
    /// Tries only the points `l`, `m`, `r` of each chosen variable: fast, incomplete. An
    /// exhausted probe answers `Unknown(IncompleteStrategy)`, never `Infeasible`.
    ThreePointProbe,
}

/// Consistency enforced at every node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Consistency {
    /// Propagation to a fixpoint of the projections.
    TwoB,
    /// 2B plus shaving: slices of `1/slices` of a float domain at each end are refuted by
    /// propagation and cut off.
    ThreeB { slices: u32 },
}

/// Limits and options of a search.
#[derive(Clone, Debug)]
pub struct SearchConfig {
    pub strategy: Strategy,
    pub consistency: Consistency,
    /// Nodes (propagations of a branch) before giving up.
    pub node_budget: u64,
    /// Projections per propagation; running out narrows less but stays sound.
    pub propagation_budget: u64,
    /// Fraction of a domain's values a narrowing must remove to wake its other constraints
    /// (domains of at most 1024 values are always propagated exactly). 0 is the exact 2B
    /// fixpoint; a small ratio stops bounds creeping one float at a time.
    pub min_reduction: f64,
    pub deadline: Option<Instant>,
    /// Set to `true` from another thread to stop the search.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            strategy: Strategy::Complete(Split::FiveWay),
            consistency: Consistency::TwoB,
            node_budget: 100_000,
            propagation_budget: 100_000,
            min_reduction: 1e-3,
            deadline: None,
            cancel: None,
        }
    }
}

/// Why a search stopped without a definite answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopReason {
    NodeBudget,
    Deadline,
    Cancelled,
    /// An incomplete strategy (probing) explored all it would and found nothing.
    IncompleteStrategy,
    /// `enumerate` found as many solutions as it was asked for.
    SolutionLimit,
}

/// One value per variable of the network, in [`VarId`] order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Assignment {
    values: Vec<Value>,
}

impl Assignment {
    pub fn get(&self, v: VarId) -> Option<Value> {
        self.values.get(v.index()).copied()
    }

    pub fn values(&self) -> &[Value] {
        &self.values
    }
}

/// The solver's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A solution, re-checked by concrete evaluation of every constraint.
    Solution(Assignment),
    /// No float solution: a complete search emptied every branch.
    Infeasible,
    Unknown(StopReason),
}

/// An answer with the effort spent on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub answer: Answer,
    pub nodes: u64,
    /// False when an incomplete strategy produced the answer (a probed solution is still
    /// a checked solution; an incomplete search never claims infeasibility).
    pub complete: bool,
}

/// All solutions found, up to a limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enumeration {
    pub solutions: Vec<Assignment>,
    /// `None` when the complete search space was exhausted, so there are no others.
    pub stopped: Option<StopReason>,
    pub nodes: u64,
}

/// Searches for one solution.
///
/// ```
/// use fpscout_fpsolve::{solve, Answer, Arith, FcmpPredicate, Format, Network, Propagation, SearchConfig};
///
/// // FPSE's foo_m: x > 0 ∧ x ⊕ 1e12 = 1e12 in f32 (false over the reals).
/// let mut net = Network::new(Arith::IEEE);
/// let x = net.float_var("x", Format::F32);
/// let zero = net.float_const_f64(Format::F32, 0.0);
/// let big = net.float_const_f64(Format::F32, f64::from(1e12f32));
/// net.require(FcmpPredicate::Ogt, x, zero, true)?;
/// let sum = net.fadd(x, big)?;
/// net.require(FcmpPredicate::Oeq, sum, big, true)?;
/// assert!(matches!(solve(&net, &SearchConfig::default()).answer, Answer::Solution(_)));
/// // The domain after propagation: x ∈ [2^-149, 32767.998046875].
/// assert_eq!(net.propagate(10_000), Propagation::Fixpoint);
/// let (lo, hi) = net.float_domain(x)?.range().expect("not empty");
/// assert_eq!((Format::F32.to_f64(lo), Format::F32.to_f64(hi)), (2f64.powi(-149), 32767.998046875));
/// # Ok::<(), fpscout_fpsolve::NetworkError>(())
/// ```
pub fn solve(network: &Network, config: &SearchConfig) -> Report {
    let mut search = Search {
        network,
        config,
        nodes: 0,
    };
    let mut found = None;
    let stopped = search.run(&mut |assignment| {
        found = Some(assignment);
        false
    });
    let complete = !matches!(config.strategy, Strategy::ThreePointProbe);
    let answer = match (found, stopped) {
        (Some(assignment), _) => Answer::Solution(assignment),
        (None, Some(reason)) => Answer::Unknown(reason),
        (None, None) if complete => Answer::Infeasible,
        (None, None) => Answer::Unknown(StopReason::IncompleteStrategy),
    };
    Report {
        answer,
        nodes: search.nodes,
        complete,
    }
}

/// Searches for up to `limit` solutions (distinct assignments of every variable). With
/// `stopped == None` the list is every solution: the complete search covered all branches.
pub fn enumerate(network: &Network, config: &SearchConfig, limit: usize) -> Enumeration {
    let mut search = Search {
        network,
        config,
        nodes: 0,
    };
    let mut solutions = Vec::new();
    let mut stopped = search.run(&mut |assignment| {
        if solutions.len() < limit {
            solutions.push(assignment);
        }
        solutions.len() < limit
    });
    if stopped.is_none() && matches!(config.strategy, Strategy::ThreePointProbe) {
        stopped = Some(StopReason::IncompleteStrategy);
    }
    Enumeration {
        solutions,
        stopped,
        nodes: search.nodes,
    }
}

struct Search<'a> {
    network: &'a Network,
    config: &'a SearchConfig,
    nodes: u64,
}

impl Search<'_> {
    /// Depth-first search; `on_solution` returns whether to continue. Returns why the search
    /// stopped early, or `None` when it covered everything it was asked to.
    fn run(&mut self, on_solution: &mut dyn FnMut(Assignment) -> bool) -> Option<StopReason> {
        let mut stack: Vec<(Vec<Domain>, Option<VarId>)> =
            vec![(self.network.domains().to_vec(), None)];
        while let Some((mut domains, changed)) = stack.pop() {
            if let Some(reason) = self.stop_reason() {
                return Some(reason);
            }
            self.nodes += 1;
            let seed = changed.map(|v| vec![v]);
            if self.network.propagate_domains(
                &mut domains,
                self.config.propagation_budget,
                self.config.min_reduction,
                seed.as_deref(),
            ) == Propagation::Infeasible
            {
                continue;
            }
            if let Consistency::ThreeB { slices } = self.config.consistency {
                if !self.shave(&mut domains, slices.max(2)) {
                    continue;
                }
            }
            let Some(variable) = choose_variable(self.network, &domains) else {
                let values: Option<Vec<Value>> = domains.iter().map(Domain::as_point).collect();
                if let Some(values) = values {
                    if self.network.check(&values) == Ok(true)
                        && !on_solution(Assignment { values })
                    {
                        return Some(StopReason::SolutionLimit);
                    }
                }
                continue;
            };
            let branches = match self.config.strategy {
                Strategy::Complete(split) => split_domain(&domains[variable.index()], split),
                Strategy::ThreePointProbe => probe_points(&domains[variable.index()]),
            };
            for branch in branches.into_iter().rev() {
                let mut child = domains.clone();
                child[variable.index()] = branch;
                stack.push((child, Some(variable)));
            }
        }
        None
    }

    fn stop_reason(&self) -> Option<StopReason> {
        if self.nodes >= self.config.node_budget {
            return Some(StopReason::NodeBudget);
        }
        if self
            .config
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Some(StopReason::Deadline);
        }
        if self
            .config
            .cancel
            .as_ref()
            .is_some_and(|flag| flag.load(AtomicOrdering::Relaxed))
        {
            return Some(StopReason::Cancelled);
        }
        None
    }

    /// 3B shaving on float variables: cuts end slices whose propagation empties a domain.
    /// Returns false when the node is infeasible.
    fn shave(&self, domains: &mut [Domain], slices: u32) -> bool {
        let budget = self.config.propagation_budget;
        for index in 0..domains.len() {
            let variable = VarId::from_index(index);
            for from_low_end in [true, false] {
                while let Some((slice, rest)) = end_slice(&domains[index], slices, from_low_end) {
                    let mut trial = domains.to_vec();
                    trial[index] = Domain::Float(slice);
                    if self.network.propagate_domains(
                        &mut trial,
                        budget,
                        self.config.min_reduction,
                        Some(&[variable]),
                    ) != Propagation::Infeasible
                    {
                        break;
                    }
                    domains[index] = Domain::Float(rest);
                    if self.network.propagate_domains(
                        domains,
                        budget,
                        self.config.min_reduction,
                        Some(&[variable]),
                    ) == Propagation::Infeasible
                    {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// A slice of `1/slices` of a float domain's range at one end, and the rest (NaN stays in
/// the rest), when the range has at least two floats.
fn end_slice(
    domain: &Domain,
    slices: u32,
    from_low_end: bool,
) -> Option<(FloatDomain, FloatDomain)> {
    let Domain::Float(current) = domain else {
        return None;
    };
    let (lo, hi) = current.range()?;
    let count = current.format().count(lo, hi);
    if count <= 1 {
        return None;
    }
    let width = (count / u64::from(slices)).max(1) as i64;
    Some(if from_low_end {
        (
            current.clamp(lo, Fp(lo.0 + width - 1)).without_nan(),
            current.clamp(Fp(lo.0 + width), hi),
        )
    } else {
        (
            current.clamp(Fp(hi.0 - width + 1), hi).without_nan(),
            current.clamp(lo, Fp(hi.0 - width)),
        )
    })
}

/// The variable to split: largest domain first (floats counted on the ordered line), among
/// the network's inputs — variables no operation defines — while any has two values. An
/// operation's result follows from its operands (a direct projection of points is the exact
/// point), and splitting it instead would search the relaxation: `y - y` ranges over every
/// float when its two operands are treated apart.
fn choose_variable(network: &Network, domains: &[Domain]) -> Option<VarId> {
    let largest = |inputs_only: bool| {
        domains
            .iter()
            .enumerate()
            .filter(|&(index, d)| {
                d.size() > 1 && !(inputs_only && network.is_defined(VarId::from_index(index)))
            })
            .max_by_key(|(index, d)| (d.size(), std::cmp::Reverse(*index)))
            .map(|(index, _)| VarId::from_index(index))
    };
    largest(true).or_else(|| largest(false))
}

/// Cuts a domain with at least two values; the branches cover it exactly.
fn split_domain(domain: &Domain, split: Split) -> Vec<Domain> {
    match domain {
        Domain::Float(d) => {
            let format = d.format();
            let Some((lo, hi)) = d.range() else {
                return vec![domain.clone()];
            };
            if d.may_be_nan() {
                return vec![
                    Domain::Float(d.without_nan()),
                    Domain::Float(FloatDomain::nan_only(format)),
                ];
            }
            split_keys(lo.0, hi.0, split)
                .into_iter()
                .map(|(l, h)| Domain::Float(d.clamp(Fp(l), Fp(h))))
                .collect()
        }
        Domain::Int(d) => {
            let Some((lo, hi)) = d.range() else {
                return vec![domain.clone()];
            };
            let (lo64, hi64) = (
                lo.clamp(i64::MIN as i128, i64::MAX as i128),
                hi.clamp(i64::MIN as i128, i64::MAX as i128),
            );
            if lo64 != lo || hi64 != hi {
                let middle = lo + (hi - lo) / 2;
                return vec![
                    Domain::Int(IntDomain::new(lo, middle)),
                    Domain::Int(IntDomain::new(middle + 1, hi)),
                ];
            }
            split_keys(lo as i64, hi as i64, split)
                .into_iter()
                .map(|(l, h)| Domain::Int(IntDomain::new(i128::from(l), i128::from(h))))
                .collect()
        }
    }
}

/// Sub-ranges of `[lo, hi]` (lo < hi) covering it without overlap.
fn split_keys(lo: i64, hi: i64, split: Split) -> Vec<(i64, i64)> {
    let middle = middle_key(lo, hi);
    match split {
        Split::Bisect => vec![(lo, middle), (middle + 1, hi)],
        Split::FiveWay => {
            let parts = [
                (lo, lo),
                (lo + 1, middle - 1),
                (middle, middle),
                (middle + 1, hi - 1),
                (hi, hi),
            ];
            // In ranges of two or three values the middle coincides with an end.
            let mut distinct: Vec<(i64, i64)> = Vec::with_capacity(5);
            for part in parts.into_iter().filter(|&(l, h)| l <= h) {
                if !distinct.contains(&part) {
                    distinct.push(part);
                }
            }
            distinct
        }
    }
}

/// The points `l`, `m`, `r` of a domain (NaN too when possible).
fn probe_points(domain: &Domain) -> Vec<Domain> {
    let mut points = Vec::new();
    match domain {
        Domain::Float(d) => {
            if let Some((lo, hi)) = d.range() {
                let middle = d.format().midpoint_in_order(lo, hi);
                for x in [lo, middle, hi] {
                    let point = Domain::Float(d.clamp(x, x).without_nan());
                    if !points.contains(&point) {
                        points.push(point);
                    }
                }
            }
            if d.may_be_nan() {
                points.push(Domain::Float(FloatDomain::nan_only(d.format())));
            }
        }
        Domain::Int(d) => {
            if let Some((lo, hi)) = d.range() {
                for x in [lo, lo + (hi - lo) / 2, hi] {
                    let point = Domain::Int(IntDomain::new(x, x));
                    if !points.contains(&point) {
                        points.push(point);
                    }
                }
            }
        }
    }
    points
}
