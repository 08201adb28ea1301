/* dbl_quadratic_stable.c: cancellation-free quadratic formula keeps the small root of x^2 + b x + 1 (bench/reach corpus for fpscout reach).
 *
 * Models: the small root of x^2 + b*x + 1 = 0 computed as -2/(b + sqrt(b^2 - 4)), b in
 * [1e8, 1e9]; the same check as dbl_quadratic_naive.c.
 * Expected: unreachable.
 * Why: b*b - 4, the sqrt, the sum of two positive numbers and the division each add a
 * relative error of at most 2^-53 (no cancellation anywhere), so root = r(1 + t) with
 * |t| < 5*2^-53 where r = -2/(b + sqrt(b^2 - 4)) satisfies |r*b + 1| < 1e-15; the product
 * root*b adds one more rounding: |root*b + 1| < 1e-14, far below 1e-3.
 * Verified: proof (above); the checker adds a bounded random and boundary search (evidence).
 */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "dbl_quadratic_stable.c", 16, "reach_error"); }

int main(void) {
    double b = __VERIFIER_nondet_double();
    __VERIFIER_assume(b >= 1e8 && b <= 1e9);
    double root = -2.0 / (b + sqrt(b * b - 4.0));
    if (fabs(root * b + 1.0) > 1e-3) {
        reach_error();
    }
    return 0;
}
