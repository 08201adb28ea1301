//! The search pipeline every mode shares (session, executables, candidates, random
//! phase, solver rounds, float-solver refinement, native confirmation) and the four
//! modes on top of it: `exceptions`, `diff`, `error`, `reach`. Modes return reports that
//! `findings` turns into `fpscout-report`'s one model. Nothing here prints.

pub mod attribution;
pub mod concrete;
pub mod config;
pub mod confirm;
pub mod executable;
pub mod exhaustive;
pub mod findings;
mod floatsolve;
pub mod libraries;
pub mod modes;
pub mod observe;
pub mod oracle;
pub mod origin;
pub mod random;
pub mod records;
pub mod reference;
mod refine;
pub mod run;
pub mod search;
pub mod seeds;
pub mod session;
pub mod sources;
pub mod svcomp;
pub mod trace;
pub mod verdict;

pub use fpscout_report::InputError;
pub use modes::{diff, error, exceptions, reach};
