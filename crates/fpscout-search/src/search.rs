//! The search pipeline every mode shares: its inputs (parameters as searched floats,
//! fixed integers, arrays), deadlines, candidate floats from solver models, their
//! neighbourhoods and random inputs.

use crate::InputError;
use fpscout_ir::{FloatTy, Function, ScalarTy, Type};
use fpscout_smt::numeral::{float_value, floats_around, round_to_float};
use fpscout_smt::{ExactArg, ParamSpec};
use fpscout_walk::concrete::ArgBits;
use rand::Rng;
use rug::Rational;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// How the user fixed the parameters of a searched function.
#[derive(Clone, Copy, Debug)]
pub struct InputOptions<'a> {
    /// `--range name=lo:hi` per float parameter (arrays: every element).
    pub ranges: &'a HashMap<String, (f64, f64)>,
    /// Values of integer parameters (`--int name=v`); default 0.
    pub ints: &'a HashMap<String, i64>,
    /// Lengths of array parameters (`--array-len name=n`); default `search::default_array_len`.
    pub array_lens: &'a HashMap<String, usize>,
}

/// The searched inputs of one function: its parameters' specs, the float inputs they
/// introduce (name, type) and their ranges, in one order.
#[derive(Clone, Debug)]
pub struct InputSpace {
    pub specs: Vec<ParamSpec>,
    pub inputs: Vec<(String, FloatTy)>,
    pub ranges: Vec<Option<(f64, f64)>>,
    pub tys: Vec<FloatTy>,
    /// Per parameter, the length of an array parameter (for the native driver).
    pub lens: Vec<Option<usize>>,
}

impl InputSpace {
    /// The input space of `f`, or why it cannot be searched.
    pub fn of(f: &Function, cfg: &InputOptions, mode: &str) -> Result<InputSpace, InputError> {
        let space = InputSpace::allowing_no_floats(f, cfg, mode)?;
        if space.inputs.is_empty() {
            return Err(InputError(format!(
                "{} has no floating-point inputs to search",
                f.display_name
            )));
        }
        Ok(space)
    }

    /// As [`InputSpace::of`], for a mode that also decides functions without float
    /// inputs (`reach` runs a deterministic program once).
    pub fn allowing_no_floats(
        f: &Function,
        cfg: &InputOptions,
        mode: &str,
    ) -> Result<InputSpace, InputError> {
        let specs = float_inputs(f, cfg, mode)?;
        let inputs: Vec<(String, FloatTy)> = specs.iter().flat_map(|s| s.inputs()).collect();
        let ranges = input_ranges(&specs);
        let tys = inputs.iter().map(|(_, t)| *t).collect();
        let lens = specs
            .iter()
            .map(|s| match s {
                ParamSpec::FloatArray { len, .. } => Some(*len),
                ParamSpec::IntArray { values, .. } => Some(values.len()),
                _ => None,
            })
            .collect();
        Ok(InputSpace {
            specs,
            inputs,
            ranges,
            tys,
            lens,
        })
    }

    /// The input space of `f` once per assignment of its integer parameters, each
    /// taking a value from `--int`, else values spread over its `--range` (see
    /// [`int_range_values`]), else the values of `unfixed`. Assignment k gives each
    /// parameter its k-th value (cycling), so there are as many assignments as the
    /// longest list has values (one when no integer is sampled).
    pub fn assignments(
        f: &Function,
        cfg: &InputOptions,
        mode: &str,
        unfixed: &[i64],
    ) -> Result<Vec<InputSpace>, InputError> {
        let space = InputSpace::of(f, cfg, mode)?;
        let values: Vec<Option<Vec<i64>>> = f
            .params
            .iter()
            .map(|p| {
                let Type::Scalar(ScalarTy::Int(w)) = p.ty else {
                    return None;
                };
                Some(if let Some(v) = cfg.ints.get(&p.name) {
                    vec![*v]
                } else if let Some(&range) = cfg.ranges.get(&p.name) {
                    int_range_values(range, w, p.unsigned)
                } else if unfixed.is_empty() {
                    vec![0]
                } else {
                    unfixed.to_vec()
                })
            })
            .collect();
        let count = values.iter().flatten().map(Vec::len).max().unwrap_or(1);
        Ok((0..count)
            .map(|k| {
                let mut one = space.clone();
                for (spec, (p, vals)) in one.specs.iter_mut().zip(f.params.iter().zip(&values)) {
                    if let (ParamSpec::Int { bits }, Some(vals), Type::Scalar(ScalarTy::Int(w))) =
                        (spec, vals, p.ty)
                    {
                        *bits = fpscout_ir::truncate_bits(vals[k % vals.len()] as u64, w);
                    }
                }
                one
            })
            .collect())
    }

