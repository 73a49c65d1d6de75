"""GHASH as programs: the set-up and update programs against the reference GHASH for
every aggregation factor, the model's carry-less multiply and byte swap against their
definitions, a wrong reduction constant caught, and the portable printer leaving out
exactly the lanes nothing reads."""

import random
import unittest

from aesgen import reference_gcm
from aesgen.algorithm import ghash
from aesgen.emit.c_ghash import _live_lanes, pair_statements
from aesgen.ir import Memory, Op, Program
from aesgen.model import clmul64, execute


def run_ghash(n, h, y, data, update=None):
    table = {"h": bytearray(h), "htable": bytearray(16 * n)}
    execute(ghash.setkey(n), table)
    state = {"y": bytearray(y), "data": bytearray(data), "htable": table["htable"]}
    execute(update or ghash.update(n), state)
    return bytes(state["y"])


class Programs(unittest.TestCase):
    def test_every_aggregation_factor_matches_the_reference(self):
        rng = random.Random(11)
        for n in (1, 2, 3, 4, 6, 8, 16):
            for _ in range(3):
                h, y, data = rng.randbytes(16), rng.randbytes(16), rng.randbytes(16 * n)
                self.assertEqual(run_ghash(n, h, y, data), reference_gcm.ghash(h, data, y), n)

    def test_wide_vectors_match_the_reference(self):
        # ymm (2 blocks per vector) and zmm (4): the blocks' results summed after the reduction
        rng = random.Random(12)
        for width in (2, 4):
            for n in (width, 2 * width, 16):
                prog = ghash.update(n, width)
                self.assertEqual(prog.lanes, 2 * width)
                self.assertEqual(prog.count("clmul"), 4 * n // width)
                h, y, data = rng.randbytes(16), rng.randbytes(16), rng.randbytes(16 * n)
                self.assertEqual(run_ghash(n, h, y, data, prog), reference_gcm.ghash(h, data, y), (n, width))
        with self.assertRaises(ValueError):
            ghash.update(6, 4)

    def test_one_block_loads_and_stores_on_wide_vectors(self):
        prog = Program("p", 64, (Memory("y", "bytes", 16, True), Memory("m", "bytes", 32, True)), lanes=4)
        prog.ops += [Op("vld128", "a", ("y", 0)), Op("vld", "b", ("m", 0)), Op("xor", "c", ("a", "b")),
                     Op("vst", None, ("m", 0, "c")), Op("vst128", None, ("y", 0, "b"))]
        y, m = random.Random(6).randbytes(16), random.Random(7).randbytes(32)
        mem = {"y": bytearray(y), "m": bytearray(m)}
        execute(prog, mem)
        self.assertEqual(bytes(mem["m"]), bytes(a ^ b for a, b in zip(y, m[:16])) + m[16:])  # upper block zero
        self.assertEqual(bytes(mem["y"]), m[:16])

    def test_a_wrong_reduction_constant_is_caught(self):
        prog = ghash.update(4)
        k = next(i for i, op in enumerate(prog.ops) if op.code == "shl" and op.args[1] == 57)
        prog.ops[k] = Op("shl", prog.ops[k].dst, (prog.ops[k].args[0], 56))
        rng = random.Random(2)
        h, y, data = rng.randbytes(16), rng.randbytes(16), rng.randbytes(64)
        self.assertNotEqual(run_ghash(4, h, y, data, prog), reference_gcm.ghash(h, data, y))

    def test_clmul_and_bswap_in_the_model(self):
        self.assertEqual(clmul64(0b11, 0b11), 0b101)
        self.assertEqual(clmul64((1 << 64) - 1, 2), ((1 << 64) - 1) << 1)
        prog = Program("p", 64, (Memory("m", "bytes", 32, True),), lanes=2)
        prog.ops += [Op("vld", "a", ("m", 0)), Op("vld", "b", ("m", 16)),
                     Op("clmul", "c", ("a", "b", 0x10)), Op("bswap", "d", ("a",)),
                     Op("vst", None, ("m", 0, "c")), Op("vst", None, ("m", 16, "d"))]
        a, b = random.Random(4).randbytes(16), random.Random(5).randbytes(16)
        mem = {"m": bytearray(a + b)}
        execute(prog, mem)
        want = clmul64(int.from_bytes(a[:8], "little"), int.from_bytes(b[8:], "little"))
        self.assertEqual(bytes(mem["m"][:16]), want.to_bytes(16, "little"))
        self.assertEqual(bytes(mem["m"][16:]), a[::-1])


class PortablePrinter(unittest.TestCase):
    def test_unread_lanes_are_left_out(self):
        prog = ghash.update(1)
        live = _live_lanes(prog)
        lines = pair_statements(prog)
        # the reduction's first fold reads only the low word of its shifts
        folds = [op.dst for op in prog.ops if op.code == "shl" and op.args[1] == 63][:1]
        self.assertTrue(folds)
        self.assertIn((folds[0], 0), live)
        self.assertNotIn((folds[0], 1), live)
        self.assertFalse(any(f"{folds[0]}_hi =" in line for line in lines))
        self.assertTrue(any("aesgen_clmul64(" in line for line in lines))


if __name__ == "__main__":
    unittest.main()
