//! The `fpscout error` command: its arguments, the run, and the report as text or JSON.

use crate::cli_inputs::{CommonArgs, ERROR};
use crate::outputs::FindingOutputs;
use crate::{BuildChoice, Linking, SourceCache};
use fpscout_report::args::{inputs_json, inputs_text, run_args};
use fpscout_report::finding::Mode;
use fpscout_report::InputError;
use fpscout_search::error::{run_error, ErrorConfig, ErrorProgress, ErrorReport};
use fpscout_search::session::Session;
use fpscout_search::sources::CompileArgs;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct ErrorArgs {
    /// C/C++ sources (.c, .cc, .cpp) or LLVM IR (.ll, .bc), linked into one program; a
    /// harness written with fpscout.h is analysed as its harness function
    #[arg(required = true, value_name = "FILE")]
    source_files: Vec<PathBuf>,
    /// Function whose result is checked: its float return value, or (void functions)
    /// every element of its float array parameters
    #[arg(long, short = 'f')]
    function: Option<String>,
    /// Build to measure
    #[arg(long, value_enum, default_value = "p")]
    build: BuildChoice,
    #[command(flatten)]
    common: CommonArgs<ERROR>,
    /// Bits of precision of the MPFR shadow values
    #[arg(long, default_value_t = fpscout_walk::shadow::DEFAULT_PRECISION)]
    precision: u32,
    /// FPGen's precision-loss target: |exp(a) - exp(b)| above this many bits
    #[arg(long, default_value_t = 32)]
    precision_loss_threshold: i32,
    /// FPGen's cancellation target: max(exp(a), exp(b)) - exp(a±b) above this many bits
    #[arg(long, default_value_t = 40)]
    cancellation_threshold: i32,
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    linking: Linking,
    #[command(flatten)]
    outputs: FindingOutputs,
    /// JSON Lines: one {"type":"error"} record with the summary
    #[arg(long)]
    json: bool,
}

impl ErrorArgs {
    fn config(&self, function: &str, started: Instant) -> Result<ErrorConfig, InputError> {
        let common = self.common.config(function, self.build.kind(), started)?;
        if !(2..=1_000_000).contains(&self.precision) {
            return Err(InputError(format!(
                "--precision must be between 2 and 1000000 bits, not {}",
                self.precision
            )));
        }
        let mut cfg = ErrorConfig::new(function);
        cfg.common = common;
        cfg.precision = self.precision;
        cfg.precision_loss_threshold = self.precision_loss_threshold;
        cfg.cancellation_threshold = self.cancellation_threshold;
        Ok(cfg)
    }
}

pub fn run(mut args: ErrorArgs, started: Instant) -> Result<ExitCode, InputError> {
    let mut flags = args.common.build_flags();
    // Checked before compiling: a typo should not cost a build.
    args.config("", started)?;
    args.outputs.prepare()?;
    let (sources, fpcore) = args
        .compile
        .apply_translating(&args.source_files, &mut flags)?;
    args.common
        .inputs
        .harness_defaults(&fpcore, &mut args.function);
    if let Some(harness) = &fpcore.harness {
        let ranges = harness.default_ranges(&args.common.inputs.ranges);
        args.common.inputs.ranges.extend(ranges);
        // The results array is written by the harness, not an input: searching its
        // initial contents would only waste evaluations.
        if harness.inputs.results
            && !args
                .common
                .inputs
                .ranges
                .iter()
                .any(|r| r.starts_with("results="))
        {
            args.common.inputs.ranges.push("results=0:0".into());
        }
    }
    let function = match &args.function {
        Some(name) => match fpcore.resolve(name)? {
            Some(f) => f.c_name.clone(),
            None => name.clone(),
        },
        None => {
            return Err(InputError(
                "give the function whose result is checked with --function".into(),
            ))
        }
    };
    let cfg = args.config(&function, started)?;
    let session = Session::open_focused(
        &sources,
        flags,
        &args.linking.inputs(),
        &[cfg.common.build],
        Some(&function),
    )?;
    let mut pace = crate::outputs::ProgressPace::new(started);
    let json = args.json;
    let mut progress = |p: &ErrorProgress| {
        if !pace.due() {
            return;
        }
        if json {
            let record = json!({"type": "progress", "data": {
                "evaluations": p.evaluations, "best_rel_error": p.best_rel_error,
                "best_bits": p.best_bits, "elapsed_s": started.elapsed().as_secs_f64(),
            }});
            eprintln!("{record}");
        } else {
            eprintln!(
                "fpscout: error: {} evaluations, best relative error {:.3e} ({:.1} bits), {:.0} s",
                p.evaluations,
                p.best_rel_error,
                p.best_bits,
                started.elapsed().as_secs_f64()
            );
        }
    };
    let report = run_error(&session, &cfg, &mut progress)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        print_json(&mut out, &report);
    } else {
        print_text(&mut out, &report, &cfg);
    }
    drop(out);
    let mut sink = args.outputs.start(
        Mode::Error,
        std::slice::from_ref(&cfg.common.function),
        None,
    )?;
    sink.found(&fpscout_search::findings::from_error(&report))?;
    sink.covered(&cfg.common.function, None)?;
    // The worst error is a measurement, not a failure: exit 1 only for a finding new
    // against a --baseline.
    sink.finish(
        || session.repro_builds(&sources, args.common.ftz_daz, &fpcore.temporary_dirs()),
        args.json,
        false,
    )
}

