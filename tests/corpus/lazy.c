/* Selects the backend turns into branches: a division only computed when selected, and a
   select on an integer condition whose arms are computed only on their side. */
double lazy(double x, double y, double z, int c) {
  double q = z > 1.0 ? x / y : y;
  double t = c > 3 ? x * y + 1.5 : q - 2.0;
  return t;
}
