/*
 * aesgen_xts_api -- the AES-XTS contract of aesgen.h.
 *
 *   aesgen_xts_api
 *
 * Known answers (IEEE 1619-2007 annex B vectors 2, 10 and 15, and one AES-256 unit
 * with ciphertext stealing checked against OpenSSL) through automatic dispatch, every
 * pair of AES variants this CPU runs (aesgen_xts_init_variants) and every backend;
 * every refusal returns its error and writes nothing (outputs are guard-filled and
 * watched, and so is the key on a refused set-up): NULL pointers, key lengths, equal
 * key halves, unit lengths, sector counts past 2^64 - 1 or the address space,
 * overlapping buffers, uninitialised and wiped keys; keys at every 8-byte offset of a
 * line; a key is not changed by use; wiping. Exit status: 0 passed, 1 a failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "ts_report.h"
#include "ts_variant.h"
#include "xts_common.h"

#define CHECK(cond, ...) TS_CHECK(cond, __VA_ARGS__)

static const char *st(int rc)
{
    const char *s = aesgen_status_string(rc);
    return s != NULL ? s : "(null)";
}

static void expect_rc_impl(int got, int want, int line, const char *expr)
{
    ts_check_at(got == want, line, "%s returned %d (%s), expected %d (%s)", expr, got, st(got), want, st(want));
}
#define EXPECT_RC(expr, want) expect_rc_impl((expr), (want), __LINE__, #expr)

/* Watched memory: a copy now; WATCH_CHECK: every byte unchanged ("nothing is written"). */
#define MAX_WATCHES 8
static struct {
    const char *name;
    const uint8_t *p;
    uint8_t *copy;
    size_t n;
} watches[MAX_WATCHES];
static size_t nwatches;

static void watch(const char *name, const void *p, size_t n)
{
    if (nwatches == MAX_WATCHES) {
        ts_fail("watch: more than %d regions", MAX_WATCHES);
        return;
    }
    uint8_t *copy = malloc(n ? n : 1);
    if (copy == NULL) {
        printf("out of memory\n");
        exit(1);
    }
    memcpy(copy, p, n);
    watches[nwatches].name = name;
    watches[nwatches].p = p;
    watches[nwatches].copy = copy;
    watches[nwatches].n = n;
    nwatches++;
}

static void watch_check_impl(int line, const char *what)
{
    for (size_t i = 0; i < nwatches; i++) {
        size_t at = 0;
        while (at < watches[i].n && watches[i].p[at] == watches[i].copy[at])
            at++;
        ts_check_at(at == watches[i].n, line, "%s: %s written (byte %zu of %zu)", what, watches[i].name, at,
                    watches[i].n);
        free(watches[i].copy);
    }
    nwatches = 0;
}
#define WATCH_CHECK(what) watch_check_impl(__LINE__, (what))

static void fill(void *p, size_t n, uint8_t seed)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(seed + 37 * i);
}

/* ------------------------------------------------------------ known answers */

typedef struct xts_kat {
    const char *name;
    size_t key_len, len;
    uint8_t key[64], tweak[16], pt[512], ct[512];
    const char *ct_hex;   /* the whole ciphertext, or NULL: ct_first and ct_last */
    const char *ct_first, *ct_last;
} xts_kat;

#define KAT_COUNT 4
static xts_kat kats[KAT_COUNT];

static void hex_into(uint8_t *out, const char *hex)
{
    const size_t n = strlen(hex) / 2;
    if (!ts_from_hex(out, hex, n)) {
        printf("bad hex in a known answer: %s\n", hex);
        exit(1);
    }
}

