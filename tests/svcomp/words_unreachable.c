/* fdlibm's EXTRACT_WORDS and its tests of both words: (ix | lx) == 0 is x = ±0, and
   ((ix - 0x3ff00000) | lx) == 0 is x = ±1, so neither error is reachable. */
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
  if ((ix | lx) == 0) {
    if (x != 0.0) __VERIFIER_error();
    return 0;
  }
  if (((ix - 0x3ff00000) | lx) == 0) {
    if (x * x != 1.0) __VERIFIER_error();
  }
  return 0;
}
