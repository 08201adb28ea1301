/* fpse_g1.c: FPSE's g1: ((x + 1e30) - 1e30) - 1e-30 with a tiny x (bench/reach corpus for fpscout reach).
 *
 * Models: FPSE's g1, X = ((2e-30 + 1e30) - 1e30) - 1e-30, generalised to x in [1e-30f, 3e-30f].
 * Expected: unreachable.
 * Why: x is absorbed by 1e30f (spacing there is 2^76), so (x + 1e30f) - 1e30f == 0 exactly
 * and the result is -1e-30f = -1.0000000031710769e-30 for every such x, FPSE's float answer.
 * The error fires only if the result differs from that value.
 * Verified: exhaustive-range over [0x1.4484cp-100, 0x1.e6c72p-99] (1e-30f .. 3e-30f).
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "fpse_g1.c", 13, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 1e-30f && x <= 3e-30f);
    float y = ((x + 1e30f) - 1e30f) - 1e-30f;
    if (y != -1.0000000031710769e-30f) {
        reach_error();
    }
    return 0;
}
