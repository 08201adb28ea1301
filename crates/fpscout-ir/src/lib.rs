//! fpscout's compact IR: what the walker and every domain see instead of LLVM.
//!
//! A [`Module`] holds functions in SSA form. Values are numbered densely per function
//! ([`ValueId`]), blocks too ([`BlockId`]), so a walker frame is a flat vector. Every
//! floating-point operation carries a module-wide [`FpOpId`] whose [`FpOpInfo`] records the
//! opcode, fast-math flags and source location; exception events name that id.

pub mod kernel;

use serde::{Deserialize, Serialize};
use std::fmt;

/// IEEE binary format of a floating-point value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FloatTy {
    F32,
    F64,
}

impl FloatTy {
    pub fn bits(self) -> u32 {
        match self {
            FloatTy::F32 => 32,
            FloatTy::F64 => 64,
        }
    }
    pub fn c_name(self) -> &'static str {
        match self {
            FloatTy::F32 => "float",
            FloatTy::F64 => "double",
        }
    }
    /// Significand precision including the hidden bit.
    pub fn precision(self) -> u32 {
        match self {
            FloatTy::F32 => 24,
            FloatTy::F64 => 53,
        }
    }
}

/// A scalar type: what one vector lane or one memory cell holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScalarTy {
    /// Integer of the given width in bits (1 for booleans).
    Int(u32),
    Float(FloatTy),
    Ptr,
}

impl ScalarTy {
    /// Size in bytes as laid out in memory (i1 takes a byte).
    pub fn store_size(self) -> u64 {
        match self {
            ScalarTy::Int(w) => u64::from(w.div_ceil(8)).max(1),
            ScalarTy::Float(f) => u64::from(f.bits() / 8),
            ScalarTy::Ptr => 8,
        }
    }
}

/// A first-class value type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Type {
    Void,
    Scalar(ScalarTy),
    /// Fixed-length vector of `len` lanes.
    Vector(ScalarTy, u32),
}

impl Type {
    pub const F32: Type = Type::Scalar(ScalarTy::Float(FloatTy::F32));
    pub const F64: Type = Type::Scalar(ScalarTy::Float(FloatTy::F64));
    pub const PTR: Type = Type::Scalar(ScalarTy::Ptr);
    pub fn int(width: u32) -> Type {
        Type::Scalar(ScalarTy::Int(width))
    }
    /// The lane type and lane count (1 for scalars).
    pub fn lanes(self) -> Option<(ScalarTy, u32)> {
        match self {
            Type::Void => None,
            Type::Scalar(s) => Some((s, 1)),
            Type::Vector(s, n) => Some((s, n)),
        }
    }
    pub fn float_ty(self) -> Option<FloatTy> {
        match self.lanes() {
            Some((ScalarTy::Float(f), _)) => Some(f),
            _ => None,
        }
    }
    pub fn is_vector(self) -> bool {
        matches!(self, Type::Vector(..))
    }
    pub fn store_size(self) -> u64 {
        match self.lanes() {
            None => 0,
            Some((s, n)) => s.store_size() * u64::from(n),
        }
    }
}

impl fmt::Display for ScalarTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarTy::Int(w) => write!(f, "i{w}"),
            ScalarTy::Float(FloatTy::F32) => f.write_str("float"),
            ScalarTy::Float(FloatTy::F64) => f.write_str("double"),
            ScalarTy::Ptr => f.write_str("ptr"),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => f.write_str("void"),
            Type::Scalar(s) => write!(f, "{s}"),
            Type::Vector(s, n) => write!(f, "<{n} x {s}>"),
        }
    }
}

/// Index of an SSA value within its function (parameters first, then instruction results).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct ValueId(pub u32);

/// Index of a basic block within its function; block 0 is the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct BlockId(pub u32);

/// Index of a function within its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FuncId(pub u32);

/// Index of a global variable within its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct GlobalId(pub u32);

/// Module-wide stable id of one floating-point operation (one IR instruction; vector
/// lanes share the id and are told apart by lane number in events).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FpOpId(pub u32);

/// A source position from `!dbg`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SourceLoc {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// LLVM fast-math flags kept on each floating-point operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct FastMath {
    pub reassoc: bool,
    pub nnan: bool,
    pub ninf: bool,
    pub nsz: bool,
    pub arcp: bool,
    pub contract: bool,
    pub afn: bool,
}

impl FastMath {
    pub fn is_empty(&self) -> bool {
        *self == FastMath::default()
    }
    pub fn is_fast(&self) -> bool {
        self.reassoc && self.nnan && self.ninf && self.nsz && self.arcp && self.contract && self.afn
    }
}

impl fmt::Display for FastMath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_fast() {
            return f.write_str("fast");
        }
        let names = [
            (self.reassoc, "reassoc"),
            (self.nnan, "nnan"),
            (self.ninf, "ninf"),
            (self.nsz, "nsz"),
            (self.arcp, "arcp"),
            (self.contract, "contract"),
            (self.afn, "afn"),
        ];
        let set: Vec<&str> = names
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
        f.write_str(&set.join(" "))
    }
}

/// A compile-time constant operand.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Const {
    /// Integer bits, zero-extended to 64 (width ≤ 64).
    Int {
        width: u32,
        bits: u64,
    },
    /// IEEE bits of a float constant (f32 bits in the low 32).
    Float {
        ty: FloatTy,
        bits: u64,
    },
    NullPtr,
    /// Address of a global variable plus a byte offset.
    GlobalAddr {
        global: GlobalId,
        offset: i64,
    },
    /// Address of a module function (only usable as a call target).
    FuncAddr(FuncId),
    /// `undef` or `poison` of a scalar type: its value is unspecified, walkers pick zero.
    Undef(ScalarTy),
    /// A vector constant, lane by lane.
    Vector(Vec<Const>),
}