    /// The value of each integer parameter in this space, by name (sign-extended).
    pub fn integers(&self, f: &Function) -> Vec<(String, i64)> {
        f.params
            .iter()
            .zip(&self.specs)
            .filter_map(|(p, s)| match (p.ty, s) {
                (Type::Scalar(ScalarTy::Int(w)), ParamSpec::Int { bits }) => {
                    Some((p.name.clone(), fpscout_ir::sign_extend(*bits, w)))
                }
                _ => None,
            })
            .collect()
    }

    /// Argument bits from per-input float bits.
    pub fn assemble(&self, floats: &[u64]) -> Vec<ArgBits> {
        assemble(&self.specs, floats)
    }

    /// The per-input float bits of arguments (inverse of [`InputSpace::assemble`]).
    pub fn flatten(&self, args: &[ArgBits]) -> Vec<u64> {
        self.specs
            .iter()
            .zip(args)
            .flat_map(|(s, x)| match (s, x) {
                (ParamSpec::Float { .. }, ArgBits::Scalar(b)) => vec![*b],
                (ParamSpec::FloatArray { .. }, ArgBits::Array(v)) => v.clone(),
                _ => vec![],
            })
            .collect()
    }

    /// A random finite input (see [`random_input`]).
    pub fn random(&self, rng: &mut impl Rng) -> Vec<ArgBits> {
        self.assemble(&random_input(rng, &self.inputs, &self.ranges))
    }

    /// Whether the space has integer arrays (an SV-COMP harness's integer nondets),
    /// whose values the float search does not explore.
    pub fn has_integer_arrays(&self) -> bool {
        self.specs
            .iter()
            .any(|s| matches!(s, ParamSpec::IntArray { .. }))
    }

    /// As [`InputSpace::random`], the integer arrays' elements drawn too (see
    /// [`random_integer`]).
    pub fn random_with_integers(&self, rng: &mut impl Rng) -> Vec<ArgBits> {
        let mut args = self.random(rng);
        for (spec, arg) in self.specs.iter().zip(&mut args) {
            if let (ParamSpec::IntArray { width, .. }, ArgBits::Array(values)) = (spec, arg) {
                for v in values.iter_mut() {
                    *v = fpscout_ir::truncate_bits(random_integer(rng) as u64, *width);
                }
            }
        }
        args
    }
}

/// The function `name` of one build of a session, with its input space (`mode` names
/// the command in errors).
pub fn searched_function<'s>(
    session: &'s crate::session::Session,
    build: fpscout_toolchain::BuildKind,
    name: &str,
    cfg: &InputOptions,
    mode: &str,
) -> Result<(&'s fpscout_ir::Module, fpscout_ir::FuncId, InputSpace), InputError> {
    let module = session.module(build)?;
    let func = session.function(build, name)?;
    let space = InputSpace::of(module.function(func), cfg, mode)?;
    Ok((module, func, space))
}

/// The instant `seconds` after `start`; `None` (no limit) when it is not representable.
pub fn after(start: Instant, seconds: f64) -> Option<Instant> {
    std::time::Duration::try_from_secs_f64(seconds)
        .ok()
        .and_then(|d| start.checked_add(d))
}

