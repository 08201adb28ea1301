//! The reference evaluator against MPFR computed directly, IEEE rounding corner cases, and its errors.

use fpscout_fpcore::{
    measure, parse_file, Precision, Reference, ReferenceError, ReferenceValue, START_PRECISION,
};
use rug::float::Round;
use rug::Float;

const B64: Precision = Precision::Binary64;
const B32: Precision = Precision::Binary32;

fn eval(expr: &str, params: &[&str], inputs: &[f64], p: Precision) -> ReferenceValue {
    Reference::parse(expr, params)
        .unwrap_or_else(|e| panic!("{expr}: {e}"))
        .evaluate(inputs, p)
}

/// The correctly rounded value, or a panic naming what came instead.
fn finite(expr: &str, params: &[&str], inputs: &[f64], p: Precision) -> f64 {
    match eval(expr, params, inputs, p) {
        ReferenceValue::Finite { value, .. } => value,
        other => panic!("{expr} at {inputs:?}: {other:?}"),
    }
}

fn x1(expr: &str, x: f64) -> f64 {
    finite(expr, &["x"], &[x], B64)
}

/// A value computed directly with MPFR at 1000 bits, rounded once to binary64
/// (with IEEE subnormals).
fn round64(f: &Float) -> f64 {
    let (mut r, o) = Float::with_val_round(53, f, Round::Nearest);
    r.subnormalize_ieee_round(o, Round::Nearest);
    r.to_f64()
}

fn round32(f: &Float) -> f64 {
    let (mut r, o) = Float::with_val_round(24, f, Round::Nearest);
    r.subnormalize_ieee_round(o, Round::Nearest);
    f64::from(r.to_f32())
}

fn big(x: f64) -> Float {
    Float::with_val(1000, x)
}

#[test]
fn known_values() {
    assert_eq!(
        finite("(exp 1)", &[], &[], B64).to_bits(),
        0x4005BF0A8B145769
    );
    assert_eq!(finite("E", &[], &[], B64).to_bits(), 0x4005BF0A8B145769);
    assert_eq!(finite("PI", &[], &[], B64), std::f64::consts::PI);
    assert_eq!(finite("PI", &[], &[], B32), f64::from(std::f32::consts::PI));

    let s = x1("(sin x)", 1e22);
    assert_eq!(s, round64(&big(1e22).sin()));
    assert_eq!(s, -0.8522008497671888);
    // (The issue quoted bits 0xBFEB4586A33B2E3C, which are -0.8522370517834541.)
    assert_eq!(s.to_bits(), 0xBFEB453AB76BF397);

    assert_eq!(x1("(log1p x)", 1e-20), round64(&big(1e-20).ln_1p()));
    let want = round64(&(big(1e-8).ln_1p() - big(1e-8)));
    assert_eq!(x1("(- (log1p x) x)", 1e-8), want);
    assert!((want + 5e-17).abs() < 1e-22, "{want}");

    let lg = Float::with_val(500, -3.9553).ln_abs_gamma().0;
    assert_eq!(x1("(lgamma x)", -3.9553), round64(&lg));

    let j = x1("(jn 1 x)", 1e-15);
    assert!((j - 5e-16).abs() < 1e-30, "{j}");
    assert_eq!(j, round64(&big(1e-15).jn(1)));
    assert!(matches!(
        eval("(jn 1.5 x)", &["x"], &[1.0], B64),
        ReferenceValue::Undefined
    ));
    assert_eq!(x1("(yn 2 x)", 3.0), round64(&big(3.0).yn(2)));
    assert_eq!(x1("(jn (+ 1/3 2/3) x)", 3.0), round64(&big(3.0).jn(1)));
    assert!(matches!(
        eval("(jn (log E) x)", &["x"], &[3.0], B64),
        ReferenceValue::Undecided { .. }
    ));
    assert_eq!(
        eval("(jn INFINITY x)", &["x"], &[3.0], B64),
        ReferenceValue::Undefined
    );

    assert_eq!(
        finite("(zeta 2)", &[], &[], B64),
        round64(&(Float::with_val(1000, rug::float::Constant::Pi).square() / 6u32))
    );
    assert_eq!(finite("(beta 2 3)", &[], &[], B64), 1.0 / 12.0);
    assert_eq!(x1("(ai x)", -100.0), round64(&big(-100.0).ai()));
    assert_eq!(x1("(ai x)", 300.0), 0.0);
    // Far out, Ai is an underflow the evaluator does not compute: alone it rounds to +0,
    // magnified (GSL's scaled Airy function) its value is not known, not 0.
    assert_eq!(x1("(* (ai x) 0.5)", 300.0), 0.0);
    for (e, x) in [
        ("(ai x)", -1e308),
        ("(ai x)", -1e4),
        ("(jn 1001 x)", 1e6),
        ("(* (ai x) (exp (* 2/3 (pow x 3/2))))", 300.0),
        ("(/ (ai x) (exp (* -2/3 (pow x 3/2))))", 300.0),
    ] {
        let r = eval(e, &["x"], &[x], B64);
        assert!(
            matches!(r, ReferenceValue::Undecided { .. }),
            "{e} at {x}: {r:?}"
        );
    }
    let e = Reference::parse("(gamma_inc 1 x)", &["x"]).unwrap_err();
    assert!(matches!(e, ReferenceError::Unsupported { .. }), "{e}");
    assert_eq!(x1("(digamma x)", 1.0), -0.5772156649015329);
    assert_eq!(x1("(pow x 0.5)", 2.0), std::f64::consts::SQRT_2);
    assert_eq!(x1("(atan2 x 1)", 1.0), std::f64::consts::FRAC_PI_4);
}