impl Const {
    pub fn f64(v: f64) -> Const {
        Const::Float {
            ty: FloatTy::F64,
            bits: v.to_bits(),
        }
    }
    pub fn f32(v: f32) -> Const {
        Const::Float {
            ty: FloatTy::F32,
            bits: u64::from(v.to_bits()),
        }
    }
    pub fn int(width: u32, value: i64) -> Const {
        Const::Int {
            width,
            bits: truncate_bits(value as u64, width),
        }
    }
}

/// Keeps the low `width` bits.
pub fn truncate_bits(bits: u64, width: u32) -> u64 {
    if width >= 64 {
        bits
    } else {
        bits & ((1u64 << width) - 1)
    }
}

/// Sign-extends the low `width` bits to i64.
pub fn sign_extend(bits: u64, width: u32) -> i64 {
    if width >= 64 {
        bits as i64
    } else {
        let shift = 64 - width;
        ((bits << shift) as i64) >> shift
    }
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Operand {
    Value(ValueId),
    Const(Const),
}

/// Floating-point binary opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FBinOp {
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
}

/// Integer binary opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum IBinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    SMax,
    SMin,
    UMax,
    UMin,
}

/// `fcmp` predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FCmpPred {
    False,
    Oeq,
    Ogt,
    Oge,
    Olt,
    Ole,
    One,
    Ord,
    Ueq,
    Ugt,
    Uge,
    Ult,
    Ule,
    Une,
    Uno,
    True,
}

impl FCmpPred {
    /// An ordering predicate (less/greater, ordered or unordered): the ones whose SSE
    /// mask compare (`cmpltsd`…) signals INVALID on quiet NaNs, unlike equality tests.
    pub fn is_relational(self) -> bool {
        use FCmpPred::*;
        matches!(self, Ogt | Oge | Olt | Ole | Ugt | Uge | Ult | Ule)
    }

    /// The predicate with its operands exchanged (`a < b` is `b > a`).
    pub fn swapped(self) -> FCmpPred {
        use FCmpPred::*;
        match self {
            Ogt => Olt,
            Olt => Ogt,
            Oge => Ole,
            Ole => Oge,
            Ugt => Ult,
            Ult => Ugt,
            Uge => Ule,
            Ule => Uge,
            symmetric => symmetric,
        }
    }

    /// Evaluates the predicate given the IEEE comparison outcome (None = unordered).
    pub fn holds(self, order: Option<std::cmp::Ordering>) -> bool {
        use std::cmp::Ordering::*;
        use FCmpPred::*;
        match (self, order) {
            (False, _) => false,
            (True, _) => true,
            (Ord, o) => o.is_some(),
            (Uno, o) => o.is_none(),
            (Oeq | Ogt | Oge | Olt | Ole | One, None) => false,
            (Ueq | Ugt | Uge | Ult | Ule | Une, None) => true,
            (Oeq | Ueq, Some(o)) => o == Equal,
            (One | Une, Some(o)) => o != Equal,
            (Ogt | Ugt, Some(o)) => o == Greater,
            (Oge | Uge, Some(o)) => o != Less,
            (Olt | Ult, Some(o)) => o == Less,
            (Ole | Ule, Some(o)) => o != Greater,
        }
    }
}

/// `icmp` predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ICmpPred {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

/// Conversion opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CastOp {
    SIToFP,
    UIToFP,
    FPToSI,
    FPToUI,
    FPExt,
    FPTrunc,
    Trunc,
    ZExt,
    SExt,
    BitCast,
    PtrToInt,
    IntToPtr,
}

/// How an `fcmp` is compiled on x86-64 SSE, which decides whether a quiet NaN raises
/// INVALID: branches use `ucomis*` (quiet), selects and vector compares use `cmp*`
/// whose `lt`/`le` predicates signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CmpLowering {
    /// Quiet compare: only signalling NaNs raise INVALID.
    Quiet,
    /// `cmpps`/`cmpsd` with the SSE predicate LLVM picks: ordered/unordered relational
    /// predicates signal on any NaN, equality ones stay quiet.
    Mask,
}

/// Elementary functions, from libm calls or `llvm.*` intrinsics (all evaluated by glibc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum MathFn {
    Sqrt,
    Exp,
    Exp2,
    Log,
    Log2,
    Log10,
    Pow,
    Sin,
    Cos,
    Tan,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Hypot,
    Fmod,
    Asin,
    Acos,
    Expm1,
    Log1p,
    Cbrt,
    Erf,
    Erfc,
    /// `lgamma`: log |Γ(x)| (glibc also sets the global `signgam`, which the program's
    /// own memory does not see).
    Lgamma,
    Tgamma,
    Remainder,
}

