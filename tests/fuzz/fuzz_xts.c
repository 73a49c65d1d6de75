/*
 * fuzz_xts.c -- the AES-XTS modes of fuzz_differential (fuzz_test.h; the input
 * layout is at the top of fuzz_test.c).
 *
 * One case: a subject (a backend this CPU runs, forced before aesgen_xts_init, or
 * one AES-128/256 encryption variant this CPU runs for the data and the tweak) and,
 * for a variant subject, a decryption variant of the same key size this CPU runs
 * (or dispatch's choice), set up with aesgen_xts_init_variants; a key of 2 x 128 or
 * 2 x 256 bits; encryption or decryption; one data unit (aesgen_xts_encrypt/decrypt
 * with a 16-byte tweak, 0..FUZZ_MAX_LEN bytes: below 16 is AESGEN_ERR_LENGTH) or
 * many (aesgen_xts_encrypt/decrypt_sectors: a sector number, optionally next to the
 * 2^32 carry or ending at 2^64 - 1, a unit length of 16 bytes or more and a count,
 * at most FUZZ_MAX_LEN bytes in all); in place or not, input and output offsets
 * 0..15, each buffer ending exactly at the end of its allocation.
 *
 * OpenSSL (EVP aes-128-xts / aes-256-xts, tests/support/ts_oracle_xts.c) computes
 * every unit on its own with its tweak as the IV (for sectors: sector + i, 16 bytes
 * little endian); the output must match, and the input of an out-of-place call must
 * be unchanged. aesgen_xts_variant must name what serves the key.
 *
 * Probes, when the flags ask: equal key halves give AESGEN_ERR_WEAK_KEY with the
 * key object untouched (and a call with that object AESGEN_ERR_CONTEXT, nothing
 * written), then the case goes on with key2 changed in one bit; a unit shorter than
 * 16 bytes or longer than 2^24, a sector range past 2^64 - 1, and partially
 * overlapping buffers give AESGEN_ERR_LENGTH / AESGEN_ERR_OVERLAP with nothing
 * written; count 0 does nothing. After aesgen_xts_wipe, a call is AESGEN_ERR_CONTEXT.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_test.h"
#include "ts_oracle_xts.h"

#define MAX_DEC 64
#define KEY_FILL 0xa5 /* the key object before a set-up that must fail */
#define OUT_FILL 0xe1 /* out before a call */

enum { SECTOR_RAW, SECTOR_SMALL, SECTOR_CARRY32, SECTOR_END64, SECTOR_FORMS };
static const char *const sector_form_name[SECTOR_FORMS] = {"raw", "small", "near the 2^32 carry",
                                                           "ending at 2^64 - 1"};

static fuzz_subject subjects[FUZZ_MAX_SUBJECTS];
static size_t n_subjects;
static const aesgen_variant *decs[2][MAX_DEC]; /* usable decryption variants: [0] 128, [1] 256 */
static size_t n_decs[2];

typedef struct xts_case {
    const fuzz_subject *subj;
    const aesgen_variant *dec; /* variant subject: the decryption variant, NULL = dispatch */
    unsigned bits;
    int decrypt, in_place, probe_length, probe_overlap, sectors, weak, sector_form;
    size_t len;                /* single unit: its length; sectors: count * unit_len */
    size_t unit_len, count;    /* sectors */
    uint64_t sector;
    unsigned in_off, out_off;
    uint8_t key[64];           /* key1 || key2, bits / 4 bytes */
    uint8_t tweak[16];         /* single unit */
} xts_case;

static const xts_case *current;
static const char *stage = "";

static void describe(void)
{
    const xts_case *c = current;
    fprintf(stderr, "  subject: %s %s, decryption variant %s (%s)\n", c->subj->variant ? "variant" : "backend",
            c->subj->variant ? c->subj->variant->name : c->subj->backend,
            c->subj->variant ? (c->dec ? c->dec->name : "(dispatch)") : "(backend's)", stage);
    if (c->sectors)
        fprintf(stderr, "  AES-%u-XTS %s, sectors: first %llu (%s), unit_len %zu, count %zu\n", c->bits,
                c->decrypt ? "decrypt" : "encrypt", (unsigned long long)c->sector, sector_form_name[c->sector_form],
                c->unit_len, c->count);
    else
        fprintf(stderr, "  AES-%u-XTS %s, one unit of %zu bytes\n", c->bits, c->decrypt ? "decrypt" : "encrypt",
                c->len);
    fprintf(stderr, "  in_off %u, out_off %u, %s; probes: weak key %s, length %s, overlap %s\n", c->in_off,
            c->out_off, c->in_place ? "in place" : "out of place", c->weak ? "on" : "off",
            c->probe_length ? "on" : "off", c->probe_overlap ? "on" : "off");
    fuzz_hex("key", c->key, c->bits / 4);
    if (!c->sectors)
        fuzz_hex("tweak", c->tweak, 16);
}

