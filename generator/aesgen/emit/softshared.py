"""What the software variants (portable C and the SIMD ones) share, generated once under
generated/common/ instead of stamped into every variant:

- the key set-up per key size and round-key layout (fixsliced or bitsliced, 32- or
  64-bit words): the shared table-free key expansion (aesgen_setkey_aesN_forward), then
  the packing into slices, one function for every key size (aesgen_pack_<layout>, the
  round count an argument). Encryption and decryption read the same packed keys, and
  the SIMD variants the same words as the portable ones.
- the one-lane batch core per key size, direction, algorithm, word, circuit and unroll:
  the portable variant's core is the program a SIMD variant runs on one lane (its core
  for CBC encryption and short tails), so both call one function. A rolled fixsliced
  core is one function for every key size (the round count an argument).

Each file's programs run in the model against the reference AES before it is written.
"""

from __future__ import annotations

import functools
import zlib

from ..algorithm import aes, circuits
from ..algorithm.bitsliced import Layout
from ..ir import KeySizeLoop, Loop, Program
from ..model import verify_block_cipher
from . import c, keysetup
from .base import SharedSource

MODEL_TRIALS = 2   # random keys per shared file, besides the FIPS-197 key


def setkey_symbol(key_bits: int, algorithm: str, word_bits: int) -> str:
    return f"aesgen_setkey_aes{key_bits}_{algorithm}{word_bits}"


def setkey_source(key_bits: int, algorithm: str, word_bits: int) -> SharedSource:
    return SharedSource(f"common/aes{key_bits}_setkey_{algorithm}{word_bits}.c",
                        lambda renderer, guard: render_setkey(key_bits, algorithm, word_bits, renderer, guard))


def pack_symbol(algorithm: str, word_bits: int) -> str:
    return f"aesgen_pack_{algorithm}{word_bits}"


def pack_source(algorithm: str, word_bits: int) -> SharedSource:
    return SharedSource(f"common/pack_{algorithm}{word_bits}.c",
                        lambda renderer, guard: render_pack(algorithm, word_bits, renderer, guard))


@functools.cache
def packing(algorithm: str, word_bits: int) -> tuple[KeySizeLoop, ...]:
    """The round-key packing for every key size (built once per generator run, read-only after)."""
    return aes.pack_round_keys_any_size(Layout(word_bits), algorithm)


@functools.cache
def key_programs(key_bits: int, algorithm: str, word_bits: int) -> tuple[Program | Loop | KeySizeLoop, ...]:
    """The shared forward expansion (memory rkb), then the packing (rkb -> rk) as loops.
    Built once per generator run and read-only after: every variant and shared file of
    these parameters runs the same objects."""
    return keysetup.programs(key_bits, "forward") + packing(algorithm, word_bits)


def any_size(direction: str, algorithm: str, unroll: str) -> bool:
    """Whether the lane core of these parameters is one function for every key size."""
    return unroll == "loop4" and algorithm == "fixslice"


@functools.cache
def _any_size_core(direction: str, word_bits: int, circuit: str) -> KeySizeLoop:
    layout = Layout(word_bits)
    if direction == "enc":
        return aes.fixsliced_encrypt_any_size(layout, circuits.load(circuit))
    return aes.fixsliced_decrypt_any_size(layout, circuits.load(circuit))


@functools.cache
def lane_program(key_bits: int, direction: str, algorithm: str, word_bits: int, circuit: str,
                 unroll: str) -> Program | Loop:
    """(Built once per generator run, read-only after.) One lane's batch for one key size:
    fixsliced encryption through S-box circuit `circuit`, or the `algorithm` decryption
    through inverse circuit `circuit`. The SIMD variants vectorize it."""
    layout = Layout(word_bits)
    if direction == "enc":
        return aes.fixsliced_encrypt(layout, key_bits, circuits.load(circuit), unroll)
    return aes.decrypt(layout, key_bits, algorithm, circuits.load(circuit), unroll)