impl MathFn {
    pub fn arity(self) -> usize {
        match self {
            MathFn::Pow | MathFn::Atan2 | MathFn::Hypot | MathFn::Fmod | MathFn::Remainder => 2,
            _ => 1,
        }
    }
    /// The C name of the double variant (the float variant appends `f`).
    pub fn c_name(self) -> &'static str {
        match self {
            MathFn::Sqrt => "sqrt",
            MathFn::Exp => "exp",
            MathFn::Exp2 => "exp2",
            MathFn::Log => "log",
            MathFn::Log2 => "log2",
            MathFn::Log10 => "log10",
            MathFn::Pow => "pow",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Atan => "atan",
            MathFn::Atan2 => "atan2",
            MathFn::Sinh => "sinh",
            MathFn::Cosh => "cosh",
            MathFn::Tanh => "tanh",
            MathFn::Hypot => "hypot",
            MathFn::Fmod => "fmod",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Expm1 => "expm1",
            MathFn::Log1p => "log1p",
            MathFn::Cbrt => "cbrt",
            MathFn::Erf => "erf",
            MathFn::Erfc => "erfc",
            MathFn::Lgamma => "lgamma",
            MathFn::Tgamma => "tgamma",
            MathFn::Remainder => "remainder",
        }
    }
    pub const ALL: [MathFn; 27] = [
        MathFn::Sqrt,
        MathFn::Exp,
        MathFn::Exp2,
        MathFn::Log,
        MathFn::Log2,
        MathFn::Log10,
        MathFn::Pow,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Atan,
        MathFn::Atan2,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Tanh,
        MathFn::Hypot,
        MathFn::Fmod,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Expm1,
        MathFn::Log1p,
        MathFn::Cbrt,
        MathFn::Erf,
        MathFn::Erfc,
        MathFn::Lgamma,
        MathFn::Tgamma,
        MathFn::Remainder,
    ];
    /// Looks up a libm symbol (`exp`, `expf`) by name.
    pub fn from_c_name(name: &str) -> Option<(MathFn, FloatTy)> {
        MathFn::ALL.iter().find_map(|&f| {
            let base = f.c_name();
            if name == base {
                Some((f, FloatTy::F64))
            } else if name.len() == base.len() + 1 && name.starts_with(base) && name.ends_with('f')
            {
                Some((f, FloatTy::F32))
            } else {
                None
            }
        })
    }
}

/// libm functions that also return results through pointer arguments. Each takes one
/// or two floats (`remquo`: two) followed by its output pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum OutMathFn {
    /// `double modf(double x, double *ip)`: fractional part; integral part through `ip`.
    Modf,
    /// `double frexp(double x, int *e)`: significand in [1/2, 1); exponent through `e`.
    Frexp,
    /// `double remquo(double x, double y, int *q)`: IEEE remainder; low quotient bits
    /// (with the quotient's sign) through `q`.
    Remquo,
    /// `void sincos(double x, double *s, double *c)`.
    Sincos,
    /// `double lgamma_r(double x, int *sign)`: log |Γ(x)|; Γ's sign through `sign`.
    LgammaR,
}

/// What one output pointer of an [`OutMathFn`] receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum OutSlot {
    /// A float of the function's format.
    Float,
    /// A C `int`.
    I32,
}

impl OutMathFn {
    pub const ALL: [OutMathFn; 5] = [
        OutMathFn::Modf,
        OutMathFn::Frexp,
        OutMathFn::Remquo,
        OutMathFn::Sincos,
        OutMathFn::LgammaR,
    ];
    /// The C name in format `ty` (`modf`, `modff`, `lgamma_r`, `lgammaf_r`).
    pub fn c_name(self, ty: FloatTy) -> &'static str {
        let (d, f) = match self {
            OutMathFn::Modf => ("modf", "modff"),
            OutMathFn::Frexp => ("frexp", "frexpf"),
            OutMathFn::Remquo => ("remquo", "remquof"),
            OutMathFn::Sincos => ("sincos", "sincosf"),
            OutMathFn::LgammaR => ("lgamma_r", "lgammaf_r"),
        };
        match ty {
            FloatTy::F64 => d,
            FloatTy::F32 => f,
        }
    }
    /// Looks up a libm symbol by name.
    pub fn from_c_name(name: &str) -> Option<(OutMathFn, FloatTy)> {
        OutMathFn::ALL.iter().find_map(|&f| {
            [FloatTy::F64, FloatTy::F32]
                .into_iter()
                .find(|&t| f.c_name(t) == name)
                .map(|t| (f, t))
        })
    }
    /// Number of float arguments (before the pointers).
    pub fn arity(self) -> usize {
        match self {
            OutMathFn::Remquo => 2,
            _ => 1,
        }
    }
    /// Whether the function returns a float (all but `sincos`, which returns void).
    pub fn returns_value(self) -> bool {
        self != OutMathFn::Sincos
    }
    /// What each output pointer receives, in parameter order.
    pub fn outputs(self) -> &'static [OutSlot] {
        match self {
            OutMathFn::Modf => &[OutSlot::Float],
            OutMathFn::Sincos => &[OutSlot::Float, OutSlot::Float],
            OutMathFn::Frexp | OutMathFn::Remquo | OutMathFn::LgammaR => &[OutSlot::I32],
        }
    }
}

/// Floating-point operations computed by the processor itself (intrinsics and bit tricks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FUnaryOp {
    /// `llvm.sqrt`: the `sqrtss`/`sqrtsd` instruction, correctly rounded.
    SqrtInsn,
    Fabs,
    Floor,
    Ceil,
    Trunc,
    /// `round`: halfway cases away from zero.
    Round,
    /// `rint`: nearest-even, raises inexact.
    Rint,
    /// `nearbyint`: nearest-even, never raises inexact.
    NearbyInt,
    /// `roundeven`: nearest-even.
    RoundEven,
    /// x86 `rsqrtss` estimate followed by one Newton step, as the backend emits for
    /// `1/sqrtf(x)` under fast-math (hardware-specific estimate, executed natively).
    RsqrtEstimateNewton,
}

/// The classes a value may belong to, as `llvm.is.fpclass` tests them (one bit per class,
/// LLVM's layout: bit 0 signalling NaN … bit 9 positive infinity).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FpClassMask(pub u16);

