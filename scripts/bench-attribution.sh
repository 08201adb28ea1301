#!/usr/bin/env bash
#! Attribution of `diff` on the FPBench suites (issue #31): per FPCore the signatures, the fast-math sub-options each needs and the safe flag set; attribution's cost; and -O2 against -O2 -march=native -ffp-contract=fast.
#
# Usage: scripts/bench-attribution.sh [FPCORE_FILE...]   (default: bench/fpbench/*.fpcore)
#   TIME_BUDGET=10   --time-budget of each diff run
#   FPSCOUT          the binary (default: $CARGO_TARGET_DIR/release/fpscout, built when missing)
#   OUT=DIR          JSON Lines kept per FPCore (default /var/tmp/fpscout-bench/attribution)
#   CONTRACT=0       skip the third run (e.g. to measure attribution's cost at the default
#                    budget, TIME_BUDGET=60, in a third less time)
#
# For each FPCore, three runs of `fpscout diff FILE -f NAME --json --time-budget T`:
#   attributed: the default (attribution on);
#   plain:      --no-attribution (the time attribution adds is attributed / plain);
#   contract:   --p-flags -O2 --p-prime-flags "-O2 -march=native -ffp-contract=fast"
#               (skipped with a message where the CPU has no FMA).
# Prints per FPCore: signatures, their attributions, the safe set's disabled options, the
# wall times; then totals: how many FPCores keep all of fast-math but one sub-option, the
# median and largest time ratio, and how many FPCores show a contraction difference in
# ulps confirmed natively.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
target_dir="${CARGO_TARGET_DIR:-$here/target}"
FPSCOUT="${FPSCOUT:-$target_dir/release/fpscout}"
if [ ! -x "$FPSCOUT" ]; then
  cargo build --release -q -p fpscout
fi
if [[ $# -eq 0 ]]; then
  set -- bench/fpbench/*.fpcore
fi
OUT="${OUT:-/var/tmp/fpscout-bench/attribution}"
mkdir -p "$OUT"
FMA=0
grep -qw fma /proc/cpuinfo && FMA=1
[ "${CONTRACT:-1}" = 0 ] && FMA=skip
export FPSCOUT OUT FMA TIME_BUDGET="${TIME_BUDGET:-10}"
exec python3 - "$@" <<'PY'
import json, os, re, statistics, subprocess, sys, time

fpscout, out, budget = os.environ["FPSCOUT"], os.environ["OUT"], os.environ["TIME_BUDGET"]
fma = os.environ["FMA"] == "1"
contract_skipped = os.environ["FMA"] == "skip"

sys.path.insert(0, os.path.join(os.getcwd(), "scripts"))
from fpcore_forms import keyed

def run(path, key, extra, tag):
    cmd = [fpscout, "diff", path, "-f", key, "--json", "--time-budget", budget] + extra
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{os.path.basename(path)}-{key}-{tag}")
    with open(os.path.join(out, safe + ".jsonl"), "w") as f:
        f.write(p.stdout)
    findings, summary = [], None
    for line in p.stdout.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") == "finding" and r["data"].get("confirmed"):
            findings.append(r["data"])
        elif r.get("type") == "summary":
            summary = r["data"]
    return findings, summary, wall

print(f"{'suite':<15} {'name':<34} {'sigs':>4} {'t attr':>6} {'t plain':>7}  attributions / safe set disabled / contraction")
rows = []
for path in sys.argv[1:]:
    suite = os.path.basename(path).removesuffix(".fpcore")
    for key, name in keyed(path):
        fa, sa, ta = run(path, key, [], "attributed")
        fp, sp, tp = run(path, key, ["--no-attribution"], "plain")
        contract = None
        if fma:
            fc, sc, _ = run(path, key, ["--p-flags", "-O2", "--p-prime-flags",
                                         "-O2 -march=native -ffp-contract=fast"], "contract")
            contract = sum(1 for x in fc if "ulps" in x["kinds"])
        if sa is None:
            print(f"{suite:<15} {(name or key)[:34]:<34} not analysed", flush=True)
            continue
        per_sig = []
        for sig in sa.get("signature_inputs", []):
            for a in sig.get("attributions", []):
                per_sig.append("+".join(a["needs"]) or "none")
        attrs = sorted(set(per_sig))
        safe = sa.get("safe_flags") or {}
        disabled = safe.get("disabled", [])
        row = dict(suite=suite, name=name or key, sigs=sa["signatures"], ta=ta, tp=tp,
                   attrs=attrs, disabled=disabled, verified=safe.get("verified"),
                   contract=contract, stopped=[s for s in sa.get("stopped", []) if s.startswith("attribution")])
        rows.append(row)
        print(f"{suite:<15} {row['name'][:34]:<34} {row['sigs']:>4} {ta:>6.1f} {tp:>7.1f}  "
              f"{', '.join(attrs) or '-'} / off: {', '.join(disabled) or 'none'}"
              f"{'' if safe.get('verified', True) else ' (NOT verified)'}"
              f" / contraction ulps findings: {'-' if contract is None else contract}"
              f"{' / ' + row['stopped'][0] if row['stopped'] else ''}", flush=True)

print()
n = len(rows)
with_findings = [r for r in rows if r["sigs"] > 0]
one_off = [r for r in with_findings if len(r["disabled"]) == 1]
none_off = [r for r in rows if not r["disabled"]]
ratios = [r["ta"] / r["tp"] for r in rows if r["tp"] > 0]
print(f"FPCores analysed: {n}; with a confirmed difference: {len(with_findings)}")
print(f"safe set keeps all of fast-math but one sub-option: {len(one_off)} of {len(with_findings)} with differences; "
      f"keeps everything (no difference): {len(none_off)}")
counts = {}
for r in rows:
    for d in r["disabled"]:
        counts[d] = counts.get(d, 0) + 1
print("sub-options the safe sets turn off, by FPCores: " +
      ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])))
if ratios:
    print(f"time with attribution / without: median {statistics.median(ratios):.2f}x, max {max(ratios):.2f}x")
if fma:
    c = [r for r in rows if r["contract"]]
    print(f"-O2 vs -O2 -march=native -ffp-contract=fast: {len(c)} of {n} FPCores with a confirmed ulps difference")
elif contract_skipped:
    print("-O2 vs -march=native contraction: skipped (CONTRACT=0)")
else:
    print("-O2 vs -march=native contraction: skipped (no FMA on this CPU)")
PY
