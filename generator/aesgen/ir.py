"""Straight-line programs: the one representation every backend's code passes through.

A Program is a list of Ops over named values of one word width, plus named memory
operands (byte buffers and word arrays). Values are single-assignment: each name is
written once, so emitters can declare them `const` and the model can execute them
without aliasing questions. Operands are value names (str) or immediates (int).

A vector program (`lanes` > 1) computes on vectors of `lanes` words: the lane-wise ops
act on every lane (an immediate or a word-array element is broadcast), whole vectors
move between memory and registers with vld/vst, and the shuffles move words between
lanes. Single-word ld/st have no vector meaning there.

A Loop rolls a core: a head Program, a body Program run a fixed, public number of
times, and a tail Program, joined by values carried from one to the next (a Program's
`inputs` are values it does not define, its `outputs` the values it hands on). Each
iteration of the body reads its round keys through a window into the schedule. A
KeySizeLoop is one rolled core for every key size: steps, some run only for some round
counts, a loop whose trip count and exits depend on the round count, and windows whose
offsets do.

The model (`model.py`) executes Programs and Loops; emitters (`emit/`) print them.
Anything a backend emits is first built here, so it is first executed here.
"""

from __future__ import annotations

import dataclasses
import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import AesgenError

# opcode -> (number of operands, writes a value?)
OPCODES = {
    "xor": (2, True),
    "and": (2, True),
    "or": (2, True),
    "andn": (2, True),   # a & ~b
    "ternary": (4, True),  # any function of a, b, c: bit (a<<2 | b<<1 | c) of the 8-bit table
    "not": (1, True),
    "mov": (1, True),
    "ror": (2, True),    # rotate right by an immediate
    "shl": (2, True),    # shift left by an immediate
    "shr": (2, True),    # logical shift right by an immediate
    "ld": (3, True),     # ld mem, byte_offset, bits: little-endian load, zero-extended
    "st": (4, False),    # st mem, byte_offset, bits, value: little-endian store of the low bits
    "ldw": (2, True),    # ldw mem, index: element of a word array
    "stw": (3, False),   # stw mem, index, value
    "note": (1, False),  # a comment carried to the output; no effect
    # vector programs only
    "vld": (2, True),    # vld mem, byte_offset: a whole vector, lane i at offset + i * word bytes
    "vst": (3, False),   # vst mem, byte_offset, value
    "vld128": (2, True),  # vld128 mem, byte_offset: one 128-bit block into block 0, the rest zero
    "vst128": (3, False), # vst128 mem, byte_offset, value: block 0 only
    "unpacklo": (3, True),  # unpacklo a, b, bits: in each 128-bit block, the low halves of a and b
                            # interleaved in units of `bits` (a's first): x86 punpckl*, Arm zip1
    "unpackhi": (3, True),  # the same with the high halves
    "blocks": (3, True),    # blocks a, b, parity: a's even (parity 0) or odd 128-bit blocks,
                            # then b's: vperm2i128 0x20/0x31, vshufi32x4 0x88/0xdd
    "bswap": (1, True),     # bswap a: each 128-bit block's bytes in reverse order (64-bit lanes)
    "swap64": (1, True),    # swap64 a: each 128-bit block's 64-bit halves exchanged: pshufd 0x4e, ext
    "clmul": (3, True),     # clmul a, b, sel: in each 128-bit block, the carry-less product of
                            # a's 64-bit half (sel & 1) and b's (sel >> 4 & 1): pclmulqdq, pmull
}

SHUFFLE_OPS = frozenset({"unpacklo", "unpackhi", "blocks", "bswap", "swap64"})
VECTOR_OPS = SHUFFLE_OPS | {"vld", "vst", "vld128", "vst128", "clmul"}
ALU_OPS = frozenset({"xor", "and", "or", "andn", "not", "ternary", "ror", "shl", "shr", "clmul"}) | SHUFFLE_OPS
LOGIC_OPS = frozenset({"xor", "and", "or", "andn", "not", "ternary"})
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Op:
    code: str
    dst: str | None
    args: tuple

    def __str__(self) -> str:
        rhs = ", ".join(str(a) for a in self.args)
        return f"{self.dst} = {self.code} {rhs}" if self.dst else f"{self.code} {rhs}"


