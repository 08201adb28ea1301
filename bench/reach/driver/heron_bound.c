/* heron_bound.c: computer-assisted proof that heron_high_1e3.c is unreachable (branch and bound over real intervals).
 *
 * Claim: for floats a in [5, 10], b, c in [0, 5] with a >= b, a >= c, a <= RN(b + c), the
 * binary32 value area2 = s*(s-a)*(s-b)*(s-c), s = RN(RN(a+b)+c)/2, never exceeds 156.25 + 1e-3.
 *
 * Error model (u = 2^-24; no overflow, and no underflow: s~ >= 2.5, and each s~ - t is either
 * far from 0 or a difference of two floats >= 1.25, hence 0 or at least 2^-23 in magnitude,
 * so every product is 0 or above 2^-126):
 *   |s~ - s| <= d := s*(2u + u^2)                  (two rounded additions, exact halving)
 *   |RN(s~ - t)| <= (|s - t| + d)(1 + u)           for t = a, b, c
 *   |area2| <= (s + d)(|x| + d)(|y| + d)(|z| + d)(1 + u)^6,  x = s-a, y = s-b, z = s-c
 * and the float assumption a <= RN(b + c) implies the real a <= (b + c)(1 + u).
 * The bound H(a, b, c) on the right is maximised over that real region by interval branch
 * and bound: each box gets an upper bound of H from interval enclosures of s, x, y, z (all
 * monotone sums, so exact up to double rounding, covered by inflating the result by 1e-12);
 * boxes whose bound is <= 156.25 + 1e-3 are done, others are split along their widest side.
 * Exit 0 with "proved" if every box closes, 1 otherwise (also when 2e7 boxes are exceeded). An optional argument replaces the
 * excess 1e-3: with 1e-4 or 1e-5 the proof must fail, since heron_high.c has a witness at
 * 156.250107 (the checker runs both as a test of this bound).
 * Build and run: clang-19 -O2 bench/reach/driver/heron_bound.c -lm -o /tmp/heron_bound && /tmp/heron_bound
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const double U = 0x1p-24;
static double LIMIT = 156.25 + 1e-3; /* the program compares in double against this sum */
static long boxes, max_depth_seen;
static double worst_bound; /* largest bound among boxes that closed */

static double absmax(double lo, double hi) { return fmax(fabs(lo), fabs(hi)); }

/* Upper bound of H over the box, or -1 when the box holds no admissible input. */
static double bound(const double a[2], const double b[2], const double c[2]) {
    /* a <= RN(b + c) <= (b + c)(1 + u); 2u leaves room for the double rounding of this test */
    if (a[0] > (b[1] + c[1]) * (1 + 2 * U)) return -1; /* triangle assumption fails everywhere */
    if (a[1] < b[0] || a[1] < c[0]) return -1;      /* a is not the longest side anywhere */
    double s_hi = (a[1] + b[1] + c[1]) / 2;
    double x_lo = (b[0] + c[0] - a[1]) / 2, x_hi = (b[1] + c[1] - a[0]) / 2;
    double y_lo = (a[0] + c[0] - b[1]) / 2, y_hi = (a[1] + c[1] - b[0]) / 2;
    double z_lo = (a[0] + b[0] - c[1]) / 2, z_hi = (a[1] + b[1] - c[0]) / 2;
    double d = s_hi * (2 * U + U * U);
    double h = (s_hi + d) * (absmax(x_lo, x_hi) + d) * (absmax(y_lo, y_hi) + d) * (absmax(z_lo, z_hi) + d);
    return h * pow(1 + U, 6) * (1 + 1e-12);
}

static int gave_up; /* set at the first box that cannot be closed: stop there */

static int prove(double a[2], double b[2], double c[2], int depth) {
    if (gave_up) return 0;
    boxes++;
    if (depth > max_depth_seen) max_depth_seen = depth;
    double h = bound(a, b, c);
    if (h <= LIMIT) {
        if (h > worst_bound) worst_bound = h;
        return 1;
    }
    if (depth > 200 || boxes > 20000000) { /* a budget: near the true maximum of H boxes never close */
        gave_up = 1;
        printf("open box: a [%a, %a] b [%a, %a] c [%a, %a] bound %.9g\n", a[0], a[1], b[0], b[1], c[0], c[1], h);
        return 0;
    }
    double *dims[3] = {a, b, c};
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (dims[i][1] - dims[i][0] > dims[k][1] - dims[k][0]) k = i;
    double *v = dims[k], lo = v[0], hi = v[1], mid = lo + (hi - lo) / 2;
    int ok = 1;
    v[0] = lo, v[1] = mid;
    ok &= prove(a, b, c, depth + 1);
    v[0] = mid, v[1] = hi;
    ok &= prove(a, b, c, depth + 1);
    v[0] = lo, v[1] = hi;
    return ok;
}

int main(int argc, char **argv) {
    if (argc > 1) LIMIT = 156.25 + atof(argv[1]);
    double a[2] = {5, 10}, b[2] = {0, 5}, c[2] = {0, 5};
    int ok = prove(a, b, c, 0);
    printf("%s: %ld boxes, depth %ld, largest closed bound %.9g (limit %.9g)\n", ok ? "proved" : "NOT proved",
           boxes, max_depth_seen, worst_bound, LIMIT);
    return ok ? 0 : 1;
}
