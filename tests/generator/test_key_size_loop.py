"""One rolled core for every key size (ir.KeySizeLoop): the fixsliced encryption and
decryption lane cores and the round-key packing run AES-128, -192 and -256 from one
text, the round count an argument. The model runs each key size against the reference
and the straight-line programs; a wrong exit, skip or window is caught; the C names the
round count and nothing else decides the control flow."""

import dataclasses
import random
import unittest

from aesgen.algorithm import aes, circuits
from aesgen.algorithm.bitsliced import Layout
from aesgen.emit import c, keysetup, softshared
from aesgen.ir import Exit, ProgramError, RoundTest, Step, Window, check_key_size_loop
from aesgen.model import ModelError, execute, run, verify_block_cipher
from aesgen.pipeline import Paths, ROOT
from aesgen.render import Renderer

SIZES = (128, 192, 256)
SBOX, INV_SBOX = circuits.load("bp113"), circuits.load("cmt121")


def key_programs(key_bits, word_bits=64):
    return keysetup.programs(key_bits, "forward") + aes.pack_round_keys_any_size(Layout(word_bits), "fixslice")


def cores(word_bits):
    layout = Layout(word_bits)
    return (("enc", aes.fixsliced_encrypt_any_size(layout, SBOX)),
            ("dec", aes.fixsliced_decrypt_any_size(layout, INV_SBOX)))


