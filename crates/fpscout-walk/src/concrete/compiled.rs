//! A fast path for concrete evaluation of functions that compute on numbers only.
//!
//! The generic walker keeps every value as an optional [`Reg`](crate::code::Reg) (a
//! scalar, a pointer or a vector) and every operation returns a `DResult`, which costs
//! more than the SSE instruction it models. A function whose values are all numbers or
//! vectors of numbers (no memory, no calls, no pointers) is compiled here into steps over
//! a flat `u64` register file (a vector takes one register per lane), each step calling
//! the same [`Concrete`] operation, with the same operation site, in the same order as
//! the walker.
//!
//! The fast path only runs the case where nothing goes wrong: any operation that fails
//! (an integer division trap, an unsupported conversion, an index out of range), an
//! exhausted step budget or an unreachable terminator makes the whole evaluation start
//! again on the walker, which reports it with its location. Operations have no effect
//! outside the domain's events, flags and choice counter, which a restart clears, so the
//! outcome is always the walker's.

use super::Concrete;
use crate::domain::{Decision, Domain, OpSite};
use fpscout_ir::*;
use smallvec::SmallVec;

/// One operation of a compiled block on one lane; operands and `d` (the result) are
/// register indices.
#[derive(Clone, Debug)]
enum Step {
    /// `fadd`/`fsub`/`fmul`/`fdiv` on f64, the bulk of straight-line numeric code.
    AddF64 {
        d: u32,
        a: u32,
        b: u32,
        site: OpSite,
    },
    SubF64 {
        d: u32,
        a: u32,
        b: u32,
        site: OpSite,
    },
    MulF64 {
        d: u32,
        a: u32,
        b: u32,
        site: OpSite,
    },
    DivF64 {
        d: u32,
        a: u32,
        b: u32,
        site: OpSite,
    },
    FBin {
        op: FBinOp,
        fty: FloatTy,
        d: u32,
        a: u32,
        b: u32,
        site: OpSite,
    },
    FNeg {
        fty: FloatTy,
        d: u32,
        a: u32,
    },
    FCmp {
        pred: FCmpPred,
        lowering: CmpLowering,
        fty: FloatTy,
        d: u32,
        a: u32,
        b: u32,
        site: OpSite,
    },
    FUnary {
        op: FUnaryOp,
        fty: FloatTy,
        d: u32,
        a: u32,
        site: OpSite,
    },
    FBinary {
        op: FBinaryOp,
        fty: FloatTy,
        d: u32,
        a: u32,
        b: u32,
        site: OpSite,
    },
    Fma {
        fty: FloatTy,
        fused: bool,
        d: u32,
        a: u32,
        b: u32,
        c: u32,
        site: OpSite,
    },
    Math {
        func: MathFn,
        fty: FloatTy,
        d: u32,
        args: Box<[u32]>,
        site: OpSite,
    },
    IBin {
        op: IBinOp,
        width: u32,
        d: u32,
        a: u32,
        b: u32,
    },
    ICmp {
        pred: ICmpPred,
        width: u32,
        d: u32,
        a: u32,
        b: u32,
    },
    IAbs {
        width: u32,
        d: u32,
        a: u32,
    },
    FCast {
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        d: u32,
        a: u32,
        site: OpSite,
    },
    ICast {
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        d: u32,
        a: u32,
    },
    Select {
        d: u32,
        cond: u32,
        a: u32,
        b: u32,
    },
    /// A lane moved by `extractelement`, `insertelement` or `shufflevector`.
    Copy {
        d: u32,
        s: u32,
    },
    /// `extractelement` at an index known only at run time.
    Extract {
        d: u32,
        v: Loc,
        index: u32,
    },
    /// `insertelement` at an index known only at run time: `d` takes `v` with lane
    /// `index` replaced by `elt`.
    Insert {
        d: u32,
        v: Loc,
        elt: u32,
        index: u32,
    },
}

/// Where a value lives: `lanes` registers from `base`. `vector` tells a one-lane vector
/// from a scalar, which the walker treats differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Loc {
    base: u32,
    lanes: u32,
    vector: bool,
}

impl Loc {
    fn lane(self, i: u32) -> u32 {
        self.base + i
    }

    fn regs(self) -> std::ops::Range<u32> {
        self.base..self.base + self.lanes
    }
}

/// A control-flow edge with the phi assignments of its target.
#[derive(Clone, Debug)]
struct Edge {
    to: u32,
    /// (destination, source) register pairs.
    moves: Box<[(u32, u32)]>,
    /// A move reads a register an earlier move writes: read all, then write.
    parallel: bool,
}

#[derive(Clone, Debug)]
enum Exit {
    Jump(Edge),
    Branch {
        cond: u32,
        then_: Edge,
        else_: Edge,
    },
    Switch {
        value: u32,
        cases: Box<[(u64, Edge)]>,
        default: Edge,
    },
    Ret(Option<u32>),
    /// A trap: the walker reports it.
    Unreachable,
}

#[derive(Clone, Debug)]
struct FastBlock {
    steps: Box<[Step]>,
    /// Instructions the walker counts against the step budget (including no-ops).
    budget_cost: u64,
    exit: Exit,
}

/// The evaluation has to be redone on the walker (an error, a trap or the step budget).
pub(crate) struct Restart;

/// A function compiled for the fast path, with its register file.
pub(crate) struct Compiled {
    blocks: Box<[FastBlock]>,
    /// The values' lanes (parameters first), a sink for results nobody reads, then the
    /// constants (written once).
    regs: Vec<u64>,
    /// Register and scalar type of each parameter.
    params: Box<[(u32, ScalarTy)]>,
    /// Registers below this hold values (and the sink); the rest are constants.
    value_regs: u32,
}

