"""AES for bitsliced words, as straight-line Programs: the algorithm, stated once.

Encryption is fully fixsliced (Adomnicai-Peyrin): ShiftRows is never applied to the
state; round i uses MixColumns conjugated by SR^(i mod 4) and round key SR^-(i mod 4)(k_i);
one SR^2 resynchronises AES-128/256 before the last round. Decryption runs either plain
bitsliced inverse rounds or the fixsliced rounds backwards on the encryption's round keys.
Each core is fully unrolled, or rolled into a loop over the 4-round period (`UNROLLS`);
the rolled fixsliced cores and the round-key packing also exist once for every key size
(`*_any_size`), the round count an argument.
In all of them the S-box constant 0x63 lives in round keys 1..Nr
(the circuits' XNORs are emitted as XOR), which is legal because MixColumns, its inverse
and ShiftRows map a state of equal bytes to itself.
"""

from __future__ import annotations

from .. import reference
import dataclasses

from ..ir import (Builder, Exit, KeySizeLoop, Loop, Memory, Program, RoundTest, Step, Window, check_key_size_loop,
                  check_loop, eliminate_dead_code)
from .bitsliced import Layout
from .circuits import Circuit

# slices (bits) of the S-box constant 0x63
_SBOX_CONSTANT_SLICES = tuple(k for k in range(8) if (0x63 >> k) & 1)

ENCRYPT_ALGORITHMS = ("fixslice",)
DECRYPT_ALGORITHMS = ("bitslice", "fixslice")
# how the rounds are written out: "full" straight-line, or "loop4", a loop over
# fixslicing's 4-round period (the first listed is the default)
UNROLLS = ("full", "loop4")
PERIOD = 4      # MixColumns frames repeat every 4 rounds


def rounds(key_bits: int) -> int:
    return reference.rounds_for(key_bits)


def schedule_words(key_bits: int) -> int:
    """Words of packed round keys: 8 slices per round key."""
    return 8 * (rounds(key_bits) + 1)


