#!/usr/bin/env bash
#! Benchmark of `fpscout reach`: per program, our answer and time next to random generate-and-test (--random-only) and Z3 QF_FP on the same path constraints (--solver z3fp), each given the same budget.
#
# Usage: scripts/bench-reach.sh [FILTER_REGEX]
#   TIME_BUDGET=10          seconds per run (each program gets three runs of this budget)
#   FPSCOUT=path/to/fpscout (default: $CARGO_TARGET_DIR/release/fpscout, built when missing)
#   BASELINES=0             our column only (the random and Z3 columns print '-'), e.g. to
#                           compare two fpscout builds under the same load
#
# Programs: tests/svcomp/*.c, tests/reach/*.c (with their ranges and targets below), and
# bench/reach/*.c with its expected.tsv when that corpus is present (BENCH_REACH_DIR
# elsewhere). The Z3 column walks the same paths without our propagation deciding any
# branch, and gives every path reaching the target to Z3's floating-point theory.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$here/target}"
fpscout="${FPSCOUT:-$target_dir/release/fpscout}"
if [ ! -x "$fpscout" ]; then
  (cd "$here" && cargo build --release -p fpscout >&2)
fi
t="${TIME_BUDGET:-10}"
[[ "$t" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "TIME_BUDGET must be seconds, not '$t'" >&2; exit 2; }
filter="${1:-.}"

# name | file | arguments (words, no spaces inside) | expected answer
programs="
absorption|tests/svcomp/absorption.c||unreachable
loop_sum|tests/svcomp/loop_sum.c|--array-len floats=3|unreachable
overflow_guard|tests/svcomp/overflow_guard.c||reachable
halving|tests/reach/halving.c|--loop-bound 24|unreachable
foo|tests/reach/fpse.c|-f foo --output-range 1:1|unreachable
foo_m|tests/reach/fpse.c|-f foo_m --output-range 1:1|reachable
polynomial|tests/reach/polynomial.c|-f polynomial --range a=1e3:1e4 --range b=0:1 --range c=1e3:1e4 --outside 1000000000.01:inf|reachable
heron_1e-5|tests/reach/heron.c|-f heron_squared --range a=5:10 --range b=0:5 --range c=0:5 --outside=-1e-5:156.25001|reachable
heron_1e-3|tests/reach/heron.c|-f heron_squared --range a=5:10 --range b=0:5 --range c=0:5 --output-range=156.251:inf|unreachable
"
corpus="${BENCH_REACH_DIR:-$here/bench/reach}"
if [ -f "$corpus/expected.tsv" ]; then
  # expected.tsv: program<TAB>answer<TAB>... with a header line; the program is NAME.c
  while IFS=$'\t' read -r name expected _; do
    case "$name" in ''|'#'*|program) continue ;; esac
    programs+="$name|$corpus/$name.c||$expected"$'\n'
  done < "$corpus/expected.tsv"
fi

# One run: prints "answer seconds".
run() {
  local file="$1"; shift
  local out
  case "$file" in /*) ;; *) file="$here/$file" ;; esac
  out="$("$fpscout" reach "$file" "$@" --time-budget "$t" --json 2>/dev/null || true)"
  python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r["type"] == "answer":
        d = r["data"]
        print(d["answer"].replace(" ", "_"), "%.2f" % d["wall_s"])
        break
else:
    print("error -")
' <<<"$out"
}

printf '%-20s %-12s %-30s %8s  %-12s %8s  %-30s %8s\n' program expected ours time random time z3_qf_fp time
while IFS='|' read -r name file args expected; do
  [ -n "$name" ] || continue
  [[ "$name" =~ $filter ]] || continue
  # shellcheck disable=SC2086
  read -r ours ours_t < <(run "$file" $args)
  if [ "${BASELINES:-1}" = 0 ]; then
    rnd=- rnd_t=- z3=- z3_t=-
  else
    # shellcheck disable=SC2086
    read -r rnd rnd_t < <(run "$file" $args --random-only)
    # shellcheck disable=SC2086
    read -r z3 z3_t < <(run "$file" $args --solver z3fp)
  fi
  printf '%-20s %-12s %-30s %8s  %-12s %8s  %-30s %8s\n' "$name" "$expected" "$ours" "$ours_t" "$rnd" "$rnd_t" "$z3" "$z3_t"
done <<<"$programs"
