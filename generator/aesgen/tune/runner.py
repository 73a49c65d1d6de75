"""`aesgen tune`: sweep a target on this machine and choose the winners.

    1. points   one scratch target per combination of swept values (points.py)
    2. build    the project in a scratch build folder, generating only those points
                (AESGEN_GENERATOR_TARGETS), so every point is model-checked as usual
    3. verify   per point backend: the NIST/SP 800-38A/FIPS-197 vectors (aesgen_vectors)
                and the differential test against OpenSSL; a point that fails is
                never timed and can never win
    4. time     per point backend: aesgen-bench with the backend forced, OpenSSL in
                the same run (medians of interleaved samples, pinned to one CPU)
    5. choose   per key size and direction, the highest score: the geometric mean over
                the measured operations of the median throughput (MB/s). With --rounds,
                every point is measured once per round and each figure is the median
                over rounds, so a slow spell of a shared machine hits all points alike.
                The ratio to OpenSSL in the same run is reported beside it; it is not
                the score, because it carries OpenSSL's noise as well as the point's.

results.json is rewritten atomically after every point (an interrupted sweep keeps what
it measured, marked "interrupted"); profile.toml holds the winners. Only --apply copies
the profile into generator/profiles/, names it in applied.toml and regenerates.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import subprocess
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import pipeline, profiles, writer
from ..emit import EMITTERS
from ..errors import AesgenError
from ..space import sweep_values
from ..targets import load_targets
from . import host, points as points_mod

FORMAT = "aesgen-tune-results/1"
# Operations each mode contributes, per direction (CTR only encrypts).
MODE_OPS = {"ecb": {"enc": "ecb-enc", "dec": "ecb-dec"}, "ctr": {"enc": "ctr"},
            "cbc": {"enc": "cbc-enc", "dec": "cbc-dec"}, "xts": {"enc": "xts-enc", "dec": "xts-dec"}}


class TuneError(AesgenError):
    pass


@dataclass
class Settings:
    target: str
    modes: list[str]
    key_bits: list[int]
    size: int = 8192
    repeats: int = 7
    rounds: int = 1
    min_time_ms: float = 2.0
    space: list[str] = field(default_factory=list)
    out: Path = Path("build-tune")
    vectors: Path | None = None
    jobs: int = os.cpu_count() or 2
    apply: bool = False


def _log(msg: str) -> None:
    print(f"aesgen tune: {msg}", file=sys.stderr, flush=True)


def _run(cmd: list[str], log: Path, timeout: float, what: str) -> subprocess.CompletedProcess:
    """Run a step with its output in a log file; a failure names the log."""
    with open(log, "w", encoding="utf-8") as f:
        f.write("$ " + " ".join(map(str, cmd)) + "\n")
        f.flush()
        try:
            return subprocess.run(list(map(str, cmd)), stdout=f, stderr=subprocess.STDOUT, timeout=timeout,
                                  text=True)
        except subprocess.TimeoutExpired:
            raise TuneError(f"{what} took longer than {timeout:.0f} s (log: {log})") from None
        except OSError as e:
            raise TuneError(f"{what}: cannot run {cmd[0]}: {e}") from None


def _tail(log: Path, n: int = 6) -> str:
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    return " | ".join(l.strip() for l in lines[-n:] if l.strip())


def _geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs and all(x > 0 for x in xs) else float("nan")


class Sweep:
    def __init__(self, paths, settings: Settings):
        self.paths = paths
        self.s = settings
        targets = load_targets(paths.targets, paths.root, EMITTERS)
        by_name = {t.name: t for t in targets}
        if settings.target not in by_name:
            raise TuneError(f"no target named {settings.target!r} (targets: {', '.join(sorted(by_name))})")
        self.target = by_name[settings.target]
        self.emitter = EMITTERS[self.target.emitter]
        if self.emitter.sweep is None:
            raise TuneError(f"{self.target.name}: emitter {self.target.emitter} has no tunable parameters")
        pattern = next((self.emitter.processor_of(v) for v in self.emitter.variants(self.target)), None)
        if pattern and not re.match(pattern, platform.machine()):
            raise TuneError(f"{self.target.name} runs on {pattern.strip('^$')}, this machine is "
                            f"{platform.machine()}: its points can be model-checked (generate) but not timed here")
        for m in settings.modes:
            if m not in MODE_OPS:
                raise TuneError(f"--modes: {m!r} is not ecb, ctr, cbc or xts")
        if "xts" in settings.modes and 192 in settings.key_bits:
            raise TuneError("--modes xts: XTS is AES-128 and AES-256 only; leave 192 out of --key-sizes")
        for k in settings.key_bits:
            if k not in self.target.sections["variants"]["key_bits"]:
                raise TuneError(f"--key-sizes: {self.target.name} does not emit AES-{k}")
        self.sweep = sweep_values(self.emitter, self.target.sections["variants"], settings.space)
        self.out = settings.out
        self.results_path = self.out / "results.json"
        self.doc: dict = {}

    # -- ops -------------------------------------------------------------------
    def ops(self, direction: str) -> list[str]:
        return [MODE_OPS[m][direction] for m in self.s.modes if direction in MODE_OPS[m]]

    # -- steps -----------------------------------------------------------------
    def run(self) -> dict:
        t0 = time.monotonic()
        (self.out / "logs").mkdir(parents=True, exist_ok=True)
        pts = points_mod.write_points(self.target, self.sweep, self.s.key_bits, self.out / "targets", EMITTERS)
        live = [p for p in pts if not p.skipped]
        _log(f"{self.target.name}: {len(pts)} points ({', '.join(f'{k}={v}' for k, v in self.sweep.items())}), "
             f"{len(pts) - len(live)} rejected by the target's checks")
        for p in pts:
            if p.skipped:
                _log(f"  point {p.index} {p.params}: skipped: {p.skipped}")
        if not live:
            raise TuneError("no sweep point passes the target's checks")
        info = host.cpuinfo()
        self.doc = {
            "format": FORMAT, "status": "running", "target": self.target.name,
            "machine": {"cpu_model": host.cpu_model(info), "cpu_family": host.cpu_family(info),
                        "features": [], "compiler": "", "kernel": platform.release(), "machine": platform.machine()},
            "settings": {"modes": self.s.modes, "key_bits": self.s.key_bits, "size": self.s.size,
                         "repeats": self.s.repeats, "rounds": self.s.rounds, "min_time_ms": self.s.min_time_ms,
                         "ops": {"enc": self.ops("enc"), "dec": self.ops("dec")}},
            "space": self.sweep,
            "points": [{"point": p.index, "name": p.name, "params": p.params,
                        "status": "skipped" if p.skipped else "pending", "reason": p.skipped} for p in pts],
            "results": [], "winners": [],
        }
        self._save()
        build = self.out / "build"
        features = self._configure(build)
        self.doc["machine"]["features"] = features
        missing = [f for f in self.target.cpu_features if f not in features]
        if missing:
            raise TuneError(f"{self.target.name} needs {', '.join(missing)}, which this CPU (or its OS) does not "
                            f"offer (it has: {' '.join(features) or 'none'}); its points cannot be timed here")
        self._build(build)
        self.doc["machine"]["compiler"] = self._compiler(build)
        self._save()
        # Rounds: every point once per round, so that a slow spell of a shared machine
        # lands on all points alike; each figure is the median over rounds.
        self.benches: dict[str, list[dict]] = {}
        self.failures: dict[str, dict] = {}
        done_time, n = 0.0, len(live) * self.s.rounds
        for r in range(self.s.rounds):
            for j, p in enumerate(live):
                i = r * len(live) + j
                started = time.monotonic()
                eta = "" if i == 0 else f", about {self._fmt((done_time / i) * (n - i))} left"
                rnd = f" round {r + 1}/{self.s.rounds}" if self.s.rounds > 1 else ""
                _log(f"[{i + 1}/{n}]{rnd} {p.name} ({', '.join(f'{k}={v}' for k, v in p.params.items())}){eta}")
                self._measure_point(build, p, first=(r == 0))
                done_time += time.monotonic() - started
            self.doc["rounds_done"] = r + 1
            self._collect(live)
            self._save()
        self._choose()
        self.doc["status"] = "complete"
        self.doc["elapsed_s"] = round(time.monotonic() - t0, 1)
        self._save()
        return self.doc

    def interrupted(self) -> None:
        if self.doc:
            self.doc["status"] = "interrupted"
            self._save()

    @staticmethod
    def _fmt(seconds: float) -> str:
        return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"

    def _save(self) -> None:
        writer.write_atomic(self.results_path, json.dumps(self.doc, indent=1, sort_keys=False) + "\n")

    def _configure(self, build: Path) -> list[str]:
        _log(f"configuring {build} (generates and model-checks every point)")
        vectors = [f"-DAESGEN_VECTORS_DIR={self.s.vectors}"] if self.s.vectors else []
        cmd = ["cmake", "-S", self.paths.root, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
               "-DAESGEN_REGENERATE=ON", f"-DAESGEN_GENERATOR_TARGETS={(self.out / 'targets').resolve()}",
               f"-DAESGEN_PYTHON={sys.executable}", "-DAESGEN_BUILD_SHARED=OFF",
               "-DAESGEN_BENCH_RUSTCRYPTO=OFF", "-DAESGEN_BENCH_BEARSSL=OFF", "-DAESGEN_BENCH_GCRYPT=OFF",
               *vectors]
        log = self.out / "logs" / "configure.log"
        r = _run(cmd, log, 1800, "configure")
        if r.returncode != 0:
            raise TuneError(f"configuring the sweep failed: {_tail(log)} (log: {log})")
        m = re.search(r"aesgen: this CPU has: ([^\n]*)", log.read_text(encoding="utf-8", errors="replace"))
        return m.group(1).split() if m else []

    def _build(self, build: Path) -> None:
        _log(f"building {len(self.doc['points'])} points with -j{self.s.jobs}")
        log = self.out / "logs" / "build.log"
        r = _run(["cmake", "--build", build, "-j", str(self.s.jobs), "--target",
                  "aesgen-bench", "aesgen_vectors", "aesgen_differential"], log, 3600, "build")
        if r.returncode != 0:
            for p in self.doc["points"]:
                if p["status"] == "pending":
                    p["status"], p["reason"] = "failed-build", f"see {log}"
            self._save()
            raise TuneError(f"building the sweep failed: {_tail(log)} (log: {log})")

    def _compiler(self, build: Path) -> str:
        cache = (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
        m = re.search(r"^CMAKE_C_COMPILER:\w+=(.*)$", cache, re.M)
        return host.compiler_version(m.group(1) if m else "cc")

    def _backends(self, p) -> list[str]:
        return sorted({v.backend for v in self.emitter.variants(p.target)})

    def _verify(self, build: Path, variant: str) -> tuple[str, str] | None:
        """Vectors of the variant's key size and direction (FIPS-197 only when the vector
        folder is absent), then the differential test against OpenSSL. None: passed."""
        logs = self.out / "logs"
        exe = build / "tests" / "vectors" / "aesgen_vectors"
        if self.s.vectors:
            cmd, log = [exe, "--variant", variant, "--vectors", self.s.vectors, "--require-vectors"], \
                logs / f"{variant}.vectors.log"
        else:
            cmd, log = [exe, "--fips197", "--variant", variant], logs / f"{variant}.fips197.log"
        r = _run(cmd, log, 900, f"vectors of {variant}")
        if r.returncode != 0:
            return ("failed-vectors", f"{variant}: {_tail(log, 3)} (log: {log})")
        log = logs / f"{variant}.differential.log"
        r = _run([build / "tests" / "differential" / "aesgen_differential", "--variant", variant, "--quick"],
                 log, 900, f"differential test of {variant}")
        if r.returncode != 0:
            return ("failed-vectors", f"{variant}: differential test against OpenSSL: {_tail(log, 3)} (log: {log})")
        return None

    def _measure_point(self, build: Path, p, first: bool) -> None:
        entry = self.doc["points"][p.index]
        for backend in self._backends(p):
            if backend in self.failures:
                continue
            if first:
                # verify before timing: a backend with a failing variant is never timed
                failures = {}
                for v in self.emitter.variants(p.target):
                    if v.backend == backend and self.ops(v.direction):
                        bad = self._verify(build, v.name)
                        if bad:
                            failures[v.name] = bad
                            _log(f"    {bad[0]}: {bad[1]}")
                if failures:
                    entry["status"], entry["reason"] = next(iter(failures.values()))
                    self.failures[backend] = failures
                    continue
            bench = self._bench(build, backend)
            if isinstance(bench, tuple):
                entry["status"], entry["reason"] = bench
                _log(f"    {bench[0]}: {bench[1]}")
                self.failures[backend] = {None: bench}
                continue
            self.benches.setdefault(backend, []).append(bench)
            self._show(p, backend, bench)
        if entry["status"] == "pending":
            entry["status"] = "ok"

    def _show(self, p, backend: str, bench: dict) -> None:
        impl = f"aesgen-{backend}"
        for k in self.s.key_bits:
            for d in ("enc", "dec"):
                parts = []
                for op in self.ops(d):
                    row = next((r for r in bench.get("rows", []) if r["impl"] == impl and r["op"] == op
                                and r["key_bits"] == k and r.get("status") == "ok"), None)
                    if row:
                        ns = row["ns_per_op"]
                        parts.append(f"{op} {row['mb_per_s']['median']:.0f} MB/s ({row['ratio_to_openssl']:.2f}x, "
                                     f"IQR {(ns['q3'] - ns['q1']) / ns['median']:.0%})")
                if parts:
                    _log(f"    AES-{k} {d}: {', '.join(parts)}")

    def _collect(self, live) -> None:
        self.doc["results"] = []
        for p in live:
            for backend in self._backends(p):
                self._record(p, backend, self.benches.get(backend, []), self.failures.get(backend, {}))
        self.doc["same_code"] = same_code(self.doc["results"])

    def _bench(self, build: Path, backend: str):
        log = self.out / "logs" / f"{backend}.bench.log"
        out = self.out / "logs" / f"{backend}.bench.json"
        ops = sorted(set(self.ops("enc") + self.ops("dec")))
        cmd = [build / "bench" / "aesgen-bench", "--backend", backend,
               "--key-bits", ",".join(map(str, self.s.key_bits)), "--op", ",".join(ops),
               "--sizes", str(self.s.size), "--peers", "none", "--format", "json",
               "--repeats", str(self.s.repeats), "--min-time-ms", f"{self.s.min_time_ms:g}"]
        with open(out, "w", encoding="utf-8") as fo, open(log, "w", encoding="utf-8") as fe:
            r = subprocess.run(list(map(str, cmd)), stdout=fo, stderr=fe, timeout=1800)
        if r.returncode != 0:
            return ("failed-bench", f"{backend}: aesgen-bench exit {r.returncode}: {_tail(log, 3)} (log: {log})")
        try:
            return json.loads(out.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            return ("failed-bench", f"{backend}: aesgen-bench printed no valid JSON ({e}; {out})")

    def _record(self, p, backend: str, benches: list[dict], failures: dict) -> None:
        """One result per variant of the point's backend (key size x direction): per
        operation the median over rounds of each figure of the bench's row."""
        variants = [v for v in self.emitter.variants(p.target) if v.backend == backend]
        impl = f"aesgen-{backend}"          # the bench's row name for a forced backend
        rows: dict = {}
        served: dict = {}
        for bench in benches:
            for r in bench.get("rows", []):
                rows.setdefault((r["impl"], r["op"], r["key_bits"]), []).append(r)
            for im in bench.get("implementations", []):
                if im.get("name") == impl:
                    served = im.get("variants") or {}
        mb = lambda t: self.s.size / t * 1e3                 # ns per message -> MB/s (10^6 B/s)
        for v in sorted(variants, key=lambda v: (v.key_bits, v.direction)):
            if not self.ops(v.direction):
                continue                                   # e.g. decryption when only CTR is scored
            res = {"variant": v.name, "point": p.index, "backend": backend, "key_bits": v.key_bits,
                   "direction": v.direction, "params": {k: x for k, x in v.params},
                   "tuned": {k: x for k, x in p.params.items() if self.emitter.sweep.relevant(k, v.direction)},
                   "status": "ok", "reason": "", "rounds": len(benches), "ops": {}, "score": None}
            self.doc["results"].append(res)
            if failures:
                res["status"], res["reason"] = failures.get(v.name) or failures.get(None) or \
                    ("not-timed", "another variant of this point failed verification")
                continue
            name = (served.get(str(v.key_bits)) or {}).get("encrypt" if v.direction == "enc" else "decrypt")
            if name and name != v.name:
                res["status"], res["reason"] = "skipped", f"dispatch serves {name} for this backend instead"
                continue
            speeds = []
            for op in self.ops(v.direction):
                mine = [r for r in rows.get((impl, op, v.key_bits), []) if r.get("status") == "ok"]
                ref = [r for r in rows.get(("openssl", op, v.key_bits), []) if r.get("status") == "ok"]
                if not mine or len(mine) != len(ref):
                    res["status"], res["reason"] = "failed-bench", f"{op}: no timed row"
                    break
                med = lambda xs: statistics.median(xs)
                ns = {q: med([r["ns_per_op"][q] for r in mine]) for q in ("median", "q1", "q3", "min", "max")}
                ratio = med([r["ratio_to_openssl"] for r in mine])
                res["ops"][op] = {"mbps": mb(ns["median"]), "mbps_q1": mb(ns["q3"]), "mbps_q3": mb(ns["q1"]),
                                  "mbps_min": mb(ns["max"]), "mbps_max": mb(ns["min"]),
                                  "openssl_mbps": mb(med([r["ns_per_op"]["median"] for r in ref])),
                                  "ratio": ratio,
                                  "ratio_per_round": [round(r["ratio_to_openssl"], 4) for r in mine]}
                cpb = [r.get("count_per_byte") for r in mine if r.get("count_per_byte") is not None]
                if cpb:
                    res["ops"][op]["count_per_byte"] = med(cpb)
                    res["ops"][op]["count_unit"] = mine[0].get("count_unit")
                speeds.append(res["ops"][op]["mbps"])
            if res["status"] == "ok":
                res["score"] = _geomean(speeds)
                res["ratio"] = _geomean([x["ratio"] for x in res["ops"].values()])

    def _choose(self) -> None:
        winners = []
        for k in self.s.key_bits:
            for d in ("enc", "dec"):
                if not self.ops(d):
                    continue
                cands = [r for r in self.doc["results"] if r["key_bits"] == k and r["direction"] == d
                         and r["status"] == "ok" and r["score"] == r["score"]]
                if not cands:
                    continue
                best = max(cands, key=lambda r: (r["score"], -r["point"]))
                winners.append({"key_bits": k, "direction": d, "variant": best["variant"],
                                "params": best["tuned"], "score": best["score"], "ratio": best["ratio"],
                                "ops": {op: x["mbps"] for op, x in best["ops"].items()}})
        self.doc["winners"] = winners


