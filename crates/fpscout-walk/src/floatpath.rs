//! The float-path domain: each explored path's floating-point operations as a float-exact constraint network (fpscout-fpsolve), forking on symbolic comparisons.
//!
//! Scalars are known bits (constants, concrete integers) or variables of the path's
//! [`Network`]. Operations on known bits run as the concrete domain runs them (x86 SSE,
//! the build's FTZ/DAZ); operations on variables add a constraint. A branch on a
//! comparison of variables asks propagation which directions are still possible: a
//! direction whose network empties is dropped, which is sound because an empty domain
//! is a proof over floats. What the network cannot express (libm other than sqrt,
//! symbolic integers beyond conversions, bit reinterpretation of a variable) is a typed
//! `Err`, so the path counts as unknown, never as unreachable.

use crate::concrete::{Concrete, FpMode};
use crate::domain::{DResult, Decision, Domain, OpSite};
use crate::WalkError;
use fpscout_fpsolve::{
    integer_type_range, Arith, BitTest, BitView, Constraint, FcmpPredicate, FloatClasses,
    FloatDomain, FloatValue, Format, IntDomain, IntOrder, IntPredicate, LibmBinary, LibmFunction,
    MinMaxOp, Network, NetworkError, Propagation, VarId,
};
use fpscout_ir::{
    CastOp, CmpLowering, ExceptionSet, ExternalCall, FBinOp, FBinaryOp, FCmpPred, FUnaryOp,
    FloatTy, FpClassMask, FpOpId, IBinOp, ICmpPred, MathFn, OutMathFn, RoundingDirection, ScalarTy,
    Type,
};
use std::collections::HashSet;

/// Projections one feasibility check may run before it counts the branch as possible
/// (sound: an unfinished propagation never removes a solution). Propagation has no
/// deadline and creeps one float per projection on some constraints, so this stays small
/// enough for `reach` to keep its time budget.
const BRANCH_PROPAGATION_BUDGET: u64 = 20_000;

/// Variables and constraints of the networks recorded with watched executions, at
/// most, per domain: each execution copies the path's network, so a long path through
/// a loop would cost time and memory quadratic in its length (an unrolled N-body
/// simulation reached gigabytes). Executions past it are recorded as unstated.
pub const WATCHED_CELLS: usize = 2_000_000;

/// A test on float variables that must come out `holds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub test: Test,
    pub holds: bool,
}

/// What a [`Comparison`] tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    /// `fcmp predicate a, b`.
    Fcmp {
        predicate: FcmpPredicate,
        a: VarId,
        b: VarId,
    },
    /// `a` is in one of `classes` (`llvm.is.fpclass` tested on the bits).
    Class { a: VarId, classes: FloatClasses },
    /// An integer read from `a`'s bits (`view`) passes `predicate` against `k`.
    Bits {
        a: VarId,
        view: BitView,
        predicate: IntPredicate,
        k: u64,
    },
    /// The integer variable `a` (a float converted by `fptosi`/`fptoui`) lies in
    /// `[lo, hi]` (`holds`), or outside it.
    IntRange {
        a: VarId,
        lo: i128,
        hi: i128,
        holds: bool,
    },
    /// Integer variables `a` and `b` (two floats' bits read as numbers) in `order`.
    IntOrder { order: IntOrder, a: VarId, b: VarId },
}

impl Comparison {
    fn negated(self) -> Comparison {
        Comparison {
            holds: !self.holds,
            ..self
        }
    }
}

/// One lane's value on a path.
#[derive(Clone, Debug, PartialEq)]
pub enum PathScalar {
    /// Known bits (f32 bits in the low 32, integers zero-extended, booleans 0/1).
    Bits(u64),
    /// A float variable of the network.
    Float(VarId),
    /// An integer variable of the network (from `fptosi`/`fptoui`), its IR width, and a
    /// constant added to it (`i + 1`): the value is the variable plus the offset, which
    /// the path's domain of the variable showed not to wrap at the width.
    Int(VarId, u32, i128),
    /// An integer read from a float variable's bits (`GET_HIGH_WORD`, the exponent
    /// field, the sign): comparisons of it with constants are sets of floats.
    View(VarId, BitView),
    /// An i1, or a comparison zero-extended to an integer of `width` bits (C's `int` of a
    /// condition): 1 when the comparison comes out as `holds`, else 0.
    Condition(Comparison, u32),
    /// An integer chosen by `select`s on conditions: kept so that a comparison making
    /// every choice agree drops the conditions it does not need (glibc's `isinf` is
    /// `select(isinf, select(signbit, -1, 1), 0) != 0`, which never needs the sign).
    Choice(Box<Choice>),
    /// A value the network cannot express (why): an error wherever it matters.
    Unmodelled(String),
}

/// A tree of `select`s with known integers at the leaves.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    Leaf(u64),
    /// `cond ? then : else`, `cond` a [`PathScalar::Condition`] or an unmodelled value.
    If(PathScalar, Box<Choice>, Box<Choice>),
}

impl Choice {
    /// The same tree with each leaf mapped (a cast of the selected integers).
    fn map_leaves(&self, f: &mut impl FnMut(u64) -> DResult<u64>) -> DResult<Choice> {
        Ok(match self {
            Choice::Leaf(k) => Choice::Leaf(f(*k)?),
            Choice::If(cond, then, other) => Choice::If(
                cond.clone(),
                Box::new(then.map_leaves(f)?),
                Box::new(other.map_leaves(f)?),
            ),
        })
    }

    fn of(v: &PathScalar) -> Option<Choice> {
        match v {
            PathScalar::Bits(b) => Some(Choice::Leaf(*b)),
            PathScalar::Choice(c) => Some((**c).clone()),
            _ => None,
        }
    }

    /// The truth of `test` on each leaf, with every select whose two sides agree
    /// collapsed: a known boolean, a condition, or an error naming what is left.
    fn decide_leaves(&self, test: &impl Fn(u64) -> bool) -> DResult<PathScalar> {
        match self {
            Choice::Leaf(k) => Ok(PathScalar::Bits(u64::from(test(*k)))),
            Choice::If(cond, then, other) => {
                let (t, e) = (then.decide_leaves(test)?, other.decide_leaves(test)?);
                if t == e {
                    return Ok(t);
                }
                match (cond, &t, &e) {
                    (PathScalar::Condition(c, _), PathScalar::Bits(1), PathScalar::Bits(0)) => {
                        Ok(PathScalar::Condition(*c, 1))
                    }
                    (PathScalar::Condition(c, _), PathScalar::Bits(0), PathScalar::Bits(1)) => {
                        Ok(PathScalar::Condition(c.negated(), 1))
                    }
                    (PathScalar::Unmodelled(why), _, _) => {
                        Err(WalkError::unsupported(why.clone()))
                    }
                    _ => Err(WalkError::unsupported(
                        "a combination of several symbolic conditions (not one float-solver constraint)",
                    )),
                }
            }
        }
    }
}

/// An input of the path: a named float variable.
#[derive(Clone, Debug, PartialEq)]
pub struct PathInput {
    pub name: String,
    pub ty: FloatTy,
    pub var: VarId,
}

/// C library functions whose result depends only on their number arguments and the
/// floating-point environment, and which change nothing the program reads afterwards
/// (errno aside): a float path takes their result as a fresh variable.
const PURE_EXTERNALS: &[&str] = &[
    "ilogb",
    "ilogbf",
    "lrint",
    "lrintf",
    "llrint",
    "llrintf",
    "lround",
    "lroundf",
    "llround",
    "llroundf",
    "scalbn",
    "scalbnf",
    "scalbln",
    "scalblnf",
    "ldexp",
    "ldexpf",
    "logb",
    "logbf",
    "nextafter",
    "nextafterf",
    "fetestexcept",
];

/// The libm functions the float solver models (glibc's results, widened
/// by its documented error bounds), named for messages.
const MODELLED_LIBM: &str = "exp, exp2, expm1, log, log2, log10, log1p, sin, cos, tan, \
asin, acos, atan, sinh, cosh, tanh, cbrt, erf, erfc, lgamma, tgamma, pow, atan2, hypot, fmod, \
remainder in IEEE mode";

/// The float solver's name for a libm function it models.
fn libm_function(func: MathFn) -> Option<LibmFunction> {
    Some(match func {
        MathFn::Exp => LibmFunction::Exp,
        MathFn::Exp2 => LibmFunction::Exp2,
        MathFn::Expm1 => LibmFunction::Expm1,
        MathFn::Log => LibmFunction::Log,
        MathFn::Log2 => LibmFunction::Log2,
        MathFn::Log10 => LibmFunction::Log10,
        MathFn::Log1p => LibmFunction::Log1p,
        MathFn::Sin => LibmFunction::Sin,
        MathFn::Cos => LibmFunction::Cos,
        MathFn::Tan => LibmFunction::Tan,
        MathFn::Asin => LibmFunction::Asin,
        MathFn::Acos => LibmFunction::Acos,
        MathFn::Atan => LibmFunction::Atan,
        MathFn::Sinh => LibmFunction::Sinh,
        MathFn::Cosh => LibmFunction::Cosh,
        MathFn::Tanh => LibmFunction::Tanh,
        MathFn::Cbrt => LibmFunction::Cbrt,
        MathFn::Erf => LibmFunction::Erf,
        MathFn::Erfc => LibmFunction::Erfc,
        MathFn::Lgamma => LibmFunction::Lgamma,
        MathFn::Tgamma => LibmFunction::Tgamma,
        MathFn::Sqrt
        | MathFn::Pow
        | MathFn::Atan2
        | MathFn::Hypot
        | MathFn::Fmod
        | MathFn::Remainder => return None,
    })
}

/// The float solver's name for a two-argument libm function it models.
fn libm_binary_function(func: MathFn) -> Option<LibmBinary> {
    Some(match func {
        MathFn::Pow => LibmBinary::Pow,
        MathFn::Atan2 => LibmBinary::Atan2,
        MathFn::Hypot => LibmBinary::Hypot,
        MathFn::Fmod => LibmBinary::Fmod,
        MathFn::Remainder => LibmBinary::Remainder,
        _ => return None,
    })
}

/// The format of a float type.
pub fn format_of(ty: FloatTy) -> Format {
    match ty {
        FloatTy::F32 => Format::F32,
        FloatTy::F64 => Format::F64,
    }
}

