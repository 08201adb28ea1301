//! Keeps vector lanes no use reads from raising exceptions, as in the code the x86 backend selects.
//!
//! SelectionDAG only computes what is demanded (SimplifyDemandedVectorElts): a vector
//! operation whose result is read in lane 0 only becomes a scalar `mulss`, and operands of
//! unread lanes become undefined. The IR still computes every lane, so an unread lane (an
//! SLP-vectorised `r - r` next to the used `1 - v`, or the cube of a value only lane 0 of
//! which is summed) would raise flags the executable never raises. For optimised builds,
//! the unread lanes of each vector `fadd`/`fsub`/`fmul`/`fdiv` take 1.0 on both sides, on
//! which every one of these operations is exact and quiet; the read lanes are untouched.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::collections::HashMap;

type Mask = u64;

/// Rewrites the vector arithmetic of `f` whose result some lanes of are never read;
/// returns the number of instructions changed.
pub(crate) unsafe fn neutralise_unread_lanes(f: LLVMValueRef) -> usize {
    let insts = super::tag::counted_instructions(f);
    let demand = demanded_lanes(&insts);
    let mut changed = 0;
    for &i in &insts {
        if !matches!(
            LLVMGetInstructionOpcode(i),
            LLVMOpcode::LLVMFAdd
                | LLVMOpcode::LLVMFSub
                | LLVMOpcode::LLVMFMul
                | LLVMOpcode::LLVMFDiv
        ) {
            continue;
        }
        let Some(n) = vector_lanes(LLVMTypeOf(i)) else {
            continue;
        };
        let read = demand.get(&(i as usize)).copied().unwrap_or(0);
        if read & full(n) == full(n) {
            continue;
        }
        let ty = LLVMTypeOf(i);
        let elem = LLVMGetElementType(ty);
        let ones: Vec<LLVMValueRef> = (0..n).map(|_| LLVMConstReal(elem, 1.0)).collect();
        let ones = LLVMConstVector(ones.as_ptr() as *mut _, n);
        let i32_ty = LLVMInt32TypeInContext(LLVMGetTypeContext(ty));
        let mask: Vec<LLVMValueRef> = (0..n)
            .map(|l| {
                let pick = if read >> l & 1 == 1 { l } else { n + l };
                LLVMConstInt(i32_ty, u64::from(pick), 0)
            })
            .collect();
        let mask = LLVMConstVector(mask.as_ptr() as *mut _, n);
        let builder = LLVMCreateBuilderInContext(LLVMGetTypeContext(ty));
        LLVMPositionBuilderBefore(builder, i);
        for k in 0..2 {
            let operand = LLVMGetOperand(i, k);
            let kept = LLVMBuildShuffleVector(builder, operand, ones, mask, c"".as_ptr());
            LLVMSetOperand(i, k, kept);
        }
        LLVMDisposeBuilder(builder);
        changed += 1;
    }
    changed
}

fn full(n: u32) -> Mask {
    if n >= 64 {
        Mask::MAX
    } else {
        (1 << n) - 1
    }
}

unsafe fn vector_lanes(ty: LLVMTypeRef) -> Option<u32> {
    (LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind).then(|| LLVMGetVectorSize(ty))
}

/// For every vector-valued instruction, the lanes some use may read (a fixpoint from
/// "none", as phis can feed each other).
unsafe fn demanded_lanes(insts: &[LLVMValueRef]) -> HashMap<usize, Mask> {
    let mut demand: HashMap<usize, Mask> = HashMap::new();
    loop {
        let mut grew = false;
        for &v in insts.iter().rev() {
            if vector_lanes(LLVMTypeOf(v)).is_none() {
                continue;
            }
            let mut read: Mask = 0;
            let mut u = LLVMGetFirstUse(v);
            while !u.is_null() {
                read |= read_by(LLVMGetUser(u), v, &demand);
                u = LLVMGetNextUse(u);
            }
            let old = demand.entry(v as usize).or_insert(0);
            if read & !*old != 0 {
                *old |= read;
                grew = true;
            }
        }
        if !grew {
            return demand;
        }
    }
}

