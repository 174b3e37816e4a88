"""benchopt selection lines, ``Name[key=value,...]``, read and written as
text, for ``tools.from_reference``.

A line is read into its name and an ordered ``{key: value text}``;
values stay text (``0.5``, ``[1, 2, 3]``, ``none``) so that what is not
converted is written back exactly as it was given.  ``read_line`` also
returns the problems it met (a missing ``]``, an item without ``=``, a
key given twice with two values) as warning strings, never silently.
"""
import math


def split_top(text, sep=","):
    """``text`` split at the ``sep`` outside brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif char == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def read_line(line):
    """``(name, {key: value text}, warnings)`` of a selection line."""
    line = line.strip()
    warnings = []
    name, bracket, rest = line.partition("[")
    name = name.strip()
    end = _closing(rest) if bracket else None
    if bracket and end is None:
        warnings.append(f"{name}: the line has no closing ']': read to its "
                        "end")
    elif bracket:
        if rest[end + 1:].strip():
            warnings.append(f"{name}: {rest[end + 1:].strip()!r} after the "
                            "closing ']': dropped")
        rest = rest[:end]
    params = {}
    for item in split_top(rest) if bracket else []:
        key, eq, value = item.partition("=")
        key, value = key.strip().strip("'\""), value.strip()
        if not eq:
            warnings.append(f"{name}: {item!r} is not key=value: dropped")
            continue
        if key in params and params[key] != value:
            warnings.append(f"{name}: {key} given twice ({params[key]} and "
                            f"{value}): the last one is kept, as benchopt "
                            "does")
        params[key] = value
    return name, params, warnings


def _closing(text):
    """Index of the ``]`` that closes a line's ``[`` (``text`` starts just
    after it), None if there is none."""
    depth = 0
    for i, char in enumerate(text):
        if char in "[(":
            depth += 1
        elif char in "])":
            if depth == 0:
                return i if char == "]" else None
            depth -= 1
    return None


def write_line(name, params):
    """The selection line of ``name`` with ``{key: value text}``."""
    if not params:
        return name
    return name + "[" + ",".join(f"{k}={v}" for k, v in params.items()) + "]"


def values_of(text):
    """The values a value text selects: one, or each element of a list
    (``[a, b]``), each as a Python value (``literal``)."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        return [literal(v) for v in split_top(text[1:-1])]
    return [literal(text)]


def literal(text):
    """A value text as benchopt reads it: None, a bool, an int, a float
    (``inf`` included) or the text itself."""
    text = text.strip().strip("'\"")
    if text in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[text]
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        return value if kind is int or not math.isnan(value) else text
    return text


def text_of(values):
    """The value text of a list of Python values (one: the value)."""
    texts = ["inf" if v == math.inf else str(v) for v in values]
    return texts[0] if len(texts) == 1 else "[" + ",".join(texts) + "]"
