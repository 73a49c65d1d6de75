/*
 * aesgen_gcm_api -- the AES-GCM contract of aesgen.h (the files: gcm_api.h).
 *
 *   aesgen_gcm_api
 *
 * Known answers through every GHASH variant and every backend this CPU runs; every
 * error path writes nothing (outputs, tags, keys and streams are watched); the
 * stream's order of calls; keys at every 8-byte offset of a 64-byte line; a key
 * shared by many calls stays byte-identical. Exit status: 0 passed, 1 a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcm_api.h"

/* ------------------------------------------------------------------ helpers */

const char *st(int rc)
{
    const char *s = aesgen_status_string(rc);
    return s != NULL ? s : "(null)";
}

void expect_rc_impl(int got, int want, int line, const char *expr)
{
    ts_check_at(got == want, line, "%s returned %d (%s), expected %d (%s)", expr, got, st(got), want, st(want));
}

#define MAX_WATCHES 8
static struct {
    const char *name;
    const uint8_t *p;
    uint8_t *copy;
    size_t n;
} watches[MAX_WATCHES];
static size_t nwatches;

void watch(const char *name, const void *p, size_t n)
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

void watch_check_impl(int line, const char *what)
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

void fill(void *p, size_t n, uint8_t seed)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(seed + 37 * i);
}

/* ------------------------------------------------------------ known answers */

static const struct {
    const char *name, *key, *iv, *aad, *pt, *ct, *tag;
} kat_text[GCM_KAT_COUNT] = {
    {"test case 1 (AES-128, empty)", "00000000000000000000000000000000", "000000000000000000000000", "", "", "",
     "58e2fccefa7e3061367f1d57a4e7455a"},
    {"test case 2 (AES-128, one block)", "00000000000000000000000000000000", "000000000000000000000000", "",
     "00000000000000000000000000000000", "0388dace60b6a392f328c2b971b2fe78", "ab6e47d42cec13bdf53a67b21257bddf"},
    {"test case 4 (AES-128, 60 bytes, AAD)", "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
     "5bc94fbc3221a5db94fae95ae7121a47"},
    {"test case 5 (AES-128, 64-bit IV)", "feffe9928665731c6d6a8f9467308308", "cafebabefacedbad",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c742373806900e49f24b22b097544d4896b424989b5e1ebac0f07c23f4598",
     "3612d2e79e3b0785561be14aaca2fccb"},
    {"test case 6 (AES-128, 480-bit IV)", "feffe9928665731c6d6a8f9467308308",
     "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca701e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5",
     "619cc5aefffe0bfa462af43c1699d050"},
    {"test case 10 (AES-192)", "feffe9928665731c6d6a8f9467308308feffe9928665731c", "cafebabefacedbaddecaf888",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "3980ca0b3c00e841eb06fac4872a2757859e1ceaa6efd984628593b40ca1e19c7d773d00c144c525ac619d18c84a3f4718e2448b2fe324d9ccda2710",
     "2519498e80f1478f37ba55bd6d27618c"},
    {"test case 16 (AES-256)", "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
     "cafebabefacedbaddecaf888", "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
     "76fc6ece0f4e1768cddf8853bb2d551b"},
};

gcm_kat gcm_kats[GCM_KAT_COUNT];

void kat_init(void)
{
    for (size_t i = 0; i < GCM_KAT_COUNT; i++) {
        gcm_kat *k = &gcm_kats[i];
        k->name = kat_text[i].name;
        k->key_len = strlen(kat_text[i].key) / 2;
        k->iv_len = strlen(kat_text[i].iv) / 2;
        k->aad_len = strlen(kat_text[i].aad) / 2;
        k->len = strlen(kat_text[i].pt) / 2;
        if (!ts_from_hex(k->key, kat_text[i].key, k->key_len) || !ts_from_hex(k->iv, kat_text[i].iv, k->iv_len) ||
            !ts_from_hex(k->aad, kat_text[i].aad, k->aad_len) || !ts_from_hex(k->pt, kat_text[i].pt, k->len) ||
            !ts_from_hex(k->ct, kat_text[i].ct, k->len) || !ts_from_hex(k->tag, kat_text[i].tag, 16)) {
            printf("FAIL: known answer %s does not decode\n", k->name);
            exit(1);
        }
    }
}

