/* fpse_g2_i.c: FPSE's g2_i: a zero discriminant B*B - 4*A*C with A = 1.22f, B = 3.34f (bench/reach corpus for fpscout reach).
 *
 * Models: the discriminant test of a quadratic solver; C free, evaluated as (B*B) - ((4*A)*C).
 * Expected: reachable.
 * Why: over the reals C = B^2/(4A) = 2.28598360655..., not a float; FPSE's projections narrow
 * C to [2.285982608795166, 2.2859842777252197] and labelling finds a single float making the
 * computed discriminant exactly 0: C = 2.2859835624694824f. Over all 2^32 floats it is the
 * only one (count 1).
 * Witness: C = 0x1.249b1cp+1 (2.2859835624694824).
 * Verified: exhaustive over all 2^32 bit patterns (count 1) and witness replay.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "fpse_g2_i.c", 15, "reach_error"); }

int main(void) {
    float A = 1.22f, B = 3.34f;
    float C = __VERIFIER_nondet_float();
    if (B * B - 4.0f * A * C == 0.0f) {
        reach_error();
    }
    return 0;
}
