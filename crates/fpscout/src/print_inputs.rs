//! Inputs as every printer shows them (JSON values, text, `run --args`): the library's
//! formatting, named for the printers of this binary.

pub use fpscout_report::args::{inputs_json, inputs_text, run_args};
