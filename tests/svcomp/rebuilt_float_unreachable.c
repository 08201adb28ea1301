/* fdlibm's SET_HIGH_WORD rebuilds a float from words: the float solver keeps it as a free variable, so the path goes on and the rest is still refuted. */
extern double __VERIFIER_nondet_double(void);
extern void reach_error(void);
typedef union { double value; struct { unsigned int lsw; unsigned int msw; } parts; } ieee_double_shape_type;
int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x > 2.0)) return 0;
  ieee_double_shape_type u;
  u.value = x;
  u.parts.msw = (u.parts.msw & 0x800fffff) | 0x3ff00000;  /* x's mantissa in [1, 2) */
  double m = u.value;
  if (m < 1.5) {
    if (x < 1.0) reach_error();
  } else {
    if (x != x) reach_error();
  }
  return 0;
}
