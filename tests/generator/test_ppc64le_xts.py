"""The POWER8 emitter's XTS loop: every variant has one, the model catches a wrong tweak
product, and the new instructions' meanings give t * x^k."""

import random
import unittest
from pathlib import Path

from aesgen import pipeline, reference_xts
from aesgen.emit import EMITTERS
from aesgen.machine.common import Instr, Memory
from aesgen.machine.ppc64le import R, V, Machine, parse
from aesgen.model import ModelError
from aesgen.regplan import PlanError

NAMES = [f"aes{bits}_{d}__ppc64le_power8_x8" for bits in (128, 256) for d in ("enc", "dec")]


def built(name):
    # the targets as described, without tuned profiles
    _, variants = pipeline.load(pipeline.Paths(profiles=Path("/nonexistent/aesgen-profiles")))
    v = next(x for x in variants if x.name == name)
    em = EMITTERS[v.target.emitter]
    return em, em.build(v)


def xts_fn(b):
    return next(f for f in b.functions if f.mode == "xts")


def times_x(k):
    """The loop's product: v2 = v0 * x^k with the 0x87 constant in v1, scratch v3."""
    s, q, t, poly = V(3), V(2), V(0), V(1)
    return [Instr("vspltisb", (s, -k)), Instr("vsrd", (s, t, s)), Instr("vpmsumd", (q, s, poly)),
            Instr("vsldoi", (q, q, s, 8)), Instr("vspltisb", (s, k)), Instr("vsld", (s, t, s)),
            Instr("vxor", (q, s, q))]


def power(t, k):
    for _ in range(k):
        t = reference_xts.mul_alpha(t)
    return t


class XtsLoop(unittest.TestCase):
    def _run_xts(self, em, b, code, count=17, in_place=False):
        key = bytes(range(b.variant.key_bits // 8))
        em._run(b, xts_fn(b), code, (key, em.schedule_bytes(b, key)), count, in_place, random.Random(7))

    def test_every_ppc64le_variant_has_an_xts_loop(self):
        for name in NAMES:
            em, b = built(name)
            self.assertEqual([f.mode for f in b.functions][-1], "xts", name)
            self.assertEqual(b.omitted, [])
            self._run_xts(em, b, xts_fn(b).code, in_place=True)

    def test_xts_temporaries_live_in_every_phase(self):
        em, b = built("aes128_enc__ppc64le_power8_x8")
        need = em.need(b.variant.target, "xts", "enc", 8, 128)
        self.assertEqual((need.data, need.aux, need.temps, need.temp_phase), (8, 3, 1, "all"))
        with self.assertRaises(PlanError):    # nothing to borrow from
            em._plan(b.variant.target, 8, "xts", 128, "borrow", "enc")

    def test_a_wrong_shift_count_is_caught(self):
        em, b = built("aes128_enc__ppc64le_power8_x8")
        code = xts_fn(b).code
        self._run_xts(em, b, code)
        for sign in (1, -1):
            # the count of vector 3's tweak (x^3), left or right, one off
            i = next(i for i, ins in enumerate(code) if ins.op == "vspltisb" and ins.args[1] == 3 * sign)
            bad = code[:i] + [Instr("vspltisb", (code[i].args[0], 4 * sign))] + code[i + 1:]
            with self.assertRaisesRegex(ModelError, "reference AES gives"):
                self._run_xts(em, b, bad)

    def test_the_wrong_half_of_the_carries_is_caught(self):
        for name in ("aes128_enc__ppc64le_power8_x8", "aes256_dec__ppc64le_power8_x8"):
            em, b = built(name)
            code = xts_fn(b).code
            # carries swapped: the high half's times 0x87 into the high half, the low half's into the low
            bad = [Instr("vsldoi", (i.args[0], i.args[2], i.args[1], 8), i.key, i.note)
                   if i.op == "vsldoi" and i.args[3] == 8 else i for i in code]
            self.assertNotEqual(bad, code)
            with self.assertRaisesRegex(ModelError, "reference AES gives"):
                self._run_xts(em, b, bad)
            # 0x87 in doubleword 0: the multiply picks up the low half's carries instead
            i = next(i for i, ins in enumerate(code) if ins.op == "vsldoi" and ins.args[3] == 1) + 1
            poly = code[i - 1].args[0]
            bad = code[:i] + [Instr("vsldoi", (poly, poly, poly, 8))] + code[i:]
            with self.assertRaisesRegex(ModelError, "reference AES gives"):
                self._run_xts(em, b, bad)

    def test_a_tweak_not_parked_in_the_output_is_caught(self):
        em, b = built("aes256_enc__ppc64le_power8_x8")
        code = xts_fn(b).code
        i = next(i for i, ins in enumerate(code) if ins.op == "stxvd2x" and "parked" in ins.note)
        with self.assertRaisesRegex(ModelError, "reference AES gives"):
            self._run_xts(em, b, code[:i] + code[i + 1:])

    def test_the_tweak_left_in_iv_is_checked(self):
        em, b = built("aes128_dec__ppc64le_power8_x8")
        code = xts_fn(b).code
        i = next(i for i, ins in enumerate(code) if ins.op == "stxvd2x" and "next block" in ins.note)
        with self.assertRaisesRegex(ModelError, "IV after"):
            self._run_xts(em, b, code[:i] + code[i + 1:])

    def test_shift_and_vpmsumd_semantics(self):
        """In the loop's register layout (as lxvd2x loads 16 bytes), the loop's constant
        set-up and product sequence give t * x^k; stxvd2x writes it back as bytes."""
        rng = random.Random(3)
        setup = [Instr("vspltisb", (V(4), 15)), Instr("vspltisb", (V(5), 7)), Instr("vrlb", (V(4), V(4), V(5))),
                 Instr("vxor", (V(1), V(1), V(1))), Instr("vsldoi", (V(1), V(1), V(4), 1))]
        for k in range(1, 16):
            for t in (rng.randbytes(16), b"\xff" * 16, bytes(15) + b"\x80", b"\x00" * 7 + b"\x80" + bytes(8)):
                mem = Memory()
                src = mem.add("t", t)
                dst = mem.add("out", bytes(16))
                m = Machine(mem, "t")
                m.set_gpr("r3", src)
                m.set_gpr("r4", dst)
                for ins in [Instr("li", (R(0), 0)), Instr("lxvd2x", (V(0), R(3), R(0)))] + setup + times_x(k) \
                        + [Instr("stxvd2x", (V(2), R(4), R(0)))]:
                    m.step(ins)
                self.assertEqual(m.vector(1), bytes(15) + b"\x87")
                self.assertEqual(mem.bytes_of("out"), power(t, k), f"x^{k} of {t.hex()}")

    def test_new_ops_read_back_from_objdump(self):
        self.assertEqual(parse(0, "vpmsumd v1,v11,v10"), Instr("vpmsumd", (V(1), V(11), V(10))))
        self.assertEqual(parse(0, "vsld    v11,v9,v11"), Instr("vsld", (V(11), V(9), V(11))))
        self.assertEqual(parse(0, "vsrd    v11,v9,v11"), Instr("vsrd", (V(11), V(9), V(11))))
        self.assertEqual(parse(0, "vrlb    v11,v11,v0"), Instr("vrlb", (V(11), V(11), V(0))))
        self.assertEqual(parse(0, "vspltisb v11,-8"), Instr("vspltisb", (V(11), -8)))


if __name__ == "__main__":
    unittest.main()
