/* libm-style guards: isnan, isinf, isfinite, isnormal, fpclassify, signbit, copysign and
   __builtin_isfpclass masks (llvm.is.fpclass at -O0, folded or kept under fast-math). */
#include <math.h>

double fpclass(double x, float y) {
  if (isnan(x)) return x + x;
  if (isinf(x)) return signbit(x) ? -0.0 : 0.0;
  double r = x * x;
  if (!isfinite(r)) return copysign(1e300, x) * 10.0;
  if (isnormal(y)) r += (double)(y * y);
  if (isnan(y)) r -= 2.0;
  switch (fpclassify(x * 1e-300)) {
    case FP_SUBNORMAL: r *= 3.0; break;
    case FP_ZERO: r -= 1.0; break;
    default: break;
  }
  /* negative normal or negative subnormal; positive zero or infinity */
  if (__builtin_isfpclass(x, 0x018)) r = -r;
  if (__builtin_isfpclass(y, 0x240)) r += 0.5;
  /* nan or zero, and its complement: the masks x86 tests with a compare */
  if (__builtin_isfpclass(y, 0x063)) r += 0.25;
  if (__builtin_isfpclass(x * 1e-300, 0x39c)) r *= 0.75;
  return r;
}
