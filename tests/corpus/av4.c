/* Ariadne average av4 = y + (x-y)/2: overflow of the difference. */
double av4(double x, double y) { return y + (x - y) / 2.0; }