static void kat_init(void)
{
    xts_kat *k;
    /* IEEE 1619-2007 B.1 vector 2: key1 = 11.., key2 = 22.., data unit 0x3333333333 */
    k = &kats[0];
    k->name = "IEEE 1619 vector 2 (AES-128, 32 bytes)";
    k->key_len = 32, k->len = 32;
    memset(k->key, 0x11, 16);
    memset(k->key + 16, 0x22, 16);
    memset(k->tweak, 0x33, 5);
    memset(k->pt, 0x44, 32);
    k->ct_hex = "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0";
    /* vector 15: 17 bytes, ciphertext stealing */
    k = &kats[1];
    k->name = "IEEE 1619 vector 15 (AES-128, 17 bytes)";
    k->key_len = 32, k->len = 17;
    hex_into(k->key, "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0");
    hex_into(k->tweak, "9a78563412");
    for (int i = 0; i < 17; i++)
        k->pt[i] = (uint8_t)i;
    k->ct_hex = "6c1625db4671522d3d7599601de7ca09ed";
    /* vector 10: AES-256, 512 bytes (first and last block checked) */
    k = &kats[2];
    k->name = "IEEE 1619 vector 10 (AES-256, 512 bytes)";
    k->key_len = 64, k->len = 512;
    hex_into(k->key, "2718281828459045235360287471352662497757247093699959574966967627"
                     "3141592653589793238462643383279502884197169399375105820974944592");
    k->tweak[0] = 0xff;
    for (int i = 0; i < 512; i++)
        k->pt[i] = (uint8_t)i;
    k->ct_first = "1c3b3a102f770386e4836c99e370cf9b";
    k->ct_last = "c4f36ffda9fcea70b9c6e693e148c151";
    /* vector 10's key and tweak, its first 20 bytes (OpenSSL's answer) */
    k = &kats[3];
    k->name = "AES-256, 20 bytes (vector 10's key and tweak; OpenSSL)";
    k->key_len = 64, k->len = 20;
    memcpy(k->key, kats[2].key, 64);
    k->tweak[0] = 0xff;
    for (int i = 0; i < 20; i++)
        k->pt[i] = (uint8_t)i;
    k->ct_hex = "bf4c6230fd0b520912383064f121273e1c3b3a10";
    for (int i = 0; i < KAT_COUNT; i++)
        if (kats[i].ct_hex != NULL)
            hex_into(kats[i].ct, kats[i].ct_hex);
}

/* Encrypts and decrypts k with key (out of place and in place). */
static void check_kat(const aesgen_xts_key *key, const xts_kat *k, const char *label)
{
    uint8_t out[512 + 32], buf[512];
    uint8_t first[16], last[16];
    fill(out, sizeof out, 0x5c);
    EXPECT_RC(aesgen_xts_encrypt(key, k->tweak, out + 16, k->pt, k->len), AESGEN_OK);
    if (k->ct_hex != NULL) {
        CHECK(memcmp(out + 16, k->ct, k->len) == 0, "%s, %s: wrong ciphertext", label, k->name);
    } else {
        hex_into(first, k->ct_first);
        hex_into(last, k->ct_last);
        CHECK(memcmp(out + 16, first, 16) == 0 && memcmp(out + 16 + k->len - 16, last, 16) == 0,
              "%s, %s: wrong ciphertext (first or last block)", label, k->name);
    }
    uint8_t guard[16];
    fill(guard, 16, 0x5c);
    CHECK(memcmp(out, guard, 16) == 0, "%s, %s: the 16 bytes before the output written", label, k->name);
    memcpy(buf, out + 16, k->len);
    EXPECT_RC(aesgen_xts_decrypt(key, k->tweak, out + 16, buf, k->len), AESGEN_OK);
    CHECK(memcmp(out + 16, k->pt, k->len) == 0, "%s, %s: decryption does not give the plaintext", label, k->name);
    EXPECT_RC(aesgen_xts_encrypt(key, k->tweak, out + 16, out + 16, k->len), AESGEN_OK);
    CHECK(memcmp(out + 16, buf, k->len) == 0, "%s, %s: in place differs from out of place", label, k->name);
    EXPECT_RC(aesgen_xts_decrypt(key, k->tweak, out + 16, out + 16, k->len), AESGEN_OK);
    CHECK(memcmp(out + 16, k->pt, k->len) == 0, "%s, %s: in-place decryption wrong", label, k->name);
}

static void kat_key(aesgen_xts_key *key, const xts_kat *k)
{
    const int rc = aesgen_xts_init(key, k->key, k->key_len);
    if (rc != AESGEN_OK) {
        printf("FAIL: aesgen_xts_init of %s returned %s; cannot go on\n", k->name, st(rc));
        exit(1);
    }
}

static void test_known_answers(void)
{
    aesgen_xts_key key;
    for (int i = 0; i < KAT_COUNT; i++) {
        kat_key(&key, &kats[i]);
        check_kat(&key, &kats[i], "automatic dispatch");
        /* aesgen_xts_variant: what dispatch picks for the key size */
        const unsigned bits = (unsigned)kats[i].key_len * 4;
        for (int dir = 0; dir < 2; dir++) {
            const char *v = aesgen_xts_variant(&key, (aesgen_direction)dir);
            const char *sel = aesgen_selected_variant(bits, (aesgen_direction)dir);
            const aesgen_variant *d = v != NULL ? aesgen_find_variant(v) : NULL;
            CHECK(d != NULL && d->key_bits == bits && d->direction == dir,
                  "aesgen_xts_variant(%s key, %s) = %s, not an AES-%u variant of that direction", kats[i].name,
                  dir ? "decrypt" : "encrypt", v ? v : "NULL", bits);
            CHECK(v != NULL && sel != NULL && strcmp(v, sel) == 0,
                  "aesgen_xts_variant(%s) = %s, aesgen_selected_variant(%u) = %s", dir ? "decrypt" : "encrypt",
                  v ? v : "NULL", bits, sel ? sel : "NULL");
        }
        aesgen_xts_wipe(&key);
    }
}

