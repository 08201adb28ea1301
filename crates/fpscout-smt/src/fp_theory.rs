//! The Z3 QF_FP baseline of `reach`: a float-solver path network as Z3 floating-point terms, solved in a forked child killed at its limit.

use crate::isolate::{run_forked, Outcome};
use fpscout_fpsolve::{
    Arith, BinaryOp, Constraint, Domain, FcmpPredicate, FloatClasses, FloatDomain, FloatValue,
    Format, IntOrder, MinMaxOp, Network, VarId,
};
use std::time::{Duration, Instant};
use z3::ast::{Ast, Bool, Float, RoundingMode, BV};
use z3::{SatResult, Solver, Sort};

/// Width of the bit-vectors standing for the network's integer variables: mathematical
/// integers within i128 (their domains), with room so that no sign is lost.
const INT_WIDTH: u32 = 130;

/// A network variable as a Z3 term.
enum Term {
    Float(Float),
    Int(BV),
}

/// What Z3's floating-point theory says about a network.
#[derive(Clone, Debug, PartialEq)]
pub enum FpTheoryAnswer {
    /// The bits of each requested variable in a model.
    Solution(Vec<u64>),
    /// Z3 proved the constraints unsatisfiable.
    Infeasible,
    /// No answer: Z3 said unknown, the time limit killed it, or the network holds
    /// something this translation does not model (named).
    Unknown(String),
}

/// Solves `net` with Z3's QF_FP theory in a forked child, within `limit` (and the
/// `deadline`); a solution gives the bits of `wanted`. The network's current domains
/// are part of the query (narrowed by propagation, which keeps every solution).
pub fn solve_fp_theory(
    net: &Network,
    wanted: &[VarId],
    limit: Duration,
    deadline: Option<Instant>,
) -> FpTheoryAnswer {
    // Refused before forking: the child would only say the same.
    if let Err(why) = supported(net) {
        return FpTheoryAnswer::Unknown(why);
    }
    let outcome = run_forked(1, 1, limit, deadline, &|_| solve_here(net, wanted));
    match outcome.into_iter().next() {
        Some(Outcome::Done(text)) => parse_answer(&text),
        Some(Outcome::TimedOut) => FpTheoryAnswer::Unknown(format!(
            "Z3 QF_FP timed out after {:.1} s",
            limit.as_secs_f64()
        )),
        Some(Outcome::OverBudget { .. }) => {
            FpTheoryAnswer::Unknown("Z3 QF_FP stopped at the time budget".into())
        }
        Some(Outcome::Failed(why)) => FpTheoryAnswer::Unknown(format!("Z3 QF_FP failed: {why}")),
        None => FpTheoryAnswer::Unknown("Z3 QF_FP did not run".into()),
    }
}

/// Why this translation cannot state `net` exactly, if it cannot.
fn supported(net: &Network) -> Result<(), String> {
    if net.arith() != Arith::IEEE {
        return Err("Z3 QF_FP has no flush-to-zero or denormals-are-zero arithmetic".into());
    }
    if net
        .constraints()
        .iter()
        .any(|c| matches!(c, Constraint::BitsToInt { .. }))
    {
        return Err("an integer read from a float's bits (not stated in QF_FP here)".into());
    }
    for d in net.domains() {
        match d {
            Domain::Float(f) if f.format() == Format::F32 || f.format() == Format::F64 => {}
            Domain::Float(f) => {
                return Err(format!(
                    "a float format with {} exponent bits outside binary32/binary64",
                    f.format().exponent_bits()
                ))
            }
            Domain::Int(_) => {}
        }
    }
    // QF_FP has no elementary functions, and glibc's are not correctly rounded: an
    // uninterpreted result would make Z3's "unsat" no proof.
    if let Some(name) = net.constraints().iter().find_map(Constraint::libm_name) {
        return Err(format!(
            "libm function '{name}' (glibc's, not in Z3's QF_FP)"
        ));
    }
    Ok(())
}

