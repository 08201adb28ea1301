/* assoc_add_bound.c: the two summation orders of three values in [1, 2] differ by less than 8e-7 (bench/reach corpus for fpscout reach).
 *
 * Models: |((a+b)+c) - (a+(b+c))| for a, b, c in [1, 2]; error above 8e-7.
 * Expected: unreachable.
 * Why: a+b and b+c lie in [2, 4], rounded by at most 2^-23; the final sums lie in [3, 6],
 * rounded by at most 2^-22. Each order is within 3*2^-23 of the exact a+b+c, so the two
 * differ by at most 6*2^-23 = 7.15e-7 < 8e-7 (as a float 8e-7f = 0x1.ad7f2ap-21 > 7.15e-7);
 * their difference is exact (Sterbenz: both in [3, 6]) and so is fabsf.
 * Verified: proof (above); the checker adds a bounded random and boundary search (evidence).
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "assoc_add_bound.c", 15, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    float b = __VERIFIER_nondet_float();
    float c = __VERIFIER_nondet_float();
    __VERIFIER_assume(a >= 1.0f && a <= 2.0f && b >= 1.0f && b <= 2.0f && c >= 1.0f && c <= 2.0f);
    if (fabsf(((a + b) + c) - (a + (b + c))) > 8e-7f) {
        reach_error();
    }
    return 0;
}