/// The solver's predicate of an IR `fcmp` predicate (`None` for the constant ones).
pub fn predicate_of(pred: FCmpPred) -> Option<FcmpPredicate> {
    Some(match pred {
        FCmpPred::False | FCmpPred::True => return None,
        FCmpPred::Oeq => FcmpPredicate::Oeq,
        FCmpPred::Ogt => FcmpPredicate::Ogt,
        FCmpPred::Oge => FcmpPredicate::Oge,
        FCmpPred::Olt => FcmpPredicate::Olt,
        FCmpPred::Ole => FcmpPredicate::Ole,
        FCmpPred::One => FcmpPredicate::One,
        FCmpPred::Ord => FcmpPredicate::Ord,
        FCmpPred::Ueq => FcmpPredicate::Ueq,
        FCmpPred::Ugt => FcmpPredicate::Ugt,
        FCmpPred::Uge => FcmpPredicate::Uge,
        FCmpPred::Ult => FcmpPredicate::Ult,
        FCmpPred::Ule => FcmpPredicate::Ule,
        FCmpPred::Une => FcmpPredicate::Une,
        FCmpPred::Uno => FcmpPredicate::Uno,
    })
}

fn solver_error(e: NetworkError) -> WalkError {
    WalkError::unsupported(format!("float solver: {e}"))
}

/// A watched operation met on a path (see [`FloatPath::watch`]).
#[derive(Clone, Debug)]
pub struct Watched {
    pub site: OpSite,
    /// The path's network just after the operation: the path condition up to it, the
    /// operation's own constraint, the variables below.
    pub network: Network,
    pub op: WatchedOp,
}

/// What a watched operation was, in terms of the network's variables (constant operands
/// are point variables).
#[derive(Clone, Debug, PartialEq)]
pub enum WatchedOp {
    /// Decided whatever the inputs on this path: every operand was known and the concrete
    /// domain ran it, raising these exceptions (inexact aside); or the operation raises
    /// nothing on any operand (`fabs`, `sitofp`).
    Known(ExceptionSet),
    /// fadd, fsub, fmul or fdiv.
    Binary {
        op: FBinOp,
        a: VarId,
        b: VarId,
        result: VarId,
    },
    /// sqrt (the instruction or glibc's correctly rounded function).
    Sqrt { a: VarId, result: VarId },
    /// SSE min/max (`minsd`/`maxsd`): invalid on any NaN operand.
    MinMax { a: VarId, b: VarId },
    /// A comparison; `signalling` when its instruction raises invalid on quiet NaNs too.
    Compare {
        a: VarId,
        b: VarId,
        signalling: bool,
    },
    /// fpext or fptrunc.
    Convert { a: VarId, result: VarId },
    /// An operation whose exceptions are not stated as constraints, and why.
    Unstated(String),
}

/// The walker domain recording one path's float constraints.
pub struct FloatPath {
    /// The current path's network (cloned at forks: it is the path condition).
    network: Network,
    /// Runs operations on known bits exactly as the concrete domain does.
    concrete: Concrete,
    inputs: Vec<PathInput>,
    /// Symbolic branches whose two directions were both still possible.
    pub forks: u64,
    /// Branch directions propagation refuted (pruned without walking them).
    pub pruned: u64,
    /// Floats rebuilt from words the solver does not follow, each a free variable.
    pub rebuilt_floats: u64,
    /// Results of C library calls made fresh variables (`native_call`).
    pub external_results: u64,
    /// Whether branches are decided by propagation (on by default). Off, every symbolic
    /// branch forks and its constraint is only recorded, so that another solver (the
    /// Z3 baseline of `reach`) does all the deciding on the paths' networks.
    pub propagate_branches: bool,
    /// Operations whose every execution is recorded (see [`FloatPath::take_watched`]).
    watch: HashSet<FpOpId>,
    watched: Vec<Watched>,
    /// Network cells recorded so far (see [`WATCHED_CELLS`]).
    recorded: usize,
    /// The path's rounding direction (`fesetround`): the network rounds to nearest, so
    /// under another direction only operands the path pins to one number are computed.
    rounding: RoundingDirection,
}

impl FloatPath {
    /// A domain for a build running in `mode` (FTZ/DAZ apply to the network too).
    pub fn new(mode: FpMode) -> FloatPath {
        FloatPath {
            network: Network::new(Arith {
                flush_to_zero: mode.ftz,
                denormals_are_zero: mode.daz,
            }),
            concrete: Concrete::new(mode),
            inputs: Vec::new(),
            forks: 0,
            pruned: 0,
            rebuilt_floats: 0,
            external_results: 0,
            propagate_branches: true,
            watch: HashSet::new(),
            watched: Vec::new(),
            recorded: 0,
            rounding: RoundingDirection::ToNearest,
        }
    }

    /// Records every execution of these operations from now on, with the path's network
    /// at that point, for [`FloatPath::take_watched`].
    pub fn watch(&mut self, ops: impl IntoIterator<Item = FpOpId>) {
        self.watch.extend(ops);
    }

    /// The watched operations executed since the last call. An exploration's operations
    /// before a fork run once, so each execution is taken once, by the first path through
    /// it.
    pub fn take_watched(&mut self) -> Vec<Watched> {
        std::mem::take(&mut self.watched)
    }

    fn watching(&self, site: OpSite) -> bool {
        !self.watch.is_empty() && self.watch.contains(&site.op)
    }

    fn record(&mut self, site: OpSite, op: WatchedOp) {
        self.recorded += self.network.variable_count() + self.network.constraints().len();
        let (network, op) = if self.recorded > WATCHED_CELLS {
            let why = format!(
                "the walk's watched executions outgrew {WATCHED_CELLS} network variables and constraints"
            );
            (Network::new(self.network.arith()), WatchedOp::Unstated(why))
        } else {
            (self.network.clone(), op)
        };
        self.watched.push(Watched { site, network, op });
    }

    /// Runs a concrete operation on known bits; a watched one is recorded with the
    /// exceptions it raised.
    fn known_at<T>(
        &mut self,
        site: OpSite,
        op: impl FnOnce(&mut Concrete) -> DResult<T>,
    ) -> DResult<T> {
        if !self.watching(site) {
            return self.known(op);
        }
        self.concrete.clear();
        let out = op(&mut self.concrete);
        let raised = self.concrete.flags.without_inexact();
        self.concrete.clear();
        if out.is_ok() {
            self.record(site, WatchedOp::Known(raised));
        }
        out
    }

    /// A new float input named `name` ranging over `domain` (its format must be `ty`'s).
    pub fn input(&mut self, name: &str, ty: FloatTy, domain: FloatDomain) -> PathScalar {
        let var = self.network.float_var_in(name, domain);
        self.inputs.push(PathInput {
            name: name.to_string(),
            ty,
            var,
        });
        PathScalar::Float(var)
    }

    /// The inputs in creation order.
    pub fn inputs(&self) -> &[PathInput] {
        &self.inputs
    }

    /// The current path's network.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// The network variable of a float scalar (a constant becomes a point variable).
    pub fn float_var(&mut self, ty: FloatTy, v: &PathScalar) -> DResult<VarId> {
        let format = format_of(ty);
        match v {
            PathScalar::Float(var) => Ok(*var),
            PathScalar::Bits(bits) => Ok(self.network.float_const(format, format.from_bits(*bits))),
            PathScalar::Unmodelled(why) => Err(WalkError::unsupported(why.clone())),
            other => Err(WalkError::unsupported(format!(
                "{} used as a float of type {ty:?} (a select of floats or of their bits on a symbolic condition is not a float-solver constraint)",
                kind_of(other)
            ))),
        }
    }

    /// The bits of an operand of an operation that rounds while the path rounds in a
    /// direction other than to nearest: known bits, or a float the path pins to one
    /// number (`x` after `if (x != 1.0f) abort();`). Anything else is refused, since the
    /// network's operations round to nearest.
    fn pinned(&self, ty: FloatTy, v: &PathScalar, what: &str) -> DResult<u64> {
        let point = match v {
            PathScalar::Bits(bits) => return Ok(*bits),
            PathScalar::Float(var) => self
                .network
                .float_domain(*var)
                .ok()
                .and_then(|d| d.as_point())
                .filter(|p| matches!(p, FloatValue::Num(_))),
            _ => None,
        };
        point.map(|p| format_of(ty).to_bits(p)).ok_or_else(|| {
            WalkError::unsupported(format!(
                "{what} of a float input rounding {} (fesetround): the float solver's \
                 operations round to nearest",
                self.rounding
            ))
        })
    }

    fn rounds_to_nearest(&self) -> bool {
        self.rounding == RoundingDirection::ToNearest
    }

    /// Runs a concrete operation on known bits, forgetting its events (reach does not
    /// report exceptions).
    fn known<T>(&mut self, op: impl FnOnce(&mut Concrete) -> DResult<T>) -> DResult<T> {
        let out = op(&mut self.concrete);
        self.concrete.clear();
        out
    }

    /// Whether the path can still take `comparison` (propagation did not empty a domain).
    fn possible(&mut self, comparison: Comparison) -> DResult<bool> {
        self.network.feasible_with(
            |network| require(network, comparison),
            BRANCH_PROPAGATION_BUDGET,
        )
    }

    fn comparison_of(&self, cond: &PathScalar) -> DResult<Option<Comparison>> {
        match cond {
            PathScalar::Bits(_) => Ok(None),
            PathScalar::Condition(c, _) => Ok(Some(*c)),
            PathScalar::Unmodelled(why) => Err(WalkError::unsupported(why.clone())),
            other => Err(WalkError::unsupported(format!(
                "branch on a symbolic integer ({other:?})"
            ))),
        }
    }
}

/// A branch condition as one comparison or known bits: a `select` tree of conditions
/// with known leaves (`br (select c, true, false)`, -O3's `zext` of a condition) collapses
/// to the condition it tests.
fn branch_value(cond: &PathScalar) -> DResult<PathScalar> {
    match cond {
        PathScalar::Choice(choice) => choice.decide_leaves(&|k| k & 1 != 0),
        other => Ok(other.clone()),
    }
}

