/* index_before_assertion_few_values.c with a table of 32 entries: too many values to
   walk one by one, so the walk cannot follow the lookup, an assertion may still fail
   after it, and the path stays unknown (the assertion does hold: random testing finds no
   witness). */
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "index_before_assertion_unknown.c", 6, "reach_error"); }
void __VERIFIER_assert(int cond) { if (!(cond)) { reach_error(); } }
extern double __VERIFIER_nondet_double(void);

const double table[32] = {0.0, 0.5, 0.75, 0.875};

int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x >= 0.0 && x < 32.0)) abort();
  __VERIFIER_assert(x * 0.03125 < 1.0);
  int i = (int)x;
  __VERIFIER_assert(table[i] < 1.0);
  return 0;
}
