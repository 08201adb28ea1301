//! The walker's pre-decoded form of a module: every function is decoded once, when a
//! [`Walker`](crate::Walker) is created, into instructions whose operands are frame slot
//! or constant pool indices, with constants already converted by the domain and types
//! already resolved to what the walker needs (float format, integer width, lane type).
//!
//! Decoding never fails: what the walker would reject while executing an instruction
//! (a float op on a non-float type, a constant it cannot represent) is kept as an error
//! that the instruction (or the operand) yields when it is executed, so errors surface
//! at the same point and with the same location as when walking the IR directly.

use crate::domain::Domain;
use crate::memory::Ptr;
use crate::walker::Val;
use crate::{DResult, WalkError};
use fpscout_ir::*;
use smallvec::SmallVec;

/// Lanes of a vector value, stored inline for the vector widths SSE code uses.
pub(crate) type Lanes<S> = SmallVec<[S; 4]>;

/// A value in a frame slot or the constant pool (the walker's inner form of [`Val`]).
#[derive(Clone, Debug)]
pub(crate) enum Reg<S> {
    Scalar(S),
    Ptr(Ptr),
    Vector(Lanes<S>),
}

impl<S> Reg<S> {
    pub(crate) fn from_val(v: Val<S>) -> Reg<S> {
        match v {
            Val::Scalar(s) => Reg::Scalar(s),
            Val::Ptr(p) => Reg::Ptr(p),
            Val::Vector(xs) => Reg::Vector(Lanes::from_vec(xs)),
        }
    }

    #[inline]
    pub(crate) fn into_val(self) -> Val<S> {
        match self {
            Reg::Scalar(s) => Val::Scalar(s),
            Reg::Ptr(p) => Val::Ptr(p),
            Reg::Vector(xs) => Val::Vector(xs.into_vec()),
        }
    }
}

/// Where an operand's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opd {
    /// An SSA value of the frame.
    Val(u32),
    /// An entry of the constant pool.
    Const(u32),
    /// A constant the domain cannot represent: evaluating it is this error.
    Bad(u32),
}

/// No result slot.
pub(crate) const NO_DEST: u32 = u32::MAX;

/// One decoded instruction; `dest` is [`NO_DEST`] when it has no result.
#[derive(Clone, Debug)]
pub(crate) struct DInst {
    pub op: Op,
    pub dest: u32,
}

/// A decoded instruction kind (one per [`InstKind`], types pre-resolved).
#[derive(Clone, Debug)]
pub(crate) enum Op {
    FBin {
        op: FBinOp,
        fty: FloatTy,
        a: Opd,
        b: Opd,
        site: FpOpId,
    },
    FNeg {
        fty: FloatTy,
        ty: Type,
        a: Opd,
    },
    FCmp {
        pred: FCmpPred,
        lowering: CmpLowering,
        fty: FloatTy,
        a: Opd,
        b: Opd,
        site: FpOpId,
    },
    FUnary {
        op: FUnaryOp,
        fty: FloatTy,
        ty: Type,
        a: Opd,
        site: FpOpId,
    },
    FBinary {
        op: FBinaryOp,
        fty: FloatTy,
        a: Opd,
        b: Opd,
        site: FpOpId,
    },
    FClass {
        mask: FpClassMask,
        fty: FloatTy,
        ty: Type,
        a: Opd,
        site: FpOpId,
    },
    Fma {
        fty: FloatTy,
        ty: Type,
        a: Opd,
        b: Opd,
        c: Opd,
        fused: bool,
        site: FpOpId,
    },
    Math {
        func: MathFn,
        fty: FloatTy,
        args: Box<[Opd]>,
        site: FpOpId,
    },
    MathOut {
        func: OutMathFn,
        fty: FloatTy,
        args: Box<[Opd]>,
        outs: Box<[Opd]>,
        site: FpOpId,
    },
    Reduce {
        op: ReduceOp,
        fty: FloatTy,
        start: Option<Opd>,
        v: Opd,
        ordered: bool,
        fmf: FastMath,
        site: FpOpId,
    },
    IBin {
        op: IBinOp,
        width: u32,
        a: Opd,
        b: Opd,
    },
    IAbs {
        width: u32,
        ty: Type,
        a: Opd,
    },
    ICmp {
        pred: ICmpPred,
        width: u32,
        a: Opd,
        b: Opd,
    },
    ICmpPtr {
        pred: ICmpPred,
        a: Opd,
        b: Opd,
    },
    Cast {
        op: CastOp,
        from: Type,
        to: Type,
        a: Opd,
        site: Option<FpOpId>,
    },
    Select {
        ty: Type,
        cond: Opd,
        a: Opd,
        b: Opd,
    },
    Alloca {
        size: u64,
    },
    Load {
        ty: Type,
        ptr: Opd,
    },
    Store {
        ty: Type,
        value: Opd,
        ptr: Opd,
    },
    Gep {
        base: Opd,
        const_offset: i64,
        /// (index, width, scale)
        indices: Box<[(Opd, u32, i64)]>,
    },
    Memcpy {
        dst: Opd,
        src: Opd,
        len: Opd,
    },
    Memset {
        dst: Opd,
        byte: Opd,
        len: Opd,
    },
    Heap {
        op: HeapOp,
        args: Box<[Opd]>,
    },
    ExtractElement {
        v: Opd,
        index: Opd,
    },
    InsertElement {
        ty: Type,
        v: Opd,
        elt: Opd,
        index: Opd,
    },
    Shuffle {
        ty: Type,
        lane_ty: Option<ScalarTy>,
        a: Opd,
        b: Opd,
        mask: Box<[Option<u32>]>,
    },
    Call {
        callee: FuncId,
        args: Box<[Opd]>,
    },
    /// A call through a pointer, resolved when it runs.
    CallIndirect {
        callee: Opd,
        args: Box<[Opd]>,
    },
    /// A call outside the module: output, a program end or a native function.
    External(Box<DExternal>),
    Nop,
    /// The instruction itself cannot be walked: executing it is this error.
    Fail(u32),
}

