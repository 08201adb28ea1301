#!/usr/bin/env bash
#! Compile cache benchmark (issue 30): `diff` twice on a multi-file libm function (musl's pow, 7 files, through a compilation database) with a fresh cache, and the time of `--emit-repro`'s build.sh for a whole-database `exceptions` run (35 musl files).
#
# Usage: scripts/bench-compile-cache.sh
#   FPSCOUT     the binary (default target/release/fpscout of this checkout)
#   MUSL_DIR    musl's source tree (default /var/tmp/fpscout-bench/libm/musl-1.2.3, as
#               scripts/bench-libm.sh fetches it with apt-get source)
#   DIFF_TIME   --time-budget of each diff run (default 30)
#   EXC_TIME    --time-budget per function of the exceptions run (default 5)
#
# Prints a table: the first and second diff runs' compile seconds (the summary's
# compile_seconds: every clang/opt/llvm-link/link step, cache look-ups included), cache
# hits and misses, their ratio; then the number of reproducers and how long their
# build.sh took (wall seconds), and whether any warning or FAIL was printed.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
die() { echo "bench-compile-cache: $*" >&2; exit 1; }
fpscout="${FPSCOUT:-$here/target/release/fpscout}"
musl="${MUSL_DIR:-/var/tmp/fpscout-bench/libm/musl-1.2.3}"
diff_time="${DIFF_TIME:-30}"
exc_time="${EXC_TIME:-5}"
[ -x "$fpscout" ] || die "FPSCOUT=$fpscout is not an executable (cargo build --release -p fpscout)"
[ -f "$musl/src/math/pow.c" ] || die "no musl sources in $musl (scripts/bench-libm.sh musl pow fetches them)"
command -v python3 >/dev/null || die "python3 not found"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export FPSCOUT_CACHE_DIR="$work/cache"

# musl's generated alltypes.h, as scripts/bench-libm.sh makes it.
mkdir -p "$musl/obj/include/bits"
[ -f "$musl/obj/include/bits/alltypes.h" ] || (cd "$musl" && sed -f tools/mkalltypes.sed \
  arch/x86_64/bits/alltypes.h.in include/alltypes.h.in >obj/include/bits/alltypes.h)

# A compilation database with musl's flags: pow's 7 files, and 35 (20 public
# functions and their helpers) for the exceptions run.
database() { # OUT FILE...
  local out="$1"; shift
  python3 - "$musl" "$out" "$@" <<'EOF'
import json, sys
musl, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
flags = ["-std=c99", "-nostdinc", "-ffreestanding", "-frounding-math", "-D_XOPEN_SOURCE=700",
         "-I", "arch/x86_64", "-I", "arch/generic", "-I", "src/include", "-I", "src/internal",
         "-I", "obj/include", "-I", "include", "-w"]
db = [{"directory": musl, "file": f"src/math/{f}.c",
       "arguments": ["cc"] + flags + ["-c", f"src/math/{f}.c"]} for f in files]
json.dump(db, open(out, "w"), indent=1)
EOF
}
database "$work/pow.json" pow exp_data __math_invalid __math_oflow __math_uflow pow_data __math_xflow
database "$work/all.json" pow exp log exp2 log2 log10 log1p expm1 sin cos tan atan atan2 \
  asin acos sinh cosh tanh hypot cbrt pow_data exp_data log_data log2_data __math_oflow \
  __math_uflow __math_xflow __math_invalid __math_divzero __sin __cos __tan __rem_pio2 \
  __rem_pio2_large __expo2

summary() { # JSON-LINES-FILE -> "compile_seconds hits misses wall_seconds"
  python3 - "$1" <<'EOF'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
d = [r for r in s if r.get("type") == "summary"][-1]["data"]
print(f'{d["compile_seconds"]:.2f} {d["cache_hits"]} {d["cache_misses"]} {d["wall_seconds"]:.2f}')
EOF
}

for run in 1 2; do
  rc=0
  "$fpscout" diff --compile-commands "$work/pow.json" -f pow --time-budget "$diff_time" --json \
    >"$work/diff$run.json" 2>"$work/diff$run.err" || rc=$?
  [ "$rc" -le 1 ] || { cat "$work/diff$run.err" >&2; die "diff run $run failed ($rc)"; }
done
read -r c1 h1 m1 w1 < <(summary "$work/diff1.json")
read -r c2 h2 m2 w2 < <(summary "$work/diff2.json")
ratio="$(python3 -c "print(f'{$c2 / $c1 * 100:.1f} %' if $c1 > 0 else 'n/a')")"

rc=0
"$fpscout" exceptions --compile-commands "$work/all.json" --time-budget "$exc_time" --jobs 1 \
  --json --emit-repro "$work/repro" >"$work/exc.json" 2>"$work/exc.err" || rc=$?
[ "$rc" -le 1 ] || { cat "$work/exc.err" >&2; die "exceptions run failed ($rc)"; }
programs="$(find "$work/repro" -maxdepth 1 -name '*.c' | wc -l)"
start="$(date +%s.%N)"
brc=0
sh "$work/repro/build.sh" >"$work/build.out" 2>&1 || brc=$?
end="$(date +%s.%N)"
build_s="$(python3 -c "print(f'{$end - $start:.2f}')")"
pass="$(grep -c 'PASS' "$work/build.out" || true)"
fail="$(grep -c 'FAIL' "$work/build.out" || true)"
nanw="$(grep -c 'nan-infinity-disabled' "$work/build.out" || true)"
sources="$(python3 -c "import json; print(len(json.load(open('$work/all.json'))))")"

printf '%-34s %12s %12s %8s\n' "diff -f pow (musl, 7 files)" "first run" "second run" "ratio"
printf '%-34s %12s %12s %8s\n' "compile s (cache look-ups incl.)" "$c1" "$c2" "$ratio"
printf '%-34s %12s %12s\n' "compile steps hit / run" "$h1 / $m1" "$h2 / $m2"
printf '%-34s %12s %12s\n' "wall s of the run" "$w1" "$w2"
echo
printf '%-34s %12s\n' "exceptions reproducers" "$programs ($sources sources)"
printf '%-34s %12s\n' "build.sh wall s" "$build_s (exit $brc)"
printf '%-34s %12s\n' "PASS / FAIL lines" "$pass / $fail"
printf '%-34s %12s\n' "nan-infinity-disabled warnings" "$nanw"
