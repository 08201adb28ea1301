/* pid_overshoot_lie.c: PID loop whose real trajectory passes a threshold that the float one never reaches (bench/reach corpus for fpscout reach).
 *
 * Models: a discrete PID controller (kp 0.6, ki 0.3, kd 0.05, dt 0.1) driving the plant
 * y += 0.2*u for 10 steps towards a setpoint s in [1, 2]; error if y ends above
 * 0x1.b41e5ep+0 (1.70358837).
 * Expected: unreachable.
 * Why: the loop is linear, so over the reals (with the float constants as coefficients)
 * y10 = 0.8517942... * s, largest at s = 2: 1.7035884638 > 0x1.b41e5ep+0. A real-valued
 * solver returns s = 2 and says reachable; in floats y10(2) = 0x1.b41e5ep+0 exactly, which is
 * also the maximum over every float s in [1, 2], so the strict test never fires.
 * Verified: exhaustive-range over [1, 2] (the real value was computed in binary64).
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "pid_overshoot_lie.c", 16, "reach_error"); }

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
        y = y + 0.2f * u;
    }
    if (y > 0x1.b41e5ep+0f) {
        reach_error();
    }
    return 0;
}
