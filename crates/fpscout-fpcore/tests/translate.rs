//! Translation tests: exact C text for small cores, errors with positions, and the FPBench suites compiled by clang.

use std::path::{Path, PathBuf};
use std::process::Command;

use fpscout_fpcore::{parse_file, to_c, to_c_lenient, FpCoreError, Precision};

fn c(src: &str) -> String {
    let t = to_c(&parse_file(src).unwrap()).unwrap();
    // Drop the two header lines and the blank line: the tests look at the functions.
    t.c_source.lines().skip(3).collect::<Vec<_>>().join("\n")
}

#[test]
fn simple_double() {
    assert_eq!(
        c("(FPCore (x) :name \"NMSE example 3.1\" :pre (>= x 0) (- (sqrt (+ x 1)) (sqrt x)))"),
        "/* FPCore #0: NMSE example 3.1 */\n\
         double NMSE_example_3_1(double x) {\n  return sqrt(x + 1.0) - sqrt(x);\n}"
    );
}

#[test]
fn float_precision_literals_and_constants() {
    assert_eq!(
        c("(FPCore f (x) :precision binary32 (* (+ x 1/3) (sin (* PI 0.1))))"),
        "/* FPCore #0: (unnamed) */\n\
         float f(float x) {\n  return (x + 0x1.555556p-2f) * sinf(0x1.921fb6p1f * 0.1f);\n}"
    );
}

#[test]
fn let_parallel_and_sequential() {
    let par = c("(FPCore (x) (let ([x (+ x 1)] [y x]) (* x y)))");
    assert_eq!(
        par,
        "/* FPCore #0: (unnamed) */\ndouble fpcore_0(double x) {\n  \
         double x_2 = x + 1.0;\n  double y = x;\n  return x_2 * y;\n}"
    );
    let seq = c("(FPCore (x) (let* ([x (+ x 1)] [y x]) (* x y)))");
    assert!(seq.contains("double y = x_2;"), "{seq}");
}

#[test]
fn while_parallel_and_sequential() {
    let src = "(FPCore (n) (while (< i n) ([i 0 (+ i 1)] [s 0 (+ s i)]) s))";
    assert_eq!(
        c(src),
        "/* FPCore #0: (unnamed) */\ndouble fpcore_0(double n) {\n  \
         double i = 0.0;\n  double s = 0.0;\n  for (;;) {\n    if (!(i < n)) break;\n    \
         double i_next = i + 1.0;\n    double s_next = s + i;\n    i = i_next;\n    s = s_next;\n  }\n  \
         return s;\n}"
    );
    let seq = c(&src.replace("while", "while*"));
    assert!(seq.contains("    i = i + 1.0;\n    s = s + i;\n"), "{seq}");
}

#[test]
fn if_with_statements_and_comparisons() {
    let out = c("(FPCore (x y) (if (< 0 x y 1) (let ([z (* x y)]) z) (fabs y)))");
    assert!(
        out.contains("if ((0.0 < x) && (x < y) && (y < 1.0)) {"),
        "{out}"
    );
    assert!(out.contains("    t = z;"), "{out}");
    let out = c("(FPCore (x y) (if (and (!= x y 0) (not (isnan x))) x y))");
    assert!(
        out.contains("return (((x != y) && (x != 0.0) && (y != 0.0)) && !isnan(x)) ? x : y;"),
        "{out}"
    );
}

#[test]
fn mixed_precision_and_cast() {
    let out = c("(FPCore (x) :precision binary32 (cast (! :precision binary64 (/ x (! :precision binary32 (+ x 1))))))");
    assert!(
        out.contains("return (float)((double)x / (double)(x + 1.0f));"),
        "{out}"
    );
    let out = c("(FPCore ((! :precision binary32 x) y) (+ x y))");
    assert!(out.contains("double fpcore_0(float x, double y)"), "{out}");
    assert!(out.contains("(double)x + y"), "{out}");
}

#[test]
fn names_are_c_identifiers_and_unique() {
    let t = to_c(&parse_file("(FPCore (x) :name \"sqrt\" x) (FPCore (x) :name \"sqrt\" x) (FPCore (int) :name \"2 × y\" int)").unwrap())
        .unwrap();
    let names: Vec<&str> = t.functions.iter().map(|f| f.c_name.as_str()).collect();
    assert_eq!(names, ["sqrt_2", "sqrt_3", "v2_y"]);
    assert_eq!(t.functions[2].args[0].c_name, "int_2");
    assert_eq!(t.functions[2].fpcore_name.as_deref(), Some("2 × y"));
}

