/* musl's hypot orders its operands by their bits: ux.i < uy.i with the signs cleared is
   |x| < |y| for numbers. Reachable where x > 1 and y < 1.5 (a negative y larger in
   magnitude than x), found by the float solver. */
#include <stdint.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double(), y = __VERIFIER_nondet_double();
  union { double f; uint64_t i; } ux = { x }, uy = { y };
  ux.i &= -1ULL >> 1;
  uy.i &= -1ULL >> 1;
  if (ux.i < uy.i && x > 1.0 && y < 1.5) __VERIFIER_error();
  return 0;
}
