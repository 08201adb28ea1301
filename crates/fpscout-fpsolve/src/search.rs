//! Search over a network: propagation at every node, domain splitting, answers that are proofs or checked solutions.

use crate::affine::{bound_with, BoundPlan, Bounding};
use crate::domain::{FloatDomain, IntDomain};
use crate::format::{middle_key, FloatValue, Format, Fp};
use crate::machine::MachineProgram;
use crate::network::{Domain, Network, Propagation, Value, VarId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
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
    /// The five parts of [`Split::FiveWay`] explored `r | l | m | (m, r) | (l, m)`: every
    /// point before any interval, so that depth-first search visits the corners and faces
    /// of the box first (where extremes sit) instead of sinking into its lowest corner.
    EndsFirst,
}

/// The search strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Splits cover the whole domain: an exhausted search proves infeasibility.
    Complete(Split),
    /// Tries only the points `l`, `m`, `r` of each chosen variable: fast, incomplete. An
    /// exhausted probe answers `Unknown(IncompleteStrategy)`, never `Infeasible`.
    ThreePointProbe,
    /// Random points of the propagated box, seeded by `seed`, alternately drawn at once
    /// and by a dive (each input in turn, largest domain first, fixed to a random value of
    /// its domain propagated after the previous choices: thin solution sets such as
    /// `a = b + c` are met). Half of each input's draws are uniform over its floats, half
    /// uniform over its real range. Every draw and every propagation of a dive counts as
    /// a node. Finds solutions spread over a box, where depth-first search stays in one
    /// corner; incomplete like probing.
    Sample { seed: u64 },
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
    /// A node whose inputs (variables no operation defines) have at most this many points
    /// together is decided by evaluating every point ([`Network::evaluate`]) instead of
    /// being split; 0 splits down to points. Evaluating a point costs about what one
    /// projection does, propagating a node hundreds of them.
    pub leaf_points: u64,
    /// [`SearchConfig::leaf_points`] for networks that run on the machine (binary32 and
    /// binary64 in IEEE mode), where a point costs a few nanoseconds per operation.
    pub machine_leaf_points: u64,
    /// Random points of each node's box evaluated before it is split (by [`solve`] only:
    /// [`enumerate`] lists each solution once, from the leaves).
    pub probes_per_node: u32,
    /// Whether each propagated node is also bounded by affine forms with rounding-error
    /// terms ([`crate::affine::bound`]): refutes boxes whose comparisons fail only
    /// through relations between variables, and narrows domains to the forms' ranges.
    pub affine: bool,
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
            leaf_points: 1024,
            machine_leaf_points: 1 << 16,
            probes_per_node: 2,
            affine: true,
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
    let mut search = Search::new(network, config, true);
    let mut found = None;
    let stopped = search.run(&mut |assignment| {
        found = Some(assignment);
        false
    });
    let complete = matches!(config.strategy, Strategy::Complete(_));
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
    let mut search = Search::new(network, config, false);
    let mut solutions = Vec::new();
    let mut stopped = search.run(&mut |assignment| {
        if solutions.len() < limit {
            solutions.push(assignment);
        }
        solutions.len() < limit
    });
    if stopped.is_none() && !matches!(config.strategy, Strategy::Complete(_)) {
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
    /// Variables no operation defines: a point of these decides every other variable.
    inputs: Vec<VarId>,
    /// Whether random points are evaluated at each node (off when listing solutions).
    probing: bool,
    rng: ChaCha8Rng,
    /// The network on the machine, when it compiles: rejects points before the generic
    /// evaluation (which builds and checks the assignment of a solution).
    machine: Option<MachineProgram>,
    /// Registers of the machine program with the constants' bits in place.
    registers: Vec<u64>,
    /// The network's structure for the affine bound, when it is enabled.
    bound_plan: Option<BoundPlan>,
}

/// What evaluating the points of a node found.
enum Leaf {
    /// Every point was evaluated (solutions were handed over).
    Covered,
    /// The network cannot be evaluated forward: the node must be split instead.
    NotEvaluable,
    Stopped(StopReason),
}

