/*
 * fuzz_cbc_streams.c -- the CBC-streams mode of fuzz_differential (fuzz_test.h; the
 * input layout is at the top of fuzz_test.c): aesgen_cbc_encrypt_streams.
 *
 * One case: a subject (a backend this CPU runs, forced before aesgen_init, or one
 * encryption variant this CPU runs, set up with aesgen_init_variants), a key size and
 * key, 1..FUZZ_STREAMS_MAX messages of 0..64 blocks each (lengths from the header),
 * message i with the IV [48..63] XORed with i in its first byte; every input, output
 * (unless in place) and IV in its own heap buffer ending exactly at the end of its
 * allocation. OpenSSL encrypts every message on its own; the outputs and final IVs
 * must match (an empty message's IV unchanged), the inputs of out-of-place messages
 * must be unchanged.
 *
 * Probes, when the flags ask: one message given a length that is not a multiple of 16
 * (AESGEN_ERR_LENGTH), or one message's output moved onto another's input
 * (AESGEN_ERR_OVERLAP); then no output and no IV may have changed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_test.h"
#include "ts_oracle.h"

#define OUT_FILL 0xe1

typedef struct streams_case {
    const fuzz_subject *subj;
    unsigned bits;
    int in_place, probe_length, probe_overlap;
    size_t count;
    size_t len[FUZZ_STREAMS_MAX];
    size_t in_off, out_off;
    uint8_t key[32], iv[16];
} streams_case;

static fuzz_subject subjects[FUZZ_MAX_SUBJECTS];
static size_t n_subjects;
static const streams_case *current;

static void describe(void)
{
    const streams_case *c = current;
    if (c == NULL)
        return;
    fprintf(stderr, "  CBC streams, AES-%u, %s %s, %zu messages, %s, offsets in %zu out %zu; blocks:", c->bits,
            c->subj->variant ? "variant" : "backend", c->subj->variant ? c->subj->variant->name : c->subj->backend,
            c->count, c->in_place ? "in place" : "out of place", c->in_off, c->out_off);
    for (size_t i = 0; i < c->count; i++)
        fprintf(stderr, " %zu", c->len[i] / 16);
    fprintf(stderr, "\n");
    fuzz_hex("key", c->key, c->bits / 8);
    fuzz_hex("iv", c->iv, 16);
}

static void decode(streams_case *c, const uint8_t *data, size_t size)
{
    memset(c, 0, sizeof *c);
    c->subj = &subjects[fuzz_at(data, size, 0) % n_subjects];
    c->bits = c->subj->variant ? c->subj->variant->key_bits : 128u + 64u * (fuzz_at(data, size, 1) % 3);
    const uint8_t flags = fuzz_at(data, size, 3);
    c->in_place = flags & 1;
    c->probe_length = (flags >> 1) & 1;
    c->probe_overlap = (flags >> 2) & 1;
    c->count = 1 + fuzz_at(data, size, 4) % FUZZ_STREAMS_MAX;
    /* lengths: the eight bytes [8..15] stepped by [5], 0..64 blocks */
    for (size_t i = 0; i < c->count; i++)
        c->len[i] = 16 * ((fuzz_at(data, size, 8 + i % 8) + i * fuzz_at(data, size, 5)) % 65);
    c->in_off = fuzz_at(data, size, 6) & 15;
    c->out_off = fuzz_at(data, size, 6) >> 4;
    for (size_t i = 0; i < 32; i++)
        c->key[i] = fuzz_at(data, size, 16 + i);
    for (size_t i = 0; i < 16; i++)
        c->iv[i] = fuzz_at(data, size, 48 + i);
}

static void setup(aesgen_ctx *ctx, const streams_case *c)
{
    const aesgen_variant *v = c->subj->variant;
    if (v) {
        fuzz_expect_status("aesgen_force_backend(NULL)", aesgen_force_backend(NULL), AESGEN_OK);
        fuzz_expect_status("aesgen_init_variants", aesgen_init_variants(ctx, c->key, c->bits / 8, v, NULL),
                           AESGEN_OK);
    } else {
        fuzz_expect_status("aesgen_force_backend", aesgen_force_backend(c->subj->backend), AESGEN_OK);
        fuzz_expect_status("aesgen_init", aesgen_init(ctx, c->key, c->bits / 8), AESGEN_OK);
    }
}

void fuzz_cbc_streams_init(void)
{
    for (size_t i = 0; i < aesgen_backend_count() && n_subjects < FUZZ_MAX_SUBJECTS; i++) {
        const char *b = aesgen_backend_name(i);
        if (b && aesgen_backend_supported(b) == 1)
            subjects[n_subjects++] = (fuzz_subject){b, NULL};
    }
    for (size_t i = 0; i < aesgen_registry_size && n_subjects < FUZZ_MAX_SUBJECTS; i++)
        if (aesgen_registry[i]->direction == AESGEN_ENCRYPT && aesgen_variant_usable(aesgen_registry[i]))
            subjects[n_subjects++] = (fuzz_subject){NULL, aesgen_registry[i]};
}

