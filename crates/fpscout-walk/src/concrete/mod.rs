//! The concrete IEEE domain: scalars are raw bits, every floating-point operation runs on
//! the processor's SSE unit (or in glibc) and each raised flag becomes an [`Event`].

mod assumptions;
mod compiled;
pub mod eval;
mod foreign;
pub mod x86;

pub use assumptions::AssumptionBroken;
use assumptions::AssumptionWatch;
pub use eval::{AdaptiveSteps, ArgBits, ConcreteRunner, EvalEnd, Evaluation};
pub use foreign::load_library;

use crate::domain::{DResult, Decision, Domain, OpSite};
use crate::WalkError;
use fpscout_ir::*;
use x86::*;

/// The floating-point environment a build runs with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FpMode {
    /// Flush-to-zero: tiny results become ±0.
    pub ftz: bool,
    /// Denormals-are-zero: subnormal operands read as ±0.
    pub daz: bool,
}

impl FpMode {
    pub const IEEE: FpMode = FpMode {
        ftz: false,
        daz: false,
    };
    /// What `crtfastmath.o` sets at start-up in a `-ffast-math` executable.
    pub const FAST_MATH_STARTUP: FpMode = FpMode {
        ftz: true,
        daz: true,
    };

    /// The mode an MXCSR value sets.
    pub fn from_mxcsr(mxcsr: u32) -> FpMode {
        FpMode {
            ftz: mxcsr & MXCSR_FTZ != 0,
            daz: mxcsr & MXCSR_DAZ != 0,
        }
    }

    pub fn mxcsr(self) -> u32 {
        let mut m = MXCSR_DEFAULT;
        if self.ftz {
            m |= MXCSR_FTZ;
        }
        if self.daz {
            m |= MXCSR_DAZ;
        }
        m
    }
}

/// One exception raised by one operation (one lane of it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    pub kind: ExceptionKind,
    pub site: OpSite,
}

/// Concrete evaluation with per-operation exception events.
#[derive(Clone, Debug)]
pub struct Concrete {
    /// MXCSR of the modelled mode (flags clear), with the rounding direction the walk
    /// set (`fesetround`; every walk starts to nearest).
    mxcsr: u32,
    /// Isolated outside walks; Active between `begin_walk` and `end_walk`.
    env: Env,
    /// The caller's MXCSR, restored by the outermost `end_walk`.
    saved_mxcsr: u32,
    /// Nesting of `begin_walk` calls (a batch around many walks).
    walk_depth: u32,
    /// Record inexact events too.
    pub record_inexact: bool,
    /// Include inexact in `flags` (exact union, the default). Searches that ignore inexact
    /// turn it off: then no MXCSR reload is needed between walks, which is much faster.
    pub track_inexact: bool,
    pub events: Vec<Event>,
    /// Union of all flags raised since the last [`Concrete::clear`].
    pub flags: ExceptionSet,
    /// Answers to the choice points the IR leaves to the backend, in the order they are
    /// met (missing answers mean `false`: the IR's operand order). See [`Concrete::choose`].
    pub choices: Vec<bool>,
    /// Choice points met since the last [`Concrete::clear`].
    pub choice_points: u32,
    /// Fast-math assumptions to watch (off the fast paths, which never consult it).
    pub(crate) assumptions: Option<Box<AssumptionWatch>>,
    /// Native functions outside the module, resolved on first call.
    foreign: foreign::ForeignFunctions,
}

impl Concrete {
    pub fn new(mode: FpMode) -> Concrete {
        let mxcsr = mode.mxcsr();
        Concrete {
            mxcsr,
            env: Env::Isolated(mxcsr),
            saved_mxcsr: MXCSR_DEFAULT,
            walk_depth: 0,
            record_inexact: false,
            track_inexact: true,
            events: Vec::new(),
            flags: ExceptionSet::EMPTY,
            choices: Vec::new(),
            choice_points: 0,
            assumptions: None,
            foreign: foreign::ForeignFunctions::default(),
        }
    }

    /// A choice point: the machine code may compute this operation either way and the IR
    /// does not say which. Returns the scripted answer (default `false`).
    #[cold]
    fn choose(&mut self) -> bool {
        let answer = self
            .choices
            .get(self.choice_points as usize)
            .copied()
            .unwrap_or(false);
        self.choice_points += 1;
        answer
    }

    pub fn mode(&self) -> FpMode {
        FpMode {
            ftz: self.mxcsr & MXCSR_FTZ != 0,
            daz: self.mxcsr & MXCSR_DAZ != 0,
        }
    }