impl Compiled {
    /// Compiles `func` if all its values are numbers or vectors of numbers; `None` sends
    /// every evaluation to the walker.
    pub(crate) fn new(module: &Module, func: FuncId, domain: &Concrete) -> Option<Compiled> {
        let f = module.functions.get(func.0 as usize)?;
        if f.unsupported.is_some() || f.blocks.is_empty() {
            return None;
        }
        let (layout, sink, value_regs) = layout(f)?;
        let params = f
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| Some((layout.get(i)?.as_ref()?.base, numeric(p.ty)?)))
            .collect::<Option<Box<[(u32, ScalarTy)]>>>()?;
        let mut c = Compiler {
            domain,
            layout,
            sink,
            consts: Vec::new(),
            const_base: value_regs,
            steps: Vec::new(),
        };
        let mut blocks = Vec::with_capacity(f.blocks.len());
        for (index, b) in f.blocks.iter().enumerate() {
            c.steps.clear();
            for inst in &b.insts {
                c.inst(inst)?;
            }
            let from = index as u32;
            let exit = match &b.term {
                Terminator::Br(t) => Exit::Jump(c.edge(f, *t, from)?),
                Terminator::CondBr { cond, then_, else_ } => Exit::Branch {
                    cond: c.scalar(cond)?,
                    then_: c.edge(f, *then_, from)?,
                    else_: c.edge(f, *else_, from)?,
                },
                Terminator::Switch {
                    value,
                    default,
                    cases,
                    ..
                } => Exit::Switch {
                    value: c.scalar(value)?,
                    cases: cases
                        .iter()
                        .map(|&(v, t)| Some((v, c.edge(f, t, from)?)))
                        .collect::<Option<_>>()?,
                    default: c.edge(f, *default, from)?,
                },
                Terminator::Ret(v) => Exit::Ret(match v {
                    Some(o) => Some(c.scalar(o)?),
                    None => None,
                }),
                Terminator::Unreachable => Exit::Unreachable,
            };
            blocks.push(FastBlock {
                steps: c.steps.clone().into_boxed_slice(),
                budget_cost: b.insts.len() as u64,
                exit,
            });
        }
        let mut regs = vec![0u64; value_regs as usize];
        regs.extend_from_slice(&c.consts);
        let compiled = Compiled {
            blocks: blocks.into_boxed_slice(),
            regs,
            params,
            value_regs,
        };
        compiled.values_defined_before_use().then_some(compiled)
    }

    /// Whether every value register is written before it is read, on every path. SSA
    /// from a verified module always is; it is checked because the register file has no
    /// "undefined" state while the walker reports such a read as an error.
    fn values_defined_before_use(&self) -> bool {
        let n = self.value_regs as usize;
        let in_file = |r: u32| (r as usize) < self.regs.len();
        let is_defined =
            |defined: &[bool], r: u32| in_file(r) && (r as usize >= n || defined[r as usize]);
        // Registers defined on entry to each block, `None` while no path to it was seen.
        let mut on_entry: Vec<Option<Vec<bool>>> = vec![None; self.blocks.len()];
        let mut params = vec![false; n];
        for &(r, _) in self.params.iter() {
            match params.get_mut(r as usize) {
                Some(p) => *p = true,
                None => return false,
            }
        }
        on_entry[0] = Some(params);
        let mut work = vec![0usize];
        while let Some(b) = work.pop() {
            let Some(mut defined) = on_entry[b].clone() else {
                continue;
            };
            let block = &self.blocks[b];
            for step in block.steps.iter() {
                if !step.sources().iter().all(|&r| is_defined(&defined, r)) {
                    return false;
                }
                for d in step.dests() {
                    if !in_file(d) || d as usize >= n {
                        return false;
                    }
                    defined[d as usize] = true;
                }
            }
            let edges: SmallVec<[&Edge; 2]> = match &block.exit {
                Exit::Jump(e) => [e].into_iter().collect(),
                Exit::Branch { cond, then_, else_ } => {
                    if !is_defined(&defined, *cond) {
                        return false;
                    }
                    [then_, else_].into_iter().collect()
                }
                Exit::Switch {
                    value,
                    cases,
                    default,
                } => {
                    if !is_defined(&defined, *value) {
                        return false;
                    }
                    cases.iter().map(|(_, e)| e).chain([default]).collect()
                }
                Exit::Ret(v) => {
                    if v.is_some_and(|r| !is_defined(&defined, r)) {
                        return false;
                    }
                    SmallVec::new()
                }
                Exit::Unreachable => SmallVec::new(),
            };
            for edge in edges {
                let mut after = defined.clone();
                for &(d, s) in edge.moves.iter() {
                    if !is_defined(&defined, s) || d as usize >= n {
                        return false;
                    }
                    after[d as usize] = true;
                }
                let Some(target) = on_entry.get_mut(edge.to as usize) else {
                    return false;
                };
                let changed = match target {
                    None => {
                        *target = Some(after);
                        true
                    }
                    Some(known) => {
                        let mut changed = false;
                        for (k, a) in known.iter_mut().zip(&after) {
                            if *k && !*a {
                                *k = false;
                                changed = true;
                            }
                        }
                        changed
                    }
                };
                if changed {
                    work.push(edge.to as usize);
                }
            }
        }
        true
    }

    /// How many parameters the function takes (all scalars).
    pub(crate) fn param_count(&self) -> usize {
        self.params.len()
    }

    /// Sets parameter `i` for the next run from its bits (as the walker's arguments are
    /// made: `Domain::constant` of the parameter type).
    #[inline]
    pub(crate) fn set_param(&mut self, domain: &Concrete, i: usize, bits: u64) {
        let (reg, ty) = self.params[i];
        self.regs[reg as usize] = domain.constant(ty, bits);
    }

    /// Runs the function on the parameters set before. Returns the result and the steps
    /// taken, or [`Restart`] when the walker must redo the evaluation.
    pub(crate) fn run(
        &mut self,
        domain: &mut Concrete,
        step_budget: u64,
    ) -> Result<(Option<u64>, u64), Restart> {
        let regs = &mut self.regs[..];
        let mut steps = 0u64;
        let mut block = &self.blocks[0];
        loop {
            steps += block.budget_cost;
            if steps > step_budget {
                return Err(Restart);
            }
            for step in block.steps.iter() {
                exec(step, regs, domain)?;
            }
            let edge = match &block.exit {
                Exit::Jump(e) => e,
                Exit::Branch { cond, then_, else_ } => match domain.decide(&regs[*cond as usize]) {
                    Ok(Decision::Known(true)) => then_,
                    Ok(Decision::Known(false)) => else_,
                    _ => return Err(Restart),
                },
                Exit::Switch {
                    value,
                    cases,
                    default,
                } => {
                    let bits = regs[*value as usize];
                    cases
                        .iter()
                        .find(|(c, _)| *c == bits)
                        .map_or(default, |(_, e)| e)
                }
                Exit::Ret(v) => return Ok((v.map(|r| regs[r as usize]), steps)),
                Exit::Unreachable => return Err(Restart),
            };
            if edge.parallel {
                let incoming: SmallVec<[u64; 8]> =
                    edge.moves.iter().map(|&(_, s)| regs[s as usize]).collect();
                for (&(d, _), v) in edge.moves.iter().zip(incoming) {
                    regs[d as usize] = v;
                }
            } else {
                for &(d, s) in edge.moves.iter() {
                    regs[d as usize] = regs[s as usize];
                }
            }
            block = &self.blocks[edge.to as usize];
        }
    }
}

