//! x86-64 SSE instructions and glibc calls executed under an explicit MXCSR, returning the
//! result together with the IEEE flags the processor raised.
//!
//! Each primitive saves the caller's MXCSR, loads the requested one (flags cleared, FTZ/DAZ
//! as asked), executes exactly one instruction (or one libm call) and restores MXCSR, so
//! the results are the hardware's own and nothing else in the process is affected.

use fpscout_ir::{FUnaryOp, MathFn, OutMathFn, OutSlot};
use std::arch::asm;

/// MXCSR at process start: all exceptions masked, round to nearest, no FTZ/DAZ.
pub const MXCSR_DEFAULT: u32 = 0x1f80;
pub const MXCSR_FTZ: u32 = 0x8000;
pub const MXCSR_DAZ: u32 = 0x0040;
/// The rounding-control field (00 nearest, 01 down, 10 up, 11 toward zero).
pub const MXCSR_ROUNDING: u32 = 0x6000;
/// The five IEEE flags (invalid, divide-by-zero, overflow, underflow, inexact).
pub const FLAG_MASK: u32 = 0x3d;

/// Where a primitive runs: `Isolated` saves the caller's MXCSR, loads the given one (flags
/// cleared), executes and restores; `Active` runs under the MXCSR a walk has already loaded
/// (see `Concrete::begin_walk`) and returns the sticky MXCSR after the instruction;
/// `Unchecked` runs there too but returns no flags (0): the caller reads the sticky union
/// once at the end, which lets independent instructions overlap. glibc calls return the
/// x87 flags they raised in `Unchecked` (see [`with_flags`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Env {
    Isolated(u32),
    Active,
    Unchecked,
}

/// Runs one SSE instruction template under `env` and returns the MXCSR flags after it.
macro_rules! sse {
    ($env:expr, $insn:literal, $($ops:tt)*) => {{
        let mut flags: u32 = 0;
        match $env {
            // SAFETY: only MXCSR and the named registers are touched; MXCSR is restored.
            Env::Isolated(mode) => unsafe {
                let mut saved: u32 = 0;
                asm!(
                    "stmxcsr [{saved}]",
                    "ldmxcsr [{mode}]",
                    $insn,
                    "stmxcsr [{flags}]",
                    "ldmxcsr [{saved}]",
                    saved = in(reg) &mut saved as *mut u32,
                    mode = in(reg) &mode as *const u32,
                    flags = in(reg) &mut flags as *mut u32,
                    $($ops)*
                );
            },
            // SAFETY: as above; MXCSR was set up by the walk and is left as is.
            Env::Active => unsafe {
                asm!(
                    $insn,
                    "stmxcsr [{flags}]",
                    flags = in(reg) &mut flags as *mut u32,
                    $($ops)*
                );
            },
            // SAFETY: as above, and MXCSR is not even read.
            Env::Unchecked => unsafe {
                asm!($insn, $($ops)*);
            },
        }
        flags
    }};
}

macro_rules! sse_binary {
    ($(#[$doc:meta])* $name:ident, $insn:literal, $t:ty) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(a: $t, b: $t, env: Env) -> ($t, u32) {
            let mut x = a;
            let flags = sse!(env, $insn, x = inout(xmm_reg) x, y = in(xmm_reg) b, options(nostack, preserves_flags));
            (x, flags)
        }
    };
}

