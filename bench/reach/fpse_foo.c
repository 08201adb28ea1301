/* fpse_foo.c: FPSE's absorption example foo, x in (0, 10000) (bench/reach corpus for fpscout reach).
 *
 * Models: a small positive x added to a huge constant, then compared with the constant.
 * Expected: unreachable.
 * Why: 1e12f = 0x1.d1a94ap+39 lies in [2^39, 2^40), where binary32 spacing is 2^16 = 65536.
 * Every x in (0, 10000) is below half a spacing (32768), so x + 1e12f rounds back to 1e12f
 * and the strict comparison is false. Over the reals x + 1e12 > 1e12 for every x > 0: a
 * real-valued solver says sat, the float program says no (FPSE; DESIGN.md section 2).
 * Verified: exhaustive-range, every float of (0, 10000).
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "fpse_foo.c", 14, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x > 0.0f && x < 10000.0f);
    if (x + 1e12f > 1e12f) {
        reach_error();
    }
    return 0;
}
