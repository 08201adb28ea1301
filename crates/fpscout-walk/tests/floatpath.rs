//! The float-path domain on real compiled C: FPSE's examples (DESIGN.md §5) walked path by path, with their float-exact answers.

use fpscout_fpsolve::{FloatDomain, Format, Propagation};
use fpscout_ir::{FloatTy, Module};
use fpscout_toolchain::{BuildFlags, BuildKind, Toolchain};
use fpscout_walk::concrete::FpMode;
use fpscout_walk::floatpath::{FloatPath, PathScalar};
use fpscout_walk::{ExploreLimits, PathEnd, Val, WalkConfig, Walker};

/// The P build (clang -O0 + mem2reg) of `source`, lowered.
fn build(source: &str) -> Module {
    let dir = tempfile::tempdir().expect("temp dir");
    let c = dir.path().join("fpse.c");
    std::fs::write(&c, source).expect("write");
    let tc = Toolchain::discover().expect("clang-19");
    fpscout_llvm::load_build(&tc, &c, BuildKind::P, &BuildFlags::default(), dir.path())
        .expect("lower")
}

/// One explored path: how it ended and its network's domains after propagation.
struct Path {
    end: PathEnd<PathScalar>,
    propagation: Propagation,
    domains: Vec<FloatDomain>,
}

/// Explores every path of `name`, its float inputs given by their domains.
fn explore(module: &Module, name: &str, inputs: &[FloatDomain]) -> (Vec<Path>, u64) {
    let func = module.find_function(name).expect("function");
    let mut walker =
        Walker::new(module, FloatPath::new(FpMode::IEEE), WalkConfig::default()).expect("walker");
    let args: Vec<Val<PathScalar>> = inputs
        .iter()
        .enumerate()
        .map(|(k, d)| {
            Val::Scalar(
                walker
                    .domain
                    .input(&format!("x{k}"), FloatTy::F32, d.clone()),
            )
        })
        .collect();
    let limits = ExploreLimits {
        max_paths: 64,
        loop_bound: 8,
        deadline: None,
    };
    let mut paths = Vec::new();
    let summary = walker.explore(func, args, limits, |domain, end| {
        let mut net = domain.network().clone();
        let propagation = net.propagate(1_000_000);
        let domains = net
            .domains()
            .iter()
            .filter_map(|d| d.as_float().cloned())
            .collect();
        paths.push(Path {
            end,
            propagation,
            domains,
        });
    });
    assert_eq!(summary.stopped, None);
    (paths, walker.domain.forks)
}

fn returned(p: &Path) -> &PathScalar {
    match &p.end {
        PathEnd::Returned(Some(Val::Scalar(s))) => s,
        other => panic!("path ended {other:?}"),
    }
}

fn point(x: f32) -> FloatDomain {
    FloatDomain::between(Format::F32, f64::from(x), f64::from(x))
}

fn f32_of(format_key: fpscout_fpsolve::Fp) -> f32 {
    Format::F32.to_f64(format_key) as f32
}

#[test]
fn g1_propagates_to_the_exact_float_of_fpse() {
    // ((2e-30 ⊕ 1e30) ⊖ 1e30) ⊖ 1e-30 with the constants as inputs, so the network (not
    // constant folding) computes it: the sum absorbs 2e-30 and the result is -1e-30's float.
    let m = build("float g1(float a, float big, float c) { return ((a + big) - big) - c; }\n");
    let (paths, forks) = explore(&m, "g1", &[point(2e-30), point(1e30), point(1e-30)]);
    assert_eq!((paths.len(), forks), (1, 0));
    let PathScalar::Float(r) = *returned(&paths[0]) else {
        panic!("the result is a network variable");
    };
    assert_eq!(paths[0].propagation, Propagation::Fixpoint);
    let (lo, hi) = paths[0].domains[r.index()].range().expect("not empty");
    assert_eq!(lo, hi);
    assert_eq!(f64::from(f32_of(lo)), -1.0000000031710769e-30);
    assert_eq!(f32_of(lo).to_bits(), (-1e-30f32).to_bits());
}

