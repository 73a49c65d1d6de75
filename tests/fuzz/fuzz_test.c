/*
 * fuzz_differential -- libFuzzer target: aesgen against OpenSSL EVP.
 *
 * The fuzzer's bytes are decoded (see decode() and the layout below) into one
 * case: a subject (a backend this CPU runs, forced with aesgen_force_backend
 * before aesgen_init, or one variant this CPU runs, set up with
 * aesgen_init_variants in its direction slot), a key size and key, a mode
 * (ECB/CBC encrypt/decrypt, CTR, GCM seal or open), an IV or counter (optionally
 * moved next to the 2^32, 2^64 or 2^128 carry), a message length, input/output
 * offsets, in place or separate buffers, and a split of the message into up to
 * FUZZ_MAX_PIECES calls (CBC chaining and CTR streaming across calls, CTR pieces
 * of any byte length). Every piece lives in its own heap buffer that ends
 * exactly at the end of the allocation, so AddressSanitizer sees any read or
 * write past a piece. OpenSSL computes the whole message in one call; the
 * concatenated pieces, the final IV (CBC) and the final counter (CTR) must
 * match, and the input of an out-of-place call must be unchanged.
 *
 * Also per case: an ECB/CBC length that is not a multiple of 16 must return
 * AESGEN_ERR_LENGTH, and partially overlapping buffers AESGEN_ERR_OVERLAP,
 * with nothing written (output, IV, counter); length 0 with NULL buffers is
 * AESGEN_OK.
 *
 * The XTS modes (fuzz_xts.c) decode one data unit or many sectors, either
 * direction, with a backend or a pair of variants, against OpenSSL per unit.
 *
 * The GCM modes (fuzz_gcm.c) read the same header with the meanings given under
 * "GCM" below: a subject (a backend, or an AES encryption variant) and a GHASH
 * variant this CPU runs, an IV of 1..80 bytes (12 favoured), AAD, text, a tag
 * length, one-shot or streamed (AAD and text in pieces), a tampering for open.
 *
 * Any mismatch or unexpected status prints the case and calls abort(), which
 * libFuzzer reports as a crash and saves as a reproducer.
 *
 * Input layout (missing bytes read as 0):
 *   [0]      subject selector (index mod number of subjects; GCM: of its own list)
 *   [1]      key size (mod 3: 128, 192, 256; a variant subject: its own)
 *   [2]      mode (mod 10): 0 ECB-enc, 1 ECB-dec, 2 CBC-enc, 3 CBC-dec, 4 CTR,
 *            5 GCM-seal, 6 GCM-open, 7 XTS-enc, 8 XTS-dec, 9 CBC streams
 *   [3]      flags: bit0 in place, bit1 invalid-length probe, bit2 overlap
 *            probe, bits 4-5 counter form (0 raw, 1 near 2^32 carry of the
 *            low word, 2 near 2^64 carry, 3 near 2^128 wrap);
 *            GCM: bit0 in place, bit1 invalid-tag-length probe, bit2 overlap
 *            probe, bit3 streamed (else one-shot), bits 4-7 unused
 *   [4..5]   message length, little endian, mod (FUZZ_MAX_LEN + 1); ECB/CBC round
 *            it down to whole blocks (GCM: the text length, any)
 *   [6]      input offset (low nibble) and output offset (high nibble), 0..15
 *   [7]      number of pieces (mod FUZZ_MAX_PIECES, plus 1)
 *   [8..14]  split points (one byte each, scaled to the message); [15] unused
 *   [16..47] key (the first 16/24/32 bytes are used)
 *   [48..63] IV or counter block
 *   [64]     distance from the carry for counter forms 1-3 (blocks before it)
 *   [65..]   payload: the message bytes (repeated with a running xor when shorter)
 *
 * GCM: [0..47] as above, then
 *   [48]     GHASH selector: mod (number of usable GHASH variants + 1), the last
 *            value is dispatch's choice (aesgen_gcm_init, or the variant and NULL)
 *   [49]     IV length: < 128 gives 12, else 1 + (value - 128) mod 80
 *   [50..51] AAD length, little endian, mod (FUZZ_GCM_MAX_AAD + 1)
 *   [52]     tag length: index mod 7 into 16, 15, 14, 13, 12, 8, 4
 *   [53]     the invalid tag length of the probe: index mod 16 into 0, 1, 2, 3, 5,
 *            6, 7, 9, 10, 11, 17, 18, 31, 32, 64, SIZE_MAX
 *   [54]     number of AAD pieces when streamed (mod FUZZ_MAX_PIECES, plus 1)
 *   [55..61] AAD split points
 *   [62]     open: tampering, mod 5: none, a bit of the ciphertext, of the AAD, of
 *            the IV, of the tag (an empty ciphertext or AAD: the tag)
 *   [63..64] which bit, little endian v: byte (v >> 3) scaled to the target's
 *            length, bit v & 7
 *   [65..]   payload: the IV, then the AAD, then the text (the plaintext; an open
 *            gets OpenSSL's ciphertext and tag of it)
 *
 * CBC streams (fuzz_cbc_streams.c): [0] subject (its own list: backends, encryption
 * variants), [1] key size (mod 3; a variant: its own), [2] mode, then
 *   [3]      flags: bit0 in place, bit1 length probe, bit2 overlap probe
 *   [4]      messages: 1 + value mod FUZZ_STREAMS_MAX
 *   [5]      length step s; message i has (byte [8 + i mod 8] + i * s) mod 65 blocks
 *   [6]      input offset (low nibble) and output offset (high nibble)
 *   [16..47] key, [48..63] IV (message i: byte 0 XORed with i)
 *   [65..]   payload: the messages one after another
 *
 * XTS (fuzz_xts.c): [0] subject (its own list: backends, AES-128/256 encryption
 * variants), [1] key size (mod 2: 128, 256; a variant: its own), [2] mode, then
 *   [3]      flags: bit0 in place, bit1 length probe, bit2 overlap probe, bit3
 *            many sectors (else one unit), bit4 weak-key probe (equal halves),
 *            bits 5-6 sector form (0 raw, 1 small, 2 near the 2^32 carry, 3 the
 *            last unit at 2^64 - 1)
 *   [4..5]   one unit: its length mod (FUZZ_MAX_LEN + 1) (below 16: refused);
 *            sectors: the unit length, 16 + value mod (FUZZ_MAX_LEN / count - 15)
 *   [6]      input offset (low nibble) and output offset (high nibble)
 *   [7]      sectors: count, < 128 gives 1 + value mod 8, else 1 + 2 (value - 128)
 *   [8]      variant subject: decryption variant, mod (usable ones of the key
 *            size + 1), the last value is dispatch's choice
 *   [16..31] key1; [32..47] key2 of AES-128-XTS
 *   [48..63] one unit: the tweak; sectors: [48..55] the first sector, little endian
 *   [64]     form 2: units before the 2^32 carry (mod 64)
 *   [65..]   payload: key2 of AES-256-XTS (32 bytes), then the text
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "fuzz_test.h"
#include "ts_modes.h"
#include "ts_oracle.h"
#include "ts_report.h"

static const char *const mode_name[FUZZ_MODE_COUNT] = {"ECB-enc", "ECB-dec",  "CBC-enc",  "CBC-dec", "CTR",
                                                       "GCM-seal", "GCM-open", "XTS-enc", "XTS-dec"};

static fuzz_subject subjects[FUZZ_MAX_SUBJECTS];
static size_t n_subjects;
EVP_CIPHER_CTX *fuzz_ossl;
void (*fuzz_describe)(void);

/* ---------------------------------------------------------------- shared */

