/* range_reduced_index_unreachable.c with a table one entry shorter: at a = 540 the
   reduced value is -180, i = 360 and i + 1 is past the end, so the error is reachable. */
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
#define TABLE 361
static double reduced(double x) {
  return x > 180 ? x - 360. * (int)((x + 180.) / 360.) : x;
}
int main() {
  double a = __VERIFIER_nondet_double();
  if (!(a >= 0 && a <= 1e10)) return 0;
  double y = reduced(a);
  double dx = 2 * (y < 0 ? -y : y);
  int i = dx;
  if (!(i >= 0 && i + 1 < TABLE)) __VERIFIER_error();
  return 0;
}
