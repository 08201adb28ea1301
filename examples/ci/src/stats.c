/* A small numerical library for the CI example: fpscout finds the inputs on which these
   overflow, divide by zero or go invalid. */
#include <math.h>

double mean2(double x, double y) { return (x + y) / 2.0; }

double ratio(double a, double b) {
  return a / b;
}

double rms2(double x, double y) {
  return sqrt((x * x + y * y) / 2.0);
}

double log_ratio(double a, double b) { return log(a / b); }

double scaled(double x, double scale) { return x * scale; }

double shifted_root(double x) { return sqrt(x - 1.0); }
