//! The constraint network: variables with domains, constraints over them, 2B propagation to a fixpoint, concrete checking.

use crate::arith::{Arith, BinaryOp};
use crate::bits::{BitTest, BitView, FloatSet};
use crate::class::FloatClasses;
use crate::compare::FcmpPredicate;
use crate::domain::{FloatDomain, IntDomain};
use crate::error::NetworkError;
use crate::format::{FloatValue, Format};
use crate::libm::{call_glibc, LibmFunction};
use crate::libm_binary::{call_glibc_binary, LibmBinary};
use crate::project::binary::project_binary;
use crate::project::compare::project_compare;
use crate::project::convert::{project_float_convert, project_float_to_int, project_int_to_float};
use crate::project::libm::project_libm;
use crate::project::libm_binary::project_libm_binary;
use crate::project::minmax::{project_min_max, MinMaxOp};
use crate::project::unary::{project_copy, project_fabs, project_fneg, project_sqrt};
use std::collections::{HashSet, VecDeque};

/// A variable of a [`Network`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(usize);

impl VarId {
    pub fn index(self) -> usize {
        self.0
    }

    /// The variable at `index` (variables are numbered from 0 in creation order).
    pub fn from_index(index: usize) -> VarId {
        VarId(index)
    }
}

/// The domain of one variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Domain {
    Float(FloatDomain),
    Int(IntDomain),
}

/// A concrete value of one variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Float(FloatValue),
    Int(i128),
}

impl Domain {
    pub fn is_empty(&self) -> bool {
        match self {
            Domain::Float(d) => d.is_empty(),
            Domain::Int(d) => d.is_empty(),
        }
    }

    /// Number of values (NaN counts as one).
    pub fn size(&self) -> u64 {
        match self {
            Domain::Float(d) => d.size(),
            Domain::Int(d) => d.size(),
        }
    }

    pub fn as_point(&self) -> Option<Value> {
        match self {
            Domain::Float(d) => d.as_point().map(Value::Float),
            Domain::Int(d) => d.as_point().map(Value::Int),
        }
    }

    pub fn as_float(&self) -> Option<&FloatDomain> {
        match self {
            Domain::Float(d) => Some(d),
            Domain::Int(_) => None,
        }
    }

    pub fn as_int(&self) -> Option<&IntDomain> {
        match self {
            Domain::Int(d) => Some(d),
            Domain::Float(_) => None,
        }
    }
}

/// Domains this small are always propagated to the exact fixpoint.
const ALWAYS_PROPAGATED_SIZE: u64 = 1024;

/// Whether narrowing `old` to `new` should wake the variable's constraints: always when the
/// NaN state changes or few values are left, otherwise when at least `min_reduction` of
/// the values went.
fn significant(old: &Domain, new: &Domain, min_reduction: f64) -> bool {
    let (before, after) = (old.size(), new.size());
    let nan_changed = match (old, new) {
        (Domain::Float(x), Domain::Float(y)) => x.may_be_nan() != y.may_be_nan(),
        _ => false,
    };
    nan_changed
        || after <= ALWAYS_PROPAGATED_SIZE
        || (before - after) as f64 >= min_reduction * before as f64
}

fn intersect(a: &Domain, b: &Domain) -> Domain {
    match (a, b) {
        (Domain::Float(x), Domain::Float(y)) => Domain::Float(x.intersect(y)),
        (Domain::Int(x), Domain::Int(y)) => Domain::Int(x.intersect(y)),
        _ => a.clone(),
    }
}

/// A constraint between variables. Each is an operation of LLVM IR (`result = op(a, …)`)
/// or a comparison required to hold; "does not hold" is the negated predicate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Constraint {
    Binary {
        op: BinaryOp,
        a: VarId,
        b: VarId,
        result: VarId,
    },
    Sqrt {
        a: VarId,
        result: VarId,
    },
    FNeg {
        a: VarId,
        result: VarId,
    },
    FAbs {
        a: VarId,
        result: VarId,
    },
    /// `result = function(a)` as the process's glibc computes it (binary32/binary64,
    /// IEEE mode only: glibc's results under FTZ/DAZ are not modelled).
    Libm {
        function: LibmFunction,
        a: VarId,
        result: VarId,
    },
    /// `result = function(a, b)` as the process's glibc computes it (binary32/binary64,
    /// IEEE mode only).
    LibmBinary {
        function: LibmBinary,
        a: VarId,
        b: VarId,
        result: VarId,
    },
    /// `result` is bitwise `a` (an SSA copy, or a value pinned by equality of variables).
    Copy {
        a: VarId,
        result: VarId,
    },
    MinMax {
        op: MinMaxOp,
        a: VarId,
        b: VarId,
        result: VarId,
    },
    /// `fcmp predicate a, b` is true.
    Compare {
        predicate: FcmpPredicate,
        a: VarId,
        b: VarId,
    },
    /// `a` is in one of `classes` (a class test: `isnan`, `isinf`, `isnormal`…).
    Class {
        a: VarId,
        classes: FloatClasses,
    },
    /// `a` is in `set` (an integer comparison of `a`'s bits: `GET_HIGH_WORD` tests).
    InSet {
        a: VarId,
        set: FloatSet,
        /// The comparison the set came from, when the set is only a superset of it:
        /// solutions are checked against it.
        test: Option<BitTest>,
    },
    /// fpext or fptrunc from `a`'s format to `result`'s.
    FloatConvert {
        a: VarId,
        result: VarId,
    },
    /// sitofp/uitofp: the integer variable's bounds carry its signedness.
    IntToFloat {
        a: VarId,
        result: VarId,
    },
    /// An integer read from `a`'s bits (`view`), as C reads it (signed or not):
    /// `(double)k` of fdlibm's exponent `k`.
    BitsToInt {
        a: VarId,
        view: BitView,
        result: VarId,
        signed: bool,
    },
    /// fptosi/fptoui into an integer of `bits` width.
    FloatToInt {
        a: VarId,
        result: VarId,
        bits: u32,
        signed: bool,
    },
    /// Two integer variables in `order` (`a < b`…): hypot's `if (ux.i < uy.i)` of two
    /// floats' bits, each read as a number by a [`Constraint::BitsToInt`].
    IntCompare {
        order: IntOrder,
        a: VarId,
        b: VarId,
    },
    /// `result = a + b` or `a - b` (`subtract`) of integer variables, as mathematical
    /// integers (hypot's `ex - ey` of two exponent fields): the walker keeps it only
    /// where the machine's value cannot wrap.
    IntSum {
        a: VarId,
        b: VarId,
        subtract: bool,
        result: VarId,
    },
}

