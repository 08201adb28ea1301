//! Locates clang-19, opt-19 and llvm-link-19 and turns source files into the two builds
//! fpscout compares.
//!
//! P is the unoptimised build (`-O0 -Xclang -disable-O0-optnone -ffp-contract=off -g`, then
//! `opt -passes=mem2reg` for IR); P' is the optimised one (`-O3 -ffast-math -g` unless the
//! user gives other flags). The same flags serve for IR and for native objects, so the IR
//! fpscout walks and the code the native runner executes come from one compilation recipe.
//! Several sources are compiled one by one (each with its own flags, as its build compiles
//! it) and their IR linked with llvm-link into one module per build, while the native
//! executables link the objects: no cross-file optimisation in either.

pub mod cache;
mod fast_math;

use cache::Key;
pub use cache::{compile_stats, CompileCache, CompileStats};
pub use fast_math::FastMathOption;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// Flags of the unoptimised build P.
pub const P_FLAGS: &[&str] = &[
    "-O0",
    "-Xclang",
    "-disable-O0-optnone",
    "-ffp-contract=off",
    "-g",
];
/// Default flags of the optimised build P'.
pub const P_PRIME_DEFAULT_FLAGS: &[&str] = &["-O3", "-ffast-math", "-g"];

#[derive(Debug, thiserror::Error)]
pub enum ToolchainError {
    #[error("{tool} not found: install clang-19 and llvm-19 (apt-get install -y clang-19 llvm-19-dev) or set {env_var} to its path")]
    NotFound {
        tool: &'static str,
        env_var: &'static str,
    },
    #[error("source file {0} does not exist")]
    MissingSource(PathBuf),
    #[error(
        "{path}: unsupported file extension (expected .c, .i, .cc, .cpp, .cxx, .ii, .ll or .bc)"
    )]
    UnknownExtension { path: PathBuf },
    #[error("clang could not compile {path} for build {build} (flags: {flags}):\n{diagnostics}")]
    CompileFailed {
        path: PathBuf,
        build: String,
        flags: String,
        diagnostics: String,
    },
    #[error("{tool} failed: {diagnostics}")]
    ToolFailed { tool: String, diagnostics: String },
    #[error("I/O error while running {what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
}

pub type Result<T> = std::result::Result<T, ToolchainError>;

/// Which of the two compared builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BuildKind {
    P,
    PPrime,
}

impl BuildKind {
    pub const BOTH: [BuildKind; 2] = [BuildKind::P, BuildKind::PPrime];
    pub fn label(self) -> &'static str {
        match self {
            BuildKind::P => "P",
            BuildKind::PPrime => "P'",
        }
    }
}

impl fmt::Display for BuildKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Source language of an input file. Preprocessed sources (`.i`, `.ii`) are C and C++:
/// clang takes them as `cpp-output` by their extension, so the preprocessor does not run
/// again (a preprocessed file may use identifiers such as `linux` that GNU C predefines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    C,
    Cxx,
    LlvmText,
    LlvmBitcode,
}

impl SourceKind {
    pub fn of(path: &Path) -> Result<SourceKind> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        match ext {
            "c" | "i" => Ok(SourceKind::C),
            "cc" | "cpp" | "cxx" | "C" | "c++" | "ii" => Ok(SourceKind::Cxx),
            "ll" => Ok(SourceKind::LlvmText),
            "bc" => Ok(SourceKind::LlvmBitcode),
            _ => Err(ToolchainError::UnknownExtension {
                path: path.to_path_buf(),
            }),
        }
    }
    pub fn is_ir(self) -> bool {
        matches!(self, SourceKind::LlvmText | SourceKind::LlvmBitcode)
    }

    /// Whether `path` is already preprocessed (`.i`, `.ii`): `-include` and other
    /// preprocessor flags do not apply to it.
    pub fn is_preprocessed(path: &Path) -> bool {
        matches!(path.extension().and_then(|e| e.to_str()), Some("i" | "ii"))
    }
}

/// One source file (C, C++, `.ll` or `.bc`) and the flags its own build compiles it with
/// that matter to its meaning (include directories, macros, language standard); both
/// builds give them to clang between their recipe and the common flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub path: PathBuf,
    pub flags: Vec<String>,
}

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>) -> SourceFile {
        SourceFile {
            path: path.into(),
            flags: Vec::new(),
        }
    }
}

/// The source files of one program, compiled separately and linked into each build.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceSet {
    pub files: Vec<SourceFile>,
}

