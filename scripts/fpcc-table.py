#!/usr/bin/env python3
"""scripts/bench-gsl-fpcc.sh's table: every input each run reported, re-scored against mpmath; a function counts when one meets FPCC's bug-level definition."""
import math
import os
import signal
import sys

import mpmath
from mpmath import mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from error_records import num, record, value_of  # noqa: E402

THRESHOLD = 1e-3  # FPCC's: relative error above 1e-3, input, result and exact value finite
SECONDS_PER_INPUT = 20  # mpmath's time for one input, every precision included
GIVE_UPS_PER_FUNCTION = 2  # then the function's remaining inputs are not evaluated
DBL_MIN = 2.0 ** -1022
DBL_MAX = 1.7976931348623157e308


def run_info(path):
    try:
        return dict(kv.split("=", 1) for kv in open(path).read().split() if "=" in kv)
    except OSError:
        return {}


def input_value(i):
    """A parameter's value: a float as its hex, an integer parameter (gsl_mode_t) as is."""
    v = i["value"]
    if isinstance(v, dict):
        if "hex" in v:
            return float.fromhex(v["hex"])
        if "int" in v:
            return int(v["int"])
        return float(v.get("decimal"))
    return float(v)


def input_key(inputs):
    return tuple(f"{i['name']}={i['value'].get('hex', i['value'].get('int'))}" for i in inputs)


