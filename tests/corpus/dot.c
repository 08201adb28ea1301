/* Double dot product over two arrays plus an in-place update (arrays written back). */
double dot(double *x, const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s += x[i] * y[i];
    x[i] = x[i] * 0.5 + y[i];
  }
  return s;
}
