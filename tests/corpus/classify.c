/* Float comparison chain returning an int code, with a float-param selection (single precision). */
int classify(float x, float lo, float hi) {
  if (x != x) return -1;
  if (x < lo) return 0;
  if (x > hi) return 2;
  float mid = (lo + hi) * 0.5f;
  return x <= mid ? 1 : 3;
}
