"""AArch64 (little-endian, Linux AAPCS64): the instructions the AES loops use, each with
one meaning for the model and one GNU as spelling.

AESE adds the round key *before* SubBytes/ShiftRows and AESMC does MixColumns separately,
so a round is `aese d, k_i; aesmc d, d` (emitted back to back so cores can fuse them) and
the last key is a plain EOR. Vector registers v8-v15 are callee-saved (their low halves),
so the emitter never touches them; neither does it touch x19-x28.
"""

from __future__ import annotations

from dataclasses import dataclass

from .common import MachineError, Memory, inv_mix, inv_sub_shift, mix, sub_shift

ARGS = ("x0", "x1", "x2", "x3", "x4")
VECTOR_POOL = tuple(range(0, 8)) + tuple(range(16, 32))   # never v8-v15 (callee-saved)
CALLEE_SAVED_X = tuple(f"x{n}" for n in range(19, 29)) + ("x29", "x30", "sp")


@dataclass(frozen=True)
class V:
    n: int

    def __str__(self) -> str:
        return f"v{self.n}.16b"


@dataclass(frozen=True)
class X:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Mem:
    base: X
    disp: int = 0

    def __str__(self) -> str:
        return f"[{self.base}, #{self.disp}]" if self.disp else f"[{self.base}]"


@dataclass(frozen=True)
class Label:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Instr:
    op: str
    args: tuple = ()
    key: tuple | None = None   # the round key an AES op must read (checked by the model)
    note: str = ""


AES_OPS = ("aese", "aesd")
BRANCHES = ("b", "b.lo", "b.hs", "b.ne", "b.eq", "cbz", "cbnz")


class EncodingError(Exception):
    pass


def render(ins: Instr) -> str:
    op, a = ins.op, ins.args
    comment = f"  // {ins.note}" if ins.note else ""
    if op == "label":
        return f"{a[0]}:"
    if op == "ldrq":
        text = f"ldr q{a[0].n}, {a[1]}"
    elif op == "strq":
        text = f"str q{a[1].n}, {a[0]}"
    elif op == "ldurq":
        text = f"ldur q{a[0].n}, {a[1]}"
    elif op in ("aese", "aesd", "aesmc", "aesimc"):
        text = f"{op} {a[0]}, {a[1]}"
    elif op == "eor":
        text = f"eor {a[0]}, {a[1]}, {a[2]}"
    elif op == "mov":
        text = f"mov {a[0]}, {a[1]}"
    elif op == "ldrx":
        text = f"ldr {a[0]}, {a[1]}"
    elif op == "rev":
        text = f"rev {a[0]}, {a[1]}"
    elif op == "ins":         # vector element 1 (bytes 8..15) from a general register
        text = f"mov v{a[0].n}.d[1], {a[1]}"
    elif op in ("add", "sub", "subs"):
        text = f"{op} {a[0]}, {a[1]}, #{a[2]}" if isinstance(a[2], int) else f"{op} {a[0]}, {a[1]}, {a[2]}"
    elif op == "cmp":
        text = f"cmp {a[0]}, #{a[1]}"
    elif op in ("b", "b.lo", "b.hs", "b.ne", "b.eq"):
        text = f"{op} {a[0]}"
    elif op in ("cbz", "cbnz"):
        text = f"{op} {a[0]}, {a[1]}"
    elif op in ("ret", "bti"):
        text = "ret" if op == "ret" else "hint #34"
    else:
        raise EncodingError(f"no spelling for {op}")
    for x in a:
        if isinstance(x, V) and 8 <= x.n <= 15:
            raise EncodingError(f"{op}: v{x.n} is callee-saved; aesgen does not save it")
        if isinstance(x, Mem) and op in ("ldrq", "strq") and (x.disp % 16 or not 0 <= x.disp <= 65520):
            raise EncodingError(f"{op}: offset {x.disp} is not a scaled 12-bit immediate")
    return f"\t{text}{comment}"


