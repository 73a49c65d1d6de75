"""Tuning: sweep spaces, sweep points, tuned profiles, and a tiny real sweep.

The fast tests need nothing but the generator. TinySweep builds and runs a two-point
sweep of x86_64-aesni (needs x86-64 with AES-NI, cmake, a C compiler and OpenSSL's
headers; it says why when it skips). No test asserts anything about timing.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import unittest
from pathlib import Path

from aesgen import pipeline
from aesgen.emit import EMITTERS
from aesgen.targets import load_targets
from aesgen import profiles, space, tomlwrite as toml
from aesgen.tune import host, points

ROOT = Path(__file__).resolve().parents[2]
GEN = ROOT / "generator"
# CTest passes the build's vector folder; CI requires it (AESGEN_REQUIRE_VECTORS=ON).
VECTORS = Path(os.environ.get("AESGEN_VECTORS_DIR") or ROOT.parent / "shared" / "vectors")
REQUIRE_VECTORS = os.environ.get("AESGEN_REQUIRE_VECTORS", "").upper() in ("ON", "1", "TRUE", "YES")


def aesgen(*args, check=False):
    env = dict(os.environ, PYTHONPATH=str(GEN))
    r = subprocess.run([sys.executable, "-m", "aesgen", *map(str, args)], capture_output=True, text=True,
                       cwd=ROOT, env=env)
    if check and r.returncode != 0:
        raise AssertionError(f"aesgen {' '.join(map(str, args))} failed:\n{r.stdout}\n{r.stderr}")
    return r


def target(name):
    return next(t for t in load_targets(ROOT / "generator" / "targets", ROOT, EMITTERS) if t.name == name)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


class TomlWriter(unittest.TestCase):
    def test_round_trip(self):
        doc = {"profile": {"target": "x", "n": 3, "f": 1.5, "ok": True, "l": [1, 2], "s": 'a "q" \\ ü'},
               "choice": [{"key_bits": 128, "params": {"interleave": 4, "key_policy": "auto"}},
                          {"key_bits": 256, "params": {"lane_bits": 32}}]}
        text = toml.dumps(doc, header="two\nlines")
        self.assertTrue(text.startswith("# two\n# lines\n"))
        self.assertEqual(tomllib.loads(text), doc)
        self.assertEqual(text, toml.dumps(doc, header="two\nlines"))

    def test_refuses_what_toml_cannot_hold(self):
        with self.assertRaises(ValueError):
            toml.dumps({"t": {"x": float("nan")}})
        with self.assertRaises(ValueError):
            toml.dumps({"t": {"x": None}})


class Spaces(unittest.TestCase):
    def test_defaults_add_the_targets_own_values_and_overrides_replace(self):
        vals = space.sweep_values(EMITTERS["x86_64_aes"], {"interleave": ["auto", 5], "key_policy": ["auto"]}, None)
        self.assertEqual(vals["interleave"], [1, 2, 3, 4, 5, 6, 8])
        self.assertEqual(vals["key_policy"], ["auto"])
        vals = space.sweep_values(EMITTERS["x86_64_aes"], {}, ["interleave=2,4", "key_policy=auto,streamed"])
        self.assertEqual(vals, {"interleave": [2, 4], "key_policy": ["auto", "streamed"], "unroll": ["full", "loop1"]})
        vals = space.sweep_values(EMITTERS["c_simd"], {}, ["gcc_sched_pressure=true", "lane_bits=32"])
        self.assertEqual(vals["gcc_sched_pressure"], [True])

    def test_bad_overrides_are_named(self):
        for bad, msg in (("interleave", "expected NAME="), ("registers=8", "not tunable"),
                         ("interleave=2,2", "distinct"), ("interleave=", "expected NAME=")):
            with self.assertRaisesRegex(space.SpaceError, msg):
                space.sweep_values(EMITTERS["x86_64_aes"], {}, [bad])
        untunable = type("Untunable", (), {"name": "nonesuch", "sweep": None})()
        with self.assertRaisesRegex(space.SpaceError, "no tunable"):
            space.sweep_values(untunable, {}, None)

    def test_unroll_is_swept_in_its_listed_order_for_both_directions(self):
        for emitter in ("c_bitsliced", "c_simd"):
            vals = space.sweep_values(EMITTERS[emitter], {"unroll": ["full"]}, None)
            self.assertEqual(vals["unroll"], ["full", "loop4"])
            self.assertTrue(EMITTERS[emitter].sweep.relevant("unroll", "enc"))
            self.assertTrue(EMITTERS[emitter].sweep.relevant("unroll", "dec"))
        # the x86-64 hardware loops: full and the round loop
        self.assertEqual(space.sweep_values(EMITTERS["x86_64_aes"], {"unroll": ["full"]}, None)["unroll"],
                         ["full", "loop1"])
        with self.assertRaisesRegex(space.SpaceError, "not tunable"):
            space.sweep_values(EMITTERS["aarch64_ce"], {}, ["unroll=full,loop1"])

    def test_hardware_unroll_points_each_build_one_unroll(self):
        with tempfile.TemporaryDirectory() as d:
            sweep = {"interleave": [8], "key_policy": ["auto", "streamed"], "unroll": ["full", "loop1"]}
            pts = points.write_points(target("x86_64-aesni"), sweep, [128], Path(d), EMITTERS)
            by = {(p.params["key_policy"], p.params["unroll"]): p for p in pts}
            # a round loop places its keys itself: a forced policy builds the same loop
            self.assertEqual({v.name for v in EMITTERS["x86_64_aes"].variants(by[("streamed", "loop1")].target)},
                             {f"aes128_{d}__tune03_x86_64_aesni_x8_loop1" for d in ("enc", "dec")})
            names = {v.name for v in EMITTERS["x86_64_aes"].variants(by[("auto", "loop1")].target)}
            self.assertEqual(names, {f"aes128_{d}__tune01_x86_64_aesni_x8_loop1" for d in ("enc", "dec")})
            names = {v.name for v in EMITTERS["x86_64_aes"].variants(by[("auto", "full")].target)}
            self.assertEqual(names, {f"aes128_{d}__tune00_x86_64_aesni_x8" for d in ("enc", "dec")})

    def test_direction_relevance(self):
        simd = EMITTERS["c_simd"].sweep
        self.assertFalse(simd.relevant("decrypt", "enc"))
        self.assertTrue(simd.relevant("decrypt", "dec"))
        self.assertTrue(simd.relevant("lane_bits", "enc"))


class Points(unittest.TestCase):
    def test_points_are_valid_targets_and_rejected_ones_say_why(self):
        with tempfile.TemporaryDirectory() as d:
            sweep = {"interleave": [1, 8, 17], "key_policy": ["auto", "resident"], "unroll": ["full"]}
            pts = points.write_points(target("x86_64-aesni"), sweep, [128, 256], Path(d), EMITTERS)
            self.assertEqual(len(pts), 6)
            by = {(p.params["interleave"], p.params["key_policy"]): p for p in pts}
            self.assertIn("1..16", by[(17, "auto")].skipped)             # the schema's range
            self.assertIn("does not fit", by[(8, "resident")].skipped)  # 16 xmm: 8 blocks + 11 keys
            ok = by[(1, "auto")]
            self.assertEqual(ok.skipped, "")
            self.assertEqual(ok.target.name, "tune00-x86_64-aesni")
            self.assertEqual(ok.target.sections["variants"]["key_bits"], [128, 256])
            self.assertEqual(sorted(p.name for p in Path(d).glob("*.toml")),
                             sorted(f"{p.name}.toml" for p in pts if not p.skipped))
            names = {v.name for v in EMITTERS["x86_64_aes"].variants(ok.target)}
            self.assertEqual(names, {f"aes{k}_{d}__tune00_x86_64_aesni_x1" for k in (128, 256) for d in ("enc", "dec")})

    def test_unroll_points_each_build_one_unroll(self):
        with tempfile.TemporaryDirectory() as d:
            sweep = {"unroll": ["full", "loop4"], "decrypt": ["fixslice"]}
            pts = points.write_points(target("x86_64-avx512"), sweep, [128], Path(d), EMITTERS)
            names = [sorted(v.name for v in EMITTERS["c_simd"].variants(p.target)) for p in pts]
            self.assertEqual(names, [
                ["aes128_dec__tune00_x86_64_avx512_fixslice32", "aes128_enc__tune00_x86_64_avx512_fixslice32"],
                ["aes128_dec__tune01_x86_64_avx512_fixslice32_loop4",
                 "aes128_enc__tune01_x86_64_avx512_fixslice32_loop4"]])

    def test_backend_pattern_keeps_placeholders(self):
        self.assertEqual(points.backend_pattern(3, "portable{word_bits}"), "tune03-{word_bits}")
        self.assertEqual(points.backend_pattern(12, "vaes256"), "tune12")
        self.assertLessEqual(len(points.point_name(99, "x" * 40)), 32)


class SameCode(unittest.TestCase):
    def test_results_that_differ_only_in_an_unused_parameter_are_paired(self):
        from aesgen.tune.runner import same_code
        def res(variant, d, tuned, score, status="ok"):
            return {"variant": variant, "key_bits": 128, "direction": d, "tuned": tuned, "score": score,
                    "status": status}
        results = [res("a", "enc", {"lane_bits": 32}, 100.0),          # point 0 (decrypt=fixslice)
                   res("b", "dec", {"lane_bits": 32, "decrypt": "fixslice"}, 90.0),
                   res("c", "enc", {"lane_bits": 32}, 80.0),           # point 1 (decrypt=bitslice)
                   res("d", "dec", {"lane_bits": 32, "decrypt": "bitslice"}, 70.0),
                   res("e", "enc", {"lane_bits": 64}, 50.0, status="failed-vectors"),
                   res("f", "enc", {"lane_bits": 64}, 60.0)]
        pairs = same_code(results)
        self.assertEqual([p["variants"] for p in pairs], [["a", "c"]])
        self.assertEqual(pairs[0]["scores"], [100.0, 80.0])
        self.assertAlmostEqual(pairs[0]["gap"], 0.2)


class Host(unittest.TestCase):
    def test_family_names_come_from_the_numbers(self):
        self.assertEqual(host.cpu_family({"vendor_id": "AuthenticAMD", "cpu family": "26", "model": "68"}),
                         "amd-family1ah-model44h")
        self.assertEqual(host.cpu_family({"vendor_id": "GenuineIntel", "cpu family": "6", "model": "143"}),
                         "intel-family6h-model8fh")
        self.assertEqual(host.cpu_family({"CPU implementer": "0x41", "CPU part": "0xd08"}, "aarch64"),
                         "aarch64-0x41-0xd08")
        self.assertRegex(host.cpu_family(host.cpuinfo()), r"^[a-z0-9][a-z0-9_.-]*$")


class Profiles(unittest.TestCase):
    def write(self, d: Path, family="testfam", choices=None, applied=True, target_name="x86_64-aesni"):
        choices = choices if choices is not None else [
            profiles.Choice(128, "enc", (("interleave", 4), ("key_policy", "auto")), 1.5)]
        (d / target_name).mkdir(parents=True, exist_ok=True)
        (d / target_name / f"{family}.toml").write_text(
            profiles.dumps_profile(target_name, family, {"cpu_model": "test"}, choices), encoding="utf-8")
        if applied:
            (d / "applied.toml").write_text(profiles.dumps_applied({target_name: family}), encoding="utf-8")

    def paths(self, d: Path) -> pipeline.Paths:
        return pipeline.Paths(profiles=d)

    def test_applied_profile_rebuilds_that_key_size_and_direction_only(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            base = {v.name for v in pipeline.load(pipeline.Paths(profiles=d / "none"))[1]}
            self.write(d)
            _, variants = pipeline.load(self.paths(d))
            names = {v.name for v in variants}
            # the winning interleave for both unrolls (the round loop's too)
            self.assertEqual(base - names, {"aes128_enc__x86_64_aesni_x8", "aes128_enc__x86_64_aesni_x8_loop1"})
            self.assertEqual(names - base, {"aes128_enc__x86_64_aesni_x4", "aes128_enc__x86_64_aesni_x4_loop1"})
            v = next(v for v in variants if v.name == "aes128_enc__x86_64_aesni_x4")
            self.assertIn("profile=", v.describe())
            self.assertIn("testfam.toml", v.describe())
            self.assertIn(d / "applied.toml", pipeline.input_files(self.paths(d)))

    def test_an_algorithm_choice_reorders_and_keeps_the_others(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            self.write(d, target_name="x86_64-avx2", choices=[
                profiles.Choice(256, "dec", (("decrypt", "bitslice"), ("gcc_sched_pressure", True),
                                             ("lane_bits", 32)), 1.0)])
            _, variants = pipeline.load(self.paths(d))
            dec = {v.param("algorithm"): v.rank for v in variants
                   if v.target.name == "x86_64-avx2" and v.key_bits == 256 and v.direction == "dec"
                   and v.param("unroll", "full") == "full"}
            self.assertEqual(set(dec), {"bitslice", "fixslice"})
            self.assertLess(dec["bitslice"], dec["fixslice"])          # lower rank wins dispatch

    def test_an_unroll_choice_puts_the_rolled_variants_first_and_keeps_the_full_ones(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            self.write(d, target_name="portable", choices=[
                profiles.Choice(128, "enc", (("unroll", "loop4"),), 1.0)])
            _, variants = pipeline.load(self.paths(d))
            enc = {v.name: v.rank for v in variants if v.target.name == "portable" and v.key_bits == 128
                   and v.direction == "enc" and v.param("word_bits") == 64}
            self.assertEqual(set(enc), {"aes128_enc__portable_fixslice64", "aes128_enc__portable_fixslice64_loop4"})
            self.assertLess(enc["aes128_enc__portable_fixslice64_loop4"], enc["aes128_enc__portable_fixslice64"])

    def test_a_profile_written_without_applied_changes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            self.write(d, applied=False)
            self.assertEqual(aesgen("check", "--profiles", d).returncode, 0)

    def test_bad_profiles_are_named(self):
        cases = [
            ([profiles.Choice(128, "enc", (("registers", 8),))], "not a tunable parameter"),
            ([profiles.Choice(128, "enc", (("interleave", 99),))], "1..16"),
            ([profiles.Choice(128, "enc", (("interleave", 8), ("key_policy", "resident")))], "does not fit"),
            ([profiles.Choice(128, "enc", (("interleave", 2),)),
              profiles.Choice(128, "enc", (("interleave", 4),))], "chosen twice"),
            ([], "at least one"),
        ]
        for choices, msg in cases:
            with self.subTest(msg=msg), tempfile.TemporaryDirectory() as d:
                d = Path(d)
                self.write(d, choices=choices)
                r = aesgen("check", "--profiles", d)
                self.assertEqual(r.returncode, 1)
                self.assertRegex(r.stderr, rf"^aesgen: error: .*testfam\.toml.*{msg}")
                self.assertNotIn("Traceback", r.stderr)
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            (d / "applied.toml").write_text('[applied]\nx86_64-aesni = "nosuch"\n')
            r = aesgen("check", "--profiles", d)
            self.assertRegex(r.stderr, r"aesgen: error: .*applied.toml: applied.x86_64-aesni: .* does not exist")
            (d / "applied.toml").write_text('[applied]\nno-target = "x"\n')
            self.assertIn("no such target", aesgen("check", "--profiles", d).stderr)


def _sweep_unavailable() -> str | None:
    if platform.machine() not in ("x86_64", "AMD64"):
        return f"x86_64-aesni cannot run on {platform.machine()}"
    flags = next((l for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("flags")), "")
    if " aes" not in flags:
        return "this CPU has no AES-NI"
    for tool in ("cmake", "cc"):
        if not shutil.which(tool):
            return f"{tool} not found"
    if not Path("/usr/include/openssl/evp.h").is_file():
        return "OpenSSL headers not found (libssl-dev)"
    return None


@unittest.skipIf(_sweep_unavailable(), _sweep_unavailable() or "")
class ModeChecks(unittest.TestCase):
    def test_xts_scores_aes128_and_aes256_only_and_unknown_modes_are_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = aesgen("tune", "--target", "x86_64-aesni", "--modes", "xts", "--key-sizes", "128,192",
                       "--scratch", tmp)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("XTS is AES-128 and AES-256 only", r.stderr)
            r = aesgen("tune", "--target", "x86_64-aesni", "--modes", "gcm", "--key-sizes", "128",
                       "--scratch", tmp)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("'gcm' is not ecb, ctr, cbc or xts", r.stderr)


class TinySweep(unittest.TestCase):
    """Two points (interleave 1 and 2), AES-128, ECB: builds, verifies, times, applies."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="aesgen-tune-test-")
        t = Path(cls.tmp.name)
        cls.scratch, cls.gen, cls.prof = t / "scratch", t / "generated", t / "profiles"
        shutil.copytree(ROOT / "generated", cls.gen)
        # the repository's profiles: applying adds to them, the other targets keep theirs
        if (ROOT / "generator" / "profiles").is_dir():
            shutil.copytree(ROOT / "generator" / "profiles", cls.prof)
        else:
            cls.prof.mkdir()
        cls.prof_before = snapshot(cls.prof)
        cls.before = snapshot(cls.gen)
        cls.common = ["--target", "x86_64-aesni", "--key-sizes", "128", "--modes", "ecb",
                      "--space", "interleave=1,2", "--space", "unroll=full", "--repeats", "1", "--min-time-ms", "0.5",
                      "--scratch", cls.scratch, "--out", cls.gen, "--profiles", cls.prof, "--jobs", "2"]
        cls.vectors = ["--vectors", VECTORS] if VECTORS.is_dir() else []

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_1_sweep_without_apply_writes_results_and_changes_nothing(self):
        if REQUIRE_VECTORS and not VECTORS.is_dir():
            self.fail(f"vector folder {VECTORS} missing (AESGEN_REQUIRE_VECTORS)")
        r = aesgen("tune", *self.common, *self.vectors)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        doc = json.loads((self.scratch / "results.json").read_text())
        self.assertEqual(doc["format"], "aesgen-tune-results/1")
        self.assertEqual(doc["status"], "complete")
        self.assertEqual(doc["target"], "x86_64-aesni")
        self.assertEqual([p["status"] for p in doc["points"]], ["ok", "ok"])
        self.assertTrue(doc["machine"]["cpu_model"] and doc["machine"]["compiler"])
        self.assertIn("aesni", doc["machine"]["features"])
        self.assertEqual(len(doc["results"]), 4)                    # 2 points x enc/dec
        self.assertEqual(doc["same_code"], [])                      # interleave 1 and 2 differ everywhere
        for res in doc["results"]:
            self.assertEqual(res["status"], "ok", res)
            op = "ecb-enc" if res["direction"] == "enc" else "ecb-dec"
            m = res["ops"][op]
            self.assertGreater(m["mbps"], 0)
            self.assertGreater(m["openssl_mbps"], 0)
            self.assertLessEqual(m["mbps_min"], m["mbps"])
            self.assertLessEqual(m["mbps"], m["mbps_max"])
            self.assertAlmostEqual(res["score"], m["mbps"], places=6)      # one op: its median MB/s
            self.assertAlmostEqual(m["ratio"], m["ratio_per_round"][0], places=3)
        self.assertEqual(sorted((w["key_bits"], w["direction"]) for w in doc["winners"]), [(128, "dec"), (128, "enc")])
        for w in doc["winners"]:
            best = max(r["score"] for r in doc["results"] if r["direction"] == w["direction"])
            self.assertEqual(w["score"], best)                      # the chosen default is the measured best
            self.assertIn(w["params"]["interleave"], (1, 2))
        prof = tomllib.loads((self.scratch / "profile.toml").read_text())
        self.assertEqual(prof["profile"]["cpu_family"], doc["machine"]["cpu_family"])
        self.assertEqual(snapshot(self.gen), self.before)
        self.assertEqual(snapshot(self.prof), self.prof_before)

    def test_2_refuses_to_apply_a_sweep_whose_variants_fail_the_vectors(self):
        if not VECTORS.is_dir():
            if REQUIRE_VECTORS:
                self.fail(f"vector folder {VECTORS} missing (AESGEN_REQUIRE_VECTORS)")
            self.skipTest(f"no vector folder {VECTORS}")
        bad = Path(self.tmp.name) / "bad-vectors"
        shutil.copytree(VECTORS, bad)
        f = bad / "nist-cavp" / "kat" / "ECBGFSbox128.rsp"
        text = f.read_text()
        f.write_text(text.replace("CIPHERTEXT = 0336763e966d92595a567cc9ce537f5e",
                                  "CIPHERTEXT = 0336763e966d92595a567cc9ce537f5f", 1))
        self.assertNotEqual(f.read_text(), text)
        r = aesgen("tune", *self.common, "--vectors", bad, "--apply")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stderr, r"aesgen: error: not applying: no variant passed the vectors .* AES-128 enc")
        doc = json.loads((self.scratch / "results.json").read_text())
        enc = [x for x in doc["results"] if x["direction"] == "enc"]
        self.assertTrue(enc and all(x["status"] == "failed-vectors" for x in enc))
        self.assertNotIn("enc", [w["direction"] for w in doc["winners"]])
        self.assertEqual(snapshot(self.gen), self.before)
        self.assertEqual(snapshot(self.prof), self.prof_before)

    def test_3_apply_changes_exactly_the_profiled_variants_and_check_passes(self):
        r = aesgen("tune", *self.common, *self.vectors, "--apply")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        doc = json.loads((self.scratch / "results.json").read_text())
        fam = doc["machine"]["cpu_family"]
        self.assertEqual(tomllib.loads((self.prof / "applied.toml").read_text())["applied"]["x86_64-aesni"], fam)
        choices = tomllib.loads((self.prof / "x86_64-aesni" / f"{fam}.toml").read_text())["choice"]
        got = {(c["key_bits"], c["direction"]): c["params"] for c in choices}
        for w in doc["winners"]:
            self.assertEqual(got[(128, w["direction"])], w["params"])
        self.assertEqual(aesgen("check", "--out", self.gen, "--profiles", self.prof).returncode, 0)
        after = snapshot(self.gen)
        win = {w["direction"]: w["params"]["interleave"] for w in doc["winners"]}
        # the winning interleave for both unrolls (unroll is an ordered list: the winner first);
        # a round-loop variant is a .c file, its functions in the loops file of its
        # interleave (AES-192 and AES-256 keep x8's)
        expect_new = {f"x86_64_aesni/aes128_{d}__x86_64_aesni_x{n}.{ext}" for d, n in win.items()
                      for ext in ("S", "c")} | \
            {f"x86_64_aesni/aes128_{d}__x86_64_aesni_x{n}_loop1.c" for d, n in win.items()}
        loops = {f"common/x86_64_aesni_x{n}_loop1_{d}.S" for d, n in win.items()}
        old = {f for f in self.before
               if re.fullmatch(r"x86_64_aesni/aes128_(enc|dec)__x86_64_aesni_x\d+(_loop1\.c|\.[Sc])", f)}
        self.assertEqual(len(old), 6)
        self.assertEqual(set(after) - set(self.before), (expect_new - old) | (loops - set(self.before)))
        self.assertEqual(set(self.before) - set(after), old - expect_new)
        changed = {k for k in set(after) & set(self.before) if after[k] != self.before[k]}
        # the variants' headers name the profile; the aggregates list the variants
        self.assertLessEqual(changed - {"registry.c", "sources.cmake", "README.md"}, expect_new & old)
        for f in expect_new:
            self.assertIn(f"profile=", after[f].decode())


if __name__ == "__main__":
    unittest.main()
