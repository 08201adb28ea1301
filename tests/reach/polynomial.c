/* CPBPV_FP's polynomial (DESIGN.md §5): a, c in [1e3, 1e4], b in [0, 1]; its real
   minimum is 1000000000.01 (a = c = 1e3, b = 0), but 1e-5 is absorbed by a*a in binary32. */
float polynomial(float a, float b, float c) {
  return (a * a + b + 1e-5f) * c;
}
