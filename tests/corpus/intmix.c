/* Integer parameters and integer result: scaling, division by an int, float-to-int conversions. */
long intmix(int a, unsigned b, long c, double x) {
  double q = (double)a / (double)(b | 1u);
  long r = (long)(q * x);
  int s = (int)(x / 4.0) + (a % 7);
  return r + s + c / 3;
}
