"""Emitter `aarch64_ce`: AArch64 Crypto Extensions loops (GNU as) plus their C side.

A round is `aese d, k_i; aesmc d, d` (adjacent, for fusion); the last key is an EOR.
N blocks per iteration with rounds unrolled, then one block at a time; keys placed by
`schedule.plan` over the 24 vector registers the ABI lets us clobber (v0-v7, v16-v31).
CTR counters are built from a general-register copy of the low 64 bits (rev + insert),
under the same no-carry contract as on x86 (the C side splits calls). Every function is
executed in the model (machine/aarch64.py) before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import reference, schedule
from ..algorithm import aes, circuits
from ..ir import Program
from ..machine.aarch64 import (AES_OPS, CALLEE_SAVED_X, VECTOR_POOL, Instr, Label, Machine, Mem, V, X,
                               render)
from ..machine.common import MachineError, Memory, SCHEDULE_MISALIGN
from ..model import ModelError, expect_equal
from ..schedule import Need, Plan
from ..targets import Field, Target, distinct, one_of, show
from ..variants import Variant
from . import c
from .hwloop import (DIRECTION_MODES, MODE_NEEDS, Asm, BlockLoop, Function, HwLoopEmitter, no_carry_counter,
                     reference_mode, schedule_bytes)

KEY_BITS = (128, 192, 256)
RK, OUT, IN, N, IV = X("x0"), X("x1"), X("x2"), X("x3"), X("x4")
CTR_LO, CTR_J = X("x9"), X("x10")


@dataclass
class Built:
    variant: Variant
    interleave: int
    key_programs: tuple[Program, ...]
    functions: list[Function]


class LoopEmitter(BlockLoop):
    def reg(self, idx: int) -> V:
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
    def body(regs):
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

    def body(regs):
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

    def body(regs):
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


def _interleave_check(values):
    for v in values:
        if v != "auto" and not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 16):
            return f"{show(v)} must be \"auto\" or an integer 1..16"
    return distinct(values)


class AArch64CeEmitter(HwLoopEmitter):
    name = "aarch64_ce"
    parameters = ("interleave", "key_policy")
    cpu_features = ("arm_aes",)
    processor = "^(aarch64|arm64)$"     # CMAKE_SYSTEM_PROCESSOR where compile_guard holds (Linux)
    compile_guard = "defined(__aarch64__) && defined(__ELF__) && defined(__ORDER_LITTLE_ENDIAN__) && " \
                    "__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__"
    schema = {
        "isa": {
            "aes_latency": Field(int, check=lambda v: None if 1 <= v <= 16 else f"{v} is outside 1..16"),
            "aes_issue_per_cycle": Field(int, check=lambda v: None if 1 <= v <= 8 else f"{v} is outside 1..8"),
        },
        "abi": {"convention": Field(str, check=one_of(("aapcs64",), "calling convention"))},
        "variants": {
            "key_bits": Field(list, item=int, check=one_of(KEY_BITS, "key size")),
            "interleave": Field(list, item=(int, str), check=_interleave_check),
            "key_policy": Field(list, item=str, check=one_of(("auto",) + schedule.POLICIES, "key policy")),
        },
    }
    registers = len(VECTOR_POOL)

    def _plan(self, target: Target, n: int, mode: str, key_bits: int, policy: str, direction: str) -> Plan:
        keys = reference.rounds_for(key_bits) + 1
        if mode == "cbc" and direction == "enc":
            need = Need(data=1, aux=0, temps=1, keys=keys, temp_phase="initial")
        else:
            aux, temps = MODE_NEEDS[mode]
            need = Need(data=n, aux=aux, temps=temps, keys=keys)
        return schedule.plan(need, self.registers, policy)

    def build(self, variant: Variant) -> Built:
        n = variant.param("interleave")
        decrypt = variant.direction == "dec"
        key_programs = (aes.key_expansion(variant.key_bits, circuits.load("bp113")),)
        if decrypt:
            key_programs += (aes.equivalent_inverse_keys(variant.key_bits),)
        functions = []
        for mode in DIRECTION_MODES[variant.direction]:
            plan = self._plan(variant.target, n, mode, variant.key_bits, variant.param("key_policy"),
                              variant.direction)
            sym = f"aesgen_{variant.name}_{mode}" + ("_nocarry" if mode == "ctr" else "")
            asm = Asm(sym, Instr, Label)
            em = LoopEmitter(variant.key_bits, decrypt, plan, asm)
            {"ecb": emit_ecb, "ctr": emit_ctr}.get(mode, emit_cbc_decrypt if decrypt else emit_cbc_encrypt)(em)
            functions.append(Function(sym, mode, plan, asm.code))
        return Built(variant, n, key_programs, functions)

    def schedule_bytes(self, built: Built, key: bytes) -> bytes:
        return schedule_bytes(built.key_programs, key, "drk" if built.variant.direction == "dec" else "rkb")

    def verify(self, built: Built) -> str:
        runs, counts = self._model_runs(built)
        return (f"the model ran every function's instruction stream {runs} times: block counts "
                f"{', '.join(map(str, counts))}, in place and out of place, the FIPS-197 key and 2 random "
                f"keys through the generated key set-up, against the reference AES, with every AES op "
                f"checked to read the round key it names")

    def _run(self, built: Built, fn: Function, keyed, count: int, in_place: bool, rng) -> None:
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
        m = Machine(mem, "rk")
        m.x.update(x0=rk, x1=dst, x2=src, x3=count, x4=ivp)
        canaries = {r: 0x5A5A0000 + i for i, r in enumerate(CALLEE_SAVED_X)}
        m.x.update(canaries)
        saved_v = {n: bytes([n]) * 16 for n in range(8, 16)}
        m.v.update(saved_v)
        code = [Instr("label", (Label(fn.name),))] + fn.code
        where = f"{fn.name}: {count} blocks{' in place' if in_place else ''}"
        try:
            m.run(code, fn.name)
        except MachineError as e:
            raise ModelError(f"{where}: {e}") from None
        for r, val in canaries.items():
            if m.x[r] != val:
                raise ModelError(f"{where}: callee-saved register {r} changed")
        for n, val in saved_v.items():
            if m.v[n][:8] != val[:8]:
                raise ModelError(f"{where}: callee-saved v{n} changed")
        want = reference_mode(v.direction, fn.mode, key, iv, data)
        expect_equal(where, mem.bytes_of("out"), want[0])
        if fn.mode == "cbc":
            expect_equal(f"{fn.name}: IV after {count} blocks", mem.bytes_of("iv"), want[1])

    def render(self, built: Built, renderer, verified: str) -> list[tuple[str, str]]:
        v = built.variant
        funcs = [{"name": fn.name, "mode": fn.mode, "plan": fn.plan.describe(),
                  "lines": [render(i) for i in fn.code],
                  "aes_ops": sum(1 for i in fn.code if i.op in AES_OPS)} for fn in built.functions]
        summary = [
            f"AArch64 Crypto Extensions, {len(VECTOR_POOL)} usable vector registers (v0-v7, v16-v31).",
            f"Interleave: {built.interleave} blocks per loop iteration, then one at a time.",
        ] + [f"{f['mode']}: {f['plan']}." for f in funcs] + [f"Verified: {verified}."]
        asm_text = renderer.render("aarch64/variant.S.j2", variant=v, summary=summary,
                                   context={"functions": funcs, "guard": self.compile_guard})
        expand = built.key_programs[0]
        rk_bytes = 16 * (reference.rounds_for(v.key_bits) + 1)
        c_text = renderer.render("hwloop/variant.c.j2", variant=v, summary=summary, context={
            "guard": self.compile_guard,
            "v": {"name": v.name, "symbol": v.symbol, "backend": v.backend, "key_bits": v.key_bits,
                  "direction": 0 if v.direction == "enc" else 1, "rank": v.rank,
                  "batch_blocks": built.interleave, "schedule_bytes": rk_bytes,
                  "schedule_note": " (equivalent inverse cipher)" if v.direction == "dec" else "",
                  "features": " | ".join(f"AESGEN_CPU_{f.upper()}" for f in v.target.cpu_features),
                  "info": f"interleave {built.interleave} blocks; "
                          + "; ".join(f"{f.mode}: {f.plan.policy}" for f in built.functions)},
            "expand": c.statements(expand),
            "inverse": c.statements(built.key_programs[1]) if len(built.key_programs) > 1 else [],
            "expanded_bytes": expand.memory("rkb").length,
            "functions": {fn.mode: fn.name for fn in built.functions},
        })
        stem = f"{v.target.ident}/{v.name}"
        return [(f"{stem}.S", asm_text), (f"{stem}.c", c_text)]
