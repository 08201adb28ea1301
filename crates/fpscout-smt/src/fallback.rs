//! Ariadne's fallback solver: concretize all but one input, then search floats around the real roots of what is left.
//!
//! For a query Z3 could not settle, one input `x` stays free and every other input gets a
//! random float; elementary-function results (dependents) are recomputed from those with
//! glibc. What remains is a formula in `x` alone whose atoms compare rational functions
//! of `x`: their numerators' and denominators' real roots cut the line into cells on which
//! every atom keeps its truth value, so trying the floats next to each root and one float
//! inside each cell covers every way the formula can hold — over the floats, which is
//! what matters (a real solution between two floats is no solution). Each candidate is
//! checked exactly, so a model is always a true one.

use crate::collect::{encode, verdict_of, Verdict};
use crate::isolate::Pool;
use crate::numeral::{float_value, floats_around, rational_to_real, real_value, round_to_float};
use crate::roots::{Poly, RootError, RootInterval};
use crate::symbolic::Dependent;
use fpscout_ir::{FloatTy, MathFn};
use fpscout_walk::concrete::x86::{call_libm, libm, Env, LibmFn, MXCSR_DEFAULT};
use rug::Rational;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::time::{Duration, Instant};
use z3::ast::{Ast, Bool, Dynamic, Real};
use z3::{AstKind, DeclKind, SortKind};

/// One float input of the query.
#[derive(Clone, Debug, PartialEq)]
pub struct FallbackInput {
    pub name: String,
    pub ty: FloatTy,
    /// The user's range, whose floats concretization draws from.
    pub range: Option<(f64, f64)>,
}

#[derive(Clone, Copy, Debug)]
pub struct FallbackOptions {
    /// Random concretizations tried before giving up.
    pub concretizations: u32,
    /// Time limit of one query (the worker is killed at it; the search itself stops a
    /// little earlier so that it can answer).
    pub timeout_ms: u32,
    pub jobs: usize,
    pub seed: u64,
}

impl Default for FallbackOptions {
    fn default() -> Self {
        FallbackOptions {
            concretizations: 16,
            timeout_ms: 2_000,
            jobs: 1,
            seed: 0,
        }
    }
}

/// Beyond these the univariate formula is not worth a root search.
const MAX_DEGREE: usize = 160;
/// Versions of a term (one per combination of `ite` branches).
const MAX_VERSIONS: usize = 64;
const MAX_POLYNOMIALS: usize = 512;
/// Candidate floats checked per concretization.
const MAX_CANDIDATES: usize = 4_096;

/// Fallback workers for a fixed set of formulas, in forked children like
/// [`crate::QueryPool`]'s (Z3 never runs in the long-lived process).
pub struct FallbackPool<'a> {
    pool: Pool<'a>,
}

impl<'a> FallbackPool<'a> {
    pub fn new(
        formulas: &'a [Bool],
        inputs: &[FallbackInput],
        dependents: &'a [Dependent],
        opts: FallbackOptions,
    ) -> Self {
        let inputs = inputs.to_vec();
        let work = move |i: usize| {
            // Each formula its own random stream, independent of the batch it runs in.
            let opts = FallbackOptions {
                seed: opts.seed ^ splitmix(i as u64),
                ..opts
            };
            encode(&fallback_solve(&formulas[i], &inputs, dependents, &opts))
        };
        FallbackPool {
            pool: Pool::new(
                opts.jobs,
                Duration::from_millis(opts.timeout_ms.into()),
                Box::new(work),
            ),
        }
    }

    /// Verdicts on the formulas `which` (indices), in order; Sat values follow `inputs`.
    pub fn solve(&mut self, which: &[usize], deadline: Option<Instant>) -> Vec<Verdict> {
        self.pool
            .run(which, deadline)
            .into_iter()
            .map(verdict_of)
            .collect()
    }
}

/// The fallback search on one formula, in this process (the caller isolates it). Sat
/// carries the exact values of `inputs`, every one a float of its type, that make the
/// formula true; otherwise Unknown with the reason of the last attempt.
pub fn fallback_solve(
    formula: &Bool,
    inputs: &[FallbackInput],
    dependents: &[Dependent],
    opts: &FallbackOptions,
) -> Verdict {
    let stop = Instant::now() + Duration::from_millis(u64::from(opts.timeout_ms) * 9 / 10);
    let mut rng = Rng(opts.seed);
    let plan = Plan::new(formula, inputs, dependents);
    let mut reason = String::from("no concretization tried");
    for round in 0..opts.concretizations.max(1) {
        if Instant::now() >= stop {
            return Verdict::Unknown(format!("fallback: time limit after {round} rounds"));
        }
        let free = if plan.free.is_empty() {
            None
        } else {
            Some(plan.free[round as usize % plan.free.len()])
        };
        match attempt(formula, inputs, dependents, &plan, free, &mut rng, stop) {
            Ok(values) => return Verdict::Sat(values),
            Err(why) => reason = why,
        }
    }
    Verdict::Unknown(format!(
        "fallback: {} concretizations failed; last: {reason}",
        opts.concretizations.max(1)
    ))
}

/// What the formula mentions and what can stay free.
struct Plan {
    /// Dependents to evaluate (those the formula mentions, and those their definitions
    /// mention), by index into the table, in table order.
    needed: Vec<usize>,
    /// Inputs the formula mentions that no needed dependent depends on (indices).
    free: Vec<usize>,
}

