/* gcm_api_stream.c -- the stream's order of calls and tags that do not authenticate
 * (gcm_api.h). */
#include <stdio.h>
#include <string.h>

#include "gcm_api.h"

/* Every call on a finished stream is AESGEN_ERR_STATE and writes nothing. */
static void expect_done(aesgen_gcm_stream *s, const char *what)
{
    uint8_t out[64] = {0}, tag[16] = {0};
    const gcm_kat *k = KAT4;
    fill(out, sizeof out, 21);
    fill(tag, sizeof tag, 22);
    watch("the stream", s, sizeof *s);
    watch("out", out, sizeof out);
    watch("tag", tag, sizeof tag);
    EXPECT_RC(aesgen_gcm_aad(s, k->aad, 20), AESGEN_ERR_STATE);
    EXPECT_RC(aesgen_gcm_aad(s, k->aad, 0), AESGEN_ERR_STATE);
    EXPECT_RC(aesgen_gcm_update(s, out, k->pt, 60), AESGEN_ERR_STATE);
    EXPECT_RC(aesgen_gcm_update(s, out, k->pt, 0), AESGEN_ERR_STATE);
    EXPECT_RC(aesgen_gcm_finish(s, tag, 16), AESGEN_ERR_STATE);
    EXPECT_RC(aesgen_gcm_verify(s, k->tag, 16), AESGEN_ERR_STATE);
    EXPECT_RC(aesgen_gcm_verify(s, tag, 16), AESGEN_ERR_STATE);
    WATCH_CHECK(what);
}

void test_stream_order_encrypt(void)
{
    aesgen_gcm_key key;
    aesgen_gcm_stream s;
    memset(&s, 0, sizeof s);
    uint8_t out[64] = {0}, tag[16] = {0};
    const gcm_kat *k = KAT4;
    kat_key(&key, k);
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, k->iv, 12), AESGEN_OK);

    /* verify belongs to decrypting streams: refused before, between and after the data */
    watch("the stream", &s, sizeof s);
    EXPECT_RC(aesgen_gcm_verify(&s, k->tag, 16), AESGEN_ERR_STATE);
    WATCH_CHECK("aesgen_gcm_verify on an encrypting stream, before the AAD");
    EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 9), AESGEN_OK);
    /* empty pieces, NULL allowed, with a partial block pending (the fuzzer's find:
     * no memcpy from NULL under UBSan) */
    EXPECT_RC(aesgen_gcm_aad(&s, NULL, 0), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_aad(&s, k->aad + 9, 11), AESGEN_OK);
    watch("the stream", &s, sizeof s);
    EXPECT_RC(aesgen_gcm_verify(&s, k->tag, 16), AESGEN_ERR_STATE);
    WATCH_CHECK("aesgen_gcm_verify on an encrypting stream, after the AAD");
    EXPECT_RC(aesgen_gcm_update(&s, out, k->pt, 23), AESGEN_OK);

    /* AAD after data */
    watch("the stream", &s, sizeof s);
    watch("out", out + 23, sizeof out - 23);
    EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_ERR_STATE);
    EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 1), AESGEN_ERR_STATE);
    EXPECT_RC(aesgen_gcm_verify(&s, k->tag, 16), AESGEN_ERR_STATE);
    WATCH_CHECK("AAD (or verify) after data on an encrypting stream");

    /* the stream goes on as if they had not happened */
    EXPECT_RC(aesgen_gcm_update(&s, NULL, NULL, 0), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_update(&s, out + 23, k->pt + 23, 37), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_finish(&s, tag, 16), AESGEN_OK);
    CHECK(memcmp(out, k->ct, 60) == 0 && memcmp(tag, k->tag, 16) == 0,
          "encrypting stream after refused calls: wrong ciphertext or tag");
    expect_done(&s, "calls after aesgen_gcm_finish");

    /* finish straight after start: the tag of empty AAD and text */
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, k->iv, 12), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_finish(&s, tag, 16), AESGEN_OK);
    uint8_t expect[16] = {0};
    EXPECT_RC(aesgen_gcm_seal(&key, k->iv, 12, NULL, 0, NULL, NULL, 0, expect, 16), AESGEN_OK);
    CHECK(memcmp(tag, expect, 16) == 0, "finish straight after start differs from the one-shot seal of nothing");
    expect_done(&s, "calls after an empty stream's aesgen_gcm_finish");
    aesgen_gcm_wipe(&key);
}