sse_binary!(addsd, "addsd {x}, {y}", f64);
sse_binary!(subsd, "subsd {x}, {y}", f64);
sse_binary!(mulsd, "mulsd {x}, {y}", f64);
sse_binary!(divsd, "divsd {x}, {y}", f64);
sse_binary!(addss, "addss {x}, {y}", f32);
sse_binary!(subss, "subss {x}, {y}", f32);
sse_binary!(mulss, "mulss {x}, {y}", f32);
sse_binary!(divss, "divss {x}, {y}", f32);
sse_binary!(
    /// `minsd a, b`: b when either is NaN or both are zero; signals on any NaN.
    minsd, "minsd {x}, {y}", f64
);
sse_binary!(maxsd, "maxsd {x}, {y}", f64);
sse_binary!(minss, "minss {x}, {y}", f32);
sse_binary!(maxss, "maxss {x}, {y}", f32);
sse_binary!(
    /// `sqrtsd x, y` computes sqrt(y) into x.
    sqrtsd_into, "sqrtsd {x}, {y}", f64
);
sse_binary!(sqrtss_into, "sqrtss {x}, {y}", f32);

#[inline]
pub fn sqrtsd(a: f64, env: Env) -> (f64, u32) {
    sqrtsd_into(a, a, env)
}

#[inline]
pub fn sqrtss(a: f32, env: Env) -> (f32, u32) {
    sqrtss_into(a, a, env)
}

/// `cvtsd2ss`: f64 → f32 with the current rounding, FTZ and DAZ.
#[inline]
pub fn cvtsd2ss(a: f64, env: Env) -> (f32, u32) {
    let r: f32;
    let flags = sse!(env, "cvtsd2ss {r}, {a}", r = out(xmm_reg) r, a = in(xmm_reg) a, options(nostack, preserves_flags));
    (r, flags)
}

/// `cvtss2sd`: f32 → f64 (exact, but DAZ zeroes subnormal inputs and SNaN signals).
#[inline]
pub fn cvtss2sd(a: f32, env: Env) -> (f64, u32) {
    let r: f64;
    let flags = sse!(env, "cvtss2sd {r}, {a}", r = out(xmm_reg) r, a = in(xmm_reg) a, options(nostack, preserves_flags));
    (r, flags)
}

macro_rules! cvtt {
    ($name:ident, $insn:literal, $from:ty, $to:ty) => {
        /// Truncating conversion to a signed integer register (INVALID and the
        /// "integer indefinite" value when out of range or NaN).
        #[inline]
        pub fn $name(a: $from, env: Env) -> ($to, u32) {
            let r: $to;
            let flags = sse!(env, $insn, r = out(reg) r, a = in(xmm_reg) a, options(nostack, preserves_flags));
            (r, flags)
        }
    };
}

cvtt!(cvttsd2si32, "cvttsd2si {r:e}, {a}", f64, i32);
cvtt!(cvttsd2si64, "cvttsd2si {r}, {a}", f64, i64);
cvtt!(cvttss2si32, "cvttss2si {r:e}, {a}", f32, i32);
cvtt!(cvttss2si64, "cvttss2si {r}, {a}", f32, i64);

macro_rules! cvtsi {
    ($name:ident, $insn:literal, $from:ty, $to:ty) => {
        /// Signed integer → float with the current rounding (INEXACT when rounded).
        #[inline]
        pub fn $name(a: $from, env: Env) -> ($to, u32) {
            let r: $to;
            let flags = sse!(env, $insn, r = out(xmm_reg) r, a = in(reg) a, options(nostack, preserves_flags));
            (r, flags)
        }
    };
}

cvtsi!(cvtsi2sd32, "xorps {r}, {r}\ncvtsi2sd {r}, {a:e}", i32, f64);
cvtsi!(cvtsi2sd64, "xorps {r}, {r}\ncvtsi2sd {r}, {a}", i64, f64);
cvtsi!(cvtsi2ss32, "xorps {r}, {r}\ncvtsi2ss {r}, {a:e}", i32, f32);
cvtsi!(cvtsi2ss64, "xorps {r}, {r}\ncvtsi2ss {r}, {a}", i64, f32);

/// Result of a scalar compare: `None` when unordered.
pub type Ordering = Option<std::cmp::Ordering>;

