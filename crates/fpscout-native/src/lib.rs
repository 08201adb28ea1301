//! Native replay: runs the real compiled function on input vectors and reports bits and flags.
//!
//! [`NativeBuild::compile`] compiles the user's source with exactly the flags of one build
//! (P or P'), links it with a generated C driver (module `driver`) and keeps the executable.
//! [`NativeBuild::run`] feeds it input vectors over a pipe and reads, per vector, the
//! returned bits, the IEEE flags raised (`fetestexcept`) and the final array contents. A
//! vector that crashes or hangs the driver is reported as such and the driver is restarted
//! on the remaining vectors. This is fpscout's ground truth, so nothing here is approximate:
//! values travel as bit patterns and the driver does no floating-point arithmetic.
//!
//! Every vector of a run (traced or not) starts from the program's initial global state:
//! the driver restores the executable's writable data, bss and thread-locals, as they were
//! after its set-up, before each call, so a function keeping state in statics computes the
//! same for a vector whatever ran before it. A function that ends the program (`exit`,
//! `_Exit`, `_exit`, `quick_exit`, `abort`, a failed `assert`) does not end the driver: the
//! link redirects those calls to the driver, which reports
//! [`NativeOutcome::Ended`] with the flags and array contents of that moment (and, traced,
//! the events before it) and goes on with the next vector. What the function prints on
//! stdout is discarded; its stderr only feeds crash details. See module `driver` for the
//! protocol.

mod driver;
mod scan;
mod sweep;
mod trace;

pub use scan::{order_key as scan_order_key, ScanCandidate, ScanOutcome, ScanScore, SCAN_KEEP};
pub use sweep::{
    SweepCandidate, SweepOutcome, SweepReference, KEEP as SWEEP_KEEP,
    SAMPLE_EVERY as SWEEP_SAMPLE_EVERY,
};

pub use trace::{NativeEvent, NativeTrace, RawEvent, RawSite, Symbolizer};

use driver::RetKind;
pub use fpscout_ir::ProgramEnd;
use fpscout_ir::{ExceptionSet, FloatTy, Function, ScalarTy, Type};
use fpscout_toolchain::{BuildFlags, BuildKind, SourceSet, Toolchain, ToolchainError};
use serde::Serialize;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How one parameter is passed to the function under test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum NativeArgKind {
    Float(FloatTy),
    /// Integer of `width` bits (1..=64; 1 is `_Bool`), passed as the C type of that width.
    Int {
        width: u32,
        unsigned: bool,
    },
    /// Pointer to a fresh buffer of exactly `len` floats.
    FloatArray {
        ty: FloatTy,
        len: usize,
    },
    /// Pointer to a fresh buffer of exactly `len` integers of `width` bits (1, 8, 16, 32, 64).
    IntArray {
        width: u32,
        len: usize,
    },
}

/// The symbol and calling signature the driver is generated for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NativeSignature {
    /// Linker symbol (mangled for C++).
    pub symbol: String,
    pub params: Vec<NativeArgKind>,
    /// `Void`, `F32`, `F64` or a scalar integer of 1..=64 bits.
    pub ret: Type,
    /// A function of no arguments the driver calls once at start-up, before its snapshot
    /// (`--setup-call`): every input then runs in the state it leaves.
    pub setup: Option<String>,
}

/// One argument value, as bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum NativeArg {
    /// IEEE bits (an f32 in the low 32 bits, upper bits zero).
    Float(u64),
    /// Two's complement bits; only the low `width` bits are used.
    Int(u64),
    /// Element bits of an array argument (exactly the parameter's length).
    Array(Vec<u64>),
}

/// What the driver does to MXCSR's flush-to-zero and denormals-are-zero bits at start-up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum FtzDaz {
    /// Leave MXCSR as the C runtime set it (`crtfastmath.o`, linked with `-ffast-math`,
    /// sets FTZ|DAZ), which is what the real executable would run with.
    #[default]
    AsLinked,
    On,
    Off,
}

impl FtzDaz {
    fn arg(self) -> &'static str {
        match self {
            FtzDaz::AsLinked => "as-linked",
            FtzDaz::On => "on",
            FtzDaz::Off => "off",
        }
    }
}

/// Options of a replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunOptions {
    pub ftz_daz: FtzDaz,
    /// A vector taking longer is reported [`NativeOutcome::TimedOut`].
    pub per_vector_timeout: Duration,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            ftz_daz: FtzDaz::AsLinked,
            per_vector_timeout: Duration::from_secs(2),
        }
    }
}

/// What happened to one input vector.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum NativeOutcome {
    Returned {
        /// Returned bits (f32 in the low 32, integers zero-extended); None for void.
        result: Option<u64>,
        /// Flags raised during the call, in MXCSR layout.
        flags: ExceptionSet,
        /// Final contents of each array argument, in parameter order.
        arrays: Vec<Vec<u64>>,
    },
    Crashed {
        signal: Option<i32>,
        detail: String,
    },
    TimedOut,
    /// The function ended the program (the driver caught the call and carried on).
    Ended {
        end: ProgramEnd,
        /// Flags raised before the program would have ended, in MXCSR layout.
        flags: ExceptionSet,
        /// Contents of each array argument at that moment, in parameter order.
        arrays: Vec<Vec<u64>>,
    },
}

/// The bits of the `double` input of index `k` in [`NativeBuild::enumerate`]: every
/// sign and exponent, the low half of the significand scrambled.
pub fn enumerated_double(k: u64) -> u64 {
    let m = k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let m = m ^ (m >> 29);
    (k << 32) | (m & 0xffff_ffff)
}

/// One input's code from [`NativeBuild::enumerate`]: the flags raised (inexact left
/// out) and the result class (0 finite, 1 +inf, 2 -inf, 3 NaN, 4 anything else).
pub fn decode_enumerated(code: u8) -> (ExceptionSet, u8) {
    let mut flags = 0u32;
    for (bit, mxcsr) in [(1u8, 0x01u32), (2, 0x04), (4, 0x08), (8, 0x10)] {
        if code & bit != 0 {
            flags |= mxcsr;
        }
    }
    (ExceptionSet::from_mxcsr(flags), code >> 4)
}

