"""A small TOML writer for the files tuning produces (the standard library only reads).

Covers what target descriptions and profiles use: tables, arrays of tables, and values
that are strings, integers, floats, booleans, arrays of those and inline tables.
Output is deterministic: keys in the order given, LF line endings.
"""

from __future__ import annotations

import json
import math
import re

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def key(k: str) -> str:
    return k if _BARE.match(k) else json.dumps(k)


def value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"TOML cannot hold {v!r} here")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)   # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }" if v else "{}"
    raise ValueError(f"no TOML form for {type(v).__name__} {v!r}")


def dumps(doc: dict, header: str = "") -> str:
    """`doc` maps table names to tables (dicts) or to lists of tables (arrays of tables);
    sub-tables inside a table become dotted headers."""
    lines = [f"# {h}".rstrip() for h in header.splitlines()] if header else []

    def table(name: str, body: dict, array: bool = False):
        if lines:
            lines.append("")
        lines.append(f"[[{name}]]" if array else f"[{name}]")
        subs = []
        for k, v in body.items():
            if isinstance(v, dict) and not array:
                subs.append((k, v))
            else:
                lines.append(f"{key(k)} = {value(v)}")
        for k, v in subs:
            table(f"{name}.{key(k)}", v)

    for name, body in doc.items():
        if isinstance(body, list):
            for item in body:
                table(key(name), item, array=True)
        elif isinstance(body, dict):
            table(key(name), body)
        else:
            raise ValueError(f"top-level {name!r} must be a table or an array of tables")
    return "\n".join(lines) + "\n"
