/* Loop with a float-dependent trip count, bounded by an iteration counter (Newton sqrt). */
#include <math.h>
double trip(double a, double x0) {
  double x = x0;
  int k = 0;
  double d = 1.0;
  while (fabs(d) > 1e-12 * fabs(x) && k < 40) {
    d = (x * x - a) / (2.0 * x);
    x = x - d;
    k++;
  }
  return x + (double)k;
}