/// What the float solver models of a float's bits, for the reasons it gives elsewhere.
const UNMODELLED_BITS: &str = "a float's bits beyond what the float solver models (high words, the exponent field, the sign, masks clearing low bits or the sign)";

/// `op` on an integer read from a float's bits and a constant, as a narrower view; an
/// unmodelled value when the view cannot follow; `None` when no operand is a view.
fn view_binop(op: IBinOp, a: &PathScalar, b: &PathScalar) -> Option<PathScalar> {
    let (v, view, k, view_first) = match (a, b) {
        (PathScalar::View(v, view), PathScalar::Bits(k)) => (*v, *view, *k, true),
        (PathScalar::Bits(k), PathScalar::View(v, view)) => (*v, *view, *k, false),
        // `ix | lx`: a high part and the low word of the same float.
        (PathScalar::View(v, x), PathScalar::View(w, y)) if op == IBinOp::Or && v == w => {
            return Some(x.or(*y).map_or_else(
                || PathScalar::Unmodelled(format!("Or of two parts of {UNMODELLED_BITS}")),
                |view| PathScalar::View(*v, view),
            ));
        }
        // The first thing the float solver could not follow is the reason to give.
        (PathScalar::View(..), PathScalar::Unmodelled(why))
        | (PathScalar::Unmodelled(why), PathScalar::View(..)) => {
            return Some(PathScalar::Unmodelled(why.clone()))
        }
        (PathScalar::View(..), _) | (_, PathScalar::View(..)) => {
            return Some(PathScalar::Unmodelled(format!(
                "{op:?} of a float's bits with another symbolic integer"
            )))
        }
        _ => return None,
    };
    let out = view_binop_constant(op, view, k, view_first);
    Some(out.map_or_else(
        || PathScalar::Unmodelled(format!("{op:?} by {k:#x} of {UNMODELLED_BITS}")),
        |view| PathScalar::View(v, view),
    ))
}

/// What kind of value a scalar is, for messages.
fn kind_of(v: &PathScalar) -> &'static str {
    match v {
        PathScalar::Bits(_) => "a constant",
        PathScalar::Float(_) => "a float",
        PathScalar::Int(..) => "an integer converted from a float",
        PathScalar::View(..) => "a float's bits",
        PathScalar::Condition(..) => "a condition",
        PathScalar::Choice(_) => "a choice of integers",
        PathScalar::Unmodelled(_) => "an unmodelled value",
    }
}

/// `op` of a view and a constant `k` (`view op k`, or `k op view` when not
/// `view_first`) as a view, where the view can follow: the one mapping of integer
/// opcodes to `BitView` operations, for every domain that keeps views.
pub fn view_binop_constant(op: IBinOp, view: BitView, k: u64, view_first: bool) -> Option<BitView> {
    match (op, view_first) {
        (IBinOp::LShr, true) => view.lshr(k),
        (IBinOp::AShr, true) => view.ashr(k),
        (IBinOp::And, _) => view.and(k),
        (IBinOp::Add, _) => view.plus(k),
        (IBinOp::Sub, true) => view.plus(k.wrapping_neg()),
        (IBinOp::Sub, false) if k == 0 => view.negated(),
        (IBinOp::Shl, true) => view.shifted_left(k),
        (IBinOp::Mul, _) if k.is_power_of_two() => view.shifted_left(u64::from(k.trailing_zeros())),
        _ => None,
    }
}

/// An integer cast of a view to `width` bits, where the view can follow.
pub fn view_cast(op: CastOp, view: BitView, width: u32) -> Option<BitView> {
    match op {
        CastOp::Trunc => view.trunc(width),
        CastOp::ZExt => view.zext(width),
        CastOp::SExt => view.sext(width),
        _ => None,
    }
}

/// The solver's integer predicate of an IR `icmp` predicate.
pub fn int_predicate(pred: ICmpPred) -> IntPredicate {
    match pred {
        ICmpPred::Eq => IntPredicate::Eq,
        ICmpPred::Ne => IntPredicate::Ne,
        ICmpPred::Ult => IntPredicate::Ult,
        ICmpPred::Ule => IntPredicate::Ule,
        ICmpPred::Ugt => IntPredicate::Ugt,
        ICmpPred::Uge => IntPredicate::Uge,
        ICmpPred::Slt => IntPredicate::Slt,
        ICmpPred::Sle => IntPredicate::Sle,
        ICmpPred::Sgt => IntPredicate::Sgt,
        ICmpPred::Sge => IntPredicate::Sge,
    }
}

fn require(network: &mut Network, c: Comparison) -> DResult<()> {
    match c.test {
        Test::Fcmp { predicate, a, b } => network.require(predicate, a, b, c.holds),
        Test::Class { a, classes } => network.require_class(a, classes, c.holds),
        Test::Bits {
            a,
            view,
            predicate,
            k,
        } => {
            let predicate = if c.holds {
                predicate
            } else {
                predicate.negated()
            };
            network.require_bit_test(a, BitTest { view, predicate, k })
        }
        Test::IntOrder { order, a, b } => {
            let (order, a, b) = match (c.holds, order) {
                (true, _) => (order, a, b),
                (false, IntOrder::Less) => (IntOrder::LessOrEqual, b, a),
                (false, IntOrder::LessOrEqual) => (IntOrder::Less, b, a),
                (false, IntOrder::Equal) => (IntOrder::NotEqual, a, b),
                (false, IntOrder::NotEqual) => (IntOrder::Equal, a, b),
            };
            network.require_int_order(order, a, b)
        }
        Test::IntRange { a, lo, hi, holds } => {
            // `int_range_test` made this test only for a converted integer.
            let (min, max) = type_range_of(network, a)?.unwrap_or((i128::MIN, i128::MAX));
            let range = if c.holds == holds {
                Some((lo, hi))
            } else if lo <= min {
                Some((hi.saturating_add(1), max))
            } else if hi >= max {
                Some((min, lo.saturating_sub(1)))
            } else {
                // Outside an inner interval is two intervals, which an integer domain
                // cannot hold: left unrequired, the path condition is larger than the
                // path's (a refutation stays sound; a solution is replayed before it
                // counts).
                None
            };
            match range {
                Some((lo, hi)) => {
                    network.restrict(a, fpscout_fpsolve::Domain::Int(IntDomain::new(lo, hi)))
                }
                None => Ok(()),
            }
        }
    }
    .map_err(solver_error)
}

/// The predicate with its operands swapped (`k < x` is `x > k`).
fn swapped(pred: ICmpPred) -> ICmpPred {
    match pred {
        ICmpPred::Slt => ICmpPred::Sgt,
        ICmpPred::Sle => ICmpPred::Sge,
        ICmpPred::Sgt => ICmpPred::Slt,
        ICmpPred::Sge => ICmpPred::Sle,
        ICmpPred::Ult => ICmpPred::Ugt,
        ICmpPred::Ule => ICmpPred::Uge,
        ICmpPred::Ugt => ICmpPred::Ult,
        ICmpPred::Uge => ICmpPred::Ule,
        other => other,
    }
}

/// The values an integer variable's type holds (its declared bounds, before any
/// narrowing): the bounds of its `fptosi`/`fptoui` constraint's integer type.
fn type_range_of(network: &Network, a: VarId) -> DResult<Option<(i128, i128)>> {
    if let Some(&Constraint::FloatToInt { bits, signed, .. }) = network.definition(a) {
        return Ok(Some(integer_type_range(bits, signed)));
    }
    // A library call's fresh result: its domain, which started as its type's range and
    // only narrows with the path (values outside it are excluded either way).
    Ok(network.int_domain(a).map_err(solver_error)?.range())
}

/// The solver's classes of an `llvm.is.fpclass` mask; `None` when the mask tells
/// signalling from quiet NaNs, which the solver's payload-less NaN cannot.
pub fn classes_of(mask: FpClassMask) -> Option<FloatClasses> {
    let nan = mask.0 & FpClassMask::NAN;
    if nan != 0 && nan != FpClassMask::NAN {
        return None;
    }
    let pairs = [
        (FpClassMask::NAN, FloatClasses::NAN),
        (FpClassMask::NEG_INF, FloatClasses::NEG_INF),
        (FpClassMask::NEG_NORMAL, FloatClasses::NEG_NORMAL),
        (FpClassMask::NEG_SUBNORMAL, FloatClasses::NEG_SUBNORMAL),
        (FpClassMask::NEG_ZERO, FloatClasses::NEG_ZERO),
        (FpClassMask::POS_ZERO, FloatClasses::POS_ZERO),
        (FpClassMask::POS_SUBNORMAL, FloatClasses::POS_SUBNORMAL),
        (FpClassMask::POS_NORMAL, FloatClasses::POS_NORMAL),
        (FpClassMask::POS_INF, FloatClasses::POS_INF),
    ];
    Some(
        pairs
            .into_iter()
            .filter(|(bits, _)| mask.any(*bits))
            .fold(FloatClasses::NONE, |all, (_, class)| all.union(class)),
    )
}

fn sign_bit(ty: FloatTy) -> u64 {
    match ty {
        FloatTy::F32 => 0x8000_0000,
        FloatTy::F64 => 0x8000_0000_0000_0000,
    }
}

impl FloatPath {
    /// `ldexp(x, n)` (`scalbn`, `scalbln`) of a known `n` whose power of two is a normal
    /// float: the product `x · 2ⁿ`, which glibc rounds once as the multiplication does
    /// (IEEE mode only). `None` for other calls and exponents: a fresh variable then.
    fn exact_scaling(&mut self, name: &str, args: &[PathScalar]) -> DResult<Option<PathScalar>> {
        let (ty, exponent_width) = match name {
            "ldexp" | "scalbn" => (FloatTy::F64, 32),
            "scalbln" => (FloatTy::F64, 64),
            "ldexpf" | "scalbnf" => (FloatTy::F32, 32),
            "scalblnf" => (FloatTy::F32, 64),
            _ => return Ok(None),
        };
        let [x, n] = args else { return Ok(None) };
        let Some(n) = self.concrete_bits(n) else {
            return Ok(None);
        };
        let n = fpscout_ir::sign_extend(n, exponent_width);
        let normal_exponents = match ty {
            FloatTy::F64 => -1022..=1023,
            FloatTy::F32 => -126..=127,
        };
        if !normal_exponents.contains(&n)
            || self.network.arith() != Arith::IEEE
            || !self.rounds_to_nearest()
        {
            return Ok(None);
        }
        let x = self.float_var(ty, x)?;
        let power = self
            .network
            .float_const_f64(format_of(ty), (n as f64).exp2());
        let product = self.network.fmul(x, power).map_err(solver_error)?;
        Ok(Some(PathScalar::Float(product)))
    }

