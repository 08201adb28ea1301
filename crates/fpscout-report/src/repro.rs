//! Reproducers: per confirmed finding, a standalone C program that calls the function on
//! the witness, checks the result bits and raised flags each build is expected to show,
//! and prints PASS or FAIL; with the clang command lines of P and P' and a `build.sh`.
//!
//! One C file serves both builds: `-DFPSCOUT_BUILD_P` or `-DFPSCOUT_BUILD_PPRIME`
//! selects the expectation. The function is declared with its prototype (bound to its
//! linker symbol) and the program's own sources are compiled with exactly the flags of
//! fpscout's executables, and linked with the build's flags, so a `-ffast-math` P' starts
//! with FTZ/DAZ on (crtfastmath.o) as fpscout's executable did. Sources in directories
//! that vanish when fpscout exits (FPCore translations) are copied next to the programs.

use crate::finding::{BuildRun, Finding, Mode, Reached, Rule};
use crate::replay::shell_word;
use crate::InputError;
use fpscout_ir::{ExceptionSet, FloatTy, Param, ScalarTy, Type};
use fpscout_native::FtzDaz;
use fpscout_toolchain::{BuildFlags, BuildKind, SourceKind, SourceSet};
use fpscout_walk::concrete::ArgBits;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// How fpscout built the program: what a reproducer needs to build it the same way.
pub struct ReproBuilds {
    pub clang: PathBuf,
    /// Renames `main` in the program's objects when it has its own.
    pub objcopy: PathBuf,
    /// Whether the program defines `main` (the reproducer's must take its place).
    pub defines_main: bool,
    pub sources: SourceSet,
    pub flags: BuildFlags,
    pub ftz_daz: FtzDaz,
    /// Directories that vanish when fpscout exits (FPCore translations, SV-COMP harness
    /// files): sources there, and files the sources' flags name there (the harness
    /// prelude), are copied into the reproducer directory.
    pub ephemeral: Vec<PathBuf>,
}

/// What [`write`] wrote.
#[derive(Debug, Default)]
pub struct Written {
    /// One C file per reproducer.
    pub programs: Vec<PathBuf>,
    /// Builds and runs every reproducer in each build; exit status 1 when one fails.
    pub script: PathBuf,
    /// Findings without a reproducer: (function, why).
    pub skipped: Vec<(String, String)>,
}

/// The macro that selects a build's expectation.
fn build_macro(build: BuildKind) -> &'static str {
    match build {
        BuildKind::P => "FPSCOUT_BUILD_P",
        BuildKind::PPrime => "FPSCOUT_BUILD_PPRIME",
    }
}

fn exe_suffix(build: BuildKind) -> &'static str {
    match build {
        BuildKind::P => "p",
        BuildKind::PPrime => "pprime",
    }
}

fn build_of(run: &BuildRun) -> Option<BuildKind> {
    match run.build.as_str() {
        "P" => Some(BuildKind::P),
        "P'" => Some(BuildKind::PPrime),
        _ => None,
    }
}

