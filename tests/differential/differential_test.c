/*
 * aesgen_differential -- compares the aesgen library with OpenSSL libcrypto.
 *
 *   aesgen_differential [--variant NAME | --backend NAME] [--seed N] [--quick]
 *   (AESGEN_DIFFERENTIAL_QUICK=1 in the environment is --quick)
 *
 * --variant NAME  contexts are set up with aesgen_init_variants, the variant
 *                 under test in its direction slot (the other direction is
 *                 chosen by dispatch); only its key size and the modes of its
 *                 direction run (encrypt: ECB, CBC, CTR; decrypt: ECB, CBC).
 * --backend NAME  aesgen_force_backend(NAME); every key size, every mode.
 * (neither)       automatic dispatch; every key size, every mode.
 *
 * Each case draws a random key, IV/counter and input, runs aesgen on buffers
 * at input/output offsets 0..15 behind and before guard bytes (in place or
 * out of place, possibly split over several calls), and compares the output,
 * the chaining state after every call, the guard bytes and (out of place) the
 * untouched input against OpenSSL EVP. One sweep puts the context itself at
 * every 8-byte offset 0..56 of a 64-byte line.
 *
 * Exit status: 0 all cases passed, 1 a mismatch or failure (the exact case is
 * printed), 2 usage error, 77 the variant/backend cannot run on this CPU.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "aesgen.h"
#include "aesgen_internal.h"
#include "ts_oracle.h"
#include "ts_report.h"
#include "ts_rng.h"

#define EXIT_SKIP 77
#define DEFAULT_SEED UINT64_C(0x61657367656e3031) /* "aesgen01" */

#define GUARD 48           /* guard bytes before and after every buffer */
#define MAX_PIECES 12      /* calls one split case may use */
#define MAX_LEN (((size_t)1 << 20) + 64)
#define ARENA_LEN (GUARD + 16 + MAX_LEN + GUARD + 64)

/* The modes are TS_MODE_* of ts_modes.h (ts_mode_name, ts_mode_direction, ts_crypt). */

/* ------------------------------------------------------------------------ */
/* Configuration and statistics                                              */

static struct {
    const aesgen_variant *variant; /* --variant, or NULL */
    const char *backend;           /* --backend, or NULL */
    int quick;
    uint64_t seed;
    unsigned batch; /* largest batch_blocks among the variants under test */
} cfg;

static unsigned long long total_cases, total_bytes;

/* ------------------------------------------------------------------------ */
/* Deterministic random numbers: splitmix64, bytes in host order (ts_rng.h);  */
/* 128-bit big-endian counter arithmetic: the test's own, independent of both */
/* implementations (ts_ctr_add, ts_ctr_sub)                                   */

static ts_rng rng;

/* ------------------------------------------------------------------------ */
/* The current case, for diagnostics                                          */

typedef struct {
    const char *kind;
    unsigned bits;
    int mode;
    size_t len;
    size_t in_off, out_off;
    int in_place;
    size_t ctx_off; /* the aesgen_ctx sits this many bytes past a 64-byte boundary */
    size_t npieces;
    size_t cuts[MAX_PIECES + 1]; /* piece i covers [cuts[i], cuts[i+1]) */
    uint8_t key[32];
    uint8_t iv[16]; /* CBC IV or CTR initial counter block */
} tcase;

static const tcase *cur_case;

static void print_case(const tcase *c)
{
    printf("  seed 0x%" PRIx64 ", case #%llu (%s)\n", cfg.seed, total_cases + 1, c->kind);
    if (cfg.variant)
        printf("  variant %s\n", cfg.variant->name);
    else if (cfg.backend)
        printf("  backend %s (forced)\n", cfg.backend);
    else
        printf("  automatic dispatch\n");
    printf("  AES-%u %s, length %zu, %s, input offset %zu", c->bits, ts_mode_name[c->mode], c->len,
           c->in_place ? "in place" : "out of place", c->in_off);
    if (!c->in_place)
        printf(", output offset %zu", c->out_off);
    printf(", context at 64n+%zu", c->ctx_off);
    printf("\n  calls:");
    for (size_t i = 0; i < c->npieces; i++)
        printf(" [%zu,%zu)", c->cuts[i], c->cuts[i + 1]);
    printf("\n");
    ts_hex_line(stdout, "key:  ", c->key, c->bits / 8);
    if (c->mode != TS_MODE_ECB_ENC && c->mode != TS_MODE_ECB_DEC)
        ts_hex_line(stdout, c->mode == TS_MODE_CTR ? "ctr:  " : "iv:   ", c->iv, 16);
}

