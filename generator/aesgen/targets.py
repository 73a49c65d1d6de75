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

from .errors import AesgenError


class TargetError(AesgenError):
    """A target description is invalid. The message names the file and the field."""


NAME_RE = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
# a backend name after substitution (the pattern's literal part obeys NAME_RE)
BACKEND_RE = re.compile(r"^[a-z][a-z0-9_-]{0,79}$")
LABEL_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
MAX_FILE_BYTES = 1 << 20       # a target description is a few hundred bytes
MAX_SUMMARY = 200


def show(v: Any, limit: int = 60) -> str:
    """repr(v) cut to `limit` characters, so that a hostile value cannot flood a message."""
    r = repr(v)
    return r if len(r) <= limit else f"{r[:limit]}... ({len(r)} characters)"


def _label(s: str) -> str:
    """A table or key name as shown in messages: as is when plain, else quoted and cut."""
    return s if LABEL_RE.match(s) else show(s, 40)


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
                return f"{show(x)} is not a supported {what} (supported: {', '.join(map(str, allowed))})"
        if isinstance(v, list):
            return distinct(v)
        return None
    return check


def distinct(v: list) -> str | None:
    """A non-empty list without repeats (1 and True count as different values)."""
    if not v:
        return "must not be empty"
    if len({(type(x), x) for x in v}) != len(v):
        return "lists a value twice"
    return None


def _distinct_or_empty(v: list) -> str | None:
    return distinct(v) if v else None


def _summary_check(v: str) -> str | None:
    if not v.strip():
        return "must not be empty"
    if len(v) > MAX_SUMMARY:
        return f"is {len(v)} characters long (at most {MAX_SUMMARY})"
    if not v.isprintable():
        return f"{show(v)} must be one line of printable characters"
    if any(bad in v for bad in ("*/", "/*", "{{", "{%", "{#")):
        return f"{show(v)} must not contain comment or template delimiters (*/, /*, {{{{, {{%, {{#)"
    return None


def _name_check(v: str) -> str | None:
    if not NAME_RE.match(v):
        return f"{show(v)} must match {NAME_RE.pattern} (lower case letters, digits, '_' or '-')"
    return None


def _rank_check(v: int) -> str | None:
    return None if 0 <= v <= 60000 else f"{v} is outside 0..60000"


COMMON_SCHEMA: dict[str, dict[str, Field]] = {
    "target": {
        "name": Field(str, check=_name_check),
        "summary": Field(str, check=_summary_check),
        "emitter": Field(str),
    },
    "dispatch": {
        "backend": Field(str),
        "rank": Field(int, check=_rank_check),
        "cpu_features": Field(list, item=str, required=False, default=[], check=_distinct_or_empty),
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
            raise TargetError(f"{display}: {_label(table)}: unknown table (expected: {', '.join(schema)})")
    out = {}
    for table, fields in schema.items():
        body = doc.get(table)
        if body is None:
            raise TargetError(f"{display}: {table}: missing table [{table}]")
        if not isinstance(body, dict):
            raise TargetError(f"{display}: {table}: must be a table")
        for key in body:
            if key not in fields:
                raise TargetError(f"{display}: {table}.{_label(key)}: unknown key (expected: {', '.join(fields)})")
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
                raise TargetError(f"{display}: {where}: expected {_type_name(f.kind)}, got {_type_name(type(v))} {show(v)}")
            if f.item is not None:
                for x in v:
                    if not isinstance(x, f.item) or (f.item is int and isinstance(x, bool)):
                        raise TargetError(f"{display}: {where}: every element must be {_type_name(f.item)}, got {show(x)}")
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
    display = display_path(path, root)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise TargetError(f"{display}: is {size} bytes long (a target description has at most {MAX_FILE_BYTES})")
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise TargetError(f"{display}: not valid TOML: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise TargetError(f"{display}: cannot read: {e}") from None
    except RecursionError:
        raise TargetError(f"{display}: not valid TOML: arrays or tables nested too deeply") from None
    except ValueError as e:         # e.g. an integer literal of more than 4300 digits
        raise TargetError(f"{display}: not valid TOML: {show(str(e), 120)}") from None
    common = validate_tables({k: v for k, v in doc.items() if k in COMMON_SCHEMA}, COMMON_SCHEMA, display)
    name = common["target"]["name"]
    if name != path.stem:
        raise TargetError(f"{display}: target.name: {show(name)} must equal the file name {show(path.stem)}")
    emitter_name = common["target"]["emitter"]
    if emitter_name not in emitters:
        raise TargetError(f"{display}: target.emitter: {show(emitter_name)} is not a known emitter "
                          f"(known: {', '.join(sorted(emitters))})")
    emitter = emitters[emitter_name]
    own = {k: v for k, v in doc.items() if k not in COMMON_SCHEMA}
    sections = validate_tables(own, emitter.schema, display)
    for feature in common["dispatch"]["cpu_features"]:
        if feature not in emitter.cpu_features:
            raise TargetError(f"{display}: dispatch.cpu_features: {show(feature)} is not a feature the runtime "
                              f"detects for emitter {emitter_name!r} (known: {', '.join(emitter.cpu_features) or 'none'})")
    pattern = common["dispatch"]["backend"]
    _check_backend_pattern(display, pattern, emitter.parameters)
    target = Target(name=name, path=path, display_path=display, summary=common["target"]["summary"],
                    emitter=emitter_name, backend_pattern=pattern, rank=common["dispatch"]["rank"],
                    cpu_features=tuple(common["dispatch"]["cpu_features"]), sections=sections)
    emitter.validate(target)
    _check_backends(target, emitter)
    return target


def _check_backends(target: Target, emitter) -> None:
    """Every backend name the pattern gives with the variants' real parameter values."""
    for v in emitter.variants(target):
        backend = v.backend
        if not BACKEND_RE.match(backend):
            raise target.error("dispatch.backend", f"{show(target.backend_pattern)} gives {show(backend)} for "
                               f"{v.name}, not a valid backend name ({BACKEND_RE.pattern})")


def _check_backend_pattern(display: str, pattern: str, parameters: tuple[str, ...]) -> None:
    offers = ', '.join('{' + p + '}' for p in parameters)
    try:
        parsed = list(string.Formatter().parse(pattern))
    except ValueError as e:
        raise TargetError(f"{display}: dispatch.backend: {show(pattern)}: {e}") from None
    fields = []
    for _, f, spec, conversion in parsed:
        if f is None:
            continue
        if f not in parameters:
            raise TargetError(f"{display}: dispatch.backend: unknown placeholder {{{_label(f)}}} "
                              f"(this emitter offers: {offers})")
        if spec or conversion:
            raise TargetError(f"{display}: dispatch.backend: placeholder {{{f}}} has a conversion or format "
                              f"spec; only plain placeholders are allowed ({offers})")
        fields.append(f)
    probe = pattern.format(**{p: 0 for p in fields})
    if not NAME_RE.match(probe):
        raise TargetError(f"{display}: dispatch.backend: {show(pattern)} does not give a valid backend name")


def display_path(path: Path, root: Path | None) -> str:
    """A path as messages and headers show it: repository-relative, printable."""
    text = str(path)
    if root is not None:
        try:
            text = path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return text if text.isprintable() else show(text, 200)


def load_targets(directory: Path, root: Path | None, emitters: dict) -> list[Target]:
    if not directory.is_dir():
        raise TargetError(f"{directory}: no such target directory")
    files = sorted(directory.glob("*.toml"))
    if not files:
        raise TargetError(f"{directory}: no target descriptions (*.toml)")
    return [load_target(p, root, emitters) for p in files]