impl FpClassMask {
    pub const SNAN: u16 = 1 << 0;
    pub const QNAN: u16 = 1 << 1;
    pub const NEG_INF: u16 = 1 << 2;
    pub const NEG_NORMAL: u16 = 1 << 3;
    pub const NEG_SUBNORMAL: u16 = 1 << 4;
    pub const NEG_ZERO: u16 = 1 << 5;
    pub const POS_ZERO: u16 = 1 << 6;
    pub const POS_SUBNORMAL: u16 = 1 << 7;
    pub const POS_NORMAL: u16 = 1 << 8;
    pub const POS_INF: u16 = 1 << 9;
    pub const NAN: u16 = Self::SNAN | Self::QNAN;
    pub const ALL: u16 = (1 << 10) - 1;

    /// The class bit of a value given by its bits (f32 bits in the low 32).
    pub fn class_of(ty: FloatTy, bits: u64) -> u16 {
        let (width, mantissa_bits) = match ty {
            FloatTy::F32 => (32, 23),
            FloatTy::F64 => (64, 52),
        };
        let bits = if width == 32 {
            bits & 0xffff_ffff
        } else {
            bits
        };
        let negative = (bits >> (width - 1)) & 1 == 1;
        let exponent_mask = (1u64 << (width - 1 - mantissa_bits)) - 1;
        let exponent = (bits >> mantissa_bits) & exponent_mask;
        let mantissa = bits & ((1u64 << mantissa_bits) - 1);
        let quiet_bit = 1u64 << (mantissa_bits - 1);
        let (neg, pos) = match (exponent, mantissa) {
            (e, m) if e == exponent_mask && m != 0 => {
                return if m & quiet_bit != 0 {
                    Self::QNAN
                } else {
                    Self::SNAN
                }
            }
            (e, _) if e == exponent_mask => (Self::NEG_INF, Self::POS_INF),
            (0, 0) => (Self::NEG_ZERO, Self::POS_ZERO),
            (0, _) => (Self::NEG_SUBNORMAL, Self::POS_SUBNORMAL),
            _ => (Self::NEG_NORMAL, Self::POS_NORMAL),
        };
        if negative {
            neg
        } else {
            pos
        }
    }

    /// Whether a value given by its bits is in one of the mask's classes.
    pub fn holds(self, ty: FloatTy, bits: u64) -> bool {
        self.0 & Self::class_of(ty, bits) != 0
    }

    /// Whether the mask has any of the classes `classes`.
    pub fn any(self, classes: u16) -> bool {
        self.0 & classes != 0
    }
}

/// Two-operand processor floating-point operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FBinaryOp {
    /// `llvm.minnum`: NaN-avoiding minimum (lowered with `minsd` + NaN fix-up).
    MinNum,
    MaxNum,
    /// `minsd`/`maxsd` from `select (fcmp olt a b) a b` patterns: returns the second
    /// operand when either is NaN or both are zero; signals on any NaN.
    MinSse,
    MaxSse,
    CopySign,
}

/// Reductions over a vector's lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ReduceOp {
    FAdd,
    FMul,
    FMin,
    FMax,
}

/// A dynamic GEP index: sign-extended from `width` bits, times `scale` bytes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GepIndex {
    pub index: Operand,
    pub width: u32,
    pub scale: i64,
}

/// What a call instruction calls.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Callee {
    Function(FuncId),
    Math(MathFn),
}

/// One instruction; `dest` is None for instructions without a result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inst {
    pub dest: Option<ValueId>,
    pub kind: InstKind,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum InstKind {
    FBin {
        op: FBinOp,
        ty: Type,
        a: Operand,
        b: Operand,
        site: FpOpId,
    },
    FNeg {
        ty: Type,
        a: Operand,
    },
    FCmp {
        pred: FCmpPred,
        ty: Type,
        a: Operand,
        b: Operand,
        lowering: CmpLowering,
        site: FpOpId,
    },
    IBin {
        op: IBinOp,
        ty: Type,
        a: Operand,
        b: Operand,
    },
    ICmp {
        pred: ICmpPred,
        ty: Type,
        a: Operand,
        b: Operand,
    },
    /// `llvm.abs` on integers (wrapping at the minimum value).
    IAbs {
        ty: Type,
        a: Operand,
    },
    Cast {
        op: CastOp,
        from: Type,
        to: Type,
        a: Operand,
        site: Option<FpOpId>,
    },
    /// `select cond, a, b`; `cond` is i1 or a vector of i1.
    Select {
        ty: Type,
        cond: Operand,
        a: Operand,
        b: Operand,
    },
    FUnary {
        op: FUnaryOp,
        ty: Type,
        a: Operand,
        site: FpOpId,
    },
    FBinary {
        op: FBinaryOp,
        ty: Type,
        a: Operand,
        b: Operand,
        site: FpOpId,
    },
    /// `llvm.is.fpclass` where x86 tests the bits with integer instructions: an i1 (a vector
    /// of i1 for vectors) that never raises a flag and ignores DAZ. The masks the backend
    /// tests with a compare instead (`isnan`'s `ucomisd x, x`) are lowered to `FCmp`.
    FClass {
        ty: Type,
        a: Operand,
        mask: FpClassMask,
        site: FpOpId,
    },
    /// `llvm.fma` (single rounding) or `llvm.fmuladd` with `fused` chosen by the target:
    /// x86-64 without FMA lowers fmuladd to a multiply then an add.
    Fma {
        ty: Type,
        a: Operand,
        b: Operand,
        c: Operand,
        fused: bool,
        site: FpOpId,
    },
    /// Elementary function evaluated by glibc.
    Math {
        func: MathFn,
        ty: Type,
        args: Vec<Operand>,
        site: FpOpId,
    },
    /// A libm function that also writes through pointers ([`OutMathFn`]), evaluated by
    /// glibc: `args` are its floats, `outs` its output pointers (parameter order); `dest`
    /// receives the returned value (none for `sincos`). Its flags are charged to `site`.
    MathOut {
        func: OutMathFn,
        ty: Type,
        args: Vec<Operand>,
        outs: Vec<Operand>,
        site: FpOpId,
    },
    /// `llvm.vector.reduce.*`: `start` is the scalar accumulator of fadd/fmul; `ordered`
    /// reductions go lane by lane, reassociable ones as the backend's halving tree.
    Reduce {
        op: ReduceOp,
        ty: Type,
        start: Option<Operand>,
        v: Operand,
        ordered: bool,
        site: FpOpId,
    },
    Call {
        callee: FuncId,
        args: Vec<Operand>,
        ret: Type,
    },
    /// A call through a function pointer (`handler(...)`, `f->function(x, f->params)`):
    /// the walk resolves it to a function of the module, or fails there.
    CallIndirect {
        callee: Operand,
        args: Vec<Operand>,
        ret: Type,
    },
    Alloca {
        size: u64,
    },
    Load {
        ty: Type,
        ptr: Operand,
    },
    Store {
        ty: Type,
        value: Operand,
        ptr: Operand,
    },
    /// `base + const_offset + Σ index_i · scale_i` in bytes.
    Gep {
        base: Operand,
        const_offset: i64,
        indices: Vec<GepIndex>,
    },
    Memcpy {
        dst: Operand,
        src: Operand,
        len: Operand,
    },
    Memset {
        dst: Operand,
        byte: Operand,
        len: Operand,
    },
    /// `malloc`, `calloc`, `realloc` or `free` on the walker's memory; `args` as the C
    /// function takes them (sizes as i64, pointers as ptr).
    Heap {
        op: HeapOp,
        args: Vec<Operand>,
    },
    ExtractElement {
        ty: Type,
        v: Operand,
        index: Operand,
    },
    InsertElement {
        ty: Type,
        v: Operand,
        elt: Operand,
        index: Operand,
    },
    /// Lane `i` of the result is lane `mask[i]` of `a ++ b` (None = undefined lane).
    Shuffle {
        ty: Type,
        a: Operand,
        b: Operand,
        mask: Vec<Option<u32>>,
    },
    /// A phi; its incoming edges are listed in `Block::phis`, not here.
    Phi {
        ty: Type,
    },
    /// Instruction without effect on values (`llvm.dbg.*`, lifetime markers, assumes).
    Nop,
    /// A call to a function outside the module that is not libm (output, program ends,
    /// other native functions).
    External(Box<ExternalCall>),
    /// A construct that cannot run: an error when (and only when) it is reached.
    Unsupported {
        reason: String,
    },
}

