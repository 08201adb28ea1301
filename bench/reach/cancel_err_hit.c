/* cancel_err_hit.c: error of a recovered increment (x + 0.001) - x above 7e-8 (bench/reach corpus for fpscout reach).
 *
 * Models: as cancel_err_bound.c with threshold 7e-8, just under the true maximum.
 * Expected: reachable.
 * Why: the largest error over [1, 2] is 0x1.378p-24 = 7.2527e-8 > 7e-8, reached where x + 0.001f
 * crosses into [2, 4) and is rounded at spacing 2^-22.
 * Witness: x = 0x1.ffbe78p+0.
 * Verified: exhaustive-range over [1, 2] and witness replay.
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "cancel_err_hit.c", 14, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 1.0f && x <= 2.0f);
    float d = (x + 0.001f) - x;
    if (fabsf(d - 0.001f) > 7e-8f) {
        reach_error();
    }
    return 0;
}
