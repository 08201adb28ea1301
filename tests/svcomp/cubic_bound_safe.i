# 1 "cubic_bound_safe.c"
# 1 "<built-in>"
# 1 "<command-line>"
# 1 "/usr/include/stdc-predef.h" 1 3 4
# 1 "<command-line>" 2
# 1 "cubic_bound_safe.c"
/* An SV-COMP task as the category ships it: preprocessed C (.i, line markers and
   glibc's declarations as gcc -E leaves them). s = x - x^3/6 on (-1, 1) stays below 0.85
   (its maximum is 5/6): reach_error is unreachable. */
extern void abort(void) __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__noreturn__));
extern void __assert_fail (const char *__assertion, const char *__file,
      unsigned int __line, const char *__function)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__noreturn__));
void reach_error() { __assert_fail("0", "cubic_bound_safe.c", 3, __extension__ __PRETTY_FUNCTION__); }
extern float __VERIFIER_nondet_float(void);
void assume_abort_if_not(int cond) { if (!cond) { abort(); } }
int main() {
  float x = __VERIFIER_nondet_float();
  assume_abort_if_not(x > -1.0f && x < 1.0f);
  float s = x - x * x * x / 6.0f;
  if (!(s < 0.85f)) {
    reach_error();
  }
  return 0;
}
