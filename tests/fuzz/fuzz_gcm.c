/*
 * fuzz_gcm.c -- the AES-GCM modes of fuzz_differential (fuzz_test.h; the input
 * layout is at the top of fuzz_test.c).
 *
 * One case: a subject (a backend this CPU runs, forced before the key set-up, or
 * one AES encryption variant) and a GHASH variant this CPU runs (or dispatch's
 * choice), a key, an IV of 1..FUZZ_GCM_MAX_IV bytes, AAD, a text of up to
 * FUZZ_MAX_LEN bytes, a tag length, seal or open, one call (aesgen_gcm_seal/open)
 * or a stream (aesgen_gcm_start/aad/update/finish/verify) with the AAD and the
 * text each split into up to FUZZ_MAX_PIECES calls of any length, in place or not,
 * at input/output offsets 0..15. The IV, every AAD piece, every text piece and the
 * tag are in heap buffers of their own that end exactly at the end of the
 * allocation (the IV of a stream is freed right after aesgen_gcm_start).
 *
 * OpenSSL seals the plaintext. Seal: aesgen must give its ciphertext and the first
 * tag_len bytes of its tag. Open: aesgen opens OpenSSL's ciphertext and tag and
 * must give the plaintext. Then, when the case asks, the open of a tampered
 * message (one bit of the ciphertext, AAD, IV or tag flipped) must agree with
 * OpenSSL's verdict on it: AESGEN_ERR_AUTH, and for the one-shot open not a byte
 * of out written (a stream releases the plaintext, which must be OpenSSL's). Tags
 * of 4 bytes collide with probability 2^-32; then both accept and agree.
 *
 * Probes, when the flags ask: an invalid tag length gives AESGEN_ERR_LENGTH with
 * nothing written (for a stream, finish/verify with it leaves the stream as it
 * was: the right length afterwards gives the right answer); partially overlapping
 * buffers give AESGEN_ERR_OVERLAP with nothing written (for a stream, between two
 * AAD pieces: the AAD must go on). Every call of a stream that returned must
 * leave its inputs as they were; after finish/verify an update is
 * AESGEN_ERR_STATE.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_test.h"
#include "ts_oracle_gcm.h"

#define MAX_GHASH 16

static const size_t tag_lengths[7] = {16, 15, 14, 13, 12, 8, 4};
static const size_t bad_tag_lengths[16] = {0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 17, 18, 31, 32, 64, SIZE_MAX};

enum { TAMPER_NONE, TAMPER_CT, TAMPER_AAD, TAMPER_IV, TAMPER_TAG, TAMPER_KINDS };
static const char *const tamper_name[TAMPER_KINDS] = {"none", "a bit of the ciphertext", "a bit of the AAD",
                                                      "a bit of the IV", "a bit of the tag"};

static fuzz_subject subjects[FUZZ_MAX_SUBJECTS];
static size_t n_subjects;
static const aesgen_ghash_variant *ghashes[MAX_GHASH];
static size_t n_ghash;

typedef struct gcm_case {
    const fuzz_subject *subj;
    const aesgen_ghash_variant *ghash; /* NULL: dispatch's choice */
    unsigned bits;
    int open, in_place, probe_tag, probe_overlap, streamed;
    size_t iv_len, aad_len, len, tag_len, bad_tag_len;
    unsigned in_off, out_off;
    size_t n_aad_pieces, aad_cut[FUZZ_MAX_PIECES + 1];
    size_t n_pieces, cut[FUZZ_MAX_PIECES + 1];
    int tamper;
    unsigned tamper_pos;
    uint8_t key[32];
    const uint8_t *iv, *aad, *pt; /* in the payload */
} gcm_case;

static const gcm_case *current;
static const char *stage = "";