    /// `ilogb(x)` as x's exponent field less the bias, exactly, when every value x may
    /// take on this path is a normal float (zeros, subnormals, infinities and NaN have
    /// other results there: then the call stays a fresh integer).
    fn exact_ilogb(&mut self, name: &str, args: &[PathScalar]) -> DResult<Option<PathScalar>> {
        if !matches!(name, "ilogb" | "ilogbf") {
            return Ok(None);
        }
        let [PathScalar::Float(x)] = args else {
            return Ok(None);
        };
        Ok(self
            .exponent_view(*x, 0)?
            .map(|view| PathScalar::View(*x, view)))
    }

    /// The unbiased exponent of `x` plus `offset`, as a 32-bit view of x's bits (`ilogb`
    /// is offset 0, frexp's exponent 1), when every value x may take on this path is a
    /// normal float of one sign; `None` otherwise.
    fn exponent_view(&self, x: VarId, offset: i64) -> DResult<Option<BitView>> {
        let domain = self.network.float_domain(x).map_err(solver_error)?;
        let format = domain.format();
        let Some((lo, hi)) = domain.range() else {
            return Ok(None);
        };
        let (min, max) = (format.min_normal(), format.max_finite());
        let positive = min <= lo && hi <= max;
        let negative = format.negate(max) <= lo && hi <= format.negate(min);
        if domain.may_be_nan() || !(positive || negative) {
            return Ok(None);
        }
        Ok(BitView::of(format)
            .lshr(u64::from(format.fraction_bits()))
            .and_then(|v| v.and((1 << format.exponent_bits()) - 1))
            .and_then(|v| v.trunc(32))
            .and_then(|v| v.plus((offset - format.bias()) as u64)))
    }

    /// The result `r` of libm's `func` at `site`, recorded as unstated where watched: the
    /// flags glibc raises (log(0), exp overflow) are not constraints.
    fn libm_result(&mut self, name: &str, site: OpSite, r: VarId) -> PathScalar {
        if self.watching(site) {
            self.record(
                site,
                WatchedOp::Unstated(format!(
                    "the exceptions of libm's '{name}' are not modelled"
                )),
            );
        }
        PathScalar::Float(r)
    }

    /// A name for a fresh variable standing for what `what` returns or writes.
    fn fresh_name(&mut self, what: &str) -> String {
        self.external_results += 1;
        format!("{what}#{}", self.external_results)
    }

    /// An integer of `width` bits the float solver does not relate to anything (the
    /// result of an integer-valued C function, frexp's exponent, lgamma_r's sign,
    /// remquo's quotient bits): a fresh variable over every value `[lo, hi]` it may
    /// take, so a refutation holds whatever it is and a solution counts once it replays.
    fn fresh_int(&mut self, what: &str, width: u32, lo: i128, hi: i128) -> DResult<PathScalar> {
        let name = self.fresh_name(what);
        let v = self.network.int_var(&name, lo, hi).map_err(solver_error)?;
        Ok(PathScalar::Int(v, width, 0))
    }

    /// Whether `s` is a symbolic integer the walker may fork over (see `few_values`).
    fn has_few_values(&mut self, s: &PathScalar) -> DResult<bool> {
        Ok(matches!(s, PathScalar::Int(..))
            && self.few_values(s, crate::walker::SPLIT_VALUES)?.is_some())
    }

    /// The values `v + offset` takes on this path (the variable's current domain,
    /// shifted), or `None` when its domain is empty.
    fn value_range(&self, v: VarId, offset: i128) -> DResult<Option<(i128, i128)>> {
        let domain = self.network.int_domain(v).map_err(solver_error)?;
        Ok(domain
            .range()
            .map(|(lo, hi)| (lo.saturating_add(offset), hi.saturating_add(offset))))
    }

    /// An integer the network can hold as a variable plus an offset: a converted float,
    /// or a float's bits read as an unsigned number.
    fn int_term(&mut self, width: u32, s: &PathScalar) -> DResult<Option<(VarId, i128)>> {
        Ok(match s {
            PathScalar::Int(v, w, c) if *w == width => Some((*v, *c)),
            PathScalar::View(x, view) if view.convertible() && view.width() == width => Some((
                self.network
                    .bits_to_int(*x, *view, false)
                    .map_err(solver_error)?,
                0,
            )),
            _ => None,
        })
    }

    /// `a + b` or `a - b` of two symbolic integers (hypot's `ex - ey` of two exponent
    /// fields) while the sum cannot wrap: `None` when an operand is not such an integer.
    fn int_sum(
        &mut self,
        op: IBinOp,
        width: u32,
        a: &PathScalar,
        b: &PathScalar,
    ) -> DResult<Option<PathScalar>> {
        let subtract = match op {
            IBinOp::Add => false,
            IBinOp::Sub => true,
            _ => return Ok(None),
        };
        let symbolic = |s: &PathScalar| matches!(s, PathScalar::Int(..) | PathScalar::View(..));
        if !symbolic(a) || !symbolic(b) {
            return Ok(None);
        }
        let (Some((x, cx)), Some((y, cy))) = (self.int_term(width, a)?, self.int_term(width, b)?)
        else {
            return Ok(None);
        };
        let sum = self.network.int_sum(x, y, subtract).map_err(solver_error)?;
        let offset = if subtract { cx - cy } else { cx + cy };
        let (lo_ok, hi_ok) = integer_type_range(width, true);
        Ok(Some(match self.value_range(sum, offset)? {
            Some((lo, hi)) if lo_ok <= lo && hi <= hi_ok => PathScalar::Int(sum, width, offset),
            // An empty domain: the path is already infeasible.
            None => PathScalar::Int(sum, width, offset),
            Some(_) => PathScalar::Unmodelled(format!(
                "{op:?} of two symbolic integers that may wrap at {width} bits"
            )),
        }))
    }

    /// `pred` between two views of floats' bits, each read as a number in the
    /// predicate's signedness (equality reads unsigned).
    fn view_order_test(
        &mut self,
        pred: ICmpPred,
        (x, x_view): (VarId, BitView),
        (y, y_view): (VarId, BitView),
    ) -> DResult<Test> {
        let signed = matches!(
            pred,
            ICmpPred::Slt | ICmpPred::Sle | ICmpPred::Sgt | ICmpPred::Sge
        );
        let a = self
            .network
            .bits_to_int(x, x_view, signed)
            .map_err(solver_error)?;
        let b = self
            .network
            .bits_to_int(y, y_view, signed)
            .map_err(solver_error)?;
        let (order, a, b) = match pred {
            ICmpPred::Eq => (IntOrder::Equal, a, b),
            ICmpPred::Ne => (IntOrder::NotEqual, a, b),
            ICmpPred::Slt | ICmpPred::Ult => (IntOrder::Less, a, b),
            ICmpPred::Sle | ICmpPred::Ule => (IntOrder::LessOrEqual, a, b),
            ICmpPred::Sgt | ICmpPred::Ugt => (IntOrder::Less, b, a),
            ICmpPred::Sge | ICmpPred::Uge => (IntOrder::LessOrEqual, b, a),
        };
        Ok(Test::IntOrder { order, a, b })
    }

    /// `(v + offset) pred k` at `width` bits, as a range of `v`: exact when every value
    /// the path leaves `v + offset` reads the same in the predicate's signedness.
    fn int_range_test(
        &self,
        (v, offset): (VarId, i128),
        pred: ICmpPred,
        width: u32,
        k: u64,
    ) -> DResult<Test> {
        let refuse = |why: &str| {
            Err(WalkError::unsupported(format!(
                "{pred:?} comparison of an integer converted from a float {why}"
            )))
        };
        let Some((min, max)) = type_range_of(&self.network, v)? else {
            return refuse("(no conversion found)");
        };
        let Some((lo, hi)) = self.value_range(v, offset)? else {
            // An empty domain: the path is infeasible whatever is required.
            return Ok(Test::IntRange {
                a: v,
                lo: 1,
                hi: 0,
                holds: true,
            });
        };
        let (signed_lo, signed_hi) = integer_type_range(width, true);
        let (_, unsigned_hi) = integer_type_range(width, false);
        let reads_signed = signed_lo <= lo && hi <= signed_hi;
        let reads_unsigned = 0 <= lo && hi <= unsigned_hi;
        let ks = i128::from(fpscout_ir::sign_extend(k, width));
        let ku = i128::from(k);
        // The values the comparison holds on, as a range of `v + offset`, and whether the
        // comparison is that range or its complement.
        let (range, holds) = match pred {
            ICmpPred::Eq | ICmpPred::Ne if reads_signed => ((ks, ks), pred == ICmpPred::Eq),
            ICmpPred::Eq | ICmpPred::Ne if reads_unsigned => ((ku, ku), pred == ICmpPred::Eq),
            ICmpPred::Slt if reads_signed => ((i128::MIN, ks - 1), true),
            ICmpPred::Sle if reads_signed => ((i128::MIN, ks), true),
            ICmpPred::Sgt if reads_signed => ((ks + 1, i128::MAX), true),
            ICmpPred::Sge if reads_signed => ((ks, i128::MAX), true),
            ICmpPred::Ult if reads_unsigned => ((i128::MIN, ku - 1), true),
            ICmpPred::Ule if reads_unsigned => ((i128::MIN, ku), true),
            ICmpPred::Ugt if reads_unsigned => ((ku + 1, i128::MAX), true),
            ICmpPred::Uge if reads_unsigned => ((ku, i128::MAX), true),
            // A negative value read unsigned is above every small constant: `x <u k` is
            // `0 <= x < k` (C's `i + 1 < sizeof T / sizeof T[0]`).
            ICmpPred::Ult | ICmpPred::Ule | ICmpPred::Ugt | ICmpPred::Uge
                if reads_signed && ku <= signed_hi =>
            {
                let top = if matches!(pred, ICmpPred::Ult | ICmpPred::Uge) {
                    ku - 1
                } else {
                    ku
                };
                ((0, top), matches!(pred, ICmpPred::Ult | ICmpPred::Ule))
            }
            _ => return refuse("whose values read differently in the comparison's signedness"),
        };
        // As a range of `v`, within its type (an empty range stays empty).
        let lo = range.0.saturating_sub(offset).max(min);
        let hi = range.1.saturating_sub(offset).min(max);
        let (lo, hi) = if lo <= hi { (lo, hi) } else { (1, 0) };
        Ok(Test::IntRange {
            a: v,
            lo,
            hi,
            holds,
        })
    }

