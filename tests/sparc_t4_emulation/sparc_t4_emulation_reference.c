/*
 * sparc_t4_emulation_reference.c -- aesgen_sparc_t4_emulation: the T4 AES opcodes computed from
 * FIPS-197 byte by byte, with the meaning generator/aesgen/machine/sparc64.py gives
 * them, and their start-up check against FIPS-197 appendices A and B; VIS3's xmulx and
 * xmulxhi computed bit by bit, and their start-up check (see sparc_t4_emulation_test.c).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aesgen_clmul.h"
#include "sparc_t4_emulation_test.h"
#include "ts_report.h"

/* ------------------------------------------------------------------ bytes */

uint64_t load_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

void store_be64(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
}


/* -------------------------------------------- the reference round (FIPS-197) */

/* State bytes in FIPS-197 order: byte r + 4c is row r, column c. */
static uint8_t sbox[256], inv_sbox[256];
static uint8_t mul[15][256]; /* mul[c][x] = c * x in GF(2^8), for the (Inv)MixColumns coefficients */

static uint8_t gmul(uint8_t a, uint8_t b)
{
    uint8_t p = 0;
    while (b) {
        if (b & 1)
            p ^= a;
        a = (uint8_t)(a << 1 ^ (a & 0x80 ? 0x1b : 0));
        b >>= 1;
    }
    return p;
}

static uint8_t rotl8(uint8_t x, unsigned n)
{
    return (uint8_t)(x << n | x >> (8 - n));
}

/* From the definition (inverse in GF(2^8), then the affine map), so no
 * table to mistype; appendix B checks it. */
void make_sbox(void)
{
    for (unsigned x = 0; x < 256; x++) {
        uint8_t inv = 1, base = (uint8_t)x;
        for (unsigned e = 254; e; e >>= 1, base = gmul(base, base))
            if (e & 1)
                inv = gmul(inv, base);
        const uint8_t s = inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63;
        sbox[x] = s;
        inv_sbox[s] = (uint8_t)x;
        for (unsigned c = 0; c < 15; c++)
            mul[c][x] = gmul((uint8_t)c, (uint8_t)x);
    }
}

static void sub_bytes(uint8_t s[16], const uint8_t box[256])
{
    for (unsigned i = 0; i < 16; i++)
        s[i] = box[s[i]];
}

static void shift_rows(uint8_t s[16], int inverse)
{
    uint8_t t[16];
    for (unsigned c = 0; c < 4; c++)
        for (unsigned r = 0; r < 4; r++)
            t[r + 4 * c] = s[r + 4 * ((inverse ? c + 4 - r : c + r) % 4)];
    memcpy(s, t, 16);
}

static void mix_columns(uint8_t s[16], int inverse)
{
    static const uint8_t fwd[4] = {2, 3, 1, 1}, inv[4] = {14, 11, 13, 9};
    const uint8_t *m = inverse ? inv : fwd;
    for (unsigned c = 0; c < 4; c++) {
        uint8_t a[4];
        memcpy(a, s + 4 * c, 4);
        for (unsigned r = 0; r < 4; r++)
            s[r + 4 * c] = mul[m[(4 - r) % 4]][a[0]] ^ mul[m[(5 - r) % 4]][a[1]] ^
                           mul[m[(6 - r) % 4]][a[2]] ^ mul[m[(7 - r) % 4]][a[3]];
    }
}

/* One T4 AES opcode as the generator's model defines it. The state is hi:lo
 * (bytes 0-7, 8-15 in memory order, as big-endian doubles). op5 (bits 8:5 of
 * the word): bit 0 the half written (round01: bytes 0-7, round23: 8-15),
 * bit 1 decryption, bit 2 the last round (_l: no (Inv)MixColumns).
 *   eround: MixColumns(ShiftRows(SubBytes(s))) XOR k, that half
 *   dround: InvMixColumns(InvSubBytes(InvShiftRows(s)) XOR k in that half), that half */
