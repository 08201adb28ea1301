//! When a watched operation raises an exception on x86 SSE, stated as float constraints on its operands and result: networks for the float solver.
//!
//! Each exception kind of an operation becomes a few networks (a disjunction): the path's
//! network at the operation plus restrictions of the operands' and result's domains, or
//! comparisons with zero (which follow DAZ as the network's arithmetic does). Their union
//! contains every input that raises the kind there, so all of them infeasible is a proof
//! over floats; each says whether its solutions all raise it ([`Formulation::Exact`]) or
//! are only candidates. No network at all means the operation cannot raise that kind.
//!
//! - Overflow: finite operands (a nonzero divisor), an infinite result. Exact: under
//!   round-to-nearest the result is infinite exactly when the exact value rounded with an
//!   unbounded exponent exceeds the largest float (Ω + ½ulp rounds up, as Ω's significand
//!   is odd).
//! - Divide-by-zero: fdiv of a finite nonzero dividend by zero. Exact.
//! - Invalid: ∞ − ∞ (fadd/fsub by signs), 0 × ∞, 0/0, ∞/∞, sqrt below zero; SSE min/max
//!   and signalling comparisons on any NaN operand (exact); for every other operation a
//!   NaN operand may be a signalling NaN input, which raises invalid: that disjunct is
//!   kept for proofs only ([`Formulation::ProofOnly`]), its quiet-NaN solutions would not
//!   raise anything.
//! - Underflow (tiny after rounding and inexact, as SSE signals it): fadd/fsub never
//!   underflow without FTZ (a sum that small is exact; with FTZ a result of magnitude at
//!   most the smallest normal is the superset); fmul/fdiv of finite nonzero operands with
//!   a zero result is exact (the exact value was nonzero), a result of magnitude in
//!   (0, smallest normal] is a superset (inexactness is not a constraint, and a result
//!   equal to the smallest normal may still be tiny before it rounded up); fptrunc alike;
//!   sqrt and fpext never underflow.

use crate::floatpath::{Watched, WatchedOp};
use fpscout_fpsolve::{
    Domain, FcmpPredicate, FloatDomain, FloatValue, Format, Fp, Network, NetworkError, Value, VarId,
};
use fpscout_ir::{ExceptionKind, FBinOp};

/// How a network's solutions relate to the exception.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formulation {
    /// Every solution raises it.
    Exact,
    /// Every input raising it (in this disjunct) is a solution; a solution is a candidate.
    Superset,
    /// For proofs only: its solutions are not worth replaying (why).
    ProofOnly(&'static str),
}

/// One disjunct of "the operation raises the kind".
#[derive(Clone, Debug)]
pub struct RaiseNetwork {
    pub network: Network,
    pub formulation: Formulation,
    /// For a superset, the exact test of a solution where there is one.
    pub check: Option<Check>,
}

/// What decides exactly whether a solution of a superset raises the exception.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Underflow without FTZ: the exact value of `a op b` (fmul, fdiv) or of `a` (a
    /// conversion, `b` none) is tiny after rounding and differs from the result.
    Underflow {
        op: Option<FBinOp>,
        a: VarId,
        b: Option<VarId>,
        result: VarId,
    },
}

impl RaiseNetwork {
    /// Whether a solution (one value per variable) raises the exception: `None` when
    /// there is no exact test, or the values are not numbers where it needs them.
    pub fn raises(&self, values: &[Value]) -> Option<bool> {
        let Check::Underflow { op, a, b, result } = self.check?;
        let n = &self.network;
        let number = |v: VarId| -> Option<(Format, Fp)> {
            let format = n.float_domain(v).ok()?.format();
            match values.get(v.index())? {
                Value::Float(FloatValue::Num(x)) => Some((format, *x)),
                _ => None,
            }
        };
        let exact_of = |v: VarId| number(v).and_then(|(f, x)| f.to_rational(x));
        let x = exact_of(a)?;
        let exact = match (op, b) {
            (Some(FBinOp::FMul), Some(b)) => x * exact_of(b)?,
            (Some(FBinOp::FDiv), Some(b)) => {
                let y = exact_of(b)?;
                if y.cmp0() == std::cmp::Ordering::Equal {
                    return None;
                }
                x / y
            }
            (None, None) => x,
            _ => return None,
        };
        let (format, r) = number(result)?;
        let inexact = format.to_rational(r).as_ref() != Some(&exact);
        Some(inexact && format.is_tiny_after_rounding(&exact))
    }
}

