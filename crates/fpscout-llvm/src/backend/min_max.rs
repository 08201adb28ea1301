//! Rewrites selects the backend turned into commutable `minss`/`maxss` as the SSE operation with the operand order the allocated machine code has.
//!
//! heronf's `if (a < c) swap` at -O3 -ffast-math is `select (fcmp olt x, c), c, x`, which
//! runs as `maxss %c_reg, %x_reg`: with a NaN the executable returns c where the IR's
//! select returns x, and `maxss` signals INVALID on quiet NaNs where the compare does not.
//! [`super::min_max_origins`] reads which operand each such instruction has first; the
//! IR instruction becomes
//! `llvm.minnum`/`llvm.maxnum` with `nnan`, which fpscout lowers as the bare SSE
//! instruction on operands in that order (`FBinaryOp::MinSse`/`MaxSse`). Min/max
//! reductions become the backend's halving tree. The first step keeps every
//! instruction's position, so the tagged lines of a MachineCombiner rewrite of the same
//! function stay valid; reductions and the erasure of compares left without users wait
//! until that rewrite is done ([`Pending::finish`]).

use super::min_max_origins::{CommutedMinMax, ValueOrigin};
use super::tag::{callee_name, TaggedFunction};
use llvm_sys::core::*;
use llvm_sys::debuginfo::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMRealPredicate, LLVMTypeKind};

/// One IR instruction to replace by a min/max on operands in machine order.
struct Plan {
    replaces: LLVMValueRef,
    is_max: bool,
    first: LLVMValueRef,
    second: LLVMValueRef,
}

/// What [`apply`] leaves for [`Pending::finish`]: work that moves instruction positions.
pub(crate) struct Pending {
    /// Compares that fed replaced selects (erased if nothing else reads them).
    compares: Vec<LLVMValueRef>,
    /// Reductions to expand, with each halving step's order (upper half first?).
    halvings: Vec<(LLVMValueRef, Vec<bool>)>,
    /// Why the min/max that do not fit were left as the IR says.
    pub errors: Vec<String>,
}

impl Pending {
    /// Expands the reductions and erases the compares left without users. Runs after
    /// every rewrite that reads instructions by tagged position.
    pub(crate) unsafe fn finish(self) {
        for (ir, upper_first) in self.halvings {
            let result = build_halving_tree(ir, &upper_first);
            LLVMReplaceAllUsesWith(ir, result);
            LLVMInstructionEraseFromParent(ir);
        }
        erase_dead_compares(self.compares);
    }
}

/// Rewrites the commutable min/max of `f` listed in `found` (read from its tagged build)
/// that fit the IR exactly, in place: every instruction keeps its position. Reductions,
/// which become several instructions, and dead compares are left for
/// [`Pending::finish`]. Each min/max stands alone: one that does not fit leaves its IR
/// instruction unchanged, and the returned errors say why.
pub(crate) unsafe fn apply(f: LLVMValueRef, found: &[CommutedMinMax]) -> Pending {
    let tagged = TaggedFunction::new(f);
    let mut plans: Vec<Plan> = Vec::with_capacity(found.len());
    let mut errors = Vec::new();
    let mut reductions: Vec<(LLVMValueRef, Vec<&CommutedMinMax>)> = Vec::new();
    for m in found {
        if let Some(r) = reduction_at(m, &tagged) {
            match reductions.iter_mut().find(|(ir, _)| *ir == r) {
                Some((_, steps)) => steps.push(m),
                None => reductions.push((r, vec![m])),
            }
            continue;
        }
        match plan_of(m, &tagged) {
            Ok(p) => plans.push(p),
            Err(e) => errors.push(e),
        }
    }
    let mut halvings = Vec::new();
    for (ir, steps) in reductions {
        match halving_order(ir, &steps) {
            Ok(order) => halvings.push((ir, order)),
            Err(e) => errors.push(e),
        }
    }
    // An IR instruction two machine instructions claim is left alone.
    let claimed_twice: Vec<LLVMValueRef> = plans
        .iter()
        .enumerate()
        .filter(|(i, p)| plans[..*i].iter().any(|q| q.replaces == p.replaces))
        .map(|(_, p)| p.replaces)
        .collect();
    if !claimed_twice.is_empty() {
        errors.push("two machine min/max from one IR instruction".into());
        plans.retain(|p| !claimed_twice.contains(&p.replaces));
    }
    let mut compares = Vec::new();
    // Operands may be instructions an earlier plan replaced (heronf's second swap reads
    // the first one's maximum).
    let mut replaced: Vec<(LLVMValueRef, LLVMValueRef)> = Vec::new();
    let current = |v: LLVMValueRef, replaced: &[(LLVMValueRef, LLVMValueRef)]| {
        replaced
            .iter()
            .find(|(old, _)| *old == v)
            .map_or(v, |(_, new)| *new)
    };
    for p in plans {
        if !LLVMIsASelectInst(p.replaces).is_null() {
            compares.push(LLVMGetOperand(p.replaces, 0));
        }
        let (first, second) = (current(p.first, &replaced), current(p.second, &replaced));
        let call = build_min_max(p.replaces, p.is_max, first, second);
        replaced.push((p.replaces, call));
        LLVMReplaceAllUsesWith(p.replaces, call);
        LLVMInstructionEraseFromParent(p.replaces);
    }
    errors.sort();
    errors.dedup();
    Pending {
        compares,
        halvings,
        errors,
    }
}

