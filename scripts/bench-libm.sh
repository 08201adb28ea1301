#!/usr/bin/env bash
#! Coverage of fpscout's phases on real libm code (Debian source packages musl and newlib; openlibm where apt has it): per function, which phase of exceptions/diff/error engaged and why not.
#
# Usage: scripts/bench-libm.sh [LIBRARY [FUNCTION...]]
#   scripts/bench-libm.sh                      every library apt can fetch, every function
#   scripts/bench-libm.sh musl log sin pow     a subset (names as the functions are defined:
#                                              newlib's e_*.c are __ieee754_NAME)
#   TIME_PER_FUNCTION=5   --time-budget of exceptions and error
#   DIFF_TIME=10          --time-budget of diff (compiling P' with the backend model takes
#                         3-5 s of it on this machine, so 5 s leaves diff nothing to search)
#   JOBS=1                functions run at once
#   LIMIT=N               only the first N functions of each library (after the name filter)
#   LIBS="musl newlib"    libraries to try (openlibm is tried too when named)
#   ROUNDING_MATH=0       musl without its -frounding-math (results in out/musl-no-frounding-math):
#                         with it every FP operation is a constrained intrinsic
#   FPSCOUT               the binary (default /work/target-rel/release/fpscout)
#   FPSCOUT_BENCH_DIR     cache (default /var/tmp/fpscout-bench); sources in $cache/libm,
#                         results in $cache/libm/out/LIB/FUNCTION.{exceptions,diff,error}.json
#                         (+ .err, .rc), the table in $cache/libm/out/table.txt
#
# Sources are fetched at run time with `apt-get source` through the machine's own deb-src
# entry (added as scripts/gsl-bitcode.sh does when there is none), never vendored.
# openlibm is not in Debian 12, 13 or unstable (checked 2026-11): it is tried and skipped
# with a message; newlib's libm (fdlibm, the code openlibm and FreeBSD msun also derive
# from) stands in for it.
# Flags: musl's own (configure's CFLAGS_C99FSE and the Makefile's CFLAGS_ALL, with
# -frounding-math, which musl's configure adds whenever the compiler accepts it); newlib's
# libm/common flags (-fno-builtin -fno-math-errno, -I libm/common) with the host's headers
# first and newlib's libc/include after them (-idirafter: only machine/ieeefp.h and friends
# come from there; newlib's own headers need its configure's generated newlib.h). The
# w_*.c errno wrappers do not compile that way and are not analysed: the e_*.c functions
# they wrap (__ieee754_NAME) are.
# Each function is analysed with its file plus, transitively, the library files that define
# the internal symbols it uses (names starting with "__": kernels, __rem_pio2, data tables,
# __math_oflow…); public libm functions it calls stay calls to the machine's libm, which
# fpscout models, so each row measures that function's own code.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
die() { echo "bench-libm: $*" >&2; exit 1; }

