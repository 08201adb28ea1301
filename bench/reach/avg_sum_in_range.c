/* avg_sum_in_range.c: the average (x+y)/2 stays within [x, y] when nothing overflows (bench/reach corpus for fpscout reach).
 *
 * Models: av1 = (x + y)/2 for |x|, |y| <= 1e30f; error if it leaves [min, max].
 * Expected: unreachable.
 * Why: with lo <= hi, 2lo and 2hi are floats (no overflow), so RN(x + y) lies in [2lo, 2hi]
 * by monotonicity; halving gives a real value in [lo, hi] and rounding it (even into the
 * subnormals) stays in [lo, hi], again by monotonicity.
 * Verified: proof (above); the checker adds a bounded random and boundary search (evidence).
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "avg_sum_in_range.c", 13, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    float y = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= -1e30f && x <= 1e30f && y >= -1e30f && y <= 1e30f);
    float lo = x < y ? x : y;
    float hi = x < y ? y : x;
    float m = (x + y) / 2.0f;
    if (m < lo || m > hi) {
        reach_error();
    }
    return 0;
}
