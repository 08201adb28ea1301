//! Property tests: no input, random text or random S-expressions in FPCore vocabulary, makes the reader or translator panic.

use fpscout_fpcore::{parse_file, to_c_lenient};
use proptest::prelude::*;

/// Parses and, when that succeeds, translates; only a panic fails.
fn run(text: &str) {
    if let Ok(cores) = parse_file(text) {
        let _ = to_c_lenient(&cores);
    }
}

fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "x",
            "y",
            "+",
            "-",
            "*",
            "/",
            "sqrt",
            "pow",
            "fma",
            "<",
            "<=",
            "==",
            "!=",
            "and",
            "or",
            "not",
            "if",
            "let",
            "let*",
            "while",
            "while*",
            "cast",
            "!",
            ":precision",
            "binary32",
            "binary64",
            "binary16",
            ":round",
            "toZero",
            ":name",
            "\"n\"",
            ":pre",
            "PI",
            "TRUE",
            "NAN",
            "digits",
            "1/0",
            "1/3",
            "0x1.8p3",
            "1e999999999999999999999",
            "-0.0",
            "FPCore",
            "array",
            "1",
            "2",
            "-7",
            ".5",
            "#",
            "^",
            "[",
            "]",
            "]",
            "\"",
            ";c\n",
            "\u{e9}",
        ])
        .prop_map(str::to_string),
        "[a-z0-9.+/-]{1,6}",
    ]
}

fn sexp() -> impl Strategy<Value = String> {
    atom().prop_recursive(5, 48, 5, |inner| {
        prop::collection::vec(inner, 0..5).prop_map(|v| format!("({})", v.join(" ")))
    })
}

fn core() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(sexp(), 0..4),
        sexp(),
        prop::collection::vec(sexp(), 0..3),
    )
        .prop_map(|(args, body, props)| {
            format!("(FPCore ({}) {} {})", args.join(" "), props.join(" "), body)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn random_text(s in "\\PC{0,80}") {
        run(&s);
    }

    #[test]
    fn random_sexps(s in prop::collection::vec(sexp(), 0..3)) {
        run(&s.join("\n"));
    }

    #[test]
    fn random_cores(s in core()) {
        run(&s);
    }

    #[test]
    fn mutated_suite(cut in 0usize..4000, len in 0usize..40, insert in "[()\\[\\]\" ;a-z0-9:!.-]{0,6}") {
        let text = include_str!("../../../bench/fpbench/hamming-ch3.fpcore");
        let mut cut = cut.min(text.len());
        while !text.is_char_boundary(cut) { cut -= 1; }
        let mut end = (cut + len).min(text.len());
        while !text.is_char_boundary(end) { end -= 1; }
        run(&format!("{}{}{}", &text[..cut], insert, &text[end..]));
    }
}

#[test]
fn deep_nesting_at_the_limit_translates() {
    // 250 levels is inside the reader's limit: the recursive translator must cope in a test thread.
    let text = format!("(FPCore (x) {}x{})", "(- ".repeat(250), ")".repeat(250));
    let cores = parse_file(&text).unwrap();
    let (t, errors) = to_c_lenient(&cores);
    assert!(errors.is_empty() && t.functions.len() == 1);
}
