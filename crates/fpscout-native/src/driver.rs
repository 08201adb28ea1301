//! Generates the C batch driver that calls the function under test and reports bits and flags.
//!
//! The driver is its own translation unit, compiled at `-O0` without fast-math, so nothing
//! of it is inlined into the function and it performs no floating-point arithmetic: values
//! cross the protocol as hex bit patterns and become `float`/`double` only through `memcpy`.
//!
//! Protocol (text, one line per vector, so that after a crash the number of complete lines
//! says which vector was running):
//! - start-up: the driver prints `READY <mxcsr>` once the FTZ/DAZ setting is applied;
//! - `run` mode: each input line holds one hex token per scalar parameter and `len` tokens
//!   per array parameter; the driver answers `R <ret|-> <flags> <array elements...>` with
//!   flags in MXCSR layout, or `E <message>` for a line it cannot parse;
//! - a vector whose function ends the program answers
//!   `X <kind> <code> <flags> <text> <array elements...>` instead of `R`: `kind` is `exit`
//!   (`exit`, `_Exit`, `_exit` or `quick_exit`; `code` is the argument's 32 bits in hex),
//!   `abort` (`code` 0) or `assert` (a failed C `assert`, i.e. glibc's `__assert_fail`;
//!   `code` is the line number in hex). `text` is `-` except for `assert`, where it is
//!   `<assertion>.<file>`, each the hex encoding of the string's bytes (two lowercase digits
//!   per byte, possibly empty, so the token never holds a space and splits at its one `.`).
//!   Flags and array contents are those at the moment the program would have ended;
//! - `trace` mode: as `run`, with the SSE exceptions invalid, divide-by-zero, overflow and
//!   underflow unmasked in the environment every vector starts from. Each trap is recorded and the faulting instruction
//!   re-executed masked under the trap flag (FPSpy's trap-and-emulate), so the function
//!   computes exactly what it computes untraced. The report line (`R` or `X`) ends with
//!   `| <truncated> <event>...`, an event being `<flags>:<address>:<how>` (see
//!   [`crate::trace`]);
//! - `bench` and `bench-trace` modes: the driver reads every line first, then calls the
//!   function in a timed loop (`bench-trace`: with the exceptions unmasked as when tracing)
//!   and prints `B <calls> <elapsed ns>`;
//! - `enumerate` mode (`driver enumerate <ftz> <first> <count> <stride>`, decimal;
//!   functions of one float parameter only): after `READY`, one byte per input index
//!   `first + i * stride` for `i` in `0..count`,
//!   binary: the flags raised, invalid 1, divide-by-zero 2, overflow 4, underflow 8
//!   (inexact and denormal-operand left out), plus the result class times 16 (finite 0,
//!   +inf 1, -inf 2, NaN 3, anything else 4). A `float` parameter takes the bits of the
//!   input's index, so 2^32 inputs are every `float`; a `double` parameter takes
//!   `(k << 32) | mix(k)` for index `k`, every sign and exponent sampled. Flags are read
//!   after each call and cleared only when one of the four was raised (an `ldmxcsr` per
//!   call would cost more than most functions); no state is restored between inputs;
//! - `sweep` mode (`driver sweep <ftz> <first> <count> <threshold>`, the threshold as the
//!   hex bits of a double): hands over to the exhaustive sweep linked in (module
//!   `sweep`), which prints its own report.
//! - `scan` mode (`driver scan <ftz> <seed> <count> <relative> <lo hi>...`, one order-key
//!   interval per parameter): hands over to the native scan linked in (module `scan`).
//!
//! Program ends. The executable is linked with `--wrap` for `exit`, `_Exit`, `_exit`,
//! `quick_exit`, `abort` and `__assert_fail` (see [`WRAP_LINK_FLAGS`]), so every call the
//! linked objects make to them reaches the driver's `__wrap_*` functions (calls made inside
//! shared libraries, such as glibc's own `abort` on heap corruption, are not redirected and
//! still end the process). During the call of the function under test (`run` and `trace`
//! modes) a wrapper reads the flags raised so far (`fetestexcept`, before anything else),
//! ends the trace bookkeeping, records what happened and `siglongjmp`s back to a
//! `sigsetjmp` (signal mask saved) taken right before the call; the driver then reports the
//! vector and carries on with the next one. Nothing registered with `atexit` runs. Outside
//! the call (the driver's own errors, `bench` modes) and in any thread but the driver's
//! own a wrapper forwards to `__real_*`, so the process really ends (a crash for the
//! runner).
//!
//! Initial state. In `run` and `trace` modes every vector starts from the program's initial
//! writable data: after its set-up (streams, FP environment, trace handlers) the driver
//! copies the executable's `.data` and `.bss` (from `__data_start` to `_end`, both provided
//! by crt1 and the GNU ld script, checked against the writable `PT_LOAD` and kept clear of
//! `PT_GNU_RELRO`) and the main thread's block of the executable's own thread-local
//! variables (`PT_TLS`), and copies them back before each vector. The driver's own statics
//! there are either constant after set-up (`fps_in`, `fps_out`, `fps_base_env`, the trace
//! runtime's addresses, `fps_st`) or reset before each call (the trace counters); whatever
//! changes during a vector or must outlive the restore (jump buffer, end record, event
//! buffer, the snapshot itself) lives in the heap block `fps_st` points to. State inside
//! shared libraries (the heap, stdio buffers, `rand`'s seed, libm's `signgam` unless
//! copy-relocated) is not restored. A statically linked executable (no `PT_INTERP`) holds
//! the C library's state in its own data, so `run` and `trace` refuse it with `E`.
//! `bench` modes do not restore: they measure the call.
//!
//! Output. The function's stdin and stdout are `/dev/null` (the protocol uses private
//! copies of the original descriptors), so nothing it prints can corrupt a report or fill
//! a pipe; its stderr is the runner's stderr pipe, drained continuously, whose tail is the
//! detail of a crash.

use crate::{NativeArgKind, NativeSignature};
use fpscout_ir::{FloatTy, ScalarTy, Type};
use std::fmt::Write as _;

