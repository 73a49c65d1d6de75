"""`aesgen report` end to end on saved data: the files it writes, the numbers in its
tables, the SVGs, the tune section, and bad input that fails with one line and leaves
an existing report as it was. A fake bench stands in for aesgen-bench; nothing is timed."""

import contextlib
import copy
import io
import json
import os
import shutil
import stat
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path
from unittest import mock

from aesgen import cli, report

DATA = Path(__file__).resolve().parent / "data"
BENCH = DATA / "bench-example.json"
TUNE = DATA / "tune-results-example.json"
SVG = "{http://www.w3.org/2000/svg}"


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def snapshot(folder: Path) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


def md_row(text: str, first_cell: str) -> list[str]:
    """The cells of the first Markdown table row that starts with first_cell."""
    for line in text.splitlines():
        if line.startswith(f"| {first_cell} |"):
            return [c.strip() for c in line.strip("|").split("|")][1:]
    raise AssertionError(f"no row '{first_cell}'")


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="aesgen-report-test-"))
        self.addCleanup(shutil.rmtree, self.tmp)
        self.out = self.tmp / "report"
        self.bench = json.loads(BENCH.read_text())

    def write_json(self, name: str, doc) -> Path:
        p = self.tmp / name
        p.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
        return p

    def fake_bench(self, exit_status=0, stderr="", stdout_file=BENCH) -> Path:
        """An executable that records its arguments and behaves like aesgen-bench."""
        script = self.tmp / "fake-bench"
        script.write_text(f"#!{sys.executable}\n"
                          "import sys\n"
                          f"open({str(self.tmp / 'argv')!r}, 'w').write(' '.join(sys.argv[1:]))\n"
                          f"sys.stdout.write(open({str(stdout_file)!r}).read())\n"
                          f"sys.stderr.write({stderr!r})\n"
                          f"sys.exit({exit_status})\n")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
        return script


