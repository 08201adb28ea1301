/* libm as fdlibm and musl write it: the words of a double through a union (GET_HIGH_WORD,
   EXTRACT_WORDS, SET_HIGH_WORD, INSERT_WORDS), musl's uint64_t view, the exponent field,
   the NaN test on words, infinity constants, and a calloc'd work array. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef union {
  double value;
  struct { uint32_t lsw; uint32_t msw; } parts;
} shape;

double words(double x, double y) {
  shape u;
  u.value = x;
  int32_t hx = u.parts.msw;
  uint32_t lx = u.parts.lsw;
  int32_t ix = hx & 0x7fffffff;
  if ((ix | ((lx | -lx) >> 31)) > 0x7ff00000) return x + y; /* NaN */
  if ((ix | lx) == 0) return -INFINITY;
  if (ix >= 0x7ff00000) return x * 0.0;
  int32_t k = ((hx >> 20) & 0x7ff) - 0x3ff;
  /* x scaled into [1, 2) by replacing its exponent: SET_HIGH_WORD */
  u.parts.msw = (hx & 0x000fffff) | 0x3ff00000;
  double m = u.value;
  union { double f; uint64_t i; } v = {y};
  int e = (int)(v.i >> 52 & 0x7ff);
  double *w = calloc(4, sizeof(double));
  if (!w) return 0;
  w[0] = m;
  w[1] = (double)k * 0.6931471805599453;
  w[2] = e == 0x7ff ? INFINITY : (double)(e - 0x3ff);
  w[3] = y * 1e300;
  /* INSERT_WORDS of modified words */
  u.parts.msw = hx ^ 0x80000000;
  u.parts.lsw = lx & 0xffff0000;
  double r = (w[0] + w[1]) * w[2] - w[3] + u.value;
  free(w);
  return r;
}
