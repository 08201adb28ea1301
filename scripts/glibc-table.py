#!/usr/bin/env python3
"""The table of scripts/bench-glibc-float.sh: each function's exhaustive maximum beside the published one.

Usage: glibc-table.py CACHE_DIR PUBLISHED_FILE LIBC_VERSION_LINE
PUBLISHED_FILE: lines `name ulps [input]` ('-' where no value is published), '#' comments.
"""
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from error_records import num, record  # noqa: E402


def main():
    cache, published_file, libc = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    published = {}
    for line in published_file.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        published[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
    print(f"libc: {libc}")
    print(f"{'function':<8} {'max ulps':>12} {'at x':>16} {'decided':>8} {'seconds':>8}  "
          f"{'published':>10} {'at x':>16}  ours >= published")
    counts = {"decided": 0, "at_least": 0, "compared": 0, "n": 0}
    for name in (cache / "functions.txt").read_text().split():
        counts["n"] += 1
        data = record(cache / f"{name}.json", "exhaustive")
        pub, pub_at = published.get(name, ("-", ""))
        if data is None or data.get("worst") is None:
            err = (cache / f"{name}.err").read_text().strip().splitlines() if (cache / f"{name}.err").exists() else []
            print(f"{name:<8} {'-':>12} {'':>16} {'':>8} {'':>8}  {pub:>10} {pub_at:>16}  "
                  f"not measured: {err[-1] if err else 'no output'}")
            continue
        # The published tables measure finite results: compare the finite maximum.
        worst = data.get("worst_finite") or data["worst"]
        decided = data["exact_finite_maximum"] if data.get("worst_finite") else data["exact_maximum"]
        ulps = num(worst["ulps"])
        counts["decided"] += bool(decided)
        verdict = ""
        if pub != "-":
            counts["compared"] += 1
            ok = ulps >= float(pub) * (1 - 1e-3)
            counts["at_least"] += ok
            verdict = "yes" if ok else "no"
        print(f"{name:<8} {ulps:>12.4g} {worst['input']:>16} {'yes' if decided else 'no':>8} "
              f"{data['wall_s']:>8.0f}  {pub:>10} {pub_at:>16}  {verdict}")
    print()
    print(f"maximum decided (exhaustive, within the margin) for {counts['decided']} of {counts['n']} functions; "
          f"at least the published value for {counts['at_least']} of {counts['compared']} with a published value")
    print("max ulps: the largest error over results and exact values that are both finite, in "
          "ulps of binary32 (the ulp of the exact value's binade), measured in MPFR")


if __name__ == "__main__":
    main()
