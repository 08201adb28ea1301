//! libm functions as the process's glibc computes them, and sound enclosures of its results (MPFR, widened by glibc's published error bounds).
//
// glibc's elementary functions are not correctly rounded, and are not guaranteed to be
// monotone either. What the solver may rely on is an *enclosure*: for every float `x`,
// glibc's `f(x)` lies in `[lo(x), hi(x)]`, where `lo`/`hi` are the exact value rounded
// down/up (MPFR, directed rounding at a working precision, then directed rounding to the
// format), moved outward along the ordered line by a number of floats derived from
// glibc's documented maximal error. Both ends are monotone in `x` wherever the
// mathematical function is, which is what the projections (`project::libm`) need.
// The rounding functions (floor, ceil, trunc, round, rint) are exact in glibc: their
// enclosure is the single value glibc returns. Concrete values (`evaluate`, `check`)
// are glibc's own, called through `dlsym`: Rust's `compiler_builtins` defines its own
// `floor`, `round`… that an `extern "C"` declaration would bind to.

use crate::format::{FloatValue, Format, Fp};
use rug::float::Round;
use rug::Float;
use std::cmp::Ordering;

/// A libm function of one argument the solver models (binary32 and binary64 only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LibmFunction {
    Floor,
    Ceil,
    Trunc,
    /// `round`: halfway cases away from zero.
    Round,
    /// `rint`, `nearbyint` and `roundeven` under round-to-nearest: halfway cases to even.
    RoundEven,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sinh,
    Cosh,
    Tanh,
    Atan,
    Asin,
    Acos,
    Cbrt,
    Sin,
    Cos,
    Tan,
    Erf,
    Erfc,
    /// log |Γ(x)|.
    Lgamma,
    Tgamma,
    /// `modf`'s returned fractional part (the integral part is `Trunc`).
    ModfFraction,
    /// `frexp`'s returned significand, in [1/2, 1) with x's sign (x itself for zeros,
    /// infinities and NaN).
    FrexpSignificand,
}

/// glibc's maximal known error in ulps, x86_64, round-to-nearest: the larger of the
/// `double` and `float` entries of the "Errors in Math Functions" table of the glibc
/// manual (generated from `sysdeps/x86_64/fpu/libm-test-ulps`), at least 1 (entries the
/// table leaves out are within 1 ulp there). The exact functions (rounding, modf's and
/// frexp's parts) have 0. erf, erfc, lgamma and tgamma exceed the manual's entries on
/// this glibc (erfc 5.09 ulps, lgamma 10.8 in `bench/glibc`'s binary64 runs), so they
/// take about twice the largest error measured there (exhaustive binary32, searched
/// binary64).
const GLIBC_ULPS: [(LibmFunction, u32); 28] = [
    (LibmFunction::Floor, 0),
    (LibmFunction::Ceil, 0),
    (LibmFunction::Trunc, 0),
    (LibmFunction::Round, 0),
    (LibmFunction::RoundEven, 0),
    (LibmFunction::Exp, 1),
    (LibmFunction::Exp2, 1),
    (LibmFunction::Expm1, 1),
    (LibmFunction::Log, 1),
    (LibmFunction::Log2, 2),
    (LibmFunction::Log10, 2),
    (LibmFunction::Log1p, 1),
    (LibmFunction::Sinh, 2),
    (LibmFunction::Cosh, 2),
    (LibmFunction::Tanh, 2),
    (LibmFunction::Atan, 1),
    (LibmFunction::Asin, 1),
    (LibmFunction::Acos, 1),
    (LibmFunction::Cbrt, 4),
    (LibmFunction::Sin, 1),
    (LibmFunction::Cos, 1),
    (LibmFunction::Tan, 1),
    (LibmFunction::Erf, 2),
    (LibmFunction::Erfc, 8),
    (LibmFunction::Lgamma, 16),
    (LibmFunction::Tgamma, 16),
    (LibmFunction::ModfFraction, 0),
    (LibmFunction::FrexpSignificand, 0),
];

/// Which way a function goes on a monotone stretch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    Increasing,
    Decreasing,
}

