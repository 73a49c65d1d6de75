"""What every hardware-loop emitter shares: the assembled machine code is read back and
must match what was emitted (a misassembled instruction is caught on every ISA whose
binutils are installed), and the model holds each function to its calling convention
(a clobbered callee-saved register is caught)."""

import random
import unittest
from unittest import mock
from pathlib import Path

from aesgen import pipeline
from aesgen.emit import EMITTERS
from aesgen.emit.hwloop import HwLoopEmitter
from aesgen.machine.common import Instr
from aesgen.model import ModelError
from aesgen.render import Renderer

# one variant per hardware ISA, and an AES mnemonic to turn into another
CORRUPT = {
    "aes128_enc__x86_64_vaes512_x8": ("\tvaesenc ", "\tvaesdec "),
    "aes128_enc__aarch64_ce_x6": ("\taese ", "\taesd "),
    "aes192_enc__ppc64le_power8_x8": ("\tvcipher ", "\tvncipher "),
    "aes256_enc__riscv64_zkn_x2": ("\taes64esm ", "\taes64dsm "),
    "aes192_dec__sparc64_t4_x2": ("\taes_dround01 ", "\taes_eround01 "),
}
INCLUDE = pipeline.ROOT / "runtime" / "src"


def built(name):
    _, variants = pipeline.load(pipeline.Paths(profiles=Path("/nonexistent/aesgen-profiles")))
    v = next(x for x in variants if x.name == name)
    em = EMITTERS[v.target.emitter]
    return em, em.build(v)


class Assembled(unittest.TestCase):
    def test_every_hardware_emitter_is_covered(self):
        kinds = {n for n, e in EMITTERS.items() if isinstance(e, HwLoopEmitter)}
        self.assertEqual({built(name)[0].name for name in CORRUPT}, kinds)

    def test_a_misassembled_instruction_is_caught(self):
        renderer = Renderer(pipeline.Paths().templates, pipeline.ROOT)
        for name, (good, bad) in CORRUPT.items():
            with self.subTest(name):
                em, b = built(name)
                files = dict(em.render(b, renderer, "n/a"))
                path = em.outputs(b.variant)[0]
                self.assertIn("model runs", em.verify_assembled(b, files, INCLUDE))   # as generated: passes
                self.assertTrue(good in files[path], f"{good!r} not in {path}")
                files[path] = files[path].replace(good, bad, 1)
                with self.assertRaisesRegex(ModelError, "assembled as"):
                    em.verify_assembled(b, files, INCLUDE)

    def test_a_misassembled_shared_key_setup_is_caught(self):
        renderer = Renderer(pipeline.Paths().templates, pipeline.ROOT)
        em = EMITTERS["x86_64_aes"]
        self.assertIn("model runs", em.verify_setkey_assembled(renderer, INCLUDE))   # as generated: passes
        render = em.render_setkey_file
        good, bad = "\taeskeygenassist $1, ", "\taeskeygenassist $3, "
        self.assertIn(good, render(renderer, None))
        with mock.patch.object(em, "render_setkey_file", lambda r, g: render(r, g).replace(good, bad, 1)):
            with self.assertRaisesRegex(ModelError, "x86_64_aes_setkey.S: .* assembled as"):
                em.verify_setkey_assembled(renderer, INCLUDE)


class CallingConvention(unittest.TestCase):
    # an instruction that writes a register the caller expects back
    CLOBBER = {
        "aes128_enc__aarch64_ce_x6": lambda m: Instr("add", (m.X("x19"), m.X("x19"), 1)),
        "aes192_enc__ppc64le_power8_x8": lambda m: Instr("addi", (m.R(14), m.R(14), 1)),
        "aes256_enc__riscv64_zkn_x2": lambda m: Instr("addi", (m.X("s11"), m.X("s11"), 1)),
    }

    def test_a_clobbered_callee_saved_register_is_caught(self):
        for name, clobber in self.CLOBBER.items():
            with self.subTest(name):
                em, b = built(name)
                fn = next(f for f in b.functions if f.mode == "ecb")
                ret = max(i for i, ins in enumerate(fn.code) if ins.op in ("ret", "blr"))
                code = fn.code[:ret] + [clobber(em.machine)] + fn.code[ret:]
                key = bytes(b.variant.key_bits // 8)
                keyed = (key, em.schedule_bytes(b, key))
                em._run(b, fn, fn.code, keyed, 3, False, random.Random(1))           # as emitted: passes
                with self.assertRaisesRegex(ModelError, "callee-saved register"):
                    em._run(b, fn, code, keyed, 3, False, random.Random(1))


if __name__ == "__main__":
    unittest.main()
