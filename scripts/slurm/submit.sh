#!/usr/bin/env bash
#! Submits a whole-library fpscout run to Slurm as N array tasks plus the merging report job, waits for both, and prints the merged total.
#
# Usage: scripts/slurm/submit.sh OUTDIR N MODE ARGS...
#   e.g. scripts/slurm/submit.sh /shared/run1 8 exceptions lib.bc --time-budget 60
# OUTDIR must be on a file system every node sees. FPSCOUT is exported to the jobs
# (default: fpscout on PATH). Extra sbatch options: SBATCH_OPTS="--partition=x --time=1:00:00".
# Exit status: the merge's (0 no findings, 1 findings, 2 a shard failed or wrote damage).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OUTDIR N MODE ARGS..." >&2; exit 2; }
out="$(mkdir -p "$1" && cd "$1" && pwd)"; n="$2"; shift 2
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "$0: N must be a positive integer, not '$n'" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
export FPSCOUT="${FPSCOUT:-$(command -v fpscout)}"
export FPSCOUT_ARRAY_SCRIPT="$here/fpscout-array.sbatch"
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_OPTS:-} --export=ALL --array="0-$((n - 1))" \
  --output="$out/slurm-%A_%a.out" "$here/fpscout-array.sbatch" "$out" "$@")
array="${array%%;*}"
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_OPTS:-} --export=ALL --dependency="afterany:$array" \
  --output="$out/slurm-merge-%j.out" "$here/fpscout-array.sbatch" --merge "$out" "$n")
merge="${merge%%;*}"
echo "submit: array job $array ($n tasks), merge job $merge; results in $out" >&2
while [ ! -s "$out/merge.status" ]; do
  state=$(squeue -h -j "$merge" -o %T 2>/dev/null || true)
  if [ -z "$state" ] && [ ! -s "$out/merge.status" ]; then
    sleep 2
    [ -s "$out/merge.status" ] || { echo "submit: merge job $merge ended without a status (see $out/slurm-merge-$merge.out)" >&2; exit 2; }
  fi
  sleep 1
done
grep '"type":"total"' "$out/report.jsonl" || true
exit "$(cat "$out/merge.status")"
