//! Native screening of random inputs for `error`: millions of inputs a second drawn in boxes of float order keys, each result scored against a `long double` reference compiled in, the most suspicious kept for MPFR to measure.
//!
//! The scan is its own translation unit, compiled at -O2 without fast-math or contraction
//! and linked into the driver (which dispatches `driver scan <ftz> <seed> <count>
//! <objective> <lo hi>...` to it after its set-up). Each input draws every parameter's
//! order key (the float's position in value order: a signed integer, negative for
//! negative floats) uniformly in that parameter's `[lo, hi]`, so a wide box spreads over
//! exponents and a narrow one is a window of neighbouring floats. The score is an
//! *estimate* of the error (ulps of the result type, or relative error, following
//! `fpscout_fpcore::measure` with the `long double` value standing in for the exact
//! one): the caller measures the kept inputs in MPFR and concludes nothing from scores.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fpscout_ir::{FloatTy, ScalarTy, Type};

use crate::{io_err, FtzDaz, NativeArgKind, NativeBuild, NativeError, NativeSignature, Result};

/// Inputs of largest score kept per set.
pub const SCAN_KEEP: usize = 32;

/// What a scan scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanScore {
    /// Error in ulps of the result type.
    Ulps,
    /// |y − r| / max(|r|, smallest normal).
    Relative,
}

/// One input a scan kept.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanCandidate {
    /// Each parameter's bits (a binary32 in the low 32 bits).
    pub inputs: Vec<u64>,
    /// The function's result bits.
    pub result: u64,
    /// The estimated score.
    pub estimate: f64,
}

/// What one scan found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScanOutcome {
    pub evaluated: u64,
    /// Largest scores, largest first.
    pub worst: Vec<ScanCandidate>,
    /// Largest scores among finite results against finite references.
    pub worst_finite: Vec<ScanCandidate>,
}

fn c_type(ty: FloatTy) -> &'static str {
    match ty {
        FloatTy::F64 => "double",
        FloatTy::F32 => "float",
    }
}

