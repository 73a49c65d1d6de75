"""Command line: generate | check | list | inputs | outputs.

    PYTHONPATH=generator python3 -m aesgen generate [--filter GLOB]... [--out DIR]
    PYTHONPATH=generator python3 -m aesgen check
    PYTHONPATH=generator python3 -m aesgen list [--json]

Every failure prints one line starting with 'aesgen: error:' and exits non-zero.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__, pipeline, writer
from .algorithm.circuits import CircuitError
from .ir import ProgramError
from .machine.x86_64_objdump import DisassemblyError
from .model import ModelError
from .render import REGENERATE, RenderError
from .targets import TargetError

EXPECTED = (TargetError, ModelError, ProgramError, RenderError, CircuitError, DisassemblyError,
            pipeline.SelectionError, FileExistsError, OSError)


def _paths(args) -> pipeline.Paths:
    p = pipeline.Paths()
    return pipeline.Paths(
        targets=Path(args.targets) if args.targets else p.targets,
        templates=Path(args.templates) if args.templates else p.templates,
        out=Path(getattr(args, "out", None) or p.out),
        root=p.root,
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
    if args.json:
        json.dump([{"name": v.name, "target": v.target.name, "backend": v.backend, "key_bits": v.key_bits,
                    "direction": v.direction, "parameters": dict(v.params), "rank": v.rank,
                    "outputs": pipeline.output_paths(v)} for v in chosen], sys.stdout, indent=2)
        print()
        return 0
    width = max(len(v.name) for v in chosen)
    for v in chosen:
        print(f"{v.name:<{width}}  {v.describe()}")
    return 0


def cmd_check_assembled(args) -> int:
    progress = None if args.quiet else (lambda msg: print(f"aesgen: {msg}", file=sys.stderr))
    for line in pipeline.check_assembled(_paths(args), args.filter, progress):
        print(line)
    return 0


def cmd_inputs(args) -> int:
    for p in pipeline.input_files(_paths(args)):
        print(p.as_posix())
    return 0


def cmd_outputs(args) -> int:
    for rel in pipeline.output_files(_paths(args)):
        print(rel)
    return 0


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="aesgen", description="Generate specialised AES sources.")
    ap.add_argument("--version", action="version", version=f"aesgen {__version__}")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p, out=False):
        p.add_argument("--targets", metavar="DIR", help="target descriptions (default: generator/targets)")
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
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("check-assembled", help="assemble, disassemble and model-check machine code",
                       description="For variants with machine code: assemble and link the rendered source, "
                                   "disassemble it with objdump, require it to match the emitted instructions, "
                                   "and run the disassembled code in the model against the reference AES.")
    common(p)
    p.add_argument("--filter", action="append", metavar="GLOB", help="only variants whose name matches")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=cmd_check_assembled)

    p = sub.add_parser("inputs", help="files the output depends on (for build systems)")
    common(p)
    p.set_defaults(func=cmd_inputs)

    p = sub.add_parser("outputs", help="files generate writes, relative to the output folder")
    common(p)
    p.set_defaults(func=cmd_outputs)
    return ap


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except EXPECTED as e:
        print(f"aesgen: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("aesgen: interrupted; files already replaced are complete, the rest unchanged", file=sys.stderr)
        return 130
