"""Emitter `riscv64_zkn`: RV64 scalar AES (Zkne/Zknd, Zbkb) loops (GNU as).

A block is two registers and a round is two aes64esm (one per half, operands swapped)
plus two XORs with the key halves, through one temporary per block. Round keys are two
registers each, so with several blocks in flight most of them cannot stay resident:
`schedule.plan` (key width 2) streams or keeps the last rounds resident, using the
callee-saved s-registers too (saved and restored on the stack). CTR builds the high half
of each counter block with rev8 from a running low-64 count (the C side splits at its
wrap). XTS keeps each block's tweak in two registers and multiplies by x with shifts and
a sign mask (no branch, no table). Every function is executed in the model
(machine/riscv64.py) before writing.
"""

from __future__ import annotations

from .. import reference
from ..features import c_mask
from ..machine import riscv64 as machine
from ..machine.abi import LP64
from ..machine.riscv64 import KEY_OPS, SAVED_POOL, SCRATCH_POOL, X
from ..regplan import Need
from ..targets import Target
from .hwloop import DIRECTION_MODES, Asm, BlockLoop, Built, HwLoopEmitter

RK, OUT, IN, N, IV = (X(r) for r in LP64.loop_args)
TEST, SP = X("t6"), X(LP64.stack_pointer)
POOL = SCRATCH_POOL + SAVED_POOL
# loop-carried registers of each mode (two per 128-bit value); xts: see need()
MODE_NEEDS = {"ecb": 0, "ctr": 2, "cbc": 2}
XTS_POLY = 0x87            # x^128 reduced (IEEE 1619: the tweak's bytes little-endian)


class LoopEmitter(BlockLoop):
    data_width = 2

    def reg(self, idx: int, shape=None) -> X:
        return X(POOL[idx])

    def load_key(self, regs, rnd: int, note: str = "") -> None:
        lo, hi = regs
        self.asm("ld", lo, RK, 16 * rnd, note=note)
        self.asm("ld", hi, RK, 16 * rnd + 8)

    def saved_used(self) -> list[str]:
        p = self.plan
        idx = set(p.data) | set(p.aux) | set(p.temps)
        for start in list(p.resident.values()) + p.rotating:
            idx |= {start, start + 1}
        return [POOL[i] for i in sorted(idx) if POOL[i] in SAVED_POOL]

    def frame(self) -> int:
        return (8 * len(self.saved_used()) + 15) // 16 * 16

    def entry(self) -> None:
        saved = self.saved_used()
        if saved:
            self.asm("addi", SP, SP, -self.frame(), note="save the callee-saved registers used below")
            for i, r in enumerate(saved):
                self.asm("sd", X(r), SP, 8 * i)

    def ret(self) -> None:
        saved = self.saved_used()
        for i, r in enumerate(saved):
            self.asm("ld", X(r), SP, 8 * i)
        if saved:
            self.asm("addi", SP, SP, self.frame())
        self.asm("ret")

    def loop_head(self, n: int, tail) -> None:
        self.asm("sltiu", TEST, N, n)
        self.asm("bnez", TEST, tail)

    def advance(self, n: int) -> None:
        self.asm("addi", IN, IN, 16 * n)
        self.asm("addi", OUT, OUT, 16 * n)
        self.asm("addi", N, N, -n)

    def loop_back(self, n: int, top) -> None:
        self.asm("sltiu", TEST, N, n)
        self.asm("beqz", TEST, top)

    def skip_if_none(self, label) -> None:
        self.asm("beqz", N, label)

    def count_down_one(self, top) -> None:
        self.advance(1)
        self.asm("bnez", N, top)

    def xor_key(self, lo: X, hi: X, src_lo: X, src_hi: X, rnd: int) -> None:
        klo, khi = self.key(rnd)
        self.asm("xor", lo, src_lo, klo, key=("key", rnd, 0))
        self.asm("xor", hi, src_hi, khi, key=("key", rnd, 1))

    def rounds(self, blocks: list[tuple[X, X]], whiten: bool = True) -> None:
        """Whitening (unless the caller did it), rounds 1..Nr-1 and the last round on
        (lo, hi) pairs."""
        mid, last = ("aes64dsm", "aes64ds") if self.decrypt else ("aes64esm", "aes64es")
        temps = [self.reg(t) for t in self.plan.temps]
        if whiten:
            for lo, hi in blocks:
                self.xor_key(lo, hi, lo, hi, 0)
        for rnd in range(1, self.nr + 1):
            op = mid if rnd < self.nr else last
            klo, khi = self.key(rnd)
            for j, (lo, hi) in enumerate(blocks):
                t = temps[j % len(temps)]
                self.kt.clobber(self.plan.temps[j % len(temps)], "temp")
                self.asm(op, t, lo, hi)
                self.asm(op, hi, hi, lo)
                self.asm("xor", lo, t, klo, key=("key", rnd, 0))
                self.asm("xor", hi, hi, khi, key=("key", rnd, 1))

    def blocks(self, regs: list[int]) -> list[tuple[X, X]]:
        for r in regs:
            self.kt.clobber(r)
        return [(self.reg(regs[i]), self.reg(regs[i + 1])) for i in range(0, len(regs), 2)]

    def load_blocks(self, blocks, base: X) -> None:
        for j, (lo, hi) in enumerate(blocks):
            self.asm("ld", lo, base, 16 * j)
            self.asm("ld", hi, base, 16 * j + 8)

    def store_blocks(self, blocks, base: X) -> None:
        for j, (lo, hi) in enumerate(blocks):
            self.asm("sd", lo, base, 16 * j)
            self.asm("sd", hi, base, 16 * j + 8)

    def xor_memory(self, blocks, base: X, offset: int) -> None:
        """Each block ^= the block at base + offset + 16 j, through its temporary."""
        temps = [self.reg(t) for t in self.plan.temps]
        for j, (lo, hi) in enumerate(blocks):
            t = temps[j % len(temps)]
            self.asm("ld", t, base, offset + 16 * j)
            self.asm("xor", lo, lo, t)
            self.asm("ld", t, base, offset + 16 * j + 8)
            self.asm("xor", hi, hi, t)