impl LibmFunction {
    pub const ALL: [LibmFunction; 28] = [
        LibmFunction::Floor,
        LibmFunction::Ceil,
        LibmFunction::Trunc,
        LibmFunction::Round,
        LibmFunction::RoundEven,
        LibmFunction::Exp,
        LibmFunction::Exp2,
        LibmFunction::Expm1,
        LibmFunction::Log,
        LibmFunction::Log2,
        LibmFunction::Log10,
        LibmFunction::Log1p,
        LibmFunction::Sinh,
        LibmFunction::Cosh,
        LibmFunction::Tanh,
        LibmFunction::Atan,
        LibmFunction::Asin,
        LibmFunction::Acos,
        LibmFunction::Cbrt,
        LibmFunction::Sin,
        LibmFunction::Cos,
        LibmFunction::Tan,
        LibmFunction::Erf,
        LibmFunction::Erfc,
        LibmFunction::Lgamma,
        LibmFunction::Tgamma,
        LibmFunction::ModfFraction,
        LibmFunction::FrexpSignificand,
    ];

    /// The C name of the double variant (the float variant appends `f`).
    pub fn c_name(self) -> &'static str {
        match self {
            LibmFunction::Floor => "floor",
            LibmFunction::Ceil => "ceil",
            LibmFunction::Trunc => "trunc",
            LibmFunction::Round => "round",
            LibmFunction::RoundEven => "rint",
            LibmFunction::Exp => "exp",
            LibmFunction::Exp2 => "exp2",
            LibmFunction::Expm1 => "expm1",
            LibmFunction::Log => "log",
            LibmFunction::Log2 => "log2",
            LibmFunction::Log10 => "log10",
            LibmFunction::Log1p => "log1p",
            LibmFunction::Sinh => "sinh",
            LibmFunction::Cosh => "cosh",
            LibmFunction::Tanh => "tanh",
            LibmFunction::Atan => "atan",
            LibmFunction::Asin => "asin",
            LibmFunction::Acos => "acos",
            LibmFunction::Cbrt => "cbrt",
            LibmFunction::Sin => "sin",
            LibmFunction::Cos => "cos",
            LibmFunction::Tan => "tan",
            LibmFunction::Erf => "erf",
            LibmFunction::Erfc => "erfc",
            LibmFunction::Lgamma => "lgamma",
            LibmFunction::Tgamma => "tgamma",
            LibmFunction::ModfFraction => "modf",
            LibmFunction::FrexpSignificand => "frexp",
        }
    }

    /// Whether glibc's function also writes through a pointer (`modf`'s integral part,
    /// `frexp`'s exponent): called with a scratch output.
    fn writes_output(self) -> bool {
        matches!(
            self,
            LibmFunction::ModfFraction | LibmFunction::FrexpSignificand
        )
    }

    /// Whether glibc's result is the exact mathematical one (the rounding functions).
    pub fn is_exact(self) -> bool {
        self.glibc_ulps() == 0
    }

    /// glibc's documented maximal error in ulps (see [`GLIBC_ULPS`]).
    pub fn glibc_ulps(self) -> u32 {
        GLIBC_ULPS
            .iter()
            .find(|(f, _)| *f == self)
            .map_or(u32::MAX, |(_, ulps)| *ulps)
    }

    /// How many floats each end of an enclosure moves outward. An error of k ulps of the
    /// exact result can cross a power of two, below which floats are twice as dense,
    /// hence 2 floats per ulp; one more ulp is a safety margin over the published table.
    pub(crate) fn widening_steps(self) -> i64 {
        match self.glibc_ulps() {
            0 => 0,
            ulps => 2 * (i64::from(ulps) + 1),
        }
    }

    /// The finite arguments where the function is defined, as closed real bounds
    /// (outside it glibc returns NaN); `None` ends are unbounded.
    fn definition(self) -> (Option<f64>, Option<f64>) {
        match self {
            // log(-0) is -inf, not NaN: the bound is the signed zero, taken as a key.
            LibmFunction::Log | LibmFunction::Log2 | LibmFunction::Log10 => (Some(-0.0), None),
            LibmFunction::Log1p => (Some(-1.0), None),
            LibmFunction::Asin | LibmFunction::Acos => (Some(-1.0), Some(1.0)),
            _ => (None, None),
        }
    }

    /// Stretches of finite arguments, in order and disjoint, on each of which the
    /// function is monotone (real bounds, `None`: the format's finite end): sin and tan
    /// within ±1.5 < π/2, cos within ±3.14 < π turning at 0, cosh turning at 0, Γ and
    /// log |Γ| on the positive side turning at their minimum x₀ ≈ 1.4616 (the bounds
    /// enclose x₀ with a few floats between them). Arguments outside every stretch map
    /// into the codomain, or to glibc's own values where they are few.
    // 3.14 is meant: a bound below π, not an approximation of it.
    #[allow(clippy::approx_constant)]
    pub(crate) fn stretches(self) -> &'static [Stretch] {
        use Direction::{Decreasing, Increasing};
        const fn stretch(lo: Option<f64>, hi: Option<f64>, direction: Direction) -> Stretch {
            Stretch { lo, hi, direction }
        }
        // The minimum of Γ on the positive axis, x₀ = 1.46163214496836234126…
        const BELOW_MINIMUM: f64 = 1.461_632_144_968_362;
        const ABOVE_MINIMUM: f64 = 1.461_632_144_968_363;
        const SINE: &[Stretch] = &[stretch(Some(-1.5), Some(1.5), Increasing)];
        const COSINE: &[Stretch] = &[
            stretch(Some(-3.14), Some(-0.0), Increasing),
            stretch(Some(0.0), Some(3.14), Decreasing),
        ];
        const EVEN_GROWING: &[Stretch] = &[
            stretch(None, Some(-0.0), Decreasing),
            stretch(Some(0.0), None, Increasing),
        ];
        const DECREASING: &[Stretch] = &[stretch(None, None, Decreasing)];
        const GAMMA: &[Stretch] = &[
            stretch(Some(0.0), Some(BELOW_MINIMUM), Decreasing),
            stretch(Some(ABOVE_MINIMUM), None, Increasing),
        ];
        const INCREASING: &[Stretch] = &[stretch(None, None, Increasing)];
        match self {
            // Sawtooths: increasing within each integer or binade, nowhere further.
            LibmFunction::ModfFraction | LibmFunction::FrexpSignificand => &[],
            LibmFunction::Sin | LibmFunction::Tan => SINE,
            LibmFunction::Cos => COSINE,
            LibmFunction::Cosh => EVEN_GROWING,
            LibmFunction::Acos | LibmFunction::Erfc => DECREASING,
            LibmFunction::Lgamma | LibmFunction::Tgamma => GAMMA,
            _ => INCREASING,
        }
    }

    /// Whether arguments outside every stretch may give NaN inside the domain of
    /// definition (tgamma at negative integers).
    fn nan_between_stretches(self) -> bool {
        self == LibmFunction::Tgamma
    }

    /// Values glibc's results certainly lie in, as real bounds (`None`: unbounded): the
    /// mathematical range, which a faithful error of a few ulps never leaves (checked
    /// on every binary32 of the tested ranges).
    fn codomain(self) -> (Option<f64>, Option<f64>) {
        match self {
            LibmFunction::Exp | LibmFunction::Exp2 => (Some(0.0), None),
            LibmFunction::Expm1 => (Some(-1.0), None),
            LibmFunction::Cosh => (Some(1.0), None),
            LibmFunction::Tanh | LibmFunction::Sin | LibmFunction::Cos | LibmFunction::Erf => {
                (Some(-1.0), Some(1.0))
            }
            LibmFunction::Erfc => (Some(0.0), Some(2.0)),
            // Strictly inside ±1 (the bounds are rounded inward to the format).
            LibmFunction::ModfFraction | LibmFunction::FrexpSignificand => {
                const BELOW_ONE: f64 = 1.0 - f64::EPSILON / 2.0;
                (Some(-BELOW_ONE), Some(BELOW_ONE))
            }
            _ => (None, None),
        }
    }
}