impl<'a> Search<'a> {
    fn new(network: &'a Network, config: &'a SearchConfig, probing: bool) -> Search<'a> {
        let inputs = (0..network.variable_count())
            .map(VarId::from_index)
            .filter(|&v| !network.is_defined(v))
            .collect();
        let seed = match config.strategy {
            Strategy::Sample { seed } => seed,
            _ => 0,
        };
        let registers = network
            .domains()
            .iter()
            .map(|d| match d {
                Domain::Float(f) => f.as_point().map_or(0, |x| f.format().to_bits(x)),
                Domain::Int(_) => 0,
            })
            .collect();
        Search {
            network,
            config,
            nodes: 0,
            inputs,
            probing: probing && config.probes_per_node > 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
            machine: MachineProgram::compile(network),
            registers,
            bound_plan: config.affine.then(|| BoundPlan::new(network)),
        }
    }

    /// Whether the machine program refutes a point of the inputs (false when there is no
    /// program or the point is a solution).
    fn machine_refutes(&mut self, point: &[Option<Value>]) -> bool {
        let Some(machine) = &self.machine else {
            return false;
        };
        for &v in &self.inputs {
            let (Some(Value::Float(x)), Some(Domain::Float(d))) =
                (point[v.index()], self.network.domains().get(v.index()))
            else {
                return false;
            };
            self.registers[v.index()] = d.format().to_bits(x);
        }
        !machine.satisfied(&mut self.registers)
    }

    /// Depth-first search; `on_solution` returns whether to continue. Returns why the search
    /// stopped early, or `None` when it covered everything it was asked to.
    fn run(&mut self, on_solution: &mut dyn FnMut(Assignment) -> bool) -> Option<StopReason> {
        if let Strategy::Sample { .. } = self.config.strategy {
            return self.sample(on_solution);
        }
        let mut stack: Vec<(Vec<Domain>, Option<VarId>)> =
            vec![(self.network.domains().to_vec(), None)];
        while let Some((mut domains, changed)) = stack.pop() {
            if let Some(reason) = self.stop_reason() {
                return Some(reason);
            }
            self.nodes += 1;
            // A child's box is its parent's propagated box with one input cut: the bound
            // holds on it before propagation and, being cheap next to it, goes first (to
            // refute only: its narrowings would wake propagation twice).
            if changed.is_some() && self.refuted_by_bound(&domains) {
                continue;
            }
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
            // The incomplete probe keeps its points where propagation puts them: only
            // the bound's refutations, not its narrowings, apply to it.
            let bounded = match self.config.strategy {
                Strategy::Complete(_) => self.bounded(&mut domains),
                _ => !self.refuted_by_bound(&domains),
            };
            if !bounded {
                continue;
            }
            if self.probing {
                for _ in 0..self.config.probes_per_node {
                    if let Some(values) = self.random_solution(&domains) {
                        if !on_solution(Assignment { values }) {
                            return Some(StopReason::SolutionLimit);
                        }
                    }
                }
            }
            let leaf_points = if self.machine.is_some() {
                self.config.machine_leaf_points
            } else {
                self.config.leaf_points
            };
            if matches!(self.config.strategy, Strategy::Complete(_))
                && self.input_points(&domains) <= leaf_points.max(1)
            {
                match self.evaluate_leaf(&domains, on_solution) {
                    Leaf::Covered => continue,
                    Leaf::Stopped(reason) => return Some(reason),
                    Leaf::NotEvaluable => {}
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
                Strategy::ThreePointProbe | Strategy::Sample { .. } => {
                    probe_points(&domains[variable.index()])
                }
            };
            for branch in branches.into_iter().rev() {
                let mut child = domains.clone();
                child[variable.index()] = branch;
                stack.push((child, Some(variable)));
            }
        }
        None
    }

    /// Random points of the propagated root box, `node_budget` of them.
    fn sample(&mut self, on_solution: &mut dyn FnMut(Assignment) -> bool) -> Option<StopReason> {
        let mut domains = self.network.domains().to_vec();
        if self.network.propagate_domains(
            &mut domains,
            self.config.propagation_budget,
            self.config.min_reduction,
            None,
        ) == Propagation::Infeasible
            || self.refuted_by_bound(&domains)
        {
            // Propagation and bounding are sound: nothing to sample, and nothing to find.
            // (The bound's narrowings are left out: they would only move the draws.)
            return None;
        }
        for draw in 0u64.. {
            match self.stop_reason() {
                Some(StopReason::NodeBudget) => return None,
                Some(reason) => return Some(reason),
                None => {}
            }
            self.nodes += 1;
            let found = if draw % 2 == 0 {
                self.random_solution(&domains)
            } else {
                self.dive(&domains)
            };
            if let Some(values) = found {
                if !on_solution(Assignment { values }) {
                    return Some(StopReason::SolutionLimit);
                }
            }
        }
        None
    }

    /// One dive from `root`: inputs fixed one at a time to random values of their
    /// propagated domains; the assignment when the last point is a solution.
    fn dive(&mut self, root: &[Domain]) -> Option<Vec<Value>> {
        let mut domains = root.to_vec();
        let mut chosen: Vec<Value> = Vec::new();
        loop {
            let open = self
                .inputs
                .iter()
                .copied()
                .filter(|v| domains[v.index()].size() > 1)
                .max_by_key(|v| domains[v.index()].size());
            let Some(variable) = open else {
                return self.random_solution(&domains);
            };
            // Equal inputs are where programs compare a value with itself (x / 2 + y / 2
            // against min(x, y)): one draw in eight repeats an earlier choice.
            let domain = &domains[variable.index()];
            let repeated = chosen
                .iter()
                .copied()
                .filter(|&value| domain_contains(domain, value))
                .nth(self.rng.gen_range(0..chosen.len().max(1) * 8));
            let value = match repeated {
                Some(value) => value,
                None => random_value(&mut self.rng, domain)?,
            };
            chosen.push(value);
            domains[variable.index()] = point_domain(&domains[variable.index()], value);
            let last = self.inputs.iter().all(|v| domains[v.index()].size() <= 1);
            if last {
                // Evaluation decides the point; propagating it first would only cost.
                return self.random_solution(&domains);
            }
            self.nodes += 1;
            if self.network.propagate_domains(
                &mut domains,
                self.config.propagation_budget.min(DIVE_PROPAGATION_BUDGET),
                self.config.min_reduction,
                Some(&[variable]),
            ) == Propagation::Infeasible
            {
                return None;
            }
        }
    }

    /// Number of points of the inputs' domains (saturating).
    fn input_points(&self, domains: &[Domain]) -> u64 {
        self.inputs
            .iter()
            .fold(1u64, |n, v| n.saturating_mul(domains[v.index()].size()))
    }

    /// Evaluates one point of the inputs; the full assignment when it is a solution, which
    /// the exact reference ([`Network::check`]) confirms.
    fn solution_at(&mut self, point: &mut [Option<Value>]) -> Option<Result<Vec<Value>, ()>> {
        if self.machine_refutes(point) {
            return Some(Err(()));
        }
        let satisfied = self.network.evaluate(point)?;
        if !satisfied {
            return Some(Err(()));
        }
        let values: Vec<Value> = point.iter().map(|v| v.expect("evaluated")).collect();
        Some(if self.network.check(&values) == Ok(true) {
            Ok(values)
        } else {
            Err(())
        })
    }

    /// A random point of `domains`' inputs, when it is a solution.
    fn random_solution(&mut self, domains: &[Domain]) -> Option<Vec<Value>> {
        let mut point = vec![None; domains.len()];
        for &v in &self.inputs {
            point[v.index()] = Some(random_value(&mut self.rng, &domains[v.index()])?);
        }
        self.solution_at(&mut point)?.ok()
    }

    /// Evaluates every point of the inputs' domains (a mixed-radix count over them).
    fn evaluate_leaf(
        &mut self,
        domains: &[Domain],
        on_solution: &mut dyn FnMut(Assignment) -> bool,
    ) -> Leaf {
        let axes: Vec<(VarId, Vec<Value>)> = self
            .inputs
            .iter()
            .map(|&v| (v, domain_values(&domains[v.index()])))
            .collect();
        if axes.iter().any(|(_, values)| values.is_empty()) {
            return Leaf::Covered;
        }
        if self.machine.is_some() {
            return self.evaluate_leaf_on_machine(domains, &axes, on_solution);
        }
        let mut index = vec![0usize; axes.len()];
        let mut point = vec![None; domains.len()];
        loop {
            for (&(v, ref values), &i) in axes.iter().zip(&index) {
                point[v.index()] = Some(values[i]);
            }
            // Results are recomputed for every point.
            for (position, slot) in point.iter_mut().enumerate() {
                if self.network.is_defined(VarId::from_index(position)) {
                    *slot = None;
                }
            }
            match self.solution_at(&mut point) {
                None => return Leaf::NotEvaluable,
                Some(Ok(values)) => {
                    if !on_solution(Assignment { values }) {
                        return Leaf::Stopped(StopReason::SolutionLimit);
                    }
                }
                Some(Err(())) => {}
            }
            let mut carried = true;
            for (i, (_, values)) in index.iter_mut().zip(&axes) {
                *i += 1;
                if *i < values.len() {
                    carried = false;
                    break;
                }
                *i = 0;
            }
            if carried {
                return Leaf::Covered;
            }
        }
    }

    /// [`Search::evaluate_leaf`] with the machine program deciding each point; only its
    /// solutions go through the generic evaluation and the exact check.
    fn evaluate_leaf_on_machine(
        &mut self,
        domains: &[Domain],
        axes: &[(VarId, Vec<Value>)],
        on_solution: &mut dyn FnMut(Assignment) -> bool,
    ) -> Leaf {
        let Some(machine) = self.machine.take() else {
            return Leaf::NotEvaluable;
        };
        let mut bits_axes: Vec<(usize, Vec<u64>)> = Vec::with_capacity(axes.len());
        for (v, values) in axes {
            let Some(format) = domains[v.index()].as_float().map(FloatDomain::format) else {
                self.machine = Some(machine);
                return Leaf::NotEvaluable;
            };
            let bits = values
                .iter()
                .map(|value| match value {
                    Value::Float(x) => format.to_bits(*x),
                    Value::Int(_) => 0,
                })
                .collect();
            bits_axes.push((v.index(), bits));
        }
        let mut index = vec![0usize; axes.len()];
        let mut outcome = Leaf::Covered;
        'points: loop {
            for (&(register, ref bits), &i) in bits_axes.iter().zip(&index) {
                self.registers[register] = bits[i];
            }
            if machine.satisfied(&mut self.registers) {
                let mut point: Vec<Option<Value>> = (0..domains.len())
                    .map(|i| {
                        let v = VarId::from_index(i);
                        (!self.network.is_defined(v))
                            .then(|| domains[i].as_point())
                            .flatten()
                    })
                    .collect();
                for ((v, values), &i) in axes.iter().zip(&index) {
                    point[v.index()] = Some(values[i]);
                }
                let satisfied = self.network.evaluate(&mut point) == Some(true);
                if satisfied {
                    let values: Vec<Value> = point.iter().map(|v| v.expect("evaluated")).collect();
                    if self.network.check(&values) == Ok(true)
                        && !on_solution(Assignment { values })
                    {
                        outcome = Leaf::Stopped(StopReason::SolutionLimit);
                        break 'points;
                    }
                }
            }
            let mut carried = true;
            for (i, (_, bits)) in index.iter_mut().zip(&bits_axes) {
                *i += 1;
                if *i < bits.len() {
                    carried = false;
                    break;
                }
                *i = 0;
            }
            if carried {
                break;
            }
        }
        self.machine = Some(machine);
        outcome
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

    /// The affine bound of a propagated node (when enabled): false when it refutes the
    /// node, or when propagating the domains it narrowed empties one.
    fn bounded(&self, domains: &mut [Domain]) -> bool {
        let Some(plan) = &self.bound_plan else {
            return true;
        };
        match bound_with(self.network, plan, domains) {
            Bounding::Refuted => false,
            Bounding::Unchanged => true,
            Bounding::Narrowed(changed) => {
                self.network.propagate_domains(
                    domains,
                    self.config.propagation_budget,
                    self.config.min_reduction,
                    Some(&changed),
                ) != Propagation::Infeasible
            }
        }
    }

    /// Whether the affine bound refutes the box (its narrowings are dropped).
    fn refuted_by_bound(&self, domains: &[Domain]) -> bool {
        let Some(plan) = &self.bound_plan else {
            return false;
        };
        let mut scratch = domains.to_vec();
        bound_with(self.network, plan, &mut scratch) == Bounding::Refuted
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
        Split::FiveWay | Split::EndsFirst => {
            let parts = if split == Split::FiveWay {
                [
                    (lo, lo),
                    (lo + 1, middle - 1),
                    (middle, middle),
                    (middle + 1, hi - 1),
                    (hi, hi),
                ]
            } else {
                [
                    (hi, hi),
                    (lo, lo),
                    (middle, middle),
                    (middle + 1, hi - 1),
                    (lo + 1, middle - 1),
                ]
            };
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

fn domain_contains(domain: &Domain, value: Value) -> bool {
    match (domain, value) {
        (Domain::Float(d), Value::Float(x)) => d.contains(x),
        (Domain::Int(d), Value::Int(i)) => d.contains(i),
        _ => false,
    }
}

/// Projections per propagation of a dive: a dive needs the large cuts a fixed input
/// makes, not the creep after them (fewer projections narrow less, soundly).
const DIVE_PROPAGATION_BUDGET: u64 = 2_000;

/// The domain holding only `value` (of `like`'s kind and format).
fn point_domain(like: &Domain, value: Value) -> Domain {
    match (like, value) {
        (Domain::Float(d), Value::Float(x)) => Domain::Float(FloatDomain::point(d.format(), x)),
        (_, Value::Int(i)) => Domain::Int(IntDomain::new(i, i)),
        (Domain::Int(_), Value::Float(_)) => like.clone(),
    }
}

/// Every value of a small domain, in order (NaN last).
fn domain_values(domain: &Domain) -> Vec<Value> {
    match domain {
        Domain::Float(d) => {
            let mut values: Vec<Value> = d
                .range()
                .map(|(lo, hi)| {
                    (lo.0..=hi.0)
                        .map(|k| Value::Float(FloatValue::Num(Fp(k))))
                        .collect()
                })
                .unwrap_or_default();
            if d.may_be_nan() {
                values.push(Value::Float(FloatValue::NaN));
            }
            values
        }
        Domain::Int(d) => d
            .range()
            .map(|(lo, hi)| (lo..=hi).map(Value::Int).collect())
            .unwrap_or_default(),
    }
}

/// A zero, one of the smallest subnormals or the smallest normal, either sign: where
/// underflow and halving lose everything.
fn tiny_key(rng: &mut ChaCha8Rng, format: Format) -> i64 {
    let magnitude = match rng.gen_range(0..6) {
        0 => format.pos_zero(),
        1..=4 => Fp(format.pos_zero().0 + rng.gen_range(1..=3)),
        _ => format.min_normal(),
    };
    format.with_sign(magnitude, rng.gen_bool(0.5)).0
}

/// A random value of a domain: NaN rarely (when possible), an end of the range one time
/// in eight (extremes are where bounds are met), a tiny value one time in eight of the
/// rest ([`tiny_key`]), otherwise half the time uniform over the floats of the range
/// (every binade alike) and half the time the float nearest a uniform real of a finite
/// range (where most of the range's width is).
fn random_value(rng: &mut ChaCha8Rng, domain: &Domain) -> Option<Value> {
    match domain {
        Domain::Float(d) => {
            let Some((lo, hi)) = d.range() else {
                return d.may_be_nan().then_some(Value::Float(FloatValue::NaN));
            };
            if d.may_be_nan() && rng.gen_ratio(1, 64) {
                return Some(Value::Float(FloatValue::NaN));
            }
            let format = d.format();
            let (low, high) = (format.to_f64(lo), format.to_f64(hi));
            let tiny = tiny_key(rng, format);
            let key = if rng.gen_ratio(1, 8) {
                if rng.gen_bool(0.5) {
                    lo.0
                } else {
                    hi.0
                }
            } else if rng.gen_ratio(1, 8) && (lo.0..=hi.0).contains(&tiny) {
                tiny
            } else if rng.gen_bool(0.5) && low.is_finite() && high.is_finite() {
                let real = low + rng.gen::<f64>() * (high - low);
                match format.from_f64(real) {
                    FloatValue::Num(x) => x.0.clamp(lo.0, hi.0),
                    FloatValue::NaN => lo.0,
                }
            } else {
                rng.gen_range(lo.0..=hi.0)
            };
            Some(Value::Float(FloatValue::Num(Fp(key))))
        }
        Domain::Int(d) => {
            let (lo, hi) = d.range()?;
            let (lo, hi) = (
                lo.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
                hi.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
            );
            Some(Value::Int(i128::from(rng.gen_range(lo..=hi))))
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