def same_code(results: list[dict]) -> list[dict]:
    """Pairs of timed results whose variants are the same code: points that differ only in
    a parameter the direction does not use (the decryption algorithm, for an encryption
    variant). Built as separate backends, they are timed separately, so the gap between
    them is the sweep's noise floor, layout effects included."""
    first: dict = {}
    out = []
    for r in results:
        if r["status"] != "ok":
            continue
        key = (r["key_bits"], r["direction"], tuple(sorted(r["tuned"].items())))
        if key not in first:
            first[key] = r
            continue
        a = first[key]
        out.append({"key_bits": r["key_bits"], "direction": r["direction"], "variants": [a["variant"], r["variant"]],
                    "scores": [a["score"], r["score"]], "gap": abs(a["score"] - r["score"]) / max(a["score"], r["score"])})
    return out


def profile_text(doc: dict, keep: list | None = None) -> str:
    """The profile of a sweep; `keep` adds earlier choices for key sizes and directions
    this sweep did not measure."""
    m = doc["machine"]
    info = {"cpu_model": m["cpu_model"], "features": m["features"], "compiler": m["compiler"],
            "measured": f"{doc['settings']['size']}-byte messages; ops enc {','.join(doc['settings']['ops']['enc']) or '-'}, "
                        f"dec {','.join(doc['settings']['ops']['dec']) or '-'}; median of {doc['settings']['repeats']} "
                        f"interleaved samples, pinned, {doc['settings']['rounds']} round(s); score = geometric mean of "
                        f"the ops' median MB/s",
            "space": ", ".join(f"{k}={'/'.join(map(str, v))}" for k, v in doc["space"].items())}
    choices = [profiles.Choice(w["key_bits"], w["direction"], tuple(sorted(w["params"].items())), w["score"])
               for w in doc["winners"]]
    swept = {(c.key_bits, c.direction) for c in choices}
    choices += [c for c in keep or [] if (c.key_bits, c.direction) not in swept]
    choices.sort(key=lambda c: (c.key_bits, c.direction != "enc"))
    return profiles.dumps_profile(doc["target"], m["cpu_family"], info, choices)


