/* A routine taking a struct, checked through an fpscout.h harness. */
#include "fpscout.h"

typedef struct {
  int dim;
  double *ve;
} VEC;

static double v_dot(const VEC *a, const VEC *b) {
  double s = 0.0;
  for (int i = 0; i < a->dim; i++)
    s += a->ve[i] * b->ve[i];
  return s;
}

int main(void) {
  double x[4], y[4];
  fpscout_array(x, 4, "x", -100, 100);
  fpscout_array(y, 4, "y", -100, 100);
  VEC a = {4, x}, b = {4, y};
  fpscout_result(v_dot(&a, &b));
  return 0;
}
