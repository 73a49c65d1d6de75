"""Emitter `sparc64_t4`: SPARC T4 AES-opcode loops for 64-bit Linux (GNU as, -Av9e).

A block is two FP doubles (bytes 0-7, 8-15) and a round two opcodes, one per output
half, each reading both input halves. The 01-op writes a temporary and the 23-op writes
its half in place; the next round reads the temporary and writes the block back, so a
block needs three doubles (OpenSSL's layout; Linux uses four). Round key 0 stays in two
integer registers and is XORed in before the block moves to the FPU, as in Linux; keys
1..Nr fill 2 Nr doubles. The interleave covers the opcode latency with the two
independent ops of each block-round.

When keys, data and temporaries do not fit (AES-256, two blocks: 4 + 2 + 28 = 34 of 32
doubles), `schedule.plan` borrows: the temporaries of rounds 1-2 live in k14's doubles
and the later ones in k1's, so each iteration reloads two round keys (4 ldd) where Linux
and OpenSSL reload four (8 ldd). The one-block tail uses the idle data registers
instead and reloads nothing.

XTS keeps the running tweak little-endian in two integer registers (ldxa/stxa with
ASI_PL) and turns each block's copy into the data's byte order through out (emit_xts).

No emulator runs these opcodes, so the model (machine/sparc64.py) is the proof: every
function runs in it at every block-count residue, and `verify_assembled` runs the
machine code binutils produces as well.
"""

from __future__ import annotations

from .. import reference
from ..machine import sparc64 as machine
from ..machine.abi import SPARCV9
from ..machine.sparc64 import ASI_PL, KEXPAND, F, Mem, R, render
from ..regplan import Need, Plan, PlanError
from ..targets import Field, Target
from .hwloop import DIRECTION_MODES, Asm, BlockLoop, Built, HwLoopEmitter

FRAME = SPARCV9.stack_bytes // 2  # the smallest V9 frame: register save area and argument slots
# after `save`, the caller's argument registers %o0-%o4 are ours as %i0-%i4
RK, OUT, IN, N, IV = (R("i" + r[1:]) for r in SPARCV9.loop_args)
K0 = (R("l0"), R("l1"))           # round key 0, both halves
AUX = (R("l2"), R("l3"))          # the CBC chaining block, or the CTR counter
SCRATCH = tuple(R(n) for n in ("o0", "o1", "o2", "o3", "o4", "o5", "l4", "l5", "l6", "l7", "i5"))
MAX_INTERLEAVE = (len(SCRATCH) - 2) // 2
XTS_POLY = 0x87                   # x^128 reduced (IEEE 1619: the tweak's bytes little-endian)
# XTS: per block its data pair and its tweak in the data's byte order, plus a mask and a
# carry; the running tweak lives in AUX
XTS_MAX_INTERLEAVE = (len(SCRATCH) - 2) // 4