macro_rules! compare {
    ($name:ident, $insn:literal, $t:ty) => {
        #[inline]
        pub fn $name(a: $t, b: $t, env: Env) -> (Ordering, u32) {
            let (p, z, c): (u8, u8, u8);
            let flags = sse!(
                env,
                $insn,
                a = in(xmm_reg) a,
                b = in(xmm_reg) b,
                p = out(reg_byte) p,
                z = out(reg_byte) z,
                c = out(reg_byte) c,
                options(nostack)
            );
            let ord = if p != 0 {
                None
            } else if z != 0 {
                Some(std::cmp::Ordering::Equal)
            } else if c != 0 {
                Some(std::cmp::Ordering::Less)
            } else {
                Some(std::cmp::Ordering::Greater)
            };
            (ord, flags)
        }
    };
}

compare!(
    ucomisd,
    "ucomisd {a}, {b}\nsetp {p}\nsetz {z}\nsetc {c}",
    f64
);
compare!(comisd, "comisd {a}, {b}\nsetp {p}\nsetz {z}\nsetc {c}", f64);
compare!(
    ucomiss,
    "ucomiss {a}, {b}\nsetp {p}\nsetz {z}\nsetc {c}",
    f32
);
compare!(comiss, "comiss {a}, {b}\nsetp {p}\nsetz {z}\nsetc {c}", f32);

#[inline]
pub fn stmxcsr() -> u32 {
    let mut v: u32 = 0;
    // SAFETY: stores MXCSR into a local.
    unsafe {
        asm!("stmxcsr [{p}]", p = in(reg) &mut v as *mut u32, options(nostack, preserves_flags))
    };
    v
}

#[inline]
pub fn ldmxcsr(v: u32) {
    // SAFETY: loads a valid MXCSR value (callers pass saved or constructed values).
    unsafe {
        asm!("ldmxcsr [{p}]", p = in(reg) &v as *const u32, options(nostack, preserves_flags))
    };
}

/// Clears the x87 exception flags, which glibc's `fetestexcept` reads too.
#[inline]
fn fnclex() {
    // SAFETY: clears x87 exception flags only.
    unsafe { asm!("fnclex", options(nostack, preserves_flags)) };
}

/// The x87 status word (its low bits are the exception flags, laid out as MXCSR's).
#[inline]
fn fnstsw() -> u32 {
    let sw: u16;
    // SAFETY: reads the x87 status word.
    unsafe { asm!("fnstsw ax", out("ax") sw, options(nostack, preserves_flags)) };
    u32::from(sw)
}

/// Calls a C function and returns its result with the union of SSE and x87 flags it
/// raised, as `fetestexcept(FE_ALL_EXCEPT)` would report them. `Isolated` loads the mode
/// (flags clear) and restores the caller's MXCSR; `Active` relies on the walk's invariant
/// that MXCSR already holds the mode with no flag worth attributing set (loading MXCSR
/// costs ~100 ns whenever its value changes); `Unchecked` returns only the x87 flags (the
/// SSE ones stay sticky in MXCSR for the caller's one read at the end: reading MXCSR
/// waits for the call's last instruction, which keeps independent calls from overlapping).
#[inline(never)]
pub fn with_flags<T>(env: Env, call: impl FnOnce() -> T) -> (T, u32) {
    let saved = match env {
        Env::Isolated(mxcsr) => {
            let saved = stmxcsr();
            ldmxcsr(mxcsr);
            Some(saved)
        }
        Env::Active | Env::Unchecked => None,
    };
    // `fnclex` is microcoded and slow, reading the status word is not: clear only flags
    // that are set (rarely: glibc's x86-64 functions compute in SSE).
    if fnstsw() & FLAG_MASK != 0 {
        fnclex();
    }
    let r = std::hint::black_box(call());
    let after = if env == Env::Unchecked { 0 } else { stmxcsr() };
    let x87 = fnstsw() & FLAG_MASK;
    if let Some(saved) = saved {
        ldmxcsr(saved);
    }
    if x87 != 0 {
        fnclex();
    }
    (r, (after | x87) & FLAG_MASK)
}

