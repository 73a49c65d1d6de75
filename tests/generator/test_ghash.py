"""GHASH as programs: the set-up and update programs against the reference GHASH for
every aggregation factor, multiply (schoolbook, Karatsuba) and reduction (shifts,
carry-less multiplies), the model's carry-less multiply, byte and half swaps against their
definitions, wrong reduction constants caught, the portable printer leaving out
exactly the lanes nothing reads, and the POWER8 (vpmsumd) printer and target."""

import random
import re
import tempfile
import unittest
from dataclasses import replace
from pathlib import Path

from aesgen import pipeline, reference_gcm
from aesgen.algorithm import ghash
from aesgen.emit import EMITTERS
from aesgen.emit.c_ghash import (ISAS, Method, PairIsa, _live_lanes, body_path, model_check, pair_statements,
                                   programs, run_tail, setup_path)
from aesgen.emit.c_simd import vector_statements
from aesgen.targets import TargetError, load_target
from aesgen.ir import Memory, Op, Program
from aesgen.model import ModelError, clmul64, execute


def run_ghash(n, h, y, data, update=None, multiply="schoolbook", reduction="shifts"):
    table = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(n, multiply))}
    execute(ghash.setkey(n, multiply=multiply, reduction=reduction), table)
    state = {"y": bytearray(y), "data": bytearray(data), "htable": table["htable"]}
    execute(update or ghash.update(n, multiply=multiply, reduction=reduction), state)
    return bytes(state["y"])


def load_edited(name, old, new):
    """A shipped target description with `old` replaced by `new`, loaded and checked."""
    text = (pipeline.ROOT / "generator" / "targets" / f"{name}.toml").read_text(encoding="utf-8")
    if old not in text:
        raise AssertionError(f"{name}.toml has no {old!r}")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"{name}.toml"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        return load_target(path, None, EMITTERS)


