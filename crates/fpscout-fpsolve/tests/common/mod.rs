//! Shared helpers of the soundness tests: value enumeration, random domains, modes.
#![allow(dead_code)]

use fpscout_fpsolve::{Arith, FloatDomain, FloatValue, Format, Fp};
use rand::Rng;

/// IEEE and the three FTZ/DAZ combinations.
pub const MODES: [Arith; 4] = [
    Arith::IEEE,
    Arith {
        flush_to_zero: true,
        denormals_are_zero: false,
    },
    Arith {
        flush_to_zero: false,
        denormals_are_zero: true,
    },
    Arith {
        flush_to_zero: true,
        denormals_are_zero: true,
    },
];

/// Every value of a domain (NaN last).
pub fn values(domain: &FloatDomain) -> Vec<FloatValue> {
    let mut all: Vec<FloatValue> = domain.range().map_or(Vec::new(), |(lo, hi)| {
        (lo.0..=hi.0).map(|k| FloatValue::Num(Fp(k))).collect()
    });
    if domain.may_be_nan() {
        all.push(FloatValue::NaN);
    }
    all
}

/// Every value of a format, NaN included.
pub fn all_values(format: Format) -> Vec<FloatValue> {
    values(&FloatDomain::full(format))
}

/// Index of a value in `all_values(format)`.
pub fn index(format: Format, value: FloatValue) -> usize {
    match value {
        FloatValue::Num(x) => (x.0 - format.neg_inf().0) as usize,
        FloatValue::NaN => format.count(format.neg_inf(), format.pos_inf()) as usize,
    }
}

/// Keys worth hitting: the ends, zeros, subnormal and normal boundaries, ±1.
pub fn special_keys(format: Format) -> Vec<Fp> {
    let one = match format.from_f64(1.0) {
        FloatValue::Num(x) => x,
        FloatValue::NaN => format.pos_zero(),
    };
    let positives = [
        format.min_subnormal(),
        format.min_normal(),
        Fp(format.min_normal().0 - 1),
        one,
        format.max_finite(),
        format.pos_inf(),
    ];
    let mut keys = vec![format.pos_zero(), format.neg_zero()];
    for x in positives {
        keys.push(x);
        keys.push(format.negate(x));
    }
    keys
}

/// A random key: uniform, special, or near a special one.
pub fn random_key(rng: &mut impl Rng, format: Format) -> Fp {
    let specials = special_keys(format);
    let (lo, hi) = (format.neg_inf().0, format.pos_inf().0);
    match rng.gen_range(0..3) {
        0 => Fp(rng.gen_range(lo..=hi)),
        1 => specials[rng.gen_range(0..specials.len())],
        _ => {
            let base = specials[rng.gen_range(0..specials.len())].0;
            Fp((base + rng.gen_range(-3..=3)).clamp(lo, hi))
        }
    }
}

/// A random domain: a point, a narrow or a wide range, or only NaN; NaN allowed half the time.
pub fn random_domain(rng: &mut impl Rng, format: Format) -> FloatDomain {
    let nan = rng.gen_bool(0.5);
    let a = random_key(rng, format);
    let b = match rng.gen_range(0..4) {
        0 => a,
        1 => Fp((a.0 + rng.gen_range(-4..=4)).clamp(format.neg_inf().0, format.pos_inf().0)),
        _ => random_key(rng, format),
    };
    if rng.gen_range(0..20) == 0 {
        return FloatDomain::nan_only(format);
    }
    FloatDomain::new(format, a.min(b), a.max(b), nan)
}

/// A random domain containing `value`: the value widened by a random number of keys each side.
pub fn domain_around(rng: &mut impl Rng, format: Format, value: FloatValue) -> FloatDomain {
    let widths = [0i64, 1, 2, 7, 1 << 10, 1 << 20, 1 << 40, i64::MAX / 4];
    let nan = value == FloatValue::NaN || rng.gen_bool(0.3);
    let center = match value {
        FloatValue::Num(x) => x,
        FloatValue::NaN => {
            return FloatDomain::new(format, random_key(rng, format), format.pos_inf(), true)
        }
    };
    let (down, up) = (
        widths[rng.gen_range(0..widths.len())],
        widths[rng.gen_range(0..widths.len())],
    );
    let lo = Fp(center.0.saturating_sub(down).max(format.neg_inf().0));
    let hi = Fp(center.0.saturating_add(up).min(format.pos_inf().0));
    FloatDomain::new(format, lo, hi, nan)
}

/// A random value of a wide format, biased toward special and boundary values.
pub fn random_value(rng: &mut impl Rng, format: Format) -> FloatValue {
    if rng.gen_range(0..30) == 0 {
        return FloatValue::NaN;
    }
    FloatValue::Num(random_key(rng, format))
}
