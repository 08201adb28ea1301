#!/usr/bin/env bash
#! Shared by bench-gsl.sh and bench-exceptions.sh: finds fpscout, runs `exceptions` and its random-only baseline per function.
#
# Sourced, not run. Defines:
#   bench_fpscout HERE        prints the fpscout binary: $FPSCOUT, else
#                             $CARGO_TARGET_DIR/release/fpscout (built when missing)
#   bench_run_pair FPSCOUT OUT T NAME FILE [ARGS...]
#                             runs, one after the other, with time budget T (the
#                             baseline with $BENCH_BASELINE_TIME when set):
#                               ours:     fpscout exceptions FILE -f NAME --json --jobs 1
#                                         --time-budget T --random 1000000000 ARGS
#                               baseline: the same with --random-only
#                             into OUT/NAME.jsonl / NAME.err / NAME.run (exit code, seconds)
#                             and OUT/NAME.random.{jsonl,err,run} (kept, not run again,
#                             when $KEEP_BASELINE is 1 and they are there); then a
#                             progress line on stderr (exported, for xargs)

bench_die() { echo "${BENCH_SCRIPT:-bench}: $*" >&2; exit 1; }

bench_fpscout() {
  local here="$1"
  if [ -n "${FPSCOUT:-}" ]; then
    [ -x "$FPSCOUT" ] || bench_die "FPSCOUT=$FPSCOUT is not an executable file"
    printf '%s\n' "$FPSCOUT"
    return
  fi
  local bin="${CARGO_TARGET_DIR:-$here/target}/release/fpscout"
  if [ ! -x "$bin" ]; then
    echo "${BENCH_SCRIPT:-bench}: $bin missing, building it (cargo build --release -p fpscout)" >&2
    (cd "$here" && cargo build --release -q -p fpscout) >&2 \
      || bench_die "cannot build fpscout (cargo build --release -p fpscout failed)"
    [ -x "$bin" ] || bench_die "cargo built no $bin (is CARGO_TARGET_DIR set differently for cargo?)"
  fi
  printf '%s\n' "$bin"
}

bench_run_pair() {
  local fpscout="$1" out="$2" t="$3" name="$4" file="$5"
  shift 5
  local mode suffix start rc budget limit
  for mode in ours random; do
    local extra=(--random 1000000000)
    suffix=""
    budget="$t"
    if [ "$mode" = random ]; then
      if [ "${KEEP_BASELINE:-0}" = 1 ] && [ -s "$out/$name.random.run" ]; then
        continue
      fi
      extra=(--random-only)
      suffix=".random"
      budget="${BENCH_BASELINE_TIME:-$t}"
    fi
    # A run that outlives its budget by far is killed (a hang must not stall the benchmark).
    limit=$(awk -v t="$budget" 'BEGIN { printf "%d", 3 * t + 120 }')
    start=$(date +%s.%N)
    rc=0
    timeout --kill-after=10 "$limit" "$fpscout" exceptions "$file" -f "$name" --json --jobs 1 \
      --time-budget "$budget" "${extra[@]}" "$@" \
      >"$out/$name$suffix.jsonl" 2>"$out/$name$suffix.err" || rc=$?
    printf '%s %s %s\n' "$rc" "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')" "$limit" \
      >"$out/$name$suffix.run"
  done
  # Functions finished so far (parallel runs share the counter under a lock).
  local n
  n=$(flock "$out/.lock" bash -c 'n=$(( $(cat "$1" 2>/dev/null || echo 0) + 1 )); echo "$n" >"$1"; echo "$n"' _ "$out/.done")
  echo "[$n/${BENCH_TOTAL:-?}] $(python3 "$BENCH_TABLE" --line "$out" "$name")" >&2
}
export -f bench_run_pair
