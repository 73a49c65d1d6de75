"""Emitter `c_ghash`: GHASH (algorithm/ghash.py) as C, per ISA, for GCM.

One variant per method (aggregation factor N, multiply, reduction; see Method and
default_method): a hash-key set-up writing the twisted powers H^N..H^1 (in the order the
blocks use them), an update that reduces N blocks at a time, and the tail of fewer than
N blocks with one reduction. The programs are vector programs on 64-bit lanes, one block
per lane pair (or two or four per vector for the wide update); an ISA prints them:

    pclmul     x86-64 intrinsics (PCLMULQDQ, SSSE3's byte shuffle), `target` attribute
    avx_pclmul the same, VEX-encoded (three-operand: no register copies)
    vpclmul256 VPCLMULQDQ on ymm, two blocks per vector (the N-block update only)
    vpclmul512 VPCLMULQDQ on zmm, four blocks per vector (the N-block update only)
    neon_pmull AArch64 intrinsics (PMULL, PMULL2), `target("+crypto")`
    p8_vpmsumd POWER8 altivec.h intrinsics, little-endian (vpmsumd after one xxpermdi
               per product), `target("cpu=power8")`
    portable   every lane pair as two uint64_t, the carry-less multiply by integer
               multiplication with holes (runtime/src/aesgen_clmul.h): constant time,
               no table, for every CPU without a carry-less multiply instruction
    rv_clmul   the same pairs, the multiply by RISC-V clmul/clmulh (Zbc or Zbkc)
    sparc_vis3 the same pairs, the multiply by SPARC VIS3 xmulx/xmulxhi

The model runs each program against reference_gcm's GHASH (the set-up, then the
N-block update and every tail length, chained) before anything is written.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass, replace

from .. import reference_gcm
from ..algorithm import ghash
from ..features import c_mask
from ..ir import Program, check
from ..model import ModelError, execute
from ..targets import Field, Target, distinct, one_of, show
from ..variants import Variant
from . import c
from .base import Emitter, SharedSource
from .c_simd import AARCH64, POWER, X86, Isa, NeonIsa, PowerIsa, X86Isa, vector_statements



# How the pair headers spell a 64 x 64 carry-less product: a macro each variant defines
# as its ISA's inline function, so the ISAs share the headers of a method.
PAIR_CLMUL = "GHASH_CLMUL64"


@dataclass(frozen=True)
class PairIsa:
    """A GHASH ISA without vectors: pair_statements prints every lane pair as two
    uint64_t and each 64 x 64 carry-less product as PAIR_CLMUL, which the variant defines
    as `clmul` (an inline function of runtime/src/aesgen_clmul.h, `lo = f(a, b, &hi)`)."""
    name: str
    clmul: str
    multiply: str                 # how `clmul` multiplies, for the generated files
    reduction: str                # the default reduction (default_method)
    guard: str | None = None
    processor: str | None = None
    features: tuple[str, ...] = ()


PORTABLE = PairIsa("portable", "aesgen_clmul64", "integer multiplication with holes (constant time)",
                   "shifts")
ISAS: dict[str, Isa | PairIsa] = {
    PORTABLE.name: PORTABLE,
    # one instruction per product half: the reduction by multiplies pays
    "rv_clmul": PairIsa("rv_clmul", "aesgen_clmul64_rv", "RISC-V clmul/clmulh (Zbc or Zbkc)", "clmul",
                        "defined(__riscv) && __riscv_xlen == 64", "^riscv64$", ("rv_clmul",)),
    "sparc_vis3": PairIsa("sparc_vis3", "aesgen_clmul64_vis3", "SPARC VIS3 xmulx/xmulxhi", "clmul",
                          "defined(__sparc__) && defined(__arch64__)", "^sparc64$", ("sparc_vis3",)),
    "pclmul": X86Isa("pclmul", 128, "defined(__x86_64__)", X86, "<immintrin.h>",
                  '__attribute__((target("pclmul,ssse3")))', ("pclmul", "ssse3")),
    # the same intrinsics VEX-encoded: three operands, so no copy before each
    # destructive PCLMULQDQ (32 per 8 blocks)
    "avx_pclmul": X86Isa("avx_pclmul", 128, "defined(__x86_64__)", X86, "<immintrin.h>",
                      '__attribute__((target("avx,pclmul")))', ("avx", "pclmul")),
    # VPCLMULQDQ on ymm: two blocks per vector; the set-up and the tails on xmm (VEX)
    "vpclmul256": X86Isa("vpclmul256", 256, "defined(__x86_64__)", X86, "<immintrin.h>",
                      '__attribute__((target("avx2,pclmul,vpclmulqdq")))', ("avx", "avx2", "pclmul", "vpclmulqdq")),
    # VPCLMULQDQ on zmm: four blocks per vector (AVX-512BW for the byte shuffle)
    "vpclmul512": X86Isa("vpclmul512", 512, "defined(__x86_64__)", X86, "<immintrin.h>",
                      '__attribute__((target("avx512f,avx512bw,pclmul,vpclmulqdq")))',
                      ("avx", "avx2", "avx512f", "avx512bw", "pclmul", "vpclmulqdq")),
    "neon_pmull": NeonIsa("neon_pmull", 128, "defined(__aarch64__)", AARCH64, "<arm_neon.h>",
                      '__attribute__((target("+crypto")))', ("arm_pmull",)),
    # vpmsumd sums both lanes' products: one xxpermdi per product pairs the wanted lane
    # with a zero; PPC_FEATURE2_VEC_CRYPTO covers it (as the Linux kernel's ghash-p8)
    "p8_vpmsumd": PowerIsa("p8_vpmsumd", 128, "defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)", POWER,
                      "<altivec.h>", '__attribute__((target("cpu=power8")))', ("ppc_vcrypto",)),
}
# How each printer multiplies, for the generated headers.
MULTIPLY = {X86: "PCLMULQDQ intrinsics", AARCH64: "PMULL/PMULL2 intrinsics",
            POWER: "vpmsumd intrinsics (one xxpermdi per product)"}
MULTIPLY_WIDE = {X86: "VPCLMULQDQ intrinsics"}
MODEL_TRIALS = 4


def _blocks_check(values):
    for v in values:
        if not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 32):
            return f"{show(v)} must be an integer 1..32 (blocks reduced together)"
    return distinct(values)


def _lane_sources(op, i: int) -> list[tuple[str, int]]:
    """The (value, lane) pairs lane i of op's result reads."""
    code, a = op.code, op.args
    if code in ("unpacklo", "unpackhi"):
        src = a[i]
        return [(src, 0 if code == "unpacklo" else 1)] if isinstance(src, str) else []
    if code in ("bswap", "swap64"):
        return [(a[0], 1 - i)]
    if code == "clmul":
        return [(x, h) for x, h in ((a[0], a[2] & 1), (a[1], a[2] >> 4 & 1)) if isinstance(x, str)]
    if code in ("shl", "shr", "mov"):
        return [(a[0], i)] if isinstance(a[0], str) else []
    if code in ("vst", "vst128"):
        return [(a[2], i)] if isinstance(a[2], str) else []
    if code in ("vld", "vld128"):
        return []
    return [(x, i) for x in a if isinstance(x, str)]


