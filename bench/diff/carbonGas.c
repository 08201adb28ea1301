/* FPBench rosa carbonGas (binary64): constants of very different magnitudes, division by the input. */
double carbonGas(double v) {
  double p = 3.5e7, a = 0.401, b = 42.7e-6, t = 300.0, n = 1000.0, k = 1.3806503e-23;
  return ((p + ((a * (n / v)) * (n / v))) * (v - (n * b))) - ((k * n) * t);
}
