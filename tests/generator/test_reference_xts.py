"""The reference XTS-AES against published answers: vectors of IEEE 1619-2007 Annex B and,
where the vector folder is present, every byte-granular record of the NIST CAVP XTSGen
files (the records whose DataUnitLen is not a whole number of bytes are counted and
skipped: the reference, like the C API, takes whole bytes). Then the field arithmetic
against an independent bitwise multiply, round trips over every length 16 .. 80, the
structure of ciphertext stealing and the rejected inputs."""

import os
import sys
import unittest
from pathlib import Path

from aesgen import pipeline, reference, reference_xts as xts

VECTORS = Path(os.environ.get("AESGEN_VECTORS_DIR") or pipeline.ROOT.parent / "shared" / "vectors")
REQUIRE = os.environ.get("AESGEN_REQUIRE_VECTORS", "").upper() in ("ON", "1", "TRUE", "YES")

# Records per CAVP file, as read from the CAVS 11.0 files: (run, skipped for a bit length).
# XTSGenAES128: DataUnitLen 128, 200, 256 (twice) run, 130 skipped; XTSGenAES256: 256,
# 384 (twice) run, 140 and 250 skipped. Each half [ENCRYPT], half [DECRYPT].
EXPECTED_RECORDS = {"XTSGenAES128.rsp": (800, 200), "XTSGenAES256.rsp": (600, 400)}


def cavp(path: Path):
    """(section, record) pairs of a CAVP XTSGen .rsp file; section is ENCRYPT or DECRYPT."""
    section, record = None, {}
    for line in path.read_text().splitlines() + [""]:
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif "=" in line and not line.startswith("#"):
            k, _, v = line.partition("=")
            record[k.strip()] = v.strip()
        elif not line and "COUNT" in record:
            yield section, record
            record = {}


# IEEE 1619-2007 Annex B: (key1 || key2, data unit sequence number, PTX, CTX). Vector 1
# (key1 = key2 = 0) is left out: its equal halves are rejected (see test_rejects).
STEALING_KEY = "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0"
ANNEX_B = (
    ("vector 2", "11" * 16 + "22" * 16, 0x3333333333, "44" * 32,
     "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0"),
    ("vector 3", "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0" + "22" * 16, 0x3333333333, "44" * 32,
     "af85336b597afc1a900b2eb21ec949d292df4c047e0b21532186a5971a227a89"),
    ("vector 15", STEALING_KEY, 0x123456789a, "000102030405060708090a0b0c0d0e0f10",
     "6c1625db4671522d3d7599601de7ca09ed"),
    ("vector 16", STEALING_KEY, 0x123456789a, "000102030405060708090a0b0c0d0e0f1011",
     "d069444b7a7e0cab09e24447d24deb1fedbf"),
    ("vector 17", STEALING_KEY, 0x123456789a, "000102030405060708090a0b0c0d0e0f101112",
     "e5df1351c0544ba1350b3363cd8ef4beedbf9d"),
    ("vector 18", STEALING_KEY, 0x123456789a, "000102030405060708090a0b0c0d0e0f10111213",
     "9d84c813f719aa2c7be3f66171c7c5c2edbf9dac"),
)

KEY128 = bytes(range(1, 33))
KEY256 = bytes(range(100, 164))


