//! The MPFR shadow domain: every float carries the bits the processor computes and a high-precision value computed beside it, and the walk follows the floats' control flow.
//!
//! The float side runs through an embedded [`Concrete`] domain, so its bits and flags are
//! the ones native code produces. The shadow side redoes each operation with MPFR at a
//! configurable precision (FPGen's "higher-precision run"): the error of a result is its
//! distance to the shadow value. Branches, selects, addresses and integer conversions
//! follow the float side (the shadow cannot choose a path the program did not take); a
//! comparison whose outcome differs on the shadow is recorded as a [`Divergence`]. Each
//! `fadd`/`fsub` records the exponents of its operands and result ([`AddSubRecord`]) for
//! FPGen's precision-loss and cancellation targets. An operation named in
//! [`Shadow::exact_ops`] gets the shadow value rounded as its float result: the program
//! with that one operation computed exactly, which is how a diagnosis measures what the
//! operation contributed to the final error.

use crate::concrete::{ArgBits, Concrete, FpMode};
use crate::domain::{DResult, Decision, Domain, OpSite};
use crate::walker::{Outcome, Val, WalkConfig, Walker};
use crate::{Ptr, WalkError};
use fpscout_ir::{
    CastOp, CmpLowering, ExternalCall, FBinOp, FBinaryOp, FCmpPred, FUnaryOp, FloatTy, FpClassMask,
    FpOpId, FuncId, IBinOp, ICmpPred, MathFn, Module, OutMathFn, ProgramEnd, ScalarTy, SourceLoc,
    Type,
};
use rug::ops::Pow;
use rug::Float;
use std::collections::HashSet;

/// Default precision of the shadow values, in bits (FPGen compares against a run in
/// much higher precision than binary64; 256 bits leaves room for long cancellations).
pub const DEFAULT_PRECISION: u32 = 256;

/// Exponent recorded for zero: one below the smallest subnormal's, so a sum that
/// cancels completely counts as the deepest cancellation the format can show.
pub fn zero_exponent(ty: FloatTy) -> i32 {
    match ty {
        FloatTy::F64 => -1075,
        FloatTy::F32 => -150,
    }
}

/// One lane's value: the float bits (or integer bits) and, for floats, the shadow value.
#[derive(Clone, Debug, PartialEq)]
pub struct ShadowScalar {
    /// f32 bits in the low 32; integers zero-extended, booleans 0/1.
    pub bits: u64,
    /// The high-precision value; `None` for integers and for floats whose value is
    /// exactly their bits' (constants read back from raw bytes, reinterpreted integers).
    pub high: Option<Float>,
}

/// The exponents around one `fadd`/`fsub` (of the float values the program computed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddSubRecord {
    pub site: OpSite,
    pub ty: FloatTy,
    /// `ilogb` of each operand as added (`fsub`: the subtrahend negated has the same
    /// exponent), [`zero_exponent`] for zero, `None` for NaN or an infinity.
    pub exp_a: Option<i32>,
    pub exp_b: Option<i32>,
    pub exp_result: Option<i32>,
    /// The sign of the exact (shadow) result: `None` for zero or NaN. Where it changes
    /// between two inputs, the exact result crossed zero and every bit cancels there.
    pub exact_positive: Option<bool>,
}

impl AddSubRecord {
    /// |exp(a) − exp(b)|: bits of the smaller operand discarded (FPGen's precision loss
    /// when above 32), 0 when an operand is zero or not finite.
    pub fn precision_loss(&self) -> i32 {
        match (self.exp_a, self.exp_b) {
            (Some(a), Some(b)) if a != zero_exponent(self.ty) && b != zero_exponent(self.ty) => {
                (a - b).abs()
            }
            _ => 0,
        }
    }

    /// max(exp(a), exp(b)) − exp(result): leading bits cancelled (FPGen's cancellation
    /// when above 40), 0 when something is not finite or both operands are zero.
    pub fn cancellation(&self) -> i32 {
        match (self.exp_a, self.exp_b, self.exp_result) {
            (Some(a), Some(b), Some(r)) if a.max(b) != zero_exponent(self.ty) => a.max(b) - r,
            _ => 0,
        }
    }
}

/// A comparison whose outcome on the shadow values differs from the floats': the exact
/// computation would have gone the other way at a branch or select.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divergence {
    pub site: OpSite,
    /// The outcome the walk followed (the floats').
    pub float_outcome: bool,
}

