//! SV-COMP-style programs (`main` reading `__VERIFIER_nondet_float()`…) and `fpscout.h` harnesses as a function of input arrays.
//!
//! Verification benchmarks take their inputs from calls, not parameters: each call to
//! `__VERIFIER_nondet_float()` (or the bare `nondet_float()` older files call without
//! declaring it) is the next input. fpscout turns such a program into an ordinary
//! function, [`HARNESS_FUNCTION`]`(const float *floats, const double *doubles)`, defined
//! in a support file linked next to the program: it points the nondet functions at its
//! arrays and calls `main`. Every mode then searches the arrays as it searches any array
//! parameter (`--array-len floats=N`, `--range floats=LO:HI`), the interpreter follows
//! the support code like the program's own, and the executables run the same code. The
//! program's file is compiled unchanged except for a prelude (`-include`) that declares
//! the SV-COMP functions, so implicit declarations compile and source locations stay the
//! user's. The support file's definitions are weak: a program that defines
//! `reach_error` or `__VERIFIER_assume` itself keeps its own.
//!
//! Harnesses written with `include/fpscout.h` (`fpscout_double`, `fpscout_array`,
//! `fpscout_result`, `fpscout_result_array`) are the same kind of program: their inputs
//! are the `doubles` array, and their checked results go to a third parameter,
//! `double *results`, which `fpscout error` measures. The header is written next to the
//! prelude and found through `-I`, so `#include "fpscout.h"` needs no flag.

use crate::InputError;
use fpscout_ir::{FloatTy, Param, ScalarTy};
use fpscout_toolchain::{SourceFile, SourceKind};
use fpscout_walk::concrete::ArgBits;
use std::path::Path;

/// The function a harnessed program is analysed as (`--function main` names it too).
pub const HARNESS_FUNCTION: &str = "fpscout_harness";

/// The harness parameter holding the values of integer nondet calls.
pub const INTEGERS_PARAM: &str = "integers";

/// The header of `fpscout.h` harnesses (the repository's `include/fpscout.h`).
pub const HEADER: &str = include_str!("../../../include/fpscout.h");

/// Input and result functions of `fpscout.h`.
const HARNESS_DOUBLE: &str = "fpscout_double";
const HARNESS_ARRAY: &str = "fpscout_array";
const HARNESS_RESULT: &str = "fpscout_result";
const HARNESS_RESULT_ARRAY: &str = "fpscout_result_array";

/// Result slots of a harness whose result count is not a literal.
const DEFAULT_RESULTS: usize = 64;

/// The call-input functions whose presence makes a C file an SV-COMP-style program.
const FLOAT_INPUTS: [&str; 2] = ["__VERIFIER_nondet_float", "nondet_float"];
const DOUBLE_INPUTS: [&str; 2] = ["__VERIFIER_nondet_double", "nondet_double"];

/// Integer nondet functions (SV-COMP's pointer-free ones) and the C type each returns.
/// All read the next element of one `long long` array, converted to their type, so their
/// order across types is the program's call order.
const INTEGER_INPUTS: [(&str, &str); 18] = [
    ("__VERIFIER_nondet_bool", "_Bool"),
    ("__VERIFIER_nondet__Bool", "_Bool"),
    ("__VERIFIER_nondet_char", "char"),
    ("__VERIFIER_nondet_uchar", "unsigned char"),
    ("__VERIFIER_nondet_short", "short"),
    ("__VERIFIER_nondet_ushort", "unsigned short"),
    ("__VERIFIER_nondet_int", "int"),
    ("__VERIFIER_nondet_uint", "unsigned int"),
    ("__VERIFIER_nondet_unsigned", "unsigned int"),
    ("__VERIFIER_nondet_u32", "unsigned int"),
    ("__VERIFIER_nondet_long", "long"),
    ("__VERIFIER_nondet_ulong", "unsigned long"),
    ("__VERIFIER_nondet_longlong", "long long"),
    ("__VERIFIER_nondet_ulonglong", "unsigned long long"),
    ("__VERIFIER_nondet_size_t", "unsigned long"),
    ("__VERIFIER_nondet_loff_t", "long"),
    ("__VERIFIER_nondet_sector_t", "unsigned long"),
    ("__VERIFIER_nondet_pthread_t", "unsigned long"),
];