    /// Forgets events and flags before the next evaluation.
    pub fn clear(&mut self) {
        self.events.clear();
        self.flags = ExceptionSet::EMPTY;
        self.choice_points = 0;
        if let Some(w) = self.assumptions.as_deref_mut() {
            w.first = None;
        }
    }

    /// Checks an operation's float operands and result against its fast-math flags, when
    /// watching.
    #[inline]
    fn watch(&mut self, site: OpSite, values: &[(FloatTy, u64)]) {
        if let Some(w) = self.assumptions.as_deref_mut() {
            w.check(site, values);
        }
    }

    /// Starts one evaluation inside a walk: clears the sticky flags an earlier one left
    /// (what `begin_walk` does when nested, without the bookkeeping).
    #[inline]
    pub(crate) fn start_eval(&mut self) {
        debug_assert_eq!(self.env, Env::Active);
        if stmxcsr() & self.union_mask() != 0 {
            ldmxcsr(self.mxcsr);
        }
    }

    /// Ends one evaluation inside a walk: the sticky flags join the union.
    #[inline]
    pub(crate) fn finish_eval(&mut self) {
        self.finish_unchecked();
    }

    /// Starts an evaluation whose operations do not read flags (`Env::Unchecked`) when
    /// `allowed` and that can pay off: not when inexact events are recorded (nearly every evaluation
    /// would raise one and be redone). Returns whether it did; the caller then ends it with
    /// [`Concrete::finish_unchecked`].
    #[inline]
    pub(crate) fn start_unchecked(&mut self, allowed: bool) -> bool {
        self.start_eval();
        if self.record_inexact || !allowed {
            return false;
        }
        self.env = Env::Unchecked;
        true
    }

    /// Ends an evaluation begun by [`Concrete::start_unchecked`] (or
    /// [`Concrete::start_eval`]) and returns whether its outcome stands: nothing worth an
    /// event was raised. Flags are sticky, so the union at the end is the union of all
    /// operations; only which operation raised what is unknown, and that matters only
    /// for events: when a flag worth one was raised the evaluation must be redone with
    /// flags read per operation (events already recorded, by glibc calls that read their
    /// flags anyway, mean the same).
    #[inline]
    pub(crate) fn finish_unchecked(&mut self) -> bool {
        self.env = Env::Active;
        let sticky = stmxcsr() & self.union_mask();
        self.flags = self.flags.union(ExceptionSet::from_mxcsr(sticky));
        sticky & !0x20 == 0 && self.events.is_empty()
    }

    /// Whether a kernel's own count of inexact operations (see
    /// `fpscout_ir::kernel::NativeKernel::run_counting_inexact`) can stand for the inexact
    /// flag: it is tracked, not recorded as events, and the mode is one where the count
    /// is exact (no DAZ without FTZ: there an exact subnormal result would read as zero
    /// in the count's own arithmetic).
    #[inline]
    pub(crate) fn inexact_countable(&self) -> bool {
        let daz_alone = self.mxcsr & (MXCSR_DAZ | MXCSR_FTZ) == MXCSR_DAZ;
        self.track_inexact && !self.record_inexact && !daz_alone
    }

    /// Starts an evaluation whose inexact flag the kernel counts itself: only flags worth
    /// an event are cleared, so MXCSR is almost never reloaded (a reload waits for every
    /// floating-point instruction in flight).
    #[inline]
    pub(crate) fn start_counted(&mut self) {
        if stmxcsr() & FLAG_MASK & !0x20 != 0 {
            ldmxcsr(self.mxcsr);
        }
    }

    /// Ends an evaluation begun by [`Concrete::start_counted`]: whether its outcome stands
    /// (no flag but inexact in MXCSR, which the count's own operations may also have
    /// raised); the flags are then inexact exactly when the kernel counted it.
    #[inline]
    pub(crate) fn finish_counted(&mut self, inexact: bool) -> bool {
        if stmxcsr() & FLAG_MASK & !0x20 != 0 {
            return false;
        }
        self.flags = if inexact {
            ExceptionSet::from_mxcsr(0x20)
        } else {
            ExceptionSet::EMPTY
        };
        true
    }

    /// Records the flags an operation raised. Inside a walk MXCSR flags are sticky: a flag
    /// worth an event is cleared right after it is seen, so the next operation's reading is
    /// its own; inexact (when not recorded) just stays set and joins the union at the end.
    #[inline]
    fn note(&mut self, raw: u32, site: OpSite) {
        let raised = raw & self.union_mask();
        if raised == 0 {
            return;
        }
        self.flags = self.flags.union(ExceptionSet::from_mxcsr(raised));
        let hot_mask = if self.record_inexact {
            FLAG_MASK
        } else {
            FLAG_MASK & !0x20
        };
        let hot = raised & hot_mask;
        if hot == 0 {
            return;
        }
        self.note_events(hot, site);
    }