#[derive(Debug, thiserror::Error)]
pub enum NativeError {
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    #[error("cannot replay {function} natively: {reason}")]
    UnsupportedSignature { function: String, reason: String },
    #[error("input vector {index}: {reason}")]
    BadInput { index: usize, reason: String },
    #[error("native driver protocol error: {0}")]
    Protocol(String),
    #[error("a scan of {count} inputs ran past {seconds:.1} s")]
    ScanTimeout { count: u64, seconds: f64 },
    #[error("native driver did not start: {0}")]
    Startup(String),
    #[error("native throughput measurement failed: {0}")]
    Bench(String),
    #[error("I/O error while {what}: {source}")]
    Io { what: String, source: io::Error },
}

pub type Result<T> = std::result::Result<T, NativeError>;

fn io_err(what: impl Into<String>) -> impl FnOnce(io::Error) -> NativeError {
    let what = what.into();
    move |source| NativeError::Io { what, source }
}

impl NativeSignature {
    /// Derives the signature of an IR function; `array_lens[i]` gives the element count of
    /// pointer parameter `i` (its element type comes from [`fpscout_ir::Param::pointee`]).
    pub fn from_function(f: &Function, array_lens: &[Option<usize>]) -> Result<Self> {
        let unsupported = |reason: String| NativeError::UnsupportedSignature {
            function: f.display_name.clone(),
            reason,
        };
        if !f.external {
            return Err(unsupported(
                "the function is not externally visible (static or inline), so the driver \
                 cannot link to it"
                    .into(),
            ));
        }
        let mut params = Vec::with_capacity(f.params.len());
        for (i, p) in f.params.iter().enumerate() {
            let kind = match p.ty {
                Type::Scalar(ScalarTy::Float(ty)) => NativeArgKind::Float(ty),
                Type::Scalar(ScalarTy::Int(width)) => NativeArgKind::Int {
                    width,
                    unsigned: p.unsigned,
                },
                Type::Scalar(ScalarTy::Ptr) => {
                    let len = array_lens.get(i).copied().flatten().ok_or_else(|| {
                        unsupported(format!(
                            "pointer parameter {} needs an array length",
                            p.name
                        ))
                    })?;
                    match p.pointee {
                        Some(ScalarTy::Float(ty)) => NativeArgKind::FloatArray { ty, len },
                        Some(ScalarTy::Int(width)) => NativeArgKind::IntArray { width, len },
                        other => {
                            return Err(unsupported(format!(
                                "pointer parameter {} points to {}",
                                p.name,
                                other.map_or("an unknown type".to_string(), |t| t.to_string())
                            )))
                        }
                    }
                }
                other => {
                    return Err(unsupported(format!(
                        "parameter {} has type {other}",
                        p.name
                    )))
                }
            };
            params.push(kind);
        }
        let sig = NativeSignature {
            symbol: f.name.clone(),
            params,
            ret: f.ret,
            setup: None,
        };
        sig.check().map_err(unsupported)?;
        Ok(sig)
    }

    /// Checks what the driver can express; returns the reason otherwise.
    fn check(&self) -> std::result::Result<RetKind, String> {
        let symbol_ok = !self.symbol.is_empty()
            && self
                .symbol
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
        if !symbol_ok {
            return Err(format!("symbol {:?} cannot be named from C", self.symbol));
        }
        if self.symbol == "main" {
            return Err("the driver supplies main itself; main cannot be replayed".into());
        }
        for kind in &self.params {
            match *kind {
                NativeArgKind::Int { width, .. } if !(1..=64).contains(&width) => {
                    return Err(format!(
                        "integer parameter of {width} bits (1..=64 supported)"
                    ))
                }
                NativeArgKind::IntArray { width, .. } if !matches!(width, 1 | 8 | 16 | 32 | 64) => {
                    return Err(format!(
                        "array of i{width} (i1, i8, i16, i32, i64 supported)"
                    ))
                }
                _ => {}
            }
        }
        RetKind::of(self.ret).ok_or_else(|| format!("return type {} is not supported", self.ret))
    }

    /// Length and cell width in bits of each array parameter, in order (`bool` arrays
    /// are byte cells: the function may store any byte there).
    fn array_cells(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.params.iter().filter_map(|k| match *k {
            NativeArgKind::FloatArray { ty, len } => Some((len, ty.bits())),
            NativeArgKind::IntArray { width, len } => Some((len, width.max(8))),
            _ => None,
        })
    }
}

/// A native outcome with the executable's own exception trace (empty when the call
/// crashed or timed out: the events died with the driver; for a program end, the events
/// before it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TracedOutcome {
    pub outcome: NativeOutcome,
    pub trace: NativeTrace,
}

/// A compiled driver executable for one (source, build, signature).
#[derive(Clone, Debug)]
pub struct NativeBuild {
    exe: PathBuf,
    sig: NativeSignature,
    ret: RetKind,
    build: BuildKind,
    /// Opened on the first traced run; shared by clones.
    symbols: Arc<Mutex<Option<std::result::Result<Symbolizer, String>>>>,
}

/// Keeps the last bytes of the driver's stderr, for crash reports.
const STDERR_TAIL: usize = 4096;
/// How long a fresh driver may take to print `READY` at least.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

impl NativeBuild {
    /// Compiles `src` with the flags of `build`, generates and compiles the driver, and
    /// links both in a fresh directory under `work_dir`.
    pub fn compile(
        tc: &Toolchain,
        src: &Path,
        build: BuildKind,
        flags: &BuildFlags,
        sig: &NativeSignature,
        work_dir: &Path,
    ) -> Result<NativeBuild> {
        NativeBuild::compile_sources(tc, &SourceSet::single(src), build, flags, sig, work_dir)
    }

    /// [`NativeBuild::compile`] of several files: each is compiled to an object with its
    /// own flags in `build`, and all are linked with the driver.
    pub fn compile_sources(
        tc: &Toolchain,
        sources: &SourceSet,
        build: BuildKind,
        flags: &BuildFlags,
        sig: &NativeSignature,
        work_dir: &Path,
    ) -> Result<NativeBuild> {
        NativeBuild::compile_with(tc, sources, build, flags, sig, None, work_dir)
    }

