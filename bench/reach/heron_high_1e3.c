/* heron_high_1e3.c: CPBPV_FP's Heron squared area never above 156.25 + 1e-3 (bench/reach corpus for fpscout reach).
 *
 * Models: the Heron squared area of heron_low.c; suspicious values above 156.25 + 1e-3.
 * Expected: unreachable.
 * Why: CPBPV_FP refutes this interval, and a computer-assisted proof confirms it. Each of the
 * seven roundings (two sums for s, three differences, three products; the halving is exact)
 * moves a positive value by a relative 2^-24 at most, and no intermediate underflows, so
 * area2 <= (s+d)(|s-a|+d)(|s-b|+d)(|s-c|+d)(1+2^-24)^6 with d = s(2^-23 + 2^-48), where s is
 * the real semi-perimeter of the float inputs (which satisfy a <= (b+c)(1+2^-24) as reals).
 * bench/reach/driver/heron_bound.c bounds that expression over the whole input box by
 * interval branch and bound: below 156.25 + 1e-3 everywhere (48643 boxes). The same
 * program fails, as it must, at 156.25 + 1e-4 and 1e-5, where heron_high.c has witnesses.
 * Near the real maximum (b = c = 5, a = 5*sqrt(2)) the factors are about 8.5, 1.5, 3.5, 3.5,
 * so the rounding of s costs only ~1e-6 relative: the float maximum found,
 * 156.250107 (bench/reach/driver/heron_scan.c, every float a in [7.05, 7.09] with b, c among
 * the 128 floats at or below 5), is 1.07e-4 above 156.25.
 * Verified: proof (computer-assisted, run by the checker), agreeing with the paper (CPBPV_FP);
 * the checker's random and boundary search adds evidence.
 */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "heron_high_1e3.c", 23, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    float b = __VERIFIER_nondet_float();
    float c = __VERIFIER_nondet_float();
    /* a is the longest side; the triangle inequality is checked in float, as a program would */
    __VERIFIER_assume(a >= 5.0f && a <= 10.0f && b >= 0.0f && b <= 5.0f && c >= 0.0f && c <= 5.0f);
    __VERIFIER_assume(a >= b && a >= c && a <= b + c);
    float s = (a + b + c) / 2.0f;
    float area2 = s * (s - a) * (s - b) * (s - c);
    if ((double)area2 > 156.25 + 1e-3) {
        reach_error();
    }
    return 0;
}
