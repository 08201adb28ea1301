//! The tag protocol between a module and its machine code: the tagged copy names each instruction by its debug line and each block by its name, and the dumps of that copy are read back into the same [`Tag`]s.
//!
//! Machine instructions keep no link to the IR instructions they were selected from, only
//! their debug location; blocks keep their IR name. So the backend model compiles a copy
//! of the module whose debug lines and block names are nothing but positions
//! ([`write_tagged_bitcode`]), reads the positions back from the dumps
//! ([`Tag::from_debug_line`], [`Tag::from_block_name`]) and finds the IR they name in the
//! module it rewrites ([`TaggedFunction`]). Both sides count the same way
//! ([`counted_instructions`]), so the copy and the module agree position by position.

use llvm_sys::core::*;
use llvm_sys::debuginfo::*;
use llvm_sys::prelude::*;
use std::ffi::CString;
use std::fmt;
use std::path::Path;

/// A position in a function of the tagged copy, as its machine code names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Tag {
    /// The instruction at this index of [`counted_instructions`].
    Instruction(u32),
    /// The block at this index in the function's block order.
    Block(u32),
}

/// The file name of the tagged copy's debug locations (`fpscout-tags:LINE:1`).
const TAG_FILE: &str = "fpscout-tags";

impl Tag {
    /// The debug line the tagged copy gives an instruction: its index + 1, as line 0
    /// means "no line" to LLVM.
    fn debug_line(index: usize) -> u32 {
        u32::try_from(index + 1).unwrap_or(u32::MAX)
    }

    /// The instruction a debug line of the tagged build's machine code names; `None`
    /// for line 0, which LLVM gives code merged from several lines.
    pub(crate) fn from_debug_line(line: u32) -> Option<Tag> {
        line.checked_sub(1).map(Tag::Instruction)
    }

    /// The name the tagged copy gives the block at `index`.
    fn block_name(index: usize) -> String {
        format!("t{index}")
    }

    /// The block a machine block's IR block name names (`t4`); `None` for any other name.
    pub(crate) fn from_block_name(name: &str) -> Option<Tag> {
        let digits = name.strip_prefix('t')?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok().map(Tag::Block)
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tag::Instruction(index) => write!(f, "IR instruction {index}"),
            Tag::Block(index) => write!(f, "IR block {}", Tag::block_name(*index as usize)),
        }
    }
}

/// The instructions of `f` in block order, without debug intrinsics (which stripping
/// debug info removes from the tagged copy, so they must not count).
pub(crate) unsafe fn counted_instructions(f: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            if !is_debug_intrinsic(i) {
                out.push(i);
            }
            i = LLVMGetNextInstruction(i);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    out
}

unsafe fn blocks_of(f: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    let mut out = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        out.push(bb);
        bb = LLVMGetNextBasicBlock(bb);
    }
    out
}

unsafe fn is_debug_intrinsic(i: LLVMValueRef) -> bool {
    callee_name(i).is_some_and(|n| n.starts_with(b"llvm.dbg."))
}

/// The name of the function a call instruction calls directly (`None` for anything else).
pub(crate) unsafe fn callee_name<'a>(ir: LLVMValueRef) -> Option<&'a [u8]> {
    if LLVMIsACallInst(ir).is_null() {
        return None;
    }
    let callee = LLVMGetCalledValue(ir);
    if callee.is_null() || LLVMIsAFunction(callee).is_null() {
        return None;
    }
    let mut len = 0usize;
    let p = LLVMGetValueName2(callee, &mut len);
    (!p.is_null()).then(|| std::slice::from_raw_parts(p as *const u8, len))
}

/// One function of the module being rewritten, its positions numbered as the tagged copy
/// numbered them. Taken afresh by each rewrite: one that replaces instructions in place
/// keeps the positions but not the values held; one that moves positions runs last.
pub(crate) struct TaggedFunction {
    pub(crate) function: LLVMValueRef,
    /// The function's instructions by [`Tag::Instruction`] index.
    pub(crate) insts: Vec<LLVMValueRef>,
    blocks: Vec<LLVMBasicBlockRef>,
}

impl TaggedFunction {
    pub(crate) unsafe fn new(function: LLVMValueRef) -> TaggedFunction {
        TaggedFunction {
            function,
            insts: counted_instructions(function),
            blocks: blocks_of(function),
        }
    }

    /// The instruction `tag` names.
    pub(crate) fn instruction(&self, tag: Tag) -> Result<LLVMValueRef, String> {
        match tag {
            Tag::Instruction(index) => self
                .insts
                .get(index as usize)
                .copied()
                .ok_or_else(|| format!("{tag} is outside the function")),
            Tag::Block(_) => Err(format!("{tag} is not an instruction")),
        }
    }

    /// The block `tag` names.
    pub(crate) fn block(&self, tag: Tag) -> Result<LLVMBasicBlockRef, String> {
        match tag {
            Tag::Block(index) => self
                .blocks
                .get(index as usize)
                .copied()
                .ok_or_else(|| format!("no {tag}")),
            Tag::Instruction(_) => Err(format!("{tag} is not a block")),
        }
    }
}

/// Writes a copy of `module` whose debug information is replaced by one location per
/// instruction, its [`Tag`] as line, and whose blocks are named by their [`Tag`].
pub(crate) unsafe fn write_tagged_bitcode(
    module: LLVMModuleRef,
    path: &Path,
) -> Result<(), String> {
    let copy = LLVMCloneModule(module);
    let result = tag_and_write(copy, path);
    LLVMDisposeModule(copy);
    result
}

