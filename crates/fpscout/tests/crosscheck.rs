//! Interpreter-vs-native cross-check over the corpus in `tests/corpus/`.
//!
//! For every corpus function and both builds (P: `-O0` + mem2reg, P': `-O3 -ffast-math`),
//! thousands of seeded input vectors are evaluated by the concrete interpreter and by the
//! natively compiled function (one driver process per batch), and the two must agree bit
//! for bit: result, all five IEEE flags (inexact included), final array contents, and a
//! native crash exactly when the interpreter traps. The executables run traced, and the
//! interpreter's exception trace (kind and source line, in order) must agree with the
//! machine's own; the ways they may differ are named and counted
//! ([`fpscout_search::trace::TraceMatch`]): reordered or split by the backend, IR operations the
//! machine code does not perform. Any other difference fails.
//!
//! The main batch runs with the FTZ/DAZ setting the real executable has (P' links
//! `crtfastmath.o`, so FTZ and DAZ are on); a subset runs again with FTZ/DAZ off on both
//! sides. Inputs mix uniformly random bit patterns (NaNs, signalling NaNs, infinities,
//! subnormals), random magnitudes over the whole exponent range, values next to the
//! overflow/underflow thresholds and zero, the special values, and values inside each
//! benchmark's FPBench ranges. Disagreements are never filtered: any mismatch fails.
//!
//! Two things the LLVM IR leaves open are handled explicitly, not by tolerance:
//! - choice points: which of two different NaN operands a commutative `addsd`/`mulsd`
//!   returns depends on register allocation; the interpreter counts such points and the
//!   test replays every combination of answers, accepting the native outcome only if one
//!   of them reproduces it bit for bit;
//! - [`UNMODELLED_P_PRIME`]: P' builds whose machine code computes what the IR leaves
//!   undefined are not compared here, each with its evidence; an ignored test replays
//!   them and fails once one of them agrees. The MachineCombiner's reassociations are
//!   modelled (the test asserts that every one the corpus has is), so they are compared.

use fpscout_ir::{ExceptionSet, FloatTy, Function, ScalarTy, Type};
use fpscout_native::{FtzDaz, NativeArg, NativeBuild, NativeOutcome, NativeTrace, RunOptions};
use fpscout_report::args::{decimal, hex_float};
use fpscout_search::concrete::concrete_runner;
use fpscout_search::run::{agrees_with_some_choice, exception_records, outcomes_agree, to_native};
use fpscout_search::session::{FtzDazChoice, Session};
use fpscout_search::trace::{compare_traces, interpreter_steps, native_steps, TraceMatch};
use fpscout_toolchain::{BuildFlags, BuildKind};
use fpscout_walk::concrete::{ArgBits, ConcreteRunner, EvalEnd, Evaluation, FpMode};
use fpscout_walk::WalkConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Vectors per function and build with the executable's own FTZ/DAZ.
const VECTORS: usize = 10_000;
/// Of those, how many run again with FTZ/DAZ forced off on both sides.
const FTZ_OFF_VECTORS: usize = 2_500;
/// Disagreements printed in full per (function, build, mode).
const SHOWN: usize = 4;
/// Worker threads (each owns its sessions; native drivers run as child processes).
const WORKERS: usize = 2;

/// How one parameter's values are drawn.
#[derive(Clone, Copy, Debug)]
enum P {
    /// binary64 scalar; the range is the benchmark's (FPBench `:pre`) or a typical one.
    F64(f64, f64),
    /// binary32 scalar.
    F32(f32, f32),
    /// Integer of the given width, over its whole range with edge values.
    Int {
        width: u32,
        unsigned: bool,
    },
    /// `int` element count of the array parameters: from INT_MIN up to `max` (never more,
    /// so every access stays inside the buffers on both sides).
    Count(i32),
    /// Array of binary64 of fixed length, elements drawn in the given range or wild.
    ArrF64(usize, f64, f64),
    ArrF32(usize, f32, f32),
    /// Array of i64 of fixed length (an output buffer; its initial contents are random).
    ArrI64(usize),
}

struct Case {
    file: &'static str,
    func: &'static str,
    params: &'static [P],
}

const I32: P = P::Int {
    width: 32,
    unsigned: false,
};
const U32: P = P::Int {
    width: 32,
    unsigned: true,
};
const I64: P = P::Int {
    width: 64,
    unsigned: false,
};

