/* Early-exit search loop: fcmp of a loaded element against a parameter, in both operand orders. */
int first_below(const double *x, double lo, double hi, int n) {
  for (int i = 0; i < n; i++) {
    if (x[i] < lo)
      return i;
    if (hi <= x[i])
      return -i - 2;
  }
  return -1;
}
