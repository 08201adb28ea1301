/* x*55 == 1 for x in [0.01, 0.1] (unreachable), with the error function of current SV-COMP
   files, which call __assert_fail themselves, and assume_abort_if_not's abort for inputs
   outside the range (not the error). */
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *)
    __attribute__((__nothrow__, __leaf__)) __attribute__((__noreturn__));
extern float __VERIFIER_nondet_float(void);
void reach_error() { __assert_fail("0", "recip55_assert_fail.c", 8, "reach_error"); }
void assume_abort_if_not(int cond) {
  if (!cond)
    abort();
}
int main(void) {
  float x = __VERIFIER_nondet_float();
  assume_abort_if_not(x >= 0.01f && x <= 0.1f);
  if (x * 55.0f == 1.0f)
    reach_error();
  return 0;
}