static void mismatch_exit(void)
{
    if (cur_case)
        print_case(cur_case);
    fflush(stdout);
    exit(1);
}

static void fail(const char *fmt, const char *detail)
{
    printf("MISMATCH: ");
    printf(fmt, detail);
    printf("\n");
    mismatch_exit();
}

static void fail_at(const char *what, size_t pos, size_t piece, unsigned got, unsigned want)
{
    printf("MISMATCH: %s at byte %zu (call %zu): got %02x, expected %02x\n", what, pos, piece,
           got, want);
    mismatch_exit();
}

/* ------------------------------------------------------------------------ */
/* OpenSSL oracle (ts_oracle.h); any failure of it ends the run               */

static EVP_CIPHER_CTX *ossl_stream; /* the mode under test */
static EVP_CIPHER_CTX *ossl_block;  /* single ECB blocks (CTR keystream) */

static void ossl_check(const char *failed)
{
    if (failed == NULL)
        return;
    printf("FAIL: OpenSSL oracle: %s failed\n", failed);
    if (cur_case)
        print_case(cur_case);
    exit(1);
}

static void oracle_begin(EVP_CIPHER_CTX *x, unsigned bits, int mode, const uint8_t *key,
                         const uint8_t *iv)
{
    ossl_check(ts_oracle_begin(x, bits, mode, key, iv));
}

static void oracle_update(EVP_CIPHER_CTX *x, uint8_t *out, const uint8_t *in, size_t len)
{
    ossl_check(ts_oracle_update(x, out, in, len));
}

static void oracle_state(EVP_CIPHER_CTX *x, uint8_t iv[16], unsigned *num)
{
    ossl_check(ts_oracle_state(x, iv, num));
}

static void oracle_ecb_block(unsigned bits, const uint8_t *key, const uint8_t in[16], uint8_t out[16])
{
    ossl_check(ts_oracle_ecb_block(ossl_block, bits, key, in, out));
}

/* OpenSSL is the oracle for CTR only if it treats the whole block as one
 * big-endian 128-bit counter. Check that against ECB of counter blocks built
 * with the test's own arithmetic, around every carry boundary. */
