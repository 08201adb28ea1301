/* sin and cos of the same argument (the -O3 backend merges them into one sincos call). */
#include <math.h>
double polar(double r, double t) {
  return r * cos(t) + 0.5 * r * sin(t);
}
