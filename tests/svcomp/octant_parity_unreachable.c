/* GSL's sin/cos argument reduction (specfunc/trig.c): the octant, an integer converted
   from a float (through ldexp), is tested for parity and masked. `octant & 1` is no float
   constraint; the octant has eight possible values, and the walk takes one path per
   value. Neither an odd octant below π/4 nor an octant past 3 below π/2 exists. */
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
    if (x < 0.25 * M_PI) __VERIFIER_error();
  }
  if (octant > 3 && x < 0.5 * M_PI) __VERIFIER_error();
  return 0;
}