uint8_t fuzz_at(const uint8_t *data, size_t size, size_t i)
{
    return i < size ? data[i] : 0;
}

void fuzz_payload(uint8_t *out, size_t len, const uint8_t *data, size_t size)
{
    const uint8_t *src = size > FUZZ_HEADER ? data + FUZZ_HEADER : NULL;
    const size_t n = size > FUZZ_HEADER ? size - FUZZ_HEADER : 0;
    uint8_t run = 0x5a;
    for (size_t i = 0; i < len; i++) {
        uint8_t b = n ? src[i % n] : 0;
        if (n && i >= n)
            run = (uint8_t)(run * 31u + (uint8_t)(i / n));
        out[i] = n && i < n ? b : (uint8_t)(b ^ run ^ (uint8_t)i);
    }
}

void fuzz_cuts(size_t *cut, size_t n_pieces, size_t len, size_t unit, const uint8_t *data, size_t size,
               size_t first)
{
    size_t cuts[FUZZ_MAX_PIECES - 1];
    const size_t units = len / unit;
    for (size_t i = 0; i + 1 < n_pieces; i++)
        cuts[i] = units == 0 ? 0 : (size_t)fuzz_at(data, size, first + i) * (units + 1) / 256 * unit;
    for (size_t i = 1; i + 1 < n_pieces; i++) /* insertion sort */
        for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            size_t t = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = t;
        }
    cut[0] = 0;
    for (size_t i = 0; i + 1 < n_pieces; i++)
        cut[i + 1] = cuts[i];
    cut[n_pieces] = len;
}