impl InstKind {
    /// Every operand the instruction reads, in field order.
    pub fn operands(&self) -> Vec<&Operand> {
        use InstKind::*;
        match self {
            FBin { a, b, .. }
            | FCmp { a, b, .. }
            | IBin { a, b, .. }
            | ICmp { a, b, .. }
            | FBinary { a, b, .. }
            | Shuffle { a, b, .. } => vec![a, b],
            FNeg { a, .. }
            | IAbs { a, .. }
            | Cast { a, .. }
            | FUnary { a, .. }
            | FClass { a, .. } => vec![a],
            Select { cond, a, b, .. } => vec![cond, a, b],
            Fma { a, b, c, .. } => vec![a, b, c],
            Math { args, .. } | Call { args, .. } => args.iter().collect(),
            CallIndirect { callee, args, .. } => std::iter::once(callee).chain(args).collect(),
            MathOut { args, outs, .. } => args.iter().chain(outs).collect(),
            Reduce { start, v, .. } => start.iter().chain(std::iter::once(v)).collect(),
            Load { ptr, .. } => vec![ptr],
            Store { value, ptr, .. } => vec![value, ptr],
            Gep { base, indices, .. } => std::iter::once(base)
                .chain(indices.iter().map(|g| &g.index))
                .collect(),
            Memcpy { dst, src, len } => vec![dst, src, len],
            Memset { dst, byte, len } => vec![dst, byte, len],
            Heap { args, .. } => args.iter().collect(),
            ExtractElement { v, index, .. } => vec![v, index],
            InsertElement { v, elt, index, .. } => vec![v, elt, index],
            External(call) => call.args.iter().collect(),
            Alloca { .. } | Phi { .. } | Nop | Unsupported { .. } => vec![],
        }
    }
}

/// A call to a function defined outside the module.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExternalCall {
    /// The symbol called.
    pub name: String,
    pub kind: ExternalKind,
    pub args: Vec<Operand>,
    pub arg_tys: Vec<Type>,
    pub ret: Type,
    /// Whether anything reads the returned value.
    pub result_used: bool,
    /// Declared with `...`.
    pub variadic: bool,
    /// For native calls that take or return floats: the operation id the flags raised
    /// inside are charged to.
    pub site: Option<FpOpId>,
    pub loc: Option<SourceLoc>,
}

/// What fpscout does with an external call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ExternalKind {
    /// Writes output (the `printf` family): run for its return value, output discarded.
    Output(OutputFn),
    /// Ends the program (`exit`, `abort`, a failed `assert`): ends the path with an event.
    End(EndFn),
    /// Sets or reads the rounding direction (`fesetround`, `fegetround`): state of the
    /// walk that every domain keeps, not native code.
    Rounding(RoundingFn),
    /// `nan(tag)`, `nanf(tag)`: a quiet NaN whose payload glibc reads from the string.
    NanFromTag(FloatTy),
    /// Any other function: called natively when its symbol can be found at run time and
    /// its arguments are numbers.
    Native,
}

