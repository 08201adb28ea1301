//! The interpreter over fpscout-ir: one walker for every value domain.
//!
//! Frames live on an explicit stack (no Rust recursion), so a walk state can later be
//! cloned to fork paths. Vector instructions are walked lane by lane through the domain's
//! scalar operations, each lane with its own [`OpSite`].

use crate::code::{
    const_to_val, decode, undefined, Addresses, Code, DBlock, DExternal, DInst, DPhi, Lanes, Op,
    Opd, Reg, Term, NO_DEST,
};
use crate::domain::{Decision, Domain, OpSite};
use crate::memory::{store_size, Cell, Memory, ObjectId, Ptr};
use crate::{DResult, WalkError};
use fpscout_ir::*;
use smallvec::SmallVec;
use std::time::Instant;

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
    /// A walk still running at this instant stops with [`StopReason::Deadline`] (checked
    /// every [`DEADLINE_CHECK_STEPS`] instructions).
    pub deadline: Option<std::time::Instant>,
}

/// How many instructions run between two looks at the clock when a deadline is set.
pub const DEADLINE_CHECK_STEPS: u64 = 1 << 16;
/// Blocks without instructions entered between two looks at the limits.
const EMPTY_BLOCK_CHECK: u64 = 1 << 12;

impl Default for WalkConfig {
    fn default() -> Self {
        WalkConfig {
            step_budget: 10_000_000,
            max_call_depth: 256,
            deadline: None,
        }
    }
}

/// Why a walk ended without returning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    StepBudget {
        steps: u64,
    },
    CallDepth {
        depth: usize,
    },
    /// A symbolic branch was forked more than the loop bound on one path.
    LoopBound {
        bound: u32,
    },
    /// Exploration stopped after this many paths.
    PathBudget {
        paths: usize,
    },
    /// Exploration stopped at its deadline after this many paths.
    TimeBudget {
        paths: usize,
    },
    /// The walk was still running at [`WalkConfig::deadline`].
    Deadline {
        steps: u64,
    },
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
            StopReason::TimeBudget { paths } => {
                write!(f, "exploration time budget exhausted after {paths} paths")
            }
            StopReason::Deadline { steps } => {
                write!(f, "time budget reached after {steps} instructions")
            }
        }
    }
}

/// How a walk ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome<S> {
    Returned(Option<Val<S>>),
    Stopped(StopReason),
    /// The program ended (`exit`, `abort`, a failed `assert`) at `loc`.
    Ended {
        end: ProgramEnd,
        loc: Option<SourceLoc>,
    },
}

/// Limits of a path exploration.
#[derive(Clone, Copy, Debug)]
pub struct ExploreLimits {
    pub max_paths: usize,
    /// How often one conditional branch may fork on one path (loop unrolling bound).
    pub loop_bound: u32,
    /// No path is started after this instant.
    pub deadline: Option<std::time::Instant>,
}

/// How one explored path ended.
#[derive(Clone, Debug)]
pub enum PathEnd<S> {
    Returned(Option<Val<S>>),
    Stopped(StopReason),
    Ended {
        end: ProgramEnd,
        loc: Option<SourceLoc>,
    },
    Failed(WalkError),
    /// The walk could not go on (the error), but nothing it could still execute can fail
    /// an assertion (only when [`Walker::skip_quiet_branches`] is set).
    CannotFail(WalkError),
}

/// Totals of an exploration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExploreSummary {
    pub paths: usize,
    /// Set when paths were left unexplored.
    pub stopped: Option<StopReason>,
}

/// Most values of one symbolic integer an exploring walk forks over, one path each.
pub(crate) const SPLIT_VALUES: u64 = 16;

/// A branch direction parked for later: the whole walk state at the fork.
struct Pending<D: Domain> {
    frames: Vec<Frame<D::Scalar>>,
    memory: Memory<D::Scalar>,
    steps: u64,
    forks: std::collections::HashMap<(FuncId, u32), u32>,
    snapshot: D::Snapshot,
    /// The block entered (and the one left, for its phis); `None` resumes the top frame
    /// at its next instruction (a `select` forked mid-block).
    entry: Option<(u32, u32)>,
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
    values: Vec<Option<Reg<S>>>,
    allocas: Vec<ObjectId>,
    /// The caller's slot for the result, or [`NO_DEST`].
    ret_to: u32,
}

impl<S> Frame<S> {
    fn blank() -> Frame<S> {
        Frame {
            func: FuncId(0),
            block: 0,
            pc: 0,
            values: Vec::new(),
            allocas: Vec::new(),
            ret_to: NO_DEST,
        }
    }

    /// Makes this (reused) frame a fresh one for `func`, all slots undefined.
    fn init(&mut self, func: FuncId, num_values: usize, ret_to: u32) {
        self.func = func;
        self.block = 0;
        self.pc = 0;
        self.ret_to = ret_to;
        self.allocas.clear();
        self.values.clear();
        self.values.resize_with(num_values, || None);
    }
}

/// The frame stack: `frames[..depth]` are live (the last one executing); the frames
/// beyond are finished ones whose vectors are reused by the next calls and runs.
struct Stack<S> {
    frames: Vec<Frame<S>>,
    depth: usize,
}

impl<S> Default for Stack<S> {
    fn default() -> Self {
        Stack {
            frames: Vec::new(),
            depth: 0,
        }
    }
}

impl<S: Clone> Stack<S> {
    fn from_live(frames: Vec<Frame<S>>) -> Stack<S> {
        let depth = frames.len();
        Stack { frames, depth }
    }

    fn live(&self) -> Vec<Frame<S>> {
        self.frames[..self.depth].to_vec()
    }

    fn top(&mut self) -> &mut Frame<S> {
        &mut self.frames[self.depth - 1]
    }

    /// Storage for the frame above the live ones, with the live top as its caller.
    fn next_with_caller(&mut self) -> (&Frame<S>, &mut Frame<S>) {
        if self.frames.len() == self.depth {
            self.frames.push(Frame::blank());
        }
        let (live, rest) = self.frames.split_at_mut(self.depth);
        (&live[self.depth - 1], &mut rest[0])
    }
}

/// Where each of `callers` goes on when its call returns: (function, block, index of the
/// instruction after the call).
fn continuations<S>(callers: &[Frame<S>]) -> impl Iterator<Item = (FuncId, u32, usize)> + '_ {
    callers.iter().map(|c| (c.func, c.block, c.pc))
}

/// The walker: a module, a domain and the memory of the current walk.
pub struct Walker<'m, D: Domain> {
    pub module: &'m Module,
    pub domain: D,
    pub config: WalkConfig,
    pub memory: Memory<D::Scalar>,
    pristine: Memory<D::Scalar>,
    /// Where each global of the module lives.
    addresses: Addresses,
    pub steps: u64,
    /// Step count at which the step budget or the deadline is looked at next.
    next_check: u64,
    /// The module decoded once for this domain (taken out while a walk runs).
    code: Option<Box<Code<D::Scalar>>>,
    /// Frames, kept across runs to reuse their vectors.
    stack: Stack<D::Scalar>,
    /// Incoming phi values while a block's phis are assigned (all read before any write).
    phi_scratch: Vec<Reg<D::Scalar>>,
    /// Set while exploring paths: where forks park the branch not taken.
    exploration: Option<Exploration<D>>,
    /// Set when the exploration seeks only failed assertions: the blocks from which
    /// none can be reached, whose branch directions are not walked.
    quiet: Option<crate::quiet::QuietBlocks>,
}

fn loc_of<'a>(module: &'a Module, kind: &InstKind) -> Option<&'a SourceLoc> {
    let site = match kind {
        InstKind::FBin { site, .. }
        | InstKind::FCmp { site, .. }
        | InstKind::FUnary { site, .. }
        | InstKind::FClass { site, .. }
        | InstKind::FBinary { site, .. }
        | InstKind::Fma { site, .. }
        | InstKind::Math { site, .. }
        | InstKind::MathOut { site, .. }
        | InstKind::Reduce { site, .. } => Some(*site),
        InstKind::Cast { site, .. } => *site,
        _ => None,
    }?;
    module.op(site).loc.as_ref()
}

/// The source location of instruction `pc` of a block, for error messages.
#[cold]
#[inline(never)]
fn inst_loc(module: &Module, func: FuncId, block: u32, pc: usize) -> Option<&SourceLoc> {
    let inst = &module.function(func).blocks[block as usize].insts[pc];
    loc_of(module, &inst.kind)
}

#[cold]
#[inline(never)]
fn term_loc(module: &Module, func: FuncId, block: u32) -> Option<&SourceLoc> {
    module.function(func).blocks[block as usize]
        .term_loc
        .as_ref()
}