    /// The part of [`Concrete::note`] for flags worth an event.
    #[cold]
    #[inline(never)]
    fn note_events(&mut self, hot: u32, site: OpSite) {
        for kind in ExceptionSet::from_mxcsr(hot).iter() {
            self.events.push(Event { kind, site });
        }
        if self.env == Env::Active {
            let sticky = stmxcsr() & self.union_mask();
            self.flags = self.flags.union(ExceptionSet::from_mxcsr(sticky));
            ldmxcsr(self.mxcsr);
        }
    }

    /// Whether the two operands of a commutative `fadd`/`fmul` with a NaN first operand
    /// swap: when both are NaNs that differ once quieted, the order is a choice point.
    #[cold]
    #[inline(never)]
    fn nan_operands_swap(&mut self, ty: FloatTy, a: u64, b: u64) -> bool {
        is_nan(ty, b) && quiet(ty, a) != quiet(ty, b) && self.choose()
    }

    #[inline]
    fn union_mask(&self) -> u32 {
        if self.track_inexact {
            FLAG_MASK
        } else {
            FLAG_MASK & !0x20
        }
    }

    /// `fadd`, `fsub`, `fmul`, `fdiv` as one SSE instruction (`frem` is a libm call, see
    /// `Domain::fbin`); inlined into callers that know the operation statically.
    #[inline(always)]
    pub(crate) fn fbin_sse(
        &mut self,
        op: FBinOp,
        ty: FloatTy,
        a: u64,
        b: u64,
        site: OpSite,
    ) -> u64 {
        // With two NaN operands SSE returns the first source (the destination register),
        // quieted. Which IR operand lands in the destination of a commutative addsd/mulsd
        // is decided by instruction selection and register allocation, not by the IR:
        // `s += x[i]` at -O0 is `movsd (%rax,%rcx,8), %xmm0; addsd -24(%rbp), %xmm0` (x[i]
        // wins), `(x + y) / 2` at -O3 is `addsd %xmm1, %xmm0` for `fadd %y, %x` (x wins).
        // When the two NaNs differ, the operand order is a choice point.
        let (a, b) = if matches!(op, FBinOp::FAdd | FBinOp::FMul)
            && is_nan(ty, a)
            && self.nan_operands_swap(ty, a, b)
        {
            (b, a)
        } else {
            (a, b)
        };
        let m = self.env;
        let (r, fl) = match (ty, op) {
            (FloatTy::F64, FBinOp::FAdd) => map_d(addsd(f64b(a), f64b(b), m)),
            (FloatTy::F64, FBinOp::FSub) => map_d(subsd(f64b(a), f64b(b), m)),
            (FloatTy::F64, FBinOp::FMul) => map_d(mulsd(f64b(a), f64b(b), m)),
            (FloatTy::F64, FBinOp::FDiv) => map_d(divsd(f64b(a), f64b(b), m)),
            (FloatTy::F32, FBinOp::FAdd) => map_s(addss(f32b(a), f32b(b), m)),
            (FloatTy::F32, FBinOp::FSub) => map_s(subss(f32b(a), f32b(b), m)),
            (FloatTy::F32, FBinOp::FMul) => map_s(mulss(f32b(a), f32b(b), m)),
            (FloatTy::F32, FBinOp::FDiv) => map_s(divss(f32b(a), f32b(b), m)),
            (_, FBinOp::FRem) => unreachable!("frem is a libm call"),
        };
        self.note(fl, site);
        r
    }

    fn libm_call(&mut self, f: LibmFn, ty: FloatTy, args: &[u64], site: OpSite) -> DResult<u64> {
        let single = ty == FloatTy::F32;
        let f = libm(f, single).ok_or_else(|| {
            let suffix = if single { "f" } else { "" };
            WalkError::unsupported(format!("libm function {}{suffix}", f.c_name()))
        })?;
        let (r, fl) = call_libm(f, args, self.env);
        self.note(fl, site);
        Ok(r)
    }
}

