//! Integers read from a float's bits (a high word, the exponent field, the sign): which floats give a value that passes an integer comparison.
//!
//! libm code reads a double's bits (`GET_HIGH_WORD(hx, x); ix = hx & 0x7fffffff;
//! if (ix >= 0x7ff00000) …`, `j0 = ((hx >> 20) & 0x7ff) - 0x3ff`): each such integer is
//! a nondecreasing function of the float's bits (or of its magnitude's bits), so the
//! floats passing a comparison of it with a constant are a few ranges of the ordered
//! line, found by binary search on that function. [`BitView`] is such an integer and
//! [`FloatSet`] the ranges it admits; what does not keep the function monotone (a low
//! word, a field without its upper bits, an `or`) is refused (`None`), never
//! approximated.

use crate::domain::FloatDomain;
use crate::format::{FloatValue, Format, Fp};

/// Most ranges a [`FloatSet`] holds; more are merged over their smallest gaps (a superset).
pub const MAX_RANGES: usize = 8;

/// A set of floats of one format: disjoint key ranges in increasing order, and whether NaN
/// belongs (the solver's NaN has no payload or sign: a set holds NaN when any NaN encoding
/// is in it, so the set is a superset of the encodings it stands for).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatSet {
    format: Format,
    ranges: [(Fp, Fp); MAX_RANGES],
    len: u8,
    nan: bool,
}

impl FloatSet {
    /// The set of `ranges` (any order, overlapping allowed; empty ranges dropped) and NaN.
    pub fn new(format: Format, ranges: &[(Fp, Fp)], nan: bool) -> FloatSet {
        let mut sorted: Vec<(Fp, Fp)> = ranges.iter().copied().filter(|(a, b)| a <= b).collect();
        sorted.sort();
        let mut merged: Vec<(Fp, Fp)> = Vec::with_capacity(sorted.len());
        for (a, b) in sorted {
            match merged.last_mut() {
                Some(last) if a.0 <= last.1 .0 + 1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        while merged.len() > MAX_RANGES {
            let narrowest = (1..merged.len())
                .min_by_key(|&i| merged[i].0 .0 - merged[i - 1].1 .0)
                .unwrap_or(1);
            merged[narrowest - 1].1 = merged[narrowest].1;
            merged.remove(narrowest);
        }
        let mut set = FloatSet {
            format,
            ranges: [(Fp(0), Fp(-1)); MAX_RANGES],
            len: merged.len() as u8,
            nan,
        };
        set.ranges[..merged.len()].copy_from_slice(&merged);
        set
    }

    /// Every float and NaN.
    pub fn everything(format: Format) -> FloatSet {
        FloatSet::new(format, &[(format.neg_inf(), format.pos_inf())], true)
    }

    /// The floats not in the set; NaN stays in (the set's NaN stands for some NaN
    /// encodings only).
    pub fn complement(&self) -> FloatSet {
        let format = self.format;
        let mut gaps = Vec::new();
        let mut from = format.neg_inf().0;
        for &(a, b) in self.ranges() {
            if a.0 > from {
                gaps.push((Fp(from), Fp(a.0 - 1)));
            }
            from = b.0 + 1;
        }
        if from <= format.pos_inf().0 {
            gaps.push((Fp(from), format.pos_inf()));
        }
        FloatSet::new(format, &gaps, true)
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// The key ranges, in increasing order.
    pub fn ranges(&self) -> &[(Fp, Fp)] {
        &self.ranges[..usize::from(self.len)]
    }

    pub fn holds_nan(&self) -> bool {
        self.nan
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0 && !self.nan
    }

    pub fn contains(&self, value: FloatValue) -> bool {
        match value {
            FloatValue::NaN => self.nan,
            FloatValue::Num(x) => self.ranges().iter().any(|&(a, b)| a <= x && x <= b),
        }
    }

    /// The smallest domain holding every value of `domain` in the set (the projection of
    /// "the value is in this set").
    pub fn restrict(&self, domain: &FloatDomain) -> FloatDomain {
        let mut kept = FloatDomain::empty(domain.format());
        for &(a, b) in self.ranges() {
            kept = kept.hull(&domain.clamp(a, b).without_nan());
        }
        kept.with_nan(domain.may_be_nan() && self.nan)
    }
}

/// An integer comparison of a view of a float's bits, kept beside the [`FloatSet`] it
/// was turned into: the set may be a superset (a low-word test admits every float), so a
/// candidate solution is checked against the comparison itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BitTest {
    pub view: BitView,
    pub predicate: IntPredicate,
    pub k: u64,
}

impl BitTest {
    /// Whether `value` passes the comparison; the solver's NaN stands for every NaN
    /// encoding, so it passes when any might (the set decides).
    pub fn admits(&self, value: FloatValue) -> bool {
        match value {
            FloatValue::NaN => true,
            FloatValue::Num(_) => {
                let bits = self.view.format.to_bits(value);
                self.predicate
                    .holds(self.view.width, self.view.value(bits), self.k)
            }
        }
    }

    /// The floats passing the comparison, as ranges (a superset where the view is a low word).
    pub fn set(&self) -> FloatSet {
        self.view.satisfying(self.predicate, self.k)
    }
}

/// The comparisons of C integers (`icmp`), the constant on the right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntPredicate {
    Eq,
    Ne,
    Ult,
    Ule,
    Ugt,
    Uge,
    Slt,
    Sle,
    Sgt,
    Sge,
}

impl IntPredicate {
    pub fn negated(self) -> IntPredicate {
        use IntPredicate::*;
        match self {
            Eq => Ne,
            Ne => Eq,
            Ult => Uge,
            Ule => Ugt,
            Ugt => Ule,
            Uge => Ult,
            Slt => Sge,
            Sle => Sgt,
            Sgt => Sle,
            Sge => Slt,
        }
    }

