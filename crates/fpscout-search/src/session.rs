//! A session: a program's source files compiled into P and P' (or only the build a mode
//! needs), lowered, with its native builds on demand, all in one temporary work directory.

use crate::libraries::LinkInput;
use crate::InputError;
use fpscout_ir::{FuncId, Module};
use fpscout_native::{NativeBuild, NativeSignature, SweepReference};
use fpscout_toolchain::{BuildFlags, BuildKind, SourceFile, SourceKind, SourceSet, Toolchain};
use fpscout_walk::concrete::FpMode;
use std::path::Path;

pub use fpscout_llvm::BackendModel;

/// FTZ/DAZ choice for interpretation and native replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FtzDazChoice {
    /// As each executable runs: P' linked with -ffast-math has FTZ and DAZ on (crtfastmath.o).
    Auto,
    /// Both builds flush subnormal results and read subnormal inputs as zero
    On,
    /// Both builds keep subnormals (plain IEEE)
    Off,
}

pub struct Session {
    pub toolchain: Toolchain,
    pub flags: BuildFlags,
    pub sources: SourceSet,
    pub work_dir: tempfile::TempDir,
    backend: BackendModel,
    p: Option<Module>,
    p_prime: Option<Module>,
}

impl Session {
    /// Compiles and lowers both builds of `source`.
    pub fn open(source: &Path, flags: BuildFlags) -> Result<Session, InputError> {
        Session::open_linked(source, flags, &[])
    }

    /// As [`Session::open`], the executables linked with `libraries`, which are also
    /// loaded into this process for the interpreter's calls outside the module.
    pub fn open_linked(
        source: &Path,
        flags: BuildFlags,
        libraries: &[LinkInput],
    ) -> Result<Session, InputError> {
        Session::open_sources(
            &SourceSet::single(source),
            flags,
            libraries,
            &BuildKind::BOTH,
        )
    }

    /// Compiles and lowers `builds` of the program made of `sources` (each file with its
    /// own flags, linked into one module per build), its executables linked with
    /// `libraries`. Asking later for a build not in `builds` is an error, not a panic:
    /// a mode that analyses one build does not pay for the other.
    pub fn open_sources(
        sources: &SourceSet,
        flags: BuildFlags,
        libraries: &[LinkInput],
        builds: &[BuildKind],
    ) -> Result<Session, InputError> {
        Session::open_focused(sources, flags, libraries, builds, None)
    }

    /// As [`Session::open_sources`]; for one IR file and a `focus` function, the builds
    /// and executables are made from the module cut down to what that function reaches
    /// (a whole library would make every step pay for all of it).
    pub fn open_focused(
        sources: &SourceSet,
        flags: BuildFlags,
        libraries: &[LinkInput],
        builds: &[BuildKind],
        focus: Option<&str>,
    ) -> Result<Session, InputError> {
        Session::open_modelled(
            sources,
            flags,
            libraries,
            builds,
            focus,
            BackendModel::MatchMachine,
        )
    }

