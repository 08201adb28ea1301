//! Lowering of an LLVM module (through the LLVM C API) into fpscout-ir.

use crate::{FrontError, LowerOptions, Result, Unsupported};
use fpscout_ir::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate, LLVMTypeKind};
use std::collections::HashMap;
use std::ffi::CStr;

pub(crate) fn value_name(v: LLVMValueRef) -> String {
    let mut len = 0usize;
    // SAFETY: v is a live value of the module being lowered; LLVM returns a borrowed buffer.
    unsafe {
        let p = LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            return String::new();
        }
        let bytes = std::slice::from_raw_parts(p as *const u8, len);
        String::from_utf8_lossy(bytes).into_owned()
    }
}

fn print_value(v: LLVMValueRef) -> String {
    // SAFETY: LLVMPrintValueToString returns an owned C string we must dispose.
    unsafe {
        let p = LLVMPrintValueToString(v);
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        LLVMDisposeMessage(p);
        s
    }
}

fn debug_loc(v: LLVMValueRef) -> Option<SourceLoc> {
    // SAFETY: the debug-location accessors accept instructions and functions and return
    // null/0 when no location is attached.
    unsafe {
        let line = LLVMGetDebugLocLine(v);
        if line == 0 {
            return None;
        }
        let mut len = 0u32;
        let p = LLVMGetDebugLocFilename(v, &mut len);
        let file = if p.is_null() {
            String::from("?")
        } else {
            let bytes = std::slice::from_raw_parts(p as *const u8, len as usize);
            String::from_utf8_lossy(bytes).into_owned()
        };
        let col = if LLVMIsAInstruction(v).is_null() {
            0
        } else {
            LLVMGetDebugLocColumn(v)
        };
        Some(SourceLoc { file, line, col })
    }
}

/// The C++ base name of an Itanium-mangled symbol (`_Z3fooPdi` → `foo`), else the name.
pub(crate) fn display_name(symbol: &str) -> String {
    if let Some(rest) = symbol.strip_prefix("_Z") {
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(n) = digits.parse::<usize>() {
            let tail = &rest[digits.len()..];
            if tail.len() >= n {
                return tail[..n].to_string();
            }
        }
    }
    symbol.to_string()
}

struct ModuleCx {
    module: LLVMModuleRef,
    target_data: LLVMTargetDataRef,
    opts: LowerOptions,
    functions: HashMap<usize, FuncId>,
    globals: HashMap<usize, GlobalId>,
    fp_ops: Vec<FpOpInfo>,
}

struct FuncCx<'m> {
    m: &'m mut ModuleCx,
    func_id: FuncId,
    func_name: String,
    values: HashMap<usize, Operand>,
    blocks: HashMap<usize, BlockId>,
    next_value: u32,
    /// The function has `"no-nans-fp-math"="true"` (clang's -ffast-math / -ffinite-math-only):
    /// the x86 backend then selects every compare and min/max as if no operand were NaN.
    no_nans: bool,
    /// Selects the backend turns into a branch diamond, with the instructions that then
    /// run only on the true / false side (see [`select_diamonds`]).
    diamonds: HashMap<usize, Diamond>,
    /// Instructions moved into a diamond side (lowered there, not in place).
    sunk: std::collections::HashSet<usize>,
    /// Blocks created for diamonds, numbered after the function's own blocks.
    extra_blocks: Vec<Block>,
    /// Number of the function's own blocks.
    own_blocks: u32,
    /// For a block split by diamonds, the part that ends with its original terminator.
    exit_part: HashMap<u32, BlockId>,
    /// `fdiv`s the backend turns into a multiply by a shared reciprocal, with their
    /// divisor (see [`repeated_divisors`]).
    recip_of: HashMap<usize, LLVMValueRef>,
    /// The reciprocal of each such (block, divisor), once computed.
    recip_value: HashMap<(usize, usize), ValueId>,
    /// `fadd`/`fsub`s the backend contracts with an `fmul` into one fused multiply-add
    /// (see [`contractions`]), and the `fmul`s they absorb (not computed on their own).
    contracted: HashMap<usize, Contraction>,
    absorbed: std::collections::HashSet<usize>,
}

/// Fused sums a [`Contraction::Chain`] passes through at most (longer ones are not
/// reassociated in the model, and stay as the combiner's first pass left them).
const CHAIN_LEVELS: usize = 8;

/// An operation the backend turns into one fused multiply-add with an operand it absorbs.
#[derive(Clone, Copy)]
enum Contraction {
    /// An `fadd`/`fsub` and its `fmul` operand: the product first (`x*y ± z`) or second
    /// (`z ± x*y`).
    Sum { mul: LLVMValueRef, mul_first: bool },
    /// An `fadd` with `reassoc` of `e` and a chain of fused sums (`levels`, outermost
    /// first: `fadd`s contracted as [`Contraction::Sum`] into the first operand of the
    /// next) ending in an `fmul` addend `last`: the chain with `last` fused with `e`,
    /// fma(a1, b1, fma(a2, b2, ... fma(c, d, e))).
    Chain {
        levels: [Option<LLVMValueRef>; CHAIN_LEVELS],
        last: LLVMValueRef,
        e: LLVMValueRef,
    },
    /// A reassociating `llvm.vector.reduce.fadd` of the vector `fmul` `mul`, wider than
    /// one register: see [`Lowering::lower_fused_reduction`].
    Reduction { mul: LLVMValueRef },
    /// An `fmul` of `add` (t ± 1 or ±1 − t) and `other`: fma(±t, other, ±other).
    Distributed {
        add: LLVMValueRef,
        term: LLVMValueRef,
        negate_term: bool,
        other: LLVMValueRef,
        plus_other: bool,
    },
}

/// A select that the x86-64 backend compiles into a branch.
struct Diamond {
    /// Instructions, in program order, computed only when the condition is true / false.
    on_true: Vec<LLVMValueRef>,
    on_false: Vec<LLVMValueRef>,
}

fn key(v: LLVMValueRef) -> usize {
    v as usize
}

pub(crate) fn lower_module(module: LLVMModuleRef, opts: LowerOptions) -> Result<Module> {
    // SAFETY: `module` is owned by the caller's inkwell Module and outlives this call.
    unsafe {
        let target_data = LLVMGetModuleDataLayout(module);
        let mut cx = ModuleCx {
            module,
            target_data,
            opts,
            functions: HashMap::new(),
            globals: HashMap::new(),
            fp_ops: Vec::new(),
        };
        let mut defined = Vec::new();
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            if LLVMIsDeclaration(f) == 0 {
                cx.functions.insert(key(f), FuncId(defined.len() as u32));
                defined.push(f);
            }
            f = LLVMGetNextFunction(f);
        }
        let globals = lower_globals(&mut cx)?;
        let mut functions = Vec::with_capacity(defined.len());
        for (i, &f) in defined.iter().enumerate() {
            let ops_before = cx.fp_ops.len();
            match lower_function(&mut cx, FuncId(i as u32), f) {
                Ok(func) => functions.push(func),
                Err(FrontError::Unsupported(u)) => {
                    // Keep op ids dense and stable: drop the half-lowered function's ops.
                    cx.fp_ops.truncate(ops_before);
                    functions.push(unsupported_stub(f, u.to_string()));
                }
                Err(e) => return Err(e),
            }
        }
        name_params_from_debug_info(module, &mut functions);
        Ok(Module {
            functions,
            globals,
            fp_ops: cx.fp_ops,
            origin: String::new(),
            backend_rewrites: Vec::new(),
            setup: None,
        })
    }
}

unsafe fn lower_globals(cx: &mut ModuleCx) -> Result<Vec<Global>> {
    // Ids first: an initializer may point at any global, declared before it or after
    // (GSL's `static cheb_series aif_cs = { aif_data, ... }`, tables of tables).
    let mut all = Vec::new();
    let mut g = LLVMGetFirstGlobal(cx.module);
    while !g.is_null() {
        cx.globals.insert(key(g), GlobalId(all.len() as u32));
        all.push(g);
        g = LLVMGetNextGlobal(g);
    }
    let mut out = Vec::with_capacity(all.len());
    for g in all {
        let id = GlobalId(out.len() as u32);
        let ty = LLVMGlobalGetValueType(g);
        let size = LLVMABISizeOfType(cx.target_data, ty);
        let mut cells = Vec::new();
        let mut unmodelled = None;
        let init = LLVMGetInitializer(g);
        let name = value_name(g);
        if init.is_null() && matches!(name.as_str(), "stdin" | "stdout" | "stderr") {
            // A stream is only handed to the output functions, which discard it: any
            // non-null pointer does.
            cells.push((
                0,
                ScalarTy::Ptr,
                Const::GlobalAddr {
                    global: id,
                    offset: 0,
                },
            ));
        } else if !init.is_null() {
            if let Err(reason) = flatten_constant(cx, init, 0, &mut cells) {
                // Only a function that reads this global is affected: its cells stay
                // uninitialized and a read names why.
                cells.clear();
                unmodelled = Some(reason);
            }
        }
        out.push(Global {
            name,
            size,
            cells,
            constant: LLVMIsGlobalConstant(g) != 0,
            unmodelled,
        });
    }
    Ok(out)
}

fn unsupported_at(function: &str, v: LLVMValueRef, reason: String) -> FrontError {
    FrontError::Unsupported(Box::new(Unsupported {
        function: function.to_string(),
        instruction: print_value(v),
        loc: debug_loc(v),
        reason,
    }))
}

/// Writes the scalar cells of a constant aggregate at `base` into `cells`.
unsafe fn flatten_constant(
    cx: &ModuleCx,
    c: LLVMValueRef,
    base: u64,
    cells: &mut Vec<(u64, ScalarTy, Const)>,
) -> std::result::Result<(), String> {
    let ty = LLVMTypeOf(c);
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMStructTypeKind => {
            let is_struct = LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMStructTypeKind;
            let n = if is_struct {
                u64::from(LLVMCountStructElementTypes(ty))
            } else {
                LLVMGetArrayLength2(ty)
            };
            for i in 0..n {
                let elt = LLVMGetAggregateElement(c, i as u32);
                if elt.is_null() {
                    return Err("unreadable aggregate element".into());
                }
                let off = if is_struct {
                    LLVMOffsetOfElement(cx.target_data, ty, i as u32)
                } else {
                    i * LLVMABISizeOfType(cx.target_data, LLVMGetElementType(ty))
                };
                flatten_constant(cx, elt, base + off, cells)?;
            }
            Ok(())
        }
        _ => {
            let t = lower_type(ty).map_err(|e| e.to_string())?;
            match (t, lower_const(cx, c)?) {
                (Type::Scalar(s), k) => cells.push((base, s, k)),
                (Type::Vector(s, _), Const::Vector(lanes)) => {
                    for (i, k) in lanes.into_iter().enumerate() {
                        cells.push((base + i as u64 * s.store_size(), s, k));
                    }
                }
                _ => return Err(format!("constant of type {t}")),
            }
            Ok(())
        }
    }
}

/// Lowers a first-class type; aggregates and exotic floats are unsupported.
unsafe fn lower_type(ty: LLVMTypeRef) -> std::result::Result<Type, String> {
    let scalar = |ty: LLVMTypeRef| -> std::result::Result<ScalarTy, String> {
        match LLVMGetTypeKind(ty) {
            LLVMTypeKind::LLVMFloatTypeKind => Ok(ScalarTy::Float(FloatTy::F32)),
            LLVMTypeKind::LLVMDoubleTypeKind => Ok(ScalarTy::Float(FloatTy::F64)),
            LLVMTypeKind::LLVMIntegerTypeKind => {
                let w = LLVMGetIntTypeWidth(ty);
                if w > 64 {
                    Err(format!("integers wider than 64 bits (i{w})"))
                } else {
                    Ok(ScalarTy::Int(w))
                }
            }
            LLVMTypeKind::LLVMPointerTypeKind => Ok(ScalarTy::Ptr),
            LLVMTypeKind::LLVMX86_FP80TypeKind => Err("long double (x86_fp80)".into()),
            LLVMTypeKind::LLVMFP128TypeKind => Err("__float128 (fp128)".into()),
            LLVMTypeKind::LLVMHalfTypeKind | LLVMTypeKind::LLVMBFloatTypeKind => {
                Err("half-precision floats".into())
            }
            k => Err(format!("values of type kind {k:?}")),
        }
    };
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMVoidTypeKind => Ok(Type::Void),
        LLVMTypeKind::LLVMVectorTypeKind => Ok(Type::Vector(
            scalar(LLVMGetElementType(ty))?,
            LLVMGetVectorSize(ty),
        )),
        LLVMTypeKind::LLVMScalableVectorTypeKind => Err("scalable vectors".into()),
        LLVMTypeKind::LLVMStructTypeKind => Err("struct values (e.g. complex numbers)".into()),
        LLVMTypeKind::LLVMArrayTypeKind => Err("array values".into()),
        _ => Ok(Type::Scalar(scalar(ty)?)),
    }
}

/// Float constant bits; NaNs are read from the printed form so payloads survive.
unsafe fn float_const_bits(c: LLVMValueRef, fty: FloatTy) -> u64 {
    let mut loses = 0;
    let d = LLVMConstRealGetDouble(c, &mut loses);
    if !d.is_nan() {
        return match fty {
            FloatTy::F64 => d.to_bits(),
            FloatTy::F32 => u64::from((d as f32).to_bits()),
        };
    }
    // LLVM prints every float constant as the hex bits of the equivalent double.
    let text = print_value(c);
    let hex = text.rsplit("0x").next().unwrap_or("");
    let dbits = u64::from_str_radix(hex.trim(), 16).unwrap_or(0x7ff8_0000_0000_0000);
    match fty {
        FloatTy::F64 => dbits,
        FloatTy::F32 => {
            let sign = ((dbits >> 63) as u32) << 31;
            let payload = ((dbits >> 29) & 0x7f_ffff) as u32;
            u64::from(sign | 0x7f80_0000 | payload)
        }
    }
}

unsafe fn lower_const(cx: &ModuleCx, c: LLVMValueRef) -> std::result::Result<Const, String> {
    let ty = LLVMTypeOf(c);
    let t = lower_type(ty)?;
    if LLVMIsUndef(c) != 0 || LLVMIsPoison(c) != 0 {
        return Ok(match t {
            Type::Scalar(s) => Const::Undef(s),
            Type::Vector(s, n) => Const::Vector(vec![Const::Undef(s); n as usize]),
            Type::Void => return Err("void constant".into()),
        });
    }
    if !LLVMIsAConstantAggregateZero(c).is_null() {
        return Ok(match t {
            Type::Vector(s, n) => Const::Vector(vec![zero_const(s); n as usize]),
            Type::Scalar(s) => zero_const(s),
            Type::Void => return Err("void constant".into()),
        });
    }
    if let Type::Vector(_, n) = t {
        let mut lanes = Vec::with_capacity(n as usize);
        for i in 0..n {
            let e = LLVMGetAggregateElement(c, i);
            if e.is_null() {
                return Err("unreadable vector constant".into());
            }
            lanes.push(lower_const(cx, e)?);
        }
        return Ok(Const::Vector(lanes));
    }
    if !LLVMIsAConstantFP(c).is_null() {
        let fty = t.float_ty().ok_or("float constant of non-float type")?;
        return Ok(Const::Float {
            ty: fty,
            bits: float_const_bits(c, fty),
        });
    }
    if !LLVMIsAConstantInt(c).is_null() {
        let w = LLVMGetIntTypeWidth(ty);
        return Ok(Const::Int {
            width: w,
            bits: truncate_bits(LLVMConstIntGetZExtValue(c), w),
        });
    }
    if !LLVMIsAConstantPointerNull(c).is_null() {
        return Ok(Const::NullPtr);
    }
    if !LLVMIsAGlobalVariable(c).is_null() {
        let id = cx.globals.get(&key(c)).ok_or("unknown global")?;
        return Ok(Const::GlobalAddr {
            global: *id,
            offset: 0,
        });
    }
    if !LLVMIsAFunction(c).is_null() {
        return match cx.functions.get(&key(c)) {
            Some(id) => Ok(Const::FuncAddr(*id)),
            None => Err(format!("address of external function '{}'", value_name(c))),
        };
    }
    if !LLVMIsAConstantExpr(c).is_null() {
        if LLVMGetConstOpcode(c) == LLVMOpcode::LLVMGetElementPtr {
            let base = lower_const(cx, LLVMGetOperand(c, 0))?;
            let (offset, dynamic) = gep_offsets(cx, c, |i| {
                let op = LLVMGetOperand(c, i);
                if LLVMIsAConstantInt(op).is_null() {
                    None
                } else {
                    Some(LLVMConstIntGetSExtValue(op))
                }
            })?;
            if !dynamic.is_empty() {
                return Err("non-constant index in constant GEP".into());
            }
            return match base {
                Const::GlobalAddr { global, offset: o } => Ok(Const::GlobalAddr {
                    global,
                    offset: o + offset,
                }),
                other => Err(format!("constant GEP on {other:?}")),
            };
        }
        return Err(format!("constant expression {}", print_value(c)));
    }
    Err(format!("constant {}", print_value(c)))
}

