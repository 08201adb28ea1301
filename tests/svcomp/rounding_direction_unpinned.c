/* Rounding upward, 1 + x for x >= 0 is never below 1; x is not pinned to one float, and
   the float solver's sum rounds to nearest: the walk must not decide this path. */
#include <fenv.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_error(void);
extern void abort(void);
int main(void) {
  float x = __VERIFIER_nondet_float();
  if (!(x >= 0.0f && x <= 1.0f)) abort();
  fesetround(FE_UPWARD);
  float s = 1.0f + x;
  if (s < 1.0f) __VERIFIER_error();
  return 0;
}
