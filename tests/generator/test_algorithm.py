"""Layout primitives against their index formulas, and the model against the reference."""

import random
import unittest

from aesgen import reference
from aesgen.algorithm import aes, circuits
from aesgen.algorithm.bitsliced import Layout
import dataclasses

from aesgen.ir import Builder, Loop, Memory, Op, Program, ProgramError, check, check_loop
from aesgen.model import ModelError, execute, run, verify_block_cipher


def run_slice_op(layout, fn, x):
    """Apply a one-slice builder function to value x through the model."""
    p = Program("t", layout.word_bits, (Memory("w", "words", 2, True),))
    b = Builder(p)
    b.stw("w", 1, fn(b, b.ldw("w", 0)))
    mem = {"w": [x, 0]}
    execute(p, mem)
    return mem["w"][1]


def permute_cells(layout, x, source):
    """Reference: out(r, c) = in(source(r, c)) for every block bit."""
    out = 0
    for r in range(4):
        for c in range(4):
            sr, sc = source(r, c)
            for b in range(layout.blocks):
                if (x >> layout.position(sr % 4, sc % 4, b)) & 1:
                    out |= 1 << layout.position(r, c, b)
    return out


class LayoutPrimitives(unittest.TestCase):
    def test_rho_and_shift_rows_match_index_formulas(self):
        rng = random.Random(1)
        for bits in (32, 64):
            layout = Layout(bits)
            for _ in range(20):
                x = rng.getrandbits(bits)
                for dr in range(4):
                    for dc in range(4):
                        got = run_slice_op(layout, lambda b, v: layout.rho(b, v, dr, dc), x)
                        self.assertEqual(got, permute_cells(layout, x, lambda r, c: (r + dr, c + dc)))
                for e in range(-1, 4):
                    got = run_slice_op(layout, lambda b, v: layout.shift_rows(b, v, e), x)
                    self.assertEqual(got, permute_cells(layout, x, lambda r, c: (r, c + e * r)))

    def test_pack_unpack_round_trip_and_layout(self):
        for bits in (32, 64):
            layout = Layout(bits)
            n = 16 * layout.blocks
            p = Program("t", bits, (Memory("in", "bytes", n, False), Memory("out", "bytes", n, True),
                                    Memory("w", "words", 8, True)))
            b = Builder(p)
            s = layout.pack(b, "in")
            for k in range(8):
                b.stw("w", k, s[k])
            layout.unpack(b, s, "out")
            data = bytes(random.Random(bits).randbytes(n))
            mem = {"in": bytearray(data), "out": bytearray(n), "w": [0] * 8}
            execute(p, mem)
            self.assertEqual(bytes(mem["out"]), data)
            for blk in range(layout.blocks):
                for r in range(4):
                    for c in range(4):
                        byte = data[16 * blk + 4 * c + r]
                        for k in range(8):
                            self.assertEqual((mem["w"][k] >> layout.position(r, c, blk)) & 1, (byte >> k) & 1)