uint64_t t4_round(unsigned op5, uint64_t k, uint64_t hi, uint64_t lo)
{
    uint8_t s[16];
    const unsigned half = (op5 & 1) * 8;
    store_be64(s, hi);
    store_be64(s + 8, lo);
    if (!(op5 & 2)) {
        sub_bytes(s, sbox);
        shift_rows(s, 0);
        if (!(op5 & 4))
            mix_columns(s, 0);
        return load_be64(s + half) ^ k;
    }
    shift_rows(s, 1);
    sub_bytes(s, inv_sbox);
    store_be64(s + half, load_be64(s + half) ^ k);
    if (!(op5 & 4))
        mix_columns(s, 1);
    return load_be64(s + half);
}

static uint32_t sub_word(uint32_t w)
{
    return (uint32_t)sbox[w >> 24] << 24 | (uint32_t)sbox[(w >> 16) & 0xff] << 16 |
           (uint32_t)sbox[(w >> 8) & 0xff] << 8 | sbox[w & 0xff];
}

/* aes_kexpand0/1/2 x, y (kexpand1: x, y, rcon index), as the model defines
 * them: two new schedule words from the two Nk words back (x) and the word
 * before them (the second word of y). kexpand1 applies SubWord(RotWord())
 * and the round constant, kexpand0 SubWord() (AES-256's middle step),
 * kexpand2 nothing. rot = 0 leaves out RotWord (a sabotage). */
uint64_t t4_kexpand(int which, unsigned rcon_index, uint64_t x, uint64_t y, int rot)
{
    static const uint8_t rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};
    uint32_t t = (uint32_t)y;
    if (which == 1)
        t = sub_word(rot ? t << 8 | t >> 24 : t) ^ (uint32_t)rcon[rcon_index] << 24;
    else if (which == 0)
        t = sub_word(t);
    const uint32_t w0 = (uint32_t)(x >> 32) ^ t, w1 = (uint32_t)x ^ w0;
    return (uint64_t)w0 << 32 | w1;
}

/* ---------------------------------------------- xmulx and xmulxhi (VIS3) */

/* Our reading of the opcodes: xmulx writes the low 64 bits of the carry-less (GF(2)[x])
 * product of its two 64-bit integer sources, xmulxhi the high 64 bits (the product has
 * 127 bits, so bit 63 of the high half is always 0). Bit i of a source is the
 * coefficient of x^i. One shifted XOR per set bit of y: slow and obviously right. */
uint64_t clmul64_reference(uint64_t x, uint64_t y, uint64_t *hi)
{
    uint64_t lo = 0, h = 0;
    for (unsigned i = 0; i < 64; i++)
        if (y >> i & 1) {
            lo ^= x << i;
            if (i != 0)
                h ^= x >> (64 - i);
        }
    *hi = h;
    return lo;
}

/* --------------------------------------------------------- start-up checks */

/* Products worked by hand, then agreement with aesgen_clmul64 (the portable GHASH's
 * multiply with holes, runtime/src/aesgen_clmul.h: another algorithm) on a walk of
 * pseudo-random pairs. */
