//! The only crate that links LLVM: loads `.ll`/`.bc` (or compiles C/C++ via clang-19) and
//! lowers LLVM IR into fpscout-ir. No LLVM type escapes this crate.

mod lower;

use fpscout_ir::{Module, SourceLoc};
use fpscout_toolchain::{BuildFlags, BuildKind, SourceKind, Toolchain, ToolchainError};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a module could not be loaded or lowered.
#[derive(Debug, thiserror::Error)]
pub enum FrontError {
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    #[error("cannot read LLVM IR from {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{0}")]
    Unsupported(Box<Unsupported>),
}

/// An IR construct fpscout does not handle, with enough context to find it.
#[derive(Debug, Clone)]
pub struct Unsupported {
    pub function: String,
    pub instruction: String,
    pub loc: Option<SourceLoc>,
    pub reason: String,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unsupported in function '{}'", self.function)?;
        if let Some(loc) = &self.loc {
            write!(f, " at {loc}")?;
        }
        write!(f, ": {} [{}]", self.reason, self.instruction.trim())
    }
}

pub type Result<T> = std::result::Result<T, FrontError>;

/// Options that change how IR maps onto the x86-64 code the backend would produce.
#[derive(Clone, Copy, Debug, Default)]
pub struct LowerOptions {
    /// The target has hardware FMA (e.g. `-march=haswell`): `llvm.fmuladd` is fused.
    pub target_has_fma: bool,
    /// The backend optimises (-O1 and up): CodeGenPrepare and MachineSink then move
    /// floating-point operations that feed only one side of a `select` behind a branch,
    /// so they run only when selected. At -O0 (FastISel) every operation runs in place.
    pub optimized: bool,
}

impl LowerOptions {
    /// Derives target features from compiler flags (`-mfma`, `-march=...`).
    pub fn from_flags(flags: &[String]) -> LowerOptions {
        let has_fma = flags.iter().any(|f| {
            f == "-mfma"
                || f == "-march=native"
                || (f.starts_with("-march=")
                    && !matches!(
                        f.as_str(),
                        "-march=x86-64" | "-march=x86-64-v2" | "-march=core2"
                    ))
        });
        // The last -O flag wins, as for clang; none means -O0.
        let optimized = flags
            .iter()
            .rev()
            .find(|f| f.starts_with("-O"))
            .is_some_and(|f| f != "-O0");
        LowerOptions {
            target_has_fma: has_fma,
            optimized,
        }
    }
}

/// Parses an IR file (`.ll` text or `.bc` bitcode) and lowers every defined function.
pub fn load_ir_file(path: &Path, opts: LowerOptions) -> Result<Module> {
    let context = Context::create();
    let buffer = MemoryBuffer::create_from_file(path).map_err(|e| FrontError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let module = context
        .create_module_from_ir(buffer)
        .map_err(|e| FrontError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    let mut lowered = lower::lower_module(module.as_mut_ptr(), opts)?;
    lowered.origin = path.display().to_string();
    Ok(lowered)
}

/// Produces the lowered module of one build: compiles C/C++ with that build's flags, or
/// for IR input uses the file itself for P and the file re-optimised with the P' flags.
pub fn load_build(
    tc: &Toolchain,
    src: &Path,
    build: BuildKind,
    flags: &BuildFlags,
    work_dir: &Path,
) -> Result<Module> {
    if !src.exists() {
        return Err(ToolchainError::MissingSource(src.to_path_buf()).into());
    }
    let kind = SourceKind::of(src)?;
    let opts = LowerOptions::from_flags(flags.of(build));
    let ir_path = if kind.is_ir() && build == BuildKind::P {
        src.to_path_buf()
    } else {
        tc.compile_to_ir(src, build, flags, work_dir)?
    };
    let mut module = load_ir_file(&ir_path, opts)?;
    module.origin = src.display().to_string();
    Ok(module)
}
