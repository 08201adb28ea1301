#!/usr/bin/env bash
#! `error --exhaustive` on every univariate binary32 function of the machine's glibc: the exact maximum error over all 2^32 inputs, next to the published maximum (Gladman, Innocente, Mather, Zimmermann).
#
# Usage: scripts/bench-glibc-float.sh [FILTER_REGEX]
#   JOBS=2                 processes per sweep (default: all cores)
#   TIME_PER_FUNCTION=1800 --time-budget of each sweep (a sweep stopped by it is reported
#                          as a lower bound)
#   FPSCOUT                the binary (default: $CARGO_TARGET_DIR/release/fpscout, built
#                          when missing)
#   FPSCOUT_BENCH_DIR      cache (default /var/tmp/fpscout-bench): results in
#                          $cache/glibc-float/NAME.json
#
# For each function NAME of the table below, a wrapper `float fn_NAME(float x) { return
# NAMEf(x); }` is compiled and swept:
#   fpscout error wrappers.c -f fn_NAME --reference EXPR --exhaustive --jobs J --json
# and scripts/glibc-table.py prints the maximum found (ulps, input, whether the sweep
# decided it) beside the published value of bench/glibc/published.txt.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
filter="${1:-.}"
t="${TIME_PER_FUNCTION:-1800}"
jobs="${JOBS:-$(nproc)}"
target_dir="${CARGO_TARGET_DIR:-$here/target}"
fpscout="${FPSCOUT:-$target_dir/release/fpscout}"
[[ "$t" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "TIME_PER_FUNCTION must be seconds, not '$t'" >&2; exit 2; }
[[ "$jobs" =~ ^[0-9]+$ ]] || { echo "JOBS must be a number, not '$jobs'" >&2; exit 2; }
if [ ! -x "$fpscout" ]; then
  (cd "$here" && cargo build --release -p fpscout >&2)
fi
cache="${FPSCOUT_BENCH_DIR:-/var/tmp/fpscout-bench}/glibc-float"
mkdir -p "$cache"

# NAME | reference (FPCore over x)
table='acos|(acos x)
acosh|(acosh x)
asin|(asin x)
asinh|(asinh x)
atan|(atan x)
atanh|(atanh x)
cbrt|(cbrt x)
cos|(cos x)
cosh|(cosh x)
erf|(erf x)
erfc|(erfc x)
exp|(exp x)
exp10|(pow 10 x)
exp2|(exp2 x)
expm1|(expm1 x)
j0|(j0 x)
j1|(j1 x)
lgamma|(lgamma x)
log|(log x)
log10|(log10 x)
log1p|(log1p x)
log2|(log2 x)
sin|(sin x)
sinh|(sinh x)
sqrt|(sqrt x)
tan|(tan x)
tanh|(tanh x)
tgamma|(tgamma x)
y0|(y0 x)
y1|(y1 x)'

src="$cache/wrappers.c"
{
  echo '#define _GNU_SOURCE'
  echo '#include <math.h>'
  printf '%s\n' "$table" | while IFS='|' read -r name _; do
    echo "float fn_$name(float x) { return ${name}f(x); }"
  done
} >"$src"

: >"$cache/functions.txt.$$"
printf '%s\n' "$table" | while IFS='|' read -r name ref; do
  [[ "$name" =~ $filter ]] || continue
  start=$(date +%s)
  "$fpscout" error "$src" -f "fn_$name" --reference "$ref" --exhaustive --jobs "$jobs" \
    --time-budget "$t" --json >"$cache/$name.json" 2>"$cache/$name.err" || true
  echo "$name" >>"$cache/functions.txt.$$"
  echo "bench-glibc-float: $name done in $(( $(date +%s) - start )) s" >&2
done
[ -s "$cache/functions.txt.$$" ] || { echo "bench-glibc-float: no function matches '$filter'" >&2; rm -f "$cache/functions.txt.$$"; exit 2; }
mv "$cache/functions.txt.$$" "$cache/functions.txt"

python3 "$here/scripts/glibc-table.py" "$cache" "$here/bench/glibc/published.txt" "$(ldd --version | head -n 1)"
