//! Compiles a function of fpscout-ir back into machine code (MCJIT) for the concrete fast path.
//!
//! The kernel is emitted from fpscout-ir, not from the module the IR came from, so it
//! computes what the walker computes after every backend rewrite: vectors are split into
//! lanes (what the walker does), every floating-point operation is a constrained intrinsic
//! with strict exceptions (never folded, removed, speculated or reassociated, and it
//! raises its own flags), and the SSE min/max the lowering chose are the x86 intrinsics
//! themselves. The fast path calls a kernel only where its results cannot differ from the
//! interpreter's (see `fpscout_ir::kernel`): no NaN enters, so none exists unless an
//! operation raised INVALID, which sends the evaluation back to the interpreter; with no
//! NaN, the operand order of `addsd`, the quiet/signalling choice of compares and libm
//! NaN conventions cannot show. Everything that traps, calls, touches memory or whose
//! x86 lowering is not one instruction is refused, and the fast path interprets.

use fpscout_ir::kernel::{KernelEntry, NativeKernel};
use fpscout_ir::*;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module as LlvmModule;
use inkwell::types::{BasicTypeEnum, IntType};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue, PhiValue};
use inkwell::{AddressSpace, IntPredicate, OptimizationLevel};
use std::cell::Cell;
use std::mem::ManuallyDrop;
use std::num::NonZeroU32;
use std::sync::{Arc, Once};

/// Why a function has no kernel (the fast path then interprets it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no native kernel: {0}")]
pub struct NoKernel(pub String);

type Emit<T> = Result<T, NoKernel>;

fn refuse<T>(why: impl Into<String>) -> Emit<T> {
    Err(NoKernel(why.into()))
}

fn llvm<T, E: std::fmt::Display>(r: Result<T, E>) -> Emit<T> {
    r.map_err(|e| NoKernel(format!("LLVM: {e}")))
}

/// Compiles `func` of `module` into a kernel, or says why it cannot.
pub fn native_kernel(module: &Module, func: FuncId) -> Result<NativeKernel, NoKernel> {
    let f = match module.functions.get(func.0 as usize) {
        Some(f) => f,
        None => return refuse("no such function"),
    };
    if let Some(why) = &f.unsupported {
        return refuse(why.clone());
    }
    if f.blocks.is_empty() {
        return refuse("function without body");
    }
    static TARGET: Once = Once::new();
    TARGET.call_once(|| {
        // SAFETY: registers MCJIT with LLVM's engine factory; no arguments, idempotent.
        unsafe { llvm_sys::execution_engine::LLVMLinkInMCJIT() };
        // Failure shows as an engine-creation error below.
        let _ = inkwell::targets::Target::initialize_native(
            &inkwell::targets::InitializationConfig::default(),
        );
    });
    let mut owner = JitCode::new();
    let (entry, counting) = owner.compile(f)?;
    let params = f.params.len();
    // SAFETY: `compile` returned the addresses of functions emitted with the `KernelEntry`
    // signature and contract for `f` (`counting` with its rounding-error count), owned by
    // `owner`'s engine.
    Ok(unsafe { NativeKernel::new(entry, counting, params, Arc::new(owner)) })
}

/// An LLVM context and the engine holding the compiled kernel (self-referential, so the
/// lifetimes are erased and the drop order is explicit).
struct JitCode {
    engine: ManuallyDrop<Option<ExecutionEngine<'static>>>,
    module: ManuallyDrop<Option<LlvmModule<'static>>>,
    context: *mut Context,
}

// SAFETY: after `compile` nothing uses the context, module or engine again except `Drop`,
// which runs once, on whichever thread; LLVM contexts are not tied to a thread, and the
// `Rc`s inside inkwell's engine are only cloned and dropped within this struct.
unsafe impl Send for JitCode {}
unsafe impl Sync for JitCode {}

/// Functions with more IR instructions than this get an unoptimised kernel.
const OPTIMISED_KERNEL_MAX_INSTRUCTIONS: usize = 8000;

impl JitCode {
    fn new() -> JitCode {
        JitCode {
            engine: ManuallyDrop::new(None),
            module: ManuallyDrop::new(None),
            context: Box::into_raw(Box::new(Context::create())),
        }
    }

    /// The plain kernel and, where the processor has FMA (the rounding errors of
    /// products, quotients and square roots are single FMAs), the counting one.
    fn compile(&mut self, f: &Function) -> Emit<(KernelEntry, Option<KernelEntry>)> {
        // SAFETY: the context lives until `drop`, after the module and engine made from it.
        let context: &'static Context = unsafe { &*self.context };
        let module = context.create_module("fpscout_kernel");
        Emitter::new(context, &module, f, KERNEL_NAME, false)?.function()?;
        let counting = std::arch::is_x86_feature_detected!("fma");
        if counting {
            Emitter::new(context, &module, f, COUNTING_NAME, true)?.function()?;
        }
        if let Err(e) = module.verify() {
            return refuse(format!("emitted kernel does not verify: {e}"));
        }
        // The optimising backend's time grows faster than the function: a 10,000-statement
        // function took 42 s to compile at -O2 and 1 s without optimisation (the kernel
        // then runs slower, but such functions are evaluated a few thousand times, not
        // millions).
        let instructions: usize = f.blocks.iter().map(|b| b.insts.len()).sum();
        let level = if instructions > OPTIMISED_KERNEL_MAX_INSTRUCTIONS {
            OptimizationLevel::None
        } else {
            OptimizationLevel::Default
        };
        let engine = llvm(module.create_jit_execution_engine(level))?;
        let address = llvm(engine.get_function_address(KERNEL_NAME))?;
        let counting_address = if counting {
            Some(llvm(engine.get_function_address(COUNTING_NAME))?)
        } else {
            None
        };
        *self.module = Some(module);
        *self.engine = Some(engine);
        // SAFETY: the emitted functions have the `KernelEntry` signature.
        let entry = |a: usize| unsafe { std::mem::transmute::<usize, KernelEntry>(a) };
        Ok((entry(address), counting_address.map(entry)))
    }
}

impl Drop for JitCode {
    fn drop(&mut self) {
        // SAFETY: each is dropped exactly once, the context last.
        unsafe {
            ManuallyDrop::drop(&mut self.module);
            ManuallyDrop::drop(&mut self.engine);
            drop(Box::from_raw(self.context));
        }
    }
}

const KERNEL_NAME: &str = "fpscout_kernel";
const COUNTING_NAME: &str = "fpscout_kernel_counting";

/// One IR value as LLVM values, one per lane.
type Lanes<'c> = Vec<BasicValueEnum<'c>>;

