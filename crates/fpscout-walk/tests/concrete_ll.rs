//! End to end: small hand-written LLVM IR functions, lowered with fpscout-llvm and run with
//! `ConcreteRunner`; exact result bits, flags and per-operation (per-lane) events.

mod common;

use common::ll::*;
use common::tables::*;
use common::{d, eval, eval_scalar, f, flags, load_ll, DAZ, FTZ, LL_HEADER};
use fpscout_ir::{CmpLowering, ExceptionKind, FCmpPred, InstKind, Module, ScalarTy};
use fpscout_walk::concrete::{x86, ArgBits, ConcreteRunner, EvalEnd, Evaluation, Event, FpMode};
use fpscout_walk::{StopReason, WalkConfig};

const IEEE: FpMode = FpMode::IEEE;

fn sc(v: &[u64]) -> Vec<ArgBits> {
    v.iter().map(|&b| ArgBits::Scalar(b)).collect()
}

/// (kind, opcode of the event's site, lane) of every event.
fn event_list(m: &Module, ev: &Evaluation) -> Vec<(ExceptionKind, String, u32)> {
    ev.events
        .iter()
        .map(|e: &Event| (e.kind, m.op(e.site.op).opcode.clone(), e.site.lane))
        .collect()
}

fn ev(k: ExceptionKind, op: &str, lane: u32) -> (ExceptionKind, String, u32) {
    (k, op.to_string(), lane)
}

use ExceptionKind::{DivByZero as DZK, Inexact as IEK, Invalid as INVK, Overflow as OFK};

fn arith_module() -> Module {
    load_ll(&arith_ll())
}

fn opname(op: fpscout_ir::FBinOp) -> &'static str {
    use fpscout_ir::FBinOp::*;
    match op {
        FAdd => "fadd",
        FSub => "fsub",
        FMul => "fmul",
        FDiv => "fdiv",
        FRem => "frem",
    }
}

