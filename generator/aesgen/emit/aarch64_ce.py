"""Emitter `aarch64_ce`: AArch64 Crypto Extensions loops (GNU as) plus their C side.

A round is `aese d, k_i; aesmc d, d` (adjacent, for fusion); the last key is an EOR.
N blocks per iteration with rounds unrolled, then one block at a time; keys placed by
`schedule.plan` over the 24 vector registers the ABI lets us clobber (v0-v7, v16-v31).
CTR counters are built from a general-register copy of the low 64 bits (rev + insert),
under the same no-carry contract as on x86 (the C side splits calls). Every function is
executed in the model (machine/aarch64.py) before anything is written. XTS tweaks
are 128-bit rotations (ushr/ext/sli) reduced by a PMULL2 (arm_pmull), one block per register.
"""

from __future__ import annotations

from .. import reference
from ..machine import aarch64 as machine
from ..machine.aarch64 import VECTOR_POOL, Mem, V, X
from ..machine.abi import AAPCS64
from ..regplan import Need
from ..targets import Target
from .hwloop import DIRECTION_MODES, Asm, BlockLoop, Built, HwLoopEmitter

RK, OUT, IN, N, IV = (X(r) for r in AAPCS64.loop_args)
CTR_LO, CTR_J = X("x9"), X("x10")
XTS_GPR = X("x11")
# x^128 = x^7 + x^2 + x + 1 (0x87); the tweak product below gets the "+ 1" from its
# rotation, so it multiplies the carries by the rest, 0x86
XTS_POLY_REST = 0x86


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


def emit_xts(em: LoopEmitter) -> None:
    """XTS over whole blocks of one data unit: C_j = E(P_j ^ T_j) ^ T_j, T_j = T * x^j
    (decryption the same with D). T (aux[0]) is the iteration's first tweak; block j's
    tweak (j >= 1) is computed from T into temporary j - 1, the data register serving as
    scratch before its load, and kept until the final round's second EOR. iv[] holds T
    on entry and the tweak after the last block on return. Inputs are all loaded before
    any store, so out == in is fine."""
    a, p = em.asm, em.plan
    tw = em.v(p.aux[0])
    poly = em.v(p.aux[1])

    def times_x(dst: V, src: V, k: int, scratch: V) -> None:
        """dst = src * x^k, 1 <= k <= 56, dst, src and scratch distinct. With src = (lo, hi)
        and c = the k bits shifted out of each half: ushr gives (c_lo, c_hi), ext swaps them,
        sli shifts src under them, a 128-bit rotation by k; c_hi * 0x86 (fits 64 bits)
        completes its reduction. Five instructions, none dependent on another tweak, as
        many as the x^1 mask step (sshr/and/add/ext/eor), which would chain the tweaks."""
        a("ushr", scratch, src, 64 - k)
        a("ext", dst, scratch, scratch, 8)
        a("sli", dst, src, k)
        a("pmull2", scratch, scratch, poly, note=f"the bits carried out of x^127, times {XTS_POLY_REST:#x}")
        a("eor", dst, dst, scratch)

    def times_x_in_place(t: V, scratch: V) -> None:
        """t = t * x with one scratch register (the one-block stage has no other)."""
        a("ushr", scratch, t, 63)
        a("shl", t, t, 1)
        a("ext", scratch, scratch, scratch, 8)
        a("eor", t, t, scratch)
        a("pmull", scratch, scratch, poly, note=f"the bit carried out of x^127, times {XTS_POLY_REST:#x}")
        a("eor", t, t, scratch)

    def setup():
        em.kt.clobber(p.aux[0], "tweak")
        em.kt.clobber(p.aux[1], "constant")
        a("ldrq", tw, Mem(IV, 0), note="the first block's tweak")
        a("movx", XTS_GPR, XTS_POLY_REST)
        a("dup", poly, XTS_GPR)

    def body(regs, shape=None):
        datas = [em.v(r) for r in regs]
        tweaks = [tw] + [em.v(r) for r in p.temps[:len(datas) - 1]]
        for j, (r, d) in enumerate(zip(regs, datas)):
            em.kt.clobber(r)
            if j:
                em.kt.clobber(p.temps[j - 1], "tweak")
                times_x(tweaks[j], tw, j, d)
            a("ldrq", d, Mem(IN, 16 * j))
            a("eor", d, d, tweaks[j], note="whitening before round 0")
        em.rounds(datas)
        em.last_key(datas)
        for d, t in zip(datas, tweaks):
            a("eor", d, d, t, note="whitening after the last round")
        for j, d in enumerate(datas):
            a("strq", Mem(OUT, 16 * j), d)
        em.kt.clobber(regs[0], "scratch")
        if len(datas) > 1:
            times_x(tw, tweaks[-1], 1, datas[0])
        else:
            times_x_in_place(tw, datas[0])
        em.restore_borrowed()

    def finish():
        a("strq", Mem(IV, 0), tw, note="the tweak of the next block")
    em.parallel(body, setup, finish)


