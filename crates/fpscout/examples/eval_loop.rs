//! Profiling aid: evaluates one function many times in-process (no native runs).
use fpscout_ir::{FloatTy, ScalarTy, Type};
use fpscout_search::concrete::concrete_runner;
use fpscout_search::session::{FtzDazChoice, Session};
use fpscout_toolchain::{BuildFlags, BuildKind};
use fpscout_walk::concrete::ArgBits;
use fpscout_walk::WalkConfig;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(file), Some(func)) = (args.next(), args.next()) else {
        eprintln!("usage: eval_loop FILE FUNCTION [p|pprime] [count] [no-inexact]");
        std::process::exit(2);
    };
    let build = if args.next().as_deref() == Some("pprime") {
        BuildKind::PPrime
    } else {
        BuildKind::P
    };
    let count: usize = args.next().and_then(|c| c.parse().ok()).unwrap_or(200_000);
    let no_inexact = args.next().as_deref() == Some("no-inexact");
    let session =
        Session::open(std::path::Path::new(&file), BuildFlags::default()).expect("session");
    let m = session
        .module(build)
        .expect("the session compiled both builds");
    let fid = session.function(build, &func).expect("function");
    let f = m.function(fid);
    // Floats 1.5, 1.87, 2.24, ... (rounding like the benchmark's random inputs), arrays of
    // 16 elements, integers 16 next to arrays (the `(x, n)` shape).
    let has_array = f.params.iter().any(|p| p.ty == Type::PTR);
    let float_bits = |t: Option<ScalarTy>, k: usize| {
        let v = 1.5 + 0.37 * k as f64;
        match t {
            Some(ScalarTy::Float(FloatTy::F32)) => u64::from((v as f32).to_bits()),
            Some(ScalarTy::Int(_)) => 3,
            _ => v.to_bits(),
        }
    };
    let inputs: Vec<Vec<ArgBits>> = (0..256)
        .map(|k| {
            f.params
                .iter()
                .enumerate()
                .map(|(i, p)| match p.ty {
                    Type::Scalar(ScalarTy::Ptr) => {
                        ArgBits::Array((0..16).map(|j| float_bits(p.pointee, k + j)).collect())
                    }
                    Type::Scalar(ScalarTy::Int(_)) => {
                        ArgBits::Scalar(if has_array { 16 } else { 3 })
                    }
                    Type::Scalar(s) => ArgBits::Scalar(float_bits(Some(s), k + 7 * i)),
                    _ => ArgBits::Scalar(0),
                })
                .collect()
        })
        .collect();
    let mut runner = concrete_runner(
        m,
        fid,
        session.fp_mode(build, FtzDazChoice::Auto),
        WalkConfig::default(),
    )
    .expect("runner");
    runner.track_inexact(!no_inexact);
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
