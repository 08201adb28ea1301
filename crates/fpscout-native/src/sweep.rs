//! Exhaustive sweep of a `float f(float)` over ranges of bit patterns, natively: each result against a `double` reference compiled in, keeping the inputs MPFR must judge.
//!
//! The sweep is its own translation unit, compiled at -O2 without fast-math or
//! contraction, linked into the driver (which dispatches `driver sweep <ftz> <first>
//! <count> <threshold bits>` to it after its set-up). For each input it computes the
//! result, the reference in `double` and an *estimate* of the error in ulps of binary32
//! (the same definition as `fpscout_fpcore::measure`, with the `double` reference
//! standing in for the exact value). Nothing reported is concluded from the estimate:
//! the sweep keeps the [`KEEP`] inputs of largest estimate (overall, and among finite
//! results with finite references) for the caller to measure exactly, and the largest
//! estimate it did not keep, so that the caller can tell whether its exact maximum
//! is the maximum. How far the `double` reference is from the real value is checked
//! against the same expression in `long double`, on every kept input and on every
//! [`SAMPLE_EVERY`]th input.

use std::process::{Command, Stdio};

use crate::{io_err, NativeBuild, NativeError, Result};

/// Inputs of largest estimated error kept per set and per process.
pub const KEEP: usize = 32;
/// One input in this many is also computed with the `long double` reference.
pub const SAMPLE_EVERY: u64 = 64;

/// The reference in C: definitions of `double fps_ref_d(double)` and
/// `long double fps_ref_l(long double)` (e.g. from `fpscout_fpcore::Reference::to_c`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepReference {
    pub double_c: String,
    pub long_double_c: String,
}

/// One input the sweep kept.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepCandidate {
    /// The input's bits.
    pub input: u32,
    /// The function's result bits.
    pub result: u32,
    /// Estimated error in ulps against the `double` reference.
    pub estimate: f64,
    /// |double reference − long double reference| in ulps of binary32.
    pub reference_gap: f64,
}

/// What a sweep (or several merged) found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SweepOutcome {
    pub evaluated: u64,
    /// Largest estimates overall, largest first.
    pub worst: Vec<SweepCandidate>,
    /// Largest estimates among finite results against finite references.
    pub worst_finite: Vec<SweepCandidate>,
    /// The largest estimate of an input not in `worst` (-1 when every input was kept).
    pub unkept_bound: f64,
    /// The same for `worst_finite`.
    pub unkept_finite_bound: f64,
    /// Inputs whose estimated relative error exceeds the threshold (finite result and
    /// reference).
    pub above_threshold: u64,
    /// Inputs also computed with the `long double` reference, the largest gap seen in
    /// ulps, and at which input.
    pub sampled: u64,
    pub largest_reference_gap: f64,
    pub largest_gap_input: u32,
}

impl SweepOutcome {
    /// Combines the outcomes of disjoint ranges.
    pub fn merge(mut self, other: SweepOutcome) -> SweepOutcome {
        self.evaluated += other.evaluated;
        self.above_threshold += other.above_threshold;
        self.sampled += other.sampled;
        if other.largest_reference_gap > self.largest_reference_gap {
            self.largest_reference_gap = other.largest_reference_gap;
            self.largest_gap_input = other.largest_gap_input;
        }
        let (worst, bound) = merge_kept(
            self.worst,
            other.worst,
            self.unkept_bound.max(other.unkept_bound),
        );
        self.worst = worst;
        self.unkept_bound = bound;
        let (finite, bound) = merge_kept(
            self.worst_finite,
            other.worst_finite,
            self.unkept_finite_bound.max(other.unkept_finite_bound),
        );
        self.worst_finite = finite;
        self.unkept_finite_bound = bound;
        self
    }
}

fn merge_kept(
    mut a: Vec<SweepCandidate>,
    b: Vec<SweepCandidate>,
    bound: f64,
) -> (Vec<SweepCandidate>, f64) {
    a.extend(b);
    a.sort_by(|x, y| {
        y.estimate
            .total_cmp(&x.estimate)
            .then(x.input.cmp(&y.input))
    });
    let mut bound = bound;
    for dropped in a.iter().skip(KEEP) {
        bound = bound.max(dropped.estimate);
    }
    a.truncate(KEEP);
    (a, bound)
}

