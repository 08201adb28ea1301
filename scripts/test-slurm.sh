#!/usr/bin/env bash
#! Real Slurm test: starts a single-node cluster on this machine (munged, slurmctld, slurmd as root), runs a whole-library `fpscout exceptions` as an array job plus the merging report, and checks the merged findings equal an unsharded run's; then loses a shard's output, checks the merge names it, re-runs that shard alone and merges again.
#
# Usage: scripts/test-slurm.sh [SHARDS]   (default 3; needs root: it installs the Slurm and
# munge packages when missing and starts their daemons, which it stops at the end)
#   FPSCOUT=path/to/fpscout   (default: $CARGO_TARGET_DIR/debug/fpscout, built when missing)
#   SOURCE=file.c             the library to analyse (default examples/ci/src/stats.c)
#   FPSCOUT_ARGS="..."        exceptions options (default: --random 2000 --time-budget 30 --jobs 1)
#   MEASURE=1                 a benchmark (bench-gsl.sh --slurm): a difference between the
#                             merged and the unsharded findings is counted, not fatal (time
#                             budgets under load may end searches at different points)
# Prints shards, tasks, wall time and the merged versus unsharded counts; exit 0 on success.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
shards="${1:-3}"
source_file="${SOURCE:-$here/examples/ci/src/stats.c}"
die() { echo "test-slurm: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (it starts munged, slurmctld and slurmd)"
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || die "SHARDS must be a positive integer"

missing=()
for p in slurmctld slurmd slurm-client munge python3; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "test-slurm: installing ${missing[*]}" >&2
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

fpscout="${FPSCOUT:-${CARGO_TARGET_DIR:-$here/target}/debug/fpscout}"
if [ ! -x "$fpscout" ]; then
  (cd "$here" && cargo build -q -p fpscout)
fi
export FPSCOUT="$fpscout"

work="$(mktemp -d /tmp/fpscout-slurm.XXXXXX)"
chmod 755 "$work"
pids=()
started_munged=0
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$started_munged" = 1 ] && [ -s /run/munge/munged.pid ]; then
    kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
  fi
  if [ "${KEEP:-0}" = 1 ]; then echo "test-slurm: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# munge: the credential daemon Slurm authenticates with, run as its own user.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  [ -s /etc/munge/munge.key ] || { mungekey --create 2>/dev/null || create-munge-key -f; }
  mkdir -p /run/munge && chown munge:munge /run/munge /etc/munge/munge.key
  runuser -u munge -- munged
  started_munged=1
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n | unmunge >/dev/null || die "munged did not start"
fi

node="$(hostname -s)"
cpus="$(nproc)"
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=fpscout-test
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF

cluster_start=$(date +%s.%N)
slurmctld -D -i >"$work/slurmctld.out" 2>&1 & pids+=($!)
slurmd -D >"$work/slurmd.out" 2>&1 & pids+=($!)
for _ in $(seq 100); do
  sinfo -h -n "$node" -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
  sleep 0.2
done
sinfo -h -n "$node" -o %T | grep -qE '^(idle|mixed|allocated)' \
  || { tail -5 "$work/slurmctld.log" "$work/slurmd.log" >&2; die "the node did not come up"; }
cluster_s=$(awk -v s="$cluster_start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
echo "test-slurm: cluster up on $node ($cpus CPUs) in $cluster_s s" >&2

read -r -a options <<<"${FPSCOUT_ARGS:---random 2000 --time-budget 30 --jobs 1}"
args=(exceptions "$source_file" "${options[@]}")
sharded="$work/sharded"
t0=$(date +%s.%N)
rc=0; "$here/scripts/slurm/submit.sh" "$sharded" "$shards" "${args[@]}" || rc=$?
sharded_s=$(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
[ "$rc" -le 1 ] || { cat "$sharded"/slurm-*.out >&2; die "the sharded run failed (status $rc)"; }
tasks=$(ls "$sharded"/shard-*.status | wc -l)

t0=$(date +%s.%N)
rc=0; "$fpscout" "${args[@]}" --jsonl "$work/all.jsonl" >/dev/null || rc=$?
unsharded_s=$(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
[ "$rc" -le 1 ] || die "the unsharded run failed (status $rc)"
"$fpscout" report "$work/all.jsonl" --json >"$work/all-report.jsonl" || true

# The set of (function, kind, location) of a report's --json.
findings() {
  python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "finding":
        f = r["data"]["finding"]
        print(f["function"], f["rule"], f["also"], json.dumps(f["location"], sort_keys=True))
' "$1" | sort
}
findings "$sharded/report.jsonl" >"$work/merged.txt"
findings "$work/all-report.jsonl" >"$work/unsharded.txt"
merged_n=$(wc -l <"$work/merged.txt"); unsharded_n=$(wc -l <"$work/unsharded.txt")
printf '%-28s %s\n' "shards (array tasks)" "$shards ($tasks ran)" "sharded wall s (submit..merge)" "$sharded_s" \
  "unsharded wall s" "$unsharded_s" "merged findings" "$merged_n" "unsharded findings" "$unsharded_n"
[ "$unsharded_n" -gt 0 ] || die "the unsharded run found nothing: nothing to compare"
if [ "${MEASURE:-0}" = 1 ]; then
  printf '%-28s %s\n' "only unsharded" "$(comm -23 "$work/unsharded.txt" "$work/merged.txt" | wc -l)" \
    "only merged" "$(comm -13 "$work/unsharded.txt" "$work/merged.txt" | wc -l)"
  exit 0
fi
diff "$work/unsharded.txt" "$work/merged.txt" || die "merged shards differ from the unsharded run"
[ -s "$sharded/html/index.html" ] || die "no HTML report from the merge"

# A lost shard is named with how to re-run it; re-run alone, the merge is whole again.
rm "$sharded/shard-1.jsonl" "$sharded/merge.status"
export FPSCOUT_ARRAY_SCRIPT="$here/scripts/slurm/fpscout-array.sbatch"
rc=0; sbatch -W --export=ALL --output="$sharded/slurm-merge-again.out" \
  "$here/scripts/slurm/fpscout-array.sbatch" --merge "$sharded" "$shards" >/dev/null || rc=$?
[ "$(cat "$sharded/merge.status")" = 2 ] || die "a merge without shard 1 did not fail"
grep -q "shard 1/$shards wrote nothing" "$sharded/slurm-merge-again.out" || die "the lost shard is not named"
rerun=$(grep -m1 -o 'SHARDS=[0-9]* sbatch --array=1 .*' "$sharded/slurm-merge-again.out") \
  || die "no re-run command for the lost shard"
echo "test-slurm: lost shard named; re-running it alone: $rerun" >&2
rm "$sharded/merge.status"
SHARDS="$shards" sbatch -W --export=ALL --output="$sharded/slurm-rerun-%A_%a.out" \
  --array=1 "$here/scripts/slurm/fpscout-array.sbatch" "$sharded" "${args[@]}" >/dev/null
sbatch -W --export=ALL --output="$sharded/slurm-merge-third.out" \
  "$here/scripts/slurm/fpscout-array.sbatch" --merge "$sharded" "$shards" >/dev/null || true
findings "$sharded/report.jsonl" >"$work/merged-again.txt"
diff "$work/unsharded.txt" "$work/merged-again.txt" || die "after re-running shard 1 the merge differs"
echo "test-slurm: ok: $shards shards merged to the unsharded run's $unsharded_n findings; a lost shard was named and re-run alone"
