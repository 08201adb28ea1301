/* As libm_two_arguments_unreachable.c, with a bound pow does reach: 9^2.5 = 243. */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
extern void abort(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  double y = __VERIFIER_nondet_double();
  if (!(x >= 1.0 && x <= 9.0)) abort();
  if (!(y >= -4.0 && y <= 4.0)) abort();
  if (pow(x, 2.5) > 242.9 && hypot(x, y) > 9.5) __VERIFIER_error();
  return 0;
}