#[test]
fn ranges_and_ignored_pre() {
    let t = to_c(
        &parse_file(
            "(FPCore (u v w) :pre (and (<= -4.5 v -0.3) (<= 0.4 w 0.9) (<= 1 u)) (+ u (* v w)))",
        )
        .unwrap(),
    )
    .unwrap();
    let f = &t.functions[0];
    let r: Vec<(&str, f64, f64)> = f
        .ranges
        .iter()
        .map(|r| (r.arg.as_str(), r.lo, r.hi))
        .collect();
    assert_eq!(r, [("v", -4.5, -0.3), ("w", 0.4, 0.9)]);
    assert_eq!(f.ignored_pre, ["(<= 1 u)"]);
    assert_eq!(f.precision, Precision::Binary64);
}

#[test]
fn errors_name_position_and_text() {
    let err = |src: &str| to_c(&parse_file(src).unwrap()).unwrap_err();
    let e = err("(FPCore (x)\n  :precision binary16\n  x)");
    assert!(matches!(e, FpCoreError::UnsupportedPrecision { .. }));
    assert_eq!(
        e.to_string(),
        "2:14: FPCore #0: unsupported precision `binary16` (only binary64 and binary32 have C types)"
    );
    let e = err("(FPCore (x) 1)\n(FPCore (x) (+ x (foo x)))");
    assert_eq!(
        e.to_string(),
        "2:18: FPCore #1: unsupported operation `foo` in `(foo x)`"
    );
    let e = err("(FPCore ((a 3)) 1)");
    assert!(matches!(e, FpCoreError::UnsupportedArray { .. }), "{e}");
    let e = err("(FPCore ((! :precision binary32 a 3)) 1)");
    assert!(matches!(e, FpCoreError::UnsupportedArray { .. }), "{e}");
    let e = err("(FPCore (x) (+ x y))");
    assert!(
        matches!(e, FpCoreError::UnboundVariable { ref name, .. } if name == "y"),
        "{e}"
    );
    let e = err("(FPCore (x) (+ x (< x 1)))");
    assert!(matches!(e, FpCoreError::Type { .. }), "{e}");
    let e = err("(FPCore (x) (sqrt x x))");
    assert!(matches!(e, FpCoreError::Malformed { .. }), "{e}");
    let e = err("(FPCore (x) :round toZero x)");
    assert!(matches!(e, FpCoreError::UnsupportedProperty { .. }), "{e}");
    // Lenient translation keeps the good cores.
    let (t, errs) = to_c_lenient(&parse_file("(FPCore (x) (foo x)) (FPCore (x) x)").unwrap());
    assert_eq!((t.functions.len(), errs.len()), (1, 1));
}

fn suites() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/fpbench");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fpcore"))
        .collect();
    files.sort();
    files
}

fn clang_accepts(c_source: &str, name: &str) {
    if Command::new("clang-19").arg("--version").output().is_err() {
        eprintln!("clang-19 not on PATH: generated C for {name} not compiled");
        return;
    }
    let dir = std::env::temp_dir().join(format!("fpscout-fpcore-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.c"));
    std::fs::write(&file, c_source).unwrap();
    let out = Command::new("clang-19")
        .args(["-c", "-fsyntax-only", "-Wall", "-Werror"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "clang-19 rejects the C for {name}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_file(&file);
}

#[test]
fn fpbench_suites_translate_and_compile() {
    let (mut total, mut supported) = (0, 0);
    let mut unsupported = Vec::new();
    for path in suites() {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let cores = parse_file(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (t, errors) = to_c_lenient(&cores);
        total += cores.len();
        supported += t.functions.len();
        unsupported.extend(errors.iter().map(|e| format!("{name}.fpcore:{e}")));
        clang_accepts(&t.c_source, &name);
    }
    assert!(total > 0);
    println!("{supported}/{total} FPCores supported");
    for u in &unsupported {
        println!("unsupported: {u}");
    }
    assert!(
        supported * 10 >= total * 9,
        "only {supported}/{total} supported: {unsupported:#?}"
    );
}

#[test]
fn rosa_is_fully_supported() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/fpbench/rosa.fpcore");
    let cores = parse_file(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (t, errors) = to_c_lenient(&cores);
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(t.functions.len(), cores.len());
    // Most rosa cores have a box precondition: the ranges must come through.
    let with_ranges = t.functions.iter().filter(|f| !f.ranges.is_empty()).count();
    assert!(with_ranges * 2 > t.functions.len(), "{with_ranges}");
}