/// The `llvm.vector.reduce.fmin`/`fmax` call `m` lowers, if it is one.
unsafe fn reduction_at(m: &CommutedMinMax, tagged: &TaggedFunction) -> Option<LLVMValueRef> {
    let ir = tagged.instruction(m.line?).ok()?;
    let name = callee_name(ir)?;
    (name.starts_with(b"llvm.vector.reduce.fmax.") || name.starts_with(b"llvm.vector.reduce.fmin."))
        .then_some(ir)
}

/// For each halving step of the reduction `ir` (the x86 backend folds the upper half of
/// the vector onto the lower half until one lane is left), whether the machine code has
/// the upper half first: the shuffled operand is the upper half.
unsafe fn halving_order(ir: LLVMValueRef, steps: &[&CommutedMinMax]) -> Result<Vec<bool>, String> {
    let is_max = callee_name(ir).is_some_and(|n| n.starts_with(b"llvm.vector.reduce.fmax."));
    let ty = LLVMTypeOf(LLVMGetOperand(ir, 0));
    if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMVectorTypeKind {
        return Err("a min/max reduction of a scalar".into());
    }
    let lanes = LLVMGetVectorSize(ty);
    if !lanes.is_power_of_two() || steps.len() != lanes.trailing_zeros() as usize {
        return Err(format!(
            "a min/max reduction of {lanes} lanes in {} machine steps",
            steps.len()
        ));
    }
    steps
        .iter()
        .map(|m| {
            if m.is_max != is_max {
                return Err(format!("{} in a reduction of the other kind", m.opcode));
            }
            match m.shuffled {
                [true, false] => Ok(true),
                [false, true] => Ok(false),
                _ => Err(format!(
                    "cannot tell which operand of {} is the shuffled upper half",
                    m.opcode
                )),
            }
        })
        .collect()
}

/// The reduction `ir` as its halving steps, each a `llvm.minnum`/`maxnum` `nnan` on the
/// two halves in machine order; returns the scalar result.
unsafe fn build_halving_tree(ir: LLVMValueRef, upper_first: &[bool]) -> LLVMValueRef {
    let is_max = callee_name(ir).is_some_and(|n| n.starts_with(b"llvm.vector.reduce.fmax."));
    let ctx = LLVMGetTypeContext(LLVMTypeOf(ir));
    let builder = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderBefore(builder, ir);
    let i32_ty = LLVMInt32TypeInContext(ctx);
    let mut cur = LLVMGetOperand(ir, 0);
    let mut lanes = LLVMGetVectorSize(LLVMTypeOf(cur));
    for &upper_is_first in upper_first {
        let half = lanes / 2;
        let part = |from: u32| -> LLVMValueRef {
            if half == 1 {
                return LLVMBuildExtractElement(
                    builder,
                    cur,
                    LLVMConstInt(i32_ty, u64::from(from), 0),
                    c"".as_ptr(),
                );
            }
            let mut mask: Vec<LLVMValueRef> = (from..from + half)
                .map(|i| LLVMConstInt(i32_ty, u64::from(i), 0))
                .collect();
            LLVMBuildShuffleVector(
                builder,
                cur,
                LLVMGetPoison(LLVMTypeOf(cur)),
                LLVMConstVector(mask.as_mut_ptr(), half),
                c"".as_ptr(),
            )
        };
        let (lower, upper) = (part(0), part(half));
        let (first, second) = if upper_is_first {
            (upper, lower)
        } else {
            (lower, upper)
        };
        cur = build_min_max(ir, is_max, first, second);
        lanes = half;
    }
    LLVMDisposeBuilder(builder);
    cur
}

