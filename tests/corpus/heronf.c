/* Single precision: Heron's triangle area with sqrtf, comparisons and swaps in float. */
#include <math.h>
float heronf(float a, float b, float c) {
  if (a < b) { float t = a; a = b; b = t; }
  if (a < c) { float t = a; a = c; c = t; }
  float s = (a + b + c) / 2.0f;
  float sq = s * (s - a) * (s - b) * (s - c);
  return sqrtf(sq);
}
