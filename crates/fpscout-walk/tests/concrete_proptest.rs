//! Property tests of the concrete domain against Rust's own IEEE arithmetic (which rounds
//! the same way) and against simple rules for the flags.

mod common;

use common::SITE;
use fpscout_ir::{CastOp, CmpLowering, FBinOp, FCmpPred, FloatTy, ScalarTy};
use fpscout_walk::concrete::{Concrete, FpMode};
use fpscout_walk::Domain;
use proptest::prelude::*;

/// Layout of one IEEE binary format.
#[derive(Clone, Copy, Debug)]
struct Fmt {
    ty: FloatTy,
    /// Fraction bits (52 or 23).
    frac: u32,
    /// Exponent bits (11 or 8).
    exp: u32,
}

const D: Fmt = Fmt {
    ty: FloatTy::F64,
    frac: 52,
    exp: 11,
};
const S: Fmt = Fmt {
    ty: FloatTy::F32,
    frac: 23,
    exp: 8,
};

impl Fmt {
    fn sign(self) -> u64 {
        1 << (self.frac + self.exp)
    }
    fn exp_max(self) -> u64 {
        (1 << self.exp) - 1
    }
    fn exp_field(self, b: u64) -> u64 {
        (b >> self.frac) & self.exp_max()
    }
    fn frac_field(self, b: u64) -> u64 {
        b & ((1 << self.frac) - 1)
    }
    fn is_nan(self, b: u64) -> bool {
        self.exp_field(b) == self.exp_max() && self.frac_field(b) != 0
    }
    fn is_snan(self, b: u64) -> bool {
        self.is_nan(b) && b & (1 << (self.frac - 1)) == 0
    }
    fn is_inf(self, b: u64) -> bool {
        self.exp_field(b) == self.exp_max() && self.frac_field(b) == 0
    }
    fn is_finite(self, b: u64) -> bool {
        self.exp_field(b) != self.exp_max()
    }
    fn is_zero(self, b: u64) -> bool {
        b & !self.sign() == 0
    }
    fn quiet(self, b: u64) -> u64 {
        b | (1 << (self.frac - 1))
    }
    fn default_nan(self) -> u64 {
        self.sign() | (self.exp_max() << self.frac) | (1 << (self.frac - 1))
    }
    fn abs(self, b: u64) -> u64 {
        b & !self.sign()
    }
    /// |x| of the smallest normal number, as bits.
    fn min_normal(self) -> u64 {
        1 << self.frac
    }
    /// A finite nonzero value as (integer significand, binary exponent), trailing zeros
    /// removed, so equal values compare equal.
    fn split(self, b: u64) -> (u128, i32) {
        let e = self.exp_field(b) as i32;
        let bias = (1 << (self.exp - 1)) - 1;
        let (mut m, mut ex) = if e == 0 {
            (u128::from(self.frac_field(b)), 1 - bias - self.frac as i32)
        } else {
            (
                u128::from(self.frac_field(b) | (1 << self.frac)),
                e - bias - self.frac as i32,
            )
        };
        while m != 0 && m & 1 == 0 {
            m >>= 1;
            ex += 1;
        }
        (m, ex)
    }
    /// Whether |x|·|y| equals |z| exactly (all finite and nonzero).
    fn product_is(self, x: u64, y: u64, z: u64) -> bool {
        let ((mx, ex), (my, ey)) = (self.split(x), self.split(y));
        let (mut m, mut e) = (mx * my, ex + ey);
        while m != 0 && m & 1 == 0 {
            m >>= 1;
            e += 1;
        }
        (m, e) == self.split(z)
    }
}

/// Reference result of Rust's arithmetic on the host (same rounding as SSE).
fn rust_op(fmt: Fmt, op: FBinOp, a: u64, b: u64) -> u64 {
    match fmt.ty {
        FloatTy::F64 => {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            let r = match op {
                FBinOp::FAdd => x + y,
                FBinOp::FSub => x - y,
                FBinOp::FMul => x * y,
                FBinOp::FDiv => x / y,
                FBinOp::FRem => unreachable!(),
            };
            r.to_bits()
        }
        FloatTy::F32 => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            let r = match op {
                FBinOp::FAdd => x + y,
                FBinOp::FSub => x - y,
                FBinOp::FMul => x * y,
                FBinOp::FDiv => x / y,
                FBinOp::FRem => unreachable!(),
            };
            u64::from(r.to_bits())
        }
    }
}

