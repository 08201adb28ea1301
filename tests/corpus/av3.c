/* Ariadne average av3 = x + (y-x)/2: overflow of the difference. */
double av3(double x, double y) { return x + (y - x) / 2.0; }