/// Output functions, whose effect on the analysed program is only their return value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum OutputFn {
    /// `printf`, `fprintf`, `vprintf`...: returns the number of characters written.
    Formatted,
    /// `puts`: returns a non-negative number (glibc: length + 1).
    Puts,
    /// `fputs`: returns a non-negative number (glibc: 1).
    Fputs,
    /// `putchar`, `fputc`, `putc`: returns the character written.
    Putchar,
    /// `fflush`, `perror`: return 0 / nothing.
    Flush,
    /// `fwrite(ptr, size, n, stream)`: returns `n`.
    Fwrite,
}

impl OutputFn {
    /// Classifies a C symbol; the index of the `int` character argument for `Putchar`.
    pub fn from_c_name(name: &str) -> Option<OutputFn> {
        Some(match name {
            "printf" | "fprintf" | "vprintf" | "vfprintf" | "__printf_chk" | "__fprintf_chk"
            | "__vfprintf_chk" | "__vprintf_chk" => OutputFn::Formatted,
            "puts" => OutputFn::Puts,
            "fputs" | "fputs_unlocked" => OutputFn::Fputs,
            "putchar" | "fputc" | "putc" | "putchar_unlocked" | "fputc_unlocked"
            | "putc_unlocked" => OutputFn::Putchar,
            "fflush" | "perror" | "fflush_unlocked" => OutputFn::Flush,
            "fwrite" | "fwrite_unlocked" => OutputFn::Fwrite,
            _ => return None,
        })
    }
}

/// The C heap functions the walker models on its own memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum HeapOp {
    /// `malloc(size)`: uninitialised cells.
    Malloc,
    /// `calloc(count, size)`: zeroed cells.
    Calloc,
    /// `realloc(ptr, size)`: a new object with the old contents up to the smaller size.
    Realloc,
    /// `free(ptr)`.
    Free,
}

impl HeapOp {
    pub fn from_c_name(name: &str) -> Option<HeapOp> {
        Some(match name {
            "malloc" => HeapOp::Malloc,
            "calloc" => HeapOp::Calloc,
            "realloc" => HeapOp::Realloc,
            "free" => HeapOp::Free,
            _ => return None,
        })
    }

    pub fn c_name(self) -> &'static str {
        match self {
            HeapOp::Malloc => "malloc",
            HeapOp::Calloc => "calloc",
            HeapOp::Realloc => "realloc",
            HeapOp::Free => "free",
        }
    }

    /// The C signature: parameter types and result type.
    pub fn signature(self) -> (&'static [Type], Type) {
        const SIZE: Type = Type::Scalar(ScalarTy::Int(64));
        match self {
            HeapOp::Malloc => (&[SIZE], Type::PTR),
            HeapOp::Calloc => (&[SIZE, SIZE], Type::PTR),
            HeapOp::Realloc => (&[Type::PTR, SIZE], Type::PTR),
            HeapOp::Free => (&[Type::PTR], Type::Void),
        }
    }
}

/// Functions that end the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum EndFn {
    /// `exit`, `_Exit`, `_exit`, `quick_exit`: the first argument is the status.
    Exit,
    Abort,
    /// glibc's `__assert_fail(assertion, file, line, function)`.
    AssertFail,
}

impl EndFn {
    pub fn from_c_name(name: &str) -> Option<EndFn> {
        Some(match name {
            "exit" | "_Exit" | "_exit" | "quick_exit" => EndFn::Exit,
            "abort" => EndFn::Abort,
            "__assert_fail" | "__assert_perror_fail" => EndFn::AssertFail,
            _ => return None,
        })
    }
}

/// The `<fenv.h>` functions of the rounding direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RoundingFn {
    /// `int fesetround(int)`: 0 when the direction is one of the four, else nonzero and
    /// nothing changes.
    Set,
    /// `int fegetround(void)`.
    Get,
}

/// The NaN-making function `name` is, with its result type (`nan`, `nanf`).
pub fn nan_from_tag(name: &str) -> Option<FloatTy> {
    match name {
        "nan" => Some(FloatTy::F64),
        "nanf" => Some(FloatTy::F32),
        _ => None,
    }
}

impl RoundingFn {
    pub fn from_c_name(name: &str) -> Option<RoundingFn> {
        Some(match name {
            "fesetround" => RoundingFn::Set,
            "fegetround" => RoundingFn::Get,
            _ => return None,
        })
    }
}

/// An IEEE rounding direction, as `fesetround` selects it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum RoundingDirection {
    #[default]
    ToNearest,
    Downward,
    Upward,
    TowardZero,
}

impl RoundingDirection {
    /// The direction of a `FE_*` value of x86-64 glibc's `<fenv.h>` (the x87 control
    /// word's rounding bits); `None` for any other value, which `fesetround` refuses.
    pub fn from_fenv(value: u32) -> Option<RoundingDirection> {
        Some(match value {
            0 => RoundingDirection::ToNearest,
            0x400 => RoundingDirection::Downward,
            0x800 => RoundingDirection::Upward,
            0xc00 => RoundingDirection::TowardZero,
            _ => return None,
        })
    }

    /// The `FE_*` value `fegetround` returns.
    pub fn fenv_value(self) -> u32 {
        match self {
            RoundingDirection::ToNearest => 0,
            RoundingDirection::Downward => 0x400,
            RoundingDirection::Upward => 0x800,
            RoundingDirection::TowardZero => 0xc00,
        }
    }
}

impl fmt::Display for RoundingDirection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RoundingDirection::ToNearest => "to nearest",
            RoundingDirection::Downward => "downward",
            RoundingDirection::Upward => "upward",
            RoundingDirection::TowardZero => "toward zero",
        })
    }
}

/// How a function ended the whole program instead of returning.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ProgramEnd {
    Exit {
        status: i32,
    },
    Abort,
    /// A failed `assert`: its expression as written.
    AssertFail {
        message: String,
    },
}

