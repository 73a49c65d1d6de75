"""The reference AES against FIPS-197 appendix C, and the circuits against it."""

import unittest

from aesgen import reference
from aesgen.algorithm import circuits

# FIPS-197 appendix C: plaintext 00112233..ff, key 000102.. of each size.
FIPS197 = {
    128: "69c4e0d86a7b0430d8cdb78070b4c55a",
    192: "dda97ca4864cdfe06eaf70a0ec0d7191",
    256: "8ea2b7ca516745bfeafc49904b496089",
}
PLAINTEXT = bytes.fromhex("00112233445566778899aabbccddeeff")


class ReferenceAES(unittest.TestCase):
    def test_fips197_appendix_c(self):
        for bits, ct in FIPS197.items():
            key = bytes(range(bits // 8))
            self.assertEqual(reference.encrypt_block(key, PLAINTEXT).hex(), ct, bits)
            self.assertEqual(reference.decrypt_block(key, bytes.fromhex(ct)), PLAINTEXT, bits)

    def test_fips197_appendix_a1_key_expansion(self):
        key = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
        self.assertEqual(reference.expand_key(key)[10].hex(), "d014f9a8c9ee2589e13f0cc8b6630ca6")

    def test_sbox_known_values(self):
        self.assertEqual(reference.SBOX[0x00], 0x63)
        self.assertEqual(reference.SBOX[0x53], 0xED)   # FIPS-197 section 5.1.1 example
        self.assertEqual(sorted(reference.SBOX), list(range(256)))

    def test_bad_key_size(self):
        with self.assertRaises(ValueError):
            reference.expand_key(bytes(20))


class Circuits(unittest.TestCase):
    def test_sizes(self):
        self.assertEqual((len(circuits.load("bp113").gates), circuits.load("bp113").and_count), (113, 32))
        self.assertEqual((len(circuits.load("cmt121").gates), circuits.load("cmt121").and_count), (121, 34))

    def test_unfolded_circuits_are_the_true_sboxes(self):
        fwd, inv = circuits.load("bp113"), circuits.load("cmt121")
        for x in range(256):
            self.assertEqual(fwd.evaluate(x, fold_constants=False), reference.SBOX[x])
            self.assertEqual(inv.evaluate(x, fold_constants=False), reference.INV_SBOX[x])

    def test_mistyped_gate_is_caught(self):
        text = (circuits._DIR / "sbox_bp113.slp").read_text().replace("t2 = y12 & y15", "t2 = y12 ^ y15")
        bad = circuits.parse("bp113", text)
        self.assertTrue(any(bad.evaluate(x) != reference.SBOX[x] ^ 0x63 for x in range(256)))

    def test_parse_errors(self):
        with self.assertRaisesRegex(circuits.CircuitError, "used before it is defined"):
            circuits.parse("x", "inputs a b c d e f g h\noutputs a b c d e f g h\nq = a ^ zz\n")
        with self.assertRaisesRegex(circuits.CircuitError, "cannot parse"):
            circuits.parse("x", "inputs a b c d e f g h\nq = a + b\n")


if __name__ == "__main__":
    unittest.main()
