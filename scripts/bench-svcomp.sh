#!/usr/bin/env bash
#! SV-COMP's ReachSafety-Floats with `fpscout reach`: per task, the expected verdict of unreach-call next to the answer, and the totals correct / wrong / unknown.
#
# Usage: scripts/bench-svcomp.sh SV_BENCHMARKS_C_DIR [FILTER_REGEX]
#   SV_BENCHMARKS_C_DIR     the `c` directory of an sv-benchmarks checkout (it holds
#                           ReachSafety-Floats.set and the task directories), or any
#                           directory of tasks (every .yml under it is a task)
#   TIME_BUDGET=10          seconds of --time-budget per task (compiling included); a
#                           run is killed at 3 times that
#   FPSCOUT=path/to/fpscout (default: $CARGO_TARGET_DIR/release/fpscout, built when missing)
#
# The tasks (only the directories of the category, a few MB):
#   git clone --depth 1 --filter=blob:none --sparse \
#       https://gitlab.com/sosy-lab/benchmarking/sv-benchmarks.git
#   cd sv-benchmarks && git sparse-checkout set c/properties c/float-benchs \
#       c/floats-cdfpl c/floats-cbmc-regression c/floats-esbmc-regression \
#       c/float-newlib c/loop-floats-scientific-comp c/bitvector c/float-nontermination
#   scripts/bench-svcomp.sh sv-benchmarks/c
# (a directory the .set names but the checkout lacks is reported and skipped; add it to
# the sparse-checkout list).
#
# Verdicts: `reachable` answers false (the witness replayed on the executable), only
# `unreachable` answers true; `unreachable within loop bound` is a bounded result and
# counts as unknown, as do `unknown` and errors (exit 2, shown as `error`). Tasks are
# compiled for x86-64 (LP64) whatever their data_model says (most are ILP32); the
# ILP32 column marks them, since `long` differs.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -ge 1 ] || { sed -n '4,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
tasks_dir="$(cd "$1" && pwd)"
filter="${2:-.}"
target_dir="${CARGO_TARGET_DIR:-$here/target}"
fpscout="${FPSCOUT:-$target_dir/release/fpscout}"
if [ ! -x "$fpscout" ]; then
  (cd "$here" && cargo build --release -p fpscout >&2)
fi
t="${TIME_BUDGET:-10}"
[[ "$t" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "TIME_BUDGET must be seconds, not '$t'" >&2; exit 2; }

FPSCOUT="$fpscout" TIME_BUDGET="$t" FILTER="$filter" TASKS_DIR="$tasks_dir" python3 - <<'EOF'
import glob, json, os, re, subprocess, sys, time
import yaml

tasks_dir = os.environ["TASKS_DIR"]
fpscout = os.environ["FPSCOUT"]
budget = float(os.environ["TIME_BUDGET"])
wanted = re.compile(os.environ["FILTER"])

def expected_of_yml(path):
    """(input file, expected unreach-call verdict, ILP32?) of a task definition, or None."""
    with open(path) as f:
        task = yaml.safe_load(f)
    verdict = None
    for prop in task.get("properties") or []:
        if os.path.basename(str(prop.get("property_file", ""))) == "unreach-call.prp":
            verdict = prop.get("expected_verdict")
    if verdict is None:
        return None
    inputs = task.get("input_files")
    if isinstance(inputs, list):
        if len(inputs) != 1:
            return None
        inputs = inputs[0]
    source = os.path.join(os.path.dirname(path), str(inputs))
    ilp32 = (task.get("options") or {}).get("data_model") == "ILP32"
    return source, bool(verdict), ilp32

def expected_of_name(path):
    """Older sets name the verdict in the file name."""
    name = os.path.basename(path)
    if "true-unreach-call" in name:
        return path, True, False
    if "false-unreach-call" in name:
        return path, False, False
    return None

tasks = []
set_file = os.path.join(tasks_dir, "ReachSafety-Floats.set")
if os.path.exists(set_file):
    patterns = [l.strip() for l in open(set_file) if l.strip() and not l.startswith("#")]
else:
    patterns = ["**/*.yml"]
for pattern in patterns:
    matched = sorted(glob.glob(os.path.join(tasks_dir, pattern), recursive=True))
    if not matched and not os.path.isdir(os.path.join(tasks_dir, os.path.dirname(pattern))):
        print(f"note: {pattern}: directory missing from the checkout, skipped", file=sys.stderr)
    for path in matched:
        found = expected_of_yml(path) if path.endswith(".yml") else expected_of_name(path)
        if found and wanted.search(os.path.relpath(path, tasks_dir)):
            tasks.append((os.path.relpath(path, tasks_dir),) + found)

def answer(source):
    """fpscout's verdict (True, False or None), its words, and seconds."""
    start = time.monotonic()
    try:
        out = subprocess.run(
            [fpscout, "reach", source, "--time-budget", str(budget), "--json"],
            capture_output=True, text=True, timeout=3 * budget + 30)
    except subprocess.TimeoutExpired:
        return None, "killed", time.monotonic() - start
    wall = time.monotonic() - start
    for line in out.stdout.splitlines():
        record = json.loads(line)
        if record.get("type") == "answer":
            words = record["data"]["answer"]
            verdict = {"reachable": False, "unreachable": True}.get(words)
            return verdict, words, wall
    return None, "error", wall

counts = {"correct": 0, "wrong": 0, "unknown": 0}
width = max([len(t[0]) for t in tasks] + [4])
print(f"{'task':<{width}}  expected  answered                        result   ILP32  seconds")
for name, source, expected, ilp32 in tasks:
    verdict, words, wall = answer(source)
    if verdict is None:
        result = "unknown"
    elif verdict == expected:
        result = "correct"
    else:
        result = "wrong"
    counts[result] += 1
    print(f"{name:<{width}}  {str(expected).lower():<8}  {words:<30}  {result:<7}  "
          f"{'yes' if ilp32 else 'no':<5}  {wall:7.2f}", flush=True)
print(f"total: {len(tasks)} tasks; {counts['correct']} correct, {counts['wrong']} wrong, "
      f"{counts['unknown']} unknown")
EOF