#[test]
fn scalar_arithmetic_end_to_end() {
    let m = arith_module();
    let mut errs = vec![];
    for (suffix, rows) in [("d", F64_ARITH), ("f", F32_ARITH)] {
        for &(op, a, b, want, fl) in rows {
            let name = format!("{}_{suffix}", opname(op));
            let e = eval(&m, &name, IEEE, &sc(&[a, b]));
            let got = e.result_bits().unwrap();
            if got != want || e.flags != flags(fl) {
                errs.push(format!(
                    "{name}({a:#x}, {b:#x}) = {got:#x} [{}], want {want:#x} [{fl}]",
                    e.flags
                ));
                continue;
            }
            // Inexact events are recorded by `eval`: one event per flag, at this op.
            let want_ev: Vec<_> = flags(fl).iter().map(|k| ev(k, opname(op), 0)).collect();
            if event_list(&m, &e) != want_ev {
                errs.push(format!("{name}({a:#x}, {b:#x}): events {:?}", e.events));
            }
        }
    }
    for &a in F64_NEG {
        assert_eq!(
            eval_scalar(&m, "fneg_d", IEEE, &[a]),
            (a ^ d::NZ, flags(NONE))
        );
    }
    for &a in F32_NEG {
        assert_eq!(
            eval_scalar(&m, "fneg_f", IEEE, &[a]),
            (a ^ f::NZ, flags(NONE))
        );
    }
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

#[test]
fn events_are_attributed_to_the_operation_that_raised_them() {
    let m = load_ll(
        "define double @seq(double %a, double %b) {\n\
           %x = fdiv double %a, 3.0\n\
           %y = fmul double %x, %b\n\
           %z = fsub double %y, %y\n\
           %w = fadd double %z, 1.0\n\
           %v = frem double %a, 1.0\n\
           %u = fadd double %v, %a\n\
           ret double %u\n\
         }\n",
    );
    let fid = m.find_function("seq").unwrap();
    let mut r = ConcreteRunner::new(&m, fid, IEEE, WalkConfig::default()).unwrap();
    // a = 4: 4/3 inexact; ·DBL_MAX overflows; inf-inf invalid; NaN+1 quiet; 4 rem 1 = 0
    // exact; 0+4 exact.
    let e = r.eval(&sc(&[0x4010_0000_0000_0000, d::MAX])).unwrap();
    assert_eq!(e.result_bits(), Some(0x4010_0000_0000_0000));
    assert_eq!(e.flags, flags("invalid,overflow,inexact"));
    assert_eq!(
        event_list(&m, &e),
        vec![ev(OFK, "fmul", 0), ev(INVK, "fsub", 0)]
    );
    // The same with inexact events: the sticky inexact of the fdiv must not be reported
    // again by later operations.
    r.record_inexact(true);
    let e = r.eval(&sc(&[0x4010_0000_0000_0000, d::MAX])).unwrap();
    assert_eq!(
        event_list(&m, &e),
        vec![
            ev(IEK, "fdiv", 0),
            ev(OFK, "fmul", 0),
            ev(IEK, "fmul", 0),
            ev(INVK, "fsub", 0)
        ]
    );
    // A clean run right after: nothing left over from the previous evaluation.
    let e = r.eval(&sc(&[d::THREE, d::TWO])).unwrap();
    assert_eq!(e.result_bits(), Some(d::THREE));
    assert!(e.events.is_empty() && e.flags.is_empty(), "{e:?}");
    // Inexact only, not recorded: in the union, no events.
    r.record_inexact(false);
    let e = r.eval(&sc(&[d::ONE, d::ONE])).unwrap();
    assert_eq!(e.flags, flags("inexact"));
    assert!(e.events.is_empty());
}

#[test]
fn ftz_daz_end_to_end() {
    let m = arith_module();
    let rows: &[(FpMode, &str, u64, u64, u64, &str)] = &[
        (FTZ, "fmul_d", d::MIN, d::HALF, d::PZ, UF_IE),
        (IEEE, "fmul_d", d::MIN, d::HALF, 0x0008_0000_0000_0000, NONE),
        (FTZ, "fmul_d", d::Q3, 0x0015_5555_5555_5555, d::MIN, IE),
        (FTZ, "fmul_d", d::BELOW_ONE, d::MIN, d::PZ, UF_IE),
        (DAZ, "fdiv_d", d::ONE, d::MIN_SUB, d::INF, DZ),
        (DAZ, "fadd_d", d::MAX_SUB, d::MAX_SUB, d::PZ, NONE),
        (
            FpMode::FAST_MATH_STARTUP,
            "fsub_d",
            0x0010_0000_0000_0001,
            d::MIN,
            d::PZ,
            UF_IE,
        ),
        (FTZ, "fmul_f", f::MIN, f::HALF, f::PZ, UF_IE),
        (DAZ, "fdiv_f", f::ONE, f::MIN_SUB, f::INF, DZ),
    ];
    for &(mode, name, a, b, want, fl) in rows {
        assert_eq!(
            eval_scalar(&m, name, mode, &[a, b]),
            (want, flags(fl)),
            "{mode:?} {name}({a:#x}, {b:#x})"
        );
        // The walk's FTZ/DAZ must not leak into the caller's thread (flags may).
        assert_eq!(
            x86::stmxcsr() & !0x3f,
            x86::MXCSR_DEFAULT,
            "after {mode:?} {name}"
        );
    }
    // Nor after a walk that traps half-way.
    let t = load_ll("define i32 @f(double %a, i32 %n) {\n  %x = fmul double %a, 0.5\n  %q = sdiv i32 1, %n\n  ret i32 %q\n}\n");
    let e = eval(&t, "f", FpMode::FAST_MATH_STARTUP, &sc(&[d::MIN, 0]));
    assert!(matches!(e.end, EvalEnd::Trapped(_)));
    assert_eq!(e.flags, flags(UF_IE));
    assert_eq!(x86::stmxcsr() & !0x3f, x86::MXCSR_DEFAULT);
    // Host arithmetic still sees subnormals.
    let half_min = std::hint::black_box(f64::MIN_POSITIVE) * 0.5;
    assert_eq!(half_min.to_bits(), 0x0008_0000_0000_0000);
}

/// The lowering the front end chose for the single fcmp of `func`.
fn lowering_of(m: &Module, func: &str) -> (FCmpPred, CmpLowering) {
    let f = m.function(m.find_function(func).unwrap());
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .find_map(|i| match &i.kind {
            InstKind::FCmp { pred, lowering, .. } => Some((*pred, *lowering)),
            _ => None,
        })
        .expect("an fcmp")
}

#[test]
fn fcmp_predicates_and_lowerings_end_to_end() {
    let m = load_ll(&fcmp_ll());
    // (a, b as doubles, a, b as floats, index into the truth row: less, equal, greater,
    // unordered; has an SNaN)
    #[rustfmt::skip]
    let pairs: &[(u64, u64, u64, u64, usize, bool)] = &[
        (d::ONE, d::TWO, f::ONE, f::TWO, 0, false),
        (d::PZ, d::NZ, f::PZ, f::NZ, 1, false),
        (d::INF, d::MAX, f::INF, f::MAX, 2, false),
        (d::QNAN, d::ONE, f::QNAN, f::ONE, 3, false),
        (d::ONE, d::SNAN, f::ONE, f::SNAN, 3, true),
    ];
    let truth = |p: FCmpPred, i: usize| {
        let o = [
            Some(std::cmp::Ordering::Less),
            Some(std::cmp::Ordering::Equal),
            Some(std::cmp::Ordering::Greater),
            None,
        ][i];
        p.holds(o)
    };
    let relational = |p: &str| {
        matches!(
            p,
            "ogt" | "oge" | "olt" | "ole" | "ugt" | "uge" | "ult" | "ule"
        )
    };
    let mut errs = vec![];
    for (p, pred) in PREDS {
        assert_eq!(
            lowering_of(&m, &format!("q_{p}")),
            (pred, CmpLowering::Quiet)
        );
        assert_eq!(
            lowering_of(&m, &format!("b_{p}")),
            (pred, CmpLowering::Quiet)
        );
        assert_eq!(
            lowering_of(&m, &format!("m_{p}")),
            (pred, CmpLowering::Mask)
        );
        let constant = p == "false" || p == "true";
        for &(a, b, fa, fb, i, snan) in pairs {
            let want = truth(pred, i);
            let nan = i == 3;
            let quiet_fl = if snan && !constant { INV } else { NONE };
            let mask_fl = if !constant && (snan || (nan && relational(p))) {
                INV
            } else {
                NONE
            };
            let (r, fl) = eval_scalar(&m, &format!("q_{p}"), IEEE, &[a, b]);
            if (r, fl) != (u64::from(want), flags(quiet_fl)) {
                errs.push(format!("q_{p}({a:#x},{b:#x}) = {r} [{fl}]"));
            }
            let (r, fl) = eval_scalar(&m, &format!("b_{p}"), IEEE, &[fa, fb]);
            if (r, fl) != (u64::from(want), flags(quiet_fl)) {
                errs.push(format!("b_{p}({fa:#x},{fb:#x}) = {r} [{fl}]"));
            }
            let (r, fl) = eval_scalar(&m, &format!("m_{p}"), IEEE, &[a, b]);
            let want_d = if want { d::ONE } else { d::PZ };
            if (r, fl) != (want_d, flags(mask_fl)) {
                errs.push(format!("m_{p}({a:#x},{b:#x}) = {r:#x} [{fl}]"));
            }
        }
    }
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

/// x86 selects an integer on an fcmp with `ucomisd` + `cmov` (checked against clang's
/// output in `native_crosscheck.rs`): quiet, unlike a select between floats.
#[test]
fn fcmp_feeding_an_integer_select_is_quiet() {
    let m = load_ll(
        "define i32 @sel_i32(double %a, double %b) {\n  %c = fcmp olt double %a, %b\n  %r = select i1 %c, i32 1, i32 0\n  ret i32 %r\n}\n\
         define float @sel_f(float %a, float %b) {\n  %c = fcmp ole float %a, %b\n  %r = select i1 %c, float %a, float %b\n  ret float %r\n}\n",
    );
    assert_eq!(lowering_of(&m, "sel_i32").1, CmpLowering::Quiet);
    assert_eq!(
        eval_scalar(&m, "sel_i32", IEEE, &[d::QNAN, d::ONE]),
        (0, flags(NONE))
    );
    assert_eq!(
        eval_scalar(&m, "sel_i32", IEEE, &[d::ONE, d::TWO]),
        (1, flags(NONE))
    );
    assert_eq!(lowering_of(&m, "sel_f").1, CmpLowering::Mask);
    assert_eq!(
        eval_scalar(&m, "sel_f", IEEE, &[f::QNAN, f::ONE]),
        (f::ONE, flags(INV))
    );
}

fn ll_scalar(s: ScalarTy) -> String {
    match s {
        ScalarTy::Float(fpscout_ir::FloatTy::F32) => "float".into(),
        ScalarTy::Float(fpscout_ir::FloatTy::F64) => "double".into(),
        ScalarTy::Int(w) => format!("i{w}"),
        ScalarTy::Ptr => "ptr".into(),
    }
}

fn cast_name(op: fpscout_ir::CastOp) -> &'static str {
    use fpscout_ir::CastOp::*;
    match op {
        SIToFP => "sitofp",
        UIToFP => "uitofp",
        FPToSI => "fptosi",
        FPToUI => "fptoui",
        FPExt => "fpext",
        FPTrunc => "fptrunc",
        _ => unreachable!(),
    }
}

#[test]
fn conversions_end_to_end() {
    let mut s = String::new();
    let mut names = vec![];
    for &(op, from, to, ..) in CASTS {
        let name = format!("{}_{}_{}", cast_name(op), ll_scalar(from), ll_scalar(to));
        if !names.contains(&name) {
            s += &format!(
                "define {t} @{name}({f} %a) {{\n  %r = {o} {f} %a to {t}\n  ret {t} %r\n}}\n",
                t = ll_scalar(to),
                f = ll_scalar(from),
                o = cast_name(op)
            );
            names.push(name);
        }
    }
    let m = load_ll(&s);
    let mut errs = vec![];
    for &(op, from, to, a, want, fl) in CASTS {
        let name = format!("{}_{}_{}", cast_name(op), ll_scalar(from), ll_scalar(to));
        let e = eval(&m, &name, IEEE, &sc(&[a]));
        let got = e.result_bits().unwrap();
        let want_ev: Vec<_> = flags(fl).iter().map(|k| ev(k, cast_name(op), 0)).collect();
        if (got, e.flags) != (want, flags(fl)) || event_list(&m, &e) != want_ev {
            errs.push(format!(
                "{name}({a:#x}) = {got:#x} [{}] {:?}, want {want:#x} [{fl}]",
                e.flags, e.events
            ));
        }
    }
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

#[test]
fn intrinsics_and_libm_end_to_end() {
    let m = load_ll(INTRINSICS);
    let mut errs = vec![];
    for &(name, args, want, fl) in INTRINSIC_ROWS {
        let got = eval_scalar(&m, name, IEEE, args);
        if got != (want, flags(fl)) {
            errs.push(format!(
                "{name}({args:x?}) = {:#x} [{}], want {want:#x} [{fl}]",
                got.0, got.1
            ));
        }
    }
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    // fmuladd attributes both roundings' flags to the one call site.
    let e = eval(
        &m,
        "t_fmuladd",
        IEEE,
        &sc(&[d::MAX, d::TWO, 0xffef_ffff_ffff_ffff]),
    );
    assert_eq!(
        event_list(&m, &e),
        vec![ev(OFK, "llvm.fmuladd", 0), ev(IEK, "llvm.fmuladd", 0)]
    );
}

#[test]
fn fmuladd_is_fused_on_fma_targets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.ll");
    std::fs::write(&path, format!("{LL_HEADER}{INTRINSICS}")).unwrap();
    let opts = fpscout_llvm::LowerOptions {
        target_has_fma: true,
        ..Default::default()
    };
    let m = fpscout_llvm::load_ir_file(&path, opts).unwrap();
    assert_eq!(
        eval_scalar(
            &m,
            "t_fmuladd",
            IEEE,
            &[0x3ff0_0000_0000_0001, 0x3fef_ffff_ffff_fffe, d::MONE]
        ),
        (0xb970_0000_0000_0000, flags(NONE))
    );
    assert_eq!(
        eval_scalar(
            &m,
            "t_fmuladd",
            IEEE,
            &[d::MAX, d::TWO, 0xffef_ffff_ffff_ffff]
        ),
        (d::MAX, flags(NONE))
    );
}

const FUSED_REDUCTION: &str = r#"
declare double @llvm.vector.reduce.fadd.v8f64(double, <8 x double>)
define double @dot8(ptr %p, ptr %q) {
  %a = load <8 x double>, ptr %p
  %b = load <8 x double>, ptr %q
  %m = fmul reassoc contract <8 x double> %a, %b
  %r = call reassoc contract double @llvm.vector.reduce.fadd.v8f64(double -0.0, <8 x double> %m)
  ret double %r
}
"#;

#[test]
fn a_reduction_of_products_two_registers_wide_is_one_fused_chain_on_fma_targets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.ll");
    std::fs::write(&path, format!("{LL_HEADER}{FUSED_REDUCTION}")).unwrap();
    let load = |target_has_fma| {
        // The combiner fuses at -O1 and up.
        let opts = fpscout_llvm::LowerOptions {
            target_has_fma,
            optimized: true,
            ..Default::default()
        };
        fpscout_llvm::load_ir_file(&path, opts).unwrap()
    };
    // Lane 0 of the first register: (1 + 2^-30)(1 - 2^-30) = 1 - 2^-60, which rounds to
    // 1; lane 0 of the second: -1. x86-64 rounds the second register's products and
    // fuses the first's onto them: fma(1 + 2^-30, 1 - 2^-30, -1) = -2^-60 exactly.
    let mut a = vec![0u64; 8];
    let mut b = vec![0u64; 8];
    (a[0], b[0]) = (0x3ff0_0000_0040_0000, 0x3fef_ffff_ff80_0000);
    (a[4], b[4]) = (d::MONE, d::ONE);
    let args = [ArgBits::Array(a), ArgBits::Array(b)];
    let e = eval(&load(true), "dot8", IEEE, &args);
    assert_eq!(e.result_bits(), Some(0xbc30_0000_0000_0000));
    // Fused the other way round (the first register rounded) it would be 0, and so it
    // is without FMA: every product rounded, then the halving tree.
    let e = eval(&load(false), "dot8", IEEE, &args);
    assert_eq!(e.result_bits(), Some(d::PZ));
}