/// `ilogb` of a float's bits (unbiased exponent of the leading bit, subnormals included).
pub fn float_exponent(ty: FloatTy, bits: u64) -> Option<i32> {
    let x = float_value(ty, bits);
    if !x.is_finite() {
        return None;
    }
    if x == 0.0 {
        return Some(zero_exponent(ty));
    }
    let (mant_bits, exp_bits, bias) = match ty {
        FloatTy::F64 => (52, (bits >> 52) & 0x7ff, 1023),
        FloatTy::F32 => (23, (bits >> 23) & 0xff, 127),
    };
    if exp_bits != 0 {
        return Some(exp_bits as i32 - bias);
    }
    // Subnormal: the leading bit's position in the fraction.
    let frac = bits & ((1u64 << mant_bits) - 1);
    let lead = 63 - frac.leading_zeros() as i32;
    Some(lead - mant_bits - (bias - 1))
}

/// The value of float bits as an f64 (exact for both formats).
/// The `llvm.is.fpclass` class of the exact value `x` in format `ty`; a NaN keeps the
/// signalling-ness of the float it shadows (`bits`), the exact value has none.
fn exact_class(ty: FloatTy, x: &Float, bits: u64) -> u16 {
    if x.is_nan() {
        let float_class = FpClassMask::class_of(ty, bits);
        return if float_class & FpClassMask::NAN != 0 {
            float_class
        } else {
            FpClassMask::QNAN
        };
    }
    let negative = x.is_sign_negative();
    // |x| < 2^get_exp; the smallest normal is 2^-126 or 2^-1022.
    let min_normal_exponent = match ty {
        FloatTy::F32 => -126,
        FloatTy::F64 => -1022,
    };
    let (neg, pos) = if x.is_infinite() {
        (FpClassMask::NEG_INF, FpClassMask::POS_INF)
    } else if x.is_zero() {
        (FpClassMask::NEG_ZERO, FpClassMask::POS_ZERO)
    } else if x.get_exp().is_some_and(|e| e <= min_normal_exponent) {
        (FpClassMask::NEG_SUBNORMAL, FpClassMask::POS_SUBNORMAL)
    } else {
        (FpClassMask::NEG_NORMAL, FpClassMask::POS_NORMAL)
    };
    if negative {
        neg
    } else {
        pos
    }
}

pub fn float_value(ty: FloatTy, bits: u64) -> f64 {
    match ty {
        FloatTy::F64 => f64::from_bits(bits),
        FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
    }
}

/// The float nearest to a shadow value (ties to even), as bits of `ty`.
pub fn round_to_bits(ty: FloatTy, x: &Float) -> u64 {
    match ty {
        FloatTy::F64 => x.to_f64().to_bits(),
        FloatTy::F32 => u64::from(x.to_f32().to_bits()),
    }
}

fn sign_bit(ty: FloatTy) -> u64 {
    match ty {
        FloatTy::F64 => 1 << 63,
        FloatTy::F32 => 1 << 31,
    }
}

/// The walker domain pairing concrete IEEE floats with MPFR shadow values.
pub struct Shadow {
    concrete: Concrete,
    precision: u32,
    /// Record an [`AddSubRecord`] for every `fadd`/`fsub` lane.
    pub record_add_sub: bool,
    pub add_sub: Vec<AddSubRecord>,
    pub divergences: Vec<Divergence>,
    /// Operations whose float result is replaced by their shadow value rounded.
    pub exact_ops: HashSet<FpOpId>,
}

impl Shadow {
    /// A domain for a build running in `mode`, with shadow values of `precision` bits.
    pub fn new(mode: FpMode, precision: u32) -> Shadow {
        Shadow {
            concrete: Concrete::new(mode),
            precision: precision.clamp(rug::float::prec_min(), rug::float::prec_max()),
            record_add_sub: true,
            add_sub: Vec::new(),
            divergences: Vec::new(),
            exact_ops: HashSet::new(),
        }
    }

    pub fn precision(&self) -> u32 {
        self.precision
    }

    /// Forgets what the last evaluation recorded.
    pub fn clear(&mut self) {
        self.concrete.clear();
        self.add_sub.clear();
        self.divergences.clear();
    }

    /// The shadow value of a float scalar (its bits' value when it has none).
    pub fn high_of(&self, ty: FloatTy, v: &ShadowScalar) -> Float {
        match &v.high {
            Some(h) => h.clone(),
            None => Float::with_val(self.precision, float_value(ty, v.bits)),
        }
    }

