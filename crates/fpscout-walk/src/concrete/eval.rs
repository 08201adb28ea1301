//! One concrete evaluation of a function on given argument bits, as the CLI, the
//! cross-checks and the searches of later issues need it.

use super::compiled::Compiled;
use super::{Concrete, Event, FpMode};
use crate::code::Reg;
use crate::memory::Ptr;
use crate::walker::{Outcome, StopReason, Val, WalkConfig, Walker};
use crate::{DResult, WalkError};
use fpscout_ir::kernel::{KernelExit, NativeKernel};
use fpscout_ir::{ExceptionSet, FuncId, Module, ProgramEnd, ScalarTy, SourceLoc, Type};

/// An argument value by its bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ArgBits {
    /// A float or integer scalar (f32 bits in the low 32; integers zero-extended).
    Scalar(u64),
    /// A buffer of elements of the parameter's pointee type.
    Array(Vec<u64>),
}

/// How a concrete evaluation ended.
#[derive(Clone, Debug, PartialEq)]
pub enum EvalEnd {
    /// Returned; `None` for void functions.
    Returned(Option<u64>),
    /// What natively is a crash (integer division by zero, bad memory access).
    Trapped(String),
    Stopped(StopReason),
    /// The program ended (`exit`, `abort`, a failed `assert`) at `loc`.
    Ended {
        end: ProgramEnd,
        loc: Option<SourceLoc>,
    },
}

/// Result of one concrete evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub end: EvalEnd,
    /// Exception events in execution order (inexact only when recorded).
    pub events: Vec<Event>,
    /// Union of every flag raised, inexact included.
    pub flags: ExceptionSet,
    /// Final contents of array arguments, in parameter order.
    pub arrays: Vec<Vec<u64>>,
    /// Choice points met: operations whose machine-code result the IR does not determine
    /// (e.g. which of two NaN operands an `addsd` returns). The native program made one
    /// of the `2^choice_points` combinations; [`ConcreteRunner::set_choices`] replays others.
    pub choice_points: u32,
}

impl Evaluation {
    pub fn result_bits(&self) -> Option<u64> {
        match self.end {
            EvalEnd::Returned(r) => r,
            _ => None,
        }
    }
}

/// A walker set up for repeated concrete evaluations of one function.
pub struct ConcreteRunner<'m> {
    walker: Walker<'m, Concrete>,
    func: FuncId,
    /// Argument values of the current evaluation (kept to reuse the allocation).
    args: Vec<Reg<u64>>,
    /// Array arguments of the current evaluation: pointer, element type, length.
    arrays: Vec<(Ptr, ScalarTy, usize)>,
    /// The function compiled for the fast path, when it computes on numbers only.
    compiled: Option<Compiled>,
    /// Evaluations left that read flags per operation from the start instead of being
    /// redone when something worth an event was raised (see [`ConcreteRunner::eval_direct`]).
    checked_runs: u32,
    /// Machine code for the unchecked fast path (see [`ConcreteRunner::set_native_kernel`]).
    kernel: Option<Kernel>,
    /// Arguments of the current evaluation for the kernel, when it may run.
    kernel_args: Vec<u64>,
    /// Evaluations the kernel answered.
    kernel_runs: u64,
    /// Of those, the ones its counting variant answered (inexact counted, not read).
    kernel_counted_runs: u64,
    /// When set, the step budget follows the longest evaluation that ended.
    adaptive: Option<AdaptiveSteps>,
}

/// A step budget that adapts to the program: `factor` times the longest evaluation seen
/// that returned or ended the program, never below `floor` nor above `ceiling` (the
/// budget until one is seen). An input that does not terminate then costs a small
/// multiple of an ordinary evaluation, not the ceiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdaptiveSteps {
    pub factor: u64,
    pub floor: u64,
    pub ceiling: u64,
    /// Steps of the longest finished evaluation so far.
    pub longest: u64,
}

impl AdaptiveSteps {
    /// 64 times the longest, between 100,000 and `ceiling` steps.
    pub fn up_to(ceiling: u64) -> AdaptiveSteps {
        AdaptiveSteps {
            factor: 64,
            floor: 100_000.min(ceiling),
            ceiling,
            longest: 0,
        }
    }

    /// The budget after a finished evaluation of `steps` steps.
    fn observe(&mut self, steps: u64) -> u64 {
        self.longest = self.longest.max(steps);
        self.longest
            .saturating_mul(self.factor)
            .clamp(self.floor, self.ceiling)
    }
}