class LoopEmitter(BlockLoop):
    """Plan register i is double %f(2i); plan round key p is AES round key p + 1."""
    data_width = 2

    def __init__(self, key_bits: int, decrypt: bool, plan: Plan, asm: Asm):
        super().__init__(key_bits, decrypt, plan, asm)
        self._out_step = 0

    def reg(self, idx: int, shape=None) -> F:
        return F(2 * idx)

    def load_key(self, regs, rnd: int, note: str = "") -> None:
        hi, lo = regs
        self.asm("ldd", hi, Mem(RK, 16 * (rnd + 1)), note=note)
        self.asm("ldd", lo, Mem(RK, 16 * (rnd + 1) + 8))

    def entry(self) -> None:
        self.asm("save", FRAME, note="a register window: %i0-%i4 are the arguments")
        self.asm("ldx", K0[0], Mem(RK, 0), note="k0 stays in integer registers")
        self.asm("ldx", K0[1], Mem(RK, 8))

    def ret(self) -> None:
        self.asm("ret")
        self.asm("restore")

    def loop_head(self, n: int, tail) -> None:
        self.asm("cmp", N, n)
        self.asm("blu", tail)
        self.asm("nop")

    def advance(self, n: int) -> None:
        self.asm("add", IN, IN, 16 * n)
        self.asm("sub", N, N, n)
        self._out_step = 16 * n          # moved on in the branch's delay slot

    def loop_back(self, n: int, top) -> None:
        self.asm("cmp", N, n)
        self.asm("bgeu", top)
        self.asm("add", OUT, OUT, self._out_step, note="delay slot")

    def skip_if_none(self, label) -> None:
        self.asm("brz", N, label)
        self.asm("nop")

    def count_down_one(self, top) -> None:
        self.asm("add", IN, IN, 16)
        self.asm("sub", N, N, 1)
        self.asm("brnz", N, top)
        self.asm("add", OUT, OUT, 16, note="delay slot")

    # ------------------------------------------------------------------ rounds
    def blocks(self, regs: list[int]) -> list[tuple[F, F]]:
        for r in regs:
            self.kt.clobber(r)
        return [(self.reg(regs[i]), self.reg(regs[i + 1])) for i in range(0, len(regs), 2)]

    def _temp_registers(self, count: int, rnd: int) -> list[int]:
        """Plan registers of the block temporaries written in AES round `rnd`."""
        p = self.plan
        idle = p.data[2 * count:]               # data registers of blocks not in flight
        if len(idle) >= count:
            return idle[:count]
        out = []
        for j in range(count):
            if p.borrowed_ahead and p.borrowed[j] + 1 >= rnd:
                out.append(p.temps_ahead[j])    # its own lender's round is still to come
            else:
                out.append(p.temps[j])
        return out

    def rounds(self, blocks: list[tuple[F, F]]) -> None:
        """Rounds 1..Nr on blocks already XORed with k0 (A, B = bytes 0-7, 8-15); the
        result ends in the same registers (Nr is even)."""
        e = "d" if self.decrypt else "e"
        nb = len(blocks)
        temps = {r: self._temp_registers(nb, r) for r in range(1, self.nr + 1, 2)}
        held = [blocks[j][0] for j in range(nb)]        # the register holding bytes 0-7
        pending: list[tuple[int, int, int]] = []          # reloads: (plan register, key, half)
        for rnd in range(1, self.nr + 1):
            last = "_l" if rnd == self.nr else ""
            khi, klo = self.key(rnd - 1)
            for j, (a, b) in enumerate(blocks):
                if rnd % 2:
                    dst_idx = temps[rnd][j]
                    self.kt.clobber(dst_idx, "temp")
                    dst = self.reg(dst_idx)
                else:
                    dst = a
                self.asm(f"aes_{e}round01{last}", dst, khi, held[j], b, key=("key", rnd, 0))
                self._reload_one(pending)
                self.asm(f"aes_{e}round23{last}", b, klo, held[j], b, key=("key", rnd, 1))
                self._reload_one(pending)
                held[j] = dst
            if rnd % 2 == 0:
                pending += self._lenders_free(temps, rnd)
        while pending:
            self._reload_one(pending)

    def _lenders_free(self, temps: dict[int, list[int]], rnd: int) -> list[tuple[int, int, int]]:
        """After the temporaries of round rnd - 1 have been read: the key registers they
        borrowed that no later round's temporaries use, to reload."""
        p = self.plan
        later = {t for r, ts in temps.items() if r > rnd for t in ts}
        out = []
        for key_p, start in sorted(p.resident.items()):
            regs = range(start, start + p.key_width)
            if set(temps.get(rnd - 1, ())) & set(regs) and not (later & set(regs)):
                out += [(start + half, key_p, half) for half in range(p.key_width)]
        return out

    def _reload_one(self, pending: list[tuple[int, int, int]]) -> None:
        """One reload beside each AES op (the T4 issues a load alongside one)."""
        if pending:
            idx, key_p, half = pending.pop(0)
            note = f"reload k{key_p + 1} (lent to temporaries)" if half == 0 else ""
            self.asm("ldd", self.reg(idx), Mem(RK, 16 * (key_p + 1) + 8 * half), note=note)
            self.kt.load_key(idx, key_p)

    def whiten_into_fpu(self, blocks, sources) -> None:
        """block (A, B) = integer pair XOR k0, moved to the FPU."""
        for (a, b), (hi, lo) in zip(blocks, sources):
            self.asm("xor", hi, hi, K0[0])
            self.asm("xor", lo, lo, K0[1])
            self.asm("movxtod", a, hi)
            self.asm("movxtod", b, lo)

    def scratch_pairs(self, count: int) -> list[tuple[R, R]]:
        return [(SCRATCH[2 * j], SCRATCH[2 * j + 1]) for j in range(count)]

    def load_pairs(self, pairs, base: R, offset: int = 0) -> None:
        for j, (hi, lo) in enumerate(pairs):
            self.asm("ldx", hi, Mem(base, offset + 16 * j))
            self.asm("ldx", lo, Mem(base, offset + 16 * j + 8))

    def store_pairs(self, pairs, base: R) -> None:
        for j, (hi, lo) in enumerate(pairs):
            self.asm("stx", Mem(base, 16 * j), hi)
            self.asm("stx", Mem(base, 16 * j + 8), lo)

    def out_of_fpu(self, blocks, pairs) -> None:
        for (a, b), (hi, lo) in zip(blocks, pairs):
            self.asm("movdtox", hi, a)
            self.asm("movdtox", lo, b)

    def xor_memory(self, pairs, base: R, offset: int) -> None:
        """pair j ^= the block at base + offset + 16 j, through the two scratch registers
        after the pairs of a full iteration."""
        n = len(self.plan.data) // 2
        t0, t1 = SCRATCH[2 * n], SCRATCH[2 * n + 1]
        for j, (hi, lo) in enumerate(pairs):
            self.asm("ldx", t0, Mem(base, offset + 16 * j))
            self.asm("ldx", t1, Mem(base, offset + 16 * j + 8))
            self.asm("xor", hi, hi, t0)
            self.asm("xor", lo, lo, t1)