void kat_key(aesgen_gcm_key *key, const gcm_kat *k)
{
    const int rc = aesgen_gcm_init(key, k->key, k->key_len);
    CHECK(rc == AESGEN_OK, "aesgen_gcm_init for %s returned %s", k->name, st(rc));
}

void check_kat(const aesgen_gcm_key *key, const gcm_kat *k, const char *label)
{
    uint8_t out[80] = {0}, tag[16] = {0}, buf[80] = {0};
    const char *failed = NULL;
    for (size_t t = 0; t < GCM_TAG_LENGTH_COUNT; t++) {
        const size_t tl = gcm_tag_lengths[t];
        memset(out, 0xa5, sizeof out);
        memset(tag, 0x5a, sizeof tag);
        int rc = aesgen_gcm_seal(key, k->iv, k->iv_len, k->aad, k->aad_len, out, k->pt, k->len, tag, tl);
        CHECK(rc == AESGEN_OK, "%s: %s: seal with a %zu-byte tag returned %s", label, k->name, tl, st(rc));
        CHECK(memcmp(out, k->ct, k->len) == 0, "%s: %s: seal: wrong ciphertext", label, k->name);
        CHECK(out[k->len] == 0xa5, "%s: %s: seal wrote past the ciphertext", label, k->name);
        CHECK(memcmp(tag, k->tag, tl) == 0, "%s: %s: seal: wrong %zu-byte tag", label, k->name, tl);
        size_t past = tl;
        while (past < 16 && tag[past] == 0x5a)
            past++;
        CHECK(past == 16, "%s: %s: seal with a %zu-byte tag wrote tag byte %zu", label, k->name, tl, past);
        memset(out, 0xa5, sizeof out);
        rc = aesgen_gcm_open(key, k->iv, k->iv_len, k->aad, k->aad_len, out, k->ct, k->len, k->tag, tl);
        CHECK(rc == AESGEN_OK, "%s: %s: open with a %zu-byte tag returned %s", label, k->name, tl, st(rc));
        CHECK(memcmp(out, k->pt, k->len) == 0 && out[k->len] == 0xa5, "%s: %s: open: wrong plaintext", label,
              k->name);
    }
    /* in place */
    memcpy(buf, k->pt, k->len);
    int rc = aesgen_gcm_seal(key, k->iv, k->iv_len, k->aad, k->aad_len, buf, buf, k->len, tag, 16);
    CHECK(rc == AESGEN_OK && memcmp(buf, k->ct, k->len) == 0 && memcmp(tag, k->tag, 16) == 0,
          "%s: %s: seal in place (%s)", label, k->name, st(rc));
    rc = aesgen_gcm_open(key, k->iv, k->iv_len, k->aad, k->aad_len, buf, buf, k->len, k->tag, 16);
    CHECK(rc == AESGEN_OK && memcmp(buf, k->pt, k->len) == 0, "%s: %s: open in place (%s)", label, k->name, st(rc));
    /* streamed: AAD split at 7, text at 17 (or less) */
    gcm_cuts ac, tc;
    gcm_cuts_two(&ac, k->aad_len, 7);
    gcm_cuts_two(&tc, k->len, 17);
    memset(tag, 0, sizeof tag);
    rc = gcm_stream_seal(key, k->iv, k->iv_len, k->aad, &ac, out, k->pt, &tc, tag, 16, &failed);
    CHECK(rc == AESGEN_OK && memcmp(out, k->ct, k->len) == 0 && memcmp(tag, k->tag, 16) == 0,
          "%s: %s: streamed seal (%s%s%s)", label, k->name, failed ? failed : "", failed ? ": " : "", st(rc));
    rc = gcm_stream_open(key, k->iv, k->iv_len, k->aad, &ac, out, k->ct, &tc, k->tag, 16, &failed);
    CHECK(rc == AESGEN_OK && memcmp(out, k->pt, k->len) == 0, "%s: %s: streamed open (%s%s%s)", label, k->name,
          failed ? failed : "", failed ? ": " : "", st(rc));
}

/* ------------------------------------------------------------------- tests */

