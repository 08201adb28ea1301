/* cancel_err_bound.c: error of a recovered increment (x + 0.001) - x, x in [1, 2], bounded by 1e-7 (bench/reach corpus for fpscout reach).
 *
 * Models: recovering a small increment by cancellation, d = (x + 0.001f) - x, x in [1, 2].
 * Expected: unreachable.
 * Why: d - 0.001f is exact (Sterbenz: d and 0.001f within a factor 2) and equals the rounding
 * error of x + 0.001f, at most half a spacing of the sum: 2^-24 below 2, 2^-23 = 1.19e-7 once
 * the sum reaches [2, 4). That classical bound does not settle the threshold 1e-7; the
 * exhaustive run does: the largest error is 0x1.378p-24 = 7.25e-8 (at x = 0x1.ffbe78p+0),
 * so the float answer is tighter than the textbook bound.
 * Verified: exhaustive-range over [1, 2].
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "cancel_err_bound.c", 16, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 1.0f && x <= 2.0f);
    float d = (x + 0.001f) - x;
    if (fabsf(d - 0.001f) > 1e-7f) {
        reach_error();
    }
    return 0;
}