/// Linker flags redirecting the calls that end the program to the driver's wrappers.
pub(crate) const WRAP_LINK_FLAGS: &str =
    "-Wl,--wrap=exit,--wrap=_Exit,--wrap=_exit,--wrap=quick_exit,--wrap=abort,--wrap=__assert_fail";

/// What the driver does with the returned value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RetKind {
    Void,
    Float(FloatTy),
    Int(u32),
}

impl RetKind {
    pub(crate) fn of(ty: Type) -> Option<RetKind> {
        match ty {
            Type::Void => Some(RetKind::Void),
            Type::Scalar(ScalarTy::Float(f)) => Some(RetKind::Float(f)),
            Type::Scalar(ScalarTy::Int(w)) if (1..=64).contains(&w) => Some(RetKind::Int(w)),
            _ => None,
        }
    }
}

/// Whether an integer width has a `<stdint.h>` type (other widths use `_BitInt`).
fn is_std_width(width: u32) -> bool {
    matches!(width, 8 | 16 | 32 | 64)
}

/// The C type an integer of `width` bits is passed as.
fn c_int_ty(width: u32, unsigned: bool) -> String {
    match (width, unsigned) {
        (1, _) => "_Bool".to_string(),
        (w, false) if is_std_width(w) => format!("int{w}_t"),
        (w, true) if is_std_width(w) => format!("uint{w}_t"),
        (w, false) => format!("_BitInt({w})"),
        (w, true) => format!("unsigned _BitInt({w})"),
    }
}

/// Element type of an integer array (memory contents only, so signedness is irrelevant).
fn c_int_elem_ty(width: u32) -> String {
    if width == 1 {
        "uint8_t".to_string()
    } else {
        format!("uint{width}_t")
    }
}

/// C type of a scalar parameter or of an array element.
fn c_param_ty(kind: &NativeArgKind) -> String {
    match *kind {
        NativeArgKind::Float(f) => f.c_name().to_string(),
        NativeArgKind::Int { width, unsigned } => c_int_ty(width, unsigned),
        NativeArgKind::FloatArray { ty, .. } => format!("{} *", ty.c_name()),
        NativeArgKind::IntArray { width, .. } => format!("{} *", c_int_elem_ty(width)),
    }
}

fn c_elem_ty(kind: &NativeArgKind) -> String {
    match *kind {
        NativeArgKind::FloatArray { ty, .. } => ty.c_name().to_string(),
        NativeArgKind::IntArray { width, .. } => c_int_elem_ty(width),
        _ => c_param_ty(kind),
    }
}

fn c_ret_ty(ret: RetKind) -> String {
    match ret {
        RetKind::Void => "void".to_string(),
        RetKind::Float(f) => f.c_name().to_string(),
        // Unsigned so that widening to the reported bits is a zero extension.
        RetKind::Int(w) => c_int_ty(w, true),
    }
}

/// Statement storing the token `t` (uint64_t) into `lvalue`, bit for bit.
fn decode_float(ty: FloatTy, lvalue: &str) -> String {
    match ty {
        FloatTy::F64 => format!("memcpy(&{lvalue}, &t, 8);"),
        FloatTy::F32 => format!("{{ uint32_t u = (uint32_t)t; memcpy(&{lvalue}, &u, 4); }}"),
    }
}

fn decode_int(width: u32, unsigned: bool, lvalue: &str) -> String {
    let ty = c_int_ty(width, unsigned);
    if width == 1 {
        format!("{lvalue} = (_Bool)(t & 1u);")
    } else if is_std_width(width) {
        // memcpy of the unsigned pattern avoids the implementation-defined signed conversion.
        format!("{{ uint{width}_t u = (uint{width}_t)t; memcpy(&{lvalue}, &u, sizeof u); }}")
    } else {
        format!("{lvalue} = ({ty})(unsigned _BitInt({width}))t;")
    }
}

/// Statement storing an array element (integer arrays hold raw unsigned cells).
fn decode_elem(kind: &NativeArgKind, lvalue: &str) -> String {
    match *kind {
        NativeArgKind::FloatArray { ty, .. } => decode_float(ty, lvalue),
        NativeArgKind::IntArray { width: 1, .. } => format!("{lvalue} = (uint8_t)(t & 1u);"),
        NativeArgKind::IntArray { width, .. } => format!("{lvalue} = (uint{width}_t)t;"),
        NativeArgKind::Float(ty) => decode_float(ty, lvalue),
        NativeArgKind::Int { width, unsigned } => decode_int(width, unsigned, lvalue),
    }
}

/// Statement setting `t` to the bits of a float `rvalue` (an lvalue, for memcpy).
fn encode_float(ty: FloatTy, lvalue: &str) -> String {
    match ty {
        FloatTy::F64 => format!("memcpy(&t, &{lvalue}, 8);"),
        FloatTy::F32 => format!("{{ uint32_t u; memcpy(&u, &{lvalue}, 4); t = u; }}"),
    }
}

/// Length of an array parameter (None for scalars).
fn array_len(kind: &NativeArgKind) -> Option<usize> {
    match *kind {
        NativeArgKind::FloatArray { len, .. } | NativeArgKind::IntArray { len, .. } => Some(len),
        _ => None,
    }
}

