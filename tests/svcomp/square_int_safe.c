/* An integer input whose float square is never negative: reach_error is unreachable.
   The float search fixes integer inputs and random testing cannot prove anything, so
   the right answer for fpscout today is unknown (never unreachable, never reachable). */
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "square_int_safe.c", 5, "reach_error"); }
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
int main() {
  int n = __VERIFIER_nondet_int();
  __VERIFIER_assume(n >= -1000 && n <= 1000);
  float x = (float)n;
  if (x * x < 0.0f) {
    reach_error();
  }
  return 0;
}
