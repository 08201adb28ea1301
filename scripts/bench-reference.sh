#!/usr/bin/env bash
#! `error --reference` on GSL's special functions: fpscout's error at its worst input next to an independent mpmath evaluation of the same input, and next to the shadow run's own error.
#
# Usage: scripts/bench-reference.sh [FILTER_REGEX]
#   TIME_PER_FUNCTION=15   --time-budget of each error run
#   FPSCOUT                the binary (default: $CARGO_TARGET_DIR/release/fpscout, built when missing)
#   FPSCOUT_BENCH_DIR      cache (default /var/tmp/fpscout-bench): GSL's bitcode from
#                          scripts/gsl-bitcode.sh (Debian source package `gsl`, fetched at
#                          run time), results in $cache/reference/NAME.{json,shadow.json}
#
# Needs python3 with mpmath (pip install mpmath). For each function of the table below:
#   fpscout error specfunc.bc -f NAME --reference EXPR --time-budget T --json
#   fpscout error specfunc.bc -f NAME --time-budget T --json        (the shadow run alone)
# and then, at the worst input the first reported, the error of GSL's result against
# mpmath's value of the same mathematical function at 60 digits, in ulps of binary64 (the
# ulp of the binade holding the exact value), and whether it agrees with fpscout's within
# 1 % (issue #32's goal). Also: bug-level inputs (relative error above 1e-3, result and
# exact value finite) each run kept.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
filter="${1:-.}"
t="${TIME_PER_FUNCTION:-15}"
target_dir="${CARGO_TARGET_DIR:-$here/target}"
fpscout="${FPSCOUT:-$target_dir/release/fpscout}"
[[ "$t" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "TIME_PER_FUNCTION must be seconds, not '$t'" >&2; exit 2; }
python3 -c "import mpmath" 2>/dev/null || { echo "bench-reference: python3's mpmath is needed (pip install mpmath)" >&2; exit 2; }
if [ ! -x "$fpscout" ]; then
  (cd "$here" && cargo build --release -p fpscout >&2)
fi
bc="$("$here/scripts/gsl-bitcode.sh")"
cache="${FPSCOUT_BENCH_DIR:-/var/tmp/fpscout-bench}/reference"
mkdir -p "$cache"

# NAME | fpscout reference (FPCore over GSL's parameter names) | mpmath expression | ranges
table='gsl_sf_bessel_J0|(j0 x)|besselj(0, x)|
gsl_sf_bessel_J1|(j1 x)|besselj(1, x)|
gsl_sf_bessel_Y0|(y0 x)|bessely(0, x)|x=1e-300:1e300
gsl_sf_bessel_Y1|(y1 x)|bessely(1, x)|x=1e-300:1e300
gsl_sf_lngamma|(lgamma x)|log(abs(gamma(x)))|x=-1e6:1e300
gsl_sf_gamma|(tgamma x)|gamma(x)|x=-170:171
gsl_sf_erf|(erf x)|erf(x)|
gsl_sf_erfc|(erfc x)|erfc(x)|
gsl_sf_expint_Ei|(eint x)|ei(x)|x=-700:700
gsl_sf_dilog|(li2 x)|re(polylog(2, x))|x=-1e6:1e6
gsl_sf_psi|(digamma x)|digamma(x)|x=-1e6:1e6
gsl_sf_zeta|(zeta s)|zeta(s)|s=-170:1e6
gsl_sf_log_1plusx|(log1p x)|log1p(x)|x=-0.999:1e300
gsl_sf_log_1plusx_mx|(- (log1p x) x)|log1p(x) - x|x=-0.999:1e300
gsl_sf_expm1|(expm1 x)|expm1(x)|x=-700:700
gsl_sf_exprel|(/ (expm1 x) x)|expm1(x) / x|x=-700:700
gsl_sf_hypot|(hypot x y)|hypot(x, y)|
gsl_sf_beta|(beta x y)|beta(x, y)|x=0:170 y=0:170'

printf '%s\n' "$table" | while IFS='|' read -r name ref mp ranges; do
  [[ "$name" =~ $filter ]] || continue
  range_args=()
  for r in $ranges; do range_args+=(--range "$r"); done
  "$fpscout" error "$bc" -f "$name" --reference "$ref" --time-budget "$t" --json \
    "${range_args[@]}" >"$cache/$name.json" 2>"$cache/$name.err" || true
  "$fpscout" error "$bc" -f "$name" --time-budget "$t" --json \
    "${range_args[@]}" >"$cache/$name.shadow.json" 2>"$cache/$name.shadow.err" || true
  printf '%s|%s\n' "$name" "$mp" >>"$cache/todo.txt.$$"
  echo "bench-reference: $name done" >&2
done
[ -f "$cache/todo.txt.$$" ] || { echo "bench-reference: no function matches '$filter'" >&2; exit 2; }
mv "$cache/todo.txt.$$" "$cache/functions.txt"

python3 - "$cache" <<'EOF'
import json, math, sys
import mpmath
from mpmath import mp
mp.dps = 60
cache = sys.argv[1]

def record(path):
    try:
        for line in open(path):
            r = json.loads(line)
            if r.get("type") == "error":
                return r["data"]
    except (OSError, ValueError):
        pass
    return None

def num(v):
    return float(v) if not isinstance(v, str) else float(v.replace("inf", "Infinity"))

def ulps(computed, exact):
    """|computed - exact| in ulps of the binade holding exact (binary64, subnormals too)."""
    if not mpmath.isfinite(exact):
        return math.inf
    diff = abs(mpmath.mpf(computed) - exact)
    if exact == 0:
        return float(diff / mpmath.mpf(2) ** -1074)
    e = max(int(mpmath.floor(mpmath.log(abs(exact), 2))), -1022)
    return float(diff / mpmath.mpf(2) ** (e - 52))

rows, agree, measured = [], 0, 0
for line in open(f"{cache}/functions.txt"):
    name, expr = line.rstrip("\n").split("|", 1)
    r, s = record(f"{cache}/{name}.json"), record(f"{cache}/{name}.shadow.json")
    shadow_bits = num(s["bits"]) if s and s.get("bits") is not None else None
    if not r or r.get("ulps") is None:
        rows.append((name, None, None, None, None, shadow_bits, 0, "not measured"))
        continue
    env = {}
    for i in r["inputs"]:
        env[i["name"]] = mpmath.mpf(float.fromhex(i["value"]["hex"]))
    computed = float.fromhex(r["computed"]) if "nan" not in r["computed"] and "inf" not in r["computed"] else float(r["computed"].split("(")[0])
    names = {k: getattr(mpmath, k) for k in dir(mpmath) if not k.startswith("_")}
    names.update(env)
    try:
        exact = eval(expr, {"__builtins__": {}}, names)
        if isinstance(exact, mpmath.mpc):
            exact = exact.real if abs(exact.imag) < mpmath.mpf(10) ** -50 * max(1, abs(exact.real)) else mpmath.nan
        independent = ulps(computed, exact)
    except Exception as e:  # mpmath refused the input: say so
        independent, exact = None, None
    ours = num(r["ulps"])
    ok = None
    if independent is not None and math.isfinite(ours) and math.isfinite(independent):
        measured += 1
        ok = abs(ours - independent) <= 0.01 * max(abs(independent), 1e-9) or (ours < 0.5 and independent < 0.5 and abs(ours - independent) < 0.01)
        agree += ok
    rows.append((name, ours, independent, ok, num(r["bits"]), shadow_bits, len(r.get("bug_inputs", [])), ""))

print(f"{'function':<24} {'ulps (fpscout)':>15} {'ulps (mpmath)':>14} {'agree':>6} {'bits':>6} {'shadow bits':>12} {'bug-level':>9}")
for name, ours, ind, ok, bits, sb, bugs, note in rows:
    if ours is None:
        print(f"{name:<24} {'-':>15} {'-':>14} {'-':>6} {'-':>6} {(f'{sb:.1f}' if sb is not None else '-'):>12} {'-':>9}  {note}")
        continue
    f = lambda x: "-" if x is None else (f"{x:.4g}" if math.isfinite(x) else "inf")
    okt = "-" if ok is None else ("yes" if ok else "NO")
    print(f"{name:<24} {f(ours):>15} {f(ind):>14} {okt:>6} {bits:>6.1f} {(f'{sb:.1f}' if sb is not None else '-'):>12} {bugs:>9}")
print(f"\nagree within 1 % at the worst input: {agree} of {measured} functions with a finite error both ways")
print("bits: fpscout's error against the reference; shadow bits: the same function's worst error against")
print("its own algorithm at 256 bits (no --reference); bug-level: distinct inputs above 1e-3 kept")
EOF
