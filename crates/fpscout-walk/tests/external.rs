//! Calls outside the module: output run for its return value, program ends as path ends,
//! other native functions called through libffi with their flags charged to the call,
//! unsupported constructs failing only where reached, and globals reset per evaluation.

use fpscout_ir::{EndFn, ExceptionKind, ExternalKind, InstKind, Module, OutputFn, ProgramEnd};
use fpscout_llvm::load_build;
use fpscout_toolchain::{BuildFlags, BuildKind, Toolchain};
use fpscout_walk::concrete::{ArgBits, ConcreteRunner, EvalEnd, Evaluation, FpMode};
use fpscout_walk::WalkConfig;

const SOURCE: &str = r#"#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
double checked_log(double x) {
  if (x < 0) {
    fprintf(stderr, "checked_log: negative argument %g\n", x);
    abort();
  }
  if (x == 0) exit(3);
  double r = log(x) / (x - 1.0);
  printf("r = %g\n", r);
  return r;
}
double asserted(double x) {
  assert(x > 0);
  return 1.0 / x;
}
int counted(double x) {
  int n = puts("hello");
  n += putchar('A' + (x > 0));
  return n;
}
double exp10(double); double uses_exp10(double x, int n) { return ldexp(exp10(x), n); }
double through_pointer(double x, double (*g)(double)) {
  if (x > 0) return x;
  return g(x);
}
static double twice(double v) { return 2.0 * v; }
double (*volatile picked)(double) = twice;
double indirect(double x) {
  if (x > 0) return x + 1.0;
  return picked(x);
}
static double acc;
static int calls;
double accumulate(double x) { acc += x; calls++; return acc * calls; }
"#;

fn build(kind: BuildKind) -> Module {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("ext.c");
    std::fs::write(&c, SOURCE).unwrap();
    let tc = Toolchain::discover().unwrap();
    load_build(&tc, &c, kind, &BuildFlags::default(), dir.path()).unwrap()
}

/// A runner of `name` in IEEE mode.
fn runner<'m>(m: &'m Module, name: &str) -> ConcreteRunner<'m> {
    let fid = m.find_function(name).unwrap();
    let mode = FpMode {
        ftz: false,
        daz: false,
    };
    ConcreteRunner::new(m, fid, mode, WalkConfig::default()).unwrap()
}

fn eval(m: &Module, name: &str, args: &[f64]) -> Evaluation {
    let a: Vec<ArgBits> = args.iter().map(|x| ArgBits::Scalar(x.to_bits())).collect();
    runner(m, name)
        .eval(&a)
        .unwrap_or_else(|e| panic!("{name}({args:?}): {e}"))
}

fn externals(m: &Module, name: &str) -> Vec<(String, ExternalKind, bool)> {
    let f = m.function(m.find_function(name).unwrap());
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match &i.kind {
            InstKind::External(c) => Some((c.name.clone(), c.kind, c.result_used)),
            _ => None,
        })
        .collect()
}

#[test]
fn output_and_program_ends_are_lowered_as_external_calls() {
    for kind in BuildKind::BOTH {
        let m = build(kind);
        let calls = externals(&m, "checked_log");
        let named = |n: &str| calls.iter().find(|c| c.0 == n).cloned();
        assert_eq!(
            named("fprintf").map(|c| (c.1, c.2)),
            Some((ExternalKind::Output(OutputFn::Formatted), false)),
            "{kind}: {calls:?}"
        );
        assert_eq!(
            named("abort").map(|c| c.1),
            Some(ExternalKind::End(EndFn::Abort))
        );
        assert_eq!(
            named("exit").map(|c| c.1),
            Some(ExternalKind::End(EndFn::Exit))
        );
        let f = m.function(m.find_function("checked_log").unwrap());
        assert!(f.unsupported.is_none(), "{kind}: {:?}", f.unsupported);
        assert_eq!(
            externals(&m, "uses_exp10")
                .iter()
                .map(|c| (c.0.as_str(), c.1))
                .collect::<Vec<_>>(),
            vec![
                ("exp10", ExternalKind::Native),
                ("ldexp", ExternalKind::Native)
            ]
        );
    }
}

#[test]
fn exit_abort_and_failed_assertions_end_the_path_where_they_are_called() {
    let m = build(BuildKind::P);
    let end_of = |name: &str, x: f64| match eval(&m, name, &[x]).end {
        EvalEnd::Ended { end, loc } => (end, loc.map(|l| l.line)),
        other => panic!("{name}({x}) ended as {other:?}"),
    };
    assert_eq!(end_of("checked_log", -2.0), (ProgramEnd::Abort, Some(8)));
    assert_eq!(
        end_of("checked_log", 0.0),
        (ProgramEnd::Exit { status: 3 }, Some(10))
    );
    assert_eq!(
        end_of("asserted", -1.0),
        (
            ProgramEnd::AssertFail {
                message: "x > 0".into()
            },
            Some(16)
        )
    );
    // The ordinary path still returns, through the discarded printf.
    let e = eval(&m, "checked_log", &[2.0]);
    assert_eq!(e.result_bits(), Some((2f64.ln() / 1.0).to_bits()));
    assert_eq!(
        eval(&m, "asserted", &[4.0]).result_bits(),
        Some(0.25f64.to_bits())
    );
}