    /// [`NativeBuild::compile_sources`] with the exhaustive sweep against `reference`
    /// linked in (see [`NativeBuild::sweep`]); the function must be `float f(float)`.
    pub fn compile_sweep(
        tc: &Toolchain,
        sources: &SourceSet,
        build: BuildKind,
        flags: &BuildFlags,
        sig: &NativeSignature,
        reference: &SweepReference,
        work_dir: &Path,
    ) -> Result<NativeBuild> {
        let float = Type::Scalar(ScalarTy::Float(FloatTy::F32));
        if sig.params != [NativeArgKind::Float(FloatTy::F32)] || sig.ret != float {
            return Err(NativeError::UnsupportedSignature {
                function: sig.symbol.clone(),
                reason: "the exhaustive sweep needs a function of one float returning float".into(),
            });
        }
        let extra = (
            sweep::sweep_source(&sig.symbol, reference),
            "sweep",
            "exhaustive sweep",
        );
        NativeBuild::compile_with(tc, sources, build, flags, sig, Some(extra), work_dir)
    }

    /// [`NativeBuild::compile_sources`] with the native scan against `long_double_c`
    /// linked in (see [`NativeBuild::scan`]); the function must take floats and return
    /// one.
    pub fn compile_scan(
        tc: &Toolchain,
        sources: &SourceSet,
        build: BuildKind,
        flags: &BuildFlags,
        sig: &NativeSignature,
        long_double_c: &str,
        work_dir: &Path,
    ) -> Result<NativeBuild> {
        let source = scan::scan_source(sig, long_double_c).map_err(|reason| {
            NativeError::UnsupportedSignature {
                function: sig.symbol.clone(),
                reason,
            }
        })?;
        let extra = (source, "scan", "native scan");
        NativeBuild::compile_with(tc, sources, build, flags, sig, Some(extra), work_dir)
    }

    fn compile_with(
        tc: &Toolchain,
        sources: &SourceSet,
        build: BuildKind,
        flags: &BuildFlags,
        sig: &NativeSignature,
        extra: Option<(String, &str, &str)>,
        work_dir: &Path,
    ) -> Result<NativeBuild> {
        let ret = sig
            .check()
            .map_err(|reason| NativeError::UnsupportedSignature {
                function: sig.symbol.clone(),
                reason,
            })?;
        let cxx = sources.needs_cxx_runtime()?;
        std::fs::create_dir_all(work_dir).map_err(io_err("creating the work directory"))?;
        let label = match build {
            BuildKind::P => "P",
            BuildKind::PPrime => "PPrime",
        };
        // A fresh directory per build: a second NativeBuild for the same source must not
        // overwrite an executable another one still runs.
        let dir = tempfile::Builder::new()
            .prefix(&format!("native-{label}-"))
            .tempdir_in(work_dir)
            .map_err(io_err("creating the native build directory"))?
            .keep();

        let driver_c = dir.join("driver.c");
        let driver_obj = dir.join("driver.o");
        std::fs::write(&driver_c, driver::generate(sig, ret))
            .map_err(io_err("writing the driver source"))?;
        compile_driver(tc, &driver_c, &driver_obj)?;

        let mut objects = vec![driver_obj];
        // The sweep or scan: its own translation unit, compiled as C's arithmetic is
        // written (its estimates must not be contracted or reassociated).
        if let Some((source, stem, what)) = extra {
            let obj = dir.join(format!("{stem}.o"));
            tc.compile_c_text(
                &source,
                &["-std=gnu17", "-O2", "-fno-fast-math", "-ffp-contract=off"],
                &obj,
                what,
            )?;
            objects.push(obj);
        }
        for (index, file) in sources.files.iter().enumerate() {
            let target_obj = dir.join(format!("target{index}.o"));
            tc.compile_object(&file.path, &flags.for_file(build, file), &target_obj)?;
            objects.push(target_obj);
        }

        // The build's own flags go to the link so clang adds crtfastmath.o (or sanitizer,
        // LTO, profiling runtimes) exactly as for a real executable of that build.
        let link_flags = link_flags(&flags.compile_flags(build));
        let exe = dir.join("driver");
        match tc.link(&objects, &link_flags, &flags.libraries, cxx, &exe) {
            Ok(()) => {}
            Err(ToolchainError::ToolFailed { diagnostics, .. })
                if diagnostics.contains("multiple definition of `main'")
                    || diagnostics.contains("duplicate symbol: main") =>
            {
                // The user's code has its own main: rename it in its objects and relink
                // (renaming in an object without one changes nothing).
                for target_obj in &objects[1..] {
                    rename_main(tc, target_obj)?;
                }
                tc.link(&objects, &link_flags, &flags.libraries, cxx, &exe)?;
            }
            Err(e) => return Err(e.into()),
        }
        Ok(NativeBuild {
            exe,
            sig: sig.clone(),
            ret,
            build,
            symbols: Arc::new(Mutex::new(None)),
        })
    }

    /// The driver executable (kept on disk for inspection).
    pub fn executable(&self) -> &Path {
        &self.exe
    }

    pub fn signature(&self) -> &NativeSignature {
        &self.sig
    }

    pub fn build(&self) -> BuildKind {
        self.build
    }

    /// MXCSR as the driver sees it before the first call (after applying `ftz_daz`).
    pub fn startup_mxcsr(&self, ftz_daz: FtzDaz) -> Result<u32> {
        let mut session =
            Session::spawn(&self.exe, &["run", ftz_daz.arg()], Arc::new(Vec::new()), 0)?;
        let csr = session.expect_ready(STARTUP_TIMEOUT)?;
        session.kill_and_reap();
        Ok(csr)
    }

    /// Runs every input vector; one outcome per input, in order.
    pub fn run(&self, inputs: &[Vec<NativeArg>], opts: &RunOptions) -> Result<Vec<NativeOutcome>> {
        Ok(self
            .run_mode(inputs, opts, "run")?
            .into_iter()
            .map(|(outcome, _)| outcome)
            .collect())
    }

