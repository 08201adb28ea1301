//! Libraries given on the command line: linked into both builds' executables, and loaded
//! into fpscout itself so that the interpreter calls their functions natively.

use crate::InputError;
use fpscout_toolchain::Toolchain;
use std::path::{Path, PathBuf};

/// What the user asked to link, in order: `-LDIR`, `-lNAME`, or the path of a `.so`,
/// `.a` or `.o` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkInput {
    Dir(PathBuf),
    Name(String),
    File(PathBuf),
}

/// Linker arguments for `inputs` (shared libraries found again at run time through an
/// rpath), after loading each into this process. Archives and objects are loaded as a
/// shared object built from them in `work_dir` (their code must be position-independent,
/// Debian's default).
pub fn prepare(
    tc: &Toolchain,
    inputs: &[LinkInput],
    work_dir: &Path,
) -> Result<Vec<String>, InputError> {
    let mut args = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let shared = match input {
            LinkInput::Dir(dir) => {
                let dir = absolute(dir)?;
                if !dir.is_dir() {
                    return Err(InputError(format!(
                        "-L{}: no such directory",
                        dir.display()
                    )));
                }
                args.push(format!("-L{}", dir.display()));
                args.push(format!("-Wl,-rpath,{}", dir.display()));
                dirs.push(dir);
                continue;
            }
            LinkInput::Name(name) => {
                args.push(format!("-l{name}"));
                match find_library(tc, &dirs, name) {
                    Some(found) if is_shared(&found) => found,
                    Some(archive) => shared_from(tc, &archive, work_dir, i)?,
                    None => {
                        return Err(InputError(format!(
                            "-l{name}: neither lib{name}.so nor lib{name}.a found (add -LDIR)"
                        )))
                    }
                }
            }
            LinkInput::File(path) => {
                let path = absolute(path)?;
                if !path.is_file() {
                    return Err(InputError(format!("{}: no such file", path.display())));
                }
                args.push(path.display().to_string());
                if is_shared(&path) {
                    if let Some(dir) = path.parent() {
                        args.push(format!("-Wl,-rpath,{}", dir.display()));
                    }
                    path
                } else {
                    shared_from(tc, &path, work_dir, i)?
                }
            }
        };
        fpscout_walk::concrete::load_library(&shared).map_err(InputError)?;
    }
    Ok(args)
}

fn absolute(p: &Path) -> Result<PathBuf, InputError> {
    std::path::absolute(p).map_err(|e| InputError(format!("{}: {e}", p.display())))
}

fn is_shared(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".so") || name.contains(".so.")
}

/// `libNAME.so` (preferred, as the linker does) or `libNAME.a` in the `-L` directories,
/// then where clang's own search finds it.
fn find_library(tc: &Toolchain, dirs: &[PathBuf], name: &str) -> Option<PathBuf> {
    for file in [format!("lib{name}.so"), format!("lib{name}.a")] {
        if let Some(found) = dirs.iter().map(|d| d.join(&file)).find(|p| p.is_file()) {
            return Some(found);
        }
        if let Some(found) = tc.library_file(&file) {
            return Some(found);
        }
    }
    None
}

/// A shared object holding every member of an archive or object file.
fn shared_from(
    tc: &Toolchain,
    input: &Path,
    work_dir: &Path,
    index: usize,
) -> Result<PathBuf, InputError> {
    let out = work_dir.join(format!("linked-{index}.so"));
    tc.whole_archive_shared(input, &out).map_err(|e| {
        InputError(format!(
            "{}: cannot load it into fpscout (its code must be position-independent: \
             compile it with -fPIC): {e}",
            input.display(),
        ))
    })?;
    Ok(out)
}
