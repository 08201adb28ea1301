//! Front-end tests: compiling P and P', loading .ll/.bc, fast-math flags, source
//! locations, op ids, pointer element inference and typed errors.

use fpscout_ir::*;
use fpscout_llvm::{
    load_build, load_build_sources, load_ir_file, BackendModel, FrontError, LowerOptions,
};
use fpscout_toolchain::{BuildFlags, BuildKind, SourceSet, Toolchain};
use std::path::PathBuf;
use std::process::Command;

fn src(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn fp_ops_of(m: &Module, f: FuncId) -> Vec<&FpOpInfo> {
    m.fp_ops.iter().filter(|o| o.func == f).collect()
}

#[test]
fn p_has_no_fast_math_flags_and_p_prime_has_them() {
    let dir = tempfile::tempdir().unwrap();
    let c = src(
        &dir,
        "t.c",
        "double f(double a, double b) {\n  return a * b + a / b;\n}\n",
    );
    let tc = Toolchain::discover().unwrap();
    let flags = BuildFlags::default();
    let p = load_build(&tc, &c, BuildKind::P, &flags, dir.path()).unwrap();
    let pp = load_build(&tc, &c, BuildKind::PPrime, &flags, dir.path()).unwrap();
    let fp = p.find_function("f").unwrap();
    let ops = fp_ops_of(&p, fp);
    let names: Vec<&str> = ops.iter().map(|o| o.opcode.as_str()).collect();
    assert_eq!(
        names,
        vec!["fmul", "fdiv", "fadd"],
        "P keeps source order, no contraction"
    );
    assert!(ops.iter().all(|o| o.fmf.is_empty()));
    // Every op carries file:line:col from !dbg.
    let loc = ops[0].loc.as_ref().expect("location");
    assert!(loc.file.ends_with("t.c"));
    assert_eq!(loc.line, 2);
    assert!(loc.col > 0);
    let fpp = pp.find_function("f").unwrap();
    let ops = fp_ops_of(&pp, fpp);
    assert!(!ops.is_empty());
    assert!(
        ops.iter().all(|o| o.fmf.is_fast()),
        "{:?}",
        ops.iter().map(|o| o.fmf).collect::<Vec<_>>()
    );
}

#[test]
fn op_ids_are_dense_and_stable() {
    let dir = tempfile::tempdir().unwrap();
    let c = src(
        &dir,
        "t.c",
        "double g(double x) { return x * x; }\ndouble h(double y) { return g(y) + 1.0; }\n",
    );
    let tc = Toolchain::discover().unwrap();
    let a = load_build(&tc, &c, BuildKind::P, &BuildFlags::default(), dir.path()).unwrap();
    let b = load_build(&tc, &c, BuildKind::P, &BuildFlags::default(), dir.path()).unwrap();
    assert_eq!(a.fp_ops, b.fp_ops);
    let mut seen = Vec::new();
    for f in &a.functions {
        for blk in &f.blocks {
            for i in &blk.insts {
                if let InstKind::FBin { site, .. } = &i.kind {
                    seen.push(site.0);
                }
            }
        }
    }
    assert_eq!(seen, (0..a.fp_ops.len() as u32).collect::<Vec<_>>());
}

#[test]
fn pointer_parameters_get_their_element_type() {
    let dir = tempfile::tempdir().unwrap();
    let c = src(
        &dir,
        "p.c",
        "float s(const float *x, int n) { float t = 0; for (int i = 0; i < n; i++) t += x[i]; return t; }\n\
         long c(const long *k) { return k[1]; }\n",
    );
    let tc = Toolchain::discover().unwrap();
    for build in BuildKind::BOTH {
        let m = load_build(&tc, &c, build, &BuildFlags::default(), dir.path()).unwrap();
        let s = m.function(m.find_function("s").unwrap());
        assert_eq!(
            s.params[0].pointee,
            Some(ScalarTy::Float(FloatTy::F32)),
            "{build}"
        );
        assert_eq!(s.params[1].ty, Type::int(32));
        let c = m.function(m.find_function("c").unwrap());
        assert_eq!(c.params[0].pointee, Some(ScalarTy::Int(64)), "{build}");
    }
}

#[test]
fn pointer_parameters_know_how_far_constant_indices_reach() {
    let dir = tempfile::tempdir().unwrap();
    let c = src(
        &dir,
        "e.c",
        "#include <math.h>\n\
         double w(double x, double *out) { out[0] = x; out[15] = -x; return x; }\n\
         double m(double x, double *out) { out[0] = 0; return modf(x, &out[11]); }\n\
         double d(const double *x, int n) { return x[n] + x[2]; }\n\
         double s(const float *x, int n) { float t = 0; for (int i = 0; i < n; i++) t += x[i]; return t; }\n\
         static const float *kept; static int next;\n\
         float take(void) { return kept[next++]; }\n\
         float h(const float *in) { kept = in; next = 0; return take() + take(); }\n",
    );
    let tc = Toolchain::discover().unwrap();
    for build in BuildKind::BOTH {
        let m = load_build(&tc, &c, build, &BuildFlags::default(), dir.path()).unwrap();
        let elements = |name: &str, i: usize| {
            m.function(m.find_function(name).unwrap()).params[i].min_elements
        };
        assert_eq!(elements("w", 1), 16, "{build}: out[15] is written");
        assert_eq!(elements("m", 1), 12, "{build}: modf writes out[11]");
        assert_eq!(
            elements("d", 0),
            3,
            "{build}: x[2] is read, x[n] says nothing"
        );
        assert_eq!(elements("s", 0), 0, "{build}: only dynamic indices");
        assert_eq!(elements("s", 1), 0, "{build}: not a pointer");
        let h = m.function(m.find_function("h").unwrap());
        assert_eq!(
            h.params[0].pointee,
            Some(ScalarTy::Float(FloatTy::F32)),
            "{build}: read through the global it is kept in"
        );
    }
}

#[test]
fn ll_and_bc_inputs_load() {
    let dir = tempfile::tempdir().unwrap();
    let c = src(&dir, "k.c", "double k(double x) { return x / 3.0; }\n");
    let tc = Toolchain::discover().unwrap();
    let ll = dir.path().join("k.ll");
    let bc = dir.path().join("k.bc");
    for (out, extra) in [(&ll, "-S"), (&bc, "-c")] {
        let st = Command::new(&tc.clang)
            .args(["-O1", "-emit-llvm", extra, "-o"])
            .arg(out)
            .arg(&c)
            .status()
            .unwrap();
        assert!(st.success());
    }
    for path in [&ll, &bc] {
        let m = load_ir_file(path, LowerOptions::default()).unwrap();
        let f = m.function(m.find_function("k").unwrap());
        assert_eq!(f.params.len(), 1);
        assert_eq!(f.ret, Type::F64);
        // P of an IR input is the file itself; P' re-optimises it with the P' flags.
        let p = load_build(&tc, path, BuildKind::P, &BuildFlags::default(), dir.path()).unwrap();
        let pp = load_build(
            &tc,
            path,
            BuildKind::PPrime,
            &BuildFlags::default(),
            dir.path(),
        )
        .unwrap();
        assert!(p.find_function("k").is_some() && pp.find_function("k").is_some());
    }
}

#[test]
fn cxx_functions_are_found_by_their_source_name() {
    let dir = tempfile::tempdir().unwrap();
    let c = src(
        &dir,
        "q.cpp",
        "double area(double r) { return 3.14159 * r * r; }\n",
    );
    let tc = Toolchain::discover().unwrap();
    let m = load_build(&tc, &c, BuildKind::P, &BuildFlags::default(), dir.path()).unwrap();
    let f = m.function(m.find_function("area").expect("demangled lookup"));
    assert_eq!(f.name, "_Z4aread");
}

#[test]
fn unsupported_instructions_fail_where_they_are_and_broken_control_flow_makes_a_stub() {
    let dir = tempfile::tempdir().unwrap();
    let c = src(
        &dir,
        "u.c",
        "double ok(double x) { return x; }\n\
         double noisy(double x) {\n  if (x > 0) return x;\n  long double y = x;\n  return (double)(y * y);\n}\n\
         double jumpy(double x, int k) {\n  static void *where[] = {&&a, &&b};\n  goto *where[k & 1];\n\
         a: return x;\n  b: return -x;\n}\n",
    );
    let tc = Toolchain::discover().unwrap();
    let m = load_build(&tc, &c, BuildKind::P, &BuildFlags::default(), dir.path()).unwrap();
    assert!(m
        .function(m.find_function("ok").unwrap())
        .unsupported
        .is_none());
    // The long double arithmetic stays in the body, each instruction failing where it is.
    let noisy = m.function(m.find_function("noisy").unwrap());
    assert!(noisy.unsupported.is_none(), "{:?}", noisy.unsupported);
    let reasons = noisy.unsupported_reasons();
    assert!(!reasons.is_empty());
    assert!(reasons.iter().all(|r| r.contains("u.c:")), "{reasons:?}");
    assert!(
        reasons.iter().any(|r| r.contains("x86_fp80")),
        "{reasons:?}"
    );
    // An indirect branch is control flow: the function is a stub with the reason.
    let why = m
        .function(m.find_function("jumpy").unwrap())
        .unsupported
        .clone()
        .expect("stub");
    assert!(
        why.contains("indirectbr") || why.contains("IndirectBr"),
        "{why}"
    );
    assert!(why.contains("jumpy"), "{why}");
}

#[test]
fn missing_and_broken_inputs_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let tc = Toolchain::discover().unwrap();
    let e = load_build(
        &tc,
        &dir.path().join("none.c"),
        BuildKind::P,
        &BuildFlags::default(),
        dir.path(),
    )
    .unwrap_err();
    assert!(matches!(e, FrontError::Toolchain(_)), "{e}");
    let bad = src(&dir, "bad.ll", "define double @f( {\n");
    let e = load_ir_file(&bad, LowerOptions::default()).unwrap_err();
    assert!(matches!(e, FrontError::Parse { .. }), "{e}");
    let ext = src(&dir, "x.f90", "program x\nend\n");
    assert!(load_build(&tc, &ext, BuildKind::P, &BuildFlags::default(), dir.path()).is_err());
}