const CORPUS: &[Case] = &[
    Case {
        file: "turbine1.c",
        func: "turbine1",
        params: &[P::F64(-4.5, -0.3), P::F64(0.4, 0.9), P::F64(3.8, 7.8)],
    },
    Case {
        file: "turbine3.c",
        func: "turbine3",
        params: &[P::F64(-4.5, -0.3), P::F64(0.4, 0.9), P::F64(3.8, 7.8)],
    },
    Case {
        file: "jetEngine.c",
        func: "jetEngine",
        params: &[P::F64(-5.0, 5.0), P::F64(-20.0, 5.0)],
    },
    Case {
        file: "carbonGas.c",
        func: "carbonGas",
        params: &[P::F64(0.1, 0.5)],
    },
    Case {
        file: "av1.c",
        func: "av1",
        params: &[P::F64(-1e308, 1e308), P::F64(-1e308, 1e308)],
    },
    Case {
        file: "av2.c",
        func: "av2",
        params: &[P::F64(-1e308, 1e308), P::F64(-1e308, 1e308)],
    },
    Case {
        file: "av3.c",
        func: "av3",
        params: &[P::F64(-1e308, 1e308), P::F64(-1e308, 1e308)],
    },
    Case {
        file: "av4.c",
        func: "av4",
        params: &[P::F64(-1e308, 1e308), P::F64(-1e308, 1e308)],
    },
    Case {
        file: "norm2.c",
        func: "norm2",
        params: &[P::ArrF64(17, -100.0, 100.0), P::Count(17)],
    },
    Case {
        file: "maxloop.c",
        func: "maxloop",
        params: &[P::ArrF32(19, -100.0, 100.0), P::Count(19)],
    },
    Case {
        file: "minselect.c",
        func: "minselect",
        params: &[
            P::ArrF64(8, -100.0, 100.0),
            P::ArrF64(8, -100.0, 100.0),
            P::ArrF64(8, -100.0, 100.0),
        ],
    },
    Case {
        file: "sum.c",
        func: "sum",
        params: &[P::ArrF64(17, -100.0, 100.0), P::Count(17)],
    },
    Case {
        file: "dot.c",
        func: "dot",
        params: &[
            P::ArrF64(9, -100.0, 100.0),
            P::ArrF64(9, -100.0, 100.0),
            P::Count(9),
        ],
    },
    Case {
        file: "mathfns.c",
        func: "mathfns",
        params: &[P::F64(0.0, 10.0), P::F64(0.0, 10.0)],
    },
    Case {
        file: "conversions.c",
        func: "conversions",
        params: &[
            P::ArrF64(9, -1.0, 1.0),
            P::ArrI64(6),
            P::F64(-1e10, 1e10),
            P::F32(-1e10, 1e10),
            I32,
            I64,
            U32,
        ],
    },
    Case {
        file: "branches.c",
        func: "branches",
        params: &[
            P::F64(-10.0, 10.0),
            P::F64(-10.0, 10.0),
            P::F64(-10.0, 10.0),
        ],
    },
    Case {
        file: "trip.c",
        func: "trip",
        params: &[P::F64(0.0, 100.0), P::F64(0.5, 20.0)],
    },
    Case {
        file: "heronf.c",
        func: "heronf",
        params: &[P::F32(5.0, 10.0), P::F32(0.0, 5.0), P::F32(0.0, 5.0)],
    },
    Case {
        file: "sumf.c",
        func: "sumf",
        params: &[
            P::ArrF32(17, -100.0, 100.0),
            P::ArrF32(17, -100.0, 100.0),
            P::Count(17),
        ],
    },
    Case {
        file: "odometer.c",
        func: "odometer",
        params: &[P::F32(0.52, 0.53)],
    },
    Case {
        file: "classify.c",
        func: "classify",
        params: &[P::F32(-10.0, 10.0), P::F32(-10.0, 0.0), P::F32(0.0, 10.0)],
    },
    Case {
        file: "fpclass.c",
        func: "fpclass",
        params: &[P::F64(-1e200, 1e200), P::F32(-1e-30, 1e-30)],
    },
    Case {
        file: "rounding.c",
        func: "rounding",
        params: &[P::F64(-1e3, 1e3), P::F64(-1e3, 1e3)],
    },
    Case {
        file: "calls.c",
        func: "calls",
        params: &[P::F64(-1e3, 1e3), P::F64(-1e3, 1e3)],
    },
    Case {
        file: "external.c",
        func: "external",
        params: &[P::F64(-1e3, 1e3), P::F64(-200.0, 200.0)],
    },
    Case {
        file: "table.c",
        func: "table",
        params: &[P::F64(-3.2, 3.2)],
    },
    Case {
        file: "cheb.c",
        func: "cheb",
        params: &[P::F64(-1.0, 2.0)],
    },
    Case {
        file: "horner.c",
        func: "horner",
        params: &[P::F64(-2.0, 2.0)],
    },
    Case {
        file: "first_below.c",
        func: "first_below",
        params: &[
            P::ArrF64(9, -100.0, 100.0),
            P::F64(-100.0, 0.0),
            P::F64(0.0, 100.0),
            P::Count(9),
        ],
    },
    Case {
        file: "lazy.c",
        func: "lazy",
        params: &[
            P::F64(-10.0, 10.0),
            P::F64(-10.0, 10.0),
            P::F64(-10.0, 10.0),
            I32,
        ],
    },
    Case {
        file: "floatmath.c",
        func: "floatmath",
        params: &[P::F32(0.0, 100.0), P::F32(-10.0, 10.0)],
    },
    Case {
        file: "roots.c",
        func: "roots",
        params: &[P::F64(0.0, 100.0)],
    },
    Case {
        file: "polar.c",
        func: "polar",
        params: &[P::F64(0.0, 100.0), P::F64(-10.0, 10.0)],
    },
    Case {
        file: "ipow.c",
        func: "ipow",
        params: &[P::F64(-2.0, 2.0), I32],
    },
    Case {
        file: "intmix.c",
        func: "intmix",
        params: &[I32, U32, I64, P::F64(-1e6, 1e6)],
    },
    Case {
        file: "words.c",
        func: "words",
        params: &[P::F64(-1e3, 1e3), P::F64(-1e3, 1e3)],
    },
    Case {
        file: "outptr.c",
        func: "outptr",
        params: &[
            P::F64(-10.0, 10.0),
            P::F64(-5.0, 5.0),
            P::F32(-10.0, 10.0),
            P::ArrF64(16, -1.0, 1.0),
        ],
    },
];

