/* sqrt_square_underflow.c: sqrt(x*x) != x for tiny x, where x*x underflows (bench/reach corpus for fpscout reach).
 *
 * Models: sqrtf(x*x) with x in (0, 2^-63]: the same identity as sqrt_square_exact.c taken
 * into the subnormal range.
 * Expected: reachable.
 * Why: x*x falls below the normal range 2^-126 and is rounded to a subnormal (or to 0 when
 * below 2^-150), losing bits, so the square root no longer returns x. Over the reals the
 * identity always holds.
 * Witness: x = 0x1p-100 (x*x = 2^-200 rounds to 0).
 * Verified: exhaustive-range over (0, 2^-63] and witness replay.
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "sqrt_square_underflow.c", 16, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x > 0.0f && x <= 0x1p-63f);
    if (sqrtf(x * x) != x) {
        reach_error();
    }
    return 0;
}
