"""Issue 7: hostile target descriptions fail cleanly and write nothing; a killed
`generate` leaves the output folder entirely old or entirely new.

    PYTHONPATH=generator python3 -m unittest discover -s tests/generator -t tests/generator \
        -p 'test_robustness.py'

Hostile targets: the shipped targets are copied to a temporary folder, one file is
corrupted (truncated at several offsets, wrong types, out-of-range and huge numbers,
unknown ISA/encoding values, names with path characters, NUL, unicode or overlong,
backend pattern injection, huge and duplicate lists, booleans where integers go) and
`python3 -m aesgen generate --targets DIR --out OUT` runs as a subprocess with OUT holding
a copy of a good generation. Expected: exit 1, stderr exactly one line starting with
'aesgen: error:' that names the file and the field, no traceback, OUT byte for byte
unchanged (mtimes too). A wider in-process sweep applies the same kinds of value to
every field of every shipped target and requires a TargetError naming the file and field.

Killed generate: writer hooks (AESGEN_WRITER_TEST_HOOK, see aesgen/writer.py) kill the
subprocess with SIGKILL at every step of the tree replacement, with RENAME_EXCHANGE and
with the rename fallback; the folder must then equal the complete old or the complete new
tree, and the next run must recover and finish.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import tomllib
import unittest
from pathlib import Path

from aesgen import pipeline
from aesgen.emit import EMITTERS
from aesgen.targets import TargetError, load_target

ROOT = pipeline.ROOT
TARGETS = ROOT / "generator" / "targets"
GENERATED = ROOT / "generated"
ENV = dict(os.environ, PYTHONPATH=str(ROOT / "generator"))
ENV.pop("AESGEN_WRITER_TEST_HOOK", None)
ENV.pop("AESGEN_WRITER_NO_EXCHANGE", None)


# ----------------------------------------------------------------------------- helpers

def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)   # JSON string escapes are TOML's
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def toml_dumps(doc: dict) -> str:
    out = []
    for table, body in doc.items():
        if not isinstance(body, dict):
            out.append(f"{table} = {toml_value(body)}")
    for table, body in doc.items():
        if isinstance(body, dict):
            out.append(f"\n[{table}]")
            out += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in body.items()]
    return "\n".join(out) + "\n"


def snapshot(folder: Path) -> dict:
    """Every file's bytes and mtime, every folder."""
    snap = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        snap[rel] = (p.read_bytes(), p.stat().st_mtime_ns) if p.is_file() else "dir"
    return snap


def contents(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def aesgen(*argv, env=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "aesgen", *argv], cwd=ROOT, env=env or ENV,
                          capture_output=True, text=True, timeout=timeout)


def load_doc(name: str) -> dict:
    return tomllib.loads((TARGETS / f"{name}.toml").read_text(encoding="utf-8"))


# -------------------------------------------------------------------- hostile targets

