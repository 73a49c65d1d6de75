"""Emitters: one per kind of target. Each turns a target's variants into Programs,
has the model execute them, and renders the files.

An emitter provides: `name`; `schema` (its TOML tables); `parameters` (names usable in
dispatch.backend); `cpu_features` (names the runtime detects); `validate(target)`;
`variants(target)`; `build(variant)`; `verify(built)`; `render(built, renderer, verified)`.
A porter adds a module here and registers it below; no other target's code changes.
"""

from .c_bitsliced import CBitslicedEmitter

EMITTERS = {e.name: e for e in (CBitslicedEmitter(),)}