    fn float(&self, bits: u64, high: Float) -> ShadowScalar {
        ShadowScalar {
            bits,
            high: Some(high),
        }
    }

    fn int(bits: u64) -> ShadowScalar {
        ShadowScalar { bits, high: None }
    }

    /// The float result of an operation at `site`: the processor's, or the shadow value
    /// rounded when that operation is to be computed exactly.
    fn result(&self, ty: FloatTy, site: OpSite, bits: u64, high: Float) -> ShadowScalar {
        let bits = if self.exact_ops.contains(&site.op) {
            round_to_bits(ty, &high)
        } else {
            bits
        };
        self.float(bits, high)
    }

    fn math_high(&self, func: MathFn, ty: FloatTy, args: &[ShadowScalar]) -> Float {
        let x = self.high_of(ty, &args[0]);
        let y = || self.high_of(ty, &args[1]);
        let p = self.precision;
        match func {
            MathFn::Sqrt => x.sqrt(),
            MathFn::Exp => x.exp(),
            MathFn::Exp2 => x.exp2(),
            MathFn::Log => x.ln(),
            MathFn::Log2 => x.log2(),
            MathFn::Log10 => x.log10(),
            MathFn::Pow => Float::with_val(p, (&x).pow(&y())),
            MathFn::Sin => x.sin(),
            MathFn::Cos => x.cos(),
            MathFn::Tan => x.tan(),
            MathFn::Atan => x.atan(),
            MathFn::Atan2 => x.atan2(&y()),
            MathFn::Sinh => x.sinh(),
            MathFn::Cosh => x.cosh(),
            MathFn::Tanh => x.tanh(),
            MathFn::Hypot => x.hypot(&y()),
            MathFn::Fmod => Float::with_val(p, &x % &y()),
            MathFn::Asin => x.asin(),
            MathFn::Acos => x.acos(),
            MathFn::Expm1 => x.exp_m1(),
            MathFn::Log1p => x.ln_1p(),
            MathFn::Cbrt => x.cbrt(),
            MathFn::Erf => x.erf(),
            MathFn::Erfc => x.erfc(),
            MathFn::Lgamma => x.ln_abs_gamma().0,
            MathFn::Tgamma => x.gamma(),
            MathFn::Remainder => x.remainder(&y()),
        }
    }
}

impl Domain for Shadow {
    type Scalar = ShadowScalar;
    type Snapshot = ();

    fn snapshot(&self) {}
    fn restore(&mut self, _snapshot: ()) {}

    fn begin_walk(&mut self) {
        self.concrete.begin_walk();
    }

    fn end_walk(&mut self) {
        self.concrete.end_walk();
    }

    fn constant(&self, ty: ScalarTy, bits: u64) -> ShadowScalar {
        let bits = self.concrete.constant(ty, bits);
        match ty {
            ScalarTy::Float(f) => {
                self.float(bits, Float::with_val(self.precision, float_value(f, bits)))
            }
            _ => Shadow::int(bits),
        }
    }

    fn concrete_bits(&self, v: &ShadowScalar) -> Option<u64> {
        Some(v.bits)
    }

    fn concretize(&mut self, v: &ShadowScalar, _ty: ScalarTy) -> DResult<u64> {
        Ok(v.bits)
    }

    fn fbin(
        &mut self,
        op: FBinOp,
        ty: FloatTy,
        a: &ShadowScalar,
        b: &ShadowScalar,
        site: OpSite,
    ) -> DResult<ShadowScalar> {
        let bits = self.concrete.fbin(op, ty, &a.bits, &b.bits, site)?;
        let (x, y) = (self.high_of(ty, a), self.high_of(ty, b));
        let high = match op {
            FBinOp::FAdd => Float::with_val(self.precision, &x + &y),
            FBinOp::FSub => Float::with_val(self.precision, &x - &y),
            FBinOp::FMul => Float::with_val(self.precision, &x * &y),
            FBinOp::FDiv => Float::with_val(self.precision, &x / &y),
            FBinOp::FRem => Float::with_val(self.precision, &x % &y),
        };
        let out = self.result(ty, site, bits, high);
        if self.record_add_sub && matches!(op, FBinOp::FAdd | FBinOp::FSub) {
            let exact = out.high.as_ref().filter(|h| !h.is_zero() && !h.is_nan());
            self.add_sub.push(AddSubRecord {
                site,
                ty,
                exp_a: float_exponent(ty, a.bits),
                exp_b: float_exponent(ty, b.bits),
                exp_result: float_exponent(ty, out.bits),
                exact_positive: exact.map(|h| h.is_sign_positive()),
            });
        }
        Ok(out)
    }