impl Concrete {
    /// `funary` without the assumption watch.
    #[inline]
    fn funary_value(&mut self, op: FUnaryOp, ty: FloatTy, a: &u64, site: OpSite) -> DResult<u64> {
        let m = self.env;
        let rounding = match op {
            FUnaryOp::Fabs => return Ok(a & !sign_bit(ty)),
            FUnaryOp::SqrtInsn => {
                let (r, fl) = match ty {
                    FloatTy::F64 => map_d(sqrtsd(f64b(*a), m)),
                    FloatTy::F32 => map_s(sqrtss(f32b(*a), m)),
                };
                self.note(fl, site);
                return Ok(r);
            }
            FUnaryOp::RsqrtEstimateNewton => {
                return Err(WalkError::unsupported(
                    "reciprocal square-root estimate (rsqrtss)",
                ))
            }
            // Baseline x86-64 has no roundsd: the backend calls libm for these.
            FUnaryOp::Floor
            | FUnaryOp::Ceil
            | FUnaryOp::Trunc
            | FUnaryOp::Round
            | FUnaryOp::Rint
            | FUnaryOp::NearbyInt
            | FUnaryOp::RoundEven => op,
        };
        self.libm_call(LibmFn::Rounding(rounding), ty, &[*a], site)
    }

    /// `fbinary` without the assumption watch.
    #[inline]
    fn fbinary_value(
        &mut self,
        op: FBinaryOp,
        ty: FloatTy,
        a: &u64,
        b: &u64,
        site: OpSite,
    ) -> DResult<u64> {
        let m = self.env;
        let sse_min = |x: u64, y: u64, max: bool| -> (u64, u32) {
            match (ty, max) {
                (FloatTy::F64, false) => map_d(minsd(f64b(x), f64b(y), m)),
                (FloatTy::F64, true) => map_d(maxsd(f64b(x), f64b(y), m)),
                (FloatTy::F32, false) => map_s(minss(f32b(x), f32b(y), m)),
                (FloatTy::F32, true) => map_s(maxss(f32b(x), f32b(y), m)),
            }
        };
        let (r, fl) = match op {
            FBinaryOp::CopySign => {
                let s = sign_bit(ty);
                return Ok((a & !s) | (b & s));
            }
            FBinaryOp::MinSse => sse_min(*a, *b, false),
            FBinaryOp::MaxSse => sse_min(*a, *b, true),
            // x86 lowering of llvm.minnum without nnan: min(b, a), then pick b if a is NaN
            // (the unordered self-compare is quiet).
            FBinaryOp::MinNum | FBinaryOp::MaxNum => {
                let (r, fl) = sse_min(*b, *a, op == FBinaryOp::MaxNum);
                (if is_nan(ty, *a) { *b } else { r }, fl)
            }
        };
        self.note(fl, site);
        Ok(r)
    }

    /// `fcast` without the assumption watch.
    #[inline]
    fn fcast_value(
        &mut self,
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        a: &u64,
        site: OpSite,
    ) -> DResult<u64> {
        let m = self.env;
        let (r, fl) = match (op, from, to) {
            (CastOp::FPExt, ScalarTy::Float(FloatTy::F32), ScalarTy::Float(FloatTy::F64)) => {
                map_d(cvtss2sd(f32b(*a), m))
            }
            (CastOp::FPTrunc, ScalarTy::Float(FloatTy::F64), ScalarTy::Float(FloatTy::F32)) => {
                map_s(cvtsd2ss(f64b(*a), m))
            }
            (CastOp::FPExt | CastOp::FPTrunc, f, t) if f == t => (*a, 0),
            (CastOp::SIToFP, ScalarTy::Int(w), ScalarTy::Float(t)) => {
                sitofp(int_as_i64(*a, w), w, t, m)
            }
            (CastOp::UIToFP, ScalarTy::Int(w), ScalarTy::Float(t)) => {
                uitofp(truncate_bits(*a, w), w, t, m)
            }
            (CastOp::FPToSI, ScalarTy::Float(f), ScalarTy::Int(w)) => fptosi(*a, f, w, m),
            (CastOp::FPToUI, ScalarTy::Float(f), ScalarTy::Int(w)) => fptoui(*a, f, w, m),
            _ => {
                return Err(WalkError::unsupported(format!(
                    "conversion {op:?} from {from} to {to}"
                )))
            }
        };
        self.note(fl, site);
        Ok(r)
    }
}

#[inline]
fn f64b(b: u64) -> f64 {
    f64::from_bits(b)
}
#[inline]
fn f32b(b: u64) -> f32 {
    f32::from_bits(b as u32)
}
#[inline]
fn sign_bit(ty: FloatTy) -> u64 {
    match ty {
        FloatTy::F32 => 0x8000_0000,
        FloatTy::F64 => 0x8000_0000_0000_0000,
    }
}
/// NaN test on bits: a float compare here would itself raise INVALID for SNaNs.
#[inline]
pub(crate) fn is_nan(ty: FloatTy, b: u64) -> bool {
    match ty {
        FloatTy::F32 => b & 0x7fff_ffff > 0x7f80_0000,
        FloatTy::F64 => b & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000,
    }
}