/// The lanes of `v` that `user` may read, given what is known to be read of its result.
unsafe fn read_by(user: LLVMValueRef, v: LLVMValueRef, demand: &HashMap<usize, Mask>) -> Mask {
    let all = Mask::MAX;
    if LLVMIsAInstruction(user).is_null() {
        return all;
    }
    let result = || demand.get(&(user as usize)).copied().unwrap_or(0);
    let same_lanes = || vector_lanes(LLVMTypeOf(user)) == vector_lanes(LLVMTypeOf(v));
    let const_index = |k: u32| {
        let idx = LLVMGetOperand(user, k);
        (!LLVMIsAConstantInt(idx).is_null()).then(|| LLVMConstIntGetZExtValue(idx))
    };
    use LLVMOpcode::*;
    match LLVMGetInstructionOpcode(user) {
        LLVMExtractElement => match const_index(1) {
            Some(i) if i < 64 => 1 << i,
            _ => all,
        },
        LLVMInsertElement if LLVMGetOperand(user, 0) == v => match const_index(2) {
            Some(i) if i < 64 => result() & !(1 << i),
            _ => result(),
        },
        LLVMShuffleVector => {
            let Some(n) = vector_lanes(LLVMTypeOf(LLVMGetOperand(user, 0))) else {
                return all;
            };
            let wanted = result();
            let mut read = 0;
            for lane in 0..LLVMGetNumMaskElements(user) {
                let m = LLVMGetMaskValue(user, lane);
                if wanted >> lane.min(63) & 1 == 0 || m < 0 {
                    continue;
                }
                let m = m as u32;
                if LLVMGetOperand(user, 0) == v && m < n && m < 64 {
                    read |= 1 << m;
                }
                if LLVMGetOperand(user, 1) == v && m >= n && m - n < 64 {
                    read |= 1 << (m - n);
                }
            }
            read
        }
        LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFNeg | LLVMAdd | LLVMSub
        | LLVMMul | LLVMAnd | LLVMOr | LLVMXor | LLVMShl | LLVMLShr | LLVMAShr | LLVMICmp
        | LLVMFCmp | LLVMSelect | LLVMPHI | LLVMFPExt | LLVMFPTrunc | LLVMSIToFP | LLVMUIToFP
        | LLVMFPToSI | LLVMFPToUI | LLVMZExt | LLVMSExt | LLVMTrunc | LLVMBitCast
            if same_lanes() =>
        {
            result()
        }
        LLVMCall if same_lanes() && is_lanewise_intrinsic(user) => result(),
        _ => all,
    }
}

/// Intrinsics that compute each lane from the same lane of their operands.
unsafe fn is_lanewise_intrinsic(call: LLVMValueRef) -> bool {
    let callee = LLVMGetCalledValue(call);
    if callee.is_null() || LLVMIsAFunction(callee).is_null() {
        return false;
    }
    let mut len = 0usize;
    let p = LLVMGetValueName2(callee, &mut len);
    if p.is_null() {
        return false;
    }
    let name = String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len));
    [
        "llvm.fabs.",
        "llvm.sqrt.",
        "llvm.fma.",
        "llvm.fmuladd.",
        "llvm.minnum.",
        "llvm.maxnum.",
        "llvm.copysign.",
        "llvm.floor.",
        "llvm.ceil.",
        "llvm.trunc.",
        "llvm.round.",
        "llvm.rint.",
        "llvm.nearbyint.",
    ]
    .iter()
    .any(|prefix| name.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;
    use inkwell::values::AsValueRef;

    /// The function `f` of `ir` after the rewrite, printed.
    fn rewritten(ir: &str) -> (usize, String) {
        let context = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "t");
        let module = context.create_module_from_ir(buffer).expect("valid IR");
        let f = module.get_function("f").expect("f");
        // SAFETY: `f` belongs to the live `module`.
        let n = unsafe { neutralise_unread_lanes(f.as_value_ref()) };
        module.verify().expect("still valid IR");
        (n, module.print_to_string().to_string())
    }

    #[test]
    fn unread_lanes_take_ones_and_read_lanes_stay() {
        // Lane 0 of %d is never read (inf - inf there must not raise INVALID); both lanes
        // of %s are.
        let (n, text) = rewritten(
            "define double @f(double %x, double %y) {
               %a = insertelement <2 x double> poison, double %x, i64 0
               %b = insertelement <2 x double> %a, double %y, i64 1
               %c = shufflevector <2 x double> %b, <2 x double> poison, <2 x i32> <i32 1, i32 0>
               %d = fsub fast <2 x double> %b, %c
               %s = fmul fast <2 x double> %b, %c
               %e = extractelement <2 x double> %d, i64 1
               %m0 = extractelement <2 x double> %s, i64 0
               %m1 = extractelement <2 x double> %s, i64 1
               %t = fadd fast double %e, %m0
               %r = fadd fast double %t, %m1
               ret double %r
             }",
        );
        assert_eq!(n, 1, "{text}");
        let keep =
            "<2 x double> <double 1.000000e+00, double 1.000000e+00>, <2 x i32> <i32 2, i32 1>";
        assert_eq!(text.matches(keep).count(), 2, "{text}");
        assert!(text.contains("fmul fast <2 x double> %b, %c"), "{text}");
    }

    #[test]
    fn demand_flows_through_shuffles_inserts_and_phis() {
        // %v's lane 1 is overwritten before anything reads it, so only lane 0 is demanded;
        // lane 0 of the loop-carried %next is read by %v, lane 1 by %l, so the loop's
        // addition keeps both.
        let (n, text) = rewritten(
            "define double @f(<2 x double> %x, i1 %c) {
             entry:
               br label %loop
             loop:
               %acc = phi <2 x double> [ %x, %entry ], [ %next, %loop ]
               %next = fadd fast <2 x double> %acc, %x
               br i1 %c, label %loop, label %done
             done:
               %v = fdiv fast <2 x double> %next, %x
               %w = insertelement <2 x double> %v, double 0.0, i64 1
               %r = call fast double @llvm.vector.reduce.fadd.v2f64(double 0.0, <2 x double> %w)
               %l = extractelement <2 x double> %next, i64 1
               %s = fadd fast double %r, %l
               ret double %s
             }
             declare double @llvm.vector.reduce.fadd.v2f64(double, <2 x double>)",
        );
        assert_eq!(n, 1, "{text}");
        assert!(text.contains("<2 x i32> <i32 0, i32 3>"), "{text}");
        assert!(text.contains("fadd fast <2 x double> %acc, %x"), "{text}");
    }
}
