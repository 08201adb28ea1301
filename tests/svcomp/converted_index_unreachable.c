/* A table index converted from a double and bounds-checked (`i >= 0 && i + 1 < N`), as sin_interpolated_index does: ranges of the converted integer, its offset included. */
extern double __VERIFIER_nondet_double(void);
extern void reach_error(void);
int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x >= -100.0 && x <= 100.0)) return 0;
  int i = (int)(2 * x);
  if (i >= 0 && i + 1 < 10) {
    if (2 * x >= 10.0) reach_error();
  }
  return 0;
}
