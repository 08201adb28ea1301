//! The only crate that links LLVM: loads `.ll`/`.bc` (or compiles C/C++ via clang-19),
//! makes an optimised build compute what its machine code computes (`backend`), and
//! lowers LLVM IR into fpscout-ir. No LLVM type escapes this crate.

mod backend;
mod kernel;
mod lower;
mod reachable;

pub use backend::BackendModel;
pub use kernel::{native_kernel, NoKernel};
pub use reachable::write_reachable_from;

use fpscout_ir::{Module, SourceLoc};
use fpscout_toolchain::{BuildFlags, BuildKind, SourceSet, Toolchain, ToolchainError};
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
    /// The target has AVX-512 (512-bit vector registers), which changes how wide vector
    /// operations are split: the fused reductions the model knows are 256-bit ones.
    pub target_has_avx512: bool,
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
        let has_avx512 = flags.iter().any(|f| {
            f.starts_with("-mavx512")
                || (f == "-march=native" && std::arch::is_x86_feature_detected!("avx512f"))
                || AVX512_MARCHES
                    .iter()
                    .any(|m| f.strip_prefix("-march=") == Some(m))
        });
        // The last -O flag wins, as for clang; none means -O0.
        let optimized = flags
            .iter()
            .rev()
            .find(|f| f.starts_with("-O"))
            .is_some_and(|f| f != "-O0");
        LowerOptions {
            target_has_fma: has_fma,
            target_has_avx512: has_avx512,
            optimized,
        }
    }
}

/// `-march=` values whose CPUs have AVX-512.
const AVX512_MARCHES: [&str; 13] = [
    "x86-64-v4",
    "skylake-avx512",
    "cascadelake",
    "cooperlake",
    "cannonlake",
    "icelake-client",
    "icelake-server",
    "tigerlake",
    "rocketlake",
    "sapphirerapids",
    "graniterapids",
    "znver4",
    "znver5",
];

/// Parses an IR file (`.ll` text or `.bc` bitcode) and lowers every defined function.
pub fn load_ir_file(path: &Path, opts: LowerOptions) -> Result<Module> {
    let context = Context::create();
    let module = parse_ir_file(&context, path)?;
    let mut lowered = lower::lower_module(module.as_mut_ptr(), opts)?;
    lowered.origin = path.display().to_string();
    Ok(lowered)
}

fn parse_ir_file<'c>(context: &'c Context, path: &Path) -> Result<inkwell::module::Module<'c>> {
    let buffer = MemoryBuffer::create_from_file(path).map_err(|e| FrontError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    context
        .create_module_from_ir(buffer)
        .map_err(|e| FrontError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
}

/// Produces the lowered module of one build: compiles C/C++ with that build's flags, or
/// for IR input uses the file itself for P and the file re-optimised with the P' flags.
/// An optimised build follows its executable's machine code
/// ([`BackendModel::MatchMachine`]).
pub fn load_build(
    tc: &Toolchain,
    src: &Path,
    build: BuildKind,
    flags: &BuildFlags,
    work_dir: &Path,
) -> Result<Module> {
    load_build_sources(
        tc,
        &SourceSet::single(src),
        build,
        flags,
        work_dir,
        BackendModel::MatchMachine,
    )
}

/// [`load_build`] of several files: each compiled with its own flags, their IR linked
/// into one module (see [`Toolchain::sources_to_ir`]), so calls across files are followed;
/// `backend` says whether an optimised build pays for following its machine code.
pub fn load_build_sources(
    tc: &Toolchain,
    sources: &SourceSet,
    build: BuildKind,
    flags: &BuildFlags,
    work_dir: &Path,
    backend: BackendModel,
) -> Result<Module> {
    let opts = LowerOptions::from_flags(&flags.compile_flags(build));
    let ir_path = tc.sources_to_ir(sources, build, flags, work_dir)?;
    let context = Context::create();
    let module = parse_ir_file(&context, &ir_path)?;
    let backend_rewrites = backend::model(tc, sources, build, flags, &module, work_dir, backend)?;
    let mut lowered = lower::lower_module(module.as_mut_ptr(), opts)?;
    lowered.origin = sources.describe();
    lowered.backend_rewrites = backend_rewrites;
    Ok(lowered)
}