class FromJson(Base):
    def test_files_tables_and_plots(self):
        rc, out, err = run("report", "--from-json", str(BENCH), "--out", str(self.out))
        self.assertEqual(rc, 0, err)
        names = sorted(p.name for p in self.out.iterdir())
        self.assertEqual(names, ["bench.json", "report.md", "throughput-ctr-aes128.svg", "throughput-ctr-aes256.svg",
                                 "throughput-ecb-enc-aes128.svg", "throughput-ecb-enc-aes256.svg"])
        self.assertEqual(json.loads((self.out / "bench.json").read_text()), self.bench)
        md = (self.out / "report.md").read_text()
        for text in ("| CPU | AMD EPYC |", "| compiler | gcc 12.2.0 |", "### AES-128", "#### AES-256 ctr",
                     "| implementation | 16 B | 64 B | 256 B | 1 KiB | 8 KiB | 1 MiB |",
                     "![AES-128 ecb-enc throughput by message size](throughput-ecb-enc-aes128.svg)",
                     "rustcrypto-aes0.6 ctr (AES-128, 256): n/a: not offered"):
            self.assertIn(text, md)

        rows = {(r["impl"], r["op"], r["key_bits"], r["bytes"]): r for r in self.bench["rows"]}
        sizes = [16, 64, 256, 1024, 8192, 1 << 20]
        section = md.split("#### AES-128 ecb-enc")[1].split("####")[0]
        vaes = md_row(section, "aesgen-vaes256")
        for cell, size in zip(vaes, sizes):
            r = rows["aesgen-vaes256", "ecb-enc", 128, size]
            ratio = r["ratio_to_openssl"]
            self.assertEqual(cell, f"{r['mb_per_s']['median']:.1f} ({ratio:.2f}x)" if ratio >= 0.1
                             else f"{r['mb_per_s']['median']:.1f} ({ratio:.3f}x)")
        self.assertEqual(md_row(section, "**openssl**"),
                         [f"{rows['openssl', 'ecb-enc', 128, s]['mb_per_s']['median']:.1f}" for s in sizes])
        ctr = md.split("#### AES-128 ctr")[1].split("####")[0]
        self.assertEqual(md_row(ctr, "rustcrypto-aes0.6"), ["n/a"] * 6)
        self.assertNotIn("| openssl |", md.split("### Implementations")[0], "openssl must be the bold row")

        impls = [i["name"] for i in self.bench["implementations"]]
        for op, k in (("ecb-enc", 128), ("ctr", 256)):
            root = ET.parse(self.out / f"throughput-{op}-aes{k}.svg").getroot()
            names = [g.get("data-name") for g in root.iter(f"{SVG}g") if g.get("class") == "series"]
            timed = [n for n in impls if rows[n, op, k, 8192]["status"] == "ok"]
            self.assertEqual(names, timed)
            self.assertEqual(len([p for p in root.iter(f"{SVG}polyline")]), len(timed))

        def stroke(svg, name):
            root = ET.parse(self.out / svg).getroot()
            g = next(g for g in root.iter(f"{SVG}g") if g.get("data-name") == name)
            return g.find(f"{SVG}polyline").get("stroke")
        # rustcrypto has no CTR line; gcrypt after it keeps its colour anyway.
        self.assertEqual(stroke("throughput-ecb-enc-aes128.svg", "gcrypt"),
                         stroke("throughput-ctr-aes128.svg", "gcrypt"))

    def test_software_rows_against_their_issue_bound(self):
        doc = copy.deepcopy(self.bench)
        self.assertNotIn("issue bound", report.build(report.parse_bench(json.dumps(doc), "x"), json.dumps(doc), [])
                         ["report.md"], "no bound in the bench output: no section")
        portable = next(i for i in doc["implementations"] if i["name"] == "aesgen-portable64")
        portable["variants"]["128"]["encrypt_issue_bound_mb_per_s"] = 400.0
        portable["variants"]["128"]["decrypt_issue_bound_mb_per_s"] = None
        aesni = next(i for i in doc["implementations"] if i["name"] == "aesgen-aesni")
        aesni["variants"]["128"]["encrypt_issue_bound_mb_per_s"] = None
        md = report.build(report.parse_bench(json.dumps(doc), "x"), json.dumps(doc), [])["report.md"]
        section = md.split("### Constant-time software against its issue bound")[1].split("###")[0]
        largest = max(r["bytes"] for r in doc["rows"] if r["impl"] == "aesgen-portable64" and r["op"] == "ecb-enc"
                      and r["key_bits"] == 128 and r["status"] == "ok")
        mbps = next(r["mb_per_s"]["median"] for r in doc["rows"] if r["impl"] == "aesgen-portable64"
                    and r["op"] == "ecb-enc" and r["key_bits"] == 128 and r["bytes"] == largest)
        self.assertEqual(md_row(section, "aesgen-portable64"),
                         ["AES-128", "ecb-enc", report._size_label(largest), f"{mbps:.1f}", "400.0",
                          f"{100 * mbps / 400:.0f}%"])
        self.assertEqual(section.count("| aesgen-"), 1, "only rows with a bound")

    def test_two_runs_are_identical_and_the_second_writes_nothing(self):
        a, b = self.tmp / "a", self.tmp / "b"
        for out in (a, b):
            self.assertEqual(run("report", "--from-json", str(BENCH), "--tune", str(TUNE), "--out", str(out))[0], 0)
        self.assertEqual({n: d for n, (d, _) in snapshot(a).items()}, {n: d for n, (d, _) in snapshot(b).items()})
        before = snapshot(a)
        rc, out, _ = run("report", "--from-json", str(BENCH), "--tune", str(TUNE), "--out", str(a))
        self.assertIn("0 files written", out)
        self.assertEqual(snapshot(a), before)

    def test_an_older_report_is_replaced_cleanly(self):
        self.assertEqual(run("report", "--from-json", str(BENCH), "--tune", str(TUNE), "--out", str(self.out))[0], 0)
        (self.out / "notes.txt").write_text("mine\n")
        self.assertTrue(any(p.name.startswith("interleave-") for p in self.out.iterdir()))
        rc, out, _ = run("report", "--from-json", str(BENCH), "--out", str(self.out))
        self.assertEqual(rc, 0)
        left = {p.name for p in self.out.iterdir()}
        self.assertFalse([n for n in left if n.startswith(("interleave-", "tune-"))], left)
        self.assertIn("notes.txt", left)
        self.assertNotIn("Tuning", (self.out / "report.md").read_text())


