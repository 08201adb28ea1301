//! The four searches, each a module over the shared pipeline.

pub mod diff;
pub mod error;
pub mod exceptions;
pub mod reach;
