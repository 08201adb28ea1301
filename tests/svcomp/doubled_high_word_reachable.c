/* musl's y0 guard: EXTRACT_WORDS(ix, lx, x); (ix<<1 | lx) == 0 holds at x = ±0 only (the
   shift drops the sign), so with the sign bit set the one input is -0. */
#include <stdint.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double();
  union { double f; uint64_t i; } u = { x };
  uint32_t ix = u.i >> 32, lx = (uint32_t)u.i;
  if ((ix << 1 | lx) == 0 && (ix >> 31)) __VERIFIER_error();
  return 0;
}
