//! Reproducers (`--emit-repro`) compiled and run: every one `diff` writes for the bundled
//! example, the corpus functions with known differences, an FPCore file (its C
//! translation gone with fpscout) and a program of two files with flags of their own
//! prints PASS in both builds, as do `exceptions` ones and `reach` ones (an SV-COMP
//! harness whose witness ends the program, a result outside an interval); a changed
//! expectation prints FAIL.

mod common;

use common::cli::{records, repo, run, write};
use fpscout_ir::{ExceptionSet, FloatTy, Param, ScalarTy, Type};
use fpscout_native::FtzDaz;
use fpscout_report::finding::{BuildRun, Finding, Mode, Rule};
use fpscout_report::repro::ReproBuilds;
use fpscout_toolchain::{BuildFlags, SourceSet, Toolchain};
use fpscout_walk::concrete::ArgBits;
use std::path::Path;
use std::process::Command;

/// Runs `sh script` in `dir`: its exit code and stdout.
fn sh(dir: &Path, script: &str) -> (i32, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .output()
        .expect("sh runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// The C files of a reproducer directory, sorted.
fn programs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("reproducer directory")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".c"))
        .collect();
    names.sort();
    names
}

/// Runs `fpscout ARGS --emit-repro DIR --json` (expecting findings), then DIR/build.sh:
/// one reproducer per confirmed finding, each printing PASS in each of `builds`.
/// Returns how many reproducers ran.
fn reproducers_pass(args: &[&str], dir: &Path, builds: &[&str]) -> usize {
    let out = run(&[args, &["--emit-repro", dir.to_str().unwrap(), "--json"]].concat());
    assert_eq!(out.code, 1, "findings expected: {}", out.stderr);
    let findings = records(&out.stdout)
        .iter()
        .filter(|r| r["type"] == "finding")
        .count();
    assert!(findings > 0);
    assert!(!out.stderr.contains("no reproducer"), "{}", out.stderr);
    let programs = programs(dir);
    assert_eq!(programs.len(), findings, "{}", out.stderr);
    let (code, output) = sh(dir, "sh build.sh");
    assert_eq!(code, 0, "{output}");
    assert!(!output.contains("FAIL"), "{output}");
    for program in &programs {
        let stem = program.trim_end_matches(".c");
        for build in builds {
            let suffix = if *build == "P" { "p" } else { "pprime" };
            let verdict = format!("{stem}-{suffix} PASS: {build} raised ");
            assert!(output.contains(&verdict), "{verdict} missing in\n{output}");
        }
    }
    programs.len()
}

const DIFF_BUDGET: [&str; 4] = ["--random", "3000", "--time-budget", "10"];

#[test]
fn diff_reproducers_of_the_summations_pass_in_both_builds() {
    for path in ["examples/sum.c", "tests/corpus/sum.c"] {
        let dir = tempfile::tempdir().unwrap();
        let file = repo(path).display().to_string();
        let args = [
            &[
                "diff",
                &file,
                "-f",
                "sum",
                "--array-len",
                "x=9",
                "--int",
                "n=9",
            ][..],
            &DIFF_BUDGET,
        ]
        .concat();
        reproducers_pass(&args, dir.path(), &["P", "P'"]);
    }
}

#[test]
fn diff_reproducers_of_the_averages_pass_in_both_builds() {
    for name in ["av1", "av2", "av3", "av4"] {
        let dir = tempfile::tempdir().unwrap();
        let file = repo(&format!("tests/corpus/{name}.c"))
            .display()
            .to_string();
        let args = [&["diff", &file, "-f", name][..], &DIFF_BUDGET].concat();
        reproducers_pass(&args, dir.path(), &["P", "P'"]);
    }
}