@dataclass(frozen=True)
class Memory:
    """A memory operand: `bytes` (uint8_t buffer) or `words` (array of program words)."""
    name: str
    kind: str
    length: int          # bytes for kind == "bytes", elements for kind == "words"
    writable: bool


@dataclass
class Program:
    name: str
    bits: int
    memories: tuple[Memory, ...]
    ops: list[Op] = field(default_factory=list)
    lanes: int = 1          # words per value: > 1 for a vector program
    inputs: tuple[str, ...] = ()    # values defined before the first op (a loop's carried state)
    outputs: tuple[str, ...] = ()   # values handed on after the last op

    @property
    def vector_bytes(self) -> int:
        return self.bits * self.lanes // 8

    def memory(self, name: str) -> Memory:
        for m in self.memories:
            if m.name == name:
                return m
        raise KeyError(name)

    def alu_count(self) -> int:
        return sum(1 for op in self.ops if op.code in ALU_OPS)

    def count(self, *codes: str) -> int:
        return sum(1 for op in self.ops if op.code in codes)


class ProgramError(AesgenError):
    pass


def check(program: Program) -> None:
    """Structural checks: known opcodes, single assignment, defined-before-use,
    in-bounds constant memory offsets, writable stores."""
    mask = (1 << program.bits) - 1
    mems = {m.name: m for m in program.memories}
    for name in program.inputs:
        if not _NAME.match(name) or keyword.iskeyword(name) or name in mems:
            raise ProgramError(f"{program.name}: bad input name {name!r}")
    if len(set(program.inputs)) != len(program.inputs):
        raise ProgramError(f"{program.name}: an input is listed twice")
    defined: set[str] = set(program.inputs)
    if program.lanes < 1 or program.lanes & (program.lanes - 1):
        raise ProgramError(f"{program.name}: {program.lanes} lanes (a power of two, at least 1)")
    for i, op in enumerate(program.ops):
        problem = _check_op(op, program.bits, mask, defined, mems) or _check_shape(op, program)
        if problem:
            raise ProgramError(f"{program.name}: op {i} ({op}): {problem}")
        if op.dst is not None:
            defined.add(op.dst)
    for name in program.outputs:
        if name not in defined or name in program.inputs:
            raise ProgramError(f"{program.name}: output {name!r} is not a value the program computes")


def _check_op(op: Op, bits: int, mask: int, defined: set, mems: dict) -> str | None:
    if op.code not in OPCODES:
        return "unknown opcode"
    nargs, writes = OPCODES[op.code]
    if len(op.args) != nargs:
        return f"expects {nargs} operands"
    if writes != (op.dst is not None):
        return "destination mismatch"
    if op.code == "note":
        return None
    for a in _value_operands(op):
        if isinstance(a, str):
            if a not in defined:
                return f"'{a}' used before it is defined"
        elif not 0 <= a <= mask:
            return "immediate out of range"
    if op.code in ("ror", "shl", "shr") and not 0 < op.args[1] < bits:
        return "shift amount out of range"
    if op.code == "ternary" and not (isinstance(op.args[3], int) and 0 <= op.args[3] <= 0xFF):
        return "truth table out of range"
    if op.code in ("ld", "st", "ldw", "stw"):
        mem = mems.get(op.args[0])
        if mem is None:
            return f"unknown memory '{op.args[0]}'"
        if op.code in ("ld", "st"):
            if mem.kind != "bytes":
                return "byte access to word memory"
            width = op.args[2]
            if width not in (8, 16, 32, 64) or width > bits:
                return "bad access width"
            if not 0 <= op.args[1] <= mem.length - width // 8:
                return "offset out of bounds"
        else:
            if mem.kind != "words":
                return "word access to byte memory"
            if not 0 <= op.args[1] < mem.length:
                return "index out of bounds"
        if op.code in ("st", "stw") and not mem.writable:
            return "store to read-only memory"
    if op.dst is not None:
        if not _NAME.match(op.dst) or keyword.iskeyword(op.dst):
            return "bad value name"
        if op.dst in mems:
            return f"value '{op.dst}' has the name of a memory operand"
        if op.dst in defined:
            return f"'{op.dst}' assigned twice"
    return None