/// Writes a reproducer for each finding into `dir` (created if missing), then
/// `build.sh` and `README` for all of them.
pub fn write(
    dir: &Path,
    findings: &[Finding],
    builds: &ReproBuilds,
) -> Result<Written, InputError> {
    let io = |what: &str, path: &Path, e: std::io::Error| {
        InputError(format!("cannot {what} {}: {e}", path.display()))
    };
    std::fs::create_dir_all(dir).map_err(|e| io("create", dir, e))?;
    let sources = builds.place_sources(dir)?;
    let cxx = builds
        .sources
        .needs_cxx_runtime()
        .map_err(|e| InputError(e.to_string()))?;
    let mut written = Written {
        script: dir.join("build.sh"),
        ..Written::default()
    };
    let mut script = String::from(
        "#!/bin/sh\n# Builds every fpscout reproducer here as each build and runs it: exit \
         status 1 when one prints FAIL, 2 when one does not build.\n# The program's sources \
         are compiled once per build into fpscout-lib/BUILD (fpscout-lib.sh), and\n# every \
         reproducer links those objects.\ncd \"$(dirname \"$0\")\" || exit 2\nrm -rf fpscout-lib\nstatus=0\n",
    );
    let library = builds.library_script(&sources);
    let library_path = dir.join(LIBRARY_SCRIPT);
    std::fs::write(&library_path, library).map_err(|e| io("write", &library_path, e))?;
    let mut readme = format!(
        "fpscout reproducers\n\nOne C file per confirmed finding. Each calls the function \
         with the witness input (exact hex floats),\nchecks the result bits and the flags \
         (fetestexcept) the build raised when fpscout ran it,\nprints PASS or FAIL and \
         exits 0 or 1. Build and run them all: sh build.sh\n\nThe same file is compiled \
         for both builds; -D{} or -D{} selects\nwhat it expects. The program's sources \
         are compiled with fpscout's flags for that build and\nlinked with them, so a \
         -ffast-math P' starts with FTZ/DAZ on (crtfastmath.o), as fpscout's\nexecutable \
         did. The sources are compiled once per build into fpscout-lib/p and\n\
         fpscout-lib/pprime (sh fpscout-lib.sh p|pprime), and each reproducer links those \
         objects.\nExceptions findings check that the flag is raised (the operation's place is\n\
         in the file's comment); diff findings check both builds' bits and exact flags.\n\n",
        build_macro(BuildKind::P),
        build_macro(BuildKind::PPrime)
    );
    // Numbered per function (C++ overloads share a name), zero-padded so that listings
    // sort in finding order.
    let names: Vec<String> = findings.iter().map(|f| c_identifier(&f.function)).collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for name in &names {
        *count.entry(name).or_default() += 1;
    }
    let mut numbered: HashMap<&str, usize> = HashMap::new();
    for (f, name) in findings.iter().zip(&names) {
        let index = numbered.entry(name).or_default();
        *index += 1;
        let width = count[name.as_str()].to_string().len();
        let stem = format!("{name}-{index:0width$}-{}", f.rule.id());
        let program_file = format!("{stem}.c");
        let mut lines = Vec::new();
        let mut runs = Vec::new();
        for run in &f.runs {
            let Some(build) = build_of(run) else { continue };
            let exe = format!("{stem}-{}", exe_suffix(build));
            let commands = builds.commands(build, &program_file, &exe, cxx);
            lines.push((build, exe, commands));
            runs.push((build, run));
        }
        let program = match program(f, &runs, &lines, builds.ftz_daz) {
            Ok(p) => p,
            Err(why) => {
                written.skipped.push((f.function.clone(), why));
                continue;
            }
        };
        let path = dir.join(&program_file);
        std::fs::write(&path, program).map_err(|e| io("write", &path, e))?;
        written.programs.push(path);
        let _ = writeln!(readme, "{program_file}: {}", f.message);
        if let Some(command) = &f.replay {
            let _ = writeln!(
                readme,
                "  replay (from the directory fpscout ran in): {command}"
            );
        }
        script.push_str(&format!("\n# {program_file}\n"));
        for (build, exe, commands) in &lines {
            let _ = writeln!(readme, "  {}:", build.label());
            let _ = writeln!(
                script,
                "[ -f {ok} ] || sh {LIBRARY_SCRIPT} {b} || exit 2",
                ok = library_stamp(*build),
                b = exe_suffix(*build)
            );
            for c in commands {
                let _ = writeln!(readme, "    {}", shell_line(c));
                let _ = writeln!(script, "{} || exit 2", shell_line(c));
            }
            let _ = writeln!(
                script,
                "printf '%s ' {exe}; ./{exe} || status=1",
                exe = shell_word(exe)
            );
        }
    }
    script.push_str("exit $status\n");
    std::fs::write(&written.script, script).map_err(|e| io("write", &written.script, e))?;
    let readme_path = dir.join("README");
    std::fs::write(&readme_path, readme).map_err(|e| io("write", &readme_path, e))?;
    Ok(written)
}