class Programs(unittest.TestCase):
    def test_every_aggregation_factor_matches_the_reference(self):
        rng = random.Random(11)
        for n in (1, 2, 3, 4, 6, 8, 16):
            for _ in range(3):
                h, y, data = rng.randbytes(16), rng.randbytes(16), rng.randbytes(16 * n)
                self.assertEqual(run_ghash(n, h, y, data), reference_gcm.ghash(h, data, y), n)

    def test_wide_vectors_match_the_reference(self):
        # ymm (2 blocks per vector) and zmm (4): the blocks' results summed after the reduction
        rng = random.Random(12)
        for width in (2, 4):
            for n in (width, 2 * width, 16):
                prog = ghash.update(n, width)
                self.assertEqual(prog.lanes, 2 * width)
                self.assertEqual(prog.count("clmul"), 4 * n // width)
                h, y, data = rng.randbytes(16), rng.randbytes(16), rng.randbytes(16 * n)
                self.assertEqual(run_ghash(n, h, y, data, prog), reference_gcm.ghash(h, data, y), (n, width))
        with self.assertRaises(ValueError):
            ghash.update(6, 4)

    def test_every_multiply_and_reduction_matches_the_reference(self):
        rng = random.Random(13)
        for multiply in ghash.MULTIPLIES:
            for reduction in ghash.REDUCTIONS:
                for n, width in ((1, 1), (3, 1), (8, 1), (16, 2), (16, 4)):
                    prog = ghash.update(n, width, multiply=multiply, reduction=reduction)
                    per_block = 3 if multiply == "karatsuba" else 4
                    self.assertEqual(prog.count("clmul"), per_block * n // width + 2 * (reduction == "clmul"))
                    h, y, data = rng.randbytes(16), rng.randbytes(16), rng.randbytes(16 * n)
                    self.assertEqual(run_ghash(n, h, y, data, prog, multiply, reduction),
                                     reference_gcm.ghash(h, data, y), (multiply, reduction, n, width))

    def test_karatsuba_table_holds_the_half_sums_after_the_powers(self):
        rng = random.Random(14)
        h = rng.randbytes(16)
        plain = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(4))}
        kara = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(4, "karatsuba"))}
        execute(ghash.setkey(4), plain)
        execute(ghash.setkey(4, multiply="karatsuba", reduction="clmul"), kara)
        self.assertEqual(len(kara["htable"]), 128)
        self.assertEqual(kara["htable"][:64], plain["htable"])
        for k in range(4):
            lo, hi = plain["htable"][16 * k:16 * k + 8], plain["htable"][16 * k + 8:16 * k + 16]
            half = bytes(a ^ b for a, b in zip(lo, hi))
            self.assertEqual(bytes(kara["htable"][64 + 16 * k:80 + 16 * k]), half + half)

    def test_from_32_powers_karatsuba_packs_two_half_sums_to_a_slot(self):
        # slot s: entry s's half sum in the low word, entry s + 16's in the high word; 768
        # bytes in all, so the table fits a GCM key's 960
        n = ghash.PACKED_HALVES
        self.assertFalse(ghash.packed_halves(n // 2, "karatsuba"))
        self.assertFalse(ghash.packed_halves(n, "schoolbook"))
        self.assertEqual(ghash.table_bytes(n, "karatsuba"), 24 * n)
        self.assertNotEqual(ghash.table_layout(n, "karatsuba"), ghash.table_layout(n // 2, "karatsuba").replace("16", "32"))
        rng = random.Random(17)
        h = rng.randbytes(16)
        plain = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(n))}
        kara = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(n, "karatsuba"))}
        execute(ghash.setkey(n), plain)
        execute(ghash.setkey(n, multiply="karatsuba", reduction="clmul"), kara)
        self.assertEqual(kara["htable"][:16 * n], plain["htable"])
        half = lambda e: bytes(a ^ b for a, b in zip(plain["htable"][16 * e:16 * e + 8], plain["htable"][16 * e + 8:16 * e + 16]))
        for s in range(n // 2):
            self.assertEqual(bytes(kara["htable"][16 * n + 16 * s:16 * n + 16 * s + 16]), half(s) + half(s + n // 2), s)
        for width in (1, 2, 4):     # the update and the tails on the packed table
            y, data = rng.randbytes(16), rng.randbytes(16 * n)
            self.assertEqual(run_ghash(n, h, y, data, ghash.update(n, width, multiply="karatsuba", reduction="clmul"),
                                       "karatsuba", "clmul"), reference_gcm.ghash(h, data, y), width)
        progs = programs(Method(n, 4, "karatsuba", "clmul"))
        self.assertNotIn("half", [m.name for m in progs.tail[0].memories])
        for k in (1, 17, n - 1):
            y0, data = rng.randbytes(16), rng.randbytes(16 * k)
            y = bytearray(y0)
            run_tail(progs, kara["htable"], y, data)
            self.assertEqual(bytes(y), reference_gcm.ghash(h, data, y0), k)

    def test_the_half_update_reads_the_last_powers_of_a_longer_table(self):
        # 16 of 32 blocks on H^16..H^1: one wide update for the 16-31 blocks a message leaves
        # (one block per vector: wider methods take those blocks through the wide tail)
        self.assertIsNone(programs(Method(16, 1, "karatsuba", "clmul")).half)
        self.assertIsNone(programs(Method(32, 4, "karatsuba", "clmul")).half)
        rng = random.Random(18)
        for multiply in ghash.MULTIPLIES:
            progs = programs(Method(32, 1, multiply, "clmul"))
            self.assertEqual(progs.half.count("clmul"), progs.update.count("clmul") // 2 + 1, multiply)
            h = rng.randbytes(16)
            table = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(32, multiply))}
            execute(progs.setkey, table)
            y, data = rng.randbytes(16), rng.randbytes(16 * 16)
            state = {"y": bytearray(y), "data": bytearray(data), "htable": table["htable"]}
            execute(progs.half, state)
            self.assertEqual(bytes(state["y"]), reference_gcm.ghash(h, data, y), multiply)
        with self.assertRaisesRegex(ValueError, "16 blocks on a table of 8 powers"):
            ghash.update(16, 4, table_powers=8)

    def test_a_vector_of_packed_half_sums_never_straddles_the_halves(self):
        with self.assertRaisesRegex(ValueError, "straddles the halves"):
            ghash.update(36, 4, multiply="karatsuba", reduction="clmul")     # 18 per half: blocks 16..19 straddle

    def test_the_wide_set_up_writes_the_set_ups_table(self):
        # every byte, for each width, multiply and reduction, packed half sums or not;
        # fewer products than the narrow set-up's one per power
        rng = random.Random(18)
        for width in (2, 4):
            for n in (width, 2 * width, 16, 32):
                for multiply in ghash.MULTIPLIES:
                    for reduction in ghash.REDUCTIONS:
                        wide = ghash.setkey_wide(n, width, multiply, reduction)
                        self.assertEqual(wide.lanes, 2 * width)
                        h = rng.randbytes(16)
                        want = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(n, multiply))}
                        got = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(n, multiply))}
                        execute(ghash.setkey(n, multiply=multiply, reduction=reduction), want)
                        execute(wide, got)
                        self.assertEqual(got["htable"], want["htable"], (width, n, multiply, reduction))
        self.assertLess(ghash.setkey_wide(32, 4, "karatsuba", "clmul").count("clmul"),
                        ghash.setkey(32, multiply="karatsuba", reduction="clmul").count("clmul") // 3)

    def test_a_wide_set_up_needs_a_power_of_two_number_of_vectors(self):
        self.assertTrue(ghash.wide_setkey_fits(32, 4))
        self.assertFalse(ghash.wide_setkey_fits(24, 4))    # 6 vectors
        self.assertFalse(ghash.wide_setkey_fits(8, 1))
        with self.assertRaisesRegex(ValueError, "power-of-two number"):
            ghash.setkey_wide(12, 4)
        self.assertIsNone(programs(Method(24, 4, "karatsuba", "clmul")).setkey_wide)
        self.assertIsNotNone(programs(Method(32, 4, "karatsuba", "clmul")).setkey_wide)

    def test_a_wide_set_up_with_a_misplaced_power_is_caught(self):
        # the model check compares the two set-ups' tables before it hashes anything
        progs = programs(Method(32, 4, "karatsuba", "clmul"))
        wide = progs.setkey_wide
        k = max(i for i, op in enumerate(wide.ops) if op.code == "vst" and op.args[1] < 16 * 32)
        op = wide.ops[k]
        wide.ops[k] = Op("vst", None, (op.args[0], op.args[1] ^ 64, op.args[2]))
        with self.assertRaisesRegex(ModelError, "wide set-up's table differs"):
            model_check("test", progs, 5)

    def test_unknown_choices_are_refused(self):
        with self.assertRaisesRegex(ValueError, "multiply 'toom'"):
            ghash.update(4, multiply="toom")
        with self.assertRaisesRegex(ValueError, "reduction 'barrett'"):
            ghash.setkey(4, reduction="barrett")

    def test_a_wrong_reduction_multiplier_is_caught(self):
        prog = ghash.update(4, reduction="clmul")
        k = next(i for i, op in enumerate(prog.ops) if op.code == "clmul" and op.args[2] == 0x10
                 and op.args[1].startswith("poly"))
        prog.ops[k] = Op("clmul", prog.ops[k].dst, (prog.ops[k].args[0], prog.ops[k].args[1], 0x00))
        rng = random.Random(3)
        h, y, data = rng.randbytes(16), rng.randbytes(16), rng.randbytes(64)
        self.assertNotEqual(run_ghash(4, h, y, data, prog, reduction="clmul"), reference_gcm.ghash(h, data, y))

    def test_tails_of_every_length_match_the_reference(self):
        # the C loop over the tail programs, as run_tail models it: k < N blocks, one reduction
        rng = random.Random(15)
        for multiply in ghash.MULTIPLIES:
            for reduction in ghash.REDUCTIONS:
                progs = programs(Method(8, 1, multiply, reduction))
                self.assertEqual(progs.tail[2].count("clmul"), 2 * (reduction == "clmul"))
                h = rng.randbytes(16)
                table = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(8, multiply))}
                execute(progs.setkey, table)
                for k in range(1, 8):
                    y0, data = rng.randbytes(16), rng.randbytes(16 * k)
                    y = bytearray(y0)
                    run_tail(progs, table["htable"], y, data)
                    self.assertEqual(bytes(y), reference_gcm.ghash(h, data, y0), (multiply, reduction, k))
        self.assertIsNone(programs(Method(1)).tail)

    def test_wide_tails_of_every_length_match_the_reference(self):
        # ghash_tail_wide as run_tail models it: from two vectors on, whole vectors (y in
        # block 0 of the first), then the blocks after them, one reduction for all
        rng = random.Random(19)
        for n, width in ((16, 2), (32, 4), (16, 4)):
            for multiply in ghash.MULTIPLIES:
                for reduction in ghash.REDUCTIONS:
                    progs = programs(Method(n, width, multiply, reduction))
                    self.assertIsNotNone(progs.tail_wide, (n, width))
                    self.assertIsNone(progs.half)
                    self.assertEqual(progs.tail_wide[2].count("clmul"), 2 * (reduction == "clmul"))
                    h = rng.randbytes(16)
                    table = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(n, multiply))}
                    execute(progs.setkey, table)
                    for k in range(1, n):
                        y0, data = rng.randbytes(16), rng.randbytes(16 * k)
                        y = bytearray(y0)
                        run_tail(progs, table["htable"], y, data)
                        self.assertEqual(bytes(y), reference_gcm.ghash(h, data, y0), (n, width, multiply, k))
        self.assertIsNone(programs(Method(8, 1)).tail_wide)
        self.assertIsNone(programs(Method(4, 2)).tail_wide)     # no tail of two whole vectors

    def test_a_wide_tail_that_misreads_y_or_the_narrow_sums_is_caught(self):
        rng = random.Random(20)
        progs = programs(Method(16, 4, "karatsuba", "clmul"))
        h = rng.randbytes(16)
        table = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(16, "karatsuba"))}
        execute(progs.setkey, table)
        first, more, red = progs.tail_wide

        def mutated(prog, mem, args):
            return Program(prog.name, prog.bits, prog.memories, lanes=prog.lanes,
                           ops=[Op(op.code, op.dst, args) if op.code == "vld128" and op.args[0] == mem else op
                                for op in prog.ops])
        y0, data = rng.randbytes(16), rng.randbytes(16 * 11)     # two vectors, then 3 blocks
        y = bytearray(y0)
        run_tail(progs, table["htable"], y, data)
        self.assertEqual(bytes(y), reference_gcm.ghash(h, data, y0))
        for broken in (replace(progs, tail_wide=(mutated(first, "y", ("data", 0)), more, red)),   # y never read
                       replace(progs, tail_wide=(first, more, mutated(red, "sums", ("sums", 0))))):  # LO thrice
            y = bytearray(y0)
            run_tail(broken, table["htable"], y, data)
            self.assertNotEqual(bytes(y), reference_gcm.ghash(h, data, y0))

    def test_a_tail_with_the_wrong_powers_is_caught(self):
        # the powers one entry off (H^(k-i+1)): the model check must refuse it
        progs = programs(Method(4, 1, "karatsuba", "clmul"))
        rng = random.Random(16)
        h = rng.randbytes(16)
        table = {"h": bytearray(h), "htable": bytearray(ghash.table_bytes(4, "karatsuba"))}
        execute(progs.setkey, table)
        shifted = bytearray(table["htable"][16:64]) + bytearray(16) + bytearray(table["htable"][80:]) + bytearray(16)
        y0, data = rng.randbytes(16), rng.randbytes(32)
        y = bytearray(y0)
        run_tail(progs, shifted, y, data)
        self.assertNotEqual(bytes(y), reference_gcm.ghash(h, data, y0))

    def test_one_block_loads_and_stores_on_wide_vectors(self):
        prog = Program("p", 64, (Memory("y", "bytes", 16, True), Memory("m", "bytes", 32, True)), lanes=4)
        prog.ops += [Op("vld128", "a", ("y", 0)), Op("vld", "b", ("m", 0)), Op("xor", "c", ("a", "b")),
                     Op("vst", None, ("m", 0, "c")), Op("vst128", None, ("y", 0, "b"))]
        y, m = random.Random(6).randbytes(16), random.Random(7).randbytes(32)
        mem = {"y": bytearray(y), "m": bytearray(m)}
        execute(prog, mem)
        self.assertEqual(bytes(mem["m"]), bytes(a ^ b for a, b in zip(y, m[:16])) + m[16:])  # upper block zero
        self.assertEqual(bytes(mem["y"]), m[:16])

    def test_a_wrong_reduction_constant_is_caught(self):
        prog = ghash.update(4)
        k = next(i for i, op in enumerate(prog.ops) if op.code == "shl" and op.args[1] == 57)
        prog.ops[k] = Op("shl", prog.ops[k].dst, (prog.ops[k].args[0], 56))
        rng = random.Random(2)
        h, y, data = rng.randbytes(16), rng.randbytes(16), rng.randbytes(64)
        self.assertNotEqual(run_ghash(4, h, y, data, prog), reference_gcm.ghash(h, data, y))

    def test_swap64_in_the_model(self):
        prog = Program("p", 64, (Memory("m", "bytes", 32, True),), lanes=4)
        prog.ops += [Op("vld", "a", ("m", 0)), Op("swap64", "b", ("a",)), Op("vst", None, ("m", 0, "b"))]
        a = random.Random(8).randbytes(32)
        mem = {"m": bytearray(a)}
        execute(prog, mem)
        self.assertEqual(bytes(mem["m"]), a[8:16] + a[:8] + a[24:] + a[16:24])

    def test_clmul_and_bswap_in_the_model(self):
        self.assertEqual(clmul64(0b11, 0b11), 0b101)
        self.assertEqual(clmul64((1 << 64) - 1, 2), ((1 << 64) - 1) << 1)
        prog = Program("p", 64, (Memory("m", "bytes", 32, True),), lanes=2)
        prog.ops += [Op("vld", "a", ("m", 0)), Op("vld", "b", ("m", 16)),
                     Op("clmul", "c", ("a", "b", 0x10)), Op("bswap", "d", ("a",)),
                     Op("vst", None, ("m", 0, "c")), Op("vst", None, ("m", 16, "d"))]
        a, b = random.Random(4).randbytes(16), random.Random(5).randbytes(16)
        mem = {"m": bytearray(a + b)}
        execute(prog, mem)
        want = clmul64(int.from_bytes(a[:8], "little"), int.from_bytes(b[8:], "little"))
        self.assertEqual(bytes(mem["m"][:16]), want.to_bytes(16, "little"))
        self.assertEqual(bytes(mem["m"][16:]), a[::-1])


