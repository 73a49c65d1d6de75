"""Emitter `x86_64_aes`: AES-NI / VAES loops for x86-64 (GNU as), plus their C side.

Per variant (one key size, one direction) the .S file holds the mode loops and the .c
file the descriptor. The key set-up (aeskeygenassist, aesimc) is one shared file,
common/x86_64_aes_setkey.S, for every variant of every x86-64 target. Each loop
interleaves N vectors per iteration with rounds fully unrolled; the key policy comes
from `regplan.plan`. A rolled variant (unroll "loop1") runs rounds 1..Nr-1 as a round
loop (one round per trip; two for at most two vectors and in GCM chunks) over the
anchored schedule (hwloop.anchored_schedule, set up by
common/x86_64_aes_setkey_anchored.S), so its functions are the same for every key size
and live once in common/<target>_<how>_<direction>.S. What is left runs in halves (N/2, N/4, ... 1 vectors, each at most
once), then one block at a time. Modes: ECB, CBC, CTR and XTS (the tweaks by shifts and
a carry-less multiply); CBC lanes functions; and, where the register plan holds them,
stitched GCM functions (the CTR rounds with algorithm/ghash.py's update, translated by
GhashSide, spread over them: merge_rounds). Every function is executed in the model (machine/x86_64.py) on
block counts around every loop boundary, in place and out of place, before anything is
written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .. import reference, regplan
from ..machine import x86_64 as machine
from ..ir import Program
from ..machine.abi import SYSV
from ..machine.common import Instr, Memory
from ..machine.objdump import ABSOLUTE
from ..machine.x86_64 import G, Imm, M, V
from ..passes import fuse_ternary, hoist_logic
from ..regplan import Need, Plan, PlanError
from ..space import Space
from ..targets import Field, Target, one_of
from .hwloop import (DIRECTION_MODES, HW_UNROLLS, ROUND_LOOP_STARTS, TAIL_ROUNDS, anchored_offset, anchored_rounds,
                     Asm, BlockLoop, Built, Function, HwLoopEmitter, Stage)

KIND = {128: "xmm", 256: "ymm", 512: "zmm"}
RK, OUT, IN, N, IV = (G(r) for r in SYSV.loop_args)
PTR, OFF = G("rax"), G("r9")   # caller-saved scratch: a lane's pointer, the offset into every lane
UNITS = G(SYSV.args[5])        # an XTS units function's count of data units
UNIT_LEFT = G("r10")           # caller-saved scratch: the blocks left of the current unit
SLOT, SLOT_END = G("r10"), G("r11")   # caller-saved scratch: a lanes function's parked step, and past the last
ROUND = G("r11")               # caller-saved scratch: a round loop's offset from the last round key
                               # (rolled plans only: no transposed lanes, so SLOT_END is unused)
START = G("r10")               # a rolled function's round-loop start, read once at entry (not in an
                               # XTS units function, whose UNIT_LEFT it is): a round loop's first key
                               # address then waits for no load (Zen 5, CTR of 16 B: 1.10-1.13x)
# A round loop's rounds per trip: 2 where a trip has at most PAIRED_VECTORS vectors (one
# round per trip made CTR of 64 B on Zen 5 0.75x full unrolling; 2, 0.94x) and in a GCM
# chunk (the stitched hash waits less: vaes256-avx512vl seal of 8 KiB 0.88x -> 0.92x),
# else 1 (the loop's overhead hides behind more AES ops; 2 everywhere would add 12 KB to
# the small library).
PAIRED_VECTORS = 2
CONST = ".Lconst"          # local read-only table of the file
XTS_POLY = 0x87            # x^128 reduced (IEEE 1619: little-endian bytes)
XTS_MAX_SHIFT = 56         # k bits shifted out, times 0x87, must fit the product's 64 bits


@dataclass(frozen=True)
class Isa:
    encoding: str
    vector_bits: int
    registers: int
    latency: int
    issue: int
    key_memory_operand: bool

    @property
    def kind(self) -> str:
        return KIND[self.vector_bits]

    @property
    def lanes(self) -> int:
        return self.vector_bits // 128


class Constants:
    """The read-only table: byte-reverse masks and counter increments, 64-byte aligned."""

    def __init__(self, lanes: int):
        self.lanes = lanes
        self.items: list[tuple[str, bytes]] = []
        self.offsets: dict[str, int] = {}

    def get(self, name: str, data: bytes) -> M:
        if name not in self.offsets:
            self.offsets[name] = sum(len(d) for _, d in self.items)
            self.items.append((name, data))
        return M(None, self.offsets[name], CONST)

    def vector(self, name: str, lane_values: list[bytes]) -> M:
        data = b"".join(lane_values)
        return self.get(name, data + bytes((-len(data)) % 64))

    def bswap(self) -> M:
        return self.vector("byte reversal of each 128-bit lane", [bytes(range(15, -1, -1))] * self.lanes)

    def counter_add(self, first: int, name: str) -> M:
        """Lane l gets first + l added to its low 64 bits."""
        return self.vector(name, [(first + l).to_bytes(8, "little") + bytes(8) for l in range(self.lanes)])

    def uniform_add(self, n: int) -> M:
        return self.vector(f"add {n} to every lane", [n.to_bytes(8, "little") + bytes(8)] * self.lanes)

    def xts_poly(self) -> M:
        return self.vector("XTS reduction: x^128 = 0x87, in the low half of every lane",
                           [XTS_POLY.to_bytes(8, "little") + bytes(8)] * self.lanes)

    def lane_shifts(self, left: bool, first: int = 0) -> M:
        """Per-lane shift counts: lane l shifts both halves left by first + l, or right by
        64 - (first + l)."""
        by = f"{first} + l" if first else "l"
        name = f"lane l: shift left by {by}" if left else \
            f"lane l: shift right by 64 - {f'({by})' if first else by}"
        counts = [first + l if left else 64 - first - l for l in range(self.lanes)]
        return self.vector(name, [c.to_bytes(8, "little") * 2 for c in counts])


class LoopEmitter(BlockLoop):
    """A plan register is a vector register of the iteration's shape (xmm/ymm/zmm); the
    loop runs N vectors, then one vector, then (vectors wider than a block) one block."""

    def __init__(self, isa: Isa, key_bits: int, decrypt: bool, plan, asm, consts: Constants):
        super().__init__(key_bits, decrypt, plan, asm)
        self.isa, self.consts = isa, consts
        self.mask: V | None = None     # the byte-reversal mask, where the plan keeps it
        self.round_loops = 0           # numbers the round loops' labels
        self.round_pieces = 1          # loops the middle rounds are split into (rolled plans)
        self.hoist_start = True        # a rolled function reads its round loops' start into START at entry
        self.paired = False            # every round loop two rounds per trip (a GCM chunk's)
        self.loop_ends: list[int] = [] # where each round loop of the last middle_rounds ended in asm.code

    def keep_mask(self, aux: int) -> None:
        """Hold the byte-reversal mask in plan register aux[aux], if the plan has one:
        every vpshufb reading its 64-byte mask from memory made CTR on Zen 5 1.15x slower
        at 1 KiB (AES-256)."""
        if len(self.plan.aux) > aux:
            self.mask = self.v(self.plan.aux[aux])
            self.kt.clobber(self.mask.n, "constant")
            self.asm("load", self.mask, self.consts.bswap(), note="byte reversal, kept in a register")

    def bswap(self, kind: str):
        """The byte-reversal mask as an operand of this shape."""
        return self.mask.view(kind) if self.mask is not None else self.consts.bswap()

    def reg(self, idx: int, shape: str | None = None) -> V:
        return V(shape or self.isa.kind, idx)

    v = reg

    def memory_key(self, shape) -> bool:
        # a VEX/EVEX 16-byte op may read its key unaligned from memory; legacy SSE may not
        return self.plan.memory_operands or (shape == "xmm" and self.isa.encoding != "sse")

    def key_offset(self, rnd: int) -> int:
        """Round key rnd's offset in the schedule: anchored for a rolled loop."""
        return anchored_offset(rnd, self.nr) if self.plan.rolled else 16 * rnd

    def key_memory(self, rnd: int) -> M:
        return M(RK, self.key_offset(rnd))

    def load_key(self, reg: V, rnd: int, note: str = "") -> None:
        self.asm("bcast", reg, M(RK, self.key_offset(rnd)), note=note)

    def stages(self) -> list[Stage]:
        """N vectors per iteration; then what is left in halves (N/2, N/4, ... vectors, each
        at most once: a short message's vectors in one pass rather than one vector per
        iteration), then one block at a time."""
        p, lanes = self.plan, self.isa.lanes
        nvec, kind = len(p.data), self.isa.kind
        halves = [1 << i for i in range((nvec - 1).bit_length() - 1, -1, -1)] if nvec > 1 else []
        tails = [Stage(list(p.data[:k]), k * lanes, loop="vector" if k == 1 else f"vectors{k}",
                       entry="tail_vector" if k == 1 else f"tail_vectors{k}", shape=kind) for k in halves]
        return [Stage(list(p.data), nvec * lanes, shape=kind), *tails,
                Stage([p.data[0]], 1, loop="block", entry="tail_block", shape="xmm", countdown=True,
                      present=lanes > 1)]

    def entry(self) -> None:
        self.asm("endbr64")
        if self.plan.rolled and self.hoist_start:
            self.asm("loadg", START, self._round_start(), note="the round loops' start, from the schedule")

    def _round_start(self) -> M:
        """Where the anchored schedule holds the first round loop's start."""
        return M(RK, ROUND_LOOP_STARTS + (0 if self.round_pieces == 1 else 8))

    def loop_head(self, n: int, exit) -> None:
        self.asm("cmpg", N, Imm(n))
        self.asm("jb", exit)

    def advance(self, n: int) -> None:
        self.asm("addg", IN, Imm(16 * n))
        self.asm("addg", OUT, Imm(16 * n))
        self.asm("subg", N, Imm(n))

    def loop_back(self, n: int, top) -> None:
        self.asm("cmpg", N, Imm(n))
        self.asm("jae", top)

    def skip_if_none(self, label) -> None:
        self.asm("testg", N, N)
        self.asm("jz", label)

    def count_down_one(self, top) -> None:
        self.asm("addg", IN, Imm(16))
        self.asm("addg", OUT, Imm(16))
        self.asm("subg", N, Imm(1))
        self.asm("jnz", top)

    def ret(self) -> None:
        if self.isa.encoding != "sse":
            self.asm("vzeroupper")
        self.asm("ret")

    def load_block_by_halves(self, dst: V, mem: M, note: str = "") -> None:
        """dst = the 16 bytes at mem, read as two 8-byte halves, in every lane: a counter or
        tweak the caller wrote as two 8-byte stores then forwards from them (a 16-byte
        load of two stores waits for both to reach the cache)."""
        x = dst.view("xmm")
        self.asm("loadlo", x, mem, note=note)
        self.asm("loadhi", x, x, mem.offset(8))
        if dst.kind != "xmm":
            self.asm("dup128", dst, dst, note="in every lane")

    def xor(self, dst: V, a, b) -> None:
        """dst = a ^ b; SSE needs dst == a and an aligned memory operand (never `in`)."""
        if self.isa.encoding == "sse" and dst != a:
            if isinstance(a, M):
                self.asm("load", dst, a)
            else:
                self.asm("mov", dst, a)
        self.asm("xor", dst, dst if self.isa.encoding == "sse" else a, b)

    def load_xor(self, dst: V, mem: M, other) -> None:
        """dst = [mem] ^ other, mem possibly unaligned."""
        if self.isa.encoding == "sse" or isinstance(other, M):
            self.asm("load", dst, mem)
            self.asm("xor", dst, dst, other)
        else:
            self.asm("xor", dst, other, mem)

    # -- the rounds
    def middle_rounds(self, datas: list[V]) -> None:
        op = "aesdec" if self.decrypt else "aesenc"
        if self.plan.rolled:
            self.loop_ends = []
            start = START if self.hoist_start else self._round_start()
            if self.round_pieces == 1:
                self._round_loop(op, datas, 1, self.nr - 1, start)
            else:
                self._round_loop(op, datas, 1, self.nr - 1 - TAIL_ROUNDS, start)
                self._round_loop(op, datas, self.nr - TAIL_ROUNDS, self.nr - 1, Imm(-16 * TAIL_ROUNDS))
            return
        for rnd in range(1, self.nr):
            k = self.key(rnd, datas[0].kind)
            for d in datas:
                self.asm(op, d, d, k, key=("key", rnd))

    def _round_loop(self, op: str, datas: list[V], first: int, last: int, start) -> None:
        """Rounds first..last as a loop, one or two rounds of every vector per trip:
        ROUND runs from -16 (last - first + 1) up to 0 (start: that number, START holding
        it, or where the anchored schedule does), so that the key is at the offset after
        round last's plus ROUND, the same for every key size, and the add that steps it
        also ends the loop. A count the trips do not divide (the same for every key size:
        counts differ by even numbers) has its first round before the loop."""
        a, kind = self.asm, datas[0].kind
        self.round_loops += 1
        top = a.label(f"rounds{self.round_loops}")
        base = self.key_offset(last) + 16
        per_trip = 2 if self.paired or len(datas) <= PAIRED_VECTORS else 1
        peel = (last - first + 1) % per_trip
        if isinstance(start, Imm):
            for i in range(peel):
                self._loop_round(op, datas, M(RK, base + start.value + 16 * i), ("key", first + i))
            a("movg", ROUND, Imm(start.value + 16 * peel),
              note=f"round loop over the last {-start.value // 16 - peel} middle keys")
        else:
            if isinstance(start, G):
                a("movg", ROUND, start, note="round loop from k1")
            else:
                a("loadg", ROUND, start, note="round loop from k1: its start, from the schedule")
            for i in range(peel):
                self._loop_round(op, datas, M(RK, base + 16 * i, index=ROUND), ("key", first + i))
            if peel:
                a("addg", ROUND, Imm(16 * peel))
        a.place(top)
        for i in range(per_trip):
            self._loop_round(op, datas, M(RK, base + 16 * i, index=ROUND), ("keys", first + peel, last))
        a("addg", ROUND, Imm(16 * per_trip))
        a("jnz", top)
        self.loop_ends.append(len(a.code))

    def _loop_round(self, op: str, datas: list[V], key: M, tag: tuple) -> None:
        """One round of every vector with the key at `key`: a memory operand, or broadcast
        into the plan's rotating register (renamed, so the next round may reuse it)."""
        kind = datas[0].kind
        if not self.memory_key(kind):
            reg = self.v(self.plan.rotating[0], kind)
            self.kt.clobber(reg.n, "the round loop's key")
            self.asm("bcast", reg, key)
            key = reg
        for d in datas:
            self.asm(op, d, d, key, key=tag)

    def last_round(self, datas: list[V], fold=None, after=None) -> None:
        """Final round; fold(j) returns a memory operand to XOR into block vector j's
        output, folded into the last round key through a temporary (aesenclast(k ^ x) =
        aesenclast(k) ^ x); after(j), where given, emits what follows vector j's op."""
        op = "aesdeclast" if self.decrypt else "aesenclast"
        kind = datas[0].kind
        k = self.key(self.nr, kind)
        if fold is None:
            for d in datas:
                self.asm(op, d, d, k, key=("key", self.nr))
            return
        temps = self.plan.temps
        for j, d in enumerate(datas):
            t = self.v(temps[j % len(temps)], kind)
            self.kt.clobber(t.n, "temp")
            src = fold(j, t)
            self.load_xor(t, src, k) if isinstance(src, M) else self.xor(t, src, k)
            self.asm(op, d, d, t, key=("key^data", self.nr))
            if after:
                after(j)


