"""The model: executes Programs exactly as emitted and checks them against the reference AES.

Every op has one Python meaning here. The emitters print the same ops, so a variant
that passes here computes AES as long as each emitter's printing of each op is right,
which the C and assembly tests check on real hardware (or, for SPARC, on the
disassembled bytes).
"""

from __future__ import annotations

import random
from collections.abc import MutableMapping, Sequence

from . import reference
from .errors import AesgenError
from .ir import KeySizeLoop, Loop, Program, check, check_key_size_loop, check_loop


class ModelError(AesgenError):
    """An emitted operation sequence disagrees with the reference AES."""


def _load(buf, offset: int, nbytes: int) -> int:
    return int.from_bytes(bytes(buf[offset:offset + nbytes]), "little")


def _store(buf, offset: int, nbytes: int, value: int) -> None:
    buf[offset:offset + nbytes] = (value & ((1 << (8 * nbytes)) - 1)).to_bytes(nbytes, "little")


def execute(program: Program, memories: MutableMapping[str, object],
            inputs: Sequence[int] = ()) -> list[int]:
    """Run `program` on `memories` (name -> bytearray for byte memories, list of ints
    for word memories) and the values of its `inputs`; return the values of its
    `outputs`. Stores write into those objects. A vector program's values are
    integers of lanes * bits bits, lane i in bits [i * bits, (i + 1) * bits)."""
    check(program)
    return _execute(program, memories, inputs)