    /// Whether every value the path leaves `v` reads as itself in `width` bits of the
    /// given signedness (what `sitofp`/`uitofp` read).
    fn reads_as_value(&self, v: VarId, width: u32, signed: bool) -> DResult<bool> {
        let (lo_ok, hi_ok) = integer_type_range(width, signed);
        Ok(self
            .value_range(v, 0)?
            .is_none_or(|(lo, hi)| lo_ok <= lo && hi <= hi_ok))
    }

    /// `v + offset` as one width's integer in another (`sext`, `zext`), when every
    /// value the path leaves it keeps its value.
    fn int_extended(
        &self,
        (v, offset): (VarId, i128),
        signed: bool,
        from: u32,
        to: u32,
    ) -> DResult<PathScalar> {
        let (lo_ok, hi_ok) = integer_type_range(from, signed);
        match self.value_range(v, offset)? {
            Some((lo, hi)) if lo_ok <= lo && hi <= hi_ok => Ok(PathScalar::Int(v, to, offset)),
            None => Ok(PathScalar::Int(v, to, offset)),
            Some(_) => Err(WalkError::unsupported(format!(
                "{} of an integer converted from a float whose values may not keep their value",
                if signed { "sext" } else { "zext" }
            ))),
        }
    }
}

impl Domain for FloatPath {
    type Scalar = PathScalar;
    type Snapshot = (Network, RoundingDirection);

    fn snapshot(&self) -> (Network, RoundingDirection) {
        (self.network.clone(), self.rounding)
    }

    fn restore(&mut self, (network, rounding): (Network, RoundingDirection)) {
        self.network = network;
        // Infallible in the concrete domain.
        let _ = self.set_rounding(rounding);
    }

    fn begin_walk(&mut self) {
        let _ = self.set_rounding(RoundingDirection::ToNearest);
    }

    /// The network's NaN has no payload: any `nan(tag)` is a NaN, whatever the tag.
    fn nan_from_tag(&mut self, ty: FloatTy, _tag: Option<&[u8]>) -> DResult<PathScalar> {
        let name = self.fresh_name("nan");
        let format = format_of(ty);
        Ok(PathScalar::Float(
            self.network
                .float_var_in(&name, FloatDomain::nan_only(format)),
        ))
    }

    fn set_rounding(&mut self, direction: RoundingDirection) -> DResult<()> {
        self.rounding = direction;
        self.concrete.set_rounding(direction)
    }

    fn rounding(&self) -> RoundingDirection {
        self.rounding
    }

    fn constant(&self, _ty: ScalarTy, bits: u64) -> PathScalar {
        PathScalar::Bits(bits)
    }

    fn concrete_bits(&self, v: &PathScalar) -> Option<u64> {
        match v {
            PathScalar::Bits(b) => Some(*b),
            _ => None,
        }
    }

    fn concretize(&mut self, v: &PathScalar, _ty: ScalarTy) -> DResult<u64> {
        self.concrete_bits(v).ok_or_else(|| {
            WalkError::unsupported("an address, index or switch value depends on a float input")
        })
    }

    fn fbin(
        &mut self,
        op: FBinOp,
        ty: FloatTy,
        a: &PathScalar,
        b: &PathScalar,
        site: OpSite,
    ) -> DResult<PathScalar> {
        if let (PathScalar::Bits(x), PathScalar::Bits(y)) = (a, b) {
            return self
                .known_at(site, |c| c.fbin(op, ty, x, y, site))
                .map(PathScalar::Bits);
        }
        if !self.rounds_to_nearest() && op != FBinOp::FRem {
            let (x, y) = (
                self.pinned(ty, a, "arithmetic")?,
                self.pinned(ty, b, "arithmetic")?,
            );
            return self
                .known_at(site, |c| c.fbin(op, ty, &x, &y, site))
                .map(PathScalar::Bits);
        }
        let (x, y) = (self.float_var(ty, a)?, self.float_var(ty, b)?);
        let n = &mut self.network;
        let r = match op {
            FBinOp::FAdd => n.fadd(x, y),
            FBinOp::FSub => n.fsub(x, y),
            FBinOp::FMul => n.fmul(x, y),
            FBinOp::FDiv => n.fdiv(x, y),
            FBinOp::FRem => return Err(WalkError::unsupported("frem of a float input")),
        }
        .map_err(solver_error)?;
        if self.watching(site) {
            self.record(
                site,
                WatchedOp::Binary {
                    op,
                    a: x,
                    b: y,
                    result: r,
                },
            );
        }
        Ok(PathScalar::Float(r))
    }

    fn fneg(&mut self, ty: FloatTy, a: &PathScalar) -> DResult<PathScalar> {
        match a {
            PathScalar::Bits(bits) => Ok(PathScalar::Bits(bits ^ sign_bit(ty))),
            _ => {
                let x = self.float_var(ty, a)?;
                self.network
                    .fneg(x)
                    .map(PathScalar::Float)
                    .map_err(solver_error)
            }
        }
    }

    fn fcmp(
        &mut self,
        pred: FCmpPred,
        lowering: CmpLowering,
        ty: FloatTy,
        a: &PathScalar,
        b: &PathScalar,
        site: OpSite,
    ) -> DResult<PathScalar> {
        if let (PathScalar::Bits(x), PathScalar::Bits(y)) = (a, b) {
            return self
                .known_at(site, |c| c.fcmp(pred, lowering, ty, x, y, site))
                .map(PathScalar::Bits);
        }
        let Some(predicate) = predicate_of(pred) else {
            // `fcmp true`/`false` is no instruction.
            if self.watching(site) {
                self.record(site, WatchedOp::Known(ExceptionSet::EMPTY));
            }
            return Ok(PathScalar::Bits(u64::from(pred == FCmpPred::True)));
        };
        let (x, y) = (self.float_var(ty, a)?, self.float_var(ty, b)?);
        if self.watching(site) {
            let signalling = lowering == CmpLowering::Mask && pred.is_relational();
            self.record(
                site,
                WatchedOp::Compare {
                    a: x,
                    b: y,
                    signalling,
                },
            );
        }
        Ok(PathScalar::Condition(
            Comparison {
                test: Test::Fcmp {
                    predicate,
                    a: x,
                    b: y,
                },
                holds: true,
            },
            1,
        ))
    }

    fn fclass(
        &mut self,
        mask: FpClassMask,
        ty: FloatTy,
        a: &PathScalar,
        site: OpSite,
    ) -> DResult<PathScalar> {
        if let PathScalar::Bits(x) = a {
            return self
                .known_at(site, |c| c.fclass(mask, ty, x, site))
                .map(PathScalar::Bits);
        }
        let classes = classes_of(mask).ok_or_else(|| {
            WalkError::unsupported(
                "a class test telling signalling from quiet NaNs (the float solver's NaN has no payload)",
            )
        })?;
        let x = self.float_var(ty, a)?;
        if self.watching(site) {
            self.record(site, WatchedOp::Known(ExceptionSet::EMPTY));
        }
        Ok(PathScalar::Condition(
            Comparison {
                test: Test::Class { a: x, classes },
                holds: true,
            },
            1,
        ))
    }

    fn funary(
        &mut self,
        op: FUnaryOp,
        ty: FloatTy,
        a: &PathScalar,
        site: OpSite,
    ) -> DResult<PathScalar> {
        if let PathScalar::Bits(x) = a {
            return self
                .known_at(site, |c| c.funary(op, ty, x, site))
                .map(PathScalar::Bits);
        }
        let rounds = matches!(
            op,
            FUnaryOp::SqrtInsn | FUnaryOp::Rint | FUnaryOp::NearbyInt
        );
        if rounds && !self.rounds_to_nearest() {
            let x = self.pinned(ty, a, &format!("{op:?}"))?;
            return self
                .known_at(site, |c| c.funary(op, ty, &x, site))
                .map(PathScalar::Bits);
        }
        let x = self.float_var(ty, a)?;
        let r = match op {
            FUnaryOp::SqrtInsn => self.network.sqrt(x),
            FUnaryOp::Fabs => self.network.fabs(x),
            // glibc's rounding functions (and roundsd) are exact; rint and nearbyint
            // round to nearest even, the only rounding mode walks run in.
            FUnaryOp::Floor => self.network.libm(LibmFunction::Floor, x),
            FUnaryOp::Ceil => self.network.libm(LibmFunction::Ceil, x),
            FUnaryOp::Trunc => self.network.libm(LibmFunction::Trunc, x),
            FUnaryOp::Round => self.network.libm(LibmFunction::Round, x),
            FUnaryOp::Rint | FUnaryOp::NearbyInt | FUnaryOp::RoundEven => {
                self.network.libm(LibmFunction::RoundEven, x)
            }
            other => {
                return Err(WalkError::unsupported(format!(
                    "{other:?} of a float input (the float solver models sqrt, fabs and the rounding functions)"
                )))
            }
        }
        .map_err(solver_error)?;
        if self.watching(site) {
            let watched = match op {
                FUnaryOp::SqrtInsn => WatchedOp::Sqrt { a: x, result: r },
                // A bit operation (andpd).
                FUnaryOp::Fabs => WatchedOp::Known(ExceptionSet::EMPTY),
                // rint's inexact and invalid on signalling NaNs are not constraints.
                other => WatchedOp::Unstated(format!("the exceptions of {other:?}")),
            };
            self.record(site, watched);
        }
        Ok(PathScalar::Float(r))
    }