/// The sweep's translation unit for the function `symbol` (see the module doc).
pub fn sweep_source(symbol: &str, reference: &SweepReference) -> String {
    format!(
        r#"#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

float fps_sweep_target(float) __asm__("{symbol}");

{double_c}
{long_double_c}
#define FPS_KEEP {KEEP}
#define FPS_SAMPLE_EVERY {SAMPLE_EVERY}u

struct fps_cand {{ uint32_t in, out; double est, gap; }};
struct fps_set {{ struct fps_cand c[FPS_KEEP]; int n; double floor, unkept; }};

static uint64_t fps_bits_of(double d) {{ uint64_t u; memcpy(&u, &d, 8); return u; }}

/* The binary32 ulp at r's binade (MPFR's exponent convention: r = m 2^e, 1/2 <= m < 1),
   subnormal ulp below the normal range. */
static double fps_ulp32(double r) {{
  int e;
  if (r == 0.0) return 0x1p-149;
  frexp(r, &e);
  if (e < -125) e = -125;
  return ldexp(1.0, e - 24);
}}

/* Estimated ulps of y against the reference r, following fpscout_fpcore::measure. */
static double fps_estimate(float y, double r) {{
  if (isnan(r)) return isnan(y) ? 0.0 : INFINITY;
  float rf = (float)r;
  if (isinf(rf)) {{
    if (y == rf) return 0.0;
    if (isinf(r) || !isfinite(y)) return INFINITY;
    /* An overflow: ordinal distance to the infinity, as Herbie counts it. */
    uint32_t yb; memcpy(&yb, &y, 4);
    int64_t oy = (yb >> 31) ? -(int64_t)(yb & 0x7fffffffu) : (int64_t)(yb & 0x7fffffffu);
    int64_t oinf = rf < 0 ? -(int64_t)0x7f800000 : (int64_t)0x7f800000;
    return (double)(oy > oinf ? oy - oinf : oinf - oy);
  }}
  if (!isfinite(y)) return INFINITY;
  if ((double)y == r) return 0.0;
  /* The ulp of the binade just below |r| when r sits at a power of two: the exact value
     may be on either side, and the estimate must not be the smaller one. */
  return fabs((double)y - r) / fps_ulp32(fabs(r) * (1.0 - 0x1p-40));
}}

/* How far the double reference is from the long double one, in binary32 ulps. */
static double fps_gap(double r, long double rl) {{
  double rd = (double)rl;
  if (isnan(r) || isnan(rd)) return isnan(r) && isnan(rd) ? 0.0 : INFINITY;
  if (isinf(r) || isinf(rd)) return r == rd ? 0.0 : INFINITY;
  if (r == rd) return 0.0;
  long double d = rl - (long double)r;
  if (d < 0) d = -d;
  return (double)(d / (long double)fps_ulp32(fabs(r) > fabs(rd) ? r : rd));
}}

/* The index of the kept input with the smallest estimate (the set is full). */
static int fps_lowest(const struct fps_set *s) {{
  int lo = 0;
  for (int i = 1; i < FPS_KEEP; i++) if (s->c[i].est < s->c[lo].est) lo = i;
  return lo;
}}

static void fps_keep(struct fps_set *s, struct fps_cand c) {{
  if (s->n < FPS_KEEP) {{
    s->c[s->n++] = c;
  }} else {{
    int lo = fps_lowest(s);
    if (s->c[lo].est > s->unkept) s->unkept = s->c[lo].est;
    s->c[lo] = c;
  }}
  if (s->n == FPS_KEEP) s->floor = s->c[fps_lowest(s)].est;
}}

static void fps_print_set(FILE *out, char tag, const struct fps_set *s) {{
  for (int i = 0; i < s->n; i++)
    fprintf(out, "%c %08x %08x %016llx %016llx\n", tag, s->c[i].in, s->c[i].out,
            (unsigned long long)fps_bits_of(s->c[i].est),
            (unsigned long long)fps_bits_of(s->c[i].gap));
}}

int fps_sweep(uint64_t first, uint64_t count, double threshold, FILE *out) {{
  static struct fps_set worst, finite;
  worst.floor = finite.floor = -1.0;
  worst.unkept = finite.unkept = -1.0;
  uint64_t above = 0, sampled = 0;
  double largest_gap = 0.0;
  uint32_t gap_in = 0;
  for (uint64_t i = 0; i < count; i++) {{
    uint32_t in = (uint32_t)(first + i);
    float x;
    memcpy(&x, &in, 4);
    float y = fps_sweep_target(x);
    double r = fps_ref_d((double)x);
    double est = fps_estimate(y, r);
    int both_finite = isfinite(y) && isfinite(r) && isfinite((float)r);
    if (both_finite && r != 0.0 && fabs((double)y - r) > threshold * fabs(r)) above++;
    int keep_w = worst.n < FPS_KEEP || est > worst.floor;
    int keep_f = both_finite && (finite.n < FPS_KEEP || est > finite.floor);
    double gap = -1.0;
    if (keep_w || keep_f || (first + i) % FPS_SAMPLE_EVERY == 0) {{
      gap = fps_gap(r, fps_ref_l((long double)x));
      sampled++;
      if (gap > largest_gap) {{ largest_gap = gap; gap_in = in; }}
    }}
    uint32_t yb;
    memcpy(&yb, &y, 4);
    struct fps_cand c = {{ in, yb, est, gap }};
    if (keep_w) fps_keep(&worst, c);
    else if (est > worst.unkept) worst.unkept = est;
    if (keep_f) fps_keep(&finite, c);
    else if (both_finite && est > finite.unkept) finite.unkept = est;
  }}
  fps_print_set(out, 'W', &worst);
  fps_print_set(out, 'F', &finite);
  fprintf(out, "S %llu %016llx %016llx %llu %llu %016llx %08x\n", (unsigned long long)count,
          (unsigned long long)fps_bits_of(worst.unkept),
          (unsigned long long)fps_bits_of(finite.unkept), (unsigned long long)above,
          (unsigned long long)sampled, (unsigned long long)fps_bits_of(largest_gap), gap_in);
  fflush(out);
  return 0;
}}
"#,
        double_c = reference.double_c,
        long_double_c = reference.long_double_c,
    )
}

