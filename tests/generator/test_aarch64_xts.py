"""The AArch64 Crypto Extensions XTS loop: its tweak products (ushr/ext/sli and a PMULL2
by 0x86), the new model ops and their objdump reader, and what the model does with a
wrong one."""

import random
import tempfile
import unittest
from pathlib import Path

from aesgen import pipeline, reference_xts
from aesgen.emit import EMITTERS
from aesgen.machine.common import EncodingError, Instr, Memory
from aesgen.model import ModelError

VARIANTS = [f"aes{bits}_{d}__aarch64_ce_x6" for bits in (128, 256) for d in ("enc", "dec")]


def load():
    # the targets as described, without tuned profiles
    _, variants = pipeline.load(pipeline.Paths(profiles=Path("/nonexistent/aesgen-profiles")))
    return variants


def built(name):
    v = next(x for x in load() if x.name == name)
    em = EMITTERS[v.target.emitter]
    return em, em.build(v)


def xts_of(b):
    return next(f for f in b.functions if f.mode == "xts")


def times_x_k(t: bytes, k: int) -> bytes:
    for _ in range(k):
        t = reference_xts.mul_alpha(t)
    return t


class Loop(unittest.TestCase):
    def _run(self, em, b, code, count=17, in_place=False):
        key = bytes(range(b.variant.key_bits // 8))
        em._run(b, xts_of(b), code, (key, em.schedule_bytes(b, key)), count, in_place, random.Random(7))

    def test_every_aarch64_ce_variant_has_an_xts_loop(self):
        names = [v.name for v in load() if v.target.emitter == "aarch64_ce"]
        self.assertEqual(sorted(n for n in names if "aes192" not in n), sorted(VARIANTS))
        for name in (n for n in names if "aes192" in n):     # XTS is AES-128 and AES-256 only
            _, b = built(name)
            self.assertNotIn("xts", [f.mode for f in b.functions], name)
            self.assertTrue(b.omitted[0].startswith("xts: none for AES-192"), name)
        for name in VARIANTS:
            em, b = built(name)
            self.assertEqual(b.functions[-1].mode, "xts", name)
            self.assertEqual(b.omitted, [], name)
            self.assertIn("pmull2", {i.op for i in xts_of(b).code}, name)
            self.assertIn("arm_pmull", b.variant.target.cpu_features)

    def test_the_loop_passes_as_emitted(self):
        em, b = built("aes256_dec__aarch64_ce_x6")     # streamed keys, decryption
        for count in (0, 1, 5, 6, 13):
            for in_place in (False, True):
                self._run(em, b, xts_of(b).code, count, in_place)

    def test_the_wrong_pmull_half_is_caught(self):
        em, b = built("aes128_enc__aarch64_ce_x6")
        code = [Instr("pmull", i.args, i.key, i.note) if i.op == "pmull2" else i for i in xts_of(b).code]
        with self.assertRaisesRegex(ModelError, "reference AES gives"):
            self._run(em, b, code)

    def test_a_wrong_shift_count_is_caught(self):
        em, b = built("aes256_dec__aarch64_ce_x6")
        code = xts_of(b).code
        for op in ("ushr", "sli"):
            i = [n for n, ins in enumerate(code) if ins.op == op][2]    # block 3's tweak
            ins = code[i]
            wrong = ins.args[:2] + (ins.args[2] + 1,)
            with self.subTest(op=op), self.assertRaisesRegex(ModelError, "reference AES gives"):
                self._run(em, b, code[:i] + [Instr(op, wrong, ins.key, ins.note)] + code[i + 1:])

    def test_a_wrong_one_block_step_is_caught(self):
        """The tail's in-place t * x: a left shift by 2 instead of 1 shows in the output
        from the second tail block on."""
        em, b = built("aes128_dec__aarch64_ce_x6")
        code = [Instr("shl", i.args[:2] + (2,), i.key, i.note) if i.op == "shl" else i for i in xts_of(b).code]
        with self.assertRaisesRegex(ModelError, "reference AES gives"):
            self._run(em, b, code, count=2)

    def test_a_tweak_not_written_back_is_caught(self):
        em, b = built("aes128_enc__aarch64_ce_x6")
        code = [i for i in xts_of(b).code if not (i.op == "strq" and "next block" in i.note)]
        self.assertEqual(len(code), len(xts_of(b).code) - 1)
        with self.assertRaisesRegex(ModelError, "IV after"):
            self._run(em, b, code)


class Ops(unittest.TestCase):
    """The model's meaning of the new ops, in the loop's sequences, against mul_alpha."""

    def machine(self, t: bytes):
        from aesgen.machine.aarch64 import Machine
        m = Machine(Memory(), "rk")
        m.v[1] = t
        return m

    def run_ops(self, m, ops):
        from aesgen.machine.aarch64 import X
        m.step(Instr("movx", (X("x11"), 0x86)))
        for ins in ops:
            m.step(ins)

    def test_out_of_place_product_gives_t_times_x_to_the_k(self):
        from aesgen.machine.aarch64 import V, X
        rng = random.Random(3)
        src, dst, s, c = V(1), V(2), V(3), V(4)
        for k in (1, 2, 5, 7, 8, 15, 31, 56):
            for t in (rng.randbytes(16), b"\xff" * 16, bytes(15) + b"\x80", b"\x80" * 16):
                m = self.machine(t)
                self.run_ops(m, [Instr("dup", (c, X("x11"))), Instr("ushr", (s, src, 64 - k)),
                                 Instr("ext", (dst, s, s, 8)), Instr("sli", (dst, src, k)),
                                 Instr("pmull2", (s, s, c)), Instr("eor", (dst, dst, s))])
                self.assertEqual(m.v[dst.n], times_x_k(t, k), f"x^{k} of {t.hex()}")
                self.assertEqual(m.v[src.n], t)

    def test_in_place_step_gives_t_times_x(self):
        from aesgen.machine.aarch64 import V, X
        rng = random.Random(4)
        t_, s, c = V(1), V(3), V(4)
        for t in [rng.randbytes(16) for _ in range(20)] + [b"\xff" * 16, bytes(15) + b"\x80"]:
            m = self.machine(t)
            self.run_ops(m, [Instr("dup", (c, X("x11"))), Instr("ushr", (s, t_, 63)), Instr("shl", (t_, t_, 1)),
                             Instr("ext", (s, s, s, 8)), Instr("eor", (t_, t_, s)),
                             Instr("pmull", (s, s, c)), Instr("eor", (t_, t_, s))])
            self.assertEqual(m.v[t_.n], reference_xts.mul_alpha(t))

    def test_primitive_semantics(self):
        from aesgen.machine.aarch64 import V, X, clmul64
        m = self.machine(bytes(range(16)))
        m.v[2] = bytes(range(16, 32))
        m.step(Instr("ext", (V(5), V(1), V(2), 3)))
        self.assertEqual(m.v[5], bytes(range(3, 19)))
        m.v[6] = (0xFFFF).to_bytes(8, "little") + (1).to_bytes(8, "little")
        m.v[7] = (1 << 63).to_bytes(8, "little") + (3).to_bytes(8, "little")
        m.step(Instr("sli", (V(6), V(7), 4)))      # keeps the destination's low 4 bits
        self.assertEqual(m.v[6], (0xF).to_bytes(8, "little") + (0x31).to_bytes(8, "little"))
        m.step(Instr("ushr", (V(16), V(7), 64)))
        self.assertEqual(m.v[16], bytes(16))
        self.assertEqual(clmul64(0b11, 0b11), 0b101)
        self.assertEqual(clmul64((1 << 64) - 1, 1 << 63), ((1 << 64) - 1) << 63)
        m.x["x12"] = 0x0102030405060708
        m.step(Instr("dup", (V(17), X("x12"))))
        self.assertEqual(m.v[17], bytes(range(8, 0, -1)) * 2)


class Spelling(unittest.TestCase):
    def test_objdump_lines_read_back_as_emitted(self):
        from aesgen.machine.aarch64 import V, X, parse, render
        lines = {
            "mov\tx11, #0x86                  \t// #134": Instr("movx", (X("x11"), 0x86)),
            "dup\tv25.2d, x11": Instr("dup", (V(25), X("x11"))),
            "ushr\tv0.2d, v18.2d, #59": Instr("ushr", (V(0), V(18), 59)),
            "ext\tv19.16b, v0.16b, v0.16b, #8": Instr("ext", (V(19), V(0), V(0), 8)),
            "sli\tv19.2d, v18.2d, #5": Instr("sli", (V(19), V(18), 5)),
            "shl\tv18.2d, v18.2d, #1": Instr("shl", (V(18), V(18), 1)),
            "pmull2\tv0.1q, v0.2d, v25.2d": Instr("pmull2", (V(0), V(0), V(25))),
            "pmull\tv0.1q, v0.1d, v25.1d": Instr("pmull", (V(0), V(0), V(25))),
        }
        for text, ins in lines.items():
            self.assertEqual(parse(0, text), ins, text)
            # and the emitted spelling is the same instruction
            self.assertEqual(parse(0, render(ins).strip()), ins, render(ins))

    def test_another_arrangement_is_not_read_as_ours(self):
        from aesgen.machine.aarch64 import parse
        from aesgen.machine.objdump import DisassemblyError
        for text in ("ushr\tv0.4s, v18.4s, #5", "pmull\tv0.8h, v1.8b, v2.8b", "dup\tv1.2d, v2.d[0]",
                     "ext\tv1.8b, v2.8b, v3.8b, #4"):
            with self.subTest(text=text), self.assertRaises(DisassemblyError):
                parse(0, text)

    def test_unencodable_immediates_are_refused(self):
        from aesgen.machine.aarch64 import V, X, render
        for ins in (Instr("ushr", (V(0), V(1), 0)), Instr("sli", (V(0), V(1), 64)),
                    Instr("ext", (V(0), V(1), V(2), 16)), Instr("movx", (X("x11"), 0x10000))):
            with self.subTest(ins=ins), self.assertRaises(EncodingError):
                render(ins)


class Target(unittest.TestCase):
    def test_a_target_without_pmull_is_refused(self):
        from aesgen.targets import TargetError, load_targets
        with tempfile.TemporaryDirectory() as tmp:
            src = pipeline.ROOT / "generator" / "targets" / "aarch64-ce.toml"
            text = src.read_text().replace('["arm_aes", "arm_pmull"]', '["arm_aes"]')
            self.assertNotIn("arm_pmull", text)
            (Path(tmp) / "aarch64-ce.toml").write_text(text)
            with self.assertRaisesRegex(TargetError, "dispatch.cpu_features: .*arm_pmull"):
                load_targets(Path(tmp), pipeline.ROOT, EMITTERS)


if __name__ == "__main__":
    unittest.main()