def emit_ecb(em: LoopEmitter) -> None:
    def body(regs, shape=None):
        blocks = em.blocks(regs)
        pairs = em.scratch_pairs(len(blocks))
        em.load_pairs(pairs, IN)
        em.whiten_into_fpu(blocks, pairs)
        em.rounds(blocks)
        for j, (a, b) in enumerate(blocks):
            em.asm("std", Mem(OUT, 16 * j), a)
            em.asm("std", Mem(OUT, 16 * j + 8), b)
    em.parallel(body)


def emit_ctr(em: LoopEmitter) -> None:
    """The C side guarantees the low 64 bits of the counter do not wrap within a call, so
    the high half XOR k0 is loop-invariant."""
    nonce_k0, count = AUX

    def setup():
        em.asm("ldx", nonce_k0, Mem(IV, 0))
        em.asm("ldx", count, Mem(IV, 8), note="big-endian: the integer value of the low 64 bits")
        em.asm("xor", nonce_k0, nonce_k0, K0[0], note="counter bytes 0-7 XOR k0, fixed for the call")

    def body(regs, shape=None):
        blocks = em.blocks(regs)
        pairs = em.scratch_pairs(len(blocks))
        for j, ((a, b), (_, lo)) in enumerate(zip(blocks, pairs)):
            em.asm("add", lo, count, j)
            em.asm("xor", lo, lo, K0[1])
            em.asm("movxtod", a, nonce_k0)
            em.asm("movxtod", b, lo)
        em.asm("add", count, count, len(blocks))
        em.rounds(blocks)
        em.out_of_fpu(blocks, pairs)
        em.xor_memory(pairs, IN, 0)
        em.store_pairs(pairs, OUT)
    em.parallel(body, setup)


