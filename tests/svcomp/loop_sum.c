/* A nondet call inside a loop: three inputs from one call site, each assumed in [0, 1];
   their float sum never exceeds 3, so reach_error is unreachable. */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "loop_sum.c", 6, "reach_error"); }
int main(void) {
  float sum = 0.0f;
  for (int i = 0; i < 3; i++) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 0.0f && x <= 1.0f);
    sum += x;
  }
  if (sum > 3.0f) reach_error();
  return 0;
}
