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

/// One analysis in a fresh child process: its JSON summary, peak RSS in MiB and the
/// wall time the parent saw (the whole process: compiling the source included).
fn analyse(bin: &Path, args: &[String]) -> Option<(serde_json::Value, f64, f64, usize)> {
    let mut cmd = Command::new(std::env::current_exe().unwrap_or_default());
    cmd.arg("--child").arg(bin).args(args);
    let t = std::time::Instant::now();
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{}: {e}", bin.display());
            return None;
        }
    };
    let wall = t.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let records: Vec<serde_json::Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .collect();
    let hangs = records
        .iter()
        .filter(|v| v["type"] == "non_terminating")
        .count();
    let summary = records.iter().find(|v| v["type"] == "summary");
    let Some(s) = summary else {
        eprintln!(
            "{args:?}: no summary: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    };
    let rss: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("RSS ").and_then(|v| v.trim().parse().ok()))
        .unwrap_or(0.0);
    Some((s["data"].clone(), rss, wall, hangs))
}

const NEWTON: &str = "#include <math.h>\ndouble newton_sqrt(double a) {\n  double x = a > 1.0 ? a : 1.0;\n  while (fabs(x * x - a) > 1e-12 * a) x = 0.5 * (x + a / x);\n  return x;\n}\n";
const HALVE: &str =
    "double halve(double x) {\n  while (!(x <= 1.0)) x = x / 2.0;\n  return x;\n}\n";
const ERROR_PATH: &str = "#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\nstatic void lib_error(const char *what, double x) {\n  fprintf(stderr, \"error: %s (x = %g)\\n\", what, x);\n  abort();\n}\ndouble ratio(double x, double y) {\n  if (!(x > 0) || !(y > 0)) lib_error(\"domain error\", x);\n  double r = log(x) - log(y);\n  printf(\"ratio %g\\n\", r);\n  return r * 1e300 / (x - y);\n}\n";

/// Every benchmark of the repository and the examples with `--time-budget 30`:
/// the process's wall time next to the budget, and what was found.
fn budget_table(bin: &Path, dir: &Path) {
    const BUDGET: f64 = 30.0;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut cases: Vec<(String, PathBuf, String)> = Vec::new();
    for name in [
        "turbine1",
        "turbine3",
        "jetEngine",
        "carbonGas",
        "odometer10",
        "odometer50",
        "odometer100",
    ] {
        cases.push((
            name.into(),
            root.join(format!("bench/diff/{name}.c")),
            name.into(),
        ));
    }
    for (name, text, function) in [
        ("newton", NEWTON.to_string(), "newton_sqrt"),
        ("halving loop", HALVE.to_string(), "halve"),
        ("printf + abort", ERROR_PATH.to_string(), "ratio"),
        ("straight 3000", program(3000, false), "f"),
    ] {
        let src = dir.join(format!("{}.c", name.replace([' ', '+'], "_")));
        if std::fs::write(&src, text).is_err() {
            eprintln!("cannot write {}", src.display());
            continue;
        }
        cases.push((name.into(), src, function.into()));
    }
    println!(
        "\n{:<15} {:>8} {:>8} {:>7} {:>6} {:>5} {:>6} {:>8}",
        "case", "budget", "wall s", "over %", "diff", "sigs", "hangs", "RSS MiB"
    );
    for (name, src, function) in cases {
        let args: Vec<String> = [
            "diff".to_string(),
            src.display().to_string(),
            "-f".into(),
            function,
            "--time-budget".into(),
            format!("{BUDGET}"),
            "--json".into(),
        ]
        .into();
        let Some((d, rss, wall, hangs)) = analyse(bin, &args) else {
            continue;
        };
        println!(
            "{:<15} {:>8.0} {:>8.2} {:>7.1} {:>6} {:>5} {:>6} {:>8.0}",
            name,
            BUDGET,
            wall,
            (wall / BUDGET - 1.0) * 100.0,
            d["diff_confirmed"].as_u64().unwrap_or(0),
            d["signatures"].as_u64().unwrap_or(0),
            hangs,
            rss
        );
    }
    println!("wall s is the whole process as its parent saw it; hangs: inputs on which neither build ends.");
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("--child") {
        child(&argv[2..]);
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let bin = fpscout_binary();
    if argv.get(1).map(String::as_str) != Some("--budget-only") {
        scale_table(&bin, dir.path());
    }
    budget_table(&bin, dir.path());
}

fn scale_table(bin: &Path, dir: &Path) {
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
            let src = dir.join(format!("f{n}{}.c", if looped { "l" } else { "" }));
            if std::fs::write(&src, program(n, looped)).is_err() {
                eprintln!("cannot write {}", src.display());
                continue;
            }
            let mut args: Vec<String> = vec![
                "diff".into(),
                src.display().to_string(),
                "-f".into(),
                "f".into(),
                "--json".into(),
            ];
            if looped {
                args.extend(["--array-len", "a=4", "--int", "n=4"].map(String::from));
            }
            let Some((d, rss, wall, _)) = analyse(bin, &args) else {
                continue;
            };
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
                wall,
                d["unique_constraints"].as_u64().unwrap_or(0),
                d["diff_confirmed"].as_u64().unwrap_or(0),
                d["signatures"].as_u64().unwrap_or(0),
                rss
            );
        }
    }
    println!(
        "default budgets (--time-budget 60); compile includes compiling P and P' and the\n\
         interpreter's kernels; wall s is the whole process as its parent saw it; RSS is the\n\
         peak of that fpscout process (its solver workers not included)."
    );
}