    /// `v pred k` on `width`-bit integers.
    pub fn holds(self, width: u32, v: u64, k: u64) -> bool {
        use IntPredicate::*;
        let max = low_mask(width);
        let (v, k) = (v & max, k & max);
        let sign = 1u64 << (width - 1);
        let (sv, sk) = (v ^ sign, k ^ sign);
        match self {
            Eq => v == k,
            Ne => v != k,
            Ult => v < k,
            Ule => v <= k,
            Ugt => v > k,
            Uge => v >= k,
            Slt => sv < sk,
            Sle => sv <= sk,
            Sgt => sv > sk,
            Sge => sv >= sk,
        }
    }

    /// The same test with its operands swapped (`k < v` is `v > k`).
    pub fn swapped(self) -> IntPredicate {
        use IntPredicate::*;
        match self {
            Eq | Ne => self,
            Ult => Ugt,
            Ule => Uge,
            Ugt => Ult,
            Uge => Ule,
            Slt => Sgt,
            Sle => Sge,
            Sgt => Slt,
            Sge => Sle,
        }
    }

    /// The values `v` of `width` bits with `v pred k`, as unsigned ranges.
    fn ranges(self, width: u32, k: u64) -> Vec<(u64, u64)> {
        use IntPredicate::*;
        let max = low_mask(width);
        let k = k & max;
        let sign = 1u64 << (width - 1);
        // Signed order maps to unsigned order by flipping the sign bit.
        let flip = |r: Vec<(u64, u64)>| -> Vec<(u64, u64)> {
            let mut out = Vec::new();
            for (a, b) in r {
                let (a, b) = (a ^ sign, b ^ sign);
                if a <= b {
                    out.push((a, b));
                } else {
                    out.push((a, max));
                    out.push((0, b));
                }
            }
            out
        };
        let below = |k: u64| if k == 0 { vec![] } else { vec![(0, k - 1)] };
        let above = |k: u64| if k == max { vec![] } else { vec![(k + 1, max)] };
        match self {
            Eq => vec![(k, k)],
            Ne => [below(k), above(k)].concat(),
            Ult => below(k),
            Ule => vec![(0, k)],
            Ugt => above(k),
            Uge => vec![(k, max)],
            Slt => flip(below(k ^ sign)),
            Sle => flip(vec![(0, k ^ sign)]),
            Sgt => flip(above(k ^ sign)),
            Sge => flip(vec![(k ^ sign, max)]),
        }
    }
}

fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// An integer of `width` bits computed from a float's bits by a bitcast and then shifts,
/// masks, truncations, extensions and one added constant, kept in a form that is a
/// nondecreasing function of its *source*: the float's bits as an unsigned integer, or
/// (after `& 0x7fff…`) its magnitude bits.
///
/// value = ((ext(source >> shift) >> low_zeros) << low_zeros) + addend  (mod 2^width),
/// where `ext` sign-extends from the source's top bit after an arithmetic shift.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BitView {
    format: Format,
    magnitude: bool,
    shift: u32,
    sign_extended: bool,
    low_zeros: u32,
    /// A left shift after the rest (`ix << 1`, `2 * ix`: musl drops the sign so).
    left: u32,
    width: u32,
    addend: u64,
    /// The view is (a function of) a double's low word, bits 0–31: only what fdlibm
    /// does with it is modelled.
    low: LowWord,
    /// What of the low word the high part's value is ORed with.
    or_low: OrLow,
}

/// fdlibm's uses of a double's low word `lx`: `lx | -lx` has its top bit set exactly when
/// `lx != 0`, so `(lx | -lx) >> 31` is that test as 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LowWord {
    /// Not the low word.
    No,
    /// `lx`.
    Word,
    /// `-lx`.
    Negated,
    /// `lx | -lx`.
    WordOrNegated,
    /// `(lx | -lx) >> 31`: 1 when `lx != 0`.
    Nonzero,
}

/// A high part ORed with the low word: `(ix | lx) == 0` tests for one float; `ix | ((lx
/// | -lx) >> 31)` is a nondecreasing function of the magnitude (fdlibm's NaN test
/// `> 0x7ff00000`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OrLow {
    No,
    Word,
    Nonzero,
}

impl BitView {
    /// The bits of a float of `format` as an integer of its width (a bitcast).
    pub fn of(format: Format) -> BitView {
        BitView {
            format,
            magnitude: false,
            shift: 0,
            sign_extended: false,
            low_zeros: 0,
            left: 0,
            width: format_width(format),
            addend: 0,
            low: LowWord::No,
            or_low: OrLow::No,
        }
    }

    /// Whether any operation can still follow the view (a low word or an `or` with one
    /// only compares).
    fn plain(&self) -> bool {
        self.low == LowWord::No && self.or_low == OrLow::No
    }

    /// Whether shifts, masks, truncations and extensions can follow the view: a plain one
    /// not shifted left (a left shift is only compared or offset afterwards).
    fn followable(&self) -> bool {
        self.plain() && self.left == 0
    }

