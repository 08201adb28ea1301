/* A nondet string's bytes are defined by no run: a walk that reads them cannot decide. */
extern const char *__VERIFIER_nondet_const_char_pointer(void);
extern void __VERIFIER_error(void);
int main(void) {
  const char *s = __VERIFIER_nondet_const_char_pointer();
  if (s[0] == 'x') __VERIFIER_error();
  return 0;
}