def lane_core(key_bits: int, direction: str, algorithm: str, word_bits: int, circuit: str,
              unroll: str) -> Program | Loop | KeySizeLoop:
    """The shared one-lane core a variant of these parameters calls: lane_program, or
    for a rolled fixsliced core the one for every key size."""
    if any_size(direction, algorithm, unroll):
        return _any_size_core(direction, word_bits, circuit)
    return lane_program(key_bits, direction, algorithm, word_bits, circuit, unroll)


def core_name(key_bits: int, direction: str, algorithm: str, word_bits: int, circuit: str, unroll: str) -> str:
    suffix = "" if unroll == "full" else f"_{unroll}"
    size = "" if any_size(direction, algorithm, unroll) else f"aes{key_bits}_"
    return f"{size}{direction}_{algorithm}{word_bits}_{circuit}{suffix}"


def symbol_of(name: str) -> str:
    """The C symbol of the shared core named `name` (core_name, c_simd.shared_core_name)."""
    return f"aesgen_core_{name}"


def core_symbol(*args) -> str:
    return symbol_of(core_name(*args))


def core_source(key_bits: int, direction: str, algorithm: str, word_bits: int, circuit: str,
                unroll: str) -> SharedSource:
    args = (key_bits, direction, algorithm, word_bits, circuit, unroll)
    return SharedSource(f"common/{core_name(*args)}_core.c",
                        lambda renderer, guard: render_core(args, renderer, guard))


def executed(core: Program | Loop | KeySizeLoop, key_bits: int, *codes: str) -> int:
    """Operations a batch executes for this key size: ALU operations, or those of `codes`."""
    if isinstance(core, KeySizeLoop):
        nr = aes.rounds(key_bits)
        return core.count(nr, *codes) if codes else core.alu_count(nr)
    return core.count(*codes) if codes else core.alu_count()


def _reader(algorithm: str) -> tuple[str, str]:
    """The direction and circuit of the full-unroll lane core a key set-up is checked with:
    a core that reads that layout's round keys."""
    return ("enc", circuits.FORWARD[0]) if algorithm == "fixslice" else ("dec", circuits.INVERSE[0])


def render_setkey(key_bits: int, algorithm: str, word_bits: int, renderer, guard: str | None) -> str:
    progs = key_programs(key_bits, algorithm, word_bits)
    expand = progs[0]
    schedule_bytes = 16 * (aes.rounds(key_bits) + 1)
    if expand.memory("rkb").length != schedule_bytes:
        raise ValueError(f"AES-{key_bits} expansion writes {expand.memory('rkb').length} bytes, "
                         f"not the {schedule_bytes} of the forward schedule")
    direction, circuit = _reader(algorithm)
    core = lane_core(key_bits, direction, algorithm, word_bits, circuit, "full")
    name = setkey_symbol(key_bits, algorithm, word_bits)
    seed = zlib.crc32(name.encode())
    verify_block_cipher(name, key_bits, direction, progs, core, Layout(word_bits).blocks, MODEL_TRIALS, seed)
    summary = [
        f"AES-{key_bits} round keys for the {algorithm}d software variants on {word_bits}-bit words: "
        f"{aes.schedule_words(key_bits)} words, 8 slices per round key.",
        f"The forward expansion ({keysetup.symbol(key_bits, 'forward')}), then the packing every key size "
        f"shares ({pack_symbol(algorithm, word_bits)}); no table, no branch on the key.",
        f"Verified: the model ran it, then the {direction}ryption core, on the FIPS-197 key and "
        f"{MODEL_TRIALS} random keys (seed {seed:#010x}) against the reference AES.",
    ]
    return renderer.render("c_bitsliced/setkey.c.j2", summary=summary, context={
        "guard": guard, "symbol": name, "expand_symbol": keysetup.symbol(key_bits, "forward"),
        "pack_symbol": pack_symbol(algorithm, word_bits), "rounds": aes.rounds(key_bits),
        "word": c.word_type(word_bits), "schedule_words": aes.schedule_words(key_bits),
        "schedule_bytes": schedule_bytes,
    })