/// What a branch into an IR block brings: the LLVM block it leaves, its step count and
/// (counting kernel) the rounding errors so far.
struct Edge<'c> {
    from_ir: usize,
    to_ir: usize,
    from: BasicBlock<'c>,
    steps: IntValue<'c>,
    errors: Option<IntValue<'c>>,
}

/// A block's LLVM blocks: `head` holds the phis and the step-budget check.
struct BlockShell<'c> {
    head: BasicBlock<'c>,
    body: BasicBlock<'c>,
    phis: Vec<Vec<PhiValue<'c>>>,
    steps_in: PhiValue<'c>,
    steps: IntValue<'c>,
    errors_in: Option<PhiValue<'c>>,
}

struct Emitter<'c, 'm> {
    cx: &'c Context,
    module: &'m LlvmModule<'c>,
    b: Builder<'c>,
    f: &'m Function,
    kernel: FunctionValue<'c>,
    values: Vec<Option<Lanes<'c>>>,
    shells: Vec<BlockShell<'c>>,
    edges: Vec<Edge<'c>>,
    entry: BasicBlock<'c>,
    restart: BasicBlock<'c>,
    out: inkwell::values::PointerValue<'c>,
    strictfp: Attribute,
    /// The counting kernel's running OR of the magnitude bits of every operation's exact
    /// rounding error (an `i64`, nonzero once some operation was inexact); `None` in the
    /// plain kernel.
    errors: Cell<Option<IntValue<'c>>>,
    counting: bool,
}

impl<'c, 'm> Emitter<'c, 'm> {
    fn new(
        cx: &'c Context,
        module: &'m LlvmModule<'c>,
        f: &'m Function,
        name: &str,
        counting: bool,
    ) -> Emit<Self> {
        let i64t = cx.i64_type();
        let ptr = cx.ptr_type(AddressSpace::default());
        let ty = cx
            .i32_type()
            .fn_type(&[ptr.into(), i64t.into(), ptr.into()], false);
        let kernel = module.add_function(name, ty, None);
        let strictfp = cx.create_enum_attribute(Attribute::get_named_enum_kind_id("strictfp"), 0);
        kernel.add_attribute(AttributeLoc::Function, strictfp);
        let nounwind = cx.create_enum_attribute(Attribute::get_named_enum_kind_id("nounwind"), 0);
        kernel.add_attribute(AttributeLoc::Function, nounwind);
        if counting {
            // The rounding errors of products, quotients and roots are single FMAs.
            kernel.add_attribute(
                AttributeLoc::Function,
                cx.create_string_attribute("target-features", "+fma"),
            );
        }
        // The first block appended is the entry.
        let entry = cx.append_basic_block(kernel, "entry");
        let restart = cx.append_basic_block(kernel, "restart");
        let out = match kernel.get_nth_param(2) {
            Some(p) => p.into_pointer_value(),
            None => return refuse("kernel signature"),
        };
        Ok(Emitter {
            cx,
            module,
            b: cx.create_builder(),
            f,
            kernel,
            values: vec![None; f.num_values as usize],
            shells: Vec::new(),
            edges: Vec::new(),
            entry,
            restart,
            out,
            strictfp,
            errors: Cell::new(None),
            counting,
        })
    }

    fn function(&mut self) -> Emit<()> {
        let entry = self.entry;
        self.b.position_at_end(self.restart);
        llvm(
            self.b
                .build_return(Some(&self.cx.i32_type().const_int(1, false))),
        )?;
        self.b.position_at_end(entry);
        self.load_params()?;
        for (index, block) in self.f.blocks.iter().enumerate() {
            let shell = self.shell(index, block)?;
            self.shells.push(shell);
        }
        self.b.position_at_end(entry);
        llvm(self.b.build_unconditional_branch(self.shells[0].head))?;
        let zero = self.cx.i64_type().const_zero();
        self.shells[0].steps_in.add_incoming(&[(&zero, entry)]);
        if let Some(errors) = self.shells[0].errors_in {
            errors.add_incoming(&[(&zero, entry)]);
        }
        for index in reverse_post_order(self.f) {
            self.block(index)?;
        }
        // Blocks no path reaches keep an empty body.
        for shell in &self.shells {
            if shell.body.get_terminator().is_none() {
                self.b.position_at_end(shell.body);
                llvm(self.b.build_unreachable())?;
            }
        }
        self.wire_phis()
    }

    /// The arguments from the `args` array, as the parameter types.
    fn load_params(&mut self) -> Emit<()> {
        let args = match self.kernel.get_nth_param(0) {
            Some(p) => p.into_pointer_value(),
            None => return refuse("kernel signature"),
        };
        let i64t = self.cx.i64_type();
        for (i, p) in self.f.params.iter().enumerate() {
            let ty = match p.ty {
                Type::Scalar(s @ (ScalarTy::Int(_) | ScalarTy::Float(_))) => s,
                other => return refuse(format!("parameter '{}' of type {other}", p.name)),
            };
            // SAFETY: the kernel contract gives one u64 per parameter.
            let slot = llvm(unsafe {
                self.b
                    .build_in_bounds_gep(i64t, args, &[i64t.const_int(i as u64, false)], "")
            })?;
            let bits = llvm(self.b.build_load(i64t, slot, ""))?.into_int_value();
            let v = self.param_from_bits(bits, ty)?;
            self.values[i] = Some(vec![v]);
        }
        Ok(())
    }

