"""x86-64: the instructions the AES loops use, each with one meaning (for the model),
one spelling per encoding (GNU as, AT&T operand order), and a reader for objdump's
listing of the assembled bytes.

Encodings: "sse" (legacy SSE/AES-NI: two operands, the destination is also the first
source; memory operands must be 16-byte aligned), "vex" (AVX/AVX2/VAES: three operands,
xmm0-15/ymm0-15), "evex" (AVX-512: also xmm16-31 and zmm). The emitter picks operands the
encoding allows; `check_encodable` rejects anything else before printing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import reference
from . import objdump
from .common import EncodingError, Instr, Machine as _Machine, MachineError, Memory, aes_lane, key_matches, lanes_of
from .objdump import ABSOLUTE, DisassemblyError

WIDTH_BYTES = {"xmm": 16, "ymm": 32, "zmm": 64}
GPRS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp") + tuple(f"r{n}" for n in range(8, 16))
TOOLCHAIN = objdump.Toolchain("", "binutils", link=True)


@dataclass(frozen=True)
class V:
    """A vector register: kind xmm/ymm/zmm, number 0..31."""
    kind: str
    n: int

    @property
    def width(self) -> int:
        return WIDTH_BYTES[self.kind]

    def view(self, kind: str) -> "V":
        return V(kind, self.n)

    def __str__(self) -> str:
        return f"%{self.kind}{self.n}"


@dataclass(frozen=True)
class G:
    """A 64-bit general register."""
    name: str

    def __str__(self) -> str:
        return f"%{self.name}"


@dataclass(frozen=True)
class M:
    """Memory at base (+ index) + disp, or at a local label (RIP-relative) + disp."""
    base: G | None
    disp: int = 0
    label: str | None = None
    index: G | None = None     # scale 1

    def __str__(self) -> str:
        if self.label is not None:
            return f"{self.label}{'+' + str(self.disp) if self.disp else ''}(%rip)"
        regs = f"{self.base},{self.index}" if self.index is not None else f"{self.base}"
        return f"{self.disp if self.disp else ''}({regs})"

    def offset(self, n: int) -> "M":
        return M(self.base, self.disp + n, self.label, self.index)


@dataclass(frozen=True)
class Imm:
    value: int

    def __str__(self) -> str:
        return f"${self.value}"


AES_OPS = ("aesenc", "aesenclast", "aesdec", "aesdeclast")
# (dst, src, Imm): shifts of each 64-bit element by bits, or of each 128-bit lane by bytes
SHIFT_OPS = ("shlq", "shrq", "bshl", "bshr")
# (dst, src, counts): shifts of each 64-bit element by the count in the same element
VAR_SHIFT_OPS = ("shlvq", "shrvq")
VEC3_OPS = ("xor", "addq", "shufb", "lshift") + VAR_SHIFT_OPS + AES_OPS
# (dst, src1, src2, Imm): carry-less product of one 64-bit half of each 128-bit lane of
# src1 (Imm bit 0) and one of src2 (Imm bit 4)
CLMUL = "clmul"
# (dst, a, b): dst ^= a ^ b in one EVEX op (vpternlogq with the truth table 0x96)
XOR3 = "xor3"
# A 16-byte block read as two 8-byte halves (movq, then movhps into the high half), so
# that it forwards from a caller's two 8-byte stores (a 16-byte load of them stalls), and
# its lane 0 copied to every 128-bit lane (vpermq / vshufi64x2)
LOADLO, LOADHI, DUP128 = "loadlo", "loadhi", "dup128"
BRANCHES = ("jmp", "jb", "jae", "jz", "jnz")
# (dst, src, mem, Imm): dst = src with 128-bit lane Imm read from mem (vinserti128 /
# vinserti32x4); (mem or xmm, src, Imm): lane Imm of src stored to mem or copied to an
# xmm register (vextracti128 / vextracti32x4); (dst, mem): a 64-bit general register
# loaded (movq), e.g. a pointer
INSERT128, EXTRACT128, LOADG = "insert128", "extract128", "loadg"
# (dst, src1, src2, Imm): zmm 128-bit lanes picked by 2-bit fields of Imm, dst lanes 0-1
# from src1 and 2-3 from src2 (vshufi64x2): four of them transpose 4 x 4 blocks
SHUF128 = "shuf128"
# The key set-up's instructions (xmm only, but PSHUFD). (dst, src, Imm): AESKEYGENASSIST,
# SubWord of words 1 and 3 and RotWord(SubWord) ^ the round constant; PSHUFD, in each
# 128-bit lane dst word i = src word (Imm >> 2i) & 3. (dst, src1, src2, Imm): SHUFPS,
# words 0-1 chosen from src1 and 2-3 from src2. (dst, src): AESIMC, InvMixColumns.
# (mem, src): the low 8 bytes stored (movq)
KEYGEN, PSHUFD, SHUFPS, AESIMC, STORELO = "keygenassist", "pshufd", "shufps", "aesimc", "storelo"


def _mnemonic(op: str, enc: str, dst: V | None) -> str:
    kind = dst.kind if dst is not None else "xmm"
    if op in AES_OPS:
        return op if enc == "sse" else "v" + op
    table = {
        "xor": {"sse": "pxor", "vex": "vpxor", "evex": "vpxorq"},
        "addq": {"sse": "paddq", "vex": "vpaddq", "evex": "vpaddq"},
        "shufb": {"sse": "pshufb", "vex": "vpshufb", "evex": "vpshufb"},
        "load": {"sse": "movdqu", "vex": "vmovdqu", "evex": "vmovdqu64"},
        "store": {"sse": "movdqu", "vex": "vmovdqu", "evex": "vmovdqu64"},
        "mov": {"sse": "movdqa", "vex": "vmovdqa", "evex": "vmovdqa64"},
        "shlq": {"sse": "psllq", "vex": "vpsllq", "evex": "vpsllq"},
        "shrq": {"sse": "psrlq", "vex": "vpsrlq", "evex": "vpsrlq"},
        "bshl": {"sse": "pslldq", "vex": "vpslldq", "evex": "vpslldq"},
        "bshr": {"sse": "psrldq", "vex": "vpsrldq", "evex": "vpsrldq"},
        "shlvq": {"vex": "vpsllvq", "evex": "vpsllvq"},
        "shrvq": {"vex": "vpsrlvq", "evex": "vpsrlvq"},
        "clmul": {"sse": "pclmulqdq", "vex": "vpclmulqdq", "evex": "vpclmulqdq"},
    }
    if op == "bcast":
        if kind == "xmm":
            return _mnemonic("load", enc, dst)
        return "vbroadcasti128" if enc == "vex" else "vbroadcasti32x4"
    return table[op][enc]


def check_encodable(ins: Instr, enc: str) -> None:
    """Reject operands the encoding cannot express."""
    if sum(isinstance(a, M) for a in ins.args) > 1:
        raise EncodingError(f"{ins.op}: at most one memory operand")
    regs = [a for a in ins.args if isinstance(a, V)]
    for r in regs:
        if enc == "sse" and (r.kind != "xmm" or r.n > 15):
            raise EncodingError(f"{ins.op}: {r} needs VEX/EVEX")
        if enc == "vex" and (r.kind == "zmm" or r.n > 15):
            raise EncodingError(f"{ins.op}: {r} needs EVEX")
    if ins.op in (KEYGEN, SHUFPS, AESIMC, STORELO) and any(r.kind != "xmm" for r in regs):
        raise EncodingError(f"{ins.op}: the key set-up's instructions are emitted on xmm only")
    if enc == "sse" and ins.op in VEC3_OPS + SHIFT_OPS + (CLMUL, SHUFPS) and ins.args[0] != ins.args[1]:
        raise EncodingError(f"{ins.op}: SSE is destructive; destination must be the first source")
    if ins.op in (LOADLO, LOADHI) and ins.args[0].kind != "xmm":
        raise EncodingError(f"{ins.op}: an 8-byte load fills an xmm register")
    if ins.op == LOADHI and enc == "sse" and ins.args[0] != ins.args[1]:
        raise EncodingError(f"{ins.op}: SSE is destructive; destination must be the first source")
    if ins.op == SHUF128 and (enc != "evex" or any(r.kind != "zmm" for r in regs)):
        raise EncodingError(f"{ins.op}: picks lanes of zmm registers (EVEX)")
    if ins.op == DUP128 and (ins.args[0].kind == "xmm" or enc == "sse"):
        raise EncodingError(f"{ins.op}: needs a ymm or zmm destination")
    if enc != "evex" and ins.op == XOR3:
        raise EncodingError(f"{ins.op}: three-input logic needs EVEX")
    if enc == "sse" and ins.op in VAR_SHIFT_OPS:
        raise EncodingError(f"{ins.op}: variable shifts need VEX/EVEX")
    if ins.op in (INSERT128, EXTRACT128):
        wide = ins.args[0] if ins.op == INSERT128 else ins.args[1]
        if enc == "sse" or wide.kind == "xmm":
            raise EncodingError(f"{ins.op}: a 128-bit lane of a ymm or zmm register")
        if ins.op == EXTRACT128 and isinstance(ins.args[0], V) and ins.args[0].kind != "xmm":
            raise EncodingError(f"{ins.op}: a 128-bit lane goes to an xmm register")
        if not 0 < ins.args[-1].value < wide.width // 16:
            raise EncodingError(f"{ins.op}: {wide} has no lane {ins.args[-1].value} past lane 0")


def render(ins: Instr, enc: str) -> str:
    """One line of GNU as (AT&T operand order)."""
    check_encodable(ins, enc)
    op, a = ins.op, ins.args
    comment = f"  # {ins.note}" if ins.note else ""
    if op == "label":
        return f"{a[0]}:"
    if op == "lshift":
        # dst = [b's last lane, a's lanes 0..n-2]: the block before each block of a
        dst, src_a, src_b = a
        if dst.kind == "xmm" or enc == "sse":
            raise EncodingError("lshift needs a ymm or zmm destination")
        if enc == "vex":
            text = f"vperm2i128 $0x21, {src_a}, {src_b}, {dst}"
        else:
            text = f"valignq ${2 * (dst.width // 16 - 1)}, {src_b}, {src_a}, {dst}"
    elif op in SHIFT_OPS:
        dst, src, imm = a
        mnem = _mnemonic(op, enc, dst)
        text = f"{mnem} {imm}, {dst}" if enc == "sse" else f"{mnem} {imm}, {src}, {dst}"
    elif op == XOR3:
        dst, src2, src3 = a
        text = f"vpternlogq $0x96, {src3}, {src2}, {dst}"
    elif op == INSERT128:
        dst, src, m, imm = a
        text = f"{'vinserti128' if enc == 'vex' else 'vinserti32x4'} {imm}, {m}, {src}, {dst}"
    elif op == EXTRACT128:
        m, src, imm = a
        text = f"{'vextracti128' if enc == 'vex' else 'vextracti32x4'} {imm}, {src}, {m}"
    elif op == LOADG:
        text = f"movq {a[1]}, {a[0]}"
    elif op == LOADLO:
        text = f"{'movq' if enc == 'sse' else 'vmovq'} {a[1]}, {a[0]}"
    elif op == LOADHI:
        dst, src, m = a
        text = f"movhps {m}, {dst}" if enc == "sse" else f"vmovhps {m}, {src}, {dst}"
    elif op == DUP128:
        dst, src = a
        text = f"vpermq $0x44, {src}, {dst}" if dst.kind == "ymm" else f"vshufi64x2 $0, {src}, {src}, {dst}"
    elif op == SHUF128:
        dst, src1, src2, imm = a
        text = f"vshufi64x2 {imm}, {src2}, {src1}, {dst}"
    elif op in (KEYGEN, PSHUFD):
        dst, src, imm = a
        mnem = {KEYGEN: "aeskeygenassist", PSHUFD: "pshufd"}[op]
        text = f"{'' if enc == 'sse' else 'v'}{mnem} {imm}, {src}, {dst}"
    elif op == SHUFPS:
        dst, src1, src2, imm = a
        text = f"shufps {imm}, {src2}, {dst}" if enc == "sse" else f"vshufps {imm}, {src2}, {src1}, {dst}"
    elif op == AESIMC:
        text = f"{'' if enc == 'sse' else 'v'}aesimc {a[1]}, {a[0]}"
    elif op == STORELO:
        text = f"{'movq' if enc == 'sse' else 'vmovq'} {a[1]}, {a[0]}"
    elif op == CLMUL:
        dst, src1, src2, imm = a
        mnem = _mnemonic(op, enc, dst)
        text = f"{mnem} {imm}, {src2}, {dst}" if enc == "sse" else f"{mnem} {imm}, {src2}, {src1}, {dst}"
    elif op in VEC3_OPS:
        dst, src1, src2 = a
        mnem = _mnemonic(op, enc, dst)
        text = f"{mnem} {src2}, {dst}" if enc == "sse" else f"{mnem} {src2}, {src1}, {dst}"
    elif op in ("load", "bcast", "mov"):
        text = f"{_mnemonic(op, enc, a[0])} {a[1]}, {a[0]}"
    elif op == "store":
        text = f"{_mnemonic(op, enc, a[1])} {a[1]}, {a[0]}"
    elif op in ("addg", "subg", "movg", "cmpg"):
        mnem = {"addg": "addq", "subg": "subq", "movg": "movq", "cmpg": "cmpq"}[op]
        text = f"{mnem} {a[1]}, {a[0]}"
    elif op == "lea":
        text = f"leaq {a[1]}, {a[0]}"
    elif op in ("testg",):
        text = f"testq {a[1]}, {a[0]}"
    elif op in BRANCHES:
        text = f"{op} {a[0]}"
    elif op in ("ret", "vzeroupper", "endbr64"):
        text = op
    else:
        raise EncodingError(f"no spelling for {op}")
    return f"\t{text}{comment}"


# ------------------------------------------------------------------------ the model

class Machine(_Machine):
    """Registers, memory and flags. Instructions take operands in Intel order
    (destination first). `data_labels` maps the local data labels of the .S (its
    read-only table) to addresses.

    Each vector register lane carries a tag: ("key", i) after a load of round key i from
    the schedule, ("key^data", i) after such a key is XORed with other data, else None.
    An AES op whose `key` field names round key i fails unless its key operand carries
    that tag: reading a clobbered key register cannot pass unnoticed."""

    def __init__(self, memory: Memory, schedule_region: str, encoding: str, data_labels: dict,
                 key_rounds: dict[int, int] | None = None):
        super().__init__(memory, schedule_region)
        self.enc = encoding
        self.data_labels = data_labels
        self.key_rounds = key_rounds     # offset -> round key, where the schedule is not 16 i
        self.regs = {name: 0 for name in GPRS}
        self.vec = {n: [bytes(16)] * 4 for n in range(32)}
        self.tag: dict[int, list] = {n: [None] * 4 for n in range(32)}
        self.zf = self.cf = False

    def gpr(self, name: str) -> int:
        return self.regs[name]

    def set_gpr(self, name: str, value: int) -> None:
        self.regs[name] = value

    # operands
    def _addr(self, m: M) -> int:
        if m.label is not None:
            return self.data_labels[m.label] + m.disp
        addr = self.regs[m.base.name] + m.disp + (self.regs[m.index.name] if m.index is not None else 0)
        return addr & ((1 << 64) - 1)      # an index may hold a negative offset

    def _key_tag(self, addr: int, width: int) -> tuple | None:
        base, buf = self.mem.regions[self.schedule]
        if base <= addr < base + len(buf) and (addr - base) % 16 == 0 and width == 16:
            if self.key_rounds is not None:
                rnd = self.key_rounds.get(addr - base)
                return None if rnd is None else ("key", rnd)
            return ("key", (addr - base) // 16)
        return None

    def read_vec(self, operand, lanes: int, align: int = 1) -> tuple[list[bytes], list]:
        if isinstance(operand, V):
            return self.vec[operand.n][:lanes], self.tag[operand.n][:lanes]
        addr = self._addr(operand)
        data = self.mem.read(addr, 16 * lanes, align)
        tags = [self._key_tag(addr + 16 * i, 16) if lanes == 1 else None for i in range(lanes)]
        return lanes_of(data), tags

    def write_vec(self, reg: V, values: list[bytes], tags: list) -> None:
        lanes = len(values)
        if self.enc == "sse":   # legacy encodings keep the upper lanes
            self.vec[reg.n] = values + self.vec[reg.n][lanes:]
            self.tag[reg.n] = tags + self.tag[reg.n][lanes:]
        else:                   # VEX/EVEX zero them
            self.vec[reg.n] = values + [bytes(16)] * (4 - lanes)
            self.tag[reg.n] = tags + [None] * (4 - lanes)

    def step(self, ins: Instr):
        op, a = ins.op, ins.args
        if op in ("label", "endbr64"):
            return None
        if op == "vzeroupper":
            for n in range(16):
                self.vec[n] = self.vec[n][:1] + [bytes(16)] * 3
                self.tag[n] = self.tag[n][:1] + [None] * 3
            return None
        if op == "ret":
            return "ret"
        if op in BRANCHES:
            taken = {"jmp": True, "jb": self.cf, "jae": not self.cf, "jz": self.zf, "jnz": not self.zf}[op]
            return a[0].name if taken else None
        if op in ("addg", "subg", "cmpg"):
            x = self.regs[a[0].name]
            y = a[1].value if isinstance(a[1], Imm) else self.regs[a[1].name]
            r = x + y if op == "addg" else x - y
            self.cf = (r < 0) if op != "addg" else r >= 1 << 64
            r &= (1 << 64) - 1
            self.zf = r == 0
            if op != "cmpg":
                self.regs[a[0].name] = r
            return None
        if op == "testg":
            r = self.regs[a[0].name] & self.regs[a[1].name]
            self.zf, self.cf = r == 0, False
            return None
        if op == "movg":
            value = (a[1].value if isinstance(a[1], Imm) else self.regs[a[1].name]) & ((1 << 64) - 1)
            if isinstance(a[0], M):      # an immediate stored as 64 bits
                self.mem.write(self._addr(a[0]), value.to_bytes(8, "little"))
            else:
                self.regs[a[0].name] = value
            return None
        if op == "lea":
            self.regs[a[0].name] = self._addr(a[1]) & ((1 << 64) - 1)
            return None
        if op == LOADG:
            self.regs[a[0].name] = int.from_bytes(self.mem.read(self._addr(a[1]), 8), "little")
            return None
        # vector operations
        dst = a[0]
        if op == STORELO:
            self.mem.write(self._addr(dst), self.vec[a[1].n][0][:8])
            return None
        if op == "store":
            src = a[1]
            lanes = src.width // 16
            self.mem.write(self._addr(dst), b"".join(self.vec[src.n][:lanes]))
            return None
        if op == EXTRACT128:
            if isinstance(dst, V):
                self.write_vec(dst, [self.vec[a[1].n][a[2].value]], [None])
            else:
                self.mem.write(self._addr(dst), self.vec[a[1].n][a[2].value])
            return None
        lanes = dst.width // 16
        if op == "load":
            values, tags = self.read_vec(a[1], lanes)
            self.write_vec(dst, values, tags)    # a 16-byte load of round key i is key i
            return None
        if op == "bcast":
            addr = self._addr(a[1])
            block = self.mem.read(addr, 16)
            self.write_vec(dst, [block] * lanes, [self._key_tag(addr, 16)] * lanes)
            return None
        if op == "mov":
            self.write_vec(dst, list(self.vec[a[1].n][:lanes]), list(self.tag[a[1].n][:lanes]))
            return None
        if op == LOADLO:
            self.write_vec(dst, [self.mem.read(self._addr(a[1]), 8) + bytes(8)], [None])
            return None
        if op == LOADHI:
            low = self.vec[a[1].n][0][:8]
            self.write_vec(dst, [low + self.mem.read(self._addr(a[2]), 8)], [None])
            return None
        if op == DUP128:
            self.write_vec(dst, [self.vec[a[1].n][0]] * lanes, [None] * lanes)
            return None
        if op == SHUF128:
            imm = a[3].value
            picks = [(a[1], imm & 3), (a[1], imm >> 2 & 3), (a[2], imm >> 4 & 3), (a[2], imm >> 6 & 3)]
            self.write_vec(dst, [self.vec[r.n][i] for r, i in picks], [None] * 4)
            return None
        if op == INSERT128:
            values, tags = list(self.vec[a[1].n][:lanes]), list(self.tag[a[1].n][:lanes])
            values[a[3].value], tags[a[3].value] = self.mem.read(self._addr(a[2]), 16), None
            self.write_vec(dst, values, tags)
            return None
        if op == PSHUFD:
            picks = [a[2].value >> 2 * i & 3 for i in range(4)]
            self.write_vec(dst, [_words(lane, picks) for lane in self.vec[a[1].n][:lanes]], [None] * lanes)
            return None
        if op in (KEYGEN, AESIMC):
            lane = self.vec[a[1].n][0]
            out = keygen_assist(lane, a[2].value) if op == KEYGEN else reference.mix_columns(lane, inverse=True)
            self.write_vec(dst, [out], [None])
            return None
        if op == SHUFPS:
            imm, lo, hi = a[3].value, self.vec[a[1].n][0], self.vec[a[2].n][0]
            self.write_vec(dst, [_words(lo, [imm & 3, imm >> 2 & 3]) + _words(hi, [imm >> 4 & 3, imm >> 6 & 3])],
                           [None])
            return None
        # a legacy-SSE memory operand faults (#GP) unless it is 16-byte aligned
        align = 16 if self.enc == "sse" else 1
        x, xt = self.read_vec(a[1], lanes, align)
        if op in SHIFT_OPS:
            self.write_vec(dst, [_shift(op, p, a[2].value) for p in x], [None] * lanes)
            return None
        if op == XOR3:
            y, _ = self.read_vec(a[2], lanes, align)
            d, _ = self.read_vec(dst, lanes)
            self.write_vec(dst, [reference.xor(reference.xor(p, q), r) for p, q, r in zip(d, x, y)],
                           [None] * lanes)
            return None
        if op == CLMUL:
            y, _ = self.read_vec(a[2], lanes, align)
            imm = a[3].value
            out = []
            for p, q in zip(x, y):
                u = int.from_bytes(p[8 * (imm & 1):][:8], "little")
                w = int.from_bytes(q[8 * ((imm >> 4) & 1):][:8], "little")
                out.append(_clmul64(u, w).to_bytes(16, "little"))
            self.write_vec(dst, out, [None] * lanes)
            return None
        y, yt = self.read_vec(a[2], lanes, align)
        if op == "xor":
            out = [reference.xor(p, q) for p, q in zip(x, y)]
            tags = []
            for p, q in zip(xt, yt):
                key = p if p and p[0] == "key" else q if q and q[0] == "key" else None
                other = q if key is p else p
                tags.append(("key^data", key[1]) if key and other is None else None)
            self.write_vec(dst, out, tags)
        elif op == "addq":
            out = []
            for p, q in zip(x, y):
                lo = (int.from_bytes(p[:8], "little") + int.from_bytes(q[:8], "little")) & ((1 << 64) - 1)
                hi = (int.from_bytes(p[8:], "little") + int.from_bytes(q[8:], "little")) & ((1 << 64) - 1)
                out.append(lo.to_bytes(8, "little") + hi.to_bytes(8, "little"))
            self.write_vec(dst, out, [None] * lanes)
        elif op == "shufb":
            out = [bytes(0 if m & 0x80 else p[m & 15] for m in q) for p, q in zip(x, y)]
            self.write_vec(dst, out, [None] * lanes)
        elif op == "lshift":
            self.write_vec(dst, [y[-1]] + x[:-1], [None] * lanes)
        elif op in VAR_SHIFT_OPS:
            out = []
            for p, q in zip(x, y):
                words = []
                for i in (0, 8):
                    v, n = int.from_bytes(p[i:i + 8], "little"), int.from_bytes(q[i:i + 8], "little")
                    v = 0 if n > 63 else (v << n if op == "shlvq" else v >> n) & ((1 << 64) - 1)
                    words.append(v.to_bytes(8, "little"))
                out.append(b"".join(words))
            self.write_vec(dst, out, [None] * lanes)
        elif op in AES_OPS:
            if ins.key is not None:
                for t in yt:
                    if not key_matches(ins.key, t):
                        raise MachineError(f"{op} expected round key {ins.key} in its key operand, found {t}")
            self.write_vec(dst, [aes_lane(op, p, q) for p, q in zip(x, y)], [None] * lanes)
        else:
            raise MachineError(f"the model has no meaning for {op}")
        return None


def _words(lane: bytes, picks: list[int]) -> bytes:
    """The lane's 32-bit words in the order `picks` names them."""
    return b"".join(lane[4 * i:4 * i + 4] for i in picks)


