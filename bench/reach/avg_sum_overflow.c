/* avg_sum_overflow.c: the average (x+y)/2 outside [x, y] through overflow (bench/reach corpus for fpscout reach).
 *
 * Models: Ariadne's av1 = (x + y)/2 for any finite x, y; error if it exceeds max(x, y).
 * Expected: reachable.
 * Why: over the reals the average lies between x and y. For large x, y the sum overflows to
 * +inf before the halving.
 * Witness: x, y = 0x1.fffffep+127; 0x1.fffffep+127.
 * Verified: witness replay.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "avg_sum_overflow.c", 13, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    float y = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= -0x1.fffffep127f && x <= 0x1.fffffep127f && y >= -0x1.fffffep127f && y <= 0x1.fffffep127f);
    float hi = x > y ? x : y;
    float m = (x + y) / 2.0f;
    if (m > hi) {
        reach_error();
    }
    return 0;
}