/// Whether the solver models libm calls in `format` (glibc has binary32 and binary64).
pub fn supports_format(format: Format) -> bool {
    format == Format::F32 || format == Format::F64
}

/// The key of the float of `format` equal to a real given as an `f64` (every bound used
/// here is exact in both formats).
fn key_of(format: Format, value: f64) -> Fp {
    match format.from_f64(value) {
        FloatValue::Num(x) => x,
        FloatValue::NaN => format.pos_zero(),
    }
}

/// Finite arguments `[lo, hi]` (real bounds; `None`: the format's finite end) on which a
/// function is monotone in `direction`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stretch {
    lo: Option<f64>,
    hi: Option<f64>,
    direction: Direction,
}

/// The first key of `format` at or above the real `value` (`above`), or the last at or
/// below it: a bound rounded inward, so that a stretch never reaches past its real end.
fn key_inward(format: Format, value: f64, above: bool) -> Fp {
    let nearest = key_of(format, value);
    let at = format.to_f64(nearest);
    match (above, at.partial_cmp(&value)) {
        (true, Some(Ordering::Less)) => Fp(nearest.0 + 1),
        (false, Some(Ordering::Greater)) => Fp(nearest.0 - 1),
        _ => nearest,
    }
}

/// The key ranges of a format's floats that matter to one function.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    /// Finite arguments where the function is defined (NaN outside).
    pub defined: (Fp, Fp),
    /// Finite arguments where it is monotone, in order and disjoint.
    pub monotone: Vec<((Fp, Fp), Direction)>,
    /// Keys glibc's results lie in, NaN aside.
    pub codomain: (Fp, Fp),
    /// Whether defined arguments outside `monotone` may give NaN.
    pub nan_between: bool,
}