def bits_of(t: bytes) -> list:
    """Coefficients of x^0 .. x^127: bit k of byte k // 8 (the IEEE 1619 order)."""
    return [t[k // 8] >> (k % 8) & 1 for k in range(128)]


def bytes_of(bits: list) -> bytes:
    return bytes(sum(bits[8 * i + k] << k for k in range(8)) for i in range(16))


def poly_mul(a: list, b: list) -> list:
    """a * b modulo x^128 + x^7 + x^2 + x + 1, schoolbook on coefficient lists."""
    prod = [0] * 255
    for i, ai in enumerate(a):
        if ai:
            for j, bj in enumerate(b):
                prod[i + j] ^= bj
    for d in range(254, 127, -1):         # x^d = x^(d-128) * (x^7 + x^2 + x + 1)
        if prod[d]:
            prod[d] = 0
            for e in (7, 2, 1, 0):
                prod[d - 128 + e] ^= 1
    return prod[:128]


X = [0, 1] + [0] * 126


class AnnexB(unittest.TestCase):
    def test_vectors(self):
        for name, key, dun, ptx, ctx in ANNEX_B:
            with self.subTest(name):
                key, ptx, ctx = bytes.fromhex(key), bytes.fromhex(ptx), bytes.fromhex(ctx)
                tweak = xts.tweak_of_sector(dun)
                self.assertEqual(xts.encrypt(key, tweak, ptx).hex(), ctx.hex())
                self.assertEqual(xts.decrypt(key, tweak, ctx).hex(), ptx.hex())

    def test_sector_tweak_is_little_endian(self):
        self.assertEqual(xts.tweak_of_sector(0x123456789a).hex(), "9a78563412" + "00" * 11)
        self.assertEqual(xts.tweak_of_sector(0), bytes(16))
        self.assertEqual(xts.tweak_of_sector((1 << 128) - 1), b"\xff" * 16)


class Field(unittest.TestCase):
    SAMPLES = [bytes(16), b"\x01" + bytes(15), bytes(15) + b"\x80", b"\xff" * 16,
               bytes.fromhex("00112233445566778899aabbccddeeff"), bytes.fromhex("80" * 16),
               bytes(range(16)), bytes(range(240, 256))]

    def test_mul_alpha_is_multiplication_by_x(self):
        for t in self.SAMPLES + [reference.encrypt_block(KEY128[:16], bytes([i]) * 16) for i in range(32)]:
            self.assertEqual(xts.mul_alpha(t), bytes_of(poly_mul(bits_of(t), X)), t.hex())

    def test_alpha_powers(self):
        # alpha^j by repeated mul_alpha equals x^j by the independent multiply, and
        # alpha^128 = x^7 + x^2 + x + 1, i.e. 0x87 in byte 0
        t = reference.encrypt_block(KEY128[16:], bytes(16))
        a, b = t, bits_of(t)
        for j in range(1, 200):
            a, b = xts.mul_alpha(a), poly_mul(b, X)
            self.assertEqual(a, bytes_of(b), f"alpha^{j}")
        one = b"\x01" + bytes(15)
        for _ in range(128):
            one = xts.mul_alpha(one)
        self.assertEqual(one, b"\x87" + bytes(15))

    def test_carry_reduces_into_byte_0(self):
        self.assertEqual(xts.mul_alpha(bytes(15) + b"\x80"), b"\x87" + bytes(15))
        self.assertEqual(xts.mul_alpha(b"\x80" + bytes(15)), b"\x00\x01" + bytes(14))


class Structure(unittest.TestCase):
    def test_round_trip_every_length(self):
        for key in (KEY128, KEY256):
            for n in range(16, 81):
                with self.subTest(key_bytes=len(key), n=n):
                    tweak = xts.tweak_of_sector(n * 7919)
                    data = bytes((3 * i + n) % 256 for i in range(n))
                    ct = xts.encrypt(key, tweak, data)
                    self.assertEqual(len(ct), n)
                    self.assertNotEqual(ct, data)
                    self.assertEqual(xts.decrypt(key, tweak, ct), data)

    def test_whole_blocks_are_independent_blockenc(self):
        # without stealing, block j is E_key1(P_j xor T_j) xor T_j with T_j = E_key2(i) * alpha^j
        key1, key2 = KEY128[:16], KEY128[16:]
        tweak, data = xts.tweak_of_sector(5), bytes(range(64))
        t = reference.encrypt_block(key2, tweak)
        want = b""
        for j in range(4):
            p = data[16 * j:16 * j + 16]
            want += reference.xor(reference.encrypt_block(key1, reference.xor(p, t)), t)
            t = xts.mul_alpha(t)
        self.assertEqual(xts.encrypt(KEY128, tweak, data), want)

    def test_stealing(self):
        for key in (KEY128, KEY256):
            key1, key2 = key[:len(key) // 2], key[len(key) // 2:]
            for n in (17, 31, 40, 63):
                with self.subTest(key_bytes=len(key), n=n):
                    m, b = divmod(n, 16)
                    tweak = xts.tweak_of_sector(n)
                    data = bytes((5 * i + 1) % 256 for i in range(n))
                    ct = xts.encrypt(key, tweak, data)
                    # the full blocks before the last one are untouched by stealing
                    self.assertEqual(ct[:16 * (m - 1)], xts.encrypt(key, tweak, data[:16 * (m - 1)])
                                     if m > 1 else b"")
                    # C_m is the head of what P_{m-1} encrypts to under tweak m-1, and C_{m-1}
                    # is P_m padded with its tail encrypted under tweak m
                    ts = [reference.encrypt_block(key2, tweak)]
                    for _ in range(m):
                        ts.append(xts.mul_alpha(ts[-1]))
                    cc = reference.xor(reference.encrypt_block(key1, reference.xor(data[16 * (m - 1):16 * m], ts[m - 1])), ts[m - 1])
                    self.assertEqual(ct[16 * m:], cc[:b])
                    pp = data[16 * m:] + cc[b:]
                    self.assertEqual(ct[16 * (m - 1):16 * m],
                                     reference.xor(reference.encrypt_block(key1, reference.xor(pp, ts[m])), ts[m]))
                    # decryption undoes it (it takes the last two tweaks in the swapped order)
                    self.assertEqual(xts.decrypt(key, tweak, ct), data)
                    # one bit of the partial block changes C_{m-1} only: not C_m, not before
                    flipped = bytearray(data)
                    flipped[-1] ^= 1
                    ct2 = xts.encrypt(key, tweak, bytes(flipped))
                    self.assertNotEqual(ct2[16 * (m - 1):16 * m], ct[16 * (m - 1):16 * m])
                    self.assertEqual(ct2[:16 * (m - 1)], ct[:16 * (m - 1)])
                    self.assertEqual(ct2[16 * m:], ct[16 * m:])
                    self.assertEqual(xts.decrypt(key, tweak, ct2), bytes(flipped))

    def test_sectors_are_a_loop_of_units(self):
        for unit in (16, 20, 48):
            data = bytes(i % 251 for i in range(3 * unit))
            sector = (1 << 64) - 3
            ct = xts.encrypt_sectors(KEY128, sector, unit, data)
            want = b"".join(xts.encrypt(KEY128, xts.tweak_of_sector(sector + i), data[i * unit:(i + 1) * unit])
                            for i in range(3))
            self.assertEqual(ct, want)
            self.assertEqual(xts.decrypt_sectors(KEY128, sector, unit, ct), data)
        self.assertEqual(xts.encrypt_sectors(KEY128, 0, 512, b""), b"")

    def test_rejects(self):
        good = (KEY128, bytes(16), bytes(32))
        cases = {
            "key of 16 bytes": (bytes(range(16)), bytes(16), bytes(32)),
            "key of 48 bytes": (bytes(range(48)), bytes(16), bytes(32)),
            "empty key": (b"", bytes(16), bytes(32)),
            "equal halves, 128": (bytes(range(16)) * 2, bytes(16), bytes(32)),
            "equal halves, 256": (bytes(range(32)) * 2, bytes(16), bytes(32)),
            "Annex B vector 1 (all zero key)": (bytes(32), bytes(16), bytes(32)),
            "15 bytes of data": (KEY128, bytes(16), bytes(15)),
            "no data": (KEY128, bytes(16), b""),
            "2^24 + 1 bytes of data": (KEY128, bytes(16), bytes((1 << 24) + 1)),
            "tweak of 8 bytes": (KEY128, bytes(8), bytes(32)),
        }
        for fn in (xts.encrypt, xts.decrypt):
            fn(*good)
            for name, args in cases.items():
                with self.subTest(fn.__name__, case=name), self.assertRaises(ValueError):
                    fn(*args)
        for fn in (xts.encrypt_sectors, xts.decrypt_sectors):
            for name, args in {"unit of 15": (KEY128, 0, 15, bytes(30)),
                               "unit of 2^24 + 1": (KEY128, 0, (1 << 24) + 1, b""),
                               "partial unit": (KEY128, 0, 32, bytes(48)),
                               "past sector 2^64 - 1": (KEY128, (1 << 64) - 1, 16, bytes(32)),
                               "negative sector": (KEY128, -1, 16, bytes(16)),
                               "equal halves": (bytes(64), 0, 16, bytes(16))}.items():
                with self.subTest(fn.__name__, case=name), self.assertRaises(ValueError):
                    fn(*args)
            fn(KEY128, (1 << 64) - 2, 16, bytes(32))        # the last two sectors are fine
        with self.assertRaises(ValueError):
            xts.mul_alpha(bytes(15))
        with self.assertRaises(ValueError):
            xts.tweak_of_sector(-1)


class Cavp(unittest.TestCase):
    def setUp(self):
        if not (VECTORS / "nist-cavp" / "xts").is_dir():
            if REQUIRE:
                self.fail(f"no XTS vectors at {VECTORS}")
            self.skipTest(f"no XTS vectors at {VECTORS}")

    def test_every_byte_granular_record(self):
        for name, (want_run, want_skipped) in EXPECTED_RECORDS.items():
            path = VECTORS / "nist-cavp" / "xts" / name
            run = skipped = 0
            for section, r in cavp(path):
                bits = int(r["DataUnitLen"])
                if bits % 8:
                    skipped += 1
                    continue
                key, tweak = bytes.fromhex(r["Key"]), bytes.fromhex(r["i"])
                pt, ct = bytes.fromhex(r["PT"]), bytes.fromhex(r["CT"])
                self.assertEqual((len(pt), len(ct)), (bits // 8, bits // 8), f"{name} {section} {r['COUNT']}")
                if section == "ENCRYPT":
                    self.assertEqual(xts.encrypt(key, tweak, pt).hex(), ct.hex(), f"{name} {section} {r['COUNT']}")
                elif section == "DECRYPT":
                    self.assertEqual(xts.decrypt(key, tweak, ct).hex(), pt.hex(), f"{name} {section} {r['COUNT']}")
                else:
                    self.fail(f"{name}: a record outside [ENCRYPT] and [DECRYPT]")
                run += 1
            print(f"\n  {name}: {run} records run, {skipped} skipped (DataUnitLen not a whole number of bytes)",
                  end="", file=sys.stderr, flush=True)
            self.assertEqual((run, skipped), (want_run, want_skipped), name)


if __name__ == "__main__":
    unittest.main()
