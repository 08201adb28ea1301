/* Shared by a.c and b.c; SCALE is the factor b.c scales by (change it with -DSCALE=...). */
#ifndef SCALE
#define SCALE 1e300
#endif

double scale_round_trip(double x);
