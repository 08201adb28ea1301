//! Benchmark: concrete evaluations per second next to native calls per second, for
//! every function of the corpus, both builds. Run via `scripts/bench-throughput.sh`.
//!
//! Two engine columns, both with exact flags (inexact included): `interp` interprets
//! every evaluation; `engine` is what fpscout runs, the interpreter plus the function's
//! native kernel where it has one (`kernel` is the share of evaluations the kernel
//! answered; `-` for functions without one).
//!
//! `traced call/s` calls the native function set up as a traced run does (invalid,
//! divide-by-zero, overflow and underflow unmasked around each call); `trace` is the cost
//! of tracing on these inputs, which raise nothing: native rate ÷ traced rate.
//!
//! Each rate is the best of three rounds that measure all three in turn: on a shared
//! machine noise only ever slows a measurement down, and interleaving keeps a slow
//! spell from landing on one column only.

use fpscout_ir::{FloatTy, Function, ScalarTy, Type};
use fpscout_native::{NativeOutcome, RunOptions};
use fpscout_search::concrete::concrete_runner;
use fpscout_search::run::to_native;
use fpscout_search::session::{FtzDazChoice, Session};
use fpscout_toolchain::{BuildFlags, BuildKind};
use fpscout_walk::concrete::{ArgBits, ConcreteRunner};
use fpscout_walk::WalkConfig;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use std::time::Instant;

const ARRAY_LEN: usize = 16;

/// Inputs typical of the function's domain: moderate finite values, arrays of 16, and
/// integer parameters equal to the array length (the usual `(double *x, int n)` shape).
fn inputs(f: &Function, count: usize, seed: u64) -> Vec<Vec<ArgBits>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let has_array = f.params.iter().any(|p| p.ty == Type::PTR);
    let float = |ft: FloatTy, rng: &mut rand_chacha::ChaCha8Rng| -> u64 {
        let v: f64 = rng.gen_range(0.1..10.0) * if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
        match ft {
            FloatTy::F64 => v.to_bits(),
            FloatTy::F32 => u64::from((v as f32).to_bits()),
        }
    };
    (0..count)
        .map(|_| {
            f.params
                .iter()
                .map(|p| match (p.ty, p.pointee) {
                    (Type::Scalar(ScalarTy::Float(ft)), _) => ArgBits::Scalar(float(ft, &mut rng)),
                    (Type::Scalar(ScalarTy::Int(_)), _) if has_array => {
                        ArgBits::Scalar(ARRAY_LEN as u64)
                    }
                    (Type::Scalar(ScalarTy::Int(_)), _) => ArgBits::Scalar(rng.gen_range(1..10)),
                    (_, Some(ScalarTy::Float(ft))) => {
                        ArgBits::Array((0..ARRAY_LEN).map(|_| float(ft, &mut rng)).collect())
                    }
                    (_, _) => {
                        ArgBits::Array((0..ARRAY_LEN).map(|_| rng.gen_range(0..10)).collect())
                    }
                })
                .collect()
        })
        .collect()
}

