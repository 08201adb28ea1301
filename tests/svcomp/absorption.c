/* FPSE's foo as an SV-COMP program: x in (0, 10000) and x + 1e12 > 1e12 has real
   solutions but no float ones (1e12f absorbs every such x): reach_error is unreachable.
   The program defines reach_error itself, as current SV-COMP files do. */
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "absorption.c", 5, "reach_error"); }
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
int main(void) {
  float x = __VERIFIER_nondet_float();
  __VERIFIER_assume(x > 0.0f && x < 10000.0f);
  float y = x + 1e12f;
  if (y > 1e12f) {
    reach_error();
  }
  return 0;
}
