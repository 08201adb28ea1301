//! Content-addressed cache of what clang, opt, llvm-link and the linker produce, shared by every run, shard and reproducer of a user.
//!
//! A step (one compilation to IR, to an object, a machine-code printout, a link) is keyed
//! in two levels. The first key hashes the toolchain's identity (tool paths and
//! `clang --version`), the step's kind, its arguments without output paths, the working
//! directory and the bytes of its explicit inputs. Under it a manifest lists every other
//! file the tool read, as the tool itself reported it (`-MD -MF` for clang,
//! `--dependency-file` for the linker). The second key adds those files' current bytes;
//! its entry holds the outputs. A hit is therefore byte-identical to what running the
//! step would produce, and editing an included header changes the second key.
//!
//! Entries are written to a temporary directory and renamed into place, manifests to a
//! temporary file and renamed, so parallel runs and shards never see half an entry. A
//! cache directory that cannot be written warns once and the step simply runs.

use sha2::{Digest, Sha256};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Environment variables clang or the linker read (include and library search paths,
/// reproducible-build dates): part of every key.
const TOOL_ENVIRONMENT: [&str; 8] = [
    "CPATH",
    "C_INCLUDE_PATH",
    "CPLUS_INCLUDE_PATH",
    "OBJC_INCLUDE_PATH",
    "LIBRARY_PATH",
    "SOURCE_DATE_EPOCH",
    "LD_RUN_PATH",
    "COMPILER_PATH",
];

/// Bumped when the layout of entries or keys changes.
const LAYOUT: &str = "v1";

static HITS: AtomicU64 = AtomicU64::new(0);
static MISSES: AtomicU64 = AtomicU64::new(0);
static COMPILE_NANOS: AtomicU64 = AtomicU64::new(0);
static WARNED: AtomicBool = AtomicBool::new(false);

/// What compiling cost this process so far: steps served from the cache, steps run, and
/// the seconds spent on both (a hit costs hashing and a copy).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CompileStats {
    pub hits: u64,
    pub misses: u64,
    pub compile_seconds: f64,
}

/// The compile statistics of this process.
pub fn compile_stats() -> CompileStats {
    CompileStats {
        hits: HITS.load(Ordering::Relaxed),
        misses: MISSES.load(Ordering::Relaxed),
        compile_seconds: COMPILE_NANOS.load(Ordering::Relaxed) as f64 * 1e-9,
    }
}

pub(crate) fn record_time(elapsed: Duration) {
    let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
    COMPILE_NANOS.fetch_add(nanos, Ordering::Relaxed);
}

fn warn_once(what: &str, path: &Path, e: &std::io::Error) {
    if !WARNED.swap(true, Ordering::Relaxed) {
        eprintln!(
            "fpscout: warning: compile cache disabled for this step: cannot {what} {}: {e} \
             (compiling instead; set FPSCOUT_CACHE_DIR or pass --no-cache)",
            path.display()
        );
    }
}

/// Where the cache lives: `$FPSCOUT_CACHE_DIR`, else `$XDG_CACHE_HOME/fpscout`, else
/// `$HOME/.cache/fpscout`; `None` when `FPSCOUT_NO_CACHE` is set (to anything but `0`
/// or empty) or no directory is known.
pub fn default_dir() -> Option<PathBuf> {
    if std::env::var_os("FPSCOUT_NO_CACHE").is_some_and(|v| !v.is_empty() && v != "0") {
        return None;
    }
    let nonempty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = nonempty("FPSCOUT_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = nonempty("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("fpscout"));
    }
    nonempty("HOME").map(|h| PathBuf::from(h).join(".cache").join("fpscout"))
}

/// The cache: a directory and the identity of the tools whose outputs it holds.
#[derive(Debug)]
pub struct CompileCache {
    dir: PathBuf,
    identity: Vec<u8>,
    /// The linker's `--version`, read on the first cached link.
    linker: OnceLock<Vec<u8>>,
    clang: PathBuf,
}

/// A step's first-level key under construction: length-prefixed fields, so that no two
/// different field lists hash alike.
pub(crate) struct Key {
    hasher: Sha256,
    /// Files whose bytes are in the key by content (their paths may or may not be).
    explicit: Vec<PathBuf>,
    /// False when an input could not be read: such a key is never used.
    complete: bool,
}