impl Shape {
    pub(crate) fn of(function: LibmFunction, format: Format) -> Shape {
        let bound =
            |value: Option<f64>, otherwise: Fp| value.map_or(otherwise, |v| key_of(format, v));
        let (lowest, highest) = (Fp(format.neg_inf().0 + 1), Fp(format.pos_inf().0 - 1));
        let (d_lo, d_hi) = function.definition();
        let (c_lo, c_hi) = function.codomain();
        let monotone = function
            .stretches()
            .iter()
            .map(|s| {
                let lo = s.lo.map_or(lowest, |v| key_inward(format, v, true));
                let hi = s.hi.map_or(highest, |v| key_inward(format, v, false));
                ((lo, hi), s.direction)
            })
            .filter(|((lo, hi), _)| lo <= hi)
            .collect();
        Shape {
            defined: (bound(d_lo, lowest), bound(d_hi, highest)),
            monotone,
            codomain: (
                c_lo.map_or(format.neg_inf(), |v| key_inward(format, v, true)),
                c_hi.map_or(format.pos_inf(), |v| key_inward(format, v, false)),
            ),
            nan_between: function.nan_between_stretches(),
        }
    }
}

/// `[lo, hi]` containing glibc's `function(x)` for a finite nonzero `x` of `format` where
/// the function is defined (so the result is not NaN): the exact value rounded outward,
/// moved out by [`LibmFunction::widening_steps`] floats, kept on the exact value's sign
/// and within the function's codomain.
pub(crate) fn enclosure(function: LibmFunction, format: Format, x: Fp) -> (Fp, Fp) {
    if function.is_exact() {
        return match call_glibc(function, format, FloatValue::Num(x)) {
            FloatValue::Num(y) => (y, y),
            FloatValue::NaN => (format.neg_inf(), format.pos_inf()),
        };
    }
    let argument = format.to_f64(x);
    let precision = format.precision() + 64;
    let evaluate = |round: Round| -> (Fp, Ordering) {
        let mut value = Float::with_val(precision, argument);
        let ternary = apply_mpfr(function, &mut value, round);
        let rounded = if format == Format::F32 {
            f64::from(value.to_f32_round(round))
        } else {
            value.to_f64_round(round)
        };
        let exact_zero = value.is_zero() && ternary == Ordering::Equal;
        (
            key_of(format, rounded),
            if exact_zero {
                Ordering::Equal
            } else {
                value.cmp0().unwrap_or(Ordering::Equal)
            },
        )
    };
    let (down, sign) = evaluate(Round::Down);
    let (up, _) = evaluate(Round::Up);
    let shape = Shape::of(function, format);
    let steps = function.widening_steps();
    let (mut lo, mut hi) = match sign {
        // An exact zero from a nonzero argument (log(1), acos(1)): glibc returns +0.
        Ordering::Equal => (format.pos_zero(), format.pos_zero()),
        _ => (
            Fp((down.0 - steps).max(format.neg_inf().0)),
            Fp((up.0 + steps).min(format.pos_inf().0)),
        ),
    };
    // A few ulps of relative error never change the sign (underflow gives a zero of it).
    match sign {
        Ordering::Greater => lo = lo.max(format.pos_zero()),
        Ordering::Less => hi = hi.min(format.neg_zero()),
        Ordering::Equal => {}
    }
    lo = lo.max(shape.codomain.0).min(hi);
    hi = hi.min(shape.codomain.1).max(lo);
    (lo, hi)
}

