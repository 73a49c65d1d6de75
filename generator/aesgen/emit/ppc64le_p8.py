"""Emitter `ppc64le_p8`: POWER8 vector crypto loops for little-endian Linux (GNU as).

vcipher/vcipherlast for encryption; vncipher/vncipherlast, which add the key before
InvMixColumns, decrypt with the encryption keys reversed. Blocks are loaded with lxvd2x
and put in state order with one vperm (mask built at entry), stored the same way back.
CTR keeps the counter as a 128-bit big-endian value and adds with vadduqm, so carries
cross every byte. XTS keeps its tweak as lxvd2x loads it, two little-endian 64-bit halves
(doubleword 0 = bits 0-63), so x^k is doubleword shifts plus one vpmsumd, with no vperm
until the tweak meets the state. N blocks per iteration over the 20 volatile vector
registers, then one at a time; every function is executed in the model
(machine/ppc64le.py) before writing.
"""

from __future__ import annotations

from dataclasses import replace

from ..machine import ppc64le as machine
from ..machine.abi import ELFV2
from ..machine.ppc64le import VECTOR_POOL, R, V
from ..targets import Target
from ..regplan import Need
from .hwloop import DIRECTION_MODES, BlockLoop, Built, HwLoopEmitter

R0 = R(0)
RK, OUT, IN, N, IV = (R(int(r[1:])) for r in ELFV2.loop_args)
# loop-carried values: the byte-order mask always, then the mode's own; final-round temporaries
MODE_NEEDS = {"ecb": (1, 0), "ctr": (3, 1), "cbc": (2, 1),
              "xts": (3, 1)}   # the tweak and 0x87; one temporary for tweak products and key^tweak
XTS_MAX_SHIFT = 15             # vspltisb reaches -16..15: counts k and 64 - k for k <= 15


class LoopEmitter(BlockLoop):
    def reg(self, idx: int, shape=None) -> V:
        return V(VECTOR_POOL[idx])

    @property
    def mask(self) -> V:
        return self.reg(self.plan.aux[0])

    def load(self, dst: V, base: R, offset: int, note: str = "") -> None:
        self.asm("li", R0, offset)
        self.asm("lxvd2x", dst, base, R0, note=note)
        self.asm("vperm", dst, dst, dst, self.mask)

    def store(self, base: R, offset: int, src: V) -> None:
        """Stores src, which is left in memory byte order."""
        self.asm("vperm", src, src, src, self.mask)
        self.asm("li", R0, offset)
        self.asm("stxvd2x", src, base, R0)

    def load_key(self, reg: V, rnd: int, note: str = "") -> None:
        self.load(reg, RK, 16 * rnd, note)

    def entry(self) -> None:
        # the mask that turns lxvd2x's little-endian doublewords back into memory order
        self.kt.clobber(self.plan.aux[0], "mask")
        scratch = self.reg(self.plan.data[0])
        self.asm("li", R0, 0)
        self.asm("lvsl", self.mask, R0)
        self.asm("vspltisb", scratch, 7)
        self.asm("vxor", self.mask, self.mask, scratch, note="byte swap within doublewords")

    def loop_head(self, n: int, tail) -> None:
        self.asm("cmpldi", N, n)
        self.asm("blt", tail)

    def advance(self, n: int) -> None:
        self.asm("addi", IN, IN, 16 * n)
        self.asm("addi", OUT, OUT, 16 * n)
        self.asm("addi", N, N, -n)

    def loop_back(self, n: int, top) -> None:
        self.asm("cmpldi", N, n)
        self.asm("bge", top)

    def skip_if_none(self, label) -> None:
        self.asm("cmpldi", N, 0)
        self.asm("beq", label)

    def count_down_one(self, top) -> None:
        self.advance(1)
        self.asm("cmpldi", N, 0)
        self.asm("bne", top)

    def ret(self) -> None:
        self.asm("blr")

    @property
    def last_op(self) -> str:
        return "vncipherlast" if self.decrypt else "vcipherlast"

    def middle_rounds(self, datas: list[V]) -> None:
        op = "vncipher" if self.decrypt else "vcipher"
        for rnd in range(1, self.nr):
            k = self.key(rnd)
            for d in datas:
                self.asm(op, d, d, k, key=("key", rnd))

    def rounds(self, datas: list[V], fold=None) -> None:
        """Whitening with k0, rounds 1..Nr-1, and the last round; fold(j) gives data (a
        register, or an offset from `in` to load) to XOR into block j's output through
        the last key."""
        last = self.last_op
        k = self.key(0)
        for d in datas:
            self.asm("vxor", d, d, k, key=("key", 0))
        self.middle_rounds(datas)
        k = self.key(self.nr)
        if fold is None:
            for d in datas:
                self.asm(last, d, d, k, key=("key", self.nr))
            return
        t = self.reg(self.plan.temps[0])
        for j, d in enumerate(datas):
            self.kt.clobber(self.plan.temps[0], "temp")
            src = fold(j)
            if isinstance(src, int):
                self.load(t, IN, src)
                self.asm("vxor", t, t, k, key=("key", self.nr))
            else:
                self.asm("vxor", t, src, k, key=("key", self.nr))
            self.asm(last, d, d, t, key=("key^data", self.nr))


