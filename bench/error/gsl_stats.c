/* FPGen's GSL statistics subjects: weighted statistics of 16 weights and 16 data values
 * (32 doubles in [-100, 100]), unit strides. -DSUBJECT_<NAME> selects one; the `_M`
 * subjects are GSL's variants taking the mean as an argument, given the weighted mean
 * GSL computes from the same inputs. */
#include "fpscout.h"
#include <gsl/gsl_statistics_double.h>

#define N 16

int main(void) {
  double w[N], x[N];
  fpscout_array(w, N, "w", -100, 100);
  fpscout_array(x, N, "x", -100, 100);
#if defined(SUBJECT_WMEAN)
  fpscout_result(gsl_stats_wmean(w, 1, x, 1, N));
#elif defined(SUBJECT_WVARIANCE)
  fpscout_result(gsl_stats_wvariance(w, 1, x, 1, N));
#elif defined(SUBJECT_WSD)
  fpscout_result(gsl_stats_wsd(w, 1, x, 1, N));
#elif defined(SUBJECT_WVARIANCE_M)
  fpscout_result(gsl_stats_wvariance_m(w, 1, x, 1, N, gsl_stats_wmean(w, 1, x, 1, N)));
#elif defined(SUBJECT_WSD_M)
  fpscout_result(gsl_stats_wsd_m(w, 1, x, 1, N, gsl_stats_wmean(w, 1, x, 1, N)));
#elif defined(SUBJECT_WTSS)
  fpscout_result(gsl_stats_wtss(w, 1, x, 1, N));
#elif defined(SUBJECT_WABSDEV)
  fpscout_result(gsl_stats_wabsdev(w, 1, x, 1, N));
#elif defined(SUBJECT_WSKEW)
  fpscout_result(gsl_stats_wskew(w, 1, x, 1, N));
#elif defined(SUBJECT_WKURTOSIS)
  fpscout_result(gsl_stats_wkurtosis(w, 1, x, 1, N));
#else
#error "define one SUBJECT_<NAME>"
#endif
  return 0;
}