fn float_one(f: FloatTy) -> Const {
    match f {
        FloatTy::F64 => Const::f64(1.0),
        FloatTy::F32 => Const::f32(1.0),
    }
}

fn zero_const(s: ScalarTy) -> Const {
    match s {
        ScalarTy::Int(w) => Const::Int { width: w, bits: 0 },
        ScalarTy::Float(f) => Const::Float { ty: f, bits: 0 },
        ScalarTy::Ptr => Const::NullPtr,
    }
}

/// Splits a GEP (instruction or constant expression) into a constant byte offset and the
/// dynamic indices with their byte scales. `const_index(i)` reads operand i if constant.
unsafe fn gep_offsets(
    cx: &ModuleCx,
    gep: LLVMValueRef,
    const_index: impl Fn(u32) -> Option<i64>,
) -> std::result::Result<(i64, Vec<(u32, i64)>), String> {
    let td = cx.target_data;
    let mut ty = LLVMGetGEPSourceElementType(gep);
    let n = LLVMGetNumOperands(gep) as u32;
    let mut offset = 0i64;
    let mut dynamic = Vec::new();
    for i in 1..n {
        if i == 1 {
            let size = LLVMABISizeOfType(td, ty) as i64;
            match const_index(i) {
                Some(k) => offset += k * size,
                None => dynamic.push((i, size)),
            }
            continue;
        }
        match LLVMGetTypeKind(ty) {
            LLVMTypeKind::LLVMStructTypeKind => {
                let k = const_index(i).ok_or("non-constant struct index")? as u32;
                offset += LLVMOffsetOfElement(td, ty, k) as i64;
                ty = LLVMStructGetTypeAtIndex(ty, k);
            }
            LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                ty = LLVMGetElementType(ty);
                let size = LLVMABISizeOfType(td, ty) as i64;
                match const_index(i) {
                    Some(k) => offset += k * size,
                    None => dynamic.push((i, size)),
                }
            }
            k => return Err(format!("GEP into type kind {k:?}")),
        }
    }
    Ok((offset, dynamic))
}