impl<'m, D: Domain> Walker<'m, D> {
    /// Creates a walker with the module's globals laid out in memory.
    pub fn new(module: &'m Module, mut domain: D, config: WalkConfig) -> DResult<Self> {
        let mut memory = Memory::new();
        let mut globals = Vec::with_capacity(module.globals.len());
        for g in &module.globals {
            // Reads of a global whose initializer is not modelled fail as uninitialized,
            // and the object's name says why.
            let name = match &g.unmodelled {
                Some(why) => format!("{} (initializer not modelled: {why})", g.name),
                None => g.name.clone(),
            };
            globals.push(memory.alloc(name, g.size.max(1), !g.constant));
        }
        // An object for each function whose address is taken (`function_at`).
        let functions = module
            .address_taken()
            .into_iter()
            .map(|f| {
                let name = format!("function {}", module.function(f).display_name);
                (f, memory.alloc(name, 1, false))
            })
            .collect();
        let addresses = Addresses { globals, functions };
        for (g, &base) in module.globals.iter().zip(&addresses.globals) {
            for (off, ty, c) in &g.cells {
                let cell = match const_to_val(&domain, &addresses, c)? {
                    Reg::Scalar(s) => Cell::Scalar(*ty, s),
                    Reg::Ptr(p) => Cell::Ptr(p),
                    Reg::Vector(_) => return Err(WalkError::unsupported("vector in global cell")),
                };
                // Read-only globals are initialised before write protection matters.
                memory.store_init(&mut domain, base.add(*off as i64), cell)?;
            }
        }
        let code = decode(module, &domain, &addresses);
        let mut walker = Walker {
            module,
            domain,
            config,
            pristine: memory.clone(),
            memory,
            addresses,
            steps: 0,
            next_check: 0,
            code: Some(Box::new(code)),
            stack: Stack::default(),
            phi_scratch: Vec::new(),
            exploration: None,
            quiet: None,
        };
        if let Some(setup) = module.setup {
            walker.run_setup(setup)?;
        }
        Ok(walker)
    }

    /// Runs the program's set-up function (`--setup-call`) and makes the memory it leaves
    /// the state every walk starts from.
    fn run_setup(&mut self, setup: FuncId) -> DResult<()> {
        let name = self.module.function(setup).display_name.clone();
        match self.run(setup, Vec::new()) {
            Ok(Outcome::Returned(_)) => {}
            // The walker was made after the budget had run out (or while it ran out):
            // the set-up call is not at fault.
            Ok(Outcome::Stopped(StopReason::Deadline { .. })) => {
                return Err(WalkError::unsupported(format!(
                    "the time budget ran out before the set-up call {name} returned"
                )))
            }
            Ok(Outcome::Stopped(why)) => {
                return Err(WalkError::unsupported(format!(
                    "the set-up call {name} did not return: {why}"
                )))
            }
            Ok(Outcome::Ended { end, .. }) => {
                return Err(WalkError::unsupported(format!(
                    "the set-up call {name} ended the program: {end}"
                )))
            }
            Err(e) => {
                return Err(WalkError::unsupported(format!(
                    "the set-up call {name} failed: {e}"
                )))
            }
        }
        self.pristine = self.memory.clone();
        self.steps = 0;
        Ok(())
    }

    /// Where each global of the module lives (by `GlobalId`).
    pub(crate) fn global_ptrs(&self) -> &[Ptr] {
        &self.addresses.globals
    }

    /// Restores memory to the state right after construction (globals initialised).
    pub fn reset(&mut self) {
        // `pristine` never changes: only what changed since the last reset is restored.
        self.memory.reset_to_unchanged(&self.pristine);
        self.steps = 0;
    }

    /// Places an array argument in memory and returns a pointer to it.
    pub fn alloc_array(
        &mut self,
        name: &str,
        ty: ScalarTy,
        values: Vec<D::Scalar>,
    ) -> DResult<Ptr> {
        self.alloc_array_from(name, ty, values.len(), values)
    }

    /// [`Walker::alloc_array`] from an iterator of `len` elements.
    pub(crate) fn alloc_array_from(
        &mut self,
        name: &str,
        ty: ScalarTy,
        len: usize,
        values: impl IntoIterator<Item = D::Scalar>,
    ) -> DResult<Ptr> {
        let size = store_size(ty) * len as u64;
        let p = self.memory.alloc_named(name, size, true);
        for (i, v) in values.into_iter().enumerate() {
            let at = p.add(i as i64 * store_size(ty) as i64);
            self.memory
                .store(&mut self.domain, at, Cell::Scalar(ty, v))?;
        }
        Ok(p)
    }

    /// Runs `func` on `args` until it returns, traps or exhausts its budget.
    pub fn run(&mut self, func: FuncId, args: Vec<Val<D::Scalar>>) -> DResult<Outcome<D::Scalar>> {
        self.run_regs(func, args.into_iter().map(Reg::from_val))
    }

    /// [`Walker::run`] on arguments in the walker's inner form.
    pub(crate) fn run_regs<I>(&mut self, func: FuncId, args: I) -> DResult<Outcome<D::Scalar>>
    where
        I: ExactSizeIterator<Item = Reg<D::Scalar>>,
    {
        self.domain.begin_walk();
        let mut stack = std::mem::take(&mut self.stack);
        stack.depth = 0;
        let code = self.code.take().expect("decoded module");
        let out = self.run_frames(&code, func, args, &mut stack);
        self.code = Some(code);
        // The default stack left in its place holds no allocation.
        std::mem::forget(std::mem::replace(&mut self.stack, stack));
        self.domain.end_walk();
        out
    }

    fn run_frames<I>(
        &mut self,
        code: &Code<D::Scalar>,
        func: FuncId,
        args: I,
        stack: &mut Stack<D::Scalar>,
    ) -> DResult<Outcome<D::Scalar>>
    where
        I: ExactSizeIterator<Item = Reg<D::Scalar>>,
    {
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
        let dfunc = &code.funcs[func.0 as usize];
        if dfunc.blocks.is_empty() {
            return Err(WalkError::unsupported(format!(
                "{} has no body",
                f.display_name
            )));
        }
        if stack.frames.is_empty() {
            stack.frames.push(Frame::blank());
        }
        let first = &mut stack.frames[0];
        first.init(func, dfunc.num_values as usize, NO_DEST);
        for (slot, a) in first.values.iter_mut().zip(args) {
            *slot = Some(a);
        }
        stack.depth = 1;
        self.step_loop(code, stack)
    }

