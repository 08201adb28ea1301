/* The same guard's other side: x * 2 reaches +inf for finite x from about DBL_MAX / 2,
   where x + INFINITY is +inf, so the error is reachable. */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double();
  double s = x + INFINITY;
  if (x == INFINITY) return 0;
  if (x * 2 == INFINITY && s == INFINITY) __VERIFIER_error();
  return 0;
}
