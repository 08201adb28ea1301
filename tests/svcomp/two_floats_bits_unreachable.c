/* two_floats_bits_reachable.c's twin: no magnitude's bits are below those of ±0. */
#include <stdint.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double(), y = __VERIFIER_nondet_double();
  union { double f; uint64_t i; } ux = { x }, uy = { y };
  ux.i &= -1ULL >> 1;
  uy.i &= -1ULL >> 1;
  if (ux.i < uy.i && y == 0.0) __VERIFIER_error();
  return 0;
}