class HostileTargets(unittest.TestCase):
    """Each case through the command line, against a pre-populated output folder."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="aesgen-robust-"))
        cls.out = cls.tmp / "out"
        shutil.copytree(GENERATED, cls.out)
        cls.before = snapshot(cls.out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def setUp(self):
        self.targets = self.tmp / f"targets-{self.id().rsplit('.', 1)[-1]}"
        if self.targets.exists():
            shutil.rmtree(self.targets)
        shutil.copytree(TARGETS, self.targets)
        self.addCleanup(shutil.rmtree, self.targets, True)

    def expect_error(self, file: str, text: str | bytes, *fragments: str):
        path = self.targets / file
        original = TARGETS / file
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        r = aesgen("generate", "--targets", str(self.targets), "--out", str(self.out), timeout=300)
        try:
            self.assertEqual(r.returncode, 1, r.stderr[-3000:])
            self.assertNotIn("Traceback", r.stderr)
            lines = r.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, r.stderr[-3000:])
            self.assertTrue(lines[0].startswith("aesgen: error: "), lines[0])
            self.assertIn(file, lines[0])
            for f in fragments:
                self.assertIn(f, lines[0])
            self.assertLess(len(lines[0]), 2000, "the message repeats a huge value")
            self.assertEqual(r.stdout, "")
            self.assertEqual(snapshot(self.out), self.before, "the output folder changed")
            leftovers = [p.name for p in self.tmp.iterdir() if p.name.startswith(".out.")]
            self.assertEqual(leftovers, [])
        finally:
            if original.exists():                       # the next case starts from the shipped file
                shutil.copyfile(original, path)
            else:
                path.unlink(missing_ok=True)
            if snapshot(self.out) != self.before:      # keep later cases meaningful
                shutil.rmtree(self.out)
                shutil.copytree(GENERATED, self.out)
                type(self).before = snapshot(self.out)

    def mutate(self, name: str, table: str, key: str, value, *fragments: str):
        doc = load_doc(name)
        if value is REMOVE:
            del doc[table][key]
        else:
            doc[table][key] = value
        with self.subTest(file=name, field=f"{table}.{key}", value=repr(value)[:60]):
            self.expect_error(f"{name}.toml", toml_dumps(doc), f"{table}.{key}" if table else key, *fragments)

    # --- truncated and unreadable files

    def test_truncated_files(self):
        for name in ("x86_64-aesni", "portable", "sparc64-t4"):
            data = (TARGETS / f"{name}.toml").read_bytes()
            cuts = sorted({0, 1, 7, len(data) // 3, len(data) // 2, len(data) - 40, len(data) - 2})
            # TOML has no end marker: a cut that leaves a complete, valid description (only a
            # trailing comment or an optional field lost) cannot be told from an edit
            cuts = [c for c in cuts if not _still_valid(self.targets, name, data[:c])]
            self.assertGreaterEqual(len(cuts), 5)
            for cut in cuts:
                with self.subTest(file=name, cut=cut):
                    self.expect_error(f"{name}.toml", data[:cut])

    def test_not_utf8_and_nul(self):
        data = (TARGETS / "portable.toml").read_bytes()
        self.expect_error("portable.toml", data.replace(b"constant-time", b"constant\xff-time"), "cannot read")
        self.expect_error("portable.toml", data.replace(b"constant-time", b"constant\0-time"), "not valid TOML")

    # --- interleave and register counts

    def test_interleave(self):
        for value in (10**9, 0, -1, 17, 2**63 - 1, True, 1.5, "8", "AUTO", [4]):
            self.mutate("x86_64-aesni", "variants", "interleave", [value], "variants.interleave")
        self.mutate("x86_64-aesni", "variants", "interleave", [], "must not be empty")
        self.mutate("x86_64-aesni", "variants", "interleave", [4, 4], "twice")
        self.mutate("x86_64-aesni", "variants", "interleave", ["auto", "auto"], "twice")
        self.mutate("x86_64-aesni", "variants", "interleave", 4, "expected a list")
        self.mutate("x86_64-aesni", "variants", "interleave", list(range(1, 17)) * 1000)
        for name in ("sparc64-t4", "aarch64-ce", "riscv64-zkn", "ppc64le-power8"):
            self.mutate(name, "variants", "interleave", [10**9], "variants.interleave")
            self.mutate(name, "variants", "interleave", [-1], "variants.interleave")

    def test_register_counts_and_timings(self):
        for value in (-1, 0, 7, 33, 10**9, -(2**63), True, "16", 16.0):
            self.mutate("x86_64-aesni", "isa", "registers", value)
        for value in (-1, 0, 10**9, True):
            self.mutate("x86_64-aesni", "isa", "aes_latency", value)
            self.mutate("x86_64-aesni", "isa", "aes_issue_per_cycle", value)
            self.mutate("sparc64-t4", "isa", "fp_double_registers", value)
            self.mutate("aarch64-ce", "isa", "aes_latency", value)
        self.mutate("x86_64-aesni", "isa", "vector_bits", 1024, "not a supported vector width")
        self.mutate("x86_64-aesni", "isa", "key_memory_operand", 1, "expected a boolean")

    # --- unknown ISA, encoding, convention, emitter, features

    def test_unknown_values(self):
        self.mutate("x86_64-aesni", "isa", "encoding", "avx10", "not a supported instruction encoding")
        self.mutate("x86_64-avx2", "isa", "name", "avx1024", "not a supported vector ISA")
        self.mutate("x86_64-aesni", "abi", "convention", "win64", "calling convention")
        self.mutate("portable", "target", "emitter", "../../etc/passwd", "not a known emitter")
        self.mutate("x86_64-aesni", "dispatch", "cpu_features", ["aesni", "quantum"], "quantum")
        self.mutate("x86_64-aesni", "dispatch", "cpu_features", ["aesni", "aesni"], "twice")
        self.mutate("x86_64-aesni", "variants", "key_policy", ["auto", "magic"], "key policy")
        self.mutate("portable", "variants", "key_bits", [128, 128], "twice")
        self.mutate("portable", "variants", "key_bits", [True], "variants.key_bits")
        self.mutate("portable", "variants", "word_bits", [64.0], "variants.word_bits")
        self.mutate("x86_64-avx2", "variants", "gcc_sched_pressure", [1], "variants.gcc_sched_pressure")
        self.mutate("x86_64-avx2", "variants", "gcc_sched_pressure", [True, True], "twice")
        self.mutate("x86_64-avx2", "variants", "gcc_sched_pressure", [], "must not be empty")

    # --- names, summaries, backend patterns

    def test_names(self):
        for value in ("x86_64/aesni", "..", "../x", "x86_64-aesni\0", "x86_64-äesni", "x" * 300,
                      "X86_64-AESNI", "", " x86_64-aesni", "x86_64-aesni\n"):
            self.mutate("x86_64-aesni", "target", "name", value, "target.name")

    def test_summary(self):
        for value in ("line one\nline two", "nul \0 byte", "comment */ ends", "x" * 100000, "", "tab\there",
                      "bell \x07", "bidi \u202e override"):
            self.mutate("x86_64-aesni", "target", "summary", value, "target.summary")
        self.mutate("x86_64-aesni", "target", "summary", 7, "expected a string")

    def test_backend_patterns(self):
        for value in ("{interleave.__class__}", "{interleave.__class__.__mro__}", "{interleave[0]}",
                      "../x", "a/b", "{interleave!r}", "{key_policy!r}", "{interleave:>40}", "{key_policy:x}",
                      "{0}", "{}", "{", "}", "aesni{", "x" * 40, "aesni\0", "aésni", "",
                      "aesni-{interleave}" * 10):
            self.mutate("x86_64-aesni", "dispatch", "backend", value, "dispatch.backend")
        self.mutate("x86_64-avx2", "dispatch", "backend", "avx-{gcc_sched_pressure}", "dispatch.backend")
        self.mutate("x86_64-aesni", "dispatch", "backend", ["aesni"], "expected a string")

    def test_huge_and_wrong_lists(self):
        self.mutate("portable", "variants", "key_bits", [128, 192, 256] * 20000, "twice")
        self.mutate("portable", "variants", "key_bits", list(range(10**5)), "not a supported key size")
        data = (TARGETS / "portable.toml").read_text()
        self.expect_error("portable.toml", data + "\n# padding\n" + "#" * (2 << 20) + "\n", "bytes long")
        self.expect_error("portable.toml", data.replace("rank = 900", "rank = 9" + "0" * 5000), "not valid TOML")
        self.expect_error("portable.toml", data.replace("rank = 900", "rank = " + "[" * 50000 + "]" * 50000),
                          "nested too deeply")
        self.mutate("portable", "variants", "key_bits", [[128]], "variants.key_bits")
        self.mutate("portable", "variants", "key_bits", {"a": 128}, "expected a list")
        self.mutate("portable", "variants", "encrypt", ["fixslice"] * 3, "twice")
        self.mutate("portable", "dispatch", "rank", 10**18, "outside")
        self.mutate("portable", "dispatch", "rank", True, "expected an integer")
        self.mutate("portable", "dispatch", "rank", REMOVE, "missing field")

    def test_structure(self):
        text = (TARGETS / "portable.toml").read_text()
        self.expect_error("portable.toml", 'variants = 5\n' + text.replace("[variants]", "[unused]"),
                          "variants")
        self.expect_error("portable.toml", text + '\n[variants.extra]\nx = 1\n', "variants.extra")
        self.expect_error("evil name.toml", text.replace('name = "portable"', 'name = "evil name"'), "target.name")

    def test_many_target_files_all_checked_before_writing(self):
        # the last file (alphabetically) is the bad one: nothing else may have been written
        bad = load_doc("x86_64-vaes512")
        bad["isa"]["registers"] = 10**6
        self.expect_error("x86_64-vaes512.toml", toml_dumps(bad), "isa.registers")


REMOVE = object()


def _still_valid(folder: Path, name: str, data: bytes) -> bool:
    probe = folder / "probe" / f"{name}.toml"
    probe.parent.mkdir(exist_ok=True)
    probe.write_bytes(data)
    try:
        load_target(probe, None, EMITTERS)
        return True
    except TargetError:
        return False
    finally:
        shutil.rmtree(probe.parent)


class FieldSweep(unittest.TestCase):
    """Every field of every shipped target with values it must refuse, in process."""

    def check_rejected(self, tmp: Path, name: str, doc: dict, where: str):
        path = tmp / f"{name}.toml"
        path.write_text(toml_dumps(doc), encoding="utf-8")
        try:
            target = load_target(path, None, EMITTERS)
            EMITTERS[target.emitter].variants(target)
        except TargetError as e:
            msg = str(e)
            self.assertIn(f"{name}.toml", msg)
            self.assertIn(where, msg)
            self.assertNotIn("\n", msg)
            self.assertLess(len(msg), 2000)
            return
        self.fail(f"{name}.toml: {where} = {toml_value(doc_get(doc, where))[:80]} was accepted")

    def test_sweep(self):
        tmp = Path(tempfile.mkdtemp(prefix="aesgen-sweep-"))
        self.addCleanup(shutil.rmtree, tmp)
        zero_ok = {"dispatch.rank"}
        n = 0
        for path in sorted(TARGETS.glob("*.toml")):
            name = path.stem
            base = load_doc(name)
            for table, body in base.items():
                for key, value in body.items():
                    where = f"{table}.{key}"
                    bad = [REMOVE, {"t": 1}, 1.5]
                    if isinstance(value, bool):
                        bad += [1, "true"]
                    elif isinstance(value, int):
                        bad += [-1, 10**9, 2**63 - 1, True, str(value)] + ([] if where in zero_ok else [0])
                    elif isinstance(value, str):
                        bad += [1, True, "a\0b", "a\nb", "x" * 10000, "*/"] + (
                            ["../x", "a/b", "ü", ""] if key in ("name", "backend", "emitter") else [])
                    elif isinstance(value, list):
                        bad += ["x", [[1]], [{"a": 1}]]
                        if key != "cpu_features":
                            bad += [[]]
                        if value:
                            bad += [value + value[:1], value * 5000]
                            if all(isinstance(x, int) and not isinstance(x, bool) for x in value):
                                bad += [[-1], [0], [10**9], [True], [str(value[0])]]
                            if all(isinstance(x, str) for x in value):
                                bad += [["../x"], ["nope"], [-7], [""]]
                    for v in bad:
                        doc = load_doc(name)
                        if v is REMOVE:
                            if key in ("cpu_features", "unroll"):
                                continue         # optional (unroll: "full" when absent)
                            del doc[table][key]
                        else:
                            doc[table][key] = v
                        with self.subTest(file=name, field=where, value=repr(v)[:60]):
                            self.check_rejected(tmp, name, doc, where)
                        n += 1
        self.assertGreater(n, 500)


def doc_get(doc, where):
    table, key = where.split(".", 1)
    return doc.get(table, {}).get(key)


# -------------------------------------------------------------------- killed generate

OLD_SUMMARY = "constant-time portable C11, reduced for the kill test"


def small_target(key_bits: list[int], summary: str) -> str:
    doc = load_doc("portable")
    doc["variants"]["key_bits"] = key_bits
    doc["variants"]["word_bits"] = [32]
    doc["variants"]["decrypt"] = ["fixslice"]
    doc["target"]["summary"] = summary
    return toml_dumps(doc)


class KilledGenerate(unittest.TestCase):
    """SIGKILL at every step of the tree replacement: old or new, never mixed."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="aesgen-kill-"))
        # one folder (file headers name the target's path): the old description, then the new
        cls.new_targets = cls.tmp / "targets"
        cls.new_targets.mkdir()
        cls.old_tree, cls.new_tree = cls.tmp / "old", cls.tmp / "new"
        for bits, out in (([128, 192], cls.old_tree), ([128, 256], cls.new_tree)):   # 128 shared
            (cls.new_targets / "portable.toml").write_text(small_target(bits, OLD_SUMMARY))
            r = aesgen("generate", "-q", "--targets", str(cls.new_targets), "--out", str(out))
            assert r.returncode == 0, r.stderr
        cls.old, cls.new = contents(cls.old_tree), contents(cls.new_tree)
        cls.n_new = len(cls.new)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def setUp(self):
        self.case = self.tmp / f"case-{self.id().rsplit('.', 1)[-1]}"
        self.case.mkdir()
        self.addCleanup(shutil.rmtree, self.case, True)
        self.out = self.case / "out"

    def assert_old_or_new(self, allow_missing=False):
        if not self.out.exists() and allow_missing:
            return "missing"
        now = contents(self.out)
        if now == self.old:
            return "old"
        if now == self.new:
            return "new"
        self.fail(f"mixed tree: {len(set(now) ^ set(self.old))} names differ from old, "
                  f"{len(set(now) ^ set(self.new))} from new")

    def generate(self, hook=None, no_exchange=False, targets=None):
        env = dict(ENV)
        if hook:
            env["AESGEN_WRITER_TEST_HOOK"] = hook
        if no_exchange:
            env["AESGEN_WRITER_NO_EXCHANGE"] = "1"
        return aesgen("generate", "-q", "--targets", str(targets or self.new_targets), "--out", str(self.out),
                      env=env)

    def kill_at(self, step, no_exchange, expect):
        if self.out.exists():
            shutil.rmtree(self.out)
        shutil.copytree(self.old_tree, self.out)
        r = self.generate(f"die:{step}", no_exchange)
        self.assertEqual(r.returncode, -signal.SIGKILL, f"{step}: {r.stderr[-2000:]}")
        state = self.assert_old_or_new(allow_missing=no_exchange)
        if expect:
            self.assertEqual(state, expect, step)
        # the next run recovers and completes
        r = self.generate(no_exchange=no_exchange)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.assert_old_or_new(), "new")
        self.assertEqual([p.name for p in self.case.iterdir()], ["out"], "staging folders left behind")
        return state

    def test_kill_with_exchange(self):
        steps = [("staged-1", "old"), (f"staged-{self.n_new // 2}", "old"), ("staged", "old"),
                 ("swapped", "new"), ("done", "new")]
        for step, expect in steps:
            with self.subTest(step=step):
                self.kill_at(step, False, expect)

    def test_kill_with_rename_fallback(self):
        steps = [("staged-2", "old"), ("staged", "old"), ("ready", "old"), ("moved-old", "missing"),
                 ("moved-new", "new"), ("done", "new")]
        for step, expect in steps:
            with self.subTest(step=step):
                self.kill_at(step, True, expect)

    def test_recover_rolls_back_without_a_complete_new_tree(self):
        from aesgen import writer
        shutil.copytree(self.old_tree, self.out)
        r = self.generate("die:moved-old", no_exchange=True)
        self.assertEqual(r.returncode, -signal.SIGKILL)
        self.assertFalse(self.out.exists())
        ready = self.case / ".out.aesgen-ready"
        self.assertTrue(ready.is_dir())
        writer.recover(self.out)                 # complete new tree staged: roll forward
        self.assertEqual(self.assert_old_or_new(), "new")
        # no ready tree, only the old one: roll back
        os.rename(self.out, self.case / ".out.aesgen-old")
        (self.case / ".out.aesgen-new").mkdir()
        (self.case / ".out.aesgen-new" / "partial.c").write_text("/* half */")
        writer.recover(self.out)
        self.assertEqual(self.assert_old_or_new(), "new")
        self.assertEqual([p.name for p in self.case.iterdir()], ["out"])

    def test_pause_then_external_sigkill(self):
        shutil.copytree(self.old_tree, self.out)
        env = dict(ENV, AESGEN_WRITER_TEST_HOOK=f"pause:staged-{self.n_new // 2}")
        p = subprocess.Popen([sys.executable, "-m", "aesgen", "generate", "-q", "--targets", str(self.new_targets),
                              "--out", str(self.out)], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
        try:
            line = p.stderr.readline()
            self.assertIn("paused at staged-", line)
            self.assertEqual(self.assert_old_or_new(), "old")
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stderr.close()
        self.assertEqual(p.returncode, -signal.SIGKILL)
        self.assertEqual(self.assert_old_or_new(), "old")
        self.assertTrue((self.case / ".out.aesgen-new").is_dir(), "the staging folder is where the work was")
        r = self.generate()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.assert_old_or_new(), "new")
        self.assertEqual([p.name for p in self.case.iterdir()], ["out"])

    def test_unchanged_files_keep_inode_and_mtime(self):
        shutil.copytree(self.old_tree, self.out)
        same = sorted(rel for rel in self.old if self.new.get(rel) == self.old[rel])
        self.assertTrue(same, "the two trees share no file: the test cannot tell")
        for rel in same:
            os.utime(self.out / rel, ns=(1_000_000_000, 1_000_000_000))
        before = {rel: (self.out / rel).stat() for rel in same}
        r = self.generate()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.assert_old_or_new(), "new")
        for rel in same:
            st = (self.out / rel).stat()
            self.assertEqual(st.st_mtime_ns, 1_000_000_000, rel)
            self.assertEqual(st.st_ino, before[rel].st_ino, rel)
        # a second run changes nothing at all, not even the folder
        inode = self.out.stat().st_ino
        r = self.generate()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.out.stat().st_ino, inode)

    def test_out_folder_that_does_not_exist_yet(self):
        deep = self.case / "a" / "b" / "out"
        r = aesgen("generate", "-q", "--targets", str(self.new_targets), "--out", str(deep))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(contents(deep), self.new)
        self.assertEqual(sorted(p.name for p in deep.parent.iterdir()), ["out"])

    def test_foreign_file_is_an_error_and_nothing_changes(self):
        shutil.copytree(self.old_tree, self.out)
        (self.out / "portable" / "mine.c").write_text("/* hand written */\n")
        snap = snapshot(self.out)
        r = self.generate()
        self.assertEqual(r.returncode, 1)
        self.assertIn("files the generator does not own: portable/mine.c", r.stderr)
        self.assertEqual(snapshot(self.out), snap)

    def test_filtered_run_keeps_other_files(self):
        shutil.copytree(self.old_tree, self.out)
        (self.out / "portable" / "mine.c").write_text("/* hand written */\n")
        r = aesgen("generate", "-q", "--targets", str(self.new_targets), "--out", str(self.out),
                   "--filter", "aes256_enc__*")
        self.assertEqual(r.returncode, 0, r.stderr)
        now = contents(self.out)
        self.assertEqual(now["portable/mine.c"], b"/* hand written */\n")
        for rel in self.old:                     # nothing pruned
            self.assertIn(rel, now)
        self.assertEqual(now["portable/aes256_enc__portable_fixslice32.c"],
                         self.new["portable/aes256_enc__portable_fixslice32.c"])
        self.assertEqual(now["registry.c"], self.new["registry.c"])


if __name__ == "__main__":
    unittest.main()
