//! A network compiled to straight-line f32/f64 machine operations (IEEE mode): search leaves decide points at a few nanoseconds per operation.

use crate::arith::{Arith, BinaryOp};
use crate::bits::FloatSet;
use crate::class::FloatClasses;
use crate::compare::FcmpPredicate;
use crate::domain::FloatDomain;
use crate::format::{FloatValue, Format};
use crate::network::{Constraint, Domain, Network, VarId};
use crate::project::minmax::MinMaxOp;

/// One operation over the register file (one register per variable, raw bits: binary32
/// in the low 32). `wide` is binary64.
#[derive(Clone, Copy, Debug)]
enum Step {
    Binary {
        op: BinaryOp,
        wide: bool,
        a: usize,
        b: usize,
        result: usize,
    },
    Unary {
        op: UnaryOp,
        wide: bool,
        a: usize,
        result: usize,
    },
    MinMax {
        op: MinMaxOp,
        wide: bool,
        a: usize,
        b: usize,
        result: usize,
    },
    Extend {
        a: usize,
        result: usize,
    },
    Truncate {
        a: usize,
        result: usize,
    },
    Compare {
        predicate: FcmpPredicate,
        wide: bool,
        a: usize,
        b: usize,
    },
    InSet {
        set: FloatSet,
        wide: bool,
        a: usize,
    },
    Class {
        classes: FloatClasses,
        wide: bool,
        a: usize,
    },
}

#[derive(Clone, Copy, Debug)]
enum UnaryOp {
    Sqrt,
    Neg,
    Abs,
    Copy,
}

/// The network's constraints as machine steps, in the order the network computes them.
#[derive(Clone, Debug)]
pub(crate) struct MachineProgram {
    steps: Vec<Step>,
    /// Computed variables whose initial domain is not the whole format, checked after
    /// the steps (inputs are drawn from their domains by the caller).
    restricted: Vec<(usize, FloatDomain)>,
}

fn format_of(domain: &Domain) -> Option<Format> {
    domain.as_float().map(FloatDomain::format)
}

impl MachineProgram {
    /// Compiles a network whose arithmetic is IEEE (no FTZ/DAZ: Rust's `f32`/`f64` are then
    /// the reference operations), whose variables are all binary32 or binary64 floats, and
    /// whose every computed variable is computed once, after its operands.
    pub(crate) fn compile(network: &Network) -> Option<MachineProgram> {
        if network.arith() != Arith::IEEE {
            return None;
        }
        let domains = network.domains();
        let wide = |v: VarId| -> Option<bool> {
            match format_of(domains.get(v.index())?)? {
                f if f == Format::F64 => Some(true),
                f if f == Format::F32 => Some(false),
                _ => None,
            }
        };
        let mut known: Vec<bool> = (0..domains.len())
            .map(|i| !network.is_defined(VarId::from_index(i)))
            .collect();
        let mut steps = Vec::with_capacity(network.constraints().len());
        for constraint in network.constraints() {
            let operands: Vec<VarId> = constraint
                .variables()
                .into_iter()
                .filter(|&v| Some(v) != constraint.result())
                .collect();
            if operands.iter().any(|v| !known[v.index()]) {
                return None;
            }
            if let Some(result) = constraint.result() {
                if known[result.index()] {
                    return None;
                }
                known[result.index()] = true;
            }
            steps.push(match *constraint {
                Constraint::Binary { op, a, b, result } => Step::Binary {
                    op,
                    wide: wide(a)?,
                    a: a.index(),
                    b: b.index(),
                    result: result.index(),
                },
                Constraint::MinMax { op, a, b, result } => Step::MinMax {
                    op,
                    wide: wide(a)?,
                    a: a.index(),
                    b: b.index(),
                    result: result.index(),
                },
                Constraint::Sqrt { a, result } => unary(UnaryOp::Sqrt, wide(a)?, a, result),
                Constraint::FNeg { a, result } => unary(UnaryOp::Neg, wide(a)?, a, result),
                Constraint::FAbs { a, result } => unary(UnaryOp::Abs, wide(a)?, a, result),
                Constraint::Copy { a, result } => unary(UnaryOp::Copy, wide(a)?, a, result),
                Constraint::FloatConvert { a, result } => match (wide(a)?, wide(result)?) {
                    (false, true) => Step::Extend {
                        a: a.index(),
                        result: result.index(),
                    },
                    (true, false) => Step::Truncate {
                        a: a.index(),
                        result: result.index(),
                    },
                    (same, _) => unary(UnaryOp::Copy, same, a, result),
                },
                Constraint::Compare { predicate, a, b } => Step::Compare {
                    predicate,
                    wide: wide(a)?,
                    a: a.index(),
                    b: b.index(),
                },
                Constraint::Class { a, classes } => Step::Class {
                    classes,
                    wide: wide(a)?,
                    a: a.index(),
                },
                Constraint::InSet { a, set, .. } => Step::InSet {
                    set,
                    wide: wide(a)?,
                    a: a.index(),
                },
                // Libm is left to `Network::evaluate`, which calls glibc.
                Constraint::IntToFloat { .. }
                | Constraint::FloatToInt { .. }
                | Constraint::BitsToInt { .. }
                | Constraint::IntCompare { .. }
                | Constraint::IntSum { .. }
                | Constraint::Libm { .. }
                | Constraint::LibmBinary { .. } => return None,
            });
        }
        let restricted = (0..domains.len())
            .filter(|&i| network.is_defined(VarId::from_index(i)))
            .filter_map(|i| {
                let d = domains[i].as_float()?;
                (*d != FloatDomain::full(d.format())).then(|| (i, d.clone()))
            })
            .collect();
        Some(MachineProgram { steps, restricted })
    }