impl ReproBuilds {
    /// The paths the commands give for the program's sources: copies under `dir/src`
    /// for files in ephemeral directories, absolute paths for the others; and the flag
    /// words naming files in ephemeral directories, with the copies that replace them.
    fn place_sources(&self, dir: &Path) -> Result<PlacedSources, InputError> {
        let ephemeral: Vec<PathBuf> = self
            .ephemeral
            .iter()
            .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.clone()))
            .collect();
        let in_ephemeral = |path: &Path| {
            let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            ephemeral
                .iter()
                .any(|d| absolute.starts_with(d))
                .then_some(absolute)
        };
        let mut placed = PlacedSources::default();
        let mut copies = 0;
        for file in &self.sources.files {
            for word in &file.flags {
                if placed.flag_files.contains_key(word) {
                    continue;
                }
                if let Some(absolute) = in_ephemeral(Path::new(word)).filter(|p| p.is_file()) {
                    let copy = copy_into(dir, &absolute, copies)?;
                    copies += 1;
                    placed.flag_files.insert(word.clone(), copy);
                }
            }
        }
        for file in &self.sources.files {
            match in_ephemeral(&file.path) {
                Some(absolute) => {
                    placed.sources.push(copy_into(dir, &absolute, copies)?);
                    copies += 1;
                }
                None => placed.sources.push(
                    std::fs::canonicalize(&file.path)
                        .unwrap_or_else(|_| file.path.clone())
                        .display()
                        .to_string(),
                ),
            }
        }
        Ok(placed)
    }

    /// `fpscout-lib.sh`: `sh fpscout-lib.sh p|pprime` compiles every source of the
    /// program once, as fpscout compiled it for that build (its own flags, `main`
    /// renamed when it has one), into `fpscout-lib/BUILD/N.o`, and marks the set done.
    fn library_script(&self, placed: &PlacedSources) -> String {
        let mut script = String::from(
            "#!/bin/sh\n# Compiles the program's sources once for one build (p or pprime) \
             into fpscout-lib/BUILD: the objects every reproducer of that build links.\n\
             cd \"$(dirname \"$0\")\" || exit 2\ncase \"$1\" in\n",
        );
        for build in BuildKind::BOTH {
            let b = exe_suffix(build);
            let _ = writeln!(script, "{b})\n  mkdir -p fpscout-lib/{b} || exit 2");
            for line in self.library_commands(build, placed) {
                let _ = writeln!(script, "  {} || exit 2", shell_line(&line));
            }
            let _ = writeln!(script, "  : > {} || exit 2\n  ;;", library_stamp(build));
        }
        script.push_str("*) echo \"usage: sh fpscout-lib.sh p|pprime\" >&2; exit 2 ;;\nesac\n");
        script
    }

    /// The command lines that compile each source of the program for `build` into
    /// the library (`main` renamed when the program has one), as fpscout's executables
    /// compile them; fast-math's warnings about NaN and infinity checks are fpscout's
    /// business, not the reader's.
    fn library_commands(&self, build: BuildKind, placed: &PlacedSources) -> Vec<Vec<String>> {
        let clang = self.clang.display().to_string();
        let mut lines = Vec::new();
        for (i, (file, path)) in self.sources.files.iter().zip(&placed.sources).enumerate() {
            let object = library_object(build, i);
            let mut line = vec![clang.clone()];
            if SourceKind::of(&file.path).is_ok_and(|k| k == SourceKind::Cxx) {
                line.push("--driver-mode=g++".into());
            }
            line.push(QUIET_FAST_MATH.into());
            line.extend(
                self.flags
                    .for_file(build, file)
                    .into_iter()
                    .map(|word| placed.flag_files.get(&word).cloned().unwrap_or(word)),
            );
            line.extend(["-c".into(), path.clone(), "-o".into(), object.clone()]);
            lines.push(line);
            if self.defines_main {
                // As fpscout's executables do: the reproducer's main is the entry point.
                lines.push(vec![
                    self.objcopy.display().to_string(),
                    "--redefine-sym".into(),
                    "main=__fpscout_user_main".into(),
                    object,
                ]);
            }
        }
        lines
    }

    /// The command lines that build `program` as `build` into `exe`, linking the
    /// library of `build` (see [`ReproBuilds::library_script`]): one clang line that
    /// compiles the program with the build's flags and links, when those flags select
    /// no language; else the program compiled as fpscout's driver is and a link with the
    /// build's flags.
    fn commands(&self, build: BuildKind, program: &str, exe: &str, cxx: bool) -> Vec<Vec<String>> {
        let clang = self.clang.display().to_string();
        let recipe = self.flags.compile_flags(build);
        let define = format!("-D{}", build_macro(build));
        let objects: Vec<String> = (0..self.sources.files.len())
            .map(|i| library_object(build, i))
            .collect();
        let language_free = !recipe
            .iter()
            .any(|f| f.starts_with("-x") || f.starts_with("-std="));
        let runtime = |line: &mut Vec<String>| {
            line.extend(self.flags.libraries.iter().cloned());
            if cxx {
                line.push("-lstdc++".into());
            }
            line.extend(["-lm".to_string(), "-o".into(), exe.to_string()]);
        };
        if language_free {
            let mut line = vec![clang];
            line.extend(recipe);
            line.push(QUIET_FAST_MATH.into());
            line.push(define);
            line.push(program.to_string());
            line.extend(objects);
            runtime(&mut line);
            return vec![line];
        }
        let mut lines = Vec::new();
        let main_object = format!("{exe}.main.o");
        let mut line = vec![clang.clone()];
        line.extend(
            ["-std=gnu17", "-O0", "-fno-fast-math", "-ffp-contract=off"]
                .iter()
                .map(|s| s.to_string()),
        );
        line.extend([define, "-c".into(), program.to_string()]);
        line.extend(["-o".into(), main_object.clone()]);
        lines.push(line);
        // The build's flags at the link bring in crtfastmath.o as for fpscout's
        // executable; the language selection is for compiling only.
        let mut link = vec![clang, "-Wno-unused-command-line-argument".into()];
        let mut skip_next = false;
        for f in recipe {
            if std::mem::take(&mut skip_next) {
                continue;
            }
            if f == "-x" {
                skip_next = true;
            } else if !f.starts_with("-x") && !f.starts_with("-std=") {
                link.push(f);
            }
        }
        link.push(main_object);
        link.extend(objects);
        runtime(&mut link);
        lines.push(link);
        lines
    }
}