static void test_status_strings(void)
{
    const char *unknown = st(12345);
    const char *auth = st(AESGEN_ERR_AUTH), *state = st(AESGEN_ERR_STATE);
    CHECK(strcmp(unknown, "unknown status code") == 0, "status 12345 gives \"%s\"", unknown);
    CHECK(strcmp(auth, unknown) != 0, "AESGEN_ERR_AUTH has no message of its own (\"%s\")", auth);
    CHECK(strcmp(state, unknown) != 0, "AESGEN_ERR_STATE has no message of its own (\"%s\")", state);
    CHECK(strcmp(auth, state) != 0, "AESGEN_ERR_AUTH and AESGEN_ERR_STATE share \"%s\"", auth);
    CHECK(AESGEN_ERR_AUTH != AESGEN_ERR_STATE && AESGEN_ERR_AUTH < 0 && AESGEN_ERR_STATE < 0,
          "AESGEN_ERR_AUTH %d, AESGEN_ERR_STATE %d", AESGEN_ERR_AUTH, AESGEN_ERR_STATE);
}

static void test_known_answers(void)
{
    for (size_t i = 0; i < GCM_KAT_COUNT; i++) {
        aesgen_gcm_key key;
        kat_key(&key, &gcm_kats[i]);
        check_kat(&key, &gcm_kats[i], "automatic");
        aesgen_gcm_wipe(&key);
    }
}

/* The GHASH registry, aesgen_find_ghash/usable/pick, and every usable GHASH and
 * every supported backend through the known answers. */