/// Executes one step; a failing operation restarts the evaluation on the walker.
#[inline(always)]
fn exec(step: &Step, regs: &mut [u64], dom: &mut Concrete) -> Result<(), Restart> {
    let (d, v) = match *step {
        Step::AddF64 { d, a, b, site } => {
            let (x, y) = (regs[a as usize], regs[b as usize]);
            (d, dom.fbin_sse(FBinOp::FAdd, FloatTy::F64, x, y, site))
        }
        Step::SubF64 { d, a, b, site } => {
            let (x, y) = (regs[a as usize], regs[b as usize]);
            (d, dom.fbin_sse(FBinOp::FSub, FloatTy::F64, x, y, site))
        }
        Step::MulF64 { d, a, b, site } => {
            let (x, y) = (regs[a as usize], regs[b as usize]);
            (d, dom.fbin_sse(FBinOp::FMul, FloatTy::F64, x, y, site))
        }
        Step::DivF64 { d, a, b, site } => {
            let (x, y) = (regs[a as usize], regs[b as usize]);
            (d, dom.fbin_sse(FBinOp::FDiv, FloatTy::F64, x, y, site))
        }
        Step::FBin {
            op,
            fty,
            d,
            a,
            b,
            site,
        } => (
            d,
            ok(dom.fbin(op, fty, &regs[a as usize], &regs[b as usize], site))?,
        ),
        Step::FNeg { fty, d, a } => (d, ok(dom.fneg(fty, &regs[a as usize]))?),
        Step::FCmp {
            pred,
            lowering,
            fty,
            d,
            a,
            b,
            site,
        } => {
            let (x, y) = (&regs[a as usize], &regs[b as usize]);
            (d, ok(dom.fcmp(pred, lowering, fty, x, y, site))?)
        }
        Step::FUnary {
            op,
            fty,
            d,
            a,
            site,
        } => (d, ok(dom.funary(op, fty, &regs[a as usize], site))?),
        Step::FBinary {
            op,
            fty,
            d,
            a,
            b,
            site,
        } => {
            let (x, y) = (&regs[a as usize], &regs[b as usize]);
            (d, ok(dom.fbinary(op, fty, x, y, site))?)
        }
        Step::Fma {
            fty,
            fused,
            d,
            a,
            b,
            c,
            site,
        } => {
            let (x, y, z) = (&regs[a as usize], &regs[b as usize], &regs[c as usize]);
            let r = if fused {
                ok(dom.fma(fty, x, y, z, site))?
            } else {
                let m = ok(dom.fbin(FBinOp::FMul, fty, x, y, site))?;
                ok(dom.fbin(FBinOp::FAdd, fty, &m, z, site))?
            };
            (d, r)
        }
        Step::Math {
            func,
            fty,
            d,
            ref args,
            site,
        } => {
            let argv: SmallVec<[u64; 4]> = args.iter().map(|&r| regs[r as usize]).collect();
            (d, ok(dom.math(func, fty, &argv, site))?)
        }
        Step::IBin { op, width, d, a, b } => (
            d,
            ok(dom.ibin(op, width, &regs[a as usize], &regs[b as usize]))?,
        ),
        Step::ICmp {
            pred,
            width,
            d,
            a,
            b,
        } => (
            d,
            ok(dom.icmp(pred, width, &regs[a as usize], &regs[b as usize]))?,
        ),
        Step::IAbs { width, d, a } => (d, ok(dom.iabs(width, &regs[a as usize]))?),
        Step::FCast {
            op,
            from,
            to,
            d,
            a,
            site,
        } => (d, ok(dom.fcast(op, from, to, &regs[a as usize], site))?),
        Step::ICast { op, from, to, d, a } => (d, ok(dom.icast(op, from, to, &regs[a as usize]))?),
        Step::Select { d, cond, a, b } => {
            let (c, x, y) = (&regs[cond as usize], &regs[a as usize], &regs[b as usize]);
            (d, ok(dom.select(c, x, y))?)
        }
        Step::Copy { d, s } => (d, regs[s as usize]),
        Step::Extract { d, v, index } => {
            let i = ok(dom.concretize(&regs[index as usize], ScalarTy::Int(64)))?;
            if i >= u64::from(v.lanes) {
                return Err(Restart);
            }
            (d, regs[v.lane(i as u32) as usize])
        }
        Step::Insert { d, v, elt, index } => {
            let i = ok(dom.concretize(&regs[index as usize], ScalarTy::Int(64)))?;
            if i >= u64::from(v.lanes) {
                return Err(Restart);
            }
            let e = regs[elt as usize];
            regs.copy_within(v.regs().start as usize..v.regs().end as usize, d as usize);
            (d + i as u32, e)
        }
    };
    regs[d as usize] = v;
    Ok(())
}

