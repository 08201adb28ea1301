/* x*41 == 1 for x in [0.01, 0.1] (reachable; see bench/reach/recip41_*.c), with the error
   function of many SV-COMP files: reach_error() { abort(); }. An abort elsewhere
   (assume_abort_if_not, for inputs outside the range) is not the error. */
extern void abort(void);
extern float __VERIFIER_nondet_float(void);
void reach_error() { abort(); }
void assume_abort_if_not(int cond) {
  if (!cond)
    abort();
}
int main(void) {
  float x = __VERIFIER_nondet_float();
  assume_abort_if_not(x >= 0.01f && x <= 0.1f);
  if (x * 41.0f == 1.0f)
    reach_error();
  return 0;
}
