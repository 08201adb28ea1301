//! The options every mode shares (searched inputs, time budget, seed, FTZ/DAZ, hang limit, random-only, P' flags) and their parsing into one checked configuration.

use fpscout_report::InputError;
use fpscout_search::config::{self, CommonConfig, ModeDefaults};
use fpscout_search::session::FtzDazChoice;
use fpscout_search::sources::{FpCoreFunction, FpCoreInputs};
use fpscout_toolchain::{BuildFlags, BuildKind};
use std::collections::HashMap;
use std::time::Instant;

/// The index of a mode in [`MODE_DEFAULTS`], as [`CommonArgs`]'s parameter (clap reads
/// a struct's defaults when it is built, so the mode is part of the type).
pub(crate) const EXCEPTIONS: usize = 0;
pub(crate) const DIFF: usize = 1;
pub(crate) const REACH: usize = 2;
pub(crate) const ERROR: usize = 3;
const MODE_DEFAULTS: [ModeDefaults; 4] = [
    config::EXCEPTIONS,
    config::DIFF,
    config::REACH,
    config::ERROR,
];

/// The options every mode shares, with the same meaning in each; `MODE` picks the row
/// of `fpscout_search::config`'s defaults that `--help` shows.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct CommonArgs<const MODE: usize> {
    #[command(flatten)]
    pub(crate) inputs: InputArgs,
    /// Seconds for each function analysed, compiling included: every phase ends by it
    // Not `default_value_t`: clap keeps its text in a static that the four `MODE`s would
    // share, so every mode would show the first one's default.
    #[arg(long, default_value = MODE_DEFAULTS[MODE].time_budget_s.to_string())]
    pub(crate) time_budget: f64,
    /// Seed of every random choice (the same seed, the same inputs tried)
    #[arg(long, default_value_t = config::SEED)]
    pub(crate) seed: u64,
    /// Flush-to-zero / denormals-are-zero: auto = as each executable really runs (a
    /// -ffast-math P' links crtfastmath.o, which turns both on)
    #[arg(long, value_enum, default_value = "auto")]
    pub(crate) ftz_daz: FtzDazChoice,
    /// Milliseconds an executable may run on one input before it is killed and the input
    /// counts as not terminating
    #[arg(long, default_value_t = config::HANG_LIMIT_MS)]
    pub(crate) hang_limit_ms: u64,
    /// Random inputs only, for the whole time budget, no solver (the benchmarks'
    /// baseline)
    #[arg(long)]
    pub(crate) random_only: bool,
    /// Compiler flags of P' (default: "-O3 -ffast-math"); also spelled --p-prime-flags
    #[arg(long, alias = "p-prime-flags", allow_hyphen_values = true)]
    pub(crate) opt_flags: Option<String>,
    /// Compiler flags of P (default: "-O0 -ffp-contract=off" without optnone, then
    /// mem2reg): with --p-prime-flags, any two builds a project ships, e.g. "-O2" against
    /// "-O2 -march=native -ffp-contract=fast"
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) p_flags: Option<String>,
    /// A function of the program, taking no arguments, called before the inputs are
    /// run, in the interpreter and in both executables (a library's set-up:
    /// `gsl_set_error_handler_off`, so that GSL's error handler does not abort the
    /// program on the inputs a maintainer most wants to see)
    #[arg(long, value_name = "NAME")]
    pub(crate) setup_call: Option<String>,
    /// The functions translated from FPCore files, by C name: their `:pre` ranges apply
    /// under the user's `--range`s in every mode.
    #[arg(skip)]
    pub(crate) fpcore: HashMap<String, FpCoreFunction>,
}

impl<const MODE: usize> CommonArgs<MODE> {
    /// The configuration of `function` on `build`, checked (the same messages in every
    /// mode).
    pub(crate) fn config(
        &self,
        function: &str,
        build: BuildKind,
        started: Instant,
    ) -> Result<CommonConfig, InputError> {
        let inputs = self.inputs.parse()?;
        let mut cfg = CommonConfig::new(function, MODE_DEFAULTS[MODE]);
        cfg.build = build;
        cfg.ranges = inputs.ranges;
        if let Some(f) = self.fpcore.get(function) {
            f.ranges_under(&mut cfg.ranges);
        }
        cfg.ints = inputs.ints;
        cfg.array_lens = inputs.array_lens;
        cfg.growable_arrays = self.inputs.growable_arrays.clone();
        cfg.time_budget_s = self.time_budget;
        cfg.seed = self.seed;
        cfg.ftz_daz = self.ftz_daz;
        cfg.hang_limit_ms = self.hang_limit_ms;
        cfg.random_only = self.random_only;
        cfg.started = Some(started);
        cfg.validate()?;
        Ok(cfg)
    }

