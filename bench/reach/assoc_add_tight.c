/* assoc_add_tight.c: the two summation orders of three values in [1, 2] differ by more than 4e-7 (bench/reach corpus for fpscout reach).
 *
 * Models: as assoc_add_bound.c with threshold 4e-7, below the largest difference 2^-21.
 * Expected: reachable.
 * Why: both final sums can land in [4, 6] one spacing (2^-21 = 4.77e-7) apart.
 * Witness: a, b, c = 0x1.575f82p+0; 0x1.54c034p+0; 0x1.caffe6p+0.
 * Verified: witness replay.
 */
#include <math.h>
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "assoc_add_tight.c", 13, "reach_error"); }

int main(void) {
    float a = __VERIFIER_nondet_float();
    float b = __VERIFIER_nondet_float();
    float c = __VERIFIER_nondet_float();
    __VERIFIER_assume(a >= 1.0f && a <= 2.0f && b >= 1.0f && b <= 2.0f && c >= 1.0f && c <= 2.0f);
    if (fabsf(((a + b) + c) - (a + (b + c))) > 4e-7f) {
        reach_error();
    }
    return 0;
}
