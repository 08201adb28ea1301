/* A function calling other module functions (one kept out of line, one inlinable). */
__attribute__((noinline)) double hypot_naive(double a, double b) {
  return a * a + b * b;
}
static double scaled(double a, double s) { return a / s; }
double calls(double x, double y) {
  double h = hypot_naive(x, y);
  double g = hypot_naive(scaled(x, 3.0), y - 1.0);
  return h - g;
}