static void describe(void)
{
    const gcm_case *c = current;
    fprintf(stderr, "  subject: %s %s, GHASH %s\n", c->subj->variant ? "variant" : "backend",
            c->subj->variant ? c->subj->variant->name : c->subj->backend,
            c->ghash ? c->ghash->name : "(dispatch)");
    fprintf(stderr, "  AES-%u GCM-%s %s (%s), iv_len %zu, aad_len %zu, len %zu, tag_len %zu\n", c->bits,
            c->open ? "open" : "seal", c->streamed ? "streamed" : "one-shot", stage, c->iv_len, c->aad_len, c->len,
            c->tag_len);
    fprintf(stderr, "  in_off %u, out_off %u, %s; probes: tag length %s (%zu), overlap %s; tamper: %s (%u)\n",
            c->in_off, c->out_off, c->in_place ? "in place" : "out of place", c->probe_tag ? "on" : "off",
            c->bad_tag_len, c->probe_overlap ? "on" : "off", tamper_name[c->tamper], c->tamper_pos);
    if (c->streamed) {
        fprintf(stderr, "  AAD pieces:");
        for (size_t i = 0; i < c->n_aad_pieces; i++)
            fprintf(stderr, " %zu", c->aad_cut[i + 1] - c->aad_cut[i]);
        fprintf(stderr, "; text pieces:");
        for (size_t i = 0; i < c->n_pieces; i++)
            fprintf(stderr, " %zu", c->cut[i + 1] - c->cut[i]);
        fputc('\n', stderr);
    }
    fuzz_hex("key", c->key, c->bits / 8);
    fuzz_hex("iv", c->iv, c->iv_len);
    fuzz_hex("aad (first 32)", c->aad, c->aad_len < 32 ? c->aad_len : 32);
}

static void decode(gcm_case *c, const uint8_t *data, size_t size, int mode)
{
    memset(c, 0, sizeof *c);
    c->subj = &subjects[fuzz_at(data, size, 0) % n_subjects];
    const aesgen_variant *v = c->subj->variant;
    c->bits = v ? v->key_bits : 128u + 64u * (fuzz_at(data, size, 1) % 3);
    c->open = mode == FUZZ_MODE_GCM_OPEN;
    const uint8_t flags = fuzz_at(data, size, 3);
    c->in_place = flags & 1;
    c->probe_tag = (flags >> 1) & 1;
    c->probe_overlap = (flags >> 2) & 1;
    c->streamed = (flags >> 3) & 1;
    c->len = ((size_t)fuzz_at(data, size, 4) | (size_t)fuzz_at(data, size, 5) << 8) % (FUZZ_MAX_LEN + 1);
    c->in_off = fuzz_at(data, size, 6) & 15;
    c->out_off = fuzz_at(data, size, 6) >> 4;
    c->n_pieces = fuzz_at(data, size, 7) % FUZZ_MAX_PIECES + 1;
    fuzz_cuts(c->cut, c->n_pieces, c->len, 1, data, size, 8);
    for (size_t i = 0; i < 32; i++)
        c->key[i] = fuzz_at(data, size, 16 + i);

    const size_t g = fuzz_at(data, size, 48) % (n_ghash + 1);
    c->ghash = g < n_ghash ? ghashes[g] : NULL;
    const uint8_t iv_sel = fuzz_at(data, size, 49);
    c->iv_len = iv_sel < 128 ? 12 : 1 + (size_t)(iv_sel - 128) % FUZZ_GCM_MAX_IV;
    c->aad_len = ((size_t)fuzz_at(data, size, 50) | (size_t)fuzz_at(data, size, 51) << 8) % (FUZZ_GCM_MAX_AAD + 1);
    c->tag_len = tag_lengths[fuzz_at(data, size, 52) % 7];
    c->bad_tag_len = bad_tag_lengths[fuzz_at(data, size, 53) % 16];
    c->n_aad_pieces = fuzz_at(data, size, 54) % FUZZ_MAX_PIECES + 1;
    fuzz_cuts(c->aad_cut, c->n_aad_pieces, c->aad_len, 1, data, size, 55);
    c->tamper = fuzz_at(data, size, 62) % TAMPER_KINDS;
    c->tamper_pos = (unsigned)fuzz_at(data, size, 63) | (unsigned)fuzz_at(data, size, 64) << 8;
}

/* ------------------------------------------------------------------ aesgen */

