//! The findings crate stands below the modes: its resolved dependency graph (as cargo
//! builds it) reaches neither the search pipeline nor LLVM nor Z3.

use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// The package names `cargo metadata` resolves for `root`'s normal (non-dev) dependencies,
/// transitively.
fn normal_dependency_closure(root: &str) -> BTreeSet<String> {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline"])
        .args(["--filter-platform", "x86_64-unknown-linux-gnu"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata JSON");
    let names: HashMap<&str, &str> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .filter_map(|p| Some((p["id"].as_str()?, p["name"].as_str()?)))
        .collect();
    let nodes: HashMap<&str, Vec<&str>> = metadata["resolve"]["nodes"]
        .as_array()
        .expect("a resolved graph")
        .iter()
        .filter_map(|n| {
            let deps = n["deps"]
                .as_array()?
                .iter()
                .filter(|d| {
                    d["dep_kinds"]
                        .as_array()
                        .is_some_and(|kinds| kinds.iter().any(|k| k["kind"].is_null()))
                })
                .filter_map(|d| d["pkg"].as_str())
                .collect();
            Some((n["id"].as_str()?, deps))
        })
        .collect();
    let root_id = names
        .iter()
        .find(|(_, name)| **name == root)
        .map(|(id, _)| *id)
        .expect("the root package");
    let mut seen = BTreeSet::new();
    let mut stack = vec![root_id];
    while let Some(id) = stack.pop() {
        for dep in nodes.get(id).into_iter().flatten() {
            if seen.insert(names[dep].to_string()) {
                stack.push(dep);
            }
        }
    }
    seen
}

#[test]
fn the_findings_crate_builds_without_the_modes_llvm_or_z3() {
    let deps = normal_dependency_closure("fpscout-report");
    for below in ["fpscout-ir", "fpscout-walk", "fpscout-native"] {
        assert!(deps.contains(below), "expected {below} in {deps:?}");
    }
    for above in [
        "fpscout-search",
        "fpscout",
        "fpscout-llvm",
        "fpscout-smt",
        "inkwell",
        "z3",
    ] {
        assert!(
            !deps.contains(above),
            "fpscout-report depends on {above}: {deps:?}"
        );
    }
}

#[test]
fn the_search_crate_sits_on_the_findings_crate_and_not_on_the_binary() {
    let deps = normal_dependency_closure("fpscout-search");
    assert!(deps.contains("fpscout-report"), "{deps:?}");
    assert!(!deps.contains("fpscout"), "{deps:?}");
}
