//! A fast path for concrete evaluation of functions that compute on numbers only.
//!
//! The generic walker keeps every value as an optional [`Reg`](crate::code::Reg) (a
//! scalar, a pointer or a vector) and every operation returns a `DResult`, which costs
//! more than the SSE instruction it models. A function without calls whose values are
//! numbers, vectors of numbers or pointers is compiled here into steps over a flat `u64`
//! register file (a vector takes one register per lane, a pointer lives in a parallel
//! file of [`Ptr`]s), each step calling the same [`Concrete`] operation or [`Memory`]
//! access, with the same operation site, in the same order as the walker.
//!
//! The fast path only runs the case where nothing goes wrong: any operation that fails
//! (an integer division trap, an unsupported conversion, an index out of range), an
//! exhausted step budget or an unreachable terminator makes the whole evaluation start
//! again on the walker, which reports it with its location. Operations have no effect
//! outside the domain's events, flags and choice counter and the walker's memory, which a
//! restart resets, so the outcome is always the walker's.

use super::Concrete;
use crate::domain::{Decision, Domain, OpSite};
use crate::memory::{store_size, Cell, Memory, ObjectId, Ptr};
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
    FClass {
        mask: FpClassMask,
        fty: FloatTy,
        d: u32,
        a: u32,
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
    /// `getelementptr`: pointer `base` plus `offset` plus Σ index · scale, each index
    /// (register, width) sign-extended from its width.
    Gep {
        d: u32,
        base: u32,
        offset: i64,
        indices: Box<[(u32, u32, i64)]>,
    },
    Alloca {
        d: u32,
        size: u64,
    },
    /// One lane of a load: `ty` at pointer `ptr` plus `delta` bytes.
    Load {
        d: u32,
        ptr: u32,
        delta: i64,
        ty: ScalarTy,
    },
    /// One lane of a store.
    Store {
        value: u32,
        ptr: u32,
        delta: i64,
        ty: ScalarTy,
    },
    SelectPtr {
        d: u32,
        cond: u32,
        a: u32,
        b: u32,
    },
    ICmpPtr {
        pred: ICmpPred,
        d: u32,
        a: u32,
        b: u32,
    },
}

/// Where a value lives: `lanes` registers from `base`. `vector` tells a one-lane vector
/// from a scalar, which the walker treats differently; a pointer (`ptr`, one lane) lives
/// in the pointer file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Loc {
    base: u32,
    lanes: u32,
    vector: bool,
    ptr: bool,
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
    /// (destination, source) register pairs of numbers.
    moves: Box<[(u32, u32)]>,
    /// The same for pointers.
    ptr_moves: Box<[(u32, u32)]>,
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
    /// The pointer file, indexed like `regs`.
    ptrs: Vec<Ptr>,
    /// Register and type of each parameter.
    params: Box<[(u32, ScalarTy)]>,
    /// Objects allocated by `alloca` in the current run (freed on return, as the walker
    /// frees a frame's).
    allocas: Vec<ObjectId>,
    /// Registers below this hold values (and the sink); the rest are constants.
    value_regs: u32,
    /// Some step touches memory.
    uses_memory: bool,
}