def _check_shape(op: Op, program: Program) -> str | None:
    """Vector ops in vector programs only, element loads and stores in scalar ones."""
    vector = program.lanes > 1
    if op.code in ("ld", "st") and vector:
        return "single-word memory access in a vector program (use vld/vst)"
    if op.code not in VECTOR_OPS:
        return None
    if not vector:
        return "vector op in a scalar program"
    vbits = program.bits * program.lanes
    if op.code in ("vld", "vst", "vld128", "vst128"):
        if op.args[0] not in {m.name for m in program.memories}:
            return f"unknown memory '{op.args[0]}'"
        mem = program.memory(op.args[0])
        if mem.kind != "bytes":
            return "vector access to word memory"
        width = 16 if op.code.endswith("128") else program.vector_bytes
        if not 0 <= op.args[1] <= mem.length - width:
            return "offset out of bounds"
        if op.code in ("vst", "vst128") and not mem.writable:
            return "store to read-only memory"
        return None
    if vbits % 128:
        return "shuffles need vectors of whole 128-bit blocks"
    if op.code in ("clmul", "bswap", "swap64"):
        if program.bits != 64:
            return f"{op.code} works on 64-bit lanes"
        if op.code == "clmul" and op.args[2] not in (0x00, 0x01, 0x10, 0x11):
            return "clmul selects a half of each operand: 0x00, 0x01, 0x10 or 0x11"
        return None
    if op.code == "blocks":
        if vbits < 256 or op.args[2] not in (0, 1):
            return "blocks needs two or more 128-bit blocks and a parity of 0 or 1"
    elif op.args[2] not in (32, 64) or op.args[2] < program.bits:
        return "unpack unit must be 32 or 64 bits and at least a word"
    return None


def _value_operands(op: Op) -> tuple:
    """Operands that are values or immediates (not memory names, offsets or widths)."""
    if op.code in ("ld", "ldw", "vld", "vld128"):
        return ()
    if op.code == "st":
        return (op.args[3],)
    if op.code in ("stw", "vst", "vst128"):
        return (op.args[2],)
    if op.code in ("unpacklo", "unpackhi", "blocks", "clmul"):
        return op.args[:2]
    if op.code in ("ror", "shl", "shr"):
        return (op.args[0],)
    if op.code == "ternary":
        return op.args[:3]
    return op.args


def eliminate_dead_code(program: Program) -> None:
    """Drop ops whose values are never used (stores, notes and outputs are roots)."""
    live: set[str] = set(program.outputs)
    kept = []
    for op in reversed(program.ops):
        if op.dst is None or op.dst in live:
            kept.append(op)
            live.update(a for a in _value_operands(op) if isinstance(a, str))
    program.ops = list(reversed(kept))


@dataclass(frozen=True)
class Loop:
    """`head`, then `body` `times` times, then `tail`: a rolled core. The carried state is
    head.outputs -> body.inputs, body.outputs -> the next iteration's body.inputs, and
    finally tail.inputs, position by position; body.inputs and tail.inputs are the same
    names (the variables the loop updates). Iteration r (r = 0..times-1, in descending
    order when `descending`) sees the memory `window` (a memory of the body) as the
    elements `keys`[base + stride * r ...] (a memory of head and tail, of the same kind:
    round keys the body reads, or the part of an output it writes). `more` gives further
    windows the same way, (window, keys, base, stride) each: a body that reads one
    memory and writes another."""
    name: str
    head: Program
    body: Program
    tail: Program
    times: int
    window: str
    keys: str
    base: int
    stride: int
    descending: bool = False
    more: tuple[tuple[str, str, int, int], ...] = ()

    def windows(self) -> tuple[tuple[str, str, int, int], ...]:
        """Every window: (window, keys, base, stride)."""
        return ((self.window, self.keys, self.base, self.stride),) + self.more

    @property
    def bits(self) -> int:
        return self.head.bits

    @property
    def lanes(self) -> int:
        return self.head.lanes

    @property
    def memories(self) -> tuple[Memory, ...]:
        """The memories of the whole core (the window is a view into `keys`)."""
        out = {m.name: m for m in self.head.memories + self.tail.memories}
        return tuple(out.values())

    def memory(self, name: str) -> Memory:
        return {m.name: m for m in self.memories}[name]

    def iterations(self) -> range:
        return range(self.times - 1, -1, -1) if self.descending else range(self.times)

    def pieces(self) -> tuple[Program, Program, Program]:
        return self.head, self.body, self.tail

    def alu_count(self) -> int:
        """Operations executed per run (the body counted `times` times), as Program.alu_count."""
        return self.times * self.body.alu_count() + self.head.alu_count() + self.tail.alu_count()

    def count(self, *codes: str) -> int:
        """Ops of these codes executed per run, as Program.count."""
        return self.times * self.body.count(*codes) + self.head.count(*codes) + self.tail.count(*codes)

    def static_alu_count(self) -> int:
        """Operations written out: what the rolled form saves in code."""
        return sum(p.alu_count() for p in self.pieces())

    def replace(self, head: Program, body: Program, tail: Program) -> "Loop":
        """The same loop over rewritten pieces (vectorized, fused)."""
        return Loop(self.name, head, body, tail, self.times, self.window, self.keys, self.base,
                    self.stride, self.descending, self.more)


