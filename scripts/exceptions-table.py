#!/usr/bin/env python3
#! Prints the side-by-side table of bench-gsl.sh / bench-exceptions.sh: `fpscout exceptions` against its --random-only baseline.
"""
Usage:
  exceptions-table.py --line OUT NAME
      one progress line for function NAME (files OUT/NAME.{jsonl,err,run} and
      OUT/NAME.random.{jsonl,err,run}, as bench_run_pair in exceptions-bench-lib.sh
      writes them)
  exceptions-table.py OUT NAMES_FILE [SCRIPT_SECONDS]
      the table for the functions listed in NAMES_FILE (first word of each line), then
      the totals; SCRIPT_SECONDS is the whole script's wall time so far

Per function, from the {"type":"summary"} record of each run: Ariadne's x/y (`locations`
/ `pairs`), avoidable findings, queries by outcome and solver, targets raised / targets,
wall time; a run without a summary shows its error (an {"type":"unsupported"} record, else
the `fpscout: error:` line of its stderr, else its exit status).
"""
import json
import os
import re
import sys


def read_run(out, name, suffix):
    """What one run left: summary (dict or None), error (str or None), rc, seconds."""
    base = os.path.join(out, name + suffix)
    rc, seconds, limit = None, None, None
    try:
        with open(base + ".run") as f:
            parts = f.read().split()
        rc, seconds, limit = int(parts[0]), float(parts[1]), parts[2]
    except (OSError, ValueError, IndexError):
        return None, "not run (no %s.run)" % (name + suffix), None, None
    summary, unsupported = None, None
    try:
        with open(base + ".jsonl") as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("type") == "summary":
                    summary = rec.get("data")
                elif rec.get("type") == "unsupported":
                    unsupported = rec.get("data", {}).get("reason")
    except OSError:
        pass
    if summary is not None:
        return summary, None, rc, seconds
    if unsupported:
        return None, unsupported, rc, seconds
    err_lines = []
    try:
        with open(base + ".err", errors="replace") as f:
            err_lines = [l.strip() for l in f if l.strip()]
    except OSError:
        pass
    if rc in (124, 137):
        return None, "killed by the benchmark after %s s (no summary)" % limit, rc, seconds
    for l in err_lines:
        if l.startswith("fpscout: error:"):
            return None, l[len("fpscout: error:"):].strip(), rc, seconds
    for l in err_lines:
        if "error" in l.lower() or "panicked" in l:
            return None, l, rc, seconds
    if err_lines:
        return None, err_lines[-1], rc, seconds
    if rc is not None and rc > 128:
        return None, "killed by signal %d, no summary" % (rc - 128), rc, seconds
    return None, "exit status %s, no summary record" % rc, rc, seconds


def short(text, n=160):
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def more(ours, base):
    if ours is None or base is None:
        return "?"
    a, b = ours["locations"], base["locations"]
    return "ours" if a > b else ("random" if b > a else "same")


def progress_line(out, name):
    ours, err, _, secs = read_run(out, name, "")
    base, berr, _, bsecs = read_run(out, name, ".random")
    if ours is None:
        left = "FAILED: %s" % short(err, 120)
    else:
        q = ours["queries"]
        left = "x/y %d/%d, z3 %d/%d/%d, fallback %d/%d, targets %d/%d, %.1f s" % (
            ours["locations"], ours["pairs"], q["z3_sat"], q["z3_unsat"], q["z3_unknown"],
            q["fallback_sat"], q["fallback_unknown"], ours["targets_confirmed"],
            ours["targets"], ours["wall_seconds"])
    right = ("random x/y %d/%d" % (base["locations"], base["pairs"])) if base else (
        "random FAILED: %s" % short(berr, 80))
    return "%s: %s | %s | more: %s" % (name, left, right, more(ours, base))


def normalise(reason, name):
    """A reason with what is particular to one function taken out, to group them."""
    r = reason.replace(name, "F")
    r = re.sub(r"gsl_[A-Za-z0-9_]+", "gsl_*", r)
    r = re.sub(r"[\w./-]+\.(c|h|ll|bc):\d+(:\d+)?", "FILE:LINE", r)
    r = re.sub(r"\b\d+(\.\d+)?\b", "N", r)
    return short(r, 140)


