/* |j0(x)| is never above 1, so the error is unreachable, but the float solver does not
   model Bessel functions (no constraint for them): the answer must stay unknown, never
   unreachable. */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double();
  if (j0(x) > 4.0) __VERIFIER_error();
  return 0;
}
