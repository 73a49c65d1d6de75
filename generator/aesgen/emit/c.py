"""Print a Program as C11 statements: one op per line, every value a `const` local.

Memory operands become the function parameters of the same name: byte memories are
`uint8_t *`, word memories arrays of the program's word type. Unaligned little-endian
accesses go through the byte helpers of runtime/src/aesgen_bytes.h, so the output is
correct on any alignment and byte order.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir import Loop, Program, check, check_loop

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
        window = core.body.memory(name)
        ty = "uint8_t" if window.kind == "bytes" else word
        lines.append(f"{inner}{'' if window.writable else 'const '}{ty} *const {c_name(name)} = "
                     f"{c_name(over)} + {base} + {stride} * r;")
    lines += piece(core.body, inner)
    lines += [f"{inner}{s} = {o};" for s, o in zip(core.body.inputs, core.body.outputs)]
    lines.append(f"{indent}}}")
    return lines + piece(core.tail, indent)
