//! The interpreter over fpscout-ir: one walker for every value domain.
//!
//! Frames live on an explicit stack (no Rust recursion), so a walk state can later be
//! cloned to fork paths. Vector instructions are walked lane by lane through the domain's
//! scalar operations, each lane with its own [`OpSite`].

use crate::domain::{Decision, Domain, OpSite};
use crate::memory::{Cell, Memory, ObjectId, Ptr};
use crate::{DResult, WalkError};
use fpscout_ir::*;

/// A first-class value in a frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Val<S> {
    Scalar(S),
    Ptr(Ptr),
    Vector(Vec<S>),
}

impl<S> Val<S> {
    pub fn scalar(&self) -> Option<&S> {
        match self {
            Val::Scalar(s) => Some(s),
            _ => None,
        }
    }
}

/// Limits of one walk.
#[derive(Clone, Copy, Debug)]
pub struct WalkConfig {
    /// Instructions executed before the walk stops with [`StopReason::StepBudget`].
    pub step_budget: u64,
    pub max_call_depth: usize,
}

impl Default for WalkConfig {
    fn default() -> Self {
        WalkConfig {
            step_budget: 10_000_000,
            max_call_depth: 256,
        }
    }
}

/// Why a walk ended without returning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    StepBudget { steps: u64 },
    CallDepth { depth: usize },
    /// A symbolic branch was forked more than the loop bound on one path.
    LoopBound { bound: u32 },
    /// Exploration stopped after this many paths.
    PathBudget { paths: usize },
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::StepBudget { steps } => {
                write!(f, "step budget of {steps} instructions exhausted")
            }
            StopReason::CallDepth { depth } => write!(f, "call depth limit {depth} reached"),
            StopReason::LoopBound { bound } => {
                write!(f, "loop bound {bound} reached (a symbolic branch forked {bound} times on one path)")
            }
            StopReason::PathBudget { paths } => write!(f, "path budget of {paths} paths exhausted"),
        }
    }
}

/// How a walk ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome<S> {
    Returned(Option<Val<S>>),
    Stopped(StopReason),
}

/// Limits of a path exploration.
#[derive(Clone, Copy, Debug)]
pub struct ExploreLimits {
    pub max_paths: usize,
    /// How often one conditional branch may fork on one path (loop unrolling bound).
    pub loop_bound: u32,
}

/// How one explored path ended.
#[derive(Clone, Debug)]
pub enum PathEnd<S> {
    Returned(Option<Val<S>>),
    Stopped(StopReason),
    Failed(WalkError),
}

/// Totals of an exploration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExploreSummary {
    pub paths: usize,
    /// Set when paths were left unexplored.
    pub stopped: Option<StopReason>,
}

/// A branch direction parked for later: the whole walk state at the fork.
struct Pending<D: Domain> {
    frames: Vec<Frame<D::Scalar>>,
    memory: Memory<D::Scalar>,
    steps: u64,
    forks: std::collections::HashMap<(FuncId, u32), u32>,
    snapshot: D::Snapshot,
    to: u32,
    from: u32,
}

struct Exploration<D: Domain> {
    limits: ExploreLimits,
    pending: Vec<Pending<D>>,
    /// Forks per (function, block) on the current path.
    forks: std::collections::HashMap<(FuncId, u32), u32>,
}

#[derive(Clone, Debug)]
struct Frame<S> {
    func: FuncId,
    block: u32,
    pc: usize,
    values: Vec<Option<Val<S>>>,
    allocas: Vec<ObjectId>,
    ret_to: Option<ValueId>,
}

/// The walker: a module, a domain and the memory of the current walk.
pub struct Walker<'m, D: Domain> {
    pub module: &'m Module,
    pub domain: D,
    pub config: WalkConfig,
    pub memory: Memory<D::Scalar>,
    pristine: Memory<D::Scalar>,
    globals: Vec<Ptr>,
    pub steps: u64,
    /// Value vectors of finished frames, reused to keep allocation out of the hot loop.
    spare_values: Vec<Vec<Option<Val<D::Scalar>>>>,
    /// The frame stack's allocation, reused across runs.
    frame_stack: Vec<Frame<D::Scalar>>,
    /// Set while exploring paths: where forks park the branch not taken.
    exploration: Option<Exploration<D>>,
}

fn loc_of<'a>(module: &'a Module, kind: &InstKind) -> Option<&'a SourceLoc> {
    let site = match kind {
        InstKind::FBin { site, .. }
        | InstKind::FCmp { site, .. }
        | InstKind::FUnary { site, .. }
        | InstKind::FBinary { site, .. }
        | InstKind::Fma { site, .. }
        | InstKind::Math { site, .. }
        | InstKind::Reduce { site, .. } => Some(*site),
        InstKind::Cast { site, .. } => *site,
        _ => None,
    }?;
    module.op(site).loc.as_ref()
}

