//! Profiling aid: evaluates one function many times in-process (no native runs).
use fpscout::session::{FtzDazChoice, Session};
use fpscout_toolchain::{BuildFlags, BuildKind};
use fpscout_walk::concrete::{ArgBits, ConcreteRunner};
use fpscout_walk::WalkConfig;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(file), Some(func)) = (args.next(), args.next()) else {
        eprintln!("usage: eval_loop FILE FUNCTION [p|pprime] [count]");
        std::process::exit(2);
    };
    let build = if args.next().as_deref() == Some("pprime") { BuildKind::PPrime } else { BuildKind::P };
    let count: usize = args.next().and_then(|c| c.parse().ok()).unwrap_or(200_000);
    let session = Session::open(std::path::Path::new(&file), BuildFlags::default()).expect("session");
    let m = session.module(build);
    let fid = session.function(build, &func).expect("function");
    let f = m.function(fid);
    let input: Vec<ArgBits> = f.params.iter().map(|_| ArgBits::Scalar(1.5f64.to_bits())).collect();
    let inputs = vec![input; 256];
    let mut runner = ConcreteRunner::new(m, fid, session.fp_mode(build, FtzDazChoice::Auto), WalkConfig::default()).expect("runner");
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
