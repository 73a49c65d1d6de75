"""Code size next to speed: objsize reads executable bytes from ELF objects (checked
against binutils on a real object), `list --build-dir` and `report --build-dir` give each
variant's size, and the registry's alternatives are the variants dispatch never picks."""

import contextlib
import io
import json
import re
import shutil
import struct
import subprocess
import tempfile
import unittest
from pathlib import Path

from aesgen import cli, objsize, pipeline

DATA = Path(__file__).resolve().parent / "data"
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 1, 2, 4


def elf(sections, wide=True, big=False) -> bytes:
    """A minimal ELF relocatable: a header and section headers (name offsets 0) for
    [(flags, size)], after a null section."""
    o = ">" if big else "<"
    ehsize = 64 if wide else 52
    shent = 64 if wide else 40
    rows = [(0, 0)] + list(sections)
    ident = b"\x7fELF" + bytes([2 if wide else 1, 2 if big else 1, 1]) + bytes(9)
    if wide:
        header = ident + struct.pack(o + "HHIQQQIHHHHHH", 1, 62, 1, 0, 0, ehsize, 0, ehsize, 0, 0,
                                     shent, len(rows), 0)
        shdrs = b"".join(struct.pack(o + "IIQQQQIIQQ", 0, 1, f, 0, 0, s, 0, 0, 1, 0) for f, s in rows)
    else:
        header = ident + struct.pack(o + "HHIIIIIHHHHHH", 1, 2, 1, 0, 0, ehsize, 0, ehsize, 0, 0,
                                     shent, len(rows), 0)
        shdrs = b"".join(struct.pack(o + "IIIIIIIIII", 0, 1, f, 0, 0, s, 0, 0, 1, 0) for f, s in rows)
    assert len(header) == ehsize
    return header + shdrs


CODE = [(SHF_ALLOC | SHF_EXECINSTR, 100), (SHF_ALLOC | SHF_EXECINSTR, 20), (SHF_ALLOC, 50),
        (SHF_ALLOC | SHF_WRITE, 8)]


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(list(argv))
    return rc, out.getvalue(), err.getvalue()


class TextBytes(unittest.TestCase):
    def test_executable_sections_only_any_class_and_order(self):
        for wide in (True, False):
            for big in (False, True):
                with self.subTest(wide=wide, big=big):
                    self.assertEqual(objsize.text_bytes(elf(CODE, wide, big), "x.o"), 120)

    def test_bad_input_is_one_clear_error(self):
        with self.assertRaisesRegex(objsize.ObjectSizeError, "x.o: not an ELF file"):
            objsize.text_bytes(b"!<arch>\n" + bytes(100), "x.o")
        with self.assertRaisesRegex(objsize.ObjectSizeError, "truncated or malformed"):
            objsize.text_bytes(elf(CODE)[:-10], "x.o")

    @unittest.skipUnless(shutil.which("cc") and shutil.which("readelf"), "needs cc and readelf")
    def test_agrees_with_readelf_on_a_compiled_object(self):
        with tempfile.TemporaryDirectory() as d:
            src, obj = Path(d) / "f.c", Path(d) / "f.o"
            src.write_text("int f(int x) { return x * 3 + 1; }\n"
                           "int g(int x) { return f(x) ^ 5; }\nconst int table[64] = {1};\n")
            subprocess.run(["cc", "-O1", "-ffunction-sections", "-c", str(src), "-o", str(obj)], check=True)
            listing = subprocess.run(["readelf", "-SW", str(obj)], check=True, capture_output=True,
                                     text=True).stdout
            got = objsize.text_bytes(obj.read_bytes(), str(obj))
        want = 0
        for line in listing.splitlines():
            cols = line.replace("[ ", "[").split()
            # [Nr] Name Type Address Off Size ES Flg ...
            if len(cols) > 7 and cols[0].startswith("[") and cols[1] != "Name" and "X" in cols[7]:
                want += int(cols[5], 16)
        self.assertGreater(want, 0)
        self.assertEqual(got, want)