def emit_ecb(em: LoopEmitter) -> None:
    def body(regs, shape=None):
        blocks = em.blocks(regs)
        em.load_blocks(blocks, IN)
        em.rounds(blocks)
        em.store_blocks(blocks, OUT)
    em.parallel(body)


def emit_ctr(em: LoopEmitter) -> None:
    nonce, count = em.reg(em.plan.aux[0]), em.reg(em.plan.aux[1])

    def setup():
        em.kt.clobber(em.plan.aux[0], "counter bytes 0-7")
        em.kt.clobber(em.plan.aux[1], "counter low 64 bits")
        em.asm("ld", nonce, IV, 0)
        em.asm("ld", count, IV, 8)
        em.asm("rev8", count, count, note="low 64 bits of the counter as an integer")

    def body(regs, shape=None):
        blocks = em.blocks(regs)
        for j, (lo, hi) in enumerate(blocks):
            em.asm("mv", lo, nonce)
            em.asm("addi", hi, count, j)
            em.asm("rev8", hi, hi)
        em.asm("addi", count, count, len(blocks))
        em.rounds(blocks)
        em.xor_memory(blocks, IN, 0)
        em.store_blocks(blocks, OUT)
    em.parallel(body, setup)


def emit_cbc_decrypt(em: LoopEmitter) -> None:
    clo, chi = em.reg(em.plan.aux[0]), em.reg(em.plan.aux[1])

    def setup():
        em.kt.clobber(em.plan.aux[0], "chain")
        em.kt.clobber(em.plan.aux[1], "chain")
        em.asm("ld", clo, IV, 0)
        em.asm("ld", chi, IV, 8)

    def body(regs, shape=None):
        blocks = em.blocks(regs)
        em.load_blocks(blocks, IN)
        em.rounds(blocks)
        em.asm("xor", blocks[0][0], blocks[0][0], clo)
        em.asm("xor", blocks[0][1], blocks[0][1], chi)
        if len(blocks) > 1:
            em.xor_memory(blocks[1:], IN, 0)
        last = 16 * (len(blocks) - 1)
        em.asm("ld", clo, IN, last, note="last ciphertext block, before any store")
        em.asm("ld", chi, IN, last + 8)
        em.store_blocks(blocks, OUT)

    def finish():
        em.asm("sd", clo, IV, 0)
        em.asm("sd", chi, IV, 8)
    em.parallel(body, setup, finish)