fn main() {
    let files: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if files.is_empty() {
        eprintln!(
            "usage: throughput FILE.c...  (function = file stem, else the first external one)"
        );
        std::process::exit(2);
    }
    let seconds = 0.3;
    const ROUNDS: usize = 3;
    println!(
        "{:<16} {:<5} {:>6} {:>14} {:>14} {:>6} {:>14} {:>14} {:>7} {:>8} {:>8}",
        "function",
        "build",
        "insts",
        "native call/s",
        "traced call/s",
        "trace",
        "interp eval/s",
        "engine eval/s",
        "kernel",
        "r-interp",
        "ratio"
    );
    let mut ratios = Vec::new();
    for file in &files {
        let session = match Session::open(file, BuildFlags::default()) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                continue;
            }
        };
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        for build in BuildKind::BOTH {
            let m = session
                .module(build)
                .expect("the session compiled both builds");
            let fid = match m.find_function(&stem) {
                Some(f) => f,
                None => match m
                    .functions
                    .iter()
                    .position(|f| f.external && f.unsupported.is_none())
                {
                    Some(i) => fpscout_ir::FuncId(i as u32),
                    None => continue,
                },
            };
            let f = m.function(fid);
            let inputs = inputs(f, 512, 7);
            let lens: Vec<Option<usize>> = f
                .params
                .iter()
                .map(|p| (p.ty == Type::PTR).then_some(ARRAY_LEN))
                .collect();
            let native = match session.native(build, fid, &lens) {
                Ok(n) => n,
                Err(e) => {
                    eprintln!("{} {build}: {e}", f.display_name);
                    continue;
                }
            };
            let mode = session.fp_mode(build, FtzDazChoice::Auto);
            let mut runner = match ConcreteRunner::new(m, fid, mode, WalkConfig::default()) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("{} {build}: {e}", f.display_name);
                    continue;
                }
            };
            let measure = |runner: &mut ConcreteRunner| -> Option<f64> {
                let start = Instant::now();
                let mut evals = 0u64;
                while start.elapsed().as_secs_f64() < seconds {
                    if runner.eval_batch(&inputs).iter().any(|r| r.is_err()) {
                        return None;
                    }
                    evals += inputs.len() as u64;
                }
                Some(evals as f64 / start.elapsed().as_secs_f64())
            };
            let mut engine = match concrete_runner(m, fid, mode, WalkConfig::default()) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("{} {build}: {e}", f.display_name);
                    continue;
                }
            };
            let native_inputs: Vec<_> = inputs.iter().map(|a| to_native(f, a)).collect();
            // Tracing is measured on the inputs that raise nothing but inexact, where it
            // should cost (almost) nothing; the others pay a signal pair per event.
            let quiet_inputs: Vec<_> = match native.run(&native_inputs, &RunOptions::default()) {
                Ok(outs) => native_inputs
                    .iter()
                    .zip(outs)
                    .filter(|(_, o)| {
                        matches!(o, NativeOutcome::Returned { flags, .. }
                            if flags.without_inexact().is_empty())
                    })
                    .map(|(a, _)| a.clone())
                    .collect(),
                Err(e) => {
                    eprintln!("{} {build}: {e}", f.display_name);
                    continue;
                }
            };
            if quiet_inputs.is_empty() {
                eprintln!("{} {build}: every input raises a flag", f.display_name);
                continue;
            }
            let (mut interp_rate, mut engine_rate, mut native_rate) = (0f64, 0f64, 0f64);
            let mut traced_rate = 0f64;
            let mut failed = None;
            for _ in 0..ROUNDS {
                let Some(rate) = measure(&mut runner) else {
                    failed = Some("interpreter cannot evaluate it".to_string());
                    break;
                };
                interp_rate = interp_rate.max(rate);
                engine_rate = engine_rate.max(measure(&mut engine).unwrap_or(0.0));
                match native.throughput(&native_inputs, &RunOptions::default(), seconds) {
                    Ok(rate) => native_rate = native_rate.max(rate),
                    Err(e) => {
                        failed = Some(e.to_string());
                        break;
                    }
                }
                match native.throughput_traced(&quiet_inputs, &RunOptions::default(), seconds) {
                    Ok(rate) => traced_rate = traced_rate.max(rate),
                    Err(e) => {
                        failed = Some(e.to_string());
                        break;
                    }
                }
            }
            if let Some(why) = failed {
                eprintln!("{} {build}: {why}", f.display_name);
                continue;
            }
            let kernel_share = if engine.has_native_kernel() {
                // The share over one pass of the inputs, counted afresh.
                let before = engine.native_kernel_runs();
                engine.eval_batch(&inputs);
                let answered = engine.native_kernel_runs() - before;
                format!("{:.0}%", 100.0 * answered as f64 / inputs.len() as f64)
            } else {
                "-".to_string()
            };
            let insts: usize = f.blocks.iter().map(|b| b.insts.len() + 1).sum();
            let ratio_interp = native_rate / interp_rate;
            let ratio = native_rate / engine_rate;
            let trace_cost = native_rate / traced_rate;
            ratios.push((ratio_interp, ratio, trace_cost));
            println!(
                "{:<16} {:<5} {:>6} {:>14.0} {:>14.0} {:>5.2}x {:>14.0} {:>14.0} {:>7} {:>7.1}x {:>7.1}x",
                f.display_name,
                build.label(),
                insts,
                native_rate,
                traced_rate,
                trace_cost,
                interp_rate,
                engine_rate,
                kernel_share,
                ratio_interp,
                ratio
            );
        }
    }
    if !ratios.is_empty() {
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        println!(
            "median slowdown vs native over {} rows, exact flags: {:.1}x interpreted, {:.1}x engine",
            ratios.len(),
            median(ratios.iter().map(|r| r.0).collect()),
            median(ratios.iter().map(|r| r.1).collect())
        );
        println!(
            "cost of native tracing on inputs raising nothing: median {:.2}x, worst {:.2}x",
            median(ratios.iter().map(|r| r.2).collect()),
            ratios.iter().map(|r| r.2).fold(0.0, f64::max)
        );
    }
}
