/* guarded_stream_unreachable.c as CPAchecker's reducer writes it: a guard's failure sets
   a flag, and the block testing the flag, which the passing inputs reach too, returns.
   The failing direction is quiet only when followed through the flag's test. */
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "flag_guard_stream_unreachable.c", 6, "reach_error"); }
void __VERIFIER_assert(int cond) { if (!(cond)) { reach_error(); } }
extern float __VERIFIER_nondet_float(void);

int main(void) {
  float last = 0.0f;
  int i = 0;
  int ok;
  while (i < 40) {
    float x = __VERIFIER_nondet_float();
    if (x >= 0.0f) {
      if (x <= 1.0f) {
        ok = 1;
      } else {
        ok = 0;
      }
    } else {
      ok = 0;
    }
    if (ok != 0) {
      last = 3.0f * x - 1.0f;
      i = i + 1;
    } else {
      return 0;
    }
  }
  __VERIFIER_assert(last <= 2.0f);
  return 0;
}
