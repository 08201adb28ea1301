/* float-benchs/sin_interpolated_index-2, reduced: x is brought into [-180, 180] by
   x - 360*(int)((x+180)/360), and twice its magnitude indexes a table of 362 entries.
   Intervals lose the relation between x and the integer (the reduced value spans
   billions); the affine bound keeps it, so i <= 360 and the assertion holds. */
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
#define TABLE 362
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
