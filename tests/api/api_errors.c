/*
 * api_errors.c -- aesgen_api_test: version and status strings, and the error paths
 * of aesgen.h (aesgen_init, NULL pointers, lengths, overlap, uninitialised and wiped
 * contexts and streams: each must fail with its status and write nothing), and wiping.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_test.h"

/* ------------------------------------------------------------------------ */
/* Version and status strings                                                 */

void test_version(void)
{
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", AESGEN_VERSION_MAJOR, AESGEN_VERSION_MINOR,
             AESGEN_VERSION_PATCH);
    const char *v = aesgen_version_string();
    CHECK(streq(v, want), "aesgen_version_string() is \"%s\", the AESGEN_VERSION_* macros say %s",
          nn(v), want);
}

void test_status_strings(void)
{
    static const int codes[] = { AESGEN_OK,         AESGEN_ERR_NULL,    AESGEN_ERR_KEY_LENGTH,
                                 AESGEN_ERR_LENGTH, AESGEN_ERR_OVERLAP, AESGEN_ERR_CONTEXT,
                                 AESGEN_ERR_BACKEND };
    static const int unknown[] = { 1, 2, -7, -8, 100, -100, INT_MAX, INT_MIN };
    const size_t n = sizeof codes / sizeof codes[0];
    for (size_t i = 0; i < n; i++) {
        const char *s = aesgen_status_string(codes[i]);
        CHECK(s != NULL && s[0] != '\0', "aesgen_status_string(%d) is NULL or empty", codes[i]);
        for (size_t j = 0; j < i; j++)
            CHECK(!streq(s, aesgen_status_string(codes[j])),
                  "aesgen_status_string(%d) and (%d) are the same: \"%s\"", codes[i], codes[j],
                  nn(s));
    }
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *s = aesgen_status_string(unknown[i]);
        CHECK(s != NULL && s[0] != '\0', "aesgen_status_string(%d) (unknown code) is NULL or empty",
              unknown[i]);
        for (size_t j = 0; j < n; j++)
            CHECK(!streq(s, aesgen_status_string(codes[j])),
                  "aesgen_status_string(%d) (unknown code) reads like code %d: \"%s\"", unknown[i],
                  codes[j], nn(s));
    }
}

/* ------------------------------------------------------------------------ */
/* aesgen_init                                                                */

