//! The float solver on one build's paths, shared by `reach` and `exceptions`: a float-path walker over an input space, and the search that settles one path's network.

use crate::search::InputSpace;
use crate::InputError;
use fpscout_fpsolve::{
    solve, Answer, FloatDomain, Network, Propagation, Report, SearchConfig, Split, Strategy, Value,
};
use fpscout_ir::{FloatTy, Module, ScalarTy};
use fpscout_smt::ParamSpec;
use fpscout_walk::concrete::FpMode;
use fpscout_walk::floatpath::{format_of, FloatPath, PathInput, PathScalar};
use fpscout_walk::{Val, WalkConfig, Walker};
use std::time::Instant;

/// The input domain of one float: its range, or every float (NaN and infinities
/// included: a refutation then covers every input the program can be given).
pub(crate) fn input_domain(ty: FloatTy, range: Option<(f64, f64)>) -> FloatDomain {
    let format = format_of(ty);
    match range {
        Some((lo, hi)) => FloatDomain::between(format, lo, hi),
        None => FloatDomain::full(format),
    }
}

/// A walker of `module` with the float-path domain of a build running in `mode`, and
/// the arguments of a function over `space`: each float input a network variable over
/// [`input_domain`], integers as given. `propagate_branches` off leaves every symbolic
/// branch to whoever solves the paths' networks.
pub(crate) fn float_path_walker<'m>(
    module: &'m Module,
    mode: FpMode,
    space: &InputSpace,
    config: WalkConfig,
    propagate_branches: bool,
) -> Result<(Walker<'m, FloatPath>, Vec<Val<PathScalar>>), InputError> {
    let mut domain = FloatPath::new(mode);
    domain.propagate_branches = propagate_branches;
    let mut walker = Walker::new(module, domain, config).map_err(|e| InputError(e.to_string()))?;
    let mut args = Vec::new();
    for spec in &space.specs {
        args.push(match spec {
            ParamSpec::Float { name, ty, range } => {
                Val::Scalar(walker.domain.input(name, *ty, input_domain(*ty, *range)))
            }
            ParamSpec::Int { bits } => Val::Scalar(PathScalar::Bits(*bits)),
            ParamSpec::FloatArray {
                name,
                ty,
                len,
                range,
            } => {
                let cells: Vec<PathScalar> = (0..*len)
                    .map(|i| {
                        walker
                            .domain
                            .input(&format!("{name}[{i}]"), *ty, input_domain(*ty, *range))
                    })
                    .collect();
                let ptr = walker
                    .alloc_array(name, ScalarTy::Float(*ty), cells)
                    .map_err(|e| InputError(e.to_string()))?;
                Val::Ptr(ptr)
            }
            ParamSpec::IntArray {
                name,
                width,
                values,
            } => {
                let cells = values.iter().map(|&b| PathScalar::Bits(b)).collect();
                let ptr = walker
                    .alloc_array(name, ScalarTy::Int(*width), cells)
                    .map_err(|e| InputError(e.to_string()))?;
                Val::Ptr(ptr)
            }
        });
    }
    Ok((walker, args))
}

/// Search nodes of the 3-point probe tried before the complete search.
const PROBE_NODES: u64 = 2_000;

/// Nodes of the corners-first search of the witness pass.
const CORNER_NODES: u64 = 4_000;

/// Random points of a target path's propagated box evaluated before the complete search.
const SAMPLED_POINTS: u64 = 200_000;

/// Projections of the exact 2B propagation that opens every solve: refutations like the
/// one below need a handful, while bounds creeping one float per projection would use
/// any budget up (on long paths a projection of exact rationals costs up to a
/// millisecond, and this propagation does not look at the clock).
const PROOF_PROPAGATION_BUDGET: u64 = 1_000;

