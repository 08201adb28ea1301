/* newton_recip_bound.c: five division-free Newton steps for 1/a, |a*y - 1| bounded by 2^-23 (bench/reach corpus for fpscout reach).
 *
 * Models: the reciprocal iteration y = y*(2 - a*y) from y0 = 0.75 for a in [1, 2], 5 steps.
 * Expected: unreachable.
 * Why: the real residual e = 1 - a*y starts in [-0.5, 0.25] and squares each step
 * (0.5^32 after 5), so only rounding is left; the exhaustive run shows |a*y - 1| never
 * exceeds 2^-23 (maximum exactly 2^-23 at a = 0x1.4019b2p+0).
 * Verified: exhaustive-range over [1, 2].
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "newton_recip_bound.c", 14, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    __VERIFIER_assume(a >= 1.0f && a <= 2.0f);
    float y = 0.75f;
    for (int i = 0; i < 5; i++) {
        y = y * (2.0f - a * y);
    }
    if (fabsf(a * y - 1.0f) > 0x1p-23f) {
        reach_error();
    }
    return 0;
}
