/* As libm_erf_gamma_unreachable.c, with a bound Γ does reach on [1, 3]: Γ(3) = 2, and
   Γ(x) > 1.99 only for x above about 2.9946. */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  if (x >= 1.0 && x <= 3.0 && tgamma(x) > 1.99 && erfc(x) < 0.0001) __VERIFIER_error();
  return 0;
}