const REDUCE: &str = r#"
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
declare double @llvm.vector.reduce.fmul.v4f64(double, <4 x double>)
define double @add_ord(ptr %p) {
  %v = load <4 x double>, ptr %p
  %r = call double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %v)
  ret double %r
}
define double @add_re(ptr %p) {
  %v = load <4 x double>, ptr %p
  %r = call reassoc double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %v)
  ret double %r
}
define double @add_re_start(ptr %p, double %s) {
  %v = load <4 x double>, ptr %p
  %r = call reassoc double @llvm.vector.reduce.fadd.v4f64(double %s, <4 x double> %v)
  ret double %r
}
define double @mul_ord(ptr %p) {
  %v = load <4 x double>, ptr %p
  %r = call double @llvm.vector.reduce.fmul.v4f64(double 1.0, <4 x double> %v)
  ret double %r
}
define double @mul_re(ptr %p) {
  %v = load <4 x double>, ptr %p
  %r = call reassoc double @llvm.vector.reduce.fmul.v4f64(double 1.0, <4 x double> %v)
  ret double %r
}
"#;

const E16: u64 = 0x4341_c379_37e0_8000; // 1e16
const ME16: u64 = 0xc341_c379_37e0_8000;

#[test]
fn vector_reductions_ordered_and_reassociated() {
    let m = load_ll(REDUCE);
    let arr = |v: [u64; 4]| vec![ArgBits::Array(v.to_vec())];
    // Ordered: (((-0 + 1e16) + 1) + -1e16) + 1 = 1 (1e16 + 1 ties back to 1e16).
    let e = eval(&m, "add_ord", IEEE, &arr([E16, d::ONE, ME16, d::ONE]));
    assert_eq!((e.result_bits(), e.flags), (Some(d::ONE), flags(IE)));
    assert_eq!(
        event_list(&m, &e),
        vec![ev(IEK, "llvm.vector.reduce.fadd", 1)]
    );
    // Reassociated, x86's halving tree: (a0+a2) + (a1+a3) = 0 + 2; the -0.0 start is the
    // identity.
    let e = eval(&m, "add_re", IEEE, &arr([E16, d::ONE, ME16, d::ONE]));
    assert_eq!((e.result_bits(), e.flags), (Some(d::TWO), flags(NONE)));
    // Lanes of tree events: level one combines lanes (0,2) as lane 0 and (1,3) as lane 1.
    let e = eval(&m, "add_re", IEEE, &arr([d::ONE, d::MAX, d::THREE, d::MAX]));
    assert_eq!((e.result_bits(), e.flags), (Some(d::INF), flags(OF_IE)));
    assert_eq!(
        event_list(&m, &e),
        vec![
            ev(OFK, "llvm.vector.reduce.fadd", 1),
            ev(IEK, "llvm.vector.reduce.fadd", 1)
        ]
    );
    let e = eval(
        &m,
        "add_ord",
        IEEE,
        &arr([d::MAX, d::MAX, d::MAX, 0xffef_ffff_ffff_ffff]),
    );
    assert_eq!((e.result_bits(), e.flags), (Some(d::INF), flags(OF_IE)));
    assert_eq!(
        event_list(&m, &e),
        vec![
            ev(OFK, "llvm.vector.reduce.fadd", 1),
            ev(IEK, "llvm.vector.reduce.fadd", 1)
        ]
    );
    let e = eval(
        &m,
        "add_re",
        IEEE,
        &arr([d::MAX, d::MAX, d::MAX, 0xffef_ffff_ffff_ffff]),
    );
    assert_eq!((e.result_bits(), e.flags), (Some(d::INF), flags(OF_IE)));
    assert_eq!(
        event_list(&m, &e),
        vec![
            ev(OFK, "llvm.vector.reduce.fadd", 0),
            ev(IEK, "llvm.vector.reduce.fadd", 0)
        ]
    );
    // A non-identity start value is added after the tree.
    let mut args = arr([E16, d::ONE, ME16, d::ONE]);
    args.push(ArgBits::Scalar(d::PZ));
    assert_eq!(
        eval(&m, "add_re_start", IEEE, &args).result_bits(),
        Some(d::TWO)
    );
    args[1] = ArgBits::Scalar(E16);
    // 1e16 + 2 is exact.
    let e = eval(&m, "add_re_start", IEEE, &args);
    assert_eq!(
        (e.result_bits(), e.flags),
        (Some(0x4341_c379_37e0_8001), flags(NONE))
    );
    // fmul: ordered overflows on MAX·2 first; the tree computes (MAX·0.5)·(2·1) = MAX.
    let e = eval(&m, "mul_ord", IEEE, &arr([d::MAX, d::TWO, d::HALF, d::ONE]));
    assert_eq!((e.result_bits(), e.flags), (Some(d::INF), flags(OF_IE)));
    let e = eval(&m, "mul_re", IEEE, &arr([d::MAX, d::TWO, d::HALF, d::ONE]));
    assert_eq!((e.result_bits(), e.flags), (Some(d::MAX), flags(NONE)));
}

