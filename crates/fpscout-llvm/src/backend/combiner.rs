//! Applies LLVM's MachineCombiner reassociations, read from the backend's own machine code, to the IR before lowering.
//!
//! The x86 MachineCombiner reassociates `reassoc` additions and multiplications after
//! instruction selection, so the executable computes `A op (X op Y)` where the IR says
//! `(A op X) op Y`. In the dumps of the tagged copy (checked by the caller to be the
//! executable's machine code), each rewritten machine instruction names the IR
//! instruction it replaces by its [`Tag`], and virtual registers say how the operands
//! moved ([`apply`], from [`super::machine_rewrites`]' reading). Anything that does not
//! fit this reading exactly is refused with a reason, and the function stays as the IR
//! says.

use super::machine_rewrites::{MirInst, Reassociation};
use super::tag::{Tag, TaggedFunction};
use llvm_sys::core::*;
use llvm_sys::debuginfo::{LLVMInstructionGetDebugLoc, LLVMInstructionSetDebugLoc};
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::collections::{HashMap, HashSet};

/// The IR opcode of a machine opcode the MachineCombiner reassociates (`ADDSDrr`,
/// `MULPSrr`, `VADDPDYrr`, ...); `None` for anything else.
fn ir_opcode(mir: &MirInst) -> Option<LLVMOpcode> {
    let name = mir.opcode.strip_prefix('V').unwrap_or(&mir.opcode);
    let (op, rest) = name.split_at_checked(3)?;
    let kind = match op {
        "ADD" => LLVMOpcode::LLVMFAdd,
        "MUL" => LLVMOpcode::LLVMFMul,
        "SUB" => LLVMOpcode::LLVMFSub,
        _ => return None,
    };
    ["SS", "SD", "PS", "PD"]
        .iter()
        .any(|p| rest.starts_with(p))
        .then_some(kind)
}

/// One instruction to build: the machine instruction's operation on resolved operands.
struct NewInst {
    opcode: LLVMOpcode,
    operands: [Operand; 2],
    /// The IR instruction it replaces (its type, flags and source location are reused).
    replaces: LLVMValueRef,
}

#[derive(Clone, Copy)]
enum Operand {
    Ir(LLVMValueRef),
    /// The result of an earlier instruction of the plan.
    New(usize),
}