impl Plan {
    fn new(formula: &Bool, inputs: &[FallbackInput], dependents: &[Dependent]) -> Plan {
        let mentioned = free_constants(&[Dynamic::from_ast(formula)]);
        let dep_index: HashMap<&str, usize> = dependents
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name.as_str(), i))
            .collect();
        // Inputs each dependent depends on, transitively (table order is topological).
        let mut reach: Vec<HashSet<String>> = Vec::with_capacity(dependents.len());
        let mut uses: Vec<Vec<usize>> = Vec::with_capacity(dependents.len());
        for d in dependents {
            let mut inputs_of = HashSet::new();
            let mut deps_of = Vec::new();
            if let Some((_, args, _)) = &d.def {
                let args: Vec<Dynamic> = args.iter().map(Dynamic::from).collect();
                for name in free_constants(&args) {
                    match dep_index.get(name.as_str()) {
                        Some(&j) if j < reach.len() => {
                            inputs_of.extend(reach[j].iter().cloned());
                            deps_of.push(j);
                        }
                        _ => {
                            inputs_of.insert(name);
                        }
                    }
                }
            }
            reach.push(inputs_of);
            uses.push(deps_of);
        }
        let mut needed_set: HashSet<usize> = mentioned
            .iter()
            .filter_map(|n| dep_index.get(n.as_str()).copied())
            .collect();
        let mut stack: Vec<usize> = needed_set.iter().copied().collect();
        while let Some(d) = stack.pop() {
            for &j in &uses[d] {
                if needed_set.insert(j) {
                    stack.push(j);
                }
            }
        }
        let mut needed: Vec<usize> = needed_set.into_iter().collect();
        needed.sort_unstable();
        let bound: HashSet<&str> = needed
            .iter()
            .flat_map(|&d| reach[d].iter().map(String::as_str))
            .collect();
        let free = inputs
            .iter()
            .enumerate()
            .filter(|(_, v)| mentioned.contains(&v.name) && !bound.contains(v.name.as_str()))
            .map(|(i, _)| i)
            .collect();
        Plan { needed, free }
    }
}

/// One concretization and the search over the free input.
fn attempt(
    formula: &Bool,
    inputs: &[FallbackInput],
    dependents: &[Dependent],
    plan: &Plan,
    free: Option<usize>,
    rng: &mut Rng,
    stop: Instant,
) -> Result<Vec<Rational>, String> {
    let mut values: Vec<Option<Rational>> = vec![None; inputs.len()];
    let mut pairs: Vec<(Real, Real)> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        if Some(i) == free {
            continue;
        }
        let bits = random_float(rng, input.ty, input.range);
        let q = float_value(bits, input.ty).ok_or("a random float is not finite")?;
        pairs.push((Real::new_const(input.name.as_str()), rational_to_real(&q)));
        values[i] = Some(q);
    }
    for &d in &plan.needed {
        let dep = &dependents[d];
        let q = match &dep.def {
            Some((func, args, ty)) => evaluate_dependent(*func, args, *ty, &pairs)
                .map_err(|why| format!("{}: {why}", dep.name))?,
            None => {
                let bits = random_float(rng, FloatTy::F64, None);
                float_value(bits, FloatTy::F64).ok_or("a random float is not finite")?
            }
        };
        pairs.push((Real::new_const(dep.name.as_str()), rational_to_real(&q)));
    }
    let refs: Vec<(&Real, &Real)> = pairs.iter().map(|(a, b)| (a, b)).collect();
    let rest = formula.substitute(&refs).simplify();
    let Some(x) = free else {
        return match rest.as_bool() {
            Some(true) => Ok(values.into_iter().map(Option::unwrap_or_default).collect()),
            _ => Err("every input feeds a dependent; the random point fails".into()),
        };
    };
    if rest.as_bool() == Some(false) {
        return Err("the concretized formula is false".into());
    }
    let input = &inputs[x];
    let bits = search_univariate(&rest, &input.name, input.ty, stop)?;
    values[x] = float_value(bits, input.ty);
    Ok(values.into_iter().map(Option::unwrap_or_default).collect())
}

/// The value glibc computes for `func` on the arguments rounded to `ty`, exactly.
fn evaluate_dependent(
    func: MathFn,
    args: &[Real],
    ty: FloatTy,
    pairs: &[(Real, Real)],
) -> Result<Rational, String> {
    let refs: Vec<(&Real, &Real)> = pairs.iter().map(|(a, b)| (a, b)).collect();
    let mut bits = Vec::with_capacity(args.len());
    for a in args {
        let v = a.substitute(&refs).simplify();
        let q = real_value(&v, 40).ok_or_else(|| format!("argument {v} is not a number"))?;
        bits.push(round_to_float(&q, ty));
    }
    let f = libm(LibmFn::Math(func), ty == FloatTy::F32)
        .ok_or_else(|| format!("glibc has no {}", func.c_name()))?;
    let (r, _flags) = call_libm(f, &bits, Env::Isolated(MXCSR_DEFAULT));
    float_value(r, ty).ok_or_else(|| format!("{} is not finite there", func.c_name()))
}

/// A float value of `x` making `formula` (which mentions no other variable) true.
fn search_univariate(formula: &Bool, x: &str, ty: FloatTy, stop: Instant) -> Result<u64, String> {
    let polys = critical_polynomials(formula, x)?;
    let mut roots: Vec<(RootInterval, i64, i64)> = Vec::new();
    let out_of_time = |_| "time limit while isolating roots".to_string();
    for p in &polys {
        let sf = p.square_free_until(Some(stop)).map_err(out_of_time)?;
        for r in sf
            .isolate_square_free_roots_until(Some(stop))
            .map_err(out_of_time)?
        {
            roots.push(narrow_to_floats(&sf, r, ty, stop).map_err(out_of_time)?);
        }
    }
    let candidates = candidate_floats(&mut roots, ty);
    let var = Real::new_const(x);
    for ord in candidates.into_iter().take(MAX_CANDIDATES) {
        if Instant::now() >= stop {
            return Err("time limit while checking candidates".into());
        }
        let bits = from_ordinal(ord, ty);
        let Some(q) = float_value(bits, ty) else {
            continue;
        };
        let at = formula
            .substitute(&[(&var, &rational_to_real(&q))])
            .simplify();
        if at.as_bool() == Some(true) {
            return Ok(bits);
        }
    }
    Err(format!(
        "no float satisfies the formula in {x} (around {} roots of {} polynomials)",
        roots.len(),
        polys.len()
    ))
}

