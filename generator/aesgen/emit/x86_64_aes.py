"""Emitter `x86_64_aes`: AES-NI / VAES loops for x86-64 (GNU as), plus their C side.

Per variant (one key size, one direction) the .S file holds the mode loops and the .c
file the table-free key set-up (generated from the IR), the CTR carry splitting and the
descriptor. Each loop interleaves N vectors per iteration with rounds fully unrolled;
the key policy comes from `schedule.plan`. Tails run one vector, then one block, at a
time. Every function is executed in the model (machine/x86_64.py) on block counts around
every loop boundary, in place and out of place, before anything is written.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass

from .. import reference, schedule
from ..algorithm import aes, circuits
from ..ir import Program
from ..machine.common import SCHEDULE_MISALIGN
from ..machine.x86_64 import AES_OPS, G, Imm, Instr, Label, M, Machine, MachineError, Memory, V, render
from ..machine.x86_64_objdump import assemble_and_read, same_instruction
from ..model import ModelError, expect_equal
from ..schedule import KeyTracker, Need, Plan, PlanError
from ..targets import Field, Target, distinct, one_of, show
from ..variants import Variant
from . import c
from .hwloop import DIRECTION_MODES, MODE_NEEDS, Function, block_counts, no_carry_counter, reference_mode
from .hwloop import schedule_bytes as run_key_programs

KEY_BITS = (128, 192, 256)
KIND = {128: "xmm", 256: "ymm", 512: "zmm"}

RK, OUT, IN, N, IV = G("rdi"), G("rsi"), G("rdx"), G("rcx"), G("r8")
CONST = ".Lconst"          # local read-only table of the file


def _interleave_check(values):
    for v in values:
        if v != "auto" and not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 16):
            return f"{show(v)} must be \"auto\" or an integer 1..16"
    return distinct(values)


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


@dataclass
class Built:
    variant: Variant
    isa: Isa
    interleave: int
    key_programs: tuple[Program, ...]
    functions: list[Function]
    constants: list[tuple[str, bytes]]   # rodata: (comment, bytes), laid out in order


class Asm:
    """Collects instructions; numbers local labels per function."""

    def __init__(self, fn: str):
        self.fn = fn
        self.code: list[Instr] = []

    def __call__(self, op, *args, key=None, note=""):
        self.code.append(Instr(op, tuple(args), key, note))

    def label(self, name: str) -> Label:
        return Label(f".L{self.fn}_{name}")

    def place(self, label: Label) -> None:
        self.code.append(Instr("label", (label,)))


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


class LoopEmitter:
    """Emits one mode's function for one plan."""

    def __init__(self, isa: Isa, key_bits: int, decrypt: bool, plan: Plan, asm: Asm, consts: Constants):
        self.isa, self.asm, self.plan, self.consts = isa, asm, plan, consts
        self.nr = reference.rounds_for(key_bits)
        self.decrypt = decrypt
        self.kt = KeyTracker()

    # -- operands
    def v(self, reg: int, kind: str | None = None) -> V:
        return V(kind or self.isa.kind, reg)

    def key(self, rnd: int, kind: str):
        """The operand holding round key `rnd` for an op of width `kind`, loading it into a
        rotating register first when it is streamed (a 16-byte op reads it from memory)."""
        p = self.plan
        if not p.streamed(rnd):
            self.kt.require(p.resident[rnd], rnd)
            return self.v(p.resident[rnd], kind)
        if p.memory_operands or (kind == "xmm" and self.isa.encoding != "sse"):
            return M(RK, 16 * rnd)      # VEX/EVEX memory operands may be unaligned
        reg = p.rotating[rnd % len(p.rotating)]
        self.asm("bcast", self.v(reg, kind), M(RK, 16 * rnd), note=f"stream k{rnd}")
        self.kt.load_key(reg, rnd)
        return self.v(reg, kind)

    def load_resident_keys(self) -> None:
        for rnd, reg in sorted(self.plan.resident.items()):
            self.asm("bcast", self.v(reg), M(RK, 16 * rnd), note=f"k{rnd}")
            self.kt.load_key(reg, rnd)

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
        for rnd in range(1, self.nr):
            k = self.key(rnd, datas[0].kind)
            for d in datas:
                self.asm(op, d, d, k, key=("key", rnd))

    def last_round(self, datas: list[V], fold=None) -> None:
        """Final round; fold(j) returns a memory operand to XOR into block vector j's
        output, folded into the last round key through a temporary (aesenclast(k ^ x) =
        aesenclast(k) ^ x)."""
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

    def restore_borrowed(self) -> None:
        for t, rnd in sorted(self.plan.borrowed.items()):
            reg = self.plan.resident[rnd]
            self.asm("bcast", self.v(reg), M(RK, 16 * rnd), note=f"reload k{rnd} (borrowed as a temporary)")
            self.kt.load_key(reg, rnd)

    def check_keys_valid(self, where: str) -> None:
        held = self.kt.keys()
        for rnd, reg in self.plan.resident.items():
            if held.get(reg) != rnd:
                raise PlanError(f"{self.asm.fn}: at {where}, register {reg} does not hold round key {rnd}")

    def vzeroupper_ret(self) -> None:
        if self.isa.encoding != "sse":
            self.asm("vzeroupper")
        self.asm("ret")

    # -- loop skeleton shared by the parallel modes
    def parallel(self, body, setup=None, finish=None) -> None:
        """Main loop of N vectors, then one vector at a time, then (vectors wider than a
        block) one block at a time. body(datas, offset_blocks_of_each, kind) emits one
        iteration for the given data registers."""
        a, isa, p = self.asm, self.isa, self.plan
        nvec, lanes = len(p.data), isa.lanes
        step = nvec * lanes
        a("endbr64")
        self.load_resident_keys()
        if setup:
            setup()
        done = a.label("done")
        tail_vec = a.label("tail_vector")
        tail_blk = a.label("tail_block")
        a("cmpg", N, Imm(step))
        a("jb", tail_vec if nvec > 1 else tail_blk)
        top = a.label("loop")
        a.place(top)
        self.check_keys_valid("loop head")
        body([self.v(r) for r in p.data], isa.kind)
        a("addg", IN, Imm(16 * step))
        a("addg", OUT, Imm(16 * step))
        a("subg", N, Imm(step))
        a("cmpg", N, Imm(step))
        self.check_keys_valid("loop back edge")
        a("jae", top)
        if nvec > 1:
            a.place(tail_vec)
            a("cmpg", N, Imm(lanes))
            a("jb", tail_blk)
            one = a.label("vector")
            a.place(one)
            body([self.v(p.data[0])], isa.kind)
            a("addg", IN, Imm(16 * lanes))
            a("addg", OUT, Imm(16 * lanes))
            a("subg", N, Imm(lanes))
            a("cmpg", N, Imm(lanes))
            self.check_keys_valid("vector loop back edge")
            a("jae", one)
        a.place(tail_blk)
        if lanes > 1:
            a("testg", N, N)
            a("jz", done)
            blk = a.label("block")
            a.place(blk)
            body([self.v(p.data[0], "xmm")], "xmm")
            a("addg", IN, Imm(16))
            a("addg", OUT, Imm(16))
            a("subg", N, Imm(1))
            self.check_keys_valid("block loop back edge")
            a("jnz", blk)
        a.place(done)
        if finish:
            finish()
        self.vzeroupper_ret()