static void test_variant_pairs(void)
{
    static xts_pair pairs[128];
    const size_t n = xts_pairs(pairs, 128);
    CHECK(n > 0 && n <= 128, "%zu variant pairs", n);
    for (size_t p = 0; p < n && p < 128; p++) {
        aesgen_xts_key key;
        char label[200];
        snprintf(label, sizeof label, "%s + %s", pairs[p].enc->name, pairs[p].dec->name);
        for (int i = 0; i < KAT_COUNT; i++) {
            if (kats[i].key_len * 4 != pairs[p].enc->key_bits)
                continue;
            const int rc = aesgen_xts_init_variants(&key, kats[i].key, kats[i].key_len, pairs[p].enc, pairs[p].dec);
            CHECK(rc == AESGEN_OK, "aesgen_xts_init_variants(%s) returned %s", label, st(rc));
            if (rc != AESGEN_OK)
                continue;
            const char *e = aesgen_xts_variant(&key, AESGEN_ENCRYPT), *d = aesgen_xts_variant(&key, AESGEN_DECRYPT);
            CHECK(e != NULL && d != NULL && strcmp(e, pairs[p].enc->name) == 0 && strcmp(d, pairs[p].dec->name) == 0,
                  "a key set up with %s names %s + %s", label, e ? e : "NULL", d ? d : "NULL");
            check_kat(&key, &kats[i], label);
            aesgen_xts_wipe(&key);
        }
    }
    /* refusals: a variant of the wrong direction or key size, or one this CPU cannot run */
    const aesgen_variant *e128 = ts_reference_variant(128, AESGEN_ENCRYPT), *d128 = ts_reference_variant(128, AESGEN_DECRYPT);
    const aesgen_variant *e256 = ts_reference_variant(256, AESGEN_ENCRYPT);
    CHECK(e128 != NULL && d128 != NULL && e256 != NULL, "no reference variant");
    if (e128 == NULL || d128 == NULL || e256 == NULL)
        return;
    aesgen_xts_key key;
    fill(&key, sizeof key, 9);
    watch("the key", &key, sizeof key);
    EXPECT_RC(aesgen_xts_init_variants(&key, kats[0].key, 32, d128, d128), AESGEN_ERR_BACKEND);
    EXPECT_RC(aesgen_xts_init_variants(&key, kats[0].key, 32, e128, e128), AESGEN_ERR_BACKEND);
    EXPECT_RC(aesgen_xts_init_variants(&key, kats[0].key, 32, e256, d128), AESGEN_ERR_BACKEND);
    EXPECT_RC(aesgen_xts_init_variants(&key, kats[2].key, 64, e128, NULL), AESGEN_ERR_BACKEND);
    EXPECT_RC(aesgen_xts_init_variants(&key, kats[2].key, 64, NULL, d128), AESGEN_ERR_BACKEND);
    size_t unusable = 0;
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if (aesgen_variant_usable(v) || (v->key_bits != 128 && v->key_bits != 256))
            continue;
        const xts_kat *k = v->key_bits == 128 ? &kats[0] : &kats[2];
        const int rc = v->direction == AESGEN_ENCRYPT ? aesgen_xts_init_variants(&key, k->key, k->key_len, v, NULL)
                                                      : aesgen_xts_init_variants(&key, k->key, k->key_len, NULL, v);
        CHECK(rc == AESGEN_ERR_BACKEND, "aesgen_xts_init_variants with %s (not usable here) returned %s", v->name,
              st(rc));
        unusable++;
    }
    WATCH_CHECK("aesgen_xts_init_variants with variants that cannot serve the key");
    printf("     %zu variant pairs run, %zu variants this CPU cannot run refused\n", n, unusable);
    /* NULL, NULL: what dispatch picks */
    EXPECT_RC(aesgen_xts_init_variants(&key, kats[0].key, 32, NULL, NULL), AESGEN_OK);
    check_kat(&key, &kats[0], "aesgen_xts_init_variants(NULL, NULL)");
    aesgen_xts_wipe(&key);
}