/// glibc's libm, opened at run time. The functions are looked up with `dlsym` instead of
/// being declared `extern "C"`: Rust's `compiler_builtins` defines its own hidden `round`,
/// `floor`, `ceil`, `trunc`, `rint`, `roundeven`, `sqrt`, `fma`, `fmod`, ... in every Rust
/// binary, and the static linker binds an `extern "C"` declaration to those soft versions
/// rather than to libm.so. They differ from glibc in the flags they raise (its `round` is
/// `trunc(x + copysign(0.5 - ulp/4, x))` and raises INEXACT; glibc's `round@@GLIBC_2.2.5`
/// is integer code and raises nothing), while the native program calls glibc's
/// (`callq round@PLT` in clang's -O0 and -O3 code on baseline x86-64).
fn glibc_libm() -> Option<usize> {
    static HANDLE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let h = *HANDLE.get_or_init(|| {
        // SAFETY: dlopen with a constant NUL-terminated name; the handle is never closed.
        unsafe { libc::dlopen(c"libm.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) as usize }
    });
    (h != 0).then_some(h)
}

/// The address of a libm symbol in glibc's libm.so.6.
fn glibc_symbol(name: &str) -> Option<usize> {
    let handle = glibc_libm()?;
    let cname = std::ffi::CString::new(name).ok()?;
    // SAFETY: `handle` is a live dlopen handle and `cname` a NUL-terminated string.
    let p = unsafe { libc::dlsym(handle as *mut libc::c_void, cname.as_ptr()) };
    (!p.is_null()).then_some(p as usize)
}

/// A glibc function of one or two arguments in both precisions.
#[derive(Clone, Copy)]
pub enum Libm {
    D1(unsafe extern "C" fn(f64) -> f64),
    F1(unsafe extern "C" fn(f32) -> f32),
    D2(unsafe extern "C" fn(f64, f64) -> f64),
    F2(unsafe extern "C" fn(f32, f32) -> f32),
}

/// A glibc function the concrete domain calls: an elementary function (which includes
/// `fmod`, for `frem`) or one of the rounding functions the backend calls on baseline
/// x86-64, which has no `roundsd`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LibmFn {
    Math(MathFn),
    /// One of [`ROUNDING_FUNCTIONS`].
    Rounding(FUnaryOp),
}

/// The rounding operations computed by libm calls, with their C names.
const ROUNDING_FUNCTIONS: [(FUnaryOp, &str); 7] = [
    (FUnaryOp::Floor, "floor"),
    (FUnaryOp::Ceil, "ceil"),
    (FUnaryOp::Trunc, "trunc"),
    (FUnaryOp::Round, "round"),
    (FUnaryOp::Rint, "rint"),
    (FUnaryOp::NearbyInt, "nearbyint"),
    (FUnaryOp::RoundEven, "roundeven"),
];

impl LibmFn {
    /// The C name of the double variant (the float variant appends `f`).
    pub fn c_name(self) -> &'static str {
        match self {
            LibmFn::Math(m) => m.c_name(),
            LibmFn::Rounding(op) => ROUNDING_FUNCTIONS
                .iter()
                .find(|(o, _)| *o == op)
                .map_or("(not a libm function)", |(_, name)| name),
        }
    }

    fn arity(self) -> usize {
        match self {
            LibmFn::Math(m) => m.arity(),
            LibmFn::Rounding(_) => 1,
        }
    }

    /// The position in [`LibmFn::all`].
    fn index(self) -> Option<usize> {
        match self {
            LibmFn::Math(m) => Some(m as usize),
            LibmFn::Rounding(op) => ROUNDING_FUNCTIONS
                .iter()
                .position(|(o, _)| *o == op)
                .map(|i| MathFn::ALL.len() + i),
        }
    }

    fn all() -> impl Iterator<Item = LibmFn> {
        let math = MathFn::ALL.into_iter().map(LibmFn::Math);
        math.chain(
            ROUNDING_FUNCTIONS
                .into_iter()
                .map(|(op, _)| LibmFn::Rounding(op)),
        )
    }
}