unsafe fn lower_function(cx: &mut ModuleCx, id: FuncId, f: LLVMValueRef) -> Result<Function> {
    let name = value_name(f);
    let fn_ty = LLVMGlobalGetValueType(f);
    let mut fcx = FuncCx {
        m: cx,
        func_id: id,
        func_name: name.clone(),
        values: HashMap::new(),
        blocks: HashMap::new(),
        next_value: 0,
        no_nans: string_attr(f, "no-nans-fp-math").as_deref() == Some("true"),
        diamonds: HashMap::new(),
        sunk: std::collections::HashSet::new(),
        extra_blocks: Vec::new(),
        own_blocks: 0,
        exit_part: HashMap::new(),
        recip_of: HashMap::new(),
        contracted: HashMap::new(),
        absorbed: std::collections::HashSet::new(),
        recip_value: HashMap::new(),
    };
    let ret = lower_type(LLVMGetReturnType(fn_ty))
        .map_err(|r| unsupported_at(&name, f, format!("return type: {r}")))?;
    let nparams = LLVMCountParams(f);
    let mut params = Vec::new();
    let zeroext = LLVMGetEnumAttributeKindForName(c"zeroext".as_ptr(), 7);
    for i in 0..nparams {
        let p = LLVMGetParam(f, i);
        let ty = lower_type(LLVMTypeOf(p))
            .map_err(|r| unsupported_at(&name, f, format!("parameter {i}: {r}")))?;
        let vid = fcx.fresh();
        fcx.values.insert(key(p), Operand::Value(vid));
        let pname = value_name(p);
        let (pointee, min_elements) = if ty == Type::PTR {
            let used = pointer_use(fcx.m, p);
            let elements = used.pointee.map_or(0, |s| {
                used.constant_extent_bytes.div_ceil(s.store_size().max(1))
            });
            (used.pointee, elements)
        } else {
            (None, 0)
        };
        let unsigned = !LLVMGetEnumAttributeAtIndex(f, i + 1, zeroext).is_null();
        params.push(Param {
            name: if pname.is_empty() {
                format!("arg{i}")
            } else {
                pname
            },
            ty,
            pointee,
            min_elements,
            unsigned,
        });
    }
    // Number blocks and results first: phis and branches refer forward.
    let mut bb = LLVMGetFirstBasicBlock(f);
    let mut bbs = Vec::new();
    while !bb.is_null() {
        fcx.blocks
            .insert(key(LLVMBasicBlockAsValue(bb)), BlockId(bbs.len() as u32));
        bbs.push(bb);
        let mut inst = LLVMGetFirstInstruction(bb);
        while !inst.is_null() {
            let produces = LLVMGetTypeKind(LLVMTypeOf(inst)) != LLVMTypeKind::LLVMVoidTypeKind;
            if produces && LLVMGetInstructionOpcode(inst) != LLVMOpcode::LLVMFreeze {
                let vid = fcx.fresh();
                fcx.values.insert(key(inst), Operand::Value(vid));
            }
            inst = LLVMGetNextInstruction(inst);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    fcx.own_blocks = bbs.len() as u32;
    if fcx.m.opts.optimized {
        for &bb in &bbs {
            select_diamonds(bb, &mut fcx.diamonds);
        }
        fcx.sunk = fcx
            .diamonds
            .values()
            .flat_map(|d| d.on_true.iter().chain(&d.on_false))
            .map(|&i| key(i))
            .collect();
        let unsafe_math = string_attr(f, "unsafe-fp-math").as_deref() == Some("true");
        for &bb in &bbs {
            repeated_divisors(bb, &fcx.sunk, unsafe_math, &mut fcx.recip_of);
        }
        if fcx.m.opts.target_has_fma {
            for &bb in &bbs {
                contractions(
                    bb,
                    fcx.m.opts.target_has_avx512,
                    unsafe_math,
                    &fcx.recip_of,
                    &fcx.sunk,
                    &mut fcx.contracted,
                    &mut fcx.absorbed,
                );
            }
        }
    }
    let mut blocks = Vec::with_capacity(bbs.len());
    for &bb in &bbs {
        blocks.push(fcx.lower_block(bb)?);
    }
    // Edges out of a split block now leave from its last part.
    for b in blocks.iter_mut() {
        for phi in &mut b.phis {
            for (from, _) in &mut phi.incoming {
                if let Some(&exit) = fcx.exit_part.get(&from.0) {
                    *from = exit;
                }
            }
        }
    }
    blocks.append(&mut fcx.extra_blocks);
    let linkage = LLVMGetLinkage(f);
    let external = !matches!(
        linkage,
        llvm_sys::LLVMLinkage::LLVMInternalLinkage | llvm_sys::LLVMLinkage::LLVMPrivateLinkage
    );
    Ok(Function {
        display_name: display_name(&name),
        name,
        params,
        ret,
        blocks,
        num_values: fcx.next_value,
        external,
        loc: debug_loc(f),
        unsupported: None,
    })
}

/// Source names of parameters. Unoptimised IR has unnamed arguments (`%0`), so names come
/// from the `DILocalVariable(name:, arg:, scope:)` debug records of each `DISubprogram`.
/// The C API has no accessor for a variable's name; the metadata lines of the printed
/// module are read instead. Parameters keep positional names when there is no debug info.
unsafe fn name_params_from_debug_info(module: LLVMModuleRef, functions: &mut [Function]) {
    let text_ptr = LLVMPrintModuleToString(module);
    let text = CStr::from_ptr(text_ptr).to_string_lossy().into_owned();
    LLVMDisposeMessage(text_ptr);
    let field = |line: &str, key: &str| -> Option<String> {
        let start = line.find(&format!("{key}: "))? + key.len() + 2;
        let rest = &line[start..];
        if let Some(q) = rest.strip_prefix('"') {
            return q.find('"').map(|end| q[..end].to_string());
        }
        let end = rest.find([',', ')']).unwrap_or(rest.len());
        Some(rest[..end].trim().to_string())
    };
    let mut subprograms: HashMap<String, Vec<String>> = HashMap::new();
    let mut args: HashMap<String, Vec<(usize, String)>> = HashMap::new();
    for line in text.lines().filter(|l| l.starts_with('!')) {
        let id = line.split_whitespace().next().unwrap_or("").to_string();
        if line.contains("DISubprogram(") {
            let names = ["name", "linkageName"]
                .iter()
                .filter_map(|k| field(line, k))
                .collect();
            subprograms.insert(id, names);
        } else if line.contains("DILocalVariable(") {
            if let (Some(name), Some(arg), Some(scope)) = (
                field(line, "name"),
                field(line, "arg"),
                field(line, "scope"),
            ) {
                if let Ok(n) = arg.parse::<usize>() {
                    args.entry(scope).or_default().push((n, name));
                }
            }
        }
    }
    for (scope, vars) in args {
        let Some(names) = subprograms.get(&scope) else {
            continue;
        };
        for f in functions.iter_mut().filter(|f| names.contains(&f.name)) {
            for (n, name) in &vars {
                if let Some(p) = f.params.get_mut(n.wrapping_sub(1)) {
                    p.name = name.clone();
                }
            }
        }
    }
}

/// A function that could not be lowered: its signature as far as known, no body.
unsafe fn unsupported_stub(f: LLVMValueRef, why: String) -> Function {
    let name = value_name(f);
    let linkage = LLVMGetLinkage(f);
    Function {
        display_name: display_name(&name),
        name,
        params: Vec::new(),
        ret: Type::Void,
        blocks: Vec::new(),
        num_values: 0,
        external: !matches!(
            linkage,
            llvm_sys::LLVMLinkage::LLVMInternalLinkage | llvm_sys::LLVMLinkage::LLVMPrivateLinkage
        ),
        loc: debug_loc(f),
        unsupported: Some(why),
    }
}

/// What the body reveals about a pointer parameter (opaque pointers carry no element
/// type): the element type guessed from the loads and stores reached through address
/// arithmetic, and how many bytes from the start the accesses at constant offsets reach.
struct PointerUse {
    pointee: Option<ScalarTy>,
    constant_extent_bytes: u64,
}

/// Follows a pointer parameter through GEPs, phis and selects to the loads, stores and
/// calls that use it. Offsets are tracked while every step is constant, so `out[15] = …`
/// says the buffer needs 16 elements; an access at a dynamic index says nothing.
unsafe fn pointer_use(cx: &ModuleCx, param: LLVMValueRef) -> PointerUse {
    let mut work = vec![(param, Some(0i64))];
    let mut seen = std::collections::HashSet::new();
    let mut found_float = None;
    let mut found_int = None;
    let mut extent = 0u64;
    let const_operand = |inst: LLVMValueRef, i: u32| {
        let op = LLVMGetOperand(inst, i);
        if LLVMIsAConstantInt(op).is_null() {
            None
        } else {
            Some(LLVMConstIntGetSExtValue(op))
        }
    };
    while let Some((v, offset)) = work.pop() {
        if !seen.insert(key(v)) || seen.len() > 256 {
            continue;
        }
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if LLVMIsAInstruction(user).is_null() {
                continue;
            }
            let accessed = match LLVMGetInstructionOpcode(user) {
                LLVMOpcode::LLVMLoad => Some(LLVMTypeOf(user)),
                LLVMOpcode::LLVMStore if LLVMGetOperand(user, 1) == v => {
                    Some(LLVMTypeOf(LLVMGetOperand(user, 0)))
                }
                // Kept in a global (a harness's cursor, a context pointer): the loads of
                // that global elsewhere are the same pointer.
                LLVMOpcode::LLVMStore => {
                    let cell = LLVMGetOperand(user, 1);
                    if !LLVMIsAGlobalVariable(cell).is_null() {
                        let mut g = LLVMGetFirstUse(cell);
                        while !g.is_null() {
                            let load = LLVMGetUser(g);
                            g = LLVMGetNextUse(g);
                            if !LLVMIsALoadInst(load).is_null() {
                                work.push((load, None));
                            }
                        }
                    }
                    None
                }
                LLVMOpcode::LLVMGetElementPtr => {
                    let step = gep_offsets(cx, user, |i| const_operand(user, i))
                        .ok()
                        .filter(|(_, dynamic)| dynamic.is_empty())
                        .map(|(k, _)| k);
                    let next = offset.zip(step).and_then(|(a, b)| a.checked_add(b));
                    work.push((user, next));
                    None
                }
                LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect => {
                    work.push((user, None));
                    None
                }
                // A pointer handed to a callee (modf's output, a helper) is at least
                // one element the callee may touch; the pointee's size stands in.
                LLVMOpcode::LLVMCall => {
                    if let Some(o) = offset.filter(|&o| o >= 0) {
                        extent = extent.max(o as u64 + 1);
                    }
                    None
                }
                _ => None,
            };
            if let Some(t) = accessed {
                if let Some(o) = offset.filter(|&o| o >= 0) {
                    let size = LLVMABISizeOfType(cx.target_data, t);
                    extent = extent.max((o as u64).saturating_add(size));
                }
                match lower_type(t).ok().and_then(|t| t.lanes()) {
                    Some((s @ ScalarTy::Float(_), _)) => found_float = found_float.or(Some(s)),
                    Some((s @ ScalarTy::Int(_), _)) => found_int = found_int.or(Some(s)),
                    _ => {}
                }
            }
        }
    }
    PointerUse {
        pointee: found_float.or(found_int),
        constant_extent_bytes: extent,
    }
}

fn fmf_of(inst: LLVMValueRef) -> FastMath {
    // SAFETY: flags are only read from instructions that can carry them.
    unsafe {
        if LLVMCanValueUseFastMathFlags(inst) == 0 {
            return FastMath::default();
        }
        let f = LLVMGetFastMathFlags(inst);
        FastMath {
            reassoc: f & llvm_sys::LLVMFastMathAllowReassoc != 0,
            nnan: f & llvm_sys::LLVMFastMathNoNaNs != 0,
            ninf: f & llvm_sys::LLVMFastMathNoInfs != 0,
            nsz: f & llvm_sys::LLVMFastMathNoSignedZeros != 0,
            arcp: f & llvm_sys::LLVMFastMathAllowReciprocal != 0,
            contract: f & llvm_sys::LLVMFastMathAllowContract != 0,
            afn: f & llvm_sys::LLVMFastMathApproxFunc != 0,
        }
    }
}

/// The value of a function's string attribute (`"no-nans-fp-math"="true"`).
unsafe fn string_attr(f: LLVMValueRef, name: &str) -> Option<String> {
    let a = LLVMGetStringAttributeAtIndex(
        f,
        llvm_sys::LLVMAttributeFunctionIndex,
        name.as_ptr() as *const _,
        name.len() as u32,
    );
    if a.is_null() {
        return None;
    }
    let mut len = 0u32;
    let p = LLVMGetStringAttributeValue(a, &mut len);
    if p.is_null() {
        return None;
    }
    let bytes = std::slice::from_raw_parts(p as *const u8, len as usize);
    Some(String::from_utf8_lossy(bytes).into_owned())
}

/// Whether `v` is a `load` in `block`: in the selection DAG of that block it is a load
/// node (loads of other blocks arrive as register copies).
unsafe fn is_load_in(v: LLVMValueRef, block: LLVMBasicBlockRef) -> bool {
    !LLVMIsALoadInst(v).is_null() && LLVMGetInstructionParent(v) == block
}

/// The predicate an `fcmp` effectively has on x86-64 when the backend assumes no NaNs
/// (nnan flag or `no-nans-fp-math`). SelectionDAGBuilder::visitFCmp then drops the
/// ordered/unordered distinction (`getFCmpCodeWithoutNaN`: olt/ult → SETLT, ...), and
/// what a NaN operand does is whatever the chosen instruction does:
/// - `ucomisd` + jcc/setcc (branches, integer selects): X86 TranslateX86CC maps SETLT to
///   `b`, SETLE to `be`, SETGT to `a`, SETGE to `ae`, SETEQ to `e`, SETNE to `ne`; an
///   unordered `ucomisd` sets ZF=PF=CF=1, so `b`/`be`/`e` hold and `a`/`ae`/`ne` do not.
///   When only the left operand is a load of the same block it is swapped to the right
///   (SETLT becomes SETGT, etc.) so it can be folded as the memory operand.
///   Observed: `fcmp fast olt %x, %lo; br` → `ucomiss %xmm1, %xmm0; jb` (taken for NaN),
///   `fcmp fast oeq %x, %y; br` → `ucomisd %xmm1, %xmm0; jne` (NaN counts as equal).
/// - `cmpsd` masks (FP selects): translateX86FSETCC maps SETLT/SETGT to `cmplt` (operands
///   swapped for GT), SETLE/SETGE to `cmple`, SETEQ to `cmpeq`, SETNE to `cmpneq`: false on
///   NaN except `cmpneq`. Observed: `fcmp fast ugt %lo, %hi; select` → `cmpltsd %xmm3,
///   %xmm7` (hi < lo), false for NaN where the IR's `ugt` would be true.
fn no_nan_pred(pred: FCmpPred, lowering: CmpLowering, swapped: bool) -> FCmpPred {
    use FCmpPred::*;
    #[derive(PartialEq)]
    enum Dc {
        Lt,
        Le,
        Gt,
        Ge,
        Eq,
        Ne,
    }
    let dc = match pred {
        Olt | Ult => Dc::Lt,
        Ole | Ule => Dc::Le,
        Ogt | Ugt => Dc::Gt,
        Oge | Uge => Dc::Ge,
        Oeq | Ueq => Dc::Eq,
        One | Une => Dc::Ne,
        Ord | Uno | True | False => return pred,
    };
    match lowering {
        CmpLowering::Mask => match dc {
            Dc::Lt => Olt,
            Dc::Le => Ole,
            Dc::Gt => Ogt,
            Dc::Ge => Oge,
            Dc::Eq => Oeq,
            Dc::Ne => Une,
        },
        // `swapped`: the condition code is computed for (b, a) and read back for (a, b).
        CmpLowering::Quiet => match (dc, swapped) {
            (Dc::Lt, false) => Ult,
            (Dc::Lt, true) => Olt,
            (Dc::Le, false) => Ule,
            (Dc::Le, true) => Ole,
            (Dc::Gt, false) => Ogt,
            (Dc::Gt, true) => Ugt,
            (Dc::Ge, false) => Oge,
            (Dc::Ge, true) => Uge,
            (Dc::Eq, _) => Ueq,
            (Dc::Ne, _) => One,
        },
    }
}

/// Whether a type is a float or a vector of floats.
unsafe fn is_float_type(ty: LLVMTypeRef) -> bool {
    let scalar = if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind {
        LLVMGetElementType(ty)
    } else {
        ty
    };
    matches!(
        LLVMGetTypeKind(scalar),
        LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind
    )
}

/// Whether `v` has exactly one use.
unsafe fn single_use(v: LLVMValueRef) -> bool {
    let u = LLVMGetFirstUse(v);
    !u.is_null() && LLVMGetNextUse(u).is_null()
}

/// The name of the intrinsic an instruction calls (`llvm.floor.f64` → `floor`).
unsafe fn intrinsic_base(inst: LLVMValueRef) -> Option<String> {
    if LLVMGetInstructionOpcode(inst) != LLVMOpcode::LLVMCall {
        return None;
    }
    let callee = LLVMGetCalledValue(inst);
    if LLVMIsAFunction(callee).is_null() {
        return None;
    }
    let name = value_name(callee);
    let rest = name.strip_prefix("llvm.")?;
    Some(rest.split('.').next().unwrap_or("").to_string())
}

/// Instructions MachineSink may move to the side of a branch that alone uses them:
/// floating-point arithmetic, conversions and the intrinsics x86 computes inline (not
/// libcalls, not memory accesses).
unsafe fn sinkable(inst: LLVMValueRef) -> bool {
    use LLVMOpcode::*;
    match LLVMGetInstructionOpcode(inst) {
        LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFNeg | LLVMFPToSI | LLVMFPToUI
        | LLVMSIToFP | LLVMUIToFP | LLVMFPExt | LLVMFPTrunc => true,
        LLVMCall => matches!(
            intrinsic_base(inst).as_deref(),
            Some("sqrt" | "fabs" | "minnum" | "maxnum" | "copysign")
        ),
        _ => false,
    }
}

/// What CodeGenPrepare calls expensive to speculate on x86-64 (`sinkSelectOperand`):
/// divisions and intrinsics that become libm calls. Observed with clang-19 -O3
/// -ffast-math: `z < 0 ? x / y : y` and `z < 0 ? floor(x) : y` become a branch around
/// `divsd` / `callq floor`, while `*`, `+`, `-`, sqrt, conversions stay a `cmpltsd` mask.
unsafe fn expensive(inst: LLVMValueRef) -> bool {
    use LLVMOpcode::*;
    match LLVMGetInstructionOpcode(inst) {
        LLVMFDiv | LLVMFRem => true,
        LLVMCall => matches!(
            intrinsic_base(inst).as_deref(),
            Some(
                "exp"
                    | "exp2"
                    | "log"
                    | "log2"
                    | "log10"
                    | "pow"
                    | "sin"
                    | "cos"
                    | "tan"
                    | "floor"
                    | "ceil"
                    | "trunc"
                    | "round"
                    | "rint"
                    | "nearbyint"
                    | "roundeven"
            )
        ),
        _ => false,
    }
}

/// The instructions of `block` that only feed `root` (transitively, single uses) and can
/// move with it, in program order; empty when `root` itself cannot move.
unsafe fn side_tree(
    root: LLVMValueRef,
    block: LLVMBasicBlockRef,
    root_ok: impl Fn(LLVMValueRef) -> bool,
) -> Vec<LLVMValueRef> {
    let movable_here = |v: LLVMValueRef| {
        !LLVMIsAInstruction(v).is_null() && LLVMGetInstructionParent(v) == block && single_use(v)
    };
    if !movable_here(root) || !root_ok(root) {
        return Vec::new();
    }
    let mut set = std::collections::HashSet::new();
    let mut work = vec![root];
    set.insert(key(root));
    while let Some(i) = work.pop() {
        for k in 0..LLVMGetNumOperands(i) as u32 {
            let op = LLVMGetOperand(i, k);
            if movable_here(op) && sinkable(op) && set.insert(key(op)) {
                work.push(op);
            }
        }
    }
    let mut out = Vec::new();
    let mut it = LLVMGetFirstInstruction(block);
    while !it.is_null() {
        if set.contains(&key(it)) {
            out.push(it);
        }
        it = LLVMGetNextInstruction(it);
    }
    out
}

/// Finds the selects of `block` that the optimising x86-64 backend turns into a branch
/// diamond, so that what feeds only one side runs only when that side is selected (and
/// raises its flags only then):
/// - CodeGenPrepare (`optimizeSelectInst`) converts a select whose condition is a compare
///   with one use when a side is expensive (see [`expensive`]); consecutive selects on the
///   same condition go with the first. `neg ? 1.0 / r : r` in ipow becomes
///   `testl %edi, %edi; js .LBB0_7 ... .LBB0_7: divsd %xmm0, %xmm1`.
/// - A floating-point select whose condition is not a same-type `fcmp` of its own block
///   (which would give a `cmpsd` mask) is a CMOV_FR64 pseudo, expanded into a diamond;
///   MachineSink then moves single-use computations into the side that uses them,
///   splitting the critical edge when needed. `c > 3 ? x * y + 1.5 : y` compiles to
///   `cmpl $4, %edi; jl .LBB0_2; mulsd %xmm0, %xmm1; addsd .LCPI0_0(%rip), %xmm1`, and
///   ipow's loop `select (bit == 0), r, r * b` to `testb $1, %al; je ...; mulsd`.
///
/// MachineSink also sinks into the sides CodeGenPrepare creates, so both cases move the
/// whole single-use tree of each side.
unsafe fn select_diamonds(block: LLVMBasicBlockRef, out: &mut HashMap<usize, Diamond>) {
    let mut inst = LLVMGetFirstInstruction(block);
    // Condition of the select group CodeGenPrepare converted, if the previous instruction
    // was part of one.
    let mut cgp_group: Option<LLVMValueRef> = None;
    while !inst.is_null() {
        if LLVMGetInstructionOpcode(inst) != LLVMOpcode::LLVMSelect {
            cgp_group = None;
            inst = LLVMGetNextInstruction(inst);
            continue;
        }
        let cond = LLVMGetOperand(inst, 0);
        let (t, f) = (LLVMGetOperand(inst, 1), LLVMGetOperand(inst, 2));
        let scalar_cond = LLVMGetTypeKind(LLVMTypeOf(cond)) == LLVMTypeKind::LLVMIntegerTypeKind;
        let cmp_cond = !LLVMIsACmpInst(cond).is_null();
        let in_group = cgp_group == Some(cond);
        let cgp = scalar_cond
            && (in_group
                || (cmp_cond
                    && single_use(cond)
                    && (side_tree(t, block, |i| expensive(i)).len()
                        + side_tree(f, block, |i| expensive(i)).len()
                        > 0)));
        cgp_group = if cgp { Some(cond) } else { None };
        let fcmp_mask = !LLVMIsAFCmpInst(cond).is_null()
            && LLVMGetInstructionParent(cond) == block
            && LLVMTypeOf(LLVMGetOperand(cond, 0)) == LLVMTypeOf(inst);
        let cmov = scalar_cond && is_float_type(LLVMTypeOf(inst)) && !fcmp_mask;
        if cgp || cmov {
            let root_ok = |i: LLVMValueRef| sinkable(i) || (cgp && expensive(i));
            let d = Diamond {
                on_true: side_tree(t, block, root_ok),
                on_false: side_tree(f, block, root_ok),
            };
            if !d.on_true.is_empty() || !d.on_false.is_empty() {
                out.insert(key(inst), d);
            }
        }
        inst = LLVMGetNextInstruction(inst);
    }
}

/// Whether `v` is the constant ±1.0 (or a vector of them): such a division is itself a
/// reciprocal and does not start the rewrite in [`repeated_divisors`].
unsafe fn is_one_or_minus_one(v: LLVMValueRef) -> bool {
    let scalar = if !LLVMIsAConstantFP(v).is_null() {
        v
    } else if !LLVMIsAConstantDataVector(v).is_null() || !LLVMIsAConstantVector(v).is_null() {
        let e = LLVMGetAggregateElement(v, 0);
        if e.is_null() || LLVMIsAConstantFP(e).is_null() {
            return false;
        }
        let n = LLVMGetVectorSize(LLVMTypeOf(v));
        if (1..n).any(|i| LLVMGetAggregateElement(v, i) != e) {
            return false;
        }
        e
    } else {
        return false;
    };
    let mut loses = 0;
    let d = LLVMConstRealGetDouble(scalar, &mut loses);
    d == 1.0 || d == -1.0
}

/// Lanes a divisor counts for: a vector divisor that is a splat (`shufflevector` with one
/// repeated lane) counts once per lane, anything else once.
unsafe fn divisor_weight(d: LLVMValueRef) -> usize {
    let ty = LLVMTypeOf(d);
    if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMVectorTypeKind {
        return 1;
    }
    if LLVMIsAShuffleVectorInst(d).is_null() {
        return 1;
    }
    let n = LLVMGetNumMaskElements(d);
    let first = LLVMGetMaskValue(d, 0);
    if first < 0 || (1..n).any(|i| LLVMGetMaskValue(d, i) != first) {
        return 1;
    }
    n as usize
}

/// DAGCombiner::combineRepeatedFPDivisors: within one block (one selection DAG), when
/// the divisions by the same value that allow reciprocals (arcp, or `unsafe-fp-math`)
/// number at least two — a splat vector divisor counts once per lane, x86's threshold
/// being 2 — each `x / d` becomes `x * (1 / d)` with one shared `1 / d`. Observed in
/// jetEngine under -ffast-math: `fdiv fast <2 x double> %19, splat(d)` compiles to
/// `movsd .LCPI0_3, %xmm5; divsd %xmm2, %xmm5; unpcklpd %xmm5, %xmm5; mulpd %xmm1, %xmm5`.
/// Divisions CodeGenPrepare sinks into another block (`sunk`) are not in this DAG.
unsafe fn repeated_divisors(
    block: LLVMBasicBlockRef,
    sunk: &std::collections::HashSet<usize>,
    unsafe_math: bool,
    out: &mut HashMap<usize, LLVMValueRef>,
) {
    let mut groups: Vec<(LLVMValueRef, Vec<LLVMValueRef>, bool)> = Vec::new();
    let mut inst = LLVMGetFirstInstruction(block);
    while !inst.is_null() {
        if LLVMGetInstructionOpcode(inst) == LLVMOpcode::LLVMFDiv
            && !sunk.contains(&key(inst))
            && (unsafe_math || fmf_of(inst).arcp)
        {
            let d = LLVMGetOperand(inst, 1);
            let starts = !is_one_or_minus_one(LLVMGetOperand(inst, 0));
            match groups.iter_mut().find(|(g, ..)| *g == d) {
                Some((_, members, any_start)) => {
                    members.push(inst);
                    *any_start |= starts;
                }
                None => groups.push((d, vec![inst], starts)),
            }
        }
        inst = LLVMGetNextInstruction(inst);
    }
    for (d, members, any_start) in groups {
        if any_start && members.len() * divisor_weight(d) >= 2 {
            for m in members {
                out.insert(key(m), d);
            }
        }
    }
}

/// The fused multiply-adds x86-64's DAG combiner forms in `block` on a target with FMA
/// (not aggressive on x86, so every absorbed operation must have exactly one use, in the
/// same block, and no twin of the same operands there: the DAG merges twins into one
/// node of several uses). The combiner visits users before their operands (its worklist
/// pops the topological order from the back), so the block is walked backwards and an
/// operation already absorbed is not combined again. A division the backend turns into a
/// multiply by a shared reciprocal ([`repeated_divisors`]) is a product like any other.
/// - `visitFADDForFMACombine`/`visitFSUBForFMACombine`: an `fadd`/`fsub` with `contract`
///   absorbs a `contract` `fmul` operand, the first operand tried first (in a function
///   with `"unsafe-fp-math"="true"`, -ffast-math's, the combiner fuses globally: every
///   operation counts as `contract` and every add as `reassoc`);
/// - `visitFMULForFMADistributiveCombine`: a `contract` `fmul` absorbs an `ninf`
///   `fadd x, ±1` or `fsub ±1, x` / `fsub x, ±1` operand (x·y + y and its relatives);
/// - a reassociating `llvm.vector.reduce.fadd` absorbs a vector `fmul` two, four or
///   eight 256-bit registers wide, whose register-wise sums become one chain of fmas
///   (not on AVX-512 targets, whose registers are twice as wide: not modelled).
///
/// Multiplications the combiner rewrites first (by 1, -1 or 2) are left alone, as are
/// instructions sunk into a select's branch.
unsafe fn contractions(
    block: LLVMBasicBlockRef,
    register_512: bool,
    unsafe_math: bool,
    recip_of: &HashMap<usize, LLVMValueRef>,
    sunk: &std::collections::HashSet<usize>,
    out: &mut HashMap<usize, Contraction>,
    absorbed: &mut std::collections::HashSet<usize>,
) {
    let mut insts = Vec::new();
    let mut inst = LLVMGetFirstInstruction(block);
    while !inst.is_null() {
        insts.push(inst);
        inst = LLVMGetNextInstruction(inst);
    }
    // The selection DAG keeps one node for operations of the same operands (CSE): two
    // `fmul x, y` of a block are one product with two uses, which no add absorbs.
    let mut operands_seen: HashMap<(u32, usize, usize), usize> = HashMap::new();
    for &i in &insts {
        if LLVMGetNumOperands(i) == 2 {
            let k = (
                LLVMGetInstructionOpcode(i) as u32,
                key(LLVMGetOperand(i, 0)),
                key(LLVMGetOperand(i, 1)),
            );
            *operands_seen.entry(k).or_default() += 1;
        }
    }
    let has_twin = |v: LLVMValueRef| -> bool {
        let k = (
            LLVMGetInstructionOpcode(v) as u32,
            key(LLVMGetOperand(v, 0)),
            key(LLVMGetOperand(v, 1)),
        );
        operands_seen.get(&k).is_some_and(|&n| n > 1)
    };
    let only_use_by = |v: LLVMValueRef, user: LLVMValueRef, opcode: LLVMOpcode| -> bool {
        if LLVMIsAInstruction(v).is_null()
            || LLVMGetInstructionOpcode(v) != opcode
            || LLVMGetInstructionParent(v) != block
            || sunk.contains(&key(v))
            || has_twin(v)
        {
            return false;
        }
        let first = LLVMGetFirstUse(v);
        !first.is_null() && LLVMGetNextUse(first).is_null() && LLVMGetUser(first) == user
    };
    let constant = |c: LLVMValueRef| -> Option<f64> {
        let mut loses = 0;
        (!LLVMIsAConstantFP(c).is_null()).then(|| LLVMConstRealGetDouble(c, &mut loses))
    };
    let fusable_mul = |v: LLVMValueRef, user: LLVMValueRef| -> bool {
        (only_use_by(v, user, LLVMOpcode::LLVMFMul)
            || (recip_of.contains_key(&key(v)) && only_use_by(v, user, LLVMOpcode::LLVMFDiv)))
            && (fmf_of(v).contract || unsafe_math)
            && [0, 1].iter().all(|&i| {
                let c = LLVMGetOperand(v, i);
                !is_one_or_minus_one(c) && constant(c) != Some(2.0)
            })
    };
    // `fadd (fma a, b, (fmul c, d)), e --> fma a, b, (fma c, d, e)` (with `reassoc`,
    // through nested fmas): the combiner revisits an add as soon as an operand became an
    // fma, while operands earlier in the block are still plain adds. It takes the first
    // operand that is an fma (the second only when the first is not), and nothing when
    // that one's chain does not end in a product.
    let chain_at = |inst: LLVMValueRef,
                    out: &mut HashMap<usize, Contraction>,
                    absorbed: &mut std::collections::HashSet<usize>| {
        if LLVMGetInstructionOpcode(inst) != LLVMOpcode::LLVMFAdd
            || LLVMGetInstructionParent(inst) != block
            || absorbed.contains(&key(inst))
            || out.contains_key(&key(inst))
            || sunk.contains(&key(inst))
            || !(fmf_of(inst).reassoc || unsafe_math)
        {
            return;
        }
        let fused_sum = |v: LLVMValueRef, user: LLVMValueRef| -> Option<(LLVMValueRef, bool)> {
            if !only_use_by(v, user, LLVMOpcode::LLVMFAdd) {
                return None;
            }
            match out.get(&key(v)) {
                Some(Contraction::Sum { mul, mul_first }) => Some((*mul, *mul_first)),
                _ => None,
            }
        };
        let (a, b) = (LLVMGetOperand(inst, 0), LLVMGetOperand(inst, 1));
        let Some((top, e)) = [(a, b), (b, a)]
            .into_iter()
            .find(|(x, _)| fused_sum(*x, inst).is_some())
        else {
            return;
        };
        let mut levels = [None; CHAIN_LEVELS];
        let (mut level, mut user) = (top, inst);
        let mut depth = 0;
        let last = loop {
            let Some((_, mul_first)) = fused_sum(level, user) else {
                break None;
            };
            if depth == CHAIN_LEVELS {
                break None;
            }
            levels[depth] = Some(level);
            depth += 1;
            let addend = LLVMGetOperand(level, if mul_first { 1 } else { 0 });
            if fusable_mul(addend, level) {
                break Some(addend);
            }
            (level, user) = (addend, level);
        };
        if let Some(last) = last {
            for l in levels.iter().flatten() {
                absorbed.insert(key(*l));
            }
            absorbed.insert(key(last));
            out.insert(key(inst), Contraction::Chain { levels, last, e });
        }
    };
    for &inst in insts.iter().rev() {
        if absorbed.contains(&key(inst)) || sunk.contains(&key(inst)) {
            continue;
        }
        let opcode = LLVMGetInstructionOpcode(inst);
        let (a, b) = (LLVMGetOperand(inst, 0), LLVMGetOperand(inst, 1));
        let found = match opcode {
            LLVMOpcode::LLVMFAdd | LLVMOpcode::LLVMFSub if fmf_of(inst).contract || unsafe_math => {
                if fusable_mul(a, inst) {
                    Some(Contraction::Sum {
                        mul: a,
                        mul_first: true,
                    })
                } else if fusable_mul(b, inst) {
                    Some(Contraction::Sum {
                        mul: b,
                        mul_first: false,
                    })
                } else {
                    None
                }
            }
            LLVMOpcode::LLVMFMul if fmf_of(inst).contract || unsafe_math => {
                // (x ± c) · y with c = ±1: FuseFADD(N0, N1), FuseFADD(N1, N0), then the
                // same for fsub.
                let mut found = None;
                for sub in [false, true] {
                    let op = if sub {
                        LLVMOpcode::LLVMFSub
                    } else {
                        LLVMOpcode::LLVMFAdd
                    };
                    for (x, y) in [(a, b), (b, a)] {
                        if found.is_some() || !only_use_by(x, inst, op) || !fmf_of(x).ninf {
                            continue;
                        }
                        let (l, r) = (LLVMGetOperand(x, 0), LLVMGetOperand(x, 1));
                        // c on the right: x0 ± c; (fsub only) c on the left: c - x1.
                        let shape = match (constant(r), sub.then(|| constant(l)).flatten()) {
                            (Some(c), _) if c.abs() == 1.0 => {
                                let plus_y = (c > 0.0) != sub;
                                Some((l, false, plus_y))
                            }
                            (_, Some(c)) if c.abs() == 1.0 => Some((r, true, c > 0.0)),
                            _ => None,
                        };
                        if let Some((term, negate_term, plus_y)) = shape {
                            found = Some(Contraction::Distributed {
                                add: x,
                                term,
                                negate_term,
                                other: y,
                                plus_other: plus_y,
                            });
                        }
                    }
                }
                found
            }
            LLVMOpcode::LLVMCall
                if fmf_of(inst).reassoc
                    && (fmf_of(inst).contract || unsafe_math)
                    && !register_512
                    && value_name(LLVMGetCalledValue(inst))
                        .starts_with("llvm.vector.reduce.fadd.") =>
            {
                let v = LLVMGetOperand(inst, 1);
                (fusable_mul(v, inst)
                    && LLVMGetInstructionOpcode(v) == LLVMOpcode::LLVMFMul
                    && fused_reduction_shape(v).is_some())
                .then_some(Contraction::Reduction { mul: v })
            }
            _ => None,
        };
        if let Some(c) = found {
            match c {
                Contraction::Sum { mul, .. } | Contraction::Reduction { mul } => {
                    absorbed.insert(key(mul))
                }
                Contraction::Distributed { add, .. } => absorbed.insert(key(add)),
                Contraction::Chain { .. } => false,
            };
            out.insert(key(inst), c);
            if matches!(c, Contraction::Sum { .. }) {
                // The add above it, past adds that are fmas already (the chain may now
                // reach a product through them).
                let mut at = inst;
                loop {
                    let first = LLVMGetFirstUse(at);
                    if first.is_null() || !LLVMGetNextUse(first).is_null() {
                        break;
                    }
                    let user = LLVMGetUser(first);
                    if matches!(out.get(&key(user)), Some(Contraction::Sum { .. })) {
                        at = user;
                        continue;
                    }
                    chain_at(user, out, absorbed);
                    break;
                }
            }
        }
    }
}

/// The register-sized parts and chain order (see [`reduction_chain`]) of a reduction of
/// the vector product `mul`. A product of build vectors (`insertelement` chains, or
/// constants) one register wide or narrower is narrowed by the combiner into its two
/// halves instead, the first half's products rounded and the second's fused onto them
/// (clang 19's code for sums of squares of four computed doubles, and of two).
unsafe fn fused_reduction_shape(mul: LLVMValueRef) -> Option<(u32, &'static [u32])> {
    let vector = LLVMTypeOf(mul);
    if LLVMGetTypeKind(vector) != LLVMTypeKind::LLVMVectorTypeKind {
        return None;
    }
    let built = |v: LLVMValueRef| {
        !LLVMIsAConstant(v).is_null()
            || (!LLVMIsAInstruction(v).is_null()
                && LLVMGetInstructionOpcode(v) == LLVMOpcode::LLVMInsertElement)
    };
    let elem_bits = match LLVMGetTypeKind(LLVMGetElementType(vector)) {
        LLVMTypeKind::LLVMDoubleTypeKind => 64,
        _ => 0,
    };
    let n = LLVMGetVectorSize(vector);
    if elem_bits == 64
        && (n == 2 || n == 4)
        && built(LLVMGetOperand(mul, 0))
        && built(LLVMGetOperand(mul, 1))
    {
        return Some((n / 2, &[0, 1]));
    }
    reduction_chain(vector)
}

/// For a vector of two, four or eight 256-bit registers: the lanes of one register and
/// the order in which the fused chain of [`Lowering::lower_fused_reduction`] takes the
/// registers (the first one's product is rounded, each next one is fused onto the
/// sum). Read off clang 19's x86-64 code for `-O3 -ffast-math -mfma` dot products of
/// 8, 16 and 32 doubles and 16, 32 and 64 floats: the order comes from the sequence in
/// which legalisation creates the halves and the combiner revisits them, so it is
/// tabled rather than derived.
unsafe fn reduction_chain(vector: LLVMTypeRef) -> Option<(u32, &'static [u32])> {
    if LLVMGetTypeKind(vector) != LLVMTypeKind::LLVMVectorTypeKind {
        return None;
    }
    let elem_bits = match LLVMGetTypeKind(LLVMGetElementType(vector)) {
        LLVMTypeKind::LLVMDoubleTypeKind => 64,
        LLVMTypeKind::LLVMFloatTypeKind => 32,
        _ => return None,
    };
    let lanes = 256 / elem_bits;
    let chain: &'static [u32] = match LLVMGetVectorSize(vector) / lanes {
        2 => &[1, 0],
        4 => &[2, 0, 3, 1],
        8 => &[7, 3, 5, 1, 6, 2, 4, 0],
        _ => return None,
    };
    LLVMGetVectorSize(vector)
        .is_multiple_of(lanes)
        .then_some((lanes, chain))
}

