"""The porter's path of docs/adding-a-target.md, end to end: every shell command between
the doc's `<!-- porter-path -->` markers runs as written, in order, in a scratch copy of
the tree laid out like the real one (the copy in <scratch>/aesgen, the test vectors at
<scratch>/shared/vectors), and must succeed. A test program that reports "skipped"
(exit 77: the CPU lacks the backend's features) counts as skipped, not failed.

    python3 tests/porter/porter_test.py --root DIR --scratch DIR --vectors DIR [--python PY]

Exit status: 0 every command passed, 1 one failed (its output is shown), 2 usage, 77
the vector folder is missing (a failure with --require-vectors).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

SKIPPED = 77
BEGIN, END = "<!-- porter-path -->", "<!-- /porter-path -->"


def commands(doc: Path) -> list[str]:
    """The shell commands of the fenced ```sh blocks between the markers, one per
    logical line (backslash continuations joined)."""
    text = doc.read_text(encoding="utf-8")
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise SystemExit(f"{doc}: expected one {BEGIN} ... {END} section")
    section = text[text.index(BEGIN):text.index(END)]
    out = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        pending = ""
        for line in block.splitlines():
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            line = pending + line
            pending = ""
            if line.strip() and not line.lstrip().startswith("#"):
                out.append(line.strip())
    if not out:
        raise SystemExit(f"{doc}: no ```sh commands between the markers")
    return out


def tracked_files(root: Path) -> list[str]:
    """The checkout's files as git sees them (tracked and new, not ignored), or every
    file outside build trees when it is not a git checkout."""
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"], check=True, capture_output=True).stdout
        names = [n for n in listed.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = [p.relative_to(root).as_posix() for p in root.rglob("*")
                 if p.is_file() and not p.relative_to(root).parts[0].startswith("build")]
    return [n for n in names if (root / n).is_file()]


def copy_tree(root: Path, dest: Path) -> None:
    for name in tracked_files(root):
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", required=True, type=Path)
    ap.add_argument("--scratch", required=True, type=Path)
    ap.add_argument("--vectors", required=True, type=Path)
    ap.add_argument("--python", default=sys.executable, help="the python3 the doc's commands call")
    ap.add_argument("--require-vectors", action="store_true")
    args = ap.parse_args()
    root = args.root.resolve()
    cmds = commands(root / "docs" / "adding-a-target.md")
    if not (args.vectors / "nist-cavp").is_dir():
        print(f"porter_path: no test vectors at {args.vectors}")
        return 1 if args.require_vectors else SKIPPED

    scratch = args.scratch.resolve()
    shutil.rmtree(scratch, ignore_errors=True)
    copy_tree(root, scratch / "aesgen")
    (scratch / "shared").mkdir(parents=True)
    (scratch / "shared" / "vectors").symlink_to(args.vectors.resolve())
    env = dict(os.environ)
    # `python3` in the doc is the one with Jinja2 the build uses
    env["PATH"] = f"{Path(args.python).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("AESGEN_BACKEND", None)
    env.pop("AESGEN_CPU_DISABLE", None)

    skipped = 0
    for i, cmd in enumerate(cmds, 1):
        t0 = time.monotonic()
        done = subprocess.run(["sh", "-c", cmd], cwd=scratch / "aesgen", env=env,
                              capture_output=True, text=True)
        took = time.monotonic() - t0
        if done.returncode == SKIPPED and "skipped" in (done.stdout + done.stderr):
            skipped += 1
            print(f"[{i}/{len(cmds)}] skipped ({took:.0f} s): {cmd}\n    {done.stdout.strip().splitlines()[-1]}")
            continue
        if done.returncode != 0:
            print(f"[{i}/{len(cmds)}] FAILED with exit {done.returncode} ({took:.0f} s): {cmd}")
            print(done.stdout[-4000:], done.stderr[-4000:], sep="\n")
            return 1
        last = (done.stdout.strip() or done.stderr.strip() or "(no output)").splitlines()[-1]
        print(f"[{i}/{len(cmds)}] ok ({took:.0f} s): {cmd}\n    {last}")
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"porter_path: {len(cmds)} commands of docs/adding-a-target.md passed"
          + (f", {skipped} skipped on this CPU" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