class BuildDir(unittest.TestCase):
    """A stand-in CMake build: the object layout CMake and Ninja give generated/ sources."""

    def setUp(self):
        self.build = Path(tempfile.mkdtemp(prefix="aesgen-objsize-test-"))
        self.addCleanup(shutil.rmtree, self.build)
        (self.build / "CMakeCache.txt").write_text("")
        lib = self.build / "CMakeFiles" / "aesgen_objects.dir" / "generated"
        self.put(lib / "x86_64_aesni" / "aes128_enc__x86_64_aesni_x8.S.o", [(SHF_ALLOC | SHF_EXECINSTR, 6000)])
        self.put(lib / "x86_64_aesni" / "aes128_enc__x86_64_aesni_x8.c.o", [(SHF_ALLOC | SHF_EXECINSTR, 120)])
        self.put(lib / "portable" / "aes128_enc__portable_fixslice64.c.o", CODE)
        # another processor's file: compiles to nothing here
        self.put(lib / "aarch64_ce" / "aes128_enc__aarch64_ce_x6.c.o", [(SHF_ALLOC, 0)])
        # the same file in a second library counts once
        other = self.build / "CMakeFiles" / "aesgen_alternatives.dir" / "generated"
        self.put(other / "portable" / "aes128_enc__portable_fixslice64.c.o", CODE)
        self.put(other / "portable" / "aes128_dec__portable_bitslice64.c.o", [(SHF_ALLOC | SHF_EXECINSTR, 333)])
        # a round-loop variant: a descriptor without code, its functions in the loops file
        # every key size shares
        self.put(other / "x86_64_aesni" / "aes256_enc__x86_64_aesni_x8_loop1.c.o", [(SHF_ALLOC, 0)])
        self.put(other / "common" / "x86_64_aesni_x8_loop1_enc.S.o", [(SHF_ALLOC | SHF_EXECINSTR, 4444)])
        # a rolled SIMD variant: its mode loops, and the vector core every key size shares
        self.put(other / "x86_64_sse2" / "aes192_dec__x86_64_sse2_fixslice32_loop4.c.o",
                 [(SHF_ALLOC | SHF_EXECINSTR, 700)])
        self.put(other / "common" / "dec__x86_64_sse2_fixslice32_loop4_core.c.o", [(SHF_ALLOC | SHF_EXECINSTR, 5000)])
        # a lane core the portable and SIMD variants share counts for none of them
        self.put(other / "common" / "dec_fixslice32_cmt121_loop4_core.c.o", [(SHF_ALLOC | SHF_EXECINSTR, 900)])

    @staticmethod
    def put(path: Path, sections):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(elf(sections))

    def test_variant_sizes(self):
        sizes = objsize.variant_sizes(self.build)
        self.assertEqual({k: v for k, v in sizes.items() if k.startswith("aes")},
                         {"aes128_enc__x86_64_aesni_x8": 6120, "aes128_enc__portable_fixslice64": 120,
                          "aes128_dec__portable_bitslice64": 333, "aes256_enc__x86_64_aesni_x8_loop1": 4444,
                          "aes192_dec__x86_64_sse2_fixslice32_loop4": 5700})

    def test_not_a_build_folder(self):
        (self.build / "CMakeCache.txt").unlink()
        with self.assertRaisesRegex(objsize.ObjectSizeError, "not a CMake build folder"):
            objsize.variant_sizes(self.build)
        rc, out, err = run("list", "--build-dir", str(self.build))
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertIn("not a CMake build folder", err)

    def test_list_json_gives_size_and_alternative(self):
        rc, out, err = run("list", "--json", "--build-dir", str(self.build), "--filter", "aes128_*portable*64",
                           "--filter", "aes128_enc__x86_64_aesni_x8")
        self.assertEqual(rc, 0, err)
        got = {e["name"]: (e["text_bytes"], e["alternative"]) for e in json.loads(out)}
        self.assertEqual(got, {"aes128_enc__x86_64_aesni_x8": (6120, False),
                               "aes128_enc__portable_fixslice64": (120, False),
                               "aes128_dec__portable_fixslice64": (None, False),
                               "aes128_dec__portable_bitslice64": (333, True)})

    def test_report_plots_size_against_throughput(self):
        out = self.build / "report"
        rc, _, err = run("report", "--from-json", str(DATA / "bench-example.json"), "--build-dir",
                         str(self.build), "--out", str(out))
        self.assertEqual(rc, 0, err)
        md = (out / "report.md").read_text()
        self.assertIn("## Code size and throughput", md)
        self.assertIn("| aesgen-aesni | AES-128 | ecb-enc | aes128_enc__x86_64_aesni_x8 | 6120 |", md)
        self.assertIn("| aesgen-portable64 | AES-128 | ecb-enc | aes128_enc__portable_fixslice64 | 120 |", md)
        self.assertIn("Not compiled in", md)
        svg = (out / "size-ecb-enc-aes128.svg").read_text()
        self.assertIn("aesgen-aesni", svg)
        self.assertIn("code size in KiB", svg)

    def test_report_build_dir_needs_a_bench_and_writes_nothing(self):
        out = self.build / "report"
        rc, _, err = run("report", "--tune", str(DATA / "tune-results-example.json"), "--build-dir",
                         str(self.build), "--out", str(out))
        self.assertEqual(rc, 1)
        self.assertIn("--build-dir gives code sizes next to bench figures", err)
        self.assertFalse(out.exists())


