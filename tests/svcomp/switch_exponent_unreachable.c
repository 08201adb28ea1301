/* A switch on the exponent field: each case holds only the doubles of its binade and
   the default none of them, so every error is unreachable (the walk forks one path per
   case with its equality assumed, and the default with all of them false). */
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
  switch ((hx >> 20) & 0x7ff) {
    case 0x3ff:
      if (x >= 2.0 || (x < 1.0 && x > -1.0)) __VERIFIER_error();
      break;
    case 0x400:
      if (x > -2.0 && x < 2.0) __VERIFIER_error();
      break;
    default:
      if (x == 1.5 || x == -3.0) __VERIFIER_error();
  }
  return 0;
}