impl<'m, D: Domain> Walker<'m, D> {
    /// Creates a walker with the module's globals laid out in memory.
    pub fn new(module: &'m Module, mut domain: D, config: WalkConfig) -> DResult<Self> {
        let mut memory = Memory::new();
        let mut globals = Vec::with_capacity(module.globals.len());
        for g in &module.globals {
            globals.push(memory.alloc(g.name.clone(), g.size.max(1), !g.constant));
        }
        for (g, &base) in module.globals.iter().zip(&globals) {
            for (off, ty, c) in &g.cells {
                let cell = match const_to_val(&domain, &globals, c)? {
                    Val::Scalar(s) => Cell::Scalar(*ty, s),
                    Val::Ptr(p) => Cell::Ptr(p),
                    Val::Vector(_) => return Err(WalkError::unsupported("vector in global cell")),
                };
                // Read-only globals are initialised before write protection matters.
                memory.store_init(&mut domain, base.add(*off as i64), cell)?;
            }
        }
        Ok(Walker {
            module,
            domain,
            config,
            pristine: memory.clone(),
            memory,
            globals,
            steps: 0,
            spare_values: Vec::new(),
            frame_stack: Vec::new(),
            exploration: None,
        })
    }

    /// Restores memory to the state right after construction (globals initialised).
    pub fn reset(&mut self) {
        self.memory.reset_to(&self.pristine);
        self.steps = 0;
    }

    /// Places an array argument in memory and returns a pointer to it.
    pub fn alloc_array(
        &mut self,
        name: &str,
        ty: ScalarTy,
        values: Vec<D::Scalar>,
    ) -> DResult<Ptr> {
        let size = ty.store_size() * values.len() as u64;
        let p = self.memory.alloc(name, size, true);
        for (i, v) in values.into_iter().enumerate() {
            let at = p.add(i as i64 * ty.store_size() as i64);
            self.memory.store(&self.domain, at, Cell::Scalar(ty, v))?;
        }
        Ok(p)
    }

    /// Runs `func` on `args` until it returns, traps or exhausts its budget.
    pub fn run(&mut self, func: FuncId, args: Vec<Val<D::Scalar>>) -> DResult<Outcome<D::Scalar>> {
        self.domain.begin_walk();
        let mut frames = std::mem::take(&mut self.frame_stack);
        let out = self.run_frames(func, args, &mut frames);
        // Frames left by traps or budgets still hold reusable value vectors.
        self.spare_values.extend(frames.drain(..).map(|f| f.values));
        self.frame_stack = frames;
        self.domain.end_walk();
        out
    }

    fn run_frames(
        &mut self,
        func: FuncId,
        args: Vec<Val<D::Scalar>>,
        frames: &mut Vec<Frame<D::Scalar>>,
    ) -> DResult<Outcome<D::Scalar>> {
        let f = self.module.function(func);
        if let Some(why) = &f.unsupported {
            return Err(WalkError::unsupported(why.clone()));
        }
        if args.len() != f.params.len() {
            return Err(WalkError::BadArguments(format!(
                "{} expects {} arguments, got {}",
                f.display_name,
                f.params.len(),
                args.len()
            )));
        }
        let first = self.new_frame(func, args, None);
        frames.push(first);
        self.enter_block(frames, 0, None)?;
        self.step_loop(frames)
    }

    /// Executes until the bottom frame returns, a budget ends the walk, or an error.
    fn step_loop(&mut self, frames: &mut Vec<Frame<D::Scalar>>) -> DResult<Outcome<D::Scalar>> {
        let module = self.module;
        loop {
            let depth = frames.len();
            let frame = frames.last_mut().expect("walk has a frame");
            let function = module.function(frame.func);
            let block = &function.blocks[frame.block as usize];
            if frame.pc < block.insts.len() {
                let inst = &block.insts[frame.pc];
                frame.pc += 1;
                self.steps += 1;
                if self.steps > self.config.step_budget {
                    return Ok(Outcome::Stopped(StopReason::StepBudget {
                        steps: self.config.step_budget,
                    }));
                }
                if let InstKind::Call { callee, args, .. } = &inst.kind {
                    if depth >= self.config.max_call_depth {
                        return Ok(Outcome::Stopped(StopReason::CallDepth { depth }));
                    }
                    let argv = args
                        .iter()
                        .map(|a| self.eval(frame, a))
                        .collect::<DResult<Vec<_>>>()?;
                    let callee_frame = self.new_frame(*callee, argv, inst.dest);
                    frames.push(callee_frame);
                    self.enter_block(frames, 0, None)?;
                    continue;
                }
                self.exec(frame, inst)
                    .map_err(|e| e.at(loc_of(module, &inst.kind)))?;
                continue;
            }
            let term_loc = block.term_loc.as_ref();
            match &block.term {
                Terminator::Br(b) => {
                    let from = frame.block;
                    self.enter_block(frames, b.0, Some(from))?;
                }
                Terminator::CondBr { cond, then_, else_ } => {
                    let c = self.eval(frame, cond)?;
                    let c = c
                        .scalar()
                        .ok_or_else(|| WalkError::unsupported("vector branch condition"))?;
                    let taken =
                        match self.domain.decide(c).map_err(|e| e.at(term_loc))? {
                            Decision::Known(t) => t,
                            Decision::Both => {
                                let (then_b, else_b, at) = (then_.0, else_.0, frame.block);
                                let func = frame.func;
                                match self.fork(frames, c, func, at, then_b, else_b) {
                                    Ok(Some(stop)) => return Ok(Outcome::Stopped(stop)),
                                    Ok(None) => continue,
                                    Err(e) => return Err(e.at(term_loc)),
                                }
                            }
                        };
                    let from = frame.block;
                    let to = if taken { then_.0 } else { else_.0 };
                    self.enter_block(frames, to, Some(from))?;
                }
                Terminator::Switch {
                    ty,
                    value,
                    default,
                    cases,
                } => {
                    let v = self.eval(frame, value)?;
                    let st = ty.lanes().map(|l| l.0).unwrap_or(ScalarTy::Int(64));
                    let bits = match v {
                        Val::Scalar(s) => self.domain.concretize(&s, st)?,
                        _ => return Err(WalkError::unsupported("switch on non-scalar")),
                    };
                    let to = cases
                        .iter()
                        .find(|(c, _)| *c == bits)
                        .map(|(_, b)| *b)
                        .unwrap_or(*default);
                    let from = frame.block;
                    self.enter_block(frames, to.0, Some(from))?;
                }
                Terminator::Ret(v) => {
                    let ret = match v {
                        Some(op) => Some(self.eval(frame, op)?),
                        None => None,
                    };
                    let done = frames.pop().expect("frame to return from");
                    for &obj in &done.allocas {
                        self.memory.kill(obj);
                    }
                    self.spare_values.push(done.values);
                    match frames.last_mut() {
                        None => return Ok(Outcome::Returned(ret)),
                        Some(caller) => {
                            if let (Some(dest), Some(r)) = (done.ret_to, ret) {
                                caller.values[dest.0 as usize] = Some(r);
                            }
                        }
                    }
                }
                Terminator::Unreachable => {
                    return Err(WalkError::Trap {
                        what: "reached unreachable code".into(),
                        loc: term_loc.cloned(),
                    })
                }
            }
        }
    }

