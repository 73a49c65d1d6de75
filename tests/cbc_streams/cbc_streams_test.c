/*
 * aesgen_cbc_streams -- aesgen_cbc_encrypt_streams on one backend.
 *
 *   aesgen_cbc_streams --backend NAME [--vectors DIR] [--seed N]
 *
 * With the backend forced (its lane width L is its encryption variant's batch):
 *  - vectors: every CBC record of the NIST CAVP KAT and MMT files and SP 800-38A F.2
 *    (encrypt and decrypt sections: each is a key, IV, plaintext and ciphertext) run
 *    as streams, the records of one key together in one call, each record three
 *    times at different places and alignments;
 *  - differential: AES-128/192/256, 1 to 2L+1 messages per call (and the maximum),
 *    lengths mixed (0, one block, short, long), in place or not, every buffer at a
 *    random misalignment; and 9 to 2L+1 messages 4 KiB apart (sharing L1 sets); the whole arena after the call (outputs, IVs, inputs,
 *    gaps) must equal OpenSSL EVP's results placed into a copy of it, and equal a
 *    loop of single aesgen_cbc_encrypt calls on another copy;
 *  - errors: every rule of aesgen.h, each with a valid message before the bad one;
 *    the status must be the documented one and not one byte may change.
 *
 * Exit status: 0 passed, 1 a failure (printed with the seed), 2 usage, 77 the backend
 * cannot run here.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "ts_oracle.h"
#include "ts_rng.h"
#include "vectors_parse.h"

#define EXIT_SKIP 77
#define DEFAULT_SEED UINT64_C(0x6362632d73747231) /* "cbc-str1" */

static ts_rng rng;
static uint64_t seed = DEFAULT_SEED;
static const char *backend;
static unsigned long checks, failures;

static void failf(const char *what, const char *detail)
{
    printf("FAIL %s: %s (backend %s, seed 0x%" PRIx64 ")\n", what, detail, backend, seed);
    failures++;
}

static void check(int ok, const char *what, const char *detail)
{
    checks++;
    if (!ok)
        failf(what, detail);
}

