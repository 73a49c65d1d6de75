"""targets -> variants -> programs -> model -> rendered files.

Everything is computed and verified in memory before the first byte is written, so a
bad target, template or operation sequence leaves the output folder untouched.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import cpu_table, features, profiles
from .algorithm.aes import UNROLLS as SOFTWARE_UNROLLS
from .emit import EMITTERS
from .emit.hwloop import HW_UNROLLS
from .errors import AesgenError
from .render import Renderer
from .targets import Target, load_targets
from .variants import Variant, select

ROOT = Path(__file__).resolve().parents[2]
AGGREGATES = ("registry.c", "sources.cmake", "README.md", "cpu_features.h", "cpu_preferences.c")


@dataclass(frozen=True)
class Paths:
    targets: Path = ROOT / "generator" / "targets"
    templates: Path = ROOT / "templates"
    out: Path = ROOT / "generated"
    root: Path = ROOT
    profiles: Path = ROOT / "generator" / "profiles"
    cpus: Path = ROOT / "generator" / "cpus"


class SelectionError(AesgenError):
    pass


def load(paths: Paths) -> tuple[list[Target], list[Variant]]:
    targets = load_targets(paths.targets, paths.root, EMITTERS)
    applied = profiles.load_applied(paths.profiles, paths.root, targets, EMITTERS)
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


# The jobs of the running render_outputs, for the worker processes it forks (which
# inherit them: targets, variants and shared sources are built once, never pickled).
_JOBS: list[Callable[[], list[tuple[str, str]]]] = []


def _run_job(index: int) -> list[tuple[str, str]]:
    return _JOBS[index]()


def workers() -> int:
    """Processes that build and verify variants: AESGEN_JOBS, else the CPUs this process
    may use (1: everything in this process)."""
    value = os.environ.get("AESGEN_JOBS", "")
    if value:
        if not value.isdigit() or int(value) < 1:
            raise AesgenError(f"AESGEN_JOBS={value!r}: a positive number of processes")
        return int(value)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _run_jobs(jobs: list, labels: list[str], progress) -> list[list[tuple[str, str]]]:
    """Each job's files, in job order: in worker processes forked from this one where
    there is more than one CPU (the model runs dominate and are independent), else here.
    A job's error is raised here as it would be in one process."""
    n = min(workers(), len(jobs))
    if n <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        results = []
        for i, job in enumerate(jobs):
            if progress:
                progress(f"[{i + 1}/{len(jobs)}] {labels[i]}")
            results.append(job())
        return results
    _JOBS[:] = jobs
    try:
        with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork")) as pool:
            results = []
            for i, files in enumerate(pool.map(_run_job, range(len(jobs)))):
                if progress:
                    progress(f"[{i + 1}/{len(jobs)}] {labels[i]}")
                results.append(files)
            return results
    finally:
        _JOBS.clear()


def _variant_job(v: Variant, renderer: Renderer) -> Callable[[], list[tuple[str, str]]]:
    def job() -> list[tuple[str, str]]:
        emitter = EMITTERS[v.target.emitter]
        built = emitter.build(v)
        return emitter.render(built, renderer, emitter.verify(built))
    return job


def render_outputs(paths: Paths, patterns: list[str] | None = None, progress=None) -> dict[str, str]:
    """Build, verify and render the selected variants plus the aggregate files (which
    always describe every variant) and the files variants share; with a filter, also
    every variant whose files the output folder lacks."""
    targets, variants = load(paths)
    chosen = select_variants(variants, patterns)
    if patterns:
        # The aggregates name every variant's files, so a filtered run also builds the
        # variants whose files the output folder lacks: the tree it leaves always
        # configures and builds (a porter trying one key size of a new target first).
        picked = {v.name for v in chosen}
        absent = [v for v in variants
                  if v.name not in picked and not all((paths.out / p).is_file() for p in output_paths(v))]
        if absent and progress:
            progress(f"also generating {len(absent)} variant{'s' if len(absent) != 1 else ''} outside the filter "
                     f"whose files {paths.out} lacks (the source lists name them), e.g. {absent[0].name}")
        chosen = sorted(chosen + absent, key=lambda v: v.name)
    renderer = Renderer(paths.templates, paths.root)
    shared = shared_sources(variants)
    jobs = [_variant_job(v, renderer) for v in chosen] + \
        [lambda source=source, guard=guard, path=path: [(path, source.render(renderer, guard))]
         for path, (source, guard) in shared.items()]
    outputs: dict[str, str] = {}
    for files in _run_jobs(jobs, [v.name for v in chosen] + list(shared), progress):
        outputs.update(files)
    aes = [v for v in variants if v.kind == "aes"]
    alternative = alternatives(aes)
    by_unroll = {u: alternatives(aes, None if u == DEFAULT_UNROLL else u) for u in BUILD_UNROLLS}

    def chosen_in(v: Variant) -> set[str]:
        return {u for u in BUILD_UNROLLS if v.name not in by_unroll[u]}

    def facts(v: Variant) -> dict:
        return {"name": v.name, "symbol": v.symbol, "backend": v.backend, "paths": output_paths(v),
                "shared": [s.path for s in EMITTERS[v.target.emitter].shared(v)],
                "describe": v.describe(), "guard": compile_guard(v), "kind": v.kind,
                "features": list(v.target.cpu_features), "alternative": v.name in alternative,
                "registry_guard": registry_guard(v, chosen_in(v))}
    context = {
        "shared": sorted(shared),
        "variants": [facts(v) for v in variants],                 # every file
        "aes_variants": [facts(v) for v in aes],                  # the AES registry, its backends
        "ghash_variants": [facts(v) for v in variants if v.kind == "ghash"],
        "backends": _backends(aes, alternative),
        "unrolls": [{"name": u, "macro": unroll_macro(u) if u != DEFAULT_UNROLL else "",
                     "alternatives": sorted(by_unroll[u])} for u in BUILD_UNROLLS],
        "default_unrolls": default_unrolls(aes),
        "processors": _processors(aes),
        "targets": [{"name": t.name, "path": t.display_path, "summary": t.summary} for t in targets],
        **features.header_context(),
        **cpu_table.template_context(cpu_table.load_rows(paths.cpus, paths.root), variants, processor),
    }
    cpu_inputs = [f"CPU rows:   {cpu_table.display_path(p, paths.root)}" for p in cpu_table.input_files(paths.cpus)]
    for name in AGGREGATES:
        summary = cpu_inputs if name == "cpu_preferences.c" else ()
        outputs[name] = renderer.render(f"{name}.j2", context=context, summary=summary)
    return outputs


