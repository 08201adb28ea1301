/* Running maximum over a float array: -O3 -ffast-math vectorises it into maxps on phis, a
   halving max reduction and a scalar remainder loop, all commutable max instructions. */
float maxloop(const float *a, int n) {
  float m = a[0];
  for (int i = 1; i < n; i++) m = m > a[i] ? m : a[i];
  return m;
}
