/* musl's way: the bits through a union with a uint64_t, the exponent field read with
   shifts and masks; e < 0x3ff is |x| < 1, so |x| >= 1 there is unreachable. */
#include <math.h>
#include <stdint.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double();
  union { double f; uint64_t i; } u = {x};
  int e = (int)(u.i >> 52 & 0x7ff);
  uint32_t top = u.i >> 32;
  if (e == 0x7ff) return 0;
  if (e < 0x3ff) {
    if (fabs(x) >= 1.0) __VERIFIER_error();
    if ((top >> 31) && x > 0) __VERIFIER_error();
  }
  return 0;
}