def render_pack(algorithm: str, word_bits: int, renderer, guard: str | None) -> str:
    loops = packing(algorithm, word_bits)
    direction, circuit = _reader(algorithm)
    name = pack_symbol(algorithm, word_bits)
    seed = zlib.crc32(name.encode())
    for key_bits in loops[0].key_bits:
        core = lane_core(key_bits, direction, algorithm, word_bits, circuit, "full")
        verify_block_cipher(name, key_bits, direction, key_programs(key_bits, algorithm, word_bits), core,
                            Layout(word_bits).blocks, MODEL_TRIALS, seed)
    word = c.word_type(word_bits)
    summary = [
        f"Round-key packing for the {algorithm}d software variants on {word_bits}-bit words, every key "
        "size in one function (nr: 10, 12 or 14): the forward schedule (rkb) into 8 slices per round key (rk).",
        "; ".join(f"{p.name}: {p.static_alu_count()} operations written" for p in loops) + ".",
        f"Verified: the model ran it for AES-128, -192 and -256, then the {direction}ryption core, on the "
        f"FIPS-197 key and {MODEL_TRIALS} random keys each (seed {seed:#010x}) against the reference AES.",
    ]
    return renderer.render("c_bitsliced/pack.c.j2", summary=summary, context={
        "guard": guard, "symbol": name, "word": word,
        "pack": [line for p in loops for line in c.key_size_loop_statements(p, word)],
    })


def render_core(args: tuple, renderer, guard: str | None) -> str:
    key_bits, direction, algorithm, word_bits, circuit, unroll = args
    core = lane_core(*args)
    name = core_symbol(*args)
    seed = zlib.crc32(name.encode())
    blocks = Layout(word_bits).blocks
    word = c.word_type(word_bits)
    sizes = core.key_bits if isinstance(core, KeySizeLoop) else (key_bits,)
    for size in sizes:
        verify_block_cipher(name, size, direction, key_programs(size, algorithm, word_bits), core,
                            blocks, MODEL_TRIALS, seed)
    what = f"{direction}ryption, {algorithm}d, {word_bits}-bit words: {blocks} blocks per call " \
           f"({'S-box' if direction == 'enc' else 'inverse S-box'} circuit {circuit}, unroll {unroll})."
    if isinstance(core, KeySizeLoop):
        summary = [
            f"AES-128, -192 and -256 {what}",
            f"One function for every key size, the round count nr an argument: {core.static_alu_count()} "
            "logic operations written; per batch "
            + ", ".join(f"{executed(core, b)} for AES-{b} ({executed(core, b) / (16 * blocks):.1f} per byte)"
                        for b in sizes) + f"; round keys from aesgen_setkey_aesN_{algorithm}{word_bits}.",
        ]
        body = c.key_size_loop_statements(core, word)
    else:
        ops = core.alu_count()
        summary = [
            f"AES-{key_bits} {what}",
            f"{ops} logic operations per batch ({ops / (16 * blocks):.1f} per byte), "
            f"{core.count('ld', 'ldw')} loads, {core.count('st')} stores; round keys from "
            f"{setkey_symbol(key_bits, algorithm, word_bits)}.",
        ]
        body = c.core_statements(core, lambda p, indent: c.statements(p, indent), word, word)
    summary += [
        "The portable variant's batch and the SIMD variants' one-lane core (CBC encryption, short tails).",
        f"Verified: the model ran it on the FIPS-197 key and {MODEL_TRIALS} random keys "
        f"(seed {seed:#010x})" + (" for each key size" if len(sizes) > 1 else "") + " against the reference AES.",
    ]
    return renderer.render("c_bitsliced/core.c.j2", summary=summary, context={
        "guard": guard, "symbol": name, "word": word, "any_size": isinstance(core, KeySizeLoop), "core": body,
    })


def sources(key_bits: int, direction: str, algorithm: str, word_bits: int, circuit: str,
            unroll: str) -> list[SharedSource]:
    """Every shared file a software variant with these parameters calls into."""
    return [keysetup.source(key_bits, "forward"), setkey_source(key_bits, algorithm, word_bits),
            pack_source(algorithm, word_bits), core_source(key_bits, direction, algorithm, word_bits, circuit, unroll)]