#[test]
fn exact_rationals() {
    assert_eq!(
        finite("(/ 1 3)", &[], &[], B64).to_bits(),
        (1.0f64 / 3.0).to_bits()
    );
    assert_eq!(
        finite("(/ 1 3)", &[], &[], B32).to_bits(),
        f64::from(1.0f32 / 3.0).to_bits()
    );
    assert_eq!(finite("1/3", &[], &[], B32), f64::from(1.0f32 / 3.0));
    // 0.1 is read exactly: 3/10 rounded once, not 0.1 rounded then multiplied.
    let v = finite("(* 0.1 3)", &[], &[], B64);
    assert_eq!(v, 0.3);
    assert_ne!(v, 0.1 * 3.0);
    assert_eq!(finite("(- (+ x 1e-40) x)", &["x"], &[1.0], B64), 1e-40);
    assert_eq!(
        finite("(fma x x -1)", &["x"], &[1.0 + f64::EPSILON], B64),
        2.0 * f64::EPSILON + f64::EPSILON * f64::EPSILON
    );
    assert_eq!(x1("(floor x)", -2.5), -3.0);
    assert_eq!(x1("(round x)", 2.5), 3.0);
    assert_eq!(x1("(round x)", -2.5), -3.0);
    assert_eq!(x1("(nearbyint x)", -2.5), -2.0);
    assert!(x1("(ceil x)", -0.5).is_sign_negative());
    assert!(x1("(fmod x 1)", -3.0).is_sign_negative());
    assert_eq!(x1("(nearbyint x)", 2.5), 2.0);
    assert_eq!(x1("(fmod x 3)", -7.0), -1.0);
    assert_eq!(x1("(remainder x 3)", 7.0), 1.0);
    assert_eq!(x1("(let ([y (* x 2)] [x 10]) (+ x y))", 1.0), 12.0);
    assert_eq!(x1("(let* ([y (* x 2)] [x 10]) (+ x y))", 1.0), 12.0);
    assert_eq!(x1("(let* ([x 10] [y (* x 2)]) (+ x y))", 1.0), 30.0);
    assert_eq!(x1("(! :precision binary32 (cast (+ x 1)))", 1.0), 2.0);
    assert_eq!(x1("(+ x x x)", 1.0), 3.0);
}