def emit_cbc_decrypt(em: LoopEmitter) -> None:
    chain = AUX

    def setup():
        em.load_pairs([chain], IV)

    def body(regs, shape=None):
        blocks = em.blocks(regs)
        pairs = em.scratch_pairs(len(blocks))
        em.load_pairs(pairs, IN)
        em.whiten_into_fpu(blocks, pairs)
        em.rounds(blocks)
        em.out_of_fpu(blocks, pairs)
        em.asm("xor", pairs[0][0], pairs[0][0], chain[0])
        em.asm("xor", pairs[0][1], pairs[0][1], chain[1])
        if len(pairs) > 1:
            em.xor_memory(pairs[1:], IN, 0)
        em.load_pairs([chain], IN, 16 * (len(pairs) - 1))   # the last ciphertext, before any store
        em.store_pairs(pairs, OUT)

    def finish():
        em.store_pairs([chain], IV)
    em.parallel(body, setup, finish)


def emit_cbc_encrypt(em: LoopEmitter) -> None:
    a, p = em.asm, em.plan
    chain = AUX
    pair = em.scratch_pairs(1)
    em.entry()
    em.load_resident_keys()
    done, top = a.label("done"), a.label("block")
    em.load_pairs([chain], IV)
    em.skip_if_none(done)
    a.place(top)
    em.check_keys_valid("block loop head")
    blocks = em.blocks(p.data[:2])
    em.load_pairs(pair, IN)
    a("xor", pair[0][0], pair[0][0], chain[0])
    a("xor", pair[0][1], pair[0][1], chain[1])
    em.whiten_into_fpu(blocks, pair)
    em.rounds(blocks)
    em.out_of_fpu(blocks, [chain])
    em.store_pairs([chain], OUT)
    em.check_keys_valid("block loop back edge")
    em.count_down_one(top)
    a.place(done)
    em.store_pairs([chain], IV)
    em.ret()


def times_x(em: LoopEmitter, tweak: tuple[R, R], scratch: tuple[R, R]) -> None:
    """tweak = tweak * x in GF(2^128), in place, on (lo, hi) = bytes 0-7 and 8-15 read
    little-endian: the 128-bit shift left by one, and 0x87 into lo under a mask of bit
    127 made by srax (all ones or zero: no branch, no address). 7 instructions."""
    (lo, hi), (m, c) = tweak, scratch
    em.asm("srax", m, hi, 63, note="bit 127 as a mask")
    em.asm("srlx", c, lo, 63, note="bit 63, into the high half")
    em.asm("sllx", hi, hi, 1)
    em.asm("and", m, m, XTS_POLY, note="0x87")
    em.asm("sllx", lo, lo, 1)
    em.asm("or", hi, hi, c)
    em.asm("xor", lo, lo, m)


