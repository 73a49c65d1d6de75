/*
 * ct_test.c -- constant-time test of the software aesgen variants ("ctgrind"):
 * the bitsliced/fixsliced ones, portable C and SIMD (word_bits != 0), that
 * this CPU runs (valgrind hides AVX-512, so those variants are not run here).
 *
 * Run under valgrind memcheck. Every secret (key, plaintext, ciphertext, IV,
 * counter) is marked undefined with VALGRIND_MAKE_MEM_UNDEFINED before it
 * enters the library. Memcheck propagates undefinedness through ordinary data
 * flow (XOR, AND, shifts, loads from fixed addresses) without a word, but
 * reports every conditional branch and every memory address computed from an
 * undefined value:
 *   "Conditional jump or move depends on uninitialised value(s)"
 *   "Use of uninitialised value of size N"
 * So a clean run means no key- or data-dependent branch or table index was
 * executed on the paths exercised here. Limits: memcheck does not flag cmov,
 * nor instructions whose timing depends on operands (division); and it drops
 * a load whose result is never used, so a secret-indexed load that is thrown
 * away goes unreported. It reports a secret-indexed load once and then treats
 * the loaded value as public.
 *
 * Outputs are marked defined again (VALGRIND_MAKE_MEM_DEFINED) before this
 * program inspects them, so that its own checks do not trip memcheck. The
 * status codes returned by the library are never marked defined: a status
 * computed from secrets would be reported where this program tests it.
 *
 * Modes
 *   (default)       every software variant of the registry through
 *                   aesgen_init_variants, then every software backend through
 *                   aesgen_force_backend + aesgen_init. Must run clean.
 *   --leaky         a deliberately leaky AES step (secret-indexed S-box load
 *                   and a secret-dependent branch). Must make memcheck report.
 *   --allow-native  run even when not under valgrind (debugging only: then
 *                   nothing about timing is checked).
 *   --only TEXT     only variants/backends whose name contains TEXT.
 *
 * Exit codes (valgrind --error-exitcode=99 replaces them when memcheck
 * reported anything; this program never exits with 77 or 99 itself):
 *   0 done, 1 wrong output or library error, 2 usage,
 *   3 not running under valgrind memcheck: nothing was checked.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>

#include "aesgen.h"
#include "aesgen_internal.h"

enum {
    CT_EXIT_DONE = 0,
    CT_EXIT_FAIL = 1,
    CT_EXIT_USAGE = 2,
    CT_EXIT_NOT_CHECKED = 3
};

#if defined(__GNUC__) || defined(__clang__)
#define CT_NOINLINE __attribute__((noinline))
#else
#define CT_NOINLINE
#endif

/* Mark memory as secret (undefined) or public (defined). No-ops natively. */
#define SECRET(p, n) ((void)VALGRIND_MAKE_MEM_UNDEFINED((p), (n)))
#define PUBLIC(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))

#define BLK AESGEN_BLOCK_SIZE

static const char *g_prog = "aesgen_ct_test";
static const char *g_only; /* --only filter, or NULL */
static int g_verbose;
static unsigned long g_failures; /* functional failures (wrong output, error status) */
static unsigned long g_library_calls;
static unsigned long g_target_failures; /* failures of the current target */

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static unsigned long memcheck_errors(void)
{
    return (unsigned long)VALGRIND_COUNT_ERRORS;
}

static void fail(const char *label, const char *fmt, const char *detail, size_t nblocks)
{
    ++g_failures;
    if (++g_target_failures > 8) {
        if (g_target_failures == 9) {
            printf("  FAIL %s: further failures of this target not shown\n", label);
        }
        return;
    }
    printf("  FAIL %s: %s", label, fmt);
    if (detail != NULL) {
        printf(" (%s)", detail);
    }
    printf(" [%zu block(s)]\n", nblocks);
}

/* Deterministic test data; values do not matter to memcheck, only to the
 * functional sanity checks. */
static uint64_t g_rng = 0x243f6a8885a308d3u;

static void fill_random(uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        g_rng ^= g_rng >> 12;
        g_rng ^= g_rng << 25;
        g_rng ^= g_rng >> 27;
        p[i] = (uint8_t)((g_rng * 0x2545f4914f6cdd1du) >> 56);
    }
}

/* A copy of public data marked secret: the form in which inputs reach the
 * library. */
static void secret_copy(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n != 0) {
        memmove(dst, src, n);
        SECRET(dst, n);
    }
}

static void xor_bytes(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        dst[i] = (uint8_t)(a[i] ^ b[i]);
    }
}

/* Big-endian 128-bit increment on public test data. */
static void counter_add1(uint8_t c[16])
{
    int i;
    for (i = 15; i >= 0; --i) {
        c[i] = (uint8_t)(c[i] + 1u);
        if (c[i] != 0) {
            break;
        }
    }
}

/* Compare an output of the library (made public here) with expected data. */
static int check_equal(const char *label, const char *what, size_t nblocks,
                       const uint8_t *got, const uint8_t *want, size_t n)
{
    PUBLIC(got, n);
    if (n != 0 && memcmp(got, want, n) != 0) {
        fail(label, what, "output mismatch", nblocks);
        return 0;
    }
    return 1;
}

