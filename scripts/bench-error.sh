#!/usr/bin/env bash
#! FPGen's subjects for `fpscout error`: meschach, GSL statistics and three summations, ours next to a random-only baseline given the same time, with FPGen's reference errors.
#
# Usage: scripts/bench-error.sh [FILTER_REGEX]
#   TIME_PER_SUBJECT=60    seconds per run (each subject gets two runs: ours, random)
#   JOBS=2                 subjects run at once
#   FPSCOUT=path/to/fpscout  (default: $CARGO_TARGET_DIR/release/fpscout, built when missing)
#   FPSCOUT_BENCH_DIR      cache (default /var/tmp/fpscout-bench)
#
# Libraries are fetched at run time, never vendored: meschach with `apt-get source
# meschach` (a deb-src entry is added as scripts/gsl-bitcode.sh does), GSL with the
# sources scripts/gsl-bitcode.sh fetches and configures. Each library is compiled once
# with fpscout's P recipe into one bitcode module in the cache, so that a run's budget
# is spent searching, not compiling 20 files. The harnesses are bench/error/*.c (written
# with include/fpscout.h): 32 doubles in [-100, 100] per subject, as FPGen's (which made
# 16 of them symbolic and kept 16 concrete: here all 32 are searched, and the operand
# groups of the search keep half of them from the best input, as FPGen did).
# Assumptions of the harnesses: GSL is compiled with -mlong-double-64 (its statistics
# accumulate in long double, which the interpreter does not model: both the interpreter
# and the executable then compute in double); meschach's malloc family is a bump
# allocator in the harness and its allocation statistics are no-ops (see meschach.c);
# "-m" subjects are GSL's *_m variants given the weighted mean of the same inputs.
# Per subject: $cache/error/NAME.json / NAME.random.json, stderr in .err; the table goes to
# stdout and $cache/error/table.txt.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
BENCH_SCRIPT=bench-error
# shellcheck source=scripts/exceptions-bench-lib.sh
. "$here/scripts/exceptions-bench-lib.sh"

filter="${1:-.}"
t="${TIME_PER_SUBJECT:-60}"
jobs="${JOBS:-2}"
[[ "$t" =~ ^[0-9]+(\.[0-9]+)?$ ]] || bench_die "TIME_PER_SUBJECT must be a number of seconds, not '$t'"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || bench_die "JOBS must be a positive integer, not '$jobs'"
for tool in clang-19 opt-19 llvm-link-19 python3 timeout; do
  command -v "$tool" >/dev/null || bench_die "$tool not found"
done
cache="${FPSCOUT_BENCH_DIR:-/var/tmp/fpscout-bench}"
out="$cache/error"
mkdir -p "$out" "$cache/meschach"