    fn fneg(&mut self, ty: FloatTy, a: &ShadowScalar) -> DResult<ShadowScalar> {
        let high = -self.high_of(ty, a);
        Ok(self.float(a.bits ^ sign_bit(ty), high))
    }

    fn fcmp(
        &mut self,
        pred: FCmpPred,
        lowering: CmpLowering,
        ty: FloatTy,
        a: &ShadowScalar,
        b: &ShadowScalar,
        site: OpSite,
    ) -> DResult<ShadowScalar> {
        let bits = self
            .concrete
            .fcmp(pred, lowering, ty, &a.bits, &b.bits, site)?;
        let (x, y) = (self.high_of(ty, a), self.high_of(ty, b));
        let exact = pred.holds(x.partial_cmp(&y));
        if exact != (bits & 1 != 0) {
            self.divergences.push(Divergence {
                site,
                float_outcome: bits & 1 != 0,
            });
        }
        Ok(Shadow::int(bits))
    }

    fn fclass(
        &mut self,
        mask: FpClassMask,
        ty: FloatTy,
        a: &ShadowScalar,
        site: OpSite,
    ) -> DResult<ShadowScalar> {
        let bits = self.concrete.fclass(mask, ty, &a.bits, site)?;
        let exact = mask.any(exact_class(ty, &self.high_of(ty, a), a.bits));
        if exact != (bits & 1 != 0) {
            self.divergences.push(Divergence {
                site,
                float_outcome: bits & 1 != 0,
            });
        }
        Ok(Shadow::int(bits))
    }

    fn funary(
        &mut self,
        op: FUnaryOp,
        ty: FloatTy,
        a: &ShadowScalar,
        site: OpSite,
    ) -> DResult<ShadowScalar> {
        let bits = self.concrete.funary(op, ty, &a.bits, site)?;
        let x = self.high_of(ty, a);
        let high = match op {
            FUnaryOp::SqrtInsn => x.sqrt(),
            FUnaryOp::Fabs => x.abs(),
            FUnaryOp::Floor => x.floor(),
            FUnaryOp::Ceil => x.ceil(),
            FUnaryOp::Trunc => x.trunc(),
            FUnaryOp::Round => x.round(),
            FUnaryOp::Rint | FUnaryOp::NearbyInt | FUnaryOp::RoundEven => x.round_even(),
            FUnaryOp::RsqrtEstimateNewton => x.recip_sqrt(),
        };
        Ok(self.result(ty, site, bits, high))
    }

    fn fbinary(
        &mut self,
        op: FBinaryOp,
        ty: FloatTy,
        a: &ShadowScalar,
        b: &ShadowScalar,
        site: OpSite,
    ) -> DResult<ShadowScalar> {
        let bits = self.concrete.fbinary(op, ty, &a.bits, &b.bits, site)?;
        let (x, y) = (self.high_of(ty, a), self.high_of(ty, b));
        let high = match op {
            // The exact minimum, unless a NaN is involved: then the float side's choice.
            FBinaryOp::MinNum | FBinaryOp::MinSse if !x.is_nan() && !y.is_nan() => x.min(&y),
            FBinaryOp::MaxNum | FBinaryOp::MaxSse if !x.is_nan() && !y.is_nan() => x.max(&y),
            FBinaryOp::CopySign => {
                let negative = b.bits & sign_bit(ty) != 0;
                if negative {
                    -x.abs()
                } else {
                    x.abs()
                }
            }
            _ => Float::with_val(self.precision, float_value(ty, bits)),
        };
        Ok(self.result(ty, site, bits, high))
    }

    fn fma(
        &mut self,
        ty: FloatTy,
        a: &ShadowScalar,
        b: &ShadowScalar,
        c: &ShadowScalar,
        site: OpSite,
    ) -> DResult<ShadowScalar> {
        let bits = self.concrete.fma(ty, &a.bits, &b.bits, &c.bits, site)?;
        let (x, y, z) = (
            self.high_of(ty, a),
            self.high_of(ty, b),
            self.high_of(ty, c),
        );
        let high = Float::with_val(self.precision, x.mul_add_ref(&y, &z));
        Ok(self.result(ty, site, bits, high))
    }

