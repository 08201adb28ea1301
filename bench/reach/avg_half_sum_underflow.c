/* avg_half_sum_underflow.c: the average x/2 + y/2 outside [x, y] through underflow (bench/reach corpus for fpscout reach).
 *
 * Models: Ariadne's av2 = x/2 + y/2, the overflow-safe rewrite of av1, for |x|, |y| <= 1e30f.
 * Expected: reachable.
 * Why: halving the smallest subnormal 2^-149 is a tie between 0 and 2^-149 and goes to the
 * even 0, so for x = y = 2^-149 the average is 0 < min(x, y). The rewrite trades overflow
 * for underflow; over the reals it cannot happen.
 * Witness: x, y = 0x1p-149; 0x1p-149.
 * Verified: witness replay.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "avg_half_sum_underflow.c", 14, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    float y = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= -1e30f && x <= 1e30f && y >= -1e30f && y <= 1e30f);
    float lo = x < y ? x : y;
    float hi = x < y ? y : x;
    float m = x / 2.0f + y / 2.0f;
    if (m < lo || m > hi) {
        reach_error();
    }
    return 0;
}