#[test]
fn output_functions_return_what_glibc_returns() {
    let m = build(BuildKind::P);
    // puts("hello") = 6 (length + 1), putchar('B') = 'B'.
    assert_eq!(
        eval(&m, "counted", &[1.0]).result_bits(),
        Some(6 + u64::from(b'B'))
    );
    assert_eq!(
        eval(&m, "counted", &[-1.0]).result_bits(),
        Some(6 + u64::from(b'A'))
    );
}

extern "C" {
    fn exp10(x: f64) -> f64;
}

#[test]
fn native_functions_are_called_and_their_flags_charged_to_the_call() {
    for kind in BuildKind::BOTH {
        let m = build(kind);
        let mut r = runner(&m, "uses_exp10");
        let mut call = |x: f64, n: i32| {
            r.eval(&[
                ArgBits::Scalar(x.to_bits()),
                ArgBits::Scalar(n as u32 as u64),
            ])
            .unwrap()
        };
        // glibc's exp10(3) (1000 and an ulp), times 2^-3.
        // SAFETY: glibc's `double exp10(double)`, a pure function.
        let thousand = unsafe { exp10(3.0) };
        assert_eq!(
            call(3.0, -3).result_bits(),
            Some((thousand / 8.0).to_bits()),
            "{kind}"
        );
        // exp10(400) overflows inside glibc, ldexp(inf, 0) raises nothing more.
        let e = call(400.0, 0);
        assert_eq!(e.result_bits(), Some(f64::INFINITY.to_bits()), "{kind}");
        let names: Vec<(ExceptionKind, &str)> = e
            .events
            .iter()
            .map(|ev| (ev.kind, m.op(ev.site.op).opcode.as_str()))
            .collect();
        assert_eq!(names, vec![(ExceptionKind::Overflow, "exp10")], "{kind}");
        // ldexp(1000, 2000) overflows in ldexp.
        let e = call(3.0, 2000);
        assert_eq!(e.result_bits(), Some(f64::INFINITY.to_bits()), "{kind}");
        assert_eq!(
            e.events
                .iter()
                .map(|ev| m.op(ev.site.op).opcode.as_str())
                .collect::<Vec<_>>(),
            vec!["ldexp"],
            "{kind}"
        );
    }
}

#[test]
fn calls_through_function_pointers_run_and_foreign_pointers_fail_only_when_reached() {
    let m = build(BuildKind::P);
    let f = m.function(m.find_function("indirect").unwrap());
    assert!(f.unsupported.is_none(), "{:?}", f.unsupported);
    assert_eq!(
        eval(&m, "indirect", &[1.0]).result_bits(),
        Some(2f64.to_bits())
    );
    // `picked` holds the address of `twice`, called through it: -1.5 * 2.
    assert_eq!(
        eval(&m, "indirect", &[-1.5]).result_bits(),
        Some((-3f64).to_bits())
    );
    // A call through a parameter: a pointer to data (the array a harness passes) fails
    // that path only, naming it.
    let f = m.function(m.find_function("through_pointer").unwrap());
    assert!(f.unsupported.is_none(), "{:?}", f.unsupported);
    assert!(
        f.unsupported_reasons().is_empty(),
        "{:?}",
        f.unsupported_reasons()
    );
    let mut r = runner(&m, "through_pointer");
    let positive = r
        .eval(&[ArgBits::Scalar(2f64.to_bits()), ArgBits::Array(vec![0])])
        .expect("the pointer is not called");
    assert_eq!(positive.result_bits(), Some(2f64.to_bits()));
    let err = r
        .eval(&[ArgBits::Scalar((-1f64).to_bits()), ArgBits::Array(vec![0])])
        .expect_err("an array called as a function");
    assert!(
        err.to_string().contains("not a function of the program"),
        "{err}"
    );
}

#[test]
fn every_evaluation_starts_from_the_initial_globals() {
    for kind in BuildKind::BOTH {
        let m = build(kind);
        let fid = m.find_function("accumulate").unwrap();
        let mode = FpMode {
            ftz: kind == BuildKind::PPrime,
            daz: kind == BuildKind::PPrime,
        };
        let mut r = ConcreteRunner::new(&m, fid, mode, WalkConfig::default()).unwrap();
        for x in [1.5, 2.0, -7.25] {
            let e = r.eval(&[ArgBits::Scalar(f64::to_bits(x))]).unwrap();
            assert_eq!(e.result_bits(), Some(x.to_bits()), "{kind} accumulate({x})");
        }
    }
}