const VECTORS: &str = r#"
define void @vdiv2(ptr %out, ptr %a, ptr %b) {
  %x = load <2 x double>, ptr %a
  %y = load <2 x double>, ptr %b
  %r = fdiv <2 x double> %x, %y
  store <2 x double> %r, ptr %out
  ret void
}
define void @vadd4(ptr %out, ptr %a, ptr %b) {
  %x = load <4 x float>, ptr %a
  %y = load <4 x float>, ptr %b
  %r = fadd <4 x float> %x, %y
  store <4 x float> %r, ptr %out
  ret void
}
define double @shuffle(double %a, double %b) {
  %v0 = insertelement <2 x double> poison, double %a, i32 0
  %v1 = insertelement <2 x double> %v0, double %b, i64 1
  %s = shufflevector <2 x double> %v1, <2 x double> <double 10.0, double 20.0>, <4 x i32> <i32 3, i32 0, i32 2, i32 1>
  %d = fsub <4 x double> %s, <double 1.0, double 1.0, double 1.0, double 1.0>
  %e0 = extractelement <4 x double> %d, i32 0
  %e1 = extractelement <4 x double> %d, i64 1
  %e3 = extractelement <4 x double> %d, i32 3
  %t = fmul double %e0, %e1
  %u = fadd double %t, %e3
  ret double %u
}
define void @vselect(ptr %out, ptr %a, ptr %b) {
  %x = load <4 x float>, ptr %a
  %y = load <4 x float>, ptr %b
  %c = fcmp olt <4 x float> %x, %y
  %r = select <4 x i1> %c, <4 x float> %x, <4 x float> %y
  store <4 x float> %r, ptr %out
  ret void
}
define void @vcmp_eq(ptr %out, ptr %a, ptr %b) {
  %x = load <4 x float>, ptr %a
  %y = load <4 x float>, ptr %b
  %c = fcmp oeq <4 x float> %x, %y
  %r = zext <4 x i1> %c to <4 x i32>
  store <4 x i32> %r, ptr %out
  ret void
}
define void @vcvt(ptr %out, ptr %a) {
  %x = load <2 x double>, ptr %a
  %r = fptosi <2 x double> %x to <2 x i32>
  store <2 x i32> %r, ptr %out
  ret void
}
define double @sel_scalar_cond(i1 %c, double %a, double %b) {
  %x = insertelement <2 x double> <double 1.0, double 2.0>, double %a, i32 1
  %y = insertelement <2 x double> <double 3.0, double 4.0>, double %b, i32 0
  %s = select i1 %c, <2 x double> %x, <2 x double> %y
  %e0 = extractelement <2 x double> %s, i32 0
  %e1 = extractelement <2 x double> %s, i32 1
  %r = fsub double %e0, %e1
  ret double %r
}
define double @i1_to_fp(i1 %c) {
  %s = sitofp i1 %c to double
  %u = uitofp i1 %c to double
  %r = fmul double %s, 10.0
  %t = fadd double %r, %u
  ret double %t
}
define double @vneg_bitcast(double %a) {
  %v = bitcast double %a to <2 x float>
  %n = fneg <2 x float> %v
  %r = bitcast <2 x float> %n to double
  ret double %r
}
"#;

