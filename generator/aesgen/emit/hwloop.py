"""What the hardware-loop emitters share: the reference output of each mode, the block
counts the model runs at, the key set-up as the generated C computes it, and the
emitter methods that only differ in a subclass's _plan and _run (HwLoopEmitter)."""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from .. import reference, schedule
from ..ir import Program
from ..model import execute
from ..schedule import Plan, PlanError
from ..targets import Target
from ..variants import Variant

# mode -> (loop-carried values, final-round temporaries) of the parallel loops
MODE_NEEDS = {
    "ecb": (0, 0),
    "ctr": (1, 1),   # the counter; the input (or last key XOR input) for the final XOR
    "cbc": (1, 1),   # the chaining block; the previous ciphertext for the final XOR
}
DIRECTION_MODES = {"enc": ("ecb", "ctr", "cbc"), "dec": ("ecb", "cbc")}


def block_counts(lanes: int, step: int, extra: Sequence[int] = ()) -> list[int]:
    """Block counts around every loop boundary: none, one, a vector, a main-loop batch,
    two batches and their neighbours."""
    counts = {0, 1, 2, lanes - 1, lanes, lanes + 1, step - 1, step, step + 1,
              2 * step - 1, 2 * step, 2 * step + 1, 2 * step + lanes + 1, *extra}
    return sorted(c for c in counts if c >= 0)


def schedule_bytes(key_programs: Sequence[Program], key: bytes, output: str) -> bytes:
    """Run the key set-up programs in the model; return the schedule memory `output`."""
    mem: dict = {"key": bytearray(key)}
    for p in key_programs:
        for m in p.memories:
            mem.setdefault(m.name, bytearray(m.length) if m.kind == "bytes" else [0] * m.length)
        execute(p, mem)
    return bytes(mem[output])


def reference_schedule(key: bytes, order: str) -> bytes:
    """The round keys a hardware key set-up must write: "forward" (k0..kNr), "reversed"
    (kNr..k0), or "equivalent_inverse" (FIPS-197 5.3.5: kNr, InvMixColumns(kNr-1), ..., k0)."""
    keys = list(reference.expand_key(key))
    if order == "reversed":
        keys.reverse()
    elif order == "equivalent_inverse":
        nr = len(keys) - 1
        keys = [keys[nr]] + [reference.mix_columns(keys[nr - i], inverse=True) for i in range(1, nr)] + [keys[0]]
    elif order != "forward":
        raise ValueError(order)
    return b"".join(keys)


def reference_mode(direction: str, mode: str, key: bytes, iv: bytes, data: bytes) -> tuple[bytes, bytes]:
    """(output, chaining value or counter after) of the reference AES in this mode."""
    blocks = [data[i:i + 16] for i in range(0, len(data), 16)]
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
    """A counter whose low 64 bits do not wrap within `count` blocks (what the C wrapper
    guarantees the loops)."""
    low = int.from_bytes(iv[8:], "big") % ((1 << 64) - count - 1)
    return iv[:8] + low.to_bytes(8, "big")


class BlockLoop:
    """The loop skeleton of ISAs with one block per vector register: round keys placed by
    a schedule.Plan (tracked register by register), N blocks per iteration, then one
    block at a time. Subclasses provide the ISA's spelling of each step:

        reg(index)            the register object for plan register `index`
        load_key(reg, rnd)    load round key `rnd` from the schedule into it
        entry()               the function's first instructions (landing pads)
        loop_head(n, tail)    branch to `tail` when fewer than n blocks remain
        advance(n)            move in/out on by n blocks and count them off
        loop_back(n, top)     branch to `top` while n or more blocks remain
        skip_if_none(label)   branch to `label` when no block remains
        count_down_one(top)   one block done: advance, and branch to `top` if any remain
        ret()                 return
    """

    def __init__(self, key_bits: int, decrypt: bool, plan, asm):
        from ..schedule import KeyTracker
        from .. import reference as _reference
        self.asm, self.plan = asm, plan
        self.nr = _reference.rounds_for(key_bits)
        self.decrypt = decrypt
        self.kt = KeyTracker()

    data_width = 1     # registers per block

    def _key_operand(self, idx: int):
        kw = self.plan.key_width
        return self.reg(idx) if kw == 1 else tuple(self.reg(idx + i) for i in range(kw))

    def _track_key(self, idx: int, rnd: int) -> None:
        for i in range(self.plan.key_width):
            self.kt.load_key(idx + i, rnd)

    def key(self, rnd: int):
        """The register (or registers, for keys wider than one) holding round key `rnd`,
        loading it into rotating registers first when it is streamed."""
        p = self.plan
        if not p.streamed(rnd):
            for i in range(p.key_width):
                self.kt.require(p.resident[rnd] + i, rnd)
            return self._key_operand(p.resident[rnd])
        idx = p.rotating[rnd % len(p.rotating)]
        self.load_key(self._key_operand(idx), rnd, note=f"stream k{rnd + p.need.first_key}")
        self._track_key(idx, rnd)
        return self._key_operand(idx)

    def load_resident_keys(self) -> None:
        for rnd, idx in sorted(self.plan.resident.items()):
            self.load_key(self._key_operand(idx), rnd, note=f"k{rnd + self.plan.need.first_key}")
            self._track_key(idx, rnd)

    def restore_borrowed(self) -> None:
        for rnd in sorted(set(self.plan.borrowed.values())):
            idx = self.plan.resident[rnd]
            self.load_key(self._key_operand(idx), rnd, note=f"reload k{rnd + self.plan.need.first_key} (borrowed as a temporary)")
            self._track_key(idx, rnd)

    def check_keys_valid(self, where: str) -> None:
        from ..schedule import PlanError
        held = self.kt.keys()
        for rnd, idx in self.plan.resident.items():
            for i in range(self.plan.key_width):
                if held.get(idx + i) != rnd:
                    raise PlanError(f"{self.asm.fn}: at {where}, register {idx + i} does not hold round key {rnd}")

    def parallel(self, body, setup=None, finish=None) -> None:
        """body(plan register indices) emits one iteration over those data registers."""
        a, p = self.asm, self.plan
        nvec = len(p.data) // self.data_width
        self.entry()
        self.load_resident_keys()
        if setup:
            setup()
        done, tail = a.label("done"), a.label("tail")
        if nvec > 1:
            self.loop_head(nvec, tail)
            top = a.label("loop")
            a.place(top)
            self.check_keys_valid("loop head")
            body(list(p.data))
            self.advance(nvec)
            self.check_keys_valid("loop back edge")
            self.loop_back(nvec, top)
        a.place(tail)
        self.skip_if_none(done)
        one = a.label("block")
        a.place(one)
        body(list(p.data[:self.data_width]))
        self.check_keys_valid("block loop back edge")
        self.count_down_one(one)
        a.place(done)
        if finish:
            finish()
        self.ret()


