/*
 * api_ctr.c -- aesgen_api_test: known answers (FIPS-197 appendix C, SP 800-38A) and
 * the CTR stream: its position between calls, resuming mid-block, the counter carries
 * and the 128-bit wrap-around.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api_test.h"

/* ------------------------------------------------------------------------ */
/* Known answers (FIPS-197 appendix C, SP 800-38A F.2.1 and F.5.1)            */

void test_known_answers(const char *label)
{
    const uint8_t *pt = ts_fips197_pt;
    uint8_t out[16];
    aesgen_ctx ctx;
    for (int k = 0; k < 3; k++) {
        size_t klen = 16 + 8 * (size_t)k;
        const uint8_t *ct = ts_fips197_ct[k];
        EXPECT_RC(aesgen_init(&ctx, key32, klen), AESGEN_OK);
        EXPECT_RC(aesgen_ecb_encrypt(&ctx, out, pt, 16), AESGEN_OK);
        CHECK(memcmp(out, ct, 16) == 0, "[%s] FIPS-197 AES-%zu encryption known answer", label,
              klen * 8);
        EXPECT_RC(aesgen_ecb_decrypt(&ctx, out, ct, 16), AESGEN_OK);
        CHECK(memcmp(out, pt, 16) == 0, "[%s] FIPS-197 AES-%zu decryption known answer", label,
              klen * 8);
    }

    uint8_t key[16], iv[16], p[64], c[64], o[64], ctrblk[16];
    hex("2b7e151628aed2a6abf7158809cf4f3c", key, 16);
    hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
        "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
        p, 64);
    EXPECT_RC(aesgen_init(&ctx, key, 16), AESGEN_OK);

    hex("000102030405060708090a0b0c0d0e0f", iv, 16);
    hex("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
        "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
        c, 64);
    EXPECT_RC(aesgen_cbc_encrypt(&ctx, iv, o, p, 64), AESGEN_OK);
    CHECK(memcmp(o, c, 64) == 0, "[%s] SP 800-38A F.2.1 CBC-AES128 encryption", label);
    CHECK(memcmp(iv, c + 48, 16) == 0, "[%s] CBC encryption: IV is not the last ciphertext block",
          label);
    hex("000102030405060708090a0b0c0d0e0f", iv, 16);
    EXPECT_RC(aesgen_cbc_decrypt(&ctx, iv, o, c, 64), AESGEN_OK);
    CHECK(memcmp(o, p, 64) == 0, "[%s] SP 800-38A F.2.2 CBC-AES128 decryption", label);
    CHECK(memcmp(iv, c + 48, 16) == 0, "[%s] CBC decryption: IV is not the last ciphertext block",
          label);

    aesgen_ctr ctr;
    hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", ctrblk, 16);
    hex("874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
        "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
        c, 64);
    EXPECT_RC(aesgen_ctr_init(&ctr, ctrblk), AESGEN_OK);
    EXPECT_RC(aesgen_ctr_crypt(&ctx, &ctr, o, p, 64), AESGEN_OK);
    CHECK(memcmp(o, c, 64) == 0, "[%s] SP 800-38A F.5.1 CTR-AES128", label);
    aesgen_wipe(&ctx);
}

/* ------------------------------------------------------------------------ */
/* CTR behaviour                                                              */

/* The stream stands at absolute keystream position `pos` (bytes) from
 * `start`: see the encoding in aesgen.h (counter = next block to encrypt,
 * used = bytes consumed of the keystream of the block before it). At a block
 * boundary, "used == 16" and "used == 0 with the following block's keystream
 * buffered" both fit that description; a fresh stream must be the former. */
static int ctr_position_ok(const aesgen_ctr *ctr, const uint8_t start[16], uint64_t pos)
{
    uint8_t want[16];
    memcpy(want, start, 16);
    ts_ctr_add(want, pos / 16 + (pos % 16 != 0));
    if (pos % 16)
        return memcmp(ctr->counter, want, 16) == 0 && ctr->used == pos % 16;
    if (memcmp(ctr->counter, want, 16) == 0 && ctr->used == 16)
        return 1; /* block boundary, nothing buffered */
    /* or the next block's keystream already buffered: counter one further */
    ts_ctr_add(want, 1);
    return pos != 0 && memcmp(ctr->counter, want, 16) == 0 && ctr->used == 0;
}

