/* A deterministic task in long double, which the interpreter does not model: ten
   additions of 0.1L are not 1.0L in x87 extended precision, so the one run of the
   executable reaches reach_error. */
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "tenth_sum_long_double_det.c", 5, "reach_error"); }
void __VERIFIER_assert(int cond) { if (!cond) { reach_error(); } }
int main() {
  long double s = 0.0L;
  for (int i = 0; i < 10; i++) {
    s += 0.1L;
  }
  __VERIFIER_assert(s == 1.0L);
  return 0;
}
