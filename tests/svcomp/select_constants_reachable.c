/* newlib's atan2 ends `return (hy < 0) ? -pi_o_2 : pi_o_2;`, a select of float constants at -O0: forked on here (y < 1 leaves both signs). */
extern double __VERIFIER_nondet_double(void);
extern void reach_error(void);
typedef union { double value; struct { unsigned int lsw; unsigned int msw; } parts; } ieee_double_shape_type;
static double half_turn(double y) {
  int hy;
  ieee_double_shape_type gh_u;
  gh_u.value = y;
  hy = gh_u.parts.msw;
  return (hy < 0) ? -1.5 : 1.5;
}
int main(void) {
  double y = __VERIFIER_nondet_double();
  if (y < 1.0) {
    if (half_turn(y) == 1.5) reach_error();
  }
  return 0;
}
