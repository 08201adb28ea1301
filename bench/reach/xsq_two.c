/* xsq_two.c: x*x == 2 has a real solution but no float one (bench/reach corpus for fpscout reach).
 *
 * Models: solving x*x == 2 for x in [1, 2].
 * Expected: unreachable.
 * Why: over the reals x = sqrt(2) works. In floats the two candidates around sqrt(2) are
 * 0x1.6a09e6p+0 and 0x1.6a09e8p+0, whose squares round to 0x1.fffffep+0 and 0x1.000002p+1:
 * squares of neighbouring floats near sqrt(2) step by about 2 spacings of 2, skipping 2.
 * Verified: exhaustive-range over [1, 2].
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "xsq_two.c", 13, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 1.0f && x <= 2.0f);
    if (x * x == 2.0f) {
        reach_error();
    }
    return 0;
}
