/* A deterministic task in long double whose assertion holds (quarters add exactly): the
   executable's one run returns, but without the interpreter that proves nothing (an
   uninitialized read could go another way in another execution), so it stays unknown. */
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "quarter_sum_long_double_det.c", 5, "reach_error"); }
void __VERIFIER_assert(int cond) { if (!cond) { reach_error(); } }
int main() {
  long double s = 0.0L;
  for (int i = 0; i < 4; i++) {
    s += 0.25L;
  }
  __VERIFIER_assert(s == 1.0L);
  return 0;
}