/// The IR instruction `m` lowers and its operands in machine order.
unsafe fn plan_of(m: &CommutedMinMax, tagged: &TaggedFunction) -> Result<Plan, String> {
    let tag = m
        .line
        .ok_or_else(|| format!("{} has no IR position", m.opcode))?;
    let ir = tagged.instruction(tag)?;
    let (candidates, is_max) = min_max_operands(ir)?;
    if is_max != m.is_max {
        return Err(format!(
            "{} lowers an IR {}",
            m.opcode,
            if is_max { "maximum" } else { "minimum" }
        ));
    }
    let first = resolve(&m.first, tagged, candidates)?;
    let second = match &m.second {
        // A folded memory operand is the candidate the register does not hold (both
        // may be loads, as in a vectorised `a[i] < b[i] ? a[i] : b[i]`).
        ValueOrigin::Constant | ValueOrigin::FoldedLoad => {
            let other = if first == candidates[0] {
                candidates[1]
            } else {
                candidates[0]
            };
            let fits = match &m.second {
                ValueOrigin::Constant => LLVMIsConstant(other) != 0,
                _ => !LLVMIsALoadInst(other).is_null(),
            };
            if !fits {
                return Err(format!(
                    "the memory operand of {} is not the other IR operand",
                    m.opcode
                ));
            }
            other
        }
        origin => resolve(origin, tagged, candidates)?,
    };
    let same = |a: LLVMValueRef, b: LLVMValueRef| {
        (a == candidates[0] && b == candidates[1]) || (a == candidates[1] && b == candidates[0])
    };
    if !same(first, second) {
        return Err(format!(
            "the registers of {} are not the IR operands",
            m.opcode
        ));
    }
    Ok(Plan {
        replaces: ir,
        is_max,
        first,
        second,
    })
}

/// Erases the compares a rewrite left without users (the machine code computes none).
unsafe fn erase_dead_compares(mut compares: Vec<LLVMValueRef>) {
    compares.sort();
    compares.dedup();
    for c in compares {
        if LLVMIsAFCmpInst(c).is_null() {
            continue;
        }
        if LLVMGetFirstUse(c).is_null() {
            LLVMInstructionEraseFromParent(c);
        }
    }
}

/// The two values an IR min/max chooses between, and whether it is a maximum:
/// `select (fcmp pred x, y), x|y, y|x` or a `llvm.minnum`/`llvm.maxnum` call.
unsafe fn min_max_operands(ir: LLVMValueRef) -> Result<([LLVMValueRef; 2], bool), String> {
    if !LLVMIsASelectInst(ir).is_null() {
        let (cond, t, e) = (
            LLVMGetOperand(ir, 0),
            LLVMGetOperand(ir, 1),
            LLVMGetOperand(ir, 2),
        );
        if LLVMIsAFCmpInst(cond).is_null() {
            return Err("a min/max select without a floating-point compare".into());
        }
        let (x, y) = (LLVMGetOperand(cond, 0), LLVMGetOperand(cond, 1));
        let less = match LLVMGetFCmpPredicate(cond) {
            LLVMRealPredicate::LLVMRealOLT
            | LLVMRealPredicate::LLVMRealOLE
            | LLVMRealPredicate::LLVMRealULT
            | LLVMRealPredicate::LLVMRealULE => true,
            LLVMRealPredicate::LLVMRealOGT
            | LLVMRealPredicate::LLVMRealOGE
            | LLVMRealPredicate::LLVMRealUGT
            | LLVMRealPredicate::LLVMRealUGE => false,
            _ => return Err("a min/max select on an equality compare".into()),
        };
        let takes_first_when_true = if t == x && e == y {
            true
        } else if t == y && e == x {
            false
        } else {
            return Err("a min/max select whose values are not the compared ones".into());
        };
        // x < y ? x : y is the minimum; x > y ? x : y the maximum.
        return Ok(([t, e], less != takes_first_when_true));
    }
    let is_max = match callee_name(ir) {
        Some(n) if n.starts_with(b"llvm.maxnum.") => true,
        Some(n) if n.starts_with(b"llvm.minnum.") => false,
        _ => return Err("the IR instruction is neither a min/max select nor minnum/maxnum".into()),
    };
    Ok(([LLVMGetOperand(ir, 0), LLVMGetOperand(ir, 1)], is_max))
}