/// A NaN's bits after the quieting SSE applies to it.
#[inline]
fn quiet(ty: FloatTy, b: u64) -> u64 {
    match ty {
        FloatTy::F32 => b | 0x0040_0000,
        FloatTy::F64 => b | 0x0008_0000_0000_0000,
    }
}

#[inline]
fn int_as_i64(bits: u64, width: u32) -> i64 {
    sign_extend(bits, width)
}

impl Domain for Concrete {
    type Scalar = u64;
    type Snapshot = ();

    fn snapshot(&self) {}
    fn restore(&mut self, _snapshot: ()) {}

    /// Enters the modelled mode for a walk. Loading MXCSR costs ~100 ns when its value
    /// changes, so it is skipped when the control bits already match and no flag needs
    /// clearing; inside, flags other than inexact are cleared as soon as they are seen
    /// (inexact too when recorded), which keeps every operation's reading its own.
    fn begin_walk(&mut self) {
        self.walk_depth += 1;
        self.mxcsr &= !MXCSR_ROUNDING;
        let current = stmxcsr();
        if self.walk_depth == 1 {
            self.saved_mxcsr = current;
            self.env = Env::Active;
        }
        let must_be_clear = if self.track_inexact {
            FLAG_MASK
        } else {
            FLAG_MASK & !0x20
        };
        if current & !FLAG_MASK != self.mxcsr || current & must_be_clear != 0 {
            ldmxcsr(self.mxcsr);
        }
    }

    fn end_walk(&mut self) {
        if self.env != Env::Active {
            return;
        }
        let current = stmxcsr();
        self.flags = self
            .flags
            .union(ExceptionSet::from_mxcsr(current & self.union_mask()));
        self.walk_depth = self.walk_depth.saturating_sub(1);
        if self.walk_depth > 0 {
            return;
        }
        if current & !FLAG_MASK != self.saved_mxcsr & !FLAG_MASK {
            ldmxcsr(self.saved_mxcsr);
        }
        self.mxcsr &= !MXCSR_ROUNDING;
        self.env = Env::Isolated(self.mxcsr);
    }

    #[inline]
    fn constant(&self, ty: ScalarTy, bits: u64) -> u64 {
        match ty {
            ScalarTy::Int(w) => truncate_bits(bits, w),
            ScalarTy::Float(FloatTy::F32) => bits & 0xffff_ffff,
            _ => bits,
        }
    }

    #[inline]
    fn concrete_bits(&self, v: &u64) -> Option<u64> {
        Some(*v)
    }

    #[inline]
    fn concretize(&mut self, v: &u64, _ty: ScalarTy) -> DResult<u64> {
        Ok(*v)
    }

    #[inline]
    fn fbin(&mut self, op: FBinOp, ty: FloatTy, a: &u64, b: &u64, site: OpSite) -> DResult<u64> {
        let r = match op {
            // x86 has no remainder instruction: the backend calls fmod.
            FBinOp::FRem => self.libm_call(LibmFn::Math(MathFn::Fmod), ty, &[*a, *b], site)?,
            _ => self.fbin_sse(op, ty, *a, *b, site),
        };
        self.watch(site, &[(ty, *a), (ty, *b), (ty, r)]);
        Ok(r)
    }

    #[inline]
    fn fneg(&mut self, ty: FloatTy, a: &u64) -> DResult<u64> {
        Ok(a ^ sign_bit(ty))
    }

    #[inline]
    fn fcmp(
        &mut self,
        pred: FCmpPred,
        lowering: CmpLowering,
        ty: FloatTy,
        a: &u64,
        b: &u64,
        site: OpSite,
    ) -> DResult<u64> {
        if matches!(pred, FCmpPred::False | FCmpPred::True) {
            return Ok(u64::from(pred == FCmpPred::True));
        }
        self.watch(site, &[(ty, *a), (ty, *b)]);
        let signalling = lowering == CmpLowering::Mask && pred.is_relational();
        let m = self.env;
        let (ord, fl) = match (ty, signalling) {
            (FloatTy::F64, false) => ucomisd(f64b(*a), f64b(*b), m),
            (FloatTy::F64, true) => comisd(f64b(*a), f64b(*b), m),
            (FloatTy::F32, false) => ucomiss(f32b(*a), f32b(*b), m),
            (FloatTy::F32, true) => comiss(f32b(*a), f32b(*b), m),
        };
        self.note(fl, site);
        Ok(u64::from(pred.holds(ord)))
    }

    #[inline]
    fn fclass(&mut self, mask: FpClassMask, ty: FloatTy, a: &u64, _site: OpSite) -> DResult<u64> {
        Ok(u64::from(mask.holds(ty, *a)))
    }