def key_expansion(key_bits: int, sbox: Circuit) -> Program:
    """FIPS-197 key expansion on 32-bit column words (byte r of a word at bits 8r).
    SubWord runs the S-box circuit on four bytes at once: plane k = bit k of each
    byte, so no table and no secret-dependent index. Straight-line: every row of Nk
    words written out (key_expansion_rolled is the loop the library runs)."""
    nk, nr = key_bits // 32, rounds(key_bits)
    prog = Program(f"aes{key_bits}_key_expansion", 32, (
        Memory("key", "bytes", key_bits // 8, False),
        Memory("rkb", "bytes", 16 * (nr + 1), True),
    ))
    bld = Builder(prog)
    w = _first_row(bld, nk, "rkb")
    rcon = 1
    for row in range(1, -(-4 * (nr + 1) // nk)):
        count = min(nk, 4 * (nr + 1) - nk * row)
        w = _next_row(bld, w, rcon, sbox, count, nk * row, "rkb", 4 * nk * row)
        rcon = reference.gf_mul(rcon, 2)
    eliminate_dead_code(prog)
    return prog


def key_expansion_rolled(key_bits: int, sbox: Circuit) -> Loop:
    """The same expansion as a loop over rows of Nk words, one SubWord(RotWord) each (two
    SubWords for AES-256): the rows that fill Nk words in the loop, a last partial row
    (AES-192 and AES-256: 4 words) after it. rcon is carried from row to row (xtime on
    a public value). About a tenth of the straight-line code."""
    nk, nr = key_bits // 32, rounds(key_bits)
    words = 4 * (nr + 1)
    times = (words - nk) // nk
    name = f"aes{key_bits}_key_expansion_rolled"
    mems = (Memory("key", "bytes", key_bits // 8, False), Memory("rkb", "bytes", 16 * (nr + 1), True))
    head = Program(f"{name}_head", 32, mems)
    bld = Builder(head)
    w = _first_row(bld, nk, "rkb")
    bld.note("rcon = 1, as a value the loop carries")
    rcon = bld.xor(bld.and_(w[0], 0, hint="rc"), 1, hint="rc")
    head = dataclasses.replace(head, outputs=tuple(w) + (rcon,))
    state = tuple(f"p{j}" for j in range(nk)) + ("rcon",)
    body = Program(f"{name}_body", 32, (Memory("row", "bytes", 4 * nk, True),), inputs=state)
    bld.switch(body)
    bld.note(f"row r + 1: words {nk}(r + 1)..{nk}(r + 1) + {nk - 1}, stored through the window row")
    q = _next_row(bld, list(state[:nk]), "rcon", sbox, nk, nk, "row", 0)
    body = dataclasses.replace(body, outputs=tuple(q) + (_xtime(bld, "rcon"),))
    tail = Program(f"{name}_tail", 32, mems, inputs=state)
    bld.switch(tail)
    left = words - nk * (times + 1)
    if left:
        bld.note(f"words {words - left}..{words - 1}: the last row's first {left}")
        _next_row(bld, list(state[:nk]), "rcon", sbox, left, words - left, "rkb", 4 * (words - left))
    for piece in (head, body, tail):
        eliminate_dead_code(piece)
    loop = Loop(name, head, body, tail, times, "row", "rkb", base=4 * nk, stride=4 * nk)
    check_loop(loop)
    return loop


def _first_row(bld: Builder, nk: int, out: str) -> list[str]:
    """The key's Nk words, which are the first Nk of the schedule."""
    w = [bld.ld("key", 4 * i, 32, hint=f"w{i}") for i in range(nk)]
    for i, word in enumerate(w):
        bld.st(out, 4 * i, 32, word)
    return w


def _next_row(bld: Builder, prev: list[str], rcon, sbox: Circuit, count: int, first: int, out: str,
              offset: int) -> list[str]:
    """The first `count` words of the row after `prev` (the Nk words before it), the
    schedule's words first..first + count - 1, stored at out + offset. rcon: a constant
    or a value."""
    nk = len(prev)
    w = list(prev)
    for j in range(count):
        t = w[-1]
        i = first + j
        if j == 0:
            bld.note(f"w{i}: SubWord(RotWord(w{i - 1})) ^ rcon" + (f" {rcon:#04x}" if isinstance(rcon, int) else ""))
            t = bld.xor(_sub_word(bld, bld.ror(t, 8, hint=f"rot{i}"), sbox, f"sw{i}_"), rcon, hint=f"rc{i}")
        elif nk > 6 and j == 4:
            bld.note(f"w{i}: SubWord(w{i - 1})")
            t = _sub_word(bld, t, sbox, f"sw{i}_")
        w.append(bld.xor(w[-nk], t, hint=f"w{i}"))
        bld.st(out, offset + 4 * j, 32, w[-1])
    return w[nk:]


def _xtime(bld: Builder, x: str) -> str:
    """x * 2 in GF(2^8) for a byte value x (public: the round constant)."""
    top = bld.shr(x, 7, hint="rcx")
    fold = bld.or_(bld.or_(top, bld.shl(top, 1, hint="rcx"), hint="rcx"),
                   bld.or_(bld.shl(top, 3, hint="rcx"), bld.shl(top, 4, hint="rcx"), hint="rcx"), hint="rcx")
    return bld.xor(bld.and_(bld.shl(x, 1, hint="rcx"), 0xFF, hint="rcx"), fold, hint="rcx")


def _sub_word(bld: Builder, x: str, sbox: Circuit, hint: str) -> str:
    planes = [bld.and_(bld.shr(x, k, hint=f"{hint}p{k}_"), 0x01010101, hint=f"{hint}p{k}_")
              for k in range(8)]
    out = sbox.apply(bld, planes, hint=hint)
    acc = None
    for k in range(8):
        part = bld.shl(out[k], k, hint=f"{hint}m{k}_")
        acc = part if acc is None else bld.or_(acc, part, hint=f"{hint}m{k}_")
    return bld.xor(acc, 0x63636363, hint=f"{hint}s")   # the circuit leaves the constant out


def key_frame(algorithm: str, i: int, nr: int) -> int:
    """The ShiftRows power applied to round key i by the key schedule."""
    if algorithm == "fixslice" and 1 <= i <= nr - 1:
        return -(i % 4)
    return 0


def pack_round_keys(layout: Layout, key_bits: int, algorithm: str) -> Program:
    """Broadcast each 16-byte round key into every lane, move it into the frame the
    rounds expect, fold in the S-box constant (keys 1..Nr) and store 8 slices per key."""
    nr = rounds(key_bits)
    prog = Program(f"aes{key_bits}_{algorithm}{layout.word_bits}_pack_keys", layout.word_bits, (
        Memory("rkb", "bytes", 16 * (nr + 1), False),
        Memory("rk", "words", schedule_words(key_bits), True),
    ))
    bld = Builder(prog)
    for i in range(nr + 1):
        e = key_frame(algorithm, i, nr)
        bld.note(f"round key {i}" + (f": ShiftRows^{e}" if e else "") + (", constant 0x63 folded in" if i else ""))
        bld.prefix = f"k{i}_"
        s = layout.pack(bld, "rkb", 16 * i, broadcast=True)
        if e:
            s = [layout.shift_rows(bld, s[k], e) for k in range(8)]
        if i:
            s = [bld.not_(s[k], hint=f"n{k}") if k in _SBOX_CONSTANT_SLICES else s[k] for k in range(8)]
        for k in range(8):
            bld.stw("rk", 8 * i + k, s[k])
    bld.prefix = ""
    eliminate_dead_code(prog)
    return prog


def _core_program(layout: Layout, key_bits: int, name: str) -> tuple[Program, Builder, list[str]]:
    """A batch program: memories rk, in, out; returns it with the packed input slices."""
    B = layout.blocks
    prog = Program(name, layout.word_bits, (
        Memory("rk", "words", schedule_words(key_bits), False),
        Memory("in", "bytes", 16 * B, False),
        Memory("out", "bytes", 16 * B, True),
    ))
    bld = Builder(prog)
    bld.note("pack the blocks into bit slices")
    bld.prefix = "in_"
    s = layout.pack(bld, "in")
    bld.prefix = ""
    return prog, bld, s


def _finish_core(prog: Program, bld: Builder, layout: Layout, s: list[str]) -> Program:
    bld.note("unpack the slices into blocks")
    bld.prefix = "out_"
    layout.unpack(bld, s, "out")
    eliminate_dead_code(prog)
    return prog


def _core(layout: Layout, key_bits: int, name: str, unroll: str, first, middle, last,
          descending: bool) -> Program | Loop:
    """A batch core from its three parts: `first(bld, s)` (the rounds before rounds
    1..Nr-1), `middle(bld, s, i, label, keys, index)` (round i of 1..Nr-1, its round key
    at word-memory `keys` slot `index`), `last(bld, s)` (what follows them). The middle
    rounds run in descending order for decryption.

    unroll "full": one straight-line program. "loop4": fixslicing's period (rounds
    4r+1..4r+4, the four MixColumns frames) is a loop body whose round keys are a window
    walking the schedule 4 keys per iteration; the middle rounds that do not fill a
    period and the first and last parts are straight-line, before (decryption) or after
    (encryption) the loop."""
    nr = rounds(key_bits)
    prog, bld, s = _core_program(layout, key_bits, name)
    s = first(bld, s)
    order = range(nr - 1, 0, -1) if descending else range(1, nr)
    if unroll == "full":
        for i in order:
            s = middle(bld, s, i, f"round {i}", "rk", i)
        return _finish_core(prog, bld, layout, last(bld, s))
    if unroll not in UNROLLS:
        raise ValueError(f"unroll {unroll!r} (supported: {', '.join(UNROLLS)})")
    times = (nr - 1) // PERIOD
    rolled = range(1, PERIOD * times + 1)
    for i in order:
        if descending and i not in rolled:
            s = middle(bld, s, i, f"round {i}", "rk", i)
    head = dataclasses.replace(prog, name=f"{name}_head", outputs=tuple(s))
    eliminate_dead_code(head)
    state = tuple(f"s{k}" for k in range(8))
    body = Program(f"{name}_body", layout.word_bits, (Memory("rkp", "words", 8 * PERIOD, False),), inputs=state)
    bld.switch(body)
    bld.note(("rounds 4r+4..4r+1, in frames 0, 3, 2, 1" if descending else "rounds 4r+1..4r+4, in frames 1, 2, 3, 0")
             + "; rkp holds round keys 4r+1..4r+4")
    t = list(state)
    for k in (range(PERIOD, 0, -1) if descending else range(1, PERIOD + 1)):
        t = middle(bld, t, k, f"round 4r+{k}", "rkp", k - 1)
    body = dataclasses.replace(body, outputs=tuple(t))
    eliminate_dead_code(body)
    tail = Program(f"{name}_tail", layout.word_bits, prog.memories, inputs=state)
    bld.switch(tail)
    t = list(state)
    for i in order:
        if not descending and i not in rolled:
            t = middle(bld, t, i, f"round {i}", "rk", i)
    tail = _finish_core(tail, bld, layout, last(bld, t))
    loop = Loop(name, head, body, tail, times, "rkp", "rk", base=8, stride=8 * PERIOD, descending=descending)
    check_loop(loop)
    return loop


def _fixsliced_round(layout: Layout, sbox: Circuit, bld: Builder, s: list[str], i: int, label: str,
                     keys: str, index: int) -> list[str]:
    """Middle round i of fixsliced encryption, its round key at word-memory `keys` slot `index`."""
    e = i % 4
    bld.note(f"{label}: SubBytes, MixColumns in frame {e}, AddRoundKey")
    bld.prefix = f"r{i}_"
    s = sbox.apply(bld, s)
    s = layout.mix_columns(bld, s, e)
    bld.prefix = ""
    return layout.add_round_key(bld, s, keys, index)


def _fixsliced_inverse_round(layout: Layout, inv_sbox: Circuit, bld: Builder, s: list[str], i: int, label: str,
                             keys: str, index: int) -> list[str]:
    """Middle round i of fixsliced decryption (AddRoundKey first), its key at `keys` slot `index`."""
    s = layout.add_round_key(bld, s, keys, index)
    e = i % 4
    bld.note(f"{label}: InvMixColumns in frame {e}, InvSubBytes")
    bld.prefix = f"r{i}_"
    s = layout.inv_mix_columns(bld, s, e)
    s = inv_sbox.apply(bld, s)
    bld.prefix = ""
    return s


def fixsliced_encrypt(layout: Layout, key_bits: int, sbox: Circuit, unroll: str = "full") -> Program | Loop:
    """Encrypt B blocks from `in` to `out` (all loads come before any store, so in == out is fine)."""
    nr = rounds(key_bits)

    def first(bld, s):
        return layout.add_round_key(bld, s, "rk", 0)

    def middle(bld, s, i, label, keys, index):
        return _fixsliced_round(layout, sbox, bld, s, i, label, keys, index)

    def last(bld, s):
        bld.prefix = f"r{nr}_"
        if nr % 4 == 2:
            bld.note(f"round {nr}: ShiftRows^2 back to the true frame, SubBytes, AddRoundKey")
            s = [layout.shift_rows(bld, s[k], 2) for k in range(8)]
        else:
            bld.note(f"round {nr}: SubBytes, AddRoundKey (frame {nr % 4} is the true frame)")
        s = sbox.apply(bld, s)
        bld.prefix = ""
        return layout.add_round_key(bld, s, "rk", nr)

    return _core(layout, key_bits, f"aes{key_bits}_encrypt_fixslice{layout.word_bits}", unroll,
                 first, middle, last, descending=False)


def bitsliced_decrypt(layout: Layout, key_bits: int, inv_sbox: Circuit, unroll: str = "full") -> Program | Loop:
    """Decrypt B blocks with the straight inverse cipher: AddRoundKey, InvMixColumns,
    InvShiftRows, InvSubBytes per round, on plain (frame 0) round keys."""
    nr = rounds(key_bits)

    def inverse_round(bld, s, i, label, keys, index):
        s = layout.add_round_key(bld, s, keys, index)
        bld.note(f"{label}: " + ("InvMixColumns, " if i < nr else "") + "InvShiftRows, InvSubBytes")
        bld.prefix = f"r{i}_"
        if i < nr:
            s = layout.inv_mix_columns(bld, s, 0)
        s = [layout.shift_rows(bld, s[k], -1) for k in range(8)]
        s = inv_sbox.apply(bld, s)
        bld.prefix = ""
        return s

    def first(bld, s):
        return inverse_round(bld, s, nr, f"round {nr}", "rk", nr)

    def last(bld, s):
        return layout.add_round_key(bld, s, "rk", 0)

    return _core(layout, key_bits, f"aes{key_bits}_decrypt_bitslice{layout.word_bits}", unroll,
                 first, inverse_round, last, descending=True)


def fixsliced_decrypt(layout: Layout, key_bits: int, inv_sbox: Circuit, unroll: str = "full") -> Program | Loop:
    """Decrypt B blocks by running the fixsliced encryption backwards on the same
    (frame-shifted) round keys: InvMixColumns in frame i mod 4, no ShiftRows except
    the SR^2 that undoes the encryption's resynchronisation."""
    nr = rounds(key_bits)

    def first(bld, s):
        s = layout.add_round_key(bld, s, "rk", nr)
        bld.prefix = f"r{nr}_"
        if nr % 4 == 2:
            bld.note(f"round {nr}: InvSubBytes, ShiftRows^2 back into frame {(nr - 1) % 4}")
            s = inv_sbox.apply(bld, s)
            s = [layout.shift_rows(bld, s[k], 2) for k in range(8)]
        else:
            bld.note(f"round {nr}: InvSubBytes")
            s = inv_sbox.apply(bld, s)
        bld.prefix = ""
        return s

    def middle(bld, s, i, label, keys, index):
        return _fixsliced_inverse_round(layout, inv_sbox, bld, s, i, label, keys, index)

    def last(bld, s):
        return layout.add_round_key(bld, s, "rk", 0)

    return _core(layout, key_bits, f"aes{key_bits}_decrypt_fixslice{layout.word_bits}", unroll,
                 first, middle, last, descending=True)


def decrypt(layout: Layout, key_bits: int, algorithm: str, inv_sbox: Circuit, unroll: str = "full") -> Program | Loop:
    """The decryption core of `algorithm` (DECRYPT_ALGORITHMS)."""
    if algorithm == "fixslice":
        return fixsliced_decrypt(layout, key_bits, inv_sbox, unroll)
    return bitsliced_decrypt(layout, key_bits, inv_sbox, unroll)


# AES-128 and AES-256 end their middle rounds in frame 1 and resynchronise with SR^2;
# AES-192 ends in frame 3, the true frame of its last round.
_ENDS_IN_FRAME_1 = RoundTest("nr % 4 == 2", lambda nr, r: nr % 4 == 2)


class _Steps:
    """Builds the steps of a KeySizeLoop with one Builder, so no name repeats."""

    def __init__(self, name: str, bits: int, state: tuple[str, ...]):
        self.name, self.bits, self.state = name, bits, state
        self.bld = Builder(Program(f"{name}_names", bits, (), inputs=state))   # the state's names stay reserved

    def __call__(self, part: str, memories: tuple[Memory, ...], build, windows: tuple[Window, ...] = (),
                 when: RoundTest | None = None, takes: bool = True) -> Step:
        prog = Program(f"{self.name}_{part}", self.bits, memories, inputs=self.state if takes else ())
        self.bld.switch(prog)
        out = build(self.bld, list(self.state))
        self.bld.prefix = ""
        prog = dataclasses.replace(prog, outputs=tuple(out))
        eliminate_dead_code(prog)
        return Step(prog, windows, when)


def _window(name: str, words: int, base: int, per_trip: int = 0, per_round: int = 0,
            writable: bool = False) -> tuple[Memory, Window]:
    return Memory(name, "words", words, writable), Window(name, "rk", base, per_round, per_trip)


def _batch_parts(layout: Layout, name: str) -> tuple[tuple[str, ...], tuple[Memory, Memory, Memory], _Steps]:
    """A batch core's carried state (8 slices), its memories rk, in, out, and its step builder."""
    state = tuple(f"s{k}" for k in range(8))
    memories = (Memory("rk", "words", 8, False), Memory("in", "bytes", 16 * layout.blocks, False),
                Memory("out", "bytes", 16 * layout.blocks, True))
    return state, memories, _Steps(name, layout.word_bits, state)


def fixsliced_encrypt_any_size(layout: Layout, sbox: Circuit) -> KeySizeLoop:
    """Fixsliced encryption for every key size, the round count nr an argument: the loop
    runs fixslicing's period (rounds 4r+1..4r+4, frames 1, 2, 3, 0) and leaves after
    round nr-1, which ends in frame 1 (AES-128, -256) or 3 (AES-192); then SR^2 where
    the frame needs it, and the last round on key nr."""
    w = layout.word_bits
    name = f"encrypt_fixslice{w}_any_size"
    state, (rk, data_in, data_out), step = _batch_parts(layout, name)

    def first(bld, _):
        bld.note("pack the blocks into bit slices, round 0: AddRoundKey")
        bld.prefix = "in_"
        x = layout.pack(bld, "in")
        bld.prefix = ""
        return layout.add_round_key(bld, x, "rk", 0)

    def rounds_of(*frames: int, mem: str):
        def build(bld, s):
            for index, i in enumerate(frames):
                s = _fixsliced_round(layout, sbox, bld, s, i, f"round 4r+{i}", mem, index)
            return s
        return build

    def resync(bld, s):
        bld.note("AES-128, AES-256: ShiftRows^2 back to the true frame")
        bld.prefix = "last_"
        return [layout.shift_rows(bld, s[k], 2) for k in range(8)]

    def last(bld, s):
        bld.note("round nr: SubBytes, AddRoundKey, unpack the slices into blocks")
        bld.prefix = "last_"
        s = sbox.apply(bld, s)
        bld.prefix = ""
        s = layout.add_round_key(bld, s, "rkn", 0)
        bld.prefix = "out_"
        layout.unpack(bld, s, "out")
        return []

    m1, w1 = _window("rk1", 8, 8, per_trip=32)
    m23, w23 = _window("rk23", 16, 16, per_trip=32)
    m4, w4 = _window("rk4", 8, 32, per_trip=32)
    mn, wn = _window("rkn", 8, 0, per_round=8)
    loop = KeySizeLoop(
        name, w, state, ((rk, 8), (data_in, 0), (data_out, 0)),
        head=(step("head", (rk, data_in), first, takes=False),),
        body=(step("round1", (m1,), rounds_of(1, mem="rk1"), (w1,)),
              Exit(RoundTest("4 * r + 2 == nr", lambda nr, r: 4 * r + 2 == nr)),
              step("rounds23", (m23,), rounds_of(2, 3, mem="rk23"), (w23,)),
              Exit(RoundTest("4 * r + 4 == nr", lambda nr, r: 4 * r + 4 == nr)),
              step("round4", (m4,), rounds_of(4, mem="rk4"), (w4,))),
        tail=(step("resync", (), resync, when=_ENDS_IN_FRAME_1),
              step("last", (mn, data_out), last, (wn,))),
        trips=("(nr + 2) / 4", lambda nr: (nr + 2) // 4))
    check_key_size_loop(loop)
    return loop


def fixsliced_decrypt_any_size(layout: Layout, inv_sbox: Circuit) -> KeySizeLoop:
    """Fixsliced decryption for every key size, the round count nr an argument: round nr
    (SR^2 where encryption resynchronised), then the period backwards (rounds 4r+3..4r,
    frames 3, 2, 1, 0) from the top trip, whose rounds 4r+3 and 4r+2 AES-128 and -256
    do not have, down to round 1; then key 0."""
    w = layout.word_bits
    name = f"decrypt_fixslice{w}_any_size"
    state, (rk, data_in, data_out), step = _batch_parts(layout, name)

    def first(bld, _):
        bld.note("pack the blocks into bit slices; round nr: AddRoundKey, InvSubBytes")
        bld.prefix = "in_"
        x = layout.pack(bld, "in")
        bld.prefix = ""
        x = layout.add_round_key(bld, x, "rkn", 0)
        bld.prefix = "first_"
        return inv_sbox.apply(bld, x)

    def resync(bld, s):
        bld.note("AES-128, AES-256: ShiftRows^2 back into frame 1")
        bld.prefix = "first_"
        return [layout.shift_rows(bld, s[k], 2) for k in range(8)]

    def rounds_of(*frames: int, mem: str):
        def build(bld, s):
            for index, i in enumerate(frames):
                label = f"round 4r+{i}" if i else "round 4r"
                s = _fixsliced_inverse_round(layout, inv_sbox, bld, s, i or PERIOD, label, mem, len(frames) - 1 - index)
            return s
        return build

    def last(bld, s):
        bld.note("round 0: AddRoundKey; unpack the slices into blocks")
        s = layout.add_round_key(bld, s, "rk", 0)
        bld.prefix = "out_"
        layout.unpack(bld, s, "out")
        return []

    mn, wn = _window("rkn", 8, 0, per_round=8)
    m32, w32 = _window("rk32", 16, 16, per_trip=32)
    m1, w1 = _window("rk1", 8, 8, per_trip=32)
    m0, w0 = _window("rk0", 8, 0, per_trip=32)
    loop = KeySizeLoop(
        name, w, state, ((rk, 8), (data_in, 0), (data_out, 0)),
        head=(step("head", (mn, data_in), first, (wn,), takes=False),
              step("resync", (), resync, when=_ENDS_IN_FRAME_1)),
        body=(step("rounds32", (m32,), rounds_of(3, 2, mem="rk32"), (w32,),
                   when=RoundTest("4 * r + 4 <= nr", lambda nr, r: 4 * r + 4 <= nr)),
              step("round1", (m1,), rounds_of(1, mem="rk1"), (w1,)),
              Exit(RoundTest("r == 0", lambda nr, r: r == 0)),
              step("round0", (m0,), rounds_of(0, mem="rk0"), (w0,))),
        tail=(step("last", (rk, data_out), last),),
        trips=("(nr + 3) / 4", lambda nr: (nr + 3) // 4), descending=True)
    check_key_size_loop(loop)
    return loop


def pack_round_keys_any_size(layout: Layout, algorithm: str) -> tuple[KeySizeLoop, ...]:
    """pack_round_keys as two loops for every key size, the round count nr an argument
    (about a sixth of the code written out): every round key packed with the S-box
    constant folded in, one key per trip (its 16 bytes in, its 8 slices out), and the
    constant taken out of key 0 again after the loop; then, for fixslicing, the ShiftRows
    frames of keys 1..nr-1, which repeat every 4 keys, in place: keys 4r+1..4r+3 per
    trip (key 4r+4 is in frame 0), leaving after key nr-1 (4r+1 for AES-128 and -256,
    4r+3 for AES-192)."""
    w = layout.word_bits
    rkb, rk = Memory("rkb", "bytes", 16, False), Memory("rk", "words", 8, True)
    name = f"{algorithm}{w}_pack_keys_any_size"
    step = _Steps(name, w, ())

    def pack(bld, _):
        bld.note("round key r: packed, constant 0x63 folded in")
        bld.prefix = "k_"
        s = layout.pack(bld, "kb", 0, broadcast=True)
        for k in range(8):
            bld.stw("kw", k, bld.not_(s[k], hint=f"n{k}") if k in _SBOX_CONSTANT_SLICES else s[k])
        return []

    def unfold(bld, _):
        bld.note("round key 0 has no constant: taken out again")
        bld.prefix = "k0_"
        for k in _SBOX_CONSTANT_SLICES:
            bld.stw("rk", k, bld.not_(bld.ldw("rk", k, hint=f"s{k}"), hint=f"n{k}"))
        return []

    kb = (Memory("kb", "bytes", 16, False), Window("kb", "rkb", 0, 0, 16))
    kw = _window("kw", 8, 0, per_trip=8, writable=True)
    packing = KeySizeLoop(name, w, (), ((rkb, 16), (rk, 8)), head=(),
                          body=(step("body", (kb[0], kw[0]), pack, (kb[1], kw[1])),),
                          tail=(step("tail", (rk,), unfold),),
                          trips=("nr + 1", lambda nr: nr + 1))
    check_key_size_loop(packing)
    if algorithm != "fixslice":
        return (packing,)
    fname = f"{algorithm}{w}_key_frames_any_size"
    step = _Steps(fname, w, ())

    def frames(*keys: int, mem: str):
        def build(bld, _):
            for index, i in enumerate(keys):
                bld.note(f"round key 4r+{i}: ShiftRows^{-i}")
                bld.prefix = f"k{i}_"
                for k in range(8):
                    x = bld.ldw(mem, 8 * index + k, hint=f"s{k}")
                    bld.stw(mem, 8 * index + k, layout.shift_rows(bld, x, -i))
            return []
        return build

    m1, w1 = _window("kp1", 8, 8, per_trip=32, writable=True)
    m23, w23 = _window("kp23", 16, 16, per_trip=32, writable=True)
    shifts = KeySizeLoop(fname, w, (), ((rk, 8),), head=(),
                         body=(step("key1", (m1,), frames(1, mem="kp1"), (w1,)),
                               Exit(RoundTest("4 * r + 2 == nr", lambda nr, r: 4 * r + 2 == nr)),
                               step("keys23", (m23,), frames(2, 3, mem="kp23"), (w23,))),
                         tail=(), trips=("(nr + 2) / 4", lambda nr: (nr + 2) // 4))
    check_key_size_loop(shifts)
    return packing, shifts


def _xtime_packed(bld: Builder, x: str, hint: str) -> str:
    """Multiply four bytes packed in a 32-bit word by x in GF(2^8), without branches."""
    hi = bld.and_(bld.shr(x, 7, hint=hint), 0x01010101, hint=hint)
    lo = bld.and_(bld.shl(x, 1, hint=hint), 0xFEFEFEFE, hint=hint)
    # hi * 0x1b = hi ^ hi<<1 ^ hi<<3 ^ hi<<4 (no carries: each byte of hi is 0 or 1)
    r = bld.xor(lo, hi, hint=hint)
    for s in (1, 3, 4):
        r = bld.xor(r, bld.shl(hi, s, hint=hint), hint=hint)
    return r


def equivalent_inverse_keys(key_bits: int) -> Program:
    """Round keys for the equivalent inverse cipher (FIPS-197 5.3.5), as AES-NI style
    decryption needs them: dk_0 = k_Nr, dk_i = InvMixColumns(k_(Nr-i)), dk_Nr = k_0."""
    nr = rounds(key_bits)
    prog = Program(f"aes{key_bits}_equivalent_inverse_keys", 32, (
        Memory("rkb", "bytes", 16 * (nr + 1), False),
        Memory("drk", "bytes", 16 * (nr + 1), True),
    ))
    bld = Builder(prog)
    for i in range(nr + 1):
        src = nr - i
        bld.note(f"dk{i} = " + (f"InvMixColumns(k{src})" if 0 < i < nr else f"k{src}"))
        for col in range(4):
            bld.prefix = f"dk{i}c{col}_"
            x = bld.ld("rkb", 16 * src + 4 * col, 32, hint="k")
            if 0 < i < nr:
                # c = a + rho a, d = a + 2c, f = c + 4d, out = d + f + rho^2 f (rho: next row)
                c = bld.xor(x, bld.ror(x, 8, hint="r"), hint="c")
                d = bld.xor(x, _xtime_packed(bld, c, "x"), hint="d")
                f = bld.xor(c, _xtime_packed(bld, _xtime_packed(bld, d, "y"), "z"), hint="f")
                x = bld.xor(bld.xor(d, f, hint="o"), bld.ror(f, 16, hint="r2"), hint="o")
            bld.st("drk", 16 * i + 4 * col, 32, x)
    bld.prefix = ""
    eliminate_dead_code(prog)
    return prog


def reversed_round_keys(key_bits: int) -> Program:
    """The encryption round keys in reverse order, for decryption instructions that add
    the round key before InvMixColumns (POWER vncipher, SPARC aes_dround*)."""
    nr = rounds(key_bits)
    prog = Program(f"aes{key_bits}_reversed_round_keys", 32, (
        Memory("rkb", "bytes", 16 * (nr + 1), False),
        Memory("drk", "bytes", 16 * (nr + 1), True),
    ))
    bld = Builder(prog)
    for i in range(nr + 1):
        for col in range(4):
            bld.st("drk", 16 * i + 4 * col, 32, bld.ld("rkb", 16 * (nr - i) + 4 * col, 32, hint=f"k{nr - i}c{col}"))
    eliminate_dead_code(prog)
    return prog
