//! The program's source files and their compiler flags, from the command line or a `compile_commands.json`.
//!
//! Flags that change what the code means are kept: include directories (`-I`, `-isystem`,
//! `-iquote`, `-idirafter`, resolved against the entry's `directory`), macros (`-D`, `-U`),
//! forced includes (`-include`, `-imacros`), the language standard (`-std`, `-ansi`) and
//! the `-f` flags of language semantics in [`SEMANTIC_F_FLAGS`]. Everything else a build
//! passes is dropped: the output and the source itself, `-c`, optimisation, debug
//! information, warnings, dependency files, target and code-generation choices, and the
//! project's own floating-point flags (`-ffast-math`, `-fno-math-errno`, `-ffp-contract`…):
//! P and P' are fpscout's recipes, and `--opt-flags` or `--cflag` say otherwise.

use crate::InputError;
use fpscout_toolchain::{BuildFlags, SourceFile, SourceKind, SourceSet};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `-f` flags kept from a compilation database entry: they change the language, not the
/// optimisation or the floating-point model.
pub const SEMANTIC_F_FLAGS: &[&str] = &[
    "-fwrapv",
    "-fno-wrapv",
    "-ftrapv",
    "-fstrict-aliasing",
    "-fno-strict-aliasing",
    "-fcommon",
    "-fno-common",
    "-fsigned-char",
    "-fno-signed-char",
    "-funsigned-char",
    "-fno-unsigned-char",
    "-fexceptions",
    "-fno-exceptions",
    "-fcxx-exceptions",
    "-fno-cxx-exceptions",
    "-frtti",
    "-fno-rtti",
    "-fshort-enums",
    "-fshort-wchar",
    "-fgnu89-inline",
    "-fms-extensions",
    "-fno-builtin",
    "-fno-delete-null-pointer-checks",
    "-fchar8_t",
    "-fno-char8_t",
    "-fgnu-keywords",
    "-fno-gnu-keywords",
    "-fsized-deallocation",
    "-fno-sized-deallocation",
    "-fno-threadsafe-statics",
];

/// Options of a compilation command whose value is the next argument and which fpscout
/// drops with it.
const DROPPED_WITH_VALUE: &[&str] = &[
    "-o",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-x",
    "-Xclang",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-arch",
    "-target",
    "-isysroot",
    "-include-pch",
    "--param",
    "-mllvm",
    "-imultilib",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "--serialize-diagnostics",
];

/// Options whose value is a path resolved against the entry's directory.
const PATH_OPTIONS: &[&str] = &[
    "-I",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-include",
    "-imacros",
];

/// Compiler flags of both builds and where the sources come from; flatten it into a
/// subcommand with `#[command(flatten)]`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct CompileArgs {
    /// Add DIR to the include search path of every compilation of both builds
    #[arg(short = 'I', value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Define a macro for both builds, as the compiler's -D
    #[arg(short = 'D', value_name = "NAME[=VALUE]", allow_hyphen_values = true)]
    pub defines: Vec<String>,
    /// Undefine a macro for both builds, as the compiler's -U
    #[arg(short = 'U', value_name = "NAME")]
    pub undefines: Vec<String>,
    /// Include FILE before each source, as the compiler's -include
    #[arg(long = "include", value_name = "FILE")]
    pub forced_includes: Vec<PathBuf>,
    /// Language standard of both builds, as the compiler's -std (c99, gnu11, c++17…)
    #[arg(long = "std", value_name = "STANDARD")]
    pub standard: Option<String>,
    /// Any other compiler flag for every compilation of both builds (repeatable:
    /// --cflag -fno-strict-aliasing --cflag -march=haswell)
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
    /// A compile_commands.json (CMake, Bear): each source gets its entry's include
    /// directories, macros and language flags; without FILE arguments every entry is
    /// analysed
    #[arg(long = "compile-commands", value_name = "FILE")]
    pub compile_commands: Option<PathBuf>,
}

