//! x86-64 SSE instructions and glibc calls executed under an explicit MXCSR, returning the
//! result together with the IEEE flags the processor raised.
//!
//! Each primitive saves the caller's MXCSR, loads the requested one (flags cleared, FTZ/DAZ
//! as asked), executes exactly one instruction (or one libm call) and restores MXCSR, so
//! the results are the hardware's own and nothing else in the process is affected.

use std::arch::asm;

/// MXCSR at process start: all exceptions masked, round to nearest, no FTZ/DAZ.
pub const MXCSR_DEFAULT: u32 = 0x1f80;
pub const MXCSR_FTZ: u32 = 0x8000;
pub const MXCSR_DAZ: u32 = 0x0040;
/// The five IEEE flags (invalid, divide-by-zero, overflow, underflow, inexact).
pub const FLAG_MASK: u32 = 0x3d;

macro_rules! sse_binary {
    ($(#[$doc:meta])* $name:ident, $insn:literal, $t:ty) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(a: $t, b: $t, mxcsr: u32) -> ($t, u32) {
            let mut saved: u32 = 0;
            let mut flags: u32 = 0;
            let mut x = a;
            // SAFETY: only MXCSR and the named registers are touched; MXCSR is restored.
            unsafe {
                asm!(
                    "stmxcsr [{saved}]",
                    "ldmxcsr [{mode}]",
                    concat!($insn, " {x}, {y}"),
                    "stmxcsr [{flags}]",
                    "ldmxcsr [{saved}]",
                    saved = in(reg) &mut saved as *mut u32,
                    mode = in(reg) &mxcsr as *const u32,
                    flags = in(reg) &mut flags as *mut u32,
                    x = inout(xmm_reg) x,
                    y = in(xmm_reg) b,
                    options(nostack, preserves_flags),
                );
            }
            (x, flags & FLAG_MASK)
        }
    };
}

sse_binary!(addsd, "addsd", f64);
sse_binary!(subsd, "subsd", f64);
sse_binary!(mulsd, "mulsd", f64);
sse_binary!(divsd, "divsd", f64);
sse_binary!(addss, "addss", f32);
sse_binary!(subss, "subss", f32);
sse_binary!(mulss, "mulss", f32);
sse_binary!(divss, "divss", f32);
sse_binary!(
    /// `minsd a, b`: b when either is NaN or both are zero; signals on any NaN.
    minsd, "minsd", f64
);
sse_binary!(maxsd, "maxsd", f64);
sse_binary!(minss, "minss", f32);
sse_binary!(maxss, "maxss", f32);
sse_binary!(
    /// `sqrtsd x, y` computes sqrt(y) into x.
    sqrtsd_into, "sqrtsd", f64
);
sse_binary!(sqrtss_into, "sqrtss", f32);

pub fn sqrtsd(a: f64, mxcsr: u32) -> (f64, u32) {
    sqrtsd_into(a, a, mxcsr)
}

pub fn sqrtss(a: f32, mxcsr: u32) -> (f32, u32) {
    sqrtss_into(a, a, mxcsr)
}

// Conversions are written out one by one: register classes differ per direction.

/// `cvtsd2ss`: f64 → f32 with the current rounding, FTZ and DAZ.
pub fn cvtsd2ss(a: f64, mxcsr: u32) -> (f32, u32) {
    let (mut saved, mut flags) = (0u32, 0u32);
    let r: f32;
    // SAFETY: see module docs.
    unsafe {
        asm!(
            "stmxcsr [{saved}]", "ldmxcsr [{mode}]", "cvtsd2ss {r}, {a}", "stmxcsr [{flags}]", "ldmxcsr [{saved}]",
            saved = in(reg) &mut saved as *mut u32, mode = in(reg) &mxcsr as *const u32,
            flags = in(reg) &mut flags as *mut u32, r = out(xmm_reg) r, a = in(xmm_reg) a,
            options(nostack, preserves_flags),
        );
    }
    (r, flags & FLAG_MASK)
}

/// `cvtss2sd`: f32 → f64 (exact, but DAZ zeroes subnormal inputs and SNaN signals).
pub fn cvtss2sd(a: f32, mxcsr: u32) -> (f64, u32) {
    let (mut saved, mut flags) = (0u32, 0u32);
    let r: f64;
    // SAFETY: see module docs.
    unsafe {
        asm!(
            "stmxcsr [{saved}]", "ldmxcsr [{mode}]", "cvtss2sd {r}, {a}", "stmxcsr [{flags}]", "ldmxcsr [{saved}]",
            saved = in(reg) &mut saved as *mut u32, mode = in(reg) &mxcsr as *const u32,
            flags = in(reg) &mut flags as *mut u32, r = out(xmm_reg) r, a = in(xmm_reg) a,
            options(nostack, preserves_flags),
        );
    }
    (r, flags & FLAG_MASK)
}