static void test_backends(void)
{
    size_t run = 0;
    for (size_t b = 0; b < aesgen_backend_count(); b++) {
        const char *name = aesgen_backend_name(b);
        if (name == NULL || aesgen_backend_supported(name) != 1)
            continue;
        EXPECT_RC(aesgen_force_backend(name), AESGEN_OK);
        for (int i = 0; i < KAT_COUNT; i++) {
            const unsigned bits = (unsigned)kats[i].key_len * 4;
            const char *se = aesgen_selected_backend(bits, AESGEN_ENCRYPT);
            const char *sd = aesgen_selected_backend(bits, AESGEN_DECRYPT);
            if (se == NULL || sd == NULL)
                continue; /* the backend does not serve this key size */
            aesgen_xts_key key;
            char label[96];
            snprintf(label, sizeof label, "backend %s", name);
            EXPECT_RC(aesgen_xts_init(&key, kats[i].key, kats[i].key_len), AESGEN_OK);
            const aesgen_variant *e = aesgen_find_variant(aesgen_xts_variant(&key, AESGEN_ENCRYPT) ? aesgen_xts_variant(&key, AESGEN_ENCRYPT) : "");
            const aesgen_variant *d = aesgen_find_variant(aesgen_xts_variant(&key, AESGEN_DECRYPT) ? aesgen_xts_variant(&key, AESGEN_DECRYPT) : "");
            CHECK(e != NULL && d != NULL && strcmp(e->backend, name) == 0 && strcmp(d->backend, name) == 0,
                  "%s forced: the AES-%u-XTS key is served by %s + %s", label, bits, e ? e->name : "?",
                  d ? d->name : "?");
            check_kat(&key, &kats[i], label);
            aesgen_xts_wipe(&key);
            run++;
        }
    }
    EXPECT_RC(aesgen_force_backend(NULL), AESGEN_OK);
    CHECK(run > 0, "no backend served a known answer");
}

/* ------------------------------------------------------------------ refusals */

static void test_null_pointers(void)
{
    aesgen_xts_key key, other;
    uint8_t out[64], in[64] = {0}, tweak[16] = {0};
    kat_key(&key, &kats[0]);
    fill(&other, sizeof other, 1);
    watch("the key", &other, sizeof other);
    EXPECT_RC(aesgen_xts_init(&other, NULL, 32), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_init_variants(&other, NULL, 32, NULL, NULL), AESGEN_ERR_NULL);
    WATCH_CHECK("aesgen_xts_init with a NULL key");
    EXPECT_RC(aesgen_xts_init(NULL, kats[0].key, 32), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_init_variants(NULL, kats[0].key, 32, NULL, NULL), AESGEN_ERR_NULL);

    fill(out, sizeof out, 2);
    watch("out", out, sizeof out);
    watch("in", in, sizeof in);
    EXPECT_RC(aesgen_xts_encrypt(NULL, tweak, out, in, 32), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_encrypt(&key, NULL, out, in, 32), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_encrypt(&key, tweak, NULL, in, 32), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_encrypt(&key, tweak, out, NULL, 32), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_decrypt(NULL, tweak, out, in, 32), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_decrypt(&key, NULL, out, in, 32), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_decrypt(&key, tweak, NULL, in, 32), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_decrypt(&key, tweak, out, NULL, 32), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_encrypt_sectors(NULL, 0, 16, 2, out, in), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 0, 16, 2, NULL, in), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 0, 16, 2, out, NULL), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_decrypt_sectors(NULL, 0, 16, 2, out, in), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_decrypt_sectors(&key, 0, 16, 2, NULL, in), AESGEN_ERR_NULL);
    EXPECT_RC(aesgen_xts_decrypt_sectors(&key, 0, 16, 2, out, NULL), AESGEN_ERR_NULL);
    WATCH_CHECK("calls with a NULL pointer");
    CHECK(aesgen_xts_variant(NULL, AESGEN_ENCRYPT) == NULL && aesgen_xts_variant(NULL, AESGEN_DECRYPT) == NULL,
          "aesgen_xts_variant(NULL) is not NULL");
    aesgen_xts_wipe(NULL);
    aesgen_xts_wipe(&key);
}

static void test_key_lengths(void)
{
    static const size_t bad[] = {0, 1, 16, 24, 31, 33, 48, 63, 65, 128};
    uint8_t k[160];
    aesgen_xts_key key;
    fill(k, sizeof k, 5);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char what[96];
        fill(&key, sizeof key, (uint8_t)i);
        watch("the key", &key, sizeof key);
        EXPECT_RC(aesgen_xts_init(&key, k, bad[i]), AESGEN_ERR_KEY_LENGTH);
        EXPECT_RC(aesgen_xts_init_variants(&key, k, bad[i], NULL, NULL), AESGEN_ERR_KEY_LENGTH);
        snprintf(what, sizeof what, "aesgen_xts_init with a %zu-byte key", bad[i]);
        WATCH_CHECK(what);
        CHECK(aesgen_xts_variant(&key, AESGEN_ENCRYPT) == NULL, "a refused %zu-byte key names a variant", bad[i]);
    }
    /* equal halves of 16 bytes (a 32-byte key of two equal halves is weak, not a length error) */
    memcpy(k + 16, k, 16);
    EXPECT_RC(aesgen_xts_init(&key, k, 16), AESGEN_ERR_KEY_LENGTH);
    EXPECT_RC(aesgen_xts_init(&key, k, 32), AESGEN_ERR_WEAK_KEY);
}

