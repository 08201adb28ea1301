/* Comparisons with infinities and arithmetic on them guard the error: x + INFINITY is
   +inf for every double but -inf and NaN, so the error is unreachable over every
   double (NaN and infinities included). */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double();
  double s = x + INFINITY;
  if (x == INFINITY) return 0;
  if (s != INFINITY && x == x && x != -INFINITY) __VERIFIER_error();
  return 0;
}
