"""Target descriptions: one TOML file per target in generator/targets/, validated before
anything renders.

Every file has a [target] and a [dispatch] table, plus the tables its emitter asks for.
Validation names the file and the field in one line and stops the run: an unknown key,
a missing or wrongly typed field, or a value the emitter cannot satisfy.
"""

from __future__ import annotations

import re
import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable


class TargetError(Exception):
    """A target description is invalid. The message names the file and the field."""


NAME_RE = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


@dataclass(frozen=True)
class Field:
    """One expected key: its type, whether it must be present, and an extra check that
    returns an error message (or None)."""
    kind: type | tuple[type, ...]
    required: bool = True
    item: type | None = None                    # element type, for lists
    check: Callable[[Any], str | None] | None = None
    default: Any = None


def one_of(allowed, what: str = "value") -> Callable[[Any], str | None]:
    allowed = tuple(allowed)

    def check(v):
        items = v if isinstance(v, list) else [v]
        for x in items:
            if x not in allowed:
                return f"{x!r} is not a supported {what} (supported: {', '.join(map(str, allowed))})"
        if isinstance(v, list):
            if not v:
                return "must not be empty"
            if len(set(v)) != len(v):
                return "lists a value twice"
        return None
    return check


def _name_check(v: str) -> str | None:
    if not NAME_RE.match(v):
        return f"{v!r} must match {NAME_RE.pattern} (lower case letters, digits, '_' or '-')"
    return None


def _rank_check(v: int) -> str | None:
    return None if 0 <= v <= 60000 else f"{v} is outside 0..60000"


COMMON_SCHEMA: dict[str, dict[str, Field]] = {
    "target": {
        "name": Field(str, check=_name_check),
        "summary": Field(str),
        "emitter": Field(str),
    },
    "dispatch": {
        "backend": Field(str),
        "rank": Field(int, check=_rank_check),
        "cpu_features": Field(list, item=str, required=False, default=[]),
    },
}


@dataclass(frozen=True)
class Target:
    name: str
    path: Path
    display_path: str        # as shown in messages and headers (repository-relative)
    summary: str
    emitter: str
    backend_pattern: str
    rank: int
    cpu_features: tuple[str, ...]
    sections: dict = field(compare=False, repr=False)   # the emitter's own tables, validated

    @property
    def ident(self) -> str:
        """The target name as it appears in C symbols and variant names."""
        return self.name.replace("-", "_")

    def error(self, where: str, message: str) -> TargetError:
        return TargetError(f"{self.display_path}: {where}: {message}")


def validate_tables(doc: dict, schema: dict[str, dict[str, Field]], display: str) -> dict:
    """Check `doc` against `schema`; return the tables with defaults filled in."""
    for table in doc:
        if table not in schema:
            raise TargetError(f"{display}: {table}: unknown table (expected: {', '.join(schema)})")
    out = {}
    for table, fields in schema.items():
        body = doc.get(table)
        if body is None:
            raise TargetError(f"{display}: {table}: missing table [{table}]")
        if not isinstance(body, dict):
            raise TargetError(f"{display}: {table}: must be a table")
        for key in body:
            if key not in fields:
                raise TargetError(f"{display}: {table}.{key}: unknown key (expected: {', '.join(fields)})")
        values = {}
        for key, f in fields.items():
            where = f"{table}.{key}"
            if key not in body:
                if f.required:
                    raise TargetError(f"{display}: {where}: missing field")
                values[key] = f.default
                continue
            v = body[key]
            if not isinstance(v, f.kind) or (f.kind is int and isinstance(v, bool)):
                raise TargetError(f"{display}: {where}: expected {_type_name(f.kind)}, got {_type_name(type(v))} {v!r}")
            if f.item is not None:
                for x in v:
                    if not isinstance(x, f.item) or (f.item is int and isinstance(x, bool)):
                        raise TargetError(f"{display}: {where}: every element must be {_type_name(f.item)}, got {x!r}")
            if f.check is not None:
                msg = f.check(v)
                if msg:
                    raise TargetError(f"{display}: {where}: {msg}")
            values[key] = v
        out[table] = values
    return out


def _type_name(kind) -> str:
    if isinstance(kind, tuple):
        return " or ".join(_type_name(k) for k in kind)
    return {str: "a string", int: "an integer", list: "a list", dict: "a table",
            bool: "a boolean", float: "a number"}.get(kind, kind.__name__)


def load_target(path: Path, root: Path | None, emitters: dict) -> Target:
    """Read and validate one target file (common tables, then the emitter's tables)."""
    display = _display(path, root)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise TargetError(f"{display}: not valid TOML: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise TargetError(f"{display}: cannot read: {e}") from None
    common = validate_tables({k: v for k, v in doc.items() if k in COMMON_SCHEMA}, COMMON_SCHEMA, display)
    name = common["target"]["name"]
    if name != path.stem:
        raise TargetError(f"{display}: target.name: {name!r} must equal the file name {path.stem!r}")
    emitter_name = common["target"]["emitter"]
    if emitter_name not in emitters:
        raise TargetError(f"{display}: target.emitter: {emitter_name!r} is not a known emitter "
                          f"(known: {', '.join(sorted(emitters))})")
    emitter = emitters[emitter_name]
    own = {k: v for k, v in doc.items() if k not in COMMON_SCHEMA}
    sections = validate_tables(own, emitter.schema, display)
    for feature in common["dispatch"]["cpu_features"]:
        if feature not in emitter.cpu_features:
            raise TargetError(f"{display}: dispatch.cpu_features: {feature!r} is not a feature the runtime "
                              f"detects for emitter {emitter_name!r} (known: {', '.join(emitter.cpu_features) or 'none'})")
    pattern = common["dispatch"]["backend"]
    _check_backend_pattern(display, pattern, emitter.parameters)
    target = Target(name=name, path=path, display_path=display, summary=common["target"]["summary"],
                    emitter=emitter_name, backend_pattern=pattern, rank=common["dispatch"]["rank"],
                    cpu_features=tuple(common["dispatch"]["cpu_features"]), sections=sections)
    emitter.validate(target)
    return target


def _check_backend_pattern(display: str, pattern: str, parameters: tuple[str, ...]) -> None:
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(pattern) if f is not None]
    except ValueError as e:
        raise TargetError(f"{display}: dispatch.backend: {e}") from None
    for f in fields:
        if f not in parameters:
            raise TargetError(f"{display}: dispatch.backend: unknown placeholder {{{f}}} "
                              f"(this emitter offers: {', '.join('{' + p + '}' for p in parameters)})")
    probe = pattern.format(**{p: 0 for p in fields})
    if not NAME_RE.match(probe):
        raise TargetError(f"{display}: dispatch.backend: {pattern!r} does not give a valid backend name")


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return str(path)


def load_targets(directory: Path, root: Path | None, emitters: dict) -> list[Target]:
    if not directory.is_dir():
        raise TargetError(f"{directory}: no such target directory")
    files = sorted(directory.glob("*.toml"))
    if not files:
        raise TargetError(f"{directory}: no target descriptions (*.toml)")
    return [load_target(p, root, emitters) for p in files]
