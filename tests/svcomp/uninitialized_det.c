/* No nondet call, but an uninitialized variable, which SV-COMP reads as a nondet
   value: k == 5 on some execution, so reach_error is reachable there, while the
   interpreter reads zero. One run does not decide it: the answer must be unknown. */
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "uninitialized_det.c", 5, "reach_error"); }
int main() {
  int k;
  if (k == 5) {
    reach_error();
  }
  return 0;
}