/* A library status must be AESGEN_OK. Not marked defined on purpose. */
static int check_ok(const char *label, const char *what, size_t nblocks, int rc)
{
    ++g_library_calls;
    if (rc != AESGEN_OK) {
        fail(label, what, aesgen_status_string(rc), nblocks);
        return 0;
    }
    return 1;
}

static int name_matches(const char *name)
{
    return g_only == NULL || (name != NULL && strstr(name, g_only) != NULL);
}

/* ------------------------------------------------------------------------ */
/* Is memcheck really watching?                                             */
/* ------------------------------------------------------------------------ */

/* 1 if running under memcheck and it tracks definedness (GET_VBITS is a
 * memcheck request: another tool, or a native run, answers 0). */
static int memcheck_tracks_definedness(void)
{
    uint8_t probe[8];
    uint8_t vbits[8];
    unsigned rc;
    size_t i;
    int ok = 1;

    if (!RUNNING_ON_VALGRIND) {
        return 0;
    }
    memset(probe, 0x5a, sizeof probe);
    memset(vbits, 0, sizeof vbits);
    SECRET(probe, sizeof probe);
    rc = VALGRIND_GET_VBITS(probe, vbits, sizeof probe);
    PUBLIC(probe, sizeof probe);
    if (rc != 1) {
        return 0;
    }
    for (i = 0; i < sizeof vbits; ++i) {
        ok &= vbits[i] == 0xff; /* 1 bits = undefined */
    }
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Registry helpers                                                         */
/* ------------------------------------------------------------------------ */

static int is_software(const aesgen_variant *v)
{
    return v != NULL && v->word_bits != 0 && aesgen_variant_usable(v);
}

static size_t key_len_of(unsigned key_bits)
{
    return (size_t)key_bits / 8u;
}

/* The software variant for the other direction: same backend first, then any
 * software one of that key size. NULL: let dispatch pick. */
static const aesgen_variant *software_partner(const aesgen_variant *v)
{
    const aesgen_variant *fallback = NULL;
    size_t i;
    for (i = 0; i < aesgen_registry_size; ++i) {
        const aesgen_variant *w = aesgen_registry[i];
        if (!is_software(w) || w->key_bits != v->key_bits ||
            w->direction == v->direction || !aesgen_variant_usable(w)) {
            continue;
        }
        if (w->backend != NULL && v->backend != NULL && strcmp(w->backend, v->backend) == 0) {
            return w;
        }
        if (fallback == NULL) {
            fallback = w;
        }
    }
    return fallback;
}

/* A backend is software when it has at least one variant and all of its
 * variants are software (and usable here). */
static int backend_is_software(const char *name)
{
    size_t i, n = 0;
    for (i = 0; i < aesgen_registry_size; ++i) {
        const aesgen_variant *w = aesgen_registry[i];
        if (w == NULL || w->backend == NULL || strcmp(w->backend, name) != 0) {
            continue;
        }
        if (!is_software(w)) {
            return 0;
        }
        ++n;
    }
    return n != 0;
}

/* ------------------------------------------------------------------------ */
/* The suite run against one initialised set-up                             */
/* ------------------------------------------------------------------------ */

typedef struct ct_target {
    char label[160];
    unsigned key_bits;
    const aesgen_variant *enc; /* explicit variants (variant mode) */
    const aesgen_variant *dec;
    const char *backend;       /* non-NULL: backend mode */
    int test_enc;              /* run the encryption-direction checks */
    int test_dec;              /* run the decryption-direction checks */
    size_t batch;              /* largest batch_blocks involved */
} ct_target;

/* FIPS-197 Appendix C: key 00 01 02 ..., plaintext 00 11 22 ... ff. */
static const uint8_t kat_pt[16] = {
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
    0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff
};
static const uint8_t kat_ct128[16] = {
    0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
    0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a
};
static const uint8_t kat_ct192[16] = {
    0xdd, 0xa9, 0x7c, 0xa4, 0x86, 0x4c, 0xdf, 0xe0,
    0x6e, 0xaf, 0x70, 0xa0, 0xec, 0x0d, 0x71, 0x91
};
static const uint8_t kat_ct256[16] = {
    0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf,
    0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49, 0x60, 0x89
};

/* Key set-up with the key marked secret. */
static int setup_ctx(const ct_target *t, aesgen_ctx *ctx, const uint8_t *key_public)
{
    uint8_t key[32];
    size_t klen = key_len_of(t->key_bits);
    int rc;

    secret_copy(key, key_public, klen);
    if (t->backend != NULL) {
        rc = aesgen_force_backend(t->backend);
        if (!check_ok(t->label, "aesgen_force_backend", 0, rc)) {
            return 0;
        }
        rc = aesgen_init(ctx, key, klen);
        if (!check_ok(t->label, "aesgen_init", 0, rc)) {
            return 0;
        }
    } else {
        rc = aesgen_init_variants(ctx, key, klen, t->enc, t->dec);
        if (!check_ok(t->label, "aesgen_init_variants", 0, rc)) {
            return 0;
        }
    }
    aesgen_memwipe(key, sizeof key);

    /* The context must be served by the variants we meant to test. */
    {
        const char *enc_name = aesgen_ctx_variant(ctx, AESGEN_ENCRYPT);
        const char *dec_name = aesgen_ctx_variant(ctx, AESGEN_DECRYPT);
        if (t->backend == NULL) {
            if ((t->enc != NULL && (enc_name == NULL || strcmp(enc_name, t->enc->name) != 0)) ||
                (t->dec != NULL && (dec_name == NULL || strcmp(dec_name, t->dec->name) != 0))) {
                fail(t->label, "aesgen_ctx_variant does not name the requested variant",
                     enc_name, 0);
                return 0;
            }
        } else {
            const char *names[2];
            int d;
            names[0] = enc_name;
            names[1] = dec_name;
            for (d = 0; d < 2; ++d) {
                const aesgen_variant *w = names[d] ? aesgen_find_variant(names[d]) : NULL;
                if (w == NULL || !is_software(w) || w->backend == NULL ||
                    strcmp(w->backend, t->backend) != 0) {
                    fail(t->label, "context not served by the forced portable backend",
                         names[d] ? names[d] : "(null)", 0);
                    return 0;
                }
            }
        }
    }
    return 1;
}

/* Block counts 1 .. 2*batch+1 (every tail path), thinned for large batches. */
static size_t block_counts(size_t batch, size_t *out, size_t cap)
{
    size_t n = 0, i;
    if (batch == 0) {
        batch = 1;
    }
    if (2 * batch + 1 <= 17) {
        for (i = 1; i <= 2 * batch + 1 && n < cap; ++i) {
            out[n++] = i;
        }
    } else {
        const size_t pick[] = { 1, 2, 3, batch - 1, batch, batch + 1,
                                2 * batch - 1, 2 * batch, 2 * batch + 1 };
        for (i = 0; i < sizeof pick / sizeof pick[0] && n < cap; ++i) {
            if (n == 0 || pick[i] > out[n - 1]) {
                out[n++] = pick[i];
            }
        }
    }
    return n;
}

typedef struct bufs {
    size_t cap;       /* bytes usable in each buffer (plus 4 bytes of slack for misalignment) */
    uint8_t *truth;   /* public test data */
    uint8_t *truth2;  /* public expected values */
    uint8_t *in;      /* secret inputs */
    uint8_t *out;
    uint8_t *out2;
    uint8_t *out3;
} bufs;

static int bufs_alloc(bufs *b, size_t bytes)
{
    b->cap = bytes;
    b->truth = malloc(bytes + 4);
    b->truth2 = malloc(bytes + 4);
    b->in = malloc(bytes + 4);
    b->out = malloc(bytes + 4);
    b->out2 = malloc(bytes + 4);
    b->out3 = malloc(bytes + 4);
    return b->truth && b->truth2 && b->in && b->out && b->out2 && b->out3;
}

static void bufs_free(bufs *b)
{
    free(b->truth);
    free(b->truth2);
    free(b->in);
    free(b->out);
    free(b->out2);
    free(b->out3);
    memset(b, 0, sizeof *b);
}

/* Encryption direction: ECB, CBC, CTR (including partial blocks). */
static void suite_encrypt(const ct_target *t, const aesgen_ctx *ctx, bufs *b, size_t nb,
                          int have_dec)
{
    const char *L = t->label;
    size_t len = nb * BLK, i;
    /* misaligned views: alignment is public, but it selects code paths */
    uint8_t *in = b->in + (nb % 4);
    uint8_t *out = b->out + ((nb + 1) % 4);
    uint8_t *out2 = b->out2 + ((nb + 2) % 4);
    uint8_t *out3 = b->out3;
    uint8_t iv0[16], iv[16], ctr0[16], ctrblk[16];
    aesgen_ctr s;

    /* --- ECB --- */
    fill_random(b->truth, len);
    secret_copy(in, b->truth, len);
    if (!check_ok(L, "ecb_encrypt", nb, aesgen_ecb_encrypt(ctx, out, in, len))) {
        return;
    }
    if (have_dec) { /* round trip while everything is still secret */
        if (check_ok(L, "ecb_decrypt (round trip)", nb, aesgen_ecb_decrypt(ctx, out2, out, len))) {
            check_equal(L, "ECB decrypt(encrypt(x)) != x", nb, out2, b->truth, len);
        }
    }
    /* in place gives the same ciphertext */
    secret_copy(out3, b->truth, len);
    if (check_ok(L, "ecb_encrypt in place", nb, aesgen_ecb_encrypt(ctx, out3, out3, len))) {
        PUBLIC(out, len);
        check_equal(L, "ECB in place != out of place", nb, out3, out, len);
    }
    PUBLIC(out, len);
    memcpy(b->truth2, out, len); /* public ECB ciphertext of truth */

    /* every block alone equals the batched result (largest count only) */
    if (nb == 2 * (t->batch ? t->batch : 1) + 1) {
        for (i = 0; i < nb; ++i) {
            secret_copy(in, b->truth + i * BLK, BLK);
            if (!check_ok(L, "ecb_encrypt single", nb, aesgen_ecb_encrypt(ctx, out3, in, BLK)) ||
                !check_equal(L, "ECB single block != batched", nb, out3, b->truth2 + i * BLK, BLK)) {
                break;
            }
        }
    }

    /* --- CBC: c[i] = E(p[i] ^ c[i-1]), checked through ECB --- */
    fill_random(iv0, 16);
    secret_copy(iv, iv0, 16);
    secret_copy(in, b->truth, len);
    if (check_ok(L, "cbc_encrypt", nb, aesgen_cbc_encrypt(ctx, iv, out, in, len))) {
        PUBLIC(out, len);
        PUBLIC(iv, 16);
        check_equal(L, "CBC encrypt: IV not updated to the last ciphertext block", nb,
                    iv, out + len - BLK, 16);
        for (i = 0; i < nb; ++i) {
            xor_bytes(b->truth2 + i * BLK, b->truth + i * BLK, i ? out + (i - 1) * BLK : iv0, BLK);
        }
        secret_copy(in, b->truth2, len);
        if (check_ok(L, "ecb_encrypt (CBC check)", nb, aesgen_ecb_encrypt(ctx, out2, in, len))) {
            check_equal(L, "CBC ciphertext != E(p ^ previous)", nb, out2, out, len);
        }
        if (have_dec) {
            secret_copy(iv, iv0, 16);
            secret_copy(in, out, len);
            if (check_ok(L, "cbc_decrypt (round trip)", nb, aesgen_cbc_decrypt(ctx, iv, out2, in, len))) {
                check_equal(L, "CBC decrypt(encrypt(x)) != x", nb, out2, b->truth, len);
            }
        }
    }

    /* --- CTR --- counter chosen so that the low 32 bits carry inside the run */
    fill_random(ctr0, 16);
    ctr0[12] = 0xff;
    ctr0[13] = 0xff;
    ctr0[14] = 0xff;
    ctr0[15] = (uint8_t)(0xff - (nb / 2));
    /* one call over all blocks */
    secret_copy(ctrblk, ctr0, 16);
    if (!check_ok(L, "ctr_init", nb, aesgen_ctr_init(&s, ctrblk))) {
        return;
    }
    secret_copy(in, b->truth, len);
    if (!check_ok(L, "ctr_crypt", nb, aesgen_ctr_crypt(ctx, &s, out, in, len))) {
        return;
    }
    PUBLIC(out, len);
    PUBLIC(s.counter, 16);
    memcpy(ctrblk, ctr0, 16);
    for (i = 0; i < nb; ++i) {
        counter_add1(ctrblk);
    }
    check_equal(L, "CTR: counter not advanced by the block count", nb, s.counter, ctrblk, 16);
    aesgen_ctr_wipe(&s);

    /* keystream == ECB of the counter blocks */
    memcpy(ctrblk, ctr0, 16);
    for (i = 0; i < nb; ++i) {
        memcpy(b->truth2 + i * BLK, ctrblk, 16);
        counter_add1(ctrblk);
    }
    secret_copy(in, b->truth2, len);
    if (check_ok(L, "ecb_encrypt (CTR check)", nb, aesgen_ecb_encrypt(ctx, out2, in, len))) {
        PUBLIC(out2, len);
        xor_bytes(out2, out2, b->truth, len);
        check_equal(L, "CTR output != plaintext ^ E(counter)", nb, out, out2, len);
    }

    /* the same stream in pieces that start and end inside blocks */
    {
        size_t c1 = len < 5 ? len : 5;
        size_t c2 = (len - c1) / 2 + 3 > len - c1 ? len - c1 : (len - c1) / 2 + 3;
        size_t c3 = len - c1 - c2;
        int ok;
        secret_copy(ctrblk, ctr0, 16);
        ok = check_ok(L, "ctr_init", nb, aesgen_ctr_init(&s, ctrblk));
        secret_copy(in, b->truth, len);
        ok = ok && check_ok(L, "ctr_crypt piece 1", nb, aesgen_ctr_crypt(ctx, &s, out2, in, c1));
        ok = ok && check_ok(L, "ctr_crypt piece 2", nb,
                            aesgen_ctr_crypt(ctx, &s, out2 + c1, in + c1, c2));
        ok = ok && check_ok(L, "ctr_crypt piece 3", nb,
                            aesgen_ctr_crypt(ctx, &s, out2 + c1 + c2, in + c1 + c2, c3));
        if (ok) {
            check_equal(L, "CTR in pieces != CTR in one call", nb, out2, out, len);
        }
        aesgen_ctr_wipe(&s);
    }

    /* one call ending in a partial block, in place, then decrypting it back */
    {
        size_t plen = len - 7;
        secret_copy(ctrblk, ctr0, 16);
        if (check_ok(L, "ctr_init", nb, aesgen_ctr_init(&s, ctrblk))) {
            secret_copy(out3, b->truth, plen);
            if (check_ok(L, "ctr_crypt partial in place", nb,
                         aesgen_ctr_crypt(ctx, &s, out3, out3, plen))) {
                aesgen_ctr_wipe(&s);
                secret_copy(ctrblk, ctr0, 16);
                if (check_ok(L, "ctr_init", nb, aesgen_ctr_init(&s, ctrblk)) &&
                    check_ok(L, "ctr_crypt partial (decrypt)", nb,
                             aesgen_ctr_crypt(ctx, &s, out2, out3, plen))) {
                    check_equal(L, "CTR partial: decrypt(encrypt(x)) != x", nb, out2, b->truth, plen);
                }
                check_equal(L, "CTR partial != prefix of the full stream", nb, out3, out, plen);
            }
        }
        aesgen_ctr_wipe(&s);
    }
}

/* Decryption direction: ECB, CBC. */
static void suite_decrypt(const ct_target *t, const aesgen_ctx *ctx, bufs *b, size_t nb,
                          int have_enc)
{
    const char *L = t->label;
    size_t len = nb * BLK, i;
    uint8_t *in = b->in + ((nb + 3) % 4);
    uint8_t *out = b->out + (nb % 4);
    uint8_t *out2 = b->out2 + ((nb + 1) % 4);
    uint8_t *out3 = b->out3;
    uint8_t iv0[16], iv[16];

    /* --- ECB --- */
    fill_random(b->truth, len); /* the ciphertext */
    secret_copy(in, b->truth, len);
    if (!check_ok(L, "ecb_decrypt", nb, aesgen_ecb_decrypt(ctx, out, in, len))) {
        return;
    }
    if (have_enc) {
        if (check_ok(L, "ecb_encrypt (round trip)", nb, aesgen_ecb_encrypt(ctx, out2, out, len))) {
            check_equal(L, "ECB encrypt(decrypt(y)) != y", nb, out2, b->truth, len);
        }
    }
    secret_copy(out3, b->truth, len);
    if (check_ok(L, "ecb_decrypt in place", nb, aesgen_ecb_decrypt(ctx, out3, out3, len))) {
        PUBLIC(out, len);
        check_equal(L, "ECB decrypt in place != out of place", nb, out3, out, len);
    }
    PUBLIC(out, len);
    memcpy(b->truth2, out, len); /* public D(ciphertext) */

    if (nb == 2 * (t->batch ? t->batch : 1) + 1) {
        for (i = 0; i < nb; ++i) {
            secret_copy(in, b->truth + i * BLK, BLK);
            if (!check_ok(L, "ecb_decrypt single", nb, aesgen_ecb_decrypt(ctx, out3, in, BLK)) ||
                !check_equal(L, "ECB decrypt single block != batched", nb, out3,
                             b->truth2 + i * BLK, BLK)) {
                break;
            }
        }
    }

    /* --- CBC: p[i] = D(c[i]) ^ c[i-1] --- */
    fill_random(iv0, 16);
    secret_copy(iv, iv0, 16);
    secret_copy(in, b->truth, len);
    if (check_ok(L, "cbc_decrypt", nb, aesgen_cbc_decrypt(ctx, iv, out2, in, len))) {
        PUBLIC(iv, 16);
        check_equal(L, "CBC decrypt: IV not updated to the last ciphertext block", nb,
                    iv, b->truth + len - BLK, 16);
        for (i = 0; i < nb; ++i) {
            xor_bytes(b->truth2 + i * BLK, b->truth2 + i * BLK,
                      i ? b->truth + (i - 1) * BLK : iv0, BLK);
        }
        check_equal(L, "CBC plaintext != D(c) ^ previous", nb, out2, b->truth2, len);
    }
    /* in place */
    secret_copy(iv, iv0, 16);
    secret_copy(out3, b->truth, len);
    if (check_ok(L, "cbc_decrypt in place", nb, aesgen_cbc_decrypt(ctx, iv, out3, out3, len))) {
        check_equal(L, "CBC decrypt in place != out of place", nb, out3, b->truth2, len);
    }
}

/* Runs the whole suite for one target; returns the new memcheck errors. */
static unsigned long run_target(const ct_target *t)
{
    aesgen_ctx ctx;
    uint8_t key[32];
    uint8_t blk[16], res[16];
    size_t counts[32], ncounts, i;
    const uint8_t *kat_ct = t->key_bits == 128 ? kat_ct128 : t->key_bits == 192 ? kat_ct192 : kat_ct256;
    unsigned long errors_before = memcheck_errors();
    unsigned long failures_before = g_failures;
    int have_enc, have_dec;
    bufs b;

    printf("%s\n", t->label);
    g_target_failures = 0;

    /* 1. FIPS-197 known answer, key and data secret */
    for (i = 0; i < 32; ++i) {
        key[i] = (uint8_t)i;
    }
    if (!setup_ctx(t, &ctx, key)) {
        goto done;
    }
    /* aesgen_ctx_variant answers NULL for a direction the context cannot do */
    have_enc = aesgen_ctx_variant(&ctx, AESGEN_ENCRYPT) != NULL;
    have_dec = aesgen_ctx_variant(&ctx, AESGEN_DECRYPT) != NULL;
    if ((t->test_enc && !have_enc) || (t->test_dec && !have_dec)) {
        fail(t->label, "context lacks the direction under test", NULL, 0);
        aesgen_wipe(&ctx);
        goto done;
    }
    if (t->test_enc || have_enc) {
        secret_copy(blk, kat_pt, 16);
        if (check_ok(t->label, "ecb_encrypt (FIPS-197)", 1, aesgen_ecb_encrypt(&ctx, res, blk, 16))) {
            check_equal(t->label, "FIPS-197 known answer (encrypt)", 1, res, kat_ct, 16);
        }
    }
    if (t->test_dec || have_dec) {
        secret_copy(blk, kat_ct, 16);
        if (check_ok(t->label, "ecb_decrypt (FIPS-197)", 1, aesgen_ecb_decrypt(&ctx, res, blk, 16))) {
            check_equal(t->label, "FIPS-197 known answer (decrypt)", 1, res, kat_pt, 16);
        }
    }
    aesgen_wipe(&ctx);

    /* 2. a random secret key, every block count up to 2*batch+1 */
    fill_random(key, sizeof key);
    if (!setup_ctx(t, &ctx, key)) {
        goto done;
    }
    ncounts = block_counts(t->batch, counts, sizeof counts / sizeof counts[0]);
    if (!bufs_alloc(&b, counts[ncounts - 1] * BLK)) {
        bufs_free(&b);
        fail(t->label, "out of memory", NULL, 0);
        aesgen_wipe(&ctx);
        goto done;
    }
    for (i = 0; i < ncounts; ++i) {
        if (t->test_enc) {
            suite_encrypt(t, &ctx, &b, counts[i], have_dec);
        }
        if (t->test_dec) {
            suite_decrypt(t, &ctx, &b, counts[i], have_enc);
        }
    }
    bufs_free(&b);
    aesgen_wipe(&ctx);
    if (g_verbose) {
        printf("  block counts 1..%zu (%zu counts)\n", counts[ncounts - 1], ncounts);
    }

done:
    {
        unsigned long errs = memcheck_errors() - errors_before;
        if (errs != 0) {
            printf("  LEAK? memcheck reported %lu error(s) while testing this (see above)\n", errs);
        } else if (g_failures == failures_before) {
            printf("  ok\n");
        }
        fflush(stdout);
        return errs;
    }
}

/* ------------------------------------------------------------------------ */
/* Default mode                                                             */
/* ------------------------------------------------------------------------ */

static int run_library_tests(int under_memcheck)
{
    size_t i, ntargets = 0, nbackends = 0, nvariants = 0;
    unsigned long leaky_targets = 0;
    unsigned covered[3][2] = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
    int k, d;

    printf("%s: library %s, %zu registered variant(s)\n", g_prog, aesgen_version_string(),
           (size_t)aesgen_registry_size);

    /* 1. every portable variant, through aesgen_init_variants */
    for (i = 0; i < aesgen_registry_size; ++i) {
        const aesgen_variant *v = aesgen_registry[i];
        const aesgen_variant *partner;
        ct_target t;
        int kidx;

        if (!is_software(v)) {
            continue;
        }
        kidx = v->key_bits == 128 ? 0 : v->key_bits == 192 ? 1 : v->key_bits == 256 ? 2 : -1;
        if (kidx < 0 || v->direction > 1) {
            printf("FAIL: variant %s has key_bits %u, direction %u\n", v->name,
                   (unsigned)v->key_bits, (unsigned)v->direction);
            ++g_failures;
            continue;
        }
        ++nvariants;
        covered[kidx][v->direction] += 1;
        if (!name_matches(v->name)) {
            continue;
        }
        if (!aesgen_variant_usable(v)) {
            printf("FAIL: portable variant %s reported unusable on this CPU\n", v->name);
            ++g_failures;
            continue;
        }
        partner = software_partner(v);
        memset(&t, 0, sizeof t);
        t.key_bits = v->key_bits;
        t.batch = v->batch_blocks;
        if (partner != NULL && partner->batch_blocks > t.batch) {
            t.batch = partner->batch_blocks;
        }
        if (v->direction == AESGEN_ENCRYPT) {
            t.enc = v;
            t.dec = partner;
            t.test_enc = 1;
        } else {
            t.enc = partner;
            t.dec = v;
            t.test_dec = 1;
        }
        snprintf(t.label, sizeof t.label, "variant %s (batch %u, other direction: %s)", v->name,
                 (unsigned)v->batch_blocks, partner ? partner->name : "dispatch");
        leaky_targets += run_target(&t) != 0;
        ++ntargets;
    }

    /* 2. every portable backend, through the public API */
    for (i = 0; i < aesgen_backend_count(); ++i) {
        const char *name = aesgen_backend_name(i);
        unsigned key_bits;

        size_t j;
        int seen = 0;

        if (name == NULL || !backend_is_software(name)) {
            continue;
        }
        for (j = 0; j < i && !seen; ++j) {
            const char *earlier = aesgen_backend_name(j);
            seen = earlier != NULL && strcmp(earlier, name) == 0;
        }
        if (seen) {
            /* not a constant-time matter, but do not test it twice */
            printf("note: aesgen_backend_name(%zu) repeats backend %s\n", i, name);
            continue;
        }
        ++nbackends;
        if (!name_matches(name)) {
            continue;
        }
        if (aesgen_backend_supported(name) != 1) {
            printf("FAIL: portable backend %s reported unsupported on this CPU\n", name);
            ++g_failures;
            continue;
        }
        for (key_bits = 128; key_bits <= 256; key_bits += 64) {
            ct_target t;
            int dirs = 0;
            memset(&t, 0, sizeof t);
            t.key_bits = key_bits;
            t.backend = name;
            t.test_enc = 1;
            t.test_dec = 1;
            for (j = 0; j < aesgen_registry_size; ++j) {
                const aesgen_variant *w = aesgen_registry[j];
                if (w == NULL || w->backend == NULL || strcmp(w->backend, name) != 0 ||
                    w->key_bits != key_bits || w->direction > 1) {
                    continue;
                }
                dirs |= 1 << w->direction;
                if (w->batch_blocks > t.batch) {
                    t.batch = w->batch_blocks;
                }
            }
            if (dirs != 3) {
                /* its variants were tested one by one above */
                printf("backend %s, AES-%u: %s, public-API run skipped\n", name, key_bits,
                       dirs == 0 ? "no variant" : (dirs & 1) ? "no decryption variant"
                                                            : "no encryption variant");
                continue;
            }
            snprintf(t.label, sizeof t.label, "backend %s, AES-%u, public API (aesgen_init)",
                     name, key_bits);
            leaky_targets += run_target(&t) != 0;
            ++ntargets;
        }
    }
    aesgen_force_backend(NULL);

    /* the run must not be vacuous */
    for (k = 0; k < 3; ++k) {
        for (d = 0; d < 2; ++d) {
            if (covered[k][d] == 0) {
                printf("FAIL: no portable variant for AES-%d %s in the registry\n", 128 + 64 * k,
                       d ? "decryption" : "encryption");
                ++g_failures;
            }
        }
    }
    if (nbackends == 0) {
        printf("FAIL: no portable backend found\n");
        ++g_failures;
    }
    if (ntargets == 0) {
        printf("FAIL: nothing tested (--only %s)\n", g_only ? g_only : "not given");
        ++g_failures;
    }

    printf("%s: %zu portable variant(s), %zu portable backend(s), %zu target(s), "
           "%lu library call(s) checked\n",
           g_prog, nvariants, nbackends, ntargets, g_library_calls);
    printf("%s: %lu functional failure(s)", g_prog, g_failures);
    if (under_memcheck) {
        printf(", %lu memcheck error(s) in %lu target(s)", memcheck_errors(), leaky_targets);
    }
    printf("\n");
    if (g_failures != 0) {
        printf("%s: FAIL\n", g_prog);
        return CT_EXIT_FAIL;
    }
    if (memcheck_errors() != 0) {
        printf("%s: memcheck reported secret-dependent branches or addresses: FAIL\n", g_prog);
        return CT_EXIT_FAIL; /* valgrind turns this into --error-exitcode anyway */
    }
    if (!under_memcheck) {
        printf("%s: (--allow-native) functional checks passed; constant time NOT checked\n",
               g_prog);
        return CT_EXIT_DONE;
    }
    printf("%s: PASS (no secret-dependent branch or memory address seen by memcheck)\n", g_prog);
    return CT_EXIT_DONE;
}

/* ------------------------------------------------------------------------ */
/* --leaky: a deliberately leaky AES step; memcheck must report it          */
/* ------------------------------------------------------------------------ */

static uint8_t g_sbox[256];
static volatile unsigned g_leak_sink;

static uint8_t rotl8(uint8_t x, unsigned s)
{
    return (uint8_t)((x << s) | (x >> (8 - s)));
}

/* The AES S-box from its definition (public computation, done once). */
static void build_sbox(void)
{
    uint8_t p = 1, q = 1;
    do {
        p = (uint8_t)(p ^ (p << 1) ^ ((p & 0x80) ? 0x1b : 0)); /* p *= 3 */
        q = (uint8_t)(q ^ (q << 1));                           /* q /= 3 */
        q = (uint8_t)(q ^ (q << 2));
        q = (uint8_t)(q ^ (q << 4));
        if (q & 0x80) {
            q ^= 0x09;
        }
        g_sbox[p] = (uint8_t)(q ^ rotl8(q, 1) ^ rotl8(q, 2) ^ rotl8(q, 3) ^ rotl8(q, 4) ^ 0x63);
    } while (p != 1);
    g_sbox[0] = 0x63;
}

/* AddRoundKey + SubBytes through a 256-byte table: the load address depends
 * on key ^ plaintext (the classic cache-timing leak). */
CT_NOINLINE static void leaky_subbytes(uint8_t out[16], const uint8_t key[16], const uint8_t in[16])
{
    int i;
    for (i = 0; i < 16; ++i) {
        out[i] = g_sbox[key[i] ^ in[i]];
    }
}

/* xtime with a branch on the top bit of a secret byte. The volatile store
 * keeps the compiler from turning the branch into branch-free code. */
CT_NOINLINE static void leaky_xtime(uint8_t s[16])
{
    int i;
    for (i = 0; i < 16; ++i) {
        if (s[i] & 0x80) {
            s[i] = (uint8_t)((s[i] << 1) ^ 0x1b);
            g_leak_sink = g_leak_sink + 1u;
        } else {
            s[i] = (uint8_t)(s[i] << 1);
        }
    }
}

static int run_leaky(int under_memcheck)
{
    uint8_t key[16], pt[16], ks[16], kp[16], st[16], want[16];
    unsigned long e0, e1, e2;
    int i, ok = 1;

    build_sbox();
    if (g_sbox[0x00] != 0x63 || g_sbox[0x01] != 0x7c || g_sbox[0x53] != 0xed ||
        g_sbox[0xff] != 0x16) {
        printf("%s: --leaky: S-box construction is wrong\n", g_prog);
        return CT_EXIT_FAIL;
    }
    fill_random(key, 16);
    fill_random(pt, 16);
    for (i = 0; i < 16; ++i) {
        want[i] = g_sbox[key[i] ^ pt[i]];
    }

    /* Memcheck reports a load through an undefined address once and then
     * treats the loaded value as defined (to avoid cascades), so the branch
     * gets its own secret input rather than the S-box output. */
    secret_copy(ks, key, 16);
    secret_copy(kp, pt, 16);
    e0 = memcheck_errors();
    leaky_subbytes(st, ks, kp);
    e1 = memcheck_errors();
    PUBLIC(st, 16);
    if (memcmp(st, want, 16) != 0) {
        printf("%s: --leaky: the leaky SubBytes computed a wrong result\n", g_prog);
        return CT_EXIT_FAIL;
    }
    secret_copy(st, want, 16);
    leaky_xtime(st);
    e2 = memcheck_errors();
    PUBLIC(st, 16);

    for (i = 0; i < 16; ++i) {
        uint8_t x = want[i];
        want[i] = (uint8_t)((x << 1) ^ ((x & 0x80) ? 0x1b : 0));
    }
    if (memcmp(st, want, 16) != 0) {
        printf("%s: --leaky: the leaky xtime computed a wrong result\n", g_prog);
        return CT_EXIT_FAIL;
    }
    if (!under_memcheck) {
        printf("%s: --leaky ran natively (--allow-native): nothing was checked\n", g_prog);
        return CT_EXIT_DONE;
    }
    printf("%s: --leaky: memcheck errors: %lu at the secret-indexed S-box load, "
           "%lu at the secret-dependent branch\n", g_prog, e1 - e0, e2 - e1);
    if (e1 == e0) {
        printf("%s: --leaky: memcheck did NOT report the secret-indexed table load\n", g_prog);
        ok = 0;
    }
    if (e2 == e1) {
        printf("%s: --leaky: memcheck did NOT report the secret-dependent branch\n", g_prog);
        ok = 0;
    }
    if (!ok) {
        return CT_EXIT_FAIL;
    }
    /* The line run_ct.sh looks for; the exit status comes from valgrind. */
    printf("%s: --leaky: LEAKS REPORTED by memcheck (table load and branch), as intended\n", g_prog);
    return CT_EXIT_DONE;
}

/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: valgrind --error-exitcode=99 %s [--leaky] [--only TEXT] [--verbose]\n"
            "       %s --allow-native ...   (debugging: run without valgrind, checks nothing)\n"
            "Marks keys and data undefined and reports, through valgrind memcheck, any\n"
            "branch or memory address that depends on them. Exit 0 done, 1 failure,\n"
            "2 usage, 3 not under valgrind memcheck (nothing checked).\n",
            g_prog, g_prog);
}