    /// Takes note of the functions translated from FPCore files (their `:pre` ranges).
    pub(crate) fn know_fpcore(&mut self, translated: &FpCoreInputs) {
        self.fpcore = translated
            .functions
            .iter()
            .map(|f| (f.c_name.clone(), f.clone()))
            .collect();
    }

    /// The flags of both builds (`--p-flags` for P, `--opt-flags` for P').
    pub(crate) fn build_flags(&self) -> BuildFlags {
        let mut flags = match &self.opt_flags {
            Some(f) => BuildFlags::with_p_prime(f),
            None => BuildFlags::default(),
        };
        if let Some(p) = &self.p_flags {
            flags = flags.with_p(p);
        }
        flags.setup_call = self.setup_call.clone();
        flags
    }
}

/// How a function's parameters are searched, as the command line gives it.
#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct InputArgs {
    /// Restrict a float parameter (every element of an array): NAME=LO:HI
    #[arg(long = "range", value_name = "NAME=LO:HI", allow_hyphen_values = true)]
    pub(crate) ranges: Vec<String>,
    /// Value of an integer parameter: NAME=VALUE (default 0)
    #[arg(long = "int", value_name = "NAME=VALUE", allow_hyphen_values = true)]
    pub(crate) ints: Vec<String>,
    /// Length of an array parameter: NAME=N (default 8, or more where the body indexes
    /// further; in an SV-COMP harness, one element per call site, which reach grows
    /// while its walks read past the end)
    #[arg(long = "array-len", value_name = "NAME=N")]
    pub(crate) array_lens: Vec<String>,
    /// The SV-COMP harness arrays sized here by default (not by `--array-len`).
    #[arg(skip)]
    pub(crate) growable_arrays: Vec<String>,
}

/// [`InputArgs`] checked and parsed.
pub(crate) struct ParsedInputs {
    pub(crate) ranges: HashMap<String, (f64, f64)>,
    pub(crate) ints: HashMap<String, i64>,
    pub(crate) array_lens: HashMap<String, usize>,
}

impl InputArgs {
    pub(crate) fn parse(&self) -> Result<ParsedInputs, InputError> {
        Ok(ParsedInputs {
            ranges: parse_ranges(&self.ranges)?,
            ints: parse_pairs(&self.ints, "int")?,
            array_lens: parse_pairs(&self.array_lens, "array-len")?,
        })
    }

    /// For an SV-COMP-style program: `main` (or no function) means its harness, whose
    /// arrays get one element per call site unless `--array-len` sizes them; the user is
    /// told.
    pub(crate) fn harness_defaults(
        &mut self,
        inputs: &fpscout_search::sources::FpCoreInputs,
        function: &mut Option<String>,
    ) {
        let Some(harness) = &inputs.harness else {
            return;
        };
        if let Some(entry) = inputs.harness_entry(function.as_deref()) {
            *function = Some(entry);
        }
        eprintln!("fpscout: note: {}", harness.note());
        let lens = harness.default_array_lens(&self.array_lens);
        self.growable_arrays = lens
            .iter()
            .filter_map(|len| len.split_once('=').map(|(name, _)| name.to_string()))
            .filter(|name| name != "results")
            .collect();
        self.array_lens.extend(lens);
    }
}

fn parse_pairs<T: std::str::FromStr>(
    items: &[String],
    what: &str,
) -> Result<HashMap<String, T>, InputError> {
    let mut out = HashMap::new();
    for it in items {
        let (name, value) = it
            .split_once('=')
            .ok_or_else(|| InputError(format!("--{what} expects NAME=VALUE, got '{it}'")))?;
        let v = value
            .trim()
            .parse::<T>()
            .map_err(|_| InputError(format!("--{what} {it}: '{value}' is not a valid value")))?;
        out.insert(name.trim().to_string(), v);
    }
    Ok(out)
}

fn parse_ranges(items: &[String]) -> Result<HashMap<String, (f64, f64)>, InputError> {
    let mut out = HashMap::new();
    for it in items {
        let bad = || {
            InputError(format!(
                "--range expects NAME=LO:HI with finite LO <= HI, got '{it}'"
            ))
        };
        let (name, r) = it.split_once('=').ok_or_else(bad)?;
        let (lo, hi) = r.split_once(':').ok_or_else(bad)?;
        let parse = |s: &str| {
            fpscout_report::args::parse_float(s, fpscout_ir::FloatTy::F64).map(f64::from_bits)
        };
        let (lo, hi) = (parse(lo).map_err(|_| bad())?, parse(hi).map_err(|_| bad())?);
        if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
            return Err(bad());
        }
        out.insert(name.trim().to_string(), (lo, hi));
    }
    Ok(out)
}
