"""The x86-64 emitter: plans, the model's guards, and the assembled-bytes check."""

import random
import unittest
from pathlib import Path

from aesgen import pipeline, regplan
from aesgen.emit import EMITTERS
from aesgen.emit.hwloop import gcm_chunk
from aesgen.machine.common import Instr
from aesgen.model import ModelError
from aesgen.regplan import KeyTracker, Need, PlanError


def built(name):
    # the targets as described, without tuned profiles: these tests are about the planner
    _, variants = pipeline.load(pipeline.Paths(profiles=Path("/nonexistent/aesgen-profiles")))
    v = next(x for x in variants if x.name == name)
    em = EMITTERS[v.target.emitter]
    return em, em.build(v)


class Plans(unittest.TestCase):
    def test_auto_picks_the_first_policy_that_fits(self):
        aes128 = Need(data=8, aux=0, temps=0, keys=11)
        self.assertEqual(regplan.plan(aes128, 32).policy, "resident")
        self.assertEqual(regplan.plan(aes128, 16).policy, "partial")
        ctr = Need(data=4, aux=1, temps=1, keys=11)
        self.assertEqual(regplan.plan(ctr, 16).policy, "borrow")       # 4+1+11 fits, 4+1+1+11 does not
        self.assertEqual(regplan.plan(Need(8, 1, 1, 15), 12).policy, "streamed")
        with self.assertRaises(PlanError):
            regplan.plan(Need(16, 1, 1, 15), 16)

    def test_borrowed_temporaries_use_finished_rounds(self):
        p = regplan.plan(Need(data=4, aux=1, temps=1, keys=11), 16, "borrow")
        self.assertEqual(p.borrowed, {0: 1})
        self.assertEqual(p.temps, [p.resident[1]])
        p = regplan.plan(Need(data=1, aux=0, temps=1, keys=11, temp_phase="initial"), 16, "borrow")
        self.assertEqual(p.borrowed, {0: 10})   # before round 1 the last round's key is free

    def test_forced_policy_that_does_not_fit_is_an_error(self):
        with self.assertRaisesRegex(PlanError, "does not fit"):
            regplan.plan(Need(data=8, aux=1, temps=1, keys=15), 16, "resident")

    def test_tracker_refuses_a_clobbered_key(self):
        kt = KeyTracker()
        kt.load_key(3, 5)
        kt.require(3, 5)
        kt.clobber(3, "temp")
        with self.assertRaisesRegex(PlanError, "not round key 5"):
            kt.require(3, 5)


class Model(unittest.TestCase):
    def test_model_catches_a_key_register_read_after_it_was_clobbered(self):
        em, b = built("aes128_enc__x86_64_vaes256_x8")
        fn = next(f for f in b.functions if f.mode == "ecb")
        # overwrite the register of a resident key right after it is loaded
        i = next(i for i, ins in enumerate(fn.code) if ins.op == "bcast" and "k10" in ins.note)
        clobber = Instr("xor", (fn.code[i].args[0], fn.code[i].args[0], fn.code[i].args[0]))
        fn.code.insert(i + 1, clobber)
        key = bytes(16)
        with self.assertRaisesRegex(ModelError, r"expected round key \('key', 10\)"):
            em._run(b, fn, fn.code, (key, em.schedule_bytes(b, key)), 16, False, random.Random(1))

    def test_model_catches_an_overread(self):
        em, b = built("aes128_enc__x86_64_aesni_x8")
        fn = next(f for f in b.functions if f.mode == "ecb")
        step = next(i for i, ins in enumerate(fn.code) if ins.op == "subg")
        fn.code[step] = Instr("subg", (fn.code[step].args[0], type(fn.code[step].args[1])(1)))
        key = bytes(16)
        with self.assertRaisesRegex(ModelError, "outside every buffer"):
            em._run(b, fn, fn.code, (key, em.schedule_bytes(b, key)), 9, False, random.Random(1))


    def test_model_faults_a_legacy_sse_key_operand_off_a_16_byte_boundary(self):
        """The model puts the schedule 8 bytes past a 16-byte boundary (a context may sit at
        any 8-byte-aligned address); aesenc with a memory operand there is a #GP."""
        from aesgen.machine.x86_64 import G, M
        em, b = built("aes128_enc__x86_64_aesni_x8")
        fn = next(f for f in b.functions if f.mode == "ecb")
        i = next(i for i, ins in enumerate(fn.code) if ins.op == "aesenc")
        ins = fn.code[i]
        fn.code[i] = Instr("aesenc", ins.args[:2] + (M(G("rdi"), 16 * ins.key[1]),), ins.key)
        key = bytes(16)
        with self.assertRaisesRegex(ModelError, "not 16-byte aligned"):
            em._run(b, fn, fn.code, (key, em.schedule_bytes(b, key)), 8, False, random.Random(1))

    def test_a_legacy_sse_target_cannot_read_keys_from_memory(self):
        from aesgen.targets import TargetError, load_targets
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            src = pipeline.ROOT / "generator" / "targets" / "x86_64-aesni.toml"
            text = src.read_text().replace("key_memory_operand = false", "key_memory_operand = true")
            self.assertIn("key_memory_operand = true", text)
            (Path(tmp) / "x86_64-aesni.toml").write_text(text)
            with self.assertRaisesRegex(TargetError, "16-byte aligned"):
                load_targets(Path(tmp), pipeline.ROOT, EMITTERS)


