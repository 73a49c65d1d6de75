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

No emulator runs these opcodes, so the model (machine/sparc64.py) is the proof: every
function runs in it at every block-count residue, and `verify_assembled` runs the
machine code binutils produces as well.
"""

from __future__ import annotations

import random
import subprocess
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from .. import reference, schedule
from ..machine.common import MachineError, Memory, SCHEDULE_MISALIGN
from ..machine.sparc64 import AES_OPS, KEXPAND, SP, F, Instr, Label, Machine, Mem, R, parse_objdump, render
from ..model import ModelError, expect_equal
from ..schedule import Need, Plan
from ..targets import Field, Target, distinct, one_of, show
from ..variants import Variant
from .hwloop import (DIRECTION_MODES, Asm, BlockLoop, Function, HwLoopEmitter, block_counts, no_carry_counter,
                     reference_mode, reference_schedule)

KEY_BITS = (128, 192, 256)
FRAME = 176                       # the smallest V9 frame: register save area and argument slots
RK, OUT, IN, N, IV = R("i0"), R("i1"), R("i2"), R("i3"), R("i4")
K0 = (R("l0"), R("l1"))           # round key 0, both halves
AUX = (R("l2"), R("l3"))          # the CBC chaining block, or the CTR counter
SCRATCH = tuple(R(n) for n in ("o0", "o1", "o2", "o3", "o4", "o5", "l4", "l5", "l6", "l7", "i5"))
GLOBALS_KEPT = ("g2", "g3", "g4", "g5", "g6", "g7")     # the function must not touch these
MAX_INTERLEAVE = (len(SCRATCH) - 2) // 2


@dataclass
class Built:
    variant: Variant
    interleave: int
    setkey: Function
    functions: list[Function]


class LoopEmitter(BlockLoop):
    """Plan register i is double %f(2i); plan round key p is AES round key p + 1."""
    data_width = 2

    def __init__(self, key_bits: int, decrypt: bool, plan: Plan, asm: Asm):
        super().__init__(key_bits, decrypt, plan, asm)
        self._out_step = 0

    def reg(self, idx: int) -> F:
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
    def body(regs):
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

    def body(regs):
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

    def body(regs):
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


def emit_setkey(asm: Asm, key_bits: int, decrypt: bool) -> None:
    """The key schedule with aes_kexpand: double k holds words 2k, 2k+1, and each new
    double comes from the one Nk words back and the one just before. Decryption stores
    the round keys in reverse order (what aes_dround* needs)."""
    nk, nr = key_bits // 32, reference.rounds_for(key_bits)
    first = nk // 2
    rk, key = R("i0"), R("i1")

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


def _interleave_check(values):
    for v in values:
        if v != "auto" and not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_INTERLEAVE):
            return f"{show(v)} must be \"auto\" or an integer 1..{MAX_INTERLEAVE}"
    return distinct(values)


class Sparc64T4Emitter(HwLoopEmitter):
    independent_ops = 2          # each block-round has two independent ops, one per output half
    max_interleave = MAX_INTERLEAVE
    name = "sparc64_t4"
    parameters = ("interleave", "key_policy")
    cpu_features = ("sparc_aes",)
    processor = "^sparc64$"
    compile_guard = "defined(__sparc__) && defined(__arch64__) && defined(__ELF__)"
    assembler_options = ("-Wa,-Av9e",)      # the T4 opcodes and VIS3 moves
    schema = {
        "isa": {
            "aes_latency": Field(int, check=lambda v: None if 1 <= v <= 16 else f"{v} is outside 1..16"),
            "aes_issue_per_cycle": Field(int, check=lambda v: None if 1 <= v <= 8 else f"{v} is outside 1..8"),
            "fp_double_registers": Field(int, check=lambda v: None if 8 <= v <= 32 else f"{v} is outside 8..32"),
        },
        "abi": {"convention": Field(str, check=one_of(("sparcv9",), "calling convention"))},
        "variants": {
            "key_bits": Field(list, item=int, check=one_of(KEY_BITS, "key size")),
            "interleave": Field(list, item=(int, str), check=_interleave_check),
            "key_policy": Field(list, item=str, check=one_of(("auto",) + schedule.POLICIES, "key policy")),
        },
    }

    def _plan(self, target: Target, n: int, mode: str, key_bits: int, policy: str, direction: str) -> Plan:
        blocks = 1 if mode == "cbc" and direction == "enc" else n
        need = Need(data=2 * blocks, aux=0, temps=blocks, keys=reference.rounds_for(key_bits),
                    temp_phase="rounds", first_key=1)
        return schedule.plan(need, target.sections["isa"]["fp_double_registers"], policy, key_width=2)

    def build(self, variant: Variant) -> Built:
        n = variant.param("interleave")
        decrypt = variant.direction == "dec"
        asm = Asm(f"aesgen_{variant.name}_expand_key", Instr, Label)
        emit_setkey(asm, variant.key_bits, decrypt)
        setkey = Function(asm.fn, "setkey", None, asm.code)
        functions = []
        for mode in DIRECTION_MODES[variant.direction]:
            plan = self._plan(variant.target, n, mode, variant.key_bits, variant.param("key_policy"),
                              variant.direction)
            sym = f"aesgen_{variant.name}_{mode}" + ("_nocarry" if mode == "ctr" else "")
            asm = Asm(sym, Instr, Label)
            em = LoopEmitter(variant.key_bits, decrypt, plan, asm)
            {"ecb": emit_ecb, "ctr": emit_ctr}.get(mode, emit_cbc_decrypt if decrypt else emit_cbc_encrypt)(em)
            functions.append(Function(sym, mode, plan, asm.code))
        return Built(variant, n, setkey, functions)

    def schedule_bytes(self, built: Built, key: bytes, code: list[Instr] | None = None) -> bytes:
        """Run the key set-up in the model; require the reference key schedule (reversed
        for decryption) and return it."""
        nr = reference.rounds_for(built.variant.key_bits)
        mem = Memory()
        rk = mem.add("rk", bytes(16 * (nr + 1)), misalign=SCHEDULE_MISALIGN)
        kp = mem.add("key", key.ljust(32, b"\0"))
        stack = mem.add("stack", bytes(2 * FRAME))
        m = Machine(mem, "rk")
        m.put(R("o0"), rk)
        m.put(R("o1"), kp)
        m.put(SP, stack + 2 * FRAME)
        fn = built.setkey
        try:
            m.run([Instr("label", (Label(fn.name),))] + (code or fn.code), fn.name)
        except MachineError as e:
            raise ModelError(f"{fn.name}: {e}") from None
        want = reference_schedule(key, "reversed" if built.variant.direction == "dec" else "forward")
        expect_equal(f"{fn.name}: round keys", mem.bytes_of("rk"), want)
        return mem.bytes_of("rk")

    def verify(self, built: Built) -> str:
        runs, counts = self._run_all(built, {fn.name: fn.code for fn in self._functions(built)}, 3, 0)
        return (f"the model ran the key set-up on 3 keys against FIPS-197's key expansion, and every "
                f"loop {runs} times: block counts {', '.join(map(str, counts))}, in place and out of "
                f"place, the FIPS-197 key and 2 random keys, against the reference AES, with every AES op "
                f"checked to read the round-key half it names and every load and store aligned")

    @staticmethod
    def _functions(built: Built) -> list[Function]:
        return [built.setkey] + built.functions

    def _run_all(self, built: Built, codes: dict[str, list[Instr]], nkeys: int, salt: int):
        v = built.variant
        rng = random.Random(zlib.crc32(v.name.encode()) ^ salt)
        keys = [bytes(range(v.key_bits // 8))] + [rng.randbytes(v.key_bits // 8) for _ in range(nkeys - 1)]
        schedules = [(key, self.schedule_bytes(built, key, codes[built.setkey.name])) for key in keys]
        counts = block_counts(1, built.interleave)
        runs = 0
        for fn in built.functions:
            for count in counts:
                for in_place in (False, True):
                    self._run(built, fn, codes[fn.name], schedules[runs % len(schedules)], count, in_place, rng)
                    runs += 1
        return runs, counts

    def _run(self, built: Built, fn: Function, code, keyed, count: int, in_place: bool, rng) -> None:
        v = built.variant
        key, sched = keyed
        data = rng.randbytes(16 * count)
        iv = rng.randbytes(16)
        if fn.mode == "ctr":
            iv = no_carry_counter(iv, count)
        mem = Memory()
        rk = mem.add("rk", sched, misalign=SCHEDULE_MISALIGN)
        src = mem.add("in", data)
        dst = mem.add("out", data, alias_of="in") if in_place else mem.add("out", bytes(16 * count))
        ivp = mem.add("iv", iv)
        stack = mem.add("stack", bytes(2 * FRAME))
        m = Machine(mem, "rk")
        for name, value in (("o0", rk), ("o1", dst), ("o2", src), ("o3", count), ("o4", ivp)):
            m.put(R(name), value)
        m.put(SP, stack + 2 * FRAME)
        canaries = {f"l{i}": 0x5A5A0000 + i for i in range(8)} | {f"i{i}": 0x5B5B0000 + i for i in range(8)}
        canaries |= {g: 0x5C5C0000 + i for i, g in enumerate(GLOBALS_KEPT)}
        for r, val in canaries.items():
            m.put(R(r), val)
        where = f"{fn.name}: {count} blocks{' in place' if in_place else ''}"
        try:
            m.run([Instr("label", (Label(fn.name),))] + code, fn.name)
        except MachineError as e:
            raise ModelError(f"{where}: {e}") from None
        for r, val in list(canaries.items()) + [("sp", stack + 2 * FRAME)]:
            if m.get(R(r)) != val:
                raise ModelError(f"{where}: the caller's {r} changed")
        want = reference_mode(v.direction, fn.mode, key, iv, data)
        expect_equal(where, mem.bytes_of("out"), want[0])
        if fn.mode == "cbc":
            expect_equal(f"{fn.name}: IV after {count} blocks", mem.bytes_of("iv"), want[1])

    def verify_assembled(self, built: Built, files: dict[str, str], include_dir) -> str:
        """Assemble the rendered .S with binutils, disassemble it, require every function to
        match the emitted stream instruction for instruction, and run the disassembly in
        the model."""
        asm_text = files[self.outputs(built.variant)[0]]
        listing = assemble_and_disassemble(asm_text, include_dir)
        functions = parse_objdump(listing)
        codes = {}
        for fn in self._functions(built):
            parsed = functions.get(fn.name)
            if parsed is None:
                raise ModelError(f"{fn.name}: not found in the assembled object")
            emitted = [i for i in fn.code if i.op != "label"]
            body = [i for i in parsed if i.op != "label"]
            if len(emitted) != len(body):
                raise ModelError(f"{fn.name}: {len(body)} instructions assembled, {len(emitted)} emitted")
            for k, (e, got) in enumerate(zip(emitted, body)):
                if not _same(e, got):
                    raise ModelError(f"{fn.name}: instruction {k} assembled as {render(got)!r}, "
                                     f"emitted as {render(e)!r}")
            keyed = iter(e.key for e in emitted)
            codes[fn.name] = [Instr(i.op, i.args, next(keyed)) if i.op != "label" else i for i in parsed]
        runs, _ = self._run_all(built, codes, 2, 0xA55E)
        return (f"{len(built.functions) + 1} functions, the key set-up on 2 keys and {runs} loop runs "
                f"of the disassembled machine code in the model")

    def render(self, built: Built, renderer, verified: str) -> list[tuple[str, str]]:
        v = built.variant
        for fn in self._functions(built):
            assert fn.code[0].op == "save", "the template's unwind notes follow the opening save"
        funcs = [{"name": fn.name, "mode": fn.mode,
                  "plan": fn.plan.describe() if fn.plan else "round keys with aes_kexpand0/1/2",
                  "prologue": render(fn.code[0]), "lines": [render(i) for i in fn.code[1:]],
                  "aes_ops": sum(1 for i in fn.code if i.op in AES_OPS + KEXPAND),
                  "key_loads": sum(1 for i in fn.code if i.op == "ldd")} for fn in self._functions(built)]
        doubles = v.target.sections["isa"]["fp_double_registers"]
        summary = [
            f"SPARC T4 AES opcodes: a block in two FP doubles plus a temporary, round key 0 in two "
            f"integer registers, keys 1..Nr in {doubles} FP doubles with the data.",
            f"Interleave: {built.interleave} blocks per loop iteration, then one at a time.",
        ] + [f"{f['mode']}: {f['plan']}." for f in funcs[1:]] + [f"Verified: {verified}."]
        asm_text = renderer.render("sparc64/variant.S.j2", variant=v, summary=summary,
                                   context={"functions": funcs, "guard": self.compile_guard})
        c_text = renderer.render("hwloop/variant.c.j2", variant=v, summary=summary, context={
            "guard": self.compile_guard,
            "v": {"name": v.name, "symbol": v.symbol, "backend": v.backend, "key_bits": v.key_bits,
                  "direction": 0 if v.direction == "enc" else 1, "rank": v.rank,
                  "batch_blocks": built.interleave,
                  "schedule_bytes": 16 * (reference.rounds_for(v.key_bits) + 1),
                  "schedule_note": " (encryption keys in reverse order)" if v.direction == "dec" else "",
                  "features": " | ".join(f"AESGEN_CPU_{f.upper()}" for f in v.target.cpu_features),
                  "info": f"interleave {built.interleave} blocks; "
                          + "; ".join(f"{f.mode}: {f.plan.policy}" for f in built.functions)},
            "setkey_asm": built.setkey.name,
            "functions": {fn.mode: fn.name for fn in built.functions},
            "align": 8,
        })
        stem = f"{v.target.ident}/{v.name}"
        return [(f"{stem}.S", asm_text), (f"{stem}.c", c_text)]


def _same(emitted: Instr, parsed: Instr) -> bool:
    if emitted.op != parsed.op or len(emitted.args) != len(parsed.args):
        return False
    for x, y in zip(emitted.args, parsed.args):
        if isinstance(x, Label) or isinstance(y, Label):
            continue                       # branch targets: the model runs them
        if x != y:
            return False
    return True


def assemble_and_disassemble(asm_text: str, include_dir) -> str:
    """The `objdump -d` listing of the assembled text (sparc64-linux-gnu binutils)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = Path(tmp) / "v.S", Path(tmp) / "v.o"
        src.write_text(asm_text)
        for cmd in (["sparc64-linux-gnu-gcc", "-c", "-Wa,-Av9e", f"-I{include_dir}", str(src), "-o", str(obj)],
                    ["sparc64-linux-gnu-objdump", "-d", str(obj)]):
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            except FileNotFoundError:
                raise ModelError(f"{cmd[0]} is not installed (Debian: gcc-sparc64-linux-gnu)") from None
            if done.returncode != 0:
                raise ModelError(f"{' '.join(cmd[:2])} failed:\n{done.stderr}")
        return done.stdout