/// Runs in the child: `sat BITS…`, `unsat`, or `unknown REASON`.
fn solve_here(net: &Network, wanted: &[VarId]) -> String {
    let vars: Vec<Term> = net
        .domains()
        .iter()
        .enumerate()
        .map(|(i, d)| match d {
            Domain::Float(f) => Term::Float(Float::new_const(
                format!("v{i}"),
                f.format().exponent_bits(),
                f.format().precision(),
            )),
            Domain::Int(_) => Term::Int(BV::new_const(format!("v{i}"), INT_WIDTH)),
        })
        .collect();
    let solver = Solver::new();
    for (v, d) in vars.iter().zip(net.domains()) {
        match (v, d) {
            (Term::Float(v), Domain::Float(d)) => solver.assert(in_domain(v, d)),
            (Term::Int(v), Domain::Int(d)) => solver.assert(int_in_domain(v, d.range())),
            _ => return "unknown a variable whose term and domain disagree".into(),
        }
    }
    for c in net.constraints() {
        match constraint(&vars, net, c) {
            Ok(b) => solver.assert(b),
            Err(why) => return format!("unknown {why}"),
        }
    }
    match solver.check() {
        SatResult::Unsat => "unsat".into(),
        SatResult::Unknown => format!(
            "unknown Z3 says unknown: {}",
            solver.get_reason_unknown().unwrap_or_default()
        ),
        SatResult::Sat => {
            let Some(model) = solver.get_model() else {
                return "unknown Z3 gave no model".into();
            };
            let mut out = String::from("sat");
            for v in wanted {
                let var = match &vars[v.index()] {
                    Term::Float(f) => f,
                    // Two's complement, as the executable receives an integer argument.
                    Term::Int(i) => match model
                        .eval(&i.to_int(true), true)
                        .and_then(|n| int_value(&n.to_string()))
                    {
                        Some(value) => {
                            out.push_str(&format!(" {}", value as u64));
                            continue;
                        }
                        None => return "unknown Z3's model has no value for an input".into(),
                    },
                };
                // fp.to_ieee_bv of a NaN is unspecified: a NaN is given its quiet bits.
                let is_nan = model.eval(&var.is_nan(), true).and_then(|b| b.as_bool());
                let format = net
                    .domains()
                    .get(v.index())
                    .and_then(Domain::as_float)
                    .map_or(Format::F64, FloatDomain::format);
                let bits = match is_nan {
                    Some(true) => Some(format.to_bits(FloatValue::NaN)),
                    Some(false) => model.eval(&var.to_ieee_bv(), true).and_then(|b| b.as_u64()),
                    None => None,
                };
                match bits {
                    Some(b) => out.push_str(&format!(" {b}")),
                    None => return "unknown Z3's model has no value for an input".into(),
                }
            }
            out
        }
    }
}

fn parse_answer(text: &str) -> FpTheoryAnswer {
    let mut words = text.split_whitespace();
    match words.next() {
        Some("unsat") => FpTheoryAnswer::Infeasible,
        Some("sat") => {
            let bits: Result<Vec<u64>, _> = words.map(str::parse).collect();
            bits.map_or_else(
                |_| FpTheoryAnswer::Unknown(format!("unreadable answer from Z3's child: {text}")),
                FpTheoryAnswer::Solution,
            )
        }
        _ => FpTheoryAnswer::Unknown(text.trim_start_matches("unknown ").to_string()),
    }
}

/// The Z3 constant of a float of `format`, exactly.
fn constant(format: Format, value: FloatValue) -> Float {
    let bits = format.to_bits(value);
    if format == Format::F32 {
        Float::from_f32(f32::from_bits(bits as u32))
    } else {
        Float::from_f64(f64::from_bits(bits))
    }
}

/// `v` lies in the domain: NaN where allowed, or between its bounds in the order that
/// puts -0 below +0 (which `fp.leq` does not tell apart).
fn in_domain(v: &Float, d: &FloatDomain) -> Bool {
    let format = d.format();
    let nan = if d.may_be_nan() {
        v.is_nan()
    } else {
        Bool::from_bool(false)
    };
    let Some((lo, hi)) = d.range() else {
        return nan;
    };
    let negative_zero = Bool::and(&[v.is_zero(), v.is_negative()]);
    let positive_zero = Bool::and(&[v.is_zero(), v.is_positive()]);
    let mut within = vec![
        v.ge(constant(format, FloatValue::Num(lo))),
        v.le(constant(format, FloatValue::Num(hi))),
    ];
    if format.is_zero(lo) && !format.is_negative(lo) {
        within.push(negative_zero.not());
    }
    if format.is_zero(hi) && format.is_negative(hi) {
        within.push(positive_zero.not());
    }
    Bool::or(&[nan, Bool::and(&within)])
}

