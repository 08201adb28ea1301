//! The replay command of a mode's findings, from the invocation's own arguments.

use crate::Linking;
use fpscout_report::replay::Replay;
use fpscout_search::session::FtzDazChoice;
use fpscout_search::sources::CompileArgs;
use std::path::{Path, PathBuf};

/// What `fpscout run` needs to build and run the program as this invocation did: the
/// sources and every compile, link, P', set-up and FTZ/DAZ option, as the user typed them (paths
/// stay relative to the directory fpscout ran in). Options take their values in the same
/// word (`-Iinc`, `--cflag=-fwrapv`), so a value that starts with '-' cannot read as an
/// option.
pub(crate) fn replay(
    files: &[PathBuf],
    compile: &CompileArgs,
    linking: &Linking,
    p_flags: Option<&str>,
    opt_flags: Option<&str>,
    setup_call: Option<&str>,
    ftz_daz: FtzDazChoice,
) -> Replay {
    let path = |p: &Path| p.display().to_string();
    let mut options = Vec::new();
    options.extend(
        compile
            .include_dirs
            .iter()
            .map(|d| format!("-I{}", path(d))),
    );
    options.extend(compile.defines.iter().map(|d| format!("-D{d}")));
    options.extend(compile.undefines.iter().map(|u| format!("-U{u}")));
    options.extend(
        compile
            .forced_includes
            .iter()
            .map(|f| format!("--include={}", path(f))),
    );
    options.extend(compile.standard.iter().map(|s| format!("--std={s}")));
    options.extend(compile.cflags.iter().map(|c| format!("--cflag={c}")));
    options.extend(
        compile
            .compile_commands
            .iter()
            .map(|c| format!("--compile-commands={}", path(c))),
    );
    options.extend(linking.lib_dirs.iter().map(|d| format!("-L{}", path(d))));
    options.extend(linking.files.iter().map(|f| format!("--link={}", path(f))));
    options.extend(linking.libs.iter().map(|l| format!("-l{l}")));
    options.extend(p_flags.map(|f| format!("--p-flags={f}")));
    options.extend(opt_flags.map(|f| format!("--opt-flags={f}")));
    options.extend(setup_call.map(|f| format!("--setup-call={f}")));
    match ftz_daz {
        FtzDazChoice::Auto => {}
        FtzDazChoice::On => options.push("--ftz-daz=on".into()),
        FtzDazChoice::Off => options.push("--ftz-daz=off".into()),
    }
    Replay {
        sources: files.iter().map(|f| path(f)).collect(),
        options,
    }
}
