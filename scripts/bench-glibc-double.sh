#!/usr/bin/env bash
#! `error --reference` on the univariate binary64 functions of the machine's glibc, next to the error at the worst inputs known to Zimmermann et al.'s search tool (bench/glibc/double-known-inputs.txt), measured on the same glibc with mpmath.
#
# Usage: scripts/bench-glibc-double.sh [FILTER_REGEX]
#   TIME_PER_FUNCTION=600  --time-budget of each error run (issue #32's goal: 10 minutes)
#   OBJECTIVE=ulps         error's --objective: ulps (what the accuracy tables measure), or
#                          relative
#   JOBS=1                 error's --jobs: native-scan processes per function (functions
#                          run one after another)
#   FPSCOUT                the binary (default: $CARGO_TARGET_DIR/release/fpscout, built
#                          when missing)
#   FPSCOUT_BENCH_DIR      cache (default /var/tmp/fpscout-bench): $cache/glibc-double/NAME.json
#   TABLE_ONLY=1           run nothing: the table of the cached records of the functions
#                          matching FILTER_REGEX (e.g. after runs side by side on two
#                          cores, each with its own filter)
#
# Needs python3 with mpmath. For each function: a wrapper `double fn_NAME(double x)`,
#   fpscout error wrappers.c -f fn_NAME --reference EXPR --time-budget T --jobs J --json
# and the table: fpscout's worst finite error (ulps of binary64, re-measured with mpmath at
# 80 digits from the result the JSON reports), and the error of this glibc at the known
# input (glibc called through ctypes, mpmath for the exact value).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
filter="${1:-.}"
t="${TIME_PER_FUNCTION:-600}"
objective="${OBJECTIVE:-ulps}"
jobs="${JOBS:-1}"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "JOBS must be a positive integer, not '$jobs'" >&2; exit 2; }
[[ "$objective" =~ ^(ulps|relative)$ ]] || { echo "OBJECTIVE must be ulps or relative, not '$objective'" >&2; exit 2; }
target_dir="${CARGO_TARGET_DIR:-$here/target}"
fpscout="${FPSCOUT:-$target_dir/release/fpscout}"
[[ "$t" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "TIME_PER_FUNCTION must be seconds, not '$t'" >&2; exit 2; }
python3 -c "import mpmath" 2>/dev/null || { echo "bench-glibc-double: python3's mpmath is needed (pip install mpmath)" >&2; exit 2; }
table_only="${TABLE_ONLY:-0}"
if [ "$table_only" != 1 ] && [ ! -x "$fpscout" ]; then
  (cd "$here" && cargo build --release -p fpscout >&2)
fi
cache="${FPSCOUT_BENCH_DIR:-/var/tmp/fpscout-bench}/glibc-double"
mkdir -p "$cache"

# NAME | reference (FPCore over x) | mpmath expression over x
table='acos|(acos x)|acos(x)
acosh|(acosh x)|acosh(x)
asin|(asin x)|asin(x)
asinh|(asinh x)|asinh(x)
atan|(atan x)|atan(x)
atanh|(atanh x)|atanh(x)
cbrt|(cbrt x)|sign(x)*cbrt(abs(x))
cos|(cos x)|cos(x)
cosh|(cosh x)|cosh(x)
erf|(erf x)|erf(x)
erfc|(erfc x)|erfc(x)
exp|(exp x)|exp(x)
exp10|(pow 10 x)|power(10, x)
exp2|(exp2 x)|power(2, x)
expm1|(expm1 x)|expm1(x)
j0|(j0 x)|besselj(0, x)
j1|(j1 x)|besselj(1, x)
lgamma|(lgamma x)|log(abs(gamma(x)))
log|(log x)|log(x)
log10|(log10 x)|log10(x)
log1p|(log1p x)|log1p(x)
log2|(log2 x)|log(x, 2)
sin|(sin x)|sin(x)
sinh|(sinh x)|sinh(x)
sqrt|(sqrt x)|sqrt(x)
tan|(tan x)|tan(x)
tanh|(tanh x)|tanh(x)
tgamma|(tgamma x)|gamma(x)
y0|(y0 x)|bessely(0, x)
y1|(y1 x)|bessely(1, x)'

src="$cache/wrappers.c"
{
  echo '#define _GNU_SOURCE'
  echo '#include <math.h>'
  printf '%s\n' "$table" | while IFS='|' read -r name _ _; do
    echo "double fn_$name(double x) { return $name(x); }"
  done
} >"$src"

# This invocation's functions (invocations side by side each keep their own list).
functions="$cache/functions.txt.$$"
trap 'rm -f "$functions"' EXIT
: >"$functions"
printf '%s\n' "$table" | while IFS='|' read -r name ref mp; do
  [[ "$name" =~ $filter ]] || continue
  if [ "$table_only" = 1 ]; then
    [ -s "$cache/$name.json" ] || continue
  else
    "$fpscout" error "$src" -f "fn_$name" --reference "$ref" --time-budget "$t" \
      --objective "$objective" --jobs "$jobs" --json \
      >"$cache/$name.json" 2>"$cache/$name.err" || true
    echo "bench-glibc-double: $name done" >&2
  fi
  printf '%s|%s\n' "$name" "$mp" >>"$functions"
done
[ -s "$functions" ] || { echo "bench-glibc-double: no function matches '$filter'" >&2; exit 2; }

python3 - "$cache" "$here/bench/glibc/double-known-inputs.txt" "$t" "$(ldd --version | head -n 1)" "$objective" "$functions" <<'PY'
import ctypes, json, sys
from pathlib import Path
import mpmath

cache, known_file, budget, libc, objective, functions = (
    Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5],
    Path(sys.argv[6]))
