"""Emitter `ppc64le_p8`: POWER8 vector crypto loops for little-endian Linux (GNU as).

vcipher/vcipherlast for encryption; vncipher/vncipherlast, which add the key before
InvMixColumns, decrypt with the encryption keys reversed. Blocks are loaded with lxvd2x
and put in state order with one vperm (mask built at entry), stored the same way back.
CTR keeps the counter as a 128-bit big-endian value and adds with vadduqm, so carries
cross every byte. N blocks per iteration over the 20 volatile vector registers, then one
at a time; every function is executed in the model (machine/ppc64le.py) before writing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import reference, schedule
from ..algorithm import aes, circuits
from ..ir import Program
from ..machine.common import MachineError, Memory, SCHEDULE_MISALIGN
from ..machine.ppc64le import AES_OPS, CALLEE_SAVED_R, VECTOR_POOL, Instr, Label, Machine, R, V, render
from ..model import ModelError, expect_equal
from ..schedule import Need, Plan
from ..targets import Field, Target, distinct, one_of, show
from ..variants import Variant
from . import c
from .hwloop import (DIRECTION_MODES, Asm, BlockLoop, Function, HwLoopEmitter, no_carry_counter,
                     reference_mode, schedule_bytes)

KEY_BITS = (128, 192, 256)
R0, RK, OUT, IN, N, IV = R(0), R(3), R(4), R(5), R(6), R(7)
# loop-carried values: the byte-order mask always, then the mode's own; final-round temporaries
NEEDS = {"ecb": (1, 0), "ctr": (3, 1), "cbc": (2, 1)}


@dataclass
class Built:
    variant: Variant
    interleave: int
    key_programs: tuple[Program, ...]
    functions: list[Function]


class LoopEmitter(BlockLoop):
    def reg(self, idx: int) -> V:
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

    def rounds(self, datas: list[V], fold=None) -> None:
        """Whitening with k0, rounds 1..Nr-1, and the last round; fold(j) gives data (a
        register, or an offset from `in` to load) to XOR into block j's output through
        the last key."""
        op, last = ("vncipher", "vncipherlast") if self.decrypt else ("vcipher", "vcipherlast")
        k = self.key(0)
        for d in datas:
            self.asm("vxor", d, d, k, key=("key", 0))
        for rnd in range(1, self.nr):
            k = self.key(rnd)
            for d in datas:
                self.asm(op, d, d, k, key=("key", rnd))
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
    def body(regs):
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

    def body(regs):
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

    def body(regs):
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


def _interleave_check(values):
    for v in values:
        if v != "auto" and not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 16):
            return f"{show(v)} must be \"auto\" or an integer 1..16"
    return distinct(values)


class Ppc64lePower8Emitter(HwLoopEmitter):
    name = "ppc64le_p8"
    parameters = ("interleave", "key_policy")
    cpu_features = ("ppc_vcrypto",)
    processor = "^(ppc64le|powerpc64le)$"
    compile_guard = "defined(__powerpc64__) && defined(__ELF__) && defined(__ORDER_LITTLE_ENDIAN__) && " \
                    "__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__"
    registers = len(VECTOR_POOL)
    schema = {
        "isa": {
            "aes_latency": Field(int, check=lambda v: None if 1 <= v <= 16 else f"{v} is outside 1..16"),
            "aes_issue_per_cycle": Field(int, check=lambda v: None if 1 <= v <= 8 else f"{v} is outside 1..8"),
        },
        "abi": {"convention": Field(str, check=one_of(("elfv2",), "calling convention"))},
        "variants": {
            "key_bits": Field(list, item=int, check=one_of(KEY_BITS, "key size")),
            "interleave": Field(list, item=(int, str), check=_interleave_check),
            "key_policy": Field(list, item=str, check=one_of(("auto",) + schedule.POLICIES, "key policy")),
        },
    }

    def _plan(self, target: Target, n: int, mode: str, key_bits: int, policy: str, direction: str) -> Plan:
        keys = reference.rounds_for(key_bits) + 1
        if mode == "cbc" and direction == "enc":
            need = Need(data=1, aux=1, temps=1, keys=keys, temp_phase="initial")
        else:
            aux, temps = NEEDS[mode]
            need = Need(data=n, aux=aux, temps=temps, keys=keys)
        return schedule.plan(need, self.registers, policy)

    def build(self, variant: Variant) -> Built:
        n = variant.param("interleave")
        decrypt = variant.direction == "dec"
        key_programs = (aes.key_expansion(variant.key_bits, circuits.load("bp113")),)
        if decrypt:
            key_programs += (aes.reversed_round_keys(variant.key_bits),)
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
        m.r.update({3: rk, 4: dst, 5: src, 6: count, 7: ivp})
        canaries = {r: 0x5A5A0000 + r for r in CALLEE_SAVED_R}
        m.r.update(canaries)
        saved_v = {n: bytes([n]) * 16 for n in range(20, 32)}
        m.v.update(saved_v)
        code = [Instr("label", (Label(fn.name),))] + fn.code
        where = f"{fn.name}: {count} blocks{' in place' if in_place else ''}"
        try:
            m.run(code, fn.name)
        except MachineError as e:
            raise ModelError(f"{where}: {e}") from None
        for r, val in canaries.items():
            if m.r[r] != val:
                raise ModelError(f"{where}: non-volatile r{r} changed")
        for n, val in saved_v.items():
            if m.v[n] != val:
                raise ModelError(f"{where}: non-volatile v{n} changed")
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
            f"POWER8 vector crypto, little-endian, {len(VECTOR_POOL)} volatile vector registers (v0-v19).",
            f"Interleave: {built.interleave} blocks per loop iteration, then one at a time.",
        ] + [f"{f['mode']}: {f['plan']}." for f in funcs] + [f"Verified: {verified}."]
        asm_text = renderer.render("ppc64le/variant.S.j2", variant=v, summary=summary,
                                   context={"functions": funcs, "guard": self.compile_guard})
        expand = built.key_programs[0]
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
            "expand": c.statements(expand),
            "inverse": c.statements(built.key_programs[1]) if len(built.key_programs) > 1 else [],
            "expanded_bytes": expand.memory("rkb").length,
            "functions": {fn.mode: fn.name for fn in built.functions},
        })
        stem = f"{v.target.ident}/{v.name}"
        return [(f"{stem}.S", asm_text), (f"{stem}.c", c_text)]