/// Emits the C source of the driver for `sig` (already validated).
pub(crate) fn generate(sig: &NativeSignature, ret: RetKind) -> String {
    let mut c = String::new();
    let params: Vec<String> = sig.params.iter().map(c_param_ty).collect();
    let proto = if params.is_empty() {
        "void".to_string()
    } else {
        params.join(", ")
    };
    let ret_ty = c_ret_ty(ret);

    let _ = write!(
        c,
        r#"/* Generated by fpscout-native: batch driver for {symbol}. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <xmmintrin.h>

#pragma STDC FENV_ACCESS ON

/* The asm label names the exact (possibly C++-mangled) symbol. */
{ret_ty} fps_target({proto}) __asm__("{symbol}");

static FILE *fps_in, *fps_out;
static fenv_t fps_base_env;

#define FPS_MAX_EVENTS 1024
#define FPS_TEXT_MAX 4096
enum {{ FPS_END_EXIT = 1, FPS_END_ABORT, FPS_END_ASSERT }};
struct fps_event {{ uint64_t addr; unsigned flags; char how; }};
struct fps_range {{ char *addr, *copy; size_t len; }};
/* Everything that changes during a vector or must outlive the restore of the executable's
   data lives here, on the heap; only the pointer is a static (constant after set-up). */
struct fps_state {{
  sigjmp_buf jmp;            /* taken right before each call */
  volatile int in_call;      /* the wrappers catch program ends only during the call */
  pthread_t main_thread;     /* ... and only in the thread that made it */
  int end_kind, end_flags;   /* how the function ended the program, fetestexcept then */
  unsigned end_code;         /* exit status bits, or the assertion's line */
  size_t assertion_len, file_len;
  char assertion[FPS_TEXT_MAX], file[FPS_TEXT_MAX];
  struct fps_range ranges[2]; /* the executable's data + bss, its TLS block */
  int nranges;
  struct fps_event events[FPS_MAX_EVENTS];
}};
static struct fps_state *fps_st;

/* Maps <fenv.h> flags to the MXCSR layout explicitly: FE_* values are not assumed. */
static unsigned fps_flags_to_mxcsr(int e) {{
  unsigned m = 0;
  if (e & FE_INVALID) m |= 0x01u;
  if (e & FE_DIVBYZERO) m |= 0x04u;
  if (e & FE_OVERFLOW) m |= 0x08u;
  if (e & FE_UNDERFLOW) m |= 0x10u;
  if (e & FE_INEXACT) m |= 0x20u;
  return m;
}}

static int fps_is_space(char ch) {{ return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }}

/* Reads the next hex token of a line; 0 when the line is exhausted or malformed. */
static int fps_next(char **p, uint64_t *out) {{
  char *s = *p;
  while (*s == ' ' || *s == '\t') s++;
  if (*s == 0 || fps_is_space(*s) || *s == '-' || *s == '+') return 0;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 16);
  if (end == s || errno != 0 || (*end != 0 && !fps_is_space(*end))) return 0;
  *out = (uint64_t)v;
  *p = end;
  return 1;
}}

static int fps_at_end(const char *p) {{
  while (*p != 0 && fps_is_space(*p)) p++;
  return *p == 0;
}}

static uint64_t fps_now_ns(void) {{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}}

static void fps_die(const char *msg) {{
  fprintf(fps_out, "E %s\n", msg);
  fflush(fps_out);
  exit(2);
}}
{trace_runtime}{end_runtime}{state_runtime}"#,
        symbol = sig.symbol,
        trace_runtime = TRACE_RUNTIME,
        end_runtime = END_RUNTIME,
        state_runtime = STATE_RUNTIME,
    );

    if ret != RetKind::Void {
        let _ = writeln!(c, "static volatile {ret_ty} fps_sink;");
    }

    write_run(&mut c, sig, ret, &ret_ty);
    write_bench(&mut c, sig, ret);
    write_enumerate(&mut c, sig, ret);
    match &sig.setup {
        // The asm label names the symbol, as for the target.
        Some(setup) if is_c_symbol(setup) => {
            let _ = writeln!(c, "\nvoid fps_setup(void) __asm__(\"{setup}\");");
            write_main(&mut c, true);
        }
        _ => write_main(&mut c, false),
    }
    c
}

/// Whether `s` can be named in an asm label (as `check` requires of the target).
fn is_c_symbol(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
}

/// The C runtime of `trace` mode: signal handlers and the event buffer.
///
/// SIGFPE (an unmasked SSE exception, raised before the instruction writes anything):
/// record the address, mask every exception in the saved context, clear the flags and set
/// the trap flag, so the instruction re-executes with its normal masked result. SIGTRAP
/// after it: its flags are exactly those it raised; put back the flags raised before it
/// (the program's own `fetestexcept` view stays intact) and unmask again. The flags the
/// faulting attempt set are not "before": a tiny but exact result traps when underflow is
/// unmasked although the masked instruction raises nothing. A fault outside the
/// executable (inside glibc's libm) is charged to the call instruction whose return
/// address is nearest on the stack.
const TRACE_RUNTIME: &str = r#"
#define FPS_UNMASKED 0x0e80u /* IM | ZM | OM | UM */
#define FPS_ALL_MASKS 0x1f80u
/* The events are in fps_st->events. These counters are reset by fps_trace_begin; the
   restore of the executable's data, before it, sets them to their (idle) snapshot values. */
static volatile int fps_nevents, fps_truncated, fps_tracing, fps_stepping;
static unsigned fps_known_flags, fps_pending_flags, fps_pending_masks;
static uint64_t fps_pending_addr;
static char fps_pending_how;
static uintptr_t fps_base, fps_text_lo, fps_text_hi, fps_stack_top;

static int fps_find_exe(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size; (void)data;
  fps_base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      fps_text_lo = fps_base + ph->p_vaddr;
      fps_text_hi = fps_text_lo + ph->p_memsz;
    }
  }
  return 1; /* the first object is the executable */
}

/* The innermost return address into the executable that follows a call instruction. */
static uintptr_t fps_call_site(uintptr_t rsp) {
  for (const uintptr_t *p = (const uintptr_t *)(rsp & ~(uintptr_t)7); (uintptr_t)p < fps_stack_top; p++) {
    uintptr_t w = *p;
    if (w < fps_text_lo + 6 || w >= fps_text_hi) continue;
    const unsigned char *c = (const unsigned char *)w;
    if (c[-5] == 0xe8) return w - 5;                  /* call rel32 */
    if (c[-6] == 0xff && c[-5] == 0x15) return w - 6; /* call *disp32(%rip) */
  }
  return 0;
}

static void fps_fatal_again(int sig) {
  signal(sig, SIG_DFL); /* returning re-executes the instruction, which now kills us */
}