    fn shell(&mut self, index: usize, block: &Block) -> Emit<BlockShell<'c>> {
        let head = self
            .cx
            .append_basic_block(self.kernel, &format!("b{index}"));
        let body = self
            .cx
            .append_basic_block(self.kernel, &format!("b{index}.body"));
        self.b.position_at_end(head);
        let i64t = self.cx.i64_type();
        let steps_in = llvm(self.b.build_phi(i64t, "steps"))?;
        let errors_in = if self.counting {
            Some(llvm(self.b.build_phi(i64t, "errors"))?)
        } else {
            None
        };
        let mut phis = Vec::with_capacity(block.phis.len());
        for phi in &block.phis {
            let (lane_ty, lanes) = lanes_of(phi.ty)?;
            let t = self.scalar_type(lane_ty)?;
            let lanes: Vec<PhiValue<'c>> = (0..lanes)
                .map(|_| llvm(self.b.build_phi(t, "")))
                .collect::<Emit<_>>()?;
            *self.value_slot(phi.dest)? = Some(lanes.iter().map(|p| p.as_basic_value()).collect());
            phis.push(lanes);
        }
        // The walker's budget: a block's instructions are counted on entry.
        let cost = i64t.const_int(block.insts.len() as u64, false);
        let steps = llvm(self.b.build_int_add(
            steps_in.as_basic_value().into_int_value(),
            cost,
            "",
        ))?;
        let budget = match self.kernel.get_nth_param(1) {
            Some(p) => p.into_int_value(),
            None => return refuse("kernel signature"),
        };
        let over = llvm(
            self.b
                .build_int_compare(IntPredicate::UGT, steps, budget, ""),
        )?;
        llvm(self.b.build_conditional_branch(over, self.restart, body))?;
        Ok(BlockShell {
            head,
            body,
            phis,
            steps_in,
            steps,
            errors_in,
        })
    }

    fn block(&mut self, index: usize) -> Emit<()> {
        let f = self.f;
        let block = &f.blocks[index];
        self.b.position_at_end(self.shells[index].body);
        self.errors.set(
            self.shells[index]
                .errors_in
                .map(|p| p.as_basic_value().into_int_value()),
        );
        for inst in &block.insts {
            let lanes = self.inst(&inst.kind)?;
            match (inst.dest, lanes) {
                (Some(d), Some(l)) => *self.value_slot(d)? = Some(l),
                (None, _) => {}
                (Some(_), None) => return refuse("instruction without a result defines a value"),
            }
        }
        let steps = self.shells[index].steps;
        match &block.term {
            Terminator::Br(t) => {
                let t = self.target(index, *t, steps)?;
                llvm(self.b.build_unconditional_branch(t))?;
            }
            Terminator::CondBr { cond, then_, else_ } => {
                let c = self.scalar(cond)?.into_int_value();
                let t = self.target(index, *then_, steps)?;
                let e = self.target(index, *else_, steps)?;
                llvm(self.b.build_conditional_branch(c, t, e))?;
            }
            Terminator::Switch {
                value,
                default,
                cases,
                ..
            } => {
                let v = self.scalar(value)?.into_int_value();
                let d = self.target(index, *default, steps)?;
                let mut arms = Vec::with_capacity(cases.len());
                for &(bits, t) in cases {
                    let t = self.target(index, t, steps)?;
                    arms.push((v.get_type().const_int(bits, false), t));
                }
                llvm(self.b.build_switch(v, d, &arms))?;
            }
            Terminator::Ret(v) => {
                let bits = match v {
                    Some(o) => {
                        let v = self.scalar(o)?;
                        self.result_bits(v)?
                    }
                    None => self.cx.i64_type().const_zero(),
                };
                let i64t = self.cx.i64_type();
                llvm(self.b.build_store(self.out, bits))?;
                // SAFETY: the kernel contract gives `out` two slots.
                let second = llvm(unsafe {
                    self.b
                        .build_in_bounds_gep(i64t, self.out, &[i64t.const_int(1, false)], "")
                })?;
                llvm(self.b.build_store(second, steps))?;
                if let Some(errors) = self.errors.get() {
                    // SAFETY: the kernel contract gives the counting kernel's `out` three slots.
                    let third = llvm(unsafe {
                        self.b
                            .build_in_bounds_gep(i64t, self.out, &[i64t.const_int(2, false)], "")
                    })?;
                    llvm(self.b.build_store(third, errors))?;
                }
                llvm(self.b.build_return(Some(&self.cx.i32_type().const_zero())))?;
            }
            Terminator::Unreachable => {
                llvm(self.b.build_unconditional_branch(self.restart))?;
            }
        }
        Ok(())
    }

    /// Records an edge into IR block `to` from the current block and returns its head.
    fn target(&mut self, from_ir: usize, to: BlockId, steps: IntValue<'c>) -> Emit<BasicBlock<'c>> {
        let to_ir = to.0 as usize;
        let Some(shell) = self.shells.get(to_ir) else {
            return refuse(format!("branch to missing block {to_ir}"));
        };
        let from = match self.b.get_insert_block() {
            Some(b) => b,
            None => return refuse("builder lost its block"),
        };
        self.edges.push(Edge {
            from_ir,
            to_ir,
            from,
            steps,
            errors: self.errors.get(),
        });
        Ok(shell.head)
    }

    /// Gives every phi one incoming value per emitted edge into its block.
    fn wire_phis(&mut self) -> Emit<()> {
        let edges = std::mem::take(&mut self.edges);
        for e in &edges {
            let shell = &self.shells[e.to_ir];
            shell.steps_in.add_incoming(&[(&e.steps, e.from)]);
            if let (Some(phi), Some(errors)) = (shell.errors_in, e.errors) {
                phi.add_incoming(&[(&errors, e.from)]);
            }
            let block = &self.f.blocks[e.to_ir];
            for (phi, lanes) in block.phis.iter().zip(&self.shells[e.to_ir].phis) {
                let Some((_, operand)) =
                    phi.incoming.iter().find(|(b, _)| b.0 as usize == e.from_ir)
                else {
                    return refuse(format!("phi without a value from block {}", e.from_ir));
                };
                // Constants are built where they are needed: before the edge's branch.
                if let Some(t) = e.from.get_terminator() {
                    self.b.position_before(&t);
                }
                let values = self.operand(operand)?;
                if values.len() != lanes.len() {
                    return refuse("phi lane count");
                }
                for (p, v) in lanes.iter().zip(&values) {
                    p.add_incoming(&[(v, e.from)]);
                }
            }
        }
        Ok(())
    }

    fn value_slot(&mut self, v: ValueId) -> Emit<&mut Option<Lanes<'c>>> {
        match self.values.get_mut(v.0 as usize) {
            Some(s) => Ok(s),
            None => refuse(format!("value %{} out of range", v.0)),
        }
    }

    fn scalar_type(&self, s: ScalarTy) -> Emit<BasicTypeEnum<'c>> {
        Ok(match s {
            ScalarTy::Float(FloatTy::F64) => self.cx.f64_type().into(),
            ScalarTy::Float(FloatTy::F32) => self.cx.f32_type().into(),
            ScalarTy::Int(w) => self.int_type(w)?.into(),
            ScalarTy::Ptr => return refuse("pointers"),
        })
    }

    fn int_type(&self, width: u32) -> Emit<IntType<'c>> {
        if width > 64 {
            return refuse(format!("i{width}"));
        }
        match NonZeroU32::new(width) {
            Some(w) => llvm(self.cx.custom_width_int_type(w)),
            None => refuse("i0"),
        }
    }

    /// A parameter from its `u64` bits.
    fn param_from_bits(&self, bits: IntValue<'c>, ty: ScalarTy) -> Emit<BasicValueEnum<'c>> {
        Ok(match ty {
            ScalarTy::Float(FloatTy::F64) => {
                llvm(self.b.build_bit_cast(bits, self.cx.f64_type(), ""))?
            }
            ScalarTy::Float(FloatTy::F32) => {
                let low = llvm(self.b.build_int_truncate(bits, self.cx.i32_type(), ""))?;
                llvm(self.b.build_bit_cast(low, self.cx.f32_type(), ""))?
            }
            ScalarTy::Int(64) => bits.into(),
            ScalarTy::Int(w) => {
                llvm(self.b.build_int_truncate(bits, self.int_type(w)?, ""))?.into()
            }
            ScalarTy::Ptr => return refuse("pointer parameters"),
        })
    }

    /// A result as `u64` bits (f32 in the low 32, integers zero-extended).
    fn result_bits(&self, v: BasicValueEnum<'c>) -> Emit<IntValue<'c>> {
        let i64t = self.cx.i64_type();
        let int = match v {
            BasicValueEnum::FloatValue(x) => {
                let width = x.get_type().get_bit_width();
                let as_int = self
                    .cx
                    .custom_width_int_type(NonZeroU32::new(width).unwrap_or(NonZeroU32::MIN));
                llvm(self.b.build_bit_cast(x, llvm(as_int)?, ""))?.into_int_value()
            }
            BasicValueEnum::IntValue(x) => x,
            _ => return refuse("returns a vector or pointer"),
        };
        if int.get_type().get_bit_width() == 64 {
            return Ok(int);
        }
        llvm(self.b.build_int_z_extend(int, i64t, ""))
    }

    fn constant(&self, c: &Const) -> Emit<Lanes<'c>> {
        Ok(match c {
            Const::Int { width, bits } => {
                vec![self.int_type(*width)?.const_int(*bits, false).into()]
            }
            Const::Float { ty, bits } => {
                let v = match ty {
                    FloatTy::F64 => f64::from_bits(*bits),
                    FloatTy::F32 => f64::from(f32::from_bits(*bits as u32)),
                };
                if v.is_nan() {
                    // A NaN that enters without INVALID would make operand order visible.
                    return refuse("NaN constant");
                }
                let t = match ty {
                    FloatTy::F64 => self.cx.f64_type(),
                    FloatTy::F32 => self.cx.f32_type(),
                };
                vec![t.const_float(v).into()]
            }
            // The walkers read undef as zero bits.
            Const::Undef(s) => vec![self.scalar_type(*s)?.const_zero()],
            Const::Vector(lanes) => {
                let mut out = Vec::with_capacity(lanes.len());
                for lane in lanes {
                    out.extend(self.constant(lane)?);
                }
                out
            }
            Const::NullPtr | Const::GlobalAddr { .. } | Const::FuncAddr(_) => {
                return refuse("pointer constants")
            }
        })
    }

    /// An operand's lanes (lane counts are checked by the users).
    fn operand(&self, o: &Operand) -> Emit<Lanes<'c>> {
        match o {
            Operand::Value(v) => match self.values.get(v.0 as usize) {
                Some(Some(l)) => Ok(l.clone()),
                _ => refuse(format!("value %{} used before it is defined", v.0)),
            },
            Operand::Const(c) => self.constant(c),
        }
    }

    fn lanes(&self, o: &Operand, n: u32) -> Emit<Lanes<'c>> {
        let l = self.operand(o)?;
        if l.len() != n as usize {
            return refuse("operand lane count");
        }
        Ok(l)
    }

    fn scalar(&self, o: &Operand) -> Emit<BasicValueEnum<'c>> {
        let l = self.operand(o)?;
        match l.as_slice() {
            [v] => Ok(*v),
            _ => refuse("vector where a scalar is expected"),
        }
    }

    /// Calls an intrinsic (overloaded on `types`), marked strictfp like the kernel.
    fn call(
        &self,
        name: &str,
        types: &[BasicTypeEnum<'c>],
        args: &[BasicMetadataValueEnum<'c>],
    ) -> Emit<BasicValueEnum<'c>> {
        let Some(intrinsic) = Intrinsic::find(name) else {
            return refuse(format!("LLVM has no {name}"));
        };
        let Some(decl) = intrinsic.get_declaration(self.module, types) else {
            return refuse(format!("cannot declare {name}"));
        };
        let call = llvm(self.b.build_call(decl, args, ""))?;
        call.add_attribute(AttributeLoc::Function, self.strictfp);
        match call.try_as_basic_value() {
            inkwell::values::ValueKind::Basic(v) => Ok(v),
            _ => refuse(format!("{name} returned nothing")),
        }
    }

    fn meta(&self, s: &str) -> BasicMetadataValueEnum<'c> {
        self.cx.metadata_string(s).into()
    }

    /// A constrained floating-point intrinsic: `rounded` ones take the rounding mode
    /// (dynamic: the MXCSR's, like the walker) before the exception behaviour.
    fn strict(
        &self,
        op: &str,
        types: &[BasicTypeEnum<'c>],
        args: &[BasicValueEnum<'c>],
        rounded: bool,
    ) -> Emit<BasicValueEnum<'c>> {
        let mut all: Vec<BasicMetadataValueEnum<'c>> = args.iter().map(|&a| a.into()).collect();
        if rounded {
            all.push(self.meta("round.dynamic"));
        }
        all.push(self.meta("fpexcept.strict"));
        self.call(&format!("llvm.experimental.constrained.{op}"), types, &all)
    }

    fn neg(&self, x: BasicValueEnum<'c>) -> Emit<BasicValueEnum<'c>> {
        Ok(llvm(self.b.build_float_neg(x.into_float_value(), ""))?.into())
    }

    /// Counting kernel: joins the magnitude bits of an operation's exact rounding error `e`
    /// to the running OR (a sign alone, `-0`, means exact).
    fn join_error(&self, e: BasicValueEnum<'c>) -> Emit<()> {
        let Some(errors) = self.errors.get() else {
            return Ok(());
        };
        let b = &self.b;
        let width = e.into_float_value().get_type().get_bit_width();
        let bits = llvm(b.build_bit_cast(e, self.int_type(width)?, ""))?.into_int_value();
        let magnitude = llvm(b.build_and(
            bits,
            bits.get_type().const_int(u64::MAX >> (65 - width), false),
            "",
        ))?;
        let wide = if width == 64 {
            magnitude
        } else {
            llvm(b.build_int_z_extend(magnitude, self.cx.i64_type(), ""))?
        };
        self.errors.set(Some(llvm(b.build_or(errors, wide, ""))?));
        Ok(())
    }

    /// Counting kernel: the operation was inexact when `inexact` (an `i1`) holds.
    fn join_inexact_if(&self, inexact: IntValue<'c>) -> Emit<()> {
        let Some(errors) = self.errors.get() else {
            return Ok(());
        };
        let wide = llvm(self.b.build_int_z_extend(inexact, self.cx.i64_type(), ""))?;
        self.errors
            .set(Some(llvm(self.b.build_or(errors, wide, ""))?));
        Ok(())
    }

    /// Counting kernel: `s = a + b` rounded; its error by Knuth's TwoSum, which computes
    /// it exactly under round to nearest unless something overflows or underflows (which
    /// raises a flag that makes the caller ignore the count).
    fn count_sum(
        &self,
        t: BasicTypeEnum<'c>,
        a: BasicValueEnum<'c>,
        b: BasicValueEnum<'c>,
        s: BasicValueEnum<'c>,
    ) -> Emit<()> {
        if !self.counting {
            return Ok(());
        }
        let sub = |x, y| self.strict("fsub", &[t], &[x, y], true);
        let b_part = sub(s, a)?;
        let a_part = sub(s, b_part)?;
        let a_error = sub(a, a_part)?;
        let b_error = sub(b, b_part)?;
        let error = self.strict("fadd", &[t], &[a_error, b_error], true)?;
        self.join_error(error)
    }

    /// Counting kernel: an operation whose exact error is `x * y + z`, zero exactly when
    /// it was exact: `a*b - p` for a product, `a - q*b` for a quotient, `a - s*s` for a
    /// square root. One FMA rounds it once, and rounding only makes a nonzero value zero
    /// by underflowing (a flag).
    fn count_residual(
        &self,
        t: BasicTypeEnum<'c>,
        x: BasicValueEnum<'c>,
        y: BasicValueEnum<'c>,
        z: BasicValueEnum<'c>,
    ) -> Emit<()> {
        if !self.counting {
            return Ok(());
        }
        let residual = self.strict("fma", &[t], &[x, y, z], true)?;
        self.join_error(residual)
    }

    /// Counting kernel: a conversion was inexact when converting back differs (a quiet
    /// compare, so it raises nothing on the numbers it sees).
    fn count_unequal(&self, back: BasicValueEnum<'c>, x: BasicValueEnum<'c>) -> Emit<()> {
        if !self.counting {
            return Ok(());
        }
        let differs = self.call(
            "llvm.experimental.constrained.fcmp",
            &[x.get_type()],
            &[
                back.into(),
                x.into(),
                self.meta("une"),
                self.meta("fpexcept.strict"),
            ],
        )?;
        self.join_inexact_if(differs.into_int_value())
    }

    /// Counting kernel: an integer `n` (as `i64`) converted to the float `r` was rounded
    /// when `r` does not convert back to `n` (a float beyond `i64` converts with INVALID,
    /// which makes the caller ignore the count).
    fn count_integer_round_trip(&self, r: BasicValueEnum<'c>, n: IntValue<'c>) -> Emit<()> {
        if !self.counting {
            return Ok(());
        }
        let i64t = self.cx.i64_type();
        let back = self
            .strict("fptosi", &[i64t.into(), r.get_type()], &[r], false)?
            .into_int_value();
        let differs = llvm(self.b.build_int_compare(IntPredicate::NE, back, n, ""))?;
        self.join_inexact_if(differs)
    }

    /// `minss`/`minsd`/`maxss`/`maxsd` on lane 0 of two vectors (the upper lanes are
    /// neither computed nor read).
    fn sse_min_max(
        &self,
        max: bool,
        ty: FloatTy,
        a: BasicValueEnum<'c>,
        b: BasicValueEnum<'c>,
    ) -> Emit<BasicValueEnum<'c>> {
        let (name, vt) = match (ty, max) {
            (FloatTy::F64, false) => ("llvm.x86.sse2.min.sd", self.cx.f64_type().vec_type(2)),
            (FloatTy::F64, true) => ("llvm.x86.sse2.max.sd", self.cx.f64_type().vec_type(2)),
            (FloatTy::F32, false) => ("llvm.x86.sse.min.ss", self.cx.f32_type().vec_type(4)),
            (FloatTy::F32, true) => ("llvm.x86.sse.max.ss", self.cx.f32_type().vec_type(4)),
        };
        let zero = self.cx.i64_type().const_zero();
        let undef = vt.get_undef();
        let va = llvm(self.b.build_insert_element(undef, a, zero, ""))?;
        let vb = llvm(self.b.build_insert_element(undef, b, zero, ""))?;
        let r = self.call(name, &[], &[va.into(), vb.into()])?;
        llvm(
            self.b
                .build_extract_element(r.into_vector_value(), zero, ""),
        )
    }

    /// The LLVM values of one instruction's result, one per lane (`None` without result).
    fn inst(&mut self, kind: &InstKind) -> Emit<Option<Lanes<'c>>> {
        let b = &self.b;
        let lanes = |ty: Type| lanes_of(ty);
        Ok(Some(match kind {
            InstKind::Nop => return Ok(None),
            InstKind::FBin {
                op, ty, a, b: rhs, ..
            } => {
                let (lt, n) = lanes(*ty)?;
                let name = match op {
                    FBinOp::FAdd => "fadd",
                    FBinOp::FSub => "fsub",
                    FBinOp::FMul => "fmul",
                    FBinOp::FDiv => "fdiv",
                    FBinOp::FRem => return refuse("frem (an fmod call)"),
                };
                let t = self.float_type(lt)?;
                let (xa, xb) = (self.lanes(a, n)?, self.lanes(rhs, n)?);
                let mut out = Vec::with_capacity(n as usize);
                for (x, y) in xa.into_iter().zip(xb) {
                    let r = self.strict(name, &[t], &[x, y], true)?;
                    match op {
                        FBinOp::FAdd => self.count_sum(t, x, y, r)?,
                        FBinOp::FSub => self.count_sum(t, x, self.neg(y)?, r)?,
                        FBinOp::FMul => self.count_residual(t, x, y, self.neg(r)?)?,
                        _ => self.count_residual(t, self.neg(r)?, y, x)?,
                    }
                    out.push(r);
                }
                out
            }
            InstKind::FNeg { ty, a } => {
                let (_, n) = lanes(*ty)?;
                let mut out = Vec::with_capacity(n as usize);
                for x in self.lanes(a, n)? {
                    out.push(llvm(b.build_float_neg(x.into_float_value(), ""))?.into());
                }
                out
            }
            InstKind::FCmp {
                pred,
                ty,
                a,
                b: rhs,
                lowering,
                ..
            } => {
                let (lt, n) = lanes(*ty)?;
                let t = self.float_type(lt)?;
                let (xa, xb) = (self.lanes(a, n)?, self.lanes(rhs, n)?);
                let mut out = Vec::with_capacity(n as usize);
                for (x, y) in xa.into_iter().zip(xb) {
                    out.push(match fcmp_name(*pred) {
                        None => self
                            .cx
                            .bool_type()
                            .const_int(u64::from(*pred == FCmpPred::True), false)
                            .into(),
                        Some(p) => {
                            let signalling = *lowering == CmpLowering::Mask && pred.is_relational();
                            let op = if signalling { "fcmps" } else { "fcmp" };
                            let args: Vec<BasicMetadataValueEnum<'c>> = vec![
                                x.into(),
                                y.into(),
                                self.meta(p),
                                self.meta("fpexcept.strict"),
                            ];
                            self.call(&format!("llvm.experimental.constrained.{op}"), &[t], &args)?
                        }
                    });
                }
                out
            }
            InstKind::IBin { op, ty, a, b: rhs } => {
                let (lt, n) = lanes(*ty)?;
                let ScalarTy::Int(width) = lt else {
                    return refuse("integer operation on non-integers");
                };
                let (xa, xb) = (self.lanes(a, n)?, self.lanes(rhs, n)?);
                let mut out = Vec::with_capacity(n as usize);
                for (x, y) in xa.into_iter().zip(xb) {
                    out.push(
                        self.int_binop(*op, width, x.into_int_value(), y.into_int_value())?
                            .into(),
                    );
                }
                out
            }
            InstKind::ICmp {
                pred,
                ty,
                a,
                b: rhs,
            } => {
                let (_, n) = lanes(*ty)?;
                let (xa, xb) = (self.lanes(a, n)?, self.lanes(rhs, n)?);
                let mut out = Vec::with_capacity(n as usize);
                for (x, y) in xa.into_iter().zip(xb) {
                    out.push(
                        llvm(b.build_int_compare(
                            int_predicate(*pred),
                            x.into_int_value(),
                            y.into_int_value(),
                            "",
                        ))?
                        .into(),
                    );
                }
                out
            }
            InstKind::IAbs { ty, a } => {
                let (_, n) = lanes(*ty)?;
                let mut out = Vec::with_capacity(n as usize);
                for x in self.lanes(a, n)? {
                    let x = x.into_int_value();
                    let zero = x.get_type().const_zero();
                    let negative = llvm(b.build_int_compare(IntPredicate::SLT, x, zero, ""))?;
                    let negated = llvm(b.build_int_sub(zero, x, ""))?;
                    out.push(llvm(b.build_select(negative, negated, x, ""))?);
                }
                out
            }
            InstKind::Cast {
                op, from, to, a, ..
            } => {
                let (fl, n) = lanes(*from)?;
                let (tl, m) = lanes(*to)?;
                if n != m {
                    return refuse(format!("{op:?} changing the lane count"));
                }
                let mut out = Vec::with_capacity(n as usize);
                for x in self.lanes(a, n)? {
                    out.push(self.cast(*op, fl, tl, x)?);
                }
                out
            }
            InstKind::Select {
                ty,
                cond,
                a,
                b: rhs,
            } => {
                let (_, n) = lanes(*ty)?;
                let c = self.operand(cond)?;
                let (xa, xb) = (self.lanes(a, n)?, self.lanes(rhs, n)?);
                let mut out = Vec::with_capacity(n as usize);
                for (i, (x, y)) in xa.into_iter().zip(xb).enumerate() {
                    // A scalar condition selects whole vectors.
                    let ci = match c.as_slice() {
                        [one] => *one,
                        many if many.len() == n as usize => many[i],
                        _ => return refuse("select condition lane count"),
                    };
                    out.push(llvm(b.build_select(ci.into_int_value(), x, y, ""))?);
                }
                out
            }
            InstKind::FUnary { op, ty, a, .. } => {
                let (lt, n) = lanes(*ty)?;
                let t = self.float_type(lt)?;
                let mut out = Vec::with_capacity(n as usize);
                for x in self.lanes(a, n)? {
                    out.push(match op {
                        FUnaryOp::Fabs => self.call("llvm.fabs", &[t], &[x.into()])?,
                        FUnaryOp::SqrtInsn => {
                            let r = self.strict("sqrt", &[t], &[x], true)?;
                            self.count_residual(t, self.neg(r)?, r, x)?;
                            r
                        }
                        other => return refuse(format!("{other:?} (a libm call or estimate)")),
                    });
                }
                out
            }
            InstKind::FClass { ty, a, mask, .. } => {
                // In a strictfp function LLVM tests the bits with integer instructions for
                // every mask, as `FClass` means: no flag, no DAZ.
                let (lt, n) = lanes(*ty)?;
                let t = self.float_type(lt)?;
                let mask = self.cx.i32_type().const_int(u64::from(mask.0), false);
                let mut out = Vec::with_capacity(n as usize);
                for x in self.lanes(a, n)? {
                    out.push(self.call("llvm.is.fpclass", &[t], &[x.into(), mask.into()])?);
                }
                out
            }
            InstKind::FBinary {
                op, ty, a, b: rhs, ..
            } => {
                let (lt, n) = lanes(*ty)?;
                let t = self.float_type(lt)?;
                let ScalarTy::Float(fty) = lt else {
                    return refuse("min/max on non-floats");
                };
                let (xa, xb) = (self.lanes(a, n)?, self.lanes(rhs, n)?);
                let mut out = Vec::with_capacity(n as usize);
                for (x, y) in xa.into_iter().zip(xb) {
                    out.push(match op {
                        FBinaryOp::CopySign => {
                            self.call("llvm.copysign", &[t], &[x.into(), y.into()])?
                        }
                        FBinaryOp::MinSse => self.sse_min_max(false, fty, x, y)?,
                        FBinaryOp::MaxSse => self.sse_min_max(true, fty, x, y)?,
                        // The concrete domain's minnum: `minsd b, a`, then the NaN fix-up
                        // that cannot apply here.
                        FBinaryOp::MinNum => self.sse_min_max(false, fty, y, x)?,
                        FBinaryOp::MaxNum => self.sse_min_max(true, fty, y, x)?,
                    });
                }
                out
            }
            InstKind::Fma {
                ty,
                a,
                b: mb,
                c,
                fused,
                ..
            } => {
                if *fused {
                    return refuse("fused multiply-add (an fma call without FMA hardware)");
                }
                let (lt, n) = lanes(*ty)?;
                let t = self.float_type(lt)?;
                let (xa, xb, xc) = (self.lanes(a, n)?, self.lanes(mb, n)?, self.lanes(c, n)?);
                let mut out = Vec::with_capacity(n as usize);
                for ((x, y), z) in xa.into_iter().zip(xb).zip(xc) {
                    let product = self.strict("fmul", &[t], &[x, y], true)?;
                    self.count_residual(t, x, y, self.neg(product)?)?;
                    let sum = self.strict("fadd", &[t], &[product, z], true)?;
                    self.count_sum(t, product, z, sum)?;
                    out.push(sum);
                }
                out
            }
            InstKind::ExtractElement { ty, v, index } => {
                let (_, n) = lanes(*ty)?;
                let l = self.lanes(v, n)?;
                vec![l[constant_lane(index, n)?]]
            }
            InstKind::InsertElement { ty, v, elt, index } => {
                let (_, n) = lanes(*ty)?;
                let mut l = self.lanes(v, n)?;
                l[constant_lane(index, n)?] = self.scalar(elt)?;
                l
            }
            InstKind::Shuffle {
                ty,
                a,
                b: rhs,
                mask,
            } => {
                let (lt, _) = lanes(*ty)?;
                let mut all = self.operand(a)?;
                all.extend(self.operand(rhs)?);
                let undefined = self.scalar_type(lt)?.const_zero();
                let mut out = Vec::with_capacity(mask.len());
                for m in mask {
                    out.push(match m {
                        Some(j) => match all.get(*j as usize) {
                            Some(v) => *v,
                            None => return refuse("shuffle index out of range"),
                        },
                        None => undefined,
                    });
                }
                out
            }
            InstKind::Phi { .. } => return refuse("phi among instructions"),
            InstKind::Reduce { .. } => return refuse("vector reductions"),
            InstKind::Math { func, .. } => return refuse(format!("libm call {}", func.c_name())),
            InstKind::MathOut { func, ty, .. } => {
                let name = ty.float_ty().map_or("?", |t| func.c_name(t));
                return refuse(format!("libm call {name} (output pointers)"));
            }
            InstKind::Call { .. } | InstKind::CallIndirect { .. } | InstKind::External(_) => {
                return refuse("calls")
            }
            InstKind::Unsupported { reason } => return refuse(reason.clone()),
            InstKind::Alloca { .. }
            | InstKind::Load { .. }
            | InstKind::Store { .. }
            | InstKind::Gep { .. }
            | InstKind::Memcpy { .. }
            | InstKind::Memset { .. }
            | InstKind::Heap { .. } => return refuse("memory"),
        }))
    }

    fn float_type(&self, s: ScalarTy) -> Emit<BasicTypeEnum<'c>> {
        match s {
            ScalarTy::Float(_) => self.scalar_type(s),
            other => refuse(format!("floating-point operation on {other}")),
        }
    }

    /// Integer arithmetic as `concrete::int_binop` defines it (x86-64 semantics).
    fn int_binop(
        &self,
        op: IBinOp,
        width: u32,
        x: IntValue<'c>,
        y: IntValue<'c>,
    ) -> Emit<IntValue<'c>> {
        let b = &self.b;
        let pick = |pred: IntPredicate| -> Emit<IntValue<'c>> {
            let c = llvm(b.build_int_compare(pred, x, y, ""))?;
            Ok(llvm(b.build_select(c, x, y, ""))?.into_int_value())
        };
        Ok(match op {
            IBinOp::Add => llvm(b.build_int_add(x, y, ""))?,
            IBinOp::Sub => llvm(b.build_int_sub(x, y, ""))?,
            IBinOp::Mul => llvm(b.build_int_mul(x, y, ""))?,
            IBinOp::And => llvm(b.build_and(x, y, ""))?,
            IBinOp::Or => llvm(b.build_or(x, y, ""))?,
            IBinOp::Xor => llvm(b.build_xor(x, y, ""))?,
            IBinOp::SMax => pick(IntPredicate::SGT)?,
            IBinOp::SMin => pick(IntPredicate::SLT)?,
            IBinOp::UMax => pick(IntPredicate::UGT)?,
            IBinOp::UMin => pick(IntPredicate::ULT)?,
            // The count is masked to 31 (up to 32 bits) or 63 and the shift done on 64
            // bits, then truncated: oversized counts are defined, as on x86.
            IBinOp::Shl | IBinOp::LShr | IBinOp::AShr => {
                let i64t = self.cx.i64_type();
                let wide = |v: IntValue<'c>, signed: bool| -> Emit<IntValue<'c>> {
                    if width == 64 {
                        Ok(v)
                    } else if signed {
                        llvm(b.build_int_s_extend(v, i64t, ""))
                    } else {
                        llvm(b.build_int_z_extend(v, i64t, ""))
                    }
                };
                let mask = if width > 32 { 63 } else { 31 };
                let count = llvm(b.build_and(wide(y, false)?, i64t.const_int(mask, false), ""))?;
                let value = wide(x, op == IBinOp::AShr)?;
                let r = match op {
                    IBinOp::Shl => llvm(b.build_left_shift(value, count, ""))?,
                    IBinOp::LShr => llvm(b.build_right_shift(value, count, false, ""))?,
                    _ => llvm(b.build_right_shift(value, count, true, ""))?,
                };
                if width == 64 {
                    r
                } else {
                    llvm(b.build_int_truncate(r, self.int_type(width)?, ""))?
                }
            }
            IBinOp::UDiv | IBinOp::SDiv | IBinOp::URem | IBinOp::SRem => {
                return refuse("integer division (traps on zero)")
            }
        })
    }

    /// One lane of a conversion, as the concrete domain's `fcast`/`icast` define it.
    fn cast(
        &self,
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        x: BasicValueEnum<'c>,
    ) -> Emit<BasicValueEnum<'c>> {
        let b = &self.b;
        let i32t = self.cx.i32_type();
        let i64t = self.cx.i64_type();
        let tt = self.scalar_type(to)?;
        Ok(match (op, from, to) {
            (CastOp::FPExt | CastOp::FPTrunc, f, t) if f == t => x,
            (CastOp::FPExt, ScalarTy::Float(FloatTy::F32), ScalarTy::Float(FloatTy::F64)) => {
                self.strict("fpext", &[tt, x.get_type()], &[x], false)?
            }
            (CastOp::FPTrunc, ScalarTy::Float(FloatTy::F64), ScalarTy::Float(FloatTy::F32)) => {
                let r = self.strict("fptrunc", &[tt, x.get_type()], &[x], true)?;
                if self.counting {
                    // Exact iff widening gives `x` back (both are normal or zero here).
                    let back = self.strict("fpext", &[x.get_type(), tt], &[r], false)?;
                    self.count_unequal(back, x)?;
                }
                r
            }
            // The same integer value converts the same way whatever the source width.
            (CastOp::SIToFP, ScalarTy::Int(w), ScalarTy::Float(_)) => {
                let r = self.strict("sitofp", &[tt, x.get_type()], &[x], true)?;
                if self.counting {
                    let n = x.into_int_value();
                    let wide = if w == 64 {
                        n
                    } else {
                        llvm(b.build_int_s_extend(n, i64t, ""))?
                    };
                    self.count_integer_round_trip(r, wide)?;
                }
                r
            }
            (CastOp::UIToFP, ScalarTy::Int(w), ScalarTy::Float(_)) if w < 64 => {
                let wide = llvm(b.build_int_z_extend(x.into_int_value(), i64t, ""))?;
                let r = self.strict("sitofp", &[tt, i64t.into()], &[wide.into()], true)?;
                self.count_integer_round_trip(r, wide)?;
                r
            }
            // 32-bit conversions for up to 32 bits (`fptoui` below 32), 64-bit ones above
            // (and for `fptoui` of exactly 32), truncated to the width.
            (CastOp::FPToSI | CastOp::FPToUI, ScalarTy::Float(_), ScalarTy::Int(w))
                if w <= 32 || op == CastOp::FPToSI =>
            {
                let wide = w > 32 || (op == CastOp::FPToUI && w == 32);
                let via: IntType<'c> = if wide { i64t } else { i32t };
                let r = self
                    .strict("fptosi", &[via.into(), x.get_type()], &[x], false)?
                    .into_int_value();
                if self.counting {
                    // Exact iff `x` was an integer: converting back gives `x` (exactly,
                    // as an integer too large to convert exactly is a float already).
                    let back =
                        self.strict("sitofp", &[x.get_type(), via.into()], &[r.into()], true)?;
                    self.count_unequal(back, x)?;
                }
                if via.get_bit_width() == w {
                    r.into()
                } else {
                    llvm(b.build_int_truncate(r, self.int_type(w)?, ""))?.into()
                }
            }
            (CastOp::Trunc, ScalarTy::Int(_), ScalarTy::Int(w)) => {
                llvm(b.build_int_truncate(x.into_int_value(), self.int_type(w)?, ""))?.into()
            }
            (CastOp::ZExt, ScalarTy::Int(_), ScalarTy::Int(w)) => {
                llvm(b.build_int_z_extend(x.into_int_value(), self.int_type(w)?, ""))?.into()
            }
            (CastOp::SExt, ScalarTy::Int(_), ScalarTy::Int(w)) => {
                llvm(b.build_int_s_extend(x.into_int_value(), self.int_type(w)?, ""))?.into()
            }
            (CastOp::BitCast, ScalarTy::Int(a), ScalarTy::Int(c)) if a == c => x,
            // Reading a float's bits is harmless; making a float from bits could make a NaN
            // that no operation signalled.
            (CastOp::BitCast, ScalarTy::Float(f), ScalarTy::Int(w)) if f.bits() == w => {
                llvm(b.build_bit_cast(x, tt, ""))?
            }
            _ => return refuse(format!("conversion {op:?} from {from} to {to}")),
        })
    }
}

