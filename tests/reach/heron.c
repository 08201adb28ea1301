/* CPBPV_FP's Heron example (DESIGN.md §5): the squared area of a triangle whose longest
   side is a, with a in [5, 10] and b, c in [0, 5]; over the reals it lies in [0, 156.25]. */
float heron_squared(float a, float b, float c) {
  if (a < b || a < c || a > b + c)
    return 0.0f;
  float s = (a + b + c) / 2.0f;
  return s * (s - a) * (s - b) * (s - c);
}
