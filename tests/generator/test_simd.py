"""The SIMD emitter: the ternary-logic pass (checked on random circuits and on the AES
cores, and a corrupted truth table must be caught), the transpose networks that move
blocks into lanes and back (every lane width and vector width, and a wrong shuffle must
be caught), the printer's byte-shuffle rotations (simulated against the rotation they
replace), and no generated SIMD file staging lanes through memory."""

import random
import re
import unittest

from aesgen import pipeline
from aesgen.algorithm import aes, circuits
from aesgen.algorithm.bitsliced import Layout
from aesgen.emit.c_simd import ISAS, vector_core_statements, vector_statements
from aesgen.ir import SHUFFLE_OPS, Builder, Memory, Op, Program
from aesgen.lanes import GROUP_WORDS, networks, vectorize
from aesgen.model import ModelError, execute, verify_block_cipher
from aesgen.passes import byte_rotate_blends, fuse_ternary, hoist_logic, share_rotations


def random_logic(seed: int, inputs: int = 5, ops: int = 60) -> Program:
    rng = random.Random(seed)
    prog = Program(f"random{seed}", 32, (Memory("x", "words", inputs, False), Memory("y", "words", 4, True)))
    values = []
    for i in range(inputs):
        prog.ops.append(Op("ldw", f"i{i}", ("x", i)))
        values.append(f"i{i}")
    for k in range(ops):
        code = rng.choice(["xor", "and", "or", "andn", "not"])
        args = (rng.choice(values),) if code == "not" else (rng.choice(values), rng.choice(values + [0x0F0F0F0F]))
        prog.ops.append(Op(code, f"v{k}", args))
        values.append(f"v{k}")
    for j in range(4):
        prog.ops.append(Op("stw", None, ("y", j, values[-1 - 7 * j])))
    return prog


class TernaryPass(unittest.TestCase):
    def test_random_circuits_keep_their_function(self):
        rng = random.Random(7)
        for seed in range(40):
            p = random_logic(seed)
            q = fuse_ternary(p)
            self.assertLessEqual(q.alu_count(), p.alu_count())
            for _ in range(4):
                x = [rng.getrandbits(32) for _ in range(5)]
                a, b = {"x": x, "y": [0] * 4}, {"x": x, "y": [0] * 4}
                execute(p, a)
                execute(q, b)
                self.assertEqual(a["y"], b["y"], f"seed {seed}")

    def test_aes_core_shrinks_and_still_encrypts(self):
        layout, sbox = Layout(32), circuits.load("bp113")
        core = aes.fixsliced_encrypt(layout, 128, sbox)
        fused = fuse_ternary(core)
        self.assertLess(fused.alu_count(), 0.75 * core.alu_count())
        self.assertGreater(fused.count("ternary"), 400)
        keys = (aes.key_expansion(128, sbox), aes.pack_round_keys(layout, 128, "fixslice"))
        verify_block_cipher("fused", 128, "enc", keys, fused, layout.blocks, 1, 1)

    def test_a_wrong_truth_table_is_caught(self):
        layout, sbox = Layout(32), circuits.load("bp113")
        fused = fuse_ternary(aes.fixsliced_encrypt(layout, 128, sbox))
        k = next(i for i, op in enumerate(fused.ops) if op.code == "ternary")
        op = fused.ops[k]
        fused.ops[k] = Op("ternary", op.dst, op.args[:3] + (op.args[3] ^ 0x10,))
        keys = (aes.key_expansion(128, sbox), aes.pack_round_keys(layout, 128, "fixslice"))
        with self.assertRaises(ModelError):
            verify_block_cipher("broken", 128, "enc", keys, fused, layout.blocks, 1, 1)


