/* dbl_foo.c: binary64 absorption: x + 1e20 == 1e20 for all x in (0, 8192) (bench/reach corpus for fpscout reach).
 *
 * Models: dbl_absorb.c with x below half the spacing at 1e20.
 * Expected: unreachable.
 * Why: the spacing at 1e20 is 2^14; for 0 < x < 8192 = 2^13 the exact sum is less than half a
 * spacing above 1e20 and rounds back to it, so x + 1e20 > 1e20 is false (over the reals it is
 * true for every x > 0).
 * Verified: proof (above); the checker adds a bounded random and boundary search (evidence).
 */
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "dbl_foo.c", 13, "reach_error"); }

int main(void) {
    double x = __VERIFIER_nondet_double();
    __VERIFIER_assume(x > 0.0 && x < 8192.0);
    if (x + 1e20 > 1e20) {
        reach_error();
    }
    return 0;
}