def times_x(em: LoopEmitter, dst: tuple[X, X], src: tuple[X, X], scratch: tuple[X, X]) -> None:
    """dst = src * x in GF(2^128) (dst may be src): the 128-bit shift left by one, and
    0x87 into the low half under a mask of bit 127 made by srai (all ones or zero: the
    carry never steers a branch or an address). 7 instructions; the low half's chain
    srai -> andi -> xor is the longest, 3 deep."""
    (dlo, dhi), (slo, shi), (m, c) = dst, src, scratch
    em.asm("srai", m, shi, 63, note="bit 127 as a mask")
    em.asm("srli", c, slo, 63, note="bit 63, into the high half")
    em.asm("slli", dhi, shi, 1)
    em.asm("andi", m, m, XTS_POLY)
    em.asm("slli", dlo, slo, 1)
    em.asm("or", dhi, dhi, c)
    em.asm("xor", dlo, dlo, m)


def emit_xts(em: LoopEmitter) -> None:
    """XTS over whole blocks of one data unit: C_j = E(P_j ^ T_j) ^ T_j, T_j = T * x^j
    (decryption the same with the inverse cipher). Block j's tweak lives in loop-carried
    pair j for the whole iteration (aux pair 0 = the iteration's first tweak).

    Tweaks chain, T_j = T_(j-1) * x, rather than each coming from the iteration's first:
    at interleave 2 the chain costs 2 x 7 = 14 instructions an iteration and is 6 deep
    (two steps of 3), while T * x^2 from the first needs two masks (bits 126 and 127,
    0x87 and 0x10e), 11 instructions, 18 in all at depth 4; either depth is far below one
    block's Nr rounds of aes64esm -> xor, so the shorter count wins, and it wins more at
    higher interleaves. Neither whitening is folded with a round key: on scalar registers
    (P ^ T) ^ k0 and (T ^ k0) ^ P are both two XORs a half, and a folded tweak could not
    be chained. Every input block is read before any output block is written, so
    out == in is fine; branches and addresses depend only on the block count."""
    a, p = em.asm, em.plan
    tweaks = [(em.reg(p.aux[i]), em.reg(p.aux[i + 1])) for i in range(0, len(p.aux), 2)]

    def setup():
        for r in p.aux:
            em.kt.clobber(r, "tweak")
        lo, hi = tweaks[0]
        a("ld", lo, IV, 0, note="the first block's tweak")
        a("ld", hi, IV, 8)

    def body(regs, shape=None):
        blocks = em.blocks(regs)
        for j in range(1, len(blocks)):   # the data registers are free until their load
            times_x(em, tweaks[j], tweaks[j - 1], blocks[j])
        k0lo, k0hi = em.key(0)
        for j, (lo, hi) in enumerate(blocks):
            tlo, thi = tweaks[j]
            a("ld", lo, IN, 16 * j)
            a("ld", hi, IN, 16 * j + 8)
            a("xor", lo, lo, tlo)
            a("xor", hi, hi, thi)
            a("xor", lo, lo, k0lo, key=("key", 0, 0))
            a("xor", hi, hi, k0hi, key=("key", 0, 1))
        em.rounds(blocks, whiten=False)
        for j, (lo, hi) in enumerate(blocks):
            tlo, thi = tweaks[j]
            a("xor", lo, lo, tlo)
            a("xor", hi, hi, thi)
        em.store_blocks(blocks, OUT)
        times_x(em, tweaks[0], tweaks[len(blocks) - 1], blocks[0])   # the next iteration's first

    def finish():
        lo, hi = tweaks[0]
        a("sd", lo, IV, 0, note="the tweak of the next block")
        a("sd", hi, IV, 8)
    em.parallel(body, setup, finish)


def emit_cbc_encrypt(em: LoopEmitter) -> None:
    a, p = em.asm, em.plan
    lo, hi = em.reg(p.data[0]), em.reg(p.data[1])
    em.entry()
    em.load_resident_keys()
    done, top = a.label("done"), a.label("block")
    em.kt.clobber(p.data[0])
    em.kt.clobber(p.data[1])
    a("ld", lo, IV, 0)
    a("ld", hi, IV, 8)
    em.skip_if_none(done)
    a.place(top)
    em.check_keys_valid("block loop head")
    em.xor_memory([(lo, hi)], IN, 0)
    em.rounds([(lo, hi)])
    em.store_blocks([(lo, hi)], OUT)
    em.check_keys_valid("block loop back edge")
    em.count_down_one(top)
    a.place(done)
    a("sd", lo, IV, 0)
    a("sd", hi, IV, 8)
    em.ret()