/* The payload: for AES-256-XTS key2 first (32 bytes), then the text. */
static void decode(xts_case *c, const uint8_t *data, size_t size, int mode, uint8_t *key2_256)
{
    memset(c, 0, sizeof *c);
    c->subj = &subjects[fuzz_at(data, size, 0) % n_subjects];
    const aesgen_variant *v = c->subj->variant;
    c->bits = v ? v->key_bits : fuzz_at(data, size, 1) % 2 ? 256u : 128u;
    if (v) {
        const size_t k = c->bits == 256, n = n_decs[k];
        const size_t d = fuzz_at(data, size, 8) % (n + 1);
        c->dec = d < n ? decs[k][d] : NULL;
    }
    c->decrypt = mode == FUZZ_MODE_XTS_DEC;
    const uint8_t flags = fuzz_at(data, size, 3);
    c->in_place = flags & 1;
    c->probe_length = (flags >> 1) & 1;
    c->probe_overlap = (flags >> 2) & 1;
    c->sectors = (flags >> 3) & 1;
    c->weak = (flags >> 4) & 1;
    c->sector_form = (flags >> 5) & 3;
    c->in_off = fuzz_at(data, size, 6) & 15;
    c->out_off = fuzz_at(data, size, 6) >> 4;
    const size_t raw = ((size_t)fuzz_at(data, size, 4) | (size_t)fuzz_at(data, size, 5) << 8);
    if (c->sectors) {
        /* 1..8 units (half the values), else 1..255, odd counts across the 64-tweak groups */
        const uint8_t b = fuzz_at(data, size, 7);
        c->count = b < 128 ? 1 + (size_t)b % 8 : 1 + (size_t)(b - 128) * 2;
        c->unit_len = 16 + raw % (FUZZ_MAX_LEN / c->count - 15);
        c->len = c->count * c->unit_len;
        uint64_t s = 0;
        for (size_t i = 0; i < 8; i++)
            s |= (uint64_t)fuzz_at(data, size, 48 + i) << (8 * i);
        const uint64_t before = fuzz_at(data, size, 64) % 64; /* units before the boundary */
        if (c->sector_form == SECTOR_SMALL)
            s &= 0xff;
        else if (c->sector_form == SECTOR_CARRY32)
            s = ((uint64_t)1 << 32) - 1 - before;
        /* the last unit is sector 2^64 - 1, or the range would pass it (the length
         * probe tries that) */
        if (c->sector_form == SECTOR_END64 || s > UINT64_MAX - (c->count - 1))
            s = UINT64_MAX - (c->count - 1);
        c->sector = s;
    } else {
        c->len = raw % (FUZZ_MAX_LEN + 1);
        for (size_t i = 0; i < 16; i++)
            c->tweak[i] = fuzz_at(data, size, 48 + i);
    }
    const size_t half = c->bits / 8;
    for (size_t i = 0; i < half; i++) {
        c->key[i] = fuzz_at(data, size, 16 + i);
        c->key[half + i] = c->bits == 128 ? fuzz_at(data, size, 32 + i) : key2_256[i];
    }
    /* equal halves only when the weak-key probe asks; the probe then restores them */
    if (c->weak)
        memcpy(c->key + half, c->key, half);
    else if (memcmp(c->key, c->key + half, half) == 0)
        c->key[2 * half - 1] ^= 1;
}

/* ----------------------------------------------------------------- OpenSSL */

static void oracle(const xts_case *c, uint8_t *out, const uint8_t *in)
{
    for (size_t u = 0; u < (c->sectors ? c->count : 1); u++) {
        uint8_t tw[16] = {0};
        const size_t n = c->sectors ? c->unit_len : c->len;
        if (c->sectors) {
            const uint64_t s = c->sector + u;
            for (size_t i = 0; i < 8; i++)
                tw[i] = (uint8_t)(s >> (8 * i));
        } else {
            memcpy(tw, c->tweak, 16);
        }
        const char *e = ts_oracle_xts(fuzz_ossl, c->bits, !c->decrypt, c->key, tw, out + u * n, in + u * n, n);
        if (e) {
            fprintf(stderr, "fuzz_differential: OpenSSL XTS failed: %s\n", e);
            abort();
        }
    }
}

