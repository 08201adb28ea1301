//! fpscout-fpsolve: a float-exact constraint solver (FPSE/FPCS) whose "no" is a proof over floats.

pub mod affine;
pub mod arith;
pub mod bits;
pub mod class;
pub mod compare;
pub mod domain;
pub mod error;
pub mod format;
pub mod libm;
pub mod libm_binary;
mod machine;
pub mod network;
mod order;
pub mod project;
mod real;
pub mod search;

pub use arith::{Arith, BinaryOp};
pub use bits::{BitTest, BitView, FloatSet, IntPredicate};
pub use class::FloatClasses;
pub use compare::FcmpPredicate;
pub use domain::{integer_type_range, FloatDomain, IntDomain, NanState};
pub use error::{FormatError, NetworkError};
pub use format::{FloatValue, Format, Fp, Rounding};
pub use libm::LibmFunction;
pub use libm_binary::LibmBinary;
pub use network::{Constraint, Domain, IntOrder, Network, Propagation, Value, VarId};
pub use project::minmax::MinMaxOp;
pub use search::{
    enumerate, solve, Answer, Assignment, Consistency, Enumeration, Report, SearchConfig, Split,
    StopReason, Strategy,
};