/// A native kernel with what calling it needs from the function.
struct Kernel {
    code: NativeKernel,
    params: Box<[ScalarTy]>,
    returns_value: bool,
}

/// Steps the fast paths (kernel, compiled) may take when a deadline is set: they do not
/// look at the clock, so a longer evaluation restarts on the walker, which does.
const FAST_PATH_STEPS_BEFORE_DEADLINE_CHECKS: u64 = 20_000_000;

fn fast_path_budget(config: &WalkConfig) -> u64 {
    match config.deadline {
        Some(_) => config
            .step_budget
            .min(FAST_PATH_STEPS_BEFORE_DEADLINE_CHECKS),
        None => config.step_budget,
    }
}

/// Evaluations that read flags per operation after one had to be redone doing so.
const CHECKED_AFTER_REDO: u32 = 16;

impl<'m> ConcreteRunner<'m> {
    pub fn new(
        module: &'m Module,
        func: FuncId,
        mode: FpMode,
        config: WalkConfig,
    ) -> DResult<Self> {
        let walker = Walker::new(module, Concrete::new(mode), config)?;
        let compiled = Compiled::new(module, func, &walker.domain, walker.global_ptrs());
        Ok(ConcreteRunner {
            walker,
            func,
            args: Vec::new(),
            arrays: Vec::new(),
            compiled,
            checked_runs: 0,
            kernel: None,
            kernel_args: Vec::new(),
            kernel_runs: 0,
            kernel_counted_runs: 0,
            adaptive: None,
        })
    }

    /// Lets the step budget adapt to the evaluations seen (see [`AdaptiveSteps`]); the
    /// budget starts at its ceiling.
    pub fn adapt_step_budget(&mut self, adaptive: AdaptiveSteps) {
        self.walker.config.step_budget = adaptive.ceiling;
        self.adaptive = Some(adaptive);
    }

    /// The step budget the next evaluation runs with.
    pub fn step_budget(&self) -> u64 {
        self.walker.config.step_budget
    }