class Cores(unittest.TestCase):
    def test_every_key_size_runs_through_one_core_against_the_reference(self):
        for bits in (32, 64):
            for direction, core in cores(bits):
                for key_bits in SIZES:
                    verify_block_cipher(f"{direction}{bits}", key_bits, direction, key_programs(key_bits, bits),
                                        core, Layout(bits).blocks, 3, key_bits + bits)

    def test_the_same_work_as_each_key_size_own_rolled_core_from_less_text(self):
        for bits in (32, 64):
            layout = Layout(bits)
            for direction, core in cores(bits):
                for key_bits in SIZES:
                    own = (aes.fixsliced_encrypt(layout, key_bits, SBOX, "loop4") if direction == "enc"
                           else aes.fixsliced_decrypt(layout, key_bits, INV_SBOX, "loop4"))
                    nr = aes.rounds(key_bits)
                    self.assertEqual(core.alu_count(nr), own.alu_count(), (bits, direction, key_bits))
                    self.assertEqual(core.count(nr, "ldw"), own.count("ldw"), (bits, direction, key_bits))
                    self.assertLess(core.static_alu_count(), own.static_alu_count())

    def test_each_key_size_leaves_where_its_rounds_end(self):
        enc = dict(cores(64))["enc"]
        for key_bits, last in ((128, "round1"), (192, "rounds23"), (256, "round1")):
            nr = aes.rounds(key_bits)
            trace = [(s.program.name.rsplit("_", 1)[1], r) for s, r in enc.trace(nr)]
            self.assertEqual([n for n, _ in trace if n not in ("resync", "last")][-1], last, key_bits)
            self.assertEqual(trace[-1], ("last", 0))
            self.assertEqual(("resync", 0) in trace, nr % 4 == 2)
        dec = dict(cores(64))["dec"]
        for key_bits in SIZES:
            nr = aes.rounds(key_bits)
            rounds = [s.program.name.rsplit("_", 1)[1] for s, _ in dec.trace(nr)]
            # rounds nr-1 .. 1, counted from the steps: two, one or one round each
            middle = sum({"rounds32": 2, "round1": 1, "round0": 1}.get(n, 0) for n in rounds)
            self.assertEqual(middle, nr - 1, key_bits)

    def test_a_wrong_exit_skip_or_window_is_caught(self):
        enc, dec = (core for _, core in cores(64))
        body = list(enc.body)
        swapped = dataclasses.replace(enc, body=(body[0], body[3], body[2], body[1], body[4]))
        late = dataclasses.replace(enc, body=tuple(body[:3]) + (Exit(RoundTest("4 * r + 8 == nr", lambda nr, r: 4 * r + 8 == nr)),) + tuple(body[4:]))
        last = enc.tail[-1]
        window = dataclasses.replace(last, windows=(Window("rkn", "rk", -8, 8, 0),))    # key nr-1, not nr
        early_key = dataclasses.replace(enc, tail=(enc.tail[0], window))
        no_skip = dataclasses.replace(dec, body=(dataclasses.replace(dec.body[0], when=None),) + dec.body[1:])
        for bad in (swapped, late, early_key, no_skip):
            for key_bits in SIZES:
                direction = "enc" if bad.name.startswith("encrypt") else "dec"
                try:
                    verify_block_cipher("bad", key_bits, direction, key_programs(key_bits), bad, 4, 1, 7)
                except ModelError:
                    break
            else:
                self.fail(f"{bad.name}: no key size caught the change")

    def test_a_window_past_the_schedule_is_an_error_not_a_short_read(self):
        dec = dict(cores(64))["dec"]
        no_skip = dataclasses.replace(dec, body=(dataclasses.replace(dec.body[0], when=None),) + dec.body[1:])
        with self.assertRaisesRegex(ModelError, r"rk32 is rk\[80\.\.96\), outside its 88 elements"):
            verify_block_cipher("bad", 128, "dec", key_programs(128), no_skip, 4, 0, 1)

    def test_a_key_size_it_does_not_serve_is_refused(self):
        enc = dataclasses.replace(dict(cores(64))["enc"], key_bits=(128, 256))
        with self.assertRaisesRegex(ModelError, "AES-192, which it does not serve"):
            verify_block_cipher("t", 192, "enc", key_programs(192), enc, 4, 0, 1)

    def test_the_structure_is_checked(self):
        enc = dict(cores(64))["enc"]
        step = enc.body[0]
        with self.assertRaisesRegex(ProgramError, "not the carried state"):
            check_key_size_loop(dataclasses.replace(enc, state=("a",) * 8))
        with self.assertRaisesRegex(ProgramError, "defined in two steps"):
            check_key_size_loop(dataclasses.replace(enc, body=(step, step) + enc.body[1:]))
        with self.assertRaisesRegex(ProgramError, "two windows of one name"):
            check_key_size_loop(dataclasses.replace(enc, body=(dataclasses.replace(step, windows=step.windows * 2),)
                                                    + enc.body[1:]))
        with self.assertRaisesRegex(ProgramError, "must view a core memory"):
            check_key_size_loop(dataclasses.replace(enc, body=(dataclasses.replace(
                step, windows=(Window("rk1", "out", 0),)),) + enc.body[1:]))
        with self.assertRaisesRegex(ProgramError, "must always run"):
            check_key_size_loop(dataclasses.replace(enc, head=(dataclasses.replace(
                enc.head[0], when=RoundTest("nr == 10", lambda nr, r: nr == 10)),)))
        with self.assertRaisesRegex(ProgramError, "needs a body step"):
            check_key_size_loop(dataclasses.replace(enc, body=(enc.body[1],)))

    def test_the_c_takes_its_control_flow_from_nr_and_r_only(self):
        enc, dec = (core for _, core in cores(64))
        lines = c.key_size_loop_statements(enc, "uint64_t")
        text = "\n".join(lines)
        self.assertIn("for (size_t r = 0; r < (nr + 2) / 4; r++) {", text)
        self.assertIn("const uint64_t *const rk23 = rk + 16 + 32 * r;", text)
        self.assertIn("const uint64_t *const rkn = rk + 8 * nr;", text)
        self.assertIn("if (nr % 4 == 2) {", text)
        tests = [l.strip() for l in lines if l.strip().startswith(("if (", "for ("))]
        self.assertEqual(tests, ["for (size_t r = 0; r < (nr + 2) / 4; r++) {", "if (4 * r + 2 == nr)",
                                 "if (4 * r + 4 == nr)", "if (nr % 4 == 2) {"])
        self.assertEqual(text.count("break;"), 2)
        text = "\n".join(c.key_size_loop_statements(dec, "uint64_t"))
        self.assertIn("for (size_t r = (nr + 3) / 4; r-- > 0;) {", text)
        self.assertIn("if (4 * r + 4 <= nr) {", text)

    def test_the_shared_file_serves_every_key_size_and_variants_pass_their_round_count(self):
        renderer = Renderer(Paths().templates, ROOT)
        text = softshared.render_core((192, "enc", "fixslice", 64, "bp113", "loop4"), renderer, None)
        self.assertIn("void aesgen_core_enc_fixslice64_bp113_loop4(const uint64_t *rk, size_t nr, uint8_t *out, "
                      "const uint8_t *in)\n{", text)
        self.assertIn("for AES-128", text)
        self.assertIn("for AES-256", text)
        self.assertEqual(softshared.core_name(128, "dec", "fixslice", 32, "cmt121", "loop4"),
                         softshared.core_name(256, "dec", "fixslice", 32, "cmt121", "loop4"))
        # the bitsliced decryption (an alternative dispatch never picks) keeps a core per size
        self.assertNotEqual(softshared.core_name(128, "dec", "bitslice", 32, "cmt121", "loop4"),
                            softshared.core_name(256, "dec", "bitslice", 32, "cmt121", "loop4"))
        root = Paths().out
        for key_bits in SIZES:
            variant = (root / "portable" / f"aes{key_bits}_enc__portable_fixslice64_loop4.c").read_text()
            self.assertIn(f"aesgen_core_enc_fixslice64_bp113_loop4(rk, {aes.rounds(key_bits)}, out, in);", variant)


