//! Infinities and NaNs as values of the symbolic real domain, against the processor.

use fpscout_ir::{
    CmpLowering, ExceptionKind, FBinOp, FBinaryOp, FCmpPred, FloatTy, FpOpId, ScalarTy,
};
use fpscout_smt::numeral::{float_to_real, rational_to_real};
use fpscout_smt::{Sym, SymReal};
use fpscout_walk::{Domain, OpSite};
use z3::ast::{Ast, Bool, Real};

const SITE: OpSite = OpSite {
    op: FpOpId(0),
    lane: 0,
};

fn constant(x: f64) -> Sym {
    Sym::Bits(ScalarTy::Float(FloatTy::F64), x.to_bits())
}

/// A point of the real line and the double it stands for: the finite doubles, and reals
/// beyond the overflow threshold, which the real domain reads as infinities.
fn points() -> Vec<(Real, f64)> {
    let finite = [
        0.0,
        1.0,
        -1.0,
        0.5,
        -3.0,
        1e300,
        -1e300,
        f64::MAX,
        -f64::MAX,
        5e-324,
        -5e-324,
    ];
    let mut points: Vec<(Real, f64)> = finite.iter().map(|&x| (float_to_real(x), x)).collect();
    let beyond = rational_to_real(&(rug::Rational::from(1) << 1025u32));
    points.push((beyond.clone(), f64::INFINITY));
    points.push((-beyond, f64::NEG_INFINITY));
    points
}

fn at(b: &Bool, x: &Real, value: &Real) -> bool {
    b.substitute(&[(x, value)])
        .simplify()
        .as_bool()
        .expect("a closed formula simplifies to a constant")
}

/// The double a symbolic value takes at `x = value`: known bits, or the real term's value
/// (a case's bits or term where its condition holds).
fn value_at(sym: &Sym, x: &Real, value: &Real) -> Result<u64, Real> {
    match sym {
        Sym::Bits(_, bits) => Ok(*bits),
        Sym::Real(r) => Err(r.substitute(&[(x, value)]).simplify()),
        Sym::Cases(cases) => {
            let holding: Vec<&Sym> = cases
                .iter()
                .filter(|(g, _)| at(g, x, value))
                .map(|(_, v)| v)
                .collect();
            assert_eq!(holding.len(), 1, "exactly one case holds at {value}");
            value_at(holding[0], x, value)
        }
        other => panic!("{other:?} is not a float"),
    }
}

