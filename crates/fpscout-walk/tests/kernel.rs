//! Native kernels against the interpreter: every construct a kernel compiles, on specials and random bits, in every FTZ/DAZ mode.
//!
//! A runner with a kernel must give exactly the evaluation (result, events, flags with
//! inexact, choice points, stop) the interpreter gives, and the kernel must really have
//! answered a good share of them; what kernels refuse is checked too.

mod common;

use common::{load_ll, DAZ, FTZ, FTZ_DAZ};
use fpscout_ir::{ExceptionKind, FuncId, Module, ScalarTy, Type};
use fpscout_walk::concrete::{ArgBits, ConcreteRunner, FpMode};
use fpscout_walk::WalkConfig;

const PREDICATES: [&str; 14] = [
    "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une",
    "uno",
];

/// One function per construct kernels compile (fpscout-llvm `kernel.rs`).
fn constructs_ll() -> String {
    let mut ll = String::new();
    for (t, s) in [("double", "d"), ("float", "f")] {
        for op in ["fadd", "fsub", "fmul", "fdiv"] {
            ll += &format!(
                "define {t} @{op}_{s}({t} %a, {t} %b) {{\n  %r = {op} {t} %a, %b\n  ret {t} %r\n}}\n"
            );
        }
        let m = if s == "d" { "f64" } else { "f32" };
        ll += &format!(
            "define {t} @sqrt_{s}({t} %a) {{\n  %r = call {t} @llvm.sqrt.{m}({t} %a)\n  ret {t} %r\n}}\n\
             define {t} @signs_{s}({t} %a, {t} %b) {{\n  %n = fneg {t} %a\n  %f = call {t} @llvm.fabs.{m}({t} %n)\n  %c = call {t} @llvm.copysign.{m}({t} %f, {t} %b)\n  %r = fmul {t} %c, %a\n  ret {t} %r\n}}\n\
             define {t} @minnum_{s}({t} %a, {t} %b) {{\n  %r = call {t} @llvm.minnum.{m}({t} %a, {t} %b)\n  ret {t} %r\n}}\n\
             define {t} @maxnum_{s}({t} %a, {t} %b) {{\n  %r = call {t} @llvm.maxnum.{m}({t} %a, {t} %b)\n  ret {t} %r\n}}\n\
             define {t} @minsse_{s}({t} %a, {t} %b) {{\n  %r = call nnan nsz {t} @llvm.minnum.{m}({t} %a, {t} %b)\n  ret {t} %r\n}}\n\
             define {t} @maxsse_{s}({t} %a, {t} %b) {{\n  %r = call nnan nsz {t} @llvm.maxnum.{m}({t} %a, {t} %b)\n  ret {t} %r\n}}\n\
             define {t} @muladd_{s}({t} %a, {t} %b, {t} %c) {{\n  %r = call {t} @llvm.fmuladd.{m}({t} %a, {t} %b, {t} %c)\n  ret {t} %r\n}}\n\
             declare {t} @llvm.sqrt.{m}({t})\ndeclare {t} @llvm.fabs.{m}({t})\ndeclare {t} @llvm.copysign.{m}({t}, {t})\n\
             declare {t} @llvm.minnum.{m}({t}, {t})\ndeclare {t} @llvm.maxnum.{m}({t}, {t})\ndeclare {t} @llvm.fmuladd.{m}({t}, {t}, {t})\n"
        );
    }
    for p in PREDICATES {
        // A select's compare is a mask compare, a branch's a quiet one.
        ll += &format!(
            "define double @sel_{p}(double %a, double %b) {{\n  %c = fcmp {p} double %a, %b\n  %r = select i1 %c, double %a, double %b\n  ret double %r\n}}\n\
             define i32 @br_{p}(float %a, float %b) {{\n  %c = fcmp {p} float %a, %b\n  br i1 %c, label %t, label %f\nt:\n  ret i32 1\nf:\n  ret i32 0\n}}\n"
        );
    }
    for (w, t) in [(8, "i8"), (32, "i32"), (64, "i64")] {
        ll += &format!(
            "define {t} @ints{w}({t} %a, {t} %b) {{\n  %1 = add {t} %a, %b\n  %2 = mul {t} %1, %a\n  %3 = sub {t} %2, %b\n  %4 = xor {t} %3, %a\n  %5 = and {t} %4, %b\n  %6 = or {t} %5, %1\n\
             %7 = shl {t} %6, %b\n  %8 = lshr {t} %7, %a\n  %9 = ashr {t} %6, %b\n  %10 = add {t} %8, %9\n\
             %11 = call {t} @llvm.smax.{t}({t} %10, {t} %a)\n  %12 = call {t} @llvm.umin.{t}({t} %11, {t} %b)\n  %13 = call {t} @llvm.smin.{t}({t} %12, {t} %3)\n  %14 = call {t} @llvm.umax.{t}({t} %13, {t} %4)\n\
             %15 = call {t} @llvm.abs.{t}({t} %14, i1 false)\n  %16 = icmp slt {t} %15, %a\n  %17 = select i1 %16, {t} %15, {t} %7\n  ret {t} %17\n}}\n\
             declare {t} @llvm.smax.{t}({t}, {t})\ndeclare {t} @llvm.smin.{t}({t}, {t})\ndeclare {t} @llvm.umax.{t}({t}, {t})\ndeclare {t} @llvm.umin.{t}({t}, {t})\ndeclare {t} @llvm.abs.{t}({t}, i1)\n"
        );
    }
    ll += r#"
define i8 @fptosi8(double %a) {
  %r = fptosi double %a to i8
  ret i8 %r
}
define i32 @fptosi32(double %a) {
  %r = fptosi double %a to i32
  ret i32 %r
}
define i64 @fptosi64(float %a) {
  %r = fptosi float %a to i64
  ret i64 %r
}
define i16 @fptoui16(double %a) {
  %r = fptoui double %a to i16
  ret i16 %r
}
define i32 @fptoui32(float %a) {
  %r = fptoui float %a to i32
  ret i32 %r
}
define double @sitofp8(i8 %a) {
  %r = sitofp i8 %a to double
  ret double %r
}
define float @sitofp32(i32 %a) {
  %r = sitofp i32 %a to float
  ret float %r
}
define double @sitofp64(i64 %a) {
  %r = sitofp i64 %a to double
  ret double %r
}
define float @sitofp64f(i64 %a) {
  %r = sitofp i64 %a to float
  ret float %r
}
define float @uitofp16(i16 %a) {
  %r = uitofp i16 %a to float
  ret float %r
}
define double @uitofp32(i32 %a) {
  %r = uitofp i32 %a to double
  ret double %r
}
define float @uitofp32f(i32 %a) {
  %r = uitofp i32 %a to float
  ret float %r
}
define float @ext_trunc(float %a, double %b) {
  %e = fpext float %a to double
  %s = fadd double %e, %b
  %t = fptrunc double %s to float
  %u = fmul float %t, %a
  ret float %u
}
define i64 @bits(double %a, float %b) {
  %x = bitcast double %a to i64
  %y = bitcast float %b to i32
  %z = zext i32 %y to i64
  %w = xor i64 %x, %z
  %v = trunc i64 %w to i16
  %u = sext i16 %v to i64
  %r = add i64 %u, %w
  ret i64 %r
}
define double @vec2(double %a, double %b) {
  %v0 = insertelement <2 x double> poison, double %a, i32 0
  %v1 = insertelement <2 x double> %v0, double %b, i32 1
  %m = fmul <2 x double> %v1, <double 3.0, double 0x3FB999999999999A>
  %s = shufflevector <2 x double> %m, <2 x double> %v1, <2 x i32> <i32 3, i32 0>
  %d = fdiv <2 x double> %s, %m
  %c = fcmp olt <2 x double> %d, %v1
  %sel = select <2 x i1> %c, <2 x double> %d, <2 x double> %m
  %x = extractelement <2 x double> %sel, i32 0
  %y = extractelement <2 x double> %sel, i32 1
  %r = fsub double %x, %y
  ret double %r
}
define float @vec4(float %a, float %b) {
  %v0 = insertelement <4 x float> poison, float %a, i32 0
  %v1 = insertelement <4 x float> %v0, float %b, i32 1
  %w = shufflevector <4 x float> %v1, <4 x float> poison, <4 x i32> <i32 1, i32 0, i32 poison, i32 1>
  %p = fadd <4 x float> %w, <float 1.0, float 2.0, float 1.0, float 0x3810000000000000>
  %i = fptosi <4 x float> %p to <4 x i32>
  %f = sitofp <4 x i32> %i to <4 x float>
  %q = fsub <4 x float> %p, %f
  %x = extractelement <4 x float> %q, i32 0
  %y = extractelement <4 x float> %q, i32 3
  %z = extractelement <4 x float> %q, i32 2
  %s = fadd float %x, %y
  %r = fadd float %s, %z
  ret float %r
}
define double @loop(double %x, i32 %n) {
entry:
  %count = and i32 %n, 15
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %next, %body ]
  %acc = phi double [ 1.0, %entry ], [ %acc2, %body ]
  %done = icmp sge i32 %i, %count
  br i1 %done, label %exit, label %body
body:
  %t = fmul double %acc, %x
  %acc2 = fadd double %t, 0x3FD5555555555555
  %next = add i32 %i, 1
  br label %head
exit:
  ret double %acc
}
define double @switch(i32 %k, double %x) {
entry:
  %sel = and i32 %k, 7
  switch i32 %sel, label %other [ i32 0, label %a
                                  i32 1, label %b
                                  i32 5, label %a ]
a:
  %ya = fmul double %x, 1.5
  br label %join
b:
  %yb = fdiv double 1.0, %x
  br label %join
other:
  br label %join
join:
  %r = phi double [ %ya, %a ], [ %yb, %b ], [ %x, %other ]
  ret double %r
}
define double @dead_end(double %x) {
  %big = fcmp ogt double %x, 1.0e300
  br i1 %big, label %trap, label %ok
trap:
  unreachable
ok:
  %r = fadd double %x, 1.0
  ret double %r
}
define void @no_result(double %x) {
  %r = fdiv double 1.0, %x
  ret void
}
define i1 @bool_ops(i1 %p, double %x) {
  %f = sitofp i1 %p to double
  %c = fcmp ueq double %f, %x
  %r = xor i1 %c, %p
  ret i1 %r
}
"#;
    ll
}

