"""What every hardware-loop emitter shares: the assembled machine code is read back and
must match what was emitted (a misassembled instruction is caught on every ISA whose
binutils are installed), and the model holds each function to its calling convention
(a clobbered callee-saved register is caught)."""

import random
import unittest
from unittest import mock
from pathlib import Path

from aesgen import pipeline, reference
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


# the emitters whose key set-up is one shared assembly file, and an instruction of it to
# turn into another (a wrong round constant)
SHARED_SETKEY = {
    "x86_64_aes": ("\taeskeygenassist $1, ", "\taeskeygenassist $3, "),
    "aarch64_ce": ("\tmov x9, #0x1\n", "\tmov x9, #0x3\n"),
}


class SharedKeySetup(unittest.TestCase):
    FIPS197_LAST = {   # FIPS-197 appendix A: the key, and the last round key it expands to
        128: ("2b7e151628aed2a6abf7158809cf4f3c", "d014f9a8c9ee2589e13f0cc8b6630ca6"),
        192: ("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", "e98ba06f448c773c8ecc720401002202"),
        256: ("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
              "fe4890d1e6188d0b046df344706c631e"),
    }

    def test_every_shared_key_setup_is_covered(self):
        self.assertEqual({n for n, e in EMITTERS.items() if getattr(e, "setkey_file", None)}, set(SHARED_SETKEY))

    def test_fips197_schedules(self):
        for name in SHARED_SETKEY:
            em = EMITTERS[name]
            for fn, bits, order, anchored in em.setkey_file_functions():
                with self.subTest(fn.name):
                    key, last = self.FIPS197_LAST[bits]
                    sched = em.run_setkey(None, fn.code, fn.name, bytes.fromhex(key), order, anchored)
                    if anchored:         # kNr at 16 x 14, then the round loops' starts
                        sched = sched[:16] + sched[240 - 16 * reference.rounds_for(bits):240]
                    if order == "forward":
                        self.assertEqual(sched[-16:].hex(), last)
                    else:                                   # decryption starts from the last key
                        self.assertEqual((sched[:16].hex(), sched[-16:]), (last, bytes.fromhex(key)[:16]))

    def test_a_misassembled_shared_key_setup_is_caught(self):
        renderer = Renderer(pipeline.Paths().templates, pipeline.ROOT)
        for name, (good, bad) in SHARED_SETKEY.items():
            with self.subTest(name):
                em = EMITTERS[name]
                self.assertIn("model runs", em.verify_setkey_assembled(renderer, INCLUDE))   # as generated
                render = em.render_setkey_file
                self.assertIn(good, render(renderer, None))
                with mock.patch.object(em, "render_setkey_file",
                                       lambda r, g, anchored=False: render(r, g, anchored).replace(good, bad, 1)):
                    with self.assertRaisesRegex(ModelError, f"{em.setkey_file}: .* assembled as"):
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