#[test]
fn vector_operations_with_per_lane_events() {
    let m = load_ll(VECTORS);
    let arr = |v: &[u64]| ArgBits::Array(v.to_vec());
    let e = eval(
        &m,
        "vdiv2",
        IEEE,
        &[arr(&[0, 0]), arr(&[d::ONE, d::PZ]), arr(&[d::PZ, d::PZ])],
    );
    assert_eq!(e.end, EvalEnd::Returned(None));
    assert_eq!(e.arrays[0], vec![d::INF, d::DNAN]);
    assert_eq!(
        event_list(&m, &e),
        vec![ev(DZK, "fdiv", 0), ev(INVK, "fdiv", 1)]
    );
    assert_eq!(e.flags, flags("invalid,divbyzero"));

    let e = eval(
        &m,
        "vadd4",
        IEEE,
        &[
            arr(&[0; 4]),
            arr(&[f::MAX, f::ONE, f::INF, f::SNAN]),
            arr(&[f::MAX, 0x3380_0000, f::NINF, f::ONE]),
        ],
    );
    assert_eq!(e.arrays[0], vec![f::INF, f::ONE, f::DNAN, f::SNAN_Q]);
    assert_eq!(
        event_list(&m, &e),
        vec![
            ev(OFK, "fadd", 0),
            ev(IEK, "fadd", 0),
            ev(IEK, "fadd", 1),
            ev(INVK, "fadd", 2),
            ev(INVK, "fadd", 3)
        ]
    );

    // s = [20, a, 10, b] - 1 → 19·(a-1) + (b-1) = 42 for a = 3, b = 5.
    assert_eq!(
        eval_scalar(&m, "shuffle", IEEE, &[d::THREE, 0x4014_0000_0000_0000]),
        (0x4045_0000_0000_0000, flags(NONE))
    );

    // Vector compares are cmpps masks: olt signals on the quiet NaN of lane 2.
    let e = eval(
        &m,
        "vselect",
        IEEE,
        &[
            arr(&[0; 4]),
            arr(&[f::ONE, 0x40a0_0000, f::QNAN, f::NZ]),
            arr(&[f::TWO, f::THREE, f::ONE, f::PZ]),
        ],
    );
    assert_eq!(e.arrays[0], vec![f::ONE, f::THREE, f::ONE, f::PZ]);
    assert_eq!(event_list(&m, &e), vec![ev(INVK, "fcmp", 2)]);
    // ... oeq stays quiet on a quiet NaN, signals on a signalling one.
    let e = eval(
        &m,
        "vcmp_eq",
        IEEE,
        &[
            arr(&[9; 4]),
            arr(&[f::ONE, f::QNAN, f::SNAN, f::TWO]),
            arr(&[f::ONE, f::QNAN, f::ONE, f::THREE]),
        ],
    );
    assert_eq!(e.arrays[0], vec![1, 0, 0, 0]);
    assert_eq!(event_list(&m, &e), vec![ev(INVK, "fcmp", 2)]);

    let e = eval(
        &m,
        "vcvt",
        IEEE,
        &[
            arr(&[0, 0]),
            arr(&[0x4202_a05f_2000_0000, 0x3ff8_0000_0000_0000]),
        ],
    );
    assert_eq!(e.arrays[0], vec![0x8000_0000, 1]);
    assert_eq!(
        event_list(&m, &e),
        vec![ev(INVK, "fptosi", 0), ev(IEK, "fptosi", 1)]
    );

    // select on an i1 between whole vectors: [1, a] - or - [b, 4].
    let five = 0x4014_0000_0000_0000;
    assert_eq!(
        eval_scalar(&m, "sel_scalar_cond", IEEE, &[1, five, d::MAX]).0,
        0xc010_0000_0000_0000
    );
    assert_eq!(
        eval_scalar(&m, "sel_scalar_cond", IEEE, &[0, five, d::MAX]),
        (0x7fef_ffff_ffff_ffff, flags(IE))
    );
    // i1 true is -1 signed, 1 unsigned: -1·10 + 1.
    assert_eq!(
        eval_scalar(&m, "i1_to_fp", IEEE, &[1]).0,
        0xc022_0000_0000_0000
    );
    assert_eq!(eval_scalar(&m, "i1_to_fp", IEEE, &[0]).0, d::PZ);
    assert_eq!(
        eval_scalar(&m, "vneg_bitcast", IEEE, &[0x3ff0_0000_4000_0000]),
        (0xbff0_0000_c000_0000, flags(NONE))
    );
}