    #[inline]
    fn funary(&mut self, op: FUnaryOp, ty: FloatTy, a: &u64, site: OpSite) -> DResult<u64> {
        let r = self.funary_value(op, ty, a, site)?;
        self.watch(site, &[(ty, *a), (ty, r)]);
        Ok(r)
    }

    #[inline]
    fn fbinary(
        &mut self,
        op: FBinaryOp,
        ty: FloatTy,
        a: &u64,
        b: &u64,
        site: OpSite,
    ) -> DResult<u64> {
        let r = self.fbinary_value(op, ty, a, b, site)?;
        self.watch(site, &[(ty, *a), (ty, *b), (ty, r)]);
        Ok(r)
    }

    fn fma(&mut self, ty: FloatTy, a: &u64, b: &u64, c: &u64, site: OpSite) -> DResult<u64> {
        let (r, fl) = call_fma(ty == FloatTy::F32, *a, *b, *c, self.env);
        self.note(fl, site);
        self.watch(site, &[(ty, *a), (ty, *b), (ty, *c), (ty, r)]);
        Ok(r)
    }

    fn math(&mut self, func: MathFn, ty: FloatTy, args: &[u64], site: OpSite) -> DResult<u64> {
        if args.len() != func.arity() {
            return Err(WalkError::unsupported(format!(
                "{} with {} arguments",
                func.c_name(),
                args.len()
            )));
        }
        let r = self.libm_call(LibmFn::Math(func), ty, args, site)?;
        if self.assumptions.is_some() {
            let mut values: Vec<(FloatTy, u64)> = args.iter().map(|&a| (ty, a)).collect();
            values.push((ty, r));
            self.watch(site, &values);
        }
        Ok(r)
    }

    #[inline]
    fn math_out(
        &mut self,
        func: OutMathFn,
        ty: FloatTy,
        args: &[u64],
        site: OpSite,
    ) -> DResult<(Option<u64>, Vec<Option<u64>>)> {
        if args.len() != func.arity() {
            return Err(WalkError::unsupported(format!(
                "{} with {} arguments",
                func.c_name(ty),
                args.len()
            )));
        }
        let (r, outs, fl) = call_libm_out(func, ty == FloatTy::F32, args, self.env)
            .ok_or_else(|| WalkError::unsupported(format!("libm function {}", func.c_name(ty))))?;
        self.note(fl, site);
        let ret = func.returns_value().then_some(r);
        let outs = outs[..func.outputs().len()].to_vec();
        if self.assumptions.is_some() {
            let mut values: Vec<(FloatTy, u64)> = args.iter().map(|&a| (ty, a)).collect();
            // The call's fast-math flags (`nofpclass(nan inf)`) cover its arguments and
            // returned value, not what it stores.
            values.extend(ret.map(|r| (ty, r)));
            self.watch(site, &values);
        }
        Ok((ret, outs))
    }

    fn fcast(
        &mut self,
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        a: &u64,
        site: OpSite,
    ) -> DResult<u64> {
        let r = self.fcast_value(op, from, to, a, site)?;
        if let ScalarTy::Float(t) = from {
            self.watch(site, &[(t, *a)]);
        }
        if let ScalarTy::Float(t) = to {
            self.watch(site, &[(t, r)]);
        }
        Ok(r)
    }

    #[inline]
    fn icast(&mut self, op: CastOp, from: ScalarTy, to: ScalarTy, a: &u64) -> DResult<u64> {
        let fw = match from {
            ScalarTy::Int(w) => w,
            ScalarTy::Float(f) => f.bits(),
            ScalarTy::Ptr => 64,
        };
        let tw = match to {
            ScalarTy::Int(w) => w,
            ScalarTy::Float(f) => f.bits(),
            ScalarTy::Ptr => 64,
        };
        Ok(match op {
            CastOp::Trunc | CastOp::BitCast => truncate_bits(*a, tw),
            CastOp::ZExt => truncate_bits(*a, fw),
            CastOp::SExt => truncate_bits(sign_extend(*a, fw) as u64, tw),
            _ => return Err(WalkError::unsupported(format!("integer conversion {op:?}"))),
        })
    }

    #[inline]
    fn ibin(&mut self, op: IBinOp, width: u32, a: &u64, b: &u64) -> DResult<u64> {
        int_binop(op, width, *a, *b)
    }

    #[inline]
    fn icmp(&mut self, pred: ICmpPred, width: u32, a: &u64, b: &u64) -> DResult<u64> {
        Ok(u64::from(int_cmp(pred, width, *a, *b)))
    }

