/* Polynomial over a small constant table (static const double coefficients[]), loop over it. */
static const double coefficients[] = {1.0, -0.5, 0.041666666666666664, -0.001388888888888889,
                                      2.48015873015873e-05, -2.755731922398589e-07};
double table(double x) {
  double x2 = x * x;
  double acc = 0.0;
  double p = 1.0;
  for (int i = 0; i < 6; i++) {
    acc += coefficients[i] * p;
    p *= x2;
  }
  return acc;
}