fn lanes_of(ty: Type) -> Emit<(ScalarTy, u32)> {
    match ty.lanes() {
        Some(l) => Ok(l),
        None => refuse("void value"),
    }
}

fn constant_lane(index: &Operand, lanes: u32) -> Emit<usize> {
    match index {
        Operand::Const(Const::Int { bits, .. }) if *bits < u64::from(lanes) => Ok(*bits as usize),
        _ => refuse("vector lane index that is not a constant in range"),
    }
}

/// The `fcmp` predicate as the constrained intrinsics spell it (`None` for the constant ones).
fn fcmp_name(p: FCmpPred) -> Option<&'static str> {
    use FCmpPred::*;
    Some(match p {
        False | True => return None,
        Oeq => "oeq",
        Ogt => "ogt",
        Oge => "oge",
        Olt => "olt",
        Ole => "ole",
        One => "one",
        Ord => "ord",
        Ueq => "ueq",
        Ugt => "ugt",
        Uge => "uge",
        Ult => "ult",
        Ule => "ule",
        Une => "une",
        Uno => "uno",
    })
}

fn int_predicate(p: ICmpPred) -> IntPredicate {
    match p {
        ICmpPred::Eq => IntPredicate::EQ,
        ICmpPred::Ne => IntPredicate::NE,
        ICmpPred::Ugt => IntPredicate::UGT,
        ICmpPred::Uge => IntPredicate::UGE,
        ICmpPred::Ult => IntPredicate::ULT,
        ICmpPred::Ule => IntPredicate::ULE,
        ICmpPred::Sgt => IntPredicate::SGT,
        ICmpPred::Sge => IntPredicate::SGE,
        ICmpPred::Slt => IntPredicate::SLT,
        ICmpPred::Sle => IntPredicate::SLE,
    }
}

/// Blocks reachable from the entry, each after every block that dominates it.
fn reverse_post_order(f: &Function) -> Vec<usize> {
    let successors = |b: usize| -> Vec<usize> {
        match &f.blocks[b].term {
            Terminator::Br(t) => vec![t.0 as usize],
            Terminator::CondBr { then_, else_, .. } => vec![then_.0 as usize, else_.0 as usize],
            Terminator::Switch { default, cases, .. } => std::iter::once(default.0 as usize)
                .chain(cases.iter().map(|(_, t)| t.0 as usize))
                .collect(),
            Terminator::Ret(_) | Terminator::Unreachable => Vec::new(),
        }
    };
    let n = f.blocks.len();
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    // Iterative DFS: (block, successors, next successor).
    let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(0, successors(0), 0)];
    seen[0] = true;
    while let Some((b, succ, next)) = stack.last_mut() {
        if let Some(&s) = succ.get(*next) {
            *next += 1;
            if s < n && !seen[s] {
                seen[s] = true;
                stack.push((s, successors(s), 0));
            }
        } else {
            post.push(*b);
            stack.pop();
        }
    }
    post.reverse();
    post
}