    #[inline]
    fn iabs(&mut self, width: u32, a: &u64) -> DResult<u64> {
        Ok(truncate_bits(
            int_as_i64(*a, width).wrapping_abs() as u64,
            width,
        ))
    }

    #[inline]
    fn select(&mut self, cond: &u64, a: &u64, b: &u64) -> DResult<u64> {
        Ok(if cond & 1 != 0 { *a } else { *b })
    }

    #[inline]
    fn decide(&mut self, cond: &u64) -> DResult<Decision> {
        Ok(Decision::Known(cond & 1 != 0))
    }

    /// The processor's own directed rounding: MXCSR's rounding field, part of the mode
    /// until the walk ends (flags are cleared by reloading the mode), loaded now inside
    /// a walk.
    /// glibc's `fesetround` also sets the x87 control word, which only `long double`
    /// arithmetic reads; the walks model no such value.
    fn set_rounding(&mut self, direction: RoundingDirection) -> DResult<()> {
        let control = direction.fenv_value() << 3;
        self.mxcsr = (self.mxcsr & !MXCSR_ROUNDING) | control;
        match self.env {
            Env::Isolated(_) => self.env = Env::Isolated(self.mxcsr),
            Env::Active | Env::Unchecked => {
                let current = stmxcsr();
                if current & MXCSR_ROUNDING != control {
                    ldmxcsr((current & !MXCSR_ROUNDING) | control);
                }
            }
        }
        Ok(())
    }

    fn rounding(&self) -> RoundingDirection {
        RoundingDirection::from_fenv((self.mxcsr & MXCSR_ROUNDING) >> 3).unwrap_or_default()
    }

    fn native_call(
        &mut self,
        call: &ExternalCall,
        args: &[u64],
        site: Option<OpSite>,
    ) -> DResult<Option<u64>> {
        let (bits, raised) = self.foreign.call(call, args, self.env)?;
        match site {
            Some(site) => self.note(raised, site),
            // No floats cross the call: what it raised inside has no operation to name.
            None => {
                let raised = raised & self.union_mask();
                self.flags = self.flags.union(ExceptionSet::from_mxcsr(raised));
            }
        }
        Ok((call.ret != Type::Void).then_some(bits))
    }
}

#[inline]
fn map_d((r, f): (f64, u32)) -> (u64, u32) {
    (r.to_bits(), f)
}
#[inline]
fn map_s((r, f): (f32, u32)) -> (u64, u32) {
    (u64::from(r.to_bits()), f)
}

/// `sitofp`: narrow integers are sign-extended to 32 bits, i64 uses the 64-bit form.
#[inline]
fn sitofp(v: i64, width: u32, to: FloatTy, m: Env) -> (u64, u32) {
    match (to, width <= 32) {
        (FloatTy::F64, true) => map_d(cvtsi2sd32(v as i32, m)),
        (FloatTy::F64, false) => map_d(cvtsi2sd64(v, m)),
        (FloatTy::F32, true) => map_s(cvtsi2ss32(v as i32, m)),
        (FloatTy::F32, false) => map_s(cvtsi2ss64(v, m)),
    }
}

/// `uitofp` as the x86-64 backend lowers it: up to 32 bits zero-extend and convert as
/// signed 64-bit; 64-bit values with the top bit set are halved (keeping the lost bit
/// sticky), converted, and doubled.
fn uitofp(v: u64, width: u32, to: FloatTy, m: Env) -> (u64, u32) {
    if width < 64 || (v as i64) >= 0 {
        return sitofp(v as i64, 64, to, m);
    }
    let halved = ((v >> 1) | (v & 1)) as i64;
    match to {
        FloatTy::F64 => {
            let (h, f1) = cvtsi2sd64(halved, m);
            let (r, f2) = addsd(h, h, m);
            (r.to_bits(), f1 | f2)
        }
        FloatTy::F32 => {
            let (h, f1) = cvtsi2ss64(halved, m);
            let (r, f2) = addss(h, h, m);
            (u64::from(r.to_bits()), f1 | f2)
        }
    }
}

#[inline]
fn cvtt(a: u64, from: FloatTy, wide: bool, m: Env) -> (u64, u32) {
    match (from, wide) {
        (FloatTy::F64, false) => {
            let (r, f) = cvttsd2si32(f64b(a), m);
            (u64::from(r as u32), f)
        }
        (FloatTy::F64, true) => {
            let (r, f) = cvttsd2si64(f64b(a), m);
            (r as u64, f)
        }
        (FloatTy::F32, false) => {
            let (r, f) = cvttss2si32(f32b(a), m);
            (u64::from(r as u32), f)
        }
        (FloatTy::F32, true) => {
            let (r, f) = cvttss2si64(f32b(a), m);
            (r as u64, f)
        }
    }
}

