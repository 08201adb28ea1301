/* DESIGN.md odometer in binary32, N = 50 known at compile time (fully unrolled by -O3). */
float odometer50(float sl) {
  float sr = 0.785398163397f, c = 12.34f, inv_l = 0.1f;
  float theta = 0.0f, x = 0.0f, y = 0.0f;
  for (int i = 0; i < 50; i++) {
    float dl = c * sl;
    float dr = c * sr;
    float d = (dl + dr) * 0.5f;
    float dtheta = (dr - dl) * inv_l;
    float arg = theta + dtheta * 0.5f;
    float cosv = (1.0f - arg * arg * 0.5f) + arg * arg * arg * arg / 24.0f;
    x = x + d * cosv;
    float sinv = (arg - arg * arg * arg / 6.0f) + arg * arg * arg * arg * arg / 120.0f;
    y = y + d * sinv;
    theta = theta + dtheta;
  }
  return y;
}
