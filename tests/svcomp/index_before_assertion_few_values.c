/* index_after_assertion_unreachable.c with a second assertion after the table lookup:
   the index has four possible values, so the walk takes one path per value, and each
   settles the assertion after it. */
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "index_before_assertion_few_values.c", 6, "reach_error"); }
void __VERIFIER_assert(int cond) { if (!(cond)) { reach_error(); } }
extern double __VERIFIER_nondet_double(void);

const double table[4] = {0.0, 0.5, 0.75, 0.875};

int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x >= 0.0 && x < 4.0)) abort();
  __VERIFIER_assert(x * 0.25 < 1.0);
  int i = (int)x;
  __VERIFIER_assert(table[i] < 1.0);
  return 0;
}
