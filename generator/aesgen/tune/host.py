"""What machine a measurement comes from: CPU model, a family name for profiles, the
compiler. Read from /proc/cpuinfo and the compiler itself; nothing is guessed silently."""

from __future__ import annotations

import platform
import re
import subprocess
from pathlib import Path

def cpuinfo(path: Path = Path("/proc/cpuinfo")) -> dict[str, str]:
    """The first processor's fields."""
    fields: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return fields
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        k, _, v = line.partition(":")
        fields.setdefault(k.strip(), v.strip())
    return fields


def _int(s: str | None) -> int | None:
    try:
        return int(s, 0) if s else None
    except ValueError:
        return None


def cpu_family(info: dict[str, str], machine: str | None = None) -> str:
    """A profile name from what the CPU reports: vendor, family and model numbers, e.g.
    amd-family19h-model01h, intel-family6h-model8fh, aarch64-0x41-0xd08. Numbers rather
    than marketing names: a virtual machine may report a family its host is not."""
    machine = machine or platform.machine()
    vendor = info.get("vendor_id", "")
    fam, model = _int(info.get("cpu family")), _int(info.get("model"))
    if vendor in ("AuthenticAMD", "GenuineIntel") and fam is not None and model is not None:
        return f"{'amd' if vendor == 'AuthenticAMD' else 'intel'}-family{fam:x}h-model{model:02x}h"
    if "CPU implementer" in info:
        return f"{machine}-{info['CPU implementer']}-{info.get('CPU part', 'unknown')}"
    return re.sub(r"[^a-z0-9_-]+", "-", machine.lower()) or "unknown"


def cpu_model(info: dict[str, str]) -> str:
    return info.get("model name") or info.get("cpu") or info.get("Processor") or platform.processor() or "unknown"


def compiler_version(cc: str = "cc") -> str:
    try:
        out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.splitlines()[0].strip() if out else "unknown"
