//! Concrete runners with the function's native kernel attached when it has one.

use fpscout_ir::{FuncId, Module};
use fpscout_walk::concrete::{ConcreteRunner, FpMode};
use fpscout_walk::{DResult, WalkConfig};

/// A [`ConcreteRunner`] whose unchecked fast path runs machine code compiled from the
/// function's fpscout IR where `fpscout_llvm::native_kernel` can build it (same outcomes,
/// faster); functions it refuses are interpreted.
pub fn concrete_runner(
    module: &Module,
    func: FuncId,
    mode: FpMode,
    config: WalkConfig,
) -> DResult<ConcreteRunner<'_>> {
    let mut runner = ConcreteRunner::new(module, func, mode, config)?;
    if let Ok(kernel) = fpscout_llvm::native_kernel(module, func) {
        runner.set_native_kernel(kernel);
    }
    Ok(runner)
}