def _span(kind: str) -> int:
    return {"xmm": 16, "ymm": 32, "zmm": 64}[kind]


def emit_ecb(em: LoopEmitter) -> None:
    def body(regs, kind):
        span = _span(kind)
        datas = [em.v(r, kind) for r in regs]
        k0 = em.key(0, kind)          # once per iteration, also when streamed
        for j, d in enumerate(datas):
            em.kt.clobber(d.n)
            em.load_xor(d, M(IN, j * span), k0)
        em.middle_rounds(datas)
        em.last_round(datas)
        for j, d in enumerate(datas):
            em.asm("store", M(OUT, j * span), d)
        em.restore_borrowed()
    em.parallel(body)


def ctr_setup(em: LoopEmitter, ctr: V) -> None:
    """ctr = a little-endian copy of the counter block, lane l holding counter + l."""
    isa, consts = em.isa, em.consts
    em.kt.clobber(ctr.n, "counter")
    em.load_block_by_halves(ctr, M(IV, 0), note="the counter block")
    if isa.encoding == "sse":
        em.asm("shufb", ctr, ctr, em.bswap(ctr.kind))
    else:
        em.asm("shufb", ctr, ctr, em.bswap(ctr.kind), note="to little-endian")
    em.asm("addq", ctr, ctr, consts.counter_add(0, "lane l: +l"))


