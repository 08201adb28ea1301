/* truncate.c: the fraction x - (float)(int)x of x in [0, 100]; unreachable: truncation toward zero leaves less than 1 behind, and x - y is exact (Sterbenz, or y = 0). */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "truncate.c", 5, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 0.0f && x <= 100.0f);
    int k = (int)x;
    float y = (float)k;
    if (x - y >= 1.0f) {
        reach_error();
    }
    return 0;
}
