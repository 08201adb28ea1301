//! A session: one source file compiled into P and P', lowered, with its native builds on
//! demand, all in one temporary work directory.

use crate::libraries::LinkInput;
use crate::InputError;
use fpscout_ir::{FuncId, Module};
use fpscout_native::{NativeBuild, NativeSignature};
use fpscout_toolchain::{BuildFlags, BuildKind, Toolchain};
use fpscout_walk::concrete::FpMode;
use std::path::{Path, PathBuf};

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
    pub source: PathBuf,
    pub work_dir: tempfile::TempDir,
    pub p: Module,
    pub p_prime: Module,
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
        Session::open_focused(source, flags, libraries, None)
    }

    /// As [`Session::open_linked`]; for IR input with a `focus` function, both builds and
    /// executables are made from the module cut down to what that function reaches (a
    /// whole library would make every step pay for all of it).
    pub fn open_focused(
        source: &Path,
        mut flags: BuildFlags,
        libraries: &[LinkInput],
        focus: Option<&str>,
    ) -> Result<Session, InputError> {
        if !source.exists() {
            return Err(InputError(format!("{}: no such file", source.display())));
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
        let is_ir = fpscout_toolchain::SourceKind::of(source).is_ok_and(|k| k.is_ir());
        let focused = work_dir.path().join("focus.bc");
        let source = match focus {
            Some(function) if is_ir => {
                let cut = fpscout_llvm::write_reachable_from(source, function, &focused)
                    .map_err(|e| InputError(e.to_string()))?;
                if cut {
                    focused.as_path()
                } else {
                    source
                }
            }
            _ => source,
        };
        let load = |b: BuildKind| {
            fpscout_llvm::load_build(&toolchain, source, b, &flags, work_dir.path())
                .map_err(|e| InputError(format!("build {b}: {e}")))
        };
        let p = load(BuildKind::P)?;
        let p_prime = load(BuildKind::PPrime)?;
        Ok(Session {
            toolchain,
            flags,
            source: source.to_path_buf(),
            work_dir,
            p,
            p_prime,
        })
    }

    pub fn module(&self, build: BuildKind) -> &Module {
        match build {
            BuildKind::P => &self.p,
            BuildKind::PPrime => &self.p_prime,
        }
    }

    /// Finds `name` in a build, with the list of candidates when it is missing.
    pub fn function(&self, build: BuildKind, name: &str) -> Result<FuncId, InputError> {
        let m = self.module(build);
        let found = m.find_function(name).ok_or_else(|| {
            let names: Vec<&str> = m.functions.iter().filter(|f| f.external).map(|f| f.display_name.as_str()).collect();
            InputError(format!(
                "function '{name}' not found in build {build} of {} (defined: {}){}",
                self.source.display(),
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

    /// The floating-point mode a build's executable runs with under `choice`.
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
    /// modelled are not listed.
    pub fn backend_rewrites(&self, build: BuildKind) -> Vec<String> {
        let module = self.module(build);
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
        let f = self.module(build).function(func);
        let sig =
            NativeSignature::from_function(f, array_lens).map_err(|e| InputError(e.to_string()))?;
        let dir = self.work_dir.path().join(format!(
            "native-{}",
            if build == BuildKind::P { "p" } else { "pprime" }
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| InputError(format!("cannot create {}: {e}", dir.display())))?;
        NativeBuild::compile(
            &self.toolchain,
            &self.source,
            build,
            &self.flags,
            &sig,
            &dir,
        )
        .map_err(|e| InputError(e.to_string()))
    }
}

pub fn native_ftz(choice: FtzDazChoice) -> fpscout_native::FtzDaz {
    match choice {
        FtzDazChoice::Auto => fpscout_native::FtzDaz::AsLinked,
        FtzDazChoice::On => fpscout_native::FtzDaz::On,
        FtzDazChoice::Off => fpscout_native::FtzDaz::Off,
    }
}