#[inline(always)]
fn ok<T, E>(r: Result<T, E>) -> Result<T, Restart> {
    r.map_err(|_| Restart)
}

impl Step {
    /// The registers a step writes.
    fn dests(&self) -> std::ops::Range<u32> {
        match self {
            Step::AddF64 { d, .. }
            | Step::SubF64 { d, .. }
            | Step::MulF64 { d, .. }
            | Step::DivF64 { d, .. }
            | Step::FBin { d, .. }
            | Step::FNeg { d, .. }
            | Step::FCmp { d, .. }
            | Step::FUnary { d, .. }
            | Step::FBinary { d, .. }
            | Step::Fma { d, .. }
            | Step::Math { d, .. }
            | Step::IBin { d, .. }
            | Step::ICmp { d, .. }
            | Step::IAbs { d, .. }
            | Step::FCast { d, .. }
            | Step::ICast { d, .. }
            | Step::Select { d, .. }
            | Step::Copy { d, .. }
            | Step::Extract { d, .. } => *d..*d + 1,
            Step::Insert { d, v, .. } => *d..*d + v.lanes,
        }
    }

    /// The registers a step reads.
    fn sources(&self) -> SmallVec<[u32; 4]> {
        match self {
            Step::AddF64 { a, b, .. }
            | Step::SubF64 { a, b, .. }
            | Step::MulF64 { a, b, .. }
            | Step::DivF64 { a, b, .. }
            | Step::FBin { a, b, .. }
            | Step::FCmp { a, b, .. }
            | Step::FBinary { a, b, .. }
            | Step::IBin { a, b, .. }
            | Step::ICmp { a, b, .. } => [*a, *b].into_iter().collect(),
            Step::FNeg { a, .. }
            | Step::FUnary { a, .. }
            | Step::IAbs { a, .. }
            | Step::FCast { a, .. }
            | Step::ICast { a, .. }
            | Step::Copy { s: a, .. } => [*a].into_iter().collect(),
            Step::Fma { a, b, c, .. } => [*a, *b, *c].into_iter().collect(),
            Step::Select { cond, a, b, .. } => [*cond, *a, *b].into_iter().collect(),
            Step::Math { args, .. } => args.iter().copied().collect(),
            Step::Extract { v, index, .. } => v.regs().chain([*index]).collect(),
            Step::Insert { v, elt, index, .. } => v.regs().chain([*elt, *index]).collect(),
        }
    }
}

/// An integer or float scalar type (no pointers, vectors or void).
fn numeric(ty: Type) -> Option<ScalarTy> {
    match ty {
        Type::Scalar(s @ (ScalarTy::Int(_) | ScalarTy::Float(_))) => Some(s),
        _ => None,
    }
}

/// Lane count and vector-ness of a number or vector of numbers.
fn shape(ty: Type) -> Option<(u32, bool)> {
    match ty {
        Type::Scalar(ScalarTy::Int(_) | ScalarTy::Float(_)) => Some((1, false)),
        Type::Vector(ScalarTy::Int(_) | ScalarTy::Float(_), n) if n > 0 => Some((n, true)),
        _ => None,
    }
}

/// The type of an instruction's result, for the kinds the fast path runs.
fn result_type(kind: &InstKind) -> Option<Type> {
    let bools = |ty: Type| match ty {
        Type::Vector(_, n) => Type::Vector(ScalarTy::Int(1), n),
        _ => Type::int(1),
    };
    Some(match kind {
        InstKind::FBin { ty, .. }
        | InstKind::FNeg { ty, .. }
        | InstKind::IBin { ty, .. }
        | InstKind::IAbs { ty, .. }
        | InstKind::Select { ty, .. }
        | InstKind::FUnary { ty, .. }
        | InstKind::FBinary { ty, .. }
        | InstKind::Fma { ty, .. }
        | InstKind::Math { ty, .. }
        | InstKind::InsertElement { ty, .. }
        | InstKind::Shuffle { ty, .. } => *ty,
        InstKind::FCmp { ty, .. } | InstKind::ICmp { ty, .. } => bools(*ty),
        InstKind::Cast { to, .. } => *to,
        InstKind::ExtractElement { ty, .. } => Type::Scalar(ty.lanes()?.0),
        _ => return None,
    })
}

