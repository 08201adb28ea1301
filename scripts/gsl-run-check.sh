#!/usr/bin/env bash
#! GSL special functions, run check: which scalar gsl_sf_* functions fpscout runs, and why the others fail.
#
# Usage: scripts/gsl-run-check.sh [FILTER_REGEX]
#   FPSCOUT=path/to/fpscout  (default: target/release/fpscout under CARGO_TARGET_DIR)
#   JOBS=2                   parallel runs
#
# Lists every `double gsl_sf_*(double)` and `double gsl_sf_*(double, double)` of the
# module built by scripts/gsl-bitcode.sh, runs `fpscout run` on each with a sample
# argument (0.7, or 0.7,1.3), and prints one row per function: `works` when both builds
# ran and the interpreter agrees with the native executable (result bits and flags),
# else the first reason. Logs and the table are kept in $cache/run-check/.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
bc="$("$here/scripts/gsl-bitcode.sh")"
cache="$(dirname "$bc")"
out="$cache/run-check"
mkdir -p "$out/logs"

target="${CARGO_TARGET_DIR:-$here/target}"
fpscout="${FPSCOUT:-$target/release/fpscout}"
if [ ! -x "$fpscout" ]; then
  (cd "$here" && cargo build -q -p fpscout --release) || { echo "gsl-run-check: cannot build fpscout" >&2; exit 1; }
fi

filter="${1:-.}"
# The scalar entry points: exactly one or two double parameters, double result.
llvm-dis-19 "$bc" -o - \
  | sed -nE 's/^define (dso_local )?double @(gsl_sf_[A-Za-z0-9_]+)\((double [^,)]*(, double [^,)]*)?)\).*/\2 \3/p' \
  | awk '{ n = gsub(/double/, "&", $0) - 0; print $1, (n >= 2 ? "0.7,1.3" : "0.7") }' \
  | grep -E "$filter" | sort >"$out/functions.txt"

run_one() {
  local fpscout="$1" bc="$2" out="$3" name="$4" args="$5"
  local log="$out/logs/$name.log" status
  if "$fpscout" run "$bc" -f "$name" --args "$args" --time-budget 60 >"$log" 2>&1; then
    status=0
  else
    status=$?
  fi
  local verdict
  if [ "$status" != 0 ]; then
    verdict="fails: $(grep -m1 -E 'error|unsupported' "$log" | sed 's/^fpscout: error: //' | cut -c1-200)"
  elif grep -qE '^agrees natively +yes +yes' "$log"; then
    verdict="works"
  else
    # Which build, and the interpreter's flags against the executable's.
    local which flags native
    which=$(sed -nE 's/^agrees natively +(yes|NO) +(yes|NO).*/\1 \2/p' "$log" \
      | awk '{ print ($1 == "NO" ? ($2 == "NO" ? "P and P'"'"'" : "P") : "P'"'"'") }')
    flags=$(sed -nE 's/^flags raised +//p' "$log" | tr -s ' ')
    native=$(sed -nE 's/^native flags +//p' "$log" | tr -s ' ')
    verdict="fails: disagrees natively in $which (flags P P': $flags; native: $native)"
  fi
  printf '%s\t%s\t%s\n' "$name" "$args" "$verdict"
}
export -f run_one

while read -r name args; do printf '%s %s\n' "$name" "$args"; done <"$out/functions.txt" \
  | xargs -P "${JOBS:-2}" -L1 bash -c 'run_one "$@"' _ "$fpscout" "$bc" "$out" \
  | sort >"$out/table.tsv" || true

column -t -s $'\t' "$out/table.tsv"
total=$(wc -l <"$out/table.tsv")
works=$(grep -c $'\tworks$' "$out/table.tsv" || true)
echo
echo "works: $works / $total   (logs: $out/logs, table: $out/table.tsv)"
echo "most common failure reasons:"
grep -v $'\tworks$' "$out/table.tsv" | cut -f3 \
  | sed -E 's/function .[a-z_0-9]+./function F/; s/at [^ ]+:[0-9]+:[0-9]+/at FILE/; s/\[.*\]$//' \
  | sort | uniq -c | sort -rn | head -n 10