/// Whether a finite result of finite operands is exact.
fn exact(fmt: Fmt, op: FBinOp, a: u64, b: u64, r: u64) -> bool {
    let neg_b = b ^ fmt.sign();
    match op {
        FBinOp::FAdd | FBinOp::FSub => {
            // TwoSum: the rounding error of a sum is itself representable.
            let bb = if op == FBinOp::FAdd { b } else { neg_b };
            let s = r;
            let t = rust_op(fmt, FBinOp::FSub, s, a);
            let u = rust_op(fmt, FBinOp::FSub, s, t);
            let e1 = rust_op(fmt, FBinOp::FSub, a, u);
            let e2 = rust_op(fmt, FBinOp::FSub, bb, t);
            let e = rust_op(fmt, FBinOp::FAdd, e1, e2);
            fmt.is_zero(e)
        }
        FBinOp::FMul => {
            if fmt.is_zero(a) || fmt.is_zero(b) {
                true
            } else {
                !fmt.is_zero(r) && fmt.product_is(a, b, r)
            }
        }
        FBinOp::FDiv => {
            if fmt.is_zero(a) {
                true
            } else {
                !fmt.is_zero(r) && fmt.product_is(r, b, a)
            }
        }
        FBinOp::FRem => unreachable!(),
    }
}

fn check_arith(fmt: Fmt, op: FBinOp, a: u64, b: u64) -> Result<(), TestCaseError> {
    let mut dom = Concrete::new(FpMode::IEEE);
    let r = dom.fbin(op, fmt.ty, &a, &b, SITE).unwrap();
    let fl = dom.flags;
    let ctx = format!("{op:?} {:?} {a:#x} {b:#x} -> {r:#x} [{fl}]", fmt.ty);
    let want = rust_op(fmt, op, a, b);
    let nan_in = fmt.is_nan(a) || fmt.is_nan(b);
    // Result bits.
    if nan_in {
        let first = if fmt.is_nan(a) { a } else { b };
        prop_assert_eq!(r, fmt.quiet(first), "{}", ctx);
    } else if fmt.is_nan(want) {
        prop_assert_eq!(r, fmt.default_nan(), "{}", ctx);
    } else {
        prop_assert_eq!(r, want, "{}", ctx);
    }
    // Flags.
    let snan_in = fmt.is_snan(a) || fmt.is_snan(b);
    let invalid = snan_in || (!nan_in && fmt.is_nan(r));
    prop_assert_eq!(
        fl.contains(fpscout_ir::ExceptionKind::Invalid),
        invalid,
        "{}",
        ctx
    );
    let finite_in = fmt.is_finite(a) && fmt.is_finite(b);
    let dz = op == FBinOp::FDiv && finite_in && fmt.is_zero(b) && !fmt.is_zero(a);
    prop_assert_eq!(
        fl.contains(fpscout_ir::ExceptionKind::DivByZero),
        dz,
        "{}",
        ctx
    );
    let overflow = finite_in && fmt.is_inf(r) && !dz;
    prop_assert_eq!(
        fl.contains(fpscout_ir::ExceptionKind::Overflow),
        overflow,
        "{}",
        ctx
    );
    if finite_in && !dz && !fmt.is_nan(r) {
        let inexact = overflow || !exact(fmt, op, a, b, r);
        prop_assert_eq!(
            fl.contains(fpscout_ir::ExceptionKind::Inexact),
            inexact,
            "{}",
            ctx
        );
        let uf = fl.contains(fpscout_ir::ExceptionKind::Underflow);
        let mag = fmt.abs(r);
        if !inexact || mag > fmt.min_normal() {
            prop_assert!(!uf, "{}", ctx);
        } else if mag < fmt.min_normal() {
            prop_assert!(uf, "{}", ctx);
        }
        // |r| == MIN_NORMAL and inexact: depends on the exact value (tininess after
        // rounding); the fixed tables cover both cases.
    } else {
        prop_assert!(
            !fl.contains(fpscout_ir::ExceptionKind::Inexact)
                && !fl.contains(fpscout_ir::ExceptionKind::Underflow),
            "{}",
            ctx
        );
    }
    // Events: one per non-inexact flag, at the site.
    prop_assert_eq!(
        dom.events.len(),
        fl.without_inexact().iter().count(),
        "{}",
        ctx
    );
    Ok(())
}