class Alternatives(unittest.TestCase):
    def test_shipped_alternatives_are_bitsliced_decryptions_and_rolled_variants(self):
        _, variants = pipeline.load(pipeline.Paths())
        aes = [v for v in variants if v.kind == "aes"]
        alt = pipeline.alternatives(aes)
        self.assertTrue(alt)
        # among a backend's default unroll, each loses to a variant of its backend, key size
        # and direction that ranks lower
        for v in aes:
            if pipeline.unroll_of(v) != pipeline.default_unroll(v):
                continue
            rivals = [w for w in aes if (w.backend, w.key_bits, w.direction) == (v.backend, v.key_bits, v.direction)
                      and pipeline.unroll_of(w) == pipeline.unroll_of(v)]
            self.assertEqual(v.name in alt, v.rank > min(w.rank for w in rivals), v.name)
        # the targets list fixslice first for decryption, and their own unroll first (full,
        # but loop4 on SSE2; the x86-64 hardware loops full before loop1): the bitsliced
        # rounds and the other unrolls are the alternatives
        self.assertEqual(alt, {v.name for v in aes
                               if (v.direction == "dec" and "_bitslice" in v.name)
                               or pipeline.unroll_of(v) != pipeline.default_unroll(v)})
        self.assertTrue(any(v.param("unroll", "full") != "full" for v in aes))

    def test_each_named_unroll_keeps_one_choice_per_slot(self):
        _, variants = pipeline.load(pipeline.Paths())
        aes = [v for v in variants if v.kind == "aes"]
        slot = lambda v: (v.backend, v.key_bits, v.direction)
        have: dict = {}
        for v in aes:
            have.setdefault(slot(v), set()).add(pipeline.unroll_of(v))
        # every software backend has full and loop4; every x86-64 AES-instruction backend
        # full and loop1; the other hardware loops full only
        for v in aes:
            u = have[slot(v)]
            if v.target.emitter in ("c_simd", "c_bitsliced"):
                self.assertEqual(u, {"full", "loop4"}, v.name)
            elif v.target.emitter == "x86_64_aes":
                self.assertEqual(u, {"full", "loop1"}, v.name)
            else:
                self.assertEqual(u, {"full"}, v.name)
        # in each build, every backend, key size and direction keeps exactly one variant
        # per set of CPU features (what dispatch picks from): of the unroll asked for where
        # it has it, else of its default; "rolled": its most rolled
        for unroll in pipeline.NAMED_UNROLLS:
            alt = pipeline.alternatives(aes, unroll)
            kept: dict = {}
            for v in aes:
                if v.name not in alt:
                    kept.setdefault(slot(v), []).append(v)
            self.assertEqual({slot(v) for v in aes}, set(kept), unroll)
            for s, vs in kept.items():
                self.assertEqual(len(vs), 1, (unroll, s, [v.name for v in vs]))
                v = vs[0]
                if unroll == pipeline.ROLLED:
                    want = max(have[s], key=pipeline.UNROLLS.index)
                else:
                    want = unroll if unroll in have[s] else pipeline.default_unroll(v)
                self.assertEqual(pipeline.unroll_of(v), want, (unroll, v.name))
        self.assertEqual(pipeline.UNROLLS, ("full", "loop4", "loop1"))

    def test_a_backend_without_the_rolled_form_keeps_its_default(self):
        _, variants = pipeline.load(pipeline.Paths())
        aes = [v for v in variants if v.kind == "aes"
               and not (v.backend == "sse2-fixslice" and pipeline.unroll_of(v) == "loop4")]
        loop4 = pipeline.alternatives(aes, "loop4")
        self.assertNotIn("aes128_enc__x86_64_sse2_fixslice32", loop4)
        self.assertNotIn("aes256_dec__x86_64_sse2_fixslice32", loop4)
        self.assertIn("aes256_dec__x86_64_sse2_bitslice32", loop4)
        self.assertIn("aes128_enc__x86_64_avx2_fixslice32", loop4)

    def test_registry_c_lists_what_each_unroll_keeps(self):
        """Preprocess the generated registry.c as the library's build compiles it (the
        alternatives left out, each unroll in turn) and compare what it lists."""
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            self.skipTest("no C compiler")
        _, variants = pipeline.load(pipeline.Paths())
        aes = [v for v in variants if v.kind == "aes"]
        root = pipeline.ROOT
        here = subprocess.run([cc, "-E", "-I", str(root / "runtime/src"), "-I", str(root / "generated"),
                               str(root / "generated/registry.c")], capture_output=True, text=True, check=True).stdout
        listed_all = set(re.findall(r"&aesgen_(aes\w+),", here))
        self.assertTrue(listed_all)
        for unroll in pipeline.BUILD_UNROLLS:
            default = unroll == pipeline.DEFAULT_UNROLL
            defines = ["-DAESGEN_OMIT_ALTERNATIVES"] + ([] if default else [f"-D{pipeline.unroll_macro(unroll)}"])
            out = subprocess.run([cc, "-E", *defines, "-I", str(root / "runtime/src"), "-I", str(root / "generated"),
                                  str(root / "generated/registry.c")], capture_output=True, text=True, check=True).stdout
            listed = set(re.findall(r"&aesgen_(aes\w+),", out))
            self.assertEqual(listed, listed_all - pipeline.alternatives(aes, None if default else unroll), unroll)

    def test_a_default_build_takes_each_backends_first_unroll(self):
        _, variants = pipeline.load(pipeline.Paths())
        aes = [v for v in variants if v.kind == "aes"]
        default = pipeline.alternatives(aes)
        # SSE2 lists loop4 first (measured faster there), the others full
        self.assertNotIn("aes256_enc__x86_64_sse2_fixslice32_loop4", default)
        self.assertIn("aes256_enc__x86_64_sse2_fixslice32", default)
        self.assertNotIn("aes256_enc__x86_64_avx2_fixslice32", default)
        self.assertIn("aes256_enc__x86_64_avx2_fixslice32_loop4", default)
        full = pipeline.alternatives(aes, "full")
        self.assertIn("aes256_enc__x86_64_sse2_fixslice32_loop4", full)
        self.assertNotIn("aes256_enc__x86_64_sse2_fixslice32", full)
        self.assertIn({"backend": "sse2-fixslice", "unroll": "loop4"}, pipeline.default_unrolls(aes))
        self.assertIn({"backend": "avx2-fixslice", "unroll": "full"}, pipeline.default_unrolls(aes))

    def test_registry_guards_name_the_backend_and_the_alternatives(self):
        _, variants = pipeline.load(pipeline.Paths())
        by = {v.name: v for v in variants}
        self.assertEqual(pipeline.registry_guard(by["aes128_dec__portable_bitslice64"], set()),
                         "!defined(AESGEN_OMIT_BACKEND_PORTABLE64) && !defined(AESGEN_OMIT_ALTERNATIVES)")
        self.assertEqual(pipeline.registry_guard(by["aes128_enc__x86_64_vaes256_avx512vl_x8"],
                                                 set(pipeline.BUILD_UNROLLS)),
                         "(defined(__x86_64__) && defined(__ELF__)) && "
                         "!defined(AESGEN_OMIT_BACKEND_VAES256_AVX512VL)")
        # full by default and when asked for; loop4 only when asked for
        self.assertEqual(pipeline.registry_guard(by["aes128_enc__portable_fixslice64"], {"default", "full"}),
                         "!defined(AESGEN_OMIT_BACKEND_PORTABLE64) && "
                         "(!defined(AESGEN_OMIT_ALTERNATIVES) || (!defined(AESGEN_UNROLL_LOOP4) && "
                         "!defined(AESGEN_UNROLL_LOOP1) && !defined(AESGEN_UNROLL_ROLLED)))")
        # the hardware round loop: only when asked for, by name or as the most rolled
        self.assertEqual(pipeline.registry_guard(by["aes128_enc__x86_64_aesni_x8_loop1"], {"loop1", "rolled"}),
                         "(defined(__x86_64__) && defined(__ELF__)) && !defined(AESGEN_OMIT_BACKEND_AESNI) && "
                         "(!defined(AESGEN_OMIT_ALTERNATIVES) || (defined(AESGEN_UNROLL_LOOP1) || "
                         "defined(AESGEN_UNROLL_ROLLED)))")
        self.assertEqual(pipeline.registry_guard(by["aes128_enc__portable_fixslice64_loop4"], {"loop4"}),
                         "!defined(AESGEN_OMIT_BACKEND_PORTABLE64) && "
                         "(!defined(AESGEN_OMIT_ALTERNATIVES) || defined(AESGEN_UNROLL_LOOP4))")
        # SSE2: loop4 by default
        self.assertEqual(pipeline.registry_guard(by["aes128_enc__x86_64_sse2_fixslice32_loop4"],
                                                 {"default", "loop4", "loop1", "rolled"}),
                         "(defined(__x86_64__)) && !defined(AESGEN_OMIT_BACKEND_SSE2_FIXSLICE) && "
                         "(!defined(AESGEN_OMIT_ALTERNATIVES) || !defined(AESGEN_UNROLL_FULL))")


if __name__ == "__main__":
    unittest.main()
