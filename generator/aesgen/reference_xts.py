"""Reference XTS-AES (IEEE 1619-2007, NIST SP 800-38E): the oracle the XTS code is checked
against. Written for clarity, not speed, straight from the standard's procedures
(5.3.1 XTS-AES-blockEnc, 5.3.2 XTS-AES-Enc with ciphertext stealing, 5.4 the decryption),
on the reference AES.

A key is key1 || key2, 32 bytes (XTS-AES-128) or 64 (XTS-AES-256): key1 encrypts the
data, key2 the tweak. The tweak i is 16 bytes; its encryption T = E_key2(i) is multiplied
by alpha^j for block j. As field elements, 16-byte strings are read little-endian (the
standard's convention, the opposite of GCM's): byte 0 holds the coefficients of
x^0..x^7, bit 7 of byte 15 that of x^127, and x^128 = x^7 + x^2 + x + 1.
"""

from __future__ import annotations

from . import reference

KEY_BYTES = (32, 64)
MIN_UNIT_BYTES = 16
MAX_UNIT_BYTES = 1 << 24          # 2^20 blocks per data unit (SP 800-38E)
POLY = 0x87                       # x^7 + x^2 + x + 1, what x^128 reduces to
MASK128 = (1 << 128) - 1


def mul_alpha(t: bytes) -> bytes:
    """t * alpha (alpha = x) in GF(2^128): shift the little-endian 128-bit integer left by
    one; if the bit shifted out of x^127 was set, XOR 0x87 into byte 0 (IEEE 1619 5.2)."""
    if len(t) != 16:
        raise ValueError(f"a tweak is 16 bytes, not {len(t)}")
    v = int.from_bytes(t, "little")
    v = ((v << 1) & MASK128) ^ (POLY if v >> 127 else 0)
    return v.to_bytes(16, "little")


def tweak_of_sector(n: int) -> bytes:
    """The tweak of data unit (sector) n: n as a 16-byte little-endian number, as
    dm-crypt's plain64 (and the standard's data unit sequence number) encodes it."""
    if not 0 <= n < 1 << 128:
        raise ValueError(f"a sector number is 0 .. 2^128 - 1, not {n}")
    return n.to_bytes(16, "little")


def split_key(key: bytes) -> tuple[bytes, bytes]:
    """(key1, key2), after checking the length and that the halves differ."""
    if len(key) not in KEY_BYTES:
        raise ValueError(f"an XTS key is 32 or 64 bytes (key1 || key2), not {len(key)}")
    half = len(key) // 2
    key1, key2 = key[:half], key[half:]
    if key1 == key2:
        raise ValueError("the two halves of the XTS key are equal (key1 must differ from key2)")
    return key1, key2


def _check(tweak: bytes, data: bytes) -> None:
    if len(tweak) != 16:
        raise ValueError(f"the tweak is 16 bytes, not {len(tweak)}")
    if not MIN_UNIT_BYTES <= len(data) <= MAX_UNIT_BYTES:
        raise ValueError(f"a data unit is 16 .. 2^24 bytes, not {len(data)}")


def _tweaks(key2: bytes, tweak: bytes, n: int) -> list[bytes]:
    """T * alpha^j for j = 0 .. n-1, T = E_key2(tweak)."""
    t = reference.encrypt_block(key2, tweak)
    out = []
    for _ in range(n):
        out.append(t)
        t = mul_alpha(t)
    return out


def _block(cipher, key1: bytes, t: bytes, block: bytes) -> bytes:
    """XTS-AES-blockEnc (or -blockDec): CC = E_key1(P xor T) xor T."""
    return reference.xor(cipher(key1, reference.xor(block, t)), t)


def encrypt(key: bytes, tweak: bytes, data: bytes) -> bytes:
    """XTS-AES-Enc of one data unit (IEEE 1619-2007 5.3.2)."""
    key1, key2 = split_key(key)
    _check(tweak, data)
    m, b = divmod(len(data), 16)          # m full blocks, a partial block of b bytes
    ts = _tweaks(key2, tweak, m + (b > 0))
    blocks = [data[16 * j:16 * j + 16] for j in range(m)]
    out = [_block(reference.encrypt_block, key1, ts[j], blocks[j]) for j in range(m)]
    if b:
        # ciphertext stealing: the last full block's ciphertext CC gives its first b bytes
        # as the final partial block C_m; its other 16-b bytes pad P_m, and that encrypts
        # under the next tweak into block m-1
        cc = out[m - 1]
        pp = data[16 * m:] + cc[b:]
        out[m - 1] = _block(reference.encrypt_block, key1, ts[m], pp)
        out.append(cc[:b])
    return b"".join(out)


def decrypt(key: bytes, tweak: bytes, data: bytes) -> bytes:
    """XTS-AES-Dec of one data unit (IEEE 1619-2007 5.4.2): as encryption, except that with
    stealing block m-1 is decrypted under tweak m and the reassembled block under m-1."""
    key1, key2 = split_key(key)
    _check(tweak, data)
    m, b = divmod(len(data), 16)
    ts = _tweaks(key2, tweak, m + (b > 0))
    blocks = [data[16 * j:16 * j + 16] for j in range(m)]
    if not b:
        return b"".join(_block(reference.decrypt_block, key1, ts[j], blocks[j]) for j in range(m))
    out = [_block(reference.decrypt_block, key1, ts[j], blocks[j]) for j in range(m - 1)]
    pp = _block(reference.decrypt_block, key1, ts[m], blocks[m - 1])     # the swapped tweaks
    cc = data[16 * m:] + pp[b:]
    out.append(_block(reference.decrypt_block, key1, ts[m - 1], cc))
    out.append(pp[:b])
    return b"".join(out)


def _sectors(fn, key: bytes, sector: int, unit_len: int, data: bytes) -> bytes:
    split_key(key)
    if not MIN_UNIT_BYTES <= unit_len <= MAX_UNIT_BYTES:
        raise ValueError(f"a data unit is 16 .. 2^24 bytes, not {unit_len}")
    if len(data) % unit_len:
        raise ValueError(f"{len(data)} bytes is not a whole number of {unit_len}-byte units")
    count = len(data) // unit_len
    if sector < 0 or count and sector + count - 1 >= 1 << 64:
        raise ValueError("the sector numbers must lie in 0 .. 2^64 - 1")
    return b"".join(fn(key, tweak_of_sector(sector + i), data[i * unit_len:(i + 1) * unit_len])
                    for i in range(count))


def encrypt_sectors(key: bytes, sector: int, unit_len: int, data: bytes) -> bytes:
    """Consecutive data units of unit_len bytes, unit i under the tweak of sector + i; the
    same as a loop of encrypt calls (as aesgen_xts_encrypt_sectors)."""
    return _sectors(encrypt, key, sector, unit_len, data)


def decrypt_sectors(key: bytes, sector: int, unit_len: int, data: bytes) -> bytes:
    """The inverse of encrypt_sectors."""
    return _sectors(decrypt, key, sector, unit_len, data)
