/* pid_saturation_sum.c: saturated PID loop whose output sums 0.1f ten times past 1 (bench/reach corpus for fpscout reach).
 *
 * Models: the PID loop of pid_overshoot_lie.c with the actuator clamped to [-0.5, 0.5];
 * error if y ends above 1.00000005 (compared in double).
 * Expected: reachable.
 * Why: when the actuator saturates in all 10 steps, y accumulates 0.2f*0.5f = 0.1f
 * (0.100000001490116) ten times. Over the reals that is 1.0000000149 < 1.00000005, so a real
 * solver says unreachable; the float sum of ten 0.1f is 0x1.000002p+0 = 1.00000012 (the
 * famous drift), above the threshold.
 * Witness: s = 0x1.5c71c6p+0.
 * Verified: exhaustive-range over [1, 2] and witness replay.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "pid_saturation_sum.c", 16, "reach_error"); }

int main(void) {
    float s = __VERIFIER_nondet_float();
    __VERIFIER_assume(s >= 1.0f && s <= 2.0f);
    float y = 0.0f, integ = 0.0f, prev = 0.0f;
    for (int k = 0; k < 10; k++) {
        float e = s - y;
        integ = integ + e * 0.1f;
        float d = (e - prev) / 0.1f;
        prev = e;
        float u = 0.6f * e + 0.3f * integ + 0.05f * d;
        if (u > 0.5f) u = 0.5f;
        if (u < -0.5f) u = -0.5f;
        y = y + 0.2f * u;
    }
    if ((double)y > 1.00000005) {
        reach_error();
    }
    return 0;
}
