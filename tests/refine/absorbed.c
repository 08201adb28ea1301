/* Over doubles x + 1e17 == 1e17 holds for every |x| <= 8, over the reals only for
   x = 0: the product below overflows for 1.8 <= |x| <= 8, which Z3 calls impossible. */
double absorbed(double x) {
    if (x + 1e17 == 1e17)
        return x * 1e308;
    return 0.0;
}