@dataclass(frozen=True)
class RoundTest:
    """A run-time test on the key size's round count `nr` and the trip `r` of a
    KeySizeLoop: its C text (over `nr` and `r`) and its meaning."""
    c: str
    holds: Callable[[int, int], bool]


@dataclass(frozen=True)
class Window:
    """A step's view of a core memory: `name` (a memory of the step's program) is
    `over`[base + per_round * nr + per_trip * r ...]."""
    name: str
    over: str
    base: int
    per_round: int = 0
    per_trip: int = 0

    def start(self, nr: int, r: int) -> int:
        return self.base + self.per_round * nr + self.per_trip * r


@dataclass(frozen=True)
class Step:
    """A program of a KeySizeLoop: run when `when` holds (always when None), on its
    windows; it takes the carried state (none for the first step that makes it) and
    hands on the new state (nothing when the loop carries none)."""
    program: Program
    windows: tuple[Window, ...] = ()
    when: RoundTest | None = None


@dataclass(frozen=True)
class Exit:
    """Leave the loop when `when` holds."""
    when: RoundTest


@dataclass(frozen=True)
class KeySizeLoop:
    """One core for every key size, its round count `nr` an argument at run time: the
    `head` steps, then the `body` over trips r = 0..trips(nr)-1 (descending when
    `descending`), left early by an Exit, then the `tail` steps. Round keys are reached
    through windows whose offsets depend on nr and r, so one text serves AES-128, -192 and
    -256. `memories` gives each memory of the core with its length at nr = 0 and its
    growth per round."""
    name: str
    bits: int
    state: tuple[str, ...]
    memories: tuple[tuple[Memory, int], ...]
    head: tuple[Step, ...]
    body: tuple[Step | Exit, ...]
    tail: tuple[Step, ...]
    trips: tuple[str, Callable[[int], int]]   # C text over nr, and its meaning
    descending: bool = False
    key_bits: tuple[int, ...] = (128, 192, 256)

    @property
    def lanes(self) -> int:
        return self.steps()[0].program.lanes

    def map_programs(self, rewrite: Callable[[Program], Program]) -> "KeySizeLoop":
        """The same loop over rewritten step programs (vectorized, fused); a memory that
        does not grow with nr takes the largest length a rewritten step declares for it."""
        def mapped(items):
            return tuple(dataclasses.replace(i, program=rewrite(i.program)) if isinstance(i, Step) else i
                         for i in items)
        loop = dataclasses.replace(self, head=mapped(self.head), body=mapped(self.body), tail=mapped(self.tail))
        declared: dict[str, int] = {}
        for s in loop.steps():
            for m in s.program.memories:
                declared[m.name] = max(declared.get(m.name, 0), m.length)
        memories = tuple((dataclasses.replace(m, length=max(m.length, declared.get(m.name, 0))) if not grow else m,
                          grow) for m, grow in self.memories)
        return dataclasses.replace(loop, memories=memories)

    def memories_of(self, nr: int) -> tuple[Memory, ...]:
        return tuple(dataclasses.replace(m, length=m.length + grow * nr) for m, grow in self.memories)

    def steps(self) -> list[Step]:
        return [s for s in self.head + self.body + self.tail if isinstance(s, Step)]

    def trace(self, nr: int) -> list[tuple[Step, int]]:
        """The steps that run for round count nr, each with its trip (0 outside the loop)."""
        out = [(s, 0) for s in self.head if s.when is None or s.when.holds(nr, 0)]
        n = self.trips[1](nr)
        for r in (range(n - 1, -1, -1) if self.descending else range(n)):
            left = False
            for item in self.body:
                if isinstance(item, Exit):
                    if item.when.holds(nr, r):
                        left = True
                        break
                elif item.when is None or item.when.holds(nr, r):
                    out.append((item, r))
            if left:
                break
        return out + [(s, 0) for s in self.tail if s.when is None or s.when.holds(nr, 0)]

    def alu_count(self, nr: int) -> int:
        """Operations executed per run for round count nr."""
        return sum(s.program.alu_count() for s, _ in self.trace(nr))

    def count(self, nr: int, *codes: str) -> int:
        return sum(s.program.count(*codes) for s, _ in self.trace(nr))

    def static_alu_count(self) -> int:
        return sum(s.program.alu_count() for s in self.steps())


