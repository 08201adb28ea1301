/* float-rounding1 with the downward sum expected to round as to nearest: the one input
   pair the assumptions allow (1 and 1.5 * 2^-24) fails it. */
#include <fenv.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_error(void);
extern void abort(void);
static void rounding_test(float f1, float f2) {
  fesetround(FE_TONEAREST);
  float nearest = f1 + f2;
  if (!(nearest == 0x1.000002p+0f)) __VERIFIER_error();
  fesetround(FE_DOWNWARD);
  float down = f1 + f2;
  if (!(down == 0x1.000002p+0f)) __VERIFIER_error();
  if (fegetround() != FE_DOWNWARD) __VERIFIER_error();
}
int main(void) {
  float f3 = __VERIFIER_nondet_float();
  float f4 = __VERIFIER_nondet_float();
  if (!((0x1.fffffep-1f < f3) && (f3 < 0x1.000002p+0f))) abort();
  if (!((0x1.7ffffep-24f < f4) && (f4 < 0x1.800002p-24f))) abort();
  rounding_test(f3, f4);
  return 0;
}
