#!/usr/bin/env python3
"""Write the seed corpus of fuzz_differential (tests/fuzz/corpus/) deterministically.

    python3 tests/fuzz/make_corpus.py [DIR]     (default: tests/fuzz/corpus next to this file)

Each seed follows the input layout documented at the top of fuzz_test.c. The
seeds cover every mode and key size, several subject slots (the fuzzer maps the
selector byte onto the backends and variants the CPU runs), the four counter forms
(raw, next to the 2^32, 2^64 and 2^128 carries), lengths around block and batch
sizes, odd offsets, in place, 1 to 8 pieces, and the error probes. The contents come
from a fixed-seed PRNG, so rerunning the script rewrites the same bytes.

The GCM seeds (modes 5 and 6; after the others and from a PRNG of their own, so that
the seeds above keep their bytes) cover seal and open, every key size and tag length,
GHASH selectors, IV lengths 12 and 1..80, AAD and text lengths around blocks (0 to
1024 and 4096), one-shot and streamed with up to 8 AAD and 8 text pieces, in place,
offsets, the invalid-tag-length and overlap probes, and each kind of tampering.

The XTS seeds (modes 7 and 8; last, from a PRNG of their own) cover encryption and
decryption, both key sizes, one unit at lengths around the block, the stealing and the
64-block chunk (0..15 refused, 16..4096), many sectors with counts around the 64-tweak
group (1..255) and unit lengths 16..4096, each sector form (raw, small, next to the
2^32 carry, ending at 2^64 - 1), decryption-variant selectors, in place, offsets, and
the weak-key, length and overlap probes.
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


GCM_IV_LENGTHS = [12, 1, 8, 11, 13, 16, 17, 32, 60, 80]
GCM_AAD_LENGTHS = [0, 1, 13, 16, 17, 31, 48, 64, 100, 255, 1024]
GCM_TEXT_LENGTHS = [0, 1, 15, 16, 17, 31, 32, 63, 64, 65, 127, 128, 255, 256, 1000, 4096]
SEAL, OPEN = 5, 6
IN_PLACE, PROBE_TAG, PROBE_OVERLAP, STREAMED = 1, 2, 4, 8


def gcm_seed(rng, subject, key_sel, mode, flags, length, offs, pieces, cuts, ghash, iv_len, aad_len, tag_sel,
             bad_tag_sel, aad_pieces, aad_cuts, tamper, tamper_pos, text_len):
    """A GCM input: the GCM fields at [48..64], then the payload: IV, AAD, text."""
    assert 1 <= iv_len <= 80 and 0 <= aad_len <= 1024 and 0 <= length <= 4096
    iv_sel = rng.randrange(128) if iv_len == 12 else 128 + iv_len - 1
    head = bytes([subject, key_sel, mode, flags]) + struct.pack("<H", length) + bytes([offs, pieces])
    head += bytes(cuts[:8]).ljust(8, b"\0")
    head += rng.randbytes(32)
    head += bytes([ghash, iv_sel]) + struct.pack("<H", aad_len) + bytes([tag_sel, bad_tag_sel, aad_pieces])
    head += bytes(aad_cuts[:7]).ljust(7, b"\0") + bytes([tamper]) + struct.pack("<H", tamper_pos)
    assert len(head) == HEADER
    return head + rng.randbytes(iv_len + aad_len + min(length, text_len))


def gcm_seeds():
    rng = random.Random(0x67636d66)  # "gcmf"
    seeds = []
    # every key size and tag length, seal and open, the IV, AAD and text lengths in turn
    for i in range(28):
        flags = (IN_PLACE if i % 3 == 1 else 0) | (PROBE_TAG if i % 4 == 0 else 0) | \
                (PROBE_OVERLAP if i % 5 == 2 else 0) | (STREAMED if (i >> 1) % 2 else 0)
        length = GCM_TEXT_LENGTHS[i % len(GCM_TEXT_LENGTHS)]
        seeds.append(gcm_seed(rng, subject=i * 5 % 256, key_sel=i % 3, mode=SEAL + i % 2, flags=flags,
                              length=length, offs=(i * 0x35) & 0xff, pieces=i % 8,
                              cuts=[rng.randrange(256) for _ in range(8)], ghash=i % 3,
                              iv_len=GCM_IV_LENGTHS[i % len(GCM_IV_LENGTHS)],
                              aad_len=GCM_AAD_LENGTHS[i % len(GCM_AAD_LENGTHS)], tag_sel=i % 7, bad_tag_sel=i % 16,
                              aad_pieces=(i * 3) % 8, aad_cuts=[rng.randrange(256) for _ in range(7)],
                              tamper=(i // 2) % 5, tamper_pos=rng.randrange(65536), text_len=64))
    # opens with each tampering, one-shot and streamed, 12-byte and other IVs
    for tamper in range(1, 5):
        for streamed in (0, STREAMED):
            seeds.append(gcm_seed(rng, subject=tamper * 9 + streamed, key_sel=tamper % 3, mode=OPEN,
                                  flags=streamed | (IN_PLACE if tamper % 2 else 0), length=100 + tamper,
                                  offs=0x17 * tamper, pieces=4, cuts=[30, 60, 90, 0, 0, 0, 0, 0], ghash=tamper % 3,
                                  iv_len=12 if streamed else 1 + 19 * tamper, aad_len=20 * tamper,
                                  tag_sel=tamper + 2, bad_tag_sel=0, aad_pieces=3, aad_cuts=[80, 160, 0, 0, 0, 0, 0],
                                  tamper=tamper, tamper_pos=rng.randrange(65536), text_len=104))
    # long streamed messages in all pieces, both probes
    for k in range(4):
        seeds.append(gcm_seed(rng, subject=40 + k * 3, key_sel=k % 3, mode=SEAL + k % 2,
                              flags=STREAMED | PROBE_TAG | PROBE_OVERLAP | (k & 1), length=4096 - 17 * k,
                              offs=k * 0x11 + 3, pieces=7, cuts=[rng.randrange(256) for _ in range(8)], ghash=k % 3,
                              iv_len=12 if k < 2 else 64, aad_len=1024 - 7 * k, tag_sel=k, bad_tag_sel=15 - k,
                              aad_pieces=7, aad_cuts=[rng.randrange(256) for _ in range(7)], tamper=1 + k,
                              tamper_pos=rng.randrange(65536), text_len=32))
    return seeds


XTS_ENC, XTS_DEC = 7, 8
STREAMS = 9
XTS_IN_PLACE, XTS_PROBE_LENGTH, XTS_PROBE_OVERLAP, XTS_SECTORS, XTS_WEAK = 1, 2, 4, 8, 16


def xts_seed(rng, subject, key_sel, mode, flags, length, offs, count_sel, dec_sel, sector_form, before, text_len):
    """An XTS input: [7] count selector, [8] decryption-variant selector, [48..63] the
    tweak (one unit) or the sector number (low 8 bytes), [64] units before the 2^32
    carry; the payload: key2 for AES-256-XTS (32 bytes), then the text."""
    head = bytes([subject, key_sel, mode, flags | sector_form << 5]) + struct.pack("<H", length)
    head += bytes([offs, count_sel, dec_sel]) + bytes(7)
    head += rng.randbytes(32) + rng.randbytes(16) + bytes([before])
    assert len(head) == HEADER
    return head + rng.randbytes(32 * (key_sel % 2) + text_len)


def xts_seeds():
    rng = random.Random(0x78747366)  # "xtsf"
    seeds = []
    # one unit: lengths around the block, the stealing and the 64-block chunk
    for i, length in enumerate([16, 17, 31, 32, 33, 63, 1023, 1024, 1025, 1039, 4095, 4096, 5]):
        flags = (XTS_IN_PLACE if i % 3 == 1 else 0) | (XTS_PROBE_LENGTH if i % 4 == 0 else 0) | \
                (XTS_PROBE_OVERLAP if i % 5 == 2 else 0) | (XTS_WEAK if i % 6 == 3 else 0)
        seeds.append(xts_seed(rng, subject=i * 7 % 256, key_sel=i % 2, mode=XTS_ENC + i % 2, flags=flags,
                              length=length, offs=(i * 0x35) & 0xff, count_sel=0, dec_sel=i, sector_form=0,
                              before=0, text_len=48))
    # many sectors: counts around the 64-tweak group, unit lengths 16.., each sector form
    for i, (count_sel, length) in enumerate([(0, 495), (7, 17), (128 + 31, 0), (128 + 32, 47), (192, 0),
                                             (255, 0), (3, 1000), (128 + 20, 20)]):
        flags = XTS_SECTORS | (XTS_IN_PLACE if i % 2 else 0) | (XTS_PROBE_LENGTH if i % 3 == 0 else 0) | \
                (XTS_PROBE_OVERLAP if i % 3 == 1 else 0) | (XTS_WEAK if i == 5 else 0)
        seeds.append(xts_seed(rng, subject=i * 11 + 3, key_sel=i % 2, mode=XTS_DEC - i % 2, flags=flags,
                              length=length, offs=(i * 0x47) & 0xff, count_sel=count_sel, dec_sel=i * 3,
                              sector_form=i % 4, before=i * 9 % 64, text_len=64))
    return seeds


def streams_seeds():
    """CBC streams inputs: [4] messages, [5] length step, [8..15] lengths in blocks."""
    rng = random.Random(0x63626373)  # "cbcs"
    seeds = []
    for i, (count_sel, step) in enumerate([(0, 0), (1, 3), (7, 1), (8, 5), (15, 2), (16, 0), (31, 7), (32, 1),
                                           (33, 4), (64, 3), (65, 9), (71, 2)]):
        flags = (1 if i % 3 == 1 else 0) | (2 if i % 4 == 0 else 0) | (4 if i % 4 == 2 else 0)
        head = bytes([i * 5 % 256, i % 3, STREAMS, flags, count_sel, step, (i * 0x29) & 0xff, 0])
        head += bytes(rng.randrange(65) if j != i % 8 else 0 for j in range(8))
        head += rng.randbytes(32) + rng.randbytes(16) + bytes(1)
        assert len(head) == HEADER
        seeds.append(head + rng.randbytes(96))
    return seeds


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
    seeds += gcm_seeds()
    seeds += xts_seeds()
    seeds += streams_seeds()
    for old in out.glob("seed-*"):
        old.unlink()
    for n, data in enumerate(seeds):
        (out / f"seed-{n:03d}").write_bytes(data)
    print(f"{len(seeds)} seeds written to {out}")


if __name__ == "__main__":
    main()
