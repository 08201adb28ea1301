/* heron_kahan_high.c: optimised (Kahan) Heron squared area still above 156.25 + 1e-5 (bench/reach corpus for fpscout reach).
 *
 * Models: the optimised Heron formula of heron_kahan_low.c; suspicious values above
 * 156.25 + 1e-5.
 * Expected: reachable.
 * Why: Kahan's ordering removes cancellation but not rounding: near the maximum 156.25 one
 * spacing is 1.5e-5 > 1e-5, and the result can land one spacing above (156.250015).
 * Witness: a, b, c = 0x1.c484a8p+2; 0x1.4p+2; 0x1.4p+2.
 * Verified: witness replay (found by random search).
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "heron_kahan_high.c", 14, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    float b = __VERIFIER_nondet_float();
    float c = __VERIFIER_nondet_float();
    __VERIFIER_assume(a >= 5.0f && a <= 10.0f && b >= 0.0f && b <= 5.0f && c >= 0.0f && c <= 5.0f);
    /* a is the longest side; triangle inequality written as differences, as Kahan advises */
    __VERIFIER_assume(a >= b && a >= c && a - b <= c && a - c <= b);
    if (b < c) {
        float t = b;
        b = c;
        c = t;
    }
    /* Kahan: with a >= b >= c, (c - (a - b)) has no harmful cancellation */
    float area2 = ((a + (b + c)) * (c - (a - b)) * (c + (a - b)) * (a + (b - c))) / 16.0f;
    if ((double)area2 > 156.25 + 1e-5) {
        reach_error();
    }
    return 0;
}
