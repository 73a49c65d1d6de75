"""The per-CPU dispatch table: the repository's rows name real backends, bad files are
refused with the file and field named, a row moves only the backends it lists into the
rank slots they held, measured rows come first, and tune-dispatch's ordering keeps the
targets' order within its tie margin."""

import tempfile
import textwrap
import unittest
from pathlib import Path

from aesgen import cpu_table, pipeline
from aesgen.cpu_table import CpuTableError
from aesgen.tune import dispatch as tune_dispatch

ROOT = pipeline.ROOT
PATHS = pipeline.Paths()


def _variants():
    if not hasattr(_variants, "cache"):
        _variants.cache = pipeline.load(PATHS)[1]
    return _variants.cache


def _spans():
    return cpu_table.backend_spans(_variants(), pipeline.processor)


ICELAKE_ROW = """
[[cpu]]
vendor = "intel"
family = 0x6
models = [0x6a]
name = "Ice Lake server"
prefer = ["vaes256-avx512vl", "vaes512"]
why = "zmm lowers the clock"
source = "somewhere"
"""


class Rows(unittest.TestCase):
    def load(self, published: str | None = None, measured: dict[str, str] | None = None):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            if published is not None:
                (d / "published.toml").write_text(textwrap.dedent(published))
            for name, text in (measured or {}).items():
                (d / "measured").mkdir(exist_ok=True)
                (d / "measured" / name).write_text(textwrap.dedent(text))
            return cpu_table.load_rows(d, d)

    def refused(self, published=None, measured=None) -> str:
        with self.assertRaises(CpuTableError) as e:
            self.load(published, measured)
        return str(e.exception)

    def test_repository_rows_name_only_real_backends(self):
        rows = cpu_table.load_rows(PATHS.cpus, ROOT)
        self.assertTrue(rows)
        for r in rows:
            self.assertEqual(cpu_table.unknown_backends(r, _spans()), [], f"{r.display}: {r.name}")
            cpu_table.rank_changes(r, _spans())   # raises if a move meets another backend

    def test_published_prefer_ymm_rows(self):
        rows = cpu_table.load_rows(PATHS.cpus, ROOT)
        icelake = [r for r in rows if not r.measured and r.vendor == "intel" and any(lo <= 0x6a <= hi for lo, hi in r.models)]
        self.assertEqual(len(icelake), 1)
        changes = dict(cpu_table.rank_changes(icelake[0], _spans()))
        self.assertEqual(changes, {"vaes256-avx512vl": -50, "vaes512": 50, "ghash-vpclmul256": -50,
                                   "ghash-vpclmul512": 50})

    def test_bad_fields_are_named(self):
        self.assertIn("vendor", self.refused(ICELAKE_ROW.replace('"intel"', '"via"')))
        self.assertIn("models", self.refused(ICELAKE_ROW.replace("[0x6a]", "[[0x70, 0x6a]]")))
        self.assertIn("models", self.refused(ICELAKE_ROW.replace("[0x6a]", "[0x100]")))
        self.assertIn("prefer", self.refused(ICELAKE_ROW.replace('["vaes256-avx512vl", "vaes512"]', '["vaes512"]')))
        self.assertIn("why", self.refused(ICELAKE_ROW.replace('"zmm lowers the clock"', '"zmm \u2013 clock"')))
        self.assertIn("speed: unknown key", self.refused(ICELAKE_ROW + 'speed = 1\n'))
        self.assertIn("not valid TOML", self.refused("[[cpu]\n"))

    def test_a_model_in_two_published_rows_is_refused(self):
        second = ICELAKE_ROW.replace("[0x6a]", "[[0x60, 0x6f]]")
        self.assertIn("already in", self.refused(ICELAKE_ROW + second))

    def test_measured_rows_come_first_and_must_match_their_file(self):
        measured = """
        [cpu]
        id = "intel-family6h-model6ah"
        name = "this machine"
        prefer = ["vaes512", "vaes256-avx512vl"]
        why = "measured"
        source = "tune"
        """
        rows = self.load(ICELAKE_ROW, {"intel-family6h-model6ah.toml": measured})
        self.assertTrue(rows[0].measured)
        self.assertEqual(rows[0].models, ((0x6a, 0x6a),))
        self.assertIn("equal to the file name", self.refused(ICELAKE_ROW, {"intel-family6h-model6bh.toml": measured}))

    def test_moves_take_the_listed_backends_slots(self):
        row = self.load(ICELAKE_ROW)[0]
        self.assertEqual(dict(cpu_table.rank_changes(row, _spans())), {"vaes256-avx512vl": -50, "vaes512": 50})
        # Listing them in the default order changes nothing.
        same = self.load(ICELAKE_ROW.replace('["vaes256-avx512vl", "vaes512"]', '["vaes512", "vaes256-avx512vl"]'))[0]
        self.assertEqual(cpu_table.rank_changes(same, _spans()), [])
        # A backend another target set lacks is left out, not an error.
        other = self.load(ICELAKE_ROW.replace('"vaes512"]', '"vaes512", "vaes1024"]'))[0]
        self.assertEqual(cpu_table.unknown_backends(other, _spans()), ["vaes1024"])

    def test_a_move_that_meets_another_backend_is_refused(self):
        spans = {"a": ("aes", 100, 100, None), "b": ("aes", 150, 160, None), "c": ("aes", 100, 120, None)}
        row = self.load(ICELAKE_ROW.replace('["vaes256-avx512vl", "vaes512"]', '["b", "a"]'))[0]
        with self.assertRaises(CpuTableError) as e:
            cpu_table.rank_changes(row, spans)
        self.assertIn("meeting c's", str(e.exception))

    def test_cpu_ids(self):
        self.assertEqual(cpu_table.cpu_id("intel", 6, 0xcf), "intel-family6h-modelcfh")
        self.assertEqual(cpu_table.parse_cpu_id("amd-family1ah-model02h"), ("amd", 0x1a, 2))
        self.assertIsNone(cpu_table.parse_cpu_id("amd-family1a-model02h"))


