#!/usr/bin/env bash
#! GSL special-function benchmark of `fpscout exceptions`: every scalar gsl_sf_* function, ours next to a random-only baseline given the same time.
#
# Usage: scripts/bench-gsl.sh [FILTER_REGEX]
#        scripts/bench-gsl.sh --slurm [SHARDS]   (root; SHARDS default 8)
#   --slurm: the whole GSL module as one whole-library `fpscout exceptions` run, split into
#   SHARDS array tasks on a single-node Slurm cluster started here, merged by
#   `fpscout report`, next to the same run unsharded (scripts/test-slurm.sh with
#   SOURCE=specfunc.bc, MEASURE=1): shards, wall times, merged and unsharded counts.
#   TIME_PER_FUNCTION=20   seconds per run of ours
#   BASELINE_TIME_PER_FUNCTION  seconds per baseline run (default TIME_PER_FUNCTION; #29's
#                          goal compares ours at 15 s with the baseline at 54 s)
#   JOBS=2                 functions analysed at once
#   KEEP_BASELINE=1        keep the baseline results an earlier run left (ours alone runs)
#   FPSCOUT=path/to/fpscout  (default: $CARGO_TARGET_DIR/release/fpscout, built when missing)
#   FPSCOUT_BENCH_DIR      cache (default /var/tmp/fpscout-bench), as scripts/gsl-bitcode.sh
#
# Lists every `double gsl_sf_*(double)` and `double gsl_sf_*(double, double)` of the module
# built by scripts/gsl-bitcode.sh (the non-`_e` forms; 133 functions in GSL 2.7.1: expect
# about 133 x (TIME_PER_FUNCTION + BASELINE_TIME_PER_FUNCTION) / JOBS seconds, ~45 minutes
# with the defaults), keeps
# those whose name matches FILTER_REGEX, and runs on each
#   ours:     fpscout exceptions specfunc.bc -f NAME --json --jobs 1 --time-budget T
#                 --random 1000000000     (random inputs fill the time solving leaves)
#   baseline: fpscout exceptions specfunc.bc -f NAME --json --jobs 1 --time-budget B (B: BASELINE_TIME_PER_FUNCTION)
#                 --random-only           (random doubles over all exponents at native
#                                          speed, traced where they raise something)
# The JSON Lines of each run are kept in $cache/exceptions/NAME.jsonl and
# NAME.random.jsonl (stderr in .err, exit status and seconds in .run); the table printed
# at the end is also written to $cache/exceptions/table.txt. Progress lines go to stderr
# as functions finish.
# The table again, from the kept results: scripts/exceptions-table.py DIR DIR/functions.txt
set -euo pipefail

BENCH_SCRIPT=bench-gsl
here="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/exceptions-bench-lib.sh
. "$here/scripts/exceptions-bench-lib.sh"

if [ "${1:-}" = "--slurm" ]; then
  bc="$("$here/scripts/gsl-bitcode.sh")" || bench_die "scripts/gsl-bitcode.sh failed"
  SOURCE="$bc" MEASURE=1 FPSCOUT="$(bench_fpscout "$here")" \
    FPSCOUT_ARGS="--time-budget ${TIME_PER_FUNCTION:-20} --jobs 1" \
    exec "$here/scripts/test-slurm.sh" "${2:-8}"
fi

script_start=$(date +%s.%N)
filter="${1:-.}"
[ $# -le 1 ] || bench_die "usage: scripts/bench-gsl.sh [FILTER_REGEX]"
t="${TIME_PER_FUNCTION:-20}"
jobs="${JOBS:-2}"
[[ "$t" =~ ^[0-9]+(\.[0-9]+)?$ ]] || bench_die "TIME_PER_FUNCTION must be a number of seconds, not '$t'"
baseline_t="${BASELINE_TIME_PER_FUNCTION:-$t}"
[[ "$baseline_t" =~ ^[0-9]+(\.[0-9]+)?$ ]] || bench_die "BASELINE_TIME_PER_FUNCTION must be a number of seconds, not '$baseline_t'"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || bench_die "JOBS must be a positive integer, not '$jobs'"
for tool in python3 llvm-dis-19 timeout flock; do
  command -v "$tool" >/dev/null || bench_die "$tool not found"
done
# grep -E exits 2 on a bad pattern: say so before any work.
rc=0; grep -qE "$filter" </dev/null 2>/dev/null || rc=$?
[ "$rc" != 2 ] || bench_die "bad FILTER_REGEX '$filter' (grep -E syntax)"

bc="$("$here/scripts/gsl-bitcode.sh")" || bench_die "scripts/gsl-bitcode.sh failed"
out="$(dirname "$bc")/exceptions"
mkdir -p "$out"

# The scalar entry points: exactly one or two double parameters, double result.
llvm-dis-19 "$bc" -o - \
  | sed -nE 's/^define (dso_local )?double @(gsl_sf_[A-Za-z0-9_]+)\((double [^,)]*(, double [^,)]*)?)\).*/\2/p' \
  | { grep -E "$filter" || true; } | sort -u >"$out/functions.txt"
count=$(wc -l <"$out/functions.txt")
[ "$count" -gt 0 ] || bench_die "no scalar gsl_sf_* function matches '$filter'"
fpscout="$(bench_fpscout "$here")"
echo "bench-gsl: $count functions, $t s per run ($baseline_t s for the baseline), $jobs at a time; results in $out" >&2
echo "bench-gsl: fpscout: $fpscout" >&2

# Results of an earlier run of these functions are removed: the table is of this run.
while read -r name; do
  rm -f "$out/$name".{jsonl,err,run}
  [ "${KEEP_BASELINE:-0}" = 1 ] || rm -f "$out/$name".random.{jsonl,err,run}
done <"$out/functions.txt"
rm -f "$out/.done"
export BENCH_TOTAL="$count" BENCH_TABLE="$here/scripts/exceptions-table.py" BENCH_SCRIPT
export BENCH_BASELINE_TIME="$baseline_t"

xargs -P "$jobs" -I{} bash -c 'bench_run_pair "$@"' _ "$fpscout" "$out" "$t" {} "$bc" \
  <"$out/functions.txt" || echo "bench-gsl: some runs did not finish cleanly (see $out/*.err)" >&2

elapsed=$(awk -v s="$script_start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
{
  python3 "$BENCH_TABLE" "$out" "$out/functions.txt" "$elapsed"
  echo
  echo "unique (GSL source line, kind) at GSL's own instructions, ours at $t s, random at $baseline_t s:"
  python3 "$here/scripts/gsl-sets.py" "$out" "$out/functions.txt"
} | tee "$out/table.txt"