    /// Runs every input vector with the exceptions unmasked, so each instruction that
    /// raises invalid, divide-by-zero, overflow or underflow is recorded in order, with
    /// its mnemonic and source line. Results and flags are those of [`NativeBuild::run`].
    pub fn run_traced(
        &self,
        inputs: &[Vec<NativeArg>],
        opts: &RunOptions,
    ) -> Result<Vec<TracedOutcome>> {
        let raw = self.run_mode(inputs, opts, "trace")?;
        let mut guard = self
            .symbols
            .lock()
            .map_err(|_| NativeError::Protocol("symbolizer lock poisoned".into()))?;
        let symbols = guard.get_or_insert_with(|| Symbolizer::open(&self.exe));
        let symbols = symbols.as_mut().map_err(|e| NativeError::Io {
            what: "reading the executable's symbols".into(),
            source: io::Error::other(e.clone()),
        })?;
        Ok(raw
            .into_iter()
            .map(|(outcome, trace)| {
                let trace = trace
                    .map(|(truncated, events)| NativeTrace {
                        events: symbols.events(&events),
                        truncated,
                    })
                    .unwrap_or_default();
                TracedOutcome { outcome, trace }
            })
            .collect())
    }

    /// One outcome per input, with the raw trace in `trace` mode.
    #[allow(clippy::type_complexity)]
    fn run_mode(
        &self,
        inputs: &[Vec<NativeArg>],
        opts: &RunOptions,
        mode: &str,
    ) -> Result<Vec<(NativeOutcome, Option<(bool, Vec<RawEvent>)>)>> {
        let lines = Arc::new(self.encode_inputs(inputs)?);
        let mut outcomes = Vec::with_capacity(inputs.len());
        let startup = STARTUP_TIMEOUT.max(opts.per_vector_timeout);
        while outcomes.len() < inputs.len() {
            let first = outcomes.len();
            let mut session = Session::spawn(
                &self.exe,
                &[mode, opts.ftz_daz.arg()],
                Arc::clone(&lines),
                first,
            )?;
            session.expect_ready(startup)?;
            while outcomes.len() < inputs.len() {
                match session.next_line(opts.per_vector_timeout)? {
                    Next::Line(line) => {
                        let (report, trace) = match line.split_once(" | ") {
                            Some((report, trace)) => (
                                report,
                                Some(trace::parse_raw(trace).map_err(|e| {
                                    NativeError::Protocol(format!("{e} in driver line {line:?}"))
                                })?),
                            ),
                            None => (line.as_str(), None),
                        };
                        outcomes.push((self.parse_report(report)?, trace));
                    }
                    Next::TimedOut => {
                        session.kill_and_reap();
                        outcomes.push((NativeOutcome::TimedOut, None));
                        break;
                    }
                    Next::Closed => {
                        let status = session.reap_after_close();
                        outcomes.push((
                            NativeOutcome::Crashed {
                                signal: status.and_then(|s| s.signal()),
                                detail: session.crash_detail(status),
                            },
                            None,
                        ));
                        break;
                    }
                }
            }
            session.kill_and_reap();
        }
        Ok(outcomes)
    }