    /// `or` with another view of the same float: `lx | -lx`, or a high part (no bit below
    /// 32) with the low word or its nonzero test.
    pub fn or(self, other: BitView) -> Option<BitView> {
        if self.format != other.format || self.width != other.width {
            return None;
        }
        let pair = (self.low, other.low);
        if matches!(
            pair,
            (LowWord::Word, LowWord::Negated) | (LowWord::Negated, LowWord::Word)
        ) {
            return Some(BitView {
                low: LowWord::WordOrNegated,
                ..self
            });
        }
        let (high, low) = if other.low != LowWord::No {
            (self, other)
        } else {
            (other, self)
        };
        if !high.plain() {
            return None;
        }
        match low.low {
            LowWord::Word if high.shift + high.low_zeros >= 32 => Some(BitView {
                or_low: OrLow::Word,
                ..high
            }),
            // Monotone only when the high part's bit 0 is the float's bit 32.
            LowWord::Nonzero
                if high.shift == 32
                    && high.low_zeros == 0
                    && high.addend == 0
                    && !high.sign_extended =>
            {
                Some(BitView {
                    or_low: OrLow::Nonzero,
                    ..high
                })
            }
            _ => None,
        }
    }

    /// `0 - v` (`-lx`).
    pub fn negated(self) -> Option<BitView> {
        (self.low == LowWord::Word).then_some(BitView {
            low: LowWord::Negated,
            ..self
        })
    }