uint8_t *fuzz_tail_buffer(size_t off, size_t n, uint8_t **base)
{
    *base = malloc(off + n == 0 ? 1 : off + n); /* malloc(0) may give NULL */
    if (*base == NULL)
        abort();
    return off + n == 0 ? *base + 1 : *base + off;
}

void fuzz_hex(const char *label, const uint8_t *p, size_t n)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%s: ", label);
    ts_hex_line(stderr, prefix, p, n);
}

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "fuzz_differential: MISMATCH: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (fuzz_describe)
        fuzz_describe();
    abort();
}

void fuzz_expect_status(const char *call, int got, int want)
{
    if (got != want) {
        fprintf(stderr, "fuzz_differential: %s returned %d (%s), expected %d (%s)\n", call, got,
                aesgen_status_string(got), want, aesgen_status_string(want));
        if (fuzz_describe)
            fuzz_describe();
        abort();
    }
}

void fuzz_same(const char *what, const uint8_t *want, const uint8_t *got, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            const size_t b = i & ~(size_t)15, show = n - b < 32 ? n - b : 32;
            fuzz_hex("aesgen ", got + b, show);
            fuzz_hex("openssl", want + b, show);
            fuzz_fail("%s: first differing byte %zu of %zu", what, i, n);
        }
}

/* ------------------------------------------------------------------ cases */

typedef struct fuzz_case {
    const fuzz_subject *subj;
    unsigned bits;
    int mode;
    int in_place, probe_length, probe_overlap, counter_form;
    size_t len;
    unsigned in_off, out_off;
    size_t n_pieces;
    size_t cut[FUZZ_MAX_PIECES + 1]; /* piece i is [cut[i], cut[i+1]) */
    uint8_t key[32];
    uint8_t iv[16];
} fuzz_case;

static const fuzz_case *current;

static void describe(void)
{
    const fuzz_case *c = current;
    fprintf(stderr, "  subject: %s %s\n", c->subj->variant ? "variant" : "backend",
            c->subj->variant ? c->subj->variant->name : c->subj->backend);
    fprintf(stderr, "  AES-%u %s, len %zu, in_off %u, out_off %u, %s, %zu pieces:",
            c->bits, mode_name[c->mode], c->len, c->in_off, c->out_off,
            c->in_place ? "in place" : "out of place", c->n_pieces);
    for (size_t i = 0; i < c->n_pieces; i++)
        fprintf(stderr, " %zu", c->cut[i + 1] - c->cut[i]);
    fputc('\n', stderr);
    fuzz_hex("key", c->key, c->bits / 8);
    fuzz_hex("iv/counter", c->iv, 16);
}

