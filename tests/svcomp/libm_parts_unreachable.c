/* modf and frexp in the float solver: the fraction (of any double) and the significand
   (of a finite one: frexp returns infinities themselves) stay strictly within ±1, and
   the integral part is x truncated, as glibc computes them. */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
extern void abort(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  double integral;
  int exponent;
  double fraction = modf(x, &integral);
  if (fraction >= 1.0 || fraction <= -1.0) __VERIFIER_error();
  double significand = frexp(x, &exponent);
  if (x >= -1e300 && x <= 1e300 && (significand >= 1.0 || significand <= -1.0))
    __VERIFIER_error();
  if (x >= -1e6 && x <= 1e6 && integral > 1e6) __VERIFIER_error();
  return 0;
}