class Packing(unittest.TestCase):
    """The round-key packing for every key size: a loop with two windows (a key's bytes
    in, its slices out), then the fixsliced frames in place, period 4."""

    def test_the_loops_write_what_the_straight_line_packing_writes(self):
        rng = random.Random(11)
        for bits in (32, 64):
            layout = Layout(bits)
            for alg in ("fixslice", "bitslice"):
                loops = aes.pack_round_keys_any_size(layout, alg)
                self.assertEqual(len(loops), 2 if alg == "fixslice" else 1)
                for key_bits in SIZES:
                    nr = aes.rounds(key_bits)
                    full = aes.pack_round_keys(layout, key_bits, alg)
                    self.assertLess(sum(p.static_alu_count() for p in loops), full.alu_count() // 4)
                    for _ in range(2):
                        rkb = rng.randbytes(16 * (nr + 1))
                        want = {"rkb": bytearray(rkb), "rk": [0] * aes.schedule_words(key_bits)}
                        execute(full, want)
                        got = {"rkb": bytearray(rkb), "rk": [0] * aes.schedule_words(key_bits)}
                        for loop in loops:
                            run(loop, got, key_bits=key_bits)
                        self.assertEqual(got["rk"], want["rk"], (bits, key_bits, alg))

    def test_a_wrong_window_or_exit_is_caught(self):
        layout = Layout(64)
        pack, frames = aes.pack_round_keys_any_size(layout, "fixslice")
        core = aes.fixsliced_encrypt(layout, 192, SBOX)
        keys = keysetup.programs(192, "forward")
        verify_block_cipher("t", 192, "enc", keys + (pack, frames), core, layout.blocks, 1, 3)
        step = pack.body[0]
        every_key_in_slot_0 = dataclasses.replace(pack, body=(dataclasses.replace(
            step, windows=(step.windows[0], Window("kw", "rk", 0))),))
        no_exit = dataclasses.replace(frames, body=(frames.body[0], frames.body[2]))
        one_trip_less = dataclasses.replace(frames, trips=("(nr - 2) / 4", lambda nr: (nr - 2) // 4))
        for bad_pack, bad_frames in ((every_key_in_slot_0, frames), (pack, one_trip_less)):
            with self.assertRaises(ModelError):
                verify_block_cipher("bad", 192, "enc", keys + (bad_pack, bad_frames), core, layout.blocks, 1, 5)
        core = aes.fixsliced_encrypt(layout, 128, SBOX)
        with self.assertRaises(ModelError):
            verify_block_cipher("bad", 128, "enc", keysetup.programs(128, "forward") + (pack, no_exit), core,
                                layout.blocks, 1, 5)
        with self.assertRaisesRegex(ModelError, r"kb is rkb\[176\.\.192\), outside its 176 elements"):
            run(dataclasses.replace(pack, trips=("nr + 2", lambda nr: nr + 2)),
                {"rkb": bytearray(176), "rk": [0] * 88}, key_bits=128)


if __name__ == "__main__":
    unittest.main()