class Choices(unittest.TestCase):
    """multiply and reduction in a target: the ISA's default when absent, every listed
    combination a variant named by what differs from the default, the first preferred."""

    def load(self, name, extra):
        return load_edited(name, "[variants]\n", "[variants]\n" + extra)

    def test_defaults_and_names(self):
        emitter = EMITTERS["c_ghash"]
        shipped = emitter.variants(self.load("ghash-x86_64-pclmul", ""))
        self.assertEqual([(v.name, v.param("multiply"), v.param("reduction")) for v in shipped],
                         [("ghash__x86_64_pclmul_x8", "karatsuba", "clmul")])
        portable = emitter.variants(self.load("ghash-portable", ""))
        self.assertEqual([(v.param("multiply"), v.param("reduction")) for v in portable], [("karatsuba", "shifts")])
        listed = emitter.variants(self.load("ghash-x86_64-pclmul", 'multiply = ["schoolbook", "karatsuba"]\n'
                                            'reduction = ["shifts", "clmul"]\n'))
        self.assertEqual([v.name for v in listed], [
            "ghash__x86_64_pclmul_x8_schoolbook_shifts", "ghash__x86_64_pclmul_x8_schoolbook",
            "ghash__x86_64_pclmul_x8_shifts", "ghash__x86_64_pclmul_x8"])
        self.assertEqual([v.rank for v in listed], [300, 301, 302, 303])
        for v in listed:     # each one model-checked as generate does
            self.assertIn("against the reference GHASH", emitter.verify(emitter.build(v)))

    def test_an_unknown_choice_names_the_field(self):
        with self.assertRaisesRegex(TargetError, r"ghash-x86_64-pclmul.toml.*variants.multiply.*'toom'"):
            self.load("ghash-x86_64-pclmul", 'multiply = ["toom"]\n')
        with self.assertRaisesRegex(TargetError, r"variants.reduction.*lists a value twice"):
            self.load("ghash-portable", 'reduction = ["clmul", "clmul"]\n')