def _span(kind: str) -> int:
    return {"xmm": 16, "ymm": 32, "zmm": 64}[kind]


def emit_ecb(em: LoopEmitter) -> None:
    def body(datas, kind):
        span = _span(kind)
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


def emit_ctr(em: LoopEmitter) -> None:
    """Counter blocks from a little-endian copy of the counter in `ctr` (lane l holds
    counter + l); the caller guarantees no carry out of the low 64 bits in this call."""
    isa, consts = em.isa, em.consts
    ctr = em.v(em.plan.aux[0])

    def setup():
        em.kt.clobber(ctr.n, "counter")
        em.asm("bcast", ctr, M(IV, 0), note="counter block in every lane")
        if isa.encoding == "sse":
            em.asm("shufb", ctr, ctr, consts.bswap())
        else:
            em.asm("shufb", ctr, ctr, consts.bswap(), note="to little-endian")
        em.asm("addq", ctr, ctr, consts.counter_add(0, "lane l: +l"))

    def body(datas, kind):
        span = _span(kind)
        lanes = span // 16
        c = ctr.view(kind)
        k0 = em.key(0, kind)
        for j, d in enumerate(datas):
            em.kt.clobber(d.n)
            if j == 0:
                if isa.encoding == "sse":
                    em.asm("mov", d, c)
                else:
                    em.asm("shufb", d, c, consts.bswap())
            else:
                inc = consts.uniform_add(j * isa.lanes)   # lane l of ctr is already counter + l
                if isa.encoding == "sse":
                    em.asm("mov", d, c)
                    em.asm("addq", d, d, inc)
                else:
                    em.asm("addq", d, c, inc)
            if isa.encoding == "sse" or j > 0:
                em.asm("shufb", d, d, consts.bswap())
            em.xor(d, d, k0)
        step = len(datas) * lanes
        em.asm("addq", ctr, ctr, consts.uniform_add(step))
        em.middle_rounds(datas)
        em.last_round(datas, fold=lambda j, t: M(IN, j * span))
        for j, d in enumerate(datas):
            em.asm("store", M(OUT, j * span), d)
        em.restore_borrowed()
    em.parallel(body, setup)


