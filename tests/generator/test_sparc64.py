"""The SPARC T4 emitter: the borrowing plan, the reload schedule it produces, the model's
guards (alignment, delay slots, key tags) and the assembled-code check. No emulator runs
these opcodes, so these tests and the model are what stand between the emitter and a
wrong answer on hardware."""

import random
import unittest

from aesgen import pipeline, regplan
from aesgen.emit import EMITTERS
from aesgen.machine.common import Memory
from aesgen.machine import objdump, sparc64
from aesgen.machine.common import Instr, Label
from aesgen.machine.sparc64 import F, Machine, Mem, R
from aesgen.model import ModelError
from aesgen.regplan import Need


def built(name):
    _, variants = pipeline.load(pipeline.Paths())
    v = next(x for x in variants if x.name == name)
    em = EMITTERS[v.target.emitter]
    return em, em.build(v)


def run(em, b, fn, count=5):
    key = bytes(range(b.variant.key_bits // 8))
    em._run(b, fn, fn.code, (key, em.schedule_bytes(b, key)), count, False, random.Random(1))


def section(code, start, end):
    """Instructions from label `start` (a suffix) up to the next label `end`."""
    names = [i.args[0].name if i.op == "label" else None for i in code]
    a = next(k for k, n in enumerate(names) if n and n.endswith(start))
    z = next(k for k, n in enumerate(names) if n and n.endswith(end) and k > a)
    return code[a:z]


class Plan(unittest.TestCase):
    def test_aes256_two_blocks_borrow_the_last_key_then_the_first(self):
        # 4 data + 2 temporaries + 28 key doubles = 34 > 32
        p = regplan.plan(Need(data=4, aux=0, temps=2, keys=14, temp_phase="rounds", first_key=1), 32,
                          key_width=2)
        self.assertEqual(p.policy, "borrow")
        self.assertEqual(p.borrowed, {0: 0, 1: 0})           # k1's doubles, once round 1 is over
        self.assertEqual(p.borrowed_ahead, {0: 13, 1: 13})   # k14's doubles until then
        self.assertEqual(p.temps, [p.resident[0], p.resident[0] + 1])
        self.assertEqual(p.temps_ahead, [p.resident[13], p.resident[13] + 1])
        self.assertIn("k14 until k1 is spent", p.describe())

    def test_aes128_and_192_fit_resident(self):
        for keys in (10, 12):
            p = regplan.plan(Need(data=4, aux=0, temps=2, keys=keys, temp_phase="rounds"), 32, key_width=2)
            self.assertEqual(p.policy, "resident")


class ReloadSchedule(unittest.TestCase):
    def test_aes256_loop_reloads_two_keys_and_the_tail_none(self):
        em, b = built("aes256_enc__sparc64_t4_x2")
        for fn in b.functions:
            if fn.mode == "cbc":
                continue
            loop = section(fn.code, "_loop", "_tail")
            loads = [i for i in loop if i.op == "ldd"]
            self.assertEqual(len(loads), 4, fn.name)         # k14 after round 2, k1 after round 14
            self.assertEqual({i.args[1].disp for i in loads}, {16, 24, 224, 232})
            tail = section(fn.code, "_block", "_done")
            self.assertEqual([i for i in tail if i.op == "ldd"], [], fn.name)

    def test_aes128_loop_loads_no_key(self):
        em, b = built("aes128_dec__sparc64_t4_x2")
        for fn in b.functions:
            self.assertFalse([i for i in section(fn.code, "_loop", "_tail") if i.op == "ldd"], fn.name)


class Model(unittest.TestCase):
    def test_fips197_appendix_b_round_1(self):
        # FIPS-197 Appendix B: the state at the start of round 1, round key 1, and the
        # state at the start of round 2
        start = bytes.fromhex("193de3bea0f4e22b9ac68d2ae9f84808")
        k1 = bytes.fromhex("a0fafe1788542cb123a339392a6c7605")
        after = bytes.fromhex("a49c7ff2689f352b6b5bea43026a5049")
        m = Machine(Memory(), "none")
        for n, b in ((0, start[:8]), (2, start[8:]), (4, k1[:8]), (6, k1[8:])):
            m.f[n] = int.from_bytes(b, "big")
        m.step(Instr("aes_eround01", (F(8), F(4), F(0), F(2))))
        m.step(Instr("aes_eround23", (F(2), F(6), F(0), F(2))))     # in place, as the loops do
        self.assertEqual(m.f[8].to_bytes(8, "big") + m.f[2].to_bytes(8, "big"), after)

    def test_key_setup_matches_fips197_and_a_wrong_round_constant_is_caught(self):
        em, b = built("aes192_enc__sparc64_t4_x2")
        key = bytes.fromhex("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b")   # FIPS-197 A.2
        sched = em.schedule_bytes(b, key)
        self.assertEqual(sched[-16:], bytes.fromhex("e98ba06f448c773c8ecc720401002202"))  # w48..w51
        k = next(k for k, i in enumerate(b.setkey.code) if i.op == "aes_kexpand1" and i.args[3] == 2)
        b.setkey.code[k] = Instr("aes_kexpand1", b.setkey.code[k].args[:3] + (3,))
        with self.assertRaisesRegex(ModelError, "round keys"):
            em.schedule_bytes(b, key)

    def test_a_misaligned_access_traps(self):
        em, b = built("aes128_enc__sparc64_t4_x2")
        fn = next(f for f in b.functions if f.mode == "ecb")
        k = next(k for k, i in enumerate(fn.code) if i.op == "ldx" and i.args[1].base == R("i2"))
        fn.code[k] = Instr("ldx", (fn.code[k].args[0], Mem(R("i2"), 4)))
        with self.assertRaisesRegex(ModelError, "misaligned"):
            run(em, b, fn)

    def test_a_missing_reload_is_caught(self):
        em, b = built("aes256_enc__sparc64_t4_x2")
        fn = next(f for f in b.functions if f.mode == "ecb")
        k = next(k for k, i in enumerate(fn.code) if "reload k14" in i.note)
        del fn.code[k:k + 2]
        with self.assertRaisesRegex(ModelError, r"expected \('key', 14, 0\)"):
            run(em, b, fn)

    def test_a_branch_in_a_delay_slot_is_refused(self):
        m = Machine(Memory(), "none")
        code = [Instr("label", (Label("f"),)), Instr("ba", (Label("f"),)), Instr("ba", (Label("f"),))]
        with self.assertRaisesRegex(Exception, "delay slot"):
            m.run(code, "f")

    def test_the_delay_slot_runs_before_the_branch_lands(self):
        m = Machine(Memory(), "none")
        code = [Instr("label", (Label("f"),)), Instr("save", (176,)), Instr("ba", (Label("x"),)),
                Instr("add", (R("l0"), R("g0"), 7)), Instr("add", (R("l0"), R("g0"), 9)),
                Instr("label", (Label("x"),)), Instr("add", (R("o0"), R("l0"), 0)),
                Instr("ret"), Instr("restore")]
        m.win["o6"] = 1 << 20
        m.run(code, "f")
        self.assertEqual(m.get(R("o0")), 0)          # the callee's %o0 went with its window
        self.assertEqual(m.get(R("sp")), 1 << 20)


class Objdump(unittest.TestCase):
    def test_aliases_and_padding(self):
        listing = "\n".join([
            "0000000000000000 <f>:",
            "   0:\tsave  %sp, -176, %sp",
            "   4:\tdec  %i3",
            "   8:\tinc  %l3",
            "   c:\tbcs,pn   %xcc, 14 <f+0x14>",
            "  10:\tnop ",
            "  14:\tret ",
            "  18:\trestore ",
            "  1c:\tb,a   2c <f+0x2c>",
            "  20:\tnop ",
        ])
        code = objdump.read_functions(listing, sparc64.parse, sparc64.BRANCHES)["f"]
        ops = [(i.op, i.args) for i in code]
        self.assertEqual(ops[1], ("sub", (R("i3"), R("i3"), 1)))
        self.assertEqual(ops[2], ("add", (R("l3"), R("l3"), 1)))
        self.assertEqual(ops[3], ("blu", (Label("L14"),)))
        emitted = {"f": [i for i in code if i.op not in ("label", "pad")][:-1]}    # without the padding nop
        matched, problem = objdump.match(emitted, {"f": code}, sparc64.same, sparc64.PADDING)
        self.assertIsNone(problem)
        self.assertEqual([i.op for i in matched["f"]][-3:], ["label", "ret", "restore"])


if __name__ == "__main__":
    unittest.main()