def emit_setkey(asm: Asm, key_bits: int, decrypt: bool) -> None:
    """The key schedule with aes64ks1i/aes64ks2, two words (one register) at a time: each
    from the register Nk words back and the one just before. Decryption writes the
    equivalent inverse cipher's keys: reversed, the middle ones through aes64im."""
    nk, nr = key_bits // 32, reference.rounds_for(key_bits)
    first = nk // 2
    rk, key = RK, X(LP64.args[1])
    window = [X(r) for r in ("a2", "a3", "a4", "a5")]     # the last Nk words, by register
    t, inv = X("a6"), X("a7")

    def store(k: int, reg: X) -> None:
        rnd, half = divmod(k, 2)
        if not decrypt:
            asm("sd", reg, rk, 8 * k)
            return
        if 0 < rnd < nr:
            asm("aes64im", inv, reg)
            reg = inv
        asm("sd", reg, rk, 16 * (nr - rnd) + 8 * half)

    for k in range(first):
        asm("ld", window[k], key, 8 * k)
        store(k, window[k])
    for k in range(first, 2 * (nr + 1)):
        w = 2 * k
        prev, back = window[(k - 1) % first], window[k % first]
        if w % nk == 0:
            asm("aes64ks1i", t, prev, w // nk - 1, note=f"w{w}, w{w + 1}")
            asm("aes64ks2", back, t, back)
        elif nk == 8 and w % nk == 4:
            asm("aes64ks1i", t, prev, 0xA, note=f"w{w}, w{w + 1}")
            asm("aes64ks2", back, t, back)
        else:
            asm("aes64ks2", back, prev, back, note=f"w{w}, w{w + 1}")
        store(k, back)
    asm("ret")


class Riscv64ZknEmitter(HwLoopEmitter):
    name = "riscv64_zkn"
    machine = machine
    abi = LP64
    loop_class = LoopEmitter
    asm_template = "riscv64_zkn/variant.S.j2"
    mode_emitters = {"ecb": emit_ecb, "ctr": emit_ctr, "cbc_enc": emit_cbc_encrypt, "cbc_dec": emit_cbc_decrypt,
                     "xts": emit_xts}
    direction_modes = {d: modes + ("xts",) for d, modes in DIRECTION_MODES.items()}
    # every block's tweak stays in registers: past interleave 3 they do not fit with the
    # data, and the runtime serves XTS around ecb
    optional_modes = ("xts",)
    cpu_features = ("rv_zkne", "rv_zknd")
    processor = "^riscv64$"
    compile_guard = "defined(__riscv) && __riscv_xlen == 64 && defined(__ELF__)"
    max_interleave = 8
    policies = ("auto", "partial", "streamed")
    key_ops = KEY_OPS
    checked = "every key XOR checked to read the round-key half it names"

    def need(self, target: Target, mode: str, direction: str, n: int, key_bits: int, rolled: bool = False) -> Need:
        keys = reference.rounds_for(key_bits) + 1
        blocks = 1 if mode == "cbc" and direction == "enc" else n
        if mode == "xts":   # each block's tweak (lo, hi), kept for the final XOR
            return Need(data=2 * n, aux=2 * n, temps=n, keys=keys, temp_phase="all")
        aux = 0 if mode == "cbc" and direction == "enc" else MODE_NEEDS[mode]
        return Need(data=2 * blocks, aux=aux, temps=blocks, keys=keys, temp_phase="all")

    def registers(self, target: Target) -> int:
        return len(POOL)

    def plan_options(self, target: Target) -> dict:
        return {"key_width": 2}

    def emit_setkey(self, asm: Asm, key_bits: int, decrypt: bool) -> None:
        emit_setkey(asm, key_bits, decrypt)

    def setkey_plan(self, built: Built) -> str:
        inverse = ", aes64im for the equivalent inverse cipher" if built.variant.direction == "dec" else ""
        return f"round keys with aes64ks1i/aes64ks2{inverse}"

    def features_of(self, variant) -> str:
        return c_mask(["rv_zkne" if variant.direction == "enc" else "rv_zknd"])

    def summary(self, built: Built) -> list[str]:
        return [f"RV64 scalar AES (Zkne, Zknd, Zbkb): a block in two registers, a round key in two; "
                f"{len(POOL)} registers to place them ({len(SCRATCH_POOL)} temporaries, then s0-s11, saved).",
                f"Interleave: {built.interleave} blocks per loop iteration, then one at a time."]
