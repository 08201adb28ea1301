//! Interpreter against executable on the inputs the solver proposes: the `diff`
//! candidates of every corpus function, which sit at the exception thresholds that
//! random inputs rarely reach. Both builds, outcome and exception trace; disagreements
//! only in the categories `common::agreement` names.

mod common;

use common::agreement::{compare_on_inputs, Tally};
use fpscout_search::diff::{run_diff, DiffConfig};
use fpscout_search::session::Session;
use fpscout_toolchain::{BuildFlags, BuildKind};
use std::path::Path;

#[test]
fn solver_candidates_agree_with_the_executables() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&corpus)
        .expect("tests/corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    let mut tally = Tally::default();
    let mut functions = 0;
    for path in &files {
        let function = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let session = Session::open(path, BuildFlags::default()).expect("corpus compiles");
        let mut cfg = DiffConfig::new(function);
        cfg.random_inputs = 0;
        cfg.threads = 2;
        cfg.explore_budget_s = 1.0;
        cfg.solve_budget_s = Some(1.0);
        cfg.search_budget = 1;
        // Functions diff cannot search (no float inputs, pointer-to-int outputs) have no
        // candidates to check.
        let Ok(report) = run_diff(&session, &cfg, &mut |_, _, _| {}) else {
            continue;
        };
        if report.candidates.is_empty() {
            continue;
        }
        functions += 1;
        for build in BuildKind::BOTH {
            let what = format!("{function} (solver candidates)");
            compare_on_inputs(
                &session,
                build,
                function,
                &report.candidates,
                &what,
                "",
                &mut tally,
            );
        }
    }
    println!(
        "solver candidates of {functions} corpus functions, {}",
        tally.summary()
    );
    assert!(functions >= 10, "only {functions} functions had candidates");
    let shown: Vec<&str> = tally
        .failures
        .iter()
        .filter(|f| !f.is_empty())
        .map(String::as_str)
        .collect();
    assert!(
        tally.failures.is_empty(),
        "{} unexplained disagreements; first:\n{}",
        tally.failures.len(),
        shown.join("\n\n")
    );
}