static void decode(fuzz_case *c, const uint8_t *data, size_t size)
{
    memset(c, 0, sizeof *c);
    c->subj = &subjects[fuzz_at(data, size, 0) % n_subjects];
    const aesgen_variant *v = c->subj->variant;
    c->bits = v ? v->key_bits : 128u + 64u * (fuzz_at(data, size, 1) % 3);
    c->mode = fuzz_at(data, size, 2) % FUZZ_MODE_COUNT; /* < TS_MODE_COUNT here */
    if (v && ts_mode_direction(c->mode) != v->direction)
        c->mode = v->direction == AESGEN_DECRYPT ? (c->mode == TS_MODE_ECB_ENC ? TS_MODE_ECB_DEC : TS_MODE_CBC_DEC)
                                                 : (c->mode == TS_MODE_ECB_DEC ? TS_MODE_ECB_ENC : TS_MODE_CBC_ENC);
    const uint8_t flags = fuzz_at(data, size, 3);
    c->in_place = flags & 1;
    c->probe_length = (flags >> 1) & 1;
    c->probe_overlap = (flags >> 2) & 1;
    c->counter_form = (flags >> 4) & 3;
    c->len = ((size_t)fuzz_at(data, size, 4) | (size_t)fuzz_at(data, size, 5) << 8) % (FUZZ_MAX_LEN + 1);
    if (c->mode != TS_MODE_CTR)
        c->len &= ~(size_t)15;
    c->in_off = fuzz_at(data, size, 6) & 15;
    c->out_off = fuzz_at(data, size, 6) >> 4;
    c->n_pieces = fuzz_at(data, size, 7) % FUZZ_MAX_PIECES + 1;
    /* ECB/CBC cuts fall on block boundaries */
    fuzz_cuts(c->cut, c->n_pieces, c->len, c->mode == TS_MODE_CTR ? 1 : 16, data, size, 8);

    for (size_t i = 0; i < 32; i++)
        c->key[i] = fuzz_at(data, size, 16 + i);
    for (size_t i = 0; i < 16; i++)
        c->iv[i] = fuzz_at(data, size, 48 + i);
    if (c->mode == TS_MODE_CTR && c->counter_form != 0) {
        /* put the carry `before` blocks ahead: the low 32 bits, the low 64 bits or
         * all 128 bits become all-ones minus (before - 1) */
        const unsigned before = fuzz_at(data, size, 64) % 64 + 1;
        const size_t ones = c->counter_form == 1 ? 4 : c->counter_form == 2 ? 8 : 16;
        memset(c->iv + 16 - ones, 0xff, ones);
        c->iv[15] = (uint8_t)(0xff - (before - 1));
    }
}

/* ---------------------------------------------------------------- OpenSSL */

static void oracle(const fuzz_case *c, uint8_t *out, const uint8_t *in)
{
    if (ts_oracle_begin(fuzz_ossl, c->bits, c->mode, c->key, c->iv) != NULL) {
        fprintf(stderr, "fuzz_differential: OpenSSL EVP_CipherInit_ex failed\n");
        abort();
    }
    if (ts_oracle_update(fuzz_ossl, out, in, c->len) != NULL) {
        fprintf(stderr, "fuzz_differential: OpenSSL EVP_CipherUpdate failed\n");
        abort();
    }
}

/* ------------------------------------------------------------------ aesgen */

/* The calls are ts_crypt(mode, ctx, iv, ctr, out, in, len) (ts_modes.h). */

static void setup(aesgen_ctx *ctx, const fuzz_case *c)
{
    const aesgen_variant *v = c->subj->variant;
    if (v) {
        fuzz_expect_status("aesgen_force_backend(NULL)", aesgen_force_backend(NULL), AESGEN_OK);
        fuzz_expect_status("aesgen_init_variants",
                           aesgen_init_variants(ctx, c->key, c->bits / 8, v->direction == AESGEN_ENCRYPT ? v : NULL,
                                                v->direction == AESGEN_DECRYPT ? v : NULL),
                           AESGEN_OK);
        const char *got = aesgen_ctx_variant(ctx, (aesgen_direction)v->direction);
        if (got == NULL || strcmp(got, v->name) != 0)
            fuzz_fail("aesgen_ctx_variant: the context is served by %s", got ? got : "NULL");
    } else {
        fuzz_expect_status("aesgen_force_backend", aesgen_force_backend(c->subj->backend), AESGEN_OK);
        fuzz_expect_status("aesgen_init", aesgen_init(ctx, c->key, c->bits / 8), AESGEN_OK);
    }
}

