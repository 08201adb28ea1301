/* heron_high.c: CPBPV_FP's Heron squared area above 156.25 + 1e-5 (bench/reach corpus for fpscout reach).
 *
 * Models: the Heron squared area of heron_low.c; suspicious values above 156.25 + 1e-5.
 * Expected: reachable.
 * Why: over the reals the maximum is 156.25 (b = c = 5, a = 5*sqrt(2), area 12.5). Near it the
 * float spacing is 2^-16 = 1.5e-5 and the four rounded factors can push the product a few
 * spacings above 156.25 (CPBPV_FP reports witnesses above 156.25001).
 * Witness: a, b, c = 0x1.c48cdcp+2; 0x1.4p+2; 0x1.4p+2 (squared area 156.250107).
 * Verified: witness replay (found by random search near the real maximiser).
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "heron_high.c", 14, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    float b = __VERIFIER_nondet_float();
    float c = __VERIFIER_nondet_float();
    /* a is the longest side; the triangle inequality is checked in float, as a program would */
    __VERIFIER_assume(a >= 5.0f && a <= 10.0f && b >= 0.0f && b <= 5.0f && c >= 0.0f && c <= 5.0f);
    __VERIFIER_assume(a >= b && a >= c && a <= b + c);
    float s = (a + b + c) / 2.0f;
    float area2 = s * (s - a) * (s - b) * (s - c);
    if ((double)area2 > 156.25 + 1e-5) {
        reach_error();
    }
    return 0;
}