/// The script that compiles the program's sources once per build.
const LIBRARY_SCRIPT: &str = "fpscout-lib.sh";

/// Silences fast-math's "use of NaN/infinity is undefined" warnings (clang 18+).
const QUIET_FAST_MATH: &str = "-Wno-nan-infinity-disabled";

/// The object of source `index` in the library of `build`.
fn library_object(build: BuildKind, index: usize) -> String {
    format!("fpscout-lib/{}/{index}.o", exe_suffix(build))
}

/// The file that says the library of `build` is complete.
fn library_stamp(build: BuildKind) -> String {
    format!("fpscout-lib/{}/done", exe_suffix(build))
}

/// Where a reproducer's commands find the program's files.
#[derive(Debug, Default)]
struct PlacedSources {
    /// Each source's path, in order.
    sources: Vec<String>,
    /// Flag words naming files that vanish, and their copies.
    flag_files: HashMap<String, String>,
}

/// Copies `absolute` to `dir/src/<index>-<name>`; the path relative to `dir`.
fn copy_into(dir: &Path, absolute: &Path, index: usize) -> Result<String, InputError> {
    let name = absolute
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| format!("source{index}.c"));
    let relative = format!("src/{index}-{name}");
    let copy = dir.join(&relative);
    if let Some(parent) = copy.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| InputError(format!("cannot create {}: {e}", parent.display())))?;
    }
    std::fs::copy(absolute, &copy).map_err(|e| {
        InputError(format!(
            "cannot copy {} to {}: {e}",
            absolute.display(),
            copy.display()
        ))
    })?;
    Ok(relative)
}

