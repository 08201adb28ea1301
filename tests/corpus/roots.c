/* pow with exponents 1/4, 3/4, 1/3 (fast-math turns them into sqrtsd chains and cbrt). */
#include <math.h>
double roots(double x) { return pow(x, 0.25) + 2.0 * pow(x, 0.75) - pow(x, 1.0 / 3.0); }
