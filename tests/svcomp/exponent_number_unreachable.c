/* fdlibm's unbiased exponent k = ((hx >> 20) & 0x7ff) - 0x3ff read as a number ((double)k,
   as __ieee754_log does): k >= 2 for a positive x means x >= 4, so x < 3.99 there is
   unreachable. */
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
  int32_t hx;
  GET_HIGH_WORD(hx, x);
  int32_t k = ((hx >> 20) & 0x7ff) - 0x3ff;
  double dk = (double)k;
  if (hx > 0 && dk * 0.5 >= 1.0 && x < 3.99) __VERIFIER_error();
  return 0;
}
