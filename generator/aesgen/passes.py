"""Rewrites of straight-line programs. Each returns a new Program computing the same
function; emitters apply them, and the model checks the result like any other program.

fuse_ternary: merge chains of two-input logic ops into three-input ones (AVX-512's
vpternlog): an op absorbs an operand computed by a logic op used nowhere else,
whenever the merged function still depends on at most three values. The truth table
of each merged op is computed by evaluating the absorbed ops, so no table is written
by hand.

share_rotations: where a value is rotated by two amounts a whole number of bytes apart,
the later rotation becomes a byte rotation of the earlier one. On a vector ISA with a
byte shuffle (AVX2's vpshufb) a byte rotation is one op and any other is three (two
shifts and an OR), so fixsliced MixColumns' pairs such as ror 2 / ror 10 cost four
ops instead of six.

byte_rotate_blends: a blend of two rotations of one value by amounts a whole number of
bytes apart, X ^ ((X ^ Y) & M) with a mask repeated in every byte, that moves each byte
as a whole-byte rotation and then rotates bits within each byte, becomes that: one byte
rotation (when not by 0), two shifts and the blend, 6 ops on AVX2 instead of 7 (the
column rotations of fixsliced MixColumns in frames 1 and 3).

hoist_logic: move each logic op up to just after the last definition it reads, so that
values consumed by it die as soon as they can: fewer values live at once (a GHASH
stitched into AES rounds folds each product into its sum as it comes).
"""

from __future__ import annotations

from .ir import LOGIC_OPS, KeySizeLoop, Loop, Op, Program, _value_operands, check, check_key_size_loop, check_loop


def _evaluate(code: str, args: list[int], table: int | None = None) -> int:
    """One logic op on single bits."""
    if code == "xor":
        return args[0] ^ args[1]
    if code == "and":
        return args[0] & args[1]
    if code == "or":
        return args[0] | args[1]
    if code == "andn":
        return args[0] & (1 - args[1])
    if code == "not":
        return 1 - args[0]
    if code == "ternary":
        return table >> (args[0] << 2 | args[1] << 1 | args[2]) & 1
    raise ValueError(code)


def _table(leaves: tuple, code: str, operands: list, exprs: dict, table: int | None) -> int:
    """The 8-bit truth table of op(code, operands) over `leaves` (padded to three),
    where an operand in `exprs` stands for its (leaves, table) sub-function."""
    out = 0
    for i in range(8):
        bits = {}
        for pos, leaf in enumerate(leaves):
            bits.setdefault(leaf, i >> (2 - pos) & 1)

        def value(a) -> int:
            if a in exprs:
                sub_leaves, sub_table = exprs[a]
                return sub_table >> (value(sub_leaves[0]) << 2 | value(sub_leaves[1]) << 1
                                     | value(sub_leaves[2])) & 1
            return bits[a]

        vals = [value(a) for a in operands]
        out |= _evaluate(code, vals, table) << i
    return out


def _per_piece(rewrite, program: Program | Loop | KeySizeLoop) -> Loop | KeySizeLoop | None:
    """A Loop rewritten piece by piece, a KeySizeLoop step by step (the carried state
    keeps its names), None for a straight-line program."""
    if isinstance(program, KeySizeLoop):
        loop = program.map_programs(rewrite)
        check_key_size_loop(loop)
        return loop
    if not isinstance(program, Loop):
        return None
    loop = program.replace(*(rewrite(p) for p in program.pieces()))
    check_loop(loop)
    return loop


def _with_ops(program: Program, ops: list[Op]) -> Program:
    """program with its ops replaced, checked."""
    result = Program(program.name, program.bits, program.memories, ops, program.lanes,
                     program.inputs, program.outputs)
    check(result)
    return result