    pub fn format(&self) -> Format {
        self.format
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    /// Bits of the source: the float's width, one less for its magnitude.
    fn source_bits(&self) -> u32 {
        format_width(self.format) - u32::from(self.magnitude)
    }

    /// Bits the shifted source occupies.
    fn live_bits(&self) -> u32 {
        self.source_bits().saturating_sub(self.shift)
    }

    /// The view's value before the addend, from its source.
    fn of_source(&self, source: u64) -> u64 {
        let live = self.live_bits();
        let mut t = if self.shift >= 64 {
            0
        } else {
            source >> self.shift
        };
        let negative = (source >> (self.source_bits() - 1)) & 1 == 1;
        if self.sign_extended && negative {
            t |= !low_mask(live);
        }
        t = (t >> self.low_zeros.min(63)) << self.low_zeros.min(63);
        t = t.checked_shl(self.left).unwrap_or(0);
        if self.or_low == OrLow::Nonzero {
            t |= u64::from(source & low_mask(32) != 0);
        }
        t & low_mask(self.width)
    }

    /// The view's value for a float's bits (what the processor computes).
    pub fn value(&self, float_bits: u64) -> u64 {
        let bits = float_bits & low_mask(format_width(self.format));
        let word = bits & low_mask(32);
        match self.low {
            LowWord::No => {}
            LowWord::Word => return word & low_mask(self.width),
            LowWord::Negated => return word.wrapping_neg() & low_mask(self.width),
            LowWord::WordOrNegated => return (word | word.wrapping_neg()) & low_mask(self.width),
            LowWord::Nonzero => return u64::from(word != 0),
        }
        if self.or_low == OrLow::Word {
            let high = BitView {
                or_low: OrLow::No,
                ..*self
            };
            return (high.value(float_bits) | word) & low_mask(self.width);
        }
        let source = if self.magnitude {
            bits & low_mask(format_width(self.format) - 1)
        } else {
            bits
        };
        self.of_source(source).wrapping_add(self.addend) & low_mask(self.width)
    }

    /// `shl` by a constant: when no bit the value can have is lost, or when the one lost
    /// is the float's sign (`asuint64(x) << 1`, the magnitude doubled; musl's high word
    /// `ix << 1`, the magnitude's high word doubled).
    pub fn shifted_left(self, k: u64) -> Option<BitView> {
        if !self.plain() || self.addend != 0 || self.sign_extended || k >= 64 {
            return None;
        }
        let k = k as u32;
        if self.live_bits() + self.left + k <= self.width {
            return Some(BitView {
                left: self.left + k,
                ..self
            });
        }
        // The top live bit is the sign whenever the value is not a magnitude.
        let signed_top = !self.magnitude && self.left == 0;
        if signed_top && k == 1 && self.live_bits() == self.width {
            return Some(BitView {
                magnitude: true,
                left: 1,
                ..self
            });
        }
        None
    }

    /// `lshr` by a constant.
    pub fn lshr(self, k: u64) -> Option<BitView> {
        if self.low == LowWord::WordOrNegated && self.width == 32 && k == 31 && self.left == 0 {
            return Some(BitView {
                low: LowWord::Nonzero,
                ..self
            });
        }
        if !self.followable() {
            return None;
        }
        if self.addend != 0 || self.sign_extended || k >= 64 {
            return None;
        }
        // Bits cleared below `low_zeros` shift out first (`(hx & 0x7ff00000) >> 20`).
        Some(BitView {
            shift: self.shift + k as u32,
            low_zeros: self.low_zeros.saturating_sub(k as u32),
            ..self
        })
    }

    /// `ashr` by a constant: a shift of a value whose top bit is the float's sign
    /// extends the sign; of one whose top bit is clear, it is `lshr`.
    pub fn ashr(self, k: u64) -> Option<BitView> {
        if !self.followable() {
            return None;
        }
        if self.addend != 0 || k >= u64::from(self.width) {
            return None;
        }
        let low_zeros = self.low_zeros.saturating_sub(k as u32);
        if self.sign_extended {
            return Some(BitView {
                shift: self.shift + k as u32,
                low_zeros,
                ..self
            });
        }
        if self.live_bits() < self.width {
            return self.lshr(k);
        }
        if !self.magnitude && self.live_bits() == self.width {
            return Some(BitView {
                shift: self.shift + k as u32,
                sign_extended: true,
                low_zeros,
                ..self
            });
        }
        None
    }

    /// `and` with a constant: one that keeps every bit the value can have, that clears
    /// the sign (and its copies), and/or that clears low bits.
    pub fn and(self, mask: u64) -> Option<BitView> {
        if !self.followable() {
            return None;
        }
        if self.addend != 0 {
            return None;
        }
        let mask = mask & low_mask(self.width);
        let live = if self.sign_extended {
            low_mask(self.width)
        } else {
            low_mask(self.live_bits())
        };
        let kept = mask & live;
        if kept == 0 {
            return None;
        }
        let low = kept.trailing_zeros().max(self.low_zeros);
        let top = 64 - kept.leading_zeros();
        // The kept bits must be one run [low, top).
        if top <= low || kept >> low != low_mask(top - low) {
            return None;
        }
        if kept | low_mask(low) == live {
            return Some(BitView {
                low_zeros: low,
                ..self
            });
        }
        // Keeping the shifted bits and none of the sign's copies above them.
        if self.sign_extended && kept | low_mask(low) == low_mask(self.live_bits()) {
            return Some(BitView {
                sign_extended: false,
                low_zeros: low,
                ..self
            });
        }
        // Clearing the sign bit and everything above it: the magnitude's bits.
        let magnitude_live = format_width(self.format) - 1;
        if !self.magnitude && self.shift < magnitude_live && top == magnitude_live - self.shift {
            return Some(BitView {
                magnitude: true,
                sign_extended: false,
                low_zeros: low,
                ..self
            });
        }
        None
    }

    /// `add` of a constant (`sub` adds its negation).
    pub fn plus(self, k: u64) -> Option<BitView> {
        if !self.plain() {
            return None;
        }
        Some(BitView {
            addend: self.addend.wrapping_add(k) & low_mask(self.width),
            ..self
        })
    }

    /// `trunc` to `width` bits: only when no bit the value can have is cut.
    pub fn trunc(self, width: u32) -> Option<BitView> {
        if !self.followable() {
            return None;
        }
        let whole = !self.magnitude && !self.sign_extended && self.shift == 0;
        if whole && self.low_zeros == 0 && self.addend == 0 && width == 32 && self.width == 64 {
            return Some(BitView {
                width,
                low: LowWord::Word,
                ..self
            });
        }
        if self.live_bits() > width {
            return None;
        }
        Some(BitView {
            width,
            addend: self.addend & low_mask(width),
            ..self
        })
    }

    /// `zext` to `width` bits.
    pub fn zext(self, width: u32) -> Option<BitView> {
        if !self.followable() {
            return None;
        }
        if self.addend != 0 || self.sign_extended {
            return None;
        }
        Some(BitView { width, ..self })
    }

    /// `sext` to `width` bits.
    pub fn sext(self, width: u32) -> Option<BitView> {
        if !self.followable() {
            return None;
        }
        if self.addend != 0 {
            return None;
        }
        if self.sign_extended || self.live_bits() < self.width {
            return Some(BitView { width, ..self });
        }
        if !self.magnitude && self.live_bits() == self.width && self.low_zeros == 0 {
            return Some(BitView {
                width,
                sign_extended: true,
                ..self
            });
        }
        None
    }

    /// The floats whose view passes `pred` against `k` (a superset only where NaN
    /// encodings are merged into the solver's one NaN).
    pub fn satisfying(&self, pred: IntPredicate, k: u64) -> FloatSet {
        if self.low != LowWord::No || self.or_low == OrLow::Word {
            return self.satisfying_with_low_word(pred, k);
        }
        self.floats_of_sources(&self.source_intervals(pred, k))
    }

    /// `(ix | lx) == 0` (x is ±0), `((ix - 0x3ff00000) | lx) == 0` (x is ±1): the high
    /// part's sources whose low word is zero, where they are one float per interval;
    /// every float otherwise (no information, never a wrong one).
    fn satisfying_with_low_word(&self, pred: IntPredicate, k: u64) -> FloatSet {
        let everything = FloatSet::everything(self.format);
        let zero_test = k & low_mask(self.width) == 0;
        let zero_or_not = matches!(pred, IntPredicate::Eq | IntPredicate::Ne);
        if self.low != LowWord::No || !zero_test || !zero_or_not {
            return everything;
        }
        let high = BitView {
            or_low: OrLow::No,
            ..*self
        };
        let word = 1u64 << 32;
        let mut singles = Vec::new();
        for (lo, hi) in high.source_intervals(IntPredicate::Eq, 0) {
            let first = lo.div_ceil(word).saturating_mul(word);
            if first > hi {
                continue;
            }
            if hi - first >= word {
                return if pred == IntPredicate::Eq {
                    high.satisfying(IntPredicate::Eq, 0)
                } else {
                    everything
                };
            }
            singles.push((first, first));
        }
        let zero = self.floats_of_sources(&singles);
        if pred == IntPredicate::Eq {
            zero
        } else {
            zero.complement()
        }
    }

    /// The sources (intervals, increasing) whose view passes `pred` against `k`.
    fn source_intervals(&self, pred: IntPredicate, k: u64) -> Vec<(u64, u64)> {
        let width = self.width;
        let max = low_mask(width);
        // Values of the view → values before the addend (a range may wrap around).
        let mut before: Vec<(u64, u64)> = Vec::new();
        for (a, b) in pred.ranges(width, k) {
            let (a, b) = (
                a.wrapping_sub(self.addend) & max,
                b.wrapping_sub(self.addend) & max,
            );
            if a <= b {
                before.push((a, b));
            } else {
                before.push((a, max));
                before.push((0, b));
            }
        }
        let source_max = low_mask(self.source_bits());
        let mut sources = Vec::new();
        for (a, b) in before {
            // The first source whose value is ≥ a, the last whose value is ≤ b.
            let Some(lo) = first_source_at_least(source_max, |s| self.of_source(s) >= a) else {
                continue;
            };
            let hi = match first_source_at_least(source_max, |s| self.of_source(s) > b) {
                None => source_max,
                Some(0) => continue,
                Some(h) => h - 1,
            };
            if lo <= hi {
                sources.push((lo, hi));
            }
        }
        sources
    }

    fn floats_of_sources(&self, sources: &[(u64, u64)]) -> FloatSet {
        let mut ranges = Vec::new();
        let mut nan = false;
        for &(lo, hi) in sources {
            nan |= self.add_source_range(lo, hi, &mut ranges);
        }
        FloatSet::new(self.format, &ranges, nan)
    }

    /// Whether the view can be read as a number (`(double)k`): not a low word or a high
    /// part ORed with one, which only compare with zero.
    pub fn convertible(&self) -> bool {
        self.low == LowWord::No && self.or_low != OrLow::Word
    }

    /// The view's value for a float's bits as C reads it: signed or unsigned `width` bits.
    pub fn number(&self, float_bits: u64, signed: bool) -> i128 {
        let v = self.value(float_bits);
        if signed && self.width < 128 && (v >> (self.width - 1)) & 1 == 1 {
            i128::from(v) - (1i128 << self.width)
        } else {
            i128::from(v)
        }
    }

    /// The sources of the floats of `domain` (NaN as every NaN encoding), as intervals.
    fn sources_of(&self, domain: &FloatDomain) -> Vec<(u64, u64)> {
        let format = self.format;
        let inf = format.pos_inf().0 as u64;
        let sign = 1u64 << (format_width(format) - 1);
        let magnitude_max = sign - 1;
        let mut out = Vec::new();
        if let Some((lo, hi)) = domain.range() {
            let (lo, hi) = (lo.0, hi.0);
            let positive = (lo.max(0) <= hi).then(|| (lo.max(0) as u64, hi as u64));
            // Key k < 0 is the magnitude -k - 1.
            let negative = (lo <= hi.min(-1)).then(|| ((-hi.min(-1) - 1) as u64, (-lo - 1) as u64));
            if self.magnitude {
                let mags: Vec<(u64, u64)> = positive.into_iter().chain(negative).collect();
                if let (Some(a), Some(b)) = (
                    mags.iter().map(|m| m.0).min(),
                    mags.iter().map(|m| m.1).max(),
                ) {
                    out.push((a, b));
                }
            } else {
                out.extend(positive);
                out.extend(negative.map(|(a, b)| (sign | a, sign | b)));
            }
        }
        if domain.may_be_nan() {
            out.push((inf + 1, magnitude_max));
            if !self.magnitude {
                out.push((sign | (inf + 1), sign | magnitude_max));
            }
        }
        out
    }

    /// The hull of the numbers the view takes over `domain` (`None`: none, the domain
    /// being empty).
    pub fn number_range(&self, domain: &FloatDomain, signed: bool) -> Option<(i128, i128)> {
        let width = self.width;
        let modulus = 1i128 << width;
        let full = if signed {
            (-(modulus / 2), modulus / 2 - 1)
        } else {
            (0, modulus - 1)
        };
        let mut hull: Option<(i128, i128)> = None;
        for (s_lo, s_hi) in self.sources_of(domain) {
            let (t_lo, t_hi) = (
                i128::from(self.of_source(s_lo)),
                i128::from(self.of_source(s_hi)),
            );
            let addend = i128::from(self.addend);
            let (u_lo, u_hi) = (t_lo + addend, t_hi + addend);
            let range = if u_lo / modulus != u_hi / modulus {
                full
            } else {
                let (u_lo, u_hi) = (u_lo % modulus, u_hi % modulus);
                let half = modulus / 2;
                if !signed || u_hi < half {
                    (u_lo, u_hi)
                } else if u_lo >= half {
                    (u_lo - modulus, u_hi - modulus)
                } else {
                    full
                }
            };
            hull = Some(match hull {
                None => range,
                Some((a, b)) => (a.min(range.0), b.max(range.1)),
            });
        }
        hull
    }

    /// The floats whose view, read as a number, lies in [lo, hi].
    pub fn numbers_between(&self, lo: i128, hi: i128, signed: bool) -> (FloatSet, FloatSet) {
        let (ge, le) = if signed {
            (IntPredicate::Sge, IntPredicate::Sle)
        } else {
            (IntPredicate::Uge, IntPredicate::Ule)
        };
        let bits = |v: i128| (v as u64) & low_mask(self.width);
        (self.satisfying(ge, bits(lo)), self.satisfying(le, bits(hi)))
    }

    /// Adds the floats whose source lies in [lo, hi]; returns whether a NaN encoding does.
    fn add_source_range(&self, lo: u64, hi: u64, ranges: &mut Vec<(Fp, Fp)>) -> bool {
        let format = self.format;
        let inf = format.pos_inf().0 as u64;
        let magnitudes = |lo: u64, hi: u64, negative: bool, ranges: &mut Vec<(Fp, Fp)>| -> bool {
            let nan = hi > inf;
            let hi = hi.min(inf);
            if lo <= hi {
                let (a, b) = (Fp(lo as i64), Fp(hi as i64));
                ranges.push(if negative {
                    (format.negate(b), format.negate(a))
                } else {
                    (a, b)
                });
            }
            nan
        };
        if self.magnitude {
            let nan = magnitudes(lo, hi, false, ranges);
            magnitudes(lo, hi, true, ranges);
            return nan;
        }
        let sign = 1u64 << (format_width(format) - 1);
        let mut nan = false;
        if lo < sign {
            nan |= magnitudes(lo, hi.min(sign - 1), false, ranges);
        }
        if hi >= sign {
            nan |= magnitudes(lo.max(sign) - sign, hi - sign, true, ranges);
        }
        nan
    }
}

/// The smallest source in [0, max] where the nondecreasing test becomes true.
fn first_source_at_least(max: u64, test: impl Fn(u64) -> bool) -> Option<u64> {
    if !test(max) {
        return None;
    }
    let (mut lo, mut hi) = (0u64, max);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if test(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// Total bits of a format's encoding.
pub fn format_width(format: Format) -> u32 {
    1 + format.exponent_bits() + format.fraction_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation sequence the views accept, on the 8- and 10-bit formats, against
    /// the integer arithmetic it stands for, and every comparison's set against
    /// enumeration of all encodings.
    #[test]
    fn sets_are_exactly_the_encodings_passing_the_comparison() {
        for format in [Format::MINI8, Format::MINI10] {
            let n = format_width(format);
            let width = 16u32;
            let w_mask = low_mask(width);
            type Step = fn(BitView, u64) -> Option<BitView>;
            type Reference = fn(u64, u64, u32, u32) -> u64;
            let steps: [(&str, Step, Reference, &[u64]); 5] = [
                (
                    "shl",
                    BitView::shifted_left,
                    |v, k, w, _| (v << k) & low_mask(w),
                    &[1, 2, 9],
                ),
                ("lshr", BitView::lshr, |v, k, _, _| v >> k, &[1, 2, 3, 5]),
                (
                    "ashr",
                    BitView::ashr,
                    |v, k, w, _| {
                        let s = ((v << (64 - w)) as i64) >> (64 - w);
                        ((s >> k) as u64) & low_mask(w)
                    },
                    &[1, 3, 4],
                ),
                (
                    "and",
                    BitView::and,
                    |v, k, _, _| v & k,
                    &[0x7f, 0x1ff, 0x1f0, 0x78, 0xfff8, 0x7, 0x3c],
                ),
                (
                    "add",
                    |v, k| v.plus(k),
                    |v, k, w, _| v.wrapping_add(k) & low_mask(w),
                    &[1, 0xfff9, 3],
                ),
            ];
            // Views of the format's bits sign-extended to 16 bits (an int read of a
            // narrower float), then up to two steps.
            let start = BitView::of(format).sext(width).expect("sext of the bits");
            let reference_start = |bits: u64| {
                let s = ((bits << (64 - n)) as i64) >> (64 - n);
                (s as u64) & w_mask
            };
            let mut checked = 0;
            for (name1, step1, ref1, ks1) in &steps {
                for &k1 in *ks1 {
                    let Some(v1) = step1(start, k1) else { continue };
                    for (name2, step2, ref2, ks2) in &steps {
                        for &k2 in *ks2 {
                            let Some(v2) = step2(v1, k2) else { continue };
                            let reference = |bits: u64| {
                                ref2(ref1(reference_start(bits), k1, width, n), k2, width, n)
                            };
                            for bits in 0..(1u64 << n) {
                                assert_eq!(
                                    v2.value(bits),
                                    reference(bits),
                                    "{name1} {k1:#x}, {name2} {k2:#x} of {bits:#x}"
                                );
                            }
                            for pred in [
                                IntPredicate::Eq,
                                IntPredicate::Ne,
                                IntPredicate::Ult,
                                IntPredicate::Uge,
                                IntPredicate::Slt,
                                IntPredicate::Sle,
                                IntPredicate::Sgt,
                                IntPredicate::Ugt,
                            ] {
                                for k in [0u64, 1, 3, 0x10, 0x3c, 0x78, 0x7f, 0xfff0, 0xffff] {
                                    let set = v2.satisfying(pred, k);
                                    for bits in 0..(1u64 << n) {
                                        let passes = pred.holds(width, reference(bits), k);
                                        let value = format.from_bits(bits);
                                        match value {
                                            FloatValue::NaN => assert!(
                                                !passes || set.holds_nan(),
                                                "NaN {bits:#x} passes but the set has no NaN"
                                            ),
                                            FloatValue::Num(_) => assert_eq!(
                                                set.contains(value),
                                                passes,
                                                "{name1} {k1:#x}, {name2} {k2:#x}, {pred:?} {k:#x} at {bits:#x}"
                                            ),
                                        }
                                    }
                                    checked += 1;
                                }
                            }
                        }
                    }
                }
            }
            assert!(checked > 500, "only {checked} views checked");
        }
    }

    /// fdlibm's tests on a double's high word, against the processor's doubles.
    #[test]
    fn high_word_tests_of_doubles() {
        let format = Format::F64;
        let hi = BitView::of(format)
            .lshr(32)
            .and_then(|v| v.trunc(32))
            .expect("high word");
        let ix = hi.and(0x7fff_ffff).expect("magnitude of the high word");
        let exponent = hi
            .ashr(20)
            .and_then(|v| v.and(0x7ff))
            .and_then(|v| v.plus(0u64.wrapping_sub(0x3ff)))
            .expect("unbiased exponent");
        let samples = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.5,
            2.0,
            0.75,
            1e-300,
            -1e-310,
            f64::MIN_POSITIVE,
            f64::MAX,
            -f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            3.0e10,
            -7.25e-5,
            2f64.powi(20),
            2f64.powi(52),
            2f64.powi(52) * 1.5,
        ];
        let cases: [(BitView, IntPredicate, u64); 7] = [
            (ix, IntPredicate::Sge, 0x7ff0_0000),
            (ix, IntPredicate::Slt, 0x3e40_0000),
            (hi, IntPredicate::Slt, 0),
            (hi, IntPredicate::Slt, 0x0010_0000),
            (exponent, IntPredicate::Slt, 20),
            (exponent, IntPredicate::Sgt, 51),
            (exponent, IntPredicate::Slt, 0),
        ];
        for (view, pred, k) in cases {
            let set = view.satisfying(pred, k);
            for x in samples {
                let bits = x.to_bits();
                let passes = pred.holds(32, view.value(bits), k);
                let high = (bits >> 32) as u32 as i32;
                let native = match (view == ix, view == hi) {
                    (true, _) => high & 0x7fff_ffff,
                    (_, true) => high,
                    _ => ((high >> 20) & 0x7ff) - 0x3ff,
                };
                assert_eq!(view.value(bits), native as u32 as u64, "{x}");
                if x.is_nan() {
                    assert!(!passes || set.holds_nan());
                } else {
                    assert_eq!(
                        set.contains(format.from_f64(x)),
                        passes,
                        "{pred:?} {k:#x} of {x}"
                    );
                }
            }
        }
    }

    /// fdlibm's `(ix | lx) == 0` and `((ix - 0x3ff00000) | lx) == 0`: exactly ±0 and ±1,
    /// and their negations everything else.
    #[test]
    fn a_high_part_ored_with_the_low_word_compared_with_zero() {
        let format = Format::F64;
        let bits = BitView::of(format);
        let low = bits.trunc(32).expect("the low word");
        let ix = bits
            .lshr(32)
            .and_then(|v| v.trunc(32))
            .and_then(|v| v.and(0x7fff_ffff))
            .expect("ix");
        let one = ix
            .plus(0u64.wrapping_sub(0x3ff0_0000))
            .expect("ix - 0x3ff00000");
        let samples = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::from_bits(1.0f64.to_bits() + 1),
            f64::from_bits(1),
            2.0,
            0.5,
            f64::INFINITY,
            -3.5e300,
        ];
        for high in [ix, one] {
            let ored = high.or(low).expect("or with the low word");
            assert_eq!(low.or(high), Some(ored), "or is symmetric");
            let (eq, ne) = (
                ored.satisfying(IntPredicate::Eq, 0),
                ored.satisfying(IntPredicate::Ne, 0),
            );
            for x in samples {
                let native = {
                    let b = x.to_bits();
                    let hx = (b >> 32) as u32 & 0x7fff_ffff;
                    let (h, l) = (
                        if high == ix {
                            hx
                        } else {
                            hx.wrapping_sub(0x3ff0_0000)
                        },
                        b as u32,
                    );
                    h | l
                };
                assert_eq!(ored.value(x.to_bits()), u64::from(native), "{x}");
                let value = format.from_f64(x);
                assert_eq!(eq.contains(value), native == 0, "== 0 at {x}");
                assert_eq!(ne.contains(value), native != 0, "!= 0 at {x}");
            }
        }
    }

    /// fdlibm's NaN test on words, `(ix | ((lx | -lx) >> 31)) > 0x7ff00000`: exactly
    /// the NaNs (the solver's one NaN), and its negation every other double.
    #[test]
    fn the_nan_test_on_words() {
        let format = Format::F64;
        let bits = BitView::of(format);
        let lx = bits.trunc(32).expect("lx");
        let nonzero = lx
            .or(lx.negated().expect("-lx"))
            .and_then(|v| v.lshr(31))
            .expect("(lx | -lx) >> 31");
        let ix = bits
            .lshr(32)
            .and_then(|v| v.trunc(32))
            .and_then(|v| v.and(0x7fff_ffff))
            .expect("ix");
        let test = ix.or(nonzero).expect("ix | nonzero");
        let (nan, not_nan) = (
            test.satisfying(IntPredicate::Sgt, 0x7ff0_0000),
            test.satisfying(IntPredicate::Sle, 0x7ff0_0000),
        );
        assert!(nan.holds_nan() && !not_nan.holds_nan());
        for raw in [
            0x7ff0_0000_0000_0001u64,
            0x7ff8_0000_0000_0000,
            0xfff0_0000_8000_0000,
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0x0000_0000_0000_0001,
            0x8000_0000_0000_0000,
            0x3ff0_0000_0000_0000,
        ] {
            let x = f64::from_bits(raw);
            let (hx, lx) = ((raw >> 32) as u32, raw as u32);
            let native = (hx & 0x7fff_ffff) | ((lx | lx.wrapping_neg()) >> 31);
            assert_eq!(test.value(raw), u64::from(native), "{raw:#x}");
            assert_eq!(native > 0x7ff0_0000, x.is_nan(), "{raw:#x}");
            if !x.is_nan() {
                let value = format.from_f64(x);
                assert!(!nan.contains(value) && not_nan.contains(value), "{raw:#x}");
            }
        }
    }

    /// The number a view reads over a domain lies in `number_range`, and every float
    /// whose number is in a range passes `numbers_between`: by enumeration on the 8- and
    /// 10-bit formats, for a sign-extended exponent with an addend and a magnitude view.
    #[test]
    fn number_ranges_and_preimages_hold_every_float() {
        for format in [Format::MINI8, Format::MINI10] {
            let n = format_width(format);
            let bits = BitView::of(format).sext(16).expect("sext");
            let exponent = bits
                .ashr(u64::from(format.fraction_bits()))
                .and_then(|v| v.and(low_mask(format.exponent_bits())))
                .and_then(|v| v.plus(0u64.wrapping_sub(5)))
                .expect("exponent");
            let magnitude = bits.and(low_mask(n - 1)).expect("magnitude");
            let keys: Vec<i64> = (format.neg_inf().0..=format.pos_inf().0).collect();
            let encodings = 0..(1u64 << n);
            for view in [exponent, magnitude, bits] {
                for signed in [true, false] {
                    for (i, &lo) in keys.iter().enumerate().step_by(5) {
                        for &hi in keys[i..].iter().step_by(7) {
                            for nan in [false, true] {
                                let domain = FloatDomain::new(format, Fp(lo), Fp(hi), nan);
                                let (a, b) = view.number_range(&domain, signed).expect("a range");
                                for e in encodings.clone() {
                                    if domain.contains(format.from_bits(e)) {
                                        let k = view.number(e, signed);
                                        assert!(a <= k && k <= b, "{e:#x}: {k} outside [{a}, {b}]");
                                    }
                                }
                                let (ge, le) = view.numbers_between(a + 1, b, signed);
                                let kept = le.restrict(&ge.restrict(&domain));
                                for e in encodings.clone() {
                                    let value = format.from_bits(e);
                                    let k = view.number(e, signed);
                                    if domain.contains(value) && k > a && k <= b {
                                        assert!(kept.contains(value), "{e:#x} ({k}) pruned");
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// musl's `asuint64(x) << 1` (the sign dropped): `> 0xffe0000000000000` is exactly
    /// the NaNs, `== 0` the zeros.
    #[test]
    fn the_doubled_bits_drop_the_sign() {
        let format = Format::F64;
        let doubled = BitView::of(format).shifted_left(1).expect("bits << 1");
        let nan = doubled.satisfying(IntPredicate::Ugt, 0xffe0_0000_0000_0000);
        let zero = doubled.satisfying(IntPredicate::Eq, 0);
        assert!(nan.holds_nan() && nan.ranges().is_empty(), "{nan:?}");
        for x in [
            0.0,
            -0.0,
            1.0,
            -2.5,
            f64::MAX,
            f64::NEG_INFINITY,
            5e-324,
            -1e300,
        ] {
            assert_eq!(doubled.value(x.to_bits()), x.to_bits() << 1, "{x}");
            assert_eq!(zero.contains(format.from_f64(x)), x == 0.0, "{x}");
        }
    }

    /// musl's `y0`: `EXTRACT_WORDS(ix, lx, x); if ((ix<<1 | lx) == 0)` is x = ±0, and
    /// `ix<<1` on its own compares as the magnitude's high word doubled.
    #[test]
    fn the_doubled_high_word_ored_with_the_low_word_is_zero_only_at_zero() {
        let format = Format::F64;
        let bits = BitView::of(format);
        let ix = bits
            .lshr(32)
            .and_then(|v| v.trunc(32))
            .expect("the high word");
        let lx = bits.trunc(32).expect("the low word");
        let doubled = ix.shifted_left(1).expect("ix << 1");
        let zero = doubled.or(lx).expect("ix<<1 | lx");
        let is_zero = zero.satisfying(IntPredicate::Eq, 0);
        let not_zero = zero.satisfying(IntPredicate::Ne, 0);
        let big = doubled.satisfying(IntPredicate::Uge, 0x7ff0_0000 << 1);
        for x in [
            0.0,
            -0.0,
            5e-324,
            -5e-324,
            2.2e-308,
            -1.0,
            3.5,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            let b = x.to_bits();
            let reference = (((b >> 32) as u32) << 1) as u64;
            assert_eq!(doubled.value(b), reference, "{x}");
            let ored = reference | (b & 0xffff_ffff);
            assert_eq!(zero.value(b), ored, "{x}");
            let value = format.from_f64(x);
            assert_eq!(is_zero.contains(value), x == 0.0, "{x}");
            assert_eq!(not_zero.contains(value), x != 0.0, "{x}");
            assert_eq!(big.contains(value), x.is_infinite(), "{x}");
        }
        assert!(big.holds_nan() && !is_zero.holds_nan());
    }

    #[test]
    fn an_exponent_field_masked_then_shifted_is_followed() {
        // newlib's lrint: `j0 = ((i0 & 0x7ff00000) >> 20) - 1023` with i0 a signed int.
        let i0 = BitView::of(Format::F64)
            .lshr(32)
            .and_then(|v| v.trunc(32))
            .expect("the high word");
        let field = i0.and(0x7ff0_0000).expect("the exponent bits");
        for shifted in [
            field.ashr(20),
            field.lshr(20),
            field.lshr(4),
            field.ashr(24),
        ] {
            let view = shifted.expect("followed");
            for x in [0.0, -0.0, 1.0, -1.5, 3e300, -2e-310, f64::INFINITY, 5e-324] {
                let hi = (x.to_bits() >> 32) as u32 & 0x7ff0_0000;
                let shift = if view == field.lshr(4).expect("followed") {
                    4
                } else {
                    20
                };
                let shift = if view == field.ashr(24).expect("followed") {
                    24
                } else {
                    shift
                };
                assert_eq!(view.value(x.to_bits()), u64::from(hi >> shift), "{x}");
            }
        }
        let j0 = field
            .ashr(20)
            .and_then(|v| v.plus(0u64.wrapping_sub(1023) & 0xffff_ffff));
        let set = j0.expect("j0").satisfying(IntPredicate::Slt, 20);
        assert!(set.contains(Format::F64.from_f64(1.0)));
        assert!(!set.contains(Format::F64.from_f64(2f64.powi(20))));
        assert!(set.contains(Format::F64.from_f64(-(2f64.powi(19)))));
    }

    #[test]
    fn low_words_and_fields_are_refused() {
        let bits = BitView::of(Format::F64);
        let low = bits.trunc(32).expect("the low word");
        assert_eq!(
            low.satisfying(IntPredicate::Eq, 0),
            FloatSet::everything(Format::F64)
        );
        assert_eq!(low.and(1), None, "an operation on the low word");
        let hi = bits.lshr(32).and_then(|v| v.trunc(32)).expect("high word");
        assert_eq!(hi.and(0x000f_ffff), None, "the significand's field");
        assert_eq!(
            hi.plus(1).and_then(|v| v.lshr(1)),
            None,
            "a shift after an addition"
        );
    }
}