static void setup_key(aesgen_gcm_key *key, const gcm_case *c)
{
    const aesgen_variant *v = c->subj->variant;
    fuzz_expect_status("aesgen_force_backend", aesgen_force_backend(v ? NULL : c->subj->backend), AESGEN_OK);
    if (v || c->ghash)
        fuzz_expect_status("aesgen_gcm_init_variants",
                           aesgen_gcm_init_variants(key, c->key, c->bits / 8, v, c->ghash), AESGEN_OK);
    else
        fuzz_expect_status("aesgen_gcm_init", aesgen_gcm_init(key, c->key, c->bits / 8), AESGEN_OK);

    const char *aes = aesgen_gcm_variant(key), *gh = aesgen_gcm_ghash(key);
    const aesgen_variant *served = aes ? aesgen_find_variant(aes) : NULL;
    const aesgen_ghash_variant *want_gh = c->ghash ? c->ghash : aesgen_pick_ghash_stitching(served);
    if (gh == NULL || want_gh == NULL || strcmp(gh, want_gh->name) != 0)
        fuzz_fail("aesgen_gcm_ghash: the key uses %s, not %s", gh ? gh : "NULL", want_gh ? want_gh->name : "NULL");
    if (served == NULL || served->key_bits != c->bits || served->direction != AESGEN_ENCRYPT ||
        (v && served != v) ||
        (!v && (served->backend == NULL || strcmp(served->backend, c->subj->backend) != 0)))
        fuzz_fail("aesgen_gcm_variant: the key is served by %s", aes ? aes : "NULL");
}

/* A copy of n bytes in a buffer of its own (fuzz_tail_buffer, offset off). */
static uint8_t *copy_of(const uint8_t *p, size_t n, size_t off, uint8_t **base)
{
    uint8_t *b = fuzz_tail_buffer(off, n, base);
    memcpy(b, p, n);
    return b;
}

static void unchanged(const char *what, const uint8_t *want, const uint8_t *got, size_t n)
{
    if (memcmp(want, got, n) != 0)
        fuzz_fail("%s: %s changed", stage, what);
}

static void untouched(const char *what, const uint8_t *p, size_t n, uint8_t fill)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != fill)
            fuzz_fail("%s: %s byte %zu written", stage, what, i);
}

/* The tag buffer of a call with tag_len (at most 64 bytes of it exist: a larger
 * tag_len is invalid, and ASan sees a call that reads or writes past them). Open:
 * the first bytes of tag; seal: 0xe1. */
static uint8_t *tag_buffer(int open, const uint8_t tag[64], size_t tag_len, uint8_t **base)
{
    const size_t n = tag_len < 64 ? tag_len : 64;
    uint8_t *t = fuzz_tail_buffer(0, n, base);
    if (open)
        memcpy(t, tag, n);
    else
        memset(t, 0xe1, n);
    return t;
}

/* One aesgen_gcm_seal/open of the case's shape with tag_len, iv, aad, in (the
 * case's lengths); out -> got, seal: the tag -> tag. On an error nothing may be
 * written (out and the tag keep their fill; in place, the input stays). */
static int oneshot(const gcm_case *c, const aesgen_gcm_key *key, int open, size_t tag_len, const uint8_t *iv,
                   const uint8_t *aad, const uint8_t *in, uint8_t *got, uint8_t tag[64])
{
    uint8_t *bv, *ba, *bi, *bo, *bt;
    const uint8_t *ivb = copy_of(iv, c->iv_len, 0, &bv), *ab = copy_of(aad, c->aad_len, 0, &ba);
    uint8_t *ib = copy_of(in, c->len, c->in_off, &bi), *ob = fuzz_tail_buffer(c->out_off, c->len, &bo);
    uint8_t *tb = tag_buffer(open, tag, tag_len, &bt);
    const size_t tn = tag_len < 64 ? tag_len : 64;
    if (c->in_place)
        ob = ib;
    else
        memset(ob, 0xe1, c->len);
    uint8_t *o = c->len ? ob : NULL;
    const uint8_t *i = c->len ? ib : NULL, *a = c->aad_len ? ab : NULL;
    const int rc = open ? aesgen_gcm_open(key, ivb, c->iv_len, a, c->aad_len, o, i, c->len, tb, tag_len)
                        : aesgen_gcm_seal(key, ivb, c->iv_len, a, c->aad_len, o, i, c->len, tb, tag_len);
    unchanged("the IV", iv, ivb, c->iv_len);
    unchanged("the AAD", aad, ab, c->aad_len);
    if (!c->in_place)
        unchanged("the input", in, ib, c->len);
    if (open)
        unchanged("the tag", tag, tb, tn);
    if (rc != AESGEN_OK) {
        if (c->in_place)
            unchanged("the buffer (in place) after an error", in, ib, c->len);
        else
            untouched("out after an error", ob, c->len, 0xe1);
        if (!open)
            untouched("the tag after an error", tb, tn, 0xe1);
    }
    memcpy(got, ob, c->len);
    if (!open)
        memcpy(tag, tb, tn);
    free(bv);
    free(ba);
    free(bi);
    free(bo);
    free(bt);
    return rc;
}