#[test]
fn foo_has_no_float_path_to_its_absorbed_branch() {
    // x < 10000 ∧ x ⊕ 1e12 > 1e12: feasible over the reals, infeasible over floats.
    let m = build(
        "int foo(float x) {\n  if (x < 10000.0f) {\n    if (x + 1e12f > 1e12f) return 1;\n  }\n  return 0;\n}\n",
    );
    let (paths, forks) = explore(&m, "foo", &[FloatDomain::full(Format::F32)]);
    // Only the outer branch forks; the inner one is decided by propagation (pruned).
    assert_eq!(forks, 1);
    assert_eq!(paths.len(), 2);
    for p in &paths {
        assert_eq!(returned(p), &PathScalar::Bits(0), "no path returns 1");
    }
}

#[test]
fn foo_m_reaches_its_branch_with_fpses_interval() {
    // x > 0 ∧ x ⊕ 1e12 = 1e12: infeasible over the reals, true of every float in
    // [2^-149, 32767.998046875] (32768 ties to 1e12f's odd neighbour).
    let m = build(
        "int foo_m(float x) {\n  if (x > 0.0f) {\n    if (x + 1e12f == 1e12f) return 1;\n  }\n  return 0;\n}\n",
    );
    let (paths, _) = explore(&m, "foo_m", &[FloatDomain::full(Format::F32)]);
    let hits: Vec<&Path> = paths
        .iter()
        .filter(|p| returned(p) == &PathScalar::Bits(1))
        .collect();
    assert_eq!(hits.len(), 1);
    let (lo, hi) = hits[0].domains[0].range().expect("x not empty");
    assert_eq!(f32_of(lo), f32::from_bits(1));
    assert_eq!(f32_of(hi), 32767.998f32);
    assert_eq!(f64::from(f32_of(hi)), 32767.998046875);
    assert!(!hits[0].domains[0].may_be_nan());
    // The bounds are solutions and their neighbours outside are not (the machine agrees).
    for (x, holds) in [
        (f32::from_bits(1), true),
        (32767.998f32, true),
        (32768.0f32, false),
        (0.0f32, false),
    ] {
        assert_eq!(x > 0.0 && x + 1e12f32 == 1e12f32, holds, "{x}");
    }
}

