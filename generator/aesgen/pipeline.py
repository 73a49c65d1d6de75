"""targets -> variants -> programs -> model -> rendered files.

Everything is computed and verified in memory before the first byte is written, so a
bad target, template or operation sequence leaves the output folder untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .emit import EMITTERS
from .render import Renderer
from .targets import Target, load_targets
from .tune import profiles
from .variants import Variant, select

ROOT = Path(__file__).resolve().parents[2]
AGGREGATES = ("registry.c", "sources.cmake", "README.md")


@dataclass(frozen=True)
class Paths:
    targets: Path = ROOT / "generator" / "targets"
    templates: Path = ROOT / "templates"
    out: Path = ROOT / "generated"
    root: Path = ROOT
    profiles: Path = ROOT / "generator" / "profiles"


class SelectionError(Exception):
    pass


def load(paths: Paths) -> tuple[list[Target], list[Variant]]:
    targets = load_targets(paths.targets, paths.root, EMITTERS)
    applied = profiles.load_applied(paths.profiles, paths.root, targets)
    variants = []
    for t in targets:
        emitter = EMITTERS[t.emitter]
        if t.name in applied:
            variants += profiles.variants_with_profile(t, emitter, applied[t.name])
        else:
            variants += emitter.variants(t)
    variants.sort(key=lambda v: v.name)
    names = [v.name for v in variants]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise SelectionError(f"two targets produce the same variant name: {', '.join(dupes)}")
    return targets, variants


def select_variants(variants: list[Variant], patterns: list[str] | None) -> list[Variant]:
    chosen = select(variants, patterns)
    if patterns and not chosen:
        raise SelectionError(f"no variant matches {' '.join(patterns)} (see `list`)")
    return chosen


def output_paths(variant: Variant) -> list[str]:
    return EMITTERS[variant.target.emitter].outputs(variant)


def render_outputs(paths: Paths, patterns: list[str] | None = None, progress=None) -> dict[str, str]:
    """Build, verify and render the selected variants plus the aggregate files (which
    always describe every variant)."""
    targets, variants = load(paths)
    chosen = select_variants(variants, patterns)
    renderer = Renderer(paths.templates, paths.root)
    outputs: dict[str, str] = {}
    for i, v in enumerate(chosen):
        if progress:
            progress(f"[{i + 1}/{len(chosen)}] {v.name}")
        emitter = EMITTERS[v.target.emitter]
        built = emitter.build(v)
        verified = emitter.verify(built)
        for rel, text in emitter.render(built, renderer, verified):
            outputs[rel] = text
    backends = sorted({v.backend for v in variants})
    context = {
        "variants": [{"name": v.name, "symbol": v.symbol, "backend": v.backend, "paths": output_paths(v),
                      "describe": v.describe(), "guard": compile_guard(v),
                      "features": list(v.target.cpu_features)}
                     for v in variants],
        "backends": backends,
        "processors": _processors(variants),
        "targets": [{"name": t.name, "path": t.display_path, "summary": t.summary} for t in targets],
    }
    for name in AGGREGATES:
        outputs[name] = renderer.render(f"{name}.j2", context=context)
    return outputs


def compile_guard(v: Variant) -> str | None:
    """The preprocessor condition under which the variant's files compile to code."""
    em = EMITTERS[v.target.emitter]
    return em.compile_guard_of(v) if hasattr(em, "compile_guard_of") else em.compile_guard


def processor(v: Variant) -> str | None:
    """The CMAKE_SYSTEM_PROCESSOR pattern where that condition holds (None: any)."""
    em = EMITTERS[v.target.emitter]
    return em.processor_of(v) if hasattr(em, "processor_of") else em.processor


def _processors(variants: list[Variant]) -> list[dict]:
    """Per CMAKE_SYSTEM_PROCESSOR pattern (None: any): the backends built there and the
    assembler options their sources need."""
    by: dict = {}
    for v in variants:
        em = EMITTERS[v.target.emitter]
        pattern = processor(v)
        entry = by.setdefault(pattern, {"pattern": pattern, "backends": set(), "asm_options": []})
        entry["backends"].add(v.backend)
        for o in getattr(em, "assembler_options", ()):
            if o not in entry["asm_options"]:
                entry["asm_options"].append(o)
    return [{**e, "backends": sorted(e["backends"])} for _, e in sorted(by.items(), key=lambda kv: kv[0] or "")]


def input_files(paths: Paths) -> list[Path]:
    """Every file whose change should regenerate the output (for build-system DEPENDS)."""
    files = sorted((ROOT / "generator" / "aesgen").rglob("*.py"))
    files += sorted((ROOT / "generator" / "aesgen").rglob("*.slp"))
    files += sorted(paths.templates.rglob("*.j2"))
    files += sorted(paths.targets.glob("*.toml"))
    files += profiles.applied_files(paths.profiles)
    return files


def output_files(paths: Paths) -> list[str]:
    _, variants = load(paths)
    return sorted([p for v in variants for p in output_paths(v)] + list(AGGREGATES))


def check_assembled(paths: Paths, patterns: list[str] | None = None, progress=None) -> list[str]:
    """For every selected variant whose emitter can read its machine code back: render,
    assemble, disassemble and run the result in the model. Returns one line per variant."""
    _, variants = load(paths)
    chosen = [v for v in select_variants(variants, patterns)
              if hasattr(EMITTERS[v.target.emitter], "verify_assembled")]
    if not chosen:
        raise SelectionError("no selected variant has machine code to check")
    renderer = Renderer(paths.templates, paths.root)
    lines = []
    for i, v in enumerate(chosen):
        if progress:
            progress(f"[{i + 1}/{len(chosen)}] {v.name}")
        emitter = EMITTERS[v.target.emitter]
        built = emitter.build(v)
        files = dict(emitter.render(built, renderer, "not run"))
        lines.append(f"{v.name}: {emitter.verify_assembled(built, files, ROOT / 'runtime' / 'src')}")
    return lines