def _live_lanes(program: Program) -> set[tuple[str, int]]:
    """Every (value, lane) some store depends on: a lane nothing reads is not printed."""
    live: set[tuple[str, int]] = set()
    for op in reversed(program.ops):
        if op.code in ("vst", "vst128"):
            needed = [0, 1]
        elif op.dst is None:
            continue
        elif op.code == "clmul":       # one call gives both lanes
            needed = [0, 1] if any((op.dst, i) in live for i in (0, 1)) else []
        else:
            needed = [i for i in (0, 1) if (op.dst, i) in live]
        for i in needed:
            live.update(_lane_sources(op, i))
    return live


def pair_statements(program: Program, clmul: str = PORTABLE.clmul, indent: str = "    ") -> list[str]:
    """A vector program on one pair of 64-bit lanes as plain C: value v is v_lo, v_hi;
    a lane no store depends on is left out; `clmul` names the 64 x 64 multiply."""
    check(program)
    if program.lanes != 2 or program.bits != 64:
        raise ValueError(f"{program.name}: the portable printer takes one pair of 64-bit lanes")
    live = _live_lanes(program)

    def lane(a, i: int) -> str:
        return f"{a}_{('lo', 'hi')[i]}" if isinstance(a, str) else c.literal(a, 64)

    def binary(d: str, exprs: list[str]) -> str:
        parts = [f"{lane(d, i)} = {e}" for i, e in enumerate(exprs) if (d, i) in live]
        return f"{indent}const uint64_t {', '.join(parts)};" if parts else ""

    lines = []
    for op in program.ops:
        code, a, d = op.code, op.args, op.dst
        if code == "note":
            lines.append(f"{indent}/* {a[0]} */")
        elif code in ("vst", "vst128"):   # one pair of lanes is one block
            p = f"{c.c_name(a[0])} + {a[1]}"
            lines.append(f"{indent}aesgen_store_le64({p}, {lane(a[2], 0)});")
            lines.append(f"{indent}aesgen_store_le64({p} + 8, {lane(a[2], 1)});")
        elif code == "clmul":
            if (d, 0) in live or (d, 1) in live:
                lines.append(f"{indent}uint64_t {d}_hi;")
                lines.append(f"{indent}const uint64_t {d}_lo = {clmul}({lane(a[0], a[2] & 1)}, "
                             f"{lane(a[1], a[2] >> 4 & 1)}, &{d}_hi);")
                lines += [f"{indent}(void){lane(d, i)};" for i in (0, 1) if (d, i) not in live]
        elif code in ("vld", "vld128"):
            p = f"{c.c_name(a[0])} + {a[1]}"
            lines.append(binary(d, [f"aesgen_load_le64({p})", f"aesgen_load_le64({p} + 8)"]))
        elif code == "bswap":
            lines.append(binary(d, [f"aesgen_bswap64({lane(a[0], 1)})", f"aesgen_bswap64({lane(a[0], 0)})"]))
        elif code == "swap64":
            lines.append(binary(d, [lane(a[0], 1), lane(a[0], 0)]))
        elif code in ("unpacklo", "unpackhi"):
            if a[2] != 64:
                raise ValueError(f"{program.name}: {op}: only 64-bit units on lane pairs")
            i = 0 if code == "unpacklo" else 1
            lines.append(binary(d, [lane(a[0], i), lane(a[1], i)]))
        elif code in ("shl", "shr"):
            sym = "<<" if code == "shl" else ">>"
            lines.append(binary(d, [f"{lane(a[0], i)} {sym} {a[1]}" for i in (0, 1)]))
        elif code in ("xor", "and", "or"):
            sym = {"xor": "^", "and": "&", "or": "|"}[code]
            lines.append(binary(d, [f"{lane(a[0], i)} {sym} {lane(a[1], i)}" for i in (0, 1)]))
        elif code == "mov":
            lines.append(binary(d, [lane(a[0], 0), lane(a[0], 1)]))
        else:
            raise ValueError(f"{program.name}: no portable spelling for {op}")
    return [line for line in lines if line]


