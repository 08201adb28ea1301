/* slope_bound.c: CPBPV_FP's slope stays within [19, 32] for h in [1e-6, 1e-3] (bench/reach corpus for fpscout reach).
 *
 * Models: the slope example of slope_far.c with the float-exact tolerance band.
 * Expected: unreachable.
 * Why: enumerating every h shows the computed slope lies in [19.2000008, 32] (minimum at
 * h = 0x1.4p-19, maximum 32 at h = 0x1.8p-20), so slope < 19 or slope > 32 never happens,
 * although the band is far wider than any real-number tolerance around 26.
 * Verified: exhaustive-range over [1e-6f, 1e-3f].
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "slope_bound.c", 13, "reach_error"); }

int main(void) {
    float h = __VERIFIER_nondet_float();
    __VERIFIER_assume(h >= 1e-6f && h <= 1e-3f);
    float x0 = 13.0f;
    float fp = (x0 + h) * (x0 + h);
    float fm = (x0 - h) * (x0 - h);
    float slope = (fp - fm) / (2.0f * h);
    if (slope < 19.0f || slope > 32.0f) {
        reach_error();
    }
    return 0;
}