/// The IR value a machine operand holds, among the two `candidates`.
unsafe fn resolve(
    origin: &ValueOrigin,
    tagged: &TaggedFunction,
    candidates: [LLVMValueRef; 2],
) -> Result<LLVMValueRef, String> {
    let only = |fits: &dyn Fn(LLVMValueRef) -> bool, what: &str| match (
        fits(candidates[0]),
        fits(candidates[1]),
    ) {
        (true, false) => Ok(candidates[0]),
        (false, true) => Ok(candidates[1]),
        _ if candidates[0] == candidates[1] => Ok(candidates[0]),
        _ => Err(format!("cannot tell which operand is the {what}")),
    };
    match origin {
        ValueOrigin::Instruction(tag) => tagged.instruction(*tag),
        ValueOrigin::ArgumentRegister(n) => vector_register_argument(tagged.function, *n),
        ValueOrigin::Constant => only(&|v| LLVMIsConstant(v) != 0, "constant"),
        ValueOrigin::FoldedLoad => only(&|v| !LLVMIsALoadInst(v).is_null(), "folded load"),
        ValueOrigin::PhiOf(tag) => {
            let block = tagged.block(*tag)?;
            only(
                &|v| !LLVMIsAPHINode(v).is_null() && LLVMGetInstructionParent(v) == block,
                "phi",
            )
        }
        ValueOrigin::Unknown(why) => Err(why.clone()),
    }
}

/// The parameter passed in `%xmm{n}`: the System V ABI gives float, double and vector
/// parameters the vector registers in order.
unsafe fn vector_register_argument(f: LLVMValueRef, n: u32) -> Result<LLVMValueRef, String> {
    let mut seen = 0;
    for i in 0..LLVMCountParams(f) {
        let p = LLVMGetParam(f, i);
        match LLVMGetTypeKind(LLVMTypeOf(p)) {
            LLVMTypeKind::LLVMFloatTypeKind
            | LLVMTypeKind::LLVMDoubleTypeKind
            | LLVMTypeKind::LLVMVectorTypeKind => {
                if seen == n {
                    return Ok(p);
                }
                seen += 1;
            }
            LLVMTypeKind::LLVMIntegerTypeKind | LLVMTypeKind::LLVMPointerTypeKind => {}
            _ => return Err("a parameter type whose register is not known".into()),
        }
    }
    Err(format!("no parameter arrives in %xmm{n}"))
}

/// `llvm.minnum`/`llvm.maxnum` on `(first, second)` with no-NaNs, in place of `replaces`.
unsafe fn build_min_max(
    replaces: LLVMValueRef,
    is_max: bool,
    first: LLVMValueRef,
    second: LLVMValueRef,
) -> LLVMValueRef {
    let module = LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInstructionParent(replaces)));
    let name = if is_max { "llvm.maxnum" } else { "llvm.minnum" };
    let id = LLVMLookupIntrinsicID(name.as_ptr().cast(), name.len());
    let mut ty = [LLVMTypeOf(first)];
    let callee = LLVMGetIntrinsicDeclaration(module, id, ty.as_mut_ptr(), 1);
    let fn_ty = LLVMIntrinsicGetType(LLVMGetTypeContext(ty[0]), id, ty.as_mut_ptr(), 1);
    let builder = LLVMCreateBuilderInContext(LLVMGetTypeContext(ty[0]));
    LLVMPositionBuilderBefore(builder, replaces);
    let mut args = [first, second];
    let call = LLVMBuildCall2(builder, fn_ty, callee, args.as_mut_ptr(), 2, c"".as_ptr());
    LLVMDisposeBuilder(builder);
    LLVMSetFastMathFlags(
        call,
        llvm_sys::LLVMFastMathNoNaNs | llvm_sys::LLVMFastMathNoSignedZeros,
    );
    LLVMInstructionSetDebugLoc(call, LLVMInstructionGetDebugLoc(replaces));
    call
}