    fn fbinary(
        &mut self,
        op: FBinaryOp,
        ty: FloatTy,
        a: &PathScalar,
        b: &PathScalar,
        site: OpSite,
    ) -> DResult<PathScalar> {
        if let (PathScalar::Bits(x), PathScalar::Bits(y)) = (a, b) {
            return self
                .known_at(site, |c| c.fbinary(op, ty, x, y, site))
                .map(PathScalar::Bits);
        }
        if let (FBinaryOp::CopySign, PathScalar::Bits(sign)) = (op, b) {
            // A known sign (`copysign(x, 1.0)`): |x|, negated for a negative sign; a bit
            // operation that raises nothing.
            let x = self.float_var(ty, a)?;
            let magnitude = self.network.fabs(x).map_err(solver_error)?;
            let r = if sign & sign_bit(ty) != 0 {
                self.network.fneg(magnitude).map_err(solver_error)?
            } else {
                magnitude
            };
            if self.watching(site) {
                self.record(site, WatchedOp::Known(ExceptionSet::EMPTY));
            }
            return Ok(PathScalar::Float(r));
        }
        let which = match op {
            FBinaryOp::MinSse => MinMaxOp::Min,
            FBinaryOp::MaxSse => MinMaxOp::Max,
            other => {
                return Err(WalkError::unsupported(format!(
                    "{other:?} of a float input (the float solver models SSE min/max, copysign with a known sign)"
                )))
            }
        };
        let (x, y) = (self.float_var(ty, a)?, self.float_var(ty, b)?);
        let r = self.network.min_max(which, x, y).map_err(solver_error)?;
        if self.watching(site) {
            self.record(site, WatchedOp::MinMax { a: x, b: y });
        }
        Ok(PathScalar::Float(r))
    }

    fn fma(
        &mut self,
        ty: FloatTy,
        a: &PathScalar,
        b: &PathScalar,
        c: &PathScalar,
        site: OpSite,
    ) -> DResult<PathScalar> {
        if let (PathScalar::Bits(x), PathScalar::Bits(y), PathScalar::Bits(z)) = (a, b, c) {
            return self
                .known_at(site, |k| k.fma(ty, x, y, z, site))
                .map(PathScalar::Bits);
        }
        if !self.rounds_to_nearest() {
            let what = "fused multiply-add";
            let (x, y, z) = (
                self.pinned(ty, a, what)?,
                self.pinned(ty, b, what)?,
                self.pinned(ty, c, what)?,
            );
            return self
                .known_at(site, |k| k.fma(ty, &x, &y, &z, site))
                .map(PathScalar::Bits);
        }
        Err(WalkError::unsupported(
            "fused multiply-add of a float input (one rounding: not a float-solver constraint)",
        ))
    }

    fn math(
        &mut self,
        func: MathFn,
        ty: FloatTy,
        args: &[PathScalar],
        site: OpSite,
    ) -> DResult<PathScalar> {
        if let Some(bits) = args
            .iter()
            .map(|a| self.concrete_bits(a))
            .collect::<Option<Vec<u64>>>()
        {
            return self
                .known_at(site, |c| c.math(func, ty, &bits, site))
                .map(PathScalar::Bits);
        }
        if !self.rounds_to_nearest() {
            let what = format!("libm function '{}'", func.c_name());
            let bits = args
                .iter()
                .map(|a| self.pinned(ty, a, &what))
                .collect::<DResult<Vec<u64>>>()?;
            return self
                .known_at(site, |c| c.math(func, ty, &bits, site))
                .map(PathScalar::Bits);
        }
        match (func, args) {
            // glibc's sqrt is correctly rounded: the instruction's constraint.
            (MathFn::Sqrt, [a]) => {
                let x = self.float_var(ty, a)?;
                let r = self.network.sqrt(x).map_err(solver_error)?;
                if self.watching(site) {
                    self.record(site, WatchedOp::Sqrt { a: x, result: r });
                }
                Ok(PathScalar::Float(r))
            }
            (_, [a]) => {
                let Some(function) = libm_function(func) else {
                    return Err(WalkError::unsupported(format!(
                        "libm function '{}' ({ty:?}) of a float input (the float solver models sqrt, fabs and {MODELLED_LIBM})",
                        func.c_name()
                    )));
                };
                let x = self.float_var(ty, a)?;
                let r = self.network.libm(function, x).map_err(solver_error)?;
                Ok(self.libm_result(func.c_name(), site, r))
            }
            (_, [a, b]) => {
                let Some(function) = libm_binary_function(func) else {
                    return Err(WalkError::unsupported(format!(
                        "libm function '{}' ({ty:?}) of float inputs (the float solver models sqrt, fabs and {MODELLED_LIBM})",
                        func.c_name()
                    )));
                };
                let (x, y) = (self.float_var(ty, a)?, self.float_var(ty, b)?);
                let r = self
                    .network
                    .libm_binary(function, x, y)
                    .map_err(solver_error)?;
                Ok(self.libm_result(func.c_name(), site, r))
            }
            _ => Err(WalkError::unsupported(format!(
                "libm function '{}' ({ty:?}) with {} arguments",
                func.c_name(),
                args.len()
            ))),
        }
    }

    /// modf is `trunc` and the exact fraction glibc returns; frexp the significand (its
    /// exponent exact for a normal argument, else a fresh integer); sincos two
    /// constraints; lgamma_r and remquo lgamma and remainder (their integer outputs
    /// fresh).
    fn math_out(
        &mut self,
        func: OutMathFn,
        ty: FloatTy,
        args: &[PathScalar],
        site: OpSite,
    ) -> DResult<(Option<PathScalar>, Vec<Option<PathScalar>>)> {
        let known = |r: Option<u64>, outs: Vec<Option<u64>>| {
            (
                r.map(PathScalar::Bits),
                outs.into_iter().map(|o| o.map(PathScalar::Bits)).collect(),
            )
        };
        let name = func.c_name(ty);
        if let Some(bits) = args
            .iter()
            .map(|a| self.concrete_bits(a))
            .collect::<Option<Vec<u64>>>()
        {
            let (r, outs) = self.known_at(site, |c| c.math_out(func, ty, &bits, site))?;
            return Ok(known(r, outs));
        }
        if !self.rounds_to_nearest() {
            let what = format!("libm function '{name}'");
            let bits = args
                .iter()
                .map(|a| self.pinned(ty, a, &what))
                .collect::<DResult<Vec<u64>>>()?;
            let (r, outs) = self.known_at(site, |c| c.math_out(func, ty, &bits, site))?;
            return Ok(known(r, outs));
        }
        let libm = |this: &mut Self, function: LibmFunction, x: VarId| {
            this.network.libm(function, x).map_err(solver_error)
        };
        match (func, args) {
            (OutMathFn::Modf, [a]) => {
                let x = self.float_var(ty, a)?;
                let fraction = libm(self, LibmFunction::ModfFraction, x)?;
                let integral = libm(self, LibmFunction::Trunc, x)?;
                Ok((
                    Some(self.libm_result(name, site, fraction)),
                    vec![Some(PathScalar::Float(integral))],
                ))
            }
            (OutMathFn::Frexp, [a]) => {
                let x = self.float_var(ty, a)?;
                let significand = libm(self, LibmFunction::FrexpSignificand, x)?;
                // x = significand * 2^e with the significand in [1/2, 1): for a normal x,
                // its exponent field less the bias, plus one.
                let exponent = match self.exponent_view(x, 1)? {
                    Some(view) => PathScalar::View(x, view),
                    None => {
                        // From the smallest subnormal's exponent to the largest finite's.
                        let (lo, hi) = match ty {
                            FloatTy::F64 => (-1073, 1024),
                            FloatTy::F32 => (-148, 128),
                        };
                        self.fresh_int(name, 32, lo, hi)?
                    }
                };
                Ok((
                    Some(self.libm_result(name, site, significand)),
                    vec![Some(exponent)],
                ))
            }
            (OutMathFn::Sincos, [a]) => {
                let x = self.float_var(ty, a)?;
                let sine = libm(self, LibmFunction::Sin, x)?;
                let cosine = libm(self, LibmFunction::Cos, x)?;
                let sine = self.libm_result(name, site, sine);
                Ok((None, vec![Some(sine), Some(PathScalar::Float(cosine))]))
            }
            (OutMathFn::LgammaR, [a]) => {
                let x = self.float_var(ty, a)?;
                let r = libm(self, LibmFunction::Lgamma, x)?;
                let sign = self.fresh_int(name, 32, -1, 1)?;
                Ok((Some(self.libm_result(name, site, r)), vec![Some(sign)]))
            }
            (OutMathFn::Remquo, [a, b]) => {
                let (x, y) = (self.float_var(ty, a)?, self.float_var(ty, b)?);
                let r = self
                    .network
                    .libm_binary(LibmBinary::Remainder, x, y)
                    .map_err(solver_error)?;
                // glibc writes the quotient's low three bits with its sign.
                let quotient = self.fresh_int(name, 32, -7, 7)?;
                Ok((Some(self.libm_result(name, site, r)), vec![Some(quotient)]))
            }
            _ => Err(WalkError::unsupported(format!(
                "libm function '{name}' with {} arguments",
                args.len()
            ))),
        }
    }

