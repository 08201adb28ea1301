/* FPBench rosa turbine1 (binary64): straight-line +,-,*,/ with constants. */
double turbine1(double v, double w, double r) {
  return ((3.0 + (2.0 / (r * r))) - (((0.125 * (3.0 - (2.0 * v))) * (((w * w) * r) * r)) / (1.0 - v))) - 4.5;
}
