//! The configuration every mode shares (function, build, inputs, budget, seed, FTZ/DAZ, hang limit, random-only), checked by one function, and the one table of every mode's defaults that the command line's `--help` shows.

use crate::search::{int_range_len, int_range_values, InputOptions};
use crate::session::FtzDazChoice;
use crate::InputError;
use fpscout_ir::{Function, ScalarTy, Type};
use fpscout_toolchain::BuildKind;
use std::collections::HashMap;
use std::time::Instant;

/// The defaults of one command that differ between commands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModeDefaults {
    /// Seconds of `--time-budget`.
    pub time_budget_s: f64,
}

/// `fpscout exceptions`: a whole library is analysed one function at a time, each with
/// this budget, so it is half the others'.
pub const EXCEPTIONS: ModeDefaults = ModeDefaults {
    time_budget_s: 30.0,
};
pub const DIFF: ModeDefaults = ModeDefaults {
    time_budget_s: 60.0,
};
pub const REACH: ModeDefaults = ModeDefaults {
    time_budget_s: 60.0,
};
pub const ERROR: ModeDefaults = ModeDefaults {
    time_budget_s: 60.0,
};
/// `fpscout run` (one input replayed, not a search mode, but it shares the hang limit).
pub const RUN: ModeDefaults = ModeDefaults {
    time_budget_s: 60.0,
};

/// The default `--hang-limit-ms` of every command. 200 ms, not the 2,000 ms `reach`,
/// `error` and `run` had: `diff` and `exceptions` run up to 100,000 random inputs and
/// pace their batches as if each could hang until this limit (twice, in `diff`), so a
/// limit of seconds would shrink every batch near a phase deadline to one input and
/// spend whole seconds per hanging input; `reach` and `error` only run a few inputs
/// natively, each a single call of the function, for which 200 ms is ample.
pub const HANG_LIMIT_MS: u64 = 200;
/// The default `--seed`.
pub const SEED: u64 = 1;

/// Settings every mode has, with the same meaning in each.
#[derive(Clone, Debug)]
pub struct CommonConfig {
    pub function: String,
    /// The build analysed (its executable confirms); `diff` compares both and ignores it.
    pub build: BuildKind,
    /// `--range name=lo:hi`: a float parameter (arrays: every element) searched inside
    /// `[lo, hi]`; an integer parameter sampled at the integers of `[lo, hi]` (see
    /// [`crate::search::int_assignments`]).
    pub ranges: HashMap<String, (f64, f64)>,
    /// Values of integer parameters (`--int name=v`); default 0.
    pub ints: HashMap<String, i64>,
    /// Lengths of array parameters (`--array-len name=n`); default
    /// [`crate::search::default_array_len`].
    pub array_lens: HashMap<String, usize>,
    /// Arrays whose length is a default the search may grow when a walk reads past
    /// their end: an SV-COMP harness's streams of nondet values, read once per loop
    /// iteration.
    pub growable_arrays: Vec<String>,
    /// Wall-clock budget of the whole run, in seconds.
    pub time_budget_s: f64,
    pub seed: u64,
    pub ftz_daz: FtzDazChoice,
    /// An executable still running after this many milliseconds on one input is killed
    /// (that input does not terminate).
    pub hang_limit_ms: u64,
    /// Random inputs only, for the whole budget (the baseline of the benchmarks).
    pub random_only: bool,
    /// When the run began (compiling included); `None`: when the mode is called. The
    /// time budget counts from it.
    pub started: Option<Instant>,
}

impl CommonConfig {
    /// The settings of `function` with the defaults of `mode`.
    pub fn new(function: &str, mode: ModeDefaults) -> CommonConfig {
        CommonConfig {
            function: function.to_string(),
            build: BuildKind::P,
            ranges: HashMap::new(),
            ints: HashMap::new(),
            array_lens: HashMap::new(),
            growable_arrays: Vec::new(),
            time_budget_s: mode.time_budget_s,
            seed: SEED,
            ftz_daz: FtzDazChoice::Auto,
            hang_limit_ms: HANG_LIMIT_MS,
            random_only: false,
            started: None,
        }
    }