void test_init(void)
{
    static const size_t bad_lengths[] = { 0, 1, 15, 17, 23, 25, 31, 33, 64, SIZE_MAX };
    uint8_t key[64];
    aesgen_ctx ctx, good;
    fill(key, sizeof key, 0x11);

    EXPECT_RC(aesgen_init(NULL, key, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_init(NULL, key, 32), AESGEN_ERR_NULL);
    for (size_t kl = 16; kl <= 32; kl += 8) {
        fill(&ctx, sizeof ctx, 0xc3);
        watch("context", &ctx, sizeof ctx);
        int rc = aesgen_init(&ctx, NULL, kl);
        CHECK(rc == AESGEN_ERR_NULL, "aesgen_init(ctx, NULL, %zu) returned %d (%s), expected %s", kl,
              rc, st(rc), st(AESGEN_ERR_NULL));
        WATCH_CHECK("aesgen_init with a NULL key");
    }
    /* key NULL with key_len 0: both rules are broken; either error will do. */
    fill(&ctx, sizeof ctx, 0xc3);
    watch("context", &ctx, sizeof ctx);
    EXPECT_RC2(aesgen_init(&ctx, NULL, 0), AESGEN_ERR_NULL, AESGEN_ERR_KEY_LENGTH);
    WATCH_CHECK("aesgen_init(ctx, NULL, 0)");

    for (size_t i = 0; i < sizeof bad_lengths / sizeof bad_lengths[0]; i++) {
        size_t kl = bad_lengths[i];
        /* on a never-initialised (sentinel) context */
        fill(&ctx, sizeof ctx, 0xc3);
        watch("context", &ctx, sizeof ctx);
        int rc = aesgen_init(&ctx, key, kl);
        CHECK(rc == AESGEN_ERR_KEY_LENGTH, "aesgen_init(ctx, key, %zu) returned %d (%s), expected %s",
              kl, rc, st(rc), st(AESGEN_ERR_KEY_LENGTH));
        WATCH_CHECK("aesgen_init with a bad key length");
        /* on an initialised context: it must stay as it was, and usable */
        EXPECT_RC(aesgen_init(&good, key32, 16), AESGEN_OK);
        watch("initialised context", &good, sizeof good);
        rc = aesgen_init(&good, key, kl);
        CHECK(rc == AESGEN_ERR_KEY_LENGTH,
              "aesgen_init(initialised ctx, key, %zu) returned %d (%s), expected %s", kl, rc, st(rc),
              st(AESGEN_ERR_KEY_LENGTH));
        WATCH_CHECK("re-initialisation with a bad key length");
    }
    {
        /* still the first key after all those failures (FIPS-197 C.1) */
        uint8_t out[16];
        EXPECT_RC(aesgen_ecb_encrypt(&good, out, ts_fips197_pt, 16), AESGEN_OK);
        CHECK(memcmp(out, ts_fips197_ct[0], 16) == 0, "context changed by a failed aesgen_init");
    }
    EXPECT_RC2(aesgen_init(NULL, NULL, 7), AESGEN_ERR_NULL, AESGEN_ERR_KEY_LENGTH);

    for (size_t kl = 16; kl <= 32; kl += 8) {
        fill(&ctx, sizeof ctx, 0xc3);
        EXPECT_RC(aesgen_init(&ctx, key, kl), AESGEN_OK);
        for (int d = 0; d < 2; d++) {
            const char *v = aesgen_ctx_variant(&ctx, (aesgen_direction)d);
            const char *sel = aesgen_selected_variant((unsigned)kl * 8, (aesgen_direction)d);
            CHECK(v != NULL, "aesgen_ctx_variant after aesgen_init(%zu bytes) is NULL", kl);
            CHECK(streq(v, sel), "aesgen_ctx_variant (%s) differs from aesgen_selected_variant (%s)",
                  nn(v), nn(sel));
            const aesgen_variant *var = v ? aesgen_find_variant(v) : NULL;
            CHECK(var != NULL, "aesgen_find_variant(\"%s\") is NULL", nn(v));
            if (var)
                CHECK(var->key_bits == kl * 8 && var->direction == d,
                      "variant %s serves AES-%u direction %u, not AES-%zu direction %d", var->name,
                      (unsigned)var->key_bits, (unsigned)var->direction, kl * 8, d);
        }
    }
    aesgen_wipe(&ctx);
    aesgen_wipe(&good);
}

/* ------------------------------------------------------------------------ */
/* NULL pointers, lengths, overlap                                            */

void test_null_pointers(void)
{
    aesgen_ctx ctx;
    aesgen_ctr ctr;
    uint8_t buf[64], in[64], iv[16];
    EXPECT_RC(aesgen_init(&ctx, key32, 16), AESGEN_OK);
    fill(in, sizeof in, 1);

    for (int op = 0; op < TS_MODE_COUNT; op++) {
        aesgen_ctr *s = op == TS_MODE_CTR ? &ctr : NULL;
        uint8_t *v = ts_mode_is_cbc(op) ? iv : NULL;
        fill(buf, sizeof buf, 2);
        fill(iv, 16, 3);
        make_midblock_stream(&ctx, &ctr);

        EXPECT_FAILURE(op, NULL, v, s, buf, in, 16, AESGEN_ERR_NULL, buf, sizeof buf, "NULL ctx");
        EXPECT_FAILURE(op, NULL, v, s, buf, in, 0, AESGEN_ERR_NULL, buf, sizeof buf,
                       "NULL ctx, length 0");
        EXPECT_FAILURE(op, &ctx, v, s, NULL, in, 16, AESGEN_ERR_NULL, NULL, 0, "NULL out");
        EXPECT_FAILURE(op, &ctx, v, s, buf, NULL, 16, AESGEN_ERR_NULL, buf, sizeof buf, "NULL in");
        EXPECT_FAILURE(op, &ctx, v, s, NULL, NULL, 16, AESGEN_ERR_NULL, NULL, 0,
                       "NULL in and out");
        EXPECT_FAILURE(op, &ctx, v, s, buf, NULL, 32, AESGEN_ERR_NULL, buf, sizeof buf,
                       "NULL in, length 32");
        if (ts_mode_is_cbc(op)) {
            EXPECT_FAILURE(op, &ctx, NULL, NULL, buf, in, 16, AESGEN_ERR_NULL, buf, sizeof buf,
                           "NULL iv");
            EXPECT_FAILURE(op, &ctx, NULL, NULL, buf, in, 0, AESGEN_ERR_NULL, buf, sizeof buf,
                           "NULL iv, length 0 (iv has 16 bytes whatever the length)");
        }
        if (op == TS_MODE_CTR) {
            EXPECT_FAILURE(op, &ctx, NULL, NULL, buf, in, 16, AESGEN_ERR_NULL, buf, sizeof buf,
                           "NULL stream");
            EXPECT_FAILURE(op, &ctx, NULL, NULL, buf, in, 0, AESGEN_ERR_NULL, buf, sizeof buf,
                           "NULL stream, length 0");
        }

        /* Length 0: NULL in and/or out are fine, nothing changes. */
        const uint8_t *nul = NULL;
        for (int k = 0; k < 4; k++) {
            uint8_t *o = (k & 1) ? buf : NULL;
            const uint8_t *i = (k & 2) ? in : nul;
            char what[80];
            snprintf(what, sizeof what, "length 0 with in %s and out %s", i ? "valid" : "NULL",
                     o ? "valid" : "NULL");
            if (v)
                watch("iv", v, 16);
            if (s)
                watch("CTR stream", s, sizeof *s);
            watch("buffer", buf, sizeof buf);
            int rc = ts_crypt(op, &ctx, v, s, o, i, 0);
            CHECK(rc == AESGEN_OK, "%s, %s: returned %d (%s), expected success", op_name[op], what,
                  rc, st(rc));
            WATCH_CHECK(what);
        }
    }

    uint8_t counter[16];
    fill(counter, 16, 4);
    EXPECT_RC(aesgen_ctr_init(NULL, counter), AESGEN_ERR_NULL);
    make_midblock_stream(&ctx, &ctr);
    watch("CTR stream", &ctr, sizeof ctr);
    EXPECT_RC(aesgen_ctr_init(&ctr, NULL), AESGEN_ERR_NULL);
    WATCH_CHECK("aesgen_ctr_init(ctr, NULL)");
    EXPECT_RC(aesgen_ctr_init(NULL, NULL), AESGEN_ERR_NULL);
    aesgen_wipe(&ctx);
}

void test_lengths(void)
{
    static const size_t bad[] = { 1, 8, 15, 17, 31, 33, 47, 4097 };
    aesgen_ctx ctx;
    aesgen_ctr ctr;
    uint8_t *buf = malloc(8192), *in = malloc(8192), iv[16];
    if (!buf || !in) {
        printf("out of memory\n");
        exit(2);
    }
    EXPECT_RC(aesgen_init(&ctx, key32, 24), AESGEN_OK);
    fill(in, 8192, 5);
    for (int op = 0; op < TS_MODE_CTR; op++) {
        uint8_t *v = ts_mode_is_cbc(op) ? iv : NULL;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            char what[80];
            snprintf(what, sizeof what, "length %zu (not a multiple of 16)", bad[i]);
            fill(buf, 8192, 6);
            fill(iv, 16, 7);
            EXPECT_FAILURE(op, &ctx, v, NULL, buf, in, bad[i], AESGEN_ERR_LENGTH, buf, 8192, what);
            EXPECT_FAILURE(op, &ctx, v, NULL, buf, buf, bad[i], AESGEN_ERR_LENGTH, buf, 8192, what);
        }
    }

    /* Lengths whose buffer would run past the end of the address space. The
     * library has to refuse before it touches a byte. In place, so that the
     * overlap rule does not apply. */
    uintptr_t p = (uintptr_t)buf;
    size_t wrap1 = (size_t)(UINTPTR_MAX - p) + 2;            /* last byte wraps to address 0 */
    size_t wrap16 = (wrap1 + 15) & ~(size_t)15;              /* the same, whole blocks */
    const size_t huge_blocks[] = { SIZE_MAX & ~(size_t)15, wrap16, (SIZE_MAX / 2 + 1) };
    const size_t huge_bytes[] = { SIZE_MAX, wrap1, SIZE_MAX & ~(size_t)15, wrap16 };
    for (int op = 0; op < TS_MODE_COUNT; op++) {
        uint8_t *v = ts_mode_is_cbc(op) ? iv : NULL;
        aesgen_ctr *s = op == TS_MODE_CTR ? &ctr : NULL;
        const size_t *lens = op == TS_MODE_CTR ? huge_bytes : huge_blocks;
        size_t nlens = op == TS_MODE_CTR ? sizeof huge_bytes / sizeof huge_bytes[0]
                                    : sizeof huge_blocks / sizeof huge_blocks[0];
        for (size_t i = 0; i < nlens; i++) {
            char what[120];
            size_t len = lens[i];
            if ((uintptr_t)len <= UINTPTR_MAX - p)
                continue; /* would not wrap from this address (SIZE_MAX/2+1 on a low heap) */
            fill(buf, 8192, 8);
            fill(iv, 16, 9);
            make_midblock_stream(&ctx, &ctr);
            snprintf(what, sizeof what, "in place, length %zu (wraps the address space)", len);
            EXPECT_FAILURE(op, &ctx, v, s, buf, buf, len, AESGEN_ERR_LENGTH, buf, 8192, what);
            snprintf(what, sizeof what, "distinct buffers, length %zu (wraps)", len);
            EXPECT_FAILURE2(op, &ctx, v, s, buf + 4096, in, len, AESGEN_ERR_LENGTH,
                            AESGEN_ERR_OVERLAP, buf, 8192, what);
            snprintf(what, sizeof what, "NULL buffers, length %zu", len);
            EXPECT_FAILURE2(op, &ctx, v, s, NULL, NULL, len, AESGEN_ERR_NULL, AESGEN_ERR_LENGTH,
                            NULL, 0, what);
        }
    }
    /* SIZE_MAX is neither a multiple of 16 nor addressable. */
    fill(buf, 8192, 10);
    EXPECT_FAILURE(TS_MODE_ECB_ENC, &ctx, NULL, NULL, buf, buf, SIZE_MAX, AESGEN_ERR_LENGTH, buf, 8192,
                   "length SIZE_MAX");
    aesgen_wipe(&ctx);
    free(buf);
    free(in);
}

