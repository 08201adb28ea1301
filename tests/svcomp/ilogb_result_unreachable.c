// Integer results of C library calls (ilogb here; lrint, scalbn, fetestexcept… too) are
// fresh variables of the float solver: the target is out of reach whatever ilogb returns.
extern double __VERIFIER_nondet_double(void);
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error(void) { __assert_fail("0", "ilogb_result_unreachable.c", 5, "reach_error"); }
extern int ilogb(double);

int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x >= 1.0 && x <= 8.0)) abort();
  int e = ilogb(x);
  if (e > 100 && x * 2.0 < 1.0) reach_error();
  return 0;
}
