/* Ariadne average av2 = x/2 + y/2: underflow of the halves. */
double av2(double x, double y) { return x / 2.0 + y / 2.0; }
