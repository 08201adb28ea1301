#!/usr/bin/env bash
#! Small-function benchmark of `fpscout exceptions` (Ariadne's averages, norm2, mathfns, sum): ours next to a random-only baseline given the same time.
#
# Usage: scripts/bench-exceptions.sh [FILTER_REGEX]
#   TIME_PER_FUNCTION=5    seconds per run (each function gets two runs of this budget)
#   JOBS=2                 functions analysed at once
#   FPSCOUT=path/to/fpscout  (default: $CARGO_TARGET_DIR/release/fpscout, built when missing)
#   FPSCOUT_BENCH_DIR      cache (default /var/tmp/fpscout-bench)
#
# The functions (name, file, extra arguments) are listed below; each gets
#   ours:     fpscout exceptions FILE -f NAME --json --jobs 1 --time-budget T --random 1000000000
#   baseline: the same with --random-only (random inputs over all exponents at native speed,
#             traced where they raise something)
# and one table row with both, as scripts/bench-gsl.sh prints it. The JSON Lines are kept
# in $FPSCOUT_BENCH_DIR/exceptions-small/ (NAME.jsonl, NAME.random.jsonl), the table in
# table.txt there.
# The table again, from the kept results: scripts/exceptions-table.py DIR DIR/functions.txt
set -euo pipefail

BENCH_SCRIPT=bench-exceptions
here="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/exceptions-bench-lib.sh
. "$here/scripts/exceptions-bench-lib.sh"

# name  file (relative to the repository)  extra arguments (words, no spaces inside)
functions='
av1      tests/corpus/av1.c
av2      tests/corpus/av2.c
av3      tests/corpus/av3.c
av4      tests/corpus/av4.c
norm2    tests/corpus/norm2.c  --array-len x=4 --int n=4
mathfns  tests/corpus/mathfns.c
sum      examples/sum.c        --array-len x=9 --int n=9
'

script_start=$(date +%s.%N)
filter="${1:-.}"
[ $# -le 1 ] || bench_die "usage: scripts/bench-exceptions.sh [FILTER_REGEX]"
t="${TIME_PER_FUNCTION:-5}"
jobs="${JOBS:-2}"
[[ "$t" =~ ^[0-9]+(\.[0-9]+)?$ ]] || bench_die "TIME_PER_FUNCTION must be a number of seconds, not '$t'"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || bench_die "JOBS must be a positive integer, not '$jobs'"
for tool in python3 timeout flock; do
  command -v "$tool" >/dev/null || bench_die "$tool not found"
done
rc=0; grep -qE "$filter" </dev/null 2>/dev/null || rc=$?
[ "$rc" != 2 ] || bench_die "bad FILTER_REGEX '$filter' (grep -E syntax)"

out="${FPSCOUT_BENCH_DIR:-/var/tmp/fpscout-bench}/exceptions-small"
mkdir -p "$out"

# The selected lines, with absolute file paths.
printf '%s\n' "$functions" | awk 'NF' | awk -v f="$filter" '$1 ~ f' \
  | awk -v here="$here" '{ $2 = here "/" $2; print }' >"$out/functions.txt"
count=$(wc -l <"$out/functions.txt")
[ "$count" -gt 0 ] || bench_die "no function matches '$filter'"
while read -r name file _; do
  [ -f "$file" ] || bench_die "$file missing (for $name)"
  rm -f "$out/$name".{jsonl,err,run} "$out/$name".random.{jsonl,err,run}
done <"$out/functions.txt"
rm -f "$out/.done"
fpscout="$(bench_fpscout "$here")"
echo "bench-exceptions: $count functions, $t s per run, $jobs at a time; results in $out" >&2
echo "bench-exceptions: fpscout: $fpscout" >&2
export BENCH_TOTAL="$count" BENCH_TABLE="$here/scripts/exceptions-table.py" BENCH_SCRIPT

# Each line: NAME FILE ARGS... (xargs -L1 splits it into words).
xargs -P "$jobs" -L1 bash -c 'bench_run_pair "$@"' _ "$fpscout" "$out" "$t" \
  <"$out/functions.txt" || echo "bench-exceptions: some runs did not finish cleanly (see $out/*.err)" >&2

elapsed=$(awk -v s="$script_start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
python3 "$BENCH_TABLE" "$out" "$out/functions.txt" "$elapsed" | tee "$out/table.txt"