/// The glibc entry point of `f`, or of its float variant (`expf`) when `single`.
#[inline]
pub fn libm(f: LibmFn, single: bool) -> Option<Libm> {
    // Indexed by `LibmFn::index`: a lookup per call costs one load.
    type Table = Vec<[Option<Libm>; 2]>;
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t: Table = vec![[None; 2]; LibmFn::all().count()];
        for f in LibmFn::all() {
            let base = f.c_name();
            for (sym, single) in [(base.to_string(), false), (format!("{base}f"), true)] {
                let Some(p) = glibc_symbol(&sym) else {
                    continue;
                };
                type D1 = unsafe extern "C" fn(f64) -> f64;
                type F1 = unsafe extern "C" fn(f32) -> f32;
                type D2 = unsafe extern "C" fn(f64, f64) -> f64;
                type F2 = unsafe extern "C" fn(f32, f32) -> f32;
                // SAFETY: glibc declares these symbols with exactly these C signatures.
                let entry = unsafe {
                    match (f.arity(), single) {
                        (1, false) => Libm::D1(std::mem::transmute::<usize, D1>(p)),
                        (1, true) => Libm::F1(std::mem::transmute::<usize, F1>(p)),
                        (_, false) => Libm::D2(std::mem::transmute::<usize, D2>(p)),
                        (_, true) => Libm::F2(std::mem::transmute::<usize, F2>(p)),
                    }
                };
                if let Some(i) = f.index() {
                    t[i][usize::from(single)] = Some(entry);
                }
            }
        }
        t
    });
    table.get(f.index()?)?[usize::from(single)]
}

/// Calls a glibc function on raw bits; returns result bits and flags.
pub fn call_libm(f: Libm, args: &[u64], env: Env) -> (u64, u32) {
    let d = |i: usize| f64::from_bits(args[i]);
    let s = |i: usize| f32::from_bits(args[i] as u32);
    // The function pointer goes through black_box so the compiler cannot recognise the
    // libm call and move or fold it across the MXCSR accesses.
    match std::hint::black_box(f) {
        // SAFETY: glibc math functions are pure C functions of their arguments.
        Libm::D1(g) => {
            let (r, fl) = with_flags(env, || unsafe { g(d(0)) });
            (r.to_bits(), fl)
        }
        Libm::F1(g) => {
            let (r, fl) = with_flags(env, || unsafe { g(s(0)) });
            (u64::from(r.to_bits()), fl)
        }
        Libm::D2(g) => {
            let (r, fl) = with_flags(env, || unsafe { g(d(0), d(1)) });
            (r.to_bits(), fl)
        }
        Libm::F2(g) => {
            let (r, fl) = with_flags(env, || unsafe { g(s(0), s(1)) });
            (u64::from(r.to_bits()), fl)
        }
    }
}