#[test]
fn ziv_loop_grows_precision() {
    // exp(x·1e-60) − 1 ≈ 1e-60: at 128 bits exp rounds to 1 and the difference is an
    // approximate zero; the loop must go on until the cancellation is resolved.
    let r = eval("(- (exp (* x 1e-60)) 1)", &["x"], &[1.0], B64);
    let ReferenceValue::Finite {
        value, precision, ..
    } = r
    else {
        panic!("{r:?}")
    };
    assert!(precision > 2 * START_PRECISION, "{precision}");
    let t = Float::with_val(1000, Float::parse("1e-60").unwrap());
    assert_eq!(value, round64(&t.exp_m1()));

    // A comparison equal at the first precision is decided by a larger one.
    let r = eval("(if (< x (sin x)) 1 (- x (sin x)))", &["x"], &[1e-30], B64);
    let ReferenceValue::Finite {
        value, precision, ..
    } = r
    else {
        panic!("{r:?}")
    };
    assert!(precision > START_PRECISION, "{precision}");
    let x = big(1e-30);
    assert_eq!(value, round64(&(x.clone() - x.sin())));

    // At 128 bits sin(1e-30) rounds to 1e-30: `<=` would wrongly hold.
    let r = eval("(if (<= x (sin x)) 1 0)", &["x"], &[1e-30], B64);
    assert!(
        matches!(r, ReferenceValue::Finite { value, precision, .. } if value == 0.0 && precision > START_PRECISION),
        "{r:?}"
    );

    // 1 − x is exact (a dyadic rational) and reaches lgamma exactly, at its own 1075
    // bits: no precision growth is needed to see it is not 1.
    let r = eval("(lgamma (- 1 x))", &["x"], &[1e-310], B64);
    let ReferenceValue::Finite {
        value, precision, ..
    } = r
    else {
        panic!("{r:?}")
    };
    let one_minus = Float::with_val(2000, 1u32) - big(1e-310);
    assert_eq!(value, round64(&one_minus.ln_abs_gamma().0));
    assert!(precision <= 2 * START_PRECISION, "{precision}");

    // Identical operands: exactly zero at the first precision.
    let r = eval("(- (sin x) (sin x))", &["x"], &[0.7], B64);
    assert!(
        matches!(r, ReferenceValue::Finite { value, precision: START_PRECISION, .. } if value == 0.0 && value.is_sign_positive()),
        "{r:?}"
    );
    assert_eq!(x1("(- x x)", 3.5), 0.0);
    assert_eq!(x1("(sin x)", 0.0), 0.0);
    assert!(x1("(sin x)", -0.0).is_sign_negative());
    assert!(x1("(* x 1)", -0.0).is_sign_negative());
    assert!(x1("(- x x)", -0.0).is_sign_positive());
}

#[test]
fn overflow_underflow_subnormals() {
    let over = |expr: &str, x: f64, p| {
        assert_eq!(
            eval(expr, &["x"], &[x], p),
            ReferenceValue::Infinite {
                negative: false,
                overflow: true
            },
            "{expr} at {x}"
        );
    };
    over("(* x x)", 1e200, B64);
    over("(* x x)", 1e20, B32);
    over("(exp x)", 1000.0, B64);
    over("(* x 2)", f64::MAX, B64);
    // DBL_MAX + half an ulp is a tie, rounded to even: infinity; just below, DBL_MAX.
    over("(+ x 0x1p970)", f64::MAX, B64);
    assert_eq!(x1("(+ x 0x1.fp969)", f64::MAX), f64::MAX);
    let r = eval("(- (* x x))", &["x"], &[1e200], B64);
    assert_eq!(
        r,
        ReferenceValue::Infinite {
            negative: true,
            overflow: true
        }
    );

    for x in [1e-160, 3e-162, 1.2345e-155] {
        let want = round64(&(big(x) * big(x)));
        assert_eq!(x1("(* x x)", x).to_bits(), want.to_bits(), "{x}");
        assert!(want != 0.0 && want < f64::MIN_POSITIVE);
    }
    for x in [3e-22f32, 1.7e-20f32] {
        let x = f64::from(x);
        let want = round32(&(big(x) * big(x)));
        let got = finite("(* x x)", &["x"], &[x], B32);
        assert_eq!(got.to_bits(), want.to_bits(), "{x}");
        assert!(want != 0.0 && want < f64::from(f32::MIN_POSITIVE));
    }
    // exp(1e10) overflows even MPFR's exponent range; it is still a finite real value.
    assert_eq!(x1("(* (exp x) 0)", 1e10), 0.0);
    assert_eq!(x1("(- (exp x) (exp x))", 1e10), 0.0);
    assert!(matches!(
        eval("(/ (exp x) (exp x))", &["x"], &[1e10], B64),
        ReferenceValue::Undecided { .. }
    ));
    assert_eq!(x1("(exp x)", -1e10), 0.0);
    // Beyond MPFR's exponent range a value's magnitude is lost: undecided, not wrong.
    for (e, x) in [
        ("(log (exp x))", 1e10),
        ("(log (exp x))", -1e10),
        ("(/ 1 (exp x))", -1e10),
    ] {
        let r = eval(e, &["x"], &[x], B64);
        assert!(
            matches!(r, ReferenceValue::Undecided { .. }),
            "{e} at {x}: {r:?}"
        );
    }
    assert_eq!(x1("(/ 1 (exp x))", 1e10), 0.0);

    let tiny = f64::from_bits(1);
    // Half the smallest subnormal is a tie to even (zero); above it, the subnormal.
    assert_eq!(x1("(* x 1/2)", tiny), 0.0);
    assert_eq!(x1("(* x 3/4)", tiny), tiny);
    assert_eq!(x1("(* x (/ 1 2))", 3.0 * tiny), 2.0 * tiny);
    assert!(x1("(* x -1/4)", tiny).is_sign_negative());
    assert_eq!(x1("(exp x)", -746.0), 0.0);
    assert_eq!(x1("(exp x)", -745.0), round64(&big(-745.0).exp()));
    let t32 = f64::from(f32::from_bits(1));
    assert_eq!(finite("(* x 3/4)", &["x"], &[t32], B32), t32);
    assert_eq!(finite("(* x 1/2)", &["x"], &[t32], B32), 0.0);
    assert_eq!(
        finite("(exp x)", &["x"], &[-104.0], B32),
        round32(&big(-104.0).exp())
    );
}