    /// Evaluations still running at `deadline` stop with `StopReason::Deadline`.
    pub fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.walker.config.deadline = deadline;
    }

    /// Lets evaluations run `kernel`, machine code of this function (built by
    /// `fpscout_llvm::native_kernel`), instead of interpreting. It runs only evaluations
    /// whose arguments are numbers and not NaNs, outside inexact recording, and its answer
    /// stands only when nothing but inexact was raised, as for the interpreted fast path;
    /// everything else is interpreted. Ignored for functions with non-number parameters.
    pub fn set_native_kernel(&mut self, kernel: NativeKernel) {
        let f = self.walker.module.function(self.func);
        let params: Option<Box<[ScalarTy]>> = f
            .params
            .iter()
            .map(|p| match p.ty {
                Type::Scalar(s @ (ScalarTy::Int(_) | ScalarTy::Float(_))) => Some(s),
                _ => None,
            })
            .collect();
        if let Some(params) = params {
            if kernel.params() == params.len() {
                self.kernel = Some(Kernel {
                    code: kernel,
                    params,
                    returns_value: f.ret != Type::Void,
                });
            }
        }
    }

    /// Whether evaluations may run native kernel code.
    pub fn has_native_kernel(&self) -> bool {
        self.kernel.is_some()
    }

    /// How many evaluations the native kernel answered so far.
    pub fn native_kernel_runs(&self) -> u64 {
        self.kernel_runs
    }

    /// How many of [`ConcreteRunner::native_kernel_runs`] the kernel's counting variant
    /// answered (its own count of inexact operations standing for the flag).
    pub fn native_kernel_counted_runs(&self) -> u64 {
        self.kernel_counted_runs
    }

    /// Sends every evaluation to the walker (tests compare both paths).
    #[cfg(test)]
    pub(crate) fn without_fast_path(&mut self) {
        self.compiled = None;
    }

    /// Whether evaluations take the compiled fast path.
    #[cfg(test)]
    pub(crate) fn has_fast_path(&self) -> bool {
        self.compiled.is_some()
    }

    /// Watches every later evaluation for the first operation whose fast-math `nnan` or
    /// `ninf` assumption a NaN or an infinity breaks (see
    /// [`ConcreteRunner::broken_assumption`]). Evaluations then take the walker only: the
    /// fast paths do not watch.
    pub fn watch_fast_math_assumptions(&mut self) {
        let fmf = self.walker.module.fp_ops.iter().map(|o| o.fmf).collect();
        self.walker.domain.assumptions = Some(Box::new(super::AssumptionWatch::new(fmf)));
        self.compiled = None;
        self.kernel = None;
    }

    /// The first broken fast-math assumption of the last evaluation, when watching.
    pub fn broken_assumption(&self) -> Option<super::AssumptionBroken> {
        self.walker.domain.assumptions.as_ref()?.first
    }

    /// Also record inexact events (the flag union always has it).
    pub fn record_inexact(&mut self, on: bool) {
        self.walker.domain.record_inexact = on;
    }

    /// Answers for the choice points of the next evaluations, in the order they are met
    /// (unlisted ones take `false`, the IR's own operand order).
    pub fn set_choices(&mut self, choices: Vec<bool>) {
        self.walker.domain.choices = choices;
    }

    /// Whether `flags` includes inexact (default on). Off is much faster for searches
    /// that ignore inexact: no MXCSR reload between evaluations.
    pub fn track_inexact(&mut self, on: bool) {
        self.walker.domain.track_inexact = on;
    }

    /// Evaluates many inputs, entering the floating-point mode once for the whole batch.
    pub fn eval_batch(&mut self, inputs: &[Vec<ArgBits>]) -> Vec<DResult<Evaluation>> {
        crate::Domain::begin_walk(&mut self.walker.domain);
        let mut out = Vec::with_capacity(inputs.len());
        for args in inputs {
            out.push(self.eval_in_walk(args));
        }
        crate::Domain::end_walk(&mut self.walker.domain);
        out
    }

    /// Evaluates the function on `args`. Errors are only for unsupported constructs and
    /// arguments that do not fit; traps and budgets are part of the [`Evaluation`].
    pub fn eval(&mut self, args: &[ArgBits]) -> DResult<Evaluation> {
        crate::Domain::begin_walk(&mut self.walker.domain);
        let out = self.eval_in_walk(args);
        crate::Domain::end_walk(&mut self.walker.domain);
        out
    }

    /// [`ConcreteRunner::eval`] inside a walk the caller began.
    #[inline]
    fn eval_in_walk(&mut self, args: &[ArgBits]) -> DResult<Evaluation> {
        let out = match self.kernel.is_some() {
            true => match self.eval_kernel(args) {
                Some(done) => Ok(done),
                None => self.eval_interpreted(args),
            },
            false => self.eval_interpreted(args),
        };
        if let (Some(a), Ok(e)) = (self.adaptive.as_mut(), &out) {
            if matches!(e.end, EvalEnd::Returned(_) | EvalEnd::Ended { .. }) {
                self.walker.config.step_budget = a.observe(self.walker.steps);
            }
        }
        out
    }

    /// [`ConcreteRunner::eval_in_walk`] without a kernel: apart, so the kernel's path
    /// does not pay for the interpreter's large stack frame.
    #[inline(never)]
    fn eval_interpreted(&mut self, args: &[ArgBits]) -> DResult<Evaluation> {
        // Numbers only: the fast path takes the bits directly (no argument values).
        let direct = match self.compiled.as_mut() {
            Some(c) => c.set_scalar_args(&self.walker.domain, args),
            None => false,
        };
        if direct {
            if let Some(done) = self.eval_direct() {
                return Ok(done);
            }
        }
        self.walker.reset();
        self.walker.domain.clear();
        let module = self.walker.module;
        let f = module.function(self.func);
        if args.len() != f.params.len() {
            return Err(WalkError::BadArguments(format!(
                "{} takes {} arguments, {} given",
                f.display_name,
                f.params.len(),
                args.len()
            )));
        }
        let mut vals = std::mem::take(&mut self.args);
        vals.clear();
        let mut arrays = std::mem::take(&mut self.arrays);
        arrays.clear();
        if let Err(e) = self.fill_args(args, &mut vals, &mut arrays) {
            self.args = vals;
            self.arrays = arrays;
            return Err(e);
        }
        let prepared = !direct
            && match self.compiled.as_mut() {
                Some(c) => c.set_params(&vals).is_ok(),
                None => false,
            };
        let fast = if prepared { self.run_compiled() } else { None };
        let run = match fast {
            Some(done) => Ok(done),
            None => {
                if prepared {
                    // The walker starts afresh: same memory and arguments as before.
                    self.walker.reset();
                    self.walker.domain.clear();
                    vals.clear();
                    arrays.clear();
                    if let Err(e) = self.fill_args(args, &mut vals, &mut arrays) {
                        self.args = vals;
                        self.arrays = arrays;
                        return Err(e);
                    }
                }
                self.walker.run_regs(self.func, vals.iter().cloned())
            }
        };
        self.args = vals;
        self.finish(run, arrays)
    }

    /// The evaluation by the native kernel, reading flags once; `None` when it may not run
    /// (a NaN or non-number argument, flags read per operation) or its outcome does not
    /// stand (something worth an event was raised, a restart): then the interpreter
    /// evaluates, and after a raised flag reads flags per operation for a while.
    #[inline]
    fn eval_kernel(&mut self, args: &[ArgBits]) -> Option<Evaluation> {
        let kernel = self.kernel.as_ref()?;
        if self.checked_runs > 0 || args.len() != kernel.params.len() {
            return None;
        }
        self.kernel_args.clear();
        for (&ty, a) in kernel.params.iter().zip(args) {
            let ArgBits::Scalar(bits) = *a else {
                return None;
            };
            let bits = crate::Domain::constant(&self.walker.domain, ty, bits);
            // A kernel must not see a NaN (see `fpscout_ir::kernel`).
            if matches!(ty, ScalarTy::Float(f) if super::is_nan(f, bits)) {
                return None;
            }
            self.kernel_args.push(bits);
        }
        let budget = fast_path_budget(&self.walker.config);
        let domain = &mut self.walker.domain;
        domain.clear();
        if kernel.code.counts_inexact() && domain.inexact_countable() {
            domain.start_counted();
            if let Some((exit, inexact)) =
                kernel.code.run_counting_inexact(&self.kernel_args, budget)
            {
                if domain.finish_counted(inexact) {
                    return self.kernel_answer(exit, true);
                }
            }
            // A flag worth an event, or INVALID from the count's own arithmetic on an
            // infinity: the plain kernel, with the flags cleared, decides.
            domain.clear();
        }
        if !domain.start_unchecked(true) {
            // Inexact events are recorded: the kernel cannot name their operations.
            return None;
        }
        let exit = kernel.code.run(&self.kernel_args, budget);
        if !domain.finish_unchecked() {
            self.checked_runs = CHECKED_AFTER_REDO;
            return None;
        }
        self.kernel_answer(exit, false)
    }

    /// The evaluation a kernel run that stands gives (`None` for a restart).
    #[inline]
    fn kernel_answer(&mut self, exit: KernelExit, counted: bool) -> Option<Evaluation> {
        let KernelExit::Returned { bits, steps } = exit else {
            return None;
        };
        let returns_value = self.kernel.as_ref()?.returns_value;
        self.kernel_runs += 1;
        self.kernel_counted_runs += u64::from(counted);
        self.walker.steps = steps;
        Some(Evaluation {
            end: EvalEnd::Returned(returns_value.then_some(bits)),
            events: Vec::new(),
            flags: self.walker.domain.flags,
            arrays: Vec::new(),
            choice_points: 0,
        })
    }

    /// The evaluation on the compiled fast path of a function whose parameters, all
    /// numbers, are already in its registers; `None` when the walker must redo it.
    fn eval_direct(&mut self) -> Option<Evaluation> {
        let compiled = self.compiled.as_mut()?;
        let walker = &mut self.walker;
        // The run reads no memory when it has no memory steps, and what an earlier
        // evaluation left there is restored before anything else reads it.
        if compiled.uses_memory() {
            walker.reset();
        }
        let domain = &mut walker.domain;
        domain.clear();
        let unchecked = domain.start_unchecked(self.checked_runs == 0);
        self.checked_runs = self.checked_runs.saturating_sub(1);
        let budget = fast_path_budget(&walker.config);
        let mut run = compiled.run(domain, &mut walker.memory, budget);
        if !domain.finish_unchecked() && unchecked && run.is_ok() {
            // Something raised a flag worth an event: again, reading flags per operation.
            // Inputs that raise one tend to come in runs (a search near an exception,
            // `log` of negative numbers): the next evaluations read flags right away.
            self.checked_runs = CHECKED_AFTER_REDO;
            if compiled.uses_memory() {
                walker.reset();
            }
            let domain = &mut walker.domain;
            domain.clear();
            domain.start_eval();
            run = compiled.run(domain, &mut walker.memory, budget);
            domain.finish_eval();
        }
        let domain = &mut walker.domain;
        let (ret, steps) = run.ok()?;
        walker.steps = steps;
        Some(Evaluation {
            end: EvalEnd::Returned(ret),
            events: domain.events.clone(),
            flags: domain.flags,
            arrays: Vec::new(),
            choice_points: domain.choice_points,
        })
    }

    /// The evaluation of a run: its end, events, flags and the final array contents.
    fn finish(
        &mut self,
        run: DResult<Outcome<u64>>,
        arrays: Vec<(Ptr, ScalarTy, usize)>,
    ) -> DResult<Evaluation> {
        let end = match run {
            Ok(Outcome::Returned(None)) => EvalEnd::Returned(None),
            Ok(Outcome::Returned(Some(Val::Scalar(bits)))) => EvalEnd::Returned(Some(bits)),
            Ok(Outcome::Returned(Some(_))) => {
                return Err(WalkError::unsupported(
                    "functions returning vectors or pointers",
                ))
            }
            Ok(Outcome::Stopped(r)) => EvalEnd::Stopped(r),
            Ok(Outcome::Ended { end, loc }) => EvalEnd::Ended { end, loc },
            Err(WalkError::Trap { what, loc }) => EvalEnd::Trapped(match loc {
                Some(l) => format!("{what} at {l}"),
                None => what,
            }),
            Err(e) => return Err(e),
        };
        let mut finals = Vec::with_capacity(arrays.len());
        if matches!(end, EvalEnd::Returned(_) | EvalEnd::Ended { .. }) {
            for &(ptr, ty, n) in &arrays {
                finals.push(self.walker.read_array(ptr, ty, n)?);
            }
        }
        // Keeps the larger allocation for the next evaluation.
        if arrays.capacity() >= self.arrays.capacity() {
            self.arrays = arrays;
        }
        let domain = &mut self.walker.domain;
        Ok(Evaluation {
            end,
            events: domain.events.clone(),
            flags: domain.flags,
            arrays: finals,
            choice_points: domain.choice_points,
        })
    }

    /// The run on the compiled fast path, its parameters set; `None` when there is none
    /// or the walker must redo it.
    fn run_compiled(&mut self) -> Option<Outcome<u64>> {
        let compiled = self.compiled.as_mut()?;
        let walker = &mut self.walker;
        walker.domain.start_eval();
        let run = compiled.run(
            &mut walker.domain,
            &mut walker.memory,
            fast_path_budget(&walker.config),
        );
        walker.domain.finish_eval();
        let (ret, steps) = run.ok()?;
        walker.steps = steps;
        Some(Outcome::Returned(ret.map(Val::Scalar)))
    }

    /// Turns the argument bits into values, placing arrays in memory.
    fn fill_args(
        &mut self,
        args: &[ArgBits],
        vals: &mut Vec<Reg<u64>>,
        arrays: &mut Vec<(Ptr, ScalarTy, usize)>,
    ) -> DResult<()> {
        let f = self.walker.module.function(self.func);
        for (p, a) in f.params.iter().zip(args) {
            match (p.ty, a) {
                (Type::Scalar(ScalarTy::Ptr), ArgBits::Array(elems)) => {
                    let ty = p
                        .pointee
                        .unwrap_or(ScalarTy::Float(fpscout_ir::FloatTy::F64));
                    let width = (ty.store_size() * 8) as u32;
                    let ptr = self.walker.alloc_array_from(
                        &p.name,
                        ty,
                        elems.len(),
                        elems.iter().map(|&b| fpscout_ir::truncate_bits(b, width)),
                    )?;
                    arrays.push((ptr, ty, elems.len()));
                    vals.push(Reg::Ptr(ptr));
                }
                (
                    Type::Scalar(s @ (ScalarTy::Int(_) | ScalarTy::Float(_))),
                    ArgBits::Scalar(bits),
                ) => {
                    vals.push(Reg::Scalar(crate::Domain::constant(
                        &self.walker.domain,
                        s,
                        *bits,
                    )));
                }
                (ty, _) => {
                    return Err(WalkError::BadArguments(format!(
                        "parameter '{}' of type {ty}{} cannot take {}",
                        p.name,
                        if p.ty == Type::PTR { " (array)" } else { "" },
                        match a {
                            ArgBits::Array(_) => "an array",
                            ArgBits::Scalar(_) => "a scalar",
                        }
                    )))
                }
            }
        }
        Ok(())
    }
}