/// Calls a glibc function with output pointers ([`OutMathFn`]) on raw bits, its outputs
/// written to locals: returns the returned value's bits (0 for `sincos`), each output's
/// bits in parameter order (floats in `single`'s format, C `int`s zero-extended from 32
/// bits), `None` for an output glibc did not write (`remquo` leaves its quotient alone
/// when y = 0 or x is not finite), and the flags. `None` when glibc lacks the symbol.
///
/// Whether an output was written is seen by starting the locals at a sentinel; an output
/// still equal to it is checked by a second call (flags ignored) from another sentinel.
#[allow(clippy::type_complexity)]
pub fn call_libm_out(
    f: OutMathFn,
    single: bool,
    args: &[u64],
    env: Env,
) -> Option<(u64, [Option<u64>; 2], u32)> {
    type Table = Vec<[Option<usize>; 2]>;
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        OutMathFn::ALL
            .iter()
            .map(|g| {
                [
                    glibc_symbol(g.c_name(fpscout_ir::FloatTy::F64)),
                    glibc_symbol(g.c_name(fpscout_ir::FloatTy::F32)),
                ]
            })
            .collect()
    });
    let i = OutMathFn::ALL.iter().position(|&g| g == f)?;
    let p = table[i][usize::from(single)]?;
    let sentinel = |round: usize, slot: OutSlot| -> u64 {
        match (slot, single, round) {
            (OutSlot::I32, _, 0) => 0x5a5a_5a5a,
            (OutSlot::I32, _, _) => 0xa3c3_c3c3,
            (OutSlot::Float, false, 0) => 0x7ff4_dead_beef_0001,
            (OutSlot::Float, false, _) => 0xfff5_0bad_cafe_0002,
            (OutSlot::Float, true, 0) => 0x7fa0_dead,
            (OutSlot::Float, true, _) => 0xffb0_beef,
        }
    };
    let slots = f.outputs();
    let init = |round: usize| {
        let mut o = [0u64; 2];
        for (k, slot) in slots.iter().enumerate() {
            o[k] = sentinel(round, *slot);
        }
        o
    };
    let (r, outs, fl) = call_libm_out_raw(f, single, p, args, init(0), env);
    let mut result = [None; 2];
    let mut recheck = false;
    for (k, slot) in slots.iter().enumerate() {
        if outs[k] == sentinel(0, *slot) {
            recheck = true;
        } else {
            result[k] = Some(outs[k]);
        }
    }
    if recheck {
        let (_, again, _) = call_libm_out_raw(f, single, p, args, init(1), env);
        for (k, slot) in slots.iter().enumerate() {
            if result[k].is_none() && again[k] != sentinel(1, *slot) {
                result[k] = Some(outs[k]);
            }
        }
    }
    Some((r, result, fl))
}

