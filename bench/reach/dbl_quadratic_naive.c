/* dbl_quadratic_naive.c: textbook quadratic formula loses the small root of x^2 + b x + 1 (bench/reach corpus for fpscout reach).
 *
 * Models: the small root of x^2 + b*x + 1 = 0 by the textbook formula (-b + sqrt(b^2 - 4))/2,
 * b in [1e8, 1e9]; error if root*b + 1 is off by more than 1e-3 (the real root is
 * -1/b - O(1/b^3), so root*b + 1 is about 1e-16 over the reals).
 * Expected: reachable.
 * Why: sqrt(b*b - 4) agrees with b in almost all digits and the subtraction cancels them: for
 * b = 1e8 the sqrt rounds to 1e8 - 2^-26 and the root comes out -2^-27 instead of about -1e-8,
 * so root*b + 1 = 0.2549.
 * Witness: b = 0x1.7d784p+26 (1e8).
 * Verified: witness replay.
 */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "dbl_quadratic_naive.c", 17, "reach_error"); }

int main(void) {
    double b = __VERIFIER_nondet_double();
    __VERIFIER_assume(b >= 1e8 && b <= 1e9);
    double root = (-b + sqrt(b * b - 4.0)) / 2.0;
    if (fabs(root * b + 1.0) > 1e-3) {
        reach_error();
    }
    return 0;
}
