"""Emitter `aarch64_ce`: AArch64 Crypto Extensions loops (GNU as) plus their C side.

A round is `aese d, k_i; aesmc d, d` (adjacent, for fusion); the last key is an EOR.
N blocks per iteration with rounds unrolled, then one block at a time; keys placed by
`schedule.plan` over the 24 vector registers the ABI lets us clobber (v0-v7, v16-v31).
CTR counters are built from a general-register copy of the low 64 bits (rev + insert),
under the same no-carry contract as on x86 (the C side splits calls). Every function is
executed in the model (machine/aarch64.py) before anything is written.
"""

from __future__ import annotations

from ..machine import aarch64 as machine
from ..machine.aarch64 import VECTOR_POOL, Mem, V, X
from ..machine.abi import AAPCS64
from ..targets import Target
from .hwloop import BlockLoop, Built, HwLoopEmitter

RK, OUT, IN, N, IV = (X(r) for r in AAPCS64.loop_args)
CTR_LO, CTR_J = X("x9"), X("x10")


class LoopEmitter(BlockLoop):
    def reg(self, idx: int, shape=None) -> V:
        return V(VECTOR_POOL[idx])

    v = reg

    def load_key(self, reg: V, rnd: int, note: str = "") -> None:
        self.asm("ldrq", reg, Mem(RK, 16 * rnd), note=note)

    def entry(self) -> None:
        self.asm("bti")

    def loop_head(self, n: int, tail) -> None:
        self.asm("cmp", N, n)
        self.asm("b.lo", tail)

    def advance(self, n: int) -> None:
        self.asm("add", IN, IN, 16 * n)
        self.asm("add", OUT, OUT, 16 * n)
        self.asm("sub", N, N, n)

    def loop_back(self, n: int, top) -> None:
        self.asm("cmp", N, n)
        self.asm("b.hs", top)

    def skip_if_none(self, label) -> None:
        self.asm("cbz", N, label)

    def count_down_one(self, top) -> None:
        self.asm("add", IN, IN, 16)
        self.asm("add", OUT, OUT, 16)
        self.asm("subs", N, N, 1)
        self.asm("b.ne", top)

    def ret(self) -> None:
        self.asm("ret")

    def rounds(self, datas: list[V]) -> None:
        """Rounds 1..Nr-1 plus the last round's SubBytes/ShiftRows: keys k0..k_(Nr-1)."""
        op, mc = ("aesd", "aesimc") if self.decrypt else ("aese", "aesmc")
        for rnd in range(self.nr):
            k = self.key(rnd)
            for d in datas:
                self.asm(op, d, k, key=("key", rnd))
                if rnd < self.nr - 1:
                    self.asm(mc, d, d)

    def last_key(self, datas: list[V], fold=None) -> None:
        """d ^= k_Nr, or d ^= (k_Nr ^ x) with x from fold(j) (a memory operand to load
        into the temporary, or a register)."""
        k = self.key(self.nr)
        if fold is None:
            for d in datas:
                self.asm("eor", d, d, k, key=("key", self.nr))
            return
        t = self.v(self.plan.temps[0])
        for j, d in enumerate(datas):
            self.kt.clobber(self.plan.temps[0], "temp")
            src = fold(j)
            if isinstance(src, Mem):
                self.asm("ldrq", t, src)
                self.asm("eor", t, t, k, key=("key", self.nr))
            else:
                self.asm("eor", t, src, k, key=("key", self.nr))
            self.asm("eor", d, d, t)


def emit_ecb(em: LoopEmitter) -> None:
    def body(regs, shape=None):
        datas = [em.v(r) for r in regs]
        for j, (r, d) in enumerate(zip(regs, datas)):
            em.kt.clobber(r)
            em.asm("ldrq", d, Mem(IN, 16 * j))
        em.rounds(datas)
        em.last_key(datas)
        for j, d in enumerate(datas):
            em.asm("strq", Mem(OUT, 16 * j), d)
        em.restore_borrowed()
    em.parallel(body)


