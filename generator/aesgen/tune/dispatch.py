"""`aesgen tune-dispatch`: measure which AES-instruction backend this CPU should prefer
and write its row of the per-CPU dispatch table (generator/cpus/measured/<cpu-id>.toml).

    1. candidates  the hardware backends of the targets that aesgen-bench says run here
    2. time        every round, one aesgen-bench run with all candidates forced side by
                   side (interleaved samples, pinned); rounds alternate the order
    3. score       per backend the geometric mean over (operation, size, key size) of
                   the median over rounds of each row's median MB/s
    4. order       best score first; a backend closer than --tie to the one ranked above
                   it keeps the targets' order between the two, so noise never reorders
                   the defaults

GHASH backends are chosen on their own and are not timed here: a measured row orders the
AES backends and copies the GHASH order of the model's published row, if it has one
(the measured row replaces that row for its model). results.json keeps every figure;
only --apply writes the row into generator/cpus/measured/ and regenerates.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .. import cpu_table, pipeline, tomlwrite, writer
from ..emit import EMITTERS
from ..emit.hwloop import HwLoopEmitter
from ..errors import AesgenError
from . import host

FORMAT = "aesgen-tune-dispatch/1"


class TuneDispatchError(AesgenError):
    pass


@dataclass
class Settings:
    bench: Path
    ops: list[str] = field(default_factory=lambda: ["ecb-enc", "ecb-dec", "ctr", "cbc-dec", "xts-enc", "gcm-seal"])
    sizes: list[int] = field(default_factory=lambda: [1024, 8192])
    key_bits: list[int] = field(default_factory=lambda: [128, 256])
    rounds: int = 3
    repeats: int = 7
    min_time_ms: float = 2.0
    tie: float = 0.02
    out: Path = Path("build-tune/dispatch")


def _log(msg: str) -> None:
    print(f"aesgen tune-dispatch: {msg}", file=sys.stderr, flush=True)


def _bench(s: Settings, args: list[str], log: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("AESGEN_BACKEND", "AESGEN_CPU_ID", "AESGEN_CPU_DISABLE")}
    cmd = [str(s.bench), "--format", "json", "--peers", "none"] + args
    with open(log, "w", encoding="utf-8") as err:
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env, timeout=3600)
        except (OSError, subprocess.SubprocessError) as e:
            raise TuneDispatchError(f"cannot run {s.bench}: {e}") from None
    if r.returncode != 0:
        raise TuneDispatchError(f"{' '.join(cmd)}: exit {r.returncode} (log: {log})")
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError as e:
        raise TuneDispatchError(f"{s.bench} printed no valid JSON: {e} (log: {log})") from None


def hardware_backends(paths) -> dict[str, int]:
    """AES-instruction backends of the targets -> their rank (the default order)."""
    _, variants = pipeline.load(paths)
    out: dict[str, int] = {}
    for v in variants:
        if v.kind == "aes" and isinstance(EMITTERS[v.target.emitter], HwLoopEmitter):
            out[v.backend] = min(out.get(v.backend, v.rank), v.rank)
    return out


def order(scores: dict[str, float], ranks: dict[str, int], tie: float) -> list[str]:
    """Best score first; neighbours within `tie` of each other keep the targets' order."""
    out = sorted(scores, key=lambda b: -scores[b])
    changed = True
    while changed:
        changed = False
        for i in range(len(out) - 1):
            a, b = out[i], out[i + 1]
            if ranks[b] < ranks[a] and scores[a] <= scores[b] * (1 + tie):
                out[i], out[i + 1] = b, a
                changed = True
    return out


