/* gcm_api_errors.c -- every refusal of the GCM API, each writing nothing (gcm_api.h). */
#include <stdio.h>
#include <string.h>

#include "gcm_api.h"

/* A stream of KAT4 sealed after the refusals: it must still give the known answer. */
static void finish_kat4_stream(aesgen_gcm_stream *s, int aad_done, size_t text_done, const char *after)
{
    uint8_t out[64] = {0}, tag[16] = {0};
    if (!aad_done)
        EXPECT_RC(aesgen_gcm_aad(s, KAT4->aad, KAT4->aad_len), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_update(s, out + text_done, KAT4->pt + text_done, KAT4->len - text_done), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_finish(s, tag, 16), AESGEN_OK);
    CHECK(memcmp(out + text_done, KAT4->ct + text_done, KAT4->len - text_done) == 0 && memcmp(tag, KAT4->tag, 16) == 0,
          "the stream gives a wrong answer after %s", after);
}

void test_null_pointers(void)
{
    aesgen_gcm_key key, other;
    aesgen_gcm_stream s;
    memset(&s, 0, sizeof s);
    uint8_t out[64] = {0}, tag[16] = {0};
    kat_key(&key, KAT4);
    const gcm_kat *k = KAT4;

    fill(&other, sizeof other, 1);
    watch("the key", &other, sizeof other);
    EXPECT_RC(aesgen_gcm_init(&other, NULL, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_init_variants(&other, NULL, 16, NULL, NULL), AESGEN_ERR_NULL);
    WATCH_CHECK("aesgen_gcm_init with a NULL key");
    EXPECT_RC(aesgen_gcm_init(NULL, k->key, 16), AESGEN_ERR_NULL);

    fill(out, sizeof out, 2);
    fill(tag, sizeof tag, 3);
    watch("out", out, sizeof out);
    watch("tag", tag, sizeof tag);
    EXPECT_RC(aesgen_gcm_seal(NULL, k->iv, 12, k->aad, 20, out, k->pt, 60, tag, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_seal(&key, NULL, 12, k->aad, 20, out, k->pt, 60, tag, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, NULL, 20, out, k->pt, 60, tag, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, k->aad, 20, NULL, k->pt, 60, tag, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, k->aad, 20, out, NULL, 60, tag, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, k->aad, 20, out, k->pt, 60, NULL, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_open(NULL, k->iv, 12, k->aad, 20, out, k->ct, 60, k->tag, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_open(&key, NULL, 12, k->aad, 20, out, k->ct, 60, k->tag, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, NULL, 20, out, k->ct, 60, k->tag, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 20, NULL, k->ct, 60, k->tag, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 20, out, NULL, 60, k->tag, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 20, out, k->ct, 60, NULL, 16), AESGEN_ERR_NULL);
    WATCH_CHECK("seal/open with a NULL pointer");

    fill(&s, sizeof s, 4);
    watch("the stream", &s, sizeof s);
    EXPECT_RC(aesgen_gcm_start(NULL, &key, AESGEN_ENCRYPT, k->iv, 12), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_start(&s, NULL, AESGEN_ENCRYPT, k->iv, 12), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, NULL, 12), AESGEN_ERR_NULL);
    WATCH_CHECK("aesgen_gcm_start with a NULL pointer");
    EXPECT_RC(aesgen_gcm_aad(NULL, k->aad, 20), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_update(NULL, out, k->pt, 60), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_finish(NULL, tag, 16), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_verify(NULL, k->tag, 16), AESGEN_ERR_NULL);

    /* refused calls on a live stream: nothing written, and the stream goes on */
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, k->iv, 12), AESGEN_OK);
    watch("the stream", &s, sizeof s);
    watch("out", out, sizeof out);
    watch("tag", tag, sizeof tag);
    EXPECT_RC(aesgen_gcm_aad(&s, NULL, 20), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_update(&s, NULL, k->pt, 60), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_update(&s, out, NULL, 60), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_finish(&s, NULL, 16), AESGEN_ERR_NULL);
    WATCH_CHECK("stream calls with a NULL pointer");
    EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_OK);
    watch("the stream", &s, sizeof s);
    EXPECT_RC(aesgen_gcm_update(&s, NULL, k->pt, 60), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_gcm_update(&s, out, NULL, 60), AESGEN_ERR_NULL);
    WATCH_CHECK("stream calls with a NULL pointer after the AAD");
    finish_kat4_stream(&s, 1, 0, "refused NULL pointers");

    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_DECRYPT, k->iv, 12), AESGEN_OK);
    watch("the stream", &s, sizeof s);
    EXPECT_RC(aesgen_gcm_verify(&s, NULL, 16), AESGEN_ERR_NULL);
    WATCH_CHECK("aesgen_gcm_verify with a NULL tag");
    EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_update(&s, out, k->ct, 60), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_verify(&s, k->tag, 16), AESGEN_OK);
    CHECK(memcmp(out, k->pt, 60) == 0, "decrypting stream after a refused verify: wrong plaintext");
    aesgen_gcm_wipe(&key);
}