def _execute(program: Program, memories: MutableMapping[str, object], inputs: Sequence[int] = ()) -> list[int]:
    """execute() on a program check() has passed (run and verify_block_cipher check once
    and then execute many times)."""
    bits, lanes = program.bits, program.lanes
    word = (1 << bits) - 1
    spread = sum(1 << (i * bits) for i in range(lanes))   # word -> the same word in every lane
    mask = word * spread
    if len(inputs) != len(program.inputs):
        raise ModelError(f"{program.name}: {len(inputs)} input values for {len(program.inputs)} inputs")
    v: dict[str, int] = dict(zip(program.inputs, inputs))

    def val(a) -> int:
        return v[a] if isinstance(a, str) else a * spread

    def shl(x: int, n: int) -> int:
        return (x << n) & ((word << n) & word) * spread

    def shr(x: int, n: int) -> int:
        return (x >> n) & (word >> n) * spread

    for op in program.ops:
        c, a = op.code, op.args
        if c == "xor":
            r = val(a[0]) ^ val(a[1])
        elif c == "and":
            r = val(a[0]) & val(a[1])
        elif c == "or":
            r = val(a[0]) | val(a[1])
        elif c == "andn":
            r = val(a[0]) & ~val(a[1]) & mask
        elif c == "not":
            r = ~val(a[0]) & mask
        elif c == "ternary":
            r = ternary(val(a[0]), val(a[1]), val(a[2]), a[3], mask)
        elif c == "mov":
            r = val(a[0])
        elif c == "ror":
            x, n = val(a[0]), a[1]
            r = shr(x, n) | shl(x, bits - n)
        elif c == "shl":
            r = shl(val(a[0]), a[1])
        elif c == "shr":
            r = shr(val(a[0]), a[1])
        elif c == "ld":
            r = _load(memories[a[0]], a[1], a[2] // 8)
        elif c == "ldw":
            r = (memories[a[0]][a[1]] & word) * spread
        elif c == "vld":
            r = _load(memories[a[0]], a[1], program.vector_bytes)
        elif c == "vld128":
            r = _load(memories[a[0]], a[1], 16)
        elif c in ("unpacklo", "unpackhi"):
            r = _unpack(val(a[0]), val(a[1]), a[2], c == "unpackhi", bits * lanes)
        elif c == "blocks":
            r = _blocks(val(a[0]), val(a[1]), a[2], bits * lanes)
        elif c == "bswap":
            r = _join([int.from_bytes(b.to_bytes(16, "little"), "big")
                       for b in _pieces(val(a[0]), 128, bits * lanes // 128)], 128)
        elif c == "swap64":
            r = _join([(b >> 64) | (b & ((1 << 64) - 1)) << 64 for b in _pieces(val(a[0]), 128, bits * lanes // 128)],
                      128)
        elif c == "clmul":
            r = _clmul_blocks(val(a[0]), val(a[1]), a[2], bits * lanes)
        elif c == "st":
            _store(memories[a[0]], a[1], a[2] // 8, val(a[3]))
            continue
        elif c == "vst":
            _store(memories[a[0]], a[1], program.vector_bytes, val(a[2]))
            continue
        elif c == "vst128":
            _store(memories[a[0]], a[1], 16, val(a[2]) & ((1 << 128) - 1))
            continue
        elif c == "stw":
            memories[a[0]][a[1]] = val(a[2]) & word
            continue
        elif c == "note":
            continue
        else:  # check() rejects unknown opcodes; this is unreachable
            raise ModelError(f"{program.name}: no meaning for opcode {c}")
        v[op.dst] = r
    return [v[name] for name in program.outputs]


def check_core(core: Program | Loop | KeySizeLoop) -> None:
    if isinstance(core, Program):
        check(core)
    elif isinstance(core, KeySizeLoop):
        check_key_size_loop(core)
    else:
        check_loop(core)


def run(core: Program | Loop | KeySizeLoop, memories: MutableMapping[str, object], checked: bool = False,
        key_bits: int | None = None) -> None:
    """Execute a core as the C runs it: a Program once; a Loop's head, then its body
    once per iteration (in the loop's order) on that iteration's key window and the
    state the previous piece handed on, then its tail; a KeySizeLoop's steps for the
    round count of `key_bits`, each window bounds-checked against the memory it views.
    `checked`: check_core has passed."""
    if not checked:
        check_core(core)
    if isinstance(core, Program):
        _execute(core, memories)
        return
    if isinstance(core, KeySizeLoop):
        if key_bits not in core.key_bits:
            raise ModelError(f"{core.name}: run for AES-{key_bits}, which it does not serve")
        _run_key_size_loop(core, memories, reference.rounds_for(key_bits))
        return
    state = _execute(core.head, memories)
    for r in core.iterations():
        windows = [(name, over, base + stride * r) for name, over, base, stride in core.windows()]
        state = _execute_windowed(core.body, memories, windows, state)
    _execute(core.tail, memories, state)


def _execute_windowed(program: Program, memories: MutableMapping[str, object],
                      windows: Sequence[tuple[str, str, int]], inputs: Sequence[int], where: str = "") -> list[int]:
    """Execute `program` with each window (its memory, the memory it views, the first
    element) a copy of that slice, written back when the program writes it."""
    views = {}
    for name, over, start in windows:
        view, mem = program.memory(name), memories[over]
        if start < 0 or start + view.length > len(mem):
            raise ModelError(f"{program.name}: {name} is {over}[{start}..{start + view.length}), "
                             f"outside its {len(mem)} elements{where}")
        window = mem[start:start + view.length]
        views[name] = bytearray(window) if view.kind == "bytes" else list(window)
    out = _execute(program, {**memories, **views}, inputs)
    for name, over, start in windows:
        view = program.memory(name)
        if view.writable:
            memories[over][start:start + view.length] = views[name]
    return out


def _run_key_size_loop(core: KeySizeLoop, memories: MutableMapping[str, object], nr: int) -> None:
    state: list[int] = []
    for step, r in core.trace(nr):
        windows = [(w.name, w.over, w.start(nr, r)) for w in step.windows]
        state = _execute_windowed(step.program, memories, windows, state if step.program.inputs else (),
                                  f" (round count {nr}, trip {r})")


def _pieces(x: int, size: int, count: int) -> list[int]:
    return [(x >> (i * size)) & ((1 << size) - 1) for i in range(count)]


def _join(pieces: list[int], size: int) -> int:
    return sum(p << (i * size) for i, p in enumerate(pieces))


def _unpack(a: int, b: int, unit: int, high: bool, vector_bits: int) -> int:
    """In each 128-bit block: a's and b's low (or high) halves, interleaved unit by unit."""
    per = 128 // unit
    out = []
    for x, y in zip(_pieces(a, 128, vector_bits // 128), _pieces(b, 128, vector_bits // 128)):
        xs, ys = _pieces(x, unit, per), _pieces(y, unit, per)
        half = slice(per // 2, per) if high else slice(0, per // 2)
        out.append(_join([u for pair in zip(xs[half], ys[half]) for u in pair], unit))
    return _join(out, 128)


def clmul64(x: int, y: int) -> int:
    """The 128-bit carry-less product of two 64-bit words."""
    r = 0
    while y:
        if y & 1:
            r ^= x
        x <<= 1
        y >>= 1
    return r


def _clmul_blocks(a: int, b: int, sel: int, vector_bits: int) -> int:
    """In each 128-bit block: a's 64-bit half sel & 1 times b's half sel >> 4 & 1."""
    n = vector_bits // 128
    out = [clmul64(_pieces(x, 64, 2)[sel & 1], _pieces(y, 64, 2)[sel >> 4 & 1])
           for x, y in zip(_pieces(a, 128, n), _pieces(b, 128, n))]
    return _join(out, 128)


def _blocks(a: int, b: int, parity: int, vector_bits: int) -> int:
    """a's even (parity 0) or odd 128-bit blocks, then b's."""
    n = vector_bits // 128
    xs, ys = _pieces(a, 128, n), _pieces(b, 128, n)
    return _join(xs[parity::2] + ys[parity::2], 128)


def ternary(x: int, y: int, z: int, table: int, mask: int) -> int:
    """Bitwise: bit i of the result is bit (x_i << 2 | y_i << 1 | z_i) of `table`."""
    r = 0
    for i in range(8):
        if table >> i & 1:
            r |= (x if i & 4 else ~x) & (y if i & 2 else ~y) & (z if i & 1 else ~z)
    return r & mask


def expect_equal(what: str, got: bytes, want: bytes) -> None:
    if got != want:
        raise ModelError(f"{what}: model gives {got.hex()}, reference AES gives {want.hex()}")


# FIPS-197 appendix C: key 00 01 .. 1f (truncated to the key size), this plaintext.
FIPS197_PLAINTEXT = bytes.fromhex("00112233445566778899aabbccddeeff")


def _allocate(programs: Sequence[Program | Loop | KeySizeLoop], memories: dict, key_bits: int) -> None:
    for p in programs:
        for m in (p.memories_of(reference.rounds_for(key_bits)) if isinstance(p, KeySizeLoop) else p.memories):
            if m.name not in memories:
                memories[m.name] = bytearray(m.length) if m.kind == "bytes" else [0] * m.length


def verify_block_cipher(name: str, key_bits: int, direction: str, key_programs: Sequence[Program | Loop | KeySizeLoop],
                        core: Program | Loop | KeySizeLoop, blocks: int, trials: int, seed: int) -> None:
    """Run key set-up programs (memory `key` in, round keys out) and then the core
    (`in` -> `out`, `blocks` blocks) for the FIPS-197 key and `trials` random keys and
    blocks; raise ModelError on the first disagreement with the reference AES."""
    rng = random.Random(seed)
    cipher = reference.encrypt_block if direction == "enc" else reference.decrypt_block
    for p in key_programs:
        check_core(p)
    check_core(core)
    for trial in range(trials + 1):
        if trial == 0:
            key = bytes(range(key_bits // 8))
            data = FIPS197_PLAINTEXT * blocks
        else:
            key = rng.randbytes(key_bits // 8)
            data = rng.randbytes(16 * blocks)
        mem: dict = {"key": bytearray(key)}
        _allocate(key_programs, mem, key_bits)
        for p in key_programs:
            run(p, mem, checked=True, key_bits=key_bits)
        _allocate([core], mem, key_bits)
        mem["in"][:] = data
        run(core, mem, checked=True, key_bits=key_bits)
        for b in range(blocks):
            block = data[16 * b:16 * b + 16]
            expect_equal(f"{name}: key {key.hex()}, block {b} ({block.hex()})",
                         bytes(mem["out"][16 * b:16 * b + 16]), cipher(key, block))
