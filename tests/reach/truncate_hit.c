/* truncate_hit.c: the fraction x - (float)(int)x of x in [0, 100]; reachable: x just below an integer, e.g. 0.9995. */
extern float __VERIFIER_nondet_float(void);
extern void __VERIFIER_assume(int);
extern void __assert_fail(const char *, const char *, unsigned int, const char *);
void reach_error() { __assert_fail("0", "truncate_hit.c", 5, "reach_error"); }

int main(void) {
    float x = __VERIFIER_nondet_float();
    __VERIFIER_assume(x >= 0.0f && x <= 100.0f);
    int k = (int)x;
    float y = (float)k;
    if (x - y > 0.999f) {
        reach_error();
    }
    return 0;
}