/// Solves one target network: the witness pass ([`quick_solve`]) on half of the time
/// at most, then the complete search whose exhaustion is a proof.
pub(crate) fn solve_path(net: &Network, node_budget: u64, deadline: Option<Instant>) -> Report {
    let quick_deadline = deadline.map(|d| {
        let now = Instant::now();
        now + d.saturating_duration_since(now) / 2
    });
    let quick = quick_solve(net, node_budget, quick_deadline);
    if matches!(quick.answer, Answer::Solution(_) | Answer::Infeasible) {
        return quick;
    }
    let mut solved = complete_solve(net, node_budget, deadline);
    solved.nodes += quick.nodes;
    solved
}

/// The witness-seeking pass on one target network: exact 2B propagation first (the
/// search's propagation wakes constraints only for significant narrowings, and misses
/// refutations such as `x/2 + y/2` overflowing, where removing the two infinities from
/// x is what matters), a quick 3-point probe (it often lands on a witness where
/// bisection would still be narrowing), a complete search cut short that visits the
/// box's corners and faces first (maxima sit on bounds: a triangle's sides at their
/// largest), then random points of the box (witnesses spread over the box, which
/// depth-first search visits one corner at a time). `reach` gives every target path
/// this pass before any gets the complete search, so that a witness on a late path is
/// not starved by an early path that only a long search could refute.
pub(crate) fn quick_solve(net: &Network, node_budget: u64, deadline: Option<Instant>) -> Report {
    let mut narrowed = net.clone();
    if narrowed.propagate(PROOF_PROPAGATION_BUDGET) == Propagation::Infeasible {
        return Report {
            answer: Answer::Infeasible,
            nodes: 0,
            complete: true,
        };
    }
    let net = &narrowed;
    let probe = SearchConfig {
        strategy: Strategy::ThreePointProbe,
        node_budget: PROBE_NODES.min(node_budget),
        deadline,
        ..SearchConfig::default()
    };
    let probed = solve(net, &probe);
    if matches!(probed.answer, Answer::Solution(_) | Answer::Infeasible) {
        return probed;
    }
    // A third of the slice at most: its nodes cost milliseconds on networks whose
    // propagation creeps, and the sampling after it finds other witnesses.
    let corners_deadline = deadline.map(|d| {
        let now = Instant::now();
        now + d.saturating_duration_since(now) / 3
    });
    let corners = SearchConfig {
        strategy: Strategy::Complete(Split::EndsFirst),
        node_budget: CORNER_NODES.min(node_budget),
        deadline: corners_deadline,
        ..SearchConfig::default()
    };
    let cornered = solve(net, &corners);
    if matches!(cornered.answer, Answer::Solution(_) | Answer::Infeasible) {
        return Report {
            nodes: cornered.nodes + probed.nodes,
            ..cornered
        };
    }
    let sampled = sample(net, 1, node_budget, deadline);
    Report {
        nodes: sampled.nodes + cornered.nodes + probed.nodes,
        ..sampled
    }
}

/// Random points of a network's propagated box (`seed` tells draws apart), at most
/// [`SAMPLED_POINTS`] of them.
pub(crate) fn sample(
    net: &Network,
    seed: u64,
    node_budget: u64,
    deadline: Option<Instant>,
) -> Report {
    let sampling = SearchConfig {
        strategy: Strategy::Sample { seed },
        node_budget: SAMPLED_POINTS.min(node_budget),
        deadline,
        ..SearchConfig::default()
    };
    solve(net, &sampling)
}

/// The complete search on a target network the witness pass left open, by bisection:
/// its exhaustion is a proof. (The 5-way split's point branches are boxes still wide in
/// the other inputs: refuting Heron above 156.25 + 1e-3 took it 40 times the nodes.)
pub(crate) fn complete_solve(net: &Network, node_budget: u64, deadline: Option<Instant>) -> Report {
    let complete = SearchConfig {
        strategy: Strategy::Complete(Split::Bisect),
        node_budget,
        deadline,
        ..SearchConfig::default()
    };
    solve(net, &complete)
}

/// The float bits of each input of the path in a solution.
pub(crate) fn solution_bits(inputs: &[PathInput], values: &[Value]) -> Vec<u64> {
    inputs
        .iter()
        .map(|input| match values.get(input.var.index()) {
            Some(Value::Float(v)) => format_of(input.ty).to_bits(*v),
            _ => 0,
        })
        .collect()
}
