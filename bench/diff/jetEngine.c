/* FPBench rosa jetEngine (binary64, FPBench variant with t* = 3x1^2 - 2x2 - x1): common subexpressions, division. */
double jetEngine(double x1, double x2) {
  double t = (((3.0 * x1) * x1) + (2.0 * x2)) - x1;
  double t_star = (((3.0 * x1) * x1) - (2.0 * x2)) - x1;
  double d = (x1 * x1) + 1.0;
  double s = t / d;
  double s_star = t_star / d;
  return x1 + (((((((2.0 * x1) * s) * (s - 3.0)) + ((x1 * x1) * ((4.0 * s) - 6.0))) * d)
                 + (((3.0 * x1) * x1) * s)) + ((x1 * x1) * x1) + x1 + (3.0 * s_star));
}
