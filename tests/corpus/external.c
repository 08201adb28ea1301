/* Calls outside the module: output, program ends, glibc functions fpscout calls
   natively (tgamma, ldexp are not among its modelled libm), and a static accumulator
   that must start from zero for every input. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double total;
double external(double x, double y) {
  if (x != x) abort();
  if (y > 1e300) exit(7);
  assert(x > -1e300);
  double r = tgamma(y) + ldexp(x, 3);
  total += r;
  printf("%g\n", total);
  if (fabs(x) > 1e200) fprintf(stderr, "large x\n");
  return total * 0.5 + 1.0 / (x - y);
}
