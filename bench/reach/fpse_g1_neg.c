/* fpse_g1_neg.c: FPSE's g1 turned around: a result negative over floats, positive over reals (bench/reach corpus for fpscout reach).
 *
 * Models: y = ((x + 1e30f) - 1e30f) - 1e-30f for x in [2e-30f, 3e-30f]; error if y < 0.
 * Expected: reachable.
 * Why: over the reals y = x - 1e-30 >= 1e-30 > 0, so a real-valued solver proves it
 * unreachable; over floats x is absorbed by 1e30f and y = -1e-30f < 0 for every admitted x.
 * Witness: x = 0x1.4484cp-99 (2e-30f, FPSE's g1 input).
 * Verified: exhaustive-range (every admitted float reaches) and witness replay.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "fpse_g1_neg.c", 13, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 2e-30f && x <= 3e-30f);
    float y = ((x + 1e30f) - 1e30f) - 1e-30f;
    if (y < 0.0f) {
        reach_error();
    }
    return 0;
}
