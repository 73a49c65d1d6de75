"""What every machine model shares: the instruction and label types, the error types,
bounded memory regions, the run loop, and the AES round steps on one 16-byte lane (in
terms of the reference AES). An ISA module adds its operand types, one meaning per
instruction (`Machine.step`), one assembler spelling (`render`) and a reader for
objdump's listing of the assembled bytes."""

from __future__ import annotations

from dataclasses import dataclass

from .. import reference
from ..errors import AesgenError


class MachineError(AesgenError):
    """An emitted instruction stream misbehaved in the model."""


class EncodingError(AesgenError):
    """An instruction with operands its ISA cannot encode (or aesgen must not touch)."""


@dataclass(frozen=True)
class Label:
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Instr:
    """One instruction: op and operands (destination first), `key` the round key an AES
    op or key XOR must read (the model checks it: key_matches), `note` an end-of-line
    comment."""
    op: str
    args: tuple = ()
    key: tuple | None = None
    note: str = ""


def key_matches(expected: tuple, tag) -> bool:
    """Whether a register's tag is the key an instruction names: ("key", i) exactly, or
    ("keys", lo, hi), any of round keys lo..hi (the op of a round loop, a different key
    on each trip; the comparison with the reference checks their order)."""
    if expected[0] == "keys":
        return isinstance(tag, tuple) and len(tag) == 2 and tag[0] == "key" and expected[1] <= tag[1] <= expected[2]
    return tag == expected


class Machine:
    """The run loop every model shares; a subclass gives `step(ins)`, which returns None
    (fall through), "ret", or the name of the label to branch to. With `delay_slot`
    (SPARC) a branch takes effect after the next instruction, which may not branch.
    `gpr`/`set_gpr` and `vector`/`set_vector` name registers as the ABI (machine/abi.py)
    does, so the model can plant and check the caller's registers."""
    delay_slot = False

    def __init__(self, memory: "Memory", schedule_region: str):
        self.mem = memory
        self.schedule = schedule_region
        self.steps = 0

    def step(self, ins: Instr):
        raise NotImplementedError

    def run(self, program: list[Instr], entry: str, max_steps: int = 2_000_000) -> None:
        labels = {ins.args[0].name: i for i, ins in enumerate(program) if ins.op == "label"}
        pc = labels[entry]
        pending = None          # a branch waiting for its delay slot
        while True:
            if pc >= len(program):
                raise MachineError("ran off the end of the function")
            ins = program[pc]
            pc += 1
            if ins.op == "label":
                continue
            self.steps += 1
            if self.steps > max_steps:
                raise MachineError("no return after many steps (endless loop?)")
            target = self.step(ins)
            if pending is not None:
                if target is not None:
                    raise MachineError(f"a control transfer ({ins.op}) sits in a delay slot")
                target, pending = pending, None
            elif self.delay_slot and target is not None:
                pending = target      # the next instruction is the delay slot
                continue
            if target == "ret":
                return
            if target is not None and target != "fall":
                pc = labels[target]

    def gpr(self, name: str) -> int:
        raise NotImplementedError

    def set_gpr(self, name: str, value: int) -> None:
        raise NotImplementedError

    def vector(self, n: int) -> bytes:
        raise NotImplementedError

    def set_vector(self, n: int, value: bytes) -> None:
        raise NotImplementedError


def lanes_of(data: bytes) -> list[bytes]:
    return [data[i:i + 16] for i in range(0, len(data), 16)]


def _round_tables(inverse: bool) -> tuple[tuple[int, ...], ...]:
    """A middle round without its key as 16 tables: the linear part (ShiftRows, then
    MixColumns; inverse: InvShiftRows, then InvMixColumns) is a sum over the state's
    bytes, so table i maps byte i's value v to the whole state that byte i = S(v) alone
    becomes, built from the reference's own functions."""
    box = reference.INV_SBOX if inverse else reference.SBOX
    tables = []
    for i in range(16):
        row = []
        for v in range(256):
            unit = bytearray(16)
            unit[i] = box[v]
            if inverse:
                out = reference.mix_columns(reference.shift_rows(bytes(unit), -1), inverse=True)
            else:
                out = reference.mix_columns(reference.shift_rows(bytes(unit)))
            row.append(int.from_bytes(out, "big"))
        tables.append(tuple(row))
    return tuple(tables)


