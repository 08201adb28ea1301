/* An integer input in the style of older SV-COMP tasks (nondet_int called without a
   declaration): n * 0.1f equals 3.0f for some n in [0, 100] only (n = 30 among them):
   reach_error is reachable. */
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "scaled_count_int.c", 5, "reach_error"); }
extern void __VERIFIER_assume(int);
int main() {
  int n = __VERIFIER_nondet_int();
  __VERIFIER_assume(n >= 0 && n <= 100);
  float x = n * 0.1f;
  if (x == 3.0f) {
    reach_error();
  }
  return 0;
}