#[test]
fn undefined_and_poles() {
    for e in [
        "(/ 0 0)",
        "(sqrt -1)",
        "(log -1)",
        "(- INFINITY INFINITY)",
        "NAN",
        "(if (< 1 NAN) 1 2)",
        "(acos 2)",
    ] {
        assert_eq!(eval(e, &[], &[], B64), ReferenceValue::Undefined, "{e}");
    }
    assert_eq!(
        eval("(sqrt x)", &["x"], &[f64::NAN], B64),
        ReferenceValue::Undefined
    );
    let pole = |e: &str, negative| {
        assert_eq!(
            eval(e, &[], &[], B64),
            ReferenceValue::Infinite {
                negative,
                overflow: false
            },
            "{e}"
        )
    };
    pole("(/ 1 0)", false);
    pole("(/ -1 0)", true);
    pole("(/ 1 -0.0)", true);
    pole("(log 0)", true);
    pole("INFINITY", false);
    pole("(/ (sin 1) 0)", false);
    pole("(tgamma 0)", false);
}

#[test]
fn measuring() {
    let one = eval("(+ x 0)", &["x"], &[1.5], B64);
    let m = measure(1.5, &one, B64).unwrap();
    assert_eq!((m.ulps, m.relative, m.bits), (0.0, 0.0, 0.0));
    let next = f64::from_bits(1.5f64.to_bits() + 1);
    let m = measure(next, &one, B64).unwrap();
    assert_eq!(m.ulps, 1.0);
    assert_eq!(m.bits, 1.0);
    assert_eq!(m.relative, f64::EPSILON / 1.5);
    assert!(measure(f64::NAN, &one, B64).unwrap().ulps.is_infinite());
    assert!(measure(f64::INFINITY, &one, B64)
        .unwrap()
        .bits
        .is_infinite());

    // binary32 ulps.
    let r = eval("(+ x 0)", &["x"], &[1.5], B32);
    let next32 = f64::from(f32::from_bits(1.5f32.to_bits() + 1));
    assert_eq!(measure(next32, &r, B32).unwrap().ulps, 1.0);
    // Subnormal ulps: 3 subnormals away from zero... from the exact value 0.
    let z = eval("(- x x)", &["x"], &[1.0], B64);
    assert_eq!(measure(3.0 * f64::from_bits(1), &z, B64).unwrap().ulps, 3.0);

    // A third: the correctly rounded double is 1/3 - 2^-54/3 (a third of an ulp of its
    // binade [2^-2, 2^-1) below), the next float two thirds of an ulp above.
    let third = eval("(/ 1 3)", &[], &[], B64);
    let m = measure(1.0 / 3.0, &third, B64).unwrap();
    assert!((m.ulps - 1.0 / 3.0).abs() < 1e-15, "{}", m.ulps);
    assert!(
        (m.relative - 2f64.powi(-54)).abs() < 1e-30,
        "{}",
        m.relative
    );
    let u = measure(f64::from_bits((1.0f64 / 3.0).to_bits() + 1), &third, B64)
        .unwrap()
        .ulps;
    assert!((u - 2.0 / 3.0).abs() < 1e-15, "{u}");
    // sqrt(2) correctly rounded: under half an ulp, not zero.
    let root = eval("(sqrt 2)", &[], &[], B64);
    let m = measure(2f64.sqrt(), &root, B64).unwrap();
    assert!(m.ulps > 0.0 && m.ulps < 0.5, "{}", m.ulps);

    let undef = eval("(sqrt -1)", &[], &[], B64);
    assert_eq!(measure(f64::NAN, &undef, B64).unwrap().ulps, 0.0);
    assert!(measure(1.0, &undef, B64).unwrap().ulps.is_infinite());
    let inf = eval("(/ 1 0)", &[], &[], B64);
    assert_eq!(measure(f64::INFINITY, &inf, B64).unwrap().ulps, 0.0);
    assert!(measure(f64::NEG_INFINITY, &inf, B64)
        .unwrap()
        .ulps
        .is_infinite());
    assert!(measure(f64::MAX, &inf, B64).unwrap().ulps.is_infinite());
    let over = eval("(* x x)", &["x"], &[1e200], B64);
    assert_eq!(measure(f64::INFINITY, &over, B64).unwrap().ulps, 0.0);
    assert_eq!(measure(f64::MAX, &over, B64).unwrap().ulps, 1.0);
    assert!(measure(1.0, &ReferenceValue::Undecided { approx: 1.0 }, B64).is_none());
}

