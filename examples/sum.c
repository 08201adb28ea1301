/* Summation loop that -O3 -ffast-math vectorises: the reassociated sum no longer
   overflows on [1e308, 1e308, -1e308, -1e308, 1, 2, 3, 4, 5]. */
double sum(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}
