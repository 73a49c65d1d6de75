"""The pieces the software variants share (emit/softshared.py): one key set-up per key
size and layout (around one packing for every key size) and one lane core per parameter
set (one for every key size when rolled and fixsliced), used by the portable variant and
every SIMD variant of those parameters; each checked by the model before it is written
(a wrong program must be caught); no variant file keeps a copy."""

import re
import unittest
from unittest import mock

from aesgen import pipeline
from aesgen.emit import EMITTERS, softshared
from aesgen.model import ModelError
from aesgen.render import Renderer

SOFTWARE = ("c_bitsliced", "c_simd")


def software_variants():
    _, variants = pipeline.load(pipeline.Paths())
    return [v for v in variants if v.target.emitter in SOFTWARE]


class Sharing(unittest.TestCase):
    def test_portable_and_simd_variants_call_one_core_and_one_key_setup(self):
        by_params: dict = {}
        for v in software_variants():
            paths = [s.path for s in EMITTERS[v.target.emitter].shared(v)]
            # a rolled fixsliced SIMD variant also calls the vector core its key sizes share
            shares_vector_core = v.target.emitter == "c_simd" and v.name.endswith("fixslice32_loop4")
            self.assertEqual(len(paths), 5 if shares_vector_core else 4, v.name)
            self.assertTrue(all(p.startswith("common/") for p in paths), paths)
            by_params.setdefault(tuple(paths[:4]), []).append(v)
        # the x86-64 fixslice32 users of AES-128 encryption: the portable variant and
        # the three SIMD ones (SSE2, AVX2, AVX-512), with and without sched-pressure
        users = by_params[("common/aes128_setkey_forward.c", "common/aes128_setkey_fixslice32.c",
                           "common/pack_fixslice32.c", "common/aes128_enc_fixslice32_bp113_core.c")]
        names = {v.name for v in users}
        for name in ("aes128_enc__portable_fixslice32", "aes128_enc__x86_64_sse2_fixslice32",
                     "aes128_enc__x86_64_avx2_fixslice32", "aes128_enc__x86_64_avx512_fixslice32"):
            self.assertIn(name, names)

    def test_generated_variants_declare_and_call_the_shared_symbols_and_keep_no_copy(self):
        root = pipeline.Paths().out
        for v in software_variants():
            args = (v.key_bits, v.direction, v.param("algorithm"),
                    v.param("word_bits") if v.target.emitter == "c_bitsliced" else v.param("lane_bits"),
                    v.target.sections["circuits"]["sbox" if v.direction == "enc" else "inv_sbox"],
                    v.param("unroll", "full"))
            for rel in EMITTERS[v.target.emitter].outputs(v):
                text = (root / rel).read_text()
                setkey = softshared.setkey_symbol(v.key_bits, args[2], args[3])
                core = softshared.core_symbol(*args)
                self.assertIn(f".setkey = {setkey},", text, rel)
                self.assertRegex(text, rf"\b{core}\(rk, ", rel)
                self.assertNotIn(f"{v.name}_setkey(", text, rel)
                self.assertNotIn(f"{v.name}_core1(", text, rel)
                # no S-box left in a variant file: the portable one holds no logic of its own
                if v.target.emitter == "c_bitsliced":
                    self.assertIsNone(re.search(r"\bconst uint(32|64)_t \w+ = \w+ \^ \w+;", text), rel)
            for s in EMITTERS[v.target.emitter].shared(v):
                self.assertTrue((root / s.path).is_file(), s.path)


class Checked(unittest.TestCase):
    def setUp(self):
        self.renderer = Renderer(pipeline.Paths().templates, pipeline.ROOT)

    def test_a_core_for_the_wrong_direction_is_caught(self):
        args = (128, "enc", "fixslice", 64, "bp113", "full")
        wrong = softshared.lane_core(128, "dec", "fixslice", 64, "cmt121", "full")
        with mock.patch.object(softshared, "lane_core", return_value=wrong):
            with self.assertRaises(ModelError):
                softshared.render_core(args, self.renderer, None)

    def test_a_key_setup_for_another_layout_is_caught(self):
        other = softshared.key_programs(128, "bitslice", 64)
        with mock.patch.object(softshared, "key_programs", return_value=other):
            with self.assertRaises(ModelError):
                softshared.render_setkey(128, "fixslice", 64, self.renderer, None)

    def test_rendered_files_name_their_symbol_and_guard(self):
        text = softshared.render_core((192, "dec", "bitslice", 32, "cmt121", "loop4"), self.renderer,
                                      "defined(__x86_64__)")
        self.assertIn("#if defined(__x86_64__)", text)
        self.assertIn("void aesgen_core_aes192_dec_bitslice32_cmt121_loop4(const uint32_t *rk, uint8_t *out, "
                      "const uint8_t *in)\n{", text)
        self.assertIn("for (size_t r", text)   # the rolled form keeps its loop
        text = softshared.render_setkey(256, "fixslice", 32, self.renderer, None)
        self.assertNotIn("#if", text)
        self.assertIn("aesgen_setkey_aes256_forward(rkb, key);", text)
        self.assertIn("aesgen_pack_fixslice32(rk_, rkb, 14);", text)
        self.assertIn("aesgen_memwipe(rkb, sizeof rkb);", text)


if __name__ == "__main__":
    unittest.main()