t="${TIME_PER_FUNCTION:-5}"
dt="${DIFF_TIME:-10}"
jobs="${JOBS:-1}"
limit="${LIMIT:-}"
fpscout="${FPSCOUT:-/work/target-rel/release/fpscout}"
[[ "$t" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "TIME_PER_FUNCTION must be seconds, not '$t'"
[[ "$dt" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "DIFF_TIME must be seconds, not '$dt'"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "JOBS must be a positive integer, not '$jobs'"
[ -z "$limit" ] || [[ "$limit" =~ ^[0-9]+$ ]] || die "LIMIT must be a number, not '$limit'"
[ -x "$fpscout" ] || die "FPSCOUT=$fpscout is not an executable (build it: cargo build --release -p fpscout)"
for tool in clang-19 llvm-nm-19 llvm-dis-19 python3 timeout apt-get; do
  command -v "$tool" >/dev/null || die "$tool not found"
done

cache="${FPSCOUT_BENCH_DIR:-/var/tmp/fpscout-bench}/libm"
out="$cache/out"
mkdir -p "$cache" "$out"

libs="${LIBS:-musl newlib}"
names=()
if [ $# -gt 0 ]; then libs="$1"; shift; names=("$@"); fi

# 1. Sources
fetch() { # PACKAGE: prints its source directory, fetching it when missing
  local pkg="$1" dir
  dir="$(find "$cache" -maxdepth 1 -type d -name "$pkg-[0-9]*" | sort | tail -n 1)"
  if [ -z "$dir" ]; then
    if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
      "$here/scripts/gsl-bitcode.sh" >/dev/null || die "adding a deb-src entry failed (scripts/gsl-bitcode.sh)"
    fi
    (cd "$cache" && apt-get source -qq "$pkg" >"apt-$pkg.log" 2>&1) || {
      echo "bench-libm: apt-get source $pkg failed (not in this machine's apt sources?): $(tail -n 1 "$cache/apt-$pkg.log"); skipped" >&2
      return 1
    }
    dir="$(find "$cache" -maxdepth 1 -type d -name "$pkg-[0-9]*" | sort | tail -n 1)"
  fi
  [ -n "$dir" ] || return 1
  printf '%s\n' "$dir"
}

# 2. Per library: flags, candidate files, and a bitcode of each file for symbols and signatures.
# Writes $out/LIB/plan.txt: FUNCTION|FILE FILE...|FLAGS (relative to the source dir).
plan_library() { # LIB SRC WS
  local lib="$1" src="$2" ws="$3" flags=() files=()
  mkdir -p "$ws/bc"
  case "$lib" in
    musl)
      mkdir -p "$src/obj/include/bits"
      [ -f "$src/obj/include/bits/alltypes.h" ] || (cd "$src" && sed -f tools/mkalltypes.sed \
        arch/x86_64/bits/alltypes.h.in include/alltypes.h.in >obj/include/bits/alltypes.h)
      flags=(-std=c99 -nostdinc -ffreestanding -D_XOPEN_SOURCE=700
        -I arch/x86_64 -I arch/generic -I src/include -I src/internal -I obj/include -I include -w)
      [ "${ROUNDING_MATH:-1}" = 0 ] || flags+=(-frounding-math)
      # Every C file musl builds in src/math: an arch/x86_64 one replaces its generic twin.
      local f b
      for f in "$src"/src/math/*.c; do
        b="${f##*/}"
        if [ -f "$src/src/math/x86_64/$b" ]; then files+=("src/math/x86_64/$b"); else files+=("src/math/$b"); fi
      done
      ;;
    newlib)
      src="$src/newlib"
      # fdim/fmax/fmin call __fpclassifyd, which only newlib's own math.h declares.
      flags=(-fno-builtin -fno-math-errno -idirafter libc/include -I libm/common -w
        -Wno-error=implicit-function-declaration)
      local f
      for f in "$src"/libm/math/*.c "$src"/libm/common/*.c; do files+=("${f#"$src"/}"); done
      ;;
    openlibm)
      flags=(-I include -I src -I ld80 -I amd64 -w)
      local f
      for f in "$src"/src/*.c; do files+=("${f#"$src"/}"); done
      ;;
    *) die "unknown library '$lib' (musl, newlib, openlibm)" ;;
  esac
  printf '%s\n' "$src" >"$ws/src.txt"
  printf '%s\n' "${flags[@]}" >"$ws/flags.txt"
  local rel bc
  for rel in "${files[@]}"; do
    bc="$ws/bc/${rel//\//__}.bc"
    [ -f "$bc" ] || (cd "$src" && clang-19 -O0 "${flags[@]}" -emit-llvm -c "$rel" -o "$bc" 2>/dev/null) \
      || { echo "$rel" >>"$ws/uncompiled.txt"; continue; }
    printf '%s\t%s\n' "$rel" "$bc"
  done >"$ws/files.tsv"
  python3 "$here/scripts/libm-table.py" --plan "$lib" "$ws/files.tsv" >"$ws/plan.txt"
}

run_one() { # LIB SRC FPSCOUT OUTDIR T DT FUNCTION|FILES (flags: OUTDIR/flags.txt, one a line)
  local lib="$1" src="$2" fpscout="$3" ws="$4" t="$5" dt="$6" line="$7"
  local fn files
  IFS='|' read -r fn files <<<"$line"
  local cflags=() f
  while IFS= read -r f; do cflags+=("--cflag=$f"); done <"$ws/flags.txt"
  # shellcheck disable=SC2206
  local srcs=($files)
  local mode budget
  for mode in exceptions diff error; do
    budget="$t"; [ "$mode" = diff ] && budget="$dt"
    local rc=0
    # A run that outlives its budget by far is killed (a hang must not stall the benchmark).
    (cd "$src" && timeout --kill-after=10 "$(awk -v t="$budget" 'BEGIN{printf "%d", 3*t+60}')" \
      "$fpscout" "$mode" -f "$fn" --json --time-budget "$budget" "${cflags[@]}" "${srcs[@]}" \
      >"$ws/$fn.$mode.json" 2>"$ws/$fn.$mode.err") || rc=$?
    echo "$rc" >"$ws/$fn.$mode.rc"
  done
  echo "bench-libm: $lib $fn done" >&2
}
export -f run_one

for lib in $libs; do
  pkg="$lib"
  src="$(fetch "$pkg")" || continue
  echo "bench-libm: $lib: planning (compiling each file once for its symbols)" >&2
  ws="$out/$lib"
  [ "$lib" != musl ] || [ "${ROUNDING_MATH:-1}" != 0 ] || ws="$out/musl-no-frounding-math"
  plan_library "$lib" "$src" "$ws"
  src="$(cat "$ws/src.txt")"
  sel="$ws/selected.txt"
  if [ ${#names[@]} -gt 0 ]; then
    : >"$sel"
    for n in "${names[@]}"; do grep -E "^$n\|" "$ws/plan.txt" >>"$sel" || echo "bench-libm: $lib has no function $n" >&2; done
  else
    cp "$ws/plan.txt" "$sel"
  fi
  [ -z "$limit" ] || { head -n "$limit" "$sel" >"$sel.tmp"; mv "$sel.tmp" "$sel"; }
  echo "bench-libm: $lib: $(wc -l <"$sel") of $(wc -l <"$ws/plan.txt") functions, exceptions/error ${t}s, diff ${dt}s, $jobs at a time" >&2
  tr '\n' '\0' <"$sel" \
    | xargs -0 -r -P "$jobs" -I{} nice -n 10 bash -c 'run_one "$@"' _ "$lib" "$src" "$fpscout" "$ws" "$t" "$dt" {}
done

python3 "$here/scripts/libm-table.py" "$out" | tee "$out/table.txt"