/// `a + b` or `a - b` (`subtract`) of mathematical integers.
fn int_sum(a: i128, b: i128, subtract: bool) -> i128 {
    if subtract {
        a.saturating_sub(b)
    } else {
        a.saturating_add(b)
    }
}

/// The domains of `a`, `b` and `result = a ± b` narrowed by interval arithmetic.
fn project_int_sum(
    a: &IntDomain,
    b: &IntDomain,
    result: &IntDomain,
    subtract: bool,
) -> Option<(IntDomain, IntDomain, IntDomain)> {
    let ((alo, ahi), (blo, bhi)) = (a.range()?, b.range()?);
    let r = if subtract {
        IntDomain::new(alo.saturating_sub(bhi), ahi.saturating_sub(blo))
    } else {
        IntDomain::new(alo.saturating_add(blo), ahi.saturating_add(bhi))
    };
    let r = result.intersect(&r);
    let (rlo, rhi) = r.range()?;
    // a = r ± b, and b = a - r or r - a.
    let a = a.intersect(&if subtract {
        IntDomain::new(rlo.saturating_add(blo), rhi.saturating_add(bhi))
    } else {
        IntDomain::new(rlo.saturating_sub(bhi), rhi.saturating_sub(blo))
    });
    let (alo, ahi) = a.range()?;
    let b = b.intersect(&if subtract {
        IntDomain::new(alo.saturating_sub(rhi), ahi.saturating_sub(rlo))
    } else {
        IntDomain::new(rlo.saturating_sub(ahi), rhi.saturating_sub(alo))
    });
    (!b.is_empty()).then_some((a, b, r))
}

/// How two integers compare (the signedness is in how each was read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntOrder {
    Less,
    LessOrEqual,
    Equal,
    NotEqual,
}

impl IntOrder {
    pub fn holds(self, a: i128, b: i128) -> bool {
        match self {
            IntOrder::Less => a < b,
            IntOrder::LessOrEqual => a <= b,
            IntOrder::Equal => a == b,
            IntOrder::NotEqual => a != b,
        }
    }

    /// The domains of `a` and `b` narrowed to the values with a partner in the other
    /// (bounds consistency; `!=` narrows only against a point at a bound).
    fn project(self, a: &IntDomain, b: &IntDomain) -> Option<(IntDomain, IntDomain)> {
        let ((alo, ahi), (blo, bhi)) = (a.range()?, b.range()?);
        let (a, b) = match self {
            IntOrder::Less | IntOrder::LessOrEqual => {
                let gap = i128::from(self == IntOrder::Less);
                (
                    IntDomain::new(alo, ahi.min(bhi.saturating_sub(gap))),
                    IntDomain::new(blo.max(alo.saturating_add(gap)), bhi),
                )
            }
            IntOrder::Equal => {
                let both = a.intersect(b);
                (both, both)
            }
            IntOrder::NotEqual => {
                let away = |d: &IntDomain, point: Option<i128>| match (d.range(), point) {
                    (Some((lo, hi)), Some(p)) if lo == p => IntDomain::new(lo + 1, hi),
                    (Some((lo, hi)), Some(p)) if hi == p => IntDomain::new(lo, hi - 1),
                    _ => *d,
                };
                (away(a, b.as_point()), away(b, a.as_point()))
            }
        };
        (!a.is_empty() && !b.is_empty()).then_some((a, b))
    }
}

impl Constraint {
    /// The C name of the libm function a libm constraint calls.
    pub fn libm_name(&self) -> Option<&'static str> {
        match self {
            Constraint::Libm { function, .. } => Some(function.c_name()),
            Constraint::LibmBinary { function, .. } => Some(function.c_name()),
            _ => None,
        }
    }

    /// The variable this constraint computes from the others (none for a comparison).
    pub fn result(&self) -> Option<VarId> {
        match *self {
            Constraint::Compare { .. }
            | Constraint::Class { .. }
            | Constraint::InSet { .. }
            | Constraint::IntCompare { .. } => None,
            Constraint::Binary { result, .. }
            | Constraint::MinMax { result, .. }
            | Constraint::Sqrt { result, .. }
            | Constraint::Libm { result, .. }
            | Constraint::LibmBinary { result, .. }
            | Constraint::FNeg { result, .. }
            | Constraint::FAbs { result, .. }
            | Constraint::Copy { result, .. }
            | Constraint::FloatConvert { result, .. }
            | Constraint::IntToFloat { result, .. }
            | Constraint::FloatToInt { result, .. }
            | Constraint::BitsToInt { result, .. }
            | Constraint::IntSum { result, .. } => Some(result),
        }
    }

    pub fn variables(&self) -> Vec<VarId> {
        match *self {
            Constraint::Binary { a, b, result, .. }
            | Constraint::MinMax { a, b, result, .. }
            | Constraint::LibmBinary { a, b, result, .. }
            | Constraint::IntSum { a, b, result, .. } => vec![a, b, result],
            Constraint::Compare { a, b, .. } | Constraint::IntCompare { a, b, .. } => vec![a, b],
            Constraint::Class { a, .. } | Constraint::InSet { a, .. } => vec![a],
            Constraint::Sqrt { a, result }
            | Constraint::Libm { a, result, .. }
            | Constraint::FNeg { a, result }
            | Constraint::FAbs { a, result }
            | Constraint::Copy { a, result }
            | Constraint::FloatConvert { a, result }
            | Constraint::IntToFloat { a, result }
            | Constraint::FloatToInt { a, result, .. }
            | Constraint::BitsToInt { a, result, .. } => vec![a, result],
        }
    }
}

/// How a propagation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Propagation {
    /// No projection narrows any domain further (2B-consistency).
    Fixpoint,
    /// A domain became empty: no solution over floats in these domains (a proof).
    Infeasible,
    /// The budget of projections ran out; the domains are narrowed soundly but maybe not fully.
    BudgetExhausted,
}