    fn fcast(
        &mut self,
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        a: &PathScalar,
        site: OpSite,
    ) -> DResult<PathScalar> {
        if let PathScalar::Bits(x) = a {
            return self
                .known_at(site, |c| c.fcast(op, from, to, x, site))
                .map(PathScalar::Bits);
        }
        if !self.rounds_to_nearest() {
            if let (CastOp::FPTrunc, ScalarTy::Float(f)) = (op, from) {
                let x = self.pinned(f, a, "a conversion to a narrower float")?;
                return self
                    .known_at(site, |c| c.fcast(op, from, to, &x, site))
                    .map(PathScalar::Bits);
            }
            if matches!(op, CastOp::SIToFP | CastOp::UIToFP) {
                return Err(WalkError::unsupported(format!(
                    "a conversion of a symbolic integer to a float rounding {} (fesetround): \
                     the float solver's conversions round to nearest",
                    self.rounding
                )));
            }
        }
        let (r, watched) = match (op, from, to, a) {
            (CastOp::FPExt | CastOp::FPTrunc, ScalarTy::Float(f), ScalarTy::Float(t), _) => {
                let x = self.float_var(f, a)?;
                let r = self
                    .network
                    .float_convert(x, format_of(t))
                    .map_err(solver_error)?;
                (PathScalar::Float(r), WatchedOp::Convert { a: x, result: r })
            }
            (
                CastOp::SIToFP | CastOp::UIToFP,
                ScalarTy::Int(w),
                ScalarTy::Float(t),
                PathScalar::Int(v, _, 0),
            ) if self.reads_as_value(*v, w, op == CastOp::SIToFP)? => {
                let r = self
                    .network
                    .int_to_float(*v, format_of(t))
                    .map_err(solver_error)?;
                // Integers of at most 64 bits are finite in binary32: only inexact.
                let watched = if w <= 64 {
                    WatchedOp::Known(ExceptionSet::EMPTY)
                } else {
                    WatchedOp::Unstated(format!("{op:?} from i{w}"))
                };
                (PathScalar::Float(r), watched)
            }
            // `(double)k` of an exponent read from the bits: an integer variable tied to
            // the float by the view, then converted.
            (
                CastOp::SIToFP | CastOp::UIToFP,
                ScalarTy::Int(_),
                ScalarTy::Float(t),
                PathScalar::View(x, view),
            ) if view.convertible() => {
                let k = self
                    .network
                    .bits_to_int(*x, *view, op == CastOp::SIToFP)
                    .map_err(solver_error)?;
                let r = self
                    .network
                    .int_to_float(k, format_of(t))
                    .map_err(solver_error)?;
                (PathScalar::Float(r), WatchedOp::Known(ExceptionSet::EMPTY))
            }
            (CastOp::FPToSI | CastOp::FPToUI, ScalarTy::Float(f), ScalarTy::Int(w), _) => {
                let x = self.float_var(f, a)?;
                let v = self
                    .network
                    .float_to_int(x, w, op == CastOp::FPToSI)
                    .map_err(solver_error)?;
                let why = format!(
                    "{op:?} to i{w}: its invalid range follows the backend's lowering, not stated as constraints"
                );
                (PathScalar::Int(v, w, 0), WatchedOp::Unstated(why))
            }
            // `(double)(k + i)` of integers the network does not follow (a sum with a
            // bit of the sign, a condition, an offset exponent): a new variable over the
            // integer type's range, as a rebuilt float is (refutations stay sound, a
            // solution counts once it replays). Integers of at most 64 bits convert
            // without overflow: only inexact, which is not a target.
            (CastOp::SIToFP | CastOp::UIToFP, ScalarTy::Int(w), ScalarTy::Float(t), _)
                if w <= 64 =>
            {
                let (lo, hi) = integer_type_range(w, op == CastOp::SIToFP);
                self.rebuilt_floats += 1;
                let name = format!("converted#{}", self.rebuilt_floats);
                let domain = FloatDomain::between(format_of(t), lo as f64, hi as f64);
                let r = self.network.float_var_in(&name, domain);
                (PathScalar::Float(r), WatchedOp::Known(ExceptionSet::EMPTY))
            }
            _ => {
                return Err(WalkError::unsupported(format!(
                    "{op:?} {from} → {to} of a symbolic value"
                )))
            }
        };
        if self.watching(site) {
            self.record(site, watched);
        }
        Ok(r)
    }

    fn icast(
        &mut self,
        op: CastOp,
        from: ScalarTy,
        to: ScalarTy,
        a: &PathScalar,
    ) -> DResult<PathScalar> {
        match (a, op, to) {
            (PathScalar::Bits(x), _, _) => self
                .known(|c| c.icast(op, from, to, x))
                .map(PathScalar::Bits),
            // A condition as C's int (zext) or back to i1 (trunc): still 0 or 1.
            (PathScalar::Condition(c, _), CastOp::ZExt | CastOp::Trunc, ScalarTy::Int(w)) => {
                Ok(PathScalar::Condition(*c, w))
            }
            (PathScalar::Int(v, w, c), CastOp::SExt | CastOp::ZExt, ScalarTy::Int(t))
                if t >= *w =>
            {
                self.int_extended((*v, *c), op == CastOp::SExt, *w, t)
            }
            (PathScalar::Float(v), CastOp::BitCast, ScalarTy::Int(_)) => {
                let ScalarTy::Float(ty) = from else {
                    return Err(WalkError::unsupported(format!("bitcast {from} → {to}")));
                };
                Ok(PathScalar::View(*v, BitView::of(format_of(ty))))
            }
            (PathScalar::View(v, view), _, ScalarTy::Int(w)) => {
                let cast = view_cast(op, *view, w);
                Ok(cast.map_or_else(
                    || {
                        PathScalar::Unmodelled(format!(
                            "{op:?} {from} → {to} of {}",
                            UNMODELLED_BITS
                        ))
                    },
                    |view| PathScalar::View(*v, view),
                ))
            }
            // The bits of a float read back whole (punning through memory): the float.
            (PathScalar::View(v, view), CastOp::BitCast, ScalarTy::Float(t))
                if *view == BitView::of(format_of(t))
                    && self.network.float_domain(*v).map(|d| d.format()).ok()
                        == Some(format_of(t)) =>
            {
                Ok(PathScalar::Float(*v))
            }
            // A float rebuilt from words the solver does not follow (SET_HIGH_WORD,
            // INSERT_WORDS of arithmetic on the bits): a new variable that may be any
            // float. The path condition is then larger than the path's: a refutation
            // stays sound, and a solution counts only once it replays.
            (
                PathScalar::View(..) | PathScalar::Unmodelled(_),
                CastOp::BitCast,
                ScalarTy::Float(t),
            ) => {
                self.rebuilt_floats += 1;
                let name = format!("rebuilt#{}", self.rebuilt_floats);
                Ok(PathScalar::Float(
                    self.network.float_var(&name, format_of(t)),
                ))
            }
            (PathScalar::View(..), _, _) => Ok(PathScalar::Unmodelled(format!(
                "{op:?} {from} → {to} of {UNMODELLED_BITS}"
            ))),
            (PathScalar::Unmodelled(why), _, _) => Ok(PathScalar::Unmodelled(why.clone())),
            // C's `(long)(x < y)` sign-extended, or a select of integers cast: the leaves
            // cast one by one.
            (PathScalar::Condition(c, w), CastOp::SExt, ScalarTy::Int(t)) => {
                let ones = self.known(|k| k.icast(op, ScalarTy::Int(*w), to, &1))?;
                Ok(PathScalar::Choice(Box::new(Choice::If(
                    PathScalar::Condition(*c, 1),
                    Box::new(Choice::Leaf(ones & fpscout_ir::truncate_bits(u64::MAX, t))),
                    Box::new(Choice::Leaf(0)),
                ))))
            }
            (PathScalar::Choice(choice), _, ScalarTy::Int(_)) => {
                let mut cast = |x: u64| self.known(|k| k.icast(op, from, to, &x));
                Ok(PathScalar::Choice(Box::new(choice.map_leaves(&mut cast)?)))
            }
            (other, _, _) => Ok(PathScalar::Unmodelled(format!(
                "{op:?} {from} → {to} of {}",
                kind_of(other)
            ))),
        }
    }

    fn ibin(
        &mut self,
        op: IBinOp,
        width: u32,
        a: &PathScalar,
        b: &PathScalar,
    ) -> DResult<PathScalar> {
        if let (PathScalar::Bits(x), PathScalar::Bits(y)) = (a, b) {
            return crate::concrete::int_binop(op, width, *x, *y).map(PathScalar::Bits);
        }
        if let Some(sum) = self.int_sum(op, width, a, b)? {
            return Ok(sum);
        }
        if let Some(view) = view_binop(op, a, b) {
            return Ok(view);
        }
        // What cannot be expressed stays a value until something needs it (a branch, an
        // address, a float): paths that drop it are still walked.
        if let (PathScalar::Unmodelled(why), _) | (_, PathScalar::Unmodelled(why)) = (a, b) {
            return Ok(PathScalar::Unmodelled(why.clone()));
        }
        // A converted integer plus or minus a constant (`i + 1`), while it cannot wrap.
        let shifted = match (op, a, b) {
            (IBinOp::Add, PathScalar::Int(v, w, c), PathScalar::Bits(k))
            | (IBinOp::Add, PathScalar::Bits(k), PathScalar::Int(v, w, c)) => {
                Some((*v, *w, c + i128::from(fpscout_ir::sign_extend(*k, width))))
            }
            (IBinOp::Sub, PathScalar::Int(v, w, c), PathScalar::Bits(k)) => {
                Some((*v, *w, c - i128::from(fpscout_ir::sign_extend(*k, width))))
            }
            _ => None,
        };
        if let Some((v, w, offset)) = shifted {
            if w == width {
                let (lo_ok, hi_ok) = integer_type_range(width, true);
                let fits = |path: &FloatPath| -> DResult<bool> {
                    Ok(path
                        .value_range(v, offset)?
                        .is_some_and(|(lo, hi)| lo_ok <= lo && hi <= hi_ok))
                };
                // The variable's domain narrows with the path only once propagated, and
                // further with the relations intervals lose (`x - 360*(int)(x/360)`); on
                // a path they refute any value will do (its next branch ends it).
                if fits(self)?
                    || {
                        self.network.propagate(BRANCH_PROPAGATION_BUDGET);
                        fits(self)?
                    }
                    || self
                        .network
                        .propagate_with_relations(BRANCH_PROPAGATION_BUDGET)
                        == Propagation::Infeasible
                    || fits(self)?
                {
                    return Ok(PathScalar::Int(v, w, offset));
                }
            }
        }
        // Boolean algebra of one condition with a constant (`!c`, `c & 1`, `c | 0`).
        let (cond, k) = match (a, b) {
            (PathScalar::Condition(c, _), PathScalar::Bits(k))
            | (PathScalar::Bits(k), PathScalar::Condition(c, _)) => (*c, *k),
            // Integers kept as a value the network cannot express: an error only where a
            // branch, an address or a comparison needs it (a float converted from it is a
            // new variable over its type). Booleans fail here: the walker forks an `and`
            // or `or` of two conditions instead (`fork_select`).
            _ if width > 1
                && !matches!(a, PathScalar::Condition(..))
                && !matches!(b, PathScalar::Condition(..)) =>
            {
                let why = format!(
                    "{op:?} on symbolic integers ({} and {})",
                    kind_of(a),
                    kind_of(b)
                );
                // An integer of few values: an exploring walk forks one path per value.
                if self.has_few_values(a)? || self.has_few_values(b)? {
                    return Err(WalkError::unsupported(why));
                }
                return Ok(PathScalar::Unmodelled(why));
            }
            _ => {
                return Err(WalkError::unsupported(format!(
                    "{op:?} on symbolic integers or of two symbolic conditions ({} and {})",
                    kind_of(a),
                    kind_of(b)
                )))
            }
        };
        let one = k & 1 == 1 && (width == 1 || k == 1);
        let zero = k == 0;
        match op {
            IBinOp::Xor if one => Ok(PathScalar::Condition(cond.negated(), width)),
            IBinOp::Xor | IBinOp::Or if zero => Ok(PathScalar::Condition(cond, width)),
            IBinOp::And if one => Ok(PathScalar::Condition(cond, width)),
            IBinOp::And if zero => Ok(PathScalar::Bits(0)),
            IBinOp::Or if one => Ok(PathScalar::Bits(1)),
            _ => Err(WalkError::unsupported(format!(
                "{op:?} of a symbolic condition with {k}"
            ))),
        }
    }