/// Refines a root's interval until its ends round to the same or adjacent floats; the
/// root lies between the returned float ordinals (inclusive). Err once `stop` has passed.
fn narrow_to_floats(
    square_free: &Poly,
    r: RootInterval,
    ty: FloatTy,
    stop: Instant,
) -> Result<(RootInterval, i64, i64), RootError> {
    let bracket = |r: &RootInterval| {
        let lo = ordinal(floats_around(&r.lo, ty).0, ty);
        let hi = ordinal(floats_around(&r.hi, ty).1, ty);
        (lo, hi)
    };
    // From the root bound down to the spacing of subnormals takes about 2200 halvings.
    let r = square_free.refine_square_free(
        &r,
        |r| {
            let (lo, hi) = bracket(r);
            hi.saturating_sub(lo) <= 1
        },
        2_400,
        Some(stop),
    )?;
    let (lo, hi) = bracket(&r);
    Ok((r, lo, hi))
}

/// Floats next to every root, and inside every cell between consecutive roots (the float
/// nearest the cell's midpoint, the one halfway through the floats of the cell, and
/// those next to its ends), as ordinals, without repetition.
fn candidate_floats(roots: &mut [(RootInterval, i64, i64)], ty: FloatTy) -> Vec<i64> {
    roots.sort_by(|a, b| a.0.lo.cmp(&b.0.lo));
    let max = max_ordinal(ty);
    let mut out = Vec::new();
    for (_, lo, hi) in roots.iter() {
        out.extend([*lo - 1, *lo, *hi, *hi + 1]);
    }
    // Cells, the two unbounded ones included.
    let mut ends: Vec<(Option<&Rational>, i64)> = vec![(None, -max)];
    for (r, lo, hi) in roots.iter() {
        ends.push((Some(&r.lo), *lo));
        ends.push((Some(&r.hi), *hi));
    }
    ends.push((None, max));
    for cell in ends[..].chunks(2) {
        let [(left_q, left), (right_q, right)] = cell else {
            continue;
        };
        let halfway = (i128::from(*left) + i128::from(*right)) / 2;
        out.extend([*left + 1, *right - 1, halfway as i64]);
        if let (Some(a), Some(b)) = (left_q, right_q) {
            let mid = Rational::from(*a + *b) / 2u32;
            out.push(ordinal(round_to_float(&mid, ty), ty));
        }
    }
    out.extend([
        0,
        ordinal(float_bits(1.0, ty), ty),
        -ordinal(float_bits(1.0, ty), ty),
    ]);
    let mut seen = HashSet::new();
    out.retain(|o| o.abs() <= max && seen.insert(*o));
    out
}

/// Polynomials whose real roots bound the cells on which every comparison in `formula`
/// keeps its truth value: numerators and denominators of each side difference.
fn critical_polynomials(formula: &Bool, x: &str) -> Result<Vec<Poly>, String> {
    let mut polys: Vec<Poly> = Vec::new();
    let mut seen_polys = HashSet::new();
    let mut memo: HashMap<Dynamic, Rc<Vec<RatFn>>> = HashMap::new();
    let mut visited = HashSet::new();
    let mut stack = vec![Dynamic::from_ast(formula)];
    while let Some(node) = stack.pop() {
        if !visited.insert(node.clone()) || node.kind() != AstKind::App {
            continue;
        }
        let children = node.children();
        let kind = operator(&node);
        let arithmetic_sides = children
            .first()
            .is_some_and(|c| matches!(c.sort_kind(), SortKind::Real | SortKind::Int));
        let is_comparison = matches!(
            kind,
            Some(DeclKind::Le | DeclKind::Ge | DeclKind::Lt | DeclKind::Gt)
        ) || (matches!(kind, Some(DeclKind::Eq | DeclKind::Distinct))
            && arithmetic_sides);
        if is_comparison {
            let sides: Vec<Rc<Vec<RatFn>>> = children
                .iter()
                .map(|c| term_versions(c, x, &mut memo))
                .collect::<Result<_, _>>()?;
            for (i, a) in sides.iter().enumerate() {
                for b in &sides[i + 1..] {
                    for fa in a.iter() {
                        for fb in b.iter() {
                            let d = fa.sub(fb)?;
                            for p in [d.num, d.den] {
                                if p.degree().unwrap_or(0) > 0 && seen_polys.insert(p.clone()) {
                                    polys.push(p);
                                }
                            }
                        }
                    }
                }
            }
            if polys.len() > MAX_POLYNOMIALS {
                return Err(format!("more than {MAX_POLYNOMIALS} polynomials"));
            }
        }
        // Comparisons may hide inside terms too (ite conditions).
        stack.extend(children);
    }
    Ok(polys)
}

/// A rational function `num / den` of the free variable.
#[derive(Clone, Debug, PartialEq)]
struct RatFn {
    num: Poly,
    den: Poly,
}

impl RatFn {
    fn poly(p: Poly) -> RatFn {
        RatFn {
            num: p,
            den: Poly::constant(Rational::from(1)),
        }
    }