static void fps_on_fpe(int sig, siginfo_t *si, void *ctx) {
  ucontext_t *uc = (ucontext_t *)ctx;
  if (si->si_code == FPE_INTDIV || si->si_code == FPE_INTOVF || uc->uc_mcontext.fpregs == NULL) {
    fps_fatal_again(sig);
    return;
  }
  if (!fps_tracing || fps_stepping) {
    /* Outside a traced call: carry on masked (the next vector's environment unmasks). */
    uc->uc_mcontext.fpregs->mxcsr |= FPS_ALL_MASKS;
    return;
  }
  uint32_t *csr = &uc->uc_mcontext.fpregs->mxcsr;
  unsigned flags = *csr & 0x3fu, masks = *csr & FPS_ALL_MASKS;
  unsigned before = (flags & (masks >> 7)) | (flags & fps_known_flags);
  if (fps_nevents >= FPS_MAX_EVENTS) {
    fps_truncated = 1;
    fps_tracing = 0; /* the rest of the call runs masked, untraced */
    *csr = (*csr & ~0x3fu) | before | FPS_ALL_MASKS;
    return;
  }
  uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  if (rip >= fps_text_lo && rip < fps_text_hi) {
    fps_pending_addr = rip - fps_base;
    fps_pending_how = 'd';
  } else {
    uintptr_t call = fps_call_site((uintptr_t)uc->uc_mcontext.gregs[REG_RSP]);
    fps_pending_addr = call ? call - fps_base : rip;
    fps_pending_how = call ? 'c' : 'u';
  }
  fps_pending_flags = before;
  fps_pending_masks = masks;
  fps_stepping = 1;
  *csr = (*csr & ~0x3fu) | FPS_ALL_MASKS;
  uc->uc_mcontext.gregs[REG_EFL] |= 0x100; /* TF: SIGTRAP after one instruction */
}

static void fps_on_trap(int sig, siginfo_t *si, void *ctx) {
  ucontext_t *uc = (ucontext_t *)ctx;
  (void)si;
  if (!fps_stepping || uc->uc_mcontext.fpregs == NULL) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  fps_stepping = 0;
  uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)0x100;
  uint32_t *csr = &uc->uc_mcontext.fpregs->mxcsr;
  unsigned raised = *csr & 0x3fu;
  if (raised & 0x1du) {
    struct fps_event *e = &fps_st->events[fps_nevents++];
    e->addr = fps_pending_addr;
    e->flags = raised & 0x3du; /* denormal-operand is not an IEEE flag */
    e->how = fps_pending_how;
  }
  fps_known_flags = fps_pending_flags | raised;
  *csr = (*csr & ~(0x3fu | FPS_ALL_MASKS)) | fps_pending_masks | fps_known_flags;
}

/* Installs the handlers and makes the unmasked environment the one every vector starts
   from: no MXCSR write per call, which would cost more than a small function. The driver's
   own code between calls does no floating-point arithmetic. */
static void fps_trace_install(void) {
  int local;
  fps_stack_top = (uintptr_t)&local;
  dl_iterate_phdr(fps_find_exe, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sa.sa_sigaction = fps_on_fpe;
  sigaction(SIGFPE, &sa, NULL);
  sa.sa_sigaction = fps_on_trap;
  sigaction(SIGTRAP, &sa, NULL);
  _mm_setcsr(_mm_getcsr() & ~FPS_UNMASKED);
  fegetenv(&fps_base_env);
}

/* Called right before the function, after the environment was reset (flags clear).
   Inlined even at -O0: around a 3-instruction function a call pair is a measurable cost. */
static inline __attribute__((always_inline)) void fps_trace_begin(void) {
  fps_nevents = 0;
  fps_truncated = 0;
  fps_known_flags = 0;
  fps_tracing = 1;
}

static inline __attribute__((always_inline)) void fps_trace_end(void) {
  fps_tracing = 0;
}

/* x87 code raises flags without trapping here: they are reported unlocated. */
static void fps_trace_report(void) {
  unsigned short sw;
  __asm__ volatile("fnstsw %0" : "=m"(sw));
  fprintf(fps_out, " | %d", fps_truncated);
  for (int i = 0; i < fps_nevents; i++)
    fprintf(fps_out, " %x:%" PRIx64 ":%c", fps_st->events[i].flags, fps_st->events[i].addr, fps_st->events[i].how);
  if (sw & 0x1du) fprintf(fps_out, " %x:0:x", sw & 0x3du);
}
"#;

/// The C runtime of program ends: the `__wrap_*` functions the link redirects `exit`,
/// `_Exit`, `_exit`, `quick_exit`, `abort` and `__assert_fail` to, and the `X` report.
///
/// During the call (`fps_st->in_call`) a wrapper first reads the flags raised so far,
/// stops the trace bookkeeping (so nothing after it is charged to the function), records
/// the end and jumps back to the run loop's `sigsetjmp`, which restores the signal mask
/// saved before the call. `siglongjmp` touches neither MXCSR nor the x87 status word, so
/// the trace report still sees the x87 flags. Otherwise the real function runs: the
/// driver's own `fps_die` really exits.
const END_RUNTIME: &str = r#"
_Noreturn void __real_exit(int status);
_Noreturn void __real__Exit(int status);
_Noreturn void __real__exit(int status);
_Noreturn void __real_quick_exit(int status);
_Noreturn void __real_abort(void);
_Noreturn void __real___assert_fail(const char *assertion, const char *file, unsigned line,
                                    const char *function);

/* A thread the function started cannot jump to the run loop's stack: its end is real. */
static int fps_catching(void) {
  return fps_st != NULL && fps_st->in_call && pthread_equal(pthread_self(), fps_st->main_thread);
}

/* The first thing a caught end does: fetestexcept before anything else may raise a flag. */
static void fps_end_record(int kind, unsigned code) {
  fps_st->end_flags = fetestexcept(FE_ALL_EXCEPT);
  fps_tracing = 0;
  fps_st->in_call = 0;
  fps_st->end_kind = kind;
  fps_st->end_code = code;
}

static _Noreturn void fps_end_jump(void) { siglongjmp(fps_st->jmp, 1); }

_Noreturn void __wrap_exit(int status) {
  if (!fps_catching()) __real_exit(status);
  fps_end_record(FPS_END_EXIT, (unsigned)status);
  fps_end_jump();
}

_Noreturn void __wrap__Exit(int status) {
  if (!fps_catching()) __real__Exit(status);
  fps_end_record(FPS_END_EXIT, (unsigned)status);
  fps_end_jump();
}

_Noreturn void __wrap__exit(int status) {
  if (!fps_catching()) __real__exit(status);
  fps_end_record(FPS_END_EXIT, (unsigned)status);
  fps_end_jump();
}

_Noreturn void __wrap_quick_exit(int status) {
  if (!fps_catching()) __real_quick_exit(status);
  fps_end_record(FPS_END_EXIT, (unsigned)status);
  fps_end_jump();
}

_Noreturn void __wrap_abort(void) {
  if (!fps_catching()) __real_abort();
  fps_end_record(FPS_END_ABORT, 0);
  fps_end_jump();
}

/* Copies at most FPS_TEXT_MAX bytes: the strings may live in the frames the jump drops. */
static size_t fps_copy_text(char *dst, const char *src) {
  if (src == NULL) return 0;
  size_t n = strnlen(src, FPS_TEXT_MAX);
  memcpy(dst, src, n);
  return n;
}

_Noreturn void __wrap___assert_fail(const char *assertion, const char *file, unsigned line,
                                    const char *function) {
  if (!fps_catching()) __real___assert_fail(assertion, file, line, function);
  fps_end_record(FPS_END_ASSERT, line);
  fps_st->assertion_len = fps_copy_text(fps_st->assertion, assertion);
  fps_st->file_len = fps_copy_text(fps_st->file, file);
  fps_end_jump();
}

static void fps_put_hex_text(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) fprintf(fps_out, "%02x", (unsigned)(unsigned char)s[i]);
}