/// Registers of every value (by the IR types of parameters, phis and results), the sink
/// and the count of value registers.
#[allow(clippy::type_complexity)]
fn layout(f: &Function) -> Option<(Vec<Option<Loc>>, Loc, u32)> {
    let mut types: Vec<Option<Type>> = vec![None; f.num_values as usize];
    // Lanes of the widest result nobody reads.
    let mut unread = 1;
    let mut assign = |v: ValueId, ty: Type| -> Option<()> {
        *types.get_mut(v.0 as usize)? = Some(ty);
        Some(())
    };
    for (i, p) in f.params.iter().enumerate() {
        assign(ValueId(i as u32), p.ty)?;
    }
    for b in &f.blocks {
        for phi in &b.phis {
            assign(phi.dest, phi.ty)?;
        }
        for inst in &b.insts {
            if matches!(inst.kind, InstKind::Nop | InstKind::Phi { .. }) {
                continue;
            }
            let ty = result_type(&inst.kind)?;
            match inst.dest {
                Some(dest) => assign(dest, ty)?,
                None => unread = unread.max(shape(ty)?.0),
            }
        }
    }
    let mut next = 0u32;
    let mut widest = unread;
    let mut layout = Vec::with_capacity(types.len());
    for ty in types {
        layout.push(match ty {
            Some(ty) => {
                let (lanes, vector) = shape(ty)?;
                let loc = Loc {
                    base: next,
                    lanes,
                    vector,
                };
                next = next.checked_add(lanes)?;
                widest = widest.max(lanes);
                Some(loc)
            }
            None => None,
        });
    }
    let sink = Loc {
        base: next,
        lanes: widest,
        vector: true,
    };
    Some((layout, sink, next.checked_add(widest)?))
}

struct Compiler<'a> {
    domain: &'a Concrete,
    layout: Vec<Option<Loc>>,
    /// Where results nobody reads go.
    sink: Loc,
    /// Constant lanes, placed after the value registers.
    consts: Vec<u64>,
    const_base: u32,
    /// Steps of the block being compiled.
    steps: Vec<Step>,
}