int main(int argc, char **argv)
{
    int leaky = 0, allow_native = 0, under_memcheck, i;

    setvbuf(stdout, NULL, _IOLBF, 0); /* interleave with valgrind's stderr */
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--leaky") == 0) {
            leaky = 1;
        } else if (strcmp(argv[i], "--allow-native") == 0) {
            allow_native = 1;
        } else if (strcmp(argv[i], "--verbose") == 0) {
            g_verbose = 1;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            g_only = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return CT_EXIT_DONE;
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", g_prog, argv[i]);
            usage(stderr);
            return CT_EXIT_USAGE;
        }
    }

    under_memcheck = memcheck_tracks_definedness();
    if (!under_memcheck) {
        if (RUNNING_ON_VALGRIND) {
            printf("%s: running under valgrind, but not with memcheck (use --tool=memcheck)\n",
                   g_prog);
        } else {
            printf("%s: NOT running under valgrind: constant-time behaviour is NOT checked.\n"
                   "  Run it as: valgrind --error-exitcode=99 %s%s\n",
                   g_prog, argc > 0 ? argv[0] : g_prog, leaky ? " --leaky" : "");
        }
        if (!allow_native) {
            printf("%s: nothing was tested (exit %d). --allow-native runs the functional "
                   "part anyway.\n", g_prog, CT_EXIT_NOT_CHECKED);
            return CT_EXIT_NOT_CHECKED;
        }
        printf("%s: --allow-native: running without memcheck; only functional checks count\n",
               g_prog);
    } else {
        printf("%s: under valgrind memcheck (headers %d.%d); secrets are marked undefined\n",
               g_prog, __VALGRIND_MAJOR__, __VALGRIND_MINOR__);
    }

    if (leaky) {
        return run_leaky(under_memcheck);
    }
    return run_library_tests(under_memcheck);
}