    /// Folds a constant denominator into the numerator and checks the degree cap.
    fn normalized(num: Poly, den: Poly) -> Result<RatFn, String> {
        let (num, den) = match den.as_constant() {
            Some(c) if c != 0 => (
                num.scale(&Rational::from(c.recip_ref())),
                Poly::constant(Rational::from(1)),
            ),
            _ => (num, den),
        };
        if num.degree().unwrap_or(0) > MAX_DEGREE || den.degree().unwrap_or(0) > MAX_DEGREE {
            return Err(format!("degree above {MAX_DEGREE}"));
        }
        Ok(RatFn { num, den })
    }

    fn add(&self, o: &RatFn) -> Result<RatFn, String> {
        if self.den == o.den {
            return RatFn::normalized(self.num.add(&o.num), self.den.clone());
        }
        RatFn::normalized(
            self.num.mul(&o.den).add(&o.num.mul(&self.den)),
            self.den.mul(&o.den),
        )
    }

    fn neg(&self) -> RatFn {
        RatFn {
            num: self.num.neg(),
            den: self.den.clone(),
        }
    }

    fn sub(&self, o: &RatFn) -> Result<RatFn, String> {
        self.add(&o.neg())
    }

    fn mul(&self, o: &RatFn) -> Result<RatFn, String> {
        RatFn::normalized(self.num.mul(&o.num), self.den.mul(&o.den))
    }

    fn div(&self, o: &RatFn) -> Result<RatFn, String> {
        RatFn::normalized(self.num.mul(&o.den), self.den.mul(&o.num))
    }
}

/// The rational functions a term can be, one per choice of its `ite` branches.
fn term_versions(
    root: &Dynamic,
    x: &str,
    memo: &mut HashMap<Dynamic, Rc<Vec<RatFn>>>,
) -> Result<Rc<Vec<RatFn>>, String> {
    // Post-order without recursion: unrolled loops make deep terms.
    let mut stack = vec![(root.clone(), false)];
    while let Some((node, ready)) = stack.pop() {
        if memo.contains_key(&node) {
            continue;
        }
        let operands = term_operands(&node);
        if !ready {
            stack.push((node, true));
            stack.extend(operands.into_iter().map(|c| (c, false)));
            continue;
        }
        let versions = combine(&node, &operands, x, memo)?;
        if versions.len() > MAX_VERSIONS {
            return Err(format!("a term with more than {MAX_VERSIONS} ite versions"));
        }
        memo.insert(node, Rc::new(versions));
    }
    memo.get(root)
        .cloned()
        .ok_or_else(|| "term left unconverted".to_string())
}

/// The arithmetic children of a term (an `ite`'s condition is not one).
fn term_operands(node: &Dynamic) -> Vec<Dynamic> {
    if node.kind() != AstKind::App {
        return Vec::new();
    }
    let children = node.children();
    if operator(node) == Some(DeclKind::Ite) {
        children.into_iter().skip(1).collect()
    } else {
        children
    }
}

fn combine(
    node: &Dynamic,
    operands: &[Dynamic],
    x: &str,
    memo: &HashMap<Dynamic, Rc<Vec<RatFn>>>,
) -> Result<Vec<RatFn>, String> {
    if node.kind() == AstKind::Numeral {
        return Ok(vec![RatFn::poly(Poly::constant(numeral_value(node)?))]);
    }
    if node.kind() != AstKind::App {
        return Err(format!("unsupported term {node}"));
    }
    let of = |c: &Dynamic| memo.get(c).cloned().ok_or("operand left unconverted");
    let all: Vec<Rc<Vec<RatFn>>> = operands.iter().map(of).collect::<Result<_, _>>()?;
    // Folds an n-ary operator over every combination of the operands' versions.
    let fold = |op: &dyn Fn(&RatFn, &RatFn) -> Result<RatFn, String>| {
        let mut acc: Vec<RatFn> = all.first().map(|v| v.to_vec()).unwrap_or_default();
        for next in &all[1..] {
            let mut out = Vec::new();
            for a in &acc {
                for b in next.iter() {
                    out.push(op(a, b)?);
                    if out.len() > MAX_VERSIONS {
                        return Err(format!("a term with more than {MAX_VERSIONS} ite versions"));
                    }
                }
            }
            acc = out;
        }
        Ok::<_, String>(acc)
    };
    if let Some(name) = constant_name(node) {
        return if name == x {
            Ok(vec![RatFn::poly(Poly::x())])
        } else {
            Err(format!("variable {name} left after concretization"))
        };
    }
    let Some(op) = operator(node) else {
        return Err(format!("unsupported term {node}"));
    };
    match op {
        DeclKind::Add => fold(&|a, b| a.add(b)),
        DeclKind::Sub => fold(&|a, b| a.sub(b)),
        DeclKind::Mul => fold(&|a, b| a.mul(b)),
        DeclKind::Div => fold(&|a, b| a.div(b)),
        DeclKind::Uminus => Ok(all
            .first()
            .map(|v| v.iter().map(RatFn::neg).collect())
            .unwrap_or_default()),
        DeclKind::ToReal => Ok(all.first().map(|v| v.to_vec()).unwrap_or_default()),
        DeclKind::Ite => Ok(all.iter().flat_map(|v| v.iter().cloned()).collect()),
        DeclKind::Power => {
            let exponent = operands
                .get(1)
                .filter(|e| e.kind() == AstKind::Numeral)
                .map(numeral_value)
                .transpose()?
                .filter(|e| e.denom() == &1 && *e >= 0 && *e <= MAX_DEGREE as u32)
                .and_then(|e| e.numer().to_u32())
                .ok_or_else(|| format!("unsupported power {node}"))?;
            let base = all.first().ok_or("power without a base")?;
            base.iter()
                .map(|b| RatFn::normalized(b.num.pow(exponent), b.den.pow(exponent)))
                .collect()
        }
        other => Err(format!("unsupported operator {other:?} in {node}")),
    }
}