static void test_weak_keys(void)
{
    for (size_t len = 32; len <= 64; len += 32) {
        const size_t half = len / 2;
        uint8_t k[64];
        aesgen_xts_key key;
        char what[96];
        fill(k, half, (uint8_t)len);
        memcpy(k + half, k, half);
        fill(&key, sizeof key, 0x77);
        watch("the key", &key, sizeof key);
        EXPECT_RC(aesgen_xts_init(&key, k, len), AESGEN_ERR_WEAK_KEY);
        EXPECT_RC(aesgen_xts_init_variants(&key, k, len, NULL, NULL), AESGEN_ERR_WEAK_KEY);
        snprintf(what, sizeof what, "aesgen_xts_init with two equal %zu-byte halves", half);
        WATCH_CHECK(what);
        memset(k, 0, sizeof k);
        EXPECT_RC(aesgen_xts_init(&key, k, len), AESGEN_ERR_WEAK_KEY); /* all zero */
        memset(k, 0xff, sizeof k);
        EXPECT_RC(aesgen_xts_init(&key, k, len), AESGEN_ERR_WEAK_KEY);
        /* halves differing in one bit, every bit of either half: accepted, and they work */
        fill(k, half, (uint8_t)len);
        memcpy(k + half, k, half);
        unsigned long refused = 0;
        for (size_t bit = 0; bit < len * 8; bit++) {
            k[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            const int rc = aesgen_xts_init(&key, k, len);
            if (rc != AESGEN_OK) {
                if (refused++ < 3)
                    ts_fail("a %zu-byte key whose halves differ in bit %zu refused: %s", len, bit, st(rc));
            } else {
                uint8_t tw[16] = {1}, pt[32] = {0}, ct[32], back[32];
                EXPECT_RC(aesgen_xts_encrypt(&key, tw, ct, pt, 32), AESGEN_OK);
                EXPECT_RC(aesgen_xts_decrypt(&key, tw, back, ct, 32), AESGEN_OK);
                CHECK(memcmp(back, pt, 32) == 0 && memcmp(ct, pt, 32) != 0,
                      "a key whose halves differ in bit %zu: no round trip", bit);
            }
            k[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        CHECK(refused == 0, "%lu of %zu keys whose halves differ in one bit refused", refused, len * 8);
        aesgen_xts_wipe(&key);
    }
}

static void test_unit_lengths(void)
{
    aesgen_xts_key key;
    uint8_t out[64], in[64], tweak[16] = {7};
    kat_key(&key, &kats[0]);
    fill(in, sizeof in, 3);
    for (size_t len = 0; len < 16; len++) {
        char what[64];
        fill(out, sizeof out, 4);
        watch("out", out, sizeof out);
        EXPECT_RC(aesgen_xts_encrypt(&key, tweak, out, in, len), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_xts_decrypt(&key, tweak, out, in, len), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_xts_encrypt(&key, tweak, out, out, len), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 0, len, 2, out, in), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_xts_decrypt_sectors(&key, 0, len, 2, out, in), AESGEN_ERR_LENGTH);
        snprintf(what, sizeof what, "a %zu-byte unit", len);
        WATCH_CHECK(what);
    }

    /* 2^24 + 1 bytes: refused; 2^24: accepted. The buffers are real (16 MiB + 1 and a
     * guard each): the contract does not promise that nothing is read. */
    const size_t max = (size_t)1 << 24, n = max + 1 + 64;
    uint8_t *bin = ts_alloc64(n, "aesgen_xts_api"), *bout = ts_alloc64(n, "aesgen_xts_api");
    ts_region_fill(bin, n);
    ts_region_fill(bout, n);
    EXPECT_RC(aesgen_xts_encrypt(&key, tweak, bout, bin, max + 1), AESGEN_ERR_LENGTH);
    EXPECT_RC(aesgen_xts_decrypt(&key, tweak, bout, bin, max + 1), AESGEN_ERR_LENGTH);
    EXPECT_RC(aesgen_xts_encrypt(&key, tweak, bin, bin, max + 1), AESGEN_ERR_LENGTH);
    EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 0, max + 1, 1, bout, bin), AESGEN_ERR_LENGTH);
    EXPECT_RC(aesgen_xts_decrypt_sectors(&key, 0, max + 1, 1, bout, bin), AESGEN_ERR_LENGTH);
    CHECK(ts_region_changed(bout, 0, 0, n) == n && ts_region_changed(bin, 0, 0, n) == n,
          "a refused 2^24 + 1-byte unit: a buffer written");
    /* 2^24: the same first 4096 bytes as a 4096-byte unit (whole blocks), and back */
    uint8_t head[4096];
    EXPECT_RC(aesgen_xts_encrypt(&key, tweak, head, bin, sizeof head), AESGEN_OK);
    EXPECT_RC(aesgen_xts_encrypt(&key, tweak, bout, bin, max), AESGEN_OK);
    CHECK(memcmp(head, bout, sizeof head) == 0, "a 2^24-byte unit does not begin as a 4096-byte unit does");
    CHECK(ts_region_changed(bout, 0, max, n) == n, "a 2^24-byte unit: bytes past its end written");
    EXPECT_RC(aesgen_xts_decrypt(&key, tweak, bout, bout, max), AESGEN_OK);
    CHECK(ts_region_changed(bout, 0, 0, n) == n, "a 2^24-byte unit: no round trip");
    EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 5, max, 1, bout, bin), AESGEN_OK);
    uint8_t t5[16];
    xts_sector_tweak(t5, 5);
    EXPECT_RC(aesgen_xts_encrypt(&key, t5, head, bin, sizeof head), AESGEN_OK);
    CHECK(memcmp(head, bout, sizeof head) == 0, "a 2^24-byte sector does not begin as a 4096-byte unit does");
    free(bin);
    free(bout);
    aesgen_xts_wipe(&key);
}