def fuse_ternary(program: Program | Loop) -> Program | Loop:
    """A Loop piece by piece (the carried state is never absorbed: outputs count as uses)."""
    loop = _per_piece(fuse_ternary, program)
    if loop is not None:
        return loop
    check(program)
    ops = program.ops
    uses: dict[str, int] = {name: 1 for name in program.outputs}
    for op in ops:
        for a in _value_operands(op):
            if isinstance(a, str):
                uses[a] = uses.get(a, 0) + 1
    flat: dict[str, tuple[tuple, int]] = {}     # value -> (three leaves, table) of its logic op
    index = {op.dst: i for i, op in enumerate(ops) if op.dst is not None}
    absorbed: set[int] = set()
    rewritten: dict[int, Op] = {}

    def leaves_of(a) -> list:
        return list(dict.fromkeys(flat[a][0])) if a in flat else [a]

    for i, op in enumerate(ops):
        if op.code not in LOGIC_OPS:
            continue
        operands = list(op.args[:3]) if op.code == "ternary" else list(op.args)
        table = op.args[3] if op.code == "ternary" else None
        candidates = [a for a in dict.fromkeys(operands)
                      if isinstance(a, str) and a in flat and uses[a] == 1]
        chosen: list[str] = []
        for pick in ([candidates] if len(candidates) > 1 else []) + [[a] for a in candidates]:
            leaves = []
            for a in operands:
                for leaf in (leaves_of(a) if a in pick else [a]):
                    if leaf not in leaves:
                        leaves.append(leaf)
            if len(leaves) <= 3:
                chosen = pick
                break
        leaves = []
        for a in operands:
            for leaf in (leaves_of(a) if a in chosen else [a]):
                if leaf not in leaves:
                    leaves.append(leaf)
        padded = tuple(leaves + [leaves[0]] * (3 - len(leaves)))
        sub = {a: flat[a] for a in chosen}
        flat[op.dst] = (padded, _table(padded, op.code, operands, sub, table))
        if chosen:
            absorbed.update(index[a] for a in chosen)
            rewritten[i] = Op("ternary", op.dst, padded + (flat[op.dst][1],))
    out = [rewritten.get(i, op) for i, op in enumerate(ops) if i not in absorbed]
    return _with_ops(program, out)


def share_rotations(program: Program | Loop) -> Program | Loop:
    """A Loop piece by piece. The earliest rotation of a value by an amount that is not
    whole bytes is the base of every later rotation of it by a whole number of bytes more."""
    loop = _per_piece(share_rotations, program)
    if loop is not None:
        return loop
    check(program)
    base: dict[tuple, tuple[str, int]] = {}    # (value, amount % 8) -> (first rotation, amount)
    out: list[Op] = []
    for op in program.ops:
        if op.code == "ror" and isinstance(op.args[0], str):
            src, n = op.args
            key = (src, n % 8)
            if key in base:
                first, m = base[key]
                step = (n - m) % program.bits
                if step:
                    op = Op("ror", op.dst, (first, step))
            elif n % 8:
                base[key] = (op.dst, n)
        out.append(op)
    return _with_ops(program, out)


def _byte_rotation_of(src: list[int], bits: int) -> tuple[int, int] | None:
    """(R, s) when output bit p is input bit src[p] of a rotation right by R (a whole
    number of bytes) followed by a rotation right by s (1..7) within each byte."""
    for r in range(0, bits, 8):
        for sh in range(1, 8):
            if all(src[p] == (p - p % 8 + (p % 8 + sh) % 8 + r) % bits for p in range(bits)):
                return r, sh
    return None