macro_rules! cvtt {
    ($name:ident, $insn:literal, $from:ty, $to:ty, $reg:literal) => {
        /// Truncating conversion to a signed integer register (INVALID and the
        /// "integer indefinite" value when out of range or NaN).
        pub fn $name(a: $from, mxcsr: u32) -> ($to, u32) {
            let (mut saved, mut flags) = (0u32, 0u32);
            let r: $to;
            // SAFETY: see module docs.
            unsafe {
                asm!(
                    "stmxcsr [{saved}]", "ldmxcsr [{mode}]", concat!($insn, " {r", $reg, "}, {a}"),
                    "stmxcsr [{flags}]", "ldmxcsr [{saved}]",
                    saved = in(reg) &mut saved as *mut u32, mode = in(reg) &mxcsr as *const u32,
                    flags = in(reg) &mut flags as *mut u32, r = out(reg) r, a = in(xmm_reg) a,
                    options(nostack, preserves_flags),
                );
            }
            (r, flags & FLAG_MASK)
        }
    };
}

cvtt!(cvttsd2si32, "cvttsd2si", f64, i32, ":e");
cvtt!(cvttsd2si64, "cvttsd2si", f64, i64, "");
cvtt!(cvttss2si32, "cvttss2si", f32, i32, ":e");
cvtt!(cvttss2si64, "cvttss2si", f32, i64, "");

macro_rules! cvtsi {
    ($name:ident, $insn:literal, $from:ty, $to:ty, $reg:literal) => {
        /// Signed integer → float with the current rounding (INEXACT when rounded).
        pub fn $name(a: $from, mxcsr: u32) -> ($to, u32) {
            let (mut saved, mut flags) = (0u32, 0u32);
            let r: $to;
            // SAFETY: see module docs.
            unsafe {
                asm!(
                    "stmxcsr [{saved}]", "ldmxcsr [{mode}]", "xorps {r}, {r}", concat!($insn, " {r}, {a", $reg, "}"),
                    "stmxcsr [{flags}]", "ldmxcsr [{saved}]",
                    saved = in(reg) &mut saved as *mut u32, mode = in(reg) &mxcsr as *const u32,
                    flags = in(reg) &mut flags as *mut u32, r = out(xmm_reg) r, a = in(reg) a,
                    options(nostack, preserves_flags),
                );
            }
            (r, flags & FLAG_MASK)
        }
    };
}

cvtsi!(cvtsi2sd32, "cvtsi2sd", i32, f64, ":e");
cvtsi!(cvtsi2sd64, "cvtsi2sd", i64, f64, "");
cvtsi!(cvtsi2ss32, "cvtsi2ss", i32, f32, ":e");
cvtsi!(cvtsi2ss64, "cvtsi2ss", i64, f32, "");

/// Result of a scalar compare: `None` when unordered.
pub type Ordering = Option<std::cmp::Ordering>;

macro_rules! compare {
    ($name:ident, $insn:literal, $t:ty) => {
        pub fn $name(a: $t, b: $t, mxcsr: u32) -> (Ordering, u32) {
            let (mut saved, mut flags) = (0u32, 0u32);
            let (p, z, c): (u8, u8, u8);
            // SAFETY: see module docs; the compare writes EFLAGS, which we read right away.
            unsafe {
                asm!(
                    "stmxcsr [{saved}]", "ldmxcsr [{mode}]", concat!($insn, " {a}, {b}"),
                    "setp {p}", "setz {z}", "setc {c}",
                    "stmxcsr [{flags}]", "ldmxcsr [{saved}]",
                    saved = in(reg) &mut saved as *mut u32, mode = in(reg) &mxcsr as *const u32,
                    flags = in(reg) &mut flags as *mut u32, a = in(xmm_reg) a, b = in(xmm_reg) b,
                    p = out(reg_byte) p, z = out(reg_byte) z, c = out(reg_byte) c,
                    options(nostack),
                );
            }
            let ord = if p != 0 {
                None
            } else if z != 0 {
                Some(std::cmp::Ordering::Equal)
            } else if c != 0 {
                Some(std::cmp::Ordering::Less)
            } else {
                Some(std::cmp::Ordering::Greater)
            };
            (ord, flags & FLAG_MASK)
        }
    };
}

compare!(ucomisd, "ucomisd", f64);
compare!(comisd, "comisd", f64);
compare!(ucomiss, "ucomiss", f32);
compare!(comiss, "comiss", f32);

#[inline]
fn stmxcsr() -> u32 {
    let mut v: u32 = 0;
    // SAFETY: stores MXCSR into a local.
    unsafe {
        asm!("stmxcsr [{p}]", p = in(reg) &mut v as *mut u32, options(nostack, preserves_flags))
    };
    v
}