#[test]
fn fmuladd_is_fused_only_on_fma_targets() {
    assert!(!LowerOptions::from_flags(&["-O3".into(), "-ffast-math".into()]).target_has_fma);
    assert!(LowerOptions::from_flags(&["-O3".into(), "-march=haswell".into()]).target_has_fma);
    assert!(LowerOptions::from_flags(&["-mfma".into()]).target_has_fma);
}

/// The operand tree of the value `v` in a straight-line function, as text.
fn tree(f: &Function, v: &Operand) -> String {
    let Operand::Value(id) = v else {
        return "const".into();
    };
    if (id.0 as usize) < f.params.len() {
        return f.params[id.0 as usize].name.clone();
    }
    let inst = f.blocks[0]
        .insts
        .iter()
        .find(|i| i.dest == Some(*id))
        .expect("defined in the entry block");
    match &inst.kind {
        InstKind::FBin { op, a, b, .. } => {
            let sym = match op {
                FBinOp::FMul => "*",
                FBinOp::FAdd => "+",
                _ => "?",
            };
            format!("({} {sym} {})", tree(f, a), tree(f, b))
        }
        other => format!("{other:?}"),
    }
}

#[test]
fn machine_combiner_reassociations_are_lowered_as_the_machine_code_computes() {
    let dir = tempfile::tempdir().unwrap();
    let c = src(
        &dir,
        "chain.c",
        "double chain(double a, double b, double c, double d) {\n  return ((a * b) * c) * d;\n}\n",
    );
    let tc = Toolchain::discover().unwrap();
    let flags = BuildFlags::default();
    let pp = load_build(&tc, &c, BuildKind::PPrime, &flags, dir.path()).unwrap();
    assert_eq!(pp.backend_rewrites.len(), 1, "{:?}", pp.backend_rewrites);
    assert_eq!(pp.backend_rewrites[0].function, "chain");
    assert_eq!(pp.backend_rewrites[0].unmodelled, None);
    let f = pp.function(pp.find_function("chain").unwrap());
    let Terminator::Ret(Some(ret)) = &f.blocks[0].term else {
        panic!("returns a value");
    };
    // The IR says ((b*a)*c)*d (clang's operand order); x86 computes the two products of
    // the chain side by side.
    assert_eq!(tree(f, ret), "((b * a) * (c * d))");
    // Every product keeps an op id and a source location on line 2.
    let ops = fp_ops_of(&pp, pp.find_function("chain").unwrap());
    assert_eq!(ops.len(), 3);
    assert!(
        ops.iter()
            .all(|o| o.loc.as_ref().is_some_and(|l| l.line == 2)),
        "{ops:?}"
    );
    // P is compiled without optimisation: nothing to rewrite.
    let p = load_build(&tc, &c, BuildKind::P, &flags, dir.path()).unwrap();
    assert!(p.backend_rewrites.is_empty());
}