def byte_rotate_blends(program: Program | Loop) -> Program | Loop:
    """A Loop piece by piece. Rewrites r = X ^ ((X ^ Y) & M), X and Y rotations of one
    value used nowhere else, M the same in every byte, where the bits it gathers are a
    whole-byte rotation followed by a rotation within each byte (see _byte_rotation_of)."""
    loop = _per_piece(byte_rotate_blends, program)
    if loop is not None:
        return loop
    check(program)
    bits = program.bits
    defs = {op.dst: op for op in program.ops if op.dst is not None}
    uses: dict[str, int] = {name: 1 for name in program.outputs}
    for op in program.ops:
        for a in _value_operands(op):
            if isinstance(a, str):
                uses[a] = uses.get(a, 0) + 1

    rewrite: dict[int, list[Op]] = {}
    dead: set[str] = set()
    for i, op in enumerate(program.ops):
        if op.code != "xor" or not all(isinstance(a, str) for a in op.args):
            continue
        for x_name, e_name in (op.args, op.args[::-1]):
            e = defs.get(e_name)
            if e is None or e.code != "and" or uses[e_name] != 1:
                continue
            d_name, m = e.args if isinstance(e.args[1], int) else e.args[::-1]
            d = defs.get(d_name)
            if not isinstance(m, int) or d is None or d.code != "xor" or uses[d_name] != 1 or x_name not in d.args:
                continue
            if m != int.from_bytes(bytes([m & 0xFF]) * (bits // 8), "little") or m & 0xFF in (0, 0xFF):
                continue
            y_name = d.args[1] if d.args[0] == x_name else d.args[0]
            # X and Y: two rotations of one source, Y possibly a rotation of X
            xd, yd = defs.get(x_name), defs.get(y_name)
            if xd is None or yd is None or xd.code != "ror" or yd.code != "ror":
                continue
            if yd.args[0] == x_name:
                src, ax = xd.args
                ay = (ax + yd.args[1]) % bits
                need = {x_name: 3, y_name: 1}      # X read by Y, D and r
            elif xd.args[0] == y_name:
                src, ay = yd.args
                ax = (ay + xd.args[1]) % bits
                need = {y_name: 2, x_name: 2}      # Y read by X and D; X by D and r
            elif xd.args[0] == yd.args[0]:
                src, ax, ay = xd.args[0], xd.args[1], yd.args[1]
                need = {x_name: 2, y_name: 1}
            else:
                continue
            if not isinstance(src, str) or any(uses[n] != k for n, k in need.items()):
                continue
            found = _byte_rotation_of([(p + (ay if m >> p & 1 else ax)) % bits for p in range(bits)], bits)
            if found is None:
                continue
            r, sh = found
            low = int.from_bytes(bytes([0xFF >> sh]) * (bits // 8), "little")
            z = src
            new = []
            if r:
                z = f"{op.dst}_z"
                new.append(Op("ror", z, (src, r)))
            new += [Op("shr", f"{op.dst}_p", (z, sh)), Op("shl", f"{op.dst}_q", (z, 8 - sh)),
                    Op("xor", f"{op.dst}_d", (f"{op.dst}_q", f"{op.dst}_p")),
                    Op("and", f"{op.dst}_e", (f"{op.dst}_d", low)),
                    Op("xor", op.dst, (f"{op.dst}_q", f"{op.dst}_e"))]
            rewrite[i] = new
            dead.update((x_name, y_name, d_name, e_name))
            break
    if not rewrite:
        return program
    out: list[Op] = []
    for i, op in enumerate(program.ops):
        if op.dst in dead:
            continue
        out.extend(rewrite.get(i, [op]))
    return _with_ops(program, out)


def hoist_logic(program: Program) -> Program:
    """Every logic op placed right after the op defining its latest operand (inputs count
    as defined before the first op); other ops keep their order."""
    check(program)
    out: list[Op] = []
    where: dict[str, int] = {}      # value -> index in out of the op defining it
    for op in program.ops:
        if op.code in LOGIC_OPS:
            at = max((where[a] for a in _value_operands(op) if isinstance(a, str) and a in where), default=-1)
            out.insert(at + 1, op)
            where = {o.dst: i for i, o in enumerate(out) if o.dst is not None}
        else:
            out.append(op)
            if op.dst is not None:
                where[op.dst] = len(out) - 1
    return _with_ops(program, out)
