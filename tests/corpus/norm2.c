/* 2-norm loop: sum of squares (vectorised and reassociated under -ffast-math) then sqrt. */
#include <math.h>
double norm2(const double *x, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    sum += x[i] * x[i];
  return sqrt(sum);
}