def emit_cbc_decrypt(em: LoopEmitter) -> None:
    """Parallel CBC decryption: P_k = D(C_k) ^ C_(k-1), the XOR folded into the last round
    key. `chain` holds the previous ciphertext block in every lane; the body reads all
    ciphertext it needs before its first store, so out == in is fine."""
    chain = em.v(em.plan.aux[0])

    def setup():
        em.kt.clobber(chain.n, "chain")
        em.asm("bcast", chain, M(IV, 0), note="IV in every lane")

    def body(datas, kind):
        span = _span(kind)
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


def emit_cbc_encrypt(em: LoopEmitter) -> None:
    """CBC encryption is a chain: one block at a time; the XOR with the previous
    ciphertext and round key 0 happen before round 1."""
    a, p = em.asm, em.plan
    x = em.v(p.data[0], "xmm")
    a("endbr64")
    em.load_resident_keys()
    done, top = a.label("done"), a.label("block")
    a("load", x, M(IV, 0), note="IV")
    em.kt.clobber(x.n)
    a("testg", N, N)
    a("jz", done)
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
    a("addg", IN, Imm(16))
    a("addg", OUT, Imm(16))
    a("subg", N, Imm(1))
    em.check_keys_valid("block loop back edge")
    a("jnz", top)
    a.place(done)
    a("store", M(IV, 0), x, note="chaining value for the next call")
    em.vzeroupper_ret()


MODES = MODE_NEEDS


