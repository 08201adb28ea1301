/* sqrt_monotone.c: correctly rounded sqrt is monotonic (bench/reach corpus for fpscout reach).
 *
 * Models: two non-negative finite inputs x <= y; error if sqrtf(x) > sqrtf(y).
 * Expected: unreachable.
 * Why: the real square root is increasing and round-to-nearest is monotonic, so the correctly
 * rounded sqrtf (IEEE 754 requires it) is non-decreasing.
 * Verified: proof (above); the checker adds a bounded random and boundary search (evidence).
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "sqrt_monotone.c", 13, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    float y = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 0.0f && y <= 0x1.fffffep127f && x <= y);
    if (sqrtf(x) > sqrtf(y)) {
        reach_error();
    }
    return 0;
}