    /// Runs the steps on registers holding the inputs' bits; whether every comparison and
    /// every restricted domain holds (the computed registers are left filled).
    pub(crate) fn satisfied(&self, registers: &mut [u64]) -> bool {
        for step in &self.steps {
            match *step {
                Step::Binary {
                    op,
                    wide,
                    a,
                    b,
                    result,
                } => {
                    registers[result] = if wide {
                        let (x, y) = (f64::from_bits(registers[a]), f64::from_bits(registers[b]));
                        binary64(op, x, y).to_bits()
                    } else {
                        let (x, y) = (f32_of(registers[a]), f32_of(registers[b]));
                        u64::from(binary32(op, x, y).to_bits())
                    }
                }
                Step::Unary {
                    op,
                    wide,
                    a,
                    result,
                } => {
                    registers[result] = if wide {
                        let x = f64::from_bits(registers[a]);
                        let r = match op {
                            UnaryOp::Sqrt => x.sqrt(),
                            UnaryOp::Neg => -x,
                            UnaryOp::Abs => x.abs(),
                            UnaryOp::Copy => x,
                        };
                        r.to_bits()
                    } else {
                        let x = f32_of(registers[a]);
                        let r = match op {
                            UnaryOp::Sqrt => x.sqrt(),
                            UnaryOp::Neg => -x,
                            UnaryOp::Abs => x.abs(),
                            UnaryOp::Copy => x,
                        };
                        u64::from(r.to_bits())
                    }
                }
                Step::MinMax {
                    op,
                    wide,
                    a,
                    b,
                    result,
                } => {
                    // SSE: the second operand unless the first compares strictly better.
                    let first = if wide {
                        let (x, y) = (f64::from_bits(registers[a]), f64::from_bits(registers[b]));
                        match op {
                            MinMaxOp::Min => x < y,
                            MinMaxOp::Max => x > y,
                        }
                    } else {
                        let (x, y) = (f32_of(registers[a]), f32_of(registers[b]));
                        match op {
                            MinMaxOp::Min => x < y,
                            MinMaxOp::Max => x > y,
                        }
                    };
                    registers[result] = registers[if first { a } else { b }];
                }
                Step::Extend { a, result } => {
                    registers[result] = f64::from(f32_of(registers[a])).to_bits();
                }
                Step::Truncate { a, result } => {
                    registers[result] = u64::from((f64::from_bits(registers[a]) as f32).to_bits());
                }
                Step::Compare {
                    predicate,
                    wide,
                    a,
                    b,
                } => {
                    let ordering = if wide {
                        f64::from_bits(registers[a]).partial_cmp(&f64::from_bits(registers[b]))
                    } else {
                        f32_of(registers[a]).partial_cmp(&f32_of(registers[b]))
                    };
                    if !predicate.holds(ordering) {
                        return false;
                    }
                }
                Step::Class { classes, wide, a } => {
                    let format = if wide { Format::F64 } else { Format::F32 };
                    if !classes.holds(format, format.from_bits(registers[a])) {
                        return false;
                    }
                }
                Step::InSet { ref set, wide, a } => {
                    let format = if wide { Format::F64 } else { Format::F32 };
                    if !set.contains(format.from_bits(registers[a])) {
                        return false;
                    }
                }
            }
        }
        self.restricted.iter().all(|(register, domain)| {
            let value: FloatValue = domain.format().from_bits(registers[*register]);
            domain.contains(value)
        })
    }
}