    /// Both directions of a branch are feasible: park the else-direction (when exploring)
    /// and continue into the then-direction. Returns a stop reason when the branch has
    /// forked more than the loop bound on this path.
    fn fork(
        &mut self,
        frames: &mut Vec<Frame<D::Scalar>>,
        cond: &D::Scalar,
        func: FuncId,
        at: u32,
        then_b: u32,
        else_b: u32,
    ) -> DResult<Option<StopReason>> {
        let Some(exp) = self.exploration.as_mut() else {
            return Err(WalkError::unsupported(
                "branch depends on symbolic input: a single-path walk cannot fork",
            ));
        };
        let count = exp.forks.entry((func, at)).or_insert(0);
        *count += 1;
        if *count > exp.limits.loop_bound {
            return Ok(Some(StopReason::LoopBound { bound: exp.limits.loop_bound }));
        }
        let forks = exp.forks.clone();
        let before = self.domain.snapshot();
        if self.domain.assume(cond, false)? {
            let parked = Pending {
                frames: frames.clone(),
                memory: self.memory.clone(),
                steps: self.steps,
                forks,
                snapshot: self.domain.snapshot(),
                to: else_b,
                from: at,
            };
            if let Some(exp) = self.exploration.as_mut() {
                exp.pending.push(parked);
            }
        }
        self.domain.restore(before);
        if !self.domain.assume(cond, true)? {
            return Err(WalkError::unsupported("a branch direction the domain called feasible is not"));
        }
        self.enter_block(frames, then_b, Some(at))?;
        Ok(None)
    }

    /// Walks every feasible path of `func` (depth first), reporting each path's end to
    /// `on_path` with the domain in that path's state.
    pub fn explore(
        &mut self,
        func: FuncId,
        args: Vec<Val<D::Scalar>>,
        limits: ExploreLimits,
        mut on_path: impl FnMut(&mut D, PathEnd<D::Scalar>),
    ) -> ExploreSummary {
        self.exploration = Some(Exploration {
            limits,
            pending: Vec::new(),
            forks: std::collections::HashMap::new(),
        });
        let mut summary = ExploreSummary::default();
        self.domain.begin_walk();
        let mut frames = Vec::new();
        let mut result = self.run_frames(func, args, &mut frames);
        loop {
            summary.paths += 1;
            let end = match result {
                Ok(Outcome::Returned(v)) => PathEnd::Returned(v),
                Ok(Outcome::Stopped(r)) => PathEnd::Stopped(r),
                Err(e) => PathEnd::Failed(e),
            };
            on_path(&mut self.domain, end);
            let next = self.exploration.as_mut().and_then(|e| e.pending.pop());
            let Some(p) = next else { break };
            if summary.paths >= limits.max_paths {
                summary.stopped = Some(StopReason::PathBudget { paths: summary.paths });
                break;
            }
            frames = p.frames;
            self.memory = p.memory;
            self.steps = p.steps;
            if let Some(exp) = self.exploration.as_mut() {
                exp.forks = p.forks;
            }
            self.domain.restore(p.snapshot);
            result = self
                .enter_block(&mut frames, p.to, Some(p.from))
                .and_then(|()| self.step_loop(&mut frames));
        }
        self.domain.end_walk();
        self.exploration = None;
        summary
    }

    fn new_frame(
        &mut self,
        func: FuncId,
        args: Vec<Val<D::Scalar>>,
        ret_to: Option<ValueId>,
    ) -> Frame<D::Scalar> {
        let f = self.module.function(func);
        let mut values = self.spare_values.pop().unwrap_or_default();
        values.clear();
        values.resize(f.num_values as usize, None);
        for (i, a) in args.into_iter().enumerate() {
            values[i] = Some(a);
        }
        Frame {
            func,
            block: 0,
            pc: 0,
            values,
            allocas: Vec::new(),
            ret_to,
        }
    }