class Tune(Base):
    def test_interleave_plots_knee_and_left_out_points(self):
        rc, _, err = run("report", "--from-json", str(BENCH), "--tune", str(TUNE), "--out", str(self.out))
        self.assertEqual(rc, 0, err)
        plots = sorted(p.name for p in self.out.glob("interleave-*.svg"))
        self.assertEqual(plots, sorted(f"interleave-x86_64-vaes256-{op}-aes{k}.svg"
                                       for k in (128, 256) for op in ("ctr", "ecb-dec", "ecb-enc")))
        self.assertEqual(json.loads((self.out / "tune-x86_64-vaes256.json").read_text()),
                         json.loads(TUNE.read_text()))
        md = (self.out / "report.md").read_text()
        self.assertIn("## Tuning: x86_64-vaes256", md)
        self.assertIn("- point 4 (interleave=16, key_policy=auto): skipped", md)
        self.assertIn("- aes256_dec__tune00_x86_64_vaes256_x1: failed-vectors (ECBVarTxt256.rsp", md)
        self.assertEqual(md_row(md, "aes128_enc__tune02_x86_64_vaes256_x4"),
                         ["128", "enc", "4", "auto", "ok", "18718.9 ±1% (2.03x)", "", "17290.5 ±1% (2.13x)", "17990"])
        knees = [line for line in md.splitlines() if line.startswith("| AES-")]
        self.assertIn("| AES-128 | ctr | key_policy=auto | 8 | 17430.7 | 4 | 17290.5 | 0.992 |", knees)
        self.assertIn("| AES-128 | ecb-enc | key_policy=auto | 8 | 19446.1 | 8 | 19446.1 | 1.000 |", knees)

        root = ET.parse(self.out / "interleave-x86_64-vaes256-ctr-aes128.svg").getroot()
        self.assertEqual(len(list(root.iter(f"{SVG}polyline"))), 1)
        labels = [t.text for t in root.iter(f"{SVG}text")]
        self.assertIn("winner: x8", labels)
        self.assertIn("knee: x4", labels)
        self.assertTrue(any(t and t.startswith("openssl ") and "median of 4" in t for t in labels), labels)
        self.assertEqual([t for t in labels if t in ("1", "2", "4", "8", "16")], ["1", "2", "4", "8"])
        # The failed interleave-1 result is not a point of the AES-256 ecb-dec plot.
        root = ET.parse(self.out / "interleave-x86_64-vaes256-ecb-dec-aes256.svg").getroot()
        self.assertEqual(len(next(root.iter(f"{SVG}polyline")).get("points").split()), 3)

    def test_without_an_interleave_parameter_only_a_table(self):
        doc = json.loads(TUNE.read_text())
        doc["target"] = "x86_64-avx2"
        doc["space"] = {"lane_bits": [32, 64]}
        for r in doc["results"]:
            r["params"] = {"lane_bits": 32 if r["params"]["interleave"] < 4 else 64}
        path = self.write_json("lanes.json", doc)
        rc, _, err = run("report", "--tune", str(path), "--out", str(self.out))
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(p.name for p in self.out.iterdir()), ["report.md", "tune-x86_64-avx2.json"])
        md = (self.out / "report.md").read_text()
        self.assertIn("no interleave parameter: table only", md)
        self.assertIn("| variant | key | dir | lane_bits | status |", md)

    def test_same_code_pairs_give_the_noise_floor(self):
        doc = json.loads(TUNE.read_text())
        doc["same_code"] = [{"key_bits": 128, "direction": "enc", "variants": ["a", "b"], "scores": [1, 0.9],
                             "gap": 0.10},
                            {"key_bits": 256, "direction": "enc", "variants": ["c", "d"], "scores": [1, 0.98],
                             "gap": 0.02},
                            {"key_bits": 256, "direction": "enc", "variants": ["e"], "gap": 0.5},  # malformed
                            {"key_bits": 192, "direction": "enc", "variants": ["f", "g"], "scores": [1, 0.95],
                             "gap": 0.05}]
        rc, _, err = run("report", "--tune", str(self.write_json("t.json", doc)), "--out", str(self.out))
        self.assertEqual(rc, 0, err)
        md = (self.out / "report.md").read_text()
        self.assertIn("Noise floor: 3 results are the same code as another result", md)
        self.assertIn("differ by a median of 5.0% and at most 10.0%", md)
        doc["same_code"] = "junk"
        rc, _, err = run("report", "--tune", str(self.write_json("t.json", doc)), "--out", str(self.out))
        self.assertEqual(rc, 0, err)
        self.assertNotIn("Noise floor", (self.out / "report.md").read_text())

    def test_defensive_parsing(self):
        doc = json.loads(TUNE.read_text())
        doc["results"] += ["junk", {"variant": "x", "key_bits": "128", "direction": "enc"},
                           {"variant": "y", "key_bits": 128, "direction": "enc", "status": "ok", "ops": {"ctr": {}}}]
        doc["winners"] = None
        doc["status"] = "interrupted"
        path = self.write_json("t.json", doc)
        rc, _, err = run("report", "--tune", str(path), "--out", str(self.out))
        self.assertEqual(rc, 0, err)
        md = (self.out / "report.md").read_text()
        self.assertIn("**This sweep is interrupted, not complete", md)
        self.assertIn("results[16]: not an object", md)
        self.assertIn("results[17]: needs variant, key_bits and direction", md)
        self.assertIn("results[18] (y): status ok but no op has a number", md)

    def test_the_minimal_schema(self):
        """Only the fields the tune format promises: no points, tuned, status or elapsed time."""
        doc = {"format": "aesgen-tune-results/1", "target": "x86_64-aesni",
               "machine": {"cpu_model": "cpu", "compiler": "gcc"},
               "settings": {"size": 8192}, "space": {"interleave": [1, 2]},
               "results": [{"variant": f"aes128_enc__x{i}", "key_bits": 128, "direction": "enc",
                            "params": {"interleave": i}, "status": "ok", "reason": "",
                            "ops": {"ctr": {"mbps": 1000.0 * i, "openssl_mbps": 1500.0, "ratio": i / 1.5}},
                            "score": i / 1.5} for i in (1, 2)],
               "winners": [{"key_bits": 128, "direction": "enc", "variant": "aes128_enc__x2",
                            "params": {"interleave": 2}, "score": 1.33}]}
        tune = report.parse_tune(json.dumps(doc), "t.json")
        files = report.build(None, None, [tune])
        self.assertEqual(sorted(files), ["interleave-x86_64-aesni-ctr-aes128.svg", "report.md",
                                         "tune-x86_64-aesni.json"])
        self.assertIn("| AES-128 | ctr | AES-128 ctr | 2 | 2000.0 | 2 | 2000.0 | 1.000 |", files["report.md"])
        self.assertIn(">winner = knee: x2<", files["interleave-x86_64-aesni-ctr-aes128.svg"])
        self.assertIn("| aes128_enc__x2 | 128 | enc | 2 | ok | 2000.0 (1.33x) |", files["report.md"])  # no spread given

    def test_two_files_for_one_target_are_refused(self):
        rc, _, err = run("report", "--tune", str(TUNE), "--tune", str(TUNE), "--out", str(self.out))
        self.assertEqual(rc, 1)
        self.assertIn("both hold results for target 'x86_64-vaes256'", err)


