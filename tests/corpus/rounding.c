/* libm helpers that become intrinsics: fmin, fmax, fabs, copysign, floor, ceil, round. */
#include <math.h>
double rounding(double x, double y) {
  double a = fmin(x, y);
  double b = fmax(x, y);
  double c = fabs(x - y);
  double d = copysign(c, y);
  return floor(a) + ceil(b) + round(d) + (a - floor(b * 0.5));
}
