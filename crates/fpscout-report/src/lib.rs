//! The findings model (`Finding`, one per confirmed witness, whatever mode found it) and
//! everything that prints or stores findings: input formatting, text and JSON reports,
//! SARIF, the baseline ledger (fingerprints, shards, merging), HTML with plots and
//! reproducers. It knows no mode: modes convert their results into `Finding`s.

pub mod args;
pub mod finding;
pub mod html;
pub mod ledger;
pub mod plots;
pub mod replay;
pub mod report;
pub mod repro;
pub mod sarif;

/// An error the user can fix (bad file, bad arguments, unsupported code): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);
