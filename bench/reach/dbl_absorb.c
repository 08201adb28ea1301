/* dbl_absorb.c: binary64 absorption: x + 1e20 > 1e20 for some x in (0, 1e4) (bench/reach corpus for fpscout reach).
 *
 * Models: FPSE's foo in double with 1e20: x in (0, 10000), error if x + 1e20 > 1e20.
 * Expected: reachable.
 * Why: 1e20 lies in [2^66, 2^67), where binary64 spacing is 2^14 = 16384; x above half of it
 * (8192) rounds the sum up to the next double, so the comparison holds for x in (8192, 1e4).
 * Witness: x = 0x1.194p+13 (9000).
 * Verified: witness replay; the checker's search also reports how many samples reach.
 */
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "dbl_absorb.c", 13, "reach_error"); }

int main(void) {
    double x = __VERIFIER_nondet_double();
    __VERIFIER_assume(x > 0.0 && x < 10000.0);
    if (x + 1e20 > 1e20) {
        reach_error();
    }
    return 0;
}