fn print_text(out: &mut impl Write, report: &ErrorReport, cfg: &ErrorConfig) {
    let _ = writeln!(
        out,
        "{} (build {}): {} evaluations in {:.2} s ({}), shadow precision {} bits",
        report.function,
        report.build,
        report.evaluations,
        report.wall_s,
        report.method,
        report.precision
    );
    let Some((input, m)) = &report.worst else {
        let _ = writeln!(
            out,
            "  no input could be measured ({} runs; the first: {})",
            report.unmeasured,
            report.first_failure.as_deref().unwrap_or("?")
        );
        return;
    };
    let _ = writeln!(
        out,
        "  max relative error: {:.6e} ({:.3e} ulps, {:.1} bits) at {}",
        m.rel_error, m.ulps, m.bits, m.place
    );
    let _ = writeln!(
        out,
        "  computed {} ({}), exact {:e}",
        fpscout_report::args::decimal(m.float_bits, m.ty),
        fpscout_report::args::hex_float(m.float_bits, m.ty),
        m.exact
    );
    let _ = writeln!(
        out,
        "  worst input ({}): {}",
        report.found_by,
        inputs_text(&report.params, input)
    );
    let _ = writeln!(
        out,
        "  replay: fpscout run FILE -f {} --args '{}'",
        report.function,
        run_args(&report.params, input)
    );
    if let Some(n) = &report.native {
        let _ = writeln!(
            out,
            "  executable: {}{}",
            n.detail,
            if n.confirmed {
                " (confirmed)"
            } else {
                " (NOT confirmed)"
            }
        );
    }
    let mut sources = SourceCache::default();
    if report.diagnosis.is_empty() {
        let _ = writeln!(
            out,
            "  diagnosis: no add/sub met a target (cancellation > {} bits, precision loss > {} bits)",
            cfg.cancellation_threshold, cfg.precision_loss_threshold
        );
    } else {
        let _ = writeln!(
            out,
            "  diagnosis (each operation computed exactly in turn; the error left, least first):"
        );
    }
    for (k, d) in report.diagnosis.iter().enumerate() {
        let loc = d.location.as_ref().map(|l| l.to_string());
        let _ = writeln!(
            out,
            "    {}. {} at {}: {} ({}x); error left {:.3e}{}",
            k + 1,
            d.opcode,
            loc.as_deref().unwrap_or("?"),
            d.kinds(cfg),
            d.occurrences,
            d.error_left,
            sources.suffix(loc.as_deref())
        );
    }
    for loc in &report.divergences {
        let loc = loc.as_ref().map(|l| l.to_string());
        let _ = writeln!(
            out,
            "  the exact computation would branch otherwise at {}{}",
            loc.as_deref().unwrap_or("?"),
            sources.suffix(loc.as_deref())
        );
    }
}

/// A number as JSON, infinities and NaN as the strings "inf", "-inf", "nan" (JSON has no
/// such numbers, and null would read as "not measured").
fn number(x: f64) -> serde_json::Value {
    match x {
        x if x.is_finite() => json!(x),
        x if x.is_nan() => json!("nan"),
        x if x > 0.0 => json!("inf"),
        _ => json!("-inf"),
    }
}

fn print_json(out: &mut impl Write, report: &ErrorReport) {
    let worst = report.worst.as_ref();
    let diagnosis: Vec<serde_json::Value> = report
        .diagnosis
        .iter()
        .map(|d| {
            json!({
                "opcode": d.opcode,
                "location": d.location.as_ref().map(|l| l.to_string()),
                "cancellation_bits": d.cancellation,
                "precision_loss_bits": d.precision_loss,
                "occurrences": d.occurrences,
                "error_left": number(d.error_left),
            })
        })
        .collect();
    let record = json!({"type": "error", "data": {
        "function": report.function,
        "build": report.build.to_string(),
        "max_rel_error": worst.map(|(_, m)| number(m.rel_error)),
        "ulps": worst.map(|(_, m)| number(m.ulps)),
        "bits": worst.map(|(_, m)| number(m.bits)),
        "output": worst.map(|(_, m)| m.place.to_string()),
        "computed": worst.map(|(_, m)| fpscout_report::args::hex_float(m.float_bits, m.ty)),
        "computed_bits": worst.map(|(_, m)| format!("{:#x}", m.float_bits)),
        "exact": worst.map(|(_, m)| number(m.exact)),
        "inputs": worst.map(|(i, _)| inputs_json(&report.params, i)),
        "run_args": worst.map(|(i, _)| run_args(&report.params, i)),
        "diagnosis": diagnosis,
        "divergences": report.divergences.iter().map(|l| l.as_ref().map(|l| l.to_string())).collect::<Vec<_>>(),
        "native": report.native.as_ref().map(|n| json!({
            "confirmed": n.confirmed,
            "bits": n.bits.map(|b| format!("{b:#x}")),
            "detail": n.detail,
        })),
        "found_by": report.found_by,
        "method": report.method,
        "precision": report.precision,
        "evaluations": report.evaluations,
        "unmeasured": report.unmeasured,
        "first_failure": report.first_failure,
        "wall_seconds": report.wall_s,
    }});
    let _ = writeln!(out, "{record}");
}