/// The parameter and result types of a function the scan can drive: scalar floats in,
/// a float out.
fn scan_types(sig: &NativeSignature) -> std::result::Result<(Vec<FloatTy>, FloatTy), String> {
    let params = sig
        .params
        .iter()
        .map(|p| match p {
            NativeArgKind::Float(t) => Ok(*t),
            _ => Err("the native scan draws float parameters only".to_string()),
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let ret = match sig.ret {
        Type::Scalar(ScalarTy::Float(t)) => t,
        _ => return Err("the native scan scores a returned float".to_string()),
    };
    if params.is_empty() {
        return Err("the native scan needs a parameter to draw".to_string());
    }
    Ok((params, ret))
}

/// The scan's translation unit for `sig` against `long_double_c`, a definition of
/// `long double fps_ref_l(long double, ...)` taking the parameters in order.
pub fn scan_source(
    sig: &NativeSignature,
    long_double_c: &str,
) -> std::result::Result<String, String> {
    let (params, ret) = scan_types(sig)?;
    let n = params.len();
    let decl_params: Vec<&str> = params.iter().map(|t| c_type(*t)).collect();
    let mut draw = String::new();
    for (i, t) in params.iter().enumerate() {
        let (width, conv) = match t {
            FloatTy::F64 => (8, "fps_bits64"),
            FloatTy::F32 => (4, "fps_bits32"),
        };
        draw.push_str(&format!(
            "    {ct} x{i}; {{ uint64_t b = {conv}(fps_draw(&s, lo[{i}], hi[{i}])); in[{i}] = b; \
             memcpy(&x{i}, &b, {width}); }}\n",
            ct = c_type(*t)
        ));
    }
    let args: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let ref_args: Vec<String> = (0..n).map(|i| format!("(long double)x{i}")).collect();
    let (ret_c, ret_width, prec, emin, max, mag_mask, inf_mag) = match ret {
        FloatTy::F64 => (
            "double",
            8,
            53,
            -1021,
            "DBL_MAX",
            "0x7fffffffffffffffull",
            "0x7ff0000000000000ull",
        ),
        FloatTy::F32 => (
            "float",
            4,
            24,
            -125,
            "FLT_MAX",
            "0x7fffffffull",
            "0x7f800000ull",
        ),
    };
    Ok(format!(
        r#"#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

{ret_c} fps_scan_target({decl}) __asm__("{symbol}");

{long_double_c}
#define FPS_N {n}
#define FPS_KEEP {SCAN_KEEP}

struct fps_cand {{ uint64_t in[FPS_N]; uint64_t out; double est; }};
struct fps_set {{ struct fps_cand c[FPS_KEEP]; int n; double floor; }};

static uint64_t fps_next(uint64_t *s) {{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}}

/* An order key uniform in [lo, hi]. */
static int64_t fps_draw(uint64_t *s, int64_t lo, int64_t hi) {{
  /* In unsigned arithmetic: the difference of two keys may exceed INT64_MAX. */
  unsigned __int128 span = (unsigned __int128)((uint64_t)hi - (uint64_t)lo) + 1;
  return (int64_t)((uint64_t)lo + (uint64_t)(((unsigned __int128)fps_next(s) * span) >> 64));
}}

static uint64_t fps_bits64(int64_t k) {{
  return k >= 0 ? (uint64_t)k : ((uint64_t)(-k) | 0x8000000000000000ull);
}}

static uint64_t fps_bits32(int64_t k) {{
  return k >= 0 ? (uint64_t)k : ((uint64_t)(-k) | 0x80000000ull);
}}

static uint64_t fps_ret_bits({ret_c} y) {{
  uint64_t b = 0;
  memcpy(&b, &y, {ret_width});
  return b;
}}

static int64_t fps_ordinal({ret_c} y) {{
  uint64_t b = fps_ret_bits(y);
  int64_t mag = (int64_t)(b & {mag_mask});
  return (b & ~{mag_mask}) ? -mag : mag;
}}

/* The ulp at r's binade (r = m 2^e, 1/2 <= m < 1), the subnormal ulp below the normal
   range. */
static long double fps_ulp(long double r) {{
  int e;
  if (r == 0.0L) return ldexpl(1.0L, {emin} - {prec});
  frexpl(r, &e);
  if (e < {emin}) e = {emin};
  return ldexpl(1.0L, e - {prec});
}}

/* The estimated score of y against the reference r (0: ulps, 1: relative). */
static double fps_score({ret_c} y, long double r, int relative) {{
  if (isnan(r)) return isnan(y) ? 0.0 : INFINITY;
  {ret_c} rf = ({ret_c})r;
  if (isinf(rf)) {{
    if (y == rf) return 0.0;
    if (isinf(r) || !isfinite(y)) return INFINITY;
    if (relative) return (double)(fabsl((long double)y - r) / fabsl(r));
    /* An overflow: ordinal distance to the infinity, as Herbie counts it. */
    int64_t oy = fps_ordinal(y), oinf = rf < 0 ? -(int64_t){inf_mag} : (int64_t){inf_mag};
    return (double)(oy > oinf ? oy - oinf : oinf - oy);
  }}
  if (!isfinite(y)) return INFINITY;
  if ((long double)y == r) return 0.0;
  long double d = fabsl((long double)y - r);
  if (relative) {{
    long double m = fabsl(r);
    long double tiny = ldexpl(1.0L, {emin} - 1);
    return (double)(d / (m > tiny ? m : tiny));
  }}
  /* The ulp of the binade just below |r| when r sits at a power of two. */
  return (double)(d / fps_ulp(fabsl(r) * (1.0L - 0x1p-40L)));
}}

static void fps_keep(struct fps_set *s, const struct fps_cand *c) {{
  int at;
  if (s->n < FPS_KEEP) {{
    at = s->n++;
  }} else {{
    at = 0;
    for (int i = 1; i < FPS_KEEP; i++) if (s->c[i].est < s->c[at].est) at = i;
  }}
  s->c[at] = *c;
  if (s->n == FPS_KEEP) {{
    double lo = s->c[0].est;
    for (int i = 1; i < FPS_KEEP; i++) if (s->c[i].est < lo) lo = s->c[i].est;
    s->floor = lo;
  }}
}}

static void fps_print_set(FILE *out, char tag, const struct fps_set *s) {{
  for (int i = 0; i < s->n; i++) {{
    fprintf(out, "%c", tag);
    for (int k = 0; k < FPS_N; k++) fprintf(out, " %llx", (unsigned long long)s->c[i].in[k]);
    uint64_t est;
    memcpy(&est, &s->c[i].est, 8);
    fprintf(out, " %llx %llx\n", (unsigned long long)s->c[i].out, (unsigned long long)est);
  }}
}}

int fps_scan(uint64_t seed, uint64_t count, int relative, const int64_t *lo, const int64_t *hi,
             FILE *out) {{
  static struct fps_set worst, finite;
  uint64_t s = seed;
  worst.floor = finite.floor = -1.0;
  for (uint64_t i = 0; i < count; i++) {{
    uint64_t in[FPS_N];
{draw}    {ret_c} y = fps_scan_target({args});
    long double r = fps_ref_l({ref_args});
    double est = fps_score(y, r, relative);
    int both_finite = isfinite(y) && isfinite(r) && fabsl(r) <= (long double){max};
    if (worst.n < FPS_KEEP || est > worst.floor || (both_finite &&
        (finite.n < FPS_KEEP || est > finite.floor))) {{
      struct fps_cand c;
      memcpy(c.in, in, sizeof in);
      c.out = fps_ret_bits(y);
      c.est = est;
      if (worst.n < FPS_KEEP || est > worst.floor) fps_keep(&worst, &c);
      if (both_finite && (finite.n < FPS_KEEP || est > finite.floor)) fps_keep(&finite, &c);
    }}
  }}
  fps_print_set(out, 'W', &worst);
  fps_print_set(out, 'F', &finite);
  fprintf(out, "S %llu\n", (unsigned long long)count);
  fflush(out);
  return 0;
}}
"#,
        decl = decl_params.join(", "),
        symbol = sig.symbol,
        args = args.join(", "),
        ref_args = ref_args.join(", "),
    ))
}

/// The order key of a float's bits (see the module doc).
pub fn order_key(bits: u64, ty: FloatTy) -> i64 {
    let (sign, mag) = match ty {
        FloatTy::F64 => (bits >> 63, (bits & !(1 << 63)) as i64),
        FloatTy::F32 => ((bits >> 31) & 1, (bits & 0x7fff_ffff) as i64),
    };
    if sign == 1 {
        -mag
    } else {
        mag
    }
}

impl NativeBuild {
    /// Scores `count` inputs drawn from `boxes` (each parameter's order-key interval) with
    /// the generator seeded by `seed`, in the floating-point mode `ftz_daz` (a build made with [`NativeBuild::compile_scan`]).
    /// A scan still running after `timeout` is killed: an error.
    pub fn scan(
        &self,
        ftz_daz: FtzDaz,
        seed: u64,
        count: u64,
        score: ScanScore,
        boxes: &[(i64, i64)],
        timeout: Duration,
    ) -> Result<ScanOutcome> {
        if boxes.len() != self.sig.params.len() || boxes.iter().any(|(lo, hi)| lo > hi) {
            return Err(NativeError::Protocol(format!(
                "a scan needs one nonempty key interval per parameter ({} given for {})",
                boxes.len(),
                self.sig.params.len()
            )));
        }
        let mut args = vec![
            "scan".to_string(),
            ftz_daz.arg().to_string(),
            seed.to_string(),
            count.to_string(),
            if score == ScanScore::Relative {
                "1"
            } else {
                "0"
            }
            .to_string(),
        ];
        for (lo, hi) in boxes {
            args.push(lo.to_string());
            args.push(hi.to_string());
        }
        let mut child = Command::new(&self.exe)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(io_err(format!("running {}", self.exe.display())))?;
        let mut stdout = child
            .stdout
            .take()
            .ok_or_else(|| NativeError::Protocol("the scan's output pipe is missing".into()))?;
        // The output is a few kilobytes written at the end: read on a thread while this
        // one watches the clock.
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stdout.read_to_string(&mut text);
            text
        });
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child
                .try_wait()
                .map_err(io_err("waiting for the scan".to_string()))?
            {
                break status;
            }
            if started.elapsed() >= timeout {
                let _ = child.kill();
                let _ = child.wait();
                let _ = reader.join();
                return Err(NativeError::ScanTimeout {
                    count,
                    seconds: timeout.as_secs_f64(),
                });
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let text = reader
            .join()
            .map_err(|_| NativeError::Protocol("the scan's reader panicked".into()))?;
        if !status.success() {
            return Err(NativeError::Protocol(format!(
                "the scan stopped ({status}): an input crashed the function or the driver \
                 refused the scan"
            )));
        }
        parse_scan(&text, boxes.len())
            .ok_or_else(|| NativeError::Protocol("malformed scan output".into()))
    }
}

fn parse_scan(text: &str, n: usize) -> Option<ScanOutcome> {
    let hex = |t: &str| u64::from_str_radix(t, 16).ok();
    let mut out = ScanOutcome::default();
    let mut ended = false;
    for line in text.lines().skip_while(|l| l.starts_with("READY")) {
        let t: Vec<&str> = line.split(' ').collect();
        match t.as_slice() {
            [tag @ ("W" | "F"), rest @ ..] if rest.len() == n + 2 => {
                let c = ScanCandidate {
                    inputs: rest[..n].iter().map(|t| hex(t)).collect::<Option<_>>()?,
                    result: hex(rest[n])?,
                    estimate: f64::from_bits(hex(rest[n + 1])?),
                };
                if *tag == "W" {
                    out.worst.push(c);
                } else {
                    out.worst_finite.push(c);
                }
            }
            ["S", count] => {
                out.evaluated = count.parse().ok()?;
                ended = true;
            }
            _ => return None,
        }
    }
    let by_estimate = |x: &ScanCandidate, y: &ScanCandidate| y.estimate.total_cmp(&x.estimate);
    out.worst.sort_by(by_estimate);
    out.worst_finite.sort_by(by_estimate);
    ended.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_keys_are_monotone_in_value_and_round_trip_through_the_c_conversion() {
        let values = [
            -f64::MAX,
            -1.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            5e-324,
            1.0,
            f64::MAX,
        ];
        let keys: Vec<i64> = values
            .iter()
            .map(|v| order_key(v.to_bits(), FloatTy::F64))
            .collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{keys:?}");
        assert_eq!(keys[3], keys[4], "both zeros have key 0");
        assert_eq!(
            order_key((-1.0f32).to_bits().into(), FloatTy::F32),
            -0x3f80_0000
        );
    }

    #[test]
    fn scan_output_parses_and_sorts_by_estimate() {
        let text = "READY 1f80\nW 3ff0000000000000 4000000000000000 3fe0000000000000\n\
                    W 4000000000000000 4000000000000000 4008000000000000\n\
                    F 3ff0000000000000 4000000000000000 3fe0000000000000\nS 3\n";
        let out = parse_scan(text, 1).expect("parses");
        assert_eq!(out.evaluated, 3);
        assert_eq!(out.worst.len(), 2);
        assert_eq!(out.worst[0].estimate, 3.0);
        assert_eq!(out.worst[1].inputs, vec![1.0f64.to_bits()]);
        assert_eq!(out.worst_finite.len(), 1);
        assert!(
            parse_scan("W 1 2\nS 3\n", 1).is_none(),
            "a short line is malformed"
        );
        assert!(
            parse_scan("W 1 2 3\n", 1).is_none(),
            "no summary: the scan did not end"
        );
    }
}
