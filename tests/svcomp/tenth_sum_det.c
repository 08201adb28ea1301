/* A deterministic task (no nondet call): ten additions of 0.1f make 1.0000001f, not
   1.0f, so the one run reaches reach_error. */
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "tenth_sum_det.c", 4, "reach_error"); }
void __VERIFIER_assert(int cond) { if (!cond) { reach_error(); } }
int main() {
  float s = 0.0f;
  for (int i = 0; i < 10; i++) {
    s += 0.1f;
  }
  __VERIFIER_assert(s == 1.0f);
  return 0;
}
