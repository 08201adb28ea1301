//! Machine code computing one function of a [`Module`](crate::Module) on number-only arguments, and the contract it keeps.
//!
//! A kernel is what the concrete domain's fast path calls instead of interpreting, when
//! no argument is a NaN and flags will be read only once at the end. It is built from
//! fpscout-ir itself (never from the original LLVM module), every floating-point
//! operation as a strict-exception instruction, so in the run where only inexact (or
//! nothing) was raised it computes what the concrete domain computes. Any other flag
//! means the evaluation is redone by the interpreter, which then attributes the events.
//!
//! A kernel may come in a second, *counting* variant that also works out whether any
//! operation was inexact from the operations' exact rounding errors, so the caller need
//! not clear the sticky inexact flag before each evaluation (reloading MXCSR waits for
//! every floating-point instruction in flight, which costs more than a small kernel).
//! Its answer is exact when the evaluation raised nothing but inexact, under round to
//! nearest, with FTZ and DAZ both on or DAZ off: see [`NativeKernel::run_counting_inexact`].

use std::any::Any;
use std::sync::Arc;

/// `entry(args, step_budget, out)`: `args` holds one `u64` per parameter (float bits,
/// f32 in the low 32; integers zero-extended). Returns [`KernelExit::Returned`] as 0 with
/// `out[0]` = result bits (0 for void), `out[1]` = steps taken, counted as the walker
/// counts them, and (counting variant only) `out[2]` nonzero when some operation was
/// inexact; returns 1 when the interpreter must take over (step budget exhausted,
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
    counting: Option<KernelEntry>,
    params: usize,
    _code: Arc<dyn Any + Send + Sync>,
}

impl NativeKernel {
    /// # Safety
    /// `entry` (and `counting`, when given) must follow the [`KernelEntry`] contract for a
    /// function of `params` parameters, `counting` also writing `out[2]` as the contract
    /// and [`NativeKernel::run_counting_inexact`] say, and both must stay callable as long
    /// as `code` lives.
    pub unsafe fn new(
        entry: KernelEntry,
        counting: Option<KernelEntry>,
        params: usize,
        code: Arc<dyn Any + Send + Sync>,
    ) -> Self {
        NativeKernel {
            entry,
            counting,
            params,
            _code: code,
        }
    }

    pub fn params(&self) -> usize {
        self.params
    }

    /// Whether [`NativeKernel::run_counting_inexact`] is available.
    pub fn counts_inexact(&self) -> bool {
        self.counting.is_some()
    }

    /// Runs the kernel under the caller's MXCSR (whose sticky flags it adds to).
    #[inline]
    pub fn run(&self, args: &[u64], step_budget: u64) -> KernelExit {
        self.call(self.entry, args, step_budget).0
    }

    /// Runs the counting variant, which also says whether an operation was inexact. The
    /// answer is exact when the MXCSR flags the run added (it adds some of its own) hold
    /// nothing but inexact, the rounding mode is to nearest, and DAZ is off or FTZ on;
    /// otherwise it means nothing. `None` without a counting variant.
    #[inline]
    pub fn run_counting_inexact(
        &self,
        args: &[u64],
        step_budget: u64,
    ) -> Option<(KernelExit, bool)> {
        let counting = self.counting?;
        Some(self.call(counting, args, step_budget))
    }

    #[inline]
    fn call(&self, entry: KernelEntry, args: &[u64], step_budget: u64) -> (KernelExit, bool) {
        assert_eq!(args.len(), self.params, "kernel argument count");
        let mut out = [0u64; 3];
        // SAFETY: `args` has the parameter count `new` was promised, `out` three slots, and
        // `_code` keeps the machine code mapped.
        let code = unsafe { entry(args.as_ptr(), step_budget, out.as_mut_ptr()) };
        match code {
            0 => (
                KernelExit::Returned {
                    bits: out[0],
                    steps: out[1],
                },
                out[2] != 0,
            ),
            _ => (KernelExit::Restart, false),
        }
    }
}

impl std::fmt::Debug for NativeKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeKernel")
            .field("params", &self.params)
            .field("counts_inexact", &self.counting.is_some())
            .finish_non_exhaustive()
    }
}
