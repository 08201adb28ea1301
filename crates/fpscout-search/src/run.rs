//! `fpscout run`: evaluate one input on P and P' with the interpreter, replay it natively,
//! and say whether the two agree.

use crate::executable::Executable;
use crate::session::{FtzDazChoice, Session};
use crate::trace::{compare_traces, interpreter_steps, native_steps, TraceMatch};
use crate::InputError;
use fpscout_ir::{ExceptionSet, FloatTy, Module, ProgramEnd, ScalarTy, SourceLoc, Type};
use fpscout_native::{NativeArg, NativeOutcome, NativeTrace};
use fpscout_report::args::{decimal, hex_float, parse_args};
use fpscout_toolchain::BuildKind;
use fpscout_walk::concrete::{ArgBits, ConcreteRunner, EvalEnd, Evaluation, FpMode};
use fpscout_walk::memory::out_of_bounds_object;
use fpscout_walk::WalkConfig;
use serde::Serialize;
use std::time::{Duration, Instant};

/// One exception event, as printed and serialised.
#[derive(Clone, Debug, Serialize)]
pub struct ExceptionRecord {
    pub kind: &'static str,
    /// Stable id of the floating-point operation within the build.
    pub op: u32,
    pub opcode: String,
    pub lane: u32,
    pub function: String,
    pub loc: Option<String>,
}

/// One event of the executable's own trace, per exception kind (inexact is not trapped).
#[derive(Clone, Debug, Serialize)]
pub struct NativeTraceRecord {
    pub kind: &'static str,
    /// Instruction mnemonic (`addpd`), `call exp` for a libm call, `x87` for x87 flags.
    pub insn: String,
    /// Link-time address of the instruction in the executable, hex.
    pub addr: Option<String>,
    pub loc: Option<String>,
}

/// The native trace as records, one per raised kind (inexact excluded).
pub fn native_trace_records(t: &NativeTrace) -> Vec<NativeTraceRecord> {
    t.events
        .iter()
        .flat_map(|e| {
            e.flags
                .without_inexact()
                .iter()
                .map(move |k| NativeTraceRecord {
                    kind: k.name(),
                    insn: e.describe_insn(),
                    addr: e.addr.map(|a| format!("{a:#x}")),
                    loc: e.loc.as_ref().map(|l| l.to_string()),
                })
        })
        .collect()
}

/// Whether an interpreter trap is an access outside an argument buffer: natively the
/// program reads or writes past its buffer and its result means nothing.
pub fn is_out_of_bounds_trap(end: &EvalEnd) -> bool {
    matches!(end, EvalEnd::Trapped(what) if out_of_bounds_object(what).is_some())
}

/// Where an input takes a build outside -ffast-math's assumptions: the first operation
/// whose `nnan`/`ninf` flag a NaN or an infinity meets, whose result LLVM then treats as
/// poison (the machine code may compute anything there).
pub fn fast_math_note(
    module: &Module,
    fid: fpscout_ir::FuncId,
    mode: FpMode,
    args: &[ArgBits],
    deadline: Option<Instant>,
) -> Option<String> {
    FastMathWatch::new(module, fid, mode, deadline)?.note(args)
}

/// A walker watching -ffast-math's assumptions, kept for many inputs (see
/// [`fast_math_note`]).
pub struct FastMathWatch<'m> {
    module: &'m Module,
    runner: ConcreteRunner<'m>,
    /// Every return of the function returns `poison`: the compiler folded it away.
    returns_poison: bool,
}

impl<'m> FastMathWatch<'m> {
    /// Evaluations still running at `deadline` stop there (and note nothing).
    pub fn new(
        module: &'m Module,
        fid: fpscout_ir::FuncId,
        mode: FpMode,
        deadline: Option<Instant>,
    ) -> Option<Self> {
        let config = WalkConfig {
            deadline,
            ..WalkConfig::default()
        };
        let mut runner = ConcreteRunner::new(module, fid, mode, config).ok()?;
        runner.watch_fast_math_assumptions();
        let returns = module
            .function(fid)
            .blocks
            .iter()
            .filter_map(|b| match &b.term {
                fpscout_ir::Terminator::Ret(r) => Some(r),
                _ => None,
            });
        let mut returns = returns.peekable();
        let returns_poison = returns.peek().is_some()
            && returns.all(|r| {
                matches!(
                    r,
                    Some(fpscout_ir::Operand::Const(fpscout_ir::Const::Undef(_)))
                )
            });
        Some(FastMathWatch {
            module,
            runner,
            returns_poison,
        })
    }