impl Compiled {
    /// Compiles `func` if all its values are numbers or vectors of numbers; `None` sends
    /// every evaluation to the walker.
    pub(crate) fn new(
        module: &Module,
        func: FuncId,
        domain: &Concrete,
        globals: &[Ptr],
    ) -> Option<Compiled> {
        let f = module.functions.get(func.0 as usize)?;
        if f.unsupported.is_some() || f.blocks.is_empty() {
            return None;
        }
        let (layout, sink, value_regs) = layout(f)?;
        let params = f
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let loc = (*layout.get(i)?)?;
                let ty = match p.ty {
                    Type::Scalar(s) if !loc.vector => s,
                    _ => return None,
                };
                Some((loc.base, ty))
            })
            .collect::<Option<Box<[(u32, ScalarTy)]>>>()?;
        let mut c = Compiler {
            domain,
            globals,
            layout,
            sink,
            consts: Vec::new(),
            const_ptrs: Vec::new(),
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
        forward_copies(&mut blocks, sink.regs());
        let uses_memory = blocks.iter().any(|b: &FastBlock| {
            b.steps.iter().any(|s| {
                matches!(
                    s,
                    Step::Alloca { .. } | Step::Load { .. } | Step::Store { .. }
                )
            })
        });
        let mut regs = vec![0u64; value_regs as usize];
        regs.extend_from_slice(&c.consts);
        let mut ptrs = vec![Ptr::NULL; value_regs as usize];
        c.const_ptrs.resize(c.consts.len(), Ptr::NULL);
        ptrs.extend_from_slice(&c.const_ptrs);
        let compiled = Compiled {
            blocks: blocks.into_boxed_slice(),
            regs,
            ptrs,
            params,
            allocas: Vec::new(),
            value_regs,
            uses_memory,
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
                for &(d, s) in edge.moves.iter().chain(edge.ptr_moves.iter()) {
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

    /// Whether a run may read or write memory (loads, stores, allocas).
    pub(crate) fn uses_memory(&self) -> bool {
        self.uses_memory
    }

    /// Sets the parameters for the next run from argument bits, as the walker's argument
    /// values are made (`Domain::constant` of the parameter type), when all are numbers.
    pub(crate) fn set_scalar_args(&mut self, domain: &Concrete, args: &[super::ArgBits]) -> bool {
        if args.len() != self.params.len() {
            return false;
        }
        for (&(reg, ty), a) in self.params.iter().zip(args) {
            match (ty, a) {
                (ScalarTy::Int(_) | ScalarTy::Float(_), super::ArgBits::Scalar(bits)) => {
                    self.regs[reg as usize] = domain.constant(ty, *bits)
                }
                _ => return false,
            }
        }
        true
    }

    /// Sets the parameters for the next run from the walker's argument values.
    pub(crate) fn set_params(&mut self, args: &[crate::code::Reg<u64>]) -> Result<(), Restart> {
        use crate::code::Reg;
        if args.len() != self.params.len() {
            return Err(Restart);
        }
        for (&(reg, ty), a) in self.params.iter().zip(args) {
            match (ty, a) {
                (ScalarTy::Ptr, Reg::Ptr(p)) => self.ptrs[reg as usize] = *p,
                (ScalarTy::Int(_) | ScalarTy::Float(_), Reg::Scalar(bits)) => {
                    self.regs[reg as usize] = *bits
                }
                _ => return Err(Restart),
            }
        }
        Ok(())
    }

    /// Runs the function on the parameters set before. Returns the result and the steps
    /// taken, or [`Restart`] when the walker must redo the evaluation (memory may then
    /// be changed).
    pub(crate) fn run(
        &mut self,
        domain: &mut Concrete,
        memory: &mut Memory<u64>,
        step_budget: u64,
    ) -> Result<(Option<u64>, u64), Restart> {
        let regs = &mut self.regs[..];
        let ptrs = &mut self.ptrs[..];
        let allocas = &mut self.allocas;
        allocas.clear();
        let mut steps = 0u64;
        let mut block = &self.blocks[0];
        loop {
            steps += block.budget_cost;
            if steps > step_budget {
                return Err(Restart);
            }
            for step in block.steps.iter() {
                // The bulk of straight-line code inline; the rest out of line keeps this
                // loop small (fewer registers to save, a smaller jump table).
                let (d, v) = match arith_f64(step, regs, domain) {
                    Some(dv) => dv,
                    None => match *step {
                        Step::Copy { d, s } => (d, regs[s as usize]),
                        _ => {
                            exec_other(step, regs, ptrs, domain, memory, allocas)?;
                            continue;
                        }
                    },
                };
                regs[d as usize] = v;
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
                Exit::Ret(v) => {
                    for &obj in allocas.iter() {
                        memory.kill(obj);
                    }
                    return Ok((v.map(|r| regs[r as usize]), steps));
                }
                Exit::Unreachable => return Err(Restart),
            };
            if edge.parallel {
                let incoming: SmallVec<[u64; 8]> =
                    edge.moves.iter().map(|&(_, s)| regs[s as usize]).collect();
                let incoming_ptrs: SmallVec<[Ptr; 4]> = edge
                    .ptr_moves
                    .iter()
                    .map(|&(_, s)| ptrs[s as usize])
                    .collect();
                for (&(d, _), v) in edge.moves.iter().zip(incoming) {
                    regs[d as usize] = v;
                }
                for (&(d, _), p) in edge.ptr_moves.iter().zip(incoming_ptrs) {
                    ptrs[d as usize] = p;
                }
            } else {
                for &(d, s) in edge.moves.iter() {
                    regs[d as usize] = regs[s as usize];
                }
                for &(d, s) in edge.ptr_moves.iter() {
                    ptrs[d as usize] = ptrs[s as usize];
                }
            }
            block = &self.blocks[edge.to as usize];
        }
    }
}

/// Removes the lane copies of straight-line code (vectorised code is full of them:
/// `insertelement`, `extractelement`, `shufflevector`): in one block that returns, every
/// register but the sink is written once, so reading a copy's source instead of the copy
/// reads the same value. Extract and Insert read whole vectors as register ranges, which
/// forwarding single lanes would break; code with them is left alone.
fn forward_copies(blocks: &mut [FastBlock], sink: std::ops::Range<u32>) {
    let [block] = blocks else {
        return;
    };
    if !matches!(block.exit, Exit::Ret(_) | Exit::Unreachable) {
        return;
    }
    let mut written = std::collections::HashSet::new();
    for step in block.steps.iter() {
        if matches!(step, Step::Extract { .. } | Step::Insert { .. }) {
            return;
        }
        for d in step.dests() {
            if !sink.contains(&d) && !written.insert(d) {
                return;
            }
        }
    }
    let mut source = std::collections::HashMap::new();
    let mut kept = Vec::with_capacity(block.steps.len());
    for mut step in std::mem::take(&mut block.steps).into_vec() {
        step.number_sources_mut(|r| {
            if let Some(&s) = source.get(r) {
                *r = s;
            }
        });
        match step {
            Step::Copy { d, s } if !sink.contains(&d) => {
                source.insert(d, s);
            }
            _ => kept.push(step),
        }
    }
    block.steps = kept.into_boxed_slice();
    if let Exit::Ret(Some(r)) = &mut block.exit {
        if let Some(&s) = source.get(r) {
            *r = s;
        }
    }
}

/// Executes a step the loop in [`Compiled::run`] does not inline.
#[inline(never)]
fn exec_other(
    step: &Step,
    regs: &mut [u64],
    ptrs: &mut [Ptr],
    dom: &mut Concrete,
    memory: &mut Memory<u64>,
    allocas: &mut Vec<ObjectId>,
) -> Result<(), Restart> {
    match step {
        Step::Gep { .. }
        | Step::Alloca { .. }
        | Step::Load { .. }
        | Step::Store { .. }
        | Step::SelectPtr { .. }
        | Step::ICmpPtr { .. } => exec_memory(step, regs, ptrs, dom, memory, allocas),
        _ => exec(step, regs, dom),
    }
}

/// The f64 arithmetic steps, the bulk of straight-line numeric code: the destination and
/// the result, `None` for any other step. One definition for the step loop of
/// [`Compiled::run`], which inlines it, and for [`exec`], so the two cannot drift apart.
#[inline(always)]
fn arith_f64(step: &Step, regs: &[u64], dom: &mut Concrete) -> Option<(u32, u64)> {
    let f64 = FloatTy::F64;
    let r = |i: u32| regs[i as usize];
    // One call per arm, each inlining `fbin_sse` for an operation known at compile time.
    Some(match *step {
        Step::AddF64 { d, a, b, site } => (d, dom.fbin_sse(FBinOp::FAdd, f64, r(a), r(b), site)),
        Step::SubF64 { d, a, b, site } => (d, dom.fbin_sse(FBinOp::FSub, f64, r(a), r(b), site)),
        Step::MulF64 { d, a, b, site } => (d, dom.fbin_sse(FBinOp::FMul, f64, r(a), r(b), site)),
        Step::DivF64 { d, a, b, site } => (d, dom.fbin_sse(FBinOp::FDiv, f64, r(a), r(b), site)),
        _ => return None,
    })
}

/// Executes one step; a failing operation restarts the evaluation on the walker.
#[inline(always)]
fn exec(step: &Step, regs: &mut [u64], dom: &mut Concrete) -> Result<(), Restart> {
    let (d, v) = match *step {
        Step::AddF64 { .. } | Step::SubF64 { .. } | Step::MulF64 { .. } | Step::DivF64 { .. } => {
            match arith_f64(step, regs, dom) {
                Some(dv) => dv,
                None => return unexpected_step(),
            }
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
        Step::FClass {
            mask,
            fty,
            d,
            a,
            site,
        } => (d, ok(dom.fclass(mask, fty, &regs[a as usize], site))?),
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
            // Arity 1 or 2 (checked when compiled).
            let mut argv = [0u64; 2];
            for (slot, &r) in argv.iter_mut().zip(args.iter()) {
                *slot = regs[r as usize];
            }
            let argv = &argv[..args.len()];
            (d, ok(dom.math(func, fty, argv, site))?)
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
        Step::Gep { .. }
        | Step::Alloca { .. }
        | Step::Load { .. }
        | Step::Store { .. }
        | Step::SelectPtr { .. }
        | Step::ICmpPtr { .. } => return unexpected_step(),
    };
    regs[d as usize] = v;
    Ok(())
}

/// Memory steps go to [`exec_memory`]: reaching `exec` with one, or [`arith_f64`] refusing
/// an arithmetic step, is a compiler bug, which the walker then handles.
#[cold]
fn unexpected_step() -> Result<(), Restart> {
    Err(Restart)
}

/// Executes a step on pointers or memory, as the walker's `exec` does.
#[inline(never)]
fn exec_memory(
    step: &Step,
    regs: &mut [u64],
    ptrs: &mut [Ptr],
    dom: &mut Concrete,
    memory: &mut Memory<u64>,
    allocas: &mut Vec<ObjectId>,
) -> Result<(), Restart> {
    match *step {
        Step::Gep {
            d,
            base,
            offset,
            ref indices,
        } => {
            let mut p = ptrs[base as usize].add(offset);
            for &(index, width, scale) in indices.iter() {
                let raw = ok(dom.concretize(&regs[index as usize], ScalarTy::Int(width)))?;
                p = p.add(sign_extend(raw, width).wrapping_mul(scale));
            }
            ptrs[d as usize] = p;
        }
        Step::Alloca { d, size } => {
            let p = memory.alloc_named("alloca", size.max(1), true);
            allocas.push(p.obj);
            ptrs[d as usize] = p;
        }
        Step::Load { d, ptr, delta, ty } => {
            match ok(memory.load(dom, ptrs[ptr as usize].add(delta), ty))? {
                Cell::Scalar(_, v) => regs[d as usize] = v,
                Cell::Ptr(_) => return Err(Restart),
            }
        }
        Step::Store {
            value,
            ptr,
            delta,
            ty,
        } => {
            let cell = Cell::Scalar(ty, regs[value as usize]);
            ok(memory.store(dom, ptrs[ptr as usize].add(delta), cell))?;
        }
        Step::SelectPtr { d, cond, a, b } => {
            let taken = match ok(dom.decide(&regs[cond as usize]))? {
                Decision::Known(t) => t,
                Decision::Both => return Err(Restart),
            };
            ptrs[d as usize] = ptrs[if taken { a } else { b } as usize];
        }
        Step::ICmpPtr { pred, d, a, b } => {
            let holds = crate::walker::ptr_cmp(pred, ptrs[a as usize], ptrs[b as usize]);
            regs[d as usize] = dom.constant(ScalarTy::Int(1), u64::from(holds));
        }
        _ => return exec(step, regs, dom),
    }
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
            | Step::FClass { d, .. }
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
            | Step::Extract { d, .. }
            | Step::Gep { d, .. }
            | Step::Alloca { d, .. }
            | Step::Load { d, .. }
            | Step::SelectPtr { d, .. }
            | Step::ICmpPtr { d, .. } => *d..*d + 1,
            Step::Insert { d, v, .. } => *d..*d + v.lanes,
            Step::Store { .. } => 0..0,
        }
    }

    /// Calls `f` on each register a step reads as a number (not the pointer operands,
    /// which index the pointer file).
    fn number_sources_mut(&mut self, mut f: impl FnMut(&mut u32)) {
        match self {
            Step::AddF64 { a, b, .. }
            | Step::SubF64 { a, b, .. }
            | Step::MulF64 { a, b, .. }
            | Step::DivF64 { a, b, .. }
            | Step::FBin { a, b, .. }
            | Step::FCmp { a, b, .. }
            | Step::FBinary { a, b, .. }
            | Step::IBin { a, b, .. }
            | Step::ICmp { a, b, .. } => {
                f(a);
                f(b);
            }
            Step::FNeg { a, .. }
            | Step::FUnary { a, .. }
            | Step::FClass { a, .. }
            | Step::IAbs { a, .. }
            | Step::FCast { a, .. }
            | Step::ICast { a, .. }
            | Step::Copy { s: a, .. }
            | Step::Store { value: a, .. }
            | Step::SelectPtr { cond: a, .. } => f(a),
            Step::Fma { a, b, c, .. }
            | Step::Select {
                cond: a,
                a: b,
                b: c,
                ..
            } => {
                f(a);
                f(b);
                f(c);
            }
            Step::Math { args, .. } => args.iter_mut().for_each(f),
            Step::Gep { indices, .. } => indices.iter_mut().for_each(|i| f(&mut i.0)),
            Step::Extract { index, .. } => f(index),
            Step::Insert { elt, index, .. } => {
                f(elt);
                f(index);
            }
            Step::Alloca { .. } | Step::Load { .. } | Step::ICmpPtr { .. } => {}
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
            | Step::ICmp { a, b, .. }
            | Step::ICmpPtr { a, b, .. }
            | Step::Store {
                value: a, ptr: b, ..
            } => [*a, *b].into_iter().collect(),
            Step::FNeg { a, .. }
            | Step::FUnary { a, .. }
            | Step::FClass { a, .. }
            | Step::IAbs { a, .. }
            | Step::FCast { a, .. }
            | Step::ICast { a, .. }
            | Step::Copy { s: a, .. }
            | Step::Load { ptr: a, .. } => [*a].into_iter().collect(),
            Step::Alloca { .. } => SmallVec::new(),
            Step::Gep { base, indices, .. } => [*base]
                .into_iter()
                .chain(indices.iter().map(|i| i.0))
                .collect(),
            Step::Fma { a, b, c, .. } => [*a, *b, *c].into_iter().collect(),
            Step::Select { cond, a, b, .. } | Step::SelectPtr { cond, a, b, .. } => {
                [*cond, *a, *b].into_iter().collect()
            }
            Step::Math { args, .. } => args.iter().copied().collect(),
            Step::Extract { v, index, .. } => v.regs().chain([*index]).collect(),
            Step::Insert { v, elt, index, .. } => v.regs().chain([*elt, *index]).collect(),
        }
    }
}

/// For a load or store of `ty` through registers of `loc`'s shape: the lane type and each
/// lane's byte offset from the pointer (`None` when the shapes differ).
fn lane_deltas(ty: Type, loc: Loc) -> Option<(ScalarTy, Vec<(u32, i64)>)> {
    let (lanes, vector) = shape(ty)?;
    if loc.lanes != lanes || loc.vector != vector {
        return None;
    }
    let lane_ty = ty.lanes()?.0;
    let deltas = (0..lanes)
        .map(|i| Some((i, i64::from(i).checked_mul(store_size(lane_ty) as i64)?)))
        .collect::<Option<Vec<_>>>()?;
    Some((lane_ty, deltas))
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
        InstKind::FCmp { ty, .. } | InstKind::ICmp { ty, .. } | InstKind::FClass { ty, .. } => {
            bools(*ty)
        }
        InstKind::Cast { to, .. } => *to,
        InstKind::ExtractElement { ty, .. } => Type::Scalar(ty.lanes()?.0),
        InstKind::Gep { .. } | InstKind::Alloca { .. } => Type::PTR,
        InstKind::Load { ty, .. } => *ty,
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
            if matches!(
                inst.kind,
                InstKind::Nop | InstKind::Phi { .. } | InstKind::Store { .. }
            ) {
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
                let (lanes, vector, ptr) = match ty {
                    Type::Scalar(ScalarTy::Ptr) => (1, false, true),
                    _ => {
                        let (lanes, vector) = shape(ty)?;
                        (lanes, vector, false)
                    }
                };
                let loc = Loc {
                    base: next,
                    lanes,
                    vector,
                    ptr,
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
        ptr: false,
    };
    Some((layout, sink, next.checked_add(widest)?))
}

struct Compiler<'a> {
    domain: &'a Concrete,
    /// Where the module's globals live in the walker's memory.
    globals: &'a [Ptr],
    layout: Vec<Option<Loc>>,
    /// Where results nobody reads go.
    sink: Loc,
    /// Constant lanes, placed after the value registers.
    consts: Vec<u64>,
    /// Pointer constants, at the same registers (unused entries are null).
    const_ptrs: Vec<Ptr>,
    const_base: u32,
    /// Steps of the block being compiled.
    steps: Vec<Step>,
}

impl Compiler<'_> {
    /// Where a number (or vector of numbers) operand lives.
    fn operand(&mut self, x: &Operand) -> Option<Loc> {
        self.any_operand(x).filter(|l| !l.ptr)
    }

    /// The register of a pointer operand.
    fn pointer(&mut self, x: &Operand) -> Option<u32> {
        self.any_operand(x).filter(|l| l.ptr).map(|l| l.base)
    }

    /// Where an operand lives: a value, or a constant placed in the file (as the walker's
    /// decoder converts it, `code::const_to_val`).
    fn any_operand(&mut self, x: &Operand) -> Option<Loc> {
        match x {
            Operand::Value(v) => *self.layout.get(v.0 as usize)?,
            Operand::Const(Const::NullPtr | Const::Undef(ScalarTy::Ptr)) => {
                self.pointer_constant(Ptr::NULL)
            }
            Operand::Const(Const::GlobalAddr { global, offset }) => {
                let base = *self.globals.get(global.0 as usize)?;
                self.pointer_constant(base.add(*offset))
            }
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

    fn pointer_constant(&mut self, p: Ptr) -> Option<Loc> {
        let base = self
            .const_base
            .checked_add(u32::try_from(self.consts.len()).ok()?)?;
        self.consts.push(0);
        self.const_ptrs.resize(self.consts.len() - 1, Ptr::NULL);
        self.const_ptrs.push(p);
        Some(Loc {
            base,
            lanes: 1,
            vector: false,
            ptr: true,
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
            ptr: false,
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
        let mut ptr_moves = Vec::new();
        for phi in &block.phis {
            let (_, o) = phi.incoming.iter().find(|(b, _)| b.0 == from)?;
            let d = (*self.layout.get(phi.dest.0 as usize)?)?;
            let s = self.any_operand(o)?;
            if s.lanes != d.lanes || s.vector != d.vector || s.ptr != d.ptr {
                return None;
            }
            let list = if d.ptr { &mut ptr_moves } else { &mut moves };
            list.extend(d.regs().zip(s.regs()));
        }
        let conflict = |moves: &[(u32, u32)]| {
            moves
                .iter()
                .enumerate()
                .any(|(i, &(_, s))| moves[..i].iter().any(|&(d, _)| d == s))
        };
        Some(Edge {
            to: to.0,
            parallel: conflict(&moves) || conflict(&ptr_moves),
            moves: moves.into_boxed_slice(),
            ptr_moves: ptr_moves.into_boxed_slice(),
        })
    }

    /// Compiles one instruction into steps, lane by lane as the walker runs it; `None`
    /// when the walker must run this function.
    fn inst(&mut self, inst: &Inst) -> Option<()> {
        let kind = &inst.kind;
        match kind {
            InstKind::Nop | InstKind::Phi { .. } => return Some(()),
            // The walker reads the pointer first, then the value, and stores lane by lane.
            InstKind::Store { ty, value, ptr } => {
                let ptr = self.pointer(ptr)?;
                let v = self.operand(value)?;
                let (lane_ty, deltas) = lane_deltas(*ty, v)?;
                for (i, delta) in deltas {
                    self.steps.push(Step::Store {
                        value: v.lane(i),
                        ptr,
                        delta,
                        ty: lane_ty,
                    });
                }
                return Some(());
            }
            _ => {}
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
        let ptr_result = matches!(kind, InstKind::Gep { .. } | InstKind::Alloca { .. })
            || matches!(kind, InstKind::Select { ty, .. } if *ty == Type::PTR);
        if dest.ptr != ptr_result {
            return None;
        }
        let site = |op: FpOpId, lane: u32| OpSite { op, lane };
        match kind {
            InstKind::Gep {
                base,
                const_offset,
                indices,
            } => {
                let base = self.pointer(base)?;
                let indices = indices
                    .iter()
                    .map(|g| Some((self.scalar(&g.index)?, g.width, g.scale)))
                    .collect::<Option<Box<[_]>>>()?;
                self.steps.push(Step::Gep {
                    d: dest.base,
                    base,
                    offset: *const_offset,
                    indices,
                });
            }
            InstKind::Alloca { size } => self.steps.push(Step::Alloca {
                d: dest.base,
                size: *size,
            }),
            InstKind::Load { ty, ptr } => {
                let ptr = self.pointer(ptr)?;
                let (lane_ty, deltas) = lane_deltas(*ty, dest)?;
                for (i, delta) in deltas {
                    self.steps.push(Step::Load {
                        d: dest.lane(i),
                        ptr,
                        delta,
                        ty: lane_ty,
                    });
                }
            }
            InstKind::Select { ty, cond, a, b } if *ty == Type::PTR => {
                let cond = self.scalar(cond)?;
                let (a, b) = (self.pointer(a)?, self.pointer(b)?);
                self.steps.push(Step::SelectPtr {
                    d: dest.base,
                    cond,
                    a,
                    b,
                });
            }
            InstKind::ICmp { pred, ty, a, b } if *ty == Type::PTR => {
                let (a, b) = (self.pointer(a)?, self.pointer(b)?);
                if dest.vector || dest.lanes != 1 {
                    return None;
                }
                self.steps.push(Step::ICmpPtr {
                    pred: *pred,
                    d: dest.base,
                    a,
                    b,
                });
            }
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
            | InstKind::FUnary { ty, a, .. }
            | InstKind::FClass { ty, a, .. } => {
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
                        (InstKind::FClass { mask, site: s, .. }, ScalarTy::Float(fty)) => {
                            Step::FClass {
                                mask: *mask,
                                fty,
                                d,
                                a: x,
                                site: site(*s, i),
                            }
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
                // The walker reports a wrong arity.
                if dest.vector || args.len() != func.arity() {
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

@table = internal constant [4 x double] [double 1.0, double 2.5, double -0.0, double 0x7FF0000000000000]

define double @memory(ptr %x, i32 %n, double %y) {
entry:
  %tmp = alloca [2 x double]
  %t1 = getelementptr inbounds i8, ptr %tmp, i64 8
  store double %y, ptr %tmp
  store double 0.5, ptr %t1
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %p = phi ptr [ %x, %entry ], [ %p1, %body ]
  %s = phi double [ 0.0, %entry ], [ %s2, %body ]
  %done = icmp sge i32 %i, %n
  br i1 %done, label %exit, label %body
body:
  %v = load double, ptr %p
  %idx = and i32 %i, 3
  %ix = sext i32 %idx to i64
  %g = getelementptr inbounds double, ptr @table, i64 %ix
  %w = load double, ptr %g
  %s1 = fadd double %s, %v
  %s2 = fmul double %s1, %w
  %sq = fmul double %v, %v
  store double %sq, ptr %p
  %p1 = getelementptr inbounds i8, ptr %p, i64 8
  %i1 = add i32 %i, 1
  br label %head
exit:
  %tv = load <2 x double>, ptr %tmp
  %sum = fadd <2 x double> %tv, <double 1.0, double 3.0>
  store <2 x double> %sum, ptr %x
  %big = fcmp ogt double %s, 1.0
  %q = select i1 %big, ptr %tmp, ptr %t1
  %same = icmp eq ptr %q, %tmp
  %r0 = load double, ptr %q
  %r = select i1 %same, double %r0, double %s
  ret double %r
}

define double @lanes(double %x, double %y) {
  %v0 = insertelement <2 x double> poison, double %x, i64 0
  %v1 = insertelement <2 x double> %v0, double %y, i64 1
  %s = shufflevector <2 x double> %v1, <2 x double> poison, <2 x i32> <i32 1, i32 0>
  %m = fmul <2 x double> %v1, %s
  %a = fadd <2 x double> %m, <double 1.0, double -3.0>
  %w = shufflevector <2 x double> %a, <2 x double> %v1, <2 x i32> <i32 3, i32 0>
  %d = fdiv <2 x double> %w, %a
  %e0 = extractelement <2 x double> %d, i64 0
  %e1 = extractelement <2 x double> %d, i64 1
  %r = fsub double %e0, %e1
  %c = fcmp olt double %r, %x
  %q = select i1 %c, double %e1, double %r
  %t = fadd double %q, %y
  %k = insertelement <2 x double> %d, double %t, i64 0
  %z = extractelement <2 x double> %k, i64 0
  ret double %z
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
    /// Every combination of one value from each list, in nested-loop order.
    fn grid(columns: &[&[u64]]) -> Vec<Vec<u64>> {
        columns.iter().fold(vec![vec![]], |rows, column| {
            rows.iter()
                .flat_map(|row| {
                    column.iter().map(move |&v| {
                        let mut r = row.clone();
                        r.push(v);
                        r
                    })
                })
                .collect()
        })
    }

    /// Walk configurations ending at each of these step budgets.
    fn budgets(steps: impl IntoIterator<Item = u64>) -> impl Iterator<Item = WalkConfig> {
        steps.into_iter().map(|step_budget| WalkConfig {
            step_budget,
            ..WalkConfig::default()
        })
    }

    fn agree(name: &str, inputs: &[Vec<u64>], config: WalkConfig) {
        let args: Vec<Vec<ArgBits>> = inputs
            .iter()
            .map(|v| v.iter().map(|&b| ArgBits::Scalar(b)).collect())
            .collect();
        agree_on(name, &args, config);
    }

    fn agree_on(name: &str, args: &[Vec<ArgBits>], config: WalkConfig) {
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
            let settings = [
                (true, true, vec![]),
                (false, true, vec![true, true, false, true]),
                (false, false, vec![]),
                (true, false, vec![true]),
            ];
            for (record, track, choices) in settings {
                for r in [&mut fast, &mut slow] {
                    r.record_inexact(record);
                    r.track_inexact(track);
                    r.set_choices(choices.clone());
                }
                let (a, b) = (fast.eval_batch(args), slow.eval_batch(args));
                for ((x, y), input) in a.iter().zip(&b).zip(args) {
                    assert_eq!(x, y, "{name}{input:x?} in {mode:?}");
                }
                for input in args {
                    assert_eq!(fast.eval(input), slow.eval(input), "{name}{input:x?}");
                }
            }
        }
    }

    #[test]
    fn straight_line_code_agrees_with_the_walker() {
        let inputs = grid(&[F64S, F64S, &F64S[..6]]);
        agree("straight", &inputs, WalkConfig::default());
    }

    #[test]
    fn loops_traps_and_budgets_agree_with_the_walker() {
        let inputs = grid(&[F64S, INTS, &INTS[..4]]);
        agree("loop", &inputs, WalkConfig::default());
        // Budgets that end the walk at each instruction of the first iterations.
        for tight in budgets(0..26) {
            agree("loop", &inputs, tight);
        }
    }

    #[test]
    fn forwarded_lane_copies_agree_with_the_walker() {
        let m = module();
        let fid = m.find_function("lanes").expect("lanes");
        let domain = super::Concrete::new(FpMode::IEEE);
        let walker = crate::Walker::new(&m, domain, WalkConfig::default()).expect("walker");
        let c =
            super::Compiled::new(&m, fid, &walker.domain, walker.global_ptrs()).expect("compiled");
        let steps = &c.blocks[0].steps;
        assert!(!steps.iter().any(|s| matches!(s, super::Step::Copy { .. })));
        let inputs = grid(&[F64S, F64S]);
        agree("lanes", &inputs, WalkConfig::default());
        for tight in budgets(0..15) {
            agree("lanes", &inputs, tight);
        }
    }

    #[test]
    fn vector_code_agrees_with_the_walker() {
        let inputs = grid(&[F32S, F32S, &[0, 1, 2, 3, 4, 0xffff_ffff]]);
        agree("vectors", &inputs, WalkConfig::default());
    }

    #[test]
    fn memory_code_agrees_with_the_walker() {
        let mut inputs = Vec::new();
        for (k, &y) in F64S.iter().enumerate() {
            for len in [0usize, 1, 2, 3, 5] {
                for n in [0u64, 1, 2, 3, 5, 6] {
                    let x: Vec<u64> = (0..len).map(|i| F64S[(k + 3 * i) % F64S.len()]).collect();
                    inputs.push(vec![
                        ArgBits::Array(x),
                        ArgBits::Scalar(n),
                        ArgBits::Scalar(y),
                    ]);
                }
            }
        }
        agree_on("memory", &inputs, WalkConfig::default());
        for tight in budgets([3, 9, 17, 30]) {
            agree_on("memory", &inputs, tight);
        }
    }
}