impl Compiler<'_> {
    /// Where an operand lives: a value, or a constant placed in the file.
    fn operand(&mut self, x: &Operand) -> Option<Loc> {
        match x {
            Operand::Value(v) => *self.layout.get(v.0 as usize)?,
            Operand::Const(Const::Vector(lanes)) => {
                let mut bits = Vec::with_capacity(lanes.len());
                for l in lanes {
                    bits.push(self.const_bits(l)?);
                }
                self.constant(&bits, true)
            }
            Operand::Const(c) => {
                let bits = self.const_bits(c)?;
                self.constant(&[bits], false)
            }
        }
    }

    /// A scalar constant's value as the walker's decoder makes it (`code::const_to_val`).
    fn const_bits(&self, c: &Const) -> Option<u64> {
        Some(match c {
            Const::Int { width, bits } => self.domain.constant(ScalarTy::Int(*width), *bits),
            Const::Float { ty, bits } => self.domain.constant(ScalarTy::Float(*ty), *bits),
            Const::Undef(s @ (ScalarTy::Int(_) | ScalarTy::Float(_))) => {
                self.domain.constant(*s, 0)
            }
            _ => return None,
        })
    }

    fn constant(&mut self, bits: &[u64], vector: bool) -> Option<Loc> {
        let base = self
            .const_base
            .checked_add(u32::try_from(self.consts.len()).ok()?)?;
        self.consts.extend_from_slice(bits);
        Some(Loc {
            base,
            lanes: bits.len() as u32,
            vector,
        })
    }

    /// A scalar (not vector) operand's register.
    fn scalar(&mut self, x: &Operand) -> Option<u32> {
        let loc = self.operand(x)?;
        (!loc.vector && loc.lanes == 1).then_some(loc.base)
    }

    /// The edge from block `from` to `to` with `to`'s phi assignments (as the walker's
    /// `assign_phis`: the first incoming entry for `from`).
    fn edge(&mut self, f: &Function, to: BlockId, from: u32) -> Option<Edge> {
        let block = f.blocks.get(to.0 as usize)?;
        let mut moves = Vec::with_capacity(block.phis.len());
        for phi in &block.phis {
            let (_, o) = phi.incoming.iter().find(|(b, _)| b.0 == from)?;
            let d = (*self.layout.get(phi.dest.0 as usize)?)?;
            let s = self.operand(o)?;
            if s.lanes != d.lanes || s.vector != d.vector {
                return None;
            }
            moves.extend(d.regs().zip(s.regs()));
        }
        let parallel = moves
            .iter()
            .enumerate()
            .any(|(i, &(_, s))| moves[..i].iter().any(|&(d, _)| d == s));
        Some(Edge {
            to: to.0,
            moves: moves.into_boxed_slice(),
            parallel,
        })
    }

    /// Compiles one instruction into steps, lane by lane as the walker runs it; `None`
    /// when the walker must run this function.
    fn inst(&mut self, inst: &Inst) -> Option<()> {
        let kind = &inst.kind;
        if matches!(kind, InstKind::Nop | InstKind::Phi { .. }) {
            return Some(());
        }
        let dest = match inst.dest {
            Some(v) => (*self.layout.get(v.0 as usize)?)?,
            None => {
                let (lanes, vector) = shape(result_type(kind)?)?;
                Loc {
                    lanes,
                    vector,
                    ..self.sink
                }
            }
        };
        let site = |op: FpOpId, lane: u32| OpSite { op, lane };
        match kind {
            // Lane-wise binary operations: two scalars give a scalar, two vectors of one
            // length a vector (the walker's `bin_into`).
            InstKind::FBin { ty, a, b, .. }
            | InstKind::FCmp { ty, a, b, .. }
            | InstKind::FBinary { ty, a, b, .. }
            | InstKind::IBin { ty, a, b, .. }
            | InstKind::ICmp { ty, a, b, .. } => {
                let (a, b) = (self.operand(a)?, self.operand(b)?);
                if a.vector != b.vector
                    || a.lanes != b.lanes
                    || dest.vector != a.vector
                    || dest.lanes != a.lanes
                    || (!a.vector && a.lanes != 1)
                {
                    return None;
                }
                let lane_ty = ty.lanes()?.0;
                for i in 0..a.lanes {
                    let (d, x, y) = (dest.lane(i), a.lane(i), b.lane(i));
                    self.steps.push(binary_step(kind, lane_ty, d, x, y, i)?);
                }
            }
            // Lane-wise unary operations: the result has the instruction's type (the
            // walker's `un_into`/`map1_lanes`).
            InstKind::FNeg { ty, a }
            | InstKind::IAbs { ty, a }
            | InstKind::FUnary { ty, a, .. } => {
                let a = self.operand(a)?;
                let (lanes, vector) = shape(*ty)?;
                if a.vector != vector || a.lanes != lanes || dest.lanes != lanes {
                    return None;
                }
                let lane_ty = ty.lanes()?.0;
                for i in 0..lanes {
                    let (d, x) = (dest.lane(i), a.lane(i));
                    self.steps.push(match (kind, lane_ty) {
                        (InstKind::FNeg { .. }, ScalarTy::Float(fty)) => {
                            Step::FNeg { fty, d, a: x }
                        }
                        (InstKind::IAbs { .. }, ScalarTy::Int(width)) => {
                            Step::IAbs { width, d, a: x }
                        }
                        (InstKind::FUnary { op, site: s, .. }, ScalarTy::Float(fty)) => {
                            Step::FUnary {
                                op: *op,
                                fty,
                                d,
                                a: x,
                                site: site(*s, i),
                            }
                        }
                        _ => return None,
                    });
                }
            }
            InstKind::Fma {
                ty,
                a,
                b,
                c,
                fused,
                site: s,
            } => {
                let (a, b, c) = (self.operand(a)?, self.operand(b)?, self.operand(c)?);
                let (lanes, vector) = shape(*ty)?;
                let fty = ty.float_ty()?;
                if [a, b, c].iter().any(|o| o.lanes != lanes) || dest.vector != vector {
                    return None;
                }
                for i in 0..lanes {
                    self.steps.push(Step::Fma {
                        fty,
                        fused: *fused,
                        d: dest.lane(i),
                        a: a.lane(i),
                        b: b.lane(i),
                        c: c.lane(i),
                        site: site(*s, i),
                    });
                }
            }
            InstKind::Math {
                func,
                ty,
                args,
                site: s,
            } => {
                let args = args
                    .iter()
                    .map(|a| self.scalar(a))
                    .collect::<Option<Box<[u32]>>>()?;
                if dest.vector {
                    return None;
                }
                self.steps.push(Step::Math {
                    func: *func,
                    fty: scalar_float(*ty)?,
                    d: dest.base,
                    args,
                    site: site(*s, 0),
                });
            }
            InstKind::Cast {
                op,
                from,
                to,
                a,
                site: s,
            } => {
                if matches!(op, CastOp::PtrToInt | CastOp::IntToPtr) {
                    return None;
                }
                let a = self.operand(a)?;
                let ((fl, fn_), (tl, tn)) = (from.lanes()?, to.lanes()?);
                let (lanes, vector) = shape(*to)?;
                shape(*from)?;
                if fn_ != tn || a.lanes != lanes || dest.vector != vector || a.vector != vector {
                    return None;
                }
                for i in 0..lanes {
                    let (d, x) = (dest.lane(i), a.lane(i));
                    self.steps.push(match s {
                        Some(s) => Step::FCast {
                            op: *op,
                            from: fl,
                            to: tl,
                            d,
                            a: x,
                            site: site(*s, i),
                        },
                        None => Step::ICast {
                            op: *op,
                            from: fl,
                            to: tl,
                            d,
                            a: x,
                        },
                    });
                }
            }
            InstKind::Select { ty, cond, a, b } => {
                let (c, a, b) = (self.operand(cond)?, self.operand(a)?, self.operand(b)?);
                let (lanes, vector) = shape(*ty)?;
                let scalar_cond = !c.vector && c.lanes == 1;
                if a.vector != vector
                    || b.vector != vector
                    || a.lanes != lanes
                    || b.lanes != lanes
                    || dest.lanes != lanes
                    || (!scalar_cond && (c.lanes != lanes || !vector))
                {
                    return None;
                }
                for i in 0..lanes {
                    self.steps.push(Step::Select {
                        d: dest.lane(i),
                        cond: if scalar_cond { c.base } else { c.lane(i) },
                        a: a.lane(i),
                        b: b.lane(i),
                    });
                }
            }
            InstKind::ExtractElement { v, index, .. } => {
                let v = self.operand(v)?;
                let index = self.scalar(index)?;
                if dest.vector {
                    return None;
                }
                match self.known(index) {
                    Some(i) if i < u64::from(v.lanes) => self.steps.push(Step::Copy {
                        d: dest.base,
                        s: v.lane(i as u32),
                    }),
                    Some(_) => return None,
                    None => self.steps.push(Step::Extract {
                        d: dest.base,
                        v,
                        index,
                    }),
                }
            }
            InstKind::InsertElement { ty, v, elt, index } => {
                let v = self.operand(v)?;
                let elt = self.scalar(elt)?;
                let index = self.scalar(index)?;
                if dest.lanes != v.lanes || dest.vector != ty.is_vector() || !dest.vector {
                    return None;
                }
                match self.known(index) {
                    Some(i) if i < u64::from(v.lanes) => {
                        for lane in 0..v.lanes {
                            let s = if u64::from(lane) == i {
                                elt
                            } else {
                                v.lane(lane)
                            };
                            self.steps.push(Step::Copy {
                                d: dest.lane(lane),
                                s,
                            });
                        }
                    }
                    Some(_) => return None,
                    None => self.steps.push(Step::Insert {
                        d: dest.base,
                        v,
                        elt,
                        index,
                    }),
                }
            }
            InstKind::Shuffle { ty, a, b, mask } => {
                let (a, b) = (self.operand(a)?, self.operand(b)?);
                let lane_ty = ty.lanes()?.0;
                if dest.lanes as usize != mask.len() || !dest.vector || !ty.is_vector() {
                    return None;
                }
                let undefined = self.domain.constant(lane_ty, 0);
                for (i, m) in mask.iter().enumerate() {
                    let s = match *m {
                        Some(j) if j < a.lanes => a.lane(j),
                        Some(j) if j - a.lanes < b.lanes => b.lane(j - a.lanes),
                        Some(_) => return None,
                        None => self.constant(&[undefined], false)?.base,
                    };
                    self.steps.push(Step::Copy {
                        d: dest.lane(i as u32),
                        s,
                    });
                }
            }
            _ => return None,
        }
        Some(())
    }

    /// The value of a constant register.
    fn known(&self, reg: u32) -> Option<u64> {
        let i = reg.checked_sub(self.const_base)?;
        self.consts.get(i as usize).copied()
    }
}

