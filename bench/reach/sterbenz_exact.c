/* sterbenz_exact.c: Sterbenz: x - y is exact for x, y in [1, 2] (bench/reach corpus for fpscout reach).
 *
 * Models: a subtraction of close values, checked against the exact difference in double.
 * Expected: unreachable.
 * Why: Sterbenz's lemma: if y/2 <= x <= 2y the difference x - y is a float, so rounding does
 * nothing; x, y in [1, 2] satisfy it. (double)x - (double)y is exact in binary64.
 * Verified: proof (above); the checker adds a bounded random and boundary search (evidence).
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "sterbenz_exact.c", 12, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    float y = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 1.0f && x <= 2.0f && y >= 1.0f && y <= 2.0f);
    if ((double)(x - y) != (double)x - (double)y) {
        reach_error();
    }
    return 0;
}
