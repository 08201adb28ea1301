/* sqrt_square_exact.c: sqrt(x*x) == x for x in [2^-63, 2^63] (bench/reach corpus for fpscout reach).
 *
 * Models: a norm of a one-element vector, sqrtf(x*x), compared with x.
 * Expected: unreachable.
 * Why: in binary floating point with round-to-nearest, sqrt(RN(x*x)) rounds back to |x|
 * whenever x*x neither overflows nor underflows (a classical result, e.g. Boldo's formal
 * proofs on square roots); here x*x lies in [2^-126, 2^126], inside the normal range.
 * Verified: exhaustive-range over [0x1p-63, 0x1p+63].
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "sqrt_square_exact.c", 14, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 0x1p-63f && x <= 0x1p63f);
    if (sqrtf(x * x) != x) {
        reach_error();
    }
    return 0;
}
