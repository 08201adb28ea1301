//! The concrete domain used directly through the `Domain` trait: exact result bits and
//! exact IEEE flags/events of every operation, in IEEE, FTZ and DAZ modes.

mod common;

use common::tables::*;
use common::{d, f, flags, DAZ, FTZ, FTZ_DAZ, SITE};
use fpscout_ir::{
    CastOp, CmpLowering, ExceptionKind, ExceptionSet, FBinOp, FBinaryOp, FCmpPred, FUnaryOp,
    FloatTy, FpOpId, IBinOp, ICmpPred, MathFn, ScalarTy,
};
use fpscout_walk::concrete::{Concrete, Event, FpMode};
use fpscout_walk::{Domain, OpSite, WalkError};

const F64: FloatTy = FloatTy::F64;
const F32: FloatTy = FloatTy::F32;

/// Checks one operation's outcome: result bits, flag union, and that the events are exactly
/// the non-inexact flags at `SITE`.
fn check(
    errs: &mut Vec<String>,
    what: String,
    dom: &Concrete,
    got: u64,
    want: u64,
    want_flags: &str,
) {
    let wf = flags(want_flags);
    if got != want || dom.flags != wf {
        errs.push(format!(
            "{what}: got {got:#x} [{}], want {want:#x} [{wf}]",
            dom.flags
        ));
        return;
    }
    let want_events: Vec<Event> = wf
        .without_inexact()
        .iter()
        .map(|kind| Event { kind, site: SITE })
        .collect();
    if dom.events != want_events {
        errs.push(format!("{what}: events {:?}", dom.events));
    }
}

fn finish(errs: Vec<String>) {
    assert!(
        errs.is_empty(),
        "{} mismatches:\n{}",
        errs.len(),
        errs.join("\n")
    );
}

fn run_rows(mode: FpMode, ty: FloatTy, rows: &[Row]) -> Vec<String> {
    let mut errs = vec![];
    let mut dom = Concrete::new(mode);
    for &(op, a, b, want, fl) in rows {
        dom.clear();
        let r = dom.fbin(op, ty, &a, &b, SITE).unwrap();
        check(
            &mut errs,
            format!("{mode:?} {ty:?} {op:?}({a:#x}, {b:#x})"),
            &dom,
            r,
            want,
            fl,
        );
    }
    errs
}

#[test]
fn f64_arithmetic_bits_and_flags() {
    finish(run_rows(FpMode::IEEE, F64, F64_ARITH));
}

#[test]
fn f32_arithmetic_bits_and_flags() {
    finish(run_rows(FpMode::IEEE, F32, F32_ARITH));
}

#[test]
fn inexact_events_only_when_recorded() {
    let mut dom = Concrete::new(FpMode::IEEE);
    let site = OpSite {
        op: FpOpId(7),
        lane: 3,
    };
    dom.fbin(FBinOp::FMul, F64, &d::MAX, &d::TWO, site).unwrap();
    assert_eq!(
        dom.events,
        vec![Event {
            kind: ExceptionKind::Overflow,
            site
        }]
    );
    assert_eq!(dom.flags, flags("overflow,inexact"));
    dom.clear();
    dom.record_inexact = true;
    dom.fbin(FBinOp::FMul, F64, &d::MAX, &d::TWO, site).unwrap();
    dom.fbin(FBinOp::FAdd, F64, &d::ONE, &d::ONE, site).unwrap();
    assert_eq!(
        dom.events,
        vec![
            Event {
                kind: ExceptionKind::Overflow,
                site
            },
            Event {
                kind: ExceptionKind::Inexact,
                site
            },
        ]
    );
    // Flags accumulate over operations until `clear`.
    dom.fbin(FBinOp::FDiv, F64, &d::ONE, &d::PZ, site).unwrap();
    assert_eq!(dom.flags, flags("divbyzero,overflow,inexact"));
    dom.clear();
    assert!(dom.events.is_empty() && dom.flags.is_empty());
}

#[test]
fn fneg_flips_only_the_sign_bit() {
    for mode in [FpMode::IEEE, FTZ_DAZ] {
        let mut dom = Concrete::new(mode);
        for &a in F64_NEG {
            assert_eq!(dom.fneg(F64, &a).unwrap(), a ^ d::NZ, "{a:#x}");
        }
        for &a in F32_NEG {
            assert_eq!(dom.fneg(F32, &a).unwrap(), a ^ f::NZ, "{a:#x}");
        }
        // Even a signalling or subnormal operand under DAZ raises nothing.
        assert!(dom.flags.is_empty() && dom.events.is_empty());
    }
}