def emit_xts(em: LoopEmitter) -> None:
    """XTS over whole blocks of one data unit: C_j = E(P_j ^ T_j) ^ T_j, T_j = T * x^j
    (decryption the same with the inverse cipher).

    The product needs T as a little-endian number, the XORs need it in the data's (ldx,
    big-endian) order, and SPARC has no byte reverse in the integer unit. The running
    tweak stays little-endian in AUX (ldxa/stxa ASI_PL at entry and exit) and is doubled
    there; each block's copy in data order comes from storing it with stxa ASI_PL and
    reading it back with ldx. The slot is out's first 8 bytes (the contract lets the loop
    use out as scratch), written only after the iteration's inputs are loaded, so out ==
    in is fine, and only [rs1] addressing is needed (an immediate ASI has no offset form).
    Per block: 2 stxa + 2 ldx + 7 for the product + 2 XORs in and 2 out, and movdtox/stx
    instead of std: 25 instructions around the rounds, ECB's 8 plus 17. The other
    orders cost no fewer: loading the data little-endian (ldxa) and XORing there needs
    the whitened block stored and reloaded with ldd into the FPU, and the result stored,
    reloaded with ldxa, XORed and stored with stxa: also 18 around the rounds besides the
    product, but four round trips through memory a block, each half at its own [rs1 +
    rs2] address; doubling T in data order is a byte-wise shift with two 64-bit masks
    and cross-byte carries, about 16 instructions against the 11 of product and
    conversion here.
    The converted tweaks stay in registers to the final XOR (4 per two blocks), which is
    what limits the loop to XTS_MAX_INTERLEAVE. At interleave 2: data %o0-%o3, mask and
    carry %o4/%o5, converted tweaks %l4-%l7, the running tweak %l2/%l3 (AUX), k0 in
    %l0/%l1 as in every loop; %i5 is left. Branches and addresses depend only on the
    block count."""
    a = em.asm
    n = len(em.plan.data) // 2
    tlo, thi = AUX
    scratch = (SCRATCH[2 * n], SCRATCH[2 * n + 1])
    data_order = [(SCRATCH[2 * n + 2 + 2 * j], SCRATCH[2 * n + 3 + 2 * j]) for j in range(n)]

    def setup():
        a("ldxa", tlo, Mem(IV), ASI_PL, note="the tweak as a little-endian number: bytes 0-7")
        a("add", scratch[1], IV, 8)
        a("ldxa", thi, Mem(scratch[1]), ASI_PL, note="bytes 8-15")

    def body(regs, shape=None):
        blocks = em.blocks(regs)
        pairs = em.scratch_pairs(len(blocks))
        em.load_pairs(pairs, IN)          # every input first: the slot below is in's first block in place
        for j, ((hi, lo), (thi_d, tlo_d)) in enumerate(zip(pairs, data_order)):
            a("stxa", Mem(OUT), tlo, ASI_PL, note=f"block {j}'s tweak through out's first bytes")
            a("ldx", thi_d, Mem(OUT), note="back in the data's byte order")
            a("stxa", Mem(OUT), thi, ASI_PL)
            a("ldx", tlo_d, Mem(OUT))
            times_x(em, (tlo, thi), scratch)
            a("xor", hi, hi, thi_d)
            a("xor", lo, lo, tlo_d)
        em.whiten_into_fpu(blocks, pairs)
        em.rounds(blocks)
        em.out_of_fpu(blocks, pairs)
        for (hi, lo), (thi_d, tlo_d) in zip(pairs, data_order):
            a("xor", hi, hi, thi_d)
            a("xor", lo, lo, tlo_d)
        em.store_pairs(pairs, OUT)

    def finish():
        a("stxa", Mem(IV), tlo, ASI_PL, note="the next block's tweak")
        a("add", scratch[1], IV, 8)
        a("stxa", Mem(scratch[1]), thi, ASI_PL)
    em.parallel(body, setup, finish)