const CONTROL: &str = r#"
@tab = internal constant [4 x double] [double 1.0, double 2.0, double 4.0, double 8.0]
@counter = internal global i32 0

define double @sum(ptr %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %done
body:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds double, ptr %x, i64 %idx
  %v = load double, ptr %p
  %acc1 = fadd double %acc, %v
  %i1 = add nsw i32 %i, 1
  br label %loop
done:
  ret double %acc
}

; Swaps through phis (both incoming values read before either is assigned).
define i32 @fib(i32 %n) {
entry:
  br label %loop
loop:
  %a = phi i32 [ 0, %entry ], [ %b, %loop ]
  %b = phi i32 [ 1, %entry ], [ %s, %loop ]
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %s = add i32 %a, %b
  %k1 = add i32 %k, 1
  %c = icmp ult i32 %k1, %n
  br i1 %c, label %loop, label %done
done:
  ret i32 %a
}

define i32 @sw(i8 %k) {
entry:
  switch i8 %k, label %def [ i8 -1, label %m1
                             i8 3, label %three ]
m1:
  ret i32 100
three:
  ret i32 300
def:
  ret i32 7
}

define i32 @sdiv(i32 %a, i32 %b) {
  %r = sdiv i32 %a, %b
  ret i32 %r
}
define i32 @urem(i32 %a, i32 %b) {
  %r = urem i32 %a, %b
  ret i32 %r
}

declare i64 @llvm.smax.i64(i64, i64)
declare i64 @llvm.abs.i64(i64, i1)
define i64 @iops(i64 %a, i64 %b) {
  %s = shl i64 %a, 3
  %l = lshr i64 %b, 60
  %r = ashr i64 %b, 60
  %x = xor i64 %s, %l
  %o = or i64 %x, %r
  %n = and i64 %o, 1152921504606846975
  %m = mul i64 %n, %a
  %d = sub i64 %m, %b
  %mx = call i64 @llvm.smax.i64(i64 %d, i64 -5)
  %ab = call i64 @llvm.abs.i64(i64 %b, i1 false)
  %c = icmp ugt i64 %mx, %ab
  %t = trunc i64 %mx to i16
  %z = zext i16 %t to i64
  %q = select i1 %c, i64 %z, i64 %ab
  ret i64 %q
}

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define double @mem(double %a, double %b) {
  %buf = alloca [4 x double], align 16
  %buf2 = alloca [4 x double], align 16
  call void @llvm.memset.p0.i64(ptr %buf, i8 0, i64 32, i1 false)
  %p1 = getelementptr inbounds [4 x double], ptr %buf, i64 0, i64 1
  store double %a, ptr %p1
  %p3 = getelementptr inbounds double, ptr %buf, i64 3
  store double %b, ptr %p3
  call void @llvm.memcpy.p0.p0.i64(ptr %buf2, ptr %buf, i64 32, i1 false)
  %q0 = load double, ptr %buf2
  %q3 = getelementptr inbounds i8, ptr %buf2, i64 24
  %v3 = load double, ptr %q3
  %q1 = getelementptr inbounds double, ptr %q3, i32 -2
  %v1 = load double, ptr %q1
  %s = fadd double %q0, %v1
  %t = fmul double %s, %v3
  ret double %t
}
define double @memset_nan(double %a) {
  %buf = alloca double, align 8
  call void @llvm.memset.p0.i64(ptr %buf, i8 255, i64 8, i1 false)
  %v = load double, ptr %buf
  %r = fadd double %v, %a
  ret double %r
}
define i64 @pun(double %a) {
  %buf = alloca double, align 8
  store double %a, ptr %buf
  %hi_p = getelementptr inbounds i8, ptr %buf, i64 4
  %hi = load i32, ptr %hi_p
  %lo = load i32, ptr %buf
  %all = load i64, ptr %buf
  %h = zext i32 %hi to i64
  %l = zext i32 %lo to i64
  %hs = shl i64 %h, 32
  %j = or i64 %hs, %l
  %eq = icmp eq i64 %j, %all
  %r = select i1 %eq, i64 %h, i64 0
  ret i64 %r
}
define i32 @hiword_memcpy(double %a) {
  %buf = alloca double, align 8
  %w = alloca i32, align 4
  store double %a, ptr %buf
  %src = getelementptr inbounds i8, ptr %buf, i64 4
  call void @llvm.memcpy.p0.p0.i64(ptr %w, ptr %src, i64 4, i1 false)
  %r = load i32, ptr %w
  ret i32 %r
}
"#;