    /// As [`Session::open_focused`], with the optimised build following its machine code
    /// as `backend` says: [`BackendModel::IrOnly`] spares the machine-code dumps to a
    /// caller that only inspects the modules or does not need the interpreter to agree
    /// with the executable bit for bit.
    pub fn open_modelled(
        sources: &SourceSet,
        mut flags: BuildFlags,
        libraries: &[LinkInput],
        builds: &[BuildKind],
        focus: Option<&str>,
        backend: BackendModel,
    ) -> Result<Session, InputError> {
        if sources.files.is_empty() {
            return Err(InputError("no source file given".into()));
        }
        for file in &sources.files {
            if !file.path.exists() {
                return Err(InputError(format!("{}: no such file", file.path.display())));
            }
        }
        let toolchain = Toolchain::discover().map_err(|e| InputError(e.to_string()))?;
        let work_dir = tempfile::Builder::new()
            .prefix("fpscout-")
            .tempdir()
            .map_err(|e| InputError(format!("cannot create a work directory: {e}")))?;
        flags.libraries.extend(crate::libraries::prepare(
            &toolchain,
            libraries,
            work_dir.path(),
        )?);
        let focused;
        let sources = match (focus, sources.files.as_slice()) {
            (Some(function), [file]) if SourceKind::of(&file.path).is_ok_and(|k| k.is_ir()) => {
                let cut_file = work_dir.path().join("focus.bc");
                // The set-up call is a root too: what it reaches is kept.
                let roots: Vec<&str> = std::iter::once(function)
                    .chain(flags.setup_call.as_deref())
                    .collect();
                let cut = fpscout_llvm::write_reachable_from(&file.path, &roots, &cut_file)
                    .map_err(|e| InputError(e.to_string()))?;
                if cut {
                    focused = SourceSet {
                        files: vec![SourceFile {
                            path: cut_file,
                            flags: file.flags.clone(),
                        }],
                    };
                    &focused
                } else {
                    sources
                }
            }
            _ => sources,
        };
        let load = |b: BuildKind| -> Result<Option<Module>, InputError> {
            if !builds.contains(&b) {
                return Ok(None);
            }
            fpscout_llvm::load_build_sources(
                &toolchain,
                sources,
                b,
                &flags,
                work_dir.path(),
                backend,
            )
            .map(Some)
            .map_err(|e| InputError(format!("build {b}: {e}")))
        };
        let mut p = load(BuildKind::P)?;
        let mut p_prime = load(BuildKind::PPrime)?;
        if let Some(setup) = &flags.setup_call {
            for module in p.iter_mut().chain(p_prime.iter_mut()) {
                module.setup = Some(setup_function(module, setup)?);
            }
        }
        Ok(Session {
            toolchain,
            flags,
            sources: sources.clone(),
            work_dir,
            backend,
            p,
            p_prime,
        })
    }

    /// The linker symbol of the set-up call (`--setup-call`) in `build`, for the
    /// executables to call first.
    pub fn setup_symbol(&self, build: BuildKind) -> Option<String> {
        let module = self.module(build).ok()?;
        module.setup.map(|f| module.function(f).name.clone())
    }

    /// How the optimised build's module follows its machine code.
    pub fn backend_model(&self) -> BackendModel {
        self.backend
    }

    /// Whether `build` was compiled when the session was opened.
    pub fn has(&self, build: BuildKind) -> bool {
        match build {
            BuildKind::P => self.p.is_some(),
            BuildKind::PPrime => self.p_prime.is_some(),
        }
    }

    /// The lowered module of `build`; an error when the session did not compile it.
    pub fn module(&self, build: BuildKind) -> Result<&Module, InputError> {
        let module = match build {
            BuildKind::P => self.p.as_ref(),
            BuildKind::PPrime => self.p_prime.as_ref(),
        };
        module.ok_or_else(|| {
            InputError(format!(
                "build {build} of {} was not compiled in this session",
                self.sources.describe()
            ))
        })
    }

    /// The lowered P ([`Session::module`]).
    pub fn p(&self) -> Result<&Module, InputError> {
        self.module(BuildKind::P)
    }

    /// The lowered P' ([`Session::module`]).
    pub fn p_prime(&self) -> Result<&Module, InputError> {
        self.module(BuildKind::PPrime)
    }

    /// Finds `name` in a build, with the list of candidates when it is missing.
    pub fn function(&self, build: BuildKind, name: &str) -> Result<FuncId, InputError> {
        let m = self.module(build)?;
        let found = m.find_function(name).ok_or_else(|| {
            let names: Vec<&str> = m.functions.iter().filter(|f| f.external).map(|f| f.display_name.as_str()).collect();
            InputError(format!(
                "function '{name}' not found in build {build} of {} (defined: {}){}",
                self.sources.describe(),
                if names.is_empty() { "none".to_string() } else { names.join(", ") },
                if build == BuildKind::PPrime {
                    "; static functions may be inlined away by optimisation: give it external linkage"
                } else {
                    ""
                }
            ))
        })?;
        match &m.function(found).unsupported {
            Some(why) => Err(InputError(format!("build {build}: {why}"))),
            None => Ok(found),
        }
    }

