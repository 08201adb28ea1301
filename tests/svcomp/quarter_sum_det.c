/* A deterministic task (no nondet call) with `void main()`, as older tasks write it:
   quarters add up exactly, so the one run ends without reaching reach_error:
   unreachable. */
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "quarter_sum_det.c", 4, "reach_error"); }
void __VERIFIER_assert(int cond) { if (!cond) { reach_error(); } }
void main() {
  double s = 0.0;
  for (int i = 0; i < 12; i++) {
    s += 0.25;
  }
  __VERIFIER_assert(s == 3.0);
}