/// `v` (a signed bit-vector) lies in the integer domain `range` (`None`: empty).
fn int_in_domain(v: &BV, range: Option<(i128, i128)>) -> Bool {
    match range {
        Some((lo, hi)) => Bool::and(&[v.bvsge(int_constant(lo)), v.bvsle(int_constant(hi))]),
        None => Bool::from_bool(false),
    }
}

fn int_constant(value: i128) -> BV {
    match BV::from_str(INT_WIDTH, &value.to_string()) {
        Some(bv) => bv,
        // Z3 reads every decimal numeral; the fallback keeps the function total.
        None => BV::from_i64(
            value.clamp(i64::MIN.into(), i64::MAX.into()) as i64,
            INT_WIDTH,
        ),
    }
}

/// A model's integer value as Z3 prints it: `123` or `(- 123)`.
fn int_value(text: &str) -> Option<i128> {
    let text = text.trim();
    match text.strip_prefix("(-").and_then(|t| t.strip_suffix(')')) {
        Some(magnitude) => magnitude.trim().parse::<i128>().ok().map(|m| -m),
        None => text.parse().ok(),
    }
}

fn either_nan(a: &Float, b: &Float) -> Bool {
    Bool::or(&[a.is_nan(), b.is_nan()])
}

/// `fcmp predicate a, b` as LLVM defines it.
/// `a` is in one of `classes`, in the theory's own class predicates.
fn in_classes(classes: FloatClasses, a: &Float) -> Bool {
    let (negative, positive) = (a.is_negative(), a.is_positive());
    let tests = [
        (FloatClasses::NAN, a.is_nan(), None),
        (FloatClasses::NEG_INF, a.is_infinite(), Some(&negative)),
        (FloatClasses::NEG_NORMAL, a.is_normal(), Some(&negative)),
        (
            FloatClasses::NEG_SUBNORMAL,
            a.is_subnormal(),
            Some(&negative),
        ),
        (FloatClasses::NEG_ZERO, a.is_zero(), Some(&negative)),
        (FloatClasses::POS_ZERO, a.is_zero(), Some(&positive)),
        (
            FloatClasses::POS_SUBNORMAL,
            a.is_subnormal(),
            Some(&positive),
        ),
        (FloatClasses::POS_NORMAL, a.is_normal(), Some(&positive)),
        (FloatClasses::POS_INF, a.is_infinite(), Some(&positive)),
    ];
    let parts: Vec<Bool> = tests
        .into_iter()
        .filter(|(class, _, _)| classes.contains_class(*class))
        .map(|(_, test, sign)| match sign {
            Some(sign) => Bool::and(&[test, sign.clone()]),
            None => test,
        })
        .collect();
    Bool::or(&parts)
}

fn compare(predicate: FcmpPredicate, a: &Float, b: &Float) -> Bool {
    use FcmpPredicate::*;
    let ordered = |p: FcmpPredicate| match p {
        Oeq | Ueq => a.eq_fpa(b),
        Ogt | Ugt => a.gt(b),
        Oge | Uge => a.ge(b),
        Olt | Ult => a.lt(b),
        Ole | Ule => a.le(b),
        One | Une => Bool::and(&[either_nan(a, b).not(), a.eq_fpa(b).not()]),
        Ord | Uno => either_nan(a, b).not(),
    };
    match predicate {
        Oeq | Ogt | Oge | Olt | Ole | One | Ord => ordered(predicate),
        Une => a.eq_fpa(b).not(),
        Uno => either_nan(a, b),
        Ueq | Ugt | Uge | Ult | Ule => Bool::or(&[either_nan(a, b), ordered(predicate)]),
    }
}

