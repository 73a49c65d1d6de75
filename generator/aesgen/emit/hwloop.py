"""The hardware-loop emitters' shared skeleton: one template method per stage of the
pipeline (validate, variants, build, verify, verify_assembled, render), the block loop
every ISA's mode functions are written against, and the reference output of each mode.

An ISA emitter is a HwLoopEmitter subclass that supplies hooks and nothing else:

    machine                 its model module (machine/<isa>.py): Machine, render, parse,
                            same, TOOLCHAIN, AES_OPS, BRANCHES
    abi                     its calling convention (machine/abi.py)
    loop_class              its BlockLoop subclass: the ISA's spelling of each loop step
    mode_emitters           "ecb", "ctr", "cbc_enc", "cbc_dec" (and "xts", "cbc_lanes") -> function(loop)
    direction_modes         the modes of each direction, where an emitter adds "xts"
    asm_template            its .S template
    registers(target)       how many registers the plan may use
    summary(built)          the first header lines
and, where it differs from the default: need (what a mode's loop keeps in registers;
default one register per block, MODE_NEEDS), key_order, emit_setkey (an assembly key
set-up instead of the shared C one; with setkey_file and setkey_template, written once
into a file every variant of the emitter shares rather than into each .S; setkey_machine,
render_setkey_instr and setkey_summary where that file needs them), isa_fields,
check_isa, variant_params, lanes, plan_options, machine_for, render_instr, function_context, asm_context, features_of,
interleave_info, c_align, companion_functions (functions beside a mode's loop on its plan:
the x86-64 XTS units function), constant_registers (constants a loop keeps in spare
registers: the x86-64 byte-reversal mask), unrolls (HW_UNROLLS: "loop1" where the
BlockLoop emits round loops; such a rolled variant reads the anchored schedule, its
key set-up writes it, and its functions live once for every key size in loops_file).
"""

from __future__ import annotations

import functools
import random
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from .. import reference, reference_gcm, reference_xts, regplan
from ..algorithm import ghash
from ..features import c_mask
from ..ir import Loop, Program
from ..machine import objdump
from ..machine.abi import Abi
from ..machine.common import SCHEDULE_MISALIGN, Instr, Label, MachineError, Memory
from ..model import ModelError, execute, expect_equal
from ..regplan import KeyTracker, Need, Plan, PlanError
from ..space import Space
from ..targets import Field, Target, distinct, one_of, show
from ..variants import Variant, unroll_param
from . import keysetup
from .base import Emitter, SharedSource

KEY_BITS = (128, 192, 256)
SETKEY_KEYS = 3          # keys each shared assembly key set-up runs on: FIPS-197's and random ones
# mode -> (loop-carried values, final-round temporaries) of the parallel loops
MODE_NEEDS = {
    "ecb": (0, 0),
    "ctr": (1, 1),   # the counter; the input (or last key XOR input) for the final XOR
    "cbc": (1, 1),   # the chaining block; the previous ciphertext for the final XOR
}
# the modes every hardware loop offers; an emitter may add "xts" (direction_modes)
DIRECTION_MODES = {"enc": ("ecb", "ctr", "cbc"), "dec": ("ecb", "cbc")}
# CBC encryption of independent messages, one block of each per step (an emitter with a
# "cbc_lanes" mode emitter): one function for each of N, N/2 and N/4 vectors, so that a
# call with fewer messages than the widest takes a narrower one
CBC_LANE_KERNELS = 3              # AESGEN_CBC_LANE_KERNELS in runtime/src/aesgen_variant.h
# steps each lanes function runs in the model: every residue after one and two lines of
# 4 steps (a transposing function's unit)
LANE_STEPS = (0, 1, 2, 3, 4, 5, 6, 7, 9)
# scratch after a lanes function's chain values, bytes per lane (aesgen_variant.h's
# AESGEN_CBC_LANES_SCRATCH): 4 steps of every lane, where a function transposes them
LANES_SCRATCH = 64
# The GHASH of the stitched GCM loops (an emitter with a "gcm" mode emitter): the powers
# of H in the table they read, multiply, reduction. The loops read the hash-key table a
# GHASH variant of the same powers and multiply writes (ghash.table_layout; the runtime
# checks the names match), so this is the method of the ymm x86-64 GHASH variant
# (vpclmul256); an emitter may name another layout (gcm_table).
GCM_GHASH = (16, "karatsuba", "clmul")
GCM_MODES = ("gcm_seal", "gcm_open")
GCM_CHUNKS = (0, 1, 2, 3)        # whole chunks each GCM function runs in the model
XTS_UNITS = ((1, 1), (2, 1), (3, 1), (1, 2), (3, 2))   # (units, iterations each) of an XTS units function
XTS_KEY_BITS = (128, 256)        # the AES key sizes XTS is defined for (IEEE 1619)

# The schedule a rolled loop reads, "anchored": k0 at offset 0 and k1..kNr ending at the
# same offset for every key size (kNr at 16 ANCHOR_ROUNDS), then the round loops' start
# offsets as int64 (the index that counts up to 0): -16 (Nr - 1) for the whole middle,
# -16 (Nr - 1 - TAIL_ROUNDS) for its first part when split. So one function serves
# AES-128, -192 and -256 (OpenSSL's AES-NI code reads Nr from its AES_KEY the same way).
ANCHOR_ROUNDS = 14
ANCHORED_BYTES = 256
ANCHORED_NOTE = " (anchored: kNr at the same offset for every key size, then the round loops' starts)"
ROUND_LOOP_STARTS = 16 * (ANCHOR_ROUNDS + 1)
TAIL_ROUNDS = 5                  # a split middle's second loop: the last 5 middle rounds


def anchored_offset(position: int, nr: int) -> int:
    """Where schedule position `position` (0..Nr) lives in the anchored layout."""
    return 0 if position == 0 else 16 * (position + ANCHOR_ROUNDS - nr)


def anchored_schedule(schedule: bytes, nr: int) -> bytes:
    """A schedule of Nr + 1 round keys in the anchored layout, with its start offsets."""
    out = bytearray(ANCHORED_BYTES)
    for p in range(nr + 1):
        out[anchored_offset(p, nr):anchored_offset(p, nr) + 16] = schedule[16 * p:16 * p + 16]
    for i, count in enumerate((nr - 1, nr - 1 - TAIL_ROUNDS)):
        out[ROUND_LOOP_STARTS + 8 * i:ROUND_LOOP_STARTS + 8 * i + 8] = ((-16 * count) % (1 << 64)).to_bytes(8, "little")
    return bytes(out)


def anchored_rounds(nr: int) -> dict[int, int]:
    """Offset -> round key of the anchored layout (what the model tags a load with)."""
    return {anchored_offset(p, nr): p for p in range(nr + 1)}


def cbc_lane_vectors(n: int) -> list[int]:
    """The vector counts of an interleave-n variant's lanes functions, widest first."""
    return sorted({n >> k for k in range(CBC_LANE_KERNELS) if n >> k >= 1}, reverse=True)


@functools.lru_cache(maxsize=8)
def gcm_hash_table(key: bytes, powers: int, multiply: str) -> tuple[bytes, bytes]:
    """(H, the table of `powers` powers the set-up program of that multiply writes for it)
    of an AES key: what a GHASH variant of that layout hands the stitched loops."""
    reduction = GCM_GHASH[2]
    h = reference.encrypt_block(key, bytes(16))
    table = bytearray(ghash.table_bytes(powers, multiply))
    execute(ghash.setkey(powers, multiply=multiply, reduction=reduction), {"h": bytearray(h), "htable": table})
    return h, bytes(table)


