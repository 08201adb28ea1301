//! Glue shared by the `fpscout` commands: building P and P', parsing inputs, and the
//! `run` report. Printing stays in main.rs.

pub mod args;
pub mod concrete;
pub mod diff;
pub mod error;
pub mod exceptions;
pub mod finding;
mod floatsolve;
pub mod html;
pub mod ledger;
pub mod libraries;
pub mod observe;
pub mod oracle;
pub mod plots;
pub mod reach;
mod refine;
pub mod report;
pub mod repro;
pub mod run;
pub mod sarif;
pub mod search;
pub mod seeds;
pub mod session;
pub mod sources;
pub mod svcomp;
pub mod trace;

/// An error the user can fix (bad file, bad arguments, unsupported code): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);