def run(paths, s: Settings) -> dict:
    s.out.mkdir(parents=True, exist_ok=True)
    info = host.cpuinfo()
    cpu_id = host.cpu_family(info)
    if cpu_table.parse_cpu_id(cpu_id) is None:
        raise TuneDispatchError(f"this CPU ({cpu_id}) is not one the per-CPU table can name (x86-64 Intel or AMD)")
    ranks = hardware_backends(paths)
    probe = _bench(s, ["--quick", "--op", "ecb-enc", "--sizes", "16", "--key-bits", "128"], s.out / "probe.log")
    here = {b["name"] for b in probe.get("backends", []) if b.get("supported")}
    candidates = sorted((b for b in ranks if b in here), key=lambda b: ranks[b])
    if len(candidates) < 2:
        raise TuneDispatchError(f"{len(candidates)} AES-instruction backend(s) run here ({', '.join(candidates) or 'none'}): "
                                "nothing to order")
    _log(f"{cpu_id} ({host.cpu_model(info)}): timing {', '.join(candidates)}; {s.rounds} round(s)")
    figures: dict[tuple, list[float]] = {}
    for r in range(s.rounds):
        turn = candidates[r % len(candidates):] + candidates[:r % len(candidates)]
        args = [a for b in turn for a in ("--backend", b)]
        args += ["--op", ",".join(s.ops), "--sizes", ",".join(map(str, s.sizes)),
                 "--key-bits", ",".join(map(str, s.key_bits)), "--repeats", str(s.repeats),
                 "--min-time-ms", f"{s.min_time_ms:g}"]
        doc = _bench(s, args, s.out / f"round{r + 1}.log")
        for row in doc.get("rows", []):
            b = row.get("impl", "").removeprefix("aesgen-")
            if b in candidates and row.get("status") == "ok":
                figures.setdefault((b, row["op"], row["key_bits"], row["bytes"]), []).append(row["mb_per_s"]["median"])
        _log(f"round {r + 1}/{s.rounds} done")
    cells = sorted({k[1:] for k in figures})
    results, scores = [], {}
    for b in candidates:
        meds = {c: statistics.median(figures[(b, *c)]) for c in cells if (b, *c) in figures}
        if len(meds) != len(cells):
            raise TuneDispatchError(f"{b}: no figure for {sorted(set(cells) - set(meds))[0]}; see {s.out}")
        scores[b] = math.exp(sum(math.log(x) for x in meds.values()) / len(meds))
        results.append({"backend": b, "score": round(scores[b], 1),
                        "mb_per_s": {f"{op} AES-{kb} {n}": round(x, 1) for (op, kb, n), x in meds.items()}})
    best = order(scores, ranks, s.tie)
    return {"format": FORMAT, "cpu_id": cpu_id, "cpu_model": host.cpu_model(info), "candidates": candidates,
            "order": best, "results": results,
            "settings": {"ops": s.ops, "sizes": s.sizes, "key_bits": s.key_bits, "rounds": s.rounds,
                         "repeats": s.repeats, "tie": s.tie}}


def row_text(doc: dict, paths) -> str:
    """The measured row: the AES order measured here, then the GHASH order of the
    model's published row if it has one (a measured row replaces it)."""
    prefer = list(doc["order"])
    parsed = cpu_table.parse_cpu_id(doc["cpu_id"])
    for r in cpu_table.load_rows(paths.cpus, paths.root):
        if not r.measured and parsed and (r.vendor, r.family) == parsed[:2] and any(
                lo <= parsed[2] <= hi for lo, hi in r.models):
            ghash = [b for b in r.prefer if b.startswith("ghash-")]
            prefer += ghash if len(ghash) >= 2 else []
    by = {r["backend"]: r["score"] for r in doc["results"]}
    lead, second = doc["order"][0], doc["order"][1]
    st = doc["settings"]
    why = (f"measured: {lead} {by[lead] / by[second]:.3f}x {second} (geometric mean of median MB/s over "
           f"{', '.join(st['ops'])} at {'/'.join(map(str, st['sizes']))} B, AES-{'/'.join(map(str, st['key_bits']))}; "
           f"rounds: {st['rounds']}; ties within {st['tie']:.0%} keep the targets' order)")
    display = f"generator/cpus/measured/{doc['cpu_id']}.toml"
    name = "".join(c if " " <= c <= "~" else "?" for c in doc["cpu_model"]).replace("*/", "*?")[:cpu_table.MAX_TEXT]
    out = {"cpu": {"id": doc["cpu_id"], "name": name.strip() or doc["cpu_id"], "prefer": prefer, "why": why,
                   "source": f"aesgen tune-dispatch on this CPU ({display})"},
           "tune": {"command": "PYTHONPATH=generator python3 -m aesgen tune-dispatch --bench "
                               "<build>/bench/aesgen-bench --apply",
                    "candidates": doc["candidates"]},
           "result": [{"backend": r["backend"], "score": r["score"], "mb_per_s": r["mb_per_s"]}
                      for r in doc["results"]]}
    header = ("Written by `aesgen tune-dispatch`: this CPU model's row of the per-CPU dispatch table\n"
              "(see generator/cpus/published.toml). Scores are MB/s, geometric means of medians.\n")
    return tomlwrite.dumps(out, header)


def apply(paths, doc: dict) -> tuple[Path, list[str], list[str]]:
    dest = paths.cpus / "measured" / f"{doc['cpu_id']}.toml"
    old = dest.read_bytes() if dest.is_file() else None
    writer.write_atomic(dest, row_text(doc, paths))
    try:
        outputs = pipeline.render_outputs(paths, None)
    except BaseException:
        if old is None:
            dest.unlink()
        else:
            writer.write_atomic(dest, old.decode("utf-8"))
        raise
    written, removed = writer.write_tree(paths.out, outputs, full=True)
    return dest, written, removed
