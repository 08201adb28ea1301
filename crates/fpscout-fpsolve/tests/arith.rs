//! The exact-rational reference arithmetic agrees with the machine (f32/f64, IEEE and FTZ/DAZ), and formats encode values exactly.

mod common;

use common::all_values;
use fpscout_fpsolve::{Arith, BinaryOp, FloatValue, Format, Fp, Rounding};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// Random f32 bits biased toward subnormals, tiny normals and exact cancellations.
fn random_f32(rng: &mut impl Rng) -> f32 {
    match rng.gen_range(0..4) {
        0 => f32::from_bits(rng.gen()),
        1 => f32::from_bits(
            rng.gen_range(0..0x0100_0000u32) | if rng.gen() { 0x8000_0000 } else { 0 },
        ),
        2 => [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN_POSITIVE,
        ][rng.gen_range(0..8)],
        _ => rng.gen_range(-4.0f32..4.0),
    }
}

fn as_value_f32(x: f32) -> FloatValue {
    Format::F32.from_f64(f64::from(x))
}

fn same_f32(expected: f32, actual: FloatValue) -> bool {
    match actual {
        FloatValue::NaN => expected.is_nan(),
        FloatValue::Num(_) => Format::F32.to_bits(actual) as u32 == expected.to_bits(),
    }
}

#[cfg(target_arch = "x86_64")]
fn with_mxcsr<T>(mxcsr: u32, f: impl FnOnce() -> T) -> T {
    let mut saved: u32 = 0;
    // SAFETY: stmxcsr/ldmxcsr read and write this thread's SSE control register only; the
    // previous value is restored before returning.
    unsafe {
        std::arch::asm!("stmxcsr [{}]", in(reg) &mut saved);
        std::arch::asm!("ldmxcsr [{}]", in(reg) &mxcsr);
    }
    let result = f();
    unsafe {
        std::arch::asm!("ldmxcsr [{}]", in(reg) &saved);
    }
    result
}

#[cfg(target_arch = "x86_64")]
#[test]
fn f32_arithmetic_matches_sse_in_all_ftz_daz_modes() {
    const FTZ: u32 = 0x8000;
    const DAZ: u32 = 0x0040;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for (arith, bits) in [
        (Arith::IEEE, 0),
        (
            Arith {
                flush_to_zero: true,
                denormals_are_zero: false,
            },
            FTZ,
        ),
        (
            Arith {
                flush_to_zero: false,
                denormals_are_zero: true,
            },
            DAZ,
        ),
        (
            Arith {
                flush_to_zero: true,
                denormals_are_zero: true,
            },
            FTZ | DAZ,
        ),
    ] {
        let mxcsr = 0x1f80 | bits;
        for _ in 0..20_000 {
            let (x, y) = (random_f32(&mut rng), random_f32(&mut rng));
            let machine = with_mxcsr(mxcsr, || {
                let (x, y) = (black_box(x), black_box(y));
                [
                    black_box(x + y),
                    black_box(x - y),
                    black_box(x * y),
                    black_box(x / y),
                    black_box(x.sqrt()),
                ]
            });
            let (a, b) = (as_value_f32(x), as_value_f32(y));
            let ops = [
                BinaryOp::FAdd,
                BinaryOp::FSub,
                BinaryOp::FMul,
                BinaryOp::FDiv,
            ];
            for (op, expected) in ops.iter().zip(machine) {
                let ours = arith.binary_exact(*op, Format::F32, a, b);
                assert!(
                    same_f32(expected, ours),
                    "{op:?} {arith:?} {x:e} {y:e}: machine {expected:e}, ours {ours:?}"
                );
            }
            for op in ops {
                assert_eq!(
                    arith.binary(op, Format::F32, a, b),
                    arith.binary_exact(op, Format::F32, a, b),
                    "{op:?} {arith:?} {x:e} {y:e}"
                );
            }
            assert_eq!(
                arith.fsqrt(Format::F32, a),
                arith.fsqrt_exact(Format::F32, a)
            );
            assert!(
                same_f32(machine[4], arith.fsqrt_exact(Format::F32, a)),
                "sqrt {arith:?} {x:e}"
            );
            let machine_lt = with_mxcsr(mxcsr, || black_box(black_box(x) < black_box(y)));
            assert_eq!(
                machine_lt,
                arith.compare(fpscout_fpsolve::FcmpPredicate::Olt, Format::F32, a, b),
                "{x:e} < {y:e}"
            );
        }
    }
}

