/* fpscout.h: inputs and checked results of a harness for `fpscout error` (and the other
 * modes), in the spirit of KLEE's klee_make_symbolic.
 *
 * A harness is a C program whose main() takes its floating-point inputs from these calls
 * and names the results whose accuracy is checked:
 *
 *   #include "fpscout.h"
 *   int main(void) {
 *     double x[32];
 *     fpscout_array(x, 32, "x", -100, 100);
 *     fpscout_result(my_norm(x, 32));
 *     return 0;
 *   }
 *
 * fpscout finds this header by itself (no -I needed) and runs main as the function
 * fpscout_harness(const double *doubles, double *results): every fpscout_double call, and
 * each element filled by fpscout_array, reads the next element of `doubles` (clamped to
 * [lo, hi]); fpscout_result and fpscout_result_array append to `results`, whose elements
 * `fpscout error` measures. When every call gives the same literal bounds they become the
 * search range (otherwise give --range doubles=LO:HI); literal counts size the arrays
 * (otherwise give --array-len doubles=N / results=N).
 */
#ifndef FPSCOUT_H
#define FPSCOUT_H

/* The next input, a double in [lo, hi]. */
double fpscout_double(const char *name, double lo, double hi);
/* Fills ptr[0..n) with the next n inputs, each in [lo, hi]. */
void fpscout_array(double *ptr, int n, const char *name, double lo, double hi);
/* Declares a checked result. */
void fpscout_result(double value);
/* Declares ptr[0..n) checked results. */
void fpscout_result_array(const double *ptr, int n);

#endif
