//! The MachineCombiner detector against real clang-19 builds.

use fpscout_toolchain::{BuildFlags, BuildKind, MachineRewrite, Toolchain};

fn rewrites(text: &str, flags: &BuildFlags, build: BuildKind) -> Vec<MachineRewrite> {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("f.c");
    std::fs::write(&src, text).unwrap();
    let tc = Toolchain::discover().expect("clang-19");
    tc.machine_rewrites(&src, flags.of(build))
        .expect("compiles")
}

const TURBINE1: &str = "double turbine1(double v, double w, double r) {\n  return ((3.0 + (2.0 / (r * r))) - (((0.125 * (3.0 - (2.0 * v))) * (((w * w) * r) * r)) / (1.0 - v))) - 4.5;\n}\n";
const CHAIN: &str =
    "double chain(double a, double b, double c, double d) {\n  return ((a * b) * c) * d;\n}\n";

#[test]
fn fast_math_chains_are_reassociated_after_instruction_selection() {
    let fast = BuildFlags::default();
    let r = rewrites(TURBINE1, &fast, BuildKind::PPrime);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].function, "turbine1");
    // One multiplication pair replaced by another: two instructions out, two in.
    assert_eq!(r[0].instructions, 4, "{r:?}");
    // ((a*b)*c)*d runs as (a*b)*(c*d), with the source line of the chain.
    let r = rewrites(CHAIN, &fast, BuildKind::PPrime);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].function, "chain");
    assert!(
        r[0].locations.iter().all(|l| l.starts_with("f.c:2:")),
        "{r:?}"
    );
}

#[test]
fn builds_without_reassoc_are_left_alone() {
    assert!(rewrites(TURBINE1, &BuildFlags::default(), BuildKind::P).is_empty());
    let strict = BuildFlags::with_p_prime("-O3");
    assert!(rewrites(CHAIN, &strict, BuildKind::PPrime).is_empty());
    let no_chain = "double g(double a, double b) { return a / b; }\n";
    assert!(rewrites(no_chain, &BuildFlags::default(), BuildKind::PPrime).is_empty());
}
