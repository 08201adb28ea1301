/* The error of a recovered increment: d = (x + 0.001f) - x is exact by Sterbenz, and
   |d - 0.001f| is the rounding error of x + 0.001f, below 1e-7 for x in [1, 2] (the
   largest is 7.25e-8, bench/reach/cancel_err_bound.c). Interval reasoning alone cannot
   see that x cancels; small boxes are settled by enumeration. */
#include <math.h>
float cancel_error(float x) {
  float d = (x + 0.001f) - x;
  return fabsf(d - 0.001f);
}
