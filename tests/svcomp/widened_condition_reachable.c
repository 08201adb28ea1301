/* A comparison kept as C's int, widened to long (a sign extension of the int) and
   tested later: l == 1 means x < 1, and x in (0.5, 1) reaches the error. */
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double();
  int c = x < 1.0;
  long l = c;
  if (l == 1 && x > 0.5) __VERIFIER_error();
  return 0;
}
