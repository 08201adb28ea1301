#!/usr/bin/env bash
# Checks the known answers of bench/reach (the `fpscout reach` corpus) natively, without
# fpscout: each program is compiled with clang-19 -O0 -ffp-contract=off and linked with
# bench/reach/driver/driver.c, then
#   - 1 float input: every float of the manifest's range (or all 2^32) is run and the inputs
#     reaching reach_error() are counted (a proof for either answer); the witness is replayed;
#   - several inputs or a double, reachable: the manifest's witness is replayed (a proof);
#   - several inputs or a double, unreachable: a bounded boundary-value + random search
#     (EVIDENCE ONLY, not a proof: the proof is the argument in the program's header);
#     where a program's proof is computer-assisted (bench/reach/driver/heron_bound.c), that
#     tool is built and run too, with a negative control that must fail.
# Prints one line per program and exits 1 if any result contradicts the manifest.
# Usage: scripts/check-reach-corpus.sh [PROGRAM...]   (default: every row of expected.tsv)
# Environment: REACH_SAMPLES (random samples per searched program, default 2000000),
#              REACH_SEED (default 1), CC (default clang-19).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/bench/reach
manifest=$corpus/expected.tsv
cc=${CC:-clang-19}
samples=${REACH_SAMPLES:-2000000}
seed=${REACH_SEED:-1}

die() { echo "check-reach-corpus: $*" >&2; exit 2; }
command -v "$cc" >/dev/null || die "$cc not found (install clang-19 or set CC)"
[ -f "$manifest" ] || die "manifest $manifest missing"
[ "$(head -1 "$manifest")" = "$(printf 'program\tanswer\tinputs\tverified\twitness\trange\tcount\tnote')" ] \
    || die "unexpected header in $manifest"

work=$(mktemp -d "${TMPDIR:-/tmp}/reach-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The driver only picks inputs and counts; -O2 is fine for it. Programs get -O0 and no FMA
# contraction so every float operation rounds as the source says (SSE, round-to-nearest).
"$cc" -std=c11 -O2 -Wall -Wextra -c "$corpus/driver/driver.c" -o "$work/driver.o" \
    || die "driver does not compile"

# A key=value field of the driver's one-line output.
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }

# Computer-assisted proofs kept beside the driver, run for their program: the tool must
# print "proved" (exit 0), and fail on the negative-control argument, a tolerance at which
# the program is reachable (a bound that proves everything proves nothing).
declare -A proof_tool=([heron_high_1e3]=heron_bound.c)
declare -A proof_negative=([heron_high_1e3]=1e-4)

declare -A wanted=()
for p in "$@"; do wanted[$p]=1; done
seen=0 bad=0 total_start=$(date +%s.%N)
printf '%-24s %-11s %-64s %-9s %s\n' program expected found agree seconds