impl Key {
    pub(crate) fn new(kind: &str) -> Key {
        let mut key = Key {
            hasher: Sha256::new(),
            explicit: Vec::new(),
            complete: true,
        };
        key.text(LAYOUT);
        key.text(kind);
        match std::env::current_dir() {
            Ok(cwd) => key.os(cwd.as_os_str()),
            Err(_) => key.text("?"),
        }
        // What clang and the linker read from the environment besides their arguments.
        for var in TOOL_ENVIRONMENT {
            key.text(var);
            match std::env::var_os(var) {
                Some(v) => key.os(&v),
                None => key.text("\0unset"),
            }
        }
        key
    }
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.hasher.update((bytes.len() as u64).to_le_bytes());
        self.hasher.update(bytes);
    }
    pub(crate) fn text(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }
    pub(crate) fn os(&mut self, text: &OsStr) {
        self.bytes(text.as_encoded_bytes());
    }
    pub(crate) fn args<S: AsRef<OsStr>>(&mut self, args: &[S]) {
        self.text("args");
        self.hasher.update((args.len() as u64).to_le_bytes());
        for a in args {
            self.os(a.as_ref());
        }
    }
    /// The bytes of `path` (and, when `with_path`, its name); a file that cannot be read
    /// makes the step run uncached.
    pub(crate) fn file(&mut self, path: &Path, with_path: bool) {
        let Ok(bytes) = std::fs::read(path) else {
            self.complete = false;
            return;
        };
        self.text(if with_path { "file" } else { "content" });
        if with_path {
            self.os(path.as_os_str());
        }
        self.bytes(&bytes);
        self.explicit.push(path.to_path_buf());
    }
}

/// What a step produced, or what the cache held for it.
pub(crate) struct Outcome {
    /// What the step printed, when the step's result is its printout.
    pub(crate) text: Vec<u8>,
}