/// Bit patterns biased towards the interesting parts of a format.
fn bits(fmt: Fmt) -> impl Strategy<Value = u64> {
    let sign = fmt.sign();
    let frac_mask = (1u64 << fmt.frac) - 1;
    let emax = fmt.exp_max();
    let total = fmt.frac + fmt.exp + 1;
    let any_bits = any::<u64>().prop_map(move |b| fpscout_ir::truncate_bits(b, total));
    let near = (
        any::<bool>(),
        prop_oneof![
            Just(0u64),
            Just(1),
            Just(2),
            Just(emax - 2),
            Just(emax - 1),
            Just(emax),
            (emax / 2 - 3)..(emax / 2 + 3),
            0..emax,
        ],
        prop_oneof![
            Just(0u64),
            Just(1),
            Just(frac_mask),
            Just(frac_mask - 1),
            Just(1 << (fmt.frac - 1)),
            Just(1 << (fmt.frac - 2)),
            any::<u64>().prop_map(move |f| f & frac_mask),
        ],
    )
        .prop_map(move |(s, e, f)| (if s { sign } else { 0 }) | (e << fmt.frac) | f);
    prop_oneof![2 => near, 1 => any_bits]
}

fn arith_op() -> impl Strategy<Value = FBinOp> {
    prop_oneof![
        Just(FBinOp::FAdd),
        Just(FBinOp::FSub),
        Just(FBinOp::FMul),
        Just(FBinOp::FDiv)
    ]
}

