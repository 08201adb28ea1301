/* recip41_model_miss.c: x*41 == 1: the rounded real solution misses, its neighbour hits (bench/reach corpus for fpscout reach).
 *
 * Models: solving x*41 == 1 for x in [0.01, 0.1].
 * Expected: reachable.
 * Why: the real solution 1/41 rounds to 0x1.8f9c18p-6, and 0x1.8f9c18p-6 * 41 does not round
 * to 1; the next float up, 0x1.8f9c1ap-6, does, and it is the only float in the range that
 * does. A solver that rounds a real model to the nearest float and stops would miss it.
 * Witness: x = 0x1.8f9c1ap-6.
 * Verified: exhaustive-range over [1e-2f, 1e-1f] (count 1) and witness replay.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "recip41_model_miss.c", 14, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 0.01f && x <= 0.1f);
    if (x * 41.0f == 1.0f) {
        reach_error();
    }
    return 0;
}