/// One constraint as a Z3 formula; `Err` names what is not translated.
fn constraint(vars: &[Term], net: &Network, c: &Constraint) -> Result<Bool, String> {
    let v = |x: VarId| match &vars[x.index()] {
        Term::Float(f) => Ok(f),
        Term::Int(_) => Err(format!(
            "variable {} is an integer where a float is used",
            x.index()
        )),
    };
    let int = |x: VarId| match &vars[x.index()] {
        Term::Int(i) => Ok(i),
        Term::Float(_) => Err(format!(
            "variable {} is a float where an integer is used",
            x.index()
        )),
    };
    let rne = RoundingMode::round_nearest_ties_to_even();
    let format_sort = |x: VarId| match net.float_domain(x).map(FloatDomain::format) {
        Ok(f) if f == Format::F32 => Ok(Sort::float32()),
        Ok(_) => Ok(Sort::double()),
        Err(e) => Err(e.to_string()),
    };
    Ok(match *c {
        Constraint::Binary { op, a, b, result } => {
            let (a, b) = (v(a)?, v(b)?);
            let computed = match op {
                BinaryOp::FAdd => a.add_with_rounding_mode(b, &rne),
                BinaryOp::FSub => a.sub_with_rounding_mode(b, &rne),
                BinaryOp::FMul => a.mul_with_rounding_mode(b, &rne),
                BinaryOp::FDiv => a.div_with_rounding_mode(b, &rne),
            };
            v(result)?.eq(computed)
        }
        Constraint::Sqrt { a, result } => v(result)?.eq(v(a)?.sqrt_with_rounding_mode(&rne)),
        Constraint::Libm { .. } | Constraint::LibmBinary { .. } => {
            return Err(format!(
                "libm function '{}' (glibc's, not in Z3's QF_FP)",
                c.libm_name().unwrap_or_default()
            ))
        }
        Constraint::FNeg { a, result } => v(result)?.eq(v(a)?.unary_neg()),
        Constraint::FAbs { a, result } => v(result)?.eq(v(a)?.unary_abs()),
        Constraint::Copy { a, result } => match (&vars[a.index()], &vars[result.index()]) {
            (Term::Int(a), Term::Int(r)) => r.eq(a),
            _ => v(result)?.eq(v(a)?),
        },
        // x86 minss/maxss: the second operand unless the strict comparison holds.
        Constraint::MinMax { op, a, b, result } => {
            let (a, b) = (v(a)?, v(b)?);
            let first = match op {
                MinMaxOp::Min => a.lt(b),
                MinMaxOp::Max => a.gt(b),
            };
            v(result)?.eq(first.ite(a, b))
        }
        Constraint::Compare { predicate, a, b } => compare(predicate, v(a)?, v(b)?),
        Constraint::Class { a, classes } => in_classes(classes, v(a)?),
        Constraint::InSet { a, ref set, .. } => {
            let a = v(a)?;
            let format = set.format();
            let mut members: Vec<Bool> = set
                .ranges()
                .iter()
                .map(|&(lo, hi)| in_domain(a, &FloatDomain::new(format, lo, hi, false)))
                .collect();
            if set.holds_nan() {
                members.push(a.is_nan());
            }
            Bool::or(&members)
        }
        Constraint::FloatConvert { a, result } => {
            v(result)?.eq(v(a)?.to_fp_with_rounding_mode(&rne, &format_sort(result)?))
        }
        // sitofp/uitofp of the mathematical integer (the domain says which values): the
        // integer as a wide signed bit-vector rounds exactly as the instruction rounds it.
        Constraint::IntToFloat { a, result } => {
            v(result)?.eq(signed_to_float(int(a)?, &rne, &format_sort(result)?))
        }
        // fptosi/fptoui: truncation toward zero, and no value at all for NaN or a result
        // outside the integer type (as the network has it): the bound keeps Z3's
        // unspecified conversion of huge values out of play.
        Constraint::BitsToInt { .. } => {
            return Err("an integer read from a float's bits (not stated in QF_FP here)".into())
        }
        // Integers are wide signed bit-vectors holding mathematical values.
        Constraint::IntCompare { order, a, b } => {
            let (a, b) = (int(a)?, int(b)?);
            match order {
                IntOrder::Less => a.bvslt(b),
                IntOrder::LessOrEqual => a.bvsle(b),
                IntOrder::Equal => a.eq(b),
                IntOrder::NotEqual => a.eq(b).not(),
            }
        }
        Constraint::IntSum {
            a,
            b,
            subtract,
            result,
        } => {
            let (a, b) = (int(a)?, int(b)?);
            int(result)?.eq(if subtract { a.bvsub(b) } else { a.bvadd(b) })
        }
        Constraint::FloatToInt {
            a,
            result,
            bits,
            signed,
        } => {
            let x = v(a)?;
            let format = net.float_domain(a).map_err(|e| e.to_string())?.format();
            let wide = 2f64.powi(INT_WIDTH as i32 - 2);
            let (lo, hi) = fpscout_fpsolve::integer_type_range(bits, signed);
            let truncated =
                x.to_sbv_with_rounding_mode(&RoundingMode::round_towards_zero(), INT_WIDTH);
            Bool::and(&[
                x.is_nan().not(),
                x.gt(constant(format, format.from_f64(-wide))),
                x.lt(constant(format, format.from_f64(wide))),
                int_in_domain(&truncated, Some((lo, hi))),
                int(result)?.eq(&truncated),
            ])
        }
    })
}

