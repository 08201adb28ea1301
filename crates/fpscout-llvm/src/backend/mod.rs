//! Backend modelling: what x86 code generation does to an optimised build that its IR does not say, carried into the module before lowering.
//!
//! Two rewrites need the machine code itself: MachineCombiner reassociations
//! ([`machine_rewrites`] reads them, [`combiner`] applies them) and the operand order of
//! commutable min/max ([`min_max_origins`] reads it, [`min_max`] applies it). Both read
//! clang's dumps ([`dumps`]) of a copy of the module tagged with its own positions
//! ([`tag`]), compiled with the build's flags, and only when that copy's machine code is
//! the executable's. [`demanded_lanes`] needs no machine code. [`BackendModel::IrOnly`]
//! skips the dumps and their two extra compilations per file.

mod combiner;
mod demanded_lanes;
mod dumps;
mod machine_rewrites;
mod min_max;
mod min_max_origins;
mod tag;

use crate::Result;
use dumps::FunctionDump;
use fpscout_ir::BackendRewrite;
use fpscout_toolchain::{BuildFlags, BuildKind, SourceSet, Toolchain};
use inkwell::values::AsValueRef;
use std::path::Path;

/// How closely an optimised build's lowered module follows its executable's machine code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendModel {
    /// Read the executable's machine code (one more compilation of every file, and one
    /// of a tagged copy of the module, when the backend rewrote anything) and rewrite
    /// the IR to compute what it computes, bit for bit, recording in
    /// `Module::backend_rewrites` what was found and what could not be modelled.
    #[default]
    MatchMachine,
    /// The module as its IR says, with only the backend facts that need no machine code:
    /// for callers that inspect the module or do not compare the interpreter with the
    /// executable bit for bit. `Module::backend_rewrites` stays empty: nothing is known.
    IrOnly,
}

/// Rewrites `module` (the IR of `build` of `sources`, not lowered yet) as the backend
/// compiles it; returns what [`BackendModel::MatchMachine`] found in the machine code and
/// what it modelled. Unoptimised builds are left alone: the backend rewrites only in
/// optimised code generation. `work_dir` receives the tagged copy.
pub(crate) fn model(
    tc: &Toolchain,
    sources: &SourceSet,
    build: BuildKind,
    flags: &BuildFlags,
    module: &inkwell::module::Module<'_>,
    work_dir: &Path,
    backend: BackendModel,
) -> Result<Vec<BackendRewrite>> {
    let opts = crate::LowerOptions::from_flags(&flags.compile_flags(build));
    if !opts.optimized {
        return Ok(Vec::new());
    }
    let rewrites = match backend {
        BackendModel::MatchMachine => {
            let tagged = work_dir.join(format!(
                "{}.tagged.bc",
                build.label().replace('\'', "prime")
            ));
            match_machine(tc, sources, build, flags, module, &tagged)?
        }
        BackendModel::IrOnly => Vec::new(),
    };
    for f in module.get_functions() {
        if f.count_basic_blocks() > 0 {
            // SAFETY: `f` belongs to `module`, which is not lowered yet.
            unsafe { demanded_lanes::neutralise_unread_lanes(f.as_value_ref()) };
        }
    }
    Ok(rewrites)
}

/// Rewrites the functions of `module` whose machine code the backend changed after
/// instruction selection, so that they compute what the executable computes.
fn match_machine(
    tc: &Toolchain,
    sources: &SourceSet,
    build: BuildKind,
    flags: &BuildFlags,
    module: &inkwell::module::Module<'_>,
    tagged_path: &Path,
) -> Result<Vec<BackendRewrite>> {
    let executable = dumps::executable_dumps(tc, sources, build, flags)?;
    let found = machine_rewrites::rewrites_of(&executable);
    if found.is_empty() {
        return Ok(Vec::new());
    }
    // SAFETY: `module` is a live module of this thread's context; the copy is disposed.
    let tagged =
        unsafe { tag::write_tagged_bitcode(module.as_mut_ptr(), tagged_path) }.and_then(|()| {
            dumps::tagged_dumps(tc, tagged_path, build, flags).map_err(|e| e.to_string())
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
/// every instruction's position, which the reassociation reads by tag; what moves
/// positions (reduction trees, erasing compares) waits until the end.
unsafe fn model_function(
    f: llvm_sys::prelude::LLVMValueRef,
    tagged: &FunctionDump,
) -> Option<String> {
    let mut why_not = Vec::new();
    let min_max = tagged.commuted_min_max();
    let mut pending = None;
    if !min_max.is_empty() {
        let mut p = min_max::apply(f, &min_max);
        why_not.extend(p.errors.drain(..).map(|e| format!("commuted min/max: {e}")));
        pending = Some(p);
    }
    let reassociation = tagged.reassociation();
    if !reassociation.removed.is_empty() || !reassociation.added.is_empty() {
        if let Err(e) = combiner::apply(f, &reassociation) {
            why_not.push(format!("reassociation: {e}"));
        }
    }
    if let Some(p) = pending {
        p.finish();
    }
    (!why_not.is_empty()).then(|| why_not.join("; "))
}
