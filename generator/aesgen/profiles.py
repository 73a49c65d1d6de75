"""Tuned profiles: the winners of a sweep as data, and how `generate` applies them.

    generator/profiles/<target>/<cpu-family>.toml   one per target and CPU family
    generator/profiles/applied.toml                 which profile sets each target's
                                                    defaults in generated/

A profile lists, per key size and direction, the winning values of the target's
[variants] parameters. Applying it rebuilds that key size and direction from the target
with those values (space.py: choices replace the list, algorithm lists are reordered),
so every profiled variant is still built and checked by the model like any other.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import tomlwrite
from .errors import AesgenError
from .targets import Target, TargetError, display_path, validate_tables
from .variants import DIRECTIONS, Variant

APPLIED = "applied.toml"
FAMILY_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
KEY_BITS = (128, 192, 256)


class ProfileError(AesgenError):
    """A profile or applied.toml is invalid; the message names the file and the field."""


@dataclass(frozen=True)
class Choice:
    key_bits: int
    direction: str
    params: tuple[tuple[str, object], ...]
    score: float | None = None


@dataclass(frozen=True)
class Profile:
    target: str
    family: str
    display: str                 # repository-relative path, for headers and messages
    choices: tuple[Choice, ...]
    info: dict                   # [profile] as written (machine, method, results)


def _read(path: Path, display: str) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{display}: not valid TOML: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ProfileError(f"{display}: cannot read: {e}") from None


def load_profile(path: Path, root: Path | None, emitter) -> Profile:
    display = display_path(path, root)
    doc = _read(path, display)
    head = doc.get("profile")
    if not isinstance(head, dict):
        raise ProfileError(f"{display}: profile: missing table [profile]")
    target, family = head.get("target"), head.get("cpu_family")
    if target != path.parent.name:
        raise ProfileError(f"{display}: profile.target: {target!r} must equal the folder name {path.parent.name!r}")
    if family != path.stem or not FAMILY_RE.match(str(family)):
        raise ProfileError(f"{display}: profile.cpu_family: {family!r} must equal the file name {path.stem!r}")
    unknown = set(doc) - {"profile", "choice"}
    if unknown:
        raise ProfileError(f"{display}: {sorted(unknown)[0]}: unknown table (expected: profile, choice)")
    space = emitter.sweep
    choices, seen = [], set()
    for i, c in enumerate(doc.get("choice", [])):
        where = f"{display}: choice[{i}]"
        if not isinstance(c, dict) or set(c) - {"key_bits", "direction", "params", "score"}:
            raise ProfileError(f"{where}: expected key_bits, direction, params and optionally score")
        kb, d, params = c.get("key_bits"), c.get("direction"), c.get("params")
        if kb not in KEY_BITS or isinstance(kb, bool):
            raise ProfileError(f"{where}.key_bits: {kb!r} is not 128, 192 or 256")
        if d not in DIRECTIONS:
            raise ProfileError(f"{where}.direction: {d!r} is not enc or dec")
        if (kb, d) in seen:
            raise ProfileError(f"{where}: AES-{kb} {d} is chosen twice")
        seen.add((kb, d))
        if not isinstance(params, dict) or not params:
            raise ProfileError(f"{where}.params: expected a non-empty inline table")
        for k, v in params.items():
            if space is None or k not in space.values:
                raise ProfileError(f"{where}.params.{k}: not a tunable parameter of emitter {emitter.name!r}")
            if not isinstance(v, (int, str, bool)):
                raise ProfileError(f"{where}.params.{k}: expected an integer, string or boolean, got {v!r}")
            if not space.relevant(k, d):
                raise ProfileError(f"{where}.params.{k}: does not concern direction {d}")
        score = c.get("score")
        choices.append(Choice(kb, d, tuple(sorted(params.items())),
                              float(score) if isinstance(score, (int, float)) else None))
    if not choices:
        raise ProfileError(f"{display}: choice: a profile needs at least one [[choice]]")
    return Profile(target, family, display, tuple(choices), head)


def load_applied(profiles_dir: Path, root: Path | None, targets: list[Target], emitters: dict) -> dict[str, Profile]:
    """The profile applied to each target (none when applied.toml is absent)."""
    path = profiles_dir / APPLIED
    if not path.is_file():
        return {}
    display = display_path(path, root)
    doc = _read(path, display)
    if set(doc) - {"applied"}:
        raise ProfileError(f"{display}: {sorted(set(doc) - {'applied'})[0]}: unknown table (expected: applied)")
    by_name = {t.name: t for t in targets}
    out = {}
    for name, family in doc.get("applied", {}).items():
        if name not in by_name:
            raise ProfileError(f"{display}: applied.{name}: no such target")
        if not isinstance(family, str) or not FAMILY_RE.match(family):
            raise ProfileError(f"{display}: applied.{name}: {family!r} is not a CPU family name")
        ppath = profiles_dir / name / f"{family}.toml"
        if not ppath.is_file():
            raise ProfileError(f"{display}: applied.{name}: {display_path(ppath, root)} does not exist")
        out[name] = load_profile(ppath, root, emitters[by_name[name].emitter])
    return out


def applied_files(profiles_dir: Path) -> list[Path]:
    """applied.toml and the profiles it names (for build-system DEPENDS); no validation."""
    path = profiles_dir / APPLIED
    if not path.is_file():
        return []
    files = [path]
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError):
        return files
    for name, family in sorted(doc.get("applied", {}).items()):
        if isinstance(family, str):
            files.append(profiles_dir / name / f"{family}.toml")
    return files


def variants_with_profile(target: Target, emitter, profile: Profile) -> list[Variant]:
    """The target's variants with each profiled key size and direction rebuilt from the
    winning parameters; the rest as the target describes them."""
    space = emitter.sweep
    spec = target.sections["variants"]
    out, covered = [], set()
    for c in profile.choices:
        if c.key_bits not in spec["key_bits"]:
            raise ProfileError(f"{profile.display}: AES-{c.key_bits} is not among {target.name}'s key sizes")
        new = dict(spec)
        new["key_bits"] = [c.key_bits]
        for k, v in c.params:
            if k in space.ordered:
                new[k] = [v] + [x for x in spec[k] if x != v]
            else:
                new[k] = [v]
        tuned = dataclasses.replace(target, sections={**target.sections, "variants": new})
        try:
            # the emitter's [variants] field checks, on the values the profile put there
            validate_tables({"variants": new}, {"variants": emitter.schema["variants"]}, target.display_path)
            emitter.validate(tuned)
            built = emitter.variants(tuned)
        except TargetError as e:
            raise ProfileError(f"{profile.display}: AES-{c.key_bits} {c.direction}: {e}") from None
        out += [dataclasses.replace(v, profile=profile.display) for v in built if v.direction == c.direction]
        covered.add((c.key_bits, c.direction))
    out += [v for v in emitter.variants(target) if (v.key_bits, v.direction) not in covered]
    return out


def dumps_profile(target: str, family: str, info: dict, choices: list[Choice]) -> str:
    head = {"target": target, "cpu_family": family, **info}
    body = [{"key_bits": c.key_bits, "direction": c.direction, "params": dict(c.params),
             **({"score": round(c.score, 4)} if c.score is not None else {})} for c in choices]
    return tomlwrite.dumps({"profile": head, "choice": body},
                      header=f"Tuned profile of {target} for {family}, written by `aesgen tune`.\n"
                             "`generate` uses it when applied.toml names it. score: geometric mean\n"
                             "of the measured operations' median MB/s.")


def dumps_applied(applied: dict[str, str]) -> str:
    return tomlwrite.dumps({"applied": dict(sorted(applied.items()))},
                      header="Which tuned profile sets each target's defaults in generated/\n"
                             "(<target>/<cpu-family>.toml). Written by `aesgen tune --apply`; edit freely.")


def read_applied_map(profiles_dir: Path) -> dict[str, str]:
    path = profiles_dir / APPLIED
    if not path.is_file():
        return {}
    doc = _read(path, str(path))
    return {k: v for k, v in doc.get("applied", {}).items() if isinstance(v, str)}