#[cfg(test)]
mod tests {
    use super::super::tag::Tag;
    use super::*;
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;
    use inkwell::values::AsValueRef;

    /// heronf's two swaps: line 1 is the compare, 2 the minimum, 3 the maximum; line 4
    /// compares the maximum with c and 6 takes the larger of the two.
    const SWAPS: &str = "define float @f(float %a, float %b, float %c) {
        %lt = fcmp fast olt float %a, %b
        %lo = select nsz i1 %lt, float %a, float %b
        %hi = select nsz i1 %lt, float %b, float %a
        %lt2 = fcmp fast olt float %hi, %c
        %keep = select nsz i1 %lt2, float %hi, float %c
        %top = select nsz i1 %lt2, float %c, float %hi
        %s = fadd fast float %top, %lo
        %t = fadd fast float %s, %keep
        ret float %t
      }";

    /// The IR instruction the tagged build's debug line `n` names.
    fn line(n: u32) -> Tag {
        Tag::Instruction(n - 1)
    }

    fn min_max(
        is_max: bool,
        line_no: u32,
        first: ValueOrigin,
        second: ValueOrigin,
    ) -> CommutedMinMax {
        CommutedMinMax {
            is_max,
            opcode: if is_max { "MAXCSSrr" } else { "MINCSSrr" }.into(),
            line: Some(line(line_no)),
            first,
            second,
            shuffled: [false, false],
        }
    }

    /// Applies `found` to `f` of [`SWAPS`], then erases dead compares; returns the outcome
    /// and the function's text.
    fn applied(found: &[CommutedMinMax]) -> (Result<usize, String>, String) {
        let context = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(SWAPS.as_bytes(), "t");
        let module = context.create_module_from_ir(buffer).expect("valid IR");
        let f = module.get_function("f").expect("f");
        // SAFETY: `f` belongs to the live `module`.
        let outcome = unsafe {
            let mut pending = apply(f.as_value_ref(), found);
            let n = pending.compares.len();
            let errors = std::mem::take(&mut pending.errors);
            pending.finish();
            if errors.is_empty() {
                Ok(n)
            } else {
                Err(errors.join("; "))
            }
        };
        module.verify().expect("still valid IR");
        (outcome, module.print_to_string().to_string())
    }

    fn heronf_machine_code() -> Vec<CommutedMinMax> {
        use ValueOrigin::*;
        vec![
            min_max(false, 2, ArgumentRegister(0), ArgumentRegister(1)),
            min_max(true, 3, ArgumentRegister(1), ArgumentRegister(0)),
            min_max(false, 5, Instruction(line(3)), ArgumentRegister(2)),
            min_max(true, 6, Instruction(line(3)), ArgumentRegister(2)),
        ]
    }

    #[test]
    fn selects_become_min_max_on_the_operands_in_machine_order() {
        let (outcome, text) = applied(&heronf_machine_code());
        assert_eq!(outcome, Ok(4), "{text}");
        assert!(
            text.contains("call nnan nsz float @llvm.minnum.f32(float %a, float %b)"),
            "{text}"
        );
        assert!(
            text.contains("call nnan nsz float @llvm.maxnum.f32(float %b, float %a)"),
            "{text}"
        );
        // The second swap reads the first one's maximum, now the call.
        assert!(
            text.contains("@llvm.maxnum.f32(float %2, float %c)"),
            "{text}"
        );
        assert!(!text.contains("select") && !text.contains("fcmp"), "{text}");
    }

    const REDUCTION: &str = "define float @r(<4 x float> %v) {
        %m = call fast float @llvm.vector.reduce.fmax.v4f32(<4 x float> %v)
        ret float %m
      }
      declare float @llvm.vector.reduce.fmax.v4f32(<4 x float>)";

    fn reduced(steps: &[[bool; 2]]) -> (Vec<String>, String) {
        let context = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(REDUCTION.as_bytes(), "t");
        let module = context.create_module_from_ir(buffer).expect("valid IR");
        let f = module.get_function("r").expect("r");
        let found: Vec<CommutedMinMax> = steps
            .iter()
            .map(|&shuffled| CommutedMinMax {
                shuffled,
                ..min_max(
                    true,
                    1,
                    ValueOrigin::Instruction(line(1)),
                    ValueOrigin::Instruction(line(1)),
                )
            })
            .collect();
        // SAFETY: `f` belongs to the live `module`.
        let errors = unsafe {
            let mut pending = apply(f.as_value_ref(), &found);
            let errors = std::mem::take(&mut pending.errors);
            pending.finish();
            errors
        };
        module.verify().expect("still valid IR");
        (errors, module.print_to_string().to_string())
    }

    #[test]
    fn a_reduction_halves_with_the_shuffled_half_where_the_machine_has_it() {
        let (errors, text) = reduced(&[[true, false], [false, true]]);
        assert!(errors.is_empty(), "{errors:?}");
        assert!(
            !text.contains("call fast float @llvm.vector.reduce"),
            "{text}"
        );
        // Upper half first, then lower lane first.
        assert!(
            text.contains(
                "shufflevector <4 x float> %v, <4 x float> poison, <2 x i32> <i32 2, i32 3>"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "call nnan nsz <2 x float> @llvm.maxnum.v2f32(<2 x float> %2, <2 x float> %1)"
            ),
            "{text}"
        );
        assert!(
            text.contains("call nnan nsz float @llvm.maxnum.f32(float %4, float %5)"),
            "{text}"
        );
        // Two steps are needed for four lanes, and each must say which half it shuffled.
        for (steps, why) in [
            (vec![[true, false]], "4 lanes in 1 machine steps"),
            (vec![[true, false], [true, true]], "shuffled upper half"),
        ] {
            let (errors, text) = reduced(&steps);
            assert!(errors.iter().any(|e| e.contains(why)), "{errors:?}");
            assert!(text.contains("llvm.vector.reduce.fmax"), "{text}");
        }
    }

    #[test]
    fn a_min_max_that_does_not_fit_leaves_its_instruction_alone() {
        use ValueOrigin::*;
        let cases: Vec<(Vec<CommutedMinMax>, &str)> = vec![
            // The machine computes a maximum where the IR selects the minimum.
            (
                vec![min_max(true, 2, ArgumentRegister(0), ArgumentRegister(1))],
                "lowers an IR minimum",
            ),
            // A register holding a value the select does not choose between.
            (
                vec![min_max(false, 2, ArgumentRegister(0), ArgumentRegister(2))],
                "not the IR operands",
            ),
            (
                vec![min_max(false, 2, ArgumentRegister(0), ArgumentRegister(0))],
                "not the IR operands",
            ),
            (
                vec![min_max(
                    false,
                    2,
                    ArgumentRegister(0),
                    Unknown("clobbered".into()),
                )],
                "clobbered",
            ),
            // The compare is not a min/max select.
            (
                vec![min_max(false, 1, ArgumentRegister(0), ArgumentRegister(1))],
                "neither",
            ),
            (
                vec![min_max(false, 40, ArgumentRegister(0), ArgumentRegister(1))],
                "outside",
            ),
        ];
        for (found, why) in cases {
            let (outcome, text) = applied(&found);
            assert!(
                matches!(&outcome, Err(e) if e.contains(why)),
                "{why}: {outcome:?}"
            );
            assert!(!text.contains("llvm.m"), "{why}: {text}");
            assert_eq!(text.matches("select").count(), 4, "{why}: {text}");
        }
        // The others are still rewritten; an IR instruction claimed twice is not.
        let twice = [
            heronf_machine_code(),
            vec![min_max(true, 3, ArgumentRegister(1), ArgumentRegister(0))],
        ]
        .concat();
        let (outcome, text) = applied(&twice);
        assert_eq!(
            outcome,
            Err("two machine min/max from one IR instruction".into())
        );
        assert_eq!(text.matches("select").count(), 1, "{text}");
        assert!(text.contains("%hi = select"), "{text}");
    }
}