void test_overlap(void)
{
    aesgen_ctx ctx;
    aesgen_ctr ctr, ctr2;
    uint8_t region[256], ref[64], src[64], iv[16], iv2[16];
    EXPECT_RC(aesgen_init(&ctx, key32, 32), AESGEN_OK);

    for (int op = 0; op < TS_MODE_COUNT; op++) {
        uint8_t *v = ts_mode_is_cbc(op) ? iv : NULL;
        aesgen_ctr *s = op == TS_MODE_CTR ? &ctr : NULL;
        const size_t lens[2] = { 32, op == TS_MODE_CTR ? 5 : 48 };
        for (int li = 0; li < 2; li++) {
            size_t len = lens[li];
            const long shifts[] = { 1, 15, 16, (long)len - 1, 4 };
            for (size_t si = 0; si < sizeof shifts / sizeof shifts[0]; si++) {
                for (int sign = -1; sign <= 1; sign += 2) {
                    long d = sign * shifts[si];
                    if (shifts[si] <= 0 || (size_t)shifts[si] >= len)
                        continue;
                    uint8_t *in = region + 96, *out = region + 96 + d;
                    char what[120];
                    snprintf(what, sizeof what, "length %zu, out = in %+ld (overlap by %zu bytes)",
                             len, d, len - (size_t)shifts[si]);
                    fill(region, sizeof region, 11);
                    fill(iv, 16, 12);
                    make_midblock_stream(&ctx, &ctr);
                    EXPECT_FAILURE(op, &ctx, v, s, out, in, len, AESGEN_ERR_OVERLAP, region,
                                   sizeof region, what);
                }
            }
            /* Adjacent (no common byte), exactly in place, and length 0 with
             * shifted pointers are all fine and compute the right thing. */
            const long ok_shifts[] = { 0, (long)len, -(long)len };
            fill(src, sizeof src, 13);
            fill(iv2, 16, 14);
            make_midblock_stream(&ctx, &ctr2);
            EXPECT_RC(ts_crypt(op, &ctx, iv2, &ctr2, ref, src, len), AESGEN_OK);
            for (size_t k = 0; k < 3; k++) {
                uint8_t iv3[16];
                aesgen_ctr c3;
                uint8_t *in = region + 96, *out = region + 96 + ok_shifts[k];
                fill(region, sizeof region, 15);
                memcpy(in, src, len);
                fill(iv3, 16, 14);
                make_midblock_stream(&ctx, &c3);
                int rc = ts_crypt(op, &ctx, iv3, &c3, out, in, len);
                CHECK(rc == AESGEN_OK, "%s, length %zu, out = in %+ld: returned %d (%s)", op_name[op],
                      len, ok_shifts[k], rc, st(rc));
                CHECK(memcmp(out, ref, len) == 0,
                      "%s, length %zu, out = in %+ld: wrong output", op_name[op], len,
                      ok_shifts[k]);
            }
            for (long d = -3; d <= 3; d += 2) {
                char what[80];
                snprintf(what, sizeof what, "length 0 with out = in %+ld", d);
                fill(region, sizeof region, 16);
                watch("buffer", region, sizeof region);
                int rc = ts_crypt(op, &ctx, iv, &ctr, region + 96 + d, region + 96, 0);
                CHECK(rc == AESGEN_OK, "%s, %s: returned %d (%s)", op_name[op], what, rc, st(rc));
                WATCH_CHECK(what);
            }
        }
    }
    aesgen_wipe(&ctx);
}