/* `X <kind> <code> <flags> <text>` (array contents and trace follow as for `R`). */
static void fps_report_end(void) {
  int kind = fps_st->end_kind;
  fprintf(fps_out, "X %s %x %x ",
          kind == FPS_END_EXIT ? "exit" : kind == FPS_END_ABORT ? "abort" : "assert",
          fps_st->end_code, fps_flags_to_mxcsr(fps_st->end_flags));
  if (kind == FPS_END_ASSERT) {
    fps_put_hex_text(fps_st->assertion, fps_st->assertion_len);
    fputc('.', fps_out);
    fps_put_hex_text(fps_st->file, fps_st->file_len);
  } else {
    fputc('-', fps_out);
  }
}
"#;

/// The C runtime of the initial state: the snapshot of the executable's writable data
/// (from `__data_start` to `_end`, past any `PT_GNU_RELRO` part) and of its thread-local
/// block, taken after set-up, and the restore before each vector.
const STATE_RUNTIME: &str = r#"
/* Provided by crt1 (__data_start) and the GNU ld script (_end); weak, so that a link
   without them fails at start-up with a message rather than at link time. */
extern char __data_start __attribute__((weak));
extern char _end __attribute__((weak));

struct fps_data_query {
  uintptr_t lo, hi, seg_hi, relro_lo, relro_hi;
  int in_segment, dynamic;
  char *tls;
  size_t tls_len;
};

static int fps_find_data(struct dl_phdr_info *info, size_t size, void *data) {
  struct fps_data_query *q = (struct fps_data_query *)data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && q->lo >= lo && q->lo < hi) {
      q->in_segment = 1;
      q->seg_hi = hi;
    } else if (ph->p_type == PT_GNU_RELRO) {
      q->relro_lo = lo;
      q->relro_hi = hi;
    } else if (ph->p_type == PT_TLS) {
      q->tls_len = ph->p_memsz;
    } else if (ph->p_type == PT_INTERP) {
      q->dynamic = 1;
    }
  }
  if (size >= offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof info->dlpi_tls_data)
    q->tls = (char *)info->dlpi_tls_data;
  return 1; /* the first object is the executable */
}

static void fps_add_range(uintptr_t lo, uintptr_t hi) {
  struct fps_range *r = &fps_st->ranges[fps_st->nranges++];
  r->addr = (char *)lo;
  r->len = hi - lo;
  r->copy = (char *)malloc(r->len);
  if (r->copy == NULL) fps_die("out of memory");
}

static void fps_snapshot(void) {
  struct fps_data_query q;
  memset(&q, 0, sizeof q);
  q.lo = (uintptr_t)&__data_start;
  q.hi = (uintptr_t)&_end;
  if (q.lo == 0 || q.hi == 0) fps_die("the executable defines no __data_start or _end");
  dl_iterate_phdr(fps_find_data, &q);
  /* Linked statically, the C library's heap and stdio state share the executable's data:
     restoring it under the driver's live allocations would corrupt the heap. */
  if (!q.dynamic)
    fps_die("a statically linked executable cannot start each vector from its initial "
            "state (the C library's own state is in its data); link dynamically");
  if (!q.in_segment || q.hi < q.lo || q.hi > q.seg_hi)
    fps_die("cannot locate the executable's writable data");
  if (q.relro_lo < q.hi && q.relro_hi > q.lo) {
    if (q.relro_lo > q.lo) fps_die("read-only data inside the executable's writable data");
    q.lo = q.relro_hi;
  }
  fps_st->nranges = 0;
  if (q.lo < q.hi) fps_add_range(q.lo, q.hi);
  if (q.tls != NULL && q.tls_len > 0) fps_add_range((uintptr_t)q.tls, (uintptr_t)q.tls + q.tls_len);
  /* Copied last, so the copies hold the set-up values of every static, fps_st included. */
  for (int i = 0; i < fps_st->nranges; i++)
    memcpy(fps_st->ranges[i].copy, fps_st->ranges[i].addr, fps_st->ranges[i].len);
}

/* No floating-point arithmetic: memcpy raises no flag, even with exceptions unmasked. */
static void fps_restore(void) {
  for (int i = 0; i < fps_st->nranges; i++)
    memcpy(fps_st->ranges[i].addr, fps_st->ranges[i].copy, fps_st->ranges[i].len);
}
"#;