#[test]
fn reproducers_of_an_fpcore_file_outlive_its_translation() {
    let sources = tempfile::tempdir().unwrap();
    let fpcore = write(
        sources.path(),
        "t.fpcore",
        "(FPCore (x y) :name \"average\" (/ (+ x y) 2))\n\
         (FPCore (x) :name \"plus one\" :precision binary32 (+ x 1))\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let args = [&["diff", &fpcore][..], &DIFF_BUDGET].concat();
    reproducers_pass(&args, dir.path(), &["P", "P'"]);
    // The translation was copied: the commands name the copy.
    let build = std::fs::read_to_string(dir.path().join("build.sh")).unwrap()
        + &std::fs::read_to_string(dir.path().join("fpscout-lib.sh")).unwrap();
    assert!(build.contains(" src/0-t.c "), "{build}");
    assert!(!build.contains("fpscout-fpcore-"), "{build}");
}

#[test]
fn reproducers_of_two_files_with_their_own_flags_compile_each_as_fpscout_did() {
    let program = repo("tests/multifile").canonicalize().unwrap();
    let work = tempfile::tempdir().unwrap();
    let database = serde_json::json!([
        {"directory": program, "file": "a.c",
         "arguments": ["cc", "-Iinclude", "-O2", "-c", "a.c"]},
        {"directory": program, "file": "b.c",
         "arguments": ["cc", "-I", "include", "-c", "b.c"]}
    ]);
    let db = write(work.path(), "compile_commands.json", &database.to_string());
    let dir = tempfile::tempdir().unwrap();
    let args = [
        &["diff", "--compile-commands", &db, "-f", "f"][..],
        &DIFF_BUDGET,
    ]
    .concat();
    reproducers_pass(&args, dir.path(), &["P", "P'"]);
    let build = std::fs::read_to_string(dir.path().join("fpscout-lib.sh")).unwrap();
    // Each file compiled on its own with its flags, once per build, into the library
    // every reproducer links.
    assert!(build.contains("-o fpscout-lib/p/0.o"), "{build}");
    assert!(build.contains("-o fpscout-lib/pprime/1.o"), "{build}");
    // The database's relative include directory, made absolute: build.sh runs anywhere.
    assert!(build.contains("multifile/include -c "), "{build}");
}

#[test]
fn reproducers_of_a_program_with_its_own_main_rename_it() {
    let sources = tempfile::tempdir().unwrap();
    let program = write(
        sources.path(),
        "program.c",
        "#include <stdio.h>\ndouble half_sum(double x, double y) { return (x + y) / 2.0; }\n\
         int main(void) { printf(\"%g\\n\", half_sum(1.0, 2.0)); return 0; }\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let args = [&["diff", &program, "-f", "half_sum"][..], &DIFF_BUDGET].concat();
    reproducers_pass(&args, dir.path(), &["P", "P'"]);
    let build = std::fs::read_to_string(dir.path().join("fpscout-lib.sh")).unwrap();
    assert!(
        build.contains("--redefine-sym main=__fpscout_user_main"),
        "{build}"
    );
}

#[test]
fn a_reproducer_directory_that_cannot_be_made_is_exit_2_before_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "f.c", "double f(double x) { return x * x; }\n");
    let blocked = format!("{file}/repro");
    let out = run(&["diff", &file, "-f", "f", "--emit-repro", &blocked]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--emit-repro"), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}

#[test]
fn exceptions_reproducers_raise_their_flag() {
    let dir = tempfile::tempdir().unwrap();
    let file = repo("tests/corpus/av1.c").display().to_string();
    let args = ["exceptions", &file, "-f", "av1", "--time-budget", "10"];
    let count = reproducers_pass(&args, dir.path(), &["P"]);
    assert!(count >= 2, "overflow and underflow of av1");
    // P' alone, whole file: each function's findings, checked in P'.
    let dir = tempfile::tempdir().unwrap();
    let av2 = repo("tests/corpus/av2.c").display().to_string();
    let args = [
        "exceptions",
        &file,
        &av2,
        "--build",
        "p'",
        "--time-budget",
        "5",
    ];
    reproducers_pass(&args, dir.path(), &["P'"]);
    let names = programs(dir.path());
    assert!(names.iter().any(|n| n.starts_with("av1-")), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("av2-")), "{names:?}");
}

/// The part of build.sh that builds and runs `program`.
fn script_of(dir: &Path, program: &str) -> String {
    let build = std::fs::read_to_string(dir.join("build.sh")).unwrap();
    let start = build
        .find(&format!("# {program}\n"))
        .expect("the program's section");
    let rest = &build[start..];
    let end = rest[1..].find("\n# ").map_or_else(
        || rest.find("exit $status").expect("the script's end"),
        |e| e + 1,
    );
    format!("status=0\n{}exit $status\n", &rest[..end])
}

/// Replaces the `nth` (0-based) line starting with `prefix` by `prefix` + `value(old)`.
fn edit_define(text: &str, prefix: &str, nth: usize, value: impl Fn(&str) -> String) -> String {
    let mut seen = 0;
    let lines: Vec<String> = text
        .lines()
        .map(|l| match l.strip_prefix(prefix) {
            Some(old) if seen == nth => {
                seen += 1;
                format!("{prefix}{}", value(old))
            }
            Some(_) => {
                seen += 1;
                l.to_string()
            }
            None => l.to_string(),
        })
        .collect();
    lines.join("\n") + "\n"
}

#[test]
fn a_changed_expectation_prints_fail() {
    let dir = tempfile::tempdir().unwrap();
    let file = repo("tests/corpus/av1.c").display().to_string();
    let out = run(&[
        &[
            "diff",
            &file,
            "-f",
            "av1",
            "--emit-repro",
            dir.path().to_str().unwrap(),
        ][..],
        &DIFF_BUDGET,
    ]
    .concat());
    assert_eq!(out.code, 1, "{}", out.stderr);
    let program = programs(dir.path())
        .into_iter()
        .next()
        .expect("a reproducer");
    let path = dir.path().join(&program);
    let original = std::fs::read_to_string(&path).unwrap();
    let script = script_of(dir.path(), &program);
    let (code, output) = sh(dir.path(), &script);
    assert_eq!(code, 0, "{output}");
    // P' expects other result bits (the last bit flipped): P' fails, P passes.
    let flipped = edit_define(&original, "#define EXPECTED_RESULT 0x", 1, |old| {
        let hex = old.trim_end_matches("ULL");
        let bits = u64::from_str_radix(hex, 16).expect("hex bits");
        format!("{:016x}ULL", bits ^ 1)
    });
    assert_ne!(flipped, original);
    std::fs::write(&path, &flipped).unwrap();
    let (code, output) = sh(dir.path(), &script);
    assert_eq!(code, 1, "{output}");
    assert!(output.contains("FAIL: P' returned bits"), "{output}");
    assert!(output.contains("PASS: P raised"), "{output}");
    // P expects other flags: P fails on its flags.
    let other_flags = edit_define(&original, "#define EXPECTED_FLAGS ", 0, |old| {
        if old == "0" {
            "(FE_DIVBYZERO)".into()
        } else {
            "0".into()
        }
    });
    std::fs::write(&path, &other_flags).unwrap();
    let (code, output) = sh(dir.path(), &script);
    assert_eq!(code, 1, "{output}");
    assert!(output.contains("FAIL: P raised"), "{output}");
    assert!(output.contains("PASS: P' raised"), "{output}");
}

#[test]
fn an_exceptions_reproducer_fails_when_its_flag_is_not_raised() {
    let dir = tempfile::tempdir().unwrap();
    let file = repo("tests/corpus/av1.c").display().to_string();
    let out = run(&[
        "exceptions",
        &file,
        "-f",
        "av1",
        "--time-budget",
        "10",
        "--emit-repro",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let program = programs(dir.path())
        .into_iter()
        .find(|p| p.ends_with("-overflow.c"))
        .expect("the overflow of x + y");
    let path = dir.path().join(&program);
    let original = std::fs::read_to_string(&path).unwrap();
    assert!(original.contains("#define EXPECTED_FLAGS (FE_OVERFLOW)"));
    // (x + y) / 2 never divides by zero.
    std::fs::write(
        &path,
        original.replace(
            "#define EXPECTED_FLAGS (FE_OVERFLOW)",
            "#define EXPECTED_FLAGS (FE_DIVBYZERO)",
        ),
    )
    .unwrap();
    let (code, output) = sh(dir.path(), &script_of(dir.path(), &program));
    assert_eq!(code, 1, "{output}");
    assert!(
        output.contains("FAIL: P raised overflow, expected at least divbyzero"),
        "{output}"
    );
}

/// A finding made by hand: `function` returns `expected` bits in both builds, raising
/// nothing, on `input`.
fn identity_finding(
    function: &str,
    params: Vec<Param>,
    ret: Type,
    input: Vec<ArgBits>,
    expected: u64,
) -> Finding {
    let run = |build: &str| BuildRun {
        build: build.into(),
        outcome: format!("0x{expected:x}"),
        returned: true,
        result: Some(expected),
        flags: ExceptionSet::EMPTY,
        trace: Vec::new(),
    };
    Finding {
        mode: Mode::Diff,
        rule: Rule::FastMathResultDiffers,
        also: Vec::new(),
        function: function.into(),
        symbol: function.into(),
        message: "made by hand".into(),
        location: None,
        input,
        params,
        ret,
        runs: vec![run("P"), run("P'")],
        detail: fpscout_report::finding::Detail::None,
        reached: None,
        replay: None,
    }
}

#[test]
fn special_inputs_reach_the_function_bit_for_bit() {
    let sources = tempfile::tempdir().unwrap();
    let program = write(
        sources.path(),
        "pick.c",
        "double pick(double x, const double *a, int i) { return i < 0 ? x : a[i]; }\n\
         float pickf(float x) { return x; }\n",
    );
    let param = |name: &str, ty: Type, pointee: Option<ScalarTy>| Param {
        name: name.into(),
        ty,
        pointee,
        min_elements: 0,
        unsigned: false,
    };
    let f64_params = vec![
        param("x", Type::F64, None),
        param("a", Type::PTR, Some(ScalarTy::Float(FloatTy::F64))),
        param("i", Type::int(32), None),
    ];
    let specials: [u64; 6] = [
        0x7ff0_0000_0000_0abc, // signalling NaN with a payload
        0xfff8_0000_0000_0123, // negative quiet NaN with a payload
        0xfff0_0000_0000_0000, // -inf
        0x8000_0000_0000_0000, // -0
        0x0000_0000_0000_0001, // the smallest subnormal
        0x7fef_ffff_ffff_ffff, // the largest finite
    ];
    let mut findings = Vec::new();
    for bits in specials {
        let array = ArgBits::Array(vec![0, bits]);
        // Through the scalar argument (i = -1) and through the array (i = 1).
        let minus_one = ArgBits::Scalar(u64::from(u32::MAX));
        let input = vec![ArgBits::Scalar(bits), array.clone(), minus_one];
        findings.push(identity_finding(
            "pick",
            f64_params.clone(),
            Type::F64,
            input,
            bits,
        ));
        let input = vec![ArgBits::Scalar(0), array, ArgBits::Scalar(1)];
        findings.push(identity_finding(
            "pick",
            f64_params.clone(),
            Type::F64,
            input,
            bits,
        ));
    }
    for bits in [0x7f80_0123u64, 0xffc0_0001, 0x0000_0001, 0x8000_0000] {
        let params = vec![param("x", Type::F32, None)];
        let input = vec![ArgBits::Scalar(bits)];
        findings.push(identity_finding("pickf", params, Type::F32, input, bits));
    }
    let toolchain = Toolchain::discover().expect("clang-19");
    let builds = ReproBuilds {
        clang: toolchain.clang.clone(),
        objcopy: toolchain.objcopy(),
        defines_main: false,
        sources: SourceSet::single(&program),
        flags: BuildFlags::default(),
        ftz_daz: FtzDaz::AsLinked,
        ephemeral: Vec::new(),
    };
    let dir = tempfile::tempdir().unwrap();
    let written = fpscout_report::repro::write(dir.path(), &findings, &builds).expect("written");
    assert_eq!(
        written.programs.len(),
        findings.len(),
        "{:?}",
        written.skipped
    );
    let (code, output) = sh(dir.path(), "sh build.sh");
    assert_eq!(code, 0, "{output}");
    assert_eq!(
        output.matches("PASS").count(),
        2 * findings.len(),
        "{output}"
    );
}

#[test]
fn reach_reproducers_end_the_program_or_land_outside_the_interval_and_fail_off_the_witness() {
    // x*41 rounds to 1 only at 0x1.8f9c1ap-6; its neighbour below returns normally.
    for (program, witness, neighbour) in [
        (
            "tests/svcomp/recip41_abort.c",
            "{0x1.8f9c1ap-6f}",
            "{0x1.8f9c18p-6f}",
        ),
        (
            "tests/svcomp/recip41_assert_fail.c",
            "{0x1.8f9c1ap-6f}",
            "{0x1.8f9c18p-6f}",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = run(&[
            "reach",
            repo(program).to_str().unwrap(),
            "--emit-repro",
            dir.path().to_str().unwrap(),
        ]);
        assert_eq!(out.code, 1, "{program}: {}", out.stderr);
        let programs = programs(dir.path());
        assert_eq!(programs, ["fpscout_harness-1-assertion-reachable.c"]);
        let (code, output) = sh(dir.path(), "sh build.sh");
        assert_eq!(code, 0, "{output}");
        assert!(
            output.contains("PASS: P: the call ends the program as expected (abort"),
            "{output}"
        );
        // The harness files vanished with fpscout: the reproducer has its own copies.
        assert!(dir.path().join("src/1-fpscout_harness.c").is_file());
        let path = dir.path().join(&programs[0]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(witness), "{text}");
        std::fs::write(&path, text.replace(witness, neighbour)).unwrap();
        let (code, output) = sh(dir.path(), "sh build.sh");
        assert_eq!(code, 1, "{output}");
        assert!(
            output.contains("FAIL: P: expected the call to abort")
                && output.contains("it returned"),
            "{output}"
        );
    }

    // The float polynomial's 1e9 lies below the real minimum 1000000000.01.
    let dir = tempfile::tempdir().unwrap();
    let out = run(&[
        "reach",
        repo("tests/reach/polynomial.c").to_str().unwrap(),
        "-f",
        "polynomial",
        "--range",
        "a=1e3:1e4",
        "--range",
        "b=0:1",
        "--range",
        "c=1e3:1e4",
        "--outside",
        "1000000000.01:inf",
        "--emit-repro",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let programs = programs(dir.path());
    assert_eq!(programs, ["polynomial-1-output-outside-range.c"]);
    let (code, output) = sh(dir.path(), "sh build.sh");
    assert_eq!(code, 0, "{output}");
    assert!(output.contains("PASS: P"), "{output}");
    // Asking for results outside [-inf, 2e9] instead: 1e9 is inside, the check fails.
    let path = dir.path().join(&programs[0]);
    let text = std::fs::read_to_string(&path).unwrap();
    let bound = "(double)result < 0x1.dcd65000147aep+29";
    assert!(text.contains(bound), "{text}");
    std::fs::write(
        &path,
        text.replace(bound, "(double)result < -__builtin_inf()")
            .replace(
                "(double)result > __builtin_inf()",
                "(double)result > 0x1.dcd65p+30",
            ),
    )
    .unwrap();
    let (code, output) = sh(dir.path(), "sh build.sh");
    assert_eq!(code, 1, "{output}");
    assert!(output.contains("FAIL: P result"), "{output}");
}