/// `fp.to_fp` of a signed bit-vector (the z3 crate has no wrapper for it).
fn signed_to_float(bv: &BV, rm: &RoundingMode, sort: &Sort) -> Float {
    let ctx = bv.get_ctx();
    // SAFETY: every handle comes from live terms of the thread's context; Z3 returns a
    // new term (or null on a sort error, which these sorts cannot make).
    unsafe {
        let raw = z3_sys::Z3_mk_fpa_to_fp_signed(
            ctx.get_z3_context(),
            rm.get_z3_ast(),
            bv.get_z3_ast(),
            sort.get_z3_sort(),
        );
        match raw {
            Some(ast) => Float::wrap(ctx, ast),
            None => Float::nan(sort),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpscout_fpsolve::IntDomain;

    fn f32_between(net: &mut Network, name: &str, lo: f64, hi: f64) -> VarId {
        net.float_var_in(name, FloatDomain::between(Format::F32, lo, hi))
    }

    #[test]
    fn the_only_float_with_x_times_41_equal_to_1_is_found_and_55_has_none() {
        let _turn = crate::z3_turn();
        for (factor, expected) in [(41.0, Some(0x3cc7_ce0du32)), (55.0, None)] {
            let mut net = Network::new(Arith::IEEE);
            let x = f32_between(&mut net, "x", 0.01, 0.1);
            let k = net.float_const_f64(Format::F32, factor);
            let one = net.float_const_f64(Format::F32, 1.0);
            let product = net.fmul(x, k).expect("fmul");
            net.require(FcmpPredicate::Oeq, product, one, true)
                .expect("compare");
            let answer = solve_fp_theory(&net, &[x], Duration::from_secs(20), None);
            match expected {
                Some(bits) => {
                    assert_eq!(answer, FpTheoryAnswer::Solution(vec![u64::from(bits)]));
                    assert_eq!(f32::from_bits(bits) * 41.0, 1.0);
                }
                None => assert_eq!(answer, FpTheoryAnswer::Infeasible),
            }
        }
    }

    #[test]
    fn signed_zeros_nan_and_min_follow_the_network() {
        let _turn = crate::z3_turn();
        // r = minss(x, 0): with x only -0 or +0, r is 0 (the second operand) whichever;
        // asking r to be -0 is infeasible.
        let mut net = Network::new(Arith::IEEE);
        let x = f32_between(&mut net, "x", -0.0, 0.0);
        let zero = net.float_const_f64(Format::F32, 0.0);
        let r = net.min_max(MinMaxOp::Min, x, zero).expect("min");
        let neg_zero = FloatValue::Num(Format::F32.neg_zero());
        net.restrict(r, Domain::Float(FloatDomain::point(Format::F32, neg_zero)))
            .expect("restrict");
        assert_eq!(
            solve_fp_theory(&net, &[x], Duration::from_secs(20), None),
            FpTheoryAnswer::Infeasible
        );
        // A NaN input is the only way for x != x to hold.
        let mut net = Network::new(Arith::IEEE);
        let x = net.float_var("x", Format::F64);
        net.require(FcmpPredicate::Une, x, x, true)
            .expect("compare");
        match solve_fp_theory(&net, &[x], Duration::from_secs(20), None) {
            FpTheoryAnswer::Solution(bits) => assert!(f64::from_bits(bits[0]).is_nan()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn class_memberships_are_the_theorys_class_predicates() {
        let _turn = crate::z3_turn();
        // No normal float lies in (0, 1e-38): normals start at 2^-126.
        let mut net = Network::new(Arith::IEEE);
        let x = f32_between(&mut net, "x", 0.0, 1e-38);
        let zero = net.float_const_f64(Format::F32, 0.0);
        let normal = FloatClasses::NEG_NORMAL.union(FloatClasses::POS_NORMAL);
        net.require_class(x, normal, true).expect("class");
        net.require(FcmpPredicate::Ogt, x, zero, true)
            .expect("compare");
        assert_eq!(
            solve_fp_theory(&net, &[x], Duration::from_secs(20), None),
            FpTheoryAnswer::Infeasible
        );
        // Not a positive subnormal, zero or normal, and not NaN: only -0, negatives or
        // +inf remain; asking x > 1 leaves +inf.
        let mut net = Network::new(Arith::IEEE);
        let x = net.float_var("x", Format::F32);
        let one = net.float_const_f64(Format::F32, 1.0);
        let excluded = FloatClasses::POS_SUBNORMAL
            .union(FloatClasses::POS_ZERO)
            .union(FloatClasses::POS_NORMAL)
            .union(FloatClasses::NAN);
        net.require_class(x, excluded, false).expect("class");
        net.require(FcmpPredicate::Ogt, x, one, true)
            .expect("compare");
        assert_eq!(
            solve_fp_theory(&net, &[x], Duration::from_secs(20), None),
            FpTheoryAnswer::Solution(vec![u64::from(f32::INFINITY.to_bits())])
        );
    }

    #[test]
    fn integer_conversions_round_and_truncate_as_the_machine() {
        let _turn = crate::z3_turn();
        // 2^24 + 1 as f32 rounds to even, 2^24: asking for 2^24 + 2 is infeasible, and
        // the integer found for 2^24 agrees with the machine's conversion.
        let mut net = Network::new(Arith::IEEE);
        let n = net.int_var("n", (1 << 24) + 1, (1 << 24) + 1).expect("int");
        let f = net.int_to_float(n, Format::F32).expect("sitofp");
        let wanted = net.float_const_f64(Format::F32, 16_777_218.0);
        net.require(FcmpPredicate::Oeq, f, wanted, true)
            .expect("compare");
        assert_eq!(
            solve_fp_theory(&net, &[n], Duration::from_secs(20), None),
            FpTheoryAnswer::Infeasible
        );
        let mut net = Network::new(Arith::IEEE);
        let n = net.int_var("n", -(1 << 30), 1 << 30).expect("int");
        let f = net.int_to_float(n, Format::F32).expect("sitofp");
        let wanted = net.float_const_f64(Format::F32, -16_777_216.0);
        net.require(FcmpPredicate::Oeq, f, wanted, true)
            .expect("compare");
        match solve_fp_theory(&net, &[n], Duration::from_secs(20), None) {
            FpTheoryAnswer::Solution(bits) => {
                let value = bits[0] as i64;
                assert_eq!(value as f32, -16_777_216.0, "n = {value}");
            }
            other => panic!("{other:?}"),
        }
        // fptosi truncates toward zero: (int)x == -3 holds exactly for x in (-4, -2].
        let mut net = Network::new(Arith::IEEE);
        let x = f32_between(&mut net, "x", -10.0, -3.5);
        let i = net.float_to_int(x, 32, true).expect("fptosi");
        net.restrict(i, Domain::Int(IntDomain::new(-3, -3)))
            .expect("restrict");
        match solve_fp_theory(&net, &[x], Duration::from_secs(20), None) {
            FpTheoryAnswer::Solution(bits) => {
                let x = f32::from_bits(bits[0] as u32);
                assert!((-3.5..=-3.0).contains(&x) && x as i32 == -3, "x = {x}");
            }
            other => panic!("{other:?}"),
        }
        // A NaN or a value beyond the integer type converts to nothing.
        let mut net = Network::new(Arith::IEEE);
        let x = net.float_var("x", Format::F64);
        net.float_to_int(x, 8, false).expect("fptoui");
        net.restrict(
            x,
            Domain::Float(FloatDomain::between(Format::F64, 256.0, 1e300)),
        )
        .expect("restrict");
        assert_eq!(
            solve_fp_theory(&net, &[x], Duration::from_secs(20), None),
            FpTheoryAnswer::Infeasible
        );
    }
}