static void test_registry(void)
{
    const aesgen_ghash_variant *best = NULL;
    CHECK(aesgen_ghash_registry_size > 0, "no GHASH variant in the registry");
    CHECK(aesgen_ghash_registry[aesgen_ghash_registry_size] == NULL, "the GHASH registry is not NULL-terminated");
    for (size_t i = 0; i < aesgen_ghash_registry_size; i++) {
        const aesgen_ghash_variant *g = aesgen_ghash_registry[i];
        CHECK(g != NULL && g->name != NULL && g->setkey != NULL && g->update != NULL,
              "GHASH registry entry %zu incomplete", i);
        if (g == NULL || g->name == NULL)
            continue;
        CHECK(aesgen_find_ghash(g->name) == g, "aesgen_find_ghash(%s) does not find it", g->name);
        CHECK(g->table_bytes >= 16 && g->blocks >= 1 && g->table_bytes >= 16u * g->blocks,
              "GHASH %s: %u table bytes for %u powers of H", g->name, (unsigned)g->table_bytes, (unsigned)g->blocks);
        /* The rank dispatch uses: the per-CPU table may move a backend. */
        const aesgen_cpu_preference *pref = aesgen_cpu_preference_active();
        if (aesgen_ghash_usable(g) &&
            (best == NULL || aesgen_dispatch_rank(pref, g->backend, g->rank) <
                                 aesgen_dispatch_rank(pref, best->backend, best->rank)))
            best = g;
    }
    CHECK(aesgen_find_ghash("ghash__no_such_variant") == NULL, "aesgen_find_ghash finds a made-up name");
    CHECK(aesgen_find_ghash(NULL) == NULL, "aesgen_find_ghash(NULL) is not NULL");
    CHECK(!aesgen_ghash_usable(NULL), "aesgen_ghash_usable(NULL) says usable");
    CHECK(best != NULL, "no GHASH variant is usable here");
    CHECK(aesgen_pick_ghash() == best, "aesgen_pick_ghash gives %s, the best usable is %s",
          aesgen_pick_ghash() ? aesgen_pick_ghash()->name : "NULL", best ? best->name : "NULL");

    aesgen_gcm_key key;
    kat_key(&key, KAT4);
    CHECK(best != NULL && aesgen_gcm_ghash(&key) != NULL && strcmp(aesgen_gcm_ghash(&key), best->name) == 0,
          "an automatic key uses GHASH %s, dispatch prefers %s", aesgen_gcm_ghash(&key) ? aesgen_gcm_ghash(&key) : "NULL",
          best ? best->name : "NULL");
    const char *v = aesgen_gcm_variant(&key), *sel = aesgen_selected_variant(128, AESGEN_ENCRYPT);
    CHECK(v != NULL && sel != NULL && strcmp(v, sel) == 0, "an automatic AES-128 key uses %s, dispatch selects %s",
          v ? v : "NULL", sel ? sel : "NULL");

    /* every usable GHASH with every key size */
    for (size_t i = 0; i < aesgen_ghash_registry_size; i++) {
        const aesgen_ghash_variant *g = aesgen_ghash_registry[i];
        if (!aesgen_ghash_usable(g)) {
            fill(&key, sizeof key, 3);
            watch("the key", &key, sizeof key);
            EXPECT_RC(aesgen_gcm_init_variants(&key, KAT4->key, 16, NULL, g), AESGEN_ERR_BACKEND);
            WATCH_CHECK("aesgen_gcm_init_variants with a GHASH this CPU cannot run");
            printf("note: GHASH %s cannot run here\n", g->name);
            continue;
        }
        for (size_t k = 0; k < GCM_KAT_COUNT; k++) {
            char label[128];
            const int rc = aesgen_gcm_init_variants(&key, gcm_kats[k].key, gcm_kats[k].key_len, NULL, g);
            CHECK(rc == AESGEN_OK, "aesgen_gcm_init_variants with %s returned %s", g->name, st(rc));
            CHECK(aesgen_gcm_ghash(&key) != NULL && strcmp(aesgen_gcm_ghash(&key), g->name) == 0,
                  "a key set up with %s uses %s", g->name, aesgen_gcm_ghash(&key) ? aesgen_gcm_ghash(&key) : "NULL");
            snprintf(label, sizeof label, "GHASH %s", g->name);
            check_kat(&key, &gcm_kats[k], label);
        }
    }

    /* every usable AES encryption variant serves GCM keys of its size; a decryption
     * variant, or one of another key size, is refused with the key untouched */
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *a = aesgen_registry[i];
        if (!aesgen_variant_usable(a))
            continue;
        const gcm_kat *own = a->key_bits == 128 ? KAT4 : a->key_bits == 192 ? &gcm_kats[5] : &gcm_kats[6];
        const gcm_kat *other = a->key_bits == 256 ? KAT4 : &gcm_kats[6];
        fill(&key, sizeof key, 9);
        watch("the key", &key, sizeof key);
        if (a->direction == AESGEN_DECRYPT)
            EXPECT_RC(aesgen_gcm_init_variants(&key, own->key, own->key_len, a, NULL), AESGEN_ERR_BACKEND);
        else
            EXPECT_RC(aesgen_gcm_init_variants(&key, other->key, other->key_len, a, NULL), AESGEN_ERR_BACKEND);
        WATCH_CHECK("aesgen_gcm_init_variants with an AES variant that cannot serve the key");
        if (a->direction != AESGEN_ENCRYPT)
            continue;
        const int rc = aesgen_gcm_init_variants(&key, own->key, own->key_len, a, NULL);
        CHECK(rc == AESGEN_OK && strcmp(aesgen_gcm_variant(&key), a->name) == 0,
              "aesgen_gcm_init_variants with %s returned %s", a->name, st(rc));
        if (rc == AESGEN_OK)
            check_kat(&key, own, a->name);
        /* without a named GHASH the key takes the preferred one, unless another usable
         * GHASH writes the table a's stitched loop reads: then the best such, stitched */
        if (rc == AESGEN_OK) {
            const aesgen_ghash_variant *pick = aesgen_pick_ghash(), *writer = NULL;
            for (size_t j = 0; j < aesgen_ghash_registry_size && a->gcm_blocks != 0; j++) {
                const aesgen_ghash_variant *g = aesgen_ghash_registry[j];
                const aesgen_cpu_preference *pref = aesgen_cpu_preference_active();
                if (aesgen_ghash_usable(g) && strcmp(a->gcm_table, g->table) == 0 &&
                    (writer == NULL || aesgen_dispatch_rank(pref, g->backend, g->rank) <
                                           aesgen_dispatch_rank(pref, writer->backend, writer->rank)))
                    writer = g;
            }
            const aesgen_ghash_variant *want =
                writer != NULL && (pick == NULL || strcmp(pick->table, a->gcm_table) != 0) ? writer : pick;
            CHECK(want != NULL && strcmp(aesgen_gcm_ghash(&key), want->name) == 0,
                  "%s without a named GHASH uses %s, expected %s", a->name, aesgen_gcm_ghash(&key),
                  want ? want->name : "NULL");
            CHECK(aesgen_pick_ghash_stitching(a) == want, "aesgen_pick_ghash_stitching(%s) is not %s", a->name,
                  want ? want->name : "NULL");
            CHECK(aesgen_gcm_stitched(&key) == (writer != NULL ? a->gcm_blocks : 0),
                  "%s without a named GHASH: aesgen_gcm_stitched gives %u", a->name, aesgen_gcm_stitched(&key));
        }
        /* the stitched loop serves a key exactly when it reads the key's GHASH table */
        for (size_t j = 0; j < aesgen_ghash_registry_size; j++) {
            const aesgen_ghash_variant *g = aesgen_ghash_registry[j];
            if (!aesgen_ghash_usable(g) || aesgen_gcm_init_variants(&key, own->key, own->key_len, a, g) != AESGEN_OK)
                continue;
            const unsigned want = a->gcm_blocks != 0 && strcmp(a->gcm_table, g->table) == 0 ? a->gcm_blocks : 0;
            CHECK(aesgen_gcm_stitched(&key) == want, "%s with %s: aesgen_gcm_stitched gives %u, expected %u", a->name,
                  g->name, aesgen_gcm_stitched(&key), want);
        }
    }
    CHECK(aesgen_gcm_stitched(NULL) == 0, "aesgen_gcm_stitched(NULL) is not 0");

    /* every backend this CPU runs, through aesgen_gcm_init */
    for (size_t b = 0; b < aesgen_backend_count(); b++) {
        const char *name = aesgen_backend_name(b);
        if (name == NULL || aesgen_backend_supported(name) != 1)
            continue;
        EXPECT_RC(aesgen_force_backend(name), AESGEN_OK);
        for (size_t k = 0; k < GCM_KAT_COUNT; k++) {
            const unsigned bits = (unsigned)gcm_kats[k].key_len * 8;
            const char *sel = aesgen_selected_backend(bits, AESGEN_ENCRYPT);
            if (sel == NULL)
                continue; /* the backend does not serve this key size */
            char label[128];
            snprintf(label, sizeof label, "backend %s", name);
            const int rc = aesgen_gcm_init(&key, gcm_kats[k].key, gcm_kats[k].key_len);
            const aesgen_variant *a = rc == AESGEN_OK ? aesgen_find_variant(aesgen_gcm_variant(&key)) : NULL;
            CHECK(a != NULL && strcmp(a->backend, name) == 0, "%s: AES-%u key served by %s", label, bits,
                  a ? a->name : st(rc));
            if (rc == AESGEN_OK)
                check_kat(&key, &gcm_kats[k], label);
        }
    }
    EXPECT_RC(aesgen_force_backend(NULL), AESGEN_OK);
    aesgen_gcm_wipe(&key);
}

