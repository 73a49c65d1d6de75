"""Read machine code back: assemble a generated .S with binutils, disassemble it with
`objdump -d`, and turn the listing into the Instr lists the models execute.

This checks the bytes the assembler produced rather than the text we printed: each
function must match the emitted instruction stream operand for operand (`match`), and
the emitter then runs the disassembled code in the model. An ISA module supplies a
`Toolchain`, a `parse(addr, text)` for one listing line, its branch mnemonics and a
`same(emitted, parsed)` comparison; the rest is here.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import AesgenError
from .common import Instr, Label

_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(.*?)\s*$")
_FUNC = re.compile(r"^[0-9a-f]+ <([\w.]+)>:$")
ABSOLUTE = "abs"                 # data label of a linked object: its addresses are absolute


class DisassemblyError(AesgenError):
    """binutils is missing or failed, or its listing has something aesgen never emits."""


@dataclass(frozen=True)
class Toolchain:
    prefix: str                    # "" for the host's binutils, else e.g. "aarch64-linux-gnu-"
    package: str                   # the Debian package that brings it
    flags: tuple[str, ...] = ()    # extra compiler driver flags, e.g. -Wa,-Av9e
    link: bool = False             # link into a shared object, so RIP-relative data resolves


@dataclass(frozen=True)
class Listing:
    text: str                      # objdump -d --no-show-raw-insn
    rodata_at: int = 0             # address and bytes of .rodata (linked objects only)
    rodata: bytes = b""


def disassemble(asm_text: str, toolchain: Toolchain, include_dir: Path) -> Listing:
    tc = toolchain
    with tempfile.TemporaryDirectory(prefix="aesgen-objdump-") as tmp:
        src, obj = Path(tmp) / "v.S", Path(tmp) / ("v.so" if tc.link else "v.o")
        src.write_text(asm_text)

        def run(*cmd: str) -> str:
            try:
                return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            except FileNotFoundError:
                raise DisassemblyError(f"{cmd[0]} is not installed (Debian: {tc.package})") from None
            except subprocess.CalledProcessError as e:
                raise DisassemblyError(f"{' '.join(cmd[:2])} failed:\n{e.stderr.strip()}") from None

        mode = ("-shared", "-nostdlib") if tc.link else ("-c",)
        run(f"{tc.prefix}gcc", *mode, *tc.flags, "-I", str(include_dir), "-o", str(obj), str(src))
        text = run(f"{tc.prefix}objdump", "-d", "--no-show-raw-insn", str(obj))
        if not tc.link or " .rodata " not in run(f"{tc.prefix}objdump", "-h", str(obj)):
            return Listing(text)
        dump = run(f"{tc.prefix}objdump", "-s", "-j", ".rodata", str(obj))
    base, blob = None, bytearray()
    for line in dump.splitlines():
        m = re.match(r"^\s*([0-9a-f]+)((?: [0-9a-f]{1,8}){1,4})", line)
        if m and "Contents" not in line:
            if base is None:
                base = int(m.group(1), 16)
            blob += bytes.fromhex("".join(m.group(2).split()))
    return Listing(text, base or 0, bytes(blob))


def branch_label(target: int) -> Label:
    return Label(f"L{target:x}")


def read_functions(text: str, parse: Callable[[int, str], Instr | None],
                   branches: Iterable[str]) -> dict[str, list[Instr]]:
    """Functions of a listing as Instr lists, with a label at every branch target.
    parse(addr, text) reads one instruction (None: padding to leave out); a branch
    names its target as branch_label(address), its last operand."""
    branches = set(branches)
    functions: dict[str, list[tuple[int, Instr]]] = {}
    current = None
    for raw in text.splitlines():
        f = _FUNC.match(raw.strip())
        if f:
            if not f.group(1).startswith(".L"):     # RISC-V keeps local labels as symbols
                current = functions.setdefault(f.group(1), [])
            continue
        m = _LINE.match(raw)
        if not m or current is None or not m.group(2):
            continue
        addr = int(m.group(1), 16)
        ins = parse(addr, m.group(2))
        if ins is not None:
            current.append((addr, ins))
    out = {}
    for name, items in functions.items():
        targets = {i.args[-1].name for _, i in items if i.op in branches}
        code = []
        for addr, ins in items:
            if branch_label(addr).name in targets:
                code.append(Instr("label", (branch_label(addr),)))
            code.append(ins)
        out[name] = code
    return out


def match(emitted: dict[str, list[Instr]], parsed: dict[str, list[Instr]],
          same: Callable[[Instr, Instr], bool],
          padding: frozenset[str] = frozenset({"pad"})) -> tuple[dict[str, list[Instr]], str | None]:
    """Pair each emitted function with its disassembly, which may end in alignment
    padding (ops in `padding`). Returns the disassembled code of every function (each
    instruction carrying the emitted one's `key`, for the model) and the first
    disagreement, or None."""
    codes = {}
    for name, code in emitted.items():
        got = parsed.get(name)
        if got is None:
            return codes, f"{name}: not found in the assembled object"
        mine = [i for i in code if i.op != "label"]
        theirs = [i for i in got if i.op != "label"]
        extra = theirs[len(mine):]
        if len(theirs) < len(mine) or any(i.op not in padding for i in extra):
            return codes, f"{name}: {len(theirs)} instructions assembled (padding included), {len(mine)} emitted"
        for k, (e, p) in enumerate(zip(mine, theirs)):
            if not same(e, p):
                return codes, f"{name}: instruction {k} assembled as {p}, emitted as {e}"
        keys = iter(e.key for e in mine)
        out = []
        for i in got:
            if i.op != "label":
                key = next(keys, StopIteration)
                if key is StopIteration:
                    break                                   # the padding
                i = Instr(i.op, i.args, key)
            out.append(i)
        codes[name] = out
    return codes, None


def same_operands(emitted: Instr, parsed: Instr) -> bool:
    """The usual comparison: the same op and operands; branch targets are not compared
    (the model runs them)."""
    if emitted.op != parsed.op or len(emitted.args) != len(parsed.args):
        return False
    return all(isinstance(x, Label) or isinstance(y, Label) or x == y for x, y in zip(emitted.args, parsed.args))
