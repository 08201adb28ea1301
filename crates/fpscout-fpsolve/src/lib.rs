//! fpscout-fpsolve: a float-exact constraint solver (FPSE/FPCS) whose "no" is a proof over floats.
//!
//! Variables are floats of an IEEE binary [`Format`] (f32, f64, minifloats) or integers;
//! constraints are the IR's operations and comparisons. Projections narrow interval domains
//! without ever removing a float solution, propagation runs them to a fixpoint, and the
//! search splits domains until it finds a solution (checked by concrete evaluation) or has
//! emptied every branch (a proof of infeasibility).

pub mod arith;
pub mod compare;
pub mod domain;
pub mod error;
pub mod format;
pub mod network;
pub mod project;
mod real;
pub mod search;

pub use arith::{Arith, BinaryOp};
pub use compare::FcmpPredicate;
pub use domain::{FloatDomain, IntDomain, NanState};
pub use error::{FormatError, NetworkError};
pub use format::{FloatValue, Format, Fp, Rounding};
pub use network::{Constraint, Domain, Network, Propagation, Value, VarId};
pub use project::minmax::MinMaxOp;
pub use search::{
    enumerate, solve, Answer, Assignment, Consistency, Enumeration, Report, SearchConfig, Split,
    StopReason, Strategy,
};
