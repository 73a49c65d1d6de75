/*
 * constant_time_gcm.c -- aesgen_ct_test, GCM: every GHASH variant this CPU runs, over a
 * portable AES variant of each key size, with the key, the data and the AAD marked
 * secret. Sealing and opening, one-shot and streamed in uneven pieces, with 12-byte IVs
 * (public counter) and other lengths (the counter comes from GHASH under the key and is
 * secret). The IV itself is public, as SP 800-38D has it.
 *
 * The one secret the library makes public is the verdict of a tag check, which its API
 * returns: it declares that through aesgen_declassify, overridden here to tell memcheck.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "constant_time_test.h"
#include "ts_report.h"

/* The library's weak no-op, replaced: the tag verdict is public by design. */
void aesgen_declassify(const void *p, size_t len)
{
    PUBLIC(p, len);
}

#define MAX_TEXT 512
#define MAX_AAD 48
#define MAX_IV 60

typedef struct gcm_case {
    const char *name;
    size_t key_len, iv_len, aad_len, len;
    const char *key, *iv, *aad, *pt, *ct, *tag; /* hex */
} gcm_case;

/* Test case 4 of McGrew and Viega's GCM specification, its AES-256 twin, and both with a
 * 60-byte IV (values checked against OpenSSL 3). */
#define KAT_KEY "feffe9928665731c6d6a8f9467308308"
#define KAT_PT                                                                               \
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e" \
    "2449a6b525b16aedf5aa0de657ba637b39"
#define KAT_AAD "feedfacedeadbeeffeedfacedeadbeefabaddad2"
#define KAT_IV60                                                                             \
    "9313225df88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e" \
    "2449a6b525b16aedf5aa0de657ba637b39"
static const gcm_case kats[] = {
    { "AES-128, 12-byte IV", 16, 12, 20, 60, KAT_KEY, "cafebabefacedbaddecaf888", KAT_AAD, KAT_PT,
      "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5a"
      "ac84aa051ba30b396a0aac973d58e091",
      "5bc94fbc3221a5db94fae95ae7121a47" },
    { "AES-128, 60-byte IV", 16, 60, 20, 60, KAT_KEY, KAT_IV60, KAT_AAD, KAT_PT,
      "2b4b26fb49f400296428f090cdb8671a60f2f674c7d2635c67c52763caccfb7afbde37c47ceaeaf102e38224"
      "d71d8e8c6a6ed055a28dcef35ee92cd9",
      "9a58d4b7c0030413d4cc72a5b67c11df" },
    { "AES-256, 12-byte IV", 32, 12, 20, 60, KAT_KEY KAT_KEY, "cafebabefacedbaddecaf888", KAT_AAD,
      KAT_PT,
      "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b10"
      "56828838c5f61e6393ba7a0abcc9f662",
      "76fc6ece0f4e1768cddf8853bb2d551b" },
    { "AES-256, 60-byte IV", 32, 60, 20, 60, KAT_KEY KAT_KEY, KAT_IV60, KAT_AAD, KAT_PT,
      "ad91c20c78578a3e00a17347f616a4ef7dcd5ec3943ee3be1b08cc36222b1d81d7321dcbcb742fe5668d3df7"
      "81ce8580d83d7f11ca724410fe7ec496",
      "1b234dbd410402a54dadffc11e7d70f3" },
};