/// Why a quiet operation's NaN disjunct is not searched.
const SIGNALLING_NAN: &str =
    "a NaN may reach an operand, and a signalling NaN input would raise invalid there";

/// The networks whose union holds every input making `watched` raise `kind` on its
/// path (empty: it cannot), or why the kind is not stated as constraints.
pub fn raise_networks(watched: &Watched, kind: ExceptionKind) -> Result<Vec<RaiseNetwork>, String> {
    let base = &watched.network;
    let ftz = base.arith().flush_to_zero;
    let mut out = Vec::new();
    let mut add = |formulation: Formulation,
                   build: &dyn Fn(&mut Network) -> Result<(), NetworkError>|
     -> Result<(), String> {
        let mut network = base.clone();
        build(&mut network).map_err(|e| format!("float solver: {e}"))?;
        out.push(RaiseNetwork {
            network,
            formulation,
            check: None,
        });
        Ok(())
    };
    // The exact test of the last network added (FTZ flushes tiny results, exact or not).
    let checked = |out: &mut Vec<RaiseNetwork>, check: Check| {
        if let Some(last) = out.last_mut().filter(|_| !ftz) {
            last.check = Some(check);
        }
    };
    use ExceptionKind::*;
    use Formulation::*;
    match (&watched.op, kind) {
        (_, Inexact) => return Err("inexact is not stated as constraints".into()),
        (WatchedOp::Unstated(why), _) => return Err(why.clone()),
        (WatchedOp::Known(raised), kind) => {
            if raised.contains(kind) {
                add(Exact, &|_| Ok(()))?;
            }
        }
        (&WatchedOp::Binary { op, a, b, result }, Overflow) => add(Exact, &|n| {
            finite(n, a)?;
            finite(n, b)?;
            if op == FBinOp::FDiv {
                nonzero(n, b)?;
            }
            infinite(n, result)
        })?,
        (&WatchedOp::Binary { op, a, b, .. }, DivByZero) => {
            if op == FBinOp::FDiv {
                add(Exact, &|n| {
                    finite(n, a)?;
                    nonzero(n, a)?;
                    zero(n, b)
                })?;
            }
        }
        (&WatchedOp::Binary { op, a, b, .. }, Invalid) => {
            match op {
                FBinOp::FAdd | FBinOp::FSub => {
                    // ∞ + (−∞) or ∞ − ∞: the signs that cancel.
                    let same = op == FBinOp::FSub;
                    for a_positive in [true, false] {
                        let b_positive = if same { a_positive } else { !a_positive };
                        add(Exact, &|n| {
                            infinity_of_sign(n, a, a_positive)?;
                            infinity_of_sign(n, b, b_positive)
                        })?;
                    }
                }
                FBinOp::FMul => {
                    add(Exact, &|n| {
                        zero(n, a)?;
                        infinite(n, b)
                    })?;
                    add(Exact, &|n| {
                        infinite(n, a)?;
                        zero(n, b)
                    })?;
                }
                FBinOp::FDiv => {
                    add(Exact, &|n| {
                        zero(n, a)?;
                        zero(n, b)
                    })?;
                    add(Exact, &|n| {
                        infinite(n, a)?;
                        infinite(n, b)
                    })?;
                }
                FBinOp::FRem => return Err("frem".into()),
            }
            add(ProofOnly(SIGNALLING_NAN), &|n| nan(n, a))?;
            add(ProofOnly(SIGNALLING_NAN), &|n| nan(n, b))?;
        }
        (&WatchedOp::Binary { op, a, b, result }, Underflow) => match op {
            FBinOp::FAdd | FBinOp::FSub if !ftz => {}
            FBinOp::FAdd | FBinOp::FSub => add(Superset, &|n| {
                finite(n, a)?;
                finite(n, b)?;
                magnitude_up_to_min_normal(n, result, false)
            })?,
            FBinOp::FMul | FBinOp::FDiv => {
                let operands = |n: &mut Network| -> Result<(), NetworkError> {
                    finite(n, a)?;
                    nonzero(n, a)?;
                    finite(n, b)?;
                    nonzero(n, b)
                };
                add(Exact, &|n| {
                    operands(n)?;
                    zero_magnitude(n, result)
                })?;
                add(Superset, &|n| {
                    operands(n)?;
                    magnitude_up_to_min_normal(n, result, true)
                })?;
                let check = Check::Underflow {
                    op: Some(op),
                    a,
                    b: Some(b),
                    result,
                };
                checked(&mut out, check);
            }
            FBinOp::FRem => return Err("frem".into()),
        },
        (&WatchedOp::Sqrt { a, .. }, Invalid) => {
            add(Exact, &|n| {
                let z = zero_like(n, a)?;
                n.require(FcmpPredicate::Olt, a, z, true)
            })?;
            add(ProofOnly(SIGNALLING_NAN), &|n| nan(n, a))?;
        }
        (&WatchedOp::MinMax { a, b }, Invalid) => {
            add(Exact, &|n| nan(n, a))?;
            add(Exact, &|n| nan(n, b))?;
        }
        (&WatchedOp::Compare { a, b, signalling }, Invalid) => {
            let formulation = if signalling {
                Exact
            } else {
                ProofOnly(SIGNALLING_NAN)
            };
            add(formulation, &|n| nan(n, a))?;
            add(formulation, &|n| nan(n, b))?;
        }
        (&WatchedOp::Convert { a, result }, kind) => {
            let narrowing = format_of(base, result)?.precision() < format_of(base, a)?.precision();
            match kind {
                Invalid => add(ProofOnly(SIGNALLING_NAN), &|n| nan(n, a))?,
                Overflow if narrowing => add(Exact, &|n| {
                    finite(n, a)?;
                    infinite(n, result)
                })?,
                Underflow if narrowing => {
                    let operand = |n: &mut Network| -> Result<(), NetworkError> {
                        finite(n, a)?;
                        nonzero(n, a)
                    };
                    add(Exact, &|n| {
                        operand(n)?;
                        zero_magnitude(n, result)
                    })?;
                    add(Superset, &|n| {
                        operand(n)?;
                        magnitude_up_to_min_normal(n, result, true)
                    })?;
                    let check = Check::Underflow {
                        op: None,
                        a,
                        b: None,
                        result,
                    };
                    checked(&mut out, check);
                }
                _ => {}
            }
        }
        // sqrt, min/max and comparisons raise nothing else (sqrt of the smallest
        // subnormal is normal).
        (WatchedOp::Sqrt { .. } | WatchedOp::MinMax { .. } | WatchedOp::Compare { .. }, _) => {}
    }
    Ok(out)
}

