"""Emitter `c_simd`: the portable fixsliced/bitsliced programs over SIMD vectors.

A vector of L lanes runs L copies of the same program, one per lane, each
on its own group of blocks: the 32-bit-word program (2 blocks) in 32-bit lanes, or the
64-bit one (4 blocks) in 64-bit lanes. `lanes.vectorize` turns the lane program into a
vector program: whole-vector loads, a transpose into lanes in registers, the lane
program's ops, the transpose back, whole-vector stores. The model runs both programs;
each op is printed as one intrinsic (AVX2: rotations by whole bytes as one byte
shuffle; AVX-512: the vector program first goes through the ternary-logic pass, and the
model checks the result). Round keys are the portable schedule, broadcast
to every lane as they are read. A rolled core (`unroll`) is vectorized piece by piece:
the loop's state stays in lanes across iterations. C with intrinsics and a `target` attribute per
function, so no file needs special compiler flags.
"""

from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass

from ..algorithm import aes, circuits
from ..algorithm.bitsliced import Layout
from ..ir import ALU_OPS, SHUFFLE_OPS, KeySizeLoop, Loop, Program, check
from ..features import c_mask
from ..lanes import vectorize
from ..model import verify_block_cipher
from ..passes import byte_rotate_blends, fuse_ternary, share_rotations
from ..space import ALGORITHM_LISTS, Space
from ..targets import Field, Target, distinct, one_of
from ..variants import Variant
from . import c, softshared
from .base import Emitter, SharedSource
from .c_bitsliced import (UNROLL_FIELD, lane_core_facts, rolled_info, rolled_summary, shared_args, shared_summary,
                          software_variants)

KEY_BITS = (128, 192, 256)
MODEL_TRIALS = 2


@dataclass(frozen=True)
class Isa:
    """How one vector ISA spells the IR's lane-wise ops. One subclass per instruction set
    family (X86Isa, NeonIsa, PowerIsa) spells them; an op a family has no spelling for is
    a ValueError naming it."""
    name: str
    vector_bits: int
    guard: str                    # preprocessor condition for the architecture
    processor: str                # CMAKE_SYSTEM_PROCESSOR pattern
    include: str
    attribute: str                # function attribute enabling the ISA ("" if baseline)
    features: tuple[str, ...]     # CPU features the runtime must see
    byte_shuffle: bool = False    # rotations by whole bytes as one byte shuffle
    ternary: bool = False         # three-input logic (vpternlog)
    # Vector logic operations issued per cycle, for the issue bound aesgen-bench prints:
    # Intel ports 0, 1, 5 for xmm and ymm, 0 and 5 for zmm; two NEON pipes (Cortex-A72 class).
    logic_per_cycle: int = 3

    def _none(self, what: str):
        raise ValueError(f"no {self.name} spelling for {what}")

    def vtype(self, lane: int) -> str:
        raise NotImplementedError

    def cost(self, op) -> int:
        """Instructions one IR op prints as (a rotation may take several)."""
        return 1

    def instructions(self, program, key_bits: int | None = None) -> int:
        """Vector instructions executed per run of a vector program or rolled core: the
        ALU ops weighted by cost, a loop's body counted once per iteration (a KeySizeLoop's
        steps as they run for `key_bits`)."""
        if isinstance(program, KeySizeLoop):
            return sum(self.instructions(s.program) for s, _ in program.trace(aes.rounds(key_bits)))
        if isinstance(program, Loop):
            return (program.times * self.instructions(program.body) + self.instructions(program.head)
                    + self.instructions(program.tail))
        return sum(self.cost(op) for op in program.ops if op.code in ALU_OPS)

    def expr(self, code: str, args: list, lane: int, const) -> str:
        """One op as an expression over vectors. args: operand expressions, except the
        immediate of shifts and rotations (an int) and of ternary (its truth table).
        const(key, expr) names a constant vector hoisted to the top of the function."""
        raise NotImplementedError

    def broadcast(self, scalar: str, lane: int) -> str:
        raise NotImplementedError

    def load(self, address: str, lane: int) -> str:
        """A whole vector from a byte address, any alignment."""
        raise NotImplementedError

    def store(self, address: str, value: str, lane: int) -> str:
        raise NotImplementedError

    def load128(self, address: str, lane: int) -> str:
        """One 128-bit block into block 0, the others zero."""
        if self.vector_bits == 128:
            return self.load(address, lane)
        return self._none("a 128-bit load into a wider vector")

    def store128(self, address: str, value: str, lane: int) -> str:
        """Block 0 only."""
        if self.vector_bits == 128:
            return self.store(address, value, lane)
        return self._none("a 128-bit store from a wider vector")

    def bswap(self, a: str, lane: int, const) -> str:
        """Each 128-bit block's bytes reversed."""
        return self._none(f"bswap on {lane}-bit lanes")

    def swap64(self, a: str, lane: int) -> str:
        """Each 128-bit block's 64-bit halves exchanged."""
        return self._none(f"swap64 on {lane}-bit lanes")

    def clmul(self, a: str, b: str, sel: int, const) -> str:
        """PCLMULQDQ's product: lane sel&1 of a times lane sel>>4&1 of b, 128 bits."""
        return self._none("clmul")

    def shuffle(self, code: str, a: str, b: str, imm: int, lane: int) -> str:
        """The ir.SHUFFLE_OPS: unpacklo/unpackhi in units of imm bits, blocks of parity imm."""
        return self._none(code)


