//! What following the machine code costs at load: times P and P' of each file given, P' with `BackendModel::MatchMachine` and `IrOnly` (best of `FPSCOUT_REPEAT` runs, default 3).

use fpscout_llvm::{load_build_sources, BackendModel};
use fpscout_toolchain::{BuildFlags, BuildKind, SourceSet, Toolchain};
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: backend_cost FILE.c...");
        return ExitCode::from(2);
    }
    let repeat: usize = std::env::var("FPSCOUT_REPEAT")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3)
        .max(1);
    let tc = match Toolchain::discover() {
        Ok(tc) => tc,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let flags = BuildFlags::default();
    println!("file\tP ms\tP' matched ms\tP' IR-only ms\trewrites\tsaved %");
    let (mut total_matched, mut total_ir_only) = (Duration::ZERO, Duration::ZERO);
    for file in &files {
        let sources = SourceSet::single(file);
        let time = |build, backend| -> Result<(Duration, usize), String> {
            let mut best = Duration::MAX;
            let mut rewrites = 0;
            for _ in 0..repeat {
                let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
                let started = Instant::now();
                let m = load_build_sources(&tc, &sources, build, &flags, dir.path(), backend)
                    .map_err(|e| e.to_string())?;
                best = best.min(started.elapsed());
                rewrites = m.backend_rewrites.len();
            }
            Ok((best, rewrites))
        };
        let measured = (|| {
            let (p, _) = time(BuildKind::P, BackendModel::MatchMachine)?;
            let (matched, rewrites) = time(BuildKind::PPrime, BackendModel::MatchMachine)?;
            let (ir_only, _) = time(BuildKind::PPrime, BackendModel::IrOnly)?;
            Ok::<_, String>((p, matched, ir_only, rewrites))
        })();
        match measured {
            Ok((p, matched, ir_only, rewrites)) => {
                total_matched += p + matched;
                total_ir_only += p + ir_only;
                let saved =
                    100.0 * (1.0 - (p + ir_only).as_secs_f64() / (p + matched).as_secs_f64());
                println!(
                    "{file}\t{:.1}\t{:.1}\t{:.1}\t{rewrites}\t{saved:.0}",
                    p.as_secs_f64() * 1e3,
                    matched.as_secs_f64() * 1e3,
                    ir_only.as_secs_f64() * 1e3
                );
            }
            Err(e) => println!("{file}\terror: {e}"),
        }
    }
    println!(
        "both builds, all files: {:.0} ms matched, {:.0} ms IR-only",
        total_matched.as_secs_f64() * 1e3,
        total_ir_only.as_secs_f64() * 1e3
    );
    ExitCode::SUCCESS
}