static void check_oracle_ctr_semantics(void)
{
    static const unsigned ones_from[] = { 0, 4, 8, 12, 15 }; /* bytes [k,16) = ff */
    for (unsigned bits = 128; bits <= 256; bits += 64) {
        for (size_t f = 0; f < sizeof ones_from / sizeof ones_from[0]; f++) {
            for (unsigned back = 0; back < 3; back++) {
                uint8_t key[32], start[16], c[16], zero[16 * 8] = { 0 }, ks[16 * 8], blk[16];
                uint8_t next[16];
                unsigned num;
                ts_rng_bytes_native(&rng, key, sizeof key);
                ts_rng_bytes_native(&rng, start, 16);
                memset(start + ones_from[f], 0xff, 16 - ones_from[f]);
                ts_ctr_sub(start, back);
                oracle_begin(ossl_stream, bits, TS_MODE_CTR, key, start);
                oracle_update(ossl_stream, ks, zero, 5);       /* mid-block split */
                oracle_update(ossl_stream, ks + 5, zero, 123); /* 128 bytes in all */
                memcpy(c, start, 16);
                for (unsigned i = 0; i < 8; i++) {
                    oracle_ecb_block(bits, key, c, blk);
                    if (memcmp(blk, ks + 16 * i, 16) != 0) {
                        printf("FAIL: OpenSSL AES-%u-CTR does not increment the whole 128-bit "
                               "counter block (block %u after start counter ",
                               bits, i);
                        ts_hex(stdout, start, 16);
                        printf("); it cannot serve as the oracle\n");
                        exit(1);
                    }
                    ts_ctr_add(c, 1);
                }
                oracle_state(ossl_stream, next, &num);
                if (memcmp(next, c, 16) != 0 || num != 0) {
                    printf("FAIL: OpenSSL AES-%u-CTR counter state after 8 blocks is not "
                           "start + 8 mod 2^128\n",
                           bits);
                    exit(1);
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* aesgen side                                                                */

static uint8_t *in_arena, *out_arena, *src, *expect;

static uint8_t *align64(uint8_t *p)
{
    return p + ((64 - ((uintptr_t)p & 63)) & 63);
}

static uint8_t pattern(size_t i) { return (uint8_t)(0xa5 ^ (i * 29u) ^ (i >> 8)); }

static void fill_pattern(uint8_t *base, size_t n)
{
    for (size_t i = 0; i < n; i++)
        base[i] = pattern(i);
}

static void check_pattern(const uint8_t *base, size_t from, size_t to, const char *what)
{
    for (size_t i = from; i < to; i++) {
        if (base[i] != pattern(i)) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s: guard byte %zu changed", what, i);
            printf("MISMATCH: %s (got %02x, expected %02x)\n", msg, base[i], pattern(i));
            mismatch_exit();
        }
    }
}

static void setup_ctx(aesgen_ctx *ctx, const uint8_t *key, unsigned bits, int dir)
{
    int rc;
    if (cfg.variant) {
        rc = aesgen_init_variants(ctx, key, bits / 8, dir == AESGEN_ENCRYPT ? cfg.variant : NULL,
                                  dir == AESGEN_DECRYPT ? cfg.variant : NULL);
        if (rc != AESGEN_OK)
            fail("aesgen_init_variants returned %s", aesgen_status_string(rc));
        const char *got = aesgen_ctx_variant(ctx, (aesgen_direction)dir);
        if (got == NULL || strcmp(got, cfg.variant->name) != 0)
            fail("aesgen_ctx_variant does not name the variant under test (got %s)",
                 got ? got : "NULL");
    } else {
        rc = aesgen_init(ctx, key, bits / 8);
        if (rc != AESGEN_OK)
            fail("aesgen_init returned %s", aesgen_status_string(rc));
        if (cfg.backend) {
            const char *got = aesgen_ctx_variant(ctx, (aesgen_direction)dir);
            const aesgen_variant *v = got ? aesgen_find_variant(got) : NULL;
            if (v == NULL || strcmp(v->backend, cfg.backend) != 0)
                fail("the context is not served by the forced backend (variant %s)",
                     got ? got : "NULL");
        }
    }
}

/* The CTR stream after `done` bytes must stand at the same place as OpenSSL:
 * counter = the next counter block to encrypt, `used` = bytes consumed of the
 * keystream of the block before it, the unconsumed keystream bytes correct.
 * At a block boundary both "used == 16" (nothing buffered) and "used == 0
 * with the next block's keystream already buffered" are valid encodings. */
static void check_ctr_state(const tcase *c, const aesgen_ctr *ctr, size_t done, size_t piece)
{
    uint8_t want[16], ossl_iv[16], prev[16], ks[16];
    unsigned ossl_num;
    char msg[200];

    memcpy(want, c->iv, 16);
    ts_ctr_add(want, (uint64_t)(done / 16 + (done % 16 != 0)));
    oracle_state(ossl_stream, ossl_iv, &ossl_num);
    if (memcmp(ossl_iv, want, 16) != 0 || ossl_num != done % 16)
        ossl_check("CTR state differs from start + ceil(bytes/16) (oracle self-check)");

    if (ctr->used > 16) {
        snprintf(msg, sizeof msg, "after call %zu the CTR stream has used = %u (> 16)", piece,
                 (unsigned)ctr->used);
        fail("%s", msg);
    }
    if (done % 16 != 0) {
        if (memcmp(ctr->counter, want, 16) != 0 || ctr->used != done % 16) {
            snprintf(msg, sizeof msg,
                     "after call %zu (%zu bytes) the CTR stream has used = %u and a counter "
                     "block that is not OpenSSL's next counter (expected used = %zu)",
                     piece, done, (unsigned)ctr->used, done % 16);
            printf("MISMATCH: %s\n", msg);
            ts_hex_line(stdout, "aesgen counter:   ", ctr->counter, 16);
            ts_hex_line(stdout, "expected counter: ", want, 16);
            mismatch_exit();
        }
        memcpy(prev, want, 16);
        ts_ctr_sub(prev, 1);
        oracle_ecb_block(c->bits, c->key, prev, ks);
        for (unsigned i = ctr->used; i < 16; i++)
            if (ctr->keystream[i] != ks[i]) {
                snprintf(msg, sizeof msg,
                         "after call %zu the buffered CTR keystream byte %u is wrong", piece, i);
                fail("%s", msg);
            }
        return;
    }
    if (memcmp(ctr->counter, want, 16) == 0 && ctr->used == 16)
        return;
    /* Eagerly buffered: counter one further, keystream of `want` held. */
    memcpy(prev, want, 16);
    ts_ctr_add(prev, 1);
    if (ctr->used == 0 && memcmp(ctr->counter, prev, 16) == 0) {
        oracle_ecb_block(c->bits, c->key, want, ks);
        if (memcmp(ctr->keystream, ks, 16) == 0)
            return;
    }
    snprintf(msg, sizeof msg,
             "after call %zu (%zu bytes, a block boundary) the CTR stream (used = %u) does "
             "not stand at OpenSSL's next counter block",
             piece, done, (unsigned)ctr->used);
    printf("MISMATCH: %s\n", msg);
    ts_hex_line(stdout, "aesgen counter:   ", ctr->counter, 16);
    ts_hex_line(stdout, "expected counter: ", want, 16);
    mismatch_exit();
}

static void run_case(const tcase *c)
{
    uint8_t *in = in_arena + GUARD + c->in_off;
    uint8_t *out = c->in_place ? in : out_arena + GUARD + c->out_off;
    int dir = ts_mode_direction(c->mode);
    /* any 8-byte-aligned address must do (aesgen.h): the context goes where the case says */
    _Alignas(64) static unsigned char ctx_arena[sizeof(aesgen_ctx) + 64];
    aesgen_ctx *const ctx = (aesgen_ctx *)(void *)(ctx_arena + c->ctx_off);
    aesgen_ctr ctr;
    uint8_t iv[16];
    int rc;

    cur_case = c;
    if (c->len > MAX_LEN || c->npieces < 1 || c->npieces > MAX_PIECES || c->cuts[0] != 0 ||
        c->cuts[c->npieces] != c->len || c->ctx_off % 8 != 0 || c->ctx_off > 56)
        fail("%s", "internal error: malformed test case");

    /* Buffers: pattern everywhere, then the input. */
    fill_pattern(in_arena, GUARD + c->in_off + c->len + GUARD);
    if (!c->in_place)
        fill_pattern(out_arena, GUARD + c->out_off + c->len + GUARD);
    ts_rng_bytes_native(&rng, src, c->len);
    memcpy(in, src, c->len);

    setup_ctx(ctx, c->key, c->bits, dir);
    oracle_begin(ossl_stream, c->bits, c->mode, c->key, c->iv);
    memcpy(iv, c->iv, 16);
    if (c->mode == TS_MODE_CTR) {
        rc = aesgen_ctr_init(&ctr, c->iv);
        if (rc != AESGEN_OK)
            fail("aesgen_ctr_init returned %s", aesgen_status_string(rc));
        check_ctr_state(c, &ctr, 0, 0);
    }

    for (size_t p = 0; p < c->npieces; p++) {
        size_t a = c->cuts[p], b = c->cuts[p + 1];
        oracle_update(ossl_stream, expect + a, src + a, b - a);
        rc = ts_crypt(c->mode, ctx, iv, &ctr, out + a, in + a, b - a);
        if (rc != AESGEN_OK) {
            char msg[160];
            snprintf(msg, sizeof msg, "call %zu ([%zu,%zu)) returned %d", p, a, b, rc);
            printf("MISMATCH: %s (%s)\n", msg, aesgen_status_string(rc));
            mismatch_exit();
        }
        if (ts_mode_is_cbc(c->mode)) {
            /* IV = last ciphertext block so far. */
            const uint8_t *want = b == 0 ? c->iv : (c->mode == TS_MODE_CBC_ENC ? expect : src) + b - 16;
            if (memcmp(iv, want, 16) != 0) {
                char msg[160];
                snprintf(msg, sizeof msg,
                         "IV after call %zu ([%zu,%zu)) is not the last ciphertext block", p, a, b);
                printf("MISMATCH: %s\n", msg);
                ts_hex_line(stdout, "aesgen iv:   ", iv, 16);
                ts_hex_line(stdout, "expected iv: ", want, 16);
                mismatch_exit();
            }
        } else if (c->mode == TS_MODE_CTR) {
            check_ctr_state(c, &ctr, b, p);
        }
    }

    for (size_t i = 0; i < c->len; i++) {
        if (out[i] != expect[i]) {
            size_t p = 0;
            while (p + 1 < c->npieces && c->cuts[p + 1] <= i)
                p++;
            fail_at("output", i, p, out[i], expect[i]);
        }
    }
    if (c->in_place) {
        check_pattern(in_arena, 0, GUARD + c->in_off, "in-place buffer");
        check_pattern(in_arena, GUARD + c->in_off + c->len, GUARD + c->in_off + c->len + GUARD,
                      "in-place buffer");
    } else {
        check_pattern(out_arena, 0, GUARD + c->out_off, "output buffer");
        check_pattern(out_arena, GUARD + c->out_off + c->len,
                      GUARD + c->out_off + c->len + GUARD, "output buffer");
        check_pattern(in_arena, 0, GUARD + c->in_off, "input buffer");
        check_pattern(in_arena, GUARD + c->in_off + c->len, GUARD + c->in_off + c->len + GUARD,
                      "input buffer");
        for (size_t i = 0; i < c->len; i++)
            if (in[i] != src[i])
                fail_at("input buffer (const) was modified", i, 0, in[i], src[i]);
    }

    aesgen_wipe(ctx);
    if (c->mode == TS_MODE_CTR)
        aesgen_ctr_wipe(&ctr);
    total_cases++;
    total_bytes += c->len;
    cur_case = NULL;
}

/* ------------------------------------------------------------------------ */
/* Case construction                                                          */

static void new_case(tcase *c, const char *kind, unsigned bits, int mode, size_t len)
{
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->bits = bits;
    c->mode = mode;
    c->len = len;
    c->in_off = ts_rng_below(&rng, 16);
    c->out_off = ts_rng_below(&rng, 16);
    c->in_place = 0;
    c->npieces = 1;
    c->cuts[0] = 0;
    c->cuts[1] = len;
    ts_rng_bytes_native(&rng, c->key, bits / 8);
    ts_rng_bytes_native(&rng, c->iv, 16);
}

/* Split c->len into random calls; unit 1 (CTR, any byte) or 16 (CBC). */
static void random_split(tcase *c, size_t unit)
{
    size_t pos = 0, n = 0, max_pieces = 2 + ts_rng_below(&rng, MAX_PIECES - 1);
    c->cuts[0] = 0;
    while (n + 1 < max_pieces && pos < c->len) {
        size_t rem = c->len - pos, len;
        switch (ts_rng_below(&rng, 10)) {
        case 0: len = 0; break;                                                      /* empty call */
        case 1: case 2: case 3: len = unit * (1 + ts_rng_below(&rng, unit == 1 ? 40 : 4)); break; /* small */
        case 4: case 5: len = 16 * (1 + ts_rng_below(&rng, 8)); break;               /* whole blocks */
        default: len = unit * ts_rng_below(&rng, rem / unit + 1); break;             /* anything */
        }
        if (len > rem)
            len = rem;
        pos += len;
        c->cuts[++n] = pos;
    }
    c->cuts[++n] = c->len;
    c->npieces = n;
}

static void sweep(unsigned bits, int mode)
{
    const int ctr = mode == TS_MODE_CTR, chain = mode == TS_MODE_CTR || ts_mode_is_cbc(mode);
    const size_t unit = ctr ? 1 : 16;
    unsigned long long cases0 = total_cases, bytes0 = total_bytes;
    tcase c;

    /* 1. Every length 0..2048 (CTR: every byte; ECB/CBC: every block). */
    for (size_t len = 0, idx = 0; len <= 2048; len += unit, idx++) {
        if (cfg.quick && ctr && len > 300 && len % 7 != 0)
            continue;
        const unsigned configs = ctr ? 2 : 4;
        for (unsigned k = 0; k < configs; k++) {
            if (cfg.quick && k > 0 && (ctr || k > 1))
                break;
            new_case(&c, "length sweep", bits, mode, len);
            c.in_place = (int)(k & 1) ^ (int)(cfg.quick && (idx & 1));
            c.in_off = (idx + 5 * k) % 16;
            c.out_off = (idx * 7 + 3 + k) % 16;
            run_case(&c);
        }
    }

    /* 2. Every input/output offset pair, and in place at every offset. */
    {
        static const size_t blk_lens[] = { 16, 48, 112, 272 };
        static const size_t ctr_lens[] = { 1, 15, 17, 47, 100, 271 };
        const size_t *lens = ctr ? ctr_lens : blk_lens;
        size_t nlens = ctr ? sizeof ctr_lens / sizeof ctr_lens[0] : sizeof blk_lens / sizeof blk_lens[0];
        if (cfg.quick)
            nlens = 2;
        for (size_t l = 0; l < nlens; l++) {
            for (size_t io = 0; io < 16; io++) {
                for (size_t oo = 0; oo < 16; oo++) {
                    new_case(&c, "offset sweep", bits, mode, lens[l]);
                    c.in_off = io;
                    c.out_off = oo;
                    run_case(&c);
                }
                new_case(&c, "offset sweep", bits, mode, lens[l]);
                c.in_place = 1;
                c.in_off = io;
                run_case(&c);
            }
        }
    }

    /* 3. Large buffers. */
    {
        static const size_t ks[] = { 0, 1, 3, 7, 15 };
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
            if (cfg.quick && i > 1)
                break;
            for (int ip = 0; ip < 2; ip++) {
                size_t len = 65536 + 16 * ks[i] + (ctr ? ts_rng_below(&rng, 16) : 0);
                new_case(&c, "large", bits, mode, len);
                c.in_place = ip;
                run_case(&c);
            }
        }
        if (!cfg.quick) {
            new_case(&c, "large", bits, mode, ((size_t)1 << 20) + (ctr ? 13 : 16));
            c.in_place = (int)ts_rng_below(&rng, 2);
            run_case(&c);
        }
    }

    /* 4. CBC and CTR split over several calls at random boundaries. */
    if (chain) {
        const unsigned trials = cfg.quick ? 40 : 200;
        for (unsigned t = 0; t < trials; t++) {
            size_t len = t % 10 == 9 ? ts_rng_below(&rng, 70000) : ts_rng_below(&rng, 4097);
            len -= len % unit;
            new_case(&c, "split", bits, mode, len);
            c.in_place = (int)(t & 1);
            random_split(&c, unit);
            run_case(&c);
        }
        if (!cfg.quick) {
            new_case(&c, "split (large)", bits, mode, ((size_t)1 << 20) + (ctr ? 13 : 0));
            random_split(&c, unit);
            run_case(&c);
        }
    }

    /* 5. CTR counters next to carries: the full 128-bit wrap ff..ff -> 00..00
     * and carries out of the low 8, 32, 64 and 96 bits, starting at every
     * position of a batch so the carry falls inside a core call. */
    if (ctr) {
        static const unsigned ones_from[] = { 0, 8, 12, 4, 15 };
        const unsigned span = 2 * cfg.batch + 2;
        for (size_t f = 0; f < sizeof ones_from / sizeof ones_from[0]; f++) {
            for (unsigned j = 0; j <= span; j++) {
                for (int split = 0; split < 2; split++) {
                    size_t len = 16 * (j + 1 + ts_rng_below(&rng, span)) + ts_rng_below(&rng, 16);
                    new_case(&c, split ? "counter wrap, split" : "counter wrap", bits, mode, len);
                    memset(c.iv + ones_from[f], 0xff, 16 - ones_from[f]);
                    ts_ctr_sub(c.iv, j); /* the carry happens after j + 1 blocks */
                    c.in_place = (int)((j + f) & 1);
                    if (split)
                        random_split(&c, 1);
                    run_case(&c);
                }
            }
        }
    }

    /* 6. The context at every 8-byte offset of a 64-byte line, with lengths around the
     * batch (a backend that needs a more aligned schedule faults or differs here). */
    {
        const size_t b = cfg.batch;
        const size_t blocks[] = { 1, b - 1, b, b + 1, 2 * b + 3 };
        for (size_t off = 0; off < 64; off += 8)
            for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
                new_case(&c, "context offset", bits, mode, 16 * blocks[i] + (ctr ? 7 : 0));
                c.ctx_off = off;
                c.in_place = (int)(i & 1);
                run_case(&c);
            }
    }

    printf("  AES-%u %-11s %7llu cases %10.2f MB\n", bits, ts_mode_name[mode], total_cases - cases0,
           (double)(total_bytes - bytes0) / 1e6);
    fflush(stdout);
}

/* ------------------------------------------------------------------------ */

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--variant NAME | --backend NAME] [--seed N] [--quick]\n"
            "  --variant NAME  test one generated variant (its key size and direction)\n"
            "  --backend NAME  force one backend, all key sizes and modes\n"
            "  --seed N        random seed (default 0x%" PRIx64 ")\n"
            "  --quick         smaller sweep (also AESGEN_DIFFERENTIAL_QUICK=1)\n"
            "exit status: 0 pass, 1 mismatch, 2 usage, 77 skipped\n",
            prog, DEFAULT_SEED);
}

