//! Benchmark of `fpscout diff` (issue B): the seed's table for turbine1, turbine3,
//! jetEngine, carbonGas and the odometer (N = 10, 50, 100), unconstrained and inside the
//! FPBench preconditions, next to a random-only run given the same wall time.
//! Run via `scripts/bench-diff.sh`.

use fpscout_search::diff::{run_diff, DiffConfig, DiffReport};
use fpscout_search::session::Session;
use fpscout_toolchain::BuildFlags;
use std::collections::BTreeSet;
use std::path::Path;

struct Bench {
    file: &'static str,
    function: &'static str,
    ranges: &'static [(&'static str, f64, f64)],
}

const BENCHES: &[Bench] = &[
    Bench {
        file: "turbine1.c",
        function: "turbine1",
        ranges: &[("v", -4.5, -0.3), ("w", 0.4, 0.9), ("r", 3.8, 7.8)],
    },
    Bench {
        file: "turbine3.c",
        function: "turbine3",
        ranges: &[("v", -4.5, -0.3), ("w", 0.4, 0.9), ("r", 3.8, 7.8)],
    },
    Bench {
        file: "jetEngine.c",
        function: "jetEngine",
        ranges: &[("x1", -5.0, 5.0), ("x2", -20.0, 5.0)],
    },
    Bench {
        file: "carbonGas.c",
        function: "carbonGas",
        ranges: &[("v", 0.1, 0.5)],
    },
    Bench {
        file: "odometer10.c",
        function: "odometer10",
        ranges: &[("sl", 0.52, 0.53)],
    },
    Bench {
        file: "odometer50.c",
        function: "odometer50",
        ranges: &[("sl", 0.52, 0.53)],
    },
    Bench {
        file: "odometer100.c",
        function: "odometer100",
        ranges: &[("sl", 0.52, 0.53)],
    },
];

fn signatures(r: &DiffReport) -> BTreeSet<String> {
    r.findings
        .iter()
        .filter(|f| f.confirmed)
        .map(|f| {
            format!(
                "{}|{}|{:?}|{:?}",
                f.p.flags, f.p_prime.flags, f.p.class, f.p_prime.class
            )
        })
        .collect()
}

fn peak_rss_mib() -> f64 {
    // SAFETY: getrusage fills the struct we pass.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    u.ru_maxrss as f64 / 1024.0
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "bench/diff".into());
    let only: Vec<String> = std::env::args().skip(2).collect();
    println!(
        "{:<12} {:<6} {:>14} {:>5} {:>7} {:>7} {:>6} {:>8} {:>6} {:>6} {:>5} {:>7} {:>6} | {:>9} {:>7} {:>5} | {:>6} {:>9} {:>7}",
        "benchmark",
        "inputs",
        "constr (P,P')",
        "sat",
        "unknown",
        "skipped",
        "unique",
        "diff",
        "unconf",
        "model≠",
        "sigs",
        "maxulps",
        "wall s",
        "rnd-diff",
        "rnd-sig",
        "rnd-n",
        "solver",
        "float-sol",
        "RSS MiB"
    );
    for b in BENCHES {
        if !only.is_empty() && !only.iter().any(|o| o == b.function) {
            continue;
        }
        let path = Path::new(&dir).join(b.file);
        let session = match Session::open(&path, BuildFlags::default()) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{}: {e}", b.file);
                continue;
            }
        };
        for ranged in [false, true] {
            let mut cfg = DiffConfig::new(b.function);
            if ranged {
                for (n, lo, hi) in b.ranges {
                    cfg.common.ranges.insert(n.to_string(), (*lo, *hi));
                }
            }
            let full = match run_diff(&session, &cfg, &mut |_, _, _| {}) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("{}: {e}", b.function);
                    continue;
                }
            };
            // Random only, for the same wall time: calibrate from the full run's random phase.
            let s = &full.summary;
            let per_input = (s.phases.random / s.random_inputs.max(1) as f64).max(1e-7);
            let mut rcfg = cfg.clone();
            rcfg.common.random_only = true;
            // The count is calibrated to the full run's wall time; no second limit.
            rcfg.random_budget_s = f64::INFINITY;
            rcfg.random_inputs = ((s.wall_seconds / per_input) as usize).clamp(1000, 4_000_000);
            let rnd = run_diff(&session, &rcfg, &mut |_, _, _| {}).ok();
            let (rsig, rdiff, rn) = match &rnd {
                Some(r) => (
                    signatures(r),
                    r.summary.diff_confirmed,
                    r.summary.random_inputs,
                ),
                None => (BTreeSet::new(), 0, 0),
            };
            let sigs = signatures(&full);
            let solver_only = sigs.difference(&rsig).count();
            println!(
                "{:<12} {:<6} {:>14} {:>5} {:>7} {:>7} {:>6} {:>8} {:>6} {:>6} {:>5} {:>7} {:>6.2} | {:>9} {:>7} {:>5} | {:>6} {:>9} {:>7.0}",
                b.function,
                if ranged { "ranges" } else { "any" },
                format!("{} ({},{})", s.unique_constraints, s.constraints_p, s.constraints_pprime),
                s.satisfiable,
                s.unknown,
                s.not_attempted,
                s.unique_inputs,
                s.diff_confirmed,
                s.diff_unconfirmed,
                s.model_disagreements,
                sigs.len(),
                if s.max_ulps > 99_999_999 { format!("{:.1e}", s.max_ulps as f64) } else { s.max_ulps.to_string() },
                s.wall_seconds,
                rdiff,
                rsig.len(),
                if rn >= 1000 { format!("{}k", rn / 1000) } else { rn.to_string() },
                solver_only,
                format!(
                    "{}/{}/{}",
                    s.float_solver_targets,
                    s.float_solver_candidates,
                    full.findings
                        .iter()
                        .filter(|f| f.confirmed
                            && f.origin.phase == fpscout_search::origin::Phase::FloatSolver)
                        .count()
                ),
                peak_rss_mib()
            );
        }
    }
    println!(
        "columns: constr = distinct exception conditions (P, P'); sat/unknown = plain queries; skipped = plain\n\
         and differential queries left unsolved (the default solve budget, 3 s + 5 ms per query beyond 200,\n\
         ran out, or the differential ones gave up after three rounds without a satisfiable one);\n\
         unique = float candidates; diff = confirmed diff-producing inputs (confirmed on the executables);\n\
         unconf = differences a second native replay did not reproduce; model≠ = confirmed findings the\n\
         interpreter does not reproduce; sigs = distinct (P flags, P' flags, P class, P' class); rnd-* =\n\
         random-only run with the same wall time (rnd-n inputs); solver = signatures the full run found that\n\
         the random-only run did not; float-sol = exceptions no Z3 model raised handed to the float\n\
         solver / its solutions / confirmed findings from them; RSS = peak of the process."
    );
}
