/* assoc_add_neq.c: float addition is not associative: (a+b)+c != a+(b+c) (bench/reach corpus for fpscout reach).
 *
 * Models: two summation orders of three values in [1, 2].
 * Expected: reachable.
 * Why: each order rounds a different intermediate sum, so the results can differ by a
 * spacing of [4, 8) (2^-21); over the reals they are always equal.
 * Witness: a, b, c = 0x1.575f82p+0; 0x1.54c034p+0; 0x1.caffe6p+0 (difference 2^-21).
 * Verified: witness replay (found by a random search of 2e8 triples).
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "assoc_add_neq.c", 13, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    float b = __VERIFIER_nondet_float();
    float c = __VERIFIER_nondet_float();
    __VERIFIER_assume(a >= 1.0f && a <= 2.0f && b >= 1.0f && b <= 2.0f && c >= 1.0f && c <= 2.0f);
    if ((a + b) + c != a + (b + c)) {
        reach_error();
    }
    return 0;
}