/// Functions whose P' build is not cross-checked by the main test, because its machine
/// code computes lanes or operand orders the IR leaves undefined. Their P builds are
/// checked like every other function; `backend_rewrites_of_unmodelled_p_prime_builds`
/// (ignored by default) replays their P' builds and prints the disagreements.
/// The runs whose evaluations native kernels answered (functions without calls, memory,
/// libm, traps or unsigned 64-bit conversions; see fpscout-llvm `kernel.rs`).
const KERNEL_RUNS: &[&str] = &[
    "av1 [P']",
    "av1 [P]",
    "av2 [P']",
    "av2 [P]",
    "av3 [P']",
    "av3 [P]",
    "av4 [P']",
    "av4 [P]",
    "branches [P']",
    "branches [P]",
    "carbonGas [P']",
    "carbonGas [P]",
    "classify [P']",
    "classify [P]",
    "fpclass [P']",
    "fpclass [P]",
    "heronf [P']",
    "horner [P']",
    "horner [P]",
    "ipow [P']",
    "ipow [P]",
    "jetEngine [P']",
    "jetEngine [P]",
    "lazy [P']",
    "lazy [P]",
    "odometer [P]",
    "trip [P']",
    "trip [P]",
    "turbine1 [P']",
    "turbine1 [P]",
    "turbine3 [P']",
    "turbine3 [P]",
];

const UNMODELLED_P_PRIME: &[(&str, &str)] = &[(
    "odometer",
    "its <2 x float> arithmetic runs as 4-lane MULPS/ADDPS whose two extra lanes hold \
         undefined values (constant-pool padding, register leftovers): inf * 0 there raises \
         INVALID for sl = inf. Its MachineCombiner reassociations are modelled",
)];

fn unmodelled_reason(func: &str) -> Option<&'static str> {
    UNMODELLED_P_PRIME
        .iter()
        .find(|(f, _)| *f == func)
        .map(|(_, why)| *why)
}

// ---------------------------------------------------------------------------------------
// Input generation

/// Bits of a binary64 value of a random category.
fn gen_f64(rng: &mut ChaCha8Rng, lo: f64, hi: f64, in_range: bool) -> u64 {
    if in_range {
        return in_range_f64(rng, lo, hi);
    }
    let sign = if rng.gen::<bool>() { 1u64 << 63 } else { 0 };
    match rng.gen_range(0..100) {
        // Uniformly random bit patterns: NaNs (quiet and signalling), infinities and
        // subnormals appear with their natural frequencies.
        0..=24 => rng.gen::<u64>(),
        // Random magnitude over the whole exponent range (subnormals included).
        25..=49 => sign | (rng.gen_range(0u64..=0x7fe) << 52) | (rng.gen::<u64>() >> 12),
        // Next to the thresholds: DBL_MAX, DBL_MIN, the largest subnormal, FLT_MAX,
        // FLT_MIN, 1, and zero, a few ulps either way.
        50..=69 => {
            let anchors = [
                f64::MAX.to_bits(),
                f64::MIN_POSITIVE.to_bits(),
                f64::MIN_POSITIVE.to_bits() - 1,
                (f32::MAX as f64).to_bits(),
                (f32::MIN_POSITIVE as f64).to_bits(),
                1.0f64.to_bits(),
                0,
            ];
            let a = anchors[rng.gen_range(0..anchors.len())];
            let d = rng.gen_range(-4i64..=4);
            let b = (a as i64).saturating_add(d).clamp(0, 0x7ff0_0000_0000_0000) as u64;
            sign | b
        }
        // The special values.
        70..=84 => {
            let specials = [
                0u64,
                0x7ff0_0000_0000_0000, // inf
                0x7ff8_0000_0000_0000, // quiet NaN
                0x7ff4_0000_0000_0000, // signalling NaN
                0x7ff0_0000_0000_0001, // signalling NaN, smallest payload
                0x7fff_ffff_ffff_ffff, // quiet NaN, all payload bits
                1,                     // smallest subnormal
                0x000f_ffff_ffff_ffff, // largest subnormal
            ];
            sign | specials[rng.gen_range(0..specials.len())]
        }
        // Moderate values of either sign and random exponent near 1.
        _ => {
            let e = rng.gen_range(-60i32..=60);
            let v = rng.gen_range(1.0f64..2.0) * 2f64.powi(e);
            sign | v.to_bits()
        }
    }
}

fn in_range_f64(rng: &mut ChaCha8Rng, lo: f64, hi: f64) -> u64 {
    match rng.gen_range(0..20) {
        0 => lo.to_bits(),
        1 => hi.to_bits(),
        2 => {
            // Just outside or inside an endpoint, by a few ulps.
            let e = if rng.gen::<bool>() { lo } else { hi };
            let d = rng.gen_range(-3i64..=3);
            (e.to_bits() as i64 + d) as u64
        }
        _ => {
            let v = lo + (hi - lo) * rng.gen::<f64>();
            if v.is_finite() {
                v.to_bits()
            } else {
                // Very wide ranges (±1e308): hi - lo overflows, pick a side instead.
                (if rng.gen::<bool>() { lo } else { hi } * rng.gen::<f64>()).to_bits()
            }
        }
    }
}