    /// The floating-point mode `native` (an executable of `build`) really runs with under
    /// `choice`, read from its MXCSR at startup: a library or a flag can turn FTZ/DAZ on
    /// that the flags do not show. Only when the executable cannot say is it
    /// [`Session::fp_mode`]'s guess. Every mode interprets with this mode, so the
    /// interpreter and the executable agree on subnormals.
    pub fn measured_fp_mode(
        &self,
        build: BuildKind,
        native: &NativeBuild,
        choice: FtzDazChoice,
    ) -> FpMode {
        native
            .startup_mxcsr(native_ftz(choice))
            .map(FpMode::from_mxcsr)
            .unwrap_or_else(|_| self.fp_mode(build, choice))
    }

    /// The floating-point mode a build's executable should run with under `choice`, as
    /// the flags say (a guess: [`Session::measured_fp_mode`] asks the executable).
    pub fn fp_mode(&self, build: BuildKind, choice: FtzDazChoice) -> FpMode {
        match choice {
            FtzDazChoice::On => FpMode::FAST_MATH_STARTUP,
            FtzDazChoice::Off => FpMode::IEEE,
            FtzDazChoice::Auto if self.flags.links_fast_math(build) => FpMode::FAST_MATH_STARTUP,
            FtzDazChoice::Auto => FpMode::IEEE,
        }
    }

    /// The functions of `build` whose machine code LLVM's backend rewrote after instruction
    /// selection (MachineCombiner reassociation, commuted min/max) in a way the front end
    /// could not carry into the IR, one `function (file:line:col, ...): reason` each:
    /// fpscout's values for them may differ from the executable's. Rewrites the front end
    /// modelled are not listed, and a build the session did not compile has none, nor does
    /// one opened with [`BackendModel::IrOnly`] (its machine code was not read).
    pub fn backend_rewrites(&self, build: BuildKind) -> Vec<String> {
        let Ok(module) = self.module(build) else {
            return Vec::new();
        };
        module
            .backend_rewrites
            .iter()
            .filter_map(|r| {
                let why = r.unmodelled.as_ref()?;
                let name = module
                    .find_function(&r.function)
                    .map(|id| module.function(id).display_name.clone())
                    .unwrap_or_else(|| r.function.clone());
                Some(if r.locations.is_empty() {
                    format!("{name}: {why}")
                } else {
                    format!("{name} ({}): {why}", r.locations.join(", "))
                })
            })
            .collect()
    }

    /// Compiles the native driver of `build` for `func` (array lengths as given).
    pub fn native(
        &self,
        build: BuildKind,
        func: FuncId,
        array_lens: &[Option<usize>],
    ) -> Result<NativeBuild, InputError> {
        self.native_with(build, func, array_lens, &self.flags, Linked::Nothing)
    }

    /// [`Session::native`] compiled with other flags (another recipe of the same build,
    /// such as P' with a subset of fast-math), linked against the same libraries.
    pub fn native_variant(
        &self,
        build: BuildKind,
        func: FuncId,
        array_lens: &[Option<usize>],
        flags: &BuildFlags,
    ) -> Result<NativeBuild, InputError> {
        self.native_with(build, func, array_lens, flags, Linked::Nothing)
    }

    /// The flags both builds were compiled with.
    pub fn flags(&self) -> &BuildFlags {
        &self.flags
    }

    /// [`Session::native`] of a `float f(float)` with the exhaustive sweep against
    /// `reference` linked in.
    pub fn native_sweep(
        &self,
        build: BuildKind,
        func: FuncId,
        reference: &SweepReference,
    ) -> Result<NativeBuild, InputError> {
        self.native_with(build, func, &[], &self.flags, Linked::Sweep(reference))
    }

    /// [`Session::native`] of a function of floats returning a float, with the native
    /// scan against `long_double_c` (a `long double fps_ref_l(...)`) linked in.
    pub fn native_scan(
        &self,
        build: BuildKind,
        func: FuncId,
        long_double_c: &str,
    ) -> Result<NativeBuild, InputError> {
        self.native_with(build, func, &[], &self.flags, Linked::Scan(long_double_c))
    }

