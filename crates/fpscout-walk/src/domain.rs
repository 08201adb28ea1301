//! The value-domain trait the walker is generic over, with operations named after IR opcodes.
//!
//! A domain decides what a scalar is (IEEE bits, a Z3 term, an MPFR shadow pair, a float
//! interval) and how each operation transforms it. Floating-point exceptions are *events*
//! the domain records (reported as `Ok`); an operation the domain cannot model is an `Err`.
//! Every floating-point operation receives the [`OpSite`] it comes from, so events and
//! formulas can name the IR instruction and vector lane.

use crate::WalkError;
use fpscout_ir::{
    CastOp, CmpLowering, ExternalCall, FBinOp, FBinaryOp, FCmpPred, FUnaryOp, FloatTy, FpClassMask,
    FpOpId, IBinOp, ICmpPred, MathFn, OutMathFn, RoundingDirection, ScalarTy,
};

/// Where a floating-point operation happens: the IR op and, for vectors, the lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpSite {
    pub op: FpOpId,
    pub lane: u32,
}

/// Outcome of asking a domain which way a conditional branch goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Known(bool),
    /// Both directions are feasible: a path-exploring walker forks.
    Both,
}

pub type DResult<T> = Result<T, WalkError>;

/// A value domain: one lane's worth of value is a `Scalar`.
///
/// Integer and float scalars share one type; the walker always passes the IR type along.
/// Booleans are `Int(1)` scalars.
pub trait Domain {
    type Scalar: Clone + std::fmt::Debug;
    /// Per-path state (a path condition) saved at forks and restored to resume a path.
    type Snapshot: Clone;

    fn snapshot(&self) -> Self::Snapshot;
    fn restore(&mut self, snapshot: Self::Snapshot);

    /// Called when a walk starts and ends (the concrete domain loads its MXCSR once per
    /// walk instead of once per operation).
    fn begin_walk(&mut self) {}
    fn end_walk(&mut self) {}

    /// A constant given by its bits (f32 bits in the low 32).
    fn constant(&self, ty: ScalarTy, bits: u64) -> Self::Scalar;
    /// The bits of a scalar when they are known exactly.
    fn concrete_bits(&self, v: &Self::Scalar) -> Option<u64>;
    /// Pins a scalar to one concrete value (for addresses, indices, switch values);
    /// symbolic domains may add the pinning to their path condition.
    fn concretize(&mut self, v: &Self::Scalar, ty: ScalarTy) -> DResult<u64>;

    /// `fadd`, `fsub`, `fmul`, `fdiv`, `frem`.
    fn fbin(
        &mut self,
        op: FBinOp,
        ty: FloatTy,
        a: &Self::Scalar,
        b: &Self::Scalar,
        site: OpSite,
    ) -> DResult<Self::Scalar>;
    /// `fneg`: a sign flip, never an exception.
    fn fneg(&mut self, ty: FloatTy, a: &Self::Scalar) -> DResult<Self::Scalar>;
    /// `fcmp`: an i1 result; `lowering` says which x86 compare raises the flags.
    #[allow(clippy::too_many_arguments)]
    fn fcmp(
        &mut self,
        pred: FCmpPred,
        lowering: CmpLowering,
        ty: FloatTy,
        a: &Self::Scalar,
        b: &Self::Scalar,
        site: OpSite,
    ) -> DResult<Self::Scalar>;
    /// One-operand floating intrinsics (`llvm.sqrt`, `llvm.fabs`, `llvm.floor`, …).
    fn funary(
        &mut self,
        op: FUnaryOp,
        ty: FloatTy,
        a: &Self::Scalar,
        site: OpSite,
    ) -> DResult<Self::Scalar>;
    /// `llvm.is.fpclass` tested on the bits (an i1): never raises a flag, never sees DAZ.
    fn fclass(
        &mut self,
        mask: FpClassMask,
        ty: FloatTy,
        a: &Self::Scalar,
        site: OpSite,
    ) -> DResult<Self::Scalar>;
    /// Two-operand floating intrinsics (`llvm.minnum`, `llvm.copysign`, SSE min/max).
    fn fbinary(
        &mut self,
        op: FBinaryOp,
        ty: FloatTy,
        a: &Self::Scalar,
        b: &Self::Scalar,
        site: OpSite,
    ) -> DResult<Self::Scalar>;
    /// `llvm.fma`: a·b + c with one rounding (unfused `fmuladd` is walked as fmul, fadd).
    fn fma(
        &mut self,
        ty: FloatTy,
        a: &Self::Scalar,
        b: &Self::Scalar,
        c: &Self::Scalar,
        site: OpSite,
    ) -> DResult<Self::Scalar>;
    /// An elementary function as glibc computes it.
    fn math(
        &mut self,
        func: MathFn,
        ty: FloatTy,
        args: &[Self::Scalar],
        site: OpSite,
    ) -> DResult<Self::Scalar>;
    /// A libm function with output pointers as glibc computes it: the returned value
    /// (None for `sincos`), then the values to store through its pointers, one per
    /// [`OutMathFn::outputs`] (floats of `ty`, `i32` for C `int`s; None where the function
    /// leaves its output alone). The walker stores them.
    #[allow(clippy::type_complexity)]
    fn math_out(
        &mut self,
        func: OutMathFn,
        ty: FloatTy,
        args: &[Self::Scalar],
        site: OpSite,
    ) -> DResult<(Option<Self::Scalar>, Vec<Option<Self::Scalar>>)> {
        let _ = (args, site);
        Err(WalkError::unsupported(format!(
            "libm function '{}' (output pointers) in this domain",
            func.c_name(ty)
        )))
    }
    /// Conversions involving a float: `sitofp`, `uitofp`, `fptosi`, `fptoui`, `fpext`,
    /// `fptrunc`.
    fn fcast(
        &mut self,
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        a: &Self::Scalar,
        site: OpSite,
    ) -> DResult<Self::Scalar>;
    /// Integer conversions and same-size `bitcast` (int ↔ float reinterpretation).
    fn icast(
        &mut self,
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        a: &Self::Scalar,
    ) -> DResult<Self::Scalar>;
    /// Integer arithmetic; division by zero is `Err(WalkError::Trap)` as it traps natively.
    fn ibin(
        &mut self,
        op: IBinOp,
        width: u32,
        a: &Self::Scalar,
        b: &Self::Scalar,
    ) -> DResult<Self::Scalar>;
    fn icmp(
        &mut self,
        pred: ICmpPred,
        width: u32,
        a: &Self::Scalar,
        b: &Self::Scalar,
    ) -> DResult<Self::Scalar>;
    /// `llvm.abs`.
    fn iabs(&mut self, width: u32, a: &Self::Scalar) -> DResult<Self::Scalar>;
    /// `select` on one lane.
    fn select(
        &mut self,
        cond: &Self::Scalar,
        a: &Self::Scalar,
        b: &Self::Scalar,
    ) -> DResult<Self::Scalar>;
    /// `select` of two floats of type `ty` on one lane (a domain that can combine
    /// integers but not floats says so, and the exploring walk forks instead).
    fn select_float(
        &mut self,
        _ty: FloatTy,
        cond: &Self::Scalar,
        a: &Self::Scalar,
        b: &Self::Scalar,
    ) -> DResult<Self::Scalar> {
        self.select(cond, a, b)
    }
    /// Which way a branch on an i1 goes.
    fn decide(&mut self, cond: &Self::Scalar) -> DResult<Decision>;

