//! Benchmark of how `fpscout diff` scales with the size of a function (issue I): generated
//! straight-line and loop functions of 100 to 10,000 statements, each analysed by the
//! release binary with its default budgets, one process per function. Prints per size the
//! time of each phase, the peak memory and the findings. Run via `scripts/bench-scale.sh`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A straight-line function of `n` statements over three inputs, or the same statements
/// as the body of a loop over an array (four iterations).
fn program(n: usize, looped: bool) -> String {
    // A fixed linear congruential sequence: the same program every run.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |m: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        ((state >> 33) as usize) % m
    };
    let mut c = String::new();
    if looped {
        c.push_str("double f(double *a, int n) {\n  double acc = 0.0;\n  for (int i = 0; i < n; i++) {\n    double v0 = a[i], v1 = acc, v2 = 0.5;\n");
    } else {
        c.push_str("double f(double x, double y, double z) {\n  double v0 = x, v1 = y, v2 = z;\n");
    }
    let indent = if looped { "    " } else { "  " };
    for i in 3..n + 3 {
        let (a, b) = (next(i), next(i));
        let op = ["+", "-", "*", "/"][next(4)];
        let _ = writeln!(c, "{indent}double v{i} = v{a} {op} v{b};");
    }
    if looped {
        let _ = writeln!(c, "    acc = v{};\n  }}\n  return acc;\n}}", n + 2);
    } else {
        let _ = writeln!(c, "  return v{};\n}}", n + 2);
    }
    c
}

fn peak_children_rss_mib() -> f64 {
    // SAFETY: getrusage fills the struct we pass.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    u.ru_maxrss as f64 / 1024.0
}

fn fpscout_binary() -> PathBuf {
    // target/release/examples/bench_scale → target/release/fpscout
    let me = std::env::current_exe().unwrap_or_default();
    me.parent()
        .and_then(Path::parent)
        .map(|d| d.join("fpscout"))
        .unwrap_or_else(|| PathBuf::from("fpscout"))
}

/// `bench_scale --child FPSCOUT ARGS...`: runs one analysis and prints its stdout, then
/// `RSS <MiB>`, the peak of that process alone (a fresh parent per analysis).
fn child(args: &[String]) -> ! {
    let out = Command::new(&args[0]).args(&args[1..]).output();
    match out {
        Ok(o) => {
            print!("{}", String::from_utf8_lossy(&o.stdout));
            eprint!("{}", String::from_utf8_lossy(&o.stderr));
            println!("RSS {}", peak_children_rss_mib());
            std::process::exit(0)
        }
        Err(e) => {
            eprintln!("{}: {e}", args[0]);
            std::process::exit(2)
        }
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("--child") {
        child(&argv[2..]);
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let bin = fpscout_binary();
    println!(
        "{:<8} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>5} {:>8}",
        "shape",
        "stmts",
        "compile",
        "collect",
        "solve",
        "search",
        "random",
        "confirm",
        "wall s",
        "constr",
        "diff",
        "sigs",
        "RSS MiB"
    );
    for n in [100, 1000, 3000, 10000] {
        for looped in [false, true] {
            let src = dir
                .path()
                .join(format!("f{n}{}.c", if looped { "l" } else { "" }));
            if std::fs::write(&src, program(n, looped)).is_err() {
                eprintln!("cannot write {}", src.display());
                continue;
            }
            let mut cmd = Command::new(std::env::current_exe().unwrap_or_default());
            cmd.arg("--child").arg(&bin);
            cmd.arg("diff").arg(&src).args(["-f", "f", "--json"]);
            if looped {
                cmd.args(["--array-len", "a=4", "--int", "n=4"]);
            }
            let out = match cmd.output() {
                Ok(o) => o,
                Err(e) => {
                    eprintln!("{}: {e}", bin.display());
                    return;
                }
            };
            let stdout = String::from_utf8_lossy(&out.stdout);
            let summary = stdout
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .find(|v| v["type"] == "summary");
            let Some(s) = summary else {
                eprintln!(
                    "{n} {}: no summary: {}",
                    if looped { "loop" } else { "straight" },
                    String::from_utf8_lossy(&out.stderr)
                );
                continue;
            };
            let rss: f64 = stdout
                .lines()
                .find_map(|l| l.strip_prefix("RSS ").and_then(|v| v.trim().parse().ok()))
                .unwrap_or(0.0);
            let d = &s["data"];
            let ph = |k: &str| d["phases"][k].as_f64().unwrap_or(0.0);
            println!(
                "{:<8} {:>6} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8} {:>6} {:>5} {:>8.0}",
                if looped { "loop" } else { "straight" },
                n,
                ph("compile"),
                ph("collect"),
                ph("solve"),
                ph("search"),
                ph("random"),
                ph("confirm"),
                d["wall_seconds"].as_f64().unwrap_or(0.0),
                d["unique_constraints"].as_u64().unwrap_or(0),
                d["diff_confirmed"].as_u64().unwrap_or(0),
                d["signatures"].as_u64().unwrap_or(0),
                rss
            );
        }
    }
    println!(
        "default budgets (--time-budget 60); wall s is the run's own (compiling P and P' before it\n\
         not included); RSS is the peak of that fpscout process (its solver workers not included)."
    );
}