static void test_sector_limits(void)
{
    aesgen_xts_key key;
    enum { UNIT = 16, ROOM = 18 * UNIT + 64 };
    uint8_t out[ROOM], in[ROOM], one[ROOM], tweak[16];
    kat_key(&key, &kats[0]);
    fill(in, sizeof in, 8);

    /* count 0 does nothing */
    fill(out, sizeof out, 9);
    watch("out", out, sizeof out);
    EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 0, 512, 0, out, in), AESGEN_OK);
    EXPECT_RC(aesgen_xts_decrypt_sectors(&key, UINT64_MAX, 512, 0, out, in), AESGEN_OK);
    WATCH_CHECK("count 0");

    /* the last sector may be 2^64 - 1, not beyond */
    static const struct {
        uint64_t sector;
        size_t count;
        int ok;
    } cases[] = {
        {UINT64_MAX - 16, 17, 1}, {UINT64_MAX - 16, 18, 0}, {UINT64_MAX, 1, 1}, {UINT64_MAX, 2, 0},
        {UINT64_MAX - 1, 2, 1},   {UINT64_MAX - 1, 3, 0},   {UINT64_MAX - 17, 18, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[128];
        snprintf(what, sizeof what, "sector 0x%llx, count %zu", (unsigned long long)cases[i].sector, cases[i].count);
        for (int dec = 0; dec < 2; dec++) {
            fill(out, sizeof out, 10);
            const int rc = dec ? aesgen_xts_decrypt_sectors(&key, cases[i].sector, UNIT, cases[i].count, out, in)
                               : aesgen_xts_encrypt_sectors(&key, cases[i].sector, UNIT, cases[i].count, out, in);
            if (!cases[i].ok) {
                uint8_t untouched[ROOM];
                fill(untouched, sizeof untouched, 10);
                ts_check_at(rc == AESGEN_ERR_LENGTH, __LINE__, "%s (%s): returned %s, expected AESGEN_ERR_LENGTH",
                            what, dec ? "decrypt" : "encrypt", st(rc));
                CHECK(memcmp(out, untouched, sizeof out) == 0, "%s (%s): refused, but out written", what,
                      dec ? "decrypt" : "encrypt");
                continue;
            }
            ts_check_at(rc == AESGEN_OK, __LINE__, "%s (%s): returned %s", what, dec ? "decrypt" : "encrypt", st(rc));
            for (size_t u = 0; u < cases[i].count; u++) {
                xts_sector_tweak(tweak, cases[i].sector + u);
                if (dec)
                    EXPECT_RC(aesgen_xts_decrypt(&key, tweak, one + u * UNIT, in + u * UNIT, UNIT), AESGEN_OK);
                else
                    EXPECT_RC(aesgen_xts_encrypt(&key, tweak, one + u * UNIT, in + u * UNIT, UNIT), AESGEN_OK);
            }
            CHECK(memcmp(out, one, cases[i].count * UNIT) == 0, "%s (%s): not the single-unit calls", what,
                  dec ? "decrypt" : "encrypt");
        }
    }

    /* count * unit_len beyond the address space (no buffer can be that long: small
     * ones given, which nothing may touch) */
    static const struct {
        size_t unit, count;
    } huge[] = {{16, SIZE_MAX / 16 + 1}, {512, SIZE_MAX / 512 + 1}, {4096, SIZE_MAX}, {(size_t)1 << 24, SIZE_MAX / 4}};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        char what[96];
        fill(out, sizeof out, 11);
        watch("out", out, sizeof out);
        EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 0, huge[i].unit, huge[i].count, out, in), AESGEN_ERR_LENGTH);
        EXPECT_RC(aesgen_xts_decrypt_sectors(&key, 0, huge[i].unit, huge[i].count, out, in), AESGEN_ERR_LENGTH);
        snprintf(what, sizeof what, "unit %zu, count %zu (beyond the address space)", huge[i].unit, huge[i].count);
        WATCH_CHECK(what);
    }
    aesgen_xts_wipe(&key);
}

