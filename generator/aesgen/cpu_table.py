"""Per-CPU dispatch preferences: where one CPU model should order the backends it can run
differently from the targets' ranks (one order for every CPU).

    generator/cpus/published.toml             published facts, each row with its source
    generator/cpus/measured/<cpu-id>.toml     written by `aesgen tune --dispatch` on that CPU

A row names a CPU (vendor, family, models) and `prefer`: backends in the order that CPU
wants them. The listed backends of one registry (AES or GHASH) keep the rank slots they
hold and take them in the listed order; unlisted backends keep their ranks. A measured
row describes one model and wins over a published row for that model.

The generator writes the rows as generated/cpu_preferences.c; dispatch applies the row
matching the CPU it runs on (or AESGEN_CPU_ID) and reports it.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import AesgenError
from .targets import display_path, show

VENDORS = {"intel": "GenuineIntel", "amd": "AuthenticAMD"}
CPU_ID_RE = re.compile(r"^(intel|amd)-family([0-9a-f]+)h-model([0-9a-f]+)h$")
MAX_TEXT = 300


class CpuTableError(AesgenError):
    """A CPU preference file is invalid; the message names the file and the field."""


@dataclass(frozen=True)
class CpuRow:
    vendor: str
    family: int
    models: tuple[tuple[int, int], ...]   # inclusive ranges
    name: str
    prefer: tuple[str, ...]
    why: str
    source: str
    display: str                          # the file it came from
    measured: bool


def cpu_id(vendor: str, family: int, model: int) -> str:
    """The spelling `tune` uses for profiles and AESGEN_CPU_ID takes."""
    return f"{vendor}-family{family:x}h-model{model:02x}h"


def parse_cpu_id(text: str) -> tuple[str, int, int] | None:
    m = CPU_ID_RE.match(text)
    return (m.group(1), int(m.group(2), 16), int(m.group(3), 16)) if m else None


def _text(doc: dict, key: str, where: str) -> str:
    v = doc.get(key)
    if (not isinstance(v, str) or not v.strip() or len(v) > MAX_TEXT or "*/" in v
            or not all(" " <= c <= "~" for c in v)):
        raise CpuTableError(f"{where}.{key}: expected one line of printable ASCII (at most {MAX_TEXT} "
                            f"characters), got {show(v)}")
    return v


def _models(v, where: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(v, list) or not v:
        raise CpuTableError(f"{where}.models: expected a non-empty list of model numbers or [first, last] ranges")
    out = []
    for m in v:
        pair = (m, m) if isinstance(m, int) and not isinstance(m, bool) else tuple(m) if isinstance(m, list) else None
        if (pair is None or len(pair) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
                or not 0 <= pair[0] <= pair[1] <= 0xff):
            raise CpuTableError(f"{where}.models: {show(m)} is not a model number or a [first, last] range in 0..0xff")
        out.append(pair)
    return tuple(sorted(out))


def _row(doc: dict, display: str, where: str, measured: bool) -> CpuRow:
    if not isinstance(doc, dict):
        raise CpuTableError(f"{where}: must be a table")
    allowed = {"id", "name", "prefer", "why", "source"} if measured else \
              {"vendor", "family", "models", "name", "prefer", "why", "source"}
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise CpuTableError(f"{where}.{unknown[0]}: unknown key (expected: {', '.join(sorted(allowed))})")
    if measured:
        parsed = parse_cpu_id(str(doc.get("id")))
        stem = Path(display).stem
        if parsed is None or doc.get("id") != stem:
            raise CpuTableError(f"{where}.id: {show(doc.get('id'))} must be a CPU id such as intel-family6h-modelcfh "
                                f"equal to the file name {show(stem)}")
        vendor, family, model = parsed
        models = ((model, model),)
    else:
        vendor, family = doc.get("vendor"), doc.get("family")
        if vendor not in VENDORS:
            raise CpuTableError(f"{where}.vendor: {show(vendor)} is not one of {', '.join(VENDORS)}")
        if not isinstance(family, int) or isinstance(family, bool) or not 0 < family <= 0x10e:
            raise CpuTableError(f"{where}.family: {show(family)} is not a CPU family number")
        models = _models(doc.get("models"), where)
    prefer = doc.get("prefer")
    if (not isinstance(prefer, list) or len(prefer) < 2 or not all(isinstance(b, str) for b in prefer)
            or len(set(prefer)) != len(prefer)):
        raise CpuTableError(f"{where}.prefer: expected two or more distinct backend names, best first")
    return CpuRow(vendor, family, models, _text(doc, "name", where), tuple(prefer), _text(doc, "why", where),
                  _text(doc, "source", where), display, measured)


def _load(path: Path, root: Path | None) -> dict:
    display = display_path(path, root)
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise CpuTableError(f"{display}: not valid TOML: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CpuTableError(f"{display}: cannot read: {e}") from None


def input_files(directory: Path) -> list[Path]:
    files = [directory / "published.toml"] if (directory / "published.toml").is_file() else []
    return files + sorted((directory / "measured").glob("*.toml"))


def load_rows(directory: Path, root: Path | None) -> list[CpuRow]:
    """Measured rows first (they win), then published ones; a model may appear in at
    most one published row and one measured file."""
    rows: list[CpuRow] = []
    for path in input_files(directory):
        display = display_path(path, root)
        doc = _load(path, root)
        measured = path.parent.name == "measured"
        if measured:
            extra = sorted(set(doc) - {"cpu", "tune", "result"})
            if extra:
                raise CpuTableError(f"{display}: {extra[0]}: unknown table (expected: cpu, tune, result)")
            rows.append(_row(doc.get("cpu"), display, f"{display}: cpu", True))
        else:
            extra = sorted(set(doc) - {"cpu"})
            if extra or not isinstance(doc.get("cpu"), list):
                raise CpuTableError(f"{display}: expected only [[cpu]] rows")
            rows += [_row(r, display, f"{display}: cpu[{i}]", False) for i, r in enumerate(doc["cpu"])]
    rows.sort(key=lambda r: not r.measured)
    for i, a in enumerate(rows):
        for b in rows[:i]:
            if a.measured == b.measured and a.vendor == b.vendor and a.family == b.family and any(
                    lo <= hi2 and lo2 <= hi for lo, hi in a.models for lo2, hi2 in b.models):
                raise CpuTableError(f"{a.display}: a model of {a.name} is already in {b.display} ({b.name})")
    return rows


def backend_spans(variants, processor) -> dict[str, tuple[str, int, int, str | None]]:
    """backend -> (kind, lowest rank, highest rank, processor pattern or None for any)."""
    spans: dict[str, tuple[str, int, int, str | None]] = {}
    for v in variants:
        kind, lo, hi, _ = spans.get(v.backend, (v.kind, v.rank, v.rank, None))
        spans[v.backend] = (kind, min(lo, v.rank), max(hi, v.rank), processor(v))
    return spans


def unknown_backends(row: CpuRow, spans: dict) -> list[str]:
    return [b for b in row.prefer if b not in spans]


def rank_changes(row: CpuRow, spans: dict) -> list[tuple[str, int]]:
    """(backend, rank delta) per listed backend whose rank moves. Backends these targets
    do not build are left out (a generation from other target descriptions, e.g. a
    sweep); the tests check that the repository's rows name only real backends. The
    moved backends must not meet the ranks of another backend that can run on the same
    processor."""
    present = [b for b in row.prefer if b in spans]
    changes = []
    for kind in sorted({spans[b][0] for b in present}):
        listed = [b for b in present if spans[b][0] == kind]
        slots = sorted(spans[b][1] for b in listed)
        moved = {b: (slots[i] - spans[b][1]) for i, b in enumerate(listed)}
        for b, d in moved.items():
            lo, hi = spans[b][1] + d, spans[b][2] + d
            for other, (k, olo, ohi, where) in spans.items():
                if other == b or k != kind or None not in (where, spans[b][3]) and where != spans[b][3]:
                    continue
                od = moved.get(other, 0)
                if lo <= ohi + od and olo + od <= hi:
                    raise CpuTableError(f"{row.display}: {row.name}: prefer: {b} would take ranks {lo}..{hi}, "
                                        f"meeting {other}'s {olo + od}..{ohi + od}")
        changes += [(b, d) for b, d in moved.items() if d]
    return changes


def _c(text: str) -> str:
    return json.dumps(text)     # printable ASCII only (checked): the JSON string is the C literal


def template_context(rows: list[CpuRow], variants, processor) -> dict:
    """The rows as C initialiser pieces, most specific first."""
    spans = backend_spans(variants, processor)
    out = []
    for r in rows:
        out.append({"vendor": f"AESGEN_CPU_VENDOR_{r.vendor.upper()}", "family": f"0x{r.family:x}",
                    "models": [(f"0x{lo:02x}", f"0x{hi:02x}") for lo, hi in r.models],
                    "name": _c(r.name), "prefer": _c(" > ".join(r.prefer)), "order": " > ".join(r.prefer), "why": _c(r.why),
                    "source": _c(r.source), "file": r.display,
                    "absent": ", ".join(unknown_backends(r, spans)),
                    "changes": [(_c(b), d) for b, d in rank_changes(r, spans)]})
    return {"cpu_rows": out}
