#!/usr/bin/env python3
"""scripts/bench-reference.sh's table: fpscout's error at its worst finite input next to mpmath's value of the same function there."""
import math
import os
import sys

import mpmath
from mpmath import mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from error_records import num, record, value_of  # noqa: E402


NAMES = {k: getattr(mpmath, k) for k in dir(mpmath) if not k.startswith("_")}


def mathematical(expr, inputs):
    """mpmath's value, its precision raised until two evaluations agree to 30 digits
    (cancellations such as log1p(x) - x need far more digits than the result has)."""
    env = dict(NAMES)
    env.update({i["name"]: mpmath.mpf(float.fromhex(i["value"]["hex"])) for i in inputs})
    last = None
    for dps in (50, 100, 200, 400, 800, 1600):
        mp.dps = dps
        v = eval(expr, {"__builtins__": {}}, env)
        if isinstance(v, mpmath.mpc):
            v = v.real if abs(v.imag) <= abs(v) * mpmath.mpf(10) ** (-dps // 2) else mpmath.nan
        v = +v
        # A zero may be a cancellation that more digits resolve: never accepted early.
        if last is not None and mpmath.isfinite(v) and mpmath.isfinite(last) and v != 0:
            if abs(v - last) <= abs(v) * mpmath.mpf(10) ** -30:
                return v
        last = v
    return last


def ulps(computed, exact):
    """|computed - exact| in ulps of the binade holding exact (binary64, subnormals too)."""
    if not mpmath.isfinite(exact) or not math.isfinite(computed):
        return math.inf
    mp.dps = 1600
    diff = abs(mpmath.mpf(computed) - exact)
    if exact == 0:
        return float(diff / mpmath.mpf(2) ** -1074)
    e = max(int(mpmath.floor(mpmath.log(abs(exact), 2))), -1022)
    return float(diff / mpmath.mpf(2) ** (e - 52))


def fmt(x):
    return "-" if x is None else (f"{x:.4g}" if math.isfinite(x) else "inf")


def main(cache):
    rows, agree, measured = [], 0, 0
    for line in open(f"{cache}/functions.txt"):
        name, expr = line.rstrip("\n").split("|", 1)
        r, s = record(f"{cache}/{name}.json"), record(f"{cache}/{name}.shadow.json")
        shadow_bits = num(s["bits"]) if s and s.get("bits") is not None else None
        if not r or r.get("ulps") is None:
            why = (r or {}).get("first_failure") or "no record"
            rows.append((name, "-", None, None, None, shadow_bits, "-", f"not measured: {why}"))
            continue
        if math.isfinite(num(r["ulps"])):
            overall = "finite"
        else:
            overall = f"{value_of(r['computed']):.4g} vs {num(r['exact']):.4g}"
        finite = r.get("worst_finite")
        bugs = len(r.get("bug_inputs", []))
        if not finite:
            rows.append((name, overall, None, None, None, shadow_bits, bugs, "no finite result measured"))
            continue
        ours = num(finite["ulps"])
        try:
            independent = ulps(value_of(finite["computed"]), mathematical(expr, finite["inputs"]))
        except Exception:  # mpmath refused the input: shown as '-'
            independent = None
        ok = None
        if independent is not None and math.isfinite(ours) and math.isfinite(independent):
            measured += 1
            ok = abs(ours - independent) <= 0.01 * max(abs(independent), 1e-9) or (
                ours < 0.5 and independent < 0.5)
            agree += ok
        rows.append((name, overall, ours, independent, ok, shadow_bits, bugs, ""))

    print(f"{'function':<22} {'worst overall':<22} {'finite: fpscout':>15} {'mpmath':>10} "
          f"{'agree':>6} {'shadow bits':>11} {'bug-level':>9}")
    for name, overall, ours, ind, ok, sb, bugs, note in rows:
        okt = "-" if ok is None else ("yes" if ok else "NO")
        print(f"{name:<22} {overall:<22} {fmt(ours):>15} {fmt(ind):>10} {okt:>6} {fmt(sb):>11} "
              f"{str(bugs):>9}  {note}")
    print(f"\nagree within 1 % in ulps at the worst finite input: {agree} of {measured} functions measured both ways")
    print("worst overall: 'finite', or the result against the exact value where a NaN or infinity is the worst;")
    print("finite: ulps at the worst input whose result and exact value are finite, by fpscout and by mpmath")
    print("(precision raised until stable); shadow bits: the worst error against the same algorithm at 256")
    print("bits (no --reference); bug-level: distinct inputs above 1e-3 kept (at most 16)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: reference-table.py CACHE_DIR")
    main(sys.argv[1])