class CbcLanes(unittest.TestCase):
    """The CBC lanes functions (aesgen_cbc_encrypt_streams): their widths, and the model
    catching a lane that reads another lane's message."""

    def test_widths_are_the_interleave_and_its_halves(self):
        _, b = built("aes128_enc__x86_64_vaes512_x8")
        self.assertEqual([f.lanes for f in b.functions if f.mode == "cbc_lanes"], [32, 16, 8])
        _, b = built("aes256_enc__x86_64_aesni_x8")
        self.assertEqual([f.lanes for f in b.functions if f.mode == "cbc_lanes"], [8, 4, 2])
        _, b = built("aes256_dec__x86_64_aesni_x8")
        self.assertEqual([f for f in b.functions if f.mode == "cbc_lanes"], [])

    def test_a_width_that_does_not_fit_is_left_out_by_name(self):
        em, b = built("aes256_enc__x86_64_aesni_x8")
        tight = type(em)()
        tight.registers = lambda target: 5      # two data, a temporary and two rotating keys
        omitted = []
        fns = tight.cbc_lanes_functions(b.variant, 8, tight.new_constants(b.variant.target), omitted)
        self.assertEqual([f.lanes for f in fns], [2])
        self.assertEqual(len(omitted), 2)
        self.assertTrue(omitted[0].startswith("cbc_lanes8: no function"), omitted)

    def test_a_swapped_lane_is_caught(self):
        from aesgen.machine.x86_64 import M
        em, b = built("aes128_enc__x86_64_vaes256_x8")
        fn = next(f for f in b.functions if f.mode == "cbc_lanes" and f.lanes == 4)
        key = bytes(range(16))
        keyed = (key, em.schedule_bytes(b, key))
        machine = lambda mem: em.machine_for(b, mem, None)
        em._run_lanes(fn, fn.code, keyed, 3, False, random.Random(5), machine)   # as emitted: passes
        # lane 1 reads lane 2's input pointer
        code = [Instr(i.op, (i.args[0], M(i.args[1].base, 16)), i.key, i.note)
                if i.op == "loadg" and i.args[1].disp == 8 and i.note.startswith("in") else i for i in fn.code]
        self.assertNotEqual(code, fn.code)
        with self.assertRaises(ModelError):
            em._run_lanes(fn, code, keyed, 3, False, random.Random(5), machine)

    def test_zmm_functions_move_whole_lines_where_the_keys_stay_resident(self):
        for name in ("aes128_enc__x86_64_vaes512_x8", "aes256_enc__x86_64_vaes512_x8"):
            _, b = built(name)
            fns = [f for f in b.functions if f.mode == "cbc_lanes"]
            self.assertEqual([f.line_steps for f in fns], [4, 4, 4], name)
            self.assertTrue(all(f.plan.policy == "resident" and len(f.plan.temps) == 8 for f in fns), name)
            self.assertTrue(all(any(i.op == "shuf128" for i in f.code) for f in fns), name)
        for name in ("aes256_enc__x86_64_vaes256_avx512vl_x8", "aes128_enc__x86_64_aesni_x8"):
            _, b = built(name)
            self.assertEqual({f.line_steps for f in b.functions if f.mode == "cbc_lanes"}, {1}, name)
        # with keys streamed (a forced policy), the one-block steps
        em, b = built("aes256_enc__x86_64_vaes512_x8")
        from dataclasses import replace
        forced = replace(b.variant, params=tuple((k, "streamed" if k == "key_policy" else v)
                                                 for k, v in b.variant.params))
        self.assertEqual(forced.param("key_policy"), "streamed")
        fns = em.cbc_lanes_functions(forced, 8, em.new_constants(forced.target), [])
        self.assertEqual({f.line_steps for f in fns}, {1})

    def test_a_wrong_transpose_is_caught(self):
        from aesgen.machine.x86_64 import Imm
        em, b = built("aes128_enc__x86_64_vaes512_x8")
        fn = next(f for f in b.functions if f.mode == "cbc_lanes" and f.lanes == 8)
        key = bytes(range(16))
        keyed = (key, em.schedule_bytes(b, key))
        machine = lambda mem: em.machine_for(b, mem, None)
        for steps in (4, 5):      # a line, and a line and a step: as emitted, both pass
            em._run_lanes(fn, fn.code, keyed, steps, False, random.Random(5), machine)
        # the first 0xDD pick (odd blocks) made an 0x88 (even blocks)
        first = next(n for n, i in enumerate(fn.code) if i.op == "shuf128" and i.args[3].value == 0xDD)
        code = list(fn.code)
        code[first] = Instr("shuf128", fn.code[first].args[:3] + (Imm(0x88),))
        em._run_lanes(fn, code, keyed, 3, False, random.Random(5), machine)   # no line: still right
        with self.assertRaises(ModelError):
            em._run_lanes(fn, code, keyed, 4, False, random.Random(5), machine)

    def test_shuf128_semantics_spelling_and_reading_back(self):
        from aesgen.machine.common import Memory
        from aesgen.machine.x86_64 import EncodingError, Imm, Machine, V, parse, render
        m = Machine(Memory(), "rk", "evex", {})
        a, b, d = V("zmm", 1), V("zmm", 2), V("zmm", 3)
        m.vec[a.n] = [bytes([0xA0 + i]) * 16 for i in range(4)]
        m.vec[b.n] = [bytes([0xB0 + i]) * 16 for i in range(4)]
        ins = Instr("shuf128", (d, a, b, Imm(0b01_10_11_00)))     # a[0], a[3], b[2], b[1]
        m.step(ins)
        self.assertEqual([x[0] for x in m.vec[d.n]], [0xA0, 0xA3, 0xB2, 0xB1])
        self.assertEqual(render(ins, "evex"), "\tvshufi64x2 $108, %zmm2, %zmm1, %zmm3")
        self.assertEqual(parse(0, "vshufi64x2 $0x6c,%zmm2,%zmm1,%zmm3"), ins)
        # lane 0 to every lane stays the broadcast it was
        self.assertEqual(parse(0, "vshufi64x2 $0x0,%zmm1,%zmm1,%zmm3").op, "dup128")
        with self.assertRaises(EncodingError):
            render(Instr("shuf128", (V("ymm", 3), V("ymm", 1), V("ymm", 2), Imm(0))), "evex")