#[test]
fn fp_modes_map_to_mxcsr() {
    assert_eq!(FpMode::IEEE.mxcsr(), 0x1f80);
    assert_eq!(FTZ.mxcsr(), 0x9f80);
    assert_eq!(DAZ.mxcsr(), 0x1fc0);
    assert_eq!(FTZ_DAZ.mxcsr(), 0x9fc0);
    assert_eq!(FpMode::FAST_MATH_STARTUP, FTZ_DAZ);
    for m in [FpMode::IEEE, FTZ, DAZ, FTZ_DAZ] {
        assert_eq!(Concrete::new(m).mode(), m);
    }
}

#[test]
fn ftz_and_daz_arithmetic() {
    use FBinOp::*;
    let ieee = FpMode::IEEE;
    #[rustfmt::skip]
    let rows: &[(FpMode, FloatTy, FBinOp, u64, u64, u64, &str)] = &[
        (ieee, F64, FMul, d::MIN, d::HALF, 0x0008_0000_0000_0000, NONE),
        // FTZ: a tiny result becomes ±0 and raises underflow + inexact, even when exact.
        (FTZ, F64, FMul, d::MIN, d::HALF, d::PZ, UF_IE),
        (FTZ, F64, FMul, 0x8010_0000_0000_0000, d::HALF, d::NZ, UF_IE),
        (FTZ, F64, FSub, 0x0010_0000_0000_0001, d::MIN, d::PZ, UF_IE),
        (FTZ, F64, FMul, d::BELOW_ONE, d::MIN, d::PZ, UF_IE),
        // Not tiny after rounding: DBL_MIN survives FTZ.
        (FTZ, F64, FMul, d::Q3, 0x0015_5555_5555_5555, d::MIN, IE),
        // FTZ leaves subnormal *inputs* alone ...
        (FTZ, F64, FMul, d::MIN_SUB, 0x7e70_0000_0000_0000, 0x3b50_0000_0000_0000, NONE),
        (FTZ, F64, FAdd, d::MIN_SUB, d::PZ, d::PZ, UF_IE),
        // ... DAZ reads them as zero (sign kept) and does not touch outputs.
        (DAZ, F64, FMul, d::MIN, d::HALF, 0x0008_0000_0000_0000, NONE),
        (DAZ, F64, FMul, d::MIN_SUB, 0x7e70_0000_0000_0000, d::PZ, NONE),
        (DAZ, F64, FMul, 0x8000_0000_0000_0001, d::ONE, d::NZ, NONE),
        (DAZ, F64, FDiv, d::ONE, d::MIN_SUB, d::INF, DZ),
        (ieee, F64, FDiv, d::ONE, d::MIN_SUB, d::INF, OF_IE),
        (DAZ, F64, FDiv, d::PZ, d::MIN_SUB, d::DNAN, INV),
        (DAZ, F64, FAdd, d::MAX_SUB, d::MAX_SUB, d::PZ, NONE),
        (ieee, F64, FAdd, d::MAX_SUB, d::MAX_SUB, 0x001f_ffff_ffff_fffe, NONE),
        (FTZ_DAZ, F64, FMul, d::MIN, d::HALF, d::PZ, UF_IE),
        (FTZ_DAZ, F64, FAdd, d::MIN_SUB, d::MIN, d::MIN, NONE),
        // DAZ reads the subnormal as 0 before FTZ could matter: DBL_MIN - 0.
        (FTZ_DAZ, F64, FSub, d::MIN, d::MAX_SUB, d::MIN, NONE),
        (FTZ, F64, FSub, d::MIN, d::MAX_SUB, d::PZ, UF_IE),
        (FTZ, F32, FMul, f::MIN, f::HALF, f::PZ, UF_IE),
        (FTZ, F32, FMul, 0x3f7f_0040, 0x0080_8060, f::MIN, IE),
        (DAZ, F32, FDiv, f::ONE, f::MIN_SUB, f::INF, DZ),
        (DAZ, F32, FAdd, f::MAX_SUB, f::MIN_SUB, f::PZ, NONE),
        // Overflow and invalid are unaffected by either mode.
        (FTZ_DAZ, F64, FMul, d::MAX, d::TWO, d::INF, OF_IE),
        (FTZ_DAZ, F64, FSub, d::INF, d::INF, d::DNAN, INV),
    ];
    let mut errs = vec![];
    for &(mode, ty, op, a, b, want, fl) in rows {
        let mut dom = Concrete::new(mode);
        let r = dom.fbin(op, ty, &a, &b, SITE).unwrap();
        check(
            &mut errs,
            format!("{mode:?} {ty:?} {op:?}({a:#x}, {b:#x})"),
            &dom,
            r,
            want,
            fl,
        );
    }
    finish(errs);
}

