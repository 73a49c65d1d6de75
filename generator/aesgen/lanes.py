"""Blocks in and out of vector lanes: the transpose networks of the SIMD backends.

A lane program (ir.Program, one word per value) computes on one group of blocks: a
word of 16*B bits holds B blocks, and the program reads and writes its group as G
words (G = 8 for every bitsliced layout). A vector of L such words runs L groups at
once, lane l on group l. Loading word m of every group into one vector is a transpose
of an L x G matrix that memory holds row by row, so `vectorize` loads the batch with
G whole-vector loads and transposes it in registers with the ISA's two-input shuffles
(ir.SHUFFLE_OPS); the stores run the inverse network. Nothing passes through memory
word by word.

The networks are found, not written: each stage applies one shuffle to the G/2 pairs of
vectors that differ in one index bit, and a breadth-first search over stages finds the
shortest load network after which every vector holds one word index (lanes may hold
the groups in any order, the same order in every vector) and then the shortest store
network that puts every word back where it came from. The model runs the resulting
vector program against the reference AES like any other program.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache

from .ir import Builder, KeySizeLoop, Loop, Memory, Program, ProgramError, check, check_key_size_loop, check_loop

GROUP_WORDS = 8          # words per lane group: a 16*B-bit layout reads 16*B bytes as 8 words
MAX_STAGES = 6


@dataclass(frozen=True)
class Stage:
    """One network stage: `code` (unpack unit `imm`, or blocks) on every pair of vectors
    whose indices differ only in bit `bit`; the lower index gets the lo/even result."""
    code: str      # "unpack" or "blocks"
    imm: int       # unpack unit in bits; unused (0) for blocks
    bit: int


def _shuffle_kinds(word_bits: int, vector_bits: int) -> list[tuple[str, int]]:
    kinds = [("unpack", unit) for unit in (32, 64) if unit >= word_bits]
    if vector_bits >= 256:
        kinds.append(("blocks", 0))
    return kinds


def _apply(state: tuple, stage: Stage, word_bits: int, vector_bits: int) -> tuple:
    """The stage on vectors of tokens (one token per word)."""
    per_block = 128 // word_bits
    nblocks = vector_bits // 128

    def split(v):
        return [v[i * per_block:(i + 1) * per_block] for i in range(nblocks)]

    def unpack(a, b, high):
        step = stage.imm // word_bits
        out = []
        for x, y in zip(split(a), split(b)):
            xs = [x[i:i + step] for i in range(0, per_block, step)]
            ys = [y[i:i + step] for i in range(0, per_block, step)]
            half = slice(len(xs) // 2, None) if high else slice(0, len(xs) // 2)
            for p, q in zip(xs[half], ys[half]):
                out += p + q
        return tuple(out)

    def blocks(a, b, parity):
        xs, ys = split(a), split(b)
        return tuple(t for blk in xs[parity::2] + ys[parity::2] for t in blk)

    out = list(state)
    for i in range(len(state)):
        j = i | 1 << stage.bit
        if i == j:
            continue
        a, b = state[i], state[j]
        if stage.code == "unpack":
            out[i], out[j] = unpack(a, b, False), unpack(a, b, True)
        else:
            out[i], out[j] = blocks(a, b, 0), blocks(a, b, 1)
    return tuple(out)


def _search(start: tuple, done, stages: list[Stage], word_bits: int, vector_bits: int):
    """Breadth-first: the shortest stage list taking `start` to a state `done` accepts."""
    seen = {start}
    queue = deque([(start, ())])
    while queue:
        state, path = queue.popleft()
        if done(state):
            return state, path
        if len(path) == MAX_STAGES:
            continue
        for stage in stages:
            nxt = _apply(state, stage, word_bits, vector_bits)
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, path + (stage,)))
    return None


@lru_cache(maxsize=None)
def networks(word_bits: int, lanes: int) -> tuple[tuple[Stage, ...], tuple[Stage, ...], tuple[int, ...]]:
    """(load stages, store stages, word index held by each vector after loading) for
    GROUP_WORDS vectors of `lanes` words of `word_bits` bits."""
    vector_bits = word_bits * lanes
    # token (group, word) at its place in memory: vector i, lane e is flat word i*lanes + e
    memory = tuple(tuple(divmod(i * lanes + e, GROUP_WORDS) for e in range(lanes)) for i in range(GROUP_WORDS))
    stages = [Stage(code, imm, bit) for code, imm in _shuffle_kinds(word_bits, vector_bits)
              for bit in range(GROUP_WORDS.bit_length() - 1)]

    def transposed(state) -> bool:
        one_word = all(len({w for _, w in vec}) == 1 for vec in state)
        return one_word and len({tuple(g for g, _ in vec) for vec in state}) == 1

    found = _search(memory, transposed, stages, word_bits, vector_bits)
    if found is None:
        raise ProgramError(f"no transpose network for {lanes} lanes of {word_bits} bits")
    state, load = found
    back = _search(state, lambda s: s == memory, stages, word_bits, vector_bits)
    if back is None:
        raise ProgramError(f"no inverse transpose network for {lanes} lanes of {word_bits} bits")
    return load, back[1], tuple(vec[0][1] for vec in state)


def _run_network(bld: Builder, vectors: list[str], stages, hint: str) -> list[str]:
    vectors = list(vectors)
    for stage in stages:
        out = list(vectors)
        for i in range(len(vectors)):
            j = i | 1 << stage.bit
            if i == j:
                continue
            if stage.code == "unpack":
                out[i] = bld.shuffle("unpacklo", vectors[i], vectors[j], stage.imm, hint=hint)
                out[j] = bld.shuffle("unpackhi", vectors[i], vectors[j], stage.imm, hint=hint)
            else:
                out[i] = bld.shuffle("blocks", vectors[i], vectors[j], 0, hint=hint)
                out[j] = bld.shuffle("blocks", vectors[i], vectors[j], 1, hint=hint)
        vectors = out
    return vectors


def vectorize(program: Program | Loop | KeySizeLoop, lanes: int) -> Program | Loop | KeySizeLoop:
    """`program` (one lane group from memory `in` to memory `out`, as GROUP_WORDS words
    read by 32-bit or word-sized ld and written by st) on `lanes` groups at once. A
    Loop piece by piece (a KeySizeLoop step by step): its head loads and transposes, its
    tail transposes back and stores, its body and carried state stay in lanes."""
    if isinstance(program, KeySizeLoop):
        loop = program.map_programs(lambda p: vectorize(p, lanes))
        check_key_size_loop(loop)
        return loop
    if isinstance(program, Loop):
        loop = program.replace(*(vectorize(p, lanes) for p in program.pieces()))
        check_loop(loop)
        return loop
    check(program)
    bits = program.bits
    wbytes = bits // 8
    group_bytes = GROUP_WORDS * wbytes
    present = {m.name for m in program.memories}
    for name in ("in", "out"):
        if name in present and program.memory(name).length != group_bytes:
            raise ProgramError(f"{program.name}: memory {name} is not {GROUP_WORDS} words")
    memories = tuple(Memory(m.name, m.kind, m.length * lanes, m.writable) if m.name in ("in", "out") else m
                     for m in program.memories)
    out = Program(f"{program.name}_x{lanes}", bits, memories, lanes=lanes, inputs=program.inputs)
    bld = Builder(out)
    load, store, word_of = networks(bits, lanes)
    vbytes = out.vector_bytes

    word = {}
    if program.count("ld"):
        bld.note(f"load {lanes} lane groups and transpose: vector m holds word m of every group")
        rows = [bld.vld("in", i * vbytes, hint="row") for i in range(GROUP_WORDS)]
        cols = _run_network(bld, rows, load, "tin")
        word = {w: cols[i] for i, w in enumerate(word_of)}
    rename: dict[str, str] = {}
    stored: dict[int, str] = {}     # byte offset in the group -> value stored there
    low_half = (1 << 32) - 1

    def operand(a):
        return rename.get(a, a) if isinstance(a, str) else a

    for op in program.ops:
        if op.code == "ld":
            mem, off, width = op.args
            if mem != "in" or width not in (32, bits) or off % (width // 8):
                raise ProgramError(f"{program.name}: cannot vectorize {op}")
            w, part = divmod(off, wbytes)
            x = word[w]
            if width < bits:        # a zero-extended 32-bit half of a 64-bit word
                x = bld.shr(x, 32, hint=op.dst) if part else bld.and_(x, low_half, hint=op.dst)
            rename[op.dst] = x
        elif op.code == "st":
            mem, off, width, value = op.args
            if mem != "out" or width not in (32, bits) or off % (width // 8) or off in stored:
                raise ProgramError(f"{program.name}: cannot vectorize {op}")
            stored[off] = (width, operand(value))
        elif op.code in ("stw", "vld", "vst") or op.code in ("unpacklo", "unpackhi", "blocks"):
            raise ProgramError(f"{program.name}: cannot vectorize {op}")
        elif op.code == "note":
            bld.note(op.args[0])
        else:
            args = tuple(operand(a) for a in op.args)
            dst = bld.fresh(op.dst)
            out.ops.append(type(op)(op.code, dst, args))
            rename[op.dst] = dst

    out.outputs = tuple(operand(a) for a in program.outputs)
    if not stored:
        check(out)
        return out
    results, used = [], 0
    for w in word_of:
        whole = stored.get(w * wbytes)
        if whole is not None and whole[0] == bits:
            results.append(whole[1])
            used += 1
            continue
        halves = [stored.get(off) for off in range(w * wbytes, (w + 1) * wbytes, 4)]
        if any(h is None or h[0] != 32 for h in halves):
            raise ProgramError(f"{program.name}: word {w} of the group is not stored exactly once")
        used += len(halves)
        if len(halves) == 1:
            results.append(halves[0][1])
        else:
            lo, hi = halves[0][1], halves[1][1]
            results.append(bld.or_(bld.and_(lo, low_half, hint="lo"), bld.shl(hi, 32, hint="hi"), hint="res"))
    if used != len(stored):
        raise ProgramError(f"{program.name}: stores outside the group's words")
    bld.note("transpose back and store")
    rows = _run_network(bld, results, store, "tout")
    for i, r in enumerate(rows):
        bld.vst("out", i * vbytes, r)
    check(out)
    return out