class SharedRotations(unittest.TestCase):
    """A rotation a whole number of bytes past an earlier one of the same value becomes a
    byte rotation of it (one vpshufb on AVX2 instead of two shifts and an OR)."""

    def test_random_rotations_keep_their_function(self):
        rng = random.Random(11)
        for seed in range(30):
            p = Program(f"rot{seed}", 32, (Memory("x", "words", 3, False), Memory("y", "words", 12, True)))
            for i in range(3):
                p.ops.append(Op("ldw", f"i{i}", ("x", i)))
            for j in range(12):
                p.ops.append(Op("ror", f"r{j}", (f"i{rng.randrange(3)}", rng.choice([2, 4, 6, 10, 12, 18, 20, 26, 8, 16]))))
                p.ops.append(Op("stw", None, ("y", j, f"r{j}")))
            q = share_rotations(p)
            for _ in range(3):
                x = [rng.getrandbits(32) for _ in range(3)]
                a, b = {"x": x, "y": [0] * 12}, {"x": x, "y": [0] * 12}
                execute(p, a)
                execute(q, b)
                self.assertEqual(a["y"], b["y"], f"seed {seed}")
            # what is left off whole bytes has one amount per value and residue
            left = {(op.args[0], op.args[1]) for op in q.ops if op.code == "ror" and op.args[1] % 8}
            self.assertEqual(len(left), len({(a, n % 8) for a, n in left}))

    def test_fixsliced_cores_halve_their_bit_rotations_and_still_agree(self):
        layout = Layout(32)
        for key_bits, direction in ((128, "enc"), (256, "dec")):
            core = (aes.fixsliced_encrypt(layout, key_bits, circuits.load("bp113")) if direction == "enc"
                    else aes.fixsliced_decrypt(layout, key_bits, circuits.load("cmt121")))
            shared = share_rotations(vectorize(core, 8))
            bit_rotations = lambda p: sum(1 for op in p.ops if op.code == "ror" and op.args[1] % 8)
            self.assertEqual(shared.count("ror"), core.count("ror"))
            self.assertEqual(2 * bit_rotations(shared), bit_rotations(core))
            keys = (aes.key_expansion(key_bits, circuits.load("bp113")),
                    aes.pack_round_keys(layout, key_bits, "fixslice"))
            verify_block_cipher("shared", key_bits, direction, keys, shared, 8 * layout.blocks, 1, 5)

    def test_a_wrong_byte_step_is_caught(self):
        layout = Layout(32)
        shared = share_rotations(aes.fixsliced_encrypt(layout, 128, circuits.load("bp113")))
        firsts = {op.dst for op in shared.ops if op.code == "ror" and op.args[1] % 8}
        k = next(i for i, op in enumerate(shared.ops) if op.code == "ror" and op.args[0] in firsts)
        op = shared.ops[k]
        shared.ops[k] = Op("ror", op.dst, (op.args[0], (op.args[1] + 8) % 32 or 8))
        keys = (aes.key_expansion(128, circuits.load("bp113")), aes.pack_round_keys(layout, 128, "fixslice"))
        with self.assertRaises(ModelError):
            verify_block_cipher("broken", 128, "enc", keys, shared, layout.blocks, 1, 1)