    /// Where `args` break an assumption, as a sentence; `None` when they break none.
    pub fn note(&mut self, args: &[ArgBits]) -> Option<String> {
        if self.returns_poison {
            // Folded at compile time: no run of the IR meets the operation that did it.
            return Some(
                "the build returns an unspecified value (poison) for every input: the \
                 compiler folded the function away, every path of it breaking \
                 -ffast-math's assumptions (a NaN or infinity at an nnan/ninf operation)"
                    .into(),
            );
        }
        self.runner.eval(args).ok()?;
        let broken = self.runner.broken_assumption()?;
        let info = self.module.op(broken.site.op);
        let at = info.loc.as_ref().map_or_else(
            || format!("{}#{}", info.opcode, broken.site.op.0),
            |l| l.to_string(),
        );
        Some(format!(
            "input outside -ffast-math's assumptions at {at} ({}: {} {} meets {})",
            broken.flag,
            info.opcode,
            info.fmf,
            if broken.flag == "nnan" {
                "a NaN"
            } else {
                "an infinity"
            }
        ))
    }
}

/// The `run` record of one build (the `data` of a `{"type":"run"}` JSON line).
#[derive(Clone, Debug, Serialize)]
pub struct RunRecord {
    pub build: &'static str,
    pub compiler_flags: String,
    pub function: String,
    pub ftz_daz: bool,
    /// How the interpreter's run ended: `returned`, `ended` (the program: `detail` says
    /// how and where), `trapped` or `stopped`.
    pub end: &'static str,
    pub detail: Option<String>,
    /// Hex float (or integer) result; null for void functions and runs that did not return.
    pub result: Option<String>,
    pub result_decimal: Option<String>,
    pub exceptions: Vec<ExceptionRecord>,
    /// Every flag the interpreter saw raised (inexact included).
    pub flags: Vec<&'static str>,
    /// How the executable's run ended: `returned`, `exits with status 3`, `aborts`,
    /// `crashed (...)`, `did not return within N ms (killed)`...
    pub native_end: String,
    pub native_result: Option<String>,
    pub native_flags: Vec<&'static str>,
    /// The executable's own exception trace, in execution order.
    pub native_trace: Vec<NativeTraceRecord>,
    /// More instructions trapped than were recorded.
    pub native_trace_truncated: bool,
    /// How the interpreter's trace (kind and source line, in order) relates to the
    /// executable's.
    pub trace_match: TraceMatch,
    /// Final array contents (hex), interpreter side, per array parameter.
    pub arrays: Vec<Vec<String>>,
    /// Result, flags, arrays and exception trace agree with the executable.
    pub agrees: bool,
    /// Why the comparison with the executable means nothing (an access outside an
    /// argument buffer).
    pub native_note: Option<String>,
    /// Where the input breaks a fast-math assumption (see [`fast_math_note`]).
    pub fast_math_note: Option<String>,
    /// Functions of this build whose floating-point code LLVM's backend rewrote after
    /// instruction selection in a way fpscout could not model (`name (file:line:col, ...):
    /// reason`): there the interpreter may disagree with the executable.
    pub backend_rewrites: Vec<String>,
}

/// Formats result bits for a return type.
pub fn format_value(bits: u64, ty: Type) -> (String, Option<String>) {
    match ty {
        Type::Scalar(ScalarTy::Float(f)) => (hex_float(bits, f), Some(decimal(bits, f))),
        Type::Scalar(ScalarTy::Int(w)) => {
            let v = fpscout_ir::sign_extend(bits, w);
            (v.to_string(), None)
        }
        _ => (format!("0x{bits:x}"), None),
    }
}

pub fn exception_records(m: &Module, eval: &Evaluation) -> Vec<ExceptionRecord> {
    eval.events
        .iter()
        .map(|e| {
            let info = m.op(e.site.op);
            ExceptionRecord {
                kind: e.kind.name(),
                op: e.site.op.0,
                opcode: info.opcode.clone(),
                lane: e.site.lane,
                function: m.function(info.func).display_name.clone(),
                loc: info.loc.as_ref().map(|l| l.to_string()),
            }
        })
        .collect()
}

/// The native runner's form of interpreter arguments for `f`.
pub fn to_native(f: &fpscout_ir::Function, args: &[ArgBits]) -> Vec<NativeArg> {
    f.params
        .iter()
        .zip(args)
        .map(|(p, a)| match a {
            ArgBits::Scalar(b) if matches!(p.ty, Type::Scalar(ScalarTy::Int(_))) => {
                NativeArg::Int(*b)
            }
            ArgBits::Scalar(b) => NativeArg::Float(*b),
            ArgBits::Array(v) => NativeArg::Array(v.clone()),
        })
        .collect()
}