int check_reference_clmul(void)
{
    static const struct {
        uint64_t x, y, lo, hi;
    } known[] = {
        {7, 7, 0x15, 0},                                           /* (x^2+x+1)^2 = x^4+x^2+1 */
        {UINT64_C(1) << 63, UINT64_C(1) << 63, 0, UINT64_C(1) << 62}, /* x^63 * x^63 = x^126 */
        {UINT64_C(0x8000000000000001), UINT64_C(0x8000000000000001), 1, UINT64_C(1) << 62},
        {UINT64_C(0xffffffffffffffff), 1, UINT64_C(0xffffffffffffffff), 0},
        {UINT64_C(0xffffffffffffffff), 2, UINT64_C(0xfffffffffffffffe), 1},
        {UINT64_C(0xffffffffffffffff), 3, 1, 1}, /* (sum x^i)(x+1) = x^64 + 1 */
        {UINT64_C(0xffffffffffffffff), UINT64_C(0xffffffffffffffff), UINT64_C(0x5555555555555555),
         UINT64_C(0x5555555555555555)}, /* (sum x^i)^2 = sum x^2i */
        {UINT64_C(0x123456789abcdef0), 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        uint64_t hi, hi2;
        const uint64_t lo = clmul64_reference(known[i].x, known[i].y, &hi);
        const uint64_t lo2 = clmul64_reference(known[i].y, known[i].x, &hi2);
        if (lo != known[i].lo || hi != known[i].hi || lo2 != lo || hi2 != hi) {
            printf("FAIL reference clmul: %016llx * %016llx = %016llx:%016llx, expected %016llx:%016llx\n",
                   (unsigned long long)known[i].x, (unsigned long long)known[i].y, (unsigned long long)hi,
                   (unsigned long long)lo, (unsigned long long)known[i].hi, (unsigned long long)known[i].lo);
            return 0;
        }
    }
    uint64_t x = UINT64_C(0x0123456789abcdef), y = UINT64_C(0xfedcba9876543210);
    for (unsigned i = 0; i < 1000; i++) {
        uint64_t hi, hi_lib;
        const uint64_t lo = clmul64_reference(x, y, &hi), lo_lib = aesgen_clmul64(x, y, &hi_lib);
        if (lo != lo_lib || hi != hi_lib || hi >> 63 != 0) {
            printf("FAIL reference clmul: %016llx * %016llx = %016llx:%016llx, aesgen_clmul64 says "
                   "%016llx:%016llx\n",
                   (unsigned long long)x, (unsigned long long)y, (unsigned long long)hi, (unsigned long long)lo,
                   (unsigned long long)hi_lib, (unsigned long long)lo_lib);
            return 0;
        }
        x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
        y ^= y << 13;
        y ^= y >> 7;
        y ^= y << 17;
    }
    printf("ok   reference xmulx/xmulxhi: products worked by hand, and 1000 pairs against aesgen_clmul64\n");
    return 1;
}


/* FIPS-197 appendix B (AES-128): round 1 step by step, the last round, and
 * the whole cipher and inverse cipher as chains of T4 rounds. */
int check_reference_round(void)
{
    static const char *const rk_hex[11] = {
        "2b7e151628aed2a6abf7158809cf4f3c", "a0fafe1788542cb123a339392a6c7605",
        "f2c295f27a96b9435935807a7359f67f", "3d80477d4716fe3e1e237e446d7a883b",
        "ef44a541a8525b7fb671253bdb0bad00", "d4d1c6f87c839d87caf2b8bc11f915bc",
        "6d88a37a110b3efddbf98641ca0093fd", "4e54f70e5f5fc9f384a64fb24ea6dc4f",
        "ead27321b58dbad2312bf5607f8d292f", "ac7766f319fadc2128d12941575c006e",
        "d014f9a8c9ee2589e13f0cc8b6630ca6"};
    uint8_t rk[11][16], in[16], out[16], s[16], want[16];
    int ok = 1;
    for (unsigned r = 0; r < 11; r++)
        ts_from_hex(rk[r], rk_hex[r], 16);
    ts_from_hex(in, "3243f6a8885a308d313198a2e0370734", 16);
    ts_from_hex(out, "3925841d02dc09fbdc118597196a0b32", 16);

    /* Round 1 (start, after SubBytes, ShiftRows, MixColumns); round 10. */
    static const struct {
        const char *from, *to, *what;
        int step; /* 0 SubBytes, 1 ShiftRows, 2 MixColumns */
    } steps[] = {
        {"193de3bea0f4e22b9ac68d2ae9f84808", "d42711aee0bf98f1b8b45de51e415230", "round 1 SubBytes", 0},
        {"d42711aee0bf98f1b8b45de51e415230", "d4bf5d30e0b452aeb84111f11e2798e5", "round 1 ShiftRows", 1},
        {"d4bf5d30e0b452aeb84111f11e2798e5", "046681e5e0cb199a48f8d37a2806264c", "round 1 MixColumns", 2},
        {"eb40f21e592e38848ba113e71bc342d2", "e9098972cb31075f3d327d94af2e2cb5", "round 10 SubBytes", 0},
        {"e9098972cb31075f3d327d94af2e2cb5", "e9317db5cb322c723d2e895faf090794", "round 10 ShiftRows", 1},
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        uint8_t from[16], to[16], t[16];
        ts_from_hex(from, steps[i].from, 16);
        ts_from_hex(to, steps[i].to, 16);
        memcpy(t, from, 16);
        if (steps[i].step == 0)
            sub_bytes(t, sbox);
        else if (steps[i].step == 1)
            shift_rows(t, 0);
        else
            mix_columns(t, 0);
        ok &= memcmp(t, to, 16) == 0;
        if (steps[i].step == 0) /* and back */
            sub_bytes(t, inv_sbox);
        else if (steps[i].step == 1)
            shift_rows(t, 1);
        else
            mix_columns(t, 1);
        ok &= memcmp(t, from, 16) == 0;
        if (!ok) {
            printf("FAIL reference round: FIPS-197 appendix B, %s (or its inverse)\n", steps[i].what);
            return 0;
        }
    }

    /* The cipher as T4 rounds: after round 1 appendix B's round-2 start. */
    uint64_t hi, lo, h2, l2;
    for (unsigned i = 0; i < 16; i++)
        s[i] = in[i] ^ rk[0][i];
    hi = load_be64(s);
    lo = load_be64(s + 8);
    for (unsigned r = 1; r <= 10; r++) {
        const unsigned last = r == 10 ? 4 : 0;
        h2 = t4_round(0 | last, load_be64(rk[r]), hi, lo);
        l2 = t4_round(1 | last, load_be64(rk[r] + 8), hi, lo);
        hi = h2;
        lo = l2;
        if (r == 1) {
            ts_from_hex(want, "a49c7ff2689f352b6b5bea43026a5049", 16);
            ok &= hi == load_be64(want) && lo == load_be64(want + 8);
        }
    }
    ok &= hi == load_be64(out) && lo == load_be64(out + 8);
    if (!ok) {
        printf("FAIL reference round: the eround chain does not give FIPS-197 appendix B\n");
        return 0;
    }
    /* The inverse cipher as T4 rounds, on the encryption keys in reverse. */
    hi = load_be64(out) ^ load_be64(rk[10]);
    lo = load_be64(out + 8) ^ load_be64(rk[10] + 8);
    for (int r = 9; r >= 0; r--) {
        const unsigned last = r == 0 ? 4 : 0;
        h2 = t4_round(2 | last, load_be64(rk[r]), hi, lo);
        l2 = t4_round(3 | last, load_be64(rk[r] + 8), hi, lo);
        hi = h2;
        lo = l2;
    }
    if (hi != load_be64(in) || lo != load_be64(in + 8)) {
        printf("FAIL reference round: the dround chain does not invert FIPS-197 appendix B\n");
        return 0;
    }

    /* Appendix A: the key expansions as chains of kexpand, one double (two
     * words) each: D[j] = op(D[j - Nk/2], D[j - 1]), op kexpand1 at the start
     * of every Nk words, kexpand0 halfway for Nk = 8, else kexpand2. */
    static const struct {
        const char *key, *last;
    } a[3] = {{"2b7e151628aed2a6abf7158809cf4f3c", "d014f9a8c9ee2589e13f0cc8b6630ca6"},
              {"8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", "e98ba06f448c773c8ecc720401002202"},
              {"603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
               "fe4890d1e6188d0b046df344706c631e"}};
    for (unsigned i = 0; i < 3; i++) {
        const unsigned nk2 = 2 + i, ndoubles = 2 * (11 + 2 * i); /* Nk/2; 4*(Nr+1) words */
        uint64_t d[30];
        uint8_t key[32];
        ts_from_hex(key, a[i].key, 4 * 2 * nk2);
        for (unsigned j = 0; j < nk2; j++)
            d[j] = load_be64(key + 8 * j);
        for (unsigned j = nk2; j < ndoubles; j++) {
            const int which = j % nk2 == 0 ? 1 : nk2 == 4 && j % nk2 == 2 ? 0 : 2;
            d[j] = t4_kexpand(which, j / nk2 - 1, d[j - nk2], d[j - 1], 1);
        }
        ts_from_hex(want, a[i].last, 16);
        if (d[ndoubles - 2] != load_be64(want) || d[ndoubles - 1] != load_be64(want + 8)) {
            printf("FAIL reference round: the kexpand chain does not give FIPS-197 appendix A.%u\n", i + 1);
            return 0;
        }
    }
    printf("ok   reference opcodes: FIPS-197 appendix B (round 1 and 10 steps, cipher and inverse as T4 "
           "rounds), appendix A (key expansions as kexpand chains)\n");
    return 1;
}
