/* Two functions, each needing one fast-math sub-option off: the file's safe set turns
   off both (issue #31). */

/* -freciprocal-math: x / 10 becomes x * 0.1. */
double tenth(double x) { return x / 10.0; }

/* -fassociative-math: (x * 3) * 5 becomes x * 15, one rounding instead of two. */
double scaled(double x) { return (x * 3.0) * 5.0; }

/* Exact in every build. */
double twice(double x) { return x + x; }
