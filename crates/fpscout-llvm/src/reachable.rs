//! Cuts an IR module down to what one function reaches (callees, globals, what their initializers name).
//!
//! A whole library linked into one module (GSL's special functions: ~1,500 functions)
//! makes every step of a run pay for all of it: the P' optimisation, the tagged machine
//! code dumps, lowering, the native executables. What the function cannot reach cannot
//! change its behaviour, so it is deleted first. Reached definitions keep their linkage:
//! internalising them would change the optimiser's inlining and calling conventions.

use crate::{parse_ir_file, FrontError, Result};
use inkwell::context::Context;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMLinkage;
use std::collections::HashSet;
use std::ffi::CString;
use std::path::Path;

/// Writes to `out` the module of `src` holding only what `function` (symbol, or C++
/// source name) reaches. `Ok(false)` when the module has no such definition: nothing is
/// written, and the caller reports the missing function as it would without this step.
pub fn write_reachable_from(src: &Path, roots: &[&str], out: &Path) -> Result<bool> {
    let context = Context::create();
    let module = parse_ir_file(&context, src)?;
    // SAFETY: `module` is a live module of this thread's context, owned by `module`.
    unsafe {
        let m = module.as_mut_ptr();
        let mut live = HashSet::new();
        for function in roots {
            let Some(root) = find_definition(m, function) else {
                return Ok(false);
            };
            live.extend(reachable_from(root));
        }
        // Dead definitions become internal, so that global DCE may delete them; it keeps
        // anything still referenced, which by construction is only from dead code.
        for g in definitions(m) {
            if !live.contains(&(g as usize)) {
                LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
            }
        }
        let passes = CString::new("globaldce").unwrap_or_default();
        let options = llvm_sys::transforms::pass_builder::LLVMCreatePassBuilderOptions();
        let err = llvm_sys::transforms::pass_builder::LLVMRunPasses(
            m,
            passes.as_ptr(),
            std::ptr::null_mut(),
            options,
        );
        llvm_sys::transforms::pass_builder::LLVMDisposePassBuilderOptions(options);
        if !err.is_null() {
            let msg = llvm_sys::error::LLVMGetErrorMessage(err);
            let text = std::ffi::CStr::from_ptr(msg).to_string_lossy().into_owned();
            llvm_sys::error::LLVMDisposeErrorMessage(msg);
            return Err(FrontError::Parse {
                path: src.to_path_buf(),
                message: format!("removing what {} does not reach: {text}", roots.join(", ")),
            });
        }
    }
    if !module.write_bitcode_to_path(out) {
        return Err(FrontError::Parse {
            path: out.to_path_buf(),
            message: "cannot write bitcode".into(),
        });
    }
    Ok(true)
}

unsafe fn find_definition(m: LLVMModuleRef, function: &str) -> Option<LLVMValueRef> {
    let mut by_source_name = None;
    let mut f = LLVMGetFirstFunction(m);
    while !f.is_null() {
        if LLVMIsDeclaration(f) == 0 {
            let name = crate::lower::value_name(f);
            if name == function {
                return Some(f);
            }
            let source = crate::lower::display_name(&name);
            if by_source_name.is_none() && source == function {
                by_source_name = Some(f);
            }
        }
        f = LLVMGetNextFunction(f);
    }
    by_source_name
}

/// Functions, variables and aliases defined in the module.
unsafe fn definitions(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut f = LLVMGetFirstFunction(m);
    while !f.is_null() {
        if LLVMIsDeclaration(f) == 0 {
            out.push(f);
        }
        f = LLVMGetNextFunction(f);
    }
    let mut g = LLVMGetFirstGlobal(m);
    while !g.is_null() {
        // `llvm.used`, `llvm.global_ctors`…: appending linkage, roots by definition.
        if LLVMIsDeclaration(g) == 0 && !crate::lower::value_name(g).starts_with("llvm.") {
            out.push(g);
        }
        g = LLVMGetNextGlobal(g);
    }
    let mut a = LLVMGetFirstGlobalAlias(m);
    while !a.is_null() {
        out.push(a);
        a = LLVMGetNextGlobalAlias(a);
    }
    out
}

/// Every global value `root` names, directly or through what those name: operands of
/// instructions, initializers, aliasees, constant expressions and aggregates.
unsafe fn reachable_from(root: LLVMValueRef) -> HashSet<usize> {
    let mut live = HashSet::new();
    let mut seen_constants = HashSet::new();
    let mut work = vec![root];
    live.insert(root as usize);
    while let Some(g) = work.pop() {
        let mut named = Vec::new();
        if !LLVMIsAFunction(g).is_null() {
            let mut b = LLVMGetFirstBasicBlock(g);
            while !b.is_null() {
                let mut i = LLVMGetFirstInstruction(b);
                while !i.is_null() {
                    for k in 0..LLVMGetNumOperands(i).max(0) as u32 {
                        named.push(LLVMGetOperand(i, k));
                    }
                    i = LLVMGetNextInstruction(i);
                }
                b = LLVMGetNextBasicBlock(b);
            }
        } else if !LLVMIsAGlobalVariable(g).is_null() {
            let init = LLVMGetInitializer(g);
            if !init.is_null() {
                named.push(init);
            }
        } else if !LLVMIsAGlobalAlias(g).is_null() {
            named.push(LLVMAliasGetAliasee(g));
        }
        while let Some(v) = named.pop() {
            if v.is_null() || LLVMIsConstant(v) == 0 {
                continue;
            }
            if !LLVMIsAGlobalValue(v).is_null() {
                if live.insert(v as usize) {
                    work.push(v);
                }
            } else if seen_constants.insert(v as usize) {
                // Constant expressions and aggregates: their operands may name globals.
                for k in 0..LLVMGetNumOperands(v).max(0) as u32 {
                    named.push(LLVMGetOperand(v, k));
                }
            }
        }
    }
    live
}