void fuzz_cbc_streams_run(const uint8_t *data, size_t size)
{
    streams_case c;
    decode(&c, data, size);
    current = &c;
    fuzz_describe = describe;
    aesgen_ctx ctx;
    setup(&ctx, &c);

    size_t total = 0;
    for (size_t i = 0; i < c.count; i++)
        total += c.len[i];
    uint8_t *msg = malloc(total + 1), *want = malloc(total + 1);
    uint8_t *ibase[FUZZ_STREAMS_MAX], *obase[FUZZ_STREAMS_MAX], *vbase[FUZZ_STREAMS_MAX];
    uint8_t want_iv[FUZZ_STREAMS_MAX][16];
    aesgen_cbc_msg m[FUZZ_STREAMS_MAX];
    if (!msg || !want)
        abort();
    fuzz_payload(msg, total, data, size);
    for (size_t i = 0, at = 0; i < c.count; at += c.len[i], i++) {
        uint8_t iv[16];
        memcpy(iv, c.iv, 16);
        iv[0] ^= (uint8_t)i;
        memcpy(want_iv[i], iv, 16);
        if (c.len[i] != 0) {
            if (ts_oracle_oneshot(c.bits, TS_MODE_CBC_ENC, c.key, iv, want + at, msg + at, c.len[i]) != NULL)
                fuzz_fail("OpenSSL CBC encryption failed");
            memcpy(want_iv[i], want + at + c.len[i] - 16, 16);
        }
        uint8_t *in = fuzz_tail_buffer(c.in_off, c.len[i], &ibase[i]);
        uint8_t *out = c.in_place ? in : fuzz_tail_buffer(c.out_off, c.len[i], &obase[i]);
        if (c.in_place)
            obase[i] = NULL;
        memcpy(in, msg + at, c.len[i]);
        if (!c.in_place)
            memset(out, OUT_FILL, c.len[i]);
        uint8_t *ivp = fuzz_tail_buffer(0, 16, &vbase[i]);
        memcpy(ivp, iv, 16);
        m[i] = (aesgen_cbc_msg){ivp, c.len[i] ? out : NULL, c.len[i] ? in : NULL, c.len[i]};
    }

    /* the probes first: refused calls that must leave every buffer as it is */
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < c.count && bad == SIZE_MAX; i++)
        if (c.len[i] != 0)
            bad = i;
    if (c.probe_length && bad != SIZE_MAX) {
        m[bad].len -= 1 + c.key[0] % 15;
        fuzz_expect_status("a message length not a multiple of 16", aesgen_cbc_encrypt_streams(&ctx, m, c.count),
                           AESGEN_ERR_LENGTH);
        m[bad].len = c.len[bad];
    }
    size_t other = SIZE_MAX;
    for (size_t i = bad + 1; bad != SIZE_MAX && i < c.count && other == SIZE_MAX; i++)
        if (c.len[i] != 0)
            other = i;
    if (c.probe_overlap && other != SIZE_MAX) {
        uint8_t *keep = m[other].out;
        m[other].out = (uint8_t *)m[bad].in; /* onto another message's input */
        fuzz_expect_status("an output on another message's input", aesgen_cbc_encrypt_streams(&ctx, m, c.count),
                           AESGEN_ERR_OVERLAP);
        m[other].out = keep;
    }
    for (size_t i = 0, at = 0; i < c.count; at += c.len[i], i++) {
        uint8_t iv[16];
        memcpy(iv, c.iv, 16);
        iv[0] ^= (uint8_t)i;
        if (memcmp(m[i].iv, iv, 16) != 0 || (c.len[i] && memcmp(m[i].in, msg + at, c.len[i]) != 0))
            fuzz_fail("message %zu: IV or input written before the call (or by a refused one)", i);
        for (size_t j = 0; !c.in_place && j < c.len[i]; j++)
            if (m[i].out[j] != OUT_FILL)
                fuzz_fail("message %zu: output written by a refused call", i);
    }

    fuzz_expect_status("aesgen_cbc_encrypt_streams", aesgen_cbc_encrypt_streams(&ctx, m, c.count), AESGEN_OK);
    for (size_t i = 0, at = 0; i < c.count; at += c.len[i], i++) {
        fuzz_same("output", want + at, m[i].out, c.len[i]);
        fuzz_same("IV", want_iv[i], m[i].iv, 16);
        if (!c.in_place && c.len[i] && memcmp(m[i].in, msg + at, c.len[i]) != 0)
            fuzz_fail("message %zu: out of place, its input changed", i);
    }
    for (size_t i = 0; i < c.count; i++) {
        free(ibase[i]);
        free(obase[i]);
        free(vbase[i]);
    }
    aesgen_wipe(&ctx);
    free(msg);
    free(want);
    current = NULL;
    fuzz_describe = NULL;
}
