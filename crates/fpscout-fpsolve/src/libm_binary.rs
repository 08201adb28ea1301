//! Two-argument libm functions (pow, atan2, hypot, fmod, remainder) as the process's glibc computes them, and sound enclosures of their results at a point.
//
// As for the one-argument functions (`crate::libm`), the solver relies only on
// enclosures: glibc's result at floats `(x, y)` lies in the exact value rounded outward
// and moved out by a number of floats derived from glibc's documented maximal error.
// fmod and remainder are exact in glibc (and in IEEE 754); their projections need no
// enclosure.

use crate::format::{FloatValue, Format, Fp};
use crate::libm::{libm_symbol, with_ieee_mxcsr};
use rug::float::Round;
use rug::ops::PowAssignRound;
use rug::Float;

/// A libm function of two arguments the solver models (binary32 and binary64 only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LibmBinary {
    Pow,
    Atan2,
    Hypot,
    Fmod,
    /// IEEE `remainder`: x − n·y for the integer n nearest x/y (ties to even).
    Remainder,
}

impl LibmBinary {
    pub const ALL: [LibmBinary; 5] = [
        LibmBinary::Pow,
        LibmBinary::Atan2,
        LibmBinary::Hypot,
        LibmBinary::Fmod,
        LibmBinary::Remainder,
    ];

    /// The C name of the double variant (the float variant appends `f`).
    pub fn c_name(self) -> &'static str {
        match self {
            LibmBinary::Pow => "pow",
            LibmBinary::Atan2 => "atan2",
            LibmBinary::Hypot => "hypot",
            LibmBinary::Fmod => "fmod",
            LibmBinary::Remainder => "remainder",
        }
    }

    /// glibc's maximal known error in ulps (the larger of the `double` and `float`
    /// entries of the glibc manual's "Errors in Math Functions", x86_64: pow 1, atan2 1,
    /// hypot 1), doubled as a margin; fmod and remainder are exact.
    pub fn glibc_ulps(self) -> u32 {
        match self {
            LibmBinary::Fmod | LibmBinary::Remainder => 0,
            LibmBinary::Pow | LibmBinary::Atan2 | LibmBinary::Hypot => 2,
        }
    }

    /// How many floats each end of an enclosure moves outward (2 per ulp: an error may
    /// cross a power of two, below which floats are twice as dense; one ulp of margin).
    fn widening_steps(self) -> i64 {
        match self.glibc_ulps() {
            0 => 0,
            ulps => 2 * (i64::from(ulps) + 1),
        }
    }
}

/// `[lo, hi]` (keys of `format`) containing glibc's `function(x, y)` for finite `x`,
/// `y` where the exact result is a real number (pow: `x > 0`); the exact value rounded
/// outward at a working precision, then moved out by the function's widening. `None`
/// for fmod and remainder (exact: no enclosure needed) and for arguments MPFR finds
/// undefined.
pub(crate) fn enclosure(function: LibmBinary, format: Format, x: Fp, y: Fp) -> Option<(Fp, Fp)> {
    let precision = format.precision() + 64;
    let (xf, yf) = (format.to_f64(x), format.to_f64(y));
    let evaluate = |round: Round| -> Option<f64> {
        let mut value = Float::with_val(precision, xf);
        let other = Float::with_val(precision, yf);
        match function {
            LibmBinary::Pow => value.pow_assign_round(&other, round),
            LibmBinary::Atan2 => value.atan2_round(&other, round),
            LibmBinary::Hypot => value.hypot_round(&other, round),
            LibmBinary::Fmod | LibmBinary::Remainder => return None,
        };
        if value.is_nan() {
            return None;
        }
        Some(if format == Format::F32 {
            f64::from(value.to_f32_round(round))
        } else {
            value.to_f64_round(round)
        })
    };
    let (down, up) = (evaluate(Round::Down)?, evaluate(Round::Up)?);
    if down == 0.0 && up == 0.0 {
        // An exact zero (hypot(0, 0), atan2(±0, x > 0)): either sign, nothing else.
        return Some((format.neg_zero(), format.pos_zero()));
    }
    let key = |v: f64| match format.from_f64(v) {
        FloatValue::Num(k) => Some(k),
        FloatValue::NaN => None,
    };
    let steps = function.widening_steps();
    let mut lo = Fp((key(down)?.0 - steps).max(format.neg_inf().0));
    let mut hi = Fp((key(up)?.0 + steps).min(format.pos_inf().0));
    // A few ulps never change the sign of a nonzero result (an underflow keeps it).
    if down >= 0.0 {
        lo = lo.max(format.pos_zero());
    }
    if up <= 0.0 {
        hi = hi.min(format.neg_zero());
    }
    Some((lo, hi.max(lo)))
}

/// glibc's `function(x, y)` in `format` (binary32 or binary64), computed by the
/// process's libm under round-to-nearest without FTZ/DAZ. Panics for other formats and
/// missing symbols, which the network refuses when the constraint is added.
pub fn call_glibc_binary(
    function: LibmBinary,
    format: Format,
    x: FloatValue,
    y: FloatValue,
) -> FloatValue {
    let single = format == Format::F32;
    let entry = glibc_entry(function, single)
        .unwrap_or_else(|| panic!("glibc's libm has no '{}'", function.c_name()));
    let (xb, yb) = (format.to_bits(x), format.to_bits(y));
    let result_bits = with_ieee_mxcsr(|| match entry {
        // SAFETY: glibc declares these symbols with exactly these C signatures and they
        // are pure functions of their arguments.
        Entry::Double(g) => unsafe { g(f64::from_bits(xb), f64::from_bits(yb)) }.to_bits(),
        Entry::Single(g) => {
            u64::from(unsafe { g(f32::from_bits(xb as u32), f32::from_bits(yb as u32)) }.to_bits())
        }
    });
    format.from_bits(result_bits)
}

/// Whether the process's glibc has `function` in `format`.
pub fn available_binary(function: LibmBinary, format: Format) -> bool {
    crate::libm::supports_format(format) && glibc_entry(function, format == Format::F32).is_some()
}

#[derive(Clone, Copy)]
enum Entry {
    Double(unsafe extern "C" fn(f64, f64) -> f64),
    Single(unsafe extern "C" fn(f32, f32) -> f32),
}

/// The glibc entry point of `function` (`single`: its `…f` variant), looked up once.
fn glibc_entry(function: LibmBinary, single: bool) -> Option<Entry> {
    static TABLE: std::sync::OnceLock<Vec<[Option<Entry>; 2]>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        LibmBinary::ALL
            .iter()
            .map(|f| {
                let double = libm_symbol(f.c_name()).map(|p| {
                    // SAFETY: glibc's `double f(double, double)` symbol.
                    Entry::Double(unsafe {
                        std::mem::transmute::<usize, unsafe extern "C" fn(f64, f64) -> f64>(p)
                    })
                });
                let single = libm_symbol(&format!("{}f", f.c_name())).map(|p| {
                    // SAFETY: glibc's `float f(float, float)` symbol.
                    Entry::Single(unsafe {
                        std::mem::transmute::<usize, unsafe extern "C" fn(f32, f32) -> f32>(p)
                    })
                });
                [double, single]
            })
            .collect()
    });
    let index = LibmBinary::ALL.iter().position(|f| *f == function)?;
    table[index][usize::from(single)]
}
