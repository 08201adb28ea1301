/* sqrt_roundtrip.c: sqrt(x)^2 != x for x in [1, 4] (bench/reach corpus for fpscout reach).
 *
 * Models: squaring a computed square root, r = sqrtf(x); r*r compared with x.
 * Expected: reachable.
 * Why: over the reals sqrt(x)^2 == x always; in floats sqrtf(2) = 0x1.6a09e6p+0 and its
 * square rounds to 0x1.fffffep+0, not 2.
 * Witness: x = 0x1p+1 (2).
 * Verified: exhaustive-range over [1, 4] and witness replay.
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "sqrt_roundtrip.c", 14, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 1.0f && x <= 4.0f);
    float r = sqrtf(x);
    if (r * r != x) {
        reach_error();
    }
    return 0;
}