    /// The inputs of index `first + i * stride`, `i < count`, of a function of one float
    /// parameter, one code byte each (flags and result class, see [`decode_enumerated`]),
    /// handed to `sink` in order and in chunks. A `float` parameter's input of index `k`
    /// is the float with bits `k`; a `double`'s is [`enumerated_double`]`(k)`.
    /// `sink` returning false stops the enumeration there. Fails when the executable stops
    /// early (a crash, or the function ended the program) or sends nothing for
    /// `stall_limit`.
    pub fn enumerate(
        &self,
        first: u64,
        count: u64,
        stride: u64,
        opts: &RunOptions,
        stall_limit: Duration,
        sink: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<()> {
        if !matches!(self.sig.params.as_slice(), [NativeArgKind::Float(_)]) {
            return Err(NativeError::UnsupportedSignature {
                function: self.sig.symbol.clone(),
                reason: "enumeration needs exactly one float parameter".into(),
            });
        }
        let mut child = Command::new(&self.exe)
            .args([
                "enumerate",
                opts.ftz_daz.arg(),
                &first.to_string(),
                &count.to_string(),
                &stride.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(io_err(format!("starting {}", self.exe.display())))?;
        let Some(stdout) = child.stdout.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(NativeError::Startup(
                "the driver's pipe was not created".into(),
            ));
        };
        // A reader thread, so that a stalled executable is noticed and killed. Its first
        // message is the `READY` line, then the codes in chunks.
        let (tx, rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(8);
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut header = Vec::new();
            if let Err(e) = reader.read_until(b'\n', &mut header) {
                let _ = tx.send(Err(e));
                return;
            }
            if tx.send(Ok(header)).is_err() {
                return;
            }
            loop {
                let mut chunk = vec![0u8; 1 << 20];
                match reader.read(&mut chunk) {
                    Ok(0) => return,
                    Ok(n) => {
                        chunk.truncate(n);
                        if tx.send(Ok(chunk)).is_err() {
                            return;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        });
        let fail = |child: &mut Child, what: String| {
            let _ = child.kill();
            let status = child.wait().ok();
            NativeError::Protocol(format!(
                "{what} (executable {})",
                status.map_or("gone".to_string(), |s| s.to_string())
            ))
        };
        let next = |child: &mut Child, received: u64| match rx.recv_timeout(stall_limit) {
            Ok(Ok(c)) => Ok(c),
            Ok(Err(e)) => Err(fail(child, format!("reading codes: {e}"))),
            Err(RecvTimeoutError::Timeout) => Err(fail(
                child,
                format!("no code for {stall_limit:?} after {received} of {count} inputs"),
            )),
            Err(RecvTimeoutError::Disconnected) => Err(fail(
                child,
                format!("the enumeration stopped after {received} of {count} inputs"),
            )),
        };
        let header = next(&mut child, 0)?;
        let line = String::from_utf8_lossy(&header);
        if !line.starts_with("READY ") {
            return Err(fail(
                &mut child,
                format!("driver said {:?}", line.trim_end()),
            ));
        }
        let mut received: u64 = 0;
        while received < count {
            let chunk = next(&mut child, received)?;
            let take = chunk.len().min((count - received) as usize);
            if !sink(&chunk[..take]) {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(());
            }
            received += take as u64;
        }
        let _ = child.wait();
        Ok(())
    }

    /// Calls per second of the function alone: inputs are preloaded in the driver, which
    /// loops over them (restoring array contents before each call) for at least
    /// `min_seconds`, with no I/O in the timed loop.
    pub fn throughput(
        &self,
        inputs: &[Vec<NativeArg>],
        opts: &RunOptions,
        min_seconds: f64,
    ) -> Result<f64> {
        self.throughput_mode(inputs, opts, min_seconds, false)
    }

    /// As [`NativeBuild::throughput`], with the exceptions unmasked and each call wrapped
    /// in the trace bookkeeping, as in a traced run: what tracing costs an input that
    /// raises nothing.
    pub fn throughput_traced(
        &self,
        inputs: &[Vec<NativeArg>],
        opts: &RunOptions,
        min_seconds: f64,
    ) -> Result<f64> {
        self.throughput_mode(inputs, opts, min_seconds, true)
    }

    fn throughput_mode(
        &self,
        inputs: &[Vec<NativeArg>],
        opts: &RunOptions,
        min_seconds: f64,
        traced: bool,
    ) -> Result<f64> {
        if inputs.is_empty() {
            return Err(NativeError::Bench("no input vectors".into()));
        }
        if !(min_seconds.is_finite() && (0.0..=1e6).contains(&min_seconds)) {
            return Err(NativeError::Bench(format!(
                "invalid duration {min_seconds} s"
            )));
        }
        let lines = Arc::new(self.encode_inputs(inputs)?);
        let min_ns = (min_seconds * 1e9) as u64;
        let mut session = Session::spawn(
            &self.exe,
            &[
                if traced { "bench-trace" } else { "bench" },
                opts.ftz_daz.arg(),
                &min_ns.to_string(),
            ],
            lines,
            0,
        )?;
        session.expect_ready(STARTUP_TIMEOUT.max(opts.per_vector_timeout))?;
        // Reading the vectors, the timed loop and its last (possibly long) batch.
        let deadline = STARTUP_TIMEOUT
            + Duration::from_secs_f64(2.0 * min_seconds)
            + opts.per_vector_timeout.saturating_mul(4);
        let line = match session.next_line(deadline)? {
            Next::Line(line) => line,
            Next::TimedOut => {
                session.kill_and_reap();
                return Err(NativeError::Bench(format!("no result after {deadline:?}")));
            }
            Next::Closed => {
                let status = session.reap_after_close();
                return Err(NativeError::Bench(session.crash_detail(status)));
            }
        };
        session.kill_and_reap();
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        match fields.as_slice() {
            ["B", calls, ns] => {
                let calls = parse_hex(calls, &line)?;
                let ns = parse_hex(ns, &line)?;
                if ns == 0 {
                    return Err(NativeError::Bench(
                        "the timed loop took no measurable time".into(),
                    ));
                }
                Ok(calls as f64 / (ns as f64 * 1e-9))
            }
            ["E", ..] => Err(NativeError::Protocol(line.clone())),
            _ => Err(NativeError::Protocol(format!(
                "unexpected benchmark line {line:?}"
            ))),
        }
    }

    /// Checks each vector against the signature and renders it as one protocol line.
    fn encode_inputs(&self, inputs: &[Vec<NativeArg>]) -> Result<Vec<String>> {
        inputs
            .iter()
            .enumerate()
            .map(|(index, args)| {
                encode_vector(&self.sig, args)
                    .map_err(|reason| NativeError::BadInput { index, reason })
            })
            .collect()
    }

    /// Parses an `R` line into an outcome.
    fn parse_report(&self, line: &str) -> Result<NativeOutcome> {
        parse_report(&self.sig, self.ret, line)
    }
}

/// Flags for linking: the build's own, minus those that would change how the objects are
/// read (`-x <lang>` would make clang compile the .o files as source).
fn link_flags(build_flags: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(build_flags.len() + 1);
    let mut skip_next = false;
    for f in build_flags {
        if skip_next {
            skip_next = false;
            continue;
        }
        if f == "-x" {
            skip_next = true;
            continue;
        }
        if f.starts_with("-x") && f.len() > 2 {
            continue;
        }
        out.push(f.clone());
    }
    // Compile-only flags (-g, -O3, -Xclang ...) are fine at link time; silence the noise.
    out.push("-Wno-unused-command-line-argument".to_string());
    // Calls that end the program reach the driver's wrappers (see module `driver`).
    out.push(driver::WRAP_LINK_FLAGS.to_string());
    out
}

fn compile_driver(tc: &Toolchain, driver_c: &Path, driver_obj: &Path) -> Result<()> {
    // Compiled from its text (kept in `driver_c` for inspection), so that the same
    // driver in another directory is the same cached object.
    let code = std::fs::read_to_string(driver_c).map_err(io_err("reading the driver source"))?;
    tc.compile_c_text(
        &code,
        &[
            "-std=gnu17",
            "-O0",
            "-fno-fast-math",
            "-ffp-contract=off",
            "-Wno-bit-int-extension",
        ],
        driver_obj,
        "native driver",
    )?;
    Ok(())
}

/// Renames `main` in the user's object so the driver's main is the entry point.
fn rename_main(tc: &Toolchain, obj: &Path) -> Result<()> {
    let tool = tc.objcopy();
    let output = Command::new(&tool)
        .arg("--redefine-sym")
        .arg("main=__fpscout_user_main")
        .arg(obj)
        .output()
        .map_err(|source| ToolchainError::Io {
            what: tool.display().to_string(),
            source,
        })?;
    if !output.status.success() {
        return Err(ToolchainError::ToolFailed {
            tool: format!("{} (renaming the user's main)", tool.display()),
            diagnostics: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
        .into());
    }
    Ok(())
}

/// Renders one input vector as hex tokens, checking it against the signature.
fn encode_vector(sig: &NativeSignature, args: &[NativeArg]) -> std::result::Result<String, String> {
    if args.len() != sig.params.len() {
        return Err(format!(
            "{} arguments given, the function takes {}",
            args.len(),
            sig.params.len()
        ));
    }
    let mut tokens: Vec<String> = Vec::new();
    let float_bits = |ty: FloatTy, bits: u64, what: &str| {
        if ty == FloatTy::F32 && bits > u64::from(u32::MAX) {
            Err(format!("{what}: f32 bits {bits:#x} do not fit in 32 bits"))
        } else {
            Ok(format!("{bits:x}"))
        }
    };
    for (i, (kind, arg)) in sig.params.iter().zip(args).enumerate() {
        let what = format!("argument {i}");
        match (kind, arg) {
            (NativeArgKind::Float(ty), NativeArg::Float(bits)) => {
                tokens.push(float_bits(*ty, *bits, &what)?)
            }
            (NativeArgKind::Int { width, .. }, NativeArg::Int(bits)) => {
                tokens.push(format!("{:x}", fpscout_ir::truncate_bits(*bits, *width)))
            }
            (NativeArgKind::FloatArray { ty, len }, NativeArg::Array(elems)) => {
                check_len(*len, elems.len(), &what)?;
                for &e in elems {
                    tokens.push(float_bits(*ty, e, &what)?);
                }
            }
            (NativeArgKind::IntArray { width, len }, NativeArg::Array(elems)) => {
                check_len(*len, elems.len(), &what)?;
                tokens.extend(
                    elems
                        .iter()
                        .map(|&e| format!("{:x}", fpscout_ir::truncate_bits(e, *width))),
                );
            }
            (kind, arg) => return Err(format!("{what}: {arg:?} given for a {kind:?} parameter")),
        }
    }
    Ok(tokens.join(" "))
}

fn check_len(expected: usize, got: usize, what: &str) -> std::result::Result<(), String> {
    if expected == got {
        Ok(())
    } else {
        Err(format!(
            "{what}: {got} array elements given, the signature says {expected}"
        ))
    }
}

fn parse_hex(token: &str, line: &str) -> Result<u64> {
    u64::from_str_radix(token, 16)
        .map_err(|_| NativeError::Protocol(format!("bad hex token {token:?} in line {line:?}")))
}

/// Parses `R <ret|-> <flags> <array elements...>` or
/// `X <kind> <code> <flags> <text> <array elements...>` (see module `driver`).
fn parse_report(sig: &NativeSignature, ret: RetKind, line: &str) -> Result<NativeOutcome> {
    let mut tokens = line.split_ascii_whitespace();
    let bad = |what: &str| NativeError::Protocol(format!("{what} in driver line {line:?}"));
    let outcome = match tokens.next() {
        Some("R") => {
            let ret_token = tokens.next().ok_or_else(|| bad("missing result"))?;
            let result = match ret {
                RetKind::Void if ret_token == "-" => None,
                RetKind::Void => return Err(bad("result for a void function")),
                RetKind::Float(ty) => {
                    Some(check_width(parse_hex(ret_token, line)?, ty.bits(), line)?)
                }
                RetKind::Int(w) => Some(check_width(parse_hex(ret_token, line)?, w, line)?),
            };
            let flags = parse_flags(tokens.next(), line)?;
            let arrays = parse_arrays(sig, &mut tokens, line)?;
            NativeOutcome::Returned {
                result,
                flags,
                arrays,
            }
        }
        Some("X") => {
            let kind = tokens.next().ok_or_else(|| bad("missing end kind"))?;
            let code = parse_hex(tokens.next().ok_or_else(|| bad("missing end code"))?, line)?;
            let code = u32::try_from(code).map_err(|_| bad("end code wider than 32 bits"))?;
            let flags = parse_flags(tokens.next(), line)?;
            let text = tokens.next().ok_or_else(|| bad("missing end text"))?;
            let end = match (kind, text) {
                // The argument's bits, as the C int it was.
                ("exit", "-") => ProgramEnd::Exit {
                    status: code as i32,
                },
                ("abort", "-") if code == 0 => ProgramEnd::Abort,
                ("assert", text) => {
                    // The expression is the message; where it failed is the call's place,
                    // which the interpreter reports (file and line are checked only).
                    let (assertion, file) = text
                        .split_once('.')
                        .ok_or_else(|| bad("assertion text without its file"))?;
                    let assertion =
                        decode_hex_text(assertion).ok_or_else(|| bad("bad assertion text"))?;
                    decode_hex_text(file).ok_or_else(|| bad("bad assertion file"))?;
                    ProgramEnd::AssertFail { message: assertion }
                }
                _ => return Err(bad("unknown program end")),
            };
            let arrays = parse_arrays(sig, &mut tokens, line)?;
            NativeOutcome::Ended { end, flags, arrays }
        }
        Some("E") => return Err(NativeError::Protocol(format!("driver reported: {line}"))),
        _ => return Err(bad("unexpected line")),
    };
    if tokens.next().is_some() {
        return Err(bad("trailing tokens"));
    }
    Ok(outcome)
}

/// Parses the flags token (MXCSR layout, IEEE flags only).
fn parse_flags(token: Option<&str>, line: &str) -> Result<ExceptionSet> {
    let token = token
        .ok_or_else(|| NativeError::Protocol(format!("missing flags in driver line {line:?}")))?;
    let flags = parse_hex(token, line)?;
    if flags & !0x3d != 0 {
        return Err(NativeError::Protocol(format!(
            "flags outside the IEEE set in driver line {line:?}"
        )));
    }
    Ok(ExceptionSet::from_mxcsr(flags as u32))
}

/// Parses the contents of every array parameter, in order.
fn parse_arrays<'a>(
    sig: &NativeSignature,
    tokens: &mut impl Iterator<Item = &'a str>,
    line: &str,
) -> Result<Vec<Vec<u64>>> {
    let mut arrays = Vec::new();
    for (len, width) in sig.array_cells() {
        let mut elems = Vec::with_capacity(len);
        for _ in 0..len {
            let t = tokens.next().ok_or_else(|| {
                NativeError::Protocol(format!("missing array element in driver line {line:?}"))
            })?;
            elems.push(check_width(parse_hex(t, line)?, width, line)?);
        }
        arrays.push(elems);
    }
    Ok(arrays)
}

/// Decodes a string sent as two hex digits per byte (invalid UTF-8 is replaced).
fn decode_hex_text(hex: &str) -> Option<String> {
    let digit = |b: u8| char::from(b).to_digit(16);
    let bytes = hex
        .as_bytes()
        .chunks(2)
        .map(|pair| match *pair {
            [hi, lo] => Some((digit(hi)? << 4 | digit(lo)?) as u8),
            _ => None,
        })
        .collect::<Option<Vec<u8>>>()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn check_width(bits: u64, width: u32, line: &str) -> Result<u64> {
    if fpscout_ir::truncate_bits(bits, width) == bits {
        Ok(bits)
    } else {
        Err(NativeError::Protocol(format!(
            "value {bits:#x} wider than {width} bits in {line:?}"
        )))
    }
}

/// What the reader thread saw on the driver's protocol stream.
enum ReadEvent {
    Line(String),
    Eof,
    Failed(io::Error),
}

/// The next report of a running driver.
enum Next {
    Line(String),
    TimedOut,
    /// The driver closed its output (it exited or crashed).
    Closed,
}

/// One driver process with its reader, writer and stderr threads. Dropping it kills and
/// reaps the process, so no path leaves a zombie.
struct Session {
    child: Child,
    lines: Receiver<ReadEvent>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_done: Receiver<()>,
    status: Option<ExitStatus>,
}

impl Session {
    /// Starts the driver and streams `lines[first..]` to it from a writer thread (so a
    /// large batch cannot deadlock against the driver's output).
    fn spawn(exe: &Path, args: &[&str], lines: Arc<Vec<String>>, first: usize) -> Result<Session> {
        let mut child = Command::new(exe)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(io_err(format!("starting {}", exe.display())))?;
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(NativeError::Startup(
                        "the driver's pipes were not created".into(),
                    ));
                }
            };
        thread::spawn(move || write_lines(stdin, &lines[first.min(lines.len())..]));

        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match reader.read_until(b'\n', &mut buf) {
                    // A line without its newline was cut short by a crash: not a report.
                    Ok(_) if buf.last() != Some(&b'\n') => {
                        let _ = tx.send(ReadEvent::Eof);
                        return;
                    }
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if tx.send(ReadEvent::Line(line)).is_err() {
                            return;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        let _ = tx.send(ReadEvent::Failed(e));
                        return;
                    }
                }
            }
        });

        let tail = Arc::new(Mutex::new(Vec::new()));
        let (done_tx, done_rx) = mpsc::channel();
        let tail_writer = Arc::clone(&tail);
        thread::spawn(move || {
            collect_tail(stderr, &tail_writer);
            let _ = done_tx.send(());
        });
        Ok(Session {
            child,
            lines: rx,
            stderr: tail,
            stderr_done: done_rx,
            status: None,
        })
    }

    /// Waits for `READY <mxcsr>`.
    fn expect_ready(&mut self, timeout: Duration) -> Result<u32> {
        match self.next_line(timeout)? {
            Next::Line(line) => {
                let fields: Vec<&str> = line.split_ascii_whitespace().collect();
                match fields.as_slice() {
                    ["READY", csr] => Ok(parse_hex(csr, &line)? as u32),
                    _ => Err(NativeError::Startup(format!(
                        "unexpected first line {line:?}"
                    ))),
                }
            }
            Next::TimedOut => {
                self.kill_and_reap();
                Err(NativeError::Startup(format!(
                    "no READY line within {timeout:?}"
                )))
            }
            Next::Closed => {
                let status = self.reap_after_close();
                Err(NativeError::Startup(self.crash_detail(status)))
            }
        }
    }

    fn next_line(&mut self, timeout: Duration) -> Result<Next> {
        match self.lines.recv_timeout(timeout) {
            Ok(ReadEvent::Line(l)) => Ok(Next::Line(l)),
            Ok(ReadEvent::Eof) | Err(RecvTimeoutError::Disconnected) => Ok(Next::Closed),
            Ok(ReadEvent::Failed(e)) => {
                self.kill_and_reap();
                Err(NativeError::Io {
                    what: "reading the driver's output".into(),
                    source: e,
                })
            }
            Err(RecvTimeoutError::Timeout) => Ok(Next::TimedOut),
        }
    }

    /// Kills the driver if it still runs and reaps it.
    fn kill_and_reap(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            // kill fails only if the process already exited, which wait then reports.
            let _ = self.child.kill();
            self.status = self.child.wait().ok();
        }
        self.status
    }