/* ------------------------------------------------------------------------ */
/* Uninitialised and wiped contexts and streams                               */

void test_uninitialised(void)
{
    aesgen_ctx zero, wiped, ctx;
    aesgen_ctr ctr, zctr;
    uint8_t buf[64], in[64], iv[16];
    memset(&zero, 0, sizeof zero);
    EXPECT_RC(aesgen_init(&ctx, key32, 16), AESGEN_OK);
    EXPECT_RC(aesgen_init(&wiped, key32, 16), AESGEN_OK);
    aesgen_wipe(&wiped);
    fill(in, sizeof in, 17);

    for (int which = 0; which < 2; which++) {
        const aesgen_ctx *bad = which ? &wiped : &zero;
        const char *label = which ? "wiped context" : "zeroed (never initialised) context";
        for (int op = 0; op < TS_MODE_COUNT; op++) {
            uint8_t *v = ts_mode_is_cbc(op) ? iv : NULL;
            aesgen_ctr *s = op == TS_MODE_CTR ? &ctr : NULL;
            for (size_t len = 0; len <= 32; len += 16) {
                char what[120];
                snprintf(what, sizeof what, "%s, length %zu", label, len);
                fill(buf, sizeof buf, 18);
                fill(iv, 16, 19);
                make_midblock_stream(&ctx, &ctr);
                EXPECT_FAILURE(op, bad, v, s, buf, in, len, AESGEN_ERR_CONTEXT, buf, sizeof buf,
                               what);
            }
        }
        for (int d = 0; d < 2; d++) {
            const char *v = aesgen_ctx_variant(bad, (aesgen_direction)d);
            CHECK(v == NULL, "aesgen_ctx_variant(%s, %d) is \"%s\", expected NULL", label, d, nn(v));
        }
    }

    /* Streams: zeroed, and wiped after use. */
    memset(&zctr, 0, sizeof zctr);
    for (int which = 0; which < 2; which++) {
        const char *label = which ? "wiped CTR stream" : "zeroed (never initialised) CTR stream";
        if (which) {
            make_midblock_stream(&ctx, &zctr);
            aesgen_ctr_wipe(&zctr);
        }
        for (size_t len = 0; len <= 17; len += 17) {
            char what[120];
            snprintf(what, sizeof what, "%s, length %zu", label, len);
            fill(buf, sizeof buf, 20);
            EXPECT_FAILURE(TS_MODE_CTR, &ctx, NULL, &zctr, buf, in, len, AESGEN_ERR_CONTEXT, buf,
                           sizeof buf, what);
        }
    }
    /* A valid stream with a bad context leaves the stream alone. */
    make_midblock_stream(&ctx, &ctr);
    fill(buf, sizeof buf, 21);
    EXPECT_FAILURE(TS_MODE_CTR, &zero, NULL, &ctr, buf, in, 17, AESGEN_ERR_CONTEXT, buf, sizeof buf,
                   "valid stream, zeroed context");
    aesgen_wipe(&ctx);
}

