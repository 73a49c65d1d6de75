"""`aesgen report`: a self-contained benchmark report (Markdown tables and SVG plots).

Inputs: one aesgen-bench JSON document (run here, or read with --from-json) and any
number of `aesgen tune` result files. Output folder:

    report.md                           tables, machine and method, links to the plots
    bench.json                          the raw bench document the report was made from
    throughput-<op>-aes<k>.svg          MB/s against message size, one series per implementation
    size-<op>-aes<k>.svg                with --build-dir: MB/s against code size, one point per backend
    tune-<target>.json                  each tune results file, as read
    interleave-<target>-<op>-aes<k>.svg MB/s against interleave factor (targets that have one)

Everything is parsed and rendered in memory first, so bad input writes nothing; then
each file is replaced atomically and files of an older report that this one does not
produce are removed. An interrupt leaves every file either old or new, never partial.
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from . import objsize, svgplot, writer
from .errors import AesgenError

LADDER = "16,64,256,1024,8192,1M"  # the tcrypt ladder and 1 MiB, as aesgen-bench spells it
QUICK_ARGS = ("--repeats", "3", "--min-time-ms", "1")  # about 30 s on a 2-core VM
OP_ORDER = ("ecb-enc", "ecb-dec", "ctr", "cbc-dec", "cbc-enc")
KNEE_TOLERANCE = 0.03  # the knee: the smallest interleave within 3% of the best
TUNE_FORMAT = "aesgen-tune-results/1"
# Files this command owns in the output folder; others there are never touched.
OWNED = re.compile(r"(report\.md|bench\.json|throughput-.+\.svg|size-.+\.svg|interleave-.+\.svg|tune-.+\.json)")
SIZE_OPS = (("ecb-enc", "encrypt"), ("ecb-dec", "decrypt"))  # the op that times each direction's variant


class ReportError(AesgenError):
    """Bad input: the message is one line and names the file or command at fault."""


# ---- the bench document ----------------------------------------------------

@dataclass(frozen=True)
class Impl:
    name: str
    kind: str  # "aesgen", "openssl", "openssl-child", "bearssl", "rustcrypto", "gcrypt"
    description: str

    @property
    def is_peer(self) -> bool:
        return self.kind != "aesgen"


@dataclass(frozen=True)
class Row:
    impl: str
    op: str
    key_bits: int
    size: int
    status: str
    mbps: float | None  # median; None unless status is "ok"
    ratio: float | None  # to OpenSSL in the same run
    note: str = ""


@dataclass
class Bench:
    doc: dict
    impls: list[Impl]
    rows: list[Row]

    def keys(self) -> list[int]:
        return sorted({r.key_bits for r in self.rows})

    def ops(self) -> list[str]:
        present = {r.op for r in self.rows}
        return [op for op in OP_ORDER if op in present] + sorted(present - set(OP_ORDER))

    def sizes(self) -> list[int]:
        return sorted({r.size for r in self.rows})


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _load_json(text: str, source: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ReportError(f"{source}: not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None


def parse_bench(text: str, source: str) -> Bench:
    doc = _load_json(text, source)
    if not isinstance(doc, dict) or doc.get("tool") != "aesgen-bench":
        raise ReportError(f"{source}: not an aesgen-bench JSON document (no \"tool\": \"aesgen-bench\")")
    if doc.get("schema_version") != 1:
        raise ReportError(f"{source}: aesgen-bench schema_version {doc.get('schema_version')!r}, "
                          f"this report reads version 1")
    impls_doc, rows_doc = doc.get("implementations"), doc.get("rows")
    if not isinstance(impls_doc, list) or not isinstance(rows_doc, list):
        raise ReportError(f"{source}: \"implementations\" and \"rows\" must be lists")
    impls = []
    for i, im in enumerate(impls_doc):
        if not isinstance(im, dict) or not isinstance(im.get("name"), str):
            raise ReportError(f"{source}: implementations[{i}] has no name")
        impls.append(Impl(im["name"], str(im.get("kind", "")), str(im.get("description") or "")))
    known = {im.name for im in impls}
    rows = []
    for i, r in enumerate(rows_doc):
        where = f"{source}: rows[{i}]"
        if not isinstance(r, dict):
            raise ReportError(f"{where} is not an object")
        for key, kind in (("impl", str), ("op", str), ("key_bits", int), ("bytes", int), ("status", str)):
            if not isinstance(r.get(key), kind) or isinstance(r.get(key), bool):
                raise ReportError(f"{where}: \"{key}\" is missing or not a {kind.__name__}")
        if r["key_bits"] <= 0 or r["bytes"] <= 0:
            raise ReportError(f"{where}: key_bits and bytes must be positive")
        if r["impl"] not in known:
            raise ReportError(f"{where}: implementation '{r['impl']}' is not in \"implementations\"")
        mbps = ratio = None
        if r["status"] == "ok":
            mbps = (r.get("mb_per_s") or {}).get("median") if isinstance(r.get("mb_per_s"), dict) else None
            if not _is_num(mbps) or mbps < 0:
                raise ReportError(f"{where}: status ok but no mb_per_s.median")
            ratio = r.get("ratio_to_openssl") if _is_num(r.get("ratio_to_openssl")) else None
        rows.append(Row(r["impl"], r["op"], r["key_bits"], r["bytes"], r["status"], mbps, ratio,
                        str(r.get("note") or "")))
    if not rows:
        raise ReportError(f"{source}: no rows")
    return Bench(doc, impls, rows)


def bench_command(bench: str, quick: bool) -> list[str]:
    return [bench, "--format", "json", "--sizes", LADDER, "--op", "all", "--peers", "all",
            *(QUICK_ARGS if quick else ())]


def run_bench(bench: str, quick: bool, progress=None) -> str:
    """Run aesgen-bench and return its JSON text; any failure is a ReportError."""
    path = Path(bench)
    if not path.is_file() or not os.access(path, os.X_OK):
        raise ReportError(f"{bench}: no such executable (build it: cmake --build BUILD --target aesgen-bench)")
    # A bare name would be looked up on PATH, not in the current folder.
    cmd = bench_command(bench if os.sep in bench else os.path.join(".", bench), quick)
    if progress:
        progress(f"running {' '.join(cmd)}" + (" (about 30 s)" if quick else " (a minute or two)"))
    # stderr carries the bench's progress line and its notes; capture it so the one
    # error line we print can quote the bench's own reason.
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    if proc.returncode != 0:
        lines = [ln.strip() for ln in proc.stderr.replace("\r", "\n").splitlines() if ln.strip()]
        why = lines[-1] if lines else "no message"
        how = f"was killed by signal {-proc.returncode}" if proc.returncode < 0 \
            else f"exited with status {proc.returncode}"
        raise ReportError(f"{bench} {how}: {why}")
    return proc.stdout


# ---- tune results -----------------------------------------------------------

@dataclass(frozen=True)
class TuneResult:
    variant: str
    key_bits: int
    direction: str
    point: object  # the sweep point's index in "points", if given
    params: dict
    status: str
    reason: str
    ops: dict  # op -> {"mbps": float, "openssl_mbps": float | None, "ratio": float | None}
    score: float | None


@dataclass
class Tune:
    source: str
    text: str
    doc: dict
    target: str
    results: list[TuneResult]
    winners: list[dict]
    unreadable: list[str] = field(default_factory=list)  # entries skipped, with why

    def has_interleave(self) -> bool:
        return any(_is_num(r.params.get("interleave")) and r.params["interleave"] > 0
                   for r in self.results if r.status == "ok")


def parse_tune(text: str, source: str) -> Tune:
    """Structural errors fail; a malformed entry inside "results" is skipped and listed."""
    doc = _load_json(text, source)
    if not isinstance(doc, dict) or doc.get("format") != TUNE_FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise ReportError(f"{source}: not an aesgen tune results file (format {found!r}, expected '{TUNE_FORMAT}')")
    target = doc.get("target")
    if not isinstance(target, str) or not re.fullmatch(r"[A-Za-z0-9_.+-]+", target):
        raise ReportError(f"{source}: \"target\" is missing or not a plain name")
    if not isinstance(doc.get("results"), list):
        raise ReportError(f"{source}: \"results\" must be a list")
    results, unreadable = [], []
    for i, r in enumerate(doc["results"]):
        if not isinstance(r, dict):
            unreadable.append(f"results[{i}]: not an object")
            continue
        variant = r.get("variant")
        if not isinstance(variant, str) or not isinstance(r.get("key_bits"), int) \
                or r.get("direction") not in ("enc", "dec"):
            unreadable.append(f"results[{i}]: needs variant, key_bits and direction enc|dec")
            continue
        ops = {}
        for op, m in (r.get("ops") or {}).items() if isinstance(r.get("ops"), dict) else ():
            if isinstance(m, dict) and _is_num(m.get("mbps")):
                iqr = (m["mbps_q3"] - m["mbps_q1"]) / m["mbps"] \
                    if _is_num(m.get("mbps_q1")) and _is_num(m.get("mbps_q3")) and m["mbps"] > 0 else None
                ops[op] = {"mbps": float(m["mbps"]),
                           "openssl_mbps": float(m["openssl_mbps"]) if _is_num(m.get("openssl_mbps")) else None,
                           "ratio": float(m["ratio"]) if _is_num(m.get("ratio")) else None,
                           "iqr": iqr}
        status = str(r.get("status") or "unknown")
        if status == "ok" and not ops:
            unreadable.append(f"results[{i}] ({variant}): status ok but no op has a number")
            continue
        results.append(TuneResult(variant, r["key_bits"], r["direction"], r.get("point"),
                                  dict(r["params"]) if isinstance(r.get("params"), dict) else {},
                                  status, str(r.get("reason") or ""), ops,
                                  float(r["score"]) if _is_num(r.get("score")) else None))
    winners = [w for w in doc.get("winners") or [] if isinstance(w, dict)] \
        if isinstance(doc.get("winners"), list) else []
    return Tune(source, text, doc, target, results, winners, unreadable)


# ---- formatting ---------------------------------------------------------------

def _size_label(n: int) -> str:
    for suffix, unit in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= unit and n % unit == 0:
            return f"{n // unit} {suffix}"
    return f"{n} B"


def _mbps(v: float) -> str:
    return f"{v:.1f}"


def _ratio(v: float) -> str:
    return f"{v:.2f}x" if v >= 0.1 else f"{v:.3f}x"


def _cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[str]], align: str) -> list[str]:
    """align: one 'l' or 'r' per column."""
    out = ["| " + " | ".join(_cell(h) for h in header) + " |",
           "|" + "|".join(" --- " if a == "l" else " ---: " for a in align) + "|"]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return out


def _param_text(params: dict, keys: list[str]) -> str:
    return ", ".join(f"{k}={params[k]}" for k in keys if k in params)


def _value_text(v) -> str:
    """Lists and tables from the JSON as plain text, not Python reprs."""
    if isinstance(v, list):
        return ", ".join(_value_text(x) for x in v)
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_value_text(x)}" for k, x in v.items())
    return str(v)


# ---- the bench part -----------------------------------------------------------

def _machine_section(doc: dict) -> list[str]:
    m = doc.get("machine") if isinstance(doc.get("machine"), dict) else {}
    meth = doc.get("method") if isinstance(doc.get("method"), dict) else {}
    clock = m.get("clock") if isinstance(m.get("clock"), dict) else {}
    pin = m.get("pinning") if isinstance(m.get("pinning"), dict) else {}
    child = m.get("openssl_noaesni_child") if isinstance(m.get("openssl_noaesni_child"), dict) else None

    def text(v) -> str:
        return "not built in" if v is None else str(v)

    rows = [["CPU", text(m.get("cpu_model"))], ["online CPUs", text(m.get("online_cpus"))],
            ["kernel", text(m.get("kernel"))], ["compiler", text(m.get("compiler"))],
            ["build type", text(m.get("build_type"))], ["aesgen", text(m.get("aesgen_version"))],
            ["OpenSSL", text(m.get("openssl_version"))]]
    if child:
        rows.append(["OpenSSL, AES-NI masked", f"child process, OPENSSL_ia32cap={child.get('OPENSSL_ia32cap')}"])
    rows += [["BearSSL", text(m.get("bearssl"))], ["RustCrypto", text(m.get("rustcrypto"))],
             ["libgcrypt", text(m.get("gcrypt"))], ["pinning", text(pin.get("detail"))],
             ["counter", text(clock.get("detail"))]]
    if meth:
        preempted = meth.get("preempted_samples")
        rows += [["statistic", f"{meth.get('statistic', 'median')} of {meth.get('repeats')} interleaved samples "
                               f"of at least {meth.get('min_sample_ms')} ms per row"],
                 ["samples", f"{meth.get('samples')}" + (f", {preempted} preempted" if preempted is not None else "")],
                 ["load average at start", text(meth.get("load_average_at_start"))],
                 ["per operation", text(meth.get("per_op"))]]
    out = ["## Machine and method", ""] + _table(["", ""], rows, "ll") + [""]
    dispatch = [d for d in doc.get("dispatch") or [] if isinstance(d, dict)]
    if dispatch:
        out += ["What dispatch picks on this machine:", ""]
        out += _table(["key", "encrypt", "decrypt"],
                      [[f"AES-{d.get('key_bits')}",
                        *(f"{(d.get(k) or {}).get('backend')} ({(d.get(k) or {}).get('variant')})"
                          for k in ("encrypt", "decrypt"))] for d in dispatch], "lll") + [""]
    return out


def _bench_section(bench: Bench) -> tuple[list[str], dict[str, str]]:
    """Markdown for every (key size, operation) and the throughput SVGs."""
    doc = bench.doc
    machine = doc.get("machine") if isinstance(doc.get("machine"), dict) else {}
    by_key = {(r.impl, r.op, r.key_bits, r.size): r for r in bench.rows}
    sizes = bench.sizes()
    impls = [im for im in bench.impls if any(r.impl == im.name for r in bench.rows)]
    subtitle = f"{machine.get('cpu_model', '?')}, {machine.get('compiler', '?')}; " \
               f"median MB/s (10^6 B/s); dashed: other libraries"
    md = ["## Throughput", "",
          "MB/s is 10^6 bytes per second, the median over interleaved samples; in brackets the "
          "speed relative to OpenSSL (default dispatch) measured in the same run. A row that was "
          "not timed shows its status. Absolute numbers on a shared machine move from run to run; "
          "compare ratios within one run.", ""]
    if doc.get("status") not in (None, "ok"):
        md += [f"**The bench reported status '{doc.get('status')}': some rows disagreed with OpenSSL "
               f"or failed; see the errors below.**", ""]
    svgs = {}
    for k in bench.keys():
        md += [f"### AES-{k}", ""]
        for op in bench.ops():
            present = [im for im in impls if any((im.name, op, k, s) in by_key for s in sizes)]
            if not present:
                continue
            name = f"throughput-{op}-aes{k}.svg"
            series = []
            for im in present:
                pts = [(float(s), by_key[im.name, op, k, s].mbps) for s in sizes
                       if (im.name, op, k, s) in by_key and by_key[im.name, op, k, s].status == "ok"]
                if pts:
                    series.append(svgplot.Series(im.name, pts, dashed=im.is_peer, style=impls.index(im)))
            if series:
                svgs[name] = svgplot.line_chart(
                    series, title=f"AES-{k} {op}: throughput by message size", subtitle=subtitle,
                    x_title="message size in bytes (log scale)", y_title="MB/s", log2_x=True,
                    x_ticks=[float(s) for s in sizes if any(x == s for ser in series for x, _ in ser.points)])
            table = []
            for im in present:
                cells = []
                for s in sizes:
                    r = by_key.get((im.name, op, k, s))
                    if r is None:
                        cells.append("")
                    elif r.status != "ok":
                        cells.append(r.status)
                    elif im.name == "openssl" or r.ratio is None:
                        cells.append(_mbps(r.mbps))
                    else:
                        cells.append(f"{_mbps(r.mbps)} ({_ratio(r.ratio)})")
                label = f"**{im.name}**" if im.name == "openssl" else im.name
                table.append([label, *cells])
            md += [f"#### AES-{k} {op}", ""]
            if name in svgs:
                md += [f"![AES-{k} {op} throughput by message size]({name})", ""]
            md += _table(["implementation", *(_size_label(s) for s in sizes)], table,
                         "l" + "r" * len(sizes)) + [""]
    notes = [(r.impl, r.op, r.key_bits, r.size, r.status, r.note) for r in bench.rows
             if r.status != "ok" and r.note]
    if notes:
        # One line per implementation, operation and reason, not per size.
        seen = {}
        for impl, op, k, size, status, note in notes:
            seen.setdefault((impl, op, status, note), set()).add(k)
        md += ["Rows not timed:", ""]
        md += [f"- {impl} {op} (AES-{', '.join(str(k) for k in sorted(ks))}): {status}: {note}"
               for (impl, op, status, note), ks in seen.items()] + [""]
    for title, key in (("Errors reported by the bench", "errors"), ("Notes from the bench", "notes")):
        items = [str(x) for x in doc.get(key) or []]
        if items:
            md += [f"{title}:", ""] + [f"- {x}" for x in items] + [""]
    md += _issue_bound_section(bench, by_key)
    md += ["### Implementations", ""]
    md += _table(["name", "kind", "what"], [[im.name, im.kind, im.description] for im in impls], "lll") + [""]
    return md, svgs


def _issue_bound_section(bench: Bench, by_key: dict) -> list[str]:
    """The software backends' ECB throughput at the largest measured size next to their
    operation-issue bound (the bench's estimate: core operations per batch at the target's
    assumed issue rate and the estimated core clock)."""
    table = []
    for im in bench.doc.get("implementations") or []:
        variants = im.get("variants") if isinstance(im, dict) else None
        if not isinstance(variants, dict):
            continue
        for key, v in sorted(variants.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0):
            if not isinstance(v, dict):
                continue
            for op, d in (("ecb-enc", "encrypt"), ("ecb-dec", "decrypt")):
                bound = v.get(f"{d}_issue_bound_mb_per_s")
                sizes = [s for (n, o, k, s), r in by_key.items()
                         if n == im.get("name") and o == op and str(k) == key and r.status == "ok"]
                if not _is_num(bound) or bound <= 0 or not sizes:
                    continue
                r = by_key[im["name"], op, int(key), max(sizes)]
                table.append([im["name"], f"AES-{key}", op, _size_label(max(sizes)), _mbps(r.mbps), _mbps(bound),
                              f"{100 * r.mbps / bound:.0f}%"])
    if not table:
        return []
    return ["### Constant-time software against its issue bound", "",
            "Bound: the variant's core operations per batch (its descriptor) at the issue rate its "
            "target assumes (vector logic operations per cycle) and the bench's estimate of the core "
            "clock. Not a measured limit: the compiler's register copies and spills come on top.", ""] + \
        _table(["implementation", "key", "operation", "size", "MB/s", "issue bound", "of bound"], table,
               "lllrrrr") + [""]


def _size_section(bench: Bench, sizes: dict[str, int], build_dir: str) -> tuple[list[str], dict[str, str]]:
    """Each aesgen backend's variant: its code size (executable bytes of its objects in the
    build the report was told about) next to its ECB throughput at the largest size timed,
    as a table and one scatter plot per operation and key size."""
    by_key = {(r.impl, r.op, r.key_bits, r.size): r for r in bench.rows}
    aesgen = [im for im in bench.doc.get("implementations") or []
              if isinstance(im, dict) and im.get("kind") == "aesgen" and isinstance(im.get("variants"), dict)]
    table, points, missing = [], {}, set()
    for idx, im in enumerate(aesgen):
        for key, v in sorted(im["variants"].items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0):
            if not isinstance(v, dict) or not key.isdigit():
                continue
            for op, d in SIZE_OPS:
                name = v.get(d)
                if not isinstance(name, str):
                    continue
                if name not in sizes:
                    missing.add(name)
                    continue
                timed = [s for (n, o, k, s), r in by_key.items()
                         if n == im["name"] and o == op and k == int(key) and r.status == "ok"]
                if not timed and op not in bench.ops():
                    continue  # the run did not time this operation at all
                mbps = by_key[im["name"], op, int(key), max(timed)].mbps if timed else None
                table.append([im["name"], f"AES-{key}", op, name, f"{sizes[name]}",
                              _mbps(mbps) if mbps is not None else "not timed",
                              _size_label(max(timed)) if timed else ""])
                if mbps is not None:
                    points.setdefault((op, int(key)), []).append(
                        svgplot.Series(im["name"], [(sizes[name] / 1024, mbps)], style=idx))
    if not table:
        return [], {}
    md = ["## Code size and throughput", "",
          f"Code size: bytes of the executable sections of the variant's objects in `{build_dir}` "
          "(its .c and, for the hardware loops, .S; the key set-up and GHASH files variants share are "
          "not counted). Throughput: the ECB median at the largest message size timed.", ""]
    svgs = {}
    for (op, k), series in sorted(points.items()):
        name = f"size-{op}-aes{k}.svg"
        svgs[name] = svgplot.line_chart(series, title=f"AES-{k} {op}: throughput against code size",
                                        subtitle="one point per backend (its variant for this key size)",
                                        x_title="code size in KiB (.text of the variant's objects)",
                                        y_title="MB/s")
        md += [f"![AES-{k} {op} throughput against code size]({name})", ""]
    md += _table(["implementation", "key", "operation", "variant", "code bytes", "MB/s", "at"], table,
                 "llllrrr") + [""]
    if missing:
        md += [f"Not compiled in `{build_dir}` (no size): {', '.join(sorted(missing))}.", ""]
    return md, svgs


# ---- the tune part --------------------------------------------------------------

@dataclass
class _Curve:
    """One series of an interleave plot: results that differ only in interleave."""
    name: str
    points: dict  # interleave -> TuneResult


def _curves(tune: Tune, op: str, key_bits: int) -> tuple[list[_Curve], list[str]]:
    ok = [r for r in tune.results if r.status == "ok" and r.key_bits == key_bits and op in r.ops
          and _is_num(r.params.get("interleave")) and r.params["interleave"] > 0]
    # Name series only by what varies between them (e.g. key_policy); constants add noise.
    others = sorted({p for r in ok for p in r.params if p != "interleave"})
    varying = [p for p in others if len({repr(r.params.get(p)) for r in ok}) > 1]
    # A single series is named by the other swept parameters (e.g. key_policy=auto).
    swept = [p for p in tune.doc.get("space") or {} if p != "interleave" and p in others] \
        if isinstance(tune.doc.get("space"), dict) else []
    directions = sorted({r.direction for r in ok})
    curves: dict[tuple, _Curve] = {}
    dropped = []
    for r in ok:
        key = (r.direction if len(directions) > 1 else "",
               tuple(repr(r.params.get(p)) for p in varying))
        label = " ".join(filter(None, [key[0], _param_text(r.params, varying or swept)])) \
            or f"AES-{key_bits} {op}"
        curve = curves.setdefault(key, _Curve(label, {}))
        x = r.params["interleave"]
        if x in curve.points:
            dropped.append(f"{r.variant}: a second result for interleave {x} in series '{label}' (ignored)")
            continue
        curve.points[x] = r
    return list(curves.values()), dropped


def _knee(curve: _Curve, op: str) -> tuple[int, float, int, float]:
    best_x = max(curve.points, key=lambda x: (curve.points[x].ops[op]["mbps"], -x))
    best = curve.points[best_x].ops[op]["mbps"]
    knee_x = min(x for x, r in curve.points.items() if r.ops[op]["mbps"] >= (1 - KNEE_TOLERANCE) * best)
    return best_x, best, knee_x, curve.points[knee_x].ops[op]["mbps"]


def _tune_section(tune: Tune) -> tuple[list[str], dict[str, str]]:
    doc = tune.doc
    machine = doc.get("machine") if isinstance(doc.get("machine"), dict) else {}
    settings = doc.get("settings") if isinstance(doc.get("settings"), dict) else {}
    space = doc.get("space") if isinstance(doc.get("space"), dict) else {}
    md = [f"## Tuning: {tune.target}", ""]
    if doc.get("status") not in (None, "complete"):
        md += [f"**This sweep is {doc.get('status')}, not complete: the table holds the points measured.**", ""]
    facts = [["results file", Path(tune.source).name], ["CPU", str(machine.get("cpu_model", "?"))],
             ["compiler", str(machine.get("compiler", "?"))]]
    if settings:
        facts.append(["settings", "; ".join(f"{k}={_value_text(v)}" for k, v in settings.items())])
    if space:
        facts.append(["space", "; ".join(f"{k}: {_value_text(v)}" for k, v in space.items())])
    md += _table(["", ""], facts, "ll") + [""]

    ops = [op for op in OP_ORDER if any(op in r.ops for r in tune.results)]
    ops += sorted({op for r in tune.results for op in r.ops} - set(ops))
    # Columns: the swept parameters; without a "space", whatever varies between results.
    params = [p for p in space if any(p in r.params for r in tune.results)]
    if not params:
        params = sorted(p for p in {p for r in tune.results for p in r.params}
                        if len({repr(r.params.get(p)) for r in tune.results}) > 1)
    rows = []
    for r in sorted(tune.results, key=lambda r: (r.key_bits, r.direction, r.variant)):
        cells = [r.variant, str(r.key_bits), r.direction, *(str(r.params.get(p, "")) for p in params), r.status]
        for op in ops:
            m = r.ops.get(op)
            cells.append("" if m is None else _mbps(m["mbps"])
                         + (f" ±{m['iqr'] / 2:.0%}" if m["iqr"] is not None else "")
                         + (f" ({_ratio(m['ratio'])})" if m["ratio"] is not None else ""))
        cells.append("" if r.score is None else f"{r.score:.0f}")
        rows.append(cells)
    md += ["MB/s of each variant (median over rounds of the samples' median); ± half the interquartile "
           "range of the samples; in brackets the ratio to OpenSSL in the same run. Score: the "
           "geometric mean of the operations' MB/s (what `tune` maximises).", ""]
    md += _table(["variant", "key", "dir", *params, "status", *ops, "score"], rows,
                 "lll" + "l" * len(params) + "l" + "r" * len(ops) + "r") + [""]

    not_ok = [r for r in tune.results if r.status != "ok"]
    # Sweep points that produced no result at all (rejected by the target, or failed to build).
    measured = {r.point for r in tune.results}
    lost = [p for p in doc.get("points") or [] if isinstance(p, dict) and p.get("status") != "ok"
            and p.get("point") not in measured]
    if not_ok or lost or tune.unreadable:
        md += ["Left out of the plots:", ""]
        for p in lost:
            params = p.get("params") if isinstance(p.get("params"), dict) else {}
            md.append(f"- point {p.get('point')} ({_param_text(params, list(params))}): {p.get('status')}"
                      + (f" ({p['reason']})" if p.get("reason") else ""))
        md += [f"- {r.variant}: {r.status}" + (f" ({r.reason})" if r.reason else "") for r in not_ok]
        md += [f"- {why}" for why in tune.unreadable] + [""]

    if tune.winners:
        md += ["Winners (highest score per key size and direction):", ""]
        md += _table(["key", "dir", "variant", "parameters", "score"],
                     [[str(w.get("key_bits", "")), str(w.get("direction", "")), str(w.get("variant", "")),
                       _param_text(w["params"], sorted(w["params"])) if isinstance(w.get("params"), dict) else "",
                       f"{w['score']:.0f}" if _is_num(w.get("score")) else ""] for w in tune.winners],
                     "lllll") + [""]

    pairs = [x for x in doc.get("same_code") or [] if isinstance(x, dict) and _is_num(x.get("gap"))
             and isinstance(x.get("variants"), list) and len(x["variants"]) == 2] \
        if isinstance(doc.get("same_code"), list) else []
    if pairs:
        gaps = sorted(x["gap"] for x in pairs)
        md += [f"Noise floor: {len(pairs)} results are the same code as another result (points that differ "
               f"only in a parameter that direction does not use), built and timed separately. Their scores "
               f"differ by a median of {statistics.median(gaps):.1%} and at most {gaps[-1]:.1%}; a gap between "
               f"points smaller than that is not a finding.", ""]

    if not tune.has_interleave():
        md += ["These results have no interleave parameter: table only, no plot.", ""]
        return md, {}
    plots_md, svgs = _interleave_plots(tune, ops, machine, settings)
    return md + plots_md, svgs


def _interleave_plots(tune: Tune, ops: list[str], machine: dict, settings: dict) -> tuple[list[str], dict[str, str]]:
    """One chart per key size and operation, and the knee table."""
    md, svgs, knees, dropped_all = [], {}, [], []
    for key_bits in sorted({r.key_bits for r in tune.results}):
        for op in ops:
            curves, dropped = _curves(tune, op, key_bits)
            dropped_all += dropped
            if not curves:
                continue
            series = [svgplot.Series(c.name, [(float(x), r.ops[op]["mbps"]) for x, r in sorted(c.points.items())])
                      for c in curves]
            winners = {w.get("variant") for w in tune.winners if w.get("key_bits") == key_bits}
            marks: dict[tuple, list[str]] = {}  # (series, interleave) -> what it is
            for c in curves:
                for x, r in sorted(c.points.items()):
                    if r.variant in winners:
                        marks.setdefault((c.name, x), []).append("winner")
                marks.setdefault((c.name, _knee(c, op)[2]), []).append("knee")
            highlights = [svgplot.Highlight(name, float(x), f"{' = '.join(what)}: x{x}")
                          for (name, x), what in marks.items()]
            # Each result timed OpenSSL next to itself; their median is the reference.
            ref = [r.ops[op]["openssl_mbps"] for c in curves for r in c.points.values()
                   if r.ops[op]["openssl_mbps"] is not None]
            ref_lines = []
            if ref:
                y = statistics.median(ref)
                ref_lines.append(svgplot.RefLine(y, f"openssl {y:.0f} MB/s (median of {len(ref)})"))
            xs = sorted({x for c in curves for x in c.points})
            name = f"interleave-{tune.target}-{op}-aes{key_bits}.svg"
            svgs[name] = svgplot.line_chart(
                series, title=f"{tune.target}: AES-{key_bits} {op} by interleave factor",
                subtitle=f"{machine.get('cpu_model', '?')}; {settings.get('size', '?')}-byte messages; "
                         f"rings: the tune winner and the knee; dashed: OpenSSL in the same run",
                x_title="interleave factor (blocks or vectors in flight, log scale)", y_title="MB/s",
                log2_x=True, x_ticks=[float(x) for x in xs], x_format=svgplot.format_tick,
                highlights=highlights, ref_lines=ref_lines)
            md += [f"![{tune.target} AES-{key_bits} {op} by interleave]({name})", ""]
            for c in curves:
                best_x, best, knee_x, knee = _knee(c, op)
                knees.append([f"AES-{key_bits}", op, c.name, str(best_x), _mbps(best), str(knee_x), _mbps(knee),
                              f"{knee / best:.3f}" if best else ""])
    md += [f"The knee is the smallest interleave within {KNEE_TOLERANCE:.0%} of the best:", ""]
    md += _table(["key", "op", "series", "best interleave", "best MB/s", "knee", "knee MB/s", "knee / best"],
                 knees, "lllrrrrr") + [""]
    if dropped_all:
        md += [f"- {d}" for d in dropped_all] + [""]
    return md, svgs


# ---- putting it together ----------------------------------------------------------

def build(bench: Bench | None, bench_text: str | None, tunes: list[Tune],
          sizes: dict[str, int] | None = None, build_dir: str = "") -> dict[str, str]:
    """Every output file name and its text. Pure: reads and writes nothing."""
    seen = {}
    for t in tunes:
        if t.target in seen:
            raise ReportError(f"{seen[t.target]} and {t.source} both hold results for target '{t.target}'")
        seen[t.target] = t.source
    files: dict[str, str] = {}
    md = ["# aesgen benchmark report", "",
          "Made by `PYTHONPATH=generator python3 -m aesgen report` (see docs/report.md). "
          "Every figure is an SVG file next to this one.", ""]
    if bench is not None:
        md += _machine_section(bench.doc)
        bench_md, svgs = _bench_section(bench)
        md += bench_md
        files.update(svgs)
        if sizes is not None:
            size_md, svgs = _size_section(bench, sizes, build_dir)
            md += size_md
            files.update(svgs)
        files["bench.json"] = bench_text if bench_text.endswith("\n") else bench_text + "\n"
    for t in tunes:
        tune_md, svgs = _tune_section(t)
        md += tune_md
        files.update(svgs)
        files[f"tune-{t.target}.json"] = t.text if t.text.endswith("\n") else t.text + "\n"
    while md and md[-1] == "":
        md.pop()
    files["report.md"] = "\n".join(md) + "\n"
    return files


def write(out_dir: Path, files: dict[str, str]) -> tuple[list[str], list[str]]:
    """Replace each file atomically, report.md last; then remove owned files this report
    did not produce. Returns (written, removed)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    order = sorted(n for n in files if n != "report.md") + ["report.md"]
    written = [n for n in order if writer.write_atomic(out_dir / n, files[n])]
    removed = []
    for p in sorted(out_dir.iterdir()):
        if p.is_file() and OWNED.fullmatch(p.name) and p.name not in files:
            p.unlink()
            removed.append(p.name)
    return written, removed


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ReportError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None


