/* atan2 is never above pi, so the error is unreachable, but the float solver does not
   model atan2 (two arguments, no enclosure): the answer must stay unknown, never
   unreachable. */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double();
  if (atan2(x, 1.0) > 4.0) __VERIFIER_error();
  return 0;
}