#[test]
fn f64_arithmetic_and_conversions_match_the_machine() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let f64_value = |x: f64| Format::F64.from_f64(x);
    let same = |expected: f64, actual: FloatValue| match actual {
        FloatValue::NaN => expected.is_nan(),
        FloatValue::Num(_) => Format::F64.to_bits(actual) == expected.to_bits(),
    };
    for _ in 0..20_000 {
        let (x, y) = match rng.gen_range(0..3) {
            0 => (f64::from_bits(rng.gen()), f64::from_bits(rng.gen())),
            1 => (
                f64::from(random_f32(&mut rng)),
                f64::from(random_f32(&mut rng)),
            ),
            _ => (
                f64::from_bits(rng.gen_range(0..1u64 << 53)),
                rng.gen_range(-2.0..2.0),
            ),
        };
        let (a, b) = (f64_value(x), f64_value(y));
        for (op, expected) in [
            (BinaryOp::FAdd, x + y),
            (BinaryOp::FSub, x - y),
            (BinaryOp::FMul, x * y),
            (BinaryOp::FDiv, x / y),
        ] {
            assert!(
                same(expected, Arith::IEEE.binary_exact(op, Format::F64, a, b)),
                "{op:?} {x:e} {y:e}"
            );
        }
        assert!(
            same(x.sqrt(), Arith::IEEE.fsqrt_exact(Format::F64, a)),
            "sqrt {x:e}"
        );
        // The machine path is the exact path, in every FTZ/DAZ mode.
        let (p, q) = (Format::F32.from_f64(x), Format::F32.from_f64(y));
        for mode in common::MODES {
            assert_eq!(mode.fsqrt(Format::F64, a), mode.fsqrt_exact(Format::F64, a));
            for op in [
                BinaryOp::FAdd,
                BinaryOp::FSub,
                BinaryOp::FMul,
                BinaryOp::FDiv,
            ] {
                assert_eq!(
                    mode.binary(op, Format::F64, a, b),
                    mode.binary_exact(op, Format::F64, a, b),
                    "{op:?} {mode:?} {x:e} {y:e}"
                );
                assert_eq!(
                    mode.binary(op, Format::F32, p, q),
                    mode.binary_exact(op, Format::F32, p, q),
                    "{op:?} {mode:?}"
                );
            }
        }
        assert!(
            same_f32(x as f32, Arith::IEEE.convert(Format::F64, Format::F32, a)),
            "fptrunc {x:e}"
        );
        // Conversions on the machine are the reference conversions, in every mode.
        for mode in common::MODES {
            assert_eq!(
                mode.convert_on_machine(Format::F64, Format::F32, a),
                mode.convert(Format::F64, Format::F32, a),
                "fptrunc {mode:?} {x:e}"
            );
            assert_eq!(
                mode.convert_on_machine(Format::F32, Format::F64, p),
                mode.convert(Format::F32, Format::F64, p),
                "fpext {mode:?} {x:e}"
            );
        }
        // The machine paths of from_f64/to_f64 round as the rational reference does.
        if x.is_finite() && x != 0.0 {
            let exact = rug::Rational::from_f64(x).unwrap();
            for format in [Format::F32, Format::F64] {
                let FloatValue::Num(rounded) = format.from_f64(x) else {
                    panic!("NaN from {x:e}");
                };
                assert_eq!(
                    rounded,
                    format.round(&exact, Rounding::NearestEven),
                    "{x:e}"
                );
                if format.is_finite(rounded) && !format.is_zero(rounded) {
                    let back = format.to_rational(rounded).unwrap().to_f64();
                    assert_eq!(format.to_f64(rounded).to_bits(), back.to_bits(), "{x:e}");
                }
            }
        }
        let narrow = random_f32(&mut rng);
        assert!(
            same(
                f64::from(narrow),
                Arith::IEEE.convert(Format::F32, Format::F64, as_value_f32(narrow))
            ),
            "fpext"
        );
        let integer: i64 = rng.gen::<i64>() >> rng.gen_range(0..64);
        assert!(
            same(
                integer as f64,
                Arith::IEEE.int_to_float(Format::F64, i128::from(integer))
            ),
            "sitofp {integer}"
        );
        assert!(
            same_f32(
                integer as f32,
                Arith::IEEE.int_to_float(Format::F32, i128::from(integer))
            ),
            "sitofp {integer}"
        );
        if x.is_finite() && x.abs() < 9.2e18 {
            assert_eq!(
                Arith::IEEE.float_to_int(Format::F64, a, 64, true),
                Some(i128::from(x as i64)),
                "fptosi {x:e}"
            );
        } else {
            assert_eq!(
                Arith::IEEE.float_to_int(Format::F64, a, 64, true),
                None,
                "fptosi {x:e}"
            );
        }
    }
}