def make_report(out: str, bench: str | None = None, from_json: str | None = None,
                tune: list[str] | tuple = (), quick: bool = False, progress=None,
                build_dir: str | None = None) -> tuple[list[str], list[str]]:
    """The `report` command: gather and check every input, render, then write."""
    if build_dir and not (bench or from_json):
        raise ReportError("--build-dir gives code sizes next to bench figures: give --bench or --from-json too")
    if bench and from_json:
        raise ReportError("give --bench or --from-json, not both")
    if not (bench or from_json or tune):
        raise ReportError("nothing to report: give --bench BENCH, --from-json FILE or --tune FILE")
    out_dir = Path(out)
    if out_dir.exists() and not out_dir.is_dir():
        raise ReportError(f"{out}: exists and is not a folder")
    tunes = [parse_tune(_read(p), p) for p in tune]  # before the bench run: fail fast on a typo
    sizes = None
    if build_dir:
        try:
            sizes = objsize.variant_sizes(Path(build_dir))
        except objsize.ObjectSizeError as e:
            raise ReportError(str(e)) from None
        if not sizes:
            raise ReportError(f"{build_dir}: no compiled variant objects (build the library there first)")
    parsed = text = None
    if from_json:
        text = _read(from_json)
        parsed = parse_bench(text, from_json)
    elif bench:
        text = run_bench(bench, quick, progress)
        parsed = parse_bench(text, f"{bench} --format json")
    try:
        files = build(parsed, text, tunes, sizes, build_dir or "")
    except ValueError as e:  # from svgplot: data it cannot draw
        raise ReportError(f"cannot plot: {e}") from None
    return write(out_dir, files)
