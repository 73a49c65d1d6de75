"""Emitters: one per kind of target. Each turns a target's variants into programs, has
the model execute them, and renders the files. Every emitter implements the protocol of
`base.Emitter` (the pipeline, the target loader and `tune` call nothing else); the
hardware loops share `hwloop.HwLoopEmitter`, a template method an ISA fills in with hooks.
A porter adds a module here and registers it below; no other target's code changes.
"""

from .aarch64_ce import AArch64CeEmitter
from .c_bitsliced import CBitslicedEmitter
from .c_ghash import CGhashEmitter
from .c_simd import CSimdEmitter
from .ppc64le_p8 import Ppc64lePower8Emitter
from .riscv64_zkn import Riscv64ZknEmitter
from .sparc64_t4 import Sparc64T4Emitter
from .x86_64_aes import X86AesEmitter

EMITTERS = {e.name: e for e in (CBitslicedEmitter(), CSimdEmitter(), X86AesEmitter(), AArch64CeEmitter(),
                                Ppc64lePower8Emitter(), Riscv64ZknEmitter(), Sparc64T4Emitter(), CGhashEmitter())}