class Asm:
    """Collects one function's instructions; numbers its local labels."""

    def __init__(self, fn: str, instr, label):
        self.fn = fn
        self.code: list = []
        self._instr, self._label = instr, label

    def __call__(self, op, *args, key=None, note=""):
        self.code.append(self._instr(op, tuple(args), key, note))

    def label(self, name: str):
        return self._label(f".L{self.fn}_{name}")

    def place(self, label) -> None:
        self.code.append(self._instr("label", (label,)))


@dataclass
class Function:
    """One emitted function: its symbol, the mode it serves ("setkey" for a key set-up),
    the register plan of its loop, and its instructions (the target machine's Instr)."""
    name: str
    mode: str
    plan: Plan | None
    code: list


class HwLoopEmitter:
    """Variants, validation and the model-run loop of an N-block interleaved emitter.
    A subclass gives `_plan(target, n, mode, key_bits, policy, direction)` (raises
    PlanError when the registers do not fit) and `_run(built, fn, keyed, count, in_place,
    rng)` (one model run against the reference), and its Built has `variant`,
    `interleave` and `functions`."""
    independent_ops = 1          # AES ops one block offers per round (the T4 has two halves)
    max_interleave: int | None = None

    def validate(self, target: Target) -> None:
        for n in self._interleaves(target):
            for policy in target.sections["variants"]["key_policy"]:
                for bits in target.sections["variants"]["key_bits"]:
                    for direction, modes in DIRECTION_MODES.items():
                        for mode in modes:
                            try:
                                self._plan(target, n, mode, bits, policy, direction)
                            except PlanError as e:
                                raise target.error("variants.key_policy",
                                                   f"AES-{bits} {direction} {mode}, interleave {n}: {e}") from None

    def _interleaves(self, target: Target) -> list[int]:
        isa = target.sections["isa"]
        auto = schedule.default_interleave(isa["aes_latency"], isa["aes_issue_per_cycle"],
                                           independent_ops=self.independent_ops)
        if self.max_interleave is not None:
            auto = min(auto, self.max_interleave)
        return [auto if v == "auto" else v for v in target.sections["variants"]["interleave"]]

    def variants(self, target: Target) -> list[Variant]:
        out = []
        spec = target.sections["variants"]
        for n in self._interleaves(target):
            for policy in spec["key_policy"]:
                for key_bits in spec["key_bits"]:
                    for direction in ("enc", "dec"):
                        how = f"x{n}" + ("" if policy == "auto" else f"_{policy}")
                        out.append(Variant(target, key_bits, direction, how,
                                           (("interleave", n), ("key_policy", policy)), target.rank))
        return out

    def outputs(self, variant: Variant) -> list[str]:
        stem = f"{variant.target.ident}/{variant.name}"
        return [f"{stem}.S", f"{stem}.c"]

    def _model_runs(self, built) -> tuple[int, list[int]]:
        """Every function at every block count, in place and out of place, cycling through
        the FIPS-197 key and 2 random keys; returns (runs, block counts)."""
        v = built.variant
        rng = random.Random(zlib.crc32(v.name.encode()))
        keys = [bytes(range(v.key_bits // 8))] + [rng.randbytes(v.key_bits // 8) for _ in range(2)]
        schedules = [(key, self.schedule_bytes(built, key)) for key in keys]
        counts = block_counts(1, built.interleave)
        runs = 0
        for fn in built.functions:
            for count in counts:
                for in_place in (False, True):
                    self._run(built, fn, schedules[runs % len(schedules)], count, in_place, rng)
                    runs += 1
        return runs, counts