@dataclass(frozen=True)
class Method:
    """How a variant computes GHASH: blocks per reduction, blocks per vector, and the
    algorithm/ghash.py choices."""
    blocks: int
    width: int = 1
    multiply: str = "schoolbook"
    reduction: str = "shifts"


def default_method(isa: Isa | PairIsa) -> tuple[str, str]:
    """(multiply, reduction) when a target names none. Karatsuba everywhere: portable C
    saves a multiply with holes (about 30 operations) per block, and on the x86-64
    measured (Zen 5) three carry-less multiplies per block instead of four made the
    update 10-30% faster. The reduction by two carry-less multiplies where the ISA has
    them (7 operations instead of about 20; equal or slightly faster); by shifts in
    portable C, where a multiply costs more than the shifts. `tune` re-measures."""
    return ("karatsuba", isa.reduction if isinstance(isa, PairIsa) else "clmul")


def method_suffix(isa: Isa | PairIsa, m: Method) -> str:
    """The variant-name suffix: each choice that is not the ISA's default."""
    return "".join(f"_{v}" for v, d in zip((m.multiply, m.reduction), default_method(isa)) if v != d)


@dataclass(frozen=True)
class Programs:
    """The GHASH programs of one method."""
    method: Method
    setkey: Program
    update: Program          # N blocks, `width` per vector
    tail: tuple[Program, Program, Program] | None   # k < N blocks (ghash.tail); None when N = 1
    half: Program | None = None   # N/2 blocks on the table's last N/2 powers (N >= HALF_UPDATE_FROM)
    # tails of at least one vector (ghash.tail_wide), vectors wider than a block: the
    # whole tail in one reduction, its whole vectors at full width (no `half` then)
    tail_wide: tuple[Program, Program, Program] | None = None
    # the set-up at the update's width (ghash.setkey_wide), where its table fits
    setkey_wide: Program | None = None

    @property
    def blocks(self) -> int:
        return self.method.blocks

    @property
    def width(self) -> int:
        return self.method.width