def table(out, names_file, script_seconds):
    with open(names_file) as f:
        names = [l.split()[0] for l in f if l.strip()]
    head = ["function", "x/y", "avoid", "z3 s/u/?", "fallback s/?", "targets",
            "wall s", "random x/y", "inputs", "wall s", "more"]
    rows, failed = [], []
    tot = dict(analysed=0, both=0, ours_loc=0, base_loc=0, ours_pairs=0, base_pairs=0,
               gt=0, eq=0, lt=0, ours_wall=0.0, ours_proc=0.0, base_wall=0.0,
               base_proc=0.0, base_failed=0)
    reasons = {}
    for name in names:
        ours, err, _, secs = read_run(out, name, "")
        base, berr, _, bsecs = read_run(out, name, ".random")
        tot["ours_proc"] += secs or 0.0
        tot["base_proc"] += bsecs or 0.0
        if base is not None:
            base_cells = ["%d/%d" % (base["locations"], base["pairs"]),
                          str(base.get("traced_runs", "")), "%.1f" % base["wall_seconds"]]
            tot["base_wall"] += base["wall_seconds"]
        else:
            tot["base_failed"] += 1
            base_cells = ["failed", "", ""]
        if ours is None:
            failed.append((name, err))
            reasons.setdefault(normalise(err, name), []).append(name)
            rows.append([name, "not analysed: " + short(err)])
            continue
        tot["analysed"] += 1
        tot["ours_wall"] += ours["wall_seconds"]
        q = ours["queries"]
        rows.append([
            name,
            "%d/%d" % (ours["locations"], ours["pairs"]),
            str(ours["avoidable"]),
            "%d/%d/%d" % (q["z3_sat"], q["z3_unsat"], q["z3_unknown"]),
            "%d/%d" % (q["fallback_sat"], q["fallback_unknown"]),
            "%d/%d" % (ours["targets_confirmed"], ours["targets"]),
            "%.1f" % ours["wall_seconds"],
        ] + base_cells + [more(ours, base)])
        if base is not None:
            tot["both"] += 1
            tot["ours_loc"] += ours["locations"]
            tot["base_loc"] += base["locations"]
            tot["ours_pairs"] += ours["pairs"]
            tot["base_pairs"] += base["pairs"]
            a, b = ours["locations"], base["locations"]
            tot["gt" if a > b else ("lt" if a < b else "eq")] += 1

    full = [r for r in rows if len(r) == len(head)]
    widths = [max(len(r[i]) for r in [head] + full) for i in range(len(head))]
    numeric = {1, 2, 3, 4, 5, 6, 7, 8, 9}

    def fmt(r):
        if len(r) != len(head):
            return r[0].ljust(widths[0]) + "  " + r[1]
        cells = [c.rjust(w) if i in numeric else c.ljust(w)
                 for i, (c, w) in enumerate(zip(r, widths))]
        # The baseline's columns after a separator.
        return ("  ".join(cells[:7]) + "  |  " + "  ".join(cells[7:10]) + "  |  " + cells[10]).rstrip()

    ours_w = sum(widths[:7]) + 2 * 6
    base_w = sum(widths[7:10]) + 2 * 2
    print("ours: fpscout exceptions".ljust(ours_w) + "  |  "
          + "baseline: --random-only".ljust(base_w) + "  |")
    print(fmt(head))
    for r in rows:
        print(fmt(r))
    print()
    print("columns: x/y = operation locations that raised something / (input, location) pairs;"
          " avoid = potentially avoidable findings; z3 s/u/? and fallback s/? = queries sat/unsat/unknown;"
          " targets = (operation, kind) targets raised at their operation / targets;"
          " inputs = traced random inputs of the baseline; more = which run found more locations")
    print()
    print("functions: %d listed, %d analysed, %d not analysed" % (
        len(names), tot["analysed"], len(failed)))
    for reason, who in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        print("  %3d  %s  (%s)" % (len(who), reason, ", ".join(who[:4]) + (", …" if len(who) > 4 else "")))
    if tot["base_failed"]:
        print("baseline runs without a summary: %d" % tot["base_failed"])
    print("locations, ours vs baseline (%d functions with both): %d vs %d  (pairs %d vs %d)" % (
        tot["both"], tot["ours_loc"], tot["base_loc"], tot["ours_pairs"], tot["base_pairs"]))
    print("functions where ours found more locations: %d, as many: %d, fewer: %d" % (
        tot["gt"], tot["eq"], tot["lt"]))
    print("wall time: our runs %.1f s (%.1f s as processes), baseline runs %.1f s (%.1f s as processes)%s" % (
        tot["ours_wall"], tot["ours_proc"], tot["base_wall"], tot["base_proc"],
        ", whole script %.1f s" % script_seconds if script_seconds is not None else ""))


def main(argv):
    if len(argv) == 4 and argv[1] == "--line":
        print(progress_line(argv[2], argv[3]))
        return 0
    if len(argv) in (3, 4) and not argv[1].startswith("-"):
        table(argv[1], argv[2], float(argv[3]) if len(argv) == 4 else None)
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