def check_key_size_loop(loop: KeySizeLoop) -> None:
    """Each step checked; one word width and lane count; every step but a state-making
    first one takes the state, and every step but a storing last one hands on a state of
    its shape; windows are views of the core's memories of their kind; no name defined in
    two steps. Where a key size's run leaves the loop and which round keys it reads
    depend on nr: the model checks them on every run (model.run)."""
    steps = loop.steps()
    if not steps or not loop.body or not any(isinstance(i, Step) for i in loop.body):
        raise ProgramError(f"{loop.name}: a key-size loop needs a body step")
    core = {m.name: m for m, _ in loop.memories}
    seen: set[str] = set()
    for i, s in enumerate(steps):
        p = s.program
        check(p)
        if p.bits != loop.bits or p.lanes != steps[0].program.lanes:
            raise ProgramError(f"{p.name}: not of the word width and lanes of the rest of {loop.name}")
        makes = i == 0 and not p.inputs
        if not makes and p.inputs != loop.state:
            raise ProgramError(f"{p.name}: takes {p.inputs}, not the carried state {loop.state}")
        if len(p.outputs) != len(loop.state) and not (i == len(steps) - 1 and not p.outputs):
            raise ProgramError(f"{p.name}: hands on {len(p.outputs)} values for a state of {len(loop.state)}")
        if makes and s.when is not None:
            raise ProgramError(f"{p.name}: the step that makes the state must always run")
        names = {w.name for w in s.windows}
        if len(names) != len(s.windows):
            raise ProgramError(f"{p.name}: two windows of one name")
        for m in p.memories:
            if m.name in names:
                over = core.get(next(w.over for w in s.windows if w.name == m.name))
                if over is None or over.kind != m.kind or (m.writable and not over.writable):
                    raise ProgramError(f"{p.name}: window {m.name} must view a core memory of its kind, "
                                       "written only if that memory is")
            elif core.get(m.name) is None or core[m.name].kind != m.kind:
                raise ProgramError(f"{p.name}: memory {m.name} is not one of {loop.name}'s")
        defined = {op.dst for op in p.ops if op.dst is not None} | names
        if defined & seen:
            raise ProgramError(f"{loop.name}: {sorted(defined & seen)[0]!r} is defined in two steps")
        seen |= defined
    if set(loop.state) & seen:
        raise ProgramError(f"{loop.name}: a state name is also a step's value")


def check_loop(loop: Loop) -> None:
    """Each piece checked; the carried state has one shape throughout; the window stays
    inside the key memory on every iteration; no name is defined twice across pieces."""
    head, body, tail = loop.pieces()
    for p in loop.pieces():
        check(p)
    if len({p.bits for p in loop.pieces()}) != 1 or len({p.lanes for p in loop.pieces()}) != 1:
        raise ProgramError(f"{loop.name}: the pieces differ in word width or lanes")
    if loop.times < 1:
        raise ProgramError(f"{loop.name}: a loop of {loop.times} iterations")
    if body.inputs != tail.inputs or not (len(head.outputs) == len(body.inputs) == len(body.outputs)):
        raise ProgramError(f"{loop.name}: the carried state differs between head, body and tail")
    if len({w for w, _, _, _ in loop.windows()}) != len(loop.windows()):
        raise ProgramError(f"{loop.name}: two windows of one name")
    for name, over, base, stride in loop.windows():
        window = body.memory(name)
        keys = head.memory(over)
        if window.kind != keys.kind or tail.memory(over) != keys or (window.writable and not keys.writable):
            raise ProgramError(f"{loop.name}: the window {name} must be a view into {over}, of its kind, "
                               f"written only if {over} is")
        for r in (0, loop.times - 1):
            start = base + stride * r
            if start < 0 or start + window.length > keys.length:
                raise ProgramError(f"{loop.name}: iteration {r} reads {over}[{start}..{start + window.length})")
    seen: set[str] = set()
    for p in loop.pieces():
        names = {op.dst for op in p.ops if op.dst is not None}
        if p is not tail:
            names |= set(p.inputs)
        if names & seen:
            raise ProgramError(f"{loop.name}: {sorted(names & seen)[0]!r} is defined in two pieces")
        seen |= names