    fn native_with(
        &self,
        build: BuildKind,
        func: FuncId,
        array_lens: &[Option<usize>],
        flags: &BuildFlags,
        linked: Linked,
    ) -> Result<NativeBuild, InputError> {
        let f = self.module(build)?.function(func);
        let mut sig =
            NativeSignature::from_function(f, array_lens).map_err(|e| InputError(e.to_string()))?;
        sig.setup = self.setup_symbol(build);
        let dir = self.work_dir.path().join(format!(
            "native-{}",
            if build == BuildKind::P { "p" } else { "pprime" }
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| InputError(format!("cannot create {}: {e}", dir.display())))?;
        match linked {
            Linked::Nothing => NativeBuild::compile_sources(
                &self.toolchain,
                &self.sources,
                build,
                flags,
                &sig,
                &dir,
            ),
            Linked::Sweep(reference) => NativeBuild::compile_sweep(
                &self.toolchain,
                &self.sources,
                build,
                flags,
                &sig,
                reference,
                &dir,
            ),
            Linked::Scan(long_double_c) => NativeBuild::compile_scan(
                &self.toolchain,
                &self.sources,
                build,
                flags,
                &sig,
                long_double_c,
                &dir,
            ),
        }
        .map_err(|e| InputError(with_link_hint(e.to_string())))
    }
}

/// What a native build links in besides the driver and the program.
enum Linked<'a> {
    Nothing,
    Sweep(&'a SweepReference),
    Scan(&'a str),
}

/// A link failure on undefined symbols, with what they are and what to do: a source
/// file of a library needs the files (or the library) that define what it calls.
fn with_link_hint(message: String) -> String {
    let mut missing: Vec<&str> = message
        .split("undefined reference to `")
        .skip(1)
        .filter_map(|rest| rest.split('\'').next())
        .collect();
    if missing.is_empty() {
        return message;
    }
    missing.sort_unstable();
    missing.dedup();
    let shown = missing
        .iter()
        .take(8)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    let more = missing.len().saturating_sub(8);
    format!(
        "the program is incomplete: {}{} {} not defined in the given sources; give the \
         files that define them too (several FILE arguments, --compile-commands, or one \
         .bc linked with llvm-link), or their library (-l NAME, --link FILE)\n{message}",
        shown,
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        },
        if missing.len() == 1 { "is" } else { "are" }
    )
}

impl Session {
    /// How this session built the program made of `sources` (as the user gave them,
    /// before any cut to one function), for reproducers; sources under `temporary` are
    /// copied.
    pub fn repro_builds(
        &self,
        sources: &SourceSet,
        ftz_daz: FtzDazChoice,
        temporary: &[&Path],
    ) -> fpscout_report::repro::ReproBuilds {
        let defines_main = BuildKind::BOTH.iter().any(|b| {
            self.module(*b)
                .is_ok_and(|m| m.find_function("main").is_some())
        });
        fpscout_report::repro::ReproBuilds {
            clang: self.toolchain.clang.clone(),
            objcopy: self.toolchain.objcopy(),
            defines_main,
            sources: sources.clone(),
            flags: self.flags.clone(),
            ftz_daz: native_ftz(ftz_daz),
            ephemeral: temporary.iter().map(|d| d.to_path_buf()).collect(),
        }
    }
}

pub fn native_ftz(choice: FtzDazChoice) -> fpscout_native::FtzDaz {
    match choice {
        FtzDazChoice::Auto => fpscout_native::FtzDaz::AsLinked,
        FtzDazChoice::On => fpscout_native::FtzDaz::On,
        FtzDazChoice::Off => fpscout_native::FtzDaz::Off,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fpscout_toolchain::SourceFile;

    #[test]
    fn a_session_of_one_build_compiles_only_it_and_refuses_the_other() {
        let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/multifile");
        let sources = SourceSet {
            files: vec![
                SourceFile::new(program.join("a.c")),
                SourceFile::new(program.join("b.c")),
            ],
        };
        let flags = BuildFlags {
            common: vec![format!("-I{}", program.join("include").display())],
            ..BuildFlags::default()
        };
        let session = Session::open_sources(&sources, flags, &[], &[BuildKind::P])
            .unwrap_or_else(|e| panic!("P compiles: {e}"));
        assert!(session.has(BuildKind::P) && !session.has(BuildKind::PPrime));
        let f = session
            .function(BuildKind::P, "f")
            .unwrap_or_else(|e| panic!("{e}"));
        let p = session.p().unwrap_or_else(|e| panic!("{e}"));
        // b.c's function is in the linked module, so calls to it are followed.
        assert!(p.find_function("scale_round_trip").is_some());
        assert!(!session.work_dir.path().join("pprime.0.ll").exists());
        let err = session
            .function(BuildKind::PPrime, "f")
            .expect_err("P' was not compiled")
            .0;
        assert!(err.contains("build P' of"), "{err}");
        assert!(err.contains("was not compiled"), "{err}");
        assert!(session.native(BuildKind::PPrime, f, &[]).is_err());
        assert!(session.backend_rewrites(BuildKind::PPrime).is_empty());
    }

    #[test]
    fn an_ir_only_session_reads_no_machine_code() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let chain = dir.path().join("chain.c");
        std::fs::write(
            &chain,
            "double chain(double a, double b, double c, double d) {\n  return ((a * b) * c) * d;\n}\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let open = |backend| {
            Session::open_modelled(
                &SourceSet::single(&chain),
                BuildFlags::default(),
                &[],
                &BuildKind::BOTH,
                None,
                backend,
            )
            .unwrap_or_else(|e| panic!("compiles: {e}"))
        };
        let tagged = |s: &Session| s.work_dir.path().join("Pprime.tagged.bc").exists();
        let matched = open(BackendModel::MatchMachine);
        assert_eq!(matched.backend_model(), BackendModel::MatchMachine);
        let modelled = &matched
            .p_prime()
            .unwrap_or_else(|e| panic!("{e}"))
            .backend_rewrites;
        assert_eq!(modelled.len(), 1, "{modelled:?}");
        assert!(tagged(&matched));
        let ir_only = open(BackendModel::IrOnly);
        assert_eq!(ir_only.backend_model(), BackendModel::IrOnly);
        let p_prime = ir_only.p_prime().unwrap_or_else(|e| panic!("{e}"));
        assert!(p_prime.backend_rewrites.is_empty());
        assert!(p_prime.find_function("chain").is_some());
        assert!(!tagged(&ir_only));
    }
}

#[cfg(test)]
mod link_hint_tests {
    use super::with_link_hint;