/// The exact value of a real or integer numeral.
fn numeral_value(node: &Dynamic) -> Result<Rational, String> {
    let real = match node.sort_kind() {
        SortKind::Int => node.as_int().map(|i| Real::from_int(&i).simplify()),
        _ => node.as_real(),
    };
    real.and_then(|r| real_value(&r, 40))
        .ok_or_else(|| format!("unreadable numeral {node}"))
}

#[allow(clashing_extern_declarations)]
extern "C" {
    // z3-sys returns its own `DeclKind` enum, generated from a newer Z3: Debian's 4.8.12
    // numbers uninterpreted symbols (and the ops after floating point) differently, and
    // an out-of-range enum value is undefined behaviour (it crashes `decl().kind()` on a
    // constant). The raw number is read instead and mapped below.
    #[link_name = "Z3_get_decl_kind"]
    fn raw_decl_kind(c: z3_sys::Z3_context, d: z3_sys::Z3_func_decl) -> u32;
}

/// The operator of an application, for the basic and arithmetic operators (whose numbers
/// are the same in every Z3 since 4.8); None for any other symbol, constants included.
fn operator(node: &Dynamic) -> Option<DeclKind> {
    if node.kind() != AstKind::App {
        return None;
    }
    let ctx = node.get_ctx().get_z3_context();
    // SAFETY: `node` is a live application of this thread's context; its declaration is
    // read at once, without keeping it past the call.
    let raw = unsafe {
        let app = z3_sys::Z3_to_app(ctx, node.get_z3_ast())?;
        let decl = z3_sys::Z3_get_app_decl(ctx, app)?;
        raw_decl_kind(ctx, decl)
    };
    const OPERATORS: [(u32, DeclKind); 30] = [
        (0x100, DeclKind::True),
        (0x101, DeclKind::False),
        (0x102, DeclKind::Eq),
        (0x103, DeclKind::Distinct),
        (0x104, DeclKind::Ite),
        (0x105, DeclKind::And),
        (0x106, DeclKind::Or),
        (0x107, DeclKind::Iff),
        (0x108, DeclKind::Xor),
        (0x109, DeclKind::Not),
        (0x10a, DeclKind::Implies),
        (0x10b, DeclKind::Oeq),
        (0x200, DeclKind::Anum),
        (0x201, DeclKind::Agnum),
        (0x202, DeclKind::Le),
        (0x203, DeclKind::Ge),
        (0x204, DeclKind::Lt),
        (0x205, DeclKind::Gt),
        (0x206, DeclKind::Add),
        (0x207, DeclKind::Sub),
        (0x208, DeclKind::Uminus),
        (0x209, DeclKind::Mul),
        (0x20a, DeclKind::Div),
        (0x20b, DeclKind::Idiv),
        (0x20c, DeclKind::Rem),
        (0x20d, DeclKind::Mod),
        (0x20e, DeclKind::ToReal),
        (0x20f, DeclKind::ToInt),
        (0x210, DeclKind::IsInt),
        (0x211, DeclKind::Power),
    ];
    OPERATORS.iter().find(|(n, _)| *n == raw).map(|(_, k)| *k)
}

/// The name of a numeric constant (a variable), None for anything else.
fn constant_name(node: &Dynamic) -> Option<String> {
    let numeric = matches!(node.sort_kind(), SortKind::Real | SortKind::Int);
    if node.kind() != AstKind::App || node.num_children() != 0 || !numeric {
        return None;
    }
    if operator(node).is_some() {
        return None;
    }
    node.safe_decl().ok().map(|d| d.name())
}

/// The names of the uninterpreted constants in some terms.
fn free_constants(roots: &[Dynamic]) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut visited = HashSet::new();
    let mut stack: Vec<Dynamic> = roots.to_vec();
    while let Some(node) = stack.pop() {
        if !visited.insert(node.clone()) || node.kind() != AstKind::App {
            continue;
        }
        if let Some(name) = constant_name(&node) {
            names.insert(name);
        }
        stack.extend(node.children());
    }
    names
}

/// Floats in value order: consecutive floats have consecutive ordinals, ±0 is 0.
fn ordinal(bits: u64, ty: FloatTy) -> i64 {
    let (sign, magnitude) = match ty {
        FloatTy::F64 => (bits >> 63, bits & !(1 << 63)),
        FloatTy::F32 => ((bits >> 31) & 1, bits & 0x7fff_ffff),
    };
    let m = magnitude as i64;
    if sign == 1 {
        -m
    } else {
        m
    }
}

fn from_ordinal(ord: i64, ty: FloatTy) -> u64 {
    let sign = match ty {
        FloatTy::F64 => 1u64 << 63,
        FloatTy::F32 => 1u64 << 31,
    };
    if ord < 0 {
        ord.unsigned_abs() | sign
    } else {
        ord as u64
    }
}

/// The ordinal of the largest finite float.
fn max_ordinal(ty: FloatTy) -> i64 {
    match ty {
        FloatTy::F64 => f64::MAX.to_bits() as i64,
        FloatTy::F32 => i64::from(f32::MAX.to_bits()),
    }
}

fn float_bits(v: f64, ty: FloatTy) -> u64 {
    match ty {
        FloatTy::F64 => v.to_bits(),
        FloatTy::F32 => u64::from((v as f32).to_bits()),
    }
}