/// `fptosi`: widths up to 32 use the 32-bit `cvtt*2si` and truncate.
#[inline]
fn fptosi(a: u64, from: FloatTy, width: u32, m: Env) -> (u64, u32) {
    let (r, f) = cvtt(a, from, width > 32, m);
    (truncate_bits(r, width), f)
}

/// `fptoui` as x86-64 lowers it: below 32 bits via the 32-bit signed conversion, 32 bits
/// via the 64-bit one, 64 bits as `a | (b & (a >> 63))` with a = cvtt(x) and
/// b = cvtt(x − 2⁶³), both always executed.
fn fptoui(a: u64, from: FloatTy, width: u32, m: Env) -> (u64, u32) {
    if width < 32 {
        let (r, f) = cvtt(a, from, false, m);
        return (truncate_bits(r, width), f);
    }
    if width == 32 {
        let (r, f) = cvtt(a, from, true, m);
        return (truncate_bits(r, 32), f);
    }
    let (lo, f1) = cvtt(a, from, true, m);
    let (shifted, f2) = match from {
        FloatTy::F64 => map_d(subsd(f64b(a), 9_223_372_036_854_775_808.0, m)),
        FloatTy::F32 => map_s(subss(f32b(a), 9_223_372_036_854_775_808.0, m)),
    };
    let (hi, f3) = cvtt(shifted, from, true, m);
    let mask = ((lo as i64) >> 63) as u64;
    (lo | (hi & mask), f1 | f2 | f3)
}

/// Integer arithmetic as x86-64 executes it: wrapping, shift counts masked to the register
/// width, division by zero and `MIN / -1` trapping (SIGFPE). Shared by every domain that
/// folds known integers.
pub fn int_binop(op: IBinOp, width: u32, a: u64, b: u64) -> DResult<u64> {
    let (x, y) = (truncate_bits(a, width), truncate_bits(b, width));
    let (sx, sy) = (int_as_i64(x, width), int_as_i64(y, width));
    let shift = (y as u32) & (width.max(1) - 1).max(if width > 32 { 63 } else { 31 });
    let r = match op {
        IBinOp::Add => x.wrapping_add(y),
        IBinOp::Sub => x.wrapping_sub(y),
        IBinOp::Mul => x.wrapping_mul(y),
        IBinOp::UDiv | IBinOp::URem | IBinOp::SDiv | IBinOp::SRem if y == 0 => {
            return Err(WalkError::trap("integer division by zero (SIGFPE)"))
        }
        IBinOp::SDiv | IBinOp::SRem
            if sy == -1 && sx == int_as_i64(1u64 << (width - 1), width) && width > 1 =>
        {
            return Err(WalkError::trap("integer division overflow (SIGFPE)"))
        }
        IBinOp::UDiv => x / y,
        IBinOp::URem => x % y,
        IBinOp::SDiv => sx.wrapping_div(sy) as u64,
        IBinOp::SRem => sx.wrapping_rem(sy) as u64,
        IBinOp::Shl => x.checked_shl(shift).unwrap_or(0),
        IBinOp::LShr => x.checked_shr(shift).unwrap_or(0),
        IBinOp::AShr => sx.checked_shr(shift).unwrap_or(if sx < 0 { -1 } else { 0 }) as u64,
        IBinOp::And => x & y,
        IBinOp::Or => x | y,
        IBinOp::Xor => x ^ y,
        IBinOp::SMax => sx.max(sy) as u64,
        IBinOp::SMin => sx.min(sy) as u64,
        IBinOp::UMax => x.max(y),
        IBinOp::UMin => x.min(y),
    };
    Ok(truncate_bits(r, width))
}

/// Integer comparison of `width`-bit values.
pub fn int_cmp(pred: ICmpPred, width: u32, a: u64, b: u64) -> bool {
    let (x, y) = (truncate_bits(a, width), truncate_bits(b, width));
    let (sx, sy) = (int_as_i64(x, width), int_as_i64(y, width));
    match pred {
        ICmpPred::Eq => x == y,
        ICmpPred::Ne => x != y,
        ICmpPred::Ugt => x > y,
        ICmpPred::Uge => x >= y,
        ICmpPred::Ult => x < y,
        ICmpPred::Ule => x <= y,
        ICmpPred::Sgt => sx > sy,
        ICmpPred::Sge => sx >= sy,
        ICmpPred::Slt => sx < sy,
        ICmpPred::Sle => sx <= sy,
    }
}
