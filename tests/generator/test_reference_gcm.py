"""The reference GHASH and GCM against published answers: the McGrew-Viega test cases
of the GCM specification (which NIST's SP 800-38D validation reuses) and, where the
vector folder is present, a sample of every section of the NIST CAVP GCM files (every
IV, AAD, text and tag length, the FAIL cases of the decryption files included)."""

import os
import unittest
from pathlib import Path

from aesgen import pipeline, reference_gcm as gcm

VECTORS = Path(os.environ.get("AESGEN_VECTORS_DIR") or pipeline.ROOT.parent / "shared" / "vectors")
REQUIRE = os.environ.get("AESGEN_REQUIRE_VECTORS", "").upper() in ("ON", "1", "TRUE", "YES")
PER_SECTION = 2           # vectors checked per [Keylen, IVlen, PTlen, AADlen, Taglen] section


def cavp(path: Path):
    """(section, record) pairs of a CAVP .rsp file."""
    section, record = {}, {}
    for line in path.read_text().splitlines() + [""]:
        line = line.strip()
        if line.startswith("["):
            name, _, value = line.strip("[]").partition(" = ")
            section[name] = value
        elif "=" in line:
            k, _, v = line.partition("=")
            record[k.strip()] = v.strip()
        elif line == "FAIL":
            record["FAIL"] = True
        elif not line and "Count" in record:
            yield dict(section), record
            record = {}


class KnownAnswers(unittest.TestCase):
    def test_mcgrew_viega_cases(self):
        k0 = bytes(16)
        # test case 1: empty message
        self.assertEqual(gcm.encrypt(k0, bytes(12), b"")[1].hex(), "58e2fccefa7e3061367f1d57a4e7455a")
        # test case 2: one zero block; H and the ciphertext
        self.assertEqual(gcm.hash_key(k0).hex(), "66e94bd4ef8a2c3b884cfa59ca342b2e")
        ct, tag = gcm.encrypt(k0, bytes(12), bytes(16))
        self.assertEqual((ct.hex(), tag.hex()),
                         ("0388dace60b6a392f328c2b971b2fe78", "ab6e47d42cec13bdf53a67b21257bddf"))
        # test case 4: AAD, a partial last block
        key = bytes.fromhex("feffe9928665731c6d6a8f9467308308")
        pt = bytes.fromhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                           "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
        aad = bytes.fromhex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        ct, tag = gcm.encrypt(key, bytes.fromhex("cafebabefacedbaddecaf888"), pt, aad)
        self.assertEqual(tag.hex(), "5bc94fbc3221a5db94fae95ae7121a47")
        self.assertEqual(ct[:16].hex(), "42831ec2217774244b7221b784d0d49c")
        # test case 6: a 60-byte IV (J0 through GHASH)
        iv = bytes.fromhex("9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728"
                           "c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b")
        ct, tag = gcm.encrypt(key, iv, pt, aad)
        self.assertEqual(tag.hex(), "619cc5aefffe0bfa462af43c1699d050")
        self.assertEqual(gcm.decrypt(key, iv, ct, aad, tag), pt)
        self.assertIsNone(gcm.decrypt(key, iv, ct, aad[:-1] + b"\x00", tag))

    def test_inc32_wraps_without_carry(self):
        self.assertEqual(gcm.inc32(bytes(12) + b"\xff" * 4), bytes(16))
        self.assertEqual(gcm.inc32(b"\x01" * 12 + b"\xff" * 4), b"\x01" * 12 + bytes(4))

    def test_limits(self):
        for bad in (lambda: gcm.encrypt(bytes(16), b"", b""), lambda: gcm.encrypt(bytes(16), bytes(12), b"", b"", 7)):
            with self.assertRaises(ValueError):
                bad()


class Cavp(unittest.TestCase):
    def setUp(self):
        if not (VECTORS / "nist-cavp" / "gcm").is_dir():
            if REQUIRE:
                self.fail(f"no GCM vectors at {VECTORS}")
            self.skipTest(f"no GCM vectors at {VECTORS}")

    def test_every_section_of_every_file(self):
        checked = fails = 0
        for path in sorted((VECTORS / "nist-cavp" / "gcm").glob("*.rsp")):
            seen: dict = {}
            for section, r in cavp(path):
                key_id = tuple(sorted(section.items()))
                if seen.get(key_id, 0) >= PER_SECTION:
                    continue
                seen[key_id] = seen.get(key_id, 0) + 1
                key, iv, aad = (bytes.fromhex(r[k]) for k in ("Key", "IV", "AAD"))
                tag, ct = bytes.fromhex(r["Tag"]), bytes.fromhex(r["CT"])
                if "Encrypt" in path.name:
                    pt = bytes.fromhex(r["PT"])
                    self.assertEqual(gcm.encrypt(key, iv, pt, aad, len(tag)), (ct, tag), f"{path.name} {r['Count']}")
                elif r.get("FAIL"):
                    self.assertIsNone(gcm.decrypt(key, iv, ct, aad, tag), f"{path.name} {r['Count']}")
                    fails += 1
                else:
                    self.assertEqual(gcm.decrypt(key, iv, ct, aad, tag), bytes.fromhex(r["PT"]))
                checked += 1
        self.assertGreater(checked, 1000)
        self.assertGreater(fails, 50)


if __name__ == "__main__":
    unittest.main()