    #[test]
    fn undefined_symbols_are_named_once_with_what_to_do() {
        let linker = "clang (link) failed: /usr/bin/ld: t.o: in function `f':\n\
            a.c:9: undefined reference to `gsl_error'\n\
            a.c:12: undefined reference to `cheb_eval'\n\
            a.c:14: undefined reference to `gsl_error'\n";
        let hinted = with_link_hint(linker.to_string());
        assert!(
            hinted.starts_with("the program is incomplete: cheb_eval, gsl_error are not defined"),
            "{hinted}"
        );
        assert!(hinted.contains("--compile-commands"));
        assert!(hinted.ends_with(linker));
        let other = "clang (link) failed: cannot find -lfoo".to_string();
        assert_eq!(with_link_hint(other.clone()), other);
    }
}

/// The `--setup-call` function of `module`: defined in the program, visible to the
/// executables' driver, and called with no arguments.
fn setup_function(module: &Module, name: &str) -> Result<fpscout_ir::FuncId, InputError> {
    let id = module.find_function(name).ok_or_else(|| {
        InputError(format!(
            "--setup-call {name}: no such function is defined in the program (a library's own \
             set-up must be compiled with it, as GSL's bitcode is)"
        ))
    })?;
    let f = module.function(id);
    if !f.params.is_empty() {
        return Err(InputError(format!(
            "--setup-call {name}: it takes {} parameters; a set-up call takes none",
            f.params.len()
        )));
    }
    if !f.external {
        return Err(InputError(format!(
            "--setup-call {name}: it is static, so the executables cannot call it"
        )));
    }
    Ok(id)
}
