//! Expected bits and flags of the arithmetic opcodes, shared by the direct domain tests and
//! the end-to-end `.ll` tests. Every row is (opcode, a, b, result, flags).

use super::{d, f};
use fpscout_ir::FBinOp::{self, *};
use fpscout_ir::{CastOp, FloatTy, ScalarTy};

pub type Row = (FBinOp, u64, u64, u64, &'static str);

pub const OF_IE: &str = "overflow,inexact";
pub const UF_IE: &str = "underflow,inexact";
pub const IE: &str = "inexact";
pub const INV: &str = "invalid";
pub const DZ: &str = "divbyzero";
pub const NONE: &str = "none";

pub const F64_ARITH: &[Row] = &[
    // --- fadd: signed zeros, subnormals, overflow boundary, NaNs ---
    (FAdd, d::PZ, d::NZ, d::PZ, NONE),
    (FAdd, d::NZ, d::NZ, d::NZ, NONE),
    (FAdd, d::NZ, d::PZ, d::PZ, NONE),
    (FAdd, d::ONE, d::MONE, d::PZ, NONE),
    (FAdd, d::MIN_SUB, d::MIN_SUB, 0x0000_0000_0000_0002, NONE),
    (FAdd, d::MAX_SUB, d::MIN_SUB, d::MIN, NONE),
    (FAdd, d::MAX, d::MAX, d::INF, OF_IE),
    // DBL_MAX + ulp/2 is a tie between DBL_MAX (odd) and 2^1024 (even): overflow.
    (FAdd, d::MAX, d::HALF_ULP_MAX, d::INF, OF_IE),
    // Just below the tie, or a quarter ulp: stays DBL_MAX, only inexact.
    (FAdd, d::MAX, 0x7c8f_ffff_ffff_ffff, d::MAX, IE),
    (FAdd, d::MAX, 0x7c80_0000_0000_0000, d::MAX, IE),
    (
        FAdd,
        0xffef_ffff_ffff_ffff,
        0xfc90_0000_0000_0000,
        d::NINF,
        OF_IE,
    ),
    (FAdd, d::INF, d::NINF, d::DNAN, INV),
    (FAdd, d::INF, d::MAX, d::INF, NONE),
    (FAdd, d::NINF, d::NINF, d::NINF, NONE),
    (FAdd, d::QNAN, d::ONE, d::QNAN, NONE),
    (FAdd, d::ONE, d::QNAN, d::QNAN, NONE),
    (FAdd, d::INF, d::QNAN, d::QNAN, NONE),
    (FAdd, d::SNAN, d::ONE, d::SNAN_Q, INV),
    (FAdd, d::ONE, d::SNAN, d::SNAN_Q, INV),
    // Two NaNs: the first operand wins (quieted), any SNaN signals.
    (FAdd, d::QNAN, d::SNAN, d::QNAN, INV),
    (FAdd, d::SNAN, d::QNAN, d::SNAN_Q, INV),
    (FAdd, d::QNAN2, d::QNAN, d::QNAN2, NONE),
    // 1 + 2^-53 ties to even (1.0); a hair more rounds up.
    (FAdd, d::ONE, 0x3ca0_0000_0000_0000, d::ONE, IE),
    (
        FAdd,
        d::ONE,
        0x3ca0_0000_0000_0001,
        0x3ff0_0000_0000_0001,
        IE,
    ),
    (
        FAdd,
        0x3fb9_9999_9999_999a,
        0x3fc9_9999_9999_999a,
        0x3fd3_3333_3333_3334,
        IE,
    ),
    // --- fsub ---
    (FSub, d::PZ, d::PZ, d::PZ, NONE),
    (FSub, d::NZ, d::PZ, d::NZ, NONE),
    (FSub, d::PZ, d::NZ, d::PZ, NONE),
    (FSub, d::NZ, d::NZ, d::PZ, NONE),
    (FSub, d::ONE, d::ONE, d::PZ, NONE),
    (FSub, d::INF, d::INF, d::DNAN, INV),
    (FSub, d::NINF, d::NINF, d::DNAN, INV),
    (FSub, d::INF, d::NINF, d::INF, NONE),
    (FSub, d::MIN, d::MIN_SUB, d::MAX_SUB, NONE),
    // An exact subnormal result is not an underflow.
    (FSub, 0x0010_0000_0000_0001, d::MIN, d::MIN_SUB, NONE),
    (FSub, 0xffef_ffff_ffff_ffff, d::MAX, d::NINF, OF_IE),
    (FSub, d::ONE, d::SNAN, d::SNAN_Q, INV),
    (FSub, d::QNAN, d::INF, d::QNAN, NONE),
    (FSub, d::ONE, 0x3c90_0000_0000_0000, d::ONE, IE),
    // --- fmul ---
    (FMul, d::PZ, d::NZ, d::NZ, NONE),
    (FMul, d::NZ, d::NZ, d::PZ, NONE),
    (FMul, d::PZ, d::INF, d::DNAN, INV),
    (FMul, d::INF, d::NZ, d::DNAN, INV),
    (FMul, d::NINF, d::NINF, d::INF, NONE),
    (FMul, d::MIN, d::HALF, 0x0008_0000_0000_0000, NONE),
    (
        FMul,
        0x8010_0000_0000_0000,
        d::HALF,
        0x8008_0000_0000_0000,
        NONE,
    ),
    (FMul, d::MIN_SUB, d::HALF, d::PZ, UF_IE),
    (FMul, d::MIN_SUB, d::Q3, d::MIN_SUB, UF_IE),
    (FMul, 0x8000_0000_0000_0001, d::HALF, d::NZ, UF_IE),
    // Tininess after rounding: (1-2^-53)·DBL_MIN is exact at 53 bits with unbounded
    // exponent and tiny, so rounding it up to DBL_MIN still underflows ...
    (FMul, d::BELOW_ONE, d::MIN, d::MIN, UF_IE),
    // ... while 0.75·(4/3·DBL_MIN) = DBL_MIN·(1-2^-54) rounds to DBL_MIN already with an
    // unbounded exponent: not tiny after rounding, no underflow on x86.
    (FMul, d::Q3, 0x0015_5555_5555_5555, d::MIN, IE),
    (FMul, d::MAX, d::TWO, d::INF, OF_IE),
    (FMul, d::MAX, 0xc000_0000_0000_0000, d::NINF, OF_IE),
    (FMul, d::MAX, d::ONE, d::MAX, NONE),
    (FMul, d::MAX, 0x3ff0_0000_0000_0001, d::INF, OF_IE),
    (FMul, d::MAX, d::BELOW_ONE, 0x7fef_ffff_ffff_fffe, IE),
    (FMul, d::SNAN, d::PZ, d::SNAN_Q, INV),
    (FMul, d::QNAN, d::INF, d::QNAN, NONE),
    (
        FMul,
        d::THREE,
        0x3fb9_9999_9999_999a,
        0x3fd3_3333_3333_3334,
        IE,
    ),
    (FMul, 0x3ff8_0000_0000_0000, d::TWO, d::THREE, NONE),
    // --- fdiv ---
    (FDiv, d::ONE, d::PZ, d::INF, DZ),
    (FDiv, d::ONE, d::NZ, d::NINF, DZ),
    (FDiv, d::MONE, d::PZ, d::NINF, DZ),
    (FDiv, d::MONE, d::NZ, d::INF, DZ),
    (FDiv, d::MIN_SUB, d::PZ, d::INF, DZ),
    (FDiv, d::PZ, d::PZ, d::DNAN, INV),
    (FDiv, d::NZ, d::PZ, d::DNAN, INV),
    (FDiv, d::INF, d::INF, d::DNAN, INV),
    (FDiv, d::NINF, d::INF, d::DNAN, INV),
    (FDiv, d::INF, d::PZ, d::INF, NONE),
    (FDiv, d::INF, d::NZ, d::NINF, NONE),
    (FDiv, d::PZ, d::ONE, d::PZ, NONE),
    (FDiv, d::NZ, d::INF, d::NZ, NONE),
    (FDiv, d::ONE, d::INF, d::PZ, NONE),
    (FDiv, d::QNAN, d::PZ, d::QNAN, NONE),
    (FDiv, d::PZ, d::SNAN, d::SNAN_Q, INV),
    (FDiv, d::ONE, d::THREE, 0x3fd5_5555_5555_5555, IE),
    (FDiv, d::MIN, d::THREE, 0x0005_5555_5555_5555, UF_IE),
    (FDiv, d::MAX, d::HALF, d::INF, OF_IE),
    (FDiv, d::ONE, d::MIN_SUB, d::INF, OF_IE),
    (FDiv, d::ONE, d::MAX, 0x0004_0000_0000_0000, UF_IE),
    (FDiv, d::MIN_SUB, d::TWO, d::PZ, UF_IE),
    (FDiv, d::MIN, d::TWO, 0x0008_0000_0000_0000, NONE),
    (FDiv, d::MIN_SUB, d::HALF, 0x0000_0000_0000_0002, NONE),
    // --- frem: x86 has no remainder instruction, the backend calls glibc fmod ---
    (FRem, 0x4014_0000_0000_0000, d::THREE, d::TWO, NONE),
    (
        FRem,
        0xc014_0000_0000_0000,
        d::THREE,
        0xc000_0000_0000_0000,
        NONE,
    ),
    (
        FRem,
        0x4016_0000_0000_0000,
        0xc000_0000_0000_0000,
        0x3ff8_0000_0000_0000,
        NONE,
    ),
    (FRem, d::ONE, d::PZ, d::DNAN, INV),
    (FRem, d::INF, d::ONE, d::DNAN, INV),
    (FRem, d::ONE, d::INF, d::ONE, NONE),
    (FRem, d::SNAN, d::THREE, d::SNAN_Q, INV),
    (
        FRem,
        0x0000_0000_0000_0003,
        0x0000_0000_0000_0002,
        d::MIN_SUB,
        NONE,
    ),
    (FRem, d::NZ, d::ONE, d::NZ, NONE),
    (FRem, d::QNAN, d::ONE, d::QNAN, NONE),
];

pub const F32_ARITH: &[Row] = &[
    (FAdd, f::PZ, f::NZ, f::PZ, NONE),
    (FAdd, f::NZ, f::NZ, f::NZ, NONE),
    (FAdd, f::MIN_SUB, f::MIN_SUB, 0x0000_0002, NONE),
    (FAdd, f::MAX_SUB, f::MIN_SUB, f::MIN, NONE),
    (FAdd, f::MAX, f::MAX, f::INF, OF_IE),
    (FAdd, f::MAX, f::HALF_ULP_MAX, f::INF, OF_IE),
    (FAdd, f::MAX, 0x72ff_ffff, f::MAX, IE),
    (FAdd, f::INF, f::NINF, f::DNAN, INV),
    (FAdd, f::QNAN, f::ONE, f::QNAN, NONE),
    (FAdd, f::ONE, f::QNAN, f::QNAN, NONE),
    (FAdd, f::SNAN, f::ONE, f::SNAN_Q, INV),
    (FAdd, f::QNAN, f::SNAN, f::QNAN, INV),
    (FAdd, f::QNAN2, f::QNAN, f::QNAN2, NONE),
    (FAdd, f::ONE, 0x3380_0000, f::ONE, IE),
    (FAdd, 0x3dcc_cccd, 0x3e4c_cccd, 0x3e99_999a, IE),
    (FSub, f::INF, f::INF, f::DNAN, INV),
    (FSub, 0x0080_0001, f::MIN, f::MIN_SUB, NONE),
    (FSub, f::ONE, f::ONE, f::PZ, NONE),
    (FSub, f::NZ, f::PZ, f::NZ, NONE),
    (FMul, f::PZ, f::INF, f::DNAN, INV),
    (FMul, f::MIN, f::HALF, 0x0040_0000, NONE),
    (FMul, f::MIN_SUB, f::HALF, f::PZ, UF_IE),
    (FMul, f::BELOW_ONE, f::MIN, f::MIN, UF_IE),
    // Exact product FLT_MIN·(1 - 2.98e-8) ∈ [FLT_MIN·(1-2^-25), FLT_MIN): not tiny after
    // rounding.
    (FMul, 0x3f7f_0040, 0x0080_8060, f::MIN, IE),
    (FMul, f::MAX, f::TWO, f::INF, OF_IE),
    (FMul, f::NZ, f::ONE, f::NZ, NONE),
    (FDiv, f::ONE, f::PZ, f::INF, DZ),
    (FDiv, f::ONE, f::NZ, f::NINF, DZ),
    (FDiv, f::MONE, f::NZ, f::INF, DZ),
    (FDiv, f::PZ, f::PZ, f::DNAN, INV),
    (FDiv, f::INF, f::INF, f::DNAN, INV),
    (FDiv, f::ONE, f::THREE, 0x3eaa_aaab, IE),
    (FDiv, f::MIN, f::THREE, 0x002a_aaab, UF_IE),
    (FDiv, f::ONE, f::MIN_SUB, f::INF, OF_IE),
    (FDiv, f::ONE, f::MAX, 0x0020_0000, UF_IE),
    (FRem, 0x40a0_0000, f::THREE, f::TWO, NONE),
    (FRem, f::ONE, f::PZ, f::DNAN, INV),
    (FRem, f::QNAN, f::ONE, f::QNAN, NONE),
];

/// Values `fneg` is applied to (it only flips the sign bit, even of a signalling NaN).
pub const F64_NEG: &[u64] = &[
    d::PZ,
    d::NZ,
    d::ONE,
    d::MIN_SUB,
    d::MAX,
    d::INF,
    d::NINF,
    d::QNAN,
    d::SNAN,
    d::DNAN,
];
pub const F32_NEG: &[u64] = &[
    f::PZ,
    f::NZ,
    f::ONE,
    f::MIN_SUB,
    f::MAX,
    f::INF,
    f::QNAN,
    f::SNAN,
];

pub type CastRow = (CastOp, ScalarTy, ScalarTy, u64, u64, &'static str);

pub const I8: ScalarTy = ScalarTy::Int(8);
pub const I16: ScalarTy = ScalarTy::Int(16);
pub const I32: ScalarTy = ScalarTy::Int(32);
pub const I64: ScalarTy = ScalarTy::Int(64);
pub const SF32: ScalarTy = ScalarTy::Float(FloatTy::F32);
pub const SF64: ScalarTy = ScalarTy::Float(FloatTy::F64);

#[rustfmt::skip]
pub const CASTS: &[CastRow] = {
    use CastOp::*;
    &[
        // sitofp: narrow integers are sign-extended.
        (SIToFP, I8, SF64, 0x80, 0xc060_0000_0000_0000, NONE),
        (SIToFP, I8, SF32, 0x80, 0xc300_0000, NONE),
        (SIToFP, I8, SF64, 0x7f, 0x405f_c000_0000_0000, NONE),
        (SIToFP, I16, SF64, 0x8000, 0xc0e0_0000_0000_0000, NONE),
        (SIToFP, I16, SF32, 0xffff, f::MONE, NONE),
        (SIToFP, I32, SF64, 0x8000_0000, 0xc1e0_0000_0000_0000, NONE),
        (SIToFP, I32, SF32, 0x8000_0000, 0xcf00_0000, NONE),
        (SIToFP, I32, SF64, 0x7fff_ffff, 0x41df_ffff_ffc0_0000, NONE),
        (SIToFP, I32, SF32, 0x7fff_ffff, 0x4f00_0000, IE),
        (SIToFP, I32, SF32, 0x0100_0001, 0x4b80_0000, IE),
        (SIToFP, I32, SF64, 0x0100_0001, 0x4170_0000_1000_0000, NONE),
        (SIToFP, I64, SF64, 0x8000_0000_0000_0000, 0xc3e0_0000_0000_0000, NONE),
        (SIToFP, I64, SF32, 0x8000_0000_0000_0000, 0xdf00_0000, NONE),
        (SIToFP, I64, SF64, 0x7fff_ffff_ffff_ffff, d::P2_63, IE),
        (SIToFP, I64, SF32, 0x7fff_ffff_ffff_ffff, 0x5f00_0000, IE),
        (SIToFP, I64, SF64, 0x0020_0000_0000_0001, 0x4340_0000_0000_0000, IE),
        (SIToFP, I64, SF64, 0xffff_ffff_ffff_ffff, d::MONE, NONE),
        (SIToFP, I64, SF64, 0, d::PZ, NONE),
        // uitofp
        (UIToFP, I8, SF64, 0xff, 0x406f_e000_0000_0000, NONE),
        (UIToFP, I16, SF64, 0xffff, 0x40ef_ffe0_0000_0000, NONE),
        (UIToFP, I16, SF32, 0xffff, 0x477f_ff00, NONE),
        (UIToFP, I32, SF64, 0xffff_ffff, 0x41ef_ffff_ffe0_0000, NONE),
        (UIToFP, I32, SF32, 0xffff_ffff, 0x4f80_0000, IE),
        (UIToFP, I64, SF64, 0xffff_ffff_ffff_ffff, 0x43f0_0000_0000_0000, IE),
        (UIToFP, I64, SF32, 0xffff_ffff_ffff_ffff, 0x5f80_0000, IE),
        (UIToFP, I64, SF64, 0x8000_0000_0000_0000, d::P2_63, NONE),
        (UIToFP, I64, SF32, 0x8000_0000_0000_0000, 0x5f00_0000, NONE),
        (UIToFP, I64, SF64, 0x8000_0000_0000_0001, d::P2_63, IE),
        // 2^63 + 1025: above the half-way point thanks to the sticky bit of the halving.
        (UIToFP, I64, SF64, 0x8000_0000_0000_0401, 0x43e0_0000_0000_0001, IE),
        // 2^63 + 3072: a tie, to even.
        (UIToFP, I64, SF64, 0x8000_0000_0000_0c00, 0x43e0_0000_0000_0002, IE),
        (UIToFP, I64, SF32, 0x8000_0080_0000_0000, 0x5f00_0000, IE),
        (UIToFP, I64, SF64, 0x0020_0000_0000_0001, 0x4340_0000_0000_0000, IE),
        // fptosi: up to 32 bits via the 32-bit cvtt and truncation.
        (FPToSI, SF64, I32, 0x41df_ffff_ffc0_0000, 0x7fff_ffff, NONE),
        (FPToSI, SF64, I32, 0x41e0_0000_0000_0000, 0x8000_0000, INV),
        (FPToSI, SF64, I32, 0xc1e0_0000_0000_0000, 0x8000_0000, NONE),
        (FPToSI, SF64, I32, 0xc1e0_0000_0010_0000, 0x8000_0000, IE),
        (FPToSI, SF64, I32, 0xc1e0_0000_0020_0000, 0x8000_0000, INV),
        (FPToSI, SF64, I32, d::QNAN, 0x8000_0000, INV),
        (FPToSI, SF64, I32, d::INF, 0x8000_0000, INV),
        (FPToSI, SF64, I32, d::NZ, 0, NONE),
        (FPToSI, SF64, I32, 0x3ff8_0000_0000_0000, 1, IE),
        (FPToSI, SF64, I32, 0xbff8_0000_0000_0000, 0xffff_ffff, IE),
        (FPToSI, SF64, I8, 0x405f_f999_9999_999a, 0x7f, IE),
        (FPToSI, SF64, I8, 0x4072_c000_0000_0000, 0x2c, NONE), // 300.0 → 300 & 0xff
        (FPToSI, SF64, I8, 0xc060_2000_0000_0000, 0x7f, NONE), // -129.0
        (FPToSI, SF64, I8, d::QNAN, 0, INV),
        (FPToSI, SF64, I8, 0x4202_a05f_2000_0000, 0, INV), // 1e10
        (FPToSI, SF64, I16, 0x40e3_8800_0000_0000, 0x9c40, NONE), // 40000.0
        (FPToSI, SF64, I64, d::P2_63, 0x8000_0000_0000_0000, INV),
        (FPToSI, SF64, I64, 0xc3e0_0000_0000_0000, 0x8000_0000_0000_0000, NONE),
        (FPToSI, SF64, I64, 0x43df_ffff_ffff_ffff, 0x7fff_ffff_ffff_fc00, NONE),
        (FPToSI, SF64, I64, d::SNAN, 0x8000_0000_0000_0000, INV),
        (FPToSI, SF32, I32, 0x4f00_0000, 0x8000_0000, INV),
        (FPToSI, SF32, I32, 0xcf00_0000, 0x8000_0000, NONE),
        (FPToSI, SF32, I64, 0x5f00_0000, 0x8000_0000_0000_0000, INV),
        (FPToSI, SF32, I16, f::MONE, 0xffff, NONE),
        // fptoui below 32 bits: 32-bit signed cvtt, truncated.
        (FPToUI, SF64, I8, 0x406f_e000_0000_0000, 0xff, NONE),
        (FPToUI, SF64, I8, 0x4070_0000_0000_0000, 0, NONE), // 256.0
        (FPToUI, SF64, I8, d::MONE, 0xff, NONE),
        (FPToUI, SF64, I16, 0x40f0_0000_0000_0000, 0, NONE), // 65536.0
        // fptoui i32: the 64-bit cvtt, truncated: 2^32 and -1 raise nothing.
        (FPToUI, SF64, I32, 0x41ef_ffff_ffe0_0000, 0xffff_ffff, NONE),
        (FPToUI, SF64, I32, 0x41f0_0000_0000_0000, 0, NONE),
        (FPToUI, SF64, I32, d::MONE, 0xffff_ffff, NONE),
        (FPToUI, SF64, I32, d::QNAN, 0, INV),
        (FPToUI, SF64, I32, 0x43e1_58e4_6091_3d00, 0, INV), // 1e19
        (FPToUI, SF32, I32, 0x4f80_0000, 0, NONE),
        // fptoui i64: cvtt(x) and cvtt(x - 2^63) both run.
        (FPToUI, SF64, I64, d::ONE, 1, IE), // 1 - 2^63 rounds
        (FPToUI, SF64, I64, d::PZ, 0, NONE),
        (FPToUI, SF64, I64, 0x43d0_0000_0000_0000, 0x4000_0000_0000_0000, NONE),
        (FPToUI, SF64, I64, d::P2_63, 0x8000_0000_0000_0000, INV),
        (FPToUI, SF64, I64, 0x43ef_ffff_ffff_ffff, 0xffff_ffff_ffff_f800, INV),
        (FPToUI, SF64, I64, d::MONE, 0xffff_ffff_ffff_ffff, IE),
        (FPToUI, SF64, I64, d::QNAN, 0x8000_0000_0000_0000, INV),
        (FPToUI, SF64, I64, 0x4415_af1d_78b5_8c40, 0x8000_0000_0000_0000, INV), // 1e20
        (FPToUI, SF32, I64, f::ONE, 1, IE),
        (FPToUI, SF32, I64, 0x5f00_0000, 0x8000_0000_0000_0000, INV),
        (FPToUI, SF32, I64, 0x5f7f_ffff, 0xffff_ff00_0000_0000, INV),
        // fpext: exact; a signalling NaN signals and is quieted, payloads move up.
        (FPExt, SF32, SF64, f::SNAN, d::SNAN_Q, INV),
        (FPExt, SF32, SF64, f::QNAN, 0x7ff8_0024_6000_0000, NONE),
        (FPExt, SF32, SF64, f::MIN_SUB, 0x36a0_0000_0000_0000, NONE),
        (FPExt, SF32, SF64, f::NZ, d::NZ, NONE),
        (FPExt, SF32, SF64, f::NINF, d::NINF, NONE),
        (FPExt, SF32, SF64, f::MAX, 0x47ef_ffff_e000_0000, NONE),
        // fptrunc
        (FPTrunc, SF64, SF32, 0x7e37_e43c_8800_759c, f::INF, OF_IE), // 1e300
        (FPTrunc, SF64, SF32, 0xfe37_e43c_8800_759c, f::NINF, OF_IE),
        (FPTrunc, SF64, SF32, 0x47ef_ffff_f000_0000, f::INF, OF_IE), // FLT_MAX + ulp/2
        (FPTrunc, SF64, SF32, 0x47ef_ffff_efff_ffff, f::MAX, IE),
        (FPTrunc, SF64, SF32, 0x3fb9_9999_9999_999a, 0x3dcc_cccd, IE), // 0.1
        (FPTrunc, SF64, SF32, d::ONE, f::ONE, NONE),
        (FPTrunc, SF64, SF32, 0x36a0_0000_0000_0000, f::MIN_SUB, NONE),
        (FPTrunc, SF64, SF32, 0x3690_0000_0000_0000, f::PZ, UF_IE), // 2^-150 ties to 0
        (FPTrunc, SF64, SF32, 0x3698_0000_0000_0000, f::MIN_SUB, UF_IE),
        (FPTrunc, SF64, SF32, 0x380f_ffff_f000_0000, f::MIN, IE), // not tiny after rounding
        (FPTrunc, SF64, SF32, 0x380f_ffff_e000_0000, f::MIN, UF_IE),
        (FPTrunc, SF64, SF32, 0x01a5_6e1f_c2f8_f359, f::PZ, UF_IE), // 1e-300
        (FPTrunc, SF64, SF32, d::QNAN, 0x7fc0_0000, NONE), // low payload bits dropped
        (FPTrunc, SF64, SF32, 0x7ff8_0000_e000_0000, 0x7fc0_0007, NONE),
        (FPTrunc, SF64, SF32, d::SNAN, f::SNAN_Q, INV),
        (FPTrunc, SF64, SF32, d::NZ, f::NZ, NONE),
    ]
};