def emit_ecb(em: LoopEmitter) -> None:
    def body(regs, shape=None):
        datas = [em.reg(r) for r in regs]
        for j, (r, d) in enumerate(zip(regs, datas)):
            em.kt.clobber(r)
            em.load(d, IN, 16 * j)
        em.rounds(datas)
        for j, d in enumerate(datas):
            em.store(OUT, 16 * j, d)
        em.restore_borrowed()
    em.parallel(body)


def emit_ctr(em: LoopEmitter) -> None:
    ctr, one = em.reg(em.plan.aux[1]), em.reg(em.plan.aux[2])

    def setup():
        em.kt.clobber(em.plan.aux[1], "counter")
        em.kt.clobber(em.plan.aux[2], "one")
        em.load(ctr, IV, 0, note="counter block, a 128-bit big-endian integer")
        scratch = em.reg(em.plan.data[0])
        em.asm("vxor", one, one, one)
        em.asm("vspltisb", scratch, 1)
        em.asm("vsldoi", one, one, scratch, 1, note="128-bit 1")

    def body(regs, shape=None):
        datas = [em.reg(r) for r in regs]
        for j, (r, d) in enumerate(zip(regs, datas)):
            em.kt.clobber(r)
            if j == 0:
                em.asm("vmr", d, ctr)
            else:
                em.asm("vadduqm", d, datas[j - 1], one)
        em.asm("vadduqm", ctr, datas[-1], one)
        em.rounds(datas, fold=lambda j: 16 * j)
        for j, d in enumerate(datas):
            em.store(OUT, 16 * j, d)
        em.restore_borrowed()
    em.parallel(body, setup)


def emit_cbc_decrypt(em: LoopEmitter) -> None:
    chain = em.reg(em.plan.aux[1])

    def setup():
        em.kt.clobber(em.plan.aux[1], "chain")
        em.load(chain, IV, 0, note="IV")

    def body(regs, shape=None):
        datas = [em.reg(r) for r in regs]
        for j, (r, d) in enumerate(zip(regs, datas)):
            em.kt.clobber(r)
            em.load(d, IN, 16 * j)
        em.rounds(datas, fold=lambda j: 16 * (j - 1) if j else chain)
        em.load(chain, IN, 16 * (len(datas) - 1), note="last ciphertext block, before any store")
        for j, d in enumerate(datas):
            em.store(OUT, 16 * j, d)
        em.restore_borrowed()

    def finish():
        em.store(IV, 0, chain)
    em.parallel(body, setup, finish)


