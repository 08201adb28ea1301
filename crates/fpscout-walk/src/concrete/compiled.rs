//! A fast path for concrete evaluation of functions that only compute on scalars.
//!
//! The generic walker keeps every value as an optional [`Reg`] (a scalar, a pointer or a
//! vector) and every operation returns a `DResult`, which costs more than the SSE
//! instruction it models. A function whose values are all scalar numbers (no memory, no
//! calls, no vectors, no pointers) is compiled here into steps over a flat `u64` register
//! file, each step calling the same [`Concrete`] operation the walker would call.
//!
//! The fast path only runs the case where nothing goes wrong: any operation that fails
//! (an integer division trap, an unsupported conversion), an exhausted step budget or an
//! unreachable terminator makes the whole evaluation start again on the walker, which
//! reports it with its location. Operations have no effect outside the domain's events,
//! flags and choice counter, which a restart clears, so the outcome is the walker's.

use super::Concrete;
use crate::domain::{Decision, Domain, OpSite};
use fpscout_ir::*;
use smallvec::SmallVec;

/// One operation of a compiled block; operands and `d` (the result) are register indices.
#[derive(Clone, Debug)]
enum Step {
    /// `fadd`/`fsub`/`fmul`/`fdiv` on f64, the bulk of straight-line numeric code.
    AddF64 {
        d: u32,
        a: u32,
        b: u32,
        site: FpOpId,
    },
    SubF64 {
        d: u32,
        a: u32,
        b: u32,
        site: FpOpId,
    },
    MulF64 {
        d: u32,
        a: u32,
        b: u32,
        site: FpOpId,
    },
    DivF64 {
        d: u32,
        a: u32,
        b: u32,
        site: FpOpId,
    },
    FBin {
        op: FBinOp,
        fty: FloatTy,
        d: u32,
        a: u32,
        b: u32,
        site: FpOpId,
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
        site: FpOpId,
    },
    FUnary {
        op: FUnaryOp,
        fty: FloatTy,
        d: u32,
        a: u32,
        site: FpOpId,
    },
    FBinary {
        op: FBinaryOp,
        fty: FloatTy,
        d: u32,
        a: u32,
        b: u32,
        site: FpOpId,
    },
    Fma {
        fty: FloatTy,
        fused: bool,
        d: u32,
        a: u32,
        b: u32,
        c: u32,
        site: FpOpId,
    },
    Math {
        func: MathFn,
        fty: FloatTy,
        d: u32,
        args: Box<[u32]>,
        site: FpOpId,
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
        site: FpOpId,
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
}

/// A control-flow edge with the phi assignments of its target.
#[derive(Clone, Debug)]
struct Edge {
    to: u32,
    /// (destination, source) register pairs.
    moves: Box<[(u32, u32)]>,
    /// A phi reads another phi's destination assigned before it: read all, then write.
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
    /// Parameters first (as in the walker's frame), then the other values, then the
    /// constants (written once), then a sink for results nobody reads.
    regs: Vec<u64>,
    /// Scalar type of each parameter.
    params: Box<[ScalarTy]>,
}

impl Compiled {
    /// Compiles `func` if all its values are scalar numbers; `None` sends every evaluation
    /// to the walker.
    pub(crate) fn new(module: &Module, func: FuncId, domain: &Concrete) -> Option<Compiled> {
        let f = module.functions.get(func.0 as usize)?;
        if f.unsupported.is_some() || f.blocks.is_empty() {
            return None;
        }
        let params = f
            .params
            .iter()
            .map(|p| numeric(p.ty))
            .collect::<Option<Box<[ScalarTy]>>>()?;
        // Results nobody reads go to a sink register after the constants; its index is
        // only known at the end, so they are marked and patched.
        const SINK: u32 = u32::MAX;
        let mut c = Compiler {
            domain,
            consts: Vec::new(),
            const_base: f.num_values,
        };
        let mut blocks = Vec::with_capacity(f.blocks.len());
        for (index, b) in f.blocks.iter().enumerate() {
            if b.phis.iter().any(|p| numeric(p.ty).is_none()) {
                return None;
            }
            let mut steps = Vec::with_capacity(b.insts.len());
            for inst in &b.insts {
                let d = inst.dest.map_or(SINK, |v| v.0);
                if let Some(step) = c.step(&inst.kind, d)? {
                    steps.push(step);
                }
            }
            let from = index as u32;
            let exit = match &b.term {
                Terminator::Br(t) => Exit::Jump(c.edge(f, *t, from)?),
                Terminator::CondBr { cond, then_, else_ } => Exit::Branch {
                    cond: c.operand(cond)?,
                    then_: c.edge(f, *then_, from)?,
                    else_: c.edge(f, *else_, from)?,
                },
                Terminator::Switch {
                    value,
                    default,
                    cases,
                    ..
                } => Exit::Switch {
                    value: c.operand(value)?,
                    cases: cases
                        .iter()
                        .map(|&(v, t)| Some((v, c.edge(f, t, from)?)))
                        .collect::<Option<_>>()?,
                    default: c.edge(f, *default, from)?,
                },
                Terminator::Ret(v) => Exit::Ret(match v {
                    Some(o) => Some(c.operand(o)?),
                    None => None,
                }),
                Terminator::Unreachable => Exit::Unreachable,
            };
            blocks.push(FastBlock {
                steps: steps.into_boxed_slice(),
                budget_cost: b.insts.len() as u64,
                exit,
            });
        }
        let sink = f.num_values + c.consts.len() as u32;
        for block in &mut blocks {
            for step in block.steps.iter_mut() {
                let d = step.dest_mut();
                if *d == SINK {
                    *d = sink;
                }
            }
        }
        let compiled = Compiled {
            blocks: blocks.into_boxed_slice(),
            regs: {
                let mut regs = vec![0u64; f.num_values as usize];
                regs.extend_from_slice(&c.consts);
                regs.push(0);
                regs
            },
            params,
        };
        compiled
            .values_defined_before_use(f.num_values)
            .then_some(compiled)
    }