static void *xmalloc(size_t n)
{
    void *p = aligned_alloc(64, (n + 63) & ~(size_t)63);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- a call's buffers, laid out in one arena ------------------------------ */

typedef struct layout {
    size_t count;
    size_t in_off[AESGEN_CBC_STREAMS_MAX], out_off[AESGEN_CBC_STREAMS_MAX], iv_off[AESGEN_CBC_STREAMS_MAX];
    size_t len[AESGEN_CBC_STREAMS_MAX];
    size_t size;
} layout;

/* Each message's input, output (unless in place) and IV at a random misalignment,
 * with gaps between them; the arena size covers them all. */
static void lay_out(layout *l, const size_t *len, size_t count, int in_place_odds)
{
    size_t pos = 16;
    l->count = count;
    for (size_t i = 0; i < count; i++) {
        l->len[i] = len[i];
        pos += ts_rng_below(&rng, 16);
        l->in_off[i] = pos;
        pos += len[i] + 16 + ts_rng_below(&rng, 32);
        if (len[i] != 0 && ts_rng_below(&rng, 4) < (size_t)in_place_odds) {
            l->out_off[i] = l->in_off[i];
        } else {
            pos += ts_rng_below(&rng, 16);
            l->out_off[i] = pos;
            pos += len[i] + 16 + ts_rng_below(&rng, 32);
        }
        pos += ts_rng_below(&rng, 16);
        l->iv_off[i] = pos;
        pos += 16 + 16;
    }
    l->size = pos + 16;
}

/* Messages 4 KiB apart, each at the same misalignment of its page (so that their
 * blocks share L1 sets, which the runtime meets by whole lines, a staging buffer or
 * rounds of fewer lanes), outputs in place or
 * in a second such run of pages, the IVs after them. */
static void lay_out_crowded(layout *l, const size_t *len, size_t count, int in_place)
{
    const size_t page = 4096, skew = 16 + ts_rng_below(&rng, 16);
    size_t longest = 0;
    for (size_t i = 0; i < count; i++)
        longest = len[i] > longest ? len[i] : longest;
    const size_t stride = (longest + skew + page - 1) / page * page;
    l->count = count;
    for (size_t i = 0; i < count; i++) {
        l->len[i] = len[i];
        l->in_off[i] = stride * i + skew;
        l->out_off[i] = in_place ? l->in_off[i] : stride * (count + i) + skew;
        l->iv_off[i] = stride * 2 * count + 32 * i;
    }
    l->size = stride * 2 * count + 32 * count + 16;
}

static void messages(const layout *l, uint8_t *arena, aesgen_cbc_msg *m)
{
    for (size_t i = 0; i < l->count; i++)
        m[i] = (aesgen_cbc_msg){arena + l->iv_off[i], arena + l->out_off[i], arena + l->in_off[i], l->len[i]};
}

/* The arena as the call must leave it: OpenSSL's ciphertexts and final IVs placed
 * into a copy of `before`. */
static void expected_arena(const layout *l, unsigned bits, const uint8_t *key, const uint8_t *before,
                           uint8_t *want)
{
    memcpy(want, before, l->size);
    for (size_t i = 0; i < l->count; i++) {
        if (l->len[i] == 0)
            continue;
        const char *err = ts_oracle_oneshot(bits, TS_MODE_CBC_ENC, key, before + l->iv_off[i],
                                            want + l->out_off[i], before + l->in_off[i], l->len[i]);
        if (err != NULL) {
            fprintf(stderr, "OpenSSL: %s\n", err);
            exit(1);
        }
        memcpy(want + l->iv_off[i], want + l->out_off[i] + l->len[i] - 16, 16);
    }
}

static void describe(char *buf, size_t n, unsigned bits, const layout *l)
{
    int w = snprintf(buf, n, "AES-%u, %zu messages, lengths", bits, l->count);
    for (size_t i = 0; i < l->count && w > 0 && (size_t)w < n - 16; i++)
        w += snprintf(buf + w, n - (size_t)w, " %zu%s", l->len[i], l->in_off[i] == l->out_off[i] ? "i" : "");
}

/* One call against OpenSSL and against single-message calls. */
static void run_call(const aesgen_ctx *ctx, unsigned bits, const uint8_t *key, const layout *l)
{
    uint8_t *before = xmalloc(l->size), *arena = xmalloc(l->size), *want = xmalloc(l->size),
            *single = xmalloc(l->size);
    static aesgen_cbc_msg m[AESGEN_CBC_STREAMS_MAX];
    ts_rng_bytes(&rng, before, l->size);
    expected_arena(l, bits, key, before, want);
    char what[400];
    describe(what, sizeof what, bits, l);

    memcpy(arena, before, l->size);
    messages(l, arena, m);
    const int rc = aesgen_cbc_encrypt_streams(ctx, m, l->count);
    check(rc == AESGEN_OK, what, aesgen_status_string(rc));
    check(memcmp(arena, want, l->size) == 0, what, "the arena differs from OpenSSL's results");

    memcpy(single, before, l->size);
    messages(l, single, m);
    for (size_t i = 0; i < l->count; i++)
        if (aesgen_cbc_encrypt(ctx, m[i].iv, m[i].out, m[i].in, m[i].len) != AESGEN_OK)
            failf(what, "aesgen_cbc_encrypt failed");
    check(memcmp(arena, single, l->size) == 0, what, "differs from a loop of aesgen_cbc_encrypt");
    free(before);
    free(arena);
    free(want);
    free(single);
}

/* ---- differential -------------------------------------------------------- */

static size_t random_len(size_t large)
{
    switch (ts_rng_below(&rng, 8)) {
    case 0: return 0;
    case 1: return 16;
    case 2: case 3: case 4: return 16 * (1 + ts_rng_below(&rng, 8));
    case 5: case 6: return 16 * (1 + ts_rng_below(&rng, 64));
    default: return 16 * (1 + ts_rng_below(&rng, large / 16));
    }
}

static void differential(aesgen_ctx *ctx, size_t width)
{
    static const unsigned sizes[] = {128, 192, 256};
    static layout l;
    size_t len[AESGEN_CBC_STREAMS_MAX];
    for (size_t s = 0; s < 3; s++) {
        uint8_t key[32];
        ts_rng_bytes(&rng, key, sizeof key);
        if (aesgen_init(ctx, key, sizes[s] / 8) != AESGEN_OK) {
            failf("aesgen_init", "failed");
            return;
        }
        for (size_t count = 1; count <= 2 * width + 1; count++) {
            /* mixed lengths, one message long; then all equal; then mostly in place */
            for (size_t i = 0; i < count; i++)
                len[i] = random_len(1024);
            len[ts_rng_below(&rng, count)] = 16 * (256 + ts_rng_below(&rng, 1024));
            lay_out(&l, len, count, 1);
            run_call(ctx, sizes[s], key, &l);
            const size_t equal = 16 * (1 + ts_rng_below(&rng, 40));
            for (size_t i = 0; i < count; i++)
                len[i] = equal;
            lay_out(&l, len, count, 0);
            run_call(ctx, sizes[s], key, &l);
            for (size_t i = 0; i < count; i++)
                len[i] = random_len(256);
            lay_out(&l, len, count, 4);
            run_call(ctx, sizes[s], key, &l);
        }
        /* crowded: more than eight messages in one L1 set; equal lengths, in place, then
         * mixed lengths out of place */
        for (size_t count = 9; count <= 2 * width + 1; count += count < width ? width - count : width + 1) {
            const size_t equal = 16 * (1 + ts_rng_below(&rng, 80));
            for (size_t i = 0; i < count; i++)
                len[i] = equal;
            lay_out_crowded(&l, len, count, 1);
            run_call(ctx, sizes[s], key, &l);
            for (size_t i = 0; i < count; i++)
                len[i] = random_len(1024);
            lay_out_crowded(&l, len, count, 0);
            run_call(ctx, sizes[s], key, &l);
        }
        for (size_t i = 0; i < AESGEN_CBC_STREAMS_MAX; i++)
            len[i] = random_len(128);
        lay_out(&l, len, AESGEN_CBC_STREAMS_MAX, 2);
        run_call(ctx, sizes[s], key, &l);
    }
}

/* Inputs may overlap each other: three messages reading one buffer. */
static void shared_input(aesgen_ctx *ctx)
{
    uint8_t key[16], in[96], out[3][96], want[96], iv[3][16], iv0[16];
    ts_rng_bytes(&rng, key, sizeof key);
    ts_rng_bytes(&rng, in, sizeof in);
    ts_rng_bytes(&rng, iv0, sizeof iv0);
    aesgen_init(ctx, key, sizeof key);
    aesgen_cbc_msg m[3];
    for (size_t i = 0; i < 3; i++) {
        memcpy(iv[i], iv0, 16);
        m[i] = (aesgen_cbc_msg){iv[i], out[i], in + 16 * i, 96 - 16 * i};
    }
    check(aesgen_cbc_encrypt_streams(ctx, m, 3) == AESGEN_OK, "shared input", "status");
    for (size_t i = 0; i < 3; i++) {
        ts_oracle_oneshot(128, TS_MODE_CBC_ENC, key, iv0, want, in + 16 * i, 96 - 16 * i);
        check(memcmp(out[i], want, 96 - 16 * i) == 0 && memcmp(iv[i], want + 80 - 16 * i, 16) == 0,
              "shared input", "differs from OpenSSL");
    }
}

/* ---- vectors --------------------------------------------------------------- */

/* The records of one key as one call: each record three times. */
static void vector_group(aesgen_ctx *ctx, const vec_record *r, size_t n, const char *file)
{
    static layout l;
    size_t len[AESGEN_CBC_STREAMS_MAX];
    const vec_record *src[AESGEN_CBC_STREAMS_MAX];
    size_t count = 0;
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < n && count < AESGEN_CBC_STREAMS_MAX; i++) {
            src[count] = &r[i];
            len[count++] = r[i].pt_len;
        }
    for (size_t i = count; i > 1; i--) { /* shuffle */
        const size_t j = ts_rng_below(&rng, i);
        const vec_record *t = src[i - 1];
        src[i - 1] = src[j];
        src[j] = t;
        const size_t u = len[i - 1];
        len[i - 1] = len[j];
        len[j] = u;
    }
    lay_out(&l, len, count, 1);
    uint8_t *arena = xmalloc(l.size);
    static aesgen_cbc_msg m[AESGEN_CBC_STREAMS_MAX];
    ts_rng_bytes(&rng, arena, l.size);
    for (size_t i = 0; i < count; i++) {
        memcpy(arena + l.iv_off[i], src[i]->iv, 16);
        memcpy(arena + l.in_off[i], src[i]->pt, src[i]->pt_len);
    }
    messages(&l, arena, m);
    if (aesgen_init(ctx, r[0].key, r[0].key_len) != AESGEN_OK) {
        failf(file, "aesgen_init failed");
        free(arena);
        return;
    }
    char what[300];
    const int rc = aesgen_cbc_encrypt_streams(ctx, m, count);
    for (size_t i = 0; i < count; i++) {
        snprintf(what, sizeof what, "%s line %u (%zu streams)", file, src[i]->line, count);
        check(rc == AESGEN_OK && memcmp(arena + l.out_off[i], src[i]->ct, src[i]->ct_len) == 0 &&
                  memcmp(arena + l.iv_off[i], src[i]->ct + src[i]->ct_len - 16, 16) == 0,
              what, "ciphertext or IV differs from the vector");
    }
    free(arena);
}

