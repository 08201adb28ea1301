/* Exact everywhere but on a stretch of 2^-20 of [1, 2], where the result is 2^-40 too large. */
double needle(double x) {
  if (x > 1.7 && x < 1.7 + 0x1p-20) return x * (1.0 + 0x1p-40);
  return x;
}