/// The earlier of two deadlines (`None` is no deadline).
pub fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// Every `--range`, `--int` and `--array-len` names a parameter of the right kind.
fn check_named_parameters(f: &Function, cfg: &InputOptions) -> Result<(), InputError> {
    let names = || {
        f.params
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let given = [
        ("--range", cfg.ranges.keys().collect::<Vec<_>>()),
        ("--int", cfg.ints.keys().collect()),
        ("--array-len", cfg.array_lens.keys().collect()),
    ];
    for (flag, keys) in given {
        let mut keys = keys;
        keys.sort();
        for name in keys {
            let Some(p) = f.params.iter().find(|p| &p.name == name) else {
                return Err(InputError(format!(
                    "{flag} {name}=...: {} has no parameter '{name}' (its parameters: {})",
                    f.display_name,
                    names()
                )));
            };
            let fits = match flag {
                "--range" => {
                    if let Type::Scalar(ScalarTy::Int(w)) = p.ty {
                        let (lo, hi) = cfg.ranges[name];
                        if int_range_bounds((lo, hi), w, p.unsigned).is_none() {
                            return Err(InputError(format!(
                                "--range {name}={lo}:{hi}: integer parameter '{name}' of {} \
                                 has no value in [{lo}, {hi}]",
                                f.display_name
                            )));
                        }
                        true
                    } else {
                        let float = match (p.ty, p.pointee) {
                            (Type::Scalar(ScalarTy::Float(ty)), _) => Some(ty),
                            (Type::Scalar(ScalarTy::Ptr), Some(ScalarTy::Float(ty))) => Some(ty),
                            _ => None,
                        };
                        let (lo, hi) = cfg.ranges[name];
                        if float.is_some_and(|ty| fit_in_range(lo, ty, (lo, hi)).is_none()) {
                            return Err(InputError(format!(
                                "--range {name}={lo}:{hi}: parameter '{name}' of {} holds no `float` \
                                 value in [{lo}, {hi}]",
                                f.display_name
                            )));
                        }
                        float.is_some()
                    }
                }
                "--int" => matches!(p.ty, Type::Scalar(ScalarTy::Int(_))),
                _ => p.ty == Type::PTR,
            };
            if !fits {
                return Err(InputError(format!(
                    "{flag} {name}=...: parameter '{name}' of {} is {}, which {flag} does not apply to",
                    f.display_name, p.ty
                )));
            }
        }
    }
    Ok(())
}

/// How each parameter of `f` enters a search: floats and float arrays searched, integers
/// fixed; `mode` names the command in the error for other types.
pub fn float_inputs(
    f: &Function,
    cfg: &InputOptions,
    mode: &str,
) -> Result<Vec<ParamSpec>, InputError> {
    check_named_parameters(f, cfg)?;
    let mut specs = Vec::new();
    for p in &f.params {
        let range = cfg.ranges.get(&p.name).copied();
        specs.push(match (p.ty, p.pointee) {
            (Type::Scalar(ScalarTy::Float(ty)), _) => ParamSpec::Float {
                name: p.name.clone(),
                ty,
                range,
            },
            (Type::Scalar(ScalarTy::Int(w)), _) => {
                let v = match (cfg.ints.get(&p.name), range) {
                    (Some(v), _) => *v,
                    (None, Some(range)) => int_range_values(range, w, p.unsigned)[0],
                    (None, None) => 0,
                };
                ParamSpec::Int {
                    bits: fpscout_ir::truncate_bits(v as u64, w),
                }
            }
            (Type::Scalar(ScalarTy::Ptr), Some(ScalarTy::Float(ty))) => ParamSpec::FloatArray {
                name: p.name.clone(),
                ty,
                len: cfg
                    .array_lens
                    .get(&p.name)
                    .copied()
                    .unwrap_or_else(|| default_array_len(p)),
                range,
            },
            // `exceptions` and `diff` prove exceptions absent with the float solver, which
            // would hold for these zeros only, and nothing would say so.
            (Type::Scalar(ScalarTy::Ptr), Some(ScalarTy::Int(_)))
                if p.name == crate::svcomp::INTEGERS_PARAM
                    && !INTEGER_NONDET_MODES.contains(&mode) =>
            {
                return Err(InputError(format!(
                    "{mode} does not search integer nondets (__VERIFIER_nondet_int()…): its \
                     proofs would hold for one value of them only; {} take them",
                    INTEGER_NONDET_MODES.join(" and ")
                )))
            }
            // The integer nondets of an SV-COMP harness: zeros, as an unfixed integer
            // parameter is 0 (`reach` draws other values in its random phase).
            (Type::Scalar(ScalarTy::Ptr), Some(ScalarTy::Int(width)))
                if p.name == crate::svcomp::INTEGERS_PARAM =>
            {
                let len = cfg
                    .array_lens
                    .get(&p.name)
                    .copied()
                    .unwrap_or_else(|| default_array_len(p));
                ParamSpec::IntArray {
                    name: p.name.clone(),
                    width,
                    values: vec![0; len],
                }
            }
            (ty, _) => {
                return Err(InputError(format!(
                    "{mode} supports float, integer and float-array parameters; '{}' is {ty}",
                    p.name
                )))
            }
        });
    }
    Ok(specs)
}

/// The modes that take an SV-COMP harness's integer nondets, fixed at 0 in their
/// searches: `reach` never refutes with them (see `modes::reach`), `error` only measures.
const INTEGER_NONDET_MODES: [&str; 2] = ["reach", "error"];

/// Elements searched in an array parameter without `--array-len`: 8, or as many as the
/// body reaches at constant indices, so no input runs past the buffer.
pub fn default_array_len(p: &fpscout_ir::Param) -> usize {
    usize::try_from(p.min_elements).map_or(DEFAULT_ARRAY_LEN, |n| n.max(DEFAULT_ARRAY_LEN))
}

const DEFAULT_ARRAY_LEN: usize = 8;

/// The lowest and highest value of an integer of `width` bits (`unsigned` or not)
/// inside `range`, or `None` when there is none.
fn int_range_bounds(range: (f64, f64), width: u32, unsigned: bool) -> Option<(i128, i128)> {
    let width = width.clamp(1, 64);
    let (min, max): (i128, i128) = if unsigned {
        (0, (1i128 << width) - 1)
    } else {
        (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
    };
    // Casts saturate: a bound beyond every i128 is clamped to the type's range below.
    let lo = (range.0.ceil() as i128).max(min);
    let hi = (range.1.floor() as i128).min(max);
    (lo <= hi).then_some((lo, hi))
}

/// How many integers of `width` bits (`unsigned` or not) lie in `range`.
pub fn int_range_len(range: (f64, f64), width: u32, unsigned: bool) -> u128 {
    int_range_bounds(range, width, unsigned).map_or(0, |(lo, hi)| (hi - lo) as u128 + 1)
}

/// The values an integer parameter with `--range` is sampled at: its lowest and highest
/// integer in the range and two spread between (fewer when the range holds fewer).
/// Unsigned 64-bit values above `i64::MAX` are given as their two's-complement bits.
pub fn int_range_values(range: (f64, f64), width: u32, unsigned: bool) -> Vec<i64> {
    let Some((lo, hi)) = int_range_bounds(range, width, unsigned) else {
        return vec![0];
    };
    let mut values: Vec<i64> = [lo, lo + (hi - lo) / 3, lo + 2 * (hi - lo) / 3, hi]
        .into_iter()
        .map(|v| v as i64)
        .collect();
    values.dedup();
    values
}

/// Boundaries of the C integer types (each value in range of the narrower types is
/// unchanged by their conversions), drawn by [`random_integer`].
const INTEGER_BOUNDARIES: [i64; 14] = [
    i8::MIN as i64,
    i8::MAX as i64,
    u8::MAX as i64,
    i16::MIN as i64,
    i16::MAX as i64,
    u16::MAX as i64,
    i32::MIN as i64,
    i32::MAX as i64,
    u32::MAX as i64,
    i64::MIN,
    i64::MAX,
    -1,
    0,
    1,
];

/// A random integer for a nondet call of any integer type: small values (loop counts,
/// flags, enumerations) half of the time, a type's boundary or a neighbour of one an
/// eighth, otherwise a magnitude of random bit length, so every width gets values in its
/// range and at its edges.
pub fn random_integer(rng: &mut impl Rng) -> i64 {
    match rng.gen_range(0..8) {
        0..=3 => rng.gen_range(-16..=16),
        4 => {
            let edge = INTEGER_BOUNDARIES[rng.gen_range(0..INTEGER_BOUNDARIES.len())];
            edge.wrapping_add(rng.gen_range(-2..=2))
        }
        _ => {
            let bits = rng.gen_range(1..=63);
            let magnitude = rng.gen_range(0..=(i64::MAX >> (63 - bits)));
            if rng.gen_bool(0.5) {
                -magnitude
            } else {
                magnitude
            }
        }
    }
}

/// The range of each float input, in the order of `ParamSpec::inputs`.
pub fn input_ranges(specs: &[ParamSpec]) -> Vec<Option<(f64, f64)>> {
    specs
        .iter()
        .flat_map(|s| match s {
            ParamSpec::Float { range, .. } => vec![*range],
            ParamSpec::FloatArray { len, range, .. } => vec![*range; *len],
            ParamSpec::Int { .. } | ParamSpec::IntArray { .. } => vec![],
        })
        .collect()
}

/// Builds argument bits from per-input float bits (in the order of `ParamSpec::inputs`).
pub fn assemble(specs: &[ParamSpec], floats: &[u64]) -> Vec<ArgBits> {
    let mut it = floats.iter().copied();
    specs
        .iter()
        .map(|s| match s {
            ParamSpec::Float { .. } => ArgBits::Scalar(it.next().unwrap_or(0)),
            ParamSpec::Int { bits } => ArgBits::Scalar(*bits),
            ParamSpec::IntArray { values, .. } => ArgBits::Array(values.clone()),
            ParamSpec::FloatArray { len, .. } => {
                ArgBits::Array((0..*len).map(|_| it.next().unwrap_or(0)).collect())
            }
        })
        .collect()
}

/// Neighbouring inputs of a candidate, in the order they are tried.
pub fn neighbours(
    center: &[u64],
    around: &[(u64, u64)],
    tys: &[FloatTy],
    budget: usize,
) -> Vec<Vec<u64>> {
    let mut out: Vec<Vec<u64>> = vec![center.to_vec()];
    let step = |bits: u64, ty: FloatTy, k: i64| -> u64 {
        let mut b = bits;
        for _ in 0..k.unsigned_abs() {
            let x = match ty {
                FloatTy::F64 => f64::from_bits(b),
                FloatTy::F32 => f64::from(f32::from_bits(b as u32)),
            };
            let up = k > 0;
            b = match ty {
                FloatTy::F64 => (if up { x.next_up() } else { x.next_down() }).to_bits(),
                FloatTy::F32 => u64::from(
                    (if up {
                        (x as f32).next_up()
                    } else {
                        (x as f32).next_down()
                    })
                    .to_bits(),
                ),
            };
        }
        b
    };
    // The floats just below and above each rational coordinate.
    for (i, &(lo, hi)) in around.iter().enumerate() {
        for v in [lo, hi] {
            let mut c = center.to_vec();
            c[i] = v;
            out.push(c);
        }
    }
    // ±k ulps per coordinate and jointly.
    for k in [1i64, 2, 3, 4, 8, 16, 64, 256] {
        for sign in [1, -1] {
            for i in 0..center.len() {
                let mut c = center.to_vec();
                c[i] = step(c[i], tys[i], sign * k);
                out.push(c);
            }
            out.push(
                center
                    .iter()
                    .zip(tys)
                    .map(|(&b, &t)| step(b, t, sign * k))
                    .collect(),
            );
        }
    }
    // Geometric steps across exponents: scale each coordinate by 2^±j.
    for j in [1i32, 4, 16, 64, 256] {
        for sign in [1, -1] {
            for i in 0..center.len() {
                let mut c = center.to_vec();
                let scale = 2f64.powi(sign * j);
                c[i] = match tys[i] {
                    FloatTy::F64 => (f64::from_bits(c[i]) * scale).to_bits(),
                    FloatTy::F32 => {
                        u64::from((f32::from_bits(c[i] as u32) * scale as f32).to_bits())
                    }
                };
                out.push(c);
            }
        }
    }
    // Inputs stay finite: a geometric step can overflow.
    let mut seen = HashSet::new();
    out.retain(|c| {
        c.iter().zip(tys).all(|(&b, &t)| is_finite_bits(b, t)) && seen.insert(c.clone())
    });
    out.truncate(budget.max(1));
    out
}

/// `x` clamped into `range`, as bits of `ty`: the float of `ty` nearest `x` that lies in
/// the range (a `float` rounded out of it is stepped back in); `None` when `x` is NaN or
/// the range holds no finite float of `ty`.
pub fn fit_in_range(x: f64, ty: FloatTy, (lo, hi): (f64, f64)) -> Option<u64> {
    if x.is_nan() || lo.is_nan() || hi.is_nan() || lo > hi {
        return None;
    }
    let x = x.clamp(lo, hi);
    let bits = match ty {
        FloatTy::F64 => x.to_bits(),
        FloatTy::F32 => {
            let mut y = x as f32;
            if f64::from(y) > hi {
                y = y.next_down();
            }
            if f64::from(y) < lo {
                y = y.next_up();
            }
            u64::from(y.to_bits())
        }
    };
    let value = match ty {
        FloatTy::F64 => f64::from_bits(bits),
        FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
    };
    (is_finite_bits(bits, ty) && lo <= value && value <= hi).then_some(bits)
}

pub fn is_finite_bits(bits: u64, ty: FloatTy) -> bool {
    match ty {
        FloatTy::F64 => f64::from_bits(bits).is_finite(),
        FloatTy::F32 => f32::from_bits(bits as u32).is_finite(),
    }
}

/// A value uniform in [lo, hi] (finite ends). `rand` overflows on a range wider than
/// about half the largest double (`0:1.7976931348623157e308`), so such a range is drawn
/// at a quarter of its scale and multiplied by 4 (exact).
fn uniform_in(rng: &mut impl Rng, lo: f64, hi: f64) -> f64 {
    if hi - lo <= f64::MAX / 4.0 {
        rng.gen_range(lo..=hi)
    } else {
        4.0 * rng.gen_range(lo / 4.0..=hi / 4.0)
    }
}

/// Random finite inputs: uniform inside ranges; otherwise half random bit patterns and
/// half random magnitudes (uniform exponent) with random signs.
pub fn random_input(
    rng: &mut impl Rng,
    tys: &[(String, FloatTy)],
    ranges: &[Option<(f64, f64)>],
) -> Vec<u64> {
    tys.iter()
        .zip(ranges)
        .map(|((_, ty), range)| loop {
            let bits = match range {
                // A range without a float of `ty` is refused before any search
                // (`check_named_parameters`); its lower end stands in here.
                Some((lo, hi)) => fit_in_range(uniform_in(rng, *lo, *hi), *ty, (*lo, *hi))
                    .unwrap_or_else(|| lo.to_bits()),
                None if rng.gen_bool(0.5) => match ty {
                    FloatTy::F64 => rng.gen::<u64>(),
                    FloatTy::F32 => u64::from(rng.gen::<u32>()),
                },
                None => {
                    let sign = if rng.gen_bool(0.5) { -1.0 } else { 1.0 };
                    match ty {
                        FloatTy::F64 => {
                            (sign * 2f64.powf(rng.gen_range(-1074.0..1024.0))).to_bits()
                        }
                        FloatTy::F32 => u64::from(
                            (sign as f32 * 2f32.powf(rng.gen_range(-149.0..128.0))).to_bits(),
                        ),
                    }
                }
            };
            if is_finite_bits(bits, *ty) {
                break bits;
            }
        })
        .collect()
}

/// Random inputs half of whose coordinates (each independently, inside its range) are
/// values where numerical code changes behaviour (see [`structured_value`]) rather than
/// random floats: what plain random testing over all exponents almost never draws.
pub fn structured_input(
    rng: &mut impl Rng,
    tys: &[(String, FloatTy)],
    ranges: &[Option<(f64, f64)>],
    constants: &[f64],
) -> Vec<u64> {
    let mut bits = random_input(rng, tys, ranges);
    for (((_, ty), range), b) in tys.iter().zip(ranges).zip(bits.iter_mut()) {
        if rng.gen_bool(0.5) {
            continue;
        }
        if let Some(x) = fit_value(structured_value(rng, constants), *ty, range) {
            *b = x;
        }
    }
    bits
}

/// The bits of `v` as a finite float of `ty` inside `range`, or `None` (outside it, or
/// not finite in `ty`).
fn fit_value(v: f64, ty: FloatTy, range: &Option<(f64, f64)>) -> Option<u64> {
    match range {
        Some((lo, hi)) if (*lo..=*hi).contains(&v) => fit_in_range(v, ty, (*lo, *hi)),
        Some(_) => None,
        None => {
            let bits = match ty {
                FloatTy::F64 => v.to_bits(),
                FloatTy::F32 => u64::from((v as f32).to_bits()),
            };
            is_finite_bits(bits, ty).then_some(bits)
        }
    }
}

/// `parent` (float bits per input) with one coordinate, and each other with probability
/// 1/n, changed: a structured value, a random float, moved by 2^k ulps, scaled by a power
/// of two, or negated; a change leaving the coordinate's range or the finite floats is
/// not made. Inputs whose behaviour was new are explored this way.
pub fn mutated_input(
    rng: &mut impl Rng,
    tys: &[(String, FloatTy)],
    ranges: &[Option<(f64, f64)>],
    constants: &[f64],
    parent: &[u64],
) -> Vec<u64> {
    let mut out = parent.to_vec();
    let n = out.len().min(tys.len());
    if n == 0 {
        return out;
    }
    let always = rng.gen_range(0..n);
    let fresh = random_input(rng, tys, ranges);
    for i in 0..n {
        if i != always && !rng.gen_bool(1.0 / n as f64) {
            continue;
        }
        let ty = tys[i].1;
        let value = |bits: u64| match ty {
            FloatTy::F64 => f64::from_bits(bits),
            FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
        };
        let x = value(out[i]);
        let changed = match rng.gen_range(0..5) {
            0 => structured_value(rng, constants),
            1 => value(fresh[i]),
            2 => {
                let ulps = 1i64 << rng.gen_range(0..52);
                let ulps = if rng.gen_bool(0.5) { ulps } else { -ulps };
                match ty {
                    FloatTy::F64 => {
                        f64::from_bits((x.to_bits() as i64).saturating_add(ulps) as u64)
                    }
                    FloatTy::F32 => f64::from(f32::from_bits(
                        ((x as f32).to_bits() as i64).saturating_add(ulps >> 29) as u32,
                    )),
                }
            }
            3 => x * 2f64.powi(rng.gen_range(-64..=64)),
            _ => -x,
        };
        if let Some(bits) = fit_value(changed, ty, &ranges[i]) {
            out[i] = bits;
        }
    }
    out
}

/// One value where numerical code changes behaviour: a small integer or half-integer
/// (poles, reflection and recurrence points), one of the function's constants negated,
/// scaled by a power of two or inverted (thresholds on other scales), a constant or a
/// special magnitude (1, the smallest and largest normal and subnormal) moved by a
/// random number of ulps of every size, or a power of ten.
pub fn structured_value(rng: &mut impl Rng, constants: &[f64]) -> f64 {
    let sign = if rng.gen_bool(0.5) { -1.0 } else { 1.0 };
    let moved = |rng: &mut dyn rand::RngCore, x: f64| {
        let ulps = (1i64 << rng.gen_range(0..44)) + rng.gen_range(-2i64..=2);
        let bits = x.to_bits() as i64 + if rng.gen_bool(0.5) { ulps } else { -ulps };
        f64::from_bits(bits.max(0) as u64)
    };
    let constant = |rng: &mut dyn rand::RngCore| {
        (!constants.is_empty()).then(|| constants[rng.gen_range(0..constants.len())].abs())
    };
    match rng.gen_range(0..7) {
        0 => f64::from(rng.gen_range(-64i32..=64)),
        1 => f64::from(rng.gen_range(-64i32..=64)) + 0.5,
        2 => {
            let top = 1u32 << rng.gen_range(6..31);
            sign * f64::from(rng.gen_range(0..top))
        }
        3 => match constant(rng) {
            Some(c) if rng.gen_bool(0.2) && c != 0.0 => sign / c,
            Some(c) => sign * c * 2f64.powi(rng.gen_range(-8..=8)),
            None => sign,
        },
        4 => {
            let c = constant(rng).unwrap_or(1.0);
            sign * moved(rng, c)
        }
        5 => {
            let special = [1.0, f64::MIN_POSITIVE, f64::MAX, f64::from_bits(1)];
            let pick = special[rng.gen_range(0..special.len())];
            sign * moved(rng, pick)
        }
        _ => sign * 10f64.powi(rng.gen_range(-308..=308)),
    }
}

/// A model's exact values as floats: the nearest float of each coordinate, and the floats
/// just below and above it (all finite: inputs are finite).
pub fn model_floats(values: &[Rational], tys: &[FloatTy]) -> (Vec<u64>, Vec<(u64, u64)>) {
    let center = values
        .iter()
        .zip(tys)
        .map(|(q, &t)| clamp_finite(round_to_float(q, t), t))
        .collect();
    let around = values
        .iter()
        .zip(tys)
        .map(|(q, &t)| {
            let (lo, hi) = floats_around(q, t);
            (clamp_finite(lo, t), clamp_finite(hi, t))
        })
        .collect();
    (center, around)
}

pub fn clamp_finite(bits: u64, ty: FloatTy) -> u64 {
    match ty {
        FloatTy::F64 => {
            let v = f64::from_bits(bits);
            if v == f64::INFINITY {
                f64::MAX.to_bits()
            } else if v == f64::NEG_INFINITY {
                f64::MIN.to_bits()
            } else {
                bits
            }
        }
        FloatTy::F32 => {
            let v = f32::from_bits(bits as u32);
            if v == f32::INFINITY {
                u64::from(f32::MAX.to_bits())
            } else if v == f32::NEG_INFINITY {
                u64::from(f32::MIN.to_bits())
            } else {
                bits
            }
        }
    }
}

/// Argument bits as exact rationals, for an exact evaluation (`None` for a NaN or an
/// infinity, or arguments that do not fit the specs).
pub fn exact_args(specs: &[ParamSpec], input: &[ArgBits]) -> Option<Vec<ExactArg>> {
    specs
        .iter()
        .zip(input)
        .map(|(s, x)| match (s, x) {
            (ParamSpec::Float { ty, .. }, ArgBits::Scalar(bits)) => {
                float_value(*bits, *ty).map(ExactArg::Real)
            }
            (ParamSpec::Int { .. }, ArgBits::Scalar(bits)) => Some(ExactArg::Int(*bits)),
            (ParamSpec::FloatArray { ty, .. }, ArgBits::Array(v)) => v
                .iter()
                .map(|&b| float_value(b, *ty))
                .collect::<Option<Vec<Rational>>>()
                .map(ExactArg::Array),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {

    #[test]
    fn structured_inputs_draw_integers_and_constants_on_other_scales_inside_ranges() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let tys = [
            ("x".to_string(), FloatTy::F64),
            ("y".to_string(), FloatTy::F32),
        ];
        let constant = 709.782712893384;
        let (mut integers, mut scaled, mut near, mut poles) = (0, 0, 0, 0);
        let draws = 20_000;
        for _ in 0..draws {
            let p = structured_input(&mut rng, &tys, &[None, Some((-3.0, 3.0))], &[constant]);
            let (x, y) = (f64::from_bits(p[0]), f64::from(f32::from_bits(p[1] as u32)));
            assert!(x.is_finite(), "{x}");
            assert!((-3.0..=3.0).contains(&y), "{y} outside its range");
            if x.fract() == 0.0 && x.abs() <= 64.0 {
                integers += 1;
            }
            if x < 0.0 && x.fract() == 0.0 && x >= -64.0 {
                poles += 1;
            }
            let ratio = (x / constant).abs();
            if ratio != 1.0 && ratio.log2().fract() == 0.0 && ratio.log2().abs() <= 8.0 {
                scaled += 1;
            }
            let ulps = (x.abs().to_bits() as i64 - constant.to_bits() as i64).unsigned_abs();
            if (1..1 << 45).contains(&ulps) {
                near += 1;
            }
        }
        // Half the coordinates are structured, a seventh of those each kind: hundreds of
        // each in 20,000 draws, where random floats over all exponents give none.
        for (what, count) in [
            ("integers", integers),
            ("negative integers", poles),
            ("scaled constants", scaled),
            ("near the constant", near),
        ] {
            assert!(count > draws / 100, "{what}: {count}");
        }
    }

    #[test]
    fn a_range_as_wide_as_the_doubles_is_sampled_inside_it() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let tys = [("x".to_string(), FloatTy::F64)];
        for range in [(-f64::MAX, f64::MAX), (0.0, f64::MAX), (-1e308, 1e308)] {
            for _ in 0..1000 {
                let x = f64::from_bits(random_input(&mut rng, &tys, &[Some(range)])[0]);
                assert!(range.0 <= x && x <= range.1, "{x} outside {range:?}");
            }
        }
    }
    use super::*;

    #[test]
    fn random_integers_reach_every_type_and_its_edges() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let drawn: HashSet<i64> = (0..20_000).map(|_| random_integer(&mut rng)).collect();
        for edge in [
            0,
            1,
            -1,
            255,
            -128,
            65535,
            i64::from(i32::MAX),
            i64::from(i32::MIN),
        ] {
            assert!(drawn.contains(&edge), "{edge} never drawn");
        }
        assert!(drawn.contains(&i64::MAX) && drawn.contains(&i64::MIN));
        // Values of every magnitude, not only edges and small ones.
        assert!(drawn
            .iter()
            .any(|v| (1u64 << 40..1u64 << 50).contains(&v.unsigned_abs())));
        assert!(drawn.iter().any(|v| (1000..1 << 15).contains(v)));
    }

    #[test]
    fn integer_parameters_are_sampled_unless_fixed() {
        use fpscout_ir::Param;
        let param = |name: &str, ty| Param {
            name: name.into(),
            ty,
            pointee: None,
            min_elements: 0,
            unsigned: false,
        };
        let f = Function {
            name: "f".into(),
            display_name: "f".into(),
            params: vec![
                param("x", Type::Scalar(ScalarTy::Float(FloatTy::F64))),
                param("n", Type::Scalar(ScalarTy::Int(32))),
                param("k", Type::Scalar(ScalarTy::Int(32))),
            ],
            ret: Type::Scalar(ScalarTy::Float(FloatTy::F64)),
            blocks: Vec::new(),
            num_values: 3,
            external: true,
            loc: None,
            unsupported: None,
        };
        let ints = HashMap::from([("k".to_string(), -7)]);
        let ranges = HashMap::from([("n".to_string(), (10.0, 40.0))]);
        let no_lens = HashMap::new();
        let options = InputOptions {
            ranges: &ranges,
            ints: &ints,
            array_lens: &no_lens,
        };
        let assigned = |unfixed: &[i64]| -> Vec<Vec<u64>> {
            InputSpace::assignments(&f, &options, "exceptions", unfixed)
                .expect("space")
                .iter()
                .map(|s| {
                    s.specs
                        .iter()
                        .filter_map(|p| match p {
                            ParamSpec::Int { bits } => Some(*bits),
                            _ => None,
                        })
                        .collect()
                })
                .collect()
        };
        let k = fpscout_ir::truncate_bits(-7i64 as u64, 32);
        // The samples of unfixed integers do not matter: both are fixed.
        for unfixed in [&[][..], &[0, 1, 2, 3][..]] {
            assert_eq!(assigned(unfixed), [[10, k], [20, k], [30, k], [40, k]]);
        }
        // A range on an integer with no integer inside is refused, naming it.
        let empty = HashMap::from([("n".to_string(), (0.25, 0.75))]);
        let refused = InputSpace::of(
            &f,
            &InputOptions {
                ranges: &empty,
                ..options
            },
            "diff",
        );
        assert_eq!(
            refused.err().map(|e| e.0).as_deref(),
            Some("--range n=0.25:0.75: integer parameter 'n' of f has no value in [0.25, 0.75]")
        );
    }

    #[test]
    fn a_value_fitted_into_a_range_stays_in_it_in_its_own_format() {
        let f32_bits = |x: f32| u64::from(x.to_bits());
        // 0.2 rounds up to a float above 0.2: the float below is the range's top.
        let top = fit_in_range(5.0, FloatTy::F32, (0.1, 0.2)).expect("a float");
        assert_eq!(top, f32_bits(0.2f32.next_down()));
        assert!(f64::from(f32::from_bits(top as u32)) <= 0.2);
        assert_eq!(
            fit_in_range(-3.0, FloatTy::F64, (1.0, 2.0)),
            Some(1f64.to_bits())
        );
        assert_eq!(
            fit_in_range(1.5, FloatTy::F64, (1.0, 2.0)),
            Some(1.5f64.to_bits())
        );
        // No float lies in [0.1, 0.1]; NaN fits nowhere.
        assert_eq!(fit_in_range(0.1, FloatTy::F32, (0.1, 0.1)), None);
        assert_eq!(fit_in_range(f64::NAN, FloatTy::F64, (1.0, 2.0)), None);
    }

    #[test]
    fn an_integer_range_is_sampled_at_its_ends_and_two_values_between() {
        assert_eq!(int_range_values((10.0, 40.0), 32, false), [10, 20, 30, 40]);
        assert_eq!(int_range_values((0.5, 2.5), 32, false), [1, 2]);
        // Clamped to what the type holds.
        assert_eq!(int_range_values((-5.0, 300.0), 8, true), [0, 85, 170, 255]);
        assert_eq!(int_range_len((-5.0, 300.0), 8, true), 256);
        assert_eq!(int_range_len((0.25, 0.75), 32, false), 0);
    }
}
