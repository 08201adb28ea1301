/* Conversions int/long/unsigned/unsigned long <-> double/float and float <-> double. */
double conversions(double x, float f, int i, long l, unsigned u) {
  int xi = (int)x;
  long xl = (long)(x * 3.0);
  unsigned xu = (unsigned)f;
  unsigned long xul = (unsigned long)x;
  float xf = (float)x;
  double fd = (double)f;
  float lf = (float)l;
  double ud = (double)u;
  double uld = (double)(unsigned long)l;
  return (double)xi + (double)xl + (double)xu + (double)xul + (double)xf + fd + (double)lf + ud
         + uld + (double)i + (double)(float)i;
}
