"""Command line: generate | check | list | check-assembled | tune | inputs | outputs.

    PYTHONPATH=generator python3 -m aesgen generate [--filter GLOB]... [--out DIR]
    PYTHONPATH=generator python3 -m aesgen check
    PYTHONPATH=generator python3 -m aesgen list [--json]
    PYTHONPATH=generator python3 -m aesgen tune --target NAME [--modes ecb,ctr] [--key-sizes 128,256] [--apply]

Every failure prints one line starting with 'aesgen: error:' and exits non-zero.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import __version__, objsize, pipeline, writer
from .errors import AesgenError
from .render import REGENERATE
from .tune import runner as tune_runner

# every error of aesgen's own is an AesgenError; OSError covers the files it reads and writes
EXPECTED = (AesgenError, OSError)


def _paths(args) -> pipeline.Paths:
    p = pipeline.Paths()
    return pipeline.Paths(
        targets=Path(args.targets) if args.targets else p.targets,
        templates=Path(args.templates) if args.templates else p.templates,
        out=Path(getattr(args, "out", None) or p.out),
        root=p.root,
        profiles=Path(args.profiles) if getattr(args, "profiles", None) else p.profiles,
        cpus=Path(args.cpus) if getattr(args, "cpus", None) else p.cpus,
    )


def cmd_generate(args) -> int:
    paths = _paths(args)
    progress = None if args.quiet else (lambda msg: print(f"aesgen: {msg}", file=sys.stderr))
    outputs = pipeline.render_outputs(paths, args.filter, progress)
    written, removed = writer.write_tree(paths.out, outputs, full=not args.filter)
    if not args.quiet:
        print(f"aesgen: {len(outputs)} files checked by the model and rendered; "
              f"{len(written)} written, {len(outputs) - len(written)} unchanged, {len(removed)} stale removed "
              f"in {paths.out}")
        for rel in written:
            print(f"  wrote {rel}")
        for rel in removed:
            print(f"  removed {rel}")
    return 0


def cmd_check(args) -> int:
    paths = _paths(args)
    outputs = pipeline.render_outputs(paths, None)
    drift = writer.compare(paths.out, outputs, full=True)
    if not drift:
        print(f"aesgen: {paths.out} matches the generator ({len(outputs)} files)")
        return 0
    sys.stdout.writelines(drift.diff)
    for rel in drift.missing:
        print(f"aesgen: missing: {rel}")
    for rel in drift.stale:
        print(f"aesgen: not produced by the generator: {rel}")
    print(f"aesgen: error: {paths.out} has drifted from the generator "
          f"({len(drift.changed)} changed, {len(drift.missing)} missing, {len(drift.stale)} stale); "
          f"run '{REGENERATE}' and commit the result", file=sys.stderr)
    return 1


def cmd_list(args) -> int:
    _, variants = pipeline.load(_paths(args))
    chosen = pipeline.select_variants(variants, args.filter)
    sizes = objsize.variant_sizes(Path(args.build_dir)) if args.build_dir else {}
    alternative = pipeline.alternatives([v for v in variants if v.kind == "aes"])
    if args.json:
        entries = []
        for v in chosen:
            entry = {"name": v.name, "kind": v.kind, "target": v.target.name, "backend": v.backend,
                     "key_bits": v.key_bits, "direction": v.direction, "parameters": dict(v.params),
                     "rank": v.rank, "alternative": v.name in alternative, "outputs": pipeline.output_paths(v)}
            if args.build_dir:
                entry["text_bytes"] = sizes.get(v.name)  # null: the build did not compile it
            entries.append(entry)
        json.dump(entries, sys.stdout, indent=2)
        print()
        return 0
    width = max(len(v.name) for v in chosen)
    for v in chosen:
        size = ""
        if args.build_dir:
            size = f"  text={sizes[v.name]}" if v.name in sizes else "  text=not-built"
        print(f"{v.name:<{width}}  {v.describe()}{size}")
    return 0


def cmd_check_assembled(args) -> int:
    progress = None if args.quiet else (lambda msg: print(f"aesgen: {msg}", file=sys.stderr))
    for line in pipeline.check_assembled(_paths(args), args.filter, progress):
        print(line)
    return 0


def _int_list(text: str, what: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise tune_runner.TuneError(f"{what}: {text!r} is not a comma list of integers") from None


def cmd_tune(args) -> int:
    paths = _paths(args)
    vectors = Path(args.vectors) if args.vectors else paths.root.parent / "shared" / "vectors"
    if args.vectors and not vectors.is_dir():
        raise tune_runner.TuneError(f"--vectors: {vectors} is not a folder")
    settings = tune_runner.Settings(
        target=args.target, modes=[m.strip() for m in args.modes.split(",") if m.strip()],
        key_bits=_int_list(args.key_sizes, "--key-sizes"), size=args.size, repeats=args.repeats, rounds=args.rounds,
        min_time_ms=args.min_time_ms, space=args.space or [],
        out=Path(args.scratch or f"build-tune/{args.target}"),
        vectors=vectors.resolve() if vectors.is_dir() else None, jobs=args.jobs)
    if args.size <= 0 or args.size % 16 or args.repeats < 1 or args.rounds < 1 or args.min_time_ms <= 0:
        raise tune_runner.TuneError("--size must be a positive multiple of 16; --repeats, --rounds and "
                                    "--min-time-ms positive")
    sweep = tune_runner.Sweep(paths, settings)
    if settings.vectors is None:
        print(f"aesgen tune: note: no vector folder ({vectors}): points are verified with FIPS-197 and the "
              "differential test against OpenSSL only", file=sys.stderr)
    try:
        doc = sweep.run()
    except KeyboardInterrupt:
        sweep.interrupted()
        print(f"aesgen tune: interrupted; {sweep.results_path} holds the points measured so far "
              "(marked interrupted); nothing applied", file=sys.stderr)
        return 130
    writer.write_atomic(settings.out / "profile.toml", tune_runner.profile_text(doc))
    print(f"aesgen tune: {doc['target']} on {doc['machine']['cpu_family']} ({doc['machine']['cpu_model']}), "
          f"{len(doc['points'])} points in {doc['elapsed_s']} s")
    for w in doc["winners"]:
        params = ", ".join(f"{k}={v}" for k, v in w["params"].items())
        ops = ", ".join(f"{op} {mb:.0f} MB/s" for op, mb in w["ops"].items())
        print(f"  AES-{w['key_bits']} {w['direction']}: {params}  ({ops}; {w['ratio']:.2f}x OpenSSL)  {w['variant']}")
    if doc.get("same_code"):
        worst = max(doc["same_code"], key=lambda x: x["gap"])
        print(f"  noise floor: {len(doc['same_code'])} results are the same code as another result, timed "
              f"separately; they differ by up to {worst['gap']:.1%} (AES-{worst['key_bits']} {worst['direction']}: "
              f"{' vs '.join(worst['variants'])})")
    failed = [p for p in doc["points"] if p["status"] not in ("ok", "skipped")]
    for p in failed:
        print(f"  point {p['point']} {p['params']}: {p['status']}: {p['reason']}")
    print(f"aesgen tune: results {sweep.results_path}, profile {settings.out / 'profile.toml'}")
    if not args.apply:
        print("aesgen tune: generated/ unchanged (--apply installs the profile and regenerates)")
        return 1 if failed else 0
    dest, written, removed = tune_runner.apply(paths, doc)
    print(f"aesgen tune: applied {dest}; {paths.out}: {len(written)} written, {len(removed)} removed")
    for rel in written:
        print(f"  wrote {rel}")
    for rel in removed:
        print(f"  removed {rel}")
    return 1 if failed else 0


def cmd_tune_dispatch(args) -> int:
    from .tune import dispatch as tune_dispatch
    paths = _paths(args)
    settings = tune_dispatch.Settings(
        bench=Path(args.bench), ops=_csv(args.ops, str), sizes=_csv(args.sizes, int),
        key_bits=_csv(args.key_sizes, int), rounds=args.rounds, repeats=args.repeats,
        min_time_ms=args.min_time_ms, tie=args.tie, out=Path(args.scratch))
    if not settings.bench.is_file() or not os.access(settings.bench, os.X_OK):
        raise tune_dispatch.TuneDispatchError(f"--bench {settings.bench}: not an executable aesgen-bench "
                                              "(build the project first)")
    doc = tune_dispatch.run(paths, settings)
    results = settings.out / "results.json"
    writer.write_atomic(results, json.dumps(doc, indent=1) + "\n")
    writer.write_atomic(settings.out / f"{doc['cpu_id']}.toml", tune_dispatch.row_text(doc, paths))
    print(f"aesgen tune-dispatch: {doc['cpu_id']} ({doc['cpu_model']}): {' > '.join(doc['order'])}")
    for r in sorted(doc["results"], key=lambda r: -r["score"]):
        print(f"  {r['backend']:<20} score {r['score']:9.1f} MB/s")
    print(f"aesgen tune-dispatch: results {results}, row {settings.out / (doc['cpu_id'] + '.toml')}")
    if not args.apply:
        print("aesgen tune-dispatch: generator/cpus/ unchanged (--apply installs the row and regenerates)")
        return 0
    dest, written, _ = tune_dispatch.apply(paths, doc)
    print(f"aesgen tune-dispatch: applied {dest}; {paths.out}: {len(written)} written")
    return 0


def _csv(text: str, kind):
    try:
        values = [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise AesgenError(f"{text!r}: expected a comma list") from None
    if not values:
        raise AesgenError(f"{text!r}: expected a comma list")
    return values


def cmd_inputs(args) -> int:
    for p in pipeline.input_files(_paths(args)):
        print(p.as_posix())
    return 0


def cmd_outputs(args) -> int:
    for rel in pipeline.output_files(_paths(args)):
        print(rel)
    return 0


def cmd_report(args) -> int:
    from . import report  # needs none of the generator; load it only for this command
    progress = lambda msg: print(f"aesgen: {msg}", file=sys.stderr)  # noqa: E731
    try:
        written, removed = report.make_report(args.out, bench=args.bench, from_json=args.from_json,
                                              tune=args.tune or [], quick=args.quick, progress=progress,
                                              build_dir=args.build_dir)
    except report.ReportError as e:
        print(f"aesgen: error: {e}", file=sys.stderr)
        return 1
    print(f"aesgen: report in {args.out}/report.md ({len(written)} files written, {len(removed)} stale removed)")
    return 0


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="aesgen", description="Generate specialised AES sources.")
    ap.add_argument("--version", action="version", version=f"aesgen {__version__}")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p, out=False):
        p.add_argument("--targets", metavar="DIR", help="target descriptions (default: generator/targets)")
        p.add_argument("--profiles", metavar="DIR", help="tuned profiles (default: generator/profiles)")
        p.add_argument("--cpus", metavar="DIR", help="per-CPU dispatch preferences (default: generator/cpus)")
        p.add_argument("--templates", metavar="DIR", help="templates (default: templates)")
        if out:
            p.add_argument("--out", metavar="DIR", help="output folder (default: generated)")

    p = sub.add_parser("generate", help="build, verify and write variants",
                       description="Build every variant (or those matching --filter), execute each in the model "
                                   "against the reference AES, and write the files that changed.")
    common(p, out=True)
    p.add_argument("--filter", action="append", metavar="GLOB", help="only variants whose name matches (repeatable)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("check", help="compare the output folder with a fresh generation",
                       description="Regenerate in memory and compare byte for byte; print a unified diff and "
                                   "exit 1 on any drift.")
    common(p, out=True)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("list", help="every target variant with its parameters",
                       description="List variants: canonical name and parameters.")
    common(p)
    p.add_argument("--filter", action="append", metavar="GLOB", help="only variants whose name matches")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--build-dir", metavar="DIR",
                   help="a CMake build of this tree: give each variant's code size (bytes of its objects' "
                        "executable sections; text_bytes in --json)")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("check-assembled", help="assemble, disassemble and model-check machine code",
                       description="For variants with machine code: assemble and link the rendered source, "
                                   "disassemble it with objdump, require it to match the emitted instructions, "
                                   "and run the disassembled code in the model against the reference AES.")
    common(p)
    p.add_argument("--filter", action="append", metavar="GLOB", help="only variants whose name matches")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=cmd_check_assembled)

    p = sub.add_parser("tune", help="sweep a target's parameters on this machine and keep the winners",
                       description="Generate one variant per combination of the target's tunable parameters "
                                   "into a scratch build, verify each against the vectors and OpenSSL, time each "
                                   "next to OpenSSL, and write results.json and profile.toml. With --apply, "
                                   "install the profile in generator/profiles/ and regenerate the output folder.")
    common(p, out=True)
    p.add_argument("--target", required=True, help="the target to sweep (see `list`)")
    p.add_argument("--modes", default="ecb,ctr", help="modes that score a variant: ecb, ctr, cbc, xts (default ecb,ctr)")
    p.add_argument("--key-sizes", default="128,192,256", help="comma list (default 128,192,256)")
    p.add_argument("--space", action="append", metavar="NAME=V1,V2",
                   help="values to sweep for one parameter, e.g. interleave=1,2,4,8 (repeatable)")
    p.add_argument("--size", type=int, default=8192, help="message bytes (default 8192)")
    p.add_argument("--repeats", type=int, default=7, help="samples per row, median reported (default 7)")
    p.add_argument("--min-time-ms", type=float, default=2.0, help="minimum sample duration (default 2)")
    p.add_argument("--rounds", type=int, default=1,
                   help="measure every point this many times, in turn; figures are medians over rounds")
    p.add_argument("--vectors", metavar="DIR", help="NIST vectors (default ../shared/vectors when present)")
    p.add_argument("--scratch", metavar="DIR", help="work folder (default build-tune/<target>)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel build jobs")
    p.add_argument("--apply", action="store_true",
                   help="install the profile, name it in applied.toml and regenerate the output folder")
    p.set_defaults(func=cmd_tune)

    p = sub.add_parser("tune-dispatch", help="measure which AES-instruction backend this CPU should prefer",
                       description="Time every AES-instruction backend that runs here side by side in aesgen-bench "
                                   "and write this CPU model's row of the per-CPU dispatch table. With --apply, "
                                   "install it as generator/cpus/measured/<cpu-id>.toml and regenerate.")
    common(p, out=True)
    p.add_argument("--bench", required=True, metavar="PATH", help="an aesgen-bench built from this tree")
    p.add_argument("--ops", default="ecb-enc,ecb-dec,ctr,cbc-dec,xts-enc,gcm-seal",
                   help="operations that score a backend (default ecb-enc,ecb-dec,ctr,cbc-dec,xts-enc,gcm-seal)")
    p.add_argument("--sizes", default="1024,8192", help="message bytes, comma list (default 1024,8192)")
    p.add_argument("--key-sizes", default="128,256", help="comma list (default 128,256)")
    p.add_argument("--rounds", type=int, default=3, help="bench runs; figures are medians over rounds (default 3)")
    p.add_argument("--repeats", type=int, default=7, help="samples per row, median reported (default 7)")
    p.add_argument("--min-time-ms", type=float, default=2.0, help="minimum sample duration (default 2)")
    p.add_argument("--tie", type=float, default=0.02,
                   help="scores closer than this fraction keep the targets' order (default 0.02)")
    p.add_argument("--scratch", default="build-tune/dispatch", metavar="DIR", help="results and logs")
    p.add_argument("--apply", action="store_true", help="install the row and regenerate the output folder")
    p.set_defaults(func=cmd_tune_dispatch)

    p = sub.add_parser("inputs", help="files the output depends on (for build systems)")
    common(p)
    p.set_defaults(func=cmd_inputs)

    p = sub.add_parser("outputs", help="files generate writes, relative to the output folder")
    common(p)
    p.set_defaults(func=cmd_outputs)

    p = sub.add_parser("report", help="benchmark report: Markdown tables and SVG plots",
                       description="Run aesgen-bench over the message-size ladder (16 B to 1 MiB, every "
                                   "operation, backend and peer), or read a saved bench JSON, and write "
                                   "report.md, bench.json and SVG plots to a folder; with --tune, also "
                                   "throughput against interleave factor. See docs/report.md.")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--bench", metavar="EXE", help="the aesgen-bench executable to run")
    src.add_argument("--from-json", metavar="FILE", help="a saved 'aesgen-bench --format json' document")
    p.add_argument("--out", metavar="DIR", required=True, help="report folder (created; an older report is replaced)")
    p.add_argument("--tune", action="append", metavar="FILE", help="results of 'aesgen tune' (repeatable)")
    p.add_argument("--build-dir", metavar="DIR",
                   help="the CMake build the bench came from: plot each backend's code size against its throughput")
    p.add_argument("--quick", action="store_true",
                   help="3 samples of 1 ms per row instead of 11 of 2 ms (about 30 s instead of 1-2 minutes)")
    p.set_defaults(func=cmd_report)
    return ap


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except EXPECTED as e:
        print(f"aesgen: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("aesgen: interrupted; the output folder is as it was (it is replaced as a whole)", file=sys.stderr)
        return 130
