//! The compile cache: a second identical run compiles nothing, an edited header is compiled again (and its new behaviour seen), `--no-cache` compiles everything, an unwritable cache warns and compiles, and `--emit-repro`'s build.sh compiles each source once per build.

mod common;

use common::cli::{records, repo, run_env, Output};
use std::ffi::OsStr;
use std::path::Path;

/// A copy of tests/multifile (two files sharing include/scale.h) with its compilation
/// database, in `dir`; the database's path.
fn multifile(dir: &Path) -> String {
    let src = repo("tests/multifile");
    std::fs::create_dir_all(dir.join("include")).unwrap();
    for f in ["a.c", "b.c", "include/scale.h"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let database = serde_json::json!([
        {"directory": dir, "file": "a.c", "arguments": ["cc", "-Iinclude", "-O2", "-c", "a.c"]},
        {"directory": dir, "file": "b.c", "arguments": ["cc", "-I", "include", "-c", "b.c"]}
    ]);
    let db = dir.join("compile_commands.json");
    std::fs::write(&db, database.to_string()).unwrap();
    db.display().to_string()
}

/// `fpscout diff` of `f` in the database `db` with the cache at `cache`, plus `extra`.
fn diff(db: &str, cache: &Path, extra: &[&str]) -> Output {
    let args = [
        &[
            "diff",
            "--compile-commands",
            db,
            "-f",
            "f",
            "--random",
            "2000",
            "--time-budget",
            "10",
            "--json",
        ][..],
        extra,
    ]
    .concat();
    run_env(&args, &[("FPSCOUT_CACHE_DIR", cache.as_os_str())])
}

/// The summary record's (compile steps from the cache, compile steps run, findings).
fn cache_counts(out: &Output) -> (u64, u64, usize) {
    assert!(out.code == 0 || out.code == 1, "{}", out.stderr);
    let recs = records(&out.stdout);
    let summary = recs
        .iter()
        .find(|r| r["type"] == "summary")
        .unwrap_or_else(|| panic!("no summary: {}", out.stdout));
    let data = &summary["data"];
    assert!(data["compile_seconds"].as_f64().is_some(), "{data}");
    let findings = recs.iter().filter(|r| r["type"] == "finding").count();
    (
        data["cache_hits"].as_u64().expect("cache_hits"),
        data["cache_misses"].as_u64().expect("cache_misses"),
        findings,
    )
}

#[test]
fn a_second_identical_run_compiles_nothing() {
    let work = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let db = multifile(work.path());
    let first = diff(&db, cache.path(), &[]);
    let (hits1, misses1, found1) = cache_counts(&first);
    assert!(misses1 > 0, "the first run compiles");
    let second = diff(&db, cache.path(), &[]);
    let (hits2, misses2, found2) = cache_counts(&second);
    assert_eq!(misses2, 0, "nothing compiled again: {}", second.stderr);
    assert_eq!(hits2, hits1 + misses1, "every step served from the cache");
    assert_eq!(found1, found2, "same findings");
    assert_eq!(first.code, second.code);
}

#[test]
fn an_edited_header_is_compiled_again_and_its_behaviour_seen() {
    let work = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let db = multifile(work.path());
    let first = diff(&db, cache.path(), &[]);
    let (_, _, found) = cache_counts(&first);
    // SCALE 1e300 overflows in P (x * SCALE) where P' folds it away: differences.
    assert_eq!(first.code, 1, "{}", first.stderr);
    assert!(found > 0);
    // A factor of 1 never overflows: the header is read by both files, so both are
    // compiled again, and what P' and P do differently is no longer the overflow.
    let header = work.path().join("include/scale.h");
    let text = std::fs::read_to_string(&header).unwrap();
    std::fs::write(&header, text.replace("1e300", "1.0")).unwrap();
    let second = diff(&db, cache.path(), &[]);
    let (_, misses, _) = cache_counts(&second);
    assert!(
        misses >= 4,
        "both files, both builds compiled again: {misses}"
    );
    let overflow = |out: &Output| out.stdout.contains("overflow");
    assert!(overflow(&first), "{}", first.stdout);
    assert!(!overflow(&second), "{}", second.stdout);
}

#[test]
fn no_cache_compiles_everything_and_stores_nothing() {
    let work = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let db = multifile(work.path());
    for _ in 0..2 {
        let out = diff(&db, cache.path(), &["--no-cache"]);
        let (hits, misses, _) = cache_counts(&out);
        assert_eq!(hits, 0);
        assert!(misses > 0);
    }
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
}

#[test]
fn an_unwritable_cache_warns_and_compiles() {
    let work = tempfile::tempdir().unwrap();
    let db = multifile(work.path());
    // A regular file where the cache directory should be.
    let blocker = work.path().join("not-a-directory");
    std::fs::write(&blocker, "").unwrap();
    let out = diff(&db, &blocker.join("cache"), &[]);
    let (hits, misses, found) = cache_counts(&out);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(found > 0);
    assert_eq!(hits, 0);
    assert!(misses > 0);
    assert!(out.stderr.contains("compile cache"), "{}", out.stderr);
}

#[test]
fn build_sh_compiles_each_source_once_per_build_and_its_reproducers_pass() {
    let work = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let db = multifile(work.path());
    // A clang that logs its arguments: fpscout and build.sh both use it.
    let log = work.path().join("clang.log");
    let real = fpscout_toolchain::Toolchain::discover()
        .expect("clang-19")
        .clang;
    let wrapper = work.path().join("clang-logging");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.display()
        ),
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&wrapper)
        .status()
        .unwrap();
    let repro = work.path().join("repro");
    let args = [
        "diff",
        "--compile-commands",
        &db,
        "-f",
        "f",
        "--random",
        "2000",
        "--time-budget",
        "10",
        "--json",
        "--emit-repro",
        repro.to_str().unwrap(),
    ];
    let out = run_env(
        &args,
        &[
            ("FPSCOUT_CACHE_DIR", cache.path().as_os_str()),
            ("FPSCOUT_CLANG", wrapper.as_os_str()),
        ],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let programs = std::fs::read_dir(&repro)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension() == Some(OsStr::new("c")))
        })
        .count();
    assert!(programs >= 2, "several reproducers: {programs}");
    std::fs::write(&log, "").unwrap();
    let built = std::process::Command::new("sh")
        .arg("build.sh")
        .current_dir(&repro)
        .output()
        .unwrap();
    let output = String::from_utf8_lossy(&built.stdout).into_owned()
        + &String::from_utf8_lossy(&built.stderr);
    assert_eq!(built.status.code(), Some(0), "{output}");
    assert_eq!(output.matches("PASS").count(), 2 * programs, "{output}");
    assert!(!output.contains("warning"), "no warnings: {output}");
    let calls = std::fs::read_to_string(&log).unwrap();
    for source in ["a.c", "b.c"] {
        let compiles = calls
            .lines()
            .filter(|l| l.contains(&format!("/{source} -o fpscout-lib/")))
            .count();
        assert_eq!(compiles, 2, "{source} once per build:\n{calls}");
    }
    // Each reproducer: one clang run per build (compile and link).
    assert_eq!(calls.lines().count(), 4 + 2 * programs, "{calls}");
}
