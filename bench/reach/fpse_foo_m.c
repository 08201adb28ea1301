/* fpse_foo_m.c: FPSE's foo_m: a positive x absorbed by 1e12f (bench/reach corpus for fpscout reach).
 *
 * Models: the mirror of foo: x > 0 and x + 1e12f == 1e12f.
 * Expected: reachable.
 * Why: unsatisfiable over the reals (x > 0 makes x + 1e12 > 1e12) but x + 1e12f rounds to
 * 1e12f for every float x in (0, 32768): 32768 is half the spacing 65536 at 1e12f. FPSE
 * reports the interval [1.401298464324817e-45, 32768.0], a sound hull but not tight: at
 * x = 32768 the sum is a tie and ties go to the even neighbour, and 1e12f (bits 0x5368d4a5)
 * has an odd significand, so 1e12f + 32768 rounds up to 1e12f + 65536. The solutions are the
 * 0x47000000 - 1 = 1191182335 floats of [0x1p-149, 0x1.fffffep+14], the count the checker
 * expects.
 * Witness: x = 0x1.fffffep+14 (largest solution; 0x1p-149 works too).
 * Verified: exhaustive-range over (0, +inf] with reaching count 1191182335, and witness replay.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "fpse_foo_m.c", 18, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x > 0.0f);
    if (x + 1e12f == 1e12f) {
        reach_error();
    }
    return 0;
}
