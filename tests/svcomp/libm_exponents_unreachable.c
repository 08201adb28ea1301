/* ilogb and frexp's exponent of a normal argument are its exponent field: exact in the
   float solver, so that assertions about them are refuted. */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
extern void abort(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x >= 1.0 && x < 2.0)) abort();
  if (ilogb(x) != 0) __VERIFIER_error();
  int e;
  double m = frexp(x, &e);
  if (e != 1 || m >= 1.0) __VERIFIER_error();
  double y = __VERIFIER_nondet_double();
  if (!(y <= -0x1p-1000 && y >= -0x1p-900)) return 0;
  if (ilogb(y) < -1000 || ilogb(y) > -900) __VERIFIER_error();
  return 0;
}
