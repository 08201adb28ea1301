//! Seed inputs every search starts from: the special values of each float type and the
//! values where the function's own constants change its behaviour.

use fpscout_ir::{Const, FloatTy, FuncId, InstKind, Module, Operand};
use std::collections::HashSet;

/// At most this many seed points per function.
pub const MAX_SEEDS: usize = 4096;

/// The float constants of `func` and of the module functions it calls, as f64 values.
pub fn float_constants(module: &Module, func: FuncId) -> Vec<f64> {
    let mut seen_funcs = HashSet::new();
    let mut stack = vec![func];
    let mut values = Vec::new();
    let mut seen_values = HashSet::new();
    while let Some(f) = stack.pop() {
        if !seen_funcs.insert(f) {
            continue;
        }
        let function = module.function(f);
        let kinds = function
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .map(|i| &i.kind);
        let phi_operands = function
            .blocks
            .iter()
            .flat_map(|b| &b.phis)
            .flat_map(|p| p.incoming.iter().map(|(_, o)| o));
        let mut operands: Vec<&Operand> = phi_operands.collect();
        for kind in kinds {
            if let InstKind::Call { callee, .. } = kind {
                stack.push(*callee);
            }
            operands.extend(kind.operands());
        }
        for o in operands {
            if let Operand::Const(Const::Float { ty, bits }) = o {
                let v = match ty {
                    FloatTy::F64 => f64::from_bits(*bits),
                    FloatTy::F32 => f64::from(f32::from_bits(*bits as u32)),
                };
                if v.is_finite() && seen_values.insert(v.to_bits()) {
                    values.push(v);
                }
            }
        }
    }
    values
}

fn bits_of(v: f64, ty: FloatTy) -> u64 {
    match ty {
        FloatTy::F64 => v.to_bits(),
        FloatTy::F32 => u64::from((v as f32).to_bits()),
    }
}

/// The value of `bits` as an f64 (exact for both formats).
fn value_of(bits: u64, ty: FloatTy) -> f64 {
    match ty {
        FloatTy::F64 => f64::from_bits(bits),
        FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
    }
}

/// The next float of `ty` after `bits` towards +inf (`up`) or -inf, for finite values.
fn step(bits: u64, ty: FloatTy, up: bool) -> u64 {
    match ty {
        FloatTy::F64 => {
            let x = f64::from_bits(bits);
            (if up { x.next_up() } else { x.next_down() }).to_bits()
        }
        FloatTy::F32 => {
            let x = f32::from_bits(bits as u32);
            u64::from((if up { x.next_up() } else { x.next_down() }).to_bits())
        }
    }
}

/// The special values of a format: ±0, ±inf, a quiet NaN and one with a payload, the
/// smallest and largest subnormal and normal magnitudes of both signs, ±1.
fn special_values(ty: FloatTy) -> Vec<u64> {
    let (min_sub, max_sub, min_norm, max) = match ty {
        FloatTy::F64 => (
            f64::from_bits(1),
            f64::from_bits(0x000f_ffff_ffff_ffff),
            f64::MIN_POSITIVE,
            f64::MAX,
        ),
        FloatTy::F32 => (
            f64::from(f32::from_bits(1)),
            f64::from(f32::from_bits(0x007f_ffff)),
            f64::from(f32::MIN_POSITIVE),
            f64::from(f32::MAX),
        ),
    };
    let mut out: Vec<u64> = [0.0, f64::INFINITY, 1.0, min_sub, max_sub, min_norm, max]
        .into_iter()
        .flat_map(|v| [bits_of(v, ty), bits_of(-v, ty)])
        .collect();
    out.extend(match ty {
        FloatTy::F64 => [0x7ff8_0000_0000_0000, 0x7ff8_0000_0000_0001],
        FloatTy::F32 => [0x7fc0_0000, 0x7fc0_0001],
    });
    out
}