class Errors(Base):
    def assert_fails_leaving_report(self, argv, message):
        self.assertEqual(run("report", "--from-json", str(BENCH), "--tune", str(TUNE), "--out", str(self.out))[0], 0)
        before = snapshot(self.out)
        rc, out, err = run("report", *argv, "--out", str(self.out))
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        # With --bench a progress line ("aesgen: running ...") comes first; one error line ends it.
        errors = [line for line in err.splitlines() if line.startswith("aesgen: error: ")]
        self.assertEqual(len(errors), 1, err)
        self.assertEqual(err.splitlines()[-1], errors[0])
        self.assertIn(message, errors[0])
        self.assertEqual(snapshot(self.out), before)

    def test_malformed_bench_json(self):
        self.assert_fails_leaving_report(["--from-json", str(self.write_json("b.json", '{"tool": "aesgen-bench",'))],
                                         "b.json: not valid JSON")

    def test_bench_json_of_the_wrong_shape(self):
        bad = copy.deepcopy(self.bench)
        del bad["rows"][5]["mb_per_s"]
        self.assert_fails_leaving_report(["--from-json", str(self.write_json("b.json", bad))],
                                         "rows[5]: status ok but no mb_per_s.median")
        self.assert_fails_leaving_report(["--from-json", str(self.write_json("c.json", {"tool": "other"}))],
                                         "not an aesgen-bench JSON document")
        bad = copy.deepcopy(self.bench)
        bad["rows"][0]["impl"] = "nobody"
        self.assert_fails_leaving_report(["--from-json", str(self.write_json("d.json", bad))],
                                         "implementation 'nobody' is not in \"implementations\"")

    def test_malformed_tune_results(self):
        self.assert_fails_leaving_report(["--from-json", str(BENCH), "--tune",
                                          str(self.write_json("t.json", {"format": "aesgen-tune-results/2"}))],
                                         "not an aesgen tune results file")
        self.assert_fails_leaving_report(["--from-json", str(BENCH), "--tune", str(self.tmp / "missing.json")],
                                         "missing.json: cannot read")

    def test_missing_bench_binary(self):
        self.assert_fails_leaving_report(["--bench", str(self.tmp / "no-such-bench")], "no such executable")

    def test_bench_exit_status(self):
        bench = self.fake_bench(exit_status=1, stderr="\r  measuring 3/90\raesgen-bench: error: row disagrees\n")
        self.assert_fails_leaving_report(["--bench", str(bench)],
                                         "exited with status 1: aesgen-bench: error: row disagrees")

    def test_nothing_to_report(self):
        rc, _, err = run("report", "--out", str(self.out))
        self.assertEqual((rc, len(err.splitlines())), (1, 1))
        self.assertIn("nothing to report", err)
        self.assertFalse(self.out.exists())

    def test_interrupt_leaves_no_partial_file(self):
        self.assertEqual(run("report", "--from-json", str(BENCH), "--out", str(self.out))[0], 0)
        old_md = (self.out / "report.md").read_bytes()
        real_replace, calls = os.replace, []

        def replace(src, dst):
            calls.append(dst)
            if len(calls) == 3:
                raise KeyboardInterrupt
            return real_replace(src, dst)

        with mock.patch("aesgen.writer.os.replace", side_effect=replace):
            rc, _, err = run("report", "--from-json", str(BENCH), "--tune", str(TUNE), "--out", str(self.out))
        self.assertEqual(rc, 130)
        self.assertIn("interrupted", err)
        self.assertEqual([p.name for p in self.out.iterdir() if p.name.endswith(".tmp")], [])
        self.assertEqual((self.out / "report.md").read_bytes(), old_md, "report.md is written last")
        for p in self.out.glob("*.svg"):
            ET.parse(p)