#[test]
fn an_ir_only_load_keeps_the_ir_order_and_reads_no_machine_code() {
    let dir = tempfile::tempdir().unwrap();
    let c = src(
        &dir,
        "chain.c",
        "double chain(double a, double b, double c, double d) {\n  return ((a * b) * c) * d;\n}\n",
    );
    let tc = Toolchain::discover().unwrap();
    let pp = load_build_sources(
        &tc,
        &SourceSet::single(&c),
        BuildKind::PPrime,
        &BuildFlags::default(),
        dir.path(),
        BackendModel::IrOnly,
    )
    .unwrap();
    assert!(pp.backend_rewrites.is_empty());
    assert!(!dir.path().join("Pprime.tagged.bc").exists());
    let f = pp.function(pp.find_function("chain").unwrap());
    let Terminator::Ret(Some(ret)) = &f.blocks[0].term else {
        panic!("returns a value");
    };
    // As the IR says, not as the MachineCombiner rewrote it.
    assert_eq!(tree(f, ret), "(((b * a) * c) * d)");
}

#[test]
fn commuted_min_max_selects_are_lowered_with_the_machine_operand_order() {
    let dir = tempfile::tempdir().unwrap();
    let c = src(
        &dir,
        "minmax.c",
        "float larger(float x, float c) { return x < c ? c : x; }\n\
         double smaller(double x, double c) { return x < c ? x : c; }\n",
    );
    let tc = Toolchain::discover().unwrap();
    let flags = BuildFlags::default();
    let pp = load_build(&tc, &c, BuildKind::PPrime, &flags, dir.path()).unwrap();
    let mut rewritten: Vec<(&str, Option<&str>)> = pp
        .backend_rewrites
        .iter()
        .map(|r| (r.function.as_str(), r.unmodelled.as_deref()))
        .collect();
    rewritten.sort();
    assert_eq!(rewritten, [("larger", None), ("smaller", None)]);
    let lowered = |name: &str| -> (FBinaryOp, String, String, usize) {
        let f = pp.function(pp.find_function(name).unwrap());
        let Terminator::Ret(Some(Operand::Value(ret))) = &f.blocks[0].term else {
            panic!("{name} returns a value");
        };
        let inst = f.blocks[0]
            .insts
            .iter()
            .find(|i| i.dest == Some(*ret))
            .expect("defined in the entry block");
        let InstKind::FBinary { op, a, b, .. } = &inst.kind else {
            panic!("{name}: {:?}", inst.kind);
        };
        let name_of = |o: &Operand| match o {
            Operand::Value(v) => f.params[v.0 as usize].name.clone(),
            other => format!("{other:?}"),
        };
        let compares = f.blocks[0]
            .insts
            .iter()
            .filter(|i| matches!(i.kind, InstKind::FCmp { .. }))
            .count();
        (*op, name_of(a), name_of(b), compares)
    };
    // `maxss %xmm1, %xmm0`: x is the destination, so c (second) comes out on a NaN,
    // where the IR's select would give x.
    assert_eq!(
        lowered("larger"),
        (FBinaryOp::MaxSse, "x".into(), "c".into(), 0)
    );
    // `minsd %xmm1, %xmm0`: also c second, which here is what the select says.
    assert_eq!(
        lowered("smaller"),
        (FBinaryOp::MinSse, "x".into(), "c".into(), 0)
    );
    // The op keeps the select's source line.
    let ops = fp_ops_of(&pp, pp.find_function("larger").unwrap());
    assert!(
        ops.iter()
            .all(|o| o.loc.as_ref().is_some_and(|l| l.line == 1)),
        "{ops:?}"
    );
}

