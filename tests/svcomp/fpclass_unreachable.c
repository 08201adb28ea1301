/* A normal float is at least 2^-126 (about 1.18e-38): no positive normal input lies
   below 1e-38, and no NaN is finite. Unreachable over floats, proved by propagation of
   the class tests (isnormal, isnan, isfinite: llvm.is.fpclass at -O0). */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void reach_error(void);
int main(void) {
  float x = __VERIFIER_nondet_float();
  if (isnormal(x) && x > 0.0f && x < 1e-38f) reach_error();
  if (isnan(x) && isfinite(x)) reach_error();
  return 0;
}