def gcm_chunk(built: "Built", fn: "Function") -> int:
    """The blocks of one iteration of a stitched GCM function: the whole calls it takes."""
    return len(fn.plan.data) * built.lanes


def block_counts(lanes: int, step: int, extra: Sequence[int] = ()) -> list[int]:
    """Block counts around every loop boundary: none, one, a vector, a main-loop batch,
    two batches and their neighbours."""
    counts = {0, 1, 2, lanes - 1, lanes, lanes + 1, step - 1, step, step + 1,
              2 * step - 1, 2 * step, 2 * step + 1, 2 * step + lanes + 1, *extra}
    return sorted(c for c in counts if c >= 0)


def reference_mode(direction: str, mode: str, key: bytes, iv: bytes, data: bytes) -> tuple[bytes, bytes]:
    """(output, chaining value, counter or tweak after) of the reference AES in this mode.
    For "xts", iv is the encrypted tweak of the first block (one data unit's whole blocks)."""
    blocks = [data[i:i + 16] for i in range(0, len(data), 16)]
    if mode == "xts":
        f = reference.encrypt_block if direction == "enc" else reference.decrypt_block
        out, tweak = [], iv
        for b in blocks:
            out.append(reference.xor(f(key, reference.xor(b, tweak)), tweak))
            tweak = reference_xts.mul_alpha(tweak)
        return b"".join(out), tweak
    if mode == "ecb":
        f = reference.encrypt_block if direction == "enc" else reference.decrypt_block
        return b"".join(f(key, b) for b in blocks), iv
    if mode == "ctr":
        out, ctr = [], int.from_bytes(iv, "big")
        for b in blocks:
            out.append(reference.xor(b, reference.encrypt_block(key, ctr.to_bytes(16, "big"))))
            ctr = (ctr + 1) % (1 << 128)
        return b"".join(out), ctr.to_bytes(16, "big")
    out, chain = [], iv
    for b in blocks:
        if direction == "enc":
            chain = reference.encrypt_block(key, reference.xor(b, chain))
            out.append(chain)
        else:
            out.append(reference.xor(reference.decrypt_block(key, b), chain))
            chain = b
    return b"".join(out), chain


def no_carry_counter(iv: bytes, count: int) -> bytes:
    """A counter whose low 64 bits do not wrap within `count` blocks (what the caller
    guarantees the loops)."""
    low = int.from_bytes(iv[8:], "big") % ((1 << 64) - count - 1)
    return iv[:8] + low.to_bytes(8, "big")


class Asm:
    """Collects one function's instructions; numbers its local labels."""

    def __init__(self, fn: str):
        self.fn = fn
        self.code: list[Instr] = []

    def __call__(self, op, *args, key=None, note=""):
        self.code.append(Instr(op, tuple(args), key, note))

    def label(self, name: str) -> Label:
        return Label(f".L{self.fn}_{name}")

    def place(self, label: Label) -> None:
        self.code.append(Instr("label", (label,)))


@dataclass
class Function:
    """One emitted function: its symbol, the mode it serves ("setkey" for a key set-up),
    the register plan of its loop, and its instructions."""
    name: str
    mode: str
    plan: Plan | None
    code: list
    lanes: int = 0      # a "cbc_lanes" function: the messages it takes at once
    line_steps: int = 1   # ... and the steps it moves per lane as one vector (a whole line)
    table_powers: int = 0   # a GCM function: the powers of H in the table it reads
    table_multiply: str = ""  # ... and the multiply that table is laid out for


@dataclass
class Built:
    variant: Variant
    interleave: int                       # vectors per main-loop iteration
    lanes: int                            # blocks per vector register
    key_programs: tuple[Program | Loop, ...]     # the C key set-up (empty when setkey is assembly)
    setkey: Function | None               # an assembly key set-up
    functions: list[Function]             # the mode loops
    constants: list = field(default_factory=list)   # read-only data of the .S: (comment, bytes)
    omitted: list = field(default_factory=list)     # why an optional mode has no loop


@dataclass(frozen=True)
class Stage:
    """One loop of the skeleton. Each iteration takes `blocks` blocks in the plan data
    registers `regs` (of ISA-specific `shape`). A counted stage loops while `blocks`
    remain; the countdown stage (the last, one block at a time) while any remain.
    `entry` is the label the previous stage exits to; an absent stage only places it."""
    regs: list
    blocks: int
    loop: str = "loop"
    entry: str | None = None
    shape: object = None
    countdown: bool = False
    present: bool = True


class BlockLoop:
    """The loop skeleton of the hardware ISAs: round keys placed by a regplan.Plan
    (tracked register by register), the stages of `stages()` (by default N blocks per
    iteration, then one at a time). Subclasses provide the ISA's spelling of each step:

        reg(index, shape)     the register object for plan register `index`
        load_key(reg, rnd)    load round key `rnd` from the schedule into it
        key_memory(rnd)       round key `rnd` as a memory operand (where the plan allows)
        entry()               the function's first instructions (landing pads)
        loop_head(n, exit)    branch to `exit` when fewer than n blocks remain
        advance(n)            move in/out on by n blocks and count them off
        loop_back(n, top)     branch to `top` while n or more blocks remain
        skip_if_none(label)   branch to `label` when no block remains
        count_down_one(top)   one block done: advance, and branch to `top` if any remain
        ret()                 return
    """
    data_width = 1     # registers per block

    def __init__(self, key_bits: int, decrypt: bool, plan: Plan, asm: Asm):
        self.asm, self.plan = asm, plan
        self.nr = reference.rounds_for(key_bits)
        self.decrypt = decrypt
        self.kt = KeyTracker()

    def stages(self) -> list[Stage]:
        p = self.plan
        nvec = len(p.data) // self.data_width
        return [Stage(list(p.data), nvec, present=nvec > 1),
                Stage(list(p.data[:self.data_width]), 1, loop="block", entry="tail", countdown=True)]

    def memory_key(self, shape) -> bool:
        """Whether a streamed key of an op of this shape is read as a memory operand."""
        return self.plan.memory_operands

    def _key_operand(self, idx: int, shape=None):
        kw = self.plan.key_width
        return self.reg(idx, shape) if kw == 1 else tuple(self.reg(idx + i, shape) for i in range(kw))

    def _track_key(self, idx: int, rnd: int) -> None:
        for i in range(self.plan.key_width):
            self.kt.load_key(idx + i, rnd)

    def key(self, rnd: int, shape=None):
        """The operand holding round key `rnd` (a register, registers for keys wider
        than one, or memory), loading it into a rotating register first when streamed."""
        p = self.plan
        if not p.streamed(rnd):
            for i in range(p.key_width):
                self.kt.require(p.resident[rnd] + i, rnd)
            return self._key_operand(p.resident[rnd], shape)
        if self.memory_key(shape):
            return self.key_memory(rnd)
        idx = p.rotating[rnd % len(p.rotating)]
        self.load_key(self._key_operand(idx, shape), rnd, note=f"stream {self.key_label(rnd)}")
        self._track_key(idx, rnd)
        return self._key_operand(idx, shape)

    def key_label(self, rnd: int) -> str:
        """A round key's name in comments; a rolled loop's last one is kNr (the same text
        for every key size)."""
        if self.plan.rolled and rnd == self.nr:
            return "kNr"
        return f"k{rnd + self.plan.need.first_key}"

    def load_resident_keys(self) -> None:
        for rnd, idx in sorted(self.plan.resident.items()):
            self.load_key(self._key_operand(idx), rnd, note=self.key_label(rnd))
            self._track_key(idx, rnd)

    def restore_borrowed(self) -> None:
        for rnd in sorted(set(self.plan.borrowed.values())):
            idx = self.plan.resident[rnd]
            self.load_key(self._key_operand(idx), rnd,
                          note=f"reload k{rnd + self.plan.need.first_key} (borrowed as a temporary)")
            self._track_key(idx, rnd)

    def check_keys_valid(self, where: str) -> None:
        held = self.kt.keys()
        for rnd, idx in self.plan.resident.items():
            for i in range(self.plan.key_width):
                if held.get(idx + i) != rnd:
                    raise PlanError(f"{self.asm.fn}: at {where}, register {idx + i} does not hold round key {rnd}")

    def parallel(self, body: Callable, setup: Callable | None = None, finish: Callable | None = None,
                 enter: Callable | None = None) -> None:
        """body(plan data registers, shape) emits one iteration over those registers;
        enter(stage), where given, runs once before a counted stage's first iteration."""
        a = self.asm
        self.entry()
        self.load_resident_keys()
        if setup:
            setup()
        stages = self.stages()
        done = a.label("done")
        exits = [a.label(s.entry) if s.entry else None for s in stages[1:]] + [done]
        for i, s in enumerate(stages):
            if s.entry:
                a.place(exits[i - 1])
            if not s.present:
                continue
            where = "loop back edge" if i == 0 else f"{s.loop} loop back edge"
            if s.countdown:
                self.skip_if_none(done)
                top = a.label(s.loop)
                a.place(top)
                body(s.regs, s.shape)
                self.check_keys_valid(where)
                self.count_down_one(top)
                continue
            self.loop_head(s.blocks, exits[i])
            if enter:
                enter(s)
            top = a.label(s.loop)
            a.place(top)
            if i == 0:
                self.check_keys_valid("loop head")
            body(s.regs, s.shape)
            self.advance(s.blocks)
            self.check_keys_valid(where)
            self.loop_back(s.blocks, top)
        a.place(done)
        if finish:
            finish()
        self.ret()


