/* Two-argument libm functions in the float solver: none of these assertions can fail
   for any double, as glibc computes them (pow of a base in [1, 9] and exponent 2.5 stays
   below 243.1; hypot is at least the larger magnitude, here 1; atan2 within ±π; fmod of a
   nonnegative x below |y|). */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
extern void abort(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  double y = __VERIFIER_nondet_double();
  if (!(x >= 1.0 && x <= 9.0)) abort();
  if (!(y >= -4.0 && y <= 4.0)) abort();
  if (pow(x, 2.5) > 243.1) __VERIFIER_error();
  if (hypot(x, y) < 0.999) __VERIFIER_error();
  if (atan2(y, x) > 3.1416) __VERIFIER_error();
  double r = fmod(x, y);
  if (r < 0.0 || r > 9.0) __VERIFIER_error();
  return 0;
}