static size_t vector_file(aesgen_ctx *ctx, const char *dir, const char *rel, int sp)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    vec_file f = {0};
    const int rc = sp ? vec_parse_sp80038a(path, &f, err, sizeof err) : vec_parse_rsp(path, &f, err, sizeof err);
    if (rc == VEC_ERR_OPEN)
        return 0;
    if (rc != VEC_OK) {
        failf(rel, err);
        return 0;
    }
    /* runs of CBC records with one key (encrypt and decrypt sections alike) */
    size_t used = 0;
    for (size_t i = 0; i < f.n;) {
        size_t j = i + 1;
        const vec_record *r = &f.rec[i];
        while (j < f.n && f.rec[j].key_len == r->key_len && memcmp(f.rec[j].key, r->key, r->key_len) == 0 &&
               f.rec[j].mode == r->mode && j - i < AESGEN_CBC_STREAMS_MAX / 3)
            j++;
        if ((!sp || r->mode == VEC_CBC) && r->has_iv && r->pt_len == r->ct_len && r->pt_len % 16 == 0 &&
            r->pt_len > 0) {
            vector_group(ctx, r, j - i, rel);
            used += j - i;
        }
        i = j;
    }
    vec_file_free(&f);
    return used;
}

static void vectors(aesgen_ctx *ctx, const char *dir)
{
    static const char *const fam[] = {"kat/CBCGFSbox", "kat/CBCKeySbox", "kat/CBCVarKey", "kat/CBCVarTxt",
                                      "mmt/CBCMMT"};
    size_t records = 0;
    for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++)
        for (unsigned bits = 128; bits <= 256; bits += 64) {
            char rel[128];
            snprintf(rel, sizeof rel, "nist-cavp/%s%u.rsp", fam[f], bits);
            records += vector_file(ctx, dir, rel, 0);
        }
    records += vector_file(ctx, dir, "sp800-38a/AES_CBC.txt", 1);
    printf("vectors: %zu CBC records from %s\n", records, dir);
    check(records > 0, "vectors", "no CBC record found (is --vectors right?)");
}

