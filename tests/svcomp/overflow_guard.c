/* Old-style SV-COMP program: nondet_float/nondet_double and __VERIFIER_error called
   without declarations (clang 19 rejects implicit declarations; fpscout's prelude
   declares them). P reaches the error when a*a overflows; P' (-ffast-math) assumes no
   infinities, folds isinf to 0 and returns 1. */
#include <math.h>
int main() {
  double a = nondet_double();
  float b = nondet_float();
  if (a > 1e300 && b > 1e30f) {
    double c = a * a;
    if (isinf(c)) { __VERIFIER_error(); }
  }
  return 1;
}