static double now_seconds(void)
{
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *variant_name = NULL;
    unsigned bits_list[3] = { 128, 192, 256 }, nbits = 3;
    int run_dir = -1; /* -1: every mode */

    cfg.seed = DEFAULT_SEED;
    /* scripts/hardening.sh sets this under valgrind (ctest cannot add an argument there). */
    const char *quick_env = getenv("AESGEN_DIFFERENTIAL_QUICK");
    if (quick_env != NULL && strcmp(quick_env, "1") == 0)
        cfg.quick = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            variant_name = argv[++i];
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            cfg.backend = argv[++i];
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            cfg.seed = (uint64_t)strtoull(argv[++i], &end, 0);
            if (*argv[i] == '\0' || *end != '\0') {
                usage(argv[0]);
                return 2;
            }
        } else if (strcmp(argv[i], "--quick") == 0) {
            cfg.quick = 1;
        } else {
            usage(argv[0]);
            return 2;
        }
    }
    if (variant_name && cfg.backend) {
        usage(argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("aesgen_differential: seed 0x%" PRIx64 "%s, oracle %s\n", cfg.seed,
           cfg.quick ? " (quick)" : "", OpenSSL_version(OPENSSL_VERSION));

    cfg.batch = 4;
    if (variant_name) {
        cfg.variant = aesgen_find_variant(variant_name);
        if (cfg.variant == NULL) {
            printf("FAIL: no variant named %s in this library\n", variant_name);
            return 1;
        }
        if (!aesgen_variant_usable(cfg.variant)) {
            printf("skipped: variant %s cannot run on this CPU (needs features 0x%" PRIx32
                   ", have 0x%" PRIx32 ")\n",
                   cfg.variant->name, cfg.variant->features, aesgen_cpu_features());
            return EXIT_SKIP;
        }
        if (cfg.variant->direction > 1 ||
            (cfg.variant->key_bits != 128 && cfg.variant->key_bits != 192 &&
             cfg.variant->key_bits != 256)) {
            printf("FAIL: variant %s has key_bits %u / direction %u\n", cfg.variant->name,
                   (unsigned)cfg.variant->key_bits, (unsigned)cfg.variant->direction);
            return 1;
        }
        bits_list[0] = cfg.variant->key_bits;
        nbits = 1;
        run_dir = cfg.variant->direction;
        if (cfg.variant->batch_blocks > cfg.batch)
            cfg.batch = cfg.variant->batch_blocks;
        printf("variant %s (backend %s, %s, batch %u blocks)\n", cfg.variant->name,
               cfg.variant->backend, run_dir ? "decrypt" : "encrypt",
               (unsigned)cfg.variant->batch_blocks);
    } else if (cfg.backend) {
        int s = aesgen_backend_supported(cfg.backend);
        if (s < 0) {
            printf("FAIL: no backend named %s in this library\n", cfg.backend);
            return 1;
        }
        if (s == 0) {
            printf("skipped: backend %s cannot run on this CPU\n", cfg.backend);
            return EXIT_SKIP;
        }
        int rc = aesgen_force_backend(cfg.backend);
        if (rc != AESGEN_OK) {
            printf("FAIL: aesgen_force_backend(%s) returned %s\n", cfg.backend,
                   aesgen_status_string(rc));
            return 1;
        }
        nbits = 0;
        for (unsigned b = 128; b <= 256; b += 64) {
            const char *be = aesgen_selected_backend(b, AESGEN_ENCRYPT);
            const char *bd = aesgen_selected_backend(b, AESGEN_DECRYPT);
            if (be == NULL || bd == NULL) {
                printf("note: backend %s does not serve AES-%u\n", cfg.backend, b);
                continue;
            }
            if (strcmp(be, cfg.backend) != 0 || strcmp(bd, cfg.backend) != 0) {
                printf("FAIL: backend %s forced but AES-%u selects %s / %s\n", cfg.backend, b, be,
                       bd);
                return 1;
            }
            bits_list[nbits++] = b;
        }
        if (nbits == 0) {
            printf("skipped: backend %s serves no key size on this CPU\n", cfg.backend);
            return EXIT_SKIP;
        }
        printf("backend %s (forced)\n", cfg.backend);
    } else {
        printf("automatic dispatch\n");
    }
    if (!variant_name) {
        /* The largest batch among the variants that will serve the tests. */
        for (unsigned i = 0; i < nbits; i++)
            for (int d = 0; d < 2; d++) {
                const char *n = aesgen_selected_variant(bits_list[i], (aesgen_direction)d);
                const aesgen_variant *v = n ? aesgen_find_variant(n) : NULL;
                if (v) {
                    printf("  AES-%u %s: %s (batch %u)\n", bits_list[i], d ? "decrypt" : "encrypt",
                           v->name, (unsigned)v->batch_blocks);
                    if (v->batch_blocks > cfg.batch)
                        cfg.batch = v->batch_blocks;
                }
            }
    }

    uint8_t *raw_in = malloc(ARENA_LEN), *raw_out = malloc(ARENA_LEN);
    src = malloc(MAX_LEN);
    expect = malloc(MAX_LEN);
    ossl_stream = EVP_CIPHER_CTX_new();
    ossl_block = EVP_CIPHER_CTX_new();
    if (!raw_in || !raw_out || !src || !expect || !ossl_stream || !ossl_block) {
        printf("FAIL: out of memory\n");
        return 1;
    }
    in_arena = align64(raw_in);
    out_arena = align64(raw_out);

    double t0 = now_seconds();
    ts_rng_seed(&rng, cfg.seed);
    check_oracle_ctr_semantics();
    ts_rng_seed(&rng, cfg.seed); /* the cases do not depend on the self-check */

    for (unsigned i = 0; i < nbits; i++)
        for (int m = 0; m < TS_MODE_COUNT; m++)
            if (run_dir < 0 || ts_mode_direction(m) == run_dir)
                sweep(bits_list[i], m);

    printf("PASS: %llu cases, %.2f MB through aesgen, %.2f s (seed 0x%" PRIx64 ")\n", total_cases,
           (double)total_bytes / 1e6, now_seconds() - t0, cfg.seed);
    EVP_CIPHER_CTX_free(ossl_stream);
    EVP_CIPHER_CTX_free(ossl_block);
    free(raw_in);
    free(raw_out);
    free(src);
    free(expect);
    return 0;
}