def keygen_assist(lane: bytes, rcon: int) -> bytes:
    """AESKEYGENASSIST: [SubWord(X1), RotWord(SubWord(X1)) ^ rcon, SubWord(X3),
    RotWord(SubWord(X3)) ^ rcon] for words X1 = 1 and X3 = 3 of the lane."""
    out = b""
    for x in (lane[4:8], lane[12:16]):
        sub = bytes(reference.SBOX[b] for b in x)
        rot = sub[1:] + sub[:1]
        out += sub + bytes([rot[0] ^ rcon]) + rot[1:]
    return out


def _shift(op: str, lane: bytes, n: int) -> bytes:
    """One 128-bit lane through a shift by immediate: of each 64-bit half by n bits
    (counts above 63 give 0, as the hardware does), or of the lane by n bytes."""
    if op in ("bshl", "bshr"):
        v = int.from_bytes(lane, "little")
        v = 0 if n > 15 else (v << 8 * n if op == "bshl" else v >> 8 * n) & ((1 << 128) - 1)
        return v.to_bytes(16, "little")
    out = b""
    for i in (0, 8):
        v = int.from_bytes(lane[i:i + 8], "little")
        v = 0 if n > 63 else (v << n if op == "shlq" else v >> n) & ((1 << 64) - 1)
        out += v.to_bytes(8, "little")
    return out