class X86AesEmitter:
    name = "x86_64_aes"
    parameters = ("interleave", "key_policy", "vector_bits")
    cpu_features = ("aesni", "ssse3", "avx", "avx2", "vaes", "avx512f", "avx512vl", "avx512bw")
    schema = {
        "isa": {
            "encoding": Field(str, check=one_of(("sse", "vex", "evex"), "instruction encoding")),
            "vector_bits": Field(int, check=one_of((128, 256, 512), "vector width")),
            "registers": Field(int, check=lambda v: None if 8 <= v <= 32 else f"{v} is outside 8..32"),
            "aes_latency": Field(int, check=lambda v: None if 1 <= v <= 16 else f"{v} is outside 1..16"),
            "aes_issue_per_cycle": Field(int, check=lambda v: None if 1 <= v <= 8 else f"{v} is outside 1..8"),
            "key_memory_operand": Field(bool),
        },
        "abi": {
            "convention": Field(str, check=one_of(("sysv",), "calling convention")),
        },
        "variants": {
            "key_bits": Field(list, item=int, check=one_of(KEY_BITS, "key size")),
            "interleave": Field(list, item=(int, str), check=_interleave_check),
            "key_policy": Field(list, item=str, check=one_of(("auto",) + schedule.POLICIES, "key policy")),
        },
    }

    def validate(self, target: Target) -> None:
        isa = self.isa(target)
        if isa.encoding == "sse" and (isa.vector_bits != 128 or isa.registers > 16):
            raise target.error("isa.encoding", "sse has 16 xmm registers and 128-bit vectors only")
        if isa.encoding == "vex" and (isa.vector_bits == 512 or isa.registers > 16):
            raise target.error("isa.encoding", "vex reaches 16 registers of at most 256 bits")
        if isa.key_memory_operand and isa.encoding == "sse":
            raise target.error("isa.key_memory_operand", "a legacy-SSE memory operand must be 16-byte aligned, "
                               "and a context (so its schedule) may sit at any 8-byte-aligned address")
        if isa.key_memory_operand and isa.vector_bits != 128:
            raise target.error("isa.key_memory_operand", "a ymm/zmm memory operand holds several different "
                               "keys; only 128-bit vectors can read a round key from memory")
        for n in self._interleaves(target):
            for policy in target.sections["variants"]["key_policy"]:
                for bits in target.sections["variants"]["key_bits"]:
                    for direction, modes in DIRECTION_MODES.items():
                        for mode in modes:
                            try:
                                self._plan(isa, n, mode, bits, policy, direction)
                            except PlanError as e:
                                raise target.error("variants.key_policy",
                                                   f"AES-{bits} {direction} {mode}, interleave {n}: {e}") from None

    @staticmethod
    def isa(target: Target) -> Isa:
        s = target.sections["isa"]
        return Isa(s["encoding"], s["vector_bits"], s["registers"], s["aes_latency"],
                   s["aes_issue_per_cycle"], s["key_memory_operand"])

    def _interleaves(self, target: Target) -> list[int]:
        isa = self.isa(target)
        auto = schedule.default_interleave(isa.latency, isa.issue)
        return [auto if v == "auto" else v for v in target.sections["variants"]["interleave"]]

    @staticmethod
    def _plan(isa: Isa, n: int, mode: str, key_bits: int, policy: str, direction: str) -> Plan:
        keys = reference.rounds_for(key_bits) + 1
        if mode == "cbc" and direction == "enc":   # a chain: one block, its temporary before round 1
            need = Need(data=1, aux=0, temps=1, keys=keys, temp_phase="initial")
        else:
            aux, temps = MODES[mode]
            need = Need(data=n, aux=aux, temps=temps, keys=keys)
        return schedule.plan(need, isa.registers, policy, memory_operands=isa.key_memory_operand)

    def variants(self, target: Target) -> list[Variant]:
        isa = self.isa(target)
        out = []
        spec = target.sections["variants"]
        for n in self._interleaves(target):
            for policy in spec["key_policy"]:
                for key_bits in spec["key_bits"]:
                    for direction in ("enc", "dec"):
                        how = f"x{n}" + ("" if policy == "auto" else f"_{policy}")
                        params = (("interleave", n), ("key_policy", policy), ("vector_bits", isa.vector_bits),
                                  ("encoding", isa.encoding), ("registers", isa.registers))
                        out.append(Variant(target, key_bits, direction, how, params, target.rank))
        return out

    processor = "^(x86_64|amd64|AMD64)$"
    compile_guard = "defined(__x86_64__) && defined(__ELF__)"

    def outputs(self, variant: Variant) -> list[str]:
        stem = f"{variant.target.ident}/{variant.name}"
        return [f"{stem}.S", f"{stem}.c"]

    # ------------------------------------------------------------------ build
    def build(self, variant: Variant) -> Built:
        isa = self.isa(variant.target)
        n = variant.param("interleave")
        policy = variant.param("key_policy")
        decrypt = variant.direction == "dec"
        sbox = circuits.load("bp113")
        key_programs = (aes.key_expansion(variant.key_bits, sbox),)
        if decrypt:
            key_programs += (aes.equivalent_inverse_keys(variant.key_bits),)
        consts = Constants(isa.lanes)
        functions = []
        for mode in DIRECTION_MODES[variant.direction]:
            plan = self._plan(isa, n, mode, variant.key_bits, policy, variant.direction)
            sym = f"aesgen_{variant.name}_{mode}" + ("_nocarry" if mode == "ctr" else "")
            asm = Asm(sym)
            em = LoopEmitter(isa, variant.key_bits, decrypt, plan, asm, consts)
            if mode == "ecb":
                emit_ecb(em)
            elif mode == "ctr":
                emit_ctr(em)
            elif decrypt:
                emit_cbc_decrypt(em)
            else:
                emit_cbc_encrypt(em)
            functions.append(Function(sym, mode, plan, asm.code))
        return Built(variant, isa, n, key_programs, functions, consts.items)

    # ------------------------------------------------------------------ verify
    def verify(self, built: Built) -> str:
        v = built.variant
        rng = random.Random(zlib.crc32(v.name.encode()))
        counts = block_counts(built.isa.lanes, built.interleave * built.isa.lanes)
        keys = [bytes(range(v.key_bits // 8))] + [rng.randbytes(v.key_bits // 8) for _ in range(2)]
        schedules = [(key, self.schedule_bytes(built, key)) for key in keys]
        runs = 0
        for fn in built.functions:
            for count in counts:
                for in_place in (False, True):
                    self._run(built, fn, schedules[runs % len(schedules)], count, in_place, rng)
                    runs += 1
        return (f"the model ran every function's instruction stream {runs} times: block counts "
                f"{', '.join(map(str, counts))}, in place and out of place, the FIPS-197 key and 2 random "
                f"keys through the generated key set-up, against the reference AES, with every AES op "
                f"checked to read the round key it names")

    def schedule_bytes(self, built: Built, key: bytes) -> bytes:
        return run_key_programs(built.key_programs, key, "drk" if built.variant.direction == "dec" else "rkb")

    def _run(self, built: Built, fn: Function, keyed: tuple[bytes, bytes], count: int, in_place: bool,
             rng, code: list[Instr] | None = None, rodata: tuple[int, bytes] | None = None) -> None:
        """Run one function in the model. code/rodata: a disassembled stream and the linked
        read-only data (address, bytes) instead of what the emitter produced."""
        v = built.variant
        key, schedule_data = keyed
        data = rng.randbytes(16 * count)
        iv = rng.randbytes(16)
        if fn.mode == "ctr":   # keep clear of a carry out of the low 64 bits, as the caller does
            iv = no_carry_counter(iv, count)
        mem = Memory()
        rk = mem.add("rk", schedule_data, misalign=SCHEDULE_MISALIGN)
        src = mem.add("in", data)
        dst = mem.add("out", data, alias_of="in") if in_place else mem.add("out", bytes(16 * count))
        ivp = mem.add("iv", iv)
        if rodata is None:
            labels = {CONST: mem.add("const", b"".join(d for _, d in built.constants) or bytes(16))}
            code = [Instr("label", (Label(fn.name),))] + fn.code
        else:
            mem.add("const", rodata[1], at=rodata[0])
            labels = {"abs": 0}
        m = Machine(mem, "rk", built.isa.encoding)
        m.gpr.update(rdi=rk, rsi=dst, rdx=src, rcx=count, r8=ivp)
        canaries = {r: 0x5A5A0000 + i for i, r in enumerate(("rbx", "rbp", "r12", "r13", "r14", "r15", "rsp"))}
        m.gpr.update(canaries)
        try:
            m.run(code, fn.name, labels)
        except MachineError as e:
            raise ModelError(f"{fn.name}: {count} blocks{' in place' if in_place else ''}: {e}") from None
        for r, val in canaries.items():
            if m.gpr[r] != val:
                raise ModelError(f"{fn.name}: callee-saved register {r} changed")
        got = mem.bytes_of("out")
        want = reference_mode(v.direction, fn.mode, key, iv, data)
        expect_equal(f"{fn.name}: {count} blocks{' in place' if in_place else ''}", got, want[0])
        if fn.mode == "cbc":
            expect_equal(f"{fn.name}: IV after {count} blocks", mem.bytes_of("iv"), want[1])

    def verify_assembled(self, built: Built, files: dict[str, str], include_dir) -> str:
        """Assemble and link the rendered .S, disassemble it, require every function to
        match the emitted stream, and run the disassembled stream in the model."""
        v = built.variant
        asm_text = files[self.outputs(v)[0]]
        functions, rodata_at, rodata = assemble_and_read(asm_text, include_dir)
        rng = random.Random(zlib.crc32(v.name.encode()) ^ 0xA55E)
        keys = [bytes(range(v.key_bits // 8)), rng.randbytes(v.key_bits // 8)]
        schedules = [(key, self.schedule_bytes(built, key)) for key in keys]
        step = built.interleave * built.isa.lanes
        counts = sorted({0, 1, built.isa.lanes, built.isa.lanes + 1, step - 1, step, step + 1, 2 * step + 1})
        runs = 0
        for fn in built.functions:
            parsed = functions.get(fn.name)
            if parsed is None:
                raise ModelError(f"{fn.name}: not found in the assembled object")
            emitted = [i for i in fn.code if i.op != "label"]
            body = [i for i in parsed if i.op != "label"]
            if len(emitted) != len(body):
                raise ModelError(f"{fn.name}: {len(body)} instructions assembled, {len(emitted)} emitted")
            for k, (e, p) in enumerate(zip(emitted, body)):
                if not same_instruction(e, p, built.isa.encoding):
                    raise ModelError(f"{fn.name}: instruction {k} assembled as {p}, emitted as {e}")
            keyed = iter(e.key for e in emitted)
            code = [Instr(i.op, i.args, next(keyed)) if i.op != "label" else i for i in parsed]
            for count in counts:
                for in_place in (False, True):
                    self._run(built, fn, schedules[runs % 2], count, in_place, rng, code, (rodata_at, rodata))
                    runs += 1
        return f"{len(built.functions)} functions, {runs} model runs of the disassembled machine code"

    # ------------------------------------------------------------------ render
    def render(self, built: Built, renderer, verified: str) -> list[tuple[str, str]]:
        v = built.variant
        enc = built.isa.encoding
        funcs = []
        for fn in built.functions:
            funcs.append({
                "name": fn.name, "mode": fn.mode, "plan": fn.plan.describe(),
                "lines": [render(i, enc) for i in fn.code],
                "aes_ops": sum(1 for i in fn.code if i.op in AES_OPS),
            })
        rodata = []
        for comment, data in built.constants:
            rodata.append(f"\t# {comment}")
            for i in range(0, len(data), 16):
                rodata.append("\t.byte " + ", ".join(f"0x{b:02x}" for b in data[i:i + 16]))
        summary = [
            f"{built.isa.vector_bits}-bit vectors ({built.isa.lanes} block{'s' if built.isa.lanes > 1 else ''} each), {enc.upper()} encoding, "
            f"{built.isa.registers} vector registers; AES latency {built.isa.latency}, "
            f"{built.isa.issue} per cycle.",
            f"Interleave: {built.interleave} vectors ({built.interleave * built.isa.lanes} blocks) per loop iteration.",
        ] + [f"{fn['mode']}: {fn['plan']}." for fn in funcs] + [f"Verified: {verified}."]
        rk_bytes = 16 * (reference.rounds_for(v.key_bits) + 1)
        asm_text = renderer.render("x86_64/variant.S.j2", variant=v, summary=summary, context={
            "functions": funcs, "rodata": rodata, "const_label": CONST, "evex": enc == "evex",
        })
        expand = built.key_programs[0]
        c_text = renderer.render("hwloop/variant.c.j2", variant=v, summary=summary, context={
            "guard": self.compile_guard,
            "v": {"name": v.name, "symbol": v.symbol, "backend": v.backend, "key_bits": v.key_bits,
                  "direction": 0 if v.direction == "enc" else 1, "rank": v.rank,
                  "batch_blocks": built.interleave * built.isa.lanes, "schedule_bytes": rk_bytes,
                  "schedule_note": " (equivalent inverse cipher)" if v.direction == "dec" else "",
                  "features": " | ".join(f"AESGEN_CPU_{f.upper()}" for f in v.target.cpu_features) or "AESGEN_CPU_NONE",
                  "info": f"interleave {built.interleave} x {built.isa.kind} ({built.interleave * built.isa.lanes} "
                          f"blocks); " + "; ".join(f"{f.mode}: {f.plan.policy}" for f in built.functions)},
            "expand": c.statements(expand),
            "inverse": c.statements(built.key_programs[1]) if len(built.key_programs) > 1 else [],
            "expanded_bytes": expand.memory("rkb").length,
            "functions": {fn.mode: fn.name for fn in built.functions},
        })
        stem = f"{v.target.ident}/{v.name}"
        return [(f"{stem}.S", asm_text), (f"{stem}.c", c_text)]
