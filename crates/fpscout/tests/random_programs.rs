//! Random programs, interpreter against the machine: a generator in the spirit of
//! Csmith/Varity writes small float and double functions (arithmetic, libm calls,
//! min/max, selects, short loops, vectorisable array loops), and both builds of each run
//! on random and boundary inputs in the interpreter and natively, traced. Outcome (result
//! bits, all flags) and exception trace must agree, or the disagreement must fall in a
//! category this test names and checks:
//! - poison under fast-math: P' met a NaN or infinity at an `nnan`/`ninf` operation, where
//!   LLVM lets the machine code compute anything (`ConcreteRunner::broken_assumption`);
//! - lanes the IR leaves undefined: the executable raised flags only in packed
//!   instructions (`…pd`/`…ps`) whose extra lanes the IR never reads;
//! - backend rewrites fpscout reports it could not model: P' functions whose machine code
//!   the MachineCombiner reassociated (or whose min/max it commuted) in a way the IR was
//!   not rewritten to match (`Module::backend_rewrites`, the note `run` and `diff` print).
//!
//! The agreement rate is printed; any other disagreement fails with the program.

mod common;

use common::agreement::{compare_on_inputs, Tally};
use fpscout_search::session::Session;
use fpscout_toolchain::{BuildFlags, BuildKind};
use fpscout_walk::concrete::ArgBits;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;

/// Programs generated, and inputs per program and build.
const PROGRAMS: u64 = 40;
const INPUTS: usize = 400;

/// Programs of a run: `PROGRAMS`, or `FPSCOUT_RANDOM_PROGRAMS` for a longer one by hand.
fn programs(default: u64) -> u64 {
    std::env::var("FPSCOUT_RANDOM_PROGRAMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

#[derive(Clone, Copy, PartialEq)]
enum Ty {
    F32,
    F64,
}

impl Ty {
    fn c(self) -> &'static str {
        match self {
            Ty::F32 => "float",
            Ty::F64 => "double",
        }
    }
    fn suffix(self) -> &'static str {
        match self {
            Ty::F32 => "f",
            Ty::F64 => "",
        }
    }
    fn constant(self, v: &str) -> String {
        match self {
            Ty::F32 => format!("{v}f"),
            Ty::F64 => v.to_string(),
        }
    }
}

/// Writes one random function `rp` of 2 or 3 parameters.
struct Generator {
    rng: ChaCha8Rng,
    ty: Ty,
    vars: Vec<String>,
    body: String,
}

const CONSTANTS: [&str; 8] = ["0.5", "2.0", "3.0", "0.1", "1e-30", "1e30", "1.0", "-4.0"];

impl Generator {
    fn expr(&mut self, depth: u32) -> String {
        let t = self.ty;
        // Mostly variables at the leaves: constants alone would be folded away.
        let pick = if depth == 0 {
            [0, 0, 0, 1][self.rng.gen_range(0..4)]
        } else {
            [0, 1, 2, 3, 4, 5, 6, 7][self.rng.gen_range(0..8)]
        };
        match pick {
            0 => {
                let i = self.rng.gen_range(0..self.vars.len());
                self.vars[i].clone()
            }
            1 => t.constant(CONSTANTS[self.rng.gen_range(0..CONSTANTS.len())]),
            2..=4 => {
                let op = ["+", "-", "*", "/"][self.rng.gen_range(0..4)];
                let (a, b) = (self.expr(depth - 1), self.expr(depth - 1));
                format!("({a} {op} {b})")
            }
            5 => {
                let f = ["sqrt", "exp", "log", "fabs"][self.rng.gen_range(0..4)];
                let a = self.expr(depth - 1);
                format!("{f}{}({a})", t.suffix())
            }
            6 => {
                let f = ["fmin", "fmax"][self.rng.gen_range(0..2)];
                let (a, b) = (self.expr(depth - 1), self.expr(depth - 1));
                format!("{f}{}({a}, {b})", t.suffix())
            }
            _ => {
                let (a, b) = (self.expr(depth - 1), self.expr(depth - 1));
                format!("({a} < {b} ? {a} : {b})")
            }
        }
    }

    fn statement(&mut self, n: usize) {
        let t = self.ty.c();
        let name = format!("t{n}");
        match self.rng.gen_range(0..8) {
            // A short loop carrying a value.
            0 => {
                let init = self.expr(1);
                let _ = writeln!(self.body, "  {t} {name} = {init};");
                self.vars.push(name.clone());
                let op = ["+", "*"][self.rng.gen_range(0..2)];
                let step = self.expr(2);
                let _ = writeln!(
                    self.body,
                    "  for (int i = 0; i < 4; i++) {name} = {name} {op} {step};"
                );
            }
            // A loop over a small array the vectoriser likes.
            1 => {
                let elems: Vec<String> = (0..4).map(|_| self.expr(1)).collect();
                let _ = writeln!(self.body, "  {t} a{n}[4] = {{{}}};", elems.join(", "));
                let _ = writeln!(self.body, "  {t} {name} = {};", self.ty.constant("0.0"));
                let _ = writeln!(
                    self.body,
                    "  for (int i = 0; i < 4; i++) {name} += a{n}[i] * a{n}[i];"
                );
                self.vars.push(name);
            }
            _ => {
                let e = self.expr(3);
                let _ = writeln!(self.body, "  {t} {name} = {e};");
                self.vars.push(name);
            }
        }
    }