class GeneratedTable(unittest.TestCase):
    def test_c_table_lists_measured_rows_first(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            (d / "measured").mkdir()
            (d / "published.toml").write_text(ICELAKE_ROW)
            (d / "measured" / "amd-family19h-model11h.toml").write_text(textwrap.dedent("""
                [cpu]
                id = "amd-family19h-model11h"
                name = "a Zen 4"
                prefer = ["vaes256-avx512vl", "vaes512"]
                why = "measured here"
                source = "tune"
            """))
            rows = cpu_table.load_rows(d, d)
            ctx = cpu_table.template_context(rows, _variants(), pipeline.processor)["cpu_rows"]
            self.assertEqual(ctx[0]["vendor"], "AESGEN_CPU_VENDOR_AMD")
            self.assertEqual(ctx[0]["models"], [("0x11", "0x11")])
            self.assertEqual(ctx[1]["changes"], [('"vaes256-avx512vl"', -50), ('"vaes512"', 50)])


class TuneOrder(unittest.TestCase):
    RANKS = {"vaes512": 100, "vaes256-avx512vl": 150, "vaes256": 200, "aesni": 300}

    def test_best_score_first(self):
        scores = {"vaes512": 100.0, "vaes256-avx512vl": 120.0, "vaes256": 90.0, "aesni": 50.0}
        self.assertEqual(tune_dispatch.order(scores, self.RANKS, 0.02),
                         ["vaes256-avx512vl", "vaes512", "vaes256", "aesni"])

    def test_ties_keep_the_targets_order(self):
        scores = {"vaes512": 100.0, "vaes256-avx512vl": 101.5, "vaes256": 101.0, "aesni": 50.0}
        self.assertEqual(tune_dispatch.order(scores, self.RANKS, 0.02),
                         ["vaes512", "vaes256-avx512vl", "vaes256", "aesni"])


if __name__ == "__main__":
    unittest.main()