def ctr_blocks(em: LoopEmitter, ctr: V, regs, kind: str) -> None:
    """One iteration of CTR over the data registers `regs`: counter blocks, the rounds,
    the final XOR with the input folded into the last round key, the stores; ctr moves
    on past them."""
    isa, consts = em.isa, em.consts
    span = _span(kind)
    lanes = span // 16
    datas = [em.v(r, kind) for r in regs]
    c = ctr.view(kind)
    k0 = em.key(0, kind)
    for j, d in enumerate(datas):
        em.kt.clobber(d.n)
        if j == 0:
            if isa.encoding == "sse":
                em.asm("mov", d, c)
            else:
                em.asm("shufb", d, c, em.bswap(kind))
        else:
            inc = consts.uniform_add(j * isa.lanes)   # lane l of ctr is already counter + l
            if isa.encoding == "sse":
                em.asm("mov", d, c)
                em.asm("addq", d, d, inc)
            else:
                em.asm("addq", d, c, inc)
        if isa.encoding == "sse" or j > 0:
            em.asm("shufb", d, d, em.bswap(kind))
        em.xor(d, d, k0)
    step = len(datas) * lanes
    em.asm("addq", ctr, ctr, consts.uniform_add(step))
    em.middle_rounds(datas)
    em.last_round(datas, fold=lambda j, t: M(IN, j * span))
    for j, d in enumerate(datas):
        em.asm("store", M(OUT, j * span), d)
    em.restore_borrowed()


def emit_ctr(em: LoopEmitter) -> None:
    """Counter blocks from a little-endian copy of the counter in `ctr` (lane l holds
    counter + l); the caller guarantees no carry out of the low 64 bits in this call."""
    ctr = em.v(em.plan.aux[0])

    def setup():
        em.keep_mask(1)
        ctr_setup(em, ctr)
    em.parallel(lambda regs, kind: ctr_blocks(em, ctr, regs, kind), setup)


def emit_cbc_decrypt(em: LoopEmitter) -> None:
    """Parallel CBC decryption: P_k = D(C_k) ^ C_(k-1), the XOR folded into the last round
    key. `chain` holds the previous ciphertext block in every lane; the body reads all
    ciphertext it needs before its first store, so out == in is fine."""
    chain = em.v(em.plan.aux[0])

    def setup():
        em.kt.clobber(chain.n, "chain")
        em.asm("bcast", chain, M(IV, 0), note="IV in every lane")

    def body(regs, kind):
        span = _span(kind)
        datas = [em.v(r, kind) for r in regs]
        k0 = em.key(0, kind)
        for j, d in enumerate(datas):
            em.kt.clobber(d.n)
            em.load_xor(d, M(IN, j * span), k0)
        em.middle_rounds(datas)

        def previous(j, t):
            if j > 0:
                return M(IN, j * span - 16)
            if kind == "xmm":
                return chain.view("xmm")
            em.asm("load", t, M(IN, 0))
            em.asm("lshift", t, t, chain.view(kind), note="the block before each block")
            return t
        em.last_round(datas, fold=previous)
        em.asm("bcast", chain, M(IN, len(datas) * span - 16), note="last ciphertext block, before any store")
        for j, d in enumerate(datas):
            em.asm("store", M(OUT, j * span), d)
        em.restore_borrowed()

    def finish():
        em.asm("store", M(IV, 0), chain.view("xmm"), note="chaining value for the next call")
    em.parallel(body, setup, finish)


def xts_carries_tweaks(registers: int, n: int, rounds: int, rolled: bool = False) -> bool:
    """Whether an XTS iteration of n vectors keeps one tweak register per vector from one
    iteration to the next (n data, n tweaks, one temporary, every round key resident, or
    for a round loop k0, kNr and its key register); otherwise the tweaks are made from
    the first vector's and parked in the output."""
    keys = regplan.ROLLED_KEY_REGISTERS if rolled else rounds + 1
    return 2 * n + 1 + keys <= registers


def emit_xts(em: LoopEmitter) -> None:
    """XTS over whole blocks of one data unit: C_j = E(P_j ^ T_j) ^ T_j with T_j = T * x^j
    (decryption the same with D). iv[] holds the first block's tweak and is left holding
    the tweak after the last. Two forms, by the plan:

    carried  (one tweak register per vector, 32 registers) the tweaks stay in registers
             from the first XOR to the last; every product is a whole number of bytes (a
             byte shift each way and one carry-less product); the first XOR takes the key
             and the input in one VPTERNLOGQ: 6 vector operations besides the rounds per
             vector instead of 8, and no store and reload.
    parked   (16 registers) vector j's tweaks are tw * x^(lanes j) from the first
             vector's `tw`, parked in the output block until the final round reads them
             back; every input block is read before its own output block is written, so
             out == in is fine.
    Both fold the final XOR into the last round key."""
    if xts_carries_tweaks(em.isa.registers, len(em.plan.data), em.nr, em.plan.rolled):
        _emit_xts_carried(em)
    else:
        _emit_xts_parked(em)


