#!/usr/bin/env bash
#! Builds GSL 2.7.1's special functions (Debian source package `gsl`) into one LLVM bitcode module for fpscout.
#
# Usage: scripts/gsl-bitcode.sh            prints the path of specfunc.bc
#
# Sources are fetched at run time with `apt-get source gsl` into a cache directory
# (FPSCOUT_BENCH_DIR, default /var/tmp/fpscout-bench), never into the repository.
# Every file is compiled with fpscout's P recipe (clang -O0 without optnone, no FP
# contraction, then mem2reg), so the module is P exactly as `fpscout run` would build it.
# Re-running reuses the cache: only missing or older bitcode is rebuilt.
set -euo pipefail

cache="${FPSCOUT_BENCH_DIR:-/var/tmp/fpscout-bench}/gsl"
out="$cache/specfunc.bc"
mkdir -p "$cache"

die() { echo "gsl-bitcode: $*" >&2; exit 1; }

for tool in clang-19 opt-19 llvm-link-19 llvm-nm-19; do
  command -v "$tool" >/dev/null || die "$tool not found (scripts/setup.sh installs LLVM 19)"
done

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root (or sudo) to run: $*"
  fi
}

src_dir() { find "$cache" -maxdepth 1 -type d -name 'gsl-2.*' | sort | tail -n 1; }

# 1. Sources: a deb-src entry like the machine's deb one, then `apt-get source` (no root needed for that).
if [ -z "$(src_dir)" ]; then
  command -v apt-get >/dev/null || die "apt-get not available: fetch GSL 2.7.1 sources into $cache by hand"
  command -v dpkg-source >/dev/null || die "dpkg-source missing (apt-get install dpkg-dev)"
  if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    # The machine's own mirror, suite and keyring (apt refuses one URI with two keyrings).
    entry=$("$(dirname "$0")/deb-src-entry.sh") || die "no apt source to take a deb-src entry from"
    echo "gsl-bitcode: adding a deb-src entry (/etc/apt/sources.list.d/fpscout-src.sources)" >&2
    printf '%s\n' "$entry" | as_root tee /etc/apt/sources.list.d/fpscout-src.sources >/dev/null
    as_root apt-get update -qq || die "apt-get update failed (no network?)"
  fi
  (cd "$cache" && apt-get source -qq gsl >"$cache/apt-source.log" 2>&1) \
    || die "apt-get source gsl failed (no network or no deb-src entry?); see $cache/apt-source.log"
  [ -n "$(src_dir)" ] || die "apt-get source gsl produced no gsl-2.* directory in $cache"
fi
src="$(src_dir)"

# 2. Configure once; `make -C gsl` links the public headers into gsl/ as <gsl/...> expects.
if [ ! -f "$src/config.h" ]; then
  echo "gsl-bitcode: configuring $src" >&2
  (cd "$src" && CC=clang-19 ./configure -q >"$cache/configure.log" 2>&1) \
    || die "configure failed; see $cache/configure.log"
fi
if [ ! -e "$src/gsl/gsl_sf_bessel.h" ]; then
  make -C "$src/gsl" >"$cache/headers.log" 2>&1 || die "linking GSL headers failed; see $cache/headers.log"
fi

# 3. Sources: the specfunc library (its Makefile.am list) and the libraries whose symbols
# it leaves undefined (found with llvm-nm -u on the linked module; the check below says
# if a GSL version needs more). The Mathieu functions are left out: they work on
# workspaces, not scalars, and need eigen/matrix/vector, i.e. BLAS and linalg, which
# the native executable would have to link too.
specfunc_sources=$(sed -n '/^libgslspecfunc_la_SOURCES/,/^$/p' "$src/specfunc/Makefile.am" \
  | tr ' \\' '\n\n' | grep '\.c$' | grep -v '^mathieu_' | sed 's|^|specfunc/|')
support_sources="
err/error.c err/stream.c err/message.c err/strerror.c
sys/infnan.c sys/fdiv.c sys/coerce.c sys/pow_int.c sys/minmax.c sys/prec.c sys/fcmp.c sys/hypot.c
complex/math.c complex/inline.c
poly/eval.c poly/solve_quadratic.c poly/dd.c
"

bc_dir="$cache/bc"
compile_one() {
  local rel="$1" src="$2" bc_dir="$3"
  local dir="${rel%/*}" base="${rel##*/}"
  local bc="$bc_dir/$dir/${base%.c}.bc"
  [ "$bc" -nt "$src/$rel" ] && return 0
  mkdir -p "$bc_dir/$dir"
  (cd "$src/$dir" && clang-19 -O0 -Xclang -disable-O0-optnone -ffp-contract=off -g \
      -emit-llvm -c -I. -I.. "$base" -o "$bc.raw") || { echo "compile failed: $rel" >&2; return 1; }
  opt-19 -passes=mem2reg "$bc.raw" -o "$bc" && rm -f "$bc.raw"
}
export -f compile_one

sources="$specfunc_sources $support_sources"
# shellcheck disable=SC2086
printf '%s\n' $sources | xargs -P "${JOBS:-2}" -I{} bash -c 'compile_one "$1" "$2" "$3"' _ {} "$src" "$bc_dir" \
  || die "compiling GSL sources failed"

bcs=()
for rel in $sources; do bcs+=("$bc_dir/${rel%.c}.bc"); done
# sed, not head: head exits after one line and ls, killed by SIGPIPE, fails the pipeline (pipefail).
newest=$(ls -t "${bcs[@]}" | sed -n 1p)
# A changed source list (another GSL version, this script edited) relinks too.
listed="$cache/specfunc.sources"
if [ ! -f "$out" ] || [ "$newest" -nt "$out" ] || [ "$(cat "$listed" 2>/dev/null)" != "$sources" ]; then
  llvm-link-19 "${bcs[@]}" -o "$out.tmp" || die "llvm-link-19 failed"
  mv "$out.tmp" "$out"
  printf '%s' "$sources" >"$listed"
fi

# Anything undefined that is not libc/libm means a support library is missing above,
# and the native executables would not link.
missing=$(llvm-nm-19 -u "$out" | awk '{print $2}' | grep '^gsl_' || true)
[ -z "$missing" ] || die "undefined GSL symbols in $out (add their sources): $missing"

echo "$out"