void test_key_lengths(void)
{
    static const size_t bad[] = {0, 1, 8, 12, 15, 17, 20, 23, 25, 31, 33, 48, 64};
    uint8_t k[64] = {0};
    aesgen_gcm_key key;
    fill(k, sizeof k, 5);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char what[96];
        fill(&key, sizeof key, (uint8_t)i);
        watch("the key", &key, sizeof key);
        EXPECT_RC(aesgen_gcm_init(&key, k, bad[i]), AESGEN_ERR_KEY_LENGTH);
        EXPECT_RC(aesgen_gcm_init_variants(&key, k, bad[i], NULL, aesgen_pick_ghash()), AESGEN_ERR_KEY_LENGTH);
        snprintf(what, sizeof what, "aesgen_gcm_init with a %zu-byte key", bad[i]);
        WATCH_CHECK(what);
    }
    for (size_t n = 16; n <= 32; n += 8)
        EXPECT_RC(aesgen_gcm_init(&key, k, n), AESGEN_OK);
    aesgen_gcm_wipe(&key);
}

void test_iv_tag_lengths(void)
{
    static const size_t bad_tags[] = {0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 17, 24, 32};
    aesgen_gcm_key key;
    aesgen_gcm_stream s;
    memset(&s, 0, sizeof s);
    uint8_t out[64] = {0}, tag[32] = {0};
    const gcm_kat *k = KAT4;
    kat_key(&key, k);

    /* IV length 0 */
    fill(out, sizeof out, 6);
    fill(tag, sizeof tag, 7);
    fill(&s, sizeof s, 8);
    watch("out", out, sizeof out);
    watch("tag", tag, sizeof tag);
    watch("the stream", &s, sizeof s);
    EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 0, k->aad, 20, out, k->pt, 60, tag, 16), AESGEN_ERR_LENGTH);
    EXPECT_RC(aesgen_gcm_open(&key, k->iv, 0, k->aad, 20, out, k->ct, 60, k->tag, 16), AESGEN_ERR_LENGTH);
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, k->iv, 0), AESGEN_ERR_LENGTH);
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_DECRYPT, k->iv, 0), AESGEN_ERR_LENGTH);
    WATCH_CHECK("an IV of length 0");

    /* a direction that is neither */
    watch("the stream", &s, sizeof s);
    CHECK(aesgen_gcm_start(&s, &key, (aesgen_direction)2, k->iv, 12) != AESGEN_OK,
          "aesgen_gcm_start accepts direction 2");
    CHECK(aesgen_gcm_start(&s, &key, (aesgen_direction)-1, k->iv, 12) != AESGEN_OK,
          "aesgen_gcm_start accepts direction -1");
    WATCH_CHECK("aesgen_gcm_start with a bad direction");

    /* tag lengths GCM does not allow: refused everywhere, nothing written */
    for (size_t i = 0; i < sizeof bad_tags / sizeof bad_tags[0]; i++) {
        const size_t t = bad_tags[i];
        char what[96];
        snprintf(what, sizeof what, "a %zu-byte tag", t);
        watch("out", out, sizeof out);
        watch("tag", tag, sizeof tag);
        EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, k->aad, 20, out, k->pt, 60, tag, t), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 20, out, k->ct, 60, k->tag, t), AESGEN_ERR_LENGTH);
        WATCH_CHECK(what);

        EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, k->iv, 12), AESGEN_OK);
        EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_OK);
        EXPECT_RC(aesgen_gcm_update(&s, out, k->pt, 25), AESGEN_OK);
        watch("the stream", &s, sizeof s);
        watch("tag", tag, sizeof tag);
        EXPECT_RC(aesgen_gcm_finish(&s, tag, t), AESGEN_ERR_LENGTH);
        WATCH_CHECK(what);
        finish_kat4_stream(&s, 1, 25, "aesgen_gcm_finish refused a tag length");

        uint8_t pt[64] = {0};
        EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_DECRYPT, k->iv, 12), AESGEN_OK);
        EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_OK);
        EXPECT_RC(aesgen_gcm_update(&s, pt, k->ct, 60), AESGEN_OK);
        watch("the stream", &s, sizeof s);
        EXPECT_RC(aesgen_gcm_verify(&s, k->tag, t), AESGEN_ERR_LENGTH);
        WATCH_CHECK(what);
        EXPECT_RC(aesgen_gcm_verify(&s, k->tag, 16), AESGEN_OK);
    }
    aesgen_gcm_wipe(&key);
}