ROUND_CONSTANTS = (0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36)


def emit_setkey(asm: Asm, key_bits: int, decrypt: bool) -> None:
    """The key schedule without a key-expansion instruction: a word duplicated into all
    four columns goes through AESE with a zero round key (ShiftRows moves nothing between
    equal columns, so this is SubWord in every word), EXT by one byte rotates each word
    (RotWord) and the round constant comes from a general register. Each four new words
    are the prefix XOR of the previous four (three EXT against zero, three EOR) XORed
    with that word; AES-192's six-word steps are regrouped into round keys with EXT.
    Decryption writes the equivalent inverse cipher's keys: reversed, the middle ones
    through AESIMC. No table and no branch on the key; the registers are cleared."""
    nr = reference.rounds_for(key_bits)
    rk, key, rcon = X(AAPCS64.args[0]), X(AAPCS64.args[1]), X("x9")
    a, b, t, r, u, zero, imc, out = (V(n) for n in range(8))
    rcons = iter(ROUND_CONSTANTS)

    def store(rnd: int, reg: V) -> None:
        if decrypt and 0 < rnd < nr:
            asm("aesimc", imc, reg)
            reg = imc
        asm("strq", Mem(rk, 16 * (nr - rnd if decrypt else rnd)), reg, note=f"k{rnd}")

    def next_words(dst: V, src: V, lane: int, rc: int | None) -> None:
        """dst = the prefix XOR of dst ^ SubWord (RotWord and rc unless rc is None) of word
        `lane` of src, in every word."""
        asm("dupelem", t, src, lane)
        asm("aese", t, zero, note="SubWord in every word")
        if rc is not None:
            asm("ext", t, t, t, 1, note="RotWord")
            asm("movx", rcon, rc)
            asm("dupw", r, rcon)
            asm("eor", t, t, r)
        asm("ext", u, zero, dst, 12)
        asm("eor", dst, dst, u)
        asm("ext", u, zero, u, 12)
        asm("eor", dst, dst, u)
        asm("ext", u, zero, u, 12)
        asm("eor", dst, dst, u)
        asm("eor", dst, dst, t)

    asm("bti")
    asm("ldrq", a, Mem(key, 0), note="w0..w3")
    asm("eor", zero, zero, zero)
    store(0, a)
    if key_bits == 128:
        for rnd in range(1, nr + 1):
            next_words(a, a, 3, next(rcons))
            store(rnd, a)
    elif key_bits == 256:
        asm("ldrq", b, Mem(key, 16), note="w4..w7")
        store(1, b)
        for rnd in range(2, nr + 1):
            if rnd % 2 == 0:
                next_words(a, b, 3, next(rcons))
                store(rnd, a)
            else:
                next_words(b, a, 3, None)
                store(rnd, b)
    else:
        # a: w6c..w6c+3; b: w6c+4, w6c+5 in its low half. Every two steps make three round
        # keys: a, [b, a'0, a'1] and [a'2, a'3, b'].
        asm("ldurq", b, Mem(key, 8), note="w2..w5: the key's last 16 bytes")
        asm("ext", b, b, b, 8, note="w4, w5 low")
        for rnd in range(0, nr, 3):
            asm("mov", out, b)
            for last in (False, True):
                next_words(a, b, 1, next(rcons))
                if last and rnd + 3 == nr:
                    break
                asm("dupelem", r, a, 3, note="the last new word, in every word")
                asm("ext", u, zero, b, 12)
                asm("eor", b, b, u)
                asm("eor", b, b, r)
                if last:
                    break
                asm("ext", out, out, out, 8)
                asm("ext", out, out, a, 8)
                store(rnd + 1, out)
                asm("ext", out, a, b, 8)
                store(rnd + 2, out)
            store(rnd + 3, a)
    for reg in (a, b, t, r, u, zero, imc, out):
        asm("eor", reg, reg, reg, note="no key material left behind" if reg == a else "")
    asm("ret")


