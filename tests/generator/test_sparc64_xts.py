"""The SPARC T4 XTS loop: present in every variant, its tweak product (shifts and a srax
mask on the little-endian number), the byte-order conversion through ldxa/stxa ASI_PL,
what the model does with a wrong one, and branches and addresses that only the block
count steers."""

import random
import tempfile
import unittest
from pathlib import Path

from aesgen import pipeline, reference_xts
from aesgen.emit import EMITTERS
from aesgen.machine.common import Instr, MachineError, Memory
from aesgen.machine.sparc64 import ASI_P, ASI_PL, BRANCHES, Machine, Mem, R, parse, render
from aesgen.model import ModelError

NO_PROFILES = Path("/nonexistent/aesgen-profiles")
RK, OUT, IN, N, IV = (R(n) for n in ("i0", "i1", "i2", "i3", "i4"))


def sparc_variants(targets=None):
    paths = pipeline.Paths(profiles=NO_PROFILES) if targets is None else \
        pipeline.Paths(targets=targets, profiles=NO_PROFILES)
    _, variants = pipeline.load(paths)
    return [v for v in variants if v.target.emitter == "sparc64_t4"]


def built(name):
    v = next(x for x in sparc_variants() if x.name == name)
    em = EMITTERS[v.target.emitter]
    return em, em.build(v)


def xts_of(b):
    return next(f for f in b.functions if f.mode == "xts")


def replace(code, match, make):
    return [make(i) if match(i) else i for i in code]


