//! The heap (`malloc`, `calloc`, `realloc`, `free`) and `memmove` on the walker's memory:
//! the concrete walk agrees bit for bit and flag for flag with the clang-compiled
//! functions, misuse traps as out-of-bounds accesses do, and what cannot be modelled
//! (uninitialised reads, huge sizes) is a typed unsupported error.

mod common;

use common::{eval_scalar, load_ll, run_native, CTy, NativeCall, FTZ};
use fpscout_ir::{HeapOp, InstKind, Module};
use fpscout_toolchain::{BuildFlags, BuildKind, Toolchain};
use fpscout_walk::concrete::{ArgBits, ConcreteRunner, EvalEnd, FpMode};
use fpscout_walk::{WalkConfig, WalkError};

const SOURCE: &str = r#"#include <stdlib.h>
#include <string.h>
/* A work array from calloc, filled by a recurrence, summed and freed (the shape of R's
   bessel_j). */
double calloc_recurrence(double x, int n) {
  double *w = calloc(n, sizeof(double));
  if (!w) return -1.0;
  w[0] = x;
  for (int i = 1; i < n; i++) w[i] = w[i - 1] * x + 1.0 / (i + x);
  double s = 0.0;
  for (int i = n - 1; i >= 0; i--) s += w[i];
  free(w);
  return s;
}
/* Cells calloc zeroed and nobody wrote are read as +0. */
double calloc_sparse(double x, int n) {
  double *w = calloc(n, sizeof(double));
  for (int i = 0; i < n; i += 3) w[i] = x / (i + 1);
  double s = 0.0;
  for (int i = 0; i < n; i++) s = s * 0.5 + w[i];
  free(w);
  return s;
}
/* A buffer grown by realloc as it fills: the old contents move along. */
double realloc_growth(double x, int n) {
  int cap = 1;
  double *w = malloc(cap * sizeof(double));
  for (int i = 0; i < n; i++) {
    if (i == cap) {
      cap *= 2;
      w = realloc(w, cap * sizeof(double));
    }
    w[i] = i == 0 ? x : w[i - 1] * x - 0.5;
  }
  w = realloc(w, (n > 2 ? n / 2 : 1) * sizeof(double)); /* shrinking keeps the head */
  double s = 0.0;
  for (int i = 0; i < (n > 2 ? n / 2 : 1); i++) s += w[i] / (i + 1);
  free(w);
  return s;
}
/* memmove of overlapping ranges, both directions, on a heap array of floats. */
float memmove_shift(float x, int n) {
  float *w = malloc(n * sizeof(float));
  for (int i = 0; i < n; i++) w[i] = x * (float)(i + 1);
  memmove(w + 1, w, (n - 1) * sizeof(float));
  memmove(w, w + 2, (n - 2) * sizeof(float));
  float s = 0.0f;
  for (int i = 0; i < n; i++) s = s * x + w[i];
  free(w);
  return s;
}
/* malloc(0) is a unique non-null pointer; free(NULL) does nothing; calloc whose
   count * size overflows returns NULL; realloc(NULL, n) is malloc. */
int heap_edges(int n) {
  void *a = malloc(0), *b = malloc(0);
  int r = (a != NULL) + 2 * (b != NULL) + 4 * (a != b);
  free(a);
  free(b);
  free(NULL);
  r += 8 * (calloc((size_t)-1 / 8 + n, 16) == NULL);
  int *c = realloc(NULL, sizeof(int));
  *c = n;
  r += 16 * (*c == n);
  free(c);
  return r;
}
double read_past_end(double x, int n) {
  double *w = calloc(n, sizeof(double));
  double s = 0.0;
  for (int i = 0; i <= n; i++) s += w[i] + x;
  free(w);
  return s;
}
double use_after_free(double x) {
  double *w = malloc(2 * sizeof(double));
  w[0] = x;
  free(w);
  return w[0];
}
double double_free(double x) {
  double *w = malloc(sizeof(double));
  free(w);
  free(w);
  return x;
}
double free_local(double x) {
  double v = x;
  double *p = &v;
  free(p);
  return x;
}
double read_uninitialised(double x) {
  double *w = malloc(2 * sizeof(double));
  w[0] = x;
  double r = w[0] + w[1];
  free(w);
  return r;
}
double huge(double x) {
  double *w = malloc((size_t)1 << 40);
  w[0] = x;
  return w[0];
}
"#;

fn build() -> Module {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("heap.c");
    std::fs::write(&c, SOURCE).unwrap();
    let tc = Toolchain::discover().unwrap();
    fpscout_llvm::load_build(&tc, &c, BuildKind::P, &BuildFlags::default(), dir.path()).unwrap()
}

fn call(func: &str, params: &[CTy], ret: CTy, args: &[u64], mode: FpMode) -> NativeCall {
    NativeCall {
        func: func.into(),
        params: params.to_vec(),
        ret,
        args: args.to_vec(),
        mode,
    }
}

fn run(m: &Module, name: &str, args: &[u64]) -> Result<EvalEnd, WalkError> {
    let fid = m.find_function(name).unwrap();
    let mut r = ConcreteRunner::new(m, fid, FpMode::IEEE, WalkConfig::default()).unwrap();
    let a: Vec<ArgBits> = args.iter().map(|&b| ArgBits::Scalar(b)).collect();
    r.eval(&a).map(|e| e.end)
}

