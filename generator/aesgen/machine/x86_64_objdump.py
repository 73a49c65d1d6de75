"""Read x86-64 machine code back: `objdump -d` text -> the Instr lists the model executes.

Used to check the bytes the assembler produced rather than the text we printed: a
generated .S is assembled and linked (so RIP-relative addresses are resolved), then
disassembled; each function must match the emitted instruction stream operand for operand
and must compute AES in the model. Only the instruction subset machine/x86_64.py emits is
understood; anything else is an error.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from .x86_64 import G, Imm, Instr, Label, M, V

_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(.*?)\s*$")
_FUNC = re.compile(r"^[0-9a-f]+ <([\w.]+)>:$")
_ABS = "abs"                     # data label whose address is 0: RIP-relative targets are absolute

ALIASES = {
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
}
THREE_OPERAND = {"xor", "addq", "shufb", "aesenc", "aesenclast", "aesdec", "aesdeclast"}


class DisassemblyError(Exception):
    pass


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
    m = re.fullmatch(r"(-?0x[0-9a-f]+|-?\d+)?\((%\w+)\)", text)
    if not m:
        raise DisassemblyError(f"cannot read operand {text!r}")
    disp = int(m.group(1), 0) if m.group(1) else 0
    if m.group(2) == "%rip":
        target = re.match(r"\s*([0-9a-f]+)", comment)
        if not target:
            raise DisassemblyError(f"RIP-relative operand without a resolved address: {text}")
        return M(None, int(target.group(1), 16), _ABS)
    return M(G(m.group(2)[1:]), disp)


def parse(text: str) -> dict[str, list[Instr]]:
    """Functions of an `objdump -d --no-show-raw-insn` listing, branch targets as labels."""
    functions: dict[str, list[tuple[int, Instr]]] = {}
    current = None
    for raw in text.splitlines():
        f = _FUNC.match(raw.strip())
        if f:
            current = functions.setdefault(f.group(1), [])
            continue
        m = _LINE.match(raw)
        if not m or current is None:
            continue
        addr, body = int(m.group(1), 16), m.group(2)
        body, _, comment = body.partition("#")
        words = body.split(None, 1)
        if not words:
            continue
        mnem = words[0]
        if mnem in ("nop", "nopw", "nopl", "xchg", "data16", "cs", "int3") or mnem.startswith("nop"):
            continue
        op = ALIASES.get(mnem)
        if op is None:
            raise DisassemblyError(f"{addr:#x}: instruction {mnem!r} is not one aesgen emits")
        ops = _split_operands(words[1]) if len(words) > 1 else []
        if op in ("jb", "jae", "jz", "jnz", "jmp"):
            target = int(ops[0].split()[0], 16)
            current.append((addr, Instr(op, (Label(f"L{target:x}"),))))
            continue
        args = [_operand(o, comment) for o in ops][::-1]        # AT&T -> Intel order
        if op == "movu":
            op = "store" if isinstance(args[0], M) else "load"
        elif op == "lshift":
            imm, rest = args[-1], args[:-1]      # Intel: dst, src2, src3, imm
            dst, s2, s3 = rest
            expect = 0x21 if mnem == "vperm2i128" else 2 * (dst.width // 16 - 1)
            if imm.value != expect:
                raise DisassemblyError(f"{addr:#x}: {mnem} with immediate {imm.value:#x}, expected {expect:#x}")
            # vperm2i128 $0x21, a, b: Intel (dst, b, a); valignq $n, b, a: Intel (dst, a, b)
            args = [dst, s3, s2] if mnem == "vperm2i128" else [dst, s2, s3]
        elif op in THREE_OPERAND and len(args) == 2:   # legacy SSE: destination is the first source
            args = [args[0], args[0], args[1]]
        current.append((addr, Instr(op, tuple(args))))
    out = {}
    for name, items in functions.items():
        targets = {i.args[0].name for _, i in items if i.op in ("jb", "jae", "jz", "jnz", "jmp")}
        code = [Instr("label", (Label(name),))]
        for addr, ins in items:
            if f"L{addr:x}" in targets:
                code.append(Instr("label", (Label(f"L{addr:x}"),)))
            code.append(ins)
        out[name] = code
    return out


def assemble_and_read(asm_text: str, include_dir: Path) -> tuple[dict[str, list[Instr]], int, bytes]:
    """Assemble and link one generated .S; return its functions, and the address and
    bytes of its read-only data."""
    with tempfile.TemporaryDirectory(prefix="aesgen-objdump-") as tmp:
        src, obj = Path(tmp) / "v.S", Path(tmp) / "v.so"
        src.write_text(asm_text)
        run = lambda *cmd: subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        try:
            run("gcc", "-shared", "-nostdlib", "-I", str(include_dir), "-o", str(obj), str(src))
            listing = run("objdump", "-d", "--no-show-raw-insn", str(obj))
            sections = run("objdump", "-h", str(obj))
            data = run("objdump", "-s", "-j", ".rodata", str(obj)) if " .rodata " in sections else ""
        except (subprocess.CalledProcessError, FileNotFoundError) as e:
            detail = e.stderr.strip() if isinstance(e, subprocess.CalledProcessError) else str(e)
            raise DisassemblyError(f"assembling or disassembling failed: {detail}") from None
    base, blob = None, bytearray()
    for line in data.splitlines():
        m = re.match(r"^\s*([0-9a-f]+)((?: [0-9a-f]{1,8}){1,4})", line)
        if m and "Contents" not in line:
            if base is None:
                base = int(m.group(1), 16)
            blob += bytes.fromhex("".join(m.group(2).split()))
    return parse(listing), base or 0, bytes(blob)


def same_instruction(emitted: Instr, parsed: Instr, encoding: str) -> bool:
    """Does the disassembled instruction say what the emitter meant?"""
    if emitted.op in ("jb", "jae", "jz", "jnz", "jmp", "label"):
        return emitted.op == parsed.op
    op = emitted.op
    if op == "bcast" and emitted.args[0].kind == "xmm":
        op = "load"                      # a 16-byte broadcast is a plain load
    if op != parsed.op or len(emitted.args) != len(parsed.args):
        return False
    for a, b in zip(emitted.args, parsed.args):
        if isinstance(a, M) and a.label is not None:
            if not (isinstance(b, M) and b.label == _ABS):
                return False
        elif isinstance(a, M) and isinstance(b, M):
            if a.base != b.base or a.disp != b.disp:
                return False
        elif a != b:
            return False
    return True
