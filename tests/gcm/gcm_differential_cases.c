/* gcm_differential_cases.c -- the sweeps of aesgen_gcm_differential (gcm_differential.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcm_differential.h"
#include "gcm_gf128.h"
#include "ts_report.h"

/* Every text length 0..2048 (--quick: every 7th above 300), short AAD. */
void gcm_sweep_lengths(unsigned bits)
{
    for (size_t len = 0; len <= 2048; len++) {
        if (gcm_cfg.quick && len > 300 && len % 7 != 0)
            continue;
        gcm_case c;
        gcm_case_random(&c, "lengths", bits, len, 48);
        gcm_case_data(&c);
        gcm_case_run(&c);
    }
}

/* The one-shot seal's stitched path, whose call hashes an AAD of up to 16 bytes before
 * the text and, for a text of whole chunks, the lengths block after it: a 12-byte IV,
 * texts of 1, 1.5 and 2 KiB (whole chunks of every stitched loop: 2..4 of 32 blocks on
 * zmm, more of 16 on ymm and 8 on xmm) and one block and one byte past them, each with
 * AADs around 16 bytes and none. */
void gcm_sweep_stitched(unsigned bits)
{
    static const size_t aads[] = {0, 1, 5, 13, 15, 16, 17, 32, 48};
    static const size_t past[] = {0, 1, 16, 17};
    for (size_t len = 1024; len <= 2048; len += 512)
        for (size_t p = 0; p < sizeof past / sizeof past[0]; p++)
            for (size_t a = 0; a < sizeof aads / sizeof aads[0]; a++) {
                gcm_case c;
                gcm_case_random(&c, "stitched", bits, len + past[p], 0);
                c.iv_len = 12;
                c.aad_len = aads[a];
                gcm_cuts_random(&c.aad_cuts, &gcm_rng, c.aad_len, 4);
                gcm_case_data(&c);
                gcm_case_run(&c);
            }
}

/* Every AAD length 0..300, short texts, the AAD in up to 8 calls. */
void gcm_sweep_aad(unsigned bits)
{
    for (size_t a = 0; a <= 300; a++) {
        gcm_case c;
        gcm_case_random(&c, "aad", bits, ts_rng_below(&gcm_rng, 65), 0);
        c.aad_len = a;
        gcm_cuts_random(&c.aad_cuts, &gcm_rng, a, 8);
        gcm_case_data(&c);
        gcm_case_run(&c);
    }
}

/* Every IV length 1..128, then 96 bits again (the usual one) a few times, then IVs
 * longer than OpenSSL takes (compared through a 16-byte IV with the same J0). */
void gcm_sweep_iv(unsigned bits)
{
    static const size_t longer[] = {129, 143, 144, 145, 255, 256, 257, 511, 512, 1000, 1024};
    const size_t nl = sizeof longer / sizeof longer[0];
    for (size_t n = 1; n <= GCM_OSSL_MAX_IV + 8 + nl; n++) {
        gcm_case c;
        gcm_case_random(&c, "iv", bits, ts_rng_below(&gcm_rng, 301), 32);
        c.iv_len = n <= GCM_OSSL_MAX_IV ? n : n <= GCM_OSSL_MAX_IV + 8 ? 12 : longer[n - GCM_OSSL_MAX_IV - 9];
        ts_rng_bytes(&gcm_rng, c.iv, c.iv_len);
        gcm_case_data(&c);
        gcm_case_run(&c);
    }
}

/* Every tag length, 20 cases each. */
void gcm_sweep_tags(unsigned bits)
{
    for (size_t t = 0; t < GCM_TAG_LENGTH_COUNT; t++)
        for (int i = 0; i < 20; i++) {
            gcm_case c;
            gcm_case_random(&c, "tags", bits, ts_rng_below(&gcm_rng, 600), 40);
            c.tag_len = gcm_tag_lengths[t];
            gcm_case_data(&c);
            gcm_case_run(&c);
        }
}

/* Every pair of input and output offsets 0..15 out of place, every offset in place. */
void gcm_sweep_offsets(unsigned bits)
{
    for (size_t i = 0; i < 16; i++)
        for (size_t o = 0; o <= 16; o++) {
            gcm_case c;
            gcm_case_random(&c, "offsets", bits, 100 + ts_rng_below(&gcm_rng, 60), 24);
            c.in_place = o == 16;
            c.in_off = i;
            c.out_off = o == 16 ? i : o;
            gcm_case_data(&c);
            gcm_case_run(&c);
        }
}

/* AAD and text in up to 8 and GCM_MAX_PIECES calls at random points (empty calls and
 * block boundaries among them). */
void gcm_sweep_splits(unsigned bits)
{
    const int n = gcm_cfg.quick ? 150 : 400;
    for (int i = 0; i < n; i++) {
        size_t len = ts_rng_below(&gcm_rng, 1100);
        if (i % 4 == 0)
            len = 16 * ts_rng_below(&gcm_rng, 40) + ts_rng_below(&gcm_rng, 3); /* near a block boundary */
        gcm_case c;
        gcm_case_random(&c, "splits", bits, len, 80);
        gcm_cuts_random(&c.aad_cuts, &gcm_rng, c.aad_len, 8);
        gcm_cuts_random(&c.text_cuts, &gcm_rng, c.len, GCM_MAX_PIECES);
        gcm_case_data(&c);
        gcm_case_run(&c);
    }
}

/* Every kind of tampering in turn, short messages, every tag length. */
void gcm_sweep_tamper(unsigned bits)
{
    const int n = gcm_cfg.quick ? 120 : 360;
    for (int i = 0; i < n; i++) {
        gcm_case c;
        gcm_case_random(&c, "tamper", bits, ts_rng_below(&gcm_rng, 200), 40);
        c.tamper = i % TAMPER_KINDS;
        c.tag_len = gcm_tag_lengths[(i / TAMPER_KINDS) % GCM_TAG_LENGTH_COUNT];
        gcm_case_data(&c);
        gcm_case_run(&c);
    }
}

