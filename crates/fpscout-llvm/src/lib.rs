//! The only crate that links LLVM: loads `.ll`/`.bc` (or compiles C/C++ via clang-19) and
//! lowers LLVM IR into fpscout-ir. No LLVM type escapes this crate.

mod commuted_min_max;
mod demanded_lanes;
mod lower;

pub use kernel::{native_kernel, NoKernel};
mod kernel;
mod machine_combiner;
mod reachable;
pub use reachable::write_reachable_from;

use fpscout_ir::{BackendRewrite, Module, SourceLoc};
use fpscout_toolchain::{BuildFlags, BuildKind, SourceSet, Toolchain, ToolchainError};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::values::AsValueRef;
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

/// Rewrites the functions of `module` (IR of `build` of `sources`) whose machine
/// code the backend changed after instruction selection, so that they compute what the
/// executable computes: MachineCombiner reassociations (see [`machine_combiner`]) and
/// commutable min/max operand orders (see [`commuted_min_max`]). Returns what was found and
/// what was modelled.
fn model_backend_rewrites(
    tc: &Toolchain,
    sources: &SourceSet,
    build: BuildKind,
    flags: &BuildFlags,
    module: &inkwell::module::Module<'_>,
    tagged_path: &Path,
) -> Result<Vec<BackendRewrite>> {
    let executable = tc.machine_dumps_of_sources(sources, build, flags)?;
    let found = fpscout_toolchain::machine_rewrites::rewrites_of(&executable);
    if found.is_empty() {
        return Ok(Vec::new());
    }
    // SAFETY: `module` is a live module of this thread's context; the copy is disposed.
    let tagged =
        unsafe { machine_combiner::write_tagged_bitcode(module.as_mut_ptr(), tagged_path) }
            .and_then(|()| {
                tc.machine_dumps(tagged_path, &flags.compile_flags(build), true)
                    .map_err(|e| e.to_string())
            });
    Ok(found
        .into_iter()
        .map(|rewrite| {
            let unmodelled = match &tagged {
                Err(e) => Some(format!("the tagged build failed: {e}")),
                Ok(dumps) => match (
                    executable.get(&rewrite.function),
                    dumps.get(&rewrite.function),
                ) {
                    (Some(exe), Some(t)) if exe.same_code(t) => {
                        match module.get_function(&rewrite.function) {
                            // SAFETY: the function belongs to `module`, which is not lowered yet.
                            Some(f) => unsafe { model_function(f.as_value_ref(), t) },
                            None => Some("the function is not in the IR".into()),
                        }
                    }
                    _ => {
                        Some("the tagged build's machine code differs from the executable's".into())
                    }
                },
            };
            BackendRewrite {
                function: rewrite.function,
                locations: rewrite.locations,
                unmodelled,
            }
        })
        .collect())
}

/// Applies both kinds of backend rewrite read from one function's tagged build; `None`
/// when everything was modelled, else why not. Min/max rewrites go first: they keep
/// every instruction's position, which the reassociation reads by tagged line; what
/// moves positions (reduction trees, erasing compares) waits until the end.
unsafe fn model_function(
    f: llvm_sys::prelude::LLVMValueRef,
    tagged: &fpscout_toolchain::FunctionDump,
) -> Option<String> {
    let mut why_not = Vec::new();
    let min_max = tagged.commuted_min_max();
    let mut pending = None;
    if !min_max.is_empty() {
        let mut p = commuted_min_max::apply(f, &min_max);
        why_not.extend(p.errors.drain(..).map(|e| format!("commuted min/max: {e}")));
        pending = Some(p);
    }
    let reassociation = tagged.reassociation();
    if !reassociation.removed.is_empty() || !reassociation.added.is_empty() {
        if let Err(e) = machine_combiner::apply(f, &reassociation) {
            why_not.push(format!("reassociation: {e}"));
        }
    }
    if let Some(p) = pending {
        p.finish();
    }
    (!why_not.is_empty()).then(|| why_not.join("; "))
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
    load_build_sources(tc, &SourceSet::single(src), build, flags, work_dir)
}

/// [`load_build`] of several files: each compiled with its own flags, their IR linked
/// into one module (see [`Toolchain::sources_to_ir`]), so calls across files are followed.
pub fn load_build_sources(
    tc: &Toolchain,
    sources: &SourceSet,
    build: BuildKind,
    flags: &BuildFlags,
    work_dir: &Path,
) -> Result<Module> {
    let opts = LowerOptions::from_flags(&flags.compile_flags(build));
    let ir_path = tc.sources_to_ir(sources, build, flags, work_dir)?;
    let context = Context::create();
    let module = parse_ir_file(&context, &ir_path)?;
    // The MachineCombiner and FMINC/FMAXC selection happen only in optimised code generation.
    let backend_rewrites = if opts.optimized {
        let tagged = work_dir.join(format!(
            "{}.tagged.bc",
            build.label().replace('\'', "prime")
        ));
        model_backend_rewrites(tc, sources, build, flags, &module, &tagged)?
    } else {
        Vec::new()
    };
    if opts.optimized {
        for f in module.get_functions() {
            if f.count_basic_blocks() > 0 {
                // SAFETY: `f` belongs to `module`, which is not lowered yet.
                unsafe { demanded_lanes::neutralise_unread_lanes(f.as_value_ref()) };
            }
        }
    }
    let mut lowered = lower::lower_module(module.as_mut_ptr(), opts)?;
    lowered.origin = sources.describe();
    lowered.backend_rewrites = backend_rewrites;
    Ok(lowered)
}