/* out = in + d or in = out + d, 0 < d < n: must be AESGEN_ERR_OVERLAP with nothing
 * written; through the stream s when it is not NULL, else one-shot. */
static void probe_overlap(const gcm_case *c, const aesgen_gcm_key *key, aesgen_gcm_stream *s, int open,
                          const uint8_t *in, const uint8_t tag[64])
{
    const size_t n = c->len, d = 1 + c->key[1] % (n - 1 < 31 ? n - 1 : 31);
    uint8_t *buf = malloc(n + d), *keep = malloc(n + d), *bt;
    if (!buf || !keep)
        abort();
    memcpy(buf, in, n);
    memset(buf + n, 0x77, d);
    memcpy(keep, buf, n + d);
    const int back = c->key[2] & 1;
    uint8_t *pin = back ? buf + d : buf, *pout = back ? buf : buf + d;
    uint8_t *tb = tag_buffer(open, tag, c->tag_len, &bt);
    int rc;
    if (s)
        rc = aesgen_gcm_update(s, pout, pin, n);
    else if (open)
        rc = aesgen_gcm_open(key, c->iv, c->iv_len, c->aad, c->aad_len, pout, pin, n, tb, c->tag_len);
    else
        rc = aesgen_gcm_seal(key, c->iv, c->iv_len, c->aad, c->aad_len, pout, pin, n, tb, c->tag_len);
    fuzz_expect_status("partially overlapping buffers", rc, AESGEN_ERR_OVERLAP);
    unchanged("the overlapping buffers", keep, buf, n + d);
    if (open)
        unchanged("the tag", tag, tb, c->tag_len);
    else
        untouched("the tag", tb, c->tag_len, 0xe1);
    free(buf);
    free(keep);
    free(bt);
}

/* The message through a stream: the AAD and the text in the case's pieces, then
 * finish (seal: the tag -> tag) or verify (open); returns the status of that. */
static int streamed(const gcm_case *c, const aesgen_gcm_key *key, int open, const uint8_t *iv,
                    const uint8_t *aad, const uint8_t *in, uint8_t *got, uint8_t tag[64])
{
    aesgen_gcm_stream s;
    uint8_t *bv, *b1, *b2;
    const uint8_t *ivb = copy_of(iv, c->iv_len, 0, &bv);
    fuzz_expect_status("aesgen_gcm_start",
                       aesgen_gcm_start(&s, key, open ? AESGEN_DECRYPT : AESGEN_ENCRYPT, ivb, c->iv_len), AESGEN_OK);
    unchanged("the IV", iv, ivb, c->iv_len);
    free(bv); /* the stream must not keep it */

    for (size_t p = 0; p < c->n_aad_pieces; p++) {
        const size_t a = c->aad_cut[p], n = c->aad_cut[p + 1] - a;
        const uint8_t *ab = copy_of(aad + a, n, 0, &b1);
        fuzz_expect_status("aesgen_gcm_aad", aesgen_gcm_aad(&s, n ? ab : NULL, n), AESGEN_OK);
        unchanged("an AAD piece", aad + a, ab, n);
        free(b1);
        if (p == 0 && c->probe_overlap && c->len >= 2)
            probe_overlap(c, key, &s, open, in, tag);
    }
    for (size_t p = 0; p < c->n_pieces; p++) {
        const size_t a = c->cut[p], n = c->cut[p + 1] - a;
        uint8_t *ib = copy_of(in + a, n, c->in_off, &b1), *ob = fuzz_tail_buffer(c->out_off, n, &b2);
        if (c->in_place)
            ob = ib;
        else
            memset(ob, 0xe1, n);
        fuzz_expect_status("aesgen_gcm_update", aesgen_gcm_update(&s, n ? ob : NULL, n ? ib : NULL, n), AESGEN_OK);
        if (!c->in_place)
            unchanged("the input of a piece", in + a, ib, n);
        memcpy(got + a, ob, n);
        free(b1);
        free(b2);
    }

    uint8_t *tb;
    if (c->probe_tag) {
        tb = tag_buffer(open, tag, c->bad_tag_len, &b1);
        const size_t tn = c->bad_tag_len < 64 ? c->bad_tag_len : 64;
        fuzz_expect_status(open ? "aesgen_gcm_verify with an invalid tag length"
                                : "aesgen_gcm_finish with an invalid tag length",
                           open ? aesgen_gcm_verify(&s, tb, c->bad_tag_len) : aesgen_gcm_finish(&s, tb, c->bad_tag_len),
                           AESGEN_ERR_LENGTH);
        if (open)
            unchanged("the tag", tag, tb, tn);
        else
            untouched("the tag after an invalid length", tb, tn, 0xe1);
        free(b1);
    }
    tb = tag_buffer(open, tag, c->tag_len, &b1);
    const int rc = open ? aesgen_gcm_verify(&s, tb, c->tag_len) : aesgen_gcm_finish(&s, tb, c->tag_len);
    if (open)
        unchanged("the tag", tag, tb, c->tag_len);
    else
        memcpy(tag, tb, c->tag_len);
    free(b1);
    fuzz_expect_status("aesgen_gcm_update after finish/verify", aesgen_gcm_update(&s, NULL, NULL, 0),
                       AESGEN_ERR_STATE);
    aesgen_gcm_stream_wipe(&s);
    return rc;
}

