"""The top-level (FPCore ...) forms of an FPCore file, for the benchmark scripts: (index, :name or None) each."""
import re


def cores(text):
    """(index, :name or None) of each top-level (FPCore ...) form."""
    found, depth, start, i = [], 0, None, 0
    while i < len(text):
        c = text[i]
        if c == ';':
            j = text.find('\n', i)
            i = len(text) if j < 0 else j
        elif c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == '\\' else 1
        elif c in '([':
            if depth == 0:
                start = i
            depth += 1
        elif c in ')]':
            depth -= 1
            if depth == 0 and start is not None:
                m = re.search(r':name\s+"((?:[^"\\]|\\.)*)"', text[start:i + 1])
                found.append((len(found), m.group(1).replace('\\"', '"') if m else None))
        i += 1
    return found


def keyed(path):
    """(key for `-f`, display name) of each FPCore of `path`: the name, or `#index` when
    it has none or shares it."""
    with open(path) as f:
        listed = cores(f.read())
    names = [n for _, n in listed]
    return [(n if n is not None and names.count(n) == 1 else f"#{i}", n or f"#{i}")
            for i, n in listed]
