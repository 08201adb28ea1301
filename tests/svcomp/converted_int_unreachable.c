// `(double)(k + 1)` of an integer the float solver does not follow (an offset after a
// conversion, a sum of two): a new float over int's range, enough to refute both.
extern double __VERIFIER_nondet_double(void);
extern void abort(void);
extern void __VERIFIER_error(void);

int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x >= 0.0 && x <= 100.0)) abort();
  int k = (int)x + 1;
  double y = (double)k;
  if (y > 3e9) __VERIFIER_error();
  int j = (int)x + (int)(x * 2.0); // a sum of two converted integers: not followed
  if ((double)j < -3e9) __VERIFIER_error();
  return 0;
}