/* At most 2^36 - 32 bytes of text, 2^61 - 1 of AAD (checked before any byte is read),
 * and no buffer that wraps the address space. */
void test_message_limits(void)
{
    aesgen_gcm_key key;
    aesgen_gcm_stream s;
    memset(&s, 0, sizeof s);
    uint8_t buf[64] = {0}, tag[16] = {0};
    const gcm_kat *k = KAT4;
    kat_key(&key, k);
    fill(buf, sizeof buf, 9);
    fill(tag, sizeof tag, 10);
    watch("the buffer", buf, sizeof buf);
    watch("tag", tag, sizeof tag);
#if SIZE_MAX > 0xffffffffu
    {
        const size_t too_long = ((size_t)1 << 36) - 31; /* 2^36 - 32 + 1 */
        const size_t aad_too_long = (size_t)1 << 61;
        EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, NULL, 0, buf, buf, too_long, tag, 16), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, NULL, 0, buf, buf, too_long, tag, 16), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, buf, aad_too_long, buf, buf, 16, tag, 16), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, buf, aad_too_long, buf, buf, 16, tag, 16), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, k->iv, 12), AESGEN_OK);
        watch("the stream", &s, sizeof s);
        EXPECT_RC(aesgen_gcm_aad(&s, buf, aad_too_long), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_gcm_update(&s, buf, buf, too_long), AESGEN_ERR_LENGTH);
        WATCH_CHECK("a message over the limits of SP 800-38D");
        watch("the buffer", buf, sizeof buf);
        watch("tag", tag, sizeof tag);
        finish_kat4_stream(&s, 0, 0, "refused lengths");
    }
#else
    printf("note: size_t has %zu bits, the 2^36-byte limit is not reachable\n", sizeof(size_t) * 8);
    (void)s;
#endif
    /* a buffer that would wrap the address space */
    uint8_t *top = (uint8_t *)(uintptr_t)(UINTPTR_MAX - 15);
    EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, NULL, 0, top, top, 64, tag, 16), AESGEN_ERR_LENGTH);
    EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, NULL, 0, top, top, 64, tag, 16), AESGEN_ERR_LENGTH);
    WATCH_CHECK("buffers that wrap the address space");
    aesgen_gcm_wipe(&key);
}

void test_overlap(void)
{
    aesgen_gcm_key key;
    aesgen_gcm_stream s;
    memset(&s, 0, sizeof s);
    uint8_t buf[256] = {0}, tag[16] = {0};
    const gcm_kat *k = KAT4;
    const size_t len = k->len;
    static const long shifts[] = {1, 15, 16, 17, 59, -1, -15, -16, -17, -59};
    kat_key(&key, k);
    for (size_t i = 0; i < sizeof shifts / sizeof shifts[0]; i++) {
        uint8_t *in = buf + 96, *out = in + shifts[i];
        char what[64];
        snprintf(what, sizeof what, "out = in %+ld, %zu bytes", shifts[i], len);
        memcpy(in, k->pt, len);
        fill(tag, sizeof tag, 11);
        watch("the buffers", buf, sizeof buf);
        watch("tag", tag, sizeof tag);
        EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, k->aad, 20, out, in, len, tag, 16), AESGEN_ERR_OVERLAP);
        EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 20, out, in, len, k->tag, 16), AESGEN_ERR_OVERLAP);
        EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, k->iv, 12), AESGEN_OK);
        EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_OK);
        watch("the stream", &s, sizeof s);
        EXPECT_RC(aesgen_gcm_update(&s, out, in, len), AESGEN_ERR_OVERLAP);
        WATCH_CHECK(what);
        finish_kat4_stream(&s, 1, 0, "a refused overlapping update");
    }
    /* adjacent buffers do not overlap */
    for (int side = 0; side < 2; side++) {
        uint8_t *in = buf + 96, *out = side ? in + len : in - len;
        memcpy(in, k->pt, len);
        EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, k->aad, 20, out, in, len, tag, 16), AESGEN_OK);
        CHECK(memcmp(out, k->ct, len) == 0 && memcmp(tag, k->tag, 16) == 0, "adjacent buffers (%s): wrong result",
              side ? "out after in" : "out before in");
    }
    aesgen_gcm_wipe(&key);
}