/// Whether an `fcmp` feeds a `select` in its own block, which x86 selection turns into a
/// `cmpsd` mask (signalling on quiet NaNs for relational predicates) instead of `ucomisd`.
unsafe fn fcmp_lowering(inst: LLVMValueRef, diamonds: &HashMap<usize, Diamond>) -> CmpLowering {
    if LLVMGetTypeKind(LLVMTypeOf(inst)) == LLVMTypeKind::LLVMVectorTypeKind {
        return CmpLowering::Mask;
    }
    let block = LLVMGetInstructionParent(inst);
    let mut u = LLVMGetFirstUse(inst);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        u = LLVMGetNextUse(u);
        // Only a select of floating-point values lives in XMM registers and gets the
        // `cmpsd` mask (or minsd/maxsd). A select of integers is `ucomiss` + `cmov`:
        // `x <= m ? 1 : 3` compiles to `ucomiss %xmm1, %xmm0; cmovael %ecx, %eax` at -O0
        // and `ucomiss %xmm0, %xmm2; setb %al` at -O3, both quiet on a quiet NaN.
        if !LLVMIsAInstruction(user).is_null()
            && LLVMGetInstructionOpcode(user) == LLVMOpcode::LLVMSelect
            && LLVMGetOperand(user, 0) == inst
            && LLVMGetInstructionParent(user) == block
            && LLVMTypeOf(user) == LLVMTypeOf(LLVMGetOperand(inst, 0))
            && !diamonds.contains_key(&key(user))
        {
            return CmpLowering::Mask;
        }
    }
    CmpLowering::Quiet
}