/// `x op c` and `c op x` for every arithmetic operation and every non-finite constant:
/// the case holding at each point is the processor's result (an exact zero of the reals
/// stands for +0), and the recorded invalid condition holds exactly where the processor
/// raises invalid; nothing else is recorded.
#[test]
fn arithmetic_with_infinities_and_nans_follows_ieee() {
    let constants = [f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    let ops = [FBinOp::FAdd, FBinOp::FSub, FBinOp::FMul, FBinOp::FDiv];
    let mut checked = 0;
    for c in constants {
        for op in ops {
            for constant_right in [true, false] {
                let mut d = SymReal::new("t.", 1000);
                let x = d.real_input("x", FloatTy::F64, None);
                let Sym::Real(xr) = x.clone() else {
                    panic!("a real input")
                };
                let (a, b) = if constant_right {
                    (x.clone(), constant(c))
                } else {
                    (constant(c), x.clone())
                };
                let r = d.fbin(op, FloatTy::F64, &a, &b, SITE).unwrap();
                for (real, v) in points() {
                    let (l, rr) = if constant_right { (v, c) } else { (c, v) };
                    let native = match op {
                        FBinOp::FAdd => l + rr,
                        FBinOp::FSub => l - rr,
                        FBinOp::FMul => l * rr,
                        _ => l / rr,
                    };
                    let got = value_at(&r, &xr, &real).expect("known bits");
                    let got = f64::from_bits(got);
                    let what = format!("{l:e} {op:?} {rr:e}");
                    if native.is_nan() {
                        assert!(got.is_nan(), "{what}: {got:e}");
                    } else if v == 0.0 || native == 0.0 && v.abs() <= 5e-324 {
                        // Signed zeros: the reals read 0 as +0.
                        assert_eq!(got.abs(), native.abs(), "{what}");
                    } else {
                        assert_eq!(got.to_bits(), native.to_bits(), "{what}: {got:e}");
                    }
                    let invalid = native.is_nan() && !c.is_nan();
                    let recorded = d
                        .conditions
                        .iter()
                        .filter(|k| k.kind == ExceptionKind::Invalid)
                        .any(|k| at(&k.formula, &xr, &real));
                    assert_eq!(recorded, invalid, "{what}: invalid");
                    checked += 1;
                }
                assert!(
                    d.conditions
                        .iter()
                        .all(|k| k.kind == ExceptionKind::Invalid),
                    "only invalid is raised with an infinite or NaN operand"
                );
            }
        }
    }
    assert_eq!(checked, 3 * 4 * 2 * points().len());
}

/// Cases carry on: `x * inf` compared with +inf, with NaN (unordered) and its class, at
/// every point, equal the processor's answers.
#[test]
fn comparisons_of_cases_fold_to_conditions() {
    let mut d = SymReal::new("t.", 1000);
    let x = d.real_input("x", FloatTy::F64, None);
    let Sym::Real(xr) = x.clone() else {
        panic!("a real input")
    };
    let product = d
        .fbin(
            FBinOp::FMul,
            FloatTy::F64,
            &x,
            &constant(f64::INFINITY),
            SITE,
        )
        .unwrap();
    assert!(matches!(product, Sym::Cases(_)), "{product:?}");
    let compare = |d: &mut SymReal, pred: FCmpPred, c: f64| {
        let Sym::Bool(b) = d
            .fcmp(
                pred,
                CmpLowering::Quiet,
                FloatTy::F64,
                &product,
                &constant(c),
                SITE,
            )
            .unwrap()
        else {
            panic!("a condition")
        };
        b
    };
    let is_pos_inf = compare(&mut d, FCmpPred::Oeq, f64::INFINITY);
    let below = compare(&mut d, FCmpPred::Olt, 1.0);
    let unordered = compare(&mut d, FCmpPred::Uno, 0.0);
    for (real, v) in points() {
        let native = v * f64::INFINITY;
        // An exact 0 is +0, and 0 * inf is NaN either way.
        assert_eq!(
            at(&is_pos_inf, &xr, &real),
            native == f64::INFINITY,
            "{v:e}"
        );
        assert_eq!(at(&below, &xr, &real), native < 1.0, "{v:e}");
        assert_eq!(at(&unordered, &xr, &real), native.is_nan(), "{v:e}");
    }
}

/// `x < 0 ? -inf : +inf` on a symbolic condition is two cases; `fmax(x, -inf)` is x
/// wherever x is finite; SSE `min(x, NaN)` is the NaN and raises invalid; `copysign(inf,
/// x)` takes x's sign.
#[test]
fn selects_min_max_and_copysign_with_infinities() {
    let mut d = SymReal::new("t.", 1000);
    let x = d.real_input("x", FloatTy::F64, None);
    let Sym::Real(xr) = x.clone() else {
        panic!("a real input")
    };
    let negative = d
        .fcmp(
            FCmpPred::Olt,
            CmpLowering::Quiet,
            FloatTy::F64,
            &x,
            &constant(0.0),
            SITE,
        )
        .unwrap();
    let chosen = d
        .select(
            &negative,
            &constant(f64::NEG_INFINITY),
            &constant(f64::INFINITY),
        )
        .unwrap();
    let larger = d
        .fbinary(
            FBinaryOp::MaxNum,
            FloatTy::F64,
            &x,
            &constant(f64::NEG_INFINITY),
            SITE,
        )
        .unwrap();
    let signed = d
        .fbinary(
            FBinaryOp::CopySign,
            FloatTy::F64,
            &constant(f64::INFINITY),
            &x,
            SITE,
        )
        .unwrap();
    for (real, v) in points().into_iter().filter(|(_, v)| v.is_finite()) {
        let want = if v < 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        assert_eq!(value_at(&chosen, &xr, &real), Ok(want.to_bits()), "{v:e}");
        assert_eq!(value_at(&signed, &xr, &real), Ok(want.to_bits()), "{v:e}");
        assert_eq!(value_at(&larger, &xr, &real), Err(real.clone()), "{v:e}");
    }
    let before = d.conditions.len();
    let smaller = d
        .fbinary(
            FBinaryOp::MinSse,
            FloatTy::F64,
            &x,
            &constant(f64::NAN),
            SITE,
        )
        .unwrap();
    assert!(matches!(smaller, Sym::Bits(_, b) if f64::from_bits(b).is_nan()));
    assert_eq!(d.conditions.len(), before + 1);
    assert_eq!(d.conditions[before].kind, ExceptionKind::Invalid);
    // A value that may be NaN stays out of real-only places with a typed reason.
    let product = d
        .fbin(
            FBinOp::FMul,
            FloatTy::F64,
            &x,
            &constant(f64::INFINITY),
            SITE,
        )
        .unwrap();
    let err = d.decide(&product).unwrap_err();
    assert!(format!("{err}").contains("infinite or NaN"), "{err}");
}