#[test]
fn loops_phis_switch_and_integer_ops() {
    let m = load_ll(CONTROL);
    let e = eval(
        &m,
        "sum",
        IEEE,
        &[
            ArgBits::Array(vec![E16, d::ONE, d::ONE]),
            ArgBits::Scalar(3),
        ],
    );
    // Two ties to even: 1e16 + 1 + 1 stays 1e16, with one inexact event per iteration.
    assert_eq!((e.result_bits(), e.flags), (Some(E16), flags(IE)));
    assert_eq!(
        event_list(&m, &e),
        vec![ev(IEK, "fadd", 0), ev(IEK, "fadd", 0)]
    );
    let e = eval(
        &m,
        "sum",
        IEEE,
        &[
            ArgBits::Array(vec![d::MAX, d::MAX, d::NINF]),
            ArgBits::Scalar(3),
        ],
    );
    assert_eq!(
        (e.result_bits(), e.flags),
        (Some(d::DNAN), flags("invalid,overflow,inexact"))
    );
    assert_eq!(eval_scalar(&m, "fib", IEEE, &[10]), (34, flags(NONE)));
    assert_eq!(eval_scalar(&m, "sw", IEEE, &[0xff]).0, 100);
    assert_eq!(eval_scalar(&m, "sw", IEEE, &[3]).0, 300);
    assert_eq!(eval_scalar(&m, "sw", IEEE, &[4]).0, 7);

    for (f, a, b) in [
        ("sdiv", 7, 0),
        ("urem", 7, 0),
        ("sdiv", 0x8000_0000, 0xffff_ffff),
    ] {
        let e = eval(&m, f, IEEE, &sc(&[a, b]));
        assert!(
            matches!(e.end, EvalEnd::Trapped(_)),
            "{f}({a}, {b}): {:?}",
            e.end
        );
        assert!(e.result_bits().is_none());
    }
    assert_eq!(
        eval_scalar(&m, "sdiv", IEEE, &[0xffff_fff9, 2]).0,
        0xffff_fffd
    );

    let iops = |a: u64, b: u64| -> u64 {
        let s = a << 3;
        let x = s ^ (b >> 60);
        let o = x | ((b as i64) >> 60) as u64;
        let n = o & 0x0fff_ffff_ffff_ffff;
        let dd = n.wrapping_mul(a).wrapping_sub(b);
        let mx = (dd as i64).max(-5) as u64;
        let ab = (b as i64).wrapping_abs() as u64;
        if mx > ab {
            mx & 0xffff
        } else {
            ab
        }
    };
    for (a, b) in [
        (3, 5),
        (0x1234_5678, 0xfedc_ba98_7654_3210),
        (u64::MAX, 1),
        (7, 1 << 63),
    ] {
        assert_eq!(
            eval_scalar(&m, "iops", IEEE, &[a, b]).0,
            iops(a, b),
            "iops({a:#x}, {b:#x})"
        );
    }
}

#[test]
fn memory_operations() {
    let m = load_ll(CONTROL);
    // (0 + 1.5) · 4
    assert_eq!(
        eval_scalar(
            &m,
            "mem",
            IEEE,
            &[0x3ff8_0000_0000_0000, 0x4010_0000_0000_0000]
        ),
        (0x4018_0000_0000_0000, flags(NONE))
    );
    // memset 0xff bytes read as a double: a quiet NaN, propagated without INVALID.
    assert_eq!(
        eval_scalar(&m, "memset_nan", IEEE, &[d::ONE]),
        (u64::MAX, flags(NONE))
    );
    // Type punning through memory: the high half of the double's bits.
    assert_eq!(
        eval_scalar(&m, "pun", IEEE, &[0x4009_21fb_5444_2d18]).0,
        0x4009_21fb
    );
    // memcpy of the high half of a double (the memcpy form of GET_HIGH_WORD).
    assert_eq!(
        eval_scalar(&m, "hiword_memcpy", IEEE, &[0x4009_21fb_5444_2d18]).0,
        0x4009_21fb
    );
}

