"""What `tune` may vary in a kind of target: each emitter declares a Space (its `sweep`)
naming the [variants] parameters a sweep may vary and the values swept when the user
names none.

Two kinds of parameter:
  - a *choice* (interleave, key policy, lane width, scheduling): applying a profile
    replaces the target's list with the winner;
  - an *ordered* list (encrypt/decrypt algorithms, the software unroll): every value
    listed is emitted and the first is the backend's default, so applying a profile
    moves the winner first and the others stay available (and tested).
A parameter may concern one direction only (decrypt: dec); winners for the other
direction ignore it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import AesgenError


@dataclass(frozen=True)
class Space:
    values: dict[str, tuple]                       # default sweep per parameter
    ordered: frozenset[str] = frozenset()
    direction_of: dict[str, str] = field(default_factory=dict)

    def relevant(self, param: str, direction: str) -> bool:
        return self.direction_of.get(param, direction) == direction


# the keyword arguments of a Space whose [variants] list algorithms per direction and
# unroll forms (algorithm.aes.UNROLLS) for both
ALGORITHM_LISTS = dict(ordered=frozenset({"encrypt", "decrypt", "unroll"}),
                       direction_of={"encrypt": "enc", "decrypt": "dec"})


class SpaceError(AesgenError):
    pass


def parse_value(text: str):
    t = text.strip()
    if t in ("true", "false"):
        return t == "true"
    if t.lstrip("-").isdigit():
        return int(t)
    return t


def sweep_values(emitter, listed: dict, overrides: list[str] | None) -> dict[str, list]:
    """The values to sweep per parameter of a target of `emitter`: the defaults plus what
    the target lists (except "auto", which a sweep resolves by trying numbers), or
    exactly what --space gives."""
    space = emitter.sweep
    if space is None:
        raise SpaceError(f"targets of emitter {emitter.name!r} have no tunable parameters")
    out: dict[str, list] = {}
    for p, defaults in space.values.items():
        vals = list(defaults)
        for v in listed.get(p, []):
            if v not in vals and not (v == "auto" and p == "interleave"):
                vals.append(v)
        out[p] = sorted(vals, key=_order) if p not in space.ordered else vals
    for item in overrides or []:
        name, eq, text = item.partition("=")
        name = name.strip()
        if not eq or not text.strip():
            raise SpaceError(f"--space {item!r}: expected NAME=V1,V2,... (e.g. interleave=1,2,4,8)")
        if name not in space.values:
            raise SpaceError(f"--space {item!r}: {name!r} is not tunable for emitter {emitter.name!r} "
                             f"(tunable: {', '.join(space.values)})")
        vals = [parse_value(x) for x in text.split(",") if x.strip()]
        if not vals or len(set(map(repr, vals))) != len(vals):
            raise SpaceError(f"--space {item!r}: needs distinct values")
        out[name] = vals
    return out


def _order(v):
    return (0, v, "") if isinstance(v, (int, bool)) else (1, 0, str(v))
