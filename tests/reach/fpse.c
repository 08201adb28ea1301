/* FPSE's examples (DESIGN.md §5) as functions whose result flags the branch. */

/* x < 10000 ∧ x ⊕ 1e12 > 1e12: real solutions, no float one (absorption). */
float foo(float x) {
  if (x < 10000.0f) {
    if (x + 1e12f > 1e12f)
      return 1.0f;
  }
  return 0.0f;
}

/* x > 0 ∧ x ⊕ 1e12 = 1e12: no real solution, every float in [2^-149, 32767.998046875]. */
float foo_m(float x) {
  if (x > 0.0f) {
    if (x + 1e12f == 1e12f)
      return 1.0f;
  }
  return 0.0f;
}