void test_uninitialised(void)
{
    aesgen_gcm_key key, good;
    aesgen_gcm_stream s;
    memset(&s, 0, sizeof s);
    uint8_t out[64] = {0}, tag[16] = {0};
    const gcm_kat *k = KAT4;
    kat_key(&good, k);
    for (int kind = 0; kind < 3; kind++) {
        static const char *const kinds[] = {"a zeroed key", "a key of garbage", "a wiped key"};
        if (kind == 0)
            memset(&key, 0, sizeof key);
        else if (kind == 1)
            fill(&key, sizeof key, 0xa5);
        else {
            kat_key(&key, k);
            aesgen_gcm_wipe(&key);
        }
        fill(out, sizeof out, 12);
        fill(tag, sizeof tag, 13);
        fill(&s, sizeof s, 14);
        watch("out", out, sizeof out);
        watch("tag", tag, sizeof tag);
        watch("the stream", &s, sizeof s);
        watch("the key", &key, sizeof key);
        EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, k->aad, 20, out, k->pt, 60, tag, 16), AESGEN_ERR_CONTEXT);
        EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 20, out, k->ct, 60, k->tag, 16), AESGEN_ERR_CONTEXT);
        EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, k->iv, 12), AESGEN_ERR_CONTEXT);
        CHECK(aesgen_gcm_variant(&key) == NULL && aesgen_gcm_ghash(&key) == NULL, "%s names a variant", kinds[kind]);
        WATCH_CHECK(kinds[kind]);
    }
    /* streams never started (zeroed, garbage) or wiped */
    for (int kind = 0; kind < 3; kind++) {
        static const char *const kinds[] = {"a zeroed stream", "a stream of garbage", "a wiped stream"};
        if (kind == 0)
            memset(&s, 0, sizeof s);
        else if (kind == 1)
            fill(&s, sizeof s, 0x5a);
        else {
            EXPECT_RC(aesgen_gcm_start(&s, &good, AESGEN_ENCRYPT, k->iv, 12), AESGEN_OK);
            aesgen_gcm_stream_wipe(&s);
        }
        fill(out, sizeof out, 15);
        fill(tag, sizeof tag, 16);
        watch("out", out, sizeof out);
        watch("tag", tag, sizeof tag);
        watch("the stream", &s, sizeof s);
        EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_ERR_CONTEXT);
        EXPECT_RC(aesgen_gcm_update(&s, out, k->pt, 60), AESGEN_ERR_CONTEXT);
        EXPECT_RC(aesgen_gcm_finish(&s, tag, 16), AESGEN_ERR_CONTEXT);
        EXPECT_RC(aesgen_gcm_verify(&s, k->tag, 16), AESGEN_ERR_CONTEXT);
        WATCH_CHECK(kinds[kind]);
    }
    aesgen_gcm_wipe(&good);
}

/* A NULL aad, in or out is fine where its length is 0. */
void test_zero_lengths(void)
{
    aesgen_gcm_key key;
    aesgen_gcm_stream s;
    memset(&s, 0, sizeof s);
    uint8_t tag[16] = {0}, dummy[16] = {0};
    const gcm_kat *k = &gcm_kats[0]; /* test case 1: empty AAD and text */
    kat_key(&key, k);
    memset(tag, 0, sizeof tag);
    EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, NULL, 0, NULL, NULL, 0, tag, 16), AESGEN_OK);
    CHECK(memcmp(tag, k->tag, 16) == 0, "seal of nothing with NULL pointers: wrong tag");
    memset(tag, 0, sizeof tag);
    EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, dummy, 0, dummy, NULL, 0, tag, 16), AESGEN_OK);
    CHECK(memcmp(tag, k->tag, 16) == 0, "seal of nothing (AAD and out given, in NULL): wrong tag");
    EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, NULL, 0, NULL, NULL, 0, k->tag, 16), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, NULL, 0, NULL, dummy, 0, k->tag, 12), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, k->iv, 12), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_aad(&s, NULL, 0), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_update(&s, NULL, NULL, 0), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_update(&s, NULL, NULL, 0), AESGEN_OK);
    memset(tag, 0, sizeof tag);
    EXPECT_RC(aesgen_gcm_finish(&s, tag, 16), AESGEN_OK);
    CHECK(memcmp(tag, k->tag, 16) == 0, "streamed seal of nothing with NULL pointers: wrong tag");
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_DECRYPT, k->iv, 12), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_aad(&s, NULL, 0), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_update(&s, NULL, NULL, 0), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_verify(&s, k->tag, 16), AESGEN_OK);
    aesgen_gcm_wipe(&key);
}
