/* A libm call on a float input: log(x) in (700, 700.001) needs x within a relative
   0.1% of e^700 (about 1.0e304), which random testing does not meet; the float solver
   projects the comparisons back through glibc's log (its error-bound enclosure) and
   finds x. The error is reachable, and the witness fails natively. */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_error(void);
int main() {
  double x = __VERIFIER_nondet_double();
  double y = log(x);
  if (y > 700.0 && y < 700.001) __VERIFIER_error();
  return 0;
}