void test_stream_order_decrypt(void)
{
    aesgen_gcm_key key;
    aesgen_gcm_stream s;
    memset(&s, 0, sizeof s);
    uint8_t out[64] = {0}, tag[16] = {0};
    const gcm_kat *k = KAT4;
    kat_key(&key, k);
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_DECRYPT, k->iv, 12), AESGEN_OK);

    /* finish belongs to encrypting streams */
    fill(tag, sizeof tag, 23);
    watch("the stream", &s, sizeof s);
    watch("tag", tag, sizeof tag);
    EXPECT_RC(aesgen_gcm_finish(&s, tag, 16), AESGEN_ERR_STATE);
    WATCH_CHECK("aesgen_gcm_finish on a decrypting stream, before the AAD");
    EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_update(&s, out, k->ct, 41), AESGEN_OK);
    watch("the stream", &s, sizeof s);
    watch("tag", tag, sizeof tag);
    watch("out", out + 41, sizeof out - 41);
    EXPECT_RC(aesgen_gcm_finish(&s, tag, 16), AESGEN_ERR_STATE);
    EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_ERR_STATE);
    WATCH_CHECK("finish or AAD after data on a decrypting stream");
    EXPECT_RC(aesgen_gcm_update(&s, out + 41, k->ct + 41, 19), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_verify(&s, k->tag, 16), AESGEN_OK);
    CHECK(memcmp(out, k->pt, 60) == 0, "decrypting stream after refused calls: wrong plaintext");
    expect_done(&s, "calls after aesgen_gcm_verify");

    /* after a verify that fails, the stream is finished all the same */
    uint8_t bad[16] = {0};
    memcpy(bad, k->tag, 16);
    bad[15] ^= 0x80;
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_DECRYPT, k->iv, 12), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_update(&s, out, k->ct, 60), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_verify(&s, bad, 16), AESGEN_ERR_AUTH);
    expect_done(&s, "calls after an aesgen_gcm_verify that refused the tag");
    aesgen_gcm_wipe(&key);
}

/* Refused calls of every kind in the middle of a stream: nothing changes, and the
 * stream then gives the known answer, whatever the split. */
void test_stream_refusals(void)
{
    aesgen_gcm_key key;
    aesgen_gcm_stream s;
    memset(&s, 0, sizeof s);
    uint8_t buf[160] = {0}, tag[16] = {0};
    const gcm_kat *k = KAT4;
    /* text cut after some data (whether an empty update ends the AAD is not part of
     * the contract, so at least one byte goes first) */
    static const size_t cuts[] = {1, 5, 15, 16, 17, 31, 32, 33, 48, 59, 60};
    kat_key(&key, k);
    for (size_t ci = 0; ci < sizeof cuts / sizeof cuts[0]; ci++) {
        const size_t cut = cuts[ci];
        uint8_t *out = buf + 8;
        EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, k->iv, 12), AESGEN_OK);
        EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 5), AESGEN_OK);
        watch("the stream", &s, sizeof s);
        EXPECT_RC(aesgen_gcm_aad(&s, NULL, 3), AESGEN_ERR_NULL);
        EXPECT_RC(aesgen_gcm_finish(&s, tag, 9), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_gcm_verify(&s, k->tag, 16), AESGEN_ERR_STATE);
        WATCH_CHECK("refusals in the AAD");
        EXPECT_RC(aesgen_gcm_aad(&s, k->aad + 5, 15), AESGEN_OK);
        EXPECT_RC(aesgen_gcm_update(&s, out, k->pt, cut), AESGEN_OK);
        memcpy(buf + 80, k->pt + cut, k->len - cut);
        watch("the stream", &s, sizeof s);
        watch("the buffers", buf, sizeof buf);
        if (k->len - cut >= 2) { /* one byte apart: overlapping */
            EXPECT_RC(aesgen_gcm_update(&s, buf + 81, buf + 80, k->len - cut), AESGEN_ERR_OVERLAP);
            EXPECT_RC(aesgen_gcm_update(&s, buf + 79, buf + 80, k->len - cut), AESGEN_ERR_OVERLAP);
        }
        EXPECT_RC(aesgen_gcm_update(&s, NULL, buf + 80, 1), AESGEN_ERR_NULL);
        EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 1), AESGEN_ERR_STATE);
        EXPECT_RC(aesgen_gcm_finish(&s, tag, 0), AESGEN_ERR_LENGTH);
        WATCH_CHECK("refusals in the text");
        EXPECT_RC(aesgen_gcm_update(&s, out + cut, buf + 80, k->len - cut), AESGEN_OK);
        EXPECT_RC(aesgen_gcm_finish(&s, tag, 13), AESGEN_OK);
        CHECK(memcmp(out, k->ct, k->len) == 0 && memcmp(tag, k->tag, 13) == 0,
              "stream with refusals, text cut at %zu: wrong ciphertext or tag", cut);
    }
    aesgen_gcm_wipe(&key);
}