# From this many blocks per reduction a variant without a wide tail (one block per vector)
# also has an update of half as many on the same table (its last powers): 16 to 31 blocks
# left (a 256-byte message, the end of a longer one) then take one update and a short
# tail instead of a tail block by block.
HALF_UPDATE_FROM = 32
# Tails of this many vectors or more take the wide tail; shorter ones go block by block,
# whose fixed cost is lower (Zen 5, zmm: 4 blocks 28.8 TSC ticks by block, 34.2 wide;
# 8 blocks 47.8 by block, 35.6 wide).
WIDE_TAIL_FROM = 2


def programs(m: Method) -> Programs:
    half = m.blocks // 2
    packed = ghash.packed_halves(m.blocks, m.multiply)
    # measured on Zen 5 (zmm, chained calls): a tail of 15 blocks block by block took
    # 69.5 TSC ticks, the 32-block update 41.6
    wide = m.width > 1 and m.blocks > WIDE_TAIL_FROM * m.width
    return Programs(m, ghash.setkey(m.blocks, multiply=m.multiply, reduction=m.reduction),
                    ghash.update(m.blocks, m.width, multiply=m.multiply, reduction=m.reduction),
                    ghash.tail(m.multiply, m.reduction, packed) if m.blocks > 1 else None,
                    ghash.update(half, m.width, f"ghash_update_x{half}_of_{m.blocks}", m.multiply, m.reduction,
                                 table_powers=m.blocks)
                    if m.blocks >= HALF_UPDATE_FROM and half % m.width == 0 and not wide else None,
                    ghash.tail_wide(m.width, m.multiply, m.reduction, packed) if wide else None,
                    ghash.setkey_wide(m.blocks, m.width, m.multiply, m.reduction)
                    if m.width > 1 and ghash.wide_setkey_fits(m.blocks, m.width) else None)


def _tail_reads_half(m: Method) -> bool:
    """Whether the tail programs take each power's half sum from the table (Karatsuba,
    unpacked); with them packed two to a slot they form it from the power."""
    return m.multiply == "karatsuba" and not ghash.packed_halves(m.blocks, m.multiply)