/// A random finite float of `ty`, inside `range` when given. Without a range, the draw
/// mixes what exception thresholds need: small integers, values near 1, any binade
/// (uniform over exponents), and values near the overflow and underflow thresholds.
fn random_float(rng: &mut Rng, ty: FloatTy, range: Option<(f64, f64)>) -> u64 {
    let max = max_ordinal(ty);
    let ord = match range {
        Some((lo, hi)) if lo <= hi => {
            let lo_ord = ordinal(round_inward(lo, ty, true), ty);
            let hi_ord = ordinal(round_inward(hi, ty, false), ty);
            if lo_ord > hi_ord {
                lo_ord
            } else {
                match rng.below(4) {
                    0 => lo_ord,
                    1 => hi_ord,
                    // Uniform in value.
                    2 => {
                        let v = lo + (hi - lo) * rng.unit();
                        ordinal(float_bits(v, ty), ty).clamp(lo_ord, hi_ord)
                    }
                    // Uniform over the floats (log-uniform in magnitude). Ordinals of
                    // opposite signs span more than i64 holds (all of binary64).
                    _ => {
                        let span = (i128::from(hi_ord) - i128::from(lo_ord)) as u64;
                        let offset = rng.below(span.saturating_add(1));
                        (i128::from(lo_ord) + i128::from(offset)) as i64
                    }
                }
            }
        }
        _ => {
            let sign = if rng.below(2) == 0 { 1 } else { -1 };
            let (mantissa_bits, exponent_max) = match ty {
                FloatTy::F64 => (52u32, 2046i64),
                FloatTy::F32 => (23, 254),
            };
            let magnitude = match rng.below(6) {
                0 => ordinal(float_bits(rng.below(9) as f64, ty), ty),
                1 => {
                    let one = ordinal(float_bits(1.0, ty), ty);
                    one + rng.below(64) as i64 - 32
                }
                2 => ordinal(float_bits(0.5 + 1.5 * rng.unit(), ty), ty),
                // Near the top: the overflow thresholds of products and quotients.
                3 => max - rng.below(1u64 << (mantissa_bits + 4)) as i64,
                // Near the bottom: subnormals and the smallest normals.
                4 => rng.below(1u64 << (mantissa_bits + 4)) as i64,
                _ => {
                    let exponent = 1 + rng.below(exponent_max as u64) as i64;
                    let mantissa = rng.below(1u64 << mantissa_bits) as i64;
                    (exponent << mantissa_bits) | mantissa
                }
            };
            sign * magnitude.clamp(0, max)
        }
    };
    from_ordinal(ord.clamp(-max, max), ty)
}

/// The float of `ty` nearest `v` on the inside of a range bound (an infinite bound is the
/// largest finite float of its sign: reading it as 0 would confine or pin the draws).
fn round_inward(v: f64, ty: FloatTy, is_lower: bool) -> u64 {
    if v.is_infinite() {
        let max = max_ordinal(ty);
        return from_ordinal(if v > 0.0 { max } else { -max }, ty);
    }
    let q = Rational::from_f64(v).unwrap_or_default();
    let (below, above) = floats_around(&q, ty);
    if is_lower {
        above
    } else {
        below
    }
}

