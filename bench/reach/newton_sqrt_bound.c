/* newton_sqrt_bound.c: four Newton steps for sqrt(a), residual bounded by 2^-22 (bench/reach corpus for fpscout reach).
 *
 * Models: Heron/Newton iteration y = (y + a/y)/2 from y0 = 1.5 for a in [1, 4], 4 steps.
 * Expected: unreachable.
 * Why: the starting relative error (1.5 - sqrt(a))/sqrt(a) lies in [-1/4, 1/2] and Newton
 * squares it each step (e' = e^2/(2(1+e)): 1/2, 8e-2, 3e-3, 5e-6, 1e-11), so after 4 steps
 * the real iterate's error is far below float
 * precision and only rounding remains: the last step's rounding leaves y within a spacing of
 * sqrt(a), and y*y - a then stays within 2^-22; the exhaustive run confirms the maximum is
 * exactly 2^-22 (at a = 0x1.002004p+0), so the strict test never fires.
 * Verified: exhaustive-range over [1, 4].
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "newton_sqrt_bound.c", 17, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    __VERIFIER_assume(a >= 1.0f && a <= 4.0f);
    float y = 1.5f;
    for (int i = 0; i < 4; i++) {
        y = 0.5f * (y + a / y);
    }
    if (fabsf(y * y - a) > 0x1p-22f) {
        reach_error();
    }
    return 0;
}
