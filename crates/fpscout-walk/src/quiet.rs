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
//! direction is quiet and so is every caller's continuation after its call. Reduced
//! tasks (CPAchecker's `lhb-reducer`) route the guard's failure through a flag
//! (`tmp = 0; goto join; join: if (tmp != 0) ... else return;`), a join no static
//! verdict calls quiet: a direction is also followed ahead through the branches that
//! the values it carries decide (phis of constants, comparisons of known integers).

use crate::code::{Code, Op, Opd, Reg, Term, NO_DEST};
use fpscout_ir::{EndFn, ExternalKind, FuncId};
use std::collections::HashMap;

/// Blocks a look-ahead follows through decided branches before it gives up.
const LOOKAHEAD_BLOCKS: usize = 64;

/// C library functions that continue the program elsewhere than after their call.
const CONTROL_TRANSFERS: [&str; 7] = [
    "longjmp",
    "_longjmp",
    "siglongjmp",
    "__longjmp_chk",
    "raise",
    "kill",
    "pthread_kill",
];

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

    /// Whether entering `block` of `func` from block `from` can never fail an assertion.
    /// Looking ahead with the frame's `values` (`bits_of` gives a value's known bits),
    /// each block that is not quiet itself is followed while its phis, integer
    /// comparisons and branch conditions are decided, until a quiet block, a program end,
    /// a return or a branch it cannot decide (whose directions must both be quiet). Where
    /// the direction may return, so must each caller's continuation after its call be
    /// quiet, given as (function, block, index of the instruction after the call); the
    /// entry function returning ends the run quietly.
    pub(crate) fn direction_ahead<S>(
        &self,
        code: &Code<S>,
        func: FuncId,
        (from, block): (u32, u32),
        values: &[Option<Reg<S>>],
        bits_of: impl Fn(&Reg<S>) -> Option<u64>,
        callers: impl Iterator<Item = (FuncId, u32, usize)>,
    ) -> bool {
        let f = func.0 as usize;
        let callers_quiet = || self.callers_quiet(code, callers);
        // Slots the look-ahead assigned: known bits, or `None` for a value it cannot know.
        let mut assigned: HashMap<u32, Option<u64>> = HashMap::new();
        let value = |opd: Opd, assigned: &HashMap<u32, Option<u64>>| -> Option<u64> {
            match opd {
                Opd::Const(i) => code.consts.get(i as usize).and_then(&bits_of),
                Opd::Val(i) => match assigned.get(&i) {
                    Some(known) => *known,
                    None => values.get(i as usize)?.as_ref().and_then(&bits_of),
                },
                Opd::Bad(_) => None,
            }
        };
        let (mut prev, mut current) = (from, block);
        for _ in 0..LOOKAHEAD_BLOCKS {
            if self.block(func, current) {
                return callers_quiet();
            }
            let Some(b) = code
                .funcs
                .get(f)
                .and_then(|fun| fun.blocks.get(current as usize))
            else {
                return false;
            };
            let incoming: Vec<(u32, Option<u64>)> = b
                .phis
                .iter()
                .map(|phi| {
                    let from_prev = phi.incoming.iter().find(|(at, _)| *at == prev);
                    (phi.dest, from_prev.and_then(|(_, o)| value(*o, &assigned)))
                })
                .collect();
            assigned.extend(incoming);
            for inst in b.insts.iter() {
                match Self::step(&inst.op, &self.quiet) {
                    Step::Loud => return false,
                    Step::Ends => return true,
                    Step::Quiet if inst.dest == NO_DEST => {}
                    Step::Quiet => {
                        let known = match inst.op {
                            Op::ICmp { pred, width, a, b } => {
                                match (value(a, &assigned), value(b, &assigned)) {
                                    (Some(x), Some(y)) => {
                                        Some(crate::concrete::int_cmp(pred, width, x, y) as u64)
                                    }
                                    _ => None,
                                }
                            }
                            _ => None,
                        };
                        assigned.insert(inst.dest, known);
                    }
                }
            }
            let next = match &b.term {
                Term::Br(t) => *t,
                Term::CondBr { cond, then_, else_ } => match value(*cond, &assigned) {
                    Some(c) if c & 1 != 0 => *then_,
                    Some(_) => *else_,
                    None => {
                        return self.block(func, *then_)
                            && self.block(func, *else_)
                            && callers_quiet()
                    }
                },
                Term::Switch { default, cases, .. } => {
                    return self.block(func, *default)
                        && cases.iter().all(|(_, t)| self.block(func, *t))
                        && callers_quiet()
                }
                Term::Ret(_) | Term::Unreachable => return callers_quiet(),
            };
            (prev, current) = (current, next);
        }
        false
    }

    /// Whether nothing from instruction `at.2` of block `at.1` of `at.0` on, nor any
    /// caller's continuation (function, block, index of the instruction after the call),
    /// can fail an assertion.
    pub(crate) fn continuation<S>(
        &self,
        code: &Code<S>,
        (func, block, from): (FuncId, u32, usize),
        callers: impl Iterator<Item = (FuncId, u32, usize)>,
    ) -> bool {
        Self::suffix_quiet(code, &self.quiet, func.0 as usize, block as usize, from)
            && self.callers_quiet(code, callers)
    }

    /// Whether each caller's continuation after its call (function, block, index of the
    /// instruction after the call) is quiet.
    fn callers_quiet<S>(
        &self,
        code: &Code<S>,
        mut callers: impl Iterator<Item = (FuncId, u32, usize)>,
    ) -> bool {
        callers.all(|(f, b, next)| {
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
                // A jump or a signal may run code that fails one.
                ExternalKind::Native if CONTROL_TRANSFERS.contains(&ext.call.name.as_str()) => {
                    Step::Loud
                }
                ExternalKind::Output(_)
                | ExternalKind::Rounding(_)
                | ExternalKind::NanFromTag(_)
                | ExternalKind::Native => Step::Quiet,
            },
            _ => Step::Quiet,
        }
    }
}