# P recipe (as fpscout-toolchain builds P): one module per library.
p_bitcode() { # OUT FLAGS... -- FILES...
  local target="$1"; shift
  local flags=() files=() seen=0
  for a in "$@"; do
    if [ "$a" = "--" ]; then seen=1; continue; fi
    if [ $seen = 0 ]; then flags+=("$a"); else files+=("$a"); fi
  done
  local tmp; tmp="$(mktemp -d)"
  for f in "${files[@]}"; do
    local b; b="$tmp/$(basename "$f" .c)"
    clang-19 -O0 -Xclang -disable-O0-optnone -ffp-contract=off -g "${flags[@]}" \
      -emit-llvm -c "$f" -o "$b.raw" 2>>"$tmp/build.log" || { cat "$tmp/build.log" >&2; bench_die "compiling $f failed"; }
    opt-19 -passes=mem2reg "$b.raw" -o "$b.bc"
  done
  llvm-link-19 "$tmp"/*.bc -o "$target"
  rm -rf "$tmp"
}

# 1. meschach
mes_src() { find "$cache/meschach" -maxdepth 1 -type d -name 'meschach-*' | sort | tail -n 1; }
if [ -z "$(mes_src)" ]; then
  command -v apt-get >/dev/null || bench_die "apt-get not available: fetch meschach sources into $cache/meschach by hand"
  if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    "$here/scripts/gsl-bitcode.sh" >/dev/null  # adds the deb-src entry (and builds GSL's module)
  fi
  (cd "$cache/meschach" && apt-get source -qq meschach >apt-source.log 2>&1) \
    || bench_die "apt-get source meschach failed; see $cache/meschach/apt-source.log"
fi
mes="$(mes_src)"
alloc=(-Dmalloc=fpscout_bench_malloc -Dcalloc=fpscout_bench_calloc -Drealloc=fpscout_bench_realloc -Dfree=fpscout_bench_free)
mes_bc="$cache/meschach/meschach.bc"
if [ ! -f "$mes_bc" ]; then
  echo "bench-error: building $mes_bc" >&2
  p_bitcode "$mes_bc" "${alloc[@]}" -I "$mes" -w -- \
    "$mes"/{vecop,norm,matop,lufactor,qrfactor,hsehldr,memory,err,machine,copy,init,pxop,submat,solve,matrixio,givens,ivecop}.c
fi

# 2. GSL statistics (sources fetched and configured by scripts/gsl-bitcode.sh)
"$here/scripts/gsl-bitcode.sh" >/dev/null || bench_die "scripts/gsl-bitcode.sh failed"
gsl="$(find "$cache/gsl" -maxdepth 1 -type d -name 'gsl-2.*' | sort | tail -n 1)"
gsl_bc="$cache/gsl/statistics.bc"
if [ ! -f "$gsl_bc" ]; then
  echo "bench-error: building $gsl_bc" >&2
  p_bitcode "$gsl_bc" -mlong-double-64 -I "$gsl" -I "$gsl/statistics" -w -- \
    "$gsl"/statistics/{wmean,wvariance,wabsdev,wskew,wkurtosis}.c
fi

fpscout="$(bench_fpscout "$here")"
h="$here/bench/error"
# name | FPGen's error | harness | library | defines | results length
cat >"$out/subjects.txt" <<EOF
recursive|1.0|summation.c||-DSUBJECT_RECURSIVE|1
pairwise|1.3e-16|summation.c||-DSUBJECT_PAIRWISE|1
compensated|1.0|summation.c||-DSUBJECT_COMPENSATED|1
sum|1.0|meschach.c|$mes_bc|-DSUBJECT_SUM -I$mes ${alloc[*]}|1
1norm|0|meschach.c|$mes_bc|-DSUBJECT_NORM1 -I$mes ${alloc[*]}|1
2norm|2.2e-16|meschach.c|$mes_bc|-DSUBJECT_NORM2 -I$mes ${alloc[*]}|1
dot|1.9e-4|meschach.c|$mes_bc|-DSUBJECT_DOT -I$mes ${alloc[*]}|1
conv|2.0e-4|meschach.c|$mes_bc|-DSUBJECT_CONV -I$mes ${alloc[*]}|31
mv|8.9e-4|meschach.c|$mes_bc|-DSUBJECT_MV -I$mes ${alloc[*]}|3
mm|2.6e-14|meschach.c|$mes_bc|-DSUBJECT_MM -I$mes ${alloc[*]}|16
lu|2.73|meschach.c|$mes_bc|-DSUBJECT_LU -I$mes ${alloc[*]}|25
qr|2.6e-14|meschach.c|$mes_bc|-DSUBJECT_QR -I$mes ${alloc[*]}|36
wmean|1.0|gsl_stats.c|$gsl_bc|-DSUBJECT_WMEAN -mlong-double-64 -I$gsl|1
wvariance|7.6e-2|gsl_stats.c|$gsl_bc|-DSUBJECT_WVARIANCE -mlong-double-64 -I$gsl|1
wsd|3.7e-2|gsl_stats.c|$gsl_bc|-DSUBJECT_WSD -mlong-double-64 -I$gsl|1
wvariance-m|2.3e-12|gsl_stats.c|$gsl_bc|-DSUBJECT_WVARIANCE_M -mlong-double-64 -I$gsl|1
wsd-m|1.1e-12|gsl_stats.c|$gsl_bc|-DSUBJECT_WSD_M -mlong-double-64 -I$gsl|1
wtss|4.5e-16|gsl_stats.c|$gsl_bc|-DSUBJECT_WTSS -mlong-double-64 -I$gsl|1
wabsdev|1.0|gsl_stats.c|$gsl_bc|-DSUBJECT_WABSDEV -mlong-double-64 -I$gsl|1
wskew|25.7|gsl_stats.c|$gsl_bc|-DSUBJECT_WSKEW -mlong-double-64 -I$gsl|1
wkurtosis|1.8e-12|gsl_stats.c|$gsl_bc|-DSUBJECT_WKURTOSIS -mlong-double-64 -I$gsl|1
EOF
grep -E "^[^|]*($filter)" "$out/subjects.txt" >"$out/selected.txt" || bench_die "no subject matches '$filter'"
echo "bench-error: $(wc -l <"$out/selected.txt") subjects, $t s per run, $jobs at a time; results in $out" >&2

run_subject() { # LINE
  IFS='|' read -r name _ harness lib defines results <<<"$1"
  local args=("$h/$harness")
  [ -n "$lib" ] && args+=("$lib")
  # Every define/flag as its own --cflag, so that clap sees no leading dash ambiguity.
  for d in $defines; do args+=("--cflag=$d"); done
  args+=(--array-len doubles=32 --array-len "results=$results" --time-budget "$t" --json)
  local limit; limit=$(awk -v t="$t" 'BEGIN { printf "%d", t * 2 + 60 }')
  timeout "$limit" "$FPSCOUT_BIN" error "${args[@]}" >"$OUT/$name.json" 2>"$OUT/$name.err" || true
  timeout "$limit" "$FPSCOUT_BIN" error "${args[@]}" --random-only >"$OUT/$name.random.json" 2>"$OUT/$name.random.err" || true
  echo "bench-error: $name done" >&2
}
export -f run_subject
export FPSCOUT_BIN="$fpscout" OUT="$out" h t
tr '\n' '\0' <"$out/selected.txt" | xargs -0 -P "$jobs" -I{} bash -c 'run_subject "$1"' _ {}

python3 - "$out" <<'PY' | tee "$out/table.txt"
import json, sys
out = sys.argv[1]
def record(path):
    try:
        for line in open(path):
            r = json.loads(line)
            if r.get("type") == "error":
                return r["data"]
    except (OSError, ValueError):
        pass
    return None
def num(x):
    # fpscout writes infinities and NaN as strings.
    return float(x) if isinstance(x, str) else x
def fmt(x):
    x = num(x)
    return "-" if x is None else f"{x:.2e}"
rows = [l.rstrip("\n").split("|") for l in open(f"{out}/selected.txt")]
print(f"{'subject':<13}{'ours':>10}{'bits':>8}{'FPGen':>10}{'random':>10}{'evals':>10}{'rand.evals':>11}{'time s':>8}  confirmed  found by")
wins = 0
for name, fpgen, *_ in rows:
    ours, rnd = record(f"{out}/{name}.json"), record(f"{out}/{name}.random.json")
    e = num(ours and ours["max_rel_error"])
    r = num(rnd and rnd["max_rel_error"])
    wins += e is not None and e >= float(fpgen)
    print(f"{name:<13}{fmt(e):>10}{num((ours or {}).get('bits')) or 0:>8.1f}{float(fpgen):>10.2e}{fmt(r):>10}"
          f"{(ours or {}).get('evaluations', 0):>10}{(rnd or {}).get('evaluations', 0):>11}"
          f"{(ours or {}).get('wall_seconds', 0):>8.1f}  {str(((ours or {}).get('native') or {}).get('confirmed', '-')):<9}  {(ours or {}).get('found_by', '-')}")
print(f"\n{wins}/{len(rows)} subjects at or above FPGen's error")
PY