/* ------------------------------------------------------------------ aesgen */

static int call(const xts_case *c, const aesgen_xts_key *key, uint8_t *out, const uint8_t *in, size_t len,
                uint64_t sector, size_t count)
{
    if (c->sectors)
        return c->decrypt ? aesgen_xts_decrypt_sectors(key, sector, len, count, out, in)
                          : aesgen_xts_encrypt_sectors(key, sector, len, count, out, in);
    return c->decrypt ? aesgen_xts_decrypt(key, c->tweak, out, in, len) : aesgen_xts_encrypt(key, c->tweak, out, in, len);
}

static void untouched(const char *what, const uint8_t *p, size_t n, uint8_t fill)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != fill)
            fuzz_fail("%s: %s byte %zu written", stage, what, i);
}

static int init_key(const xts_case *c, aesgen_xts_key *key)
{
    const aesgen_variant *v = c->subj->variant;
    fuzz_expect_status("aesgen_force_backend", aesgen_force_backend(v ? NULL : c->subj->backend), AESGEN_OK);
    return v ? aesgen_xts_init_variants(key, c->key, c->bits / 4, v, c->dec) : aesgen_xts_init(key, c->key, c->bits / 4);
}

/* Equal halves: AESGEN_ERR_WEAK_KEY, the key object as it was, and a call with it
 * AESGEN_ERR_CONTEXT with nothing written; then key2 gets one bit changed. */
static void probe_weak(xts_case *c, const uint8_t *msg)
{
    stage = "weak-key probe";
    aesgen_xts_key *key = malloc(sizeof *key);
    if (!key)
        abort();
    memset(key, KEY_FILL, sizeof *key);
    fuzz_expect_status("aesgen_xts_init with equal halves", init_key(c, key), AESGEN_ERR_WEAK_KEY);
    untouched("the key object after AESGEN_ERR_WEAK_KEY", (const uint8_t *)key, sizeof *key, KEY_FILL);
    if (c->len >= 16) {
        uint8_t *out = malloc(c->len);
        if (!out)
            abort();
        memset(out, OUT_FILL, c->len);
        fuzz_expect_status("a call with the refused key", call(c, key, out, msg, c->sectors ? c->unit_len : c->len,
                                                               c->sector, c->count),
                           AESGEN_ERR_CONTEXT);
        untouched("out of a call with the refused key", out, c->len, OUT_FILL);
        free(out);
    }
    free(key);
    const size_t half = c->bits / 8;
    c->key[2 * half - 1] ^= 1;
}

static void setup_key(const xts_case *c, aesgen_xts_key *key)
{
    stage = "key set-up";
    const aesgen_variant *v = c->subj->variant;
    fuzz_expect_status(v ? "aesgen_xts_init_variants" : "aesgen_xts_init", init_key(c, key), AESGEN_OK);
    const char *e = aesgen_xts_variant(key, AESGEN_ENCRYPT), *d = aesgen_xts_variant(key, AESGEN_DECRYPT);
    const aesgen_variant *ev = e ? aesgen_find_variant(e) : NULL, *dv = d ? aesgen_find_variant(d) : NULL;
    if (ev == NULL || ev->key_bits != c->bits || ev->direction != AESGEN_ENCRYPT || (v && ev != v) ||
        (!v && (ev->backend == NULL || strcmp(ev->backend, c->subj->backend) != 0)))
        fuzz_fail("aesgen_xts_variant(ENCRYPT): the key is served by %s", e ? e : "NULL");
    if (dv == NULL || dv->key_bits != c->bits || dv->direction != AESGEN_DECRYPT || (c->dec && dv != c->dec) ||
        (!v && (dv->backend == NULL || strcmp(dv->backend, c->subj->backend) != 0)))
        fuzz_fail("aesgen_xts_variant(DECRYPT): the key is served by %s", d ? d : "NULL");
}