impl FuncCx<'_> {
    fn fresh(&mut self) -> ValueId {
        let v = ValueId(self.next_value);
        self.next_value += 1;
        v
    }

    fn unsupported(&self, inst: LLVMValueRef, reason: impl Into<String>) -> FrontError {
        unsupported_at(&self.func_name, inst, reason.into())
    }

    fn site(&mut self, inst: LLVMValueRef, opcode: &str, ty: Type) -> FpOpId {
        let id = FpOpId(self.m.fp_ops.len() as u32);
        self.m.fp_ops.push(FpOpInfo {
            func: self.func_id,
            opcode: opcode.to_string(),
            ty,
            fmf: fmf_of(inst),
            loc: debug_loc(inst),
        });
        id
    }

    unsafe fn operand(&mut self, inst: LLVMValueRef, v: LLVMValueRef) -> Result<Operand> {
        if let Some(op) = self.values.get(&key(v)) {
            return Ok(op.clone());
        }
        if LLVMIsAConstant(v).is_null() {
            return Err(self.unsupported(inst, format!("operand {}", print_value(v).trim())));
        }
        lower_const(self.m, v)
            .map(Operand::Const)
            .map_err(|r| self.unsupported(inst, r))
    }

    unsafe fn op(&mut self, inst: LLVMValueRef, i: u32) -> Result<Operand> {
        self.operand(inst, LLVMGetOperand(inst, i))
    }

    unsafe fn ty_of(&self, inst: LLVMValueRef, v: LLVMValueRef) -> Result<Type> {
        lower_type(LLVMTypeOf(v)).map_err(|r| self.unsupported(inst, r))
    }

    unsafe fn block_of(&self, inst: LLVMValueRef, bb: LLVMBasicBlockRef) -> Result<BlockId> {
        self.blocks
            .get(&key(LLVMBasicBlockAsValue(bb)))
            .copied()
            .ok_or_else(|| self.unsupported(inst, "branch to an unknown block"))
    }

    unsafe fn lower_block(&mut self, bb: LLVMBasicBlockRef) -> Result<Block> {
        let mut phis = Vec::new();
        let mut insts = Vec::new();
        let mut inst = LLVMGetFirstInstruction(bb);
        let mut term = None;
        let mut term_loc = None;
        let own_id = self.block_of(inst, bb)?;
        // While diamonds split the block: the finished parts (own id first) and the id
        // of the part being filled.
        let mut parts: Vec<(BlockId, Block)> = Vec::new();
        let mut current = own_id;
        while !inst.is_null() {
            let opcode = LLVMGetInstructionOpcode(inst);
            if self.sunk.contains(&key(inst)) {
                // Lowered inside its diamond side.
            } else if let Some(d) = self.diamonds.remove(&key(inst)) {
                let cond = self.op(inst, 0)?;
                let (t, f) = (self.op(inst, 1)?, self.op(inst, 2)?);
                let ty = self.ty_of(inst, inst)?;
                let dest = self.dest(inst)?;
                let end = self.new_block_id();
                let side = |this: &mut Self, list: &[LLVMValueRef]| -> Result<Option<BlockId>> {
                    if list.is_empty() {
                        return Ok(None);
                    }
                    let id = this.new_block_id();
                    let mut body = Vec::new();
                    for &i in list {
                        this.lower_or_defer(i, LLVMGetInstructionOpcode(i), &mut body)?;
                    }
                    this.put_block(
                        id,
                        Block {
                            phis: Vec::new(),
                            insts: body,
                            term: Terminator::Br(end),
                            term_loc: debug_loc(inst),
                        },
                    );
                    Ok(Some(id))
                };
                let t_side = side(self, &d.on_true)?;
                let f_side = side(self, &d.on_false)?;
                parts.push((
                    current,
                    Block {
                        phis: std::mem::take(&mut phis),
                        insts: std::mem::take(&mut insts),
                        term: Terminator::CondBr {
                            cond,
                            then_: t_side.unwrap_or(end),
                            else_: f_side.unwrap_or(end),
                        },
                        term_loc: debug_loc(inst),
                    },
                ));
                phis.push(Phi {
                    dest,
                    ty,
                    incoming: vec![
                        (t_side.unwrap_or(current), t),
                        (f_side.unwrap_or(current), f),
                    ],
                });
                current = end;
            } else if opcode == LLVMOpcode::LLVMPHI {
                let ty = self.ty_of(inst, inst)?;
                let mut incoming = Vec::new();
                for i in 0..LLVMCountIncoming(inst) {
                    let v = self.operand(inst, LLVMGetIncomingValue(inst, i))?;
                    let b = self.block_of(inst, LLVMGetIncomingBlock(inst, i))?;
                    incoming.push((b, v));
                }
                let dest = self.dest(inst)?;
                phis.push(Phi { dest, ty, incoming });
            } else if LLVMIsATerminatorInst(inst).is_null() {
                if opcode == LLVMOpcode::LLVMFreeze {
                    // freeze only pins undefined values, which the walker already makes concrete.
                    let v = self.op(inst, 0)?;
                    self.values.insert(key(inst), v);
                } else {
                    self.lower_or_defer(inst, opcode, &mut insts)?;
                }
            } else {
                term = Some(self.lower_term(inst, opcode)?);
                term_loc = debug_loc(inst);
            }
            inst = LLVMGetNextInstruction(inst);
        }
        let term = term.ok_or_else(|| {
            FrontError::Unsupported(Box::new(Unsupported {
                function: self.func_name.clone(),
                instruction: String::from("<block>"),
                loc: None,
                reason: "basic block without terminator".into(),
            }))
        })?;
        let last = Block {
            phis,
            insts,
            term,
            term_loc,
        };
        if parts.is_empty() {
            return Ok(last);
        }
        self.exit_part.insert(own_id.0, current);
        self.put_block(current, last);
        let mut parts = parts.into_iter();
        let (_, first) = parts.next().expect("a split block has a first part");
        for (id, b) in parts {
            self.put_block(id, b);
        }
        Ok(first)
    }

    /// A fresh id for a block created by the lowering (after the function's own blocks).
    fn new_block_id(&mut self) -> BlockId {
        let id = BlockId(self.own_blocks + self.extra_blocks.len() as u32);
        self.extra_blocks.push(Block {
            phis: Vec::new(),
            insts: Vec::new(),
            term: Terminator::Unreachable,
            term_loc: None,
        });
        id
    }

    fn put_block(&mut self, id: BlockId, b: Block) {
        self.extra_blocks[(id.0 - self.own_blocks) as usize] = b;
    }

    fn dest(&self, inst: LLVMValueRef) -> Result<ValueId> {
        match self.values.get(&key(inst)) {
            Some(Operand::Value(v)) => Ok(*v),
            _ => Err(self.unsupported(inst, "instruction result was not numbered")),
        }
    }

    unsafe fn lower_term(&mut self, inst: LLVMValueRef, opcode: LLVMOpcode) -> Result<Terminator> {
        Ok(match opcode {
            LLVMOpcode::LLVMRet => {
                if LLVMGetNumOperands(inst) == 0 {
                    Terminator::Ret(None)
                } else {
                    Terminator::Ret(Some(self.op(inst, 0)?))
                }
            }
            LLVMOpcode::LLVMBr => {
                if LLVMIsConditional(inst) != 0 {
                    let cond = self.operand(inst, LLVMGetCondition(inst))?;
                    let then_ = self.block_of(inst, LLVMGetSuccessor(inst, 0))?;
                    let else_ = self.block_of(inst, LLVMGetSuccessor(inst, 1))?;
                    Terminator::CondBr { cond, then_, else_ }
                } else {
                    Terminator::Br(self.block_of(inst, LLVMGetSuccessor(inst, 0))?)
                }
            }
            LLVMOpcode::LLVMSwitch => {
                let value = self.op(inst, 0)?;
                let ty = self.ty_of(inst, LLVMGetOperand(inst, 0))?;
                let default = self.block_of(inst, LLVMGetSwitchDefaultDest(inst))?;
                let mut cases = Vec::new();
                for k in 1..LLVMGetNumSuccessors(inst) {
                    let case_val = LLVMGetOperand(inst, 2 * k);
                    let w = LLVMGetIntTypeWidth(LLVMTypeOf(case_val));
                    let bits = truncate_bits(LLVMConstIntGetZExtValue(case_val), w);
                    cases.push((bits, self.block_of(inst, LLVMGetSuccessor(inst, k))?));
                }
                Terminator::Switch {
                    ty,
                    value,
                    default,
                    cases,
                }
            }
            LLVMOpcode::LLVMUnreachable => Terminator::Unreachable,
            other => {
                return Err(self.unsupported(inst, format!("terminator {other:?}")));
            }
        })
    }

    /// Lowers an instruction; one fpscout cannot model becomes an `Unsupported`
    /// instruction, an error only for the paths that reach it (its users fail in turn,
    /// where they are). Phis and terminators cannot be deferred: their failure still
    /// makes the function a stub.
    unsafe fn lower_or_defer(
        &mut self,
        inst: LLVMValueRef,
        opcode: LLVMOpcode,
        out: &mut Vec<Inst>,
    ) -> Result<()> {
        let before = out.len();
        match self.lower_inst(inst, opcode, out) {
            Err(FrontError::Unsupported(why)) => {
                out.truncate(before);
                let dest = match self.ty_of(inst, inst) {
                    Ok(Type::Void) | Err(_) => None,
                    Ok(_) => self.dest(inst).ok(),
                };
                out.push(Inst {
                    dest,
                    kind: InstKind::Unsupported {
                        reason: why.to_string(),
                    },
                });
                Ok(())
            }
            other => other,
        }
    }

    /// An operation and the operand it absorbs as one fused multiply-add (see
    /// [`Contraction`]): `x*y ± z` is fma(x, y, ±z), `z + x*y` is fma(x, y, z), `z - x*y`
    /// is fma(-x, y, z); `(t ± 1) * y` is fma(t, y, ±y), `(±1 - t) * y` is fma(-t, y, ±y).
    unsafe fn lower_contraction(
        &mut self,
        inst: LLVMValueRef,
        opcode: LLVMOpcode,
        c: Contraction,
        ty: Type,
        dest: Option<ValueId>,
        out: &mut Vec<Inst>,
    ) -> Result<()> {
        let (a, b, addend) = match c {
            Contraction::Reduction { mul } => {
                return self.lower_fused_reduction(inst, mul, dest, out);
            }
            Contraction::Sum { mul, mul_first } => {
                let (x, y) = self.factors(mul, out)?;
                let other = self.op(inst, if mul_first { 1 } else { 0 })?;
                match (opcode == LLVMOpcode::LLVMFSub, mul_first) {
                    (false, _) => (x, y, other),
                    (true, true) => (x, y, self.negated(ty, other, out)),
                    (true, false) => (self.negated(ty, x, out), y, other),
                }
            }
            Contraction::Chain { levels, last, e } => {
                // Innermost first: fma(c, d, e), then each inner level around it; the
                // outermost level's product is fused with the result as `inst` below.
                let (c, d) = self.factors(last, out)?;
                let e = self.operand(inst, e)?;
                let mut acc = self.fused_value(last, ty, (c, d, e), out);
                let levels: Vec<LLVMValueRef> = levels.iter().flatten().copied().collect();
                let Some((&outermost, inner)) = levels.split_first() else {
                    return Err(self.unsupported(inst, "a fused chain without levels"));
                };
                for &level in inner.iter().rev() {
                    let (x, y) = self.product_of_level(level, out)?;
                    acc = self.fused_value(level, ty, (x, y, acc), out);
                }
                let (x, y) = self.product_of_level(outermost, out)?;
                (x, y, acc)
            }
            Contraction::Distributed {
                add,
                term,
                negate_term,
                other,
                plus_other,
            } => {
                let t = self.operand(add, term)?;
                let t = if negate_term {
                    self.negated(ty, t, out)
                } else {
                    t
                };
                let y = self.operand(inst, other)?;
                let addend = if plus_other {
                    y.clone()
                } else {
                    self.negated(ty, y.clone(), out)
                };
                (t, y, addend)
            }
        };
        self.push_fma(inst, ty, dest, (a, b, addend), out);
        Ok(())
    }

    /// `llvm.vector.reduce.fadd` (reassociating) of the vector `fmul` `mul`, R = 2, 4 or
    /// 8 registers of 256 bits wide, as x86-64 computes it on a target with FMA: type
    /// legalisation splits the product and the first halving steps of the reduction
    /// register by register, and the combiner fuses those register-wise sums of
    /// products into one chain: one register's product rounded, then an fma with each
    /// other register's factors ([`reduction_chain`]). The resulting register is then
    /// reduced within itself as any reduction is.
    unsafe fn lower_fused_reduction(
        &mut self,
        inst: LLVMValueRef,
        mul: LLVMValueRef,
        dest: Option<ValueId>,
        out: &mut Vec<Inst>,
    ) -> Result<()> {
        let vty = self.ty_of(inst, mul)?;
        let (Some((elem, _)), Some((lanes, chain))) = (vty.lanes(), fused_reduction_shape(mul))
        else {
            return Err(self.unsupported(inst, "a fused reduction of an unexpected width"));
        };
        let register = Type::Vector(elem, lanes);
        let (a, b) = (self.op(mul, 0)?, self.op(mul, 1)?);
        let part = |this: &mut Self, v: &Operand, k: u32, out: &mut Vec<Inst>| -> Operand {
            let r = this.fresh();
            out.push(Inst {
                dest: Some(r),
                kind: InstKind::Shuffle {
                    ty: register,
                    a: v.clone(),
                    b: v.clone(),
                    mask: (k * lanes..(k + 1) * lanes).map(Some).collect(),
                },
            });
            Operand::Value(r)
        };
        let (&first, rest) = chain.split_first().unwrap_or((&0, &[]));
        let (x, y) = (part(self, &a, first, out), part(self, &b, first, out));
        let product = self.fresh();
        let site = self.site(mul, "fmul", register);
        out.push(Inst {
            dest: Some(product),
            kind: InstKind::FBin {
                op: FBinOp::FMul,
                ty: register,
                a: x,
                b: y,
                site,
            },
        });
        let mut acc = Operand::Value(product);
        for &k in rest {
            let (x, y) = (part(self, &a, k, out), part(self, &b, k, out));
            acc = self.fused_value(mul, register, (x, y, acc), out);
        }
        let start = self.op(inst, 0)?;
        let site = self.site(inst, "llvm.vector.reduce.fadd", register);
        out.push(Inst {
            dest,
            kind: InstKind::Reduce {
                op: ReduceOp::FAdd,
                ty: register,
                start: Some(start),
                v: acc,
                ordered: false,
                site,
            },
        });
        Ok(())
    }

    /// The factors of the `fmul` a [`Contraction::Sum`] level of a chain absorbed.
    unsafe fn product_of_level(
        &mut self,
        level: LLVMValueRef,
        out: &mut Vec<Inst>,
    ) -> Result<(Operand, Operand)> {
        match self.contracted.get(&key(level)).copied() {
            Some(Contraction::Sum { mul, .. }) => self.factors(mul, out),
            _ => Err(self.unsupported(level, "a fused chain lost a level")),
        }
    }

    /// The factors of an absorbed product: an `fmul`'s operands, or for an `fdiv` the
    /// backend turns into a multiply by a shared reciprocal, the dividend and that
    /// reciprocal (computed here when this block has not yet).
    unsafe fn factors(
        &mut self,
        mul: LLVMValueRef,
        out: &mut Vec<Inst>,
    ) -> Result<(Operand, Operand)> {
        let a = self.op(mul, 0)?;
        match self.recip_of.get(&key(mul)).copied() {
            Some(_) if LLVMGetInstructionOpcode(mul) == LLVMOpcode::LLVMFDiv => {
                let ty = self.ty_of(mul, mul)?;
                let r = self.reciprocal(mul, ty, out)?;
                Ok((a, Operand::Value(r)))
            }
            _ => Ok((a, self.op(mul, 1)?)),
        }
    }

    /// `1 / d` for the `fdiv` `inst` by `d` (see [`repeated_divisors`]): computed once
    /// per block and divisor, where the first of them is lowered.
    unsafe fn reciprocal(
        &mut self,
        inst: LLVMValueRef,
        ty: Type,
        out: &mut Vec<Inst>,
    ) -> Result<ValueId> {
        let d = LLVMGetOperand(inst, 1);
        let group = (
            key(LLVMBasicBlockAsValue(LLVMGetInstructionParent(inst))),
            key(d),
        );
        if let Some(&r) = self.recip_value.get(&group) {
            return Ok(r);
        }
        let r = self.fresh();
        let one = match (ty, ty.float_ty()) {
            (Type::Vector(_, n), Some(f)) => Const::Vector(vec![float_one(f); n as usize]),
            (_, Some(f)) => float_one(f),
            _ => return Err(self.unsupported(inst, "fdiv of non-floats")),
        };
        let b = self.op(inst, 1)?;
        let site = self.site(inst, "fdiv", ty);
        out.push(Inst {
            dest: Some(r),
            kind: InstKind::FBin {
                op: FBinOp::FDiv,
                ty,
                a: Operand::Const(one),
                b,
                site,
            },
        });
        self.recip_value.insert(group, r);
        Ok(r)
    }

    /// `-v`, as a new value (exact and silent).
    fn negated(&mut self, ty: Type, v: Operand, out: &mut Vec<Inst>) -> Operand {
        let r = self.fresh();
        out.push(Inst {
            dest: Some(r),
            kind: InstKind::FNeg { ty, a: v },
        });
        Operand::Value(r)
    }

    /// One fused multiply-add standing for part of `inst`, as a new value.
    fn fused_value(
        &mut self,
        inst: LLVMValueRef,
        ty: Type,
        operands: (Operand, Operand, Operand),
        out: &mut Vec<Inst>,
    ) -> Operand {
        let r = self.fresh();
        self.push_fma(inst, ty, Some(r), operands, out);
        Operand::Value(r)
    }

    /// One fused multiply-add standing for `inst`.
    fn push_fma(
        &mut self,
        inst: LLVMValueRef,
        ty: Type,
        dest: Option<ValueId>,
        (a, b, c): (Operand, Operand, Operand),
        out: &mut Vec<Inst>,
    ) {
        let site = self.site(inst, "fma", ty);
        out.push(Inst {
            dest,
            kind: InstKind::Fma {
                ty,
                a,
                b,
                c,
                fused: true,
                site,
            },
        });
    }

    unsafe fn lower_inst(
        &mut self,
        inst: LLVMValueRef,
        opcode: LLVMOpcode,
        out: &mut Vec<Inst>,
    ) -> Result<()> {
        use LLVMOpcode::*;
        let ty = self.ty_of(inst, inst)?;
        let dest = if ty == Type::Void {
            None
        } else {
            Some(self.dest(inst)?)
        };
        if self.absorbed.contains(&key(inst)) {
            // Computed inside the fused multiply-add that uses it.
            return Ok(());
        }
        if let Some(c) = self.contracted.get(&key(inst)).copied() {
            return self.lower_contraction(inst, opcode, c, ty, dest, out);
        }
        let kind = match opcode {
            LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem => {
                let (op, name) = match opcode {
                    LLVMFAdd => (FBinOp::FAdd, "fadd"),
                    LLVMFSub => (FBinOp::FSub, "fsub"),
                    LLVMFMul => (FBinOp::FMul, "fmul"),
                    LLVMFDiv => (FBinOp::FDiv, "fdiv"),
                    _ => (FBinOp::FRem, "frem"),
                };
                let a = self.op(inst, 0)?;
                let b = self.op(inst, 1)?;
                if self.recip_of.contains_key(&key(inst)) {
                    // x / d as x * (1 / d), the reciprocal computed once per block.
                    let r = self.reciprocal(inst, ty, out)?;
                    // 1.0 / d is the reciprocal itself; 1.0 * r is exact and silent.
                    let site = self.site(inst, "fmul", ty);
                    InstKind::FBin {
                        op: FBinOp::FMul,
                        ty,
                        a,
                        b: Operand::Value(r),
                        site,
                    }
                } else {
                    let site = self.site(inst, name, ty);
                    InstKind::FBin { op, ty, a, b, site }
                }
            }
            LLVMFNeg => InstKind::FNeg {
                ty,
                a: self.op(inst, 0)?,
            },
            LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl
            | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor => {
                let op = match opcode {
                    LLVMAdd => IBinOp::Add,
                    LLVMSub => IBinOp::Sub,
                    LLVMMul => IBinOp::Mul,
                    LLVMUDiv => IBinOp::UDiv,
                    LLVMSDiv => IBinOp::SDiv,
                    LLVMURem => IBinOp::URem,
                    LLVMSRem => IBinOp::SRem,
                    LLVMShl => IBinOp::Shl,
                    LLVMLShr => IBinOp::LShr,
                    LLVMAShr => IBinOp::AShr,
                    LLVMAnd => IBinOp::And,
                    LLVMOr => IBinOp::Or,
                    _ => IBinOp::Xor,
                };
                InstKind::IBin {
                    op,
                    ty,
                    a: self.op(inst, 0)?,
                    b: self.op(inst, 1)?,
                }
            }
            LLVMFCmp => {
                let pred = fcmp_pred(LLVMGetFCmpPredicate(inst));
                let opty = self.ty_of(inst, LLVMGetOperand(inst, 0))?;
                let a = self.op(inst, 0)?;
                let b = self.op(inst, 1)?;
                let lowering = fcmp_lowering(inst, &self.diamonds);
                let pred = if self.no_nans || fmf_of(inst).nnan {
                    let block = LLVMGetInstructionParent(inst);
                    let swapped = is_load_in(LLVMGetOperand(inst, 0), block)
                        && !is_load_in(LLVMGetOperand(inst, 1), block);
                    no_nan_pred(pred, lowering, swapped)
                } else {
                    pred
                };
                let site = self.site(inst, "fcmp", opty);
                InstKind::FCmp {
                    pred,
                    ty: opty,
                    a,
                    b,
                    lowering,
                    site,
                }
            }
            LLVMICmp => {
                let pred = icmp_pred(LLVMGetICmpPredicate(inst));
                let opty = self.ty_of(inst, LLVMGetOperand(inst, 0))?;
                InstKind::ICmp {
                    pred,
                    ty: opty,
                    a: self.op(inst, 0)?,
                    b: self.op(inst, 1)?,
                }
            }
            LLVMSIToFP | LLVMUIToFP | LLVMFPToSI | LLVMFPToUI | LLVMFPExt | LLVMFPTrunc
            | LLVMTrunc | LLVMZExt | LLVMSExt | LLVMBitCast | LLVMPtrToInt | LLVMIntToPtr => {
                let (op, name) = match opcode {
                    LLVMSIToFP => (CastOp::SIToFP, "sitofp"),
                    LLVMUIToFP => (CastOp::UIToFP, "uitofp"),
                    LLVMFPToSI => (CastOp::FPToSI, "fptosi"),
                    LLVMFPToUI => (CastOp::FPToUI, "fptoui"),
                    LLVMFPExt => (CastOp::FPExt, "fpext"),
                    LLVMFPTrunc => (CastOp::FPTrunc, "fptrunc"),
                    LLVMTrunc => (CastOp::Trunc, "trunc"),
                    LLVMZExt => (CastOp::ZExt, "zext"),
                    LLVMSExt => (CastOp::SExt, "sext"),
                    LLVMBitCast => (CastOp::BitCast, "bitcast"),
                    LLVMPtrToInt => (CastOp::PtrToInt, "ptrtoint"),
                    _ => (CastOp::IntToPtr, "inttoptr"),
                };
                let from = self.ty_of(inst, LLVMGetOperand(inst, 0))?;
                let a = self.op(inst, 0)?;
                let floaty = matches!(
                    op,
                    CastOp::SIToFP
                        | CastOp::UIToFP
                        | CastOp::FPToSI
                        | CastOp::FPToUI
                        | CastOp::FPExt
                        | CastOp::FPTrunc
                );
                let site = if floaty {
                    Some(self.site(inst, name, from))
                } else {
                    None
                };
                if op == CastOp::BitCast && from.store_size() != ty.store_size() {
                    return Err(self.unsupported(inst, "bitcast between different sizes"));
                }
                InstKind::Cast {
                    op,
                    from,
                    to: ty,
                    a,
                    site,
                }
            }
            LLVMSelect => InstKind::Select {
                ty,
                cond: self.op(inst, 0)?,
                a: self.op(inst, 1)?,
                b: self.op(inst, 2)?,
            },
            LLVMAlloca => {
                let elem = LLVMGetAllocatedType(inst);
                let count = LLVMGetOperand(inst, 0);
                if LLVMIsAConstantInt(count).is_null() {
                    return Err(self.unsupported(inst, "variable-length alloca"));
                }
                let n = LLVMConstIntGetZExtValue(count);
                let size = LLVMABISizeOfType(self.m.target_data, elem).saturating_mul(n);
                InstKind::Alloca { size }
            }
            LLVMLoad => InstKind::Load {
                ty,
                ptr: self.op(inst, 0)?,
            },
            LLVMStore => {
                let vty = self.ty_of(inst, LLVMGetOperand(inst, 0))?;
                InstKind::Store {
                    ty: vty,
                    value: self.op(inst, 0)?,
                    ptr: self.op(inst, 1)?,
                }
            }
            LLVMGetElementPtr => {
                if ty.is_vector() {
                    return Err(self.unsupported(inst, "vector of pointers (gather/scatter)"));
                }
                let (const_offset, dynamic) = gep_offsets(self.m, inst, |i| {
                    let op = LLVMGetOperand(inst, i);
                    if LLVMIsAConstantInt(op).is_null() {
                        None
                    } else {
                        Some(LLVMConstIntGetSExtValue(op))
                    }
                })
                .map_err(|r| self.unsupported(inst, r))?;
                let base = self.op(inst, 0)?;
                let mut indices = Vec::new();
                for (i, scale) in dynamic {
                    let idx = LLVMGetOperand(inst, i);
                    let width = match self.ty_of(inst, idx)? {
                        Type::Scalar(ScalarTy::Int(w)) => w,
                        _ => return Err(self.unsupported(inst, "vector GEP index")),
                    };
                    indices.push(GepIndex {
                        index: self.operand(inst, idx)?,
                        width,
                        scale,
                    });
                }
                InstKind::Gep {
                    base,
                    const_offset,
                    indices,
                }
            }
            LLVMExtractElement => InstKind::ExtractElement {
                ty: self.ty_of(inst, LLVMGetOperand(inst, 0))?,
                v: self.op(inst, 0)?,
                index: self.op(inst, 1)?,
            },
            LLVMInsertElement => InstKind::InsertElement {
                ty,
                v: self.op(inst, 0)?,
                elt: self.op(inst, 1)?,
                index: self.op(inst, 2)?,
            },
            LLVMShuffleVector => {
                let n = LLVMGetNumMaskElements(inst);
                let undef = LLVMGetUndefMaskElem();
                let mask = (0..n)
                    .map(|i| {
                        let m = LLVMGetMaskValue(inst, i);
                        if m == undef || m < 0 {
                            None
                        } else {
                            Some(m as u32)
                        }
                    })
                    .collect();
                InstKind::Shuffle {
                    ty,
                    a: self.op(inst, 0)?,
                    b: self.op(inst, 1)?,
                    mask,
                }
            }
            LLVMCall => return self.lower_call(inst, ty, dest, out),
            other => {
                return Err(self.unsupported(inst, format!("instruction {other:?}")));
            }
        };
        out.push(Inst { dest, kind });
        Ok(())
    }

    /// Inline assembly: the square root instructions libm writes by hand (musl's x86_64
    /// `sqrt`/`sqrtf` are one `sqrtsd`/`sqrtss`) are that operation, `cvtsd2si` a `rint`
    /// and a conversion (`lrint`, `llrint`); other machine code
    /// the interpreter cannot run, and says so by its text.
    unsafe fn lower_inline_asm(
        &mut self,
        inst: LLVMValueRef,
        callee: LLVMValueRef,
        ty: Type,
        dest: Option<ValueId>,
        out: &mut Vec<Inst>,
    ) -> Result<()> {
        let mut len = 0usize;
        let text = LLVMGetInlineAsmAsmString(callee, &mut len);
        let template = if text.is_null() {
            String::new()
        } else {
            let bytes = std::slice::from_raw_parts(text as *const u8, len);
            String::from_utf8_lossy(bytes).into_owned()
        };
        let words: Vec<&str> = template
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .collect();
        let float = match ty {
            Type::Scalar(ScalarTy::Float(ft)) => Some(ft),
            _ => None,
        };
        let square_root = matches!(
            (words.as_slice(), float),
            (["sqrtsd", "$1", "$0"], Some(FloatTy::F64))
                | (["sqrtss", "$1", "$0"], Some(FloatTy::F32))
        );
        if square_root && LLVMGetNumArgOperands(inst) == 1 {
            let a = self.operand(inst, LLVMGetOperand(inst, 0))?;
            let site = self.site(inst, "llvm.sqrt", ty);
            out.push(Inst {
                dest,
                kind: InstKind::FUnary {
                    op: FUnaryOp::SqrtInsn,
                    ty,
                    a,
                    site,
                },
            });
            return Ok(());
        }
        // musl's x86_64 `lrint`/`llrint`: `cvtsd2si` rounds in the current mode (the
        // default environment's nearest-even, raising inexact) and converts, giving the
        // integer indefinite and invalid out of range: `rint`, then `fptosi`.
        let convert = matches!(
            (words.as_slice(), ty),
            (
                ["cvtsd2si" | "cvtss2si", "$1", "$0"],
                Type::Scalar(ScalarTy::Int(32 | 64))
            )
        );
        if convert && LLVMGetNumArgOperands(inst) == 1 {
            let from = self.ty_of(inst, LLVMGetOperand(inst, 0))?;
            let wanted = if words[0] == "cvtsd2si" {
                FloatTy::F64
            } else {
                FloatTy::F32
            };
            if from == Type::Scalar(ScalarTy::Float(wanted)) {
                let a = self.operand(inst, LLVMGetOperand(inst, 0))?;
                let rounded = self.fresh();
                let rint_site = self.site(inst, "llvm.rint", from);
                out.push(Inst {
                    dest: Some(rounded),
                    kind: InstKind::FUnary {
                        op: FUnaryOp::Rint,
                        ty: from,
                        a,
                        site: rint_site,
                    },
                });
                let site = self.site(inst, "fptosi", from);
                out.push(Inst {
                    dest,
                    kind: InstKind::Cast {
                        op: CastOp::FPToSI,
                        from,
                        to: ty,
                        a: Operand::Value(rounded),
                        site: Some(site),
                    },
                });
                return Ok(());
            }
        }
        Err(self.unsupported(
            inst,
            format!(
                "inline assembly `{}` (machine code the interpreter does not run; the \
                 native phases still do)",
                template.trim()
            ),
        ))
    }

    unsafe fn lower_call(
        &mut self,
        inst: LLVMValueRef,
        ty: Type,
        dest: Option<ValueId>,
        out: &mut Vec<Inst>,
    ) -> Result<()> {
        let callee = LLVMGetCalledValue(inst);
        if !LLVMIsAInlineAsm(callee).is_null() {
            return self.lower_inline_asm(inst, callee, ty, dest, out);
        }
        if LLVMIsAFunction(callee).is_null() {
            let nargs = LLVMGetNumArgOperands(inst);
            let mut args = Vec::with_capacity(nargs as usize);
            for i in 0..nargs {
                args.push(self.op(inst, i)?);
            }
            let callee = self.operand(inst, callee)?;
            out.push(Inst {
                dest,
                kind: InstKind::CallIndirect {
                    callee,
                    args,
                    ret: ty,
                },
            });
            return Ok(());
        }
        let nargs = LLVMGetNumArgOperands(inst);
        if let Some(rest) = value_name(callee).strip_prefix("llvm.experimental.constrained.") {
            let kind = self.lower_constrained(inst, rest, ty, nargs)?;
            out.push(Inst { dest, kind });
            return Ok(());
        }
        let mut args = Vec::with_capacity(nargs as usize);
        for i in 0..nargs {
            args.push(self.op(inst, i)?);
        }
        if let Some(&fid) = self.m.functions.get(&key(callee)) {
            out.push(Inst {
                dest,
                kind: InstKind::Call {
                    callee: fid,
                    args,
                    ret: ty,
                },
            });
            return Ok(());
        }
        let name = value_name(callee);
        if name.starts_with("llvm.pow.") && self.lower_pow_by_roots(inst, ty, &args, dest, out)? {
            return Ok(());
        }
        if self.lower_glibc_classification(inst, &name, ty, &args, dest, out)? {
            return Ok(());
        }
        for (prefix, left) in [("llvm.fshl.", true), ("llvm.fshr.", false)] {
            if name.starts_with(prefix) {
                return self.lower_funnel_shift(inst, ty, &args, left, dest, out);
            }
        }
        let kind =
            if let Some(intr) = name.strip_prefix("llvm.") {
                let base = intr.split('.').next().unwrap_or("");
                match self.lower_intrinsic(inst, intr, base, ty, args)? {
                    Some(k) => k,
                    None => return Ok(()),
                }
            } else if let Some((func, fty)) = MathFn::from_c_name(&name) {
                if ty.float_ty() != Some(fty) || args.len() != func.arity() {
                    return Err(self
                        .unsupported(inst, format!("call to '{name}' with unexpected signature")));
                }
                let site = self.site(inst, &name, ty);
                InstKind::Math {
                    func,
                    ty,
                    args,
                    site,
                }
            } else if let Some((func, fty)) = OutMathFn::from_c_name(&name) {
                let fty_t = Type::Scalar(ScalarTy::Float(fty));
                let ret_ok = if func.returns_value() {
                    ty == fty_t
                } else {
                    ty == Type::Void
                };
                let n = func.arity();
                let mut args_ok = ret_ok && args.len() == n + func.outputs().len();
                for i in 0..args.len() as u32 {
                    let want = if (i as usize) < n { fty_t } else { Type::PTR };
                    args_ok &= self.ty_of(inst, LLVMGetOperand(inst, i)).ok() == Some(want);
                }
                if !args_ok {
                    return Err(self
                        .unsupported(inst, format!("call to '{name}' with unexpected signature")));
                }
                let site = self.site(inst, &name, fty_t);
                let outs = args.split_off(n);
                InstKind::MathOut {
                    func,
                    ty: fty_t,
                    args,
                    outs,
                    site,
                }
            } else if let Some(op) = libm_unary(&name) {
                let site = self.site(inst, &name, ty);
                InstKind::FUnary {
                    op,
                    ty,
                    a: args[0].clone(),
                    site,
                }
            } else {
                return self.lower_external_call(inst, name, ty, args, dest, out);
            };
        out.push(Inst { dest, kind });
        Ok(())
    }

    /// A call outside the module and libm: output and program ends are modelled, any
    /// other function is left to run time (called natively if its symbol is found).
    unsafe fn lower_external_call(
        &mut self,
        inst: LLVMValueRef,
        name: String,
        ty: Type,
        args: Vec<Operand>,
        dest: Option<ValueId>,
        out: &mut Vec<Inst>,
    ) -> Result<()> {
        if let Some(kind) = self.lower_libc_memory_call(inst, &name, ty, &args, dest, out)? {
            out.push(Inst { dest, kind });
            return Ok(());
        }
        let kind = if let Some(end) = EndFn::from_c_name(&name) {
            ExternalKind::End(end)
        } else if let Some(output) = OutputFn::from_c_name(&name) {
            ExternalKind::Output(output)
        } else if let Some(rounding) = RoundingFn::from_c_name(&name) {
            ExternalKind::Rounding(rounding)
        } else if let Some(ty) = nan_from_tag(&name).filter(|_| args.len() == 1) {
            ExternalKind::NanFromTag(ty)
        } else {
            ExternalKind::Native
        };
        let mut arg_tys = Vec::with_capacity(args.len());
        for i in 0..args.len() as u32 {
            let arg = LLVMGetOperand(inst, i);
            match self.ty_of(inst, arg) {
                Ok(t) => arg_tys.push(t),
                Err(_) => {
                    let why = format!(
                        "argument {} of the call to '{name}' has a type fpscout does not model",
                        i + 1
                    );
                    return Err(self.unsupported(inst, why));
                }
            }
        }
        let touches_floats =
            ty.float_ty().is_some() || arg_tys.iter().any(|t| t.float_ty().is_some());
        let site =
            (kind == ExternalKind::Native && touches_floats).then(|| self.site(inst, &name, ty));
        let call = ExternalCall {
            name,
            kind,
            args,
            arg_tys,
            ret: ty,
            result_used: !LLVMGetFirstUse(inst).is_null(),
            variadic: LLVMIsFunctionVarArg(LLVMGlobalGetValueType(LLVMGetCalledValue(inst))) != 0,
            site,
            loc: debug_loc(inst),
        };
        out.push(Inst {
            dest,
            kind: InstKind::External(Box::new(call)),
        });
        Ok(())
    }

    /// The C library's memory functions, run on the walker's memory: the heap
    /// (`InstKind::Heap`) and `memcpy`/`memmove`/`memset` called as functions rather than
    /// intrinsics (`-fno-builtin`), whose returned destination is pushed as a zero-offset
    /// GEP. `None` for any other function or an unexpected signature (left to the native
    /// call, which reports it).
    unsafe fn lower_libc_memory_call(
        &mut self,
        inst: LLVMValueRef,
        name: &str,
        ty: Type,
        args: &[Operand],
        dest: Option<ValueId>,
        out: &mut Vec<Inst>,
    ) -> Result<Option<InstKind>> {
        let arg_tys: Vec<Option<Type>> = (0..args.len() as u32)
            .map(|i| self.ty_of(inst, LLVMGetOperand(inst, i)).ok())
            .collect();
        let signature_is = |params: &[Type], ret: Type| {
            ty == ret
                && arg_tys.len() == params.len()
                && arg_tys.iter().zip(params).all(|(a, p)| *a == Some(*p))
        };
        if let Some(op) = HeapOp::from_c_name(name) {
            let (params, ret) = op.signature();
            if !signature_is(params, ret) {
                return Err(
                    self.unsupported(inst, format!("call to '{name}' with unexpected signature"))
                );
            }
            return Ok(Some(InstKind::Heap {
                op,
                args: args.to_vec(),
            }));
        }
        let size = Type::int(64);
        let kind = match name {
            "memcpy" | "memmove" if signature_is(&[Type::PTR, Type::PTR, size], Type::PTR) => {
                InstKind::Memcpy {
                    dst: args[0].clone(),
                    src: args[1].clone(),
                    len: args[2].clone(),
                }
            }
            "memset" if signature_is(&[Type::PTR, Type::int(32), size], Type::PTR) => {
                InstKind::Memset {
                    dst: args[0].clone(),
                    byte: args[1].clone(),
                    len: args[2].clone(),
                }
            }
            _ => return Ok(None),
        };
        if dest.is_none() {
            return Ok(Some(kind));
        }
        out.push(Inst { dest: None, kind });
        // The functions return their destination.
        Ok(Some(InstKind::Gep {
            base: args[0].clone(),
            const_offset: 0,
            indices: Vec::new(),
        }))
    }

    /// `llvm.pow` with the constant exponents DAGCombiner::visitFPOW rewrites: with afn and
    /// ninf (and nsz for 1/4), pow(x, 0.25) is `sqrtsd` twice and pow(x, 0.75) is
    /// sqrt(x) * sqrt(sqrt(x)); with nnan, ninf, nsz and afn, pow(x, 1/3) is a `cbrt`
    /// call. Observed: `pow(x, 0.75)` under -ffast-math compiles to `sqrtsd %xmm0, %xmm1;
    /// sqrtsd %xmm1, %xmm2; mulsd %xmm2, %xmm1`, `pow(x, 1.0 / 3.0)` to `callq cbrt@PLT`.
    /// Returns false (nothing emitted) for every other pow.
    /// glibc's classification functions, which preprocessed code (SV-COMP's `.i` tasks,
    /// older math.h macros) calls by name: `__isnan`, `__finite`, `__isinf` (1 for +inf,
    /// -1 for -inf), `__fpclassify` (FP_NAN 0, FP_INFINITE 1, FP_ZERO 2, FP_SUBNORMAL 3,
    /// FP_NORMAL 4), their `f` forms, and `finite`/`isnan`/`isinf` as glibc exports
    /// them without underscores. glibc computes them with integer tests on the
    /// bits, which raise nothing: class tests, then selects of the C results.
    unsafe fn lower_glibc_classification(
        &mut self,
        inst: LLVMValueRef,
        name: &str,
        ty: Type,
        args: &[Operand],
        dest: Option<ValueId>,
        out: &mut Vec<Inst>,
    ) -> Result<bool> {
        // glibc exports the same functions without the underscores (newlib calls
        // `finite`; code bypassing the macros calls `isnan`).
        let underscored = match name {
            "finite" | "finitef" | "isnan" | "isnanf" | "isinf" | "isinff" => format!("__{name}"),
            _ => name.to_string(),
        };
        let name = underscored.as_str();
        let (base, fty) = match name.strip_suffix('f') {
            Some(base @ ("__isnan" | "__finite" | "__isinf" | "__fpclassify")) => {
                (base, FloatTy::F32)
            }
            _ => match name {
                "__isnan" | "__finite" | "__isinf" | "__fpclassify" => (name, FloatTy::F64),
                _ => return Ok(false),
            },
        };
        let opty = Type::Scalar(ScalarTy::Float(fty));
        let (Type::Scalar(ScalarTy::Int(width)), [x]) = (ty, args) else {
            return Ok(false);
        };
        if self.ty_of(inst, LLVMGetOperand(inst, 0))? != opty {
            return Ok(false);
        }
        let int = |bits: i64| {
            Operand::Const(Const::Int {
                width,
                bits: (bits as u64) & fpscout_ir::truncate_bits(u64::MAX, width),
            })
        };
        // The class tests, in order, with the value each gives; the last value otherwise.
        use FpClassMask as M;
        let (tests, otherwise): (Vec<(u16, i64)>, i64) = match base {
            "__isnan" => (vec![(M::NAN, 1)], 0),
            "__finite" => (vec![(M::ALL & !(M::NAN | M::POS_INF | M::NEG_INF), 1)], 0),
            "__isinf" => (vec![(M::POS_INF, 1), (M::NEG_INF, -1)], 0),
            _ => (
                vec![
                    (M::NAN, 0),
                    (M::POS_INF | M::NEG_INF, 1),
                    (M::POS_ZERO | M::NEG_ZERO, 2),
                    (M::POS_SUBNORMAL | M::NEG_SUBNORMAL, 3),
                ],
                4,
            ),
        };
        let mut result = int(otherwise);
        for (k, (mask, value)) in tests.iter().enumerate().rev() {
            let test = self.fresh();
            let site = self.site(inst, "llvm.is.fpclass", opty);
            out.push(Inst {
                dest: Some(test),
                kind: InstKind::FClass {
                    ty: opty,
                    a: x.clone(),
                    mask: FpClassMask(*mask),
                    site,
                },
            });
            let chosen = if k == 0 { dest } else { Some(self.fresh()) };
            out.push(Inst {
                dest: chosen,
                kind: InstKind::Select {
                    ty,
                    cond: Operand::Value(test),
                    a: int(*value),
                    b: result,
                },
            });
            result = chosen.map_or_else(|| int(0), Operand::Value);
        }
        Ok(true)
    }

    /// `llvm.fshl`/`llvm.fshr` by a constant (what -O3 makes of `hi << k | lo >> (w-k)`
    /// joining two words, and of rotates) as the two shifts and the `or` they stand for.
    unsafe fn lower_funnel_shift(
        &mut self,
        inst: LLVMValueRef,
        ty: Type,
        args: &[Operand],
        left: bool,
        dest: Option<ValueId>,
        out: &mut Vec<Inst>,
    ) -> Result<()> {
        let name = if left { "llvm.fshl" } else { "llvm.fshr" };
        let (Type::Scalar(ScalarTy::Int(width)), [a, b, Operand::Const(Const::Int { bits, .. })]) =
            (ty, args)
        else {
            return Err(
                self.unsupported(inst, format!("{name} by a variable amount or on vectors"))
            );
        };
        let amount = bits % u64::from(width);
        let constant = |bits: u64| Operand::Const(Const::Int { width, bits });
        if amount == 0 {
            // A shift by the width is no shift: the first (fshl) or second (fshr) word.
            let kept = if left { a.clone() } else { b.clone() };
            out.push(Inst {
                dest,
                kind: InstKind::IBin {
                    op: IBinOp::Or,
                    ty,
                    a: kept,
                    b: constant(0),
                },
            });
            return Ok(());
        }
        let (high_shift, low_shift) = if left {
            (amount, u64::from(width) - amount)
        } else {
            (u64::from(width) - amount, amount)
        };
        let high = self.fresh();
        let low = self.fresh();
        out.push(Inst {
            dest: Some(high),
            kind: InstKind::IBin {
                op: IBinOp::Shl,
                ty,
                a: a.clone(),
                b: constant(high_shift),
            },
        });
        out.push(Inst {
            dest: Some(low),
            kind: InstKind::IBin {
                op: IBinOp::LShr,
                ty,
                a: b.clone(),
                b: constant(low_shift),
            },
        });
        out.push(Inst {
            dest,
            kind: InstKind::IBin {
                op: IBinOp::Or,
                ty,
                a: Operand::Value(high),
                b: Operand::Value(low),
            },
        });
        Ok(())
    }

    unsafe fn lower_pow_by_roots(
        &mut self,
        inst: LLVMValueRef,
        ty: Type,
        args: &[Operand],
        dest: Option<ValueId>,
        out: &mut Vec<Inst>,
    ) -> Result<bool> {
        let (Some(fty), Some(Operand::Const(Const::Float { bits, .. })), false) =
            (ty.float_ty(), args.get(1), ty.is_vector())
        else {
            return Ok(false);
        };
        let exponent = match fty {
            FloatTy::F64 => f64::from_bits(*bits),
            FloatTy::F32 => f64::from(f32::from_bits(*bits as u32)),
        };
        let third = match fty {
            FloatTy::F64 => 1.0 / 3.0,
            FloatTy::F32 => f64::from(1.0f32 / 3.0),
        };
        let fmf = fmf_of(inst);
        let x = args[0].clone();
        if exponent == third && fmf.nsz && fmf.ninf && fmf.nnan && fmf.afn {
            let site = self.site(inst, "llvm.pow", ty);
            out.push(Inst {
                dest,
                kind: InstKind::Math {
                    func: MathFn::Cbrt,
                    ty,
                    args: vec![x],
                    site,
                },
            });
            return Ok(true);
        }
        let quarter = exponent == 0.25 && fmf.nsz;
        let three_quarters = exponent == 0.75;
        if !(quarter || three_quarters) || !fmf.ninf || !fmf.afn {
            return Ok(false);
        }
        let sqrt = |this: &mut Self, a: Operand, d: ValueId| {
            let site = this.site(inst, "llvm.pow", ty);
            Inst {
                dest: Some(d),
                kind: InstKind::FUnary {
                    op: FUnaryOp::SqrtInsn,
                    ty,
                    a,
                    site,
                },
            }
        };
        let root = self.fresh();
        let inst1 = sqrt(self, x, root);
        out.push(inst1);
        let fourth = if quarter {
            match dest {
                Some(d) => d,
                None => return Ok(true),
            }
        } else {
            self.fresh()
        };
        let inst2 = sqrt(self, Operand::Value(root), fourth);
        out.push(inst2);
        if three_quarters {
            let site = self.site(inst, "llvm.pow", ty);
            out.push(Inst {
                dest,
                kind: InstKind::FBin {
                    op: FBinOp::FMul,
                    ty,
                    a: Operand::Value(root),
                    b: Operand::Value(fourth),
                    site,
                },
            });
        }
        Ok(true)
    }

    /// Maps an `llvm.*` intrinsic; `Ok(None)` for intrinsics without effect on values.
    unsafe fn lower_intrinsic(
        &mut self,
        inst: LLVMValueRef,
        full: &str,
        base: &str,
        ty: Type,
        args: Vec<Operand>,
    ) -> Result<Option<InstKind>> {
        let opname = format!("llvm.{base}");
        let unary = |op: FUnaryOp, this: &mut Self| -> InstKind {
            let site = this.site(inst, &opname, ty);
            InstKind::FUnary {
                op,
                ty,
                a: args[0].clone(),
                site,
            }
        };
        let kind = match base {
            "dbg" | "lifetime" | "assume" | "experimental" | "invariant" | "var" | "annotation"
            | "donothing" | "sideeffect" | "pseudoprobe" => return Ok(None),
            "fabs" => unary(FUnaryOp::Fabs, self),
            "sqrt" => unary(FUnaryOp::SqrtInsn, self),
            "floor" => unary(FUnaryOp::Floor, self),
            "ceil" => unary(FUnaryOp::Ceil, self),
            "trunc" => unary(FUnaryOp::Trunc, self),
            "round" => unary(FUnaryOp::Round, self),
            "rint" => unary(FUnaryOp::Rint, self),
            "nearbyint" => unary(FUnaryOp::NearbyInt, self),
            "roundeven" => unary(FUnaryOp::RoundEven, self),
            "minnum" | "maxnum" | "copysign" => {
                // Without NaNs to respect, x86 selects a bare `minsd a, b`, which returns
                // b when either operand is NaN: fmin(x, y) under -ffast-math is `minsd
                // %xmm1, %xmm0`. In optimised builds the instruction is the commutable
                // MINCSD and register allocation may swap the operands: the order is then
                // read from the machine code before lowering (`backend::min_max`).
                let no_nans = self.no_nans || fmf_of(inst).nnan;
                let op = match (base, no_nans) {
                    ("minnum", false) => FBinaryOp::MinNum,
                    ("maxnum", false) => FBinaryOp::MaxNum,
                    ("minnum", true) => FBinaryOp::MinSse,
                    ("maxnum", true) => FBinaryOp::MaxSse,
                    _ => FBinaryOp::CopySign,
                };
                let site = self.site(inst, &opname, ty);
                InstKind::FBinary {
                    op,
                    ty,
                    a: args[0].clone(),
                    b: args[1].clone(),
                    site,
                }
            }
            "is" if full.starts_with("is.fpclass.") => self.lower_is_fpclass(inst, full, args)?,
            "fma" | "fmuladd" => {
                let fused = base == "fma" || self.m.opts.target_has_fma;
                let site = self.site(inst, &opname, ty);
                let [a, b, c]: [Operand; 3] = args
                    .try_into()
                    .map_err(|_| self.unsupported(inst, "fma with wrong operand count"))?;
                InstKind::Fma {
                    ty,
                    a,
                    b,
                    c,
                    fused,
                    site,
                }
            }
            "exp" | "exp2" | "log" | "log2" | "log10" | "pow" | "sin" | "cos" | "tan" | "atan"
            | "atan2" | "sinh" | "cosh" | "tanh" | "asin" | "acos" => {
                let (func, _) = MathFn::from_c_name(base)
                    .ok_or_else(|| self.unsupported(inst, format!("intrinsic {full}")))?;
                if ty.is_vector() {
                    return Err(self.unsupported(inst, format!("vector math intrinsic {full}")));
                }
                let site = self.site(inst, &opname, ty);
                InstKind::Math {
                    func,
                    ty,
                    args,
                    site,
                }
            }
            "vector" => {
                let (op, opname) = match full.split('.').nth(2) {
                    Some("fadd") => (ReduceOp::FAdd, "llvm.vector.reduce.fadd"),
                    Some("fmul") => (ReduceOp::FMul, "llvm.vector.reduce.fmul"),
                    Some("fmin") => (ReduceOp::FMin, "llvm.vector.reduce.fmin"),
                    Some("fmax") => (ReduceOp::FMax, "llvm.vector.reduce.fmax"),
                    _ => return self.int_vector_reduce(inst, full, ty, args),
                };
                let (start, v) = if matches!(op, ReduceOp::FAdd | ReduceOp::FMul) {
                    (Some(args[0].clone()), args[1].clone())
                } else {
                    (None, args[0].clone())
                };
                let vty = self.ty_of(
                    inst,
                    LLVMGetOperand(inst, if start.is_some() { 1 } else { 0 }),
                )?;
                let ordered = !fmf_of(inst).reassoc;
                let site = self.site(inst, opname, vty);
                InstKind::Reduce {
                    op,
                    ty: vty,
                    start,
                    v,
                    ordered,
                    site,
                }
            }
            "memcpy" | "memmove" => InstKind::Memcpy {
                dst: args[0].clone(),
                src: args[1].clone(),
                len: args[2].clone(),
            },
            "memset" => InstKind::Memset {
                dst: args[0].clone(),
                byte: args[1].clone(),
                len: args[2].clone(),
            },
            "smax" | "smin" | "umax" | "umin" => {
                let op = match base {
                    "smax" => IBinOp::SMax,
                    "smin" => IBinOp::SMin,
                    "umax" => IBinOp::UMax,
                    _ => IBinOp::UMin,
                };
                InstKind::IBin {
                    op,
                    ty,
                    a: args[0].clone(),
                    b: args[1].clone(),
                }
            }
            "abs" => InstKind::IAbs {
                ty,
                a: args[0].clone(),
            },
            _ => return Err(self.unsupported(inst, format!("intrinsic llvm.{full}"))),
        };
        Ok(Some(kind))
    }

    /// A constrained intrinsic (`-frounding-math`, `#pragma STDC FENV_ACCESS ON`: musl
    /// builds so) as the plain operation: the program runs in the default environment
    /// (round to nearest), where `round.dynamic` and `round.tonearest` round the same
    /// way, and the exception flags are the instruction's whatever `fpexcept` says. A
    /// static directed rounding is refused.
    unsafe fn lower_constrained(
        &mut self,
        inst: LLVMValueRef,
        rest: &str,
        ty: Type,
        nargs: u32,
    ) -> Result<InstKind> {
        let mut args = Vec::new();
        let mut strings = Vec::new();
        for i in 0..nargs {
            let v = LLVMGetOperand(inst, i);
            if LLVMGetValueKind(v) != llvm_sys::LLVMValueKind::LLVMMetadataAsValueValueKind {
                args.push(self.operand(inst, v)?);
            } else {
                let mut len = 0;
                let text = LLVMGetMDString(v, &mut len);
                if text.is_null() {
                    return Err(self.unsupported(inst, "constrained intrinsic metadata"));
                }
                let bytes = std::slice::from_raw_parts(text.cast::<u8>(), len as usize);
                strings.push(String::from_utf8_lossy(bytes).into_owned());
            }
        }
        if let Some(r) = strings
            .iter()
            .find(|m| m.starts_with("round.") && *m != "round.dynamic" && *m != "round.tonearest")
        {
            return Err(self.unsupported(inst, format!("constrained intrinsic with rounding {r}")));
        }
        let base = rest.split('.').next().unwrap_or("");
        let binary = |op: FBinOp, this: &mut Self, args: Vec<Operand>| -> Result<InstKind> {
            let [a, b]: [Operand; 2] = args
                .try_into()
                .map_err(|_| this.unsupported(inst, "constrained operation operands"))?;
            let site = this.site(inst, base, ty);
            Ok(InstKind::FBin { op, ty, a, b, site })
        };
        match base {
            "fadd" => binary(FBinOp::FAdd, self, args),
            "fsub" => binary(FBinOp::FSub, self, args),
            "fmul" => binary(FBinOp::FMul, self, args),
            "fdiv" => binary(FBinOp::FDiv, self, args),
            "frem" => binary(FBinOp::FRem, self, args),
            "fcmp" | "fcmps" => {
                let opty = self.ty_of(inst, LLVMGetOperand(inst, 0))?;
                let pred = strings
                    .iter()
                    .find_map(|m| constrained_predicate(m))
                    .ok_or_else(|| self.unsupported(inst, "constrained compare predicate"))?;
                let equality = matches!(
                    pred,
                    FCmpPred::Oeq | FCmpPred::Ueq | FCmpPred::One | FCmpPred::Une
                );
                // fcmps is `comisd`, signalling on any NaN: as the mask compare for the
                // relational predicates; an equality that signals has no lowering here.
                let lowering = match (base, equality) {
                    ("fcmp", _) => CmpLowering::Quiet,
                    (_, false) => CmpLowering::Mask,
                    _ => return Err(self.unsupported(inst, "signalling equality compare (fcmps)")),
                };
                let [a, b]: [Operand; 2] = args
                    .try_into()
                    .map_err(|_| self.unsupported(inst, "constrained compare operands"))?;
                let site = self.site(inst, "fcmp", opty);
                Ok(InstKind::FCmp {
                    pred,
                    ty: opty,
                    a,
                    b,
                    lowering,
                    site,
                })
            }
            "fpext" | "fptrunc" | "sitofp" | "uitofp" | "fptosi" | "fptoui" => {
                let op = match base {
                    "fpext" => CastOp::FPExt,
                    "fptrunc" => CastOp::FPTrunc,
                    "sitofp" => CastOp::SIToFP,
                    "uitofp" => CastOp::UIToFP,
                    "fptosi" => CastOp::FPToSI,
                    _ => CastOp::FPToUI,
                };
                let from = self.ty_of(inst, LLVMGetOperand(inst, 0))?;
                let a = args
                    .into_iter()
                    .next()
                    .ok_or_else(|| self.unsupported(inst, "constrained conversion operand"))?;
                let site = Some(self.site(inst, base, from));
                Ok(InstKind::Cast {
                    op,
                    from,
                    to: ty,
                    a,
                    site,
                })
            }
            _ => match self.lower_intrinsic(inst, rest, base, ty, args)? {
                Some(kind) => Ok(kind),
                None => Err(self.unsupported(inst, format!("constrained intrinsic {rest}"))),
            },
        }
    }

    /// `llvm.is.fpclass` as x86-64 code generation lowers it (LLVM 19's
    /// `expandIS_FPCLASS`, checked on every mask against the processor): four masks become
    /// a quiet compare (`ucomisd`, invalid on signalling NaNs, subnormals zero under DAZ),
    /// every other mask integer tests on the bits, which raise nothing.
    unsafe fn lower_is_fpclass(
        &mut self,
        inst: LLVMValueRef,
        full: &str,
        args: Vec<Operand>,
    ) -> Result<InstKind> {
        let opty = self.ty_of(inst, LLVMGetOperand(inst, 0))?;
        let (Some(fty), [a, Operand::Const(Const::Int { bits: mask, .. })]) =
            (opty.float_ty(), args.as_slice())
        else {
            return Err(self.unsupported(inst, format!("intrinsic llvm.{full} operands")));
        };
        let mask = (*mask & u64::from(FpClassMask::ALL)) as u16;
        let zero = || {
            let zero = match fty {
                FloatTy::F32 => Const::f32(0.0),
                FloatTy::F64 => Const::f64(0.0),
            };
            Operand::Const(match opty {
                Type::Vector(_, len) => Const::Vector(vec![zero; len as usize]),
                _ => zero,
            })
        };
        const NAN_OR_ZERO: u16 = FpClassMask::NAN | FpClassMask::NEG_ZERO | FpClassMask::POS_ZERO;
        let compare = match mask {
            FpClassMask::NAN => Some((FCmpPred::Uno, a.clone())),
            m if m == FpClassMask::ALL & !FpClassMask::NAN => Some((FCmpPred::Ord, a.clone())),
            NAN_OR_ZERO => Some((FCmpPred::Ueq, zero())),
            m if m == FpClassMask::ALL & !NAN_OR_ZERO => Some((FCmpPred::One, zero())),
            _ => None,
        };
        Ok(match compare {
            Some((pred, b)) => {
                let site = self.site(inst, "fcmp", opty);
                InstKind::FCmp {
                    pred,
                    ty: opty,
                    a: a.clone(),
                    b,
                    lowering: CmpLowering::Quiet,
                    site,
                }
            }
            None => InstKind::FClass {
                ty: opty,
                a: a.clone(),
                mask: FpClassMask(mask),
                site: self.site(inst, "llvm.is.fpclass", opty),
            },
        })
    }

    unsafe fn int_vector_reduce(
        &mut self,
        inst: LLVMValueRef,
        full: &str,
        _ty: Type,
        _args: Vec<Operand>,
    ) -> Result<Option<InstKind>> {
        Err(self.unsupported(inst, format!("intrinsic llvm.{full}")))
    }
}