/// The nondet string function: a pointer to bytes no run defines.
const STRING_INPUT: &str = "__VERIFIER_nondet_const_char_pointer";

/// Bytes of each nondet string, its NUL included.
const STRING_BYTES: usize = 16;

/// Elements of the integer array by default: integers cost the search nothing (they are
/// fixed or drawn, never solved for), so calls in loops get room without `--array-len`.
const DEFAULT_INTEGERS: usize = 64;

/// Names that make a C file with `main` an SV-COMP program even without nondet calls:
/// a deterministic task is decided by running it once.
const ERROR_MARKERS: [&str; 4] = [
    "reach_error",
    "__VERIFIER_error",
    "__VERIFIER_assert",
    "__VERIFIER_assume",
];

/// Declarations every harnessed file sees first. Prototypes compatible with the
/// declarations SV-COMP files write themselves (`extern float __VERIFIER_nondet_float();`,
/// `void reach_error() { … }`).
const PRELUDE: &str = "\
/* fpscout: SV-COMP declarations (see crates/fpscout/src/svcomp.rs) */
float __VERIFIER_nondet_float(void);
double __VERIFIER_nondet_double(void);
float nondet_float(void);
double nondet_double(void);
void __VERIFIER_assume(int);
void reach_error(void);
void __VERIFIER_error(void);
";

/// The inputs harnessed from calls: which arrays the harness takes, and how many call
/// sites read each (the arrays' default lengths; a call in a loop reads more).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CallInputs {
    pub floats: bool,
    pub doubles: bool,
    pub float_calls: usize,
    pub double_calls: usize,
    /// The program reads integer nondets (`__VERIFIER_nondet_int()`…): an `integers` array.
    pub integers: bool,
    pub integer_calls: usize,
    /// The program asks for nondet strings (`__VERIFIER_nondet_const_char_pointer()`):
    /// each is a fresh allocation of [`STRING_BYTES`] bytes, all uninitialised but the
    /// last, a NUL. A walk that reads one stops there, so no answer rests on its bytes;
    /// `nan(tag)` needs them only for the payload.
    pub strings: bool,
    /// `main` is defined `void main()` (older tasks): the harness calls it and returns 0,
    /// since reading the result of a void call is no value.
    pub void_main: bool,
    /// The program declares results with `fpscout_result*` (a `results` array).
    pub results: bool,
    /// Result slots: one per `fpscout_result` call site plus literal array counts.
    pub result_slots: usize,
    /// The bounds every `fpscout_double`/`fpscout_array` call gives, when all give the
    /// same literals.
    pub double_range: Option<(f64, f64)>,
}

/// The support files of a harnessed program. They live in a directory owned by this
/// value: keep it as long as the sources are used.
#[derive(Debug)]
pub struct Harness {
    pub inputs: CallInputs,
    dir: tempfile::TempDir,
}

impl Harness {
    /// The directory holding the support file and the prelude.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// What the user should know about the harness's inputs.
    pub fn note(&self) -> String {
        let mut arrays = Vec::new();
        if self.inputs.floats {
            arrays.push(format!("floats[{}]", self.inputs.float_calls.max(1)));
        }
        if self.inputs.doubles {
            arrays.push(format!("doubles[{}]", self.inputs.double_calls.max(1)));
        }
        if self.inputs.integers {
            arrays.push(format!(
                "integers[{}]",
                self.inputs.integer_calls.max(DEFAULT_INTEGERS)
            ));
        }
        if arrays.is_empty() && self.inputs.strings {
            return format!(
                "SV-COMP program without nondet numbers: main runs as {HARNESS_FUNCTION}; \
                 each nondet string is {STRING_BYTES} bytes no run defines (a walk that \
                 reads them stops there)"
            );
        }
        if arrays.is_empty() {
            return format!(
                "SV-COMP program without nondet inputs: main runs once as {HARNESS_FUNCTION}, \
                 which decides it"
            );
        }
        if self.inputs.results {
            return format!(
                "fpscout.h harness: main runs as {HARNESS_FUNCTION}, inputs read from {}, \
                 checked results written to results[{}] (counts that are not literals \
                 count 1: give --array-len doubles=N)",
                arrays.join(" and "),
                self.inputs.result_slots.max(1)
            );
        }
        format!(
            "SV-COMP program: main runs as {HARNESS_FUNCTION}, each nondet call reading the \
             next element of {}, one per call site; a call in a loop reads more (reach \
             lengthens an array its walks read past, to 4096 at most; --array-len NAME=N \
             fixes it), and a failed __VERIFIER_assume ends the run with exit(0)",
            arrays.join(" and ")
        )
    }