impl CompileArgs {
    /// The flags every compilation of both builds gets, in the order the compiler takes
    /// them: include directories, macros defined then undefined, forced includes, the
    /// standard, then the `--cflag`s.
    pub fn common_flags(&self) -> Result<Vec<String>, InputError> {
        let mut flags = Vec::new();
        for dir in &self.include_dirs {
            flags.push(format!("-I{}", absolute(dir)?.display()));
        }
        for define in &self.defines {
            if define.is_empty() || define.starts_with('=') {
                return Err(InputError(format!(
                    "-D expects NAME or NAME=VALUE, got '{define}'"
                )));
            }
            flags.push(format!("-D{define}"));
        }
        for name in &self.undefines {
            flags.push(format!("-U{name}"));
        }
        for file in &self.forced_includes {
            let file = absolute(file)?;
            if !file.is_file() {
                return Err(InputError(format!(
                    "--include {}: no such file",
                    file.display()
                )));
            }
            flags.push("-include".into());
            flags.push(file.display().to_string());
        }
        if let Some(standard) = &self.standard {
            flags.push(format!("-std={standard}"));
        }
        flags.extend(self.cflags.iter().cloned());
        Ok(flags)
    }

    /// The sources to analyse: `files` as given, or with `--compile-commands` the entries
    /// they name (every entry when `files` is empty), each with its entry's flags.
    pub fn sources(&self, files: &[PathBuf]) -> Result<SourceSet, InputError> {
        let Some(database) = &self.compile_commands else {
            if files.is_empty() {
                return Err(InputError(
                    "no source file given (name one or more, or use --compile-commands)".into(),
                ));
            }
            return Ok(SourceSet {
                files: files.iter().map(SourceFile::new).collect(),
            });
        };
        let entries = read_compile_commands(database)?;
        if files.is_empty() {
            // A database also lists assembly and other languages; only C, C++ and IR
            // can be analysed.
            let analysable: Vec<SourceFile> = entries
                .into_iter()
                .filter(|e| SourceKind::of(&e.path).is_ok())
                .collect();
            if analysable.is_empty() {
                return Err(InputError(format!(
                    "{}: no C or C++ source in the compilation database",
                    database.display()
                )));
            }
            return Ok(SourceSet { files: analysable });
        }
        let mut selected = Vec::with_capacity(files.len());
        for file in files {
            let wanted = canonical(&absolute(file)?);
            let entry = entries
                .iter()
                .find(|e| canonical(&e.path) == wanted)
                .ok_or_else(|| {
                    InputError(format!(
                        "{}: not in the compilation database {}",
                        file.display(),
                        database.display()
                    ))
                })?;
            selected.push(entry.clone());
        }
        Ok(SourceSet { files: selected })
    }

    /// The sources and `flags` with the common flags added: what a subcommand needs to
    /// open a [`crate::session::Session`].
    pub fn apply(
        &self,
        files: &[PathBuf],
        flags: &mut BuildFlags,
    ) -> Result<SourceSet, InputError> {
        let sources = self.sources(files)?;
        flags.common.extend(self.common_flags()?);
        Ok(sources)
    }

    /// As [`CompileArgs::apply`], `.fpcore` files translated to C first (see
    /// [`translate_fpcore`]) and SV-COMP-style programs harnessed (see
    /// [`crate::svcomp`]); keep the [`FpCoreInputs`] while the sources are used.
    pub fn apply_translating(
        &self,
        files: &[PathBuf],
        flags: &mut BuildFlags,
    ) -> Result<(SourceSet, FpCoreInputs), InputError> {
        let (files, mut fpcore) = translate_fpcore(files)?;
        fpcore.require_some()?;
        let mut sources = self.apply(&files, flags)?;
        fpcore.harness = crate::svcomp::harness(&mut sources.files)?;
        Ok((sources, fpcore))
    }
}