#[test]
fn what_the_network_cannot_express_fails_the_path_naming_it() {
    // j0 of an input (a libm function without a constraint): the path is a typed
    // error (unknown), never a refutation.
    let m = build(
        "#include <math.h>\nfloat e(float x) { if (x > 1.0f) return j0f(x); return 0.0f; }\n",
    );
    let (paths, _) = explore(&m, "e", &[FloatDomain::full(Format::F32)]);
    assert_eq!(paths.len(), 2);
    let failed: Vec<String> = paths
        .iter()
        .filter_map(|p| match &p.end {
            PathEnd::Failed(e) => Some(e.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0].contains("external function 'j0f'"), "{failed:?}");
}

#[test]
fn glibc_isinf_drops_its_sign_test_and_prunes_finite_inputs() {
    // isinf(x) is select(|x| == inf, select(signbit(x), -1, 1), 0) != 0: the sign test
    // (a bitcast) collapses, and in [0, 1e30] the inf branch is refuted by propagation.
    let m = build(
        "#include <math.h>\nint inf_after(float x) { float y = x * x; if (isinf(y)) return 1; return 0; }\n",
    );
    let (paths, forks) = explore(&m, "inf_after", &[FloatDomain::full(Format::F32)]);
    assert_eq!((paths.len(), forks), (2, 1));
    let small = FloatDomain::between(Format::F32, 0.0, 1e18);
    let (paths, forks) = explore(&m, "inf_after", &[small]);
    assert_eq!((paths.len(), forks), (1, 0));
    assert_eq!(returned(&paths[0]), &PathScalar::Bits(0));
}

#[test]
fn class_tests_narrow_the_input_to_their_classes() {
    // isnan is `fcmp uno`, isfinite and isnormal are class constraints (llvm.is.fpclass):
    // on [0, 1] the NaN and infinite branches are refuted, and each class's path keeps
    // exactly that class's floats.
    let m = build(
        "#include <math.h>\nint kind(float x) {\n  if (isnan(x) || !isfinite(x)) return 0;\n  \
         if (isnormal(x)) return 1;\n  if (__builtin_isfpclass(x, 0x090)) return 2;\n  \
         return 3;\n}\n",
    );
    let (paths, _) = explore(&m, "kind", &[FloatDomain::between(Format::F32, 0.0, 1.0)]);
    let mut seen: Vec<(u64, f32, f32)> = paths
        .iter()
        .filter(|p| p.propagation != Propagation::Infeasible)
        .map(|p| {
            let PathScalar::Bits(k) = returned(p) else {
                panic!("a known result");
            };
            let (lo, hi) = p.domains[0].range().expect("a non-empty range");
            (*k, f32_of(lo), f32_of(hi))
        })
        .collect();
    seen.sort_by_key(|s| s.0);
    let max_subnormal = f32::from_bits(0x007f_ffff);
    assert_eq!(
        seen,
        vec![
            (1, f32::MIN_POSITIVE, 1.0),
            (2, f32::from_bits(1), max_subnormal),
            (3, 0.0, 0.0),
        ]
    );
    // The whole line: every class is possible, NaN and infinities included.
    let (paths, _) = explore(&m, "kind", &[FloatDomain::full(Format::F32)]);
    let feasible = paths
        .iter()
        .filter(|p| p.propagation != Propagation::Infeasible)
        .count();
    assert_eq!(feasible, 5, "nan, inf, normal, subnormal, zero");
}

#[test]
fn copysign_with_a_known_sign_is_a_magnitude_constraint() {
    // copysignf(x, -1) is -|x|: never above zero, whatever x (NaN included).
    let m = build(
        "#include <math.h>\nint c(float x) { float y = copysignf(x, -1.0f);\n  \
         if (y > 0.0f) return 1;\n  if (y < -2.0f) return 2;\n  return 0;\n}\n",
    );
    let (paths, _) = explore(&m, "c", &[FloatDomain::full(Format::F32)]);
    let mut results: Vec<u64> = paths
        .iter()
        .filter(|p| p.propagation != Propagation::Infeasible)
        .map(|p| match returned(p) {
            PathScalar::Bits(k) => *k,
            other => panic!("{other:?}"),
        })
        .collect();
    results.sort_unstable();
    assert_eq!(results, vec![0, 2]);
}

#[test]
fn a_budget_spent_before_the_set_up_call_returns_is_named_as_the_budget() {
    let source = "static int handler_on = 1;\nvoid handler_off(void) { handler_on = 0; }\n\
                  float f(float x) { return handler_on ? x : 2.0f * x; }\n";
    let mut module = build(source);
    module.setup = Some(module.find_function("handler_off").expect("set-up"));
    let spent = WalkConfig {
        deadline: Some(std::time::Instant::now()),
        ..WalkConfig::default()
    };
    let error = match Walker::new(&module, FloatPath::new(FpMode::IEEE), spent) {
        Ok(_) => panic!("a walker made after its deadline ran the set-up call"),
        Err(e) => e.to_string(),
    };
    assert!(
        error.contains("the time budget ran out before the set-up call handler_off returned"),
        "{error}"
    );
    // With time left the set-up call runs and the walker is made.
    assert!(Walker::new(&module, FloatPath::new(FpMode::IEEE), WalkConfig::default()).is_ok());
}