fn scalar_float(ty: Type) -> Option<FloatTy> {
    match ty {
        Type::Scalar(ScalarTy::Float(f)) => Some(f),
        _ => None,
    }
}

/// The step of one lane of a lane-wise binary instruction.
fn binary_step(
    kind: &InstKind,
    lane_ty: ScalarTy,
    d: u32,
    a: u32,
    b: u32,
    lane: u32,
) -> Option<Step> {
    let site = |op: FpOpId| OpSite { op, lane };
    Some(match (kind, lane_ty) {
        (InstKind::FBin { op, site: s, .. }, ScalarTy::Float(fty)) => {
            let site = site(*s);
            match (fty, op) {
                (FloatTy::F64, FBinOp::FAdd) => Step::AddF64 { d, a, b, site },
                (FloatTy::F64, FBinOp::FSub) => Step::SubF64 { d, a, b, site },
                (FloatTy::F64, FBinOp::FMul) => Step::MulF64 { d, a, b, site },
                (FloatTy::F64, FBinOp::FDiv) => Step::DivF64 { d, a, b, site },
                _ => Step::FBin {
                    op: *op,
                    fty,
                    d,
                    a,
                    b,
                    site,
                },
            }
        }
        (
            InstKind::FCmp {
                pred,
                lowering,
                site: s,
                ..
            },
            ScalarTy::Float(fty),
        ) => Step::FCmp {
            pred: *pred,
            lowering: *lowering,
            fty,
            d,
            a,
            b,
            site: site(*s),
        },
        (InstKind::FBinary { op, site: s, .. }, ScalarTy::Float(fty)) => Step::FBinary {
            op: *op,
            fty,
            d,
            a,
            b,
            site: site(*s),
        },
        (InstKind::IBin { op, .. }, ScalarTy::Int(width)) => Step::IBin {
            op: *op,
            width,
            d,
            a,
            b,
        },
        (InstKind::ICmp { pred, .. }, ScalarTy::Int(width)) => Step::ICmp {
            pred: *pred,
            width,
            d,
            a,
            b,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{ArgBits, ConcreteRunner, FpMode};
    use crate::WalkConfig;
    use fpscout_ir::Module;

    const HEADER: &str = "target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\"\ntarget triple = \"x86_64-pc-linux-gnu\"\n\n";

    const FUNCTIONS: &str = r#"
declare double @llvm.sqrt.f64(double)
declare double @llvm.fabs.f64(double)
declare double @llvm.floor.f64(double)
declare double @llvm.fmuladd.f64(double, double, double)
declare double @llvm.minnum.f64(double, double)
declare double @exp(double)

define double @straight(double %x, double %y, double %z) {
  %a = fadd double %x, %y
  %b = fmul double %a, %z
  %c = fdiv double %b, %x
  %d = fsub double %c, 1.5
  %e = frem double %d, %y
  %f = fneg double %e
  %g = call double @llvm.sqrt.f64(double %f)
  %h = call double @llvm.fabs.f64(double %g)
  %i = call double @llvm.floor.f64(double %h)
  %j = call double @llvm.fmuladd.f64(double %i, double %y, double %z)
  %k = call double @llvm.minnum.f64(double %j, double %x)
  %l = call double @exp(double %k)
  %m = fcmp olt double %l, %y
  %n = select i1 %m, double %l, double %d
  %o = fptrunc double %n to float
  %p = fadd float %o, 3.0
  %q = fpext float %p to double
  %r = fptosi double %q to i32
  %s = sitofp i32 %r to double
  %t = fadd double %s, %q
  ret double %t
}

define double @loop(double %x, i32 %n, i32 %k) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %acc = phi double [ %x, %entry ], [ %acc2, %body ]
  %other = phi double [ 1.0, %entry ], [ %acc, %body ]
  %done = icmp sge i32 %i, %n
  br i1 %done, label %exit, label %body
body:
  %q = sdiv i32 100, %k
  %qf = sitofp i32 %q to double
  %acc1 = fmul double %acc, %other
  %acc2 = fadd double %acc1, %qf
  %i1 = add i32 %i, 1
  switch i32 %i1, label %head [ i32 7, label %seven
                                i32 1000, label %never ]
seven:
  %s = fdiv double %acc2, 0.0
  ret double %s
never:
  unreachable
exit:
  %r = fsub double %acc, %other
  ret double %r
}

define float @vectors(float %a, float %b, i32 %idx) {
  %v0 = insertelement <4 x float> <float 1.0, float poison, float 2.0, float 0x7FF8000000000000>, float %a, i64 1
  %v1 = insertelement <4 x float> %v0, float %b, i32 %idx
  %w = shufflevector <4 x float> %v1, <4 x float> <float 5.0, float 6.0, float 7.0, float 8.0>, <4 x i32> <i32 3, i32 6, i32 poison, i32 1>
  %s = fadd <4 x float> %v1, %w
  %d = fdiv <4 x float> %s, %v0
  %c = fcmp ogt <4 x float> %d, %w
  %m = select <4 x i1> %c, <4 x float> %d, <4 x float> %s
  %e = fpext <4 x float> %m to <4 x double>
  %t = fptrunc <4 x double> %e to <4 x float>
  %x = extractelement <4 x float> %t, i32 %idx
  %y = extractelement <4 x float> %m, i64 0
  %r = fmul float %x, %y
  ret float %r
}
"#;

    fn module() -> Module {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("m.ll");
        std::fs::write(&path, format!("{HEADER}{FUNCTIONS}")).expect("write .ll");
        fpscout_llvm::load_ir_file(&path, fpscout_llvm::LowerOptions::default())
            .unwrap_or_else(|e| panic!("lowering failed: {e}"))
    }

    /// Awkward doubles and floats: zeros, subnormals, extremes, infinities, NaNs.
    const F64S: &[u64] = &[
        0,
        0x8000_0000_0000_0000,
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0xbff8_0000_0000_0000,
        0x4024_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0123,
        0xfff4_0000_0000_0456,
        0x3fb9_9999_9999_999a,
    ];
    const F32S: &[u64] = &[
        0,
        0x8000_0000,
        1,
        0x0080_0000,
        0x3f80_0000,
        0xc040_0000,
        0x7f7f_ffff,
        0x7f80_0000,
        0x7fc0_0123,
        0xffa0_0456,
        0x3dcc_cccd,
    ];
    const INTS: &[u64] = &[0, 1, 2, 3, 5, 7, 0xffff_ffff, 0x8000_0000, 9];

    /// Runs every input through the fast path and the walker and demands identical
    /// evaluations (results, events with sites, flags, choice points, traps, stops).
    fn agree(name: &str, inputs: &[Vec<u64>], config: WalkConfig) {
        let m = module();
        let fid = m.find_function(name).expect("function");
        let modes = [
            FpMode::IEEE,
            FpMode::FAST_MATH_STARTUP,
            FpMode {
                ftz: true,
                daz: false,
            },
        ];
        for mode in modes {
            let mut fast = ConcreteRunner::new(&m, fid, mode, config).expect("runner");
            let mut slow = ConcreteRunner::new(&m, fid, mode, config).expect("runner");
            assert!(fast.has_fast_path(), "{name} is not compiled");
            slow.without_fast_path();
            for (record, choices) in [(true, vec![]), (false, vec![true, true, false, true])] {
                for r in [&mut fast, &mut slow] {
                    r.record_inexact(record);
                    r.set_choices(choices.clone());
                }
                let args: Vec<Vec<ArgBits>> = inputs
                    .iter()
                    .map(|v| v.iter().map(|&b| ArgBits::Scalar(b)).collect())
                    .collect();
                let (a, b) = (fast.eval_batch(&args), slow.eval_batch(&args));
                for ((x, y), input) in a.iter().zip(&b).zip(inputs) {
                    assert_eq!(x, y, "{name}{input:x?} in {mode:?}");
                }
                for input in &args {
                    assert_eq!(fast.eval(input), slow.eval(input), "{name}{input:x?}");
                }
            }
        }
    }

    #[test]
    fn straight_line_code_agrees_with_the_walker() {
        let mut inputs = Vec::new();
        for &x in F64S {
            for &y in F64S {
                for &z in &F64S[..6] {
                    inputs.push(vec![x, y, z]);
                }
            }
        }
        agree("straight", &inputs, WalkConfig::default());
    }

    #[test]
    fn loops_traps_and_budgets_agree_with_the_walker() {
        let mut inputs = Vec::new();
        for &x in F64S {
            for &n in INTS {
                for &k in &INTS[..4] {
                    inputs.push(vec![x, n, k]);
                }
            }
        }
        agree("loop", &inputs, WalkConfig::default());
        // Budgets that end the walk at each instruction of the first iterations.
        for step_budget in 0..26 {
            let tight = WalkConfig {
                step_budget,
                ..WalkConfig::default()
            };
            agree("loop", &inputs, tight);
        }
    }

    #[test]
    fn vector_code_agrees_with_the_walker() {
        let mut inputs = Vec::new();
        for &a in F32S {
            for &b in F32S {
                for idx in [0, 1, 2, 3, 4, 0xffff_ffff] {
                    inputs.push(vec![a, b, idx]);
                }
            }
        }
        agree("vectors", &inputs, WalkConfig::default());
    }
}