static void unhex(uint8_t *out, const char *hex, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

/* A GCM key served by exactly this AES variant and GHASH, set up from a secret key. */
static int gcm_setup(const char *label, aesgen_gcm_key *key, const uint8_t *key_public,
                     size_t key_len, const aesgen_variant *aes, const aesgen_ghash_variant *g)
{
    uint8_t k[32];
    const char *served_aes, *served_ghash;

    secret_copy(k, key_public, key_len);
    if (!check_ok(label, "aesgen_gcm_init_variants", 0,
                  aesgen_gcm_init_variants(key, k, key_len, aes, g))) {
        return 0;
    }
    aesgen_memwipe(k, sizeof k);
    served_aes = aesgen_gcm_variant(key);
    served_ghash = aesgen_gcm_ghash(key);
    if (served_aes == NULL || strcmp(served_aes, aes->name) != 0 || served_ghash == NULL ||
        strcmp(served_ghash, g->name) != 0) {
        fail(label, "GCM key not served by the requested variants", served_aes, 0);
        return 0;
    }
    return 1;
}

/* Seal and open one message every way the API offers; want_ct/want_tag are the public
 * expected results. The streamed calls cut the AAD and the text at `cut`. */
static void gcm_message(const char *label, const aesgen_gcm_key *key, const uint8_t *iv,
                        size_t iv_len, const uint8_t *aad_public, size_t aad_len,
                        const uint8_t *pt_public, size_t len, const uint8_t *want_ct,
                        const uint8_t *want_tag, size_t cut)
{
    uint8_t aad[MAX_AAD], pt[MAX_TEXT], ct[MAX_TEXT], out[MAX_TEXT], tag[16], bad[16];
    aesgen_gcm_stream s;
    const size_t nb = (len + 15) / 16;
    size_t a1 = cut < aad_len ? cut : aad_len, t1 = cut < len ? cut : len, t2;

    t2 = t1 + (len - t1) / 2;
    secret_copy(aad, aad_public, aad_len);
    secret_copy(pt, pt_public, len);

    /* one-shot seal, in place too */
    if (check_ok(label, "aesgen_gcm_seal", nb,
                 aesgen_gcm_seal(key, iv, iv_len, aad, aad_len, ct, pt, len, tag, 16))) {
        check_equal(label, "seal: ciphertext", nb, ct, want_ct, len);
        check_equal(label, "seal: tag", nb, tag, want_tag, 16);
    }
    secret_copy(out, pt_public, len);
    if (check_ok(label, "aesgen_gcm_seal in place", nb,
                 aesgen_gcm_seal(key, iv, iv_len, aad, aad_len, out, out, len, tag, 12))) {
        check_equal(label, "seal in place: ciphertext", nb, out, want_ct, len);
        check_equal(label, "seal in place: 12-byte tag", nb, tag, want_tag, 12);
    }

    /* streamed seal: AAD in two pieces, text in three of uneven length */
    if (check_ok(label, "aesgen_gcm_start (seal)", nb,
                 aesgen_gcm_start(&s, key, AESGEN_ENCRYPT, iv, iv_len)) &&
        check_ok(label, "aesgen_gcm_aad", nb, aesgen_gcm_aad(&s, aad, a1)) &&
        check_ok(label, "aesgen_gcm_aad", nb, aesgen_gcm_aad(&s, aad + a1, aad_len - a1)) &&
        check_ok(label, "aesgen_gcm_update", nb, aesgen_gcm_update(&s, ct, pt, t1)) &&
        check_ok(label, "aesgen_gcm_update", nb, aesgen_gcm_update(&s, ct + t1, pt + t1, t2 - t1)) &&
        check_ok(label, "aesgen_gcm_update", nb,
                 aesgen_gcm_update(&s, ct + t2, pt + t2, len - t2)) &&
        check_ok(label, "aesgen_gcm_finish", nb, aesgen_gcm_finish(&s, tag, 16))) {
        check_equal(label, "streamed seal: ciphertext", nb, ct, want_ct, len);
        check_equal(label, "streamed seal: tag", nb, tag, want_tag, 16);
    }
    aesgen_gcm_stream_wipe(&s);

    /* one-shot open of the (secret) ciphertext with the right tag */
    secret_copy(ct, want_ct, len);
    memcpy(tag, want_tag, 16);
    if (check_ok(label, "aesgen_gcm_open", nb,
                 aesgen_gcm_open(key, iv, iv_len, aad, aad_len, out, ct, len, tag, 16))) {
        check_equal(label, "open: plaintext", nb, out, pt_public, len);
    }

    /* a forged tag: AESGEN_ERR_AUTH, and out untouched */
    memcpy(bad, want_tag, 16);
    bad[len % 16] ^= 0x80;
    memset(out, 0xa5, sizeof out);
    ++g_library_calls;
    if (aesgen_gcm_open(key, iv, iv_len, aad, aad_len, out, ct, len, bad, 16) != AESGEN_ERR_AUTH) {
        fail(label, "open accepted a forged tag", NULL, nb);
    } else {
        size_t i;
        for (i = 0; i < sizeof out && out[i] == 0xa5; ++i) {
        }
        if (i != sizeof out) {
            fail(label, "open wrote output for a forged tag", NULL, nb);
        }
    }

    /* streamed open, then verify */
    if (check_ok(label, "aesgen_gcm_start (open)", nb,
                 aesgen_gcm_start(&s, key, AESGEN_DECRYPT, iv, iv_len)) &&
        check_ok(label, "aesgen_gcm_aad", nb, aesgen_gcm_aad(&s, aad, aad_len)) &&
        check_ok(label, "aesgen_gcm_update", nb, aesgen_gcm_update(&s, out, ct, t2)) &&
        check_ok(label, "aesgen_gcm_update", nb,
                 aesgen_gcm_update(&s, out + t2, ct + t2, len - t2)) &&
        check_ok(label, "aesgen_gcm_verify", nb, aesgen_gcm_verify(&s, tag, 16))) {
        check_equal(label, "streamed open: plaintext", nb, out, pt_public, len);
    }
    aesgen_gcm_stream_wipe(&s);
}

/* The text lengths: every residue around the GHASH width and the 16-block counter chunk. */
static size_t gcm_lengths(size_t ghash_blocks, size_t *out, size_t cap)
{
    const size_t w = 16 * ghash_blocks;
    const size_t pick[] = { 0, 1, 15, 16, 17, w - 1, w, w + 1, 2 * w - 1, 2 * w, 2 * w + 15,
                            16 * 16 + 5, MAX_TEXT };
    size_t i, n = 0;
    for (i = 0; i < sizeof pick / sizeof pick[0] && n < cap; ++i) {
        size_t j, dup = pick[i] > MAX_TEXT;
        for (j = 0; j < n && !dup; ++j) {
            dup = out[j] == pick[i];
        }
        if (!dup) {
            out[n++] = pick[i];
        }
    }
    return n;
}

/* One GHASH variant over one AES variant; returns 1 if memcheck complained. */
static int gcm_target(const aesgen_ghash_variant *g, const aesgen_variant *aes)
{
    char label[200];
    aesgen_gcm_key key, ref_key;
    uint8_t k[32], iv[MAX_IV], aad[MAX_AAD], pt[MAX_TEXT], ct[MAX_TEXT], tag[16];
    size_t lens[16], nlens, i, j;
    const size_t key_len = key_len_of(aes->key_bits);
    const size_t iv_lens[] = { 12, 1, 60 };
    unsigned long errors_before = memcheck_errors();

    g_target_failures = 0;
    snprintf(label, sizeof label, "GCM: GHASH %s (%s), AES %s", g->name,
             g->features == 0 ? "software" : "hardware", aes->name);
    printf("%s\n", label);

    /* the known answers */
    for (i = 0; i < sizeof kats / sizeof kats[0]; ++i) {
        const gcm_case *c = &kats[i];
        uint8_t want_ct[MAX_TEXT], want_tag[16];
        if (c->key_len != key_len) {
            continue;
        }
        unhex(k, c->key, c->key_len);
        unhex(iv, c->iv, c->iv_len);
        unhex(aad, c->aad, c->aad_len);
        unhex(pt, c->pt, c->len);
        unhex(want_ct, c->ct, c->len);
        unhex(want_tag, c->tag, 16);
        if (gcm_setup(label, &key, k, key_len, aes, g)) {
            gcm_message(label, &key, iv, c->iv_len, aad, c->aad_len, pt, c->len, want_ct, want_tag,
                        17);
        }
    }

    /* every length, against the same library run on public inputs */
    fill_random(k, key_len);
    if (!gcm_setup(label, &key, k, key_len, aes, g) ||
        !check_ok(label, "aesgen_gcm_init_variants (public key)", 0,
                  aesgen_gcm_init_variants(&ref_key, k, key_len, aes, g))) {
        return memcheck_errors() != errors_before;
    }
    nlens = gcm_lengths(g->blocks, lens, sizeof lens / sizeof lens[0]);
    for (j = 0; j < sizeof iv_lens / sizeof iv_lens[0]; ++j) {
        for (i = 0; i < nlens; ++i) {
            const size_t aad_len = (i * 7) % (MAX_AAD + 1);
            fill_random(iv, iv_lens[j]);
            fill_random(aad, aad_len);
            fill_random(pt, lens[i]);
            if (!check_ok(label, "aesgen_gcm_seal (public inputs)", lens[i],
                          aesgen_gcm_seal(&ref_key, iv, iv_lens[j], aad, aad_len, ct, pt, lens[i],
                                          tag, 16))) {
                continue;
            }
            gcm_message(label, &key, iv, iv_lens[j], aad, aad_len, pt, lens[i], ct, tag,
                        (i * 5) % 33);
        }
    }
    aesgen_gcm_wipe(&key);
    aesgen_gcm_wipe(&ref_key);
    if (g_target_failures != 0) {
        printf("  %lu functional failure(s)\n", g_target_failures);
    }
    if (memcheck_errors() != errors_before) {
        printf("  memcheck: %lu error(s) in this target\n", memcheck_errors() - errors_before);
        return 1;
    }
    if (g_target_failures == 0) {
        printf("  ok\n");
    }
    return 0;
}

/* The first software AES encryption variant of this key size. */
static const aesgen_variant *software_encryptor(unsigned key_bits)
{
    size_t i;
    for (i = 0; i < aesgen_registry_size; ++i) {
        const aesgen_variant *v = aesgen_registry[i];
        if (is_software(v) && v->key_bits == key_bits && v->direction == AESGEN_ENCRYPT &&
            v->ctr != NULL) {
            return v;
        }
    }
    return NULL;
}

unsigned long run_gcm_tests(size_t *ntargets, size_t *nghash)
{
    unsigned long leaky = 0;
    size_t i;
    unsigned key_bits;

    *nghash = 0;
    for (i = 0; i < aesgen_ghash_registry_size; ++i) {
        const aesgen_ghash_variant *g = aesgen_ghash_registry[i];
        if (!aesgen_ghash_usable(g)) {
            printf("GCM: GHASH %s does not run on this CPU: model-checked only\n", g->name);
            continue;
        }
        ++*nghash;
        if (!name_matches(g->name)) {
            continue;
        }
        for (key_bits = 128; key_bits <= 256; key_bits += 64) {
            const aesgen_variant *aes = software_encryptor(key_bits);
            if (aes == NULL) {
                ts_fail("GCM: no software AES-%u encryption variant", key_bits);
                continue;
            }
            leaky += (unsigned long)gcm_target(g, aes);
            ++*ntargets;
        }
    }
    if (*nghash == 0) {
        ts_fail("GCM: no GHASH variant runs on this CPU");
    }
    return leaky;
}