/// `run` mode: one vector per line, one report line per vector.
fn write_run(c: &mut String, sig: &NativeSignature, ret: RetKind, ret_ty: &str) {
    let args: Vec<String> = (0..sig.params.len()).map(|j| format!("a{j}")).collect();
    let call = format!("fps_target({})", args.join(", "));
    c.push_str(
        "\nstatic int fps_run(int trace) {\n  char *line = NULL;\n  size_t cap = 0;\n  \
         while (getline(&line, &cap, fps_in) >= 0) {\n    char *p = line;\n    \
         uint64_t t = 0;\n    size_t k = 0;\n    int ex;\n",
    );
    for (j, kind) in sig.params.iter().enumerate() {
        if array_len(kind).is_some() {
            let _ = writeln!(c, "    {} *a{j} = NULL;", c_elem_ty(kind));
        } else {
            let _ = writeln!(c, "    {} a{j};", c_param_ty(kind));
        }
    }
    if ret != RetKind::Void {
        let _ = writeln!(c, "    {ret_ty} r;");
    }
    for (j, kind) in sig.params.iter().enumerate() {
        match array_len(kind) {
            None => {
                let _ = writeln!(c, "    if (!fps_next(&p, &t)) goto bad;");
                let _ = writeln!(c, "    {}", decode_elem(kind, &format!("a{j}")));
            }
            Some(len) => {
                // Exactly `len` elements, so out-of-bounds accesses behave as in reality.
                let _ = writeln!(c, "    a{j} = malloc({len}u * sizeof *a{j});");
                if len > 0 {
                    let _ = writeln!(c, "    if (a{j} == NULL) fps_die(\"out of memory\");");
                }
                let _ = writeln!(c, "    for (k = 0; k < {len}u; k++) {{");
                let _ = writeln!(c, "      if (!fps_next(&p, &t)) goto bad;");
                let _ = writeln!(c, "      {}", decode_elem(kind, &format!("a{j}[k]")));
                let _ = writeln!(c, "    }}");
            }
        }
    }
    // Every vector starts from the same state: a previous vector may have changed the
    // program's globals, the rounding mode or MXCSR, and a restarted driver must behave
    // like a fresh one. The restore comes first: it rewrites the driver's statics too.
    c.push_str(
        "    if (!fps_at_end(p)) goto bad;\n    fps_restore();\n    fesetenv(&fps_base_env);\n    \
         feclearexcept(FE_ALL_EXCEPT);\n",
    );
    // A program end inside the call comes back here with a non-zero value. Only `r` is
    // assigned between the sigsetjmp and a jump, and it is read on the normal path only:
    // no local needs to be volatile.
    c.push_str(
        "    if (sigsetjmp(fps_st->jmp, 1) == 0) {\n      fps_st->in_call = 1;\n      \
         if (trace) fps_trace_begin();\n",
    );
    if ret == RetKind::Void {
        let _ = writeln!(c, "      {call};");
    } else {
        let _ = writeln!(c, "      r = {call};");
    }
    c.push_str(
        "      if (trace) fps_trace_end();\n      ex = fetestexcept(FE_ALL_EXCEPT);\n      \
         fps_st->in_call = 0;\n",
    );
    match ret {
        RetKind::Void => {
            c.push_str("      fprintf(fps_out, \"R - %x\", fps_flags_to_mxcsr(ex));\n")
        }
        RetKind::Float(f) => {
            let _ = writeln!(c, "      {}", encode_float(f, "r"));
            c.push_str(
                "      fprintf(fps_out, \"R %\" PRIx64 \" %x\", t, fps_flags_to_mxcsr(ex));\n",
            );
        }
        RetKind::Int(_) => {
            c.push_str("      t = (uint64_t)r; /* r is declared unsigned: zero extension */\n");
            c.push_str(
                "      fprintf(fps_out, \"R %\" PRIx64 \" %x\", t, fps_flags_to_mxcsr(ex));\n",
            );
        }
    }
    // The wrapper already read the flags and ended the trace bookkeeping.
    c.push_str("    } else {\n      fps_report_end();\n    }\n");
    for (j, kind) in sig.params.iter().enumerate() {
        let Some(len) = array_len(kind) else { continue };
        let _ = writeln!(c, "    for (k = 0; k < {len}u; k++) {{");
        match *kind {
            NativeArgKind::FloatArray { ty, .. } => {
                let _ = writeln!(c, "      {}", encode_float(ty, &format!("a{j}[k]")));
            }
            _ => {
                let _ = writeln!(c, "      t = (uint64_t)a{j}[k];");
            }
        }
        c.push_str("      fprintf(fps_out, \" %\" PRIx64, t);\n    }\n");
    }
    c.push_str("    if (trace) fps_trace_report();\n");
    // Buffers are freed before the newline: if the function corrupted the heap and free
    // crashes, the line stays incomplete and the crash is charged to this vector.
    for (j, kind) in sig.params.iter().enumerate() {
        if array_len(kind).is_some() {
            let _ = writeln!(c, "    free(a{j});");
        }
    }
    c.push_str("    fputc('\\n', fps_out);\n    fflush(fps_out);\n    continue;\n  bad:\n");
    for (j, kind) in sig.params.iter().enumerate() {
        if array_len(kind).is_some() {
            let _ = writeln!(c, "    free(a{j});");
        }
    }
    c.push_str(
        "    fprintf(fps_out, \"E malformed input line\\n\");\n    fflush(fps_out);\n  }\n  \
         free(line);\n  return 0;\n}\n",
    );
}

