/* One difference per fast-math sub-option, each with a known cause (issue #31). */
#include <math.h>

/* -ffinite-math-only: the NaN guard folds away. */
double nan_guard(double x) {
  if (isnan(x))
    return 0.0;
  return x * 2.0;
}

/* -freciprocal-math: x / 10 becomes x * 0.1. */
double tenth(double x) { return x / 10.0; }

/* -fassociative-math: (x * 3) * 5 becomes x * 15, one rounding instead of two. */
double scaled(double x) { return (x * 3.0) * 5.0; }

/* -fno-signed-zeros: x + 0.0 becomes x, so 1 / (-0.0 + 0.0) changes sign. */
double reciprocal_of_sum_with_zero(double x) { return 1.0 / (x + 0.0); }

/* -ffp-contract=fast: a * b + c across statements becomes one fused multiply-add. */
double multiply_add(double a, double b, double c) {
  double product = a * b;
  return product + c;
}

/* FTZ/DAZ at start-up: a subnormal halved becomes zero. */
double halve(double x) { return x * 0.5; }

/* -fapprox-func: pow(x, 3) becomes x * x * x, two roundings instead of one. */
double cube_by_pow(double x) { return pow(x, 3.0); }

/* -ffp-contract=fast with -fassociative-math on a vectorised dot product: the backend
   splits the 16-lane product into four 256-bit registers and fuses their sums into one
   chain of fmas. */
double dot16(const double *x, const double *y) {
  double s = 0.0;
  for (int i = 0; i < 16; i++)
    s += x[i] * y[i];
  return s;
}
