/* Integer inputs of several types, one read per loop iteration: x climbs by 0.5 for
   each true step and falls by 0.25 otherwise, so more than 6 steps, nearly all true,
   take it above 3: reach_error is reachable. */
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "steps_loop_small_ints.c", 6, "reach_error"); }
extern unsigned char __VERIFIER_nondet_uchar(void);
extern _Bool __VERIFIER_nondet_bool(void);
extern short __VERIFIER_nondet_short(void);
int main() {
  unsigned char steps = __VERIFIER_nondet_uchar();
  short bias = __VERIFIER_nondet_short();
  if (steps > 20 || bias < 0 || bias > 2) {
    return 0;
  }
  float x = 0.0f;
  for (unsigned char i = 0; i < steps; i++) {
    _Bool up = __VERIFIER_nondet_bool();
    x += up ? 0.5f : -0.25f;
  }
  if (x + (float)bias > 3.0f) {
    reach_error();
  }
  return 0;
}