/// `name` made a C identifier (C++ display names carry `::`, parentheses, spaces).
fn c_identifier(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

fn shell_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

fn c_int_type(width: u32, unsigned: bool) -> String {
    let sign = if unsigned { "unsigned " } else { "signed " };
    match width {
        1 => "_Bool".into(),
        8 => format!("{sign}char"),
        16 => format!("{sign}short"),
        32 => format!("{sign}int"),
        64 => format!("{sign}long long"),
        w => format!("{sign}_BitInt({w})"),
    }
}

fn c_scalar_type(ty: ScalarTy, unsigned: bool) -> Result<String, String> {
    match ty {
        ScalarTy::Float(f) => Ok(f.c_name().to_string()),
        ScalarTy::Int(w) if (1..=64).contains(&w) => Ok(c_int_type(w, unsigned)),
        other => Err(format!("a parameter of type {other}")),
    }
}

fn c_param_type(p: &Param) -> Result<String, String> {
    match p.ty {
        Type::Scalar(ScalarTy::Ptr) => match p.pointee {
            Some(elem @ (ScalarTy::Float(_) | ScalarTy::Int(_))) => {
                Ok(format!("{} *", c_scalar_type(elem, false)?))
            }
            _ => Err(format!(
                "pointer parameter {} to an unknown element type",
                p.name
            )),
        },
        Type::Scalar(s) => c_scalar_type(s, p.unsigned),
        other => Err(format!("parameter {} of type {other}", p.name)),
    }
}

/// The exact C constant of a float: a hex float, an infinity, or a NaN with its sign,
/// quiet bit and payload.
fn c_float(bits: u64, ty: FloatTy) -> String {
    let (frac_bits, exp_mask, suffix) = match ty {
        FloatTy::F32 => (23u32, 0xffu64, "f"),
        FloatTy::F64 => (52, 0x7ff, ""),
    };
    let negative = (bits >> (frac_bits + exp_mask.count_ones())) & 1 == 1;
    let sign = if negative { "-" } else { "" };
    let exp = (bits >> frac_bits) & exp_mask;
    let frac = bits & ((1u64 << frac_bits) - 1);
    if exp != exp_mask {
        return format!("{}{suffix}", crate::args::hex_float(bits, ty));
    }
    if frac == 0 {
        return format!("{sign}__builtin_inf{suffix}()");
    }
    let quiet_bit = 1u64 << (frac_bits - 1);
    let (builtin, payload) = if frac & quiet_bit != 0 {
        ("nan", frac & !quiet_bit)
    } else {
        ("nans", frac)
    };
    format!("{sign}__builtin_{builtin}{suffix}(\"0x{payload:x}\")")
}

fn c_int(bits: u64, width: u32, unsigned: bool) -> String {
    let value = fpscout_ir::sign_extend(bits, width);
    format!(
        "({})0x{bits:x}ULL /* {} */",
        c_int_type(width, unsigned),
        if unsigned {
            bits.to_string()
        } else {
            value.to_string()
        }
    )
}

fn c_element(bits: u64, elem: ScalarTy) -> String {
    match elem {
        ScalarTy::Float(f) => c_float(bits, f),
        ScalarTy::Int(_) => format!("0x{bits:x}ULL"),
        ScalarTy::Ptr => format!("0x{bits:x}"),
    }
}

/// The C expression of a flag set (`FE_OVERFLOW | FE_INVALID`, or `0`).
fn c_flags(flags: ExceptionSet) -> String {
    const NAMES: [(u8, &str); 5] = [
        (0x01, "FE_INVALID"),
        (0x04, "FE_DIVBYZERO"),
        (0x08, "FE_OVERFLOW"),
        (0x10, "FE_UNDERFLOW"),
        (0x20, "FE_INEXACT"),
    ];
    let names: Vec<&str> = NAMES
        .iter()
        .filter(|(bit, _)| flags.0 & bit != 0)
        .map(|(_, n)| *n)
        .collect();
    if names.is_empty() {
        "0".into()
    } else {
        format!("({})", names.join(" | "))
    }
}

/// The flag an exceptions finding of `rule` is about.
fn rule_flag(rule: Rule) -> ExceptionSet {
    ExceptionSet(match rule {
        Rule::Invalid => 0x01,
        Rule::DivideByZero => 0x04,
        Rule::Overflow => 0x08,
        Rule::Underflow => 0x10,
        _ => 0,
    })
}

/// The C program of one finding; `Err` says why none can be written.
fn program(
    f: &Finding,
    runs: &[(BuildKind, &BuildRun)],
    lines: &[(BuildKind, String, Vec<Vec<String>>)],
    ftz_daz: FtzDaz,
) -> Result<String, String> {
    if runs.is_empty() {
        return Err("no build run recorded".into());
    }
    let ends = matches!(f.reached, Some(Reached::Aborts | Reached::Exits { .. }));
    for (build, run) in runs {
        if !run.returned && !ends {
            return Err(format!(
                "build {} did not return ({}): a reproducer checks a returned call",
                build.label(),
                run.outcome
            ));
        }
    }
    if f.params.len() != f.input.len() {
        return Err("the witness does not match the parameters".into());
    }
    let params: Vec<String> = f
        .params
        .iter()
        .map(c_param_type)
        .collect::<Result<_, _>>()?;
    let (ret, result_bits) = match f.ret {
        Type::Void => ("void".to_string(), None),
        Type::Scalar(ScalarTy::Float(ft)) => (ft.c_name().to_string(), Some(ft.bits())),
        Type::Scalar(ScalarTy::Int(w)) if (1..=64).contains(&w) => (c_int_type(w, true), Some(w)),
        other => return Err(format!("return type {other}")),
    };
    let mut c = String::new();
    let _ = writeln!(
        c,
        "/* fpscout reproducer ({} finding, rule {})",
        mode_name(f.mode),
        f.rule.id()
    );
    let _ = writeln!(c, " * {}", f.message.replace("*/", "* /"));
    if let Some(loc) = &f.location {
        let _ = writeln!(c, " * at {loc}");
    }
    let _ = writeln!(
        c,
        " * {}({})",
        f.function.replace("*/", "* /"),
        crate::args::inputs_text(&f.params, &f.input).replace("*/", "* /")
    );
    for (build, run) in runs {
        if run.returned {
            let _ = writeln!(
                c,
                " * {}: returns {} raising {}",
                build.label(),
                run.outcome,
                run.flags
            );
        } else {
            let _ = writeln!(c, " * {}: {}", build.label(), run.outcome);
        }
    }
    let _ = writeln!(c, " *\n * Build and run, in this directory:");
    for (build, exe, commands) in lines {
        let _ = writeln!(c, " *   {}:", build.label());
        for command in commands {
            let _ = writeln!(c, " *     {}", shell_line(command).replace("*/", "* /"));
        }
        let _ = writeln!(c, " *     ./{exe}");
    }
    let _ = writeln!(c, " */");
    c.push_str("#include <fenv.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n");
    if ends {
        c.push_str("#include <signal.h>\n#include <sys/wait.h>\n#include <unistd.h>\n");
    }
    if ftz_daz != FtzDaz::AsLinked {
        c.push_str("#include <xmmintrin.h>\n");
    }
    let _ = writeln!(
        c,
        "\n/* The function under test, bound to its linker symbol. */\n{ret} fpscout_target({}) __asm__(\"{}\");\n",
        if params.is_empty() { "void".to_string() } else { params.join(", ") },
        f.symbol
    );
    for (i, (build, run)) in runs.iter().enumerate() {
        let _ = writeln!(
            c,
            "#{} defined({})",
            if i == 0 { "if" } else { "elif" },
            build_macro(*build)
        );
        let _ = writeln!(c, "#define BUILD_NAME \"{}\"", build.label());
        match (result_bits, run.result) {
            (Some(_), Some(bits)) => {
                let _ = writeln!(
                    c,
                    "#define CHECK_RESULT 1\n#define EXPECTED_RESULT 0x{bits:016x}ULL"
                );
            }
            _ => c.push_str("#define CHECK_RESULT 0\n#define EXPECTED_RESULT 0ULL\n"),
        }
        // A diff finding is the builds' exact flags; an exceptions finding is that its
        // flag is raised (other operations may raise more).
        let (expected, exact) = match f.mode {
            Mode::Diff => (run.flags, 1),
            Mode::Exceptions => (rule_flag(f.rule), 0),
            Mode::Reach => (ExceptionSet::EMPTY, 0),
            // An error finding checks the result bits; any flags may come with them.
            Mode::Error => (ExceptionSet::EMPTY, 0),
        };
        let _ = writeln!(
            c,
            "#define EXPECTED_FLAGS {}\n#define FLAGS_EXACT {exact}",
            c_flags(expected)
        );
    }
    let builds: Vec<String> = runs
        .iter()
        .map(|(b, _)| format!("-D{}", build_macro(*b)))
        .collect();
    let _ = writeln!(
        c,
        "#else\n#error \"build with {} (see the command lines above)\"\n#endif\n",
        builds.join(" or ")
    );
    let mut args = Vec::new();
    for (i, (p, value)) in f.params.iter().zip(&f.input).enumerate() {
        match (p.ty, value) {
            (Type::Scalar(ScalarTy::Float(ft)), ArgBits::Scalar(bits)) => {
                args.push(c_float(*bits, ft))
            }
            (Type::Scalar(ScalarTy::Int(w)), ArgBits::Scalar(bits)) => {
                args.push(c_int(*bits, w, p.unsigned))
            }
            (Type::Scalar(ScalarTy::Ptr), ArgBits::Array(elements)) => {
                let elem = p.pointee.ok_or("an array of unknown element type")?;
                let name = format!("arg{i}_{}", c_identifier(&p.name));
                let values: Vec<String> = elements.iter().map(|b| c_element(*b, elem)).collect();
                let _ = writeln!(
                    c,
                    "static {} {name}[{}] = {{{}}};",
                    c_scalar_type(elem, false)?,
                    elements.len().max(1),
                    if values.is_empty() {
                        "0".to_string()
                    } else {
                        values.join(", ")
                    }
                );
                args.push(name);
            }
            _ => {
                return Err(format!(
                    "parameter {} and its witness value disagree",
                    p.name
                ))
            }
        }
    }
    c.push_str(
        "\nstatic void print_flags(int flags) {\n  static const struct { int bit; const char *name; } names[] = {\n    \
         {FE_INVALID, \"invalid\"}, {FE_DIVBYZERO, \"divbyzero\"}, {FE_OVERFLOW, \"overflow\"},\n    \
         {FE_UNDERFLOW, \"underflow\"}, {FE_INEXACT, \"inexact\"}};\n  int any = 0;\n  \
         for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)\n    \
         if (flags & names[i].bit) { printf(\"%s%s\", any ? \"|\" : \"\", names[i].name); any = 1; }\n  \
         if (!any) printf(\"none\");\n}\n\nint main(void) {\n",
    );
    match ftz_daz {
        FtzDaz::AsLinked => c.push_str(
            "  /* FTZ/DAZ as linked: a build linked with -ffast-math starts with both on. */\n",
        ),
        FtzDaz::On => c.push_str("  _mm_setcsr(_mm_getcsr() | 0x8040u); /* --ftz-daz on */\n"),
        FtzDaz::Off => c.push_str("  _mm_setcsr(_mm_getcsr() & ~0x8040u); /* --ftz-daz off */\n"),
    }
    let call = format!("fpscout_target({})", args.join(", "));
    if let Some(reached @ (Reached::Aborts | Reached::Exits { .. })) = f.reached {
        c.push_str(&ending_check(&call, reached));
        return Ok(c);
    }
    c.push_str("  uint64_t got = 0;\n  feclearexcept(FE_ALL_EXCEPT);\n");
    match (f.ret, result_bits) {
        (Type::Void, _) | (_, None) => {
            let _ = writeln!(
                c,
                "  {call};\n  int raised = fetestexcept(FE_ALL_EXCEPT) & ~FE_INEXACT;"
            );
        }
        (Type::Scalar(ScalarTy::Float(ft)), Some(_)) => {
            let word = if ft == FloatTy::F32 {
                "uint32_t"
            } else {
                "uint64_t"
            };
            let _ = writeln!(
                c,
                "  {ret} result = {call};\n  int raised = fetestexcept(FE_ALL_EXCEPT) & ~FE_INEXACT;\n  \
                 {word} word;\n  memcpy(&word, &result, sizeof word);\n  got = word;"
            );
        }
        (_, Some(width)) => {
            let mask = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let _ = writeln!(
                c,
                "  {ret} result = {call};\n  int raised = fetestexcept(FE_ALL_EXCEPT) & ~FE_INEXACT;\n  \
                 got = (uint64_t)result & 0x{mask:x}ULL;"
            );
        }
    }
    c.push_str(
        &"  int ok = 1;\n  if (CHECK_RESULT && got != EXPECTED_RESULT) {\n    \
         printf(\"FAIL: %s returned bits 0x%016llx, expected 0x%016llx\\n\", BUILD_NAME,\n           \
         (unsigned long long)got, (unsigned long long)EXPECTED_RESULT);\n    ok = 0;\n  }\n  \
         int flags_ok = FLAGS_EXACT ? raised == (EXPECTED_FLAGS)\n                           : (raised & (EXPECTED_FLAGS)) == (EXPECTED_FLAGS);\n  \
         if (!flags_ok) {\n    printf(\"FAIL: %s raised \", BUILD_NAME);\n    print_flags(raised);\n    \
         printf(\", expected %s\", FLAGS_EXACT ? \"exactly \" : \"at least \");\n    \
         print_flags(EXPECTED_FLAGS);\n    printf(\"\\n\");\n    ok = 0;\n  }\n  \
         {RANGE_CHECK}if (ok) {\n    printf(\"PASS: %s raised \", BUILD_NAME);\n    print_flags(raised);\n    printf(\"\\n\");\n  }\n  \
         return ok ? 0 : 1;\n}\n"
        .replace("{RANGE_CHECK}", &range_check(f.reached, f.ret)),
    );
    Ok(c)
}

/// The check that a `reach` result lands where the target asked (empty otherwise).
fn range_check(reached: Option<Reached>, ret: Type) -> String {
    let (lo, hi, inside) = match (reached, ret) {
        (Some(Reached::ResultInside { lo, hi }), Type::Scalar(ScalarTy::Float(_))) => {
            (lo, hi, true)
        }
        (Some(Reached::ResultOutside { lo, hi }), Type::Scalar(ScalarTy::Float(_))) => {
            (lo, hi, false)
        }
        _ => return String::new(),
    };
    let (lo, hi) = (c_float(lo, FloatTy::F64), c_float(hi, FloatTy::F64));
    let (test, what) = if inside {
        (
            format!("(double)result >= {lo} && (double)result <= {hi}"),
            format!("in [{lo}, {hi}]"),
        )
    } else {
        (
            format!("(double)result < {lo} || (double)result > {hi}"),
            format!("below {lo} or above {hi}"),
        )
    };
    format!(
        "if (!({test})) {{\n    printf(\"FAIL: %s result %a is not {what}\\n\", BUILD_NAME, (double)result);\n    ok = 0;\n  }}\n  "
    )
}

/// The body of `main` for a witness that ends the program: the call runs in a child
/// (it does not come back), which reports through a pipe if it returns instead.
fn ending_check(call: &str, reached: Reached) -> String {
    let (expected, what) = match reached {
        Reached::Exits { status } => (
            format!("WIFEXITED(status) && WEXITSTATUS(status) == {status}"),
            format!("exit with status {status}"),
        ),
        _ => (
            "WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT".to_string(),
            "abort (a failed assertion or reach_error)".to_string(),
        ),
    };
    format!(
        "  int pipefd[2];\n  if (pipe(pipefd) != 0) {{\n    perror(\"pipe\");\n    return 2;\n  }}\n  \
         fflush(stdout);\n  pid_t child = fork();\n  if (child < 0) {{\n    perror(\"fork\");\n    return 2;\n  }}\n  \
         if (child == 0) {{\n    close(pipefd[0]);\n    {call};\n    \
         if (write(pipefd[1], \"r\", 1) != 1)\n      _exit(3);\n    _exit(0);\n  }}\n  \
         close(pipefd[1]);\n  char mark;\n  int returned = read(pipefd[0], &mark, 1) == 1;\n  \
         int status = 0;\n  if (waitpid(child, &status, 0) != child) {{\n    perror(\"waitpid\");\n    return 2;\n  }}\n  \
         if (!returned && {expected}) {{\n    printf(\"PASS: %s: the call ends the program as expected ({what})\\n\", BUILD_NAME);\n    return 0;\n  }}\n  \
         printf(\"FAIL: %s: expected the call to {what}; it %s\\n\", BUILD_NAME,\n         \
         returned ? \"returned\" : \"ended the program otherwise\");\n  return 1;\n}}\n"
    )
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Diff => "diff",
        Mode::Exceptions => "exceptions",
        Mode::Reach => "reach",
        Mode::Error => "error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_constants_are_exact_c() {
        assert_eq!(c_float(0x7fe0_0000_0000_0000, FloatTy::F64), "0x1p+1023");
        assert_eq!(c_float(0x3fc0_0000, FloatTy::F32), "0x1.8p+0f");
        assert_eq!(
            c_float(0xfff0_0000_0000_0000, FloatTy::F64),
            "-__builtin_inf()"
        );
        assert_eq!(
            c_float(0x7ff8_0000_0000_0001, FloatTy::F64),
            "__builtin_nan(\"0x1\")"
        );
        assert_eq!(
            c_float(0xff80_0001, FloatTy::F32),
            "-__builtin_nansf(\"0x1\")"
        );
        assert_eq!(c_float(0x8000_0000_0000_0000, FloatTy::F64), "-0x0p+0");
    }

    #[test]
    fn shell_words_survive_the_shell() {
        assert_eq!(shell_word("-O3"), "-O3");
        assert_eq!(shell_word("-DMSG=\"hi there\""), "'-DMSG=\"hi there\"'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(c_flags(ExceptionSet(0x09)), "(FE_INVALID | FE_OVERFLOW)");
        assert_eq!(c_flags(ExceptionSet::EMPTY), "0");
    }
}
