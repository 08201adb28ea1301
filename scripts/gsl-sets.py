#!/usr/bin/env python3
#! The GSL goal's measure: unique (source line, kind) raised at the library's own instructions, ours against the random baseline.
"""
Usage: gsl-sets.py OUT NAMES_FILE

OUT holds, per function NAME listed in NAMES_FILE (first word of each line), the JSON
Lines of `fpscout exceptions` (NAME.jsonl) and of its --random-only baseline
(NAME.random.jsonl), as scripts/bench-gsl.sh writes them. A finding counts as
(file, line, kind) when the executable's trace names an instruction of the library
itself (not `call exp`: a flag raised inside libm) and the file is not a system header;
the same line reached from several functions counts once. Prints, per kind and in all,
the sizes of both sets, their intersection, ours / random, and the share of random's set
that ours holds; then the functions whose own set is smaller than random's.
"""
import json
import os
import sys


def findings(path):
    """The (file, line, kind) keys of one run's finding records."""
    keys = set()
    try:
        with open(path) as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("type") != "finding":
                    continue
                d = rec.get("data", {})
                insn = d.get("instruction") or ""
                file = d.get("file") or ""
                if insn.startswith("call") or not file or file.startswith("/usr/"):
                    continue
                keys.add((file, d.get("line"), d.get("kind")))
    except OSError:
        pass
    return keys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, names_file = sys.argv[1], sys.argv[2]
    with open(names_file) as f:
        names = [l.split()[0] for l in f if l.strip()]
    ours, rand = set(), set()
    fewer = []
    for name in names:
        o = findings(os.path.join(out, name + ".jsonl"))
        r = findings(os.path.join(out, name + ".random.jsonl"))
        ours |= o
        rand |= r
        if len(o) < len(r):
            fewer.append("%s (%d < %d)" % (name, len(o), len(r)))
    kinds = sorted({k for _, _, k in ours | rand})
    print("%-10s %7s %7s %7s %8s %10s" % ("kind", "ours", "random", "both", "ratio", "of random"))
    for kind in kinds + [None]:
        o = {x for x in ours if kind is None or x[2] == kind}
        r = {x for x in rand if kind is None or x[2] == kind}
        both = o & r
        ratio = "%.2fx" % (len(o) / len(r)) if r else "-"
        share = "%.1f %%" % (100.0 * len(both) / len(r)) if r else "-"
        print("%-10s %7d %7d %7d %8s %10s" % (kind or "all", len(o), len(r), len(both), ratio, share))
    print("functions: %d; ours finds fewer than random in %d%s" % (
        len(names), len(fewer), (": " + ", ".join(fewer)) if fewer else ""))


if __name__ == "__main__":
    main()