@dataclass(frozen=True)
class X86Isa(Isa):
    """SSE2, AVX2, AVX-512 and the carry-less multiplies: <immintrin.h> intrinsics."""

    def vtype(self, lane: int) -> str:
        return {128: "__m128i", 256: "__m256i", 512: "__m512i"}[self.vector_bits]

    def cost(self, op) -> int:
        if op.code == "ror" and self.vector_bits < 512 and not (self.byte_shuffle and op.args[1] % 8 == 0):
            return 3    # two shifts and an OR
        return 1

    def _x86(self, what: str, lane: int) -> str:
        p = {128: "_mm", 256: "_mm256", 512: "_mm512"}[self.vector_bits]
        si = {128: "si128", 256: "si256", 512: "si512"}[self.vector_bits]
        x = "x" if lane == 64 and self.vector_bits < 512 else ""
        return {"xor": f"{p}_xor_{si}", "and": f"{p}_and_{si}", "or": f"{p}_or_{si}",
                "andnot": f"{p}_andnot_{si}", "slli": f"{p}_slli_epi{lane}", "srli": f"{p}_srli_epi{lane}",
                "ror": f"{p}_ror_epi{lane}", "set1": f"{p}_set1_epi{lane}{x}",
                "shuffle": f"{p}_shuffle_epi8", "shuffle32": f"{p}_shuffle_epi32", "setr8": f"{p}_setr_epi8",
                "ternary": f"{p}_ternarylogic_epi{lane}"}[what]

    def expr(self, code: str, args: list, lane: int, const) -> str:
        f = lambda w: self._x86(w, lane)
        if code in ("xor", "and", "or"):
            return f"{f(code)}({args[0]}, {args[1]})"
        if code == "andn":
            return f"{f('andnot')}({args[1]}, {args[0]})"
        if code == "not":
            if self.ternary:
                return f"{f('ternary')}({args[0]}, {args[0]}, {args[0]}, 0x55)"
            return f"{f('xor')}({args[0]}, {const(('ones', lane), f(('set1')) + '(-1)')})"
        if code == "shl":
            return f"{f('slli')}({args[0]}, {args[1]})"
        if code == "shr":
            return f"{f('srli')}({args[0]}, {args[1]})"
        if code == "ror":
            n = args[1]
            if self.vector_bits == 512:
                return f"{f('ror')}({args[0]}, {n})"
            if self.byte_shuffle and n % 8 == 0:
                size = lane // 8
                idx = [(j % 16) // size * size + ((j % size) + n // 8) % size
                       for j in range(self.vector_bits // 8)]
                mask = const(("ror", lane, n), f"{f('setr8')}({', '.join(map(str, idx))})")
                return f"{f('shuffle')}({args[0]}, {mask})"
            return f"{f('or')}({f('srli')}({args[0]}, {n}), {f('slli')}({args[0]}, {lane - n}))"
        if code == "ternary":
            return f"{f('ternary')}({args[0]}, {args[1]}, {args[2]}, 0x{args[3]:02x})"
        raise ValueError(code)

    def broadcast(self, scalar: str, lane: int) -> str:
        cast = "(long long)" if lane == 64 else "(int)"
        return f"{self._x86('set1', lane)}({cast}{scalar})"

    def load(self, address: str, lane: int) -> str:
        vt = self.vtype(lane)
        return {128: f"_mm_loadu_si128((const {vt} *)({address}))",
                256: f"_mm256_loadu_si256((const {vt} *)({address}))",
                512: f"_mm512_loadu_si512((const void *)({address}))"}[self.vector_bits]

    def store(self, address: str, value: str, lane: int) -> str:
        vt = self.vtype(lane)
        return {128: f"_mm_storeu_si128(({vt} *)({address}), {value})",
                256: f"_mm256_storeu_si256(({vt} *)({address}), {value})",
                512: f"_mm512_storeu_si512((void *)({address}), {value})"}[self.vector_bits]

    def load128(self, address: str, lane: int) -> str:
        if self.vector_bits == 128:
            return self.load(address, lane)
        inner = f"_mm_loadu_si128((const __m128i *)({address}))"
        return {256: f"_mm256_zextsi128_si256({inner})", 512: f"_mm512_zextsi128_si512({inner})"}[self.vector_bits]

    def store128(self, address: str, value: str, lane: int) -> str:
        if self.vector_bits == 128:
            return self.store(address, value, lane)
        cast = {256: "_mm256_castsi256_si128", 512: "_mm512_castsi512_si128"}[self.vector_bits]
        return f"_mm_storeu_si128((__m128i *)({address}), {cast}({value}))"

    def bswap(self, a: str, lane: int, const) -> str:
        """One byte shuffle."""
        if self.vector_bits == 512:   # no _mm512_setr_epi8 in GCC 12: every block's mask is the same
            mask = const(("bswap",), f"_mm512_broadcast_i32x4(_mm_setr_epi8({', '.join(map(str, range(15, -1, -1)))}))")
            return f"_mm512_shuffle_epi8({a}, {mask})"
        idx = [16 * (j // 16) + 15 - j % 16 for j in range(self.vector_bits // 8)]
        mask = const(("bswap",), f"{self._x86('setr8', lane)}({', '.join(map(str, idx))})")
        return f"{self._x86('shuffle', lane)}({a}, {mask})"

    def swap64(self, a: str, lane: int) -> str:
        """pshufd 0x4e."""
        if self.vector_bits == 512:
            return f"_mm512_shuffle_epi32({a}, (_MM_PERM_ENUM)0x4e)"
        return f"{self._x86('shuffle32', lane)}({a}, 0x4e)"

    def clmul(self, a: str, b: str, sel: int, const) -> str:
        """pclmulqdq (vpclmulqdq on wider vectors)."""
        f = {128: "_mm_clmulepi64_si128", 256: "_mm256_clmulepi64_epi128",
             512: "_mm512_clmulepi64_epi128"}[self.vector_bits]
        return f"{f}({a}, {b}, {sel:#04x})"

    def shuffle(self, code: str, a: str, b: str, imm: int, lane: int) -> str:
        p = {128: "_mm", 256: "_mm256", 512: "_mm512"}[self.vector_bits]
        if code == "blocks":
            if self.vector_bits == 256:
                return f"_mm256_permute2x128_si256({a}, {b}, {(0x20, 0x31)[imm]:#04x})"
            return f"_mm512_shuffle_i32x4({a}, {b}, {(0x88, 0xdd)[imm]:#04x})"
        return f"{p}_{code}_epi{imm}({a}, {b})"


@dataclass(frozen=True)
class NeonIsa(Isa):
    """AArch64 Advanced SIMD and 32-bit ARM NEON: <arm_neon.h> intrinsics; PMULL on AArch64."""

    def cost(self, op) -> int:
        return 2 if op.code == "ror" else 1

    @property
    def aarch64(self) -> bool:
        """AArch64 (zip1/zip2, PMULL), as opposed to 32-bit ARM NEON."""
        return self.processor == AARCH64

    def vtype(self, lane: int) -> str:
        return f"uint{lane}x{self.vector_bits // lane}_t"

    def expr(self, code: str, args: list, lane: int, const) -> str:
        u = f"u{lane}"
        simple = {"xor": "veorq", "and": "vandq", "or": "vorrq", "andn": "vbicq"}
        if code in simple:
            return f"{simple[code]}_{u}({args[0]}, {args[1]})"
        if code == "not":
            ones = const(("ones", lane), f"vdupq_n_{u}(~UINT{lane}_C(0))")
            return f"veorq_{u}({args[0]}, {ones})"
        if code == "shl":
            return f"vshlq_n_{u}({args[0]}, {args[1]})"
        if code == "shr":
            return f"vshrq_n_{u}({args[0]}, {args[1]})"
        if code == "ror":   # shift left, then shift right and insert (cost: 2)
            return f"vsriq_n_{u}(vshlq_n_{u}({args[0]}, {lane - args[1]}), {args[0]}, {args[1]})"
        raise ValueError(code)

    def broadcast(self, scalar: str, lane: int) -> str:
        return f"vdupq_n_u{lane}({scalar})"

    def load(self, address: str, lane: int) -> str:
        return f"vreinterpretq_u{lane}_u8(vld1q_u8({address}))"

    def store(self, address: str, value: str, lane: int) -> str:
        return f"vst1q_u8({address}, vreinterpretq_u8_u{lane}({value}))"

    def bswap(self, a: str, lane: int, const) -> str:
        """Swap the 64-bit halves, then reverse the bytes of each (AArch64)."""
        if self.aarch64 and lane == 64:
            return f"vreinterpretq_u64_u8(vrev64q_u8(vreinterpretq_u8_u64(vextq_u64({a}, {a}, 1))))"
        return super().bswap(a, lane, const)

    def swap64(self, a: str, lane: int) -> str:
        """ext (AArch64)."""
        if self.aarch64 and lane == 64:
            return f"vextq_u64({a}, {a}, 1)"
        return super().swap64(a, lane)

    def clmul(self, a: str, b: str, sel: int, const) -> str:
        """pmull, pmull2 for both high halves (AArch64)."""
        if not self.aarch64:
            return super().clmul(a, b, sel, const)
        if sel == 0x11:
            return f"vreinterpretq_u64_p128(vmull_high_p64(vreinterpretq_p64_u64({a}), vreinterpretq_p64_u64({b})))"
        return (f"vreinterpretq_u64_p128(vmull_p64(vgetq_lane_u64({a}, {sel & 1}), "
                f"vgetq_lane_u64({b}, {sel >> 4 & 1})))")

    def shuffle(self, code: str, a: str, b: str, imm: int, lane: int) -> str:
        high = code == "unpackhi"
        if self.aarch64:
            if imm == lane:
                return f"vzip{2 if high else 1}q_u{lane}({a}, {b})"
            f = f"vzip{2 if high else 1}q_u64"
            return f"vreinterpretq_u{lane}_u64({f}(vreinterpretq_u64_u{lane}({a}), vreinterpretq_u64_u{lane}({b})))"
        if imm == lane:
            return f"vzipq_u{lane}({a}, {b}).val[{int(high)}]"
        half = "high" if high else "low"
        return f"vcombine_u{lane}(vget_{half}_u{lane}({a}), vget_{half}_u{lane}({b}))"


@dataclass(frozen=True)
class PowerIsa(Isa):
    """64-bit little-endian POWER (VSX; POWER8's vpmsumd): GCC's <altivec.h> on vector
    unsigned long long, 128-bit vectors of 64-bit lanes only. Element 0 is the
    low-addressed doubleword, as lane 0."""

    def _lanes(self, lane: int) -> None:
        if lane != 64 or self.vector_bits != 128:
            raise ValueError(f"{self.name}: only 128-bit vectors of 64-bit lanes")

    def vtype(self, lane: int) -> str:
        self._lanes(lane)
        return "__vector unsigned long long"

    def expr(self, code: str, args: list, lane: int, const) -> str:
        """Shift counts are splatted constants."""
        self._lanes(lane)
        simple = {"xor": "vec_xor", "and": "vec_and", "or": "vec_or"}
        if code in simple:
            return f"{simple[code]}({args[0]}, {args[1]})"
        if code in ("shl", "shr"):
            count = const(("count", args[1]), self.broadcast(str(args[1]), lane))
            return f"{'vec_sl' if code == 'shl' else 'vec_sr'}({args[0]}, {count})"
        raise ValueError(f"no {self.name} spelling for {code}")

    def broadcast(self, scalar: str, lane: int) -> str:
        self._lanes(lane)
        return f"vec_splats((unsigned long long){scalar})"

    def load(self, address: str, lane: int) -> str:
        """lxvd2x and a doubleword swap on POWER8, so bytes 0..7 are lane 0 as on x86."""
        return f"(__vector unsigned long long)vec_xl(0, (const unsigned char *)({address}))"

    def store(self, address: str, value: str, lane: int) -> str:
        return f"vec_xst((__vector unsigned char)({value}), 0, (unsigned char *)({address}))"

    def bswap(self, a: str, lane: int, const) -> str:
        """vperm, the mask in element order."""
        self._lanes(lane)
        bytes_ = ", ".join(map(str, range(15, -1, -1)))
        mask = const(("bswap",), f"(__vector unsigned long long)(__vector unsigned char){{{bytes_}}}")
        return f"vec_perm({a}, {a}, (__vector unsigned char){mask})"

    def swap64(self, a: str, lane: int) -> str:
        """xxswapd."""
        self._lanes(lane)
        return f"vec_xxpermdi({a}, {a}, 2)"

    def clmul(self, a: str, b: str, sel: int, const) -> str:
        """vpmsumd sums lane 0 x lane 0 and lane 1 x lane 1: b's lane sel>>4 moved to a's
        lane sel&1 next to a zero (one xxpermdi), so the sum is the one product."""
        i, j = sel & 1, sel >> 4 & 1
        zero = const(("value", 0), self.broadcast(c.literal(0, 64), 64))
        merge = "vec_mergel" if j else "vec_mergeh"
        pair = f"{zero}, {b}" if i else f"{b}, {zero}"
        return f"__builtin_crypto_vpmsumd({a}, {merge}({pair}))"

    def shuffle(self, code: str, a: str, b: str, imm: int, lane: int) -> str:
        if imm != lane:
            raise ValueError(f"no {self.name} spelling for {code} in {imm}-bit units")
        return f"{'vec_mergel' if code == 'unpackhi' else 'vec_mergeh'}({a}, {b})"


X86 = "^(x86_64|amd64|AMD64)$"
AARCH64 = "^(aarch64|arm64)$"
POWER = "^(ppc64le|powerpc64le)$"
ISAS = {
    "sse2": X86Isa("sse2", 128, "defined(__x86_64__)", X86, "<emmintrin.h>", "", ()),
    "avx2": X86Isa("avx2", 256, "defined(__x86_64__)", X86, "<immintrin.h>", '__attribute__((target("avx2")))',
                ("avx", "avx2"), byte_shuffle=True),
    "avx512": X86Isa("avx512", 512, "defined(__x86_64__)", X86, "<immintrin.h>",
                  '__attribute__((target("avx512f")))', ("avx", "avx2", "avx512f"), ternary=True,
                  logic_per_cycle=2),
    "neon": NeonIsa("neon", 128, "defined(__aarch64__)", AARCH64, "<arm_neon.h>", "", (), logic_per_cycle=2),
    # 32-bit ARM: NEON is optional (Debian armhf builds for VFPv3-D16), so enabled per
    # function and checked at run time
    "neon32": NeonIsa("neon32", 128, "defined(__arm__) && !defined(__aarch64__)", "^arm", "<arm_neon.h>",
                  '__attribute__((target("fpu=neon")))', ("neon",), logic_per_cycle=2),
}


def vector_statements(program: Program, isa: Isa, indent: str = "    ", consts: dict | None = None) -> list[str]:
    """A vector program (lanes.vectorize) as C on `isa`: `rk` words are broadcast, `in`
    and `out` are byte pointers read and written a whole vector at a time. Constant
    vectors are declared first, or, when the caller passes `consts`, collected there
    for the caller to declare (const_statements) once for several programs."""
    check(program)
    if program.lanes * program.bits != isa.vector_bits:
        raise ValueError(f"{program.name}: {program.lanes} lanes of {program.bits} bits on {isa.name}")
    lane = program.bits
    vt = isa.vtype(lane)
    shared = consts is not None
    consts = consts if shared else {}
    lines: list[str] = []

    def const(key, expr: str) -> str:
        if key not in consts:
            consts[key] = (f"K{len(consts)}", expr)
        return consts[key][0]

    def opnd(a) -> str:
        if isinstance(a, str):
            return a
        return const(("value", a), isa.broadcast(c.literal(a, lane), lane))

    for op in program.ops:
        code, a = op.code, op.args
        if code == "note":
            lines.append(f"{indent}/* {a[0]} */")
            continue
        if code in ("vst", "vst128"):
            store = isa.store if code == "vst" else isa.store128
            lines.append(f"{indent}{store(f'{c.c_name(a[0])} + {a[1]}', opnd(a[2]), lane)};")
            continue
        if code == "vld":
            rhs = isa.load(f"{c.c_name(a[0])} + {a[1]}", lane)
        elif code == "vld128":
            rhs = isa.load128(f"{c.c_name(a[0])} + {a[1]}", lane)
        elif code == "bswap":
            rhs = isa.bswap(opnd(a[0]), lane, const)
        elif code == "swap64":
            rhs = isa.swap64(opnd(a[0]), lane)
        elif code == "clmul":
            rhs = isa.clmul(opnd(a[0]), opnd(a[1]), a[2], const)
        elif code in SHUFFLE_OPS:
            rhs = isa.shuffle(code, opnd(a[0]), opnd(a[1]), a[2], lane)
        elif code == "ldw":
            rhs = isa.broadcast(f"{c.c_name(a[0])}[{a[1]}]", lane)
        elif code == "mov":
            rhs = opnd(a[0])
        elif code in ("ror", "shl", "shr"):
            rhs = isa.expr(code, [opnd(a[0]), a[1]], lane, const)
        elif code == "ternary":
            rhs = isa.expr(code, [opnd(x) for x in a[:3]] + [a[3]], lane, const)
        elif code in ALU_OPS:
            rhs = isa.expr(code, [opnd(x) for x in a], lane, const)
        else:
            raise ValueError(f"{program.name}: no vector spelling for {op}")
        lines.append(f"{indent}const {vt} {op.dst} = {rhs};")
    return lines if shared else const_statements(consts, vt, indent) + lines


def const_statements(consts: dict, vt: str, indent: str = "    ") -> list[str]:
    return [f"{indent}const {vt} {name} = {expr};" for name, expr in consts.values()]


def vector_core_statements(core: Program | Loop | KeySizeLoop, isa: Isa, word: str) -> list[str]:
    """A vector core, straight-line or rolled, as C on `isa`; a loop's constant vectors
    are declared once, before the loop."""
    consts: dict = {}
    vt = isa.vtype(core.bits)

    def piece(p, indent):
        return vector_statements(p, isa, indent, consts)

    if isinstance(core, KeySizeLoop):
        lines = c.key_size_loop_statements(core, word, piece=piece, state_type=vt)
    else:
        lines = c.core_statements(core, piece, vt, word)
    return const_statements(consts, vt) + lines


def _vectorized(core: Program | Loop | KeySizeLoop, isa: Isa, lanes: int) -> Program | Loop | KeySizeLoop:
    """A lane core on `lanes` lanes of `isa`, through the ISA's rewrites."""
    vector = vectorize(core, lanes)
    if isa.ternary:
        vector = fuse_ternary(vector)
    if isa.byte_shuffle:
        vector = byte_rotate_blends(share_rotations(vector))
    return vector


def shared_core_name(v: Variant) -> str:
    """A rolled fixsliced SIMD variant's vector core, one for every key size: its name
    without the key size (direction, target, algorithm, lane, unroll)."""
    return f"{v.direction}__{v.name.split('__', 1)[1]}"


def shared_core_symbol(v: Variant) -> str:
    return softshared.symbol_of(shared_core_name(v))


def shares_core(v: Variant) -> bool:
    return softshared.any_size(v.direction, v.param("algorithm"), v.param("unroll", "full"))


@functools.cache
def _any_size_vector_core(isa_name: str, direction: str, algorithm: str, lane: int, circuit: str,
                          unroll: str) -> KeySizeLoop:
    """(Built once per generator run, read-only after.)"""
    isa = ISAS[isa_name]
    # any key size names the lane core every key size shares
    return _vectorized(softshared.lane_core(128, direction, algorithm, lane, circuit, unroll), isa,
                       isa.vector_bits // lane)


def _vector_core_of(v: Variant) -> Program | Loop | KeySizeLoop:
    isa, lane = ISAS[v.param("isa")], v.param("lane_bits")
    args = shared_args(v, lane)
    if shares_core(v):
        return _any_size_vector_core(isa.name, *args[1:])
    return _vectorized(softshared.lane_program(*args), isa, isa.vector_bits // lane)


def _isa_facts(isa: Isa) -> dict:
    """What a template needs of an ISA."""
    return {"name": isa.name, "guard": isa.guard, "include": isa.include, "attribute": isa.attribute}


def render_shared_core(v: Variant, renderer, guard: str | None) -> str:
    """The vector core every key size of v's parameters shares, checked by the model for
    each key size before it is written."""
    isa, lane = ISAS[v.param("isa")], v.param("lane_bits")
    core = _vector_core_of(v)
    name = shared_core_symbol(v)
    seed = zlib.crc32(name.encode())
    blocks = (isa.vector_bits // lane) * Layout(lane).blocks
    for key_bits in core.key_bits:
        verify_block_cipher(name, key_bits, v.direction, softshared.key_programs(key_bits, v.param("algorithm"), lane),
                            core, blocks, MODEL_TRIALS, seed)
    summary = [
        f"AES-128, -192 and -256 {v.direction}ryption, {v.param('algorithm')}d, on {isa.name.upper()}: "
        f"{isa.vector_bits // lane} lanes of {lane} bits, {blocks} blocks per batch (unroll {v.param('unroll')}).",
        f"One function for every key size, the round count nr an argument: {core.static_alu_count()} vector "
        "operations written; per batch "
        + ", ".join(f"{isa.instructions(core, b)} vector instructions for AES-{b}" for b in core.key_bits) + ".",
        f"Called by the {v.name.split('__', 1)[1]} variants of each key size.",
        f"Verified: the model ran it on the FIPS-197 key and {MODEL_TRIALS} random keys (seed {seed:#010x}) "
        "for each key size against the reference AES.",
    ]
    return renderer.render("c_simd/core.c.j2", summary=summary, context={
        "guard": guard, "symbol": name, "word": c.word_type(lane),
        "isa": _isa_facts(isa),
        "gcc_sched_pressure": v.param("gcc_sched_pressure"),
        "core": vector_core_statements(core, isa, c.word_type(lane)),
    })


@dataclass(frozen=True)
class Built:
    variant: Variant
    isa: Isa
    layout: Layout
    lanes: int
    key_programs: tuple[Program | Loop | KeySizeLoop, ...]
    core: Program | Loop | KeySizeLoop  # the vector core: loads, transposes, the rounds on every lane, stores
                            # (after the ternary-logic pass, where the ISA has it)
    scalar: Program | Loop | KeySizeLoop  # the shared lane core: one lane's blocks in scalar C


class CSimdEmitter(Emitter):
    name = "c_simd"
    template = "c_simd/variant.c.j2"
    parameters = ("isa", "algorithm", "lane_bits", "blocks", "gcc_sched_pressure")
    sweep = Space(values={"lane_bits": (32, 64), "gcc_sched_pressure": (True, False),
                          "decrypt": ("fixslice", "bitslice"), "unroll": aes.UNROLLS}, **ALGORITHM_LISTS)
    cpu_features = ("avx", "avx2", "avx512f", "neon")
    # the union; each variant's own are compile_guard_of and processor_of
    processor = "^(x86_64|amd64|AMD64|aarch64|arm64|arm)"
    compile_guard = "defined(__x86_64__) || defined(__aarch64__) || defined(__arm__)"
    schema = {
        "isa": {
            "name": Field(str, check=one_of(tuple(ISAS), "vector ISA")),
        },
        "variants": {
            "key_bits": Field(list, item=int, check=one_of(KEY_BITS, "key size")),
            "lane_bits": Field(list, item=int, check=one_of((32, 64), "lane width")),
            "encrypt": Field(list, item=str, check=one_of(aes.ENCRYPT_ALGORITHMS, "encryption algorithm")),
            "decrypt": Field(list, item=str, check=one_of(aes.DECRYPT_ALGORITHMS, "decryption algorithm")),
            # ask GCC to schedule for register pressure before allocating (off by default on
            # x86; the cores keep more values alive than there are registers)
            "gcc_sched_pressure": Field(list, item=bool, check=distinct),
            "unroll": UNROLL_FIELD,
        },
        "circuits": {
            "sbox": Field(str, check=one_of(circuits.FORWARD, "S-box circuit")),
            "inv_sbox": Field(str, check=one_of(circuits.INVERSE, "inverse S-box circuit")),
        },
    }

    def compile_guard_of(self, variant: Variant) -> str:
        return ISAS[variant.param("isa")].guard

    def processor_of(self, variant: Variant) -> str:
        return ISAS[variant.param("isa")].processor

    def validate(self, target: Target) -> None:
        isa = ISAS[target.sections["isa"]["name"]]
        if set(target.cpu_features) != set(isa.features):
            raise target.error("dispatch.cpu_features",
                               f"{isa.name} needs exactly [{', '.join(isa.features)}]")

    def variants(self, target: Target) -> list[Variant]:
        spec = target.sections["variants"]
        isa = ISAS[target.sections["isa"]["name"]]
        out = []
        blocks = isa.vector_bits // 16
        for lane in spec["lane_bits"]:
            for gsp in spec["gcc_sched_pressure"]:
                out += software_variants(
                    target, spec,
                    lambda a: (("isa", isa.name), ("algorithm", a), ("lane_bits", lane), ("blocks", blocks),
                               ("gcc_sched_pressure", gsp)),
                    lambda a: f"{a}{lane}" + ("" if gsp else "_nosched"))
        return out

    def outputs(self, variant: Variant) -> list[str]:
        return [f"{variant.target.ident}/{variant.name}.c"]

    def build(self, variant: Variant) -> Built:
        isa = ISAS[variant.param("isa")]
        lane = variant.param("lane_bits")
        layout = Layout(lane)
        key_programs = softshared.key_programs(variant.key_bits, variant.param("algorithm"), lane)
        args = shared_args(variant, lane)
        return Built(variant, isa, layout, isa.vector_bits // lane, key_programs, _vector_core_of(variant),
                     softshared.lane_core(*args))

    def shared(self, variant: Variant) -> list[SharedSource]:
        out = softshared.sources(*shared_args(variant, variant.param("lane_bits")))
        if shares_core(variant):
            out.append(SharedSource(f"common/{shared_core_name(variant)}_core.c",
                                    lambda renderer, guard: render_shared_core(variant, renderer, guard)))
        return out

    def verify(self, built: Built) -> str:
        v = built.variant
        seed = zlib.crc32(v.name.encode())
        verify_block_cipher(v.name, v.key_bits, v.direction, built.key_programs, built.scalar,
                            built.layout.blocks, MODEL_TRIALS, seed)
        blocks = built.lanes * built.layout.blocks
        verify_block_cipher(v.name, v.key_bits, v.direction, built.key_programs, built.core,
                            blocks, MODEL_TRIALS, seed)
        return (f"the model ran the lane program ({built.layout.blocks} blocks) and the vector program "
                f"({blocks} blocks: whole-vector loads, the transpose into {built.lanes} lanes, the rounds, "
                f"the transpose back) on the FIPS-197 key and {MODEL_TRIALS} random keys (seed {seed:#010x}) "
                f"against the reference AES")

    def render(self, built: Built, renderer, verified: str) -> list[tuple[str, str]]:
        v, isa = built.variant, built.isa
        lane = built.layout.word_bits
        ops = isa.instructions(built.core, v.key_bits)
        moves = softshared.executed(built.core, v.key_bits, *SHUFFLE_OPS)
        blocks = built.lanes * built.layout.blocks
        summary = [
            f"{isa.name.upper()}: {built.lanes} lanes of {lane} bits, each running the "
            f"{built.layout.blocks}-block fixsliced layout: {blocks} blocks per batch.",
            f"Core: {ops} vector instructions per batch ({ops / (16 * blocks):.2f} per byte), {moves} of them "
            f"shuffles that transpose the blocks into lanes and back in registers"
            + (f"; {softshared.executed(built.scalar, v.key_bits)} lane operations before the ternary-logic pass "
               f"({softshared.executed(built.core, v.key_bits, 'ternary')} three-input ops)." if isa.ternary else "."),
            *shared_summary(v, lane),
            *rolled_summary(v, built.core),
            f"Verified: {verified}.",
        ]
        facts = {
            "name": v.name, "symbol": v.symbol, "backend": v.backend, "key_bits": v.key_bits,
            "direction": 0 if v.direction == "enc" else 1, "lane_bits": lane, "lanes": built.lanes,
            "lane_blocks": built.layout.blocks, "blocks": blocks, "rank": v.rank,
            "core_ops": ops, "issue_per_cycle": isa.logic_per_cycle,
            "schedule_words": aes.schedule_words(v.key_bits),
            "features": c_mask(isa.features),
            "info": f"{v.param('algorithm')}d, {built.lanes}x{lane}-bit lanes, {blocks} blocks per batch, "
                    f"{ops} vector ops per batch" + rolled_info(v),
        }
        text = renderer.render(self.template, variant=v, summary=summary, context={
            "v": facts, "isa": _isa_facts(isa),
            "word": c.word_type(lane), "gcc_sched_pressure": v.param("gcc_sched_pressure"),
            "setkey": softshared.setkey_symbol(v.key_bits, v.param("algorithm"), lane),
            "core1": lane_core_facts(v, lane),
            "core": [] if shares_core(v) else vector_core_statements(built.core, isa, c.word_type(lane)),
            "shared_core": {"symbol": shared_core_symbol(v), "rounds": aes.rounds(v.key_bits)}
                           if shares_core(v) else None,
        })
        return [(self.outputs(v)[0], text)]
