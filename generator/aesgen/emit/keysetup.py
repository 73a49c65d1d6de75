"""The table-free C key set-up of the hardware loops whose ISA has no key-expansion
instruction: one shared file per key size and round-key order under generated/common/,
instead of a copy in every variant.

Orders: "forward" (k0..kNr, what encryption reads), "equivalent_inverse" (FIPS-197
5.3.5: kNr, InvMixColumns(kNr-1), ..., k0, for x86 and ARM decryption) and "reversed"
(kNr..k0, for POWER8's vncipher and the SPARC T4's dround, which add the key before
InvMixColumns). The programs come from algorithm/aes.py; the model runs them against
the reference key expansion before the file is written. The expansion is a loop over
rows of Nk words (algorithm/aes.py key_expansion_rolled): it runs once per key, and
written out it was 8 to 13 KB per key size.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

from .. import reference
from ..algorithm import aes, circuits
from ..ir import Loop, Program
from ..model import check_core, expect_equal, run
from . import c
from .base import SharedSource

SCHEDULE_NOTE = {"forward": "", "equivalent_inverse": " (equivalent inverse cipher)",
                 "reversed": " (encryption keys in reverse order)"}
TEMPLATE = "hwloop/setkey.c.j2"
MODEL_KEYS = 3


@functools.cache
def programs(key_bits: int, order: str) -> tuple[Program | Loop, ...]:
    """The key set-up writing the schedule in `order`: memory "rkb" for forward, "drk"
    for the others (through the forward schedule in "rkb"). Built and checked once per
    generator run, read-only after (the model runs them for every key of every check)."""
    expand = aes.key_expansion_rolled(key_bits, circuits.load("bp113"))
    if order == "forward":
        progs = (expand,)
    elif order == "equivalent_inverse":
        progs = (expand, aes.equivalent_inverse_keys(key_bits))
    elif order == "reversed":
        progs = (expand, aes.reversed_round_keys(key_bits))
    else:
        raise ValueError(order)
    for p in progs:
        check_core(p)
    return progs


def output(order: str) -> str:
    return "rkb" if order == "forward" else "drk"


def run_programs(key_programs: Sequence[Program | Loop], key: bytes, out: str) -> bytes:
    """Run the key set-up programs (as `programs` returns them: checked) in the model;
    return the schedule memory `out`."""
    mem: dict = {"key": bytearray(key)}
    for p in key_programs:
        for m in p.memories:
            mem.setdefault(m.name, bytearray(m.length) if m.kind == "bytes" else [0] * m.length)
        run(p, mem, checked=True)
    return bytes(mem[out])


def reference_schedule(key: bytes, order: str) -> bytes:
    """The round keys a key set-up of this order must write."""
    keys = list(reference.expand_key(key))
    if order == "reversed":
        keys.reverse()
    elif order == "equivalent_inverse":
        nr = len(keys) - 1
        keys = [keys[nr]] + [reference.mix_columns(keys[nr - i], inverse=True) for i in range(1, nr)] + [keys[0]]
    elif order != "forward":
        raise ValueError(order)
    return b"".join(keys)


def symbol(key_bits: int, order: str) -> str:
    return f"aesgen_setkey_aes{key_bits}_{order}"


def source(key_bits: int, order: str) -> SharedSource:
    return SharedSource(f"common/aes{key_bits}_setkey_{order}.c",
                        lambda renderer, guard: render(key_bits, order, renderer, guard))


def render(key_bits: int, order: str, renderer, guard: str | None) -> str:
    progs = programs(key_bits, order)
    rng = random.Random(key_bits * 7 + len(order))
    keys = [bytes(range(key_bits // 8))] + [rng.randbytes(key_bits // 8) for _ in range(MODEL_KEYS - 1)]
    name = symbol(key_bits, order)
    for key in keys:
        expect_equal(f"{name}: key {key.hex()}", run_programs(progs, key, output(order)),
                     reference_schedule(key, order))
    expand = progs[0]
    schedule_bytes = 16 * (reference.rounds_for(key_bits) + 1)
    summary = [f"AES-{key_bits} round keys, {order.replace('_', ' ')} order: {schedule_bytes} bytes"
               f"{SCHEDULE_NOTE[order]}, for the hardware loops that read them from memory.",
               f"Key expansion on 32-bit words, SubWord through the S-box circuit: no table, no "
               f"branch on the key; a loop over {expand.times} rows of {key_bits // 32} words "
               f"({expand.static_alu_count()} operations written).",
               f"Verified: the model ran it on the FIPS-197 key and {MODEL_KEYS - 1} random keys against "
               f"the reference key expansion."]
    return renderer.render(TEMPLATE, summary=summary, context={
        "guard": guard, "symbol": name, "forward": order == "forward",
        "schedule_bytes": schedule_bytes, "schedule_note": SCHEDULE_NOTE[order],
        "expand": c.core_statements(expand, lambda p, indent: c.statements(p, indent), "uint32_t", "uint32_t"),
        "expanded_bytes": expand.memory("rkb").length,
        "inverse": c.statements(progs[1]) if len(progs) > 1 else [],
    })