def emit_xts(em: LoopEmitter) -> None:
    """XTS over whole blocks: C_j = E(P_j ^ T_j) ^ T_j, T_j = T * x^j (decryption the same
    with the inverse cipher). The tweak `tw` (the iteration's first) stays in lxvd2x's
    layout: doubleword 0 = the low 64 bits of the little-endian value, doubleword 1 the
    high. There x^k is a shift of each doubleword, the low half's carries moved up, the
    high half's times 0x87 moved down, and lxvd2x/stxvd2x read and write it with no vperm;
    it is XORed into the input before the input's vperm. Vector j's tweak is tw * x^j
    (independent products); it is parked in the output block (after the input block is
    read, so out == in is fine) and read back for the last round's key^tweak. tw itself
    serves vector 0, and after the stores becomes tw * x^n."""
    a, p = em.asm, em.plan
    tw, poly, c = em.reg(p.aux[1]), em.reg(p.aux[2]), em.reg(p.temps[0])

    def times_x(dst: V, k: int, s: V, q: V) -> None:
        """dst = tw * x^k through scratch s, q (dst may be tw, s or q)."""
        if not 1 <= k <= XTS_MAX_SHIFT:
            raise ValueError(f"{em.asm.fn}: tweak shift {k} is outside 1..{XTS_MAX_SHIFT}")
        a("vspltisb", s, -k, note=f"64 - {k} in each doubleword's low 6 bits")
        a("vsrd", s, tw, s, note="each half's carries")
        a("vpmsumd", q, s, poly, note="the high half's carries times 0x87, in doubleword 1")
        a("vsldoi", q, q, s, 8, note="them into the low half, the low half's carries into the high")
        a("vspltisb", s, k)
        a("vsld", s, tw, s)
        a("vxor", dst, s, q, note=f"tweak * x^{k}")

    def setup():
        em.kt.clobber(p.aux[1], "tweak")
        em.kt.clobber(p.aux[2], "0x87")
        em.kt.clobber(p.temps[0], "temp")
        scratch = em.reg(p.data[0])
        a("li", R0, 0)
        a("lxvd2x", tw, IV, R0, note="the first block's tweak, as two little-endian halves")
        a("vspltisb", c, 15)
        a("vspltisb", scratch, 7)
        a("vrlb", c, c, scratch, note="0x0f rotated left by 7: 0x87 in every byte")
        a("vxor", poly, poly, poly)
        a("vsldoi", poly, poly, c, 1, note="doubleword 1 = 0x87: x^128 = x^7 + x^2 + x + 1")

    def body(regs, shape=None):
        datas = [em.reg(r) for r in regs]
        k0 = em.key(0)
        for j, (r, d) in enumerate(zip(regs, datas)):
            em.kt.clobber(r)
            em.kt.clobber(p.temps[0], "temp")
            if j:
                times_x(c, j, c, d)
            a("li", R0, 16 * j)
            a("lxvd2x", d, IN, R0)
            a("vxor", d, d, c if j else tw, note="input ^ tweak, both as loaded")
            if j:
                a("stxvd2x", c, OUT, R0, note="tweak parked until the last round")
            a("vperm", d, d, d, em.mask)
            a("vxor", d, d, k0, key=("key", 0))
        em.middle_rounds(datas)
        k = em.key(em.nr)
        for j, d in enumerate(datas):
            em.kt.clobber(p.temps[0], "temp")
            if j:
                a("li", R0, 16 * j)
                a("lxvd2x", c, OUT, R0, note="the parked tweak")
                a("vperm", c, c, c, em.mask)
            else:
                a("vperm", c, tw, tw, em.mask, note="the tweak in state order")
            a("vxor", c, c, k, key=("key", em.nr))
            a(em.last_op, d, d, c, key=("key^data", em.nr))
            a("vperm", d, d, d, em.mask)
            if not j:
                a("li", R0, 0)
            a("stxvd2x", d, OUT, R0)
        em.kt.clobber(p.temps[0], "temp")
        times_x(tw, len(datas), c, datas[0])
        em.restore_borrowed()

    def finish():
        a("li", R0, 0)
        a("stxvd2x", tw, IV, R0, note="the tweak of the next block")
    em.parallel(body, setup, finish)


def emit_cbc_encrypt(em: LoopEmitter) -> None:
    a, p = em.asm, em.plan
    x, t = em.reg(p.data[0]), em.reg(p.temps[0])
    em.entry()
    em.load_resident_keys()
    done, top = a.label("done"), a.label("block")
    em.kt.clobber(p.data[0])
    em.load(x, IV, 0, note="IV")
    em.skip_if_none(done)
    a.place(top)
    em.check_keys_valid("block loop head")
    em.kt.clobber(p.temps[0], "temp")
    em.load(t, IN, 0)
    a("vxor", x, x, t)
    em.restore_borrowed()
    em.rounds([x])
    em.store(OUT, 0, x)
    a("vperm", x, x, x, em.mask, note="back to state order: it chains into the next block")
    em.check_keys_valid("block loop back edge")
    em.count_down_one(top)
    a.place(done)
    em.store(IV, 0, x)
    em.ret()


class Ppc64lePower8Emitter(HwLoopEmitter):
    name = "ppc64le_p8"
    machine = machine
    abi = ELFV2
    loop_class = LoopEmitter
    asm_template = "ppc64le_p8/variant.S.j2"
    mode_emitters = {"ecb": emit_ecb, "ctr": emit_ctr, "cbc_enc": emit_cbc_encrypt, "cbc_dec": emit_cbc_decrypt,
                     "xts": emit_xts}
    direction_modes = {d: modes + ("xts",) for d, modes in DIRECTION_MODES.items()}
    optional_modes = ("xts",)
    key_order = {"enc": "forward", "dec": "reversed"}    # vncipher adds the key before InvMixColumns
    mode_needs = MODE_NEEDS
    chain_aux = 1                # the byte-order mask
    cpu_features = ("ppc_vcrypto",)
    processor = "^(ppc64le|powerpc64le)$"
    compile_guard = "defined(__powerpc64__) && defined(__ELF__) && defined(__ORDER_LITTLE_ENDIAN__) && " \
                    "__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__"

    def registers(self, target: Target) -> int:
        return len(VECTOR_POOL)

    def need(self, target: Target, mode: str, direction: str, n: int, key_bits: int, rolled: bool = False) -> Need:
        need = super().need(target, mode, direction, n, key_bits, rolled)
        # xts's temporary holds tweak products before round 1 and key^tweak in the last
        # round (and the next tweak after it): nothing to borrow from
        return replace(need, temp_phase="all") if mode == "xts" else need

    def summary(self, built: Built) -> list[str]:
        return [f"POWER8 vector crypto, little-endian, {len(VECTOR_POOL)} volatile vector registers (v0-v19).",
                f"Interleave: {built.interleave} blocks per loop iteration, then one at a time."]
