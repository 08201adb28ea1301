/* slope_far.c: CPBPV_FP's slope: central difference of x^2 at 13 far above 26 (bench/reach corpus for fpscout reach).
 *
 * Models: CPBPV_FP's slope example, (f(x0+h) - f(x0-h)) / (2h), f(x) = x*x, x0 = 13,
 * h in [1e-6, 1e-3]; error if the slope exceeds 27 (the exact value is 26 for every h).
 * Expected: reachable.
 * Why: near 13 the float spacing is 2^-20 ~ 9.5e-7, so x0 +- h is rounded by up to half a
 * spacing and f(x0 +- h) near 169 by 2^-17; dividing the difference by 2h ~ 2e-6 magnifies
 * these errors. The float slope ranges over [19.2000008, 32].
 * Witness: h = 0x1.8p-20 (slope 32).
 * Verified: exhaustive-range over [1e-6f, 1e-3f] and witness replay.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "slope_far.c", 15, "reach_error"); }

int main(void) {
    float h = __VERIFIER_nondet_float();
    __VERIFIER_assume(h >= 1e-6f && h <= 1e-3f);
    float x0 = 13.0f;
    float fp = (x0 + h) * (x0 + h);
    float fm = (x0 - h) * (x0 - h);
    float slope = (fp - fm) / (2.0f * h);
    if (slope > 27.0f) {
        reach_error();
    }
    return 0;
}