static void test_overlap(void)
{
    aesgen_xts_key key;
    uint8_t buf[512] = {0};
    uint8_t tweak[16] = {3};
    static const long shifts[] = {1, 15, 16, 17, 31, -1, -15, -16, -17, -31};
    const size_t len = 32;
    kat_key(&key, &kats[0]);
    for (size_t i = 0; i < sizeof shifts / sizeof shifts[0]; i++) {
        uint8_t *in = buf + 192, *out = in + shifts[i];
        char what[64];
        fill(buf, sizeof buf, 12);
        watch("the buffers", buf, sizeof buf);
        EXPECT_RC(aesgen_xts_encrypt(&key, tweak, out, in, len), AESGEN_ERR_OVERLAP);
        EXPECT_RC(aesgen_xts_decrypt(&key, tweak, out, in, len), AESGEN_ERR_OVERLAP);
        if (shifts[i] > -17 && shifts[i] < 17) /* a 17-byte unit overlaps too */
            EXPECT_RC(aesgen_xts_encrypt(&key, tweak, out, in, 17), AESGEN_ERR_OVERLAP);
        /* sectors: 3 units of 32 bytes overlap for any shift below 96 */
        EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 0, len, 3, out, in), AESGEN_ERR_OVERLAP);
        EXPECT_RC(aesgen_xts_decrypt_sectors(&key, 0, len, 3, out, in), AESGEN_ERR_OVERLAP);
        snprintf(what, sizeof what, "out = in %+ld", shifts[i]);
        WATCH_CHECK(what);
    }
    /* the sectors' whole extent counts: out 64 bytes after in, 3 units of 32 */
    fill(buf, sizeof buf, 13);
    watch("the buffers", buf, sizeof buf);
    EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 0, 32, 3, buf + 256, buf + 192), AESGEN_ERR_OVERLAP);
    EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 0, 32, 3, buf + 192, buf + 256), AESGEN_ERR_OVERLAP);
    WATCH_CHECK("sectors overlapping past the first unit");
    /* adjacent buffers do not overlap, and give the known answer */
    for (int side = 0; side < 2; side++) {
        uint8_t *in = buf + 192, *out = side ? in + len : in - len;
        memcpy(in, kats[0].pt, len);
        EXPECT_RC(aesgen_xts_encrypt(&key, kats[0].tweak, out, in, len), AESGEN_OK);
        CHECK(memcmp(out, kats[0].ct, len) == 0, "adjacent buffers (%s): wrong result",
              side ? "out after in" : "out before in");
    }
    aesgen_xts_wipe(&key);
}

static void test_uninitialised(void)
{
    aesgen_xts_key key;
    uint8_t out[64], in[64] = {0}, tweak[16] = {0};
    for (int kind = 0; kind < 3; kind++) {
        static const char *const kinds[] = {"a zeroed key", "a key of garbage", "a wiped key"};
        if (kind == 0)
            memset(&key, 0, sizeof key);
        else if (kind == 1)
            fill(&key, sizeof key, 0xa5);
        else {
            kat_key(&key, &kats[0]);
            aesgen_xts_wipe(&key);
        }
        fill(out, sizeof out, 14);
        watch("out", out, sizeof out);
        watch("the key", &key, sizeof key);
        EXPECT_RC(aesgen_xts_encrypt(&key, tweak, out, in, 32), AESGEN_ERR_CONTEXT);
        EXPECT_RC(aesgen_xts_decrypt(&key, tweak, out, in, 32), AESGEN_ERR_CONTEXT);
        EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 0, 16, 2, out, in), AESGEN_ERR_CONTEXT);
        EXPECT_RC(aesgen_xts_decrypt_sectors(&key, 0, 16, 2, out, in), AESGEN_ERR_CONTEXT);
        CHECK(aesgen_xts_variant(&key, AESGEN_ENCRYPT) == NULL && aesgen_xts_variant(&key, AESGEN_DECRYPT) == NULL,
              "%s names a variant", kinds[kind]);
        WATCH_CHECK(kinds[kind]);
    }
}

/* ------------------------------------------------------------------ the key */