/// A decoded external call: the call as lowered, its operands decoded.
#[derive(Clone, Debug)]
pub(crate) struct DExternal {
    pub call: ExternalCall,
    pub args: Box<[Opd]>,
}

/// A decoded phi: on entry from block `incoming[i].0`, slot `dest` takes `incoming[i].1`.
#[derive(Clone, Debug)]
pub(crate) struct DPhi {
    pub dest: u32,
    pub incoming: Box<[(u32, Opd)]>,
}

#[derive(Clone, Debug)]
pub(crate) enum Term {
    Br(u32),
    CondBr {
        cond: Opd,
        then_: u32,
        else_: u32,
    },
    Switch {
        st: ScalarTy,
        value: Opd,
        default: u32,
        cases: Box<[(u64, u32)]>,
    },
    Ret(Option<Opd>),
    Unreachable,
}

#[derive(Clone, Debug)]
pub(crate) struct DBlock {
    pub phis: Box<[DPhi]>,
    /// The phis can be assigned one after the other: no phi reads the slot of an
    /// earlier phi of this block (otherwise they go through a scratch buffer, so that
    /// all are read before any is written).
    pub phis_in_place: bool,
    pub insts: Box<[DInst]>,
    pub term: Term,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct DFunc {
    pub blocks: Box<[DBlock]>,
    pub num_values: u32,
    pub num_params: u32,
}

/// A whole module, decoded for one domain.
#[derive(Clone, Debug)]
pub(crate) struct Code<S> {
    pub funcs: Vec<DFunc>,
    pub consts: Vec<Reg<S>>,
    pub bad: Vec<WalkError>,
}

impl<S> Default for Code<S> {
    fn default() -> Self {
        Code {
            funcs: Vec::new(),
            consts: Vec::new(),
            bad: Vec::new(),
        }
    }
}

impl<S> Code<S> {
    /// The value of an operand in a frame.
    #[inline(always)]
    pub(crate) fn get<'a>(&'a self, vals: &'a [Option<Reg<S>>], o: Opd) -> DResult<&'a Reg<S>> {
        match o {
            Opd::Val(i) => match &vals[i as usize] {
                Some(v) => Ok(v),
                None => Err(undefined(i)),
            },
            Opd::Const(i) => Ok(&self.consts[i as usize]),
            Opd::Bad(i) => Err(self.bad[i as usize].clone()),
        }
    }
}

#[cold]
#[inline(never)]
pub(crate) fn undefined(i: u32) -> WalkError {
    WalkError::unsupported(format!("use of value %{i} before definition"))
}

/// Where the module's globals and functions live in a walk's memory: a function whose
/// address the module takes is a one-byte read-only object, so that its address is a
/// pointer like any other (stored in a global, passed, compared) and a call through it
/// finds the function again.
#[derive(Clone, Debug, Default)]
pub(crate) struct Addresses {
    pub globals: Vec<Ptr>,
    /// The address-taken functions and their objects, by `FuncId`.
    pub functions: Vec<(FuncId, Ptr)>,
}

impl Addresses {
    /// The function whose address `p` is.
    pub fn function_at(&self, p: Ptr) -> Option<FuncId> {
        (p.offset == 0)
            .then(|| self.functions.iter().find(|(_, q)| q.obj == p.obj))
            .flatten()
            .map(|(f, _)| *f)
    }

