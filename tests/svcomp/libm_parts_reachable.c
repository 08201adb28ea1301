/* As libm_parts_unreachable.c, with a fraction modf does return: x in (3.99, 4). */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  double integral;
  double fraction = modf(x, &integral);
  if (integral == 3.0 && fraction > 0.99) __VERIFIER_error();
  return 0;
}
