/* An old-style SV-COMP task that defines its own nondet function returning an
   uninitialized local (as float-benchs/cast_float_ptr.c does): the walks see 0 there,
   an execution may see a NaN, on which the error is reached. */
extern void __VERIFIER_error(void);
double __VERIFIER_nondet_double(void) {
  double val;
  return val;
}
int main(void) {
  double d = __VERIFIER_nondet_double();
  if (!(d > 1e300) && !(-d > 1e300) && !(d <= 1e300)) {
    __VERIFIER_error();
  }
  return 0;
}
