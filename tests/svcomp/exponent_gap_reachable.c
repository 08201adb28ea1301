/* exponent_gap_unreachable.c's twin: with y positive and below 2^-64, the gap
   ex - ey exceeds 64 (hypot then returns x + y). */
#include <stdint.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double(), y = __VERIFIER_nondet_double();
  if (!(x >= 1.0 && x < 2.0 && y > 0.0)) return 0;
  union { double f; uint64_t i; } ux = { x }, uy = { y };
  int ex = ux.i >> 52, ey = uy.i >> 52;
  if (ex - ey > 64) __VERIFIER_error();
  return 0;
}