/// `bench` mode: preload every vector, then time calls only.
fn write_bench(c: &mut String, sig: &NativeSignature, ret: RetKind) {
    c.push_str(
        "\nstatic int fps_bench(uint64_t min_ns, int trace) {\n  size_t n = 0, cap = 0, i = 0, k = 0;\n  \
         char *line = NULL;\n  size_t lcap = 0;\n  uint64_t t = 0;\n",
    );
    for (j, kind) in sig.params.iter().enumerate() {
        let _ = writeln!(c, "  {} *s{j} = NULL;", c_elem_ty(kind));
        if let Some(len) = array_len(kind) {
            let _ = writeln!(
                c,
                "  {} *w{j} = malloc({len}u * sizeof *w{j});",
                c_elem_ty(kind)
            );
            if len > 0 {
                let _ = writeln!(c, "  if (w{j} == NULL) fps_die(\"out of memory\");");
            }
        }
    }
    c.push_str(
        "  while (getline(&line, &lcap, fps_in) >= 0) {\n    char *p = line;\n    \
         if (n == cap) {\n      cap = cap ? 2 * cap : 64;\n",
    );
    for (j, kind) in sig.params.iter().enumerate() {
        let per = array_len(kind).unwrap_or(1).max(1);
        let _ = writeln!(
            c,
            "      s{j} = realloc(s{j}, cap * {per}u * sizeof *s{j});"
        );
        let _ = writeln!(c, "      if (s{j} == NULL) fps_die(\"out of memory\");");
    }
    c.push_str("    }\n");
    for (j, kind) in sig.params.iter().enumerate() {
        match array_len(kind) {
            None => {
                let _ = writeln!(
                    c,
                    "    if (!fps_next(&p, &t)) fps_die(\"malformed input line\");"
                );
                let _ = writeln!(c, "    {}", decode_elem(kind, &format!("s{j}[n]")));
            }
            Some(len) => {
                let _ = writeln!(c, "    for (k = 0; k < {len}u; k++) {{");
                let _ = writeln!(
                    c,
                    "      if (!fps_next(&p, &t)) fps_die(\"malformed input line\");"
                );
                let _ = writeln!(
                    c,
                    "      {}",
                    decode_elem(kind, &format!("s{j}[n * {len}u + k]"))
                );
                c.push_str("    }\n");
            }
        }
    }
    c.push_str(
        "    if (!fps_at_end(p)) fps_die(\"malformed input line\");\n    n++;\n  }\n  \
         if (n == 0) fps_die(\"no input vectors\");\n  (void)k; (void)t;\n  \
         fesetenv(&fps_base_env);\n  uint64_t calls = 0, batch = 1;\n  \
         uint64_t start = fps_now_ns(), now = start;\n  for (;;) {\n    \
         uint64_t b0 = fps_now_ns();\n    for (uint64_t b = 0; b < batch; b++) {\n",
    );
    let mut args = Vec::new();
    for (j, kind) in sig.params.iter().enumerate() {
        match array_len(kind) {
            None => args.push(format!("s{j}[i]")),
            Some(len) => {
                // Fresh contents per call, as in run mode: a function that updates its
                // array in place must not drift to other (e.g. subnormal) inputs.
                let _ = writeln!(
                    c,
                    "      memcpy(w{j}, s{j} + i * {len}u, {len}u * sizeof *w{j});"
                );
                args.push(format!("w{j}"));
            }
        }
    }
    let bench_call = format!("fps_target({})", args.join(", "));
    // `bench-trace` pays what tracing costs a call that raises nothing: the bookkeeping
    // around it (the exceptions stay unmasked for the whole loop, as between traced
    // vectors).
    c.push_str("      if (trace) fps_trace_begin();\n");
    if ret == RetKind::Void {
        let _ = writeln!(c, "      {bench_call};");
    } else {
        let _ = writeln!(c, "      fps_sink = {bench_call};");
    }
    c.push_str("      if (trace) fps_trace_end();\n");
    // Batches double while short, so reading the clock costs nothing measurable while
    // the loop still stops soon after `min_ns`.
    c.push_str(
        "      if (++i == n) i = 0;\n    }\n    calls += batch;\n    now = fps_now_ns();\n    \
         if (now - start >= min_ns) break;\n    \
         if (now - b0 < 10000000u && batch < ((uint64_t)1 << 40)) batch *= 2;\n  }\n  \
         fprintf(fps_out, \"B %\" PRIx64 \" %\" PRIx64 \"\\n\", calls, now - start);\n  \
         fflush(fps_out);\n  return 0;\n}\n",
    );
}

/// `enumerate` mode: every input of a range, one code byte each (see the module doc).
fn write_enumerate(c: &mut String, sig: &NativeSignature, ret: RetKind) {
    c.push_str(
        "\nstatic int fps_enumerate(uint64_t first, uint64_t count, uint64_t stride) {\n  \
         static unsigned char buf[1 << 16];\n  size_t n = 0;\n  \
         unsigned base = _mm_getcsr() & ~0x3fu;\n  _mm_setcsr(base);\n",
    );
    let param = match sig.params.as_slice() {
        [NativeArgKind::Float(ty)] => Some(*ty),
        _ => None,
    };
    let Some(ty) = param else {
        c.push_str(
            "  (void)first; (void)count; (void)stride; (void)buf; (void)n; (void)base;\n  \
             fps_die(\"enumerate needs a function of one float parameter\");\n  return 2;\n}\n",
        );
        return;
    };
    c.push_str("  for (uint64_t i = 0; i < count; i++) {\n    uint64_t k = first + i * stride;\n");
    match ty {
        // Unions rather than memcpy: at -O0 each memcpy is a call, which would cost more
        // than a small function.
        FloatTy::F32 => c.push_str(
            "    union { uint32_t u; float f; } in;\n    in.u = (uint32_t)k;\n    float a0 = in.f;\n",
        ),
        FloatTy::F64 => c.push_str(
            "    uint64_t m = k * 0x9e3779b97f4a7c15u;\n    m ^= m >> 29;\n    \
             union { uint64_t u; double f; } in;\n    in.u = (k << 32) | (m & 0xffffffffu);\n    \
             double a0 = in.f;\n",
        ),
    }
    let class = match ret {
        RetKind::Float(FloatTy::F32) => {
            "    union { float f; uint32_t u; } out;\n    out.f = r;\n    uint32_t rb = out.u;\n    \
             unsigned cls = ((rb >> 23) & 0xffu) != 0xffu ? 0u\n      \
             : (rb & 0x7fffffu) ? 3u : (rb >> 31) ? 2u : 1u;\n"
        }
        RetKind::Float(FloatTy::F64) => {
            "    union { double f; uint64_t u; } out;\n    out.f = r;\n    uint64_t rb = out.u;\n    \
             unsigned cls = ((rb >> 52) & 0x7ffu) != 0x7ffu ? 0u\n      \
             : (rb & 0xfffffffffffffu) ? 3u : (rb >> 63) ? 2u : 1u;\n"
        }
        RetKind::Int(_) | RetKind::Void => "    unsigned cls = 4u;\n",
    };
    if ret == RetKind::Void {
        c.push_str("    fps_target(a0);\n");
    } else {
        c.push_str("    __typeof__(fps_target(a0)) r = fps_target(a0);\n");
    }
    c.push_str(class);
    c.push_str(
        "    unsigned csr = _mm_getcsr();\n    unsigned short sw;\n    \
         __asm__ volatile(\"fnstsw %0\" : \"=m\"(sw));\n    \
         unsigned raised = (csr | sw) & 0x1du;\n    \
         if (raised) {\n      _mm_setcsr(base);\n      \
         if (sw & 0x3fu) __asm__ volatile(\"fnclex\");\n    }\n    \
         buf[n++] = (unsigned char)((raised & 1u) | ((raised >> 1) & 0xeu) | (cls << 4));\n    \
         if (n == sizeof buf) {\n      fwrite(buf, 1, n, fps_out);\n      n = 0;\n    }\n  }\n  \
         fwrite(buf, 1, n, fps_out);\n  fflush(fps_out);\n  return 0;\n}\n",
    );
}