/// Variables, their domains, and constraints. Build it from a path, then `propagate` for the
/// narrowed domains or hand it to [`crate::search::solve`].
#[derive(Clone, Debug)]
pub struct Network {
    arith: Arith,
    names: Vec<String>,
    domains: Vec<Domain>,
    constraints: Vec<Constraint>,
    watchers: Vec<Vec<usize>>,
    /// Per variable: whether some operation computes it.
    defined: Vec<bool>,
    /// The constraints before this index are at a fixpoint with `domains`, but for
    /// those watching `restricted`: the last [`Network::propagate`] reached one, and
    /// since then constraints were only added and domains only narrowed by `restrict`.
    /// A walk adds a few constraints per branch to a network of thousands, so
    /// propagation starts from what changed instead of from every constraint.
    settled: usize,
    restricted: Vec<VarId>,
    /// Variables before this index were looked at for an empty domain by the last
    /// propagation; `refuted`: it found the network infeasible.
    scanned: usize,
    refuted: bool,
    /// While [`Network::feasible_with`] runs: each domain `restrict` changed, as it was,
    /// and each variable `add` marked defined, with its mark before.
    trail: Option<Vec<(usize, Domain)>>,
    defined_trail: Option<Vec<(usize, bool)>>,
}

impl Network {
    pub fn new(arith: Arith) -> Network {
        Network {
            arith,
            names: Vec::new(),
            domains: Vec::new(),
            constraints: Vec::new(),
            watchers: Vec::new(),
            defined: Vec::new(),
            settled: 0,
            restricted: Vec::new(),
            scanned: 0,
            refuted: false,
            trail: None,
            defined_trail: None,
        }
    }

    pub fn arith(&self) -> Arith {
        self.arith
    }

    pub fn variable_count(&self) -> usize {
        self.domains.len()
    }

    pub fn name(&self, v: VarId) -> &str {
        self.names.get(v.0).map_or("", String::as_str)
    }

    /// Whether an operation computes `v` (it is not an input of the network).
    pub fn is_defined(&self, v: VarId) -> bool {
        self.defined.get(v.0).copied().unwrap_or(false)
    }

