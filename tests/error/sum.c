/* Recursive summation (FPGen's first subject) and a hand-made cancellation. */
double sum(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

double cancel(double a, double b) {
  double big = a * 1e10;
  double s = big + b;
  double d = s - big;
  return d;
}

/* An array result: y <- a*x + y. */
void axpy(double *y, const double *x, double a) {
  for (int i = 0; i < 4; i++)
    y[i] = a * x[i] + y[i];
}
