"""Reference GHASH and GCM (NIST SP 800-38D), bit by bit: the oracle every GHASH and GCM
program is checked against. Written for clarity, not speed, straight from the standard's
algorithms (the multiplication is its Algorithm 1), on the reference AES.

Blocks are 16-byte strings; as field elements they are read big-endian, and bit 0 of the
block (the most significant bit of byte 0) is the coefficient of x^0 (the standard's
"backwards" convention).
"""

from __future__ import annotations

from . import reference

R = 0xE1 << 120               # x^128 = x^7 + x^2 + x + 1, in the backwards bit order
TAG_BYTES = (16, 15, 14, 13, 12, 8, 4)
MAX_PLAINTEXT_BYTES = (1 << 36) - 32      # 2^39 - 256 bits


def gf128_mul(x: int, y: int) -> int:
    """x * y in GF(2^128), SP 800-38D Algorithm 1 (elements as 128-bit integers)."""
    z, v = 0, y
    for i in range(127, -1, -1):          # bit 0 of the block first: the integer's top bit
        if x >> i & 1:
            z ^= v
        v = (v >> 1) ^ R if v & 1 else v >> 1
    return z


def ghash(h: bytes, data: bytes, y: bytes = bytes(16)) -> bytes:
    """GHASH_H over whole blocks, continuing from y."""
    if len(data) % 16:
        raise ValueError("GHASH takes whole blocks")
    hh, acc = int.from_bytes(h, "big"), int.from_bytes(y, "big")
    for i in range(0, len(data), 16):
        acc = gf128_mul(acc ^ int.from_bytes(data[i:i + 16], "big"), hh)
    return acc.to_bytes(16, "big")


def pad16(data: bytes) -> bytes:
    return data + bytes(-len(data) % 16)


def lengths_block(aad_bytes: int, text_bytes: int) -> bytes:
    return (8 * aad_bytes).to_bytes(8, "big") + (8 * text_bytes).to_bytes(8, "big")


def hash_key(key: bytes) -> bytes:
    return reference.encrypt_block(key, bytes(16))


def j0(h: bytes, iv: bytes) -> bytes:
    """The pre-counter block: IV || 0^31 || 1 for a 96-bit IV, else GHASH of the padded IV
    and its bit length."""
    if not iv:
        raise ValueError("the IV must not be empty")
    if len(iv) == 12:
        return iv + b"\x00\x00\x00\x01"
    return ghash(h, pad16(iv) + bytes(8) + (8 * len(iv)).to_bytes(8, "big"))


def inc32(block: bytes) -> bytes:
    """Increment the low 32 bits mod 2^32; the other 96 bits do not change."""
    return block[:12] + ((int.from_bytes(block[12:], "big") + 1) % (1 << 32)).to_bytes(4, "big")


def gctr(key: bytes, icb: bytes, data: bytes) -> bytes:
    out, cb = bytearray(), icb
    for i in range(0, len(data), 16):
        chunk = data[i:i + 16]
        out += reference.xor(chunk, reference.encrypt_block(key, cb)[:len(chunk)])
        cb = inc32(cb)
    return bytes(out)


def _tag(key: bytes, h: bytes, pre: bytes, aad: bytes, ct: bytes, tag_bytes: int) -> bytes:
    s = ghash(h, pad16(aad) + pad16(ct) + lengths_block(len(aad), len(ct)))
    return reference.xor(reference.encrypt_block(key, pre), s)[:tag_bytes]


def _check(iv: bytes, text: bytes, tag_bytes: int) -> None:
    if tag_bytes not in TAG_BYTES:
        raise ValueError(f"tag of {tag_bytes} bytes (SP 800-38D: {', '.join(map(str, TAG_BYTES))})")
    if len(text) > MAX_PLAINTEXT_BYTES:
        raise ValueError("more than 2^39 - 256 bits under one IV")
    if not iv:
        raise ValueError("the IV must not be empty")


def encrypt(key: bytes, iv: bytes, plaintext: bytes, aad: bytes = b"", tag_bytes: int = 16) -> tuple[bytes, bytes]:
    """(ciphertext, tag) of GCM-AE."""
    _check(iv, plaintext, tag_bytes)
    h = hash_key(key)
    pre = j0(h, iv)
    ct = gctr(key, inc32(pre), plaintext)
    return ct, _tag(key, h, pre, aad, ct, tag_bytes)


def decrypt(key: bytes, iv: bytes, ciphertext: bytes, aad: bytes, tag: bytes) -> bytes | None:
    """The plaintext of GCM-AD, or None when the tag does not authenticate."""
    _check(iv, ciphertext, len(tag))
    h = hash_key(key)
    pre = j0(h, iv)
    if _tag(key, h, pre, aad, ciphertext, len(tag)) != tag:
        return None
    return gctr(key, inc32(pre), ciphertext)
