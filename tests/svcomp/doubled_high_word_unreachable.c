/* doubled_high_word_reachable.c's twin: (ix<<1 | lx) == 0 only at x = ±0, which
   compare equal to 0.0, so the error cannot be reached. */
#include <stdint.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double();
  union { double f; uint64_t i; } u = { x };
  uint32_t ix = u.i >> 32, lx = (uint32_t)u.i;
  if ((ix << 1 | lx) == 0 && x != 0.0) __VERIFIER_error();
  return 0;
}