    /// Calls `call.name`, a native function outside the module, on numbers; `None` for a
    /// void function. The flags it raises are charged to `site`.
    fn native_call(
        &mut self,
        call: &ExternalCall,
        args: &[Self::Scalar],
        site: Option<OpSite>,
    ) -> DResult<Option<Self::Scalar>> {
        let _ = (args, site);
        Err(WalkError::unsupported(format!(
            "call to external function '{}' (this analysis does not call native code)",
            call.name
        )))
    }
    /// `nan(tag)` of type `ty`: glibc's NaN for the tag's bytes (`None` when the walk
    /// cannot read them: then only a domain that needs no payload has a value).
    fn nan_from_tag(&mut self, ty: FloatTy, tag: Option<&[u8]>) -> DResult<Self::Scalar> {
        let tag = tag.ok_or_else(|| {
            WalkError::unsupported("nan() of a string the walk cannot read (its payload)")
        })?;
        Ok(self.constant(ScalarTy::Float(ty), glibc_nan(ty, tag)))
    }
    /// Rounds the operations that follow in `direction` (`fesetround`; a walk starts to
    /// nearest). Domains that only round to nearest refuse the others.
    fn set_rounding(&mut self, direction: RoundingDirection) -> DResult<()> {
        if direction == RoundingDirection::ToNearest {
            Ok(())
        } else {
            Err(WalkError::unsupported(format!(
                "rounding {direction} (fesetround) in this domain, which rounds to nearest"
            )))
        }
    }
    /// The rounding direction in force (`fegetround`).
    fn rounding(&self) -> RoundingDirection {
        RoundingDirection::ToNearest
    }
    /// The values a symbolic integer may take on this path when there are at most
    /// `limit` of them, with its width: an exploring walk then forks one path per value
    /// where an operation needs the integer known (`octant & 1` of an octant converted
    /// from a float). `None`: known, unbounded here, or more values than `limit`.
    fn few_values(&mut self, v: &Self::Scalar, limit: u64) -> DResult<Option<(u32, Vec<u64>)>> {
        let _ = (v, limit);
        Ok(None)
    }
    /// Commits to one direction of a branch (after `Decision::Both`); returns whether the
    /// direction is still feasible.
    fn assume(&mut self, cond: &Self::Scalar, taken: bool) -> DResult<bool> {
        let _ = (cond, taken);
        Ok(true)
    }
}

/// The bits of glibc's `nan(tag)` (or `nanf`), from the library itself: the payload is
/// the tag read as an unsigned number when it is one, as glibc decides.
pub fn glibc_nan(ty: FloatTy, tag: &[u8]) -> u64 {
    extern "C" {
        fn nan(tag: *const std::ffi::c_char) -> f64;
        fn nanf(tag: *const std::ffi::c_char) -> f32;
    }
    let tag = std::ffi::CString::new(tag.to_vec()).unwrap_or_default();
    // SAFETY: glibc reads the NUL-terminated string and nothing else.
    unsafe {
        match ty {
            FloatTy::F64 => nan(tag.as_ptr()).to_bits(),
            FloatTy::F32 => u64::from(nanf(tag.as_ptr()).to_bits()),
        }
    }
}
