/* driver.c: test driver for bench/reach programs: supplies the SV-COMP nondet/assume
 * functions, intercepts reach_error (via --wrap=__assert_fail) and runs the program
 * (renamed reach_program_main) on replayed, enumerated or randomly searched inputs.
 *
 * Usage:
 *   driver replay TYPE N "v1;v2;..."      run once on the given values (hex floats welcome)
 *   driver enum RANGE                     every binary32 in RANGE ("lo:hi" or "all"), 1 float input
 *   driver search TYPE N "lo:hi;..." SAMPLES SEED   boundary-value + random search
 *                                         (until SAMPLES inputs are admitted, at most 10*SAMPLES runs)
 * TYPE is float or double (a program reads nondets of one type only).
 * Output: one line of key=value pairs; exit 0 on success, 2 on a usage/program error.
 *
 * Compiled separately from the programs (they need -O0 -ffp-contract=off; this file only
 * chooses inputs and counts, so its own float arithmetic does not matter, except that the
 * values it hands over are exact binary32/binary64 values). */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int reach_program_main(void);

#define MAXIN 16
enum { RUN_DONE = 0, RUN_ASSUME = 1, RUN_REACHED = 2 };

static jmp_buf env;
static int want_double; /* which nondet kind the program is declared to read */
static int n_inputs, next_input;
static float fin[MAXIN];
static double din[MAXIN];

static void die(const char *msg) {
    fprintf(stderr, "driver: %s\n", msg);
    exit(2);
}

float __VERIFIER_nondet_float(void) {
    if (want_double) die("program reads __VERIFIER_nondet_float but the manifest says double");
    if (next_input >= n_inputs) die("program reads more float inputs than the manifest declares");
    return fin[next_input++];
}

double __VERIFIER_nondet_double(void) {
    if (!want_double) die("program reads __VERIFIER_nondet_double but the manifest says float");
    if (next_input >= n_inputs) die("program reads more double inputs than the manifest declares");
    return din[next_input++];
}

/* An unmet assumption ends the run: the input is outside the program's domain. */
void __VERIFIER_assume(int cond) {
    if (!cond) longjmp(env, RUN_ASSUME);
}

/* reach_error() calls __assert_fail; the link maps that call here. */
void __wrap___assert_fail(const char *a, const char *f, unsigned l, const char *fn) {
    (void)a; (void)f; (void)l; (void)fn;
    longjmp(env, RUN_REACHED);
}

static int reads_all;

static int run_once(void) {
    next_input = 0;
    int r = setjmp(env);
    if (r == 0) {
        reach_program_main();
        r = RUN_DONE;
    }
    /* An input the program never read would make a witness meaningless. */
    reads_all = (next_input == n_inputs) || r == RUN_ASSUME;
    return r;
}