/// Bits of a binary32 value of a random category (in the low 32 bits).
fn gen_f32(rng: &mut ChaCha8Rng, lo: f32, hi: f32, in_range: bool) -> u64 {
    if in_range {
        let b = match rng.gen_range(0..20) {
            0 => lo.to_bits(),
            1 => hi.to_bits(),
            2 => {
                let e = if rng.gen::<bool>() { lo } else { hi };
                let d = rng.gen_range(-3i32..=3);
                (e.to_bits() as i32).wrapping_add(d) as u32
            }
            _ => (lo + (hi - lo) * rng.gen::<f32>()).to_bits(),
        };
        return u64::from(b);
    }
    let sign = if rng.gen::<bool>() { 1u32 << 31 } else { 0 };
    let b = match rng.gen_range(0..100) {
        0..=24 => rng.gen::<u32>(),
        25..=49 => sign | (rng.gen_range(0u32..=0xfe) << 23) | (rng.gen::<u32>() >> 9),
        50..=69 => {
            let anchors = [
                f32::MAX.to_bits(),
                f32::MIN_POSITIVE.to_bits(),
                f32::MIN_POSITIVE.to_bits() - 1,
                1.0f32.to_bits(),
                0,
            ];
            let a = anchors[rng.gen_range(0..anchors.len())];
            let d = rng.gen_range(-4i32..=4);
            sign | (a as i32).saturating_add(d).clamp(0, 0x7f80_0000) as u32
        }
        70..=84 => {
            let specials = [
                0u32,
                0x7f80_0000, // inf
                0x7fc0_0000, // quiet NaN
                0x7fa0_0000, // signalling NaN
                0x7f80_0001, // signalling NaN, smallest payload
                0x7fff_ffff, // quiet NaN, all payload bits
                1,           // smallest subnormal
                0x007f_ffff, // largest subnormal
            ];
            sign | specials[rng.gen_range(0..specials.len())]
        }
        _ => {
            let e = rng.gen_range(-30i32..=30);
            sign | (rng.gen_range(1.0f32..2.0) * 2f32.powi(e)).to_bits()
        }
    };
    u64::from(b)
}

fn gen_int(rng: &mut ChaCha8Rng, width: u32, unsigned: bool) -> u64 {
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let min_signed = 1u64 << (width - 1);
    let edges = [
        0,
        1,
        mask, // -1 / UINT_MAX
        2,
        min_signed,     // INT_MIN / 2^(w-1)
        min_signed - 1, // INT_MAX
        min_signed + 1, // INT_MIN + 1
        mask - 1,       // -2
        7,
        mask - 6, // -7
        1u64 << 31,
        (1u64 << 31) - 1,
        1u64 << 53,
        (1u64 << 53) + 1,
        1u64 << 63,
    ];
    let v = match rng.gen_range(0..10) {
        0..=2 => edges[rng.gen_range(0..edges.len())],
        3..=5 => rng.gen::<u64>(),
        6..=7 => rng.gen_range(-100i64..=100) as u64,
        _ => {
            // A random magnitude: uniformly many bits.
            let bits = rng.gen_range(0..width);
            let v = rng.gen::<u64>() >> (63 - bits);
            if !unsigned && rng.gen::<bool>() {
                v.wrapping_neg()
            } else {
                v
            }
        }
    };
    v & mask
}

fn gen_count(rng: &mut ChaCha8Rng, max: i32) -> u64 {
    let v: i32 = match rng.gen_range(0..20) {
        0 => i32::MIN,
        1 => -1,
        2 => 0,
        3 => rng.gen_range(-1000..0),
        4..=9 => max,
        _ => rng.gen_range(1..=max),
    };
    u64::from(v as u32)
}

