"""Calling conventions of the hardware loops, as data both sides read: the emitters name
their argument registers from `args`, and the model plants the arguments, fills every
register the caller expects back with a canary (checked after the return) and gives
the function a stack where the convention has one the loops may use.

Every loop is called as f(rk, out, in, nblocks, iv_or_counter) and every assembly key
set-up as f(rk, key): the first five (two) integer arguments.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Abi:
    convention: str                    # as a target's [abi] convention names it
    args: tuple[str, ...]              # integer argument registers, in order
    preserved: tuple[str, ...]         # general registers the caller expects back
    # vector register -> how many of its low bytes the caller expects back
    preserved_vectors: dict[int, int] = field(default_factory=dict)
    stack_pointer: str | None = None   # with stack_bytes: the model gives the function a stack
    stack_bytes: int = 0

    @property
    def loop_args(self) -> tuple[str, ...]:
        """rk, out, in, nblocks, iv (or counter)."""
        return self.args[:5]


SYSV = Abi("sysv", ("rdi", "rsi", "rdx", "rcx", "r8", "r9"),
           ("rbx", "rbp", "r12", "r13", "r14", "r15", "rsp"))
AAPCS64 = Abi("aapcs64", tuple(f"x{n}" for n in range(8)),
              tuple(f"x{n}" for n in range(19, 29)) + ("x29", "x30", "sp"),
              preserved_vectors={n: 8 for n in range(8, 16)})          # the low halves of v8-v15
ELFV2 = Abi("elfv2", tuple(f"r{n}" for n in range(3, 11)),
            tuple(f"r{n}" for n in range(14, 32)) + ("r1", "r2"),     # and the stack and TOC pointers
            preserved_vectors={n: 16 for n in range(20, 32)})
LP64 = Abi("lp64", tuple(f"a{n}" for n in range(8)),
           tuple(f"s{n}" for n in range(12)) + ("ra", "gp", "tp"),
           stack_pointer="sp", stack_bytes=256)                        # s-registers are saved there
SPARCV9 = Abi("sparcv9", tuple(f"o{n}" for n in range(6)),
              tuple(f"l{n}" for n in range(8)) + tuple(f"i{n}" for n in range(8))
              + ("g2", "g3", "g4", "g5", "g6", "g7"),
              stack_pointer="sp", stack_bytes=2 * 176)                 # `save` takes a 176-byte frame

ABIS = {a.convention: a for a in (SYSV, AAPCS64, ELFV2, LP64, SPARCV9)}
