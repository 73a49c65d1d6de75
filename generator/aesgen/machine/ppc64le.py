"""POWER8, little-endian (ELFv2): the instructions the AES loops use, each with one meaning
for the model and one GNU as spelling (numeric registers).

Vector registers are modelled in the architecture's big-endian byte numbering (byte 0 is
the most significant), which is the order vcipher reads the AES state in. On a
little-endian system `lxvd2x` loads each doubleword little-endian, so a loaded block has
the bytes of each half reversed; a `vperm` with a mask built at entry (lvsl 0 XOR 7)
puts them back, and stores undo it. Read that way a loaded block is two 64-bit
little-endian integers (doubleword 0 from bytes 0-7): the layout the XTS tweak arithmetic
uses (vsld/vsrd per doubleword, vpmsumd, vrlb to build 0x87). vcipher/vcipherlast end a
round with the key, like x86; vncipher adds the key before InvMixColumns, so decryption uses the encryption keys
in reverse order. v20-v31 and r14-r31 are callee-saved and never touched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import objdump
from .abi import ELFV2
from .common import EncodingError, Instr, Machine as _Machine, MachineError, Memory, inv_mix, \
    inv_sub_shift, mix, sub_shift
from .objdump import DisassemblyError

VECTOR_POOL = tuple(n for n in range(32) if n not in ELFV2.preserved_vectors)   # v0-v19
PRESERVED_R = tuple(int(r[1:]) for r in ELFV2.preserved)
TOOLCHAIN = objdump.Toolchain("powerpc64le-linux-gnu-", "binutils-powerpc64le-linux-gnu")


@dataclass(frozen=True)
class V:
    n: int

    def __str__(self) -> str:
        return str(self.n)


@dataclass(frozen=True)
class R:
    n: int

    def __str__(self) -> str:
        return str(self.n)


AES_OPS = ("vcipher", "vcipherlast", "vncipher", "vncipherlast")
BRANCHES = ("b", "blt", "bge", "beq", "bne")
# three-register vector ops: vD, vA, vB
VV_OPS = ("vxor", "vadduqm", "vsld", "vsrd", "vpmsumd", "vrlb")


def _dwords(x: bytes) -> tuple[int, int]:
    return int.from_bytes(x[:8], "big"), int.from_bytes(x[8:], "big")


def _clmul(a: int, b: int) -> int:
    r = 0
    while b:
        if b & 1:
            r ^= a
        a, b = a << 1, b >> 1
    return r


def render(ins: Instr) -> str:
    op, a = ins.op, ins.args
    comment = f"  # {ins.note}" if ins.note else ""
    if op == "label":
        return f"{a[0]}:"
    for x in a:
        if isinstance(x, V) and x.n not in VECTOR_POOL:
            raise EncodingError(f"{op}: v{x.n} is non-volatile; aesgen does not save it")
        if isinstance(x, R) and x.n in PRESERVED_R:
            raise EncodingError(f"{op}: r{x.n} is non-volatile; aesgen does not save it")
    if op in ("lxvd2x", "stxvd2x"):
        text = f"{op} 32+{a[0]}, {a[1]}, {a[2]}"
    elif op in AES_OPS + VV_OPS:
        text = f"{op} {a[0]}, {a[1]}, {a[2]}"
    elif op == "vperm":
        text = f"vperm {a[0]}, {a[1]}, {a[2]}, {a[3]}"
    elif op == "vsldoi":
        text = f"vsldoi {a[0]}, {a[1]}, {a[2]}, {a[3]}"
    elif op == "vmr":
        text = f"vmr {a[0]}, {a[1]}"
    elif op == "vspltisb":
        text = f"vspltisb {a[0]}, {a[1]}"
    elif op == "lvsl":
        text = f"lvsl {a[0]}, 0, {a[1]}"
    elif op == "li":
        text = f"li {a[0]}, {a[1]}"
    elif op == "addi":
        text = f"addi {a[0]}, {a[1]}, {a[2]}"
    elif op == "cmpldi":
        text = f"cmpldi {a[0]}, {a[1]}"
    elif op in BRANCHES:
        text = f"{op} {a[0]}"
    elif op == "blr":
        text = "blr"
    else:
        raise EncodingError(f"no spelling for {op}")
    return f"\t{text}{comment}"


class Machine(_Machine):
    """Vector registers as 16 bytes in big-endian numbering; tags as on x86: ("raw", i)
    after loading round key i with lxvd2x, ("key", i) once vperm has put its bytes in
    order (and they are round key i), ("key^data", i) after XORing that with data."""

    def __init__(self, memory: Memory, schedule_region: str):
        super().__init__(memory, schedule_region)
        self.r = {n: 0 for n in range(32)}
        self.v = {n: bytes(16) for n in range(32)}
        self.tag: dict[int, object] = {n: None for n in range(32)}
        self.lt = self.gt = self.eq = False

    def gpr(self, name: str) -> int:
        return self.r[int(name[1:])]

    def set_gpr(self, name: str, value: int) -> None:
        self.r[int(name[1:])] = value

    def vector(self, n: int) -> bytes:
        return self.v[n]

    def set_vector(self, n: int, value: bytes) -> None:
        self.v[n] = value

    def _schedule_index(self, addr: int) -> int | None:
        base, buf = self.mem.regions[self.schedule]
        if base <= addr < base + len(buf) and (addr - base) % 16 == 0:
            return (addr - base) // 16
        return None

    def _round_key(self, i: int) -> bytes:
        base, buf = self.mem.regions[self.schedule]
        return bytes(buf[16 * i:16 * i + 16])

    def _ea(self, ra: R, rb: R) -> int:
        return ((self.r[ra.n] if ra.n else 0) + self.r[rb.n]) & ((1 << 64) - 1)

    def step(self, ins: Instr):
        op, a = ins.op, ins.args
        mask64 = (1 << 64) - 1
        if op == "label":
            return None
        if op == "blr":
            return "ret"
        if op in BRANCHES:
            taken = {"b": True, "blt": self.lt, "bge": not self.lt, "beq": self.eq, "bne": not self.eq}[op]
            return a[0].name if taken else None
        if op == "li":
            self.r[a[0].n] = a[1] & mask64
            return None
        if op == "addi":
            self.r[a[0].n] = ((self.r[a[1].n] if a[1].n else 0) + a[2]) & mask64
            return None
        if op == "cmpldi":
            x = self.r[a[0].n]
            self.lt, self.gt, self.eq = x < a[1], x > a[1], x == a[1]
            return None
        if op == "lxvd2x":
            ea = self._ea(a[1], a[2])
            data = self.mem.read(ea, 16)
            self.v[a[0].n] = data[7::-1] + data[15:7:-1]
            i = self._schedule_index(ea)
            self.tag[a[0].n] = ("raw", i) if i is not None else None
            return None
        if op == "stxvd2x":
            reg = self.v[a[0].n]
            self.mem.write(self._ea(a[1], a[2]), reg[7::-1] + reg[15:7:-1])
            return None
        if op == "lvsl":
            sh = self.r[a[1].n] & 15
            self.v[a[0].n] = bytes(sh + i for i in range(16))
            self.tag[a[0].n] = None
            return None
        if op == "vspltisb":
            self.v[a[0].n] = bytes([a[1] & 0xFF]) * 16
            self.tag[a[0].n] = None
            return None
        if op == "vmr":
            self.v[a[0].n], self.tag[a[0].n] = self.v[a[1].n], self.tag[a[1].n]
            return None
        if op == "vperm":
            src = self.v[a[1].n] + self.v[a[2].n]
            out = bytes(src[c & 0x1F] for c in self.v[a[3].n])
            t = self.tag[a[1].n]
            key = ("key", t[1]) if t and t[0] == "raw" and out == self._round_key(t[1]) else None
            self.v[a[0].n], self.tag[a[0].n] = out, key
            return None
        if op == "vsldoi":
            self.v[a[0].n] = (self.v[a[1].n] + self.v[a[2].n])[a[3]:a[3] + 16]
            self.tag[a[0].n] = None
            return None
        if op == "vadduqm":
            s = (int.from_bytes(self.v[a[1].n], "big") + int.from_bytes(self.v[a[2].n], "big")) % (1 << 128)
            self.v[a[0].n], self.tag[a[0].n] = s.to_bytes(16, "big"), None
            return None
        if op in ("vsld", "vsrd"):
            # each doubleword shifted by the low 6 bits of the same doubleword of vB
            out = b""
            for x, c in zip(_dwords(self.v[a[1].n]), _dwords(self.v[a[2].n])):
                sh = c & 63
                out += (((x << sh) if op == "vsld" else (x >> sh)) & mask64).to_bytes(8, "big")
            self.v[a[0].n], self.tag[a[0].n] = out, None
            return None
        if op == "vpmsumd":
            # carry-less products of the doublewords, XORed: one 128-bit result
            (a0, a1), (b0, b1) = _dwords(self.v[a[1].n]), _dwords(self.v[a[2].n])
            self.v[a[0].n] = (_clmul(a0, b0) ^ _clmul(a1, b1)).to_bytes(16, "big")
            self.tag[a[0].n] = None
            return None
        if op == "vrlb":
            out = bytes(((x << (c & 7)) | (x >> (8 - (c & 7)))) & 0xFF
                        for x, c in zip(self.v[a[1].n], self.v[a[2].n]))
            self.v[a[0].n], self.tag[a[0].n] = out, None
            return None
        if op == "vxor":
            p, q = self.v[a[1].n], self.v[a[2].n]
            tp, tq = self.tag[a[1].n], self.tag[a[2].n]
            key = tp if tp and tp[0] == "key" else tq if tq and tq[0] == "key" else None
            other = tq if key is tp else tp
            if ins.key is not None and key != ins.key:
                raise MachineError(f"vxor expected round key {ins.key}, found {tp} and {tq}")
            self.v[a[0].n] = bytes(x ^ y for x, y in zip(p, q))
            self.tag[a[0].n] = ("key^data", key[1]) if key and other is None else None
            return None
        if op in AES_OPS:
            if ins.key is not None and self.tag[a[2].n] != ins.key:
                raise MachineError(f"{op} expected round key {ins.key}, found {self.tag[a[2].n]}")
            s, k = self.v[a[1].n], self.v[a[2].n]
            if op == "vcipher":
                out = bytes(x ^ y for x, y in zip(mix(sub_shift(s)), k))
            elif op == "vcipherlast":
                out = bytes(x ^ y for x, y in zip(sub_shift(s), k))
            elif op == "vncipher":
                out = inv_mix(bytes(x ^ y for x, y in zip(inv_sub_shift(s), k)))
            else:
                out = bytes(x ^ y for x, y in zip(inv_sub_shift(s), k))
            self.v[a[0].n], self.tag[a[0].n] = out, None
            return None
        raise MachineError(f"the model has no meaning for {op}")


# ------------------------------------------------------------------ reading objdump back

def _operand(text: str):
    m = re.fullmatch(r"(v|r|vs)(\d+)", text)
    if m:
        kind, n = m.group(1), int(m.group(2))
        if kind == "vs":
            if n < 32:
                raise DisassemblyError(f"{text}: a VSX register outside the vector registers")
            return V(n - 32)
        return V(n) if kind == "v" else R(n)
    return int(text, 0)


def parse(addr: int, text: str) -> Instr | None:
    """One line of `objdump -d` as the Instr the emitter would have written."""
    words = text.split("#")[0].split(None, 1)
    mnem, rest = words[0], (words[1] if len(words) > 1 else "")
    ops = [o.strip() for o in rest.split(",")] if rest else []
    if mnem == "nop" or (mnem == "ori" and ops == ["r2", "r2", "0"]):
        return Instr("pad")                          # alignment padding (ori 2,2,0 ends a group)
    if mnem in BRANCHES:
        return Instr(mnem, (objdump.branch_label(int(ops[0].split()[0], 16)),))
    if mnem == "blr":
        return Instr("blr")
    if mnem == "lvsl":                                # lvsl vD, 0, rB
        return Instr("lvsl", (_operand(ops[0]), _operand(ops[2])))
    if mnem in ("lxvd2x", "stxvd2x", "vperm", "vsldoi", "vmr", "vspltisb", "li", "addi", "cmpldi") \
            + VV_OPS + AES_OPS:
        return Instr(mnem, tuple(_operand(o) for o in ops))
    raise DisassemblyError(f"{addr:#x}: instruction {mnem!r} is not one aesgen emits")


same = objdump.same_operands
# as pads alignment with nops, or with a branch over them followed by nops
PADDING = frozenset({"pad", "b"})