/* ---- errors ------------------------------------------------------------------ */

static uint8_t err_arena[4096];
static aesgen_cbc_msg err_msgs[4];

/* A call that must fail with `want` and change nothing: not the arena (buffers and
 * IVs), not the message array. */
static void expect_error(const aesgen_ctx *ctx, const aesgen_cbc_msg *m, size_t count, int want, const char *what)
{
    static uint8_t arena_before[sizeof err_arena];
    aesgen_cbc_msg msgs_before[4];
    memcpy(arena_before, err_arena, sizeof err_arena);
    memcpy(msgs_before, err_msgs, sizeof err_msgs);
    const int rc = aesgen_cbc_encrypt_streams(ctx, m, count);
    char detail[160];
    snprintf(detail, sizeof detail, "status %d (%s), want %d", rc, aesgen_status_string(rc), want);
    check(rc == want, what, detail);
    check(memcmp(arena_before, err_arena, sizeof err_arena) == 0 && memcmp(msgs_before, err_msgs, sizeof err_msgs) == 0,
          what, "something was written");
}

/* Three valid messages (offsets in err_arena): 0: iv 0, in place at 16; 1: iv 400, in
 * 500, out 1000; 2: iv 1400, in 1500, out 2000; 256 bytes each. Each case changes
 * message 1 into a bad one. */