unsafe fn tag_and_write(m: LLVMModuleRef, path: &Path) -> Result<(), String> {
    LLVMStripModuleDebugInfo(m);
    let ctx = LLVMGetModuleContext(m);
    let key = "Debug Info Version";
    if LLVMGetModuleFlag(m, key.as_ptr().cast(), key.len()).is_null() {
        let version = LLVMConstInt(
            LLVMInt32TypeInContext(ctx),
            u64::from(LLVMDebugMetadataVersion()),
            0,
        );
        LLVMAddModuleFlag(
            m,
            llvm_sys::LLVMModuleFlagBehavior::LLVMModuleFlagBehaviorWarning,
            key.as_ptr().cast(),
            key.len(),
            LLVMValueAsMetadata(version),
        );
    }
    let di = LLVMCreateDIBuilder(m);
    let name = TAG_FILE;
    let file =
        LLVMDIBuilderCreateFile(di, name.as_ptr().cast(), name.len(), ".".as_ptr().cast(), 1);
    let empty = "";
    let cu = LLVMDIBuilderCreateCompileUnit(
        di,
        LLVMDWARFSourceLanguage::LLVMDWARFSourceLanguageC,
        file,
        name.as_ptr().cast(),
        name.len(),
        1,
        empty.as_ptr().cast(),
        0,
        0,
        empty.as_ptr().cast(),
        0,
        LLVMDWARFEmissionKind::LLVMDWARFEmissionKindLineTablesOnly,
        0,
        0,
        0,
        empty.as_ptr().cast(),
        0,
        empty.as_ptr().cast(),
        0,
    );
    let fn_type = LLVMDIBuilderCreateSubroutineType(di, file, std::ptr::null_mut(), 0, 0);
    let mut f = LLVMGetFirstFunction(m);
    while !f.is_null() {
        if LLVMIsDeclaration(f) == 0 {
            let mut len = 0usize;
            let fname = LLVMGetValueName2(f, &mut len);
            let sp = LLVMDIBuilderCreateFunction(
                di, cu, fname, len, fname, len, file, 0, fn_type, 0, 1, 0, 0, 1,
            );
            LLVMSetSubprogram(f, sp);
            // Named blocks let the machine code say which IR block a machine block is.
            for (index, bb) in blocks_of(f).into_iter().enumerate() {
                let name = Tag::block_name(index);
                LLVMSetValueName2(LLVMBasicBlockAsValue(bb), name.as_ptr().cast(), name.len());
            }
            for (index, inst) in counted_instructions(f).into_iter().enumerate() {
                let loc = LLVMDIBuilderCreateDebugLocation(
                    ctx,
                    Tag::debug_line(index),
                    1,
                    sp,
                    std::ptr::null_mut(),
                );
                LLVMInstructionSetDebugLoc(inst, loc);
            }
        }
        f = LLVMGetNextFunction(f);
    }
    LLVMDIBuilderFinalize(di);
    LLVMDisposeDIBuilder(di);
    let cpath = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| format!("path {} contains a NUL byte", path.display()))?;
    if llvm_sys::bit_writer::LLVMWriteBitcodeToFile(m, cpath.as_ptr()) != 0 {
        return Err(format!("cannot write {}", path.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;
    use inkwell::module::Module;
    use inkwell::values::AsValueRef;

    const TWO_BLOCKS: &str = "define double @f(double %a, i1 %c) {
        %x = fmul double %a, %a
        br i1 %c, label %then, label %done
      then:
        %y = fadd double %x, %a
        br label %done
      done:
        %r = phi double [ %x, %0 ], [ %y, %then ]
        ret double %r
      }";

    #[test]
    fn tags_written_into_the_copy_name_the_same_positions_when_read_back() {
        let context = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(TWO_BLOCKS.as_bytes(), "t");
        let module = context.create_module_from_ir(buffer).expect("valid IR");
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("tagged.bc");
        // SAFETY: `module` is live; the copy is written and disposed of.
        unsafe { write_tagged_bitcode(module.as_mut_ptr(), &path) }.expect("written");
        let tagged = Module::parse_bitcode_from_path(&path, &context).expect("bitcode");
        let text = tagged.print_to_string().to_string();
        // The fadd is the third instruction (index 2, line 3), in the second block (t1).
        assert!(text.contains("t1:"), "{text}");
        assert!(text.contains("!DILocation(line: 3, column: 1"), "{text}");
        assert!(
            text.contains("!DIFile(filename: \"fpscout-tags\""),
            "{text}"
        );
        let f = module.get_function("f").expect("f");
        // SAFETY: `f` belongs to the live `module`.
        let positions = unsafe { TaggedFunction::new(f.as_value_ref()) };
        let fadd = positions
            .instruction(Tag::from_debug_line(3).expect("a position"))
            .expect("in the function");
        // SAFETY: `fadd` is an instruction of `module`.
        let opcode = unsafe { LLVMGetInstructionOpcode(fadd) };
        assert_eq!(opcode, llvm_sys::LLVMOpcode::LLVMFAdd);
        let then = positions
            .block(Tag::from_block_name("t1").expect("a block tag"))
            .expect("in the function");
        // SAFETY: `fadd` is an instruction of `module`.
        assert_eq!(unsafe { LLVMGetInstructionParent(fadd) }, then);
        assert_eq!(Tag::from_debug_line(0), None);
        assert_eq!(Tag::from_block_name("for.body"), None);
        assert_eq!(Tag::from_block_name("t"), None);
        assert_eq!(Tag::from_block_name("t+1"), None);
        let outside = positions
            .instruction(Tag::Instruction(6))
            .expect_err("6 of 6");
        assert!(outside.contains("outside the function"), "{outside}");
        assert!(positions.block(Tag::Block(3)).is_err());
        assert!(positions.instruction(Tag::Block(0)).is_err());
    }
}
