// The float solver's fresh ilogb result admits every int; the solution it finds counts
// once the executable, with the real ilogb, fails the assertion.
extern double __VERIFIER_nondet_double(void);
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error(void) { __assert_fail("0", "ilogb_result_reachable.c", 5, "reach_error"); }
extern int ilogb(double);

int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x > 4.25 && x < 4.5)) abort();
  if (ilogb(x) == 2) reach_error();
  return 0;
}