def emit_ctr(em: LoopEmitter) -> None:
    """Counter blocks: the counter block in a register, its low 64 bits replaced per block
    by rev(lo + j); the C side guarantees lo + j does not wrap within a call."""
    ctr = em.v(em.plan.aux[0])

    def setup():
        em.kt.clobber(em.plan.aux[0], "counter")
        em.asm("ldrq", ctr, Mem(IV, 0), note="counter block")
        em.asm("ldrx", CTR_LO, Mem(IV, 8))
        em.asm("rev", CTR_LO, CTR_LO, note="low 64 bits as an integer")

    def body(regs, shape=None):
        datas = [em.v(r) for r in regs]
        for j, (r, d) in enumerate(zip(regs, datas)):
            em.kt.clobber(r)
            em.asm("add", CTR_J, CTR_LO, j)
            em.asm("rev", CTR_J, CTR_J)
            em.asm("mov", d, ctr)
            em.asm("ins", d, CTR_J)
        em.asm("add", CTR_LO, CTR_LO, len(datas))
        em.rounds(datas)
        em.last_key(datas, fold=lambda j: Mem(IN, 16 * j))
        for j, d in enumerate(datas):
            em.asm("strq", Mem(OUT, 16 * j), d)
        em.restore_borrowed()
    em.parallel(body, setup)


def emit_cbc_decrypt(em: LoopEmitter) -> None:
    chain = em.v(em.plan.aux[0])

    def setup():
        em.kt.clobber(em.plan.aux[0], "chain")
        em.asm("ldrq", chain, Mem(IV, 0), note="IV")

    def body(regs, shape=None):
        datas = [em.v(r) for r in regs]
        for j, (r, d) in enumerate(zip(regs, datas)):
            em.kt.clobber(r)
            em.asm("ldrq", d, Mem(IN, 16 * j))
        em.rounds(datas)
        em.last_key(datas, fold=lambda j: Mem(IN, 16 * (j - 1)) if j else chain)
        em.asm("ldrq", chain, Mem(IN, 16 * (len(datas) - 1)), note="last ciphertext block, before any store")
        for j, d in enumerate(datas):
            em.asm("strq", Mem(OUT, 16 * j), d)
        em.restore_borrowed()

    def finish():
        em.asm("strq", Mem(IV, 0), chain, note="chaining value for the next call")
    em.parallel(body, setup, finish)


def emit_cbc_encrypt(em: LoopEmitter) -> None:
    a, p = em.asm, em.plan
    x = em.v(p.data[0])
    t = em.v(p.temps[0])
    a("bti")
    em.load_resident_keys()
    done, top = a.label("done"), a.label("block")
    a("ldrq", x, Mem(IV, 0), note="IV")
    em.kt.clobber(p.data[0])
    a("cbz", N, done)
    a.place(top)
    em.check_keys_valid("block loop head")
    em.kt.clobber(p.temps[0], "temp")
    a("ldrq", t, Mem(IN, 0))
    a("eor", x, x, t)
    em.restore_borrowed()
    em.rounds([x])
    em.last_key([x])
    a("strq", Mem(OUT, 0), x)
    a("add", IN, IN, 16)
    a("add", OUT, OUT, 16)
    a("subs", N, N, 1)
    em.check_keys_valid("block loop back edge")
    a("b.ne", top)
    a.place(done)
    a("strq", Mem(IV, 0), x, note="chaining value for the next call")
    a("ret")


class AArch64CeEmitter(HwLoopEmitter):
    name = "aarch64_ce"
    machine = machine
    abi = AAPCS64
    loop_class = LoopEmitter
    asm_template = "aarch64_ce/variant.S.j2"
    mode_emitters = {"ecb": emit_ecb, "ctr": emit_ctr, "cbc_enc": emit_cbc_encrypt, "cbc_dec": emit_cbc_decrypt}
    cpu_features = ("arm_aes",)
    processor = "^(aarch64|arm64)$"     # CMAKE_SYSTEM_PROCESSOR where compile_guard holds (Linux)
    compile_guard = "defined(__aarch64__) && defined(__ELF__) && defined(__ORDER_LITTLE_ENDIAN__) && " \
                    "__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__"

    def registers(self, target: Target) -> int:
        return len(VECTOR_POOL)

    def summary(self, built: Built) -> list[str]:
        return [f"AArch64 Crypto Extensions, {len(VECTOR_POOL)} usable vector registers (v0-v7, v16-v31).",
                f"Interleave: {built.interleave} blocks per loop iteration, then one at a time."]
