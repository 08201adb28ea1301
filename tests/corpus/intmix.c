/* Integer parameters and integer result: scaling, float-to-int conversions, and an integer division that traps (SIGFPE) on zero or LONG_MIN / -1. */
long intmix(int a, unsigned b, long c, double x) {
  double q = (double)a / (double)(b | 1u);
  long r = (long)(q * x);
  int s = (int)(x / 4.0) + (a % 7);
  return r + s + c / (long)((int)b % 61);
}