#[test]
fn calls_globals_and_traps() {
    let m = load_ll(
        r#"
@tab = internal constant [4 x double] [double 1.0, double 2.0, double 4.0, double 8.0]
@counter = internal global i32 0
define internal double @lookup(i32 %i) {
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds [4 x double], ptr @tab, i64 0, i64 %idx
  %v = load double, ptr %p
  ret double %v
}
define double @scaled(i32 %i, double %x) {
  %v = call double @lookup(i32 %i)
  %r = fdiv double %x, %v
  ret double %r
}
define i32 @bump() {
  %c = load i32, ptr @counter
  %c1 = add i32 %c, 1
  store i32 %c1, ptr @counter
  ret i32 %c1
}
define void @write_const() {
  store double 0.0, ptr @tab
  ret void
}
define double @recip_of_div(double %x) {
  %d = call double @scaled(i32 1, double %x)
  %r = fdiv double 1.0, %d
  ret double %r
}
define void @unreach() {
  unreachable
}
define i32 @spin(i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %i1 = add i32 %i, %n
  br label %loop
}
"#,
    );
    assert_eq!(
        eval_scalar(&m, "scaled", IEEE, &[2, d::ONE]),
        (0x3fd0_0000_0000_0000, flags(NONE))
    );
    assert_eq!(
        eval_scalar(&m, "scaled", IEEE, &[1, d::MIN_SUB]),
        (d::PZ, flags(UF_IE))
    );
    // Out of the table: a trap, as the native program's out-of-bounds read would be UB.
    assert!(matches!(
        eval(&m, "scaled", IEEE, &sc(&[4, d::ONE])).end,
        EvalEnd::Trapped(_)
    ));
    assert!(matches!(
        eval(&m, "scaled", IEEE, &sc(&[0xffff_ffff, d::ONE])).end,
        EvalEnd::Trapped(_)
    ));
    // Globals are reset between evaluations.
    let fid = m.find_function("bump").unwrap();
    let mut r = ConcreteRunner::new(&m, fid, IEEE, WalkConfig::default()).unwrap();
    for _ in 0..3 {
        assert_eq!(r.eval(&[]).unwrap().result_bits(), Some(1));
    }
    assert!(matches!(
        eval(&m, "write_const", IEEE, &[]).end,
        EvalEnd::Trapped(_)
    ));
    assert!(matches!(
        eval(&m, "unreach", IEEE, &[]).end,
        EvalEnd::Trapped(_)
    ));
    // Events inside a callee name the callee's operation.
    let e = eval(&m, "recip_of_div", IEEE, &sc(&[d::PZ]));
    assert_eq!(e.result_bits(), Some(d::INF));
    let fdiv_funcs: Vec<String> = e
        .events
        .iter()
        .map(|ev| m.function(m.op(ev.site.op).func).name.clone())
        .collect();
    assert_eq!(fdiv_funcs, vec!["recip_of_div"]);
    assert_eq!(event_list(&m, &e), vec![ev(DZK, "fdiv", 0)]);
    // Step budget.
    let fid = m.find_function("spin").unwrap();
    let mut r = ConcreteRunner::new(
        &m,
        fid,
        IEEE,
        WalkConfig {
            step_budget: 1000,
            ..WalkConfig::default()
        },
    )
    .unwrap();
    assert_eq!(
        r.eval(&sc(&[1])).unwrap().end,
        EvalEnd::Stopped(StopReason::StepBudget { steps: 1000 })
    );
}

#[test]
fn broken_fast_math_assumptions_name_the_first_operation() {
    // %p = a * b may overflow to inf, which `ninf` on the fmul assumes away; a NaN reaching
    // the `nnan` fadd breaks that one; the plain fsub assumes nothing.
    let m = load_ll(
        "define double @g(double %a, double %b) {
  %p = fmul ninf double %a, %b
  %q = fsub double %p, %p
  %r = fadd nnan double %q, 1.0
  ret double %r
}
",
    );
    let g = m.find_function("g").unwrap();
    let mut runner = ConcreteRunner::new(&m, g, IEEE, WalkConfig::default()).unwrap();
    runner.watch_fast_math_assumptions();
    let opcode = |r: &ConcreteRunner, m: &Module| {
        r.broken_assumption()
            .map(|b| (m.op(b.site.op).opcode.clone(), b.flag))
    };
    runner
        .eval(&sc(&[(2.0f64).to_bits(), (3.0f64).to_bits()]))
        .unwrap();
    assert_eq!(opcode(&runner, &m), None);
    // 1e300 * 1e300 = inf: the fmul's ninf is broken first (inf - inf = NaN then meets
    // the fadd's nnan, but only the first break is reported).
    runner
        .eval(&sc(&[(1e300f64).to_bits(), (1e300f64).to_bits()]))
        .unwrap();
    assert_eq!(opcode(&runner, &m), Some(("fmul".to_string(), "ninf")));
    // A NaN operand passes the fmul (no nnan there) and the fsub, and breaks the fadd.
    runner
        .eval(&sc(&[f64::NAN.to_bits(), (1.0f64).to_bits()]))
        .unwrap();
    assert_eq!(opcode(&runner, &m), Some(("fadd".to_string(), "nnan")));
    // Each evaluation starts afresh.
    runner
        .eval(&sc(&[(2.0f64).to_bits(), (3.0f64).to_bits()]))
        .unwrap();
    assert_eq!(opcode(&runner, &m), None);
}

/// Globals whose initializers point at other globals, as GSL's Chebyshev tables do
/// (`static cheb_series aif_cs = { aif_data, 15, -1, 1, 8 };`): the table comes before
/// the arrays it names, one pointer carries a constant offset, one table points at tables.
const GLOBALS_POINTING_AT_GLOBALS: &str = r#"
%series = type { ptr, i32, double }
@by_index = internal constant [2 x ptr] [ptr @first, ptr @second]
@first = internal constant %series { ptr @data, i32 1, double 0.5 }
@second = internal constant %series { ptr getelementptr (i8, ptr @data, i64 16), i32 1, double 0.25 }
@data = internal constant [4 x double] [double 3.0, double 5.0, double 7.0, double 11.0]

; by_index[k]->c[j] * by_index[k]->scale
define double @entry_scaled(i64 %k, i64 %j) {
  %slot = getelementptr inbounds [2 x ptr], ptr @by_index, i64 0, i64 %k
  %s = load ptr, ptr %slot
  %cp = getelementptr inbounds %series, ptr %s, i32 0, i32 0
  %c = load ptr, ptr %cp
  %ep = getelementptr inbounds double, ptr %c, i64 %j
  %e = load double, ptr %ep
  %scp = getelementptr inbounds %series, ptr %s, i32 0, i32 2
  %scale = load double, ptr %scp
  %r = fmul double %e, %scale
  ret double %r
}
"#;

#[test]
fn globals_pointing_at_globals_are_initialised() {
    let m = load_ll(GLOBALS_POINTING_AT_GLOBALS);
    assert!(m.globals.iter().all(|g| g.unmodelled.is_none()));
    let want = [(0, 0, 1.5), (0, 1, 2.5), (1, 0, 1.75), (1, 1, 2.75)];
    for (k, j, v) in want {
        assert_eq!(
            eval_scalar(&m, "entry_scaled", IEEE, &[k, j]),
            (f64::to_bits(v), flags(NONE)),
            "by_index[{k}]->c[{j}]"
        );
    }
}
