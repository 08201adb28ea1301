/* An old-style SV-COMP task whose own __VERIFIER_assume spins on a block of no
   instructions (float-benchs/sqrt_poly2.c does): the walk must still meet its deadline. */
extern void __VERIFIER_error(void);
extern double __VERIFIER_nondet_double(void);
void __VERIFIER_assume(int cond) {
  if (!cond) {
  LOOP:
    goto LOOP;
  }
}
int main(void) {
  double x = __VERIFIER_nondet_double();
  __VERIFIER_assume(x > 1.0);
  if (x * x < 1.0) {
    __VERIFIER_error();
  }
  return 0;
}