#[test]
fn minifloat_encodings_are_exact_and_ordered() {
    for format in [Format::MINI8, Format::MINI10, Format::F32] {
        let sample: Vec<Fp> = if format == Format::F32 {
            (0..200_000i64)
                .map(|k| Fp(format.neg_inf().0 + k * 21_474))
                .filter(|&x| format.contains(x))
                .collect()
        } else {
            all_values(format)
                .into_iter()
                .filter_map(|v| {
                    if let FloatValue::Num(x) = v {
                        Some(x)
                    } else {
                        None
                    }
                })
                .collect()
        };
        let mut previous: Option<(Fp, f64)> = None;
        for x in sample {
            assert_eq!(
                format.from_bits(format.to_bits(FloatValue::Num(x))),
                FloatValue::Num(x)
            );
            if let Some(exact) = format.to_rational(x) {
                for rounding in [Rounding::NearestEven, Rounding::Down, Rounding::Up] {
                    let back = format.round(&exact, rounding);
                    assert_eq!(
                        format.value_cmp(back, x),
                        std::cmp::Ordering::Equal,
                        "{format:?} {x:?} {rounding:?}"
                    );
                }
            }
            let value = format.to_f64(x);
            if let Some((p, v)) = previous {
                assert!(
                    p < x && (v < value || (v == 0.0 && value == 0.0)),
                    "{format:?} order at {x:?}"
                );
            }
            previous = Some((x, value));
        }
    }
    // 8-bit: 4 exponent bits, 3 fraction bits: max 240, min subnormal 2^-9, min normal 2^-6.
    let m = Format::MINI8;
    assert_eq!(m.to_f64(m.max_finite()), 240.0);
    assert_eq!(m.to_f64(m.min_subnormal()), 2f64.powi(-9));
    assert_eq!(m.to_f64(m.min_normal()), 2f64.powi(-6));
    assert_eq!(m.count(m.neg_inf(), m.pos_inf()), 242);
    assert_eq!(m.from_bits(0x7f), FloatValue::NaN);
}

/// FTZ flushes by tininess *after* rounding: a result just below the smallest normal that
/// rounds (with unbounded exponent) up to it is kept.
#[test]
fn ftz_uses_tininess_after_rounding() {
    let m = Format::MINI8;
    let ftz = Arith {
        flush_to_zero: true,
        denormals_are_zero: false,
    };
    let v = |x: f64| m.from_f64(x);
    // 2^-6 · (1 - 2^-5): tiny before rounding, rounds to 2^-6 with 4-bit precision.
    let just_below = 2f64.powi(-6) * (1.0 - 2f64.powi(-5));
    let (a, b) = (v(just_below * 2.0), v(0.5));
    let exact_product_rounds_up = ftz.binary(BinaryOp::FMul, m, a, b);
    assert_eq!(
        exact_product_rounds_up,
        Arith::IEEE.binary(BinaryOp::FMul, m, a, b)
    );
    assert_eq!(
        ftz.binary(BinaryOp::FMul, m, v(2f64.powi(-6)), v(0.5)),
        v(0.0)
    );
    assert_eq!(
        ftz.binary(BinaryOp::FMul, m, v(-(2f64.powi(-6))), v(0.5)),
        v(-0.0)
    );
}
