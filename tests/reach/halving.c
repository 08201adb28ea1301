/* A loop whose trip count depends on the input: halve x until it is at most 1. After the
   loop x <= 1 on every path, so reach_error is unreachable; with inputs up to 2^20 the
   loop runs up to 20 times, so a loop bound below that refutes only the paths within it. */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void reach_error(void);
int main(void) {
  float x = __VERIFIER_nondet_float();
  __VERIFIER_assume(x >= 0.0f && x <= 1048576.0f);
  while (x > 1.0f)
    x = x / 2.0f;
  if (x > 1.0f)
    reach_error();
  return 0;
}
