"""Byte-wise reference AES (FIPS-197): the oracle every emitted sequence is checked against.

Written for clarity, not speed. The S-box is computed from its definition (inverse in
GF(2^8) followed by the affine map), not copied from a table, so it is an independent
check of the circuits in `algorithm/circuits/`.
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter

ROUNDS = {128: 10, 192: 12, 256: 14}


def gf_mul(a: int, b: int) -> int:
    """Multiply in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        a = ((a << 1) ^ 0x11B) if a & 0x80 else (a << 1)
        b >>= 1
    return r


def _gf_inv(a: int) -> int:
    if a == 0:
        return 0
    r = 1
    for _ in range(254):  # a^254 = a^-1
        r = gf_mul(r, a)
    return r


def _affine(x: int) -> int:
    y = 0x63
    for i in range(8):
        bit = 0
        for k in (0, 4, 5, 6, 7):
            bit ^= (x >> ((i + k) % 8)) & 1
        y ^= bit << i
    return y


SBOX = tuple(_affine(_gf_inv(x)) for x in range(256))
INV_SBOX = tuple(SBOX.index(y) for y in range(256))
# products by the MixColumns coefficients, computed with gf_mul (speed for the model)
_MUL = {c: tuple(gf_mul(c, x) for x in range(256)) for c in (1, 2, 3, 9, 11, 13, 14)}


def rounds_for(key_bits: int) -> int:
    if key_bits not in ROUNDS:
        raise ValueError(f"AES key size must be 128, 192 or 256 bits, not {key_bits}")
    return ROUNDS[key_bits]


@lru_cache(maxsize=64)
def expand_key(key: bytes) -> tuple[bytes, ...]:
    """Round keys k_0..k_Nr, 16 bytes each (FIPS-197 section 5.2)."""
    nk = len(key) // 4
    nr = rounds_for(len(key) * 8)
    words = [list(key[4 * i:4 * i + 4]) for i in range(nk)]
    rcon = 1
    for i in range(nk, 4 * (nr + 1)):
        t = list(words[i - 1])
        if i % nk == 0:
            t = [SBOX[b] for b in t[1:] + t[:1]]
            t[0] ^= rcon
            rcon = gf_mul(rcon, 2)
        elif nk > 6 and i % nk == 4:
            t = [SBOX[b] for b in t]
        words.append([a ^ b for a, b in zip(words[i - nk], t)])
    return tuple(bytes(sum(words[4 * r:4 * r + 4], [])) for r in range(nr + 1))


# State: 16 bytes in FIPS-197 order, byte index = 4*column + row.

_SBOX_BYTES = bytes(SBOX)
_INV_SBOX_BYTES = bytes(INV_SBOX)
# ShiftRows^e as a byte gather, for e mod 4
_SHIFT = tuple(itemgetter(*(4 * ((c + e * r) % 4) + r for c in range(4) for r in range(4))) for e in range(4))


def sub_bytes(s: bytes) -> bytes:
    return s.translate(_SBOX_BYTES)


def inv_sub_bytes(s: bytes) -> bytes:
    return s.translate(_INV_SBOX_BYTES)


def shift_rows(s: bytes, e: int = 1) -> bytes:
    """ShiftRows^e: row r rotates left by e*r columns (negative e shifts right)."""
    return bytes(_SHIFT[e % 4](s))


def _mix_columns_tables(coefficients: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """MixColumns as 16 tables, one per state byte: what byte i with value v contributes
    to the whole state, as a 128-bit big-endian integer. Output byte r of a column is
    sum_k coefficients[k] * s[(r + k) % 4], so s[row] enters output r with
    coefficients[(row - r) % 4]."""
    tables = []
    for i in range(16):
        column, row = divmod(i, 4)
        table = []
        for v in range(256):
            out = bytearray(16)
            for r in range(4):
                out[4 * column + r] = _MUL[coefficients[(row - r) % 4]][v]
            table.append(int.from_bytes(out, "big"))
        tables.append(tuple(table))
    return tuple(tables)


# forward (02 03 01 01) and inverse (0e 0b 0d 09); the models run MixColumns millions of
# times, so each is 16 lookups and XORs rather than 64 byte products
_MIX_TABLES = (_mix_columns_tables((2, 3, 1, 1)), _mix_columns_tables((14, 11, 13, 9)))


def mix_columns(s: bytes, inverse: bool = False) -> bytes:
    """MixColumns (coefficients 02 03 01 01) or its inverse (0e 0b 0d 09) on each column."""
    t = _MIX_TABLES[1 if inverse else 0]
    v = 0
    for i, b in enumerate(s):
        v ^= t[i][b]
    return v.to_bytes(16, "big")


def xor(a: bytes, b: bytes) -> bytes:
    n = min(len(a), len(b))
    return (int.from_bytes(a[:n], "big") ^ int.from_bytes(b[:n], "big")).to_bytes(n, "big")


def encrypt_block(key: bytes, block: bytes) -> bytes:
    rk = expand_key(key)
    nr = len(rk) - 1
    s = xor(block, rk[0])
    for i in range(1, nr):
        s = xor(mix_columns(shift_rows(sub_bytes(s))), rk[i])
    return xor(shift_rows(sub_bytes(s)), rk[nr])


def decrypt_block(key: bytes, block: bytes) -> bytes:
    rk = expand_key(key)
    nr = len(rk) - 1
    s = inv_sub_bytes(shift_rows(xor(block, rk[nr]), -1))
    for i in range(nr - 1, 0, -1):
        s = inv_sub_bytes(shift_rows(mix_columns(xor(s, rk[i]), inverse=True), -1))
    return xor(s, rk[0])