#[test]
fn ftz_and_daz_in_other_operations() {
    let mut errs = vec![];
    let mut one =
        |mode: FpMode, what: &str, op: &dyn Fn(&mut Concrete) -> u64, want: u64, fl: &str| {
            let mut dom = Concrete::new(mode);
            let r = op(&mut dom);
            check(&mut errs, format!("{mode:?} {what}"), &dom, r, want, fl);
        };
    let sqrt =
        |a: u64| move |dm: &mut Concrete| dm.funary(FUnaryOp::SqrtInsn, F64, &a, SITE).unwrap();
    one(
        FpMode::IEEE,
        "sqrt(2^-1074)",
        &sqrt(d::MIN_SUB),
        0x1e60_0000_0000_0000,
        NONE,
    );
    one(DAZ, "sqrt(2^-1074)", &sqrt(d::MIN_SUB), d::PZ, NONE);
    one(
        DAZ,
        "sqrt(-2^-1074)",
        &sqrt(0x8000_0000_0000_0001),
        d::NZ,
        NONE,
    );
    let oeq = |a: u64, b: u64| {
        move |dm: &mut Concrete| {
            dm.fcmp(FCmpPred::Oeq, CmpLowering::Quiet, F64, &a, &b, SITE)
                .unwrap()
        }
    };
    one(
        FpMode::IEEE,
        "2^-1074 oeq 0",
        &oeq(d::MIN_SUB, d::PZ),
        0,
        NONE,
    );
    one(DAZ, "2^-1074 oeq 0", &oeq(d::MIN_SUB, d::PZ), 1, NONE);
    one(DAZ, "2^-1074 oeq -0", &oeq(d::MIN_SUB, d::NZ), 1, NONE);
    let ext = |a: u64| {
        move |dm: &mut Concrete| {
            dm.fcast(
                CastOp::FPExt,
                ScalarTy::Float(F32),
                ScalarTy::Float(F64),
                &a,
                SITE,
            )
            .unwrap()
        }
    };
    one(
        FpMode::IEEE,
        "fpext(2^-149)",
        &ext(f::MIN_SUB),
        0x36a0_0000_0000_0000,
        NONE,
    );
    one(DAZ, "fpext(2^-149)", &ext(f::MIN_SUB), d::PZ, NONE);
    let trunc = |a: u64| {
        move |dm: &mut Concrete| {
            dm.fcast(
                CastOp::FPTrunc,
                ScalarTy::Float(F64),
                ScalarTy::Float(F32),
                &a,
                SITE,
            )
            .unwrap()
        }
    };
    one(
        FpMode::IEEE,
        "fptrunc(2^-149)",
        &trunc(0x36a0_0000_0000_0000),
        f::MIN_SUB,
        NONE,
    );
    one(
        FTZ,
        "fptrunc(2^-149)",
        &trunc(0x36a0_0000_0000_0000),
        f::PZ,
        UF_IE,
    );
    // A subnormal double is far below FLT_MIN: DAZ zeroes it before the conversion.
    one(
        DAZ,
        "fptrunc(DBL subnormal)",
        &trunc(d::MAX_SUB),
        f::PZ,
        NONE,
    );
    one(
        FpMode::IEEE,
        "fptrunc(DBL subnormal)",
        &trunc(d::MAX_SUB),
        f::PZ,
        UF_IE,
    );
    let fma =
        |a: u64, b: u64, c: u64| move |dm: &mut Concrete| dm.fma(F64, &a, &b, &c, SITE).unwrap();
    one(
        FpMode::IEEE,
        "fma(DBL_MIN, 0.5, 0)",
        &fma(d::MIN, d::HALF, d::PZ),
        0x0008_0000_0000_0000,
        NONE,
    );
    one(
        FTZ,
        "fma(DBL_MIN, 0.5, 0)",
        &fma(d::MIN, d::HALF, d::PZ),
        d::PZ,
        UF_IE,
    );
    let cvt = |a: u64| {
        move |dm: &mut Concrete| {
            dm.fcast(
                CastOp::FPToSI,
                ScalarTy::Float(F64),
                ScalarTy::Int(32),
                &a,
                SITE,
            )
            .unwrap()
        }
    };
    one(FpMode::IEEE, "fptosi(2^-1074)", &cvt(d::MIN_SUB), 0, IE);
    one(DAZ, "fptosi(2^-1074)", &cvt(d::MIN_SUB), 0, NONE);
    let min = |a: u64, b: u64| {
        move |dm: &mut Concrete| dm.fbinary(FBinaryOp::MinSse, F64, &a, &b, SITE).unwrap()
    };
    // minsd under DAZ: the subnormal reads as +0, 0 < 0 is false and the second operand
    // comes back -- zeroed too: DAZ rewrites the operand, not just the comparison.
    one(
        FpMode::IEEE,
        "minsd(2^-1074, 0)",
        &min(d::MIN_SUB, d::PZ),
        d::PZ,
        NONE,
    );
    one(
        FpMode::IEEE,
        "minsd(0, 2^-1074)",
        &min(d::PZ, d::MIN_SUB),
        d::PZ,
        NONE,
    );
    one(
        DAZ,
        "minsd(0, 2^-1074)",
        &min(d::PZ, d::MIN_SUB),
        d::PZ,
        NONE,
    );
    one(
        DAZ,
        "minsd(-2^-1074, 1)",
        &min(0x8000_0000_0000_0001, d::ONE),
        d::NZ,
        NONE,
    );
    finish(errs);
}