    /// Whether every value is assigned before it is read, on every path. SSA from a
    /// verified module always is; it is checked because the register file has no
    /// "undefined" state while the walker reports such a read as an error.
    fn values_defined_before_use(&self, num_values: u32) -> bool {
        let n = num_values as usize;
        let in_file = |r: u32| (r as usize) < self.regs.len();
        let is_defined =
            |defined: &[bool], r: u32| in_file(r) && (r as usize >= n || defined[r as usize]);
        // Values defined on entry to each block, `None` while no path to it was seen.
        let mut on_entry: Vec<Option<Vec<bool>>> = vec![None; self.blocks.len()];
        let mut params = vec![false; n];
        if self.params.len() > n {
            return false;
        }
        params[..self.params.len()].fill(true);
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
                let d = step.dest();
                if !in_file(d) {
                    return false;
                }
                if (d as usize) < n {
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
                    if !is_defined(&defined, s) || !in_file(d) {
                        return false;
                    }
                    if (d as usize) < n {
                        after[d as usize] = true;
                    }
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

    /// The scalar type of each parameter (every parameter of a compiled function is one).
    pub(crate) fn params(&self) -> &[ScalarTy] {
        &self.params
    }

    /// Sets parameter `i` for the next run.
    #[inline]
    pub(crate) fn set_param(&mut self, i: usize, bits: u64) {
        self.regs[i] = bits;
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
    let site = |op: FpOpId| OpSite { op, lane: 0 };
    let (d, v) = match *step {
        Step::AddF64 { d, a, b, site: s } => {
            let (x, y) = (regs[a as usize], regs[b as usize]);
            (d, dom.fbin_sse(FBinOp::FAdd, FloatTy::F64, x, y, site(s)))
        }
        Step::SubF64 { d, a, b, site: s } => {
            let (x, y) = (regs[a as usize], regs[b as usize]);
            (d, dom.fbin_sse(FBinOp::FSub, FloatTy::F64, x, y, site(s)))
        }
        Step::MulF64 { d, a, b, site: s } => {
            let (x, y) = (regs[a as usize], regs[b as usize]);
            (d, dom.fbin_sse(FBinOp::FMul, FloatTy::F64, x, y, site(s)))
        }
        Step::DivF64 { d, a, b, site: s } => {
            let (x, y) = (regs[a as usize], regs[b as usize]);
            (d, dom.fbin_sse(FBinOp::FDiv, FloatTy::F64, x, y, site(s)))
        }
        Step::FBin {
            op,
            fty,
            d,
            a,
            b,
            site: s,
        } => (
            d,
            ok(dom.fbin(op, fty, &regs[a as usize], &regs[b as usize], site(s)))?,
        ),
        Step::FNeg { fty, d, a } => (d, ok(dom.fneg(fty, &regs[a as usize]))?),
        Step::FCmp {
            pred,
            lowering,
            fty,
            d,
            a,
            b,
            site: s,
        } => {
            let (x, y) = (&regs[a as usize], &regs[b as usize]);
            (d, ok(dom.fcmp(pred, lowering, fty, x, y, site(s)))?)
        }
        Step::FUnary {
            op,
            fty,
            d,
            a,
            site: s,
        } => (d, ok(dom.funary(op, fty, &regs[a as usize], site(s)))?),
        Step::FBinary {
            op,
            fty,
            d,
            a,
            b,
            site: s,
        } => {
            let (x, y) = (&regs[a as usize], &regs[b as usize]);
            (d, ok(dom.fbinary(op, fty, x, y, site(s)))?)
        }
        Step::Fma {
            fty,
            fused,
            d,
            a,
            b,
            c,
            site: s,
        } => {
            let (x, y, z) = (&regs[a as usize], &regs[b as usize], &regs[c as usize]);
            let r = if fused {
                ok(dom.fma(fty, x, y, z, site(s)))?
            } else {
                let m = ok(dom.fbin(FBinOp::FMul, fty, x, y, site(s)))?;
                ok(dom.fbin(FBinOp::FAdd, fty, &m, z, site(s)))?
            };
            (d, r)
        }
        Step::Math {
            func,
            fty,
            d,
            ref args,
            site: s,
        } => {
            let argv: SmallVec<[u64; 4]> = args.iter().map(|&r| regs[r as usize]).collect();
            (d, ok(dom.math(func, fty, &argv, site(s)))?)
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
            site: s,
        } => (d, ok(dom.fcast(op, from, to, &regs[a as usize], site(s)))?),
        Step::ICast { op, from, to, d, a } => (d, ok(dom.icast(op, from, to, &regs[a as usize]))?),
        Step::Select { d, cond, a, b } => {
            let (c, x, y) = (&regs[cond as usize], &regs[a as usize], &regs[b as usize]);
            (d, ok(dom.select(c, x, y))?)
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
    fn dest(&self) -> u32 {
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
            | Step::Select { d, .. } => *d,
        }
    }

    /// The registers a step reads.
    fn sources(&self) -> SmallVec<[u32; 3]> {
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
            | Step::ICast { a, .. } => [*a].into_iter().collect(),
            Step::Fma { a, b, c, .. } => [*a, *b, *c].into_iter().collect(),
            Step::Select { cond, a, b, .. } => [*cond, *a, *b].into_iter().collect(),
            Step::Math { args, .. } => args.iter().copied().collect(),
        }
    }

    fn dest_mut(&mut self) -> &mut u32 {
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
            | Step::Select { d, .. } => d,
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

fn scalar_float(ty: Type) -> Option<FloatTy> {
    match ty {
        Type::Scalar(ScalarTy::Float(f)) => Some(f),
        _ => None,
    }
}

fn scalar_int(ty: Type) -> Option<u32> {
    match ty {
        Type::Scalar(ScalarTy::Int(w)) => Some(w),
        _ => None,
    }
}

struct Compiler<'a> {
    domain: &'a Concrete,
    /// Constant values, placed after the frame's values.
    consts: Vec<u64>,
    const_base: u32,
}

impl Compiler<'_> {
    /// The edge from block `from` to `to` with `to`'s phi assignments (as the walker's
    /// `assign_phis`: the first incoming entry for `from`).
    fn edge(&mut self, f: &Function, to: BlockId, from: u32) -> Option<Edge> {
        let block = f.blocks.get(to.0 as usize)?;
        let mut moves = Vec::with_capacity(block.phis.len());
        for phi in &block.phis {
            let (_, o) = phi.incoming.iter().find(|(b, _)| b.0 == from)?;
            moves.push((phi.dest.0, self.operand(o)?));
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

    /// The step for one instruction (`None` inside for a no-op), or `None` when the
    /// instruction needs the walker.
    fn step(&mut self, kind: &InstKind, d: u32) -> Option<Option<Step>> {
        let o = |c: &mut Self, x: &Operand| c.operand(x);
        Some(Some(match kind {
            InstKind::FBin { op, ty, a, b, site } => {
                let fty = scalar_float(*ty)?;
                let (a, b, site) = (o(self, a)?, o(self, b)?, *site);
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
            InstKind::FNeg { ty, a } => Step::FNeg {
                fty: scalar_float(*ty)?,
                d,
                a: o(self, a)?,
            },
            InstKind::FCmp {
                pred,
                ty,
                a,
                b,
                lowering,
                site,
            } => Step::FCmp {
                pred: *pred,
                lowering: *lowering,
                fty: scalar_float(*ty)?,
                d,
                a: o(self, a)?,
                b: o(self, b)?,
                site: *site,
            },
            InstKind::FUnary { op, ty, a, site } => Step::FUnary {
                op: *op,
                fty: scalar_float(*ty)?,
                d,
                a: o(self, a)?,
                site: *site,
            },
            InstKind::FBinary { op, ty, a, b, site } => Step::FBinary {
                op: *op,
                fty: scalar_float(*ty)?,
                d,
                a: o(self, a)?,
                b: o(self, b)?,
                site: *site,
            },
            InstKind::Fma {
                ty,
                a,
                b,
                c,
                fused,
                site,
            } => Step::Fma {
                fty: scalar_float(*ty)?,
                fused: *fused,
                d,
                a: o(self, a)?,
                b: o(self, b)?,
                c: o(self, c)?,
                site: *site,
            },
            InstKind::Math {
                func,
                ty,
                args,
                site,
            } => Step::Math {
                func: *func,
                fty: scalar_float(*ty)?,
                d,
                args: args
                    .iter()
                    .map(|a| o(self, a))
                    .collect::<Option<Box<[u32]>>>()?,
                site: *site,
            },
            InstKind::IBin { op, ty, a, b } => Step::IBin {
                op: *op,
                width: scalar_int(*ty)?,
                d,
                a: o(self, a)?,
                b: o(self, b)?,
            },
            InstKind::ICmp { pred, ty, a, b } => Step::ICmp {
                pred: *pred,
                width: scalar_int(*ty)?,
                d,
                a: o(self, a)?,
                b: o(self, b)?,
            },
            InstKind::IAbs { ty, a } => Step::IAbs {
                width: scalar_int(*ty)?,
                d,
                a: o(self, a)?,
            },
            InstKind::Cast {
                op,
                from,
                to,
                a,
                site,
            } => {
                if matches!(op, CastOp::PtrToInt | CastOp::IntToPtr) {
                    return None;
                }
                let (from, to, a) = (numeric(*from)?, numeric(*to)?, o(self, a)?);
                match site {
                    Some(site) => Step::FCast {
                        op: *op,
                        from,
                        to,
                        d,
                        a,
                        site: *site,
                    },
                    None => Step::ICast {
                        op: *op,
                        from,
                        to,
                        d,
                        a,
                    },
                }
            }
            InstKind::Select { ty, cond, a, b } => {
                numeric(*ty)?;
                Step::Select {
                    d,
                    cond: o(self, cond)?,
                    a: o(self, a)?,
                    b: o(self, b)?,
                }
            }
            InstKind::Phi { .. } | InstKind::Nop => return Some(None),
            _ => return None,
        }))
    }

    /// The register of an operand: a value, or a scalar constant placed in the file.
    fn operand(&mut self, x: &Operand) -> Option<u32> {
        match x {
            Operand::Value(v) => Some(v.0),
            Operand::Const(c) => {
                // As the walker's decoder converts constants (`code::const_to_val`).
                let bits = match c {
                    Const::Int { width, bits } => {
                        self.domain.constant(ScalarTy::Int(*width), *bits)
                    }
                    Const::Float { ty, bits } => self.domain.constant(ScalarTy::Float(*ty), *bits),
                    Const::Undef(s @ (ScalarTy::Int(_) | ScalarTy::Float(_))) => {
                        self.domain.constant(*s, 0)
                    }
                    _ => return None,
                };
                self.consts.push(bits);
                Some(self.const_base + self.consts.len() as u32 - 1)
            }
        }
    }
}