class PortablePrinter(unittest.TestCase):
    def test_unread_lanes_are_left_out(self):
        prog = ghash.update(1)
        live = _live_lanes(prog)
        lines = pair_statements(prog)
        # the reduction's first fold reads only the low word of its shifts
        folds = [op.dst for op in prog.ops if op.code == "shl" and op.args[1] == 63][:1]
        self.assertTrue(folds)
        self.assertIn((folds[0], 0), live)
        self.assertNotIn((folds[0], 1), live)
        self.assertFalse(any(f"{folds[0]}_hi =" in line for line in lines))
        self.assertTrue(any("aesgen_clmul64(" in line for line in lines))

    def test_each_scalar_isa_multiplies_by_its_helper(self):
        """Every PairIsa's multiply is a static function of aesgen_clmul.h (inline, or for
        the portable one called: AESGEN_CLMUL_CALLED), under the same guard as the
        variants that call it, and the only multiply its body prints."""
        header = (pipeline.ROOT / "runtime" / "src" / "aesgen_clmul.h").read_text(encoding="utf-8")
        pairs = [isa for isa in ISAS.values() if isinstance(isa, PairIsa)]
        self.assertEqual({isa.name for isa in pairs}, {"portable", "rv_clmul", "sparc_vis3"})
        for isa in pairs:
            self.assertRegex(header, rf"static (inline|AESGEN_CLMUL_CALLED) uint64_t {isa.clmul}\(uint64_t x, "
                                     rf"uint64_t y, uint64_t \*hi\)")
            if isa.guard:
                self.assertIn(f"#if {isa.guard}\n", header[:header.index(f" {isa.clmul}(")])
            lines = pair_statements(ghash.update(4), isa.clmul)
            calls = [line for line in lines if "clmul64" in line]
            self.assertTrue(calls and all(f"{isa.clmul}(" in line for line in calls), isa.name)

    def test_vis3_words_encode_the_named_instructions(self):
        """aesgen_clmul.h spells xmulx and xmulxhi as words (C compiles get no -Av9d): each
        word must be op 2, op3 0x36 (IMPDEP1), the opf and the registers its comment names."""
        header = (pipeline.ROOT / "runtime" / "src" / "aesgen_clmul.h").read_text(encoding="utf-8")
        regs = {f"%g{i}": i for i in range(8)}
        found = re.findall(r"\* +0x([0-9a-f]{8}) +(xmulx|xmulxhi) +(%g\d), (%g\d), (%g\d)", header)
        self.assertEqual(len(found), 2)
        for word, name, rs1, rs2, rd in found:
            opf = {"xmulx": 0x115, "xmulxhi": 0x116}[name]
            want = 2 << 30 | regs[rd] << 25 | 0x36 << 19 | regs[rs1] << 14 | opf << 5 | regs[rs2]
            self.assertEqual(int(word, 16), want, name)
            self.assertIn(f".word 0x{word}", header)


