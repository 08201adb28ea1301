/* As octant_parity_unreachable.c, but an odd octant masked to 4 (the third, x in
   [3π/4, π)) is there to be found. */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
extern void abort(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x >= 0.0 && x < 6.0)) abort();
  double y = floor(x / (0.25 * M_PI));
  int octant = y - ldexp(floor(ldexp(y, -3)), 3);
  if (octant & 1) {
    octant += 1;
    octant &= 07;
    if (octant == 4 && x < M_PI) __VERIFIER_error();
  }
  return 0;
}