    /// Moves the top frame into block `to`, assigning its phis for the edge from `from`.
    fn enter_block(
        &mut self,
        frames: &mut [Frame<D::Scalar>],
        to: u32,
        from: Option<u32>,
    ) -> DResult<()> {
        let frame = frames.last_mut().expect("frame");
        let block = &self.module.function(frame.func).blocks[to as usize];
        if let Some(from) = from {
            if !block.phis.is_empty() {
                let mut incoming = Vec::with_capacity(block.phis.len());
                for phi in &block.phis {
                    let op = phi
                        .incoming
                        .iter()
                        .find(|(b, _)| b.0 == from)
                        .map(|(_, op)| op)
                        .ok_or_else(|| {
                            WalkError::unsupported("phi without an edge from the previous block")
                        })?;
                    incoming.push(self.eval(frame, op)?);
                }
                for (phi, v) in block.phis.iter().zip(incoming) {
                    frame.values[phi.dest.0 as usize] = Some(v);
                }
            }
        }
        frame.block = to;
        frame.pc = 0;
        Ok(())
    }

    fn eval(&self, frame: &Frame<D::Scalar>, op: &Operand) -> DResult<Val<D::Scalar>> {
        match op {
            Operand::Value(v) => frame.values[v.0 as usize].clone().ok_or_else(|| {
                WalkError::unsupported(format!("use of value %{} before definition", v.0))
            }),
            Operand::Const(c) => const_to_val(&self.domain, &self.globals, c),
        }
    }

    fn eval_ptr(&mut self, frame: &Frame<D::Scalar>, op: &Operand) -> DResult<Ptr> {
        match self.eval(frame, op)? {
            Val::Ptr(p) => Ok(p),
            Val::Scalar(s) => Ok(Ptr::from_int(
                self.domain.concretize(&s, ScalarTy::Int(64))?,
            )),
            Val::Vector(_) => Err(WalkError::unsupported("vector used as a pointer")),
        }
    }

    fn eval_uint(&mut self, frame: &Frame<D::Scalar>, op: &Operand, width: u32) -> DResult<u64> {
        match self.eval(frame, op)? {
            Val::Scalar(s) => self.domain.concretize(&s, ScalarTy::Int(width)),
            _ => Err(WalkError::unsupported("expected an integer")),
        }
    }

    fn lanes(&self, frame: &Frame<D::Scalar>, op: &Operand) -> DResult<Vec<D::Scalar>> {
        match self.eval(frame, op)? {
            Val::Scalar(s) => Ok(vec![s]),
            Val::Vector(v) => Ok(v),
            Val::Ptr(_) => Err(WalkError::unsupported(
                "pointer where a number was expected",
            )),
        }
    }