/* A call that must fail with want, out (n bytes, filled) and in untouched. */
static void refused(const char *what, int rc, int want, const uint8_t *out, size_t n, const uint8_t *in,
                    const uint8_t *in_copy, size_t in_n)
{
    fuzz_expect_status(what, rc, want);
    if (out)
        untouched("out of a refused call", out, n, OUT_FILL);
    if (in && memcmp(in, in_copy, in_n) != 0)
        fuzz_fail("%s: %s: the input changed", stage, what);
}

static void probe_length(const xts_case *c, const aesgen_xts_key *key, const uint8_t *msg)
{
    stage = "length probe";
    const size_t n = c->sectors ? c->unit_len : c->len;
    uint8_t *bi, *bo;
    uint8_t *in = fuzz_tail_buffer(c->in_off, c->len, &bi), *out = fuzz_tail_buffer(c->out_off, c->len, &bo);
    memcpy(in, msg, c->len);
    /* units of 15 and 0..15 bytes (in place or not), and one of 2^24 + 1.. bytes (the
     * buffers are far shorter: a call that did not refuse it reads past them) */
    const size_t bads[3] = {15, c->key[0] % 16, ((size_t)1 << 24) + 1 + c->key[1]};
    for (int pass = 0; pass < 3; pass++) {
        const size_t bad = bads[pass];
        memset(out, OUT_FILL, c->len);
        uint8_t *o = c->in_place ? in : out;
        const int rc = c->sectors ? (c->decrypt ? aesgen_xts_decrypt_sectors(key, c->sector, bad, 1, o, in)
                                                : aesgen_xts_encrypt_sectors(key, c->sector, bad, 1, o, in))
                                  : call(c, key, o, in, bad, 0, 0);
        refused(pass < 2 ? "a unit shorter than 16 bytes" : "a unit longer than 2^24 bytes", rc, AESGEN_ERR_LENGTH,
                c->in_place ? NULL : out, c->len, in, msg, c->len);
    }
    if (c->sectors) {
        /* count 0 does nothing, whatever else */
        memset(out, OUT_FILL, c->len);
        fuzz_expect_status("count 0", c->decrypt ? aesgen_xts_decrypt_sectors(key, c->sector, n, 0, out, in)
                                                 : aesgen_xts_encrypt_sectors(key, c->sector, n, 0, out, in),
                           AESGEN_OK);
        untouched("out of a call with count 0", out, c->len, OUT_FILL);
        /* the last sector one past 2^64 - 1 (the count is at least 2 then) */
        if (c->count >= 2) {
            memset(out, OUT_FILL, c->len);
            const uint64_t s = UINT64_MAX - (c->count - 2);
            const int rc = c->decrypt ? aesgen_xts_decrypt_sectors(key, s, n, c->count, out, in)
                                      : aesgen_xts_encrypt_sectors(key, s, n, c->count, out, in);
            refused("sectors past 2^64 - 1", rc, AESGEN_ERR_LENGTH, out, c->len, in, msg, c->len);
        }
    }
    free(bi);
    free(bo);
}

static void probe_overlap(const xts_case *c, const aesgen_xts_key *key, const uint8_t *msg)
{
    stage = "overlap probe";
    const size_t n = c->len, d = 1 + c->key[2] % (n - 1 < 31 ? n - 1 : 31);
    uint8_t *buf = malloc(n + d), *keep = malloc(n + d);
    if (!buf || !keep)
        abort();
    memcpy(buf, msg, n);
    memset(buf + n, 0x77, d);
    memcpy(keep, buf, n + d);
    const int back = c->key[3] & 1;
    uint8_t *in = back ? buf + d : buf, *out = back ? buf : buf + d;
    fuzz_expect_status("partially overlapping buffers",
                       call(c, key, out, in, c->sectors ? c->unit_len : c->len, c->sector, c->count),
                       AESGEN_ERR_OVERLAP);
    if (memcmp(buf, keep, n + d) != 0)
        fuzz_fail("%s: the overlapping buffers changed", stage);
    free(buf);
    free(keep);
}

