/* assoc_mul_neq.c: float multiplication is not associative: (a*b)*c != a*(b*c) (bench/reach corpus for fpscout reach).
 *
 * Models: two orders of a product of three values in [0.1, 10].
 * Expected: reachable.
 * Why: 1/3 rounded times 3 rounds to exactly 1, while 3*0.1f rounds first; the two products
 * of (1/3)f, 3, 0.1f differ in the last place. Over the reals they are equal.
 * Witness: a, b, c = 0x1.555556p-2; 0x1.8p+1; 0x1.99999ap-4.
 * Verified: witness replay.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "assoc_mul_neq.c", 13, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    float b = __VERIFIER_nondet_float();
    float c = __VERIFIER_nondet_float();
    __VERIFIER_assume(a >= 0.1f && a <= 10.0f && b >= 0.1f && b <= 10.0f && c >= 0.1f && c <= 10.0f);
    if ((a * b) * c != a * (b * c)) {
        reach_error();
    }
    return 0;
}