static int run(const gcm_case *c, const aesgen_gcm_key *key, int open, const uint8_t *iv, const uint8_t *aad,
               const uint8_t *in, uint8_t *got, uint8_t tag[64])
{
    if (c->streamed)
        return streamed(c, key, open, iv, aad, in, got, tag);
    if (c->probe_tag) {
        uint8_t scratch[64];
        memcpy(scratch, tag, 64);
        fuzz_expect_status(open ? "aesgen_gcm_open with an invalid tag length"
                                : "aesgen_gcm_seal with an invalid tag length",
                           oneshot(c, key, open, c->bad_tag_len, iv, aad, in, got, scratch), AESGEN_ERR_LENGTH);
    }
    if (c->probe_overlap && c->len >= 2)
        probe_overlap(c, key, NULL, open, in, tag);
    return oneshot(c, key, open, c->tag_len, iv, aad, in, got, tag);
}

static void oracle_failed(const char *what)
{
    fprintf(stderr, "fuzz_differential: OpenSSL oracle: %s failed\n", what);
    abort();
}

/* Open a copy of (iv, aad, ct, tag) with one bit flipped; aesgen must agree with
 * OpenSSL's verdict on it. */
static void open_tampered(const gcm_case *c, const aesgen_gcm_key *key, const uint8_t *ct, const uint8_t tag16[16],
                          uint8_t *got)
{
    int kind = c->tamper;
    if ((kind == TAMPER_CT && c->len == 0) || (kind == TAMPER_AAD && c->aad_len == 0))
        kind = TAMPER_TAG;
    uint8_t *iv = malloc(c->iv_len), *aad = malloc(c->aad_len + 1), *tct = malloc(c->len + 1);
    uint8_t *plain = malloc(c->len + 1), tag[64] = {0};
    if (!iv || !aad || !tct || !plain)
        abort();
    memcpy(iv, c->iv, c->iv_len);
    memcpy(aad, c->aad, c->aad_len);
    memcpy(tct, ct, c->len);
    memcpy(tag, tag16, 16);
    uint8_t *target = kind == TAMPER_CT ? tct : kind == TAMPER_AAD ? aad : kind == TAMPER_IV ? iv : tag;
    const size_t n = kind == TAMPER_CT ? c->len : kind == TAMPER_AAD ? c->aad_len : kind == TAMPER_IV ? c->iv_len
                                                                                                      : c->tag_len;
    target[((size_t)(c->tamper_pos >> 3) * n) >> 13] ^= (uint8_t)(1u << (c->tamper_pos & 7));

    int authentic = -1;
    const char *e = ts_oracle_gcm_open(fuzz_ossl, c->bits, c->key, iv, c->iv_len, aad, c->aad_len, plain, tct,
                                       c->len, tag, c->tag_len, &authentic);
    if (e)
        oracle_failed(e);
    stage = "open of a tampered message";
    const int rc = run(c, key, 1, iv, aad, tct, got, tag);
    fuzz_expect_status(c->streamed ? "aesgen_gcm_verify of a tampered message" : "aesgen_gcm_open of a tampered message",
                       rc, authentic ? AESGEN_OK : AESGEN_ERR_AUTH);
    /* a refused one-shot open wrote nothing (checked by oneshot); a stream released
     * the plaintext, as OpenSSL does */
    if (rc == AESGEN_OK || c->streamed)
        fuzz_same("plaintext of the tampered message", plain, got, c->len);
    free(iv);
    free(aad);
    free(tct);
    free(plain);
}