class PowerPrinter(unittest.TestCase):
    """p8_vpmsumd: every op the GHASH programs use has a spelling; vpmsumd sums both lanes'
    products, so each single product pairs the wanted lane of b with a zero first (the
    mapping below was checked under qemu-ppc64le -cpu power8; the cross suite's
    gcm_vectors_ghash_ghash__ppc64le_p8_x8 runs the printed programs)."""

    isa = ISAS["p8_vpmsumd"]

    def test_every_program_prints(self):
        for multiply in ghash.MULTIPLIES:
            for reduction in ghash.REDUCTIONS:
                progs = programs(Method(8, 1, multiply, reduction))
                for prog in (progs.setkey, progs.update, *progs.tail):
                    text = "\n".join(vector_statements(prog, self.isa))
                    self.assertEqual(text.count("__builtin_crypto_vpmsumd("), prog.count("clmul"), prog.name)
                    self.assertNotIn("_mm", text)
                    self.assertNotIn("vld1q", text)
                    for line in text.splitlines():
                        if "=" in line:
                            self.assertTrue(line.lstrip().startswith("const __vector unsigned long long "), line)

    def test_default_update_multiplies(self):
        prog = programs(Method(8, 1, "karatsuba", "clmul")).update
        text = "\n".join(vector_statements(prog, self.isa))
        self.assertEqual(text.count("__builtin_crypto_vpmsumd("), 26)   # 3 per block, 2 to reduce

    def test_lane_selectors(self):
        zero = []
        const = lambda key, expr: zero.append((key, expr)) or "Z"
        want = {0x00: "vec_mergeh(b, Z)", 0x11: "vec_mergel(Z, b)",
                0x10: "vec_mergel(b, Z)", 0x01: "vec_mergeh(Z, b)"}
        for sel, pair in want.items():
            self.assertEqual(self.isa.clmul("a", "b", sel, const), f"__builtin_crypto_vpmsumd(a, {pair})")
        self.assertEqual({k for k, _ in zero}, {("value", 0)})

    def test_what_it_cannot_spell_is_refused(self):
        with self.assertRaisesRegex(ValueError, "64-bit lanes"):
            self.isa.vtype(32)
        with self.assertRaisesRegex(ValueError, "32-bit units"):
            self.isa.shuffle("unpacklo", "a", "b", 32, 64)
        with self.assertRaisesRegex(ValueError, "ror"):
            self.isa.expr("ror", ["a", 8], 64, lambda key, expr: "K")

    def test_generated_files_and_cmake(self):
        gen = pipeline.ROOT / "generated"
        m = Method(8, 1, "karatsuba", "clmul")
        self.assertEqual(body_path(self.isa, m), "common/ghash_ppc64le_x8.h")
        self.assertEqual(setup_path(self.isa, m), "common/ghash_ppc64le_x8_setup.h")
        for path in (body_path(self.isa, m), setup_path(self.isa, m), "ghash_ppc64le_p8/ghash__ppc64le_p8_x8.c"):
            self.assertTrue((gen / path).is_file(), path)
        variant = (gen / "ghash_ppc64le_p8/ghash__ppc64le_p8_x8.c").read_text(encoding="utf-8")
        self.assertIn("#if defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)", variant)
        self.assertIn('__attribute__((target("cpu=power8")))', variant)
        cmake = (gen / "sources.cmake").read_text(encoding="utf-8")
        self.assertIn('set(AESGEN_FEATURES_ghash__ppc64le_p8_x8 "ppc_vcrypto")', cmake)
        self.assertIn("ghash_ppc64le_p8/ghash__ppc64le_p8_x8.c", cmake)

    def test_target_is_checked(self):
        emitter = EMITTERS["c_ghash"]
        target = load_edited("ghash-ppc64le-p8", "", "")
        self.assertEqual([(v.name, v.rank, emitter.processor_of(v)) for v in emitter.variants(target)],
                         [("ghash__ppc64le_p8_x8", 300, "^(ppc64le|powerpc64le)$")])
        with self.assertRaisesRegex(TargetError, r"isa.name.*'p9_vpmsumd'"):
            load_edited("ghash-ppc64le-p8", 'name = "p8_vpmsumd"', 'name = "p9_vpmsumd"')
        with self.assertRaisesRegex(TargetError, r"p8_vpmsumd needs exactly \[ppc_vcrypto\]"):
            load_edited("ghash-ppc64le-p8", 'cpu_features = ["ppc_vcrypto"]', 'cpu_features = ["arm_pmull"]')


if __name__ == "__main__":
    unittest.main()