/// One function translated from an FPCore: its C name, what the user may call it, and
/// what its `:pre` says.
#[derive(Clone, Debug, PartialEq)]
pub struct FpCoreFunction {
    /// The `.fpcore` file it comes from.
    pub file: PathBuf,
    /// Index of the FPCore in its file (from 0).
    pub index: usize,
    pub c_name: String,
    /// The `:name` property.
    pub fpcore_name: Option<String>,
    /// Arguments: (FPCore name, C parameter name).
    pub args: Vec<(String, String)>,
    /// `:pre` ranges by C parameter name: defaults of `--range`.
    pub ranges: Vec<(String, f64, f64)>,
    /// Parts of `:pre` that are not ranges, as text.
    pub ignored_pre: Vec<String>,
    /// The FPCore's body as the mathematical function (`error`'s reference) with its text,
    /// or why it cannot be one.
    pub reference: Result<(String, Arc<fpscout_fpcore::Reference>), String>,
}

impl FpCoreFunction {
    /// `:name` if any, else the C name: what lines and tables show.
    pub fn label(&self) -> &str {
        self.fpcore_name.as_deref().unwrap_or(&self.c_name)
    }

    /// The `:pre` ranges under the user's: a `--range` given for a parameter (by its C
    /// or its FPCore name) wins.
    pub fn ranges_under(&self, user: &mut HashMap<String, (f64, f64)>) {
        for (fp, c) in &self.args {
            if fp != c {
                if let Some(r) = user.remove(fp) {
                    user.entry(c.clone()).or_insert(r);
                }
            }
        }
        for (arg, lo, hi) in &self.ranges {
            user.entry(arg.clone()).or_insert((*lo, *hi));
        }
    }

    /// Notes on what of `:pre` is not searched as a range.
    pub fn notes(&self) -> Vec<String> {
        self.ignored_pre
            .iter()
            .map(|p| {
                format!(
                    "{}: :pre part `{p}` is not a range on one argument: ignored (inputs outside it may be reported)",
                    self.label()
                )
            })
            .collect()
    }
}

/// An FPCore that could not be translated, with the reason (`file:line:col: ...`).
#[derive(Clone, Debug, PartialEq)]
pub struct FpCoreUnsupported {
    pub file: PathBuf,
    pub index: usize,
    pub name: Option<String>,
    pub reason: String,
}

impl FpCoreUnsupported {
    /// `:name` if any, else `#index`.
    pub fn label(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("#{}", self.index))
    }
}

/// What the `.fpcore` arguments became: their functions and the FPCores left out. The
/// generated C lives in a directory owned by this value, so keep it as long as the
/// sources are used.
#[derive(Debug, Default)]
pub struct FpCoreInputs {
    pub functions: Vec<FpCoreFunction>,
    pub unsupported: Vec<FpCoreUnsupported>,
    /// Whether every source file was an FPCore file.
    pub only_fpcore: bool,
    dir: Option<tempfile::TempDir>,
    /// The harness of an SV-COMP-style program among the C sources.
    pub harness: Option<crate::svcomp::Harness>,
}

impl FpCoreInputs {
    /// Whether any `.fpcore` file was given.
    pub fn any(&self) -> bool {
        self.dir.is_some()
    }

    /// The temporary directory holding the C translations (gone when this is dropped).
    pub fn translation_dir(&self) -> Option<&Path> {
        self.dir.as_ref().map(|d| d.path())
    }

    /// The temporary directories of files the program is built from (C translations,
    /// SV-COMP harness files), gone when this is dropped.
    pub fn temporary_dirs(&self) -> Vec<&Path> {
        self.translation_dir()
            .into_iter()
            .chain(self.harness.as_ref().map(|h| h.dir()))
            .collect()
    }