def run_tail(progs: Programs, htable: bytearray, y: bytearray, data: bytes) -> None:
    """y = GHASH over k < N blocks from y, as the body's ghash_tail (or, from one whole
    vector on, ghash_tail_wide) runs the tail programs: block i with H^(k-i) (table entry
    N - k + i) and, for Karatsuba with unpacked half sums, its half sum 16 * N further on."""
    n, k, w = progs.blocks, len(data) // 16, progs.width
    sums = bytearray(48)

    def operands(i: int, blocks: int) -> dict:
        at = 16 * (n - k + i)
        mem = {"data": bytearray(data[16 * i:16 * (i + blocks)]), "power": htable[at:at + 16 * blocks]}
        if _tail_reads_half(progs.method):
            mem["half"] = htable[16 * n + at:16 * n + at + 16 * blocks]
        return mem

    if progs.tail_wide and k >= WIDE_TAIL_FROM * w:
        first, more, reduce = progs.tail_wide
        wsums = bytearray(48 * w)
        vectors = k // w
        for j in range(vectors):
            execute(more if j else first, {"wsums": wsums, **({} if j else {"y": y}), **operands(w * j, w)})
        for i in range(w * vectors, k):
            execute(progs.tail[1], {"sums": sums, **operands(i, 1)})
        execute(reduce, {"y": y, "sums": sums, "wsums": wsums})
        return
    first, more, reduce = progs.tail
    for i in range(k):
        execute(more if i else first, {"sums": sums, **({} if i else {"y": y}), **operands(i, 1)})
    execute(reduce, {"y": y, "sums": sums})


def width_of(isa: Isa | PairIsa) -> int:
    """Blocks per vector of the N-block update."""
    return 1 if isinstance(isa, PairIsa) else isa.vector_bits // 128


def narrow(isa: Isa | PairIsa) -> Isa | PairIsa:
    """What prints the programs of one block per vector (set-up, tails): the ISA on 128-bit vectors."""
    return isa if width_of(isa) == 1 else replace(isa, vector_bits=128)


def model_check(label: str, progs: Programs, seed: int) -> str:
    """The set-up and both updates, chained, in the model against the reference GHASH;
    raises ModelError on a difference, else says what ran."""
    n = progs.blocks
    rng = random.Random(seed)
    for trial in range(MODEL_TRIALS):
        h = rng.randbytes(16) if trial else reference_gcm.hash_key(bytes(16))
        mem = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(n, progs.method.multiply))}
        execute(progs.setkey, mem)
        if progs.setkey_wide:          # the same table, every byte
            wide = bytearray(len(mem["htable"]))
            execute(progs.setkey_wide, {"h": bytearray(h), "htable": wide})
            if wide != mem["htable"]:
                raise ModelError(f"{label}: key {h.hex()}: the wide set-up's table differs from the set-up's")
        tails = list(range(1, n))      # every tail length, after the N-block update
        half = n // 2 if progs.half else 0   # and the update of N/2 blocks, after it
        y, data = rng.randbytes(16), rng.randbytes(16 * (n + half + sum(tails)))
        state = {"y": bytearray(y), "data": bytearray(data[:16 * n]), "htable": mem["htable"]}
        execute(progs.update, state)
        if progs.half:
            state["data"] = bytearray(data[16 * n:16 * (n + half)])
            execute(progs.half, state)
        at = 16 * (n + half)
        for k in tails:
            run_tail(progs, mem["htable"], state["y"], data[at:at + 16 * k])
            at += 16 * k
        want = reference_gcm.ghash(h, data, y)
        if bytes(state["y"]) != want:
            raise ModelError(f"{label}: key {h.hex()}: GHASH gives {bytes(state['y']).hex()}, "
                             f"the reference {want.hex()}")
    m = progs.method
    per = f"{m.width} blocks per vector, " if m.width > 1 else ""
    tails = f" and the tails of 1 to {n - 1} blocks (one reduction each)" if n > 1 else ""
    if progs.tail_wide:
        tails = (f" and the tails of 1 to {n - 1} blocks (one reduction each; from {WIDE_TAIL_FROM * m.width} "
                 f"blocks on, {m.width} blocks per vector)")
    if progs.half:
        tails = f", the {n // 2}-block update on the table's last powers" + tails
    setup = "the hash-key set-up" + (f" (and the {m.width}-block-wide one: the same table)" if progs.setkey_wide else "")
    return (f"the model ran {setup}, the {n}-block update ({per}{m.multiply} products, reduction "
            f"by {m.reduction}){tails}, chained, "
            f"on the key of the zero AES key and {MODEL_TRIALS - 1} random ones (seed {seed:#010x}) "
            f"against the reference GHASH")


