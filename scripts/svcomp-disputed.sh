#!/usr/bin/env bash
#! Runs the SV-COMP tasks whose expected verdict `true` is wrong, natively, on the input that fails their assertion: evidence for bench/reach/svcomp-disputed.md.
#
# Usage: scripts/svcomp-disputed.sh SV_BENCHMARKS_C_DIR
#
# loop-floats-scientific-comp/loop1-1, loop2-2 and loop3 sum a Taylor series in a
# `while (1)` loop that a nondet int leaves, with an `unsigned int count` divisor. After
# 2^32 increments the count wraps to 0: x/count is an infinity (or 0/0), the term, long
# since 0, times it is NaN, the sums become NaN and the final comparison fails. Each
# task is compiled as it ships, with __VERIFIER_nondet_int returning nonzero exactly as
# often as needed for that wrap, __VERIFIER_nondet_float returning an x inside the
# task's assumptions; the task's own error function then ends the run. About a minute
# per task (billions of iterations at -O0).
set -euo pipefail
[ $# -eq 1 ] || { sed -n '4p' "$0" | sed 's/^# //' >&2; exit 2; }
dir="$(cd "$1/loop-floats-scientific-comp" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# task, x, iterations (nondet_int nonzero iterations-1 times, then 0)
tasks=(
  "loop1-1 0.5 4294967296"
  "loop2-2 2.0 2147483648"
  "loop3 0.2 2147483648"
)
printf '%-10s %-5s %-12s %s\n' task x iterations outcome
for t in "${tasks[@]}"; do
  read -r name x iterations <<<"$t"
  cat >"$work/support.c" <<EOF
#include <stdio.h>
#include <stdlib.h>
__attribute__((weak)) void __VERIFIER_error(void) { fputs("__VERIFIER_error() reached\\n", stderr); abort(); }
__attribute__((weak)) void reach_error(void) { fputs("reach_error() reached\\n", stderr); abort(); }
float __VERIFIER_nondet_float(void) { return ${x}f; }
static unsigned long long fpscout_calls;
int __VERIFIER_nondet_int(void) { return ++fpscout_calls < ${iterations}ULL; }
EOF
  for before in $((iterations - 1)) "$iterations"; do
    sed -i "s/< [0-9]*ULL/< ${before}ULL/" "$work/support.c"
    clang-19 -O0 -w -o "$work/task" "$dir/$name.c" "$work/support.c"
    set +e
    ( "$work/task" >/dev/null 2>"$work/stderr" ) 2>/dev/null
    rc=$?
    set -e
    if [ "$rc" -eq 0 ]; then
      outcome="returns normally"
    else
      outcome="fails (exit $rc): $(head -c 120 "$work/stderr" | tr '\n' ' ')"
    fi
    printf '%-10s %-5s %-12s %s\n' "$name" "$x" "$before" "$outcome"
  done
done