    fn function(&self, f: FuncId) -> Option<Ptr> {
        self.functions
            .binary_search_by_key(&f, |(g, _)| *g)
            .ok()
            .map(|i| self.functions[i].1)
    }
}

/// Evaluates a constant in a domain.
pub(crate) fn const_to_val<D: Domain>(
    d: &D,
    addresses: &Addresses,
    c: &Const,
) -> DResult<Reg<D::Scalar>> {
    Ok(match c {
        Const::Int { width, bits } => Reg::Scalar(d.constant(ScalarTy::Int(*width), *bits)),
        Const::Float { ty, bits } => Reg::Scalar(d.constant(ScalarTy::Float(*ty), *bits)),
        Const::NullPtr => Reg::Ptr(Ptr::NULL),
        Const::GlobalAddr { global, offset } => {
            Reg::Ptr(addresses.globals[global.0 as usize].add(*offset))
        }
        Const::FuncAddr(f) => match addresses.function(*f) {
            Some(p) => Reg::Ptr(p),
            None => return Err(WalkError::unsupported("function pointers as values")),
        },
        Const::Undef(ScalarTy::Ptr) => Reg::Ptr(Ptr::NULL),
        Const::Undef(s) => Reg::Scalar(d.constant(*s, 0)),
        Const::Vector(lanes) => {
            let mut out = Lanes::with_capacity(lanes.len());
            for l in lanes {
                match const_to_val(d, addresses, l)? {
                    Reg::Scalar(s) => out.push(s),
                    _ => return Err(WalkError::unsupported("vector of pointers")),
                }
            }
            Reg::Vector(out)
        }
    })
}

fn float_of(ty: Type) -> DResult<FloatTy> {
    ty.float_ty()
        .ok_or_else(|| WalkError::unsupported(format!("floating-point op on {ty}")))
}

fn int_width(ty: Type) -> DResult<u32> {
    match ty.lanes() {
        Some((ScalarTy::Int(w), _)) => Ok(w),
        _ => Err(WalkError::unsupported(format!("integer op on {ty}"))),
    }
}

struct Decoder<'a, D: Domain> {
    domain: &'a D,
    addresses: &'a Addresses,
    code: Code<D::Scalar>,
}

