/* fpse_foo_nolower.c: FPSE's foo exactly as stated there: only x < 10000 (bench/reach corpus for fpscout reach).
 *
 * Models: FPSE's foo without a lower bound on x (X < 10000 and X + 1e12 > 1e12).
 * Expected: unreachable.
 * Why: for 0 < x < 10000 absorption as in fpse_foo.c; for x <= 0 (including -0 and -inf)
 * x + 1e12f <= 1e12f by monotonic rounding; NaN fails the assumption (and every comparison).
 * Verified: exhaustive over all 2^32 bit patterns.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "fpse_foo_nolower.c", 12, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x < 10000.0f);
    if (x + 1e12f > 1e12f) {
        reach_error();
    }
    return 0;
}