    fn exec(&mut self, frame: &mut Frame<D::Scalar>, inst: &Inst) -> DResult<()> {
        let result: Option<Val<D::Scalar>> = match &inst.kind {
            InstKind::FBin { op, ty, a, b, site } => {
                let fty = float_of(*ty)?;
                Some(self.map2(frame, *ty, a, b, |d, x, y, lane| {
                    d.fbin(*op, fty, x, y, OpSite { op: *site, lane })
                })?)
            }
            InstKind::FNeg { ty, a } => {
                let fty = float_of(*ty)?;
                Some(self.map1(frame, *ty, a, |d, x, _| d.fneg(fty, x))?)
            }
            InstKind::FCmp {
                pred,
                ty,
                a,
                b,
                lowering,
                site,
            } => {
                let fty = float_of(*ty)?;
                Some(self.map2(frame, *ty, a, b, |d, x, y, lane| {
                    d.fcmp(*pred, *lowering, fty, x, y, OpSite { op: *site, lane })
                })?)
            }
            InstKind::FUnary { op, ty, a, site } => {
                let fty = float_of(*ty)?;
                Some(self.map1(frame, *ty, a, |d, x, lane| {
                    d.funary(*op, fty, x, OpSite { op: *site, lane })
                })?)
            }
            InstKind::FBinary { op, ty, a, b, site } => {
                let fty = float_of(*ty)?;
                Some(self.map2(frame, *ty, a, b, |d, x, y, lane| {
                    d.fbinary(*op, fty, x, y, OpSite { op: *site, lane })
                })?)
            }
            InstKind::Fma {
                ty,
                a,
                b,
                c,
                fused,
                site,
            } => {
                let fty = float_of(*ty)?;
                let (xa, xb, xc) = (
                    self.lanes(frame, a)?,
                    self.lanes(frame, b)?,
                    self.lanes(frame, c)?,
                );
                let mut out = Vec::with_capacity(xa.len());
                for lane in 0..xa.len() {
                    let s = OpSite {
                        op: *site,
                        lane: lane as u32,
                    };
                    let r = if *fused {
                        self.domain.fma(fty, &xa[lane], &xb[lane], &xc[lane], s)?
                    } else {
                        let m = self
                            .domain
                            .fbin(FBinOp::FMul, fty, &xa[lane], &xb[lane], s)?;
                        self.domain.fbin(FBinOp::FAdd, fty, &m, &xc[lane], s)?
                    };
                    out.push(r);
                }
                Some(pack(*ty, out))
            }
            InstKind::Math {
                func,
                ty,
                args,
                site,
            } => {
                let fty = float_of(*ty)?;
                let argv = args
                    .iter()
                    .map(|a| match self.eval(frame, a)? {
                        Val::Scalar(s) => Ok(s),
                        _ => Err(WalkError::unsupported("vector argument to a libm function")),
                    })
                    .collect::<DResult<Vec<_>>>()?;
                Some(Val::Scalar(self.domain.math(
                    *func,
                    fty,
                    &argv,
                    OpSite { op: *site, lane: 0 },
                )?))
            }
            InstKind::Reduce {
                op,
                ty,
                start,
                v,
                ordered,
                site,
            } => {
                let fty = float_of(*ty)?;
                let lanes = self.lanes(frame, v)?;
                let start = match start {
                    Some(s) => Some(match self.eval(frame, s)? {
                        Val::Scalar(x) => x,
                        _ => return Err(WalkError::unsupported("vector reduction start value")),
                    }),
                    None => None,
                };
                let fmf = self.module.op(*site).fmf;
                Some(Val::Scalar(
                    self.reduce(*op, fty, start, lanes, *ordered, fmf, *site)?,
                ))
            }
            InstKind::IBin { op, ty, a, b } => {
                let w = int_width(*ty)?;
                Some(self.map2(frame, *ty, a, b, |d, x, y, _| d.ibin(*op, w, x, y))?)
            }
            InstKind::IAbs { ty, a } => {
                let w = int_width(*ty)?;
                Some(self.map1(frame, *ty, a, |d, x, _| d.iabs(w, x))?)
            }
            InstKind::ICmp { pred, ty, a, b } => {
                if *ty == Type::PTR {
                    let (pa, pb) = (self.eval_ptr(frame, a)?, self.eval_ptr(frame, b)?);
                    Some(Val::Scalar(self.domain.constant(
                        ScalarTy::Int(1),
                        u64::from(ptr_cmp(*pred, pa, pb)),
                    )))
                } else {
                    let w = int_width(*ty)?;
                    Some(self.map2(frame, *ty, a, b, |d, x, y, _| d.icmp(*pred, w, x, y))?)
                }
            }
            InstKind::Cast {
                op,
                from,
                to,
                a,
                site,
            } => Some(self.cast(frame, *op, *from, *to, a, *site)?),
            InstKind::Select { ty, cond, a, b } => {
                let c = self.eval(frame, cond)?;
                let (va, vb) = (self.eval(frame, a)?, self.eval(frame, b)?);
                Some(match (c, va, vb) {
                    (Val::Scalar(c), Val::Ptr(pa), Val::Ptr(pb)) => match self.domain.decide(&c)? {
                        Decision::Known(t) => Val::Ptr(if t { pa } else { pb }),
                        Decision::Both => {
                            return Err(WalkError::unsupported(
                                "select between pointers on a symbolic condition",
                            ))
                        }
                    },
                    (Val::Scalar(c), Val::Scalar(x), Val::Scalar(y)) => {
                        Val::Scalar(self.domain.select(&c, &x, &y)?)
                    }
                    (Val::Scalar(c), Val::Vector(x), Val::Vector(y)) => {
                        let out = x
                            .iter()
                            .zip(&y)
                            .map(|(x, y)| self.domain.select(&c, x, y))
                            .collect::<DResult<Vec<_>>>()?;
                        pack(*ty, out)
                    }
                    (Val::Vector(c), Val::Vector(x), Val::Vector(y)) => {
                        let out = c
                            .iter()
                            .zip(x.iter().zip(&y))
                            .map(|(c, (x, y))| self.domain.select(c, x, y))
                            .collect::<DResult<Vec<_>>>()?;
                        pack(*ty, out)
                    }
                    _ => return Err(WalkError::unsupported("select with mismatched operands")),
                })
            }
            InstKind::Alloca { size } => {
                let p = self.memory.alloc("alloca", (*size).max(1), true);
                frame.allocas.push(p.obj);
                Some(Val::Ptr(p))
            }
            InstKind::Load { ty, ptr } => {
                let p = self.eval_ptr(frame, ptr)?;
                Some(self.load(p, *ty)?)
            }
            InstKind::Store { ty, value, ptr } => {
                let p = self.eval_ptr(frame, ptr)?;
                let v = self.eval(frame, value)?;
                self.store(p, *ty, v)?;
                None
            }
            InstKind::Gep {
                base,
                const_offset,
                indices,
            } => {
                let mut p = self.eval_ptr(frame, base)?.add(*const_offset);
                for GepIndex {
                    index,
                    width,
                    scale,
                } in indices
                {
                    let raw = self.eval_uint(frame, index, *width)?;
                    p = p.add(sign_extend(raw, *width).wrapping_mul(*scale));
                }
                Some(Val::Ptr(p))
            }
            InstKind::Memcpy { dst, src, len } => {
                let (d, s) = (self.eval_ptr(frame, dst)?, self.eval_ptr(frame, src)?);
                let n = self.eval_uint(frame, len, 64)?;
                self.memory.copy(&self.domain, d, s, n)?;
                None
            }
            InstKind::Memset { dst, byte, len } => {
                let d = self.eval_ptr(frame, dst)?;
                let b = self.eval_uint(frame, byte, 8)? as u8;
                let n = self.eval_uint(frame, len, 64)?;
                self.memory.fill(&self.domain, d, b, n)?;
                None
            }
            InstKind::ExtractElement { v, index, .. } => {
                let lanes = self.lanes(frame, v)?;
                let i = self.eval_uint(frame, index, 64)? as usize;
                let lane = lanes
                    .get(i)
                    .cloned()
                    .ok_or_else(|| WalkError::trap("extractelement index out of range"))?;
                Some(Val::Scalar(lane))
            }
            InstKind::InsertElement { ty, v, elt, index } => {
                let mut lanes = self.lanes(frame, v)?;
                let i = self.eval_uint(frame, index, 64)? as usize;
                let e = match self.eval(frame, elt)? {
                    Val::Scalar(s) => s,
                    _ => return Err(WalkError::unsupported("insertelement of a non-scalar")),
                };
                if i >= lanes.len() {
                    return Err(WalkError::trap("insertelement index out of range"));
                }
                lanes[i] = e;
                Some(pack(*ty, lanes))
            }
            InstKind::Shuffle { ty, a, b, mask } => {
                let mut both = self.lanes(frame, a)?;
                both.extend(self.lanes(frame, b)?);
                let (lane_ty, _) = ty
                    .lanes()
                    .ok_or_else(|| WalkError::unsupported("shuffle type"))?;
                let out = mask
                    .iter()
                    .map(|m| match m {
                        Some(i) => both
                            .get(*i as usize)
                            .cloned()
                            .ok_or_else(|| WalkError::trap("shuffle index out of range")),
                        None => Ok(self.domain.constant(lane_ty, 0)),
                    })
                    .collect::<DResult<Vec<_>>>()?;
                Some(pack(*ty, out))
            }
            InstKind::Call { .. } => unreachable!("calls are handled by the run loop"),
            InstKind::Phi { .. } | InstKind::Nop => None,
        };
        if let (Some(dest), Some(v)) = (inst.dest, result) {
            frame.values[dest.0 as usize] = Some(v);
        }
        Ok(())
    }