/// The MPFR function in place, rounded in `round`; returns the ternary value.
fn apply_mpfr(function: LibmFunction, value: &mut Float, round: Round) -> Ordering {
    match function {
        // Exact functions: never rounded at the working precision of a float argument.
        LibmFunction::Floor => {
            value.floor_mut();
            Ordering::Equal
        }
        LibmFunction::Ceil => {
            value.ceil_mut();
            Ordering::Equal
        }
        LibmFunction::Trunc => {
            value.trunc_mut();
            Ordering::Equal
        }
        LibmFunction::Round => {
            value.round_mut();
            Ordering::Equal
        }
        LibmFunction::RoundEven => {
            value.round_even_mut();
            Ordering::Equal
        }
        LibmFunction::Exp => value.exp_round(round),
        LibmFunction::Exp2 => value.exp2_round(round),
        LibmFunction::Expm1 => value.exp_m1_round(round),
        LibmFunction::Log => value.ln_round(round),
        LibmFunction::Log2 => value.log2_round(round),
        LibmFunction::Log10 => value.log10_round(round),
        LibmFunction::Log1p => value.ln_1p_round(round),
        LibmFunction::Sinh => value.sinh_round(round),
        LibmFunction::Cosh => value.cosh_round(round),
        LibmFunction::Tanh => value.tanh_round(round),
        LibmFunction::Atan => value.atan_round(round),
        LibmFunction::Asin => value.asin_round(round),
        LibmFunction::Acos => value.acos_round(round),
        LibmFunction::Cbrt => value.cbrt_round(round),
        LibmFunction::Sin => value.sin_round(round),
        LibmFunction::Cos => value.cos_round(round),
        LibmFunction::Tan => value.tan_round(round),
        LibmFunction::Erf => value.erf_round(round),
        LibmFunction::Erfc => value.erfc_round(round),
        LibmFunction::Lgamma => value.ln_abs_gamma_round(round).1,
        LibmFunction::Tgamma => value.gamma_round(round),
        // Exact at a float argument's working precision.
        LibmFunction::ModfFraction => {
            let integral = Float::with_val(value.prec(), value.trunc_ref());
            *value -= integral;
            Ordering::Equal
        }
        LibmFunction::FrexpSignificand => {
            if let Some(e) = value.get_exp() {
                *value >>= e;
            }
            Ordering::Equal
        }
    }
}

/// glibc's `function(x)` in `format` (binary32 or binary64), computed by the process's
/// libm under round-to-nearest without FTZ/DAZ. Panics for other formats, which the
/// network refuses when the constraint is added.
pub fn call_glibc(function: LibmFunction, format: Format, x: FloatValue) -> FloatValue {
    let single = format == Format::F32;
    let entry = glibc_entry(function, single)
        .unwrap_or_else(|| panic!("glibc's libm has no '{}'", function.c_name()));
    let bits = format.to_bits(x);
    // modf's `double *` (or `float *`) and frexp's `int *` both fit a u64 scratch.
    let mut scratch: u64 = 0;
    let result_bits = with_ieee_mxcsr(|| match entry {
        // SAFETY: glibc declares these symbols with exactly these C signatures and they
        // are pure functions of their argument (writing only through the output pointer,
        // here a local that outlives the call).
        Entry::Double(g) => unsafe { g(f64::from_bits(bits)) }.to_bits(),
        Entry::Single(g) => u64::from(unsafe { g(f32::from_bits(bits as u32)) }.to_bits()),
        Entry::DoubleOut(g) => unsafe { g(f64::from_bits(bits), &mut scratch) }.to_bits(),
        Entry::SingleOut(g) => {
            u64::from(unsafe { g(f32::from_bits(bits as u32), &mut scratch) }.to_bits())
        }
    });
    format.from_bits(result_bits)
}

