/* recip55_no_float.c: x*55 == 1 has a real solution but no float one (bench/reach corpus for fpscout reach).
 *
 * Models: solving x*55 == 1 for x in [0.01, 0.1].
 * Expected: unreachable.
 * Why: over the reals x = 1/55. In floats x*55 jumps past 1: the products of the floats next
 * to 1/55 round to 1 - 2^-24 and 1 + 2^-23, never to 1 (k = 55 is the smallest integer
 * factor >= 3 with no float solution).
 * Verified: exhaustive-range over [1e-2f, 1e-1f].
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "recip55_no_float.c", 13, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 0.01f && x <= 0.1f);
    if (x * 55.0f == 1.0f) {
        reach_error();
    }
    return 0;
}