class ByteRotateBlends(unittest.TestCase):
    """X ^ ((X ^ Y) & M), X and Y rotations of one value, becomes a whole-byte rotation and
    a rotation within each byte where that is what it computes, and only there."""

    @staticmethod
    def blend(a: int, b: int, mask: int, second_of_first: bool) -> Program:
        p = Program("blend", 32, (Memory("x", "words", 1, False), Memory("y", "words", 1, True)))
        p.ops.append(Op("ldw", "v", ("x", 0)))
        p.ops.append(Op("ror", "t", ("v", a)))
        p.ops.append(Op("ror", "u", ("t", (b - a) % 32) if second_of_first else ("v", b)))
        p.ops += [Op("xor", "d", ("t", "u")), Op("and", "e", ("d", mask)), Op("xor", "r", ("t", "e")),
                  Op("stw", None, ("y", 0, "r"))]
        return p

    def test_every_pair_and_byte_mask_keeps_its_function(self):
        rng = random.Random(13)
        rewritten = 0
        for a in range(1, 32):
            for step in (8, 16, 24):
                for m in (0x3f, 0x0f, 0x03, 0xc0, 0xf0, 0xfc, 0x55):
                    for second_of_first in (True, False):
                        p = self.blend(a, (a + step) % 32 or 8, m * 0x01010101, second_of_first)
                        if (a + step) % 32 == 0:
                            continue
                        q = byte_rotate_blends(p)
                        rewritten += q is not p
                        xs = [rng.getrandbits(32) for _ in range(4)]
                        outs = []
                        for x in xs:
                            want, got = {"x": [x], "y": [0]}, {"x": [x], "y": [0]}
                            execute(p, want)
                            execute(q, got)
                            self.assertEqual(want["y"], got["y"], (a, step, hex(m), second_of_first))
                            outs.append(want["y"][0])
                        # rewritten exactly when the blend is some byte rotation then a
                        # rotation within each byte (found here by evaluating them all)
                        fits = any(all(self.byte_rotations(x, r, sh) == o for x, o in zip(xs, outs))
                                   for r in (0, 8, 16, 24) for sh in range(1, 8))
                        self.assertEqual(q is not p, fits, (a, step, hex(m), second_of_first))
        self.assertGreater(rewritten, 0)

    @staticmethod
    def byte_rotations(x: int, r: int, sh: int) -> int:
        z = (x >> r | x << (32 - r)) & 0xFFFFFFFF if r else x
        return int.from_bytes(bytes((b >> sh | b << (8 - sh)) & 0xFF for b in z.to_bytes(4, "little")), "little")

    def test_a_blend_whose_rotations_are_read_elsewhere_stays(self):
        p = self.blend(10, 2, 0x3f3f3f3f, False)
        p.ops.insert(-1, Op("stw", None, ("y", 0, "t")))
        self.assertIs(byte_rotate_blends(p), p)

    def test_fixsliced_column_rotations_cost_one_instruction_less_and_still_agree(self):
        layout, avx2 = Layout(32), ISAS["avx2"]
        for key_bits, direction in ((128, "enc"), (192, "dec")):
            core = (aes.fixsliced_encrypt(layout, key_bits, circuits.load("bp113")) if direction == "enc"
                    else aes.fixsliced_decrypt(layout, key_bits, circuits.load("cmt121")))
            shared = share_rotations(vectorize(core, 8))
            blended = byte_rotate_blends(shared)
            # at least the 16 column rotations of each round in frame 1 or 3, one instruction each
            odd = aes.rounds(key_bits) // 2
            self.assertGreaterEqual(avx2.instructions(shared) - avx2.instructions(blended), 16 * odd)
            keys = (aes.key_expansion(key_bits, circuits.load("bp113")),
                    aes.pack_round_keys(layout, key_bits, "fixslice"))
            verify_block_cipher("blended", key_bits, direction, keys, blended, 8 * layout.blocks, 1, 7)


class HoistPass(unittest.TestCase):
    def test_products_fold_into_their_sums_at_once(self):
        # the 16-block hash of the stitched loops: a product of each block is summed as soon
        # as it exists, so a handful of values live at a time, and the result is unchanged
        from aesgen.algorithm import ghash
        prog = ghash.update_unsummed(16, 2, "karatsuba", "clmul")
        hoisted = hoist_logic(prog)
        self.assertEqual(sorted(map(str, hoisted.ops)), sorted(map(str, prog.ops)))
        self.assertLess(peak_live(hoisted), peak_live(prog))
        self.assertLessEqual(peak_live(hoisted), 6)
        rng = random.Random(9)
        for _ in range(3):
            mem = {"data": bytearray(rng.randbytes(256)), "htable": bytearray(rng.randbytes(512))}
            acc = rng.getrandbits(64 * prog.lanes)
            self.assertEqual(execute(hoisted, dict(mem), [acc]), execute(prog, dict(mem), [acc]))

    def test_an_op_never_moves_above_what_it_reads(self):
        p = Program("p", 32, (Memory("m", "bytes", 16, True),))
        b = Builder(p)
        x = b.ld("m", 0, 32, hint="x")
        y = b.ld("m", 4, 32, hint="y")
        z = b.xor(x, y, hint="z")
        w = b.ld("m", 8, 32, hint="w")
        b.st("m", 12, 32, b.and_(z, w, hint="v"))
        order = [op.dst for op in hoist_logic(p).ops]
        self.assertLess(order.index("w"), order.index("v"))
        self.assertEqual(order.index("z"), order.index("y") + 1)