/* A key at every 8-byte offset of a 64-byte line gives what a 64-byte-aligned one does:
 * automatic keys (known answers too), then every usable GHASH with every backend. */
static void key_offsets_with(const aesgen_ghash_variant *g, const char *label)
{
    static _Alignas(64) uint8_t line[64 + sizeof(aesgen_gcm_key)];
    static _Alignas(64) aesgen_gcm_key ref;
    uint8_t msg[203] = {0}, aad[33] = {0}, iv7[7] = {0};
    uint8_t ct_ref[203] = {0}, tag_ref[16] = {0}, ct[203] = {0}, tag[16] = {0};
    fill(msg, sizeof msg, 1);
    fill(aad, sizeof aad, 2);
    fill(iv7, sizeof iv7, 3);
    for (size_t k = 2; k < GCM_KAT_COUNT; k++) {
        const gcm_kat *kat = &gcm_kats[k];
        const unsigned bits = (unsigned)kat->key_len * 8;
        if (aesgen_selected_variant(bits, AESGEN_ENCRYPT) == NULL)
            continue; /* a forced backend that does not serve this key size */
        EXPECT_RC(aesgen_gcm_init_variants(&ref, kat->key, kat->key_len, NULL, g), AESGEN_OK);
        for (int iv_kind = 0; iv_kind < 2; iv_kind++) {
            const uint8_t *iv = iv_kind ? iv7 : kat->iv;
            const size_t iv_len = iv_kind ? sizeof iv7 : 12;
            EXPECT_RC(aesgen_gcm_seal(&ref, iv, iv_len, aad, sizeof aad, ct_ref, msg, sizeof msg, tag_ref, 16), AESGEN_OK);
            for (size_t off = 0; off < 64; off += 8) {
                aesgen_gcm_key *key = (aesgen_gcm_key *)(void *)(line + off);
                memset(line, 0xee, sizeof line);
                EXPECT_RC(aesgen_gcm_init_variants(key, kat->key, kat->key_len, NULL, g), AESGEN_OK);
                memset(ct, 0, sizeof ct);
                EXPECT_RC(aesgen_gcm_seal(key, iv, iv_len, aad, sizeof aad, ct, msg, sizeof msg, tag, 16), AESGEN_OK);
                CHECK(memcmp(ct, ct_ref, sizeof ct) == 0 && memcmp(tag, tag_ref, 16) == 0,
                      "%s: AES-%u key at 64n+%zu: seal differs from the aligned key's (IV %zu bytes)", label, bits,
                      off, iv_len);
                EXPECT_RC(aesgen_gcm_open(key, iv, iv_len, aad, sizeof aad, ct, ct, sizeof ct, tag_ref, 16), AESGEN_OK);
                CHECK(memcmp(ct, msg, sizeof msg) == 0, "%s: AES-%u key at 64n+%zu: open in place", label, bits, off);
                gcm_cuts ac, tc;
                const char *failed;
                gcm_cuts_two(&ac, sizeof aad, 5);
                gcm_cuts_two(&tc, sizeof msg, 100);
                const int rc = gcm_stream_seal(key, iv, iv_len, aad, &ac, ct, msg, &tc, tag, 16, &failed);
                CHECK(rc == AESGEN_OK && memcmp(ct, ct_ref, sizeof ct) == 0 && memcmp(tag, tag_ref, 16) == 0,
                      "%s: AES-%u key at 64n+%zu: streamed seal differs (%s)", label, bits, off, st(rc));
                if (iv_kind == 0)
                    check_kat(key, kat, label);
                aesgen_gcm_wipe(key);
            }
        }
        aesgen_gcm_wipe(&ref);
    }
}