# the models run millions of rounds: 16 lookups and XORs each instead of four passes
_ROUND_TABLES = {"aesenc": _round_tables(False), "aesdec": _round_tables(True)}


def aes_lane(op: str, state: bytes, key: bytes) -> bytes:
    tables = _ROUND_TABLES.get(op)
    if tables is not None:
        v = int.from_bytes(key, "big")
        for t, b in zip(tables, state):
            v ^= t[b]
        return v.to_bytes(16, "big")
    if op == "aesenclast":
        s = reference.shift_rows(reference.sub_bytes(state))
    else:
        s = reference.inv_sub_bytes(reference.shift_rows(state, -1))
    return reference.xor(s, key)


# Where the models put a round-key schedule: 8 bytes past a 16-byte boundary, since an
# aesgen_ctx may sit at any 8-byte-aligned address. A loop that needs more alignment
# than that from the schedule fails in the model.
SCHEDULE_MISALIGN = 8


class Memory:
    """Named regions at fixed addresses; every access must fall inside one region."""

    def __init__(self):
        self.regions: dict[str, tuple[int, bytearray]] = {}
        self._next = 0x10000

    def add(self, name: str, data: bytes | bytearray, alias_of: str | None = None, at: int | None = None,
            misalign: int = 0) -> int:
        """A region at a fresh page (plus `misalign` bytes), at a fixed address `at`, or
        the same buffer as region `alias_of`."""
        if alias_of is not None:
            self.regions[name] = self.regions[alias_of]
            return self.regions[name][0]
        if at is not None:      # a fixed address, e.g. linked read-only data
            self.regions[name] = (at, bytearray(data))
            return at
        self._next = max(self._next, 0x100000)
        base = self._next + misalign
        self._next += (misalign + len(data) + 0x1000 + 0xFFF) & ~0xFFF    # a gap after every region
        self.regions[name] = (base, bytearray(data))
        return base

    def find(self, addr: int, n: int) -> tuple[str, bytearray, int]:
        for name, (base, buf) in self.regions.items():
            if base <= addr and addr + n <= base + len(buf):
                return name, buf, addr - base
        raise MachineError(f"access of {n} bytes at {addr:#x} is outside every buffer")

    @staticmethod
    def check_aligned(addr: int, align: int) -> None:
        if addr % align:
            raise MachineError(f"access at {addr:#x} is not {align}-byte aligned, as the instruction requires")

    def read(self, addr: int, n: int, align: int = 1) -> bytes:
        self.check_aligned(addr, align)
        _, buf, off = self.find(addr, n)
        return bytes(buf[off:off + n])

    def write(self, addr: int, data: bytes, align: int = 1) -> None:
        self.check_aligned(addr, align)
        _, buf, off = self.find(addr, len(data))
        buf[off:off + len(data)] = data

    def bytes_of(self, name: str) -> bytes:
        return bytes(self.regions[name][1])


# The AES steps ISAs combine differently: x86 and POWER end a round with the key, ARM
# starts with it, POWER and SPARC decryption XOR the key before InvMixColumns.
def sub_shift(s: bytes) -> bytes:
    return reference.shift_rows(reference.sub_bytes(s))


def inv_sub_shift(s: bytes) -> bytes:
    return reference.inv_sub_bytes(reference.shift_rows(s, -1))


def mix(s: bytes) -> bytes:
    return reference.mix_columns(s)


def inv_mix(s: bytes) -> bytes:
    return reference.mix_columns(s, inverse=True)