def _clmul64(a: int, b: int) -> int:
    r = 0
    for i in range(64):
        if b >> i & 1:
            r ^= a << i
    return r


# ------------------------------------------------------------------ reading objdump back

_ALIASES = {
    "vpxord": "xor", "vpxorq": "xor", "vpxor": "xor", "pxor": "xor",
    "vpaddq": "addq", "paddq": "addq", "vpshufb": "shufb", "pshufb": "shufb",
    "vaesenc": "aesenc", "vaesenclast": "aesenclast", "vaesdec": "aesdec", "vaesdeclast": "aesdeclast",
    "aesenc": "aesenc", "aesenclast": "aesenclast", "aesdec": "aesdec", "aesdeclast": "aesdeclast",
    "vmovdqu64": "movu", "vmovdqu": "movu", "movdqu": "movu",
    "vmovdqa64": "mov", "vmovdqa": "mov", "movdqa": "mov",
    "vbroadcasti32x4": "bcast", "vbroadcasti128": "bcast",
    "add": "addg", "sub": "subg", "cmp": "cmpg", "test": "testg", "mov": "movg", "lea": "lea",
    "jb": "jb", "jae": "jae", "je": "jz", "jz": "jz", "jne": "jnz", "jnz": "jnz", "jmp": "jmp",
    "ret": "ret", "endbr64": "endbr64", "vzeroupper": "vzeroupper",
    "valignq": "lshift", "vperm2i128": "lshift",
    "vpsllq": "shlq", "psllq": "shlq", "vpsrlq": "shrq", "psrlq": "shrq",
    "vpslldq": "bshl", "pslldq": "bshl", "vpsrldq": "bshr", "psrldq": "bshr",
    "vpsllvq": "shlvq", "vpsrlvq": "shrvq", "vpclmulqdq": "clmul", "pclmulqdq": "clmul",
    "vpternlogq": XOR3,
    "vinserti128": INSERT128, "vinserti32x4": INSERT128, "vextracti128": EXTRACT128, "vextracti32x4": EXTRACT128,
    "movq": LOADLO, "vmovq": LOADLO, "movhps": LOADHI, "vmovhps": LOADHI,
    "vpermq": DUP128, "vshufi64x2": DUP128,
    "aeskeygenassist": KEYGEN, "vaeskeygenassist": KEYGEN, "pshufd": PSHUFD, "vpshufd": PSHUFD,
    "shufps": SHUFPS, "vshufps": SHUFPS, "aesimc": AESIMC, "vaesimc": AESIMC,
}
# objdump names the four immediates of (V)PCLMULQDQ: which half of src1, then of src2
_CLMUL_ALIAS = re.compile(r"v?pclmul([lh])q([lh])qdq")
_PADDING = ("nop", "nopw", "nopl", "xchg", "data16", "cs", "int3")


