/* Integer parameters: x^n by binary exponentiation, negative n via reciprocal. */
double ipow(double x, int n) {
  long m = n;
  int neg = m < 0;
  if (neg) m = -m;
  double r = 1.0, b = x;
  while (m > 0) {
    if (m & 1) r *= b;
    b *= b;
    m >>= 1;
  }
  return neg ? 1.0 / r : r;
}
