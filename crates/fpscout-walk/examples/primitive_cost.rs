//! Measures the cost of one SSE primitive in each environment (ns per operation).
use fpscout_walk::concrete::x86::*;
use std::time::Instant;

fn main() {
    let n = 20_000_000u64;
    let mut x = 1.000001f64;
    let t = Instant::now();
    for _ in 0..n {
        x = std::hint::black_box(addsd(x, 1e-300, Env::Isolated(MXCSR_DEFAULT)).0);
    }
    println!(
        "isolated addsd: {:.2} ns",
        t.elapsed().as_nanos() as f64 / n as f64
    );
    ldmxcsr(MXCSR_DEFAULT);
    let t = Instant::now();
    for _ in 0..n {
        x = std::hint::black_box(addsd(x, 1e-300, Env::Active).0);
    }
    println!(
        "active addsd: {:.2} ns",
        t.elapsed().as_nanos() as f64 / n as f64
    );
    let t = Instant::now();
    for _ in 0..n {
        x = std::hint::black_box(x + 1e-300);
    }
    println!(
        "plain add: {:.2} ns ({x})",
        t.elapsed().as_nanos() as f64 / n as f64
    );
    let t = Instant::now();
    for _ in 0..n {
        ldmxcsr(MXCSR_DEFAULT);
    }
    println!(
        "ldmxcsr: {:.2} ns",
        t.elapsed().as_nanos() as f64 / n as f64
    );
}
