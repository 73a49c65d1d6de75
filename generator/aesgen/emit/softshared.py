"""What the software variants (portable C and the SIMD ones) share, generated once under
generated/common/ instead of stamped into every variant:

- the key set-up per key size and round-key layout (fixsliced or bitsliced, 32- or
  64-bit words): the shared table-free key expansion (aesgen_setkey_aesN_forward), then
  the packing into slices. Encryption and decryption read the same packed keys, and the
  SIMD variants the same words as the portable ones.
- the one-lane batch core per key size, direction, algorithm, word, circuit and unroll:
  the portable variant's core is the program a SIMD variant runs on one lane (its core
  for CBC encryption and short tails), so both call one function.

Each file's programs run in the model against the reference AES before it is written.
"""

from __future__ import annotations

import functools
import zlib

from ..algorithm import aes, circuits
from ..algorithm.bitsliced import Layout
from ..ir import Loop, Program
from ..model import verify_block_cipher
from . import c, keysetup
from .base import SharedSource

MODEL_TRIALS = 2   # random keys per shared file, besides the FIPS-197 key


def setkey_symbol(key_bits: int, algorithm: str, word_bits: int) -> str:
    return f"aesgen_setkey_aes{key_bits}_{algorithm}{word_bits}"


def setkey_source(key_bits: int, algorithm: str, word_bits: int) -> SharedSource:
    return SharedSource(f"common/aes{key_bits}_setkey_{algorithm}{word_bits}.c",
                        lambda renderer, guard: render_setkey(key_bits, algorithm, word_bits, renderer, guard))


@functools.cache
def key_programs(key_bits: int, algorithm: str, word_bits: int) -> tuple[Program | Loop, ...]:
    """The shared forward expansion (memory rkb), then the packing (rkb -> rk) as loops.
    Built once per generator run and read-only after: every variant and shared file of
    these parameters runs the same objects."""
    return keysetup.programs(key_bits, "forward") + aes.pack_round_keys_rolled(Layout(word_bits), key_bits, algorithm)


@functools.cache
def lane_core(key_bits: int, direction: str, algorithm: str, word_bits: int, circuit: str,
              unroll: str) -> Program | Loop:
    """(Built once per generator run, read-only after.) One lane's batch: fixsliced encryption through S-box circuit `circuit`, or the
    `algorithm` decryption through inverse circuit `circuit`."""
    layout = Layout(word_bits)
    if direction == "enc":
        return aes.fixsliced_encrypt(layout, key_bits, circuits.load(circuit), unroll)
    return aes.decrypt(layout, key_bits, algorithm, circuits.load(circuit), unroll)


def core_name(key_bits: int, direction: str, algorithm: str, word_bits: int, circuit: str, unroll: str) -> str:
    suffix = "" if unroll == "full" else f"_{unroll}"
    return f"aes{key_bits}_{direction}_{algorithm}{word_bits}_{circuit}{suffix}"


def core_symbol(*args) -> str:
    return f"aesgen_core_{core_name(*args)}"


def core_source(key_bits: int, direction: str, algorithm: str, word_bits: int, circuit: str,
                unroll: str) -> SharedSource:
    args = (key_bits, direction, algorithm, word_bits, circuit, unroll)
    return SharedSource(f"common/{core_name(*args)}_core.c",
                        lambda renderer, guard: render_core(args, renderer, guard))


def render_setkey(key_bits: int, algorithm: str, word_bits: int, renderer, guard: str | None) -> str:
    progs = key_programs(key_bits, algorithm, word_bits)
    expand, packing = progs[0], progs[1:]
    schedule_bytes = 16 * (aes.rounds(key_bits) + 1)
    if expand.memory("rkb").length != schedule_bytes:
        raise ValueError(f"AES-{key_bits} expansion writes {expand.memory('rkb').length} bytes, "
                         f"not the {schedule_bytes} of the forward schedule")
    # the key set-up is checked with a core that reads it: the full-unroll lane core
    direction, circuit = ("enc", circuits.FORWARD[0]) if algorithm == "fixslice" else ("dec", circuits.INVERSE[0])
    core = lane_core(key_bits, direction, algorithm, word_bits, circuit, "full")
    name = setkey_symbol(key_bits, algorithm, word_bits)
    seed = zlib.crc32(name.encode())
    verify_block_cipher(name, key_bits, direction, progs, core, Layout(word_bits).blocks, MODEL_TRIALS, seed)
    summary = [
        f"AES-{key_bits} round keys for the {algorithm}d software variants on {word_bits}-bit words: "
        f"{aes.schedule_words(key_bits)} words, 8 slices per round key.",
        f"The forward expansion ({keysetup.symbol(key_bits, 'forward')}), then the packing: "
        + "; ".join(f"{p.name}, a loop of {p.times} over {p.static_alu_count()} operations written" for p in packing)
        + "; no table, no branch on the key.",
        f"Verified: the model ran it, then the {direction}ryption core, on the FIPS-197 key and "
        f"{MODEL_TRIALS} random keys (seed {seed:#010x}) against the reference AES.",
    ]
    return renderer.render("c_bitsliced/setkey.c.j2", summary=summary, context={
        "guard": guard, "symbol": name, "expand_symbol": keysetup.symbol(key_bits, "forward"),
        "word": c.word_type(word_bits), "schedule_words": aes.schedule_words(key_bits),
        "schedule_bytes": schedule_bytes,
        "pack": [line for p in packing for line in
                 ["    {"] + c.core_statements(p, lambda q, indent: c.statements(q, indent), c.word_type(word_bits),
                                             c.word_type(word_bits), "        ") + ["    }"]],
    })


def render_core(args: tuple, renderer, guard: str | None) -> str:
    key_bits, direction, algorithm, word_bits, circuit, unroll = args
    core = lane_core(*args)
    name = core_symbol(*args)
    seed = zlib.crc32(name.encode())
    blocks = Layout(word_bits).blocks
    verify_block_cipher(name, key_bits, direction, key_programs(key_bits, algorithm, word_bits), core,
                        blocks, MODEL_TRIALS, seed)
    word = c.word_type(word_bits)
    ops = core.alu_count()
    summary = [
        f"AES-{key_bits} {direction}ryption, {algorithm}d, {word_bits}-bit words: {blocks} blocks per call "
        f"({'S-box' if direction == 'enc' else 'inverse S-box'} circuit {circuit}, unroll {unroll}).",
        f"{ops} logic operations per batch ({ops / (16 * blocks):.1f} per byte), "
        f"{core.count('ld', 'ldw')} loads, {core.count('st')} stores; round keys from "
        f"{setkey_symbol(key_bits, algorithm, word_bits)}.",
        "The portable variant's batch and the SIMD variants' one-lane core (CBC encryption, short tails).",
        f"Verified: the model ran it on the FIPS-197 key and {MODEL_TRIALS} random keys "
        f"(seed {seed:#010x}) against the reference AES.",
    ]
    return renderer.render("c_bitsliced/core.c.j2", summary=summary, context={
        "guard": guard, "symbol": name, "word": word,
        "core": c.core_statements(core, lambda p, indent: c.statements(p, indent), word, word),
    })


def sources(key_bits: int, direction: str, algorithm: str, word_bits: int, circuit: str,
            unroll: str) -> list[SharedSource]:
    """Every shared file a software variant with these parameters calls into."""
    return [keysetup.source(key_bits, "forward"), setkey_source(key_bits, algorithm, word_bits),
            core_source(key_bits, direction, algorithm, word_bits, circuit, unroll)]