/// A second operand close to the first (cancellation, ties, exact results).
fn pair(fmt: Fmt) -> impl Strategy<Value = (u64, u64)> {
    prop_oneof![
        (bits(fmt), bits(fmt)),
        (bits(fmt), -4i64..=4, any::<bool>()).prop_map(move |(a, k, flip)| {
            let b = (a as i64).wrapping_add(k) as u64 & ((fmt.sign() << 1).wrapping_sub(1));
            (a, if flip { b ^ fmt.sign() } else { b })
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn f64_arith_matches_rust_and_flag_rules(op in arith_op(), (a, b) in pair(D)) {
        check_arith(D, op, a, b)?;
    }

    #[test]
    fn f32_arith_matches_rust_and_flag_rules(op in arith_op(), (a, b) in pair(S)) {
        check_arith(S, op, a, b)?;
    }
}

fn all_preds() -> [FCmpPred; 16] {
    use FCmpPred::*;
    [
        False, Oeq, Ogt, Oge, Olt, Ole, One, Ord, Ueq, Ugt, Uge, Ult, Ule, Une, Uno, True,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn fcmp_matches_partial_cmp((a, b) in pair(D)) {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let order = x.partial_cmp(&y);
        let nan = D.is_nan(a) || D.is_nan(b);
        let snan = D.is_snan(a) || D.is_snan(b);
        for pred in all_preds() {
            for lowering in [CmpLowering::Quiet, CmpLowering::Mask] {
                let mut dom = Concrete::new(FpMode::IEEE);
                let r = dom.fcmp(pred, lowering, FloatTy::F64, &a, &b, SITE).unwrap();
                prop_assert_eq!(r, u64::from(pred.holds(order)), "{:?} {:#x} {:#x}", pred, a, b);
                let relational = matches!(
                    pred,
                    FCmpPred::Ogt | FCmpPred::Oge | FCmpPred::Olt | FCmpPred::Ole
                        | FCmpPred::Ugt | FCmpPred::Uge | FCmpPred::Ult | FCmpPred::Ule
                );
                let constant = matches!(pred, FCmpPred::False | FCmpPred::True);
                let invalid = !constant
                    && (snan || (nan && relational && lowering == CmpLowering::Mask));
                prop_assert_eq!(
                    dom.flags.contains(fpscout_ir::ExceptionKind::Invalid), invalid,
                    "{:?} {:?} {:#x} {:#x}", pred, lowering, a, b
                );
                prop_assert!(dom.flags.without_inexact().0 & !1 == 0);
            }
        }
    }

    #[test]
    fn int_to_float_matches_rust(v in any::<u64>(), shift in 0u32..64) {
        let v = v >> shift;
        let mut dom = Concrete::new(FpMode::IEEE);
        let i64t = ScalarTy::Int(64);
        let f64t = ScalarTy::Float(FloatTy::F64);
        let f32t = ScalarTy::Float(FloatTy::F32);
        // sitofp i64 → double / float
        for (to, want, back) in [
            (f64t, (v as i64 as f64).to_bits(), (v as i64 as f64) as i128),
            (f32t, u64::from((v as i64 as f32).to_bits()), (v as i64 as f32) as i128),
        ] {
            dom.clear();
            let r = dom.fcast(CastOp::SIToFP, i64t, to, &v, SITE).unwrap();
            prop_assert_eq!(r, want);
            prop_assert_eq!(dom.flags.contains(fpscout_ir::ExceptionKind::Inexact), back != i128::from(v as i64));
            prop_assert_eq!(dom.flags.without_inexact().0, 0);
        }
        // uitofp i64 → double / float (Rust's `as` rounds correctly)
        for (to, want, back) in [
            (f64t, (v as f64).to_bits(), (v as f64) as u128),
            (f32t, u64::from((v as f32).to_bits()), (v as f32) as u128),
        ] {
            dom.clear();
            let r = dom.fcast(CastOp::UIToFP, i64t, to, &v, SITE).unwrap();
            prop_assert_eq!(r, want, "uitofp {:#x}", v);
            // `as u128` saturates only at 2^128, so 2^64 stays distinguishable.
            prop_assert_eq!(dom.flags.contains(fpscout_ir::ExceptionKind::Inexact), back != u128::from(v));
            prop_assert_eq!(dom.flags.without_inexact().0, 0);
        }
    }

    #[test]
    fn float_to_int_in_and_out_of_range(a in bits(D)) {
        let x = f64::from_bits(a);
        let mut dom = Concrete::new(FpMode::IEEE);
        let f64t = ScalarTy::Float(FloatTy::F64);
        let t = x.trunc();
        // fptosi i32 / i64: the value when in range, else x86's integer indefinite + invalid.
        for (w, lo, hi, indefinite) in [
            (32u32, -2147483648.0f64, 2147483648.0f64, 0x8000_0000u64),
            (64, -9223372036854775808.0, 9223372036854775808.0, 0x8000_0000_0000_0000),
        ] {
            dom.clear();
            let r = dom.fcast(CastOp::FPToSI, f64t, ScalarTy::Int(w), &a, SITE).unwrap();
            if !x.is_nan() && t >= lo && t < hi {
                prop_assert_eq!(r, fpscout_ir::truncate_bits(t as i64 as u64, w));
                prop_assert_eq!(dom.flags.contains(fpscout_ir::ExceptionKind::Inexact), t != x);
                prop_assert_eq!(dom.flags.without_inexact().0, 0);
            } else {
                prop_assert_eq!(r, indefinite);
                prop_assert_eq!(dom.flags, common::flags("invalid"));
            }
        }
        // fptoui i64 in range: the value; INVALID exactly when x ≥ 2^63 (the plain cvtt
        // overflows there even though the result is right).
        if !x.is_nan() && (0.0..18446744073709551616.0).contains(&t) {
            dom.clear();
            let r = dom.fcast(CastOp::FPToUI, f64t, ScalarTy::Int(64), &a, SITE).unwrap();
            prop_assert_eq!(r, t as u64);
            prop_assert_eq!(
                dom.flags.contains(fpscout_ir::ExceptionKind::Invalid),
                t >= 9223372036854775808.0
            );
        }
    }
}

/// The `llvm.is.fpclass` class bit of a value, from Rust's own classification (LangRef
/// layout: snan, qnan, -inf, -normal, -subnormal, -0, +0, +subnormal, +normal, +inf).
fn rust_class_bit(fmt: Fmt, b: u64) -> u16 {
    use std::num::FpCategory::*;
    let (category, negative) = match fmt.ty {
        FloatTy::F64 => {
            let x = f64::from_bits(b);
            (x.classify(), x.is_sign_negative())
        }
        FloatTy::F32 => {
            let x = f32::from_bits(b as u32);
            (x.classify(), x.is_sign_negative())
        }
    };
    let bit = match (category, negative) {
        (Nan, _) if fmt.is_snan(b) => 0,
        (Nan, _) => 1,
        (Infinite, true) => 2,
        (Normal, true) => 3,
        (Subnormal, true) => 4,
        (Zero, true) => 5,
        (Zero, false) => 6,
        (Subnormal, false) => 7,
        (Normal, false) => 8,
        (Infinite, false) => 9,
    };
    1 << bit
}

fn check_fpclass(fmt: Fmt, b: u64) -> Result<(), TestCaseError> {
    let class = rust_class_bit(fmt, b);
    // A bit test: DAZ does not turn subnormals into zeros, and nothing is raised.
    for mode in [FpMode::IEEE, FpMode::FAST_MATH_STARTUP] {
        let mut dom = Concrete::new(mode);
        for mask in 0..1024u16 {
            let r = dom
                .fclass(fpscout_ir::FpClassMask(mask), fmt.ty, &b, SITE)
                .unwrap();
            prop_assert_eq!(r, u64::from(mask & class != 0), "{:#x} mask {:#x}", b, mask);
        }
        prop_assert_eq!(dom.flags.0, 0, "{:#x} raised {:?}", b, dom.flags);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn f64_fpclass_every_mask_matches_rust_classification(b in bits(D)) {
        check_fpclass(D, b)?;
    }

    #[test]
    fn f32_fpclass_every_mask_matches_rust_classification(b in bits(S)) {
        check_fpclass(S, b)?;
    }
}
