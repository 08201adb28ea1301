"""Reading `fpscout error --json` output in the benchmark tables: the record, numbers written as "inf"/"nan", and results as the report writes them."""
import json
import math


def record(path, kind="error"):
    """The data of the first {"type": KIND} record of a run's JSON Lines, or None (lines
    that are not JSON, such as a crashed run's, are skipped)."""
    try:
        for line in open(path):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("type") == kind:
                return r["data"]
    except OSError:
        pass
    return None


def num(v):
    """A JSON number fpscout may write as "inf", "-inf" or "nan" (None: NaN)."""
    if v is None:
        return math.nan
    if isinstance(v, str):
        return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}.get(v, math.nan)
    return float(v)


def value_of(text):
    """A result as the report writes it: a hex float, or inf/nan spelled C's way."""
    t = text.split("(")[0].strip()
    try:
        return float.fromhex(t)
    except ValueError:
        return float(t.replace("-nan", "nan"))
