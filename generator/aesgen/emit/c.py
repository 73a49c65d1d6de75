"""Print a Program as C11 statements: one op per line, every value a `const` local.

Memory operands become the function parameters of the same name: byte memories are
`uint8_t *`, word memories arrays of the program's word type. Unaligned little-endian
accesses go through the byte helpers of runtime/src/aesgen_bytes.h, so the output is
correct on any alignment and byte order.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir import Exit, KeySizeLoop, Loop, Program, Step, Window, check, check_key_size_loop, check_loop

C_TYPES = {8: "uint8_t", 16: "uint16_t", 32: "uint32_t", 64: "uint64_t"}


def word_type(bits: int) -> str:
    try:
        return C_TYPES[bits]
    except KeyError:
        raise ValueError(f"no C integer type for {bits}-bit words") from None


def literal(value: int, bits: int) -> str:
    digits = max(2, (bits + 3) // 4) if value > 9 else 0
    text = f"0x{value:0{digits}x}" if digits else str(value)
    return f"UINT64_C({text})" if bits == 64 else (f"{text}u" if bits == 32 else text)


def c_name(memory_name: str) -> str:
    """`in` and `out` are fine in C; keep the names, but guard against C keywords."""
    if memory_name in {"int", "char", "const", "static", "void", "do", "if", "for"}:
        raise ValueError(f"memory name '{memory_name}' is a C keyword")
    return memory_name


def statements(program: Program, indent: str = "    ") -> list[str]:
    """The program's body as C lines (no braces)."""
    check(program)
    bits = program.bits
    ty = word_type(bits)

    def opnd(a) -> str:
        return a if isinstance(a, str) else literal(a, bits)

    lines = []
    for op in program.ops:
        c, a = op.code, op.args
        if c == "note":
            lines.append(f"{indent}/* {a[0]} */")
            continue
        if c == "st":
            mem, off, width, val = a
            lines.append(f"{indent}aesgen_store_le{width}({c_name(mem)} + {off}, ({C_TYPES[width]})({opnd(val)}));")
            continue
        if c == "stw":
            lines.append(f"{indent}{c_name(a[0])}[{a[1]}] = {opnd(a[2])};")
            continue
        if c == "xor":
            rhs = f"{opnd(a[0])} ^ {opnd(a[1])}"
        elif c == "and":
            rhs = f"{opnd(a[0])} & {opnd(a[1])}"
        elif c == "or":
            rhs = f"{opnd(a[0])} | {opnd(a[1])}"
        elif c == "andn":
            rhs = f"{opnd(a[0])} & ~{opnd(a[1])}"
        elif c == "not":
            rhs = f"~{opnd(a[0])}"
        elif c == "ternary":
            raise ValueError(f"{program.name}: three-input logic is for vector ISAs that have it")
        elif c == "mov":
            rhs = opnd(a[0])
        elif c == "ror":
            rhs = f"({opnd(a[0])} >> {a[1]}) | ({opnd(a[0])} << {bits - a[1]})"
        elif c == "shl":
            rhs = f"{opnd(a[0])} << {a[1]}"
        elif c == "shr":
            rhs = f"{opnd(a[0])} >> {a[1]}"
        elif c == "ld":
            rhs = f"aesgen_load_le{a[2]}({c_name(a[0])} + {a[1]})"
        elif c == "ldw":
            rhs = f"{c_name(a[0])}[{a[1]}]"
        else:
            raise ValueError(f"{program.name}: the C printer has no form for opcode '{c}'")
        if bits < 32 and c in ("not", "shl", "ror"):
            rhs = f"({ty})({rhs})"   # integer promotion would keep high bits
        lines.append(f"{indent}const {ty} {op.dst} = {rhs};")
    return lines


def core_statements(core: Program | Loop, piece: Callable[[Program, str], list[str]], state_type: str,
                    word: str, indent: str = "    ") -> list[str]:
    """A batch core as C lines: a Program through `piece(program, indent)`; a Loop as its
    head, the carried state in variables of `state_type`, a `for` over the iterations
    whose body sees its window as a `const word *` (round keys; `uint8_t *` for bytes,
    not const where the body writes it), then its tail."""
    if isinstance(core, Program):
        return piece(core, indent)
    check_loop(core)
    inner = indent + "    "
    lines = piece(core.head, indent)
    lines += [f"{indent}{state_type} {s} = {h};" for s, h in zip(core.body.inputs, core.head.outputs)]
    if core.descending:
        lines.append(f"{indent}for (size_t r = {core.times}; r-- > 0;) {{")
    else:
        lines.append(f"{indent}for (size_t r = 0; r < {core.times}; r++) {{")
    for name, over, base, stride in core.windows():
        lines.append(_window_pointer(core.body.memory(name), over, f"{base} + {stride} * r", word, inner))
    lines += piece(core.body, inner)
    lines += [f"{inner}{s} = {o};" for s, o in zip(core.body.inputs, core.body.outputs)]
    lines.append(f"{indent}}}")
    return lines + piece(core.tail, indent)


def _window_pointer(view, over: str, offset: str, word: str, indent: str) -> str:
    """A window as a pointer into the memory it views (const unless the program writes it)."""
    ty = "uint8_t" if view.kind == "bytes" else word
    return f"{indent}{'' if view.writable else 'const '}{ty} *const {c_name(view.name)} = {c_name(over)} + {offset};"


def _offset(w: Window) -> str:
    terms = [str(w.base)] if w.base else []
    terms += [f"{w.per_round} * nr"] if w.per_round else []
    terms += [f"{w.per_trip} * r"] if w.per_trip else []
    return " + ".join(terms) or "0"


def key_size_loop_statements(core: KeySizeLoop, word: str, indent: str = "    ",
                             piece: Callable[[Program, str], list[str]] | None = None,
                             state_type: str | None = None) -> list[str]:
    """A KeySizeLoop as C lines over the function's `nr` (size_t) and memories: the
    carried state as variables of `state_type` (default: the word); each step in a block
    (under `if` when it has a test) that declares its windows, runs its program through
    `piece(program, indent)` (default: statements) and hands on the state; the loop a
    `for` over r, an Exit a `break`."""
    check_key_size_loop(core)
    piece = piece or statements
    state_type = state_type or word

    def step(s: Step, indent: str) -> list[str]:
        inner = indent + "    "
        lines = [f"{indent}if ({s.when.c}) {{" if s.when else f"{indent}{{"]
        for w in s.windows:
            lines.append(_window_pointer(s.program.memory(w.name), w.over, _offset(w), word, inner))
        lines += piece(s.program, inner)
        lines += [f"{inner}{v} = {o};" for v, o in zip(core.state, s.program.outputs)]
        return lines + [f"{indent}}}"]

    lines = [f"{indent}{state_type} {', '.join(core.state)};"] if core.state else []
    for s in core.head:
        lines += step(s, indent)
    trips, inner = core.trips[0], indent + "    "
    if core.descending:
        lines.append(f"{indent}for (size_t r = {trips}; r-- > 0;) {{")
    else:
        lines.append(f"{indent}for (size_t r = 0; r < {trips}; r++) {{")
    for item in core.body:
        lines += [f"{inner}if ({item.when.c})", f"{inner}    break;"] if isinstance(item, Exit) else step(item, inner)
    lines.append(f"{indent}}}")
    for s in core.tail:
        lines += step(s, indent)
    return lines
