"""The emitter protocol: what the pipeline, the target loader and `tune` ask of every
kind of target, with the defaults most emitters keep."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..targets import Target
from ..variants import Variant


@dataclass(frozen=True)
class SharedSource:
    """A generated file several variants use (one key set-up per key size and order, say):
    written once, and compiled wherever any of its users compiles. `render(renderer,
    guard)` builds, verifies and renders it; `guard` is the preprocessor condition under
    which it compiles (the users' guards joined with ||), or None for everywhere."""
    path: str
    render: Callable[..., str]


class Emitter:
    """One kind of code. A subclass sets the class attributes and implements validate,
    variants, build, verify and render; the pipeline calls nothing else.

    name                 what a target's `target.emitter` names
    schema               its TOML tables: {table: {key: targets.Field}}
    parameters           variant parameters a `dispatch.backend` pattern may use
    cpu_features         feature names (features.py) its targets may require
    compile_guard        C preprocessor condition under which its files build (None: always)
    processor            CMAKE_SYSTEM_PROCESSOR pattern where that holds (None: any)
    assembler_options    what its assembly sources need on that processor
    sweep                what `tune` may vary (space.Space), or None
    """
    name: str = ""
    schema: dict = {}
    parameters: tuple[str, ...] = ()
    cpu_features: tuple[str, ...] = ()
    compile_guard: str | None = None
    processor: str | None = None
    assembler_options: tuple[str, ...] = ()
    sweep = None

    def validate(self, target: Target) -> None:
        """Checks beyond the schema; raise target.error(field, message)."""

    def variants(self, target: Target) -> list[Variant]:
        raise NotImplementedError

    def outputs(self, variant: Variant) -> list[str]:
        return [f"{variant.target.ident}/{variant.name}.c"]

    def build(self, variant: Variant):
        raise NotImplementedError

    def verify(self, built) -> str:
        """Run the built programs in the model (raise ModelError on a disagreement);
        return a sentence for the generated header."""
        raise NotImplementedError

    def render(self, built, renderer, verified: str) -> list[tuple[str, str]]:
        raise NotImplementedError

    def shared(self, variant: Variant) -> list[SharedSource]:
        """The shared files this variant's files use."""
        return []

    def compile_guard_of(self, variant: Variant) -> str | None:
        return self.compile_guard

    def processor_of(self, variant: Variant) -> str | None:
        return self.processor

    # Emitters whose machine code can be read back override this (see HwLoopEmitter).
    verify_assembled = None