/// A small deterministic generator (xorshift64*), enough for test inputs.
struct Bits(u64);

impl Bits {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

const F64_SPECIALS: [f64; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    3.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MAX,
    f64::MIN_POSITIVE,
    4.9e-324,
    f64::from_bits(0x000f_ffff_ffff_ffff),
    1e300,
    -1e-310,
    255.5,
];

/// An argument for a parameter of type `ty`: specials, moderate magnitudes (the kernel's
/// usual case) and raw bit patterns.
fn arg(ty: ScalarTy, rng: &mut Bits) -> u64 {
    let r = rng.next();
    match ty {
        ScalarTy::Float(f) => {
            let v = match r % 5 {
                0 => F64_SPECIALS[(r >> 8) as usize % F64_SPECIALS.len()],
                // Small dyadic numbers: operations on them are often exact.
                3 => ((r >> 8) % 161) as f64 / 8.0 - 10.0,
                1 | 2 => {
                    let m = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
                    let e = (rng.next() % 80) as i32 - 40;
                    let s = if rng.next() & 1 == 0 { 1.0 } else { -1.0 };
                    s * (1.0 + m) * 2f64.powi(e)
                }
                _ => {
                    return match f {
                        fpscout_ir::FloatTy::F64 => rng.next(),
                        fpscout_ir::FloatTy::F32 => rng.next() & 0xffff_ffff,
                    }
                }
            };
            match f {
                fpscout_ir::FloatTy::F64 => v.to_bits(),
                fpscout_ir::FloatTy::F32 => u64::from((v as f32).to_bits()),
            }
        }
        ScalarTy::Int(w) => {
            let v = match r % 3 {
                0 => [
                    0u64,
                    1,
                    u64::MAX,
                    7,
                    8,
                    31,
                    32,
                    33,
                    63,
                    64,
                    1 << (w - 1),
                    (1 << (w - 1)) - 1,
                ][(r >> 8) as usize % 12],
                1 => rng.next() % 300,
                _ => rng.next(),
            };
            fpscout_ir::truncate_bits(v, w)
        }
        ScalarTy::Ptr => 0,
    }
}

/// What the kernel answered in [`compare`]: evaluations in all, and those its counting
/// variant answered, split by whether some operation was inexact.
#[derive(Default, Debug)]
struct Answered {
    all: u64,
    counted_inexact: u64,
    counted_exact: u64,
}

/// Evaluates `count` inputs of `func` with and without its kernel, asserting every
/// evaluation is identical; says what the kernel answered.
fn compare(
    m: &Module,
    fid: FuncId,
    mode: FpMode,
    config: WalkConfig,
    count: usize,
    seed: u64,
) -> Answered {
    let f = m.function(fid);
    let kernel = fpscout_llvm::native_kernel(m, fid).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    let mut plain = ConcreteRunner::new(m, fid, mode, config).expect("runner");
    let mut fast = ConcreteRunner::new(m, fid, mode, config).expect("runner");
    fast.set_native_kernel(kernel);
    assert!(
        fast.has_native_kernel(),
        "{}: runner dropped the kernel",
        f.name
    );
    let tys: Vec<ScalarTy> = f
        .params
        .iter()
        .map(|p| match p.ty {
            Type::Scalar(s) => s,
            other => panic!("{}: parameter type {other}", f.name),
        })
        .collect();
    let mut rng = Bits(seed | 1);
    let mut answered = Answered::default();
    for _ in 0..count {
        let args: Vec<ArgBits> = tys
            .iter()
            .map(|&t| ArgBits::Scalar(arg(t, &mut rng)))
            .collect();
        let want = plain.eval(&args);
        let counted_before = fast.native_kernel_counted_runs();
        let got = fast.eval(&args);
        assert_eq!(
            format!("{got:?}"),
            format!("{want:?}"),
            "{} in {mode:?} on {args:x?}",
            f.name
        );
        if fast.native_kernel_counted_runs() > counted_before {
            match want.map(|e| e.flags.contains(ExceptionKind::Inexact)) {
                Ok(true) => answered.counted_inexact += 1,
                _ => answered.counted_exact += 1,
            }
        }
    }
    answered.all = fast.native_kernel_runs();
    answered
}

#[test]
fn kernels_agree_with_the_interpreter_on_every_construct() {
    let m = load_ll(&constructs_ll());
    let count = 1500;
    let mut idle = Vec::new();
    let mut uncounted = Vec::new();
    let mut rounding = Vec::new();
    let mut one_sided = Vec::new();
    for (i, f) in m.functions.iter().enumerate() {
        let fid = FuncId(i as u32);
        let mut all = 0;
        let (mut inexact, mut exact) = (0, 0);
        for (k, mode) in [FpMode::IEEE, FTZ, DAZ, FTZ_DAZ].into_iter().enumerate() {
            let a = compare(
                &m,
                fid,
                mode,
                WalkConfig::default(),
                count,
                0x9e37 + (i * 4 + k) as u64,
            );
            all += a.all;
            if mode == DAZ {
                // An exact subnormal would read as zero in the count's own arithmetic.
                assert_eq!(
                    a.counted_inexact + a.counted_exact,
                    0,
                    "{}: counted under DAZ alone",
                    f.name
                );
            }
            inexact += a.counted_inexact;
            exact += a.counted_exact;
        }
        if inexact > 0 {
            rounding.push(f.name.clone());
            // Inputs that round nowhere are common too (small dyadic numbers, specials),
            // except where constants like 0.1 round on every input.
            if exact == 0 && !f.name.starts_with("vec") {
                one_sided.push(f.name.clone());
            }
        }
        // Random inputs leave most evaluations without an event (the kernel's case).
        if all < (4 * count / 20) as u64 {
            idle.push(format!("{} ({all} of {})", f.name, 4 * count));
        }
        if inexact + exact < (3 * count / 20) as u64 {
            uncounted.push(format!("{} ({} of {})", f.name, inexact + exact, 3 * count));
        }
    }
    assert!(
        idle.is_empty(),
        "kernels answered too few evaluations: {idle:?}"
    );
    assert!(
        uncounted.is_empty(),
        "counting kernels answered too few evaluations: {uncounted:?}"
    );
    // Every construct that can round was seen rounding in a counted evaluation, and
    // not rounding too: both answers of the count were checked.
    let expected_rounding = [
        "fadd_d",
        "fsub_d",
        "fmul_d",
        "fdiv_d",
        "sqrt_d",
        "signs_d",
        "muladd_d",
        "fadd_f",
        "fsub_f",
        "fmul_f",
        "fdiv_f",
        "sqrt_f",
        "signs_f",
        "muladd_f",
        "fptosi8",
        "fptosi32",
        "fptosi64",
        "fptoui16",
        "fptoui32",
        "sitofp32",
        "sitofp64",
        "sitofp64f",
        "uitofp32f",
        "ext_trunc",
        "vec2",
        "vec4",
        "loop",
        "switch",
        "dead_end",
        "no_result",
    ];
    assert_eq!(rounding, expected_rounding);
    assert!(
        one_sided.is_empty(),
        "never exact when counted: {one_sided:?}"
    );
}

#[test]
fn kernels_hand_exhausted_budgets_and_unreachable_to_the_interpreter() {
    let m = load_ll(&constructs_ll());
    let lp = m.find_function("loop").expect("loop");
    // 2 + 4 per iteration steps: budgets below that stop the loop early.
    for budget in [1, 5, 20, 40, 70] {
        let config = WalkConfig {
            step_budget: budget,
            ..WalkConfig::default()
        };
        compare(&m, lp, FpMode::IEEE, config, 300, budget);
    }
    let dead = m.find_function("dead_end").expect("dead_end");
    let mut fast =
        ConcreteRunner::new(&m, dead, FpMode::IEEE, WalkConfig::default()).expect("runner");
    fast.set_native_kernel(fpscout_llvm::native_kernel(&m, dead).expect("kernel"));
    let e = fast.eval(&[ArgBits::Scalar(1e301f64.to_bits())]);
    assert!(
        format!("{e:?}").contains("nreachable"),
        "unreachable must be reported by the interpreter: {e:?}"
    );
    assert_eq!(fast.native_kernel_runs(), 0);
    let ok = fast
        .eval(&[ArgBits::Scalar(2.0f64.to_bits())])
        .expect("eval");
    assert_eq!(ok.result_bits(), Some(3.0f64.to_bits()));
    assert_eq!(fast.native_kernel_runs(), 1);
}

#[test]
fn kernels_refuse_what_they_cannot_compute_exactly() {
    let m = load_ll(
        r#"
define double @rem(double %a, double %b) {
  %r = frem double %a, %b
  ret double %r
}
define double @libm(double %a) {
  %r = call double @exp(double %a)
  ret double %r
}
define double @memory(ptr %p) {
  %r = load double, ptr %p
  ret double %r
}
define double @nan_constant(double %a) {
  %r = fadd double %a, 0x7FF8000000000000
  ret double %r
}
define i32 @division(i32 %a, i32 %b) {
  %r = sdiv i32 %a, %b
  ret i32 %r
}
define double @unsigned64(i64 %a) {
  %r = uitofp i64 %a to double
  ret double %r
}
define i64 @to_unsigned64(double %a) {
  %r = fptoui double %a to i64
  ret i64 %r
}
define double @from_bits(i64 %a) {
  %r = bitcast i64 %a to double
  ret double %r
}
define double @rounding(double %a) {
  %r = call double @llvm.floor.f64(double %a)
  ret double %r
}
declare double @exp(double)
declare double @llvm.floor.f64(double)
"#,
    );
    let expect = [
        ("rem", "frem"),
        ("libm", "libm call exp"),
        ("memory", "parameter"),
        ("nan_constant", "NaN constant"),
        ("division", "integer division"),
        ("unsigned64", "UIToFP"),
        ("to_unsigned64", "FPToUI"),
        ("from_bits", "BitCast"),
        ("rounding", "Floor"),
    ];
    for (name, why) in expect {
        let fid = m.find_function(name).expect(name);
        match fpscout_llvm::native_kernel(&m, fid) {
            Ok(_) => panic!("{name} got a kernel"),
            Err(e) => assert!(e.to_string().contains(why), "{name}: {e}"),
        }
    }
}