    /// Why these settings cannot run, in the words of the command line's flags.
    pub fn validate(&self) -> Result<(), InputError> {
        check_seconds("--time-budget", self.time_budget_s)?;
        if self.hang_limit_ms == 0 {
            return Err(InputError("--hang-limit-ms must be at least 1".into()));
        }
        let mut names: Vec<&String> = self.ranges.keys().collect();
        names.sort();
        for name in names {
            let (lo, hi) = self.ranges[name];
            if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                return Err(InputError(format!(
                    "--range expects NAME=LO:HI with finite LO <= HI, got '{name}={lo}:{hi}'"
                )));
            }
        }
        Ok(())
    }

    /// The parameters as the user fixed them.
    pub fn input_options(&self) -> InputOptions<'_> {
        InputOptions {
            ranges: &self.ranges,
            ints: &self.ints,
            array_lens: &self.array_lens,
        }
    }

    /// The function of the configured build, with its input space (`mode` names the
    /// command in errors).
    pub fn searched_function<'s>(
        &self,
        session: &'s crate::session::Session,
        mode: &str,
    ) -> Result<
        (
            &'s fpscout_ir::Module,
            fpscout_ir::FuncId,
            crate::search::InputSpace,
        ),
        InputError,
    > {
        crate::search::searched_function(
            session,
            self.build,
            &self.function,
            &self.input_options(),
            mode,
        )
    }

    /// When the time budget counts from.
    pub fn start(&self) -> Instant {
        self.started.unwrap_or_else(Instant::now)
    }

    /// For a mode that searches one assignment of the integer parameters at a time: one
    /// configuration per assignment of those `--range` samples (the values of
    /// [`crate::search::InputSpace::assignments`]), each fixing them as `--int` would;
    /// just this one when no integer parameter has a `--range` without an `--int`. The
    /// time budget is the caller's to share.
    pub fn per_int_assignment(&self, f: &Function) -> Vec<CommonConfig> {
        let sampled: Vec<(&String, Vec<i64>)> = f
            .params
            .iter()
            .filter_map(|p| {
                let Type::Scalar(ScalarTy::Int(width)) = p.ty else {
                    return None;
                };
                let range = self
                    .ranges
                    .get(&p.name)
                    .filter(|_| !self.ints.contains_key(&p.name))?;
                Some((&p.name, int_range_values(*range, width, p.unsigned)))
            })
            .collect();
        let count = sampled.iter().map(|(_, v)| v.len()).max().unwrap_or(1);
        (0..count)
            .map(|k| {
                let mut one = self.clone();
                for (name, values) in &sampled {
                    one.ranges.remove(*name);
                    one.ints.insert((*name).clone(), values[k % values.len()]);
                }
                one
            })
            .collect()
    }

    /// Whether [`CommonConfig::per_int_assignment`] gives every integer of every
    /// sampled `--range` (each holds at most as many as are sampled), so that what holds
    /// for each assignment holds for the ranges.
    pub fn int_ranges_exhausted(&self, f: &Function) -> bool {
        f.params.iter().all(|p| {
            let Type::Scalar(ScalarTy::Int(width)) = p.ty else {
                return true;
            };
            match self.ranges.get(&p.name) {
                Some(&range) if !self.ints.contains_key(&p.name) => {
                    int_range_len(range, width, p.unsigned)
                        == int_range_values(range, width, p.unsigned).len() as u128
                }
                _ => true,
            }
        })
    }

    /// The integer parameters this configuration fixes, as `name=value` in parameter
    /// order (for a report of which assignment an answer holds for).
    pub fn int_values(&self, f: &Function) -> String {
        f.params
            .iter()
            .filter_map(|p| Some(format!("{}={}", p.name, self.ints.get(&p.name)?)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A budget of `seconds` given with `flag` is a finite number >= 0.
pub fn check_seconds(flag: &str, seconds: f64) -> Result<(), InputError> {
    if seconds.is_finite() && seconds >= 0.0 {
        Ok(())
    } else {
        Err(InputError(format!(
            "{flag} must be a number of seconds >= 0, not {seconds}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_settings_are_named_by_their_flag() {
        let message = |edit: fn(&mut CommonConfig)| {
            let mut cfg = CommonConfig::new("f", DIFF);
            edit(&mut cfg);
            cfg.validate().err().map(|e| e.0)
        };
        assert_eq!(message(|_| {}), None);
        assert_eq!(
            message(|c| c.time_budget_s = -1.0).as_deref(),
            Some("--time-budget must be a number of seconds >= 0, not -1")
        );
        assert_eq!(
            message(|c| c.time_budget_s = f64::NAN).as_deref(),
            Some("--time-budget must be a number of seconds >= 0, not NaN")
        );
        assert_eq!(
            message(|c| c.hang_limit_ms = 0).as_deref(),
            Some("--hang-limit-ms must be at least 1")
        );
        assert_eq!(
            message(|c| {
                c.ranges.insert("x".into(), (2.0, 1.0));
            })
            .as_deref(),
            Some("--range expects NAME=LO:HI with finite LO <= HI, got 'x=2:1'")
        );
    }

    #[test]
    fn every_mode_starts_from_the_one_hang_limit_and_seed() {
        for mode in [EXCEPTIONS, DIFF, REACH, ERROR] {
            let cfg = CommonConfig::new("f", mode);
            assert_eq!(cfg.hang_limit_ms, 200);
            assert_eq!(cfg.seed, 1);
            assert_eq!(cfg.time_budget_s, mode.time_budget_s);
        }
        assert_eq!(EXCEPTIONS.time_budget_s, 30.0);
    }

    #[test]
    fn each_sampled_integer_assignment_is_fixed_as_int_would() {
        use fpscout_ir::{FloatTy, Param};
        let param = |name: &str, ty| Param {
            name: name.into(),
            ty,
            pointee: None,
            min_elements: 0,
            unsigned: false,
        };
        let f = Function {
            name: "g".into(),
            display_name: "g".into(),
            params: vec![
                param("x", Type::Scalar(ScalarTy::Float(FloatTy::F64))),
                param("n", Type::Scalar(ScalarTy::Int(32))),
            ],
            ret: Type::Scalar(ScalarTy::Float(FloatTy::F64)),
            blocks: Vec::new(),
            num_values: 2,
            external: true,
            loc: None,
            unsupported: None,
        };
        let mut cfg = CommonConfig::new("g", REACH);
        cfg.ranges.insert("x".into(), (1.0, 2.0));
        assert_eq!(cfg.per_int_assignment(&f).len(), 1);
        cfg.ranges.insert("n".into(), (1.0, 3.0));
        let each: Vec<String> = cfg
            .per_int_assignment(&f)
            .iter()
            .map(|c| {
                assert_eq!(c.ranges.get("x"), Some(&(1.0, 2.0)));
                assert!(!c.ranges.contains_key("n"));
                c.int_values(&f)
            })
            .collect();
        assert_eq!(each, ["n=1", "n=2", "n=3"]);
        assert!(cfg.int_ranges_exhausted(&f));
        cfg.ranges.insert("n".into(), (1.0, 30.0));
        assert!(!cfg.int_ranges_exhausted(&f));
        // --int wins over --range.
        cfg.ints.insert("n".into(), 7);
        assert_eq!(cfg.per_int_assignment(&f).len(), 1);
        assert!(cfg.int_ranges_exhausted(&f));
    }
}
