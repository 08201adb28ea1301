/* Single precision dot product loop that -O3 -ffast-math vectorises (<4 x float>, reduction). */
float sumf(const float *x, const float *y, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i] + 0.5f * x[i];
  return s;
}
