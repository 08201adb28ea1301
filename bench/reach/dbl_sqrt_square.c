/* dbl_sqrt_square.c: binary64 sqrt(x*x) == x for x in [2^-500, 2^500] (bench/reach corpus for fpscout reach).
 *
 * Models: sqrt_square_exact.c in double.
 * Expected: unreachable.
 * Why: x*x lies in [2^-1000, 2^1000], inside binary64's normal range, so sqrt(RN(x*x)) rounds
 * back to x (the result quoted in sqrt_square_exact.c holds for every binary format).
 * Verified: proof (cited result); the checker adds a bounded random and boundary search
 * (evidence; the float version is checked exhaustively).
 */
#include <math.h>
extern double __VERIFIER_nondet_double(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "dbl_sqrt_square.c", 14, "reach_error"); }

int main(void) {
    double x = __VERIFIER_nondet_double();
    __VERIFIER_assume(x >= 0x1p-500 && x <= 0x1p500);
    if (sqrt(x * x) != x) {
        reach_error();
    }
    return 0;
}