# Where one spelling of the programs is shared: every ISA printed by the same printer
# (x86-64 intrinsics under different `target` attributes, say) includes one body.
SPELLINGS = {X86: "x86_64", AARCH64: "aarch64", POWER: "ppc64le"}


def spelling(isa: Isa | PairIsa) -> str:
    return "pair" if isinstance(isa, PairIsa) else SPELLINGS[isa.processor]


def _path_method(isa: Isa | PairIsa, m: Method) -> str:
    """The method in a shared header's name. The pair ISAs differ in their default method,
    so their headers name both choices."""
    return f"_{m.multiply}_{m.reduction}" if isinstance(isa, PairIsa) else method_suffix(isa, m)


def body_path(isa: Isa | PairIsa, m: Method) -> str:
    """The update header (the N-block update at the method's width)."""
    wide = f"_{isa.vector_bits}" if m.width > 1 else ""
    return f"common/ghash_{spelling(isa)}{wide}_x{m.blocks}{_path_method(isa, m)}.h"


def setup_path(isa: Isa | PairIsa, m: Method) -> str:
    """The set-up and tails header: printed on 128-bit vectors, so one per spelling, N and
    method, whatever the width of the update."""
    return f"common/ghash_{spelling(isa)}_x{m.blocks}{_path_method(isa, m)}_setup.h"


def _header(renderer, template: str, path: str, summary: list[str], guard: str | None, isa: Isa | PairIsa,
            **context) -> str:
    return renderer.render(template, summary=summary, context={
        "guard": guard, "include_guard": "AESGEN_" + path.upper().replace("/", "_").replace(".", "_"),
        "isa": None if isinstance(isa, PairIsa) else {"include": isa.include}, **context})


def _print(isa: Isa | PairIsa, p: Program, wide: bool = False) -> list[str]:
    if isinstance(isa, PairIsa):
        return pair_statements(p, PAIR_CLMUL)
    return vector_statements(p, isa if wide else narrow(isa))


def _multiply_how(isa: Isa | PairIsa) -> str:
    if isinstance(isa, PairIsa):
        return f"{PAIR_CLMUL}, defined by the includer (runtime/src/aesgen_clmul.h)"
    return MULTIPLY[isa.processor]


def render_setup(isa: Isa | PairIsa, m: Method, renderer, guard: str | None) -> str:
    """The shared set-up and tails: ghash_powers and ghash_tail, static, under the
    includer's GHASH_ISA attribute."""
    n = m.blocks
    progs = programs(m)
    path = setup_path(isa, m)
    verified = model_check(path, progs, zlib.crc32(path.encode()))
    halves = ("" if m.multiply != "karatsuba" else ", then their half sums two to a 16-byte slot for Karatsuba"
              if ghash.packed_halves(n, m.multiply) else ", then their half sums for Karatsuba")
    summary = [
        f"GHASH set-up for {n} block{'s' if n > 1 else ''} per reduction (the twisted powers H^{n}..H^1 in "
        f"the table, in the order the blocks use them{halves})"
        + (f" and the tail of fewer than {n} blocks in one reduction" if progs.tail else "")
        + f"; {m.multiply} products, reduction by {m.reduction}; carry-less multiply: {_multiply_how(isa)} "
        f"on 128-bit vectors. Included by every update header of this method, whatever its width.",
        (f"Tail: {progs.tail[0].alu_count()} operations for the first block, {progs.tail[1].alu_count()} for "
         f"each further one, {progs.tail[2].alu_count()} to reduce." if progs.tail else "No tail: one block "
         "per reduction."),
        f"Verified: {verified}.",
    ]
    return _header(renderer, "c_ghash/setup.h.j2", path, summary, guard, isa, blocks=n,
                   karatsuba=m.multiply == "karatsuba", packed=ghash.packed_halves(n, m.multiply),
                   tail_half=_tail_reads_half(m), setkey=_print(isa, progs.setkey),
                   tail=[_print(isa, p) for p in progs.tail] if progs.tail else None)