#[test]
fn commuted_min_max_are_read_through_loops_reductions_and_folded_loads() {
    let dir = tempfile::tempdir().unwrap();
    let c = src(
        &dir,
        "loops.c",
        "void vmin(float *out, const float *a, const float *b) {\n\
           for (int i = 0; i < 8; i++) out[i] = a[i] < b[i] ? a[i] : b[i];\n\
         }\n\
         double dmax(const double *a, int n) {\n\
           double m = a[0];\n\
           for (int i = 1; i < n; i++) m = m > a[i] ? m : a[i];\n\
           return m;\n\
         }\n",
    );
    let tc = Toolchain::discover().unwrap();
    let pp = load_build(
        &tc,
        &c,
        BuildKind::PPrime,
        &BuildFlags::default(),
        dir.path(),
    )
    .unwrap();
    let verdict = |name: &str| {
        pp.backend_rewrites
            .iter()
            .find(|r| r.function == name)
            .map(|r| r.unmodelled.clone())
    };
    // `minps` with one operand folded from memory: both candidates are loads, and the
    // register names one of them.
    assert_eq!(verdict("vmin"), Some(None));
    // The running maximum is a phi: the loop's registers hold different values on the
    // paths into its header. The final reduction's halving step has the shuffled upper
    // lane first.
    assert_eq!(verdict("dmax"), Some(None));
    let f = pp.function(pp.find_function("dmax").unwrap());
    let machine_max = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| {
            matches!(
                i.kind,
                InstKind::FBinary {
                    op: FBinaryOp::MaxSse,
                    ..
                }
            )
        })
        .count();
    // Two in the vector loop, one joining them, one halving step, one in the scalar
    // remainder loop; no reduction is left to the walker's own lane order.
    assert_eq!(machine_max, 5, "{f:?}");
    assert!(
        !f.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .any(|i| matches!(i.kind, InstKind::Reduce { .. })),
        "{f:?}"
    );
}

