/* Ariadne average av1 = (x+y)/2: overflow of the intermediate sum. */
double av1(double x, double y) { return (x + y) / 2.0; }