static void test_key_offsets(void)
{
    key_offsets_with(NULL, "key at an 8-byte offset");
    for (size_t b = 0; b < aesgen_backend_count(); b++) {
        const char *name = aesgen_backend_name(b);
        if (name == NULL || aesgen_backend_supported(name) != 1)
            continue;
        EXPECT_RC(aesgen_force_backend(name), AESGEN_OK);
        for (size_t i = 0; i < aesgen_ghash_registry_size; i++) {
            const aesgen_ghash_variant *g = aesgen_ghash_registry[i];
            if (!aesgen_ghash_usable(g))
                continue;
            char label[160];
            snprintf(label, sizeof label, "backend %s, GHASH %s, key at an 8-byte offset", name, g->name);
            key_offsets_with(g, label);
        }
    }
    EXPECT_RC(aesgen_force_backend(NULL), AESGEN_OK);
}

/* One key, many calls (interleaved streams too): the same results, the key unchanged. */
static void test_shared_key(void)
{
    aesgen_gcm_key key, snapshot;
    aesgen_gcm_stream s[3];
    memset(s, 0, sizeof s);
    uint8_t out[3][64] = {0}, tag[3][16] = {0};
    kat_key(&key, KAT4);
    memcpy(&snapshot, &key, sizeof key);
    for (int round = 0; round < 3; round++) {
        check_kat(&key, KAT4, "shared key");
        for (int i = 0; i < 3; i++)
            EXPECT_RC(aesgen_gcm_start(&s[i], &key, i == 2 ? AESGEN_DECRYPT : AESGEN_ENCRYPT, KAT4->iv, 12), AESGEN_OK);
        for (int i = 0; i < 3; i++)
            EXPECT_RC(aesgen_gcm_aad(&s[i], KAT4->aad, 3 + (size_t)i), AESGEN_OK);
        for (int i = 0; i < 3; i++)
            EXPECT_RC(aesgen_gcm_aad(&s[i], KAT4->aad + 3 + i, KAT4->aad_len - 3 - (size_t)i), AESGEN_OK);
        for (int i = 0; i < 3; i++)
            EXPECT_RC(aesgen_gcm_update(&s[i], out[i], i == 2 ? KAT4->ct : KAT4->pt, 21 + (size_t)i), AESGEN_OK);
        for (int i = 0; i < 3; i++)
            EXPECT_RC(aesgen_gcm_update(&s[i], out[i] + 21 + i, (i == 2 ? KAT4->ct : KAT4->pt) + 21 + i,
                                        KAT4->len - 21 - (size_t)i),
                      AESGEN_OK);
        EXPECT_RC(aesgen_gcm_finish(&s[0], tag[0], 16), AESGEN_OK);
        EXPECT_RC(aesgen_gcm_finish(&s[1], tag[1], 12), AESGEN_OK);
        EXPECT_RC(aesgen_gcm_verify(&s[2], KAT4->tag, 16), AESGEN_OK);
        CHECK(memcmp(out[0], KAT4->ct, KAT4->len) == 0 && memcmp(out[1], KAT4->ct, KAT4->len) == 0,
              "interleaved streams on one key: wrong ciphertext");
        CHECK(memcmp(tag[0], KAT4->tag, 16) == 0 && memcmp(tag[1], KAT4->tag, 12) == 0,
              "interleaved streams on one key: wrong tag");
        CHECK(memcmp(out[2], KAT4->pt, KAT4->len) == 0, "interleaved streams on one key: wrong plaintext");
        CHECK(memcmp(&snapshot, &key, sizeof key) == 0, "the key changed while in use (round %d)", round);
    }
    aesgen_gcm_wipe(&key);
}