    /// Reaps a driver that closed its output; one that lingers briefly is killed.
    fn reap_after_close(&mut self) -> Option<ExitStatus> {
        let deadline = Instant::now() + Duration::from_secs(1);
        while self.status.is_none() && Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(s)) => self.status = Some(s),
                Ok(None) => thread::sleep(Duration::from_millis(2)),
                Err(_) => break,
            }
        }
        self.kill_and_reap()
    }

    /// Describes how the driver ended, with the tail of its stderr.
    fn crash_detail(&self, status: Option<ExitStatus>) -> String {
        // The stderr thread finishes at EOF, right after the process exits; a grandchild
        // holding the pipe open must not block the report.
        let _ = self.stderr_done.recv_timeout(Duration::from_millis(500));
        let mut detail = match status {
            Some(s) => match (s.signal(), s.code()) {
                (Some(sig), _) => format!("killed by signal {sig} ({})", signal_name(sig)),
                (None, Some(code)) => format!("exited with status {code} before reporting"),
                (None, None) => format!("ended abnormally ({s})"),
            },
            None => "ended, exit status unavailable".to_string(),
        };
        let tail = match self.stderr.lock() {
            Ok(t) => String::from_utf8_lossy(&t).trim().to_string(),
            Err(_) => String::new(),
        };
        if !tail.is_empty() {
            detail.push_str("; stderr: ");
            detail.push_str(&tail);
        }
        detail
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.kill_and_reap();
    }
}

