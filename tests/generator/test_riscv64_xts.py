"""The RV64 Zkn XTS loop: present in every variant, its tweak product (shifts and a srai
mask), what the model does with a wrong one, and branches and addresses that only the
block count steers."""

import random
import tempfile
import unittest
from pathlib import Path

from aesgen import pipeline, reference_xts
from aesgen.emit import EMITTERS
from aesgen.machine.common import Instr, Memory
from aesgen.machine.riscv64 import BRANCHES, Machine, X, parse
from aesgen.model import ModelError

NO_PROFILES = Path("/nonexistent/aesgen-profiles")


def riscv_variants(targets=None):
    paths = pipeline.Paths(profiles=NO_PROFILES) if targets is None else \
        pipeline.Paths(targets=targets, profiles=NO_PROFILES)
    _, variants = pipeline.load(paths)
    return [v for v in variants if v.target.emitter == "riscv64_zkn"]


def built(name):
    v = next(x for x in riscv_variants() if x.name == name)
    em = EMITTERS[v.target.emitter]
    return em, em.build(v)


def xts_of(b):
    return next(f for f in b.functions if f.mode == "xts")


class XtsLoop(unittest.TestCase):
    def _run_xts(self, em, b, fn, code, count=5, in_place=False):
        key = bytes(range(b.variant.key_bits // 8))
        em._run(b, fn, code, (key, em.schedule_bytes(b, key)), count, in_place, random.Random(7))

    def test_every_riscv64_variant_has_an_xts_loop(self):
        variants = riscv_variants()
        self.assertEqual(len(variants), 6)
        for v in variants:
            b = EMITTERS[v.target.emitter].build(v)
            if v.key_bits == 192:     # XTS is AES-128 and AES-256 only
                self.assertNotIn("xts", [f.mode for f in b.functions], v.name)
                self.assertTrue(b.omitted[0].startswith("xts: none for AES-192"), v.name)
                continue
            self.assertEqual([f.mode for f in b.functions][-1], "xts", v.name)
            self.assertEqual(b.omitted, [], v.name)

    def test_the_loop_runs_against_the_reference(self):
        for name in ("aes128_enc__riscv64_zkn_x2", "aes256_dec__riscv64_zkn_x2"):
            em, b = built(name)
            fn = xts_of(b)
            for count in (0, 1, 2, 3, 7):
                for in_place in (False, True):
                    self._run_xts(em, b, fn, fn.code, count, in_place)

    def _sabotaged(self, name, change):
        em, b = built(name)
        fn = xts_of(b)
        code = change(list(fn.code))
        self.assertNotEqual(code, fn.code)
        with self.assertRaisesRegex(ModelError, "reference AES gives|IV after"):
            self._run_xts(em, b, fn, code, count=17)   # 17 products: some carry is set (all clear: 2^-17)

    def test_a_wrong_feedback_constant_is_caught(self):
        def change(code):
            return [Instr(i.op, i.args[:2] + (0x07,), i.key, i.note) if i.op == "andi" else i for i in code]
        for name in ("aes128_enc__riscv64_zkn_x2", "aes256_dec__riscv64_zkn_x2"):
            self._sabotaged(name, change)

    def test_a_dropped_carry_between_the_halves_is_caught(self):
        def change(code):
            return [i for i in code if i.op != "or"]
        self._sabotaged("aes128_enc__riscv64_zkn_x2", change)

    def test_a_carry_without_its_mask_is_caught(self):
        # srli leaves 0 or 1, not 0 or all ones: only bit 0 of 0x87 would be fed back
        def change(code):
            return [Instr("srli", i.args, i.key, i.note) if i.op == "srai" else i for i in code]
        self._sabotaged("aes256_enc__riscv64_zkn_x2", change)

    def test_a_dropped_final_tweak_xor_is_caught(self):
        def change(code):   # the last block's tweak XOR, just before the first store to out
            i = next(n for n, x in enumerate(code) if x.op == "sd" and x.args[1] == X("a1")) - 1
            self.assertEqual((code[i].op, code[i].key), ("xor", None))
            return code[:i] + code[i + 1:]
        self._sabotaged("aes128_dec__riscv64_zkn_x2", change)

    def test_only_the_block_count_steers_branches_and_addresses(self):
        """Branches read a3 (the count) or t6, t6 is only sltiu of a3, a3 only counts
        down; loads and stores address through the argument pointers and sp, which only
        step by constants. So no tweak (nor data) bit reaches a branch or an address."""
        count, test = X("a3"), X("t6")
        pointers = {X(r) for r in ("a0", "a1", "a2", "a4", "sp")}
        for v in (v for v in riscv_variants() if v.key_bits != 192):
            fn = xts_of(EMITTERS[v.target.emitter].build(v))
            for ins in fn.code:
                op, a = ins.op, ins.args
                where = f"{fn.name}: {op} {a}"
                if op in BRANCHES and op != "j":
                    self.assertIn(a[0], (count, test), where)
                if op in ("ld", "sd"):
                    self.assertIn(a[1], pointers, where)
                writes = a[0] if op not in ("sd", "label", "ret") + BRANCHES and a else None
                if writes == test:
                    self.assertEqual((op, a[1]), ("sltiu", count), where)
                if writes in pointers | {count}:
                    self.assertEqual((op, a[1]), ("addi", writes), where)
                    self.assertIsInstance(a[2], int, where)

    def test_the_tweak_product_is_mul_alpha(self):
        """The loop's seven instructions give t * x, into other registers or in place."""
        rng = random.Random(3)
        for t in [bytes(16), b"\xff" * 16, bytes(15) + b"\x80", bytes(7) + b"\x80" + bytes(8)] + \
                [rng.randbytes(16) for _ in range(20)]:
            for dst in (("a5", "a6"), ("t1", "t2")):
                m = Machine(Memory(), "rk")
                m.set_gpr("t1", int.from_bytes(t[:8], "little"))
                m.set_gpr("t2", int.from_bytes(t[8:], "little"))
                (dlo, dhi), (slo, shi), (s, c) = (tuple(map(X, p)) for p in (dst, ("t1", "t2"), ("a7", "t0")))
                for ins in (Instr("srai", (s, shi, 63)), Instr("srli", (c, slo, 63)), Instr("slli", (dhi, shi, 1)),
                            Instr("andi", (s, s, 0x87)), Instr("slli", (dlo, slo, 1)), Instr("or", (dhi, dhi, c)),
                            Instr("xor", (dlo, dlo, s))):
                    m.step(ins)
                got = m.gpr(dst[0]).to_bytes(8, "little") + m.gpr(dst[1]).to_bytes(8, "little")
                self.assertEqual(got, reference_xts.mul_alpha(t), (t.hex(), dst))

    def test_objdump_spellings_read_back(self):
        # binutils prints the immediate forms under the register mnemonics
        self.assertEqual(parse(0, "sra\ta5,a6,0x3f"), Instr("srai", (X("a5"), X("a6"), 63)))
        self.assertEqual(parse(0, "srl\tt1,t2,0x3f"), Instr("srli", (X("t1"), X("t2"), 63)))
        self.assertEqual(parse(0, "sll\ta7,t0,0x1"), Instr("slli", (X("a7"), X("t0"), 1)))
        self.assertEqual(parse(0, "and\ta5,a5,135"), Instr("andi", (X("a5"), X("a5"), 0x87)))
        self.assertEqual(parse(0, "srai\ta5,a6,0x3f"), Instr("srai", (X("a5"), X("a6"), 63)))
        self.assertEqual(parse(0, "or\ta7,a7,t1"), Instr("or", (X("a7"), X("a7"), X("t1"))))

    def test_an_interleave_without_room_for_the_tweaks_leaves_xts_out(self):
        with tempfile.TemporaryDirectory() as tmp:
            src = pipeline.ROOT / "generator" / "targets" / "riscv64-zkn.toml"
            text = src.read_text().replace('interleave = ["auto"]', "interleave = [4]")
            self.assertIn("interleave = [4]", text)
            (Path(tmp) / "riscv64-zkn.toml").write_text(text)
            v = next(x for x in riscv_variants(Path(tmp)) if x.direction == "enc")
            b = EMITTERS[v.target.emitter].build(v)
            self.assertEqual([f.mode for f in b.functions], ["ecb", "ctr", "cbc"])
            self.assertRegex(b.omitted[0], r"^xts: no loop \(")


if __name__ == "__main__":
    unittest.main()