/// Whether a native outcome matches the interpreter bit for bit (result, all five flags,
/// array contents); a native crash matches an interpreter trap.
pub fn outcomes_agree(eval: &Evaluation, native: &NativeOutcome) -> bool {
    match (&eval.end, native) {
        (
            EvalEnd::Returned(r),
            NativeOutcome::Returned {
                result,
                flags,
                arrays,
            },
        ) => r == result && eval.flags == *flags && &eval.arrays == arrays,
        (
            EvalEnd::Ended { end, .. },
            NativeOutcome::Ended {
                end: native_end,
                flags,
                arrays,
            },
        ) => end == native_end && eval.flags == *flags && &eval.arrays == arrays,
        (EvalEnd::Trapped(_), NativeOutcome::Crashed { .. }) => true,
        (EvalEnd::Stopped(_), NativeOutcome::TimedOut) => true,
        _ => false,
    }
}

/// How many alternative evaluations a choice-point search may try.
pub const MAX_CHOICE_EVALS: usize = 4096;

/// Whether the native outcome is one of the other outcomes the interpreter allows: the
/// evaluation met choice points (e.g. which of two NaN operands an `addsd` returns, which
/// register allocation decides), so the tree of answers is walked depth first. Answers
/// change which choice points come later, so each prefix is extended by the points its
/// own evaluation meets.
pub fn agrees_with_some_choice(
    runner: &mut ConcreteRunner<'_>,
    args: &[ArgBits],
    first: &Evaluation,
    native: &NativeOutcome,
) -> bool {
    // Prefixes still to explore: (answers so far, choice points their evaluation met).
    let extend = |prefix: &[bool], met: u32, stack: &mut Vec<Vec<bool>>| {
        for j in prefix.len()..met as usize {
            let mut p = prefix.to_vec();
            p.resize(j, false);
            p.push(true);
            stack.push(p);
        }
    };
    let mut stack = Vec::new();
    extend(&[], first.choice_points, &mut stack);
    let mut evals = 0;
    let mut found = false;
    while let Some(prefix) = stack.pop() {
        if evals == MAX_CHOICE_EVALS {
            break;
        }
        evals += 1;
        runner.set_choices(prefix.clone());
        let Ok(e) = runner.eval(args) else { continue };
        if outcomes_agree(&e, native) {
            found = true;
            break;
        }
        extend(&prefix, e.choice_points, &mut stack);
    }
    runner.set_choices(Vec::new());
    found
}

/// "exits with status 3 at newton.c:7".
pub fn describe_end(end: &ProgramEnd, loc: Option<&SourceLoc>) -> String {
    match loc {
        Some(l) => format!("{end} at {l}"),
        None => end.to_string(),
    }
}

fn flag_names(s: ExceptionSet) -> Vec<&'static str> {
    s.names()
}

/// What a `run` may spend: everything ends by `deadline`, and an executable is killed
/// after `hang_limit` (or its share of the time left, if less).
#[derive(Clone, Copy, Debug)]
pub struct RunBudget {
    pub deadline: Instant,
    pub hang_limit: Duration,
}

impl RunBudget {
    pub fn starting_now(seconds: f64, hang_limit_ms: u64) -> Result<RunBudget, InputError> {
        if !(seconds.is_finite() && seconds > 0.0) {
            return Err(InputError(format!(
                "--time-budget must be a positive number of seconds, not {seconds}"
            )));
        }
        if hang_limit_ms == 0 {
            return Err(InputError("--hang-limit-ms must be at least 1".into()));
        }
        Ok(RunBudget {
            deadline: Instant::now() + Duration::from_secs_f64(seconds.min(1e9)),
            hang_limit: Duration::from_millis(hang_limit_ms),
        })
    }

    /// The slot of the next of `builds_left` builds: an equal share of the time left.
    fn slot(&self, builds_left: u32) -> BuildSlot {
        let now = Instant::now();
        let share = self.deadline.saturating_duration_since(now) / builds_left.max(1);
        BuildSlot {
            interpretation_until: now + share / 2,
            until: now + share,
            hang_limit: self.hang_limit,
        }
    }
}

/// The time of one build in a `run`: its interpretation stops half way, its executable
/// gets the rest (at most the hang limit).
struct BuildSlot {
    interpretation_until: Instant,
    until: Instant,
    hang_limit: Duration,
}

impl BuildSlot {
    fn native_timeout(&self) -> Duration {
        self.until
            .saturating_duration_since(Instant::now())
            .min(self.hang_limit)
            .max(Duration::from_millis(1))
    }
}

