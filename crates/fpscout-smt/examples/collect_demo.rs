//! Prints the exception conditions of both builds of a C function and their verdicts.
use fpscout_ir::{FloatTy, ScalarTy, Type};
use fpscout_smt::*;
use fpscout_toolchain::{BuildFlags, BuildKind, Toolchain};

fn main() {
    let mut a = std::env::args().skip(1);
    let (file, func) = (a.next().expect("file"), a.next().expect("function"));
    let tc = Toolchain::discover().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    let mut constraints = Vec::new();
    let mut names = Vec::new();
    for (b, prefix) in [(BuildKind::P, "p."), (BuildKind::PPrime, "q.")] {
        let m = fpscout_llvm::load_build(&tc, file.as_ref(), b, &BuildFlags::default(), dir.path())
            .unwrap();
        let fid = m.find_function(&func).unwrap();
        let f = m.function(fid);
        let specs: Vec<ParamSpec> = f
            .params
            .iter()
            .map(|p| match p.ty {
                Type::Scalar(ScalarTy::Float(ty)) => ParamSpec::Float {
                    name: p.name.clone(),
                    ty,
                    range: None,
                },
                _ => ParamSpec::Int { bits: 9 },
            })
            .collect();
        names = specs
            .iter()
            .flat_map(|s| s.inputs())
            .map(|(n, _)| n)
            .collect();
        let t = std::time::Instant::now();
        let c = collect(&m, fid, &specs, prefix, CollectOptions::default()).unwrap();
        println!(
            "{b}: {} conditions, {} paths, stopped {:?}, {:?}",
            c.queries.len(),
            c.paths,
            c.stopped,
            t.elapsed()
        );
        constraints = c.constraints.clone();
        all.extend(c.queries);
    }
    let refs: Vec<&Query> = all.iter().collect();
    let uniq = dedupe(&refs);
    let scripts: Vec<z3::ast::Bool> = uniq
        .iter()
        .map(|&i| plain_query(&constraints, &all[i]))
        .collect();
    let t = std::time::Instant::now();
    let verdicts = solve_all(&scripts, &names, 2000, 2, None);
    let sat = verdicts
        .iter()
        .filter(|v| matches!(v, Verdict::Sat(_)))
        .count();
    let unknown = verdicts
        .iter()
        .filter(|v| matches!(v, Verdict::Unknown(_)))
        .count();
    println!(
        "{} unique, {sat} sat, {unknown} unknown, solved in {:?}",
        uniq.len(),
        t.elapsed()
    );
    for (&i, v) in uniq.iter().zip(&verdicts) {
        if let Verdict::Sat(vals) = v {
            let fl: Vec<f64> = vals
                .iter()
                .map(|q| f64::from_bits(fpscout_smt::numeral::round_to_float(q, FloatTy::F64)))
                .collect();
            println!("  op#{} {:?}: {:?}", all[i].op.0, all[i].kind, fl);
        }
    }
}