#[inline]
fn ldmxcsr(v: u32) {
    // SAFETY: loads a valid MXCSR value (callers pass saved or constructed values).
    unsafe {
        asm!("ldmxcsr [{p}]", p = in(reg) &v as *const u32, options(nostack, preserves_flags))
    };
}

/// x87 status word after clearing it first: glibc's `fetestexcept` also reads x87 flags.
#[inline]
fn fnclex() {
    // SAFETY: clears x87 exception flags only.
    unsafe { asm!("fnclex", options(nostack, preserves_flags)) };
}

#[inline]
fn fnstsw() -> u32 {
    let sw: u16;
    // SAFETY: reads the x87 status word.
    unsafe { asm!("fnstsw ax", out("ax") sw, options(nostack, preserves_flags)) };
    u32::from(sw)
}

/// Calls a C function under `mxcsr` and returns its result with the union of SSE and x87
/// flags it raised, as `fetestexcept(FE_ALL_EXCEPT)` would report them.
#[inline(never)]
pub fn with_flags<T>(mxcsr: u32, call: impl FnOnce() -> T) -> (T, u32) {
    let saved = stmxcsr();
    ldmxcsr(mxcsr);
    fnclex();
    let r = std::hint::black_box(call());
    let after = stmxcsr();
    let x87 = fnstsw();
    ldmxcsr(saved);
    fnclex();
    (r, (after | x87) & FLAG_MASK)
}

#[link(name = "m")]
extern "C" {
    fn sqrt(x: f64) -> f64;
    fn sqrtf(x: f32) -> f32;
    fn exp(x: f64) -> f64;
    fn expf(x: f32) -> f32;
    fn exp2(x: f64) -> f64;
    fn exp2f(x: f32) -> f32;
    fn log(x: f64) -> f64;
    fn logf(x: f32) -> f32;
    fn log2(x: f64) -> f64;
    fn log2f(x: f32) -> f32;
    fn log10(x: f64) -> f64;
    fn log10f(x: f32) -> f32;
    fn pow(x: f64, y: f64) -> f64;
    fn powf(x: f32, y: f32) -> f32;
    fn sin(x: f64) -> f64;
    fn sinf(x: f32) -> f32;
    fn cos(x: f64) -> f64;
    fn cosf(x: f32) -> f32;
    fn tan(x: f64) -> f64;
    fn tanf(x: f32) -> f32;
    fn atan(x: f64) -> f64;
    fn atanf(x: f32) -> f32;
    fn atan2(y: f64, x: f64) -> f64;
    fn atan2f(y: f32, x: f32) -> f32;
    fn sinh(x: f64) -> f64;
    fn sinhf(x: f32) -> f32;
    fn cosh(x: f64) -> f64;
    fn coshf(x: f32) -> f32;
    fn tanh(x: f64) -> f64;
    fn tanhf(x: f32) -> f32;
    fn hypot(x: f64, y: f64) -> f64;
    fn hypotf(x: f32, y: f32) -> f32;
    fn fmod(x: f64, y: f64) -> f64;
    fn fmodf(x: f32, y: f32) -> f32;
    fn asin(x: f64) -> f64;
    fn asinf(x: f32) -> f32;
    fn acos(x: f64) -> f64;
    fn acosf(x: f32) -> f32;
    fn expm1(x: f64) -> f64;
    fn expm1f(x: f32) -> f32;
    fn log1p(x: f64) -> f64;
    fn log1pf(x: f32) -> f32;
    fn cbrt(x: f64) -> f64;
    fn cbrtf(x: f32) -> f32;
    fn fma(x: f64, y: f64, z: f64) -> f64;
    fn fmaf(x: f32, y: f32, z: f32) -> f32;
    fn floor(x: f64) -> f64;
    fn floorf(x: f32) -> f32;
    fn ceil(x: f64) -> f64;
    fn ceilf(x: f32) -> f32;
    fn trunc(x: f64) -> f64;
    fn truncf(x: f32) -> f32;
    fn round(x: f64) -> f64;
    fn roundf(x: f32) -> f32;
    fn rint(x: f64) -> f64;
    fn rintf(x: f32) -> f32;
    fn nearbyint(x: f64) -> f64;
    fn nearbyintf(x: f32) -> f32;
    fn roundeven(x: f64) -> f64;
    fn roundevenf(x: f32) -> f32;
}

/// A glibc function of one or two arguments in both precisions.
#[derive(Clone, Copy)]
pub enum Libm {
    D1(unsafe extern "C" fn(f64) -> f64),
    F1(unsafe extern "C" fn(f32) -> f32),
    D2(unsafe extern "C" fn(f64, f64) -> f64),
    F2(unsafe extern "C" fn(f32, f32) -> f32),
}

