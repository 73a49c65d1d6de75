"""Emitter `c_bitsliced`: portable constant-time C11 over 32- or 64-bit words.

No intrinsics and no assembly: fixsliced encryption and fixsliced or bitsliced
inverse-round decryption, each fully unrolled per key size or rolled into a loop over
the 4-round period (`unroll`), with a table-free key schedule. Each
variant's programs are executed by the model before the file is rendered.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from ..algorithm import aes, circuits
from ..algorithm.bitsliced import Layout
from ..ir import KeySizeLoop, Loop, Program
from ..features import c_mask
from ..model import verify_block_cipher
from ..space import ALGORITHM_LISTS, Space
from ..targets import Field, Target, one_of
from ..variants import Variant, unroll_param
from . import c, softshared
from .base import Emitter, SharedSource

KEY_BITS = (128, 192, 256)
WORD_BITS = (32, 64)
MODEL_TRIALS = 4   # random keys per variant, besides the FIPS-197 key
# Scalar logic operations issued per cycle, for the issue bound aesgen-bench prints: the
# four integer ALUs of current x86-64 and wide AArch64 cores.
SCALAR_LOGIC_PER_CYCLE = 4


@dataclass(frozen=True)
class Built:
    variant: Variant
    layout: Layout
    key_programs: tuple[Program | Loop | KeySizeLoop, ...]   # expansion (32-bit), then round-key packing (loops)
    core: Program | Loop | KeySizeLoop


# every unroll listed is emitted; the first is the default (dispatch prefers it, and a
# build without -DAESGEN_UNROLL keeps it: pipeline.default_unroll)
UNROLL_FIELD = Field(list, item=str, required=False, default=["full"], check=one_of(aes.UNROLLS, "unroll"))


def software_variants(target: Target, spec: dict, params, how) -> list[Variant]:
    """Variants of a software target, for each (key size, direction, algorithm, unroll):
    `params(algorithm)` the emitter's parameters, `how(algorithm)` the name before the
    unroll suffix. Rank: the target's, plus the algorithm's place in its list, plus its
    unroll's place times the list's length (the first unroll's variants first)."""
    out = []
    for key_bits in spec["key_bits"]:
        for direction, algorithms in (("enc", spec["encrypt"]), ("dec", spec["decrypt"])):
            for later, unroll in enumerate(spec["unroll"]):
                extra, suffix = unroll_param(unroll)
                for preference, algorithm in enumerate(algorithms):
                    out.append(Variant(target, key_bits, direction, how(algorithm) + suffix,
                                       params(algorithm) + extra,
                                       target.rank + preference + later * len(algorithms)))
    return out


def circuit_of(v: Variant) -> str:
    """The circuit a software variant's core runs: the S-box, or the inverse for decryption."""
    return v.target.sections["circuits"]["sbox" if v.direction == "enc" else "inv_sbox"]


def shared_args(v: Variant, word_bits: int) -> tuple:
    """The parameters of the shared key set-up and lane core (softshared) a variant uses."""
    return (v.key_bits, v.direction, v.param("algorithm"), word_bits, circuit_of(v), v.param("unroll", "full"))


def shared_summary(v: Variant, word_bits: int) -> list[str]:
    """The header lines naming the shared key set-up and lane core."""
    args = shared_args(v, word_bits)
    return [f"Key set-up {softshared.setkey_symbol(v.key_bits, v.param('algorithm'), word_bits)} and lane core "
            f"{softshared.core_symbol(*args)}: shared, in generated/common/."]


def lane_core_facts(v: Variant, word_bits: int) -> dict:
    """What a variant's template needs of its shared lane core: the symbol, the round count
    it passes when one function serves every key size (else None), and the name it calls."""
    args = shared_args(v, word_bits)
    symbol = softshared.core_symbol(*args)
    if not softshared.any_size(v.direction, v.param("algorithm"), v.param("unroll", "full")):
        return {"symbol": symbol, "rounds": None, "call": symbol}
    return {"symbol": symbol, "rounds": aes.rounds(v.key_bits), "call": f"{v.name}_lane"}


def rolled_summary(v: Variant, core: Program | Loop | KeySizeLoop) -> list[str]:
    """The header line that names a rolled core's unroll (none for a straight-line one)."""
    if isinstance(core, Program):
        return []
    if isinstance(core, KeySizeLoop):
        return [f"Unroll {v.param('unroll')}: one core for every key size (shared), fixslicing's 4-round period "
                f"in a loop whose trip count and exit depend on the round count: {core.static_alu_count()} "
                f"operations written, {softshared.executed(core, v.key_bits)} executed per batch."]
    return [f"Unroll {v.param('unroll')}: a loop of {core.times} iterations over fixslicing's 4-round period "
            f"({core.body.alu_count()} operations written once), the other rounds straight-line: "
            f"{core.static_alu_count()} operations written, {core.alu_count()} executed per batch."]


def rolled_info(v: Variant) -> str:
    """What the runtime's info string adds for a rolled variant."""
    unroll = v.param("unroll", "full")
    return "" if unroll == "full" else f", rolled ({unroll})"


class CBitslicedEmitter(Emitter):
    name = "c_bitsliced"
    template = "c_bitsliced/variant.c.j2"
    parameters = ("algorithm", "word_bits", "blocks")
    cpu_features: tuple[str, ...] = ()
    # word_bits names the backend (portable32, portable64) and both stay, so only the
    # decryption algorithm is a choice
    sweep = Space(values={"decrypt": ("fixslice", "bitslice"), "unroll": aes.UNROLLS}, **ALGORITHM_LISTS)
    schema = {
        "variants": {
            "key_bits": Field(list, item=int, check=one_of(KEY_BITS, "key size")),
            "word_bits": Field(list, item=int, check=one_of(WORD_BITS, "word width for emitter 'c_bitsliced'")),
            "encrypt": Field(list, item=str, check=one_of(aes.ENCRYPT_ALGORITHMS, "encryption algorithm")),
            "decrypt": Field(list, item=str, check=one_of(aes.DECRYPT_ALGORITHMS, "decryption algorithm")),
            "unroll": UNROLL_FIELD,
        },
        "circuits": {
            "sbox": Field(str, check=one_of(circuits.FORWARD, "S-box circuit")),
            "inv_sbox": Field(str, check=one_of(circuits.INVERSE, "inverse S-box circuit")),
        },
    }

    def validate(self, target: Target) -> None:
        for key in ("sbox", "inv_sbox"):
            try:
                circuits.load(target.sections["circuits"][key])
            except circuits.CircuitError as e:
                raise target.error(f"circuits.{key}", str(e)) from None

    def variants(self, target: Target) -> list[Variant]:
        spec = target.sections["variants"]
        out = []
        for word_bits in spec["word_bits"]:
            out += software_variants(
                target, spec, lambda a: (("algorithm", a), ("word_bits", word_bits), ("blocks", word_bits // 16)),
                lambda a: f"{a}{word_bits}")
        return out

    processor = None       # every processor
    compile_guard = None   # portable C compiles everywhere

    def outputs(self, variant: Variant) -> list[str]:
        return [f"{variant.target.ident}/{variant.name}.c"]

    def build(self, variant: Variant) -> Built:
        word_bits = variant.param("word_bits")
        args = shared_args(variant, word_bits)
        key_programs = softshared.key_programs(variant.key_bits, variant.param("algorithm"), word_bits)
        return Built(variant, Layout(word_bits), key_programs, softshared.lane_core(*args))

    def shared(self, variant: Variant) -> list[SharedSource]:
        return softshared.sources(*shared_args(variant, variant.param("word_bits")))

    def verify(self, built: Built) -> str:
        """Execute the programs in the model; returns the line the header quotes."""
        v = built.variant
        seed = zlib.crc32(v.name.encode())
        verify_block_cipher(v.name, v.key_bits, v.direction, built.key_programs, built.core,
                            built.layout.blocks, MODEL_TRIALS, seed)
        return (f"the model ran these exact operations on the FIPS-197 key and {MODEL_TRIALS} random keys "
                f"(seed {seed:#010x}), {built.layout.blocks} blocks each, against the reference AES")

    def render(self, built: Built, renderer, verified: str) -> list[tuple[str, str]]:
        v = built.variant
        expand, *packing = built.key_programs
        word = c.word_type(built.layout.word_bits)
        core_ops = softshared.executed(built.core, v.key_bits)
        t = v.target.sections["circuits"]
        summary = [
            f"S-box circuit {t['sbox']} and inverse {t['inv_sbox']} (circuits in generator/aesgen/algorithm/circuits/),",
            "emitted with the 0x63 constant folded into round keys 1..Nr.",
            f"Core: {core_ops} logic operations per {built.layout.blocks}-block batch "
            f"({core_ops / (16 * built.layout.blocks):.1f} per byte), "
            f"{softshared.executed(built.core, v.key_bits, 'ld', 'ldw')} loads, "
            f"{softshared.executed(built.core, v.key_bits, 'st')} stores.",
            f"Key set-up: {expand.alu_count()} operations of expansion, "
            f"{sum(softshared.executed(p, v.key_bits) for p in packing)} of packing.",
            *shared_summary(v, built.layout.word_bits),
            *rolled_summary(v, built.core),
            f"Verified: {verified}.",
        ]
        facts = {
            "name": v.name, "symbol": v.symbol, "backend": v.backend, "key_bits": v.key_bits,
            "direction": 0 if v.direction == "enc" else 1, "word_bits": built.layout.word_bits,
            "blocks": built.layout.blocks, "rank": v.rank, "features": c_mask(v.target.cpu_features),
            "core_ops": core_ops, "issue_per_cycle": SCALAR_LOGIC_PER_CYCLE,
            "schedule_words": aes.schedule_words(v.key_bits),
            "info": f"{v.param('algorithm')}d, {built.layout.word_bits}-bit words, "
                    f"{built.layout.blocks} blocks per batch, {core_ops} logic ops per batch"
                    + rolled_info(v),
        }
        text = renderer.render(self.template, variant=v, summary=summary, context={
            "v": facts, "word": word,
            "setkey": softshared.setkey_symbol(v.key_bits, v.param("algorithm"), built.layout.word_bits),
            "core": lane_core_facts(v, built.layout.word_bits),
        })
        return [(self.outputs(v)[0], text)]
