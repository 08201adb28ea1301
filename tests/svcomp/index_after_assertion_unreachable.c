/* The assertion holds; after it the input indexes a table, which the float solver cannot
   follow. Nothing after the assertion can fail one, so that path is settled, not unknown,
   and the task is unreachable. */
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "index_after_assertion_unreachable.c", 6, "reach_error"); }
void __VERIFIER_assert(int cond) { if (!(cond)) { reach_error(); } }
extern double __VERIFIER_nondet_double(void);

const double table[4] = {0.0, 0.5, 0.75, 0.875};
double looked_up;

int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x >= 0.0 && x < 4.0)) abort();
  __VERIFIER_assert(x * 0.25 < 1.0);
  int i = (int)x;
  looked_up = table[i];
  return 0;
}