/// Rewrites `f` as the MachineCombiner rewrote its machine code; returns the number of
/// IR instructions replaced. Nothing changes when an error is returned.
pub(crate) unsafe fn apply(f: LLVMValueRef, r: &Reassociation) -> Result<usize, String> {
    let tagged = TaggedFunction::new(f);
    let insts = &tagged.insts;
    let at = |mir: &MirInst| -> Result<LLVMValueRef, String> {
        let tag: Tag = mir
            .line
            .ok_or_else(|| format!("machine instruction %{} has no IR position", mir.dest))?;
        tagged.instruction(tag)
    };
    if r.removed.is_empty() || r.removed.len() != r.added.len() {
        return Err(format!(
            "{} machine instructions replaced by {}",
            r.removed.len(),
            r.added.len()
        ));
    }
    // Replaced instructions: the IR instruction each one was selected from.
    let mut replaced: HashMap<u32, LLVMValueRef> = HashMap::new();
    let mut lines = HashSet::new();
    for m in &r.removed {
        let ir = at(m)?;
        let op = ir_opcode(m).ok_or_else(|| format!("machine opcode {}", m.opcode))?;
        if LLVMGetInstructionOpcode(ir) != op || m.sources.len() != 2 {
            return Err(format!("{} does not match its IR instruction", m.opcode));
        }
        if !lines.insert(m.line) || replaced.insert(m.dest, ir).is_some() {
            return Err("two machine instructions from one IR instruction".into());
        }
    }
    let block = LLVMGetInstructionParent(*replaced.values().next().expect("non-empty"));
    if replaced
        .values()
        .any(|&i| LLVMGetInstructionParent(i) != block)
    {
        return Err("the rewritten instructions span several blocks".into());
    }
    let leaves = resolve_leaves(r, &replaced, &at)?;
    let mut plan: Vec<NewInst> = Vec::new();
    let mut new_vregs: HashMap<u32, usize> = HashMap::new();
    for m in &r.added {
        let replaces = at(m)?;
        if !lines.contains(&m.line) {
            return Err(format!(
                "new machine instruction %{} at an unrewritten IR position",
                m.dest
            ));
        }
        let opcode = ir_opcode(m).ok_or_else(|| format!("machine opcode {}", m.opcode))?;
        if m.sources.len() != 2 {
            return Err(format!(
                "{} with {} register operands",
                m.opcode,
                m.sources.len()
            ));
        }
        let operand = |v: u32| -> Result<Operand, String> {
            if let Some(&i) = new_vregs.get(&v) {
                Ok(Operand::New(i))
            } else if replaced.contains_key(&v) {
                Err(format!("%{v} is used after it was replaced"))
            } else {
                match leaves.get(&v) {
                    Some(&ir) if !replaced.values().any(|&x| x == ir) => Ok(Operand::Ir(ir)),
                    Some(_) => Err(format!("%{v} copies a replaced value")),
                    None => Err(format!("operand %{v} has no IR value")),
                }
            }
        };
        let operands = [operand(m.sources[0])?, operand(m.sources[1])?];
        if operands
            .iter()
            .all(|o| matches!(o, Operand::Ir(v) if LLVMIsConstant(*v) != 0))
        {
            // The IR builder would fold it, while the executable computes it at run time.
            return Err("an operation on two constants".into());
        }
        new_vregs.insert(m.dest, plan.len());
        plan.push(NewInst {
            opcode,
            operands,
            replaces,
        });
    }
    // Roots keep their register; every other replaced value must die with the rewrite.
    let position: HashMap<usize, usize> = insts
        .iter()
        .enumerate()
        .map(|(i, &v)| (v as usize, i))
        .collect();
    let last = *replaced
        .values()
        .max_by_key(|&&i| position[&(i as usize)])
        .expect("non-empty");
    let mut roots = Vec::new();
    for (&vreg, &ir) in &replaced {
        let users = users_of(ir);
        match new_vregs.get(&vreg) {
            Some(&i) => {
                let early_user = users.iter().any(|u| {
                    LLVMGetInstructionParent(*u) == block
                        && !replaced.values().any(|&x| x == *u)
                        && position
                            .get(&(*u as usize))
                            .is_some_and(|&p| p <= position[&(last as usize)])
                });
                if early_user {
                    return Err("a rewritten result is used before the rewritten chain ends".into());
                }
                roots.push((ir, i));
            }
            None => {
                if users.iter().any(|u| !replaced.values().any(|&x| x == *u)) {
                    return Err(format!("%{vreg} disappears but the IR uses it elsewhere"));
                }
            }
        }
    }
    // Build, redirect, then erase (users before their operands).
    let builder = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(last)));
    LLVMPositionBuilderBefore(builder, last);
    let mut built: Vec<LLVMValueRef> = Vec::with_capacity(plan.len());
    for n in &plan {
        let value = |o: Operand| match o {
            Operand::Ir(v) => v,
            Operand::New(i) => built[i],
        };
        let (a, b) = (value(n.operands[0]), value(n.operands[1]));
        let name = c"";
        let v = match n.opcode {
            LLVMOpcode::LLVMFAdd => LLVMBuildFAdd(builder, a, b, name.as_ptr()),
            LLVMOpcode::LLVMFSub => LLVMBuildFSub(builder, a, b, name.as_ptr()),
            _ => LLVMBuildFMul(builder, a, b, name.as_ptr()),
        };
        LLVMSetFastMathFlags(v, LLVMGetFastMathFlags(n.replaces));
        LLVMInstructionSetDebugLoc(v, LLVMInstructionGetDebugLoc(n.replaces));
        built.push(v);
    }
    LLVMDisposeBuilder(builder);
    for (ir, i) in roots {
        LLVMReplaceAllUsesWith(ir, built[i]);
    }
    let mut doomed: Vec<LLVMValueRef> = replaced.values().copied().collect();
    doomed.sort_by_key(|&i| std::cmp::Reverse(position[&(i as usize)]));
    for i in &doomed {
        LLVMInstructionEraseFromParent(*i);
    }
    Ok(doomed.len())
}