    /// `--array-len` entries for the harness arrays the user did not size (given as
    /// `NAME=N` in `given`): one element per call site.
    pub fn default_array_lens(&self, given: &[String]) -> Vec<String> {
        let sized = |name: &str| given.iter().any(|g| g.split('=').next() == Some(name));
        let mut lens = Vec::new();
        for (used, name, calls) in [
            (self.inputs.floats, "floats", self.inputs.float_calls),
            (self.inputs.doubles, "doubles", self.inputs.double_calls),
            (
                self.inputs.integers,
                "integers",
                self.inputs.integer_calls.max(DEFAULT_INTEGERS),
            ),
            (self.inputs.results, "results", self.inputs.result_slots),
        ] {
            if used && !sized(name) {
                lens.push(format!("{name}={}", calls.max(1)));
            }
        }
        lens
    }

    /// `--range` entries for the harness arrays the user did not restrict: the bounds
    /// every `fpscout.h` input call gives.
    pub fn default_ranges(&self, given: &[String]) -> Vec<String> {
        let restricted = given.iter().any(|g| g.split('=').next() == Some("doubles"));
        match self.inputs.double_range {
            Some((lo, hi)) if !restricted => vec![format!("doubles={lo:?}:{hi:?}")],
            _ => Vec::new(),
        }
    }
}

/// The Test-Comp test case (test-format 1.1) of a harness witness: the values the
/// nondet calls return, in call order, as C literals (hex floats: exact). The arrays
/// say which value each call of one type gets, not how float and double calls
/// interleave, so a program reading both is refused.
pub fn testcase_xml(params: &[Param], inputs: &[ArgBits]) -> Result<String, InputError> {
    let mut values = Vec::new();
    let mut kinds = Vec::new();
    for (param, input) in params.iter().zip(inputs) {
        let ArgBits::Array(elements) = input else {
            return Err(not_nondet(param));
        };
        let literals: Vec<String> = match param.pointee {
            Some(ScalarTy::Float(ty)) => elements.iter().map(|&b| c_literal(b, ty)).collect(),
            // Each call converts its element to its own type: the element is the value.
            Some(ScalarTy::Int(64)) => elements.iter().map(|&b| (b as i64).to_string()).collect(),
            _ => return Err(not_nondet(param)),
        };
        if !elements.is_empty() {
            kinds.push(param.name.clone());
        }
        values.extend(literals);
    }
    if kinds.len() > 1 {
        return Err(InputError(
            "the program reads nondet values of several kinds (floats, doubles, integers): the \
             order of its calls across them is not known, so no test case is written"
                .into(),
        ));
    }
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n\
         <!DOCTYPE testcase PUBLIC \"+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN\" \
         \"https://sosy-lab.org/test-format/testcase-1.1.dtd\">\n<testcase coversError=\"true\">\n",
    );
    for v in values {
        xml.push_str(&format!("  <input>{v}</input>\n"));
    }
    xml.push_str("</testcase>\n");
    Ok(xml)
}

fn not_nondet(param: &Param) -> InputError {
    InputError(format!(
        "a test case is written for an SV-COMP program's harness ({HARNESS_FUNCTION}); \
         parameter {} is no array of nondet values",
        param.name
    ))
}

/// A float as C reads it back exactly (`strtod` takes `nan` and `inf` too).
fn c_literal(bits: u64, ty: FloatTy) -> String {
    let value = match ty {
        FloatTy::F32 => f64::from(f32::from_bits(bits as u32)),
        FloatTy::F64 => f64::from_bits(bits),
    };
    if value.is_nan() {
        "nan".into()
    } else if value.is_infinite() {
        if value < 0.0 { "-inf" } else { "inf" }.into()
    } else {
        fpscout_report::args::hex_float(bits, ty)
    }
}

