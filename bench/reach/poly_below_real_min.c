/* poly_below_real_min.c: CPBPV_FP's polynomial (a^2 + b + 1e-5)c below its real minimum (bench/reach corpus for fpscout reach).
 *
 * Models: CPBPV_FP's polynomial (a*a + b + 1e-5)*c, a, c in [1e3, 1e4], b in [0, 1];
 * suspicious values below the real minimum 1000000000.01 (compared in double).
 * Expected: reachable.
 * Why: over the reals the minimum is (1e6 + 1e-5)*1e3 = 1000000000.01, so nothing is below it.
 * In floats 1e6 + 1e-5 rounds to 1e6 (spacing 0.0625) and 1e6 * 1e3 = 1e9 is exact:
 * the float result 1e9 lies below the real minimum.
 * Witness: a, b, c = 0x1.f4p+9; 0x0p+0; 0x1.f4p+9 (1000, 0, 1000).
 * Verified: witness replay.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "poly_below_real_min.c", 15, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    float b = __VERIFIER_nondet_float();
    float c = __VERIFIER_nondet_float();
    __VERIFIER_assume(a >= 1000.0f && a <= 10000.0f && b >= 0.0f && b <= 1.0f && c >= 1000.0f && c <= 10000.0f);
    float r = (a * a + b + 1e-5f) * c;
    if ((double)r < 1000000000.01) {
        reach_error();
    }
    return 0;
}