    fn map1(
        &mut self,
        frame: &Frame<D::Scalar>,
        ty: Type,
        a: &Operand,
        mut f: impl FnMut(&mut D, &D::Scalar, u32) -> DResult<D::Scalar>,
    ) -> DResult<Val<D::Scalar>> {
        match self.eval(frame, a)? {
            Val::Scalar(x) => Ok(Val::Scalar(f(&mut self.domain, &x, 0)?)),
            Val::Vector(xs) => {
                let out = xs
                    .iter()
                    .enumerate()
                    .map(|(i, x)| f(&mut self.domain, x, i as u32))
                    .collect::<DResult<Vec<_>>>()?;
                Ok(pack(ty, out))
            }
            Val::Ptr(_) => Err(WalkError::unsupported("arithmetic on a pointer")),
        }
    }

    fn map2(
        &mut self,
        frame: &Frame<D::Scalar>,
        ty: Type,
        a: &Operand,
        b: &Operand,
        mut f: impl FnMut(&mut D, &D::Scalar, &D::Scalar, u32) -> DResult<D::Scalar>,
    ) -> DResult<Val<D::Scalar>> {
        match (self.eval(frame, a)?, self.eval(frame, b)?) {
            (Val::Scalar(x), Val::Scalar(y)) => Ok(Val::Scalar(f(&mut self.domain, &x, &y, 0)?)),
            (Val::Vector(xs), Val::Vector(ys)) if xs.len() == ys.len() => {
                let out = xs
                    .iter()
                    .zip(&ys)
                    .enumerate()
                    .map(|(i, (x, y))| f(&mut self.domain, x, y, i as u32))
                    .collect::<DResult<Vec<_>>>()?;
                let _ = ty;
                Ok(Val::Vector(out))
            }
            _ => Err(WalkError::unsupported(
                "operands of mismatched shapes (or pointers) in arithmetic",
            )),
        }
    }