class Builder:
    """Appends ops to a Program, handing out fresh single-assignment names."""

    def __init__(self, program: Program):
        self.program = program
        self._used: dict[str, int] = {}
        self._issued: set[str] = set()
        self.prefix = ""
        self.switch(program)

    def switch(self, program: Program) -> None:
        """Append to `program` from now on, never reusing a name handed out before: the
        pieces of a Loop share one C scope chain, so their names must all differ."""
        self.program = program
        self._issued |= {m.name for m in program.memories} | set(program.inputs)  # never shadow these

    def fresh(self, hint: str) -> str:
        base = f"{self.prefix}{hint}"
        while True:
            n = self._used.get(base, 0)
            self._used[base] = n + 1
            name = base if n == 0 else f"{base}_{n}"
            if name not in self._issued:
                self._issued.add(name)
                return name

    def _emit(self, code: str, args: tuple, hint: str) -> str:
        dst = self.fresh(hint)
        self.program.ops.append(Op(code, dst, args))
        return dst

    def note(self, text: str) -> None:
        self.program.ops.append(Op("note", None, (text,)))

    def xor(self, a, b, hint="t"):
        return self._emit("xor", (a, b), hint)

    def and_(self, a, b, hint="t"):
        return self._emit("and", (a, b), hint)

    def or_(self, a, b, hint="t"):
        return self._emit("or", (a, b), hint)

    def andn(self, a, b, hint="t"):
        return self._emit("andn", (a, b), hint)

    def not_(self, a, hint="t"):
        return self._emit("not", (a,), hint)

    def mov(self, a, hint="t"):
        return self._emit("mov", (a,), hint)

    def ror(self, a, n, hint="t"):
        n %= self.program.bits
        return a if n == 0 else self._emit("ror", (a, n), hint)

    def shl(self, a, n, hint="t"):
        return a if n == 0 else self._emit("shl", (a, n), hint)

    def shr(self, a, n, hint="t"):
        return a if n == 0 else self._emit("shr", (a, n), hint)

    def ld(self, mem, offset, bits, hint="t"):
        return self._emit("ld", (mem, offset, bits), hint)

    def st(self, mem, offset, bits, value):
        self.program.ops.append(Op("st", None, (mem, offset, bits, value)))

    def vld(self, mem, offset, hint="t"):
        return self._emit("vld", (mem, offset), hint)

    def vld128(self, mem, offset, hint="t"):
        return self._emit("vld128", (mem, offset), hint)

    def vst128(self, mem, offset, value):
        self.program.ops.append(Op("vst128", None, (mem, offset, value)))

    def vst(self, mem, offset, value):
        self.program.ops.append(Op("vst", None, (mem, offset, value)))

    def shuffle(self, code, a, b, imm, hint="t"):
        if code not in ("unpacklo", "unpackhi", "blocks"):
            raise ValueError(code)
        return self._emit(code, (a, b, imm), hint)

    def bswap(self, a, hint="t"):
        return self._emit("bswap", (a,), hint)

    def swap64(self, a, hint="t"):
        return self._emit("swap64", (a,), hint)

    def clmul(self, a, b, sel, hint="t"):
        return self._emit("clmul", (a, b, sel), hint)

    def ldw(self, mem, index, hint="t"):
        return self._emit("ldw", (mem, index), hint)

    def stw(self, mem, index, value):
        self.program.ops.append(Op("stw", None, (mem, index, value)))