def emit_setkey(asm: Asm, key_bits: int, decrypt: bool) -> None:
    """The key schedule with aes_kexpand: double k holds words 2k, 2k+1, and each new
    double comes from the one Nk words back and the one just before. Decryption stores
    the round keys in reverse order (what aes_dround* needs)."""
    nk, nr = key_bits // 32, reference.rounds_for(key_bits)
    first = nk // 2
    rk, key = RK, R("i" + SPARCV9.args[1][1:])

    def store(k: int) -> None:
        offset = 16 * (nr - k // 2) + 8 * (k % 2) if decrypt else 8 * k
        asm("std", Mem(rk, offset), F(2 * k))

    asm("save", FRAME, note="%i0: the schedule, %i1: the key (8-byte aligned copy)")
    for k in range(first):
        asm("ldd", F(2 * k), Mem(key, 8 * k))
    for k in range(first):
        store(k)
    for k in range(first, 2 * (nr + 1)):
        w = 2 * k
        prev, back = F(2 * (k - 1)), F(2 * (k - first))
        if w % nk == 0:
            asm("aes_kexpand1", F(2 * k), back, prev, w // nk - 1, note=f"w{w}, w{w + 1}")
        elif nk == 8 and w % nk == 4:
            asm("aes_kexpand0", F(2 * k), back, prev, note=f"w{w}, w{w + 1}")
        else:
            asm("aes_kexpand2", F(2 * k), back, prev, note=f"w{w}, w{w + 1}")
        store(k)
    asm("ret")
    asm("restore")


class Sparc64T4Emitter(HwLoopEmitter):
    name = "sparc64_t4"
    machine = machine
    abi = SPARCV9
    loop_class = LoopEmitter
    asm_template = "sparc64_t4/variant.S.j2"
    mode_emitters = {"ecb": emit_ecb, "ctr": emit_ctr, "cbc_enc": emit_cbc_encrypt, "cbc_dec": emit_cbc_decrypt,
                     "xts": emit_xts}
    direction_modes = {d: modes + ("xts",) for d, modes in DIRECTION_MODES.items()}
    # past XTS_MAX_INTERLEAVE the tweaks do not fit the integer registers: the runtime
    # serves XTS around ecb
    optional_modes = ("xts",)
    key_order = {"enc": "forward", "dec": "reversed"}    # aes_dround* add the key before InvMixColumns
    independent_ops = 2          # each block-round has two independent ops, one per output half
    max_interleave = MAX_INTERLEAVE
    cpu_features = ("sparc_aes",)
    processor = "^sparc64$"
    compile_guard = "defined(__sparc__) && defined(__arch64__) && defined(__ELF__)"
    assembler_options = ("-Wa,-Av9e",)      # the T4 opcodes and VIS3 moves
    isa_fields = {"fp_double_registers": Field(int, check=lambda v: None if 8 <= v <= 32 else f"{v} is outside 8..32")}
    key_ops = KEXPAND
    checked = "every AES op checked to read the round-key half it names and every load and store aligned"
    c_align = 8                  # the loops move 8 bytes per ldx/stx

    def need(self, target: Target, mode: str, direction: str, n: int, key_bits: int, rolled: bool = False) -> Need:
        """FP doubles: the data, temporaries and keys 1..Nr (XTS as ECB: its tweaks are in
        integer registers, checked here as the plan does not count them)."""
        if mode == "xts" and n > XTS_MAX_INTERLEAVE:
            raise PlanError(f"{n} blocks' data and tweaks need {4 * n + 4} integer registers, "
                            f"{len(SCRATCH) + len(AUX)} are free")
        blocks = 1 if mode == "cbc" and direction == "enc" else n
        return Need(data=2 * blocks, aux=0, temps=blocks, keys=reference.rounds_for(key_bits),
                    temp_phase="rounds", first_key=1)

    def registers(self, target: Target) -> int:
        return target.sections["isa"]["fp_double_registers"]

    def plan_options(self, target: Target) -> dict:
        return {"key_width": 2}

    def emit_setkey(self, asm: Asm, key_bits: int, decrypt: bool) -> None:
        emit_setkey(asm, key_bits, decrypt)

    def setkey_plan(self, built: Built) -> str:
        return "round keys with aes_kexpand0/1/2"

    def function_context(self, built: Built, fn) -> dict:
        assert fn.code[0].op == "save", "the template's unwind notes follow the opening save"
        context = super().function_context(built, fn)
        context.update(prologue=render(fn.code[0]), lines=[render(i) for i in fn.code[1:]],
                       key_loads=sum(1 for i in fn.code if i.op == "ldd"))
        return context

    def summary(self, built: Built) -> list[str]:
        doubles = built.variant.target.sections["isa"]["fp_double_registers"]
        return [f"SPARC T4 AES opcodes: a block in two FP doubles plus a temporary, round key 0 in two "
                f"integer registers, keys 1..Nr in {doubles} FP doubles with the data.",
                f"Interleave: {built.interleave} blocks per loop iteration, then one at a time."]
