"""RV64 with the scalar cryptography extension Zkn (Zkne, Zknd, Zbkb): the instructions
the AES loops use, with one meaning for the model and one GNU as spelling.

A block is two 64-bit registers, lo = bytes 0-7 and hi = bytes 8-15 as `ld` reads them.
aes64esm(rs1, rs2) returns the low half of MixColumns(SubBytes(ShiftRows(rs2:rs1))); the
other half is the same op with its operands swapped, so a round needs one temporary per
block. Decryption's aes64dsm ends with InvMixColumns, so it takes the equivalent inverse
cipher's keys. Callee-saved s0-s11 may be used; the function then saves and restores the
ones it touches. aes64ks1i/aes64ks2 make key-schedule words two at a time and aes64im
applies InvMixColumns to two columns (for the decryption keys). The XTS tweak products
use the base shifts, andi and or.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import reference
from . import objdump
from .abi import LP64
from .common import Instr, Machine as _Machine, MachineError, Memory, inv_mix, inv_sub_shift, mix, sub_shift
from .objdump import DisassemblyError

ABI_NUMBER = {"zero": 0, "ra": 1, "sp": 2, "gp": 3, "tp": 4, "t0": 5, "t1": 6, "t2": 7, "s0": 8, "s1": 9,
              **{f"a{i}": 10 + i for i in range(8)}, **{f"s{i}": 16 + i for i in range(2, 12)},
              **{f"t{i}": 25 + i for i in range(3, 7)}}
SCRATCH_POOL = ("a5", "a6", "a7", "t0", "t1", "t2", "t3", "t4", "t5")   # t6 is the loop test's
SAVED_POOL = tuple(r for r in LP64.preserved if r.startswith("s"))    # s0-s11, saved when used
TOOLCHAIN = objdump.Toolchain("riscv64-linux-gnu-", "binutils-riscv64-linux-gnu")


@dataclass(frozen=True)
class X:
    name: str

    def __str__(self) -> str:
        return self.name


AES_OPS = ("aes64es", "aes64esm", "aes64ds", "aes64dsm")
KEY_OPS = ("aes64ks1i", "aes64ks2", "aes64im")
RCON = (0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36)
BRANCHES = ("j", "bnez", "beqz")
SHIFTS = ("slli", "srli", "srai")
# objdump (binutils 2.42) prints these immediate forms under the register names
IMMEDIATE_ALIAS = {"sll": "slli", "srl": "srli", "sra": "srai", "and": "andi"}


def render(ins: Instr) -> str:
    op, a = ins.op, ins.args
    comment = f"  # {ins.note}" if ins.note else ""
    if op == "label":
        return f"{a[0]}:"
    if op in ("ld", "sd"):
        text = f"{op} {a[0]}, {a[2]}({a[1]})"
    elif op in AES_OPS + ("xor", "or", "aes64ks2"):
        text = f"{op} {a[0]}, {a[1]}, {a[2]}"
    elif op == "aes64ks1i":
        text = f"{op} {a[0]}, {a[1]}, {a[2]:#x}"
    elif op == "aes64im":
        text = f"{op} {a[0]}, {a[1]}"
    elif op in ("addi", "sltiu") + SHIFTS:
        text = f"{op} {a[0]}, {a[1]}, {a[2]}"
    elif op == "andi":
        text = f"{op} {a[0]}, {a[1]}, {a[2]:#x}"
    elif op in ("rev8", "mv"):
        text = f"{op} {a[0]}, {a[1]}"
    elif op == "j":
        text = f"j {a[0]}"
    elif op in ("bnez", "beqz"):
        text = f"{op} {a[0]}, {a[1]}"
    elif op == "ret":
        text = "ret"
    else:
        raise ValueError(f"no spelling for {op}")
    return f"\t{text}{comment}"


class Machine(_Machine):
    """General registers (x0 reads 0) and bounded memory; every register carries a tag,
    ("key", i, half) after loading half of round key i from the schedule."""

    def __init__(self, memory: Memory, schedule_region: str):
        super().__init__(memory, schedule_region)
        self.x = {n: 0 for n in range(32)}
        self.tag: dict[int, object] = {n: None for n in range(32)}

    def reg(self, r: X) -> int:
        return ABI_NUMBER[r.name]

    def get(self, r: X) -> int:
        n = self.reg(r)
        return 0 if n == 0 else self.x[n]

    def put(self, r: X, value: int, tag=None) -> None:
        n = self.reg(r)
        if n:
            self.x[n] = value & ((1 << 64) - 1)
            self.tag[n] = tag

    def gpr(self, name: str) -> int:
        return self.get(X(name))

    def set_gpr(self, name: str, value: int) -> None:
        self.put(X(name), value)

    def step(self, ins: Instr):
        op, a = ins.op, ins.args
        if op == "label":
            return None
        if op == "ret":
            return "ret"
        if op == "j":
            return a[0].name
        if op in ("bnez", "beqz"):
            return a[1].name if (self.get(a[0]) == 0) == (op == "beqz") else None
        if op == "ld":
            addr = self.get(a[1]) + a[2]
            base, buf = self.mem.regions[self.schedule]
            tag = None
            if base <= addr < base + len(buf) and (addr - base) % 8 == 0:
                tag = ("key", (addr - base) // 16, ((addr - base) // 8) % 2)
            self.put(a[0], int.from_bytes(self.mem.read(addr, 8, align=8), "little"), tag)
            return None
        if op == "sd":
            self.mem.write(self.get(a[1]) + a[2], self.get(a[0]).to_bytes(8, "little"), align=8)
            return None
        if op == "addi":
            self.put(a[0], self.get(a[1]) + a[2])
            return None
        if op == "mv":
            self.put(a[0], self.get(a[1]), self.tag[self.reg(a[1])])
            return None
        if op == "sltiu":
            self.put(a[0], 1 if self.get(a[1]) < a[2] else 0)
            return None
        if op == "rev8":
            self.put(a[0], int.from_bytes(self.get(a[1]).to_bytes(8, "little"), "big"))
            return None
        if op in SHIFTS:
            if not 0 <= a[2] <= 63:
                raise MachineError(f"{op} shift amount {a[2]} is outside 0..63")
            v = self.get(a[1])
            if op == "slli":
                v <<= a[2]
            elif op == "srli":
                v >>= a[2]
            else:
                v = (v - (v >> 63 << 64)) >> a[2]     # arithmetic: the sign fills in
            self.put(a[0], v)
            return None
        if op == "andi":
            if not -2048 <= a[2] <= 2047:
                raise MachineError(f"andi immediate {a[2]} is outside -2048..2047")
            self.put(a[0], self.get(a[1]) & a[2])      # the immediate sign-extends
            return None
        if op == "or":
            self.put(a[0], self.get(a[1]) | self.get(a[2]))
            return None
        if op == "xor":
            if ins.key is not None and self.tag[self.reg(a[2])] != ins.key:
                raise MachineError(f"xor expected {ins.key}, found {self.tag[self.reg(a[2])]}")
            self.put(a[0], self.get(a[1]) ^ self.get(a[2]))
            return None
        if op in AES_OPS:
            state = self.get(a[1]).to_bytes(8, "little") + self.get(a[2]).to_bytes(8, "little")
            if op == "aes64es":
                out = sub_shift(state)
            elif op == "aes64esm":
                out = mix(sub_shift(state))
            elif op == "aes64ds":
                out = inv_sub_shift(state)
            else:
                out = inv_mix(inv_sub_shift(state))
            self.put(a[0], int.from_bytes(out[:8], "little"))
            return None
        if op == "aes64ks1i":
            # SubWord(RotWord(high word)) ^ rcon in both halves; round number 0xA: SubWord only
            if not 0 <= a[2] <= 0xA:
                raise MachineError(f"aes64ks1i round number {a[2]} is reserved")
            w = (self.get(a[1]) >> 32).to_bytes(4, "little")
            if a[2] != 0xA:
                w = w[1:] + w[:1]
            t = bytearray(reference.sub_bytes(w))
            if a[2] != 0xA:
                t[0] ^= RCON[a[2]]
            word = int.from_bytes(t, "little")
            self.put(a[0], (word << 32) | word)
            return None
        if op == "aes64ks2":
            w0 = (self.get(a[1]) >> 32) ^ (self.get(a[2]) & 0xFFFFFFFF)
            w1 = w0 ^ (self.get(a[2]) >> 32)
            self.put(a[0], (w1 << 32) | w0)
            return None
        if op == "aes64im":
            cols = self.get(a[1]).to_bytes(8, "little") * 2
            self.put(a[0], int.from_bytes(reference.mix_columns(cols, inverse=True)[:8], "little"))
            return None
        raise MachineError(f"the model has no meaning for {op}")


# ------------------------------------------------------------------ reading objdump back

def _operand(text: str):
    if text in ABI_NUMBER:
        return X(text)
    return int(text, 0)


def parse(addr: int, text: str) -> Instr | None:
    """One line of `objdump -d` as the Instr the emitter would have written (objdump
    prints compressed instructions under their full names)."""
    words = text.split("#")[0].split(None, 1)
    mnem, rest = words[0], (words[1] if len(words) > 1 else "")
    ops = [o.strip() for o in rest.split(",")] if rest else []
    if mnem in ("nop", "unimp"):
        return Instr("pad")
    if mnem in BRANCHES:
        target = objdump.branch_label(int(ops[-1].split()[0], 16))
        return Instr(mnem, tuple(_operand(o) for o in ops[:-1]) + (target,))
    if mnem == "ret":
        return Instr("ret")
    if mnem in ("ld", "sd"):                          # ld rd, off(base)
        m = re.fullmatch(r"(-?\d+)\((\w+)\)", ops[1])
        if not m:
            raise DisassemblyError(f"{addr:#x}: cannot read memory operand {ops[1]!r}")
        return Instr(mnem, (X(ops[0]), X(m.group(2)), int(m.group(1))))
    if mnem == "add" and isinstance(_operand(ops[2]), int):
        mnem = "addi"                                 # c.addi16sp prints as add sp,sp,imm
    if mnem in IMMEDIATE_ALIAS and len(ops) == 3 and isinstance(_operand(ops[2]), int):
        mnem = IMMEDIATE_ALIAS[mnem]
    if mnem in ("addi", "sltiu", "mv", "rev8", "xor", "or", "andi", "aes64ks1i", "aes64ks2", "aes64im") \
            + SHIFTS + AES_OPS:
        return Instr(mnem, tuple(_operand(o) for o in ops))
    raise DisassemblyError(f"{addr:#x}: instruction {mnem!r} is not one aesgen emits")


def _canonical(ins: Instr) -> Instr:
    if ins.op == "addi" and ins.args[2] == 0:         # objdump prints addi rd, rs, 0 as mv
        return Instr("mv", ins.args[:2])
    return ins


def same(emitted: Instr, parsed: Instr) -> bool:
    return objdump.same_operands(_canonical(emitted), _canonical(parsed))