/// libm rounding helpers that behave like their `llvm.*` counterparts.
fn libm_unary(name: &str) -> Option<FUnaryOp> {
    Some(match name.trim_end_matches('f') {
        "fabs" => FUnaryOp::Fabs,
        "floor" => FUnaryOp::Floor,
        "ceil" => FUnaryOp::Ceil,
        "trunc" => FUnaryOp::Trunc,
        "round" => FUnaryOp::Round,
        "rint" => FUnaryOp::Rint,
        "nearbyint" => FUnaryOp::NearbyInt,
        "roundeven" => FUnaryOp::RoundEven,
        _ => return None,
    })
}

/// The predicate a constrained compare names in its metadata (`!"olt"`).
fn constrained_predicate(name: &str) -> Option<FCmpPred> {
    Some(match name {
        "oeq" => FCmpPred::Oeq,
        "ogt" => FCmpPred::Ogt,
        "oge" => FCmpPred::Oge,
        "olt" => FCmpPred::Olt,
        "ole" => FCmpPred::Ole,
        "one" => FCmpPred::One,
        "ord" => FCmpPred::Ord,
        "ueq" => FCmpPred::Ueq,
        "ugt" => FCmpPred::Ugt,
        "uge" => FCmpPred::Uge,
        "ult" => FCmpPred::Ult,
        "ule" => FCmpPred::Ule,
        "une" => FCmpPred::Une,
        "uno" => FCmpPred::Uno,
        _ => return None,
    })
}