/// Truth table of each predicate over (less, equal, greater, unordered).
const FCMP: [(FCmpPred, [bool; 4]); 16] = {
    use FCmpPred::*;
    const T: bool = true;
    const F: bool = false;
    [
        (False, [F, F, F, F]),
        (Oeq, [F, T, F, F]),
        (Ogt, [F, F, T, F]),
        (Oge, [F, T, T, F]),
        (Olt, [T, F, F, F]),
        (Ole, [T, T, F, F]),
        (One, [T, F, T, F]),
        (Ord, [T, T, T, F]),
        (Ueq, [F, T, F, T]),
        (Ugt, [F, F, T, T]),
        (Uge, [F, T, T, T]),
        (Ult, [T, F, F, T]),
        (Ule, [T, T, F, T]),
        (Une, [T, F, T, T]),
        (Uno, [F, F, F, T]),
        (True, [T, T, T, T]),
    ]
};

/// Predicates `cmpsd` evaluates with a signalling compare (lt, le, nlt, nle).
fn signalling_in_mask(p: FCmpPred) -> bool {
    use FCmpPred::*;
    matches!(p, Ogt | Oge | Olt | Ole | Ugt | Uge | Ult | Ule)
}

#[test]
fn fcmp_all_predicates_quiet_and_mask() {
    // (a, b, outcome index: 0 less, 1 equal, 2 greater, 3 unordered, has SNaN)
    #[rustfmt::skip]
    let f64_pairs: &[(u64, u64, usize, bool)] = &[
        (d::ONE, d::TWO, 0, false),
        (d::TWO, d::ONE, 2, false),
        (d::ONE, d::ONE, 1, false),
        (d::PZ, d::NZ, 1, false),
        (d::NINF, d::INF, 0, false),
        (d::MIN_SUB, d::PZ, 2, false),
        (d::INF, d::INF, 1, false),
        (d::QNAN, d::ONE, 3, false),
        (d::ONE, d::QNAN, 3, false),
        (d::QNAN, d::QNAN, 3, false),
        (d::SNAN, d::ONE, 3, true),
        (d::ONE, d::SNAN, 3, true),
    ];
    #[rustfmt::skip]
    let f32_pairs: &[(u64, u64, usize, bool)] = &[
        (f::ONE, f::TWO, 0, false),
        (f::MAX, f::INF, 0, false),
        (f::NZ, f::PZ, 1, false),
        (f::TWO, f::MIN_SUB, 2, false),
        (f::QNAN, f::NINF, 3, false),
        (f::SNAN, f::SNAN, 3, true),
    ];
    let mut errs = vec![];
    let mut dom = Concrete::new(FpMode::IEEE);
    for (ty, pairs) in [(F64, f64_pairs), (F32, f32_pairs)] {
        for &(a, b, outcome, snan) in pairs {
            let nan = outcome == 3;
            for (pred, table) in FCMP {
                for lowering in [CmpLowering::Quiet, CmpLowering::Mask] {
                    dom.clear();
                    let r = dom.fcmp(pred, lowering, ty, &a, &b, SITE).unwrap();
                    let want = u64::from(table[outcome]);
                    let no_insn = matches!(pred, FCmpPred::False | FCmpPred::True);
                    let invalid = !no_insn
                        && (snan
                            || (nan && lowering == CmpLowering::Mask && signalling_in_mask(pred)));
                    let fl = if invalid { INV } else { NONE };
                    check(
                        &mut errs,
                        format!("fcmp {pred:?} {lowering:?} {ty:?} {a:#x} {b:#x}"),
                        &dom,
                        r,
                        want,
                        fl,
                    );
                }
            }
        }
    }
    finish(errs);
}