void test_ctr_key(const char *label, size_t key_len)
{
    aesgen_ctx ctx;
    aesgen_ctr a, b;
    uint8_t start[16], msg[300], one[300], pieces[300];
    EXPECT_RC(aesgen_init(&ctx, key32, key_len), AESGEN_OK);
    fill(msg, sizeof msg, 23);

    /* aesgen_ctr_init records the counter block. */
    fill(start, 16, 24);
    EXPECT_RC(aesgen_ctr_init(&a, start), AESGEN_OK);
    CHECK(memcmp(a.counter, start, 16) == 0, "[%s] aesgen_ctr_init did not store the counter",
          label);
    CHECK(ctr_position_ok(&a, start, 0), "[%s] fresh stream does not stand at position 0", label);

    /* Resuming mid-block: many ways to cut 300 bytes give one call's bytes. */
    EXPECT_RC(aesgen_ctr_crypt(&ctx, &a, one, msg, sizeof msg), AESGEN_OK);
    CHECK(ctr_position_ok(&a, start, sizeof msg), "[%s] stream position after one call", label);
    static const size_t patterns[][8] = {
        { 1 }, { 3 }, { 15 }, { 16 }, { 17 }, { 31 }, { 33 }, { 47 },
        { 1, 15, 16, 0, 17, 32, 2, 5 }, { 7, 64, 9, 0, 0, 100, 1, 3 }, { 16, 1, 16, 1, 0, 48, 13, 31 }
    };
    for (size_t pi = 0; pi < sizeof patterns / sizeof patterns[0]; pi++) {
        size_t pos = 0, k = 0, ok_pos = 1;
        EXPECT_RC(aesgen_ctr_init(&b, start), AESGEN_OK);
        memset(pieces, 0, sizeof pieces);
        while (pos < sizeof msg) {
            size_t n = patterns[pi][k % 8];
            if (patterns[pi][1] == 0 && patterns[pi][2] == 0)
                n = patterns[pi][0]; /* one repeated size */
            k++;
            if (n > sizeof msg - pos)
                n = sizeof msg - pos;
            EXPECT_RC(aesgen_ctr_crypt(&ctx, &b, pieces + pos, msg + pos, n), AESGEN_OK);
            pos += n;
            if (!ctr_position_ok(&b, start, pos))
                ok_pos = 0;
        }
        CHECK(memcmp(one, pieces, sizeof msg) == 0,
              "[%s] CTR in calls of %zu, %zu, ... bytes (pattern %zu) differs from one call", label,
              patterns[pi][0], patterns[pi][1], pi);
        CHECK(ok_pos, "[%s] CTR stream counter/used wrong between calls (pattern %zu)", label, pi);
        /* both continue identically */
        uint8_t x[40], y[40];
        aesgen_ctr a2 = a;
        EXPECT_RC(aesgen_ctr_crypt(&ctx, &a2, x, msg, 40), AESGEN_OK);
        EXPECT_RC(aesgen_ctr_crypt(&ctx, &b, y, msg, 40), AESGEN_OK);
        CHECK(memcmp(x, y, 40) == 0, "[%s] streams at the same position continue differently",
              label);
    }

    /* Decryption is the same call. */
    {
        uint8_t back[300];
        EXPECT_RC(aesgen_ctr_init(&b, start), AESGEN_OK);
        EXPECT_RC(aesgen_ctr_crypt(&ctx, &b, back, one, sizeof one), AESGEN_OK);
        CHECK(memcmp(back, msg, sizeof msg) == 0, "[%s] CTR twice is not the identity", label);
    }

    /* Wrap-around and carries, against ECB of the counter blocks. */
    static const struct {
        const char *start, *name;
    } wraps[] = {
        { "ffffffffffffffffffffffffffffffff", "ff..ff -> 00..00 (128-bit wrap)" },
        { "fffffffffffffffffffffffffffffffd", "ff..fd (wrap after 3 blocks)" },
        { "0123456789abcdefffffffffffffffff", "low 64 bits ff..ff (carry into the high half)" },
        { "0123456789abcdeffffffffffffffffe", "low 64 bits ff..fe" },
        { "00000000ffffffffffffffffffffffff", "low 96 bits ff..ff" },
        { "0123456789abcdef01234567ffffffff", "low 32 bits ff..ff" },
    };
    for (size_t w = 0; w < sizeof wraps / sizeof wraps[0]; w++) {
        enum { NB = 11 };
        uint8_t ctrs[16 * NB], ks[16 * NB], zero[16 * NB] = { 0 }, got[16 * NB];
        uint8_t c[16];
        hex(wraps[w].start, start, 16);
        memcpy(c, start, 16);
        for (int i = 0; i < NB; i++) {
            memcpy(ctrs + 16 * i, c, 16);
            ts_ctr_add(c, 1);
        }
        EXPECT_RC(aesgen_ecb_encrypt(&ctx, ks, ctrs, sizeof ctrs), AESGEN_OK);
        /* one call */
        EXPECT_RC(aesgen_ctr_init(&a, start), AESGEN_OK);
        EXPECT_RC(aesgen_ctr_crypt(&ctx, &a, got, zero, sizeof zero), AESGEN_OK);
        CHECK(memcmp(got, ks, sizeof ks) == 0, "[%s] CTR keystream across %s", label, wraps[w].name);
        CHECK(ctr_position_ok(&a, start, sizeof zero), "[%s] counter after %s", label,
              wraps[w].name);
        /* mid-block calls across the wrap */
        static const size_t cut[] = { 7, 20, 1, 53, 16, 0, 3 };
        size_t pos = 0, k = 0;
        EXPECT_RC(aesgen_ctr_init(&a, start), AESGEN_OK);
        while (pos < sizeof zero) {
            size_t n = cut[k++ % 7];
            if (n > sizeof zero - pos)
                n = sizeof zero - pos;
            EXPECT_RC(aesgen_ctr_crypt(&ctx, &a, got + pos, zero + pos, n), AESGEN_OK);
            pos += n;
        }
        CHECK(memcmp(got, ks, sizeof ks) == 0, "[%s] CTR keystream across %s, split mid-block",
              label, wraps[w].name);
        CHECK(ctr_position_ok(&a, start, sizeof zero), "[%s] counter after %s, split", label,
              wraps[w].name);
    }
    aesgen_wipe(&ctx);
}

void test_ctr(const char *backend)
{
    for (size_t kl = 16; kl <= 32; kl += 8) {
        char label[80];
        snprintf(label, sizeof label, "%s, AES-%zu", backend, kl * 8);
        test_ctr_key(label, kl);
    }
}
