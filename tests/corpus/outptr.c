/* libm functions that also write through pointers: modf, frexp, remquo, sincos, lgamma_r
   and their float variants (GSL's gsl_sf_sin_pi/cos_pi split their argument with modf).
   Outputs go to locals and straight into the caller's array. */
#define _GNU_SOURCE
#include <math.h>
double outptr(double x, double y, float z, double *out) {
  double fr = modf(x, &out[0]);
  out[1] = fr;
  int e;
  out[2] = frexp(y, &e);
  out[3] = e;
  int q = 5;
  out[4] = remquo(x, y, &q);
  out[5] = q;
  sincos(fr * 3.0, &out[6], &out[7]);
  int sg;
  double lg = lgamma_r(y, &sg);
  out[8] = sg;
  float fip;
  out[9] = modff(z, &fip);
  out[10] = fip;
  int fe;
  out[11] = frexpf(z, &fe) * fe;
  int fq = -1;
  out[12] = remquof(z, (float)y, &fq);
  out[13] = fq;
  float fs, fc;
  sincosf(z, &fs, &fc);
  out[14] = fs - fc;
  int fsg;
  out[15] = lgammaf_r(z, &fsg) * fsg;
  return lg;
}
