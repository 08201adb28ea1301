/* Single-precision libm (sqrtf, expf, logf, powf) and float<->double mixing. */
#include <math.h>
float floatmath(float x, float y) {
  float a = sqrtf(x);
  float b = expf(y);
  float c = logf(x + 1.0f);
  float p = powf(x, y * 0.25f);
  double d = (double)p + (double)a;
  return (float)(d * 0.5) + (b - c);
}