impl<D: Domain> Decoder<'_, D> {
    fn opd(&mut self, o: &Operand) -> Opd {
        match o {
            Operand::Value(v) => Opd::Val(v.0),
            Operand::Const(c) => match const_to_val(self.domain, self.addresses, c) {
                Ok(v) => {
                    self.code.consts.push(v);
                    Opd::Const(self.code.consts.len() as u32 - 1)
                }
                Err(e) => {
                    self.code.bad.push(e);
                    Opd::Bad(self.code.bad.len() as u32 - 1)
                }
            },
        }
    }

    fn fail(&mut self, e: WalkError) -> Op {
        self.code.bad.push(e);
        Op::Fail(self.code.bad.len() as u32 - 1)
    }

    fn inst(&mut self, module: &Module, kind: &InstKind) -> Op {
        match self.try_inst(module, kind) {
            Ok(op) => op,
            Err(e) => self.fail(e),
        }
    }

    fn try_inst(&mut self, module: &Module, kind: &InstKind) -> DResult<Op> {
        Ok(match kind {
            InstKind::FBin { op, ty, a, b, site } => Op::FBin {
                op: *op,
                fty: float_of(*ty)?,
                a: self.opd(a),
                b: self.opd(b),
                site: *site,
            },
            InstKind::FNeg { ty, a } => Op::FNeg {
                fty: float_of(*ty)?,
                ty: *ty,
                a: self.opd(a),
            },
            InstKind::FCmp {
                pred,
                ty,
                a,
                b,
                lowering,
                site,
            } => Op::FCmp {
                pred: *pred,
                lowering: *lowering,
                fty: float_of(*ty)?,
                a: self.opd(a),
                b: self.opd(b),
                site: *site,
            },
            InstKind::FUnary { op, ty, a, site } => Op::FUnary {
                op: *op,
                fty: float_of(*ty)?,
                ty: *ty,
                a: self.opd(a),
                site: *site,
            },
            InstKind::FClass { ty, a, mask, site } => Op::FClass {
                mask: *mask,
                fty: float_of(*ty)?,
                ty: *ty,
                a: self.opd(a),
                site: *site,
            },
            InstKind::FBinary { op, ty, a, b, site } => Op::FBinary {
                op: *op,
                fty: float_of(*ty)?,
                a: self.opd(a),
                b: self.opd(b),
                site: *site,
            },
            InstKind::Fma {
                ty,
                a,
                b,
                c,
                fused,
                site,
            } => Op::Fma {
                fty: float_of(*ty)?,
                ty: *ty,
                a: self.opd(a),
                b: self.opd(b),
                c: self.opd(c),
                fused: *fused,
                site: *site,
            },
            InstKind::Math {
                func,
                ty,
                args,
                site,
            } => Op::Math {
                func: *func,
                fty: float_of(*ty)?,
                args: args.iter().map(|a| self.opd(a)).collect(),
                site: *site,
            },
            InstKind::MathOut {
                func,
                ty,
                args,
                outs,
                site,
            } => Op::MathOut {
                func: *func,
                fty: float_of(*ty)?,
                args: args.iter().map(|a| self.opd(a)).collect(),
                outs: outs.iter().map(|a| self.opd(a)).collect(),
                site: *site,
            },
            InstKind::Reduce {
                op,
                ty,
                start,
                v,
                ordered,
                site,
            } => Op::Reduce {
                op: *op,
                fty: float_of(*ty)?,
                v: self.opd(v),
                start: start.as_ref().map(|s| self.opd(s)),
                ordered: *ordered,
                fmf: module.op(*site).fmf,
                site: *site,
            },
            InstKind::IBin { op, ty, a, b } => Op::IBin {
                op: *op,
                width: int_width(*ty)?,
                a: self.opd(a),
                b: self.opd(b),
            },
            InstKind::IAbs { ty, a } => Op::IAbs {
                width: int_width(*ty)?,
                ty: *ty,
                a: self.opd(a),
            },
            InstKind::ICmp { pred, ty, a, b } if *ty == Type::PTR => Op::ICmpPtr {
                pred: *pred,
                a: self.opd(a),
                b: self.opd(b),
            },
            InstKind::ICmp { pred, ty, a, b } => Op::ICmp {
                pred: *pred,
                width: int_width(*ty)?,
                a: self.opd(a),
                b: self.opd(b),
            },
            InstKind::Cast {
                op,
                from,
                to,
                a,
                site,
            } => Op::Cast {
                op: *op,
                from: *from,
                to: *to,
                a: self.opd(a),
                site: *site,
            },
            InstKind::Select { ty, cond, a, b } => Op::Select {
                ty: *ty,
                cond: self.opd(cond),
                a: self.opd(a),
                b: self.opd(b),
            },
            InstKind::Alloca { size } => Op::Alloca { size: *size },
            InstKind::Load { ty, ptr } => Op::Load {
                ty: *ty,
                ptr: self.opd(ptr),
            },
            InstKind::Store { ty, value, ptr } => Op::Store {
                ty: *ty,
                value: self.opd(value),
                ptr: self.opd(ptr),
            },
            InstKind::Gep {
                base,
                const_offset,
                indices,
            } => Op::Gep {
                base: self.opd(base),
                const_offset: *const_offset,
                indices: indices
                    .iter()
                    .map(|g| (self.opd(&g.index), g.width, g.scale))
                    .collect(),
            },
            InstKind::Memcpy { dst, src, len } => Op::Memcpy {
                dst: self.opd(dst),
                src: self.opd(src),
                len: self.opd(len),
            },
            InstKind::Memset { dst, byte, len } => Op::Memset {
                dst: self.opd(dst),
                byte: self.opd(byte),
                len: self.opd(len),
            },
            InstKind::Heap { op, args } => Op::Heap {
                op: *op,
                args: args.iter().map(|a| self.opd(a)).collect(),
            },
            InstKind::ExtractElement { v, index, .. } => Op::ExtractElement {
                v: self.opd(v),
                index: self.opd(index),
            },
            InstKind::InsertElement { ty, v, elt, index } => Op::InsertElement {
                ty: *ty,
                v: self.opd(v),
                elt: self.opd(elt),
                index: self.opd(index),
            },
            InstKind::Shuffle { ty, a, b, mask } => Op::Shuffle {
                ty: *ty,
                lane_ty: ty.lanes().map(|l| l.0),
                a: self.opd(a),
                b: self.opd(b),
                mask: mask.clone().into_boxed_slice(),
            },
            InstKind::Call { callee, args, .. } => Op::Call {
                callee: *callee,
                args: args.iter().map(|a| self.opd(a)).collect(),
            },
            InstKind::CallIndirect { callee, args, .. } => Op::CallIndirect {
                callee: self.opd(callee),
                args: args.iter().map(|a| self.opd(a)).collect(),
            },
            InstKind::External(call) => Op::External(Box::new(DExternal {
                args: call.args.iter().map(|a| self.opd(a)).collect(),
                call: (**call).clone(),
            })),
            InstKind::Unsupported { reason } => return Err(WalkError::unsupported(reason.clone())),
            InstKind::Phi { .. } | InstKind::Nop => Op::Nop,
        })
    }

    fn block(&mut self, module: &Module, b: &Block) -> DBlock {
        let phis: Box<[DPhi]> = b
            .phis
            .iter()
            .map(|p| DPhi {
                dest: p.dest.0,
                incoming: p
                    .incoming
                    .iter()
                    .map(|(from, o)| (from.0, self.opd(o)))
                    .collect(),
            })
            .collect();
        // Assigning in order is only safe when no phi reads an earlier phi's slot.
        let phis_in_place = phis.iter().enumerate().all(|(i, p)| {
            p.incoming.iter().all(|(_, o)| match o {
                Opd::Val(v) => !phis[..i].iter().any(|q| q.dest == *v),
                _ => true,
            })
        });
        let insts = b
            .insts
            .iter()
            .map(|i| DInst {
                op: self.inst(module, &i.kind),
                dest: i.dest.map_or(NO_DEST, |d| d.0),
            })
            .collect();
        let term = match &b.term {
            Terminator::Br(t) => Term::Br(t.0),
            Terminator::CondBr { cond, then_, else_ } => Term::CondBr {
                cond: self.opd(cond),
                then_: then_.0,
                else_: else_.0,
            },
            Terminator::Switch {
                ty,
                value,
                default,
                cases,
            } => Term::Switch {
                st: ty.lanes().map(|l| l.0).unwrap_or(ScalarTy::Int(64)),
                value: self.opd(value),
                default: default.0,
                cases: cases.iter().map(|(c, b)| (*c, b.0)).collect(),
            },
            Terminator::Ret(v) => Term::Ret(v.as_ref().map(|o| self.opd(o))),
            Terminator::Unreachable => Term::Unreachable,
        };
        DBlock {
            phis,
            phis_in_place,
            insts,
            term,
        }
    }
}

/// Decodes every function of `module` for `domain`.
pub(crate) fn decode<D: Domain>(
    module: &Module,
    domain: &D,
    addresses: &Addresses,
) -> Code<D::Scalar> {
    let mut dec = Decoder {
        domain,
        addresses,
        code: Code::default(),
    };
    for f in &module.functions {
        let blocks = f.blocks.iter().map(|b| dec.block(module, b)).collect();
        dec.code.funcs.push(DFunc {
            blocks,
            num_values: f.num_values,
            num_params: f.params.len() as u32,
        });
    }
    dec.code
}