/* Total order key on binary32 bit patterns (non-NaN): -inf < ... < -0 < +0 < ... < +inf. */
static uint32_t key_of(uint32_t b) { return (b & 0x80000000u) ? ~b : (b | 0x80000000u); }
static uint32_t bits_of_key(uint32_t k) { return (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k; }
static uint32_t fbits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static float bitsf(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint64_t dbits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
static double bitsd(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static uint64_t dkey_of(uint64_t b) { return (b >> 63) ? ~b : (b | (1ull << 63)); }
static uint64_t dbits_of_key(uint64_t k) { return (k >> 63) ? (k & ~(1ull << 63)) : ~k; }

static void print_inputs(const char *label) {
    printf(" %s=", label);
    for (int i = 0; i < n_inputs; i++) {
        if (want_double) printf("%s%a", i ? ";" : "", din[i]);
        else printf("%s%a", i ? ";" : "", (double)fin[i]);
    }
}

/* Parse "lo:hi" into doubles; strtod accepts hex floats, inf, -inf. */
static void parse_range(const char *s, double *lo, double *hi) {
    char *end;
    *lo = strtod(s, &end);
    if (end == s || *end != ':') die("bad range (want lo:hi)");
    const char *t = end + 1;
    *hi = strtod(t, &end);
    if (end == t || (*end && *end != ';')) die("bad range (want lo:hi)");
    if (!(*lo <= *hi)) die("range with lo > hi");
}

static int parse_type(const char *s) {
    if (!strcmp(s, "float")) return 0;
    if (!strcmp(s, "double")) return 1;
    die("TYPE must be float or double");
    return 0;
}

static int cmd_replay(int argc, char **argv) {
    if (argc != 5) die("usage: replay TYPE N VALUES");
    want_double = parse_type(argv[2]);
    n_inputs = atoi(argv[3]);
    if (n_inputs < 1 || n_inputs > MAXIN) die("N out of range");
    char *p = argv[4];
    for (int i = 0; i < n_inputs; i++) {
        char *end;
        if (want_double) din[i] = strtod(p, &end);
        else fin[i] = strtof(p, &end); /* strtof rounds once: a hex float of a binary32 is exact */
        if (end == p) die("bad witness value");
        p = end;
        if (i + 1 < n_inputs) {
            if (*p != ';') die("witness has fewer values than inputs");
            p++;
        } else if (*p) die("witness has more values than inputs");
    }
    int r = run_once();
    if (!reads_all) die("program did not read every declared input");
    printf("result=%s", r == RUN_REACHED ? "reached" : r == RUN_ASSUME ? "assume-failed" : "not-reached");
    print_inputs("inputs");
    printf("\n");
    return 0;
}

static int cmd_enum(int argc, char **argv) {
    if (argc != 3) die("usage: enum RANGE");
    want_double = 0;
    n_inputs = 1;
    uint64_t admitted = 0, reached = 0, runs = 0;
    int have_first = 0;
    float first = 0;
    if (!strcmp(argv[2], "all")) {
        for (uint64_t b = 0; b <= 0xffffffffull; b++) {
            fin[0] = bitsf((uint32_t)b);
            int r = run_once();
            runs++;
            if (r != RUN_ASSUME) admitted++;
            if (r == RUN_REACHED) {
                if (!have_first) { have_first = 1; first = fin[0]; }
                reached++;
            }
        }
    } else {
        double lo, hi;
        parse_range(argv[2], &lo, &hi);
        float flo = (float)lo, fhi = (float)hi;
        if ((double)flo != lo || (double)fhi != hi) die("enum range bounds must be binary32 values");
        /* The range must contain every input the assumptions admit: the floats just
         * outside it (and NaN) must be rejected, else the enumeration is not exhaustive. */
        float outside[3] = {nextafterf(flo, -INFINITY), nextafterf(fhi, INFINITY), NAN};
        for (int i = 0; i < 3; i++) {
            if ((i == 0 && flo == -INFINITY) || (i == 1 && fhi == INFINITY)) continue;
            fin[0] = outside[i];
            if (run_once() != RUN_ASSUME) {
                printf("error=range-too-small admitted_outside=%a\n", (double)outside[i]);
                return 2;
            }
        }
        uint32_t k0 = key_of(fbits(flo)), k1 = key_of(fbits(fhi));
        for (uint64_t k = k0; k <= k1; k++) {
            fin[0] = bitsf(bits_of_key((uint32_t)k));
            int r = run_once();
            runs++;
            if (r != RUN_ASSUME) admitted++;
            if (r == RUN_REACHED) {
                if (!have_first) { have_first = 1; first = fin[0]; }
                reached++;
            }
        }
    }
    printf("runs=%" PRIu64 " admitted=%" PRIu64 " reached=%" PRIu64, runs, admitted, reached);
    if (have_first) printf(" first=%a", (double)first);
    printf("\n");
    return 0;
}

/* xorshift64*: reproducible, good enough to spread samples. */
static uint64_t rng_state;
static uint64_t rng(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static double unit(void) { return (double)(rng() >> 11) * 0x1p-53; }

static double lo_in[MAXIN], hi_in[MAXIN];
#define NB 8
static double bound_vals[MAXIN][NB];

/* One value of input i: uniform over reals, uniform over the float bit patterns (so every
 * binade is visited), or a boundary value nudged by a few ulps. */
static double sample(int i) {
    double lo = lo_in[i], hi = hi_in[i], v;
    switch (rng() % 4) {
    case 0:
        v = lo + (hi - lo) * unit();
        if (isinf(lo) || isinf(hi)) v = bound_vals[i][rng() % NB];
        break;
    case 1:
    case 2:
        if (want_double) {
            uint64_t k0 = dkey_of(dbits(lo)), k1 = dkey_of(dbits(hi));
            v = bitsd(dbits_of_key(k0 + rng() % (k1 - k0 + 1)));
        } else {
            uint32_t k0 = key_of(fbits((float)lo)), k1 = key_of(fbits((float)hi));
            v = bitsf(bits_of_key((uint32_t)(k0 + rng() % ((uint64_t)k1 - k0 + 1))));
        }
        break;
    default: {
        v = bound_vals[i][rng() % NB];
        int steps = (int)(rng() % 9) - 4;
        for (int s = 0; s < abs(steps); s++)
            v = want_double ? nextafter(v, steps > 0 ? INFINITY : -INFINITY)
                            : nextafterf((float)v, steps > 0 ? INFINITY : -INFINITY);
        if (v < lo) v = lo;
        if (v > hi) v = hi;
    }
    }
    return v;
}

static void set_input(int i, double v) {
    if (want_double) din[i] = v;
    else fin[i] = (float)v;
}

static int cmd_search(int argc, char **argv) {
    if (argc != 7) die("usage: search TYPE N RANGES SAMPLES SEED");
    want_double = parse_type(argv[2]);
    n_inputs = atoi(argv[3]);
    if (n_inputs < 1 || n_inputs > MAXIN) die("N out of range");
    const char *p = argv[4];
    for (int i = 0; i < n_inputs; i++) {
        parse_range(p, &lo_in[i], &hi_in[i]);
        if (!want_double && ((double)(float)lo_in[i] != lo_in[i] || (double)(float)hi_in[i] != hi_in[i]))
            die("float search range bounds must be binary32 values");
        p = strchr(p, ';');
        if (i + 1 < n_inputs) {
            if (!p) die("fewer ranges than inputs");
            p++;
        } else if (p) die("more ranges than inputs");
    }
    long samples = atol(argv[5]);
    rng_state = strtoull(argv[6], 0, 0) | 1;
    for (int i = 0; i < n_inputs; i++) {
        double lo = lo_in[i], hi = hi_in[i];
        double mid = (isinf(lo) || isinf(hi)) ? 0 : lo / 2 + hi / 2;
        double cand[NB] = {lo, hi, mid, 0.0, -0.0, 1.0, lo, hi};
        if (!isinf(lo)) cand[6] = want_double ? nextafter(lo, INFINITY) : nextafterf((float)lo, INFINITY);
        if (!isinf(hi)) cand[7] = want_double ? nextafter(hi, -INFINITY) : nextafterf((float)hi, -INFINITY);
        for (int j = 0; j < NB; j++) {
            double c = cand[j];
            if (!(c >= lo && c <= hi)) c = mid; /* keep boundary candidates inside the range */
            if (!want_double) c = (float)c;
            bound_vals[i][j] = c;
        }
    }
    uint64_t runs = 0, admitted = 0, reached = 0;
    int have_first = 0;
    float ffirst[MAXIN];
    double dfirst[MAXIN];
    /* Phase 1: every combination of boundary values (8^N, N <= 4 here). */
    long combos = 1;
    for (int i = 0; i < n_inputs && combos < 100000; i++) combos *= NB;
    /* Random phase: until SAMPLES inputs pass the assumptions, at most 10*SAMPLES runs
     * (narrow assumptions such as the triangle inequality reject most samples). */
    for (long c = 0; c < combos + 10 * samples && (c < combos || admitted < (uint64_t)samples); c++) {
        if (c < combos) {
            long q = c;
            for (int i = 0; i < n_inputs; i++) { set_input(i, bound_vals[i][q % NB]); q /= NB; }
        } else {
            for (int i = 0; i < n_inputs; i++) set_input(i, sample(i));
        }
        int r = run_once();
        runs++;
        if (!reads_all) die("program did not read every declared input");
        if (r != RUN_ASSUME) admitted++;
        if (r == RUN_REACHED) {
            if (!have_first) {
                have_first = 1;
                memcpy(ffirst, fin, sizeof fin);
                memcpy(dfirst, din, sizeof din);
            }
            reached++;
        }
    }
    printf("runs=%" PRIu64 " admitted=%" PRIu64 " reached=%" PRIu64, runs, admitted, reached);
    if (have_first) {
        memcpy(fin, ffirst, sizeof fin);
        memcpy(din, dfirst, sizeof din);
        print_inputs("first");
    }
    printf("\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) die("usage: driver replay|enum|search ...");
    if (!strcmp(argv[1], "replay")) return cmd_replay(argc, argv);
    if (!strcmp(argv[1], "enum")) return cmd_enum(argc, argv);
    if (!strcmp(argv[1], "search")) return cmd_search(argc, argv);
    die("unknown command");
    return 2;
}