/// Evaluates `args_text` on both builds of `function` and replays it natively.
pub fn run_both(
    session: &Session,
    function: &str,
    args_text: &str,
    choice: FtzDazChoice,
    config: WalkConfig,
    budget: &RunBudget,
) -> Result<Vec<RunRecord>, InputError> {
    let mut records = Vec::new();
    for (build, runs_left) in BuildKind::BOTH.into_iter().zip([2, 1]) {
        let module = session.module(build)?;
        let fid = session.function(build, function)?;
        let f = module.function(fid);
        let args = parse_args(f, args_text).map_err(InputError)?;
        let lens: Vec<Option<usize>> = args
            .iter()
            .map(|a| match a {
                ArgBits::Array(v) => Some(v.len()),
                ArgBits::Scalar(_) => None,
            })
            .collect();
        let exe = Executable::open_with(session, build, fid, &lens, choice, budget.hang_limit)?;
        let mode = exe.mode();
        let mut runner = ConcreteRunner::new(module, fid, mode, config)
            .map_err(|e| InputError(e.to_string()))?;
        runner.record_inexact(true);
        let slot = budget.slot(runs_left);
        runner.set_deadline(Some(slot.interpretation_until));
        let eval = runner
            .eval(&args)
            .map_err(|e| InputError(format!("build {build}: {e}")))?;
        let exe = exe.with_hang_limit(slot.native_timeout());
        let traced = exe
            .traced(std::slice::from_ref(&args), None)?
            .pop()
            .ok_or_else(|| InputError("native run returned no outcome".into()))?;
        let outcome = traced.outcome;
        let trace_match = compare_traces(
            &interpreter_steps(module, &eval),
            &native_steps(&traced.trace),
            traced.trace.truncated,
        );
        let out_of_bounds = is_out_of_bounds_trap(&eval.end);
        let (end, detail) = match &eval.end {
            EvalEnd::Returned(_) => ("returned", None),
            EvalEnd::Trapped(t) => ("trapped", Some(t.clone())),
            EvalEnd::Stopped(r) => ("stopped", Some(r.to_string())),
            EvalEnd::Ended { end, loc } => ("ended", Some(describe_end(end, loc.as_ref()))),
        };
        let (result, result_decimal) = match eval.result_bits() {
            Some(b) => {
                let (h, d) = format_value(b, f.ret);
                (Some(h), d)
            }
            None => (None, None),
        };
        let elem_ty = |i: usize| {
            f.params
                .iter()
                .filter(|p| p.ty == Type::PTR)
                .nth(i)
                .and_then(|p| p.pointee)
        };
        let arrays = eval
            .arrays
            .iter()
            .enumerate()
            .map(|(i, a)| {
                a.iter()
                    .map(|&b| match elem_ty(i) {
                        Some(ScalarTy::Float(ft)) => hex_float(b, ft),
                        Some(ScalarTy::Int(w)) => fpscout_ir::sign_extend(b, w).to_string(),
                        _ => hex_float(b, FloatTy::F64),
                    })
                    .collect()
            })
            .collect();
        let (native_end, native_result, native_flags) = match &outcome {
            NativeOutcome::Returned { result, flags, .. } => (
                "returned".to_string(),
                result.map(|b| format_value(b, f.ret).0),
                flag_names(*flags),
            ),
            NativeOutcome::Ended { end, flags, .. } => (end.to_string(), None, flag_names(*flags)),
            NativeOutcome::Crashed { detail, .. } => (format!("crashed ({detail})"), None, vec![]),
            NativeOutcome::TimedOut => (
                format!(
                    "did not return within {} ms (killed)",
                    exe.options().per_vector_timeout.as_millis()
                ),
                None,
                vec![],
            ),
        };
        records.push(RunRecord {
            build: build.label(),
            compiler_flags: session.flags.compile_flags(build).join(" "),
            function: f.display_name.clone(),
            ftz_daz: mode.ftz,
            end,
            detail,
            result,
            result_decimal,
            exceptions: exception_records(module, &eval),
            flags: flag_names(eval.flags),
            native_end,
            native_result,
            native_flags,
            native_trace: native_trace_records(&traced.trace),
            native_trace_truncated: traced.trace.truncated,
            trace_match,
            arrays,
            agrees: !out_of_bounds
                && trace_match.agrees()
                && (outcomes_agree(&eval, &outcome)
                    || (eval.choice_points > 0
                        && agrees_with_some_choice(&mut runner, &args, &eval, &outcome))),
            native_note: out_of_bounds.then(|| {
                "the input accesses memory outside an argument buffer: natively the program \
                 reads or writes past it, so the native result is meaningless"
                    .to_string()
            }),
            backend_rewrites: session.backend_rewrites(build),
            fast_math_note: fast_math_note(module, fid, mode, &args, Some(slot.until)),
        });
    }
    Ok(records)
}
