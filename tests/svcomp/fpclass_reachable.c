/* Classification guards as libm writes them (llvm.is.fpclass at -O0): past isnan and
   isfinite on the input, a product that is no longer finite reaches the error (x above
   about 1.8e19). P' assumes no infinities and folds isfinite to 1: unreachable there. */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void reach_error(void);
int main(void) {
  float x = __VERIFIER_nondet_float();
  if (isnan(x) || !isfinite(x)) return 0;
  float y = x * x;
  if (!isfinite(y) && isnormal(x)) reach_error();
  return 0;
}