fn unary(op: UnaryOp, wide: bool, a: VarId, result: VarId) -> Step {
    Step::Unary {
        op,
        wide,
        a: a.index(),
        result: result.index(),
    }
}

fn f32_of(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

fn binary32(op: BinaryOp, x: f32, y: f32) -> f32 {
    match op {
        BinaryOp::FAdd => x + y,
        BinaryOp::FSub => x - y,
        BinaryOp::FMul => x * y,
        BinaryOp::FDiv => x / y,
    }
}

fn binary64(op: BinaryOp, x: f64, y: f64) -> f64 {
    match op {
        BinaryOp::FAdd => x + y,
        BinaryOp::FSub => x - y,
        BinaryOp::FMul => x * y,
        BinaryOp::FDiv => x / y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::Value;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Binary32 bits favouring zeros, subnormals, infinities, NaN and small integers.
    fn random_bits(rng: &mut ChaCha8Rng, wide: bool) -> u64 {
        let special: [f64; 8] = [0.0, -0.0, 1.0, -2.0, f64::INFINITY, f64::NAN, 3.0, 0.5];
        let value = match rng.gen_range(0..4) {
            0 => special[rng.gen_range(0..special.len())],
            1 => f64::from(rng.gen_range(-8i32..8)) * 0.25,
            _ => {
                return if wide {
                    rng.gen()
                } else {
                    u64::from(rng.gen::<u32>())
                }
            }
        };
        if wide {
            value.to_bits()
        } else {
            u64::from((value as f32).to_bits())
        }
    }

    /// On random binary32/binary64 networks of every constraint the machine program
    /// compiles, its verdict on random points is the generic evaluation's.
    #[test]
    fn machine_verdicts_are_the_evaluation_verdicts() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (mut accepted, mut rejected) = (0, 0);
        for _ in 0..400 {
            let mut net = Network::new(Arith::IEEE);
            let mut vars: Vec<(VarId, bool)> = Vec::new();
            let inputs = rng.gen_range(1..4);
            for i in 0..inputs {
                let wide = rng.gen_bool(0.5);
                let format = if wide { Format::F64 } else { Format::F32 };
                vars.push((net.float_var(&format!("x{i}"), format), wide));
            }
            for _ in 0..rng.gen_range(1..6) {
                let (a, wide) = vars[rng.gen_range(0..vars.len())];
                let same: Vec<VarId> = vars.iter().filter(|v| v.1 == wide).map(|v| v.0).collect();
                let b = same[rng.gen_range(0..same.len())];
                let made = match rng.gen_range(0..9) {
                    0 => net.fadd(a, b),
                    1 => net.fsub(a, b),
                    2 => net.fmul(a, b),
                    3 => net.fdiv(a, b),
                    4 => net.sqrt(a),
                    5 => net.fabs(a),
                    6 => net.fneg(a),
                    7 => net.min_max(
                        if rng.gen_bool(0.5) {
                            MinMaxOp::Min
                        } else {
                            MinMaxOp::Max
                        },
                        a,
                        b,
                    ),
                    _ => net.float_convert(a, if wide { Format::F32 } else { Format::F64 }),
                };
                let r = made.unwrap();
                let r_wide = net.float_domain(r).unwrap().format() == Format::F64;
                vars.push((r, r_wide));
            }
            let (a, wide) = vars[vars.len() - 1];
            let same: Vec<VarId> = vars.iter().filter(|v| v.1 == wide).map(|v| v.0).collect();
            let b = same[rng.gen_range(0..same.len())];
            let predicate = FcmpPredicate::ALL[rng.gen_range(0..FcmpPredicate::ALL.len())];
            net.require(predicate, a, b, true).unwrap();
            let program = MachineProgram::compile(&net).expect("compiles");
            for _ in 0..50 {
                let mut registers = vec![0u64; net.variable_count()];
                let mut point = vec![None; net.variable_count()];
                for &(v, wide) in &vars[..inputs] {
                    let bits = random_bits(&mut rng, wide);
                    let format = if wide { Format::F64 } else { Format::F32 };
                    registers[v.index()] = bits;
                    point[v.index()] = Some(Value::Float(format.from_bits(bits)));
                }
                let expected = net.evaluate(&mut point).expect("evaluable");
                assert_eq!(
                    program.satisfied(&mut registers),
                    expected,
                    "{net:?} {point:?}"
                );
                if expected {
                    accepted += 1;
                } else {
                    rejected += 1;
                }
            }
        }
        assert!(
            accepted > 1000 && rejected > 1000,
            "{accepted} / {rejected}"
        );
    }
}
