/* erf, erfc, tgamma, lgamma and remainder in the float solver: none of these assertions
   can fail for any double, as glibc computes them (erf within [-1, 1], erfc within
   [0, 2], Γ on [1, 3] at least its minimum 0.8856, log Γ on (0.5, 10) at least its
   minimum -0.12149, a remainder by y in [1, 2] at most y/2). */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  double y = __VERIFIER_nondet_double();
  if (erf(x) > 1.0) __VERIFIER_error();
  if (erfc(x) < 0.0) __VERIFIER_error();
  if (x >= 1.0 && x <= 3.0 && tgamma(x) < 0.885) __VERIFIER_error();
  if (x > 0.5 && x < 10.0 && lgamma(x) < -0.1215) __VERIFIER_error();
  if (y >= 1.0 && y <= 2.0 && remainder(x, y) > 1.0) __VERIFIER_error();
  return 0;
}