while IFS=$'\t' read -r prog answer inputs verified witness range count note; do
    [ "$prog" = program ] && continue
    if [ $# -gt 0 ] && [ -z "${wanted[$prog]:-}" ]; then continue; fi
    seen=$((seen + 1))
    src=$corpus/$prog.c
    [ -f "$src" ] || die "$prog: $src missing"
    case $answer in reachable | unreachable) ;; *) die "$prog: answer must be reachable/unreachable, not '$answer'" ;; esac
    # The header's claim and the manifest must say the same thing.
    grep -q "^ \\* Expected: $answer\\.\$" "$src" || die "$prog: header does not say 'Expected: $answer.'"
    # reach_error() must name its own file and line, as SV-COMP files do.
    line=$(grep -n '^void reach_error' "$src" | cut -d: -f1)
    grep -q "__assert_fail(\"0\", \"$prog.c\", $line, \"reach_error\")" "$src" \
        || die "$prog: reach_error() must call __assert_fail(\"0\", \"$prog.c\", ${line:-?}, \"reach_error\")"
    [[ $inputs =~ ^([0-9]+)\ (float|double)$ ]] || die "$prog: inputs must be 'N float' or 'N double', not '$inputs'"
    n=${BASH_REMATCH[1]} ty=${BASH_REMATCH[2]}
    if [ "$answer" = reachable ] && [ "$witness" = - ]; then die "$prog: a reachable program needs a witness"; fi
    if [ "$answer" = unreachable ] && [ "$witness" != - ]; then die "$prog: an unreachable program has no witness"; fi

    start=$(date +%s.%N)
    "$cc" -std=c11 -O0 -ffp-contract=off -Wall -Werror=implicit-function-declaration \
        -Dmain=reach_program_main -c "$src" -o "$work/$prog.o" 2>"$work/$prog.cc.log" \
        || { cat "$work/$prog.cc.log" >&2; die "$prog: does not compile"; }
    "$cc" "$work/driver.o" "$work/$prog.o" -Wl,--wrap=__assert_fail -lm -o "$work/$prog" \
        || die "$prog: does not link"
    run() { nice -n 15 "$work/$prog" "$@" || die "$prog: driver failed ($*)"; }

    found='' ok=yes
    if [ "$n" = 1 ] && [ "$ty" = float ]; then
        out=$(run enum "$range")
        reached=$(field reached "$out") admitted=$(field admitted "$out")
        [ -n "$reached" ] || die "$prog: enumeration failed: $out"
        found="$reached of $admitted floats reach"
        if [ "$answer" = unreachable ] && [ "$reached" != 0 ]; then
            ok=no found="$found (first $(field first "$out"))"
        fi
        [ "$answer" = reachable ] && [ "$reached" = 0 ] && ok=no
        if [ "$count" != - ] && [ "$reached" != "$count" ]; then ok=no found="$found, manifest says $count"; fi
    fi
    if [ "$answer" = reachable ]; then
        out=$(run replay "$ty" "$n" "$witness")
        if [ "$(field result "$out")" = reached ]; then
            [ -n "$found" ] && found="$found; witness replays" || found="witness replays"
        else
            ok=no found="${found:+$found; }witness gives $(field result "$out")"
        fi
    elif [ "$n" != 1 ] || [ "$ty" != float ]; then
        out=$(run search "$ty" "$n" "$range" "$samples" "$seed")
        reached=$(field reached "$out") admitted=$(field admitted "$out")
        [ -n "$reached" ] || die "$prog: search failed: $out"
        if [ "$reached" = 0 ]; then
            found="none in $admitted admitted samples (evidence)"
        else
            ok=no found="$reached reach, e.g. $(field first "$out")"
        fi
    fi
    if [ -n "${proof_tool[$prog]:-}" ]; then
        "$cc" -O2 "$corpus/driver/${proof_tool[$prog]}" -lm -o "$work/$prog.proof" || die "$prog: proof tool does not compile"
        if nice -n 15 "$work/$prog.proof" >"$work/$prog.proof.log"; then
            if nice -n 15 "$work/$prog.proof" "${proof_negative[$prog]}" >/dev/null; then
                ok=no found="$found; ${proof_tool[$prog]} also 'proves' its negative control"
            else
                found="$found; ${proof_tool[$prog]} proved"
            fi
        else
            ok=no found="$found; ${proof_tool[$prog]} failed: $(tail -1 "$work/$prog.proof.log")"
        fi
    fi
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    if [ "$ok" = yes ]; then agree=agree; else agree=CONTRADICTION bad=$((bad + 1)); fi
    printf '%-24s %-11s %-64s %-9s %.1f\n' "$prog" "$answer" "$found" "$agree" "$secs"
done <"$manifest"

[ "$seen" -gt 0 ] || die "no program matched: $*"
total=$(echo "$(date +%s.%N) - $total_start" | bc)
printf 'checked %d programs in %.0f s: %d agree, %d contradict\n' "$seen" "$total" "$((seen - bad))" "$bad"
[ "$bad" = 0 ] || exit 1