/// The seeds of one input: special values, and each constant `c` of the function with
/// `-c` and the floats either side of both; inside `range` when it has one (plus its ends).
fn input_seeds(ty: FloatTy, range: Option<(f64, f64)>, constants: &[f64]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut push = |b: u64, out: &mut Vec<u64>| {
        if seen.insert(b) {
            out.push(b);
        }
    };
    if let Some((lo, hi)) = range {
        push(bits_of(lo, ty), &mut out);
        push(bits_of(hi, ty), &mut out);
    }
    for b in special_values(ty) {
        push(b, &mut out);
    }
    for &c in constants {
        for v in [c, -c] {
            let b = bits_of(v, ty);
            if !value_of(b, ty).is_finite() {
                continue;
            }
            for b in [b, step(b, ty, true), step(b, ty, false)] {
                push(b, &mut out);
            }
        }
    }
    if let Some((lo, hi)) = range {
        out.retain(|&b| {
            let v = value_of(b, ty);
            v >= lo && v <= hi
        });
    }
    out
}

/// Seed points for inputs of types `tys` (ranges as given): every input's seeds with the
/// others at 1 (or their range's low end), every special value in all inputs at once,
/// and for two inputs every pair of seeds; at most [`MAX_SEEDS`], in that order.
pub fn seed_points(
    tys: &[FloatTy],
    ranges: &[Option<(f64, f64)>],
    constants: &[f64],
) -> Vec<Vec<u64>> {
    let per_input: Vec<Vec<u64>> = tys
        .iter()
        .zip(ranges)
        .map(|(&t, &r)| input_seeds(t, r, constants))
        .collect();
    let base: Vec<u64> = tys
        .iter()
        .zip(ranges)
        .map(|(&t, r)| match r {
            Some((lo, hi)) if !(*lo..=*hi).contains(&1.0) => bits_of(*lo, t),
            _ => bits_of(1.0, t),
        })
        .collect();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut push = |p: Vec<u64>, out: &mut Vec<Vec<u64>>| {
        if out.len() < MAX_SEEDS && seen.insert(p.clone()) {
            out.push(p);
        }
    };
    for (i, seeds) in per_input.iter().enumerate() {
        for &s in seeds {
            let mut p = base.clone();
            p[i] = s;
            push(p, &mut out);
        }
    }
    if tys.len() > 1 {
        let free: Vec<usize> = (0..tys.len()).filter(|&i| ranges[i].is_none()).collect();
        if !free.is_empty() {
            for k in 0..special_values(FloatTy::F64).len() {
                let mut p = base.clone();
                for &i in &free {
                    p[i] = special_values(tys[i])[k];
                }
                push(p, &mut out);
            }
        }
    }
    if let [a, b] = per_input.as_slice() {
        for &x in a {
            for &y in b {
                push(vec![x, y], &mut out);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_input_gets_every_special_value_and_the_constants_neighbours() {
        let seeds = seed_points(&[FloatTy::F32], &[None], &[3e19]);
        let values: Vec<u32> = seeds.iter().map(|p| p[0] as u32).collect();
        for special in [
            0u32,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7fc0_0001,
            1,
            0x807f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
            0x3f80_0000,
            0xbf80_0000,
        ] {
            assert!(values.contains(&special), "{special:#x}");
        }
        let c = 3e19f32.to_bits();
        for b in [c, c + 1, c - 1, c | 0x8000_0000] {
            assert!(values.contains(&b), "{b:#x}");
        }
        assert_eq!(values.len(), 16 + 6);
    }

    #[test]
    fn ranges_keep_seeds_inside_and_two_inputs_pair_up() {
        let seeds = seed_points(
            &[FloatTy::F64, FloatTy::F64],
            &[Some((0.5, 2.0)), None],
            &[1.5],
        );
        assert!(seeds.iter().all(|p| {
            let x = f64::from_bits(p[0]);
            (0.5..=2.0).contains(&x)
        }));
        let first: HashSet<u64> = seeds.iter().map(|p| p[0]).collect();
        for v in [0.5, 2.0, 1.0, 1.5, 1.5f64.next_up(), 1.5f64.next_down()] {
            assert!(first.contains(&v.to_bits()), "{v}");
        }
        // Every pair of the two inputs' seeds is there.
        assert!(seeds.contains(&vec![2.0f64.to_bits(), f64::NAN.to_bits()]));
        assert!(seeds.len() <= MAX_SEEDS);
    }
}