class _Tweaks:
    """Tweak products dst = src * x^k in each 128-bit lane of an XTS loop."""

    def __init__(self, em: LoopEmitter):
        self.em, self.sse = em, em.isa.encoding == "sse"

    def copy(self, dst: V, src: V) -> None:
        if dst != src:
            self.em.asm("mov", dst, src)

    def shift(self, op: str, dst: V, src: V, amount) -> None:
        if self.sse:             # in place only
            self.copy(dst, src)
            src = dst
        self.em.asm(op, dst, src, amount)

    def times_x(self, dst: V, src: V, k: int, scratch: list[V], per_lane: bool = False) -> None:
        """k a whole number of bytes up to 64: the bytes shifted out of the lane, times 0x87,
        come back in one product (one scratch register; dst may be src). Otherwise (and
        per_lane: lane l by x^(k + l)) the bits each half loses, the top half's times 0x87
        (two scratch registers, neither of them dst or src; k <= XTS_MAX_SHIFT, need()
        refuses more)."""
        em, consts = self.em, self.em.consts
        for r in scratch:
            em.kt.clobber(r.n, "temp")
        if not per_lane and k % 8 == 0 and 0 < k <= 64:
            t = scratch[0]
            self.shift("bshr", t, src, Imm(16 - k // 8))
            em.asm("clmul", t, t, consts.xts_poly(), Imm(0x00), note=f"the top {k} bits times 0x87")
            self.shift("bshl", dst, src, Imm(k // 8))
            em.xor(dst, dst, t)
            return
        s, p = scratch[:2]
        variable = per_lane
        self.shift("shrvq" if variable else "shrq", s, src,
                   consts.lane_shifts(False, k) if variable else Imm(64 - k))
        if self.sse:
            self.copy(p, s)
        em.asm("clmul", p, p if self.sse else s, consts.xts_poly(), Imm(0x01),
               note="the top half's carries times 0x87")
        self.shift("bshl", s, s, Imm(8))
        self.shift("shlvq" if variable else "shlq", dst, src,
                   consts.lane_shifts(True, k) if variable else Imm(k))
        if em.isa.encoding == "evex":
            em.asm("xor3", dst, s, p)
        else:
            em.xor(dst, dst, s)
            em.xor(dst, dst, p)


def _emit_xts_carried(em: LoopEmitter) -> None:
    body, setup, finish, enter = _xts_carried_parts(em)
    em.parallel(body, setup, finish, enter=enter)


def _xts_carried_parts(em: LoopEmitter):
    """(body, setup, finish, enter) of the carried form. Lane 0 of tws[0] holds the next block's tweak at every stage's entry and exit. The
    first c vectors' tweaks (c = 8 / gcd(8, lanes): 2 for zmm, 4 for ymm) are the base:
    a counted stage spreads tws[0] on entry (lane l times x^l) and derives the rest of
    the base from it; every iteration derives vector j >= c from base vector j mod c, a
    whole number of bytes away (one product each), and steps the base by x^(blocks of
    the iteration) after its last use. A unit shorter than a vector goes straight to the
    one-block stage, which waits on no tweak product."""
    isa, lanes = em.isa, em.isa.lanes
    tws = [em.v(r) for r in em.plan.aux]
    temp = em.plan.temps[0]
    tweaks = _Tweaks(em)
    base = 8 // math.gcd(8, lanes)

    def scratch(kind: str, free: list[int]) -> list[V]:
        return [em.v(r, kind) for r in [temp, *free]]

    def setup():
        em.kt.clobber(tws[0].n, "tweak")
        em.load_block_by_halves(tws[0].view("xmm"), M(IV, 0), note="the first block's tweak")

    def enter(stage: Stage):
        kind, k = stage.shape, len(stage.regs)
        free = scratch(kind, em.plan.data)     # no block is loaded yet
        if lanes > 1:
            em.asm("dup128", tws[0], tws[0], note="in every lane")
        # each base vector one product away from the tweak (lane l of vector j: x^(lanes j + l)),
        # tws[0] last, in place
        for j in reversed(range(min(base, k))):
            if lanes > 1 or j > 0:
                tweaks.times_x(tws[j].view(kind), tws[0].view(kind), lanes * j, free, per_lane=lanes > 1)
            em.kt.clobber(tws[j].n, "tweak")

    def body(regs, kind):
        span = _span(kind)
        blocks = len(regs) * span // 16
        datas = [em.v(r, kind) for r in regs]
        mine = [t.view(kind) for t in tws[:len(regs)]]
        bases = min(base, len(regs))
        for j in range(bases, len(regs)):
            tweaks.times_x(mine[j], mine[j % base], lanes * (j - j % base), scratch(kind, []))
            em.kt.clobber(mine[j].n, "tweak")
        k0 = em.key(0, kind)
        for j, d in enumerate(datas):
            em.kt.clobber(d.n)
            if isa.encoding == "evex":
                em.asm("load", d, M(IN, j * span))
                em.asm("xor3", d, mine[j], k0)     # k0 may be a memory operand: the third
            else:
                em.load_xor(d, M(IN, j * span), mine[j])
                em.xor(d, d, k0)
        em.middle_rounds(datas)
        # a step of whole bytes needs only the temporary: each base tweak steps right
        # after its last use (measured: 10% faster than after the stores, which delays the
        # next iteration's first XORs); a step of bits waits for every block's store
        bytewise = blocks % 8 == 0 and blocks <= 64

        def step(j):
            if j < bases:
                tweaks.times_x(mine[j], mine[j], blocks, scratch(kind, []))
        em.last_round(datas, fold=lambda j, _: mine[j], after=step if bytewise else None)
        for j, d in enumerate(datas):
            em.asm("store", M(OUT, j * span), d)
        if not bytewise:
            free = scratch(kind, em.plan.data)     # every block is stored
            for t in mine[:bases]:
                tweaks.times_x(t, t, blocks, free)
        em.restore_borrowed()

    def finish():
        em.asm("store", M(IV, 0), tws[0].view("xmm"), note="the tweak of the next block")
    return body, setup, finish, enter


def _xts_units_loop(em: LoopEmitter, body, setup, enter) -> None:
    """Many data units, each a whole number of iterations of the first stage: iv points
    at the units' encrypted tweaks (16 bytes each), UNITS counts them, N is each unit's
    blocks; per unit, the set-up and stage entry on its tweak, then its iterations."""
    a, main = em.asm, em.stages()[0]
    em.hoist_start = False
    em.entry()
    em.load_resident_keys()
    unit = a.label("unit")
    a.place(unit)
    setup()
    enter(main)
    a("movg", UNIT_LEFT, N, note="the unit's blocks")
    top = a.label("loop")
    a.place(top)
    em.check_keys_valid("loop head")
    body(main.regs, main.shape)
    a("addg", IN, Imm(16 * main.blocks))
    a("addg", OUT, Imm(16 * main.blocks))
    a("subg", UNIT_LEFT, Imm(main.blocks))
    em.check_keys_valid("loop back edge")
    a("jnz", top)
    a("addg", IV, Imm(16), note="the next unit's tweak")
    a("subg", UNITS, Imm(1))
    a("jnz", unit)
    em.ret()


def emit_xts_units(em: LoopEmitter) -> None:
    """XTS over `count` data units of N blocks each (N a positive multiple of the
    iteration's blocks, count >= 1), unit i's encrypted tweak at iv + 16 i: the
    many-sector call's loop, one call for a group of sectors, so that no unit pays a
    call, the key loads and the stage checks. The carried form's iteration; iv[] is
    read only."""
    body, setup, _, enter = _xts_carried_parts(em)
    _xts_units_loop(em, body, setup, enter)


def _emit_xts_parked(em: LoopEmitter) -> None:
    """Vector j's tweaks are tw * x^(lanes j) from the iteration's first vector `tw` (no
    chain between vectors), parked in the output block until the final round."""
    isa = em.isa
    tw = em.v(em.plan.aux[0])
    s_, p_ = (em.v(r) for r in em.plan.temps[:2])
    sse = isa.encoding == "sse"
    tweaks = _Tweaks(em)

    def body(regs, kind):
        span = _span(kind)
        lanes = span // 16
        datas = [em.v(r, kind) for r in regs]
        t = tw.view(kind)
        k0 = em.key(0, kind)
        scratch = [s_.view(kind), p_.view(kind)]
        for j, d in enumerate(datas):
            em.kt.clobber(d.n)
            tweak = t
            if j > 0:
                tweaks.times_x(d, t, lanes * j, scratch)
                tweak = d
            x = s_.view(kind) if tweak == d else d    # the input is read before out is written
            em.kt.clobber(x.n, "temp")
            if sse:    # an unaligned input must be loaded before it is XORed
                em.asm("load", x, M(IN, j * span))
                em.asm("store", M(OUT, j * span), tweak, note="parked until the final round")
                em.xor(d, d, tweak if x == d else x)
                em.xor(d, d, k0)
            else:
                em.asm("xor", x, tweak, M(IN, j * span))
                em.asm("store", M(OUT, j * span), tweak, note="parked until the final round")
                em.xor(d, x, k0)
        tweaks.times_x(t, t, lanes * len(datas), scratch)
        em.middle_rounds(datas)
        em.last_round(datas, fold=lambda j, _: M(OUT, j * span))
        for j, d in enumerate(datas):
            em.asm("store", M(OUT, j * span), d)
        em.restore_borrowed()

    def setup():
        em.kt.clobber(tw.n, "tweak")
        em.load_block_by_halves(tw, M(IV, 0), note="the first block's tweak")
        if isa.lanes > 1:
            tweaks.times_x(tw, tw, 0, [s_, p_], per_lane=True)

    def finish():
        em.asm("store", M(IV, 0), tw.view("xmm"), note="the tweak of the next block")
    em.parallel(body, setup, finish)


ROUND_CONSTANTS = (0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36)
SETKEY_ENCODING = "sse"    # the one key set-up every variant shares runs on plain AES-NI


def emit_setkey(asm: Asm, key_bits: int, decrypt: bool, anchored: bool = False) -> None:
    """The key schedule on xmm registers with aeskeygenassist: four words at a time, each
    the prefix XOR of the four Nk words back (two shufps against a register whose word 0
    stays zero, two pxor) XORed with the broadcast word aeskeygenassist made
    (RotWord(SubWord) ^ rcon, or SubWord alone for AES-256's middle words). AES-192's
    six-word steps are regrouped into round keys with shufps. Decryption writes the
    equivalent inverse cipher's keys: reversed, the middle ones through aesimc. No table
    and no branch: constant time. The registers are cleared before the return. anchored:
    the rolled loops' layout (hwloop.anchored_schedule), its unused slots cleared (no
    earlier key's material stays in a context keyed again) and its round loop starts
    written."""
    nr = reference.rounds_for(key_bits)
    at = (lambda p: anchored_offset(p, nr)) if anchored else (lambda p: 16 * p)
    rk, key = RK, G(SYSV.args[1])
    a, b, t, zero, imc, prev, out = (V("xmm", n) for n in (0, 2, 1, 4, 5, 3, 6))
    rcons = iter(ROUND_CONSTANTS)

    def store(rnd: int, reg: V) -> None:
        if not decrypt:
            asm("store", M(rk, at(rnd)), reg, note=f"k{rnd}")
            return
        if 0 < rnd < nr:
            asm("aesimc", imc, reg)
            reg = imc
        asm("store", M(rk, at(nr - rnd)), reg, note=f"k{rnd}")

    def next_words(dst: V, src: V, rcon: int, word: int) -> None:
        """dst = the next four words: prefix XOR of dst, ^ word `word` of aeskeygenassist(src)."""
        asm("keygenassist", t, src, Imm(rcon))
        asm("pshufd", t, t, Imm(0x55 * word))
        asm("shufps", zero, zero, dst, Imm(0x10))
        asm("xor", dst, dst, zero)
        asm("shufps", zero, zero, dst, Imm(0x8C))
        asm("xor", dst, dst, zero)
        asm("xor", dst, dst, t)

    asm("endbr64")
    asm("load", a, M(key, 0), note="w0..w3")
    asm("xor", zero, zero, zero)
    store(0, a)
    if key_bits == 128:
        for rnd in range(1, nr + 1):
            next_words(a, a, next(rcons), 3)
            store(rnd, a)
    elif key_bits == 256:
        asm("load", b, M(key, 16), note="w4..w7")
        store(1, b)
        for rnd in range(2, nr + 1):
            if rnd % 2 == 0:
                next_words(a, b, next(rcons), 3)
                store(rnd, a)
            else:
                next_words(b, a, 0, 2)
                store(rnd, b)
    else:
        # a: w6c..w6c+3; b: w6c+4, w6c+5 in its low half. Every two steps make three round
        # keys: a, [b, a'0, a'1] and [a'2, a'3, b'].
        asm("loadlo", b, M(key, 16), note="w4, w5")
        for rnd in range(0, nr, 3):
            asm("mov", prev, b)
            for last in (False, True):
                next_words(a, b, next(rcons), 1)
                if last and rnd + 3 == nr:
                    break
                asm("pshufd", t, a, Imm(0xFF), note="the last new word, in every word")
                asm("mov", out, b)
                asm("bshl", out, out, Imm(4))
                asm("xor", b, b, out)
                asm("xor", b, b, t)
                if last:
                    break
                asm("shufps", prev, prev, a, Imm(0x44))
                store(rnd + 1, prev)
                asm("mov", out, a)
                asm("shufps", out, out, b, Imm(0x4E))
                store(rnd + 2, out)
            store(rnd + 3, a)
    for r in (a, b, t, zero, imc, prev, out):
        asm("xor", r, r, r, note="no key material left behind" if r == a else "")
    if anchored:
        for off in range(16, at(1), 16):
            asm("store", M(rk, off), a, note="unused slot, cleared" if off == 16 else "")
        for i, count in enumerate((nr - 1, nr - 1 - TAIL_ROUNDS)):
            asm("movg", M(rk, ROUND_LOOP_STARTS + 8 * i), Imm(-16 * count),
                note="round loop starts: the middle" if i == 0 else "and its first part")
    asm("ret")


def emit_cbc_encrypt(em: LoopEmitter) -> None:
    """CBC encryption is a chain: one block at a time; the XOR with the previous
    ciphertext and round key 0 happen before round 1."""
    a, p = em.asm, em.plan
    x = em.v(p.data[0], "xmm")
    em.entry()
    em.load_resident_keys()
    done, top = a.label("done"), a.label("block")
    a("load", x, M(IV, 0), note="IV")
    em.kt.clobber(x.n)
    em.skip_if_none(done)
    a.place(top)
    em.check_keys_valid("block loop head")
    t = em.v(p.temps[0], "xmm")
    em.kt.clobber(t.n, "temp")
    em.load_xor(t, M(IN, 0), em.key(0, "xmm"))
    em.xor(x, x, t)
    em.restore_borrowed()
    em.middle_rounds([x])
    em.last_round([x])
    a("store", M(OUT, 0), x)
    em.check_keys_valid("block loop back edge")
    em.count_down_one(top)
    a.place(done)
    a("store", M(IV, 0), x, note="chaining value for the next call")
    em.ret()


# A transposing lanes function moves LINE_STEPS blocks of a lane as one zmm (a cache line):
# 4 x 4 blocks transposed by 8 vshufi64x2 through these immediates, lanes (rows) in, steps
# (rows) out: (pairs of rows, first halves), (pairs of rows, second halves), then the
# even and the odd blocks of those.
LINE_STEPS = 4
_TRANSPOSE = ((0, 1, 0x44, 0), (0, 1, 0xEE, 1), (2, 3, 0x44, 2), (2, 3, 0xEE, 3))
_TRANSPOSE_BACK = ((0, 2, 0x88, 0), (0, 2, 0xDD, 1), (1, 3, 0x88, 2), (1, 3, 0xDD, 3))


def _transposing(em: LoopEmitter) -> bool:
    """Whether the lanes function's plan holds the transposed form: zmm, every key
    resident, 2 x 4 temporaries."""
    return em.isa.kind == "zmm" and em.plan.policy == "resident" and len(em.plan.temps) >= 2 * LINE_STEPS


def _transpose(em: LoopEmitter, rows: list[V], mid: list[V]) -> None:
    """rows = their 4 x 4 blocks transposed (block s of row l to block l of row s)."""
    for src, dst in ((rows, mid), (mid, rows)):
        for i, j, imm, k in (_TRANSPOSE if src is rows else _TRANSPOSE_BACK):
            em.kt.clobber(dst[k].n, "temp")
            em.asm("shuf128", dst[k], src[i], src[j], Imm(imm))


def _emit_cbc_lines(em: LoopEmitter, chains: list[V], steps_label) -> None:
    """The transposed steps, LINE_STEPS at a time while that many remain: each lane's
    next 64 bytes read as one zmm, 4 lanes transposed into 4 steps of one chain
    register and parked in the scratch after the chain values; the steps read them from
    there as memory operands and park each step's ciphertext in their place; then
    transposed back and stored as one zmm per lane. Each message line is read once and
    written once (a crowded set of messages, a multiple of 4 KiB apart, thrashed L1 when
    every step touched every line)."""
    a, p, w = em.asm, em.plan, em.isa.lanes
    rows = [em.v(r) for r in p.temps[:LINE_STEPS]]
    mid = [em.v(r) for r in p.temps[LINE_STEPS:2 * LINE_STEPS]]
    base = 16 * w * len(chains)                      # the scratch, after the chain values
    park = lambda s, j: M(IV, base + 64 * (s * len(chains) + j))
    top = a.label("lines")
    a("cmpg", N, Imm(LINE_STEPS))
    a("jb", steps_label)
    a.place(top)
    em.check_keys_valid("line loop head")
    for j in range(len(chains)):
        for lane, r in enumerate(rows):
            em.kt.clobber(r.n, "temp")
            a("loadg", PTR, M(IN, 8 * (j * w + lane)), note=f"in[{j * w + lane}]")
            a("load", r, M(PTR, 0, index=OFF))
        _transpose(em, rows, mid)
        for s, r in enumerate(rows):
            a("store", park(s, j), r, note=f"step {s} of lanes {j * w}..{j * w + w - 1}" if j == 0 else "")
    # the 4 steps as a loop over the parked rows (SLOT), not written out: the lines cost
    # the default library 25 KB of code as it was
    a("lea", SLOT, park(0, 0))
    a("lea", SLOT_END, park(LINE_STEPS, 0))
    step = a.label("line_step")
    a.place(step)
    k0 = em.key(0)
    for j, c in enumerate(chains):
        a("xor3", c, k0, M(SLOT, 64 * j))
    em.middle_rounds(chains)
    em.last_round(chains)
    for j, c in enumerate(chains):
        a("store", M(SLOT, 64 * j), c)
    a("addg", SLOT, Imm(64 * len(chains)))
    em.check_keys_valid("line step loop back edge")
    a("cmpg", SLOT, SLOT_END)
    a("jb", step)
    for j in range(len(chains)):
        for s, r in enumerate(rows):
            em.kt.clobber(r.n, "temp")
            a("load", r, park(s, j))
        _transpose(em, rows, mid)
        for lane, r in enumerate(rows):
            a("loadg", PTR, M(OUT, 8 * (j * w + lane)), note=f"out[{j * w + lane}]")
            a("store", M(PTR, 0, index=OFF), r)
    a("addg", OFF, Imm(16 * LINE_STEPS))
    a("subg", N, Imm(LINE_STEPS))
    em.check_keys_valid("line loop back edge")
    a("cmpg", N, Imm(LINE_STEPS))
    a("jae", top)
    a.place(steps_label)


def emit_cbc_lanes(em: LoopEmitter) -> int:
    """CBC encryption of independent messages, one block of each per step: lane i is
    128-bit lane i % W of chain register i // W. Each step reads every lane's pointer from
    the arrays (the general registers cannot hold them all), inserts its plaintext block
    straight into a temporary, XORs that and round key 0 into the chain, runs the rounds
    on all chains at once and extracts each lane's ciphertext straight to its message.
    The chains stay in registers from the first step to the last. Where the plan holds
    it (_transposing), whole lines of 4 steps go first (_emit_cbc_lines). Returns the
    steps moved per lane at once: LINE_STEPS, or 1."""
    a, p, isa = em.asm, em.plan, em.isa
    kind, w, span = isa.kind, isa.lanes, _span(isa.kind)
    chains = [em.v(r, kind) for r in p.data]
    t = em.v(p.temps[0], kind)
    em.entry()
    em.load_resident_keys()
    for j, c in enumerate(chains):
        em.kt.clobber(c.n)
        a("load", c, M(IV, j * span), note=f"chain values of lanes {j * w}..{j * w + w - 1}" if w > 1 else
          f"chain value of lane {j}")
    a("movg", OFF, Imm(0))
    done, top = a.label("done"), a.label("step")
    transposing = _transposing(em)
    if transposing:
        _emit_cbc_lines(em, chains, a.label("steps"))
    em.skip_if_none(done)
    a.place(top)
    em.check_keys_valid("step loop head")
    k0 = em.key(0, kind)
    for j, c in enumerate(chains):
        em.kt.clobber(t.n, "temp")
        for lane in range(w):
            a("loadg", PTR, M(IN, 8 * (j * w + lane)), note=f"in[{j * w + lane}]")
            block = M(PTR, 0, index=OFF)
            if lane == 0:
                a("load", t.view("xmm"), block)
            else:
                a("insert128", t, t, block, Imm(lane))
        if isa.encoding == "evex":
            a("xor3", c, t, k0)
        else:
            em.xor(c, c, t)
            em.xor(c, c, k0)
    em.restore_borrowed()
    em.middle_rounds(chains)
    em.last_round(chains)
    for j, c in enumerate(chains):
        for lane in range(w):
            a("loadg", PTR, M(OUT, 8 * (j * w + lane)), note=f"out[{j * w + lane}]")
            block = M(PTR, 0, index=OFF)
            if lane == 0:
                a("store", block, c.view("xmm"))
            else:
                a("extract128", block, c, Imm(lane))
    a("addg", OFF, Imm(16))
    em.check_keys_valid("step loop back edge")
    a("subg", N, Imm(1))
    a("jnz", top)
    a.place(done)
    for j, c in enumerate(chains):
        a("store", M(IV, j * span), c, note="chain values for the next call" if j == 0 else "")
    em.ret()
    return LINE_STEPS if transposing else 1


GST = G(SYSV.args[5])      # a GCM function's hash state (aesgen_gcm_hash): y, the table's address,
                           # then the addresses of a block the seal hashes after the text and of
                           # one it hashes before it, each or 0; their offsets:
GST_Y, GST_TABLE, GST_AFTER, GST_BEFORE = 0, 16, 24, 32
HT = PTR                   # the GHASH table, loaded from the hash state


class GhashSide:
    """A GHASH program of algorithm/ghash.py (update_unsummed) as this ISA's instructions,
    for a stitched GCM loop: table reads and constants become memory operands, every
    other value a register of `pool`, taken when the value is made and given back after
    its last use. `peak` is the registers the program needs (plan the loop with it).
    Legacy SSE takes no unaligned memory operand: its table reads are loads into
    registers."""

    def __init__(self, em: "LoopEmitter | None", prog: Program, isa: Isa, consts: Constants, fused: bool):
        if fused and isa.encoding == "evex":     # three-input XORs (vpternlogq): fewer operations
            prog = fuse_ternary(prog)
        prog = hoist_logic(prog)     # each product folded into its sum at once: fewer registers
        self.em, self.prog, self.kind, self.consts = em, prog, isa.kind, consts
        self.destructive = isa.encoding == "sse"
        last = {}
        for i, op in enumerate(prog.ops):
            for x in op.args:
                if isinstance(x, str):
                    last[x] = i
        self.last = last
        self.peak = self._translate(None, lambda off: M(IN, off), list(range(64)), None)[1]

    def _translate(self, asm, data, pool: list[int], acc: V | None, data_note: str = ""):
        kind, consts = self.kind, self.consts
        mask = self.em.bswap(kind) if self.em is not None else consts.bswap()
        free = list(pool)
        peak = 0
        vals: dict[str, object] = {"acc": acc}
        out = self.prog.outputs[0]

        def take() -> V:
            nonlocal peak
            n = free.pop(0)
            peak = max(peak, len(pool) - len(free))
            return V(kind, n)

        def emit(*ins, note=""):
            if asm is not None:
                asm(*ins, note=note)

        for i, op in enumerate(self.prog.ops):
            a = [] if op.code == "vld" else [vals[x] if isinstance(x, str) else x for x in op.args]
            for x in set(x for x in op.args if isinstance(x, str)):
                if self.last[x] == i and x != "acc" and isinstance(vals.get(x), V):
                    free.insert(0, vals[x].n)
                    free.sort()
            if op.code == "vld" and op.args[0] == "htable":
                vals[op.dst] = M(HT, op.args[1])     # read where it is used
                continue
            if op.code in ("unpacklo", "unpackhi") and all(isinstance(x, int) for x in op.args):
                lo, hi, bits = op.args
                assert bits == 64, op
                vals[op.dst] = consts.vector(f"{lo:#x}, {hi:#x} in every lane",
                                             [lo.to_bytes(8, "little") + hi.to_bytes(8, "little")]
                                             * (V(kind, 0).width // 16))
                continue
            if op.code == "ternary":
                x, y, z, table = a
                if table != 0x96 or len({str(v) for v in (x, y, z)}) != 3:
                    raise PlanError(f"{self.prog.name}: {op} is not a three-input XOR")
                x, y, z = sorted((x, y, z), key=lambda v: not isinstance(v, V))   # memory last
                dying = [v for v in (x, y) if isinstance(v, V) and v.n in free]   # freed above: last use
                if dying:       # dst ^= b ^ c in place, in a source that dies here
                    d = dying[0]
                    free.remove(d.n)
                    others = [v for v in (x, y, z) if v != d]
                else:
                    d = take()
                    emit("mov", d, x)
                    others = [y, z]
                emit("xor3", d, *others)
                vals[op.dst] = d
                continue
            if op.code in ("bswap", "xor", "clmul") and self.destructive:
                # legacy SSE writes its first source, and reads memory only when aligned:
                # the first source is one that dies here, else a power of H loaded into a
                # new register, else a copy; a power of H as the other source is loaded too
                x, y, sel = a[0], a[1] if len(a) > 1 else None, a[2] if len(a) > 2 else None
                dies = lambda v: isinstance(v, V) and v.n in free
                if op.code != "bswap" and not dies(x) and (dies(y) or isinstance(y, M)):
                    x, y = y, x     # both commute; clmul swaps which halves it multiplies
                    if op.code == "clmul":
                        sel = (sel >> 4 & 1) | (sel & 1) << 4
                spare = None
                if dies(x):
                    free.remove(x.n)
                    d = x
                else:
                    d = take()
                    emit("load" if isinstance(x, M) else "mov", d, x,
                         note="a power of H" if isinstance(x, M) and x.base == HT else "")
                if isinstance(y, M) and y.base == HT:
                    spare = take()
                    emit("load", spare, y, note="a power of H")
                    y = spare
                if op.code == "bswap":
                    emit("shufb", d, d, mask)
                elif op.code == "xor":
                    emit("xor", d, d, y)
                else:
                    emit("clmul", d, d, y, Imm(sel))
                if spare is not None:
                    free.insert(0, spare.n)
                    free.sort()
                vals[op.dst] = d
                continue
            d = take()
            if op.code == "vld":
                emit("load", d, data(op.args[1]), note=data_note)
            elif op.code == "bswap":
                emit("shufb", d, a[0], mask)
            elif op.code == "swap64":
                emit("pshufd", d, a[0], Imm(0x4E))
            elif op.code == "xor":
                x, y = a if isinstance(a[0], V) else a[::-1]
                emit("xor", d, x, y)
            elif op.code == "clmul":
                x, y, sel = a
                if not isinstance(x, V):
                    x, y, sel = y, x, (sel >> 4 & 1) | (sel & 1) << 4
                emit("clmul", d, x, y, Imm(sel))
            else:
                raise PlanError(f"{self.prog.name}: no x86-64 spelling of {op.code} in a stitched loop")
            vals[op.dst] = d
        return vals[out], peak

    def emit(self, asm, data, pool: list[int], acc: V, data_note: str = "ciphertext to hash") -> None:
        """The program, then its blocks summed into acc's low block (the others zeroed):
        the new y as a block integer. data_note: what the data loads read."""
        em = self.em
        r, _ = self._translate(asm, data, pool, acc.view(self.kind), data_note)
        rest = [n for n in pool if n != r.n]
        lanes = r.width // 16
        parts = [V("xmm", n) for n in rest[:lanes - 1]]
        for lane, t in enumerate(parts, 1):
            asm("extract128", t, r, Imm(lane), note="sum the blocks" if lane == 1 else "")
        if len(parts) == 3:
            asm("xor3", parts[0], parts[1], parts[2])
        elif len(parts) == 2:
            asm("xor", parts[0], parts[0], parts[1])
        x = acc.view("xmm")
        if parts:
            asm("xor", x, r.view("xmm"), parts[0], note="y, the upper blocks zeroed")
        else:
            asm("mov", x, r.view("xmm"))
        for n in pool:
            em.kt.clobber(n, "ghash")


def merge_rounds(aes: list[Instr], side: list[Instr]) -> list[Instr]:
    """Interleave `side` into the AES instruction stream: spread evenly over the AES ops
    of the middle rounds (one AES op, then its share of the side stream), all of it
    before the final round, whose stores may overwrite what the side stream reads."""
    slots = [i for i, ins in enumerate(aes) if ins.op in ("aesenc", "aesdec")]
    if not side:
        return list(aes)
    if not slots:
        raise PlanError("no middle round to interleave the hash with")
    share = {}
    for g in range(len(side)):
        share.setdefault(slots[g * len(slots) // len(side)], []).append(side[g])
    out = []
    for i, ins in enumerate(aes):
        out.append(ins)
        out.extend(share.get(i, ()))
    return out


# A rolled GCM chunk's middle rounds as this many round loops, each followed by a share
# of the hash. Zen 5, 8 KiB seal against the stitched loop: one loop 0.86-0.89x, two
# 0.90-0.95x, three no better.
GCM_ROUND_PIECES = 2


def emit_gcm(em: LoopEmitter, seal: bool, prog: Program, one_block: Program, fused: bool) -> None:
    """GCM over whole chunks of C blocks (the N vectors of one iteration, a whole number
    of the hash's blocks per reduction): the CTR keystream of each chunk with the GHASH
    of a chunk of ciphertext interleaved into its rounds. Sealing hashes the previous
    chunk's output (a chunk's ciphertext exists only after its final round), so the
    first chunk runs alone and the last chunk's hash after the loop; opening hashes the
    chunk it decrypts, read before any store. y stays in a register as a block integer;
    the hash state (GST) holds y, the table's address and, for sealing, the addresses of
    a block to hash after the text (the lengths block) and of one to hash before it (a
    short AAD), each or 0: hashed by `one_block` (xmm) from y in its register,
    which saves the caller a GHASH call, y's store and reload, and their wait on each
    other (the block before overlaps the first chunk's rounds, which hash nothing).
    fused: the hash's XORs fused into three-input ones (EVEX)."""
    a, p, isa, consts = em.asm, em.plan, em.isa, em.consts
    kind = isa.kind
    em.round_pieces, em.paired = GCM_ROUND_PIECES, True
    ctr, acc = em.v(p.aux[0]), em.v(p.aux[1])
    chunk = len(p.data) * isa.lanes
    side = GhashSide(em, prog, isa, consts, fused)
    pool = list(p.temps)
    em.entry()
    em.load_resident_keys()
    em.keep_mask(2)
    ctr_setup(em, ctr)
    a("loadg", HT, M(GST, GST_TABLE), note="the GHASH table")
    em.kt.clobber(acc.n, "y")
    a("load", acc.view("xmm"), M(GST, GST_Y), note="y")
    a("shufb", acc.view("xmm"), acc.view("xmm"), em.bswap("xmm"), note="as a block integer")

    block_side = GhashSide(em, one_block, replace(isa, vector_bits=128), consts, fused) if seal else None

    def hash_one_block(slot: int, where: str) -> None:
        # ROUND is free outside a round loop: the block's address
        skip = a.label(f"none_{where}")
        a("loadg", ROUND, M(GST, slot), note=f"a block to hash {where} the text, or none")
        a("testg", ROUND, ROUND)
        a("jz", skip)
        block_side.emit(a, lambda off: M(ROUND, off), pool, acc, data_note=f"the block {where} the text")
        a.place(skip)
    if seal:
        hash_one_block(GST_BEFORE, "before")
    done = a.label("done")
    hashed_bytes = prog.memory("data").length
    hashes = 16 * chunk // hashed_bytes    # one after the other, through y

    def hash_chunk(asm, data) -> None:
        for k in range(hashes):
            side.emit(asm, lambda off, k=k: data(off + k * hashed_bytes), pool, acc)

    def chunk_with_hash(data) -> None:
        main, em.asm = em.asm, Asm(a.fn)
        ctr_blocks(em, ctr, list(p.data), kind)
        aes = em.asm.code
        em.asm = Asm(a.fn)
        if data is not None:
            hash_chunk(em.asm, data)
        hashed = em.asm.code
        em.asm = main
        if p.rolled:
            # a round loop has no rounds to spread the hash over: the middle rounds are
            # GCM_ROUND_PIECES loops, each followed by its share of the hash (all of it
            # before the final round, whose stores may overwrite what it reads), which
            # the core runs while the rounds' latency drains
            out, prev = [], 0
            for i, cut in enumerate(em.loop_ends):
                share = hashed[i * len(hashed) // len(em.loop_ends):(i + 1) * len(hashed) // len(em.loop_ends)]
                out += aes[prev:cut] + share
                prev = cut
            main.code.extend(out + aes[prev:])
        else:
            main.code.extend(merge_rounds(aes, hashed))

    previous = lambda off: M(OUT, off - 16 * chunk)
    em.loop_head(chunk, done)
    if seal:
        chunk_with_hash(None)
        em.advance(chunk)
        last = a.label("last")
        em.loop_head(chunk, last)
    top = a.label("loop")
    a.place(top)
    em.check_keys_valid("loop head")
    chunk_with_hash(previous if seal else (lambda off: M(IN, off)))
    em.advance(chunk)
    em.check_keys_valid("loop back edge")
    em.loop_back(chunk, top)
    if seal:
        a.place(last)
        hash_chunk(a, previous)
    a.place(done)
    if seal:
        hash_one_block(GST_AFTER, "after")
    a("shufb", acc.view("xmm"), acc.view("xmm"), em.bswap("xmm"))
    a("store", M(GST, GST_Y), acc.view("xmm"), note="y for the caller")
    em.ret()


class X86AesEmitter(HwLoopEmitter):
    name = "x86_64_aes"
    machine = machine
    abi = SYSV
    loop_class = LoopEmitter
    asm_template = "x86_64_aes/variant.S.j2"
    mode_emitters = {"ecb": emit_ecb, "ctr": emit_ctr, "cbc_enc": emit_cbc_encrypt, "cbc_dec": emit_cbc_decrypt,
                     "xts": emit_xts, "cbc_lanes": emit_cbc_lanes, "gcm": emit_gcm}
    direction_modes = {d: modes + ("xts",) for d, modes in DIRECTION_MODES.items()}
    optional_modes = ("xts",)
    unrolls = HW_UNROLLS
    # the unroll is an ordered list (both forms built, the first the default), swept too
    sweep = Space(values={**HwLoopEmitter.sweep.values, "unroll": HW_UNROLLS}, ordered=frozenset({"unroll"}))
    parameters = ("interleave", "key_policy", "vector_bits")
    cpu_features = ("aesni", "ssse3", "pclmul", "avx", "avx2", "vaes", "vpclmulqdq", "avx512f", "avx512vl", "avx512bw")
    processor = "^(x86_64|amd64|AMD64)$"
    compile_guard = "defined(__x86_64__) && defined(__ELF__)"
    isa_fields = {
        "encoding": Field(str, check=one_of(("sse", "vex", "evex"), "instruction encoding")),
        "vector_bits": Field(int, check=one_of((128, 256, 512), "vector width")),
        "registers": Field(int, check=lambda v: None if 8 <= v <= 32 else f"{v} is outside 8..32"),
        "key_memory_operand": Field(bool),
    }

    @staticmethod
    def isa(target: Target) -> Isa:
        s = target.sections["isa"]
        return Isa(s["encoding"], s["vector_bits"], s["registers"], s["aes_latency"],
                   s["aes_issue_per_cycle"], s["key_memory_operand"])

    def check_isa(self, target: Target) -> None:
        isa = self.isa(target)
        if isa.encoding == "sse" and (isa.vector_bits != 128 or isa.registers > 16):
            raise target.error("isa.encoding", "sse has 16 xmm registers and 128-bit vectors only")
        if isa.encoding == "vex" and (isa.vector_bits == 512 or isa.registers > 16):
            raise target.error("isa.encoding", "vex reaches 16 registers of at most 256 bits")
        if isa.key_memory_operand and isa.encoding == "sse":
            raise target.error("isa.key_memory_operand", "a legacy-SSE memory operand must be 16-byte aligned, "
                               "and a context (so its schedule) may sit at any 8-byte-aligned address")
        clmul = "pclmul" if isa.vector_bits == 128 else "vpclmulqdq"
        if clmul not in target.cpu_features:
            raise target.error("dispatch.cpu_features", f"the XTS loop multiplies tweaks with {clmul} "
                               f"(carry-less multiply on {isa.kind}); list it")
        if isa.key_memory_operand and isa.vector_bits != 128:
            raise target.error("isa.key_memory_operand", "a ymm/zmm memory operand holds several different "
                               "keys; only 128-bit vectors can read a round key from memory")

    def registers(self, target: Target) -> int:
        return self.isa(target).registers

    def need(self, target: Target, mode: str, direction: str, n: int, key_bits: int, rolled: bool = False) -> Need:
        if mode != "xts":
            return super().need(target, mode, direction, n, key_bits, rolled)
        if self.lanes(target) * n > XTS_MAX_SHIFT:
            raise PlanError(f"{n} x {self.lanes(target)} blocks: the next iteration's tweaks are x^"
                            f"{self.lanes(target) * n} away, past the {XTS_MAX_SHIFT} bits one carry-less "
                            f"product by 0x87 reduces")
        rounds = reference.rounds_for(key_bits)
        if xts_carries_tweaks(self.registers(target), n, rounds, rolled):
            # a tweak register per vector; one temporary for the final round and the products
            return Need(data=n, aux=n, temps=1, keys=rounds + 1, temp_phase="all")
        # the tweaks of the first vector; two temporaries for each tweak product, used
        # before round 1 and again (one of them) in the final round
        return Need(data=n, aux=1, temps=2, keys=rounds + 1, temp_phase="all")

    def companion_functions(self, variant, mode: str, plan, constants) -> list[Function]:
        # the units function of the carried XTS form (the many-sector call)
        n, rounds = len(plan.data), reference.rounds_for(variant.key_bits)
        if mode != "xts" or not xts_carries_tweaks(self.registers(variant.target), n, rounds, plan.rolled):
            return []
        asm = Asm(f"{self.prefix(variant)}_xts_units")
        emit_xts_units(self.loop(variant, plan, asm, constants))
        return [Function(asm.fn, "xts_units", plan, asm.code)]

    def constant_registers(self, target: Target, mode: str) -> int:
        # the byte-reversal mask of the counter blocks (and of the hashed blocks)
        return 1 if mode in ("ctr", "gcm") else 0

    def plan_options(self, target: Target) -> dict:
        # x86-64 cores rename registers: one register streams every key
        return {"memory_operands": self.isa(target).key_memory_operand, "rotating": 1}

    def cbc_lanes_plan(self, variant, vectors: int) -> Plan:
        """On zmm, the transposed form's plan (emit_cbc_lanes) where every key stays
        resident beside 2 x 4 temporaries; else the one-temporary plan."""
        target = variant.target
        if self.isa(target).kind == "zmm":
            need = Need(data=vectors, aux=0, temps=2 * LINE_STEPS, keys=reference.rounds_for(variant.key_bits) + 1,
                        temp_phase="all")
            try:
                plan = self.key_plan(variant, need)
                if plan.policy == "resident":
                    return plan
            except PlanError:
                pass
        return super().cbc_lanes_plan(variant, vectors)

    def gcm_table(self, target: Target) -> tuple[int, str]:
        # the GHASH variant each width pairs with: xmm (no VPCLMULQDQ) 8 powers; zmm 32 (one
        # hash chain per 32-block iteration, not two); ymm the default
        bits = self.isa(target).vector_bits
        return {128: (8, "karatsuba"), 512: (32, "karatsuba")}.get(bits) or super().gcm_table(target)

    def gcm_temps(self, target: Target, prog: Program, constants, fused: bool) -> int:
        return GhashSide(None, prog, self.isa(target), constants, fused).peak

    def lanes(self, target: Target) -> int:
        return self.isa(target).lanes

    def variant_params(self, target: Target) -> tuple:
        isa = self.isa(target)
        return (("vector_bits", isa.vector_bits), ("encoding", isa.encoding), ("registers", isa.registers))

    def new_constants(self, target: Target) -> Constants:
        return Constants(self.isa(target).lanes)

    def loop(self, variant, plan, asm, constants) -> LoopEmitter:
        return LoopEmitter(self.isa(variant.target), variant.key_bits, variant.direction == "dec", plan, asm,
                           constants)

    def machine_for(self, built: Built, mem: Memory, rodata):
        if rodata is None:
            labels = {CONST: mem.add("const", b"".join(d for _, d in built.constants) or bytes(16))}
        else:
            mem.add("const", rodata[1], at=rodata[0])
            labels = {ABSOLUTE: 0}
        rounds = anchored_rounds(reference.rounds_for(built.variant.key_bits)) if self.rolled(built.variant) else None
        return machine.Machine(mem, "rk", self.isa(built.variant.target).encoding, labels, rounds)

    def render_instr(self, built: Built, ins) -> str:
        return machine.render(ins, self.isa(built.variant.target).encoding)

    def asm_context(self, built: Built) -> dict:
        rodata = []
        for comment, data in built.constants:
            rodata.append(f"\t# {comment}")
            for i in range(0, len(data), 16):
                rodata.append("\t.byte " + ", ".join(f"0x{b:02x}" for b in data[i:i + 16]))
        return {"rodata": rodata, "const_label": CONST, "evex": self.isa(built.variant.target).encoding == "evex"}

    def summary(self, built: Built) -> list[str]:
        isa = self.isa(built.variant.target)
        return [
            f"{isa.vector_bits}-bit vectors ({isa.lanes} block{'s' if isa.lanes > 1 else ''} each), "
            f"{isa.encoding.upper()} encoding, {isa.registers} vector registers; AES latency {isa.latency}, "
            f"{isa.issue} per cycle.",
            f"Interleave: {built.interleave} vectors ({built.interleave * isa.lanes} blocks) per loop iteration.",
        ] + ([f"Round loops: one round per trip over more than {PAIRED_VECTORS} vectors, two (an odd first round "
              f"before the loop) over at most that many and in GCM chunks; their start read once, at entry, into {START} "
              f"(but in an XTS units function, where that register counts a unit's blocks)."]
             if self.rolled(built.variant) else [])

    setkey_file = "common/x86_64_aes_setkey.S"
    setkey_template = "x86_64_aes/setkey.S.j2"
    key_ops = ("keygenassist", "aesimc")

    def emit_setkey(self, asm: Asm, key_bits: int, decrypt: bool, anchored: bool = False) -> None:
        emit_setkey(asm, key_bits, decrypt, anchored)

    def setkey_machine(self, built, mem: Memory):
        return machine.Machine(mem, "rk", SETKEY_ENCODING, {})

    def render_setkey_instr(self, ins) -> str:
        return machine.render(ins, SETKEY_ENCODING)

    def setkey_plan(self, built: Built) -> str:
        return "round keys with aeskeygenassist" + (", aesimc" if built.variant.direction == "dec" else "")

    def setkey_summary(self) -> list[str]:
        return ["The key set-up of every x86-64 AES variant (AES-NI and VAES, any vector width): one function",
                "per key size and schedule order, on xmm0-xmm6 in legacy SSE encoding (needs AES-NI only).",
                "Round keys by aeskeygenassist, pshufd, shufps and pxor; the equivalent inverse cipher's",
                "middle keys by aesimc. No table and no branch on the key (constant time); the registers",
                "are cleared before the return. Called as f(rk, key): the key is read in place (exactly",
                "its length), the schedule written with unaligned stores."]

    def interleave_info(self, built: Built) -> str:
        isa = self.isa(built.variant.target)
        return f"interleave {built.interleave} x {isa.kind} ({built.interleave * isa.lanes} blocks)"