class GcmLoop(unittest.TestCase):
    """The stitched GCM functions: where the plan holds them, where the hash runs in the
    rounds, and the model catching a wrong hash or a hash of the wrong blocks."""

    def test_where_the_plan_holds_them(self):
        for name, policy in (("aes128_enc__x86_64_vaes512_x8", "resident"), ("aes256_enc__x86_64_vaes512_x8", "resident"),
                             ("aes256_enc__x86_64_vaes256_avx512vl_x8", "resident"),
                             # 16 registers: 8 data vectors, y, the counter, 5 hash temporaries and
                             # one register every round key streams through
                             ("aes128_enc__x86_64_vaes256_x8", "streamed"), ("aes256_enc__x86_64_aesni_x8", "streamed")):
            _, b = built(name)
            fns = {f.mode: f for f in b.functions if f.mode.startswith("gcm")}
            self.assertEqual(sorted(fns), ["gcm_open", "gcm_seal"], name)
            self.assertEqual(fns["gcm_seal"].plan.policy, policy, name)
            self.assertEqual(len(fns["gcm_seal"].plan.data), 8, name)
            self.assertLessEqual(fns["gcm_seal"].plan.used(), fns["gcm_seal"].plan.registers, name)
        _, b = built("aes128_dec__x86_64_vaes512_x8")
        self.assertEqual([f for f in b.functions if f.mode.startswith("gcm")], [])

    def test_no_stitched_loop_that_leaves_the_aes_unit_waiting(self):
        # with AES issue 1 per cycle the vaes256 target's 8 vectors stay the floor (4 x 1 = 4
        # would allow 4); with latency 8 no 16-register plan reaches the 16 vectors needed
        em, b = built("aes128_enc__x86_64_vaes256_x8")
        target = b.variant.target
        isa = target.sections["isa"]
        saved = isa["aes_latency"]
        try:
            isa["aes_latency"] = 8
            omitted = []
            fns = em.gcm_functions(b.variant, em.new_constants(target), omitted)
        finally:
            isa["aes_latency"] = saved
        self.assertEqual(fns, [])
        self.assertTrue(any("fewer than 16 data vectors would leave the AES unit waiting" in o for o in omitted), omitted)

    def test_chunks_keep_the_interleave(self):
        for name, chunk in (("aes128_enc__x86_64_vaes512_x8", 32), ("aes256_enc__x86_64_vaes256_avx512vl_x8", 16),
                            ("aes192_enc__x86_64_vaes256_x8", 16), ("aes128_enc__x86_64_aesni_x8", 8)):
            _, b = built(name)
            fn = next(f for f in b.functions if f.mode == "gcm_seal")
            self.assertEqual(gcm_chunk(b, fn), chunk, name)

    def test_each_width_reads_the_table_its_ghash_variant_writes(self):
        # zmm: one hash of 32 powers per iteration (one chain, not two); the
        # runtime stitches only when the layout names match the GHASH variant's
        from aesgen.algorithm import ghash
        for name, ghash_name, powers in (("aes128_enc__x86_64_vaes512_x8", "ghash__x86_64_vpclmul512_x32", 32),
                                         ("aes256_enc__x86_64_vaes256_avx512vl_x8", "ghash__x86_64_vpclmul256_x16", 16),
                                         ("aes128_enc__x86_64_aesni_x8", "ghash__x86_64_avx_pclmul_x8", 8)):
            _, b = built(name)
            fn = next(f for f in b.functions if f.mode == "gcm_seal")
            self.assertEqual(fn.table_powers, powers, name)
            _, g = built(ghash_name)
            m = g.programs.method
            self.assertEqual(ghash.table_layout(fn.table_powers, fn.table_multiply), ghash.table_layout(m.blocks, m.multiply),
                             name)

    def test_legacy_sse_hash_overwrites_its_first_source_and_loads_the_powers(self):
        from aesgen.machine.x86_64 import M
        _, b = built("aes128_enc__x86_64_aesni_x8")
        fn = next(f for f in b.functions if f.mode == "gcm_seal")
        clmuls = [i for i in fn.code if i.op == "clmul"]
        self.assertTrue(clmuls)
        self.assertTrue(all(i.args[0] == i.args[1] for i in clmuls))
        # the table of powers may sit at any 8-byte boundary: never a legacy-SSE memory operand
        self.assertFalse([i for i in clmuls if isinstance(i.args[2], M) and i.args[2].label is None])
        self.assertTrue(any(i.op == "load" and i.note == "a power of H" for i in fn.code))

    def test_the_hash_runs_inside_the_middle_rounds(self):
        from aesgen.emit.x86_64_aes import merge_rounds
        aes = [Instr("aesenc", ()), Instr("aesenc", ()), Instr("aesenclast", ()), Instr("store", ())]
        side = [Instr("clmul", (n,)) for n in range(5)]
        merged = merge_rounds(aes, side)
        self.assertEqual([i.op for i in merged],
                         ["aesenc", "clmul", "clmul", "clmul", "aesenc", "clmul", "clmul", "aesenclast", "store"])
        self.assertEqual([i.args for i in merged if i.op == "clmul"], [(n,) for n in range(5)])

    def _runs(self, em, b, fn, code):
        key = bytes(range(16))
        keyed = (key, em.schedule_bytes(b, key))
        machine = lambda mem: em.machine_for(b, mem, None)
        for chunks in (1, 2, 3):
            em._run_gcm(fn, code, keyed, chunks, chunks == 2, random.Random(chunks), machine, gcm_chunk(b, fn))

    def test_a_wrong_hash_is_caught(self):
        for name in ("aes128_enc__x86_64_vaes512_x8", "aes128_enc__x86_64_aesni_x8"):
            self._wrong_hash_is_caught(name)

    def _wrong_hash_is_caught(self, name):
        from aesgen.machine.x86_64 import Imm
        em, b = built(name)
        for mode in ("gcm_seal", "gcm_open"):
            fn = next(f for f in b.functions if f.mode == mode)
            self._runs(em, b, fn, fn.code)        # as emitted: passes
            # the reduction's first fold multiplies the wrong half of the polynomial word
            first = next(i for i, ins in enumerate(fn.code)
                         if ins.op == "clmul" and ins.args[3] == Imm(0x10))
            ins = fn.code[first]
            code = fn.code[:first] + [Instr(ins.op, ins.args[:3] + (Imm(0x00),), ins.key, ins.note)] \
                + fn.code[first + 1:]
            with self.assertRaises(ModelError, msg=mode):
                self._runs(em, b, fn, code)

    def test_the_seals_blocks_before_and_after_the_text_are_hashed(self):
        from aesgen.emit.x86_64_aes import HT
        from aesgen.machine.x86_64 import M
        for name in ("aes128_enc__x86_64_vaes512_x8", "aes128_enc__x86_64_aesni_x8"):
            em, b = built(name)
            fn = next(f for f in b.functions if f.mode == "gcm_seal")
            self._runs(em, b, fn, fn.code)     # every run hashes a block after, one a block before
            for where in ("before", "after"):
                # never hashed
                code = [Instr("jmp", i.args, i.key, i.note) if i.op == "jz" and f"none_{where}" in i.args[0].name
                        else i for i in fn.code]
                self.assertNotEqual(code, fn.code)
                with self.assertRaises(ModelError, msg=f"{name}: {where}"):
                    self._runs(em, b, fn, code)
                # multiplied by H^2 instead of H (the table's entries run H^N..H^1)
                first = next(k for k, i in enumerate(fn.code) if i.note == f"the block {where} the text")
                last = next(k for k in range(first, len(fn.code)) if fn.code[k].op == "label")
                code = [Instr(i.op, tuple(M(x.base, x.disp - 16) if isinstance(x, M) and x.base == HT
                                          and x.disp == 16 * (fn.table_powers - 1) else x for x in i.args),
                              i.key, i.note) if first < k < last else i
                        for k, i in enumerate(fn.code)]
                self.assertNotEqual(code, fn.code)
                with self.assertRaises(ModelError, msg=f"{name}: {where}"):
                    self._runs(em, b, fn, code)

    def test_hashing_the_wrong_chunk_is_caught(self):
        from aesgen.machine.x86_64 import M
        em, b = built("aes256_enc__x86_64_vaes512_x8")
        fn = next(f for f in b.functions if f.mode == "gcm_seal")
        # the loop hashes the chunk it is writing instead of the one before
        code = [Instr(i.op, (i.args[0], M(i.args[1].base, i.args[1].disp + 16 * gcm_chunk(b, fn))), i.key, i.note)
                if i.op == "load" and i.note == "ciphertext to hash" else i for i in fn.code]
        self.assertNotEqual(code, fn.code)
        with self.assertRaises(ModelError):
            self._runs(em, b, fn, code)


