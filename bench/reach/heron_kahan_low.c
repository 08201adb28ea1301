/* heron_kahan_low.c: optimised (Kahan) Heron squared area never below -1e-5 (bench/reach corpus for fpscout reach).
 *
 * Models: an optimised Heron formula (Kahan's ordering of Heron's product,
 * (a+(b+c))(c-(a-b))(c+(a-b))(a+(b-c))/16 with a >= b >= c), same ranges as heron_low.c;
 * suspicious values below -1e-5.
 * Expected: unreachable.
 * Why: if b < a/2 then a - b rounds to at least a/2 > b >= c and the assumption a - b <= c
 * fails; so b >= a/2 and a - b is exact (Sterbenz). Then c - (a - b) >= 0 is a rounded
 * non-negative value, every other factor is non-negative, and so is the product: the naive
 * formula's negative results (heron_low.c) are gone.
 * Verified: proof (above); the checker adds a bounded random and boundary search (evidence).
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "heron_kahan_low.c", 16, "reach_error"); }

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
    if ((double)area2 < -1e-5) {
        reach_error();
    }
    return 0;
}
