//! The walker over fpscout-ir, generic over value domains, and the concrete IEEE domain.

mod code;
pub mod concrete;
pub mod domain;
pub mod floatpath;
pub mod memory;
mod quiet;
pub mod raising;
pub mod shadow;
pub mod walker;

pub use domain::{DResult, Decision, Domain, OpSite};
pub use memory::{Memory, ObjectId, Ptr};
pub use walker::{
    ExploreLimits, ExploreSummary, Outcome, PathEnd, StopReason, Val, WalkConfig, Walker,
};

use fpscout_ir::SourceLoc;

/// Why a walk could not go on. Floating-point exceptions are never errors: they are
/// events of the domain.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WalkError {
    /// What the native program would do here is a crash or undefined behaviour
    /// (integer division by zero, out-of-bounds access, unreachable).
    #[error("trap: {what}{}", loc_suffix(.loc))]
    Trap {
        what: String,
        loc: Option<SourceLoc>,
    },
    /// The domain or walker does not model this operation.
    #[error("unsupported: {what}{}", loc_suffix(.loc))]
    Unsupported {
        what: String,
        loc: Option<SourceLoc>,
    },
    /// The caller passed arguments that do not fit the function.
    #[error("bad arguments: {0}")]
    BadArguments(String),
}

fn loc_suffix(loc: &Option<SourceLoc>) -> String {
    match loc {
        Some(l) => format!(" at {l}"),
        None => String::new(),
    }
}

impl WalkError {
    pub fn trap(what: impl Into<String>) -> WalkError {
        WalkError::Trap {
            what: what.into(),
            loc: None,
        }
    }
    pub fn unsupported(what: impl Into<String>) -> WalkError {
        WalkError::Unsupported {
            what: what.into(),
            loc: None,
        }
    }
    /// Attaches a source location if none is set yet.
    pub fn at(self, at: Option<&SourceLoc>) -> WalkError {
        match self {
            WalkError::Trap { what, loc: None } => WalkError::Trap {
                what,
                loc: at.cloned(),
            },
            WalkError::Unsupported { what, loc: None } => WalkError::Unsupported {
                what,
                loc: at.cloned(),
            },
            other => other,
        }
    }
}