void fuzz_xts_init(void)
{
    for (size_t i = 0; i < aesgen_backend_count() && n_subjects < FUZZ_MAX_SUBJECTS; i++) {
        const char *b = aesgen_backend_name(i);
        if (b && aesgen_backend_supported(b) == 1)
            subjects[n_subjects++] = (fuzz_subject){b, NULL};
    }
    for (size_t i = 0; i < aesgen_registry_size; i++) {
        const aesgen_variant *v = aesgen_registry[i];
        if ((v->key_bits != 128 && v->key_bits != 256) || !aesgen_variant_usable(v))
            continue;
        if (v->direction == AESGEN_ENCRYPT && n_subjects < FUZZ_MAX_SUBJECTS)
            subjects[n_subjects++] = (fuzz_subject){NULL, v};
        else if (v->direction == AESGEN_DECRYPT && n_decs[v->key_bits == 256] < MAX_DEC)
            decs[v->key_bits == 256][n_decs[v->key_bits == 256]++] = v;
    }
    if (n_subjects == 0) {
        fprintf(stderr, "fuzz_differential: no XTS subject runs on this CPU\n");
        abort();
    }
    if (getenv("FUZZ_DIFFERENTIAL_LIST")) {
        for (size_t i = 0; i < n_subjects; i++)
            fprintf(stderr, "XTS subject %zu: %s\n", i,
                    subjects[i].variant ? subjects[i].variant->name : subjects[i].backend);
        for (size_t k = 0; k < 2; k++)
            for (size_t i = 0; i < n_decs[k]; i++)
                fprintf(stderr, "XTS decryption variant (AES-%u) %zu: %s\n", k ? 256u : 128u, i, decs[k][i]->name);
    }
}

void fuzz_xts_run(const uint8_t *data, size_t size, int mode)
{
    xts_case c;
    uint8_t key2[32];
    /* AES-256-XTS: key2 is the first 32 bytes of the payload, the text follows (a
     * prefix of the payload does not depend on the length asked for) */
    fuzz_payload(key2, 32, data, size);
    decode(&c, data, size, mode, key2);
    const size_t text_at = c.bits == 256 ? 32 : 0;
    uint8_t *head = malloc(text_at + c.len + 1);
    if (!head)
        abort();
    fuzz_payload(head, text_at + c.len, data, size);
    const uint8_t *msg = head + text_at;
    current = &c;
    fuzz_describe = describe;

    if (c.weak)
        probe_weak(&c, msg);

    aesgen_xts_key *key = malloc(sizeof *key);
    uint8_t *want = malloc(c.len + 1), *got = malloc(c.len + 1);
    if (!key || !want || !got)
        abort();
    setup_key(&c, key);

    stage = c.decrypt ? "decrypt" : "encrypt";
    uint8_t *bi, *bo;
    uint8_t *in = fuzz_tail_buffer(c.in_off, c.len, &bi), *out = fuzz_tail_buffer(c.out_off, c.len, &bo);
    memcpy(in, msg, c.len);
    if (c.in_place)
        out = in;
    else
        memset(out, OUT_FILL, c.len);
    const int rc = call(&c, key, c.len ? out : NULL, c.len ? in : NULL, c.sectors ? c.unit_len : c.len, c.sector,
                        c.count);
    if (c.len < 16) { /* single units only: a sector is at least 16 bytes */
        fuzz_expect_status("a unit shorter than 16 bytes", rc, AESGEN_ERR_LENGTH);
        if (memcmp(in, msg, c.len) != 0)
            fuzz_fail("%s: a refused unit changed its input", stage);
        if (!c.in_place)
            untouched("out of a refused unit", out, c.len, OUT_FILL);
    } else {
        fuzz_expect_status(c.sectors ? "aesgen_xts_*_sectors" : "aesgen_xts_encrypt/decrypt", rc, AESGEN_OK);
        if (!c.in_place && memcmp(in, msg, c.len) != 0)
            fuzz_fail("%s: out of place: the input changed", stage);
        memcpy(got, out, c.len);
        oracle(&c, want, msg);
        fuzz_same(c.sectors ? "units" : "unit", want, got, c.len);

        if (c.probe_length)
            probe_length(&c, key, msg);
        if (c.probe_overlap)
            probe_overlap(&c, key, msg);
    }
    free(bi);
    free(bo);

    stage = "after aesgen_xts_wipe";
    aesgen_xts_wipe(key);
    if (c.len >= 16) {
        memset(got, OUT_FILL, c.len);
        fuzz_expect_status("a call with a wiped key", call(&c, key, got, msg, c.sectors ? c.unit_len : c.len,
                                                           c.sector, c.count),
                           AESGEN_ERR_CONTEXT);
        untouched("out of a call with a wiped key", got, c.len, OUT_FILL);
    }
    free(key);
    free(want);
    free(got);
    free(head);
    current = NULL;
    fuzz_describe = NULL;
}