    /// `llvm.vector.reduce.*`: ordered reductions go lane by lane; reassociable ones follow
    /// the x86 backend, which halves the vector (upper half onto lower half) until one lane
    /// is left, then combines with a non-identity start value.
    #[allow(clippy::too_many_arguments)]
    fn reduce(
        &mut self,
        op: ReduceOp,
        fty: FloatTy,
        start: Option<D::Scalar>,
        mut lanes: Vec<D::Scalar>,
        ordered: bool,
        fmf: FastMath,
        site: FpOpId,
    ) -> DResult<D::Scalar> {
        let combine = |d: &mut D, x: &D::Scalar, y: &D::Scalar, lane: u32| -> DResult<D::Scalar> {
            let s = OpSite { op: site, lane };
            match op {
                ReduceOp::FAdd => d.fbin(FBinOp::FAdd, fty, x, y, s),
                ReduceOp::FMul => d.fbin(FBinOp::FMul, fty, x, y, s),
                ReduceOp::FMin => d.fbinary(FBinaryOp::MinNum, fty, x, y, s),
                ReduceOp::FMax => d.fbinary(FBinaryOp::MaxNum, fty, x, y, s),
            }
        };
        if lanes.is_empty() {
            return start.ok_or_else(|| WalkError::unsupported("reduction of an empty vector"));
        }
        if ordered {
            let mut acc = match start {
                Some(s) => s,
                None => lanes.remove(0),
            };
            for (i, x) in lanes.iter().enumerate() {
                acc = combine(&mut self.domain, &acc, x, i as u32)?;
            }
            return Ok(acc);
        }
        if !lanes.len().is_power_of_two() {
            return Err(WalkError::unsupported(
                "reassociating reduction of a non-power-of-two vector",
            ));
        }
        while lanes.len() > 1 {
            let half = lanes.len() / 2;
            let mut next = Vec::with_capacity(half);
            for i in 0..half {
                next.push(combine(
                    &mut self.domain,
                    &lanes[i],
                    &lanes[i + half],
                    i as u32,
                )?);
            }
            // Going from 4 to 2 lanes of f32 the backend works on the whole 128-bit
            // register: `movaps %xmm1, %xmm2; unpckhpd %xmm1, %xmm2; addps %xmm1, %xmm2`
            // makes xmm2 = [v2, v3, v2, v3] and adds all four lanes, so the unused lanes
            // compute v2 ⊕ v2 and v3 ⊕ v3 and their flags (overflow, invalid) are raised
            // too. (2 → 1 lanes is a scalar `addss`/`addsd`; wider vectors are split into
            // full registers first, whose lanes are all used.)
            if fty == FloatTy::F32 && half == 2 {
                for i in 0..half {
                    let upper = &lanes[i + half];
                    combine(&mut self.domain, upper, upper, (i + half) as u32)?;
                }
            }
            lanes = next;
        }
        let tree = lanes.pop().expect("one lane left");
        let Some(start) = start else { return Ok(tree) };
        let bits = self.domain.concrete_bits(&start);
        let identity = match (op, bits) {
            (ReduceOp::FAdd, Some(b)) => is_neg_zero(fty, b) || (fmf.nsz && is_pos_zero(b)),
            (ReduceOp::FMul, Some(b)) => is_one(fty, b),
            _ => false,
        };
        if identity {
            Ok(tree)
        } else {
            combine(&mut self.domain, &start, &tree, 0)
        }
    }

    fn cast(
        &mut self,
        frame: &Frame<D::Scalar>,
        op: CastOp,
        from: Type,
        to: Type,
        a: &Operand,
        site: Option<FpOpId>,
    ) -> DResult<Val<D::Scalar>> {
        let v = self.eval(frame, a)?;
        match op {
            CastOp::PtrToInt => {
                let p = match v {
                    Val::Ptr(p) => p,
                    _ => return Err(WalkError::unsupported("ptrtoint of a non-pointer")),
                };
                let w = int_width(to)?;
                return Ok(Val::Scalar(
                    self.domain
                        .constant(ScalarTy::Int(w), truncate_bits(p.to_int(), w)),
                ));
            }
            CastOp::IntToPtr => return Ok(Val::Ptr(self.eval_ptr(frame, a)?)),
            CastOp::BitCast if from == Type::PTR || to == Type::PTR => return Ok(v),
            _ => {}
        }
        let (fl, fn_) = from
            .lanes()
            .ok_or_else(|| WalkError::unsupported("cast from void"))?;
        let (tl, tn) = to
            .lanes()
            .ok_or_else(|| WalkError::unsupported("cast to void"))?;
        let xs = match v {
            Val::Scalar(s) => vec![s],
            Val::Vector(xs) => xs,
            Val::Ptr(_) => return Err(WalkError::unsupported("numeric cast of a pointer")),
        };
        if op == CastOp::BitCast && fn_ != tn {
            return self.bitcast_relanes(xs, fl, tl, tn, to);
        }
        let mut out = Vec::with_capacity(xs.len());
        for (i, x) in xs.iter().enumerate() {
            let r = match site {
                Some(site) => self.domain.fcast(
                    op,
                    fl,
                    tl,
                    x,
                    OpSite {
                        op: site,
                        lane: i as u32,
                    },
                )?,
                None => self.domain.icast(op, fl, tl, x)?,
            };
            out.push(r);
        }
        Ok(pack(to, out))
    }

