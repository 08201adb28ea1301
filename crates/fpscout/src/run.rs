//! `fpscout run`: evaluate one input on P and P' with the interpreter, replay it natively,
//! and say whether the two agree.

use crate::args::{decimal, hex_float, parse_args};
use crate::session::{native_ftz, FtzDazChoice, Session};
use crate::InputError;
use fpscout_ir::{ExceptionSet, FloatTy, Module, ScalarTy, Type};
use fpscout_native::{NativeArg, NativeOutcome, RunOptions};
use fpscout_toolchain::BuildKind;
use fpscout_walk::concrete::{ArgBits, ConcreteRunner, EvalEnd, Evaluation, FpMode};
use fpscout_walk::WalkConfig;
use serde::Serialize;

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

/// The `run` record of one build (the `data` of a `{"type":"run"}` JSON line).
#[derive(Clone, Debug, Serialize)]
pub struct RunRecord {
    pub build: &'static str,
    pub compiler_flags: String,
    pub function: String,
    pub ftz_daz: bool,
    /// How the interpreter's run ended: `returned`, `trapped` or `stopped`.
    pub end: &'static str,
    pub detail: Option<String>,
    /// Hex float (or integer) result; null for void functions and runs that did not return.
    pub result: Option<String>,
    pub result_decimal: Option<String>,
    pub exceptions: Vec<ExceptionRecord>,
    /// Every flag the interpreter saw raised (inexact included).
    pub flags: Vec<&'static str>,
    pub native_end: &'static str,
    pub native_result: Option<String>,
    pub native_flags: Vec<&'static str>,
    /// Final array contents (hex), interpreter side, per array parameter.
    pub arrays: Vec<Vec<String>>,
    pub agrees: bool,
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

fn flag_names(s: ExceptionSet) -> Vec<&'static str> {
    s.names()
}

/// Evaluates `args_text` on both builds of `function` and replays it natively.
pub fn run_both(
    session: &Session,
    function: &str,
    args_text: &str,
    choice: FtzDazChoice,
    config: WalkConfig,
) -> Result<Vec<RunRecord>, InputError> {
    let mut records = Vec::new();
    for build in BuildKind::BOTH {
        let module = session.module(build);
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
        let native = session.native(build, fid, &lens)?;
        // The executable itself says which FTZ/DAZ it runs with (crtfastmath.o or not).
        let mode = native
            .startup_mxcsr(native_ftz(choice))
            .map(FpMode::from_mxcsr)
            .unwrap_or_else(|_| session.fp_mode(build, choice));
        let mut runner = ConcreteRunner::new(module, fid, mode, config)
            .map_err(|e| InputError(e.to_string()))?;
        runner.record_inexact(true);
        let eval = runner
            .eval(&args)
            .map_err(|e| InputError(format!("build {build}: {e}")))?;
        let opts = RunOptions {
            ftz_daz: native_ftz(choice),
            ..RunOptions::default()
        };
        let outcome = native
            .run(&[to_native(f, &args)], &opts)
            .map_err(|e| InputError(e.to_string()))?
            .pop()
            .ok_or_else(|| InputError("native run returned no outcome".into()))?;
        let (end, detail) = match &eval.end {
            EvalEnd::Returned(_) => ("returned", None),
            EvalEnd::Trapped(t) => ("trapped", Some(t.clone())),
            EvalEnd::Stopped(r) => ("stopped", Some(r.to_string())),
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
                "returned",
                result.map(|b| format_value(b, f.ret).0),
                flag_names(*flags),
            ),
            NativeOutcome::Crashed { .. } => ("crashed", None, vec![]),
            NativeOutcome::TimedOut => ("timed out", None, vec![]),
        };
        records.push(RunRecord {
            build: build.label(),
            compiler_flags: session.flags.of(build).join(" "),
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
            arrays,
            agrees: outcomes_agree(&eval, &outcome)
                || (eval.choice_points > 0
                    && agrees_with_some_choice(&mut runner, &args, &eval, &outcome)),
            backend_rewrites: session.backend_rewrites(build),
        });
    }
    Ok(records)
}
