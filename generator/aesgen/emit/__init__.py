"""Emitters: one per kind of target. Each turns a target's variants into Programs,
has the model execute them, and renders the files.

An emitter provides: `name`; `schema` (its TOML tables); `parameters` (names usable in
dispatch.backend); `cpu_features` (names the runtime detects); `compile_guard` (the C
preprocessor condition under which its files build, or None) and `processor` (the
CMAKE_SYSTEM_PROCESSOR pattern where it holds, or None); `validate(target)`;
`variants(target)`; `outputs(variant)`; `build(variant)`; `verify(built)`;
`render(built, renderer, verified)`. Optional: `assembler_options` (what its assembly
sources need on that processor) and `verify_assembled(built, files, include_dir)`
(assemble the rendered files and run the machine code in the model).
A porter adds a module here and registers it below; no other target's code changes.
"""

from .aarch64_ce import AArch64CeEmitter
from .c_bitsliced import CBitslicedEmitter
from .c_simd import CSimdEmitter
from .ppc64le_p8 import Ppc64lePower8Emitter
from .riscv64_zkn import Riscv64ZknEmitter
from .sparc64_t4 import Sparc64T4Emitter
from .x86_64_aes import X86AesEmitter

EMITTERS = {e.name: e for e in (CBitslicedEmitter(), CSimdEmitter(), X86AesEmitter(), AArch64CeEmitter(), Ppc64lePower8Emitter(),
                                Riscv64ZknEmitter(), Sparc64T4Emitter())}