#[test]
fn conversions_bits_and_flags() {
    let mut errs = vec![];
    let mut dom = Concrete::new(FpMode::IEEE);
    for &(op, from, to, a, want, fl) in CASTS {
        dom.clear();
        let r = dom.fcast(op, from, to, &a, SITE).unwrap();
        check(
            &mut errs,
            format!("{op:?} {from} -> {to} ({a:#x})"),
            &dom,
            r,
            want,
            fl,
        );
    }
    finish(errs);
}

#[test]
fn integer_casts_and_bitcasts() {
    use CastOp::*;
    let mut dom = Concrete::new(FpMode::IEEE);
    let rows: &[(CastOp, ScalarTy, ScalarTy, u64, u64)] = &[
        (Trunc, I64, I8, 0x1234_5678_9abc_def0, 0xf0),
        (Trunc, I32, ScalarTy::Int(1), 0x3, 1),
        (ZExt, I8, I64, 0x80, 0x80),
        (ZExt, ScalarTy::Int(1), I32, 1, 1),
        (SExt, I8, I64, 0x80, 0xffff_ffff_ffff_ff80),
        (SExt, I16, I32, 0x7fff, 0x7fff),
        (SExt, ScalarTy::Int(1), I32, 1, 0xffff_ffff),
        (BitCast, SF64, I64, d::SNAN, d::SNAN),
        (BitCast, I32, SF32, f::SNAN, f::SNAN),
    ];
    for &(op, from, to, a, want) in rows {
        assert_eq!(
            dom.icast(op, from, to, &a).unwrap(),
            want,
            "{op:?} {from}->{to} {a:#x}"
        );
    }
    assert!(dom.flags.is_empty());
}

#[test]
fn unary_intrinsics() {
    use FUnaryOp::*;
    #[rustfmt::skip]
    let rows: &[(FUnaryOp, FloatTy, u64, u64, &str)] = &[
        (Fabs, F64, d::NZ, d::PZ, NONE),
        (Fabs, F64, d::NINF, d::INF, NONE),
        (Fabs, F64, 0xfff4_0000_0000_0000, d::SNAN, NONE), // no quieting, no flag
        (Fabs, F32, 0xbf80_0000, f::ONE, NONE),
        (SqrtInsn, F64, d::MONE, d::DNAN, INV),
        (SqrtInsn, F64, d::NZ, d::NZ, NONE),
        (SqrtInsn, F64, d::INF, d::INF, NONE),
        (SqrtInsn, F64, d::NINF, d::DNAN, INV),
        (SqrtInsn, F64, d::TWO, 0x3ff6_a09e_667f_3bcd, IE),
        (SqrtInsn, F64, 0x4010_0000_0000_0000, d::TWO, NONE),
        (SqrtInsn, F64, d::SNAN, d::SNAN_Q, INV),
        (SqrtInsn, F64, d::QNAN, d::QNAN, NONE),
        (SqrtInsn, F64, d::MIN_SUB, 0x1e60_0000_0000_0000, NONE),
        (SqrtInsn, F64, 0x8000_0000_0000_0001, d::DNAN, INV),
        (SqrtInsn, F32, f::TWO, 0x3fb5_04f3, IE),
        (SqrtInsn, F32, f::MONE, f::DNAN, INV),
        (SqrtInsn, F32, f::NZ, f::NZ, NONE),
        // Rounding functions: glibc calls on baseline x86-64 (no roundsd).
        (Floor, F64, 0x4004_0000_0000_0000, d::TWO, NONE),                       // 2.5
        (Floor, F64, 0xc004_0000_0000_0000, 0xc008_0000_0000_0000, NONE),        // -2.5
        (Floor, F64, 0xbfe0_0000_0000_0000, d::MONE, NONE),                      // -0.5
        (Floor, F64, d::NZ, d::NZ, NONE),
        (Floor, F64, d::SNAN, d::SNAN_Q, INV),
        (Ceil, F64, 0xbfe0_0000_0000_0000, d::NZ, NONE),
        (Ceil, F64, d::HALF, d::ONE, NONE),
        (Trunc, F64, 0xc004_0000_0000_0000, 0xc000_0000_0000_0000, NONE),
        (Trunc, F64, 0xbfe0_0000_0000_0000, d::NZ, NONE),
        (Round, F64, 0x4004_0000_0000_0000, d::THREE, NONE),                     // away from 0
        (Round, F64, 0xc004_0000_0000_0000, 0xc008_0000_0000_0000, NONE),
        (Round, F64, 0xbfe0_0000_0000_0000, d::MONE, NONE),
        (Round, F64, d::MONE, d::MONE, NONE),
        (Rint, F64, 0x4004_0000_0000_0000, d::TWO, IE),                          // rint: inexact
        (Rint, F64, 0xbfe0_0000_0000_0000, d::NZ, IE),
        (Rint, F64, d::MONE, d::MONE, NONE),
        (Rint, F64, d::SNAN, d::SNAN_Q, INV),
        (NearbyInt, F64, 0x4004_0000_0000_0000, d::TWO, NONE),                   // nearbyint: not
        (NearbyInt, F64, 0xbfe0_0000_0000_0000, d::NZ, NONE),
        (NearbyInt, F64, 0x400c_0000_0000_0000, 0x4010_0000_0000_0000, NONE),    // 3.5 → 4
        (RoundEven, F64, 0xc004_0000_0000_0000, 0xc000_0000_0000_0000, NONE),
        (Floor, F32, 0xc020_0000, 0xc040_0000, NONE),                            // -2.5f → -3
        (Rint, F32, 0x4020_0000, f::TWO, IE),
        (NearbyInt, F32, 0x4020_0000, f::TWO, NONE),
        (Round, F32, 0x3f00_0000, f::ONE, NONE),
    ];
    let mut errs = vec![];
    let mut dom = Concrete::new(FpMode::IEEE);
    for &(op, ty, a, want, fl) in rows {
        dom.clear();
        match dom.funary(op, ty, &a, SITE) {
            Ok(r) => check(
                &mut errs,
                format!("{op:?} {ty:?} {a:#x}"),
                &dom,
                r,
                want,
                fl,
            ),
            Err(e) => errs.push(format!("{op:?} {ty:?} {a:#x}: {e}")),
        }
    }
    finish(errs);
    assert!(matches!(
        dom.funary(FUnaryOp::RsqrtEstimateNewton, F32, &f::TWO, SITE),
        Err(WalkError::Unsupported { .. })
    ));
}

