//! Helpers shared by the integration tests.

// Each test binary compiles this module and uses only part of it.
#[allow(dead_code)]
pub mod agreement;

#[allow(dead_code)]
pub mod cli;