impl SourceSet {
    pub fn single(path: impl Into<PathBuf>) -> SourceSet {
        SourceSet {
            files: vec![SourceFile::new(path)],
        }
    }

    /// The files' paths joined with ", ", for messages.
    pub fn describe(&self) -> String {
        let paths: Vec<String> = self
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect();
        paths.join(", ")
    }

    /// Whether linking needs the C++ runtime: IR may come from C++ too, and linking
    /// libstdc++ into a C program is harmless.
    pub fn needs_cxx_runtime(&self) -> Result<bool> {
        for file in &self.files {
            if SourceKind::of(&file.path)? != SourceKind::C {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The compiler flags of both builds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildFlags {
    pub p: Vec<String>,
    pub p_prime: Vec<String>,
    /// Flags every compilation of both builds gets after the build's recipe: the user's
    /// `-I`, `-D`, `-U`, `-include`, `-std` and `--cflag` (after a source file's own flags).
    pub common: Vec<String>,
    /// What both builds' executables link against besides the source: `-lNAME`,
    /// `-LDIR`, and paths of `.so`, `.a` and `.o` files, in command-line order.
    pub libraries: Vec<String>,
    /// A function of the program (no parameters) that runs before every evaluation, in
    /// the interpreter and the executables alike (`--setup-call`): a library's set-up such
    /// as `gsl_set_error_handler_off`.
    pub setup_call: Option<String>,
}

impl Default for BuildFlags {
    fn default() -> Self {
        BuildFlags {
            p: P_FLAGS.iter().map(|s| s.to_string()).collect(),
            p_prime: P_PRIME_DEFAULT_FLAGS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            common: Vec::new(),
            libraries: Vec::new(),
            setup_call: None,
        }
    }
}

impl BuildFlags {
    /// P' flags from a user string such as `"-O2 -ffast-math"` (whitespace separated).
    pub fn with_p_prime(opt_flags: &str) -> BuildFlags {
        BuildFlags {
            p_prime: with_debug_info(opt_flags),
            ..BuildFlags::default()
        }
    }
    /// These flags with P compiled with `p_flags` instead of fpscout's own recipe
    /// (whitespace separated; `-g` added when missing, for source locations).
    pub fn with_p(mut self, p_flags: &str) -> BuildFlags {
        self.p = with_debug_info(p_flags);
        self
    }

    pub fn of(&self, build: BuildKind) -> &[String] {
        match build {
            BuildKind::P => &self.p,
            BuildKind::PPrime => &self.p_prime,
        }
    }
    /// The recipe of `build` followed by the common flags: what every compilation and the
    /// link of that build get.
    pub fn compile_flags(&self, build: BuildKind) -> Vec<String> {
        let mut flags = self.of(build).to_vec();
        flags.extend(self.common.iter().cloned());
        flags
    }

    /// What `file` is compiled with in `build`: the recipe, the file's own flags, then the
    /// common flags, so that the user's command line has the last word (a `-D` or `-std`
    /// given to fpscout overrides the project's).
    pub fn for_file(&self, build: BuildKind, file: &SourceFile) -> Vec<String> {
        let mut flags = self.of(build).to_vec();
        flags.extend(file.flags.iter().cloned());
        flags.extend(self.common.iter().cloned());
        flags
    }

    /// Whether a build links `crtfastmath.o`, which sets FTZ/DAZ at program start-up.
    pub fn links_fast_math(&self, build: BuildKind) -> bool {
        let flags = self.compile_flags(build);
        let mut fast = false;
        for f in &flags {
            match f.as_str() {
                "-ffast-math" | "-Ofast" | "-funsafe-math-optimizations" => fast = true,
                "-fno-fast-math" | "-fno-unsafe-math-optimizations" => fast = false,
                _ => {}
            }
        }
        fast
    }
}

/// Whitespace-separated flags with `-g` added when no `-g…` is there.
fn with_debug_info(flags: &str) -> Vec<String> {
    let mut out: Vec<String> = flags.split_whitespace().map(str::to_string).collect();
    if !out.iter().any(|f| f.starts_with("-g")) {
        out.push("-g".to_string());
    }
    out
}

/// Paths of the LLVM 19 tools fpscout runs.
#[derive(Clone, Debug)]
pub struct Toolchain {
    pub clang: PathBuf,
    pub opt: PathBuf,
    pub llvm_link: PathBuf,
    /// Where compiled IR, objects, printouts and executables are kept by content
    /// (`None`: every step runs).
    pub cache: Option<Arc<CompileCache>>,
}

fn find_tool(env_var: &'static str, tool: &'static str, candidates: &[&str]) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(env_var) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
    }
    for c in candidates {
        let p = Path::new(c);
        if p.is_absolute() {
            if p.is_file() {
                return Ok(p.to_path_buf());
            }
        } else if let Some(paths) = std::env::var_os("PATH") {
            for dir in std::env::split_paths(&paths) {
                let full = dir.join(c);
                if full.is_file() {
                    return Ok(full);
                }
            }
        }
    }
    Err(ToolchainError::NotFound { tool, env_var })
}

fn run(cmd: &mut Command, what: &str) -> Result<std::process::Output> {
    cmd.output().map_err(|source| ToolchainError::Io {
        what: what.to_string(),
        source,
    })
}

impl Toolchain {
    /// Finds clang-19, opt-19 and llvm-link-19 (`FPSCOUT_CLANG`/`FPSCOUT_OPT`/
    /// `FPSCOUT_LLVM_LINK` override).
    pub fn discover() -> Result<Toolchain> {
        let clang = find_tool(
            "FPSCOUT_CLANG",
            "clang-19",
            &["clang-19", "/usr/lib/llvm-19/bin/clang"],
        )?;
        let opt = find_tool(
            "FPSCOUT_OPT",
            "opt-19",
            &["opt-19", "/usr/lib/llvm-19/bin/opt"],
        )?;
        let llvm_link = find_tool(
            "FPSCOUT_LLVM_LINK",
            "llvm-link-19",
            &["llvm-link-19", "/usr/lib/llvm-19/bin/llvm-link"],
        )?;
        let cache = cache::default_dir()
            .map(|dir| Arc::new(CompileCache::open(dir, &clang, &[&clang, &opt, &llvm_link])));
        Ok(Toolchain {
            clang,
            opt,
            llvm_link,
            cache,
        })
    }

    /// This toolchain with every step run, nothing read from or written to the cache.
    pub fn without_cache(mut self) -> Toolchain {
        self.cache = None;
        self
    }

    fn cache(&self) -> Option<&CompileCache> {
        self.cache.as_deref()
    }

    fn clang_for(&self, kind: SourceKind) -> Command {
        let mut cmd = Command::new(&self.clang);
        if kind == SourceKind::Cxx {
            cmd.arg("--driver-mode=g++");
        }
        cmd
    }

    /// Compiles `src` to textual LLVM IR for `build` in `out_dir`; returns the `.ll` path.
    pub fn compile_to_ir(
        &self,
        src: &Path,
        build: BuildKind,
        flags: &BuildFlags,
        out_dir: &Path,
    ) -> Result<PathBuf> {
        let out = out_dir.join(format!("{}.ll", build_stem(build)));
        self.compile_file_to_ir(&SourceFile::new(src), build, flags, &out)?;
        Ok(out)
    }

    /// The IR of `build` of all of `sources` as one module: each file compiled with its
    /// flags (IR input is used as is for P), then linked with llvm-link when there are
    /// several. Returns the path of the IR file (text or bitcode).
    pub fn sources_to_ir(
        &self,
        sources: &SourceSet,
        build: BuildKind,
        flags: &BuildFlags,
        out_dir: &Path,
    ) -> Result<PathBuf> {
        let stem = build_stem(build);
        let mut modules = Vec::with_capacity(sources.files.len());
        for (index, file) in sources.files.iter().enumerate() {
            if !file.path.exists() {
                return Err(ToolchainError::MissingSource(file.path.clone()));
            }
            if SourceKind::of(&file.path)?.is_ir() && build == BuildKind::P {
                modules.push(file.path.clone());
                continue;
            }
            let out = if sources.files.len() == 1 {
                out_dir.join(format!("{stem}.ll"))
            } else {
                out_dir.join(format!("{stem}.{index}.ll"))
            };
            self.compile_file_to_ir(file, build, flags, &out)?;
            modules.push(out);
        }
        match modules.as_slice() {
            [] => Err(ToolchainError::ToolFailed {
                tool: "clang".into(),
                diagnostics: "no source file given".into(),
            }),
            [one] => Ok(one.clone()),
            _ => {
                let linked = out_dir.join(format!("{stem}.linked.ll"));
                // llvm-link's output names no input file: the modules count by content.
                let mut key = Key::new("llvm-link -S");
                for m in &modules {
                    key.file(m, false);
                }
                cache::step(self.cache(), key, false, false, &[&linked], |_| {
                    let mut cmd = Command::new(&self.llvm_link);
                    cmd.arg("-S").arg("-o").arg(&linked).args(&modules);
                    let output = run(&mut cmd, "llvm-link")?;
                    if !output.status.success() {
                        return Err(ToolchainError::ToolFailed {
                            tool: format!("llvm-link (build {build}, {})", sources.describe()),
                            diagnostics: String::from_utf8_lossy(&output.stderr).into_owned(),
                        });
                    }
                    Ok(Vec::new())
                })?;
                Ok(linked)
            }
        }
    }

    /// Compiles one file to textual IR at `out` (P: then `opt -passes=mem2reg`).
    fn compile_file_to_ir(
        &self,
        file: &SourceFile,
        build: BuildKind,
        flags: &BuildFlags,
        out: &Path,
    ) -> Result<()> {
        let src = &file.path;
        if !src.exists() {
            return Err(ToolchainError::MissingSource(src.to_path_buf()));
        }
        let kind = SourceKind::of(src)?;
        let raw = out.with_extension("raw.ll");
        let file_flags = flags.for_file(build, file);
        let mut key = Key::new("ir");
        key.text(build.label());
        key.args(&file_flags);
        key.file(src, true);
        cache::step(self.cache(), key, false, !kind.is_ir(), &[out], |depfile| {
            let mut cmd = self.clang_for(kind);
            cmd.args(&file_flags);
            if let Some(d) = depfile {
                cmd.arg("-MD").arg("-MF").arg(d);
            }
            cmd.arg("-S").arg("-emit-llvm").arg("-o").arg(&raw).arg(src);
            let output = run(&mut cmd, "clang")?;
            if !output.status.success() {
                return Err(ToolchainError::CompileFailed {
                    path: src.to_path_buf(),
                    build: build.label().to_string(),
                    flags: file_flags.join(" "),
                    diagnostics: String::from_utf8_lossy(&output.stderr).into_owned(),
                });
            }
            if build == BuildKind::P {
                let mut cmd = Command::new(&self.opt);
                cmd.arg("-passes=mem2reg")
                    .arg("-S")
                    .arg("-o")
                    .arg(out)
                    .arg(&raw);
                let output = run(&mut cmd, "opt")?;
                if !output.status.success() {
                    return Err(ToolchainError::ToolFailed {
                        tool: "opt -passes=mem2reg".into(),
                        diagnostics: String::from_utf8_lossy(&output.stderr).into_owned(),
                    });
                }
            } else {
                std::fs::rename(&raw, out).map_err(|source| ToolchainError::Io {
                    what: "rename".into(),
                    source,
                })?;
            }
            Ok(Vec::new())
        })?;
        Ok(())
    }

    /// Compiles `src` (C, C++ or LLVM IR) to an object file with `flags`.
    pub fn compile_object(&self, src: &Path, flags: &[String], out: &Path) -> Result<()> {
        if !src.exists() {
            return Err(ToolchainError::MissingSource(src.to_path_buf()));
        }
        let kind = SourceKind::of(src)?;
        let mut key = Key::new("object");
        key.args(flags);
        key.file(src, !kind.is_ir());
        cache::step(self.cache(), key, false, !kind.is_ir(), &[out], |depfile| {
            let mut cmd = self.clang_for(kind);
            cmd.args(flags);
            if let Some(d) = depfile {
                cmd.arg("-MD").arg("-MF").arg(d);
            }
            cmd.arg("-c").arg("-o").arg(out).arg(src);
            let output = run(&mut cmd, "clang")?;
            if !output.status.success() {
                return Err(ToolchainError::CompileFailed {
                    path: src.to_path_buf(),
                    build: "native".into(),
                    flags: flags.join(" "),
                    diagnostics: String::from_utf8_lossy(&output.stderr).into_owned(),
                });
            }
            Ok(Vec::new())
        })?;
        Ok(())
    }

    /// Compiles the C program `code` (read from standard input, so no file name enters
    /// the object) to the object `out` with `flags`; `what` names it in errors.
    pub fn compile_c_text(&self, code: &str, flags: &[&str], out: &Path, what: &str) -> Result<()> {
        let mut key = Key::new("object from stdin");
        key.args(flags);
        key.text(code);
        cache::step(self.cache(), key, false, true, &[out], |depfile| {
            let mut cmd = Command::new(&self.clang);
            cmd.args(flags).arg("-c").arg("-o").arg(out);
            if let Some(d) = depfile {
                cmd.arg("-MD").arg("-MF").arg(d);
            }
            cmd.args(["-x", "c", "-"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let io = |source| ToolchainError::Io {
                what: format!("clang ({what})"),
                source,
            };
            let mut child = cmd.spawn().map_err(io)?;
            if let Some(mut stdin) = child.stdin.take() {
                std::io::Write::write_all(&mut stdin, code.as_bytes()).map_err(io)?;
            }
            let output = child.wait_with_output().map_err(io)?;
            if !output.status.success() {
                return Err(ToolchainError::ToolFailed {
                    tool: format!("clang ({what})"),
                    diagnostics: String::from_utf8_lossy(&output.stderr).into_owned(),
                });
            }
            Ok(Vec::new())
        })?;
        Ok(())
    }

    /// Links objects into an executable; `cxx` links the C++ runtime, `link_flags` may
    /// carry `-ffast-math` so clang adds `crtfastmath.o` as a real build would.
    pub fn link(
        &self,
        objects: &[PathBuf],
        link_flags: &[String],
        libraries: &[String],
        cxx: bool,
        out: &Path,
    ) -> Result<()> {
        // The objects count by content (they live in fresh directories); everything else
        // the linker read (libraries, start files) is in its dependency file.
        let mut key = Key::new("link");
        key.text(if cxx { "c++" } else { "c" });
        key.args(link_flags);
        key.args(libraries);
        for o in objects {
            key.file(o, false);
        }
        let plain_link = || {
            let mut cmd = Command::new(&self.clang);
            if cxx {
                cmd.arg("--driver-mode=g++");
            }
            cmd.args(link_flags)
                .args(objects)
                .args(libraries)
                .arg("-lm")
                .arg("-o")
                .arg(out);
            cmd
        };
        cache::step(self.cache(), key, true, true, &[out], |depfile| {
            let cmd = plain_link();
            let mut with_depfile = cmd;
            if let Some(d) = depfile {
                let mut arg = OsString::from("-Wl,--dependency-file=");
                arg.push(d);
                with_depfile.arg(arg);
            }
            let mut output = run(&mut with_depfile, "clang (link)")?;
            if !output.status.success()
                && String::from_utf8_lossy(&output.stderr).contains("dependency-file")
            {
                // A linker without --dependency-file (GNU ld before 2.35): link without
                // it; with no dependency file the result is not cached.
                output = run(&mut plain_link(), "clang (link)")?;
            }
            if !output.status.success() {
                return Err(ToolchainError::ToolFailed {
                    tool: "clang (link)".into(),
                    diagnostics: String::from_utf8_lossy(&output.stderr).into_owned(),
                });
            }
            Ok(Vec::new())
        })?;
        Ok(())
    }

    /// What clang prints (its stderr) when it compiles `src` to an object, thrown away,
    /// with `flags` and each of `llvm_options` passed on with `-mllvm` (such as
    /// `-print-after=machine-combiner`, for the backend's machine-code dumps).
    /// `backend_only` skips the IR optimisation pipeline (for IR that already went
    /// through it).
    pub fn llvm_printout(
        &self,
        src: &Path,
        flags: &[String],
        backend_only: bool,
        llvm_options: &[&str],
    ) -> Result<String> {
        if !src.exists() {
            return Err(ToolchainError::MissingSource(src.to_path_buf()));
        }
        let kind = SourceKind::of(src)?;
        let mut key = Key::new("printout");
        key.args(flags);
        key.text(if backend_only { "backend only" } else { "full" });
        key.args(llvm_options);
        // Machine code and its printout from IR do not depend on the IR file's name
        // (checked: the same module at two paths prints and assembles alike), so a
        // module written to a fresh directory each run still hits.
        key.file(src, !kind.is_ir());
        let printed = cache::step(self.cache(), key, false, !kind.is_ir(), &[], |depfile| {
            let mut cmd = self.clang_for(kind);
            cmd.args(flags);
            if backend_only {
                cmd.args([
                    "-Xclang",
                    "-disable-llvm-passes",
                    "-Wno-unused-command-line-argument",
                ]);
            }
            cmd.args(["-c", "-o", "/dev/null"]);
            if let Some(d) = depfile {
                cmd.arg("-MD").arg("-MF").arg(d);
            }
            for option in llvm_options {
                cmd.arg("-mllvm").arg(option);
            }
            cmd.arg(src);
            let output = run(&mut cmd, "clang")?;
            if !output.status.success() {
                return Err(ToolchainError::CompileFailed {
                    path: src.to_path_buf(),
                    build: "machine-code dump".into(),
                    flags: flags.join(" "),
                    diagnostics: String::from_utf8_lossy(&output.stderr).into_owned(),
                });
            }
            Ok(output.stderr)
        })?;
        Ok(String::from_utf8_lossy(&printed).into_owned())
    }

    /// The objcopy that renames symbols in objects: llvm-objcopy next to clang in the
    /// LLVM install, else binutils' objcopy.
    pub fn objcopy(&self) -> PathBuf {
        std::fs::canonicalize(&self.clang)
            .ok()
            .and_then(|c| c.parent().map(|d| d.join("llvm-objcopy")))
            .filter(|p| p.is_file())
            .unwrap_or_else(|| PathBuf::from("objcopy"))
    }

    /// Where clang's own library search finds `file` (`libm.so`, `libfoo.a`), if anywhere.
    pub fn library_file(&self, file: &str) -> Option<PathBuf> {
        let out = Command::new(&self.clang)
            .arg(format!("-print-file-name={file}"))
            .output()
            .ok()?;
        let printed = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        // Clang prints the bare name back when it finds nothing.
        (printed.is_absolute() && printed.is_file()).then_some(printed)
    }

    /// Links every member of the archive or object `input` into the shared object `out`
    /// (so the interpreter can load what the executables link).
    pub fn whole_archive_shared(&self, input: &Path, out: &Path) -> Result<()> {
        let mut cmd = Command::new(&self.clang);
        cmd.arg("-shared")
            .arg("-o")
            .arg(out)
            .arg("-Wl,--whole-archive")
            .arg(input)
            .arg("-Wl,--no-whole-archive")
            .arg("-lm");
        let output = run(&mut cmd, "clang (shared object)")?;
        if !output.status.success() {
            return Err(ToolchainError::ToolFailed {
                tool: "clang (shared object)".into(),
                diagnostics: String::from_utf8_lossy(&output.stderr).into_owned(),
            });
        }
        Ok(())
    }

    /// Runs clang with arbitrary arguments (used for tests and drivers).
    pub fn clang_command(&self, args: &[OsString]) -> Command {
        let mut cmd = Command::new(&self.clang);
        cmd.args(args);
        cmd
    }
}

fn build_stem(build: BuildKind) -> &'static str {
    match build {
        BuildKind::P => "p",
        BuildKind::PPrime => "pprime",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_opt_flags_keep_debug_info() {
        let f = BuildFlags::with_p_prime("-O2 -ffast-math");
        assert_eq!(f.p_prime, vec!["-O2", "-ffast-math", "-g"]);
        assert!(f.links_fast_math(BuildKind::PPrime));
        assert!(!f.links_fast_math(BuildKind::P));
        let f = BuildFlags::with_p_prime("-O2 -ffast-math -fno-fast-math");
        assert!(!f.links_fast_math(BuildKind::PPrime));
    }

    #[test]
    fn common_and_file_flags_follow_the_recipe() {
        let flags = BuildFlags {
            common: vec!["-DN=3".into(), "-ffast-math".into()],
            ..BuildFlags::default()
        };
        let file = SourceFile {
            path: "a.c".into(),
            flags: vec!["-I/inc".into()],
        };
        assert_eq!(
            flags.for_file(BuildKind::PPrime, &file),
            vec!["-O3", "-ffast-math", "-g", "-I/inc", "-DN=3", "-ffast-math"]
        );
        // A common -ffast-math makes P link crtfastmath.o too.
        assert!(flags.links_fast_math(BuildKind::P));
    }

    #[test]
    fn source_kinds_by_extension() {
        assert_eq!(SourceKind::of(Path::new("a.c")).unwrap(), SourceKind::C);
        assert_eq!(SourceKind::of(Path::new("a.cpp")).unwrap(), SourceKind::Cxx);
        assert_eq!(SourceKind::of(Path::new("task.i")).unwrap(), SourceKind::C);
        assert_eq!(SourceKind::of(Path::new("a.ii")).unwrap(), SourceKind::Cxx);
        assert!(SourceKind::is_preprocessed(Path::new("task.i")));
        assert!(!SourceKind::is_preprocessed(Path::new("task.c")));
        assert_eq!(
            SourceKind::of(Path::new("a.bc")).unwrap(),
            SourceKind::LlvmBitcode
        );
        assert!(SourceKind::of(Path::new("a.f90")).is_err());
    }
}
