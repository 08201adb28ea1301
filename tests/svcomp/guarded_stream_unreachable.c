/* A fresh input per iteration, each guarded by an assumption that aborts: the guards'
   abort sides cannot fail the assertion, so they are not walked, and the input stream
   grows past one element per call site. */
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "guarded_stream_unreachable.c", 6, "reach_error"); }
void __VERIFIER_assert(int cond) { if (!(cond)) { reach_error(); } }
extern float __VERIFIER_nondet_float(void);

int main(void) {
  float last = 0.0f;
  for (int i = 0; i < 40; i++) {
    float x = __VERIFIER_nondet_float();
    if (!(x >= 0.0f && x <= 1.0f)) abort();
    last = 3.0f * x - 1.0f;
  }
  __VERIFIER_assert(last <= 2.0f);
  return 0;
}