class Machine:
    """Registers, flags and bounded memory. Vector registers carry a tag, as on x86:
    ("key", i) after loading round key i from the schedule; AES ops that name a key
    fail unless their key operand carries it."""

    def __init__(self, memory: Memory, schedule_region: str):
        self.mem = memory
        self.schedule = schedule_region
        self.x = {f"x{n}": 0 for n in range(31)}
        self.x["sp"] = 0
        self.v = {n: bytes(16) for n in range(32)}
        self.tag: dict[int, object] = {n: None for n in range(32)}
        self.n = self.z = self.c = False
        self.steps = 0

    def _addr(self, m: Mem) -> int:
        return self.x[m.base.name] + m.disp

    def _key_tag(self, addr: int) -> tuple | None:
        base, buf = self.mem.regions[self.schedule]
        if base <= addr < base + len(buf) and (addr - base) % 16 == 0:
            return ("key", (addr - base) // 16)
        return None

    def run(self, program: list[Instr], entry: str, max_steps: int = 2_000_000) -> None:
        labels = {ins.args[0].name: i for i, ins in enumerate(program) if ins.op == "label"}
        pc = labels[entry]
        while True:
            if pc >= len(program):
                raise MachineError("ran off the end of the function")
            ins = program[pc]
            pc += 1
            self.steps += 1
            if self.steps > max_steps:
                raise MachineError("no return after many steps (endless loop?)")
            target = self.step(ins)
            if target == "ret":
                return
            if target is not None:
                pc = labels[target]

    def _flags(self, a: int, b: int) -> None:
        r = (a - b) & ((1 << 64) - 1)
        self.n, self.z, self.c = bool(r >> 63), r == 0, a >= b   # C set when no borrow

    def step(self, ins: Instr):
        op, a = ins.op, ins.args
        mask = (1 << 64) - 1
        if op in ("label", "bti"):
            return None
        if op == "ret":
            return "ret"
        if op in ("b", "b.lo", "b.hs", "b.ne", "b.eq"):
            taken = {"b": True, "b.lo": not self.c, "b.hs": self.c, "b.ne": not self.z, "b.eq": self.z}[op]
            return a[0].name if taken else None
        if op in ("cbz", "cbnz"):
            zero = self.x[a[0].name] == 0
            return a[1].name if zero == (op == "cbz") else None
        if op in ("add", "sub", "subs"):
            x = self.x[a[1].name]
            y = a[2] if isinstance(a[2], int) else self.x[a[2].name]
            if op == "subs":
                self._flags(x, y)
            self.x[a[0].name] = (x + y if op == "add" else x - y) & mask
            return None
        if op == "cmp":
            self._flags(self.x[a[0].name], a[1])
            return None
        if op == "ldrx":
            self.x[a[0].name] = int.from_bytes(self.mem.read(self._addr(a[1]), 8), "little")
            return None
        if op == "rev":
            self.x[a[0].name] = int.from_bytes(self.x[a[1].name].to_bytes(8, "little"), "big")
            return None
        if op in ("ldrq", "ldurq"):
            addr = self._addr(a[1])
            self.v[a[0].n] = self.mem.read(addr, 16)
            self.tag[a[0].n] = self._key_tag(addr)
            return None
        if op == "strq":
            self.mem.write(self._addr(a[0]), self.v[a[1].n])
            return None
        if op == "ins":
            self.v[a[0].n] = self.v[a[0].n][:8] + self.x[a[1].name].to_bytes(8, "little")
            self.tag[a[0].n] = None
            return None
        if op == "mov":
            self.v[a[0].n], self.tag[a[0].n] = self.v[a[1].n], self.tag[a[1].n]
            return None
        if op == "eor":
            if ins.key is not None and self.tag[a[2].n] != ins.key:
                raise MachineError(f"eor expected round key {ins.key}, found {self.tag[a[2].n]}")
            p, q = self.v[a[1].n], self.v[a[2].n]
            tp, tq = self.tag[a[1].n], self.tag[a[2].n]
            key = tp if tp and tp[0] == "key" else tq if tq and tq[0] == "key" else None
            other = tq if key is tp else tp
            self.v[a[0].n] = bytes(x ^ y for x, y in zip(p, q))
            self.tag[a[0].n] = ("key^data", key[1]) if key and other is None else None
            return None
        if op in ("aese", "aesd"):
            if ins.key is not None and self.tag[a[1].n] != ins.key:
                raise MachineError(f"{op} expected round key {ins.key}, found {self.tag[a[1].n]}")
            s = bytes(x ^ y for x, y in zip(self.v[a[0].n], self.v[a[1].n]))
            self.v[a[0].n] = sub_shift(s) if op == "aese" else inv_sub_shift(s)
            self.tag[a[0].n] = None
            return None
        if op in ("aesmc", "aesimc"):
            self.v[a[0].n] = mix(self.v[a[1].n]) if op == "aesmc" else inv_mix(self.v[a[1].n])
            self.tag[a[0].n] = None
            return None
        raise MachineError(f"the model has no meaning for {op}")
