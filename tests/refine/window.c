/* tests/refine/window.c: over doubles x + 1e17 == 1e17 + 16 holds for every x in (8, 24),
   over the reals only for x = 16, which the window below excludes: Z3 calls the branch
   impossible. Inside it P returns a subnormal product, while P' (-ffast-math, run with
   DAZ) reads 1e-310 as 0. */
double window(double x) {
    double t = x * 3.0;
    if (x + 1e17 == 1e17 + 16.0 && t != 48.0 && t > 47.9999999 && t < 48.0000001)
        return x * 1e-310;
    return 1.0;
}
