"""Sweep points: one scratch target description per combination of parameter values.

Each point is the original target with its [variants] lists narrowed to one value per
swept parameter, the requested key sizes, and its own name and backend (tuneNN-...), so
that all points build into one library side by side and each is measured through the
public API with its backend forced. A point the target's own validation rejects (say,
an interleave whose registers do not fit) is kept with the reason and not built.
"""

from __future__ import annotations

import itertools
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .. import tomlwrite
from ..targets import NAME_RE, Target, TargetError, load_target
from ..writer import write_atomic


@dataclass
class Point:
    index: int
    name: str                 # scratch target name
    params: dict              # swept parameter -> value
    path: Path | None = None
    target: Target | None = None
    skipped: str = ""         # why the target's validation rejected it


def point_name(index: int, target: str) -> str:
    return f"tune{index:02d}-{target}"[:32].rstrip("-_")


def backend_pattern(index: int, original: str) -> str:
    """tuneNN, plus the placeholders the original pattern has (portable{word_bits} makes
    one backend per word width, and so must each point)."""
    fields = [f for _, f, _, _ in string.Formatter().parse(original) if f]
    return f"tune{index:02d}" + "".join(f"-{{{f}}}" for f in fields)


def write_points(target: Target, sweep: dict[str, list], key_bits: list[int], out_dir: Path,
                 emitters: dict) -> list[Point]:
    """Write the scratch targets (removing earlier ones) and validate each."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.toml"):
        old.unlink()
    doc = tomllib.loads(target.path.read_text(encoding="utf-8"))
    names = list(sweep)
    points = []
    for i, combo in enumerate(itertools.product(*(sweep[n] for n in names))):
        params = dict(zip(names, combo))
        p = Point(i, point_name(i, target.name), params)
        d = {table: dict(body) for table, body in doc.items()}
        d["target"]["name"] = p.name
        d["target"]["summary"] = f"tune point {i} of {target.name}: " + \
            ", ".join(f"{k}={v}" for k, v in params.items())
        d["variants"]["key_bits"] = list(key_bits)
        for k, v in params.items():
            d["variants"][k] = [v]
        d["dispatch"]["backend"] = backend_pattern(i, target.backend_pattern)
        assert NAME_RE.match(p.name)
        p.path = out_dir / f"{p.name}.toml"
        write_atomic(p.path, tomlwrite.dumps(d, header=f"Scratch sweep point written by `aesgen tune` from "
                                                  f"{target.display_path}; not shipped."))
        try:
            p.target = load_target(p.path, None, emitters)
        except TargetError as e:
            p.skipped = str(e).split(": ", 1)[-1]
            p.path.unlink()
            p.path = None
        points.append(p)
    return points