static void reset_errors(void)
{
    ts_rng_bytes(&rng, err_arena, sizeof err_arena);
    err_msgs[0] = (aesgen_cbc_msg){err_arena + 0, err_arena + 16, err_arena + 16, 256}; /* in place */
    err_msgs[1] = (aesgen_cbc_msg){err_arena + 400, err_arena + 1000, err_arena + 500, 256};
    err_msgs[2] = (aesgen_cbc_msg){err_arena + 1400, err_arena + 2000, err_arena + 1500, 256};
}

static void errors(aesgen_ctx *ctx)
{
    uint8_t key[16] = {1};
    aesgen_init(ctx, key, 16);
    aesgen_ctx blank;
    memset(&blank, 0, sizeof blank);
    aesgen_cbc_msg *m = err_msgs;

    reset_errors();
    expect_error(NULL, m, 3, AESGEN_ERR_NULL, "NULL context");
    expect_error(&blank, m, 3, AESGEN_ERR_CONTEXT, "context not set up");
    expect_error(ctx, NULL, 1, AESGEN_ERR_NULL, "NULL messages");
    expect_error(ctx, m, AESGEN_CBC_STREAMS_MAX + 1, AESGEN_ERR_LENGTH, "count over the maximum");
    m[1].iv = NULL;
    expect_error(ctx, m, 3, AESGEN_ERR_NULL, "NULL iv");
    reset_errors();
    m[1].out = NULL;
    expect_error(ctx, m, 3, AESGEN_ERR_NULL, "NULL out");
    reset_errors();
    m[1].in = NULL;
    expect_error(ctx, m, 3, AESGEN_ERR_NULL, "NULL in");
    reset_errors();
    m[1].len = 250;
    expect_error(ctx, m, 3, AESGEN_ERR_LENGTH, "length not a multiple of 16");
    reset_errors();
    m[1].in = (const uint8_t *)(UINTPTR_MAX - 127);
    m[1].out = err_arena + 1000;
    expect_error(ctx, m, 3, AESGEN_ERR_LENGTH, "input past the address space");
    reset_errors();
    m[1].iv = (uint8_t *)(UINTPTR_MAX - 7);
    expect_error(ctx, m, 3, AESGEN_ERR_LENGTH, "iv past the address space");
    /* overlaps */
    static const struct {
        size_t iv, out, in;
        const char *what;
    } bad[] = {
        {400, 516, 500, "out overlaps its own in"},
        {3000, 200, 500, "out overlaps another message's out"},
        {3000, 1450, 500, "out overlaps another message's in"},
        {400, 1000, 1900, "in overlapped by another message's out"},
        {3000, 1500, 500, "out equal to another message's in"},
        {3000, 16, 16, "in place on another message's in-place buffer"},
        {0, 1000, 500, "iv equal to another message's iv"},
        {1408, 1000, 500, "iv overlaps another message's iv"},
        {100, 1000, 500, "iv inside another message's in-place out"},
        {1600, 1000, 500, "iv inside another message's in"},
        {2100, 1000, 500, "iv inside another message's out"},
        {600, 1000, 500, "iv inside its own in"},
        {1100, 1000, 500, "iv inside its own out"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        reset_errors();
        m[1] = (aesgen_cbc_msg){err_arena + bad[i].iv, err_arena + bad[i].out, err_arena + bad[i].in, 256};
        expect_error(ctx, m, 3, AESGEN_ERR_OVERLAP, bad[i].what);
    }
    reset_errors();
    m[1].out = (uint8_t *)err_msgs;
    m[1].len = 16;
    expect_error(ctx, m, 3, AESGEN_ERR_OVERLAP, "out overlaps the message array");
    /* what is allowed: NULL buffers of a 0-length message (its IV untouched), count 0 */
    reset_errors();
    m[1] = (aesgen_cbc_msg){err_arena + 400, NULL, NULL, 0};
    uint8_t iv1[16];
    memcpy(iv1, err_arena + 400, 16);
    check(aesgen_cbc_encrypt_streams(ctx, m, 3) == AESGEN_OK && memcmp(iv1, err_arena + 400, 16) == 0,
          "0-length message with NULL buffers", "not accepted, or its IV changed");
    reset_errors();
    expect_error(ctx, NULL, 0, AESGEN_OK, "count 0, NULL messages");
    expect_error(ctx, m, 0, AESGEN_OK, "count 0");
}

/* ------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    const char *vectors_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc)
            backend = argv[++i];
        else if (strcmp(argv[i], "--vectors") == 0 && i + 1 < argc)
            vectors_dir = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s --backend NAME [--vectors DIR] [--seed N]\n", argv[0]);
            return 2;
        }
    }
    if (backend == NULL) {
        fprintf(stderr, "--backend is required\n");
        return 2;
    }
    if (aesgen_backend_supported(backend) != 1) {
        printf("backend %s cannot run here: skipped\n", backend);
        return EXIT_SKIP;
    }
    if (aesgen_force_backend(backend) != AESGEN_OK) {
        printf("aesgen_force_backend(%s) failed\n", backend);
        return 1;
    }
    ts_rng_seed(&rng, seed);
    aesgen_ctx *ctx = xmalloc(sizeof *ctx);
    uint8_t key[16] = {0};
    if (aesgen_init(ctx, key, 16) != AESGEN_OK) {
        printf("aesgen_init failed on backend %s\n", backend);
        return 1;
    }
    const char *name = aesgen_ctx_variant(ctx, AESGEN_ENCRYPT);
    const aesgen_variant *v = aesgen_find_variant(name);
    const size_t width = v != NULL && v->batch_blocks != 0 ? v->batch_blocks : 1;
    printf("backend %s: %s, lane width %zu; seed 0x%" PRIx64 "\n", backend, name, width, seed);

    errors(ctx);
    shared_input(ctx);
    if (vectors_dir != NULL)
        vectors(ctx, vectors_dir);
    differential(ctx, width);
    aesgen_wipe(ctx);
    free(ctx);
    printf("%lu checks, %lu failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