class RunsTheBench(Base):
    def test_runs_the_ladder_and_quick_is_shorter(self):
        bench = self.fake_bench()
        rc, out, err = run("report", "--bench", str(bench), "--quick", "--out", str(self.out))
        self.assertEqual(rc, 0, err)
        argv = (self.tmp / "argv").read_text().split()
        self.assertEqual(argv[:8], ["--format", "json", "--sizes", "16,64,256,1024,8192,1M", "--op", "all",
                                    "--peers", "all"])
        self.assertIn("--repeats", argv)
        self.assertTrue((self.out / "throughput-ecb-enc-aes128.svg").is_file())
        self.assertEqual((self.out / "bench.json").read_text(), BENCH.read_text())
        self.assertEqual(run("report", "--bench", str(bench), "--out", str(self.out))[0], 0)
        self.assertNotIn("--repeats", (self.tmp / "argv").read_text())

    def test_a_bare_name_is_in_the_current_folder(self):
        self.fake_bench()
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(self.tmp)
        rc, _, err = run("report", "--bench", "fake-bench", "--out", "r")
        self.assertEqual(rc, 0, err)
        self.assertIn("running ./fake-bench --format json", err)

    def test_bench_printing_garbage(self):
        garbage = self.tmp / "garbage.txt"
        garbage.write_text("aesgen-bench 8192-byte messages\n")
        rc, _, err = run("report", "--bench", str(self.fake_bench(stdout_file=garbage)), "--out", str(self.out))
        self.assertEqual(rc, 1)
        self.assertIn("--format json: not valid JSON", err)
        self.assertEqual([ln for ln in err.splitlines() if "error" in ln], [err.splitlines()[-1]])


if __name__ == "__main__":
    unittest.main()
