/* heron_high_1e3.c: CPBPV_FP's Heron squared area never above 156.25 + 1e-3 (bench/reach corpus for fpscout reach).
 *
 * Models: the Heron squared area of heron_low.c; suspicious values above 156.25 + 1e-3.
 * Expected: unreachable.
 * Why: CPBPV_FP refutes this interval. Sketch: where the area is near its maximum the factors
 * s, s-a, s-b, s-c are all bounded away from 0 (about 8.5, 1.5, 3.5, 3.5), so the rounding of
 * s (at most 2 half-spacings of [8, 16), i.e. 2^-20) perturbs each factor by a relative
 * 1e-6 at most and the seven roundings add ~7*2^-24: the product exceeds 156.25 by a few
 * times 1e-4 at most, while far from the maximum the real value is lower by more than that.
 * This is an argument, not a machine-checked proof. Evidence: an exhaustive scan of every
 * float a in [7.05, 7.09] with b, c each among the 128 floats at or below 5 found at most
 * 156.250107 (excess 1.07e-4), and the checker's random and boundary search finds nothing.
 * Verified: paper (CPBPV_FP), with the evidence above.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "heron_high_1e3.c", 18, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    float b = __VERIFIER_nondet_float();
    float c = __VERIFIER_nondet_float();
    /* a is the longest side; the triangle inequality is checked in float, as a program would */
    __VERIFIER_assume(a >= 5.0f && a <= 10.0f && b >= 0.0f && b <= 5.0f && c >= 0.0f && c <= 5.0f);
    __VERIFIER_assume(a >= b && a >= c && a <= b + c);
    float s = (a + b + c) / 2.0f;
    float area2 = s * (s - a) * (s - b) * (s - c);
    if ((double)area2 > 156.25 + 1e-3) {
        reach_error();
    }
    return 0;
}