    /// Executes until the bottom frame returns, a budget ends the walk, or an error.
    fn step_loop(
        &mut self,
        code: &Code<D::Scalar>,
        stack: &mut Stack<D::Scalar>,
    ) -> DResult<Outcome<D::Scalar>> {
        let module = self.module;
        // The first instruction looks at the limits and sets the next check.
        self.next_check = self.steps.min(self.config.step_budget);
        let mut empty_blocks: u64 = 0;
        'frames: loop {
            let depth = stack.depth;
            let frame = &mut stack.frames[depth - 1];
            let block = &code.funcs[frame.func.0 as usize].blocks[frame.block as usize];
            while let Some(inst) = block.insts.get(frame.pc) {
                frame.pc += 1;
                self.steps += 1;
                if self.steps > self.next_check {
                    if let Some(stop) = self.check_limits() {
                        return Ok(Outcome::Stopped(stop));
                    }
                }
                match &inst.op {
                    Op::Call { callee, args } => {
                        if depth >= self.config.max_call_depth {
                            return Ok(Outcome::Stopped(StopReason::CallDepth { depth }));
                        }
                        self.call(code, stack, *callee, args, inst.dest)?;
                        continue 'frames;
                    }
                    Op::CallIndirect { callee, args } => {
                        if depth >= self.config.max_call_depth {
                            return Ok(Outcome::Stopped(StopReason::CallDepth { depth }));
                        }
                        let target = match code.get(&frame.values, *callee) {
                            Ok(Reg::Ptr(p)) => self.addresses.function_at(*p),
                            Ok(_) => None,
                            Err(e) => return Err(e),
                        };
                        let Some(target) = target else {
                            let at = inst_loc(module, frame.func, frame.block, frame.pc - 1);
                            return Err(WalkError::unsupported(
                                "a call through a pointer that is not a function of the program",
                            )
                            .at(at));
                        };
                        self.call(code, stack, target, args, inst.dest)?;
                        continue 'frames;
                    }
                    Op::External(call) => match self.external(code, frame, call, inst.dest) {
                        Ok(None) => continue,
                        Ok(Some(end)) => {
                            let loc = call.call.loc.clone();
                            return Ok(Outcome::Ended { end, loc });
                        }
                        Err(e) => return Err(e.at(call.call.loc.as_ref())),
                    },
                    _ => {}
                }
                if let Err(e) = self.exec(code, frame, inst) {
                    let at = inst_loc(module, frame.func, frame.block, frame.pc - 1);
                    let forked = match self.fork_select(code, stack, inst, &e) {
                        Err(_) => self.fork_values(code, stack, inst, &e),
                        done => done,
                    };
                    match forked {
                        Ok(Some(stop)) => return Ok(Outcome::Stopped(stop)),
                        Ok(None) => continue 'frames,
                        Err(_) => return Err(e.at(at)),
                    }
                }
            }
            // A loop of blocks without instructions (`LOOP: goto LOOP;`) counts no step:
            // such blocks are counted apart (the step count stays the compiled kernels'),
            // and meet the deadline and the step budget all the same.
            if block.insts.is_empty() {
                empty_blocks += 1;
                if empty_blocks.is_multiple_of(EMPTY_BLOCK_CHECK) {
                    let budget = self.config.step_budget;
                    if empty_blocks > budget {
                        return Ok(Outcome::Stopped(StopReason::StepBudget { steps: budget }));
                    }
                    if self.config.deadline.is_some_and(|d| Instant::now() >= d) {
                        return Ok(Outcome::Stopped(StopReason::Deadline { steps: self.steps }));
                    }
                }
            }
            match &block.term {
                Term::Br(b) => {
                    let from = frame.block;
                    self.enter_block(code, frame, *b, Some(from))?;
                }
                Term::CondBr { cond, then_, else_ } => {
                    let c = match code.get(&frame.values, *cond)? {
                        Reg::Scalar(s) => s,
                        _ => return Err(WalkError::unsupported("vector branch condition")),
                    };
                    let (func, at) = (frame.func, frame.block);
                    // A symbolic branch may propagate a large network: the deadline is
                    // looked at before each, not only every DEADLINE_CHECK_STEPS steps.
                    if self.domain.concrete_bits(c).is_none()
                        && self.config.deadline.is_some_and(|d| Instant::now() >= d)
                    {
                        return Ok(Outcome::Stopped(StopReason::Deadline { steps: self.steps }));
                    }
                    let taken = match self.domain.decide(c) {
                        Ok(Decision::Known(t)) => t,
                        Ok(Decision::Both) => {
                            let c = c.clone();
                            match self.fork(code, stack, &c, func, at, *then_, *else_) {
                                Ok(Some(stop)) => return Ok(Outcome::Stopped(stop)),
                                Ok(None) => continue,
                                Err(e) => return Err(e.at(term_loc(module, func, at))),
                            }
                        }
                        Err(e) => return Err(e.at(term_loc(module, func, at))),
                    };
                    let to = if taken { *then_ } else { *else_ };
                    self.enter_block(code, frame, to, Some(at))?;
                }
                Term::Switch {
                    st,
                    value,
                    default,
                    cases,
                } => {
                    let scrutinee = match code.get(&frame.values, *value)? {
                        Reg::Scalar(s) => s,
                        _ => return Err(WalkError::unsupported("switch on non-scalar")),
                    };
                    let (func, at) = (frame.func, frame.block);
                    if self.exploration.is_some() && self.domain.concrete_bits(scrutinee).is_none()
                    {
                        // A symbolic value (fdlibm's `switch (n & 3)` after argument
                        // reduction): one path per feasible case, its equality assumed.
                        let v = scrutinee.clone();
                        match self.fork_switch(code, stack, &v, *st, cases, *default, func, at) {
                            Ok(Some(stop)) => return Ok(Outcome::Stopped(stop)),
                            Ok(None) => continue,
                            Err(e) => return Err(e.at(term_loc(module, func, at))),
                        }
                    }
                    let bits = self.domain.concretize(scrutinee, *st)?;
                    let to = cases
                        .iter()
                        .find(|(c, _)| *c == bits)
                        .map(|(_, b)| *b)
                        .unwrap_or(*default);
                    let from = frame.block;
                    self.enter_block(code, frame, to, Some(from))?;
                }
                Term::Ret(v) => {
                    let ret = match *v {
                        Some(Opd::Val(i)) => match frame.values[i as usize].take() {
                            Some(r) => Some(r),
                            None => return Err(undefined(i)),
                        },
                        Some(o) => Some(code.get(&frame.values, o)?.clone()),
                        None => None,
                    };
                    for &obj in &frame.allocas {
                        self.memory.kill(obj);
                    }
                    let ret_to = frame.ret_to;
                    stack.depth -= 1;
                    if stack.depth == 0 {
                        return Ok(Outcome::Returned(ret.map(Reg::into_val)));
                    }
                    if let (true, Some(r)) = (ret_to != NO_DEST, ret) {
                        stack.top().values[ret_to as usize] = Some(r);
                    }
                }
                Term::Unreachable => {
                    return Err(WalkError::Trap {
                        what: "reached unreachable code".into(),
                        loc: term_loc(module, frame.func, frame.block).cloned(),
                    })
                }
            }
        }
    }

    /// Pushes the frame of a call from the top frame, its arguments evaluated there.
    fn call(
        &mut self,
        code: &Code<D::Scalar>,
        stack: &mut Stack<D::Scalar>,
        callee: FuncId,
        args: &[Opd],
        dest: u32,
    ) -> DResult<()> {
        let f = self.module.function(callee);
        if let Some(why) = &f.unsupported {
            return Err(WalkError::unsupported(why.clone()));
        }
        let dc = &code.funcs[callee.0 as usize];
        if dc.blocks.is_empty() || args.len() != dc.num_params as usize {
            return Err(WalkError::unsupported(format!(
                "call to {} with {} arguments ({} expected)",
                f.display_name,
                args.len(),
                dc.num_params
            )));
        }
        let (caller, frame) = stack.next_with_caller();
        frame.init(callee, dc.num_values as usize, dest);
        for (i, a) in args.iter().enumerate() {
            frame.values[i] = Some(code.get(&caller.values, *a)?.clone());
        }
        stack.depth += 1;
        Ok(())
    }

    /// The step budget or the deadline, when one is reached; else when to look again.
    #[cold]
    #[inline(never)]
    fn check_limits(&mut self) -> Option<StopReason> {
        let budget = self.config.step_budget;
        if self.steps > budget {
            return Some(StopReason::StepBudget { steps: budget });
        }
        match self.config.deadline {
            Some(d) if std::time::Instant::now() >= d => {
                Some(StopReason::Deadline { steps: self.steps })
            }
            Some(_) => {
                self.next_check = budget.min(self.steps + DEADLINE_CHECK_STEPS);
                None
            }
            None => {
                self.next_check = budget;
                None
            }
        }
    }

    /// Executes a call outside the module; `Some` when it ends the program.
    #[cold]
    #[inline(never)]
    fn external(
        &mut self,
        code: &Code<D::Scalar>,
        frame: &mut Frame<D::Scalar>,
        ext: &DExternal,
        dest: u32,
    ) -> DResult<Option<ProgramEnd>> {
        let call = &ext.call;
        let arg = |i: usize| -> DResult<&Reg<D::Scalar>> {
            let o = ext.args.get(i).ok_or_else(|| {
                WalkError::unsupported(format!("call to '{}' with too few arguments", call.name))
            })?;
            code.get(&frame.values, *o)
        };
        let result: Option<u64> = match call.kind {
            ExternalKind::End(EndFn::Exit) => {
                let status = self.uint_of(arg(0)?, 32)? as u32 as i32;
                return Ok(Some(ProgramEnd::Exit { status }));
            }
            ExternalKind::End(EndFn::Abort) => return Ok(Some(ProgramEnd::Abort)),
            ExternalKind::End(EndFn::AssertFail) => {
                // Where it failed is the call's location; the message is the expression.
                let assertion = self.c_string(arg(0)?)?;
                return Ok(Some(ProgramEnd::AssertFail { message: assertion }));
            }
            // Output is discarded: only a return value someone reads must be computed.
            ExternalKind::Output(_) if !call.result_used || dest == NO_DEST => None,
            ExternalKind::Output(OutputFn::Puts) => Some(self.c_string(arg(0)?)?.len() as u64 + 1),
            ExternalKind::Output(OutputFn::Fputs) => Some(1),
            ExternalKind::Output(OutputFn::Putchar) => Some(self.uint_of(arg(0)?, 32)? & 0xff),
            ExternalKind::Output(OutputFn::Flush) => Some(0),
            ExternalKind::Output(OutputFn::Fwrite) => Some(self.uint_of(arg(2)?, 64)?),
            ExternalKind::Output(OutputFn::Formatted) => {
                return Err(WalkError::unsupported(format!(
                    "the value '{}' returns is used (only discarded output is modelled)",
                    call.name
                )))
            }
            ExternalKind::Rounding(RoundingFn::Set) => {
                let requested = self.uint_of(arg(0)?, 32)? as u32;
                match RoundingDirection::from_fenv(requested) {
                    Some(direction) => {
                        self.domain.set_rounding(direction)?;
                        Some(0)
                    }
                    None => Some(1),
                }
            }
            ExternalKind::NanFromTag(ty) => {
                // A tag the walk cannot read (uninitialised bytes, a nondet string) is no
                // error: a domain that does not need the payload gives any NaN.
                let tag = self.c_bytes(arg(0)?).ok();
                let nan = self.domain.nan_from_tag(ty, tag.as_deref())?;
                set(frame, dest, Reg::Scalar(nan));
                return Ok(None);
            }
            ExternalKind::Rounding(RoundingFn::Get) => {
                Some(u64::from(self.domain.rounding().fenv_value()))
            }
            ExternalKind::Native => {
                let mut args = Vec::with_capacity(ext.args.len());
                for (i, ty) in call.arg_tys.iter().enumerate() {
                    match (arg(i)?, ty) {
                        (Reg::Scalar(s), Type::Scalar(_)) => args.push(s.clone()),
                        _ => {
                            return Err(WalkError::unsupported(format!(
                                "call to external function '{}' with a pointer or vector \
                                 argument (only numbers are passed to native code)",
                                call.name
                            )))
                        }
                    }
                }
                let site = call.site.map(|op| OpSite { op, lane: 0 });
                let r = self.domain.native_call(call, &args, site)?;
                if let Some(r) = r {
                    set(frame, dest, Reg::Scalar(r));
                }
                return Ok(None);
            }
        };
        if let (Some(bits), Type::Scalar(st)) = (result, call.ret) {
            set(frame, dest, Reg::Scalar(self.domain.constant(st, bits)));
        }
        Ok(None)
    }

    /// The text of a NUL-terminated string in the walker's memory (at most 4096 bytes).
    fn c_string(&mut self, p: &Reg<D::Scalar>) -> DResult<String> {
        let bytes = self.c_bytes(p)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The bytes of a NUL-terminated string in the walker's memory (at most 4096).
    fn c_bytes(&mut self, p: &Reg<D::Scalar>) -> DResult<Vec<u8>> {
        let p = self.ptr_of(p)?;
        let mut bytes = Vec::new();
        for i in 0..4096 {
            let b = match self
                .memory
                .load(&mut self.domain, p.add(i), ScalarTy::Int(8))?
            {
                Cell::Scalar(_, s) => self.domain.concretize(&s, ScalarTy::Int(8))? as u8,
                Cell::Ptr(_) => return Err(WalkError::unsupported("pointer read as a character")),
            };
            if b == 0 {
                break;
            }
            bytes.push(b);
        }
        Ok(bytes)
    }

    /// Counts a fork at block `at` of `func` on this path: the stop reason once the forks
    /// there pass the loop bound; `Err(why)` when the walk is not exploring.
    fn count_fork(&mut self, func: FuncId, at: u32, why: &str) -> DResult<Option<StopReason>> {
        let Some(exp) = self.exploration.as_mut() else {
            return Err(WalkError::unsupported(why));
        };
        let count = exp.forks.entry((func, at)).or_insert(0);
        *count += 1;
        Ok(
            (*count > exp.limits.loop_bound).then_some(StopReason::LoopBound {
                bound: exp.limits.loop_bound,
            }),
        )
    }

    /// The direction a fork of the top frame's branch takes alone, when the other
    /// cannot fail an assertion (see [`Walker::skip_quiet_branches`]).
    fn quiet_direction(
        &self,
        code: &Code<D::Scalar>,
        stack: &Stack<D::Scalar>,
        then_b: u32,
        else_b: u32,
    ) -> Option<bool> {
        let quiet = self.quiet.as_ref()?;
        self.exploration.as_ref()?;
        let (top, callers) = stack.frames[..stack.depth].split_last()?;
        let quiet_way = |to: u32| {
            quiet.direction_ahead(
                code,
                top.func,
                (top.block, to),
                &top.values,
                |reg| match reg {
                    Reg::Scalar(s) => self.domain.concrete_bits(s),
                    _ => None,
                },
                continuations(callers),
            )
        };
        if quiet_way(else_b) {
            Some(true)
        } else if quiet_way(then_b) {
            Some(false)
        } else {
            None
        }
    }

    /// Whether a walk that failed at the top frame's last instruction (or its
    /// terminator) could not have failed an assertion had it gone on: that instruction,
    /// the rest of its block and each caller's continuation are quiet.
    fn failed_quietly(&self, code: &Code<D::Scalar>, stack: &Stack<D::Scalar>) -> bool {
        let (Some(quiet), Some((top, callers))) =
            (&self.quiet, stack.frames[..stack.depth].split_last())
        else {
            return false;
        };
        quiet.continuation(
            code,
            (top.func, top.block, top.pc.saturating_sub(1)),
            continuations(callers),
        )
    }

    /// Parks a path to walk later: `frames` with this walk's memory, steps and fork
    /// counts, the domain in `snapshot`, resumed by entering `entry` (block, from) or at
    /// the top frame's next instruction.
    fn park(
        &mut self,
        frames: Vec<Frame<D::Scalar>>,
        snapshot: D::Snapshot,
        entry: Option<(u32, u32)>,
    ) {
        let Some(exp) = self.exploration.as_mut() else {
            return;
        };
        exp.pending.push(Pending {
            frames,
            memory: self.memory.clone(),
            steps: self.steps,
            forks: exp.forks.clone(),
            snapshot,
            entry,
        });
    }

    /// Both directions of a branch are feasible: park the else-direction (when exploring)
    /// and continue into the then-direction. Returns a stop reason when the branch has
    /// forked more than the loop bound on this path.
    #[allow(clippy::too_many_arguments)]
    fn fork(
        &mut self,
        code: &Code<D::Scalar>,
        stack: &mut Stack<D::Scalar>,
        cond: &D::Scalar,
        func: FuncId,
        at: u32,
        then_b: u32,
        else_b: u32,
    ) -> DResult<Option<StopReason>> {
        let taken = match self.quiet_direction(code, stack, then_b, else_b) {
            // The other direction cannot fail an assertion: not walked, not counted.
            Some(taken) => taken,
            None => {
                if let Some(stop) = self.count_fork(
                    func,
                    at,
                    "branch depends on symbolic input: a single-path walk cannot fork",
                )? {
                    return Ok(Some(stop));
                }
                let before = self.domain.snapshot();
                if self.domain.assume(cond, false)? {
                    let snapshot = self.domain.snapshot();
                    self.park(stack.live(), snapshot, Some((else_b, at)));
                }
                self.domain.restore(before);
                true
            }
        };
        if !self.domain.assume(cond, taken)? {
            return Err(WalkError::unsupported(
                "a branch direction the domain called feasible is not",
            ));
        }
        let to = if taken { then_b } else { else_b };
        self.enter_block(code, stack.top(), to, Some(at))?;
        Ok(None)
    }

    /// A `select` on a symbolic condition whose operands the domain cannot combine
    /// (pointers; floats in the float solver), or an `and`/`or` of two conditions it
    /// cannot: the walk forks as on a branch, the other operand parked with the condition
    /// assumed false. `Err` (the original error stands)
    /// when `inst` is no such select or the walk cannot fork.
    fn fork_select(
        &mut self,
        code: &Code<D::Scalar>,
        stack: &mut Stack<D::Scalar>,
        inst: &DInst,
        error: &WalkError,
    ) -> DResult<Option<StopReason>> {
        if self.exploration.is_none() || inst.dest == NO_DEST {
            return Err(WalkError::unsupported("not exploring"));
        }
        if !matches!(error, WalkError::Unsupported { .. }) {
            return Err(WalkError::unsupported("not an unsupported operation"));
        }
        let boolean =
            |domain: &mut D, value: u64| Reg::Scalar(domain.constant(ScalarTy::Int(1), value));
        let frame = stack.top();
        let (func, block) = (frame.func, frame.block);
        // `a && b` and `a || b` of two symbolic conditions, as -O3 folds them into one
        // branch condition, are `select(a, b, false)` and `select(a, true, b)`.
        let (cond, then_value, else_value) = match &inst.op {
            Op::Select { cond, a, b, .. } => (
                *cond,
                code.get(&frame.values, *a)?.clone(),
                code.get(&frame.values, *b)?.clone(),
            ),
            Op::IBin {
                op: IBinOp::And,
                width: 1,
                a,
                b,
            } => (
                *a,
                code.get(&frame.values, *b)?.clone(),
                boolean(&mut self.domain, 0),
            ),
            Op::IBin {
                op: IBinOp::Or,
                width: 1,
                a,
                b,
            } => (
                *a,
                boolean(&mut self.domain, 1),
                code.get(&frame.values, *b)?.clone(),
            ),
            _ => return Err(WalkError::unsupported("not a select")),
        };
        let Reg::Scalar(c) = code.get(&frame.values, cond)?.clone() else {
            return Err(WalkError::unsupported("a vector condition"));
        };
        if let Decision::Known(taken) = self.domain.decide(&c)? {
            // The path already decides the condition: no fork, the operand it picks.
            set(
                stack.top(),
                inst.dest,
                if taken { then_value } else { else_value },
            );
            return Ok(None);
        }
        if let Some(stop) = self.count_fork(func, block, "not exploring")? {
            return Ok(Some(stop));
        }
        let before = self.domain.snapshot();
        if self.domain.assume(&c, false)? {
            let mut frames = stack.live();
            if let Some(top) = frames.last_mut() {
                set(top, inst.dest, else_value);
            }
            let snapshot = self.domain.snapshot();
            self.park(frames, snapshot, None);
        }
        self.domain.restore(before);
        if !self.domain.assume(&c, true)? {
            return Err(WalkError::unsupported(
                "a select direction the domain called feasible is not",
            ));
        }
        set(stack.top(), inst.dest, then_value);
        Ok(None)
    }

    /// An integer operation the domain cannot do on a symbolic operand that has few
    /// possible values (an octant converted from a float, `octant & 1`; a table index):
    /// one path per value, its equality assumed and the operand's register replaced by
    /// the value, the operation done again on each. `Err` (the original error stands)
    /// when the walk cannot fork or no operand has few values.
    fn fork_values(
        &mut self,
        code: &Code<D::Scalar>,
        stack: &mut Stack<D::Scalar>,
        inst: &DInst,
        error: &WalkError,
    ) -> DResult<Option<StopReason>> {
        if self.exploration.is_none() || !matches!(error, WalkError::Unsupported { .. }) {
            return Err(WalkError::unsupported("not exploring"));
        }
        let operands: Vec<Opd> = match &inst.op {
            Op::IBin { a, b, .. } | Op::ICmp { a, b, .. } => vec![*a, *b],
            Op::Cast { a, .. } => vec![*a],
            Op::Gep { indices, .. } => indices.iter().map(|(o, _, _)| *o).collect(),
            _ => return Err(WalkError::unsupported("not an integer operation")),
        };
        let frame = stack.top();
        let (func, block) = (frame.func, frame.block);
        let mut split = None;
        for opd in operands {
            let Opd::Val(register) = opd else { continue };
            let Ok(Reg::Scalar(s)) = code.get(&frame.values, opd) else {
                continue;
            };
            if self.domain.concrete_bits(s).is_some() {
                continue;
            }
            let s = s.clone();
            if let Some((width, values)) = self.domain.few_values(&s, SPLIT_VALUES)? {
                split = Some((register, s, width, values));
                break;
            }
        }
        let Some((register, value, width, values)) = split else {
            return Err(WalkError::unsupported("no operand with few values"));
        };
        let before = self.domain.snapshot();
        let mut feasible = Vec::new();
        for k in values {
            let constant = self.domain.constant(ScalarTy::Int(width), k);
            let equal = self.domain.icmp(ICmpPred::Eq, width, &value, &constant)?;
            if self.domain.concrete_bits(&equal) == Some(0) {
                continue;
            }
            if self.domain.assume(&equal, true)? {
                feasible.push((self.domain.snapshot(), constant));
            }
            self.domain.restore(before.clone());
        }
        let Some(last) = feasible.pop() else {
            return Err(WalkError::unsupported(
                "no value of the operand is feasible",
            ));
        };
        if !feasible.is_empty() {
            if let Some(stop) = self.count_fork(func, block, "not exploring")? {
                return Ok(Some(stop));
            }
        }
        for (snapshot, constant) in feasible {
            self.domain.restore(snapshot);
            let frame = stack.top();
            frame.values[register as usize] = Some(Reg::Scalar(constant));
            self.exec(code, frame, inst)?;
            let snapshot = self.domain.snapshot();
            self.park(stack.live(), snapshot, None);
        }
        let (snapshot, constant) = last;
        self.domain.restore(snapshot);
        let frame = stack.top();
        frame.values[register as usize] = Some(Reg::Scalar(constant));
        self.exec(code, frame, inst)?;
        Ok(None)
    }

    /// A `switch` on a symbolic value: every case whose equality may hold is parked as a
    /// path with that equality assumed, and this path goes on to the default with every
    /// such equality assumed false (or to the one case that must hold).
    #[allow(clippy::too_many_arguments)]
    fn fork_switch(
        &mut self,
        code: &Code<D::Scalar>,
        stack: &mut Stack<D::Scalar>,
        value: &D::Scalar,
        st: ScalarTy,
        cases: &[(u64, u32)],
        default: u32,
        func: FuncId,
        at: u32,
    ) -> DResult<Option<StopReason>> {
        let width = match st {
            ScalarTy::Int(w) => w,
            _ => return Err(WalkError::unsupported("switch on a non-integer")),
        };
        if let Some(stop) = self.count_fork(
            func,
            at,
            "switch on symbolic input: a single-path walk cannot fork",
        )? {
            return Ok(Some(stop));
        }
        // Each destination with what its path assumes: a case's equality, or for the
        // default every possible case's inequality.
        let mut possible: Vec<(D::Scalar, u32)> = Vec::new();
        for &(case, to) in cases {
            let k = self.domain.constant(st, case);
            let equal = self.domain.icmp(ICmpPred::Eq, width, value, &k)?;
            match self.domain.decide(&equal)? {
                Decision::Known(false) => {}
                Decision::Known(true) => {
                    self.enter_block(code, stack.top(), to, Some(at))?;
                    return Ok(None);
                }
                Decision::Both => possible.push((equal, to)),
            }
        }
        let before = self.domain.snapshot();
        let mut default_possible = true;
        for (equal, _) in &possible {
            if !self.domain.assume(equal, false)? {
                default_possible = false;
                break;
            }
        }
        let after_default = self.domain.snapshot();
        let mut feasible: Vec<(D::Snapshot, u32)> = Vec::new();
        for (equal, to) in possible {
            self.domain.restore(before.clone());
            if self.domain.assume(&equal, true)? {
                feasible.push((self.domain.snapshot(), to));
            }
        }
        // The current path takes the default when it is possible, else the last case.
        let current = if default_possible {
            (after_default, default)
        } else {
            feasible.pop().ok_or_else(|| {
                WalkError::unsupported(
                    "a switch whose every destination the domain called infeasible",
                )
            })?
        };
        for (snapshot, to) in feasible {
            self.park(stack.live(), snapshot, Some((to, at)));
        }
        self.domain.restore(current.0);
        self.enter_block(code, stack.top(), current.1, Some(at))?;
        Ok(None)
    }

    /// Makes [`Walker::explore`] walk only what can fail an assertion: a fork one of
    /// whose directions cannot reach a failed assertion, a call of `error_functions` or
    /// an instruction the walker cannot follow (an input guard's `abort()`, a return
    /// from the entry function) goes the other way alone, without counting towards the
    /// loop bound. Only for explorations whose sole target is a failed assertion.
    pub fn skip_quiet_branches(&mut self, error_functions: &[FuncId]) {
        self.quiet = self
            .code
            .as_deref()
            .map(|code| crate::quiet::QuietBlocks::of(code, error_functions));
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
        let code = self.code.take().expect("decoded module");
        let mut stack = Stack::default();
        let mut result =
            self.run_frames(&code, func, args.into_iter().map(Reg::from_val), &mut stack);
        loop {
            summary.paths += 1;
            let end = match result {
                Ok(Outcome::Returned(v)) => PathEnd::Returned(v),
                Ok(Outcome::Stopped(r)) => PathEnd::Stopped(r),
                Ok(Outcome::Ended { end, loc }) => PathEnd::Ended { end, loc },
                Err(e) if self.failed_quietly(&code, &stack) => PathEnd::CannotFail(e),
                Err(e) => PathEnd::Failed(e),
            };
            on_path(&mut self.domain, end);
            let next = self.exploration.as_mut().and_then(|e| e.pending.pop());
            let Some(p) = next else { break };
            if summary.paths >= limits.max_paths {
                summary.stopped = Some(StopReason::PathBudget {
                    paths: summary.paths,
                });
                break;
            }
            if limits
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
            {
                summary.stopped = Some(StopReason::TimeBudget {
                    paths: summary.paths,
                });
                break;
            }
            stack = Stack::from_live(p.frames);
            self.memory = p.memory;
            self.steps = p.steps;
            if let Some(exp) = self.exploration.as_mut() {
                exp.forks = p.forks;
            }
            self.domain.restore(p.snapshot);
            result = match p.entry {
                Some((to, from)) => self.enter_block(&code, stack.top(), to, Some(from)),
                None => Ok(()),
            }
            .and_then(|()| self.step_loop(&code, &mut stack));
        }
        self.code = Some(code);
        self.domain.end_walk();
        self.exploration = None;
        summary
    }

    /// Moves a frame into block `to`, assigning its phis for the edge from `from`.
    #[inline(always)]
    fn enter_block(
        &mut self,
        code: &Code<D::Scalar>,
        frame: &mut Frame<D::Scalar>,
        to: u32,
        from: Option<u32>,
    ) -> DResult<()> {
        let block = &code.funcs[frame.func.0 as usize].blocks[to as usize];
        if let Some(from) = from {
            if !block.phis.is_empty() {
                self.assign_phis(code, frame, block, from)?;
            }
        }
        frame.block = to;
        frame.pc = 0;
        Ok(())
    }

    /// Assigns the phis of `block` for the edge from `from`: all are read before any is
    /// written.
    #[inline(never)]
    fn assign_phis(
        &mut self,
        code: &Code<D::Scalar>,
        frame: &mut Frame<D::Scalar>,
        block: &DBlock,
        from: u32,
    ) -> DResult<()> {
        let incoming = |phi: &DPhi| -> DResult<Opd> {
            phi.incoming
                .iter()
                .find(|(b, _)| *b == from)
                .map(|(_, op)| *op)
                .ok_or_else(|| {
                    WalkError::unsupported("phi without an edge from the previous block")
                })
        };
        if block.phis_in_place {
            for phi in block.phis.iter() {
                let v = code.get(&frame.values, incoming(phi)?)?.clone();
                frame.values[phi.dest as usize] = Some(v);
            }
        } else {
            let mut scratch = std::mem::take(&mut self.phi_scratch);
            scratch.clear();
            for phi in block.phis.iter() {
                scratch.push(code.get(&frame.values, incoming(phi)?)?.clone());
            }
            for (phi, v) in block.phis.iter().zip(scratch.drain(..)) {
                frame.values[phi.dest as usize] = Some(v);
            }
            self.phi_scratch = scratch;
        }
        Ok(())
    }

    #[inline]
    fn ptr_of(&mut self, v: &Reg<D::Scalar>) -> DResult<Ptr> {
        match v {
            Reg::Ptr(p) => Ok(*p),
            Reg::Scalar(s) => Ok(Ptr::from_int(self.domain.concretize(s, ScalarTy::Int(64))?)),
            Reg::Vector(_) => Err(WalkError::unsupported("vector used as a pointer")),
        }
    }

    #[inline]
    fn uint_of(&mut self, v: &Reg<D::Scalar>, width: u32) -> DResult<u64> {
        match v {
            Reg::Scalar(s) => self.domain.concretize(s, ScalarTy::Int(width)),
            _ => Err(WalkError::unsupported("expected an integer")),
        }
    }

    /// Executes one instruction of the top frame (not a call).
    #[inline(always)]
    fn exec(
        &mut self,
        code: &Code<D::Scalar>,
        frame: &mut Frame<D::Scalar>,
        inst: &DInst,
    ) -> DResult<()> {
        let vals = &frame.values;
        let get = |o: Opd| code.get(vals, o);
        let dest = inst.dest;
        let result: Reg<D::Scalar> = match &inst.op {
            Op::FBin {
                op,
                fty,
                a,
                b,
                site,
            } => {
                return self.bin_into(code, frame, *a, *b, dest, |d, x, y, lane| {
                    d.fbin(*op, *fty, x, y, OpSite { op: *site, lane })
                })
            }
            Op::FNeg { fty, ty, a } => {
                return self.un_into(code, frame, *ty, *a, dest, |d, x, _| d.fneg(*fty, x))
            }
            Op::FCmp {
                pred,
                lowering,
                fty,
                a,
                b,
                site,
            } => {
                return self.bin_into(code, frame, *a, *b, dest, |d, x, y, lane| {
                    d.fcmp(*pred, *lowering, *fty, x, y, OpSite { op: *site, lane })
                })
            }
            Op::FUnary {
                op,
                fty,
                ty,
                a,
                site,
            } => {
                return self.un_into(code, frame, *ty, *a, dest, |d, x, lane| {
                    d.funary(*op, *fty, x, OpSite { op: *site, lane })
                })
            }
            Op::FClass {
                mask,
                fty,
                ty,
                a,
                site,
            } => {
                return self.un_into(code, frame, *ty, *a, dest, |d, x, lane| {
                    d.fclass(*mask, *fty, x, OpSite { op: *site, lane })
                })
            }
            Op::FBinary {
                op,
                fty,
                a,
                b,
                site,
            } => {
                return self.bin_into(code, frame, *a, *b, dest, |d, x, y, lane| {
                    d.fbinary(*op, *fty, x, y, OpSite { op: *site, lane })
                })
            }
            Op::IBin { op, width, a, b } => {
                return self.bin_into(code, frame, *a, *b, dest, |d, x, y, _| {
                    d.ibin(*op, *width, x, y)
                })
            }
            Op::ICmp { pred, width, a, b } => {
                return self.bin_into(code, frame, *a, *b, dest, |d, x, y, _| {
                    d.icmp(*pred, *width, x, y)
                })
            }
            Op::Cast {
                op,
                from,
                to,
                a,
                site,
            } => self.cast(get(*a)?, *op, *from, *to, *site)?,
            Op::Select { ty, cond, a, b } => {
                let c = get(*cond)?;
                let (va, vb) = (get(*a)?, get(*b)?);
                match (c, va, vb) {
                    (Reg::Scalar(c), Reg::Scalar(x), Reg::Scalar(y)) => match ty.float_ty() {
                        Some(fty) => Reg::Scalar(self.domain.select_float(fty, c, x, y)?),
                        None => Reg::Scalar(self.domain.select(c, x, y)?),
                    },
                    _ => self.select_other(*ty, c, va, vb)?,
                }
            }
            Op::Load { ty, ptr } => {
                let p = self.ptr_of(get(*ptr)?)?;
                self.load(p, *ty)?
            }
            Op::Store { ty, value, ptr } => {
                let p = self.ptr_of(get(*ptr)?)?;
                let v = get(*value)?;
                self.store(p, *ty, v)?;
                return Ok(());
            }
            Op::Gep {
                base,
                const_offset,
                indices,
            } => {
                let mut p = self.ptr_of(get(*base)?)?.add(*const_offset);
                for &(index, width, scale) in indices.iter() {
                    let raw = self.uint_of(get(index)?, width)?;
                    p = p.add(sign_extend(raw, width).wrapping_mul(scale));
                }
                Reg::Ptr(p)
            }
            Op::ExtractElement { v, index } => {
                let lanes = as_lanes(get(*v)?)?;
                let i = self.uint_of(get(*index)?, 64)? as usize;
                let lane = lanes
                    .get(i)
                    .cloned()
                    .ok_or_else(|| WalkError::trap("extractelement index out of range"))?;
                Reg::Scalar(lane)
            }
            Op::InsertElement { ty, v, elt, index } => {
                let mut lanes: Lanes<D::Scalar> = as_lanes(get(*v)?)?.iter().cloned().collect();
                let i = self.uint_of(get(*index)?, 64)? as usize;
                let e = match get(*elt)? {
                    Reg::Scalar(s) => s.clone(),
                    _ => return Err(WalkError::unsupported("insertelement of a non-scalar")),
                };
                if i >= lanes.len() {
                    return Err(WalkError::trap("insertelement index out of range"));
                }
                lanes[i] = e;
                pack(*ty, lanes)
            }
            Op::Shuffle {
                ty,
                lane_ty,
                a,
                b,
                mask,
            } => {
                let (xa, xb) = (as_lanes(get(*a)?)?, as_lanes(get(*b)?)?);
                let lane_ty = lane_ty.ok_or_else(|| WalkError::unsupported("shuffle type"))?;
                let mut out = Lanes::with_capacity(mask.len());
                for m in mask.iter() {
                    out.push(match m {
                        Some(i) => {
                            let i = *i as usize;
                            let lane = if i < xa.len() {
                                xa.get(i)
                            } else {
                                xb.get(i - xa.len())
                            };
                            lane.cloned()
                                .ok_or_else(|| WalkError::trap("shuffle index out of range"))?
                        }
                        None => self.domain.constant(lane_ty, 0),
                    });
                }
                pack(*ty, out)
            }
            Op::Nop => return Ok(()),
            _ => return self.exec_rare(code, frame, inst),
        };
        set(frame, dest, result);
        Ok(())
    }

    /// A lane-wise binary operation, its result written to slot `dest`.
    #[inline(always)]
    fn bin_into(
        &mut self,
        code: &Code<D::Scalar>,
        frame: &mut Frame<D::Scalar>,
        a: Opd,
        b: Opd,
        dest: u32,
        mut f: impl FnMut(&mut D, &D::Scalar, &D::Scalar, u32) -> DResult<D::Scalar>,
    ) -> DResult<()> {
        let (x, y) = (code.get(&frame.values, a)?, code.get(&frame.values, b)?);
        let r = match (x, y) {
            (Reg::Scalar(x), Reg::Scalar(y)) => Reg::Scalar(f(&mut self.domain, x, y, 0)?),
            _ => self.map2_lanes(x, y, f)?,
        };
        set(frame, dest, r);
        Ok(())
    }

    /// A lane-wise unary operation, its result written to slot `dest`.
    #[inline(always)]
    fn un_into(
        &mut self,
        code: &Code<D::Scalar>,
        frame: &mut Frame<D::Scalar>,
        ty: Type,
        a: Opd,
        dest: u32,
        mut f: impl FnMut(&mut D, &D::Scalar, u32) -> DResult<D::Scalar>,
    ) -> DResult<()> {
        let x = code.get(&frame.values, a)?;
        let r = match x {
            Reg::Scalar(x) => Reg::Scalar(f(&mut self.domain, x, 0)?),
            _ => self.map1_lanes(ty, x, f)?,
        };
        set(frame, dest, r);
        Ok(())
    }

    /// The instructions [`Walker::exec`] leaves out of its hot path.
    #[inline(never)]
    fn exec_rare(
        &mut self,
        code: &Code<D::Scalar>,
        frame: &mut Frame<D::Scalar>,
        inst: &DInst,
    ) -> DResult<()> {
        let vals = &frame.values;
        let get = |o: Opd| code.get(vals, o);
        let result: Reg<D::Scalar> = match &inst.op {
            Op::Fma {
                fty,
                ty,
                a,
                b,
                c,
                fused,
                site,
            } => {
                let (xa, xb, xc) = (
                    as_lanes(get(*a)?)?,
                    as_lanes(get(*b)?)?,
                    as_lanes(get(*c)?)?,
                );
                let mut out = Lanes::with_capacity(xa.len());
                for lane in 0..xa.len() {
                    let s = OpSite {
                        op: *site,
                        lane: lane as u32,
                    };
                    let r = if *fused {
                        self.domain.fma(*fty, &xa[lane], &xb[lane], &xc[lane], s)?
                    } else {
                        let m = self
                            .domain
                            .fbin(FBinOp::FMul, *fty, &xa[lane], &xb[lane], s)?;
                        self.domain.fbin(FBinOp::FAdd, *fty, &m, &xc[lane], s)?
                    };
                    out.push(r);
                }
                pack(*ty, out)
            }
            Op::Math {
                func,
                fty,
                args,
                site,
            } => {
                let mut argv: SmallVec<[D::Scalar; 4]> = SmallVec::with_capacity(args.len());
                for a in args.iter() {
                    match get(*a)? {
                        Reg::Scalar(s) => argv.push(s.clone()),
                        _ => {
                            return Err(WalkError::unsupported(
                                "vector argument to a libm function",
                            ))
                        }
                    }
                }
                Reg::Scalar(
                    self.domain
                        .math(*func, *fty, &argv, OpSite { op: *site, lane: 0 })?,
                )
            }
            Op::MathOut {
                func,
                fty,
                args,
                outs,
                site,
            } => {
                let mut argv: SmallVec<[D::Scalar; 4]> = SmallVec::with_capacity(args.len());
                for a in args.iter() {
                    match get(*a)? {
                        Reg::Scalar(s) => argv.push(s.clone()),
                        _ => {
                            return Err(WalkError::unsupported(
                                "vector argument to a libm function",
                            ))
                        }
                    }
                }
                let mut ptrs: SmallVec<[Ptr; 2]> = SmallVec::with_capacity(outs.len());
                for o in outs.iter() {
                    let v = get(*o)?;
                    ptrs.push(self.ptr_of(v)?);
                }
                let (ret, stored) =
                    self.domain
                        .math_out(*func, *fty, &argv, OpSite { op: *site, lane: 0 })?;
                if stored.len() != ptrs.len() {
                    return Err(WalkError::unsupported(format!(
                        "{} gave {} outputs for {} pointers",
                        func.c_name(*fty),
                        stored.len(),
                        ptrs.len()
                    )));
                }
                // glibc writes its outputs in parameter order (after computing them all).
                for ((v, p), slot) in stored.into_iter().zip(ptrs).zip(func.outputs()) {
                    let Some(v) = v else { continue };
                    let ty = match slot {
                        OutSlot::Float => ScalarTy::Float(*fty),
                        OutSlot::I32 => ScalarTy::Int(32),
                    };
                    self.memory
                        .store(&mut self.domain, p, Cell::Scalar(ty, v))?;
                }
                match ret {
                    Some(r) => Reg::Scalar(r),
                    None => return Ok(()),
                }
            }
            Op::Reduce {
                op,
                fty,
                start,
                v,
                ordered,
                fmf,
                site,
            } => {
                let lanes: Lanes<D::Scalar> = as_lanes(get(*v)?)?.iter().cloned().collect();
                let start = match start {
                    Some(s) => Some(match get(*s)? {
                        Reg::Scalar(x) => x.clone(),
                        _ => return Err(WalkError::unsupported("vector reduction start value")),
                    }),
                    None => None,
                };
                Reg::Scalar(self.reduce(*op, *fty, start, lanes, *ordered, *fmf, *site)?)
            }
            Op::IAbs { width, ty, a } => {
                self.map1_lanes(*ty, get(*a)?, |d, x, _| d.iabs(*width, x))?
            }
            Op::ICmpPtr { pred, a, b } => {
                let pa = self.ptr_of(get(*a)?)?;
                let pb = self.ptr_of(get(*b)?)?;
                Reg::Scalar(
                    self.domain
                        .constant(ScalarTy::Int(1), u64::from(ptr_cmp(*pred, pa, pb))),
                )
            }
            Op::Alloca { size } => {
                let p = self.memory.alloc_named("alloca", (*size).max(1), true);
                frame.allocas.push(p.obj);
                Reg::Ptr(p)
            }
            Op::Memcpy { dst, src, len } => {
                let d = self.ptr_of(get(*dst)?)?;
                let s = self.ptr_of(get(*src)?)?;
                let n = self.uint_of(get(*len)?, 64)?;
                self.memory.copy(&mut self.domain, d, s, n)?;
                return Ok(());
            }
            Op::Memset { dst, byte, len } => {
                let d = self.ptr_of(get(*dst)?)?;
                let b = self.uint_of(get(*byte)?, 8)? as u8;
                let n = self.uint_of(get(*len)?, 64)?;
                self.memory.fill(&mut self.domain, d, b, n)?;
                return Ok(());
            }
            Op::Heap { op, args } => {
                let mut argv: SmallVec<[Reg<D::Scalar>; 2]> = SmallVec::new();
                for a in args.iter() {
                    argv.push(get(*a)?.clone());
                }
                match self.heap(*op, &argv)? {
                    Some(p) => Reg::Ptr(p),
                    None => return Ok(()),
                }
            }
            Op::Fail(i) => return Err(code.bad[*i as usize].clone()),
            Op::Call { .. } | Op::CallIndirect { .. } | Op::External(_) => {
                unreachable!("calls are handled by the run loop")
            }
            _ => unreachable!("handled by exec"),
        };
        set(frame, inst.dest, result);
        Ok(())
    }

    /// `malloc`, `calloc`, `realloc` or `free` on the walk's memory; the pointer returned
    /// (`None` for `free`). Sizes must be concrete: a size that depends on symbolic input
    /// fails this path only. Allocation failure is not modelled (glibc returns NULL only
    /// when the system is out of memory, and the sizes here are concrete and small; sizes
    /// beyond the memory's limit are refused as unsupported instead), except for
    /// `calloc`'s `count * size` overflowing, where glibc deterministically returns NULL.
    #[inline(never)]
    fn heap(&mut self, op: HeapOp, args: &[Reg<D::Scalar>]) -> DResult<Option<Ptr>> {
        let size_arg = |w: &mut Self, i: usize| -> DResult<u64> {
            let Some(Reg::Scalar(s)) = args.get(i) else {
                return Err(WalkError::unsupported(format!(
                    "argument {} of {} is not a size",
                    i + 1,
                    op.c_name()
                )));
            };
            w.domain.concretize(s, ScalarTy::Int(64)).map_err(|_| {
                WalkError::unsupported(format!(
                    "the size given to {} depends on symbolic input",
                    op.c_name()
                ))
            })
        };
        let ptr_arg = |w: &mut Self| -> DResult<Ptr> {
            match args.first() {
                Some(r) => w.ptr_of(r),
                None => Err(WalkError::unsupported(format!(
                    "{} without a pointer",
                    op.c_name()
                ))),
            }
        };
        Ok(match op {
            HeapOp::Malloc => {
                let size = size_arg(self, 0)?;
                Some(self.memory.heap_alloc(size)?)
            }
            HeapOp::Calloc => {
                let (count, size) = (size_arg(self, 0)?, size_arg(self, 1)?);
                match count.checked_mul(size) {
                    Some(bytes) => Some(self.memory.heap_alloc_zeroed(&mut self.domain, bytes)?),
                    // glibc's calloc fails (NULL, ENOMEM) when the product overflows.
                    None => Some(Ptr::NULL),
                }
            }
            HeapOp::Realloc => {
                let old = ptr_arg(self)?;
                let size = size_arg(self, 1)?;
                Some(self.memory.heap_realloc(&mut self.domain, old, size)?)
            }
            HeapOp::Free => {
                let p = ptr_arg(self)?;
                self.memory.heap_free(p)?;
                None
            }
        })
    }

    /// `select` on anything but three scalars.
    #[inline(never)]
    fn select_other(
        &mut self,
        ty: Type,
        c: &Reg<D::Scalar>,
        va: &Reg<D::Scalar>,
        vb: &Reg<D::Scalar>,
    ) -> DResult<Reg<D::Scalar>> {
        Ok(match (c, va, vb) {
            (Reg::Scalar(c), Reg::Ptr(pa), Reg::Ptr(pb)) => match self.domain.decide(c)? {
                Decision::Known(t) => Reg::Ptr(if t { *pa } else { *pb }),
                Decision::Both => {
                    return Err(WalkError::unsupported(
                        "select between pointers on a symbolic condition",
                    ))
                }
            },
            (Reg::Scalar(c), Reg::Scalar(x), Reg::Scalar(y)) => {
                Reg::Scalar(self.domain.select(c, x, y)?)
            }
            (Reg::Scalar(c), Reg::Vector(x), Reg::Vector(y)) => {
                let mut out = Lanes::new();
                for (x, y) in x.iter().zip(y) {
                    out.push(self.domain.select(c, x, y)?);
                }
                pack(ty, out)
            }
            (Reg::Vector(c), Reg::Vector(x), Reg::Vector(y)) => {
                let mut out = Lanes::new();
                for (c, (x, y)) in c.iter().zip(x.iter().zip(y)) {
                    out.push(self.domain.select(c, x, y)?);
                }
                pack(ty, out)
            }
            _ => return Err(WalkError::unsupported("select with mismatched operands")),
        })
    }

    #[inline(never)]
    fn map1_lanes(
        &mut self,
        ty: Type,
        a: &Reg<D::Scalar>,
        mut f: impl FnMut(&mut D, &D::Scalar, u32) -> DResult<D::Scalar>,
    ) -> DResult<Reg<D::Scalar>> {
        match a {
            Reg::Scalar(x) => Ok(Reg::Scalar(f(&mut self.domain, x, 0)?)),
            Reg::Vector(xs) => {
                let mut out = Lanes::new();
                for (i, x) in xs.iter().enumerate() {
                    out.push(f(&mut self.domain, x, i as u32)?);
                }
                Ok(pack(ty, out))
            }
            Reg::Ptr(_) => Err(WalkError::unsupported("arithmetic on a pointer")),
        }
    }

    #[inline(never)]
    fn map2_lanes(
        &mut self,
        a: &Reg<D::Scalar>,
        b: &Reg<D::Scalar>,
        mut f: impl FnMut(&mut D, &D::Scalar, &D::Scalar, u32) -> DResult<D::Scalar>,
    ) -> DResult<Reg<D::Scalar>> {
        match (a, b) {
            (Reg::Vector(xs), Reg::Vector(ys)) if xs.len() == ys.len() => {
                let mut out = Lanes::new();
                for (i, (x, y)) in xs.iter().zip(ys).enumerate() {
                    out.push(f(&mut self.domain, x, y, i as u32)?);
                }
                Ok(Reg::Vector(out))
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
        mut lanes: Lanes<D::Scalar>,
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
            let mut next = Lanes::with_capacity(half);
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

    #[inline]
    fn cast(
        &mut self,
        v: &Reg<D::Scalar>,
        op: CastOp,
        from: Type,
        to: Type,
        site: Option<FpOpId>,
    ) -> DResult<Reg<D::Scalar>> {
        match op {
            CastOp::PtrToInt => {
                let p = match v {
                    Reg::Ptr(p) => *p,
                    _ => return Err(WalkError::unsupported("ptrtoint of a non-pointer")),
                };
                let w = int_width(to)?;
                return Ok(Reg::Scalar(
                    self.domain
                        .constant(ScalarTy::Int(w), truncate_bits(p.to_int(), w)),
                ));
            }
            CastOp::IntToPtr => return Ok(Reg::Ptr(self.ptr_of(v)?)),
            CastOp::BitCast if from == Type::PTR || to == Type::PTR => return Ok(v.clone()),
            _ => {}
        }
        let (fl, fn_) = from
            .lanes()
            .ok_or_else(|| WalkError::unsupported("cast from void"))?;
        let (tl, tn) = to
            .lanes()
            .ok_or_else(|| WalkError::unsupported("cast to void"))?;
        let xs: &[D::Scalar] = match v {
            Reg::Scalar(s) => std::slice::from_ref(s),
            Reg::Vector(xs) => xs,
            Reg::Ptr(_) => return Err(WalkError::unsupported("numeric cast of a pointer")),
        };
        if op == CastOp::BitCast && fn_ != tn {
            return self.bitcast_relanes(xs, fl, tl, tn, to);
        }
        let conv = |d: &mut D, x: &D::Scalar, lane: u32| match site {
            Some(site) => d.fcast(op, fl, tl, x, OpSite { op: site, lane }),
            None => d.icast(op, fl, tl, x),
        };
        if let (Reg::Scalar(x), false) = (v, to.is_vector()) {
            return Ok(Reg::Scalar(conv(&mut self.domain, x, 0)?));
        }
        let mut out = Lanes::with_capacity(xs.len());
        for (i, x) in xs.iter().enumerate() {
            out.push(conv(&mut self.domain, x, i as u32)?);
        }
        Ok(pack(to, out))
    }

    /// A bitcast that changes the lane count, e.g. `<2 x float>` to `double`: needs
    /// concrete bits.
    fn bitcast_relanes(
        &mut self,
        xs: &[D::Scalar],
        fl: ScalarTy,
        tl: ScalarTy,
        tn: u32,
        to: Type,
    ) -> DResult<Reg<D::Scalar>> {
        let fbits = fl.store_size() * 8;
        let tbits = tl.store_size() * 8;
        let mut bytes: Vec<u8> = Vec::with_capacity(xs.len() * fbits as usize / 8);
        for x in xs {
            let b = self.domain.concrete_bits(x).ok_or_else(|| {
                WalkError::unsupported("bitcast changing lane count on a symbolic value")
            })?;
            bytes.extend_from_slice(&b.to_le_bytes()[..(fbits / 8) as usize]);
        }
        let mut out = Lanes::with_capacity(tn as usize);
        for chunk in bytes.chunks((tbits / 8) as usize) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            out.push(self.domain.constant(tl, u64::from_le_bytes(buf)));
        }
        Ok(pack(to, out))
    }

    fn load(&mut self, p: Ptr, ty: Type) -> DResult<Reg<D::Scalar>> {
        match ty {
            Type::Scalar(s) => match self.memory.load(&mut self.domain, p, s)? {
                Cell::Scalar(_, v) => Ok(Reg::Scalar(v)),
                Cell::Ptr(q) => Ok(Reg::Ptr(q)),
            },
            Type::Vector(s, n) => {
                let mut out = Lanes::with_capacity(n as usize);
                for i in 0..n {
                    match self.memory.load(
                        &mut self.domain,
                        p.add(i64::from(i) * store_size(s) as i64),
                        s,
                    )? {
                        Cell::Scalar(_, v) => out.push(v),
                        Cell::Ptr(_) => return Err(WalkError::unsupported("vector of pointers")),
                    }
                }
                Ok(Reg::Vector(out))
            }
            Type::Void => Err(WalkError::unsupported("load of void")),
        }
    }

    fn store(&mut self, p: Ptr, ty: Type, v: &Reg<D::Scalar>) -> DResult<()> {
        match (ty, v) {
            (Type::Scalar(s), Reg::Scalar(x)) => {
                self.memory
                    .store(&mut self.domain, p, Cell::Scalar(s, x.clone()))
            }
            (Type::Scalar(_), Reg::Ptr(q)) => self.memory.store(&mut self.domain, p, Cell::Ptr(*q)),
            (Type::Vector(s, _), Reg::Vector(xs)) => {
                for (i, x) in xs.iter().enumerate() {
                    self.memory.store(
                        &mut self.domain,
                        p.add(i as i64 * store_size(s) as i64),
                        Cell::Scalar(s, x.clone()),
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

/// Writes an instruction's result to its slot (if it has one).
#[inline(always)]
fn set<S>(frame: &mut Frame<S>, dest: u32, v: Reg<S>) {
    if dest != NO_DEST {
        frame.values[dest as usize] = Some(v);
    }
}

fn pack<S>(ty: Type, mut lanes: Lanes<S>) -> Reg<S> {
    if ty.is_vector() {
        Reg::Vector(lanes)
    } else {
        Reg::Scalar(lanes.pop().expect("scalar result"))
    }
}

/// The lanes of a numeric value (a scalar is one lane).
#[inline]
fn as_lanes<S>(v: &Reg<S>) -> DResult<&[S]> {
    match v {
        Reg::Scalar(s) => Ok(std::slice::from_ref(s)),
        Reg::Vector(xs) => Ok(xs),
        Reg::Ptr(_) => Err(WalkError::unsupported(
            "pointer where a number was expected",
        )),
    }
}

fn int_width(ty: Type) -> DResult<u32> {
    match ty.lanes() {
        Some((ScalarTy::Int(w), _)) => Ok(w),
        _ => Err(WalkError::unsupported(format!("integer op on {ty}"))),
    }
}

pub(crate) fn ptr_cmp(pred: ICmpPred, a: Ptr, b: Ptr) -> bool {
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