#[test]
fn errors_name_the_culprit() {
    let e = Reference::parse("(foo x)", &["x"]).unwrap_err();
    assert!(matches!(e, ReferenceError::UnknownOperator { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("`foo`") && msg.contains("lgamma") && msg.contains("jn"),
        "{msg}"
    );

    let e = Reference::parse("(+ x y)", &["x"]).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, ReferenceError::UnknownVariable { .. }), "{e}");
    assert!(
        msg.contains("`y`") && msg.contains("x") && msg.starts_with("1:6"),
        "{msg}"
    );

    let e = Reference::parse("(sqrt x x)", &["x"]).unwrap_err();
    assert!(matches!(e, ReferenceError::Arity { .. }), "{e}");
    assert!(e.to_string().contains("`sqrt` expects 1 argument"), "{e}");
    let e = Reference::parse("(jn x)", &["x"]).unwrap_err();
    assert!(e.to_string().contains("`jn` expects 2"), "{e}");

    let e = Reference::parse("(while (< i 3) ([i 0 (+ i 1)]) i)", &[]).unwrap_err();
    assert!(matches!(e, ReferenceError::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("while"), "{e}");
    assert!(matches!(
        Reference::parse("(+ x", &["x"]),
        Err(ReferenceError::Syntax { .. })
    ));
    assert!(matches!(
        Reference::parse("(+ (< x 1) 1)", &["x"]),
        Err(ReferenceError::Type { .. })
    ));
    assert!(matches!(
        Reference::parse("(< x 1)", &["x"]),
        Err(ReferenceError::Type { .. })
    ));
}

#[test]
fn whole_fpcore() {
    let src = ";; header\n(FPCore (x) :name \"sqrt diff\" :pre (<= 0 x 1) (- (sqrt (+ x 1)) (sqrt x)))\n(FPCore ((! :precision binary32 y) z) (* y z))\n(FPCore ((a 2)) a)";
    let cores = parse_file(src).unwrap();
    let r = Reference::from_core(&cores[0]).unwrap();
    assert_eq!(r.params(), ["x"]);
    let want = round64(&(big(1.5).sqrt() - big(0.5).sqrt()));
    let ReferenceValue::Finite { value, .. } = r.evaluate(&[0.5], B64) else {
        panic!()
    };
    assert_eq!(value, want);
    let big_x = 1e30;
    let ReferenceValue::Finite { value, .. } = r.evaluate(&[big_x], B64) else {
        panic!()
    };
    assert_eq!(
        value,
        round64(&((big(big_x) + 1u32).sqrt() - big(big_x).sqrt()))
    );
    let r = Reference::from_core(&cores[1]).unwrap();
    assert_eq!(r.params(), ["y", "z"]);
    assert!(
        matches!(r.evaluate(&[2.0, 3.0], B32), ReferenceValue::Finite { value, .. } if value == 6.0)
    );
    let e = Reference::from_core(&cores[2]).unwrap_err();
    assert!(matches!(e, ReferenceError::Unsupported { .. }), "{e}");
    assert!(e.to_string().starts_with("4:10"), "{e}");
}

#[test]
fn undecided_is_reported_not_guessed() {
    // exp(log 2) − 2 is exactly 0, but only computed approximately: an approximate zero
    // at every precision, never decided.
    let r = eval("(- (exp (log x)) x)", &["x"], &[2.0], B64);
    assert!(matches!(r, ReferenceValue::Undecided { .. }), "{r:?}");
    assert!(measure(0.0, &r, B64).is_none());
    // An `if` whose comparison stays uncertain is undecided too.
    let r = eval("(if (== (exp (log x)) x) 1 2)", &["x"], &[2.0], B64);
    assert!(matches!(r, ReferenceValue::Undecided { .. }), "{r:?}");
}

mod ieee_oracle {
    //! IEEE `+ - * / sqrt fma` are correctly rounded: the hardware is an oracle for the
    //! reference's rounding, subnormals, overflow and signed zeros included.
    use super::*;
    use proptest::prelude::*;

    fn as_f64(r: &ReferenceValue) -> f64 {
        match r {
            ReferenceValue::Finite { value, .. } => *value,
            ReferenceValue::Infinite { negative: true, .. } => f64::NEG_INFINITY,
            ReferenceValue::Infinite { .. } => f64::INFINITY,
            ReferenceValue::Undefined => f64::NAN,
            ReferenceValue::Undecided { .. } => panic!("undecided: {r:?}"),
        }
    }

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    /// Finite doubles of every magnitude, subnormals and zeros included.
    fn double() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<u64>().prop_map(f64::from_bits),
            (any::<u64>(), 0u64..3)
                .prop_map(|(m, e)| f64::from_bits((m & 0x800F_FFFF_FFFF_FFFF) | (e << 52))),
            prop::sample::select(vec![0.0, -0.0, 1.0, f64::MAX, -f64::MIN_POSITIVE]),
        ]
        .prop_filter("finite", |x| x.is_finite())
    }

    fn float() -> impl Strategy<Value = f64> {
        any::<u32>()
            .prop_map(|b| f64::from(f32::from_bits(b)))
            .prop_filter("finite", |x| x.is_finite())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn binary64_arithmetic(x in double(), y in double(), z in double()) {
            let r = Reference::parse("(+ x y)", &["x", "y"]).unwrap();
            let xy = [x, y];
            for (e, want) in [
                ("(+ x y)", x + y),
                ("(- x y)", x - y),
                ("(* x y)", x * y),
                ("(/ x y)", x / y),
                ("(sqrt x)", x.sqrt()),
            ] {
                let got = as_f64(&eval(e, &["x", "y"], &xy, B64));
                prop_assert!(same(got, want), "{e} at {x:e}, {y:e}: {got:e} vs {want:e}");
            }
            let got = as_f64(&eval("(fma x y z)", &["x", "y", "z"], &[x, y, z], B64));
            let want = x.mul_add(y, z);
            prop_assert!(same(got, want), "fma {x:e} {y:e} {z:e}: {got:e} vs {want:e}");
            prop_assert_eq!(r.params().len(), 2);
        }

        #[test]
        fn binary32_arithmetic(x in float(), y in float()) {
            let (a, b) = (x as f32, y as f32);
            for (e, want) in [
                ("(+ x y)", a + b),
                ("(- x y)", a - b),
                ("(* x y)", a * b),
                ("(/ x y)", a / b),
                ("(sqrt x)", a.sqrt()),
            ] {
                let got = as_f64(&eval(e, &["x", "y"], &[x, y], B32));
                prop_assert!(same(got, f64::from(want)), "{e} at {x:e}, {y:e}: {got:e} vs {want:e}");
            }
        }

        #[test]
        fn measure_of_the_rounded_value_is_at_most_half_an_ulp(x in double()) {
            let r = eval("(sin x)", &["x"], &[x], B64);
            let v = as_f64(&r);
            let m = measure(v, &r, B64).unwrap();
            prop_assert!(m.ulps <= 0.5, "{} ulps", m.ulps);
            if v.is_finite() && v != 0.0 {
                // The neighbour on the other side of the real value is the rest of the ulp.
                let ReferenceValue::Finite { exact, .. } = &r else { unreachable!() };
                let away = if big(v) < *exact { v.next_up() } else { v.next_down() };
                let n = measure(away, &r, B64).unwrap();
                prop_assert!(n.ulps >= 0.5, "{} ulps", n.ulps);
            }
            prop_assert_eq!(v, round64(&big(x).sin()));
        }
    }
}

