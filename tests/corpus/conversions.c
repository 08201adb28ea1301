/* Conversions int/long/unsigned/unsigned long <-> double/float and float <-> double, each result stored. */
void conversions(double *d, long *k, double x, float f, int i, long l, unsigned u) {
  k[0] = (int)x;
  k[1] = (long)(x * 3.0);
  k[2] = (unsigned)f;
  k[3] = (long)(unsigned long)x;
  k[4] = (int)f;
  k[5] = (long)f;
  d[0] = (float)x;
  d[1] = f;
  d[2] = (float)l;
  d[3] = u;
  d[4] = (unsigned long)l;
  d[5] = i;
  d[6] = (float)i;
  d[7] = (float)(unsigned long)l;
  d[8] = (float)u;
}