    /// The first constraint that computes `v`, found among those watching it.
    pub fn definition(&self, v: VarId) -> Option<&Constraint> {
        self.watchers
            .get(v.0)?
            .iter()
            .map(|&i| &self.constraints[i])
            .find(|c| c.result() == Some(v))
    }

    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }

    pub fn domains(&self) -> &[Domain] {
        &self.domains
    }

    pub fn domain(&self, v: VarId) -> Result<&Domain, NetworkError> {
        self.domains
            .get(v.0)
            .ok_or(NetworkError::UnknownVariable(v.0))
    }

    pub fn float_domain(&self, v: VarId) -> Result<&FloatDomain, NetworkError> {
        self.domain(v)?.as_float().ok_or(NetworkError::WrongKind {
            variable: v.0,
            expected: "float".into(),
        })
    }

    pub fn int_domain(&self, v: VarId) -> Result<&IntDomain, NetworkError> {
        self.domain(v)?.as_int().ok_or(NetworkError::WrongKind {
            variable: v.0,
            expected: "integer".into(),
        })
    }

    fn new_variable(&mut self, name: &str, domain: Domain) -> VarId {
        self.names.push(name.to_string());
        self.domains.push(domain);
        self.watchers.push(Vec::new());
        self.defined.push(false);
        VarId(self.domains.len() - 1)
    }

    /// A float variable ranging over every value of `format`, NaN included.
    pub fn float_var(&mut self, name: &str, format: Format) -> VarId {
        self.new_variable(name, Domain::Float(FloatDomain::full(format)))
    }

    /// A float variable with a given domain.
    pub fn float_var_in(&mut self, name: &str, domain: FloatDomain) -> VarId {
        self.new_variable(name, Domain::Float(domain))
    }

    /// A float constant.
    pub fn float_const(&mut self, format: Format, value: FloatValue) -> VarId {
        self.new_variable("const", Domain::Float(FloatDomain::point(format, value)))
    }

    /// The float of `format` nearest to an `f64` constant.
    pub fn float_const_f64(&mut self, format: Format, value: f64) -> VarId {
        self.float_const(format, format.from_f64(value))
    }

    /// An integer variable in `[lo, hi]`.
    pub fn int_var(&mut self, name: &str, lo: i128, hi: i128) -> Result<VarId, NetworkError> {
        if lo > hi {
            return Err(NetworkError::EmptyIntegerRange { lo, hi });
        }
        Ok(self.new_variable(name, Domain::Int(IntDomain::new(lo, hi))))
    }

    /// Narrows a variable's domain by intersection (a path condition, an input range).
    pub fn restrict(&mut self, v: VarId, domain: Domain) -> Result<(), NetworkError> {
        let current = self.domain(v)?.clone();
        self.restricted.push(v);
        if let Some(trail) = &mut self.trail {
            trail.push((v.0, current.clone()));
        }
        self.domains[v.0] = match (current, domain) {
            (Domain::Float(old), Domain::Float(new)) => {
                if old.format() != new.format() {
                    return Err(NetworkError::DomainFormat {
                        expected: old.format(),
                        given: new.format(),
                    });
                }
                Domain::Float(old.intersect(&new))
            }
            (Domain::Int(old), Domain::Int(new)) => Domain::Int(old.intersect(&new)),
            (Domain::Float(_), Domain::Int(_)) => {
                return Err(NetworkError::WrongKind {
                    variable: v.0,
                    expected: "float".into(),
                })
            }
            (Domain::Int(_), Domain::Float(_)) => {
                return Err(NetworkError::WrongKind {
                    variable: v.0,
                    expected: "integer".into(),
                })
            }
        };
        Ok(())
    }

    fn float_format(&self, v: VarId) -> Result<Format, NetworkError> {
        Ok(self.float_domain(v)?.format())
    }

    fn same_format(&self, a: VarId, b: VarId) -> Result<Format, NetworkError> {
        let format = self.float_format(a)?;
        if self.float_format(b)? != format {
            return Err(NetworkError::FormatMismatch(a.0, b.0));
        }
        Ok(format)
    }

    /// Adds a constraint after checking its variables' kinds and formats.
    pub fn add(&mut self, constraint: Constraint) -> Result<(), NetworkError> {
        match constraint {
            Constraint::Binary { a, b, result, .. } | Constraint::MinMax { a, b, result, .. } => {
                self.same_format(a, b)?;
                self.same_format(a, result)?;
            }
            Constraint::Compare { a, b, .. } => {
                self.same_format(a, b)?;
            }
            Constraint::Class { a, .. } => {
                self.float_format(a)?;
            }
            Constraint::InSet { a, ref set, .. } => {
                let format = self.float_format(a)?;
                if format != set.format() {
                    return Err(NetworkError::DomainFormat {
                        expected: format,
                        given: set.format(),
                    });
                }
            }
            Constraint::Sqrt { a, result }
            | Constraint::FNeg { a, result }
            | Constraint::FAbs { a, result }
            | Constraint::Copy { a, result } => {
                self.same_format(a, result)?;
            }
            Constraint::Libm {
                function,
                a,
                result,
            } => {
                let format = self.same_format(a, result)?;
                let refuse = |why: &str| NetworkError::LibmUnsupported {
                    function: function.c_name(),
                    why: why.to_string(),
                };
                if !crate::libm::supports_format(format) {
                    return Err(refuse("glibc has it in binary32 and binary64 only"));
                }
                if !crate::libm::available(function, format) {
                    return Err(refuse("the process's libm does not export it"));
                }
                if self.arith != Arith::IEEE {
                    return Err(refuse("its results under FTZ/DAZ are not modelled"));
                }
            }
            Constraint::LibmBinary {
                function,
                a,
                b,
                result,
            } => {
                self.same_format(a, b)?;
                let format = self.same_format(a, result)?;
                let refuse = |why: &str| NetworkError::LibmUnsupported {
                    function: function.c_name(),
                    why: why.to_string(),
                };
                if !crate::libm_binary::available_binary(function, format) {
                    return Err(refuse(
                        "the process's libm has it in binary32 and binary64 only",
                    ));
                }
                if self.arith != Arith::IEEE {
                    return Err(refuse("its results under FTZ/DAZ are not modelled"));
                }
            }
            Constraint::FloatConvert { a, result } => {
                self.float_format(a)?;
                self.float_format(result)?;
            }
            Constraint::IntToFloat { a, result } => {
                self.int_domain(a)?;
                self.float_format(result)?;
            }
            Constraint::BitsToInt {
                a, view, result, ..
            } => {
                let format = self.float_format(a)?;
                if format != view.format() {
                    return Err(NetworkError::DomainFormat {
                        expected: format,
                        given: view.format(),
                    });
                }
                self.int_domain(result)?;
            }
            Constraint::FloatToInt {
                a, result, bits, ..
            } => {
                if !(1..=64).contains(&bits) {
                    return Err(NetworkError::IntegerWidth(bits));
                }
                self.float_format(a)?;
                self.int_domain(result)?;
            }
            Constraint::IntCompare { a, b, .. } => {
                self.int_domain(a)?;
                self.int_domain(b)?;
            }
            Constraint::IntSum { a, b, result, .. } => {
                self.int_domain(a)?;
                self.int_domain(b)?;
                self.int_domain(result)?;
            }
        }
        let index = self.constraints.len();
        let mut variables = constraint.variables();
        variables.dedup();
        for v in variables {
            if !self.watchers[v.0].contains(&index) {
                self.watchers[v.0].push(index);
            }
        }
        if let Some(result) = constraint.result() {
            if let Some(trail) = &mut self.defined_trail {
                trail.push((result.0, self.defined[result.0]));
            }
            self.defined[result.0] = true;
        }
        self.constraints.push(constraint);
        Ok(())
    }

    /// A new float variable of `format` defined by the constraint `make` builds around it.
    fn result_of(
        &mut self,
        format: Format,
        make: impl FnOnce(VarId) -> Constraint,
    ) -> Result<VarId, NetworkError> {
        let name = format!("t{}", self.domains.len());
        let result = self.float_var(&name, format);
        if let Err(error) = self.add(make(result)) {
            // Leave no orphan variable behind on misuse.
            self.names.pop();
            self.domains.pop();
            self.watchers.pop();
            self.defined.pop();
            return Err(error);
        }
        Ok(result)
    }

    /// `a ⊙ b` as a new variable.
    pub fn binary(&mut self, op: BinaryOp, a: VarId, b: VarId) -> Result<VarId, NetworkError> {
        let format = self.same_format(a, b)?;
        self.result_of(format, |result| Constraint::Binary { op, a, b, result })
    }

    pub fn fadd(&mut self, a: VarId, b: VarId) -> Result<VarId, NetworkError> {
        self.binary(BinaryOp::FAdd, a, b)
    }

    pub fn fsub(&mut self, a: VarId, b: VarId) -> Result<VarId, NetworkError> {
        self.binary(BinaryOp::FSub, a, b)
    }

    pub fn fmul(&mut self, a: VarId, b: VarId) -> Result<VarId, NetworkError> {
        self.binary(BinaryOp::FMul, a, b)
    }

    pub fn fdiv(&mut self, a: VarId, b: VarId) -> Result<VarId, NetworkError> {
        self.binary(BinaryOp::FDiv, a, b)
    }

    pub fn sqrt(&mut self, a: VarId) -> Result<VarId, NetworkError> {
        let format = self.float_format(a)?;
        self.result_of(format, |result| Constraint::Sqrt { a, result })
    }

    /// glibc's `function(a)` as a new variable (binary32/binary64, IEEE mode).
    pub fn libm(&mut self, function: LibmFunction, a: VarId) -> Result<VarId, NetworkError> {
        let format = self.float_format(a)?;
        self.result_of(format, |result| Constraint::Libm {
            function,
            a,
            result,
        })
    }

    /// glibc's `function(a, b)` as a new variable (binary32/binary64, IEEE mode).
    pub fn libm_binary(
        &mut self,
        function: LibmBinary,
        a: VarId,
        b: VarId,
    ) -> Result<VarId, NetworkError> {
        let format = self.float_format(a)?;
        self.result_of(format, |result| Constraint::LibmBinary {
            function,
            a,
            b,
            result,
        })
    }

    pub fn fneg(&mut self, a: VarId) -> Result<VarId, NetworkError> {
        let format = self.float_format(a)?;
        self.result_of(format, |result| Constraint::FNeg { a, result })
    }

    pub fn fabs(&mut self, a: VarId) -> Result<VarId, NetworkError> {
        let format = self.float_format(a)?;
        self.result_of(format, |result| Constraint::FAbs { a, result })
    }

    pub fn min_max(&mut self, op: MinMaxOp, a: VarId, b: VarId) -> Result<VarId, NetworkError> {
        let format = self.same_format(a, b)?;
        self.result_of(format, |result| Constraint::MinMax { op, a, b, result })
    }

    /// fpext/fptrunc of `a` to `format`.
    pub fn float_convert(&mut self, a: VarId, format: Format) -> Result<VarId, NetworkError> {
        self.float_format(a)?;
        self.result_of(format, |result| Constraint::FloatConvert { a, result })
    }

    /// sitofp/uitofp of the integer variable `a` to `format`.
    pub fn int_to_float(&mut self, a: VarId, format: Format) -> Result<VarId, NetworkError> {
        self.int_domain(a)?;
        self.result_of(format, |result| Constraint::IntToFloat { a, result })
    }

    /// fptosi/fptoui of `a` into an integer of `bits` width, as a new integer variable.
    pub fn float_to_int(
        &mut self,
        a: VarId,
        bits: u32,
        signed: bool,
    ) -> Result<VarId, NetworkError> {
        if !(1..=64).contains(&bits) {
            return Err(NetworkError::IntegerWidth(bits));
        }
        self.float_format(a)?;
        let (lo, hi) = crate::domain::integer_type_range(bits, signed);
        let name = format!("t{}", self.domains.len());
        let result = self.int_var(&name, lo, hi)?;
        self.add(Constraint::FloatToInt {
            a,
            result,
            bits,
            signed,
        })?;
        Ok(result)
    }

    /// The integer `view` reads from `a`'s bits (signed or unsigned), as a new integer
    /// variable.
    pub fn bits_to_int(
        &mut self,
        a: VarId,
        view: BitView,
        signed: bool,
    ) -> Result<VarId, NetworkError> {
        // The numbers the float's domain reads (an exponent field: 0..=2047), not the
        // whole type: sums of such numbers are then seen not to wrap.
        let (lo, hi) = view
            .number_range(self.float_domain(a)?, signed)
            .unwrap_or_else(|| crate::domain::integer_type_range(view.width(), signed));
        let name = format!("t{}", self.domains.len());
        let result = self.int_var(&name, lo, hi)?;
        self.add(Constraint::BitsToInt {
            a,
            view,
            result,
            signed,
        })?;
        Ok(result)
    }

    /// Requires `fcmp predicate a, b` to be `holds`.
    pub fn require(
        &mut self,
        predicate: FcmpPredicate,
        a: VarId,
        b: VarId,
        holds: bool,
    ) -> Result<(), NetworkError> {
        let predicate = if holds {
            predicate
        } else {
            predicate.negated()
        };
        self.add(Constraint::Compare { predicate, a, b })
    }

    /// `a + b` or `a - b` (`subtract`) of integer variables, as a new integer variable
    /// over the values their domains allow.
    pub fn int_sum(&mut self, a: VarId, b: VarId, subtract: bool) -> Result<VarId, NetworkError> {
        let (Some((alo, ahi)), Some((blo, bhi))) =
            (self.int_domain(a)?.range(), self.int_domain(b)?.range())
        else {
            return Err(NetworkError::WrongKind {
                variable: a.0,
                expected: "an integer with a non-empty domain".into(),
            });
        };
        let (lo, hi) = if subtract {
            (alo.saturating_sub(bhi), ahi.saturating_sub(blo))
        } else {
            (alo.saturating_add(blo), ahi.saturating_add(bhi))
        };
        let name = format!("t{}", self.domains.len());
        let result = self.int_var(&name, lo, hi)?;
        self.add(Constraint::IntSum {
            a,
            b,
            subtract,
            result,
        })?;
        Ok(result)
    }

    /// Requires the integer variables `a` and `b` to be in `order`.
    pub fn require_int_order(
        &mut self,
        order: IntOrder,
        a: VarId,
        b: VarId,
    ) -> Result<(), NetworkError> {
        self.add(Constraint::IntCompare { order, a, b })
    }

    /// Requires `a` to be in one of `classes` (`holds`) or in none of them.
    pub fn require_class(
        &mut self,
        a: VarId,
        classes: FloatClasses,
        holds: bool,
    ) -> Result<(), NetworkError> {
        let classes = if holds { classes } else { classes.complement() };
        self.add(Constraint::Class { a, classes })
    }

    /// Requires `a` to be in `set` (its format must be `a`'s).
    pub fn require_in_set(&mut self, a: VarId, set: FloatSet) -> Result<(), NetworkError> {
        self.add(Constraint::InSet { a, set, test: None })
    }

    /// Requires `a`'s bits to pass `test`: propagation uses the floats it admits (a
    /// superset for low-word tests), solutions the test itself.
    pub fn require_bit_test(&mut self, a: VarId, test: BitTest) -> Result<(), NetworkError> {
        let set = test.set();
        self.add(Constraint::InSet {
            a,
            set,
            test: Some(test),
        })
    }

    /// Narrows this network's own domains by 2B propagation: runs projections from a queue
    /// until no domain changes, a domain empties (a proof that no float solution exists), or
    /// `budget` projections ran (the domains are then narrowed soundly, not fully).
    pub fn propagate(&mut self, budget: u64) -> Propagation {
        self.propagate_recording(budget, |_, _| {})
    }

    /// [`Network::propagate`], then the affine bound ([`crate::affine::bound`]) once and
    /// propagation again: relations intervals lose (`x - 360*(int)((x+180)/360)` lies in
    /// [-180, 180] however wide x is) narrow the domains. It costs a pass over every
    /// constraint in exact rationals: for the questions plain propagation leaves open
    /// (whether `i + 1` can wrap), not for every branch.
    pub fn propagate_with_relations(&mut self, budget: u64) -> Propagation {
        let first = self.propagate(budget);
        if first == Propagation::Infeasible {
            return first;
        }
        let mut domains = self.domains.clone();
        match crate::affine::bound(self, &mut domains) {
            crate::affine::Bounding::Unchanged => first,
            crate::affine::Bounding::Narrowed(narrowed) => {
                for v in narrowed {
                    if self.restrict(v, domains[v.0].clone()).is_err() {
                        return first;
                    }
                }
                self.propagate(budget)
            }
            // No point of the domains satisfies the constraints: an empty domain says so
            // (through `restrict`, so that a trial takes it back).
            crate::affine::Bounding::Refuted => {
                let emptied = self.domains.iter().position(|d| d.as_float().is_some());
                let Some(index) = emptied else {
                    return first;
                };
                let Some(d) = self.domains[index].as_float().cloned() else {
                    return first;
                };
                let empty = d.with_range(None).with_nan(false);
                if self.restrict(VarId(index), Domain::Float(empty)).is_err() {
                    return first;
                }
                self.propagate(budget)
            }
        }
    }

    /// [`Network::propagate`], `on_change` seeing each domain before it narrows.
    fn propagate_recording(
        &mut self,
        budget: u64,
        on_change: impl FnMut(usize, &Domain),
    ) -> Propagation {
        let restricted = std::mem::take(&mut self.restricted);
        // Propagation never empties a domain it writes (it reports Infeasible instead):
        // only new variables and restricted ones can be empty.
        let emptied = self.refuted
            || self.domains[self.scanned.min(self.domains.len())..]
                .iter()
                .any(Domain::is_empty)
            || restricted
                .iter()
                .any(|v| self.domains.get(v.0).is_some_and(Domain::is_empty));
        self.scanned = self.domains.len();
        let outcome = if emptied {
            Propagation::Infeasible
        } else {
            let mut domains = std::mem::take(&mut self.domains);
            let seeds = (self.settled..self.constraints.len()).chain(self.watching(&restricted));
            let outcome = self.run_queue(&mut domains, budget, 0.0, seeds, on_change);
            self.domains = domains;
            outcome
        };
        // A propagation cut short may have left any constraint unsettled; a refuted
        // network stays refuted whatever is added.
        self.refuted = outcome == Propagation::Infeasible;
        self.settled = if outcome == Propagation::BudgetExhausted {
            0
        } else {
            self.constraints.len()
        };
        outcome
    }

    /// Whether what `add` requires can hold with the network (propagation within `budget`
    /// does not refute it): `add` runs, the network propagates, and every change is taken
    /// back, the network left as it was. A walk asks this of both directions of each
    /// branch; cloning a network of thousands of constraints for it cost more than the
    /// propagation.
    pub fn feasible_with<E>(
        &mut self,
        add: impl FnOnce(&mut Network) -> Result<(), E>,
        budget: u64,
    ) -> Result<bool, E> {
        let (variables, constraints) = (self.domains.len(), self.constraints.len());
        let (settled, restricted) = (self.settled, self.restricted.clone());
        let (scanned, refuted) = (self.scanned, self.refuted);
        self.trail = Some(Vec::new());
        self.defined_trail = Some(Vec::new());
        let added = add(self);
        let mut trail = self.trail.take().unwrap_or_default();
        let defined = self.defined_trail.take().unwrap_or_default();
        let outcome =
            added.map(|()| self.propagate_recording(budget, |v, old| trail.push((v, old.clone()))));
        for (v, old) in trail.into_iter().rev() {
            if let Some(domain) = self.domains.get_mut(v) {
                *domain = old;
            }
        }
        for constraint in &self.constraints[constraints..] {
            for v in constraint.variables() {
                if let Some(watching) = self.watchers.get_mut(v.0) {
                    watching.retain(|&i| i < constraints);
                }
            }
        }
        self.constraints.truncate(constraints);
        self.names.truncate(variables);
        self.domains.truncate(variables);
        self.watchers.truncate(variables);
        self.defined.truncate(variables);
        for (v, was) in defined.into_iter().rev() {
            if let Some(mark) = self.defined.get_mut(v) {
                *mark = was;
            }
        }
        self.settled = settled;
        self.restricted = restricted;
        self.scanned = scanned;
        self.refuted = refuted;
        Ok(outcome? != Propagation::Infeasible)
    }

    /// Runs projections from a queue until no domain changes (2B-consistency), a domain
    /// empties, or `budget` projections ran. Only the constraints watching a changed variable
    /// are re-enqueued; `changed` seeds the queue (all constraints when `None`). With
    /// `min_reduction > 0`, a narrowing wakes the variable's constraints only when it is
    /// [`significant`] (the usual precision ratio of 2B: creeping one float at a time across
    /// millions of floats is left to the search), so `Fixpoint` then means "up to that ratio".
    pub(crate) fn propagate_domains(
        &self,
        domains: &mut [Domain],
        budget: u64,
        min_reduction: f64,
        changed: Option<&[VarId]>,
    ) -> Propagation {
        if domains.iter().any(Domain::is_empty) {
            return Propagation::Infeasible;
        }
        match changed {
            None => self.run_queue(
                domains,
                budget,
                min_reduction,
                0..self.constraints.len(),
                |_, _| {},
            ),
            Some(vars) => self.run_queue(
                domains,
                budget,
                min_reduction,
                self.watching(vars),
                |_, _| {},
            ),
        }
    }

    /// The constraints watching any of `vars`.
    fn watching<'a>(&'a self, vars: &'a [VarId]) -> impl Iterator<Item = usize> + 'a {
        vars.iter()
            .flat_map(|v| self.watchers.get(v.0).into_iter().flatten().copied())
    }

    /// [`Network::propagate_domains`] from the constraints `seeds`; `on_change` sees each
    /// variable's domain before it narrows.
    fn run_queue(
        &self,
        domains: &mut [Domain],
        budget: u64,
        min_reduction: f64,
        seeds: impl Iterator<Item = usize>,
        mut on_change: impl FnMut(usize, &Domain),
    ) -> Propagation {
        // A set, not a flag per constraint: a walk's propagations start from a few
        // constraints of a network of hundreds of thousands.
        let mut queued: HashSet<usize> = HashSet::new();
        let mut queue = VecDeque::new();
        let enqueue = |index: usize, queue: &mut VecDeque<usize>, queued: &mut HashSet<usize>| {
            if queued.insert(index) {
                queue.push_back(index);
            }
        };
        for i in seeds {
            enqueue(i, &mut queue, &mut queued);
        }
        let mut runs = 0u64;
        while let Some(index) = queue.pop_front() {
            queued.remove(&index);
            if runs >= budget {
                return Propagation::BudgetExhausted;
            }
            runs += 1;
            let constraint = &self.constraints[index];
            let Some(narrowed) = self.project(constraint, domains) else {
                return Propagation::Infeasible;
            };
            let variables = constraint.variables();
            for (position, (&v, domain)) in variables.iter().zip(narrowed).enumerate() {
                // A variable used twice (x ⊕ 1 = x) keeps what every position allows.
                let domain = if variables[..position].contains(&v) {
                    intersect(&domains[v.0], &domain)
                } else {
                    domain
                };
                if domains[v.0] != domain {
                    if domain.is_empty() {
                        return Propagation::Infeasible;
                    }
                    let wake = significant(&domains[v.0], &domain, min_reduction);
                    on_change(v.0, &domains[v.0]);
                    domains[v.0] = domain;
                    if wake {
                        for &i in &self.watchers[v.0] {
                            enqueue(i, &mut queue, &mut queued);
                        }
                    }
                }
            }
        }
        Propagation::Fixpoint
    }

    /// The projection of one constraint: new domains in [`Constraint::variables`] order, or
    /// `None` when the constraint has no solution in `domains`.
    fn project(&self, constraint: &Constraint, domains: &[Domain]) -> Option<Vec<Domain>> {
        let float = |v: VarId| domains.get(v.0).and_then(Domain::as_float);
        let int = |v: VarId| domains.get(v.0).and_then(Domain::as_int);
        let arith = self.arith;
        let pair = |(x, y): (FloatDomain, FloatDomain)| vec![Domain::Float(x), Domain::Float(y)];
        let triple = |(x, y, z): (FloatDomain, FloatDomain, FloatDomain)| {
            vec![Domain::Float(x), Domain::Float(y), Domain::Float(z)]
        };
        match *constraint {
            Constraint::Binary { op, a, b, result } => {
                project_binary(op, arith, float(a)?, float(b)?, float(result)?).map(triple)
            }
            Constraint::MinMax { op, a, b, result } => {
                project_min_max(op, arith, float(a)?, float(b)?, float(result)?).map(triple)
            }
            Constraint::Compare { predicate, a, b } => {
                if a == b {
                    // Both operands are the same variable: only its NaN-ness is decided.
                    let d = float(a)?;
                    let reflexive = predicate.accepts(std::cmp::Ordering::Equal);
                    let kept = d
                        .with_range(if reflexive { d.range() } else { None })
                        .with_nan(d.may_be_nan() && predicate.is_unordered_true());
                    return (!kept.is_empty())
                        .then(|| vec![Domain::Float(kept.clone()), Domain::Float(kept)]);
                }
                project_compare(predicate, arith, float(a)?, float(b)?).map(pair)
            }
            Constraint::Class { a, classes } => {
                let kept = classes.restrict(float(a)?);
                (!kept.is_empty()).then(|| vec![Domain::Float(kept)])
            }
            Constraint::InSet { a, ref set, .. } => {
                let kept = set.restrict(float(a)?);
                (!kept.is_empty()).then(|| vec![Domain::Float(kept)])
            }
            Constraint::Sqrt { a, result } => {
                project_sqrt(arith, float(a)?, float(result)?).map(pair)
            }
            Constraint::Libm {
                function,
                a,
                result,
            } => project_libm(function, float(a)?, float(result)?).map(pair),
            Constraint::LibmBinary {
                function,
                a,
                b,
                result,
            } => project_libm_binary(function, float(a)?, float(b)?, float(result)?).map(triple),
            Constraint::FNeg { a, result } => project_fneg(float(a)?, float(result)?).map(pair),
            Constraint::FAbs { a, result } => project_fabs(float(a)?, float(result)?).map(pair),
            Constraint::Copy { a, result } => project_copy(float(a)?, float(result)?).map(pair),
            Constraint::FloatConvert { a, result } => {
                project_float_convert(arith, float(a)?, float(result)?).map(pair)
            }
            Constraint::IntToFloat { a, result } => {
                project_int_to_float(arith, int(a)?, float(result)?)
                    .map(|(i, r)| vec![Domain::Int(i), Domain::Float(r)])
            }
            Constraint::FloatToInt {
                a,
                result,
                bits,
                signed,
            } => project_float_to_int(arith, float(a)?, int(result)?, bits, signed)
                .map(|(f, i)| vec![Domain::Float(f), Domain::Int(i)]),
            Constraint::BitsToInt {
                a,
                view,
                result,
                signed,
            } => {
                let (d, r) = (float(a)?, int(result)?);
                let (lo, hi) = view.number_range(d, signed)?;
                let r = r.intersect(&IntDomain::new(lo, hi));
                let (lo, hi) = r.range()?;
                let (at_least, at_most) = view.numbers_between(lo, hi, signed);
                let d = at_most.restrict(&at_least.restrict(d));
                (!d.is_empty()).then(|| vec![Domain::Float(d), Domain::Int(r)])
            }
            Constraint::IntCompare { order, a, b } => order
                .project(int(a)?, int(b)?)
                .map(|(x, y)| vec![Domain::Int(x), Domain::Int(y)]),
            Constraint::IntSum {
                a,
                b,
                subtract,
                result,
            } => project_int_sum(int(a)?, int(b)?, int(result)?, subtract)
                .map(|(x, y, r)| vec![Domain::Int(x), Domain::Int(y), Domain::Int(r)]),
        }
    }

    /// Computes every variable an operation defines from values of the others, in the
    /// order the constraints were added (operands before results, as a path builds them),
    /// on the machine path of [`Arith`]: `values` holds the inputs (and constants) and gets
    /// the results. `Some(true)` when every constraint and every variable's initial domain
    /// holds, `Some(false)` when one fails, `None` when an operand had no value yet (the
    /// network is not in that order). This is what the search runs on points: a node's
    /// inputs enumerated one by one decide it exactly, where propagation of near-points
    /// would narrow one float at a time.
    pub fn evaluate(&self, values: &mut [Option<Value>]) -> Option<bool> {
        if values.len() != self.domains.len() {
            return None;
        }
        let arith = self.arith;
        for constraint in &self.constraints {
            let float = |v: VarId| match values[v.0]? {
                Value::Float(x) => Some(x),
                Value::Int(_) => None,
            };
            let format = |v: VarId| self.domains[v.0].as_float().map(FloatDomain::format);
            let computed = match *constraint {
                Constraint::Compare { predicate, a, b } => {
                    if !arith.compare(predicate, format(a)?, float(a)?, float(b)?) {
                        return Some(false);
                    }
                    continue;
                }
                Constraint::Class { a, classes } => {
                    if !classes.holds(format(a)?, float(a)?) {
                        return Some(false);
                    }
                    continue;
                }
                Constraint::InSet { a, ref set, .. } => {
                    if !set.contains(float(a)?) {
                        return Some(false);
                    }
                    continue;
                }
                Constraint::IntCompare { order, a, b } => {
                    let (Value::Int(x), Value::Int(y)) = (values[a.0]?, values[b.0]?) else {
                        return None;
                    };
                    if !order.holds(x, y) {
                        return Some(false);
                    }
                    continue;
                }
                Constraint::IntSum {
                    a,
                    b,
                    subtract,
                    result,
                } => {
                    let (Value::Int(x), Value::Int(y)) = (values[a.0]?, values[b.0]?) else {
                        return None;
                    };
                    (result, Value::Int(int_sum(x, y, subtract)))
                }
                Constraint::Binary { op, a, b, result } => (
                    result,
                    Value::Float(arith.binary(op, format(a)?, float(a)?, float(b)?)),
                ),
                Constraint::MinMax { op, a, b, result } => {
                    let (x, y, f) = (float(a)?, float(b)?, format(a)?);
                    let value = match op {
                        MinMaxOp::Min => arith.fmin(f, x, y),
                        MinMaxOp::Max => arith.fmax(f, x, y),
                    };
                    (result, Value::Float(value))
                }
                Constraint::Sqrt { a, result } => {
                    (result, Value::Float(arith.fsqrt(format(a)?, float(a)?)))
                }
                Constraint::Libm {
                    function,
                    a,
                    result,
                } => (
                    result,
                    Value::Float(call_glibc(function, format(a)?, float(a)?)),
                ),
                Constraint::LibmBinary {
                    function,
                    a,
                    b,
                    result,
                } => (
                    result,
                    Value::Float(call_glibc_binary(
                        function,
                        format(a)?,
                        float(a)?,
                        float(b)?,
                    )),
                ),
                Constraint::FNeg { a, result } => {
                    (result, Value::Float(arith.fneg(format(a)?, float(a)?)))
                }
                Constraint::FAbs { a, result } => {
                    (result, Value::Float(arith.fabs(format(a)?, float(a)?)))
                }
                Constraint::Copy { a, result } => (result, Value::Float(float(a)?)),
                Constraint::FloatConvert { a, result } => (
                    result,
                    Value::Float(arith.convert_on_machine(format(a)?, format(result)?, float(a)?)),
                ),
                Constraint::IntToFloat { a, result } => {
                    let Value::Int(i) = values[a.0]? else {
                        return None;
                    };
                    (result, Value::Float(arith.int_to_float(format(result)?, i)))
                }
                Constraint::FloatToInt {
                    a,
                    result,
                    bits,
                    signed,
                } => match arith.float_to_int(format(a)?, float(a)?, bits, signed) {
                    Some(i) => (result, Value::Int(i)),
                    None => return Some(false),
                },
                // A NaN is read with the canonical quiet bits, as a solution is replayed.
                Constraint::BitsToInt {
                    a,
                    view,
                    result,
                    signed,
                } => (
                    result,
                    Value::Int(view.number(format(a)?.to_bits(float(a)?), signed)),
                ),
            };
            let (result, value) = computed;
            match values[result.0] {
                Some(existing) if existing != value => return Some(false),
                Some(_) => {}
                None => values[result.0] = Some(value),
            }
        }
        for (value, domain) in values.iter().zip(&self.domains) {
            let inside = match (value.as_ref()?, domain) {
                (Value::Float(x), Domain::Float(d)) => d.contains(*x),
                (Value::Int(x), Domain::Int(d)) => d.contains(*x),
                _ => false,
            };
            if !inside {
                return Some(false);
            }
        }
        Some(true)
    }

    /// Whether concrete values (one per variable) satisfy every constraint and every
    /// variable's initial domain, evaluated in the format's exact-rational arithmetic (the
    /// reference, not the machine path the projections use).
    pub fn check(&self, values: &[Value]) -> Result<bool, NetworkError> {
        if values.len() != self.domains.len() {
            return Err(NetworkError::AssignmentLength {
                expected: self.domains.len(),
                given: values.len(),
            });
        }
        let in_domains =
            values
                .iter()
                .zip(&self.domains)
                .all(|(value, domain)| match (value, domain) {
                    (Value::Float(x), Domain::Float(d)) => d.contains(*x),
                    (Value::Int(x), Domain::Int(d)) => d.contains(*x),
                    _ => false,
                });
        Ok(in_domains && self.constraints.iter().all(|c| self.satisfied(c, values)))
    }

    fn satisfied(&self, constraint: &Constraint, values: &[Value]) -> bool {
        let arith = self.arith;
        let float = |v: VarId| match values[v.0] {
            Value::Float(x) => Some(x),
            Value::Int(_) => None,
        };
        let int = |v: VarId| match values[v.0] {
            Value::Int(x) => Some(x),
            Value::Float(_) => None,
        };
        let format = |v: VarId| self.domains[v.0].as_float().map(FloatDomain::format);
        let check = || -> Option<bool> {
            Some(match *constraint {
                Constraint::Binary { op, a, b, result } => {
                    arith.binary_exact(op, format(a)?, float(a)?, float(b)?) == float(result)?
                }
                Constraint::MinMax { op, a, b, result } => {
                    let computed = match op {
                        MinMaxOp::Min => arith.fmin(format(a)?, float(a)?, float(b)?),
                        MinMaxOp::Max => arith.fmax(format(a)?, float(a)?, float(b)?),
                    };
                    computed == float(result)?
                }
                Constraint::Compare { predicate, a, b } => {
                    arith.compare(predicate, format(a)?, float(a)?, float(b)?)
                }
                Constraint::Class { a, classes } => classes.holds(format(a)?, float(a)?),
                Constraint::InSet { a, ref set, test } => {
                    let value = float(a)?;
                    set.contains(value) && test.is_none_or(|t| t.admits(value))
                }
                Constraint::Sqrt { a, result } => {
                    arith.fsqrt_exact(format(a)?, float(a)?) == float(result)?
                }
                // glibc's own result: the enclosures only serve the projections.
                Constraint::Libm {
                    function,
                    a,
                    result,
                } => call_glibc(function, format(a)?, float(a)?) == float(result)?,
                Constraint::LibmBinary {
                    function,
                    a,
                    b,
                    result,
                } => {
                    call_glibc_binary(function, format(a)?, float(a)?, float(b)?) == float(result)?
                }
                Constraint::FNeg { a, result } => {
                    arith.fneg(format(a)?, float(a)?) == float(result)?
                }
                Constraint::FAbs { a, result } => {
                    arith.fabs(format(a)?, float(a)?) == float(result)?
                }
                Constraint::Copy { a, result } => float(a)? == float(result)?,
                Constraint::FloatConvert { a, result } => {
                    arith.convert(format(a)?, format(result)?, float(a)?) == float(result)?
                }
                Constraint::IntToFloat { a, result } => {
                    arith.int_to_float(format(result)?, int(a)?) == float(result)?
                }
                Constraint::FloatToInt {
                    a,
                    result,
                    bits,
                    signed,
                } => arith.float_to_int(format(a)?, float(a)?, bits, signed) == Some(int(result)?),
                Constraint::BitsToInt {
                    a,
                    view,
                    result,
                    signed,
                } => view.number(format(a)?.to_bits(float(a)?), signed) == int(result)?,
                Constraint::IntCompare { order, a, b } => order.holds(int(a)?, int(b)?),
                Constraint::IntSum {
                    a,
                    b,
                    subtract,
                    result,
                } => int_sum(int(a)?, int(b)?, subtract) == int(result)?,
            })
        };
        check().unwrap_or(false)
    }
}
