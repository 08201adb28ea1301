/* Over the reals x = sqrt(2) takes the branch and the product overflows; no double
   squares to exactly 2.0, so over floats the branch is never taken. */
double root_two(double x) {
    if (x * x == 2.0)
        return x * 1.5e308;
    return x;
}