/* 64 KiB + odd (twice) and, without --quick, 1 MiB + 13, in up to 12 calls; an AAD of
 * 64 KiB + 7 in up to 8 calls. */
void gcm_sweep_large(unsigned bits)
{
    gcm_case a;
    gcm_case_random(&a, "large", bits, ts_rng_below(&gcm_rng, 200), 0);
    a.aad_len = 65536 + 7;
    gcm_cuts_random(&a.aad_cuts, &gcm_rng, a.aad_len, 8);
    gcm_case_data(&a);
    gcm_case_run(&a);
    static const size_t lens[] = {65536 + 5, 65536 + 3 * 16 + 1, ((size_t)1 << 20) + 13};
    const size_t n = gcm_cfg.quick ? 2 : 3;
    for (size_t i = 0; i < n; i++) {
        gcm_case c;
        gcm_case_random(&c, "large", bits, lens[i], 300);
        gcm_cuts_random(&c.text_cuts, &gcm_rng, c.len, GCM_MAX_PIECES);
        gcm_case_data(&c);
        gcm_case_run(&c);
    }
}

/* inc32: the counter counts in its low 32 bits only and wraps without a carry. With
 * IVs of 16..128 bytes solved so that J0 = (random 96 bits || 2^32 - 1 - d), text
 * block d has the counter (those 96 bits || 00000000); the texts run past it. */
void gcm_sweep_counter_wrap(unsigned bits)
{
    static const unsigned ds[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65};
    const size_t nd = sizeof ds / sizeof ds[0];
    for (size_t i = 0; i < nd + 4; i++) {
        const unsigned d = i < nd ? ds[i] : (unsigned)ts_rng_below(&gcm_rng, 300);
        gcm_case c;
        gcm_case_random(&c, "counter-wrap", bits, 16 * (size_t)d + 1 + ts_rng_below(&gcm_rng, 64), 40);
        static const uint8_t zero[16];
        uint8_t h[16];
        gcm_oracle_check(ts_oracle_ecb_block(gcm_ossl, bits, c.key, zero, h));
        ts_rng_bytes(&gcm_rng, c.j0, 12);
        const uint32_t low = UINT32_C(0xffffffff) - d;
        c.j0[12] = (uint8_t)(low >> 24);
        c.j0[13] = (uint8_t)(low >> 16);
        c.j0[14] = (uint8_t)(low >> 8);
        c.j0[15] = (uint8_t)low;
        c.iv_len = 16 + ts_rng_below(&gcm_rng, GCM_OSSL_MAX_IV - 16 + 1);
        ts_rng_bytes(&gcm_rng, c.iv, c.iv_len);
        if (!gf128_iv_for_j0(c.iv, c.iv_len, h, c.j0)) {
            printf("FAIL: no IV found for the counter-wrap case (the test's GF(2^128) arithmetic?)\n");
            exit(1);
        }
        c.wrap_block = (long)d;
        gcm_cuts_random(&c.text_cuts, &gcm_rng, c.len, GCM_MAX_PIECES);
        gcm_case_data(&c);
        gcm_case_run(&c);
    }
}

/* The test's GF(2^128) and J0 against OpenSSL: tag = GHASH(A, C, lengths) ^ E_K(J0),
 * for a 96-bit IV and for a 20-byte one. */
void gcm_check_gf128(void)
{
    for (int k = 0; k < 2; k++) {
        uint8_t key[32], iv[20], aad[20], pt[37], ct[37], tag[16], h[16], j0[16], ek[16], y[16] = {0};
        static const uint8_t zero[16];
        const size_t iv_len = k == 0 ? 12 : 20;
        ts_rng_bytes(&gcm_rng, key, sizeof key);
        ts_rng_bytes(&gcm_rng, iv, sizeof iv);
        ts_rng_bytes(&gcm_rng, aad, sizeof aad);
        ts_rng_bytes(&gcm_rng, pt, sizeof pt);
        gcm_oracle_check(ts_oracle_gcm_seal(gcm_ossl, 128, key, iv, iv_len, aad, sizeof aad, ct, pt, sizeof pt, tag));
        gcm_oracle_check(ts_oracle_ecb_block(gcm_ossl, 128, key, zero, h));
        if (iv_len == 12) {
            memcpy(j0, iv, 12);
            j0[12] = j0[13] = j0[14] = 0;
            j0[15] = 1;
        } else {
            gf128_j0(j0, h, iv, iv_len);
        }
        gcm_oracle_check(ts_oracle_ecb_block(gcm_ossl, 128, key, j0, ek));
        const uint8_t lengths[16] = {0, 0, 0, 0, 0, 0, 0, sizeof aad * 8, 0, 0, 0, 0, 0, 0, 1, (uint8_t)(sizeof pt * 8 - 256)};
        gf128_ghash(y, h, aad, sizeof aad);
        gf128_ghash(y, h, ct, sizeof ct);
        gf128_ghash(y, h, lengths, 16);
        for (int i = 0; i < 16; i++)
            y[i] ^= ek[i];
        if (memcmp(y, tag, 16) != 0) {
            printf("FAIL: the test's GF(2^128) arithmetic disagrees with OpenSSL's tag (IV of %zu bytes)\n", iv_len);
            ts_hex_line(stdout, "OpenSSL: ", tag, 16);
            ts_hex_line(stdout, "test:    ", y, 16);
            exit(1);
        }
    }
    printf("the test's GF(2^128) agrees with OpenSSL (96-bit and 160-bit IVs)\n");
}
