"""SPARC V9 with the T4 AES opcodes (big-endian, 64-bit Linux): the instructions the AES
loops use, one meaning for the model, one GNU as spelling, and a reader for objdump's
listing of the assembled bytes.

No emulator here runs these opcodes, so this model is the proof. Their meaning, as the
Linux (arch/sparc/crypto/aes_asm.S) and OpenSSL (aest4-sparcv9.pl) code uses them:
a round key half and both state halves in, one state half out; aes_eround01 k, a, b, d
gives bytes 0-7 of MixColumns(ShiftRows(SubBytes(a:b))) XOR k and eround23 bytes 8-15
(the _l forms skip MixColumns); aes_dround01/23 give InvMixColumns(InvSubBytes(
InvShiftRows(a:b)) XOR k) for their half, which is why decryption runs on the
encryption keys in reverse order. A double holds 8 state bytes in memory order.
aes_kexpand0/1/2 each make two key-schedule words (Linux aes_sparc64_key_expand).
Branches have a delay slot; functions open a register window with `save`. ldxa/stxa take
an immediate ASI (only the [rs1 + rs2] form, here [rs1]): ASI_P is ldx/stx's big-endian
order, ASI_PL (0x88) the same bytes little-endian, which is how XTS reads its tweak.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import reference
from . import objdump
from .common import Instr, Machine as _Machine, MachineError, Memory, inv_mix, inv_sub_shift, mix, sub_shift
from .objdump import DisassemblyError

TOOLCHAIN = objdump.Toolchain("sparc64-linux-gnu-", "binutils-sparc64-linux-gnu", flags=("-Wa,-Av9e",))


@dataclass(frozen=True)
class F:
    """A double-precision register %f0..%f62 (even)."""
    n: int

    def __str__(self) -> str:
        return f"%f{self.n}"


@dataclass(frozen=True)
class R:
    name: str

    def __str__(self) -> str:
        return f"%{self.name}"


@dataclass(frozen=True)
class Mem:
    base: R
    disp: int = 0

    def __str__(self) -> str:
        return f"[{self.base}+{self.disp}]" if self.disp else f"[{self.base}]"


AES_OPS = tuple(f"aes_{d}round{h}{l}" for d in "ed" for h in ("01", "23") for l in ("", "_l"))
KEXPAND = ("aes_kexpand0", "aes_kexpand1", "aes_kexpand2")
RCON = (0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36)
BRANCHES = ("brz", "brnz", "blu", "bgeu", "ba")
SP = R("sp")
LOGIC = ("xor", "add", "sub", "and", "or", "sllx", "srlx", "srax")
# immediate ASIs of ldxa/stxa: the primary space big-endian (as ldx/stx) or little-endian
ASI_P, ASI_PL = 0x80, 0x88
ASI_NAMES = {"#ASI_P": ASI_P, "#ASI_P_L": ASI_PL}   # as objdump prints them


def render(ins: Instr) -> str:
    op, a = ins.op, ins.args
    comment = f"\t! {ins.note}" if ins.note else ""
    if op == "label":
        return f"{a[0]}:"
    if op in ("ldx", "ldd"):
        text = f"{op} {a[1]}, {a[0]}"
    elif op in ("stx", "std"):
        text = f"{op} {a[1]}, {a[0]}"
    elif op in LOGIC:
        text = f"{op} {a[1]}, {a[2]}, {a[0]}"
    elif op in ("ldxa", "stxa"):
        mem, reg = (a[1], a[0]) if op == "ldxa" else (a[0], a[1])
        if mem.disp:
            raise ValueError(f"{op}: an immediate ASI takes [rs1 + rs2], not an offset")
        text = f"ldxa {mem} {a[2]:#x}, {reg}" if op == "ldxa" else f"stxa {reg}, {mem} {a[2]:#x}"
    elif op in ("movxtod", "movdtox"):
        text = f"{op} {a[1]}, {a[0]}"
    elif op == "fxor":
        text = f"fxor {a[1]}, {a[2]}, {a[0]}"
    elif op in AES_OPS:
        text = f"{op} {a[1]}, {a[2]}, {a[3]}, {a[0]}"
    elif op == "aes_kexpand1":
        text = f"{op} {a[1]}, {a[2]}, {a[3]}, {a[0]}"
    elif op in KEXPAND:
        text = f"{op} {a[1]}, {a[2]}, {a[0]}"
    elif op == "cmp":
        text = f"cmp {a[0]}, {a[1]}"
    elif op in ("brz", "brnz"):
        text = f"{op},{'pn' if op == 'brz' else 'pt'} {a[0]}, {a[1]}"
    elif op in ("blu", "bgeu", "ba"):
        text = f"{op},{'pn' if op == 'blu' else 'pt'} %xcc, {a[0]}"
    elif op == "save":
        text = f"save %sp, -{a[0]}, %sp"
    elif op in ("ret", "restore", "nop"):
        text = op
    else:
        raise ValueError(f"no spelling for {op}")
    return f"\t{text}{comment}"


class Machine(_Machine):
    """Register windows, FP doubles, %xcc carry and zero, delay slots. Doubles carry a
    tag: ("key", i, half) after ldd of half of round key i from the schedule."""
    delay_slot = True

    def __init__(self, memory: Memory, schedule_region: str):
        super().__init__(memory, schedule_region)
        self.g = {f"g{i}": 0 for i in range(8)}
        self.win = {**{f"o{i}": 0 for i in range(8)}, **{f"l{i}": 0 for i in range(8)},
                    **{f"i{i}": 0 for i in range(8)}}
        self.windows: list[dict] = []
        self.f = {n: 0 for n in range(0, 64, 2)}
        self.ftag: dict[int, object] = {n: None for n in range(0, 64, 2)}
        self.carry = self.zero = False

    def _name(self, r: R) -> str:
        return {"sp": "o6", "fp": "i6"}.get(r.name, r.name)

    def get(self, r) -> int:
        if isinstance(r, int):
            return r
        name = self._name(r)
        if name == "g0":
            return 0
        return self.g[name] if name.startswith("g") else self.win[name]

    def put(self, r: R, value: int) -> None:
        name = self._name(r)
        value &= (1 << 64) - 1
        if name == "g0":
            return
        if name.startswith("g"):
            self.g[name] = value
        else:
            self.win[name] = value

    def _addr(self, m: Mem) -> int:
        addr = self.get(m.base) + m.disp
        if addr % 8:
            raise MachineError(f"8-byte access at {addr:#x} is misaligned (a trap on SPARC)")
        return addr

    def gpr(self, name: str) -> int:
        return self.get(R(name))

    def set_gpr(self, name: str, value: int) -> None:
        self.put(R(name), value)

    def step(self, ins: Instr):
        op, a = ins.op, ins.args
        mask = (1 << 64) - 1
        if op == "nop":
            return None
        if op == "save":
            self.windows.append(dict(self.win))
            sp = (self.win["o6"] - a[0]) & mask
            self.win = {**{f"i{i}": self.win[f"o{i}"] for i in range(8)},
                        **{f"l{i}": 0 for i in range(8)}, **{f"o{i}": 0 for i in range(8)}}
            self.win["o6"] = sp
            return None
        if op == "restore":
            if not self.windows:
                raise MachineError("restore without save")
            self.win = self.windows.pop()
            return None
        if op == "ret":
            return "ret"
        if op in ("brz", "brnz"):
            z = self.get(a[0]) == 0
            return a[1].name if z == (op == "brz") else "fall"
        if op in ("blu", "bgeu", "ba"):
            taken = {"blu": self.carry, "bgeu": not self.carry, "ba": True}[op]
            return a[0].name if taken else "fall"
        if op == "cmp":
            x, y = self.get(a[0]), self.get(a[1])
            self.carry, self.zero = x < y, x == y
            return None
        if op in LOGIC:
            x, y = self.get(a[1]), self.get(a[2])
            if op in ("sllx", "srlx", "srax"):
                y &= 63                        # the 64-bit shifts read 6 bits of the count
                signed = x - (1 << 64) if x >> 63 else x
                value = x << y if op == "sllx" else x >> y if op == "srlx" else signed >> y
            else:
                value = {"xor": x ^ y, "add": x + y, "sub": x - y, "and": x & y, "or": x | y}[op]
            self.put(a[0], value)
            return None
        if op in ("ldxa", "stxa"):
            mem, reg, asi = (a[1], a[0], a[2]) if op == "ldxa" else (a[0], a[1], a[2])
            if mem.disp:
                raise MachineError(f"{op}: an immediate ASI has no offset form")
            order = {ASI_P: "big", ASI_PL: "little"}.get(asi)
            if order is None:
                raise MachineError(f"{op}: the model has no meaning for ASI {asi:#x}")
            addr = self._addr(mem)
            if op == "ldxa":
                self.put(reg, int.from_bytes(self.mem.read(addr, 8), order))
            else:
                self.mem.write(addr, self.get(reg).to_bytes(8, order))
            return None
        if op == "ldx":
            self.put(a[0], int.from_bytes(self.mem.read(self._addr(a[1]), 8), "big"))
            return None
        if op == "stx":
            self.mem.write(self._addr(a[0]), self.get(a[1]).to_bytes(8, "big"))
            return None
        if op == "ldd":
            addr = self._addr(a[1])
            self.f[a[0].n] = int.from_bytes(self.mem.read(addr, 8), "big")
            base, buf = self.mem.regions[self.schedule]
            inside = base <= addr < base + len(buf) and (addr - base) % 8 == 0
            self.ftag[a[0].n] = ("key", (addr - base) // 16, ((addr - base) // 8) % 2) if inside else None
            return None
        if op == "std":
            self.mem.write(self._addr(a[0]), self.f[a[1].n].to_bytes(8, "big"))
            return None
        if op == "movxtod":
            self.f[a[0].n], self.ftag[a[0].n] = self.get(a[1]), None
            return None
        if op == "movdtox":
            self.put(a[0], self.f[a[1].n])
            return None
        if op == "fxor":
            self.f[a[0].n], self.ftag[a[0].n] = self.f[a[1].n] ^ self.f[a[2].n], None
            return None
        if op in AES_OPS:
            dst, k, hi, lo = a
            if ins.key is not None and self.ftag[k.n] != ins.key:
                raise MachineError(f"{op} expected {ins.key} in {k}, found {self.ftag[k.n]}")
            state = self.f[hi.n].to_bytes(8, "big") + self.f[lo.n].to_bytes(8, "big")
            half = slice(0, 8) if "round01" in op else slice(8, 16)
            key = self.f[k.n].to_bytes(8, "big")
            if op.startswith("aes_e"):
                s = sub_shift(state) if op.endswith("_l") else mix(sub_shift(state))
                out = bytes(x ^ y for x, y in zip(s[half], key))
            else:
                s = bytearray(inv_sub_shift(state))
                s[half] = bytes(x ^ y for x, y in zip(s[half], key))
                out = (bytes(s) if op.endswith("_l") else inv_mix(bytes(s)))[half]
            self.f[dst.n], self.ftag[dst.n] = int.from_bytes(out, "big"), None
            return None
        if op in KEXPAND:
            # two new key words from the words Nk back (rs1) and the word before (the
            # second word of rs2): kexpand1 applies SubWord(RotWord()) ^ rcon, kexpand0
            # SubWord() (AES-256's middle step), kexpand2 nothing
            dst, x, y = a[0], a[1], a[2]
            last = self.f[y.n] & 0xFFFFFFFF
            if op == "aes_kexpand1":
                t = _sub_word(((last << 8) | (last >> 24)) & 0xFFFFFFFF) ^ (RCON[a[3]] << 24)
            elif op == "aes_kexpand0":
                t = _sub_word(last)
            else:
                t = last
            w0 = (self.f[x.n] >> 32) ^ t
            w1 = (self.f[x.n] & 0xFFFFFFFF) ^ w0
            self.f[dst.n], self.ftag[dst.n] = (w0 << 32) | w1, None
            return None
        raise MachineError(f"the model has no meaning for {op}")


def _sub_word(w: int) -> int:
    return int.from_bytes(reference.sub_bytes(w.to_bytes(4, "big")), "big")


# ------------------------------------------------------------------ reading objdump back

_ALIASES = {"bcs": "blu", "blu": "blu", "bcc": "bgeu", "bgeu": "bgeu", "ba": "ba", "brz": "brz", "brnz": "brnz",
            "fxord": "fxor", "fxor": "fxor"}


def _operand(text: str):
    text = text.strip()
    if text.startswith("%f"):
        return F(int(text[2:]))
    if text.startswith("%"):
        return R(text[1:])
    if text.startswith("["):
        m = re.fullmatch(r"\[\s*%(\w+)\s*(?:([+-])\s*(0x[0-9a-f]+|\d+))?\s*\]", text)
        if not m:
            raise DisassemblyError(f"cannot read memory operand {text!r}")
        disp = int(m.group(3), 0) if m.group(3) else 0
        return Mem(R(m.group(1)), -disp if m.group(2) == "-" else disp)
    return int(text, 0)


def parse(addr: int, text: str) -> Instr | None:
    """One line of `objdump -d` as the Instr the emitter would have written."""
    words = text.split("!")[0].split(None, 1)
    mnem = words[0]
    rest = words[1] if len(words) > 1 else ""
    base, _, hint = mnem.partition(",")
    if base in ("nop", "ret", "restore"):
        return Instr(base)
    if base in ("inc", "dec"):          # inc [imm,] rd: add rd, imm, rd (dec: sub)
        ops = [_operand(o) for o in rest.split(",")]
        r, imm = ops[-1], ops[0] if len(ops) == 2 else 1
        return Instr("add" if base == "inc" else "sub", (r, r, imm))
    if mnem == "b,a":                   # alignment padding after the function's return
        return Instr("pad")
    if base == "save":
        return Instr("save", (-int(rest.split(",")[1].strip(), 0),))
    if base in _ALIASES and _ALIASES[base] in BRANCHES:
        op = _ALIASES[base]
        parts = [p.strip() for p in rest.split(",")]
        label = objdump.branch_label(int(parts[-1].split()[0], 16))
        return Instr(op, (_operand(parts[0]), label) if op in ("brz", "brnz") else (label,))
    base = _ALIASES.get(base, base)
    if base in ("ldxa", "stxa"):        # ldxa [ %i4 ] #ASI_P_L, %l2 / stxa %l2, [ %i1 ] #ASI_P_L
        m = re.fullmatch(r"(?:(%\w+),\s*)?(\[[^\]]*\])\s*(#\w+|0x[0-9a-f]+|\d+)(?:,\s*(%\w+))?", rest.strip())
        if not m or (m.group(1) is None) != (base == "ldxa"):
            raise DisassemblyError(f"{addr:#x}: cannot read {text!r}")
        asi = ASI_NAMES.get(m.group(3), -1) if m.group(3).startswith("#") else int(m.group(3), 0)
        if asi < 0:
            raise DisassemblyError(f"{addr:#x}: {m.group(3)} is not an ASI aesgen uses")
        mem = _operand(m.group(2))
        return Instr(base, (_operand(m.group(4)), mem, asi) if base == "ldxa" else (mem, _operand(m.group(1)), asi))
    ops = [_operand(o) for o in re.split(r",(?![^\[]*\])", rest)] if rest else []
    if base in ("ldx", "ldd", "stx", "std", "movxtod", "movdtox"):
        return Instr(base, (ops[1], ops[0]))
    if base in LOGIC or base == "fxor":
        return Instr(base, (ops[2], ops[0], ops[1]))
    if base in AES_OPS or base == "aes_kexpand1":
        return Instr(base, (ops[3], ops[0], ops[1], ops[2]))
    if base in KEXPAND:
        return Instr(base, (ops[2], ops[0], ops[1]))
    if base == "cmp":
        return Instr("cmp", (ops[0], ops[1]))
    raise DisassemblyError(f"{addr:#x}: {base!r} is not an instruction aesgen emits")


same = objdump.same_operands
PADDING = frozenset({"pad", "nop"})     # after the closing ret/restore