fn write_main(c: &mut String, setup: bool) {
    c.push_str(
        r#"
/* A command-line number in `base`; the driver ends saying `what` when it is not one. */
static uint64_t fps_arg(const char *s, int base, const char *what) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, base);
  if (end == s || *end != 0 || errno != 0) fps_die(what);
  return (uint64_t)v;
}

/* The exhaustive sweep (module `sweep`), linked in only when one is wanted. */
extern int fps_sweep(uint64_t first, uint64_t count, double threshold, FILE *out)
    __attribute__((weak));
/* The native scan (module `scan`), likewise. */
extern int fps_scan(uint64_t seed, uint64_t count, int relative, const int64_t *lo,
                    const int64_t *hi, FILE *out) __attribute__((weak));

int main(int argc, char **argv) {
  /* Crashing vectors are expected: do not leave a core file for each of them. */
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  /* Set up before the snapshot: the pointer is constant, the block is outside it. */
  fps_st = (struct fps_state *)calloc(1, sizeof *fps_st);
  if (fps_st == NULL) return 3;
  fps_st->main_thread = pthread_self();
  /* The protocol gets private copies of stdin/stdout: the function under test may read
     stdin or print, which then goes to /dev/null instead of the protocol (printing
     megabytes costs nothing and fills no pipe). Its stderr stays the runner's pipe, which
     the runner drains and whose tail explains a crash. */
  int in_fd = dup(0), out_fd = dup(1);
  int null_fd = open("/dev/null", O_RDWR);
  if (in_fd < 0 || out_fd < 0 || null_fd < 0) return 3;
  if (dup2(null_fd, 0) < 0 || dup2(null_fd, 1) < 0) return 3;
  close(null_fd);
  fps_in = fdopen(in_fd, "r");
  fps_out = fdopen(out_fd, "w");
  if (fps_in == NULL || fps_out == NULL) return 3;
  if (argc < 3) fps_die("usage: driver run|bench as-linked|on|off [min_ns]");
  /* FTZ (0x8000) and DAZ (0x0040), set after the C runtime (crtfastmath.o) ran. */
  if (strcmp(argv[2], "on") == 0) _mm_setcsr(_mm_getcsr() | 0x8040u);
  else if (strcmp(argv[2], "off") == 0) _mm_setcsr(_mm_getcsr() & ~0x8040u);
  else if (strcmp(argv[2], "as-linked") != 0) fps_die("unknown FTZ/DAZ mode");
  FPS_SETUP
  feclearexcept(FE_ALL_EXCEPT);
  fegetenv(&fps_base_env);
  fprintf(fps_out, "READY %x\n", _mm_getcsr());
  fflush(fps_out);
  /* The snapshot is the last step of set-up: every static the driver sets is in it. */
  if (strcmp(argv[1], "run") == 0) {
    fps_snapshot();
    return fps_run(0);
  }
  if (strcmp(argv[1], "trace") == 0) {
    fps_trace_install();
    fps_snapshot();
    return fps_run(1);
  }
  int bench_trace = strcmp(argv[1], "bench-trace") == 0;
  if ((strcmp(argv[1], "bench") == 0 || bench_trace) && argc >= 4) {
    uint64_t min_ns = fps_arg(argv[3], 10, "bad bench duration");
    if (bench_trace) fps_trace_install();
    return fps_bench(min_ns, bench_trace);
  }
  if (strcmp(argv[1], "enumerate") == 0 && argc >= 6) {
    const char *bad = "bad enumeration range";
    return fps_enumerate(fps_arg(argv[3], 10, bad), fps_arg(argv[4], 10, bad),
                         fps_arg(argv[5], 10, bad));
  }
  if (strcmp(argv[1], "sweep") == 0 && argc >= 6) {
    if (fps_sweep == NULL) fps_die("this driver was built without a sweep");
    const char *bad = "bad sweep range";
    uint64_t first = fps_arg(argv[3], 10, bad), count = fps_arg(argv[4], 10, bad);
    uint64_t threshold_bits = fps_arg(argv[5], 16, bad);
    double threshold;
    memcpy(&threshold, &threshold_bits, sizeof threshold);
    return fps_sweep(first, count, threshold, fps_out);
  }
  if (strcmp(argv[1], "scan") == 0 && argc >= 8 && argc % 2 == 0) {
    if (fps_scan == NULL) fps_die("this driver was built without a scan");
    const char *bad = "bad scan arguments";
    uint64_t seed = fps_arg(argv[3], 10, bad), count = fps_arg(argv[4], 10, bad);
    int relative = (int)fps_arg(argv[5], 10, bad);
    int n = (argc - 6) / 2;
    int64_t lo[64], hi[64];
    if (n > 64) fps_die(bad);
    for (int i = 0; i < n; i++) {
      char *end;
      errno = 0;
      lo[i] = strtoll(argv[6 + 2 * i], &end, 10);
      if (*end != 0 || errno != 0) fps_die(bad);
      hi[i] = strtoll(argv[7 + 2 * i], &end, 10);
      if (*end != 0 || errno != 0) fps_die(bad);
    }
    return fps_scan(seed, count, relative, lo, hi, fps_out);
  }
  fps_die("unknown mode");
  return 2;
}
"#,
    );
    // The program's set-up call (`--setup-call`) runs in the mode the inputs will, and
    // before the snapshot: what it sets is the state every input starts from.
    let call = if setup { "fps_setup();" } else { "" };
    *c = c.replacen("FPS_SETUP", call, 1);
}