class Programs(unittest.TestCase):
    SBOX = circuits.load("bp113")
    INV = circuits.load("cmt121")

    def programs(self, bits, key_bits, direction, alg="fixslice"):
        layout = Layout(bits)
        keys = (aes.key_expansion(key_bits, self.SBOX), aes.pack_round_keys(layout, key_bits, alg))
        if direction == "enc":
            core = aes.fixsliced_encrypt(layout, key_bits, self.SBOX)
        elif alg == "fixslice":
            core = aes.fixsliced_decrypt(layout, key_bits, self.INV)
        else:
            core = aes.bitsliced_decrypt(layout, key_bits, self.INV)
        return layout, keys, core

    def test_every_variant_agrees_with_reference(self):
        for bits in (32, 64):
            for key_bits in (128, 192, 256):
                for direction, alg in (("enc", "fixslice"), ("dec", "fixslice"), ("dec", "bitslice")):
                    layout, keys, core = self.programs(bits, key_bits, direction, alg)
                    verify_block_cipher("t", key_bits, direction, keys, core, layout.blocks, 3, 7)

    def test_key_expansion_matches_reference(self):
        rng = random.Random(3)
        for key_bits in (128, 192, 256):
            key = rng.randbytes(key_bits // 8)
            prog = aes.key_expansion(key_bits, self.SBOX)
            mem = {"key": bytearray(key), "rkb": bytearray(16 * (aes.rounds(key_bits) + 1))}
            execute(prog, mem)
            self.assertEqual(bytes(mem["rkb"]), b"".join(reference.expand_key(key)))

    def test_rolled_key_expansion_matches_reference(self):
        # a loop over rows of Nk words writing its window of rkb, a last partial row after
        rng = random.Random(4)
        for key_bits, times in ((128, 10), (192, 7), (256, 6)):
            loop = aes.key_expansion_rolled(key_bits, self.SBOX)
            self.assertEqual(loop.times, times)
            self.assertTrue(loop.body.memory("row").writable)
            self.assertLess(loop.static_alu_count(), aes.key_expansion(key_bits, self.SBOX).alu_count() // 3)
            for key in (bytes(range(key_bits // 8)), rng.randbytes(key_bits // 8)):
                mem = {"key": bytearray(key), "rkb": bytearray(16 * (aes.rounds(key_bits) + 1))}
                run(loop, mem)
                self.assertEqual(bytes(mem["rkb"]), b"".join(reference.expand_key(key)), key_bits)

    def test_a_written_window_must_be_inside_a_writable_memory(self):
        loop = aes.key_expansion_rolled(128, self.SBOX)
        with self.assertRaises(ProgramError):     # past the schedule's end on the last row
            check_loop(dataclasses.replace(loop, times=11))
        ro = Memory("rkb", "bytes", 176, False)
        head = dataclasses.replace(loop.head, memories=(loop.head.memories[0], ro))
        tail = dataclasses.replace(loop.tail, memories=(loop.tail.memories[0], ro))
        with self.assertRaises(ProgramError):     # writes through a window into read-only memory
            check_loop(dataclasses.replace(loop, head=head, tail=tail))

    def test_model_rejects_corrupted_sequences(self):
        """Flip one operand, drop one op, swap an opcode: each must be caught."""
        layout, keys, core = self.programs(64, 128, "enc")
        i = next(i for i, op in enumerate(core.ops) if op.code == "and" and isinstance(op.args[1], str))
        for mutate in (
            lambda ops: ops.__setitem__(i, Op("or", ops[i].dst, ops[i].args)),          # wrong gate
            lambda ops: ops.__setitem__(i, Op("and", ops[i].dst, (ops[i].args[1], ops[i].args[1]))),
            lambda ops: ops.insert(len(ops) - 1, ops.pop(len(ops) - 2)),                  # reordered stores
        ):
            bad = Program(core.name, core.bits, core.memories, list(core.ops))
            mutate(bad.ops)
            with self.assertRaises((ModelError, ProgramError)):
                verify_block_cipher("corrupt", 128, "enc", keys, bad, layout.blocks, 2, 11)

    def test_structural_checks(self):
        p = Program("t", 32, (Memory("m", "bytes", 4, False),))
        p.ops = [Op("xor", "a", ("b", 1))]
        with self.assertRaisesRegex(ProgramError, "used before it is defined"):
            check(p)
        p.ops = [Op("ld", "a", ("m", 2, 32))]
        with self.assertRaisesRegex(ProgramError, "out of bounds"):
            check(p)
        p.ops = [Op("ld", "a", ("m", 0, 32)), Op("st", None, ("m", 0, 32, "a"))]
        with self.assertRaisesRegex(ProgramError, "read-only"):
            check(p)
        p.ops = [Op("ld", "a", ("m", 0, 32)), Op("not", "a", ("a",))]
        with self.assertRaisesRegex(ProgramError, "assigned twice"):
            check(p)


class Rolled(unittest.TestCase):
    """unroll = "loop4": the 4-round period as a loop, checked by the model as the C runs it."""
    SBOX, INV = Programs.SBOX, Programs.INV

    def core(self, layout, key_bits, direction, alg, unroll):
        if direction == "enc":
            return aes.fixsliced_encrypt(layout, key_bits, self.SBOX, unroll)
        return aes.decrypt(layout, key_bits, alg, self.INV, unroll)

    def test_every_rolled_core_agrees_with_reference_and_does_the_same_work(self):
        for bits in (32, 64):
            layout = Layout(bits)
            for key_bits in (128, 192, 256):
                for direction, alg in (("enc", "fixslice"), ("dec", "fixslice"), ("dec", "bitslice")):
                    keys = (aes.key_expansion(key_bits, self.SBOX), aes.pack_round_keys(layout, key_bits, alg))
                    loop = self.core(layout, key_bits, direction, alg, "loop4")
                    full = self.core(layout, key_bits, direction, alg, "full")
                    self.assertIsInstance(loop, Loop)
                    self.assertEqual(loop.times, (aes.rounds(key_bits) - 1) // 4)
                    self.assertEqual(loop.descending, direction == "dec")
                    verify_block_cipher("t", key_bits, direction, keys, loop, layout.blocks, 3, 7)
                    self.assertEqual(loop.alu_count(), full.alu_count())
                    self.assertLess(loop.static_alu_count(), full.alu_count())

    def test_a_loop_walking_the_wrong_keys_is_caught(self):
        layout = Layout(32)
        for direction, alg in (("enc", "fixslice"), ("dec", "fixslice"), ("dec", "bitslice")):
            keys = (aes.key_expansion(256, self.SBOX), aes.pack_round_keys(layout, 256, alg))
            loop = self.core(layout, 256, direction, alg, "loop4")
            for bad in (dataclasses.replace(loop, stride=0),                    # the same 4 keys every time
                        dataclasses.replace(loop, descending=not loop.descending),  # periods in the wrong order
                        dataclasses.replace(loop, times=loop.times - 1)):       # one period missing
                with self.assertRaises(ModelError):
                    verify_block_cipher("bad", 256, direction, keys, bad, layout.blocks, 1, 5)

    def test_loop_structure_checks(self):
        loop = self.core(Layout(64), 128, "enc", "fixslice", "loop4")
        with self.assertRaisesRegex(ProgramError, "iteration 2 reads rk"):
            check_loop(dataclasses.replace(loop, times=3))
        with self.assertRaisesRegex(ProgramError, "carried state"):
            check_loop(dataclasses.replace(loop, head=dataclasses.replace(loop.head, outputs=loop.head.outputs[:7])))
        with self.assertRaisesRegex(ProgramError, "defined in two pieces"):
            check_loop(dataclasses.replace(loop, tail=dataclasses.replace(loop.tail, ops=loop.head.ops + loop.tail.ops)))
        with self.assertRaisesRegex(ProgramError, "output 'nowhere'"):
            check(dataclasses.replace(loop.body, outputs=("nowhere",)))
        with self.assertRaisesRegex(ValueError, "unroll 'loop3'"):
            self.core(Layout(64), 128, "enc", "fixslice", "loop3")



if __name__ == "__main__":
    unittest.main()