/* Calls that must fail change nothing: wrong ECB/CBC length, partial overlap. */
static void probe_errors(const aesgen_ctx *ctx, const fuzz_case *c, const uint8_t *msg)
{
    uint8_t iv[16], iv0[16];
    aesgen_ctr ctr, ctr0;
    memcpy(iv, c->iv, 16);
    memcpy(iv0, iv, 16);
    fuzz_expect_status("aesgen_ctr_init", aesgen_ctr_init(&ctr, c->iv), AESGEN_OK);
    ctr0 = ctr;

    /* length 0 with NULL buffers is a successful no-op */
    fuzz_expect_status("zero-length call", ts_crypt(c->mode, ctx, iv, &ctr, NULL, NULL, 0), AESGEN_OK);

    if (c->probe_length && c->mode != TS_MODE_CTR) {
        const size_t bad = c->len + 1 + (size_t)(c->key[0] % 15); /* never a multiple of 16 */
        uint8_t *in = malloc(bad), *out = malloc(bad), *keep = malloc(bad);
        if (!in || !out || !keep)
            abort();
        for (size_t i = 0; i < bad; i++)
            in[i] = i < c->len ? msg[i] : (uint8_t)i;
        memset(out, 0xc3, bad);
        memcpy(keep, in, bad);
        fuzz_expect_status("ECB/CBC with a length not a multiple of 16",
                           ts_crypt(c->mode, ctx, iv, &ctr, c->in_place ? in : out, in, bad), AESGEN_ERR_LENGTH);
        for (size_t i = 0; i < bad; i++)
            if (out[i] != 0xc3 || in[i] != keep[i])
                fuzz_fail("rejected length: byte %zu written (length %zu)", i, bad);
        if (memcmp(iv, iv0, 16) != 0)
            fuzz_fail("rejected length: IV changed");
        free(in);
        free(out);
        free(keep);
    }
    if (c->probe_overlap && c->len >= 32) {
        /* out = in + d for 0 < |d| < len: partial overlap */
        const size_t d = c->mode == TS_MODE_CTR ? 1 + c->key[1] % 31 : 16;
        uint8_t *buf = malloc(c->len + d), *keep = malloc(c->len + d);
        if (!buf || !keep)
            abort();
        memcpy(buf, msg, c->len);
        memset(buf + c->len, 0x77, d);
        memcpy(keep, buf, c->len + d);
        const int back = c->key[2] & 1;
        uint8_t *in = back ? buf + d : buf, *out = back ? buf : buf + d;
        fuzz_expect_status("partially overlapping buffers", ts_crypt(c->mode, ctx, iv, &ctr, out, in, c->len),
                           AESGEN_ERR_OVERLAP);
        if (memcmp(buf, keep, c->len + d) != 0)
            fuzz_fail("rejected overlap: buffer written");
        if (memcmp(iv, iv0, 16) != 0 || memcmp(&ctr, &ctr0, sizeof ctr) != 0)
            fuzz_fail("rejected overlap: IV or counter changed");
        free(buf);
        free(keep);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    for (size_t i = 0; i < aesgen_backend_count() && n_subjects < FUZZ_MAX_SUBJECTS; i++) {
        const char *b = aesgen_backend_name(i);
        if (b && aesgen_backend_supported(b) == 1)
            subjects[n_subjects++] = (fuzz_subject){b, NULL};
    }
    for (size_t i = 0; i < aesgen_registry_size && n_subjects < FUZZ_MAX_SUBJECTS; i++)
        if (aesgen_variant_usable(aesgen_registry[i]))
            subjects[n_subjects++] = (fuzz_subject){NULL, aesgen_registry[i]};
    if (n_subjects == 0) {
        fprintf(stderr, "fuzz_differential: no backend runs on this CPU\n");
        abort();
    }
    if (getenv("FUZZ_DIFFERENTIAL_LIST")) {
        for (size_t i = 0; i < n_subjects; i++)
            fprintf(stderr, "subject %zu: %s\n", i,
                    subjects[i].variant ? subjects[i].variant->name : subjects[i].backend);
    }
    fuzz_ossl = EVP_CIPHER_CTX_new();
    if (!fuzz_ossl)
        abort();
    fuzz_gcm_init();
    fuzz_xts_init();
    fuzz_cbc_streams_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const int mode = fuzz_at(data, size, 2) % FUZZ_MODE_COUNT;
    if (mode == FUZZ_MODE_GCM_SEAL || mode == FUZZ_MODE_GCM_OPEN) {
        fuzz_gcm_run(data, size, mode);
        return 0;
    }
    if (mode == FUZZ_MODE_XTS_ENC || mode == FUZZ_MODE_XTS_DEC) {
        fuzz_xts_run(data, size, mode);
        return 0;
    }
    if (mode == FUZZ_MODE_CBC_STREAMS) {
        fuzz_cbc_streams_run(data, size);
        return 0;
    }
    fuzz_case c;
    decode(&c, data, size);
    current = &c;
    fuzz_describe = describe;

    uint8_t *msg = malloc(c.len + 1), *want = malloc(c.len + 1), *got = malloc(c.len + 1);
    if (!msg || !want || !got)
        abort();
    fuzz_payload(msg, c.len, data, size);
    oracle(&c, want, msg);

    aesgen_ctx ctx;
    setup(&ctx, &c);

    uint8_t iv[16];
    memcpy(iv, c.iv, 16);
    aesgen_ctr ctr;
    fuzz_expect_status("aesgen_ctr_init", aesgen_ctr_init(&ctr, c.iv), AESGEN_OK);

    for (size_t p = 0; p < c.n_pieces; p++) {
        const size_t n = c.cut[p + 1] - c.cut[p];
        /* each piece in buffers that end exactly at the end of their allocation */
        uint8_t *ibuf, *obuf;
        uint8_t *in = fuzz_tail_buffer(c.in_off, n, &ibuf), *out = fuzz_tail_buffer(c.out_off, n, &obuf);
        if (c.in_place)
            out = in;
        memcpy(in, msg + c.cut[p], n);
        if (!c.in_place)
            memset(out, 0xe1, n);
        const int rc = ts_crypt(c.mode, &ctx, iv, &ctr, n ? out : NULL, n ? in : NULL, n);
        fuzz_expect_status("aesgen call on a piece", rc, AESGEN_OK);
        if (!c.in_place && memcmp(in, msg + c.cut[p], n) != 0)
            fuzz_fail("out of place: input of piece %zu changed", p);
        memcpy(got + c.cut[p], out, n);
        free(ibuf);
        free(obuf);
    }
    fuzz_same("output", want, got, c.len);

    /* chaining state: the CBC IV is the last ciphertext block, the CTR counter has
     * advanced by every block whose keystream was used */
    if ((c.mode == TS_MODE_CBC_ENC || c.mode == TS_MODE_CBC_DEC) && c.len != 0) {
        const uint8_t *last = (c.mode == TS_MODE_CBC_ENC ? want : msg) + c.len - 16;
        if (memcmp(iv, last, 16) != 0)
            fuzz_fail("CBC: IV is not the last ciphertext block");
    } else if (c.mode != TS_MODE_CTR && memcmp(iv, c.iv, 16) != 0) {
        fuzz_fail("ECB or empty CBC: IV changed");
    }
    if (c.mode == TS_MODE_CTR) {
        uint8_t next[16];
        memcpy(next, c.iv, 16);
        ts_ctr_add(next, (c.len + 15) / 16);
        if (memcmp(ctr.counter, next, 16) != 0) {
            fuzz_hex("counter", ctr.counter, 16);
            fuzz_hex("expected", next, 16);
            fuzz_fail("CTR: wrong counter after %zu bytes", c.len);
        }
        if (c.len % 16 != 0 && ctr.used != c.len % 16)
            fuzz_fail("CTR: used %u, expected %zu", (unsigned)ctr.used, c.len % 16);
    }

    probe_errors(&ctx, &c, msg);

    aesgen_wipe(&ctx);
    free(msg);
    free(want);
    free(got);
    current = NULL;
    fuzz_describe = NULL;
    return 0;
}