#[derive(Clone, Copy)]
enum Entry {
    Double(unsafe extern "C" fn(f64) -> f64),
    Single(unsafe extern "C" fn(f32) -> f32),
    /// `double f(double, T *)` with a `T` of at most 8 bytes.
    DoubleOut(unsafe extern "C" fn(f64, *mut u64) -> f64),
    SingleOut(unsafe extern "C" fn(f32, *mut u64) -> f32),
}

/// Whether the process's glibc has `function` in `format` (checked when a network
/// gets the constraint, so `call_glibc` never meets a missing symbol).
pub fn available(function: LibmFunction, format: Format) -> bool {
    supports_format(format) && glibc_entry(function, format == Format::F32).is_some()
}

/// The glibc entry point of `function` (`single`: its `…f` variant), looked up once.
fn glibc_entry(function: LibmFunction, single: bool) -> Option<Entry> {
    type Table = Vec<[Option<Entry>; 2]>;
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        LibmFunction::ALL
            .iter()
            .map(|f| {
                let out = f.writes_output();
                let entry = |single: bool| {
                    let name = if single {
                        format!("{}f", f.c_name())
                    } else {
                        f.c_name().to_string()
                    };
                    // SAFETY: glibc's `double f(double)`, `float f(float)`, or the same
                    // with an output pointer `T *` (`writes_output`).
                    libm_symbol(&name).map(|p| unsafe {
                        match (single, out) {
                            (false, false) => Entry::Double(std::mem::transmute::<
                                usize,
                                unsafe extern "C" fn(f64) -> f64,
                            >(p)),
                            (true, false) => Entry::Single(std::mem::transmute::<
                                usize,
                                unsafe extern "C" fn(f32) -> f32,
                            >(p)),
                            (false, true) => Entry::DoubleOut(std::mem::transmute::<
                                usize,
                                unsafe extern "C" fn(f64, *mut u64) -> f64,
                            >(p)),
                            (true, true) => Entry::SingleOut(std::mem::transmute::<
                                usize,
                                unsafe extern "C" fn(f32, *mut u64) -> f32,
                            >(p)),
                        }
                    })
                };
                [entry(false), entry(true)]
            })
            .collect()
    });
    let index = LibmFunction::ALL.iter().position(|f| *f == function)?;
    table[index][usize::from(single)]
}

/// The address of the symbol `name` in the process's `libm.so.6`, when it has one.
pub(crate) fn libm_symbol(name: &str) -> Option<usize> {
    static HANDLE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    // SAFETY: dlopen with a constant NUL-terminated name; the handle is never closed.
    let handle = *HANDLE.get_or_init(|| unsafe {
        libc::dlopen(c"libm.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) as usize
    });
    if handle == 0 {
        return None;
    }
    let name = std::ffi::CString::new(name).ok()?;
    // SAFETY: `handle` is a live dlopen handle, `name` NUL-terminated.
    let p = unsafe { libc::dlsym(handle as *mut libc::c_void, name.as_ptr()) };
    (!p.is_null()).then_some(p as usize)
}

/// MXCSR's default control bits: every exception masked, round-to-nearest, no FTZ/DAZ.
#[cfg(target_arch = "x86_64")]
const IEEE_MXCSR_CONTROL: u32 = 0x1f80;

/// Runs `call` with MXCSR in IEEE mode (the walker's concrete domain may leave another
/// mode loaded on this thread), restoring it afterwards; flags are left as they come.
pub(crate) fn with_ieee_mxcsr<T>(call: impl FnOnce() -> T) -> T {
    #[cfg(target_arch = "x86_64")]
    {
        let mut saved: u32 = 0;
        // SAFETY: stmxcsr stores the 32-bit MXCSR into a local.
        unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut saved, options(nostack)) };
        let control = saved & !0x3f;
        if control == IEEE_MXCSR_CONTROL {
            return std::hint::black_box(call());
        }
        let ieee = IEEE_MXCSR_CONTROL | (saved & 0x3f);
        // SAFETY: loads a valid MXCSR value (default control bits, current flags).
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &ieee, options(nostack)) };
        let result = std::hint::black_box(call());
        // SAFETY: restores the value read above.
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &saved, options(nostack)) };
        result
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        call()
    }
}
