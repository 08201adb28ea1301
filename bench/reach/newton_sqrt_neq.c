/* newton_sqrt_neq.c: four Newton steps for sqrt(a) differ from the correctly rounded sqrtf (bench/reach corpus for fpscout reach).
 *
 * Models: the same Newton iteration as newton_sqrt_bound.c compared with sqrtf(a).
 * Expected: reachable.
 * Why: Newton's fixed point in float arithmetic is not always the correctly rounded root:
 * y + a/y and the halving round independently, so the iteration can settle one spacing away
 * (4195167 of the 16777217 floats in [1, 4], about a quarter, end one spacing off).
 * Witness: a = 0x1.fffffep+1.
 * Verified: exhaustive-range over [1, 4] and witness replay.
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "newton_sqrt_neq.c", 15, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    __VERIFIER_assume(a >= 1.0f && a <= 4.0f);
    float y = 1.5f;
    for (int i = 0; i < 4; i++) {
        y = 0.5f * (y + a / y);
    }
    if (y != sqrtf(a)) {
        reach_error();
    }
    return 0;
}
