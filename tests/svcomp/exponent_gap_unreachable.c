/* musl's hypot: ex - ey of two exponent fields. For x and y in [1, 2) both fields are
   0x3ff, so the gap is 0 and the error cannot be reached. */
#include <stdint.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double(), y = __VERIFIER_nondet_double();
  if (!(x >= 1.0 && x < 2.0 && y >= 1.0 && y < 2.0)) return 0;
  union { double f; uint64_t i; } ux = { x }, uy = { y };
  int ex = ux.i >> 52, ey = uy.i >> 52;
  if (ex - ey != 0) __VERIFIER_error();
  return 0;
}