fn format_of(n: &Network, v: VarId) -> Result<Format, String> {
    n.float_domain(v)
        .map(FloatDomain::format)
        .map_err(|e| format!("float solver: {e}"))
}

fn float_format(n: &Network, v: VarId) -> Result<Format, NetworkError> {
    n.float_domain(v).map(FloatDomain::format)
}

fn restrict(n: &mut Network, v: VarId, d: FloatDomain) -> Result<(), NetworkError> {
    n.restrict(v, Domain::Float(d))
}

/// Not NaN, not infinite.
fn finite(n: &mut Network, v: VarId) -> Result<(), NetworkError> {
    let f = float_format(n, v)?;
    let max = f.max_finite();
    restrict(n, v, FloatDomain::new(f, f.negate(max), max, false))
}

fn nan(n: &mut Network, v: VarId) -> Result<(), NetworkError> {
    let f = float_format(n, v)?;
    restrict(n, v, FloatDomain::nan_only(f))
}

fn infinity_of_sign(n: &mut Network, v: VarId, positive: bool) -> Result<(), NetworkError> {
    let f = float_format(n, v)?;
    let inf = if positive { f.pos_inf() } else { f.neg_inf() };
    restrict(n, v, FloatDomain::point(f, FloatValue::Num(inf)))
}

/// ±∞, as `fabs(v) = +∞`.
fn infinite(n: &mut Network, v: VarId) -> Result<(), NetworkError> {
    let f = float_format(n, v)?;
    let m = n.fabs(v)?;
    restrict(n, m, FloatDomain::point(f, FloatValue::Num(f.pos_inf())))
}