static void test_key_offsets(void)
{
    /* a key at every 8-byte offset of a 64-byte line */
    uint8_t *raw = ts_alloc64(sizeof(aesgen_xts_key) + 128, "aesgen_xts_api");
    for (size_t off = 0; off < 64; off += 8) {
        aesgen_xts_key *key = (aesgen_xts_key *)(void *)(raw + off);
        for (int i = 0; i < KAT_COUNT; i++) {
            char label[48];
            snprintf(label, sizeof label, "a key at 64n+%zu", off);
            EXPECT_RC(aesgen_xts_init(key, kats[i].key, kats[i].key_len), AESGEN_OK);
            check_kat(key, &kats[i], label);
            aesgen_xts_wipe(key);
        }
    }
    free(raw);
}

static void test_shared_key(void)
{
    aesgen_xts_key key, snapshot;
    uint8_t out[512 + 64], tweak[16];
    kat_key(&key, &kats[2]);
    memcpy(&snapshot, &key, sizeof key);
    memcpy(tweak, kats[2].tweak, 16);
    for (size_t len = 16; len <= 512; len += 13) {
        EXPECT_RC(aesgen_xts_encrypt(&key, tweak, out, kats[2].pt, len), AESGEN_OK);
        EXPECT_RC(aesgen_xts_decrypt(&key, tweak, out, out, len), AESGEN_OK);
        CHECK(memcmp(out, kats[2].pt, len) == 0, "round trip of %zu bytes", len);
    }
    EXPECT_RC(aesgen_xts_encrypt_sectors(&key, 7, 32, 16, out, kats[2].pt), AESGEN_OK);
    EXPECT_RC(aesgen_xts_decrypt_sectors(&key, 7, 32, 16, out, out), AESGEN_OK);
    CHECK(memcmp(out, kats[2].pt, 512) == 0, "round trip of 16 sectors");
    CHECK(memcmp(&snapshot, &key, sizeof key) == 0, "the key changed while in use");
    CHECK(memcmp(tweak, kats[2].tweak, 16) == 0, "the tweak changed");
    /* a different tweak gives a different ciphertext, a different sector too */
    uint8_t a[32], b[32], t[16];
    memcpy(t, kats[2].tweak, 16);
    EXPECT_RC(aesgen_xts_encrypt(&key, t, a, kats[2].pt, 32), AESGEN_OK);
    t[15] ^= 0x80;
    EXPECT_RC(aesgen_xts_encrypt(&key, t, b, kats[2].pt, 32), AESGEN_OK);
    CHECK(memcmp(a, b, 32) != 0, "the tweak's last byte makes no difference");
    aesgen_xts_wipe(&key);
}

static void test_wipe(void)
{
    aesgen_xts_key key;
    kat_key(&key, &kats[0]);
    CHECK(aesgen_xts_variant(&key, AESGEN_ENCRYPT) != NULL && aesgen_xts_variant(&key, AESGEN_DECRYPT) != NULL,
          "a set-up key names no variant");
    aesgen_xts_wipe(&key);
    const volatile uint8_t *p = (const volatile uint8_t *)&key;
    size_t nonzero = 0;
    for (size_t i = 0; i < sizeof key; i++)
        nonzero += p[i] != 0;
    CHECK(nonzero == 0, "aesgen_xts_wipe left %zu non-zero bytes", nonzero);
    CHECK(aesgen_xts_variant(&key, AESGEN_ENCRYPT) == NULL && aesgen_xts_variant(&key, AESGEN_DECRYPT) == NULL,
          "a wiped key still names a variant");
    /* set up again after a wipe */
    kat_key(&key, &kats[1]);
    check_kat(&key, &kats[1], "a key set up again after a wipe");
    aesgen_xts_wipe(&key);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    kat_init();
    printf("aesgen_xts_api: AES-XTS contract of aesgen.h\n");
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        {"known answers, aesgen_xts_variant", test_known_answers},
        {"every variant pair (aesgen_xts_init_variants)", test_variant_pairs},
        {"every backend", test_backends},
        {"NULL pointers", test_null_pointers},
        {"key lengths", test_key_lengths},
        {"equal key halves", test_weak_keys},
        {"unit lengths", test_unit_lengths},
        {"sector counts", test_sector_limits},
        {"overlapping buffers", test_overlap},
        {"uninitialised and wiped keys", test_uninitialised},
        {"keys at every 8-byte offset", test_key_offsets},
        {"a shared key", test_shared_key},
        {"wiping", test_wipe},
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        const unsigned long f0 = ts_failures, c0 = ts_checks;
        tests[i].fn();
        printf("%s %s: %lu checks\n", ts_failures == f0 ? "ok  " : "FAIL", tests[i].name, ts_checks - c0);
    }
    printf("%s: %lu checks, %lu failures\n", ts_failures ? "FAILED" : "PASSED", ts_checks, ts_failures);
    return ts_failures ? 1 : 0;
}