impl fmt::Display for ProgramEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgramEnd::Exit { status } => write!(f, "exits with status {status}"),
            ProgramEnd::Abort => write!(f, "aborts"),
            ProgramEnd::AssertFail { message } => write!(f, "fails assertion `{message}`"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Terminator {
    Br(BlockId),
    CondBr {
        cond: Operand,
        then_: BlockId,
        else_: BlockId,
    },
    Switch {
        ty: Type,
        value: Operand,
        default: BlockId,
        cases: Vec<(u64, BlockId)>,
    },
    Ret(Option<Operand>),
    Unreachable,
}

/// A phi node: on entry from `from`, `dest` takes the paired operand.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Phi {
    pub dest: ValueId,
    pub ty: Type,
    pub incoming: Vec<(BlockId, Operand)>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Block {
    pub phis: Vec<Phi>,
    pub insts: Vec<Inst>,
    pub term: Terminator,
    /// Source line of the terminator, for messages.
    pub term_loc: Option<SourceLoc>,
}

/// A parameter and how a caller passes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    /// For pointer parameters, the element type inferred from how the body uses it.
    pub pointee: Option<ScalarTy>,
    /// For pointer parameters, how many elements of `pointee` the body reaches at
    /// constant indices (`out[15] = …` needs 16); 0 when unknown. A buffer shorter than
    /// this makes every run read or write past it.
    pub min_elements: u64,
    /// Integer parameter declared unsigned in C (from `zeroext`).
    pub unsigned: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Function {
    pub name: String,
    /// Name as written in the source (demangled for C++).
    pub display_name: String,
    pub params: Vec<Param>,
    pub ret: Type,
    pub blocks: Vec<Block>,
    /// Number of SSA values (parameters are values 0..params.len()).
    pub num_values: u32,
    /// Whether the symbol is visible to other translation units.
    pub external: bool,
    pub loc: Option<SourceLoc>,
    /// Why this function could not be lowered (it then has no blocks); reported only when
    /// the function is requested or called, so one exotic function does not block a file.
    pub unsupported: Option<String>,
}

impl Function {
    /// Why each instruction that cannot run fails (the walks that reach it), in order.
    pub fn unsupported_reasons(&self) -> Vec<&str> {
        self.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| match &i.kind {
                InstKind::Unsupported { reason } => Some(reason.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// Initial contents of a global variable: scalar cells at byte offsets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Global {
    pub name: String,
    pub size: u64,
    pub cells: Vec<(u64, ScalarTy, Const)>,
    pub constant: bool,
    /// Why the initializer could not be lowered (then `cells` is empty).
    pub unmodelled: Option<String>,
}

/// What one floating-point operation is, for reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FpOpInfo {
    pub func: FuncId,
    /// IR opcode or intrinsic name (`fadd`, `fdiv`, `llvm.sqrt`, `exp`, `fptosi`).
    pub opcode: String,
    pub ty: Type,
    pub fmf: FastMath,
    pub loc: Option<SourceLoc>,
}

/// A function whose machine code LLVM's backend rewrote after instruction selection
/// (MachineCombiner reassociation of `reassoc` chains, commutable min/max whose operand
/// order register allocation picks), and whether the IR was rewritten to match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BackendRewrite {
    /// The function's symbol.
    pub function: String,
    /// Source locations (`file:line:col`) of the rewritten instructions.
    pub locations: Vec<String>,
    /// `None` when the lowered function computes what the machine code computes; else why
    /// it could not be modelled (its values may then differ in the last bits).
    pub unmodelled: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Module {
    pub functions: Vec<Function>,
    pub globals: Vec<Global>,
    pub fp_ops: Vec<FpOpInfo>,
    /// Where the module came from (source or IR file), for messages.
    pub origin: String,
    /// What the backend rewrote after instruction selection (optimised builds only).
    pub backend_rewrites: Vec<BackendRewrite>,
    /// A function every walk runs first, its memory then the walk's starting state
    /// (`--setup-call`).
    pub setup: Option<FuncId>,
}

impl Module {
    /// The functions whose address the module takes (`Const::FuncAddr` in a global's
    /// initializer, an operand, a phi or a return), each once, in id order.
    pub fn address_taken(&self) -> Vec<FuncId> {
        fn visit(c: &Const, out: &mut Vec<FuncId>) {
            match c {
                Const::FuncAddr(f) => out.push(*f),
                Const::Vector(lanes) => lanes.iter().for_each(|l| visit(l, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        let operand = |o: &Operand, out: &mut Vec<FuncId>| {
            if let Operand::Const(c) = o {
                visit(c, out);
            }
        };
        for g in &self.globals {
            for (_, _, c) in &g.cells {
                visit(c, &mut out);
            }
        }
        for f in &self.functions {
            for b in &f.blocks {
                for phi in &b.phis {
                    for (_, o) in &phi.incoming {
                        operand(o, &mut out);
                    }
                }
                for inst in &b.insts {
                    for o in inst.kind.operands() {
                        operand(o, &mut out);
                    }
                }
                if let Terminator::Ret(Some(o)) = &b.term {
                    operand(o, &mut out);
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.0 as usize]
    }
    pub fn op(&self, id: FpOpId) -> &FpOpInfo {
        &self.fp_ops[id.0 as usize]
    }
    /// Finds a function by symbol or source name.
    pub fn find_function(&self, name: &str) -> Option<FuncId> {
        let pos = self
            .functions
            .iter()
            .position(|f| f.name == name)
            .or_else(|| {
                self.functions.iter().position(|f| {
                    f.display_name == name
                        || f.display_name
                            .split('(')
                            .next()
                            .is_some_and(|base| base == name)
                })
            })?;
        Some(FuncId(pos as u32))
    }
}

/// The floating-point exceptions fpscout reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExceptionKind {
    Invalid,
    DivByZero,
    Overflow,
    Underflow,
    Inexact,
}

impl ExceptionKind {
    pub const ALL: [ExceptionKind; 5] = [
        ExceptionKind::Invalid,
        ExceptionKind::DivByZero,
        ExceptionKind::Overflow,
        ExceptionKind::Underflow,
        ExceptionKind::Inexact,
    ];
    pub fn name(self) -> &'static str {
        match self {
            ExceptionKind::Invalid => "invalid",
            ExceptionKind::DivByZero => "divbyzero",
            ExceptionKind::Overflow => "overflow",
            ExceptionKind::Underflow => "underflow",
            ExceptionKind::Inexact => "inexact",
        }
    }
    /// Bit in an [`ExceptionSet`], matching the x86 MXCSR flag layout.
    pub fn mxcsr_bit(self) -> u8 {
        match self {
            ExceptionKind::Invalid => 0x01,
            ExceptionKind::DivByZero => 0x04,
            ExceptionKind::Overflow => 0x08,
            ExceptionKind::Underflow => 0x10,
            ExceptionKind::Inexact => 0x20,
        }
    }
}

impl fmt::Display for ExceptionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of exception flags, stored in MXCSR bit positions (denormal-operand excluded).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct ExceptionSet(pub u8);

impl FromIterator<ExceptionKind> for ExceptionSet {
    fn from_iter<I: IntoIterator<Item = ExceptionKind>>(kinds: I) -> ExceptionSet {
        let mut set = ExceptionSet::default();
        for k in kinds {
            set.insert(k);
        }
        set
    }
}

impl ExceptionSet {
    pub const EMPTY: ExceptionSet = ExceptionSet(0);
    /// Keeps the five IEEE flags of an MXCSR value.
    pub fn from_mxcsr(mxcsr: u32) -> ExceptionSet {
        ExceptionSet((mxcsr & 0x3d) as u8)
    }
    pub fn contains(self, k: ExceptionKind) -> bool {
        self.0 & k.mxcsr_bit() != 0
    }
    pub fn insert(&mut self, k: ExceptionKind) {
        self.0 |= k.mxcsr_bit();
    }
    pub fn union(self, other: ExceptionSet) -> ExceptionSet {
        ExceptionSet(self.0 | other.0)
    }
    pub fn without_inexact(self) -> ExceptionSet {
        ExceptionSet(self.0 & !ExceptionKind::Inexact.mxcsr_bit())
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn iter(self) -> impl Iterator<Item = ExceptionKind> {
        ExceptionKind::ALL
            .into_iter()
            .filter(move |k| self.contains(*k))
    }
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(ExceptionKind::name).collect()
    }
}

impl fmt::Display for ExceptionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        f.write_str(&self.names().join(","))
    }
}

impl Operand {
    pub fn value(&self) -> Option<ValueId> {
        match self {
            Operand::Value(v) => Some(*v),
            Operand::Const(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn fcmp_predicates_follow_ieee_ordering() {
        assert!(FCmpPred::Olt.holds(Some(Ordering::Less)));
        assert!(!FCmpPred::Olt.holds(None));
        assert!(FCmpPred::Ult.holds(None));
        assert!(FCmpPred::Une.holds(None));
        assert!(!FCmpPred::Oeq.holds(None));
        assert!(FCmpPred::Oge.holds(Some(Ordering::Equal)));
        assert!(!FCmpPred::One.holds(Some(Ordering::Equal)));
        assert!(FCmpPred::Uno.holds(None));
        assert!(!FCmpPred::Ord.holds(None));
    }

    #[test]
    fn libm_names_map_to_both_precisions() {
        assert_eq!(
            MathFn::from_c_name("exp"),
            Some((MathFn::Exp, FloatTy::F64))
        );
        assert_eq!(
            MathFn::from_c_name("expf"),
            Some((MathFn::Exp, FloatTy::F32))
        );
        assert_eq!(
            MathFn::from_c_name("exp2f"),
            Some((MathFn::Exp2, FloatTy::F32))
        );
        assert_eq!(MathFn::from_c_name("expl"), None);
        assert_eq!(
            MathFn::from_c_name("fmodf"),
            Some((MathFn::Fmod, FloatTy::F32))
        );
    }

    #[test]
    fn output_pointer_libm_names() {
        assert_eq!(
            OutMathFn::from_c_name("modff"),
            Some((OutMathFn::Modf, FloatTy::F32))
        );
        assert_eq!(
            OutMathFn::from_c_name("lgamma_r"),
            Some((OutMathFn::LgammaR, FloatTy::F64))
        );
        assert_eq!(
            OutMathFn::from_c_name("lgammaf_r"),
            Some((OutMathFn::LgammaR, FloatTy::F32))
        );
        assert_eq!(OutMathFn::from_c_name("sincosl"), None);
        assert_eq!(OutMathFn::from_c_name("lgamma"), None);
        assert!(!OutMathFn::Sincos.returns_value());
    }

    #[test]
    fn integer_bit_helpers() {
        assert_eq!(truncate_bits(0x1ff, 8), 0xff);
        assert_eq!(sign_extend(0xff, 8), -1);
        assert_eq!(sign_extend(0x7f, 8), 127);
        assert_eq!(
            Const::int(32, -1),
            Const::Int {
                width: 32,
                bits: 0xffff_ffff
            }
        );
    }

    #[test]
    fn exception_set_uses_mxcsr_layout() {
        let s = ExceptionSet::from_mxcsr(0x1f80 | 0x08 | 0x20 | 0x02);
        assert_eq!(s.names(), vec!["overflow", "inexact"]);
        assert_eq!(s.without_inexact().names(), vec!["overflow"]);
    }
}