    /// A bitcast that changes the lane count, e.g. `<2 x float>` to `double`: needs
    /// concrete bits.
    fn bitcast_relanes(
        &mut self,
        xs: Vec<D::Scalar>,
        fl: ScalarTy,
        tl: ScalarTy,
        tn: u32,
        to: Type,
    ) -> DResult<Val<D::Scalar>> {
        let fbits = fl.store_size() * 8;
        let tbits = tl.store_size() * 8;
        let mut bytes: Vec<u8> = Vec::with_capacity(xs.len() * fbits as usize / 8);
        for x in &xs {
            let b = self.domain.concrete_bits(x).ok_or_else(|| {
                WalkError::unsupported("bitcast changing lane count on a symbolic value")
            })?;
            bytes.extend_from_slice(&b.to_le_bytes()[..(fbits / 8) as usize]);
        }
        let mut out = Vec::with_capacity(tn as usize);
        for chunk in bytes.chunks((tbits / 8) as usize) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            out.push(self.domain.constant(tl, u64::from_le_bytes(buf)));
        }
        Ok(pack(to, out))
    }

    fn load(&mut self, p: Ptr, ty: Type) -> DResult<Val<D::Scalar>> {
        match ty {
            Type::Scalar(s) => match self.memory.load(&mut self.domain, p, s)? {
                Cell::Scalar(_, v) => Ok(Val::Scalar(v)),
                Cell::Ptr(q) => Ok(Val::Ptr(q)),
            },
            Type::Vector(s, n) => {
                let mut out = Vec::with_capacity(n as usize);
                for i in 0..n {
                    match self.memory.load(
                        &mut self.domain,
                        p.add(i64::from(i) * s.store_size() as i64),
                        s,
                    )? {
                        Cell::Scalar(_, v) => out.push(v),
                        Cell::Ptr(_) => return Err(WalkError::unsupported("vector of pointers")),
                    }
                }
                Ok(Val::Vector(out))
            }
            Type::Void => Err(WalkError::unsupported("load of void")),
        }
    }

    fn store(&mut self, p: Ptr, ty: Type, v: Val<D::Scalar>) -> DResult<()> {
        match (ty, v) {
            (Type::Scalar(s), Val::Scalar(x)) => {
                self.memory.store(&self.domain, p, Cell::Scalar(s, x))
            }
            (Type::Scalar(_), Val::Ptr(q)) => self.memory.store(&self.domain, p, Cell::Ptr(q)),
            (Type::Vector(s, _), Val::Vector(xs)) => {
                for (i, x) in xs.into_iter().enumerate() {
                    self.memory.store(
                        &self.domain,
                        p.add(i as i64 * s.store_size() as i64),
                        Cell::Scalar(s, x),
                    )?;
                }
                Ok(())
            }
            _ => Err(WalkError::unsupported(
                "store of a value that does not match its type",
            )),
        }
    }

    /// Reads back an array argument's final contents.
    pub fn read_array(&mut self, p: Ptr, ty: ScalarTy, count: usize) -> DResult<Vec<D::Scalar>> {
        self.memory
            .read_array(&mut self.domain, p, ty, count)?
            .into_iter()
            .map(|c| match c {
                Cell::Scalar(_, v) => Ok(v),
                Cell::Ptr(_) => Err(WalkError::unsupported("pointer stored in a numeric array")),
            })
            .collect()
    }
}

fn pack<S>(ty: Type, mut lanes: Vec<S>) -> Val<S> {
    if ty.is_vector() {
        Val::Vector(lanes)
    } else {
        Val::Scalar(lanes.pop().expect("scalar result"))
    }
}

fn float_of(ty: Type) -> DResult<FloatTy> {
    ty.float_ty()
        .ok_or_else(|| WalkError::unsupported(format!("floating-point op on {ty}")))
}

fn int_width(ty: Type) -> DResult<u32> {
    match ty.lanes() {
        Some((ScalarTy::Int(w), _)) => Ok(w),
        _ => Err(WalkError::unsupported(format!("integer op on {ty}"))),
    }
}

fn ptr_cmp(pred: ICmpPred, a: Ptr, b: Ptr) -> bool {
    let (x, y) = (a.to_int(), b.to_int());
    match pred {
        ICmpPred::Eq => x == y,
        ICmpPred::Ne => x != y,
        ICmpPred::Ugt | ICmpPred::Sgt => x > y,
        ICmpPred::Uge | ICmpPred::Sge => x >= y,
        ICmpPred::Ult | ICmpPred::Slt => x < y,
        ICmpPred::Ule | ICmpPred::Sle => x <= y,
    }
}

fn is_neg_zero(fty: FloatTy, bits: u64) -> bool {
    match fty {
        FloatTy::F32 => bits == 0x8000_0000,
        FloatTy::F64 => bits == 0x8000_0000_0000_0000,
    }
}

fn is_pos_zero(bits: u64) -> bool {
    bits == 0
}

fn is_one(fty: FloatTy, bits: u64) -> bool {
    match fty {
        FloatTy::F32 => bits == u64::from(1.0f32.to_bits()),
        FloatTy::F64 => bits == 1.0f64.to_bits(),
    }
}

/// Evaluates a constant operand in a domain.
fn const_to_val<D: Domain>(d: &D, globals: &[Ptr], c: &Const) -> DResult<Val<D::Scalar>> {
    Ok(match c {
        Const::Int { width, bits } => Val::Scalar(d.constant(ScalarTy::Int(*width), *bits)),
        Const::Float { ty, bits } => Val::Scalar(d.constant(ScalarTy::Float(*ty), *bits)),
        Const::NullPtr => Val::Ptr(Ptr::NULL),
        Const::GlobalAddr { global, offset } => Val::Ptr(globals[global.0 as usize].add(*offset)),
        Const::FuncAddr(_) => return Err(WalkError::unsupported("function pointers as values")),
        Const::Undef(ScalarTy::Ptr) => Val::Ptr(Ptr::NULL),
        Const::Undef(s) => Val::Scalar(d.constant(*s, 0)),
        Const::Vector(lanes) => {
            let mut out = Vec::with_capacity(lanes.len());
            for l in lanes {
                match const_to_val(d, globals, l)? {
                    Val::Scalar(s) => out.push(s),
                    _ => return Err(WalkError::unsupported("vector of pointers")),
                }
            }
            Val::Vector(out)
        }
    })
}