#[test]
fn binary_intrinsics_min_max_copysign() {
    use FBinaryOp::*;
    #[rustfmt::skip]
    let rows: &[(FBinaryOp, FloatTy, u64, u64, u64, &str)] = &[
        (MinNum, F64, d::ONE, d::TWO, d::ONE, NONE),
        (MaxNum, F64, d::ONE, d::TWO, d::TWO, NONE),
        // llvm.minnum on x86 is `minsd` + a NaN fix-up: the non-NaN operand comes back, but
        // minsd has already signalled INVALID on the quiet NaN.
        (MinNum, F64, d::QNAN, d::ONE, d::ONE, INV),
        (MinNum, F64, d::ONE, d::QNAN, d::ONE, INV),
        (MaxNum, F64, d::QNAN, d::ONE, d::ONE, INV),
        (MaxNum, F64, d::NINF, d::QNAN, d::NINF, INV),
        // Both NaN: the second operand. A signalling NaN is not quieted either.
        (MinNum, F64, d::QNAN, d::QNAN2, d::QNAN2, INV),
        (MinNum, F64, d::SNAN, d::ONE, d::ONE, INV),
        (MinNum, F64, d::ONE, d::SNAN, d::ONE, INV),
        // Equal zeros: the first operand.
        (MinNum, F64, d::PZ, d::NZ, d::PZ, NONE),
        (MinNum, F64, d::NZ, d::PZ, d::NZ, NONE),
        (MaxNum, F64, d::NZ, d::PZ, d::NZ, NONE),
        (MinNum, F32, f::QNAN, f::TWO, f::TWO, INV),
        (MaxNum, F32, f::ONE, f::TWO, f::TWO, NONE),
        // minsd/maxsd from select patterns: the second operand on NaN or equal zeros.
        (MinSse, F64, d::QNAN, d::ONE, d::ONE, INV),
        (MinSse, F64, d::ONE, d::QNAN, d::QNAN, INV),
        (MinSse, F64, d::PZ, d::NZ, d::NZ, NONE),
        (MaxSse, F64, d::PZ, d::NZ, d::NZ, NONE),
        (MaxSse, F64, d::ONE, d::TWO, d::TWO, NONE),
        (MinSse, F32, f::TWO, f::ONE, f::ONE, NONE),
        // copysign: bits only.
        (CopySign, F64, d::ONE, d::NZ, d::MONE, NONE),
        (CopySign, F64, d::SNAN, d::MONE, 0xfff4_0000_0000_0000, NONE),
        (CopySign, F64, d::NINF, d::QNAN, d::INF, NONE),
        (CopySign, F32, f::ONE, f::NINF, f::MONE, NONE),
    ];
    let mut errs = vec![];
    let mut dom = Concrete::new(FpMode::IEEE);
    for &(op, ty, a, b, want, fl) in rows {
        dom.clear();
        let r = dom.fbinary(op, ty, &a, &b, SITE).unwrap();
        check(
            &mut errs,
            format!("{op:?} {ty:?} {a:#x} {b:#x}"),
            &dom,
            r,
            want,
            fl,
        );
    }
    finish(errs);
}

