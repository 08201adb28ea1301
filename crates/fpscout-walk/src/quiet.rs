//! Which blocks cannot lead to a failed assertion: the branch directions a target-seeking exploration need not walk.
//!
//! SV-COMP programs guard every input with `if (!(lo <= x && x <= hi)) abort();`, inside
//! loops that read a fresh input per iteration. Each guard is a symbolic branch, so a
//! loop of a hundred thousand iterations forks a hundred thousand times and passes any
//! loop bound, though one direction of every fork only ends the program. A block is
//! *quiet* when no path from it reaches a failed assertion, an error function or an
//! instruction the walker cannot follow before its function returns or the program
//! ends (a greatest fixpoint, so that loops made only of quiet blocks are quiet: a path
//! that stays in them forever fails nothing either). A fork is skipped when one
//! direction is quiet and so is every caller's continuation after its call.

use crate::code::{Code, Op, Term};
use fpscout_ir::{EndFn, ExternalKind, FuncId};

/// The quiet blocks of a decoded module, per function and block.
#[derive(Clone, Debug)]
pub(crate) struct QuietBlocks {
    quiet: Vec<Vec<bool>>,
}

/// What an instruction does for quietness.
enum Step {
    /// Cannot fail an assertion; the block goes on.
    Quiet,
    /// Ends the program without failing one (`abort`, `exit`): nothing after it runs.
    Ends,
    /// May fail one, or cannot be followed.
    Loud,
}

impl QuietBlocks {
    /// The quiet blocks of `code`, where calls to `error_functions` fail (whatever their
    /// bodies: SV-COMP's `reach_error` is often `{ abort(); }`).
    pub(crate) fn of<S>(code: &Code<S>, error_functions: &[FuncId]) -> QuietBlocks {
        let mut quiet: Vec<Vec<bool>> = code
            .funcs
            .iter()
            .enumerate()
            .map(|(f, func)| {
                let loud = error_functions.contains(&FuncId(f as u32)) || func.blocks.is_empty();
                vec![!loud; func.blocks.len()]
            })
            .collect();
        // Greatest fixpoint: blocks only ever turn loud.
        let mut changed = true;
        while changed {
            changed = false;
            for (f, func) in code.funcs.iter().enumerate() {
                for b in 0..func.blocks.len() {
                    if quiet[f][b] && !Self::suffix_quiet(code, &quiet, f, b, 0) {
                        quiet[f][b] = false;
                        changed = true;
                    }
                }
            }
        }
        QuietBlocks { quiet }
    }

    /// Whether block `block` of `func` is quiet.
    pub(crate) fn block(&self, func: FuncId, block: u32) -> bool {
        self.quiet
            .get(func.0 as usize)
            .and_then(|blocks| blocks.get(block as usize))
            .copied()
            .unwrap_or(false)
    }

    /// Whether entering `block` of `func` can never fail an assertion: the block is
    /// quiet, and so is what each caller does after its call returns, given as (function,
    /// block, index of the instruction after the call); the entry function returning
    /// ends the run quietly.
    pub(crate) fn direction<S>(
        &self,
        code: &Code<S>,
        func: FuncId,
        block: u32,
        mut callers: impl Iterator<Item = (FuncId, u32, usize)>,
    ) -> bool {
        self.block(func, block)
            && callers.all(|(f, b, next)| {
                Self::suffix_quiet(code, &self.quiet, f.0 as usize, b as usize, next)
            })
    }

    /// Whether block `b` of function `f` from instruction `from` on is quiet, given the
    /// current verdicts for its successors and callees.
    fn suffix_quiet<S>(
        code: &Code<S>,
        quiet: &[Vec<bool>],
        f: usize,
        b: usize,
        from: usize,
    ) -> bool {
        let Some(block) = code.funcs.get(f).and_then(|func| func.blocks.get(b)) else {
            return false;
        };
        for inst in block.insts.iter().skip(from) {
            match Self::step(&inst.op, quiet) {
                Step::Quiet => {}
                Step::Ends => return true,
                Step::Loud => return false,
            }
        }
        let successor = |s: u32| quiet[f].get(s as usize).copied().unwrap_or(false);
        match &block.term {
            Term::Br(t) => successor(*t),
            Term::CondBr { then_, else_, .. } => successor(*then_) && successor(*else_),
            Term::Switch { default, cases, .. } => {
                successor(*default) && cases.iter().all(|(_, t)| successor(*t))
            }
            Term::Ret(_) | Term::Unreachable => true,
        }
    }

    fn step(op: &Op, quiet: &[Vec<bool>]) -> Step {
        match op {
            Op::Call { callee, .. } => {
                let callee_quiet = quiet
                    .get(callee.0 as usize)
                    .and_then(|blocks| blocks.first())
                    .copied()
                    .unwrap_or(false);
                if callee_quiet {
                    Step::Quiet
                } else {
                    Step::Loud
                }
            }
            Op::CallIndirect { .. } | Op::Fail(_) => Step::Loud,
            Op::External(ext) => match ext.call.kind {
                ExternalKind::End(EndFn::Abort | EndFn::Exit) => Step::Ends,
                ExternalKind::End(EndFn::AssertFail) => Step::Loud,
                ExternalKind::Output(_) | ExternalKind::Native => Step::Quiet,
            },
            _ => Step::Quiet,
        }
    }
}