def render_body(isa: Isa | PairIsa, m: Method, renderer, guard: str | None) -> str:
    """The shared update header: ghash_blocks, static, under the includer's GHASH_ISA
    attribute, after the set-up header."""
    n, width = m.blocks, m.width
    progs = programs(m)
    path = body_path(isa, m)
    verified = model_check(path, progs, zlib.crc32(path.encode()))
    how = _multiply_how(isa)
    if width > 1:
        how = f"{MULTIPLY_WIDE[isa.processor]} on {isa.vector_bits}-bit vectors, {width} blocks each"
    summary = [
        f"GHASH update, {n} block{'s' if n > 1 else ''} per reduction; {m.multiply} products, reduction by "
        f"{m.reduction}; carry-less multiply: {how}. "
        + (f"The tails are in {setup_path(isa, m)}; the set-up, at this width, is here. " if progs.setkey_wide
           else f"The set-up and tails are in {setup_path(isa, m)}. ")
        + "Included by every GHASH variant spelled this way; each defines GHASH_ISA (its `target` "
        "attribute) first.",
        f"Update: {progs.update.alu_count()} operations per {n} blocks ({progs.update.count('clmul')} "
        f"carry-less multiplies)"
        + (f"; {progs.half.alu_count()} per {n // 2} blocks on the table's last powers." if progs.half else "")
        + (f"; the tail's vectors {progs.tail_wide[1].alu_count()} operations each, "
           f"{progs.tail_wide[2].alu_count()} to reduce" if progs.tail_wide else "")
        + (f"; the set-up {progs.setkey_wide.alu_count()} operations ({progs.setkey_wide.count('clmul')} "
           f"carry-less multiplies; on 128-bit vectors {progs.setkey.alu_count()})." if progs.setkey_wide else "."),
        f"Verified: {verified}.",
    ]
    return _header(renderer, "c_ghash/body.h.j2", path, summary, guard, isa, blocks=n, width=width,
                   wide_from=WIDE_TAIL_FROM * width,
                   setup=setup_path(isa, m), update=_print(isa, progs.update, wide=True),
                   half=_print(isa, progs.half, wide=True) if progs.half else None,
                   tail_half=_tail_reads_half(m),
                   tail_wide=[_print(isa, p, wide=True) for p in progs.tail_wide] if progs.tail_wide else None,
                   setkey_wide=_print(isa, progs.setkey_wide, wide=True) if progs.setkey_wide else None)


@dataclass(frozen=True)
class Built:
    variant: Variant
    programs: Programs


