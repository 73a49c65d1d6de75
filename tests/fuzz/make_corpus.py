#!/usr/bin/env python3
"""Write the seed corpus of fuzz_differential (tests/fuzz/corpus/) deterministically.

    python3 tests/fuzz/make_corpus.py [DIR]     (default: tests/fuzz/corpus next to this file)

Each seed follows the input layout documented at the top of fuzz_test.c. The
seeds cover every mode and key size, several subject slots (the fuzzer maps the
selector byte onto the backends and variants the CPU runs), the four counter forms
(raw, next to the 2^32, 2^64 and 2^128 carries), lengths around block and batch
sizes, odd offsets, in place, 1 to 8 pieces, and the error probes. The contents come
from a fixed-seed PRNG, so rerunning the script rewrites the same bytes.
"""
import random
import struct
import sys
from pathlib import Path

HEADER = 65


def seed(rng, subject, key_sel, mode, flags, length, offs, pieces, cuts, before, msg_len):
    head = bytes([subject, key_sel, mode, flags]) + struct.pack("<H", length) + bytes([offs, pieces])
    head += bytes(cuts[:8]).ljust(8, b"\0")
    head += rng.randbytes(32) + rng.randbytes(16) + bytes([before])
    assert len(head) == HEADER
    return head + rng.randbytes(msg_len)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "corpus"
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0x61657367)
    seeds = []
    lengths = [0, 1, 15, 16, 17, 31, 32, 48, 127, 128, 129, 255, 256, 257, 511, 512, 1000, 4096]
    i = 0
    for mode in range(5):
        for key_sel in range(3):
            length = lengths[i % len(lengths)]
            flags = (i & 1) | (((i >> 1) & 3) << 4) | (2 if mode < 4 and i % 3 == 0 else 0) | (4 if i % 4 == 1 else 0)
            seeds.append(seed(rng, subject=i * 7 % 256, key_sel=key_sel, mode=mode, flags=flags, length=length,
                              offs=(i * 5) & 0xff, pieces=i % 8, cuts=[rng.randrange(256) for _ in range(8)],
                              before=i % 64, msg_len=min(length, 64)))
            i += 1
    # CTR next to each carry, streamed over several pieces with partial blocks
    for form in (1, 2, 3):
        for before in (1, 2, 7, 33):
            length = 16 * before + 23
            seeds.append(seed(rng, subject=form * 11 + before, key_sel=before % 3, mode=4, flags=form << 4,
                              length=length, offs=0x31 * form, pieces=5, cuts=[3, 17, 40, 99, 200, 0, 0, 0],
                              before=before - 1, msg_len=16))
    # every subject slot the first bytes can reach on a large CPU, with a long message
    for s in range(0, 40, 3):
        seeds.append(seed(rng, subject=s, key_sel=s % 3, mode=s % 5, flags=0x01 if s % 2 else 0,
                          length=4096 - s, offs=s, pieces=3, cuts=[85, 170, 0, 0, 0, 0, 0, 0],
                          before=0, msg_len=32))
    for old in out.glob("seed-*"):
        old.unlink()
    for n, data in enumerate(seeds):
        (out / f"seed-{n:03d}").write_bytes(data)
    print(f"{len(seeds)} seeds written to {out}")


if __name__ == "__main__":
    main()