/// Which call inputs an SV-COMP-style C source reads, `None` for ordinary code (no
/// `main`, or neither a nondet call nor an SV-COMP error or assumption function).
pub fn call_inputs(text: &str) -> Option<CallInputs> {
    let calls = |names: &[&str]| names.iter().map(|n| call_sites(text, n)).sum::<usize>();
    let (float_calls, double_calls) = (calls(&FLOAT_INPUTS), calls(&DOUBLE_INPUTS));
    let integer_names: Vec<&str> = INTEGER_INPUTS.iter().map(|(n, _)| *n).collect();
    let harness = harness_calls(text);
    let inputs = CallInputs {
        floats: FLOAT_INPUTS.iter().any(|n| mentions_call(text, n)),
        doubles: DOUBLE_INPUTS.iter().any(|n| mentions_call(text, n)) || harness.inputs,
        float_calls,
        double_calls: double_calls + harness.input_count,
        integers: integer_names.iter().any(|n| mentions_call(text, n)),
        integer_calls: integer_names.iter().map(|n| call_sites(text, n)).sum(),
        results: harness.results,
        result_slots: harness.result_slots,
        double_range: harness.range,
        strings: mentions_call(text, STRING_INPUT),
        void_main: false,
    };
    let has_main =
        identifier_positions(text, "main").any(|end| text[end..].trim_start().starts_with('('));
    let void_main = identifier_positions(text, "main").any(|end| {
        text[..end - "main".len()].trim_end().ends_with("void")
            && text[end..].trim_start().starts_with('(')
    });
    let svcomp = inputs.floats
        || inputs.doubles
        || inputs.integers
        || inputs.strings
        || ERROR_MARKERS.iter().any(|n| mentions_call(text, n));
    (svcomp && has_main).then_some(CallInputs {
        void_main,
        ..inputs
    })
}

/// The integer nondet functions `text` calls without declaring them (old tasks rely on
/// implicit declarations, which clang 19 refuses): the prelude declares those only, so
/// a file's own declaration, whatever type it spells, is never contradicted.
fn undeclared_integer_inputs(text: &str) -> Vec<(&'static str, &'static str)> {
    INTEGER_INPUTS
        .iter()
        .filter(|(name, _)| mentions_call(text, name) && !declares(text, name))
        .copied()
        .collect()
}

/// Whether `name` occurs after a type (an identifier other than a statement keyword, or
/// `*`): a declaration or definition rather than a call.
fn declares(text: &str, name: &str) -> bool {
    identifier_positions(text, name).any(|end| {
        let start = end - name.len();
        let before = text[..start].trim_end();
        let word = before
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        before.ends_with('*')
            || (!word.is_empty()
                && !matches!(word, "return" | "else" | "do" | "case" | "sizeof" | "goto"))
    })
}

/// What the `fpscout.h` calls of a file say.
struct HarnessCalls {
    inputs: bool,
    input_count: usize,
    results: bool,
    result_slots: usize,
    range: Option<(f64, f64)>,
}

