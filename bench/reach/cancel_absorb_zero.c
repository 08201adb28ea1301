/* cancel_absorb_zero.c: a difference (x + 0.001) - x that should be 0.001 but is 0 (bench/reach corpus for fpscout reach).
 *
 * Models: a finite-difference step d = (x + 0.001f) - x with x in [1e4, 1e5].
 * Expected: reachable.
 * Why: over the reals d = 0.001 is never 0. For x >= 32768 the float spacing is 2^-8 and
 * 0.001 is below half of it, so x + 0.001f rounds to x and d == 0 (catastrophic
 * cancellation after absorption). Below 32768 the step survives (spacing 2^-10 or 2^-9).
 * Witness: x = 0x1p+15 (32768).
 * Verified: exhaustive-range over [1e4, 1e5] and witness replay.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "cancel_absorb_zero.c", 14, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 10000.0f && x <= 100000.0f);
    float d = (x + 0.001f) - x;
    if (d == 0.0f) {
        reach_error();
    }
    return 0;
}