/// Looks up the glibc entry point for a C name such as `exp` or `powf`.
pub fn libm(name: &str) -> Option<Libm> {
    use Libm::*;
    Some(match name {
        "sqrt" => D1(sqrt),
        "sqrtf" => F1(sqrtf),
        "exp" => D1(exp),
        "expf" => F1(expf),
        "exp2" => D1(exp2),
        "exp2f" => F1(exp2f),
        "log" => D1(log),
        "logf" => F1(logf),
        "log2" => D1(log2),
        "log2f" => F1(log2f),
        "log10" => D1(log10),
        "log10f" => F1(log10f),
        "pow" => D2(pow),
        "powf" => F2(powf),
        "sin" => D1(sin),
        "sinf" => F1(sinf),
        "cos" => D1(cos),
        "cosf" => F1(cosf),
        "tan" => D1(tan),
        "tanf" => F1(tanf),
        "atan" => D1(atan),
        "atanf" => F1(atanf),
        "atan2" => D2(atan2),
        "atan2f" => F2(atan2f),
        "sinh" => D1(sinh),
        "sinhf" => F1(sinhf),
        "cosh" => D1(cosh),
        "coshf" => F1(coshf),
        "tanh" => D1(tanh),
        "tanhf" => F1(tanhf),
        "hypot" => D2(hypot),
        "hypotf" => F2(hypotf),
        "fmod" => D2(fmod),
        "fmodf" => F2(fmodf),
        "asin" => D1(asin),
        "asinf" => F1(asinf),
        "acos" => D1(acos),
        "acosf" => F1(acosf),
        "expm1" => D1(expm1),
        "expm1f" => F1(expm1f),
        "log1p" => D1(log1p),
        "log1pf" => F1(log1pf),
        "cbrt" => D1(cbrt),
        "cbrtf" => F1(cbrtf),
        "floor" => D1(floor),
        "floorf" => F1(floorf),
        "ceil" => D1(ceil),
        "ceilf" => F1(ceilf),
        "trunc" => D1(trunc),
        "truncf" => F1(truncf),
        "round" => D1(round),
        "roundf" => F1(roundf),
        "rint" => D1(rint),
        "rintf" => F1(rintf),
        "nearbyint" => D1(nearbyint),
        "nearbyintf" => F1(nearbyintf),
        "roundeven" => D1(roundeven),
        "roundevenf" => F1(roundevenf),
        _ => return None,
    })
}

/// Calls a glibc function on raw bits; returns result bits and flags.
pub fn call_libm(f: Libm, args: &[u64], mxcsr: u32) -> (u64, u32) {
    let d = |i: usize| f64::from_bits(args[i]);
    let s = |i: usize| f32::from_bits(args[i] as u32);
    // The function pointer goes through black_box so the compiler cannot recognise the
    // libm call and move or fold it across the MXCSR accesses.
    match std::hint::black_box(f) {
        // SAFETY: glibc math functions are pure C functions of their arguments.
        Libm::D1(g) => {
            let (r, fl) = with_flags(mxcsr, || unsafe { g(d(0)) });
            (r.to_bits(), fl)
        }
        Libm::F1(g) => {
            let (r, fl) = with_flags(mxcsr, || unsafe { g(s(0)) });
            (u64::from(r.to_bits()), fl)
        }
        Libm::D2(g) => {
            let (r, fl) = with_flags(mxcsr, || unsafe { g(d(0), d(1)) });
            (r.to_bits(), fl)
        }
        Libm::F2(g) => {
            let (r, fl) = with_flags(mxcsr, || unsafe { g(s(0), s(1)) });
            (u64::from(r.to_bits()), fl)
        }
    }
}

/// glibc `fma`/`fmaf` (software-exact on targets without the FMA extension).
pub fn call_fma(is_f32: bool, a: u64, b: u64, c: u64, mxcsr: u32) -> (u64, u32) {
    if is_f32 {
        let g = std::hint::black_box(fmaf as unsafe extern "C" fn(f32, f32, f32) -> f32);
        let (x, y, z) = (
            f32::from_bits(a as u32),
            f32::from_bits(b as u32),
            f32::from_bits(c as u32),
        );
        // SAFETY: pure C function.
        let (r, fl) = with_flags(mxcsr, || unsafe { g(x, y, z) });
        (u64::from(r.to_bits()), fl)
    } else {
        let g = std::hint::black_box(fma as unsafe extern "C" fn(f64, f64, f64) -> f64);
        let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        // SAFETY: pure C function.
        let (r, fl) = with_flags(mxcsr, || unsafe { g(x, y, z) });
        (r.to_bits(), fl)
    }
}