class XtsLoop(unittest.TestCase):
    def _run_xts(self, em, b, fn, code, count=5, in_place=False):
        key = bytes(range(b.variant.key_bits // 8))
        em._run(b, fn, code, (key, em.schedule_bytes(b, key)), count, in_place, random.Random(7))

    def test_every_sparc64_variant_has_an_xts_loop(self):
        variants = sparc_variants()
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
        for name in ("aes128_enc__sparc64_t4_x2", "aes256_dec__sparc64_t4_x2", "aes256_enc__sparc64_t4_x2"):
            em, b = built(name)
            fn = xts_of(b)
            for count in (0, 1, 2, 3, 7, 17):
                for in_place in (False, True):
                    self._run_xts(em, b, fn, fn.code, count, in_place)

    def _sabotaged(self, name, change, pattern="reference AES gives|IV after"):
        em, b = built(name)
        fn = xts_of(b)
        code = change(list(fn.code))
        self.assertNotEqual(code, fn.code)
        with self.assertRaisesRegex(ModelError, pattern):
            self._run_xts(em, b, fn, code, count=17)   # 17 products: some carry is set (all clear: 2^-17)

    def test_a_wrong_feedback_constant_is_caught(self):
        change = lambda code: replace(code, lambda i: i.op == "and",
                                      lambda i: Instr("and", i.args[:2] + (0x07,), i.key, i.note))
        for name in ("aes128_enc__sparc64_t4_x2", "aes256_dec__sparc64_t4_x2"):
            self._sabotaged(name, change)

    def test_a_dropped_carry_between_the_halves_is_caught(self):
        self._sabotaged("aes128_enc__sparc64_t4_x2", lambda code: [i for i in code if i.op != "or"])

    def test_a_carry_without_its_mask_is_caught(self):
        # srlx leaves 0 or 1, not 0 or all ones: only bit 0 of 0x87 would be fed back
        change = lambda code: replace(code, lambda i: i.op == "srax", lambda i: Instr("srlx", i.args, i.key, i.note))
        self._sabotaged("aes256_enc__sparc64_t4_x2", change)

    def test_the_wrong_byte_order_is_caught(self):
        # big-endian (ASI_P) where the loop needs little-endian, at each place it is used
        for op, note in (("stxa", "tweak through out"), ("ldxa", "little-endian"), ("stxa", "next block")):
            done = []

            def change(code):
                for k, i in enumerate(code):
                    if i.op == op and note in i.note and not done:
                        done.append(k)
                        code[k] = Instr(op, i.args[:2] + (ASI_P,), i.key, i.note)
                return code
            self._sabotaged("aes128_dec__sparc64_t4_x2", change)
            self.assertEqual(len(done), 1, (op, note))

    def test_a_tweak_left_in_the_wrong_byte_order_is_caught(self):
        # the tweak XORed as the little-endian number, without the trip through out
        def change(code):
            out = []
            for i in code:
                if i.op == "ldx" and i.args[1] == Mem(OUT):
                    continue
                if i.op == "stxa" and i.args[0] == Mem(OUT):
                    continue
                out.append(i)
            src = {R("l4"): R("l2"), R("l5"): R("l3"), R("l6"): R("l2"), R("l7"): R("l3")}
            return [Instr(i.op, tuple(src.get(x, x) for x in i.args), i.key, i.note) if i.op == "xor" else i
                    for i in out]
        self._sabotaged("aes128_enc__sparc64_t4_x2", change)

    def test_a_dropped_final_tweak_xor_is_caught(self):
        def change(code):   # the last block's tweak XOR, just before the first store to out
            i = next(n for n, x in enumerate(code) if x.op == "stx" and x.args[0].base == OUT) - 1
            self.assertEqual(code[i].op, "xor")
            return code[:i] + code[i + 1:]
        self._sabotaged("aes256_enc__sparc64_t4_x2", change)

    def test_a_tweak_slot_written_before_the_input_is_read_is_caught_in_place(self):
        # the slot is in's first block in place: moving the first stxa above the loads breaks it
        em, b = built("aes128_enc__sparc64_t4_x2")
        fn = xts_of(b)
        code = list(fn.code)
        first_ld = next(k for k, i in enumerate(code) if i.op == "ldx" and i.args[1] == Mem(IN))
        slot = next(k for k, i in enumerate(code) if i.op == "stxa" and i.args[0] == Mem(OUT))
        code.insert(first_ld, code.pop(slot))
        self._run_xts(em, b, fn, code, count=4, in_place=False)     # out of place: still right
        with self.assertRaisesRegex(ModelError, "reference AES gives"):
            self._run_xts(em, b, fn, code, count=4, in_place=True)

    def test_only_the_block_count_steers_branches_and_addresses(self):
        """brz/brnz and cmp (the only op here that sets %xcc) read %i3, the count, which
        only counts down by constants; loads and stores address through the argument pointers, which only step by
        constants, or through %o5 = %i4 + 8. So no tweak (nor data) bit reaches a branch
        or an address."""
        pointers = {RK, OUT, IN, IV}
        for v in (v for v in sparc_variants() if v.key_bits != 192):
            fn = xts_of(EMITTERS[v.target.emitter].build(v))
            bases = {}
            for ins in fn.code:
                op, a = ins.op, ins.args
                where = f"{fn.name}: {render(ins).strip()}"
                if op in ("brz", "brnz", "cmp"):
                    self.assertEqual(a[0], N, where)
                if op in BRANCHES and op not in ("brz", "brnz"):
                    self.assertIn("cmp", [i.op for i in fn.code], where)
                mem = next((x for x in a if isinstance(x, Mem)), None)
                if mem is not None and op != "save":
                    self.assertTrue(mem.base in pointers or bases.get(mem.base) == (IV, 8), where)
                writes = a[0] if op in ("add", "sub", "xor", "and", "or", "sllx", "srlx", "srax", "ldx", "ldxa",
                                        "movdtox") else None
                if writes in pointers | {N}:
                    self.assertEqual((op, a[1]), ("add" if writes != N else "sub", writes), where)
                    self.assertIsInstance(a[2], int, where)
                if writes is not None:
                    bases[writes] = (a[1], a[2]) if op == "add" and a[1] in pointers else None

    def test_the_tweak_product_is_mul_alpha(self):
        """The loop's seven instructions give t * x on (lo, hi) read little-endian."""
        rng = random.Random(3)
        em, b = built("aes128_enc__sparc64_t4_x2")
        code = xts_of(b).code
        k = next(n for n, i in enumerate(code) if i.op == "srax")
        product = code[k:k + 7]
        self.assertEqual([i.op for i in product], ["srax", "srlx", "sllx", "and", "sllx", "or", "xor"])
        for t in [bytes(16), b"\xff" * 16, bytes(15) + b"\x80", bytes(7) + b"\x80" + bytes(8)] + \
                [rng.randbytes(16) for _ in range(20)]:
            m = Machine(Memory(), "rk")
            m.set_gpr("l2", int.from_bytes(t[:8], "little"))
            m.set_gpr("l3", int.from_bytes(t[8:], "little"))
            for ins in product:
                m.step(ins)
            got = m.gpr("l2").to_bytes(8, "little") + m.gpr("l3").to_bytes(8, "little")
            self.assertEqual(got, reference_xts.mul_alpha(t), t.hex())

    def test_asi_little_reverses_the_bytes(self):
        mem = Memory()
        base = mem.add("buf", bytes(range(16)))
        m = Machine(mem, "rk")
        m.set_gpr("o0", base)
        m.step(Instr("ldxa", (R("l0"), Mem(R("o0")), ASI_PL)))
        m.step(Instr("ldxa", (R("l1"), Mem(R("o0")), ASI_P)))
        self.assertEqual(m.gpr("l0"), 0x0706050403020100)
        self.assertEqual(m.gpr("l1"), 0x0001020304050607)
        m.step(Instr("stxa", (Mem(R("o0")), R("l0"), ASI_P)))
        self.assertEqual(mem.bytes_of("buf")[:8], bytes(range(7, -1, -1)))
        with self.assertRaisesRegex(MachineError, "offset"):
            m.step(Instr("ldxa", (R("l0"), Mem(R("o0"), 8), ASI_PL)))
        with self.assertRaisesRegex(MachineError, "ASI 0x81"):
            m.step(Instr("ldxa", (R("l0"), Mem(R("o0")), 0x81)))
        with self.assertRaisesRegex(ValueError, "offset"):
            render(Instr("stxa", (Mem(R("o0"), 8), R("l0"), ASI_PL)))

    def test_objdump_spellings_read_back(self):
        self.assertEqual(parse(0, "stxa  %l2, [ %i1 ] #ASI_P_L"), Instr("stxa", (Mem(OUT), R("l2"), ASI_PL)))
        self.assertEqual(parse(0, "ldxa  [ %i4 ] #ASI_P_L, %l2"), Instr("ldxa", (R("l2"), Mem(IV), ASI_PL)))
        self.assertEqual(parse(0, "ldxa  [ %o5 ] #ASI_P, %l3"), Instr("ldxa", (R("l3"), Mem(R("o5")), ASI_P)))
        self.assertEqual(parse(0, "srax  %l3, 0x3f, %o4"), Instr("srax", (R("o4"), R("l3"), 63)))
        self.assertEqual(parse(0, "srlx  %l2, 0x3f, %o5"), Instr("srlx", (R("o5"), R("l2"), 63)))
        self.assertEqual(parse(0, "sllx  %l3, 1, %l3"), Instr("sllx", (R("l3"), R("l3"), 1)))
        self.assertEqual(parse(0, "and  %o4, 0x87, %o4"), Instr("and", (R("o4"), R("o4"), 0x87)))
        self.assertEqual(parse(0, "or  %l3, %o5, %l3"), Instr("or", (R("l3"), R("l3"), R("o5"))))
        for ins in (Instr("stxa", (Mem(OUT), R("l2"), ASI_PL)), Instr("ldxa", (R("l2"), Mem(IV), ASI_PL))):
            text = render(ins).strip()
            self.assertEqual(parse(0, text.replace("0x88", "#ASI_P_L")), ins, text)

    def test_an_interleave_without_room_for_the_tweaks_leaves_xts_out(self):
        with tempfile.TemporaryDirectory() as tmp:
            src = pipeline.ROOT / "generator" / "targets" / "sparc64-t4.toml"
            text = src.read_text().replace('interleave = ["auto"]', "interleave = [3]")
            self.assertIn("interleave = [3]", text)
            (Path(tmp) / "sparc64-t4.toml").write_text(text)
            v = next(x for x in sparc_variants(Path(tmp)) if x.direction == "enc" and x.key_bits == 128)
            b = EMITTERS[v.target.emitter].build(v)
            self.assertEqual([f.mode for f in b.functions], ["ecb", "ctr", "cbc"])
            self.assertRegex(b.omitted[0], r"^xts: no loop \(3 blocks' data and tweaks need 16 integer registers")


if __name__ == "__main__":
    unittest.main()