mod no_panic {
    //! Random expressions in the reference's vocabulary: parsing and evaluating never panic.
    use super::*;
    use proptest::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    fn leaf() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "x",
            "y",
            "PI",
            "E",
            "NAN",
            "INFINITY",
            "0",
            "-0.0",
            "1",
            "1/3",
            "0x1p-1074",
            "1e308",
            "-2",
            "2.5",
            "TRUE",
            "(< x y)",
        ])
        .prop_map(str::to_string)
    }

    fn op() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "+",
            "-",
            "*",
            "/",
            "sqrt",
            "pow",
            "fma",
            "<",
            "==",
            "!=",
            "and",
            "not",
            "if",
            "cast",
            "log",
            "exp",
            "sin",
            "tan",
            "floor",
            "fmod",
            "remainder",
            "copysign",
            "fmax",
            "fdim",
            "jn",
            "yn",
            "lgamma",
            "tgamma",
            "beta",
            "isnan",
            "signbit",
            "log1p",
            "atan2",
            "round",
            "zeta",
            "ai",
            "gamma_inc",
            "j0",
            "y1",
            "eint",
            "li2",
            "digamma",
        ])
    }

    /// Mostly well-formed expressions (arities and types are often wrong too).
    fn sexp() -> impl Strategy<Value = String> {
        leaf().prop_recursive(4, 32, 3, |inner| {
            prop_oneof![
                (op(), prop::collection::vec(inner.clone(), 1..4))
                    .prop_map(|(o, v)| format!("({o} {})", v.join(" "))),
                (inner.clone(), inner).prop_map(|(a, b)| format!("(let ([t {a}]) (- t {b}))")),
            ]
        })
    }

    fn input() -> impl Strategy<Value = f64> {
        prop::sample::select(vec![
            0.0,
            -0.0,
            1.0,
            -1.5,
            1e-310,
            1e300,
            f64::INFINITY,
            f64::NAN,
            3.0,
        ])
    }

    static PARSED: AtomicUsize = AtomicUsize::new(0);

    #[test]
    fn many_random_expressions_parse_and_evaluate() {
        never_panics();
        let n = PARSED.load(Relaxed);
        // About one in five parses (arities and types are random); far fewer means a broken generator.
        assert!(n >= 20, "only {n} of 300 random expressions parsed");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        fn never_panics(e in sexp(), x in input(), y in input()) {
            if let Ok(r) = Reference::parse(&e, &["x", "y"]) {
                PARSED.fetch_add(1, Relaxed);
                for p in [B64, B32] {
                    let v = r.evaluate(&[x, y], p);
                    if let ReferenceValue::Finite { value, .. } = v {
                        let ulps = measure(value, &v, p).map(|m| m.ulps);
                        prop_assert!(ulps.is_some_and(|u| u <= 0.5), "{ulps:?}");
                    }
                }
            }
        }
    }
}