    /// The FPCore function `name` stands for (its `:name`, its C name or `#index`, the
    /// index of the FPCore in its file from 0), `None` when it
    /// names none and other sources may define it; an unsupported FPCore is an error
    /// with its reason.
    pub fn resolve(&self, name: &str) -> Result<Option<&FpCoreFunction>, InputError> {
        if !self.any() {
            return Ok(None);
        }
        if let Some(f) = self
            .functions
            .iter()
            .find(|f| f.c_name == name || format!("#{}", f.index) == name)
        {
            return Ok(Some(f));
        }
        if let Some(f) = self
            .functions
            .iter()
            .find(|f| f.fpcore_name.as_deref() == Some(name))
        {
            return Ok(Some(f));
        }
        if let Some(u) = self
            .unsupported
            .iter()
            .find(|u| u.name.as_deref() == Some(name) || format!("#{}", u.index) == name)
        {
            return Err(InputError(format!(
                "FPCore '{}' is not supported: {}",
                u.label(),
                u.reason
            )));
        }
        if self.only_fpcore {
            let known: Vec<&str> = self.functions.iter().map(FpCoreFunction::label).collect();
            return Err(InputError(format!(
                "no FPCore named '{name}' (supported: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
        Ok(None)
    }

    /// The function to analyse for a harnessed SV-COMP program: its harness when the user
    /// names `main` or nothing.
    pub fn harness_entry(&self, name: Option<&str>) -> Option<String> {
        self.harness
            .as_ref()
            .filter(|_| name.is_none_or(|n| n == "main"))
            .map(|_| crate::svcomp::HARNESS_FUNCTION.to_string())
    }

    /// An error when FPCore files were given and none of their FPCores is supported.
    pub fn require_some(&self) -> Result<(), InputError> {
        if self.any() && self.functions.is_empty() && self.only_fpcore {
            let reasons: Vec<String> = self
                .unsupported
                .iter()
                .take(5)
                .map(|u| u.reason.clone())
                .collect();
            return Err(InputError(format!(
                "no supported FPCore in the input: {}",
                if reasons.is_empty() {
                    "the file has no FPCore".to_string()
                } else {
                    reasons.join("; ")
                }
            )));
        }
        Ok(())
    }
}

/// Whether `path` is an FPBench FPCore file (`.fpcore`).
pub fn is_fpcore(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()) == Some("fpcore")
}

/// Translates every `.fpcore` file of `files` into a C file (in a directory the returned
/// [`FpCoreInputs`] owns) and returns the file list with the C files in their place.
/// FPCores that cannot be translated are listed, not errors; a file that cannot be read
/// or parsed is.
pub fn translate_fpcore(files: &[PathBuf]) -> Result<(Vec<PathBuf>, FpCoreInputs), InputError> {
    let mut inputs = FpCoreInputs {
        only_fpcore: !files.is_empty() && files.iter().all(|f| is_fpcore(f)),
        ..FpCoreInputs::default()
    };
    let mut out = Vec::with_capacity(files.len());
    for (k, file) in files.iter().enumerate() {
        if !is_fpcore(file) {
            out.push(file.clone());
            continue;
        }
        let text = std::fs::read_to_string(file)
            .map_err(|e| InputError(format!("{}: cannot read: {e}", file.display())))?;
        let cores = fpscout_fpcore::parse_file(&text)
            .map_err(|e| InputError(format!("{}:{e}", file.display())))?;
        let (translation, errors) = fpscout_fpcore::to_c_lenient(&cores);
        for e in errors {
            let index = error_core(&e).unwrap_or(0);
            inputs.unsupported.push(FpCoreUnsupported {
                file: file.clone(),
                index,
                name: cores.get(index).and_then(|c| c.name.clone()),
                reason: format!("{}:{e}", file.display()),
            });
        }
        for f in translation.functions {
            inputs.functions.push(FpCoreFunction {
                file: file.clone(),
                index: f.index,
                args: f
                    .args
                    .iter()
                    .map(|a| (a.fpcore_name.clone(), a.c_name.clone()))
                    .collect(),
                ranges: f
                    .ranges
                    .iter()
                    .filter(|r| r.lo.is_finite() && r.hi.is_finite())
                    .map(|r| (r.arg.clone(), r.lo, r.hi))
                    .collect(),
                ignored_pre: f.ignored_pre.clone(),
                reference: cores
                    .get(f.index)
                    .ok_or_else(|| "no such FPCore".to_string())
                    .and_then(|core| {
                        // One line, as reports show it.
                        let text = core
                            .body
                            .text(&core.source)
                            .split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ");
                        fpscout_fpcore::Reference::from_core(core)
                            .map(|r| (text, Arc::new(r)))
                            .map_err(|e| e.to_string())
                    }),
                c_name: f.c_name,
                fpcore_name: f.fpcore_name,
            });
        }
        if inputs.dir.is_none() {
            inputs.dir = Some(
                tempfile::Builder::new()
                    .prefix("fpscout-fpcore-")
                    .tempdir()
                    .map_err(|e| InputError(format!("cannot create a directory: {e}")))?,
            );
        }
        let dir = inputs
            .dir
            .as_ref()
            .map(|d| d.path())
            .unwrap_or(Path::new("."));
        // One subdirectory per file keeps the C file's name that of the FPCore file.
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("fpcore");
        let sub = dir.join(k.to_string());
        std::fs::create_dir_all(&sub)
            .and_then(|()| std::fs::write(sub.join(format!("{stem}.c")), &translation.c_source))
            .map_err(|e| InputError(format!("cannot write the C of {}: {e}", file.display())))?;
        out.push(sub.join(format!("{stem}.c")));
    }
    Ok((out, inputs))
}

/// The FPCore an error is about.
fn error_core(e: &fpscout_fpcore::FpCoreError) -> Option<usize> {
    use fpscout_fpcore::FpCoreError as E;
    match e {
        E::Syntax { .. } => None,
        E::Malformed { core, .. }
        | E::UnsupportedPrecision { core, .. }
        | E::UnsupportedOperation { core, .. }
        | E::UnsupportedArray { core, .. }
        | E::UnsupportedProperty { core, .. }
        | E::UnboundVariable { core, .. }
        | E::Type { core, .. } => Some(*core),
    }
}

/// Reads a compilation database: one [`SourceFile`] per entry (the first entry of a file
/// compiled several times), its path absolute and its flags those that matter to what
/// the code means.
pub fn read_compile_commands(path: &Path) -> Result<Vec<SourceFile>, InputError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError(format!("{}: cannot read: {e}", path.display())))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| {
        InputError(format!(
            "{}: not a compilation database (invalid JSON: {e})",
            path.display()
        ))
    })?;
    let Value::Array(entries) = json else {
        return Err(InputError(format!(
            "{}: not a compilation database (expected a JSON array of entries)",
            path.display()
        )));
    };
    // A relative "directory" is taken from where the database is.
    let database_dir = absolute(path)?
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut files: Vec<SourceFile> = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let bad = |why: &str| InputError(format!("{}: entry {index}: {why}", path.display()));
        let field = |name: &str| entry.get(name).and_then(Value::as_str);
        let directory = field("directory").ok_or_else(|| bad("no \"directory\" string"))?;
        let file = field("file").ok_or_else(|| bad("no \"file\" string"))?;
        let arguments: Vec<String> = match (entry.get("arguments"), field("command")) {
            (Some(Value::Array(items)), _) => items
                .iter()
                .map(|a| a.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| bad("\"arguments\" must be an array of strings"))?,
            (Some(_), _) => return Err(bad("\"arguments\" must be an array of strings")),
            (None, Some(command)) => {
                shlex::split(command).ok_or_else(|| bad("\"command\" has unbalanced quotes"))?
            }
            (None, None) => return Err(bad("neither \"arguments\" nor \"command\"")),
        };
        let directory = database_dir.join(directory);
        let source = directory.join(file);
        if files.iter().any(|f| f.path == source) {
            continue;
        }
        // The first argument is the compiler.
        let flags = semantic_flags(arguments.get(1..).unwrap_or_default(), &directory);
        files.push(SourceFile {
            path: source,
            flags,
        });
    }
    Ok(files)
}

