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
# both with --setup-call gsl_set_error_handler_off (GSL's default handler aborts).
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
    --setup-call gsl_set_error_handler_off \
    "${range_args[@]}" >"$cache/$name.json" 2>"$cache/$name.err" || true
  "$fpscout" error "$bc" -f "$name" --time-budget "$t" --json \
    --setup-call gsl_set_error_handler_off \
    "${range_args[@]}" >"$cache/$name.shadow.json" 2>"$cache/$name.shadow.err" || true
  printf '%s|%s\n' "$name" "$mp" >>"$cache/todo.txt.$$"
  echo "bench-reference: $name done" >&2
done
[ -f "$cache/todo.txt.$$" ] || { echo "bench-reference: no function matches '$filter'" >&2; exit 2; }
mv "$cache/todo.txt.$$" "$cache/functions.txt"

python3 "$here/scripts/reference-table.py" "$cache"