def shared_sources(variants: list[Variant]) -> dict:
    """path -> (SharedSource, guard) of every file the variants share; a shared file
    compiles wherever any of its users does (None: everywhere)."""
    users: dict = {}
    for v in variants:
        for source in EMITTERS[v.target.emitter].shared(v):
            users.setdefault(source.path, (source, set()))[1].add(compile_guard(v))
    out = {}
    for path, (source, guards) in sorted(users.items()):
        guard = None if None in guards else " || ".join(f"({g})" for g in sorted(guards))
        out[path] = (source, guard)
    return out


def unroll_of(v: Variant) -> str | None:
    """A variant's unroll (UNROLLS); None for a variant of a target without them."""
    return v.param("unroll", UNROLLS[0]) if "unroll" in v.target.sections.get("variants", {}) else None


def default_unroll(v: Variant) -> str | None:
    """The unroll a default build takes for the variant's backend: the first its target
    lists (measured per backend: docs/performance.md); None for a variant without one."""
    return v.target.sections["variants"]["unroll"][0] if unroll_of(v) is not None else None


def default_unrolls(variants: list[Variant]) -> list[dict]:
    """Per software backend, the unroll a default build takes (configure prints them)."""
    return [{"backend": b, "unroll": u}
            for b, u in sorted({(v.backend, default_unroll(v)) for v in variants if unroll_of(v) is not None})]


# Every unroll, from the most written out to the most rolled: the software cores' and
# the hardware loops' (hwloop.HW_UNROLLS).
UNROLLS = tuple(dict.fromkeys(SOFTWARE_UNROLLS + HW_UNROLLS))
# The build's choices of unroll (-DAESGEN_UNROLL): each backend's own (the default, no
# definition in registry.c), one unroll for every backend that has it, or each
# backend's most rolled.
DEFAULT_UNROLL = "default"
ROLLED = "rolled"
NAMED_UNROLLS = UNROLLS + (ROLLED,)
BUILD_UNROLLS = (DEFAULT_UNROLL,) + NAMED_UNROLLS


def alternatives(variants: list[Variant], unroll: str | None = None) -> set[str]:
    """The AES variants dispatch can never choose in a build of unroll `unroll`
    (-DAESGEN_UNROLL; None: each backend's default_unroll; ROLLED: each backend's most
    rolled): the variants of the other unrolls (where a backend, key size and direction
    has none of `unroll`, those of the first unroll its target lists that it has stay), and every variant that
    another of the same backend, key size, direction and unroll outranks while needing
    no feature it lacks. Dispatch scores rank * 4 + word fit (fit < 4) and moves ranks
    per backend, and a forced backend or the software class filters whole backends, so
    the lower rank always wins. Only a name (the tests, the bench's --variant) reaches
    these."""
    def slot(v: Variant) -> tuple:
        return v.backend, v.key_bits, v.direction

    present: dict = {}
    for v in variants:
        present.setdefault(slot(v), set()).add(unroll_of(v))

    def built_unroll(v: Variant) -> str | None:
        if unroll_of(v) is None:
            return None
        listed = list(v.target.sections["variants"]["unroll"])
        if unroll == ROLLED:
            wanted = sorted(listed, key=UNROLLS.index, reverse=True)
        else:
            wanted = ([unroll] if unroll else []) + listed
        return next(u for u in wanted if u in present[slot(v)])

    def dominates(w: Variant, v: Variant) -> bool:
        return ((slot(w), unroll_of(w)) == (slot(v), unroll_of(v))
                and w.rank < v.rank and set(w.target.cpu_features) <= set(v.target.cpu_features))
    return {v.name for v in variants
            if unroll_of(v) != built_unroll(v) or any(dominates(w, v) for w in variants)}