fn fcmp_pred(p: LLVMRealPredicate) -> FCmpPred {
    use LLVMRealPredicate::*;
    match p {
        LLVMRealPredicateFalse => FCmpPred::False,
        LLVMRealOEQ => FCmpPred::Oeq,
        LLVMRealOGT => FCmpPred::Ogt,
        LLVMRealOGE => FCmpPred::Oge,
        LLVMRealOLT => FCmpPred::Olt,
        LLVMRealOLE => FCmpPred::Ole,
        LLVMRealONE => FCmpPred::One,
        LLVMRealORD => FCmpPred::Ord,
        LLVMRealUNO => FCmpPred::Uno,
        LLVMRealUEQ => FCmpPred::Ueq,
        LLVMRealUGT => FCmpPred::Ugt,
        LLVMRealUGE => FCmpPred::Uge,
        LLVMRealULT => FCmpPred::Ult,
        LLVMRealULE => FCmpPred::Ule,
        LLVMRealUNE => FCmpPred::Une,
        LLVMRealPredicateTrue => FCmpPred::True,
    }
}

fn icmp_pred(p: LLVMIntPredicate) -> ICmpPred {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => ICmpPred::Eq,
        LLVMIntNE => ICmpPred::Ne,
        LLVMIntUGT => ICmpPred::Ugt,
        LLVMIntUGE => ICmpPred::Uge,
        LLVMIntULT => ICmpPred::Ult,
        LLVMIntULE => ICmpPred::Ule,
        LLVMIntSGT => ICmpPred::Sgt,
        LLVMIntSGE => ICmpPred::Sge,
        LLVMIntSLT => ICmpPred::Slt,
        LLVMIntSLE => ICmpPred::Sle,
    }
}

#[cfg(test)]
mod tests {
    use super::display_name;

    #[test]
    fn itanium_base_names() {
        assert_eq!(display_name("_Z3sumPdi"), "sum");
        assert_eq!(display_name("turbine1"), "turbine1");
        assert_eq!(display_name("_Z10longernameid"), "longername");
    }
}
