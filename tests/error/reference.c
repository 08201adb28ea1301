/* Functions whose algorithm agrees with itself at any precision: only a mathematical
   reference shows their error (fpscout error --reference). */
#include <math.h>

/* sin by its first two Taylor terms: 0.97 % off at x = 1. */
double taylor_sin(double x) { return x - x * x * x / 6.0; }

/* x scaled by 1 + 1e-10, and NaN for negative x: the worst error overall is the NaN,
   the worst finite one 1e-10. */
double scaled_or_nan(double x) { return x < 0.0 ? NAN : x * (1.0 + 1e-10); }

/* exp(x) - 1: cancels near 0; overflows to the same infinity expm1 does, which is no
   error. */
double exp_minus_one(double x) { return exp(x) - 1.0; }

/* cos by the half-angle formula: next to each zero of cos its two terms cancel, and
   near the small zeros (pi/2, 3pi/2, ...) the error is of the order of the result. */
double half_angle_cos(double x) {
  double s = sin(x / 2.0);
  return 1.0 - 2.0 * s * s;
}

/* x itself, but 2^-40 too large on [1, 2] (about 4096 ulps) and one ulp too large on
   the subnormals (a relative error up to 1): the largest relative error and the largest
   error in ulps are at different inputs. */
double ulps_or_relative(double x) {
  if (x >= 1.0 && x <= 2.0) return x * (1.0 + 0x1p-40);
  if (x > 0.0 && x < 0x1p-1022) return nextafter(x, INFINITY);
  return x;
}