/// One input vector for `params`. Half the vectors keep every parameter in its range
/// (the benchmark's realistic use), the others mix categories per parameter and per
/// array element.
fn gen_vector(rng: &mut ChaCha8Rng, params: &[P]) -> Vec<ArgBits> {
    let all_in_range = rng.gen::<bool>();
    let pick = |rng: &mut ChaCha8Rng| all_in_range || rng.gen_range(0..3) == 0;
    params
        .iter()
        .map(|p| match *p {
            P::F64(lo, hi) => {
                let r = pick(rng);
                ArgBits::Scalar(gen_f64(rng, lo, hi, r))
            }
            P::F32(lo, hi) => {
                let r = pick(rng);
                ArgBits::Scalar(gen_f32(rng, lo, hi, r))
            }
            P::Int { width, unsigned } => ArgBits::Scalar(gen_int(rng, width, unsigned)),
            P::Count(max) => ArgBits::Scalar(gen_count(rng, max)),
            P::ArrF64(len, lo, hi) => {
                // Wild arrays have mostly tame elements, so one special value at a time
                // meets ordinary neighbours in the reduction.
                let wild_share = if all_in_range {
                    0
                } else {
                    rng.gen_range(1..=4)
                };
                ArgBits::Array(
                    (0..len)
                        .map(|_| {
                            let r = rng.gen_range(0..4) >= wild_share;
                            gen_f64(rng, lo, hi, r)
                        })
                        .collect(),
                )
            }
            P::ArrI64(len) => ArgBits::Array((0..len).map(|_| gen_int(rng, 64, false)).collect()),
            P::ArrF32(len, lo, hi) => {
                let wild_share = if all_in_range {
                    0
                } else {
                    rng.gen_range(1..=4)
                };
                ArgBits::Array(
                    (0..len)
                        .map(|_| {
                            let r = rng.gen_range(0..4) >= wild_share;
                            gen_f32(rng, lo, hi, r)
                        })
                        .collect(),
                )
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Reporting

fn float_text(bits: u64, ty: FloatTy) -> String {
    format!("{} ({})", hex_float(bits, ty), decimal(bits, ty))
}

fn value_text(bits: u64, ty: Type) -> String {
    match ty {
        Type::Scalar(ScalarTy::Float(f)) => float_text(bits, f),
        Type::Scalar(ScalarTy::Int(w)) => {
            format!("{:#x} ({})", bits, fpscout_ir::sign_extend(bits, w))
        }
        _ => format!("{bits:#x}"),
    }
}

fn elem_text(bits: u64, elem: Option<ScalarTy>) -> String {
    match elem {
        Some(ScalarTy::Float(f)) => hex_float(bits, f),
        _ => format!("{bits:#x}"),
    }
}

fn inputs_text(f: &Function, args: &[ArgBits]) -> String {
    let mut out = String::new();
    for (p, a) in f.params.iter().zip(args) {
        let v = match a {
            ArgBits::Scalar(b) => value_text(*b, p.ty),
            ArgBits::Array(v) => format!(
                "[{}]",
                v.iter()
                    .map(|&b| elem_text(b, p.pointee))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        out.push_str(&format!("\n      {} = {}", p.name, v));
    }
    out
}

fn arrays_text(f: &Function, arrays: &[Vec<u64>]) -> String {
    let elems: Vec<Option<ScalarTy>> = f
        .params
        .iter()
        .filter(|p| p.ty == Type::PTR)
        .map(|p| p.pointee)
        .collect();
    arrays
        .iter()
        .enumerate()
        .map(|(i, a)| {
            format!(
                "[{}]",
                a.iter()
                    .map(|&b| elem_text(b, elems.get(i).copied().flatten()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn flags_text(s: ExceptionSet) -> String {
    format!("{{{}}}", s.names().join(","))
}

/// A readable account of one disagreement, with the interpreter's per-op exception
/// events (inexact included) so the offending operation can be found in the IR.
#[allow(clippy::too_many_arguments)]
fn describe(
    session: &Session,
    build: BuildKind,
    fid: fpscout_ir::FuncId,
    mode: FpMode,
    index: usize,
    args: &[ArgBits],
    eval: &Evaluation,
    native: &NativeOutcome,
) -> String {
    let module = session
        .module(build)
        .expect("the session compiled both builds");
    let f = module.function(fid);
    let mut s = format!(
        "  vector #{index}, FTZ={} DAZ={}, inputs:{}",
        mode.ftz,
        mode.daz,
        inputs_text(f, args)
    );
    match &eval.end {
        EvalEnd::Returned(r) => {
            s.push_str(&format!(
                "\n    interpreter: returned {} flags {}",
                r.map_or("(void)".into(), |b| value_text(b, f.ret)),
                flags_text(eval.flags)
            ));
            if !eval.arrays.is_empty() {
                s.push_str(&format!("\n      arrays {}", arrays_text(f, &eval.arrays)));
            }
        }
        EvalEnd::Trapped(t) => s.push_str(&format!("\n    interpreter: trapped: {t}")),
        EvalEnd::Stopped(r) => s.push_str(&format!("\n    interpreter: stopped: {r}")),
        EvalEnd::Ended { end, .. } => s.push_str(&format!(
            "\n    interpreter: {end} flags {}",
            flags_text(eval.flags)
        )),
    }
    match native {
        NativeOutcome::Returned {
            result,
            flags,
            arrays,
        } => {
            s.push_str(&format!(
                "\n    native:      returned {} flags {}",
                result.map_or("(void)".into(), |b| value_text(b, f.ret)),
                flags_text(*flags)
            ));
            if !arrays.is_empty() {
                s.push_str(&format!("\n      arrays {}", arrays_text(f, arrays)));
            }
        }
        NativeOutcome::Crashed { signal, detail } => s.push_str(&format!(
            "\n    native:      crashed ({signal:?}): {detail}"
        )),
        NativeOutcome::TimedOut => s.push_str("\n    native:      timed out"),
        NativeOutcome::Ended { end, flags, .. } => s.push_str(&format!(
            "\n    native:      {end} flags {}",
            flags_text(*flags)
        )),
    }
    // Re-run with every event recorded to name the operations that raised flags.
    if let Ok(mut r) = ConcreteRunner::new(module, fid, mode, WalkConfig::default()) {
        r.record_inexact(true);
        if let Ok(e) = r.eval(args) {
            let recs = exception_records(module, &e);
            if !recs.is_empty() {
                s.push_str("\n    interpreter events:");
                for rec in recs.iter().take(24) {
                    s.push_str(&format!(
                        "\n      {} at op #{} {} lane {} in {} ({})",
                        rec.kind,
                        rec.op,
                        rec.opcode,
                        rec.lane,
                        rec.function,
                        rec.loc.as_deref().unwrap_or("?")
                    ));
                }
                if recs.len() > 24 {
                    s.push_str(&format!("\n      ... {} more", recs.len() - 24));
                }
            }
        }
    }
    s
}

/// Whether a disagreement is only in which NaN came out (payload or sign): same flags,
/// and every differing result or array element is a NaN on both sides.
fn differs_only_in_nan_bits(f: &Function, e: &Evaluation, o: &NativeOutcome) -> bool {
    let (
        EvalEnd::Returned(r),
        NativeOutcome::Returned {
            result,
            flags,
            arrays,
        },
    ) = (&e.end, o)
    else {
        return false;
    };
    let is_nan = |bits: u64, ty: Option<ScalarTy>| match ty {
        Some(ScalarTy::Float(FloatTy::F64)) => f64::from_bits(bits).is_nan(),
        Some(ScalarTy::Float(FloatTy::F32)) => f32::from_bits(bits as u32).is_nan(),
        _ => false,
    };
    let same = |a: u64, b: u64, ty: Option<ScalarTy>| a == b || (is_nan(a, ty) && is_nan(b, ty));
    let ret_ty = f.ret.lanes().map(|l| l.0);
    let elems: Vec<Option<ScalarTy>> = f
        .params
        .iter()
        .filter(|p| p.ty == Type::PTR)
        .map(|p| p.pointee)
        .collect();
    e.flags == *flags
        && match (r, result) {
            (Some(a), Some(b)) => same(*a, *b, ret_ty),
            (a, b) => a == b,
        }
        && e.arrays.len() == arrays.len()
        && e.arrays.iter().zip(arrays).enumerate().all(|(i, (x, y))| {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(&a, &b)| same(a, b, elems.get(i).copied().flatten()))
        })
}

// ---------------------------------------------------------------------------------------
// The check

struct Report {
    /// One line per (function, build, mode) run.
    summary: Vec<String>,
    /// Full failure text.
    failures: Vec<String>,
    /// `function [build]` of every run in which the native kernel answered evaluations.
    kernel_runs: Vec<String>,
    /// The same for its counting variant (inexact counted by the kernel, not read).
    counted_runs: Vec<String>,
    /// Vectors compared, and of those the ones whose outcome or trace disagree.
    vectors: usize,
    trace_disagreements: usize,
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

fn mode_of_mxcsr(csr: u32) -> FpMode {
    FpMode {
        ftz: csr & 0x8000 != 0,
        daz: csr & 0x0040 != 0,
    }
}

/// Evaluates `vectors` on one build in one mode and compares with one native batch.
#[allow(clippy::too_many_arguments)]
fn check_batch(
    session: &Session,
    case: &Case,
    build: BuildKind,
    fid: fpscout_ir::FuncId,
    native: &NativeBuild,
    vectors: &[Vec<ArgBits>],
    mode: FpMode,
    ftz_daz: FtzDaz,
    report: &mut Report,
) {
    let module = session
        .module(build)
        .expect("the session compiled both builds");
    let f = module.function(fid);
    let label = format!(
        "{} [{}] {} FTZ/DAZ {}",
        case.func,
        build,
        match ftz_daz {
            FtzDaz::AsLinked => "as linked,",
            FtzDaz::On => "forced",
            FtzDaz::Off => "forced",
        },
        if mode.ftz || mode.daz { "on" } else { "off" }
    );
    let start = Instant::now();
    // The runner fpscout uses: native kernels answer where they can, so they are checked.
    let mut runner = match concrete_runner(module, fid, mode, WalkConfig::default()) {
        Ok(r) => r,
        Err(e) => {
            report
                .failures
                .push(format!("{label}: interpreter cannot start: {e}"));
            return;
        }
    };
    let mut evals = Vec::with_capacity(vectors.len());
    for (i, args) in vectors.iter().enumerate() {
        match runner.eval(args) {
            Ok(e) => evals.push(e),
            Err(e) => {
                report.failures.push(format!(
                    "{label}: interpreter error on vector #{i}: {e}; inputs:{}",
                    inputs_text(f, args)
                ));
                return;
            }
        }
    }
    let interp_time = start.elapsed();
    let kernel_answered = runner.native_kernel_runs();
    if kernel_answered > 0 {
        report.kernel_runs.push(format!("{} [{build}]", case.func));
    }
    if runner.native_kernel_counted_runs() > 0 {
        report.counted_runs.push(format!("{} [{build}]", case.func));
    }
    let start = Instant::now();
    let natives: Vec<Vec<NativeArg>> = vectors.iter().map(|a| to_native(f, a)).collect();
    let opts = RunOptions {
        ftz_daz,
        ..RunOptions::default()
    };
    // Traced: the executable's own exception trace is compared too.
    let (outcomes, traces): (Vec<NativeOutcome>, Vec<NativeTrace>) =
        match native.run_traced(&natives, &opts) {
            Ok(o) => o.into_iter().map(|t| (t.outcome, t.trace)).unzip(),
            Err(e) => {
                report
                    .failures
                    .push(format!("{label}: native run failed: {e}"));
                return;
            }
        };
    let native_time = start.elapsed();
    let mut bad = Vec::new();
    let mut nan_only = 0;
    let (mut traps, mut invalid, mut overflow, mut underflow, mut divzero) = (0, 0, 0, 0, 0);
    let mut chosen = 0;
    let (mut traced, mut reordered, mut fewer, mut truncated) = (0, 0, 0, 0);
    let mut bad_traces = Vec::new();
    for (i, (e, o)) in evals.iter().zip(&outcomes).enumerate() {
        if !outcomes_agree(e, o) {
            if e.choice_points > 0 && agrees_with_some_choice(&mut runner, &vectors[i], e, o) {
                // The native code took another of the outcomes the IR allows.
                chosen += 1;
                continue;
            }
            bad.push(i);
            nan_only += usize::from(differs_only_in_nan_bits(f, e, o));
            continue;
        }
        if matches!(o, NativeOutcome::Returned { .. }) {
            // Which operations raised what, in order: kind and source line.
            let t = &traces[i];
            traced += usize::from(!t.events.is_empty());
            match compare_traces(&interpreter_steps(module, e), &native_steps(t), t.truncated) {
                TraceMatch::Same => {}
                TraceMatch::Reordered => reordered += 1,
                TraceMatch::FewerInMachine => fewer += 1,
                TraceMatch::TruncatedPrefix => truncated += 1,
                TraceMatch::Different => bad_traces.push(i),
            }
        }
        if matches!(e.end, EvalEnd::Trapped(_)) {
            traps += 1;
        }
        use fpscout_ir::ExceptionKind::*;
        invalid += usize::from(e.flags.contains(Invalid));
        overflow += usize::from(e.flags.contains(Overflow));
        underflow += usize::from(e.flags.contains(Underflow));
        divzero += usize::from(e.flags.contains(DivByZero));
    }
    report.summary.push(format!(
        "{label}: {} vectors, {} disagree ({nan_only} only in NaN bits), \
         {chosen} agree on another choice (interpreter {:.2}s, {kernel_answered} by its \
         kernel, native {:.2}s; invalid {invalid}, divbyzero {divzero}, overflow {overflow}, \
         underflow {underflow}, traps {traps}); traces: {traced} with events, {} differ, \
         {reordered} reordered or split by the backend, {fewer} with IR operations the \
         machine code does not perform, {truncated} truncated",
        vectors.len(),
        bad.len(),
        interp_time.as_secs_f64(),
        native_time.as_secs_f64(),
        bad_traces.len(),
    ));
    report.vectors += vectors.len();
    report.trace_disagreements += bad_traces.len() + bad.len();
    if !bad_traces.is_empty() {
        let mut text = format!(
            "{label}: {} of {} vectors agree in outcome but not in exception trace; first {}:",
            bad_traces.len(),
            vectors.len(),
            bad_traces.len().min(SHOWN)
        );
        for &i in bad_traces.iter().take(SHOWN) {
            text.push('\n');
            text.push_str(&describe(
                session,
                build,
                fid,
                mode,
                i,
                &vectors[i],
                &evals[i],
                &outcomes[i],
            ));
            text.push_str("\n    native trace:");
            for r in fpscout_search::run::native_trace_records(&traces[i]) {
                text.push_str(&format!(
                    "\n      {} {} ({})",
                    r.kind,
                    r.insn,
                    r.loc.as_deref().unwrap_or("?")
                ));
            }
        }
        report.failures.push(text);
    }
    if !bad.is_empty() {
        let mut text = format!(
            "{label}: {} of {} vectors disagree ({nan_only} only in NaN bits); first {}:",
            bad.len(),
            vectors.len(),
            bad.len().min(SHOWN)
        );
        // Disagreements in values or flags first: they are the informative ones.
        let mut shown: Vec<usize> = bad
            .iter()
            .copied()
            .filter(|&i| !differs_only_in_nan_bits(f, &evals[i], &outcomes[i]))
            .take(SHOWN)
            .collect();
        let nan_only_shown: Vec<usize> = bad
            .iter()
            .copied()
            .filter(|i| !shown.contains(i))
            .take(SHOWN - shown.len())
            .collect();
        shown.extend(nan_only_shown);
        shown.sort_unstable();
        for &i in &shown {
            text.push('\n');
            text.push_str(&describe(
                session,
                build,
                fid,
                mode,
                i,
                &vectors[i],
                &evals[i],
                &outcomes[i],
            ));
        }
        report.failures.push(text);
    }
}

fn check_case(index: usize, case: &Case, builds: &[BuildKind], report: &mut Report) {
    let path = corpus_dir().join(case.file);
    let session = match Session::open(&path, BuildFlags::default()) {
        Ok(s) => s,
        Err(e) => {
            report.failures.push(format!(
                "{}: cannot open {}: {e}",
                case.func,
                path.display()
            ));
            return;
        }
    };
    // The same vectors for both builds.
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0000 + index as u64);
    let vectors: Vec<Vec<ArgBits>> = (0..VECTORS)
        .map(|_| gen_vector(&mut rng, case.params))
        .collect();
    let lens: Vec<Option<usize>> = case
        .params
        .iter()
        .map(|p| match *p {
            P::ArrF64(n, ..) | P::ArrF32(n, ..) | P::ArrI64(n) => Some(n),
            _ => None,
        })
        .collect();
    for &build in builds {
        let fid = match session.function(build, case.func) {
            Ok(f) => f,
            Err(e) => {
                report
                    .failures
                    .push(format!("{} [{build}]: {e}", case.func));
                continue;
            }
        };
        let f = session.module(build).expect("both builds").function(fid);
        if f.params.len() != case.params.len() {
            report.failures.push(format!(
                "{} [{build}]: the corpus table lists {} parameters, the function has {}",
                case.func,
                case.params.len(),
                f.params.len()
            ));
            continue;
        }
        let native = match session.native(build, fid, &lens) {
            Ok(n) => n,
            Err(e) => {
                report
                    .failures
                    .push(format!("{} [{build}]: native build failed: {e}", case.func));
                continue;
            }
        };
        // What `--ftz-daz auto` assumes must be what the linked executable really does.
        let mode = session.fp_mode(build, FtzDazChoice::Auto);
        match native.startup_mxcsr(FtzDaz::AsLinked) {
            Ok(csr) if mode_of_mxcsr(csr) == mode => {}
            Ok(csr) => report.failures.push(format!(
                "{} [{build}]: fp_mode(Auto) says {mode:?} but the executable starts with \
                 MXCSR {csr:#x}",
                case.func
            )),
            Err(e) => report.failures.push(format!(
                "{} [{build}]: cannot read start-up MXCSR: {e}",
                case.func
            )),
        }
        check_batch(
            &session,
            case,
            build,
            fid,
            &native,
            &vectors,
            mode,
            FtzDaz::AsLinked,
            report,
        );
        check_batch(
            &session,
            case,
            build,
            fid,
            &native,
            &vectors[..FTZ_OFF_VECTORS],
            FpMode::IEEE,
            FtzDaz::Off,
            report,
        );
    }
}

/// Runs `check_case` over `cases` on [`WORKERS`] threads; prints the summaries and returns
/// the failure texts and the (sorted, deduplicated) runs native kernels answered in, and
/// those their counting variants answered in.
fn run_cases(cases: &[(usize, Vec<BuildKind>)]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let reports = Mutex::new(Vec::<(usize, Report)>::new());
    std::thread::scope(|s| {
        for _ in 0..WORKERS {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                let Some((i, builds)) = cases.get(k) else {
                    break;
                };
                let case = &CORPUS[*i];
                let t = Instant::now();
                let mut report = Report {
                    summary: Vec::new(),
                    failures: Vec::new(),
                    kernel_runs: Vec::new(),
                    counted_runs: Vec::new(),
                    vectors: 0,
                    trace_disagreements: 0,
                };
                check_case(*i, case, builds, &mut report);
                report.summary.push(format!(
                    "{}: {:.1}s in all",
                    case.func,
                    t.elapsed().as_secs_f64()
                ));
                reports.lock().unwrap().push((*i, report));
            });
        }
    });
    let mut reports = reports.into_inner().unwrap();
    reports.sort_by_key(|(i, _)| *i);
    let mut failures = Vec::new();
    let mut kernel_runs = Vec::new();
    let mut counted_runs = Vec::new();
    let vectors: usize = reports.iter().map(|(_, r)| r.vectors).sum();
    let disagreeing: usize = reports.iter().map(|(_, r)| r.trace_disagreements).sum();
    for (_, r) in &reports {
        for line in &r.summary {
            println!("{line}");
        }
        failures.extend(r.failures.iter().cloned());
        kernel_runs.extend(r.kernel_runs.iter().cloned());
        counted_runs.extend(r.counted_runs.iter().cloned());
    }
    for runs in [&mut kernel_runs, &mut counted_runs] {
        runs.sort();
        runs.dedup();
    }
    println!(
        "cross-check of {} functions took {:.1}s; outcome and trace agree on {} of {} \
         vectors ({:.3}%)",
        cases.len(),
        started.elapsed().as_secs_f64(),
        vectors - disagreeing,
        vectors,
        100.0 * (vectors - disagreeing) as f64 / vectors.max(1) as f64
    );
    (failures, kernel_runs, counted_runs)
}

#[test]
fn interpreter_matches_native_on_corpus() {
    // Every .c file of the corpus is in the table, and every table entry has its file.
    let mut files: Vec<String> = std::fs::read_dir(corpus_dir())
        .expect("tests/corpus exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".c"))
        .collect();
    files.sort();
    let mut listed: Vec<String> = CORPUS.iter().map(|c| c.file.to_string()).collect();
    listed.sort();
    assert_eq!(
        files, listed,
        "tests/corpus/*.c and the CORPUS table differ"
    );
    // Every P' build the backend rewrites after instruction selection (MachineCombiner
    // reassociations: cheb, heronf, odometer, turbine1, turbine3; commutable min/max: branches,
    // heronf, maxloop, minselect, rounding) is lowered as rewritten: none is left with the "values may
    // differ" note, so none needs excluding for it.
    let mut rewritten = Vec::new();
    for c in CORPUS {
        let session = Session::open(&corpus_dir().join(c.file), BuildFlags::default())
            .expect("corpus compiles");
        for r in &session.p_prime().expect("P' is compiled").backend_rewrites {
            assert_eq!(r.unmodelled, None, "{}: {}", c.file, r.function);
            rewritten.push(r.function.clone());
        }
    }
    rewritten.sort();
    assert_eq!(
        rewritten,
        [
            "branches",
            "cheb",
            "heronf",
            "maxloop",
            "minselect",
            "odometer",
            "rounding",
            "turbine1",
            "turbine3"
        ],
        "P' builds the backend rewrites"
    );

    let cases: Vec<(usize, Vec<BuildKind>)> = CORPUS
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let builds = match unmodelled_reason(c.func) {
                Some(why) => {
                    println!("{} [P'] not cross-checked: {why}", c.func);
                    vec![BuildKind::P]
                }
                None => BuildKind::BOTH.to_vec(),
            };
            (i, builds)
        })
        .collect();
    let (failures, kernel_runs, counted_runs) = run_cases(&cases);
    if !failures.is_empty() {
        panic!(
            "interpreter and native code disagree ({} problems):\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
    // The builds whose evaluations native kernels answered, so their agreement with the
    // executables above is checked and cannot silently stop being.
    assert_eq!(
        kernel_runs, KERNEL_RUNS,
        "builds answered by native kernels"
    );
    // Where the processor has FMA, kernels count inexact themselves in every one of
    // those builds (P runs without FTZ/DAZ, P' with both), against the executables' flags.
    if std::arch::is_x86_feature_detected!("fma") {
        assert_eq!(
            counted_runs, KERNEL_RUNS,
            "builds answered by counting kernels"
        );
    }
}

/// Evidence for [`UNMODELLED_P_PRIME`]: replays those P' builds and prints how often and
/// how they disagree. Fails if one of them now agrees everywhere (then it belongs in the
/// main test again).
#[test]
#[ignore = "documents known backend rewrites the IR interpreter cannot model"]
fn backend_rewrites_of_unmodelled_p_prime_builds() {
    let cases: Vec<(usize, Vec<BuildKind>)> = CORPUS
        .iter()
        .enumerate()
        .filter(|(_, c)| unmodelled_reason(c.func).is_some())
        .map(|(i, _)| (i, vec![BuildKind::PPrime]))
        .collect();
    let (failures, _, _) = run_cases(&cases);
    for text in &failures {
        println!("\n{text}");
    }
    for (f, why) in UNMODELLED_P_PRIME {
        let prefix = format!("{f} [P']");
        assert!(
            failures.iter().any(|t| t.starts_with(&prefix)),
            "{f} [P'] now agrees with native code: move it back into the main cross-check \
             (it was excluded because: {why})"
        );
    }
}
