/* FPGen's three summation subjects over 32 doubles in [-100, 100] (the paper wrote them
 * itself): recursive, pairwise and compensated (Kahan) summation. Select one with
 * -DSUBJECT_RECURSIVE, -DSUBJECT_PAIRWISE or -DSUBJECT_COMPENSATED. */
#include "fpscout.h"

#define N 32

static double recursive_sum(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

static double pairwise_sum(const double *x, int n) {
  if (n <= 2)
    return n == 2 ? x[0] + x[1] : x[0];
  int half = n / 2;
  return pairwise_sum(x, half) + pairwise_sum(x + half, n - half);
}

static double compensated_sum(const double *x, int n) {
  double s = 0.0, c = 0.0;
  for (int i = 0; i < n; i++) {
    double y = x[i] - c;
    double t = s + y;
    c = (t - s) - y;
    s = t;
  }
  return s;
}

int main(void) {
  double x[N];
  fpscout_array(x, N, "x", -100, 100);
#if defined(SUBJECT_RECURSIVE)
  fpscout_result(recursive_sum(x, N));
#elif defined(SUBJECT_PAIRWISE)
  fpscout_result(pairwise_sum(x, N));
#elif defined(SUBJECT_COMPENSATED)
  fpscout_result(compensated_sum(x, N));
#else
#error "define SUBJECT_RECURSIVE, SUBJECT_PAIRWISE or SUBJECT_COMPENSATED"
#endif
  return 0;
}
