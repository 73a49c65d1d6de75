"""The bitsliced AES state and its primitive operations, for any word of 16*B bits.

Layout (fixslice64 for B = 4, fixslice32 for B = 2): eight words, word k holding bit k
of every byte of B blocks. The bit for (row r, column c, block b) sits at position
    4*B*r + B*c + b,
so a row is a field of 4*B bits, a column a field of B bits inside it. Every constant
below (masks, rotation amounts, delta-swap networks) is computed from that formula; the
model checks the results against the reference AES.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import product

from ..ir import Builder

#  bit j of xtime(c) is c[j-1], plus c[7] for j in {0, 1, 3, 4} (x^8 = x^4 + x^3 + x + 1)
_XTIME_FEEDBACK = (0, 1, 3, 4)


@dataclass(frozen=True)
class Layout:
    word_bits: int

    def __post_init__(self):
        if self.word_bits % 16 or self.word_bits < 32:
            raise ValueError(f"bitsliced layout needs a word of 16*B bits, B >= 2; got {self.word_bits}")

    @property
    def blocks(self) -> int:
        return self.word_bits // 16

    @property
    def col_stride(self) -> int:
        return self.blocks

    @property
    def row_stride(self) -> int:
        return 4 * self.blocks

    @property
    def mask(self) -> int:
        return (1 << self.word_bits) - 1

    def position(self, r: int, c: int, b: int) -> int:
        return self.row_stride * r + self.col_stride * c + b

    def positions_mask(self, cells) -> int:
        """Mask of all block bits of the (row, column) cells given."""
        m = 0
        for r, c in cells:
            for b in range(self.blocks):
                m |= 1 << self.position(r, c, b)
        return m

    # ---------------------------------------------------------------- packing

    def _initial_slot(self, r: int, c: int, b: int) -> tuple[int, int]:
        """Before the transpose network, bit k of byte (r, c) of block b sits in
        word (b + B*c) mod 8 at bit 8*((b + B*c + 4*B*r) >> 3) + k: the network then
        swaps word-index bit j with position bit j for j = 0, 1, 2."""
        p = self.position(r, c, b)
        return p & 7, 8 * (p >> 3)

    def pack(self, bld: Builder, mem: str, base: int = 0, broadcast: bool = False) -> list[str]:
        """Load B blocks (or one block into every lane, if broadcast) from byte memory
        `mem` at `base` and return the eight state slices, slice k = bit k."""
        B = self.blocks
        # Column words: byte r of column c at bits 8r (little-endian 32-bit load).
        cols = {}
        for b in range(1 if broadcast else B):
            for c in range(4):
                cols[b, c] = bld.ld(mem, base + 16 * b + 4 * c, 32, hint=f"col{b}{c}")
        words: list[str | None] = [None] * 8
        for b in range(B):
            for c in range(4):
                word, _ = self._initial_slot(0, c, b)
                if words[word] is not None:
                    continue
                parts = [(cc, bb) for bb in range(B) for cc in range(4)
                         if self._initial_slot(0, cc, bb)[0] == word]
                if broadcast and b > 0:
                    # lanes hold the same key: reuse the word built for lane 0 of this column
                    words[word] = words[self._initial_slot(0, c, 0)[0]]
                    continue
                words[word] = self._gather(bld, cols, parts, broadcast)
        return self._transpose(bld, words, "s")

    def _gather(self, bld: Builder, cols, parts, broadcast) -> str:
        """OR together the spread column words that land in one initial word."""
        acc = None
        for c, b in parts:
            src = cols[(0 if broadcast else b), c]
            offsets = [self._initial_slot(r, c, b)[1] for r in range(4)]
            x = self._spread(bld, src, offsets)
            acc = x if acc is None else bld.or_(acc, x, hint="w")
        return acc

    def _spread(self, bld: Builder, x: str, offsets: list[int]) -> str:
        """Move byte r of x (at bit 8r) to bit offsets[r]; offsets are 8r + d or 16r + d."""
        d = offsets[0]
        stride = offsets[1] - offsets[0]
        if offsets != [d + stride * r for r in range(4)] or stride not in (8, 16):
            raise ValueError(f"no spread network for offsets {offsets}")
        if stride == 16:
            x = bld.and_(bld.or_(x, bld.shl(x, 16, hint="sp"), hint="sp"), 0x0000FFFF0000FFFF & self.mask, hint="sp")
            x = bld.and_(bld.or_(x, bld.shl(x, 8, hint="sp"), hint="sp"), _repeat(0x00FF, 16, self.word_bits), hint="sp")
        return bld.shl(x, d, hint="sp")

    def _transpose(self, bld: Builder, words: list[str], hint: str) -> list[str]:
        """Swap word-index bit j with position bit j, j = 0, 1, 2 (three delta-swap
        stages; they act on different bits, so the same network packs and unpacks)."""
        w = list(words)
        for j in range(3):
            s = 1 << j
            m = _repeat((1 << s) - 1, 2 * s, self.word_bits)   # 0x55.., 0x33.., 0x0f..
            for p in range(8):
                if p & s:
                    q = p ^ s
                    t = bld.and_(bld.xor(bld.shr(w[q], s, hint="tr"), w[p], hint="tr"), m, hint="tr")
                    w[p] = bld.xor(w[p], t, hint="tr")
                    w[q] = bld.xor(w[q], bld.shl(t, s, hint="tr"), hint="tr")
        return w

    def unpack(self, bld: Builder, state: list[str], mem: str, base: int = 0) -> None:
        """Store the B blocks of `state` to byte memory `mem` at `base`."""
        B = self.blocks
        words = self._transpose(bld, state, "u")
        for b in range(B):
            for c in range(4):
                word, d = self._initial_slot(0, c, b)
                offsets = [self._initial_slot(r, c, b)[1] for r in range(4)]
                stride = offsets[1] - offsets[0]
                x = bld.shr(words[word], d, hint="un")
                if stride == 16:
                    x = bld.and_(x, _repeat(0x00FF, 16, self.word_bits), hint="un")
                    x = bld.and_(bld.or_(x, bld.shr(x, 8, hint="un"), hint="un"), 0x0000FFFF0000FFFF & self.mask, hint="un")
                    x = bld.or_(x, bld.shr(x, 16, hint="un"), hint="un")
                bld.st(mem, base + 16 * b + 4 * c, 32, x)

    # ---------------------------------------------------------------- permutations

    def rho(self, bld: Builder, x: str, dr: int, dc: int, hint: str = "rot") -> str:
        """out(r, c) = in(r + dr, c + dc): rows and columns rotate together."""
        dr %= 4
        dc %= 4
        whole = self.row_stride * dr + self.col_stride * dc
        if dc == 0:
            return bld.ror(x, whole, hint=hint)
        # columns c + dc >= 4 wrap into the next row: one rotation less by a row.
        # Blend the two rotations as w ^ ((w ^ v) & low): one mask constant, not two.
        low = self.positions_mask((r, c) for r in range(4) for c in range(4 - dc))
        v = bld.ror(x, whole, hint=hint)
        w = bld.ror(x, whole - self.row_stride, hint=hint)
        return bld.xor(w, bld.and_(bld.xor(w, v, hint=hint), low, hint=hint), hint=hint)

    @cached_property
    def _shift_rows_networks(self) -> dict[int, list[tuple[int, int]]]:
        return {e: self._synthesize_shift_rows(e) for e in range(4)}

    def _synthesize_shift_rows(self, e: int) -> list[tuple[int, int]]:
        """Delta swaps (shift, mask) for ShiftRows^e (out(r, c) = in(r, c + e*r)):
        a column swap at distance 2 then one at distance 1, found per row."""
        pairs = {2: [(0, 2), (1, 3)], 1: [(0, 1), (2, 3)]}
        chosen = {2: [], 1: []}
        for r in range(4):
            want = [(c + e * r) % 4 for c in range(4)]   # out column c reads in column want[c]
            for sel2, sel1 in product(product((0, 1), repeat=2), repeat=2):
                cols = list(range(4))
                for dist, sel in ((2, sel2), (1, sel1)):
                    for (lo, hi), on in zip(pairs[dist], sel):
                        if on:
                            cols[lo], cols[hi] = cols[hi], cols[lo]
                if cols == want:
                    chosen[2] += [(r, lo) for (lo, _), on in zip(pairs[2], sel2) if on]
                    chosen[1] += [(r, lo) for (lo, _), on in zip(pairs[1], sel1) if on]
                    break
            else:
                raise ValueError(f"no two-stage network for ShiftRows^{e} row {r}")
        return [(dist * self.col_stride, self.positions_mask(chosen[dist]))
                for dist in (2, 1) if chosen[dist]]

    def shift_rows(self, bld: Builder, x: str, e: int, hint: str = "sr") -> str:
        """ShiftRows^e on one slice (e taken mod 4; e = -1 is the inverse)."""
        for shift, m in self._shift_rows_networks[e % 4]:
            # delta swap: exchange the bits under m with the bits `shift` above them
            t = bld.and_(bld.xor(x, bld.shr(x, shift, hint=hint), hint=hint), m, hint=hint)
            x = bld.xor(bld.xor(x, t, hint=hint), bld.shl(t, shift, hint=hint), hint=hint)
        return x

    # ---------------------------------------------------------------- round layers

    def mix_columns(self, bld: Builder, a: list[str], e: int) -> list[str]:
        """MixColumns in frame e (SR^-e . MC . SR^e): 2a + 3*rho(1,e)a + rho(2,2e)a + rho(3,3e)a,
        computed as out = b + xtime(c) + rho(2,2e)(c) with b = rho(1,e)(a), c = a + b."""
        b = [self.rho(bld, a[j], 1, e, hint=f"mc_b{j}_") for j in range(8)]
        c = [bld.xor(a[j], b[j], hint=f"mc_c{j}_") for j in range(8)]
        xc = _xtime(bld, c, "mc_x")
        return [bld.xor(bld.xor(b[j], xc[j], hint=f"mc_o{j}_"),
                        self.rho(bld, c[j], 2, 2 * e, hint=f"mc_r{j}_"), hint=f"mc{j}_")
                for j in range(8)]

    def inv_mix_columns(self, bld: Builder, a: list[str], e: int) -> list[str]:
        """InvMixColumns in frame e: with c = a + rho(a), d = a + 2c (= 3a + 2 rho a) and
        f = c + 4d (= 13a + 9 rho a), out = d + f + rho^2(f) = 14a + 11 rho a + 13 rho^2 a + 9 rho^3 a."""
        c = [bld.xor(a[j], self.rho(bld, a[j], 1, e, hint=f"imc_b{j}_"), hint=f"imc_c{j}_") for j in range(8)]
        xc = _xtime(bld, c, "imc_x")
        d = [bld.xor(a[j], xc[j], hint=f"imc_d{j}_") for j in range(8)]
        x4d = _xtime(bld, _xtime(bld, d, "imc_y"), "imc_z")
        f = [bld.xor(c[j], x4d[j], hint=f"imc_f{j}_") for j in range(8)]
        return [bld.xor(bld.xor(d[j], f[j], hint=f"imc_o{j}_"),
                        self.rho(bld, f[j], 2, 2 * e, hint=f"imc_r{j}_"), hint=f"imc{j}_")
                for j in range(8)]

    def add_round_key(self, bld: Builder, s: list[str], rk_mem: str, round_index: int) -> list[str]:
        return [bld.xor(s[k], bld.ldw(rk_mem, 8 * round_index + k, hint=f"k{round_index}_{k}_"),
                        hint=f"s{round_index}_{k}_")
                for k in range(8)]


def _xtime(bld: Builder, c: list[str], hint: str) -> list[str]:
    out = []
    for j in range(8):
        if j == 0:
            out.append(c[7])
        elif j in _XTIME_FEEDBACK:
            out.append(bld.xor(c[j - 1], c[7], hint=f"{hint}{j}_"))
        else:
            out.append(c[j - 1])
    return out


def _repeat(pattern: int, period: int, bits: int) -> int:
    out = 0
    for i in range(0, bits, period):
        out |= pattern << i
    return out & ((1 << bits) - 1)