/// The flags of one compilation command (without the compiler) that change what the code
/// means, paths resolved against `directory`; see the module documentation.
pub fn semantic_flags(arguments: &[String], directory: &Path) -> Vec<String> {
    let mut kept = Vec::new();
    let mut args = arguments.iter();
    while let Some(arg) = args.next() {
        let arg = arg.as_str();
        if DROPPED_WITH_VALUE.contains(&arg) {
            args.next();
            continue;
        }
        if let Some(option) = PATH_OPTIONS.iter().find(|o| arg.starts_with(**o)) {
            let attached = &arg[option.len()..];
            let value = if attached.is_empty() {
                match args.next() {
                    Some(v) => v.as_str(),
                    None => continue,
                }
            } else {
                attached
            };
            let resolved = directory.join(value).display().to_string();
            if option.len() == 2 {
                kept.push(format!("{option}{resolved}"));
            } else {
                kept.push(option.to_string());
                kept.push(resolved);
            }
            continue;
        }
        if arg == "-D" || arg == "-U" {
            if let Some(value) = args.next() {
                kept.push(format!("{arg}{value}"));
            }
            continue;
        }
        let keep = arg.starts_with("-D")
            || arg.starts_with("-U")
            || arg.starts_with("-std=")
            || arg == "-ansi"
            || SEMANTIC_F_FLAGS.contains(&arg)
            || arg.starts_with("-fno-builtin-");
        if keep {
            kept.push(arg.to_string());
        }
    }
    kept
}

