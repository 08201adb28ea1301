/* As libm_exponents_unreachable.c, with an exponent ilogb does return: x in [2^700, 2^701). */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
extern void abort(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x >= 1.0 && x <= 1e300)) abort();
  if (ilogb(x) == 700) __VERIFIER_error();
  return 0;
}
