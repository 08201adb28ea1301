/* words_unreachable.c's twin: x = -1 is the one input with ((ix - 0x3ff00000) | lx)
   == 0 and hx < 0, so the error is reachable there and only there. */
#include <stdint.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
typedef union {
  double value;
  struct { uint32_t lsw; uint32_t msw; } parts;
} ieee_double_shape_type;
#define EXTRACT_WORDS(ix0, ix1, d) do { ieee_double_shape_type ew_u; ew_u.value = (d); (ix0) = ew_u.parts.msw; (ix1) = ew_u.parts.lsw; } while (0)
int main() {
  double x = __VERIFIER_nondet_double();
  int32_t hx, ix;
  uint32_t lx;
  EXTRACT_WORDS(hx, lx, x);
  ix = hx & 0x7fffffff;
  if (((ix - 0x3ff00000) | lx) == 0 && hx < 0) __VERIFIER_error();
  return 0;
}