def apply(paths, doc: dict) -> tuple[Path, list[str], list[str]]:
    """Install the profile, name it in applied.toml and regenerate. Refuses when a key size
    and direction that was swept has no verified winner. Choices an earlier profile of the
    same target and family made for key sizes or directions not swept now are kept."""
    wanted = {(k, d) for k in doc["settings"]["key_bits"] for d in ("enc", "dec") if doc["settings"]["ops"][d]}
    have = {(w["key_bits"], w["direction"]) for w in doc["winners"]}
    missing = sorted(wanted - have)
    if doc.get("status") != "complete":
        raise TuneError(f"the sweep is {doc.get('status')}: nothing applied")
    if missing:
        bad = ", ".join(f"AES-{k} {d}" for k, d in missing)
        raise TuneError(f"not applying: no variant passed the vectors and the differential test for {bad}; "
                        f"{paths.profiles} and {paths.out} are unchanged")
    target, family = doc["target"], doc["machine"]["cpu_family"]
    dest = paths.profiles / target / f"{family}.toml"
    applied = profiles.read_applied_map(paths.profiles)
    old_profile = dest.read_bytes() if dest.is_file() else None
    old_applied = (paths.profiles / profiles.APPLIED).read_bytes() if (paths.profiles / profiles.APPLIED).is_file() else None
    keep = []
    if old_profile is not None:
        emitter = next(t.emitter for t in load_targets(paths.targets, paths.root, EMITTERS) if t.name == target)
        keep = list(profiles.load_profile(dest, paths.root, EMITTERS[emitter]).choices)
    writer.write_atomic(dest, profile_text(doc, keep))
    applied[target] = family
    writer.write_atomic(paths.profiles / profiles.APPLIED, profiles.dumps_applied(applied))
    try:
        outputs = pipeline.render_outputs(paths, None)
    except BaseException:
        # the profile does not generate: put the profile folder back as it was
        _restore(dest, old_profile)
        _restore(paths.profiles / profiles.APPLIED, old_applied)
        raise
    written, removed = writer.write_tree(paths.out, outputs, full=True)
    return dest, written, removed


def _restore(path: Path, data: bytes | None) -> None:
    if data is None:
        path.unlink(missing_ok=True)
        try:
            path.parent.rmdir()
        except OSError:
            pass
    else:
        writer.write_atomic(path, data.decode("utf-8"))