#[test]
fn heap_calls_are_lowered_to_heap_instructions() {
    let m = build();
    let ops = |name: &str| -> Vec<HeapOp> {
        let f = m.function(m.find_function(name).unwrap());
        assert!(f.unsupported.is_none(), "{name}: {:?}", f.unsupported);
        f.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| match &i.kind {
                InstKind::Heap { op, .. } => Some(*op),
                InstKind::External(c) => panic!("{name}: {} left as an external call", c.name),
                _ => None,
            })
            .collect()
    };
    assert_eq!(ops("calloc_recurrence"), vec![HeapOp::Calloc, HeapOp::Free]);
    assert_eq!(
        ops("realloc_growth"),
        vec![
            HeapOp::Malloc,
            HeapOp::Realloc,
            HeapOp::Realloc,
            HeapOp::Free
        ]
    );
}

/// Every function here agrees with its clang-compiled self bit for bit and flag for flag.
#[test]
fn heap_functions_agree_with_native_code() {
    let m = build();
    let (d, i, f) = (CTy::F64, CTy::I32, CTy::F32);
    let mut calls = vec![];
    let doubles = [0.5f64, -1.75, 3.0e-310, 1.0e200, -0.0, 7.0];
    for &x in &doubles {
        for n in [1u64, 2, 5, 40, 700] {
            for name in ["calloc_recurrence", "calloc_sparse", "realloc_growth"] {
                calls.push(call(name, &[d, i], d, &[x.to_bits(), n], FpMode::IEEE));
            }
        }
        calls.push(call(
            "calloc_recurrence",
            &[d, i],
            d,
            &[x.to_bits(), 9],
            FTZ,
        ));
    }
    for x in [0.75f32, -3.5, 1.0e30, 1.0e-40] {
        for n in [2u64, 3, 17] {
            let bits = u64::from(x.to_bits());
            calls.push(call("memmove_shift", &[f, i], f, &[bits, n], FpMode::IEEE));
        }
    }
    for n in [0u64, 1, 9] {
        calls.push(call("heap_edges", &[i], i, &[n], FpMode::IEEE));
    }
    let dir = tempfile::tempdir().unwrap();
    let native = run_native(dir.path(), &[("heap.c", SOURCE)], &calls);
    let mut errs = vec![];
    for (c, &(nbits, nflags)) in calls.iter().zip(&native) {
        let (cbits, cflags) = eval_scalar(&m, &c.func, c.mode, &c.args);
        if (cbits, cflags) != (nbits, nflags) {
            errs.push(format!(
                "{}({:x?}) in {:?}: interpreter {cbits:#x} [{cflags}], native {nbits:#x} [{nflags}]",
                c.func, c.args, c.mode
            ));
        }
    }
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    // Not vacuous: every edge of heap_edges holds natively.
    assert!(native[native.len() - 3..].iter().all(|r| r.0 == 31));
}

#[test]
fn heap_misuse_traps() {
    let m = build();
    let x = 2.0f64.to_bits();
    let trap = |name: &str, args: &[u64]| match run(&m, name, args) {
        Ok(EvalEnd::Trapped(why)) => why,
        other => panic!("{name}: {other:?}"),
    };
    assert!(
        trap("read_past_end", &[x, 4]).contains("load of 8 bytes at offset 32 outside"),
        "{}",
        trap("read_past_end", &[x, 4])
    );
    assert!(trap("use_after_free", &[x]).contains("after it was freed"));
    assert!(trap("double_free", &[x]).contains("already freed"));
    assert!(trap("free_local", &[x]).contains("not heap memory"));
    // In bounds, the same function returns.
    assert!(matches!(
        run(&m, "calloc_recurrence", &[x, 4]),
        Ok(EvalEnd::Returned(Some(_)))
    ));
}

/// Uninitialised heap cells are read as uninitialised locals are (unsupported: no value
/// is made up for them), and sizes no process gets are refused, on their path only.
#[test]
fn unmodelled_heap_uses_are_unsupported() {
    let m = build();
    let x = 2.0f64.to_bits();
    for (name, why) in [
        ("read_uninitialised", "read of uninitialized memory"),
        ("huge", "heap allocation of 1099511627776 bytes"),
    ] {
        match run(&m, name, &[x]) {
            Err(e @ WalkError::Unsupported { .. }) => {
                assert!(e.to_string().contains(why), "{name}: {e}")
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// Functions that touch the heap get no native kernel (memory is refused), so the
/// runner interprets them.
#[test]
fn heap_functions_get_no_native_kernel() {
    let m = build();
    let fid = m.find_function("calloc_recurrence").unwrap();
    match fpscout_llvm::native_kernel(&m, fid) {
        Err(fpscout_llvm::NoKernel(why)) => assert_eq!(why, "memory"),
        Ok(_) => panic!("a kernel for a function calling calloc"),
    }
}

/// `memcpy`, `memmove` and `memset` called as functions (as `-fno-builtin` leaves them)
/// run as the intrinsics do, their returned destination included.
#[test]
fn libc_memory_functions_called_as_functions() {
    let m = load_ll(
        r#"
declare ptr @memmove(ptr, ptr, i64)
declare ptr @memset(ptr, i32, i64)
define double @shift(double %x) {
  %a = alloca [4 x double]
  %p1 = getelementptr double, ptr %a, i64 1
  %r = call ptr @memset(ptr %a, i32 0, i64 32)
  store double %x, ptr %r
  %q = call ptr @memmove(ptr %p1, ptr %a, i64 24)
  %v0 = load double, ptr %q
  %v1 = load double, ptr %a
  %s = fadd double %v0, %v1
  ret double %s
}
"#,
    );
    let f = m.function(m.find_function("shift").unwrap());
    assert!(f.unsupported.is_none(), "{:?}", f.unsupported);
    let (bits, _) = eval_scalar(&m, "shift", FpMode::IEEE, &[3.0f64.to_bits()]);
    assert_eq!(f64::from_bits(bits), 6.0);
}