class AArch64CeEmitter(HwLoopEmitter):
    name = "aarch64_ce"
    machine = machine
    abi = AAPCS64
    loop_class = LoopEmitter
    asm_template = "aarch64_ce/variant.S.j2"
    mode_emitters = {"ecb": emit_ecb, "ctr": emit_ctr, "cbc_enc": emit_cbc_encrypt, "cbc_dec": emit_cbc_decrypt,
                     "xts": emit_xts}
    direction_modes = {d: modes + ("xts",) for d, modes in DIRECTION_MODES.items()}
    optional_modes = ("xts",)
    cpu_features = ("arm_aes", "arm_pmull")
    processor = "^(aarch64|arm64)$"     # CMAKE_SYSTEM_PROCESSOR where compile_guard holds (Linux)
    compile_guard = "defined(__aarch64__) && defined(__ELF__) && defined(__ORDER_LITTLE_ENDIAN__) && " \
                    "__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__"

    def registers(self, target: Target) -> int:
        return len(VECTOR_POOL)

    def check_isa(self, target: Target) -> None:
        if "arm_pmull" not in target.cpu_features:
            raise target.error("dispatch.cpu_features", "the XTS loop multiplies tweaks with PMULL2 "
                               "(64-bit carry-less multiply); list arm_pmull")

    def need(self, target: Target, mode: str, direction: str, n: int, key_bits: int, rolled: bool = False) -> Need:
        if mode != "xts":
            return super().need(target, mode, direction, n, key_bits, rolled)
        # loop-carried: the first tweak and the constant; blocks 1..n-1's tweaks live from
        # before round 1 to the final round ("all": nothing to borrow from)
        return Need(data=n, aux=2, temps=n - 1, keys=reference.rounds_for(key_bits) + 1, temp_phase="all")

    setkey_file = "common/aarch64_ce_setkey.S"
    setkey_template = "aarch64_ce/setkey.S.j2"
    key_ops = ("aesimc",)

    def emit_setkey(self, asm: Asm, key_bits: int, decrypt: bool) -> None:
        emit_setkey(asm, key_bits, decrypt)

    def setkey_plan(self, built: Built) -> str:
        return "round keys with aese on a duplicated word" + (", aesimc" if built.variant.direction == "dec" else "")

    def setkey_summary(self) -> list[str]:
        return ["The key set-up of every AArch64 Crypto Extensions variant: one function per key size and",
                "schedule order, on v0-v7 and x9. SubWord by AESE with a zero round key on a word duplicated",
                "into every column (ShiftRows moves nothing there), RotWord by EXT, the prefix XOR of four",
                "words by EXT against zero and EOR; the equivalent inverse cipher's middle keys by AESIMC.",
                "No table and no branch on the key (constant time); the vector registers are cleared before",
                "the return. Called as f(rk, key): the key is read in place (exactly its length)."]

    def summary(self, built: Built) -> list[str]:
        return [f"AArch64 Crypto Extensions, {len(VECTOR_POOL)} usable vector registers (v0-v7, v16-v31).",
                f"Interleave: {built.interleave} blocks per loop iteration, then one at a time."]