fn absolute(p: &Path) -> Result<PathBuf, InputError> {
    std::path::absolute(p).map_err(|e| InputError(format!("{}: {e}", p.display())))
}

/// The path with symbolic links and `..` resolved when it exists, as given otherwise.
fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn keeps_what_changes_meaning_and_resolves_paths() {
        let args = strings(&[
            "-I",
            "include",
            "-Iabs/dir",
            "-isystem",
            "/usr/x",
            "-iquote",
            "q",
            "-DN=3",
            "-D",
            "M",
            "-UNDEBUG",
            "-include",
            "config.h",
            "-std=gnu11",
            "-fno-strict-aliasing",
            "-fno-builtin-sin",
            "-c",
            "-o",
            "out.o",
            "-O2",
            "-g",
            "-Wall",
            "-Werror",
            "-ffast-math",
            "-fno-math-errno",
            "-fPIC",
            "-march=native",
            "-MD",
            "-MF",
            "dep.d",
            "-x",
            "c",
            "src/a.c",
        ]);
        assert_eq!(
            semantic_flags(&args, Path::new("/build")),
            strings(&[
                "-I/build/include",
                "-I/build/abs/dir",
                "-isystem",
                "/usr/x",
                "-iquote",
                "/build/q",
                "-DN=3",
                "-DM",
                "-UNDEBUG",
                "-include",
                "/build/config.h",
                "-std=gnu11",
                "-fno-strict-aliasing",
                "-fno-builtin-sin",
            ])
        );
    }

    fn database(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("compile_commands.json");
        std::fs::write(&path, text).expect("write database");
        (dir, path)
    }

    #[test]
    fn reads_arguments_and_commands() {
        let (_dir, path) = database(
            r#"[
              {"directory": "/src", "file": "a.c", "arguments": ["cc", "-DA=1", "-c", "a.c"]},
              {"directory": "/src", "file": "/src/b.c", "command": "cc -I inc '-DMSG=\"hi there\"' -o b.o -c b.c"},
              {"directory": "/src", "file": "a.c", "arguments": ["cc", "-DA=2", "-c", "a.c"]}
            ]"#,
        );
        let files = read_compile_commands(&path).expect("valid database");
        assert_eq!(files.len(), 2, "a.c compiled twice counts once: {files:?}");
        assert_eq!(files[0].path, PathBuf::from("/src/a.c"));
        assert_eq!(files[0].flags, strings(&["-DA=1"]));
        assert_eq!(files[1].path, PathBuf::from("/src/b.c"));
        assert_eq!(
            files[1].flags,
            strings(&["-I/src/inc", "-DMSG=\"hi there\""])
        );
    }

    #[test]
    fn bad_databases_name_the_file_and_the_entry() {
        for (text, expected) in [
            ("[{\"directory\": ", "invalid JSON"),
            ("{}", "expected a JSON array"),
            (
                r#"[{"file": "a.c", "command": "cc a.c"}]"#,
                "entry 0: no \"directory\"",
            ),
            (r#"[{"directory": "/", "file": "a.c"}]"#, "entry 0: neither"),
            (
                r#"[{"directory": "/", "file": "a.c", "command": "cc 'a.c"}]"#,
                "unbalanced",
            ),
        ] {
            let (_dir, path) = database(text);
            let err = read_compile_commands(&path).expect_err(text).0;
            assert!(err.contains("compile_commands.json"), "{err}");
            assert!(err.contains(expected), "{text}: {err}");
        }
        let err = read_compile_commands(Path::new("/nonexistent/compile_commands.json"))
            .expect_err("missing file")
            .0;
        assert!(
            err.contains("/nonexistent/compile_commands.json: cannot read"),
            "{err}"
        );
    }

    #[test]
    fn files_select_entries_and_default_to_all() {
        let dir = tempfile::tempdir().expect("temp dir");
        for name in ["a.c", "b.c", "start.S"] {
            std::fs::write(dir.path().join(name), "").expect("write source");
        }
        let db = dir.path().join("compile_commands.json");
        let entry = |file: &str, define: &str| {
            serde_json::json!({"directory": dir.path(), "file": file,
                               "arguments": ["cc", define, "-c", file]})
        };
        let entries = vec![
            entry("a.c", "-DA"),
            entry("b.c", "-DB"),
            entry("start.S", "-DS"),
        ];
        std::fs::write(&db, serde_json::to_string(&entries).expect("json")).expect("write");
        let args = CompileArgs {
            compile_commands: Some(db),
            ..CompileArgs::default()
        };
        let all = args.sources(&[]).expect("all entries");
        let names: Vec<_> = all.files.iter().map(|f| f.path.clone()).collect();
        assert_eq!(names, vec![dir.path().join("a.c"), dir.path().join("b.c")]);
        let b = args.sources(&[dir.path().join("b.c")]).expect("b.c");
        assert_eq!(b.files[0].flags, strings(&["-DB"]));
        let err = args
            .sources(&[PathBuf::from("c.c")])
            .expect_err("not an entry")
            .0;
        assert!(
            err.contains("c.c: not in the compilation database"),
            "{err}"
        );
    }

    #[test]
    fn common_flags_in_compiler_order() {
        let args = CompileArgs {
            include_dirs: vec![PathBuf::from("/inc")],
            defines: strings(&["N=3", "M"]),
            undefines: strings(&["NDEBUG"]),
            standard: Some("c99".into()),
            cflags: strings(&["-fwrapv"]),
            ..CompileArgs::default()
        };
        assert_eq!(
            args.common_flags().expect("valid flags"),
            strings(&["-I/inc", "-DN=3", "-DM", "-UNDEBUG", "-std=c99", "-fwrapv"])
        );
        let bad = CompileArgs {
            defines: strings(&["=1"]),
            ..CompileArgs::default()
        };
        assert!(bad.common_flags().is_err());
    }
}