def peak_live(prog):
    last = {}
    for i, op in enumerate(prog.ops):
        for a in op.args:
            if isinstance(a, str):
                last[a] = i
    live, peak = set(), 0
    for i, op in enumerate(prog.ops):
        if op.dst is not None and op.code not in ("vld", "note") or op.code == "vld" and op.args[0] == "data":
            live.add(op.dst)
        peak = max(peak, len(live))
        live = {v for v in live if last.get(v, -1) > i or v in prog.outputs}
    return peak


class Transposes(unittest.TestCase):
    def identity_program(self, bits):
        """A lane program that copies its group word by word (as 32-bit halves for 64-bit words)."""
        size = GROUP_WORDS * bits // 8
        p = Program("copy", bits, (Memory("in", "bytes", size, False), Memory("out", "bytes", size, True)))
        for off in range(0, size, 4):
            p.ops.append(Op("ld", f"w{off}", ("in", off, 32)))
            p.ops.append(Op("st", None, ("out", off, 32, f"w{off}")))
        return p

    def test_every_lane_and_vector_width_round_trips(self):
        rng = random.Random(3)
        for bits in (32, 64):
            for vector_bits in (128, 256, 512):
                lanes = vector_bits // bits
                load, store, words = networks(bits, lanes)
                self.assertEqual(sorted(words), list(range(GROUP_WORDS)))
                self.assertLessEqual(len(load), 3)
                vp = vectorize(self.identity_program(bits), lanes)
                self.assertEqual(vp.count("ld", "st"), 0)
                self.assertEqual(vp.count("vld"), GROUP_WORDS)
                data = rng.randbytes(vp.memory("in").length)
                mem = {"in": bytearray(data), "out": bytearray(len(data))}
                execute(vp, mem)
                self.assertEqual(bytes(mem["out"]), data, (bits, vector_bits))

    def test_lanes_hold_whole_groups(self):
        """After the load network each lane holds one group's words; checked through a
        program that XORs word 0 into every word (a lane that mixed groups would differ)."""
        bits, lanes = 32, 16
        p = self.identity_program(bits)
        p.ops = [op for op in p.ops if op.code == "ld"]
        for off in range(0, 32, 4):
            p.ops.append(Op("xor", f"x{off}", (f"w{off}", "w0")))
            p.ops.append(Op("st", None, ("out", off, 32, f"x{off}")))
        vp = vectorize(p, lanes)
        data = random.Random(5).randbytes(vp.memory("in").length)
        mem = {"in": bytearray(data), "out": bytearray(len(data))}
        execute(vp, mem)
        for g in range(lanes):
            group = data[32 * g:32 * g + 32]
            want = b"".join((int.from_bytes(group[o:o + 4], "little") ^ int.from_bytes(group[:4], "little"))
                            .to_bytes(4, "little") for o in range(0, 32, 4))
            self.assertEqual(bytes(mem["out"][32 * g:32 * g + 32]), want, g)

    def test_a_wrong_shuffle_is_caught(self):
        layout, sbox = Layout(32), circuits.load("bp113")
        vp = vectorize(aes.fixsliced_encrypt(layout, 128, sbox), 8)
        k = next(i for i, op in enumerate(vp.ops) if op.code == "unpacklo")
        vp.ops[k] = Op("unpackhi", vp.ops[k].dst, vp.ops[k].args)
        keys = (aes.key_expansion(128, sbox), aes.pack_round_keys(layout, 128, "fixslice"))
        with self.assertRaises(ModelError):
            verify_block_cipher("broken", 128, "enc", keys, vp, 16, 1, 1)


