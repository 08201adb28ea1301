/* One-parameter single-precision functions for the recall benchmark (issue J): every
   input can be enumerated on both builds, so the set of (P flags, P' flags, P class,
   P' class) signatures that exist is known exactly. */
#include <math.h>

/* Cancellation: (1 + x) - 1 is x only when nothing is absorbed. */
float cancel(float x) { return (1.0f + x) - 1.0f; }

/* Absorption in a sum fast-math reassociates. */
float absorb(float x) { return (x + 1e8f) - 1e8f + x * 0.5f; }

/* Reciprocal: divide by zero, overflow for tiny x, underflow for huge x. */
float recip(float x) { return 1.0f / x; }

/* A reciprocal fast-math turns into a multiplication. */
float recip_scaled(float x) { return 3.0f / x / 7.0f; }

/* Square of a constant that overflows, depending on x's sign. */
float big_square(float x) {
  float c = x > 0 ? 3e19f : 1e19f;
  return c * c * x;
}

/* A polynomial loop: 0 * inf = NaN in P where P' may keep inf. */
float poly_loop(float x) {
  const float c[5] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f};
  float s = 0.0f, p = 1.0f;
  for (int i = 0; i < 5; i++) {
    s += c[i] * p;
    p *= x;
  }
  return s;
}

/* Horner form of the same polynomial. */
float horner(float x) {
  return 1.0f + x * (-0.5f + x * (0.25f + x * (-0.125f + x * 0.0625f)));
}

/* libm calls. */
float log_ratio(float x) { return logf(x) / (x - 1.0f); }
float exp_minus_one(float x) { return expf(x) - 1.0f; }
float sqrt_diff(float x) { return sqrtf(x + 1.0f) - sqrtf(x); }
float sin_over_x(float x) { return sinf(x) / x; }

/* Comparisons and selects. */
float clamp01(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
float abs_diff(float x) { return fabsf(x - 1.0f) > 1e-3f ? 1.0f / (x - 1.0f) : 0.0f; }
float maxsel(float x) { return fmaxf(x, 0.5f) * 2.0f; }
float signum(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }

/* Underflow: products of small numbers. */
float tiny_product(float x) { return x * x * 1e-30f; }

/* Overflow through a long product. */
float cube_scaled(float x) { return x * x * x * 1e10f; }

/* A hypotenuse computed naively. */
float naive_hypot(float x) { return sqrtf(x * x + 4.0f); }

/* Conversion to integer and back. */
float round_trip(float x) { return (float)(int)(x * 100.0f) / 100.0f; }

/* A loop that halves until small: iteration count depends on x. */
float halve_until(float x) {
  float y = fabsf(x);
  int n = 0;
  while (y > 1.0f && n < 200) {
    y = y * 0.5f;
    n++;
  }
  return y + (float)n;
}

/* Division of differences: 0/0 at x = 1. */
float slope(float x) { return (x * x - 1.0f) / (x - 1.0f); }

/* A mean of x and a constant: overflow of the intermediate sum. */
float mean_with(float x) { return (x + 3e38f) * 0.5f; }

/* Subnormal inputs: FTZ/DAZ changes what P' sees. */
float subnormal_scale(float x) { return x * 0x1p20f; }

/* A rational function with a pole. */
float rational(float x) { return (x * x + 1.0f) / (x * x - 2.0f); }
