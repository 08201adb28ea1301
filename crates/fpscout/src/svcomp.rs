//! SV-COMP-style programs (`main` reading `__VERIFIER_nondet_float()`…) as a function of two input arrays.
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

use crate::InputError;
use fpscout_ir::{FloatTy, Param, ScalarTy};
use fpscout_toolchain::SourceFile;
use fpscout_walk::concrete::ArgBits;
use std::path::Path;

/// The function a harnessed program is analysed as (`--function main` names it too).
pub const HARNESS_FUNCTION: &str = "fpscout_harness";

/// The call-input functions whose presence makes a C file an SV-COMP-style program.
const FLOAT_INPUTS: [&str; 2] = ["__VERIFIER_nondet_float", "nondet_float"];
const DOUBLE_INPUTS: [&str; 2] = ["__VERIFIER_nondet_double", "nondet_double"];

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallInputs {
    pub floats: bool,
    pub doubles: bool,
    pub float_calls: usize,
    pub double_calls: usize,
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
        format!(
            "SV-COMP program: main runs as {HARNESS_FUNCTION}, each nondet call reading the \
             next element of {}, one per call site; a call in a loop reads more (--array-len \
             floats=N), and a failed __VERIFIER_assume ends the run with exit(0)",
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
        ] {
            if used && !sized(name) {
                lens.push(format!("{name}={}", calls.max(1)));
            }
        }
        lens
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
        let (Some(ScalarTy::Float(ty)), ArgBits::Array(elements)) = (param.pointee, input) else {
            return Err(InputError(format!(
                "a test case is written for an SV-COMP program's harness ({HARNESS_FUNCTION}); \
                 parameter {} is no array of nondet values",
                param.name
            )));
        };
        if !elements.is_empty() {
            kinds.push(param.name.clone());
        }
        values.extend(elements.iter().map(|&bits| c_literal(bits, ty)));
    }
    if kinds.len() > 1 {
        return Err(InputError(
            "the program reads both floats and doubles: the order of its nondet calls across \
             the two is not known, so no test case is written"
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
        crate::args::hex_float(bits, ty)
    }
}

/// Which call inputs an SV-COMP-style C source reads, `None` for ordinary code (no
/// nondet float call, or no `main`).
pub fn call_inputs(text: &str) -> Option<CallInputs> {
    let calls = |names: &[&str]| names.iter().map(|n| call_sites(text, n)).sum::<usize>();
    let (float_calls, double_calls) = (calls(&FLOAT_INPUTS), calls(&DOUBLE_INPUTS));
    let inputs = CallInputs {
        floats: FLOAT_INPUTS.iter().any(|n| mentions_call(text, n)),
        doubles: DOUBLE_INPUTS.iter().any(|n| mentions_call(text, n)),
        float_calls,
        double_calls,
    };
    let has_main =
        identifier_positions(text, "main").any(|end| text[end..].trim_start().starts_with('('));
    ((inputs.floats || inputs.doubles) && has_main).then_some(inputs)
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
    format!(
        "/* fpscout: SV-COMP harness (see crates/fpscout/src/svcomp.rs) */
#include <assert.h>
#include <stdlib.h>

static const float *fpscout_floats;
static int fpscout_next_float;
static const double *fpscout_doubles;
static int fpscout_next_double;

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
__attribute__((weak)) void reach_error(void) {{
  __assert_fail(\"reach_error()\", __FILE__, __LINE__, __func__);
}}
__attribute__((weak)) void __VERIFIER_error(void) {{
  __assert_fail(\"__VERIFIER_error()\", __FILE__, __LINE__, __func__);
}}

int main();

int {HARNESS_FUNCTION}({params}) {{
{setup}  return main();
}}
",
        params = params.join(", ")
    )
}

/// Harnesses the SV-COMP-style C files of `files`: each gets the prelude, and one
/// support file joins the program. `Ok(None)` when no file is one.
pub fn harness(files: &mut Vec<SourceFile>) -> Result<Option<Harness>, InputError> {
    let mut inputs = CallInputs {
        floats: false,
        doubles: false,
        float_calls: 0,
        double_calls: 0,
    };
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
            harnessed.push(k);
        }
    }
    if harnessed.is_empty() {
        return Ok(None);
    }
    let dir = tempfile::Builder::new()
        .prefix("fpscout-svcomp-")
        .tempdir()
        .map_err(|e| InputError(format!("cannot create a directory: {e}")))?;
    let prelude = dir.path().join("fpscout_svcomp.h");
    let support = dir.path().join("fpscout_harness.c");
    std::fs::write(&prelude, PRELUDE)
        .and_then(|()| std::fs::write(&support, support_source(inputs)))
        .map_err(|e| InputError(format!("cannot write the SV-COMP harness: {e}")))?;
    for k in harnessed {
        files[k].flags.push("-include".into());
        files[k].flags.push(prelude.display().to_string());
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
                doubles: false,
                float_calls: 1,
                double_calls: 0,
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
    fn the_harness_takes_only_the_arrays_the_program_reads() {
        let floats = support_source(CallInputs {
            floats: true,
            doubles: false,
            float_calls: 1,
            double_calls: 0,
        });
        assert!(floats.contains("int fpscout_harness(const float *floats) {"));
        let both = support_source(CallInputs {
            floats: true,
            doubles: true,
            float_calls: 1,
            double_calls: 1,
        });
        assert!(both.contains("int fpscout_harness(const float *floats, const double *doubles) {"));
    }
}