/// The `fpscout.h` calls of `text`: inputs read (literal counts), result slots, and
/// the bounds when every input call gives the same literal ones.
fn harness_calls(text: &str) -> HarnessCalls {
    let doubles = call_arguments(text, HARNESS_DOUBLE);
    let arrays = call_arguments(text, HARNESS_ARRAY);
    let results = call_arguments(text, HARNESS_RESULT);
    let result_arrays = call_arguments(text, HARNESS_RESULT_ARRAY);
    let count =
        |args: &[String], k: usize| args.get(k).and_then(|a| a.trim().parse::<usize>().ok());
    let input_count = doubles.len()
        + arrays
            .iter()
            .map(|a| count(a, 1).unwrap_or(1))
            .sum::<usize>();
    let result_slots = results.len()
        + result_arrays
            .iter()
            .map(|a| count(a, 1).unwrap_or(DEFAULT_RESULTS))
            .sum::<usize>();
    let bounds = |args: &[String]| -> Option<(f64, f64)> {
        let n = args.len();
        let lo = args.get(n.checked_sub(2)?)?.trim().parse::<f64>().ok()?;
        let hi = args.get(n - 1)?.trim().parse::<f64>().ok()?;
        (lo <= hi).then_some((lo, hi))
    };
    let all: Vec<Option<(f64, f64)>> = doubles.iter().chain(&arrays).map(|a| bounds(a)).collect();
    let range = match all.first() {
        Some(Some(first)) if all.iter().all(|b| b.as_ref() == Some(first)) => Some(*first),
        _ => None,
    };
    HarnessCalls {
        inputs: !doubles.is_empty() || !arrays.is_empty(),
        input_count,
        results: !results.is_empty() || !result_arrays.is_empty(),
        result_slots,
        range,
    }
}

/// The argument texts of each call of `name` (declarations, with a type before the
/// name, are not calls).
fn call_arguments(text: &str, name: &str) -> Vec<Vec<String>> {
    identifier_positions(text, name)
        .filter_map(|end| {
            let start = end - name.len();
            let before = text[..start]
                .trim_end()
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '*'))
                .next()
                .unwrap_or("");
            if matches!(before, "void" | "double") {
                return None;
            }
            let rest = text[end..].trim_start().strip_prefix('(')?;
            let mut depth = 0usize;
            let mut args = vec![String::new()];
            for c in rest.chars() {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 0 => return Some(args),
                    ')' => depth -= 1,
                    ',' if depth == 0 => {
                        args.push(String::new());
                        continue;
                    }
                    _ => {}
                }
                if let Some(last) = args.last_mut() {
                    last.push(c);
                }
            }
            None
        })
        .collect()
}

/// Whether `name` occurs as an identifier followed by `(` (a call or a declaration).
fn mentions_call(text: &str, name: &str) -> bool {
    identifier_positions(text, name).any(|end| text[end..].trim_start().starts_with('('))
}

/// Calls of `name()` in `text`: the identifier, then `()`, not declared there (no type
/// or `*` before it).
fn call_sites(text: &str, name: &str) -> usize {
    identifier_positions(text, name)
        .filter(|&end| {
            let start = end - name.len();
            let rest = text[end..].trim_start();
            let declared = text[..start]
                .trim_end()
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '*'))
                .next()
                .is_some_and(|w| matches!(w, "float" | "double") || w.ends_with('*'));
            rest.starts_with('(') && rest[1..].trim_start().starts_with(')') && !declared
        })
        .count()
}

/// The end offsets of `name` where it stands as a whole identifier.
fn identifier_positions<'a>(text: &'a str, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).filter_map(move |(start, _)| {
        let end = start + name.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        (!before.is_some_and(is_ident) && !after.is_some_and(is_ident)).then_some(end)
    })
}

