/* Chebyshev series found through tables of structs that point into other global arrays
   (GSL's `static cheb_series aif_cs = { aif_data, 15, -1, 1, 8 };`): clang emits a table
   before the globals its initializer names, and one pointer carries a constant offset. */
struct series {
  const double *c;
  int order;
  double a, b;
};
static const double data_lo[6] = {0.5, -0.25, 0.125, -0.0625, 0.03125, -0.015625};
static const double data_hi[8] = {99.0, 1.5, 0.75, -0.375, 0.1875, 0.09375, -0.046875, 0.0234375};
static const struct series lo = {data_lo, 5, -1.0, 1.0};
static const struct series hi = {data_hi + 1, 6, 0.0, 2.0};
static const struct series *const by_range[2] = {&lo, &hi};

static double cheb_eval(const struct series *cs, double x) {
  double d = 0.0, dd = 0.0;
  double y = (2.0 * x - cs->a - cs->b) / (cs->b - cs->a);
  double y2 = 2.0 * y;
  for (int j = cs->order; j >= 1; j--) {
    double temp = d;
    d = y2 * d - dd + cs->c[j];
    dd = temp;
  }
  return y * d - dd + 0.5 * cs->c[0];
}

double cheb(double x) {
  const struct series *s = by_range[x > 0.0];
  return cheb_eval(s, x);
}
