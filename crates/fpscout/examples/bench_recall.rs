//! Benchmark of `diff`'s recall (issue J): for every one-parameter `float` function of
//! `bench/recall/floats.c`, the exhaustive oracle (all 2^32 inputs on both executables)
//! against `diff` with default budgets: signatures that exist, found, missed (with how
//! rare they are), and any reported signature that does not exist. Oracle results are
//! cached in the target directory (they only change with the source). Run via
//! `scripts/bench-recall.sh [FUNCTIONS]`.

use fpscout_ir::FloatTy;
use fpscout_search::diff::{run_diff, DiffConfig};
use fpscout_search::oracle::{enumerate_signatures, recall, CodePair, Oracle};
use fpscout_search::session::{FtzDazChoice, Session};
use fpscout_toolchain::BuildFlags;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn functions(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|l| l.strip_prefix("float "))
        .filter_map(|l| l.split('(').next())
        .map(|n| n.trim().to_string())
        .collect()
}

/// `recall-oracle` in the target directory this example was built in
/// (`<target>/release/examples/bench_recall`).
fn cache_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let target = exe
        .ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("recall-oracle")
}

/// The cache file of one function: keyed by a hash of the source text.
fn cache_file(source: &str, function: &str) -> PathBuf {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in source.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    cache_dir().join(format!("{h:016x}-{function}.txt"))
}

fn load(path: &Path) -> Option<Oracle> {
    let text = std::fs::read_to_string(path).ok()?;
    let codes: Option<Vec<CodePair>> = text
        .lines()
        .map(|l| {
            let mut it = l.split_whitespace().map(|t| t.parse::<u64>().ok());
            Some(CodePair {
                key: u16::try_from(it.next()??).ok()?,
                count: it.next()??,
                first: it.next()??,
            })
        })
        .collect();
    Some(Oracle::from_codes(&codes?, 1 << 32, FloatTy::F32, true))
}

fn save(path: &Path, oracle: &Oracle) {
    let text: String = oracle
        .codes
        .iter()
        .map(|c| format!("{} {} {}\n", c.key, c.count, c.first))
        .collect();
    let _ = std::fs::create_dir_all(cache_dir());
    let _ = std::fs::write(path, text);
}

fn sig_text(s: &fpscout_search::oracle::Signature) -> String {
    format!("({}, {}, {}, {})", s.0, s.1, s.2.name(), s.3.name())
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let file = root.join("bench/recall/floats.c");
    let source = std::fs::read_to_string(&file).expect("bench/recall/floats.c");
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    let session = Session::open(&file, BuildFlags::default()).expect("session");
    println!(
        "{:<16} {:>6} {:>6} {:>7} {:>7} {:>9} {:>9}",
        "function", "exist", "found", "recall", "spurious", "diff s", "oracle s"
    );
    let (mut existing, mut found, mut spurious) = (0, 0, 0);
    let mut misses = Vec::new();
    for function in functions(&source) {
        if !wanted.is_empty() && !wanted.contains(&function) {
            continue;
        }
        let path = cache_file(&source, &function);
        let t = Instant::now();
        let oracle = match load(&path) {
            Some(o) => o,
            None => {
                match enumerate_signatures(&session, &function, FtzDazChoice::Auto, &mut |_, _| {})
                {
                    Ok(o) => {
                        save(&path, &o);
                        o
                    }
                    Err(e) => {
                        eprintln!("{function}: {e}");
                        continue;
                    }
                }
            }
        };
        let oracle_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let report = match run_diff(&session, &DiffConfig::new(&function), &mut |_, _, _| {}) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{function}: {e}");
                continue;
            }
        };
        let diff_s = t.elapsed().as_secs_f64();
        let r = recall(&oracle, &report.flag_or_class_signatures());
        existing += r.existing;
        found += r.found;
        spurious += r.spurious.len();
        println!(
            "{:<16} {:>6} {:>6} {:>6.0}% {:>7} {:>9.2} {:>9.1}",
            function,
            r.existing,
            r.found,
            r.recall * 100.0,
            r.spurious.len(),
            diff_s,
            oracle_s
        );
        for (s, o) in &r.missed {
            misses.push(format!(
                "  {function}: missed {} ({} inputs, e.g. {:#010x} = {:e})",
                sig_text(s),
                o.count,
                o.witness[0],
                f32::from_bits(o.witness[0] as u32)
            ));
        }
        for s in &r.spurious {
            misses.push(format!("  {function}: SPURIOUS {}", sig_text(s)));
        }
    }
    println!(
        "total            {existing:>6} {found:>6} {:>6.1}% {spurious:>7}",
        if existing == 0 {
            100.0
        } else {
            100.0 * found as f64 / existing as f64
        }
    );
    for m in misses {
        println!("{m}");
    }
    println!(
        "exist = (P flags, P' flags, P class, P' class) signatures in which the builds differ,\n\
         over all 2^32 inputs as the executables run (P' with FTZ/DAZ); found = confirmed by diff\n\
         with default budgets; oracle s = enumeration time (0 when cached)."
    );
}