#[test]
fn a_module_is_cut_down_to_what_the_function_reaches() {
    let dir = tempfile::tempdir().unwrap();
    // `f` reaches `helper` by a call, `table` through `helper`, `data` through `table`'s
    // initializer, `cb` through a function pointer stored in `callbacks`; `other` and
    // `unused` are unreachable.
    let ll = src(
        &dir,
        "m.ll",
        r#"
@table = internal constant [1 x ptr] [ptr getelementptr (i8, ptr @data, i64 8)]
@data = internal constant [2 x double] [double 1.0, double 2.0]
@callbacks = global [1 x ptr] [ptr @cb]
@unused = global double 4.0

define double @cb(double %x) {
  ret double %x
}
define internal double @helper(double %x) {
  %p = load ptr, ptr @table
  %v = load double, ptr %p
  %q = load ptr, ptr @callbacks
  %r = fmul double %x, %v
  ret double %r
}
define double @f(double %x) {
  %r = call double @helper(double %x)
  ret double %r
}
define double @other(double %x) {
  %v = load double, ptr @unused
  %r = fadd double %x, %v
  ret double %r
}
"#,
    );
    let out = dir.path().join("cut.bc");
    assert!(fpscout_llvm::write_reachable_from(&ll, &["f"], &out).unwrap());
    let m = load_ir_file(&out, LowerOptions::default()).unwrap();
    let mut functions: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    functions.sort_unstable();
    assert_eq!(functions, ["cb", "f", "helper"]);
    let mut globals: Vec<&str> = m.globals.iter().map(|g| g.name.as_str()).collect();
    globals.sort_unstable();
    assert_eq!(globals, ["callbacks", "data", "table"]);
    // Reached definitions keep their linkage (the optimiser treats internal ones apart).
    assert!(m.functions.iter().any(|f| f.name == "cb" && f.external));
    assert!(m
        .functions
        .iter()
        .any(|f| f.name == "helper" && !f.external));
    // A function the module does not define: nothing is written.
    let missing = dir.path().join("missing.bc");
    assert!(!fpscout_llvm::write_reachable_from(&ll, &["nope"], &missing).unwrap());
    assert!(!missing.exists());
}

#[test]
fn is_fpclass_is_a_quiet_compare_for_four_masks_and_a_bit_test_otherwise() {
    // x86 tests nan (3), its complement (1020), nan-or-zero (99) and its complement
    // (924) with `ucomisd`; every other mask with integer instructions on the bits.
    let dir = tempfile::tempdir().unwrap();
    let c = src(
        &dir,
        "c.c",
        "#include <math.h>\n\
         int a(double x) { return isnan(x); }\n\
         int b(double x) { return __builtin_isfpclass(x, 0x3fc); }\n\
         int c(float x) { return __builtin_isfpclass(x, 0x063); }\n\
         int d(double x) { return __builtin_isfpclass(x, 0x39c); }\n\
         int e(double x) { return isfinite(x); }\n\
         int f(float x) { return isnormal(x); }\n",
    );
    let tc = Toolchain::discover().unwrap();
    let m = load_build(&tc, &c, BuildKind::P, &BuildFlags::default(), dir.path()).unwrap();
    let kind_of = |name: &str| {
        let f = m.function(m.find_function(name).unwrap());
        f.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .find_map(|i| match &i.kind {
                InstKind::FCmp {
                    pred, b, lowering, ..
                } => Some(format!("fcmp {pred:?} {lowering:?} {b:?}")),
                InstKind::FClass { mask, ty, .. } => Some(format!("class {:#x} {ty:?}", mask.0)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{name} has no class test: {f:?}"))
    };
    assert!(
        kind_of("a").starts_with("fcmp Uno Quiet Value("),
        "{}",
        kind_of("a")
    );
    assert!(
        kind_of("b").starts_with("fcmp Ord Quiet Value("),
        "{}",
        kind_of("b")
    );
    assert_eq!(
        kind_of("c"),
        format!("fcmp Ueq Quiet {:?}", Operand::Const(Const::f32(0.0)))
    );
    assert_eq!(
        kind_of("d"),
        format!("fcmp One Quiet {:?}", Operand::Const(Const::f64(0.0)))
    );
    assert_eq!(kind_of("e"), format!("class 0x1f8 {:?}", Type::F64));
    assert_eq!(kind_of("f"), format!("class 0x108 {:?}", Type::F32));
}
