#!/usr/bin/env python3
"""scripts/bench-libm.sh's helper: plans the functions of a libm (--plan) and tabulates which phases engaged per function."""
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

GLOBAL_DEFS = set("TDRBCVW")


def nm(bc):
    """(defined global symbols, undefined symbols) of one bitcode file."""
    out = subprocess.run(["llvm-nm-19", bc], capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[-2] == "U":
            undefined.add(parts[-1])
        elif len(parts) == 3 and parts[1] in GLOBAL_DEFS:
            defined.add(parts[2])
    return defined, undefined


def double_functions(bc):
    """Externally visible functions whose parameters are one or two doubles."""
    text = subprocess.run(["llvm-dis-19", bc, "-o", "-"], capture_output=True, text=True).stdout
    found = []
    for m in re.finditer(r"^define (?!internal|private)[^@]*@([\w.$]+)\(([^)]*)\)", text, re.M):
        params = [p.strip() for p in m.group(2).split(",") if p.strip()]
        if 1 <= len(params) <= 2 and all(p.split()[0] == "double" for p in params):
            found.append(m.group(1))
    return found


def wanted(lib, rel, fn, basenames):
    base = os.path.basename(rel)[:-2]
    if lib == "musl":
        # Double functions have a float twin (log.c, logf.c); internal ones start with "_".
        return (not base.startswith("_") and base + "f" in basenames
                and not fn.startswith("_"))
    # fdlibm layout (newlib, openlibm): e_NAME.c defines __ieee754_NAME, s_NAME.c NAME;
    # ef_/sf_ are float, k_ kernels, w_ newlib's errno wrappers around e_.
    if base.startswith("e_"):
        return fn.startswith("__ieee754_")
    if base.startswith("s_"):
        return not fn.startswith("_")
    return False


def plan(lib, files_tsv):
    files = [line.rstrip("\n").split("\t") for line in open(files_tsv) if line.strip()]
    basenames = {os.path.basename(rel)[:-2] for rel, _ in files}
    where, needs = {}, {}
    for rel, bc in files:
        d, u = nm(bc)
        needs[rel] = u
        for s in d:
            where.setdefault(s, rel)
    seen = set()
    for rel, bc in files:
        for fn in double_functions(bc):
            if not wanted(lib, rel, fn, basenames) or fn in seen or where.get(fn) != rel:
                continue
            seen.add(fn)
            # The files defining the internal symbols it needs, transitively.
            closure, todo = [rel], [rel]
            while todo:
                for s in sorted(needs[todo.pop()]):
                    f = where.get(s)
                    if s.startswith("__") and f and f not in closure:
                        closure.append(f)
                        todo.append(f)
            print(f"{fn}|{' '.join(closure)}")


def load(path):
    """The records of one --json run: list of (type, data)."""
    recs = []
    try:
        for line in open(path):
            line = line.strip()
            if line.startswith("{"):
                try:
                    r = json.loads(line)
                    recs.append((r.get("type"), r.get("data", {})))
                except json.JSONDecodeError:
                    pass
    except FileNotFoundError:
        pass
    return recs


def shorten(reason):
    """One reason class: locations, IR text, names and numbers taken out."""
    if reason == STARVED:
        return reason
    if "llvm.experimental.constrained" in reason:
        # -frounding-math makes every FP operation one; only the operand named differs.
        return "constrained FP intrinsic (-frounding-math): " + re.sub(r".*operand (![^ ]*).*", r"operand \1", reason)
    r = reason
    r = re.sub(r"^(P'?|search|random phase): ", "", r)
    r = re.sub(r"^\w+ (overflow|underflow|invalid|divbyzero|divide[-_ ]by[-_ ]zero|inexact) at [^ ]+: ", "", r)
    while r.startswith("unsupported: "):
        r = r[len("unsupported: "):]
    r = re.sub(r"unsupported in function '[^']*' at [^ ]+: ", "", r)
    r = re.sub(r"\[[^\]]*\]", "", r)           # IR text
    r = re.sub(r"%[\w.]+", "%v", r)
    # Names are kept: "external function 'fetestexcept'" tells the engine team what to model.
    r = re.sub(r"\b\d+(\.\d+)?\b", "N", r)
    r = re.sub(r" at [\w./+-]+:N:N.*$", "", r)  # where: the function is in the row
    r = re.sub(r"\s+", " ", r).strip(" ;:,")
    return r[:110]


def is_limit(reason):
    """Stop reasons that are budgets, not something fpscout cannot model."""
    return bool(re.search(r"budget|ran out|max-paths|loop bound|step limit|limit of|deadline|time", reason)) \
        and "unsupported" not in reason


# Not a modelling gap: the budget (compiling included) ended before the phase could start;
# on a loaded machine compiling P and P' can take all of it.
STARVED = "budget: no input tried (compiling took the time budget)"


# A solver phase on a function whose every path was walked without a condition to state
# (fabs, fmax: no operation can raise or differ) has nothing to do: not counted either way.
NOTHING_TO_SOLVE = (None, "nil")


def walked_all(summary):
    """Whether the symbolic walk covered every path it found (none stopped by an unsupported construct)."""
    for c in summary.get("coverage") or []:
        if c.get("unit") == "paths":
            return c.get("of", 0) > 0 and c.get("reached") == c.get("of") and not c.get("open")
    return False


def row(ws, fn):
    ex = dict(load(f"{ws}/{fn}.exceptions.json"))
    df = dict(load(f"{ws}/{fn}.diff.json"))
    er = dict(load(f"{ws}/{fn}.error.json"))
    rc = {m: (open(f"{ws}/{fn}.{m}.rc").read().strip() if os.path.exists(f"{ws}/{fn}.{m}.rc") else "-")
          for m in ("exceptions", "diff", "error")}
    s = ex.get("summary")
    d = df.get("summary")
    e = er.get("error")
    phases = {}
    reasons = []
    # Seconds compiling (part of each budget): on a loaded machine it can eat all of it.
    compile_s = {m: r["phases"]["compile"] for m, r in (("exceptions", s), ("diff", d)) if r}
    if s:
        q = s["queries"]
        fs = s["float_solver"]
        decided = q["z3_sat"] + q["z3_unsat"]
        nothing = walked_all(s) and s["unique_conditions"] == 0
        phases["ex.walk"] = (s["unique_conditions"] > 0 or walked_all(s), f"{s['unique_conditions']}c")
        phases["ex.z3"] = NOTHING_TO_SOLVE if nothing else (decided > 0, f"{q['z3_sat']}/{decided + q['z3_unknown']}")
        fb = q["fallback_sat"] + q["fallback_unknown"]
        # The fallback solver only takes the queries Z3 left unknown.
        phases["ex.fallback"] = (fb > 0, f"{q['fallback_sat']}/{fb}") if q["z3_unknown"] > 0 else NOTHING_TO_SOLVE
        # The float solver takes only the targets every earlier phase missed.
        phases["ex.fsolve"] = NOTHING_TO_SOLVE if nothing or fs.get("missed") == 0 else (
            fs["targets"] > 0, f"{fs['witnessed'] + fs['infeasible']}/{fs['targets']}")
        phases["ex.random"] = (s["random_inputs"] > 0, f"{s['findings']}f")
        reasons += [("exceptions", x) for x in s["stopped"] if not is_limit(x)]
        reasons += [("exceptions", x) for x in fs["open"]]
        if s["random_inputs"] == 0 and s["native_runs"] == 0:
            reasons.append(("exceptions", STARVED))
    if d:
        nothing = walked_all(d) and d["unique_constraints"] == 0
        phases["diff.walk"] = (d["unique_constraints"] > 0 or walked_all(d), f"{d['unique_constraints']}c")
        phases["diff.z3"] = NOTHING_TO_SOLVE if nothing else (d["satisfiable"] + d["unsatisfiable"] > 0,
                                                               f"{d['satisfiable']}/{d['unique_constraints']}")
        phases["diff.fsolve"] = NOTHING_TO_SOLVE if nothing or d.get("float_solver_missed") == 0 else (
            d["float_solver_targets"] > 0,
            f"{d['float_solver_candidates'] + d['float_solver_infeasible']}/{d['float_solver_targets']}")
        phases["diff.random"] = (d["random_inputs"] > 0, f"{d['diff_confirmed']}f")
        reasons += [("diff", x) for x in d["stopped"] if not is_limit(x)]
        if d["random_inputs"] == 0 and any("after 0 inputs" in x for x in d["stopped"]):
            reasons.append(("diff", STARVED))
    if e:
        measured = e["evaluations"] - e["unmeasured"]
        phases["err.shadow"] = (measured > 0, f"{measured}/{e['evaluations']}")
        if e.get("first_failure"):
            reasons.append(("error", e["first_failure"]))
        elif e["evaluations"] == 0:
            reasons.append(("error", STARVED))
    # A run that failed outright (exit 2, a crash, a kill) is a reason of its own, except
    # error on a function returning an integer: nothing to measure, the phase does not apply.
    for m, code in list(rc.items()):
        if code not in ("0", "1", "-"):
            err = [x for x in open(f"{ws}/{fn}.{m}.err").read().splitlines()
                   if x.strip() and not x.startswith('{"type":"progress"')]
            if m == "error" and any("has no float result to measure" in x for x in err):
                phases["err.shadow"] = (None, "n/a")
                rc[m] = "-"
                continue
            msg = next((x for x in err if x.startswith("fpscout: error") or "panicked" in x), err[-1] if err else "")
            # clang's own complaint says more than fpscout's line announcing it
            clang = next((x for x in err if re.match(r"^\S+:\d+:\d+: error: ", x)), None)
            if clang:
                msg = "clang: " + re.sub(r"^\S+:\d+:\d+: error: ", "", clang)
            reasons.append((m, f"exit {code}: " + msg))
    return phases, reasons, rc, compile_s


COLUMNS = ["ex.walk", "ex.z3", "ex.fallback", "ex.fsolve", "ex.random",
           "diff.walk", "diff.z3", "diff.fsolve", "diff.random", "err.shadow"]


def table(out, only):
    # Variants (musl-no-frounding-math) only when named: they would count functions twice.
    libs = only or sorted(d for d in os.listdir(out) if os.path.isdir(f"{out}/{d}") and "-no-" not in d)
    engaged = Counter()
    per_lib = defaultdict(Counter)   # lib -> column -> functions engaged
    applies = defaultdict(Counter)   # lib -> column -> functions it applies to
    lib_total = Counter()
    hist = defaultdict(set)          # (mode, reason) -> functions
    total = 0
    compiles = defaultdict(list)
    lines = []
    head = f"{'function':<22}" + "".join(f"{c:>12}" for c in COLUMNS) + "  top unsupported reason"
    for lib in libs:
        ws = f"{out}/{lib}"
        fns = sorted({f[:-len(".exceptions.rc")] for f in os.listdir(ws) if f.endswith(".exceptions.rc")})
        if not fns:
            continue
        lines.append(f"== {lib} ({len(fns)} functions)  cell: + engaged / . not, then covered (solved/stated, c conditions, f findings, measured/evaluations)")
        lines.append(head)
        for fn in fns:
            phases, reasons, rc, compile_s = row(ws, fn)
            total += 1
            lib_total[lib] += 1
            for m, x in compile_s.items():
                compiles[m].append(x)
            cells = []
            for c in COLUMNS:
                ok, cov = phases.get(c, (False, "-"))
                if ok is None:
                    cells.append(cov)
                    continue
                applies[lib][c] += 1
                engaged[c] += ok
                per_lib[lib][c] += ok
                cells.append(("+" if ok else ".") + cov if cov != "-" else "-")
            per_fn = Counter()
            for mode, r in reasons:
                k = shorten(r)
                per_fn[k] += 1
                hist[(mode, k)].add(f"{lib}:{fn}")
            top = per_fn.most_common(1)[0][0][:60] if per_fn else ""
            name = fn if all(v in ("0", "1", "-") for v in rc.values()) else fn + "!"
            lines.append(f"{name:<22}" + "".join(f"{x:>12}" for x in cells) + "  " + top)
        lines.append("")
    shown = [lib for lib in libs if lib_total[lib]]
    lines.append(f"== engaged, of the {total} functions, where the phase applies (target: 90 %; error does not apply to integer results, nor a solver to nothing (nil);")
    lines.append("   a run that exited 2 or ran out of budget before its first input counts as not engaged)")
    lines.append(f"  {'phase':<12}" + "".join(f"{lib + ' (' + str(lib_total[lib]) + ')':>24}" for lib in shown) + f"{'all':>16}")
    for c in COLUMNS:
        cells = [f"{per_lib[lib][c]:>3}/{applies[lib][c]:<3} {100.0 * per_lib[lib][c] / max(applies[lib][c], 1):5.1f} %" for lib in shown]
        n = sum(applies[lib][c] for lib in shown)
        pct = 100.0 * engaged[c] / n if n else 0.0
        lines.append(f"  {c:<12}" + "".join(f"{x:>24}" for x in cells) + f"{engaged[c]:>6}/{n:<3} {pct:5.1f} %")
    for m, xs in sorted(compiles.items()):
        xs.sort()
        lines.append(f"  compiling, {m}: median {xs[len(xs) // 2]:.1f} s, max {xs[-1]:.1f} s (inside the budget)")
    lines.append("")
    lines.append("== unsupported / open reasons, by functions affected (mode: reason)")
    for (mode, r), fns in sorted(hist.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"  {len(fns):>4}  {mode}: {r}")
    lines.append("")
    lines.append("== the same, any mode (functions affected by each reason)")
    anymode = defaultdict(set)
    for (mode, r), fns in hist.items():
        anymode[r] |= fns
    for r, fns in sorted(anymode.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"  {len(fns):>4}  {r}")
    lines.append("")
    lines.append("'!' after a name: a run exited with neither 0 nor 1 (see its .rc/.err); n/a: the mode does not apply;")
    lines.append("nil: the walk covered every path and stated no condition, Z3 left nothing to the fallback,")
    lines.append("or the earlier phases left the float solver no target missed:")
    lines.append("the solver phase had nothing to do (not counted); a walk counts as engaged when it stated")
    lines.append("conditions or covered every path")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--plan":
        plan(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 2:
        table(sys.argv[1], sys.argv[2:])
    else:
        sys.exit("usage: libm-table.py --plan LIB FILES.tsv | libm-table.py OUTDIR [LIB...]")