    fn math(
        &mut self,
        func: MathFn,
        ty: FloatTy,
        args: &[ShadowScalar],
        site: OpSite,
    ) -> DResult<ShadowScalar> {
        let float_args: Vec<u64> = args.iter().map(|a| a.bits).collect();
        let bits = self.concrete.math(func, ty, &float_args, site)?;
        let high = self.math_high(func, ty, args);
        Ok(self.result(ty, site, bits, high))
    }

    fn math_out(
        &mut self,
        func: OutMathFn,
        ty: FloatTy,
        args: &[ShadowScalar],
        site: OpSite,
    ) -> DResult<(Option<ShadowScalar>, Vec<Option<ShadowScalar>>)> {
        // Shadows of these results are glibc's own (no MPFR counterpart for all of
        // them): their error is not measured, the rest of the computation's is.
        let float_args: Vec<u64> = args.iter().map(|a| a.bits).collect();
        let (ret, outs) = self.concrete.math_out(func, ty, &float_args, site)?;
        let wrap = |bits: u64| ShadowScalar { bits, high: None };
        Ok((
            ret.map(wrap),
            outs.into_iter().map(|o| o.map(wrap)).collect(),
        ))
    }

    fn fcast(
        &mut self,
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        a: &ShadowScalar,
        site: OpSite,
    ) -> DResult<ShadowScalar> {
        let bits = self.concrete.fcast(op, from, to, &a.bits, site)?;
        let ScalarTy::Float(to_ty) = to else {
            // Integers follow the floats (the walk's control flow is the float one's).
            return Ok(Shadow::int(bits));
        };
        let high = match (op, from) {
            (CastOp::SIToFP, ScalarTy::Int(w)) => {
                Float::with_val(self.precision, fpscout_ir::sign_extend(a.bits, w))
            }
            (CastOp::UIToFP, ScalarTy::Int(w)) => {
                Float::with_val(self.precision, fpscout_ir::truncate_bits(a.bits, w))
            }
            // fpext and fptrunc keep the exact value: the shadow is the computation
            // without any rounding.
            (_, ScalarTy::Float(from_ty)) => self.high_of(from_ty, a),
            _ => Float::with_val(self.precision, float_value(to_ty, bits)),
        };
        Ok(self.result(to_ty, site, bits, high))
    }

    fn icast(
        &mut self,
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        a: &ShadowScalar,
    ) -> DResult<ShadowScalar> {
        Ok(Shadow::int(self.concrete.icast(op, from, to, &a.bits)?))
    }

    fn ibin(
        &mut self,
        op: IBinOp,
        width: u32,
        a: &ShadowScalar,
        b: &ShadowScalar,
    ) -> DResult<ShadowScalar> {
        Ok(Shadow::int(
            self.concrete.ibin(op, width, &a.bits, &b.bits)?,
        ))
    }

    fn icmp(
        &mut self,
        pred: ICmpPred,
        width: u32,
        a: &ShadowScalar,
        b: &ShadowScalar,
    ) -> DResult<ShadowScalar> {
        Ok(Shadow::int(
            self.concrete.icmp(pred, width, &a.bits, &b.bits)?,
        ))
    }

    fn iabs(&mut self, width: u32, a: &ShadowScalar) -> DResult<ShadowScalar> {
        Ok(Shadow::int(self.concrete.iabs(width, &a.bits)?))
    }

    fn select(
        &mut self,
        cond: &ShadowScalar,
        a: &ShadowScalar,
        b: &ShadowScalar,
    ) -> DResult<ShadowScalar> {
        Ok(if cond.bits & 1 != 0 {
            a.clone()
        } else {
            b.clone()
        })
    }

    fn decide(&mut self, cond: &ShadowScalar) -> DResult<Decision> {
        Ok(Decision::Known(cond.bits & 1 != 0))
    }

    fn native_call(
        &mut self,
        call: &ExternalCall,
        args: &[ShadowScalar],
        site: Option<OpSite>,
    ) -> DResult<Option<ShadowScalar>> {
        let float_args: Vec<u64> = args.iter().map(|a| a.bits).collect();
        let r = self.concrete.native_call(call, &float_args, site)?;
        Ok(r.map(Shadow::int))
    }
}

