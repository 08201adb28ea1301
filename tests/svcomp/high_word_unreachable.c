/* fdlibm's guard on a double's high word (GET_HIGH_WORD through a union of a double
   and two 32-bit words): |x| < 2^-27 exactly when ix < 0x3e400000, so the error needs
   |x| > 1e-8 > 2^-27 there and is unreachable. */
#include <math.h>
#include <stdint.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
typedef union {
  double value;
  struct { uint32_t lsw; uint32_t msw; } parts;
} ieee_double_shape_type;
#define GET_HIGH_WORD(i, d) do { ieee_double_shape_type gh_u; gh_u.value = (d); (i) = gh_u.parts.msw; } while (0)
int main() {
  double x = __VERIFIER_nondet_double();
  int32_t hx, ix;
  GET_HIGH_WORD(hx, x);
  ix = hx & 0x7fffffff;
  if (ix >= 0x7ff00000) return 0;
  if (ix < 0x3e400000) {
    if (fabs(x) > 1e-8) __VERIFIER_error();
  }
  return 0;
}
