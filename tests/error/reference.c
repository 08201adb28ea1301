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
