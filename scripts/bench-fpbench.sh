#!/usr/bin/env bash
# FPBench benchmark: `fpscout diff FILE -f NAME --json` on every FPCore of the suites
# (default: bench/fpbench/*.fpcore; or the .fpcore files given as arguments), default
# budgets or TIME_BUDGET seconds each. Prints per expression: suite, name, supported or
# why not, confirmed findings, signatures, wall time; then totals (supported %, analysed,
# with findings, max/median time) per suite and for all. Each FPCore's body is the
# reference of `diff` (issue #32): `ref` counts the confirmed findings whose exact value
# is finite, `named` those of them that name the build closer to it (P, P' or tie).
# FPSCOUT=path/to/fpscout uses that binary instead of building the release one.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${FPSCOUT:-}" ]]; then
    cargo build --release -q -p fpscout
    FPSCOUT="${CARGO_TARGET_DIR:-target}/release/fpscout"
fi
if [[ $# -eq 0 ]]; then
    set -- bench/fpbench/*.fpcore
fi
export FPSCOUT TIME_BUDGET="${TIME_BUDGET:-}"
exec python3 - "$@" <<'PY'
import json, os, re, statistics, subprocess, sys, time

fpscout = os.environ["FPSCOUT"]
budget = os.environ.get("TIME_BUDGET") or None

sys.path.insert(0, os.path.join(os.getcwd(), "scripts"))
from fpcore_forms import keyed

rows = []
print(f"{'suite':<16} {'name':<40} {'status':<12} {'found':>5} {'sigs':>4} {'ref':>4} {'named':>5} {'wall s':>7}  note")
for path in sys.argv[1:]:
    suite = os.path.basename(path).removesuffix(".fpcore")
    for key, name in keyed(path):
        cmd = [fpscout, "diff", path, "-f", key, "--json"]
        if budget:
            cmd += ["--time-budget", budget]
        t0 = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - t0
        summary = None
        with_ref = named = 0
        for line in p.stdout.splitlines():
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("type") == "summary":
                summary = r["data"]
            if r.get("type") == "finding":
                ref = r["data"].get("reference") or {}
                if isinstance(ref.get("exact"), (int, float)):
                    with_ref += 1
                    named += ref.get("closer") in ("P", "P'", "tie")
        if p.returncode in (0, 1) and summary is not None:
            row = dict(suite=suite, name=name or key, status="analysed",
                       found=summary["diff_confirmed"], sigs=summary["signatures"],
                       ref=with_ref, named=named, wall=wall, note="")
        else:
            errors = [l for l in p.stderr.splitlines() if l.startswith("fpscout: error:")]
            why = errors[-1].removeprefix("fpscout: error: ") if errors else \
                f"exit {p.returncode}: " + (p.stderr.strip().splitlines() or ["?"])[-1]
            status = "unsupported" if "not supported" in why else "failed"
            row = dict(suite=suite, name=name or key, status=status, found=None,
                       sigs=None, ref=None, named=None, wall=wall, note=re.sub(r"^\S*/", "", why)[:110])
        rows.append(row)
        fmt = lambda v: "-" if v is None else str(v)
        print(f"{row['suite']:<16} {row['name'][:40]:<40} {row['status']:<12} "
              f"{fmt(row['found']):>5} {fmt(row['sigs']):>4} {fmt(row['ref']):>4} "
              f"{fmt(row['named']):>5} {row['wall']:>7.1f}  {row['note']}",
              flush=True)

def totals(label, rows):
    n = len(rows)
    analysed = [r for r in rows if r["status"] == "analysed"]
    unsupported = [r for r in rows if r["status"] == "unsupported"]
    times = [r["wall"] for r in analysed]
    line = (f"{label}: expressions {n}; supported {n - len(unsupported)} "
            f"({100 * (n - len(unsupported)) / max(n, 1):.0f} %); "
            f"analysed {len(analysed)} ({100 * len(analysed) / max(n, 1):.0f} %); "
            f"with confirmed findings {sum(1 for r in analysed if r['found'])}; "
            f"findings {sum(r['found'] for r in analysed)}; "
            f"signatures {sum(r['sigs'] for r in analysed)}; "
            f"with a finite reference {sum(r['ref'] for r in analysed)}, "
            f"closer build named {sum(r['named'] for r in analysed)}")
    if times:
        line += (f"; wall max {max(times):.1f} s, median {statistics.median(times):.1f} s, "
                 f"under 10 s {sum(1 for t in times if t < 10)}/{len(times)}")
    print(line)

print()
for suite in dict.fromkeys(r["suite"] for r in rows):
    totals(suite, [r for r in rows if r["suite"] == suite])
totals("all", rows)
PY
