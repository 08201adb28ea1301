/* Elementary functions from glibc: sqrt, log, exp, pow (and their exceptions). */
#include <math.h>
double mathfns(double x, double y) {
  double a = sqrt(x);
  double b = log(y);
  double c = exp(x - y);
  double d = pow(x, y);
  return (a + b) * c - d;
}
