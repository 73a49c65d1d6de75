"""The x86-64 round loops (unroll "loop1"): the anchored schedule they read, one shared
copy of their functions for every key size, and the model catching what would break
either."""

import dataclasses
import unittest
from pathlib import Path
from unittest import mock

from aesgen import pipeline, reference, regplan
from aesgen.emit import EMITTERS, x86_64_aes
from aesgen.emit.hwloop import (ANCHORED_BYTES, ROUND_LOOP_STARTS, TAIL_ROUNDS, anchored_offset, anchored_rounds,
                                anchored_schedule)
from aesgen.emit.keysetup import reference_schedule
from aesgen.model import ModelError
from aesgen.render import Renderer

EM = EMITTERS["x86_64_aes"]


def variant(name):
    _, variants = pipeline.load(pipeline.Paths(profiles=Path("/nonexistent/aesgen-profiles")))
    return next(v for v in variants if v.name == name)


class AnchoredSchedule(unittest.TestCase):
    def test_layout(self):
        for bits in (128, 192, 256):
            nr = reference.rounds_for(bits)
            key = bytes(range(bits // 8))
            sched = reference_schedule(key, "forward")
            a = anchored_schedule(sched, nr)
            self.assertEqual(len(a), ANCHORED_BYTES)
            self.assertEqual(a[:16], sched[:16])                          # k0 at 0
            self.assertEqual(a[224:240], sched[-16:])                     # kNr at 224 for every size
            self.assertEqual(a[240 - 16 * nr:240], sched[16:])            # k1..kNr end there
            self.assertEqual(a[16:240 - 16 * nr], bytes(16 * (14 - nr)))  # the unused slots are zero
            starts = [int.from_bytes(a[ROUND_LOOP_STARTS + 8 * i:][:8], "little", signed=True) for i in (0, 1)]
            self.assertEqual(starts, [-16 * (nr - 1), -16 * (nr - 1 - TAIL_ROUNDS)])
            self.assertEqual(anchored_rounds(nr), {anchored_offset(p, nr): p for p in range(nr + 1)})

    def test_the_key_setup_writes_every_byte(self):
        """The model starts the schedule filled with 0xa5: a set-up that skipped the unused
        slots (an earlier, longer key's round keys would stay in a context keyed again) or
        the starts is caught."""
        fn = EM.setkey_function("f", 128, "enc", anchored=True)
        for note in ("unused slot, cleared", "round loop starts: the middle"):
            with self.subTest(note):
                code = [i for i in fn.code if i.note != note]
                self.assertLess(len(code), len(fn.code))
                with self.assertRaisesRegex(ModelError, "round keys"):
                    EM.run_setkey(None, code, "f", bytes(16), "forward", anchored=True)


class SharedFunctions(unittest.TestCase):
    def test_every_key_size_builds_the_same_functions(self):
        for tier in ("aesni", "vaes256", "vaes256_avx512vl", "vaes512"):
            for direction in ("enc", "dec"):
                with self.subTest(tier=tier, direction=direction):
                    texts = {}
                    for bits in (128, 192, 256):
                        b = EM.build(variant(f"aes{bits}_{direction}__x86_64_{tier}_x8_loop1"))
                        self.assertTrue(all(f.plan.rolled for f in b.functions))
                        self.assertEqual(b.setkey.name, f"aesgen_x86_64_aes_setkey_aes{bits}_"
                                         f"{'forward' if direction == 'enc' else 'equivalent_inverse'}_anchored")
                        for fn in b.functions:
                            self.assertTrue(fn.name.startswith(f"aesgen_x86_64_{tier}_x8_loop1_{direction}_"))
                            texts.setdefault(fn.name, {})[bits] = [EM.render_instr(b, i) for i in fn.code]
                    for name, by in texts.items():
                        self.assertEqual(len({tuple(t) for t in by.values()}), 1, name)
                        # XTS exists for AES-128 and AES-256 only
                        self.assertEqual(set(by), {128, 256} if "_xts" in name else {128, 192, 256}, name)

    def test_the_loops_file_has_one_copy_and_the_variants_none(self):
        renderer = Renderer(pipeline.Paths().templates, pipeline.ROOT)
        v = variant("aes192_enc__x86_64_aesni_x8_loop1")
        self.assertEqual(EM.outputs(v), ["x86_64_aesni/aes192_enc__x86_64_aesni_x8_loop1.c"])
        text = EM.render_loops_file(v, renderer, None)
        self.assertEqual(text.count("\t.globl aesgen_x86_64_aesni_x8_loop1_enc_ecb\n"), 1)
        self.assertIn("\t.globl aesgen_x86_64_aesni_x8_loop1_enc_xts\n", text)     # from AES-128 and -256
        b = EM.build(v)
        files = dict(EM.render(b, renderer, "n/a"))
        c = files["x86_64_aesni/aes192_enc__x86_64_aesni_x8_loop1.c"]
        self.assertIn(".ecb = aesgen_x86_64_aesni_x8_loop1_enc_ecb,", c)
        self.assertIn(f".schedule_bytes = {ANCHORED_BYTES},", c)
        self.assertIn(".xts = NULL,", c)
        self.assertIn("model runs", EM.verify_assembled(b, files, pipeline.ROOT / "runtime" / "src", renderer))

    def test_code_that_depends_on_the_key_size_is_refused(self):
        renderer = Renderer(pipeline.Paths().templates, pipeline.ROOT)
        v = variant("aes128_dec__x86_64_vaes512_x8_loop1")
        real = x86_64_aes.LoopEmitter.key_label
        with mock.patch.object(x86_64_aes.LoopEmitter, "key_label",
                               lambda self, rnd: f"{real(self, rnd)} of {self.nr}"):
            with self.assertRaisesRegex(ModelError, "must not depend on the key size"):
                EM.render_loops_file(v, renderer, None)

    def test_a_round_loop_from_the_wrong_start_is_caught(self):
        """The split round loop's first part reading the whole middle's start (its 8 bytes
        before): the rounds run off their keys, and the model's reference disagrees."""
        b = EM.build(variant("aes256_enc__x86_64_vaes256_x8_loop1"))
        seal = next(f for f in b.functions if f.mode == "gcm_seal")
        code = [dataclasses.replace(i, args=(i.args[0], dataclasses.replace(i.args[1], disp=ROUND_LOOP_STARTS)))
                if i.op == "loadg" and i.args[1].disp == ROUND_LOOP_STARTS + 8 else i for i in seal.code]
        self.assertNotEqual(code, seal.code)
        b.functions = [dataclasses.replace(seal, code=code)]
        with self.assertRaises(ModelError):
            EM.verify(b)

    def test_round_loops_trip_one_or_two_rounds(self):
        """A trip of at most PAIRED_VECTORS vectors, or of a GCM chunk, runs two rounds (its
        odd first round before the loop); a wider one, one round. Each function reads the
        loops' start once, at entry."""
        seen = set()
        functions = [fn for tier in ("vaes256", "vaes512")
                     for fn in EM.build(variant(f"aes128_enc__x86_64_{tier}_x8_loop1")).functions]
        self.assertIn("xts_units", {fn.mode for fn in functions})
        for fn in functions:
            starts = [i for i in fn.code if i.op == "loadg" and i.args[0] == x86_64_aes.START]
            self.assertEqual(len(starts), 0 if fn.mode == "xts_units" else 1, fn.name)
            if starts:
                self.assertIs(fn.code[1], starts[0])       # right after endbr64
                self.assertIn(starts[0].args[1].disp, (ROUND_LOOP_STARTS, ROUND_LOOP_STARTS + 8))
            for at, ins in enumerate(fn.code):
                if ins.op != "label" or "_rounds" not in ins.args[0].name:
                    continue
                step = next(i for i in fn.code[at:] if i.op == "addg" and i.args[0] == x86_64_aes.ROUND)
                trip = fn.code[at:fn.code.index(step, at)]
                vectors = {i.args[0] for i in trip if i.op == "aesenc"}
                per_trip = 2 if fn.mode.startswith("gcm") or len(vectors) <= x86_64_aes.PAIRED_VECTORS else 1
                self.assertEqual(step.args[1].value, 16 * per_trip, (fn.name, ins.args[0].name))
                self.assertEqual(sum(i.op == "aesenc" for i in trip), per_trip * len(vectors))
                seen.add(per_trip)
        self.assertEqual(seen, {1, 2})

    def test_a_paired_loop_without_its_first_round_is_caught(self):
        """Nine middle rounds of AES-128 in pairs need round 1 before the loop: without it
        the model's reference disagrees."""
        b = EM.build(variant("aes128_enc__x86_64_vaes256_x8_loop1"))
        ctr = next(f for f in b.functions if f.mode == "ctr")
        code = list(ctr.code)
        peeled = [j for j, i in enumerate(code) if i.op == "aesenc" and i.key == ("key", 1)]
        self.assertTrue(peeled)
        for j in reversed(peeled):
            del code[j]
        b.functions = [dataclasses.replace(ctr, code=code)]
        with self.assertRaises(ModelError):
            EM.verify(b)

    def test_the_plan_is_the_same_for_every_key_size(self):
        for bits in (128, 192, 256):
            need = regplan.Need(data=8, aux=1, temps=1, keys=reference.rounds_for(bits) + 1)
            p = regplan.plan(need, 16, rolled=True, rotating=1)
            self.assertEqual((p.policy, p.data, p.aux, p.temps, p.rotating, sorted(p.resident.values())),
                             ("ends", list(range(8)), [8], [9], [10], [11, 12]))
            self.assertIn("k0 and kNr resident", p.describe())
        with self.assertRaisesRegex(regplan.PlanError, "places its keys itself"):
            regplan.plan(regplan.Need(data=8, aux=0, temps=0, keys=11), 16, "resident", rolled=True)
        # no room for the two ends: every key streamed
        p = regplan.plan(regplan.Need(data=12, aux=1, temps=2, keys=11), 16, rolled=True, rotating=1)
        self.assertEqual((p.policy, p.resident), ("streamed", {}))


if __name__ == "__main__":
    unittest.main()
