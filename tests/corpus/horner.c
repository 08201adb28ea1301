/* Horner evaluation of a degree-7 polynomial (contractible multiply-adds). */
double horner(double x) {
  return ((((((0.5 * x - 1.25) * x + 3.0) * x - 0.75) * x + 2.5) * x - 1e-3) * x + 7.0) * x - 11.0;
}