#[test]
fn fma_single_rounding() {
    #[rustfmt::skip]
    let rows: &[(FloatTy, u64, u64, u64, u64, &str)] = &[
        // (1+2^-52)(1-2^-52) - 1 = -2^-104 exactly: fused keeps it.
        (F64, 0x3ff0_0000_0000_0001, 0x3fef_ffff_ffff_fffe, d::MONE, 0xb970_0000_0000_0000, NONE),
        // DBL_MAX·2 - DBL_MAX: no intermediate overflow.
        (F64, d::MAX, d::TWO, 0xffef_ffff_ffff_ffff, d::MAX, NONE),
        (F64, d::MIN, d::HALF, d::PZ, 0x0008_0000_0000_0000, NONE),
        (F64, d::BELOW_ONE, d::MIN, d::PZ, d::MIN, UF_IE),
        (F64, d::PZ, d::INF, d::ONE, d::DNAN, INV),
        (F64, d::INF, d::ONE, d::NINF, d::DNAN, INV),
        (F64, d::ONE, d::ONE, d::SNAN, d::SNAN_Q, INV),
        (F64, d::MAX, d::MAX, d::PZ, d::INF, OF_IE),
        (F32, 0x3f80_0001, 0x3f7f_fffe, f::MONE, 0xa880_0000, NONE),
        (F32, f::MAX, f::TWO, 0xff7f_ffff, f::MAX, NONE),
    ];
    let mut errs = vec![];
    let mut dom = Concrete::new(FpMode::IEEE);
    for &(ty, a, b, c, want, fl) in rows {
        dom.clear();
        let r = dom.fma(ty, &a, &b, &c, SITE).unwrap();
        check(
            &mut errs,
            format!("fma {ty:?} {a:#x} {b:#x} {c:#x}"),
            &dom,
            r,
            want,
            fl,
        );
    }
    // The unfused sequence (what fmuladd is on baseline x86-64) differs on the first two.
    dom.clear();
    let m = dom
        .fbin(
            FBinOp::FMul,
            F64,
            &0x3ff0_0000_0000_0001,
            &0x3fef_ffff_ffff_fffe,
            SITE,
        )
        .unwrap();
    let r = dom.fbin(FBinOp::FAdd, F64, &m, &d::MONE, SITE).unwrap();
    check(&mut errs, "unfused (1+e)(1-e)-1".into(), &dom, r, d::PZ, IE);
    dom.clear();
    let m = dom.fbin(FBinOp::FMul, F64, &d::MAX, &d::TWO, SITE).unwrap();
    let r = dom
        .fbin(FBinOp::FAdd, F64, &m, &0xffef_ffff_ffff_ffff, SITE)
        .unwrap();
    check(
        &mut errs,
        "unfused MAX*2-MAX".into(),
        &dom,
        r,
        d::INF,
        OF_IE,
    );
    finish(errs);
}

#[test]
fn libm_functions() {
    use MathFn::*;
    #[rustfmt::skip]
    let rows: &[(MathFn, FloatTy, &[u64], u64, &str)] = &[
        (Exp, F64, &[0x4086_3000_0000_0000], d::INF, OF_IE),                 // exp(710)
        (Exp, F64, &[0xc087_5000_0000_0000], d::PZ, UF_IE),                  // exp(-746)
        (Exp, F64, &[0xc087_2000_0000_0000], 0x0000_0000_0000_0055, UF_IE),  // exp(-740)
        (Exp, F64, &[d::PZ], d::ONE, NONE),
        (Exp, F64, &[d::NINF], d::PZ, NONE),
        (Log, F64, &[d::PZ], d::NINF, DZ),
        (Log, F64, &[d::NZ], d::NINF, DZ),
        (Log, F64, &[d::MONE], d::DNAN, INV),
        (Log, F64, &[d::ONE], d::PZ, NONE),
        (Log, F64, &[d::SNAN], d::SNAN_Q, INV),
        (Pow, F64, &[d::PZ, d::MONE], d::INF, DZ),
        (Pow, F64, &[d::NZ, d::MONE], d::NINF, DZ),
        (Pow, F64, &[d::MONE, d::HALF], d::DNAN, INV),
        (Pow, F64, &[d::QNAN, d::PZ], d::ONE, NONE),
        (Sqrt, F64, &[d::MONE], d::DNAN, INV),
        (Sqrt, F64, &[d::NZ], d::NZ, NONE),
        (Sqrt, F64, &[0x4010_0000_0000_0000], d::TWO, NONE),
        (Fmod, F64, &[d::ONE, d::PZ], d::DNAN, INV),
        (Exp, F32, &[0x42b2_0000], f::INF, OF_IE),                           // expf(89)
        (Log, F32, &[f::PZ], f::NINF, DZ),
        (Log, F32, &[f::MONE], f::DNAN, INV),
        (Sqrt, F32, &[f::MONE], f::DNAN, INV),
    ];
    let mut errs = vec![];
    let mut dom = Concrete::new(FpMode::IEEE);
    for &(func, ty, args, want, fl) in rows {
        dom.clear();
        match dom.math(func, ty, args, SITE) {
            Ok(r) => check(
                &mut errs,
                format!("{func:?} {ty:?} {args:x?}"),
                &dom,
                r,
                want,
                fl,
            ),
            Err(e) => errs.push(format!("{func:?} {ty:?} {args:x?}: {e}")),
        }
    }
    finish(errs);
    assert!(matches!(
        dom.math(Pow, F64, &[d::ONE], SITE),
        Err(WalkError::Unsupported { .. })
    ));
}

