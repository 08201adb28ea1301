/* heron_low.c: CPBPV_FP's Heron squared area below -1e-5 (bench/reach corpus for fpscout reach).
 *
 * Models: CPBPV_FP's Heron example, squared area s(s-a)(s-b)(s-c), s = (a+b+c)/2,
 * a in [5, 10], b, c in [0, 5], a the longest side; suspicious values below -1e-5.
 * Expected: reachable.
 * Why: over the reals the squared area of a triangle is >= 0. For flat triangles (a close to
 * b + c) s - a is a tiny difference of rounded values and can come out negative, and the
 * product with three factors of size ~5 magnifies it below -1e-5 (CPBPV_FP reports such
 * witnesses).
 * Witness: a, b, c = 0x1.fffeb8p+2; 0x1.03549ap+2; 0x1.f9543ap+1 (squared area -6.1e-5).
 * Verified: witness replay (found by a random search over flat triangles).
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "heron_low.c", 16, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    float b = __VERIFIER_nondet_float();
    float c = __VERIFIER_nondet_float();
    /* a is the longest side; the triangle inequality is checked in float, as a program would */
    __VERIFIER_assume(a >= 5.0f && a <= 10.0f && b >= 0.0f && b <= 5.0f && c >= 0.0f && c <= 5.0f);
    __VERIFIER_assume(a >= b && a >= c && a <= b + c);
    float s = (a + b + c) / 2.0f;
    float area2 = s * (s - a) * (s - b) * (s - c);
    if ((double)area2 < -1e-5) {
        reach_error();
    }
    return 0;
}