class CGhashEmitter(Emitter):
    name = "c_ghash"
    template = "c_ghash/variant.c.j2"
    parameters = ("isa", "blocks", "multiply", "reduction")
    cpu_features = tuple(sorted({f for isa in ISAS.values() for f in isa.features}))
    processor = None         # the union: each variant's own is processor_of
    schema = {
        "isa": {"name": Field(str, check=one_of(tuple(ISAS), "GHASH ISA"))},
        "variants": {
            "blocks": Field(list, item=int, check=_blocks_check),
            # none: the ISA's default (default_method)
            "multiply": Field(list, item=str, required=False, check=one_of(ghash.MULTIPLIES, "GHASH multiply")),
            "reduction": Field(list, item=str, required=False,
                               check=one_of(ghash.REDUCTIONS, "GHASH reduction")),
        },
    }

    @staticmethod
    def _isa(variant: Variant) -> Isa | PairIsa:
        return ISAS[variant.param("isa")]

    def compile_guard_of(self, variant: Variant) -> str | None:
        return self._isa(variant).guard

    def processor_of(self, variant: Variant) -> str | None:
        return self._isa(variant).processor

    def validate(self, target: Target) -> None:
        isa = ISAS[target.sections["isa"]["name"]]
        if set(target.cpu_features) != set(isa.features):
            raise target.error("dispatch.cpu_features", f"{target.sections['isa']['name']} needs exactly "
                               f"[{', '.join(isa.features)}]")
        width = width_of(isa)
        for n in target.sections["variants"]["blocks"]:
            if n % width:
                raise target.error("variants.blocks", f"{n} is not a multiple of {isa.name}'s {width} "
                                   f"blocks per vector")

    def variants(self, target: Target) -> list[Variant]:
        """Every combination listed; the first listed is dispatch's preference (rank)."""
        name = target.sections["isa"]["name"]
        isa, spec = ISAS[name], target.sections["variants"]
        multiply, reduction = default_method(isa)
        combos = [Method(n, width_of(isa), mul, red) for n in spec["blocks"]
                  for mul in spec.get("multiply") or [multiply] for red in spec.get("reduction") or [reduction]]
        return [Variant(target, 0, "", f"x{m.blocks}{method_suffix(isa, m)}",
                        (("isa", name), ("blocks", m.blocks), ("multiply", m.multiply), ("reduction", m.reduction)),
                        target.rank + i, kind="ghash") for i, m in enumerate(combos)]

    def _method(self, variant: Variant) -> Method:
        return Method(variant.param("blocks"), width_of(self._isa(variant)), variant.param("multiply"),
                      variant.param("reduction"))

    def build(self, variant: Variant) -> Built:
        return Built(variant, programs(self._method(variant)))

    def verify(self, built: Built) -> str:
        v = built.variant
        return model_check(v.name, built.programs, zlib.crc32(v.name.encode()))

    def shared(self, variant: Variant) -> list[SharedSource]:
        isa, m = self._isa(variant), self._method(variant)
        return [SharedSource(setup_path(isa, m), lambda renderer, guard: render_setup(isa, m, renderer, guard)),
                SharedSource(body_path(isa, m), lambda renderer, guard: render_body(isa, m, renderer, guard))]

    def render(self, built: Built, renderer, verified: str) -> list[tuple[str, str]]:
        v, m = built.variant, built.programs.method
        n, isa = m.blocks, self._isa(v)
        summary = [
            f"GHASH, {n} block{'s' if n > 1 else ''} per reduction ({m.multiply} products, reduction by "
            f"{m.reduction}), for GCM: the functions are in {body_path(isa, m)} (the update) and "
            f"{setup_path(isa, m)} (the set-up and tails), compiled here "
            + (f"under {isa.attribute}." if isinstance(isa, Isa) else "as plain C." if isa is PORTABLE
               else f"as plain C, each 64 x 64 multiply by {isa.clmul} (runtime/src/aesgen_clmul.h)."),
            f"Verified: {verified}.",
        ]
        facts = {"name": v.name, "symbol": v.symbol, "backend": v.backend, "blocks": n,
                 "half": n // 2 if built.programs.half else 0,
                 "tail_wide": built.programs.tail_wide is not None,
                 "setkey_wide": built.programs.setkey_wide is not None,
                 "rank": v.rank, "features": c_mask(v.target.cpu_features),
                 "table_bytes": ghash.table_bytes(n, m.multiply),
                 "table": ghash.table_layout(n, m.multiply),
                 "info": f"{n} blocks per reduction, {m.multiply}, reduction by {m.reduction}, "
                         f"{'portable holes multiply' if isa is PORTABLE else isa.name}"}
        text = renderer.render(self.template, variant=v, summary=summary, context={
            "v": facts, "guard": self.compile_guard_of(v), "body": body_path(isa, m),
            "isa": None if isinstance(isa, PairIsa) else {"include": isa.include, "attribute": isa.attribute},
            "clmul": {"macro": PAIR_CLMUL, "function": isa.clmul, "how": isa.multiply}
            if isinstance(isa, PairIsa) else None,
        })
        return [(self.outputs(v)[0], text)]
