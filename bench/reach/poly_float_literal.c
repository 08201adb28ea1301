/* poly_float_literal.c: CPBPV_FP's polynomial compared with the float literal 1000000000.01f (bench/reach corpus for fpscout reach).
 *
 * Models: the polynomial of poly_below_real_min.c compared with 1000000000.01f, a float
 * literal, which rounds to 1e9 (spacing 64 there).
 * Expected: unreachable.
 * Why: rounding is monotonic: a*a >= 1e6 exactly representable, so RN(a*a) >= 1e6,
 * RN(. + b) >= 1e6, RN(. + 1e-5f) >= 1e6 and RN(. * c) >= RN(1e6 * 1e3) = 1e9. The result is
 * never below 1e9; writing the threshold in float silently removes the bug of
 * poly_below_real_min.c.
 * Verified: proof (above); the checker adds a bounded random and boundary search (evidence).
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "poly_float_literal.c", 15, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    float b = __VERIFIER_nondet_float();
    float c = __VERIFIER_nondet_float();
    __VERIFIER_assume(a >= 1000.0f && a <= 10000.0f && b >= 0.0f && b <= 1.0f && c >= 1000.0f && c <= 10000.0f);
    float r = (a * a + b + 1e-5f) * c;
    if (r < 1000000000.01f) {
        reach_error();
    }
    return 0;
}