mpmath.mp.dps = 80
libm = ctypes.CDLL("libm.so.6")
known = {}
for line in known_file.read_text().splitlines():
    line = line.split("#", 1)[0].split()
    if line:
        known[line[0]] = float.fromhex(line[1])

def ulps(computed, expr, x):
    """Error of `computed` in ulps of binary64 at the exact value's binade."""
    exact = eval(expr, {**{k: getattr(mpmath, k) for k in dir(mpmath) if not k.startswith("_")},
                        "x": mpmath.mpf(x)})
    if not mpmath.isfinite(exact) or isinstance(exact, mpmath.mpc):
        return None
    if exact == 0:
        binade = -1074
    else:
        binade = max(int(mpmath.floor(mpmath.log(abs(exact), 2))) - 52, -1074)
    return float(abs(mpmath.mpf(computed) - exact) / mpmath.mpf(2) ** binade)

print(f"libc: {libc}; fpscout error --reference --objective {objective}, {budget} s per function")
print(f"{'function':<8} {'fpscout ulps':>12} {'at x':>24}  {'known input ulps':>16} {'at x':>24}  as bad")
n = at_least = 0
for entry in functions.read_text().splitlines():
    name, expr = entry.split("|", 1)
    record = None
    path = cache / f"{name}.json"
    for line in path.read_text().splitlines() if path.exists() else []:
        r = json.loads(line)
        if r.get("type") == "error":
            record = r["data"]
    ours, ours_at = None, "-"
    w = (record or {}).get("worst_finite") or {}
    if w.get("computed") is not None and w.get("inputs"):
        ours_at = w["inputs"][0]["value"]["hex"]
        ours = ulps(float.fromhex(w["computed"]), expr, float.fromhex(ours_at))
    f = getattr(libm, name)
    f.restype, f.argtypes = ctypes.c_double, [ctypes.c_double]
    kx = known.get(name)
    theirs = ulps(f(kx), expr, kx) if kx is not None else None
    n += 1
    verdict = "-"
    if ours is not None and theirs is not None:
        verdict = "yes" if ours >= theirs * (1 - 1e-3) else "no"
        at_least += verdict == "yes"
    fmt = lambda v: "-" if v is None else f"{v:.4g}"
    print(f"{name:<8} {fmt(ours):>12} {ours_at:>24}  {fmt(theirs):>16} {kx.hex() if kx is not None else '-':>24}  {verdict}")
print()
print(f"at least as bad as the known input for {at_least} of {n} functions")
PY