class NoLaneStaging(unittest.TestCase):
    # a local array of lane words or vectors: lanes staged through memory
    STAGING = re.compile(r"^\s*(?:const\s+)?(?:uint32_t|uint64_t|__m128i|__m256i|__m512i|uint\d+x\d+_t)"
                         r"\s+\w+\s*\[")

    def test_no_generated_simd_file_stages_lanes_through_memory(self):
        _, variants = pipeline.load(pipeline.Paths())
        simd = [v for v in variants if v.target.emitter == "c_simd"]
        self.assertGreater(len(simd), 30)
        from aesgen.emit import EMITTERS
        root = pipeline.Paths().out
        for v in simd:
            for rel in EMITTERS["c_simd"].outputs(v):
                text = (root / rel).read_text()
                core = text[text.index(f"{v.name}_core(const"):text.index(f"{v.name}_partial(const")]
                self.assertNotIn("aesgen_load_le32", core, rel)
                self.assertNotIn("aesgen_store_le32", core, rel)
                for n, line in enumerate(text.splitlines(), 1):
                    self.assertIsNone(self.STAGING.match(line), f"{rel}:{n}: {line.strip()}")
        shared = sorted((root / "common").glob("*__*_core.c"))     # the vector cores every key size shares
        self.assertGreaterEqual(len(shared), 10)
        for path in shared:
            text = path.read_text()
            self.assertNotIn("aesgen_load_le32", text, path.name)
            for n, line in enumerate(text.splitlines(), 1):
                self.assertIsNone(self.STAGING.match(line), f"{path.name}:{n}: {line.strip()}")