unsafe fn users_of(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut u = LLVMGetFirstUse(v);
    while !u.is_null() {
        out.push(LLVMGetUser(u));
        u = LLVMGetNextUse(u);
    }
    out
}

/// The IR value of every register the rewritten instructions read that they do not
/// define themselves. Each replaced instruction's two registers are its IR operands in
/// some order: registers defined by other replaced instructions and registers whose
/// definition names one of the operands fix the order; commutative operations may be
/// commuted by instruction selection, so both orders are tried and exactly one may fit.
unsafe fn resolve_leaves(
    r: &Reassociation,
    replaced: &HashMap<u32, LLVMValueRef>,
    at: &dyn Fn(&MirInst) -> Result<LLVMValueRef, String>,
) -> Result<HashMap<u32, LLVMValueRef>, String> {
    let mut known: HashMap<u32, LLVMValueRef> = replaced.clone();
    let mut pending: Vec<&MirInst> = r.removed.iter().collect();
    while !pending.is_empty() {
        let before = pending.len();
        let mut still = Vec::new();
        for m in pending {
            let ir = at(m)?;
            let (u, v) = (LLVMGetOperand(ir, 0), LLVMGetOperand(ir, 1));
            let commutative = LLVMGetInstructionOpcode(ir) != LLVMOpcode::LLVMFSub;
            let (s1, s2) = (m.sources[0], m.sources[1]);
            let evidence = |s: u32| -> Option<LLVMValueRef> {
                if let Some(&k) = known.get(&s) {
                    return Some(k);
                }
                let def = r.defs.get(&s)?;
                let named = at(def).ok()?;
                (named == u || named == v).then_some(named)
            };
            let fits = |a: LLVMValueRef, b: LLVMValueRef| {
                evidence(s1).is_none_or(|e| e == a)
                    && evidence(s2).is_none_or(|e| e == b)
                    && (s1 != s2 || a == b)
            };
            let mut choices = Vec::new();
            if fits(u, v) {
                choices.push((u, v));
            }
            if commutative && fits(v, u) {
                choices.push((v, u));
            }
            choices.dedup();
            match choices.as_slice() {
                [] => {
                    return Err(format!(
                        "the registers of %{} are not its IR operands",
                        m.dest
                    ))
                }
                [(a, b)] => {
                    for (s, val) in [(s1, *a), (s2, *b)] {
                        if known.insert(s, val).is_some_and(|old| old != val) {
                            return Err(format!("%{s} stands for two IR values"));
                        }
                    }
                }
                _ => still.push(m),
            }
        }
        if still.len() == before {
            return Err(format!(
                "cannot tell which IR operand is which register of %{}",
                still[0].dest
            ));
        }
        pending = still;
    }
    Ok(known)
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;
    use inkwell::values::AsValueRef;
    use std::collections::BTreeMap;

    const CHAIN: &str = "define double @f(double %a, double %b, double %c, double %d) {
        %ab = fmul fast double %a, %b
        %abc = fmul fast double %ab, %c
        %abcd = fmul fast double %abc, %d
        %q = fdiv fast double %abcd, %a
        ret double %q
      }";

    /// The machine instruction whose debug line in the tagged build is `line`.
    fn inst(dest: u32, opcode: &str, sources: &[u32], line: u32) -> MirInst {
        MirInst {
            dest,
            opcode: opcode.into(),
            sources: sources.to_vec(),
            line: Some(Tag::Instruction(line - 1)),
        }
    }

    fn copy_of_arg(dest: u32) -> MirInst {
        MirInst {
            dest,
            opcode: "COPY".into(),
            sources: vec![],
            line: None,
        }
    }

    /// Applies `r` to `f` of [`CHAIN`]; returns the outcome and the function's text.
    fn applied(r: &Reassociation) -> (Result<usize, String>, String) {
        let context = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(CHAIN.as_bytes(), "t");
        let module = context.create_module_from_ir(buffer).expect("valid IR");
        let f = module.get_function("f").expect("f");
        // SAFETY: `f` belongs to the live `module`.
        let outcome = unsafe { apply(f.as_value_ref(), r) };
        module.verify().expect("still valid IR");
        (outcome, module.print_to_string().to_string())
    }

    /// `(ab * c) * d` → `ab * (c * d)`, as x86 machine code: %4..%7 copy the arguments,
    /// %8 = a*b (line 1), %9 = %8*c (line 2), %10 = %9*d (line 3).
    fn chain_rewrite() -> Reassociation {
        let mut defs: BTreeMap<u32, MirInst> = (4..8).map(|v| (v, copy_of_arg(v))).collect();
        for i in [
            inst(8, "MULSDrr", &[4, 5], 1),
            inst(9, "MULSDrr", &[8, 6], 2),
            inst(10, "MULSDrr", &[9, 7], 3),
        ] {
            defs.insert(i.dest, i);
        }
        Reassociation {
            removed: vec![
                inst(9, "MULSDrr", &[8, 6], 2),
                inst(10, "MULSDrr", &[9, 7], 3),
            ],
            added: vec![
                inst(20, "MULSDrr", &[6, 7], 2),
                inst(10, "MULSDrr", &[8, 20], 3),
            ],
            defs,
        }
    }

    #[test]
    fn a_reassociation_is_carried_into_the_ir() {
        let (outcome, text) = applied(&chain_rewrite());
        assert_eq!(outcome, Ok(2), "{text}");
        assert!(text.contains("fmul fast double %c, %d"), "{text}");
        assert!(text.contains("fmul fast double %ab, %1"), "{text}");
        assert!(!text.contains("%abc"), "{text}");
        assert!(text.contains("fdiv fast double %2, %a"), "{text}");
    }

    #[test]
    fn plans_that_do_not_fit_the_ir_change_nothing() {
        let (_, original) = applied(&Reassociation::default());
        let refused = |r: Reassociation, why: &str| {
            let (outcome, text) = applied(&r);
            let err = outcome.expect_err("refused");
            assert!(err.contains(why), "{err}");
            assert_eq!(text, original);
        };
        // The IR position names the division, not a multiplication.
        let mut r = chain_rewrite();
        r.removed[1].line = Some(Tag::Instruction(3));
        refused(r, "does not match its IR instruction");
        // A new instruction reads a register nothing defines.
        let mut r = chain_rewrite();
        r.added[0].sources = vec![6, 99];
        refused(r, "operand %99 has no IR value");
        // The chain's result would get another register, although the division reads it.
        let mut r = chain_rewrite();
        r.added[1].dest = 22;
        refused(r, "%10 disappears but the IR uses it");
        // A replaced register read again.
        let mut r = chain_rewrite();
        r.added[1].sources = vec![9, 20];
        refused(r, "%9 is used after it was replaced");
        // An opcode the MachineCombiner does not reassociate.
        let mut r = chain_rewrite();
        r.added[0].opcode = "DIVSDrr".into();
        refused(r, "machine opcode DIVSDrr");
    }

    #[test]
    fn machine_opcodes_map_to_ir_opcodes() {
        let op = |name: &str| ir_opcode(&inst(1, name, &[], 1));
        assert_eq!(op("ADDSDrr"), Some(LLVMOpcode::LLVMFAdd));
        assert_eq!(op("MULPSrr"), Some(LLVMOpcode::LLVMFMul));
        assert_eq!(op("VADDPDYrr"), Some(LLVMOpcode::LLVMFAdd));
        assert_eq!(op("SUBSSrr"), Some(LLVMOpcode::LLVMFSub));
        assert_eq!(op("ADD32rr"), None);
        assert_eq!(op("MOVAPDrm"), None);
    }
}