fn write_lines(stdin: ChildStdin, lines: &[String]) {
    let mut w = io::BufWriter::new(stdin);
    for l in lines {
        // A write error means the driver died; the runner notices on its output side.
        if w.write_all(l.as_bytes())
            .and_then(|()| w.write_all(b"\n"))
            .is_err()
        {
            return;
        }
    }
    // Dropping the writer closes stdin, which ends the driver's input loop.
    let _ = w.flush();
}

fn collect_tail(mut stderr: impl Read, tail: &Mutex<Vec<u8>>) {
    let mut buf = [0u8; 4096];
    loop {
        match stderr.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if let Ok(mut t) = tail.lock() {
                    t.extend_from_slice(&buf[..n]);
                    if t.len() > STDERR_TAIL {
                        let cut = t.len() - STDERR_TAIL;
                        t.drain(..cut);
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGFPE => "SIGFPE",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSYS => "SIGSYS",
        _ => "other signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(params: Vec<NativeArgKind>, ret: Type) -> NativeSignature {
        NativeSignature {
            symbol: "f".into(),
            params,
            ret,
            setup: None,
        }
    }

    #[test]
    fn encodes_vectors_as_hex_tokens() {
        let s = sig(
            vec![
                NativeArgKind::Float(FloatTy::F64),
                NativeArgKind::Int {
                    width: 8,
                    unsigned: false,
                },
                NativeArgKind::FloatArray {
                    ty: FloatTy::F32,
                    len: 2,
                },
            ],
            Type::F64,
        );
        let line = encode_vector(
            &s,
            &[
                NativeArg::Float(1.5f64.to_bits()),
                NativeArg::Int(u64::MAX),
                NativeArg::Array(vec![0x3f800000, 0]),
            ],
        )
        .unwrap();
        assert_eq!(line, "3ff8000000000000 ff 3f800000 0");
        assert!(encode_vector(&s, &[NativeArg::Float(0)]).is_err());
        let wide_f32 = [
            NativeArg::Float(0),
            NativeArg::Int(0),
            NativeArg::Array(vec![1 << 40, 0]),
        ];
        assert!(encode_vector(&s, &wide_f32).is_err());
        let short = [
            NativeArg::Float(0),
            NativeArg::Int(0),
            NativeArg::Array(vec![0]),
        ];
        assert!(encode_vector(&s, &short).is_err());
    }

    #[test]
    fn parses_reports_strictly() {
        let s = sig(
            vec![NativeArgKind::IntArray { width: 16, len: 2 }],
            Type::F32,
        );
        let ret = s.check().unwrap();
        assert_eq!(
            parse_report(&s, ret, "R 7f800000 28 1 ffff").unwrap(),
            NativeOutcome::Returned {
                result: Some(0x7f800000),
                flags: ExceptionSet(0x28),
                arrays: vec![vec![1, 0xffff]],
            }
        );
        for bad in [
            "R 7f800000 28 1",
            "R 7f800000 28 1 2 3",
            "R 1ffffffff 0 1 2",
            "R - 0 1 2",
            "X",
            "E oops",
            "R 0 2 1 2",
        ] {
            assert!(parse_report(&s, ret, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parses_program_ends() {
        let s = sig(
            vec![NativeArgKind::IntArray { width: 16, len: 2 }],
            Type::F32,
        );
        let ret = s.check().unwrap();
        assert_eq!(
            parse_report(&s, ret, "X exit ffffffff 4 - 1 ffff").unwrap(),
            NativeOutcome::Ended {
                end: ProgramEnd::Exit { status: -1 },
                flags: ExceptionSet(0x4),
                arrays: vec![vec![1, 0xffff]],
            }
        );
        assert_eq!(
            parse_report(&s, ret, "X abort 0 0 - 0 0").unwrap(),
            NativeOutcome::Ended {
                end: ProgramEnd::Abort,
                flags: ExceptionSet::EMPTY,
                arrays: vec![vec![0, 0]],
            }
        );
        // "x > 0" in "t.c", line 12.
        let end = parse_report(&s, ret, "X assert c 20 78203e2030.742e63 0 0").unwrap();
        let NativeOutcome::Ended { end, .. } = end else {
            panic!("{end:?}")
        };
        assert_eq!(
            end,
            ProgramEnd::AssertFail {
                message: "x > 0".into()
            }
        );
        assert_eq!(end.to_string(), "fails assertion `x > 0`");
        assert_eq!(
            ProgramEnd::Exit { status: 3 }.to_string(),
            "exits with status 3"
        );
        assert_eq!(ProgramEnd::Abort.to_string(), "aborts");
        assert_eq!(
            parse_report(&s, ret, "X assert 1 0 . 0 0").unwrap(),
            NativeOutcome::Ended {
                end: ProgramEnd::AssertFail {
                    message: String::new()
                },
                flags: ExceptionSet::EMPTY,
                arrays: vec![vec![0, 0]],
            }
        );
        for bad in [
            "X exit 3 0 - 1",
            "X exit 3 0 - 1 2 3",
            "X exit 3 0 41 1 2",
            "X exit 100000000 0 - 1 2",
            "X abort 1 0 - 1 2",
            "X assert 1 0 4 1 2",
            "X assert 1 0 414.4 1 2",
            "X assert 1 0 zz.41 1 2",
            "X quit 0 0 - 1 2",
            "X exit 3 2 - 1 2",
            "X exit 3",
        ] {
            assert!(parse_report(&s, ret, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn signature_checks_reject_what_c_cannot_express() {
        assert!(sig(vec![], Type::Vector(ScalarTy::Float(FloatTy::F32), 4))
            .check()
            .is_err());
        assert!(sig(
            vec![NativeArgKind::Int {
                width: 65,
                unsigned: false
            }],
            Type::Void
        )
        .check()
        .is_err());
        assert!(sig(
            vec![NativeArgKind::IntArray { width: 24, len: 1 }],
            Type::Void
        )
        .check()
        .is_err());
        let mut quoted = sig(vec![], Type::Void);
        quoted.symbol = "f\"".into();
        assert!(quoted.check().is_err());
        assert_eq!(sig(vec![], Type::int(24)).check(), Ok(RetKind::Int(24)));
    }

    #[test]
    fn link_flags_drop_language_selection() {
        let flags: Vec<String> = ["-x", "c", "-O3", "-xc", "-ffast-math"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            link_flags(&flags),
            vec![
                "-O3",
                "-ffast-math",
                "-Wno-unused-command-line-argument",
                driver::WRAP_LINK_FLAGS
            ]
        );
    }
}
