//! Typed errors for misuse of the solver's API.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FormatError {
    #[error(
        "unsupported float format: {exponent_bits} exponent bits, {fraction_bits} fraction bits"
    )]
    UnsupportedWidths {
        exponent_bits: u32,
        fraction_bits: u32,
    },
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum NetworkError {
    #[error("variable {0} does not exist in this network")]
    UnknownVariable(usize),
    #[error("variable {variable} has the wrong kind for this constraint: expected {expected}")]
    WrongKind { variable: usize, expected: String },
    #[error("variables {0} and {1} must have the same float format")]
    FormatMismatch(usize, usize),
    #[error("domain of format {given:?} given to a variable of format {expected:?}")]
    DomainFormat {
        expected: crate::format::Format,
        given: crate::format::Format,
    },
    #[error("integer bounds [{lo}, {hi}] are empty")]
    EmptyIntegerRange { lo: i128, hi: i128 },
    #[error("integer width {0} is not in 1..=64")]
    IntegerWidth(u32),
    #[error("libm function '{function}' is not modelled here: {why}")]
    LibmUnsupported { function: &'static str, why: String },
    #[error("assignment has {given} values for {expected} variables")]
    AssignmentLength { expected: usize, given: usize },
}