class Printer(unittest.TestCase):
    def test_byte_shuffle_rotations_match_the_rotation(self):
        isa = ISAS["avx2"]
        for lane in (32, 64):
            for n in range(8, lane, 8):
                consts = {}
                expr = isa.expr("ror", ["x", n], lane, lambda key, e: consts.setdefault(key, e))
                self.assertIn("_mm256_shuffle_epi8", expr)
                idx = [int(t) for t in consts[("ror", lane, n)].split("(")[1].rstrip(")").split(",")]
                data = bytes(random.Random(n).randbytes(32))
                shuffled = bytes(data[16 * (j // 16) + idx[j]] for j in range(32))   # vpshufb per 128-bit half
                size = lane // 8
                for w in range(0, 32, size):
                    word = int.from_bytes(data[w:w + size], "little")
                    want = ((word >> n) | (word << (lane - n))) & ((1 << lane) - 1)
                    self.assertEqual(int.from_bytes(shuffled[w:w + size], "little"), want, (lane, n, w))

    def test_every_shipped_simd_variant_prints(self):
        _, variants = pipeline.load(pipeline.Paths())
        simd = [v for v in variants if v.target.emitter == "c_simd"]
        self.assertTrue({v.param("isa") for v in simd} >= {"sse2", "avx2", "avx512", "neon"})
        v = next(v for v in simd if v.param("isa") == "avx512" and v.direction == "enc" and v.key_bits == 128)
        from aesgen.emit import EMITTERS
        built = EMITTERS["c_simd"].build(v)
        lines = vector_statements(built.core, built.isa)
        self.assertTrue(any("_mm512_ternarylogic_epi32" in line for line in lines))
        self.assertTrue(any("_mm512_ror_epi32" in line for line in lines))


class RolledVectors(unittest.TestCase):
    """A rolled core on vectors: vectorized and fused piece by piece, its state kept in lanes."""
    SBOX, INV = circuits.load("bp113"), circuits.load("cmt121")

    def test_rolled_cores_vectorize_fuse_and_agree_with_reference(self):
        for lanes, fuse in ((4, False), (8, False), (16, True)):
            layout = Layout(32)
            for key_bits, direction in ((128, "enc"), (192, "dec"), (256, "dec")):
                keys = (aes.key_expansion(key_bits, self.SBOX), aes.pack_round_keys(layout, key_bits, "fixslice"))
                core = (aes.fixsliced_encrypt(layout, key_bits, self.SBOX, "loop4") if direction == "enc"
                        else aes.fixsliced_decrypt(layout, key_bits, self.INV, "loop4"))
                vec = vectorize(core, lanes)
                if fuse:
                    vec = fuse_ternary(vec)
                    self.assertGreater(vec.body.count("ternary"), 0)
                self.assertEqual(vec.body.count("vld", "vst", *SHUFFLE_OPS), 0)   # no transposes in the loop
                verify_block_cipher("t", key_bits, direction, keys, vec, lanes * layout.blocks, 1, 3)

    def test_rolled_cores_for_every_key_size_vectorize_fuse_and_agree_with_reference(self):
        for lanes, fuse in ((4, False), (16, True)):
            layout = Layout(32)
            for direction, core in (("enc", aes.fixsliced_encrypt_any_size(layout, self.SBOX)),
                                    ("dec", aes.fixsliced_decrypt_any_size(layout, self.INV))):
                vec = vectorize(core, lanes)
                if fuse:
                    vec = fuse_ternary(vec)
                body = [i for i in vec.body if hasattr(i, "program")]
                self.assertEqual(sum(i.program.count("vld", "vst", *SHUFFLE_OPS) for i in body), 0)
                if fuse:
                    self.assertGreater(sum(i.program.count("ternary") for i in body), 0)
                for key_bits in (128, 192, 256):
                    keys = (aes.key_expansion(key_bits, self.SBOX), aes.pack_round_keys(layout, key_bits, "fixslice"))
                    verify_block_cipher("t", key_bits, direction, keys, vec, lanes * layout.blocks, 1, 3)
                    own = (aes.fixsliced_encrypt(layout, key_bits, self.SBOX, "loop4") if direction == "enc"
                           else aes.fixsliced_decrypt(layout, key_bits, self.INV, "loop4"))
                    own = vectorize(own, lanes)
                    if fuse:
                        own = fuse_ternary(own)
                    # the same work; fused, the steps' boundaries may keep a few ops apart
                    self.assertAlmostEqual(vec.alu_count(aes.rounds(key_bits)), own.alu_count(),
                                           delta=own.alu_count() // 100 if fuse else 0, msg=(lanes, direction, key_bits))

    def test_rolled_variants_print_one_loop_with_constants_before_it(self):
        from aesgen.emit import EMITTERS
        _, variants = pipeline.load(pipeline.Paths())
        v = next(v for v in variants if v.name == "aes128_dec__x86_64_avx2_fixslice32_loop4")
        built = EMITTERS["c_simd"].build(v)
        lines = vector_core_statements(built.core, built.isa, "uint32_t")
        loops = [i for i, line in enumerate(lines) if line.strip().startswith("for (")]
        self.assertEqual(len(loops), 1)
        self.assertIn("for (size_t r = (nr + 3) / 4; r-- > 0;) {", lines[loops[0]])
        self.assertIn("const uint32_t *const rk32 = rk + 16 + 32 * r;", lines[loops[0] + 2])
        consts = [i for i, line in enumerate(lines) if re.match(r"\s*const __m256i K\d+ = ", line)]
        self.assertTrue(consts and max(consts) < loops[0])

    def test_rolled_variants_call_the_core_every_key_size_shares_with_their_round_count(self):
        from aesgen.emit import EMITTERS
        _, variants = pipeline.load(pipeline.Paths())
        root = pipeline.Paths().out
        rolled = [v for v in variants if v.target.emitter == "c_simd" and v.name.endswith("fixslice32_loop4")]
        self.assertGreaterEqual(len(rolled), 30)
        for v in rolled:
            text = (root / EMITTERS["c_simd"].outputs(v)[0]).read_text()
            symbol = f"aesgen_core_{v.direction}__{v.name.split('__', 1)[1]}"
            self.assertIn(f"    {symbol}(rk, {aes.rounds(v.key_bits)}, out, in);", text, v.name)
            self.assertNotIn("_mm", text[text.index(f"{v.name}_core(const"):text.index(f"{v.name}_partial(const")])
            paths = [s.path for s in EMITTERS["c_simd"].shared(v)]
            self.assertIn(f"common/{symbol[len('aesgen_core_'):]}_core.c", paths)


if __name__ == "__main__":
    unittest.main()