/// A +0 of `v`'s format.
fn zero_like(n: &mut Network, v: VarId) -> Result<VarId, NetworkError> {
    let f = float_format(n, v)?;
    Ok(n.float_const(f, FloatValue::Num(f.pos_zero())))
}

/// Equal to zero as the instruction reads it (under DAZ a subnormal is zero).
fn zero(n: &mut Network, v: VarId) -> Result<(), NetworkError> {
    let z = zero_like(n, v)?;
    n.require(FcmpPredicate::Oeq, v, z, true)
}

/// Ordered and not zero as the instruction reads it.
fn nonzero(n: &mut Network, v: VarId) -> Result<(), NetworkError> {
    let z = zero_like(n, v)?;
    n.require(FcmpPredicate::One, v, z, true)
}

/// A result that is ±0 (as stored: a result is never read before it is stored).
fn zero_magnitude(n: &mut Network, v: VarId) -> Result<(), NetworkError> {
    let f = float_format(n, v)?;
    let m = n.fabs(v)?;
    restrict(n, m, FloatDomain::new(f, f.pos_zero(), f.pos_zero(), false))
}

/// |v| at most the smallest normal, and above zero when `nonzero`.
fn magnitude_up_to_min_normal(
    n: &mut Network,
    v: VarId,
    nonzero: bool,
) -> Result<(), NetworkError> {
    let f = float_format(n, v)?;
    let m = n.fabs(v)?;
    let lo = if nonzero {
        f.min_subnormal()
    } else {
        f.pos_zero()
    };
    restrict(n, m, FloatDomain::new(f, lo, f.min_normal(), false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concrete::{Concrete, FpMode};
    use crate::domain::{Domain as _, OpSite};
    use fpscout_fpsolve::{solve, Answer, Arith, Propagation, SearchConfig};
    use fpscout_ir::{FloatTy, FpOpId};

    const SITE: OpSite = OpSite {
        op: FpOpId(0),
        lane: 0,
    };

    /// Doubles around every boundary the formulations draw: zeros, subnormals, the
    /// smallest normal and its neighbours, one, halves, the largest float, infinities,
    /// NaN.
    fn operands() -> Vec<f64> {
        let min = f64::MIN_POSITIVE;
        let mut out = vec![
            0.0,
            f64::from_bits(1),
            f64::from_bits(0x000f_ffff_ffff_ffff),
            min,
            min.next_up(),
            min * 1.5,
            0.5,
            0.5f64.next_up(),
            1.0,
            1.0f64.next_up(),
            1.5,
            2.0f64.powi(-30),
            3.0 * 2.0f64.powi(-40),
            1e300,
            f64::MAX,
            f64::MAX.next_down(),
            f64::INFINITY,
        ];
        out.extend(out.clone().iter().map(|x| -x));
        out.push(f64::NAN);
        out
    }

    /// The solution of `network` with `a` and `b` fixed to the given bits, if any.
    fn solution_at(network: &Network, a: VarId, b: VarId, x: u64, y: u64) -> Option<Vec<Value>> {
        let mut n = network.clone();
        let point = |bits: u64| FloatDomain::point(Format::F64, Format::F64.from_bits(bits));
        n.restrict(a, Domain::Float(point(x))).expect("restrict");
        n.restrict(b, Domain::Float(point(y))).expect("restrict");
        if n.propagate(100_000) == Propagation::Infeasible {
            return None;
        }
        match solve(&n, &SearchConfig::default()).answer {
            Answer::Solution(s) => Some(s.values().to_vec()),
            Answer::Infeasible => None,
            Answer::Unknown(why) => panic!("undecided with both operands fixed: {why:?}"),
        }
    }

    fn holds_at(network: &Network, a: VarId, b: VarId, x: u64, y: u64) -> bool {
        solution_at(network, a, b, x, y).is_some()
    }

    /// For every arithmetic operation, kind, mode and pair of boundary operands: when
    /// the processor raises the kind, some network holds at the operands (the union is
    /// a superset); when an exact network holds, the processor raises it.
    #[test]
    fn the_networks_contain_every_raising_input_and_exact_ones_only_those() {
        let modes = [
            FpMode::IEEE,
            FpMode {
                ftz: true,
                daz: true,
            },
            FpMode {
                ftz: true,
                daz: false,
            },
        ];
        let values = operands();
        let (mut checked, mut checks) = (0usize, 0usize);
        for mode in modes {
            let mut concrete = Concrete::new(mode);
            for op in [FBinOp::FAdd, FBinOp::FSub, FBinOp::FMul, FBinOp::FDiv] {
                let mut network = Network::new(Arith {
                    flush_to_zero: mode.ftz,
                    denormals_are_zero: mode.daz,
                });
                let a = network.float_var("a", Format::F64);
                let b = network.float_var("b", Format::F64);
                let result = match op {
                    FBinOp::FAdd => network.fadd(a, b),
                    FBinOp::FSub => network.fsub(a, b),
                    FBinOp::FMul => network.fmul(a, b),
                    _ => network.fdiv(a, b),
                }
                .expect("operation");
                let watched = Watched {
                    site: SITE,
                    network,
                    op: WatchedOp::Binary { op, a, b, result },
                };
                for kind in [
                    ExceptionKind::Overflow,
                    ExceptionKind::Underflow,
                    ExceptionKind::DivByZero,
                    ExceptionKind::Invalid,
                ] {
                    let networks = raise_networks(&watched, kind).expect("stated");
                    for &x in &values {
                        for &y in &values {
                            let (xb, yb) = (x.to_bits(), y.to_bits());
                            concrete.clear();
                            concrete
                                .fbin(op, FloatTy::F64, &xb, &yb, SITE)
                                .expect("concrete");
                            let raised = concrete.flags.contains(kind);
                            let what = format!("{op:?} {x:e} {y:e} {kind:?} {mode:?}");
                            let mut holding = Vec::new();
                            for n in &networks {
                                let Some(values) = solution_at(&n.network, a, b, xb, yb) else {
                                    continue;
                                };
                                holding.push(n.formulation);
                                // An exact test agrees with the processor.
                                if let Some(raises) = n.raises(&values) {
                                    assert_eq!(raises, raised, "check: {what}");
                                    checks += 1;
                                }
                            }
                            if raised {
                                assert!(!holding.is_empty(), "raised but in no network: {what}");
                            }
                            if holding.contains(&Formulation::Exact) {
                                assert!(raised, "an exact network holds, not raised: {what}");
                            }
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(checked, 3 * 4 * 4 * 35 * 35);
        // Products and quotients of tiny results, exact and inexact, were tested.
        assert!(checks > 100, "{checks}");
    }

    #[test]
    fn a_sum_never_underflows_without_ftz_and_sqrt_is_invalid_below_zero_only() {
        let mut network = Network::new(Arith::IEEE);
        let a = network.float_var("a", Format::F64);
        let b = network.float_var("b", Format::F64);
        let result = network.fadd(a, b).expect("fadd");
        let sum = Watched {
            site: SITE,
            network: network.clone(),
            op: WatchedOp::Binary {
                op: FBinOp::FAdd,
                a,
                b,
                result,
            },
        };
        assert!(raise_networks(&sum, ExceptionKind::Underflow)
            .expect("stated")
            .is_empty());
        let root = network.sqrt(a).expect("sqrt");
        let sqrt = Watched {
            site: SITE,
            network,
            op: WatchedOp::Sqrt { a, result: root },
        };
        let networks = raise_networks(&sqrt, ExceptionKind::Invalid).expect("stated");
        let exact: Vec<&RaiseNetwork> = networks
            .iter()
            .filter(|n| n.formulation == Formulation::Exact)
            .collect();
        assert_eq!(exact.len(), 1);
        for (x, invalid) in [
            (-1e-300, true),
            (-0.0, false),
            (0.0, false),
            (-f64::INFINITY, true),
        ] {
            assert_eq!(
                holds_at(&exact[0].network, a, b, x.to_bits(), 0),
                invalid,
                "{x}"
            );
        }
        assert!(raise_networks(&sqrt, ExceptionKind::Overflow)
            .expect("stated")
            .is_empty());
        let unstated = Watched {
            op: WatchedOp::Unstated("fptosi".into()),
            ..sqrt
        };
        assert_eq!(
            raise_networks(&unstated, ExceptionKind::Invalid).err(),
            Some("fptosi".to_string())
        );
    }
}
