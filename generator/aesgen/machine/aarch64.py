"""AArch64 (little-endian, Linux AAPCS64): the instructions the AES loops use, each with
one meaning for the model and one GNU as spelling.

AESE adds the round key *before* SubBytes/ShiftRows and AESMC does MixColumns separately,
so a round is `aese d, k_i; aesmc d, d` (emitted back to back so cores can fuse them) and
the last key is a plain EOR. Vector registers v8-v15 are callee-saved (their low halves),
so the emitter never touches them; neither does it touch x19-x28.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import objdump
from .abi import AAPCS64
from .common import EncodingError, Instr, Machine as _Machine, MachineError, Memory, inv_mix, \
    inv_sub_shift, mix, sub_shift
from .objdump import DisassemblyError

VECTOR_POOL = tuple(n for n in range(32) if n not in AAPCS64.preserved_vectors)   # never v8-v15
TOOLCHAIN = objdump.Toolchain("aarch64-linux-gnu-", "binutils-aarch64-linux-gnu")


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


AES_OPS = ("aese", "aesd")
# the encodable immediates (the last operand) of the ops that take one
IMMEDIATES = {"ushr": (1, 64), "shl": (0, 63), "sli": (0, 63), "ext": (0, 15), "movx": (0, 0xFFFF),
              "dupelem": (0, 3)}
MASK64 = (1 << 64) - 1
BRANCHES = ("b", "b.lo", "b.hs", "b.ne", "b.eq", "cbz", "cbnz")


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
    elif op == "movx":        # movz: a 16-bit immediate, unshifted
        text = f"mov {a[0]}, #{a[1]:#x}"
    elif op == "dup":         # both 64-bit elements from a general register
        text = f"dup v{a[0].n}.2d, {a[1]}"
    elif op == "dupw":        # every 32-bit element from a general register's low 32 bits
        text = f"dup v{a[0].n}.4s, w{a[1].name[1:]}"
    elif op == "dupelem":     # every 32-bit element from element a[2] of a vector
        text = f"dup v{a[0].n}.4s, v{a[1].n}.s[{a[2]}]"
    elif op in ("ushr", "shl", "sli"):   # on the two 64-bit elements
        text = f"{op} v{a[0].n}.2d, v{a[1].n}.2d, #{a[2]}"
    elif op == "ext":
        text = f"ext {a[0]}, {a[1]}, {a[2]}, #{a[3]}"
    elif op == "pmull":       # element 0 of each, carry-less, to 128 bits
        text = f"pmull v{a[0].n}.1q, v{a[1].n}.1d, v{a[2].n}.1d"
    elif op == "pmull2":      # element 1 of each
        text = f"pmull2 v{a[0].n}.1q, v{a[1].n}.2d, v{a[2].n}.2d"
    elif op in ("ret", "bti"):
        text = "ret" if op == "ret" else "hint #34"
    else:
        raise EncodingError(f"no spelling for {op}")
    for x in a:
        if isinstance(x, V) and 8 <= x.n <= 15:
            raise EncodingError(f"{op}: v{x.n} is callee-saved; aesgen does not save it")
        if isinstance(x, Mem) and op in ("ldrq", "strq") and (x.disp % 16 or not 0 <= x.disp <= 65520):
            raise EncodingError(f"{op}: offset {x.disp} is not a scaled 12-bit immediate")
    lo, hi = IMMEDIATES.get(op, (0, -1))
    if op in IMMEDIATES and not lo <= a[-1] <= hi:
        raise EncodingError(f"{op}: immediate {a[-1]} is outside {lo}..{hi}")
    return f"\t{text}{comment}"


class Machine(_Machine):
    """Registers, flags and bounded memory. Vector registers carry a tag, as on x86:
    ("key", i) after loading round key i from the schedule; AES ops that name a key
    fail unless their key operand carries it."""

    def __init__(self, memory: Memory, schedule_region: str):
        super().__init__(memory, schedule_region)
        self.x = {f"x{n}": 0 for n in range(31)}
        self.x["sp"] = 0
        self.v = {n: bytes(16) for n in range(32)}
        self.tag: dict[int, object] = {n: None for n in range(32)}
        self.n = self.z = self.c = False

    def gpr(self, name: str) -> int:
        return self.x[name]

    def set_gpr(self, name: str, value: int) -> None:
        self.x[name] = value

    def vector(self, n: int) -> bytes:
        return self.v[n]

    def set_vector(self, n: int, value: bytes) -> None:
        self.v[n] = value

    def _addr(self, m: Mem) -> int:
        return self.x[m.base.name] + m.disp

    def _key_tag(self, addr: int) -> tuple | None:
        base, buf = self.mem.regions[self.schedule]
        if base <= addr < base + len(buf) and (addr - base) % 16 == 0:
            return ("key", (addr - base) // 16)
        return None

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
        if op == "movx":
            self.x[a[0].name] = a[1]
            return None
        if op == "dup":
            self.v[a[0].n] = self.x[a[1].name].to_bytes(8, "little") * 2
            self.tag[a[0].n] = None
            return None
        if op in ("dupw", "dupelem"):
            word = (self.x[a[1].name] & 0xFFFFFFFF).to_bytes(4, "little") if op == "dupw" else \
                self.v[a[1].n][4 * a[2]:4 * a[2] + 4]
            self.v[a[0].n] = word * 4
            self.tag[a[0].n] = None
            return None
        if op in ("ushr", "shl", "sli"):
            k, old = a[2], _halves(self.v[a[0].n])
            out = []
            for i, e in enumerate(_halves(self.v[a[1].n])):
                if op == "ushr":
                    out.append(e >> k)
                elif op == "shl":
                    out.append((e << k) & MASK64)
                else:                       # shift left, keep the destination's low k bits
                    out.append(((e << k) & MASK64) | (old[i] & ((1 << k) - 1)))
            self.v[a[0].n] = b"".join(e.to_bytes(8, "little") for e in out)
            self.tag[a[0].n] = None
            return None
        if op == "ext":                     # bytes imm.. of the pair (second register above)
            self.v[a[0].n] = (self.v[a[1].n] + self.v[a[2].n])[a[3]:a[3] + 16]
            self.tag[a[0].n] = None
            return None
        if op in ("pmull", "pmull2"):
            i = 0 if op == "pmull" else 1
            x, y = _halves(self.v[a[1].n])[i], _halves(self.v[a[2].n])[i]
            self.v[a[0].n] = clmul64(x, y).to_bytes(16, "little")
            self.tag[a[0].n] = None
            return None
        raise MachineError(f"the model has no meaning for {op}")


def _halves(v: bytes) -> tuple[int, int]:
    """The two 64-bit elements of a vector register (little-endian)."""
    return int.from_bytes(v[:8], "little"), int.from_bytes(v[8:], "little")


def clmul64(x: int, y: int) -> int:
    """The carry-less product of two 64-bit polynomials (PMULL's .1q result)."""
    r = 0
    for i in range(64):
        if y >> i & 1:
            r ^= x << i
    return r


# ------------------------------------------------------------------ reading objdump back

_BRANCH_ALIASES = {"b.cc": "b.lo", "b.lo": "b.lo", "b.cs": "b.hs", "b.hs": "b.hs", "b.ne": "b.ne",
                   "b.eq": "b.eq", "b": "b", "cbz": "cbz", "cbnz": "cbnz"}


def _reg(text: str):
    m = re.fullmatch(r"v(\d+)\.16b", text)
    if m:
        return V(int(m.group(1)))
    if re.fullmatch(r"x\d+|sp", text):
        return X(text)
    if text.startswith("#"):
        return int(text[1:], 0)
    raise DisassemblyError(f"cannot read operand {text!r}")


def _mem(text: str) -> Mem:
    m = re.fullmatch(r"\[(x\d+|sp)(?:, #(-?(?:0x[0-9a-f]+|\d+)))?\]", text)
    if not m:
        raise DisassemblyError(f"cannot read memory operand {text!r}")
    return Mem(X(m.group(1)), int(m.group(2), 0) if m.group(2) else 0)


# the ops written with arrangements other than .16b: each operand's exact spelling
_ARRANGED = {"dup": ("2d", "x"), "ushr": ("2d", "2d", "#"), "shl": ("2d", "2d", "#"), "sli": ("2d", "2d", "#"),
             "ext": ("16b", "16b", "16b", "#"), "pmull": ("1q", "1d", "1d"), "pmull2": ("1q", "2d", "2d")}


def _arranged(text: str, shape: str):
    if shape == "#":
        if not text.startswith("#"):
            raise DisassemblyError(f"expected an immediate, not {text!r}")
        return int(text[1:], 0)
    if shape == "x":
        if not re.fullmatch(r"x\d+", text):
            raise DisassemblyError(f"expected a 64-bit general register, not {text!r}")
        return X(text)
    m = re.fullmatch(rf"v(\d+)\.{shape}", text)
    if not m:
        raise DisassemblyError(f"expected a v-register .{shape}, not {text!r}")
    return V(int(m.group(1)))


def parse(addr: int, text: str) -> Instr | None:
    """One line of `objdump -d` as the Instr the emitter would have written."""
    body = text.split("//")[0].strip()
    words = body.split(None, 1)
    mnem, rest = words[0], (words[1] if len(words) > 1 else "")
    ops = [o.strip() for o in re.split(r",(?![^\[]*\])", rest)] if rest else []
    if mnem == "nop":
        return Instr("pad")
    if mnem in ("ret", "bti"):
        return Instr(mnem)
    if mnem in _BRANCH_ALIASES:
        target = objdump.branch_label(int(ops[-1].split()[0], 16))
        return Instr(_BRANCH_ALIASES[mnem], tuple(_reg(o) for o in ops[:-1]) + (target,))
    if mnem in ("ldr", "ldur", "str"):
        m = re.fullmatch(r"q(\d+)", ops[0])
        reg = V(int(m.group(1))) if m else _reg(ops[0])
        mem = _mem(ops[1])
        if mnem == "str":
            return Instr("strq", (mem, reg))
        return Instr(f"{mnem}q" if m else "ldrx", (reg, mem))
    if mnem == "mov":
        m = re.fullmatch(r"v(\d+)\.d\[1\]", ops[0])
        if m:
            return Instr("ins", (V(int(m.group(1))), _reg(ops[1])))
        if re.fullmatch(r"x\d+", ops[0]) and ops[1].startswith("#"):
            return Instr("movx", (X(ops[0]), _reg(ops[1])))
    if mnem == "dup" and ops[0].endswith(".4s"):
        dst = _arranged(ops[0], "4s")
        m = re.fullmatch(r"v(\d+)\.s\[(\d)\]", ops[1])
        if m:
            return Instr("dupelem", (dst, V(int(m.group(1))), int(m.group(2))))
        if re.fullmatch(r"w\d+", ops[1]):
            return Instr("dupw", (dst, X("x" + ops[1][1:])))
        raise DisassemblyError(f"{addr:#x}: dup from {ops[1]!r}")
    if mnem in _ARRANGED:
        shapes = _ARRANGED[mnem]
        if len(ops) != len(shapes):
            raise DisassemblyError(f"{addr:#x}: {mnem} with {len(ops)} operands")
        return Instr(mnem, tuple(_arranged(o, shape) for o, shape in zip(ops, shapes)))
    if mnem in ("aese", "aesd", "aesmc", "aesimc", "eor", "mov", "rev", "add", "sub", "subs", "cmp"):
        return Instr(mnem, tuple(_reg(o) for o in ops))
    raise DisassemblyError(f"{addr:#x}: instruction {mnem!r} is not one aesgen emits")


same = objdump.same_operands