#[test]
fn integer_arithmetic() {
    use IBinOp::*;
    let mut dom = Concrete::new(FpMode::IEEE);
    #[rustfmt::skip]
    let rows: &[(IBinOp, u32, u64, u64, u64)] = &[
        (Add, 8, 0x7f, 1, 0x80),
        (Add, 64, u64::MAX, 1, 0),
        (Sub, 32, 0, 1, 0xffff_ffff),
        (Mul, 16, 0x100, 0x100, 0),
        (Mul, 64, 0x1_0000_0001, 0x1_0000_0001, 0x2_0000_0001),
        (UDiv, 32, 0xffff_fff9, 2, 0x7fff_fffc),
        (SDiv, 32, 0xffff_fff9, 2, 0xffff_fffd), // -7 / 2 = -3
        (SRem, 32, 0xffff_fff9, 2, 0xffff_ffff), // -7 % 2 = -1
        (URem, 8, 0xff, 0x10, 0x0f),
        (Shl, 32, 1, 31, 0x8000_0000),
        (LShr, 8, 0x80, 7, 1),
        (AShr, 8, 0x80, 7, 0xff),
        (AShr, 64, 0x8000_0000_0000_0000, 63, u64::MAX),
        (And, 32, 0xf0f0, 0xff00, 0xf000),
        (Or, 32, 0xf0f0, 0x0f00, 0xfff0),
        (Xor, 64, u64::MAX, 1, u64::MAX - 1),
        (SMax, 8, 0x80, 0x7f, 0x7f),
        (SMin, 8, 0x80, 0x7f, 0x80),
        (UMax, 8, 0x80, 0x7f, 0x80),
        (UMin, 8, 0x80, 0x7f, 0x7f),
    ];
    for &(op, w, a, b, want) in rows {
        assert_eq!(
            dom.ibin(op, w, &a, &b).unwrap(),
            want,
            "{op:?} i{w} {a:#x} {b:#x}"
        );
    }
    for op in [SDiv, UDiv, SRem, URem] {
        assert!(
            matches!(dom.ibin(op, 32, &5, &0), Err(WalkError::Trap { .. })),
            "{op:?} by zero traps"
        );
    }
    // INT_MIN / -1 raises #DE natively too.
    assert!(matches!(
        dom.ibin(SDiv, 32, &0x8000_0000, &0xffff_ffff),
        Err(WalkError::Trap { .. })
    ));
    use ICmpPred::*;
    let cmps: &[(ICmpPred, u64)] = &[
        (Eq, 0),
        (Ne, 1),
        (Ugt, 1),
        (Uge, 1),
        (Ult, 0),
        (Ule, 0),
        (Sgt, 0),
        (Sge, 0),
        (Slt, 1),
        (Sle, 1),
    ];
    for &(p, want) in cmps {
        assert_eq!(dom.icmp(p, 8, &0x80, &0x7f).unwrap(), want, "{p:?}");
    }
    assert_eq!(dom.iabs(8, &0x80).unwrap(), 0x80);
    assert_eq!(dom.iabs(32, &0xffff_fffb).unwrap(), 5);
    assert_eq!(dom.select(&1, &10, &20).unwrap(), 10);
    assert_eq!(dom.select(&0, &10, &20).unwrap(), 20);
    assert_eq!(dom.flags, ExceptionSet::EMPTY);
}