/// How a shadowed evaluation ended.
#[derive(Clone, Debug, PartialEq)]
pub enum ShadowEnd {
    /// Returned (`None`: void) — the float bits and the shadow value of a float result.
    Returned(Option<ShadowScalar>),
    /// The program ended (`exit`, `abort`, a failed `assert`) at `loc`.
    Ended {
        end: ProgramEnd,
        loc: Option<SourceLoc>,
    },
    /// A trap, or a budget ran out (the reason).
    Failed(String),
}

/// One evaluation with shadow values.
#[derive(Clone, Debug)]
pub struct ShadowEvaluation {
    pub end: ShadowEnd,
    /// Final contents of array arguments, in parameter order.
    pub arrays: Vec<Vec<ShadowScalar>>,
    pub add_sub: Vec<AddSubRecord>,
    pub divergences: Vec<Divergence>,
}

/// A walker set up for repeated shadowed evaluations of one function.
pub struct ShadowRunner<'m> {
    walker: Walker<'m, Shadow>,
    func: FuncId,
}

impl<'m> ShadowRunner<'m> {
    pub fn new(
        module: &'m Module,
        func: FuncId,
        mode: FpMode,
        precision: u32,
        config: WalkConfig,
    ) -> DResult<Self> {
        let walker = Walker::new(module, Shadow::new(mode, precision), config)?;
        Ok(ShadowRunner { walker, func })
    }

    pub fn domain(&mut self) -> &mut Shadow {
        &mut self.walker.domain
    }

    pub fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.walker.config.deadline = deadline;
    }

    /// Evaluates the function on argument bits (arrays for pointer parameters).
    pub fn eval(&mut self, args: &[ArgBits]) -> DResult<ShadowEvaluation> {
        self.walker.reset();
        self.walker.domain.clear();
        let module = self.walker.module;
        let f = module.function(self.func);
        if args.len() != f.params.len() {
            return Err(WalkError::BadArguments(format!(
                "{} takes {} arguments, {} given",
                f.display_name,
                f.params.len(),
                args.len()
            )));
        }
        let mut vals = Vec::with_capacity(args.len());
        let mut arrays: Vec<(Ptr, ScalarTy, usize)> = Vec::new();
        for (p, a) in f.params.iter().zip(args) {
            match (p.ty, a) {
                (Type::Scalar(ScalarTy::Ptr), ArgBits::Array(elems)) => {
                    let ty = p.pointee.unwrap_or(ScalarTy::Float(FloatTy::F64));
                    let values = elems
                        .iter()
                        .map(|&b| self.walker.domain.constant(ty, b))
                        .collect();
                    let ptr = self.walker.alloc_array(&p.name, ty, values)?;
                    arrays.push((ptr, ty, elems.len()));
                    vals.push(Val::Ptr(ptr));
                }
                (Type::Scalar(s @ (ScalarTy::Int(_) | ScalarTy::Float(_))), ArgBits::Scalar(b)) => {
                    vals.push(Val::Scalar(self.walker.domain.constant(s, *b)));
                }
                (ty, _) => {
                    return Err(WalkError::BadArguments(format!(
                        "parameter '{}' of type {ty} cannot take this argument",
                        p.name
                    )))
                }
            }
        }
        let end = match self.walker.run(self.func, vals) {
            Ok(Outcome::Returned(None)) => ShadowEnd::Returned(None),
            Ok(Outcome::Returned(Some(Val::Scalar(s)))) => ShadowEnd::Returned(Some(s)),
            Ok(Outcome::Returned(Some(_))) => {
                return Err(WalkError::unsupported(
                    "functions returning vectors or pointers",
                ))
            }
            Ok(Outcome::Stopped(r)) => ShadowEnd::Failed(r.to_string()),
            Ok(Outcome::Ended { end, loc }) => ShadowEnd::Ended { end, loc },
            Err(e @ WalkError::Trap { .. }) => ShadowEnd::Failed(e.to_string()),
            Err(e) => return Err(e),
        };
        let mut finals = Vec::with_capacity(arrays.len());
        if !matches!(end, ShadowEnd::Failed(_)) {
            for &(ptr, ty, n) in &arrays {
                finals.push(self.walker.read_array(ptr, ty, n)?);
            }
        }
        let domain = &mut self.walker.domain;
        Ok(ShadowEvaluation {
            end,
            arrays: finals,
            add_sub: std::mem::take(&mut domain.add_sub),
            divergences: std::mem::take(&mut domain.divergences),
        })
    }
}
