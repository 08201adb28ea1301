/* The esbmc nan task: nan("1") and nan() of a nondet string are NaNs. */
#include <math.h>
extern const char *__VERIFIER_nondet_const_char_pointer(void);
extern void __VERIFIER_error(void);
int main(void) {
  float f1 = nan("1");
  if (!(f1 != f1)) __VERIFIER_error();
  float f2 = nan(__VERIFIER_nondet_const_char_pointer());
  if (!isnan(f2)) __VERIFIER_error();
  return 0;
}