/// The support file: the harness entry and weak definitions of the SV-COMP functions.
/// An assumption that fails ends the run (`exit(0)`: the path is not one the program
/// may take, and no error was reached); `reach_error` fails an assertion, which every
/// mode reports as the program's end ("fails assertion `reach_error()`"). Inputs past
/// an array's end are read out of bounds, which the interpreter reports naming the
/// array (raise it with `--array-len floats=N`).
fn support_source(inputs: CallInputs) -> String {
    let mut params = Vec::new();
    let mut setup = String::new();
    if inputs.floats {
        params.push("const float *floats");
        setup.push_str("  fpscout_floats = floats;\n  fpscout_next_float = 0;\n");
    }
    if inputs.doubles {
        params.push("const double *doubles");
        setup.push_str("  fpscout_doubles = doubles;\n  fpscout_next_double = 0;\n");
    }
    if inputs.integers {
        params.push("const long long *integers");
        setup.push_str("  fpscout_integers = integers;\n  fpscout_next_integer = 0;\n");
    }
    if inputs.results {
        params.push("double *results");
        setup.push_str("  fpscout_results = results;\n  fpscout_next_result = 0;\n");
    }
    if params.is_empty() {
        params.push("void");
    }
    let integer_functions: String = INTEGER_INPUTS
        .iter()
        .map(|(name, ty)| {
            // _Bool's conversion is `!= 0`, any other is the element's low bits.
            format!(
                "__attribute__((weak)) {ty} {name}(void) {{\n  return ({ty})fpscout_integers[fpscout_next_integer++];\n}}\n"
            )
        })
        .collect();
    let string_function = if inputs.strings {
        format!(
            "__attribute__((weak)) const char *{STRING_INPUT}(void) {{
  char *s = malloc({STRING_BYTES});
  if (s == NULL)
    abort();
  s[{STRING_BYTES} - 1] = 0;
  return s;
}}
"
        )
    } else {
        String::new()
    };
    let harness_functions = format!(
        "
static double *fpscout_results;
static int fpscout_next_result;

__attribute__((weak)) double fpscout_double(const char *name, double lo, double hi) {{
  double x = fpscout_doubles[fpscout_next_double++];
  (void)name;
  return x < lo ? lo : x > hi ? hi : x;
}}
__attribute__((weak)) void fpscout_array(double *ptr, int n, const char *name, double lo, double hi) {{
  for (int i = 0; i < n; i++)
    ptr[i] = fpscout_double(name, lo, hi);
}}
__attribute__((weak)) void fpscout_result(double value) {{
  if (fpscout_next_result < {slots})
    fpscout_results[fpscout_next_result++] = value;
}}
__attribute__((weak)) void fpscout_result_array(const double *ptr, int n) {{
  for (int i = 0; i < n; i++)
    fpscout_result(ptr[i]);
}}
",
        slots = inputs.result_slots.max(1)
    );
    format!(
        "/* fpscout: SV-COMP harness (see crates/fpscout/src/svcomp.rs) */
#include <assert.h>
#include <stdlib.h>

static const float *fpscout_floats;
static int fpscout_next_float;
static const double *fpscout_doubles;
static int fpscout_next_double;
static const long long *fpscout_integers;
static int fpscout_next_integer;

__attribute__((weak)) float __VERIFIER_nondet_float(void) {{
  return fpscout_floats[fpscout_next_float++];
}}
__attribute__((weak)) double __VERIFIER_nondet_double(void) {{
  return fpscout_doubles[fpscout_next_double++];
}}
__attribute__((weak)) float nondet_float(void) {{ return __VERIFIER_nondet_float(); }}
__attribute__((weak)) double nondet_double(void) {{ return __VERIFIER_nondet_double(); }}
__attribute__((weak)) void __VERIFIER_assume(int holds) {{
  if (!holds)
    exit(0);
}}
{integer_functions}{string_function}__attribute__((weak)) void reach_error(void) {{
  __assert_fail(\"reach_error()\", __FILE__, __LINE__, __func__);
}}
__attribute__((weak)) void __VERIFIER_error(void) {{
  __assert_fail(\"__VERIFIER_error()\", __FILE__, __LINE__, __func__);
}}
{harness_functions}
{main_declaration}

int {HARNESS_FUNCTION}({params}) {{
{setup}{call_main}
}}
",
        params = params.join(", "),
        main_declaration = if inputs.void_main {
            "void main();"
        } else {
            "int main();"
        },
        call_main = if inputs.void_main {
            "  main();\n  return 0;"
        } else {
            "  return main();"
        }
    )
}

/// Harnesses the SV-COMP-style C files of `files`: each gets the prelude, and one
/// support file joins the program. `Ok(None)` when no file is one.
pub fn harness(files: &mut Vec<SourceFile>) -> Result<Option<Harness>, InputError> {
    let mut inputs = CallInputs::default();
    let mut ranges: Vec<Option<(f64, f64)>> = Vec::new();
    // Each harnessed file with the integer nondets it calls undeclared.
    let mut harnessed = Vec::new();
    for (k, file) in files.iter().enumerate() {
        if !is_c(&file.path) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file.path) else {
            // Unreadable files are reported by the compiler, with its own words.
            continue;
        };
        if let Some(found) = call_inputs(&text) {
            inputs.floats |= found.floats;
            inputs.doubles |= found.doubles;
            inputs.float_calls += found.float_calls;
            inputs.double_calls += found.double_calls;
            inputs.integers |= found.integers;
            inputs.strings |= found.strings;
            inputs.void_main |= found.void_main;
            inputs.integer_calls += found.integer_calls;
            inputs.results |= found.results;
            inputs.result_slots += found.result_slots;
            ranges.push(found.double_range);
            let strings_undeclared = found.strings && !declares(&text, STRING_INPUT);
            harnessed.push((k, undeclared_integer_inputs(&text), strings_undeclared));
        }
    }
    if harnessed.is_empty() {
        return Ok(None);
    }
    inputs.double_range = match ranges.first() {
        Some(Some(first)) if ranges.iter().all(|r| r.as_ref() == Some(first)) => Some(*first),
        _ => None,
    };
    let dir = tempfile::Builder::new()
        .prefix("fpscout-svcomp-")
        .tempdir()
        .map_err(|e| InputError(format!("cannot create a directory: {e}")))?;
    let support = dir.path().join("fpscout_harness.c");
    let write_error =
        |e: std::io::Error| InputError(format!("cannot write the SV-COMP harness: {e}"));
    std::fs::write(dir.path().join("fpscout.h"), HEADER)
        .and_then(|()| std::fs::write(&support, support_source(inputs)))
        .map_err(write_error)?;
    for (k, undeclared, strings_undeclared) in harnessed {
        // A preprocessed file is compiled without the preprocessor: it declares what it
        // calls itself (clang would only warn that -include is unused).
        if SourceKind::is_preprocessed(&files[k].path) {
            continue;
        }
        let mut prelude_text = PRELUDE.to_string();
        if strings_undeclared {
            prelude_text.push_str(&format!("const char *{STRING_INPUT}(void);\n"));
        }
        for (name, ty) in undeclared {
            prelude_text.push_str(&format!("{ty} {name}(void);\n"));
        }
        let prelude = dir.path().join(format!("fpscout_svcomp_{k}.h"));
        std::fs::write(&prelude, prelude_text).map_err(write_error)?;
        files[k].flags.push("-include".into());
        files[k].flags.push(prelude.display().to_string());
        files[k].flags.push(format!("-I{}", dir.path().display()));
    }
    files.push(SourceFile::new(support));
    Ok(Some(Harness { inputs, dir }))
}

