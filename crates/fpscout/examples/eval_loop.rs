//! Profiling aid: evaluates one function many times in-process (no native runs).
use fpscout::session::{FtzDazChoice, Session};
use fpscout_ir::{FloatTy, ScalarTy, Type};
use fpscout_toolchain::{BuildFlags, BuildKind};
use fpscout_walk::concrete::{ArgBits, ConcreteRunner};
use fpscout_walk::WalkConfig;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(file), Some(func)) = (args.next(), args.next()) else {
        eprintln!("usage: eval_loop FILE FUNCTION [p|pprime] [count]");
        std::process::exit(2);
    };
    let build = if args.next().as_deref() == Some("pprime") {
        BuildKind::PPrime
    } else {
        BuildKind::P
    };
    let count: usize = args.next().and_then(|c| c.parse().ok()).unwrap_or(200_000);
    let session =
        Session::open(std::path::Path::new(&file), BuildFlags::default()).expect("session");
    let m = session.module(build);
    let fid = session.function(build, &func).expect("function");
    let f = m.function(fid);
    // Floats 1.5, arrays of 16 elements, integers 16 next to arrays (the `(x, n)` shape).
    let has_array = f.params.iter().any(|p| p.ty == Type::PTR);
    let float_bits = |t: Option<ScalarTy>| match t {
        Some(ScalarTy::Float(FloatTy::F32)) => u64::from(1.5f32.to_bits()),
        Some(ScalarTy::Int(_)) => 3,
        _ => 1.5f64.to_bits(),
    };
    let input: Vec<ArgBits> = f
        .params
        .iter()
        .map(|p| match p.ty {
            Type::Scalar(ScalarTy::Ptr) => ArgBits::Array(vec![float_bits(p.pointee); 16]),
            Type::Scalar(ScalarTy::Int(_)) => ArgBits::Scalar(if has_array { 16 } else { 3 }),
            Type::Scalar(s) => ArgBits::Scalar(float_bits(Some(s))),
            _ => ArgBits::Scalar(0),
        })
        .collect();
    let inputs = vec![input; 256];
    let mut runner = ConcreteRunner::new(
        m,
        fid,
        session.fp_mode(build, FtzDazChoice::Auto),
        WalkConfig::default(),
    )
    .expect("runner");
    let t = std::time::Instant::now();
    let mut n = 0;
    while n < count {
        for r in runner.eval_batch(&inputs) {
            r.expect("eval");
        }
        n += inputs.len();
    }
    println!("{:.1} ns/eval", t.elapsed().as_nanos() as f64 / n as f64);
}