static void test_wipe(void)
{
    aesgen_gcm_key key;
    aesgen_gcm_stream s;
    memset(&s, 0, sizeof s);
    kat_key(&key, KAT4);
    EXPECT_RC(aesgen_gcm_start(&s, &key, AESGEN_ENCRYPT, KAT4->iv, 12), AESGEN_OK);
    aesgen_gcm_wipe(&key);
    const volatile uint8_t *p = (const volatile uint8_t *)&key;
    size_t nonzero = 0;
    for (size_t i = 0; i < sizeof key; i++)
        nonzero += p[i] != 0;
    CHECK(nonzero == 0, "aesgen_gcm_wipe left %zu non-zero bytes", nonzero);
    CHECK(aesgen_gcm_variant(&key) == NULL && aesgen_gcm_ghash(&key) == NULL,
          "a wiped key still names its AES variant or GHASH");
    aesgen_gcm_stream_wipe(&s);
    p = (const volatile uint8_t *)&s;
    nonzero = 0;
    for (size_t i = 0; i < sizeof s; i++)
        nonzero += p[i] != 0;
    CHECK(nonzero == 0, "aesgen_gcm_stream_wipe left %zu non-zero bytes", nonzero);
    aesgen_gcm_wipe(NULL);
    aesgen_gcm_stream_wipe(NULL);
    CHECK(aesgen_gcm_variant(NULL) == NULL && aesgen_gcm_ghash(NULL) == NULL,
          "aesgen_gcm_variant/ghash(NULL) are not NULL");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    kat_init();
    printf("aesgen_gcm_api: AES-GCM contract of aesgen.h\n");
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        {"status strings", test_status_strings},
        {"known answers", test_known_answers},
        {"GHASH registry, every GHASH and backend", test_registry},
        {"keys at every 8-byte offset", test_key_offsets},
        {"a shared key", test_shared_key},
        {"wiping", test_wipe},
        {"NULL pointers", test_null_pointers},
        {"key lengths", test_key_lengths},
        {"IV and tag lengths", test_iv_tag_lengths},
        {"message length limits", test_message_limits},
        {"overlapping buffers", test_overlap},
        {"uninitialised and wiped keys and streams", test_uninitialised},
        {"NULL with length 0", test_zero_lengths},
        {"stream order, encrypting", test_stream_order_encrypt},
        {"stream order, decrypting", test_stream_order_decrypt},
        {"refused stream calls", test_stream_refusals},
        {"a stream whose key was wiped", test_stream_key_wiped},
        {"tags that do not authenticate", test_auth_failures},
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        const unsigned long f0 = ts_failures, c0 = ts_checks;
        tests[i].fn();
        printf("%s %s: %lu checks\n", ts_failures == f0 ? "ok  " : "FAIL", tests[i].name, ts_checks - c0);
    }
    printf("%s: %lu checks, %lu failures\n", ts_failures ? "FAILED" : "PASSED", ts_checks, ts_failures);
    return ts_failures ? 1 : 0;
}