void fuzz_gcm_init(void)
{
    for (size_t i = 0; i < aesgen_backend_count() && n_subjects < FUZZ_MAX_SUBJECTS; i++) {
        const char *b = aesgen_backend_name(i);
        if (b && aesgen_backend_supported(b) == 1)
            subjects[n_subjects++] = (fuzz_subject){b, NULL};
    }
    for (size_t i = 0; i < aesgen_registry_size && n_subjects < FUZZ_MAX_SUBJECTS; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if (v->direction == AESGEN_ENCRYPT && v->ctr != NULL && aesgen_variant_usable(v))
            subjects[n_subjects++] = (fuzz_subject){NULL, v};
    }
    for (size_t i = 0; i < aesgen_ghash_registry_size && n_ghash < MAX_GHASH; i++)
        if (aesgen_ghash_usable(aesgen_ghash_registry[i]))
            ghashes[n_ghash++] = aesgen_ghash_registry[i];
    if (n_subjects == 0 || n_ghash == 0) {
        fprintf(stderr, "fuzz_differential: no GCM subject or GHASH variant runs on this CPU\n");
        abort();
    }
    if (getenv("FUZZ_DIFFERENTIAL_LIST")) {
        for (size_t i = 0; i < n_subjects; i++)
            fprintf(stderr, "GCM subject %zu: %s\n", i,
                    subjects[i].variant ? subjects[i].variant->name : subjects[i].backend);
        for (size_t i = 0; i < n_ghash; i++)
            fprintf(stderr, "GHASH %zu: %s\n", i, ghashes[i]->name);
    }
}

void fuzz_gcm_run(const uint8_t *data, size_t size, int mode)
{
    gcm_case c;
    decode(&c, data, size, mode);
    const size_t total = c.iv_len + c.aad_len + c.len;
    uint8_t *payload = malloc(total), *ct = malloc(c.len + 1), *got = malloc(c.len + 1);
    if (!payload || !ct || !got)
        abort();
    fuzz_payload(payload, total, data, size);
    c.iv = payload;
    c.aad = payload + c.iv_len;
    c.pt = c.aad + c.aad_len;
    current = &c;
    fuzz_describe = describe;
    stage = c.open ? "open" : "seal";

    uint8_t tag16[16], tag[64] = {0};
    const char *e = ts_oracle_gcm_seal(fuzz_ossl, c.bits, c.key, c.iv, c.iv_len, c.aad, c.aad_len, ct, c.pt, c.len,
                                       tag16);
    if (e)
        oracle_failed(e);

    aesgen_gcm_key key;
    setup_key(&key, &c);
    if (c.open) {
        memcpy(tag, tag16, 16);
        fuzz_expect_status(c.streamed ? "aesgen_gcm_verify" : "aesgen_gcm_open",
                           run(&c, &key, 1, c.iv, c.aad, ct, got, tag), AESGEN_OK);
        fuzz_same("plaintext", c.pt, got, c.len);
        if (c.tamper != TAMPER_NONE)
            open_tampered(&c, &key, ct, tag16, got);
    } else {
        fuzz_expect_status(c.streamed ? "aesgen_gcm_finish" : "aesgen_gcm_seal",
                           run(&c, &key, 0, c.iv, c.aad, c.pt, got, tag), AESGEN_OK);
        fuzz_same("ciphertext", ct, got, c.len);
        fuzz_same("tag", tag16, tag, c.tag_len);
    }

    aesgen_gcm_wipe(&key);
    free(payload);
    free(ct);
    free(got);
    current = NULL;
    fuzz_describe = NULL;
}