# "full": every round written out; "loop1": the middle rounds a loop, one round per trip
# (an emitter may pair them where a trip is short), its key read from the schedule (a
# small library's form; docs/install.md)
HW_UNROLLS = ("full", "loop1")


def interleave_check(maximum: int):
    def check(values):
        for v in values:
            if v != "auto" and not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= maximum):
                return f"{show(v)} must be \"auto\" or an integer 1..{maximum}"
        return distinct(values)
    return check


def _range(lo: int, hi: int):
    return lambda v: None if lo <= v <= hi else f"{v} is outside {lo}..{hi}"


class HwLoopEmitter(Emitter):
    """The template method of every N-block interleaved hardware loop (see the module
    docstring for the hooks)."""
    machine = None
    abi: Abi
    loop_class: type[BlockLoop] = BlockLoop
    mode_emitters: dict = {}
    direction_modes: dict = DIRECTION_MODES   # direction -> the modes its variants offer
    # modes a variant may go without when its key policy cannot hold their loop (a forced
    # policy of a sweep): the runtime then serves them around ecb, and the header says so
    optional_modes: tuple = ()
    asm_template: str = ""
    key_order = {"enc": "forward", "dec": "equivalent_inverse"}
    independent_ops = 1          # AES ops one block offers per round (the T4 has two halves)
    max_interleave = 16
    policies = ("auto",) + regplan.POLICIES
    isa_fields: dict = {}        # [isa] fields beyond the AES timing
    checked = "every AES op checked to read the round key it names"
    c_align: int | None = None   # the loops need buffers aligned to this (the C side bounces)
    parameters = ("interleave", "key_policy")
    # HW_UNROLLS an ISA's BlockLoop can emit; one without a round loop only "full"
    unrolls: tuple = ("full",)
    # blocks in flight (the seed's two-block observation, generalised) and how round keys
    # live in registers; other key policies can be swept with --space
    sweep = Space(values={"interleave": (1, 2, 3, 4, 6, 8), "key_policy": ("auto",)})

    @property
    def schema(self) -> dict:
        return {
            "isa": {"aes_latency": Field(int, check=_range(1, 16)),
                    "aes_issue_per_cycle": Field(int, check=_range(1, 8)), **self.isa_fields},
            "abi": {"convention": Field(str, check=one_of((self.abi.convention,), "calling convention"))},
            "variants": {
                "key_bits": Field(list, item=int, check=one_of(KEY_BITS, "key size")),
                "interleave": Field(list, item=(int, str), check=interleave_check(self.max_interleave)),
                "key_policy": Field(list, item=str, check=one_of(self.policies, "key policy")),
                "unroll": Field(list, item=str, required=False, default=["full"],
                                check=one_of(self.unrolls, "unroll")),
            },
        }

    mode_needs = MODE_NEEDS      # mode -> (loop-carried values, final-round temporaries)
    chain_aux = 0                # loop-carried values of CBC encryption's one-block chain

    # ------------------------------------------------------------------ hooks
    @staticmethod
    def rolled(variant: Variant) -> bool:
        """A rolled variant: round loops on the anchored schedule, its functions the same
        for every key size, so they live in one shared file (loops_file)."""
        return variant.param("unroll", "full") != "full"

    def prefix(self, variant: Variant) -> str:
        """The functions' symbol prefix: the variant's, or for a rolled variant the one its
        key sizes share."""
        if self.rolled(variant):
            return f"aesgen_{variant.target.ident}_{variant.how}_{variant.direction}"
        return f"aesgen_{variant.name}"

    def loops_file(self, variant: Variant) -> str:
        return f"common/{variant.target.ident}_{variant.how}_{variant.direction}.S"

    def need(self, target: Target, mode: str, direction: str, n: int, key_bits: int, rolled: bool = False) -> Need:
        """What one mode's loop keeps in registers: by default one register per block
        (rolled: for a round loop's plan, where a mode's form depends on it)."""
        keys = reference.rounds_for(key_bits) + 1
        if mode == "cbc" and direction == "enc":   # a chain: one block, its temporary before round 1
            return Need(data=1, aux=self.chain_aux, temps=1, keys=keys, temp_phase="initial")
        aux, temps = self.mode_needs[mode]
        return self.with_constants(target, mode, Need(data=n, aux=aux, temps=temps, keys=keys), rolled)

    def constant_registers(self, target: Target, mode: str) -> int:
        """Constants a mode's loop keeps in registers rather than reading them from memory
        at each use, where every round key stays resident beside them (hook; after the
        mode's own loop-carried values in the plan's aux)."""
        return 0

    def with_constants(self, target: Target, mode: str, need: Need, rolled: bool = False) -> Need:
        """rolled: a round loop holds k0, kNr and the loop's key (the same for every key size)."""
        extra = self.constant_registers(target, mode)
        keys = regplan.key_registers(need, rolled)
        if extra and need.data + need.aux + extra + need.temps + keys <= self.registers(target):
            return replace(need, aux=need.aux + extra)
        return need

    def registers(self, target: Target) -> int:
        raise NotImplementedError

    def plan_options(self, target: Target) -> dict:
        """Extra regplan.plan arguments: memory_operands, key_width, rotating."""
        return {}

    def key_plan(self, variant: Variant, need: Need) -> Plan:
        """regplan.plan for one of the variant's loops: its key policy, its unroll."""
        return regplan.plan(need, self.registers(variant.target), variant.param("key_policy"),
                            rolled=variant.param("unroll", "full") != "full", **self.plan_options(variant.target))

    def lanes(self, target: Target) -> int:
        return 1

    def check_isa(self, target: Target) -> None:
        pass

    def variant_params(self, target: Target) -> tuple:
        return ()

    def emit_setkey(self, asm: Asm, key_bits: int, decrypt: bool) -> None:
        """An assembly key set-up; emitters without one get the C key set-up."""
        raise NotImplementedError

    # the shared file of the assembly key set-ups (every key size and order, one function
    # each) and its template; None: each variant's .S holds its own
    setkey_file: str | None = None
    setkey_template: str = ""

    def setkey_machine(self, built: Built | None, mem: Memory):
        """The model that runs an assembly key set-up (built: None for the shared file)."""
        return self.machine_for(built, mem, None)

    def render_setkey_instr(self, ins: Instr) -> str:
        return self.machine.render(ins)

    def setkey_summary(self) -> list[str]:
        return []

    @property
    def has_asm_setkey(self) -> bool:
        return type(self).emit_setkey is not HwLoopEmitter.emit_setkey

    def new_constants(self, target: Target):
        return None

    def loop(self, variant: Variant, plan: Plan, asm: Asm, constants) -> BlockLoop:
        return self.loop_class(variant.key_bits, variant.direction == "dec", plan, asm)

    def summary(self, built: Built) -> list[str]:
        raise NotImplementedError

    def setkey_plan(self, built: Built) -> str:
        return "round keys"

    def machine_for(self, built: Built, mem: Memory, rodata: tuple[int, bytes] | None):
        return self.machine.Machine(mem, "rk")

    def render_instr(self, built: Built, ins: Instr) -> str:
        return self.machine.render(ins)

    def function_context(self, built: Built, fn: Function) -> dict:
        return {"name": fn.name, "mode": f"{fn.mode} ({fn.lanes} lanes)" if fn.lanes else fn.mode,
                "plan": fn.plan.describe() if fn.plan else self.setkey_plan(built),
                "lines": [self.render_instr(built, i) for i in fn.code],
                "aes_ops": sum(1 for i in fn.code if i.op in self.machine.AES_OPS + self.key_ops)}

    key_ops: tuple = ()          # key-schedule instructions counted with the AES ops

    def asm_context(self, built: Built) -> dict:
        return {}

    def features_of(self, variant: Variant) -> str:
        return c_mask(variant.target.cpu_features)

    def interleave_info(self, built: Built) -> str:
        return f"interleave {built.interleave} blocks"

    # ------------------------------------------------------------------ validate, variants
    def _interleaves(self, target: Target) -> list[int]:
        isa = target.sections["isa"]
        auto = regplan.default_interleave(isa["aes_latency"], isa["aes_issue_per_cycle"],
                                          independent_ops=self.independent_ops)
        auto = min(auto, self.max_interleave)
        return [auto if v == "auto" else v for v in target.sections["variants"]["interleave"]]

    def _plan(self, target: Target, n: int, mode: str, key_bits: int, policy: str, direction: str,
              unroll: str = "full") -> Plan:
        rolled = unroll != "full"
        return regplan.plan(self.need(target, mode, direction, n, key_bits, rolled), self.registers(target), policy,
                            rolled=rolled, **self.plan_options(target))

    def validate(self, target: Target) -> None:
        self.check_isa(target)
        for n, policy, unroll in self._forms(target):
            for bits in target.sections["variants"]["key_bits"]:
                for direction, modes in self.direction_modes.items():
                    for mode in modes:
                        try:
                            self._plan(target, n, mode, bits, policy, direction, unroll)
                        except PlanError as e:
                            if mode in self.optional_modes:
                                continue
                            raise target.error("variants.key_policy",
                                               f"AES-{bits} {direction} {mode}, interleave {n}: {e}") from None

    def _forms(self, target: Target) -> list[tuple[int, str, str]]:
        """(interleave, key policy, unroll) of the target's variants: a rolled loop places
        its keys itself (regplan.ROLLED_POLICIES), so it comes once, with the policy "auto",
        whatever policies the target lists."""
        spec = target.sections["variants"]
        forms = [(n, policy if unroll == "full" else "auto", unroll) for n in self._interleaves(target)
                 for unroll in spec["unroll"] for policy in spec["key_policy"]]
        return list(dict.fromkeys(forms))

    def variants(self, target: Target) -> list[Variant]:
        out = []
        for n, policy, unroll in self._forms(target):
            rolled, suffix = unroll_param(unroll)
            for key_bits in target.sections["variants"]["key_bits"]:
                for direction in ("enc", "dec"):
                    how = f"x{n}" + ("" if policy == "auto" else f"_{policy}") + suffix
                    params = (("interleave", n), ("key_policy", policy)) + rolled + self.variant_params(target)
                    out.append(Variant(target, key_bits, direction, how, params, target.rank))
        return out

    def outputs(self, variant: Variant) -> list[str]:
        stem = f"{variant.target.ident}/{variant.name}"
        return [f"{stem}.c"] if self.rolled(variant) else [f"{stem}.S", f"{stem}.c"]

    # ------------------------------------------------------------------ build
    def build(self, variant: Variant) -> Built:
        target = variant.target
        n = variant.param("interleave")
        setkey, programs = None, ()
        if self.has_asm_setkey:
            anchored = self.rolled(variant)
            name = (self.shared_setkey_symbol(variant.key_bits, variant.direction, anchored) if self.setkey_file
                    else f"aesgen_{variant.name}_expand_key")
            setkey = self.setkey_function(name, variant.key_bits, variant.direction, anchored)
        else:
            programs = keysetup.programs(variant.key_bits, self.key_order[variant.direction])
        constants = self.new_constants(target)
        functions, omitted = [], []
        modes = self.direction_modes[variant.direction]
        # xts, the one mode some key sizes lack, last in a rolled variant: the read-only
        # table of AES-192's shared functions is then a prefix of AES-128's
        late = ("xts",) if self.rolled(variant) else ()
        for mode in modes:
            if mode not in late:
                functions += self.mode_functions(variant, mode, n, constants, omitted)
        if variant.direction == "enc" and "cbc_lanes" in self.mode_emitters:
            functions += self.cbc_lanes_functions(variant, n, constants, omitted)
        if variant.direction == "enc" and "gcm" in self.mode_emitters:
            functions += self.gcm_functions(variant, constants, omitted)
        for mode in modes:
            if mode in late:
                functions += self.mode_functions(variant, mode, n, constants, omitted)
        return Built(variant, n, self.lanes(target), programs, setkey, functions,
                     constants.items if constants is not None else [], omitted)

    def mode_functions(self, variant: Variant, mode: str, n: int, constants, omitted: list) -> list[Function]:
        """One mode's loop and its companions; none (and `omitted` says why) for XTS at
        AES-192 or an optional mode whose plan does not fit."""
        if mode == "xts" and variant.key_bits not in XTS_KEY_BITS:
            omitted.append(f"xts: none for AES-{variant.key_bits} (IEEE 1619 defines XTS for AES-128 and "
                           f"AES-256 keys only; aesgen_xts_init refuses the rest)")
            return []
        try:
            plan = self.key_plan(variant, self.need(variant.target, mode, variant.direction, n, variant.key_bits,
                                                    self.rolled(variant)))
        except PlanError as e:
            if mode not in self.optional_modes:
                raise
            omitted.append(f"{mode}: no loop ({e}); the runtime serves it around ecb")
            return []
        sym = f"{self.prefix(variant)}_{mode}" + ("_nocarry" if mode == "ctr" else "")
        asm = Asm(sym)
        decrypt = variant.direction == "dec"
        emit = self.mode_emitters[mode if mode != "cbc" else ("cbc_dec" if decrypt else "cbc_enc")]
        emit(self.loop(variant, plan, asm, constants))
        return [Function(sym, mode, plan, asm.code)] + self.companion_functions(variant, mode, plan, constants)

    def cbc_lanes_functions(self, variant: Variant, n: int, constants, omitted: list) -> list[Function]:
        """The lanes functions: chain values in the data registers, a temporary for the
        gathered plaintext before round 1, keys by the variant's policy. A width whose
        plan does not fit the budget (a forced policy) is left out, and `omitted` says so;
        the runtime then takes a narrower one, or the ECB loop."""
        out = []
        for vectors in cbc_lane_vectors(n):
            lanes = vectors * self.lanes(variant.target)
            try:
                plan = self.cbc_lanes_plan(variant, vectors)
            except PlanError as e:
                omitted.append(f"cbc_lanes{lanes}: no function ({e})")
                continue
            asm = Asm(f"{self.prefix(variant)}_cbc_lanes{lanes}")
            line = self.mode_emitters["cbc_lanes"](self.loop(variant, plan, asm, constants))
            out.append(Function(asm.fn, "cbc_lanes", plan, asm.code, lanes, line_steps=line or 1))
        return out

    def cbc_lanes_plan(self, variant: Variant, vectors: int) -> Plan:
        """The register plan of a lanes function of `vectors` chain registers (hook): one
        temporary for the gathered plaintext before round 1."""
        need = Need(data=vectors, aux=0, temps=1, keys=reference.rounds_for(variant.key_bits) + 1,
                    temp_phase="initial")
        return self.key_plan(variant, need)

    def companion_functions(self, variant: Variant, mode: str, plan: Plan, constants) -> list[Function]:
        """Further functions an ISA emits beside one mode's loop, on its plan (hook): the
        x86-64 XTS units function."""
        return []

    def gcm_temps(self, target: Target, prog: Program, constants, fused: bool) -> int:
        """Registers the stitched loop's GHASH program needs at once (hook); fused: with
        its XORs fused into three-input ones where the ISA has them."""
        raise NotImplementedError

    def gcm_table(self, target: Target) -> tuple[int, str]:
        """(powers of H, multiply) of the table the stitched loops read: the layout of the
        GHASH variant the runtime pairs with this target's AES variants."""
        return GCM_GHASH[0], GCM_GHASH[1]

    def gcm_functions(self, variant: Variant, constants, omitted: list) -> list[Function]:
        """The stitched GCM functions, seal and open: chunks of C blocks (a whole number of
        hashes of the table's powers of H, one reduction each) in C / lanes data vectors,
        the counter and y carried, the hash's registers temporaries that live through
        every round, its XORs fused into three-input ones unless that costs resident
        round keys. C is the variant's interleave rounded down to whole hashes, at least
        the vectors that keep the AES unit busy (latency x issue): a narrower chunk waits
        on every round and ran slower than the two passes (AES-NI with 4 xmm: 0.86-0.95x).
        Where nothing fits there are none, `omitted` says why, and the runtime runs CTR
        and GHASH in two passes."""
        target = variant.target
        (blocks, multiply), reduction = self.gcm_table(target), GCM_GHASH[2]
        lanes = self.lanes(target)
        if blocks % lanes:
            omitted.append(f"gcm: no stitched loop ({blocks} blocks per reduction are no whole number of vectors)")
            return []
        isa = target.sections["isa"]
        busy = regplan.default_interleave(isa["aes_latency"], isa["aes_issue_per_cycle"], self.independent_ops)
        prog = ghash.update_unsummed(blocks, lanes, multiply, reduction)
        # the seal's blocks before and after the text (a short AAD, the lengths block): one
        # block on the same table
        one_block = ghash.update_unsummed(1, 1, multiply, reduction, table_powers=blocks)
        per_hash = blocks // lanes
        keys = reference.rounds_for(variant.key_bits) + 1
        error = None
        widest = max(per_hash, variant.param("interleave") // per_hash * per_hash)
        for vectors in range(widest, busy - 1, -per_hash):
            plans = []
            for fused in (True, False):     # the fewest operations, unless that costs resident keys
                need = self.with_constants(target, "gcm", Need(
                    data=vectors, aux=2, temps=self.gcm_temps(target, prog, constants, fused), keys=keys,
                    temp_phase="all"), self.rolled(variant))
                try:
                    plans.append((self.key_plan(variant, need), fused))
                except PlanError as e:
                    error = e
            if plans:
                plan, fused = next((p for p in plans if p[0].policy == "resident"), plans[0])
                out = []
                for mode in GCM_MODES:
                    asm = Asm(f"{self.prefix(variant)}_{mode}")
                    self.mode_emitters["gcm"](self.loop(variant, plan, asm, constants), mode == "gcm_seal", prog,
                                              one_block, fused)
                    out.append(Function(asm.fn, mode, plan, asm.code, table_powers=blocks,
                                        table_multiply=multiply))
                return out
        reason = f"{error}; " if error else ""
        omitted.append(f"gcm: no stitched loop ({reason}fewer than {busy} data vectors would leave the AES unit "
                       f"waiting); the runtime runs CTR and GHASH in two passes")
        return []

    def setkey_function(self, name: str, key_bits: int, direction: str, anchored: bool = False) -> Function:
        asm = Asm(name)
        if anchored:
            self.emit_setkey(asm, key_bits, direction == "dec", anchored=True)
        else:
            self.emit_setkey(asm, key_bits, direction == "dec")
        return Function(name, "setkey", None, asm.code)

    def shared_setkey_symbol(self, key_bits: int, direction: str, anchored: bool = False) -> str:
        return f"aesgen_{self.name}_setkey_aes{key_bits}_{self.key_order[direction]}" + \
            ("_anchored" if anchored else "")

    # ------------------------------------------------------------------ verify
    @staticmethod
    def _codes(built: Built) -> dict[str, list[Instr]]:
        fns = ([built.setkey] if built.setkey else []) + built.functions
        return {fn.name: fn.code for fn in fns}

    def _call(self, m, mem: Memory, code: list[Instr], entry: str, args: Sequence[int], where: str) -> None:
        """Run one function as its caller would: arguments in the ABI's registers, every
        register the caller expects back planted with a canary and checked after."""
        abi = self.abi
        top = None
        if abi.stack_bytes:
            top = mem.add("stack", bytes(abi.stack_bytes)) + abi.stack_bytes
            m.set_gpr(abi.stack_pointer, top)
        for name, value in zip(abi.args, args):
            m.set_gpr(name, value)
        canaries = {r: 0x5A5A0000 + i for i, r in enumerate(abi.preserved)}
        for r, value in canaries.items():
            m.set_gpr(r, value)
        vectors = {n: bytes([n]) * 16 for n in abi.preserved_vectors}
        for n, value in vectors.items():
            m.set_vector(n, value)
        try:
            m.run([Instr("label", (Label(entry),))] + code, entry)
        except MachineError as e:
            raise ModelError(f"{where}: {e}") from None
        for r, value in canaries.items():
            if m.gpr(r) != value:
                raise ModelError(f"{where}: callee-saved register {r} changed")
        for n, value in vectors.items():
            keep = abi.preserved_vectors[n]
            if m.vector(n)[:keep] != value[:keep]:
                raise ModelError(f"{where}: callee-saved vector register {n} changed")
        if top is not None and m.gpr(abi.stack_pointer) != top:
            raise ModelError(f"{where}: the stack pointer was not restored")

    def schedule_bytes(self, built: Built, key: bytes, codes: dict | None = None) -> bytes:
        """The round keys for `key`: from the C key set-up programs, or by running the
        assembly key set-up in the model (which must write the reference schedule)."""
        order = self.key_order[built.variant.direction]
        if built.setkey is None:
            return keysetup.run_programs(built.key_programs, key, keysetup.output(order))
        fn = built.setkey
        return self.run_setkey(built, (codes or {}).get(fn.name, fn.code), fn.name, key, order,
                               self.rolled(built.variant))

    def run_setkey(self, built: Built | None, code: list[Instr], name: str, key: bytes, order: str,
                   anchored: bool = False) -> bytes:
        """Run an assembly key set-up in the model; it must write the reference schedule
        in `order` (anchored: in the anchored layout). A shared one reads the caller's key
        in place, so the model gives it a buffer of exactly the key's length (reading past
        it faults); a per-variant one gets the C wrapper's 32-byte aligned copy."""
        nr = reference.rounds_for(8 * len(key))
        want = keysetup.reference_schedule(key, order)
        if anchored:
            want = anchored_schedule(want, nr)
        mem = Memory()
        rk = mem.add("rk", b"\xa5" * len(want), misalign=SCHEDULE_MISALIGN)   # every byte must be written
        kp = mem.add("key", key if self.setkey_file else key.ljust(32, b"\0"))
        m = self.setkey_machine(built, mem)
        self._call(m, mem, code, name, (rk, kp), name)
        expect_equal(f"{name}: round keys", mem.bytes_of("rk"), want)
        return mem.bytes_of("rk")

    def _run(self, built: Built, fn: Function, code: list[Instr], keyed: tuple[bytes, bytes], count: int,
             in_place: bool, rng, rodata: tuple[int, bytes] | None = None) -> None:
        """One model run of one mode function against the reference."""
        v = built.variant
        key, sched = keyed
        data = rng.randbytes(16 * count)
        iv = rng.randbytes(16)
        if fn.mode == "ctr":   # keep clear of a carry out of the low 64 bits, as the caller does
            iv = no_carry_counter(iv, count)
        mem = Memory()
        rk = mem.add("rk", sched, misalign=SCHEDULE_MISALIGN)
        src = mem.add("in", data)
        dst = mem.add("out", data, alias_of="in") if in_place else mem.add("out", bytes(16 * count))
        ivp = mem.add("iv", iv)
        m = self.machine_for(built, mem, rodata)
        where = f"{fn.name}: {count} blocks{' in place' if in_place else ''}"
        self._call(m, mem, code, fn.name, (rk, dst, src, count, ivp), where)
        want = reference_mode(v.direction, fn.mode, key, iv, data)
        expect_equal(where, mem.bytes_of("out"), want[0])
        if fn.mode in ("cbc", "xts"):
            expect_equal(f"{fn.name}: IV after {count} blocks", mem.bytes_of("iv"), want[1])

    def _run_units(self, built: Built, fn: Function, code: list[Instr], keyed: tuple[bytes, bytes], units: int,
                   unit_blocks: int, in_place: bool, rng, rodata: tuple[int, bytes] | None = None) -> None:
        """One model run of an XTS units function: `units` data units of unit_blocks
        blocks, each with its own encrypted tweak, against the reference XTS of each."""
        key, sched = keyed
        data, tweaks = rng.randbytes(16 * units * unit_blocks), rng.randbytes(16 * units)
        mem = Memory()
        rk = mem.add("rk", sched, misalign=SCHEDULE_MISALIGN)
        src = mem.add("in", data, misalign=rng.randrange(16))
        dst = mem.add("out", data, alias_of="in") if in_place else \
            mem.add("out", bytes(len(data)), misalign=rng.randrange(16))
        tp = mem.add("tweaks", tweaks)
        m = self.machine_for(built, mem, rodata)
        where = f"{fn.name}: {units} units of {unit_blocks} blocks{' in place' if in_place else ''}"
        self._call(m, mem, code, fn.name, (rk, dst, src, unit_blocks, tp, units), where)
        span = 16 * unit_blocks
        want = b"".join(reference_mode(built.variant.direction, "xts", key, tweaks[16 * i:16 * i + 16],
                                       data[span * i:span * (i + 1)])[0] for i in range(units))
        expect_equal(where, mem.bytes_of("out"), want)
        expect_equal(f"{where}: the tweaks, read only", mem.bytes_of("tweaks"), tweaks)

    def _run_lanes(self, fn: Function, code: list[Instr], keyed: tuple[bytes, bytes], steps: int, in_place: bool,
                   rng, machine) -> None:
        """One model run of a lanes function: every lane's message at its own misalignment,
        against the reference CBC encryption of each."""
        key, sched = keyed
        mem = Memory()
        rk = mem.add("rk", sched, misalign=SCHEDULE_MISALIGN)
        datas = [rng.randbytes(16 * steps) for _ in range(fn.lanes)]
        chains = rng.randbytes(16 * fn.lanes)
        ins, outs = [], []
        for i, data in enumerate(datas):
            ins.append(mem.add(f"in{i}", data, misalign=rng.randrange(16)))
            outs.append(mem.add(f"out{i}", data, alias_of=f"in{i}") if in_place else
                        mem.add(f"out{i}", bytes(16 * steps), misalign=rng.randrange(16)))
        pointers = lambda addrs: b"".join(x.to_bytes(8, "little") for x in addrs)
        inp, outp = mem.add("in_pointers", pointers(ins)), mem.add("out_pointers", pointers(outs))
        cp = mem.add("chains", chains + bytes(LANES_SCRATCH * fn.lanes))
        m = machine(mem)
        where = f"{fn.name}: {steps} steps{' in place' if in_place else ''}"
        self._call(m, mem, code, fn.name, (rk, outp, inp, steps, cp), where)
        for i, data in enumerate(datas):
            out, chain = reference_mode("enc", "cbc", key, chains[16 * i:16 * i + 16], data)
            expect_equal(f"{where}, lane {i}", mem.bytes_of(f"out{i}"), out)
            expect_equal(f"{where}, lane {i}: chain value after", mem.bytes_of("chains")[16 * i:16 * i + 16], chain)

    def _run_gcm(self, fn: Function, code: list[Instr], keyed: tuple[bytes, bytes], chunks: int, in_place: bool,
                 rng, machine, chunk: int) -> None:
        """One model run of a stitched GCM function over whole chunks against the reference
        CTR and GHASH (of the output when sealing, of the input when opening), with the
        hash-key table the GHASH set-up program writes for this key. A seal hashes one
        block more after the text in half its runs (chunks + in_place odd) and one before
        it in half (chunks even), none in the others (the address 0)."""
        key, sched = keyed
        count = chunks * chunk
        h, table = gcm_hash_table(key, fn.table_powers, fn.table_multiply)
        data, y = rng.randbytes(16 * count), rng.randbytes(16)
        iv = no_carry_counter(rng.randbytes(16), count)
        mem = Memory()
        rk = mem.add("rk", sched, misalign=SCHEDULE_MISALIGN)
        src = mem.add("in", data, misalign=rng.randrange(16))
        dst = mem.add("out", data, alias_of="in") if in_place else \
            mem.add("out", bytes(16 * count), misalign=rng.randrange(16))
        ivp = mem.add("iv", iv)
        tp = mem.add("htable", table, misalign=8)
        seal = fn.mode == "gcm_seal"
        after = rng.randbytes(16) if seal and (chunks + in_place) % 2 else b""
        before = rng.randbytes(16) if seal and chunks % 2 == 0 else b""
        ap = mem.add("after", after, misalign=rng.randrange(16)) if after else 0
        bp = mem.add("before", before, misalign=rng.randrange(16)) if before else 0
        gp = mem.add("hash_state", y + b"".join(x.to_bytes(8, "little") for x in (tp, ap, bp)), misalign=8)
        m = machine(mem)
        where = (f"{fn.name}: {count} blocks{' in place' if in_place else ''}{', a block before' if before else ''}"
                 f"{', a block after' if after else ''}")
        self._call(m, mem, code, fn.name, (rk, dst, src, count, ivp, gp), where)
        out, _ = reference_mode("enc", "ctr", key, iv, data)
        expect_equal(where, mem.bytes_of("out"), out)
        hashed = out if seal else data
        expect_equal(f"{where}: y", mem.bytes_of("hash_state")[:16], reference_gcm.ghash(h, before + hashed + after, y))

    def _run_all(self, built: Built, codes: dict[str, list[Instr]], nkeys: int, salt: int,
                 rodata: tuple[int, bytes] | None = None) -> tuple[int, list[int]]:
        """Every function at every block count, in place and out of place, cycling through
        the FIPS-197 key and nkeys - 1 random keys."""
        v = built.variant
        rng = random.Random(zlib.crc32(v.name.encode()) ^ salt)
        keys = [bytes(range(v.key_bits // 8))] + [rng.randbytes(v.key_bits // 8) for _ in range(nkeys - 1)]
        schedules = [(key, self.schedule_bytes(built, key, codes)) for key in keys]
        # the loop boundaries, and every whole number of vectors below a batch and one block
        # more: every residue of a batch the tail loops can be left with
        counts = block_counts(built.lanes, built.interleave * built.lanes,
                              [k * built.lanes + r for k in range(2, built.interleave) for r in (0, 1)])
        runs = 0
        for fn in built.functions:
            if fn.mode in GCM_MODES:
                for chunks in GCM_CHUNKS:
                    for in_place in (False, True):
                        self._run_gcm(fn, codes[fn.name], schedules[runs % len(schedules)], chunks, in_place, rng,
                                      lambda mem: self.machine_for(built, mem, rodata), gcm_chunk(built, fn))
                        runs += 1
                continue
            if fn.mode == "xts_units":
                chunk = len(fn.plan.data) * built.lanes
                for units, multiple in XTS_UNITS:
                    for in_place in (False, True):
                        self._run_units(built, fn, codes[fn.name], schedules[runs % len(schedules)], units,
                                        multiple * chunk, in_place, rng, rodata)
                        runs += 1
                continue
            if fn.mode == "cbc_lanes":
                for steps in LANE_STEPS:
                    for in_place in (False, True):
                        self._run_lanes(fn, codes[fn.name], schedules[runs % len(schedules)], steps, in_place, rng,
                                        lambda mem: self.machine_for(built, mem, rodata))
                        runs += 1
                continue
            for count in counts:
                for in_place in (False, True):
                    self._run(built, fn, codes[fn.name], schedules[runs % len(schedules)], count, in_place,
                              rng, rodata)
                    runs += 1
        return runs, counts

    def verify(self, built: Built) -> str:
        runs, counts = self._run_all(built, self._codes(built), 3, 0)
        counted = (f"block counts {', '.join(map(str, counts))}, in place and out of place, the FIPS-197 key "
                   f"and 2 random keys")
        if any(fn.mode == "cbc_lanes" for fn in built.functions):
            counted += (f" (the CBC lanes functions: {', '.join(map(str, LANE_STEPS))} steps of every lane, each "
                        f"message at its own misalignment)")
        if any(fn.mode == "xts_units" for fn in built.functions):
            counted += (" (the XTS units function: " + ", ".join(f"{u} unit{'s' if u > 1 else ''} of {k} "
                                                                 f"iteration{'s' if k > 1 else ''}"
                                                                 for u, k in XTS_UNITS) + ", each its own tweak)")
        if any(fn.mode in GCM_MODES for fn in built.functions):
            chunk = next(gcm_chunk(built, fn) for fn in built.functions if fn.mode in GCM_MODES)
            counted += (f" (the GCM functions: {', '.join(map(str, GCM_CHUNKS))} chunks of {chunk} blocks, "
                        f"against the reference CTR and GHASH)")
        if built.setkey:
            where = f" ({self.setkey_path(self.rolled(built.variant))}, shared)" if self.setkey_file else ""
            return (f"the model ran the key set-up{where} on 3 keys against FIPS-197's key expansion, and every "
                    f"loop {runs} times: {counted}, against the reference AES, with {self.checked}")
        return (f"the model ran every function's instruction stream {runs} times: {counted} through the "
                f"generated key set-up, against the reference AES, with {self.checked}")

    def verify_assembled(self, built: Built, files: dict[str, str], include_dir, renderer=None) -> str:
        """Assemble the rendered .S (a rolled variant's: the shared loops file) with
        binutils, disassemble it, require every function to match the emitted stream
        instruction for instruction, and run the disassembly in the model."""
        m = self.machine
        text = (self.render_loops_file(built.variant, renderer, None) if self.rolled(built.variant)
                else files[self.outputs(built.variant)[0]])
        listing = objdump.disassemble(text, m.TOOLCHAIN, include_dir)
        parsed = objdump.read_functions(listing.text, m.parse, m.BRANCHES)
        emitted = self._codes(built)
        if self.setkey_file:     # read back from its own file (verify_setkey_assembled)
            del emitted[built.setkey.name]
        codes, problem = objdump.match(emitted, parsed, m.same, getattr(m, "PADDING", frozenset({"pad"})))
        if problem:
            raise ModelError(problem)
        rodata = (listing.rodata_at, listing.rodata) if m.TOOLCHAIN.link else None
        runs, _ = self._run_all(built, codes, 2, 0xA55E, rodata)
        return f"{len(codes)} functions, {runs} model runs of the disassembled machine code"

    # ------------------------------------------------------------------ render
    def shared(self, variant: Variant) -> list[SharedSource]:
        loops = [SharedSource(self.loops_file(variant), functools.partial(self.render_loops_file, variant))] \
            if self.rolled(variant) else []
        if self.setkey_file:
            anchored = self.rolled(variant)
            return [SharedSource(self.setkey_path(anchored),
                                 functools.partial(self.render_setkey_file, anchored=anchored))] + loops
        if self.has_asm_setkey:
            return loops
        return [keysetup.source(variant.key_bits, self.key_order[variant.direction])] + loops

    def render_loops_file(self, variant: Variant, renderer, guard: str | None) -> str:
        """The shared file of a rolled variant's functions: one copy for every key size
        (the round loops read the anchored schedule). Built for each key size the target
        lists; a function two key sizes both have must come out the same text, and the
        file has every function any of them has (XTS: AES-128 and AES-256 only). Each
        variant's own model run checks the code its key size built (its header says so)."""
        builts = [self.build(replace(variant, key_bits=bits)) for bits in variant.target.sections["variants"]["key_bits"]]
        texts: dict[str, tuple[list[str], Built, Function]] = {}
        for b in builts:
            for fn in b.functions:
                lines = [self.render_instr(b, i) for i in fn.code]
                if fn.name in texts and texts[fn.name][0] != lines:
                    first = texts[fn.name][1].variant.key_bits
                    raise ModelError(f"{fn.name}: AES-{b.variant.key_bits} builds other code than AES-{first}; "
                                     f"a rolled loop must not depend on the key size")
                texts.setdefault(fn.name, (lines, b, fn))
        # constants take offsets in the order of first use: each key size's table must be
        # a prefix of the widest one's, so that every function reads the same offsets
        widest = max(builts, key=lambda b: (len(b.constants), len(b.functions)))
        for b in builts:
            if b.constants != widest.constants[:len(b.constants)]:
                raise ModelError(f"{self.loops_file(variant)}: AES-{b.variant.key_bits} lays out the read-only "
                                 f"table differently from AES-{widest.variant.key_bits}")
        funcs = [{**self.function_context(b, fn), "lines": lines} for lines, b, fn in texts.values()]
        sizes = ", ".join(f"AES-{b.variant.key_bits}" for b in builts)
        params = " ".join(f for f in variant.describe().split() if not f.startswith("key_bits="))
        summary = [f"The functions of {', '.join(b.variant.name for b in builts)}: one copy for {sizes}, since "
                   f"their round loops read the anchored schedule{ANCHORED_NOTE}.",
                   f"Parameters: {params} ({variant.target.display_path}).", ""] + \
            self.summary(widest) + [f"{f['mode']}: {f['plan']}." for f in funcs] + [
            f"Verified: every function is the same text built for each of {sizes}; the model runs it in each "
            f"variant's own check (its .c header names the runs)."]
        return renderer.render(self.asm_template, summary=summary,
                               context={"functions": funcs, "guard": guard or self.compile_guard,
                                        **self.asm_context(widest)})

    def setkey_path(self, anchored: bool = False) -> str:
        """The shared key set-up file: the full loops' schedule, or (rolled loops) the
        anchored one, in a file of its own so that a build links only the one it uses."""
        return self.setkey_file.replace(".S", "_anchored.S") if anchored else self.setkey_file

    def setkey_layouts(self) -> tuple[bool, ...]:
        """The schedules the ISA's key set-ups write: anchored too where it has rolled loops."""
        return (False, True) if len(self.unrolls) > 1 else (False,)

    def setkey_file_functions(self, anchored: bool | None = None) -> list[tuple[Function, int, str, bool]]:
        """The shared files' key set-ups: (function, key bits, schedule order, anchored);
        of one file, or (None) of all."""
        layouts = self.setkey_layouts() if anchored is None else (anchored,)
        return [(self.setkey_function(self.shared_setkey_symbol(bits, d, a), bits, d, a), bits,
                 self.key_order[d], a) for a in layouts for bits in KEY_BITS for d in ("enc", "dec")]

    def verify_setkey_file(self, codes: dict[str, list[Instr]], salt: int, anchored: bool = False) -> int:
        """Run every key set-up of one shared file (`codes`: as emitted or as read back)
        on the FIPS-197 key and random keys against the reference; returns the runs."""
        rng = random.Random(zlib.crc32(self.setkey_path(anchored).encode()) ^ salt)
        runs = 0
        for fn, bits, order, _ in self.setkey_file_functions(anchored):
            for key in [bytes(range(bits // 8))] + [rng.randbytes(bits // 8) for _ in range(SETKEY_KEYS - 1)]:
                self.run_setkey(None, codes[fn.name], fn.name, key, order, anchored)
                runs += 1
        return runs

    def render_setkey_file(self, renderer, guard: str | None, anchored: bool = False) -> str:
        fns = self.setkey_file_functions(anchored)
        runs = self.verify_setkey_file({fn.name: fn.code for fn, _, _, _ in fns}, 0, anchored)
        funcs = [{"name": fn.name, "key_bits": bits, "order": order.replace("_", " "),
                  "schedule_bytes": ANCHORED_BYTES if anchored else 16 * (reference.rounds_for(bits) + 1),
                  "schedule_note": keysetup.SCHEDULE_NOTE[order] + (ANCHORED_NOTE if anchored else ""),
                  "lines": [self.render_setkey_instr(i) for i in fn.code],
                  "instructions": sum(1 for i in fn.code if i.op != "label")} for fn, bits, order, _ in fns]
        layout = ([f"For the rolled (loop1) variants: the schedule anchored{ANCHORED_NOTE}; the unused slots "
                   f"are cleared and the round loops' starts written."] if anchored else [])
        summary = self.setkey_summary() + layout + [
            f"Verified: the model ran each function on the FIPS-197 key and {SETKEY_KEYS - 1} random keys "
            f"({runs} runs) against the reference key expansion; check-assembled runs the disassembled "
            f"machine code the same way."]
        return renderer.render(self.setkey_template, summary=summary,
                               context={"functions": funcs, "guard": guard})

    def verify_setkey_assembled(self, renderer, include_dir) -> str:
        """The shared key set-up files as assembled: disassembled, matched function by
        function against the emitted instructions and run in the model."""
        m = self.machine
        lines = []
        for anchored in self.setkey_layouts():
            emitted = {fn.name: fn.code for fn, _, _, _ in self.setkey_file_functions(anchored)}
            listing = objdump.disassemble(self.render_setkey_file(renderer, None, anchored), m.TOOLCHAIN, include_dir)
            parsed = objdump.read_functions(listing.text, m.parse, m.BRANCHES)
            codes, problem = objdump.match(emitted, parsed, m.same, getattr(m, "PADDING", frozenset({"pad"})))
            if problem:
                raise ModelError(f"{self.setkey_path(anchored)}: {problem}")
            runs = self.verify_setkey_file(codes, 0xA55E, anchored)
            lines.append(f"{self.setkey_path(anchored)}: {len(codes)} functions, {runs} model runs of the "
                         f"disassembled machine code")
        return "; ".join(lines)

    def c_context(self, built: Built) -> dict:
        v = built.variant
        order = self.key_order[v.direction]
        facts = {"name": v.name, "symbol": v.symbol, "backend": v.backend, "key_bits": v.key_bits,
                 "direction": 0 if v.direction == "enc" else 1, "rank": v.rank,
                 "batch_blocks": built.interleave * built.lanes,
                 "schedule_bytes": ANCHORED_BYTES if self.rolled(v) else 16 * (reference.rounds_for(v.key_bits) + 1),
                 "schedule_note": keysetup.SCHEDULE_NOTE[order] + (ANCHORED_NOTE if self.rolled(v) else ""),
                 "features": self.features_of(v),
                 "info": f"{self.interleave_info(built)}; "
                         + "; ".join(f"{f.mode}{f.lanes or ''}: {f.plan.policy}" for f in built.functions)}
        context = {"guard": self.compile_guard, "v": facts,
                   "functions": {fn.mode: fn.name for fn in built.functions if fn.mode != "cbc_lanes"},
                   "gcm": next(({"blocks": gcm_chunk(built, fn),
                                 "table": ghash.table_layout(fn.table_powers, fn.table_multiply)}
                                for fn in built.functions if fn.mode in GCM_MODES), None),
                   "cbc_lanes": [{"lanes": fn.lanes, "name": fn.name, "line_steps": fn.line_steps} for fn in built.functions
                                 if fn.mode == "cbc_lanes"]}
        if built.setkey and self.setkey_file:
            context["setkey_shared_asm"] = built.setkey.name
        elif built.setkey:
            context["setkey_asm"] = built.setkey.name
        else:
            context["setkey_c"] = keysetup.symbol(v.key_bits, order)
        context["align"] = self.c_align or 0
        return context

    def render(self, built: Built, renderer, verified: str) -> list[tuple[str, str]]:
        v = built.variant
        own_setkey = [built.setkey] if built.setkey and not self.setkey_file else []
        funcs = [self.function_context(built, fn) for fn in own_setkey + built.functions]
        where = [f"The functions are in {self.loops_file(v)}, shared by every key size."] if self.rolled(v) else []
        summary = self.summary(built) + where + \
            [f"{f['mode']}: {f['plan']}." for f in funcs if f["mode"] != "setkey"] \
            + [f"{note}." for note in built.omitted] + [f"Verified: {verified}."]
        c_text = renderer.render("hwloop/variant.c.j2", variant=v, summary=summary, context=self.c_context(built))
        stem = f"{v.target.ident}/{v.name}"
        if self.rolled(v):
            return [(f"{stem}.c", c_text)]
        asm_text = renderer.render(self.asm_template, variant=v, summary=summary,
                                   context={"functions": funcs, "guard": self.compile_guard,
                                            **self.asm_context(built)})
        return [(f"{stem}.S", asm_text), (f"{stem}.c", c_text)]
