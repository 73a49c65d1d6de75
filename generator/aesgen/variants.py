"""Variants: one generated unit (an AES cipher of one key size and direction, or a
GHASH, and one way of computing it).

The canonical procedural name says what before the double underscore and how after it:
    aes<key_bits>_<enc|dec>__<target>_<how>      e.g. aes128_enc__portable_fixslice64,
                                                  aes128_enc__portable_fixslice64_loop4 (rolled)
    ghash__<target>_<how>                         e.g. ghash__portable_x4 (target ghash-portable)
The same string is the C descriptor symbol (prefixed `aesgen_`), the file stem, the
registry entry and the --filter key.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from .targets import Target

DIRECTIONS = ("enc", "dec")


@dataclass(frozen=True)
class Variant:
    target: Target
    key_bits: int
    direction: str
    how: str                               # e.g. "fixslice64"
    params: tuple[tuple[str, object], ...]  # emitter parameters, in a stable order
    rank: int
    profile: str | None = None             # the tuned profile that chose the parameters
    kind: str = "aes"                      # "aes" (key_bits, direction) or "ghash" (neither)

    @property
    def name(self) -> str:
        if self.kind != "aes":       # ghash__portable_x4 from target ghash-portable
            ident = self.target.ident.removeprefix(f"{self.kind}_")
            return f"{self.kind}__{ident}_{self.how}"
        return f"aes{self.key_bits}_{self.direction}__{self.target.ident}_{self.how}"

    @property
    def symbol(self) -> str:
        return f"aesgen_{self.name}"

    @property
    def backend(self) -> str:
        return self.target.backend_pattern.format(**dict(self.params))

    def param(self, key: str, *default):
        """A parameter's value; with a default, for parameters only some variants state
        (unroll is stated only when it is not "full", so those names stay as they were)."""
        return dict(self.params).get(key, *default) if default else dict(self.params)[key]

    def describe(self) -> str:
        """Every parameter on one line, for headers and `list`."""
        fields = [f"key_bits={self.key_bits}", f"direction={self.direction}"] if self.kind == "aes" else []
        fields += [f"{k}={v}" for k, v in self.params]
        fields += [f"target={self.target.name}", f"backend={self.backend}", f"rank={self.rank}"]
        if self.profile:
            fields.append(f"profile={self.profile}")
        return " ".join(fields)


def select(variants: list[Variant], patterns: list[str] | None) -> list[Variant]:
    """Variants whose names match any of the glob patterns (all when none are given)."""
    if not patterns:
        return list(variants)
    return [v for v in variants if any(fnmatch.fnmatchcase(v.name, p) for p in patterns)]


def unroll_param(unroll: str) -> tuple[tuple[tuple[str, object], ...], str]:
    """The parameter and name suffix of a software variant's unroll: none for "full"
    (the default, and the names every variant had before unroll was a parameter),
    ("unroll", u) and "_<u>" otherwise."""
    return ((), "") if unroll == "full" else ((("unroll", unroll),), f"_{unroll}")
