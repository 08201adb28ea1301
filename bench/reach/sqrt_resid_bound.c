/* sqrt_resid_bound.c: residual |sqrt(x)^2 - x| of at most 2^-22 on [1, 4] (bench/reach corpus for fpscout reach).
 *
 * Models: the residual of a computed square root, |r*r - x| with r = sqrtf(x), x in [1, 4].
 * Expected: unreachable.
 * Why: r = sqrt(x)(1 + d1), |d1| <= 2^-24, and r*r is rounded once more, so r*r is within
 * about 3 * 2^-24 * x + half a spacing of x; r*r - x is exact (Sterbenz). The float answer is
 * sharper than that bound: the largest residual over [1, 4] is exactly 2^-22 (one spacing of
 * [2, 4)), attained at x = 0x1.000004p+1, so a strict test against 2^-22 never fires.
 * Verified: exhaustive-range over [1, 4].
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "sqrt_resid_bound.c", 15, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 1.0f && x <= 4.0f);
    float r = sqrtf(x);
    if (fabsf(r * r - x) > 0x1p-22f) {
        reach_error();
    }
    return 0;
}