fn is_c(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("c" | "i"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_programs_reading_call_inputs() {
        let old = "int main() { float x = nondet_float(); if (x > 1.0f) reach_error(); }";
        assert_eq!(
            call_inputs(old),
            Some(CallInputs {
                floats: true,
                float_calls: 1,
                ..CallInputs::default()
            })
        );
        let both = "extern double __VERIFIER_nondet_double(void);\nextern float __VERIFIER_nondet_float();\nint main(void) {\n double d = __VERIFIER_nondet_double(); float f = __VERIFIER_nondet_float(), g = __VERIFIER_nondet_float( ); return d < f + g; }";
        assert_eq!(
            call_inputs(both),
            Some(CallInputs {
                floats: true,
                doubles: true,
                float_calls: 2,
                double_calls: 1,
                ..CallInputs::default()
            })
        );
        // No main: a library function that happens to call nondet is not a program.
        assert_eq!(
            call_inputs("float f(void) { return nondet_float(); }"),
            None
        );
        // Longer identifiers containing the names do not count.
        assert_eq!(
            call_inputs("int main() { return my_nondet_float_count(); }"),
            None
        );
        assert_eq!(call_inputs("double f(double x) { return x; }"), None);
    }

    #[test]
    fn recognises_nondet_strings() {
        let text = "const char* __VERIFIER_nondet_const_char_pointer();\nvoid __VERIFIER_assert(int c);\nint main(void) { float f = nan(__VERIFIER_nondet_const_char_pointer()); __VERIFIER_assert(f != f); }";
        let found = call_inputs(text).expect("an SV-COMP program");
        assert!(found.strings && !found.floats && !found.integers);
        assert!(declares(text, STRING_INPUT));
        let source = support_source(found);
        assert!(
            source.contains(&format!("const char *{STRING_INPUT}(void) {{")),
            "{source}"
        );
        // The NUL is the one byte written: the others are defined by no run.
        assert!(
            source.contains(&format!("s[{STRING_BYTES} - 1] = 0;")),
            "{source}"
        );
        assert!(!support_source(CallInputs::default()).contains(STRING_INPUT));
    }

    #[test]
    fn recognises_integer_nondets_and_deterministic_tasks() {
        let ints = "extern int __VERIFIER_nondet_int(void);\nint main() { int n = __VERIFIER_nondet_int(); unsigned char c = __VERIFIER_nondet_uchar(); return n + c; }";
        let found = call_inputs(ints).expect("an SV-COMP program");
        assert!(found.integers && !found.floats && !found.doubles);
        assert_eq!(found.integer_calls, 2);
        // Declared by the file: not redeclared; called undeclared: declared by the prelude.
        assert_eq!(
            undeclared_integer_inputs(ints),
            vec![("__VERIFIER_nondet_uchar", "unsigned char")]
        );
        assert!(
            undeclared_integer_inputs("int main() { return __VERIFIER_nondet_bool(); }")
                .contains(&("__VERIFIER_nondet_bool", "_Bool"))
        );
        // No nondet call, but an SV-COMP error function: decided by one run.
        let deterministic =
            "void reach_error() {}\nint main() { if (0.1 + 0.2 != 0.3) reach_error(); }";
        assert_eq!(call_inputs(deterministic), Some(CallInputs::default()));
        // An ordinary program with main is not a task.
        assert_eq!(call_inputs("int main() { return 0; }"), None);
        let source = support_source(CallInputs::default());
        assert!(source.contains("int fpscout_harness(void) {"), "{source}");
        // `void main()`: called, its no-value not read.
        let void_main = call_inputs("void reach_error();\nvoid main() { reach_error(); }")
            .expect("an SV-COMP program");
        assert!(void_main.void_main);
        assert!(support_source(void_main)
            .contains("void main();\n\nint fpscout_harness(void) {\n  main();\n  return 0;\n}"));
        let source = support_source(found);
        assert!(source.contains("int fpscout_harness(const long long *integers) {"));
        assert!(source.contains(
            "unsigned char __VERIFIER_nondet_uchar(void) {\n  return (unsigned char)fpscout_integers[fpscout_next_integer++];"
        ));
    }

    #[test]
    fn the_harness_takes_only_the_arrays_the_program_reads() {
        let floats = support_source(CallInputs {
            floats: true,
            float_calls: 1,
            ..CallInputs::default()
        });
        assert!(floats.contains("int fpscout_harness(const float *floats) {"));
        let both = support_source(CallInputs {
            floats: true,
            doubles: true,
            float_calls: 1,
            double_calls: 1,
            ..CallInputs::default()
        });
        assert!(both.contains("int fpscout_harness(const float *floats, const double *doubles) {"));
    }

    #[test]
    fn reads_inputs_results_and_bounds_of_fpscout_h_harnesses() {
        let text = "#include \"fpscout.h\"\nint main(void) {\n  double x[32]; double a = fpscout_double(\"a\", -100, 100);\n  fpscout_array(x, 32, \"x\", -100, 100);\n  fpscout_result(norm(x, 32) + a);\n  fpscout_result_array(x, 4);\n  return 0;\n}\n";
        let found = call_inputs(text).expect("a harness");
        assert!(found.doubles && found.results && !found.floats);
        assert_eq!(found.double_calls, 33);
        assert_eq!(found.result_slots, 5);
        assert_eq!(found.double_range, Some((-100.0, 100.0)));
        let mixed = text.replace("\"a\", -100, 100", "\"a\", 0, 1");
        assert_eq!(call_inputs(&mixed).and_then(|c| c.double_range), None);
        // Declarations are not calls.
        let declared = harness_calls("double fpscout_double(const char *name, double lo, double hi);\nvoid fpscout_result(double value);");
        assert!(declared.input_count == 0 && !declared.results);
        let source = support_source(found);
        assert!(source.contains("int fpscout_harness(const double *doubles, double *results) {"));
        assert!(source.contains("if (fpscout_next_result < 5)"));
    }
}