NAMES = {k: getattr(mpmath, k) for k in dir(mpmath) if not k.startswith("_")}
NAMES["abs"] = abs


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def mathematical(expr, inputs):
    """mpmath's value (None when mpmath gave up), its precision raised until two
    evaluations agree to 30 digits. A complex value whose imaginary part is not
    negligible is NaN (the function is real-valued where GSL defines it)."""
    env = dict(NAMES)
    env.update({i["name"]: mpmath.mpf(input_value(i)) for i in inputs if "hex" in i["value"]})
    last = None
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SECONDS_PER_INPUT)
    try:
        for dps in (50, 100, 200, 400, 800, 1600):
            mp.dps = dps
            try:
                v = eval(expr, {"__builtins__": {}}, env)
            except (ValueError, ZeroDivisionError, OverflowError, mpmath.libmp.NoConvergence):
                v = mpmath.nan
            if isinstance(v, mpmath.mpc):
                v = v.real if abs(v.imag) <= abs(v) * mpmath.mpf(10) ** (-dps // 2) else mpmath.nan
            v = +mpmath.mpf(v)
            # A zero may be a cancellation that more digits resolve: never accepted early.
            if last is not None and mpmath.isfinite(v) and mpmath.isfinite(last) and v != 0:
                if abs(v - last) <= abs(v) * mpmath.mpf(10) ** -30:
                    return v
            if last is not None and mpmath.isnan(v) and mpmath.isnan(last):
                return v
            last = v
        return last
    except Timeout:
        return last if last is not None and mpmath.isfinite(last) and last != 0 and dps > 50 else None
    finally:
        signal.alarm(0)


def rounded(exact):
    """exact rounded to the nearest binary64 (subnormals, underflow to zero, overflow)."""
    mp.prec = 2000
    if abs(exact) < mpmath.mpf(2) ** -1022:
        return float(mpmath.nint(exact * mpmath.mpf(2) ** 1074) * mpmath.mpf(2) ** -1074)
    with mpmath.workprec(53):
        r = +exact
    return float(r) if abs(r) <= mpmath.mpf(DBL_MAX) else math.copysign(math.inf, r)


def relative(computed, exact):
    """|computed - exact| / |exact| (inf when exact is 0 and computed is not), or None
    when either is not finite. A result equal to the correctly rounded exact value is
    no error, whatever the relative error of that rounding (Ai(1e37) is about
    1e-69543089875945492..., and 0 is its binary64 value)."""
    if exact is None or not mpmath.isfinite(exact) or not math.isfinite(computed):
        return None
    if computed == rounded(exact):
        return 0.0
    mp.dps = 60
    if exact == 0:
        return math.inf
    return abs(mpmath.mpf(computed) - exact) / abs(exact)


def fmt(x):
    if x is None:
        return "-"
    if isinstance(x, mpmath.mpf):
        return mpmath.nstr(x, 3) if mpmath.isfinite(x) else "inf"
    return f"{x:.3g}" if math.isfinite(x) else "inf"


def candidates(r):
    """The inputs a run reported: worst, worst finite, every bug-level input (deduplicated)."""
    seen, out = set(), []
    bug_keys = set()
    for b in r.get("bug_inputs") or []:
        bug_keys.add(input_key(b["inputs"]))
    for kind, c in [("worst", r)] + [("worst_finite", r.get("worst_finite"))] + [
            ("bug", b) for b in r.get("bug_inputs") or []]:
        if not c or not c.get("inputs") or c.get("computed") is None:
            continue
        key = input_key(c["inputs"])
        if key in seen:
            continue
        seen.add(key)
        out.append((kind, c, key in bug_keys))
    return out


def main(cache):
    rows, notes, disagreements = [], [], []
    counted = counted_normal = flagged = 0
    total = 0
    for line in open(f"{cache}/functions.txt"):
        name, mode, expr = line.rstrip("\n").split("|", 2)
        total += 1
        info = run_info(f"{cache}/{name}.run")
        r = record(f"{cache}/{name}.json")
        if not r:
            why = "not run" if not info else f"no record (exit {info.get('exit', '?')}, see {name}.err)"
            rows.append((name, mode, info.get("exit", "-"), None, None, None, None, None, why, 0))
            continue
        bugs = r.get("bug_inputs") or []
        fp_flag = len(bugs) > 0  # against the reference, or the shadow in shadow-only runs
        flagged += fp_flag
        confirmed, normal, worst_rel, unknown = 0, 0, None, 0
        for kind, c, in_bugs in candidates(r):
            computed = value_of(c["computed"])
            if not math.isfinite(computed):
                continue  # FPCC counts finite results only: no need to ask mpmath
            if unknown >= GIVE_UPS_PER_FUNCTION:
                unknown += 1
                continue
            exact = mathematical(expr, c["inputs"])
            rel = relative(computed, exact)
            if exact is None:
                unknown += 1
            if rel is not None and (worst_rel is None or rel > worst_rel):
                worst_rel = rel
            ok = rel is not None and rel > THRESHOLD
            confirmed += ok
            # The exact value in binary64's normal range: not an underflow that GSL
            # flushes or rounds away (FPCC counts those too).
            normal += ok and abs(exact) >= DBL_MIN
            ours = num(c.get("max_rel_error"))
            ours_bug = in_bugs and mode == "fpscout"
            if mode == "fpscout" and ours_bug != ok:
                args = ",".join(k for k in input_key(c["inputs"]) if not k.startswith("mode="))
                disagreements.append(
                    f"{name} at {args}: GSL {c['computed']}, fpscout's exact {c.get('exact')} "
                    f"(rel {fmt(ours)}, {'kept' if in_bugs else 'not kept'} as bug-level), "
                    f"mpmath {mpmath.nstr(exact, 17) if exact is not None else 'gave up'} "
                    f"(rel {fmt(rel)})")
        counted += confirmed > 0
        counted_normal += normal > 0
        note = "" if not confirmed or normal else "exact values subnormal only"
        if unknown:
            note = (note + "; " if note else "") + f"mpmath gave up on {unknown} input(s)"
        rows.append((name, mode, info.get("exit", "-"), r.get("evaluations"), len(bugs),
                     confirmed, worst_rel, fp_flag, note, normal))

    print(f"{'function':<28} {'reference':<9} {'exit':>4} {'evals':>9} {'fpscout bug':>11} "
          f"{'mpmath bug':>10} {'worst rel (mpmath)':>18}")
    for name, mode, rc, evals, bugs, conf, worst, _, note, _ in rows:
        print(f"{name:<28} {mode:<9} {rc:>4} {str(evals if evals is not None else '-'):>9} "
              f"{str(bugs if bugs is not None else '-'):>11} "
              f"{str(conf if conf is not None else '-'):>10} {fmt(worst):>18}  {note}")
    with_ref = sum(1 for row in rows if row[1] == "fpscout")
    print()
    print(f"bug-level input in {counted} of {total} functions (goal 44: MGDE; FPCC 29)")
    print(f"  of which {counted_normal} with a bug-level input whose exact value is a normal "
          f"binary64 (|exact| >= 2^-1022), {counted - counted_normal} only where it is subnormal")
    print(f"references: {with_ref} functions against an FPCore reference, {total - with_ref} shadow only")
    conf_ref = sum(1 for row in rows if row[1] == "fpscout" and row[5])
    flag_ref = sum(1 for row in rows if row[1] == "fpscout" and row[7])
    print(f"fpscout kept bug-level inputs in {flagged} functions ({flag_ref} against the "
          f"reference, {flagged - flag_ref} against the shadow); mpmath confirmed one in "
          f"{conf_ref} reference runs and {counted - conf_ref} shadow-only runs")
    only_fp = [row[0] for row in rows if row[7] and not row[5]]
    only_mp = [row[0] for row in rows if row[5] and not row[7]]
    print(f"kept by fpscout, none confirmed by mpmath: {', '.join(only_fp) or 'none'}")
    print(f"confirmed by mpmath, none kept by fpscout: {', '.join(only_mp) or 'none'}")
    if disagreements:
        print(f"\ninputs where fpscout's reference and mpmath disagree about the 1e-3 line "
              f"({len(disagreements)}):")
        for d in disagreements:
            print("  " + d)
    print("\nfpscout bug: bug_inputs the run kept (relative error above 1e-3 against its reference,")
    print("or against the shadow in shadow-only runs; at most 16); mpmath bug: inputs of the run")
    print("(worst, worst finite, bug_inputs) whose GSL result is finite and whose relative error")
    print("against mpmath (precision raised until stable, a finite value) is above 1e-3; worst rel:")
    print("the largest such relative error among the re-scored inputs (inf: mpmath's value is 0)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: fpcc-table.py CACHE_DIR")
    main(sys.argv[1])
