//! The searched-input options every mode shares (`--range`, `--int`, `--array-len`) and their parsing.

use fpscout_report::InputError;
use std::collections::HashMap;

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
    /// further; in an SV-COMP harness, one element per call site)
    #[arg(long = "array-len", value_name = "NAME=N")]
    pub(crate) array_lens: Vec<String>,
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