/* A stream refers to its key: once the key is wiped, the stream is refused. */
void test_stream_key_wiped(void)
{
    aesgen_gcm_key key;
    aesgen_gcm_stream s;
    memset(&s, 0, sizeof s);
    uint8_t out[64] = {0}, tag[16] = {0};
    const gcm_kat *k = KAT4;
    kat_key(&key, k);
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, k->iv, 12), AESGEN_OK);
    EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_OK);
    aesgen_gcm_wipe(&key);
    fill(out, sizeof out, 24);
    fill(tag, sizeof tag, 25);
    watch("the stream", &s, sizeof s);
    watch("out", out, sizeof out);
    watch("tag", tag, sizeof tag);
    EXPECT_RC(aesgen_gcm_aad(&s, k->aad, 20), AESGEN_ERR_CONTEXT);
    EXPECT_RC(aesgen_gcm_update(&s, out, k->pt, 60), AESGEN_ERR_CONTEXT);
    EXPECT_RC(aesgen_gcm_finish(&s, tag, 16), AESGEN_ERR_CONTEXT);
    WATCH_CHECK("a stream whose key was wiped");
    aesgen_gcm_stream_wipe(&s);
}

/* Tags that do not authenticate: AESGEN_ERR_AUTH, and open writes not one byte. */
void test_auth_failures(void)
{
    aesgen_gcm_key key, other;
    uint8_t out[64] = {0}, buf[64] = {0}, bad[16] = {0};
    const gcm_kat *k = KAT4;
    kat_key(&key, k);
    for (size_t t = 0; t < GCM_TAG_LENGTH_COUNT; t++) {
        const size_t tl = gcm_tag_lengths[t];
        for (size_t pos = 0; pos < tl; pos++) {
            char what[96];
            snprintf(what, sizeof what, "open with byte %zu of a %zu-byte tag changed", pos, tl);
            memcpy(bad, k->tag, 16);
            bad[pos] ^= (uint8_t)(1u << (pos % 8));
            fill(out, sizeof out, 26);
            memcpy(buf, k->ct, k->len);
            watch("out", out, sizeof out);
            watch("the in-place buffer", buf, sizeof buf);
            EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 20, out, k->ct, 60, bad, tl), AESGEN_ERR_AUTH);
            EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 20, buf, buf, 60, bad, tl), AESGEN_ERR_AUTH);
            WATCH_CHECK(what);
        }
        /* only tag_len bytes count: a difference past them is not looked at */
        memcpy(bad, k->tag, 16);
        if (tl < 16) {
            bad[tl] ^= 0xff;
            EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 20, out, k->ct, 60, bad, tl), AESGEN_OK);
            CHECK(memcmp(out, k->pt, 60) == 0, "open with a %zu-byte tag: wrong plaintext", tl);
        }
    }
    /* an all-zero tag, another key, another IV */
    memset(bad, 0, sizeof bad);
    fill(out, sizeof out, 27);
    watch("out", out, sizeof out);
    EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 20, out, k->ct, 60, bad, 16), AESGEN_ERR_AUTH);
    EXPECT_RC(aesgen_gcm_open(&key, gcm_kats[3].iv, 8, k->aad, 20, out, k->ct, 60, k->tag, 16), AESGEN_ERR_AUTH);
    EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 19, out, k->ct, 60, k->tag, 16), AESGEN_ERR_AUTH);
    EXPECT_RC(aesgen_gcm_open(&key, k->iv, 12, k->aad, 20, out, k->ct, 59, k->tag, 16), AESGEN_ERR_AUTH);
    kat_key(&other, &gcm_kats[6]);
    EXPECT_RC(aesgen_gcm_open(&other, k->iv, 12, k->aad, 20, out, k->ct, 60, k->tag, 16), AESGEN_ERR_AUTH);
    WATCH_CHECK("open of a message that does not authenticate");
    aesgen_gcm_wipe(&key);
    aesgen_gcm_wipe(&other);
}
