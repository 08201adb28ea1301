//! Machine code computing one function of a [`Module`](crate::Module) on number-only arguments, and the contract it keeps.
//!
//! A kernel is what the concrete domain's fast path calls instead of interpreting, when
//! no argument is a NaN and flags will be read only once at the end. It is built from
//! fpscout-ir itself (never from the original LLVM module), every floating-point
//! operation as a strict-exception instruction, so in the run where only inexact (or
//! nothing) was raised it computes what the concrete domain computes. Any other flag
//! means the evaluation is redone by the interpreter, which then attributes the events.

use std::any::Any;
use std::sync::Arc;

/// `entry(args, step_budget, out)`: `args` holds one `u64` per parameter (float bits,
/// f32 in the low 32; integers zero-extended). Returns [`KernelExit::Returned`] as 0 with
/// `out[0]` = result bits (0 for void) and `out[1]` = steps taken, counted as the walker
/// counts them; returns 1 when the interpreter must take over (step budget exhausted,
/// `unreachable` reached).
pub type KernelEntry =
    unsafe extern "C" fn(args: *const u64, step_budget: u64, out: *mut u64) -> u32;

/// How a kernel run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelExit {
    Returned {
        bits: u64,
        steps: u64,
    },
    /// The interpreter must redo the evaluation (it then reports why).
    Restart,
}

/// Compiled code of one function, kept alive as long as the kernel is.
#[derive(Clone)]
pub struct NativeKernel {
    entry: KernelEntry,
    params: usize,
    _code: Arc<dyn Any + Send + Sync>,
}

impl NativeKernel {
    /// # Safety
    /// `entry` must follow the [`KernelEntry`] contract for a function of `params`
    /// parameters, and stay callable as long as `code` lives.
    pub unsafe fn new(entry: KernelEntry, params: usize, code: Arc<dyn Any + Send + Sync>) -> Self {
        NativeKernel {
            entry,
            params,
            _code: code,
        }
    }

    pub fn params(&self) -> usize {
        self.params
    }

    /// Runs the kernel under the caller's MXCSR (whose sticky flags it adds to).
    #[inline]
    pub fn run(&self, args: &[u64], step_budget: u64) -> KernelExit {
        assert_eq!(args.len(), self.params, "kernel argument count");
        let mut out = [0u64; 2];
        // SAFETY: `args` has the parameter count `new` was promised, `out` two slots, and
        // `_code` keeps the machine code mapped.
        let code = unsafe { (self.entry)(args.as_ptr(), step_budget, out.as_mut_ptr()) };
        match code {
            0 => KernelExit::Returned {
                bits: out[0],
                steps: out[1],
            },
            _ => KernelExit::Restart,
        }
    }
}

impl std::fmt::Debug for NativeKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeKernel")
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}