    fn icmp(
        &mut self,
        pred: ICmpPred,
        width: u32,
        a: &PathScalar,
        b: &PathScalar,
    ) -> DResult<PathScalar> {
        if let (PathScalar::Bits(x), PathScalar::Bits(y)) = (a, b) {
            return Ok(PathScalar::Bits(u64::from(crate::concrete::int_cmp(
                pred, width, *x, *y,
            ))));
        }
        match (a, b) {
            (PathScalar::Unmodelled(why), _) | (_, PathScalar::Unmodelled(why)) => {
                return Ok(PathScalar::Unmodelled(why.clone()))
            }
            (PathScalar::Choice(c), PathScalar::Bits(k)) => {
                return c.decide_leaves(&|x| crate::concrete::int_cmp(pred, width, x, *k))
            }
            (PathScalar::Bits(k), PathScalar::Choice(c)) => {
                return c.decide_leaves(&|x| crate::concrete::int_cmp(pred, width, *k, x))
            }
            _ => {}
        }
        let view_test = match (a, b) {
            (PathScalar::View(v, view), PathScalar::Bits(k)) => {
                Some((*v, *view, int_predicate(pred), *k))
            }
            (PathScalar::Bits(k), PathScalar::View(v, view)) => {
                Some((*v, *view, int_predicate(pred).swapped(), *k))
            }
            // Two floats' bits (`ux.i < uy.i`): each read as a number, then ordered.
            (PathScalar::View(x, x_view), PathScalar::View(y, y_view))
                if x_view.convertible()
                    && y_view.convertible()
                    && x_view.width() == width
                    && y_view.width() == width =>
            {
                let test = self.view_order_test(pred, (*x, *x_view), (*y, *y_view))?;
                return Ok(PathScalar::Condition(Comparison { test, holds: true }, 1));
            }
            (PathScalar::View(..), _) | (_, PathScalar::View(..)) => {
                return Ok(PathScalar::Unmodelled(format!(
                    "{pred:?} comparison of a float's bits with another symbolic integer"
                )))
            }
            _ => None,
        };
        if let Some((a, view, predicate, k)) = view_test {
            let test = Test::Bits {
                a,
                view,
                predicate,
                k,
            };
            return Ok(PathScalar::Condition(Comparison { test, holds: true }, 1));
        }
        // A float converted to an integer, compared with a constant (`i >= 0` of
        // `i = dx`): the integer variable's range.
        let int_test = match (a, b) {
            (PathScalar::Int(v, _, c), PathScalar::Bits(k)) => Some(((*v, *c), pred, *k)),
            (PathScalar::Bits(k), PathScalar::Int(v, _, c)) => Some(((*v, *c), swapped(pred), *k)),
            _ => None,
        };
        if let Some((value, pred, k)) = int_test {
            let test = self.int_range_test(value, pred, width, k)?;
            return Ok(PathScalar::Condition(Comparison { test, holds: true }, 1));
        }
        // A condition (0 or 1) compared with a constant: `if (holds)` is `holds != 0`.
        let (cond, k) = match (a, b) {
            (PathScalar::Condition(c, _), PathScalar::Bits(k))
            | (PathScalar::Bits(k), PathScalar::Condition(c, _)) => (*c, *k),
            _ => {
                return Err(WalkError::unsupported(format!(
                    "{pred:?} comparison of a symbolic integer"
                )))
            }
        };
        match (pred, k) {
            (ICmpPred::Ne, 0) | (ICmpPred::Eq, 1) => Ok(PathScalar::Condition(cond, 1)),
            (ICmpPred::Eq, 0) | (ICmpPred::Ne, 1) => Ok(PathScalar::Condition(cond.negated(), 1)),
            (ICmpPred::Eq, _) => Ok(PathScalar::Bits(0)),
            (ICmpPred::Ne, _) => Ok(PathScalar::Bits(1)),
            _ => Err(WalkError::unsupported(format!(
                "{pred:?} of a symbolic condition with {k}"
            ))),
        }
    }

    fn few_values(&mut self, v: &PathScalar, limit: u64) -> DResult<Option<(u32, Vec<u64>)>> {
        Ok(match v {
            PathScalar::Condition(_, width) => Some((*width, vec![0, 1])),
            PathScalar::Int(var, width, offset) => {
                let mut range = self.value_range(*var, *offset)?;
                if range.is_none_or(|(lo, hi)| hi - lo >= i128::from(limit)) {
                    self.network.propagate(BRANCH_PROPAGATION_BUDGET);
                    range = self.value_range(*var, *offset)?;
                }
                range
                    .filter(|(lo, hi)| hi - lo < i128::from(limit))
                    .map(|(lo, hi)| {
                        let values = (lo..=hi)
                            .map(|x| fpscout_ir::truncate_bits(x as u64, *width))
                            .collect();
                        (*width, values)
                    })
            }
            _ => None,
        })
    }

    fn iabs(&mut self, width: u32, a: &PathScalar) -> DResult<PathScalar> {
        match a {
            PathScalar::Bits(x) => self.known(|c| c.iabs(width, x)).map(PathScalar::Bits),
            _ => Err(WalkError::unsupported("abs of a symbolic integer")),
        }
    }

    fn select(&mut self, cond: &PathScalar, a: &PathScalar, b: &PathScalar) -> DResult<PathScalar> {
        if let PathScalar::Bits(c) = cond {
            return Ok(if c & 1 != 0 { a.clone() } else { b.clone() });
        }
        if a == b {
            return Ok(a.clone());
        }
        match (cond, Choice::of(a), Choice::of(b)) {
            (PathScalar::Condition(..) | PathScalar::Unmodelled(_), Some(x), Some(y)) => Ok(
                PathScalar::Choice(Box::new(Choice::If(cond.clone(), Box::new(x), Box::new(y)))),
            ),
            _ => Err(WalkError::unsupported(
                "select of floats on a symbolic condition (not a float-solver constraint)",
            )),
        }
    }

    fn select_float(
        &mut self,
        _ty: FloatTy,
        cond: &PathScalar,
        a: &PathScalar,
        b: &PathScalar,
    ) -> DResult<PathScalar> {
        // A choice of float constants would meet the network as "a choice of integers
        // used as a float": refused here, so that the walk forks on the condition.
        match (cond, a, b) {
            (PathScalar::Bits(_), _, _) => self.select(cond, a, b),
            _ if a == b => Ok(a.clone()),
            _ => Err(WalkError::unsupported(
                "select of floats on a symbolic condition (not a float-solver constraint)",
            )),
        }
    }

    /// A C library function that only computes from its number arguments (libm's
    /// integer-valued and scaling functions, the flag reader): its
    /// result is a fresh variable that may take any value of its type, so the path
    /// condition is larger than the path's (a refutation stays sound, a solution counts
    /// once it replays). Anything else may change what later operations compute and
    /// stays refused (`fesetround` and `fegetround` are walked as `Domain::set_rounding`
    /// and `Domain::rounding`).
    fn native_call(
        &mut self,
        call: &ExternalCall,
        args: &[PathScalar],
        site: Option<OpSite>,
    ) -> DResult<Option<PathScalar>> {
        let _ = site;
        if let Some(scaled) = self.exact_scaling(&call.name, args)? {
            return Ok(Some(scaled));
        }
        if let Some(exponent) = self.exact_ilogb(&call.name, args)? {
            return Ok(Some(exponent));
        }
        if !PURE_EXTERNALS.contains(&call.name.as_str()) {
            return Err(WalkError::unsupported(format!(
                "call to external function '{}' (this analysis does not call native code)",
                call.name
            )));
        }
        match call.ret {
            Type::Scalar(ScalarTy::Float(t)) => {
                let name = self.fresh_name(&call.name);
                Ok(Some(PathScalar::Float(
                    self.network.float_var(&name, format_of(t)),
                )))
            }
            Type::Scalar(ScalarTy::Int(width)) if (2..=64).contains(&width) => {
                let half = 1i128 << (width - 1);
                self.fresh_int(&call.name, width, -half, half - 1).map(Some)
            }
            _ => Err(WalkError::unsupported(format!(
                "result of external function '{}' of type {}",
                call.name, call.ret
            ))),
        }
    }

    fn decide(&mut self, cond: &PathScalar) -> DResult<Decision> {
        let cond = &branch_value(cond)?;
        let Some(c) = self.comparison_of(cond)? else {
            let bits = self.concrete_bits(cond).unwrap_or(0);
            return Ok(Decision::Known(bits & 1 != 0));
        };
        if !self.propagate_branches {
            self.forks += 1;
            return Ok(Decision::Both);
        }
        if !self.possible(c)? {
            self.pruned += 1;
            return Ok(Decision::Known(false));
        }
        if !self.possible(c.negated())? {
            self.pruned += 1;
            return Ok(Decision::Known(true));
        }
        self.forks += 1;
        Ok(Decision::Both)
    }

    fn assume(&mut self, cond: &PathScalar, taken: bool) -> DResult<bool> {
        let cond = &branch_value(cond)?;
        let Some(c) = self.comparison_of(cond)? else {
            return Ok(true);
        };
        let c = if taken { c } else { c.negated() };
        require(&mut self.network, c)?;
        Ok(!self.propagate_branches
            || self.network.propagate(BRANCH_PROPAGATION_BUDGET) != Propagation::Infeasible)
    }
}
