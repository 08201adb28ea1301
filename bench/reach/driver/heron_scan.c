/* heron_scan.c: evidence for heron_high_1e3.c: the largest float Heron squared area near the real maximiser.
 *
 * Scans every float a in [7.05, 7.09] (the real maximiser is a = 5*sqrt(2) = 7.0711) with b and
 * c each among the 128 floats at or below 5 (the area grows with b and c, so the maximum sits at
 * the corner b = c = 5), evaluating the exact expression of bench/reach/heron_*.c, and prints
 * the largest value and its excess over 156.25. Not a proof: a scan of the likeliest region.
 * Build and run (about 1.4e9 evaluations):
 *   clang-19 -O0 -ffp-contract=off bench/reach/driver/heron_scan.c -o /tmp/heron_scan && /tmp/heron_scan
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static float bits_to_float(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t float_to_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

int main(void) {
    float best = 0.0f, ba = 0.0f, bb = 0.0f, bc = 0.0f;
    for (uint32_t i = 0; i < 128; i++) {
        for (uint32_t j = 0; j < 128; j++) {
            float b = bits_to_float(float_to_bits(5.0f) - i), c = bits_to_float(float_to_bits(5.0f) - j);
            for (uint32_t u = float_to_bits(7.05f); u <= float_to_bits(7.09f); u++) {
                float a = bits_to_float(u);
                /* same assumptions and expression as heron_high_1e3.c */
                if (!(a >= b && a >= c && a <= b + c)) continue;
                float s = (a + b + c) / 2.0f;
                float area2 = s * (s - a) * (s - b) * (s - c);
                if (area2 > best) { best = area2; ba = a; bb = b; bc = c; }
            }
        }
    }
    printf("max %.9g (excess over 156.25: %.3g) at a, b, c = %a; %a; %a\n", best, (double)best - 156.25,
           (double)ba, (double)bb, (double)bc);
    return 0;
}