/* ------------------------------------------------------------------------ */
/* Wiping                                                                     */

void test_wipe(void)
{
    aesgen_ctx ctx;
    aesgen_ctr ctr;
    size_t first = 0;
    int zero_ok;
    uint8_t buf[100];

    EXPECT_RC(aesgen_init(&ctx, key32, 32), AESGEN_OK);
    aesgen_wipe(&ctx);
    zero_ok = all_zero_volatile(&ctx, sizeof ctx, &first);
    CHECK(zero_ok, "aesgen_wipe left a non-zero byte at offset %zu of the context", first);
    {
        uint8_t tmp[16] = { 0 };
        EXPECT_RC(aesgen_init(&ctx, key32, 16), AESGEN_OK);
        make_midblock_stream(&ctx, &ctr);
        EXPECT_RC(aesgen_ctr_crypt(&ctx, &ctr, tmp, tmp, 16), AESGEN_OK);
    }
    aesgen_ctr_wipe(&ctr);
    zero_ok = all_zero_volatile(&ctr, sizeof ctr, &first);
    CHECK(zero_ok, "aesgen_ctr_wipe left a non-zero byte at offset %zu of the stream", first);
    aesgen_wipe(&ctx);

    fill(buf, sizeof buf, 22);
    {
        uint8_t before[100];
        memcpy(before, buf, sizeof buf);
        aesgen_memwipe(buf + 3, 50);
        zero_ok = all_zero_volatile(buf + 3, 50, &first);
        CHECK(zero_ok, "aesgen_memwipe left a non-zero byte at offset %zu", first);
        CHECK(memcmp(buf, before, 3) == 0 && memcmp(buf + 53, before + 53, 47) == 0,
              "aesgen_memwipe wrote outside [p, p + len)");
        memcpy(before, buf, sizeof buf);
        aesgen_memwipe(buf + 60, 0);
        CHECK(memcmp(buf, before, sizeof buf) == 0, "aesgen_memwipe with length 0 wrote something");
        aesgen_memwipe(NULL, 0); /* NULL with length 0 is allowed */
        aesgen_memwipe(buf, 1);
        CHECK(((volatile uint8_t *)buf)[0] == 0 && memcmp(buf + 1, before + 1, 99) == 0,
              "aesgen_memwipe of one byte");
    }
    {
        /* the inline 16-byte wipe of the GCM paths: exactly its 16 bytes */
        uint8_t w[48];
        fill(w, sizeof w, 23);
        uint8_t before[48];
        memcpy(before, w, sizeof w);
        aesgen_wipe16(w + 16);
        CHECK(all_zero_volatile(w + 16, 16, &first) && memcmp(w, before, 16) == 0 &&
                  memcmp(w + 32, before + 32, 16) == 0,
              "aesgen_wipe16 did not zero exactly its 16 bytes");
    }
}

/* The tag comparison GCM's open and verify return: 1 exactly when some byte of the first
 * n differs, for every length up to 33 (the 8-byte steps and the byte tail) and every
 * byte position and bit. */
void test_differs_public(void)
{
    uint8_t a[33], b[33];
    fill(a, sizeof a, 24);
    for (size_t n = 0; n <= sizeof a; n++) {
        memcpy(b, a, sizeof a);
        CHECK(aesgen_differs_public(a, b, n) == 0, "aesgen_differs_public says %zu equal bytes differ", n);
        for (size_t i = 0; i < n; i++)
            for (int bit = 0; bit < 8; bit++) {
                b[i] ^= (uint8_t)(1u << bit);
                CHECK(aesgen_differs_public(a, b, n) == 1,
                      "aesgen_differs_public misses bit %d of byte %zu of %zu", bit, i, n);
                b[i] ^= (uint8_t)(1u << bit);
            }
        if (n < sizeof a) { /* a difference past n is not looked at */
            b[n] ^= 0xff;
            CHECK(aesgen_differs_public(a, b, n) == 0, "aesgen_differs_public reads byte %zu of %zu", n, n);
        }
    }
}