impl CompileCache {
    /// The cache at `dir` for the tools at `tools` (`clang` first).
    pub fn open(dir: PathBuf, clang: &Path, tools: &[&Path]) -> CompileCache {
        let mut identity = Vec::new();
        for t in tools {
            identity.extend_from_slice(t.as_os_str().as_encoded_bytes());
            identity.push(0);
        }
        if let Ok(out) = std::process::Command::new(clang).arg("--version").output() {
            identity.extend_from_slice(&out.stdout);
        }
        CompileCache {
            dir: dir.join(LAYOUT),
            identity,
            linker: OnceLock::new(),
            clang: clang.to_path_buf(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn linker_identity(&self) -> &[u8] {
        self.linker.get_or_init(|| {
            std::process::Command::new(&self.clang)
                .arg("-Wl,--version")
                .output()
                .map(|o| o.stdout)
                .unwrap_or_default()
        })
    }

    fn finish(&self, mut key: Key, link: bool) -> (String, Vec<PathBuf>) {
        key.bytes(&self.identity);
        if link {
            key.bytes(self.linker_identity());
        }
        (hex(&key.hasher.finalize()), key.explicit)
    }

    /// The second-level key: `first` and the current bytes of each of `deps`; `None`
    /// when one cannot be read.
    fn content_key(first: &str, deps: &[PathBuf]) -> Option<String> {
        let mut h = Sha256::new();
        h.update(first.as_bytes());
        for d in deps {
            let bytes = std::fs::read(d).ok()?;
            let name = d.as_os_str().as_encoded_bytes();
            h.update((name.len() as u64).to_le_bytes());
            h.update(name);
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(&bytes);
        }
        Some(hex(&h.finalize()))
    }

    fn manifest_path(&self, first: &str) -> PathBuf {
        self.dir.join("manifests").join(first)
    }

    fn entry_path(&self, second: &str) -> PathBuf {
        self.dir.join("entries").join(&second[..2]).join(second)
    }

    /// Copies the entry of `first` into `outputs`, if the cache holds one for the
    /// current bytes of the files its manifest names.
    fn lookup(&self, first: &str, outputs: &[&Path], executable: bool) -> Option<Outcome> {
        let manifest = std::fs::read(self.manifest_path(first)).ok()?;
        let manifest = String::from_utf8(manifest).ok()?;
        let deps: Vec<PathBuf> = manifest
            .lines()
            .filter(|l| !l.is_empty())
            .map(PathBuf::from)
            .collect();
        let entry = self.entry_path(&Self::content_key(first, &deps)?);
        let text = std::fs::read(entry.join("text")).ok()?;
        for (i, out) in outputs.iter().enumerate() {
            let from = entry.join(format!("out{i}"));
            if executable {
                // An executable is written by another process, as the linker would: a
                // child this process forks meanwhile (the solver's) would otherwise hold
                // the file open for writing, and running it would fail (ETXTBSY).
                let copied = std::process::Command::new("cp")
                    .arg("--")
                    .arg(&from)
                    .arg(out)
                    .status()
                    .ok()?;
                copied.success().then_some(())?;
            } else {
                std::fs::copy(from, out).ok()?;
            }
        }
        Some(Outcome { text })
    }

    /// Stores what the step wrote to `outputs` and printed (`text`) under the content
    /// key of `deps`, then the manifest naming `deps`.
    fn store(&self, first: &str, deps: &[PathBuf], outputs: &[&Path], text: &[u8]) {
        let Some(second) = Self::content_key(first, deps) else {
            return;
        };
        let entry = self.entry_path(&second);
        if !entry.exists() {
            let Some(parent) = entry.parent() else { return };
            if let Err(e) = std::fs::create_dir_all(parent) {
                return warn_once("create", parent, &e);
            }
            let tmp = match tempfile::Builder::new().prefix(".tmp-").tempdir_in(parent) {
                Ok(t) => t,
                Err(e) => return warn_once("write in", parent, &e),
            };
            let mut files: Vec<(PathBuf, PathBuf)> = outputs
                .iter()
                .enumerate()
                .map(|(i, o)| (o.to_path_buf(), tmp.path().join(format!("out{i}"))))
                .collect();
            if let Err(e) = std::fs::write(tmp.path().join("text"), text) {
                return warn_once("write in", tmp.path(), &e);
            }
            for (from, to) in files.drain(..) {
                if let Err(e) = std::fs::copy(&from, &to) {
                    return warn_once("copy into", &to, &e);
                }
            }
            let tmp = tmp.keep();
            // Another process may have stored the same entry meanwhile: theirs is
            // byte-identical, keep it.
            if std::fs::rename(&tmp, &entry).is_err() {
                let _ = std::fs::remove_dir_all(&tmp);
            }
        }
        let manifest = self.manifest_path(first);
        let Some(dir) = manifest.parent() else { return };
        if let Err(e) = std::fs::create_dir_all(dir) {
            return warn_once("create", dir, &e);
        }
        let mut listing = String::new();
        for d in deps {
            match d.to_str() {
                Some(s) if !s.contains('\n') => {
                    listing.push_str(s);
                    listing.push('\n');
                }
                // A path the manifest cannot spell: no manifest, no hits.
                _ => return,
            }
        }
        let written = tempfile::NamedTempFile::new_in(dir).and_then(|mut f| {
            std::io::Write::write_all(&mut f, listing.as_bytes())?;
            f.persist(&manifest).map_err(|e| e.error)
        });
        if let Err(e) = written {
            warn_once("write", &manifest, &e);
        }
    }
}

/// Runs a step through `cache` (when there is one): on a hit its outputs are copied into
/// `outputs` and `run` is not called; on a miss `run` gets a path for the dependency file
/// the tool should write (when `depfile` is set) and returns the tool's printout. Counts
/// the step's time and whether it hit.
pub(crate) fn step<E>(
    cache: Option<&CompileCache>,
    key: Key,
    link: bool,
    depfile: bool,
    outputs: &[&Path],
    run: impl FnOnce(Option<&Path>) -> Result<Vec<u8>, E>,
) -> Result<Vec<u8>, E> {
    let started = Instant::now();
    let Some(cache) = cache.filter(|_| key.complete) else {
        let result = run(None);
        record_time(started.elapsed());
        MISSES.fetch_add(1, Ordering::Relaxed);
        return result;
    };
    let (first, explicit) = cache.finish(key, link);
    if let Some(hit) = cache.lookup(&first, outputs, link) {
        record_time(started.elapsed());
        HITS.fetch_add(1, Ordering::Relaxed);
        return Ok(hit.text);
    }
    let dep_dir = if depfile {
        tempfile::Builder::new()
            .prefix("fpscout-deps-")
            .tempdir()
            .ok()
    } else {
        None
    };
    let dep_path = dep_dir.as_ref().map(|d| d.path().join("deps.d"));
    let result = run(dep_path.as_deref());
    if let Ok(text) = &result {
        let deps = match &dep_path {
            Some(p) => std::fs::read_to_string(p).ok().map(|t| parse_depfile(&t)),
            None if depfile => None,
            None => Some(Vec::new()),
        };
        if let Some(deps) = deps {
            let deps: Vec<PathBuf> = deps
                .into_iter()
                .filter(|d| !explicit.contains(d))
                .map(|d| std::fs::canonicalize(&d).unwrap_or(d))
                .collect();
            cache.store(&first, &deps, outputs, text);
        }
    }
    record_time(started.elapsed());
    MISSES.fetch_add(1, Ordering::Relaxed);
    result
}

/// The prerequisites of a Makefile rule as clang and ld write them (`target: a b \`
/// continued over lines, spaces in names escaped with a backslash), without duplicates.
pub(crate) fn parse_depfile(text: &str) -> Vec<PathBuf> {
    let joined = text.replace("\\\n", " ").replace("\\\r\n", " ");
    let mut out: Vec<PathBuf> = Vec::new();
    for rule in joined.lines() {
        // The target ends at the first unescaped ": ".
        let Some(colon) = rule
            .find(": ")
            .or_else(|| rule.strip_suffix(':').map(str::len))
        else {
            continue;
        };
        let mut word = String::new();
        let mut chars = rule[colon + 1..].chars().peekable();
        let push = |word: &mut String, out: &mut Vec<PathBuf>| {
            if !word.is_empty() {
                let p = PathBuf::from(std::mem::take(word));
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        };
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek().is_some_and(|n| *n == ' ' || *n == '#') => {
                    if let Some(n) = chars.next() {
                        word.push(n);
                    }
                }
                '$' if chars.peek() == Some(&'$') => {
                    chars.next();
                    word.push('$');
                }
                ' ' | '\t' => push(&mut word, &mut out),
                _ => word.push(c),
            }
        }
        push(&mut word, &mut out);
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depfiles_parse_continuations_and_escapes() {
        let deps = parse_depfile("out.o: /a/b.c /inc/x\\ y.h \\\n  /usr/include/math.h /a/b.c\n");
        assert_eq!(
            deps,
            vec![
                PathBuf::from("/a/b.c"),
                PathBuf::from("/inc/x y.h"),
                PathBuf::from("/usr/include/math.h"),
            ]
        );
    }

    #[test]
    fn a_changed_dependency_misses_and_a_same_one_hits() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CompileCache::open(dir.path().join("c"), Path::new("/nonexistent"), &[]);
        let header = dir.path().join("h.h");
        std::fs::write(&header, "1").unwrap();
        let out = dir.path().join("out");
        let run = |text: &'static str| {
            let out = out.clone();
            let header = header.clone();
            move |dep: Option<&Path>| -> Result<Vec<u8>, ()> {
                std::fs::write(&out, text).unwrap();
                std::fs::write(dep.unwrap(), format!("o: {}\n", header.display())).unwrap();
                Ok(text.as_bytes().to_vec())
            }
        };
        let key = || {
            let mut k = Key::new("test");
            k.text("arg");
            k
        };
        assert_eq!(
            step(Some(&cache), key(), false, true, &[&out], run("a")),
            Ok(b"a".to_vec())
        );
        // Same header: served from the cache (the closure would print "b").
        assert_eq!(
            step(Some(&cache), key(), false, true, &[&out], run("b")),
            Ok(b"a".to_vec())
        );
        assert_eq!(std::fs::read(&out).unwrap(), b"a");
        std::fs::write(&header, "2").unwrap();
        assert_eq!(
            step(Some(&cache), key(), false, true, &[&out], run("c")),
            Ok(b"c".to_vec())
        );
    }
}
