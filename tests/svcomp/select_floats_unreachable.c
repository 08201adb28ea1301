/* -O3 makes the conditional expression a select of floats and the two comparisons one `and`: the walk forks on each. */
extern double __VERIFIER_nondet_double(void);
extern void reach_error(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x >= -100.0 && x <= 100.0)) return 0;
  double y = x > 2.0 ? x - 1.0 : 3.0 - x;
  if (!(y >= 1.0)) reach_error();
  return 0;
}