def _split_operands(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur:
        out.append(cur)
    return [o.strip() for o in out]


def _operand(text: str, comment: str):
    if text.startswith("%"):
        name = text[1:]
        m = re.fullmatch(r"([xyz]mm)(\d+)", name)
        return V(m.group(1), int(m.group(2))) if m else G(name)
    if text.startswith("$"):
        return Imm(int(text[1:], 0))
    m = re.fullmatch(r"(-?0x[0-9a-f]+|-?\d+)?\((%\w+)(?:,(%\w+),1)?\)", text)
    if not m:
        raise DisassemblyError(f"cannot read operand {text!r}")
    disp = int(m.group(1), 0) if m.group(1) else 0
    if m.group(3):
        return M(G(m.group(2)[1:]), disp, index=G(m.group(3)[1:]))
    if m.group(2) == "%rip":
        target = re.match(r"\s*([0-9a-f]+)", comment)
        if not target:
            raise DisassemblyError(f"RIP-relative operand without a resolved address: {text}")
        return M(None, int(target.group(1), 16), ABSOLUTE)
    return M(G(m.group(2)[1:]), disp)


def parse(addr: int, text: str) -> Instr | None:
    """One line of `objdump -d` (AT&T) as the Instr the emitter would have written."""
    body, _, comment = text.partition("#")
    words = body.split(None, 1)
    mnem = words[0]
    if mnem in _PADDING or mnem.startswith("nop"):
        return None
    op = _ALIASES.get(mnem)
    halves = _CLMUL_ALIAS.fullmatch(mnem)
    if halves:
        op = CLMUL
    if op is None:
        raise DisassemblyError(f"{addr:#x}: instruction {mnem!r} is not one aesgen emits")
    ops = _split_operands(words[1]) if len(words) > 1 else []
    if op in BRANCHES:
        return Instr(op, (objdump.branch_label(int(ops[0].split()[0], 16)),))
    args = [_operand(o, comment) for o in ops][::-1]        # AT&T -> Intel order
    if op == "movu":
        op = "store" if isinstance(args[0], M) else "load"
    elif op == "lshift":
        imm, (dst, s2, s3) = args[-1], args[:-1]            # Intel: dst, src2, src3, imm
        expect = 0x21 if mnem == "vperm2i128" else 2 * (dst.width // 16 - 1)
        if imm.value != expect:
            raise DisassemblyError(f"{addr:#x}: {mnem} with immediate {imm.value:#x}, expected {expect:#x}")
        # vperm2i128 $0x21, a, b: Intel (dst, b, a); valignq $n, b, a: Intel (dst, a, b)
        args = [dst, s3, s2] if mnem == "vperm2i128" else [dst, s2, s3]
    elif op in SHIFT_OPS and len(args) == 2:  # legacy SSE: shifted in place
        args = [args[0], args[0], args[1]]
    elif op == "movg" and isinstance(args[1], M):   # a 64-bit load into a general register
        op = LOADG
    elif op == LOADLO and isinstance(args[1], Imm):  # movq of an immediate to memory (64 bits)
        op = "movg"
    elif op == LOADLO and isinstance(args[0], G):   # a general register: objdump's movq
        op = "movg" if not isinstance(args[1], M) else LOADG
    elif op == LOADLO and isinstance(args[0], M):   # movq to memory: the low half stored
        op = STORELO
    elif op == SHUFPS and len(args) == 3:     # legacy SSE: destination is the first source
        args = [args[0], args[0], args[1], args[2]]
    elif op == LOADHI and len(args) == 2:     # legacy SSE: the low half stays
        args = [args[0], args[0], args[1]]
    elif op == DUP128 and mnem == "vshufi64x2" and (args[-1].value != 0 or args[1] != args[2]):
        op = SHUF128                           # Intel: dst, src1, src2, imm
    elif op == DUP128:
        imm, (dst, *srcs) = args[-1], args[:-1]
        if imm.value != (0x44 if mnem == "vpermq" else 0) or any(x != srcs[0] for x in srcs):
            raise DisassemblyError(f"{addr:#x}: {mnem} that does not copy lane 0 to every lane")
        args = [dst, srcs[0]]
    elif op == XOR3:
        imm, (dst, s2, s3) = args[-1], args[:-1]            # Intel: dst, src2, src3, imm
        if imm.value != 0x96:
            raise DisassemblyError(f"{addr:#x}: vpternlogq with truth table {imm.value:#x}, expected 0x96")
        args = [dst, s2, s3]
    elif op == CLMUL:
        if halves:                             # Intel: dst, src1, src2 (, imm)
            args.append(Imm((halves.group(1) == "h") | (halves.group(2) == "h") << 4))
        if len(args) == 3:                     # legacy SSE: destination is the first source
            args = [args[0], args[0], args[1], args[2]]
    elif op in VEC3_OPS and len(args) == 2:   # legacy SSE: destination is the first source
        args = [args[0], args[0], args[1]]
    if op == "movg" and isinstance(args[1], Imm) and args[1].value >= 1 << 63:
        args = [args[0], Imm(args[1].value - (1 << 64))]   # printed unsigned; the immediate is sign-extended
    return Instr(op, tuple(args))


def same(emitted: Instr, parsed: Instr) -> bool:
    """Does the disassembled instruction say what the emitter meant?"""
    if emitted.op in BRANCHES:
        return emitted.op == parsed.op
    op = emitted.op
    if op == "bcast" and emitted.args[0].kind == "xmm":
        op = "load"                      # a 16-byte broadcast is a plain load
    if op != parsed.op or len(emitted.args) != len(parsed.args):
        return False
    for a, b in zip(emitted.args, parsed.args):
        if isinstance(a, M) and a.label is not None:
            if not (isinstance(b, M) and b.label == ABSOLUTE):
                return False
        elif isinstance(a, M) and isinstance(b, M):
            if a.base != b.base or a.disp != b.disp or a.index != b.index:
                return False
        elif a != b:
            return False
    return True