    fn program(seed: u64) -> (String, usize, Ty) {
        let mut rng = ChaCha8Rng::seed_from_u64(0xf00d_0000 + seed);
        let ty = if rng.gen_bool(0.5) { Ty::F64 } else { Ty::F32 };
        let params = rng.gen_range(2..=3);
        let names: Vec<String> = ["x", "y", "z"][..params]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut g = Generator {
            rng,
            ty,
            vars: names.clone(),
            body: String::new(),
        };
        let statements = g.rng.gen_range(2..=6);
        for n in 0..statements {
            g.statement(n);
        }
        let last = g.vars[g.vars.len() - 1].clone();
        let other = g.vars[g.vars.len() - 2].clone();
        let t = ty.c();
        let decl: Vec<String> = names.iter().map(|n| format!("{t} {n}")).collect();
        let src = format!(
            "#include <math.h>\n{t} rp({}) {{\n{}  return {last} - {other};\n}}\n",
            decl.join(", "),
            g.body
        );
        (src, params, ty)
    }
}

/// Random bit patterns, random magnitudes, and the boundary values.
fn input(rng: &mut ChaCha8Rng, ty: Ty) -> u64 {
    let special_f64 = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        700.0,
        -700.0,
    ];
    let v: f64 = match rng.gen_range(0..4) {
        0 => special_f64[rng.gen_range(0..special_f64.len())],
        1 => {
            return match ty {
                Ty::F64 => rng.gen::<u64>(),
                Ty::F32 => u64::from(rng.gen::<u32>()),
            }
        }
        2 => {
            let e = match ty {
                Ty::F64 => rng.gen_range(-1074.0..1024.0),
                Ty::F32 => rng.gen_range(-149.0..128.0),
            };
            let s = if rng.gen_bool(0.5) { -1.0 } else { 1.0 };
            s * 2f64.powf(e)
        }
        _ => rng.gen_range(-10.0..10.0),
    };
    match ty {
        Ty::F64 => v.to_bits(),
        Ty::F32 => u64::from((v as f32).to_bits()),
    }
}

fn check_program(seed: u64, flags: &BuildFlags, builds: &[BuildKind], tally: &mut Tally) {
    let (src, params, ty) = Generator::program(seed);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(format!("rp{seed}.c"));
    std::fs::write(&path, &src).expect("write program");
    let session = match Session::open(&path, flags.clone()) {
        Ok(s) => s,
        Err(e) => {
            tally
                .failures
                .push(format!("program {seed} does not build: {e}\n{src}"));
            return;
        }
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let inputs: Vec<Vec<ArgBits>> = (0..INPUTS)
        .map(|_| {
            (0..params)
                .map(|_| ArgBits::Scalar(input(&mut rng, ty)))
                .collect()
        })
        .collect();
    for &build in builds {
        let what = format!("program {seed}");
        compare_on_inputs(&session, build, "rp", &inputs, &what, &src, tally);
    }
}

#[test]
fn random_programs_agree_with_their_executables() {
    check_programs(programs(PROGRAMS), &BuildFlags::default(), &BuildKind::BOTH);
}

/// With hardware FMA the backend fuses `contract` multiplies into their one add or
/// subtract (`-ffp-contract=fast`, part of `-ffast-math`): the interpreter must fuse
/// exactly the same ones.
#[test]
fn random_programs_with_fused_multiply_adds_agree_with_their_executables() {
    if !std::arch::is_x86_feature_detected!("fma") {
        eprintln!("skipped: this CPU has no FMA, so no executable fuses");
        return;
    }
    let flags = BuildFlags::with_p_prime("-O3 -ffast-math -mfma");
    check_programs(programs(PROGRAMS), &flags, &[BuildKind::PPrime]);
}

fn check_programs(programs: u64, flags: &BuildFlags, builds: &[BuildKind]) {
    let mut tally = Tally::default();
    let next = std::sync::atomic::AtomicU64::new(0);
    let tallies = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let mut mine = Tally::default();
                loop {
                    let seed = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    if seed >= programs {
                        break;
                    }
                    check_program(seed, flags, builds, &mut mine);
                }
                tallies.lock().unwrap().push(mine);
            });
        }
    });
    for t in tallies.into_inner().unwrap() {
        tally.add(t);
    }
    println!("{programs} random programs, {}", tally.summary());
    assert!(tally.compared >= (programs as usize) * INPUTS * builds.len() * 9 / 10);
    let shown: Vec<&String> = tally.failures.iter().filter(|f| f.contains('\n')).collect();
    let mut by_program = std::collections::BTreeMap::<&str, usize>::new();
    for f in &tally.failures {
        let program = f.split(" [").next().unwrap_or_default();
        *by_program.entry(program).or_default() += 1;
    }
    assert!(
        tally.failures.is_empty(),
        "{} unexplained disagreements ({by_program:?}); first:\n{}",
        tally.failures.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

#[test]
#[ignore = "prints a generated program"]
fn print_program() {
    let seed = std::env::var("SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    println!("{}", Generator::program(seed).0);
}
