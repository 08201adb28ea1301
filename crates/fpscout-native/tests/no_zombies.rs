//! Checks that crashed, hung and finished drivers are all reaped (a lone test: no races).

use fpscout_ir::Type;
use fpscout_native::{
    NativeArg, NativeArgKind, NativeBuild, NativeOutcome, NativeSignature, RunOptions,
};
use fpscout_toolchain::{BuildFlags, BuildKind, Toolchain};
use std::time::Duration;

/// Children of this process still known to the kernel (running or zombie).
fn children() -> Vec<String> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // Fields after the parenthesised command name: state, ppid, ...
        let Some(rest) = stat.rsplit_once(") ").map(|(_, r)| r) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(1) == Some(&me.as_str()) {
            found.push(stat);
        }
    }
    found
}

#[test]
fn every_driver_process_is_reaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("z.c");
    let code = "double z(int i) { volatile int spin = 1; if (i == 1) { volatile int *p = 0; return *p; }\n\
                if (i == 2) while (spin) {} return i; }\n";
    std::fs::write(&src, code).expect("write");
    let tc = Toolchain::discover().expect("toolchain");
    let sig = NativeSignature {
        symbol: "z".into(),
        params: vec![NativeArgKind::Int {
            width: 32,
            unsigned: false,
        }],
        ret: Type::F64,
        setup: None,
    };
    let b = NativeBuild::compile(
        &tc,
        &src,
        BuildKind::P,
        &BuildFlags::default(),
        &sig,
        dir.path(),
    )
    .expect("build");
    let inputs: Vec<Vec<NativeArg>> = [0, 1, 2, 3, 1, 2]
        .iter()
        .map(|&i| vec![NativeArg::Int(i)])
        .collect();
    let opts = RunOptions {
        per_vector_timeout: Duration::from_millis(200),
        ..RunOptions::default()
    };
    let out = b.run(&inputs, &opts).expect("run");
    assert_eq!(out[2], NativeOutcome::TimedOut);
    assert!(matches!(out[1], NativeOutcome::Crashed { .. }));
    b.throughput(&inputs[..1], &opts, 0.05).expect("throughput");
    b.startup_mxcsr(opts.ftz_daz).expect("mxcsr");
    assert!(b.throughput(&inputs[1..2], &opts, 0.05).is_err());
    assert_eq!(children(), Vec::<String>::new());
}