impl NativeBuild {
    /// Sweeps the inputs with bits `first..first + count` (a build made with
    /// [`NativeBuild::compile_sweep`]); `threshold` is the relative error counted in
    /// [`SweepOutcome::above_threshold`].
    pub fn sweep(&self, first: u32, count: u64, threshold: f64) -> Result<SweepOutcome> {
        let output = Command::new(&self.exe)
            .args([
                "sweep",
                "as-linked",
                &first.to_string(),
                &count.to_string(),
                &format!("{:x}", threshold.to_bits()),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(io_err(format!("running {}", self.exe.display())))?;
        let text = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() || !text.lines().any(|l| l.starts_with("S ")) {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let said = text.lines().find(|l| l.starts_with("E ")).unwrap_or("");
            return Err(NativeError::Protocol(format!(
                "the sweep of inputs {first:#010x}..+{count} stopped ({}){}{}",
                output.status,
                if said.is_empty() { "" } else { ": " },
                if said.is_empty() {
                    stderr.lines().last().unwrap_or("").to_string()
                } else {
                    said[2..].to_string()
                }
            )));
        }
        parse_sweep(&text).ok_or_else(|| NativeError::Protocol("malformed sweep output".into()))
    }
}

fn parse_sweep(text: &str) -> Option<SweepOutcome> {
    let hex32 = |t: &str| u32::from_str_radix(t, 16).ok();
    let f64_bits = |t: &str| u64::from_str_radix(t, 16).ok().map(f64::from_bits);
    let mut out = SweepOutcome::default();
    for line in text.lines().skip_while(|l| l.starts_with("READY")) {
        let t: Vec<&str> = line.split(' ').collect();
        match t.as_slice() {
            [tag @ ("W" | "F"), input, result, est, gap] => {
                let c = SweepCandidate {
                    input: hex32(input)?,
                    result: hex32(result)?,
                    estimate: f64_bits(est)?,
                    reference_gap: f64_bits(gap)?,
                };
                if *tag == "W" {
                    out.worst.push(c);
                } else {
                    out.worst_finite.push(c);
                }
            }
            ["S", n, unkept, unkept_finite, above, sampled, gap, gap_in] => {
                out.evaluated = n.parse().ok()?;
                out.unkept_bound = f64_bits(unkept)?;
                out.unkept_finite_bound = f64_bits(unkept_finite)?;
                out.above_threshold = above.parse().ok()?;
                out.sampled = sampled.parse().ok()?;
                out.largest_reference_gap = f64_bits(gap)?;
                out.largest_gap_input = hex32(gap_in)?;
            }
            _ => return None,
        }
    }
    let by_estimate = |x: &SweepCandidate, y: &SweepCandidate| {
        y.estimate
            .total_cmp(&x.estimate)
            .then(x.input.cmp(&y.input))
    };
    out.worst.sort_by(by_estimate);
    out.worst_finite.sort_by(by_estimate);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(input: u32, estimate: f64) -> SweepCandidate {
        SweepCandidate {
            input,
            result: 0,
            estimate,
            reference_gap: 0.0,
        }
    }

    #[test]
    fn merging_keeps_the_largest_and_bounds_what_it_drops() {
        let a = SweepOutcome {
            evaluated: 10,
            worst: (0..KEEP as u32).map(|i| cand(i, f64::from(i))).collect(),
            unkept_bound: -1.0,
            unkept_finite_bound: -1.0,
            ..SweepOutcome::default()
        };
        let b = SweepOutcome {
            evaluated: 5,
            worst: vec![cand(1000, 100.0), cand(1001, 0.5)],
            unkept_bound: 0.25,
            unkept_finite_bound: -1.0,
            ..SweepOutcome::default()
        };
        let m = a.merge(b);
        assert_eq!(m.evaluated, 15);
        assert_eq!(m.worst.len(), KEEP);
        assert_eq!(m.worst[0].input, 1000);
        // Dropped: estimates 0 and 0.5 (the two smallest of 34); the bound is the larger.
        assert_eq!(m.unkept_bound, 0.5);
        assert!(m.worst.iter().all(|c| c.estimate >= 1.0));
    }
}