/// SplitMix64: a small, seedable generator (reproducible searches without a dependency).
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        splitmix(self.0)
    }

    /// Uniform below `n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbolic::omega;
    use rug::{Complete, Integer};

    #[test]
    fn draws_over_all_of_binary64_stay_in_range() {
        // The ordinals of -max and +max are 2^64 - 2^53 - 2 apart: more than i64 holds.
        let mut rng = Rng(7);
        for ty in [FloatTy::F64, FloatTy::F32] {
            let max = if ty == FloatTy::F64 {
                f64::MAX
            } else {
                f64::from(f32::MAX)
            };
            for _ in 0..4000 {
                let bits = random_float(&mut rng, ty, Some((-max, max)));
                let v = match ty {
                    FloatTy::F64 => f64::from_bits(bits),
                    FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
                };
                assert!(v.is_finite() && (-max..=max).contains(&v), "{v}");
            }
        }
    }

    fn turn() -> std::sync::MutexGuard<'static, ()> {
        crate::z3_turn()
    }

    fn rat(s: &str) -> Real {
        let q: Rational = s.parse().expect("rational literal");
        rational_to_real(&q)
    }

    fn doubles(names: &[&str]) -> Vec<FallbackInput> {
        names
            .iter()
            .map(|n| FallbackInput {
                name: n.to_string(),
                ty: FloatTy::F64,
                range: None,
            })
            .collect()
    }

    fn finite(v: &Real) -> Bool {
        let om = omega(FloatTy::F64);
        Bool::and(&[v.le(&om), v.ge(-&om)])
    }

    /// Whether `formula` holds at `values` of `names`, exactly.
    fn holds(formula: &Bool, names: &[&str], values: &[Rational]) -> bool {
        let consts: Vec<Real> = names.iter().map(|n| Real::new_const(*n)).collect();
        let vals: Vec<Real> = values.iter().map(rational_to_real).collect();
        let pairs: Vec<(&Real, &Real)> = consts.iter().zip(&vals).collect();
        formula.substitute(&pairs).simplify().as_bool() == Some(true)
    }

    fn is_double(q: &Rational) -> bool {
        float_value(round_to_float(q, FloatTy::F64), FloatTy::F64).as_ref() == Some(q)
    }

    #[test]
    fn float_search_needs_a_float_not_a_real() {
        let _turn = turn();
        let x = Real::new_const("x");
        let ins = doubles(&["x"]);
        let opts = FallbackOptions::default();
        // 1 < x < 1 + 2^-60 holds for reals but for no double.
        let eps: Rational = Rational::from((1, 1u64 << 60));
        let narrow = Bool::and(&[x.gt(rat("1")), x.lt(rational_to_real(&(eps + 1u32)))]);
        assert!(matches!(
            fallback_solve(&narrow, &ins, &[], &opts),
            Verdict::Unknown(_)
        ));
        // x*x = 2 only at ±√2.
        let square = (&x * &x).eq(rat("2"));
        assert!(matches!(
            fallback_solve(&square, &ins, &[], &opts),
            Verdict::Unknown(_)
        ));
        // x*x > 2 and x < 1.5: floats between √2 and 1.5.
        let band = Bool::and(&[(&x * &x).gt(rat("2")), x.lt(rat("3/2")), finite(&x)]);
        let Verdict::Sat(v) = fallback_solve(&band, &ins, &[], &opts) else {
            panic!("a float lies in (√2, 1.5)")
        };
        assert!(is_double(&v[0]) && holds(&band, &["x"], &v), "{v:?}");
    }

    fn big_rational(s: &str) -> Rational {
        s.parse().expect("rational literal")
    }

    /// The truth value of a univariate formula at `x = v`, exactly; None where it is not
    /// a boolean (a division by zero left symbolic).
    fn truth_at(formula: &Bool, v: &Rational) -> Option<bool> {
        let x = Real::new_const("x");
        formula
            .substitute(&[(&x, &rational_to_real(v))])
            .simplify()
            .as_bool()
    }

    #[test]
    fn every_atom_keeps_its_truth_value_on_each_cell_between_critical_roots() {
        let _turn = turn();
        let x = Real::new_const("x");
        let one = rat("1");
        // ite(x² > 2, x, 1/(x − 1)) < (x³ − 3x)/(x + 1)
        let branchy = (&x * &x).gt(rat("2")).ite(&x, &(&one / &(&x - &one)));
        let cubic = &(&(&x * &x) * &x) - &(&rat("3") * &x);
        let a1 = branchy.lt(&(&cubic / &(&x + &one)));
        // x/(x − 3) ≥ 2, true on (3, 6]
        let a2 = (&x / &(&x - rat("3"))).ge(rat("2"));
        // (x − 4)(x − 5) = 0, true at 4 and 5 only (inside (3, 6), where a2 holds)
        let a3 = (&(&x - rat("4")) * &(&x - rat("5"))).eq(rat("0"));
        let formula = Bool::or(&[Bool::and(&[a1, a2.not()]), a3]);

        let polys = critical_polynomials(&formula, "x").unwrap();
        // Isolated, with irrational roots narrowed far below the sampling steps.
        let tiny = big_rational("1/1152921504606846976"); // 2^-60
        let mut zones: Vec<(Rational, Rational)> = Vec::new();
        for p in &polys {
            for r in p.isolate_roots().unwrap() {
                let r = p.refine(&r, &tiny);
                zones.push((r.lo, r.hi));
            }
        }
        zones.sort();
        // The same root of two polynomials gives overlapping intervals: one zone.
        let mut merged: Vec<(Rational, Rational)> = Vec::new();
        for (lo, hi) in zones {
            match merged.last_mut() {
                Some(last) if lo <= last.1 => {
                    if hi > last.1 {
                        last.1 = hi;
                    }
                }
                _ => merged.push((lo, hi)),
            }
        }
        let exact: Vec<&Rational> = merged
            .iter()
            .filter(|(lo, hi)| lo == hi)
            .map(|(lo, _)| lo)
            .collect();
        for expected in ["-1", "1", "3", "4", "5", "6"] {
            let v = big_rational(expected);
            assert!(
                exact.contains(&&v),
                "{expected} should be an exact root: {merged:?}"
            );
        }
        // √2 (the ite's condition) is a root too, inside a narrow zone.
        assert!(merged.iter().any(|(lo, hi)| {
            lo != hi && Rational::from(lo * lo) < 2 && Rational::from(hi * hi) > 2 && *lo > 0
        }));

        // Open cells between consecutive zones, the outer ones cut off far away.
        let far = big_rational("1000000000000000000000000000000");
        let mut ends = vec![Rational::from(-&far)];
        for (lo, hi) in &merged {
            ends.push(lo.clone());
            ends.push(hi.clone());
        }
        ends.push(far);
        let mut cell_values = Vec::new();
        for cell in ends.chunks(2) {
            let (a, b) = (&cell[0], &cell[1]);
            let width = Rational::from(b - a);
            let near_end = Rational::from(&width / Integer::from(1u64 << 40));
            let mut samples: Vec<Rational> = (1..20u32)
                .map(|t| a + Rational::from(&width * t) / 20u32)
                .collect();
            samples.push(Rational::from(a + &near_end));
            samples.push(Rational::from(b - &near_end));
            let values: Vec<Option<bool>> = samples.iter().map(|v| truth_at(&formula, v)).collect();
            assert!(values[0].is_some(), "no truth value inside ({a}, {b})");
            assert!(
                values.iter().all(|v| *v == values[0]),
                "the truth value changes inside ({a}, {b}): {values:?}"
            );
            cell_values.push(values[0]);
        }
        // Not a constant formula: some cells hold, some do not, and at 4 and 5 it holds
        // while it fails just around them.
        assert!(cell_values.contains(&Some(true)) && cell_values.contains(&Some(false)));
        for v in ["4", "5"] {
            let v = big_rational(v);
            assert_eq!(truth_at(&formula, &v), Some(true));
            let off = &v + big_rational("1/1000000");
            assert_eq!(truth_at(&formula, &off), Some(false));
        }
        // x/(x − 3) is undefined at its denominator's root, which is a cell boundary.
        assert_eq!(truth_at(&formula, &big_rational("3")), None);

        // The float search lands on a float that truly satisfies the formula.
        let stop = Instant::now() + Duration::from_secs(10);
        let bits = search_univariate(&formula, "x", FloatTy::F64, stop).unwrap();
        let v = float_value(bits, FloatTy::F64).unwrap();
        assert_eq!(truth_at(&formula, &v), Some(true), "{v}");
    }

    fn exp_of(x: &Real) -> Dependent {
        Dependent {
            name: "e".into(),
            def: Some((MathFn::Exp, vec![x.clone()], FloatTy::F64)),
        }
    }

    #[test]
    fn a_dependent_is_recomputed_with_glibc_and_the_model_holds_exactly() {
        let _turn = turn();
        let (x, y, e) = (
            Real::new_const("x"),
            Real::new_const("y"),
            Real::new_const("e"),
        );
        let huge = rational_to_real(&Rational::from(Integer::u_pow_u(10, 300)));
        let formula = Bool::and(&[
            (&e * &y).gt(&huge),
            x.gt(rat("0")),
            x.lt(rat("10")),
            finite(&y),
        ]);
        let mut ins = doubles(&["x", "y"]);
        ins[0].range = Some((0.0, 10.0));
        let deps = [exp_of(&x)];
        let verdict = fallback_solve(&formula, &ins, &deps, &FallbackOptions::default());
        let Verdict::Sat(v) = verdict else {
            panic!("y can be large enough for any exp(x) in (1, e^10): {verdict:?}")
        };
        assert!(is_double(&v[0]) && is_double(&v[1]), "{v:?}");
        let x_value = v[0].to_f64();
        assert!(x_value > 0.0 && x_value < 10.0, "{x_value}");
        // glibc's exp (Rust's f64::exp calls it), rounded to a double, times y, exactly.
        let e_value = Rational::from_f64(x_value.exp()).unwrap();
        let product = Rational::from(&e_value * &v[1]);
        assert!(product > Integer::u_pow_u(10, 300).complete(), "{product}");
        assert!(holds(
            &formula,
            &["x", "y", "e"],
            &[v[0].clone(), v[1].clone(), e_value]
        ));
    }

    #[test]
    fn a_dependent_of_the_only_input_gives_unknown_with_a_reason() {
        let _turn = turn();
        let (x, e) = (Real::new_const("x"), Real::new_const("e"));
        // exp(x) < 1 with x > 0 holds for no double: x cannot stay free (e depends on
        // it), and no random point can satisfy it.
        let formula = Bool::and(&[e.lt(rat("1")), x.gt(rat("0")), finite(&x)]);
        let opts = FallbackOptions {
            concretizations: 4,
            ..FallbackOptions::default()
        };
        let plan = Plan::new(&formula, &doubles(&["x"]), &[exp_of(&x)]);
        assert_eq!(plan.needed, vec![0]);
        assert!(plan.free.is_empty(), "x feeds e");
        let Verdict::Unknown(reason) =
            fallback_solve(&formula, &doubles(&["x"]), &[exp_of(&x)], &opts)
        else {
            panic!("no double satisfies exp(x) < 1 with x > 0")
        };
        assert!(reason.contains("4 concretizations failed"), "{reason}");
        // A dependent whose argument is no input cannot be recomputed: a reason, no panic.
        let w = Real::new_const("w");
        let y = Real::new_const("y");
        let formula = (&e * &y).gt(rat("1"));
        let Verdict::Unknown(reason) =
            fallback_solve(&formula, &doubles(&["y"]), &[exp_of(&w)], &opts)
        else {
            panic!("e cannot be evaluated")
        };
        assert!(reason.contains("e: argument w is not a number"), "{reason}");
    }

    #[test]
    fn an_infinite_range_bound_stands_for_the_largest_float() {
        let mut rng = Rng(1);
        for ty in [FloatTy::F64, FloatTy::F32] {
            let draws: Vec<Rational> = (0..200)
                .map(|_| float_value(random_float(&mut rng, ty, Some((1.0, f64::INFINITY))), ty))
                .map(|q| q.expect("a finite draw"))
                .collect();
            assert!(draws.iter().all(|q| *q >= 1), "{draws:?}");
            assert!(draws.iter().any(|q| *q > 1_000_000), "draws pinned near 1");
            let below: Vec<Rational> = (0..200)
                .map(|_| {
                    float_value(
                        random_float(&mut rng, ty, Some((f64::NEG_INFINITY, -2.0))),
                        ty,
                    )
                })
                .map(|q| q.expect("a finite draw"))
                .collect();
            assert!(below.iter().all(|q| *q <= -2), "{below:?}");
            assert!(
                below.iter().any(|q| *q < -1_000_000),
                "draws pinned near -2"
            );
        }
    }

    #[test]
    fn constants_are_named_without_asking_their_declaration_kind() {
        // With Debian's Z3 4.8.12, `decl().kind()` on an uninterpreted constant is an
        // out-of-range enum value; operators are read from the raw number instead.
        let _turn = turn();
        let x = Real::new_const("x");
        let i = z3::ast::Int::new_const("i");
        let b = Bool::new_const("b");
        let formula = Bool::and(&[b.clone(), (&x + &Real::from_int(&i)).gt(rat("0"))]);
        let names = free_constants(&[Dynamic::from_ast(&formula)]);
        let expected: HashSet<String> = ["x", "i"].iter().map(|n| n.to_string()).collect();
        assert_eq!(names, expected, "numeric constants only");
        assert_eq!(operator(&Dynamic::from_ast(&x)), None);
        assert_eq!(operator(&Dynamic::from_ast(&b)), None);
        assert_eq!(operator(&Dynamic::from_ast(&formula)), Some(DeclKind::And));
        assert_eq!(constant_name(&Dynamic::from_ast(&x)), Some("x".to_string()));
    }
}