/// One call of the glibc function at `p` (the symbol of `f`), outputs starting at `init`.
fn call_libm_out_raw(
    f: OutMathFn,
    single: bool,
    p: usize,
    args: &[u64],
    init: [u64; 2],
    env: Env,
) -> (u64, [u64; 2], u32) {
    let p = std::hint::black_box(p);
    let d = |i: usize| f64::from_bits(args[i]);
    let s = |i: usize| f32::from_bits(args[i] as u32);
    let int = |v: libc::c_int| u64::from(v as u32);
    let (d0, d1) = (f64::from_bits(init[0]), f64::from_bits(init[1]));
    let (s0, s1) = (
        f32::from_bits(init[0] as u32),
        f32::from_bits(init[1] as u32),
    );
    let i0 = init[0] as u32 as libc::c_int;
    type FnDP = extern "C" fn(f64, *mut f64) -> f64;
    type FnFP = extern "C" fn(f32, *mut f32) -> f32;
    type FnDI = extern "C" fn(f64, *mut libc::c_int) -> f64;
    type FnFI = extern "C" fn(f32, *mut libc::c_int) -> f32;
    type FnDDI = extern "C" fn(f64, f64, *mut libc::c_int) -> f64;
    type FnFFI = extern "C" fn(f32, f32, *mut libc::c_int) -> f32;
    type FnDPP = extern "C" fn(f64, *mut f64, *mut f64);
    type FnFPP = extern "C" fn(f32, *mut f32, *mut f32);
    // SAFETY (every arm): glibc declares these symbols with exactly these C signatures;
    // they are pure functions of their arguments that write only through their output
    // pointers, here locals that outlive the call.
    match (f, single) {
        (OutMathFn::Modf, false) => {
            let g = unsafe { std::mem::transmute::<usize, FnDP>(p) };
            let mut ip = d0;
            let (r, fl) = with_flags(env, || g(d(0), &mut ip));
            (r.to_bits(), [ip.to_bits(), 0], fl)
        }
        (OutMathFn::Modf, true) => {
            let g = unsafe { std::mem::transmute::<usize, FnFP>(p) };
            let mut ip = s0;
            let (r, fl) = with_flags(env, || g(s(0), &mut ip));
            (u64::from(r.to_bits()), [u64::from(ip.to_bits()), 0], fl)
        }
        (OutMathFn::Frexp | OutMathFn::LgammaR, false) => {
            let g = unsafe { std::mem::transmute::<usize, FnDI>(p) };
            let mut e = i0;
            let (r, fl) = with_flags(env, || g(d(0), &mut e));
            (r.to_bits(), [int(e), 0], fl)
        }
        (OutMathFn::Frexp | OutMathFn::LgammaR, true) => {
            let g = unsafe { std::mem::transmute::<usize, FnFI>(p) };
            let mut e = i0;
            let (r, fl) = with_flags(env, || g(s(0), &mut e));
            (u64::from(r.to_bits()), [int(e), 0], fl)
        }
        (OutMathFn::Remquo, false) => {
            let g = unsafe { std::mem::transmute::<usize, FnDDI>(p) };
            let mut q = i0;
            let (r, fl) = with_flags(env, || g(d(0), d(1), &mut q));
            (r.to_bits(), [int(q), 0], fl)
        }
        (OutMathFn::Remquo, true) => {
            let g = unsafe { std::mem::transmute::<usize, FnFFI>(p) };
            let mut q = i0;
            let (r, fl) = with_flags(env, || g(s(0), s(1), &mut q));
            (u64::from(r.to_bits()), [int(q), 0], fl)
        }
        (OutMathFn::Sincos, false) => {
            let g = unsafe { std::mem::transmute::<usize, FnDPP>(p) };
            let (mut sn, mut cs) = (d0, d1);
            let ((), fl) = with_flags(env, || g(d(0), &mut sn, &mut cs));
            (0, [sn.to_bits(), cs.to_bits()], fl)
        }
        (OutMathFn::Sincos, true) => {
            let g = unsafe { std::mem::transmute::<usize, FnFPP>(p) };
            let (mut sn, mut cs) = (s0, s1);
            let ((), fl) = with_flags(env, || g(s(0), &mut sn, &mut cs));
            (0, [u64::from(sn.to_bits()), u64::from(cs.to_bits())], fl)
        }
    }
}

/// glibc `fma`/`fmaf` (software-exact on targets without the FMA extension), looked up in
/// libm.so.6 for the reason given at [`glibc_libm`].
pub fn call_fma(is_f32: bool, a: u64, b: u64, c: u64, env: Env) -> (u64, u32) {
    type Fma = unsafe extern "C" fn(f64, f64, f64) -> f64;
    type Fmaf = unsafe extern "C" fn(f32, f32, f32) -> f32;
    static FMA: std::sync::OnceLock<(usize, usize)> = std::sync::OnceLock::new();
    let (pd, ps) = *FMA.get_or_init(|| {
        (
            glibc_symbol("fma").expect("glibc libm.so.6 provides fma"),
            glibc_symbol("fmaf").expect("glibc libm.so.6 provides fmaf"),
        )
    });
    if is_f32 {
        // SAFETY: glibc's fmaf has this signature.
        let g = std::hint::black_box(unsafe { std::mem::transmute::<usize, Fmaf>(ps) });
        let (x, y, z) = (
            f32::from_bits(a as u32),
            f32::from_bits(b as u32),
            f32::from_bits(c as u32),
        );
        // SAFETY: pure C function.
        let (r, fl) = with_flags(env, || unsafe { g(x, y, z) });
        (u64::from(r.to_bits()), fl)
    } else {
        // SAFETY: glibc's fma has this signature.
        let g = std::hint::black_box(unsafe { std::mem::transmute::<usize, Fma>(pd) });
        let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
        // SAFETY: pure C function.
        let (r, fl) = with_flags(env, || unsafe { g(x, y, z) });
        (r.to_bits(), fl)
    }
}
