"""What the hardware-loop emitters share: the reference output of each mode, the block
counts the model runs at, and the key set-up as the generated C computes it."""

from __future__ import annotations

from collections.abc import Sequence

from .. import reference
from ..ir import Program
from ..model import execute

# mode -> (loop-carried values, final-round temporaries) of the parallel loops
MODE_NEEDS = {
    "ecb": (0, 0),
    "ctr": (1, 1),   # the counter; the input (or last key XOR input) for the final XOR
    "cbc": (1, 1),   # the chaining block; the previous ciphertext for the final XOR
}
DIRECTION_MODES = {"enc": ("ecb", "ctr", "cbc"), "dec": ("ecb", "cbc")}


def block_counts(lanes: int, step: int, extra: Sequence[int] = ()) -> list[int]:
    """Block counts around every loop boundary: none, one, a vector, a main-loop batch,
    two batches and their neighbours."""
    counts = {0, 1, 2, lanes - 1, lanes, lanes + 1, step - 1, step, step + 1,
              2 * step - 1, 2 * step, 2 * step + 1, 2 * step + lanes + 1, *extra}
    return sorted(c for c in counts if c >= 0)


def schedule_bytes(key_programs: Sequence[Program], key: bytes, output: str) -> bytes:
    """Run the key set-up programs in the model; return the schedule memory `output`."""
    mem: dict = {"key": bytearray(key)}
    for p in key_programs:
        for m in p.memories:
            mem.setdefault(m.name, bytearray(m.length) if m.kind == "bytes" else [0] * m.length)
        execute(p, mem)
    return bytes(mem[output])


def reference_mode(direction: str, mode: str, key: bytes, iv: bytes, data: bytes) -> tuple[bytes, bytes]:
    """(output, chaining value or counter after) of the reference AES in this mode."""
    blocks = [data[i:i + 16] for i in range(0, len(data), 16)]
    if mode == "ecb":
        f = reference.encrypt_block if direction == "enc" else reference.decrypt_block
        return b"".join(f(key, b) for b in blocks), iv
    if mode == "ctr":
        out, ctr = [], int.from_bytes(iv, "big")
        for b in blocks:
            out.append(reference.xor(b, reference.encrypt_block(key, ctr.to_bytes(16, "big"))))
            ctr = (ctr + 1) % (1 << 128)
        return b"".join(out), ctr.to_bytes(16, "big")
    out, chain = [], iv
    for b in blocks:
        if direction == "enc":
            chain = reference.encrypt_block(key, reference.xor(b, chain))
            out.append(chain)
        else:
            out.append(reference.xor(reference.decrypt_block(key, b), chain))
            chain = b
    return b"".join(out), chain


def no_carry_counter(iv: bytes, count: int) -> bytes:
    """A counter whose low 64 bits do not wrap within `count` blocks (what the C wrapper
    guarantees the loops)."""
    low = int.from_bytes(iv[8:], "big") % ((1 << 64) - count - 1)
    return iv[:8] + low.to_bytes(8, "big")