class XtsLoop(unittest.TestCase):
    """The XTS loop's tweak products (shifts and a carry-less multiply by 0x87) and what
    the model does with a wrong one."""

    def _run_xts(self, em, b, fn, code, count=17):
        key = bytes(range(b.variant.key_bits // 8))
        em._run(b, fn, code, (key, em.schedule_bytes(b, key)), count, False, random.Random(7))

    def test_every_x86_variant_has_an_xts_loop(self):
        for name in ("aes128_enc__x86_64_aesni_x8", "aes256_dec__x86_64_vaes256_x8", "aes256_enc__x86_64_vaes512_x8"):
            em, b = built(name)
            self.assertIn("xts", [f.mode for f in b.functions], name)
            self.assertEqual([o for o in b.omitted if o.startswith("xts")], [])
        # XTS is defined for AES-128 and AES-256 keys only: an AES-192 variant has none, by name
        for name in ("aes192_enc__x86_64_vaes512_x8", "aes192_dec__x86_64_aesni_x8"):
            _, b = built(name)
            self.assertEqual([f.mode for f in b.functions if f.mode.startswith("xts")], [], name)
            self.assertTrue(any(o.startswith("xts: none for AES-192") for o in b.omitted), name)

    def test_the_wrong_half_of_the_carries_is_caught(self):
        from aesgen.machine.x86_64 import Imm
        for name in ("aes128_enc__x86_64_aesni_x8", "aes128_dec__x86_64_vaes256_x8"):
            em, b = built(name)
            fn = next(f for f in b.functions if f.mode == "xts")
            self._run_xts(em, b, fn, fn.code)
            code = [Instr(i.op, i.args[:3] + (Imm(0x00),), i.key, i.note) if i.op == "clmul" else i for i in fn.code]
            with self.assertRaisesRegex(ModelError, "reference AES gives"):
                self._run_xts(em, b, fn, code)

    def test_a_tweak_not_parked_in_the_output_is_caught(self):
        em, b = built("aes128_enc__x86_64_vaes256_x8")
        fn = next(f for f in b.functions if f.mode == "xts")
        i = next(i for i, ins in enumerate(fn.code) if ins.op == "store" and "parked" in ins.note)
        code = fn.code[:i] + fn.code[i + 1:]
        with self.assertRaisesRegex(ModelError, "reference AES gives"):
            self._run_xts(em, b, fn, code)

    def test_shift_and_clmul_semantics(self):
        """The model's shifts and carry-less multiply, in the loop's sequence, give t * x^k."""
        from aesgen import reference_xts
        from aesgen.machine.common import Memory
        from aesgen.machine.x86_64 import Imm, Machine, V, parse
        rng = random.Random(3)
        x, s, p, poly = (V("xmm", n) for n in range(4))
        for k in (1, 2, 7, 8, 14, 56):
            t = rng.randbytes(16)
            m = Machine(Memory(), "rk", "vex", {})
            m.vec[x.n][0], m.vec[poly.n][0] = t, (0x87).to_bytes(8, "little") + bytes(8)
            for ins in (Instr("shrq", (s, x, Imm(64 - k))), Instr("clmul", (p, s, poly, Imm(1))),
                        Instr("bshl", (s, s, Imm(8))), Instr("shlq", (x, x, Imm(k))),
                        Instr("xor", (x, x, s)), Instr("xor", (x, x, p))):
                m.step(ins)
            want = t
            for _ in range(k):
                want = reference_xts.mul_alpha(want)
            self.assertEqual(m.vec[x.n][0], want, f"x^{k}")
        # objdump's names for the immediates of (V)PCLMULQDQ read back as the immediate
        self.assertEqual(parse(0, "vpclmulhqlqdq %ymm3,%ymm1,%ymm2").args,
                         (V("ymm", 2), V("ymm", 1), V("ymm", 3), Imm(0x01)))
        self.assertEqual(parse(0, "pclmullqhqdq %xmm3,%xmm2").args,
                         (V("xmm", 2), V("xmm", 2), V("xmm", 3), Imm(0x10)))
        # the EVEX loops fold the two XORs into one vpternlogq; only truth table 0x96 is XOR3
        self.assertEqual(parse(0, "vpternlogq $0x96,%zmm1,%zmm2,%zmm3"),
                         Instr("xor3", (V("zmm", 3), V("zmm", 2), V("zmm", 1))))
        from aesgen.machine.objdump import DisassemblyError
        with self.assertRaisesRegex(DisassemblyError, "truth table 0xe8"):
            parse(0, "vpternlogq $0xe8,%zmm1,%zmm2,%zmm3")

    def test_counter_and_tweak_are_read_as_two_halves(self):
        """A caller writes the counter or tweak as two 8-byte stores; a 16-byte load of them
        cannot forward (measured: 18 TSC ticks more per CTR call on Zen 5)."""
        from aesgen.machine.x86_64 import G, Imm, V, parse
        for name in ("aes128_enc__x86_64_aesni_x8", "aes128_enc__x86_64_vaes256_x8", "aes256_dec__x86_64_vaes512_x8"):
            em, b = built(name)
            for fn in b.functions:
                if fn.mode not in ("ctr", "xts"):
                    continue
                reads = [i for i in fn.code if any(getattr(a, "base", None) == G("r8") for a in i.args)
                         and i.op != "store"]
                self.assertEqual([i.op for i in reads], ["loadlo", "loadhi"], f"{name} {fn.mode}")
        self.assertEqual(parse(0, "vmovhps 0x8(%r8),%xmm8,%xmm8").op, "loadhi")
        self.assertEqual(parse(0, "movhps 0x8(%r8),%xmm8").args[:2], (V("xmm", 8), V("xmm", 8)))
        self.assertEqual(parse(0, "vpermq $0x44,%ymm8,%ymm8"), Instr("dup128", (V("ymm", 8), V("ymm", 8))))
        from aesgen.machine.objdump import DisassemblyError
        with self.assertRaisesRegex(DisassemblyError, "does not copy lane 0"):
            parse(0, "vpermq $0x4e,%ymm8,%ymm8")

    def test_a_target_without_the_carry_less_multiply_is_refused(self):
        from aesgen.targets import TargetError, load_targets
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            src = pipeline.ROOT / "generator" / "targets" / "x86_64-vaes256.toml"
            text = src.read_text().replace(', "vpclmulqdq"', "")
            (Path(tmp) / "x86_64-vaes256.toml").write_text(text)
            with self.assertRaisesRegex(TargetError, "vpclmulqdq"):
                load_targets(Path(tmp), pipeline.ROOT, EMITTERS)

    def test_an_iteration_past_56_tweak_bits_has_no_xts_loop(self):
        em, b = built("aes128_enc__x86_64_vaes512_x8")
        target = b.variant.target
        self.assertEqual(em._plan(target, 14, "xts", 128, "auto", "enc").data, list(range(14)))
        with self.assertRaisesRegex(PlanError, "x\\^60 away, past the 56 bits"):
            em._plan(target, 15, "xts", 128, "auto", "enc")

    @staticmethod
    def _main_loop(fn):
        """The instructions of the first (N-vector) loop of a function."""
        top = next(i for i, ins in enumerate(fn.code) if ins.op == "label" and ins.args[0].name.endswith("_loop"))
        end = next(i for i, ins in enumerate(fn.code) if i > top and ins.op == "jae")
        return fn.code[top + 1:end]

    def test_the_32_register_loops_carry_a_tweak_register_per_vector(self):
        """vaes512 and vaes256-avx512vl keep 8 tweak registers (AES-256: all 32 registers
        used), park nothing in the output, and make 8 products an iteration: the base (2
        zmm or 4 ymm vectors) steps, the rest derive from it; the 16-register loops park."""
        for name, base in (("aes128_enc__x86_64_vaes512_x8", 2), ("aes256_dec__x86_64_vaes512_x8", 2),
                           ("aes256_enc__x86_64_vaes256_avx512vl_x8", 4),
                           ("aes128_dec__x86_64_vaes256_avx512vl_x8", 4)):
            em, b = built(name)
            fn = next(f for f in b.functions if f.mode == "xts")
            self.assertEqual((len(fn.plan.data), len(fn.plan.aux), len(fn.plan.temps)), (8, 8, 1), name)
            self.assertEqual(fn.plan.policy, "resident", name)
            if name.startswith("aes256"):
                self.assertEqual(fn.plan.used(), 32, name)
            body = self._main_loop(fn)
            first_last = min(i for i, ins in enumerate(body) if ins.op.endswith("last"))
            last = max(i for i, ins in enumerate(body) if ins.op.endswith("last"))
            first_xor3 = min(i for i, ins in enumerate(body) if ins.op == "xor3")
            self.assertEqual([ins for ins in body[:last] if ins.op == "store"], [], f"{name}: parked tweak")
            self.assertEqual(sum(ins.op == "clmul" for ins in body), 8, name)
            # the derived vectors first; each base tweak steps after its own last use
            self.assertEqual(sum(ins.op == "clmul" for ins in body[:first_xor3]), 8 - base, name)
            self.assertEqual(sum(ins.op == "clmul" for ins in body[first_last:]), base, name)
            self.assertEqual(sum(ins.op == "xor3" for ins in body), 8, name)
        for name in ("aes128_enc__x86_64_aesni_x8", "aes256_enc__x86_64_vaes256_x8"):
            _, b = built(name)
            fn = next(f for f in b.functions if f.mode == "xts")
            self.assertEqual(len(fn.plan.aux), 1, name)
            self.assertTrue(any("parked" in ins.note for ins in fn.code), name)

    def test_the_byte_reversal_mask_stays_in_a_register_where_it_fits(self):
        """CTR and the stitched GCM loops of the 32-register targets keep the mask in a
        plan register: no vpshufb in their loops reads memory. The 16-register CTR plans
        (no spare register beside resident keys) read it from memory."""
        from aesgen.machine.x86_64 import M
        for name in ("aes256_enc__x86_64_vaes512_x8", "aes128_enc__x86_64_vaes512_x8",
                     "aes256_enc__x86_64_vaes256_avx512vl_x8"):
            _, b = built(name)
            for mode, aux in (("ctr", 2), ("gcm_seal", 3), ("gcm_open", 3)):
                fn = next(f for f in b.functions if f.mode == mode)
                self.assertEqual((fn.plan.policy, len(fn.plan.aux)), ("resident", aux), (name, mode))
                mask = fn.plan.aux[aux - 1]
                shuffles = [ins for ins in fn.code if ins.op == "shufb"]
                self.assertTrue(shuffles, (name, mode))
                self.assertEqual([ins for ins in shuffles if isinstance(ins.args[2], M)], [], (name, mode))
                self.assertTrue(all(ins.args[2].n == mask for ins in shuffles), (name, mode))
        for name in ("aes128_enc__x86_64_aesni_x8", "aes256_enc__x86_64_vaes256_x8"):
            _, b = built(name)
            fn = next(f for f in b.functions if f.mode == "ctr")
            self.assertEqual(len(fn.plan.aux), 1, name)
            self.assertTrue(all(isinstance(ins.args[2], M) for ins in fn.code if ins.op == "shufb"), name)

    def test_a_wrong_byte_step_or_base_is_caught(self):
        from aesgen.machine.x86_64 import Imm, V
        em, b = built("aes256_enc__x86_64_vaes512_x8")
        fn = next(f for f in b.functions if f.mode == "xts")
        self._run_xts(em, b, fn, fn.code, count=70)
        # a byte product that keeps one byte too few
        i = next(i for i, ins in enumerate(fn.code) if ins.op == "bshr" and ins.args[2] == Imm(12))
        code = fn.code[:i] + [Instr("bshr", fn.code[i].args[:2] + (Imm(13),))] + fn.code[i + 1:]
        with self.assertRaisesRegex(ModelError, "reference AES gives"):
            self._run_xts(em, b, fn, code, count=70)
        # vector 3 derived from base vector 0 instead of 1
        tws = [V("zmm", r) for r in fn.plan.aux]
        body = self._main_loop(fn)
        j = next(k for k, ins in enumerate(fn.code) if ins in body and ins.op == "bshr" and ins.args[1] == tws[1])
        code = fn.code[:j] + [Instr("bshr", (fn.code[j].args[0], tws[0], fn.code[j].args[2]))] + fn.code[j + 1:]
        with self.assertRaisesRegex(ModelError, "reference AES gives"):
            self._run_xts(em, b, fn, code, count=70)

    def test_the_units_function_runs_each_unit_on_its_own_tweak(self):
        """The carried form also emits the many-sector loop (count units of a whole number of
        iterations, a tweak each); the model catches it reusing the first unit's tweak."""
        from aesgen.machine.x86_64 import G
        for name in ("aes256_dec__x86_64_vaes512_x8", "aes128_enc__x86_64_vaes256_avx512vl_x8"):
            em, b = built(name)
            fn = next(f for f in b.functions if f.mode == "xts_units")
            chunk = len(fn.plan.data) * b.lanes
            key = bytes(range(b.variant.key_bits // 8))
            keyed = (key, em.schedule_bytes(b, key))
            em._run_units(b, fn, fn.code, keyed, 3, 2 * chunk, True, random.Random(5))
            code = [i for i in fn.code if not (i.op == "addg" and i.args[0] == G("r8"))]
            self.assertEqual(len(code), len(fn.code) - 1, name)
            with self.assertRaisesRegex(ModelError, "reference AES gives"):
                em._run_units(b, fn, code, keyed, 2, chunk, False, random.Random(5))
        for name in ("aes128_enc__x86_64_aesni_x8", "aes256_enc__x86_64_vaes256_x8"):
            _, b = built(name)
            self.assertNotIn("xts_units", [f.mode for f in b.functions], name)

    def test_a_forced_policy_that_cannot_hold_the_xts_loop_leaves_it_out(self):
        _, variants = pipeline.load(pipeline.Paths(targets=pipeline.ROOT / "tests" / "sweep" / "targets",
                                                   profiles=Path("/nonexistent/aesgen-profiles")))
        v = next(x for x in variants if x.backend.startswith("sweep-aesni-policies") and x.param("key_policy") == "borrow")
        b = EMITTERS[v.target.emitter].build(v)
        self.assertNotIn("xts", [f.mode for f in b.functions])
        self.assertRegex(b.omitted[0], r"^xts: no loop \(policy borrow does not fit")



class KeySetup(unittest.TestCase):
    """The assembly key set-up every x86-64 variant shares (common/x86_64_aes_setkey.S)."""

    @staticmethod
    def functions():
        em = EMITTERS["x86_64_aes"]
        return em, {(bits, order): fn for fn, bits, order, anchored in em.setkey_file_functions() if not anchored}

    def test_aeskeygenassist_means_what_intel_documents(self):
        from aesgen.machine.x86_64 import keygen_assist
        # Intel's AES-NI white paper (Gueron, rev. 3.01), AESKEYGENASSIST xmm2, xmm1, 0x1;
        # registers printed most significant byte first
        got = keygen_assist(bytes.fromhex("3c4fcf098815f7aba6d2ae2816157e2b")[::-1], 0x01)
        self.assertEqual(got[::-1].hex(), "01eb848beb848a013424b5e524b5e434")

    def test_a_wrong_round_constant_is_caught(self):
        em, fns = self.functions()
        for bits in (128, 192, 256):
            with self.subTest(bits):
                code = list(fns[bits, "forward"].code)
                k = max(i for i, ins in enumerate(code) if ins.op == "keygenassist" and ins.args[2].value)
                code[k] = Instr("keygenassist", code[k].args[:2] + (type(code[k].args[2])(0x6C),))
                with self.assertRaisesRegex(ModelError, "round keys"):
                    em.run_setkey(None, code, "f", bytes(bits // 8), "forward")

    def test_a_missing_inverse_mix_columns_is_caught(self):
        em, fns = self.functions()
        code = list(fns[192, "equivalent_inverse"].code)
        k = next(i for i, ins in enumerate(code) if ins.op == "aesimc")
        code[k] = Instr("mov", code[k].args)
        with self.assertRaisesRegex(ModelError, "round keys"):
            em.run_setkey(None, code, "i", bytes(24), "equivalent_inverse")

    def test_the_key_is_read_within_its_length(self):
        em, fns = self.functions()
        code = list(fns[192, "forward"].code)
        k = next(i for i, ins in enumerate(code) if ins.op == "loadlo")
        code[k] = Instr("load", code[k].args)          # 16 bytes at offset 16 of a 24-byte key
        with self.assertRaisesRegex(ModelError, "outside every buffer"):
            em.run_setkey(None, code, "f", bytes(24), "forward")

    def test_every_variant_uses_the_one_shared_file(self):
        _, variants = pipeline.load(pipeline.Paths(profiles=Path("/nonexistent/aesgen-profiles")))
        x86 = [v for v in variants if v.target.emitter == "x86_64_aes"]
        self.assertLessEqual({"aesni", "vaes256", "vaes256-avx512vl", "vaes512"},
                             {v.backend for v in x86})
        em = EMITTERS["x86_64_aes"]
        # the key set-up file; a rolled variant's functions are in the loops file its key sizes share
        self.assertEqual({s.path for v in x86 if not em.rolled(v) for s in em.shared(v)},
                         {"common/x86_64_aes_setkey.S"})
        for v in x86:
            if em.rolled(v):
                self.assertEqual([s.path for s in em.shared(v)],
                                 ["common/x86_64_aes_setkey_anchored.S",
                                  f"common/{v.target.ident}_{v.how}_{v.direction}.S"])
        v = next(v for v in x86 if v.name == "aes256_dec__x86_64_vaes512_x8")
        b = em.build(v)
        self.assertEqual(b.setkey.name, "aesgen_x86_64_aes_setkey_aes256_equivalent_inverse")
        self.assertEqual(b.key_programs, ())
        from aesgen.render import Renderer
        files = dict(em.render(b, Renderer(pipeline.Paths().templates, pipeline.ROOT), "n/a"))
        self.assertNotIn("keygenassist", files[em.outputs(v)[0]])         # not stamped into the variant
        self.assertIn(".setkey = aesgen_x86_64_aes_setkey_aes256_equivalent_inverse,", files[em.outputs(v)[1]])

if __name__ == "__main__":
    unittest.main()