OMIT_ALTERNATIVES = "AESGEN_OMIT_ALTERNATIVES"


def omit_macro(backend: str) -> str:
    """The definition that leaves a backend out of a build's registry (CMake sets it)."""
    return "AESGEN_OMIT_BACKEND_" + backend.upper().replace("-", "_")


def unroll_macro(unroll: str) -> str:
    """The definition of a build whose software variants all have this unroll (CMake sets
    the picked one; none: each backend's default)."""
    return "AESGEN_UNROLL_" + unroll.upper()


def registry_guard(v: Variant, chosen_in: set[str]) -> str:
    """When the registry lists the variant: its files compile to code here, the build did
    not leave its backend out, and the build keeps alternatives or has one of the unroll
    choices `chosen_in` (BUILD_UNROLLS) in which dispatch can choose the variant (the
    default: no unroll definition; all of them: always)."""
    guard = compile_guard(v)
    if v.kind != "aes":
        return guard or ""
    terms = [f"({guard})"] if guard else []
    terms.append(f"!defined({omit_macro(v.backend)})")
    if not chosen_in:
        terms.append(f"!defined({OMIT_ALTERNATIVES})")
    elif set(chosen_in) != set(BUILD_UNROLLS):
        # a build defines one unroll's macro or none (the default): it is in chosen_in
        # when it defines none of the others, or one of chosen_in
        if DEFAULT_UNROLL in chosen_in:
            parts, join = [f"!defined({unroll_macro(u)})" for u in NAMED_UNROLLS if u not in chosen_in], " && "
        else:
            parts, join = [f"defined({unroll_macro(u)})" for u in NAMED_UNROLLS if u in chosen_in], " || "
        built = parts[0] if len(parts) == 1 else f"({join.join(parts)})"
        terms.append(f"(!defined({OMIT_ALTERNATIVES}) || {built})")
    return " && ".join(terms)


def _backends(aes: list[Variant], alternative: set[str]) -> list[dict]:
    """Per AES backend: its registry definition, and the rank and CPU features of the
    variants dispatch chooses from it (what the build's fallback choice compares)."""
    out = []
    for b in sorted({v.backend for v in aes}):
        chosen = [v for v in aes if v.backend == b and v.name not in alternative]
        out.append({"name": b, "omit": omit_macro(b), "rank": min(v.rank for v in chosen),
                    "features": sorted({f for v in chosen for f in v.target.cpu_features})})
    return out


def compile_guard(v: Variant) -> str | None:
    """The preprocessor condition under which the variant's files compile to code."""
    return EMITTERS[v.target.emitter].compile_guard_of(v)


def processor(v: Variant) -> str | None:
    """The CMAKE_SYSTEM_PROCESSOR pattern where that condition holds (None: any)."""
    return EMITTERS[v.target.emitter].processor_of(v)


def _processors(variants: list[Variant]) -> list[dict]:
    """Per CMAKE_SYSTEM_PROCESSOR pattern (None: any): the backends built there and the
    assembler options their sources need."""
    by: dict = {}
    for v in variants:
        em = EMITTERS[v.target.emitter]
        pattern = processor(v)
        entry = by.setdefault(pattern, {"pattern": pattern, "backends": set(), "asm_options": []})
        entry["backends"].add(v.backend)
        for o in em.assembler_options:
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
    files += cpu_table.input_files(paths.cpus)
    return files


def output_files(paths: Paths) -> list[str]:
    _, variants = load(paths)
    return sorted([p for v in variants for p in output_paths(v)] + list(shared_sources(variants)) + list(AGGREGATES))


def check_assembled(paths: Paths, patterns: list[str] | None = None, progress=None) -> list[str]:
    """For every selected variant whose emitter can read its machine code back: render,
    assemble, disassemble and run the result in the model. Returns one line per variant."""
    _, variants = load(paths)
    chosen = [v for v in select_variants(variants, patterns)
              if EMITTERS[v.target.emitter].verify_assembled is not None]
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
        lines.append(f"{v.name}: {emitter.verify_assembled(built, files, ROOT / 'runtime' / 'src', renderer)}")
    # the assembly key set-ups their variants share, once per file
    for emitter in {EMITTERS[v.target.emitter] for v in chosen if EMITTERS[v.target.emitter].setkey_file}:
        lines.append(emitter.verify_setkey_assembled(renderer, ROOT / 'runtime' / 'src'))
    return lines
