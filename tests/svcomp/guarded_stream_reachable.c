/* As guarded_stream_unreachable.c, but the assertion fails for the last input above
   0.99; the error function is `{ abort(); }`, like many tasks' own, so the branch that
   calls it is walked although abort() also ends the guards. */
extern void abort(void);
void reach_error() { abort(); }
void __VERIFIER_assert(int cond) { if (!(cond)) { reach_error(); } }
extern float __VERIFIER_nondet_float(void);

int main(void) {
  float last = 0.0f;
  for (int i = 0; i < 40; i++) {
    float x = __VERIFIER_nondet_float();
    if (!(x >= 0.0f && x <= 1.0f)) abort();
    if (i == 39 && x > 0.99f) reach_error();
    last = x;
  }
  __VERIFIER_assert(last <= 1.0f);
  return 0;
}
