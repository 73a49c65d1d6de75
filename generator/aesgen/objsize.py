"""Code size of built variants: bytes of executable sections in their object files.

A CMake build compiles generated/<path> to <build>/CMakeFiles/<library>.dir/.../generated/
<path>.o (the .c and, for the hardware loops, the .S of a variant). The size read is the
sum of the sections the object marks executable (SHF_EXECINSTR: .text and .text.*), read
from the ELF section headers, so objects of any ELF target (cross builds) read the same.
The files variants share (generated/common: key set-up, GHASH tables, lane cores) are not
counted, except the loops file of a rolled hardware variant
(common/<target>_<how>_<direction>.S) and the vector core of a rolled SIMD variant
(common/<direction>__<target>_<how>_core.c), which hold its code: each of its key sizes
counts them whole.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

from .errors import AesgenError

SHF_EXECINSTR = 0x4


class ObjectSizeError(AesgenError):
    pass


def text_bytes(data: bytes, source: str) -> int:
    """Sum of the executable sections' sizes in one ELF relocatable or shared object."""
    if len(data) < 0x34 or data[:4] != b"\x7fELF":
        raise ObjectSizeError(f"{source}: not an ELF file")
    wide = {1: False, 2: True}.get(data[4])
    order = {1: "<", 2: ">"}.get(data[5])
    if wide is None or order is None:
        raise ObjectSizeError(f"{source}: unknown ELF class or byte order")
    if wide:
        shoff, = struct.unpack_from(order + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x3A)
        entry, flags_at, size_at = order + "IIQQQQIIQQ", 2, 5
    else:
        shoff, = struct.unpack_from(order + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x2E)
        entry, flags_at, size_at = order + "IIIIIIIIII", 2, 5
    if shentsize != struct.calcsize(entry) or shoff + shnum * shentsize > len(data):
        raise ObjectSizeError(f"{source}: truncated or malformed section headers")
    total = 0
    for i in range(shnum):
        fields = struct.unpack_from(entry, data, shoff + i * shentsize)
        if fields[flags_at] & SHF_EXECINSTR:
            total += fields[size_at]
    return total


def variant_sizes(build_dir: Path) -> dict[str, int]:
    """Variant name -> executable bytes of the objects a build compiled its files to
    (generated/<folder>/<variant>.c and .S). A variant the build did not compile (another
    processor's, a backend left out) is absent. Each file counts once, whichever library
    compiled it; an object without code (another processor's file, compiled to nothing
    here) counts as not compiled."""
    if not (build_dir / "CMakeCache.txt").is_file():
        raise ObjectSizeError(f"{build_dir}: not a CMake build folder (no CMakeCache.txt)")
    seen: dict[str, Path] = {}
    for obj in sorted(build_dir.glob("CMakeFiles/*.dir/**/generated/*/*.o")):
        rel = f"{obj.parent.name}/{obj.name}"
        seen.setdefault(rel, obj)
    sizes: dict[str, int] = {}
    for obj in seen.values():
        stem = obj.name.split(".", 1)[0]       # aes128_enc__x86_64_aesni_x8.S.o
        sizes[stem] = sizes.get(stem, 0) + text_bytes(obj.read_bytes(), str(obj))
    for stem in list(sizes):
        m = re.fullmatch(r"aes\d+_(enc|dec)__(\w+_loop1)", stem)    # its code: common/<ident>_<how>_<dir>.S
        if m and f"{m.group(2)}_{m.group(1)}" in sizes:
            sizes[stem] += sizes[f"{m.group(2)}_{m.group(1)}"]
        m = re.fullmatch(r"aes\d+_(enc|dec)__(\w+_loop4)", stem)    # its vector core: common/<dir>__<ident>_<how>_core.c
        if m and f"{m.group(1)}__{m.group(2)}_core" in sizes:
            sizes[stem] += sizes[f"{m.group(1)}__{m.group(2)}_core"]
    return {name: n for name, n in sizes.items() if n > 0}
